"""Bokeh figures of a run: data in, figures out.

Two layers, so the explorer can update data without rebuilding figures:
- `run_data(run, ...)` turns a Run into plain column dicts, one per named source
  ("pool", "flush", "redo", "work", "wa", "ssd"): the only place that knows which InnoDB metric
  feeds which curve;
- `build(sources, ...)` builds the linked figures over `ColumnDataSource`s with those names (and
  "<name>_base" twins for a pinned baseline, drawn dashed).

Every figure shares one time axis (seconds). A "curtain" (a white strip from the animation's
current second to the right edge, with a dotted line at its edge) reveals the curves
progressively. The animation runs in the browser: a Bokeh play toggle and time slider move the
curtain and list the regime changes reached through one CustomJS callback. All time figures draw
their curtain from one shared ColumnDataSource, because jupyter_bokeh sends every property the
browser changes back to the kernel: one source is one message per frame, where a curtain and a
line per figure were twelve (and kept the kernel busy while the next knob change waited).
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import polars as pl
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
    NumeralTickFormatter,
    Range1d,
    Slider,
    Toggle,
)
from bokeh.palettes import Category10_10
from bokeh.plotting import figure

from .. import amplification, ssd
from ..run import Run
from .regimes import regime_changes

MiB = 1024 * 1024
CURTAIN_END = 1e9  # seconds: the curtain's right edge, beyond any run
# thread-s/s: BokehJS centres the automatic span on the data and start=0 cuts its lower half,
# so a span of 2 keeps the stall axis at 0-1 or taller
STALL_AXIS_MIN_SPAN = 2.0
# Axis numbers as a DBA reads them (2,500,000 pages, 0.25 thread-s/s): Bokeh's default switches
# to 2.500e+6 above 10^5, which a 35 GiB pool's page counts reach.
NUMBER_FORMAT = "0,0.[00]"


def number_formatter() -> NumeralTickFormatter:
    """A tick formatter for NUMBER_FORMAT (one per axis: Bokeh models belong to one document)."""
    return NumeralTickFormatter(format=NUMBER_FORMAT)


# Pages flushed per second by who flushed them (InnoDB's counters; single-page flushes by user
# threads are flushsim's `sim_single_page_flushes`, InnoDB counts only their scans).
FLUSH_KINDS = (
    ("buffer_LRU_batch_flush_total_pages", "LRU batch", "#d62728"),
    ("buffer_flush_adaptive_total_pages", "adaptive", "#1f77b4"),
    ("buffer_flush_background_total_pages", "idle", "#2ca02c"),
    ("buffer_flush_sync_total_pages", "sync", "#9467bd"),
    ("sim_single_page_flushes", "single-page", "#ff7f0e"),
)
POOL_CURVES = (
    ("free", "free", "#2ca02c"),
    ("clean", "clean (data - dirty)", "#7f7f7f"),
    ("dirty", "dirty", "#d62728"),
)
WIDTH, HEIGHT = 410, 260


@dataclass(frozen=True)
class SsdSetting:
    """The drive the run writes to, for the wear figures.

    Attributes:
        drive: a catalog drive (`flushsim.ssd.drive(name)`).
        fill: fraction of the drive's capacity holding data, 0 <= fill < 1.
    """

    drive: ssd.Drive
    fill: float = 0.5


DEFAULT_DRIVE = "intel-dc-p4610-1.6tb"


def default_ssd() -> SsdSetting:
    """Seed 004's drive, half full."""
    return SsdSetting(ssd.drive(DEFAULT_DRIVE), 0.5)


# ---------------------------------------------------------------------------------------- data
def run_data(run: Run, setting: SsdSetting | None = None) -> dict[str, dict[str, np.ndarray]]:
    """Column dicts for every named source of `build`, from one run."""
    return {**time_data(run), **wear_data(run, setting)}


