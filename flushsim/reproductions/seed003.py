"""Seed 003: Krunal Bauskar, "Tune your MariaDB IO workload using this simple step".

mysqlonarm.github.io (July 2021), MariaDB 10.6.3; presets `seed003-io-capacity` and
`seed003-lru-flush-size`: innodb_io_capacity and innodb_lru_flush_size at 512 threads.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence

import polars as pl

from .. import params, presets
from ..many import Ahead, run_ahead, simulate_many
from ..run import Run
from ..scenario import Scenario, for_engine
from .tolerances import (
    Row,
    absolute,
    at_least,
    at_most,
    comparison_table,
    exact,
)

SEED003_ARTICLE = {
    "threads": 512,  # sysbench threads ("Scalability: 512 threads")
    "max_dirty_pages_pct": 90,  # innodb_max_dirty_pages_pct: "dirty pages hit the threshold"
    # 1K/2K: "close to 0 (actual values are around 100-500 range)" from tens of thousands of
    # transactions/s: the worst second is at most about 2 % of the peak (the charts are lost)
    "worst_pct_of_peak_1k": 2.0,
    "best_sizes": (1024, 2048),  # best innodb_lru_flush_size: 1024 (x86), 2048 (ARM)
    "default_size": 32,  # innodb_lru_flush_size default in 10.6.3 (pages)
}
"""Seed 003's numbers, as printed in the article (units in the comments)."""

SEED003_SIZES = (32, 512, 1024, 2048, 4096)
"""The article's innodb_lru_flush_size steps (pages): the default, then 1, 2, 4, 8 per thread."""
SEED003_WARM_UP_S = 60
"""Seconds left out of every seed 003 measure: the cold pool fills (a peak) until about 36 s."""
SEED003_FAST_SECONDS = 120
"""Run length (s) under FLUSHSIM_FAST=1 (the test suite): the warm-up, then 60 s measured."""

_SEED003_IOC = {"1K/2K": (1000, 2000), "12K/24K": (12_000, 24_000)}


def seed003_seconds(seconds: int | None = None) -> int:
    """Length of a seed 003 run in simulated seconds.

    Args:
        seconds: the length wanted; default the presets' 240 s.

    Returns:
        `seconds`, or at most SEED003_FAST_SECONDS (120) when the environment variable
        FLUSHSIM_FAST is set (the test suite sets it, as for the explorer's runs).
    """
    n = presets.get("seed003-lru-flush-size").seconds if seconds is None else int(seconds)
    return min(n, SEED003_FAST_SECONDS) if os.environ.get("FLUSHSIM_FAST") else n


def seed003_preset(name: str, engine: str = params.MARIADB106) -> Scenario:
    """A seed 003 preset on `engine`: on mariadb-10.11 without the 10.6.3 `version` knob.

    Args:
        name: "seed003-io-capacity" or "seed003-lru-flush-size".
        engine: "mariadb-10.6" (the article's 10.6.3) or "mariadb-10.11" (10.11.8 and later).
    """
    return for_engine(presets.get(name), engine)[0]


