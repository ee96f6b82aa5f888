# ruff: noqa: D102  (methods named after the InnoDB functions they model, as in reference.py)
"""The twin of pool.py and the write completions: LRU list, flush list, writes in flight."""

from __future__ import annotations

from .. import schema as S
from . import layout as L
from .reference_state import Frame, Instance


class PoolMixin:
    """buf0lru.cc lists, the flush list and write completion (pool.py, cleaner.py)."""

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
        f = inst.lru_head
        while f is not None:
            f.old = True
            f = f.next
        inst.lru_old = inst.lru_head
        inst.old_len = inst.lru_len
        self.buf_LRU_old_adjust_len(inst)

    def buf_LRU_add_block(self, inst: Instance, f: Frame, old: bool) -> None:
        if not old or inst.lru_len < L.BUF_LRU_OLD_MIN_LEN:
            f.prev, f.next = None, inst.lru_head
            if inst.lru_head is not None:
                inst.lru_head.prev = f
            else:
                inst.lru_tail = f
            inst.lru_head = f
            f.freed_clock = inst.freed_page_clock
        else:
            at = inst.lru_old
            f.prev, f.next = at, at.next
            if at.next is not None:
                at.next.prev = f
            else:
                inst.lru_tail = f
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
        if f is inst.single_itr:
            inst.single_itr = f.prev
        if f is inst.lru_old:
            inst.lru_old = f.prev
            inst.lru_old.old = True
            inst.old_len += 1
        if f.prev is not None:
            f.prev.next = f.next
        else:
            inst.lru_head = f.next
        if f.next is not None:
            f.next.prev = f.prev
        else:
            inst.lru_tail = f.prev
        f.prev = f.next = None
        f.in_lru = False
        inst.lru_len -= 1
        was_old, f.old = f.old, False
        if inst.lru_len < L.BUF_LRU_OLD_MIN_LEN:
            g = inst.lru_head
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

    def dblwr_batch_pages(self) -> int:
        """innodb_doublewrite_pages (MySQL); MariaDB's 2 x FSP_EXTENT_SIZE (add_to_batch)."""
        if self.is_mariadb():
            extent = L.MA_EXTENT_BYTES // int(self.k.innodb_page_size)
            return 2 * max(extent, L.MA_EXTENT_MIN_PAGES)
        return int(self.k.innodb_doublewrite_pages)

    def batch_completed(self, last: int, m: int) -> int:
        """Double_write::write_complete of a batch ending at `last`: when the next may start."""
        self.count(last, S.C_DBLWR_PAGES, m)
        done = self.fsync(last, L.FILE_DATA)  # fil_flush_file_spaces, also under O_DIRECT
        return done if self.k.device_interface == S.IF_SATA else last

    def dispatch(self, inst: Instance, batch: list[Frame], kind: int, t: int) -> int:
        """Write a batch through the doublewrite buffer; return when the cleaner is free.

        MySQL: one batch in flight per instance and flush type (cleaner.dispatch).
        """
        page = int(self.k.innodb_page_size)
        dblwr = int(self.k.innodb_doublewrite)
        chunk = self.dblwr_batch_pages()
        batched = dblwr != 0 and self.is_mysql()
        gate = "dblwr_lru_free" if kind == L.IO_LRU else "dblwr_list_free"
        cursor = t
        for k in range(0, len(batch), chunk):
            part = batch[k : k + chunk]
            if batched:
                cursor = max(cursor, getattr(inst, gate))  # wait_for_pending_batch
            start = cursor
            latch = max(cursor, self.dev_busy_write)  # when the write FIFO reaches the chunk
            if dblwr != 0:
                # DETECT_ONLY: one reduced page of the pages' ids and LSNs
                nbytes = len(part) * page if dblwr == 1 else L.REDUCED_BATCH_PAGE_SIZE
                start = self.fsync(self.submit(cursor, nbytes, True), L.FILE_DBLWR)
                self.count(start if batched else t, S.C_DBLWR_WRITES)
                if not batched:
                    self.count(t, S.C_DBLWR_PAGES, len(part))
            last = start
            prev_page = L.NO_PAGE - 1  # no write before the chunk's first, page 0 included
            for f in part:
                done = self.submit_page_write(start, page, f.page == prev_page + 1)
                prev_page = f.page
                f.io_latch = latch
                self.writes_in_flight.append((done, f))
                self.writes_pushed += 1
                last = done
            if batched:
                setattr(inst, gate, self.batch_completed(last, len(part)))
            inst.pending_done = max(inst.pending_done, last)
            if kind in (L.IO_LRU, L.IO_MA_LRU):
                inst.pending_lru += len(part)
            else:
                inst.pending_list += len(part)
            if dblwr != 0:
                cursor = start
        return cursor + L.PC_PAGE_US * len(batch)
