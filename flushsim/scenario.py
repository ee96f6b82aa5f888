"""Scenario: the knobs, a timeline of events, the length of the run and its seed.

A Scenario holds only the knobs a user set; every other knob takes its engine default
(`params.validate`). Knobs are one flat mapping rather than separate Server / Workload /
Storage dataclasses because the spec in `params.py` already groups them, and a flat
mapping is what `my.cnf`, `SET GLOBAL`, the CLI's `--set` and the explorer's sliders all speak.
Everything is validated when the Scenario is built, before any numba code runs.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from . import knob_text, params

ACTIONS = ("set", "stop_workload", "start_workload")
MAX_SECONDS = 24 * 3600


@dataclass(frozen=True)
class Event:
    """Something that happens at `at` seconds: a `SET GLOBAL`, or the workload stops/starts."""

    at: float
    action: str = "set"
    knobs: tuple[tuple[str, object], ...] = ()

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ValueError(f"timeline action {self.action!r} must be one of {', '.join(ACTIONS)}")
        if isinstance(self.knobs, Mapping):
            object.__setattr__(self, "knobs", tuple(self.knobs.items()))
        try:
            at = float(self.at)
        except (TypeError, ValueError):
            raise ValueError(f"timeline time {self.at!r} is not a number of seconds") from None
        if not 0 <= at <= MAX_SECONDS:
            raise ValueError(f"timeline time {at} must be between 0 and {MAX_SECONDS} seconds")
        object.__setattr__(self, "at", at)
        if self.action == "set" and not self.knobs:
            raise ValueError(f"timeline event at {at} s sets no knob")

    def describe(self, engine: str = params.MYSQL80) -> str:
        """One line, in words: 'at 30 s: SET GLOBAL innodb_io_capacity = 300'.

        A workload change reads as one ('the workload switches to 100 % writes'), not as a
        server statement; values as the server prints them (ON, 128M).
        """
        if self.action != "set":
            return f"at {self.at:g} s: {knob_text.event_text(self.action, '', None, engine)}"
        said = (knob_text.event_text("set", k, v, engine) for k, v in self.knobs)
        return f"at {self.at:g} s: {'; '.join(said)}"


def before_end(event: Event, seconds: int) -> Event:
    """`event`, if it falls within a run of `seconds` (one at or after the end never happens)."""
    if event.at >= seconds:
        raise ValueError(
            f"timeline event '{event.describe()}' is at or after the end of the run: its time "
            f"must be below seconds={seconds}"
        )
    return event


@dataclass(frozen=True)
class Scenario:
    """A complete, validated what-if: engine, knobs, timeline, duration (seconds) and seed."""

    knobs: Mapping[str, object] = field(default_factory=dict)
    engine: str = params.MYSQL80
    timeline: tuple[Event, ...] = ()
    seconds: int = 60
    seed: int = 1
    name: str = ""
    description: str = ""

    def __post_init__(self) -> None:
        params.check_engine(self.engine)
        if (
            isinstance(self.seconds, bool)
            or not isinstance(self.seconds, int)
            or not (1 <= self.seconds <= MAX_SECONDS)
        ):
            raise ValueError(
                f"seconds={self.seconds!r} must be a whole number between 1 and {MAX_SECONDS}"
            )
        if (
            isinstance(self.seed, bool)
            or not isinstance(self.seed, int)
            or not (0 <= self.seed < 2**63)
        ):
            raise ValueError(f"seed={self.seed!r} must be a whole number between 0 and 2**63-1")
        knobs = dict(self.knobs)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", params.FlushsimWarning)
            values = params.validate(self.engine, knobs)
        events = tuple(
            sorted(
                (e if isinstance(e, Event) else Event(**e) for e in self.timeline),
                key=lambda e: e.at,
            )
        )
        tl = _compile_timeline(self.engine, values, events, self.seconds)
        object.__setattr__(self, "knobs", MappingProxyType(knobs))
        object.__setattr__(self, "timeline", events)
        object.__setattr__(self, "_values", MappingProxyType(values))
        object.__setattr__(self, "_timeline_changes", tl)
        object.__setattr__(self, "_warnings", tuple(str(w.message) for w in caught))
        for w in caught:
            warnings.warn(w.message, params.FlushsimWarning, stacklevel=3)

    def __reduce__(self):
        # Rebuilt (and so re-validated) from the user's fields: a sweep ships Scenarios to
        # worker processes, and the read-only mapping views cannot be pickled as they are.
        fields = (
            dict(self.knobs),
            self.engine,
            self.timeline,
            self.seconds,
            self.seed,
            self.name,
            self.description,
        )
        return (_rebuild, fields)

    # ------------------------------------------------------------------ reading
    def __getitem__(self, name: str) -> object:
        """The resolved value of a knob (the user's, or the engine default)."""
        if name not in self._values:
            raise KeyError(params.unknown_message(name))
        return self._values[name]

    @property
    def values(self) -> Mapping[str, object]:
        """Every knob of the engine, resolved."""
        return self._values

    @property
    def adjustments(self) -> tuple[str, ...]:
        """Warnings of values the server would adjust (e.g. io_capacity above its max)."""
        return self._warnings

    @property
    def changes(self) -> tuple[tuple[float, str, str, object], ...]:
        """The timeline as (seconds, action, knob, value) after the server's runtime rules."""
        return self._timeline_changes

    # ------------------------------------------------------------------ changing
    def replace(self, **changes: object) -> Scenario:
        """A copy with knobs or fields changed: `sc.replace(innodb_io_capacity=300, seed=2)`."""
        fields = {}
        knobs = dict(self.knobs)
        for key, value in changes.items():
            if key in ("engine", "timeline", "seconds", "seed", "name", "description"):
                fields[key] = value
            else:
                params.get(key)  # unknown names fail here with a suggestion
                knobs[key] = value
        return Scenario(
            knobs=knobs,
            engine=fields.get("engine", self.engine),
            timeline=fields.get("timeline", self.timeline),
            seconds=fields.get("seconds", self.seconds),
            seed=fields.get("seed", self.seed),
            name=fields.get("name", self.name),
            description=fields.get("description", self.description),
        )

    def at(self, seconds: float, **knobs: object) -> Scenario:
        """A copy with `SET GLOBAL knobs` at `seconds`."""
        event = before_end(Event(seconds, "set", tuple(knobs.items())), self.seconds)
        return self.replace(timeline=(*self.timeline, event))

    def stop_workload(self, seconds: float) -> Scenario:
        """A copy in which the workload stops at `seconds`."""
        event = before_end(Event(seconds, "stop_workload"), self.seconds)
        return self.replace(timeline=(*self.timeline, event))

    def start_workload(self, seconds: float) -> Scenario:
        """A copy in which the workload (re)starts at `seconds`."""
        event = before_end(Event(seconds, "start_workload"), self.seconds)
        return self.replace(timeline=(*self.timeline, event))

    def describe(self) -> str:
        """Several lines: name, what differs from the defaults, the timeline."""
        lines = [
            self.name or "scenario",
            f"engine: {self.engine}, {self.seconds} s, seed {self.seed}",
        ]
        lines += [f"  {knob_text.knob_text(k, v, self.engine)}" for k, v in self.knobs.items()]
        lines += [f"  {e.describe(self.engine)}" for e in self.timeline]
        return "\n".join(lines)


def _rebuild(*fields: object) -> Scenario:
    # An unpickled copy: its adjustments were reported where the original was built.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", params.FlushsimWarning)
        return Scenario(*fields)


def _compile_timeline(
    engine: str, values: Mapping[str, object], events: Iterable[Event], seconds: int
) -> tuple[tuple[float, str, str, object], ...]:
    current = dict(values)
    out: list[tuple[float, str, str, object]] = []
    for ev in events:
        if ev.action != "set":
            out.append((ev.at, ev.action, "", 0))
            continue
        for name, value in ev.knobs:
            try:
                changed = params.runtime_set(engine, current, name, value)
            except ValueError as exc:
                raise ValueError(f"timeline at {ev.at:g} s: {exc}") from None
            current.update(changed)
            for k, v in changed.items():
                out.append((ev.at, "set", k, v))
    return tuple(out)


@dataclass(frozen=True)
class Translation:
    """One row of the engine translation: knobs of one engine family set as another's knob.

    `value` computes the target knob from the source scenario's resolved values, so the
    server's own folding (8.0.30's innodb_log_file_size x innodb_log_files_in_group as the
    capacity, `params.validate`) is already applied.
    """

    sources: tuple[str, ...]
    from_engines: tuple[str, ...]
    to_engines: tuple[str, ...]
    target: str
    value: Callable[[Mapping[str, object]], object]


# A new engine needs rows here only (and its family in these tuples).
_MYSQL = params.MYSQL
TRANSLATIONS = (
    # MySQL 8.0.30+ sizes the redo log as one capacity; MariaDB 10.5+ has one file of that size
    Translation(
        ("innodb_redo_log_capacity", "innodb_log_file_size", "innodb_log_files_in_group"),
        _MYSQL,
        params.MARIADB,
        "innodb_log_file_size",
        lambda v: v["innodb_redo_log_capacity"],
    ),
    Translation(
        ("innodb_log_file_size",),
        params.MARIADB,
        _MYSQL,
        "innodb_redo_log_capacity",
        lambda v: v["innodb_log_file_size"],
    ),
)


@dataclass(frozen=True)
class Translated:
    """A scenario moved to another engine: what was translated and what was dropped."""

    scenario: Scenario
    # ((source knob, its value), ...), target knob, its value
    translated: tuple[tuple[tuple[tuple[str, object], ...], str, object], ...]
    dropped: tuple[str, ...]  # knob names the engine lacks, its defaults apply


def translate(scenario: Scenario, engine: str) -> Translated:
    """`scenario` on `engine`, its knobs translated (TRANSLATIONS) or dropped to the defaults.

    Timeline events that set only dropped knobs are dropped too.

    Raises:
        ValueError: a translated value the engine refuses (naming the knob and its range).
    """
    params.check_engine(engine)
    have = {p.name for p in params.for_engine(engine)}
    knobs = {k: v for k, v in scenario.knobs.items() if k in have}
    consumed: set[str] = set()
    translated: list[tuple[tuple[tuple[str, object], ...], str, object]] = []
    for row in TRANSLATIONS:
        given = [k for k in row.sources if k in scenario.knobs]
        if scenario.engine in row.from_engines and engine in row.to_engines and given:
            value = row.value(scenario.values)
            for k in given:
                knobs.pop(k, None)
            consumed.update(given)
            knobs[row.target] = value
            translated.append((tuple((k, scenario.knobs[k]) for k in given), row.target, value))
    dropped = tuple(k for k in scenario.knobs if k not in have and k not in consumed)
    events = []
    for e in scenario.timeline:
        kept = tuple((k, v) for k, v in e.knobs if k in have)
        dropped += tuple(k for k, _ in e.knobs if k not in have and k not in dropped)
        if e.action != "set" or kept:
            events.append(dataclasses.replace(e, knobs=kept))
    with warnings.catch_warnings():
        # the server's adjustments are kept in sc.adjustments (the explorer shows them)
        warnings.simplefilter("ignore", params.FlushsimWarning)
        try:
            sc = Scenario(
                knobs=knobs,
                engine=engine,
                timeline=tuple(events),
                seconds=scenario.seconds,
                seed=scenario.seed,
                name=scenario.name,
                description=scenario.description,
            )
        except ValueError as exc:
            raise ValueError(f"{scenario.name or 'the scenario'} on {engine}: {exc}") from None
    return Translated(sc, tuple(translated), dropped)


def for_engine(scenario: Scenario, engine: str) -> tuple[Scenario, tuple[str, ...]]:
    """`scenario` on another engine, and the names of the knobs dropped because it lacks them.

    See `translate`: the redo log size is translated, the engine's own defaults apply to
    everything the scenario does not set (innodb_lru_scan_depth 1536 on MariaDB, ...).
    """
    moved = translate(scenario, engine)
    return moved.scenario, moved.dropped
