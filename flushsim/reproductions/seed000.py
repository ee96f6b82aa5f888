"""Seed 000: "InnoDB dirty page flush stalling on NVMe I/O queues" (a blog post).

A PHP daemon's single-row UPDATEs into a 128M pool on ext4 (data=ordered) with
innodb_flush_method=fsync, next to ImageMagick writing 64 MB/s of buffered data; presets
`seed000-stall` and `seed000-fixed`, and what-ifs that each change one cause.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import polars as pl

from .. import presets
from ..run import Run, simulate
from ..scenario import Scenario
from .tolerances import (
    Row,
    absolute,
    at_least,
    at_most,
    below,
    between,
    comparison_table,
    exact,
    relative,
)

SEED000_ARTICLE = {
    "pages_total": 8192,  # "Buffer pool size 8192" (128 MiB of 16 KiB pages)
    "free_buffers": 0,  # "Free buffers 0"
    "modified_pages": 7845,  # "Modified db pages 7845"
    "w_await_ms": 85.4,  # iostat -x 1 during the stall: w_await (ms)
    "w_await_steady_ms": 0.33,  # the same before the stall (no image conversion)
    "aqu_sz": 14.2,  # avgqu-sz during the stall
    "util_pct": 96.05,  # %util during the stall
    "w_s": 4800.5,  # w/s during the stall
    "wkB_s": 76_808.0,  # wkB/s during the stall
    "r_await_ms": 0.15,  # r_await (ms), before and during the stall
    "mysqld_kB_wr_s": 12_540.0,  # pidstat -d 1: mysqld kB_wr/s
    "convert_kB_wr_s": 64_268.0,  # pidstat -d 1: convert (ImageMagick) kB_wr/s
    "stall_s": 4.5,  # "a 4.5-second I/O stall"
    "sync_write_ms": 85.0,  # blktrace: a 16 KiB synchronous (WS) write completes after 85 ms
}
"""Seed 000's numbers, as printed in the article (units in the comments)."""

SEED000_WARM_UP_S = 10
"""Seconds left out of every seed 000 measure (the pool fills in the first ones)."""

SEED000_VARIANTS = {
    "stall": "seed000-stall as it is",
    "no neighbour": "neighbour_write_mb_s=0: no image converter",
    "xfs": "filesystem=xfs: no journal commit per fsync",
    "O_DIRECT": "innodb_flush_method=O_DIRECT: data and doublewrite files bypass the page cache",
    "trx_commit=1": "innodb_flush_log_at_trx_commit=1: every commit fsyncs the redo log",
    "fix": "seed000-fixed: the article's my.cnf (4G, O_DIRECT, io_capacity 2000/4000, 4 cleaners)",
    "datasheet NVMe": "device=nvme-pcie4: the datasheet drive instead of the iostat calibration",
}
"""The seed 000 what-ifs: label -> what changes against `seed000-stall` (one cause at a time)."""


def with_device(scenario: Scenario, device: str) -> Scenario:
    """`scenario` on a storage profile of data/devices.csv instead of its own device_* knobs.

    A device_* knob set by hand wins over a profile (params.validate), so the scenario's own
    device_read_iops, device_write_iops, ... are dropped first.

    Args:
        scenario: a Scenario (e.g. `presets.get("seed000-stall")`).
        device: a profile name of data/devices.csv (e.g. "nvme-pcie4").

    Returns:
        A new Scenario with the same knobs, timeline, length and seed, `device=device` and no
        device_* knob of its own.
    """
    knobs = {k: v for k, v in scenario.knobs.items() if not k.startswith("device_")}
    knobs["device"] = device
    return Scenario(
        knobs=knobs,
        engine=scenario.engine,
        timeline=scenario.timeline,
        seconds=scenario.seconds,
        seed=scenario.seed,
        name=scenario.name,
        description=scenario.description,
    )