def time_data(run: Run) -> dict[str, dict[str, np.ndarray]]:
    """Column dicts of the animated time figures ("pool", "flush", "redo", "work"), per second."""
    s = run.series
    t = s["time_s"].to_numpy().astype(np.float64)
    used = {
        "buffer_pool_pages_free",
        "buffer_pool_pages_data",
        "buffer_pool_pages_dirty",
        "log_lsn_checkpoint_age",
        "log_max_modified_age_async",
        "log_max_modified_age_sync",
        "sim_tps",
        "sim_free_wait_ms",
        "sim_redo_wait_ms",
        "sim_trx_latency_p99_ms",
        *(name for name, _, _ in FLUSH_KINDS),
    }
    col = {name: s[name].to_numpy().astype(np.float64) for name in used}
    pool = {
        "time_s": t,
        "buffer_pool_pages_free": col["buffer_pool_pages_free"],
        "buffer_pool_pages_dirty": col["buffer_pool_pages_dirty"],
        "free": col["buffer_pool_pages_free"],
        "clean": col["buffer_pool_pages_data"] - col["buffer_pool_pages_dirty"],
        "dirty": col["buffer_pool_pages_dirty"],
    }
    flush = {"time_s": t}
    for name, _, _ in FLUSH_KINDS:
        flush[name] = col[name]
    flush["total"] = np.sum([col[name] for name, _, _ in FLUSH_KINDS], axis=0)
    redo = {
        "time_s": t,
        "age_mib": col["log_lsn_checkpoint_age"] / MiB,
        "async_mib": col["log_max_modified_age_async"] / MiB,
        "sync_mib": col["log_max_modified_age_sync"] / MiB,
    }
    # Thread-seconds spent waiting per second: > 1 means more than one thread stalled on average.
    work = {
        "time_s": t,
        "sim_tps": col["sim_tps"],
        "stall_s": (col["sim_free_wait_ms"] + col["sim_redo_wait_ms"]) / 1000.0,
        "sim_trx_latency_p99_ms": np.nan_to_num(col["sim_trx_latency_p99_ms"]),
    }
    return {"pool": pool, "flush": flush, "redo": redo, "work": work}


def wear_data(run: Run, setting: SsdSetting | None = None) -> dict[str, dict[str, object]]:
    """Column dicts of the whole-run figures ("wa", "ssd", "ssd_now") for the drive `setting`."""
    setting = setting or default_ssd()
    wa_factor = float(ssd.write_amplification(setting.fill, model="desnoyers-greedy"))
    tot = amplification.totals(run, wa_factor)
    wa = {
        "label": tot["label"].to_list(),
        "mb_s": (tot["bytes_per_s"] / MiB).to_numpy(),
        "factor": [("" if f is None else f"x{f:.2f}") for f in tot["factor"].to_list()],
    }
    db_bytes_per_s = float(tot.filter(pl.col("stage") == "db_bytes")["bytes_per_s"][0])
    fills = np.linspace(0.0, 0.95, 96)
    sd = {"fill_pct": fills * 100.0}
    for model in ("seed004", "desnoyers-greedy"):
        sd[model] = _years(db_bytes_per_s, setting, fills, model)
    marker = {
        "fill_pct": [setting.fill * 100.0] * 2,
        "years": [
            float(_years(db_bytes_per_s, setting, np.array([setting.fill]), m)[0])
            for m in ("seed004", "desnoyers-greedy")
        ],
        "model": ["seed 004", "Desnoyers greedy"],
    }
    return {"wa": wa, "ssd": sd, "ssd_now": marker}


def _years(write_bytes_per_s: float, setting: SsdSetting, fills: np.ndarray, model: str):
    years = setting.drive.lifetime_years(write_bytes_per_s, fill=fills, model=model)
    # Plotting needs finite numbers: an idle run would last forever; cap at a century.
    return np.minimum(np.nan_to_num(np.asarray(years, dtype=np.float64), posinf=100.0), 100.0)


def empty_data() -> dict[str, dict[str, list]]:
    """Sources of the right shape with no rows (the pinned baseline before anything is pinned)."""
    return {
        "pool": {
            k: []
            for k in (
                "time_s",
                "buffer_pool_pages_free",
                "buffer_pool_pages_dirty",
                "free",
                "clean",
                "dirty",
            )
        },
        "flush": {k: [] for k in ("time_s", "total", *(n for n, _, _ in FLUSH_KINDS))},
        "redo": {k: [] for k in ("time_s", "age_mib", "async_mib", "sync_mib")},
        "work": {k: [] for k in ("time_s", "sim_tps", "stall_s", "sim_trx_latency_p99_ms")},
        "wa": {"label": [], "mb_s": [], "factor": []},
        "ssd": {"fill_pct": [], "seed004": [], "desnoyers-greedy": []},
        "ssd_now": {"fill_pct": [], "years": [], "model": []},
        "regimes": {"time_s": [], "y": [], "n": [], "at": [], "text": []},
    }


