"""User threads: a transaction is one event, its row accesses applied at once.

A local clock adds CPU time, page reads, waits for free pages (per engine: free_block.py,
free_block_mariadb.py) and for pages being written; the thread's next step starts when that
clock says. Simplification: a transaction's effects are visible to other threads from its
start, and its counters go to the second of its local clock.
"""

from __future__ import annotations

from numba import njit

from .. import schema as S
from . import layout as L
from .cleaner import complete_writes
from .commit import (
    commit_waits,
    finish_commit,
    log_free_check,
    ma_after_commit,
    ma_log_free_check,
)
from .engine import is_mariadb
from .free_block import get_free_block, single_flush_done
from .free_block_mariadb import get_free_block_mariadb
from .hints import nonneg
from .io import read_data_page, ring_done_of
from .pool import flush_list_add, lru_add, make_young, old_ratio, peek_if_too_old
from .workload import draw_is_write, draw_row, pace_claim, prefetch_uniform


@njit(cache=True, inline="always", _nrt=False)
def access_page(g, pool, knobs, out, ring, sched, page, is_write, t, resume):
    """buf_page_get_gen for one row: hit or read the page, then modify it if `is_write`.

    Returns the time (us) the thread continues, or -1 if it must sleep (g[G_SLEEP_UNTIL] says until
    when) or no free block could be found. `resume` continues an interrupted get_free_block
    (see there).
    """
    fr, frl, inst, page_frame, runs = pool
    ring_frame, ring_done = ring
    times, heap, pos = sched
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
            if is_mariadb(knobs):  # one test per miss
                f, t = get_free_block_mariadb(g, pool, knobs, out, ring, sched, t, resume)
            else:
                f, t = get_free_block(g, pool, knobs, out, ring, sched, i, t, resume)
            if f < 0:
                return -1
            t = read_data_page(g, knobs, out, ring_done, t, int(knobs[S.K_PAGE_SIZE]))
            fr[f, L.F_PAGE] = page
            page_frame[page] = f
            lru_add(fr, inst, runs, i, f, True, ratio)  # midpoint insertion
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
                g[L.G_SLEEP_UNTIL] = t + L.SINGLE_FLUSH_POLL_US
                return -1
            d = ring_done_of(g, ring_frame, ring_done, f)
            if d > t:
                g[L.G_SLEEP_UNTIL] = d
                return -1
            if d >= 0:
                complete_writes(g, pool, knobs, ring, t)
                continue
        if fr[f, L.F_ACCESS_MS] == 0:
            fr[f, L.F_ACCESS_MS] = max(1, t // 1000)
        r = peek_if_too_old(fr, inst, i, f, t // 1000, old_time, ratio)
        s = t // 1_000_000
        if r == 1:
            was_old = fr[f, L.F_LRU] == L.LRU_OLD
            make_young(fr, inst, runs, i, f, ratio)
            if was_old and s < out.shape[0]:
                out[s, S.C_YOUNG] += 1
        elif r == -1 and s < out.shape[0]:
            out[s, S.C_NOT_YOUNG] += 1
        break
    s = t // 1_000_000
    if is_write:
        if fr[f, L.F_DIRTY] == 0:
            flush_list_add(fr, frl, inst, runs, i, f, g[L.G_LSN])
        g[L.G_LSN] += int(knobs[S.K_REDO_PER_CHANGE])
        if s < out.shape[0]:
            out[s, S.C_DML_UPDATES] += 1
    if s < out.shape[0]:
        out[s, S.C_DML_READS] += 1  # an UPDATE reads its row first: both servers count it
    return t


@njit(cache=True, inline="always", _nrt=False)
def run_step(g, pool, knobs, series, ring, sched, load, threads, e, t):
    """Thread e runs its transaction from time t (us) until it commits or must touch the device.

    Row accesses that hit the pool run back to back on the thread's local clock. A row that
    needs the device (a miss, or an update of a page being written) while the local clock is
    ahead of t is kept pending and the thread yields, so that every I/O is submitted in global
    time order. A transaction begins with log_free_check. Returns the time of the next step.
    """
    fr, frl, inst, page_frame, runs = pool
    out, hist = series
    ring_frame, ring_done = ring
    times, heap, pos = sched
    rng, zipf_cdf, scatter = load
    th, th_cpu = threads
    if th[e, L.TH_HELD] != 0:
        # back from its single-page flush's I/O: the page is clean and its frame free, whether
        # or not the row still needs a block
        single_flush_done(pool, knobs, th[e, L.TH_HELD] - 1)
        th[e, L.TH_HELD] = 0
    if th[e, L.TH_COMMIT_PENDING] == 1:
        return finish_commit(g, knobs, series, th, e, t)
    if th[e, L.TH_ROWS_LEFT] == 0:
        if knobs[S.K_TRX_RATE] > 0.0 and th[e, L.TH_BEGUN] == 0:
            slot = th[e, L.TH_SLOT] - 1
            if slot < g[L.G_PACE_EPOCH]:  # none yet, or claimed before the schedule restarted
                slot = pace_claim(g, knobs[S.K_TRX_RATE], t)
                th[e, L.TH_SLOT] = slot + 1
            if slot > t:
                return slot
            th[e, L.TH_SLOT] = 0
        if th[e, L.TH_BEGUN] == 0:
            # the client's transaction begins now: a wait in log_free_check is part of its
            # latency (the server checks inside its first statement)
            th[e, L.TH_BEGUN] = 1
            th[e, L.TH_START] = t
        if is_mariadb(knobs):
            wait = ma_log_free_check(g, pool, knobs, sched, out, t)
        else:
            wait = log_free_check(g, pool, sched, out, t)
        if wait > 0:
            return wait
        th[e, L.TH_ROWS_LEFT] = int(knobs[S.K_ROWS_PER_TRX])
        th[e, L.TH_ROWS_DONE] = 0
        th[e, L.TH_BEGUN] = 0
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
                prefetch_uniform(fr, page_frame, g, rng, pages_per_unit, draws_per_row)
        if local > t:
            f = page_frame[page]
            if f < 0 or (is_write and fr[f, L.F_IO] != L.IO_NONE):
                th[e, L.TH_PENDING] = page + 1
                th[e, L.TH_PENDING_WRITE] = 1 if is_write else 0
                return local
        local = access_page(
            g, pool, knobs, out, ring, sched, page, is_write, local, th[e, L.TH_FREE_K]
        )
        if local < 0:
            if g[L.G_SLEEP_UNTIL] > 0:
                # sleep until a page's write completes, or for a free block (MySQL's 10 ms, after
                # which get_free_block resumes at iteration G_FREE_K; MariaDB's cleaner or LRU
                # batch), then retry the row. Such an access starts at t (a row that touches
                # the device while the local clock is ahead yields first, above): its
                # buffer_pool_read_requests counts when it is retried.
                w = g[L.G_SLEEP_UNTIL]
                g[L.G_SLEEP_UNTIL] = 0
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
            ma_after_commit(g, pool, knobs, sched, local)
        th[e, L.TH_COMMIT_LSN] = g[L.G_LSN]
        if local > t and th[e, L.TH_WROTE] == 1 and commit_waits(knobs):
            th[e, L.TH_COMMIT_PENDING] = 1  # the log write is device I/O: submit it in time order
            return local
        return finish_commit(g, knobs, series, th, e, local)
    return local + int(knobs[S.K_THINK_US])
