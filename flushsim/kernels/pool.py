"""Buffer pool lists in arrays: free list, LRU list with the old sublist, flush list.

Models MySQL 8.0's `buf0lru.cc` (`buf_LRU_add_block_low`, `buf_LRU_remove_block`,
`buf_LRU_old_adjust_len`, `buf_LRU_make_block_young`) and `buf0buf.ic`
(`buf_page_peek_if_too_old`), one instance at a time. The flush list is kept exactly sorted by
oldest_modification (no `order_lag`). Simplification: "replaceable" means clean and without
I/O in flight (no buffer-fix between events). The scan cache (I_SCAN_*) remembers what the
last scan_and_free walked so the next resumes there, with the same results as the twin's
full walk; the runs of lru_runs.py let a search pass frames it knows unreplaceable. See
docs/model.md, sections Buffer pool lists and The LRU run index.
"""

from __future__ import annotations

from numba import njit

from . import layout as L
from .hints import columns, nonneg, prefetch2

# imported by name: hints.columns needs a literal width (numba types a module attribute int64)
from .layout import N_FRAME_I32, N_FRAME_I64, N_INST
from .lru_runs import run_dirty, run_join_after, run_join_head, run_leave


@njit(cache=True, inline="always", _nrt=False)
def old_ratio(old_blocks_pct):
    """LRU_old_ratio of buf_LRU_old_ratio_update: pct * 1024 / 100."""
    return nonneg(int(old_blocks_pct)) * L.BUF_LRU_OLD_RATIO_DIV // 100


@njit(cache=True, inline="always", _nrt=False)
def lru_columns(fr, inst):
    """Tell LLVM the widths of the frame (int32) and instance tables (hints.columns)."""
    columns(fr, N_FRAME_I32)
    columns(inst, N_INST)


@njit(cache=True, inline="always", _nrt=False)
def frame_columns(fr, frl, inst):
    """lru_columns, and the width of the frames' int64 table."""
    lru_columns(fr, inst)
    columns(frl, N_FRAME_I64)


@njit(cache=True, _nrt=False)
def free_push(fr, inst, i, f):
    """Put frame f on instance i's free list (last in, first out)."""
    fr[f, L.F_NEXT] = inst[i, L.I_FREE_HEAD]
    inst[i, L.I_FREE_HEAD] = f
    inst[i, L.I_FREE_LEN] += 1


@njit(cache=True, inline="always", _nrt=False)
def free_pop(fr, frl, inst, i):
    """Take a frame from instance i's free list, or NIL if it is empty."""
    f = inst[i, L.I_FREE_HEAD]
    if f < 0:
        return L.NIL
    nxt = fr[f, L.F_NEXT]
    inst[i, L.I_FREE_HEAD] = nxt
    # the next pop reads the new head's F_NEXT, and the page read into it its other fields
    prefetch2(fr, nxt, L.F_PAGE)
    prefetch2(fr, nxt, L.F_FREED_CLOCK)
    prefetch2(frl, nxt, L.L_OLDEST_MODIFICATION)
    fr[f, L.F_NEXT] = L.NIL
    inst[i, L.I_FREE_LEN] -= 1
    return f


@njit(cache=True, _nrt=False)
def lru_old_adjust_len(fr, inst, i, ratio):
    """buf_LRU_old_adjust_len: move LRU_old until the old sublist is ratio/1024 of the list."""
    lru_columns(fr, inst)
    i = nonneg(i)
    length = inst[i, L.I_LRU_LEN]
    new_len = min(
        length * ratio // L.BUF_LRU_OLD_RATIO_DIV,
        length - (L.BUF_LRU_OLD_TOLERANCE + L.BUF_LRU_NON_OLD_MIN_LEN),
    )
    while True:
        old = inst[i, L.I_LRU_OLD]
        old_len = inst[i, L.I_OLD_LEN]
        if old_len + L.BUF_LRU_OLD_TOLERANCE < new_len:
            old = fr[old, L.F_PREV]
            inst[i, L.I_LRU_OLD] = old
            inst[i, L.I_OLD_LEN] = old_len + 1
            fr[old, L.F_LRU] = L.LRU_OLD
        elif old_len > new_len + L.BUF_LRU_OLD_TOLERANCE:
            inst[i, L.I_LRU_OLD] = fr[old, L.F_NEXT]
            inst[i, L.I_OLD_LEN] = old_len - 1
            fr[old, L.F_LRU] = L.LRU_YOUNG
        else:
            return


