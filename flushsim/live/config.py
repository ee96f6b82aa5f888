r"""Scenarios from a my.cnf, `SHOW GLOBAL VARIABLES` or `SHOW ENGINE INNODB STATUS`.

Three readers turn what a DBA can paste into a `flushsim.Scenario`:

- `parse_mycnf` follows the option-file reader of mysys (`my_default.cc`,
  `search_default_file_with_ext`): `#`/`;` comment lines, `[group]` headers, `name`, `name=value`,
  quotes, escapes and trailing `# comments`; `!include`/`!includedir` are reported, not followed.
  Option prefixes (`loose-`, `skip-`, `disable-`, `enable-`) follow my_getopt's `handle_options`.
- `parse_global_variables` / `parse_global_status` read the mysql client's ASCII table, its
  tab-separated batch output (`mysql -B`, with or without `-N`) and its vertical `\G` output.
- `parse_innodb_status` reads the BUFFER POOL AND MEMORY, INDIVIDUAL BUFFER POOL INFO and LOG
  sections of `SHOW ENGINE INNODB STATUS` as MySQL 8.0 and MariaDB 10.6+ print them.

`scenario_from_mycnf`, `scenario_from_variables` and `scenario_from_innodb_status` map what was
read to flushsim's knobs with `params`' own spec; `read_mycnf`, `read_variables` and
`read_innodb_status` return the same Scenario inside a `ConfigReport` that also lists what flushsim
does not model. Malformed input raises `ConfigParseError` (a ValueError) naming the line, and
nothing else; nothing the user typed is ever evaluated.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from .. import params
from ..kernels.layout import MARIADB106_VERSIONS
from ..scenario import Scenario

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

# my_isspace() over latin1: the only characters mysys trims around names and values.
_WS = " \t\n\r\x0b\x0c"
_U64_MAX = 2**64 - 1


class ConfigParseError(ValueError):
    """Malformed server text: the 1-based line it was found on, that line, and what is wrong.

    Attributes:
        line: 1-based line number in the text given, or None when no single line is to blame.
        text: the offending line as written ("" when there is none).
        reason: what is wrong, without the line prefix.
    """

    def __init__(self, reason: str, line: int | None = None, text: str = "") -> None:
        self.reason = reason
        self.line = line
        self.text = text
        where = f"line {line}: " if line is not None else ""
        shown = text if len(text) <= 100 else text[:97] + "..."
        quoted = f" (the line reads {shown!r})" if text else ""
        super().__init__(f"{where}{reason}{quoted}")

    def __reduce__(self) -> tuple[type, tuple[str, int | None, str]]:
        # keyword-style constructors need this to survive pickling (pytest-xdist, multiprocessing)
        return (type(self), (self.reason, self.line, self.text))


def _split_lines(text: str | bytes) -> list[str]:
    """The text as lines, numbered as an editor numbers them (only a newline ends a line)."""
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            line = bytes(text)[: exc.start].count(b"\n") + 1
            raise ConfigParseError(
                f"byte {exc.start} is not UTF-8 ({exc.reason}); save the text as UTF-8", line
            ) from None
    if not isinstance(text, str):
        raise TypeError(f"expected the text as str or bytes, got {type(text).__name__}")
    text = text.removeprefix("\ufeff")  # an editor's byte-order mark is not part of line 1
    return [ln.removesuffix("\r") for ln in text.split("\n")]


# ---------------------------------------------------------------------------------------- sizes
_SIZE = re.compile(r"\+?([0-9]+)(?:([kmgtpeKMGTPE])[bB]?)?")
_SHIFT = {"k": 10, "m": 20, "g": 30, "t": 40, "p": 50, "e": 60}


def parse_size(text: str) -> int:
    """A size as the server reads it: a whole number with an optional K, M, G, T, P or E suffix.

    Suffixes are case-insensitive powers of 1024 (my_getopt.cc `eval_num_suffix`). The server
    looks only at the first letter after the number, so `4GB` means 4 GiB; any other trailing text
    is refused here instead of ignored.

    Args:
        text: e.g. "134217728", "128M", "4g", "4GB".

    Returns:
        The size in bytes (or the plain number, for a count).

    Raises:
        ConfigParseError: naming the value, if it is not such a number or exceeds 2**64-1.
    """
    s = str(text).strip(_WS)
    m = _SIZE.fullmatch(s)
    if m is None or len(m.group(1)) > 20:
        hint = " (sizes cannot be negative)" if s.startswith("-") else ""
        raise ConfigParseError(
            f"{text!r} is not a size{hint}: write a whole number with an optional K, M, G, T, P "
            "or E suffix (powers of 1024)"
        )
    value = int(m.group(1)) << _SHIFT[m.group(2).lower()] if m.group(2) else int(m.group(1))
    if value > _U64_MAX:
        raise ConfigParseError(f"{text!r} is larger than {_U64_MAX}, the server's largest value")
    return value


# ---------------------------------------------------------------------------------------- my.cnf
# The groups each server reads (MySQL manual "Using Option Files"; MariaDB KB "Configuring
# MariaDB with Option Files"). Version groups name the server's major.minor version.
_GROUPS = {
    params.MYSQL80: ("mysqld", "server"),
    params.MARIADB106: ("mysqld", "server", "mariadb", "mariadbd", "client-server", "galera"),
    params.MARIADB1011: ("mysqld", "server", "mariadb", "mariadbd", "client-server", "galera"),
}
_VERSION_GROUPS = ("mysqld", "mariadb", "mariadbd")  # MySQL reads only [mysqld-8.0]
_DEFAULT_VERSION = {params.MYSQL80: "8.0", params.MARIADB106: "10.6", params.MARIADB1011: "10.11"}

DEFAULT_SECTIONS: tuple[str, ...] = (
    "mysqld",
    "server",
    "mysqld-8.0",
    "mariadb",
    "mariadbd",
    "client-server",
    "galera",
    "mysqld-10.6",
    "mariadb-10.6",
    "mariadbd-10.6",
    "mysqld-10.11",
    "mariadb-10.11",
    "mariadbd-10.11",
)

_OPTION_NAME = re.compile(r"[A-Za-z0-9_.\-]+")  # dots: component variables (validate_password.x)
# Options whose own name starts with skip_ (my_default.cc `update_variable_source`, and options
# the servers define as skip-...): my_getopt finds them before trying the skip- prefix.
_LITERAL_SKIP = frozenset(
    {
        "skip_name_resolve",
        "skip_networking",
        "skip_show_database",
        "skip_external_locking",
        "skip_grant_tables",
        "skip_slave_start",
        "skip_replica_start",
        "skip_host_cache",
    }
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "s": " ", '"': '"', "'": "'", "\\": "\\"}


class Setting(NamedTuple):
    """One option line of a my.cnf.

    Attributes:
        name: normalised name (lowercase, `-` as `_`, `loose_` and on/off prefixes removed).
        value: the value text after quotes and escapes ("ON" for a bare name).
        section: the [group] it sits in, lowercase.
        line: 1-based line number.
        text: the line as written.
        loose: whether it was written with the `loose-` prefix.
    """

    name: str
    value: str
    section: str
    line: int
    text: str
    loose: bool = False


@dataclass(frozen=True)
class ConfigFile:
    """A parsed my.cnf: what the server reads, where it came from, and what it does not read.

    Attributes:
        settings: normalised name -> value text, for the sections read; a later line wins.
        sources: normalised name -> the Setting that won (its section and line).
        includes: `!include` / `!includedir` directives, as written; not followed.
        ignored: settings in sections the server does not read (e.g. [client], [mysqldump]).
        groups: every [group] of the file, lowercase, in order of first appearance.
    """

    settings: dict[str, str] = field(default_factory=dict, hash=False)
    sources: dict[str, Setting] = field(default_factory=dict, hash=False)
    includes: tuple[str, ...] = ()
    ignored: tuple[Setting, ...] = ()
    groups: tuple[str, ...] = ()


def _remove_end_comment(s: str) -> str:
    # my_default.cc remove_end_comment: '#' outside quotes ends the line; ';' does not
    quote = ""
    escape = False
    for i, ch in enumerate(s):
        if ch in "'\"" and not escape:
            if not quote:
                quote = ch
            elif quote == ch:
                quote = ""
        if not quote and ch == "#":
            return s[:i]
        escape = bool(quote) and ch == "\\" and not escape
    return s


def _unquote(value: str) -> str:
    # search_default_file_with_ext: strip one pair of matching quotes, then expand escapes
    if len(value) > 1 and value[0] in "'\"" and value[0] == value[-1]:
        value = value[1:-1]
    out: list[str] = []
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == "\\" and i != len(value) - 1:
            nxt = value[i + 1]
            out.append(_ESCAPES.get(nxt, "\\" + nxt))  # unknown escapes keep the backslash
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _onoff_prefix(name: str, value: str | None) -> tuple[str, str | None]:
    """my_getopt's skip-/disable-/enable- prefixes, tried only when the full name is no option."""
    if name in params.BY_NAME or name in _LITERAL_SKIP:
        return name, value
    for prefix, on in (("skip_", False), ("disable_", False), ("enable_", True)):
        if name.startswith(prefix) and len(name) > len(prefix):
            # handle_options: "double negation is actually enable again" (--skip-x=0 -> x on)
            on_now = (not on) if value == "0" else on
            return name[len(prefix) :], "ON" if on_now else "OFF"
    return name, value


