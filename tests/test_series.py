"""The per-second table: InnoDB's column names, conservation of pages, determinism."""

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import flushsim as fs

DESIGN_COLUMNS = [
    "time_s",
    "buffer_pool_pages_total",
    "buffer_pool_pages_free",
    "buffer_pool_pages_data",
    "buffer_pool_pages_dirty",
    "buffer_LRU_batch_flush_total_pages",
    "buffer_LRU_batch_evict_total_pages",
    "buffer_flush_adaptive_total_pages",
    "buffer_flush_background_total_pages",
    "buffer_flush_sync_total_pages",
    "sim_single_page_flushes",
    "buffer_pool_wait_free",
    "innodb_dblwr_pages_written",
    "log_lsn_current",
    "log_lsn_checkpoint_age",
    "log_max_modified_age_async",
    "log_max_modified_age_sync",
    "dml_reads",
    "dml_updates",
    "buffer_pool_read_requests",
    "buffer_pool_reads",
    "sim_tps",
    "sim_trx_latency_p99_ms",
    "sim_trx_latency_max_ms",
    "r_s",
    "w_s",
    "rkB_s",
    "wkB_s",
    "aqu_sz",
    "r_await_ms",
    "w_await_ms",
    "util_pct",
    "sim_fsyncs",
    "sim_fsync_latency_ms",
]

SMALL = fs.Scenario(
    knobs={
        "innodb_buffer_pool_size": "16M",
        "table_rows": 150_000,
        "threads": 4,
        "write_pct": 50,
        "innodb_redo_log_capacity": "16M",
    },
    seconds=12,
)


@pytest.fixture(scope="module")
def run():
    return fs.simulate(SMALL)


def test_design_columns_present(run):
    missing = [c for c in DESIGN_COLUMNS if c not in run.series.columns]
    assert not missing
    assert run.series.height == 12
    assert run.series["time_s"].to_list() == list(range(1, 13))


def test_pages_are_conserved_and_nothing_is_negative(run):
    s = run.series
    assert (
        s["buffer_pool_pages_free"] + s["buffer_pool_pages_data"] == s["buffer_pool_pages_total"]
    ).all()
    assert (s["buffer_pool_pages_dirty"] <= s["buffer_pool_pages_data"]).all()
    numeric = s.select(pl.exclude("sim_trx_latency_p99_ms", "sim_trx_latency_max_ms"))
    for col in numeric.columns:
        assert numeric[col].min() >= 0, col
    assert (s["log_lsn_checkpoint_age"] <= s["log_lsn_current"]).all()


def test_io_bound_pool_flushes_through_the_lru(run):
    # The table is twice the pool: LRU batches and single-page flushes do the writing.
    s = run.series
    lru = s["buffer_LRU_batch_flush_total_pages"].sum()
    assert lru > s["buffer_flush_adaptive_total_pages"].sum()
    assert s["buffer_pool_reads"].sum() > 0


def test_small_redo_drives_sync_flushing_and_redo_waits():
    # The table fits in the pool, so only redo forces writes: 16 MiB of redo at this update
    # rate passes the sync point and MySQL flushes furiously; threads wait in log_free_check.
    s = fs.simulate(SMALL.replace(table_rows=40_000, innodb_lru_scan_depth=100)).series
    assert s["buffer_flush_sync_total_pages"].sum() > 0
    assert s["sim_redo_wait_ms"].sum() > 0
    # checkpoint age is held near the sync point, never far past the free-check limit
    assert s["log_lsn_checkpoint_age"].max() <= s["log_max_modified_age_sync"].max() * 1.1


def test_same_seed_same_numbers_other_seed_other_numbers(run):
    assert_frame_equal(fs.simulate(SMALL).series, run.series)
    other = fs.simulate(SMALL, seed=2).series
    assert (
        not other.equals(run.series)
        or other["dml_updates"].to_list() != run.series["dml_updates"].to_list()
    )


def test_write_parquet_and_csv(tmp_path, run):
    p = run.write(tmp_path / "r.parquet")
    assert_frame_equal(pl.read_parquet(p), run.series)
    c = run.write(tmp_path / "r.csv")
    assert pl.read_csv(c).columns == run.series.columns
    with pytest.raises(ValueError, match=r"\.csv or \.parquet"):
        run.write(tmp_path / "r.xlsx")


def test_default_preset_drains_the_free_list_then_lru_flushes():
    s = fs.simulate(fs.presets.get("default"), seconds=30).series
    assert s["buffer_pool_pages_free"][0] > 0.5 * s["buffer_pool_pages_total"][0]
    assert s["buffer_pool_pages_free"].min() < 0.05 * s["buffer_pool_pages_total"][0]
    assert s["buffer_LRU_batch_evict_total_pages"].sum() > 0
    assert s["buffer_flush_adaptive_total_pages"].sum() > 0
