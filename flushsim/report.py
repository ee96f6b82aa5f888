"""A standalone HTML report of a run: the explorer's figures in one file that needs no server.

`python -m flushsim report PRESET --html out.html` writes it; BokehJS is inlined (no CDN), so
the file opens offline, e.g. when shared after a training session.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from pathlib import Path

from . import outputs, params, ssd
from .knob_text import server_value
from .lifetime import Lifetime, run_lifetime
from .run import Run


def write_html(
    run: Run,
    path: str | Path,
    *,
    drive: str | None = None,
    fill: float | None = None,
    baseline: Run | None = None,
) -> Path:
    """Write the figures, the knobs that differ from the server defaults and the regime changes.

    Args:
        run: the run to show.
        path: output file; must end in .html (any case) in an existing folder; an existing
            file is replaced (the command line checks first, `flushsim.outputs.check_output`).
        drive: catalog drive name for the wear figures (default: seed 004's drive).
        fill: fraction of the drive holding data, 0 <= fill <= 0.95 (default 0.5).
        baseline: optional second run, drawn dashed.

    Returns:
        The path written.
    """
    path = outputs.check_output(path, suffixes=(".html",), force=True, what="report file")
    if fill is not None and not 0.0 <= fill <= 0.95:
        raise ValueError(f"fill={fill!r} must be between 0 and 0.95 (fraction of the drive)")
    # Bokeh is an optional dependency (the notebook extra): import it only here.
    from bokeh.embed import file_html
    from bokeh.resources import INLINE

    from .viz import figures
    from .viz.regimes import regime_changes

    default = figures.default_ssd()
    setting = figures.SsdSetting(
        ssd.drive(drive) if drive else default.drive, default.fill if fill is None else fill
    )
    figs = figures.standalone(run, setting, baseline)
    life = run_lifetime(run, setting.drive, setting.fill)
    title = f"flushsim report: {run.scenario.name}"
    body = file_html(figs.layout, INLINE, title=title)
    head = _header(run, life, regime_changes(run))
    # file_html gives a whole page; put the text block right after the <body> tag (the last
    # "<body>" in it: the inlined BokehJS mentions the tag in an error message).
    at = body.rfind("<body>") + len("<body>")
    page = body[:at] + "\n" + head + body[at:]
    # the folder is the caller's to make (never created behind the user's back), and the page
    # appears whole or not at all
    with outputs.atomic_path(path) as tmp:
        tmp.write_text(page, encoding="utf-8")
    return path


def _header(run: Run, life: Lifetime, regimes) -> str:
    from .knob_text import event_text

    sc = run.scenario
    s = run.summary()
    knob_rows = "".join(
        f"<tr><td><code>{html.escape(k)}</code></td>"
        f"<td>{html.escape(server_value(params.get(k, sc.engine), v))}</td></tr>"
        for k, v in sc.knobs.items()
    )
    knob_rows += "".join(
        f"<tr><td colspan=2>at {at:g} s: {html.escape(event_text(action, knob, v, sc.engine))}"
        "</td></tr>"
        for at, action, knob, v in sc.changes
    )
    regime_rows = "".join(
        f"<li>at {t} s: {html.escape(text)}</li>"
        for t, text in zip(regimes["time_s"], regimes["text"], strict=True)
    )
    return f"""<div style="font-family:sans-serif;max-width:900px;margin:12px">
<h1>{html.escape(f"flushsim: {sc.name}")}</h1>
<p>{html.escape(sc.description or "")}</p>
<p>Engine <b>{html.escape(sc.engine)}</b>, {run.series.height} simulated seconds, seed {sc.seed}.
Drive: {html.escape(life.drive.model)}.</p>
<p class="fs-lifetime">SSD lifetime: <b>{html.escape(life.headline)}</b>
({html.escape(ssd.MODEL_NAMES[life.model])}).</p>
<p>Mean {s["tps_mean"]:,.0f} transactions/s; {s["wait_free_total"]:,.0f}
Innodb_buffer_pool_wait_free; at most {s["dirty_pages_max"]:,.0f} dirty pages;
{s["updates_per_page_flushed"]:.1f} row updates per page flushed.</p>
<h3>Knobs set (everything else is the server default) and timeline</h3>
<table>{knob_rows or "<tr><td>none</td></tr>"}</table>
<h3>Regime changes</h3><ol>{regime_rows or "<li>none</li>"}</ol>
</div>"""


def write_whatif_html(
    w,
    path: str | Path,
    *,
    written: Mapping[str, str] | None = None,
    origin: Mapping[str, str] | None = None,
) -> Path:
    """Write a what-if (`flushsim.whatif.WhatIf`): both runs' figures and their difference.

    The first table gives both runs and the difference (`WhatIf.figures`); the knob table shows
    values as written (`written`: the config's own text, e.g. 12G; the changes as given) and
    where each was read (`origin`: knob -> "conf.d/redo.cnf, line 2"); the figures draw the
    proposed run, the current one dashed; the regime notes come once, by run.
    """
    from bokeh.embed import file_html
    from bokeh.resources import INLINE

    from .viz import figures
    from .viz.regimes import regime_changes
    from .warmup import cut

    path = outputs.check_output(path, suffixes=(".html",), force=True, what="report file")
    current = cut(w.current, w.warmup_s, w.current.scenario)
    proposed = cut(w.proposed, w.warmup_s, w.proposed.scenario)
    setting = figures.SsdSetting(w.wear.resolved(), w.wear.fill)
    body = file_html(
        figures.standalone(proposed, setting, current).layout, INLINE, title="flushsim what-if"
    )
    head = _whatif_header(
        w, setting, written or {}, origin or {}, regime_changes(current), regime_changes(proposed)
    )
    at = body.rfind("<body>") + len("<body>")
    with outputs.atomic_path(path) as tmp:
        tmp.write_text(body[:at] + "\n" + head + body[at:], encoding="utf-8")
    return path


def _whatif_header(
    w, setting, written: Mapping[str, str], origin: Mapping[str, str], *regimes
) -> str:
    from .whatif import ROWS

    fig = w.figures()
    rows = "".join(
        f"<tr><td>{html.escape(what)}</td><td>{unit}</td>"
        + "".join(f"<td style='text-align:right'>{fig[side][k]:,.2f}</td>" for side in fig)
        + "</tr>"
        for k, (unit, what) in ROWS.items()
    )
    sc = w.current.scenario
    lives = w.lifetimes()
    life_rows = "".join(
        f"<li>{side}: <b>{html.escape(life.headline)}</b></li>" for side, life in lives.items()
    )
    knob_rows = "".join(
        f"<tr><td><code>{html.escape(k)}</code></td><td>{html.escape(_as_written(k, sc, written))}"
        f"</td><td>{html.escape(w.changes.get(k, ''))}</td>"
        f"<td>{html.escape(origin.get(k, ''))}</td></tr>"
        for k in dict.fromkeys([*sc.knobs, *w.changes])
    )
    notes = "".join(
        f"<h4>{side}</h4><ol>"
        + (
            "".join(
                f"<li>at {t} s: {html.escape(text)}</li>"
                for t, text in zip(r["time_s"], r["text"], strict=True)
            )
            or "<li>none</li>"
        )
        + "</ol>"
        for side, r in zip(("current", "proposed"), regimes, strict=True)
    )
    return f"""<div style="font-family:sans-serif;max-width:1000px;margin:12px">
<h1>flushsim what-if: {html.escape(", ".join(f"{k}={v}" for k, v in w.changes.items()))}</h1>
<p>Engine <b>{html.escape(sc.engine)}</b>, {sc.seconds - w.warmup_s} simulated seconds after
{html.escape(w.warmup_note)}, seed {sc.seed}, the same workload on both sides. Drive:
{html.escape(setting.drive.model)}, {setting.fill:.0%} full.</p>
<p>SSD lifetime ({html.escape(ssd.MODEL_NAMES[w.wear.model])}):</p>
<ul class="fs-lifetime">{life_rows}</ul>
<table border=1 cellpadding=4 style="border-collapse:collapse">
<tr><th>figure</th><th>unit</th><th>current</th><th>proposed</th><th>difference</th></tr>
{rows}</table>
<h3>Knobs (as written; everything else is the server default)</h3>
<table border=1 cellpadding=4 style="border-collapse:collapse">
<tr><th>knob</th><th>current</th><th>proposed</th><th>read from</th></tr>{knob_rows}</table>
<h3>Regime changes</h3>{notes}
<p>Figures: the proposed run, the current one dashed.</p>
</div>"""


def _as_written(name: str, sc, written: Mapping[str, str]) -> str:
    """A knob's current value as the DBA wrote it, else as the server prints it (12G)."""
    if name in written:
        return written[name]
    if name in sc.knobs:
        return server_value(params.get(name, sc.engine), sc.knobs[name])
    return f"{server_value(params.get(name, sc.engine), sc[name])} (default)"
