"""Small static SVG charts for the HTML reports (issues #30 and #31): drawn here as text, no
script and nothing loaded from the network, each with a title, labelled axes with units and
every value written beside its mark (a reader never has to estimate a bar's length).

* ``bars``: grouped horizontal bars (dynamic counts before/after a pass; a pass's share of the
  ideal reuse);
* ``lines``: values against a small integer axis (reuse level against history depth);
* ``ranges``: intervals ``[lower, upper]`` with one exact value marked on each row (estimator
  bounds against the exact benefit).

Every text goes through ``html.escape``; the result is a ``markupsafe.Markup`` the jinja2
templates insert as it is.

Example
-------
>>> str(bars("Loads", ["main"], {"before": [10], "after": [4]}, unit="loads"))[:4]
'<svg'
"""
from __future__ import annotations

import html
import math

from markupsafe import Markup

#: Series colours, in order (colour-blind safe: Okabe-Ito).
COLOURS = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00")
FONT = 'font-family="sans-serif" font-size="11"'


def _esc(text) -> str:
    return html.escape(str(text), quote=True)


def number(v) -> str:
    """A value as written on a chart: integers with thousands separators, floats to 1 decimal."""
    if v is None:
        return "-"
    if isinstance(v, float) and not v.is_integer():
        return f"{v:,.1f}"
    return f"{int(v):,}"


def nice_max(v: float) -> float:
    """The axis end: ``v`` rounded up to 1, 2 or 5 times a power of ten (1 when ``v`` <= 0)."""
    if v <= 0:
        return 1
    step = 10 ** math.floor(math.log10(v))
    for m in (1, 2, 5, 10):
        if v <= m * step:
            return m * step
    return 10 * step


def _ticks(top: float) -> list[float]:
    """0 to ``top`` in 4, 5 or 2 steps, whole numbers where that is possible."""
    n = next((n for n in (4, 5, 2) if float(top / n).is_integer()), 4)
    return [top * k / n for k in range(n + 1)]


def _svg(width: int, height: int, title: str, body: list[str]) -> Markup:
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{width}" '
            f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
            f'aria-label="{_esc(title)}">'
            f'<title>{_esc(title)}</title>'
            f'<text x="4" y="14" {FONT} font-weight="bold">{_esc(title)}</text>')
    return Markup(head + "".join(body) + "</svg>")


def _legend(names: list[str], x: int, y: int, width: int) -> tuple[list[str], int]:
    """Colour keys and names left to right, a new row where the next one would not fit;
    returns the elements and the baseline of the last row."""
    out, left = [], x
    for k, name in enumerate(names):
        w = 24 + 6.5 * len(name)
        if x > left and x + w > width:
            x, y = left, y + 14
        colour = COLOURS[k % len(COLOURS)]
        out.append(f'<rect x="{x}" y="{y - 8}" width="10" height="10" fill="{colour}"/>'
                   f'<text x="{x + 14}" y="{y + 1}" {FONT}>{_esc(name)}</text>')
        x += w
    return out, y


