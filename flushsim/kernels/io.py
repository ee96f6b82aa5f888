"""The device: read and write FIFOs, fsyncs, the redo log and the write-completion ring.

Each I/O occupies its direction's FIFO for max(1/iops, bytes/bandwidth) and completes a fixed
latency after its service ends; an fsync waits for the write it makes durable plus
device_fsync_latency_us (on SATA also for the commands in flight, `sata_flush_start`); iostat
counts an I/O in the second it completes. Asynchronous writes complete in submission order, so
their completions sit in a FIFO ring. The redo log (`log_flush`) is written and fsynced per
innodb_flush_log_at_trx_commit with group commit. The filesystem adds a neighbour process's
buffered writes, ext4's journal commits (data=ordered) and, on kernels 4.9-5.5, the inode lock
that O_DIRECT reads and writes share (`place_locks`).
See docs/model.md, section I/O path.
"""

from __future__ import annotations

from numba import njit

from .. import schema as S

# imported by name: hints.columns needs a literal width (numba types a module attribute int64)
from ..schema import N_COLS
from . import layout as L
from .engine import is_mysql
from .hints import columns, nonneg


@njit(cache=True, inline="always", _nrt=False)
def _second(out, t):
    s = t // 1_000_000
    if s >= out.shape[0]:
        return -1
    return s


@njit(cache=True, inline="always", _nrt=False)
def _service(knobs, nbytes, is_write):
    """Device time (us) of one I/O of `nbytes`: its direction's IOPS or bandwidth limit."""
    if is_write:
        per_op = 1e6 / knobs[S.K_DEV_WIOPS]
        per_byte = nbytes / (knobs[S.K_DEV_WBW] * 1e6) * 1e6
    else:
        per_op = 1e6 / knobs[S.K_DEV_RIOPS]
        per_byte = nbytes / (knobs[S.K_DEV_RBW] * 1e6) * 1e6
    return max(int(max(per_op, per_byte) + 0.5), 1)


@njit(cache=True, inline="always", _nrt=False)
def _behind_stream(g, knobs, start):
    """Start (us) of a write meeting the neighbour's writeback: after its requests in flight."""
    if g[L.G_WB_END] > start:
        in_flight = L.WRITEBACK_QD * _service(knobs, L.WRITEBACK_CHUNK, True)
        return start + min(in_flight, g[L.G_WB_END] - start)
    return start


@njit(cache=True, inline="always", _nrt=False)
def spread(out, col, a, b, unit_us):
    """Add the time from a to b (us) to column `col`, in units of `unit_us`, each second its share.

    A span of 3 s adds 1 s to each second it covers, not 3 s to one: a thread's waits (ms, via
    lru_search.add_wait) or an I/O's time in flight (us, iostat's aqu_sz) stay per-second figures.
    """
    s = a // 1_000_000
    while a < b and s < out.shape[0]:
        edge = min(b, (s + 1) * 1_000_000)
        out[s, col] += (edge - a) / unit_us
        a = edge
        s += 1


@njit(cache=True, inline="always", _nrt=False)
def _count_io(out, now, done, is_write, nbytes, busy_from, busy_to):
    """Iostat's figures for one I/O submitted at `now` and completed at `done` (us).

    The I/O, its bytes and its await (done - now) count in the second it completes, as Linux
    counts them (blk_account_io_done). aqu_sz gets the time it was in flight and util the
    device time it used, [busy_from, busy_to), each shared among the seconds it spans. Sums of
    microseconds here, which series_frame turns into iostat's units: no division per I/O.
    """
    s = _second(out, done)
    if s >= 0:
        if is_write:
            out[s, S.C_W_S] += 1
            out[s, S.C_WKB] += nbytes / 1024.0
            out[s, S.C_W_AWAIT] += done - now
        else:
            out[s, S.C_R_S] += 1
            out[s, S.C_RKB] += nbytes / 1024.0
            out[s, S.C_R_AWAIT] += done - now
    spread(out, S.C_AQU, now, done, 1.0)
    spread(out, S.C_UTIL, busy_from, busy_to, 1.0)


