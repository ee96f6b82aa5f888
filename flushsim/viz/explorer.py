"""The explorer: knob controls generated from the spec, linked animated figures, a baseline.

Layout (ipywidgets): pickers (preset, engine, workload, drive) and knob sliders on the left,
the Bokeh figures (one `jupyter_bokeh.BokehModel`) on the right with their player (play /
pause, time slider) and the regime changes in plain words under them.

How it stays responsive (docs/development.md, jupyter_bokeh): sliders use `continuous_update=False`,
so a drag runs one simulation on release; a run's changes to the figures reach the page as one
message of plain lists (bokeh_widget.BatchedBokehModel); a re-run sends its first seconds first,
then simulates on from there to the end; the animation runs in the browser and keeps its frames
there (player.py: a CustomJS player moves the curtain), so the kernel is free for the next knob
change; the fill-factor and hours-a-day sliders only recompute the wear figures. The drive picker
sets the drive's endurance and, unless "separate performance profile" is ticked, `device` too. The
figures and their widget are built when first shown, so an explorer driven only from code costs a
simulation. A shown explorer simulates its first run while the page loads and draws it when the page
has drawn the figures. Runs start warm (the "start" control): an auto warm-up, kept and resumed
while only dynamic knobs change (docs/model.md, "Warm starts"); a copy of it to resume is made
ahead, between knob changes.

Every control carries the DOM class `fs-knob-<knob>` and the status line the class `fs-status`
with the text `ready` after a run has been drawn, for the browser tests. Every text about a knob
(hover help, readouts) is the chosen engine's (`knob_text`); a slider's readout is a box that
takes a typed value (`readout`), beside it with the class `fs-readout`.
"""

from __future__ import annotations

import contextlib
import html
import os
import time
import warnings
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace

import ipywidgets as w
from bokeh.events import DocumentReady
from ipywidgets.widgets.widget_description import DescriptionStyle
from ipywidgets.widgets.widget_string import TextStyle
from jupyter_bokeh import BokehModel

from .. import params, presets, ssd
from ..knob_text import help_text, server_value, translation_text
from ..lifetime import Lifetime, run_lifetime
from ..params import GiB, MiB
from ..resume import Paused, fork
from ..run import Run, simulate
from ..scenario import Scenario, translate
from ..warmup import AUTO, Warm, reaches, simulate_warm, simulate_warm_steps, warm_up
from . import figures
from .bokeh_widget import BatchedBokehModel
from .readout import TypedReadout
from .regimes import regime_changes

# Explorer values of each knob: the server's range is far wider, a slider needs useful stops.
# Every list contains the server default, and every value is checked against the spec below.
CHOICES: dict[str, tuple[int, ...]] = {
    "innodb_buffer_pool_size": (
        64 * MiB,
        128 * MiB,
        256 * MiB,
        512 * MiB,
        1 * GiB,
        2 * GiB,
        4 * GiB,
        8 * GiB,
    ),
    "innodb_lru_scan_depth": (100, 128, 256, 512, 1024, 2048, 4096, 8192),
    "innodb_io_capacity": (100, 200, 300, 400, 800, 1000, 2000, 4000, 10000, 20000),
    "innodb_io_capacity_max": (100, 200, 400, 800, 1000, 2000, 4000, 8000, 20000, 40000),
    # the thread counts benchmarks use, 48 and 96 included (a 2-socket server's cores)
    "threads": (1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512),
    "write_pct": (0, 5, 10, 20, 30, 50, 80, 100),
}
KNOB_CONTROLS = tuple(CHOICES)
# Widths for a 1280-pixel projector: controls plus two figures of style.WIDTH side by side
CONTROLS_PX, LABEL_PX = 440, 215
# The I/O path: pickers whose choices follow the engine (MariaDB also has trx_commit 3).
IO_PICKERS = ("innodb_flush_method", "innodb_flush_log_at_trx_commit", "device", "filesystem")


def _engine_choices(name: str, engine: str) -> list[object]:
    """The valid values of a small knob on `engine`: an enum's choices or an int range."""
    p = params.get(name, engine)
    if p.kind == "enum":
        return list(p.choices)
    return list(range(int(p.min), int(p.max) + 1))


FLUSH_SIZE = "innodb_lru_flush_size"  # MariaDB's knob: a control only on the engines that have it
VERSION = "version"  # the release within mariadb-10.6: a control only on that engine
LSN_AGE = "innodb_cleaner_lsn_age_factor"  # Percona Server's formula: a control on mysql-8.0


def _engine_only_choice(picker: w.Dropdown, p: params.Param, engine: str) -> None:
    """A greyed picker reads "(not a <engine> setting)", not a value the engine does not have.

    A MariaDB 10.6 release showing under mysql-8.0 reads as the server's version. Enabled
    again, the picker offers the knob's choices at its default; the caller sets the scenario's.
    """
    if picker.disabled:
        options = [(f"(not a {engine} setting)", "")]
    else:
        options = list(p.choices)
    if tuple(picker.options) != tuple(options):
        picker.options = options
        picker.value = "" if picker.disabled else p.default


def _fmt_value(name: str, v: object) -> str:
    """A slider stop as the server prints it (sizes as in my.cnf: 128M), typed back the same."""
    return server_value(params.get(name), v)


