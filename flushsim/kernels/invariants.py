"""The buffer pool's invariants (STYLE.md, BusTub's check_invariants), for the pure-Python twin.

`check_state(sim)` raises AssertionError naming the first broken rule. The twin calls it after
every event when run with `check_every_event=True`; the property tests do that on scenarios
drawn by hypothesis.
"""

from __future__ import annotations

from . import layout as L


def check_state(sim) -> None:
    """Check a `reference.ReferenceSim` between two events."""
    in_flight = {f for _, f in sim.writes_in_flight}
    for inst in sim.instances:
        lru = []
        f, prev = inst.lru_head, None
        while f is not None:
            assert f.prev is prev, f"instance {inst.index}: LRU back link broken at frame {f.id}"
            lru.append(f)
            prev, f = f, f.next
        assert prev is inst.lru_tail, f"instance {inst.index}: LRU tail is not the last frame"
        assert len(lru) == inst.lru_len, f"instance {inst.index}: LRU length is off"
        lru_set = set(lru)
        free_set = set(inst.free)
        assert len(free_set) == len(inst.free), f"instance {inst.index}: a frame is free twice"
        assert not lru_set & free_set, f"instance {inst.index}: a frame is both free and in LRU"
        assert len(lru) + len(inst.free) == inst.size, (
            f"instance {inst.index}: free + LRU = {len(lru) + len(inst.free)} != {inst.size}"
        )
        for fr in lru:
            assert fr.in_lru and fr.page != L.NO_PAGE, f"frame {fr.id} in the LRU without a page"
            assert sim.page_frame.get(fr.page) is fr, f"page {fr.page} map does not point back"
        for fr in inst.free:
            assert fr.page == L.NO_PAGE and not fr.in_lru, f"free frame {fr.id} holds a page"
            assert fr.oldest_modification == 0, f"free frame {fr.id} is dirty"
            assert fr.io == L.IO_NONE, f"free frame {fr.id} has I/O in flight"
        # old sublist: LRU_old is the head-most old frame and old_len counts the old frames
        olds = [fr for fr in lru if fr.old]
        assert len(olds) == inst.old_len, f"instance {inst.index}: old length is off"
        if inst.lru_len < L.BUF_LRU_OLD_MIN_LEN:
            assert inst.lru_old is None and not olds, "an old sublist below 512 pages"
        else:
            first_old = lru.index(inst.lru_old)
            assert all(fr.old for fr in lru[first_old:]), "a young frame behind LRU_old"
            assert not any(fr.old for fr in lru[:first_old]), "an old frame before LRU_old"
        # flush list: exactly the dirty frames, ordered by oldest_modification
        dirty = [fr for fr in lru if fr.oldest_modification != 0]
        assert set(dirty) == set(inst.flush_list), (
            f"instance {inst.index}: dirty frames and flush list differ"
        )
        lsns = [fr.oldest_modification for fr in inst.flush_list]
        assert lsns == sorted(lsns), f"instance {inst.index}: flush list out of LSN order"
        if lsns:
            assert sim.checkpoint_lsn <= lsns[0], "checkpoint is past the oldest modification"
        # writes in flight
        lru_writes = sum(
            1 for fr in in_flight if fr.instance == inst.index and fr.io in (L.IO_LRU, L.IO_MA_LRU)
        )
        list_writes = sum(1 for fr in in_flight if fr.instance == inst.index and fr.io == L.IO_LIST)
        assert lru_writes == inst.pending_lru >= 0, "LRU writes in flight miscounted"
        assert list_writes == inst.pending_list >= 0, "flush-list writes in flight miscounted"
    held = {th["held"] for th in sim.threads} - {None}
    for fr in sim.frames:
        # a single-page flush's frame is held by its thread, not in the ring of writes
        assert (fr.io == L.IO_SINGLE) == (fr in held), f"frame {fr.id} single-flush flag is off"
        async_write = fr.io not in (L.IO_NONE, L.IO_SINGLE)
        assert async_write == (fr in in_flight), f"frame {fr.id} io flag is off"
        if fr.io != L.IO_NONE:
            assert fr.oldest_modification != 0, f"frame {fr.id} is written while clean"
    assert sim.checkpoint_lsn <= sim.lsn, "checkpoint ahead of the current LSN"
    assert (sim.out >= 0).all(), "a counter went negative"