# inlined: a call passes each of its three arrays as 7-9 words; once per I/O that cost more
# than submit's work (with the four others marked 'see submit': default preset -15 %)
@njit(cache=True, inline="always", _nrt=False)
def submit(g, knobs, out, now, nbytes, is_write):
    """Queue one I/O of `nbytes` at time `now` (us); return its completion time (us)."""
    return _queue(g, knobs, out, now, nbytes, is_write, _service(knobs, nbytes, is_write))


@njit(cache=True, inline="always", _nrt=False)  # once per page write: see submit
def submit_page_write(g, knobs, out, now, nbytes, adjacent):
    """Queue a data-page write at `now` (us); return its completion time (us).

    `adjacent`: it follows the write of the page before it in the same batch. On a rotational
    device (device_rotational) such a write costs its transfer time only, no seek: the block
    layer's elevator merges it with the one before. On any other device, the same as submit.
    """
    if adjacent and knobs[S.K_DEV_ROTATIONAL] != 0:
        service = max(int(nbytes / (knobs[S.K_DEV_WBW] * 1e6) * 1e6 + 0.5), 1)
        return _queue(g, knobs, out, now, nbytes, True, service)
    return submit(g, knobs, out, now, nbytes, True)


@njit(cache=True, inline="always", _nrt=False)
def _queue(g, knobs, out, now, nbytes, is_write, service):
    """Queue an I/O that occupies the device for `service` us; return its completion (us)."""
    now = nonneg(now)
    if is_write:
        start = max(now, g[L.G_DEV_BUSY_WRITE])
        if start == now:
            # busy only with the neighbour's writeback, if at all: wait for its requests in
            # flight (a write queued behind other writes has already paid that wait)
            start = _behind_stream(g, knobs, start)
        g[L.G_DEV_BUSY_WRITE] = start + service
    else:
        start = max(now, g[L.G_DEV_BUSY_READ])
        g[L.G_DEV_BUSY_READ] = start + service
        g[L.G_DEV_BUSY_WRITE] = max(g[L.G_DEV_BUSY_WRITE], now) + service
    if g[L.G_WB_END] > now:
        g[L.G_WB_END] += service  # the writeback stream is pushed back
    lat = knobs[S.K_DEV_WLAT] if is_write else knobs[S.K_DEV_RLAT]
    done = start + service + int(lat + 0.5)
    done = nonneg(done)
    _count_io(out, now, done, is_write, nbytes, start, start + service)
    return done


@njit(cache=True, inline="always", _nrt=False)  # once per redo write: see submit
def submit_sync_write(g, knobs, out, now, nbytes):
    """A small synchronous write (redo log, journal commit block) at `now` (us); returns its end.

    It has its own FIFO, like a read: the page writes queued ahead of it are asynchronous and,
    on a multi-queue device, do not make it wait for all of them; it takes device time from
    the page writes queued at `now` (they are pushed back), from none if none is. Behind the
    neighbour's writeback it waits like any write.
    """
    service = _service(knobs, nbytes, True)
    start = _behind_stream(g, knobs, max(now, g[L.G_LOG_BUSY]))
    g[L.G_LOG_BUSY] = start + service
    if g[L.G_DEV_BUSY_WRITE] > now:
        # not max(busy, now) + service: `now` is often ahead of the clock (a journal commit
        # block goes out after seconds of the neighbour's writeback), and moving the page-write
        # FIFO up to it would hold up every page write submitted meanwhile
        g[L.G_DEV_BUSY_WRITE] += service
    if g[L.G_WB_END] > now:
        g[L.G_WB_END] += service
    done = start + service + int(knobs[S.K_DEV_WLAT] + 0.5)
    _count_io(out, now, done, True, nbytes, start, start + service)
    return done


@njit(cache=True, inline="always", _nrt=False)
def dio_serialised(knobs):
    """Do direct reads and writes of the data file exclude each other (ext4, kernel 4.9-5.5)?"""
    fs = int(knobs[S.K_FS])
    method = int(knobs[S.K_FLUSH_METHOD])
    if fs == S.FS_XFS or method < S.FM_O_DIRECT:
        return False
    k = knobs[S.K_KERNEL]  # major * 100 + minor
    if k < 409 or k >= 506:
        return False
    return not (fs == S.FS_EXT4_NOLOCK and k >= 505)


