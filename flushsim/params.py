"""The declarative knob spec, the public entry: look-up, parsing, validation, runtime changes.

Every setting flushsim accepts is a `Param` of the table in `knob_spec.py`, with the server's
own name, default, range and unit per engine (see docs/model.md, section Knobs). This module
generates the rest from it: validation (`validate`, the server's startup rules), CLI parsing
(`parse_value`), `SET GLOBAL` during a run (`runtime_set`). Nothing here imports numba.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import math
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path

from . import sizes
from .knob_spec import (
    BY_NAME,
    ENGINES,
    MARIADB,
    MARIADB106,
    MARIADB1011,
    MYSQL,
    MYSQL80,
    MYSQL84,
    PARAMS,
    SIM_MAX_POOL_PAGES,
    SIM_MAX_TABLE_PAGES,
    SIM_MAX_ZIPF_ROWS,
    U32_MAX,
    U64_MAX,
    FlushsimWarning,
    GiB,
    KiB,
    MiB,
    Param,
    _fmt,
)

__all__ = [
    "BY_NAME",
    "ENGINES",
    "MARIADB",
    "MARIADB106",
    "MARIADB1011",
    "MYSQL",
    "MYSQL80",
    "MYSQL84",
    "PARAMS",
    "SIM_MAX_POOL_PAGES",
    "SIM_MAX_TABLE_PAGES",
    "SIM_MAX_ZIPF_ROWS",
    "U32_MAX",
    "U64_MAX",
    "FlushsimWarning",
    "GiB",
    "KiB",
    "MiB",
    "Param",
    "check_engine",
    "check_value",
    "for_engine",
    "get",
    "missing_message",
    "parse_value",
    "runtime_set",
    "unknown_message",
    "validate",
]


def get(name: str, engine: str | None = None) -> Param:
    """The Param called `name` (as `engine` has it, if given), or a ValueError.

    Unknown names get a did-you-mean suggestion; a knob `engine` lacks names the engine.
    """
    try:
        p = BY_NAME[name]
    except KeyError:
        raise ValueError(unknown_message(name)) from None
    if engine is None:
        return p
    check_engine(engine)
    if engine not in p.engines:
        raise ValueError(missing_message(name, engine))
    return p.for_engine(engine)


def missing_message(name: str, engine: str) -> str:
    """Error text for a knob that exists, but not on `engine`."""
    has = ", ".join(BY_NAME[name].engines)
    return f"{name} is not a {engine} setting (it exists on {has})"


@functools.cache
def server_variables() -> frozenset[str]:
    """Server variables flushsim knows by name but does not model (data/server_variables.txt)."""
    path = Path(__file__).resolve().parent.parent / "data" / "server_variables.txt"
    lines = path.read_text().splitlines()
    return frozenset(n for n in lines if n and not n.startswith("#")) - set(BY_NAME)


def unknown_message(name: str) -> str:
    """Error text for an unknown knob, with the closest known names."""
    normal = name.replace("-", "_").lower()
    if normal in BY_NAME and normal != name:
        return f"unknown knob {name!r}; did you mean {normal!r}?"
    if normal in server_variables():
        return (
            f"{name} is a server variable that flushsim does not model: it has no knob for it "
            "(`python -m flushsim knobs` lists those it has)"
        )
    close = difflib.get_close_matches(normal, list(BY_NAME), n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return f"unknown knob {name!r}{hint}"


def for_engine(engine: str) -> tuple[Param, ...]:
    """The knobs that `engine` has, in spec order."""
    check_engine(engine)
    return tuple(p.for_engine(engine) for p in PARAMS if engine in p.engines)


def check_engine(engine: str) -> None:
    """Raise ValueError unless `engine` is a known engine."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; valid engines: {', '.join(ENGINES)}")


_TRUE = {"on", "1", "true", "yes"}
_FALSE = {"off", "0", "false", "no"}


