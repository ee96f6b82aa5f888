"""MariaDB's free-page path: buf_LRU_get_free_block of 10.6 / 10.11.

Each pass holds buf_pool.mutex; 10.6-generation threads run their own LRU batches
(mariadb.user_lru_batch), 10.11 threads wait for the page cleaner (buf_pool.done_free).
See docs/model.md, section MariaDB free pages.
"""

from __future__ import annotations

from numba import njit

from .. import schema as S
from . import layout as L
from .engine import is_mariadb1011
from .lru_search import add_wait, lru_search
from .mariadb import release_at_least, user_lru_batch
from .pool import free_pop
from .scheduler import ma_wake_cleaner


@njit(cache=True, _nrt=False)
def get_free_block_mariadb(g, pool, knobs, out, ring, sched, t, resume):
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
    its own search or batch, or for a batch's writes. It sets g[G_SLEEP_UNTIL] to the time it
    goes on and g[G_FREE_K] to where (`resume`: 1 + 2 n, + 1 past the search), and returns NIL;
    run_step keeps the row pending. A page its search freed stays on the free list, which no other
    thread reaches before the mutex is free. Simplifications: the mutex has no queue (after its
    release, the waiter that runs first takes it), and the done_free wait ends when the batch's
    last write completes, not at each page it frees.
    """
    fr, frl, inst, page_frame, runs = pool
    ring_frame, ring_done = ring
    times, heap, pos = sched
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
        wake_for_free_pages(g, inst, knobs, sched, t)
        return f, t
    if not searched:
        whole = it > 0 and not new
        if inst[0, L.I_TRY_LRU_SCAN] == 1 or whole:
            found, done = lru_search(pool, knobs, out, 0, whole, t)
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
        ma_wake_cleaner(g, sched, t)
        # wait for buf_pool.done_free (at most 1 s): retry just after the cleaner's pass
        return _ma_sleep(g, out, t0, min(times[cleaner] + 1, t + 1_000_000), 0), t
    busy = g[L.G_MA_LRU_BUSY]
    if busy > t:
        # wait for the running LRU batch (done_free), then take a page or flush (no search)
        return _ma_sleep(g, out, t0, busy + 1, 2 + 2 * it), t
    s = t // 1_000_000
    if it > 1 and s < out.shape[0]:
        out[s, S.C_FREE_WAITS] += 1
    flushed, done = user_lru_batch(g, pool, knobs, out, ring, t)
    if s < out.shape[0]:
        if flushed == 0:
            out[s, S.C_SINGLE_FAIL] += 1
        out[s, S.C_WAIT_FREE] += 1
    if it + 1 >= L.FREE_BLOCK_MAX_ITERATIONS:
        return L.NIL, done
    # buf_pool.stat.LRU_waits++, then the next iteration once its batch is written
    return _ma_sleep(g, out, t0, max(done, t + 1), 1 + 2 * (it + 1)), t


@njit(cache=True, inline="always", _nrt=False)
def wait_again(g, pool, knobs, out, th, e, t):
    """Thread e's step at t when it only goes back to sleep for a free page: its wake time, or -1.

    The same waits and state as run_step's way there (get_free_block_mariadb at TH_FREE_K): its
    pending row still misses and buf_pool.mutex is held again, or (10.6 generation, past its
    search) the free list is empty and the LRU batch still running: 28 M of the 44 M thread
    events of seed003-lru-flush-size's first 120 s (docs/development.md, "Speed targets"). A
    wait into the next second is left to run_step (add_wait's loop, inlined here, would need a
    128-bit division).
    """
    fr, frl, inst, page_frame, runs = pool
    resume = th[e, L.TH_FREE_K]
    pending = th[e, L.TH_PENDING]
    if resume < 0 or pending <= 0 or th[e, L.TH_HELD] != 0 or th[e, L.TH_COMMIT_PENDING] != 0:
        return -1
    if th[e, L.TH_ROWS_LEFT] <= 0 or page_frame[pending - 1] >= 0:
        return -1
    s = t // 1_000_000
    if s >= out.shape[0]:
        return -1
    edge = (s + 1) * 1_000_000
    held = inst[0, L.I_LRU_MUTEX]
    if held > t:
        if held + 1 > edge:
            return -1
        # add_wait's one share, as run_step's way adds it (lru_search.add_wait, _ma_sleep)
        out[s, S.C_LRU_MUTEX_WAIT] += (held + 1 - t) / 1000.0
        out[s, S.C_FREE_WAIT_MS] += (held + 1 - t) / 1000.0
        th[e, L.TH_FREE_K] = max(resume, 1)  # a first try sleeps to resume at iteration 0
        return held + 1
    searched = resume > 0 and (resume - 1) % 2 == 1
    busy = g[L.G_MA_LRU_BUSY]
    if searched and t < busy < edge and inst[0, L.I_FREE_HEAD] < 0:
        if not is_mariadb1011(knobs):
            out[s, S.C_FREE_WAIT_MS] += (busy + 1 - t) / 1000.0
            return busy + 1
    return -1


@njit(cache=True, _nrt=False)
def wake_for_free_pages(g, inst, knobs, sched, t):
    """buf_LRU_get_free_block's page_cleaner_wakeup after taking a free page (MDEV-33053).

    With more than BUF_LRU_MIN_LEN pages in the LRU and no LRU pass of the cleaner under way
    (`!page_cleaner_active()`: its wait for its writes before the pass, PH_LRU_PASS), fewer than
    innodb_lru_scan_depth / 2 free pages wake the cleaner, from its timed wait too
    (page_cleaner_wakeup(true)). The 10.6 generation from 10.6.17 / 10.11.7 also wakes an idle
    cleaner below the whole scan depth (MDEV-33053's "soft" wake-up); before, no wake-up here.
    """
    if not release_at_least(knobs, L.MA_LRU_WAKE_FROM_106, L.MA_LRU_WAKE_FROM_1011):
        return
    if inst[0, L.I_LRU_LEN] <= L.BUF_LRU_MIN_LEN or g[L.G_MA_PHASE] == L.PH_LRU_PASS:
        return
    free = inst[0, L.I_FREE_LEN]
    depth = int(knobs[S.K_LRU_DEPTH])
    if free < depth // 2:
        ma_wake_cleaner(g, sched, t)
    elif free < depth and g[L.G_MA_IDLE] == 1 and not is_mariadb1011(knobs):
        ma_wake_cleaner(g, sched, t)


@njit(cache=True, inline="always", _nrt=False)
def _ma_sleep(g, out, t0, wake, resume):
    """A MariaDB user thread without a free page sleeps from t0 until `wake` (us).

    It goes on at `resume` (get_free_block_mariadb's encoding, 0: from the start). Returns NIL.
    """
    g[L.G_SLEEP_UNTIL] = wake
    g[L.G_FREE_K] = resume
    add_wait(out, S.C_FREE_WAIT_MS, t0, wake)
    return L.NIL
