"""Acceptance rules for the article-vs-flushsim tables, and the table they fill."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

SCHEMA = {
    "quantity": pl.String,
    "article": pl.Float64,
    "flushsim": pl.Float64,
    "tolerance": pl.String,
    "ok": pl.Boolean,
}
"""The columns of every comparison table, and their types."""


@dataclass(frozen=True)
class Tolerance:
    """An acceptance rule for one row: its words and the test it stands for.

    Attributes:
        text: the rule as the table shows it.
        kind: "relative" (|flushsim - article| <= value x |article|), "absolute"
            (|flushsim - article| <= value), "exact" (equal), "at_least" (flushsim >= value),
            "at_most" (flushsim <= value) or "below" (flushsim < value).
        value: the fraction for "relative", the allowed difference for "absolute", the bound
            for the others (unused by "exact").
    """

    text: str
    kind: str
    value: float = 0.0

    def ok(self, article: float, flushsim: float) -> bool:
        """Whether `flushsim` satisfies this rule against `article`.

        A NaN `flushsim` never does; a NaN `article` (a claim in words only) fails the rules
        that compare with it (relative, absolute, exact), not the bounds.
        """
        if math.isnan(flushsim):
            return False
        if math.isnan(article) and self.kind in ("relative", "absolute", "exact"):
            return False
        if self.kind == "relative":
            return abs(flushsim - article) <= self.value * abs(article) * (1 + 1e-12)
        if self.kind == "absolute":
            return abs(flushsim - article) <= self.value * (1 + 1e-12)
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


def absolute(difference: float, unit: str = "") -> Tolerance:
    """A rule: within `difference` of the article's number (`unit` is only for the text)."""
    return Tolerance(f"±{difference:g}{unit}", "absolute", difference)


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


Row = tuple[str, float, float, Tolerance]
"""One row of a comparison table: quantity, article, flushsim, tolerance."""


def comparison_table(rows: Sequence[Row]) -> pl.DataFrame:
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


@dataclass(frozen=True)
class _Between(Tolerance):
    """A rule: low <= flushsim <= high (both bounds included), whatever the article's number."""

    low: float = 0.0
    high: float = 0.0

    def ok(self, article: float, flushsim: float) -> bool:
        """Whether `flushsim` lies in [low, high]; a NaN never does."""
        if math.isnan(flushsim):
            return False
        return self.low <= flushsim <= self.high


def between(low: float, high: float, why: str = "") -> Tolerance:
    """A rule: the run's number lies between `low` and `high`, both included."""
    text = f"{low:,.4g} to {high:,.4g}" + (f" ({why})" if why else "")
    return _Between(text, "between", 0.0, float(low), float(high))
