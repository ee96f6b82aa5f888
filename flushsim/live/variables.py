r"""Pasted `SHOW GLOBAL VARIABLES` / `SHOW GLOBAL STATUS` output, as name -> value text.

The mysql client's ASCII table, its tab-separated batch output (`mysql -B`, with or without `-N`)
and its vertical `\G` output are read; prompts and footers are skipped.
"""

from __future__ import annotations

import re

from .source_text import WS, ConfigParseError, split_lines

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


def parse_name_value(text: str | bytes, what: str) -> tuple[dict[str, str], dict[str, int]]:
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

    for n, raw in enumerate(split_lines(text), 1):
        s = raw.strip(WS)
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
            name, value = cells[0].strip(WS), cells[1].strip(WS)
            open_value = None
            if _is_header(name, value):
                continue
            _check_var_name(name, n, raw)
            values[name], lines[name] = value, n
            continue
        m = _VERTICAL.fullmatch(raw)
        if m is not None:
            key, rest = m.group(1).lower(), m.group(2).strip(WS)
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
            name = name.strip(WS)
            value = _batch_unescape(value.rstrip("\r"))
            open_value = None
            if _is_header(name, value.strip(WS)):
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
    return parse_name_value(text, "SHOW GLOBAL VARIABLES")[0]


def parse_global_status(text: str | bytes) -> dict[str, str]:
    """Parse pasted `SHOW GLOBAL STATUS` output (same forms as `parse_global_variables`).

    Names are kept as printed (`Innodb_buffer_pool_pages_dirty`); values are text.

    Raises:
        ConfigParseError: naming the first line that is not a row of such output.
    """
    return parse_name_value(text, "SHOW GLOBAL STATUS")[0]
