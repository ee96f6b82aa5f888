"""A knob as a DBA reads it: values as the server prints them, help per engine, `knobs` table.

Every text the explorer, the report and `python -m flushsim knobs` show about a knob comes from
here, from the knob's Param as the chosen engine has it (`params.get(name, engine)`), so a
MariaDB knob never shows MySQL's default or description.
"""

from __future__ import annotations

import textwrap

from . import params

# my.cnf size suffixes, largest first: 134217728 reads 128M.
_SIZES = (("T", 1024**4), ("G", 1024**3), ("M", 1024**2), ("K", 1024))


def server_value(p: params.Param, value: object) -> str:
    """`value` of knob `p` as a DBA writes it: ON/OFF, sizes as 128M / 1G, plain numbers."""
    if p.kind == "bool" or isinstance(value, bool):
        if isinstance(value, str):  # as a preset or SET GLOBAL wrote it: "OFF" is not true
            value = params.parse_value(p.name, value)
        return "ON" if value else "OFF"
    if p.unit == "bytes" and isinstance(value, int) and value > 0:
        for suffix, size in _SIZES:
            if value % size == 0:
                return f"{value // size}{suffix}"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def event_text(action: str, knob: str, value: object, engine: str) -> str:
    """A timeline event in words: a workload change as such, a server knob as SET GLOBAL."""
    if action == "stop_workload":
        return "the workload stops"
    if action == "start_workload":
        return "the workload starts"
    p = params.get(knob, engine)
    shown = server_value(p, value)
    if p.group != "workload":
        # SET GLOBAL takes no size suffix: the number as the server prints it
        number = str(value) if p.unit == "bytes" and not isinstance(value, bool) else shown
        return f"SET GLOBAL {knob} = {number}"
    if knob == "write_pct":
        return f"the workload switches to {shown} % writes"
    if knob == "threads":
        return f"the workload switches to {shown} threads"
    if knob == "workload":
        return f"the workload switches to {shown} access"
    return f"the workload's {knob} becomes {shown}"


def knob_text(name: str, value: object, engine: str) -> str:
    """`name = value` as a DBA reads a setting: the value as the server prints it."""
    try:
        return f"{name} = {server_value(params.get(name, engine), value)}"
    except ValueError:  # not a knob of that engine: as given
        return f"{name} = {value}"


def translation_text(given, target: str, value: object, engine: str) -> str:
    """One `scenario.translate` row as a DBA reads it.

    E.g. `innodb_redo_log_capacity=8G is innodb_log_file_size=8G on mariadb-10.11`.
    """
    was = ", ".join(f"{k}={server_value(params.get(k), v)}" for k, v in given)
    return f"{was} is {target}={server_value(params.get(target, engine), value)} on {engine}"


def default_text(p: params.Param) -> str:
    """The knob's default on its engine: the documented rule of a derived one, else the value."""
    if p.default_doc:
        return p.default_doc
    if callable(p.default):
        return "derived from other knobs"
    return server_value(p, p.default)


def range_text(p: params.Param) -> str:
    """The valid values, sizes and booleans written as the server takes them."""
    if p.ignored:  # accepted and ignored (MariaDB's pool instances): no value does anything
        return "none: ignored; the option is gone since MariaDB 10.6.0"
    if p.kind in ("bool", "enum") or p.unit != "bytes":
        return p.range_text()
    text = f"between {server_value(p, int(p.min))} and {server_value(p, int(p.max))}"
    if p.name == "innodb_buffer_pool_size":  # the simulator's limit is lower than the server's
        most = server_value(p, params.SIM_MAX_POOL_PAGES * 16 * params.KiB)
        text += f"; flushsim: at most {most} (16K pages)"
    return text


def help_text(name: str, engine: str) -> str:
    """A control's hover help: the knob's description, unit, default and range on `engine`."""
    p = params.get(name, engine)
    unit = f" Unit: {p.unit}." if p.unit else ""
    # workload and storage knobs are flushsim's own: no server has a default for them
    default = "Server default" if p.group == "server" else "Default"
    return f"{p.name} ({engine}): {p.doc}{unit} {default} {default_text(p)}; valid {range_text(p)}."


# Column widths of the `knobs` table; longer cells wrap onto more lines, nothing is cut.
_COLUMNS = (("knob", 34), ("default", 24), ("valid values", 32), ("unit", 14), ("timeline", 8))


def knobs_table(engine: str) -> str:
    """Every knob `engine` has: name, default, valid values, unit, settable in a timeline."""
    lines = []
    header = [name for name, _ in _COLUMNS]
    rule = ["-" * width for _, width in _COLUMNS]
    lines += [_row(header), _row(rule)]
    for p in params.for_engine(engine):
        cells = [p.name, default_text(p), range_text(p), p.unit, "yes" if p.dynamic else "no"]
        wrapped = [
            textwrap.wrap(c, width, break_on_hyphens=False, break_long_words=False) or [""]
            for c, (_, width) in zip(cells, _COLUMNS, strict=True)
        ]
        for i in range(max(len(w) for w in wrapped)):
            lines.append(_row([w[i] if i < len(w) else "" for w in wrapped]))
    return f"Knobs of {engine}:\n" + "\n".join(lines)


def _row(cells: list[str]) -> str:
    return "  ".join(c.ljust(width) for c, (_, width) in zip(cells, _COLUMNS, strict=True)).rstrip()