def _directive(s: str, n: int, raw: str) -> str:
    """An `!include`/`!includedir` line, checked as get_argument() checks it."""
    rest = s[1:].lstrip(_WS)
    for keyword in ("includedir", "include"):
        if rest == keyword or (rest.startswith(keyword) and rest[len(keyword)] in _WS):
            arg = rest[len(keyword) :].strip(_WS)
            if not arg:
                raise ConfigParseError(f"'!{keyword}' needs a path after it", n, raw)
            return f"!{keyword} {arg}"
    raise ConfigParseError(
        "unknown directive: option files know only !include and !includedir", n, raw
    )


def parse_mycnf(text: str | bytes, *, sections: Iterable[str] = DEFAULT_SECTIONS) -> ConfigFile:
    r"""Parse a MySQL / MariaDB option file (my.cnf) the way the server reads it.

    Names are normalised (lowercase, `-` as `_`); `loose-` is removed; `skip-`, `disable-` and
    `enable-` turn into OFF/ON values (`skip-x=0` means ON, as in my_getopt). A bare name is ON.
    Values are kept as text: leading/trailing blanks, one pair of matching quotes and a trailing
    `# comment` are removed and the escapes \n \t \r \b \s \\ \" \' are expanded.

    Args:
        text: the file's content.
        sections: the [groups] to read, case-insensitive (default: those of MySQL 8.0 and
            MariaDB 10.6/10.11 servers, version groups included).

    Returns:
        The settings of those sections, later lines overriding earlier ones, and what was left.

    Raises:
        ConfigParseError: an option before any [group], a header without `]`, an `!include`
            without a path, an unknown `!` directive, or a name that is no option name.
    """
    if isinstance(sections, str):
        sections = (sections,)
    wanted = {str(s).strip(_WS).lower() for s in sections}
    settings: dict[str, str] = {}
    sources: dict[str, Setting] = {}
    includes: list[str] = []
    ignored: list[Setting] = []
    groups: list[str] = []
    section: str | None = None
    for n, raw in enumerate(_split_lines(text), 1):
        s = raw.strip(_WS)
        if not s or s[0] in "#;":
            continue
        if s[0] == "!":
            includes.append(_directive(s, n, raw))
            continue
        if s[0] == "[":
            end = s.find("]")
            if end < 0:
                raise ConfigParseError("a [group] header without its closing ']'", n, raw)
            section = s[1:end].strip(_WS).lower()  # text after ']' is ignored, as by the server
            if section not in groups:
                groups.append(section)
            continue
        if section is None:
            raise ConfigParseError(
                "an option before any [group] header (the server refuses to start: 'Found "
                "option without preceding group')",
                n,
                raw,
            )
        body = _remove_end_comment(s)
        if "=" in body:
            name_part, value_part = body.split("=", 1)
            name = name_part.strip(_WS)
            value: str | None = _unquote(value_part.strip(_WS))
        else:
            name, value = body.strip(_WS), None
        if not name:
            raise ConfigParseError("a value without an option name before '='", n, raw)
        if not _OPTION_NAME.fullmatch(name):
            raise ConfigParseError(
                f"{name!r} is not an option name (letters, digits, '-', '_' and '.' only)", n, raw
            )
        norm = name.lower().replace("-", "_")
        loose = norm.startswith("loose_")
        if loose:
            norm = norm[len("loose_") :]
        if not norm:
            raise ConfigParseError("'loose-' with no option name after it", n, raw)
        norm, value = _onoff_prefix(norm, value)
        setting = Setting(norm, "ON" if value is None else value, section, n, raw, loose)
        if section in wanted:
            settings[norm] = setting.value
            sources[norm] = setting
        else:
            ignored.append(setting)
    return ConfigFile(settings, sources, tuple(includes), tuple(ignored), tuple(groups))


