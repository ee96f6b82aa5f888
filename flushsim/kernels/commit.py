"""Commit and redo: log_free_check before a transaction, the log flush at its commit.

MariaDB's mtr commit checks (buf_flush_ahead) and log_free_check live here too; MySQL's
free-check limit is cached in G_FREE_CHECK (`cache_free_check`). A commit counts the
transaction and its latency (the histogram's 12.5 % buckets).
"""

from __future__ import annotations

from numba import njit

from .. import schema as S
from ..schema import HIST_BUCKETS, N_COLS
from . import layout as L
from .cleaner import checkpoint, checkpoint_at, redo_limits
from .engine import is_mariadb1011
from .hints import columns, nonneg
from .io import log_flush
from .layout import N_TH
from .mariadb import ma_redo_limits
from .pool import oldest_modification
from .scheduler import ma_wake_cleaner, signal_cleaner


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


@njit(cache=True, inline="always", _nrt=False)
def log_free_check(g, pool, sched, out, t):
    """MySQL's log_free_check at a transaction's start: 0, or the time to check again (us).

    Above the free-check limit (G_FREE_CHECK) the thread waits for the checkpoint to move,
    re-checking every REDO_WAIT_POLL_US; waiting wakes the coordinator, which sees the sync point.
    """
    fr, frl, inst, page_frame, runs = pool
    free_check = g[L.G_FREE_CHECK]
    if g[L.G_LSN] - g[L.G_CHECKPOINT_LSN] > free_check:
        checkpoint_at(g, frl, inst, t)  # log_free_check_wait requests one: the checkpointer wakes
        if g[L.G_LSN] - g[L.G_CHECKPOINT_LSN] > free_check:
            signal_cleaner(g, sched, t, True)
            s = t // 1_000_000
            if s < out.shape[0]:
                out[s, S.C_REDO_WAIT] += L.REDO_WAIT_POLL_US / 1000.0
            return t + L.REDO_WAIT_POLL_US
    return 0


@njit(cache=True, _nrt=False)
def ma_after_commit(g, pool, knobs, sched, t):
    """mtr_t::commit / log_close checks, once per transaction, and page_cleaner_wakeup(false).

    Checkpoint age above max_modified_age_async sets the async target (buf_flush_ahead(lsn,
    false)), above max_checkpoint_age the furious one (buf_flush_ahead(lsn, true)); both are the
    current LSN. A new furious target wakes the cleaner at once; a new async target wakes it on
    10.11 only if it is idle, so a busy cleaner keeps its one round a second (10.6 generation:
    always, as its older buf_flush_ahead). Simplification: checked at commit rather than after
    every mini-transaction, and the wake-up an idle cleaner gets when a page is first dirtied is
    checked here too.
    """
    fr, frl, inst, page_frame, runs = pool
    times, heap, pos = sched
    _, age_async, max_age = ma_redo_limits(knobs)
    lsn = g[L.G_LSN]
    age = lsn - g[L.G_CHECKPOINT_LSN]
    if age > max_age:
        if g[L.G_MA_SYNC_LSN] < lsn:
            g[L.G_MA_SYNC_LSN] = lsn
            ma_wake_cleaner(g, sched, t)
    elif age > age_async:
        if g[L.G_MA_ASYNC_LSN] < lsn:
            g[L.G_MA_ASYNC_LSN] = lsn
            if g[L.G_MA_IDLE] == 1 or not is_mariadb1011(knobs):
                ma_wake_cleaner(g, sched, t)
    if g[L.G_MA_IDLE] == 1 and inst[0, L.I_FL_LEN] > 0:
        pct = inst[0, L.I_FL_LEN] * 100.0 / float(inst[0, L.I_LRU_LEN] + inst[0, L.I_FREE_LEN])
        lwm = knobs[S.K_DIRTY_LWM]
        if (lwm != 0.0 and (lwm <= pct or g[L.G_MA_WAKE_ACTIVITY] == g[L.G_ACTIVITY])) or knobs[
            S.K_MAX_DIRTY
        ] <= pct:
            ma_wake_cleaner(g, sched, t)


@njit(cache=True, _nrt=False)
def ma_log_free_check(g, pool, knobs, sched, out, t):
    """log_checkpoint_margin: wait while the checkpoint age exceeds max_checkpoint_age.

    Returns 0 if the thread may start its transaction, else the time it re-checks
    (buf_flush_wait_flushed up to min(checkpoint + max age, checkpoint + 1 MiB), then a 10 ms
    sleep; simplified to a 10 ms poll after asking for furious flushing).
    """
    fr, frl, inst, page_frame, runs = pool
    times, heap, pos = sched
    _, _, max_age = ma_redo_limits(knobs)
    if g[L.G_LSN] - g[L.G_CHECKPOINT_LSN] <= max_age:
        return 0
    target = min(g[L.G_CHECKPOINT_LSN] + max_age, g[L.G_CHECKPOINT_LSN] + L.MA_MIB)
    oldest = oldest_modification(frl, inst)
    if oldest == 0 or oldest >= target:
        checkpoint(g, frl, inst)
        if g[L.G_LSN] - g[L.G_CHECKPOINT_LSN] <= max_age:
            return 0
    if g[L.G_MA_SYNC_LSN] < target:
        g[L.G_MA_SYNC_LSN] = target
    ma_wake_cleaner(g, sched, t)
    s = t // 1_000_000
    if s < out.shape[0]:
        out[s, S.C_REDO_WAIT] += L.FREE_WAIT_SLEEP_US / 1000.0
    return t + L.FREE_WAIT_SLEEP_US


@njit(cache=True, inline="always", _nrt=False)
def commit_waits(knobs):
    """innodb_flush_log_at_trx_commit 1 (or MariaDB's 3): a commit waits for its redo flush."""
    v = int(knobs[S.K_TRX_COMMIT])
    return v == 1 or v == 3


@njit(cache=True, _nrt=False)
def finish_commit(g, knobs, series, th, e, t):
    """Thread e's commit at t (us): wait for the redo flush (trx_commit = 1), count the trx."""
    out, hist = series
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
    th[e, L.TH_COMMIT_PENDING] = 0
    s = nonneg(done) // 1_000_000
    if s < out.shape[0]:
        out[s, S.C_TPS] += 1
        out[s, S.C_TRX_RW] += wrote
        hist[s, latency_bucket(done - th[e, L.TH_START])] += 1
    return done + int(knobs[S.K_THINK_US])


@njit(cache=True, _nrt=False)
def cache_free_check(g, knobs):
    """Keep redo_limits' free-check limit in G_FREE_CHECK, whenever the knobs change.

    Every transaction start reads it: computing it there was 1.7 % of a default run's
    instructions (benchmarks/instructions.py).
    """
    g[L.G_FREE_CHECK] = redo_limits(knobs)[3]
