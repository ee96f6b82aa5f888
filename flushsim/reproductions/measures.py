"""Reading a run the way the seeds' articles do: one second of its series, its SET GLOBALs."""

from __future__ import annotations

import polars as pl

from ..run import Run


def row_at(run: Run, time_s: int) -> dict:
    """The run's series row for the second ending at `time_s`, as a dict.

    Raises:
        ValueError: the run has no such second.
    """
    s = run.series.filter(pl.col("time_s") == time_s)
    if s.height != 1:
        raise ValueError(
            f"the run has no second ending at time_s={time_s} (it is {run.series.height} s long)"
        )
    return s.row(0, named=True)


def set_times(run: Run, knob: str) -> list[tuple[float, object]]:
    """(time, value) of every SET GLOBAL of `knob` in the run's timeline, in order."""
    return [(at, v) for at, action, k, v in run.scenario.changes if action == "set" and k == knob]