def seed003_stats(run: Run, warm_up_s: int = SEED003_WARM_UP_S) -> dict[str, float]:
    """Throughput, jitter and LRU flushing of one seed 003 run, after the warm-up.

    The seconds measured are those with time_s >= `warm_up_s` (the same as
    tests/test_seed003.py). "Peak" is the largest second of the whole run, warm-up included,
    as on the article's charts.

    Args:
        run: any run; meant for the presets `seed003-io-capacity` and `seed003-lru-flush-size`.
        warm_up_s: seconds left out at the start.

    Returns:
        `tps_mean`, `tps_worst` (the lowest second) and `tps_peak` in transactions/s (sim_tps);
        `tps_cv`, the jitter: coefficient of variation (std / mean) of the per-second sim_tps,
        no unit; `worst_pct_of_peak` and `worst_pct_of_mean` in %; `zero_seconds`, the seconds
        without a single transaction; `dirty_pct_max`, the most dirty pages at the end of a
        second in % of the pool (data + free pages); `lru_pages_per_s`, pages written by LRU
        batches per second (buffer_LRU_batch_flush_total_pages, user threads' batches
        included), split into `user_lru_pages_per_s` (MariaDB 10.6 user threads' own batches,
        sim_user_LRU_batch_pages) and `cleaner_lru_pages_per_s` (the page cleaner's);
        `wait_free_per_s`, buffer_pool_wait_free per second; `search_pages_per_s`, pages user
        threads' LRU searches examined per second (buffer_LRU_search_scanned), and
        `mutex_wait_ms_per_s`, milliseconds a second threads waited for buf_pool.mutex while
        such a search or an LRU batch held it (sim_LRU_mutex_wait_ms).

    Raises:
        ValueError: fewer than two seconds after the warm-up.
    """
    s = run.series.filter(pl.col("time_s") >= warm_up_s)
    if s.height < 2:
        raise ValueError(
            f"the run has {run.series.height} s: seed 003 measures the seconds from "
            f"warm_up_s={warm_up_s} s on, so the run must be at least {warm_up_s + 1} s long"
        )
    tps = s["sim_tps"]
    mean, worst, peak = float(tps.mean()), float(tps.min()), float(run.series["sim_tps"].max())
    pool = s["buffer_pool_pages_data"] + s["buffer_pool_pages_free"]
    lru = float(s["buffer_LRU_batch_flush_total_pages"].mean())
    user = float(s["sim_user_LRU_batch_pages"].mean())
    return {
        "tps_mean": mean,
        "tps_cv": float(tps.std()) / mean if mean else math.nan,
        "tps_worst": worst,
        "tps_peak": peak,
        "worst_pct_of_peak": 100 * worst / peak if peak else math.nan,
        "worst_pct_of_mean": 100 * worst / mean if mean else math.nan,
        "zero_seconds": float((tps == 0).sum()),
        "dirty_pct_max": float((100 * s["buffer_pool_pages_dirty"] / pool).max()),
        "lru_pages_per_s": lru,
        "user_lru_pages_per_s": user,
        "cleaner_lru_pages_per_s": lru - user,
        "wait_free_per_s": float(s["buffer_pool_wait_free"].mean()),
        "search_pages_per_s": float(s["buffer_LRU_search_scanned"].mean()),
        "mutex_wait_ms_per_s": float(s["sim_LRU_mutex_wait_ms"].mean()),
    }


def seed003_io_capacity_runs(seconds: int | None = None) -> dict[str, Run]:
    """Seed 003's first two steps on mariadb-10.6: io_capacity 1K/2K, then 12K/24K.

    Args:
        seconds: run length in simulated seconds (default 240; see `seed003_seconds`, which
            shortens it under FLUSHSIM_FAST).

    Returns:
        {"1K/2K": run of `seed003-io-capacity`, "12K/24K": run of `seed003-lru-flush-size`},
        both at innodb_lru_flush_size = 32, the 10.6.3 default, run at once on every core
        (`simulate_many`).

    Raises:
        RuntimeError: a run was lost with its worker process twice.
    """
    return _all_runs(_io_capacity_steps(), seed003_seconds(seconds))


def _io_capacity_steps() -> dict[str, Scenario]:
    return {
        "1K/2K": presets.get("seed003-io-capacity"),
        "12K/24K": presets.get("seed003-lru-flush-size"),
    }


def _all_runs(scenarios: dict, seconds: int | None = None) -> dict:
    """`simulate_many(scenarios, seconds=seconds)`, every run or an error naming the lost ones."""
    runs = simulate_many(scenarios, seconds=seconds)
    lost = [label for label in scenarios if label not in runs]
    if lost:
        raise RuntimeError(
            f"seed 003: runs {', '.join(map(str, lost))} lost with their worker process "
            "(out of memory?): run the cell again"
        )
    return runs