def seed000_scenarios() -> dict[str, Scenario]:
    """The seed 000 what-ifs as Scenarios, keyed like SEED000_VARIANTS (one change each)."""
    stall = presets.get("seed000-stall")
    return {
        "stall": stall,
        "no neighbour": stall.replace(neighbour_write_mb_s=0.0),
        "xfs": stall.replace(filesystem="xfs"),
        "O_DIRECT": stall.replace(innodb_flush_method="O_DIRECT"),
        "trx_commit=1": stall.replace(innodb_flush_log_at_trx_commit=1),
        "fix": presets.get("seed000-fixed"),
        "datasheet NVMe": with_device(stall, "nvme-pcie4"),
    }


def seed000_runs() -> dict[str, Run]:
    """Run every seed 000 what-if (60 simulated seconds each, under a second of CPU each).

    Returns:
        {label: run}, in the order of SEED000_VARIANTS.
    """
    return {label: simulate(sc) for label, sc in seed000_scenarios().items()}


def seed000_stats(run: Run, warm_up_s: int = SEED000_WARM_UP_S) -> dict[str, float]:
    """The stall's measures on one run: the seconds with time_s > `warm_up_s`.

    Args:
        run: any run; meant for `seed000-stall`, `seed000-fixed` and their what-ifs.
        warm_up_s: seconds left out at the start (the same as tests/test_seed000.py).

    Returns:
        Throughput: `tps_mean` (transactions/s), `zero_tps_seconds` (seconds without a single
        commit), `trx_latency_max_ms` (the worst transaction, ms: the upper bound of its
        histogram bucket, 1/8 of an octave wide). The pool: `pool_pages` (pages),
        `free_min` (fewest free pages), `dirty_pct_max` (most dirty pages, % of the pool),
        `single_page_flushes` (pages a user thread wrote itself, sim_single_page_flushes,
        summed). iostat: `w_await_max_ms` and `r_await_max_ms` (worst second, ms),
        `aqu_sz_max` (worst second), `util_pct_mean` (%), `w_s_mean` (writes/s), `wkB_s_mean`
        (kB/s, 1 kB = 1024 B). pidstat: `mysqld_kB_wr_s` (wkB_s - sim_neighbour_wkB_s, mean,
        kB/s) and `neighbour_kB_wr_s` (sim_neighbour_wkB_s, mean, kB/s). fsyncs:
        `fsync_latency_max_ms` (the worst second's mean fsync latency, ms),
        `journal_commits_forced_per_s` (sim_journal_commits_forced, mean per second) and
        `journal_commits_forced_max` (most in one second); commits: `commit_wait_max_ms`
        (sim_commit_wait_ms, the worst second, thread-ms).

    Raises:
        ValueError: no second after the warm-up.
    """
    s = run.series.filter(pl.col("time_s") > warm_up_s)
    if s.height == 0:
        raise ValueError(
            f"the run has {run.series.height} s: seed 000 measures the seconds after "
            f"warm_up_s={warm_up_s} s, so the run must be longer"
        )
    pool = float(s["buffer_pool_pages_total"][0])
    nb = s["sim_neighbour_wkB_s"]
    return {
        "tps_mean": float(s["sim_tps"].mean()),
        "zero_tps_seconds": float((s["sim_tps"] == 0).sum()),
        "trx_latency_max_ms": float(s["sim_trx_latency_max_ms"].max()),
        "pool_pages": pool,
        "free_min": float(s["buffer_pool_pages_free"].min()),
        "dirty_pct_max": float(100 * s["buffer_pool_pages_dirty"].max() / pool),
        "single_page_flushes": float(s["sim_single_page_flushes"].sum()),
        "w_await_max_ms": float(s["w_await_ms"].max()),
        "r_await_max_ms": float(s["r_await_ms"].max()),
        "aqu_sz_max": float(s["aqu_sz"].max()),
        "util_pct_mean": float(s["util_pct"].mean()),
        "w_s_mean": float(s["w_s"].mean()),
        "wkB_s_mean": float(s["wkB_s"].mean()),
        "mysqld_kB_wr_s": float((s["wkB_s"] - nb).mean()),
        "neighbour_kB_wr_s": float(nb.mean()),
        "fsync_latency_max_ms": float(s["sim_fsync_latency_ms"].max()),
        "journal_commits_forced_per_s": float(s["sim_journal_commits_forced"].mean()),
        "journal_commits_forced_max": float(s["sim_journal_commits_forced"].max()),
        "commit_wait_max_ms": float(s["sim_commit_wait_ms"].max()),
    }


