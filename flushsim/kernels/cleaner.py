"""MySQL 8.0 page cleaner: LRU batches, adaptive / idle / sync flush-list batches, checkpoints.

Models `buf0flu.cc` of 8.0.30+: `buf_flush_page_coordinator_thread` (one round per call),
`pc_flush_slot`, `buf_flush_LRU_list_batch`, `buf_do_flush_list_batch`,
`Adaptive_flush::page_recommendation`, and `log0files_capacity.cc` for the redo limits;
doublewrite follows buf0dblwr.cc. A round is one event, its writes dispatched at once over the
cleaner threads. See docs/model.md, section MySQL page cleaner.
"""

from __future__ import annotations

import math

from numba import njit

from .. import schema as S

# imported by name: hints.columns needs a literal width (numba types a module attribute int64)
from ..schema import N_COLS
from . import layout as L
from .engine import is_mariadb, is_mysql
from .hints import columns, nonneg, prefetch2
from .io import (
    dio_serialised,
    fsync,
    place_locks,
    ring_peek_done,
    ring_pop,
    ring_push,
    ring_stage,
    ring_staged,
    submit,
    submit_page_write,
)
from .neighbors import try_neighbors
from .pool import (
    evict,
    flush_list_remove,
    frame_columns,
    old_ratio,
    oldest_modification,
    replaceable,
)
from .scheduler import pre_sleep_check

LSN_MAX = 1 << 62


