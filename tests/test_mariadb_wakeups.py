"""When MariaDB's user threads wake the page cleaner (issue 32, docs/model.md).

- buf_flush_ahead(lsn, false) (buf0flu.cc): a new async target wakes the 10.11 cleaner only if
  it is idle; a busy cleaner keeps its one round a second.
- buf_LRU_get_free_block (buf0lru.cc, MDEV-33053): a thread that takes a free page and leaves
  fewer than innodb_lru_scan_depth / 2 wakes the cleaner, from its timed wait too
  (page_cleaner_wakeup(true)), unless the cleaner is in an LRU pass.

The free-page wake-up is traced on a hand-built pool through the kernel's own functions; the
async target on a short run.
"""

import kernel_state
import polars as pl
import pytest

import flushsim as fs
from flushsim.kernels import layout as L

pytestmark = pytest.mark.kernel

FRAMES = 600  # an LRU above BUF_LRU_MIN_LEN (256)
DEPTH = 200  # innodb_lru_scan_depth: the wake-up is below 100 free pages
T = 5_000_000
TIMED_WAIT_END = T + 700_000  # the cleaner's 1-second wait, not over yet


class Pool:
    """A MariaDB pool of FRAMES frames, one user thread and the page cleaner (its last entry)."""

    def __init__(self, engine, version=None):
        knobs = {"innodb_lru_scan_depth": DEPTH}
        if version:
            knobs["version"] = version
        sc = fs.Scenario(engine=engine, knobs=knobs)
        kernel_state.init_pool(self, sc, FRAMES)

    def read_until_free(self, free):
        """Read new pages (clean) until `free` frames are left on the free list."""
        page = 0
        while self.inst[0, L.I_FREE_LEN] > free:
            assert kernel_state.access(self, page, False, 1000 + page) >= 0
            page += 1
        self.next_page = page

    def cleaner(self, wake, idle, phase=L.PH_TOP):
        """The page cleaner waits until `wake` (L.INF_TIME: untimed), idle or not."""
        self.times[1] = wake
        self.g[L.G_MA_IDLE] = 1 if idle else 0
        self.g[L.G_MA_PHASE] = phase
        self.g[L.G_PC_ROUND_END] = 0

    def take_one(self):
        """A thread reads one more page at T, taking a free frame; the cleaner's wake time."""
        assert kernel_state.access(self, self.next_page, False, T) >= 0
        self.next_page += 1
        return self.times[1]