def seed000_iostat(run: Run, from_s: int, to_s: int) -> pl.DataFrame:
    """The seconds from_s <= time_s <= to_s as `iostat -x -d 1` and `pidstat -d 1` print them.

    Args:
        run: any run.
        from_s: first second shown (time_s, the second that ends there).
        to_s: last second shown.

    Returns:
        Columns `time_s`, then iostat's: `r_s`, `w_s` (I/O per second), `rkB_s`, `wkB_s`
        (kB/s, 1 kB = 1024 B), `avgrq_sz` (mean request size in 512-byte sectors), `aqu_sz`,
        `await_ms`, `r_await_ms`, `w_await_ms` (ms; await is the mean over reads and writes),
        `util_pct` (%); then pidstat's kB_wr/s: `mysqld_kB_wr_s` (wkB_s less the neighbour's)
        and `convert_kB_wr_s` (the neighbour's, sim_neighbour_wkB_s). Figures are attributed
        to the second an I/O completes in, as Linux counts them (kernels/io.py).
    """
    s = run.series.filter(pl.col("time_s").is_between(from_s, to_s))
    ios = pl.col("r_s") + pl.col("w_s")
    return s.select(
        "time_s",
        "r_s",
        "w_s",
        "rkB_s",
        "wkB_s",
        pl.when(ios > 0)
        .then((pl.col("rkB_s") + pl.col("wkB_s")) * 2 / ios)
        .otherwise(0.0)
        .alias("avgrq_sz"),
        "aqu_sz",
        pl.when(ios > 0)
        .then((pl.col("r_await_ms") * pl.col("r_s") + pl.col("w_await_ms") * pl.col("w_s")) / ios)
        .otherwise(0.0)
        .alias("await_ms"),
        "r_await_ms",
        "w_await_ms",
        "util_pct",
        (pl.col("wkB_s") - pl.col("sim_neighbour_wkB_s")).alias("mysqld_kB_wr_s"),
        pl.col("sim_neighbour_wkB_s").alias("convert_kB_wr_s"),
    )


def seed000_whatif_table(
    runs: Mapping[str, Run], warm_up_s: int = SEED000_WARM_UP_S
) -> pl.DataFrame:
    """One row per seed 000 what-if: did the stall go, and what changed under the database.

    Args:
        runs: {label: run}, e.g. `seed000_runs()`; labels of SEED000_VARIANTS get its text.
        warm_up_s: seconds left out at the start of each run.

    Returns:
        Columns `variant`, `change` (what differs from seed000-stall), then, as in
        `seed000_stats`: `tps_mean` (transactions/s), `zero_tps_seconds`,
        `trx_latency_max_ms`, `free_min` (pages), `single_page_flushes` (pages),
        `w_await_max_ms`, `util_pct_mean` (%), `fsync_latency_max_ms`,
        `journal_commits_forced_per_s` and `commit_wait_max_ms`.
    """
    keep = (
        "tps_mean",
        "zero_tps_seconds",
        "trx_latency_max_ms",
        "free_min",
        "single_page_flushes",
        "w_await_max_ms",
        "util_pct_mean",
        "fsync_latency_max_ms",
        "journal_commits_forced_per_s",
        "commit_wait_max_ms",
    )
    rows = []
    for label, run in runs.items():
        st = seed000_stats(run, warm_up_s)
        rows.append(
            {
                "variant": label,
                "change": SEED000_VARIANTS.get(label, ""),
                **{k: st[k] for k in keep},
            }
        )
    return pl.DataFrame(rows)