@njit(cache=True, _nrt=False)
def redo_limits(knobs):
    """log_files_capacity_get_limits (8.0.30+), in bytes of LSN.

    Returns (soft capacity, max_modified_age_async, max_modified_age_sync,
    limit_for_free_check, limit_for_dirty_page_age, concurrency margin).
    """
    cap = int(knobs[S.K_REDO_CAP])
    page = int(knobs[S.K_PAGE_SIZE])
    file_size = cap // 32
    hard = cap * 30 // 32 - (31 * 2048 + 2 * 65536) - (file_size + 9) // 10
    hard = hard // 512 * 512
    soft = hard * 95 // 100  # LOG_EXTRA_WRITER_MARGIN_PCT = 5
    age_async = soft - soft // 8
    age_sync = soft - soft // 16
    conc = int(knobs[S.K_THREAD_CONC])
    # Free-check margin (log_concurrency_margin): 4 pages of redo per thread (+10 background
    # threads), plus 5 % of the soft capacity, at most 50 + 5 % of it, aligned down to 512
    # (LOG_CONCCURENCY_MARGIN_MAX_PCT + LOG_EXTRA_CONC_MARGIN_PCT; docs/model.md, section Redo)
    margin = 4 * page * (conc + 10) + 4096 + soft * 5 // 100
    margin = min(margin, soft * 55 // 100 // 512 * 512)
    return soft, age_async, age_sync, soft - margin, age_async - margin, margin


@njit(cache=True, _nrt=False)
def checkpoint(g, frl, inst):
    """Advance the checkpoint to the oldest modification (or the current LSN if all clean)."""
    oldest = oldest_modification(frl, inst)
    ck = oldest if oldest > 0 else g[L.G_LSN]
    if ck > g[L.G_CHECKPOINT_LSN]:
        g[L.G_CHECKPOINT_LSN] = ck


@njit(cache=True, _nrt=False)
def checkpoint_at(g, frl, inst, t):
    """MySQL's log_checkpoint at t (us): advance the checkpoint; remember when it moved."""
    before = g[L.G_CHECKPOINT_LSN]
    checkpoint(g, frl, inst)
    if g[L.G_CHECKPOINT_LSN] != before:
        g[L.G_CKPT_TIME] = t


@njit(cache=True, _nrt=False)
def log_checkpointer(g, frl, inst, knobs, t):
    """log_checkpointer (log0chkp.cc), its timed wake-up if one is due by t (us).

    It wakes every innodb_log_checkpoint_every. If the server was busy since its last timed
    wake-up (srv_check_activity), it does nothing unless log_busy_checkpoint_interval (7) x that
    period passed since the last checkpoint. Otherwise log_should_checkpoint: a checkpoint if
    the age is past the aggressive age (31/32 of soft) or the period passed since the last one.
    Requested checkpoints (log_free_check_wait) are commit.log_free_check's checkpoint_at.
    """
    if t < g[L.G_CKPT_WAKE]:
        return
    every = int(knobs[S.K_CHECKPOINT_EVERY]) * 1000
    g[L.G_CKPT_WAKE] = t + every
    busy = g[L.G_ACTIVITY] != g[L.G_CKPT_ACTIVITY]
    g[L.G_CKPT_ACTIVITY] = g[L.G_ACTIVITY]
    elapsed = t - g[L.G_CKPT_TIME]
    if busy and elapsed < L.LOG_BUSY_CHECKPOINT_INTERVAL * every:
        return
    soft = redo_limits(knobs)[0]
    if g[L.G_LSN] - g[L.G_CHECKPOINT_LSN] >= soft - soft // 32 or elapsed >= every:
        checkpoint_at(g, frl, inst, t)


@njit(cache=True, inline="always", _nrt=False)  # once per page write: see io.submit
def write_complete(pool, knobs, f):
    """buf_page_io_complete for a write: the page is clean; an LRU write also frees the frame."""
    fr, frl, inst, page_frame, runs = pool
    f = nonneg(f)
    size = nonneg(inst[0, L.I_SIZE])
    i = f // size
    kind = fr[f, L.F_IO]
    fr[f, L.F_IO] = L.IO_NONE
    flush_list_remove(fr, frl, inst, runs, i, f)
    if kind == L.IO_LRU:
        inst[i, L.I_PENDING_LRU] -= 1
        if fr[f, L.F_LRU] != L.ON_FREE:
            evict(fr, inst, runs, page_frame, i, f, old_ratio(knobs[S.K_OLD_PCT]))
    elif kind == L.IO_MA_LRU:
        inst[i, L.I_PENDING_LRU] -= 1  # MariaDB 10.11: clean, stays in the LRU
    else:
        inst[i, L.I_PENDING_LIST] -= 1


@njit(cache=True, _nrt=False)
def complete_writes(g, pool, knobs, ring, t):
    """Apply every write completion due by time t (us)."""
    fr, frl, inst, page_frame, runs = pool
    ring_frame, ring_done = ring
    frame_columns(fr, frl, inst)
    t = nonneg(t)
    if dio_serialised(knobs):
        # writes no read has met yet take the inode lock first: it may delay them
        place_locks(g, knobs, ring_done, t)
    while True:
        d = ring_peek_done(g, ring_done)
        if d < 0 or d > t:
            return
        f = ring_pop(g, ring_frame)
        write_complete(pool, knobs, f)


@njit(cache=True, inline="always", _nrt=False)
def dblwr_batch_pages(knobs):
    """Pages per doublewrite batch: innodb_doublewrite_pages (MySQL), or MariaDB's two extents.

    MariaDB: buf_dblwr_t::add_to_batch fills 2 x block_size() = 2 x FSP_EXTENT_SIZE pages, 128 at
    16 KiB pages and above, 256 at 8 KiB, 512 at 4 KiB.
    """
    if is_mariadb(knobs):
        return 2 * max(L.MA_EXTENT_BYTES // int(knobs[S.K_PAGE_SIZE]), L.MA_EXTENT_MIN_PAGES)
    return int(knobs[S.K_DBLWR_PAGES])


@njit(cache=True, inline="always", _nrt=False)
def dblwr_gate(kind):
    """The inst field holding when the doublewrite instance of flush type `kind` is free."""
    if kind == L.IO_LRU:
        return L.I_DBLWR_LRU_FREE
    return L.I_DBLWR_LIST_FREE


@njit(cache=True, _nrt=False)
def batch_completed(g, knobs, out, last, m):
    """Double_write::write_complete for a batch whose last data write completes at `last` (us).

    Innodb_dblwr_pages_written counts the batch now; the data files are fsynced
    (fil_flush_file_spaces, also under O_DIRECT). Returns when the doublewrite instance may
    start its next batch: at `last` (batch_completed comes before the fsync), but on SATA only
    once the fsync is done, since FLUSH CACHE holds the drive's queue (io.sata_flush_start).
    """
    s = last // 1_000_000
    if s < out.shape[0]:
        out[s, S.C_DBLWR_PAGES] += m
    done = fsync(g, knobs, out, last, L.FILE_DATA)
    if knobs[S.K_DEV_INTERFACE] == S.IF_SATA:
        return done
    return last


@njit(cache=True, _nrt=False)
def dispatch(g, pool, knobs, out, ring, n, i, kind, t):
    """Write the n frames staged in the ring (all of instance i) through the doublewrite buffer.

    MySQL (Double_write::flush_to_disk, 8.0.20+): a chunk of innodb_doublewrite_pages is one
    batch; its doublewrite instance (per pool instance and flush type) has one batch in flight,
    so the thread first waits for the previous one (wait_for_pending_batch), writes the
    doublewrite file, then the data pages; Innodb_dblwr_writes counts at that dispatch
    (write_data_pages), the pages at completion (batch_completed). MariaDB counts both at
    dispatch and does not wait. Returns the time the dispatching thread is free again (us).
    """
    fr, frl, inst, page_frame, runs = pool
    ring_frame, ring_done = ring
    frame_columns(fr, frl, inst)
    columns(out, N_COLS)
    i = nonneg(i)
    t = nonneg(t)
    page = int(knobs[S.K_PAGE_SIZE])
    dblwr = int(knobs[S.K_DBLWR])
    chunk = dblwr_batch_pages(knobs)
    batched = dblwr != 0 and is_mysql(knobs)
    gate = dblwr_gate(kind)
    s = t // 1_000_000
    cursor = t
    k = 0
    while k < n:
        m = min(chunk, n - k)
        if batched:
            cursor = max(cursor, inst[i, gate])  # wait_for_pending_batch
        start = cursor
        # The thread latches a chunk's pages as it fills the doublewrite buffer, just before
        # writing it. Batches are dispatched whole, ahead of the clock, and queue one behind
        # another in the write FIFO (other page cleaners', or this thread's earlier chunks): a
        # chunk is latched when the FIFO reaches it, not when its batch was chosen.
        latch = max(cursor, g[L.G_DEV_BUSY_WRITE])
        if dblwr != 0:
            # the whole buffer in one sequential write (DETECT_ONLY: the pages' ids and LSNs in
            # one reduced page, Reduced_double_write::write_dblwr_pages), then fsync of the file
            nbytes = m * page if dblwr == 1 else L.REDUCED_BATCH_PAGE_SIZE
            d = submit(g, knobs, out, cursor, nbytes, True)
            start = fsync(g, knobs, out, d, L.FILE_DBLWR)
            ws = start // 1_000_000 if batched else s
            if ws < out.shape[0]:
                out[ws, S.C_DBLWR_WRITES] += 1
                if not batched:
                    out[ws, S.C_DBLWR_PAGES] += m
        last = start
        prev_page = L.NO_PAGE - 1  # nothing before the chunk's first write, page 0 included
        for _ in range(k, k + m):
            f = ring_staged(g, ring_frame, 0)  # each push moves the tail onto the next one
            p = fr[f, L.F_PAGE]
            done = submit_page_write(g, knobs, out, start, page, p == prev_page + 1)
            prev_page = p
            frl[f, L.L_IO_LATCH] = latch
            ring_push(g, ring_frame, ring_done, f, done)
            last = done
        if batched:
            inst[i, gate] = batch_completed(g, knobs, out, last, m)
        if last > inst[i, L.I_PENDING_DONE]:
            inst[i, L.I_PENDING_DONE] = last
        if kind == L.IO_LRU or kind == L.IO_MA_LRU:
            inst[i, L.I_PENDING_LRU] += m
        else:
            inst[i, L.I_PENDING_LIST] += m
        cursor = start if dblwr != 0 else cursor
        k += m
    return cursor + L.PC_PAGE_US * n


@njit(cache=True, _nrt=False)
def lru_batch(g, pool, knobs, out, ring, i, t):
    """buf_flush_LRU_list for instance i: evict clean tail pages, write dirty ones.

    Not limited by innodb_io_capacity: the budget is innodb_lru_scan_depth pages per instance.
    Returns (pages written, pages evicted, time the thread is free again).
    """
    fr, frl, inst, page_frame, runs = pool
    ring_frame, ring_done = ring
    frame_columns(fr, frl, inst)
    columns(out, N_COLS)
    i = nonneg(i)
    t = nonneg(t)
    if inst[i, L.I_PENDING_LRU] > 0:
        return 0, 0, t  # buf_flush_start: the previous LRU batch is still being written
    depth = int(knobs[S.K_LRU_DEPTH])
    scan_depth = min(depth, inst[i, L.I_LRU_LEN])
    ratio = old_ratio(knobs[S.K_OLD_PCT])
    count = 0
    evicted = 0
    scanned = 0
    f = inst[i, L.I_LRU_TAIL]
    while (
        f >= 0
        and count + evicted < scan_depth
        and inst[i, L.I_FREE_LEN] < depth
        and inst[i, L.I_LRU_LEN] > 256
    ):
        prev = fr[f, L.F_PREV]
        # the next step reads prev's frame: start fetching it while this one is handled
        prefetch2(fr, prev, L.F_PREV)
        prefetch2(fr, prev, L.F_DIRTY)
        prefetch2(frl, prev, L.L_OLDEST_MODIFICATION)
        if replaceable(fr, f):
            evict(fr, inst, runs, page_frame, i, f, ratio)
            evicted += 1
        elif fr[f, L.F_IO] == L.IO_NONE:  # dirty and not being written: buf_flush_ready_for_flush
            if knobs[S.K_NEIGHBORS] != 0:  # buf_flush_page_and_try_neighbors
                count += try_neighbors(
                    g, pool, knobs, out, ring, i, f, L.IO_LRU, count, scan_depth, t
                )
            else:
                fr[f, L.F_IO] = L.IO_LRU
                ring_stage(g, ring_frame, count, f)
                count += 1
        scanned += 1
        f = prev
    free_at = t
    if count > 0:
        free_at = dispatch(g, pool, knobs, out, ring, count, i, L.IO_LRU, t)
    inst[i, L.I_TRY_LRU_SCAN] = 1  # batch end: user threads may scan the LRU again
    s = t // 1_000_000
    if s < out.shape[0]:
        out[s, S.C_LRU_EVICT] += evicted
        out[s, S.C_LRU_SCANNED] += scanned
    return count, evicted, free_at


@njit(cache=True, _nrt=False)
def list_batch(g, pool, knobs, out, ring, i, n, lsn_limit, t):
    """buf_do_flush_list_batch: write up to n pages from the flush-list tail below lsn_limit.

    Returns (pages written, time the thread is free again).
    """
    fr, frl, inst, page_frame, runs = pool
    ring_frame, ring_done = ring
    if n <= 0 or inst[i, L.I_PENDING_LIST] > 0:
        return 0, t
    count = 0
    f = inst[i, L.I_FL_TAIL]
    while f >= 0 and count < n and frl[f, L.L_OLDEST_MODIFICATION] < lsn_limit:
        prev = fr[f, L.F_FPREV]
        if fr[f, L.F_IO] == L.IO_NONE:
            if knobs[S.K_NEIGHBORS] != 0:  # buf_flush_page_and_try_neighbors
                count += try_neighbors(g, pool, knobs, out, ring, i, f, L.IO_LIST, count, n, t)
            else:
                fr[f, L.F_IO] = L.IO_LIST
                ring_stage(g, ring_frame, count, f)
                count += 1
        f = prev
    if count == 0:
        return 0, t
    free_at = dispatch(g, pool, knobs, out, ring, count, i, L.IO_LIST, t)
    s = t // 1_000_000
    if s < out.shape[0]:
        out[s, S.C_BATCH] += count
    return count, free_at


@njit(cache=True, _nrt=False)
def pct_for_dirty(inst, knobs):
    """Adaptive_flush::get_pct_for_dirty."""
    fl = 0
    rest = 1
    for i in range(inst.shape[0]):
        fl += inst[i, L.I_FL_LEN]
        rest += inst[i, L.I_LRU_LEN] + inst[i, L.I_FREE_LEN]
    dirty_pct = (fl * 100) / rest
    if dirty_pct == 0.0:
        return 0
    lwm = knobs[S.K_DIRTY_LWM]
    max_dirty = knobs[S.K_MAX_DIRTY]
    if lwm == 0.0:
        if dirty_pct >= max_dirty:
            return 100
    elif dirty_pct >= lwm:
        return int((dirty_pct * 100) / (max_dirty + 1))
    return 0


@njit(cache=True, _nrt=False)
def pct_for_lsn(knobs, age):
    """Adaptive_flush::get_pct_for_lsn: redo-age term, growing as age^1.5.

    Percona Server's innodb_cleaner_lsn_age_factor = high_checkpoint (its default) grows it as
    age^2.5 / 700.5 instead: equal at an age factor of 93.4 (700.5 / 7.5), less below, more above.
    """
    _, _, _, free_check, dirty_age, _ = redo_limits(knobs)
    af_lwm = int(knobs[S.K_ADAPTIVE_LWM] * free_check / 100)
    if age < af_lwm:
        return 0
    if age < dirty_age and knobs[S.K_ADAPTIVE] == 0:
        return 0
    factor = (age * 100.0) / dirty_age
    ratio = int(knobs[S.K_IOC_MAX]) // int(knobs[S.K_IOC])
    if knobs[S.K_LSN_AGE_FACTOR] == S.LAF_HIGH_CHECKPOINT:
        return int((ratio * (factor * factor * math.sqrt(factor))) / 700.5)
    return int((ratio * (factor * math.sqrt(factor))) / 7.5)


@njit(cache=True, _nrt=False)
def page_recommendation(g, gf, pool, knobs, out, slots, last_pages, sync, lsn_limit, t):
    """Adaptive_flush::page_recommendation: pages to flush this round, per instance in `slots`.

    Returns the total number of pages requested.
    """
    fr, frl, inst, page_frame, runs = pool
    n_inst = inst.shape[0]
    for i in range(n_inst):
        slots[i] = 0
    cur_lsn = g[L.G_LSN]
    if g[L.G_AF_INIT] == 0:
        g[L.G_AF_INIT] = 1
        g[L.G_AF_PREV_LSN] = cur_lsn
        g[L.G_AF_PREV_TIME] = t
        return 0
    skip = g[L.G_AF_PREV_LSN] == cur_lsn and not sync
    g[L.G_AF_N_ITER] += 1
    g[L.G_AF_SUM_PAGES] += last_pages
    elapsed = max(1, (t - g[L.G_AF_PREV_TIME]) // 1_000_000)
    loops = int(knobs[S.K_AVG_LOOPS])
    if g[L.G_AF_N_ITER] >= loops or elapsed >= loops:
        gf[L.GF_PAGE_AVG_RATE] = float(
            int((g[L.G_AF_SUM_PAGES] / elapsed + gf[L.GF_PAGE_AVG_RATE]) / 2)
        )
        lsn_rate = (cur_lsn - g[L.G_AF_PREV_LSN]) // elapsed
        gf[L.GF_LSN_AVG_RATE] = float((int(gf[L.GF_LSN_AVG_RATE]) + lsn_rate) // 2)
        g[L.G_AF_N_ITER] = 0
        g[L.G_AF_SUM_PAGES] = 0
        g[L.G_AF_PREV_LSN] = cur_lsn
        g[L.G_AF_PREV_TIME] = t
    oldest = oldest_modification(frl, inst)
    age = cur_lsn - oldest if oldest > 0 else 0
    p_dirty = pct_for_dirty(inst, knobs)
    p_lsn = pct_for_lsn(knobs, age)
    p_total = max(p_dirty, p_lsn)
    ioc = int(knobs[S.K_IOC])
    iocmax = int(knobs[S.K_IOC_MAX])
    lsn_avg = int(gf[L.GF_LSN_AVG_RATE])
    if sync:
        target = lsn_limit
        sf = 1
    else:
        target = oldest + 3 * lsn_avg
        sf = 3
    sum_max = 2 * iocmax
    cap = (sum_max // n_inst) * sf * 2
    total = 0
    for i in range(n_inst):
        c = 0
        f = inst[i, L.I_FL_TAIL]
        while f >= 0 and c < cap and frl[f, L.L_OLDEST_MODIFICATION] <= target:
            c += 1
            f = fr[f, L.F_FPREV]
        slots[i] = c // sf + 1
        total += c
    s_all = max(1, total // sf)
    pages_for_lsn = min(s_all, sum_max)
    if sync:
        n = max(pages_for_lsn, ioc)
    else:
        n = min((ioc * p_total // 100 + int(gf[L.GF_PAGE_AVG_RATE]) + pages_for_lsn) // 3, iocmax)
    if skip:
        n = 0
    for i in range(n_inst):
        if n == 0:
            slots[i] = 0
        elif p_lsn > 30:
            slots[i] = slots[i] * n // s_all + 1
        else:
            slots[i] = n // n_inst + 1
    s = t // 1_000_000
    if s < out.shape[0]:
        out[s, S.C_N_REQ] = n
        out[s, S.C_PCT_DIRTY] = p_dirty
        out[s, S.C_PCT_LSN] = p_lsn
        out[s, S.C_AVG_PAGE] = gf[L.GF_PAGE_AVG_RATE]
        out[s, S.C_AVG_LSN] = gf[L.GF_LSN_AVG_RATE]
    return n


@njit(cache=True, _nrt=False)
def sync_flush_lsn(g, frl, inst, knobs):
    """log_sync_flush_lsn: the LSN to flush up to when the redo age passes the sync point."""
    oldest = oldest_modification(frl, inst)
    if oldest == 0:
        return 0
    _, _, age_sync, _, _, margin = redo_limits(knobs)
    lsn = g[L.G_LSN]
    if lsn + margin - oldest <= age_sync:
        return 0
    up_to = min(lsn + margin - age_sync, lsn)
    if up_to > oldest:
        return up_to
    return 0


@njit(cache=True, _nrt=False)
def page_cleaner_round(g, gf, pool, knobs, out, ring, cleaners, t):
    """One iteration of buf_flush_page_coordinator_thread at time t (us).

    Returns the time of the next iteration (us).
    """
    fr, frl, inst, page_frame, runs = pool
    ring_frame, ring_done = ring
    slots, clocks = cleaners
    n_inst = inst.shape[0]
    timed_out = t >= g[L.G_PC_LOOP_START] + 1_000_000
    if timed_out:
        g[L.G_PC_LOOP_START] = t
        g[L.G_PC_WAS_ACTIVE] = 1 if g[L.G_ACTIVITY] != g[L.G_PC_LAST_ACTIVITY] else 0
        g[L.G_PC_LAST_ACTIVITY] = g[L.G_ACTIVITY]
    # this round's is_server_active was decided before the sleep that ended at t
    active = g[L.G_PC_ACTIVE] == 1
    pre_sleep_check(g)
    g[L.G_PC_EVENT] = 0
    lsn_limit = LSN_MAX
    sync = False
    if knobs[S.K_FLUSH_SYNC] != 0:
        up_to = sync_flush_lsn(g, frl, inst, knobs)
        if up_to != 0:
            sync = True
            lsn_limit = up_to + int(gf[L.GF_LSN_AVG_RATE]) * 3
    n_threads = min(int(knobs[S.K_CLEANERS]), n_inst)
    for j in range(n_threads):
        clocks[j] = t
    n_lru = 0
    n_list = 0
    s = t // 1_000_000
    if sync or active:
        n = 0
        if sync:
            n = page_recommendation(
                g, gf, pool, knobs, out, slots, g[L.G_PC_LAST_PAGES], True, lsn_limit, t
            )
        elif timed_out:
            n = page_recommendation(
                g, gf, pool, knobs, out, slots, g[L.G_PC_LAST_PAGES], False, LSN_MAX, t
            )
        if n == 0:
            for i in range(n_inst):
                slots[i] = 0
        for i in range(n_inst):
            j = i % n_threads
            flushed, _, free_at = lru_batch(g, pool, knobs, out, ring, i, clocks[j])
            n_lru += flushed
            clocks[j] = free_at
            flushed, free_at = list_batch(
                g, pool, knobs, out, ring, i, slots[i], lsn_limit if sync else LSN_MAX, clocks[j]
            )
            n_list += flushed
            clocks[j] = free_at
        # The coordinator counts a sync round's LRU and list pages as sync pages; otherwise
        # LRU pages as LRU-batch pages and list pages as adaptive ones.
        if s < out.shape[0]:
            if sync:
                out[s, S.C_SYNC] += n_lru + n_list
            else:
                out[s, S.C_LRU_FLUSH] += n_lru
                out[s, S.C_ADAPTIVE] += n_list
        # the server zeroes last_pages after every recommendation, then keeps what this
        # round's flush list flushed if it was asked for pages (n_to_flush != 0)
        if sync or timed_out:
            g[L.G_PC_LAST_PAGES] = n_list if n != 0 else 0
    elif timed_out and knobs[S.K_IDLE_PCT] > 0:
        # Idle flushing: flush list only, innodb_io_capacity * idle_pct spread over instances.
        n_idle = int(knobs[S.K_IOC] * (knobs[S.K_IDLE_PCT] / 100.0))
        per = (n_idle + n_inst - 1) // n_inst
        for i in range(n_inst):
            j = i % n_threads
            flushed, free_at = list_batch(g, pool, knobs, out, ring, i, per, LSN_MAX, clocks[j])
            n_list += flushed
            clocks[j] = free_at
        if s < out.shape[0]:
            out[s, S.C_BACKGROUND] += n_list
    g[L.G_PC_N_FLUSHED] = n_lru + n_list
    g[L.G_PC_SYNC] = 1 if sync else 0
    if s < out.shape[0]:
        out[s, S.C_PC_ROUNDS] += 1
    end = t + L.PC_ROUND_BASE_US
    for j in range(n_threads):
        if clocks[j] + L.PC_ROUND_BASE_US > end:
            end = clocks[j] + L.PC_ROUND_BASE_US
    g[L.G_PC_ROUND_END] = end
    log_checkpointer(g, frl, inst, knobs, t)
    if sync:
        # Back to back; when nothing could start, wait for the oldest write in flight.
        if n_lru + n_list == 0:
            d = ring_peek_done(g, ring_done)
            if d > end:
                return d
        return end
    wake = g[L.G_PC_LOOP_START] + 1_000_000
    return max(end, wake)