@njit(cache=True, _nrt=False)
def lru_old_init(fr, inst, i, ratio):
    """buf_LRU_old_init: mark every page old, then let adjust_len move the boundary."""
    f = inst[i, L.I_LRU_TAIL]
    while f >= 0:
        fr[f, L.F_LRU] = L.LRU_OLD
        f = fr[f, L.F_PREV]
    inst[i, L.I_LRU_OLD] = inst[i, L.I_LRU_HEAD]
    inst[i, L.I_OLD_LEN] = inst[i, L.I_LRU_LEN]
    lru_old_adjust_len(fr, inst, i, ratio)


@njit(cache=True, inline="always", _nrt=False)
def scan_cut(inst, i, f, nxt):
    """Frame f changed: the scan cache keeps only the frames before it, and `nxt` follows them."""
    for p in range(inst[i, L.I_SCAN_N]):
        if inst[i, L.I_SCAN_PRE + p] == f:
            inst[i, L.I_SCAN_N] = p
            inst[i, L.I_SCAN_NEXT] = nxt
            return


@njit(cache=True, inline="always", _nrt=False)
def scan_cache_insert(inst, i, f, at):
    """Frame f was inserted `at` frames from the LRU tail."""
    n = inst[i, L.I_SCAN_N]
    if at < n:
        inst[i, L.I_SCAN_N] = at
        inst[i, L.I_SCAN_NEXT] = f
    elif at == n:
        inst[i, L.I_SCAN_NEXT] = f


@njit(cache=True, inline="always", _nrt=False)
def scan_cache_unlink(fr, inst, i, f):
    """Frame f, not in the scan cache, leaves the LRU list."""
    if f == inst[i, L.I_SCAN_NEXT]:
        inst[i, L.I_SCAN_NEXT] = fr[f, L.F_PREV]


# inlined, as lru_remove and evict: once per page read or eviction, a call passing the arrays
# word by word cost more than the list work (with all three: default preset 701.6 -> 624.1 M
# instructions a run, benchmarks/instructions.py; io.submit says the same of the I/O path)
@njit(cache=True, inline="always", _nrt=False)
def lru_add(fr, inst, runs, i, f, old, ratio):
    """buf_LRU_add_block_low: add at the head (young) or after LRU_old (midpoint, old)."""
    lru_columns(fr, inst)
    i = nonneg(i)
    f = nonneg(f)
    if (not old) or inst[i, L.I_LRU_LEN] < L.BUF_LRU_OLD_MIN_LEN:
        scan_cache_insert(inst, i, f, inst[i, L.I_LRU_LEN])
        head = inst[i, L.I_LRU_HEAD]
        fr[f, L.F_PREV] = L.NIL
        fr[f, L.F_NEXT] = head
        if head >= 0:
            fr[head, L.F_PREV] = f
        else:
            inst[i, L.I_LRU_TAIL] = f
        inst[i, L.I_LRU_HEAD] = f
        fr[f, L.F_FREED_CLOCK] = inst[i, L.I_FREED_PAGE_CLOCK]
        run_join_head(fr, inst, runs, i, f, head)
    else:
        # the old sublist runs from LRU_old to the tail: f lands I_OLD_LEN - 1 from the tail
        scan_cache_insert(inst, i, f, inst[i, L.I_OLD_LEN] - 1)
        at = inst[i, L.I_LRU_OLD]
        nxt = fr[at, L.F_NEXT]
        fr[f, L.F_PREV] = at
        fr[f, L.F_NEXT] = nxt
        fr[at, L.F_NEXT] = f
        if nxt >= 0:
            fr[nxt, L.F_PREV] = f
        else:
            inst[i, L.I_LRU_TAIL] = f
        inst[i, L.I_OLD_LEN] += 1
        run_join_after(fr, inst, runs, i, f, at)
    inst[i, L.I_LRU_LEN] += 1
    fr[f, L.F_LRU] = L.LRU_YOUNG
    length = inst[i, L.I_LRU_LEN]
    if length > L.BUF_LRU_OLD_MIN_LEN:
        fr[f, L.F_LRU] = L.LRU_OLD if old else L.LRU_YOUNG
        lru_old_adjust_len(fr, inst, i, ratio)
    elif length == L.BUF_LRU_OLD_MIN_LEN:
        lru_old_init(fr, inst, i, ratio)
    else:
        fr[f, L.F_LRU] = L.LRU_OLD if inst[i, L.I_LRU_OLD] >= 0 else L.LRU_YOUNG