def _parse_value(name: str, text: str) -> object:
    """A value typed into a readout: as in my.cnf (128M, 4096), thousands commas allowed."""
    return params.parse_value(name, text.replace(",", ""))


# Simulated seconds sent ahead of the rest of a run, long enough that the figures' y ranges are
# near the whole run's (8 s covers the default's free list draining). Median slider to redraw in
# A/B runs (90 presses each): 4 s 128 ms, 8 s 107 ms; 12 s 104 ms against 8 s 102 ms (this VM's
# run-to-run spread is about +-15 ms).
PREVIEW_S = 8


def _lists(columns: dict) -> dict:
    """Columns as plain lists: a numpy column is sent as a binary buffer, 2 comm messages more."""
    return {k: v.tolist() if hasattr(v, "tolist") else v for k, v in columns.items()}


START_HELP = (
    "warm (the default): each run starts at a warm server. The explorer first simulates this "
    "workload until dirty pages, free pages and checkpoint age settle (warm-up auto, not shown) "
    "and keeps that server: a change of a dynamic knob is then made with SET GLOBAL at second 0 "
    "of the run, on the same warm server, as a DBA would; a change of a static knob, the engine, "
    "the preset or the start re-warms. cold: a cold start, each run at a freshly started "
    "server, its buffer pool empty: how the free list drains and LRU and adaptive flushing "
    "take over is a lesson of its own."
)

# The first run (while the page loads) and the copy of the warm server for the next re-run.
_RUNNER = ThreadPoolExecutor(1, thread_name_prefix="flushsim-explorer")


def _whole(text: str, what: str) -> int:
    """A whole number typed into a readout."""
    try:
        return int(text.replace("%", "").strip())
    except ValueError:
        raise ValueError(f"{what} {text!r} is not a whole number") from None


def fast_seconds(seconds: int) -> int:
    """Run length under FLUSHSIM_FAST=1 (the test suite): at most 20 simulated seconds."""
    return min(seconds, 20) if os.environ.get("FLUSHSIM_FAST") else seconds


