"""Readable pure-Python twin of the numba kernel: same inputs, same outputs, exactly.

The kernel keeps its state in flat arrays for speed. This twin keeps it in plain objects: a
`Frame` per buffer-pool frame, doubly linked LRU lists of Frame objects, an insertion-ordered
dict as each flush list (oldest first), Python lists as free lists, and a deque of pending
writes. Method names follow the InnoDB functions they model, as in the kernel. The tests check
that both give identical per-second arrays on seeded scenarios, and `check_every_event=True`
checks the invariants of `invariants.check_state` after every event.

It is far slower than the kernel (about 100x) and meant for small scenarios.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from .. import schema as S
from . import layout as L
from .reference_mariadb import MariaDBMixin

M64 = (1 << 64) - 1
LSN_MAX = 1 << 62


def spread_row(j: int, rows: int, bits: int) -> int:
    """sim.spread_row: a fixed pseudo-random permutation of [0, rows) (cycle walking)."""
    mask = (1 << bits) - 1
    half = max(1, bits // 2)
    x = j
    while True:
        for _ in range(3):
            x = (x * L.SPREAD_KEY) & mask
            x ^= x >> half
        if x < rows:
            return x


class Knobs:
    """The knob vector with attribute access by server name (values stay floats, as in it)."""

    def __init__(self, vector: np.ndarray) -> None:
        self.vector = vector

    def __getattr__(self, name: str) -> float:
        return float(self.vector[S.KNOB_INDEX[name]])

    def set(self, index: int, value: float) -> None:
        self.vector[index] = value


@dataclass(eq=False)
class Frame:
    """One buffer-pool frame and the page it holds."""

    id: int
    instance: int
    page: int = L.NO_PAGE
    prev: Frame | None = None  # LRU: towards the head
    next: Frame | None = None  # LRU: towards the tail
    in_lru: bool = False
    old: bool = False
    io: int = L.IO_NONE
    access_ms: int = 0
    freed_clock: int = 0
    oldest_modification: int = 0
    io_latch: int = 0  # when the flushing thread latched the page for its write (us)


@dataclass(eq=False)
class Instance:
    """One buffer-pool instance: free list, LRU list (with LRU_old), flush list."""

    index: int
    size: int
    first_frame: int
    free: list[Frame] = field(default_factory=list)
    head: Frame | None = None
    tail: Frame | None = None
    lru_len: int = 0
    lru_old: Frame | None = None
    old_len: int = 0
    flush_list: dict[Frame, None] = field(default_factory=dict)  # oldest first
    freed_page_clock: int = 0
    pending_lru: int = 0
    pending_list: int = 0
    try_lru_scan: bool = True
    pending_done: int = 0
    lru_mutex: int = 0  # the LRU's mutex is held by a user thread's search until (us)
    lru_itr: Frame | None = None  # buf_pool.lru_scan_itr


class SplitMix64:
    """The kernel's random stream, with Python integers."""

    def __init__(self, seed: int) -> None:
        self.state = seed & M64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & M64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)

    def unit(self) -> float:
        return float(self.next() >> 11) * (1.0 / 9007199254740992.0)

    def below(self, n: int) -> int:
        return int(self.unit() * n)