# ------------------------------------------------------------------ SHOW GLOBAL VARIABLES / STATUS
_VAR_NAME = re.compile(r"[A-Za-z0-9_.\-]+")
_HEAD_NAMES = ("variable_name",)
_HEAD_VALUES = ("value", "variable_value")
_BORDER = re.compile(r"\+(?:-+\+)+")
_ROW_SEP = re.compile(r"\*+ *[0-9]+\. row *\*+")
_VERTICAL = re.compile(r"[ \t]*(Variable_name|VARIABLE_NAME|Value|VARIABLE_VALUE)[ \t]*:[ \t]?(.*)")
_PROMPT = re.compile(r"(?:mysql|MySQL \[[^\]]*\]|MariaDB \[[^\]]*\]|mariadb)> .*|[ \t]*-> .*")
_FOOTER = re.compile(r"[0-9]+ rows? in set.*|Empty set.*|Query OK.*|[0-9]+ warnings?.*")
_BATCH_ESCAPES = {"n": "\n", "t": "\t", "0": "\0", "\\": "\\"}


def _batch_unescape(value: str) -> str:
    # mysql -B writes newline, tab, NUL and backslash as \n \t \0 \\ (client/mysql.cc, -r off)
    return re.sub(r"\\([nt0\\])", lambda m: _BATCH_ESCAPES[m.group(1)], value)


def _check_var_name(name: str, n: int, raw: str) -> None:
    if not _VAR_NAME.fullmatch(name):
        raise ConfigParseError(f"{name!r} is not a variable name", n, raw)


def _is_header(name: str, value: str) -> bool:
    return name.lower() in _HEAD_NAMES and value.lower() in _HEAD_VALUES


def _parse_name_value(text: str | bytes, what: str) -> tuple[dict[str, str], dict[str, int]]:
    """Rows of a two-column SHOW output: name -> value, and name -> 1-based line number."""
    values: dict[str, str] = {}
    lines: dict[str, int] = {}
    pending: tuple[str, int, str] | None = None  # a \G "Variable_name:" still waiting for "Value:"
    open_value: str | None = None  # the \G record whose value may continue on the next lines

    def close_pending() -> None:
        if pending is not None:
            raise ConfigParseError(
                f"'Variable_name: {pending[0]}' has no 'Value:' line after it",
                pending[1],
                pending[2],
            )

    for n, raw in enumerate(_split_lines(text), 1):
        s = raw.strip(_WS)
        if not s:
            continue
        if _BORDER.fullmatch(s) or _PROMPT.fullmatch(raw) or _FOOTER.fullmatch(s):
            open_value = None
            continue
        if _ROW_SEP.fullmatch(s):
            close_pending()
            open_value = None
            continue
        if s.startswith("|"):
            if len(s) < 2 or not s.endswith("|"):
                raise ConfigParseError("a table row must start and end with '|'", n, raw)
            cells = s[1:-1].split("|")
            if len(cells) != 2:
                raise ConfigParseError(
                    f"expected 2 columns (Variable_name, Value), found {len(cells)}", n, raw
                )
            name, value = cells[0].strip(_WS), cells[1].strip(_WS)
            open_value = None
            if _is_header(name, value):
                continue
            _check_var_name(name, n, raw)
            values[name], lines[name] = value, n
            continue
        m = _VERTICAL.fullmatch(raw)
        if m is not None:
            key, rest = m.group(1).lower(), m.group(2).strip(_WS)
            if key in _HEAD_NAMES:
                close_pending()
                _check_var_name(rest, n, raw)
                pending, open_value = (rest, n, raw), None
            else:
                if pending is None:
                    raise ConfigParseError("a 'Value:' line without 'Variable_name:'", n, raw)
                name = pending[0]
                values[name], lines[name] = rest, pending[1]
                pending, open_value = None, name
            continue
        if "\t" in raw:
            name, value = raw.split("\t", 1)
            name = name.strip(_WS)
            value = _batch_unescape(value.rstrip("\r"))
            open_value = None
            if _is_header(name, value.strip(_WS)):
                continue
            _check_var_name(name, n, raw)
            values[name], lines[name] = value, n
            continue
        if open_value is not None:
            values[open_value] += "\n" + raw  # \G prints a value's own line breaks as they are
            continue
        raise ConfigParseError(
            f"not a line of {what} output: expected a table row '| name | value |', a "
            "tab-separated 'name<TAB>value' or \\G 'Variable_name:' / 'Value:' lines",
            n,
            raw,
        )
    close_pending()
    return values, lines


