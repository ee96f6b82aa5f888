"""The seeds' articles next to flushsim: one table per experiment, "the article's number vs ours".

Each table is a polars DataFrame with the columns

- `quantity`: what is compared, with its unit and where it comes from;
- `article`: the number the article prints (float);
- `flushsim`: the same quantity measured on a flushsim run or computed by `flushsim.ssd`;
- `tolerance`: the acceptance rule, in words ("±25 %", "exact", "≥ 4,915", ...);
- `ok`: whether `flushsim` satisfies the rule, computed from the two numbers and the rule.

The lesson notebooks show these tables and assert that every row is ok, so a model change that
breaks a reproduction fails CI. Tolerances are the seeds' own (the tests under tests/ use the
same ones); a rule that is not a plain "±x %" of the article's number says why in the row.

Sources:
- seed 001: Daniel Nichter, "MySQL LRU Flushing and I/O Capacity", hackmysql.com (2021),
  MySQL 8.0.26-debug; preset `seed001-lru-burst`.
- seed 004: Yves Trudeau and Francisco Bordenave, "Give Love to Your SSDs – Reduce
  innodb_io_capacity_max!", Percona blog (December 2019); presets `seed004-idle-flush` and
  `seed004-hot-rows`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from . import ssd
from .run import Run

__all__ = [
    "SEED001_ARTICLE",
    "SEED004_ARTICLE",
    "Tolerance",
    "at_least",
    "at_most",
    "below",
    "comparison_table",
    "exact",
    "relative",
    "seed001_burst",
    "seed001_table",
    "seed004_arithmetic_table",
    "seed004_fill_models",
    "seed004_idle_rates",
    "seed004_hot_rows",
    "seed004_hot_rows_table",
    "seed004_idle_table",
]

SCHEMA = {
    "quantity": pl.String,
    "article": pl.Float64,
    "flushsim": pl.Float64,
    "tolerance": pl.String,
    "ok": pl.Boolean,
}

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
    "background": 200,  # bg = 200 in every later second
}
"""Seed 001's numbers, as printed in the article (pages, or pages per second)."""

SEED004_ARTICLE = {
    "dirty": 45_000,  # "about 45000 dirty pages in the buffer pool"
    "idle_rates": (300, 200, 100),  # pages/s, "matches the innodb_io_capacity value"
    "endurance_pb": 12.25,  # DC P4610 total write endurance, PB (the article's PB = 1024^5 B)
    "cycles": 7840,  # full device writes
    "capacity_tb": 1.6,  # TB (the article's arithmetic counts it as 1.6 x 1024^4 B)
    "years": 5,  # assumed server life
    "rate_empty_mb_s": 83,  # MB/s (1 MB = 1024^2 B) sustainable for 5 years, empty drive
    "fill": 0.75,  # "a static dataset ... filling 75% of the SSD"
    "rate_full_mb_s": 21,  # MB/s at 75 % full
    "pages_per_s": 2000,  # "sustained InnoDB flushing rates of 2000 pages per second"
    "kb_per_page": 36,  # "36KB written per page flushed" (KB = 1024 B)
    "flush_mb_s": 70,  # 2000 x 36 KB ~ 70 MB/s
    "lifetime_years": 1.5,  # "likely less than one and a half years"
}
"""Seed 004's numbers, as printed in the article (units in the comments)."""


# ---------------------------------------------------------------------------------- tolerances


@dataclass(frozen=True)
class Tolerance:
    """An acceptance rule for one row: its words and the test it stands for.

    Attributes:
        text: the rule as the table shows it.
        kind: "relative" (|flushsim - article| <= value x |article|), "exact" (equal),
            "at_least" (flushsim >= value), "at_most" (flushsim <= value) or "below"
            (flushsim < value).
        value: the fraction for "relative", the bound for the others (unused by "exact").
    """

    text: str
    kind: str
    value: float = 0.0

    def ok(self, article: float, flushsim: float) -> bool:
        """Whether `flushsim` satisfies this rule against `article` (NaN never does)."""
        if math.isnan(flushsim) or math.isnan(article):
            return False
        if self.kind == "relative":
            return abs(flushsim - article) <= self.value * abs(article) * (1 + 1e-12)
        if self.kind == "exact":
            return flushsim == article
        if self.kind == "at_least":
            return flushsim >= self.value
        if self.kind == "at_most":
            return flushsim <= self.value
        if self.kind == "below":
            return flushsim < self.value
        raise ValueError(f"tolerance kind {self.kind!r} is not known")


