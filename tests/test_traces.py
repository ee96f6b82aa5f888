"""Hand-worked traces on an 8-frame pool: exact eviction, promotion and flush order.

The pool is below BUF_LRU_OLD_MIN_LEN (512), so there is no old sublist: reads go to the LRU
head, and an accessed page is made young once at least size*(1024-378)/4096 = 1 page has been
evicted since it was last put at the head (buf_page_peek_if_young). Lists are written head ->
tail; the LRU tail is evicted first and the flush-list tail (oldest LSN) is written first.
"""

import kernel_state
import numpy as np
import pytest

import flushsim as fs
from flushsim import schema
from flushsim.kernels import cleaner, free_block, pool, sim
from flushsim.kernels import layout as L
from flushsim.run import kernel_inputs

pytestmark = pytest.mark.kernel


class Tiny:
    """An 8-frame, one-instance pool driven through the kernel's own functions."""

    def __init__(self, doublewrite="ON"):
        ki = kernel_inputs(fs.Scenario(knobs={"innodb_doublewrite": doublewrite}))
        self.knobs = ki.knobs.copy()
        self.knobs[schema.K_POOL_SIZE] = 8 * 16384
        self.knobs[schema.K_INSTANCES] = 1
        (
            self.fr,
            self.frl,
            self.inst,
            self.page_frame,
            self.runs,
            self.g,
            self.gf,
            self.rng,
        ) = sim.init_state(self.knobs, 1, 64, 1)
        self.out = np.zeros((10, schema.N_COLS))
        self.ring_frame = np.zeros(9, dtype=np.int32)
        self.ring_done = np.zeros(9, dtype=np.int64)
        self.times = np.zeros(2, dtype=np.int64)
        self.heap = np.arange(2)
        self.pos = np.arange(2)

    def access(self, page, write=False, t=0):
        return kernel_state.access(self, page, write, t)  # not resuming a get_free_block

    def lru(self):
        pages, f = [], self.inst[0, L.I_LRU_HEAD]
        while f != L.NIL:
            pages.append(int(self.fr[f, L.F_PAGE]))
            f = self.fr[f, L.F_NEXT]
        return pages

    def flush_list(self):
        pages, f = [], self.inst[0, L.I_FL_HEAD]
        while f != L.NIL:
            pages.append(int(self.fr[f, L.F_PAGE]))
            f = self.fr[f, L.F_FNEXT]
        return pages

    def frame(self, page):
        return int(self.page_frame[page])


def test_eviction_and_promotion_order():
    p = Tiny()
    for page in range(10, 18):
        p.access(page)
    # [17 16 15 14 13 12 11 10]  free: none; nothing evicted yet, so nothing is promoted
    assert p.lru() == [17, 16, 15, 14, 13, 12, 11, 10]
    assert p.inst[0, L.I_FREE_LEN] == 0
    p.access(20)
    # miss: the 100-page tail scan evicts 10 (freed_page_clock 1); 20 goes to the head
    assert p.lru() == [20, 17, 16, 15, 14, 13, 12, 11]
    p.access(11)
    # hit on 11 (put at the head at clock 0, clock is now 1): not young enough -> head
    assert p.lru() == [11, 20, 17, 16, 15, 14, 13, 12]
    p.access(20)
    # 20 was put at the head at clock 1: still young, stays where it is
    assert p.lru() == [11, 20, 17, 16, 15, 14, 13, 12]
    p.access(21)
    assert p.lru() == [21, 11, 20, 17, 16, 15, 14, 13]
    assert p.page_frame[10] == L.NO_PAGE and p.page_frame[12] == L.NO_PAGE
    assert p.inst[0, L.I_FREED_PAGE_CLOCK] == 2


