"""A standalone HTML report of a run: the explorer's figures in one file that needs no server.

`python -m flushsim report PRESET --html out.html` writes it; BokehJS is inlined (no CDN), so
the file opens offline, e.g. when shared after a training session.
"""

from __future__ import annotations

import html
import math
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
    from .viz.regimes import regime_summary

    default = figures.default_ssd()
    setting = figures.SsdSetting(
        ssd.drive(drive) if drive else default.drive, default.fill if fill is None else fill
    )
    figs = figures.standalone(run, setting, baseline)
    if baseline is not None:
        label_dashed(figs.layout, f"baseline: {baseline.scenario.name or 'baseline'} (dashed)")
    life = run_lifetime(run, setting.drive, setting.fill)
    title = f"flushsim report: {run.scenario.name}"
    body = file_html(figs.layout, INLINE, title=title)
    head = _header(run, life, regime_summary(run))
    if baseline is not None:
        head = head.replace("</div>", _baseline_block(run, baseline, setting) + "</div>")
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
    from .viz.regimes import summary_items

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
<h3>Regimes</h3><ul>{summary_items(regimes)}</ul>
</div>"""


DASHED = [6]  # bokeh's "dashed" (the baseline's curves, `viz.figures`)


def label_dashed(layout, label: str) -> None:
    """Name the dashed (other run's) curves in each figure's legend: `label`."""
    from bokeh.models import GlyphRenderer, LegendItem

    for p in _plots(layout):
        dashed = [
            r
            for r in p.renderers
            if isinstance(r, GlyphRenderer) and list(getattr(r.glyph, "line_dash", [])) == DASHED
        ]
        if dashed and p.legend:
            p.legend[0].items.append(LegendItem(label=label, renderers=dashed[:1]))


def _plots(layout):
    from bokeh.plotting import figure

    return layout.select({"type": figure})


def _baseline_block(run: Run, baseline: Run, setting) -> str:
    """The baseline named, the knobs that differ, and both runs' first table and difference."""
    from .sweep import WearSetting
    from .whatif import side_figures

    a, b = run.scenario, baseline.scenario
    names = dict.fromkeys([*a.knobs, *b.knobs])
    differ = [k for k in names if _on(k, a.engine) and _on(k, b.engine) and a[k] != b[k]]
    knob_rows = "".join(
        f"<tr><td><code>{html.escape(k)}</code></td>"
        f"<td>{html.escape(server_value(params.get(k, a.engine), a[k]))}</td>"
        f"<td>{html.escape(server_value(params.get(k, b.engine), b[k]))}</td></tr>"
        for k in differ
    )
    wear = WearSetting(setting.drive, setting.fill)
    fig = {"this run": side_figures(run, 0, wear), "baseline": side_figures(baseline, 0, wear)}
    fig["difference"] = {k: fig["this run"][k] - fig["baseline"][k] for k in fig["this run"]}
    hours = float(a["ssd_hours_per_day"])
    return f"""<h3>Baseline: {html.escape(b.name or "baseline")}, drawn dashed</h3>
<p>{html.escape(b.description or "")} Engine {html.escape(b.engine)}, seed {b.seed}.</p>
<table border=1 cellpadding=4 style="border-collapse:collapse">
<tr><th>knob that differs</th><th>this run</th><th>baseline</th></tr>
{knob_rows or "<tr><td colspan=3>none: the same knobs</td></tr>"}</table>
<p></p>{figures_table(fig, hours, setting.fill)}"""


# a count is shown whole; a rate or size to one decimal, a latency to two (row unit -> format)
_FORMATS = {"waits": ",.0f", "trx/s": ",.0f", "ms": ",.2f"}


def _cell(value: float, unit: str) -> str:
    if not math.isfinite(value):
        return "no wear" if value > 0 else "&ndash;"
    text = f"{value:{_FORMATS.get(unit, ',.1f')}}"
    return text.lstrip("-") if not text.strip("-0.,") else text  # no "-0"


def _life_change(before: float, after: float) -> str:
    """A lifetime's change in days and as a percentage: "-146 days (-15 %)"."""
    if not (math.isfinite(before) and math.isfinite(after)):
        return "&ndash;" if before == after else "from or to no wear"
    days = (after - before) * 365
    pct = f" ({100 * (after - before) / before:+.0f} %)" if before else ""
    return f"{days:+,.{1 if abs(days) < 10 else 0}f} days{pct}"


def figures_table(fig: Mapping[str, Mapping[str, float]], hours: float, fill: float) -> str:
    """The first table: `fig`'s two sides and their difference (`whatif.ROWS`), one row each.

    Counts whole; the lifetime in words (`lifetime.duration_text`), its change in days and %.
    """
    from .lifetime import duration_text
    from .whatif import ROWS

    sides = list(fig)
    rows = []
    for k, (unit, what) in ROWS.items():
        if k == "ssd_lifetime_years":
            what = f"projected SSD lifetime at {fill:.0%} full, {hours:g} hours a day"
            cells = [duration_text(fig[side][k]) if fig[side][k] >= 0 else "" for side in sides[:2]]
            cells.append(_life_change(fig[sides[0]][k], fig[sides[1]][k]))
            unit = ""
        else:
            cells = [_cell(fig[side][k], unit) for side in sides]
        rows.append(
            f"<tr><td>{html.escape(what)}</td><td>{unit}</td>"
            + "".join(f"<td style='text-align:right'>{c}</td>" for c in cells)
            + "</tr>"
        )
    head = "".join(f"<th>{html.escape(side)}</th>" for side in sides)
    return (
        '<table border=1 cellpadding=4 style="border-collapse:collapse">'
        f"<tr><th>figure</th><th>unit</th>{head}</tr>{''.join(rows)}</table>"
    )


def write_whatif_html(
    w,
    path: str | Path,
    *,
    written: Mapping[str, str] | None = None,
    origin: Mapping[str, str] | None = None,
) -> Path:
    """Write a what-if (`flushsim.whatif.WhatIf`): both runs' figures and their difference.

    The first table gives both runs and the difference (`WhatIf.figures`); the knob table shows
    the values each side ran, as written where the config's text (`written`, e.g. 12G) is what
    ran, with where each was read (`origin`: knob -> "conf.d/redo.cnf, line 2"), `--set` where
    the command line replaced it; the server's adjustments (io_capacity above its max) are
    listed; the figures draw the proposed run, the current one dashed; each regime once per run.
    """
    from bokeh.embed import file_html
    from bokeh.resources import INLINE

    from .viz import figures
    from .viz.regimes import regime_summary
    from .warmup import cut

    path = outputs.check_output(path, suffixes=(".html",), force=True, what="report file")
    current = cut(w.current, w.warmup_s, w.current.scenario)
    proposed = cut(w.proposed, w.warmup_s, w.proposed.scenario)
    setting = figures.SsdSetting(w.wear.resolved(), w.wear.fill)
    figs = figures.standalone(proposed, setting, current)
    figs.regimes_text.text = ""  # listed once, by run, in the header
    label_dashed(figs.layout, "current (dashed)")
    body = file_html(figs.layout, INLINE, title="flushsim what-if")
    head = _whatif_header(
        w, setting, written or {}, origin or {}, regime_summary(current), regime_summary(proposed)
    )
    at = body.rfind("<body>") + len("<body>")
    with outputs.atomic_path(path) as tmp:
        tmp.write_text(body[:at] + "\n" + head + body[at:], encoding="utf-8")
    return path


def _whatif_header(
    w, setting, written: Mapping[str, str], origin: Mapping[str, str], *regimes
) -> str:
    from .viz.regimes import summary_items

    sc = w.current.scenario
    lives = w.lifetimes()
    life_rows = "".join(
        f"<li>{side}: <b>{html.escape(life.headline)}</b></li>" for side, life in lives.items()
    )
    table = figures_table(w.figures(), float(sc["ssd_hours_per_day"]), w.wear.fill)
    knob_rows = "".join(
        "<tr>"
        + "".join(f"<td>{html.escape(c)}</td>" for c in _knob_cells(k, w, written, origin))
        + "</tr>"
        for k in dict.fromkeys([*sc.knobs, *w.changes, *w.ran()["current"]])
    )
    adjusted = "".join(
        f"<li>{side}: {html.escape(text)}</li>"
        for side, texts in w.adjustments().items()
        for text in texts
    )
    notes = "".join(
        f"<h4>{side}</h4><ul>{summary_items(r)}</ul>"
        for side, r in zip(("current", "proposed"), regimes, strict=True)
    )
    return f"""<div style="font-family:sans-serif;max-width:1000px;margin:12px">
<h1>flushsim what-if: {html.escape(", ".join(f"{k}={v}" for k, v in w.changes.items()))}</h1>
<p>Engine <b>{html.escape(sc.engine)}</b>, {sc.seconds - w.warmup_s} simulated seconds after
{html.escape(w.warmup_note)}, seed {sc.seed}, the same workload on both sides. Drive:
{html.escape(setting.drive.model)}, {setting.fill:.0%} full.</p>
<p class="fs-workload">{html.escape(workload_line(sc))}</p>
<p>SSD lifetime ({html.escape(ssd.MODEL_NAMES[w.wear.model])}):</p>
<ul class="fs-lifetime">{life_rows}</ul>
{table}
<h3>Knobs (the values that ran; everything else is the server default)</h3>
<table border=1 cellpadding=4 style="border-collapse:collapse">
<tr><th>knob</th><th>current</th><th>proposed</th><th>read from</th></tr>{knob_rows}</table>
{f'<h3>Adjusted by the server</h3><ul class="fs-adjusted">{adjusted}</ul>' if adjusted else ""}
<h3>Regimes (each once: how many seconds, from when)</h3>{notes}
<p>Figures: the proposed run, the current one dashed.</p>
</div>"""


def _knob_cells(k: str, w, written: Mapping[str, str], origin: Mapping[str, str]) -> list[str]:
    """[knob, current value, proposed value, where the current value came from]."""
    cur, new = w.current.scenario, w.proposed.scenario
    p = params.get(k, cur.engine)
    value, where = _as_written(k, cur, written), origin.get(k, "")
    if k in cur.knobs and k in written and not _same(p, written[k], _read(p, cur.knobs[k])):
        value, where = server_value(p, cur[k]), f"--set (the config's {written[k]}: {where})"
    elif k in cur.knobs and k not in written:
        value, where = server_value(p, cur[k]), _given(k, w)
    if k in cur.knobs and not _equal(cur[k], _read(p, cur.knobs[k])):
        value += " (adjusted by the server)"
    proposed = ""
    if k in w.changes:
        asked = w.changes[k]
        proposed = (
            asked if _same(p, asked, new[k]) else f"{server_value(p, new[k])} (asked {asked})"
        )
    elif new[k] != cur[k]:
        proposed = f"{server_value(p, new[k])} (adjusted by the server)"
    return [k, value, proposed, where]


def _same(p: params.Param, text: str, value: object) -> bool:
    """Whether `text` (as the DBA wrote it) reads as `value`; text flushsim cannot read counts."""
    try:
        read = params.parse_value(p.name, text)
    except ValueError:
        return True
    return _equal(read, value)


def _equal(a: object, b: object) -> bool:
    return a == b or str(a) == str(b)  # a choice knob reads as text: "16384"


def _read(p: params.Param, value: object) -> object:
    """A knob's value as given (a preset's "1G" too) as the server reads it."""
    return params.parse_value(p.name, value) if isinstance(value, str) else value


def _on(k: str, engine: str) -> bool:
    try:
        params.get(k, engine)
    except ValueError:
        return False
    return True


def _given(k: str, w) -> str:
    """Where a knob the config does not set came from: the drive picked, else the command line."""
    if k == "device" and w.current.scenario[k] == w.wear.resolved().device:
        return "--drive"
    return "--set"


def workload_line(sc) -> str:
    """The load both sides run, in one line, and that it is not the config's (change: --set).

    A my.cnf, SHOW GLOBAL VARIABLES or recording gives settings, not load: the workload knobs
    are flushsim's defaults unless set on the command line.
    """
    rows, page = int(sc["table_rows"]), int(sc["innodb_page_size"])
    mib = -(-rows // int(sc["rows_per_page"])) * page / 2**20
    given = [k for k in sc.knobs if params.get(k, sc.engine).group == "workload"]
    whose = f"flushsim's defaults except {', '.join(given)}" if given else "flushsim's defaults"
    return (
        f"Workload: {whose}: {sc['workload']} access to {rows:,} rows ({mib:,.0f} MiB), "
        f"{sc['threads']} threads, {sc['write_pct']:g} % writes, {sc['rows_per_trx']} rows per "
        "transaction. The config gives the server's settings, not its load (a recording's own "
        "load is not replayed here: python -m flushsim replay RECORDING does); change the "
        "load with --set KNOB=VALUE (python -m flushsim knobs lists the workload knobs)."
    )


def _as_written(name: str, sc, written: Mapping[str, str]) -> str:
    """A knob's current value as the DBA wrote it, else as the server prints it (12G)."""
    if name in written:
        return written[name]
    if name in sc.knobs:
        return server_value(params.get(name, sc.engine), sc.knobs[name])
    return f"{server_value(params.get(name, sc.engine), sc[name])} (default)"
