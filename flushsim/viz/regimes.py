"""Moments where a run changes regime, in plain words, for the explorer's timeline.

Each rule looks at the per-second series (InnoDB metric names) and reports the first second
of every stretch in which it holds, so a regime that comes back is reported again. The words
are what a trainer would say while pointing at the curve.
"""

from __future__ import annotations

import polars as pl

from ..run import Run

# (key, condition on the series, words). Conditions are polars expressions over one row.
RULES: tuple[tuple[str, pl.Expr, str], ...] = (
    (
        "lru_batch",
        pl.col("buffer_LRU_batch_evict_total_pages") + pl.col("buffer_LRU_batch_flush_total_pages")
        > 0,
        "free list below innodb_lru_scan_depth: the page cleaner's LRU batches evict pages",
    ),
    (
        "free_empty",
        (pl.col("buffer_pool_wait_free") > 0) | (pl.col("sim_single_page_flushes") > 0),
        "free list empty: user threads flush pages themselves (Innodb_buffer_pool_wait_free)",
    ),
    (
        "adaptive",
        pl.col("buffer_flush_adaptive_total_pages") > 0,
        "adaptive flushing: the flush list is written to keep up with dirty pages and redo",
    ),
    (
        "async",
        pl.col("log_lsn_checkpoint_age") > pl.col("log_max_modified_age_async"),
        "checkpoint age passed the async limit: flushing works harder to advance the checkpoint",
    ),
    (
        "sync",
        pl.col("buffer_flush_sync_total_pages") > 0,
        "checkpoint age passed the sync limit: sync flushing, users wait for the checkpoint",
    ),
    (
        "redo_wait",
        pl.col("sim_redo_wait_ms") > 0,
        "redo log full: user threads wait in log_free_check",
    ),
    (
        "idle",
        # A second with transactions is not idle, whatever the first cleaner round saw.
        (pl.col("buffer_flush_background_total_pages") > 0) & (pl.col("sim_tps") == 0),
        "server idle: background flushing at innodb_io_capacity x innodb_idle_flush_pct",
    ),
)


def regime_changes(run: Run) -> pl.DataFrame:
    """Columns `time_s` (end of the first second of each stretch), `regime` and `text`."""
    s = run.series
    rows: list[tuple[int, str, str]] = []
    for key, cond, text in RULES:
        flags = s.select(cond.fill_null(False).alias("on"))["on"].to_list()
        before = False
        for t, on in zip(s["time_s"].to_list(), flags, strict=True):
            if on and not before:
                rows.append((t, key, text))
            before = on
    for at, action, knob, value in run.scenario.changes:
        if action == "stop_workload":
            rows.append((int(at) + 1, "stop", f"workload stopped at {at:g} s"))
        elif action == "start_workload":
            rows.append((int(at) + 1, "start", f"workload started at {at:g} s"))
        elif action == "set":
            rows.append((int(at) + 1, "set", f"SET GLOBAL {knob} = {value} at {at:g} s"))
    rows.sort()
    return pl.DataFrame(
        {
            "time_s": [r[0] for r in rows],
            "regime": [r[1] for r in rows],
            "text": [r[2] for r in rows],
        },
        schema={"time_s": pl.Int64, "regime": pl.String, "text": pl.String},
    )
