"""The tuning frontier of a sweep: the settings nothing else beats on every objective.

A configuration is on the Pareto frontier when no other configuration is at least as good on
every objective and better on one (e.g. more transactions per second *and* more SSD years).
`pareto()` marks those rows; `nearest()` names the frontier settings closest to a user's
current my.cnf, measured in factors of two of each knob (halving io_capacity_max is as far as
doubling it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import polars as pl

DEFAULT_OBJECTIVES = {"tps_mean": "max", "ssd_lifetime_years": "max"}


def _objectives(table: pl.DataFrame, objectives: Mapping[str, str]) -> np.ndarray:
    if not objectives:
        raise ValueError("objectives must name at least one column, e.g. {'tps_mean': 'max'}")
    cols = []
    for name, sense in objectives.items():
        if name not in table.columns:
            raise ValueError(f"objective {name!r} is not a column of the table")
        if sense not in ("max", "min"):
            raise ValueError(f"objective {name!r}: {sense!r} must be 'max' or 'min'")
        values = table[name].cast(pl.Float64).fill_null(math.nan).to_numpy()
        cols.append(values if sense == "max" else -values)
    return np.column_stack(cols)


def dominated(points: np.ndarray) -> np.ndarray:
    """For each row of `points` (larger is better in every column), whether another row beats it.

    A row with a NaN is treated as dominated (a run that produced no value is no candidate).
    """
    n = points.shape[0]
    out = np.zeros(n, dtype=bool)
    bad = np.isnan(points).any(axis=1)
    clean = np.where(bad[:, None], -np.inf, points)
    for i in range(n):
        if bad[i]:
            out[i] = True
            continue
        ge = (clean >= clean[i]).all(axis=1)
        gt = (clean > clean[i]).any(axis=1)
        out[i] = bool((ge & gt & ~bad).any())
    return out


def pareto(table: pl.DataFrame, objectives: Mapping[str, str] = DEFAULT_OBJECTIVES) -> pl.DataFrame:
    """The table with a boolean `on_frontier` column (True: no other row beats it).

    Args:
        table: a sweep table, or its mean over seeds (`flushsim.sweep.by_config`), whose rows
            are the candidates.
        objectives: column -> "max" or "min".
    """
    points = _objectives(table, objectives)
    return table.with_columns(pl.Series("on_frontier", ~dominated(points), dtype=pl.Boolean))


def _distance_term(value: object, current: object) -> float:
    """Squared distance of one knob: log2 ratio for positive numbers, 0/1 otherwise."""
    num = (int, float)
    if isinstance(value, num) and isinstance(current, num) and not isinstance(value, bool):
        if value > 0 and current > 0:
            return math.log2(value / current) ** 2
        return 0.0 if value == current else 1.0
    return 0.0 if str(value) == str(current) else 1.0


def nearest(
    table: pl.DataFrame,
    current: Mapping[str, object],
    knobs: Sequence[str] | None = None,
    k: int = 3,
) -> pl.DataFrame:
    """The `k` frontier rows (`on_frontier`) closest to `current`, with a `distance` column.

    Distance is the Euclidean norm over `knobs` of log2(value / current): one unit is one
    doubling or halving of one knob. Knobs missing from `current` are ignored.

    Raises:
        ValueError: the table has no `on_frontier` column (call `pareto` first), or `current`
            shares no knob with the table.
    """
    if "on_frontier" not in table.columns:
        raise ValueError("the table has no on_frontier column: call frontier.pareto(table) first")
    knobs = [c for c in (knobs or table.columns) if c in current and c in table.columns]
    if not knobs:
        raise ValueError(
            f"current settings {sorted(current)} share no knob with the table's columns"
        )
    front = table.filter(pl.col("on_frontier"))
    dist = [
        math.sqrt(sum(_distance_term(row[c], current[c]) for c in knobs))
        for row in front.select(knobs).iter_rows(named=True)
    ]
    return (
        front.with_columns(pl.Series("distance", dist, dtype=pl.Float64))
        .sort("distance", maintain_order=True)
        .head(k)
    )