def _small_pool_message(size: int, page: int, instances: int) -> str:
    """Why a pool under flushsim's 512 pages per instance is refused, and the smallest it runs."""
    from .knob_text import server_value

    pool = BY_NAME["innodb_buffer_pool_size"]
    least = server_value(pool, 512 * page * instances)
    text = (
        f"innodb_buffer_pool_size={server_value(pool, size)} is {size // page:,} pages of "
        f"{page // KiB}K; flushsim needs at least 512 pages per buffer pool instance: set it to "
        f"{least} or more"
    )
    if instances == 1:
        return text
    fits = size // page // 512
    fewer = f", or lower innodb_buffer_pool_instances to {fits}" if fits else ""
    return f"{text} for {instances} instances{fewer}"


def parse_value(name: str, text: str) -> object:
    """Parse a value typed by a user (--set, TOML, the explorer), as the server reads its my.cnf.

    Whole numbers take the server's size suffixes (flushsim.sizes: 16k, 128M, 4G, 1P); ON/OFF
    for booleans; innodb_page_size also as a size (16k), as the server takes it.

    Raises:
        ValueError: naming the knob and what it accepts. Nothing is ever evaluated.
    """
    p = get(name)
    s = str(text).strip()
    if p.kind == "bool":
        if s.lower() in _TRUE:
            return True
        if s.lower() in _FALSE:
            return False
        raise ValueError(f"{name}={text!r} is not a boolean; use ON or OFF")
    if p.kind == "enum":
        if p.name == "innodb_page_size" and s not in p.choices:
            with contextlib.suppress(sizes.SizeError):
                size = str(sizes.parse_size(s))  # the server reads innodb_page_size=16k
                if size in p.choices:
                    return size
            # refused here, in the user's own words (not as the number 1M reads as)
            raise ValueError(f"{name}={text!r} is not valid; it must be {p.range_text()}")
        return s
    unit = f" {p.unit}" if p.unit else ""
    if p.kind == "int":
        try:
            return sizes.parse_size(s)
        except sizes.SizeError as exc:
            raise ValueError(f"{name}={exc}; it must be {p.range_text()}{unit}") from None
    try:
        num = float(s)  # doubles take no suffix (my_getopt's getopt_double)
    except ValueError:
        raise ValueError(
            f"{name}={text!r} is not a number; it must be {p.range_text()}{unit}"
        ) from None
    return num


