"""compare(): several what-ifs, typically one per engine, as one long table ready to plot.

`fs.compare({"MySQL 8.0": a, "MariaDB 10.11": b})` simulates each Scenario (or takes a finished
Run as it is) and stacks their per-second series, with a `label` column (the dict key) and an
`engine` column first. Columns only one engine reports (MariaDB's status names) are null in the
other engine's rows.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from .run import Run
from .scenario import Scenario
from .warmup import simulate_warm


def compare(
    runs: Mapping[str, Scenario | Run],
    *,
    seconds: int | None = None,
    seed: int | None = None,
    kernel: str = "numba",
    warmup: int | str = 0,
) -> pl.DataFrame:
    """One long polars table of several runs, labelled by the keys of `runs`.

    Args:
        runs: label -> Scenario (simulated here) or Run (used as it is), in display order.
        seconds: optional run length applied to every Scenario.
        seed: optional seed applied to every Scenario.
        kernel: "numba" or "reference", as in simulate().
        warmup: seconds, or "auto", simulated before every Scenario and cut (flushsim.warmup).

    Raises:
        ValueError: no runs, or a label that is not a non-empty string.
        TypeError: a value that is neither a Scenario nor a Run.
    """
    if not runs:
        raise ValueError("compare() needs at least one labelled Scenario or Run")
    frames = []
    for label, item in runs.items():
        if not isinstance(label, str) or not label:
            raise ValueError(f"label {label!r} must be a non-empty string")
        if isinstance(item, Run):
            run = item
        elif isinstance(item, Scenario):
            changes = {k: v for k, v in (("seconds", seconds), ("seed", seed)) if v is not None}
            run = simulate_warm(item.replace(**changes) if changes else item, warmup, kernel=kernel)
        else:
            raise TypeError(
                f"compare() takes Scenarios or Runs, not {type(item).__name__} (label {label!r})"
            )
        frames.append(
            run.series.with_columns(
                pl.lit(label).alias("label"), pl.lit(run.scenario.engine).alias("engine")
            )
        )
    table = pl.concat(frames, how="diagonal_relaxed")
    rest = [c for c in table.columns if c not in ("label", "engine")]
    return table.select(["label", "engine", *rest])
