# ruff: noqa: D102  (methods named after the InnoDB functions they model, as in reference.py)
"""The twin of cleaner.py: MySQL 8.0's page cleaner batches, adaptive flushing, the coordinator."""

from __future__ import annotations

import math

from .. import schema as S
from . import layout as L
from .reference_state import LSN_MAX, Frame, Instance


class CleanerMixin:
    """buf0flu.cc of MySQL 8.0 (cleaner.py)."""

    # ------------------------------------------------------------------ page cleaner batches
    def buf_flush_LRU_list(self, inst: Instance, t: int) -> tuple[int, int]:
        """One LRU batch: not limited by io_capacity. Returns (pages written, free-at time)."""
        if inst.pending_lru > 0:
            return 0, t
        depth = int(self.k.innodb_lru_scan_depth)
        scan_depth = min(depth, inst.lru_len)
        batch: list[Frame] = []
        evicted = scanned = 0
        f = inst.lru_tail
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
                self.flush_page(inst, f, L.IO_LRU, batch, scan_depth, t)
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
        return self.flush_list_batch(inst, n, lsn_limit, t)

    def flush_list_batch(self, inst: Instance, n: int, lsn_limit: int, t: int) -> tuple[int, int]:
        """Write up to n unfixed flush-list pages older than lsn_limit; (written, free again)."""
        batch = []
        for f in list(inst.flush_list):
            if len(batch) >= n or f.oldest_modification >= lsn_limit:
                break
            if f.io == L.IO_NONE:
                self.flush_page(inst, f, L.IO_LIST, batch, n, t)
        if not batch:
            return 0, t
        free_at = self.dispatch(inst, batch, L.IO_LIST, t)
        self.count(t, S.C_BATCH, len(batch))
        return len(batch), free_at

    # ------------------------------------------------------------------ neighbours
    def neighbor_mode(self, inst: Instance, kind: int) -> int:
        """innodb_flush_neighbors as this batch applies it now (neighbors.neighbor_mode)."""
        mode = int(self.k.innodb_flush_neighbors)
        if mode == 0 or inst.lru_len < L.BUF_LRU_OLD_MIN_LEN:
            return 0
        if self.is_mysql():
            return mode
        if not self.k.device_rotational:  # MariaDB: fil_space_t::is_rotational
            return 0
        if kind != L.IO_LIST and len(inst.free) * 2 < int(self.k.innodb_lru_scan_depth):
            return 0
        return mode

    @staticmethod
    def buf_flush_area(inst: Instance) -> int:
        """min(read_ahead_area, curr_size / 16); read_ahead_area = min(64, 2^up(size / 32))."""
        ahead = 1
        while ahead < inst.size // 32:
            ahead *= 2
        return max(1, min(ahead, 64, inst.size // 16))

    def buf_flush_check_neighbor(self, page: int, old_only: bool) -> bool:
        f = self.page_frame.get(page)
        if f is None or f.oldest_modification == 0 or f.io != L.IO_NONE:
            return False
        return not old_only or f.old

    def buf_flush_try_neighbors(
        self, inst: Instance, f: Frame, kind: int, batch: list[Frame], n_to_flush: int, t: int
    ) -> None:
        """Append victim f and its flushable neighbours to batch (neighbors.try_neighbors)."""
        mode = self.neighbor_mode(inst, kind)
        old_only = kind == L.IO_LRU and self.is_mysql()
        page = f.page
        low, high = page, page + 1
        if mode != 0:
            area = self.buf_flush_area(inst)
            low = page // area * area
            high = low + area
            if mode == 1:
                j = page
                while j > low and self.buf_flush_check_neighbor(j - 1, old_only):
                    j -= 1
                low = j
                j = page + 1
                while j < high and self.buf_flush_check_neighbor(j, old_only):
                    j += 1
                high = j
        n_flushed = len(batch)
        p = low
        while p < high:
            if len(batch) >= n_to_flush:
                if p > page:
                    break
                p = page
            if p == page or self.buf_flush_check_neighbor(p, old_only):
                h = self.page_frame[p]
                h.io = kind
                batch.append(h)
            p += 1
        if len(batch) - n_flushed > 1:
            self.count(t, S.C_NEIGHBOR, len(batch) - n_flushed - 1)

    def flush_page(
        self, inst: Instance, f: Frame, kind: int, batch: list[Frame], n_to_flush: int, t: int
    ) -> None:
        """buf_flush_page_and_try_neighbors: f alone, or with its neighbours if the knob is on."""
        if self.k.innodb_flush_neighbors != 0:
            self.buf_flush_try_neighbors(inst, f, kind, batch, n_to_flush, t)
        else:
            f.io = kind
            batch.append(f)

    # ------------------------------------------------------------------ adaptive flushing
    def checkpoint_at(self, t: int) -> None:
        """log_checkpoint at t: advance the checkpoint; remember when it moved."""
        before = self.checkpoint_lsn
        self.checkpoint()
        if self.checkpoint_lsn != before:
            self.ckpt_time = t

    def log_checkpointer(self, t: int) -> None:
        """The checkpointer's timed wake-up if one is due by t (cleaner.log_checkpointer)."""
        if t < self.ckpt_wake:
            return
        every = int(self.k.innodb_log_checkpoint_every) * 1000
        self.ckpt_wake = t + every
        busy = self.activity != self.ckpt_activity  # srv_check_activity
        self.ckpt_activity = self.activity
        elapsed = t - self.ckpt_time
        if busy and elapsed < L.LOG_BUSY_CHECKPOINT_INTERVAL * every:
            return
        soft = self.redo_limits()[0]
        if self.lsn - self.checkpoint_lsn >= soft - soft // 32 or elapsed >= every:
            self.checkpoint_at(t)

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
        margin = min(margin, soft * 55 // 100 // 512 * 512)  # 50 + 5 %, log_concurrency_margin
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

    def pre_sleep_check(self) -> None:
        """is_server_active = was_server_active || srv_check_activity (scheduler.py)."""
        self.pc_active = self.pc_was_active or self.activity != self.pc_last_activity

    def buf_flush_page_coordinator_round(self, t: int) -> int:
        """One coordinator iteration at t; returns the time of the next one."""
        n_inst = len(self.instances)
        timed_out = t >= self.pc_loop_start + 1_000_000
        if timed_out:
            self.pc_loop_start = t
            self.pc_was_active = self.activity != self.pc_last_activity
            self.pc_last_activity = self.activity
        active = self.pc_active  # decided before the sleep that ended at t
        self.pre_sleep_check()
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
        if sync or active:
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
            if sync or timed_out:  # zeroed after every recommendation, as the server does
                self.pc_last_pages = n_list if n != 0 else 0
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
        self.log_checkpointer(t)
        if sync:
            if n_lru + n_list == 0 and self.writes_in_flight:
                d = self.write_done(0)
                if d > end:
                    return d
            return end
        return max(end, self.pc_loop_start + 1_000_000)