def seed000_table(runs: Mapping[str, Run], warm_up_s: int = SEED000_WARM_UP_S) -> pl.DataFrame:
    """Seed 000 (a stall under the database): the article's numbers next to flushsim's.

    The article: a 128M pool with 0 free buffers and 7,845 of 8,192 pages dirty, query threads
    forced into synchronous single-page flushes; iostat in the stall: w_await 85.4 ms (0.33
    before), avgqu-sz 14.2, %util 96, 4,800 w/s, 76,808 wkB/s, r_await 0.15 ms throughout;
    pidstat: mysqld 12,540 kB_wr/s, convert 64,268; fsyncs waiting in jbd2_log_wait_commit,
    a 16 KiB synchronous write completing after 85 ms; "a 4.5-second I/O stall". Its fix (4G,
    O_DIRECT, io_capacity 2000/4000, 4 page cleaners) "eliminates the block layer contention".

    Rules (tests/test_seed000.py where it has them): pool size and free buffers exact; dirty
    pages at least 95 % of the pool; at least one single-page flush; worst w_await 20-500 ms
    ("tens of milliseconds") and below 5 ms without the neighbour; mysqld's write rate ±40 %
    (one pidstat sample); the converter's ±5 %; at least 20 forced journal commits a second and
    a worst second's fsync of at least 10 ms; a worst transaction of at least 1 s ("seconds");
    after the fix no single-page flush, at most one forced journal commit a second (the redo
    log's), no transaction of 1 s or more and no second without a commit. Rows the tests do not
    have: avgqu-sz ±50 %, %util ±5 points, wkB/s ±10 %, w/s ±25 %, r_await no higher than
    without the neighbour, and O_DIRECT's journal commits (at most one a second). flushsim does
    not reproduce w/s (the neighbour's writeback goes out in 512 KiB requests, the article's in
    16 KiB ones): that row reads False. No model can match it together with w_await and
    avgqu-sz: iostat derives avgqu-sz and await from the same request times, so avgqu-sz =
    (r/s x r_await + w/s x w_await) / 1000, which is 410 for the article's stall line, not 14.2.

    Args:
        runs: {label: run} with at least "stall", "no neighbour", "O_DIRECT" and "fix" (see
            `seed000_runs`).
        warm_up_s: seconds left out at the start of each run.

    Returns:
        The comparison table (columns quantity, article, flushsim, tolerance, ok).

    Raises:
        ValueError: a run is missing or is not the preset it stands for.
    """
    need = ("stall", "no neighbour", "O_DIRECT", "fix")
    missing = [k for k in need if k not in runs]
    if missing:
        raise ValueError(
            f"runs needs {', '.join(need)} (see seed000_runs); missing {', '.join(missing)}"
        )
    expected = seed000_scenarios()
    for label in need:
        if runs[label].scenario.replace(seconds=expected[label].seconds) != expected[label]:
            raise ValueError(
                f"runs[{label!r}] is not the scenario seed000_scenarios() gives for {label!r}"
            )
    a = SEED000_ARTICLE
    st = seed000_stats(runs["stall"], warm_up_s)
    quiet = seed000_stats(runs["no neighbour"], warm_up_s)
    direct = seed000_stats(runs["O_DIRECT"], warm_up_s)
    fix = seed000_stats(runs["fix"], warm_up_s)
    return comparison_table(
        [
            *_pool_rows(a, st),
            *_iostat_rows(a, st, quiet),
            *_fsync_rows(a, st),
            *_fix_rows(direct, fix),
        ]
    )


def _pool_rows(a: dict, st: dict) -> list[Row]:
    """The pool in the stall: its size, free and dirty pages, the user threads' flushes."""
    return [
        ("Buffer pool size (pages)", a["pages_total"], st["pool_pages"], exact()),
        (
            "Free buffers: fewest free pages after the warm-up (pages)",
            a["free_buffers"],
            st["free_min"],
            exact(),
        ),
        (
            "Modified db pages: most dirty pages after the warm-up (% of the pool)",
            100 * a["modified_pages"] / a["pages_total"],
            st["dirty_pct_max"],
            at_least(95, "the article's 7,845 / 8,192, rounded down"),
        ),
        (
            'pages the user thread flushed itself; "forced into synchronous single-page flushes"',
            math.nan,
            st["single_page_flushes"],
            at_least(1),
        ),
    ]


