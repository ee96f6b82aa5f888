"""Seed 004 (Percona): idle flushing writes innodb_io_capacity pages per second.

With about 45,000 dirty pages and no load, the rate is 300, 200 and 100 pages/s in turn
(tolerance 5 %, the issue's).
"""

import polars as pl
import pytest

import flushsim as fs


@pytest.fixture(scope="module")
def series():
    return fs.simulate(fs.presets.get("seed004-idle-flush")).series


def test_about_45000_dirty_pages_when_the_load_stops(series):
    at_stop = series.filter(pl.col("time_s") == 10).row(0, named=True)
    assert 40_000 <= at_stop["buffer_pool_pages_dirty"] <= 46_000


@pytest.mark.parametrize(
    ("start", "end", "io_capacity"), [(12, 40, 300), (42, 70, 200), (72, 100, 100)]
)
def test_idle_flush_rate_equals_io_capacity(series, start, end, io_capacity):
    window = series.filter((pl.col("time_s") > start) & (pl.col("time_s") <= end))
    rate = window["buffer_flush_background_total_pages"].mean()
    assert rate == pytest.approx(io_capacity, rel=0.05)
    # idle flushing is the only flushing: no adaptive, LRU or sync pages
    for col in (
        "buffer_flush_adaptive_total_pages",
        "buffer_LRU_batch_flush_total_pages",
        "buffer_flush_sync_total_pages",
    ):
        assert window[col].sum() == 0, col
    assert (window["sim_tps"] == 0).all()
