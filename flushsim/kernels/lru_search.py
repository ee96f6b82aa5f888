"""A user thread's search of the LRU tail for a clean page: buf_LRU_scan_and_free_block.

Shared by both engines' free-page paths; the search holds the LRU's mutex for LRU_SCAN_NS a
page examined (MySQL's LRU_list_mutex, MariaDB's buf_pool.mutex). Past the scan cache, a search
passes the runs that hold no clean frame without reading them (lru_runs.py): the same frame
found, the same pages examined.
"""

from __future__ import annotations

from numba import njit

from .. import schema as S
from . import layout as L
from .hints import prefetch2
from .io import spread
from .pool import evict, old_ratio, replaceable

# the scan cache holds the frames a bounded search passes: past them, only a whole-list search
assert L.SCAN_CACHE == L.BUF_LRU_SEARCH_SCAN_THRESHOLD


@njit(cache=True, inline="always", _nrt=False)
def add_wait(out, col, a, b):
    """Add a thread's wait from a to b (us) to column `col` (ms), each second its own share.

    A wait of 3 s shows as 1,000 ms in each second it spans, not 3,000 ms in one: a column of
    waits is then at most 1,000 ms a second for each waiting thread.
    """
    spread(out, col, a, b, 1000.0)


@njit(cache=True, _nrt=False)
def scan_and_free(pool, knobs, i, scan_all):
    """buf_LRU_scan_and_free_block: evict the first clean page near the LRU tail.

    It starts past the frames the last scan found unreplaceable, if they still are and are
    still where they were (the scan cache of pool.py): the same result as scanning them again.
    Returns (whether a page was freed, pages passed over: buffer_LRU_search_scanned).
    Like buf_pool.lru_scan_itr, a search resumes where the last one stopped if that frame is
    in the young part of the LRU (I_LRU_ITR), and leaves it where it stops.
    """
    fr, frl, inst, page_frame, runs = pool
    ratio = old_ratio(knobs[S.K_OLD_PCT])
    itr = inst[i, L.I_LRU_ITR]
    if itr >= 0 and fr[itr, L.F_LRU] != L.LRU_OLD:
        return _scan_from(pool, i, scan_all, itr, ratio)
    scanned = inst[i, L.I_SCAN_N]
    f = inst[i, L.I_SCAN_NEXT] if scanned > 0 else inst[i, L.I_LRU_TAIL]
    after = f  # the frame after the first SCAN_CACHE frames (this one if the record is full)
    found = False
    while f >= 0 and (scan_all or scanned < L.BUF_LRU_SEARCH_SCAN_THRESHOLD):
        if scanned >= L.SCAN_CACHE:  # scan_all, past the frames the cache records
            f, passed = find_replaceable(fr, runs, f)
            scanned += passed
            found = f >= 0
            break
        if replaceable(fr, f):
            found = True
            break
        inst[i, L.I_SCAN_PRE + scanned] = f
        scanned += 1
        f = fr[f, L.F_PREV]
        if scanned == L.SCAN_CACHE:
            after = f
    if scanned <= L.SCAN_CACHE:
        inst[i, L.I_SCAN_N] = scanned
        inst[i, L.I_SCAN_NEXT] = f
    else:
        inst[i, L.I_SCAN_N] = L.SCAN_CACHE
        inst[i, L.I_SCAN_NEXT] = after
    if found:
        inst[i, L.I_LRU_ITR] = fr[f, L.F_PREV]
        evict(fr, inst, runs, page_frame, i, f, ratio)
        # the next scan starts at the frame after f, whose page is cold: fetch it meanwhile
        prefetch2(fr, inst[i, L.I_SCAN_NEXT], L.F_DIRTY)
    else:
        inst[i, L.I_LRU_ITR] = f
    return found, scanned


