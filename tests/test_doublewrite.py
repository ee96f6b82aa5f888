"""MySQL 8.0's doublewrite batches (Double_write::flush_to_disk, buf0dblwr.cc; cleaner.dispatch).

One batch of innodb_doublewrite_pages in flight per doublewrite instance (pool instance and
flush type), each followed by an fsync of the data files (fil_flush_file_spaces), which
O_DIRECT does not skip. On a SATA drive that fsync is a cache flush of ~2 ms that holds the
queue, so small batches cap the LRU flushing a larger innodb_doublewrite_pages lifts.
"""

import functools

import polars as pl

import flushsim as fs
from flushsim import devices

# issue #33's scenario scaled down (512 MiB over 20 M rows, 32 threads): a pool 1/12 of the
# table, every miss needs a free page, so the LRU batches set the pace
KNOBS = {
    "innodb_buffer_pool_size": "128M",
    "table_rows": 5_000_000,
    "threads": 32,
    "innodb_flush_method": "O_DIRECT",
    "device": "sata-ssd",
}
WARM = 10  # seconds left out: the pool fills first


@functools.cache
def series(**knobs):
    sc = fs.Scenario(knobs={**KNOBS, **knobs}, seconds=30)
    return fs.simulate(sc).series.filter(pl.col("time_s") > WARM)


def test_every_doublewrite_batch_is_followed_by_a_data_file_fsync_under_o_direct():
    s = series()
    batches = s["innodb_dblwr_writes"].sum()
    # the redo log is fsynced once per log write (MySQL writes it buffered under O_DIRECT);
    # the doublewrite file itself is not (Double_write::is_fsync_required)
    data_fsyncs = s["sim_fsyncs"].sum() - s["log_writes"].sum()
    assert batches > 1000
    assert data_fsyncs >= batches


def test_larger_doublewrite_batches_lift_lru_flushing_on_sata():
    small = series(innodb_doublewrite_pages=4)["buffer_LRU_batch_flush_total_pages"].mean()
    large = series(innodb_doublewrite_pages=128)["buffer_LRU_batch_flush_total_pages"].mean()
    assert large >= 1.3 * small


def test_one_batch_in_flight_per_instance_and_flush_type():
    s = series(innodb_doublewrite_pages=4)
    # one pool instance (128 MiB), two flush types; each batch's cycle on SATA includes its
    # data-file fsync (device_fsync_latency_us 2,000): at most 500 batches a second per type
    fsync_us = devices.knobs("sata-ssd")["device_fsync_latency_us"]
    assert s["innodb_dblwr_writes"].max() <= 2 * 1e6 / fsync_us
