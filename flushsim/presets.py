"""Named scenarios: the seeds' experiments and the explorer's default (data/presets/*.toml).

A preset file holds `name`, `description`, `engine`, `seconds`, `seed`, a `[knobs]` table and
`[[timeline]]` entries with `at` (seconds) and either `set = {knob = value}` or
`action = "stop_workload" | "start_workload"`. Values are validated like any user input.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

import polars as pl

from .scenario import Event, Scenario, before_end

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
    """Build a Scenario from a preset TOML file."""
    path = Path(path)
    try:
        doc = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: {exc}") from None
    events = []
    for item in doc.get("timeline", []):
        if "set" in item:
            events.append(Event(item["at"], "set", tuple(item["set"].items())))
        else:
            events.append(Event(item["at"], item.get("action", "")))
    seconds = int(doc.get("seconds", 60))
    for event in events:
        try:
            before_end(event, seconds)
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None
    return Scenario(
        knobs=doc.get("knobs", {}),
        engine=doc.get("engine", "mysql-8.0"),
        timeline=tuple(events),
        seconds=seconds,
        seed=int(doc.get("seed", 1)),
        name=doc.get("name", path.stem),
        description=doc.get("description", ""),
    )


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
