"""A stall under the database, in four linked figures: pool, throughput, device, fsyncs."""

from __future__ import annotations

import numpy as np
import polars as pl
from bokeh.layouts import gridplot
from bokeh.models import (
    BoxAnnotation,
    ColumnDataSource,
    HoverTool,
    LinearAxis,
    Range1d,
)

from ..run import Run
from .style import HEIGHT, WIDTH, finish, number_formatter, time_figure

STALL_COLUMNS = (
    "time_s",
    "buffer_pool_pages_free",
    "buffer_pool_pages_dirty",
    "sim_tps",
    "sim_trx_latency_max_ms",
    "w_await_ms",
    "util_pct",
    "sim_fsync_latency_ms",
    "sim_journal_commits_forced",
)


def _twin_axis(p, name: str, top: float, label: str) -> None:
    """Add a right-hand y axis `name` running from 0 to `top` (at least 1)."""
    p.extra_y_ranges = {name: Range1d(0, max(float(top), 1.0) * 1.08)}
    p.add_layout(
        LinearAxis(
            y_range_name=name,
            axis_label=label,
            formatter=number_formatter(),
        ),
        "right",
    )


def stall_timeline(
    data: Run | pl.DataFrame,
    warm_up_s: float = 0.0,
    title: str = "",
    width: int = WIDTH,
    height: int = HEIGHT,
):
    """Four linked figures of one run over time: a stall under the database, part by part.

    1. the buffer pool: free and dirty pages (buffer_pool_pages_free, _dirty);
    2. throughput (sim_tps, transactions/s) and the worst transaction that ended in each second
       (sim_trx_latency_max_ms, drawn in s on the right-hand axis; none where nothing ended);
    3. the device as iostat shows it: w_await (ms) and %util (right-hand axis, %);
    4. fsyncs: their mean latency in each second (sim_fsync_latency_ms, ms) and the fsyncs that
       forced a journal commit (sim_journal_commits_forced, per second, right-hand axis).

    Args:
        data: a Run, or its `series` (any DataFrame with the columns of STALL_COLUMNS).
        warm_up_s: seconds from the start shaded grey (0: none).
        title: prefixed to each figure's title (e.g. the run's label).
        width: of each figure, in pixels.
        height: of each figure, in pixels.

    Returns:
        A Bokeh grid (2 x 2) of the four figures, which share one time axis (s).

    Raises:
        ValueError: a column of STALL_COLUMNS is missing.
    """
    s = data.series if isinstance(data, Run) else data
    missing = [c for c in STALL_COLUMNS if c not in s.columns]
    if missing:
        raise ValueError(f"stall_timeline needs the columns {', '.join(missing)}")
    col = {c: s[c].cast(pl.Float64).fill_null(np.nan).to_numpy() for c in STALL_COLUMNS}
    col["worst_s"] = col["sim_trx_latency_max_ms"] / 1000.0
    src = ColumnDataSource(col, name="stall")
    end = float(col["time_s"][-1]) if len(col["time_s"]) else 1.0
    x = Range1d(0, end, bounds=(0, None))
    head = f"{title}: " if title else ""

    def fig(name: str, y_label: str):
        p = time_figure(head + name, y_label, x)
        p.width, p.height = width, height
        if warm_up_s > 0:
            p.add_layout(
                BoxAnnotation(left=0, right=warm_up_s, fill_color="#999999", fill_alpha=0.15)
            )
        return p

    parts = (
        _pool_part(fig, src, col),
        _work_part(fig, src, col),
        _device_part(fig, src, col),
        _fsync_part(fig, src, col),
    )
    for p in parts:
        finish(p)
    return gridplot([list(parts[:2]), list(parts[2:])], toolbar_location="right")


def _top(col: dict, name: str) -> float:
    """The largest finite value of column `name` (1 when there is none)."""
    v = col[name][np.isfinite(col[name])]
    return float(v.max()) if v.size else 1.0


def _pool_part(fig, src: ColumnDataSource, col: dict) -> object:
    """Part 1: free and dirty pages of the buffer pool."""
    pool = fig("Buffer pool", "pages")
    pool.line(
        "time_s",
        "buffer_pool_pages_free",
        source=src,
        color="#2ca02c",
        line_width=2,
        legend_label="free",
    )
    pool.line(
        "time_s",
        "buffer_pool_pages_dirty",
        source=src,
        color="#d62728",
        line_width=2,
        legend_label="dirty",
    )
    pool.add_tools(
        HoverTool(
            tooltips=[
                ("t", "@time_s s"),
                ("free", "@buffer_pool_pages_free{0,0}"),
                ("dirty", "@buffer_pool_pages_dirty{0,0}"),
            ],
            mode="vline",
        )
    )
    return pool


def _work_part(fig, src: ColumnDataSource, col: dict) -> object:
    """Part 2: throughput, and the worst transaction ended in each second (s, right)."""
    work = fig("Throughput and worst transaction", "transactions/s")
    _twin_axis(work, "worst", _top(col, "worst_s"), "worst transaction (s)")
    work.line(
        "time_s",
        "sim_tps",
        source=src,
        color="#1f77b4",
        line_width=2,
        legend_label="transactions/s",
    )
    work.scatter(
        "time_s",
        "worst_s",
        source=src,
        y_range_name="worst",
        color="#ff7f0e",
        size=6,
        legend_label="worst transaction (s)",
    )
    work.add_tools(
        HoverTool(
            tooltips=[("t", "@time_s s"), ("tps", "@sim_tps{0,0}"), ("worst", "@worst_s{0.000} s")],
            mode="vline",
        )
    )
    return work


def _device_part(fig, src: ColumnDataSource, col: dict) -> object:
    """Part 3: the device as iostat shows it: w_await (ms) and %util (right)."""
    dev = fig("Device (iostat)", "w_await (ms)")
    _twin_axis(dev, "util", max(100.0, _top(col, "util_pct")), "%util")
    dev.line(
        "time_s",
        "w_await_ms",
        source=src,
        color="#9467bd",
        line_width=2,
        legend_label="w_await (ms)",
    )
    dev.line(
        "time_s",
        "util_pct",
        source=src,
        y_range_name="util",
        color="#7f7f7f",
        line_dash="dashed",
        legend_label="%util",
    )
    dev.add_tools(
        HoverTool(
            tooltips=[
                ("t", "@time_s s"),
                ("w_await", "@w_await_ms{0.00} ms"),
                ("util", "@util_pct{0.0} %"),
            ],
            mode="vline",
        )
    )
    return dev


def _fsync_part(fig, src: ColumnDataSource, col: dict) -> object:
    """Part 4: fsync latency (ms) and the fsyncs that forced a journal commit (right)."""
    sync = fig("fsyncs", "fsync latency (ms)")
    _twin_axis(
        sync, "commits", _top(col, "sim_journal_commits_forced"), "journal commits forced /s"
    )
    sync.line(
        "time_s",
        "sim_fsync_latency_ms",
        source=src,
        color="#8c564b",
        line_width=2,
        legend_label="fsync latency (ms)",
    )
    sync.line(
        "time_s",
        "sim_journal_commits_forced",
        source=src,
        y_range_name="commits",
        color="#17becf",
        line_dash="dashed",
        legend_label="journal commits forced /s",
    )
    sync.add_tools(
        HoverTool(
            tooltips=[
                ("t", "@time_s s"),
                ("fsync", "@sim_fsync_latency_ms{0.00} ms"),
                ("forced commits", "@sim_journal_commits_forced{0}"),
            ],
            mode="vline",
        )
    )
    return sync
