"""The browser-side player: a play / pause toggle, a time slider, the regime list, the curtain.

The animation runs in the page: one CustomJS callback moves the curtain (a white strip from the
current second to the right edge) and lists the regime changes reached; its frames stay in the
page. The JavaScript here also patches BokehJS for the explorer's speed (each patch says why).
"""

from __future__ import annotations

from bokeh.models import (
    CustomJS,
    Div,
    Slider,
    Toggle,
)

from .style import WIDTH

CURTAIN_END = 1e9  # seconds: the curtain's right edge, beyond any run


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

# ipywidgets puts a control's tooltip on its description label at most (8.1's DescriptionView
# .updateTooltip; Voila's bundled widgets put it nowhere): a dropdown's <select> and a slider's
# body carry no help. The explorer's help goes through its Bokeh document instead, in the source
# named `help` (columns `knob`, `text`), and this script sets it as the `title` of each control
# (DOM class fs-knob-<knob>) and of its <select>: now, when the help changes (an engine switch)
# and whenever the page changes (a new view), coalesced to one pass a frame.
_HELP_TITLES = r"""
if (!window.__flushsim_help_copy && typeof MutationObserver !== "undefined" && document.body) {
    const column = (data, key) => typeof data.get === "function" ? data.get(key) : data[key];
    const copy = () => {
        window.__flushsim_help_queued = false;
        for (const doc of (window.Bokeh && window.Bokeh.documents) || []) {
            const help = doc.get_model_by_name("help");
            if (!help) { continue; }
            const knobs = column(help.data, "knob") || [], texts = column(help.data, "text") || [];
            for (let i = 0; i < knobs.length; i++) {
                for (const el of document.querySelectorAll(".fs-knob-" + knobs[i])) {
                    for (const target of [el, ...el.querySelectorAll("select")]) {
                        if (target.title !== texts[i]) { target.title = texts[i]; }
                    }
                }
            }
        }
    };
    window.__flushsim_help_copy = copy;
    new MutationObserver(() => {
        if (!window.__flushsim_help_queued) {
            window.__flushsim_help_queued = true;
            requestAnimationFrame(copy);
        }
    }).observe(document.body, {subtree: true, childList: true});
}
if (window.__flushsim_help_copy) { window.__flushsim_help_copy(); }
"""

# The patches as a page's own script (notebook.output_notebook), in place before the first
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
    + _HELP_TITLES
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


def player(curtain, regimes, series, help_source=None):
    """The browser-side player: a play / pause toggle, a time slider and the regime list.

    `series` is a per-second source (its `time_s` column): the player never runs past its end.
    `help_source` (named "help") holds the controls' help that `_HELP_TITLES` puts on them.
    """
    # as wide as the two figures a row above them, no wider (a 1280-pixel screen)
    play = Toggle(label="play / pause", active=False, width=110, name="play")
    clock = Slider(
        start=0, end=60, value=60, step=1, title="time (s)", width=2 * WIDTH - 140, name="clock"
    )
    # Fixed size, scrolling past REGIME_LINES lines: a new list then never moves the layout.
    text = Div(
        text="",
        width=2 * WIDTH,
        height=REGIME_LINES * 18,
        styles={"overflow-y": "auto"},
        name="regimes_text",
    )
    args = dict(
        curtain=curtain,
        curtain_end=CURTAIN_END,
        clock=clock,
        regimes=regimes,
        div=text,
        help=help_source,  # unused here: it puts the help source in the document
    )
    clock.js_on_change("value", CustomJS(args=args, code=_REVEAL_JS))
    # A re-run sends new regimes while the clock may not move: list them again.
    if regimes is not None:
        regimes.js_on_change("data", CustomJS(args=args, code=_REVEAL_JS))
    if help_source is not None:
        help_source.js_on_change("data", CustomJS(code=_HELP_TITLES))
    play_args = dict(args, play=play, series=series, frame_ms=FRAME_MS, slider_every=SLIDER_EVERY)
    play.js_on_change("active", CustomJS(args=play_args, code=_PLAY_JS))
    return clock, play, text