def parse_global_variables(text: str | bytes) -> dict[str, str]:
    r"""Parse pasted `SHOW GLOBAL VARIABLES` output into name -> value text.

    Accepts the mysql client's ASCII table, its tab-separated batch output (`mysql -B`, with or
    without the header of `-N`) and its vertical `\G` output, with or without the `mysql>`
    prompt line and the `N rows in set` footer; forms may be mixed. Names are kept as printed.

    Raises:
        ConfigParseError: naming the first line that is none of these forms.
    """
    return _parse_name_value(text, "SHOW GLOBAL VARIABLES")[0]


def parse_global_status(text: str | bytes) -> dict[str, str]:
    """Parse pasted `SHOW GLOBAL STATUS` output (same forms as `parse_global_variables`).

    Names are kept as printed (`Innodb_buffer_pool_pages_dirty`); values are text.

    Raises:
        ConfigParseError: naming the first line that is not a row of such output.
    """
    return _parse_name_value(text, "SHOW GLOBAL STATUS")[0]


# --------------------------------------------------------------------- SHOW ENGINE INNODB STATUS
# Section titles as srv_printf_innodb_monitor() (srv0srv.cc) prints them, each between two rows
# of dashes; buf_print_io() (buf0buf.cc) prints INDIVIDUAL BUFFER POOL INFO itself.
_TITLES = frozenset(
    {
        "BACKGROUND THREAD",
        "SEMAPHORES",
        "LATEST FOREIGN KEY ERROR",
        "LATEST DETECTED DEADLOCK",
        "TRANSACTIONS",
        "FILE I/O",
        "INSERT BUFFER AND ADAPTIVE HASH INDEX",
        "LOG",
        "BUFFER POOL AND MEMORY",
        "INDIVIDUAL BUFFER POOL INFO",
        "ROW OPERATIONS",
        "END OF INNODB MONITOR OUTPUT",
    }
)
_DASHES = re.compile(r"-{3,}")
_RULE = re.compile(r"[-=]{3,}")
_N = r"([0-9]{1,20})"  # ULINTPF / LSN_PF: at most 20 digits; longer is not a server number
# (field, prefix that names the line, the whole line). MySQL 8.0 prints them in buf0buf.cc
# buf_print_io_instance() (read in mysql/mysql-server). MariaDB 10.6+ prints them in buf0buf.cc
# buf_print_io() with two percent lines added and "Pending writes: LRU n, flush list n" without
# "single page"; checked against real 10.6+ outputs, not against that source.
# "Buffer pool size, bytes" is printed by some builds (Percona, older MariaDB).
_BP_LINES: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...] = tuple(
    (key, re.compile(prefix), re.compile(whole))
    for key, prefix, whole in (
        ("pool_size_bytes", r"Buffer pool size, bytes", rf"Buffer pool size, bytes[ \t]+{_N}"),
        ("pool_size", r"Buffer pool size(?!,)", rf"Buffer pool size[ \t]+{_N}"),
        ("free", r"Free buffers", rf"Free buffers[ \t]+{_N}"),
        ("database_pages", r"Database pages", rf"Database pages[ \t]+{_N}"),
        ("old_database_pages", r"Old database pages", rf"Old database pages[ \t]+{_N}"),
        ("modified", r"Modified db pages", rf"Modified db pages[ \t]+{_N}"),
        ("pending_reads", r"Pending reads", rf"Pending reads[ \t]+{_N}"),
        (
            "pending_writes",
            r"Pending writes:",
            rf"Pending writes: LRU {_N}, flush list {_N}(?:,? single page {_N})?",
        ),
        ("made_young", r"Pages made young", rf"Pages made young {_N}, not young {_N}"),
        ("pages_read", r"Pages read(?! ahead)", rf"Pages read {_N}, created {_N}, written {_N}"),
        (
            "max_dirty_pct",
            r"Max dirty pages percent:",
            r"Max dirty pages percent: ([0-9]{1,3}(?:\.[0-9]{1,9})?)",
        ),
    )
)
_BP_REQUIRED = (
    ("pool_size", "Buffer pool size"),
    ("free", "Free buffers"),
    ("database_pages", "Database pages"),
    ("modified", "Modified db pages"),
)
_POOL_N = re.compile(rf"---BUFFER POOL {_N}")
# log0log.cc log_print(): MySQL 8.0 pads eight LSN labels to 29 columns (8.0.30+ adds the two
# "Log ... file id is" lines); MariaDB 10.6+ prints "Log sequence number", "Log flushed up to",
# "Pages flushed up to" and "Last checkpoint at" only. Every "label number" line is kept.
_LOG_LINE = re.compile(rf"([A-Z][A-Za-z ]*[a-z])[ \t]+{_N}")
_LOG_KEYS = (
    "Log sequence number",
    "Log flushed up to",
    "Pages flushed up to",
    "Last checkpoint at",
)


