"""The explorer's texts in a real browser: help on every control, hovers, typed readouts.

Only the page shows where ipywidgets puts a tooltip (the label only, unless the explorer copies
it), what a Bokeh hover box says at a point, and whether a readout's typed text reaches the run.
Run on the explorer notebook (helpers.DEFAULT_NOTEBOOK), in Voilà.
"""

from __future__ import annotations

import re

import helpers

# Controls without a `title` on their <select> or their slider's own element.
_UNTITLED_JS = """() => {
    const missing = [];
    const knobs = [...document.querySelectorAll('[class*="fs-knob-"]')];
    for (const el of knobs) {
        const name = [...el.classList].find(c => c.startsWith('fs-knob-'));
        const selects = [...el.querySelectorAll('select')];
        for (const s of selects) { if (!s.title) missing.push(name + ' select'); }
        if (el.classList.contains('widget-slider') && !el.title) missing.push(name + ' slider');
    }
    return knobs.length > 10 ? missing : ['only ' + knobs.length + ' controls'];
}"""

# The page coordinates of data point (x, y) in the figure titled `title` (y: a number, or a
# factor of a categorical axis; null: the middle of the y range; 'top': just under its top).
_POINT_JS = """([title, x, y]) => {
    const views = [...Bokeh.index.query(v => v.model.type === 'Figure'
        && v.model.title && v.model.title.text === title)];
    if (views.length !== 1) return null;
    const view = views[0];
    view.el.scrollIntoView({block: 'center'});
    const frame = view.frame;
    const sy = y === null ? frame.bbox.vcenter
        : y === 'top' ? frame.bbox.top + 8 : frame.y_scale.compute(y);
    const sx = frame.x_scale.compute(x);
    const box = view.canvas_view.el.getBoundingClientRect();
    return [box.left + sx, box.top + sy];
}"""

# The hover boxes shown now: the text of each visible tooltip content.
_TOOLTIPS_JS = """() => {
    const out = [];
    const walk = (root) => {
        for (const el of root.querySelectorAll('*')) {
            if (el.shadowRoot) walk(el.shadowRoot);
            if (el.classList && el.classList.contains('bk-tooltip-content')) {
                const r = el.getBoundingClientRect();
                if (r.width > 0 && r.height > 0) out.push(el.innerText);
            }
        }
    };
    walk(document);
    return out;
}"""

# (figure title, x, y, the box's first label) of a point each figure has data at once a run is
# drawn; a whole second is where a vline hover over a line reports two segments.
HOVER_POINTS = (
    ("Buffer pool pages", 5, None, "t"),
    ("Pages flushed per second, by kind", 5, None, "t"),
    ("Checkpoint age and its limits", 5.4, None, "t"),
    ("Throughput and stalls", 5, None, "t"),
    ("Write amplification chain (run mean)", 0.01, "rows changed", "stage"),
    # above its legend, which names the two models in full and takes the lower middle
    ("Projected SSD lifetime vs fill factor", 50, "top", "fill"),
)


def _hover_texts(page, title: str, x: float, y) -> list[str]:
    point = page.evaluate(_POINT_JS, [title, x, y])
    assert point, f"no figure titled {title!r}"
    page.mouse.move(0, 0)
    page.mouse.move(*point)
    try:
        page.wait_for_function(f"() => ({_TOOLTIPS_JS})().length > 0", timeout=5_000)
    except Exception:
        return []
    return page.evaluate(_TOOLTIPS_JS)


def _readout(page, knob: str):
    return page.locator(f".fs-knob-{knob}").locator("xpath=..").locator(".fs-readout input")


def test_voila_help_hovers_and_typed_readouts(page, voila_server, console_errors, request):
    name = request.node.name
    helpers.open_voila(page, voila_server)
    helpers.wait_status_ready(page, timeout=180)

    # help on every control's own element (copied there by the player's page script)
    try:
        page.wait_for_function(f"() => ({_UNTITLED_JS})().length === 0", timeout=10_000)
    except Exception:
        pass
    assert page.evaluate(_UNTITLED_JS) == [], "controls without help on their own element"

    # one hover box per point, every field filled
    for title, x, y, first in HOVER_POINTS:
        texts = _hover_texts(page, title, x, y)
        helpers.screenshot(page, f"{name}-hover-{title[:12]}")
        assert len(texts) == 1, f"{title}: {len(texts)} hover boxes {texts}"
        rows = re.findall(rf"^{first}:", texts[0], re.MULTILINE)
        assert len(rows) == 1, f"{title}: {texts[0]!r}"
        assert "???" not in texts[0], f"{title}: {texts[0]!r}"
    data_pages = _hover_texts(page, "Write amplification chain (run mean)", 0.01, "redo log")
    assert "x" in data_pages[0] and "of data pages written" in data_pages[0]

    # a typed value runs; an out-of-range one shows the range and reverts
    threads = _readout(page, "threads")
    before = helpers.read_source_column(page, "pool", "buffer_pool_pages_dirty")
    threads.fill("64")
    threads.press("Enter")
    helpers.wait_source_column_changed(page, "pool", "buffer_pool_pages_dirty", before, 120)
    helpers.wait_status_ready(page)
    assert threads.input_value() == "64"
    threads.fill("5000")
    threads.press("Enter")
    page.wait_for_function(
        "() => document.body.innerText.includes('between 0 and 4,096')", timeout=10_000
    )
    assert threads.input_value() == "64"

    # MariaDB 10.11: its help and notes, readouts filled after the switch
    before = helpers.read_source_column(page, "pool", "buffer_pool_pages_dirty")
    page.locator(".fs-knob-engine select").select_option("mariadb-10.11")
    helpers.wait_source_column_changed(page, "pool", "buffer_pool_pages_dirty", before, 120)
    helpers.wait_status_ready(page, timeout=120)
    depth = page.locator(".fs-knob-innodb_lru_scan_depth").first
    page.wait_for_function(
        """() => {
            const el = document.querySelector('.fs-knob-innodb_lru_scan_depth');
            return el && el.title.includes('mariadb-10.11') && el.title.includes('1536');
        }""",
        timeout=10_000,
    )
    assert "Per instance" not in depth.get_attribute("title")
    for knob in ("innodb_lru_scan_depth", "innodb_io_capacity_max", "threads"):
        assert _readout(page, knob).input_value() != ""
    assert _readout(page, "innodb_lru_scan_depth").input_value() == "1536"
    helpers.screenshot(page, f"{name}-mariadb-10.11")
    assert console_errors.unexpected == []
