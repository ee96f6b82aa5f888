"""MySQL 8.0's free-page path: buf_LRU_get_free_block and the single-page flush.

A thread that finds no free page searches the LRU tail, wakes the page cleaner, sleeps 10 ms
from the third iteration on and writes a dirty tail page itself
(buf_flush_single_page_from_LRU). See docs/model.md, section Free pages.
"""

from __future__ import annotations

from numba import njit

from .. import schema as S
from . import layout as L
from .io import fsync, submit
from .lru_search import add_wait, lru_search
from .pool import evict, flush_list_remove, free_pop, old_ratio, replaceable
from .scheduler import signal_cleaner


@njit(cache=True, _nrt=False)
def single_page_flush(g, pool, knobs, out, i, t):
    """buf_flush_single_page_from_LRU: free the first clean tail page, or write the first dirty one.

    The write is synchronous: doublewrite write + fsync, data write + fsync, then the frame is
    freed. The written page stays in the LRU, dirty and io-fixed (IO_SINGLE), until the thread
    wakes when its I/O is done (single_flush_done): the thread sleeps meanwhile, so that its
    next I/O is submitted in time order. Returns (freed or written, time the I/O is done, the
    written frame or NIL). Like the server's single_scan_itr, the scan resumes where the last
    one stopped if that frame is in the young part of the LRU, else at the tail
    (LRUItr::start), and moves the iterator to the previous frame before each page.
    """
    fr, frl, inst, page_frame, runs = pool
    ratio = old_ratio(knobs[S.K_OLD_PCT])
    page = int(knobs[S.K_PAGE_SIZE])
    f = inst[i, L.I_SINGLE_ITR]
    if f < 0 or fr[f, L.F_LRU] == L.LRU_OLD:
        f = inst[i, L.I_LRU_TAIL]
    while f >= 0:
        prev = fr[f, L.F_PREV]
        inst[i, L.I_SINGLE_ITR] = prev
        if replaceable(fr, f):
            evict(fr, inst, runs, page_frame, i, f, ratio)
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
def single_flush_done(pool, knobs, f):
    """The single-page flush of frame f is done: the page is clean, its frame free."""
    fr, frl, inst, page_frame, runs = pool
    i = f // inst[0, L.I_SIZE]
    fr[f, L.F_IO] = L.IO_NONE
    flush_list_remove(fr, frl, inst, runs, i, f)
    evict(fr, inst, runs, page_frame, i, f, old_ratio(knobs[S.K_OLD_PCT]))


@njit(cache=True, inline="always", _nrt=False)
def get_free_block(g, pool, knobs, out, ring, sched, i, t, resume):
    """buf_LRU_get_free_block (MySQL 8.0). Returns (frame or NIL, time the thread continues).

    From the third iteration on the server sleeps 10 ms before its single-page flush. The
    thread sleeps in run_step: this returns NIL with g[G_SLEEP_UNTIL] = the wake time and
    g[G_FREE_K] = 1 + the iteration, and `resume` (that value, 0 otherwise) carries on there with
    the flush. A single-page flush that writes sleeps the same way until its I/O is done, with
    g[G_FREE_K] = -(1 + the next iteration) and g[G_HELD] = 1 + the written frame (run_step
    frees it on waking), and resumes at that iteration. The LRU search costs LRU_SCAN_NS a page
    examined (lru_search); nobody waits for its LRU_list_mutex.
    """
    fr, frl, inst, page_frame, runs = pool
    ring_frame, ring_done = ring
    times, heap, pos = sched
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
                freed, t = lru_search(pool, knobs, out, i, k > 0, t)
                if not freed and k == 0:
                    inst[i, L.I_TRY_LRU_SCAN] = 0
            if freed:
                continue
            signal_cleaner(g, sched, t, False)
            if k > 1:
                # os_thread_sleep(10000), then the flush: sleep in run_step, so that the writes
                # completing meanwhile complete at their own time, not ahead of the clock
                s = t // 1_000_000
                if s < out.shape[0]:
                    out[s, S.C_FREE_WAITS] += 1
                add_wait(out, S.C_FREE_WAIT_MS, t0, t + L.FREE_WAIT_SLEEP_US)
                g[L.G_SLEEP_UNTIL] = t + L.FREE_WAIT_SLEEP_US
                g[L.G_FREE_K] = k + 1
                return L.NIL, t
        woke = False
        before = t
        ok, t, held = single_page_flush(g, pool, knobs, out, i, t)
        s = t // 1_000_000
        if s < out.shape[0]:
            if not ok:
                out[s, S.C_SINGLE_FAIL] += 1
            out[s, S.C_WAIT_FREE] += 1
        k += 1
        if held >= 0:
            # synchronous I/O: sleep in run_step until it is done, then free the frame and go on
            add_wait(out, S.C_FREE_WAIT_MS, t0, t)
            g[L.G_SLEEP_UNTIL] = t
            g[L.G_FREE_K] = -(1 + k)
            g[L.G_HELD] = held + 1
            return L.NIL, before
    return L.NIL, t