class ReferenceSim(MariaDBMixin):
    """The whole simulation in plain Python objects (MariaDB parts in MariaDBMixin)."""

    def __init__(
        self,
        knobs,
        seconds,
        n_threads_max,
        table_pages,
        seed,
        zipf_cdf,
        scatter,
        timeline,
        check_every_event=False,
    ):
        self.k = Knobs(knobs.copy())
        if int(self.k.engine) not in L.ENGINES_HANDLED:  # engine.check_engine
            raise ValueError("the kernel has no code for the engine code in knobs[K_ENGINE]")
        self.seconds = seconds
        self.zipf_cdf = zipf_cdf
        self.scatter = scatter
        self.timeline = timeline
        self.check = check_every_event
        page = int(self.k.innodb_page_size)
        n_inst = int(self.k.innodb_buffer_pool_instances)
        size = int(self.k.innodb_buffer_pool_size) // page // n_inst
        self.frames = [Frame(f, f // size) for f in range(size * n_inst)]
        self.instances = [Instance(i, size, i * size) for i in range(n_inst)]
        for inst in self.instances:
            # the kernel pops the lowest frame first
            inst.free = [self.frames[inst.first_frame + size - 1 - k] for k in range(size)]
        self.page_frame: dict[int, Frame] = {}
        self.table_pages = table_pages
        self.out = np.zeros((seconds, S.N_COLS), dtype=np.float64)
        self.hist = np.zeros((seconds, S.HIST_BUCKETS), dtype=np.int64)
        self.writes_in_flight: deque[tuple[int, Frame]] = deque()  # (done us, frame)
        self.rng = SplitMix64(seed)
        # redo and activity
        self.lsn = S.LOG_START_LSN
        self.checkpoint_lsn = S.LOG_START_LSN
        self.activity = 0
        self.dev_busy_write = 0
        self.dev_busy_read = 0
        # the neighbour process and the journal (io.py)
        self.nb_last = 0
        self.nb_dirty = 0
        self.jbd_last = 0
        self.wb_end = 0  # the writeback stream occupies the device until (us)
        # ext4 O_DIRECT inode lock (io.read_data_page): ring indices are absolute counts
        self.writes_pushed = 0
        self.writes_popped = 0
        self.lock_idx = 0
        self.lock_last = 0
        self.rd_done_max = 0
        self.lock_floor = 0  # earliest completion of a write whose lock is not placed (0: none)
        self.sleep_until = 0  # a user thread sleeps until (us): a page's write, a free block
        self.free_k = 0  # with it, from get_free_block: 1 + the iteration to resume at
        self.held: Frame | None = None  # with it: the frame a single-page flush holds till then
        # redo log flushes (io.log_flush)
        self.log_flush_lsn = S.LOG_START_LSN
        self.log_flush_start = 0
        self.log_flush_end = 0
        self.log_busy = 0
        # page cleaner coordinator
        self.pc_disabled = self.k.innodb_page_cleaner_disabled_debug != 0
        self.pc_loop_start = -1_000_000
        self.pc_last_activity = 0
        self.pc_active = False
        self.pc_sync = False
        self.pc_last_pages = 0
        self.pc_round_end = 0
        self.af_init = False
        self.af_prev_lsn = 0
        self.af_prev_time = 0
        self.af_n_iter = 0
        self.af_sum_pages = 0
        self.page_avg_rate = 0.0
        self.lsn_avg_rate = 0.0
        # workload and threads
        self.n_threads_max = n_threads_max
        self.n_active = min(int(self.k.threads), n_threads_max)
        self.wl_running = True
        self.wl_done = False
        self.pace_base = 0  # trx_rate: start k of the shared schedule is at base + k * 1e9 / rate
        self.pace_k = 0
        self.pace_epoch = 0  # when the schedule last restarted (us)
        self.seq_cursor = int(self.k.seq_start_row)
        self.second = 0
        inf = L.INF_TIME
        self.times = [0 if e < self.n_active else inf for e in range(n_threads_max)]
        self.times.append(inf if self.pc_disabled else 0)  # the page cleaner is the last entity
        self.threads = [
            {
                "rows_left": 0,
                "rows_done": 0,
                "start": 0,
                "pending": None,
                "wrote": False,
                "commit_pending": False,
                "commit_lsn": 0,
                "slot": None,  # trx_rate: the start slot (us) it sleeps until
                "free_k": 0,  # 1 + the get_free_block iteration it sleeps in
                "held": None,  # the frame its single-page flush holds until it wakes
            }
            for _ in range(n_threads_max)
        ]
        self.thread_cpu = [0.0] * n_threads_max
        self.ma_init()

    # ------------------------------------------------------------------ engines (engine.py)
    def is_mysql(self) -> bool:
        return self.engine == S.ENG_MYSQL80

    def is_mariadb(self) -> bool:
        return self.engine in (S.ENG_MARIADB106, S.ENG_MARIADB1011)

    # ------------------------------------------------------------------ helpers
    def count(self, t: int, column: int, value: float = 1) -> None:
        s = t // 1_000_000
        if s < self.seconds:
            self.out[s, column] += value

    def spread(self, column: int, a: int, b: int, unit_us: float) -> None:
        """The time from a to b (us), in units of `unit_us`, each second its share (io.spread)."""
        s = a // 1_000_000
        while a < b and s < self.seconds:
            edge = min(b, (s + 1) * 1_000_000)
            self.out[s, column] += (edge - a) / unit_us
            a, s = edge, s + 1

    def count_wait(self, column: int, a: int, b: int) -> None:
        """A thread's wait from a to b (us), in ms, shared among the seconds it spans."""
        self.spread(column, a, b, 1000.0)

    def old_ratio(self) -> int:
        return int(self.k.innodb_old_blocks_pct) * L.BUF_LRU_OLD_RATIO_DIV // 100

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
        service = self.service(nbytes, is_write)
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

    # ------------------------------------------------------------------ LRU list (buf0lru.cc)
    def buf_LRU_old_adjust_len(self, inst: Instance) -> None:
        length = inst.lru_len
        new_len = min(
            length * self.old_ratio() // L.BUF_LRU_OLD_RATIO_DIV,
            length - (L.BUF_LRU_OLD_TOLERANCE + L.BUF_LRU_NON_OLD_MIN_LEN),
        )
        while True:
            if inst.old_len + L.BUF_LRU_OLD_TOLERANCE < new_len:
                inst.lru_old = inst.lru_old.prev
                inst.old_len += 1
                inst.lru_old.old = True
            elif inst.old_len > new_len + L.BUF_LRU_OLD_TOLERANCE:
                inst.lru_old.old = False
                inst.lru_old = inst.lru_old.next
                inst.old_len -= 1
            else:
                return

    def buf_LRU_old_init(self, inst: Instance) -> None:
        f = inst.head
        while f is not None:
            f.old = True
            f = f.next
        inst.lru_old = inst.head
        inst.old_len = inst.lru_len
        self.buf_LRU_old_adjust_len(inst)

    def buf_LRU_add_block(self, inst: Instance, f: Frame, old: bool) -> None:
        if not old or inst.lru_len < L.BUF_LRU_OLD_MIN_LEN:
            f.prev, f.next = None, inst.head
            if inst.head is not None:
                inst.head.prev = f
            else:
                inst.tail = f
            inst.head = f
            f.freed_clock = inst.freed_page_clock
        else:
            at = inst.lru_old
            f.prev, f.next = at, at.next
            if at.next is not None:
                at.next.prev = f
            else:
                inst.tail = f
            at.next = f
            inst.old_len += 1
        inst.lru_len += 1
        f.in_lru = True
        if inst.lru_len > L.BUF_LRU_OLD_MIN_LEN:
            f.old = old
            self.buf_LRU_old_adjust_len(inst)
        elif inst.lru_len == L.BUF_LRU_OLD_MIN_LEN:
            self.buf_LRU_old_init(inst)
        else:
            f.old = inst.lru_old is not None

    def buf_LRU_remove_block(self, inst: Instance, f: Frame) -> None:
        if f is inst.lru_itr:
            inst.lru_itr = f.prev  # LRUHp::adjust
        if f is inst.lru_old:
            inst.lru_old = f.prev
            inst.lru_old.old = True
            inst.old_len += 1
        if f.prev is not None:
            f.prev.next = f.next
        else:
            inst.head = f.next
        if f.next is not None:
            f.next.prev = f.prev
        else:
            inst.tail = f.prev
        f.prev = f.next = None
        f.in_lru = False
        inst.lru_len -= 1
        was_old, f.old = f.old, False
        if inst.lru_len < L.BUF_LRU_OLD_MIN_LEN:
            g = inst.head
            while g is not None:
                g.old = False
                g = g.next
            inst.lru_old = None
            inst.old_len = 0
            return
        if was_old:
            inst.old_len -= 1
        self.buf_LRU_old_adjust_len(inst)

    def buf_LRU_make_block_young(self, inst: Instance, f: Frame) -> None:
        self.buf_LRU_remove_block(inst, f)
        self.buf_LRU_add_block(inst, f, old=False)

    def buf_page_peek_if_too_old(self, inst: Instance, f: Frame, now_ms: int) -> int:
        """1: make young; 0: leave it; -1: leave it and count it as not made young."""
        if inst.freed_page_clock == 0:
            return 0
        old_time = int(self.k.innodb_old_blocks_time)
        if old_time > 0 and f.old:
            if f.access_ms > 0 and now_ms - f.access_ms >= old_time:
                return 1
            return -1
        young_limit = f.freed_clock + inst.size * (L.BUF_LRU_OLD_RATIO_DIV - self.old_ratio()) // (
            L.BUF_LRU_OLD_RATIO_DIV * 4
        )
        return 0 if (inst.freed_page_clock & 0x7FFFFFFF) < young_limit else 1

    def buf_LRU_free_page(self, inst: Instance, f: Frame) -> None:
        self.buf_LRU_remove_block(inst, f)
        del self.page_frame[f.page]
        f.page = L.NO_PAGE
        f.access_ms = 0
        f.freed_clock = 0
        inst.freed_page_clock += 1
        inst.free.append(f)

    @staticmethod
    def replaceable(f: Frame) -> bool:
        return f.oldest_modification == 0 and f.io == L.IO_NONE

    # ------------------------------------------------------------------ flush list
    def buf_flush_insert_into_flush_list(self, inst: Instance, f: Frame, lsn: int) -> None:
        f.oldest_modification = lsn
        inst.flush_list[f] = None

    def buf_flush_remove(self, inst: Instance, f: Frame) -> None:
        del inst.flush_list[f]
        f.oldest_modification = 0

    def oldest_modification(self) -> int:
        oldest = [
            next(iter(i.flush_list)).oldest_modification for i in self.instances if i.flush_list
        ]
        return min(oldest) if oldest else 0

    def checkpoint(self) -> None:
        oldest = self.oldest_modification()
        self.checkpoint_lsn = max(self.checkpoint_lsn, oldest if oldest > 0 else self.lsn)

    # ------------------------------------------------------------------ writes
    def buf_page_write_complete(self, f: Frame) -> None:
        inst = self.instances[f.instance]
        kind, f.io = f.io, L.IO_NONE
        self.buf_flush_remove(inst, f)
        if kind == L.IO_LRU:
            inst.pending_lru -= 1
            if f.in_lru:
                self.buf_LRU_free_page(inst, f)
        elif kind == L.IO_MA_LRU:
            inst.pending_lru -= 1  # MariaDB 10.11: clean, stays in the LRU
        else:
            inst.pending_list -= 1

    def complete_writes(self, t: int) -> None:
        if self.dio_serialised():
            self.place_locks(t)
        while self.writes_in_flight and self.write_done(0) <= t:
            _, f = self.writes_in_flight.popleft()
            self.writes_popped += 1
            self.buf_page_write_complete(f)

    def dispatch(self, inst: Instance, batch: list[Frame], kind: int, t: int) -> int:
        """Write a batch through the doublewrite buffer; return when the cleaner is free."""
        page = int(self.k.innodb_page_size)
        dblwr = int(self.k.innodb_doublewrite)
        chunk = int(self.k.innodb_doublewrite_pages)
        cursor = t
        for k in range(0, len(batch), chunk):
            part = batch[k : k + chunk]
            start = cursor
            latch = max(cursor, self.dev_busy_write)  # when the write FIFO reaches the chunk
            if dblwr != 0:
                nbytes = len(part) * page if dblwr == 1 else 4096  # DETECT_ONLY: metadata
                start = self.fsync(self.submit(cursor, nbytes, True), L.FILE_DBLWR)
                self.count(t, S.C_DBLWR_PAGES, len(part))
                self.count(t, S.C_DBLWR_WRITES)
            last = start
            for f in part:
                done = self.submit(start, page, True)
                f.io_latch = latch
                self.writes_in_flight.append((done, f))
                self.writes_pushed += 1
                last = done
            inst.pending_done = max(inst.pending_done, last)
            if kind in (L.IO_LRU, L.IO_MA_LRU):
                inst.pending_lru += len(part)
            else:
                inst.pending_list += len(part)
            if dblwr != 0:
                cursor = start
        return cursor + L.PC_PAGE_US * len(batch)

    # ------------------------------------------------------------------ page cleaner batches
    def buf_flush_LRU_list(self, inst: Instance, t: int) -> tuple[int, int]:
        """One LRU batch: not limited by io_capacity. Returns (pages written, free-at time)."""
        if inst.pending_lru > 0:
            return 0, t
        depth = int(self.k.innodb_lru_scan_depth)
        scan_depth = min(depth, inst.lru_len)
        batch: list[Frame] = []
        evicted = scanned = 0
        f = inst.tail
        while (
            f is not None
            and len(batch) + evicted < scan_depth
            and len(inst.free) < depth
            and inst.lru_len > 256
        ):
            prev = f.prev
            if self.replaceable(f):
                self.buf_LRU_free_page(inst, f)
                evicted += 1
            elif f.io == L.IO_NONE:
                f.io = L.IO_LRU
                batch.append(f)
            scanned += 1
            f = prev
        free_at = self.dispatch(inst, batch, L.IO_LRU, t) if batch else t
        inst.try_lru_scan = True
        self.count(t, S.C_LRU_EVICT, evicted)
        self.count(t, S.C_LRU_SCANNED, scanned)
        return len(batch), free_at

    def buf_do_flush_list_batch(
        self, inst: Instance, n: int, lsn_limit: int, t: int
    ) -> tuple[int, int]:
        if n <= 0 or inst.pending_list > 0:
            return 0, t
        batch = []
        for f in list(inst.flush_list):
            if len(batch) >= n or f.oldest_modification >= lsn_limit:
                break
            if f.io == L.IO_NONE:
                f.io = L.IO_LIST
                batch.append(f)
        if not batch:
            return 0, t
        free_at = self.dispatch(inst, batch, L.IO_LIST, t)
        self.count(t, S.C_BATCH, len(batch))
        return len(batch), free_at

    # ------------------------------------------------------------------ adaptive flushing
    def redo_limits(self) -> tuple[int, int, int, int, int, int]:
        """log_files_capacity_get_limits: soft, async, sync, free-check, dirty-age, margin."""
        cap = int(self.k.innodb_redo_log_capacity)
        page = int(self.k.innodb_page_size)
        file_size = cap // 32
        hard = cap * 30 // 32 - (31 * 2048 + 2 * 65536) - (file_size + 9) // 10
        hard = hard // 512 * 512
        soft = hard * 95 // 100
        age_async = soft - soft // 8
        age_sync = soft - soft // 16
        margin = 4 * page * (int(self.k.innodb_thread_concurrency) + 10) + 4096 + soft * 5 // 100
        margin = min(margin, soft // 2)
        return soft, age_async, age_sync, soft - margin, age_async - margin, margin

    def get_pct_for_dirty(self) -> int:
        dirty = sum(len(i.flush_list) for i in self.instances)
        rest = 1 + sum(i.lru_len + len(i.free) for i in self.instances)
        dirty_pct = (dirty * 100) / rest
        if dirty_pct == 0.0:
            return 0
        lwm = self.k.innodb_max_dirty_pages_pct_lwm
        max_dirty = self.k.innodb_max_dirty_pages_pct
        if lwm == 0.0:
            if dirty_pct >= max_dirty:
                return 100
        elif dirty_pct >= lwm:
            return int((dirty_pct * 100) / (max_dirty + 1))
        return 0

    def get_pct_for_lsn(self, age: int) -> int:
        _, _, _, free_check, dirty_age, _ = self.redo_limits()
        if age < int(self.k.innodb_adaptive_flushing_lwm * free_check / 100):
            return 0
        if age < dirty_age and self.k.innodb_adaptive_flushing == 0:
            return 0
        factor = (age * 100.0) / dirty_age
        ratio = int(self.k.innodb_io_capacity_max) // int(self.k.innodb_io_capacity)
        if self.k.innodb_cleaner_lsn_age_factor == S.LAF_HIGH_CHECKPOINT:  # Percona Server
            return int((ratio * (factor * factor * math.sqrt(factor))) / 700.5)
        return int((ratio * (factor * math.sqrt(factor))) / 7.5)

    def page_recommendation(
        self, slots: list[int], last_pages: int, sync: bool, lsn_limit: int, t: int
    ) -> int:
        n_inst = len(self.instances)
        slots[:] = [0] * n_inst
        cur_lsn = self.lsn
        if not self.af_init:
            self.af_init = True
            self.af_prev_lsn, self.af_prev_time = cur_lsn, t
            return 0
        skip = self.af_prev_lsn == cur_lsn and not sync
        self.af_n_iter += 1
        self.af_sum_pages += last_pages
        elapsed = max(1, (t - self.af_prev_time) // 1_000_000)
        loops = int(self.k.innodb_flushing_avg_loops)
        if self.af_n_iter >= loops or elapsed >= loops:
            self.page_avg_rate = float(int((self.af_sum_pages / elapsed + self.page_avg_rate) / 2))
            lsn_rate = (cur_lsn - self.af_prev_lsn) // elapsed
            self.lsn_avg_rate = float((int(self.lsn_avg_rate) + lsn_rate) // 2)
            self.af_n_iter = self.af_sum_pages = 0
            self.af_prev_lsn, self.af_prev_time = cur_lsn, t
        oldest = self.oldest_modification()
        age = cur_lsn - oldest if oldest > 0 else 0
        p_dirty = self.get_pct_for_dirty()
        p_lsn = self.get_pct_for_lsn(age)
        ioc = int(self.k.innodb_io_capacity)
        iocmax = int(self.k.innodb_io_capacity_max)
        target, sf = (lsn_limit, 1) if sync else (oldest + 3 * int(self.lsn_avg_rate), 3)
        sum_max = 2 * iocmax
        cap = (sum_max // n_inst) * sf * 2
        total = 0
        for i, inst in enumerate(self.instances):
            c = 0
            for f in inst.flush_list:
                if c >= cap or f.oldest_modification > target:
                    break
                c += 1
            slots[i] = c // sf + 1
            total += c
        s_all = max(1, total // sf)
        pages_for_lsn = min(s_all, sum_max)
        if sync:
            n = max(pages_for_lsn, ioc)
        else:
            n = min(
                (ioc * max(p_dirty, p_lsn) // 100 + int(self.page_avg_rate) + pages_for_lsn) // 3,
                iocmax,
            )
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
        if s < self.seconds:
            self.out[s, S.C_N_REQ] = n
            self.out[s, S.C_PCT_DIRTY] = p_dirty
            self.out[s, S.C_PCT_LSN] = p_lsn
            self.out[s, S.C_AVG_PAGE] = self.page_avg_rate
            self.out[s, S.C_AVG_LSN] = self.lsn_avg_rate
        return n

    def log_sync_flush_lsn(self) -> int:
        oldest = self.oldest_modification()
        if oldest == 0:
            return 0
        _, _, age_sync, _, _, margin = self.redo_limits()
        if self.lsn + margin - oldest <= age_sync:
            return 0
        up_to = min(self.lsn + margin - age_sync, self.lsn)
        return up_to if up_to > oldest else 0

    def buf_flush_page_coordinator_round(self, t: int) -> int:
        """One coordinator iteration at t; returns the time of the next one."""
        n_inst = len(self.instances)
        timed_out = t >= self.pc_loop_start + 1_000_000
        if timed_out:
            self.pc_loop_start = t
            self.pc_active = self.activity != self.pc_last_activity
            self.pc_last_activity = self.activity
        lsn_limit, sync = LSN_MAX, False
        if self.k.innodb_flush_sync != 0:
            up_to = self.log_sync_flush_lsn()
            if up_to != 0:
                sync = True
                lsn_limit = up_to + int(self.lsn_avg_rate) * 3
        n_threads = min(int(self.k.innodb_page_cleaners), n_inst)
        clocks = [t] * n_threads
        slots = [0] * n_inst
        n_lru = n_list = 0
        if sync or self.pc_active:
            n = 0
            if sync or timed_out:
                n = self.page_recommendation(
                    slots, self.pc_last_pages, sync, lsn_limit if sync else LSN_MAX, t
                )
            if n == 0:
                slots = [0] * n_inst
            for i, inst in enumerate(self.instances):
                j = i % n_threads
                flushed, clocks[j] = self.buf_flush_LRU_list(inst, clocks[j])
                n_lru += flushed
                flushed, clocks[j] = self.buf_do_flush_list_batch(
                    inst, slots[i], lsn_limit if sync else LSN_MAX, clocks[j]
                )
                n_list += flushed
            if sync:
                self.count(t, S.C_SYNC, n_lru + n_list)
            else:
                self.count(t, S.C_LRU_FLUSH, n_lru)
                self.count(t, S.C_ADAPTIVE, n_list)
            if timed_out:
                self.pc_last_pages = n_list
        elif timed_out and self.k.innodb_idle_flush_pct > 0:
            n_idle = int(self.k.innodb_io_capacity * (self.k.innodb_idle_flush_pct / 100.0))
            per = (n_idle + n_inst - 1) // n_inst
            for i, inst in enumerate(self.instances):
                j = i % n_threads
                flushed, clocks[j] = self.buf_do_flush_list_batch(inst, per, LSN_MAX, clocks[j])
                n_list += flushed
            self.count(t, S.C_BACKGROUND, n_list)
        self.pc_sync = sync
        self.count(t, S.C_PC_ROUNDS)
        end = max([t + L.PC_ROUND_BASE_US] + [c + L.PC_ROUND_BASE_US for c in clocks])
        self.pc_round_end = end
        self.checkpoint()
        if sync:
            if n_lru + n_list == 0 and self.writes_in_flight:
                d = self.write_done(0)
                if d > end:
                    return d
            return end
        return max(end, self.pc_loop_start + 1_000_000)

    # ------------------------------------------------------------------ user threads
    def draw_row(self) -> int:
        wl = S.WORKLOADS[int(self.k.workload)]
        rows = int(self.k.table_rows)
        if wl == "uniform":
            return self.rng.below(rows)
        if wl == "zipf":
            u = self.rng.unit()
            rank = int(np.searchsorted(self.zipf_cdf[:-1], u, side="right"))
            return (rank * (self.scatter >> S.SCATTER_SHIFT)) % rows
        if wl == "hotset":
            if self.rng.unit() * 100.0 < self.k.hot_pct:
                hot = min(int(self.k.hot_rows), rows)
                return spread_row(self.rng.below(hot), rows, self.scatter & S.SCATTER_BITS_MASK)
            return self.rng.below(rows)
        end = int(self.k.seq_end_row)
        end = rows if end == 0 or end > rows else end
        if self.seq_cursor >= end:
            self.wl_done = True
            return -1
        self.seq_cursor += 1
        return self.seq_cursor - 1

    def draw_is_write(self) -> bool:
        wp = self.k.write_pct
        if wp >= 100.0:
            return True
        if wp <= 0.0:
            return False
        return self.rng.unit() * 100.0 < wp

    def signal_cleaner(self, t: int, force: bool) -> None:
        if self.pc_disabled or (not self.pc_active and not self.pc_sync and not force):
            return
        cleaner = len(self.times) - 1
        self.times[cleaner] = min(self.times[cleaner], max(t, self.pc_round_end))

    def buf_LRU_scan_and_free_block(self, inst: Instance, scan_all: bool) -> tuple[bool, int]:
        """From lru_scan_itr if it is in the young part (LRUItr::start), else from the tail."""
        f = inst.lru_itr
        if f is None or f.old:
            f = inst.tail
        scanned = 0
        while f is not None and (scan_all or scanned < L.BUF_LRU_SEARCH_SCAN_THRESHOLD):
            prev = f.prev
            if self.replaceable(f):
                inst.lru_itr = prev
                self.buf_LRU_free_page(inst, f)
                return True, scanned
            scanned += 1
            f = prev
        inst.lru_itr = f
        return False, scanned

    def lru_search(self, inst: Instance, scan_all: bool, t: int) -> tuple[bool, int]:
        """A user thread's search from t, holding the LRU's mutex LRU_SCAN_NS a page examined."""
        found, scanned = self.buf_LRU_scan_and_free_block(inst, scan_all)
        examined = scanned + 1 if found else scanned
        t += (examined * L.LRU_SCAN_NS + 999) // 1000
        inst.lru_mutex = t
        self.count(t, S.C_SEARCH_SCANNED, scanned)
        return found, t

    def buf_flush_single_page_from_LRU(
        self, inst: Instance, t: int
    ) -> tuple[bool, int, Frame | None]:
        """(freed or written, when its I/O is done, the written frame: io-fixed until then)."""
        page = int(self.k.innodb_page_size)
        f = inst.tail
        while f is not None:
            if self.replaceable(f):
                self.buf_LRU_free_page(inst, f)
                return True, t, None
            if f.io == L.IO_NONE:
                f.io, f.io_latch = L.IO_SINGLE, t
                if int(self.k.innodb_doublewrite) != 0:
                    t = self.fsync(self.submit(t, page, True), L.FILE_DBLWR)
                t = self.fsync(self.submit(t, page, True), L.FILE_DATA)
                self.count(t, S.C_SINGLE)
                return True, t, f
            f = f.prev
        return False, t, None

    def single_flush_done(self, f: Frame) -> None:
        """A thread's single-page flush of f is done: the page is clean, its frame free."""
        inst = self.instances[f.instance]
        f.io = L.IO_NONE
        self.buf_flush_remove(inst, f)
        self.buf_LRU_free_page(inst, f)

    def buf_LRU_get_free_block(
        self, inst: Instance, t: int, resume: int = 0
    ) -> tuple[Frame | None, int]:
        """None with sleep_until set: sleep 10 ms, then call again with resume = self.free_k."""
        if self.is_mariadb():
            return self.buf_LRU_get_free_block_mariadb(t, resume)
        t0 = t
        # resume > 0: back from the 10 ms sleep, the single-page flush first; resume < 0: back
        # from a single-page flush's I/O, at the next iteration
        k = resume - 1 if resume > 0 else 0
        if resume < 0:
            k = -resume - 1  # thread_step freed the frame
        woke = resume > 0
        while k < L.FREE_BLOCK_MAX_ITERATIONS:
            if not woke:
                if inst.free:
                    self.count_wait(S.C_FREE_WAIT_MS, t0, t)
                    return inst.free.pop(), t
                freed = False
                if inst.try_lru_scan or k > 0:
                    freed, t = self.lru_search(inst, k > 0, t)
                    if not freed and k == 0:
                        inst.try_lru_scan = False
                if freed:
                    continue
                self.signal_cleaner(t, False)
                if k > 1:
                    self.count(t, S.C_FREE_WAITS)
                    self.count_wait(S.C_FREE_WAIT_MS, t0, t + L.FREE_WAIT_SLEEP_US)
                    self.sleep_until, self.free_k = t + L.FREE_WAIT_SLEEP_US, k + 1
                    return None, t
            woke = False
            before = t
            ok, t, held = self.buf_flush_single_page_from_LRU(inst, t)
            if not ok:
                self.count(t, S.C_SINGLE_FAIL)
            self.count(t, S.C_WAIT_FREE)
            k += 1
            if held is not None:
                # synchronous I/O: sleep until it is done, then free the frame and go on
                self.count_wait(S.C_FREE_WAIT_MS, t0, t)
                self.sleep_until, self.free_k, self.held = t, -(1 + k), held
                return None, before
        return None, t

    def buf_page_get(self, page: int, is_write: bool, t: int, resume: int = 0) -> int:
        """One row access; returns when the thread continues, or -1 (sleep: sleep_until).

        -1 with neither set: no frame was found; `resume` continues get_free_block's sleep.
        """
        inst = self.instances[(page >> 6) % len(self.instances)]
        self.count(t, S.C_READ_REQ)
        while True:
            f = self.page_frame.get(page)
            if f is None:
                f, t = self.buf_LRU_get_free_block(inst, t, resume)
                if f is None:
                    return -1
                t = self.read_data_page(t, int(self.k.innodb_page_size))
                f.page = page
                self.page_frame[page] = f
                self.buf_LRU_add_block(inst, f, old=True)
                f.access_ms = max(1, t // 1000)
                self.count(t, S.C_READS)
                if self.buf_page_peek_if_too_old(inst, f, t // 1000) == -1:
                    self.count(t, S.C_NOT_YOUNG)
                break
            if is_write and f.io != L.IO_NONE and f.io_latch <= t:
                # the page is latched for its write: the thread sleeps until it completes
                if f.io == L.IO_SINGLE:  # another thread's single-page flush: poll
                    self.sleep_until = t + L.SINGLE_FLUSH_POLL_US
                    return -1
                d = next(
                    (
                        self.write_done(k)
                        for k, (_, g) in enumerate(self.writes_in_flight)
                        if g is f
                    ),
                    -1,
                )
                if d > t:
                    self.sleep_until = d
                    return -1
                if d >= 0:
                    self.complete_writes(t)
                    continue
            if f.access_ms == 0:
                f.access_ms = max(1, t // 1000)
            verdict = self.buf_page_peek_if_too_old(inst, f, t // 1000)
            if verdict == 1:
                was_old = f.old
                self.buf_LRU_make_block_young(inst, f)
                if was_old:
                    self.count(t, S.C_YOUNG)
            elif verdict == -1:
                self.count(t, S.C_NOT_YOUNG)
            break
        if is_write:
            if f.oldest_modification == 0:
                self.buf_flush_insert_into_flush_list(inst, f, self.lsn)
            self.lsn += int(self.k.redo_bytes_per_change)
            self.count(t, S.C_DML_UPDATES)
        self.count(t, S.C_DML_READS)  # an UPDATE reads its row first: both servers count it
        return t

    def thread_step(self, e: int, t: int) -> int:
        """Run thread e's transaction until it commits or must touch the device."""
        th = self.threads[e]
        if th["held"] is not None:
            # back from its single-page flush's I/O: the page is clean, its frame free
            self.single_flush_done(th["held"])
            th["held"] = None
        if th["commit_pending"]:
            return self.finish_commit(e, t)
        if th["rows_left"] == 0:
            if self.k.trx_rate > 0:
                if th["slot"] is None or th["slot"] < self.pace_epoch:
                    th["slot"] = self.pace_claim(t)
                if th["slot"] > t:
                    return th["slot"]
                th["slot"] = None
            if self.is_mariadb():
                wait = self.ma_log_free_check(t)
                if wait > 0:
                    return wait
                free_check = L.INF_TIME
            else:
                free_check = self.redo_limits()[3]
            if self.lsn - self.checkpoint_lsn > free_check:
                self.checkpoint()
                if self.lsn - self.checkpoint_lsn > free_check:
                    self.signal_cleaner(t, True)
                    self.count(t, S.C_REDO_WAIT, L.REDO_WAIT_POLL_US / 1000.0)
                    return t + L.REDO_WAIT_POLL_US
            th.update(rows_left=int(self.k.rows_per_trx), rows_done=0, start=t)
        local = t
        while th["rows_left"] > 0:
            if th["pending"] is not None:
                page, is_write = th["pending"]
                th["pending"] = None
            else:
                row = self.draw_row()
                if row < 0:
                    th["rows_left"] = 0
                    break
                is_write = self.draw_is_write()
                page = row // int(self.k.rows_per_page)
            if local > t:
                f = self.page_frame.get(page)
                if f is None or (is_write and f.io != L.IO_NONE):
                    th["pending"] = (page, is_write)  # touch the device in time order
                    return local
            local = self.buf_page_get(page, is_write, local, th["free_k"])
            if local < 0:
                if self.sleep_until > 0:
                    # the access began at t; its read request counts when the row is retried
                    w, self.sleep_until = self.sleep_until, 0
                    th["free_k"], self.free_k = self.free_k, 0
                    th["held"], self.held = self.held, None
                    th["pending"] = (page, is_write)
                    self.count(t, S.C_READ_REQ, -1)
                    return w
                th.update(rows_left=0, rows_done=0, free_k=0)
                return t + L.REDO_WAIT_POLL_US
            th["free_k"] = 0
            if is_write:
                th["wrote"] = True
            self.thread_cpu[e] += self.k.cpu_us_per_row
            step = int(self.thread_cpu[e])
            self.thread_cpu[e] -= step
            local += step
            th["rows_left"] -= 1
            th["rows_done"] += 1
        if th["rows_done"] > 0:
            self.activity += 1
            if self.is_mariadb():
                self.ma_after_commit(local)
            th["commit_lsn"] = self.lsn
            if local > t and th["wrote"] and int(self.k.innodb_flush_log_at_trx_commit) in (1, 3):
                th["commit_pending"] = True  # the log write is I/O: wait for the clock
                return local
            return self.finish_commit(e, local)
        return local + int(self.k.think_time_us)

    def pace_next(self, rate: float) -> int:
        return self.pace_base + int(math.ceil(self.pace_k * (1e9 / rate) - 1e-3))

    def pace_claim(self, t: int) -> int:
        """trx_rate: the next start slot (us) of the shared schedule; 1 s of catch-up at most."""
        nxt = self.pace_next(self.k.trx_rate)
        late = (t - 1_000_000) * 1000
        if nxt < late:
            self.pace_base, self.pace_k, nxt = late, 0, late
        self.pace_k += 1
        return nxt // 1000

    def pace_restart(self, t: int, keep_backlog: bool) -> None:
        """The schedule starts again at t (missed starts stay owed with `keep_backlog`)."""
        start = t * 1000
        if keep_backlog and self.k.trx_rate > 0:
            start = min(start, self.pace_next(self.k.trx_rate))
        self.pace_base, self.pace_k, self.pace_epoch = start, 0, t
        for e, th in enumerate(self.threads):
            if th["slot"] is not None and self.times[e] != L.INF_TIME:
                th["slot"] = None
                self.times[e] = t

    def finish_commit(self, e: int, t: int) -> int:
        """The commit at t: the redo flush (trx_commit = 1), then the trx counts."""
        th = self.threads[e]
        done = t
        if th["wrote"] and int(self.k.innodb_flush_log_at_trx_commit) in (1, 3):
            done = self.log_flush(t, th["commit_lsn"])
            if done > t:
                self.count(t, S.C_COMMIT_WAIT, (done - t) / 1000.0)
        wrote = th["wrote"]
        th.update(wrote=False, commit_pending=False)
        self.count(done, S.C_TPS)
        if wrote:
            self.count(done, S.C_TRX_RW)
        s = done // 1_000_000
        if s < self.seconds:
            self.hist[s, latency_bucket(done - th["start"])] += 1
        return done + int(self.k.think_time_us)

    # ------------------------------------------------------------------ the loop
    def sample_second(self, s: int) -> None:
        if s >= self.seconds:
            return
        if self.is_mysql():
            _, age_async, age_sync, _, _, _ = self.redo_limits()
        else:
            _, age_async, age_sync = self.ma_redo_limits()
        o = self.out[s]
        o[S.C_TIME] = s + 1
        o[S.C_TOTAL] = len(self.frames)
        o[S.C_FREE] = sum(len(i.free) for i in self.instances)
        o[S.C_DATA] = sum(i.lru_len for i in self.instances)
        o[S.C_DIRTY] = sum(len(i.flush_list) for i in self.instances)
        o[S.C_OLD] = sum(i.old_len for i in self.instances)
        o[S.C_LSN] = self.lsn
        o[S.C_CKPT] = self.checkpoint_lsn
        o[S.C_CKPT_AGE] = self.lsn - self.checkpoint_lsn
        o[S.C_AGE_ASYNC] = age_async
        o[S.C_AGE_SYNC] = age_sync

    def advance(self, t: int) -> None:
        """Write completions and second boundaries up to t, in time order."""
        while True:
            boundary = (self.second + 1) * 1_000_000
            if self.writes_in_flight and self.write_done(0) <= min(t, boundary - 1):
                self.complete_writes(min(t, boundary - 1))
            elif boundary <= t:
                self.periodic_commit(boundary)
                if self.lsn > self.log_flush_lsn:
                    self.log_flush(boundary, self.lsn)
                if self.is_mysql():
                    self.checkpoint()
                self.sample_second(self.second)
                self.second += 1
            else:
                return

    def wake_threads(self, t: int) -> None:
        for e in range(self.n_threads_max):
            target = t if (e < self.n_active and self.wl_running) else L.INF_TIME
            if target == L.INF_TIME and self.threads[e]["held"] is not None:
                continue  # it wakes when its single-page flush is done, to free the frame
            if target == L.INF_TIME or self.times[e] == L.INF_TIME:
                self.times[e] = target

    def apply_event(self, kind: int, knob: int, value: float, t: int) -> None:
        cleaner = len(self.times) - 1
        if kind == S.TL_SET:
            if knob in (S.K_TRX_RATE, S.K_THREADS):
                self.pace_restart(t, True)
            self.k.set(knob, value)
            if knob == S.K_PC_DISABLED:
                if value != 0:
                    self.pc_disabled = True
                    self.times[cleaner] = L.INF_TIME
                elif self.pc_disabled:
                    self.pc_disabled = False
                    self.pc_loop_start = t - 1_000_000
                    self.times[cleaner] = t
            elif knob == S.K_THREADS:
                self.n_active = min(int(value), self.n_threads_max)
                self.wake_threads(t)
            elif knob in (S.K_WORKLOAD, S.K_SEQ_START, S.K_SEQ_END):
                self.seq_cursor = int(self.k.seq_start_row)
                self.wl_done = False
                self.wake_threads(t)
        elif kind == S.TL_WORKLOAD_STOP:
            self.wl_running = False
            self.wake_threads(t)
        elif kind == S.TL_WORKLOAD_START:
            self.pace_restart(t, False)
            self.wl_running = True
            self.seq_cursor = int(self.k.seq_start_row)
            self.wl_done = False
            self.wake_threads(t)

    def run(self) -> tuple[np.ndarray, np.ndarray]:
        from .invariants import check_state

        end = self.seconds * 1_000_000
        tl_time, tl_kind, tl_knob, tl_value = self.timeline
        k = 0
        cleaner = len(self.times) - 1
        while True:
            e = min(range(len(self.times)), key=lambda x: (self.times[x], x))
            t = self.times[e]
            if k < len(tl_time) and tl_time[k] <= t and tl_time[k] < end:
                self.advance(int(tl_time[k]))
                self.apply_event(
                    int(tl_kind[k]), int(tl_knob[k]), float(tl_value[k]), int(tl_time[k])
                )
                k += 1
                continue
            if t >= end:
                break
            self.advance(t)
            if e == cleaner and self.is_mariadb():
                nxt = self.buf_flush_page_cleaner_round(t)
                self.times[e] = max(nxt, t + 1) if nxt < L.INF_TIME else L.INF_TIME
            elif e == cleaner:
                nxt = self.buf_flush_page_coordinator_round(t)
                self.times[e] = L.INF_TIME if self.pc_disabled else max(nxt, t + 1)
            elif (
                not self.wl_running
                or e >= self.n_active
                or (self.wl_done and self.threads[e]["rows_left"] == 0)
            ):
                self.threads[e]["rows_left"] = 0
                self.threads[e]["pending"] = None
                if self.threads[e]["held"] is not None:
                    self.single_flush_done(self.threads[e]["held"])
                    self.threads[e]["held"] = None
                self.threads[e]["free_k"] = 0
                self.times[e] = L.INF_TIME
            else:
                self.times[e] = max(self.thread_step(e, t), t + 1)
            if self.check:
                check_state(self)
        self.advance(end)
        return self.out, self.hist


def latency_bucket(us: int) -> int:
    """Histogram bucket of a latency in us: 8 buckets per power of two."""
    if us < 8:
        return max(us, 0)
    msb = us.bit_length() - 1
    return min(msb * 8 + ((us >> (msb - 3)) & 7), S.HIST_BUCKETS - 1)


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
    check_every_event=False,
):
    """Same signature and result as `sim.simulate_kernel`."""
    sim = ReferenceSim(
        knobs,
        seconds,
        n_threads_max,
        table_pages,
        seed,
        zipf_cdf,
        scatter,
        (tl_time, tl_kind, tl_knob, tl_value),
        check_every_event,
    )
    return sim.run()