def relative(fraction: float) -> Tolerance:
    """A rule: within `fraction` of the article's number (0.25 reads "±25 %")."""
    return Tolerance(f"±{fraction * 100:g} %", "relative", fraction)


def exact() -> Tolerance:
    """A rule: exactly the article's number."""
    return Tolerance("exact", "exact")


def at_least(bound: float, why: str = "") -> Tolerance:
    """A rule: the run's number is at least `bound`, whatever the article's number is."""
    return Tolerance(f"≥ {bound:,.4g}" + (f" ({why})" if why else ""), "at_least", bound)


def at_most(bound: float, why: str = "") -> Tolerance:
    """A rule: the run's number is at most `bound`."""
    return Tolerance(f"≤ {bound:,.4g}" + (f" ({why})" if why else ""), "at_most", bound)


def below(bound: float, why: str = "") -> Tolerance:
    """A rule: the run's number is strictly below `bound`."""
    return Tolerance(f"< {bound:,.4g}" + (f" ({why})" if why else ""), "below", bound)


def comparison_table(rows: Sequence[tuple[str, float, float, Tolerance]]) -> pl.DataFrame:
    """A comparison table from (quantity, article, flushsim, tolerance) rows; `ok` is computed.

    Args:
        rows: one tuple per quantity.

    Returns:
        A DataFrame with the columns quantity, article, flushsim, tolerance (text), ok (bool).
    """
    return pl.DataFrame(
        {
            "quantity": [q for q, _, _, _ in rows],
            "article": [float(a) for _, a, _, _ in rows],
            "flushsim": [float(f) for _, _, f, _ in rows],
            "tolerance": [t.text for _, _, _, t in rows],
            "ok": [t.ok(float(a), float(f)) for _, a, f, t in rows],
        },
        schema=SCHEMA,
    )


# ------------------------------------------------------------------------------------ helpers


def _row(run: Run, time_s: int) -> dict:
    s = run.series.filter(pl.col("time_s") == time_s)
    if s.height != 1:
        raise ValueError(
            f"the run has no second ending at time_s={time_s} (it is {run.series.height} s long)"
        )
    return s.row(0, named=True)


def _set_times(run: Run, knob: str) -> list[tuple[float, object]]:
    """(time, value) of every SET GLOBAL of `knob` in the run's timeline, in order."""
    return [(at, v) for at, action, k, v in run.scenario.changes if action == "set" and k == knob]


# ------------------------------------------------------------------------------------ seed 001


def _seed001_enable_at(run: Run) -> int:
    """The second at which the page cleaner is re-enabled (innodb_page_cleaner_disabled_debug=0)."""
    offs = [at for at, v in _set_times(run, "innodb_page_cleaner_disabled_debug") if not v]
    ons = [at for at, v in _set_times(run, "innodb_page_cleaner_disabled_debug") if v]
    if not offs or not ons or offs[-1] < ons[-1]:
        raise ValueError(
            "this run is not seed 001's experiment: its timeline must disable the page cleaner "
            "(innodb_page_cleaner_disabled_debug=ON) and re-enable it later (use the preset "
            "'seed001-lru-burst')"
        )
    return int(offs[-1])


def seed001_burst(run: Run) -> dict[str, float]:
    """The first second after the page cleaner is re-enabled in a seed 001 run, and the next.

    Args:
        run: a run of `seed001-lru-burst` (possibly with other knobs).

    Returns:
        A dict of pages (or pages/s): `lru_flushed` (buffer_LRU_batch_flush_total_pages in the
        first second), `lru_evicted` (buffer_LRU_batch_evict_total_pages), `lru_scanned`
        (flushed + evicted), `list_flushed` (buffer_flush_adaptive_total_pages), `writes`
        (w_s, the device's writes), and `background_next` (buffer_flush_background_total_pages
        in the second after).

    Raises:
        ValueError: the run is not seed 001's experiment or ends before the second after.
    """
    t = _seed001_enable_at(run)
    burst = _row(run, t + 1)
    nxt = _row(run, t + 2)
    lru = burst["buffer_LRU_batch_flush_total_pages"]
    evict = burst["buffer_LRU_batch_evict_total_pages"]
    return {
        "lru_flushed": float(lru),
        "lru_evicted": float(evict),
        "lru_scanned": float(lru + evict),
        "list_flushed": float(burst["buffer_flush_adaptive_total_pages"]),
        "writes": float(burst["w_s"]),
        "background_next": float(nxt["buffer_flush_background_total_pages"]),
    }


