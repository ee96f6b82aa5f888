"""The scan cache of kernels/pool.py and the LRU runs of lru_runs.py keep the server's walk.

A user thread's scan_and_free resumes where the last scan stopped, past the unreplaceable
frames it found; the list operations correct that record. Hypothesis drives a pool through
random sequences of those operations (reads at the head or the midpoint, pages made young,
dirtied, written, cleaned, evicted) and checks, after every step, that the record still
describes the list, that the runs cut the list as they say, and that every scan evicts the
frame a plain walk finds, having passed over as many frames: the walk of
buf_LRU_free_from_common_LRU_list, from buf_pool.lru_scan_itr if that frame is in the young part
of the LRU (LRUItr::start), else from the tail, leaving the iterator where it stops. The test
keeps its own iterator, moved back a frame when its frame leaves the list (LRUHp::adjust).
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flushsim as fs
from flushsim import schema
from flushsim.kernels import layout as L
from flushsim.kernels import lru_search, pool, sim
from flushsim.run import kernel_inputs

pytestmark = pytest.mark.kernel

RATIO = pool.old_ratio(37)


class Pool:
    """One instance of `frames` frames, driven through the kernel's own list functions."""

    def __init__(self, frames):
        ki = kernel_inputs(fs.Scenario())
        self.knobs = ki.knobs.copy()
        self.knobs[schema.K_POOL_SIZE] = frames * 16384
        self.knobs[schema.K_INSTANCES] = 1
        self.fr, self.frl, self.inst, self.page_frame, self.runs, *_ = sim.init_state(
            self.knobs, 1, 4 * frames, 1
        )
        self.next_page = 0
        self.lsn = 1
        self.itr = L.NIL  # the test's own lru_scan_itr

    def lru(self):
        """Frames from the tail to the head."""
        out, f = [], self.inst[0, L.I_LRU_TAIL]
        while f != L.NIL:
            out.append(int(f))
            f = self.fr[f, L.F_PREV]
        return out

    def replaceable(self, f):
        return self.frl[f, L.L_OLDEST_MODIFICATION] == 0 and self.fr[f, L.F_IO] == L.IO_NONE

    def plain_scan(self, scan_all):
        """The server's walk, without the cache or the runs.

        Returns (the frame it would evict, the iterator after, the frames it passed over).
        """
        lru = self.lru()
        start = 0
        if self.itr != L.NIL and self.fr[self.itr, L.F_LRU] != L.LRU_OLD:
            start = lru.index(self.itr)
        for k, f in enumerate(lru[start:]):
            if not scan_all and k >= L.BUF_LRU_SEARCH_SCAN_THRESHOLD:
                return None, f, k
            if self.replaceable(f):
                return f, int(self.fr[f, L.F_PREV]), k
        return None, L.NIL, len(lru) - start

    def leaves(self, f):
        """Frame f leaves the LRU list: the iterator on it moves back one frame."""
        if f == self.itr:
            self.itr = int(self.fr[f, L.F_PREV])

    def check_record(self):
        n = int(self.inst[0, L.I_SCAN_N])
        lru = self.lru()
        assert 0 <= n <= min(L.SCAN_CACHE, len(lru))
        assert list(self.inst[0, L.I_SCAN_PRE : L.I_SCAN_PRE + n]) == lru[:n]
        assert not any(self.replaceable(f) for f in lru[:n])
        if n > 0:
            assert self.inst[0, L.I_SCAN_NEXT] == (lru[n] if n < len(lru) else L.NIL)
        self.check_runs(lru)

    def check_runs(self, lru):
        """The runs of lru_runs.py cut the LRU into stretches, linked in order, as they say."""
        runs, fr = self.runs, self.fr
        r = int(fr[lru[0], L.F_RUN]) if lru else L.NIL
        assert r == L.NIL or runs[r, L.R_DOWN] == L.NIL
        k = 0
        while r != L.NIL:
            n = int(runs[r, L.R_LEN])
            stretch = lru[k : k + n]
            assert n > 0 and len(stretch) == n, f"run {r}: {n} frames, {len(stretch)} left"
            assert runs[r, L.R_TAIL] == stretch[0] and runs[r, L.R_HEAD] == stretch[-1]
            assert all(fr[f, L.F_RUN] == r for f in stretch), f"run {r}: a frame is elsewhere"
            clean = sum(1 for f in stretch if self.replaceable(f))
            assert runs[r, L.R_CLEAN] == clean, f"run {r}: {runs[r, L.R_CLEAN]} clean, not {clean}"
            up = int(runs[r, L.R_UP])
            assert up == L.NIL or runs[up, L.R_DOWN] == r
            k += n
            r = up
        assert k == len(lru), "the runs do not cover the LRU list"

    # ---------------------------------------------------------------- operations
    def read(self, old):
        f = pool.free_pop(self.fr, self.frl, self.inst, 0)
        if f == L.NIL:
            return
        self.fr[f, L.F_PAGE] = self.next_page
        self.page_frame[self.next_page] = f
        self.next_page += 1
        pool.lru_add(self.fr, self.inst, self.runs, 0, f, old, RATIO)

    def make_young(self, f):
        self.leaves(f)
        pool.make_young(self.fr, self.inst, self.runs, 0, f, RATIO)

    def dirty(self, f):
        if self.frl[f, L.L_OLDEST_MODIFICATION] == 0:
            self.lsn += 1
            pool.flush_list_add(self.fr, self.frl, self.inst, self.runs, 0, f, self.lsn)

    def write(self, f):
        if self.frl[f, L.L_OLDEST_MODIFICATION] != 0 and self.fr[f, L.F_IO] == L.IO_NONE:
            self.fr[f, L.F_IO] = L.IO_LIST

    def complete(self, f):
        # cleaner.write_complete: the write is done, the page is clean
        if self.fr[f, L.F_IO] != L.IO_NONE:
            self.fr[f, L.F_IO] = L.IO_NONE
            pool.flush_list_remove(self.fr, self.frl, self.inst, self.runs, 0, f)

    def evict(self, f):
        if self.replaceable(f):
            self.leaves(f)
            self.page_frame[self.fr[f, L.F_PAGE]] = L.NO_PAGE
            pool.evict(self.fr, self.inst, self.runs, self.page_frame, 0, f, RATIO)

    def scan(self, scan_all):
        expected, itr, passed = self.plain_scan(scan_all)
        freed, scanned = lru_search.scan_and_free(
            L.Pool(self.fr, self.frl, self.inst, self.page_frame, self.runs),
            self.knobs,
            0,
            scan_all,
        )
        assert freed == (expected is not None)
        assert scanned == passed  # buffer_LRU_search_scanned: what the walk passed over
        if freed:
            assert self.fr[expected, L.F_LRU] == L.ON_FREE  # that very frame went free
        self.itr = itr
        assert self.inst[0, L.I_LRU_ITR] == itr