def seed003_lru_flush_size_runs(
    engine: str = params.MARIADB106,
    sizes: Sequence[int] = SEED003_SIZES,
    seconds: int | None = None,
    done: Mapping[int, Run] | None = None,
) -> dict[int, Run]:
    """Seed 003's second experiment: `seed003-lru-flush-size` at each innodb_lru_flush_size.

    io_capacity 12K/24K, 512 threads, one engine.

    Args:
        engine: "mariadb-10.6" (user threads run their own LRU batches) or "mariadb-10.11"
            (the knob has no effect).
        sizes: innodb_lru_flush_size values in pages (default 32, 512, 1024, 2048, 4096).
        seconds: run length in simulated seconds (default 240; see `seed003_seconds`).
        done: runs already made, keyed by size (e.g. the 12K/24K run of
            `seed003_io_capacity_runs` is the 32 step): reused instead of run again.

    Returns:
        {innodb_lru_flush_size: run}, in the order of `sizes`; those not in `done` run at once
        on every core (`simulate_many`).

    Raises:
        ValueError: a run in `done` is not the scenario this sweep would run.
        RuntimeError: a run was lost with its worker process twice.
    """
    steps = _lru_flush_size_steps(engine, sizes, seed003_seconds(seconds))
    done = done or {}
    for n, scenario in steps.items():
        if n in done and done[n].scenario != scenario:
            raise ValueError(
                f"done[{n}] is not this sweep's step (engine={engine}, "
                f"innodb_lru_flush_size={n}, {scenario.seconds} s): run it again instead"
            )
    ran = _all_runs({n: sc for n, sc in steps.items() if n not in done})
    return {n: done[n] if n in done else ran[n] for n in steps}


def _lru_flush_size_steps(engine: str, sizes: Sequence[int], seconds: int) -> dict[int, Scenario]:
    base = seed003_preset("seed003-lru-flush-size", engine).replace(seconds=seconds)
    return {n: base.replace(innodb_lru_flush_size=n) for n in sizes}


def seed003_exercises() -> dict[int, Scenario]:
    """Lesson 03's four exercises, by number: the scenarios the lesson's text gives.

    1: 1K/2K with 2048-page batches; 2: 12K/24K at 2048 with innodb_lru_scan_depth 4096;
    3: io_capacity 120K/120K; 4: 1K/2K on 10.6.17. Longest run first (3), so that
    `simulate_many` starts it first.
    """
    low = presets.get("seed003-io-capacity")
    base = presets.get("seed003-lru-flush-size")
    return {
        3: base.replace(innodb_io_capacity=120_000, innodb_io_capacity_max=120_000),
        2: base.replace(innodb_lru_flush_size=2048, innodb_lru_scan_depth=4096),
        1: low.replace(innodb_lru_flush_size=2048),
        4: low.replace(version="10.6.17"),
    }


def seed003_run_ahead(seconds: int | None = None) -> Ahead:
    """Start every run of lesson 03 now, in the background on every core (`fs.run_ahead`).

    The io_capacity steps, the innodb_lru_flush_size sweeps on 10.6 (its 32 step is the
    12K/24K run) and 10.11, then the exercises, in the lesson's order, each step's longest
    first: `seed003_io_capacity_runs`, `seed003_lru_flush_size_runs` and
    `simulate_many(seed003_exercises())` then take them as they are made. Fifteen runs of
    about 2 to 15 s each on this project's two-core machine, packed on both cores instead of
    leaving one idle whenever a step's runs do not split evenly.

    Args:
        seconds: run length in simulated seconds (default 240; see `seed003_seconds`).
    """
    n = seed003_seconds(seconds)
    io = _io_capacity_steps()
    runs = {"io 12K/24K": io["12K/24K"], "io 1K/2K": io["1K/2K"]}
    sweep_106 = _lru_flush_size_steps(params.MARIADB106, SEED003_SIZES[1:], n)
    runs |= {f"10.6 lru_flush_size={k}": sc for k, sc in sweep_106.items()}
    sweep_1011 = _lru_flush_size_steps(params.MARIADB1011, SEED003_SIZES, n)
    runs |= {f"10.11 lru_flush_size={k}": sc for k, sc in sweep_1011.items()}
    runs |= {f"exercise {k}": sc for k, sc in seed003_exercises().items()}
    return run_ahead(runs, seconds=n)


