"""Small standalone SVG line charts (no browser, no plotting package): server and model over time.

docs/validation.md shows one of these per recording (`replay_svg`): stacked panels that share
the time axis, the server as a solid line and the model as a dashed one, so that the figures
show on the page itself (GitHub renders SVG images; bokeh's PNG export needs a browser).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

WIDTH, PANEL_H = 640, 120
LEFT, RIGHT, TOP, GAP = 70, 20, 28, 34
SERVER, MODEL = "#1f77b4", "#d62728"


def _ticks(hi: float) -> list[float]:
    """Three or four round tick values from 0 to about `hi`."""
    if hi <= 0:
        return [0.0]
    step = 10 ** len(str(int(hi / 3))) / 10 if hi >= 3 else hi / 3
    for mult in (1, 2, 2.5, 5, 10):
        if hi / (step * mult) <= 4:
            step *= mult
            break
    n = int(hi / step)
    return [i * step for i in range(n + 1)]


def _label(x: float) -> str:
    if abs(x) >= 1e6:
        return f"{x / 1e6:g}M"
    if abs(x) >= 1e3:
        return f"{x / 1e3:g}k"
    return f"{x:g}"


def _panel(top: float, title: str, lines, seconds: int) -> list[str]:
    """One panel: axes, ticks, a polyline per (values, colour, dashed)."""
    values = [y for ys, _, _ in lines for y in ys if y is not None]
    hi = max(values, default=0.0) * 1.05 or 1.0
    w = WIDTH - LEFT - RIGHT

    def x(t: int) -> float:
        return LEFT + w * (t - 1) / max(1, seconds - 1)

    def y(v: float) -> float:
        return top + PANEL_H * (1 - v / hi)

    out = [
        f'<text x="{LEFT}" y="{top - 6}" font-size="12">{escape(title)}</text>',
        f'<rect x="{LEFT}" y="{top}" width="{w}" height="{PANEL_H}" fill="none" stroke="#999"/>',
    ]
    for v in _ticks(hi):
        out.append(
            f'<text x="{LEFT - 4}" y="{y(v) + 4:.1f}" font-size="10" text-anchor="end">'
            f"{_label(v)}</text>"
        )
    for ys, colour, dashed in lines:
        pts = " ".join(f"{x(t):.1f},{y(v):.1f}" for t, v in enumerate(ys, 1) if v is not None)
        dash = ' stroke-dasharray="5,3"' if dashed else ""
        out.append(
            f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="1.3"{dash}/>'
        )
    return out


def replay_svg(
    title: str,
    panels: Sequence[tuple[str, Sequence[float | None], Sequence[float | None]]],
) -> str:
    """An SVG of stacked panels (panel title, server values, model values), one value a second."""
    seconds = max((len(s) for _, s, _ in panels), default=1)
    height = TOP + len(panels) * (PANEL_H + GAP) + 20
    body = [
        f'<text x="{LEFT}" y="16" font-size="14" font-weight="bold">{escape(title)}</text>',
        f'<line x1="{WIDTH - 230}" y1="12" x2="{WIDTH - 205}" y2="12" stroke="{SERVER}"/>',
        f'<text x="{WIDTH - 200}" y="16" font-size="11">server</text>',
        f'<line x1="{WIDTH - 150}" y1="12" x2="{WIDTH - 125}" y2="12" stroke="{MODEL}" '
        'stroke-dasharray="5,3"/>',
        f'<text x="{WIDTH - 120}" y="16" font-size="11">model</text>',
    ]
    for i, (name, server, model) in enumerate(panels):
        top = TOP + GAP - 6 + i * (PANEL_H + GAP)
        body += _panel(top, name, [(server, SERVER, False), (model, MODEL, True)], seconds)
    axis_y = TOP + GAP - 6 + len(panels) * (PANEL_H + GAP) - GAP + 14
    body.append(
        f'<text x="{LEFT}" y="{axis_y}" font-size="10">1 s</text>'
        f'<text x="{WIDTH - RIGHT}" y="{axis_y}" font-size="10" text-anchor="end">'
        f"{seconds} s</text>"
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif">\n'
        f'<rect width="{WIDTH}" height="{height}" fill="white"/>\n' + "\n".join(body) + "\n</svg>\n"
    )