def seed001_table(run: Run) -> pl.DataFrame:
    """Seed 001 (hackmysql.com, MySQL 8.0.26): the article's numbers next to the run's.

    The article disables the page cleaner (debug build), dirties most of a 128 MiB pool with an
    UPDATE, re-enables the cleaner and reads `information_schema.innodb_metrics` every second:
    one LRU batch of 1,178 pages and a flush-list batch of 122 in the first second (1,300
    writes), far above innodb_io_capacity_max = 400, then background flushing at 200 pages/s.

    Rows (pages, pages per second or a ratio, as each quantity says): the pool before the
    cleaner is re-enabled (total, data, dirty, free); the first second (LRU batch, flush-list
    batch, writes, LRU batch / innodb_io_capacity_max, LRU pages scanned); the seconds after
    (lowest and highest background flushing rate, LRU pages). Tolerances: ±25 % for the burst
    (the dirty/clean mix at the LRU tail depends on how the UPDATE left the pool); the pool
    state must be "nearly all dirty, almost no free pages" (≥ 60 % dirty, ≤ 1 % free), not the
    article's exact counts; the rest exact.

    Args:
        run: a run of the preset `seed001-lru-burst`, at least 3 s past the re-enable.

    Returns:
        The comparison table (columns quantity, article, flushsim, tolerance, ok).

    Raises:
        ValueError: the run is not seed 001's experiment or is too short.
    """
    a = SEED001_ARTICLE
    t = _seed001_enable_at(run)
    before = _row(run, t)
    burst = seed001_burst(run)
    after = run.series.filter(pl.col("time_s") >= t + 2)
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
                "background flushing after the burst, lowest second (pages/s)",
                a["background"],
                bg.min() if after.height else float("nan"),
                exact(),
            ),
            (
                "background flushing after the burst, highest second (pages/s)",
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


# ------------------------------------------------------------------------------- seed 004 idle


def seed004_idle_rates(run: Run, settle_s: int = 2) -> pl.DataFrame:
    """Idle flushing rate per innodb_io_capacity setting after the workload stops.

    The run is cut at the workload stop and at every later `SET GLOBAL innodb_io_capacity`;
    each stretch skips its first `settle_s` seconds (the change lands mid-round).

    Args:
        run: a run whose timeline stops the workload (e.g. `seed004-idle-flush`).
        settle_s: seconds skipped at the start of each stretch.

    Returns:
        One row per stretch: `innodb_io_capacity`, `from_s`, `to_s` (the seconds averaged are
        from_s < time_s <= to_s), `background_pages_per_s` (mean of
        buffer_flush_background_total_pages), `other_pages` (adaptive + LRU + sync +
        single-page flushes in the stretch) and `tps_max`.

    Raises:
        ValueError: the workload never stops.
    """
    stops = [at for at, action, _, _ in run.scenario.changes if action == "stop_workload"]
    if not stops:
        raise ValueError(
            "this run never stops its workload: idle flushing needs an idle server "
            "(use the preset 'seed004-idle-flush' or Scenario.stop_workload)"
        )
    stop = stops[0]
    capacity = run.scenario["innodb_io_capacity"]
    bounds = [(stop, capacity)]
    for at, v in _set_times(run, "innodb_io_capacity"):
        if at <= stop:
            bounds[0] = (stop, v)
        else:
            bounds.append((at, v))
    end = run.series.height
    s = run.series.with_columns(
        other=pl.col("buffer_flush_adaptive_total_pages")
        + pl.col("buffer_LRU_batch_flush_total_pages")
        + pl.col("buffer_flush_sync_total_pages")
        + pl.col("sim_single_page_flushes")
    )
    rows = []
    for k, (start, cap) in enumerate(bounds):
        stop_k = bounds[k + 1][0] if k + 1 < len(bounds) else end
        lo, hi = int(start) + settle_s, int(stop_k)
        w = s.filter((pl.col("time_s") > lo) & (pl.col("time_s") <= hi))
        rows.append(
            {
                "innodb_io_capacity": int(cap),
                "from_s": lo,
                "to_s": hi,
                "background_pages_per_s": float(w["buffer_flush_background_total_pages"].mean())
                if w.height
                else float("nan"),
                "other_pages": int(w["other"].sum()),
                "tps_max": int(w["sim_tps"].max()) if w.height else 0,
            }
        )
    return pl.DataFrame(rows)


def seed004_idle_table(run: Run) -> pl.DataFrame:
    """Seed 004 (Percona, 2019): idle flushing writes innodb_io_capacity pages per second.

    The article makes about 45,000 dirty pages with sysbench, stops the load and lets idle
    flushing run at innodb_io_capacity = 300, 200 and 100: "the number of pages written per
    second matches the innodb_io_capacity value" (read off a graph, hence ±5 %).

    Rows: dirty pages when the load stops (±10 %: "about"); the mean idle flushing rate
    (buffer_flush_background_total_pages, pages/s) in each of the three stretches (±5 %); the
    pages flushed by anything else while idle (exact 0: the article adjusted the configuration
    "to avoid other sources of writes").

    Args:
        run: a run of the preset `seed004-idle-flush` (workload stop, then two SET GLOBAL
            innodb_io_capacity).

    Returns:
        The comparison table (columns quantity, article, flushsim, tolerance, ok).

    Raises:
        ValueError: the run's timeline does not have the article's three idle stretches.
    """
    a = SEED004_ARTICLE
    rates = seed004_idle_rates(run)
    if rates.height != len(a["idle_rates"]):
        raise ValueError(
            f"seed 004 has {len(a['idle_rates'])} idle stretches (io_capacity 300, 200, 100); "
            f"this run has {rates.height}"
        )
    stop = int(next(at for at, action, _, _ in run.scenario.changes if action == "stop_workload"))
    rows = [
        (
            f"dirty pages when the load stops (t = {stop} s)",
            a["dirty"],
            _row(run, stop)["buffer_pool_pages_dirty"],
            relative(0.10),
        )
    ]
    for article_rate, r in zip(a["idle_rates"], rates.iter_rows(named=True), strict=True):
        rows.append(
            (
                f"idle flushing at innodb_io_capacity={r['innodb_io_capacity']}, "
                f"mean of {r['from_s']}–{r['to_s']} s (pages/s)",
                article_rate,
                r["background_pages_per_s"],
                relative(0.05),
            )
        )
    rows.append(
        (
            "pages flushed by anything but idle flushing while idle (pages)",
            0,
            float(rates["other_pages"].sum()),
            exact(),
        )
    )
    return comparison_table(rows)


# ------------------------------------------------------------------- seed 004 write combining

HOT_ROWS_ARTICLE = {
    "updates_per_page_at_100": 62.0,
    "updates_per_page_at_5000": 20.0,
    "tps_at_100_above": 6000.0,
    "tps_at_4000_below": 5400.0,
}
HOT_ROWS_STEPS = (100, 4000, 5000)  # the innodb_io_capacity_max values the article quotes
HOT_ROWS_WARM_UP_S = 300  # one pass of the slowest step over the 30k dirty pages


def seed004_hot_rows(run: Run, warm_up_s: int = HOT_ROWS_WARM_UP_S) -> dict[str, float]:
    """Settled write combining of one run: the seconds after `warm_up_s`.

    Returns:
        `updates_per_page_flushed` (row updates per page written back), `pages_flushed_per_s`
        (pages/s) and `tps` (transactions/s, mean).

    Raises:
        ValueError: the run is not longer than `warm_up_s` seconds.
    """
    s = run.series.filter(pl.col("time_s") > warm_up_s)
    if s.height == 0:
        raise ValueError(
            f"the run has {run.series.height} s: write combining is measured after "
            f"warm_up_s={warm_up_s} s, so the run must be longer"
        )
    flushed = float(
        (
            s["buffer_LRU_batch_flush_total_pages"]
            + s["buffer_flush_batch_total_pages"]
            + s["sim_single_page_flushes"]
        ).sum()
    )
    updates = float(s["dml_updates"].sum())
    return {
        "updates_per_page_flushed": updates / flushed if flushed else math.nan,
        "pages_flushed_per_s": flushed / s.height,
        "tps": float(s["sim_tps"].mean()),
    }


def seed004_hot_rows_table(runs: dict[int, Run]) -> pl.DataFrame:
    """Seed 004 (Percona, 2019): fewer updates per page flushed as innodb_io_capacity_max rises.

    The article updates a random 30k of about 6.5M rows for 30 minutes per setting: "when we
    limit innodb_io_capacity_max to 100, there are about 62 updates per page flushed, while
    at the other end, with the IO capacity set to 5000, there were only about 20", "a factor
    of three"; above 6,000 trx/s at 100, below 5,400 at 4,000 (read off a chart).

    Rows and rules (the same as tests/test_seed004_hot_rows.py): updates per page flushed at
    100 and at 5,000 within ±25 % (the level moves with the redo size, which the seed text
    lost); their ratio within ±20 % of 62 / 20; throughput above 6,000 at 100 and below 5,400
    at 4,000. flushsim does not reproduce the ratio (it gives about 4.2) or the fall in
    throughput (about -0.2 %): those rows read False, and the lesson says why.

    Args:
        runs: runs of the preset `seed004-hot-rows` keyed by innodb_io_capacity_max; needs
            100, 4000 and 5000.

    Returns:
        The comparison table (columns quantity, article, flushsim, tolerance, ok).

    Raises:
        ValueError: a step is missing.
    """
    missing = [m for m in HOT_ROWS_STEPS if m not in runs]
    if missing:
        raise ValueError(
            f"runs needs innodb_io_capacity_max {', '.join(map(str, HOT_ROWS_STEPS))}; "
            f"missing {', '.join(map(str, missing))}"
        )
    a = HOT_ROWS_ARTICLE
    got = {m: seed004_hot_rows(runs[m]) for m in HOT_ROWS_STEPS}
    low, high = got[100]["updates_per_page_flushed"], got[5000]["updates_per_page_flushed"]
    article_ratio = a["updates_per_page_at_100"] / a["updates_per_page_at_5000"]
    return comparison_table(
        [
            (
                "updates per page flushed, io_capacity_max 100",
                a["updates_per_page_at_100"],
                low,
                relative(0.25),
            ),
            (
                "updates per page flushed, io_capacity_max 5000",
                a["updates_per_page_at_5000"],
                high,
                relative(0.25),
            ),
            ("write load ratio 100 -> 5000 (x)", article_ratio, low / high, relative(0.20)),
            (
                "transactions/s, io_capacity_max 100",
                a["tps_at_100_above"],
                got[100]["tps"],
                at_least(a["tps_at_100_above"], "above"),
            ),
            (
                "transactions/s, io_capacity_max 4000",
                a["tps_at_4000_below"],
                got[4000]["tps"],
                below(a["tps_at_4000_below"]),
            ),
        ]
    )


# -------------------------------------------------------------------------- seed 004 SSD wear


def seed004_arithmetic_table() -> pl.DataFrame:
    """Seed 004's SSD arithmetic redone with `flushsim.ssd`.

    The article: an Intel DC P4610 1.6 TB rated 7,840 full device writes, "12.25 PB", may be
    written at "12.25 PB * 1024^3 MB/PB / (5 y * 365 d/y * 24 h/d * 3600 s/h) ~ 83 MB/sec" for
    five years; with a static dataset filling 75 % of it only the free quarter absorbs the
    writes, "about 21 MB/sec"; 2,000 pages/s at 36 KB written per page flushed is "70 MB/s",
    which wears a drive more than 75 % full out in "less than one and a half years".

    Units: the article counts in powers of 1024 throughout (7,840 = 12.25 x 1024 / 1.6, so its
    PB are PiB, its TB TiB, its MB MiB and its KB KiB); these rows do the same. The last row
    uses the catalog's drive instead (`ssd.drive("intel-dc-p4610-1.6tb")`, the real decimal
    1.6 x 10^12 bytes), which is what the explorer's wear figure uses. Fill-factor model:
    seed 004's (write amplification 1 / (1 - fill)). Tolerances: ±1 % on the article's rounded
    figures; "< 1.5" where the article gives a bound.

    Returns:
        The comparison table (columns quantity, article, flushsim, tolerance, ok).
    """
    a = SEED004_ARTICLE
    capacity = a["capacity_tb"] * ssd.TiB
    rating = {"cycles": a["cycles"]}
    endurance = ssd.endurance_bytes(capacity, **rating)
    rate_empty = ssd.sustainable_write_rate(a["years"], capacity, **rating)
    rate_full = ssd.sustainable_write_rate(a["years"], capacity, **rating, fill=a["fill"])
    flush_rate = a["pages_per_s"] * a["kb_per_page"] * ssd.KiB
    years = ssd.lifetime_years(flush_rate, capacity, **rating, fill=a["fill"])
    catalog = ssd.drive("intel-dc-p4610-1.6tb").lifetime_years(flush_rate, fill=a["fill"])
    return comparison_table(
        [
            (
                "DC P4610 endurance: 1.6 TB x 7,840 cycles (PB, 1 PB = 1024^5 B)",
                a["endurance_pb"],
                endurance / ssd.PiB,
                relative(0.01),
            ),
            (
                "write rate that uses it up in 5 years, empty drive (MB/s, 1 MB = 1024^2 B)",
                a["rate_empty_mb_s"],
                rate_empty / ssd.MiB,
                relative(0.01),
            ),
            (
                "the same, drive 75 % full (MB/s)",
                a["rate_full_mb_s"],
                rate_full / ssd.MiB,
                relative(0.01),
            ),
            (
                "2,000 pages/s x 36 KB written per page flushed (MB/s)",
                a["flush_mb_s"],
                flush_rate / ssd.MiB,
                relative(0.01),
            ),
            (
                "lifetime at that rate, drive 75 % full (years)",
                a["lifetime_years"],
                years,
                below(a["lifetime_years"]),
            ),
            (
                "the same for the catalog's drive, 1.6 x 10^12 B (years)",
                a["lifetime_years"],
                catalog,
                below(a["lifetime_years"]),
            ),
        ]
    )


def seed004_fill_models(
    fills: Sequence[float] | np.ndarray | None = None,
    write_bytes_per_s: float = 2000 * 36 * ssd.KiB,
    drive: str = "intel-dc-p4610-1.6tb",
    over_provisioning: Sequence[float] = (0.07, 0.28),
) -> pl.DataFrame:
    """Seed 004's fill-factor model next to Desnoyers' greedy FTL model, over the fill factor.

    Seed 004 lets only the free part of the drive absorb writes (write amplification
    1 / (1 - fill), no over-provisioning, a full drive has no life); Desnoyers (SYSTOR 2012,
    Eq. 12, greedy cleaning, 64 pages per block, TRIM) counts the factory over-provisioning as
    spare flash, so a full drive still lives. See `flushsim.ssd` for both.

    Args:
        fills: fill factors, each 0 <= fill < 1 (default 0, 0.05, ..., 0.95).
        write_bytes_per_s: host write rate in bytes/s (default the article's 2,000 pages/s x
            36 KiB, about 70 MiB/s).
        drive: catalog drive name for the lifetimes.
        over_provisioning: factory over-provisioning fractions for the Desnoyers columns.

    Returns:
        One row per fill: `fill_pct` (%), `wa_seed004`, `years_seed004`, and for each
        over-provisioning p (in %) `wa_desnoyers_op{p}` and `years_desnoyers_op{p}`; write
        amplification is flash bytes per host byte, lifetimes in years.
    """
    f = np.round(np.arange(0.0, 0.951, 0.05), 2) if fills is None else np.asarray(fills, float)
    d = ssd.drive(drive)
    cols: dict[str, np.ndarray] = {
        "fill_pct": f * 100.0,
        "wa_seed004": np.asarray(ssd.write_amplification(f, "seed004"), float),
        "years_seed004": np.asarray(d.lifetime_years(write_bytes_per_s, fill=f), float),
    }
    for op in over_provisioning:
        tag = f"op{round(op * 100)}"
        kw = {"model": "desnoyers-greedy", "over_provisioning": op}
        wa = ssd.write_amplification(f, "desnoyers-greedy", over_provisioning=op)
        cols[f"wa_desnoyers_{tag}"] = np.asarray(wa, float)
        cols[f"years_desnoyers_{tag}"] = np.asarray(
            d.lifetime_years(write_bytes_per_s, fill=f, **kw), float
        )
    return pl.DataFrame(cols)