@njit(cache=True, _nrt=False)
def _scan_from(pool, i, scan_all, f, ratio):
    """scan_and_free resuming at frame f, in the young part of the LRU (no scan cache).

    The frames from f to the head of a run with no clean frame, if the search would pass them
    all within its bound, are passed in one step (lru_runs.py): the walk would have examined
    each and gone on. How many there are is known from a run's tail, or, for the frame where
    the last search stopped, from that search while the run is unchanged (I_ITR_*).
    """
    fr, frl, inst, page_frame, runs = pool
    scanned = 0
    if scan_all:
        f, scanned = find_replaceable(fr, runs, f)
        if f >= 0:
            inst[i, L.I_LRU_ITR] = fr[f, L.F_PREV]
            evict(fr, inst, runs, page_frame, i, f, ratio)
            return True, scanned
        inst[i, L.I_LRU_ITR] = L.NIL
        return False, scanned
    # frames from f to its run's head, when known (-1: not): at a run's tail, or what the last
    # search left about this very frame, its run unchanged since
    left = -1
    r = fr[f, L.F_RUN]
    if (
        inst[i, L.I_ITR_AT] == f
        and inst[i, L.I_ITR_RUN] == r
        and inst[i, L.I_ITR_VER] == runs[r, L.R_VER]
    ):
        left = inst[i, L.I_ITR_LEFT]
    while f >= 0 and scanned < L.BUF_LRU_SEARCH_SCAN_THRESHOLD:
        r = fr[f, L.F_RUN]
        if runs[r, L.R_TAIL] == f:
            left = runs[r, L.R_LEN]
        if (
            left > 0
            and runs[r, L.R_CLEAN] == 0
            and scanned + left <= L.BUF_LRU_SEARCH_SCAN_THRESHOLD
        ):
            scanned += left
            up = runs[r, L.R_UP]
            f = runs[up, L.R_TAIL] if up >= 0 else L.NIL
            continue
        prev = fr[f, L.F_PREV]
        if replaceable(fr, f):
            inst[i, L.I_LRU_ITR] = prev
            evict(fr, inst, runs, page_frame, i, f, ratio)
            _remember(fr, inst, runs, i, prev, r, left - 1)
            return True, scanned
        scanned += 1
        f = prev
        if left > 0:
            left -= 1
    inst[i, L.I_LRU_ITR] = f
    _remember(fr, inst, runs, i, f, r, left)
    return False, scanned


@njit(cache=True, inline="always", _nrt=False)
def _remember(fr, inst, runs, i, f, r, left):
    """Keep that frame f has `left` frames to the head of its run r, if it is still in r."""
    if f >= 0 and left > 0 and fr[f, L.F_RUN] == r:
        inst[i, L.I_ITR_AT] = f
        inst[i, L.I_ITR_RUN] = r
        inst[i, L.I_ITR_LEFT] = left
        inst[i, L.I_ITR_VER] = runs[r, L.R_VER]
    else:
        inst[i, L.I_ITR_AT] = L.NIL


@njit(cache=True, _nrt=False)
def find_replaceable(fr, runs, f):
    """The first replaceable frame from f towards the LRU head, and the frames passed before it.

    What a walk testing every frame finds (NIL and the frames up to the head if none), but a
    run with no clean frame (R_CLEAN 0), entered at its tail, is passed whole (lru_runs.py).
    """
    passed = 0
    while f >= 0:
        r = fr[f, L.F_RUN]
        if runs[r, L.R_TAIL] == f:
            while runs[r, L.R_CLEAN] == 0:
                passed += runs[r, L.R_LEN]
                r = runs[r, L.R_UP]
                if r < 0:
                    return L.NIL, passed
            f = runs[r, L.R_TAIL]
        head = runs[r, L.R_HEAD]
        while True:
            if replaceable(fr, f):
                return f, passed
            passed += 1
            if f == head:
                break
            f = fr[f, L.F_PREV]
        f = fr[f, L.F_PREV]
    return L.NIL, passed


@njit(cache=True, _nrt=False)
def lru_search(pool, knobs, out, i, scan_all, t):
    """scan_and_free by a user thread from t (us), holding the LRU's mutex.

    Each page it examines costs LRU_SCAN_NS, and the mutex stays held meanwhile (MariaDB's
    buf_pool.mutex: get_free_block_mariadb and ma_lru_batch wait for it). Returns (whether a
    page was freed, time the thread releases the mutex and goes on).
    """
    fr, frl, inst, page_frame, runs = pool
    found, scanned = scan_and_free(pool, knobs, i, scan_all)
    examined = scanned + 1 if found else scanned
    t += (examined * L.LRU_SCAN_NS + 999) // 1000
    inst[i, L.I_LRU_MUTEX] = t
    s = t // 1_000_000
    if s < out.shape[0]:
        out[s, S.C_SEARCH_SCANNED] += scanned
    return found, t
