"""MariaDB page cleaner: one thread, one buffer pool, checkpoint-age targets, LRU passes.

Models MariaDB's `buf0flu.cc` (`buf_flush_page_cleaner`, `buf_flush_sync_for_checkpoint`,
`page_cleaner_flush_pages_recommendation`, `buf_flush_LRU`, `buf_do_LRU_batch`) and `log0log.cc`
`log_t::set_capacity`. `mariadb-10.11` (10.11.8+): only the page cleaner flushes the LRU;
`mariadb-10.6` (10.6.0-10.11.7, knob `version`): user threads run their own LRU batches, and the
cleaner's LRU passes and recommendation formula follow the release. A loop iteration is one
event. See docs/model.md, section MariaDB page cleaner.
"""

from __future__ import annotations

import math

from numba import njit

from .. import schema as S
from . import layout as L
from .cleaner import checkpoint, dispatch
from .engine import is_mariadb1011
from .io import fsync, ring_done_at, ring_stage
from .neighbors import try_neighbors
from .pool import evict, old_ratio, oldest_modification, replaceable

LSN_MAX = 1 << 62


@njit(cache=True, _nrt=False)
def ma_redo_limits(knobs):
    """log_t::set_capacity: (log_capacity, max_modified_age_async, max_checkpoint_age)."""
    cap = int(knobs[S.K_LOG_FILE_SIZE]) - L.MA_LOG_START_OFFSET
    cap -= cap // 10
    margin = cap - 48 * int(knobs[S.K_PAGE_SIZE])
    margin -= margin // 10
    return cap, margin - margin // 8, margin