@dataclass(frozen=True)
class BufferPoolInfo:
    """One buffer pool (or the sum of all) as `buf_print_io_instance()` prints it; all in pages.

    Attributes:
        pool_size: `Buffer pool size`, frames in the pool.
        free: `Free buffers`, frames on the free list.
        database_pages: `Database pages`, pages on the LRU list (clean and dirty).
        old_database_pages: `Old database pages`, pages in the old sublist of the LRU.
        modified: `Modified db pages`, dirty pages (flush-list length).
        pending_reads: `Pending reads`.
        pending_writes_lru: `Pending writes: LRU n`.
        pending_writes_flush_list: `..., flush list n`.
        pending_writes_single_page: `..., single page n` (MySQL only; None on MariaDB 10.5+).
        pages_made_young: `Pages made young n` (pages, since start).
        pages_not_made_young: `..., not young n`.
        pages_read: `Pages read n` (pages, since start).
        pages_created: `..., created n`.
        pages_written: `..., written n`.
        line: 1-based line where this pool's block starts.
    """

    pool_size: int
    free: int
    database_pages: int
    modified: int
    old_database_pages: int | None = None
    pending_reads: int | None = None
    pending_writes_lru: int | None = None
    pending_writes_flush_list: int | None = None
    pending_writes_single_page: int | None = None
    pages_made_young: int | None = None
    pages_not_made_young: int | None = None
    pages_read: int | None = None
    pages_created: int | None = None
    pages_written: int | None = None
    line: int | None = None

    @property
    def dirty_pct(self) -> float:
        """Dirty pages in %, as buf_get_modified_ratio_pct() has it: modified / (LRU + free)."""
        return 100.0 * self.modified / (1 + self.database_pages + self.free)


@dataclass(frozen=True)
class InnodbStatus:
    """What `SHOW ENGINE INNODB STATUS` says about the buffer pool and the redo log.

    The pool's state at that moment (free, dirty, LRU pages; checkpoint age) is a possible
    starting state for a simulation; flushsim itself starts from an empty pool.

    Attributes:
        buffer_pool: the BUFFER POOL AND MEMORY totals (pages).
        instances: INDIVIDUAL BUFFER POOL INFO, one per instance; empty when the server has one
            pool (MySQL prints the section only for more than one; MariaDB 10.5+ has one).
        pool_size_bytes: `Buffer pool size, bytes` when printed (some builds), else None.
        max_dirty_pages_pct: `Max dirty pages percent` (MariaDB prints innodb_max_dirty_pages_pct).
        log: every `label number` line of the LOG section, label -> number (LSNs in bytes).
        flavour: "mysql" (MySQL 8.0 LOG lines), "mariadb" (MariaDB 10.5+ lines) or "unknown".
        section_line: 1-based line of the BUFFER POOL AND MEMORY title.
        lines: field -> 1-based line it was read from.
    """

    buffer_pool: BufferPoolInfo
    instances: tuple[BufferPoolInfo, ...] = ()
    pool_size_bytes: int | None = None
    max_dirty_pages_pct: float | None = None
    log: dict[str, int] = field(default_factory=dict, hash=False)
    flavour: str = "unknown"
    section_line: int | None = None
    lines: dict[str, int] = field(default_factory=dict, hash=False, compare=False)

    @property
    def pool_pages(self) -> int:
        """Frames in the buffer pool (pages)."""
        return self.buffer_pool.pool_size

    @property
    def free_pages(self) -> int:
        """Frames on the free list (pages)."""
        return self.buffer_pool.free

    @property
    def dirty_pages(self) -> int:
        """Modified pages waiting on the flush list (pages)."""
        return self.buffer_pool.modified

    @property
    def lru_pages(self) -> int:
        """Pages on the LRU list, clean and dirty (pages)."""
        return self.buffer_pool.database_pages

    @property
    def lsn(self) -> int | None:
        """`Log sequence number` (bytes of redo since the log was created), if printed."""
        return self.log.get("Log sequence number")

    @property
    def last_checkpoint(self) -> int | None:
        """`Last checkpoint at` (LSN, bytes), if printed."""
        return self.log.get("Last checkpoint at")

    @property
    def checkpoint_age(self) -> int | None:
        """Redo written since the last checkpoint (bytes): lsn - last checkpoint."""
        if self.lsn is None or self.last_checkpoint is None:
            return None
        return self.lsn - self.last_checkpoint

    @property
    def start(self) -> dict[str, int | float | None]:
        """The pool's state as a starting point: pages free, dirty, on the LRU; checkpoint age."""
        return {
            "pool_pages": self.pool_pages,
            "free_pages": self.free_pages,
            "lru_pages": self.lru_pages,
            "old_pages": self.buffer_pool.old_database_pages,
            "dirty_pages": self.dirty_pages,
            "dirty_pct": self.buffer_pool.dirty_pct,
            "lsn": self.lsn,
            "checkpoint_age_bytes": self.checkpoint_age,
        }


def _status_lines(text: str | bytes) -> tuple[list[str], bool]:
    """The monitor text as lines, and whether its line breaks came escaped (as backslash-n)."""
    lines = _split_lines(text)
    if any(ln.strip(_WS) == "BUFFER POOL AND MEMORY" for ln in lines):
        return lines, False
    joined = "\n".join(lines)
    if "\\n" in joined:
        # a non-\G client or a program printed the Status column with its line breaks escaped
        joined = re.sub(r"\\([nt\\])", lambda m: {"n": "\n", "t": "\t"}.get(m[1], "\\"), joined)
        return joined.split("\n"), True
    return lines, False


def _section_titles(lines: list[str]) -> dict[int, str]:
    """Line index -> title, for titles framed by rules as srv_printf_innodb_monitor prints them."""
    out: dict[int, str] = {}
    for i in range(1, len(lines) - 1):
        title = lines[i].strip(_WS)
        if (
            title in _TITLES
            and _DASHES.fullmatch(lines[i - 1].strip(_WS))
            and _RULE.fullmatch(lines[i + 1].strip(_WS))
        ):
            out[i] = title
    return out