@pytest.mark.parametrize("engine", ["mariadb-10.11", "mariadb-10.6"])
def test_a_thread_below_half_the_scan_depth_wakes_a_cleaner_in_its_timed_wait(engine):
    # mariadb-10.6 at its default release, 10.6.17: MDEV-33053 is in
    p = Pool(engine)
    p.read_until_free(DEPTH // 2 + 1)
    p.cleaner(TIMED_WAIT_END, idle=False)
    assert p.take_one() == TIMED_WAIT_END  # 100 left: not below half the depth
    assert p.take_one() == T  # 99 left: page_cleaner_wakeup(true) ends the timed wait
    assert p.g[L.G_MA_IDLE] == 0


def test_no_wake_up_during_the_cleaners_lru_pass():
    # page_cleaner_active(): the cleaner waits for its writes before an LRU pass
    p = Pool("mariadb-10.11")
    p.read_until_free(DEPTH // 4)
    p.cleaner(TIMED_WAIT_END, idle=False, phase=L.PH_LRU_PASS)
    assert p.take_one() == TIMED_WAIT_END


def test_10_11_does_not_wake_an_idle_cleaner_above_half_the_scan_depth():
    p = Pool("mariadb-10.11")
    p.read_until_free(DEPTH - 10)
    p.cleaner(L.INF_TIME, idle=True)
    assert p.take_one() == L.INF_TIME


def test_10_6_17_soft_wake_up_reaches_only_an_idle_cleaner():
    # MDEV-33053 in 10.6.17: below the whole scan depth an idle cleaner is woken, a busy one
    # keeps its timed wait
    p = Pool("mariadb-10.6")
    p.read_until_free(DEPTH - 10)
    p.cleaner(L.INF_TIME, idle=True)
    assert p.take_one() == T
    p.cleaner(TIMED_WAIT_END, idle=False)
    assert p.take_one() == TIMED_WAIT_END


def test_before_mdev_33053_taking_a_free_page_wakes_nobody():
    p = Pool("mariadb-10.6", version="10.6.16")
    p.read_until_free(10)
    p.cleaner(L.INF_TIME, idle=True)
    assert p.take_one() == L.INF_TIME


# The issue's scenario scaled down so that only the redo log drives flushing: the issue's 16
# threads of 4-row updates, innodb_io_capacity 200 / _max 400, a 1 GiB pool, but 2 M rows (the
# data fits in the pool, so no LRU eviction keeps the cleaner from its 1-second wait), an 8 MiB
# ib_logfile0 and a steady 1,000 transactions a second (1 MB of redo a second): the async zone
# is reached in about 5 s, and furious flushing would follow if the cleaner keeps to
# innodb_io_capacity_max a second.
ASYNC_ZONE = fs.Scenario(
    engine="mariadb-10.11",
    seconds=20,
    knobs={
        "innodb_buffer_pool_size": "1G",
        "table_rows": 2_000_000,
        "threads": 16,
        "rows_per_trx": 4,
        "write_pct": 100.0,
        "workload": "uniform",
        "innodb_log_file_size": "8M",
        "trx_rate": 1000.0,
        "innodb_io_capacity": 200,
        "innodb_io_capacity_max": 400,
    },
)


def test_a_busy_cleaner_keeps_one_round_a_second_in_the_async_zone():
    s = fs.simulate(ASYNC_ZONE).series
    assert s["buffer_LRU_batch_flush_total_pages"].sum() == 0  # no LRU pressure here
    calm = s.filter(pl.col("buffer_flush_sync_total_pages") == 0)
    listed = calm["buffer_flush_background_total_pages"] + calm["buffer_flush_adaptive_total_pages"]
    # at most innodb_io_capacity_max flush-list pages a second outside furious flushing (with a
    # wake-up at every commit that raised the async target: 2,000 to 3,200)
    assert listed.max() <= 400, listed.to_list()
    # so the checkpoint age reaches max_checkpoint_age and furious flushing starts
    assert s["buffer_flush_sync_total_pages"].sum() > 0


# The issue's own scenario: 1 GiB pool over 20 M rows (4.6 GB of pages), IO-bound. Its free
# list stays below innodb_lru_scan_depth / 2, so buf_pool.need_LRU_eviction() holds and
# buf_flush_page_cleaner skips its wait altogether (`if (!buf_pool.need_LRU_eviction())` guards
# both waits); every iteration with an async target then also writes innodb_io_capacity_max
# flush-list pages. So this regime's flush-list rate does not come from the wake-ups fixed here.
ISSUE_SCENARIO = fs.Scenario(
    engine="mariadb-10.11",
    seconds=60,
    knobs={
        **ASYNC_ZONE.knobs,
        "table_rows": 20_000_000,
        "innodb_log_file_size": "64M",
        "trx_rate": 0.0,
    },
)


@pytest.mark.xfail(
    strict=True,
    reason="issue 32's expectation for its IO-bound scenario: measured after the fix, a p90 of "
    "12,000 flush-list pages a second (30 x innodb_io_capacity_max) and no furious flushing in "
    "60 s (checkpoint age at most 46.7 MB), unchanged from before it, because "
    "need_LRU_eviction() keeps the cleaner from waiting (buf_flush_page_cleaner): the "
    "server's loop as read does the same, so the expectation is in doubt, not yet the model; "
    "a recording of this load would settle it (docs/model.md)",
)
def test_issue_scenario_keeps_to_io_capacity_max_and_reaches_furious_flushing():
    s = fs.simulate(ISSUE_SCENARIO).series
    calm = s.filter(pl.col("buffer_flush_sync_total_pages") == 0)
    listed = calm["buffer_flush_background_total_pages"] + calm["buffer_flush_adaptive_total_pages"]
    assert listed.quantile(0.9) <= 1.1 * 400
    assert s["buffer_flush_sync_total_pages"].sum() > 0