@njit(cache=True, _nrt=False)
def place_locks(g, knobs, ring_done, now):
    """Let the page writes in flight take the inode lock, in order, up to `now` (us).

    Only when dio_serialised. A write asks for the lock once it started (`took`) and once the
    write before it has the lock: its submitter is blocked in io_submit until then. It gets
    the lock when the reads submitted before it asked are done, max(ask, latest read
    completion), and only then reaches the device: its completion moves as late (its device
    time stays where it was queued). A write that asks after `now` waits: reads may still
    come before it. The ring stays in completion order: lock times only grow.
    """
    back = _service(knobs, int(knobs[S.K_PAGE_SIZE]), True) + int(knobs[S.K_DEV_WLAT] + 0.5)
    idx = max(g[L.G_LOCK_IDX], g[L.G_RING_HEAD])
    g[L.G_LOCK_FLOOR] = 0
    while idx < g[L.G_RING_TAIL]:
        j = ring_slot(ring_done, idx)
        ask = max(ring_done[j] - back, g[L.G_LOCK_LAST])
        if ask > now:
            g[L.G_LOCK_FLOOR] = ask + back
            break
        lock = max(ask, g[L.G_RD_DONE_MAX])
        g[L.G_LOCK_LAST] = lock
        ring_done[j] = lock + back
        idx += 1
    g[L.G_LOCK_IDX] = idx


@njit(cache=True, inline="always", _nrt=False)  # once per page read: see submit
def read_data_page(g, knobs, out, ring_done, now, nbytes):
    """Read a data page (the .ibd file) at `now` (us); returns its completion time (us).

    Same as `submit` unless dio_serialised. Then the page writes that started by now take the
    inode lock first (`place_locks`), and a read arriving before the latest writer has it waits
    for it (a writer waiting for an rwsem holds off new readers). Reads and writes so alternate:
    each write waits for the reads before it, the reads behind it wait for that.
    """
    serialised = dio_serialised(knobs)
    t = now
    if serialised:
        place_locks(g, knobs, ring_done, now)
        t = max(now, g[L.G_LOCK_LAST])
        s = _second(out, now)
        if t > now and s >= 0:
            out[s, S.C_DIO_WAIT] += (t - now) / 1000.0
    done = submit(g, knobs, out, t, nbytes, False)  # one call site: submit is inlined
    if serialised and done > g[L.G_RD_DONE_MAX]:
        g[L.G_RD_DONE_MAX] = done
    return done


@njit(cache=True, inline="always", _nrt=False)
def buffered(knobs, kind):
    """Does InnoDB write file `kind` (FILE_DBLWR, FILE_DATA, FILE_LOG) through the page cache?"""
    method = int(knobs[S.K_FLUSH_METHOD])
    if kind == L.FILE_LOG and is_mysql(knobs):
        return True  # the manual: O_DIRECT "uses fsync() to flush both the data and log files"
    return method <= S.FM_O_DSYNC


@njit(cache=True, _nrt=False)
def neighbour_accrue(g, knobs, now):
    """The neighbour's buffered writes up to `now` (us) become dirty page-cache bytes."""
    if now > g[L.G_NB_LAST]:
        g[L.G_NB_DIRTY] += int(knobs[S.K_NB_MB_S] * (now - g[L.G_NB_LAST]) + 0.5)  # MB/s x us = B
        g[L.G_NB_LAST] = now


