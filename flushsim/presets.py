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
# every top-level key and [table] of a scenario file, and every key of a [[timeline]] entry
_KEYS = ("name", "description", "engine", "seconds", "seed", "knobs", "timeline")
_EVENT_KEYS = ("at", "set", "action")
# an option group header of a my.cnf ([mysqld], [server], [mariadb-10.11], [client], ...)
_MYCNF_GROUP = re.compile(r"^[ \t]*\[(mysql|mariadb|server|client|galera)[a-z0-9_.\-]*\]", re.M)

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
    if (group := _MYCNF_GROUP.search(text)) is not None:
        line = text.count("\n", 0, group.start()) + 1
        raise ValueError(
            f"{path}, line {line}: {group.group(0).strip()} is a my.cnf option group: this "
            "command takes a preset or a scenario TOML (data/presets' format); give a my.cnf "
            "to `python -m flushsim whatif CONFIG --change KNOB=VALUE --html OUT`"
        )
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(
            f"{path}: {exc}: not a scenario TOML (a my.cnf or a saved SHOW GLOBAL VARIABLES "
            "goes to `python -m flushsim whatif`)"
        ) from None
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
    if preset.lower().endswith((".toml", ".cnf", ".ini")) or "/" in preset:
        return load(preset)
    return get(preset)


def _unknown_key(key: str, value: object, valid: tuple[str, ...], where: str) -> ValueError:
    """The one-line error for a key a scenario file has no use for, with a did-you-mean."""
    import difflib

    if key in params.BY_NAME:
        home = "under [knobs]" if where == "at the top" else "in `set = {knob = value}`"
        return ValueError(f"'{key}' is a knob, set {where} of the file: put it {home}")
    what = f"table [{key}]" if isinstance(value, dict) else f"key '{key}'"
    close = difflib.get_close_matches(key, valid, n=2)
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    return ValueError(f"unknown {what} {where} of the file{hint} (valid: {', '.join(valid)})")


def _check_keys(doc: dict) -> None:
    """Refuse a key or table the format does not have (a typo would otherwise be ignored)."""
    for key, value in doc.items():
        if key not in _KEYS:
            raise _unknown_key(key, value, _KEYS, "at the top")
    for item in doc.get("timeline", []):
        for key, value in item.items() if isinstance(item, dict) else ():
            if key not in _EVENT_KEYS:
                at = f" at {item['at']} s" if "at" in item else ""  # _where looks from there
                raise _unknown_key(key, value, _EVENT_KEYS, f"in the [[timeline]] entry{at}")


def _scenario(doc: dict, stem: str) -> Scenario:
    _check_keys(doc)
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
        quoted = f"'{m.group(0)}'" in message or f"[{m.group(0)}]" in message
        if not known and not quoted:  # an unknown knob or key is quoted, a table bracketed
            continue
        name = re.escape(m.group(0))
        # `name = ...`, `{..., name = ...}`, or a [name] / [[name]] table header
        key = re.compile(rf"(^|[{{,]\s*){name}\s*=|^\[\[?\s*{name}\s*\]")
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