OPS = ("read_old", "read_young", "make_young", "dirty", "write", "complete", "evict", "scan")


@settings(max_examples=60, deadline=None)
@given(
    frames=st.sampled_from([8, 600]),  # without and with an old sublist (512 frames and more)
    steps=st.lists(
        st.tuples(st.sampled_from(OPS), st.floats(0, 1), st.booleans()),
        min_size=1,
        max_size=400,
    ),
)
def test_every_scan_evicts_the_frame_a_walk_from_the_tail_finds(frames, steps):
    p = Pool(frames)
    for _ in range(frames - 4):  # a nearly full pool, the tail half dirty
        p.read(old=True)
    for f in p.lru()[: len(p.lru()) // 2]:
        p.dirty(f)
    for op, where, flag in steps:
        lru = p.lru()
        # pick frames near the tail more often: that is where the record lives
        f = lru[min(int(where**3 * len(lru)), len(lru) - 1)] if lru else None
        if op in ("read_old", "read_young"):
            p.read(old=op == "read_old")
        elif op == "scan":
            p.scan(scan_all=flag)
        elif f is not None:
            getattr(p, op)(f)
        p.check_record()


def test_the_record_checks_catch_a_stale_record():
    # the checks above can fail: a page cleaned behind the cache's back is caught
    p = Pool(600)
    for _ in range(590):
        p.read(old=True)
    tail = p.lru()[:50]
    for f in tail:
        p.dirty(f)
    p.scan(scan_all=False)
    assert p.inst[0, L.I_SCAN_N] == 50
    p.frl[tail[10], L.L_OLDEST_MODIFICATION] = 0  # clean, but not through flush_list_remove
    with pytest.raises(AssertionError):
        p.check_record()
    with pytest.raises(AssertionError):
        p.scan(scan_all=False)  # it resumed past the clean page a walk finds


def fixed_pool():
    """600 frames, the tail 400 dirty (runs with no clean frame), after a whole-list scan."""
    p = Pool(600)
    for _ in range(596):
        p.read(old=True)
    for f in p.lru()[:400]:
        p.dirty(f)
    p.scan(scan_all=True)  # passes the 400 dirty frames, most of them a run at a time
    assert any(p.runs[r, L.R_CLEAN] == 0 for r in p.fr[p.lru()[:400], L.F_RUN])
    return p


def test_a_page_cleaned_inside_a_passed_run_is_found():
    p = fixed_pool()
    f = p.lru()[300]
    p.write(f)
    p.complete(f)  # clean again through flush_list_remove: its run is no longer skipped
    p.itr = L.NIL
    p.inst[0, L.I_LRU_ITR] = L.NIL
    p.scan(scan_all=True)  # asserts the frame and the count of the plain walk
    assert p.fr[f, L.F_LRU] == L.ON_FREE
    p.check_record()


def test_a_page_read_into_a_passed_run_is_found():
    p = fixed_pool()
    p.read(old=True)  # midpoint insertion, inside the dirty part: a clean page there
    new = p.page_frame[p.next_page - 1]
    assert p.lru().index(new) < 400
    p.itr = L.NIL
    p.inst[0, L.I_LRU_ITR] = L.NIL
    p.scan(scan_all=True)
    assert p.fr[new, L.F_LRU] == L.ON_FREE
    p.check_record()