def test_flush_list_is_written_oldest_first_and_cleaned_on_completion():
    p = Tiny()
    for page in range(10, 18):
        p.access(page)
    p.access(20)  # evicts 10: the clock starts, so hits promote from now on
    lsn0 = p.g[L.G_LSN]
    for page in (13, 15, 14):
        p.access(page, write=True)
    # each write promotes its page; the flush list gets them newest first
    assert p.lru() == [14, 15, 13, 20, 17, 16, 12, 11]
    assert p.flush_list() == [14, 15, 13]
    redo = int(p.knobs[schema.K_REDO_PER_CHANGE])
    assert [int(p.frl[p.frame(x), L.L_OLDEST_MODIFICATION]) for x in (13, 15, 14)] == [
        lsn0,
        lsn0 + redo,
        lsn0 + 2 * redo,
    ]
    n, _ = cleaner.list_batch(
        p.g,
        L.Pool(p.fr, p.frl, p.inst, p.page_frame, p.runs),
        p.knobs,
        p.out,
        L.Ring(p.ring_frame, p.ring_done),
        0,
        2,
        cleaner.LSN_MAX,
        0,
    )
    # the two oldest (13, then 15) are dispatched; they stay dirty while being written
    assert n == 2
    # (written in that order: the first two slots of the completion ring)
    assert [int(p.fr[f, L.F_PAGE]) for f in p.ring_frame[:2]] == [13, 15]
    assert p.flush_list() == [14, 15, 13]
    assert p.inst[0, L.I_PENDING_LIST] == 2
    # a second batch may not start while the first is in flight (buf_flush_start)
    n2, _ = cleaner.list_batch(
        p.g,
        L.Pool(p.fr, p.frl, p.inst, p.page_frame, p.runs),
        p.knobs,
        p.out,
        L.Ring(p.ring_frame, p.ring_done),
        0,
        8,
        cleaner.LSN_MAX,
        0,
    )
    assert n2 == 0
    cleaner.complete_writes(
        p.g,
        L.Pool(p.fr, p.frl, p.inst, p.page_frame, p.runs),
        p.knobs,
        L.Ring(p.ring_frame, p.ring_done),
        10**9,
    )
    assert p.flush_list() == [14]
    # flush-list writes leave the pages in the LRU, clean
    assert p.lru() == [14, 15, 13, 20, 17, 16, 12, 11]
    # checkpoint moves to the oldest remaining modification
    cleaner.checkpoint(p.g, p.frl, p.inst)
    assert p.g[L.G_CHECKPOINT_LSN] == lsn0 + 2 * redo


def test_single_page_flush_frees_the_clean_tail_or_writes_the_dirty_tail():
    p = Tiny()
    for page in range(10, 18):
        p.access(page)
    ok, t, held = free_block.single_page_flush(
        p.g, L.Pool(p.fr, p.frl, p.inst, p.page_frame, p.runs), p.knobs, p.out, 0, 1000
    )
    # clean tail page 10 is simply evicted, at no I/O cost
    assert ok and t == 1000 and held == L.NIL and p.page_frame[10] == L.NO_PAGE
    assert p.lru() == [17, 16, 15, 14, 13, 12, 11]
    # make the tail page dirty: the user thread must write it itself
    f = p.frame(11)
    pool.flush_list_add(p.fr, p.frl, p.inst, p.runs, 0, f, 123)
    ok, t, held = free_block.single_page_flush(
        p.g, L.Pool(p.fr, p.frl, p.inst, p.page_frame, p.runs), p.knobs, p.out, 0, 1000
    )
    # doublewrite write (20 us service + 30 us latency) and fsync (200 us), then the data
    # write (50 us) and its fsync (200 us): 500 us, all on the user thread
    assert ok and t == 1500 and held == f
    assert p.out[0, schema.C_SINGLE] == 1
    assert p.out[0, schema.C_FSYNCS] == 2 and p.out[0, schema.C_W_S] == 2
    # until then the page stays in the LRU, dirty and io-fixed: no one frees or writes it
    assert p.fr[f, L.F_IO] == L.IO_SINGLE and p.flush_list() == [11] and p.lru()[-1] == 11
    free_block.single_flush_done(L.Pool(p.fr, p.frl, p.inst, p.page_frame, p.runs), p.knobs, f)
    assert p.page_frame[11] == L.NO_PAGE and p.flush_list() == []
    assert p.fr[f, L.F_IO] == L.IO_NONE and p.inst[0, L.I_FREE_LEN] == 2  # with 10's frame


