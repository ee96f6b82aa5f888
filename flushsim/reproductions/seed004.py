"""Seed 004: Yves Trudeau and Francisco Bordenave, Percona blog (December 2019).

"Give Love to Your SSDs – Reduce innodb_io_capacity_max!"; presets `seed004-idle-flush` and
`seed004-hot-rows`: idle flushing, write combining of hot rows, and the article's SSD
arithmetic redone with `flushsim.ssd`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

from .. import ssd
from ..run import Run
from .measures import row_at, set_times
from .tolerances import (
    at_least,
    below,
    comparison_table,
    exact,
    relative,
)

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
    for at, v in set_times(run, "innodb_io_capacity"):
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
            row_at(run, stop)["buffer_pool_pages_dirty"],
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
    at 4,000. The preset runs Percona Server's default formula (innodb_cleaner_lsn_age_factor
    = high_checkpoint), which gives the ratio (3.1; Oracle MySQL's gives about 4.8). flushsim's
    throughput falls less than the article's (3.7 % from 100 to 4,000, from its SATA drive's
    cache flushes): the 4,000 row reads False, and the lesson says why.

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
