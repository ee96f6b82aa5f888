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

import copy
from collections import deque

import numpy as np

from .. import schema as S
from . import layout as L
from .reference_cleaner import CleanerMixin
from .reference_io import IoMixin
from .reference_mariadb import MariaDBMixin
from .reference_pool import PoolMixin
from .reference_state import Frame, Instance, Knobs, SplitMix64, spread_row
from .reference_threads import ThreadsMixin

__all__ = ["ReferenceSim", "simulate_kernel", "spread_row"]


class ReferenceSim(IoMixin, PoolMixin, CleanerMixin, ThreadsMixin, MariaDBMixin):
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
        self.pc_last_activity = -1  # the workload starts just before the timeout at 0 (sim.py)
        self.pc_active = False
        self.pc_was_active = False
        self.pc_sync = False
        self.pc_last_pages = 0
        self.pc_round_end = 0
        # MySQL's log_checkpointer: next timed wake-up, old_activity_count, last checkpoint (us)
        self.ckpt_wake = 0
        self.ckpt_activity = 0
        self.ckpt_time = 0
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
                "begun": False,  # its transaction, begun at start, waits in log_free_check
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
        return self.engine in (S.ENG_MYSQL80, S.ENG_MYSQL84)

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
                    self.log_checkpointer(boundary)
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
                    self.pre_sleep_check()
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
        """The whole run: to the end of its series, with its timeline."""
        self.run_to(self.seconds, self.timeline)
        return self.out, self.hist

    def run_to(self, seconds: int, timeline) -> None:
        """On to second `seconds` with these events (none before the clock): sim.run_state."""
        from .invariants import check_state

        end = seconds * 1_000_000
        tl_time, tl_kind, tl_knob, tl_value = timeline
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
                self.threads[e]["begun"] = False
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

    def __deepcopy__(self, memo):
        """A copy to resume (sim.copy_state): every object copied but the read-only zipf CDF."""
        memo[id(self.zipf_cdf)] = self.zipf_cdf
        # the frames first, their links mapped by hand: deepcopy would recurse along the LRU
        for f in self.frames:
            memo[id(f)] = copy.copy(f)
        for f in self.frames:
            twin_f = memo[id(f)]
            for name, value in vars(f).items():
                if isinstance(value, Frame):
                    setattr(twin_f, name, memo[id(value)])
        twin = object.__new__(ReferenceSim)
        memo[id(self)] = twin
        twin.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return twin


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