class _Pool:
    """Fields of one pool block while it is being read."""

    def __init__(self, line: int) -> None:
        self.line = line
        self.values: dict[str, tuple[int | float, ...]] = {}
        self.lines: dict[str, int] = {}

    def read(self, s: str, n: int, raw: str) -> bool:
        for key, prefix, whole in _BP_LINES:
            if prefix.match(s):
                m = whole.fullmatch(s)
                if m is None:
                    raise ConfigParseError(
                        f"a malformed '{prefix.pattern.split('(')[0].rstrip(':')}' line", n, raw
                    )
                conv = float if key == "max_dirty_pct" else int
                self.values[key] = tuple(conv(g) if g is not None else -1 for g in m.groups())
                self.lines[key] = n
                return True
        return False

    def info(self, where: str, raw: str) -> BufferPoolInfo:
        for key, label in _BP_REQUIRED:
            if key not in self.values:
                raise ConfigParseError(f"{where} has no '{label}' line", self.line, raw)

        def get(key: str, i: int = 0) -> int | None:
            v = self.values.get(key)
            return None if v is None or v[i] == -1 else int(v[i])

        return BufferPoolInfo(
            pool_size=int(self.values["pool_size"][0]),
            free=int(self.values["free"][0]),
            database_pages=int(self.values["database_pages"][0]),
            modified=int(self.values["modified"][0]),
            old_database_pages=get("old_database_pages"),
            pending_reads=get("pending_reads"),
            pending_writes_lru=get("pending_writes", 0),
            pending_writes_flush_list=get("pending_writes", 1),
            pending_writes_single_page=get("pending_writes", 2),
            pages_made_young=get("made_young", 0),
            pages_not_made_young=get("made_young", 1),
            pages_read=get("pages_read", 0),
            pages_created=get("pages_read", 1),
            pages_written=get("pages_read", 2),
            line=self.line,
        )


def parse_innodb_status(text: str | bytes) -> InnodbStatus:
    r"""Read the buffer pool and redo log state from pasted `SHOW ENGINE INNODB STATUS` output.

    Accepts the bare monitor text, the `\G` wrapper (`Type: InnoDB`, `Name:`, `Status:`), the
    table form, and the one-line form whose line breaks are escaped as literal `\n`. When the
    text holds several monitor outputs, the last one is read.

    Raises:
        ConfigParseError: no BUFFER POOL AND MEMORY section, a required line missing
            (`Buffer pool size`, `Free buffers`, `Database pages`, `Modified db pages`), or a
            known line whose numbers do not parse; naming the line.
    """
    lines, escaped = _status_lines(text)
    try:
        return _read_status(lines)
    except ConfigParseError as exc:
        if not escaped:
            raise
        reason = exc.reason + " (line numbers count each literal \\n as a line break)"
        raise ConfigParseError(reason, exc.line, exc.text) from None


def _read_status(lines: list[str]) -> InnodbStatus:
    titles = _section_titles(lines)
    section = ""
    total: _Pool | None = None
    pools: list[_Pool] = []
    log: dict[str, int] = {}
    log_lines: dict[str, int] = {}
    for i, raw in enumerate(lines):
        n = i + 1
        if i in titles:
            section = titles[i]
            if section == "BUFFER POOL AND MEMORY":
                total, pools = _Pool(n), []  # a later output replaces an earlier one
            elif section == "LOG":
                log, log_lines = {}, {}
            continue
        s = raw.strip(_WS)
        if section == "BUFFER POOL AND MEMORY" and total is not None:
            total.read(s, n, raw)
        elif section == "INDIVIDUAL BUFFER POOL INFO" and total is not None:
            if _POOL_N.fullmatch(s):
                pools.append(_Pool(n))
            elif s.startswith("---BUFFER POOL"):
                raise ConfigParseError("a malformed '---BUFFER POOL n' line", n, raw)
            elif pools:
                pools[-1].read(s, n, raw)
        elif section == "LOG":
            m = _LOG_LINE.fullmatch(s)
            if m is not None:
                log[m.group(1).strip(_WS)] = int(m.group(2))
                log_lines[m.group(1).strip(_WS)] = n
            elif any(s.startswith(k) for k in _LOG_KEYS):
                raise ConfigParseError("a LOG line whose value is not one number", n, raw)
    if total is None:
        raise ConfigParseError(
            "no 'BUFFER POOL AND MEMORY' section: paste the whole output of SHOW ENGINE INNODB "
            "STATUS (the \\G form is easiest)"
        )
    head = lines[total.line - 1]
    aggregate = total.info("the BUFFER POOL AND MEMORY section", head)
    instances = tuple(
        p.info(f"buffer pool instance at line {p.line}", lines[p.line - 1]) for p in pools
    )
    if "Log buffer assigned up to" in log:
        flavour = "mysql"  # log_print() of MySQL 8.0's lock-free redo log
    elif "max_dirty_pct" in total.values or (
        "pending_writes" in total.values and total.values["pending_writes"][2] == -1
    ):
        flavour = "mariadb"
    else:
        flavour = "unknown"
    bytes_ = total.values.get("pool_size_bytes")
    dirty_max = total.values.get("max_dirty_pct")
    return InnodbStatus(
        buffer_pool=aggregate,
        instances=instances,
        pool_size_bytes=int(bytes_[0]) if bytes_ else None,
        max_dirty_pages_pct=float(dirty_max[0]) if dirty_max else None,
        log=log,
        flavour=flavour,
        section_line=total.line,
        lines={**total.lines, **{f"log:{k}": v for k, v in log_lines.items()}},
    )


# -------------------------------------------------------------------------------- engine version
_VERSION = re.compile(r"([0-9]{1,4})\.([0-9]{1,4})\.([0-9]{1,4})")
# First release of each MariaDB series with MDEV-33613 (user threads no longer flush the LRU):
# 10.6.18 and 10.11.8 per params.py and innodb-flushing.md section 3.3; the 11.x ones from the
# May 2024 release notes (not checked in source).
_MARIADB_NEW_FROM = {(10, 6): 18, (10, 11): 8, (11, 0): 6, (11, 1): 5, (11, 2): 4, (11, 4): 2}


