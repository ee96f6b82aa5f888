"""The explorer in a real browser: it renders, and a knob re-runs the simulation and redraws.

Only a browser catches a figure that does not render (no `output_notebook()`, BokehJS from an
unreachable CDN), a slider whose change never reaches the kernel, or JupyterLab's windowing
dropping a canvas after scrolling (docs/development.md). See helpers.py for the explorer's contract.
"""

from __future__ import annotations

import time

import helpers
import pytest

from flushsim.viz.figures import STALL_AXIS_MIN_SPAN

KNOB = "innodb_io_capacity"
SOURCE = "pool"
DIRTY = "buffer_pool_pages_dirty"
COLUMNS = ("time_s", "buffer_pool_pages_free", DIRTY)


def _slug(request) -> str:
    return request.node.name


def _knob_changes_the_figure(page, name: str) -> None:
    """From a ready explorer: read `pool`, step the knob, wait for ready, check the redraw."""
    helpers.wait_status_ready(page)
    for column in COLUMNS:
        values = helpers.wait_source_column(page, SOURCE, column)
        assert values, f"source {SOURCE!r} has no {column!r} values"
    helpers.reveal(page, ".bk-Figure canvas").wait_for(state="visible")
    before = helpers.read_source_column(page, SOURCE, DIRTY)
    helpers.screenshot(page, f"{name}-before")

    helpers.move_knob(page, KNOB, "ArrowRight")
    helpers.wait_source_column_changed(page, SOURCE, DIRTY, before, timeout=120)
    helpers.wait_status_ready(page)
    after = helpers.read_source_column(page, SOURCE, DIRTY)
    helpers.screenshot(page, f"{name}-after")
    assert after != before, "moving the knob did not change the dirty-pages column"
    # The key press paused the animation in the browser; the re-run must have restarted it
    # from second 0, so the clock runs to the end of the new run.
    page.wait_for_function(_CLOCK_AT_END_JS, timeout=30_000)
    # The player switched off BokehJS's per-paint style reads (player._STYLE_READS_OFF): a
    # BokehJS that renamed the modules or members it patches would leave them on, silently.
    assert page.evaluate(_STYLE_READS_OFF_JS) == [True, "", True]
    # ... and the player's frames stay in the page (player._LOCAL_ONLY)
    assert page.evaluate(_LOCAL_ONLY_JS) == [True, True, 0]


_STYLE_READS_OFF_JS = """() => {
    const plot = Bokeh.require("models/plots/plot_canvas").PlotView.prototype;
    const visual = Bokeh.require("core/visuals/visual").VisualProperties.prototype;
    const font = Object.getOwnPropertyDescriptor(plot, "base_font_size").get;
    return [window.__flushsim_style_reads_off === true, visual._get_css_value.call(null, "x"),
            String(font).includes("__flushsim_font_px")];
}"""


_LOCAL_ONLY_JS = """() => {
    // A change made with sync: false, or a y axis' extent computed from the data (DataRange1d
    // start and end), reaches no document listener (jupyter_bokeh's sends it to the kernel).
    const doc = Bokeh.documents[0];
    let heard = 0;
    const listen = () => { heard += 1; };
    doc.on_change(listen);
    doc.get_model_by_name('curtain').setv({data: {left: [1], right: [2]}}, {sync: false});
    const clock = doc.get_model_by_name('clock');  // two properties: one DocumentEventBatch
    clock.setv({title: clock.title + ' ', show_value: !clock.show_value}, {sync: false});
    const auto = [...doc.all_models].filter(m => m.type === 'DataRange1d');
    for (const r of auto) r.setv({start: r.start - 1, end: r.end + 1});
    doc.remove_on_change(listen);
    return [window.__flushsim_local_only === true, auto.length > 0, heard];
}"""

_CLOCK_AT_END_JS = """() => {
    for (const doc of (window.Bokeh && window.Bokeh.documents) || []) {
        const clock = doc.get_model_by_name('clock');
        if (clock) return clock.value >= clock.end && clock.end > 0;
    }
    return false;
}"""


def _open_and_run_in_lab(page, lab, notebook: str) -> None:
    helpers.open_lab_notebook(page, lab, notebook)
    helpers.run_all_cells(page, lab)
    helpers.reveal(page, ".fs-status", timeout=180)
    helpers.wait_status_ready(page, timeout=180)


def test_lab_knob_redraws(page, lab, explorer_notebook, console_errors, request):
    _open_and_run_in_lab(page, lab, explorer_notebook)
    _knob_changes_the_figure(page, _slug(request))
    assert console_errors.unexpected == []


