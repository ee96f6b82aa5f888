"""Seed 002: Alexey Stroganov, "Watch Out for Disk I/O Performance Issues when Running EXT4".

Percona blog (November 2019); preset `seed002-ext4-dio`: ext4 and xfs, kernels 4.4 to 5.5,
O_DIRECT and O_DSYNC, at 8 and 256 threads.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence

import polars as pl

from .. import presets
from ..run import Run, simulate
from .tolerances import (
    absolute,
    at_least,
    between,
    comparison_table,
    exact,
)

SEED002_WARM_UP_S = 20
"""Seconds left out of every seed 002 measure (the same as tests/test_seed002.py)."""
SEED002_FAST_SECONDS = 40
"""Run length (s) under FLUSHSIM_FAST=1 (the test suite): the warm-up, then 20 s measured."""
SEED002_THREADS = (8, 256)
"""The thread counts compared: the article's "until 8 i/o threads" and its high counts."""
SEED002_SETUPS = {
    "xfs": {"filesystem": "xfs"},
    "ext4, 4.4": {"linux_kernel": "4.4"},
    "ext4, 5.3": {},
    "ext4 dioread_nolock, 5.3": {"filesystem": "ext4-dioread_nolock"},
    "ext4 dioread_nolock, 5.5": {"filesystem": "ext4-dioread_nolock", "linux_kernel": "5.5"},
    "ext4, 5.3, O_DSYNC": {"innodb_flush_method": "O_DSYNC"},
}
"""Seed 002's set-ups: label -> knobs changed on `seed002-ext4-dio` (ext4, kernel 5.3,
O_DIRECT). The article's "5.3.0+ilock_fix" kernel is flushsim's 5.5 (upstream's fix, with
dioread_nolock); O_DIRECT unless the label says O_DSYNC; xfs on the preset's kernel 5.3."""


def seed002_seconds(seconds: int | None = None) -> int:
    """Length of a seed 002 run in simulated seconds.

    Args:
        seconds: the length wanted; default the preset's 60 s.

    Returns:
        `seconds`, or at most SEED002_FAST_SECONDS (40) when the environment variable
        FLUSHSIM_FAST is set (the test suite sets it).
    """
    n = presets.get("seed002-ext4-dio").seconds if seconds is None else int(seconds)
    return min(n, SEED002_FAST_SECONDS) if os.environ.get("FLUSHSIM_FAST") else n


def seed002_runs(
    threads: Sequence[int] = SEED002_THREADS,
    setups: Mapping[str, Mapping[str, object]] | None = None,
    seconds: int | None = None,
) -> dict[tuple[int, str], Run]:
    """Seed 002's grid: `seed002-ext4-dio` at each thread count and set-up.

    About 2-3 s of CPU per run of 60 simulated seconds.

    Args:
        threads: client thread counts (default 8 and 256).
        setups: {label: knob changes} (default SEED002_SETUPS).
        seconds: run length in simulated seconds (default 60; see `seed002_seconds`, which
            shortens it under FLUSHSIM_FAST).

    Returns:
        {(threads, label): run}, threads first, then the set-ups in order.
    """
    setups = SEED002_SETUPS if setups is None else setups
    base = presets.get("seed002-ext4-dio").replace(seconds=seed002_seconds(seconds))
    return {
        (n, label): simulate(base.replace(threads=n, **changes))
        for n in threads
        for label, changes in setups.items()
    }


def seed002_stats(run: Run, warm_up_s: int = SEED002_WARM_UP_S) -> dict[str, float]:
    """Throughput and the I/O path of one seed 002 run: means over time_s > `warm_up_s`.

    Returns:
        `tps_mean` (transactions/s, sim_tps), `util_pct` (%), `r_s` and `w_s` (I/O per
        second), `r_await_ms` and `w_await_ms` (ms), `aqu_sz`, `dio_lock_wait_ms` (thread-ms
        per second that direct reads waited for the inode lock, sim_dio_lock_wait_ms),
        `journal_commits_forced_per_s` and `wait_free_per_s` (buffer_pool_wait_free).

    Raises:
        ValueError: no second after the warm-up.
    """
    s = run.series.filter(pl.col("time_s") > warm_up_s)
    if s.height == 0:
        raise ValueError(
            f"the run has {run.series.height} s: seed 002 measures the seconds after "
            f"warm_up_s={warm_up_s} s, so the run must be longer"
        )
    return {
        "tps_mean": float(s["sim_tps"].mean()),
        "util_pct": float(s["util_pct"].mean()),
        "r_s": float(s["r_s"].mean()),
        "w_s": float(s["w_s"].mean()),
        "r_await_ms": float(s["r_await_ms"].mean()),
        "w_await_ms": float(s["w_await_ms"].mean()),
        "aqu_sz": float(s["aqu_sz"].mean()),
        "dio_lock_wait_ms": float(s["sim_dio_lock_wait_ms"].mean()),
        "journal_commits_forced_per_s": float(s["sim_journal_commits_forced"].mean()),
        "wait_free_per_s": float(s["buffer_pool_wait_free"].mean()),
    }