def test_an_update_of_a_page_in_a_single_page_flush_waits_for_it():
    p = Tiny()
    for page in range(10, 18):
        p.access(page)
    f = p.frame(10)
    pool.flush_list_add(p.fr, p.frl, p.inst, p.runs, 0, f, 123)
    _, done, held = free_block.single_page_flush(
        p.g, L.Pool(p.fr, p.frl, p.inst, p.page_frame, p.runs), p.knobs, p.out, 0, 1000
    )
    assert held == f and done == 1500
    # the flushing thread holds the page latched until its I/O is done: an update re-checks
    assert p.access(10, write=True, t=1200) == -1
    assert p.g[L.G_SLEEP_UNTIL] == 1200 + L.SINGLE_FLUSH_POLL_US
    assert p.out[0, schema.C_DML_UPDATES] == 0 and p.frl[f, L.L_OLDEST_MODIFICATION] == 123
    # a read of it goes ahead (the flush's latch lets readers in)
    p.g[L.G_SLEEP_UNTIL] = 0
    assert p.access(10, t=1200) == 1200


def test_without_doublewrite_a_single_page_flush_is_one_write_and_one_fsync():
    p = Tiny(doublewrite="OFF")
    for page in range(10, 18):
        p.access(page)
    pool.flush_list_add(p.fr, p.frl, p.inst, p.runs, 0, p.frame(10), 123)
    ok, t, _ = free_block.single_page_flush(
        p.g, L.Pool(p.fr, p.frl, p.inst, p.page_frame, p.runs), p.knobs, p.out, 0, 1000
    )
    assert ok and t == 1000 + 50 + 200


def test_a_page_read_when_all_tail_pages_are_dirty_waits_for_a_single_page_flush():
    p = Tiny()
    for page in range(10, 18):
        p.access(page, write=True)
    # every frame dirty: the tail scan fails (try_LRU_scan is cleared), the thread writes the
    # tail page 10 itself and counts one Innodb_buffer_pool_wait_free
    assert p.access(30, t=1000) == -1
    assert p.inst[0, L.I_TRY_LRU_SCAN] == 0
    assert p.out[0, schema.C_WAIT_FREE] == 1 and p.out[0, schema.C_SINGLE] == 1
    # the search passed all 8 pages (100 ns each: 1 us, rounded up), then the 500 us single-page
    # flush: the thread sleeps until its I/O is done, page 10 still in the pool meanwhile
    assert p.out[0, schema.C_SEARCH_SCANNED] == 8
    wake, resume = int(p.g[L.G_SLEEP_UNTIL]), int(p.g[L.G_FREE_K])
    assert wake == 1000 + 1 + 500 and resume < 0
    held = int(p.g[L.G_HELD]) - 1
    assert p.fr[held, L.F_PAGE] == 10 and p.fr[held, L.F_IO] == L.IO_SINGLE
    # awake (run_step): the frame is freed, and the next iteration takes it for the read
    # (20 us service + 100 us latency), submitted at the wake: in time order
    free_block.single_flush_done(L.Pool(p.fr, p.frl, p.inst, p.page_frame, p.runs), p.knobs, held)
    p.g[L.G_SLEEP_UNTIL] = p.g[L.G_FREE_K] = p.g[L.G_HELD] = 0
    t = kernel_state.access(p, 30, False, wake, resume)
    assert p.page_frame[10] == L.NO_PAGE and p.frame(30) == held
    assert p.out[0, schema.C_WAIT_FREE] == 1 and p.out[0, schema.C_SEARCH_SCANNED] == 8
    assert t == 1000 + 1 + 500 + 120
    assert p.lru()[0] == 30
