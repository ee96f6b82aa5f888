"""A MySQL / MariaDB option file (my.cnf), read as the server reads it.

`parse_mycnf` follows the option-file reader of mysys (`my_default.cc`,
`search_default_file_with_ext`): `#`/`;` comment lines, `[group]` headers, `name`, `name=value`,
quotes, escapes and trailing `# comments`; `!include`/`!includedir` are reported, not followed.
Option prefixes (`loose-`, `skip-`, `disable-`, `enable-`) follow my_getopt's `handle_options`;
sizes (`128M`) its `eval_num_suffix`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from .. import params, sizes
from .source_text import WS, ConfigParseError, split_lines
from .versions import VERSION_NUMBER


# ---------------------------------------------------------------------------------------- sizes
def parse_size(text: str) -> int:
    """A size as the server reads it (flushsim.sizes, the one grammar), or a ConfigParseError.

    Raises:
        ConfigParseError: naming the value, if it is not such a number or exceeds 2**64-1.
    """
    try:
        return sizes.parse_size(text)
    except sizes.SizeError as exc:
        raise ConfigParseError(str(exc)) from None


# ---------------------------------------------------------------------------------------- my.cnf
# The groups each server reads (MySQL manual "Using Option Files"; MariaDB KB "Configuring
# MariaDB with Option Files"). Version groups name the server's major.minor version.
_GROUPS = {
    params.MYSQL80: ("mysqld", "server"),
    params.MYSQL84: ("mysqld", "server"),
    params.MARIADB106: ("mysqld", "server", "mariadb", "mariadbd", "client-server", "galera"),
    params.MARIADB1011: ("mysqld", "server", "mariadb", "mariadbd", "client-server", "galera"),
}
# the groups a server also reads with its major.minor appended ([mysqld-8.0], [mariadb-10.11])
_MARIADB_VERSIONED = ("mysqld", "mariadb", "mariadbd")
_VERSIONED = {
    params.MYSQL80: ("mysqld",),
    params.MYSQL84: ("mysqld",),
    params.MARIADB106: _MARIADB_VERSIONED,
    params.MARIADB1011: _MARIADB_VERSIONED,
}
_DEFAULT_VERSION = {
    params.MYSQL80: "8.0",
    params.MYSQL84: "8.4",
    params.MARIADB106: "10.6",
    params.MARIADB1011: "10.11",
}

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
    rest = s[1:].lstrip(WS)
    for keyword in ("includedir", "include"):
        if rest == keyword or (rest.startswith(keyword) and rest[len(keyword)] in WS):
            arg = rest[len(keyword) :].strip(WS)
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
    wanted = {str(s).strip(WS).lower() for s in sections}
    settings: dict[str, str] = {}
    sources: dict[str, Setting] = {}
    includes: list[str] = []
    ignored: list[Setting] = []
    groups: list[str] = []
    section: str | None = None
    for n, raw in enumerate(split_lines(text), 1):
        s = raw.strip(WS)
        if not s or s[0] in "#;":
            continue
        if s[0] == "!":
            includes.append(_directive(s, n, raw))
            continue
        if s[0] == "[":
            end = s.find("]")
            if end < 0:
                raise ConfigParseError("a [group] header without its closing ']'", n, raw)
            section = s[1:end].strip(WS).lower()  # text after ']' is ignored, as by the server
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
            name = name_part.strip(WS)
            value: str | None = _unquote(value_part.strip(WS))
        else:
            name, value = body.strip(WS), None
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


def server_sections(engine: str, version: str | None) -> tuple[str, ...]:
    """The [groups] a server of `engine` reads; version groups use `version`'s major.minor."""
    m = VERSION_NUMBER.search(version) if version else None
    mm = f"{m.group(1)}.{m.group(2)}" if m else _DEFAULT_VERSION[engine]
    versioned = _VERSIONED[engine]
    return _GROUPS[engine] + tuple(f"{g}-{mm}" for g in versioned)
