"""How flushsim's figures look: size, number format, a time figure and its legend."""

from __future__ import annotations

from bokeh.models import (
    NumeralTickFormatter,
    Range1d,
)
from bokeh.plotting import figure

# Axis numbers as a DBA reads them (2,500,000 pages, 0.25 thread-s/s): Bokeh's default switches
# to 2.500e+6 above 10^5, which a 35 GiB pool's page counts reach.
NUMBER_FORMAT = "0,0.[00]"


def number_formatter() -> NumeralTickFormatter:
    """A tick formatter for NUMBER_FORMAT (one per axis: Bokeh models belong to one document)."""
    return NumeralTickFormatter(format=NUMBER_FORMAT)


# two figures a row beside the explorer's controls fit a 1280-pixel screen
WIDTH, HEIGHT = 380, 260


def time_figure(title: str, y_label: str, x_range=None):
    """A figure over simulated time (s): flushsim's size, tools and number format."""
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


def finish(p, legend_loc="above"):
    """Place and style the figure's legend; a click on an entry hides its curve."""
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
