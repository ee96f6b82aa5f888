"""Seed 001: Daniel Nichter, "MySQL LRU Flushing and I/O Capacity", hackmysql.com (2021).

MySQL 8.0.26-debug; preset `seed001-lru-burst`: the first second after the page cleaner is
re-enabled, LRU flushing ignores innodb_io_capacity_max.
"""

from __future__ import annotations

import math

import polars as pl

from ..run import Run
from .measures import row_at, set_times
from .tolerances import (
    at_least,
    at_most,
    comparison_table,
    exact,
    relative,
)

SEED001_ARTICLE = {
    "pages_total": 8192,  # buffer_pool_pages_total (128 MiB of 16 KiB pages)
    "pages_data": 8128,  # buffer_pool_pages_data after the UPDATE
    "pages_dirty": 5685,  # buffer_pool_pages_dirty after the UPDATE
    "pages_free": 64,  # buffer_pool_pages_free after the UPDATE
    "lru": 1178,  # "flush 0 completed, 1178 pages" / LRU = 1178 in the first second
    "list": 122,  # "from flush_list 122 pages" / list = 122
    "writes": 1300,  # os_data_writes in that second
    "io_capacity_max": 400,  # innodb-io-capacity-max=400 in the article's my.cnf
    "lru_scan_depth": 2048,  # innodb_lru_scan_depth=2048: the article's bound on the batch
    "quiet": 0,  # the next second: list = 0, LRU = 0, bg = 0 (write = 1)
    "background": 200,  # bg = 200 in every second after that
}
"""Seed 001's numbers, as printed in the article (pages, or pages per second)."""


def _seed001_enable_at(run: Run) -> int:
    """The second at which the page cleaner is re-enabled (innodb_page_cleaner_disabled_debug=0)."""
    offs = [at for at, v in set_times(run, "innodb_page_cleaner_disabled_debug") if not v]
    ons = [at for at, v in set_times(run, "innodb_page_cleaner_disabled_debug") if v]
    if not offs or not ons or offs[-1] < ons[-1]:
        raise ValueError(
            "this run is not seed 001's experiment: its timeline must disable the page cleaner "
            "(innodb_page_cleaner_disabled_debug=ON) and re-enable it later (use the preset "
            "'seed001-lru-burst')"
        )
    return int(offs[-1])


def seed001_burst(run: Run) -> dict[str, float]:
    """The first second after the page cleaner is re-enabled in a seed 001 run, and a later one.

    Args:
        run: a run of `seed001-lru-burst` (possibly with other knobs).

    Returns:
        A dict of pages (or pages/s): `lru_flushed` (buffer_LRU_batch_flush_total_pages in the
        first second), `lru_evicted` (buffer_LRU_batch_evict_total_pages), `lru_scanned`
        (flushed + evicted), `list_flushed` (buffer_flush_adaptive_total_pages), `writes`
        (w_s, the device's writes), and `background_later` (buffer_flush_background_total_pages
        in the second after the quiet one that follows the burst).

    Raises:
        ValueError: the run is not seed 001's experiment or ends before that later second.
    """
    t = _seed001_enable_at(run)
    burst = row_at(run, t + 1)
    later = row_at(run, t + 3)  # t + 2 is the quiet second (see seed001_table)
    lru = burst["buffer_LRU_batch_flush_total_pages"]
    evict = burst["buffer_LRU_batch_evict_total_pages"]
    return {
        "lru_flushed": float(lru),
        "lru_evicted": float(evict),
        "lru_scanned": float(lru + evict),
        "list_flushed": float(burst["buffer_flush_adaptive_total_pages"]),
        "writes": float(burst["w_s"]),
        "background_later": float(later["buffer_flush_background_total_pages"]),
    }