def _iostat_rows(a: dict, st: dict, quiet: dict) -> list[Row]:
    """Iostat and pidstat in the stall (and w_await, r_await without the neighbour)."""
    return [
        (
            "iostat w_await in the stall, worst second (ms)",
            a["w_await_ms"],
            st["w_await_max_ms"],
            between(20, 500, '"tens of milliseconds"'),
        ),
        (
            "iostat w_await without the neighbour, worst second (ms)",
            a["w_await_steady_ms"],
            quiet["w_await_max_ms"],
            below(5),
        ),
        (
            "iostat avgqu-sz (aqu_sz) in the stall, worst second",
            a["aqu_sz"],
            st["aqu_sz_max"],
            relative(0.5),
        ),
        (
            "iostat %util in the stall, mean (%)",
            a["util_pct"],
            st["util_pct_mean"],
            absolute(5, " points"),
        ),
        (
            "iostat wkB/s in the stall, mean (kB/s)",
            a["wkB_s"],
            st["wkB_s_mean"],
            relative(0.10),
        ),
        ("iostat w/s in the stall, mean", a["w_s"], st["w_s_mean"], relative(0.25)),
        (
            "iostat r_await in the stall, worst second (ms); unchanged by the stall",
            a["r_await_ms"],
            st["r_await_max_ms"],
            at_most(quiet["r_await_max_ms"], "as without the neighbour"),
        ),
        (
            "pidstat mysqld kB_wr/s: wkB_s - sim_neighbour_wkB_s, mean",
            a["mysqld_kB_wr_s"],
            st["mysqld_kB_wr_s"],
            relative(0.40),
        ),
        (
            "pidstat convert kB_wr/s: sim_neighbour_wkB_s, mean",
            a["convert_kB_wr_s"],
            st["neighbour_kB_wr_s"],
            relative(0.05),
        ),
    ]


def _fsync_rows(a: dict, st: dict) -> list[Row]:
    """Journal commits, fsync latency and the worst transaction in the stall."""
    return [
        (
            "fsyncs that commit the journal, per second (jbd2_log_wait_commit)",
            math.nan,
            st["journal_commits_forced_per_s"],
            at_least(20, "every doublewrite and data-file fsync"),
        ),
        (
            "fsync latency, worst second's mean (ms); blktrace: a synchronous 16 KiB write "
            "took 85 ms",
            a["sync_write_ms"],
            st["fsync_latency_max_ms"],
            at_least(10),
        ),
        (
            'worst transaction after the warm-up (ms); "a 4.5-second I/O stall"',
            1000 * a["stall_s"],
            st["trx_latency_max_ms"],
            at_least(1000, '"seconds"'),
        ),
    ]


def _fix_rows(direct: dict, fix: dict) -> list[Row]:
    """O_DIRECT's journal commits, and the stall gone under the article's fix."""
    return [
        (
            "O_DIRECT: fsyncs that commit the journal, most in a second (the redo log's)",
            math.nan,
            direct["journal_commits_forced_max"],
            at_most(1),
        ),
        (
            "the fix: pages the user thread flushed itself",
            0,
            fix["single_page_flushes"],
            exact(),
        ),
        (
            "the fix: fsyncs that commit the journal, most in a second (the redo log's)",
            math.nan,
            fix["journal_commits_forced_max"],
            at_most(1),
        ),
        (
            "the fix: worst transaction after the warm-up (ms); the stall is gone",
            math.nan,
            fix["trx_latency_max_ms"],
            below(1000),
        ),
        (
            "the fix: seconds without a commit after the warm-up",
            0,
            fix["zero_tps_seconds"],
            exact(),
        ),
    ]


SEED000_NOT_REPRODUCED = ("iostat w/s in the stall",)
"""Starts of the seed 000 rows flushsim does not reproduce (w/s: the neighbour's writeback
requests are 512 KiB in flushsim, 16 KiB in the article, whose w/s, w_await and avgqu-sz break
iostat's avgqu-sz = (r/s x r_await + w/s x w_await) / 1000)."""