def regime_marks(run: Run, table: pl.DataFrame) -> dict[str, list]:
    """Numbered markers for the regime changes along the top of the pool figure, and their words.

    `at` is the second the change is reported at (the table's `time_s`), `text` the words.
    """
    top = float(run.series["buffer_pool_pages_total"].max())
    return {
        "time_s": [float(t) - 0.5 for t in table["time_s"]],
        "y": [top * 1.04] * table.height,
        "n": [str(i + 1) for i in range(table.height)],
        "at": [int(t) for t in table["time_s"]],
        "text": table["text"].to_list(),
    }


def make_sources(data: Mapping[str, Mapping], suffix: str = "") -> dict[str, ColumnDataSource]:
    """One named ColumnDataSource per entry of `run_data` (or `empty_data`)."""
    return {
        key: ColumnDataSource(
            data={k: list(v) if isinstance(v, list) else v for k, v in d.items()}, name=key + suffix
        )
        for key, d in data.items()
    }


# ------------------------------------------------------------------------------------- figures
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


def _time_figure(title: str, y_label: str, x_range=None):
    p = figure(
        title=title,
        width=WIDTH,
        height=HEIGHT,
        x_range=x_range if x_range is not None else Range1d(0, 1),
        tools="xpan,xwheel_zoom,reset,save",
        toolbar_location="above",
    )
    p.xaxis.axis_label = "simulated time (s)"
    p.yaxis.axis_label = y_label
    p.yaxis.formatter = number_formatter()
    p.title.text_font_size = "11pt"
    return p


def _finish(p, legend_loc="above"):
    # Legends sit above the plot, in one row, so they never cover the curves.
    if p.legend:
        if legend_loc == "above":
            p.legend.orientation = "horizontal"
            p.add_layout(p.legend[0], "above")
        else:
            p.legend.location = legend_loc
        p.legend.click_policy = "hide"
        p.legend.label_text_font_size = "8pt"
        p.legend.background_fill_alpha = 0.7
        p.legend.spacing = 0
        p.legend.padding = 4


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


