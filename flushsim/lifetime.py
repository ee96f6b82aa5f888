"""A run's SSD lifetime: the one number, and its sentence, that every view of a run shows.

The explorer's summary and lifetime figure, `report`, sweeps' `ssd_lifetime_years` and
`whatif`'s HTML and JSON all take it from `run_lifetime`: the run's mean write rate to the drive
(`amplification.db_bytes`: data pages, doublewrite, redo) after its warm-up, written
`ssd_hours_per_day` hours a day, on a drive `fill` full, under the greedy-FTL model
(`ssd.DEFAULT_MODEL`). The sentence is `ssd.lifetime_headline`: "about 18 days at 50 % full at
this load, 24 hours a day". docs/model.md, SSD wear.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from . import amplification, ssd
from .run import Run

__all__ = ["Lifetime", "drive_device", "run_lifetime"]


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
        return ssd.lifetime_headline(self.years, self.fill, self.hours_per_day)


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
    years = float(drive.lifetime_years(rate, fill=fill, model=model, hours_per_day=hours))
    return Lifetime(years, fill, hours, rate, drive, model)


def drive_device(drive: ssd.Drive, given: Mapping[str, object]) -> dict[str, str]:
    """{"device": the drive's performance profile}, unless `given` (the user's knobs) sets one.

    Picking a drive sets both its endurance and its performance profile (`ssd.Drive.device`);
    a `device` the user gave still wins, and a drive typed in by hand (no profile) sets none.
    """
    if "device" in given or not drive.device:
        return {}
    return {"device": drive.device}
