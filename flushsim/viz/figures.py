"""Bokeh figures of a run: the explorer's six linked figures, and the lessons' own.

Two layers, so the explorer can update data without rebuilding figures: `sources.run_data`
turns a Run into column dicts, one per named source; `build(sources, ...)` assembles the six
figures over `ColumnDataSource`s with those names (and "<name>_base" twins for a pinned
baseline, drawn dashed), one function per figure. Every time figure shares one time axis
(seconds) and one curtain source that the browser-side player (`player`) moves: one source is
one message per frame where a curtain per figure was twelve. `throughput` and `stall_timeline`
(in `stall`) are the lessons' figures. The data layer, the player and the stall figures are
re-exported here.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from bokeh.layouts import column, gridplot, row
from bokeh.models import (
    AllIndices,
    BoxAnnotation,
    ColumnDataSource,
    CustomJS,
    DataRange1d,
    Div,
    FactorRange,
    GlyphRenderer,
    HoverTool,
    Label,
    LinearAxis,
    Range1d,
    Slider,
    Title,
    Toggle,
)
from bokeh.palettes import Category10_10
from bokeh.plotting import figure

from .. import amplification, ssd
from ..run import Run
from .player import CURTAIN_END, FRAME_MS, PAGE_PATCHES_JS, REGIME_LINES, SLIDER_EVERY, player
from .regimes import regime_changes
from .sources import (
    DEFAULT_DRIVE,
    FLUSH_KINDS,
    LIFETIME_MODELS,
    POOL_CURVES,
    MiB,
    SsdSetting,
    default_ssd,
    empty_data,
    make_sources,
    regime_marks,
    run_data,
    time_data,
    wear_data,
)
from .stall import STALL_COLUMNS, stall_timeline
from .style import HEIGHT, NUMBER_FORMAT, WIDTH, finish, number_formatter, time_figure

__all__ = [
    "CURTAIN_END",
    "DEFAULT_DRIVE",
    "FLUSH_KINDS",
    "FRAME_MS",
    "HEIGHT",
    "NUMBER_FORMAT",
    "PAGE_PATCHES_JS",
    "POOL_CURVES",
    "REGIME_LINES",
    "SLIDER_EVERY",
    "STALL_AXIS_MIN_SPAN",
    "STALL_COLUMNS",
    "WIDTH",
    "Figures",
    "MiB",
    "SsdSetting",
    "amplification_figure",
    "build",
    "default_ssd",
    "empty_data",
    "flush_figure",
    "lifetime_figure",
    "make_sources",
    "number_formatter",
    "pool_figure",
    "redo_figure",
    "regime_marks",
    "regimes_html",
    "reveal",
    "run_data",
    "LIFETIME_HEADLINE",
    "set_time_axis",
    "show_headline",
    "stall_timeline",
    "standalone",
    "throughput",
    "time_data",
    "wear_data",
    "work_figure",
]

Sources = Mapping[str, ColumnDataSource]
"""Named sources as `sources.make_sources` makes them ("pool", "flush", ..., "regimes")."""

# thread-s/s: BokehJS centres the automatic span on the data and start=0 cuts its lower half,
# so a span of 2 keeps the stall axis at 0-1 or taller
STALL_AXIS_MIN_SPAN = 2.0


@dataclass
class Figures:
    """The built layout and the handles the explorer moves.

    `clock` is the animation's time slider (seconds) and `play` its play / pause toggle; both
    run in the browser. Setting `clock.value` from Python reveals up to that second.
    """

    layout: object
    curtain: ColumnDataSource
    x_range: Range1d
    clock: Slider
    play: Toggle
    regimes_text: Div
    headline: Title  # the lifetime figure's headline (`show_headline`)


# A legend copy's visibility goes to the renderer it stands for, found by id (`targets`).
_FOLLOW_VISIBLE = "cb_obj.document.get_model_by_id(targets[cb_obj.id]).visible = cb_obj.visible;"


def _proxy_legends(figs) -> None:
    """Point the figures' legends at data-less copies of their renderers.

    BokehJS 3.9 builds a legend anew (a canvas and elements for every entry, then the page is
    restyled) whenever anything under its items changes, their renderers' data included: 89
    legend rebuilds per slider move of the explorer, 0 with the copies (median slider redraw in
    Voila 126 -> 116 ms). A copy of a renderer on a one-row source of NaN (BokehJS draws no
    swatch for a renderer without data, and no curve, area or bar at NaN) draws the same swatch
    and never changes. Hiding a copy from the legend hides its renderer, as click_policy "hide"
    did: through ids, not model arguments, or the legend would reach the renderer's data again.
    """
    items = [item for p in figs if p.legend for item in p.legend[0].items]
    columns = sorted({c for item in items for r in item.renderers for c in r.data_source.data})
    nan_row = ColumnDataSource({c: [float("nan")] for c in columns})
    targets: dict[str, str] = {}
    follow = CustomJS(args={"targets": targets}, code=_FOLLOW_VISIBLE)
    for p in figs:
        for item in p.legend[0].items if p.legend else []:
            proxies = []
            for r in item.renderers:
                proxy = GlyphRenderer(
                    glyph=r.glyph.clone(),
                    data_source=nan_row,
                    x_range_name=r.x_range_name,
                    y_range_name=r.y_range_name,
                )
                targets[proxy.id] = r.id
                proxy.js_on_change("visible", follow)
                p.renderers.append(proxy)
                proxies.append(proxy)
            item.renderers = proxies


def _curtain(p, curtain: ColumnDataSource) -> None:
    """Hide what the animation has not reached yet, from the shared curtain source."""
    # Drawn after the curves, so on top; strips and spans span the whole height without
    # touching the y range's auto-fit. On the overlay layer: an animation frame then repaints
    # only that layer over the curves' cached canvas, not every glyph of the figure.
    p.vstrip(
        x0="left",
        x1="right",
        source=curtain,
        fill_color="white",
        line_alpha=0.0,
        level="overlay",
    )
    p.vspan(x="left", source=curtain, line_color="#555555", line_dash="dotted", level="overlay")


def _slice_hover(p, source: ColumnDataSource, x: str, tooltips: list[tuple[str, str]]) -> None:
    """A hover box for the row under the pointer (rows 1 apart in `x`): one box, always.

    A vline hover over a line reports each segment it crosses (two at a whole second, one per
    curve: duplicate boxes, and ??? from the renderers whose source lacks a field; stacked
    areas are not hit-tested at all). Here it reads unseen, flat bars one row wide (x
    extents only count in a vline hit), so a point is in exactly one.
    """
    bars = p.vbar(x=x, top=0.0, width=0.98, source=source, fill_alpha=0.0, line_alpha=0.0)
    p.add_tools(HoverTool(renderers=[bars], tooltips=tooltips, mode="vline"))


def pool_figure(cur: Sources, base: Sources, x: Range1d, curtain: ColumnDataSource):
    """Buffer pool pages: free, clean and dirty, with the regime changes numbered on top."""
    pool = time_figure("Buffer pool pages", "pages", x)
    for key, label, color in POOL_CURVES:
        pool.line(
            "time_s",
            key,
            source=base["pool"],
            color="#999999",
            line_dash="dashed",
        )
        pool.line("time_s", key, source=cur["pool"], color=color, line_width=2, legend_label=label)
    _slice_hover(
        pool,
        cur["pool"],
        "time_s",
        [
            ("t", "@time_s s"),
            ("free", "@free{0,0}"),
            ("dirty", "@dirty{0,0}"),
            ("clean", "@clean{0,0}"),
        ],
    )
    if "regimes" in cur:
        pool.scatter(
            "time_s",
            "y",
            source=cur["regimes"],
            marker="inverted_triangle",
            size=14,
            color="#444444",
            alpha=0.8,
        )
        pool.text(
            "time_s",
            "y",
            text="n",
            source=cur["regimes"],
            text_align="center",
            text_baseline="bottom",
            y_offset=-8,
            text_font_size="8pt",
            text_color="white",
        )
    _curtain(pool, curtain)
    finish(pool)
    return pool


def flush_figure(cur: Sources, base: Sources, x: Range1d, curtain: ColumnDataSource):
    """Pages flushed per second, stacked by kind (LRU batch, adaptive, idle, sync, single-page)."""
    fl = time_figure("Pages flushed per second, by kind", "pages/s", x)
    names = [n for n, _, _ in FLUSH_KINDS]
    fl.varea_stack(
        names,
        x="time_s",
        source=cur["flush"],
        color=[c for _, _, c in FLUSH_KINDS],
        legend_label=[label for _, label, _ in FLUSH_KINDS],
        alpha=0.8,
    )
    fl.line(
        "time_s",
        "total",
        source=base["flush"],
        color="#333333",
        line_dash="dashed",
    )
    _slice_hover(
        fl,
        cur["flush"],
        "time_s",
        [("t", "@time_s s"), ("total", "@total{0,0}")]
        + [(label, "@" + n + "{0,0}") for n, label, _ in FLUSH_KINDS],
    )
    _curtain(fl, curtain)
    finish(fl)
    return fl


def redo_figure(cur: Sources, base: Sources, x: Range1d, curtain: ColumnDataSource):
    """Checkpoint age against its async (7/8) and sync (15/16) limits, in MiB of redo."""
    rd = time_figure("Checkpoint age and its limits", "MiB of redo", x)
    rd.line(
        "time_s",
        "age_mib",
        source=base["redo"],
        color="#999999",
        line_dash="dashed",
    )
    rd.line(
        "time_s",
        "age_mib",
        source=cur["redo"],
        color="#1f77b4",
        line_width=2,
        legend_label="checkpoint age",
    )
    rd.line(
        "time_s",
        "async_mib",
        source=cur["redo"],
        color="#ff7f0e",
        line_dash="dashdot",
        legend_label="async limit (7/8)",
    )
    rd.line(
        "time_s",
        "sync_mib",
        source=cur["redo"],
        color="#d62728",
        line_dash="dashdot",
        legend_label="sync limit (15/16)",
    )
    _slice_hover(
        rd,
        cur["redo"],
        "time_s",
        [
            ("t", "@time_s s"),
            ("checkpoint age", "@age_mib{0,0.0} MiB"),
            ("async limit", "@async_mib{0,0.0} MiB"),
            ("sync limit", "@sync_mib{0,0.0} MiB"),
        ],
    )
    _curtain(rd, curtain)
    finish(rd)
    return rd


def work_figure(cur: Sources, base: Sources, x: Range1d, curtain: ColumnDataSource):
    """Throughput (transactions/s) and stalls (waiting thread-s/s, bars on their own axis)."""
    wk = time_figure("Throughput and stalls", "transactions/s", x)
    # Fitted to the stall bars in the page (a stalled pool has dozens of threads waiting), but
    # at least 0-1: a run without stalls (a few ms of waits a second) reads as none, not as
    # an axis of 6e-4 (BokehJS clamps an automatic span to min_interval).
    stall_range = DataRange1d(start=0, min_interval=STALL_AXIS_MIN_SPAN)
    wk.extra_y_ranges = {"stall": stall_range}
    # On the left, beside the tps axis: the curtain (an overlay, not clipped to the frame)
    # covers everything right of the frame, a right-hand axis included.
    wk.add_layout(
        LinearAxis(
            y_range_name="stall",
            axis_label="waiting thread-s/s",
            formatter=number_formatter(),
        ),
        "left",
    )
    stall_range.renderers = [
        wk.vbar(
            x="time_s",
            top="stall_s",
            width=0.8,
            source=cur["work"],
            y_range_name="stall",
            color="#ff7f0e",
            alpha=0.5,
            legend_label="stall (thread-s/s)",
        )
    ]
    wk.line(
        "time_s",
        "sim_tps",
        source=base["work"],
        color="#999999",
        line_dash="dashed",
    )
    wk.line(
        "time_s", "sim_tps", source=cur["work"], color="#2ca02c", line_width=2, legend_label="tps"
    )
    _slice_hover(
        wk,
        cur["work"],
        "time_s",
        [
            ("t", "@time_s s"),
            ("tps", "@sim_tps{0,0}"),
            ("stall", "@stall_s{0.00} thread-s"),
            ("p99", "@sim_trx_latency_p99_ms{0.0} ms"),
        ],
    )
    _curtain(wk, curtain)
    finish(wk)
    return wk


def amplification_figure(cur: Sources, base: Sources):
    """The write-amplification chain: mean MB/s at each stage of the run."""
    wa_range = FactorRange(factors=[label for _, label in amplification.STAGES])
    wa = figure(
        title="Write amplification chain (run mean)",
        width=WIDTH,
        height=HEIGHT,
        y_range=wa_range,
        tools="save",
        toolbar_location="above",
    )
    wa.hbar(
        y="label",
        right="mb_s",
        height=0.35,
        source=base["wa"],
        color="#bbbbbb",
    )
    bars = wa.hbar(
        y="label",
        right="mb_s",
        height=0.6,
        source=cur["wa"],
        color="#8c564b",
        alpha=0.8,
        legend_label="this run",
    )
    wa.text(
        x="mb_s",
        y="label",
        text="factor",
        source=cur["wa"],
        x_offset=4,
        y_offset=6,
        text_font_size="8pt",
    )
    wa.xaxis.axis_label = "MB/s (MiB)"
    # room for the factor labels right of the bars ("x96.36 of rows changed": 35 % of the frame)
    wa.x_range.range_padding = 1.6
    wa.x_range.start = 0
    wa.add_tools(
        HoverTool(
            renderers=[bars],
            tooltips=[("stage", "@label"), ("MB/s", "@mb_s{0.00}"), ("factor", "@factor")],
        )
    )
    finish(wa, "bottom_right")
    return wa


def lifetime_figure(cur: Sources, base: Sources):
    """Projected SSD lifetime against fill factor: two FTL models, this run's point marked.

    Each curve is named for what its model assumes (`ssd.MODEL_NAMES`); the point is the
    headline's (`lifetime.Lifetime.headline`), which a line under the title gives in words.
    """
    sd = figure(
        title="Projected SSD lifetime vs fill factor",
        width=WIDTH,
        height=HEIGHT,
        tools="save,reset",
        toolbar_location="above",
        x_range=Range1d(0, 95),
    )
    main, seed = LIFETIME_MODELS
    sd.line("fill_pct", main, source=base["ssd"], color="#999999", line_dash="dashed")
    sd.line(
        "fill_pct",
        main,
        source=cur["ssd"],
        color="#17becf",
        line_width=2,
        legend_label=ssd.MODEL_NAMES[main],
    )
    sd.line(
        "fill_pct",
        seed,
        source=cur["ssd"],
        color="#e377c2",
        line_width=2,
        line_dash="dotted",
        legend_label=ssd.MODEL_NAMES[seed],
    )
    sd.scatter(
        "fill_pct", "years", source=cur["ssd_now"], size=9, color="black", legend_label="this run"
    )
    # the headline under the title (`show_headline`): a legend cannot follow data (_proxy_legends)
    sd.add_layout(
        Title(text="", name=LIFETIME_HEADLINE, text_font_size="9pt", text_font_style="bold"),
        "above",
    )
    sd.xaxis.axis_label = "drive fill factor (%)"
    sd.yaxis.axis_label = "years until rated endurance"
    sd.yaxis.formatter = number_formatter()  # a near-idle server's drive lasts 10^5 years
    _slice_hover(  # the fills are 1 % apart (sources.wear_data)
        sd,
        cur["ssd"],
        "fill_pct",
        [
            ("fill", "@fill_pct{0} %"),
            *((ssd.MODEL_NAMES[m], f"@{{{m}}}{{0,0.0}} years") for m in LIFETIME_MODELS),
        ],
    )
    finish(sd, "bottom_left")
    return sd


LIFETIME_HEADLINE = "lifetime_headline"
"""The name of the lifetime figure's line under its title."""


