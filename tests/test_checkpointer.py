"""MySQL's log_checkpointer cadence and the log_free_check margin (log0chkp.cc).

A busy server checkpoints every log_busy_checkpoint_interval (7) x innodb_log_checkpoint_every;
an idle one every innodb_log_checkpoint_every; a thread past the free-check limit requests one.
"""

import functools

import polars as pl

import flushsim as fs
from flushsim.kernels import cleaner
from flushsim.run import kernel_inputs

# a busy server far below the aggressive age (31/32 of soft) and the free-check limit
BUSY = {
    "innodb_buffer_pool_size": "64M",
    "table_rows": 200_000,
    "threads": 4,
    "innodb_redo_log_capacity": 8 * 1024**3,
}


@functools.cache
def series(seconds=40, **knobs):
    sc = fs.Scenario(knobs={**BUSY, **knobs}, seconds=seconds)
    return fs.simulate(sc).series


def _moves(s):
    """Seconds in which the checkpoint LSN moved."""
    return int((s["log_lsn_last_checkpoint"].diff().fill_null(0) != 0).sum())


def test_a_busy_server_checkpoints_once_in_seven_seconds():
    s = series()
    soft = cleaner.redo_limits(kernel_inputs(fs.Scenario(knobs=BUSY)).knobs)[0]
    assert s["sim_tps"].min() > 0  # busy every second
    assert s["log_lsn_checkpoint_age"].max() < soft - soft // 32
    # 40 s: every 7 s (every second before the fix)
    assert 4 <= _moves(s) <= 40 // 7 + 1


def test_the_busy_interval_scales_with_innodb_log_checkpoint_every():
    s = series(innodb_log_checkpoint_every=500)
    assert 40 // 7 + 2 <= _moves(s) <= 40 // 3.5 + 1


def test_an_idle_server_checkpoints_every_second():
    sc = fs.Scenario(knobs=BUSY, seconds=30).stop_workload(10)
    # idle from the second timeout without commits (the coordinator decides before its sleep)
    s = fs.simulate(sc).series.filter(pl.col("time_s").is_between(13, 24))
    # idle flushing cleans innodb_io_capacity pages a second: the checkpoint follows each second
    assert s["buffer_flush_background_total_pages"].min() == 200
    assert _moves(s) >= s.height - 1


def test_free_check_margin_is_capped_at_55_pct_of_soft():
    knobs = kernel_inputs(fs.Scenario(knobs={"innodb_thread_concurrency": 1000})).knobs
    soft, *_, margin = cleaner.redo_limits(knobs)
    # log_concurrency_margin: LOG_CONCCURENCY_MARGIN_MAX_PCT 50 + LOG_EXTRA_CONC_MARGIN_PCT 5
    assert margin == soft * 55 // 100 // 512 * 512
    assert margin > soft // 2
