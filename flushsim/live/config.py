r"""Scenarios from a my.cnf, `SHOW GLOBAL VARIABLES` or `SHOW ENGINE INNODB STATUS`.

`read_mycnf`, `read_variables` and `read_innodb_status` map what a DBA can paste to flushsim's
knobs with `params`' own spec and return the Scenario inside a `ConfigReport` that also lists
what flushsim does not model; `scenario_from_mycnf`, `scenario_from_variables` and
`scenario_from_innodb_status` return the Scenario alone. The text itself is read by one module
per format: `mycnf`, `variables`, `innodb_status` (the engine from `versions`); their public
names are re-exported here. Malformed input raises `ConfigParseError` (a ValueError) naming the
line, and nothing else; nothing the user typed is ever evaluated.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from .. import params
from ..scenario import Scenario
from .innodb_status import BufferPoolInfo, InnodbStatus, parse_innodb_status, status_lines
from .mycnf import DEFAULT_SECTIONS, ConfigFile, Setting, parse_mycnf, parse_size, server_sections
from .source_text import WS, ConfigParseError, split_lines
from .variables import parse_global_status, parse_global_variables, parse_name_value
from .versions import (
    PERCONA_DEFAULTS,
    engine_and_note,
    engine_for_version,
    is_percona,
    mariadb106_release,
)

__all__ = [
    "BufferPoolInfo",
    "ConfigFile",
    "ConfigParseError",
    "ConfigReport",
    "DEFAULT_SECTIONS",
    "InnodbStatus",
    "Setting",
    "engine_for_version",
    "parse_global_status",
    "parse_global_variables",
    "parse_innodb_status",
    "parse_mycnf",
    "parse_size",
    "read_innodb_status",
    "read_mycnf",
    "read_variables",
    "scenario_from_innodb_status",
    "scenario_from_mycnf",
    "scenario_from_variables",
]


# ------------------------------------------------------------------------------ text -> knob value
_INTEGRAL = re.compile(r"[+-]?([0-9]{1,20})(?:\.0*)?")
_FLOAT = re.compile(r"[+-]?(?:[0-9]{1,30}(?:\.[0-9]{0,30})?|\.[0-9]{1,30})(?:[eE][+-]?[0-9]{1,3})?")


def _convert(p: params.Param, text: str) -> object:
    """A server value's text as the knob's Python value (range is checked by params)."""
    s = text.strip(WS)
    unit = f" {p.unit}" if p.unit else ""
    if p.kind == "bool":
        return params.parse_value(p.name, s)
    if p.kind == "enum":
        if p.name == "innodb_page_size":
            try:
                s = str(parse_size(s))  # the server reads innodb_page_size=16k as 16384
            except ConfigParseError:
                pass
        for choice in p.choices:
            if s.lower() == choice.lower():  # the server matches enum names case-insensitively
                return choice
        raise ValueError(f"{p.name}={text!r} is not valid; it must be {p.range_text()}")
    if p.kind == "int":
        negative = s.startswith("-") and p.min < 0  # no knob yet: sizes are unsigned
        try:
            value = parse_size(s[1:] if negative else s)
        except ConfigParseError:
            m = _INTEGRAL.fullmatch(s)  # MariaDB prints some of these as doubles: "10.000000"
            if m is None:
                return params.parse_value(p.name, s)  # raises: the size grammar's own reason
            value = int(m.group(1))
        return -value if negative else value
    if not _FLOAT.fullmatch(s) or not math.isfinite(float(s)):
        raise ValueError(f"{p.name}={text!r} is not a number; it must be {p.range_text()}{unit}")
    return float(s)


_SCENARIO_FIELDS = ("seconds", "seed", "name", "description", "timeline")


@dataclass(frozen=True)
class ConfigReport:
    """What a reader made of the server's text: the Scenario and everything it left out.

    Attributes:
        scenario: the validated Scenario (its description repeats this report).
        source: "my.cnf", "SHOW GLOBAL VARIABLES" or "SHOW ENGINE INNODB STATUS".
        engine: the engine used.
        engine_note: how the engine was chosen (given, from `version`, or assumed).
        modelled: server variable -> value text, for the knobs flushsim set from the text.
        not_modelled: server variable -> value text, for everything flushsim does not model.
        lines: server variable -> 1-based line it was read from.
        files: server variable -> the file it was read from, its path as the DBA wrote it (the
            my.cnf as given, an included one as its `!include` / `!includedir` line names it,
            from the including file's folder); empty for a text not read from a file.
        notes: anything else worth knowing (includes not followed, assumptions).
        config: the parsed my.cnf (my.cnf only).
        status: the parsed INNODB STATUS, with the pool's starting state (INNODB STATUS only).
    """

    scenario: Scenario
    source: str
    engine: str
    engine_note: str
    modelled: dict[str, str] = field(default_factory=dict, hash=False)
    not_modelled: dict[str, str] = field(default_factory=dict, hash=False)
    lines: dict[str, int] = field(default_factory=dict, hash=False)
    files: dict[str, str] = field(default_factory=dict, hash=False)
    notes: tuple[str, ...] = ()
    config: ConfigFile | None = None
    status: InnodbStatus | None = None


def _split_overrides(overrides: Mapping[str, object]) -> tuple[dict, dict]:
    fields = {k: v for k, v in overrides.items() if k in _SCENARIO_FIELDS}
    knobs = {k: v for k, v in overrides.items() if k not in _SCENARIO_FIELDS}
    return fields, knobs


def _blame(
    message: str, lines: Mapping[str, int], texts: Mapping[str, str]
) -> tuple[int | None, str]:
    """The line of the knob a cross-knob error names first (params names the knob it blames)."""
    best: tuple[int, str] | None = None
    for name in lines:
        m = re.search(rf"\b{re.escape(name)}\b", message)
        if m is not None and (best is None or m.start() < best[0]):
            best = (m.start(), name)
    if best is None:
        return None, ""
    return lines[best[1]], texts.get(best[1], "")


def _build(
    *,
    source: str,
    engine: str,
    engine_note: str,
    values: Mapping[str, str],
    lines: Mapping[str, int],
    texts: Mapping[str, str],
    overrides: Mapping[str, object],
    notes: list[str],
    extra_knobs: Mapping[str, object] | None = None,
    config: ConfigFile | None = None,
    status: InnodbStatus | None = None,
) -> ConfigReport:
    """Map server variables to knobs, validate them one by one, then build the Scenario."""
    fields, knob_overrides = _split_overrides(overrides)
    knobs: dict[str, object] = {}
    modelled: dict[str, str] = {}
    not_modelled: dict[str, str] = {}
    for name, text in values.items():
        key = name.lower()
        p = params.BY_NAME.get(key)
        if p is None or p.group != "server":
            not_modelled[name] = text
            continue
        if key == "version":
            # the server's version string picks the engine; within mariadb-10.6 the release
            release, note = mariadb106_release(text) if engine == params.MARIADB106 else (None, "")
            if release is None:
                not_modelled[name] = text
            else:
                knobs[key] = release
                modelled[name] = text
            if note:
                notes.append(note)
            continue
        if engine not in p.engines:
            not_modelled[name] = text
            notes.append(params.missing_message(key, engine) + ": not modelled here.")
            continue
        mine = p.for_engine(engine)
        line, raw = lines.get(name), texts.get(name, "")
        try:
            value = _convert(mine, text)
            if key == "innodb_lru_flush_size" and value == 0:
                # MariaDB 10.11.10+ shows 0 for this deprecated, unused variable
                not_modelled[name] = text
                notes.append("innodb_lru_flush_size=0 (deprecated, unused): flushsim keeps 32.")
                continue
            value = params.check_value(mine, value)
        except ValueError as exc:
            raise ConfigParseError(str(exc), line, raw) from None
        if mine.ignored:
            # the engine accepts the name but not the mechanism (MariaDB's one pool, one cleaner)
            not_modelled[name] = text
            notes.append(mine.ignored + ".")
            continue
        knobs[key] = value
        modelled[name] = text
    key_lines = {k.lower(): v for k, v in lines.items()}
    key_texts = {k.lower(): v for k, v in texts.items()}
    for name, value in (extra_knobs or {}).items():
        knobs.setdefault(name, value)
    knobs.update(knob_overrides)
    description = _describe(source, engine, engine_note, modelled, not_modelled, notes)
    try:
        scenario = Scenario(
            knobs=knobs,
            engine=engine,
            **{"name": source, "description": description, **fields},
        )
    except ValueError as exc:
        line, raw = _blame(str(exc), {k: v for k, v in key_lines.items() if k in knobs}, key_texts)
        raise ConfigParseError(str(exc), line, raw) from None
    return ConfigReport(
        scenario=scenario,
        source=source,
        engine=engine,
        engine_note=engine_note,
        modelled=modelled,
        not_modelled=not_modelled,
        lines=dict(lines),
        notes=tuple(notes),
        config=config,
        status=status,
    )


def _describe(
    source: str,
    engine: str,
    engine_note: str,
    modelled: Mapping[str, str],
    not_modelled: Mapping[str, str],
    notes: list[str],
) -> str:
    out = [
        f"From {source}: {len(modelled)} of {len(modelled) + len(not_modelled)} settings set "
        f"flushsim knobs. Engine {engine}: {engine_note}."
    ]
    if modelled:
        out.append("Modelled: " + ", ".join(f"{k}={v}" for k, v in modelled.items()) + ".")
    if not_modelled:
        out.append(
            "Not modelled (no effect in flushsim): "
            + ", ".join(f"{k}={v}" if len(v) <= 40 else k for k, v in not_modelled.items())
            + "."
        )
    out += notes
    return "\n".join(out)


def read_mycnf(
    text: str | bytes, engine: str | None = None, *, version: str | None = None, **overrides: object
) -> ConfigReport:
    """Build a Scenario from a my.cnf and report what flushsim does not model.

    Args:
        text: the option file.
        engine: one of params.ENGINES ("mysql-8.0", "mysql-8.4", ...); if None, taken from
            `version`, else assumed mysql-8.0 (stated in the description).
        version: the server's version ("8.0.36", "10.11.9-MariaDB"): picks the engine and the
            version groups ([mysqld-8.0], [mariadb-10.11]) that apply.
        **overrides: knobs (`threads=32`) and Scenario fields (`seconds`, `seed`, `name`) that
            win over the file.

    Raises:
        ConfigParseError: malformed file, or a value flushsim refuses (naming the line).
    """
    notes: list[str] = []
    if engine is None and version is not None:
        engine, engine_note = engine_and_note(version)
        if engine is None:
            raise ConfigParseError(engine_note)
    elif engine is None:
        engine, engine_note = params.MYSQL80, "not given, assumed mysql-8.0"
    else:
        params.check_engine(engine)
        engine_note = "given"
    # each server reads its own groups only: a [mariadb] value never reaches MySQL
    sections = server_sections(engine, version)
    cfg = parse_mycnf(text, sections=sections)
    maria = [g for g in cfg.groups if g.startswith(("mariadb", "galera"))]
    maria = maria if engine in params.MYSQL else []
    if maria:
        notes.append(
            f"The file has MariaDB groups ({', '.join(maria)}), not read by {engine}: give "
            "the engine (--engine mariadb-10.6 or --engine mariadb-10.11; in Python "
            "engine='mariadb-10.11' or version=...) if it is a MariaDB server's."
        )
    for inc in cfg.includes:
        notes.append(f"Not followed: {inc} (read those files too and pass them separately).")
    skipped = [g for g in cfg.groups if g not in sections and g not in maria]
    if skipped:
        notes.append(f"Groups not read by {engine}: " + ", ".join(f"[{g}]" for g in skipped) + ".")
    for name, s in cfg.sources.items():
        p = params.BY_NAME.get(name)
        if p is not None and p.group == "server" and engine not in p.engines and not s.loose:
            notes.append(
                f"Line {s.line}: {name} is unknown to {engine}, which refuses to start on it "
                f"unless it is written loose-{name.replace('_', '-')}."
            )
    if cfg.settings.get("innodb_dedicated_server", "").upper() in ("ON", "1", "TRUE"):
        notes.append(
            "innodb_dedicated_server=ON: the server sizes the buffer pool and redo log from the "
            "machine's memory; flushsim uses the values in the file or its defaults."
        )
    extra: dict[str, object] = {}
    if version is not None and engine == params.MARIADB106:
        release, note = mariadb106_release(version)
        if release:
            extra["version"] = release
        if note:
            notes.append(note)
    percona = version is not None and engine in params.MYSQL and is_percona(version)
    if percona:
        extra.update(PERCONA_DEFAULTS)
    elif engine in params.MYSQL and "innodb_cleaner_lsn_age_factor" in cfg.sources:
        s = cfg.sources["innodb_cleaner_lsn_age_factor"]
        if not s.loose:
            notes.append(
                f"Line {s.line}: innodb_cleaner_lsn_age_factor is Percona Server's; Oracle MySQL "
                "refuses to start on it unless it is written loose-innodb-cleaner-lsn-age-factor."
            )
    return _build(
        source="my.cnf",
        engine=engine,
        engine_note=engine_note,
        extra_knobs=extra or None,
        values=cfg.settings,
        lines={k: s.line for k, s in cfg.sources.items()},
        texts={k: s.text for k, s in cfg.sources.items()},
        overrides=overrides,
        notes=notes,
        config=cfg,
    )


def scenario_from_mycnf(
    text: str | bytes, engine: str | None = None, *, version: str | None = None, **overrides: object
) -> Scenario:
    """A Scenario from a my.cnf; see `read_mycnf` (its description lists what is not modelled).

    Raises:
        ConfigParseError: malformed file, or a value flushsim refuses (naming the line).
    """
    return read_mycnf(text, engine, version=version, **overrides).scenario


def read_variables(
    text: str | bytes, engine: str | None = None, **overrides: object
) -> ConfigReport:
    """Build a Scenario from pasted `SHOW GLOBAL VARIABLES` output and report the rest.

    Args:
        text: the output, in any form `parse_global_variables` accepts.
        engine: if None, detected from the `version` and `version_comment` variables, else
            assumed mysql-8.0 (stated in the description).
        **overrides: knobs and Scenario fields (`seconds`, `seed`, `name`) that win over the text.

    Raises:
        ConfigParseError: malformed output, no variables at all, or a value flushsim refuses
            (naming the line).
    """
    values, lines = parse_name_value(text, "SHOW GLOBAL VARIABLES")
    if not values:
        raise ConfigParseError("no variables found: paste the output of SHOW GLOBAL VARIABLES")
    split = split_lines(text)
    texts = {k: split[n - 1] for k, n in lines.items()}
    lower = {k.lower(): v for k, v in values.items()}
    notes: list[str] = []
    detected, note = (None, "no 'version' variable in the text")
    if "version" in lower:
        detected, note = engine_and_note(lower["version"], lower.get("version_comment", ""))
    if engine is None:
        engine = detected or params.MYSQL80
        engine_note = note if detected else f"{note}; assumed mysql-8.0"
    else:
        params.check_engine(engine)
        engine_note = "given"
        if detected is not None and detected != engine:
            notes.append(f"The text says {note}, but engine={engine} was asked for.")
    if not any(k in params.BY_NAME for k in lower):
        notes.append(
            "None of these names is a flushsim knob (is this SHOW GLOBAL STATUS rather than "
            "SHOW GLOBAL VARIABLES?)."
        )
    percona = engine in params.MYSQL and is_percona(
        lower.get("version", ""), lower.get("version_comment", "")
    )
    return _build(
        source="SHOW GLOBAL VARIABLES",
        engine=engine,
        engine_note=engine_note,
        # a Percona Server lists the variable; a partial paste falls back on its default
        extra_knobs=PERCONA_DEFAULTS if percona else None,
        values=values,
        lines=lines,
        texts=texts,
        overrides=overrides,
        notes=notes,
    )


def scenario_from_variables(
    text: str | bytes, engine: str | None = None, **overrides: object
) -> Scenario:
    """A Scenario from `SHOW GLOBAL VARIABLES` output; see `read_variables`.

    Raises:
        ConfigParseError: malformed output or a value flushsim refuses (naming the line).
    """
    return read_variables(text, engine, **overrides).scenario


def _read_file(path: os.PathLike[str]) -> bytes:
    """A file's bytes, or one line saying why it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as exc:
        raise ConfigParseError(f"{os.fspath(path)}: cannot be read ({exc.strerror})") from None


def read_innodb_status(
    text: str | bytes | os.PathLike[str], engine: str = params.MYSQL80, **overrides: object
) -> ConfigReport:
    """Build a Scenario from `SHOW ENGINE INNODB STATUS` and report the pool's state.

    `Buffer pool size` (pages) x page size -> innodb_buffer_pool_size (bytes; the page size is
    `innodb_page_size` from the overrides, else 16384, unless the server printed `Buffer pool
    size, bytes`). On MySQL the number of INDIVIDUAL BUFFER POOL INFO blocks (1 when absent) ->
    innodb_buffer_pool_instances; on MariaDB `Max dirty pages percent` ->
    innodb_max_dirty_pages_pct. Free and dirty pages are not knobs: they are in `report.status`.
    A text cut short (no END OF INNODB MONITOR OUTPUT line, or instance sizes that do not add up
    to the total) gives no instance count: a note says so and what is missing.

    Args:
        text: the status, or the path of a file holding it (named in the notes).
        engine: the engine to model it with.
        **overrides: knobs and Scenario fields that win over the text.

    Raises:
        ConfigParseError: unreadable file, malformed status, or a value flushsim refuses
            (naming the line).
    """
    params.check_engine(engine)
    where = "the status"
    if isinstance(text, os.PathLike):
        where = f"the status in {os.fspath(text)}"
        text = _read_file(text)
    st = parse_innodb_status(text)
    split = status_lines(text)[0]
    notes: list[str] = []
    values: dict[str, str] = {}
    lines: dict[str, int] = {}
    size_line = st.lines.get("pool_size", st.section_line or 0)
    if st.pool_size_bytes is not None:
        values["innodb_buffer_pool_size"] = str(st.pool_size_bytes)
        lines["innodb_buffer_pool_size"] = st.lines.get("pool_size_bytes", size_line)
        how = "Buffer pool size, bytes"
    else:
        page_text = overrides.get("innodb_page_size", 16384)
        try:
            page = int(_convert(params.BY_NAME["innodb_page_size"], str(page_text)))
        except ValueError as exc:
            raise ConfigParseError(str(exc)) from None
        values["innodb_buffer_pool_size"] = str(st.pool_pages * page)
        lines["innodb_buffer_pool_size"] = size_line
        how = f"{st.pool_pages} pages x {page} bytes"
        if "innodb_page_size" not in overrides:
            how += " (page size assumed; pass innodb_page_size=... if the server uses another)"
    cut = f"{where} is incomplete ({'; '.join(st.incomplete)})"
    if engine in params.MARIADB:
        if st.instances:
            notes.append(f"{len(st.instances)} buffer pool instances: MariaDB models one pool.")
        if st.incomplete:
            notes.append(f"{cut[0].upper()}{cut[1:]}; its pool totals come before what is missing.")
    elif st.incomplete:
        # the instance blocks before the cut are not the server's count (issue #34)
        notes.append(
            f"innodb_buffer_pool_instances not read: {cut}; flushsim keeps its default unless "
            "you pass innodb_buffer_pool_instances=..."
        )
    else:
        values["innodb_buffer_pool_instances"] = str(len(st.instances) or 1)
        first = st.instances[0].line if st.instances else st.section_line
        lines["innodb_buffer_pool_instances"] = first or 0
    if engine in params.MYSQL and st.flavour == "mariadb":
        notes.append(
            "This status looks like MariaDB's (no 'Log buffer assigned up to' line, no "
            "'single page' writes): pass engine='mariadb-10.6' or 'mariadb-10.11'."
        )
    if st.max_dirty_pages_pct is not None and engine in params.MARIADB:
        values["innodb_max_dirty_pages_pct"] = repr(st.max_dirty_pages_pct)
        lines["innodb_max_dirty_pages_pct"] = st.lines["max_dirty_pct"]
    notes.append(f"innodb_buffer_pool_size from {how}.")
    age = st.checkpoint_age
    notes.append(
        f"At the time of the status: {st.free_pages} free, {st.lru_pages} LRU and "
        f"{st.dirty_pages} dirty pages ({st.buffer_pool.dirty_pct:.1f} %)"
        + (f", checkpoint age {age} bytes" if age is not None else "")
        + "; flushsim starts from an empty pool (the state is in parse_innodb_status(text))."
    )
    texts = {k: split[n - 1] if 0 < n <= len(split) else "" for k, n in lines.items()}
    return _build(
        source="SHOW ENGINE INNODB STATUS",
        engine=engine,
        engine_note="as asked (the default is mysql-8.0)",
        values=values,
        lines=lines,
        texts=texts,
        overrides=overrides,
        notes=notes,
        status=st,
    )


def scenario_from_innodb_status(
    text: str | bytes | os.PathLike[str], engine: str = params.MYSQL80, **overrides: object
) -> Scenario:
    """A Scenario from `SHOW ENGINE INNODB STATUS`; see `read_innodb_status`.

    Raises:
        ConfigParseError: malformed status or a value flushsim refuses (naming the line).
    """
    return read_innodb_status(text, engine, **overrides).scenario