def bars(title: str, categories: list[str], series: dict[str, list], *, unit: str,
         width: int = 420, top: float | None = None) -> Markup:
    """Horizontal bars: per category (a row) one bar per series, its value written at its end;
    the x axis from 0 with ticks, titled ``unit``. ``top``: the axis end (default: the largest
    value rounded up). A value None draws no bar and writes ``-``."""
    names = list(series)
    label_w = max([len(c) for c in categories] + [4]) * 7 + 8
    bar_h, gap = 13, 8
    plot_x, plot_w = label_w, width - label_w - 60
    values = [v for vs in series.values() for v in vs if v is not None]
    top = top or nice_max(max(values, default=0))
    body, last = _legend(names, 4, 28, width) if len(names) > 1 else ([], 22)
    y0 = last + 12
    y = y0
    for i, cat in enumerate(categories):
        body.append(f'<text x="{label_w - 6}" y="{y + bar_h * len(names) / 2 + 4}" '
                    f'text-anchor="end" {FONT}>{_esc(cat)}</text>')
        for k, name in enumerate(names):
            v = series[name][i]
            w = 0 if v is None else max(0.0, plot_w * v / top)
            colour = COLOURS[k % len(COLOURS)]
            body.append(f'<rect class="bar" x="{plot_x}" y="{y}" width="{w:.1f}" '
                        f'height="{bar_h - 2}" fill="{colour}">'
                        f'<title>{_esc(cat)}, {_esc(name)}: {_esc(number(v))} {_esc(unit)}'
                        f'</title></rect>'
                        f'<text class="value" x="{plot_x + w + 3:.1f}" y="{y + bar_h - 3}" '
                        f'{FONT}>{_esc(number(v))}</text>')
            y += bar_h
        y += gap
    axis_y = y
    body.append(f'<line x1="{plot_x}" y1="{y0 - 2}" x2="{plot_x}" y2="{axis_y}" stroke="#555"/>'
                f'<line x1="{plot_x}" y1="{axis_y}" x2="{plot_x + plot_w}" y2="{axis_y}" '
                f'stroke="#555"/>')
    for t in _ticks(top):
        x = plot_x + plot_w * t / top
        body.append(f'<line x1="{x:.1f}" y1="{axis_y}" x2="{x:.1f}" y2="{axis_y + 4}" '
                    f'stroke="#555"/><text x="{x:.1f}" y="{axis_y + 15}" text-anchor="middle" '
                    f'{FONT} fill="#555">{_esc(number(t))}</text>')
    body.append(f'<text x="{plot_x + plot_w / 2:.1f}" y="{axis_y + 29}" text-anchor="middle" '
                f'{FONT}>{_esc(unit)}</text>')
    return _svg(width, axis_y + 36, title, body)


def lines(title: str, xs: list, series: dict[str, list], *, x_unit: str, y_unit: str,
          width: int = 420, height: int = 220, top: float | None = None) -> Markup:
    """One polyline per series over the points ``xs`` (evenly spaced), each point's value
    written above it; y from 0 to ``top`` (default: the largest value rounded up)."""
    names = list(series)
    values = [v for vs in series.values() for v in vs if v is not None]
    top = top or nice_max(max(values, default=0))
    body, last = _legend(names, 4, 30, width)
    plot_x, plot_y = 52, last + 14
    plot_w, plot_h = width - plot_x - 16, height - plot_y - 42

    def px(i):
        return plot_x + (plot_w * i / (len(xs) - 1) if len(xs) > 1 else plot_w / 2)

    def py(v):
        return plot_y + plot_h - plot_h * v / top
    base = plot_y + plot_h
    body.append(f'<line x1="{plot_x}" y1="{plot_y}" x2="{plot_x}" y2="{base}" stroke="#555"/>'
                f'<line x1="{plot_x}" y1="{base}" x2="{plot_x + plot_w}" y2="{base}" '
                f'stroke="#555"/>')
    for t in _ticks(top):
        body.append(f'<text x="{plot_x - 4}" y="{py(t) + 4:.1f}" text-anchor="end" {FONT} '
                    f'fill="#555">{_esc(number(t))}</text><line x1="{plot_x}" y1="{py(t):.1f}" '
                    f'x2="{plot_x + plot_w}" y2="{py(t):.1f}" stroke="#eee"/>')
    for i, x in enumerate(xs):
        body.append(f'<text x="{px(i):.1f}" y="{base + 15}" text-anchor="middle" {FONT} '
                    f'fill="#555">{_esc(x)}</text>')
    body.append(f'<text x="{plot_x + plot_w / 2:.1f}" y="{base + 31}" text-anchor="middle" '
                f'{FONT}>{_esc(x_unit)}</text>'
                f'<text x="12" y="{plot_y + plot_h / 2:.1f}" text-anchor="middle" {FONT} '
                f'transform="rotate(-90 12 {plot_y + plot_h / 2:.1f})">{_esc(y_unit)}</text>')
    # each point's value above it; at one x, labels pushed up so that none overlaps another
    # (an equal value of an earlier series is written once)
    label_y: dict = {}
    for i, xv in enumerate(xs):
        seen, prev = set(), None
        at = sorted(((py(series[n][i]), k, series[n][i]) for k, n in enumerate(names)
                     if series[n][i] is not None), reverse=True)
        for y, k, v in at:
            if v in seen:
                continue
            seen.add(v)
            ly = y - 6 if prev is None else min(y - 6, prev - 11)
            label_y[(k, i)] = prev = ly
    for k, name in enumerate(names):
        colour = COLOURS[k % len(COLOURS)]
        points = [(i, px(i), py(v), v) for i, v in enumerate(series[name]) if v is not None]
        body.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="'
                    + " ".join(f"{x:.1f},{y:.1f}" for _, x, y, _ in points) + '"/>')
        for i, x, y, v in points:
            body.append(f'<circle class="point" cx="{x:.1f}" cy="{y:.1f}" r="3" '
                        f'fill="{colour}"><title>{_esc(name)}, {_esc(x_unit)} {_esc(xs[i])}: '
                        f'{_esc(number(v))} {_esc(y_unit)}</title></circle>'
                        + ("" if (k, i) not in label_y else
                           f'<text class="value" x="{x:.1f}" y="{label_y[(k, i)]:.1f}" '
                           f'text-anchor="middle" {FONT} fill="{colour}">{_esc(number(v))}'
                           f'</text>'))
    return _svg(width, height, title, body)


