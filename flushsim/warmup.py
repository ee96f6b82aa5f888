"""Warm starts: simulate a warm-up, then cut it, so that a series starts at a warm server.

Every run starts like a freshly started server, its pool empty. `warm_up(scenario, warmup)`
simulates the warm-up and keeps the kernel's state at its end (a `Warm`); `simulate_warm` runs
the scenario on from there, or from a `Warm` it is given (`warm=`), the knobs that differ set
with SET GLOBAL at second 0 of the run: what a DBA does on a warm server. `warmup` is whole
seconds, or "auto": simulated a second at a time until dirty pages, free pages and
checkpoint age settle (`settle_time`), at most `AUTO_CAP_S`. `warm(scenario, warmup)` gives the
scenario lengthened by the warm-up and the seconds to cut, for callers that run it whole. The
warm run is the same run, same seed: only its first seconds are left out (docs/model.md,
"Warm starts").
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import replace as dc_replace

import numpy as np
import polars as pl

from . import params, schema
from .resume import Paused, check_resume, fork, go_on, resume, start
from .run import Run, simulate
from .scenario import MAX_SECONDS, Event, Scenario

AUTO = "auto"
AUTO_CAP_S = 300  # an auto warm-up that has not settled by then stops there
WINDOW_S = 10  # settled: two consecutive windows of this many seconds agree
PAGES_TOL = 0.01  # ... their mean dirty and free pages within 1 % of the pool's pages
AGE_TOL = 0.02  # ... and their mean checkpoint age within 2 % of the sync flushing point
GAUGES = ("buffer_pool_pages_dirty", "buffer_pool_pages_free", "log_lsn_checkpoint_age")
LIMITS = ("buffer_pool_pages_total", "log_max_modified_age_sync")  # what the tolerances scale


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
    return _first_settled(series.select(LIMITS + GAUGES).to_numpy().astype(np.float64))


def _first_settled(columns: np.ndarray, first: int = 2 * WINDOW_S) -> int | None:
    """settle_time from second `first` on, of the LIMITS and GAUGES columns in that order."""
    pages = float(columns[:, 0].max() or 1)
    sync = float(columns[:, 1].max() or 1)
    tol = np.array([PAGES_TOL * pages, PAGES_TOL * pages, AGE_TOL * sync])
    g = columns[:, len(LIMITS) :]
    csum = np.vstack([np.zeros((1, g.shape[1])), np.cumsum(g, axis=0)])
    for t in range(max(first, 2 * WINDOW_S), g.shape[0] + 1):
        last = (csum[t] - csum[t - WINDOW_S]) / WINDOW_S
        before = (csum[t - WINDOW_S] - csum[t - 2 * WINDOW_S]) / WINDOW_S
        if np.all(np.abs(last - before) <= tol):
            return t
    return None


@dataclass(frozen=True)
class Warm:
    """A server at the end of its warm-up, to run scenarios from: `simulate_warm(sc, warm=W)`."""

    paused: Paused  # the kernel's state at the end of the warm-up
    note: str  # one line: how long, and whether it settled
    settled: bool = True  # an auto warm-up's gauges settled before the cap

    @property
    def seconds(self) -> int:
        """How long the warm-up ran."""
        return self.paused.second

    @property
    def scenario(self) -> Scenario:
        """The scenario warmed up (its knobs during the warm-up; its timeline not run)."""
        return self.paused.scenario


def warm_up(scenario: Scenario, warmup: int | str, *, kernel: str = "numba") -> Warm:
    """The warm-up of `scenario` simulated, without its timeline; room for the run after it."""
    if warmup == AUTO:
        _fits(scenario, AUTO_CAP_S)
        paused, settled = _settle(start(scenario, AUTO_CAP_S + scenario.seconds, kernel=kernel))
        return Warm(paused, _auto_note(paused.second, settled), settled)
    seconds = int(warmup)
    _fits(scenario, seconds)
    paused = go_on(start(scenario, seconds + scenario.seconds, kernel=kernel), seconds)
    return Warm(paused, f"warm-up {seconds} s" if seconds else COLD_NOTE)


COLD_NOTE = "cold start (no warm-up)"


def _settle(paused: Paused) -> tuple[Paused, bool]:
    """On until the gauges settle (or AUTO_CAP_S), stopped there: `paused` itself goes on.

    The two windows first, then a second at a time, each checked: the first settled second is
    that of one run of AUTO_CAP_S (settle_time looks back only), and nothing is simulated twice.
    """
    paused = go_on(paused, 2 * WINDOW_S - 1)
    slots = [schema.COL[name] for name in LIMITS + GAUGES]
    while paused.second < AUTO_CAP_S:
        paused = go_on(paused, paused.second + 1)
        # these columns as series_frame gives them (whole numbers), without the whole table
        columns = np.rint(paused.arrays()[0][:, slots])
        if _first_settled(columns, paused.second) is not None:
            return paused, True
    return paused, False


def _auto_note(seconds: int, settled: bool) -> str:
    if settled:
        return (
            f"warm-up auto: {seconds} s, until dirty pages, free pages and checkpoint age settled"
        )
    return f"warm-up auto: not settled after {seconds} s (the cap); cut there"


def _fits(scenario: Scenario, seconds: int) -> None:
    if scenario.seconds + seconds > MAX_SECONDS:
        raise ValueError(
            f"--warmup {seconds} s + seconds={scenario.seconds} is more than {MAX_SECONDS} s"
        )


def auto_warmup(scenario: Scenario) -> tuple[int, bool]:
    """Seconds of warm-up for `scenario` ("auto"), and whether its gauges settled by then."""
    w = warm_up(scenario, AUTO)
    return w.seconds, w.settled


def warm(scenario: Scenario, warmup: int | str) -> tuple[Scenario, int, str]:
    """The scenario lengthened by its warm-up, the seconds to cut, and a one-line note."""
    if warmup == AUTO:
        seconds, settled = auto_warmup(scenario)
        note = _auto_note(seconds, settled)
    else:
        seconds = int(warmup)
        note = f"warm-up {seconds} s" if seconds else COLD_NOTE
    if not seconds:
        return scenario, 0, note
    _fits(scenario, seconds)
    events = tuple(dc_replace(e, at=e.at + seconds) for e in scenario.timeline)
    longer = scenario.replace(seconds=scenario.seconds + seconds, timeline=events)
    return longer, seconds, note


def cut(run: Run, seconds: int, scenario: Scenario) -> Run:
    """`run` without its first `seconds`, time starting again at 1 (the original scenario)."""
    if not seconds:
        return run
    series = run.series.slice(seconds).with_columns(pl.col("time_s") - seconds)
    start_lsn = int(run.series["log_lsn_current"][seconds - 1])
    return Run(scenario, series, run.latency_hist[seconds:], run.kernel, start_lsn)


def simulate_warm(
    scenario: Scenario,
    warmup: int | str = 0,
    *,
    kernel: str = "numba",
    warm: Warm | None = None,
) -> Run:
    """simulate(), starting at a warm server: the warm-up is simulated and cut.

    With `warm` (from `warm_up`), the run goes on from that warm-up instead: the knobs in which
    `scenario` differs from the one warmed up are set with SET GLOBAL at second 0 of the run,
    so they must all be dynamic (a static one needs its own warm-up).
    """
    if warm is None:
        if not warmup:
            return simulate(scenario, kernel=kernel)
        warm = warm_up(scenario, warmup, kernel=kernel)
    end, changes = _resumed(warm, scenario)
    return resume(warm.paused, end, changes).run(scenario, warm.seconds)


def simulate_warm_steps(
    scenario: Scenario, warm: Warm, first: int, *, paused: Paused | None = None
) -> Iterator[Run]:
    """simulate_warm(scenario, warm=warm) in two steps of one simulation: a head, then the whole.

    The head is the Run of the first `first` seconds (that of `scenario.replace(seconds=first)`).
    The first seconds are not simulated again: the state goes on from there. `paused` is a copy
    of `warm.paused` (`fork`) made ahead, to run on; without it, one is made here.
    """
    end, changes = _resumed(warm, scenario)
    paused = fork(warm.paused) if paused is None else paused
    cut = min(warm.seconds + first, end)
    head = go_on(paused, cut, [c for c in changes if c[0] < cut])
    yield head.run(scenario.replace(seconds=cut - warm.seconds), warm.seconds)
    whole = go_on(head, end, [c for c in changes if c[0] >= cut])
    yield whole.run(scenario, warm.seconds)


def lengthened_run(warmed: Warm, scenario: Scenario) -> Run:
    """`simulate` of `scenario` lengthened by `warmed`'s warm-up (`warm`'s), the warm-up kept.

    The same Run, bit for bit, with the warm-up simulated once: `warmed` goes on (no copy: use
    it no more), from a `warm_up` of `scenario` itself.
    """
    longer, _, _ = warm(scenario, warmed.seconds)
    end, changes = _resumed(warmed, scenario)
    return go_on(warmed.paused, end, changes).run(longer)


def reaches(warm: Warm, scenario: Scenario) -> bool:
    """Whether `simulate_warm(scenario, warm=warm)` can run, or `scenario` needs its own warm-up."""
    try:
        check_resume(warm.paused, *_resumed(warm, scenario))
    except ValueError:
        return False
    return True


def _resumed(warm: Warm, scenario: Scenario) -> tuple[int, tuple]:
    """The second the run of `scenario` ends at, and its changes (absolute seconds)."""
    at_start = warm_changes(warm, scenario)
    with warnings.catch_warnings():  # (the adjustments were reported when `scenario` was made)
        warnings.simplefilter("ignore", params.FlushsimWarning)
        run = warm.scenario.replace(
            seconds=scenario.seconds, timeline=(*at_start, *scenario.timeline)
        )
    # (an event at or after the end never happens, as in simulate)
    shifted = tuple((t + warm.seconds, a, k, v) for t, a, k, v in run.changes if t < run.seconds)
    return warm.seconds + scenario.seconds, shifted


def warm_changes(warm: Warm, scenario: Scenario) -> tuple[Event, ...]:
    """The SET GLOBAL at second 0 that turns the warmed-up server into `scenario`'s (or none).

    A ValueError names a difference that SET GLOBAL cannot make (a static knob, the engine...).
    """
    base = warm.scenario
    for field in ("engine", "seed"):
        if getattr(scenario, field) != getattr(base, field):
            raise ValueError(
                f"{field} {getattr(scenario, field)!r} is not the warm-up's "
                f"{getattr(base, field)!r}: it needs its own warm-up"
            )
    target, current = dict(scenario.values), dict(base.values)
    diff = [k for k, v in target.items() if current.get(k) != v]
    sets: list[tuple[str, object]] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", params.FlushsimWarning)
        # twice: a partner the server adjusts (io_capacity and its max) gets its own value back
        for _ in range(2):
            for name in diff:
                if current[name] != target[name]:
                    try:
                        changed = params.runtime_set(scenario.engine, current, name, target[name])
                    except ValueError as exc:
                        raise ValueError(f"{exc}: it needs its own warm-up") from None
                    current.update(changed)
                    sets.append((name, target[name]))
    return (Event(0, "set", tuple(sets)),) if sets else ()