def show_headline(figs: Figures, ssd_now: Mapping[str, list]) -> None:
    """Put the lifetime headline of the "ssd_now" columns (`wear_data`) under the title."""
    labels = ssd_now["label"]
    # two lines: the sentence is wider than the figure
    text = labels[0].replace(" at this load", "\nat this load") if labels else ""
    figs.headline.text = text


def build(cur: Sources, base: Sources | None = None) -> Figures:
    """The explorer's figures over sources named like `run_data`'s keys.

    `base` holds a pinned run (same names with "_base"), drawn dashed and grey.
    """
    base = base or make_sources(empty_data(), "_base")
    x = Range1d(0, 60, bounds=(0, None))
    # One row: the animation's second (`left`); the strip runs from it past the axis' end.
    curtain = ColumnDataSource({"left": [x.end], "right": [CURTAIN_END]}, name="curtain")
    figs = (
        pool_figure(cur, base, x, curtain),
        flush_figure(cur, base, x, curtain),
        redo_figure(cur, base, x, curtain),
        work_figure(cur, base, x, curtain),
        amplification_figure(cur, base),
        lifetime_figure(cur, base),
    )
    _proxy_legends(figs)
    grid = gridplot([list(figs[0:2]), list(figs[2:4]), list(figs[4:6])], toolbar_location=None)
    _slim(grid)
    clock, play, text = player(curtain, cur.get("regimes"), cur["pool"], cur.get("help"))
    return Figures(
        layout=column(grid, row(play, clock), text),
        curtain=curtain,
        x_range=x,
        clock=clock,
        play=play,
        regimes_text=text,
        # found once: a select_one walks every model of the layout, most of the 40-70 ms a
        # whole run's redraw took in the kernel (6 ms without)
        headline=grid.select_one({"name": LIFETIME_HEADLINE}),
    )