def test_voila_knob_redraws(page, voila_server, console_errors, request):
    helpers.open_voila(page, voila_server)
    helpers.wait_status_ready(page, timeout=180)
    _knob_changes_the_figure(page, _slug(request))
    # The legends draw data-less copies of the curves (figures._proxy_legends): a click on an
    # entry must still hide the curve itself.
    assert page.evaluate(_DIRTY_CURVES_VISIBLE_JS) == [True]
    assert page.evaluate(_CLICK_LEGEND_JS, "dirty")
    page.wait_for_function(f"() => ({_DIRTY_CURVES_VISIBLE_JS})()[0] === false", timeout=5_000)
    # The stall axis spans at least 0-1 thread-s/s and covers the bars: the default run's few
    # ms of waits a second once made it an axis of 0 to 6e-4.
    page.wait_for_function(_STALL_AXIS_FITS_JS, arg=STALL_AXIS_MIN_SPAN, timeout=10_000)
    assert console_errors.unexpected == []


_STALL_AXIS_FITS_JS = """(span) => {
    const doc = Bokeh.documents[0];
    const ranges = [...doc.all_models].filter(
        m => m.type === 'DataRange1d' && m.min_interval === span);
    const work = doc.get_model_by_name('work');
    if (ranges.length !== 1 || !work) return false;
    const data = work.data;
    const column = typeof data.get === 'function' ? data.get('stall_s') : data.stall_s;
    const stall = Array.from(column, Number);
    const top = Math.max(1, ...stall);
    return ranges[0].start === 0 && ranges[0].end >= top - 1e-9;
}"""

_DIRTY_CURVES_VISIBLE_JS = """() => {
    const out = [];
    for (const m of Bokeh.documents[0].all_models) {
        if (m.type === 'GlyphRenderer' && m.data_source.name === 'pool'
                && m.glyph.y && m.glyph.y.field === 'dirty') out.push(m.visible);
    }
    return out;
}"""

_CLICK_LEGEND_JS = """(label) => {
    for (const view of Bokeh.index.query(v => v.model.type === 'Legend')) {
        for (const entry of view.entries) {
            if (entry.label === label) {
                entry.el.dispatchEvent(new PointerEvent('pointerdown', {bubbles: true}));
                return true;
            }
        }
    }
    return false;
}"""


def _visible_in(page, canvas_handle, scroller_handle) -> bool:
    """Whether the canvas is attached and overlaps the scroller's visible box."""
    return page.evaluate(
        """([canvas, scroller]) => {
            if (!canvas.isConnected) return false;
            const c = canvas.getBoundingClientRect(), s = scroller.getBoundingClientRect();
            return c.height > 0 && c.bottom > s.top && c.top < s.bottom;
        }""",
        [canvas_handle, scroller_handle],
    )


def test_lab_figure_survives_scrolling(page, lab, explorer_notebook, console_errors, request):
    """Scroll the figure out of view and back: it must still be drawn (windowing pitfall)."""
    name = _slug(request)
    _open_and_run_in_lab(page, lab, explorer_notebook)
    assert helpers.wait_source_column(page, SOURCE, DIRTY), "the figure has no data to draw"
    canvas = helpers.figure_canvas(page, ".jp-OutputArea")
    canvas.wait_for(state="visible")
    canvas.scroll_into_view_if_needed()
    time.sleep(0.5)  # let Bokeh finish its paint
    ink_before = helpers.ink_fraction(canvas.screenshot())
    assert ink_before > 0.005, f"the figure looks blank before scrolling ({ink_before:.2%} ink)"

    scroller = page.locator(".jp-NotebookPanel .jp-WindowedPanel-outer").first
    scroller_handle = scroller.element_handle()
    canvas_handle = canvas.element_handle()
    out_of_view = False
    for where in ("bottom", "top"):
        scroller.evaluate(
            "(el, where) => { el.scrollTop = where === 'top' ? 0 : el.scrollHeight; }", where
        )
        time.sleep(1.0)  # windowing reacts to scroll events, then to idle callbacks
        if not _visible_in(page, canvas_handle, scroller_handle):
            out_of_view = True
            break
    if not out_of_view:
        pytest.fail("the notebook is too short to scroll the figure out of view")
    helpers.screenshot(page, f"{name}-scrolled-away")

    # Back: scroll the notebook until the figure's canvas shows again (in `full` windowing mode its
    # cell is hidden while out of view, so Playwright cannot scroll to it directly).
    canvas = helpers.reveal(page, ".jp-OutputArea .bk-Figure canvas", timeout=60)
    time.sleep(1.0)
    box = canvas.bounding_box()
    assert box and box["width"] > 0 and box["height"] > 0, "no canvas after scrolling back"
    ink_after = helpers.ink_fraction(canvas.screenshot())
    helpers.screenshot(page, f"{name}-scrolled-back")
    assert ink_after > 0.5 * ink_before, (
        f"the figure lost its drawing after scrolling away and back "
        f"({ink_before:.2%} ink before, {ink_after:.2%} after)"
    )
    assert console_errors.unexpected == []