def build(
    cur: Mapping[str, ColumnDataSource], base: Mapping[str, ColumnDataSource] | None = None
) -> Figures:
    """The explorer's figures over sources named like `run_data`'s keys.

    `base` holds a pinned run (same names with "_base"), drawn dashed and grey.
    """
    base = base or make_sources(empty_data(), "_base")
    x = Range1d(0, 60, bounds=(0, None))
    # One row: the animation's second (`left`); the strip runs from it past the axis' end.
    curtain_src = ColumnDataSource({"left": [x.end], "right": [CURTAIN_END]}, name="curtain")

    def curtain(p):
        # Hides what the animation has not reached yet: drawn after the curves, so on top;
        # strips and spans span the whole height without touching the y range's auto-fit.
        # On the overlay layer: an animation frame then repaints only that layer over the
        # curves' cached canvas, not every glyph of the figure.
        p.vstrip(
            x0="left",
            x1="right",
            source=curtain_src,
            fill_color="white",
            line_alpha=0.0,
            level="overlay",
        )
        p.vspan(
            x="left", source=curtain_src, line_color="#555555", line_dash="dotted", level="overlay"
        )

    # Pool: free / clean / dirty pages.
    pool = _time_figure("Buffer pool pages", "pages", x)
    for key, label, color in POOL_CURVES:
        pool.line(
            "time_s",
            key,
            source=base["pool"],
            color="#999999",
            line_dash="dashed",
        )
        pool.line("time_s", key, source=cur["pool"], color=color, line_width=2, legend_label=label)
    pool.add_tools(
        HoverTool(
            tooltips=[
                ("t", "@time_s s"),
                ("free", "@free{0,0}"),
                ("dirty", "@dirty{0,0}"),
                ("clean", "@clean{0,0}"),
            ],
            mode="vline",
        )
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
    curtain(pool)
    _finish(pool)

    # Pages flushed per second, stacked by kind.
    fl = _time_figure("Pages flushed per second, by kind", "pages/s", x)
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
    fl.add_tools(
        HoverTool(
            tooltips=[("t", "@time_s s"), ("total", "@total{0,0}")]
            + [(label, "@" + n + "{0,0}") for n, label, _ in FLUSH_KINDS],
            mode="vline",
        )
    )
    curtain(fl)
    _finish(fl)

    # Checkpoint age against the async and sync limits.
    rd = _time_figure("Checkpoint age and its limits", "MiB of redo", x)
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
    curtain(rd)
    _finish(rd)

    # Throughput and stall time.
    wk = _time_figure("Throughput and stalls", "transactions/s", x)
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
    wk.add_tools(
        HoverTool(
            tooltips=[
                ("t", "@time_s s"),
                ("tps", "@sim_tps{0,0}"),
                ("stall", "@stall_s{0.00} thread-s"),
                ("p99", "@sim_trx_latency_p99_ms{0.0} ms"),
            ],
            mode="vline",
        )
    )
    curtain(wk)
    _finish(wk)

    # Write amplification chain: mean MB/s at each stage.
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
    wa.hbar(
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
    wa.x_range.range_padding = 0.3  # room for the factor labels right of the bars
    wa.x_range.start = 0
    wa.add_tools(
        HoverTool(
            tooltips=[("stage", "@label"), ("MB/s", "@mb_s{0.00}"), ("over previous", "@factor")]
        )
    )
    _finish(wa, "bottom_right")

    # Projected SSD lifetime against fill factor, both models, current fill marked.
    sd = figure(
        title="Projected SSD lifetime vs fill factor",
        width=WIDTH,
        height=HEIGHT,
        tools="save,reset",
        toolbar_location="above",
        x_range=Range1d(0, 95),
    )
    sd.line(
        "fill_pct",
        "seed004",
        source=base["ssd"],
        color="#999999",
        line_dash="dashed",
    )
    sd.line(
        "fill_pct",
        "seed004",
        source=cur["ssd"],
        color="#e377c2",
        line_width=2,
        legend_label="seed 004 model",
    )
    sd.line(
        "fill_pct",
        "desnoyers-greedy",
        source=cur["ssd"],
        color="#17becf",
        line_width=2,
        legend_label="Desnoyers (greedy FTL)",
    )
    sd.scatter(
        "fill_pct",
        "years",
        source=cur["ssd_now"],
        size=9,
        color="black",
        legend_label="this drive now",
    )
    sd.xaxis.axis_label = "drive fill factor (%)"
    sd.yaxis.axis_label = "years until rated endurance"
    sd.yaxis.formatter = number_formatter()  # a near-idle server's drive lasts 10^5 years
    sd.add_tools(HoverTool(tooltips=[("fill", "@fill_pct{0} %"), ("years", "@years{0.0}")]))
    _finish(sd, "bottom_left")

    _proxy_legends((pool, fl, rd, wk, wa, sd))
    grid = gridplot([[pool, fl], [rd, wk], [wa, sd]], toolbar_location=None)
    _slim(grid)
    clock, play, text = _player(curtain_src, cur.get("regimes"), cur["pool"])
    return Figures(
        layout=column(grid, row(play, clock), text),
        curtain=curtain_src,
        x_range=x,
        clock=clock,
        play=play,
        regimes_text=text,
    )


FRAME_MS = 60  # one simulated second per 60 ms of animation

REGIME_LINES = 6  # the regime list's height, in lines

SLIDER_EVERY = 4  # animation frames per move of the time slider (each move rebuilds its DOM)

# BokehJS 3.9 reads the page's style (getComputedStyle) every time it paints or checks whether
# an axis changed size, i.e. after every data change and animation frame: each text, line and
# fill value is looked up in CSS custom properties (`--bk-*`), and each axis label asks the
# plot for its font size. flushsim's pages set no such property and never change the plots'
# font size; but with a DOM dirtied by widget updates each read makes the browser restyle the
# page. In chromium traces of slider moves these reads took about a quarter of the browser's
# busy time. Answer "" for the custom properties and keep each plot's font size once read.
_STYLE_READS_OFF = r"""
if (!window.__flushsim_style_reads_off && window.Bokeh && window.Bokeh.require) {
    window.__flushsim_style_reads_off = true;
    try {
        const visual = window.Bokeh.require("core/visuals/visual");
        visual.VisualProperties.prototype._get_css_value = function () { return ""; };
        const plot = window.Bokeh.require("models/plots/plot_canvas").PlotView.prototype;
        const read = Object.getOwnPropertyDescriptor(plot, "base_font_size").get;
        Object.defineProperty(plot, "base_font_size", {
            configurable: true,
            get() {
                if (this.__flushsim_font_px == null) { this.__flushsim_font_px = read.call(this); }
                return this.__flushsim_font_px;
            },
        });
    } catch (e) { console.debug("flushsim: BokehJS style reads left as they are", e); }
}
"""

# The player's frames (curtain, time slider, pausing) are the page's own state: the kernel never
# reads them back, so they are set with sync: false and stay in the page. jupyter_bokeh sends
# every change of a page's document to the kernel, sync or not, the changes a kernel's patch
# just made included (Bokeh's own server client drops both: `event.sync` is false for them).
# During an animation that was 20-30 messages a second for the kernel to decode and ignore,
# queued ahead of the next knob change, and each re-run's data came back whole. Drop them.
# The same goes for the y axes' extents, which BokehJS computes from the data (DataRange1d
# start and end) after every data change: 10-12 messages per knob change, each serialised
# against every model of the document in the page and decoded the same way in the kernel,
# which never reads them.
_LOCAL_ONLY = r"""
const LOCAL = {sync: false};
if (!window.__flushsim_local_only && window.Bokeh && window.Bokeh.require) {
    window.__flushsim_local_only = true;
    try {
        const doc = window.Bokeh.require("document/document").Document.prototype;
        const auto = window.Bokeh.require("models/ranges/data_range1d").DataRange1d;
        const Batch = window.Bokeh.require("document/events").DocumentEventBatch;
        const keep = (e) => e.sync !== false &&
            !(e.model instanceof auto && (e.attr === "start" || e.attr === "end"));
        const trigger = doc._trigger_on_change;
        doc._trigger_on_change = function (event) {
            if (event instanceof Batch) {  // a setv of several properties
                const events = event.events.filter(keep);
                if (events.length === 0) { return; }
                if (events.length < event.events.length) { event = new Batch(this, events); }
            } else if (!keep(event)) {
                return;
            }
            trigger.call(this, event);
        };
    } catch (e) { console.debug("flushsim: the player's frames are sent to the kernel", e); }
}
"""

# Both patches as a page's own script (notebook.output_notebook), in place before the first
# document paints; the players install them too, for pages that load BokehJS another way. With
# BOKEH_RESOURCES=cdn BokehJS arrives after this runs: wait for it (for up to 10 s).
PAGE_PATCHES_JS = (
    "(function patch(tries) {\n"
    "if (!(window.Bokeh && window.Bokeh.require)) {\n"
    "    if (tries > 0) { setTimeout(() => patch(tries - 1), 20); }\n"
    "    return;\n"
    "}\n" + _STYLE_READS_OFF + _LOCAL_ONLY + "})(500);\n"
)

# Shown up to second t: the curtain's edge and the regime changes reached (both snippets use it).
_REVEAL_FN = (
    _STYLE_READS_OFF
    + _LOCAL_ONLY
    + r"""
function reveal(t) {
    if (curtain.data.left[0] !== t) {
        curtain.setv({data: {left: [t], right: [curtain_end]}}, LOCAL);
    }
    if (regimes === null) { return; }
    const at = regimes.data.at, text = regimes.data.text;
    const esc = s => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;');
    let items = "";
    for (let i = 0; i < at.length; i++) {
        if (at[i] <= t) { items += `<li><b>${i + 1}</b> at ${at[i]} s: ${esc(text[i])}</li>`; }
    }
    const list = `<ol style="margin:0;padding-left:0;list-style:none">${items}</ol>`;
    // A new Div text makes BokehJS lay out the whole layout again, every figure included; the
    // Div has a fixed size, so the list goes into its element directly (a view re-rendered
    // from its text gets a new element, written again on the next frame).
    const index = window.Bokeh && window.Bokeh.index;
    const view = index && index.find_one ? index.find_one(div) : null;
    const el = view ? view.markup_el : null;
    if (el) {
        if (el.__flushsim_list !== list) { el.innerHTML = list; el.__flushsim_list = list; }
    } else if (div.text !== list) {
        div.text = list;
    }
}
"""
)

# The time slider moved (a drag, Python's `reveal`, the player) or new regimes arrived: while
# the player runs, the slider lags its frame by a few seconds, and the frame is what is shown.
_REVEAL_JS = (
    _REVEAL_FN
    + r"""
const player = window["__flushsim_play_" + clock.id];
reveal(player && player.timer !== null && clock.value === player.set ? player.t : clock.value);
"""
)

_PLAY_JS = (
    _REVEAL_FN
    + r"""
// Touching a knob pauses the animation at once, in the browser: the run it shows is about to
// be replaced, and its frames would hold up the new run's data on its way in.
if (!window.__flushsim_knob_pause) {
    window.__flushsim_knob_pause = [];
    const pause = (ev) => {
        const t = ev.target;
        if (t && t.closest && t.closest('[class*="fs-knob-"]')) {
            for (const p of window.__flushsim_knob_pause) {
                if (p.active) { p.setv({active: false}, LOCAL); }
            }
        }
    };
    window.addEventListener('keydown', pause, true);
    window.addEventListener('pointerdown', pause, true);
}
if (!window.__flushsim_knob_pause.includes(play)) { window.__flushsim_knob_pause.push(play); }
const key = "__flushsim_play_" + clock.id;
const player = window[key] || (window[key] = {timer: null, t: 0, set: null});
if (play.active) {
    if (clock.value >= clock.end) { clock.setv({value: clock.start}, LOCAL); }
    if (player.timer === null) {
        player.t = player.set = clock.value;
        let frames = 0;
        player.timer = setInterval(() => {
            if (clock.value !== player.set) { player.t = clock.value; }  // dragged meanwhile
            if (player.t >= clock.end) { play.setv({active: false}, LOCAL); return; }
            // Reveal only simulated seconds: while a re-run's preview is all there is, wait
            // for the rest of the run instead of drawing the curtain past the curves' end.
            const ts = series.data.time_s;
            if (ts.length === 0 || player.t >= ts[ts.length - 1]) { return; }
            player.t = Math.min(clock.end, player.t + 1);
            reveal(player.t);
            // The slider follows every few frames only: each move rebuilds its DOM, which
            // then makes the figures' next layout measure a restyled page.
            if (++frames % slider_every === 0 || player.t >= clock.end) {
                clock.setv({value: player.t}, LOCAL);
                player.set = player.t;
            }
        }, frame_ms);
    }
} else if (player.timer !== null) {
    clearInterval(player.timer);
    player.timer = null;
    if (clock.value !== player.t) {  // where it stopped
        clock.setv({value: player.t}, LOCAL);
        player.set = player.t;
    }
}
"""
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


def _player(curtain, regimes, series):
    """The browser-side player: a play / pause toggle, a time slider and the regime list.

    `series` is a per-second source (its `time_s` column): the player never runs past its end.
    """
    clock = Slider(start=0, end=60, value=60, step=1, title="time (s)", width=640, name="clock")
    play = Toggle(label="play / pause", active=False, width=110, name="play")
    # Fixed size, scrolling past REGIME_LINES lines: a new list then never moves the layout.
    text = Div(
        text="",
        width=820,
        height=REGIME_LINES * 18,
        styles={"overflow-y": "auto"},
        name="regimes_text",
    )
    args = dict(curtain=curtain, curtain_end=CURTAIN_END, clock=clock, regimes=regimes, div=text)
    clock.js_on_change("value", CustomJS(args=args, code=_REVEAL_JS))
    # A re-run sends new regimes while the clock may not move: list them again.
    if regimes is not None:
        regimes.js_on_change("data", CustomJS(args=args, code=_REVEAL_JS))
    play_args = dict(args, play=play, series=series, frame_ms=FRAME_MS, slider_every=SLIDER_EVERY)
    play.js_on_change("active", CustomJS(args=play_args, code=_PLAY_JS))
    return clock, play, text


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
    p = _time_figure(title, "transactions/s", Range1d(0, end, bounds=(0, None)))
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
    _finish(p)
    return p


# ------------------------------------------------------------------------ a stall, in four parts
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
        p = _time_figure(head + name, y_label, x)
        p.width, p.height = width, height
        if warm_up_s > 0:
            p.add_layout(
                BoxAnnotation(left=0, right=warm_up_s, fill_color="#999999", fill_alpha=0.15)
            )
        return p

    def top(name: str) -> float:
        v = col[name][np.isfinite(col[name])]
        return float(v.max()) if v.size else 1.0

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

    work = fig("Throughput and worst transaction", "transactions/s")
    _twin_axis(work, "worst", top("worst_s"), "worst transaction (s)")
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

    dev = fig("Device (iostat)", "w_await (ms)")
    _twin_axis(dev, "util", max(100.0, top("util_pct")), "%util")
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

    sync = fig("fsyncs", "fsync latency (ms)")
    _twin_axis(sync, "commits", top("sim_journal_commits_forced"), "journal commits forced /s")
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
    for p in (pool, work, dev, sync):
        _finish(p)
    return gridplot([[pool, work], [dev, sync]], toolbar_location="right")