def _slim(layout) -> None:
    """Drop the models no one sees, so the document is smaller to send and to build in a page.

    The figures have no selection tools and their legends hide rather than mute, so a glyph's
    non-selection and muted copies are never drawn; every view shows all rows, so one
    AllIndices filter serves them all. About a sixth of the explorer's Bokeh models.
    """
    every_row = AllIndices()
    for r in layout.select({"type": GlyphRenderer}):
        r.nonselection_glyph = None
        r.muted_glyph = None
        r.view.filter = every_row


def set_time_axis(figs: Figures, seconds: float) -> None:
    """Fit the shared time axis and the player's slider to a run of `seconds` seconds."""
    figs.x_range.start, figs.x_range.end = 0, seconds
    figs.clock.end = max(seconds, 1)


def reveal(figs: Figures, t: float) -> None:
    """Show the curves up to second `t` (the animation's frame).

    Sets the curtain here too, so that a document rendered from Python state (a standalone
    file, a fresh view) starts at `t` before any browser callback has run.
    """
    figs.curtain.data = {"left": [t], "right": [CURTAIN_END]}
    value = min(max(t, figs.clock.start), figs.clock.end)
    if figs.clock.value == value:
        # The page's player moves its slider without telling Python (_LOCAL_ONLY): the page
        # may show another second, so the value is sent even though it did not change here.
        figs.clock.trigger("value", value, value)
    else:
        figs.clock.value = value