@njit(cache=True, inline="always", _nrt=False)  # see lru_add
def lru_remove(fr, inst, runs, i, f, ratio):
    """buf_LRU_remove_block: unlink f, keeping LRU_old and the old length right."""
    lru_columns(fr, inst)
    i = nonneg(i)
    f = nonneg(f)
    if f == inst[i, L.I_LRU_ITR]:
        inst[i, L.I_LRU_ITR] = fr[f, L.F_PREV]  # LRUHp::adjust
    if f == inst[i, L.I_SINGLE_ITR]:
        inst[i, L.I_SINGLE_ITR] = fr[f, L.F_PREV]
    if f == inst[i, L.I_LRU_OLD]:
        prev = fr[f, L.F_PREV]
        inst[i, L.I_LRU_OLD] = prev
        fr[prev, L.F_LRU] = L.LRU_OLD
        inst[i, L.I_OLD_LEN] += 1
    prev = fr[f, L.F_PREV]
    nxt = fr[f, L.F_NEXT]
    if prev >= 0:
        fr[prev, L.F_NEXT] = nxt
    else:
        inst[i, L.I_LRU_HEAD] = nxt
    if nxt >= 0:
        fr[nxt, L.F_PREV] = prev
    else:
        inst[i, L.I_LRU_TAIL] = prev
    fr[f, L.F_PREV] = L.NIL
    fr[f, L.F_NEXT] = L.NIL
    run_leave(fr, inst, runs, i, f, prev, nxt)
    was_old = fr[f, L.F_LRU] == L.LRU_OLD
    fr[f, L.F_LRU] = L.ON_FREE
    inst[i, L.I_LRU_LEN] -= 1
    if inst[i, L.I_LRU_LEN] < L.BUF_LRU_OLD_MIN_LEN:
        # The list became too short for an old sublist: clear the flags. Once LRU_old is
        # gone every page is already young (lru_add adds young then), so the walk, O(LRU
        # length) per removal in the server, is needed only the first time.
        if inst[i, L.I_LRU_OLD] < 0:
            return
        g = inst[i, L.I_LRU_HEAD]
        while g >= 0:
            fr[g, L.F_LRU] = L.LRU_YOUNG
            g = fr[g, L.F_NEXT]
        inst[i, L.I_LRU_OLD] = L.NIL
        inst[i, L.I_OLD_LEN] = 0
        return
    if was_old:
        inst[i, L.I_OLD_LEN] -= 1
    lru_old_adjust_len(fr, inst, i, ratio)


@njit(cache=True, inline="always", _nrt=False)  # on hits: see io.submit
def make_young(fr, inst, runs, i, f, ratio):
    """buf_LRU_make_block_young: move f to the LRU head."""
    # looking through the scan cache (<= 100 entries, in the CPU cache) costs less than
    # ruling f out as replaceable first (frl's row of f: often a cache miss)
    scan_cut(inst, i, f, fr[f, L.F_PREV])
    scan_cache_unlink(fr, inst, i, f)
    lru_remove(fr, inst, runs, i, f, ratio)
    lru_add(fr, inst, runs, i, f, False, ratio)