def seed002_grid(
    runs: Mapping[tuple[int, str], Run], warm_up_s: int = SEED002_WARM_UP_S
) -> pl.DataFrame:
    """One row per (threads, set-up) of `seed002_runs`: throughput against xfs and the I/O path.

    Returns:
        Columns `threads`, `setup` (the label), `filesystem`, `linux_kernel`,
        `innodb_flush_method`, `tps_mean` (transactions/s), `vs_xfs_pct` (% change against the
        "xfs" set-up at the same thread count; null without one), and the rest of
        `seed002_stats`: `util_pct`, `r_s`, `w_s`, `r_await_ms`, `w_await_ms`, `aqu_sz`,
        `dio_lock_wait_ms`, `journal_commits_forced_per_s`, `wait_free_per_s`.
    """
    stats = {key: seed002_stats(run, warm_up_s) for key, run in runs.items()}
    rows = []
    for (n, label), run in runs.items():
        st = stats[(n, label)]
        xfs = stats.get((n, "xfs"))
        rows.append(
            {
                "threads": n,
                "setup": label,
                "filesystem": run.scenario["filesystem"],
                "linux_kernel": run.scenario["linux_kernel"],
                "innodb_flush_method": run.scenario["innodb_flush_method"],
                "tps_mean": st["tps_mean"],
                "vs_xfs_pct": 100 * (st["tps_mean"] / xfs["tps_mean"] - 1) if xfs else None,
                **{k: v for k, v in st.items() if k != "tps_mean"},
            }
        )
    return pl.DataFrame(rows, schema_overrides={"vs_xfs_pct": pl.Float64})


def seed002_table(
    runs: Mapping[tuple[int, str], Run], warm_up_s: int = SEED002_WARM_UP_S
) -> pl.DataFrame:
    """Seed 002 (Percona, 2019): ext4 + O_DIRECT on kernels 4.9-5.5, next to flushsim.

    The article (IO-bound sysbench OLTP_RW on NVMe): "until 8 i/o threads" the filesystems are
    "more/less similar"; at high thread counts "regular ext4 with kernel 5.3.0 causes
    performance drop in ~30-80%", and with dioread_nolock on the fixed kernel, or xfs,
    "throughput looks good"; on a regular kernel dioread_nolock "will not help" (the author's
    reply to a comment); O_DSYNC on ext4 is "just 10% less than for O_DIRECT/ext4/
    dioread_nolock and O_DIRECT/xfs and ~35% better than for O_DIRECT/ext4".

    Rules (the same as tests/test_seed002.py): "similar" within 5 points; the drop -80 to -30 %;
    the regular kernel's dioread_nolock exactly ext4's numbers; the fixed kernel exactly the
    numbers of a kernel before 4.9 (4.4) and within 5 points of xfs; O_DSYNC 5-20 % below xfs;
    "~35 % better" at least +20 %. All are % changes of mean sim_tps after `warm_up_s`.
    flushsim reproduces neither the similarity at 8 threads, nor the drop, nor O_DSYNC beating
    ext4 O_DIRECT: those rows read False.

    Args:
        runs: `seed002_runs()` (needs "xfs" and "ext4, 5.3" at 8 threads and every set-up of
            SEED002_SETUPS at 256).
        warm_up_s: seconds left out at the start of each run.

    Returns:
        The comparison table (columns quantity, article, flushsim, tolerance, ok).

    Raises:
        ValueError: a run is missing.
    """
    need = [(8, "xfs"), (8, "ext4, 5.3")] + [(256, label) for label in SEED002_SETUPS]
    missing = [f"{n} threads {label!r}" for n, label in need if (n, label) not in runs]
    if missing:
        raise ValueError(f"runs needs (see seed002_runs); missing {', '.join(missing)}")
    tps = {key: seed002_stats(runs[key], warm_up_s)["tps_mean"] for key in need}

    def change(n: int, label: str, against: str) -> float:
        return 100 * (tps[(n, label)] / tps[(n, against)] - 1)

    nan = math.nan
    return comparison_table(
        [
            (
                '8 threads: ext4 5.3 O_DIRECT against xfs (% change); "more/less similar"',
                0,
                change(8, "ext4, 5.3", "xfs"),
                absolute(5, " points"),
            ),
            (
                "256 threads: ext4 5.3 O_DIRECT against xfs (% change); "
                '"performance drop in ~30-80%"',
                nan,
                change(256, "ext4, 5.3", "xfs"),
                between(-80, -30),
            ),
            (
                "256 threads: ext4 dioread_nolock on the regular kernel 5.3 against ext4 "
                '(% change); "will not help"',
                0,
                change(256, "ext4 dioread_nolock, 5.3", "ext4, 5.3"),
                exact(),
            ),
            (
                "256 threads: ext4 dioread_nolock on the fixed kernel (5.5) against ext4 on "
                "4.4 (% change); as before the regression",
                0,
                change(256, "ext4 dioread_nolock, 5.5", "ext4, 4.4"),
                exact(),
            ),
            (
                "256 threads: ext4 dioread_nolock on the fixed kernel against xfs (% change); "
                '"throughput looks good"',
                0,
                change(256, "ext4 dioread_nolock, 5.5", "xfs"),
                absolute(5, " points"),
            ),
            (
                '256 threads: O_DSYNC on ext4 5.3 against xfs O_DIRECT (% change); "just 10% less"',
                -10,
                change(256, "ext4, 5.3, O_DSYNC", "xfs"),
                between(-20, -5),
            ),
            (
                '256 threads: O_DSYNC on ext4 5.3 against ext4 O_DIRECT (% change); "~35% better"',
                35,
                change(256, "ext4, 5.3, O_DSYNC", "ext4, 5.3"),
                at_least(20),
            ),
        ]
    )


SEED002_NOT_REPRODUCED = (
    "8 threads: ext4 5.3 O_DIRECT against xfs",
    "256 threads: ext4 5.3 O_DIRECT against xfs",
    "256 threads: O_DSYNC on ext4 5.3 against ext4 O_DIRECT",
)
"""Starts of the seed 002 rows flushsim does not reproduce (tests/test_seed002.py's xfail)."""