def seed003_lru_flush_size_table(
    *sweeps: Mapping[int, Run], warm_up_s: int = SEED003_WARM_UP_S
) -> pl.DataFrame:
    """One row per engine and innodb_lru_flush_size: throughput, jitter, who flushes the LRU.

    Args:
        sweeps: one or more results of `seed003_lru_flush_size_runs` ({size: run}).
        warm_up_s: seconds left out at the start of each run.

    Returns:
        Columns `engine`, `innodb_lru_flush_size` (pages), `pages_per_thread` (size / threads),
        `tps_mean` (transactions/s), `tps_change_pct` (% against the same sweep's 32-page run;
        null without one), `tps_cv` (jitter, std / mean), `tps_worst` (transactions/s),
        `user_lru_pages_per_s` and `cleaner_lru_pages_per_s` (pages written per second by user
        threads' LRU batches and by the page cleaner's), `search_pages_per_s` (pages user
        threads' LRU searches examined per second), as in `seed003_stats`.

    Raises:
        ValueError: a key is not its run's innodb_lru_flush_size.
    """
    rows = []
    for sweep in sweeps:
        for n, run in sweep.items():
            if run.scenario["innodb_lru_flush_size"] != n:
                raise ValueError(
                    f"the run under key {n} has innodb_lru_flush_size="
                    f"{run.scenario['innodb_lru_flush_size']}"
                )
        base = seed003_stats(sweep[32], warm_up_s)["tps_mean"] if 32 in sweep else None
        for n, run in sweep.items():
            st = seed003_stats(run, warm_up_s)
            rows.append(
                {
                    "engine": run.scenario.engine,
                    "innodb_lru_flush_size": int(n),
                    "pages_per_thread": n / run.scenario["threads"],
                    "tps_mean": st["tps_mean"],
                    "tps_change_pct": 100 * (st["tps_mean"] / base - 1) if base else None,
                    "tps_cv": st["tps_cv"],
                    "tps_worst": st["tps_worst"],
                    "user_lru_pages_per_s": st["user_lru_pages_per_s"],
                    "cleaner_lru_pages_per_s": st["cleaner_lru_pages_per_s"],
                    "search_pages_per_s": st["search_pages_per_s"],
                }
            )
    return pl.DataFrame(rows, schema_overrides={"tps_change_pct": pl.Float64})


def _seed003_check(run: Run, what: str, engine: str, ioc: tuple[int, int]) -> None:
    got = (run.scenario["innodb_io_capacity"], run.scenario["innodb_io_capacity_max"])
    if run.scenario.engine != engine or got != ioc:
        raise ValueError(
            f"{what} must be a {engine} run at innodb_io_capacity/_max {ioc[0]}/{ioc[1]}; "
            f"this one is {run.scenario.engine} at {got[0]}/{got[1]} (use "
            "seed003_io_capacity_runs and seed003_lru_flush_size_runs)"
        )