class Explorer:
    """The interactive explorer. Display `Explorer().widget` in a notebook or Voila.

    Drive it from code with `set(innodb_io_capacity=400)`, `pin()`, `frame(t)`; `run` is the
    current Run, `baseline` the pinned one.
    """

    # The opening scenario: every slider, the pool's size included, moves something on screen.
    def __init__(self, preset: str = "classroom", *, autoplay: bool = True) -> None:
        self.autoplay = autoplay
        self._run: Run | None = None
        self.baseline: Run | None = None
        self.last_run_s = float("nan")
        self._busy = False
        self._dropped: tuple[str, ...] = ()  # preset knobs the chosen engine lacks
        self._translated: tuple[str, ...] = ()  # ... and those it has an equivalent of
        # the warm server runs start from (warm start), kept while only dynamic knobs change:
        # `simulate_warm(ex.scenario_now(), warm=ex.warm)` is the current run
        self.warm: Warm | None = None
        self.warmups = 0  # warm-ups simulated so far
        # a copy of `warm.paused` for the next re-run to go on with, made between knob changes
        self._spare: tuple[Warm, Future[Paused]] | None = None
        self.start_note = ""  # "warm start: N s warm-up" or "cold start"
        self.scenario = presets.get(preset)
        self.setting = figures.default_ssd()

        self.sources = figures.make_sources(figures.empty_data())
        self.base_sources = figures.make_sources(figures.empty_data(), "_base")
        # Figures and their widget are built at first use (`figs`, `widget`): an explorer driven
        # only from code never pays for them, and a displayed one serialises its document once.
        self._figs: figures.Figures | None = None
        self._bokeh: BatchedBokehModel | None = None
        self._widget: w.Widget | None = None
        # What the figures show: the time axis' length, the player's second and whether it plays.
        self._view_s, self._view_t, self._playing = 60, 60, False

        self.controls: dict[str, w.Widget] = {}
        self._build_controls()
        self._build_buttons()
        # The first run is simulated when `run` is first read, or, for an explorer that is displayed
        # first, on the runner thread right after its document is serialised: the kernel loads numba
        # and simulates while the page loads. It is drawn once the page says its figures are drawn
        # (BokehJS's DocumentReady): jupyter_bokeh sends data changes only to views that exist, and
        # a change made before is lost (docs/development.md, jupyter_bokeh).
        self._first_pending = True
        self._first: Future | None = None
        self._page_ready = False  # a page has drawn the figures (DocumentReady)
        self._drawn_unseen = False  # drawn after the document was serialised, before that
        # a cold numba cache makes this run compile the kernels first: say so, or a minute of
        # "running…" looks like a hang
        self._status(
            "running… (the first run on a new machine compiles the model: about a minute)",
            "#b36b00",
        )

    @property
    def run(self) -> Run | None:
        """The current run; the first read simulates the first one (or waits for it)."""
        if self._first_pending:
            self._finish_first()
        return self._run

    @run.setter
    def run(self, run: Run) -> None:
        self._run = run

    @property
    def figs(self) -> figures.Figures:
        """The Bokeh figures over `sources`, built at first use and showing the current run."""
        if self._figs is None:
            self._figs = figures.build(self.sources, self.base_sources)
            figures.set_time_axis(self._figs, self._view_s)
            figures.show_headline(self._figs, self.sources["ssd_now"].data)
            self.frame(self._view_t)
            self._figs.play.active = self._playing
        return self._figs

    @property
    def bokeh(self) -> BatchedBokehModel:
        """The figures as one ipywidget (jupyter_bokeh), serialised with the current data."""
        if self._bokeh is None:
            self._bokeh = BatchedBokehModel(self.figs.layout)
            self.figs.layout.document.on_event(DocumentReady, self._on_page_ready)
        return self._bokeh

    def _one_message(self):
        """The figures' changes made inside reach the page as one message (bokeh_widget)."""
        return self._bokeh.batch() if self._bokeh is not None else contextlib.nullcontext()

    @property
    def widget(self) -> w.Widget:
        """The whole explorer: controls on the left, figures and player on the right."""
        if self._widget is None:
            self._widget = self._layout()
        return self._widget

    def _repr_mimebundle_(self, **kwargs):
        """Display the explorer (`ex` as a cell's last line), with the figures' current data."""
        if self._bokeh is not None:  # else it is serialised just now, with the current data
            self.refresh_view()
        bundle = self.widget._repr_mimebundle_(**kwargs)
        if self._first_pending and self._first is None:
            self._first = _RUNNER.submit(self._simulate_timed, self._scenario_quiet())
        return bundle

    def refresh_view(self) -> None:
        """Re-serialise the figures into the widget state.

        Needed only when the explorer changed while no view of it was on a page (Voila renders
        from the widget state; a second `display` starts from it): live views get every change
        as a patch anyway, and redraw once from scratch here.
        """
        self.bokeh.render_bundle = BokehModel._model_to_traits(self.figs.layout)

    # ------------------------------------------------------------------ controls
    def _build_controls(self) -> None:
        # LABEL_PX fits the longest knob name (innodb_flush_log_at_trx_commit) uncut
        wide = w.Layout(width=f"{CONTROLS_PX - 10}px")
        self._narrow = w.Layout(width=f"{CONTROLS_PX - 90}px")  # a slider, its readout beside it
        # One style model per kind of control, shared: fewer widget models for a page to load.
        picker_style = DescriptionStyle(description_width=f"{LABEL_PX}px")
        slider_style = w.SliderStyle(description_width=f"{LABEL_PX}px")
        self._readout_look = (w.Layout(width="78px"), TextStyle())
        self._build_pickers(wide, picker_style)
        self._build_knobs(wide, picker_style, slider_style)
        self._build_engine_knobs(wide, picker_style, slider_style)
        self._build_drive(wide, picker_style, slider_style)
        for ctl in self.controls.values():
            ctl.observe(self._on_knob, names="value")
        self.preset_picker.observe(self._on_preset, names="value")
        self.engine_picker.observe(self._on_engine, names="value")
        # knobs only some engines have: enabled by _sync_engine_controls, read only when enabled
        self.engine_controls = {
            FLUSH_SIZE: self.flush_size,
            VERSION: self.release,
            LSN_AGE: self.lsn_age,
        }
        for ctl in self.engine_controls.values():
            ctl.observe(self._on_knob, names="value")
        self._sync_engine_controls()
        self.fill.observe(self._on_ssd, names="value")
        self.drive_picker.observe(self._on_drive, names="value")
        self.split_device.observe(self._on_split, names="value")
        self.hours.observe(self._on_hours, names="value")
        self.controls["device"].observe(self._show_profile, names="value")
        self._on_split(None)

    def _build_pickers(self, wide: w.Layout, picker_style: DescriptionStyle) -> None:
        """The preset, engine and workload pickers."""
        self.preset_picker = w.Dropdown(
            options=presets.names(),
            value=self.scenario.name,
            description="preset",
            tooltip="A named scenario: the seeds' experiments and the default.",
            layout=wide,
            style=picker_style,
        )
        self.preset_picker.add_class("fs-knob-preset")
        self.engine_picker = w.Dropdown(
            options=list(params.ENGINES),
            value=self.scenario.engine,
            description="engine",
            tooltip="Server generation whose flushing rules run: mysql-8.0 (8.0.30+; Percona "
            "Server with innodb_cleaner_lsn_age_factor), "
            "mariadb-10.6 (10.6.0-10.11.7: user threads run LRU batches of "
            "innodb_lru_flush_size), mariadb-10.11 (10.11.8+: only the page cleaner flushes "
            "the LRU). Knobs a preset sets that the engine lacks are dropped, with a note.",
            layout=wide,
            style=picker_style,
        )
        self.engine_picker.add_class("fs-knob-engine")
        wl = params.get("workload")
        self.workload_picker = w.Dropdown(
            options=list(wl.choices),
            value=self.scenario["workload"],
            description="workload",
            tooltip=help_text("workload", self.scenario.engine),
            layout=wide,
            style=picker_style,
        )
        self.workload_picker.add_class("fs-knob-workload")
        self.controls["workload"] = self.workload_picker
        self.start_picker = w.Dropdown(
            options=["warm", "cold"],
            value="warm",
            description="start",
            tooltip=START_HELP,
            layout=wide,
            style=picker_style,
        )
        self.start_picker.add_class("fs-knob-start")
        self.start_picker.observe(self._on_start, names="value")

    def _build_knobs(
        self, wide: w.Layout, picker_style: DescriptionStyle, slider_style: w.SliderStyle
    ) -> None:
        """A slider per knob of KNOB_CONTROLS, a picker per knob of IO_PICKERS."""
        engine = self.scenario.engine
        self.readouts: dict[str, TypedReadout] = {}
        for name in KNOB_CONTROLS:
            options = [(_fmt_value(name, v), v) for v in CHOICES[name]]
            current = int(self.scenario[name])
            if current not in CHOICES[name]:
                options = sorted(
                    [*options, (_fmt_value(name, current), current)], key=lambda o: o[1]
                )
            ctl = w.SelectionSlider(
                options=options,
                value=current,
                description=name,
                continuous_update=False,
                tooltip=help_text(name, engine),
                layout=self._narrow,
                style=slider_style,
            )
            ctl.add_class(f"fs-knob-{name}")
            self.controls[name] = ctl
            self.readouts[name] = self._typed_readout(ctl, name)
        for name in IO_PICKERS:
            ctl = w.Dropdown(
                options=_engine_choices(name, self.scenario.engine),
                value=self.scenario[name],
                description=name,
                tooltip=help_text(name, engine),
                layout=wide,
                style=picker_style,
            )
            ctl.add_class(f"fs-knob-{name}")
            self.controls[name] = ctl

    def _build_engine_knobs(
        self, wide: w.Layout, picker_style: DescriptionStyle, slider_style: w.SliderStyle
    ) -> None:
        """The knobs only some engines have, greyed out until such an engine is picked."""
        # MariaDB's knob: shown, greyed out, until an engine that has it is picked.
        flush_size = w.SelectionSlider(
            options=[(_fmt_value(FLUSH_SIZE, v), v) for v in (32, 128, 256, 512, 1024, 2048, 4096)],
            value=32,
            description=FLUSH_SIZE,
            disabled=True,
            continuous_update=False,
            layout=self._narrow,
            style=slider_style,
            tooltip=f"{FLUSH_SIZE} (MariaDB, pages): on 10.6.0-10.11.7 the pages a user thread "
            "without a free page flushes from the LRU tail in one batch; accepted but without "
            "effect from 10.11.8. MySQL 8.0 has no such variable.",
        )
        flush_size.add_class("fs-knob-innodb_lru_flush_size")
        self.flush_size = flush_size
        self.readouts[FLUSH_SIZE] = self._typed_readout(flush_size, FLUSH_SIZE)

        def engine_knob(name: str, tooltip: str) -> w.Dropdown:
            # an enum knob only some engines have: _sync_engine_controls enables it
            p = params.get(name)
            picker = w.Dropdown(
                options=list(p.choices),
                value=p.default,
                description=name,
                disabled=True,
                layout=wide,
                style=picker_style,
                tooltip=tooltip,
            )
            picker.add_class(f"fs-knob-{name}")
            return picker

        self.release = engine_knob(
            VERSION,
            "The MariaDB release (mariadb-10.6 only, 10.6.0-10.6.17 and 10.11.0-10.11.7). "
            "Up to 10.6.12 / 10.11.2 the page cleaner flushes no LRU page and user threads free "
            "every page themselves (seed 003 ran 10.6.3); from 10.6.13 / 10.11.3 it does.",
        )
        self.lsn_age = engine_knob(
            LSN_AGE,
            "Percona Server's adaptive-flushing formula for the checkpoint age (mysql-8.0 "
            "only): legacy is Oracle MySQL's, its only one; high_checkpoint is Percona Server's "
            "default, which flushes less at a low checkpoint age and more at a high one.",
        )

    def _build_drive(
        self, wide: w.Layout, picker_style: DescriptionStyle, slider_style: w.SliderStyle
    ) -> None:
        """The drive picker and its fill-factor slider (they recompute the wear figures only)."""
        self.drive_picker = w.Dropdown(
            options=[(d.model, d.name) for d in ssd.catalog_drives()],
            value=self.setting.drive.name,
            description="drive",
            layout=wide,
            style=picker_style,
            tooltip="The drive the data files live on (data/ssd_catalog.csv): its endurance "
            "rating gives the SSD lifetime, and its performance profile (device) the run's I/O, "
            "unless 'separate performance profile' is ticked. A preset's own device stays until "
            "a drive is picked.",
        )
        self.drive_picker.add_class("fs-knob-drive")
        # its own layout: hidden alone (the pickers share `wide`)
        self.controls["device"].layout = w.Layout(width=wide.width)
        self.split_device = w.Checkbox(
            value=False,
            description="advanced: separate performance profile",
            indent=False,
            layout=wide,
            tooltip="Pick the performance profile (device) apart from the drive: the drive then "
            "sets only the endurance of the lifetime.",
        )
        self.split_device.add_class("fs-knob-split_device")
        self.profile_note = w.HTML()
        hours = params.get("ssd_hours_per_day")
        self.hours = w.IntSlider(
            value=int(self.scenario["ssd_hours_per_day"]),
            min=int(hours.min),
            max=int(hours.max),
            description="hours a day (load)",
            continuous_update=False,
            layout=self._narrow,
            style=slider_style,
            tooltip=help_text("ssd_hours_per_day", self.scenario.engine),
        )
        self.hours.add_class("fs-knob-ssd_hours_per_day")

        def check_hours(value: object) -> None:
            params.check_value(hours, value)

        self.hours_readout = TypedReadout(
            self.hours,
            str,
            lambda t: _whole(t, "hours a day"),
            check_hours,
            self._show_message,
            self._readout_look,
        )
        self.fill = w.IntSlider(
            value=int(self.setting.fill * 100),
            min=0,
            max=95,
            step=5,
            description="SSD fill (%)",
            continuous_update=False,
            layout=self._narrow,
            style=slider_style,
            tooltip="Share of the drive's capacity holding data (0-95 %): the rest is free space "
            "the FTL uses to absorb writes. 100 % full leaves nothing to absorb them.",
        )
        self.fill.add_class("fs-knob-ssd_fill")

        def check_fill(value: object) -> None:
            if not 0 <= int(value) <= 95:
                raise ValueError(f"SSD fill {value} % is out of range: it must be between 0 and 95")

        self.fill_readout = TypedReadout(
            self.fill,
            str,
            lambda t: _whole(t, "SSD fill"),
            check_fill,
            self._show_message,
            self._readout_look,
        )

    def _typed_readout(self, slider: w.SelectionSlider, name: str) -> TypedReadout:
        """The slider's readout box: a typed value is checked on the current engine, then runs."""

        def check(value: object) -> None:
            params.check_value(params.get(name, self.engine_picker.value), value)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", params.FlushsimWarning)
                self.scenario_now().replace(**{name: value})  # the simulator's own limits

        return TypedReadout(
            slider,
            lambda v: _fmt_value(name, v),
            lambda t: _parse_value(name, t),
            check,
            self._show_message,
            self._readout_look,
        )

    def _show_message(self, text: str) -> None:
        """One line under the controls: why a typed value was refused."""
        self.messages.value = f"<span style='color:#c00000'>{html.escape(text)}</span>"

    def _build_buttons(self) -> None:
        self.pin_button = w.Button(
            description="Pin as baseline",
            icon="thumb-tack",
            tooltip="Overlay the current run as a dashed baseline",
        )
        self.clear_button = w.Button(description="Clear baseline", icon="times")
        self.pin_button.on_click(lambda _: self.pin())
        self.clear_button.on_click(lambda _: self.clear_baseline())
        self.status = w.HTML()
        self.messages = w.HTML()
        self.summary = w.HTML()

    def _layout(self) -> w.Widget:
        head = w.HTML(
            "<b>flushsim explorer</b>: move a knob, watch the pool. Hover a control for the "
            "server's documentation of it. Dashed grey curves are the pinned baseline."
        )
        row = w.Layout()  # one layout model for every slider-and-readout row

        def with_readout(slider: w.Widget, readout: TypedReadout) -> w.HBox:
            return w.HBox([slider, readout.box], layout=row)

        left = w.VBox(
            [
                self.preset_picker,
                self.engine_picker,
                self.start_picker,
                self.workload_picker,
                *(with_readout(self.controls[n], self.readouts[n]) for n in KNOB_CONTROLS),
                with_readout(self.flush_size, self.readouts[FLUSH_SIZE]),
                self.release,
                self.lsn_age,
                w.HTML("<b>I/O path and drive</b>"),
                self.drive_picker,
                self.split_device,
                *(self.controls[n] for n in IO_PICKERS),
                self.profile_note,
                with_readout(self.fill, self.fill_readout),
                with_readout(self.hours, self.hours_readout),
                w.HBox([self.pin_button, self.clear_button]),
                self.status,
                self.summary,
                self.messages,
            ],
            layout=w.Layout(width=f"{CONTROLS_PX}px", min_width=f"{CONTROLS_PX}px"),
        )
        right = w.VBox([self.bokeh])
        # too narrow for both side by side (JupyterLab with its side panel open): the figures
        # go below the controls rather than past the edge
        return w.VBox([head, w.HBox([left, right], layout=w.Layout(flex_flow="row wrap"))])

    # ------------------------------------------------------------------ actions
    def set(self, **knobs: object) -> None:
        """Move controls from code (one re-run at the end): `set(innodb_io_capacity=400)`."""
        self._busy = True
        try:
            for name, value in knobs.items():
                if name not in self.controls:
                    raise ValueError(
                        f"the explorer has no control {name!r}; it has " + ", ".join(self.controls)
                    )
                self.controls[name].value = value
        finally:
            self._busy = False
        self.rerun()

    def scenario_now(self) -> Scenario:
        """The preset with the controls' values applied."""
        knobs = {name: ctl.value for name, ctl in self._enabled_controls().items()}
        if self.hours.value != self.scenario["ssd_hours_per_day"]:
            knobs["ssd_hours_per_day"] = self.hours.value
        sc = self.scenario.replace(**knobs)
        return sc.replace(seconds=fast_seconds(sc.seconds))

    def _scenario_quiet(self) -> Scenario:
        with warnings.catch_warnings():
            # the server's adjustments are kept in sc.adjustments; the explorer shows them
            warnings.simplefilter("ignore", params.FlushsimWarning)
            return self.scenario_now()

    def _simulate_timed(self, sc: Scenario) -> tuple[Scenario, Run, float]:
        t0 = time.perf_counter()
        run = self._simulate(sc, self._warm_for(sc))
        return sc, run, time.perf_counter() - t0

    @staticmethod
    def _simulate(sc: Scenario, warm: Warm | None) -> Run:
        return simulate(sc) if warm is None else simulate_warm(sc, warm=warm)

    def _steps(self, sc: Scenario, warm: Warm | None):
        """The run of `sc` in two steps (`simulate_warm_steps`): its preview, then the whole."""
        if warm is None:  # a cold start: "warmed up" 0 s, a fresh state run on itself (no copy)
            fresh = warm_up(sc, 0)
            return simulate_warm_steps(sc, fresh, PREVIEW_S, paused=fresh.paused)
        return simulate_warm_steps(sc, warm, PREVIEW_S, paused=self._take_spare(warm))

    def _take_spare(self, warm: Warm) -> Paused | None:
        """The copy of `warm` made ahead (waited for if still being made), or None."""
        spare, self._spare = self._spare, None
        return spare[1].result() if spare is not None and spare[0] is warm else None

    def _make_spare(self) -> None:
        """Copy the kept warm server on the runner thread, for the next re-run to go on with."""
        if self.warm is not None and (self._spare is None or self._spare[0] is not self.warm):
            self._spare = (self.warm, _RUNNER.submit(fork, self.warm.paused))

    def _warm_for(self, sc: Scenario) -> Warm | None:
        """The warm server `sc` runs from (None: a cold start): the kept one, or a new warm-up.

        The kept one while `sc` differs from its scenario in dynamic knobs only (warmup.reaches).
        """
        if self.start_picker.value == "cold":
            self.start_note = "cold start"
            return None
        if self.warm is None or not reaches(self.warm, sc):
            self.warm = warm_up(sc, AUTO)
            self.warmups += 1
        self.start_note = f"warm start: {self.warm.seconds} s warm-up"
        return self.warm

    def _finish_first(self) -> None:
        """Show the first run, shown whole: simulated now, or the one the display started."""
        self._first_pending = False
        # A Play widget that is already playing when its view is created does not start (seen
        # in Voila); re-runs animate from second 0.
        autoplay, self.autoplay = self.autoplay, False
        try:
            if self._first is None:
                self.rerun()
                return
            try:
                sc, run, self.last_run_s = self._first.result()
            except ValueError as exc:
                self._show_error(exc)
                return
            self._show(sc, run, restart=True)
        finally:
            self.autoplay = autoplay

    def _on_page_ready(self, _event: DocumentReady) -> None:
        """A page has drawn the figures: the first run goes to them now, as a patch."""
        self._page_ready = True
        if self._first_pending:
            self._finish_first()
        elif self._drawn_unseen:  # drawn before that page had its view: send it all again
            self._drawn_unseen = False
            self.refresh_view()

    def rerun(self) -> None:
        """Simulate the current settings and redraw (restarting the animation).

        When animating, the first PREVIEW_S seconds are simulated and sent first (a run's first
        seconds do not depend on its length: same config and seed, same numbers), so the
        figures start moving within tens of milliseconds of a knob change. The same state then
        goes on to the end (`simulate_warm_steps`: nothing simulated twice, and no second
        thread competes with the preview for a core), while the browser's player waits at the
        preview's last second. A warm start resumes from a copy of the kept warm server made
        ahead (`_spare`): no warm-up when only dynamic knobs changed, and no copy to wait for.
        """
        self._first_pending = False  # the current settings replace a first run not yet shown
        self._status("running…", "#b36b00")
        try:
            sc = self._scenario_quiet()
            t0 = time.perf_counter()
            warm = self._warm_for(sc)
            if self.autoplay and sc.seconds > 2 * PREVIEW_S:
                steps = self._steps(sc, warm)
                self.run = next(steps)
                self._draw(seconds=sc.seconds, preview=True)
                run, previewed = next(steps), True
            else:
                run, previewed = self._simulate(sc, warm), False
            self.last_run_s = time.perf_counter() - t0
        except ValueError as exc:
            self._show_error(exc)
            return
        self._show(sc, run, restart=not previewed)

    def _show_error(self, exc: ValueError) -> None:
        self._status("error", "#c00000")
        self._show_message(str(exc))

    def _show(self, sc: Scenario, run: Run, restart: bool) -> None:
        """Make `run` (of `sc`) current: its server adjustments, figures and status."""
        self.run = run
        notes = [html.escape(m) for m in sc.adjustments] + [
            html.escape(f"{k} is not a {sc.engine} setting: the preset's value is not used")
            for k in self._dropped
        ]
        notes += [html.escape(f"translated: {t}") for t in self._translated]
        self.messages.value = "<br>".join(f"<i>server adjustment:</i> {m}" for m in notes)
        self._draw(restart=restart)
        self._status("ready", "#2a7f2a")
        self._make_spare()

    def _draw(
        self, seconds: int | None = None, restart: bool = True, preview: bool = False
    ) -> None:
        """Send self.run to the figures; `seconds` sizes the time axis (default: the run's).

        With `restart` the animation starts over (or, without autoplay, shows the whole run);
        without it the data is replaced under a running animation (the preview's completion).
        A `preview` (a run's first seconds) sends only the time figures: the whole-run ones
        (write amplification, wear, the summary) wait for the whole run, and the browser has
        less to redraw before the animation starts.
        """
        if self._bokeh is not None and not self._page_ready:
            self._drawn_unseen = True
        with self._one_message():
            run = self.run
            for key, columns in figures.time_data(run).items():
                self.sources[key].data = _lists(columns)
            self._regime_table = regime_changes(run)
            self.sources["regimes"].data = figures.regime_marks(run, self._regime_table)
            if not preview:
                wear = figures.wear_data(run, self.setting)
                for key, columns in wear.items():
                    self.sources[key].data = _lists(columns)
                if self._figs is not None:
                    figures.show_headline(self._figs, wear["ssd_now"])
                self.summary.value = self._summary_html()
            if not restart:
                return
            self._view_s = seconds or run.series.height
            self._playing = self.autoplay
            if self._figs is None:  # drawn when the figures are built
                self._view_t = 0 if self.autoplay else self._view_s
                return
            figures.set_time_axis(self._figs, self._view_s)
            # The browser's player takes it from here: from second 0 when autoplaying. The browser
            # may have moved the slider since this side last heard of it: a change to the end
            # first makes the change to 0 arrive.
            if self.autoplay:
                self._figs.clock.value = self._figs.clock.end
            self.frame(0 if self.autoplay else self._view_s)
            # The browser pauses the player as soon as a knob is touched (player._PLAY_JS), and
            # this side may not have heard of it yet: a change to False first makes True arrive.
            self._figs.play.active = False
            self._figs.play.active = self.autoplay

    def frame(self, t: int) -> None:
        """Reveal the curves up to second `t` and list the regime changes reached so far."""
        self._view_t = t
        if self._figs is not None:
            figures.reveal(self._figs, t)
            self._figs.regimes_text.text = figures.regimes_html(self.sources["regimes"].data, t)

    def pin(self) -> None:
        """Keep the current run as the dashed baseline."""
        if self.run is None:
            return
        self.baseline = self.run
        data = figures.run_data(self.baseline, self.setting)
        with self._one_message():
            for key, src in self.base_sources.items():
                if key in data:
                    src.data = _lists(data[key])
        self.summary.value = self._summary_html()

    def clear_baseline(self) -> None:
        """Remove the baseline overlay."""
        self.baseline = None
        empty = figures.empty_data()
        with self._one_message():
            for key, src in self.base_sources.items():
                src.data = empty[key]
        self.summary.value = self._summary_html()

    # ------------------------------------------------------------------ callbacks
    def _on_knob(self, _change) -> None:
        if not self._busy:
            self.rerun()

    def _on_start(self, _change) -> None:
        self.warm = None  # back to warm: warmed up again, at the knobs now
        self._on_knob(_change)

    def _on_preset(self, change) -> None:
        self._dropped, self._translated = (), ()
        self._apply_scenario(presets.get(change["new"]))

    def _on_engine(self, change) -> None:
        if self._busy:
            return
        moved = translate(presets.get(self.preset_picker.value), change["new"])
        self._dropped = moved.dropped
        self._translated = tuple(translation_text(*r, change["new"]) for r in moved.translated)
        self._apply_scenario(moved.scenario)

    def _apply_scenario(self, scenario: Scenario) -> None:
        """Make `scenario` current: controls to its values (engine defaults included), re-run."""
        self.scenario = scenario
        self.warm = None  # another scenario: its own warm-up
        self._busy = True
        try:
            self.engine_picker.value = scenario.engine
            self._sync_engine_controls()
            for name, ctl in self._enabled_controls().items():
                value = self.scenario[name]
                if isinstance(ctl, w.SelectionSlider) and value not in [v for _, v in ctl.options]:
                    ctl.options = sorted(
                        [*ctl.options, (_fmt_value(name, value), value)], key=lambda o: o[1]
                    )
                ctl.value = value
            self.hours.value = int(scenario["ssd_hours_per_day"])
        finally:
            self._busy = False
        self._show_profile(None)
        self.rerun()

    def _enabled_controls(self) -> dict[str, w.Widget]:
        """Every control whose knob the current engine has, keyed by knob name."""
        engine = {n: c for n, c in self.engine_controls.items() if not c.disabled}
        return {**self.controls, **engine}

    def _sync_engine_controls(self) -> None:
        """Engine-specific controls: MariaDB's and Percona's knobs, the I/O pickers' choices."""
        engine = self.engine_picker.value
        names = {p.name for p in params.for_engine(engine)}
        busy, self._busy = self._busy, True  # options and values move: no re-run for those
        try:
            for name, ctl in self.engine_controls.items():
                ctl.disabled = name not in names
                if isinstance(ctl, w.Dropdown):
                    _engine_only_choice(ctl, params.get(name), engine)
        finally:
            self._busy = busy
        for name in IO_PICKERS:
            ctl = self.controls[name]
            choices = _engine_choices(name, engine)
            if list(ctl.options) != choices:
                # the value first, so the old one never sits outside the new options
                value = ctl.value if ctl.value in choices else params.get(name, engine).default
                ctl.options = choices
                ctl.value = value
        # every text follows the engine: its description, default and range of each knob
        for name in ("workload", *KNOB_CONTROLS, *IO_PICKERS):
            self.controls[name].tooltip = help_text(name, engine)
        for name in KNOB_CONTROLS:
            self.readouts[name].box.tooltip = self.controls[name].tooltip
        self._send_help()  # the page shows the new help

    def _send_help(self) -> None:
        """Every control's help to the page, which shows it on the whole control (player.py)."""
        named = {
            "preset": self.preset_picker,
            "engine": self.engine_picker,
            **self.controls,
            **self.engine_controls,
            "drive": self.drive_picker,
            "ssd_fill": self.fill,
            "ssd_hours_per_day": self.hours,
            "start": self.start_picker,
        }
        help_ = {"knob": list(named), "text": [ctl.tooltip or "" for ctl in named.values()]}
        if self.sources["help"].data != help_:  # a preset of the same engine: nothing to send
            self.sources["help"].data = help_

    def _on_drive(self, _change) -> None:
        """A drive picked: its endurance for the lifetime and, unless split, its profile."""
        self._on_ssd(None)
        if not self.split_device.value:
            self._follow_drive()
        self._show_profile(None)  # also when the profile was already the drive's: no change event

    def _follow_drive(self) -> None:
        """The `device` picker to the drive's performance profile (a change re-runs)."""
        picker, profile = self.controls["device"], self.setting.drive.device
        if profile in picker.options and picker.value != profile:
            picker.value = profile

    def _on_split(self, _change) -> None:
        """The `device` picker shows only when split; unsplit again, it follows the drive."""
        self.controls["device"].layout.display = "" if self.split_device.value else "none"
        if _change is not None and not self.split_device.value:
            self._follow_drive()
        self._show_profile(None)

    def _show_profile(self, _change) -> None:
        device = self.controls["device"].value
        if device == self.setting.drive.device:
            whose = "the drive's"
        else:
            whose = "picked apart from the drive" if self.split_device.value else "the preset's"
        self.profile_note.value = (
            f"<span style='color:#555'>performance profile: <code>{html.escape(device)}</code> "
            f"({whose})</span>"
        )

    def _on_hours(self, change) -> None:
        """Hours a day change only the lifetime: the runs keep their series, not a re-run."""
        hours = change["new"]
        for name in ("_run", "baseline"):
            run = getattr(self, name)
            if run is not None and run.scenario["ssd_hours_per_day"] != hours:
                sc = run.scenario.replace(ssd_hours_per_day=hours)
                setattr(self, name, replace(run, scenario=sc))
        self._on_ssd(None)

    def _on_ssd(self, _change) -> None:
        self.setting = figures.SsdSetting(ssd.drive(self.drive_picker.value), self.fill.value / 100)
        if self._run is None:  # the first run, not shown yet, is drawn with this setting
            return
        data = figures.run_data(self._run, self.setting)
        for key in ("wa", "ssd", "ssd_now"):
            self.sources[key].data = data[key]
        if self._figs is not None:
            figures.show_headline(self._figs, data["ssd_now"])
        if self.baseline is not None:
            base = figures.run_data(self.baseline, self.setting)
            for key in ("wa", "ssd"):
                self.base_sources[key].data = base[key]
        self.summary.value = self._summary_html()

    # ------------------------------------------------------------------ text
    def _status(self, text: str, color: str) -> None:
        took = f"simulated in {self.last_run_s * 1000:.0f} ms"
        took = "" if text != "ready" else f" ({'; '.join(filter(None, (took, self.start_note)))})"
        self.status.value = (
            f"<span class='fs-status' style='color:{color};font-weight:bold'>{text}</span>"
            f"<span style='color:#777'>{took}</span>"
        )

    def lifetime(self, run: Run | None = None) -> Lifetime:
        """The SSD lifetime of `run` (default: the current run) on the picked drive and fill."""
        return run_lifetime(run or self.run, self.setting.drive, self.setting.fill)

    def _summary_html(self) -> str:
        rows = [("", "this run", "baseline")]
        runs = [self.run, self.baseline]
        sums = [r.summary() if r is not None else None for r in runs]

        def cell(s, key, fmt):
            return "" if s is None else fmt.format(s[key])

        for label, key, fmt in (
            ("transactions/s", "tps_mean", "{:,.0f}"),
            ("updates per page flushed", "updates_per_page_flushed", "{:.1f}"),
            ("Innodb_buffer_pool_wait_free", "wait_free_total", "{:,.0f}"),
            ("max dirty pages", "dirty_pages_max", "{:,.0f}"),
        ):
            rows.append((label, cell(sums[0], key, fmt), cell(sums[1], key, fmt)))
        lives = [self.lifetime(r) if r is not None else None for r in runs]
        texts = ("" if x is None else html.escape(x.headline) for x in lives)
        rows.append(("SSD lifetime", *texts))
        body = "".join(
            "<tr>" + "".join(f"<td style='padding:0 6px'>{c}</td>" for c in r) + "</tr>"
            for r in rows
        )
        return f"<table style='font-size:90%'>{body}</table>"
