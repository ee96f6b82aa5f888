"""The event loop: threads, the page cleaner, write completions and the timeline in time order.

`new_state` allocates the state (layout.State, of layout.py's namedtuples) and `run_state` runs
`event_loop` on it to a given second, so that a run can be kept, copied (`copy_state`) and
resumed later (flushsim/resume.py); `simulate_kernel` does both at once. `event_loop` takes the
earliest entity off the scheduler's heap, advances the clock (write completions, seconds
sampled) and runs a thread's step or a page-cleaner round of the run's engine. See
docs/model.md for the mechanisms.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import schema as S
from ..schema import HIST_BUCKETS, N_COLS
from . import layout as L
from .cleaner import complete_writes, log_checkpointer, page_cleaner_round
from .commit import cache_free_check
from .engine import check_engine, is_mariadb, is_mysql
from .free_block import single_flush_done
from .free_block_mariadb import wait_again
from .hints import columns, nonneg
from .io import log_flush, periodic_commit, ring_peek_done
from .layout import N_TH
from .mariadb import ma_page_cleaner_round
from .pool import frame_columns
from .sampling import sample_second
from .scheduler import (
    SCAN_MAX_ENTRIES,
    heap_fix,
    next_entry,
    next_parked,
    pre_sleep_check,
    unpark,
    wake_threads,
)
from .threads import run_step
from .workload import pace_next


@njit(cache=True, inline="always", _nrt=False)
def advance(g, pool, knobs, out, ring, t):
    """Apply write completions and sample every second boundary up to time t, in order."""
    fr, frl, inst, page_frame, runs = pool
    ring_frame, ring_done = ring
    while True:
        boundary = (g[L.G_SECOND] + 1) * 1_000_000
        d = ring_peek_done(g, ring_done)
        if d >= 0 and d <= t and d < boundary:
            complete_writes(g, pool, knobs, ring, min(t, boundary - 1))
        elif boundary <= t:
            periodic_commit(g, knobs, out, boundary)
            if g[L.G_LSN] > g[L.G_LOG_FLUSH_LSN]:
                # the log flusher's once-a-second write + fsync (innodb_flush_log_at_timeout)
                log_flush(g, knobs, out, boundary, g[L.G_LSN])
            if is_mysql(knobs):
                # MariaDB checkpoints after page-cleaner passes only
                log_checkpointer(g, frl, inst, knobs, boundary)
            sample_second(g, inst, knobs, out, g[L.G_SECOND])
            g[L.G_SECOND] += 1
        else:
            return


@njit(cache=True, _nrt=False)
def pace_restart(g, knobs, th, sched, t, keep_backlog):
    """trx_rate: the schedule starts again at t; threads asleep until a start slot wake now.

    With `keep_backlog` (a new rate or thread count) starts already missed stay owed.
    """
    times, heap, pos = sched
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
            heap_fix(sched, e)


@njit(cache=True, _nrt=False)
def apply_event(g, knobs, th, sched, kind, knob, value, t):
    """One timeline event at time t."""
    times, heap, pos = sched
    cleaner = times.shape[0] - 1
    if kind == S.TL_SET:
        if knob == S.K_TRX_RATE or knob == S.K_THREADS:
            pace_restart(g, knobs, th, sched, t, True)
        knobs[knob] = value
        cache_free_check(g, knobs)
        if knob == S.K_PC_DISABLED:
            if value != 0:
                g[L.G_PC_DISABLED] = 1
                times[cleaner] = L.INF_TIME
            elif g[L.G_PC_DISABLED] == 1:
                g[L.G_PC_DISABLED] = 0
                # The coordinator leaves its disabled loop, checks activity at the top of its
                # loop and starts a full (timed-out) round.
                g[L.G_PC_LOOP_START] = t - 1_000_000
                pre_sleep_check(g)
                times[cleaner] = t
            heap_fix(sched, cleaner)
        elif knob == S.K_THREADS:
            g[L.G_N_ACTIVE] = min(int(value), g[L.G_N_THREADS_MAX])
            wake_threads(g, th, sched, t)
        elif knob == S.K_WORKLOAD or knob == S.K_SEQ_START or knob == S.K_SEQ_END:
            g[L.G_SEQ_CURSOR] = int(knobs[S.K_SEQ_START])
            g[L.G_WL_DONE] = 0
            wake_threads(g, th, sched, t)
    elif kind == S.TL_WORKLOAD_STOP:
        g[L.G_WL_RUNNING] = 0
        wake_threads(g, th, sched, t)
    elif kind == S.TL_WORKLOAD_START:
        pace_restart(g, knobs, th, sched, t, False)
        g[L.G_WL_RUNNING] = 1
        g[L.G_SEQ_CURSOR] = int(knobs[S.K_SEQ_START])
        g[L.G_WL_DONE] = 0
        wake_threads(g, th, sched, t)


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
    # at most one run a frame; rows are used from the first of each instance up (I_RUN_FRESH)
    runs = np.zeros((n_frames, L.N_RUN), dtype=np.int32)
    for f in range(n_frames):
        fr[f, L.F_PAGE] = L.NO_PAGE
        fr[f, L.F_LRU] = L.ON_FREE
        fr[f, L.F_IO] = L.IO_NONE
        fr[f, L.F_ACCESS_MS] = 0
        fr[f, L.F_FREED_CLOCK] = 0
        fr[f, L.F_DIRTY] = 0
    for i in range(n_inst):
        inst[i, L.I_LRU_HEAD] = L.NIL
        inst[i, L.I_LRU_TAIL] = L.NIL
        inst[i, L.I_LRU_OLD] = L.NIL
        inst[i, L.I_LRU_ITR] = L.NIL
        inst[i, L.I_ITR_AT] = L.NIL
        inst[i, L.I_SINGLE_ITR] = L.NIL
        inst[i, L.I_RUN_FREE] = L.NIL
        inst[i, L.I_RUN_FRESH] = i * size
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
    g[L.G_CHECKPOINT_LSN] = S.LOG_START_LSN
    g[L.G_LOG_FLUSH_LSN] = S.LOG_START_LSN
    g[L.G_PC_LOOP_START] = -1_000_000
    # The workload starts just before the coordinator's timeout at 0: its round at 0 is idle
    # (decided before its sleep), the timeout sees activity (docs/model.md, coordinator loop).
    g[L.G_PC_LAST_ACTIVITY] = -1
    g[L.G_PC_DISABLED] = 1 if knobs[S.K_PC_DISABLED] != 0 else 0
    g[L.G_N_THREADS_MAX] = n_threads_max
    g[L.G_N_ACTIVE] = min(int(knobs[S.K_THREADS]), n_threads_max)
    g[L.G_WL_RUNNING] = 1
    g[L.G_SEQ_CURSOR] = int(knobs[S.K_SEQ_START])
    cache_free_check(g, knobs)
    rng = np.zeros(1, dtype=np.uint64)
    rng[0] = np.uint64(seed)
    return fr, frl, inst, page_frame, runs, g, gf, rng


@njit(cache=True, _nrt=False)
def event_loop(g, gf, pool, knobs, series, ring, cleaners, threads, sched, load, timeline, seconds):
    """The event loop: threads, the page cleaner and the timeline in time order until the end.

    Compiled without numba's reference counting (`_nrt=False`): it allocates nothing, and
    the increments and decrements of every array argument were most of the run time.
    """
    fr, frl, inst, page_frame, runs = pool
    out, hist = series
    ring_frame, ring_done = ring
    slots, clocks = cleaners
    th, th_cpu = threads
    times, heap, pos = sched
    rng, zipf_cdf, scatter = load
    tl_time, tl_kind, tl_knob, tl_value = timeline
    frame_columns(fr, frl, inst)
    columns(out, N_COLS)
    columns(th, N_TH)
    columns(hist, HIST_BUCKETS)
    end = seconds * 1_000_000
    g[L.G_END] = end
    n_tl = tl_time.shape[0]
    cleaner = times.shape[0] - 1
    # the wait group (scheduler.py): its wake time (-1: none) and representative; during its turn
    # the next id to look at (-1: no turn), the next group it forms, and the first entity
    # outside it at the wake time (the turn stops before it)
    grouping = is_mariadb(knobs) and times.shape[0] > SCAN_MAX_ENTRIES
    gw, rep, turn, nw, nrep, bt, be = -1, -1, -1, -1, -1, -1, -1
    while True:
        if turn >= 0:
            e = next_parked(times, turn, cleaner)
            if e < 0 or (bt == gw and e > be):
                if e >= 0:
                    unpark(sched, e, gw)  # an entity outside the group comes first
                gw, rep, turn = nw, nrep, -1
                continue
            turn = e + 1
            t = nonneg(gw)
        else:
            e = nonneg(next_entry(sched))
            t = nonneg(times[e])
            k = g[L.G_TL_NEXT]
            if k < n_tl and tl_time[k] <= t and tl_time[k] < end:
                if gw >= 0:  # a timeline event may wake or stop threads: no group across it
                    unpark(sched, 0, gw)
                    gw, rep = -1, -1
                advance(g, pool, knobs, out, ring, tl_time[k])
                apply_event(g, knobs, th, sched, tl_kind[k], tl_knob[k], tl_value[k], tl_time[k])
                g[L.G_TL_NEXT] = k + 1
                continue
            if t >= end:
                break
            if e == rep:  # the group's turn: its members in id order, the heap untouched
                times[e] = L.PARKED
                heap_fix(sched, e)
                be = next_entry(sched)
                bt = times[be]
                turn, nw, nrep = e, -1, -1
                continue
        advance(g, pool, knobs, out, ring, t)
        if e == cleaner and is_mariadb(knobs):
            nxt = ma_page_cleaner_round(g, gf, pool, knobs, out, ring, t)
            times[e] = max(nxt, t + 1) if nxt < L.INF_TIME else L.INF_TIME
        elif e == cleaner:
            nxt = page_cleaner_round(g, gf, pool, knobs, out, ring, cleaners, t)
            times[e] = L.INF_TIME if g[L.G_PC_DISABLED] == 1 else max(nxt, t + 1)
        elif (
            g[L.G_WL_RUNNING] == 0
            or e >= g[L.G_N_ACTIVE]
            or (g[L.G_WL_DONE] == 1 and th[e, L.TH_ROWS_LEFT] == 0)
        ):
            th[e, L.TH_ROWS_LEFT] = 0  # a stopped thread abandons its transaction
            th[e, L.TH_BEGUN] = 0
            th[e, L.TH_PENDING] = 0
            if th[e, L.TH_HELD] != 0:  # its single-page flush is done: the frame is free
                single_flush_done(pool, knobs, th[e, L.TH_HELD] - 1)
                th[e, L.TH_HELD] = 0
            th[e, L.TH_FREE_K] = 0
            times[e] = L.INF_TIME
        else:
            nxt = wait_again(g, pool, knobs, out, th, e, t) if is_mariadb(knobs) else -1
            waited = nxt >= 0
            if nxt < 0:
                nxt = run_step(g, pool, knobs, series, ring, sched, load, threads, e, t)
            w = max(nxt, t + 1)
            times[e] = w
            if grouping and turn >= 0:
                if nw < 0 and waited:
                    nw, nrep = w, e  # the next group's representative (heap_fix below)
                elif w == nw:
                    times[e] = L.PARKED  # as it was: no heap operation
                    continue
            elif grouping:
                if gw < 0 and waited:
                    gw, rep = w, e
                elif w == gw and e > rep:
                    times[e] = L.PARKED
                elif w == gw:
                    times[rep] = L.PARKED  # e goes first: it represents the group
                    heap_fix(sched, rep)
                    rep = e
        heap_fix(sched, e)
    if gw >= 0:
        unpark(sched, 0, gw)  # the state a run leaves has no group
    advance(g, pool, knobs, out, ring, end)


@njit(cache=True)
def new_state(knobs, rows, n_threads_max, table_pages, seed, zipf_cdf, scatter):
    """A run at time 0 (an empty pool), its series `rows` seconds long. Works on a copy of knobs."""
    knobs = knobs.copy()
    check_engine(knobs)
    fr, frl, inst, page_frame, runs, g, gf, rng = init_state(
        knobs, n_threads_max, table_pages, seed
    )
    n_frames = fr.shape[0]
    out = np.zeros((rows, S.N_COLS), dtype=np.float64)
    hist = np.zeros((rows, S.HIST_BUCKETS), dtype=np.int64)
    ring_frame = np.zeros(n_frames + 1, dtype=np.int32)
    ring_done = np.zeros(n_frames + 1, dtype=np.int64)
    slots = np.zeros(inst.shape[0], dtype=np.int64)
    clocks = np.zeros(64, dtype=np.int64)
    n_ent = n_threads_max + 1
    th = np.zeros((n_threads_max, L.N_TH), dtype=np.int64)  # TH_* columns
    th_cpu = np.zeros(n_threads_max, dtype=np.float64)  # CPU time not yet added, us
    cleaner = n_threads_max
    times = np.full(n_ent, L.INF_TIME, dtype=np.int64)
    for e in range(g[L.G_N_ACTIVE]):
        times[e] = 0
    times[cleaner] = L.INF_TIME if g[L.G_PC_DISABLED] == 1 else 0
    # ids must fit their bits of a heap key (scheduler.py); knob_spec caps threads at 4,096
    assert n_ent <= 1 << L.SCHED_ID_BITS
    heap = (times << L.SCHED_ID_BITS) | np.arange(n_ent).astype(np.int64)
    pos = np.arange(n_ent).astype(np.int64)
    sched = L.Sched(times, heap, pos)
    for e in range(n_ent - 1, -1, -1):
        heap_fix(sched, e)
    return L.State(
        knobs,
        g,
        gf,
        L.Pool(fr, frl, inst, page_frame, runs),
        L.Series(out, hist),
        L.Ring(ring_frame, ring_done),
        L.Cleaners(slots, clocks),
        L.Threads(th, th_cpu),
        sched,
        L.Load(rng, zipf_cdf, scatter),
    )


@njit(cache=True, nogil=True)  # other Python threads run meanwhile (the explorer's messages)
def run_state(state, tl_time, tl_kind, tl_knob, tl_value, seconds):
    """Simulate `state` on to second `seconds`, with these timeline events (none before its clock).

    Running to W and then to W + D is the same run, bit for bit, as running to W + D at once.
    """
    state.g[L.G_TL_NEXT] = 0  # the events are this call's
    event_loop(
        state.g,
        state.gf,
        state.pool,
        state.knobs,
        state.series,
        state.ring,
        state.cleaners,
        state.threads,
        state.sched,
        state.load,
        L.Timeline(tl_time, tl_kind, tl_knob, tl_value),
        seconds,
    )


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
    state = new_state(knobs, seconds, n_threads_max, table_pages, seed, zipf_cdf, scatter)
    run_state(state, tl_time, tl_kind, tl_knob, tl_value, seconds)
    return state.series.out, state.series.hist


def copy_state(state):
    """A copy of a State: resuming it leaves `state` as it was (the read-only zipf CDF shared)."""
    rng, zipf_cdf, scatter = state.load
    return state._replace(
        **{name: _copied(getattr(state, name)) for name in state._fields if name != "load"},
        load=L.Load(rng.copy(), zipf_cdf, scatter),
    )


def _copied(part):
    if isinstance(part, np.ndarray):
        return part.copy()
    return type(part)(*(f.copy() for f in part))
