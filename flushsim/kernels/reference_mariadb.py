# ruff: noqa: D102, N802  (the same exemptions pyproject.toml gives reference.py)
"""The MariaDB half of the pure-Python twin: page cleaner loop and user threads' free pages.

A mixin of `reference.ReferenceSim`, mirroring `mariadb.py`, `free_block_mariadb.py` and the
MariaDB parts of `commit.py` line by line (same order of effects, same integer arithmetic), so
that the kernel and the twin give identical numbers on MariaDB scenarios too.
"""

from __future__ import annotations

import math

from .. import schema as S
from . import layout as L

LSN_MAX = 1 << 62


class MariaDBMixin:
    """buf_flush_page_cleaner, buf_flush_LRU, buf_LRU_get_free_block of MariaDB 10.6/10.11."""

    def ma_init(self) -> None:
        self.engine = int(self.k.engine)
        self.ma_async_lsn = 0  # buf_flush_async_lsn
        self.ma_sync_lsn = 0  # buf_flush_sync_lsn
        self.ma_idle = False
        self.ma_last_activity = 0
        self.ma_abstime = 0
        self.ma_phase = L.PH_TOP
        self.ma_lru_n = 0
        self.ma_lru_busy = 0
        self.ma_wake_activity = 0

    @property
    def ma_new(self) -> bool:
        return self.engine == S.ENG_MARIADB1011

    # ------------------------------------------------------------------ redo (log0log.cc)
    def ma_redo_limits(self) -> tuple[int, int, int]:
        cap = int(self.k.innodb_log_file_size) - L.MA_LOG_START_OFFSET
        cap -= cap // 10
        margin = cap - 48 * int(self.k.innodb_page_size)
        margin -= margin // 10
        return cap, margin - margin // 8, margin

    def release_at_least(self, patch_106: int, patch_1011: int) -> bool:
        """The modelled release is 10.6.patch_106 / 10.11.patch_1011 or later (10.11.8+: yes)."""
        if self.ma_new:
            return True
        v = int(self.k.version)
        minor, patch = (v // 100) % 100, v % 100
        return patch >= (patch_106 if minor == 6 else patch_1011)

    def cleaner_flushes_lru(self) -> bool:
        return self.release_at_least(L.MA_CLEANER_LRU_FROM_106, L.MA_CLEANER_LRU_FROM_1011)

    def need_LRU_eviction(self) -> bool:
        if not self.cleaner_flushes_lru():
            return False
        inst = self.instances[0]
        if not inst.try_lru_scan:
            return True
        depth = int(self.k.innodb_lru_scan_depth)
        if self.ma_new:
            depth //= 2
        return inst.lru_len > L.BUF_LRU_MIN_LEN and len(inst.free) < depth

    def last_write_done(self) -> int:
        return self.write_done(len(self.writes_in_flight) - 1) if self.writes_in_flight else -1

    # ------------------------------------------------------------------ LRU batches
    def buf_do_LRU_batch(self, max_n: int, t: int) -> tuple[int, int, int]:
        inst = self.instances[0]
        free_limit = int(self.k.innodb_lru_scan_depth)
        min_len = L.BUF_LRU_MIN_LEN
        if self.ma_new:
            min_len = min(inst.size // 20 - 1, L.BUF_LRU_MIN_LEN)
        kind = L.IO_MA_LRU if self.ma_new else L.IO_LRU
        t = max(t, inst.lru_mutex)
        batch: list = []
        evicted = scanned = 0
        f = inst.lru_tail
        while f is not None and inst.lru_len > min_len and len(inst.free) < free_limit:
            if not self.ma_new and len(batch) + evicted >= max_n:
                break
            prev = f.prev
            scanned += 1
            if self.replaceable(f):
                self.buf_LRU_free_page(inst, f)
                evicted += 1
            elif f.io == L.IO_NONE:
                if len(batch) >= max_n:
                    break
                self.flush_page(inst, f, kind, batch, max_n, t)
            f = prev
        t += (scanned * L.LRU_SCAN_NS + 999) // 1000
        inst.lru_mutex = t
        free_at = self.dispatch(inst, batch, kind, t) if batch else t
        self.count(t, S.C_LRU_FLUSH, len(batch))
        self.count(t, S.C_LRU_EVICT, evicted)
        self.count(t, S.C_LRU_SCANNED, scanned)
        return len(batch), evicted, free_at

    def buf_flush_LRU(self, max_n: int, t: int) -> tuple[int, int]:
        inst = self.instances[0]
        if not self.ma_new and self.ma_lru_busy > t:
            return 0, t
        flushed, evicted, free_at = self.buf_do_LRU_batch(max_n, t)
        if self.ma_new and flushed >= max_n:
            evicted += self.buf_do_LRU_batch(0, t)[1]
        if not self.ma_new:
            inst.try_lru_scan = True
            if flushed > 0:
                self.ma_lru_busy = self.last_write_done()
        elif evicted > 0:
            inst.try_lru_scan = True
        # LRU_warn() (nothing written, try_LRU_scan already false) leaves try_LRU_scan false
        return flushed, free_at

    def ma_flush_list(self, max_n: int, lsn: int, t: int) -> tuple[int, int]:
        # buf_flush_list: the same batch as MySQL's, on the one instance, with no pending check
        return self.flush_list_batch(self.instances[0], max_n, lsn, t)

    # ------------------------------------------------------------------ recommendation
    def af_get_pct_for_lsn(self, age: int) -> int:
        cap, age_async, _ = self.ma_redo_limits()
        if age < int(self.k.innodb_adaptive_flushing_lwm * float(cap) / 100):
            return 0
        factor = (age * 100) // age_async
        ratio = int(self.k.innodb_io_capacity_max) // int(self.k.innodb_io_capacity)
        return int(float(ratio * factor) * math.sqrt(float(factor)) / 7.5)

    def af_needed_for_redo(self, oldest: int) -> bool:
        cap, _, _ = self.ma_redo_limits()
        return self.lsn - oldest > int(self.k.innodb_adaptive_flushing_lwm * float(cap) / 100)

    def page_cleaner_flush_pages_recommendation(
        self, last_pages: int, oldest: int, pct_lwm: float, dirty: int, pct: float, t: int
    ) -> int:
        cur = self.lsn
        p_lsn = self.af_get_pct_for_lsn(cur - oldest)
        now_s = t // 1_000_000
        ioc = int(self.k.innodb_io_capacity)
        iocmax = int(self.k.innodb_io_capacity_max)
        max_pct = self.k.innodb_max_dirty_pages_pct
        if self.af_prev_lsn == 0 or p_lsn == 0:
            self.af_prev_time, self.af_prev_lsn = now_s, cur
            if ioc >= dirty:
                return dirty
            d = pct / max_pct if max_pct > 1.0 else pct
            n = int(d * ioc)
            return ioc if n < dirty else min(iocmax, dirty)
        self.af_sum_pages += last_pages
        elapsed = max(now_s - self.af_prev_time, 1)
        self.af_n_iter += 1
        loops = int(self.k.innodb_flushing_avg_loops)
        if self.af_n_iter >= loops or elapsed >= loops:
            self.page_avg_rate = float(
                (self.af_sum_pages // elapsed + int(self.page_avg_rate)) // 2
            )
            rate = (cur - self.af_prev_lsn) // elapsed
            self.lsn_avg_rate = float((int(self.lsn_avg_rate) + rate) // 2)
            self.af_prev_lsn, self.af_prev_time = cur, now_s
            self.af_n_iter = self.af_sum_pages = 0
        if self.release_at_least(L.MA_AF_FORMULA_FROM_106, L.MA_AF_FORMULA_FROM_1011):
            if not self.release_at_least(L.MA_AF_PCT_LWM_FROM_106, L.MA_AF_PCT_LWM_FROM_1011):
                pct_lwm = 0.0  # d4265fb's caller, up to MDEV-31939
            ratio = 1.0 if pct_lwm == 0.0 or max_pct == 0.0 else max(p_lsn / 100.0, pct / max_pct)
            term = int(float(ioc) * ratio)
            shown = int(ratio * 100)
        else:
            if pct == 0.0:
                p_dirty = 0
            elif pct_lwm == 0.0:
                p_dirty = 100 if pct >= max_pct else 0
            else:
                # the 2021 10.6 source: ulint(dirty_pct / max_pct), a ratio (0 or 1), not a percent
                p_dirty = int(pct / max_pct) if max_pct > 0.0 else int(pct)
            term = ioc * max(p_dirty, p_lsn) // 100
            shown = p_dirty
        target = oldest + int(self.lsn_avg_rate) * 3
        pfl = 0
        for f in self.instances[0].flush_list:
            if f.oldest_modification > target:
                break
            pfl += 1
            if pfl >= iocmax:
                break
        pfl = max(pfl // 3, 1)
        n = min((term + int(self.page_avg_rate) + pfl) // 3, iocmax)
        s = t // 1_000_000
        if s < self.seconds:
            self.out[s, S.C_N_REQ] = n
            self.out[s, S.C_PCT_DIRTY] = shown
            self.out[s, S.C_PCT_LSN] = p_lsn
            self.out[s, S.C_AVG_PAGE] = self.page_avg_rate
            self.out[s, S.C_AVG_LSN] = self.lsn_avg_rate
        return n

    # ------------------------------------------------------------------ the loop
    def ma_next_wake(self, t: int) -> int:
        inst = self.instances[0]
        if self.ma_sync_lsn != 0 and self.k.innodb_flush_sync != 0:
            return t
        if self.need_LRU_eviction():
            return t
        if self.ma_idle and (not inst.flush_list or self.k.innodb_max_dirty_pages_pct_lwm == 0.0):
            return L.INF_TIME
        return max(t, self.ma_abstime)

    def ma_finish(self, end: int) -> int:
        self.checkpoint()
        self.pc_round_end = end
        return self.ma_next_wake(end)

    def ma_after_lru(self, end: int) -> int:
        oldest = self.oldest_modification()
        if oldest == 0:
            self.ma_sync_lsn = 0
            self.ma_idle = True
        else:
            if oldest >= self.ma_async_lsn:
                self.ma_async_lsn = 0
            self.ma_idle = False
        return self.ma_finish(end)

    def ma_lru_pass_after_writes(self, n: int, t: int) -> int:
        done = self.last_write_done()
        if done > t:
            self.ma_phase = L.PH_LRU_PASS
            self.ma_lru_n = n
            self.pc_round_end = done
            return done
        flushed, free_at = self.buf_flush_LRU(n, t)
        self.pc_last_pages += flushed
        return self.ma_after_lru(free_at + L.PC_ROUND_BASE_US)

    def buf_flush_page_cleaner_round(self, t: int) -> int:
        """One iteration of MariaDB's buf_flush_page_cleaner; returns the next one's time."""
        self.count(t, S.C_PC_ROUNDS)
        inst = self.instances[0]
        iocmax = int(self.k.innodb_io_capacity_max)
        phase, self.ma_phase = self.ma_phase, L.PH_TOP
        if phase == L.PH_FURIOUS_DONE:
            self.checkpoint()
            measure = self.oldest_modification() or LSN_MAX
            if measure >= self.ma_sync_lsn:
                self.ma_sync_lsn = 0
            elif measure >= self.ma_async_lsn:
                self.ma_async_lsn = 0
            self.pc_last_pages = 0
            self.ma_abstime = t + 1_000_000
            end = t + L.PC_ROUND_BASE_US
            self.pc_round_end = end
            return self.ma_next_wake(end)
        if phase == L.PH_LRU_PASS:
            n, free_at = self.buf_flush_LRU(self.ma_lru_n, t)
            self.pc_last_pages += n
            return self.ma_after_lru(free_at + L.PC_ROUND_BASE_US)
        if self.ma_sync_lsn != 0 and self.k.innodb_flush_sync != 0:
            # buf_flush_sync_for_checkpoint: furious flushing
            clock = t
            if self.ma_new and self.need_LRU_eviction():
                self.ma_idle = False
                _, clock = self.buf_flush_LRU(int(self.k.innodb_io_capacity), clock)
            n, clock = self.ma_flush_list(iocmax, self.ma_sync_lsn, clock)
            self.count(t, S.C_SYNC, n)
            done = self.fsync(max(clock, self.last_write_done()), L.FILE_DATA)
            self.ma_phase = L.PH_FURIOUS_DONE
            self.pc_round_end = done
            return max(done, t + 1)
        self.ma_abstime = t + 1_000_000
        oldest = self.oldest_modification()
        if oldest == 0:
            self.ma_sync_lsn = 0
            self.ma_idle = True
            return self.ma_finish(t + L.PC_ROUND_BASE_US)
        soft = self.ma_async_lsn
        if self.ma_sync_lsn != 0:
            if oldest >= self.ma_sync_lsn:
                self.ma_sync_lsn = 0
            elif self.ma_sync_lsn > soft:
                soft = self.ma_sync_lsn
        if soft != 0:
            if oldest >= soft:
                self.ma_async_lsn = soft = 0
        elif self.need_LRU_eviction():
            self.ma_idle = False
            return self.ma_lru_pass_after_writes(iocmax, t)
        dirty = len(inst.flush_list)
        pct = dirty * 100.0 / float(inst.lru_len + len(inst.free))
        pct_lwm = self.k.innodb_max_dirty_pages_pct_lwm
        idle_flush = False
        if pct_lwm != 0.0:
            if self.activity != self.ma_last_activity:
                self.ma_last_activity = self.activity
                if pct < pct_lwm:
                    pct_lwm = 0.0
                    if soft == 0 and not self.af_needed_for_redo(oldest):
                        self.ma_idle = True
                        return self.ma_finish(t + L.PC_ROUND_BASE_US)
            elif self.ma_idle and self.dev_busy_read <= t:
                self.ma_wake_activity = self.activity
                idle_flush = True
            elif pct < pct_lwm:
                pct_lwm = 0.0
                if soft == 0 and not self.af_needed_for_redo(oldest):
                    self.ma_idle = True
                    return self.ma_finish(t + L.PC_ROUND_BASE_US)
        elif pct < self.k.innodb_max_dirty_pages_pct:
            if soft == 0 and not self.af_needed_for_redo(oldest):
                self.ma_idle = True
                return self.ma_finish(t + L.PC_ROUND_BASE_US)
        self.ma_idle = False
        clock = t
        n_flushed = 0
        if soft != 0 and not idle_flush:
            n_flushed, clock = self.ma_flush_list(iocmax, soft, clock)
            self.count(t, S.C_BACKGROUND, n_flushed)
        elif idle_flush or self.k.innodb_adaptive_flushing == 0:
            n_flushed, clock = self.ma_flush_list(int(self.k.innodb_io_capacity), LSN_MAX, clock)
            self.count(t, S.C_BACKGROUND, n_flushed)
        else:
            n = self.page_cleaner_flush_pages_recommendation(
                self.pc_last_pages, oldest, pct_lwm, dirty, pct, t
            )
            if n != 0:
                n_flushed, clock = self.ma_flush_list(n, LSN_MAX, clock)
                self.pc_last_pages = n_flushed
                self.count(t, S.C_ADAPTIVE, n_flushed)
            elif (
                self.ma_async_lsn <= oldest and not self.need_LRU_eviction()
            ) or not self.cleaner_flushes_lru():
                return self.ma_after_lru(t + L.PC_ROUND_BASE_US)
            else:
                n_lru = iocmax
                if self.ma_new:
                    n_lru = max(n_lru, min(iocmax, int(self.k.innodb_lru_scan_depth)))
                return self.ma_lru_pass_after_writes(n_lru, t)
        if not self.cleaner_flushes_lru():
            return self.ma_after_lru(clock + L.PC_ROUND_BASE_US)
        n_lru = iocmax - n_flushed if iocmax >= n_flushed else 0
        if self.ma_new:
            n_lru = max(n_lru, min(iocmax, int(self.k.innodb_lru_scan_depth)))
        n, clock = self.buf_flush_LRU(n_lru, clock)
        self.pc_last_pages += n
        return self.ma_after_lru(clock + L.PC_ROUND_BASE_US)

    # ------------------------------------------------------------------ user threads
    def ma_wake_cleaner(self, t: int) -> None:
        self.ma_idle = False
        if self.ma_phase != L.PH_TOP:
            return
        cleaner = len(self.times) - 1
        self.times[cleaner] = min(self.times[cleaner], max(t, self.pc_round_end))

    def buf_LRU_get_free_block_mariadb(self, t: int, resume: int = 0):
        t0 = t
        inst = self.instances[0]
        cleaner = len(self.times) - 1
        it = (resume - 1) // 2 if resume > 0 else 0
        searched = resume > 0 and (resume - 1) % 2 == 1
        if inst.lru_mutex > t:
            self.count_wait(S.C_LRU_MUTEX_WAIT, t, inst.lru_mutex + 1)
            self.ma_sleep(t0, inst.lru_mutex + 1, 1 + 2 * it + (1 if searched else 0))
            return None, t
        if inst.free:
            f = inst.free.pop()
            self.wake_for_free_pages(t)
            return f, t
        if not searched:
            whole = it > 0 and not self.ma_new
            if inst.try_lru_scan or whole:
                found, done = self.lru_search(inst, whole, t)
                if not found:
                    inst.try_lru_scan = False
                if done > t:
                    self.ma_sleep(t0, done, 1 + 2 * it + (0 if found else 1))
                    return None, t
                if found:
                    return inst.free.pop(), t
        if self.ma_new:
            self.count(t, S.C_WAIT_FREE)
            self.ma_wake_cleaner(t)
            self.ma_sleep(t0, min(self.times[cleaner] + 1, t + 1_000_000), 0)
            return None, t
        if self.ma_lru_busy > t:
            self.ma_sleep(t0, self.ma_lru_busy + 1, 2 + 2 * it)
            return None, t
        if it > 1:
            self.count(t, S.C_FREE_WAITS)
        # user_lru_batch: buf_flush_LRU(innodb_lru_flush_size) run by this thread
        flushed, _, done = self.buf_do_LRU_batch(int(self.k.innodb_lru_flush_size), t)
        inst.try_lru_scan = True
        if flushed > 0:
            self.ma_lru_busy = self.last_write_done()
            self.count(t, S.C_USER_LRU, flushed)
        if flushed == 0:
            self.count(t, S.C_SINGLE_FAIL)
        self.count(t, S.C_WAIT_FREE)
        if it + 1 >= L.FREE_BLOCK_MAX_ITERATIONS:
            return None, done
        self.ma_sleep(t0, max(done, t + 1), 1 + 2 * (it + 1))
        return None, t

    def wake_for_free_pages(self, t: int) -> None:
        """page_cleaner_wakeup after taking one of the last free pages (MDEV-33053)."""
        if not self.release_at_least(L.MA_LRU_WAKE_FROM_106, L.MA_LRU_WAKE_FROM_1011):
            return
        inst = self.instances[0]
        if inst.lru_len <= L.BUF_LRU_MIN_LEN or self.ma_phase == L.PH_LRU_PASS:
            return
        free = len(inst.free)
        depth = int(self.k.innodb_lru_scan_depth)
        if free < depth // 2:
            self.ma_wake_cleaner(t)
        elif free < depth and self.ma_idle and not self.ma_new:
            self.ma_wake_cleaner(t)

    def ma_sleep(self, t0: int, wake: int, resume: int) -> None:
        """No free block: the thread sleeps from t0 until `wake` (us), then goes on at `resume`."""
        self.sleep_until = wake
        self.free_k = resume
        self.count_wait(S.C_FREE_WAIT_MS, t0, wake)

    def ma_after_commit(self, t: int) -> None:
        _, age_async, max_age = self.ma_redo_limits()
        age = self.lsn - self.checkpoint_lsn
        if age > max_age:
            if self.ma_sync_lsn < self.lsn:
                self.ma_sync_lsn = self.lsn
                self.ma_wake_cleaner(t)
        elif age > age_async:
            if self.ma_async_lsn < self.lsn:
                self.ma_async_lsn = self.lsn
                # buf_flush_ahead(lsn, false): 10.11 wakes only an idle cleaner
                if self.ma_idle or not self.ma_new:
                    self.ma_wake_cleaner(t)
        inst = self.instances[0]
        if self.ma_idle and inst.flush_list:
            pct = len(inst.flush_list) * 100.0 / float(inst.lru_len + len(inst.free))
            lwm = self.k.innodb_max_dirty_pages_pct_lwm
            if (
                lwm != 0.0 and (lwm <= pct or self.ma_wake_activity == self.activity)
            ) or self.k.innodb_max_dirty_pages_pct <= pct:
                self.ma_wake_cleaner(t)

    def ma_log_free_check(self, t: int) -> int:
        _, _, max_age = self.ma_redo_limits()
        if self.lsn - self.checkpoint_lsn <= max_age:
            return 0
        target = min(self.checkpoint_lsn + max_age, self.checkpoint_lsn + L.MA_MIB)
        oldest = self.oldest_modification()
        if oldest == 0 or oldest >= target:
            self.checkpoint()
            if self.lsn - self.checkpoint_lsn <= max_age:
                return 0
        self.ma_sync_lsn = max(self.ma_sync_lsn, target)
        self.ma_wake_cleaner(t)
        self.count(t, S.C_REDO_WAIT, L.FREE_WAIT_SLEEP_US / 1000.0)
        return t + L.FREE_WAIT_SLEEP_US