@njit(cache=True, inline="always", _nrt=False)
def peek_if_too_old(fr, inst, i, f, now_ms, old_blocks_time, ratio):
    """buf_page_peek_if_too_old: whether an accessed page should be made young.

    Returns 1 (make young), 0 (leave it) or -1 (leave it, and count it as "not made young").
    """
    if inst[i, L.I_FREED_PAGE_CLOCK] == 0:
        return 0  # nothing evicted yet: no point in moving pages around
    if old_blocks_time > 0 and fr[f, L.F_LRU] == L.LRU_OLD:
        acc = fr[f, L.F_ACCESS_MS]
        if acc > 0 and now_ms - acc >= old_blocks_time:
            return 1
        return -1
    # buf_page_peek_if_young: young enough while fewer than ~1/4 of the young sublist
    # has been evicted since the page was put at the head.
    limit = fr[f, L.F_FREED_CLOCK] + inst[i, L.I_SIZE] * (L.BUF_LRU_OLD_RATIO_DIV - ratio) // (
        L.BUF_LRU_OLD_RATIO_DIV * 4
    )
    if (inst[i, L.I_FREED_PAGE_CLOCK] & 0x7FFFFFFF) < limit:
        return 0
    return 1


@njit(cache=True, inline="always", _nrt=False)
def flush_list_add(fr, frl, inst, runs, i, f, lsn):
    """buf_flush_insert_into_flush_list: a clean page gets dirty at `lsn`; add at the head."""
    frl[f, L.L_OLDEST_MODIFICATION] = lsn
    fr[f, L.F_DIRTY] = 1
    run_dirty(fr, runs, f, 1)
    head = inst[i, L.I_FL_HEAD]
    fr[f, L.F_FPREV] = L.NIL
    fr[f, L.F_FNEXT] = head
    if head >= 0:
        fr[head, L.F_FPREV] = f
    else:
        inst[i, L.I_FL_TAIL] = f
    inst[i, L.I_FL_HEAD] = f
    inst[i, L.I_FL_LEN] += 1


@njit(cache=True, _nrt=False)
def flush_list_remove(fr, frl, inst, runs, i, f):
    """buf_flush_remove: the page is clean again (its write completed)."""
    frame_columns(fr, frl, inst)
    i = nonneg(i)
    f = nonneg(f)
    prev = fr[f, L.F_FPREV]
    nxt = fr[f, L.F_FNEXT]
    if prev >= 0:
        fr[prev, L.F_FNEXT] = nxt
    else:
        inst[i, L.I_FL_HEAD] = nxt
    if nxt >= 0:
        fr[nxt, L.F_FPREV] = prev
    else:
        inst[i, L.I_FL_TAIL] = prev
    fr[f, L.F_FPREV] = L.NIL
    fr[f, L.F_FNEXT] = L.NIL
    frl[f, L.L_OLDEST_MODIFICATION] = 0
    fr[f, L.F_DIRTY] = 0
    inst[i, L.I_FL_LEN] -= 1
    scan_cut(inst, i, f, f)  # f may be replaceable now
    run_dirty(fr, runs, f, 0)


@njit(cache=True, inline="always", _nrt=False)
def replaceable(fr, f):
    """buf_flush_ready_for_replace: clean and no I/O in flight.

    Tested as F_DIRTY 0, in the row a walk reads anyway: a write is only ever in flight on a
    dirty page, and write_complete and single_flush_done end it before they clean the page.
    """
    return fr[f, L.F_DIRTY] == 0


@njit(cache=True, inline="always", _nrt=False)  # see lru_add
def evict(fr, inst, runs, page_frame, i, f, ratio):
    """buf_LRU_free_page: drop the page, return the frame to the free list, tick the clock."""
    lru_columns(fr, inst)
    i = nonneg(i)
    f = nonneg(f)
    scan_cache_unlink(fr, inst, i, f)  # every caller made f replaceable: not in the cache
    lru_remove(fr, inst, runs, i, f, ratio)
    page_frame[fr[f, L.F_PAGE]] = L.NO_PAGE
    fr[f, L.F_PAGE] = L.NO_PAGE
    fr[f, L.F_ACCESS_MS] = 0
    fr[f, L.F_FREED_CLOCK] = 0
    inst[i, L.I_FREED_PAGE_CLOCK] += 1
    free_push(fr, inst, i, f)


@njit(cache=True, _nrt=False)
def oldest_modification(frl, inst):
    """buf_pool_get_oldest_modification_approx: smallest oldest_modification, 0 if all clean."""
    best = 0
    for i in range(inst.shape[0]):
        t = inst[i, L.I_FL_TAIL]
        if t >= 0:
            lsn = frl[t, L.L_OLDEST_MODIFICATION]
            if best == 0 or lsn < best:
                best = lsn
    return best
