"""Seed 001 (hackmysql.com, MySQL 8.0.26): LRU flushing is not limited by innodb_io_capacity.

Article: after re-enabling the page cleaner on a pool that is nearly all dirty with almost no
free pages, one second shows an LRU batch of 1,178 pages and a flush-list batch of 122 pages
(io_capacity 200, io_capacity_max 400, lru_scan_depth 2048), then background flushing at
exactly 200 pages/s.
"""

import polars as pl
import pytest

import flushsim as fs

ENABLE_AT = 40  # innodb_page_cleaner_disabled_debug=0 in the preset


@pytest.fixture(scope="module")
def series():
    return fs.simulate(fs.presets.get("seed001-lru-burst")).series


def _row(series, time_s):
    return series.filter(pl.col("time_s") == time_s).row(0, named=True)


def test_pool_is_nearly_all_dirty_with_few_free_pages_before_enabling(series):
    before = _row(series, ENABLE_AT)
    # Article: 8,192 pages, 8,128 data, 5,685 dirty, 64 free. flushsim: the whole UPDATE range
    # (7,353 pages) stays dirty and the free list is empty. Tolerance: at least 60 % dirty and
    # under 1 % free, the condition the article needs for a big LRU batch.
    assert before["buffer_pool_pages_total"] == 8192
    assert before["buffer_pool_pages_dirty"] >= 0.60 * 8192
    assert before["buffer_pool_pages_free"] <= 0.01 * 8192
    # the cleaner was really off: nothing flushed while it was disabled
    off = series.filter((pl.col("time_s") > 11) & (pl.col("time_s") <= ENABLE_AT))
    assert off["buffer_LRU_batch_flush_total_pages"].sum() == 0
    assert off["buffer_flush_adaptive_total_pages"].sum() == 0


def test_first_second_lru_batch_exceeds_io_capacity_max(series):
    burst = _row(series, ENABLE_AT + 1)
    lru = burst["buffer_LRU_batch_flush_total_pages"]
    lst = burst["buffer_flush_adaptive_total_pages"]
    # Article: LRU = 1,178 (tolerance +-25 %: the dirty/clean mix at the LRU tail depends on
    # how the UPDATE left the pool), far above innodb_io_capacity_max = 400.
    assert 1178 * 0.75 <= lru <= 1178 * 1.25
    assert lru > 2 * 400
    # One LRU batch scans until flushed + evicted reaches innodb_lru_scan_depth = 2048.
    assert lru + burst["buffer_LRU_batch_evict_total_pages"] == 2048
    # Article: a small flush-list batch of 122 pages (tolerance +-25 %), under io_capacity_max.
    assert 122 * 0.75 <= lst <= 122 * 1.25
    assert lst < 400


def test_then_a_quiet_second_then_background_flushing_at_io_capacity(series):
    # Article: the second after the burst writes nothing (list = LRU = bg = 0, write = 1): the
    # coordinator's round in it still counts the server active and the LSN has not moved.
    quiet = _row(series, ENABLE_AT + 2)
    kinds = ("LRU_batch_flush", "flush_adaptive", "flush_background", "flush_sync")
    assert sum(quiet[f"buffer_{k}_total_pages"] for k in kinds) == 0
    after = series.filter(pl.col("time_s").is_between(ENABLE_AT + 3, ENABLE_AT + 16))
    assert after.height == 14  # the preset runs at least 16 s past the burst
    # Article: then bg = 200 every second (idle flushing at innodb_io_capacity). Exact here.
    assert (after["buffer_flush_background_total_pages"] == 200).all()
    assert after["buffer_LRU_batch_flush_total_pages"].sum() == 0
