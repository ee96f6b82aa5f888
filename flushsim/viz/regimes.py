"""Moments where a run changes regime, in plain words, for the explorer's timeline.

Each rule looks at the per-second series (InnoDB metric names) and reports the first second
of every stretch in which it holds, so a regime that comes back is reported again. The words
are what a trainer would say while pointing at the curve.
"""

from __future__ import annotations

import html
import math

import polars as pl

from .. import params
from ..knob_text import event_text
from ..run import Run

MYSQL = params.MYSQL80

# (key, condition on the series, {engine: words}). Conditions are polars expressions over one
# row; words under MYSQL serve every engine that has none of its own.
RULES: tuple[tuple[str, pl.Expr, dict[str, str]], ...] = (
    (
        "lru_batch",
        pl.col("buffer_LRU_batch_evict_total_pages") + pl.col("buffer_LRU_batch_flush_total_pages")
        > 0,
        {
            # buf_flush_LRU_list (8.0): per instance, up to innodb_lru_scan_depth pages a round
            MYSQL: "free list below innodb_lru_scan_depth (per instance): the page cleaner's "
            "LRU batches evict pages",
            # buf_flush_page_cleaner -> buf_flush_LRU while buf_pool.need_LRU_eviction()
            params.MARIADB1011: "free list below innodb_lru_scan_depth: the page cleaner evicts "
            "from the LRU tail",
            params.MARIADB106: "LRU batches evict pages (the page cleaner's below "
            "innodb_lru_scan_depth free pages, a user thread's of innodb_lru_flush_size)",
        },
    ),
    (
        "free_empty",
        (pl.col("buffer_pool_wait_free") > 0) | (pl.col("sim_single_page_flushes") > 0),
        {
            # buf_LRU_get_free_block -> buf_flush_single_page_from_LRU (8.0)
            MYSQL: "free list empty: user threads flush pages themselves "
            "(Innodb_buffer_pool_wait_free)",
            # buf_LRU_get_free_block -> buf_flush_LRU(innodb_lru_flush_size), 10.6.0-10.11.7
            params.MARIADB106: "free list empty: user threads run LRU batches of "
            "innodb_lru_flush_size pages themselves (Innodb_buffer_pool_wait_free)",
            # buf_LRU_get_free_block wakes the page cleaner and waits (MDEV-33613, 10.11.8+)
            params.MARIADB1011: "free list empty: user threads wait for the page cleaner to free "
            "pages (Innodb_buffer_pool_wait_free)",
        },
    ),
    (
        "adaptive",
        pl.col("buffer_flush_adaptive_total_pages") > 0,
        {
            MYSQL: "adaptive flushing: the flush list is written to keep up with dirty pages "
            "and redo",
        },
    ),
    (
        "async",
        pl.col("log_lsn_checkpoint_age") > pl.col("log_max_modified_age_async"),
        {
            MYSQL: "checkpoint age passed the async limit: flushing works harder to advance "
            "the checkpoint",
        },
    ),
    (
        "sync",
        pl.col("buffer_flush_sync_total_pages") > 0,
        {
            MYSQL: "checkpoint age passed the sync limit: sync flushing, users wait for the "
            "checkpoint",
            # buf_flush_sync_for_checkpoint: MariaDB calls it furious flushing
            params.MARIADB106: "checkpoint age passed the sync limit: furious flushing, users "
            "wait for the checkpoint",
            params.MARIADB1011: "checkpoint age passed the sync limit: furious flushing, users "
            "wait for the checkpoint",
        },
    ),
    (
        "redo_wait",
        pl.col("sim_redo_wait_ms") > 0,
        {MYSQL: "redo log full: user threads wait in log_free_check"},
    ),
    (
        "idle",
        # A second with transactions is not idle, whatever the first cleaner round saw.
        (pl.col("buffer_flush_background_total_pages") > 0) & (pl.col("sim_tps") == 0),
        {
            MYSQL: "server idle: background flushing at innodb_io_capacity x innodb_idle_flush_pct",
            # buf_flush_page_cleaner's idle pass: innodb_io_capacity pages (no idle_flush_pct)
            params.MARIADB106: "server idle: background flushing at innodb_io_capacity",
            params.MARIADB1011: "server idle: background flushing at innodb_io_capacity",
        },
    ),
)


def rule_text(key: str, engine: str) -> str:
    """The words of regime `key` on `engine`."""
    words = next(w for k, _, w in RULES if k == key)
    return words.get(engine, words[MYSQL])


def regime_changes(run: Run) -> pl.DataFrame:
    """Columns `time_s`, `x`, `regime` and `text`, in time order.

    A regime is reported at `time_s`, the end of the first second of its stretch (`x` is that
    second's middle); a timeline event at its own moment (`time_s` rounded up, `x` exact).
    """
    s = run.series
    engine = run.scenario.engine
    rows: list[tuple[int, float, str, str]] = []
    for key, cond, _ in RULES:
        flags = s.select(cond.fill_null(False).alias("on"))["on"].to_list()
        before = False
        for t, on in zip(s["time_s"].to_list(), flags, strict=True):
            if on and not before:
                rows.append((t, t - 0.5, key, rule_text(key, engine)))
            before = on
    for at, action, knob, value in run.scenario.changes:
        if at > s.height:  # after the run's end (a run shorter than its preset's timeline)
            continue
        key = "set" if action == "set" else action.split("_")[0]
        rows.append((math.ceil(at), float(at), key, event_text(action, knob, value, engine)))
    rows.sort(key=lambda r: (r[0], r[1]))
    return pl.DataFrame(
        {
            "time_s": [r[0] for r in rows],
            "x": [r[1] for r in rows],
            "regime": [r[2] for r in rows],
            "text": [r[3] for r in rows],
        },
        schema={"time_s": pl.Int64, "x": pl.Float64, "regime": pl.String, "text": pl.String},
    )


def regime_summary(run: Run) -> pl.DataFrame:
    """Each regime once, with its first second and how many seconds it held.

    Columns `time_s`, `seconds` and `text`, in time order; a timeline event is a row of its own
    (`seconds` null). What a report lists, where `regime_changes` (the timeline's marks) repeats
    a regime each time it comes back: sync and adaptive flushing alternate every second or two
    under a write burst.
    """
    s = run.series
    engine = run.scenario.engine
    rows: list[tuple[int, int | None, str]] = []
    for key, cond, _ in RULES:
        on = s.select(cond.fill_null(False).alias("on"))["on"]
        if on.any():
            first = int(s["time_s"].filter(on)[0])
            rows.append((first, int(on.sum()), rule_text(key, engine)))
    for at, action, knob, value in run.scenario.changes:
        if at <= s.height:  # not after the run's end
            rows.append((math.ceil(at), None, event_text(action, knob, value, engine)))
    rows.sort(key=lambda r: r[0])
    return pl.DataFrame(
        {
            "time_s": [r[0] for r in rows],
            "seconds": [r[1] for r in rows],
            "text": [r[2] for r in rows],
        },
        schema={"time_s": pl.Int64, "seconds": pl.Int64, "text": pl.String},
    )


def summary_items(summary: pl.DataFrame) -> str:
    """`regime_summary` as HTML list items: "sync flushing ...: 13 s, from t=21 s"."""
    items = []
    for t, n, text in summary.iter_rows():
        words = f"at {t} s: {text}" if n is None else f"{text}: {n} s, from t={t} s"
        items.append(f"<li>{html.escape(words)}</li>")
    return "".join(items) or "<li>none</li>"
