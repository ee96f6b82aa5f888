# ruff: noqa: D102  (methods named after the InnoDB functions they model, as in reference.py)
"""The twin of io.py: the device FIFOs, fsyncs, the redo log, the filesystem and a neighbour."""

from __future__ import annotations

from .. import schema as S
from . import layout as L


class IoMixin:
    """The device and the I/O path (io.py), as ReferenceSim methods."""

    # ------------------------------------------------------------------ device (io.py)
    def service(self, nbytes: int, is_write: bool) -> int:
        """Device time (us) of one I/O: its direction's IOPS or bandwidth limit, whichever binds."""
        if is_write:
            iops, bandwidth = self.k.device_write_iops, self.k.device_write_bandwidth_mb_s
        else:
            iops, bandwidth = self.k.device_read_iops, self.k.device_read_bandwidth_mb_s
        per_op = 1e6 / iops
        per_byte = nbytes / (bandwidth * 1e6) * 1e6
        return max(int(max(per_op, per_byte) + 0.5), 1)

    def behind_stream(self, start: int) -> int:
        """A write meeting the neighbour's writeback starts after its requests in flight."""
        if self.wb_end > start:
            in_flight = L.WRITEBACK_QD * self.service(L.WRITEBACK_CHUNK, True)
            return start + min(in_flight, self.wb_end - start)
        return start

    def count_io(
        self, now: int, done: int, is_write: bool, nbytes: int, busy_from: int, busy_to: int
    ) -> None:
        """Iostat's figures for one I/O from `now` to `done` (us), as io._count_io.

        Counted in the second it completes; aqu_sz (its time in flight) and util (its device
        time, [busy_from, busy_to)) shared among the seconds they span.
        """
        if is_write:
            self.count(done, S.C_W_S)
            self.count(done, S.C_WKB, nbytes / 1024.0)
            self.count(done, S.C_W_AWAIT, done - now)
        else:
            self.count(done, S.C_R_S)
            self.count(done, S.C_RKB, nbytes / 1024.0)
            self.count(done, S.C_R_AWAIT, done - now)
        self.spread(S.C_AQU, now, done, 1.0)
        self.spread(S.C_UTIL, busy_from, busy_to, 1.0)

    def submit(self, now: int, nbytes: int, is_write: bool) -> int:
        return self.queue(now, nbytes, is_write, self.service(nbytes, is_write))

    def submit_page_write(self, now: int, nbytes: int, adjacent: bool) -> int:
        """A page write; right after its page's predecessor on a spinning disk, no seek."""
        if adjacent and self.k.device_rotational:
            bandwidth = self.k.device_write_bandwidth_mb_s
            return self.queue(
                now, nbytes, True, max(int(nbytes / (bandwidth * 1e6) * 1e6 + 0.5), 1)
            )
        return self.submit(now, nbytes, True)

    def queue(self, now: int, nbytes: int, is_write: bool, service: int) -> int:
        """An I/O occupying the device for `service` us (io._queue); returns its completion."""
        if is_write:
            start = max(now, self.dev_busy_write)
            if start == now:  # busy only with the neighbour's writeback, if at all
                start = self.behind_stream(start)
            self.dev_busy_write = start + service
        else:
            start = max(now, self.dev_busy_read)
            self.dev_busy_read = start + service
            self.dev_busy_write = max(self.dev_busy_write, now) + service
        if self.wb_end > now:
            self.wb_end += service
        lat = self.k.device_write_latency_us if is_write else self.k.device_read_latency_us
        done = start + service + int(lat + 0.5)
        self.count_io(now, done, is_write, nbytes, start, start + service)
        return done

    def dio_serialised(self) -> bool:
        """ext4 + O_DIRECT on kernels 4.9-5.5: direct reads and writes exclude each other."""
        fs, k = int(self.k.filesystem), self.k.linux_kernel
        if fs == S.FS_XFS or int(self.k.innodb_flush_method) < S.FM_O_DIRECT:
            return False
        if k < 409 or k >= 506:
            return False
        return not (fs == S.FS_EXT4_NOLOCK and k >= 505)

    def place_locks(self, now: int) -> None:
        """Page writes take the inode lock in order, each after the one before, up to `now`."""
        back = self.service(int(self.k.innodb_page_size), True)
        back += int(self.k.device_write_latency_us + 0.5)
        idx = max(self.lock_idx, self.writes_popped)
        self.lock_floor = 0
        while idx < self.writes_pushed:
            done, f = self.writes_in_flight[idx - self.writes_popped]
            ask = max(done - back, self.lock_last)  # its submitter waited for the last writer
            if ask > now:
                self.lock_floor = ask + back  # reads may still come before it
                break
            self.lock_last = max(ask, self.rd_done_max)
            self.writes_in_flight[idx - self.writes_popped] = (self.lock_last + back, f)
            idx += 1
        self.lock_idx = idx

    def write_done(self, pos: int) -> int:
        """Completion (us) of the pos-th write in flight; at least the floor if not yet placed."""
        done = self.writes_in_flight[pos][0]
        if self.writes_popped + pos >= self.lock_idx:
            return max(done, self.lock_floor)
        return done

    def read_data_page(self, now: int, nbytes: int) -> int:
        """A data-page read; page writes take the inode lock first when dio_serialised."""
        if not self.dio_serialised():
            return self.submit(now, nbytes, False)
        self.place_locks(now)
        t = max(now, self.lock_last)
        if t > now:
            self.count(now, S.C_DIO_WAIT, (t - now) / 1000.0)
        done = self.submit(t, nbytes, False)
        self.rd_done_max = max(self.rd_done_max, done)
        return done

    def submit_sync_write(self, now: int, nbytes: int) -> int:
        """A log or journal write: its own FIFO, pushing page writes back (io.submit_sync_write)."""
        service = self.service(nbytes, True)
        start = self.behind_stream(max(now, self.log_busy))
        self.log_busy = start + service
        if self.dev_busy_write > now:
            self.dev_busy_write += service  # pushes back only page writes queued at `now`
        if self.wb_end > now:
            self.wb_end += service
        done = start + service + int(self.k.device_write_latency_us + 0.5)
        self.count_io(now, done, True, nbytes, start, start + service)
        return done

    def log_flush(self, now: int, lsn: int) -> int:
        """Group commit: make the redo up to lsn durable; returns when it is (io.log_flush)."""
        if lsn <= self.log_flush_lsn:
            return max(now, self.log_flush_end)
        if now < self.log_flush_start:  # the next flush has not started: join its group
            self.log_flush_lsn = lsn
            return self.log_flush_end
        start = max(now, self.log_flush_end)
        nbytes = -(-(lsn - self.log_flush_lsn) // L.LOG_WRITE_ALIGN) * L.LOG_WRITE_ALIGN
        done = self.fsync(self.submit_sync_write(start, nbytes), L.FILE_LOG)
        self.count(start, S.C_LOG_WRITES)
        self.log_flush_lsn, self.log_flush_start, self.log_flush_end = lsn, start, done
        return done

    def buffered(self, kind: int) -> bool:
        """InnoDB writes file `kind` through the page cache (the manual's innodb_flush_method)."""
        if kind == L.FILE_LOG and self.is_mysql():
            return True
        return int(self.k.innodb_flush_method) in (S.FM_FSYNC, S.FM_O_DSYNC)

    def neighbour_accrue(self, now: int) -> None:
        if now > self.nb_last:
            self.nb_dirty += int(self.k.neighbour_write_mb_s * (now - self.nb_last) + 0.5)
            self.nb_last = now

    def writeback(self, now: int) -> int:
        """Append the neighbour's dirty bytes to the throttled writeback stream (io.writeback)."""
        nbytes, self.nb_dirty, self.jbd_last = self.nb_dirty, 0, now
        start = max(now, self.wb_end)
        lat = int(self.k.device_write_latency_us + 0.5)
        if nbytes == 0 and start == now:
            return now
        svc_full = self.service(L.WRITEBACK_CHUNK, True)
        while nbytes > 0:
            n = min(nbytes, L.WRITEBACK_CHUNK)
            svc = self.service(n, True)
            at = max(now, start - (L.WRITEBACK_QD - 1) * svc_full)
            done = start + svc + lat
            self.count_io(at, done, True, n, start, start + svc)
            self.count(done, S.C_NB_WKB, n / 1024.0)
            start += svc
            nbytes -= n
        self.wb_end = start
        return start + lat

    def periodic_commit(self, now: int) -> None:
        if self.k.neighbour_write_mb_s <= 0.0:
            return
        self.neighbour_accrue(now)
        if now - self.jbd_last >= L.JBD_COMMIT_US:
            self.writeback(now)

    def fsync(self, now: int, kind: int) -> int:
        method = int(self.k.innodb_flush_method)
        if kind == L.FILE_DATA and method == S.FM_O_DIRECT_NO_FSYNC:
            return now
        if kind == L.FILE_DBLWR and method >= S.FM_O_DIRECT and self.is_mysql():
            return now  # Double_write::is_fsync_required
        start = now
        if int(self.k.filesystem) != S.FS_XFS and self.buffered(kind):
            # ext4 data=ordered: the journal commit writes the neighbour's dirty data first
            self.neighbour_accrue(now)
            start = self.submit_sync_write(self.writeback(now), L.JOURNAL_BLOCK)
            self.count(now, S.C_JBD_FORCED)
        if self.k.device_interface == S.IF_SATA:
            # FLUSH CACHE is no NCQ command: it waits for the commands in flight at the drive
            busy = max(self.dev_busy_write, self.dev_busy_read)
            if busy > start:
                page = int(self.k.innodb_page_size)
                start = min(busy, start + L.NCQ_DEPTH * self.service(page, True))
        done = start + int(self.k.device_fsync_latency_us + 0.5)
        self.count(now, S.C_FSYNCS)
        self.count(now, S.C_FSYNC_LAT, done - now)
        return done
