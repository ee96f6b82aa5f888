"""Named scenarios: the seeds' experiments and the explorer's default (data/presets/*.toml).

`resolve` takes a preset's name or the path of a scenario file of one's own. A file holds
`name`, `description`, `engine`, `seconds`, `seed`, a `[knobs]` table and `[[timeline]]`
entries with `at` (seconds) and either `set = {knob = value}` or
`action = "stop_workload" | "start_workload"`. Values are validated like any user input; an
error names the file, and the line and knob it comes from.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path

import polars as pl

from . import params
from .scenario import Event, Scenario, before_end

_FIELDS = ("engine", "seconds", "seed")

PRESET_DIR = Path(__file__).resolve().parent.parent / "data" / "presets"


@cache
def _files() -> dict[str, Path]:
    if not PRESET_DIR.is_dir():
        raise FileNotFoundError(
            f"preset folder {PRESET_DIR} is missing; install flushsim from "
            "a checkout with `pip install -e .`"
        )
    return {p.stem: p for p in sorted(PRESET_DIR.glob("*.toml"))}


def names() -> list[str]:
    """Names of all presets."""
    return list(_files())


def load(path: str | Path) -> Scenario:
    """Build a Scenario from a preset TOML file.

    Raises:
        ValueError: one line naming the file, and the line and knob when a value is refused.
    """
    path = Path(path)
    text = read_text(path)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: {exc}") from None
    try:
        return _scenario(doc, path.stem)
    except ValueError as exc:
        raise ValueError(f"{path}{_where(text, str(exc))}: {exc}") from None


def read_text(path: Path) -> str:
    """A user's text file, or a one-line ValueError naming it and why it cannot be read."""
    try:
        return path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise ValueError(f"{path}: cannot be read ({why})") from None


def resolve(preset: str) -> Scenario:
    """A preset by name, or a scenario file in the same format (a path ending in .toml)."""
    if preset.lower().endswith(".toml") or "/" in preset:
        return load(preset)
    return get(preset)


def _scenario(doc: dict, stem: str) -> Scenario:
    events = []
    for item in doc.get("timeline", []):
        if not isinstance(item, dict):
            raise ValueError("each [[timeline]] entry is a table with `at` and `set` or `action`")
        if "set" in item:
            if not isinstance(item["set"], dict):
                raise ValueError(f"timeline at {item.get('at')}: set must be {{knob = value}}")
            events.append(Event(item.get("at"), "set", tuple(item["set"].items())))
        else:
            events.append(Event(item.get("at"), item.get("action", "")))
    scenario = Scenario(
        knobs=doc.get("knobs", {}),
        engine=doc.get("engine", "mysql-8.0"),
        timeline=tuple(events),
        seconds=doc.get("seconds", 60),
        seed=doc.get("seed", 1),
        name=str(doc.get("name", stem)),
        description=str(doc.get("description", "")),
    )
    for event in events:
        before_end(event, scenario.seconds)
    return scenario


def _where(text: str, message: str) -> str:
    """`, line N (knob)` for the first knob the message names that the file sets, else ""."""
    lines = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    first = 0
    if (t := re.search(r"\bat ([0-9.]+) s\b", message)) is not None:
        # a timeline error: look from that event's `at` line on
        at = re.compile(rf"at\s*=\s*{re.escape(t.group(1))}$")
        first = next((n for n, line in enumerate(lines) if at.match(line)), 0)
    for m in re.finditer(r"[a-z][a-z0-9_]*", message):
        known = m.group(0) in params.BY_NAME or m.group(0) in _FIELDS
        if not known and f"'{m.group(0)}'" not in message:  # an unknown knob is quoted
            continue
        key = re.compile(rf"(^|[{{,]\s*){re.escape(m.group(0))}\s*=")
        for n in range(first, len(lines)):
            if key.search(lines[n]):
                return f", line {n + 1} ({m.group(0)})"
    return f", line {first + 1}" if first else ""


def get(name: str) -> Scenario:
    """The preset called `name`."""
    files = _files()
    if name not in files:
        import difflib

        close = difflib.get_close_matches(name, list(files), n=2)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise ValueError(f"unknown preset {name!r}{hint} (see `python -m flushsim presets`)")
    return load(files[name])


def table() -> pl.DataFrame:
    """One row per preset: name, engine, seconds and description."""
    rows = [get(n) for n in names()]
    return pl.DataFrame(
        {
            "name": [s.name for s in rows],
            "engine": [s.engine for s in rows],
            "seconds": [s.seconds for s in rows],
            "description": [s.description for s in rows],
        }
    )