def span(lo, hi) -> str:
    """An interval as a chart writes it: ``80 - 130``, or one number when both ends agree."""
    return number(lo) if lo == hi else f"{number(lo)} - {number(hi)}"


def ranges(title: str, rows: list[tuple[str, float, float]], exact: float, *, unit: str,
           exact_label: str = "exact", width: int = 460) -> Markup:
    """Per row a bar from its lower to its upper bound, the interval written after it
    (``span``); one vertical line at
    ``exact`` across all rows, labelled ``exact_label`` and its value."""
    label_w = max([len(r[0]) for r in rows] + [4]) * 7 + 8
    plot_x, plot_w = label_w, width - label_w - 110
    top = nice_max(max([r[2] for r in rows] + [exact, 0]))
    row_h, y0 = 20, 40
    body = []

    def px(v):
        return plot_x + plot_w * v / top
    for i, (name, lo, hi) in enumerate(rows):
        y = y0 + i * row_h
        body.append(f'<text x="{label_w - 6}" y="{y + 10}" text-anchor="end" {FONT}>'
                    f'{_esc(name)}</text>'
                    f'<rect class="bar" x="{px(lo):.1f}" y="{y}" '
                    f'width="{max(px(hi) - px(lo), 1.5):.1f}" height="12" fill="{COLOURS[0]}" '
                    f'fill-opacity="0.55"><title>{_esc(name)}: {_esc(number(lo))} to '
                    f'{_esc(number(hi))} {_esc(unit)}</title></rect>'
                    f'<text class="value" x="{max(px(hi), px(lo) + 1.5) + 4:.1f}" '
                    f'y="{y + 10}" {FONT}>{_esc(span(lo, hi))}</text>')
    axis_y = y0 + len(rows) * row_h + 4
    ex = px(exact)
    body.append(f'<line x1="{ex:.1f}" y1="{y0 - 8}" x2="{ex:.1f}" y2="{axis_y}" '
                f'stroke="{COLOURS[5]}" stroke-width="2"><title>{_esc(exact_label)}: '
                f'{_esc(number(exact))} {_esc(unit)}</title></line>'
                f'<text class="value" x="{ex:.1f}" y="{y0 - 11}" text-anchor="middle" {FONT} '
                f'fill="{COLOURS[5]}">{_esc(exact_label)} {_esc(number(exact))}</text>'
                f'<line x1="{plot_x}" y1="{axis_y}" x2="{plot_x + plot_w}" y2="{axis_y}" '
                f'stroke="#555"/>')
    for t in _ticks(top):
        body.append(f'<line x1="{px(t):.1f}" y1="{axis_y}" x2="{px(t):.1f}" y2="{axis_y + 4}" '
                    f'stroke="#555"/><text x="{px(t):.1f}" y="{axis_y + 15}" '
                    f'text-anchor="middle" {FONT} fill="#555">{_esc(number(t))}</text>')
    body.append(f'<text x="{plot_x + plot_w / 2:.1f}" y="{axis_y + 29}" text-anchor="middle" '
                f'{FONT}>{_esc(unit)}</text>')
    return _svg(width, axis_y + 36, title, body)