def regimes_html(regimes: Mapping[str, list], t: float) -> str:
    """The regime changes reached by second `t`, as the player lists them in the browser."""
    items = "".join(
        f"<li><b>{i + 1}</b> at {at} s: {html.escape(text, quote=False)}</li>"
        for i, (at, text) in enumerate(zip(regimes["at"], regimes["text"], strict=True))
        if at <= t
    )
    return f'<ol style="margin:0;padding-left:0;list-style:none">{items}</ol>'


def standalone(run: Run, setting: SsdSetting | None = None, baseline: Run | None = None):
    """The same figures for one run (and an optional baseline), fully revealed, no widgets."""
    data = run_data(run, setting)
    data["regimes"] = regime_marks(run, regime_changes(run))
    figs = build(
        make_sources(data),
        make_sources(run_data(baseline, setting), "_base") if baseline else None,
    )
    set_time_axis(figs, run.series.height)
    reveal(figs, run.series.height)
    figs.regimes_text.text = regimes_html(data["regimes"], run.series.height)
    show_headline(figs, data["ssd_now"])
    return figs


def throughput(
    runs: Mapping[str, Run],
    warm_up_s: float = 0.0,
    title: str = "Transactions per second",
    width: int = 820,
    height: int = 300,
):
    """Per-second throughput (`sim_tps`) of several runs on one time axis, one line each.

    Args:
        runs: {legend label: run}, drawn in that order (Category10 colours).
        warm_up_s: seconds from the start shaded grey: the warm-up a lesson leaves out of its
            measures (0: no shading).
        title: the figure's title.
        width: in pixels.
        height: in pixels.

    Returns:
        A Bokeh figure (x: simulated time in s, y: transactions/s); a click on a legend entry
        hides its line.

    Raises:
        ValueError: no runs, or more than 10 (the palette's size).
    """
    if not runs or len(runs) > len(Category10_10):
        raise ValueError(f"throughput() draws 1 to {len(Category10_10)} runs, not {len(runs)}")
    end = max(r.series.height for r in runs.values())
    p = time_figure(title, "transactions/s", Range1d(0, end, bounds=(0, None)))
    p.width, p.height = width, height
    if warm_up_s > 0:
        p.add_layout(BoxAnnotation(left=0, right=warm_up_s, fill_color="#999999", fill_alpha=0.15))
        p.add_layout(
            Label(x=1, y=8, x_units="data", y_units="screen", text="warm-up", text_font_size="8pt")
        )
    lines = []
    for (label, run), color in zip(runs.items(), Category10_10, strict=False):
        s = run.series
        src = ColumnDataSource(
            {
                "time_s": s["time_s"].to_numpy().astype(np.float64),
                "sim_tps": s["sim_tps"].to_numpy().astype(np.float64),
                "run": [label] * s.height,
            },
            name=f"tps {label}",
        )
        lines.append(
            p.line("time_s", "sim_tps", source=src, color=color, line_width=2, legend_label=label)
        )
    p.add_tools(
        HoverTool(
            renderers=lines,
            tooltips=[("run", "@run"), ("t", "@time_s s"), ("tps", "@sim_tps{0,0}")],
        )
    )
    finish(p)
    return p
