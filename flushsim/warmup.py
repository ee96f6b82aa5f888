"""Warm starts: simulate a warm-up, then cut it, so that a series starts at a warm server.

Every run starts like a freshly started server, its pool empty. `warm(scenario, warmup)`
returns the scenario lengthened by the warm-up (its timeline shifted by as much) and the
seconds to cut; `simulate_warm` runs it and cuts. `warmup` is whole seconds, or "auto": until
dirty pages, free pages and checkpoint age settle (`settle_time`), at most `AUTO_CAP_S`.
The cut run is the same run, same seed: only its first seconds are left out (docs/model.md,
"Warm starts").
"""

from __future__ import annotations

from dataclasses import replace as dc_replace

import numpy as np
import polars as pl

from .run import Run, simulate
from .scenario import MAX_SECONDS, Scenario

AUTO = "auto"
AUTO_CAP_S = 300  # an auto warm-up that has not settled by then stops there
WINDOW_S = 10  # settled: two consecutive windows of this many seconds agree
PAGES_TOL = 0.01  # ... their mean dirty and free pages within 1 % of the pool's pages
AGE_TOL = 0.02  # ... and their mean checkpoint age within 2 % of the sync flushing point
GAUGES = ("buffer_pool_pages_dirty", "buffer_pool_pages_free", "log_lsn_checkpoint_age")


def parse_warmup(text: str | int | None) -> int | str:
    """`auto`, or whole seconds from 0 to MAX_SECONDS; else a one-line ValueError."""
    if text is None:
        return 0
    s = str(text).strip().lower()
    if s == AUTO:
        return AUTO
    if not s.isdigit() or int(s) > MAX_SECONDS:
        raise ValueError(
            f"--warmup {text!r} must be 'auto' or whole seconds between 0 and {MAX_SECONDS}"
        )
    return int(s)


def settle_time(series: pl.DataFrame) -> int | None:
    """The first second at which the three GAUGES have settled, or None if they never do.

    Settled: the means over the last WINDOW_S seconds and the WINDOW_S before differ by at most
    PAGES_TOL of the pool's pages (dirty, free) and AGE_TOL of the sync point (checkpoint age).
    """
    pages = float(series["buffer_pool_pages_total"].max() or 1)
    sync = float(series["log_max_modified_age_sync"].max() or 1)
    tol = np.array([PAGES_TOL * pages, PAGES_TOL * pages, AGE_TOL * sync])
    g = series.select(GAUGES).to_numpy().astype(np.float64)
    csum = np.vstack([np.zeros((1, g.shape[1])), np.cumsum(g, axis=0)])
    for t in range(2 * WINDOW_S, g.shape[0] + 1):
        last = (csum[t] - csum[t - WINDOW_S]) / WINDOW_S
        before = (csum[t - WINDOW_S] - csum[t - 2 * WINDOW_S]) / WINDOW_S
        if np.all(np.abs(last - before) <= tol):
            return t
    return None


def auto_warmup(scenario: Scenario) -> tuple[int, bool]:
    """Seconds of warm-up for `scenario` ("auto"), and whether its gauges settled by then.

    Probes AUTO_CAP_S seconds of the scenario without its timeline, same seed.
    """
    probe = simulate(scenario.replace(timeline=(), seconds=AUTO_CAP_S))
    t = settle_time(probe.series)
    return (AUTO_CAP_S, False) if t is None else (t, True)


def warm(scenario: Scenario, warmup: int | str) -> tuple[Scenario, int, str]:
    """The scenario lengthened by its warm-up, the seconds to cut, and a one-line note."""
    if warmup == AUTO:
        seconds, settled = auto_warmup(scenario)
        note = (
            f"warm-up auto: {seconds} s, until dirty pages, free pages and checkpoint age settled"
            if settled
            else f"warm-up auto: not settled after {seconds} s (the cap); cut there"
        )
    else:
        seconds = int(warmup)
        note = f"warm-up {seconds} s" if seconds else "cold start (no warm-up)"
    if not seconds:
        return scenario, 0, note
    if scenario.seconds + seconds > MAX_SECONDS:
        raise ValueError(
            f"--warmup {seconds} s + seconds={scenario.seconds} is more than {MAX_SECONDS} s"
        )
    events = tuple(dc_replace(e, at=e.at + seconds) for e in scenario.timeline)
    longer = scenario.replace(seconds=scenario.seconds + seconds, timeline=events)
    return longer, seconds, note


def cut(run: Run, seconds: int, scenario: Scenario) -> Run:
    """`run` without its first `seconds`, time starting again at 1 (the original scenario)."""
    if not seconds:
        return run
    series = run.series.slice(seconds).with_columns(pl.col("time_s") - seconds)
    return Run(scenario, series, run.latency_hist[seconds:], run.kernel)


def simulate_warm(scenario: Scenario, warmup: int | str = 0, *, kernel: str = "numba") -> Run:
    """simulate(), starting at a warm server: the warm-up is simulated and cut."""
    longer, seconds, _ = warm(scenario, warmup)
    return cut(simulate(longer, kernel=kernel), seconds, scenario)
