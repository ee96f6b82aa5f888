"""A recording and the model on the same axes: one small figure per metric, data in, figure out."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import polars as pl
from bokeh.layouts import gridplot
from bokeh.models import ColumnDataSource, HoverTool, Range1d
from bokeh.plotting import figure

from .style import number_formatter

# Readable titles for the flushing columns (the column name stays in the hover and the y label).
TITLES = {
    "buffer_flush_batch_total_pages": "pages flushed from the flush list /s",
    "buffer_flush_adaptive_total_pages": "adaptive flushing, pages/s",
    "buffer_flush_background_total_pages": "idle (background) flushing, pages/s",
    "buffer_flush_sync_total_pages": "sync (furious) flushing, pages/s",
    "buffer_LRU_batch_flush_total_pages": "LRU batch flushing, pages/s",
    "buffer_pool_wait_free": "waits for a free page /s",
    "buffer_pool_pages_dirty": "dirty pages",
    "buffer_pool_pages_free": "free pages",
    "log_lsn_checkpoint_age": "checkpoint age (bytes)",
}
REAL_COLOR, MODEL_COLOR = "#222222", "#1f77b4"


def side_by_side(
    table: pl.DataFrame,
    *,
    labels: Mapping[str, str] | None = None,
    ncols: int = 2,
    width: int = 420,
    height: int = 220,
):
    """Server and model per second, one figure per metric, all sharing the time axis.

    Args:
        table: `Replay.side_by_side()`: columns time_s, column, real, model (one row per
            second and metric).
        labels: legend names of the two sides (default {"real": "server", "model": "flushsim"}).
        ncols: figures per row.
        width: of each figure, in pixels.
        height: of each figure, in pixels.

    Returns:
        A Bokeh gridplot: the server solid and dark, the model dashed and blue; a click on a
        legend entry hides that line.

    Raises:
        ValueError: the table lacks one of the four columns or has no rows.
    """
    need = ("time_s", "column", "real", "model")
    missing = [c for c in need if c not in table.columns]
    if missing or table.height == 0:
        raise ValueError(f"side_by_side needs Replay.side_by_side()'s columns {need}, with rows")
    names = {"real": "server", "model": "flushsim", **(labels or {})}
    end = float(table["time_s"].max())
    x_range = Range1d(0, end, bounds=(0, end))
    figs = []
    for metric in table["column"].unique(maintain_order=True):
        part = table.filter(pl.col("column") == metric)
        src = ColumnDataSource(
            {
                "time_s": part["time_s"].to_numpy().astype(np.float64),
                "real": part["real"].to_numpy(),
                "model": part["model"].to_numpy(),
            }
        )
        p = figure(
            title=TITLES.get(metric, metric),
            width=width,
            height=height,
            x_range=x_range,
            tools="xpan,xwheel_zoom,reset,save",
            toolbar_location="above",
        )
        p.title.text_font_size = "10pt"
        p.xaxis.axis_label = "time (s)"
        p.yaxis.axis_label = metric if len(metric) <= 28 else metric[:26] + "…"
        p.yaxis.axis_label_text_font_size = "8pt"
        p.yaxis.formatter = number_formatter()
        real = p.line(
            "time_s", "real", source=src, color=REAL_COLOR, line_width=2, legend_label=names["real"]
        )
        model = p.line(
            "time_s",
            "model",
            source=src,
            color=MODEL_COLOR,
            line_width=2,
            line_dash="dashed",
            legend_label=names["model"],
        )
        p.add_tools(
            HoverTool(
                renderers=[real, model],
                tooltips=[
                    ("t", "@time_s s"),
                    (names["real"], "@real{0,0}"),
                    (names["model"], "@model{0,0}"),
                ],
                mode="vline",
            )
        )
        # above the plot, in one row, so that it never covers the curves
        p.legend.orientation = "horizontal"
        p.add_layout(p.legend[0], "above")
        p.legend.label_text_font_size = "8pt"
        p.legend.click_policy = "hide"
        p.legend.spacing = 10
        p.legend.padding = 2
        figs.append(p)
    return gridplot(figs, ncols=ncols)