def check_value(p: Param, value: object) -> object:
    """Check one value against its Param; return it normalised (int, float, bool or str)."""
    if p.kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str):
            return parse_value(p.name, value)
        raise ValueError(f"{p.name}={value!r} is not valid; it must be ON or OFF")
    if p.kind == "enum":
        s = str(parse_value(p.name, value) if isinstance(value, str) else value)
        # the server takes either case: innodb_doublewrite's values are upper-case, Percona's lower
        if p.name == "innodb_doublewrite":
            s = s.upper()
        elif p.name == "innodb_cleaner_lsn_age_factor":
            s = s.lower()
        if s not in p.choices:
            raise ValueError(f"{p.name}={value!r} is not valid; it must be {p.range_text()}")
        return int(s) if p.name == "innodb_page_size" else s
    if isinstance(value, str):
        value = parse_value(p.name, value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{p.name}={value!r} is not a number; it must be {p.range_text()}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{p.name}={value!r} must be {p.range_text()}")
    if p.kind == "int":
        if isinstance(value, float):
            if not value.is_integer():
                raise ValueError(f"{p.name}={value!r} must be a whole number {p.range_text()}")
            value = int(value)
    else:
        value = float(value)
    if value < p.min or value > p.max:
        raise ValueError(
            f"{p.name}={_fmt(value)} is out of range: it must be "
            f"{p.range_text()}{' ' + p.unit if p.unit else ''}"
        )
    return value


def _warn(msg: str) -> None:
    warnings.warn(msg, FlushsimWarning, stacklevel=4)


def validate(engine: str, values: Mapping[str, object]) -> dict[str, object]:
    """Resolve defaults and check every knob; return the full value set for `engine`.

    Applies the server's cross-knob rules at startup (with a FlushsimWarning where the server
    adjusts a value and logs a warning) and the simulator's own size limits.

    Raises:
        ValueError: naming the knob and its valid range, for any bad or unknown value.
    """
    check_engine(engine)
    mine = {p.name: p for p in for_engine(engine)}
    for name in values:
        if name not in mine:
            if name in BY_NAME:
                raise ValueError(missing_message(name, engine))
            raise ValueError(unknown_message(name))
    out: dict[str, object] = {}
    derived: list[Param] = []
    for p in mine.values():
        if p.name in values and p.ignored:
            check_value(p, values[p.name])  # a bad value is still an error
            _warn(p.ignored)
            out[p.name] = p.default
        elif p.name in values:
            out[p.name] = check_value(p, values[p.name])
        elif isinstance(p.default, Callable):
            derived.append(p)
        else:
            out[p.name] = p.default
    for p in derived:
        out[p.name] = check_value(p, p.default(out))
    if out.get("device", "custom") != "custom":
        from .devices import interface as device_interface
        from .devices import knobs as device_knobs
        from .devices import rotational as device_rotational

        for name, value in device_knobs(str(out["device"])).items():
            if name not in values:  # a device_* knob set by hand wins over the profile
                out[name] = check_value(mine[name], value)
        if "device_interface" not in values:
            out["device_interface"] = device_interface(str(out["device"]))
        if "device_rotational" not in values:
            out["device_rotational"] = device_rotational(str(out["device"]))
    _apply_startup_rules(engine, out, set(values))
    return out


def _apply_startup_rules(engine: str, v: dict[str, object], given: set[str]) -> None:
    # innodb_redo_log_capacity unset but the 8.0.30-deprecated pair given: 8.0.30 uses
    # innodb_log_file_size * innodb_log_files_in_group as the capacity.
    if (
        engine in MYSQL
        and "innodb_redo_log_capacity" not in given
        and ("innodb_log_file_size" in given or "innodb_log_files_in_group" in given)
    ):
        cap = int(v["innodb_log_file_size"]) * int(v["innodb_log_files_in_group"])
        v["innodb_redo_log_capacity"] = min(max(cap, 8 * MiB), 128 * GiB)
    if int(v["innodb_io_capacity_max"]) < int(v["innodb_io_capacity"]):
        _warn(
            "innodb_io_capacity cannot be set higher than innodb_io_capacity_max. Setting "
            f"innodb_io_capacity to {v['innodb_io_capacity_max']} (the server's startup rule)"
        )
        v["innodb_io_capacity"] = v["innodb_io_capacity_max"]
    if float(v["innodb_max_dirty_pages_pct_lwm"]) > float(v["innodb_max_dirty_pages_pct"]):
        _warn(
            "innodb_max_dirty_pages_pct_lwm cannot be set higher than "
            "innodb_max_dirty_pages_pct. Setting innodb_max_dirty_page_pct_lwm to "
            f"{float(v['innodb_max_dirty_pages_pct']):f}"
        )
        v["innodb_max_dirty_pages_pct_lwm"] = v["innodb_max_dirty_pages_pct"]
    inst = int(v["innodb_buffer_pool_instances"])
    if int(v["innodb_page_cleaners"]) > inst:
        # The server silently caps the cleaner count at the instance count.
        v["innodb_page_cleaners"] = inst
    page = int(v["innodb_page_size"])
    pages = int(v["innodb_buffer_pool_size"]) // page
    if pages > SIM_MAX_POOL_PAGES:
        raise ValueError(
            f"innodb_buffer_pool_size={v['innodb_buffer_pool_size']:,} is {pages:,} pages; "
            f"flushsim simulates at most {SIM_MAX_POOL_PAGES:,} pages "
            f"({SIM_MAX_POOL_PAGES * page // GiB} GiB at innodb_page_size={page})"
        )
    if pages // inst < 512:
        raise ValueError(_small_pool_message(int(v["innodb_buffer_pool_size"]), page, inst))
    table_pages = -(-int(v["table_rows"]) // int(v["rows_per_page"]))
    if table_pages > SIM_MAX_TABLE_PAGES:
        raise ValueError(
            f"table_rows / rows_per_page = {table_pages:,} pages; flushsim handles at most "
            f"{SIM_MAX_TABLE_PAGES:,} table pages"
        )
    if v["workload"] == "zipf" and int(v["table_rows"]) > SIM_MAX_ZIPF_ROWS:
        raise ValueError(
            f"table_rows={int(v['table_rows']):,}: the zipf workload supports at most "
            f"{SIM_MAX_ZIPF_ROWS:,} rows"
        )
    if v["workload"] == "sequential":
        _check_sequential_range(
            int(v["seq_start_row"]), int(v["seq_end_row"]), int(v["table_rows"])
        )
    if v["workload"] == "hotset" and int(v["hot_rows"]) > int(v["table_rows"]):
        raise ValueError(
            f"hot_rows={int(v['hot_rows']):,} must be between 1 and table_rows "
            f"({int(v['table_rows']):,})"
        )


def _check_sequential_range(start: int, end: int, rows: int) -> None:
    # a range with no row in it would run with 0 transactions and no word about it
    if start >= rows:
        raise ValueError(
            f"seq_start_row={start:,} is past the table: it must be between 0 and table_rows - 1 "
            f"({rows - 1:,})"
        )
    if end and not start < end <= rows:
        raise ValueError(
            f"seq_end_row={end:,} must be 0 (the end of the table) or between seq_start_row + 1 "
            f"({start + 1:,}) and table_rows ({rows:,})"
        )


def runtime_set(
    engine: str, current: Mapping[str, object], name: str, value: object
) -> dict[str, object]:
    """Apply `SET GLOBAL name = value` to a resolved value set, with the server's runtime rules.

    Returns the changed knobs (one, or two when the server adjusts a partner knob).

    Raises:
        ValueError: unknown knob, a knob the engine lacks, a static knob, or a bad value.
    """
    p = get(name, engine)
    if p.ignored:
        raise ValueError(p.ignored)
    if not p.dynamic:
        raise ValueError(f"{name} cannot be changed while the server runs (it is not dynamic)")
    value = check_value(p, value)
    changes: dict[str, object] = {name: value}
    if name == "innodb_io_capacity" and value > int(current["innodb_io_capacity_max"]):
        # innodb_io_capacity_update: raising io_capacity above the max raises the max too.
        _warn(
            f"Setting innodb_io_capacity to {value} higher than innodb_io_capacity_max "
            f"{current['innodb_io_capacity_max']}; setting innodb_max_io_capacity to {value}"
        )
        changes["innodb_io_capacity_max"] = value
    if name == "innodb_io_capacity_max" and value < int(current["innodb_io_capacity"]):
        # innodb_io_capacity_max_update: lowering the max below io_capacity lowers it too.
        _warn(
            f"Setting innodb_io_capacity_max {value} lower than innodb_io_capacity "
            f"{current['innodb_io_capacity']}; setting innodb_io_capacity to {value}"
        )
        changes["innodb_io_capacity"] = value
    if name == "innodb_max_dirty_pages_pct_lwm" and value > float(
        current["innodb_max_dirty_pages_pct"]
    ):
        _warn(
            "innodb_max_dirty_pages_pct_lwm cannot be set higher than "
            "innodb_max_dirty_pages_pct; setting it to innodb_max_dirty_pages_pct"
        )
        changes[name] = float(current["innodb_max_dirty_pages_pct"])
    if name == "innodb_max_dirty_pages_pct" and value < float(
        current["innodb_max_dirty_pages_pct_lwm"]
    ):
        _warn(
            "innodb_max_dirty_pages_pct_lwm cannot be higher than innodb_max_dirty_pages_pct; "
            f"setting innodb_max_dirty_pages_pct_lwm to {value:f}"
        )
        changes["innodb_max_dirty_pages_pct_lwm"] = value
    return changes
