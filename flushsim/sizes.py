"""Sizes as the server reads them: one grammar for --set, my.cnf, TOML presets and the explorer.

A whole number with an optional K, M, G, T, P or E suffix in either case, powers of 1024:
my_getopt's `eval_num_suffix` (MySQL 8.0 and MariaDB alike), which every integer server
variable goes through at startup. The server looks only at the first character after the
digits, so `4GB` is 4 GiB; flushsim takes that `B` too but refuses any other trailing text,
which the server would ignore or refuse as "Unknown suffix". docs/model.md, "Sizes", has the
table of what is accepted and refused.
"""

from __future__ import annotations

import re

U64_MAX = 2**64 - 1
# the server's whitespace (my_isspace) around a value: space, tab, CR, LF, VT, FF
_WS = " \t\r\n\v\f"
_SIZE = re.compile(r"\+?([0-9]+)(?:([kmgtpeKMGTPE])[bB]?)?")
_SHIFT = {"k": 10, "m": 20, "g": 30, "t": 40, "p": 50, "e": 60}
SUFFIXES = "K, M, G, T, P or E"


class SizeError(ValueError):
    """A value that is not a size the server would read; the message names it and why."""


def parse_size(text: str) -> int:
    """A size as the server reads it: "134217728", "128M", "4g", "4GB", "16k".

    Returns:
        The size in bytes (or the plain number, for a count).

    Raises:
        SizeError: naming the value and the reason (negative, a fraction, an unknown suffix,
            larger than 2**64-1).
    """
    s = str(text).strip(_WS)
    m = _SIZE.fullmatch(s)
    if m is None or len(m.group(1)) > 20:
        raise SizeError(f"{text!r} {_reason(s)}")
    value = int(m.group(1)) << _SHIFT[m.group(2).lower()] if m.group(2) else int(m.group(1))
    if value > U64_MAX:
        raise SizeError(f"{text!r} is larger than {U64_MAX:,}, the server's largest value")
    return value


def _reason(s: str) -> str:
    """Why `s` is refused, in the words a DBA needs to fix it."""
    rule = f"write a whole number with an optional {SUFFIXES} suffix (powers of 1024)"
    if s.startswith("-"):
        return f"is not a number the server takes (sizes cannot be negative): {rule}"
    digits = re.match(r"\+?[0-9]*", s).group(0)
    rest = s[len(digits) :]
    if not digits.lstrip("+"):
        return f"is not a whole number: {rule}"
    if rest[:1] == ".":
        return f"is not a whole number (the server reads no fractions: 1.5G is 1536M): {rule}"
    if rest[:1].lower() not in _SHIFT:
        return f"is not a whole number (unknown suffix {rest[:1]!r}): {rule}"
    number = digits.lstrip("+")
    if rest[0] in "eE" and rest[1:].isdigit() and int(rest[1:]) <= 20:
        # scientific notation: my_getopt takes the `e` for exa and drops the exponent
        return (
            f"is not read as {int(number) * 10 ** int(rest[1:]):,}: the server takes the "
            f"'{rest[0]}' for its exa suffix (2**60) and ignores the {rest[1:]!r} after it, "
            f"so it would read {number}E; {rule}"
        )
    return (
        f"is not a whole number with one suffix (the server would read {number}{rest[0]} "
        f"and ignore the {rest[1:]!r} after it): {rule}"
    )