# Percona Server's `version` is "8.0.36-28" (its release after the dash); Oracle's is "8.0.36",
# with "-log" or "-debug" on some builds. `version_comment` says "Percona Server (GPL), ...".
_PERCONA_VERSION = re.compile(r"^\s*[0-9]+\.[0-9]+\.[0-9]+-[0-9]+(?:\.[0-9]+)?\b")
# Percona Server's defaults of the knobs Oracle MySQL lacks: filled in when a Percona server's
# text does not list them (Percona Server 8.0 ha_innodb.cc; params.py has the sources)
_PERCONA_DEFAULTS = {"innodb_cleaner_lsn_age_factor": "high_checkpoint"}
_PERCONA_NOTE = (
    "; Percona Server's innodb_cleaner_lsn_age_factor is modelled (default high_checkpoint), "
    "its LRU manager threads are not (flushsim flushes the LRU as MySQL's page cleaner does)"
)


def is_percona(version: str, comment: str = "") -> bool:
    """Whether a server's `version` / `version_comment` is Percona Server for MySQL's."""
    return "percona" in comment.lower() or _PERCONA_VERSION.match(version) is not None


def _engine_and_note(version: str, comment: str = "") -> tuple[str | None, str]:
    m = _VERSION.search(version)
    if m is None:
        return None, f"version {version!r} has no major.minor.patch number"
    major, minor, patch = (int(g) for g in m.groups())
    mariadb = "mariadb" in (version + " " + comment).lower()
    series = (major, minor)
    if not mariadb:
        if is_percona(version, comment):
            who = f"Percona Server {version.strip()}"
            if series != (8, 0):
                who += ", modelled as 8.0"
            return params.MYSQL80, who + _PERCONA_NOTE
        if series == (8, 0):
            return params.MYSQL80, f"MySQL {m.group(0)}"
        return params.MYSQL80, f"MySQL {m.group(0)}, modelled as MySQL 8.0 (flushsim's only MySQL)"
    if series < (10, 6):
        return (
            params.MARIADB106,
            f"MariaDB {m.group(0)}, modelled as 10.6 (flushsim starts at 10.6)",
        )
    if series in _MARIADB_NEW_FROM:
        new = patch >= _MARIADB_NEW_FROM[series]
    else:
        new = series > (11, 4)  # 10.7-10.10 and 11.3 ended before the change
    engine = params.MARIADB1011 if new else params.MARIADB106
    generation = "10.6.18/10.11.8+" if new else "10.6.0-10.11.7"
    return engine, f"MariaDB {m.group(0)}: the {generation} generation ({engine})"


def mariadb106_release(version: str) -> tuple[str | None, str]:
    """The `version` knob of engine mariadb-10.6 for a server's version string, and a note.

    "10.6.3-MariaDB-log" -> "10.6.3". Releases of other series are mapped to the 10.6 release
    that flushes alike: 10.5 to 10.6.0 (no LRU flushing in the page cleaner); 10.7 to 10.10 to
    10.6.12 before MDEV-26827 reached them (10.8.8, 10.9.6, 10.10.4), else 10.6.13; 11.x
    (before MDEV-33613) to 10.6.17 once MDEV-33053 reached it, else 10.6.13.
    Returns (None, why) when the text holds no version of the 10.6 generation.
    """
    m = _VERSION.search(str(version))
    if m is None:
        return None, f"version {version!r} has no major.minor.patch number: release 10.6.17 assumed"
    major, minor, patch = (int(g) for g in m.groups())
    release = f"{major}.{minor}.{patch}"
    if release in MARIADB106_VERSIONS:
        return release, ""
    if (major, minor) < (10, 6):
        return "10.6.0", f"MariaDB {release} flushes like 10.6.0 here (version = 10.6.0)"
    if (10, 7) <= (major, minor) <= (10, 10):
        fixed = {(10, 8): 8, (10, 9): 6, (10, 10): 4}.get((major, minor))
        alike = "10.6.13" if fixed is not None and patch >= fixed else "10.6.12"
    elif major == 11:
        # MDEV-33053 (the 10.6.17 page cleaner) reached 11.0.5, 11.1.4 and 11.2.3
        fixed = {0: 5, 1: 4, 2: 3}.get(minor, 0)
        alike = "10.6.17" if patch >= fixed else "10.6.13"
    else:
        return None, f"MariaDB {release} is not of the 10.6.0-10.11.7 generation"
    return alike, f"MariaDB {release} flushes like {alike} here (version = {alike})"


def engine_for_version(version: str, version_comment: str = "") -> str:
    """The flushsim engine for a server's `version` (and `version_comment`) variable.

    "8.0.36" -> "mysql-8.0"; MariaDB 10.6.0-10.6.17, 10.7-10.10 and 10.11.0-10.11.7 ->
    "mariadb-10.6"; MariaDB 10.6.18+, 10.11.8+ and later series -> "mariadb-10.11" (params.py:
    from 10.6.18/10.11.8 only the page cleaner flushes the LRU).

    Raises:
        ConfigParseError: when the text holds no major.minor.patch version.
    """
    engine, note = _engine_and_note(str(version), str(version_comment))
    if engine is None:
        raise ConfigParseError(note)
    return engine


# ------------------------------------------------------------------------------ text -> knob value
_INTEGRAL = re.compile(r"[+-]?([0-9]{1,20})(?:\.0*)?")
_FLOAT = re.compile(r"[+-]?(?:[0-9]{1,30}(?:\.[0-9]{0,30})?|\.[0-9]{1,30})(?:[eE][+-]?[0-9]{1,3})?")


def _convert(p: params.Param, text: str) -> object:
    """A server value's text as the knob's Python value (range is checked by params)."""
    s = text.strip(_WS)
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
        negative = s.startswith("-")
        try:
            value = parse_size(s[1:] if negative else s)
        except ConfigParseError:
            m = _INTEGRAL.fullmatch(s)  # MariaDB prints some of these as doubles: "10.000000"
            if m is None:
                raise ValueError(
                    f"{p.name}={text!r} is not a whole number; it must be {p.range_text()}{unit}"
                ) from None
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