@njit(cache=True, inline="always", _nrt=False)
def release_at_least(knobs, patch_106, patch_1011):
    """Is the modelled release 10.6.patch_106 / 10.11.patch_1011 or later? 10.11.8+ is."""
    if is_mariadb1011(knobs):
        return True
    v = int(knobs[S.K_VERSION])
    minor, patch = (v // 100) % 100, v % 100
    return patch >= (patch_106 if minor == 6 else patch_1011)


@njit(cache=True, inline="always", _nrt=False)
def cleaner_flushes_lru(knobs):
    """Does the page cleaner flush the LRU? Not before 10.6.13 / 10.11.3 (MDEV-26827)."""
    return release_at_least(knobs, L.MA_CLEANER_LRU_FROM_106, L.MA_CLEANER_LRU_FROM_1011)


@njit(cache=True, _nrt=False)
def need_lru_eviction(inst, knobs):
    """buf_pool_t::need_LRU_eviction (10.11) / ran_out() after MDEV-33053 (10.6 generation).

    Always false for a release whose page cleaner does no LRU flushing (cleaner_flushes_lru).
    """
    if not cleaner_flushes_lru(knobs):
        return False
    if inst[0, L.I_TRY_LRU_SCAN] == 0:
        return True
    depth = int(knobs[S.K_LRU_DEPTH])
    if is_mariadb1011(knobs):
        depth = depth // 2
    return inst[0, L.I_LRU_LEN] > L.BUF_LRU_MIN_LEN and inst[0, L.I_FREE_LEN] < depth


@njit(cache=True, inline="always", _nrt=False)
def last_write_done(g, ring_done):
    """Completion time of the newest write in flight (writes complete in FIFO order), or -1."""
    if g[L.G_RING_HEAD] == g[L.G_RING_TAIL]:
        return -1
    return ring_done_at(g, ring_done, g[L.G_RING_TAIL] - 1)


@njit(cache=True, _nrt=False)
def ma_lru_batch(g, pool, knobs, out, ring, max_n, t):
    """buf_do_LRU_batch: evict clean pages from the LRU tail, write dirty ones.

    10.11: runs while LRU > min(pool/20 - 1, 256) and FREE < innodb_lru_scan_depth; a dirty
    page met with max_n pages already written ends the batch. 10.6 generation: also stops when
    flushed + evicted reaches max_n. Returns (written, evicted, time the thread is free again).
    The batch is collected in the free slots of the write ring after its tail (ring_stage) and
    written by the calling thread (the page cleaner, or a 10.6 user thread).
    """
    fr, frl, inst, page_frame, runs = pool
    ring_frame, ring_done = ring
    new = is_mariadb1011(knobs)
    free_limit = int(knobs[S.K_LRU_DEPTH])
    min_len = L.BUF_LRU_MIN_LEN
    if new:
        min_len = min(inst[0, L.I_SIZE] // 20 - 1, L.BUF_LRU_MIN_LEN)
    kind = L.IO_MA_LRU if new else L.IO_LRU
    ratio = old_ratio(knobs[S.K_OLD_PCT])
    t = max(t, inst[0, L.I_LRU_MUTEX])  # after a user thread's LRU search
    flushed = 0
    evicted = 0
    scanned = 0
    f = inst[0, L.I_LRU_TAIL]
    while f >= 0 and inst[0, L.I_LRU_LEN] > min_len and inst[0, L.I_FREE_LEN] < free_limit:
        if not new and flushed + evicted >= max_n:
            break
        prev = fr[f, L.F_PREV]
        scanned += 1
        if replaceable(fr, f):
            evict(fr, inst, runs, page_frame, 0, f, ratio)
            evicted += 1
        elif fr[f, L.F_IO] == L.IO_NONE:
            if flushed >= max_n:
                break
            if knobs[S.K_NEIGHBORS] != 0:
                flushed += try_neighbors(g, pool, knobs, out, ring, 0, f, kind, flushed, max_n, t)
            else:
                fr[f, L.F_IO] = kind
                ring_stage(g, ring_frame, flushed, f)
                flushed += 1
        f = prev
    # buf_pool.mutex is held while the batch examines pages; the writes go out after
    t += (scanned * L.LRU_SCAN_NS + 999) // 1000
    inst[0, L.I_LRU_MUTEX] = t
    free_at = t
    if flushed > 0:
        free_at = dispatch(g, pool, knobs, out, ring, flushed, 0, kind, t)
    s = t // 1_000_000
    if s < out.shape[0]:
        out[s, S.C_LRU_FLUSH] += flushed
        out[s, S.C_LRU_EVICT] += evicted
        out[s, S.C_LRU_SCANNED] += scanned
    return flushed, evicted, free_at


@njit(cache=True, _nrt=False)
def buf_flush_lru(g, pool, knobs, out, ring, max_n, t):
    """buf_flush_LRU(max_n) of the page cleaner. Returns (pages written, time free again)."""
    fr, frl, inst, page_frame, runs = pool
    ring_frame, ring_done = ring
    new = is_mariadb1011(knobs)
    if not new and g[L.G_MA_LRU_BUSY] > t:
        return 0, t  # 10.6 generation: one LRU batch at a time (buf_pool.n_flush_LRU())
    flushed, evicted, free_at = ma_lru_batch(g, pool, knobs, out, ring, max_n, t)
    if new and flushed >= max_n:
        # flush quota exhausted: once more with 0 writes, to free pages now
        _, ev2, _ = ma_lru_batch(g, pool, knobs, out, ring, 0, t)
        evicted += ev2
    if not new:
        inst[0, L.I_TRY_LRU_SCAN] = 1
        if flushed > 0:
            g[L.G_MA_LRU_BUSY] = last_write_done(g, ring_done)
    elif evicted > 0:
        inst[0, L.I_TRY_LRU_SCAN] = 1
    # else: LRU_warn() only when nothing was written and try_LRU_scan was already false; it
    # leaves it false. A pass with nothing to do (a free list above the scan depth) keeps it.
    return flushed, free_at


@njit(cache=True, _nrt=False)
def ma_list_batch(g, pool, knobs, out, ring, max_n, lsn, t):
    """buf_flush_list_holding_mutex: up to max_n pages from the flush-list tail below lsn.

    Returns (pages written, time the thread is free again).
    """
    fr, frl, inst, page_frame, runs = pool
    ring_frame, ring_done = ring
    count = 0
    f = inst[0, L.I_FL_TAIL]
    while f >= 0 and count < max_n and frl[f, L.L_OLDEST_MODIFICATION] < lsn:
        prev = fr[f, L.F_FPREV]
        if fr[f, L.F_IO] == L.IO_NONE:
            if knobs[S.K_NEIGHBORS] != 0:
                count += try_neighbors(g, pool, knobs, out, ring, 0, f, L.IO_LIST, count, max_n, t)
            else:
                fr[f, L.F_IO] = L.IO_LIST
                ring_stage(g, ring_frame, count, f)
                count += 1
        f = prev
    if count == 0:
        return 0, t
    free_at = dispatch(g, pool, knobs, out, ring, count, 0, L.IO_LIST, t)
    s = t // 1_000_000
    if s < out.shape[0]:
        out[s, S.C_BATCH] += count
    return count, free_at


@njit(cache=True, _nrt=False)
def af_pct_for_lsn(g, knobs, age):
    """af_get_pct_for_lsn: (iocmax div ioc) x f x sqrt(f) / 7.5, f = 100 age / async age."""
    cap, age_async, _ = ma_redo_limits(knobs)
    af_lwm = int(knobs[S.K_ADAPTIVE_LWM] * float(cap) / 100)
    if age < af_lwm:
        return 0
    factor = (age * 100) // age_async
    ratio = int(knobs[S.K_IOC_MAX]) // int(knobs[S.K_IOC])
    return int(float(ratio * factor) * math.sqrt(float(factor)) / 7.5)


@njit(cache=True, _nrt=False)
def af_needed_for_redo(g, knobs, oldest):
    """af_needed_for_redo: the checkpoint age is above innodb_adaptive_flushing_lwm."""
    cap, _, _ = ma_redo_limits(knobs)
    return g[L.G_LSN] - oldest > int(knobs[S.K_ADAPTIVE_LWM] * float(cap) / 100)


@njit(cache=True, _nrt=False)
def recommendation(g, gf, pool, knobs, out, last_pages, oldest, pct_lwm, dirty, pct, t):
    """page_cleaner_flush_pages_recommendation: 10.11's from 10.6.13 / 10.11.3, 2021's before."""
    fr, frl, inst, page_frame, runs = pool
    cur = g[L.G_LSN]
    p_lsn = af_pct_for_lsn(g, knobs, cur - oldest)
    now_s = t // 1_000_000  # time(nullptr)
    ioc = int(knobs[S.K_IOC])
    iocmax = int(knobs[S.K_IOC_MAX])
    max_pct = knobs[S.K_MAX_DIRTY]
    s = t // 1_000_000
    if g[L.G_AF_PREV_LSN] == 0 or p_lsn == 0:
        g[L.G_AF_PREV_TIME] = now_s
        g[L.G_AF_PREV_LSN] = cur
        if ioc >= dirty:
            n = dirty
        else:
            d = pct / max_pct if max_pct > 1.0 else pct
            n = int(d * ioc)
            n = ioc if n < dirty else min(iocmax, dirty)
        return n
    g[L.G_AF_SUM_PAGES] += last_pages
    elapsed = max(now_s - g[L.G_AF_PREV_TIME], 1)
    g[L.G_AF_N_ITER] += 1
    loops = int(knobs[S.K_AVG_LOOPS])
    if g[L.G_AF_N_ITER] >= loops or elapsed >= loops:
        gf[L.GF_PAGE_AVG_RATE] = float(
            (g[L.G_AF_SUM_PAGES] // elapsed + int(gf[L.GF_PAGE_AVG_RATE])) // 2
        )
        rate = (cur - g[L.G_AF_PREV_LSN]) // elapsed
        gf[L.GF_LSN_AVG_RATE] = float((int(gf[L.GF_LSN_AVG_RATE]) + rate) // 2)
        g[L.G_AF_PREV_LSN] = cur
        g[L.G_AF_PREV_TIME] = now_s
        g[L.G_AF_N_ITER] = 0
        g[L.G_AF_SUM_PAGES] = 0
    if release_at_least(knobs, L.MA_AF_FORMULA_FROM_106, L.MA_AF_FORMULA_FROM_1011):
        if not release_at_least(knobs, L.MA_AF_PCT_LWM_FROM_106, L.MA_AF_PCT_LWM_FROM_1011):
            pct_lwm = 0.0  # d4265fb's caller, up to MDEV-31939
        if pct_lwm == 0.0 or max_pct == 0.0:
            ratio = 1.0
        else:
            ratio = max(p_lsn / 100.0, pct / max_pct)
        term = int(float(ioc) * ratio)
        shown = int(ratio * 100)
    else:
        # older af_get_pct_for_dirty: with lwm = 0 only at the high-water mark
        if pct == 0.0:
            p_dirty = 0
        elif pct_lwm == 0.0:
            p_dirty = 100 if pct >= max_pct else 0
        else:
            # the 2021 10.6 source: ulint(dirty_pct / max_pct), a ratio (0 or 1), not a percent
            p_dirty = int(pct / max_pct) if max_pct > 0.0 else int(pct)
        term = ioc * max(p_dirty, p_lsn) // 100
        shown = p_dirty
    target = oldest + int(gf[L.GF_LSN_AVG_RATE]) * 3
    pfl = 0
    f = inst[0, L.I_FL_TAIL]
    while f >= 0:
        if frl[f, L.L_OLDEST_MODIFICATION] > target:
            break
        pfl += 1
        if pfl >= iocmax:
            break
        f = fr[f, L.F_FPREV]
    pfl = max(pfl // 3, 1)
    n = min((term + int(gf[L.GF_PAGE_AVG_RATE]) + pfl) // 3, iocmax)
    if s < out.shape[0]:
        out[s, S.C_N_REQ] = n
        out[s, S.C_PCT_DIRTY] = shown
        out[s, S.C_PCT_LSN] = p_lsn
        out[s, S.C_AVG_PAGE] = gf[L.GF_PAGE_AVG_RATE]
        out[s, S.C_AVG_LSN] = gf[L.GF_LSN_AVG_RATE]
    return n


@njit(cache=True, _nrt=False)
def next_wake(g, inst, knobs, t):
    """Step 2 of the loop, decided at the end of an iteration: when the next one starts."""
    if g[L.G_MA_SYNC_LSN] != 0 and knobs[S.K_FLUSH_SYNC] != 0:
        return t  # furious flushing: no wait
    if need_lru_eviction(inst, knobs):
        return t
    if g[L.G_MA_IDLE] == 1 and (inst[0, L.I_FL_LEN] == 0 or knobs[S.K_DIRTY_LWM] == 0.0):
        return L.INF_TIME  # untimed wait for page_cleaner_wakeup()
    return max(t, g[L.G_MA_ABSTIME])


@njit(cache=True, _nrt=False)
def _finish(g, frl, inst, knobs, end):
    """set_almost_idle: write a checkpoint, then wait (or not) for the next iteration."""
    checkpoint(g, frl, inst)
    g[L.G_PC_ROUND_END] = end
    return next_wake(g, inst, knobs, end)


@njit(cache=True, _nrt=False)
def _after_lru(g, frl, inst, knobs, end):
    """check_oldest_and_set_idle."""
    oldest = oldest_modification(frl, inst)
    if oldest == 0:
        g[L.G_MA_SYNC_LSN] = 0
        g[L.G_MA_IDLE] = 1
    else:
        if oldest >= g[L.G_MA_ASYNC_LSN]:
            g[L.G_MA_ASYNC_LSN] = 0
        g[L.G_MA_IDLE] = 0
    return _finish(g, frl, inst, knobs, end)


# long because it mirrors buf_flush_page_cleaner's loop body (about 200 lines of buf0flu.cc)
@njit(cache=True, _nrt=False)
def ma_page_cleaner_round(g, gf, pool, knobs, out, ring, t):
    """One iteration of buf_flush_page_cleaner at time t (us); returns the next one's time."""
    fr, frl, inst, page_frame, runs = pool
    ring_frame, ring_done = ring
    s = t // 1_000_000
    if s < out.shape[0]:
        out[s, S.C_PC_ROUNDS] += 1
    new = is_mariadb1011(knobs)
    iocmax = int(knobs[S.K_IOC_MAX])
    phase = g[L.G_MA_PHASE]
    g[L.G_MA_PHASE] = L.PH_TOP
    if phase == L.PH_FURIOUS_DONE:
        # after the wait for the writes and fil_flush_file_spaces: checkpoint, clear targets
        checkpoint(g, frl, inst)
        measure = oldest_modification(frl, inst)
        if measure == 0:
            measure = LSN_MAX
        if measure >= g[L.G_MA_SYNC_LSN]:
            g[L.G_MA_SYNC_LSN] = 0
        elif measure >= g[L.G_MA_ASYNC_LSN]:
            g[L.G_MA_ASYNC_LSN] = 0
        g[L.G_PC_LAST_PAGES] = 0
        g[L.G_MA_ABSTIME] = t + 1_000_000
        end = t + L.PC_ROUND_BASE_US
        g[L.G_PC_ROUND_END] = end
        return next_wake(g, inst, knobs, end)
    if phase == L.PH_LRU_PASS:
        n, free_at = buf_flush_lru(g, pool, knobs, out, ring, g[L.G_MA_LRU_N], t)
        g[L.G_PC_LAST_PAGES] += n
        return _after_lru(g, frl, inst, knobs, free_at + L.PC_ROUND_BASE_US)
    # ---------------------------------------------------------------- furious flushing
    if g[L.G_MA_SYNC_LSN] != 0 and knobs[S.K_FLUSH_SYNC] != 0:
        clock = t
        if new and need_lru_eviction(inst, knobs):
            g[L.G_MA_IDLE] = 0
            _, clock = buf_flush_lru(g, pool, knobs, out, ring, int(knobs[S.K_IOC]), clock)
        n, clock = ma_list_batch(g, pool, knobs, out, ring, iocmax, g[L.G_MA_SYNC_LSN], clock)
        if s < out.shape[0]:
            out[s, S.C_SYNC] += n
        done = max(clock, last_write_done(g, ring_done))
        done = fsync(g, knobs, out, done, L.FILE_DATA)  # fil_flush_file_spaces
        g[L.G_MA_PHASE] = L.PH_FURIOUS_DONE
        g[L.G_PC_ROUND_END] = done
        return max(done, t + 1)
    g[L.G_MA_ABSTIME] = t + 1_000_000
    oldest = oldest_modification(frl, inst)
    if oldest == 0:
        g[L.G_MA_SYNC_LSN] = 0
        g[L.G_MA_IDLE] = 1
        return _finish(g, frl, inst, knobs, t + L.PC_ROUND_BASE_US)
    soft = g[L.G_MA_ASYNC_LSN]
    sync = g[L.G_MA_SYNC_LSN]
    if sync != 0:  # innodb_flush_sync=OFF: the sync target is a soft one
        if oldest >= sync:
            g[L.G_MA_SYNC_LSN] = 0
        elif sync > soft:
            soft = sync
    if soft != 0:
        if oldest >= soft:
            g[L.G_MA_ASYNC_LSN] = 0
            soft = 0
    elif need_lru_eviction(inst, knobs):
        # pure LRU pass, after os_aio_wait_until_no_pending_writes
        g[L.G_MA_IDLE] = 0
        return _lru_pass_after_writes(g, gf, pool, knobs, out, ring, iocmax, t)
    dirty = inst[0, L.I_FL_LEN]
    pct = dirty * 100.0 / float(inst[0, L.I_LRU_LEN] + inst[0, L.I_FREE_LEN])
    pct_lwm = knobs[S.K_DIRTY_LWM]
    idle_flush = False
    if pct_lwm != 0.0:
        if g[L.G_ACTIVITY] != g[L.G_MA_LAST_ACTIVITY]:
            g[L.G_MA_LAST_ACTIVITY] = g[L.G_ACTIVITY]
            if pct < pct_lwm:
                pct_lwm = 0.0
                if soft == 0 and not af_needed_for_redo(g, knobs, oldest):
                    g[L.G_MA_IDLE] = 1
                    return _finish(g, frl, inst, knobs, t + L.PC_ROUND_BASE_US)
        elif g[L.G_MA_IDLE] == 1 and g[L.G_DEV_BUSY_READ] <= t:
            g[L.G_MA_WAKE_ACTIVITY] = g[L.G_ACTIVITY]
            idle_flush = True
        elif pct < pct_lwm:
            pct_lwm = 0.0
            if soft == 0 and not af_needed_for_redo(g, knobs, oldest):
                g[L.G_MA_IDLE] = 1
                return _finish(g, frl, inst, knobs, t + L.PC_ROUND_BASE_US)
    elif pct < knobs[S.K_MAX_DIRTY]:
        if soft == 0 and not af_needed_for_redo(g, knobs, oldest):
            g[L.G_MA_IDLE] = 1
            return _finish(g, frl, inst, knobs, t + L.PC_ROUND_BASE_US)
    g[L.G_MA_IDLE] = 0
    clock = t
    n_flushed = 0
    if soft != 0 and not idle_flush:
        n_flushed, clock = ma_list_batch(g, pool, knobs, out, ring, iocmax, soft, clock)
        if s < out.shape[0]:
            out[s, S.C_BACKGROUND] += n_flushed
    elif idle_flush or knobs[S.K_ADAPTIVE] == 0:
        n_flushed, clock = ma_list_batch(
            g, pool, knobs, out, ring, int(knobs[S.K_IOC]), LSN_MAX, clock
        )
        if s < out.shape[0]:
            out[s, S.C_BACKGROUND] += n_flushed
    else:
        n = recommendation(
            g, gf, pool, knobs, out, g[L.G_PC_LAST_PAGES], oldest, pct_lwm, dirty, pct, t
        )
        if n != 0:
            n_flushed, clock = ma_list_batch(g, pool, knobs, out, ring, n, LSN_MAX, clock)
            g[L.G_PC_LAST_PAGES] = n_flushed
            if s < out.shape[0]:
                out[s, S.C_ADAPTIVE] += n_flushed
        elif (
            g[L.G_MA_ASYNC_LSN] <= oldest and not need_lru_eviction(inst, knobs)
        ) or not cleaner_flushes_lru(knobs):
            return _after_lru(g, frl, inst, knobs, t + L.PC_ROUND_BASE_US)
        else:
            n_lru = iocmax
            if new:
                n_lru = max(n_lru, min(iocmax, int(knobs[S.K_LRU_DEPTH])))
            return _lru_pass_after_writes(g, gf, pool, knobs, out, ring, n_lru, t)
    if not cleaner_flushes_lru(knobs):
        return _after_lru(g, frl, inst, knobs, clock + L.PC_ROUND_BASE_US)
    # the LRU pass after the flush-list pass
    n_lru = iocmax - n_flushed if iocmax >= n_flushed else 0
    if new:
        n_lru = max(n_lru, min(iocmax, int(knobs[S.K_LRU_DEPTH])))
    n, clock = buf_flush_lru(g, pool, knobs, out, ring, n_lru, clock)
    g[L.G_PC_LAST_PAGES] += n
    return _after_lru(g, frl, inst, knobs, clock + L.PC_ROUND_BASE_US)


@njit(cache=True, _nrt=False)
def _lru_pass_after_writes(g, gf, pool, knobs, out, ring, n, t):
    """os_aio_wait_until_no_pending_writes, then buf_flush_LRU(n)."""
    fr, frl, inst, page_frame, runs = pool
    ring_frame, ring_done = ring
    done = last_write_done(g, ring_done)
    if done > t:
        g[L.G_MA_PHASE] = L.PH_LRU_PASS
        g[L.G_MA_LRU_N] = n
        g[L.G_PC_ROUND_END] = done
        return done
    flushed, free_at = buf_flush_lru(g, pool, knobs, out, ring, n, t)
    g[L.G_PC_LAST_PAGES] += flushed
    return _after_lru(g, frl, inst, knobs, free_at + L.PC_ROUND_BASE_US)


@njit(cache=True, _nrt=False)
def user_lru_batch(g, pool, knobs, out, ring, t):
    """10.6 generation: a user thread's buf_flush_LRU(innodb_lru_flush_size).

    Returns (pages written, time the thread continues). The thread writes its batch itself.
    """
    fr, frl, inst, page_frame, runs = pool
    ring_frame, ring_done = ring
    flushed, _, free_at = ma_lru_batch(g, pool, knobs, out, ring, int(knobs[S.K_LRU_FLUSH_SIZE]), t)
    inst[0, L.I_TRY_LRU_SCAN] = 1
    if flushed > 0:
        g[L.G_MA_LRU_BUSY] = last_write_done(g, ring_done)
        s = t // 1_000_000
        if s < out.shape[0]:
            out[s, S.C_USER_LRU] += flushed
    return flushed, free_at
