"""A run's SSD lifetime: the one number, and its sentence, that every view of a run shows.

The explorer's summary and lifetime figure, `report`, sweeps' `ssd_lifetime_years` and
`whatif`'s HTML and JSON all take it from `run_lifetime`: the run's mean write rate to the drive
(`amplification.db_bytes`: data pages, doublewrite, redo) after its warm-up, written
`ssd_hours_per_day` hours a day, on a drive `fill` full, under the greedy-FTL model
(`ssd.DEFAULT_MODEL`). The sentence is `lifetime_headline`: "about 18 days at 50 % full at
this load, 24 hours a day". docs/model.md, SSD wear.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from . import amplification, ssd
from .run import Run

__all__ = [
    "Lifetime",
    "daily_rate",
    "drive_device",
    "duration_text",
    "lifetime_headline",
    "run_lifetime",
]


@dataclass(frozen=True)
class Lifetime:
    """How long a drive lasts under a run's writes.

    Attributes:
        years: years until the drive's rated endurance is used up (inf: nothing written).
        fill: fraction of the drive holding data.
        hours_per_day: hours a day the load runs (the scenario's `ssd_hours_per_day`).
        write_bytes_per_s: the run's mean write rate to the drive while the load runs.
        drive: the drive.
        model: the FTL model (`ssd.MODELS`).
    """

    years: float
    fill: float
    hours_per_day: float
    write_bytes_per_s: float
    drive: ssd.Drive
    model: str = ssd.DEFAULT_MODEL

    @property
    def headline(self) -> str:
        """The lifetime in words: "about 18 days at 50 % full at this load, 24 hours a day"."""
        return lifetime_headline(self.years, self.fill, self.hours_per_day)


def daily_rate(write_bytes_per_s: float, hours_per_day: float) -> float:
    """The day's mean write rate of a load writing `write_bytes_per_s` `hours_per_day` hours a day.

    The duty cycle: half the hours, half the rate, twice the years.

    Raises:
        ValueError: hours_per_day outside (0, 24].
    """
    if not 0 < hours_per_day <= 24:
        raise ValueError(
            f"hours_per_day={hours_per_day!r} is out of range: it must be in (0, 24] "
            "(hours a day the load runs)"
        )
    return write_bytes_per_s * hours_per_day / 24.0


def _count(n: float, unit: str) -> str:
    return f"about {n:,.0f} {unit}{'' if round(n) == 1 else 's'}"


def duration_text(years: float) -> str:
    """A lifetime in words, in the unit a reader pictures: years, else months, days or hours.

    2.5 -> "about 2.5 years", 0.4 -> "about 5 months", 0.05 -> "about 18 days"; a month is
    a twelfth of the 365-day year. inf (nothing written) -> "no wear (nothing written)".

    Raises:
        ValueError: years is negative or NaN.
    """
    y = float(years)
    if not y >= 0:  # NaN too
        raise ValueError(f"years={y!r} is out of range: it must be >= 0 (lifetime in years)")
    if math.isinf(y):
        return "no wear (nothing written)"
    if round(y, 1) >= 10:
        return _count(y, "year")
    if y >= 1:
        return "about 1 year" if round(y, 1) == 1.0 else f"about {y:.1f} years"
    if y * 12 >= 1:
        return _count(y * 12, "month")
    days = y * 365
    if days >= 1:
        return _count(days, "day")
    if days * 24 >= 1:
        return _count(days * 24, "hour")
    return "under an hour"


def lifetime_headline(years: float, fill: float, hours_per_day: float) -> str:
    """The one-line answer: "about 18 days at 50 % full at this load, 24 hours a day".

    Args:
        years: the lifetime (`lifetime_years`).
        fill: fraction of the drive holding data.
        hours_per_day: hours a day the load runs.
    """
    hours = f"{hours_per_day:g} hour{'' if hours_per_day == 1 else 's'} a day"
    return f"{duration_text(years)} at {fill * 100:.0f} % full at this load, {hours}"


def run_lifetime(
    run: Run, drive: ssd.Drive, fill: float, *, warmup_s: int = 0, model: str = ssd.DEFAULT_MODEL
) -> Lifetime:
    """The lifetime of `drive`, `fill` full, under `run`'s writes after its first `warmup_s` s.

    Raises:
        ValueError: fill or model out of range (`ssd.lifetime_years`).
    """
    # the whole run's, then cut: redo bytes are differences of consecutive LSNs
    rate = float(amplification.db_bytes(run).slice(warmup_s).mean() or 0.0)
    hours = float(run.scenario["ssd_hours_per_day"])
    years = float(drive.lifetime_years(daily_rate(rate, hours), fill=fill, model=model))
    return Lifetime(years, fill, hours, rate, drive, model)


def drive_device(drive: ssd.Drive, given: Mapping[str, object]) -> dict[str, str]:
    """{"device": the drive's performance profile}, unless `given` (the user's knobs) sets one.

    Picking a drive sets both its endurance and its performance profile (`ssd.Drive.device`);
    a `device` the user gave still wins, and a drive typed in by hand (no profile) sets none.
    """
    if "device" in given or not drive.device:
        return {}
    return {"device": drive.device}
