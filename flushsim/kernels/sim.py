"""The event loop: user threads, the page cleaner, write completions, the timeline, sampling.

User threads are a closed loop. A transaction is one event: its row accesses are applied at
once, while a local clock adds CPU time, reads, waits for free pages (`buf_LRU_get_free_block`
of MySQL 8.0 with its 100-page tail scan, page-cleaner wake-up, 10 ms sleeps and synchronous
single-page flushes) and waits for pages being written. The thread's next transaction starts
when the local clock says. Simplification: the effects of a transaction are visible to other
threads from its start time, and counters are attributed to the second of the local clock.

Threads and the page cleaner are ordered by a binary heap on (time, id), so runs are
deterministic for a given seed. Random numbers come from splitmix64 so that the pure-Python
twin (`reference.py`) draws exactly the same sequence.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .. import schema as S

# imported by name: hints.columns needs a literal width (numba types a module attribute int64)
from ..schema import HIST_BUCKETS, N_COLS
from . import layout as L
from .cleaner import checkpoint, complete_writes, page_cleaner_round, redo_limits
from .engine import check_engine, is_mariadb, is_mariadb1011, is_mysql
from .hints import columns, nonneg, prefetch1, prefetch2
from .io import (
    fsync,
    log_flush,
    periodic_commit,
    read_data_page,
    ring_done_of,
    ring_peek_done,
    spread,
    submit,
)
from .layout import N_TH
from .mariadb import (
    cleaner_flushes_lru,
    ma_page_cleaner_round,
    ma_redo_limits,
    user_lru_batch,
)
from .pool import (
    evict,
    flush_list_add,
    flush_list_remove,
    frame_columns,
    free_pop,
    lru_add,
    make_young,
    old_ratio,
    oldest_modification,
    peek_if_too_old,
    replaceable,
)

# ---------------------------------------------------------------- random numbers


SPLITMIX_STEP = np.uint64(0x9E3779B97F4A7C15)  # the stream's state advances by this a draw


@njit(cache=True, inline="always", _nrt=False)
def _splitmix(z):
    """splitmix64's output for the state z."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always", _nrt=False)
def _unit(z):
    """A 64-bit value as a float in [0, 1) with 53 random bits."""
    return float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, inline="always", _nrt=False)
def rng_next(rng):
    """splitmix64: the next 64-bit value of the stream held in rng[0]."""
    rng[0] = rng[0] + SPLITMIX_STEP
    return _splitmix(rng[0])


@njit(cache=True, inline="always", _nrt=False)
def rng_peek_unit(rng, k):
    """rng_unit's value k draws ahead (k >= 1), without drawing: for prefetch hints only."""
    return _unit(_splitmix(rng[0] + SPLITMIX_STEP * np.uint64(k)))


@njit(cache=True, inline="always", _nrt=False)
def prefetch_uniform(fr, frl, page_frame, g, rng, pages_per_unit, per_row):
    """Uniform workload: prefetch what the next two row accesses will read.

    Every draw is a row or an update flag, so the next two rows are the next draw and the one
    `per_row` after it, whichever thread takes them. The row after next gets its page_frame
    entry prefetched, and its page is kept in G_NEXT_PAGE; the next row, which the previous
    call kept there, gets its frame's lines. Hints only: nothing is drawn, and G_NEXT_PAGE is
    read by nothing else (a stale one, after a knob changes the draws, wastes a hint). The page
    is computed without divisions, as unit * (rows / rows_per_page), which rounding may rarely
    put one page off (a wasted hint, never a wrong number); it is clamped to the table.
    """
    f1 = page_frame[g[L.G_NEXT_PAGE]]
    if f1 >= 0:
        prefetch2(fr, f1, L.F_PAGE)
        prefetch2(fr, f1, L.F_FCLOCK)
        prefetch2(frl, f1, L.L_OLDEST)
    last = page_frame.shape[0] - 1
    p2 = min(int(rng_peek_unit(rng, 1 + per_row) * pages_per_unit), last)
    prefetch1(page_frame, p2)
    g[L.G_NEXT_PAGE] = p2


@njit(cache=True, inline="always", _nrt=False)
def rng_below(rng, n):
    """A value in [0, n) from 53 random bits (no 64-bit division: it is the hot path)."""
    return int(rng_unit(rng) * n)


@njit(cache=True, inline="always", _nrt=False)
def rng_unit(rng):
    """A float in [0, 1) with 53 random bits."""
    return _unit(rng_next(rng))


# ---------------------------------------------------------------- workload