@njit(cache=True, _nrt=False)
def writeback(g, knobs, out, now):
    """Append the neighbour's dirty bytes to the writeback stream at `now` (us).

    Returns when the stream (this data and any still being written) is on the device. Request k
    of the stream is submitted when request k - WRITEBACK_QD completes, which bounds its await.
    """
    nbytes = g[L.G_NB_DIRTY]
    g[L.G_NB_DIRTY] = 0
    g[L.G_JBD_LAST] = now
    start = max(now, g[L.G_WB_END])
    lat = int(knobs[S.K_DEV_WLAT] + 0.5)
    if nbytes == 0 and start == now:
        return now  # nothing dirty and the stream is idle
    svc_full = _service(knobs, L.WRITEBACK_CHUNK, True)
    while nbytes > 0:
        n = min(nbytes, L.WRITEBACK_CHUNK)
        svc = _service(knobs, n, True)
        at = max(now, start - (L.WRITEBACK_QD - 1) * svc_full)
        done = start + svc + lat
        s = _second(out, done)
        _count_io(out, at, done, True, n, start, start + svc)
        if s >= 0:
            out[s, S.C_NB_WKB] += n / 1024.0
        start += svc
        nbytes -= n
    g[L.G_WB_END] = start
    return start + lat


@njit(cache=True, _nrt=False)
def periodic_commit(g, knobs, out, now):
    """The journal's timed commit (every JBD_COMMIT_US): the neighbour's dirty data goes out."""
    if knobs[S.K_NB_MB_S] <= 0.0:
        return
    neighbour_accrue(g, knobs, now)
    if now - g[L.G_JBD_LAST] >= L.JBD_COMMIT_US:
        writeback(g, knobs, out, now)


@njit(cache=True, inline="always", _nrt=False)
def sata_flush_start(g, knobs, t):
    """When a SATA drive starts a cache flush issued at t (us).

    FLUSH CACHE is not an NCQ command: libata holds it until the commands in flight at the drive
    are done (ata_std_qc_defer). Those are the head of the read and write FIFOs, at most
    NCQ_DEPTH commands, counted as page writes.
    """
    busy = max(g[L.G_DEV_BUSY_WRITE], g[L.G_DEV_BUSY_READ])
    if busy <= t:
        return t
    return min(busy, t + L.NCQ_DEPTH * _service(knobs, knobs[S.K_PAGE_SIZE], True))


@njit(cache=True, _nrt=False)
def fsync(g, knobs, out, now, kind):
    """An fsync of file `kind` issued at `now` (us); returns when it completes.

    Data files under O_DIRECT_NO_FSYNC, and MySQL's doublewrite file under O_DIRECT and
    O_DIRECT_NO_FSYNC, are not fsynced (returns `now`, counts nothing). A buffered file on ext4
    forces a journal commit that first writes the neighbour's dirty data.
    """
    method = int(knobs[S.K_FLUSH_METHOD])
    if kind == L.FILE_DATA and method == S.FM_O_DIRECT_NO_FSYNC:
        return now
    if kind == L.FILE_DBLWR and method >= S.FM_O_DIRECT and is_mysql(knobs):
        return now  # Double_write::is_fsync_required: its writes are direct
    start = now
    s = _second(out, now)
    if int(knobs[S.K_FS]) != S.FS_XFS and buffered(knobs, kind):
        neighbour_accrue(g, knobs, now)
        d = writeback(g, knobs, out, now)
        start = submit_sync_write(g, knobs, out, d, L.JOURNAL_BLOCK)
        if s >= 0:
            out[s, S.C_JBD_FORCED] += 1
    if knobs[S.K_DEV_INTERFACE] == S.IF_SATA:
        start = sata_flush_start(g, knobs, start)
    done = start + int(knobs[S.K_DEV_FSYNC] + 0.5)
    if s >= 0:
        out[s, S.C_FSYNCS] += 1
        out[s, S.C_FSYNC_LAT] += done - now  # us: series_frame makes it ms per fsync
    return done