def seed003_table(
    io_runs: Mapping[str, Run],
    sweep_106: Mapping[int, Run],
    sweep_1011: Mapping[int, Run],
    warm_up_s: int = SEED003_WARM_UP_S,
) -> pl.DataFrame:
    """Seed 003 (mysqlonarm.github.io, MariaDB 10.6.3): the article's claims next to flushsim.

    The article: at io_capacity 1K/2K throughput drops "close to 0 (actual values are around
    100-500 range) as dirty pages hit the threshold"; 12K/24K is "an improvement but still, the
    performance is not consistent"; at 12K/24K, innodb_lru_flush_size 1024 (x86) or 2048 (ARM)
    gives the most throughput with less jitter, and "increasing it beyond that doesn't help".
    It prints few numbers: where it states a claim in words only, `article` is NaN and the rule
    is a bound. The last three rows are not the article's (it predates 10.11.8) but MariaDB's
    documentation: from 10.11.8 on, innodb_lru_flush_size has no effect.

    Rules (the same as tests/test_seed003.py; seed-to-seed noise is about 0.5 % of mean
    throughput and 0.02 of CV): dirty pages reach innodb_max_dirty_pages_pct; the 1K/2K worst
    second at most 5 % of the peak (loose: the charts are lost); 12K/24K at least 2 % above
    1K/2K, CV at least 0.15 and its worst second at most 60 % of its mean; the better of
    1024/2048 at least 2 % above 32 with a CV at most 0.8 times 32's; 4096 within 5 % of
    that throughput and within 0.05 of 2048's CV; on 10.11 every size within 0.5 % and 0.01
    of the 32-page run, with no page written by a user thread's LRU batch. Every row reads True
    at the presets' 240 s and at the test suite's 120 s; flushsim's 1K/2K collapse (about 4,800
    trx/s, its worst second 2.2 % of the peak) is shallower than the article's 100-500.
    Throughput is sim_tps (transactions/s), jitter the CV of its per-second values, both
    measured from `warm_up_s` on (`seed003_stats`).

    Args:
        io_runs: {"1K/2K": run, "12K/24K": run}, from `seed003_io_capacity_runs`.
        sweep_106: {innodb_lru_flush_size: run} on mariadb-10.6 at 12K/24K, with at least 32,
            1024, 2048 and 4096 (`seed003_lru_flush_size_runs`).
        sweep_1011: the same on mariadb-10.11, with 32 and at least one other size.
        warm_up_s: seconds left out at the start of each run.

    Returns:
        The comparison table (columns quantity, article, flushsim, tolerance, ok).

    Raises:
        ValueError: a run or a step is missing, or a run is not the experiment's.
    """
    _check_seed003_runs(io_runs, sweep_106, sweep_1011)
    a = SEED003_ARTICLE
    low = seed003_stats(io_runs["1K/2K"], warm_up_s)
    mid = seed003_stats(io_runs["12K/24K"], warm_up_s)
    s6 = {n: seed003_stats(r, warm_up_s) for n, r in sweep_106.items()}
    s11 = {n: seed003_stats(r, warm_up_s) for n, r in sweep_1011.items()}
    best = max(s6[1024]["tps_mean"], s6[2048]["tps_mean"])
    user_1011 = sum(float(r.series["sim_user_LRU_batch_pages"].sum()) for r in sweep_1011.values())
    return comparison_table(
        [
            *_io_capacity_rows(a, low, mid),
            *_lru_flush_size_rows(s6, best),
            *_lru_flush_size_1011_rows(s11, user_1011),
        ]
    )


def _check_seed003_runs(
    io_runs: Mapping[str, Run], sweep_106: Mapping[int, Run], sweep_1011: Mapping[int, Run]
) -> None:
    """Raise ValueError unless the runs are the experiment's, with every step seed003_table uses."""
    for label, ioc in _SEED003_IOC.items():
        if label not in io_runs:
            raise ValueError(f"io_runs needs {', '.join(_SEED003_IOC)}; missing {label}")
        _seed003_check(io_runs[label], f"io_runs[{label!r}]", params.MARIADB106, ioc)
    need = (32, 1024, 2048, 4096)
    missing = [n for n in need if n not in sweep_106]
    if missing:
        raise ValueError(
            f"sweep_106 needs innodb_lru_flush_size {', '.join(map(str, need))}; "
            f"missing {', '.join(map(str, missing))}"
        )
    if 32 not in sweep_1011 or len(sweep_1011) < 2:
        raise ValueError("sweep_1011 needs innodb_lru_flush_size 32 and at least one other size")
    for what, sweep, engine in (
        ("sweep_106", sweep_106, params.MARIADB106),
        ("sweep_1011", sweep_1011, params.MARIADB1011),
    ):
        for n, run in sweep.items():
            _seed003_check(run, f"{what}[{n}]", engine, _SEED003_IOC["12K/24K"])
            if run.scenario["innodb_lru_flush_size"] != n:
                raise ValueError(f"{what}[{n}] has a different innodb_lru_flush_size")


