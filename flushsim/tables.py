"""Tables for a room: a polars DataFrame (or a dict of figures) as a plain HTML table.

`show(df, digits=2)` is what the lessons display instead of polars' own rendering: no dtype
row, no shape line, numbers with thousands separators and a fixed number of decimals, so a
projector shows 6,365.28 rather than 6365.283333. It changes only how a table looks: the
lessons' asserts use the DataFrames themselves.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass, field

import polars as pl


def cell_text(value: object, digits: int) -> str:
    """One value as a reader sees it: 6,365.28, 12,000, true, or a dash for a missing value."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if value != value:  # NaN
            return "–"
        return f"{value:,.{digits}f}"
    return str(value)


@dataclass(frozen=True)
class Table:
    """A DataFrame and the decimals of each float column; Jupyter draws it as HTML."""

    frame: pl.DataFrame
    digits: int = 2
    column_digits: Mapping[str, int] = field(default_factory=dict)

    def rows(self) -> list[list[str]]:
        """The cells as text, row by row."""
        places = [self.column_digits.get(name, self.digits) for name in self.frame.columns]
        return [
            [cell_text(value, d) for value, d in zip(row, places, strict=True)]
            for row in self.frame.iter_rows()
        ]

    def _repr_html_(self) -> str:
        numeric = [dtype.is_numeric() for dtype in self.frame.dtypes]
        align = ['style="text-align:right"' if n else 'style="text-align:left"' for n in numeric]
        head = "".join(
            f"<th {a}>{html.escape(name)}</th>"
            for name, a in zip(self.frame.columns, align, strict=True)
        )
        body = "".join(
            "<tr>"
            + "".join(
                f"<td {a}>{html.escape(text)}</td>" for text, a in zip(row, align, strict=True)
            )
            + "</tr>"
            for row in self.rows()
        )
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    def __repr__(self) -> str:
        """Plain text, columns padded, for a terminal or a print()."""
        lines = [list(self.frame.columns), *self.rows()]
        widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
        return "\n".join(
            "  ".join(text.ljust(w) for text, w in zip(line, widths, strict=True)).rstrip()
            for line in lines
        )


def show(data: pl.DataFrame | Mapping[str, object], digits: int = 2, **column_digits: int) -> Table:
    """`data` for display: floats to `digits` decimals, or a column's own (`show(df, 1, years=2)`).

    A dict (one row of figures) is shown as two columns, quantity and value.
    """
    if isinstance(data, Mapping):
        data = pl.DataFrame(
            {"quantity": list(data), "value": [cell_text(v, digits) for v in data.values()]}
        )
    return Table(data, digits, column_digits)


def config_table(report) -> pl.DataFrame:
    """What a config reader made of the server's text (`live.config.ConfigReport`).

    One row per setting: its line, the value as written, and whether flushsim models it; the
    reader's notes follow as rows without a setting. A config read from a file (a my.cnf and
    its includes) has a `file` column first: the file each line is in, as the DBA wrote it.
    """
    rows = [
        {"line": report.lines.get(k), "setting": k, "value": v, "flushsim": "modelled"}
        for k, v in report.modelled.items()
    ]
    rows += [
        {"line": report.lines.get(k), "setting": k, "value": v, "flushsim": "not modelled"}
        for k, v in report.not_modelled.items()
    ]
    rows += [{"line": None, "setting": "", "value": "", "flushsim": n} for n in report.notes]
    schema = {"line": pl.Int64, "setting": pl.String, "value": pl.String, "flushsim": pl.String}
    if report.files:
        rows = [{"file": report.files.get(r["setting"]), **r} for r in rows]
        schema = {"file": pl.String, **schema}
    return pl.DataFrame(rows, schema=schema)


def frame_text(df: pl.DataFrame) -> str:
    """A DataFrame as plain aligned text for a terminal (no dtypes, no shape line)."""
    cells = [[cell_text(v, 2) for v in row] for row in df.iter_rows()]
    widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(df.columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(df.columns, widths, strict=True)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    return "\n".join(lines)
