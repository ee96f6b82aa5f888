"""Bokeh figures of a sweep: a heatmap over two knobs and the tuning frontier.

Data in, figures out.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import polars as pl
from bokeh.models import (
    ColorBar,
    ColumnDataSource,
    CustomJSTickFormatter,
    HoverTool,
    LinearColorMapper,
)
from bokeh.palettes import Viridis256
from bokeh.plotting import figure

from ..sweep import SUMMARY_COLUMNS
from .style import number_formatter


def _label(column: str) -> str:
    doc = SUMMARY_COLUMNS.get(column)
    return f"{column} ({doc.rsplit('[', 1)[1].rstrip(']')})" if doc and "[" in doc else column


SI_PREFIXES = ("M", "G", "T", "P", "E")  # 10^(3k) for k = 2, 3, ...
_SI_TOP = len(SI_PREFIXES) + 1  # the largest k
_SI_LETTERS = "".join(SI_PREFIXES)

# The colour bar's ticks, as _cell_text prints the cells (BokehJS runs it; no user input in it).
_SI_TICK_JS = f"""
const a = Math.abs(tick);
if (a >= 1e6) {{
    const k = Math.min(Math.floor(Math.log10(a) / 3), {_SI_TOP});
    return parseFloat((tick / 10 ** (3 * k)).toPrecision(3)) + " " + "{_SI_LETTERS}"[k - 2];
}}
return tick.toLocaleString("en-US", {{maximumFractionDigits: 3}});
"""


def _cell_text(v: float) -> str:
    # 6,301 rather than 6.3e+03: whole numbers for throughputs, three digits for ratios, and
    # three digits with an SI prefix from a million up (bytes_written_per_day: "4.21 T")
    if not np.isfinite(v):
        return str(v)
    if abs(v) >= 1e6:
        k = min(int(np.floor(np.log10(abs(v)) / 3)), _SI_TOP)
        return f"{v / 10 ** (3 * k):.3g} {SI_PREFIXES[k - 2]}"
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"


def heatmap(table: pl.DataFrame, x: str, y: str, value: str, *, title: str | None = None):
    """Cells over two knobs coloured by `value` (mean over the rows of each cell, e.g. seeds).

    Each cell prints its value, so the figure reads in greyscale and in a screenshot.
    """
    for name in (x, y, value):
        if name not in table.columns:
            raise ValueError(f"{name!r} is not a column of the sweep table")
    cells = (
        table.group_by([x, y])
        .agg(pl.col(value).mean())
        .sort([x, y])
        .with_columns(pl.col(x).cast(pl.String).alias("_x"), pl.col(y).cast(pl.String).alias("_y"))
    )
    xs = [str(v) for v in table[x].unique(maintain_order=True).sort()]
    ys = [str(v) for v in table[y].unique(maintain_order=True).sort()]
    vals = cells[value].to_numpy().astype(float)
    finite = vals[np.isfinite(vals)]
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    mapper = LinearColorMapper(palette=Viridis256, low=low, high=high if high > low else low + 1)
    src = ColumnDataSource(
        {
            "x": cells["_x"].to_list(),
            "y": cells["_y"].to_list(),
            "value": vals,
            "text": [_cell_text(v) for v in vals],
        }
    )
    p = figure(
        x_range=xs,
        y_range=ys,
        width=520,
        height=380,
        title=title or f"{value} over {x} × {y}",
        toolbar_location=None,
        tools="",
    )
    p.rect(
        "x",
        "y",
        1,
        1,
        source=src,
        fill_color={"field": "value", "transform": mapper},
        line_color="white",
    )
    p.text(
        "x",
        "y",
        text="text",
        source=src,
        text_align="center",
        text_baseline="middle",
        text_font_size="9pt",
        text_color="white",
    )
    ticks = CustomJSTickFormatter(code=_SI_TICK_JS)
    p.add_layout(ColorBar(color_mapper=mapper, title=_label(value), formatter=ticks), "right")
    p.add_tools(HoverTool(tooltips=[(x, "@x"), (y, "@y"), (value, "@value{0,0.000}")]))
    p.xaxis.axis_label = x
    p.yaxis.axis_label = y
    return p


def frontier(
    table: pl.DataFrame,
    knobs: list[str],
    *,
    x: str = "ssd_lifetime_years",
    y: str = "tps_mean",
    current: Mapping[str, object] | None = None,
):
    """All configurations (grey), the Pareto frontier (red) and the current one (a star).

    `table` needs an `on_frontier` column (`flushsim.frontier.pareto`); the current
    configuration is the row whose knobs equal `current`. Hovering shows each configuration's knobs.
    """
    if "on_frontier" not in table.columns:
        raise ValueError("the table has no on_frontier column: call frontier.pareto(table) first")
    data = {c: table[c].to_list() for c in (*knobs, x, y)}
    data["setting"] = [
        ", ".join(f"{k}={row[k]}" for k in knobs) for row in table.iter_rows(named=True)
    ]
    p = figure(
        width=620,
        height=400,
        title=f"The tuning frontier: {y} against {x}",
        tools="pan,wheel_zoom,reset",
    )
    p.scatter(
        x, y, source=ColumnDataSource(data), size=6, color="#bbbbbb", legend_label="configurations"
    )
    front = table.filter(pl.col("on_frontier")).sort(x)
    fsrc = ColumnDataSource(
        {
            x: front[x].to_list(),
            y: front[y].to_list(),
            "setting": [
                ", ".join(f"{k}={row[k]}" for k in knobs) for row in front.iter_rows(named=True)
            ],
        }
    )
    p.line(x, y, source=fsrc, color="#d62728", line_width=2, legend_label="frontier")
    p.scatter(x, y, source=fsrc, size=9, color="#d62728")
    if current:
        match = table
        for k, v in current.items():
            if k in table.columns:
                match = match.filter(pl.col(k) == v)
        if match.height:
            p.scatter(
                match[x].to_list(),
                match[y].to_list(),
                marker="star",
                size=18,
                color="#1f77b4",
                legend_label="your current settings",
            )
    p.add_tools(
        HoverTool(tooltips=[("setting", "@setting"), (y, f"@{y}{{0,0}}"), (x, f"@{x}{{0.00}}")])
    )
    p.xaxis.axis_label = _label(x)
    p.yaxis.axis_label = _label(y)
    for axis in (p.xaxis, p.yaxis):
        axis.formatter = number_formatter()
    p.legend.location = "bottom_left"
    return p
