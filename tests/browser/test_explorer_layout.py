"""The explorer fits a projector: nothing is cut at three screen sizes (issue #35).

The sizes: 1280x720, 1366x768 and 1920x1080 in Voilà, and JupyterLab at 1600 px wide with its
file browser open.

"Cut" is measured, not eyeballed: a figure canvas past the right edge of the page (Voilà) or of
the notebook panel (JupyterLab), a control label shortened with an ellipsis, or a page wider than
the window. Each size leaves a screenshot in test-artifacts/.
"""

from __future__ import annotations

import helpers
import pytest

# the page's labels (ipywidgets, light DOM) whose text is wider than their box
_CUT_LABELS_JS = """() => [...document.querySelectorAll('.widget-label')]
    .filter(el => el.offsetParent !== null && el.scrollWidth > el.clientWidth + 1)
    .map(el => el.textContent.trim())"""

_PAGE_OVERFLOW_JS = """() => document.documentElement.scrollWidth
    - document.documentElement.clientWidth"""


def _figure_right_edges(page) -> list[float]:
    """The right edge (px) of every figure canvas; CSS selectors pierce Bokeh's shadow DOM."""
    canvases = page.locator(".bk-Figure canvas")
    boxes = (canvases.nth(i).bounding_box() for i in range(canvases.count()))
    return [b["x"] + b["width"] for b in boxes if b and b["width"] > 0]


def _nothing_cut(page, right_edge: float) -> None:
    edges = _figure_right_edges(page)
    assert len(edges) >= 6, f"{len(edges)} figure canvases on the page"
    assert max(edges) <= right_edge + 1, f"a figure ends at {max(edges):.0f} px of {right_edge}"
    assert page.evaluate(_CUT_LABELS_JS) == [], "control labels cut"
    assert page.evaluate(_PAGE_OVERFLOW_JS) <= 0, "the page is wider than the window"


@pytest.mark.parametrize(
    "size", [(1280, 720), (1366, 768), (1920, 1080)], ids=lambda s: "x".join(map(str, s))
)
def test_voila_fits_the_screen(page, voila_server, console_errors, size):
    width, height = size
    page.set_viewport_size({"width": width, "height": height})
    helpers.open_voila(page, voila_server)
    helpers.wait_status_ready(page, timeout=180)
    helpers.reveal(page, ".bk-Figure canvas").wait_for(state="visible")
    helpers.screenshot(page, f"voila-{width}x{height}")
    _nothing_cut(page, width)
    # a projector's first screen shows the figures beside the controls, not under them
    first = page.locator(".bk-Figure canvas").first.bounding_box()
    assert first["y"] < height, f"the first figure starts at {first['y']:.0f} px, below the screen"
    assert console_errors.unexpected == []


def test_lab_with_the_file_browser_open_fits(page, lab, explorer_notebook, console_errors):
    page.set_viewport_size({"width": 1600, "height": 900})
    helpers.open_lab_notebook(page, lab, explorer_notebook)
    if not page.locator(".jp-FileBrowser").is_visible():
        page.keyboard.press("Control+Shift+F")  # JupyterLab's "show the file browser"
    page.locator(".jp-FileBrowser").wait_for(state="visible")
    helpers.run_all_cells(page, lab)
    helpers.wait_status_ready(page, timeout=180)
    helpers.reveal(page, ".bk-Figure canvas").wait_for(state="visible")
    helpers.screenshot(page, "lab-1600-file-browser")
    panel = page.locator(".jp-NotebookPanel").first.bounding_box()
    _nothing_cut(page, panel["x"] + panel["width"])
    assert console_errors.unexpected == []