# ---------------------------------------------------------------------------------- the readers
def _mycnf_sections(engine: str, version: str | None) -> tuple[str, ...]:
    m = _VERSION.search(version) if version else None
    mm = f"{m.group(1)}.{m.group(2)}" if m else _DEFAULT_VERSION[engine]
    versioned = ("mysqld",) if engine == params.MYSQL80 else _VERSION_GROUPS
    return _GROUPS[engine] + tuple(f"{g}-{mm}" for g in versioned)


def read_mycnf(
    text: str | bytes, engine: str | None = None, *, version: str | None = None, **overrides: object
) -> ConfigReport:
    """Build a Scenario from a my.cnf and report what flushsim does not model.

    Args:
        text: the option file.
        engine: "mysql-8.0", "mariadb-10.6" or "mariadb-10.11"; if None, taken from `version`,
            else assumed mysql-8.0 (stated in the description).
        version: the server's version ("8.0.36", "10.11.9-MariaDB"): picks the engine and the
            version groups ([mysqld-8.0], [mariadb-10.11]) that apply.
        **overrides: knobs (`threads=32`) and Scenario fields (`seconds`, `seed`, `name`) that
            win over the file.

    Raises:
        ConfigParseError: malformed file, or a value flushsim refuses (naming the line).
    """
    notes: list[str] = []
    if engine is None and version is not None:
        engine, engine_note = _engine_and_note(version)
        if engine is None:
            raise ConfigParseError(engine_note)
    elif engine is None:
        engine, engine_note = params.MYSQL80, "not given, assumed mysql-8.0"
    else:
        params.check_engine(engine)
        engine_note = "given"
    if version is None and engine == params.MYSQL80 and engine_note.startswith("not given"):
        sections = DEFAULT_SECTIONS  # unknown server: read the groups of both
        notes.append("Read the groups of both servers: " + ", ".join(DEFAULT_SECTIONS) + ".")
    else:
        sections = _mycnf_sections(engine, version)
    cfg = parse_mycnf(text, sections=sections)
    maria = [g for g in cfg.groups if g.startswith(("mariadb", "galera"))]
    if maria and engine == params.MYSQL80:
        notes.append(
            f"The file has MariaDB groups ({', '.join(maria)}): pass engine='mariadb-10.6' or "
            "'mariadb-10.11' (or version=...) if it is a MariaDB server's."
        )
    for inc in cfg.includes:
        notes.append(f"Not followed: {inc} (read those files too and pass them separately).")
    skipped = [g for g in cfg.groups if g not in {s.lower() for s in sections}]
    if skipped:
        notes.append(
            "Groups the server does not read: " + ", ".join(f"[{g}]" for g in skipped) + "."
        )
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
    percona = version is not None and engine == params.MYSQL80 and is_percona(version)
    if percona:
        extra.update(_PERCONA_DEFAULTS)
    elif engine == params.MYSQL80 and "innodb_cleaner_lsn_age_factor" in cfg.sources:
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
    values, lines = _parse_name_value(text, "SHOW GLOBAL VARIABLES")
    if not values:
        raise ConfigParseError("no variables found: paste the output of SHOW GLOBAL VARIABLES")
    split = _split_lines(text)
    texts = {k: split[n - 1] for k, n in lines.items()}
    lower = {k.lower(): v for k, v in values.items()}
    notes: list[str] = []
    detected, note = (None, "no 'version' variable in the text")
    if "version" in lower:
        detected, note = _engine_and_note(lower["version"], lower.get("version_comment", ""))
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
    percona = engine == params.MYSQL80 and is_percona(
        lower.get("version", ""), lower.get("version_comment", "")
    )
    return _build(
        source="SHOW GLOBAL VARIABLES",
        engine=engine,
        engine_note=engine_note,
        # a Percona Server lists the variable; a partial paste falls back on its default
        extra_knobs=_PERCONA_DEFAULTS if percona else None,
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


def read_innodb_status(
    text: str | bytes, engine: str = params.MYSQL80, **overrides: object
) -> ConfigReport:
    """Build a Scenario from `SHOW ENGINE INNODB STATUS` and report the pool's state.

    `Buffer pool size` (pages) x page size -> innodb_buffer_pool_size (bytes; the page size is
    `innodb_page_size` from the overrides, else 16384, unless the server printed `Buffer pool
    size, bytes`). On MySQL the number of INDIVIDUAL BUFFER POOL INFO blocks (1 when absent) ->
    innodb_buffer_pool_instances; on MariaDB `Max dirty pages percent` ->
    innodb_max_dirty_pages_pct. Free and dirty pages are not knobs: they are in `report.status`.

    Raises:
        ConfigParseError: malformed status, or a value flushsim refuses (naming the line).
    """
    params.check_engine(engine)
    st = parse_innodb_status(text)
    split = _status_lines(text)[0]
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
    if engine == params.MYSQL80:
        values["innodb_buffer_pool_instances"] = str(len(st.instances) or 1)
        first = st.instances[0].line if st.instances else st.section_line
        lines["innodb_buffer_pool_instances"] = first or 0
        if st.flavour == "mariadb":
            notes.append(
                "This status looks like MariaDB's (no 'Log buffer assigned up to' line, no "
                "'single page' writes): pass engine='mariadb-10.6' or 'mariadb-10.11'."
            )
    elif st.instances:
        notes.append(f"{len(st.instances)} buffer pool instances: MariaDB models one pool.")
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
    text: str | bytes, engine: str = params.MYSQL80, **overrides: object
) -> Scenario:
    """A Scenario from `SHOW ENGINE INNODB STATUS`; see `read_innodb_status`.

    Raises:
        ConfigParseError: malformed status or a value flushsim refuses (naming the line).
    """
    return read_innodb_status(text, engine, **overrides).scenario
