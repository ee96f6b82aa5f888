"""User threads' LRU searches in MariaDB 10.6.3, traced on a 600-frame pool.

buf_LRU_get_free_block of the 10.6 generation (free_block_mariadb.get_free_block_mariadb):
with the free list empty a thread searches the LRU for a clean page while it holds
buf_pool.mutex, LRU_SCAN_NS a page examined (the last 100 pages at its first iteration, the
whole list from the second on), and other threads wait for the mutex. Every page is dirty
here, so every search fails.
"""

import kernel_state
import pytest

import flushsim as fs
from flushsim import schema
from flushsim.kernels import layout as L
from flushsim.run import kernel_inputs

pytestmark = pytest.mark.kernel

FRAMES = 600  # above BUF_LRU_MIN_LEN (256): an LRU batch runs


class Pool:
    """One MariaDB 10.6.3 pool of FRAMES frames, driven through the kernel's own functions."""

    def __init__(self):
        sc = fs.Scenario(engine="mariadb-10.6", knobs={"version": "10.6.3"})
        kernel_state.build_pool(self, kernel_inputs(sc).knobs.copy(), FRAMES)

    def access(self, page, t, resume=0):
        """One row update at t (us): its time, or -1 with g[G_SLEEP_UNTIL] / g[G_FREE_K] set."""
        self.g[L.G_SLEEP_UNTIL] = 0
        self.g[L.G_FREE_K] = 0
        return kernel_state.access(self, page, True, t, resume)

    def column(self, name):
        return self.out[:, schema.COL[name]].sum()


@pytest.fixture
def full():
    """Every frame holds a dirty page, the free list is empty, no write is in flight."""
    p = Pool()
    for page in range(FRAMES):
        assert p.access(page, t=1000 + page) >= 0
    assert p.inst[0, L.I_FREE_LEN] == 0 and p.inst[0, L.I_FL_LEN] == FRAMES
    return p


def test_a_failed_search_holds_the_mutex_and_the_next_iteration_searches_the_whole_list(full):
    p, t = full, 1_000_000
    # iteration 0: the last 100 pages (try_LRU_scan), 10 us holding buf_pool.mutex, then on
    assert p.access(2000, t) == -1
    assert (p.g[L.G_SLEEP_UNTIL], p.g[L.G_FREE_K]) == (t + 10, 2)  # resumes past the search
    assert p.inst[0, L.I_LRU_MUTEX] == t + 10 and p.inst[0, L.I_TRY_LRU_SCAN] == 0
    assert p.column("buffer_LRU_search_scanned") == 100
    # meanwhile a second thread waits for the mutex, until just after it is released
    assert p.access(2001, t + 4) == -1
    assert (p.g[L.G_SLEEP_UNTIL], p.g[L.G_FREE_K]) == (t + 11, 1)
    assert p.column("sim_LRU_mutex_wait_ms") == pytest.approx(0.007)
    # the first one goes on: no LRU batch is in flight, so it runs its own, of
    # innodb_lru_flush_size = 32 pages, and sleeps until it has dispatched them
    assert p.access(2000, t + 10, resume=2) == -1
    assert p.column("sim_user_LRU_batch_pages") == 32
    wake, resume = p.g[L.G_SLEEP_UNTIL], p.g[L.G_FREE_K]
    assert wake > t + 10 and resume == 3  # iteration 1, from the top
    # iteration 1: the writes are still in flight, so the whole list is searched (600 pages
    # examined, none replaceable: 60 us) before the thread waits for the batch
    assert wake < p.g[L.G_MA_LRU_BUSY]
    assert p.access(2000, wake, resume=3) == -1
    assert p.column("buffer_LRU_search_scanned") == 100 + FRAMES
    assert p.inst[0, L.I_LRU_MUTEX] == wake + FRAMES * L.LRU_SCAN_NS // 1000
    assert p.g[L.G_FREE_K] == 4  # iteration 1, past the search


def test_the_search_resumes_where_the_last_one_stopped_in_the_young_part(full):
    p, t = full, 1_000_000
    assert p.access(2000, t) == -1  # iteration 0, the last 100 pages: the iterator stays old
    itr = p.inst[0, L.I_LRU_ITR]
    assert itr != L.NIL and p.fr[itr, L.F_LRU] == L.LRU_OLD
    assert p.access(2000, t + 10, resume=2) == -1  # its LRU batch
    wake = p.g[L.G_SLEEP_UNTIL]
    assert p.access(2000, wake, resume=3) == -1  # the whole list: it ends at the head
    assert p.inst[0, L.I_LRU_ITR] == L.NIL