@njit(cache=True, inline="always", _nrt=False)
def spread_row(j, rows, bits):
    """Hot-set row j: a fixed pseudo-random permutation of the table's rows.

    Rounds of multiply-by-odd and xor-shift are a bijection on [0, 2**bits), the next power of
    two at or above `rows`; a value past the table steps again until it lands inside (cycle
    walking, under 2 steps on average). So the hot set's rows are distinct and scattered like a
    random sample of the table (a random 4,000 of 300,000 rows at 61 a page touch ~2,740
    pages), as the reference recordings' and seed 004's hot sets were.
    """
    mask = (1 << bits) - 1
    half = max(1, bits // 2)
    x = j
    while True:
        for _ in range(3):
            x = (x * L.SPREAD_KEY) & mask
            x ^= x >> half
        if x < rows:
            return x


@njit(cache=True, inline="always", _nrt=False)
def draw_row(g, knobs, rng, zipf_cdf, scatter):
    """The next row a thread accesses, or -1 when a sequential workload has finished."""
    wl = int(knobs[S.K_WORKLOAD])
    rows = int(knobs[S.K_TABLE_ROWS])
    if wl == S.WL_UNIFORM:
        return rng_below(rng, rows)
    if wl == S.WL_ZIPF:
        u = rng_unit(rng)
        lo = 0
        hi = zipf_cdf.shape[0] - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if zipf_cdf[mid] <= u:
                lo = mid + 1
            else:
                hi = mid
        return (lo * (scatter >> S.SCATTER_SHIFT)) % rows
    if wl == S.WL_HOTSET:
        hot_pct = knobs[S.K_HOT_PCT]
        if rng_unit(rng) * 100.0 < hot_pct:
            j = rng_below(rng, min(int(knobs[S.K_HOT_ROWS]), rows))
            return spread_row(j, rows, scatter & S.SCATTER_BITS_MASK)
        return rng_below(rng, rows)
    # WL_SEQUENTIAL
    end = int(knobs[S.K_SEQ_END])
    if end == 0 or end > rows:
        end = rows
    cur = g[L.G_SEQ_CURSOR]
    if cur >= end:
        g[L.G_WL_DONE] = 1
        return -1
    g[L.G_SEQ_CURSOR] = cur + 1
    return cur


@njit(cache=True, inline="always", _nrt=False)
def draw_is_write(knobs, rng):
    """Whether a row access is an update (write_pct of them are)."""
    wp = knobs[S.K_WRITE_PCT]
    if wp >= 100.0:
        return True
    if wp <= 0.0:
        return False
    return rng_unit(rng) * 100.0 < wp


@njit(cache=True, inline="always", _nrt=False)
def latency_bucket(us):
    """Histogram bucket of a latency in us: 8 buckets per power of two."""
    if us < 8:
        return max(us, 0)
    msb = 0
    v = us
    while v > 1:
        v >>= 1
        msb += 1
    b = msb * 8 + ((us >> (msb - 3)) & 7)
    return min(b, S.HIST_BUCKETS - 1)


# ---------------------------------------------------------------- heap of (time, id)


@njit(cache=True, inline="always", _nrt=False)
def _less(times, a, b):
    return times[a] < times[b] or (times[a] == times[b] and a < b)


# Up to this many entries (threads + the page cleaner) the event loop finds the next entry by
# a linear scan of `times` (lowest time, then lowest id: the heap's order) and keeps no heap:
# cheaper than sifting with unpredictable branches.
SCAN_MAX_ENTRIES = 32


@njit(cache=True, inline="always", _nrt=False)
def next_entry(heap, times):
    """The entry with the lowest (time, id): the heap's top, or a scan of a small `times`."""
    n = times.shape[0]
    if n > SCAN_MAX_ENTRIES:
        return heap[0]
    best = 0
    bt = times[0]
    for j in range(1, n):
        tj = times[j]
        if tj < bt:
            best = j
            bt = tj
    return best


@njit(cache=True, inline="always", _nrt=False)
def heap_fix(heap, pos, times, e):
    """Restore heap order after times[e] changed (no heap is kept for a small `times`)."""
    n = heap.shape[0]
    if n <= SCAN_MAX_ENTRIES:
        return
    k = pos[e]
    while k > 0:
        parent = (k - 1) // 2
        p = heap[parent]
        if _less(times, e, p):
            heap[k] = p
            pos[p] = k
            k = parent
        else:
            break
    while True:
        c = 2 * k + 1
        if c >= n:
            break
        if c + 1 < n and _less(times, heap[c + 1], heap[c]):
            c += 1
        child = heap[c]
        if _less(times, child, e):
            heap[k] = child
            pos[child] = k
            k = c
        else:
            break
    heap[k] = e
    pos[e] = k


# ---------------------------------------------------------------- free pages


@njit(cache=True, inline="always", _nrt=False)
def add_wait(out, col, a, b):
    """Add a thread's wait from a to b (us) to column `col` (ms), each second its own share.

    A wait of 3 s shows as 1,000 ms in each second it spans, not 3,000 ms in one: a column of
    waits is then at most 1,000 ms a second for each waiting thread.
    """
    spread(out, col, a, b, 1000.0)


@njit(cache=True, _nrt=False)
def scan_and_free(fr, frl, inst, page_frame, knobs, i, scan_all):
    """buf_LRU_scan_and_free_block: evict the first clean page near the LRU tail.

    It starts past the frames the last scan found unreplaceable, if they still are and are
    still where they were (the scan cache of pool.py): the same result as scanning them again.
    Returns (whether a page was freed, pages passed over: buffer_LRU_search_scanned).
    Like buf_pool.lru_scan_itr, a search resumes where the last one stopped if that frame is
    in the young part of the LRU (I_LRU_ITR), and leaves it where it stops.
    """
    ratio = old_ratio(knobs[S.K_OLD_PCT])
    itr = inst[i, L.I_LRU_ITR]
    if itr >= 0 and fr[itr, L.F_LRU] != L.LRU_OLD:
        return _scan_from(fr, frl, inst, page_frame, i, scan_all, itr, ratio)
    scanned = inst[i, L.I_SCAN_N]
    f = inst[i, L.I_SCAN_NEXT] if scanned > 0 else inst[i, L.I_LRU_TAIL]
    after = f  # the frame after the first SCAN_CACHE frames (this one if the record is full)
    found = False
    while f >= 0 and (scan_all or scanned < L.BUF_LRU_SEARCH_SCAN_THRESHOLD):
        if replaceable(fr, frl, f):
            found = True
            break
        if scanned < L.SCAN_CACHE:
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
        evict(fr, inst, page_frame, i, f, ratio)
        # the next scan starts at the frame after f, whose page is cold: fetch it meanwhile
        prefetch2(frl, inst[i, L.I_SCAN_NEXT], L.L_OLDEST)
    else:
        inst[i, L.I_LRU_ITR] = f
    return found, scanned


@njit(cache=True, _nrt=False)
def _scan_from(fr, frl, inst, page_frame, i, scan_all, f, ratio):
    """scan_and_free resuming at frame f, in the young part of the LRU (no scan cache)."""
    scanned = 0
    while f >= 0 and (scan_all or scanned < L.BUF_LRU_SEARCH_SCAN_THRESHOLD):
        prev = fr[f, L.F_PREV]
        if replaceable(fr, frl, f):
            inst[i, L.I_LRU_ITR] = prev
            evict(fr, inst, page_frame, i, f, ratio)
            return True, scanned
        scanned += 1
        f = prev
    inst[i, L.I_LRU_ITR] = f
    return False, scanned


@njit(cache=True, _nrt=False)
def lru_search(fr, frl, inst, page_frame, knobs, out, i, scan_all, t):
    """scan_and_free by a user thread from t (us), holding the LRU's mutex.

    Each page it examines costs LRU_SCAN_NS, and the mutex stays held meanwhile (MariaDB's
    buf_pool.mutex: get_free_block_mariadb and ma_lru_batch wait for it). Returns (whether a
    page was freed, time the thread releases the mutex and goes on).
    """
    found, scanned = scan_and_free(fr, frl, inst, page_frame, knobs, i, scan_all)
    examined = scanned + 1 if found else scanned
    t += (examined * L.LRU_SCAN_NS + 999) // 1000
    inst[i, L.I_LRU_MUTEX] = t
    s = t // 1_000_000
    if s < out.shape[0]:
        out[s, S.C_SEARCH_SCANNED] += scanned
    return found, t


@njit(cache=True, _nrt=False)
def single_page_flush(g, fr, frl, inst, page_frame, knobs, out, i, t):
    """buf_flush_single_page_from_LRU: free the first clean tail page, or write the first dirty one.

    The write is synchronous: doublewrite write + fsync, data write + fsync, then the frame is
    freed. The written page stays in the LRU, dirty and io-fixed (IO_SINGLE), until the thread
    wakes when its I/O is done (single_flush_done): the thread sleeps meanwhile, so that its
    next I/O is submitted in time order. Returns (freed or written, time the I/O is done, the
    written frame or NIL).
    """
    ratio = old_ratio(knobs[S.K_OLD_PCT])
    page = int(knobs[S.K_PAGE_SIZE])
    f = inst[i, L.I_LRU_TAIL]
    while f >= 0:
        prev = fr[f, L.F_PREV]
        if replaceable(fr, frl, f):
            evict(fr, inst, page_frame, i, f, ratio)
            return True, t, L.NIL
        if fr[f, L.F_IO] == L.IO_NONE:
            fr[f, L.F_IO] = L.IO_SINGLE
            frl[f, L.L_IO_LATCH] = t
            if int(knobs[S.K_DBLWR]) != 0:
                d = submit(g, knobs, out, t, page, True)
                t = fsync(g, knobs, out, d, L.FILE_DBLWR)
            d = submit(g, knobs, out, t, page, True)
            t = fsync(g, knobs, out, d, L.FILE_DATA)
            s = t // 1_000_000
            if s < out.shape[0]:
                out[s, S.C_SINGLE] += 1
            return True, t, f
        f = prev
    return False, t, L.NIL


@njit(cache=True, _nrt=False)
def single_flush_done(fr, frl, inst, page_frame, knobs, f):
    """The single-page flush of frame f is done: the page is clean, its frame free."""
    i = f // inst[0, L.I_SIZE]
    fr[f, L.F_IO] = L.IO_NONE
    flush_list_remove(fr, frl, inst, i, f)
    evict(fr, inst, page_frame, i, f, old_ratio(knobs[S.K_OLD_PCT]))


@njit(cache=True, _nrt=False)
def signal_cleaner(g, times, heap, pos, t, force):
    """os_event_set(buf_flush_event): wake a sleeping page cleaner now.

    `force` is for a thread stuck in log_free_check: the woken coordinator checks the sync
    flush point first, whether or not the server counts as active.
    """
    g[L.G_PC_EVENT] = 1
    if g[L.G_PC_DISABLED] == 1 or (g[L.G_PC_ACTIVE] == 0 and g[L.G_PC_SYNC] == 0 and not force):
        return  # an inactive coordinator wakes, finds nothing to do and sleeps again
    cleaner = times.shape[0] - 1
    wake = max(t, g[L.G_PC_ROUND_END])
    if wake < times[cleaner]:
        times[cleaner] = wake
        heap_fix(heap, pos, times, cleaner)


@njit(cache=True, inline="always", _nrt=False)
def get_free_block(
    g,
    fr,
    frl,
    inst,
    page_frame,
    knobs,
    out,
    ring_frame,
    ring_done,
    times,
    heap,
    pos,
    i,
    t,
    resume,
):
    """buf_LRU_get_free_block (MySQL 8.0). Returns (frame or NIL, time the thread continues).

    From the third iteration on the server sleeps 10 ms before its single-page flush. The
    thread sleeps in run_step: this returns NIL with g[G_SLEEP] = the wake time and
    g[G_FREE_K] = 1 + the iteration, and `resume` (that value, 0 otherwise) carries on there with
    the flush. A single-page flush that writes sleeps the same way until its I/O is done, with
    g[G_FREE_K] = -(1 + the next iteration) and g[G_HELD] = 1 + the written frame (run_step
    frees it on waking), and resumes at that iteration. The LRU search costs LRU_SCAN_NS a page
    examined (lru_search); nobody waits for its LRU_list_mutex. MariaDB engines go to
    get_free_block_mariadb (one test per miss).
    """
    if is_mariadb(knobs):
        return get_free_block_mariadb(
            g,
            fr,
            frl,
            inst,
            page_frame,
            knobs,
            out,
            ring_frame,
            ring_done,
            times,
            heap,
            pos,
            t,
            resume,
        )
    # resume > 0: back from the 10 ms sleep, the single-page flush comes first; resume < 0:
    # back from a single-page flush's I/O (run_step freed its frame), at the next iteration
    k = resume - 1 if resume > 0 else 0
    if resume < 0:
        k = -resume - 1
    t0 = t
    woke = resume > 0
    while k < L.FREE_BLOCK_MAX_ITERATIONS:
        if not woke:
            f = free_pop(fr, frl, inst, i)
            if f >= 0:
                add_wait(out, S.C_FREE_WAIT_MS, t0, t)
                return f, t
            freed = False
            if inst[i, L.I_TRY_LRU_SCAN] == 1 or k > 0:
                # its time is charged; other threads do not wait for the LRU_list_mutex
                freed, t = lru_search(fr, frl, inst, page_frame, knobs, out, i, k > 0, t)
                if not freed and k == 0:
                    inst[i, L.I_TRY_LRU_SCAN] = 0
            if freed:
                continue
            signal_cleaner(g, times, heap, pos, t, False)
            if k > 1:
                # os_thread_sleep(10000), then the flush: sleep in run_step, so that the writes
                # completing meanwhile complete at their own time, not ahead of the clock
                s = t // 1_000_000
                if s < out.shape[0]:
                    out[s, S.C_FREE_WAITS] += 1
                add_wait(out, S.C_FREE_WAIT_MS, t0, t + L.FREE_WAIT_SLEEP_US)
                g[L.G_SLEEP] = t + L.FREE_WAIT_SLEEP_US
                g[L.G_FREE_K] = k + 1
                return L.NIL, t
        woke = False
        before = t
        ok, t, held = single_page_flush(g, fr, frl, inst, page_frame, knobs, out, i, t)
        s = t // 1_000_000
        if s < out.shape[0]:
            if not ok:
                out[s, S.C_SINGLE_FAIL] += 1
            out[s, S.C_WAIT_FREE] += 1
        k += 1
        if held >= 0:
            # synchronous I/O: sleep in run_step until it is done, then free the frame and go on
            add_wait(out, S.C_FREE_WAIT_MS, t0, t)
            g[L.G_SLEEP] = t
            g[L.G_FREE_K] = -(1 + k)
            g[L.G_HELD] = held + 1
            return L.NIL, before
    return L.NIL, t


# ---------------------------------------------------------------- MariaDB user threads


@njit(cache=True, _nrt=False)
def ma_wake_cleaner(g, times, heap, pos, t):
    """pthread_cond_signal(do_flush_list): end the page cleaner's (timed or untimed) wait now.

    A cleaner waiting for its own writes (os_aio_wait_until_no_pending_writes) is not woken.
    """
    g[L.G_MA_IDLE] = 0
    if g[L.G_MA_PHASE] != L.PH_TOP:
        return
    cleaner = times.shape[0] - 1
    wake = max(t, g[L.G_PC_ROUND_END])
    if wake < times[cleaner]:
        times[cleaner] = wake
        heap_fix(heap, pos, times, cleaner)


@njit(cache=True, _nrt=False)
def get_free_block_mariadb(
    g,
    fr,
    frl,
    inst,
    page_frame,
    knobs,
    out,
    ring_frame,
    ring_done,
    times,
    heap,
    pos,
    t,
    resume,
):
    """buf_LRU_get_free_block of MariaDB (docs/model.md, section MariaDB free pages).

    Each pass holds buf_pool.mutex, which another thread's LRU search or LRU batch may hold for
    a while (lru_search, mariadb.ma_lru_batch). 10.11 (10.11.8+): take a free page, or evict a
    clean one from the last 100 of the LRU, or wake the page cleaner and wait for it
    (Innodb_buffer_pool_wait_free += 1 per wait). 10.6 generation (buf0lru.cc before
    MDEV-33613), iteration n = 0, 1, ...: take a free page; search the LRU for a clean one (at
    n = 0 the last 100 pages if buf_pool.try_LRU_scan, from n = 1 on the whole list); wait while
    an LRU batch has writes in flight (buf_pool.n_flush_LRU, woken by done_free); else run its
    own buf_flush_LRU(innodb_lru_flush_size) and go on to n + 1.
    Nothing that takes time is done ahead of the clock: the thread sleeps for the mutex, for
    its own search or batch, or for a batch's writes. It sets g[G_SLEEP] to the time it goes on
    and g[G_FREE_K] to where (`resume`: 1 + 2 n, + 1 past the search), and returns NIL; run_step
    keeps the row pending. A page its search freed stays on the free list, which no other
    thread reaches before the mutex is free. Simplifications: the mutex has no queue (after its
    release, the waiter that runs first takes it), and the done_free wait ends when the batch's
    last write completes, not at each page it frees.
    """
    t0 = t
    new = is_mariadb1011(knobs)
    it = (resume - 1) // 2 if resume > 0 else 0
    searched = resume > 0 and (resume - 1) % 2 == 1
    cleaner = times.shape[0] - 1
    held = inst[0, L.I_LRU_MUTEX]
    if held > t:
        # its holder goes on at `held`: wake just after it
        add_wait(out, S.C_LRU_MUTEX_WAIT, t, held + 1)
        return _ma_sleep(g, out, t0, held + 1, 1 + 2 * it + (1 if searched else 0)), t
    f = free_pop(fr, frl, inst, 0)
    if f >= 0:
        if (
            g[L.G_MA_IDLE] == 1
            and cleaner_flushes_lru(knobs)
            and times[cleaner] > t
            and inst[0, L.I_LRU_LEN] > 256
            and inst[0, L.I_FREE_LEN] < int(knobs[S.K_LRU_DEPTH]) // 2
        ):
            ma_wake_cleaner(g, times, heap, pos, t)  # page_cleaner_wakeup(true)
        return f, t
    if not searched:
        whole = it > 0 and not new
        if inst[0, L.I_TRY_LRU_SCAN] == 1 or whole:
            found, done = lru_search(fr, frl, inst, page_frame, knobs, out, 0, whole, t)
            if not found:
                inst[0, L.I_TRY_LRU_SCAN] = 0
            if done > t:
                # found: the page waits on the free list (goto retry); else on past the search
                return _ma_sleep(g, out, t0, done, 1 + 2 * it + (0 if found else 1)), t
            if found:
                return free_pop(fr, frl, inst, 0), t
    if new:
        s = t // 1_000_000
        if s < out.shape[0]:
            out[s, S.C_WAIT_FREE] += 1
        ma_wake_cleaner(g, times, heap, pos, t)
        # wait for buf_pool.done_free (at most 1 s): retry just after the cleaner's pass
        return _ma_sleep(g, out, t0, min(times[cleaner] + 1, t + 1_000_000), 0), t
    busy = g[L.G_MA_LRU_BUSY]
    if busy > t:
        # wait for the running LRU batch (done_free), then take a page or flush (no search)
        return _ma_sleep(g, out, t0, busy + 1, 2 + 2 * it), t
    s = t // 1_000_000
    if it > 1 and s < out.shape[0]:
        out[s, S.C_FREE_WAITS] += 1
    flushed, done = user_lru_batch(
        g, fr, frl, inst, page_frame, knobs, out, ring_frame, ring_done, t
    )
    if s < out.shape[0]:
        if flushed == 0:
            out[s, S.C_SINGLE_FAIL] += 1
        out[s, S.C_WAIT_FREE] += 1
    if it + 1 >= L.FREE_BLOCK_MAX_ITERATIONS:
        return L.NIL, done
    # buf_pool.stat.LRU_waits++, then the next iteration once its batch is written
    return _ma_sleep(g, out, t0, max(done, t + 1), 1 + 2 * (it + 1)), t


@njit(cache=True, inline="always", _nrt=False)
def _ma_sleep(g, out, t0, wake, resume):
    """A MariaDB user thread without a free page sleeps from t0 until `wake` (us).

    It goes on at `resume` (get_free_block_mariadb's encoding, 0: from the start). Returns NIL.
    """
    g[L.G_SLEEP] = wake
    g[L.G_FREE_K] = resume
    add_wait(out, S.C_FREE_WAIT_MS, t0, wake)
    return L.NIL


@njit(cache=True, _nrt=False)
def ma_after_commit(g, fr, frl, inst, knobs, times, heap, pos, t):
    """mtr_t::commit / log_close checks, once per transaction, and page_cleaner_wakeup(false).

    Checkpoint age above max_modified_age_async sets the async target (buf_flush_ahead), above
    max_checkpoint_age the furious one; both are the current LSN. Simplification: checked at
    commit rather than after every mini-transaction, and the wake-up an idle cleaner gets when
    a page is first dirtied is checked here too.
    """
    _, age_async, max_age = ma_redo_limits(knobs)
    lsn = g[L.G_LSN]
    age = lsn - g[L.G_CKPT]
    if age > max_age:
        if g[L.G_MA_SYNC_LSN] < lsn:
            g[L.G_MA_SYNC_LSN] = lsn
            ma_wake_cleaner(g, times, heap, pos, t)
    elif age > age_async:
        if g[L.G_MA_ASYNC_LSN] < lsn:
            g[L.G_MA_ASYNC_LSN] = lsn
            ma_wake_cleaner(g, times, heap, pos, t)
    if g[L.G_MA_IDLE] == 1 and inst[0, L.I_FL_LEN] > 0:
        pct = inst[0, L.I_FL_LEN] * 100.0 / float(inst[0, L.I_LRU_LEN] + inst[0, L.I_FREE_LEN])
        lwm = knobs[S.K_DIRTY_LWM]
        if (lwm != 0.0 and (lwm <= pct or g[L.G_MA_WAKE_ACTIVITY] == g[L.G_ACTIVITY])) or knobs[
            S.K_MAX_DIRTY
        ] <= pct:
            ma_wake_cleaner(g, times, heap, pos, t)


@njit(cache=True, _nrt=False)
def ma_log_free_check(g, frl, inst, knobs, times, heap, pos, out, t):
    """log_checkpoint_margin: wait while the checkpoint age exceeds max_checkpoint_age.

    Returns 0 if the thread may start its transaction, else the time it re-checks
    (buf_flush_wait_flushed up to min(checkpoint + max age, checkpoint + 1 MiB), then a 10 ms
    sleep; simplified to a 10 ms poll after asking for furious flushing).
    """
    _, _, max_age = ma_redo_limits(knobs)
    if g[L.G_LSN] - g[L.G_CKPT] <= max_age:
        return 0
    target = min(g[L.G_CKPT] + max_age, g[L.G_CKPT] + L.MA_MIB)
    oldest = oldest_modification(frl, inst)
    if oldest == 0 or oldest >= target:
        checkpoint(g, frl, inst)
        if g[L.G_LSN] - g[L.G_CKPT] <= max_age:
            return 0
    if g[L.G_MA_SYNC_LSN] < target:
        g[L.G_MA_SYNC_LSN] = target
    ma_wake_cleaner(g, times, heap, pos, t)
    s = t // 1_000_000
    if s < out.shape[0]:
        out[s, S.C_REDO_WAIT] += L.FREE_WAIT_SLEEP_US / 1000.0
    return t + L.FREE_WAIT_SLEEP_US


# ---------------------------------------------------------------- a row access


@njit(cache=True, inline="always", _nrt=False)
def access_page(
    g,
    fr,
    frl,
    inst,
    page_frame,
    knobs,
    out,
    ring_frame,
    ring_done,
    times,
    heap,
    pos,
    page,
    is_write,
    t,
    resume,
):
    """buf_page_get_gen for one row: hit or read the page, then modify it if `is_write`.

    Returns the time (us) the thread continues, or -1 if it must sleep (g[G_SLEEP] says until
    when) or no free block could be found. `resume` continues an interrupted get_free_block
    (see there).
    """
    t = nonneg(t)
    page = nonneg(page)
    n_inst = nonneg(inst.shape[0])
    old_time = int(knobs[S.K_OLD_TIME])
    ratio = old_ratio(knobs[S.K_OLD_PCT])
    # 64-page extents map to one instance, as buf_pool_get does; a mask for a power of two
    # (the defaults, 1 and 8): a division on every row access cost 2 %
    extent = page >> 6
    i = extent & (n_inst - 1) if n_inst & (n_inst - 1) == 0 else extent % n_inst
    s = t // 1_000_000
    if s < out.shape[0]:
        out[s, S.C_READ_REQ] += 1
    while True:
        f = page_frame[page]
        if f < 0:
            f, t = get_free_block(
                g,
                fr,
                frl,
                inst,
                page_frame,
                knobs,
                out,
                ring_frame,
                ring_done,
                times,
                heap,
                pos,
                i,
                t,
                resume,
            )
            if f < 0:
                return -1
            t = read_data_page(g, knobs, out, ring_done, t, int(knobs[S.K_PAGE_SIZE]))
            fr[f, L.F_PAGE] = page
            page_frame[page] = f
            lru_add(fr, inst, i, f, True, ratio)  # midpoint insertion
            fr[f, L.F_ACCESS_MS] = max(1, t // 1000)
            s = t // 1_000_000
            if s < out.shape[0]:
                out[s, S.C_READS] += 1
            # buf_page_make_young_if_needed right after the read: too soon to promote
            if peek_if_too_old(fr, inst, i, f, t // 1000, old_time, ratio) == -1:
                if s < out.shape[0]:
                    out[s, S.C_NOT_YOUNG] += 1
            break
        if is_write and fr[f, L.F_IO] != L.IO_NONE and frl[f, L.L_IO_LATCH] <= t:
            # The flushing thread holds the page SX-latched from the moment it put it in a
            # doublewrite chunk until its write completes: an update waits for that write. A
            # page of the batch not yet reached is not latched (and its write includes the
            # update). The thread sleeps (run_step): completing writes here, ahead of the
            # clock, would hand their frames to other threads early.
            if fr[f, L.F_IO] == L.IO_SINGLE:
                # another thread's single-page flush: its end is when that thread wakes
                g[L.G_SLEEP] = t + L.SINGLE_FLUSH_POLL_US
                return -1
            d = ring_done_of(g, ring_frame, ring_done, f)
            if d > t:
                g[L.G_SLEEP] = d
                return -1
            if d >= 0:
                complete_writes(g, fr, frl, inst, page_frame, knobs, ring_frame, ring_done, t)
                continue
        if fr[f, L.F_ACCESS_MS] == 0:
            fr[f, L.F_ACCESS_MS] = max(1, t // 1000)
        r = peek_if_too_old(fr, inst, i, f, t // 1000, old_time, ratio)
        s = t // 1_000_000
        if r == 1:
            was_old = fr[f, L.F_LRU] == L.LRU_OLD
            make_young(fr, inst, i, f, ratio)
            if was_old and s < out.shape[0]:
                out[s, S.C_YOUNG] += 1
        elif r == -1 and s < out.shape[0]:
            out[s, S.C_NOT_YOUNG] += 1
        break
    s = t // 1_000_000
    if is_write:
        if frl[f, L.L_OLDEST] == 0:
            flush_list_add(fr, frl, inst, i, f, g[L.G_LSN])
        g[L.G_LSN] += int(knobs[S.K_REDO_PER_CHANGE])
        if s < out.shape[0]:
            out[s, S.C_DML_UPDATES] += 1
    if s < out.shape[0]:
        out[s, S.C_DML_READS] += 1  # an UPDATE reads its row first: both servers count it
    return t


@njit(cache=True, inline="always", _nrt=False)
def run_step(
    g,
    fr,
    frl,
    inst,
    page_frame,
    knobs,
    out,
    hist,
    ring_frame,
    ring_done,
    times,
    heap,
    pos,
    rng,
    zipf_cdf,
    scatter,
    th,
    th_cpu,
    e,
    t,
):
    """Thread e runs its transaction from time t (us) until it commits or must touch the device.

    Row accesses that hit the pool run back to back on the thread's local clock. A row that
    needs the device (a miss, or an update of a page being written) while the local clock is
    ahead of t is kept pending and the thread yields, so that every I/O is submitted in global
    time order. A transaction begins with log_free_check. Returns the time of the next step.
    """
    if th[e, L.TH_HELD] != 0:
        # back from its single-page flush's I/O: the page is clean and its frame free, whether
        # or not the row still needs a block
        single_flush_done(fr, frl, inst, page_frame, knobs, th[e, L.TH_HELD] - 1)
        th[e, L.TH_HELD] = 0
    if th[e, L.TH_COMMIT] == 1:
        return finish_commit(g, knobs, out, hist, th, e, t)
    if th[e, L.TH_ROWS_LEFT] == 0:
        if knobs[S.K_TRX_RATE] > 0.0:
            slot = th[e, L.TH_SLOT] - 1
            if slot < g[L.G_PACE_EPOCH]:  # none yet, or claimed before the schedule restarted
                slot = pace_claim(g, knobs[S.K_TRX_RATE], t)
                th[e, L.TH_SLOT] = slot + 1
            if slot > t:
                return slot
            th[e, L.TH_SLOT] = 0
        if is_mariadb(knobs):
            wait = ma_log_free_check(g, frl, inst, knobs, times, heap, pos, out, t)
            if wait > 0:
                return wait
        else:
            free_check = g[L.G_FREE_CHECK]
            if g[L.G_LSN] - g[L.G_CKPT] > free_check:
                # log_free_check: wait for the checkpoint to move (re-checked every poll).
                checkpoint(g, frl, inst)
                if g[L.G_LSN] - g[L.G_CKPT] > free_check:
                    # Waiting for redo space wakes the coordinator, which sees the sync point.
                    signal_cleaner(g, times, heap, pos, t, True)
                    s = t // 1_000_000
                    if s < out.shape[0]:
                        out[s, S.C_REDO_WAIT] += L.REDO_WAIT_POLL_US / 1000.0
                    return t + L.REDO_WAIT_POLL_US
        th[e, L.TH_ROWS_LEFT] = int(knobs[S.K_ROWS_PER_TRX])
        th[e, L.TH_ROWS_DONE] = 0
        th[e, L.TH_START] = t
    rpp = nonneg(int(knobs[S.K_ROWS_PER_PAGE]))
    cpu = knobs[S.K_CPU_US]
    local = t
    # prefetch hints only: a uniform row is one draw, and draw_is_write draws one more unless
    # write_pct is 0 or 100 (knobs change between steps, never within one)
    uniform = int(knobs[S.K_WORKLOAD]) == S.WL_UNIFORM
    pages_per_unit = int(knobs[S.K_TABLE_ROWS]) / rpp
    draws_per_row = 2 if 0.0 < knobs[S.K_WRITE_PCT] < 100.0 else 1
    while th[e, L.TH_ROWS_LEFT] > 0:
        if th[e, L.TH_PENDING] > 0:
            page = th[e, L.TH_PENDING] - 1
            is_write = th[e, L.TH_PENDING_WRITE] == 1
            th[e, L.TH_PENDING] = 0
        else:
            row = draw_row(g, knobs, rng, zipf_cdf, scatter)
            if row < 0:
                th[e, L.TH_ROWS_LEFT] = 0  # the sequential range is finished: commit early
                break
            is_write = draw_is_write(knobs, rng)
            page = row // rpp
            if uniform:
                prefetch_uniform(fr, frl, page_frame, g, rng, pages_per_unit, draws_per_row)
        if local > t:
            f = page_frame[page]
            if f < 0 or (is_write and fr[f, L.F_IO] != L.IO_NONE):
                th[e, L.TH_PENDING] = page + 1
                th[e, L.TH_PENDING_WRITE] = 1 if is_write else 0
                return local
        local = access_page(
            g,
            fr,
            frl,
            inst,
            page_frame,
            knobs,
            out,
            ring_frame,
            ring_done,
            times,
            heap,
            pos,
            page,
            is_write,
            local,
            th[e, L.TH_FREE_K],
        )
        if local < 0:
            if g[L.G_SLEEP] > 0:
                # sleep until a page's write completes, or for a free block (MySQL's 10 ms, after
                # which get_free_block resumes at iteration G_FREE_K; MariaDB's cleaner or LRU
                # batch), then retry the row. Such an access starts at t (a row that touches
                # the device while the local clock is ahead yields first, above): its
                # buffer_pool_read_requests counts when it is retried.
                w = g[L.G_SLEEP]
                g[L.G_SLEEP] = 0
                th[e, L.TH_FREE_K] = g[L.G_FREE_K]
                th[e, L.TH_HELD] = g[L.G_HELD]
                g[L.G_FREE_K] = 0
                g[L.G_HELD] = 0
                th[e, L.TH_PENDING] = page + 1
                th[e, L.TH_PENDING_WRITE] = 1 if is_write else 0
                s = t // 1_000_000
                if s < out.shape[0]:
                    out[s, S.C_READ_REQ] -= 1
                return w
            # no free block after many tries: give the transaction up and retry later
            th[e, L.TH_FREE_K] = 0
            th[e, L.TH_ROWS_LEFT] = 0
            th[e, L.TH_ROWS_DONE] = 0
            return t + L.REDO_WAIT_POLL_US
        th[e, L.TH_FREE_K] = 0
        if is_write:
            th[e, L.TH_WROTE] = 1
        th_cpu[e] += cpu
        step = int(th_cpu[e])
        th_cpu[e] -= step
        local += step
        th[e, L.TH_ROWS_LEFT] -= 1
        th[e, L.TH_ROWS_DONE] += 1
    if th[e, L.TH_ROWS_DONE] > 0:
        # commit: srv activity count, mtr-commit checks, then the redo flush
        g[L.G_ACTIVITY] += 1
        g[L.G_TRX_TOTAL] += 1
        if is_mariadb(knobs):
            ma_after_commit(g, fr, frl, inst, knobs, times, heap, pos, local)
        th[e, L.TH_COMMIT_LSN] = g[L.G_LSN]
        if local > t and th[e, L.TH_WROTE] == 1 and commit_waits(knobs):
            th[e, L.TH_COMMIT] = 1  # the log write is device I/O: submit it in time order
            return local
        return finish_commit(g, knobs, out, hist, th, e, local)
    return local + int(knobs[S.K_THINK_US])


@njit(cache=True, _nrt=False)
def pace_next(g, rate):
    """trx_rate: the time (ns) of the next start on the shared schedule (exact, no drift)."""
    # rounded up, so that start k = rate falls exactly on the next second despite float error
    return g[L.G_PACE_BASE] + int(math.ceil(g[L.G_PACE_K] * (1e9 / rate) - 1e-3))


@njit(cache=True, _nrt=False)
def pace_claim(g, rate, t):
    """trx_rate: the next start slot (us) on the schedule all threads share, like sysbench --rate.

    A thread that is late starts at once; at most 1 s of missed starts is made up.
    """
    nxt = pace_next(g, rate)
    late = (t - 1_000_000) * 1000
    if nxt < late:
        g[L.G_PACE_BASE] = late
        g[L.G_PACE_K] = 0
        nxt = late
    g[L.G_PACE_K] += 1
    return nxt // 1000


@njit(cache=True, inline="always", _nrt=False)
def commit_waits(knobs):
    """innodb_flush_log_at_trx_commit 1 (or MariaDB's 3): a commit waits for its redo flush."""
    v = int(knobs[S.K_TRX_COMMIT])
    return v == 1 or v == 3


@njit(cache=True, _nrt=False)
def finish_commit(g, knobs, out, hist, th, e, t):
    """Thread e's commit at t (us): wait for the redo flush (trx_commit = 1), count the trx."""
    columns(out, N_COLS)
    columns(th, N_TH)
    columns(hist, HIST_BUCKETS)
    e = nonneg(e)
    t = nonneg(t)
    done = t
    wrote = th[e, L.TH_WROTE]
    if wrote == 1 and commit_waits(knobs):
        done = log_flush(g, knobs, out, t, th[e, L.TH_COMMIT_LSN])
        s = t // 1_000_000
        if done > t and s < out.shape[0]:
            out[s, S.C_COMMIT_WAIT] += (done - t) / 1000.0
    th[e, L.TH_WROTE] = 0
    th[e, L.TH_COMMIT] = 0
    s = nonneg(done) // 1_000_000
    if s < out.shape[0]:
        out[s, S.C_TPS] += 1
        out[s, S.C_TRX_RW] += wrote
        hist[s, latency_bucket(done - th[e, L.TH_START])] += 1
    return done + int(knobs[S.K_THINK_US])


# ---------------------------------------------------------------- sampling and the timeline


@njit(cache=True, _nrt=False)
def sample_second(g, inst, knobs, out, s):
    """Gauges at the end of second s (row s covers [s, s+1) seconds)."""
    if s >= out.shape[0]:
        return
    free = 0
    data = 0
    dirty = 0
    old = 0
    for i in range(inst.shape[0]):
        free += inst[i, L.I_FREE_LEN]
        data += inst[i, L.I_LRU_LEN]
        dirty += inst[i, L.I_FL_LEN]
        old += inst[i, L.I_OLD_LEN]
    if is_mysql(knobs):
        _, age_async, age_sync, _, _, _ = redo_limits(knobs)
    else:
        _, age_async, age_sync = ma_redo_limits(knobs)
    out[s, S.C_TIME] = s + 1
    out[s, S.C_TOTAL] = inst.shape[0] * inst[0, L.I_SIZE]
    out[s, S.C_FREE] = free
    out[s, S.C_DATA] = data
    out[s, S.C_DIRTY] = dirty
    out[s, S.C_OLD] = old
    out[s, S.C_LSN] = g[L.G_LSN]
    out[s, S.C_CKPT] = g[L.G_CKPT]
    out[s, S.C_CKPT_AGE] = g[L.G_LSN] - g[L.G_CKPT]
    out[s, S.C_AGE_ASYNC] = age_async
    out[s, S.C_AGE_SYNC] = age_sync


@njit(cache=True, inline="always", _nrt=False)
def advance(g, fr, frl, inst, page_frame, knobs, out, ring_frame, ring_done, t):
    """Apply write completions and sample every second boundary up to time t, in order."""
    while True:
        boundary = (g[L.G_SECOND] + 1) * 1_000_000
        d = ring_peek_done(g, ring_done)
        if d >= 0 and d <= t and d < boundary:
            complete_writes(
                g,
                fr,
                frl,
                inst,
                page_frame,
                knobs,
                ring_frame,
                ring_done,
                min(t, boundary - 1),
            )
        elif boundary <= t:
            periodic_commit(g, knobs, out, boundary)
            if g[L.G_LSN] > g[L.G_LOG_FLUSH_LSN]:
                # the log flusher's once-a-second write + fsync (innodb_flush_log_at_timeout)
                log_flush(g, knobs, out, boundary, g[L.G_LSN])
            if is_mysql(knobs):
                checkpoint(g, frl, inst)  # MariaDB checkpoints after page-cleaner passes only
            sample_second(g, inst, knobs, out, g[L.G_SECOND])
            g[L.G_SECOND] += 1
        else:
            return


@njit(cache=True, _nrt=False)
def wake_threads(g, th, times, heap, pos, t):
    """Put the active threads back on the schedule at t (workload (re)started).

    A thread stopped while its single-page flush is in flight wakes at its end all the same, to
    free the frame (event_loop), then stops.
    """
    n_active = g[L.G_N_ACTIVE_THREADS]
    for e in range(g[L.G_N_THREADS_MAX]):
        target = t if (e < n_active and g[L.G_WL_RUNNING] == 1) else L.INF_TIME
        if target == L.INF_TIME and th[e, L.TH_HELD] != 0:
            continue
        if target == L.INF_TIME or times[e] == L.INF_TIME:
            if times[e] != target:
                times[e] = target
                heap_fix(heap, pos, times, e)


@njit(cache=True, _nrt=False)
def pace_restart(g, knobs, th, times, heap, pos, t, keep_backlog):
    """trx_rate: the schedule starts again at t; threads asleep until a start slot wake now.

    With `keep_backlog` (a new rate or thread count) starts already missed stay owed.
    """
    start = t * 1000
    if keep_backlog and knobs[S.K_TRX_RATE] > 0.0:
        start = min(start, pace_next(g, knobs[S.K_TRX_RATE]))
    g[L.G_PACE_BASE] = start
    g[L.G_PACE_K] = 0
    g[L.G_PACE_EPOCH] = t
    for e in range(g[L.G_N_THREADS_MAX]):
        if th[e, L.TH_SLOT] > 0 and times[e] != L.INF_TIME:
            th[e, L.TH_SLOT] = 0
            times[e] = t
            heap_fix(heap, pos, times, e)


@njit(cache=True, _nrt=False)
def cache_free_check(g, knobs):
    """Keep redo_limits' free-check limit in G_FREE_CHECK, whenever the knobs change.

    Every transaction start reads it: computing it there was 1.7 % of a default run's
    instructions (benchmarks/instructions.py).
    """
    g[L.G_FREE_CHECK] = redo_limits(knobs)[3]


@njit(cache=True, _nrt=False)
def apply_event(g, knobs, th, times, heap, pos, kind, knob, value, t):
    """One timeline event at time t."""
    cleaner = times.shape[0] - 1
    if kind == S.TL_SET:
        if knob == S.K_TRX_RATE or knob == S.K_THREADS:
            pace_restart(g, knobs, th, times, heap, pos, t, True)
        knobs[knob] = value
        cache_free_check(g, knobs)
        if knob == S.K_PC_DISABLED:
            if value != 0:
                g[L.G_PC_DISABLED] = 1
                times[cleaner] = L.INF_TIME
            elif g[L.G_PC_DISABLED] == 1:
                g[L.G_PC_DISABLED] = 0
                # The coordinator leaves its disabled loop and starts a full (timed-out) round.
                g[L.G_PC_LOOP_START] = t - 1_000_000
                times[cleaner] = t
            heap_fix(heap, pos, times, cleaner)
        elif knob == S.K_THREADS:
            g[L.G_N_ACTIVE_THREADS] = min(int(value), g[L.G_N_THREADS_MAX])
            wake_threads(g, th, times, heap, pos, t)
        elif knob == S.K_WORKLOAD or knob == S.K_SEQ_START or knob == S.K_SEQ_END:
            g[L.G_SEQ_CURSOR] = int(knobs[S.K_SEQ_START])
            g[L.G_WL_DONE] = 0
            wake_threads(g, th, times, heap, pos, t)
    elif kind == S.TL_WORKLOAD_STOP:
        g[L.G_WL_RUNNING] = 0
        wake_threads(g, th, times, heap, pos, t)
    elif kind == S.TL_WORKLOAD_START:
        pace_restart(g, knobs, th, times, heap, pos, t, False)
        g[L.G_WL_RUNNING] = 1
        g[L.G_SEQ_CURSOR] = int(knobs[S.K_SEQ_START])
        g[L.G_WL_DONE] = 0
        wake_threads(g, th, times, heap, pos, t)


@njit(cache=True)
def init_state(knobs, n_threads_max, table_pages, seed):
    """Allocate and initialise all state arrays for a run."""
    page = int(knobs[S.K_PAGE_SIZE])
    n_inst = int(knobs[S.K_INSTANCES])
    size = int(knobs[S.K_POOL_SIZE]) // page // n_inst
    n_frames = size * n_inst
    fr = np.full((n_frames, L.N_FRAME_I32), L.NIL, dtype=np.int32)
    frl = np.zeros((n_frames, L.N_FRAME_I64), dtype=np.int64)
    inst = np.zeros((n_inst, L.N_INST), dtype=np.int64)
    page_frame = np.full(table_pages, L.NO_PAGE, dtype=np.int32)
    for f in range(n_frames):
        fr[f, L.F_PAGE] = L.NO_PAGE
        fr[f, L.F_LRU] = L.ON_FREE
        fr[f, L.F_IO] = L.IO_NONE
        fr[f, L.F_ACCESS_MS] = 0
        fr[f, L.F_FCLOCK] = 0
    for i in range(n_inst):
        inst[i, L.I_LRU_HEAD] = L.NIL
        inst[i, L.I_LRU_TAIL] = L.NIL
        inst[i, L.I_LRU_OLD] = L.NIL
        inst[i, L.I_LRU_ITR] = L.NIL
        inst[i, L.I_FL_HEAD] = L.NIL
        inst[i, L.I_FL_TAIL] = L.NIL
        inst[i, L.I_FIRST_FRAME] = i * size
        inst[i, L.I_SIZE] = size
        inst[i, L.I_TRY_LRU_SCAN] = 1
        # Free list from the lowest frame up: popped in that order.
        for k in range(size - 1):
            fr[i * size + k, L.F_NEXT] = i * size + k + 1
        fr[i * size + size - 1, L.F_NEXT] = L.NIL
        inst[i, L.I_FREE_HEAD] = i * size
        inst[i, L.I_FREE_LEN] = size
    g = np.zeros(L.N_G, dtype=np.int64)
    gf = np.zeros(L.N_GF, dtype=np.float64)
    g[L.G_LSN] = S.LOG_START_LSN
    g[L.G_CKPT] = S.LOG_START_LSN
    g[L.G_LOG_FLUSH_LSN] = S.LOG_START_LSN
    g[L.G_PC_LOOP_START] = -1_000_000
    g[L.G_PC_DISABLED] = 1 if knobs[S.K_PC_DISABLED] != 0 else 0
    g[L.G_N_THREADS_MAX] = n_threads_max
    g[L.G_N_ACTIVE_THREADS] = min(int(knobs[S.K_THREADS]), n_threads_max)
    g[L.G_WL_RUNNING] = 1
    g[L.G_SEQ_CURSOR] = int(knobs[S.K_SEQ_START])
    cache_free_check(g, knobs)
    rng = np.zeros(1, dtype=np.uint64)
    rng[0] = np.uint64(seed)
    return fr, frl, inst, page_frame, g, gf, rng


@njit(cache=True, _nrt=False)
def event_loop(
    g,
    gf,
    fr,
    frl,
    inst,
    page_frame,
    knobs,
    out,
    hist,
    ring_frame,
    ring_done,
    slots,
    clocks,
    th,
    th_cpu,
    times,
    heap,
    pos,
    rng,
    zipf_cdf,
    scatter,
    tl_time,
    tl_kind,
    tl_knob,
    tl_value,
    seconds,
):
    """The event loop: threads, the page cleaner and the timeline in time order until the end.

    Compiled without numba's reference counting (`_nrt=False`): it allocates nothing, and
    the increments and decrements of every array argument were most of the run time.
    """
    frame_columns(fr, frl, inst)
    columns(out, N_COLS)
    columns(th, N_TH)
    columns(hist, HIST_BUCKETS)
    end = seconds * 1_000_000
    g[L.G_END] = end
    n_tl = tl_time.shape[0]
    cleaner = times.shape[0] - 1
    while True:
        e = nonneg(next_entry(heap, times))
        t = nonneg(times[e])
        k = g[L.G_TL_NEXT]
        if k < n_tl and tl_time[k] <= t and tl_time[k] < end:
            advance(
                g,
                fr,
                frl,
                inst,
                page_frame,
                knobs,
                out,
                ring_frame,
                ring_done,
                tl_time[k],
            )
            apply_event(
                g, knobs, th, times, heap, pos, tl_kind[k], tl_knob[k], tl_value[k], tl_time[k]
            )
            g[L.G_TL_NEXT] = k + 1
            continue
        if t >= end:
            break
        advance(g, fr, frl, inst, page_frame, knobs, out, ring_frame, ring_done, t)
        if e == cleaner and is_mariadb(knobs):
            nxt = ma_page_cleaner_round(
                g,
                gf,
                fr,
                frl,
                inst,
                page_frame,
                knobs,
                out,
                ring_frame,
                ring_done,
                t,
            )
            times[e] = max(nxt, t + 1) if nxt < L.INF_TIME else L.INF_TIME
        elif e == cleaner:
            nxt = page_cleaner_round(
                g,
                gf,
                fr,
                frl,
                inst,
                page_frame,
                knobs,
                out,
                ring_frame,
                ring_done,
                slots,
                clocks,
                t,
            )
            times[e] = L.INF_TIME if g[L.G_PC_DISABLED] == 1 else max(nxt, t + 1)
        elif (
            g[L.G_WL_RUNNING] == 0
            or e >= g[L.G_N_ACTIVE_THREADS]
            or (g[L.G_WL_DONE] == 1 and th[e, L.TH_ROWS_LEFT] == 0)
        ):
            th[e, L.TH_ROWS_LEFT] = 0  # a stopped thread abandons its transaction
            th[e, L.TH_PENDING] = 0
            if th[e, L.TH_HELD] != 0:  # its single-page flush is done: the frame is free
                single_flush_done(fr, frl, inst, page_frame, knobs, th[e, L.TH_HELD] - 1)
                th[e, L.TH_HELD] = 0
            th[e, L.TH_FREE_K] = 0
            times[e] = L.INF_TIME
        else:
            nxt = run_step(
                g,
                fr,
                frl,
                inst,
                page_frame,
                knobs,
                out,
                hist,
                ring_frame,
                ring_done,
                times,
                heap,
                pos,
                rng,
                zipf_cdf,
                scatter,
                th,
                th_cpu,
                e,
                t,
            )
            times[e] = max(nxt, t + 1)
        heap_fix(heap, pos, times, e)
    advance(g, fr, frl, inst, page_frame, knobs, out, ring_frame, ring_done, end)


@njit(cache=True, nogil=True)  # other Python threads run meanwhile (the explorer's messages)
def simulate_kernel(
    knobs,
    seconds,
    n_threads_max,
    table_pages,
    seed,
    zipf_cdf,
    scatter,
    tl_time,
    tl_kind,
    tl_knob,
    tl_value,
):
    """Run a whole scenario. Returns (out[seconds, N_COLS], hist[seconds, HIST_BUCKETS]).

    The timeline changes knobs while the run goes on, so it works on a copy of `knobs`.
    """
    knobs = knobs.copy()
    check_engine(knobs)
    fr, frl, inst, page_frame, g, gf, rng = init_state(knobs, n_threads_max, table_pages, seed)
    n_frames = fr.shape[0]
    out = np.zeros((seconds, S.N_COLS), dtype=np.float64)
    hist = np.zeros((seconds, S.HIST_BUCKETS), dtype=np.int64)
    ring_frame = np.zeros(n_frames + 1, dtype=np.int32)
    ring_done = np.zeros(n_frames + 1, dtype=np.int64)
    slots = np.zeros(inst.shape[0], dtype=np.int64)
    clocks = np.zeros(64, dtype=np.int64)
    n_ent = n_threads_max + 1
    th = np.zeros((n_threads_max, L.N_TH), dtype=np.int64)  # TH_* columns
    th_cpu = np.zeros(n_threads_max, dtype=np.float64)  # CPU time not yet added, us
    cleaner = n_threads_max
    times = np.full(n_ent, L.INF_TIME, dtype=np.int64)
    for e in range(g[L.G_N_ACTIVE_THREADS]):
        times[e] = 0
    times[cleaner] = L.INF_TIME if g[L.G_PC_DISABLED] == 1 else 0
    heap = np.arange(n_ent).astype(np.int64)
    pos = np.arange(n_ent).astype(np.int64)
    for e in range(n_ent - 1, -1, -1):
        heap_fix(heap, pos, times, e)
    event_loop(
        g,
        gf,
        fr,
        frl,
        inst,
        page_frame,
        knobs,
        out,
        hist,
        ring_frame,
        ring_done,
        slots,
        clocks,
        th,
        th_cpu,
        times,
        heap,
        pos,
        rng,
        zipf_cdf,
        scatter,
        tl_time,
        tl_kind,
        tl_knob,
        tl_value,
        seconds,
    )
    return out, hist
