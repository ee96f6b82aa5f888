"""A slider's readout a user can type into: the typed value applies, or it is refused and reverts.

ipywidgets 8 makes a SelectionSlider's readout editable (contentEditable) but never reads what
is typed there: the page showed 64 threads while the run kept 16. The explorer's sliders hide
that readout (`readout=False`) and show this one, a Text box the kernel reads on Enter or blur.
A typed value is checked by `check(value)` (the server's range, the simulator's limits); a
refused one leaves the error on `on_error` and the box shows the slider's value again, so the
box is never blank and never shows a value that does not run.
"""

from __future__ import annotations

from collections.abc import Callable

import ipywidgets as w


class TypedReadout:
    """The Text box beside `slider`, kept in step with it.

    `show(value)` is the text of a value; `parse(text)` a value from typed text and `check`
    validates it (both raise ValueError with the message to show). `look` is the box's
    (layout, style), shared by every readout: fewer widget models for a page to load.
    """

    def __init__(
        self,
        slider: w.SelectionSlider | w.IntSlider,
        show: Callable[[object], str],
        parse: Callable[[str], object],
        check: Callable[[object], None],
        on_error: Callable[[str], None],
        look: tuple[w.Layout, object],
    ) -> None:
        self.slider, self._show, self._parse, self._check = slider, show, parse, check
        self._on_error = on_error
        slider.readout = False
        self.box = w.Text(
            value=show(slider.value),
            continuous_update=False,
            layout=look[0],
            style=look[1],
            tooltip=slider.tooltip,
            disabled=slider.disabled,
        )
        self.box.add_class("fs-readout")
        slider.observe(self._follow, names="value")
        slider.observe(self._enable, names="disabled")
        self.box.observe(self._typed, names="value")

    def _follow(self, change) -> None:
        self.box.value = self._show(change["new"])

    def _enable(self, change) -> None:
        self.box.disabled = change["new"]

    def _typed(self, change) -> None:
        text = change["new"].strip()
        if text == self._show(self.slider.value):
            return
        try:
            if not text:
                raise ValueError(f"{self.slider.description}: type a value")
            value = self._parse(text)
            self._check(value)
        except ValueError as exc:
            self.box.value = self._show(self.slider.value)  # revert: never blank
            self._on_error(str(exc))
            return
        if isinstance(self.slider, w.SelectionSlider):
            values = [v for _, v in self.slider.options]
            if value not in values:
                self.slider.options = sorted(
                    [*self.slider.options, (self._show(value), value)], key=lambda o: o[1]
                )
        self.slider.value = value
        self.box.value = self._show(self.slider.value)