@njit(cache=True, _nrt=False)
def log_flush(g, knobs, out, now, lsn):
    """Make the redo up to `lsn` durable for a committer at `now` (us); return when it is.

    Group commit: redo already covered by the last flush waits for it; a commit that arrives
    before the last flush has started joins it; otherwise a new flush starts when the last one
    has returned, writing the redo not yet flushed (rounded up to LOG_WRITE_ALIGN) and fsyncing
    the log. A joiner does not grow the group's write.
    """
    columns(out, N_COLS)
    now = nonneg(now)
    if lsn <= g[L.G_LOG_FLUSH_LSN]:
        return max(now, g[L.G_LOG_FLUSH_END])
    if now < g[L.G_LOG_FLUSH_START]:
        g[L.G_LOG_FLUSH_LSN] = lsn
        return g[L.G_LOG_FLUSH_END]
    start = max(now, g[L.G_LOG_FLUSH_END])
    nbytes = lsn - g[L.G_LOG_FLUSH_LSN]
    nbytes = -(-nbytes // L.LOG_WRITE_ALIGN) * L.LOG_WRITE_ALIGN
    d = submit_sync_write(g, knobs, out, start, nbytes)
    done = fsync(g, knobs, out, d, L.FILE_LOG)
    s = _second(out, start)
    if s >= 0:
        out[s, S.C_LOG_WRITES] += 1
    g[L.G_LOG_FLUSH_LSN] = lsn
    g[L.G_LOG_FLUSH_START] = start
    g[L.G_LOG_FLUSH_END] = done
    return done


@njit(cache=True, inline="always", _nrt=False)
def ring_slot(ring, idx):
    """The slot of ring index idx: indices only grow (G_RING_HEAD, G_RING_TAIL), slots wrap.

    Both rings (ring_frame, ring_done) have n_frames + 1 slots.
    """
    return nonneg(idx) % nonneg(ring.shape[0])


@njit(cache=True, _nrt=False)
def ring_push(g, ring_frame, ring_done, f, done):
    """Remember that the write of frame f completes at `done`."""
    tail = g[L.G_RING_TAIL]
    j = ring_slot(ring_frame, tail)
    ring_frame[j] = f
    ring_done[j] = done
    g[L.G_RING_TAIL] = tail + 1


@njit(cache=True, inline="always", _nrt=False)
def ring_stage(g, ring_frame, k, f):
    """Collect frame f as the k-th of a batch in the ring's free slots after its tail.

    The slots are free: the writes in flight and the batch are distinct frames, fewer than the
    ring's n_frames + 1 slots. Dispatching pushes them where they already are, in order.
    """
    ring_frame[ring_slot(ring_frame, g[L.G_RING_TAIL] + k)] = f


@njit(cache=True, inline="always", _nrt=False)
def ring_staged(g, ring_frame, k):
    """The k-th frame of the batch collected by ring_stage (k counts from the tail)."""
    return ring_frame[ring_slot(ring_frame, g[L.G_RING_TAIL] + k)]


@njit(cache=True, inline="always", _nrt=False)
def ring_done_at(g, ring_done, idx):
    """Completion time (us) of the write at ring index idx.

    A write whose inode lock is not placed yet (place_locks) completes no earlier than
    G_LOCK_FLOOR; that floor is 0 unless dio_serialised.
    """
    d = ring_done[ring_slot(ring_done, idx)]
    if idx >= g[L.G_LOCK_IDX]:
        return max(d, g[L.G_LOCK_FLOOR])
    return d


@njit(cache=True, inline="always", _nrt=False)
def ring_peek_done(g, ring_done):
    """Completion time of the oldest write in flight, or -1 if none."""
    if g[L.G_RING_HEAD] == g[L.G_RING_TAIL]:
        return -1
    return ring_done_at(g, ring_done, g[L.G_RING_HEAD])


@njit(cache=True, _nrt=False)
def ring_done_of(g, ring_frame, ring_done, f):
    """Completion time (us) of frame f's write in flight, or -1 if f has none (a rare walk)."""
    for idx in range(g[L.G_RING_HEAD], g[L.G_RING_TAIL]):
        if ring_frame[ring_slot(ring_frame, idx)] == f:
            return ring_done_at(g, ring_done, idx)
    return -1


@njit(cache=True, _nrt=False)
def ring_pop(g, ring_frame):
    """Remove the oldest write in flight and return its frame."""
    head = g[L.G_RING_HEAD]
    f = ring_frame[ring_slot(ring_frame, head)]
    g[L.G_RING_HEAD] = head + 1
    return f
