# ruff: noqa: D102  (methods named after the InnoDB functions they model, as in reference.py)
"""The twin of threads.py, free_block.py, lru_search.py, commit.py and workload.py: user threads."""

from __future__ import annotations

import math

import numpy as np

from .. import schema as S
from . import layout as L
from .reference_state import Frame, Instance, latency_bucket, spread_row


class ThreadsMixin:
    """User threads: row draws, page access, free pages, commit."""

    # ------------------------------------------------------------------ user threads
    def draw_row(self) -> int:
        wl = S.WORKLOADS[int(self.k.workload)]
        rows = int(self.k.table_rows)
        if wl == "uniform":
            return self.rng.below(rows)
        if wl == "zipf":
            u = self.rng.unit()
            # the whole table, without the kernel's guide (run.zipf_cdf): the same rank
            rank = int(np.searchsorted(self.zipf_cdf[: rows - 1], u, side="right"))
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
        if self.pc_disabled:
            return
        if not self.pc_active and not self.pc_sync and not force:
            self.pre_sleep_check()  # woken, nothing to do: it checks again before sleeping on
            return
        cleaner = len(self.times) - 1
        self.times[cleaner] = min(self.times[cleaner], max(t, self.pc_round_end))

    def buf_LRU_scan_and_free_block(self, inst: Instance, scan_all: bool) -> tuple[bool, int]:
        """From lru_scan_itr if it is in the young part (LRUItr::start), else from the tail."""
        f = inst.lru_itr
        if f is None or f.old:
            f = inst.lru_tail
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
        f = inst.single_itr  # single_scan_itr: resumes in the young part only (LRUItr::start)
        if f is None or f.old:
            f = inst.lru_tail
        while f is not None:
            inst.single_itr = f.prev
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
            if self.k.trx_rate > 0 and not th["begun"]:
                if th["slot"] is None or th["slot"] < self.pace_epoch:
                    th["slot"] = self.pace_claim(t)
                if th["slot"] > t:
                    return th["slot"]
                th["slot"] = None
            if not th["begun"]:
                th.update(begun=True, start=t)  # a log_free_check wait counts in its latency
            if self.is_mariadb():
                wait = self.ma_log_free_check(t)
                if wait > 0:
                    return wait
                free_check = L.INF_TIME
            else:
                free_check = self.redo_limits()[3]
            if self.lsn - self.checkpoint_lsn > free_check:
                self.checkpoint_at(t)  # MariaDB's free_check is INF_TIME: never here
                if self.lsn - self.checkpoint_lsn > free_check:
                    self.signal_cleaner(t, True)
                    self.count(t, S.C_REDO_WAIT, L.REDO_WAIT_POLL_US / 1000.0)
                    return t + L.REDO_WAIT_POLL_US
            th.update(rows_left=int(self.k.rows_per_trx), rows_done=0, begun=False)
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