def _io_capacity_rows(a: dict, low: dict, mid: dict) -> list[Row]:
    """innodb_io_capacity 1K/2K against 12K/24K, at innodb_lru_flush_size 32."""
    return [
        (
            "1K/2K: most dirty pages after warm-up (% of the pool); "
            '"as dirty pages hit the threshold" (innodb_max_dirty_pages_pct)',
            a["max_dirty_pages_pct"],
            low["dirty_pct_max"],
            at_least(a["max_dirty_pages_pct"]),
        ),
        (
            "1K/2K: worst second after warm-up (% of the peak); "
            '"close to 0 (actual values are around 100-500 range)"',
            a["worst_pct_of_peak_1k"],
            low["worst_pct_of_peak"],
            at_most(5, "loose: the charts are lost"),
        ),
        (
            '12K/24K against 1K/2K: mean throughput (% change); "There is an improvement"',
            math.nan,
            100 * (mid["tps_mean"] / low["tps_mean"] - 1),
            at_least(2, "4 x the seed noise"),
        ),
        (
            '12K/24K: jitter (CV of per-second tps); "the performance is not consistent"',
            math.nan,
            mid["tps_cv"],
            at_least(0.15),
        ),
        (
            "12K/24K: worst second after warm-up (% of the mean); "
            '"a wide range of performance fluctuations"',
            math.nan,
            mid["worst_pct_of_mean"],
            at_most(60),
        ),
    ]


def _lru_flush_size_rows(s6: dict, best: float) -> list[Row]:
    """innodb_lru_flush_size on 10.6 at 12K/24K: 1024/2048 against 32 and 4096."""
    return [
        (
            "lru_flush_size: better of 1024/2048 against 32, mean throughput (% change); "
            "best at 1024 (x86) or 2048 (ARM)",
            math.nan,
            100 * (best / s6[32]["tps_mean"] - 1),
            at_least(2, "4 x the seed noise"),
        ),
        (
            "lru_flush_size: lower CV of 1024/2048 / CV at 32 (ratio); less jitter",
            math.nan,
            min(s6[1024]["tps_cv"], s6[2048]["tps_cv"]) / s6[32]["tps_cv"],
            at_most(0.8),
        ),
        (
            "lru_flush_size: 4096 against the better of 1024/2048, mean throughput "
            '(% change); "increasing it beyond that doesn\'t help"',
            0,
            100 * (s6[4096]["tps_mean"] / best - 1),
            absolute(5, " points"),
        ),
        (
            "lru_flush_size: CV at 4096 minus CV at 2048; "
            '"increasing it beyond that doesn\'t help"',
            0,
            s6[4096]["tps_cv"] - s6[2048]["tps_cv"],
            absolute(0.05),
        ),
    ]


def _lru_flush_size_1011_rows(s11: dict, user_1011: float) -> list[Row]:
    """innodb_lru_flush_size on 10.11.8+: no effect, no user-thread LRU batch."""
    return [
        (
            "10.11 lru_flush_size: largest mean throughput change from 32 (%); "
            "no effect from 10.11.8 (MariaDB docs)",
            0,
            max(100 * abs(v["tps_mean"] / s11[32]["tps_mean"] - 1) for v in s11.values()),
            absolute(0.5, " points"),
        ),
        (
            "10.11 lru_flush_size: largest CV change from 32",
            0,
            max(abs(v["tps_cv"] - s11[32]["tps_cv"]) for v in s11.values()),
            absolute(0.01),
        ),
        (
            "10.11 lru_flush_size: pages written by user threads' own LRU batches (pages)",
            0,
            user_1011,
            exact(),
        ),
    ]