def seed001_table(run: Run) -> pl.DataFrame:
    """Seed 001 (hackmysql.com, MySQL 8.0.26): the article's numbers next to the run's.

    The article disables the page cleaner (debug build), dirties most of a 128 MiB pool with an
    UPDATE, re-enables the cleaner and reads `information_schema.innodb_metrics` every second:
    one LRU batch of 1,178 pages and a flush-list batch of 122 in the first second (1,300
    writes), far above innodb_io_capacity_max = 400, a second with nothing flushed, then
    background flushing at 200 pages/s.

    Rows (pages, pages per second or a ratio, as each quantity says): the pool before the
    cleaner is re-enabled (total, data, dirty, free); the first second (LRU batch, flush-list
    batch, writes, LRU batch / innodb_io_capacity_max, LRU pages scanned); the second after
    (pages flushed) and the seconds after that (lowest and highest background flushing rate, LRU
    pages). Tolerances: ±25 % for the burst
    (the dirty/clean mix at the LRU tail depends on how the UPDATE left the pool); the pool
    state must be "nearly all dirty, almost no free pages" (≥ 60 % dirty, ≤ 1 % free), not the
    article's exact counts; the rest exact.

    Args:
        run: a run of the preset `seed001-lru-burst`, at least 4 s past the re-enable.

    Returns:
        The comparison table (columns quantity, article, flushsim, tolerance, ok).

    Raises:
        ValueError: the run is not seed 001's experiment or is too short.
    """
    a = SEED001_ARTICLE
    t = _seed001_enable_at(run)
    before = row_at(run, t)
    burst = seed001_burst(run)
    quiet = row_at(run, t + 2)  # the article's 14:09:53: nothing flushed
    after = run.series.filter(pl.col("time_s") >= t + 3)
    total = float(before["buffer_pool_pages_total"])
    cap_max = float(run.scenario["innodb_io_capacity_max"])
    bg = after["buffer_flush_background_total_pages"]
    return comparison_table(
        [
            ("pool size, buffer_pool_pages_total (pages)", a["pages_total"], total, exact()),
            (
                f"data pages before re-enabling the cleaner (t = {t} s)",
                a["pages_data"],
                before["buffer_pool_pages_data"],
                relative(0.02),
            ),
            (
                "dirty pages before re-enabling the cleaner",
                a["pages_dirty"],
                before["buffer_pool_pages_dirty"],
                at_least(0.6 * total, "60 % of the pool: nearly all dirty"),
            ),
            (
                "free pages before re-enabling the cleaner",
                a["pages_free"],
                before["buffer_pool_pages_free"],
                at_most(math.floor(0.01 * total), "1 % of the pool: almost none"),
            ),
            (
                "LRU batch in the first second, buffer_LRU_batch_flush_total_pages (pages)",
                a["lru"],
                burst["lru_flushed"],
                relative(0.25),
            ),
            (
                "flush-list batch in the first second, buffer_flush_adaptive_total_pages (pages)",
                a["list"],
                burst["list_flushed"],
                relative(0.25),
            ),
            (
                "writes in the first second, os_data_writes (flushsim: w_s)",
                a["writes"],
                burst["writes"],
                relative(0.25),
            ),
            (
                "LRU batch / innodb_io_capacity_max (ratio)",
                a["lru"] / a["io_capacity_max"],
                burst["lru_flushed"] / cap_max,
                at_least(2, "far above the I/O budget"),
            ),
            (
                "LRU pages scanned in the first second: flushed + evicted (pages)",
                a["lru_scan_depth"],
                burst["lru_scanned"],
                exact(),
            ),
            (
                "pages flushed in the second after the burst, all kinds (pages)",
                a["quiet"],
                quiet["buffer_LRU_batch_flush_total_pages"]
                + quiet["buffer_flush_adaptive_total_pages"]
                + quiet["buffer_flush_background_total_pages"],
                exact(),
            ),
            (
                "background flushing from the second after that, lowest second (pages/s)",
                a["background"],
                bg.min() if after.height else float("nan"),
                exact(),
            ),
            (
                "background flushing from the second after that, highest second (pages/s)",
                a["background"],
                bg.max() if after.height else float("nan"),
                exact(),
            ),
            (
                "LRU batch pages after the burst (pages, all later seconds)",
                0,
                after["buffer_LRU_batch_flush_total_pages"].sum(),
                exact(),
            ),
        ]
    )
