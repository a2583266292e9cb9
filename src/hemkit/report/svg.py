"""Figures as inline SVG that read at any size: every mark names itself on hover, no text under 10 units.

The report's figures about readings (the plan, the variability, the correlations, the
per-pair intervals) are drawn here as plain SVG rather than matplotlib PNGs, so that

- each mark carries a ``<title>`` (an event, a pair, a group) that a browser shows on
  hover with scripts off, and a search can find;
- the text stays text: 10 units at the smallest, and a figure is never drawn wider than
  :data:`WIDTH` units, so at the page's width (1280 px screens and up) a unit is a pixel;
- names that do not fit are thinned (every k-th shown, the rest reachable by hover and in
  the tables beside the figure), never overprinted;
- nothing is imported but NumPy: a report of hundreds of events draws in milliseconds.

A heatmap of more than :data:`CELL_TITLES` events draws its cells as one embedded PNG
(written here with :mod:`zlib`), one pixel per cell, scaled up; the page's script names the
cell under the pointer from the figure's ``data-`` attributes.

Examples
--------
>>> s = Svg(200, 40, "two dots")
>>> s.circle(10, 10, 3, "#36c", title="a")
>>> s.text(20, 14, "a label")
>>> out = s.render()
>>> out.startswith("<svg") and "<title>a</title>" in out
True
"""

from __future__ import annotations

import base64
import html
import math
import struct
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

#: the widest figure (SVG units; the page shows a unit as a pixel from 1100 px of window up)
WIDTH = 1000
#: the smallest text drawn (SVG units)
MIN_FONT = 10
#: heatmaps of at most this many rows draw one rectangle (with its title) per cell
CELL_TITLES = 60
#: widths (per unit of font size) of a wide sans-serif (DejaVu Sans, what Linux browsers fall back to), for layout
_WIDE = {"upper": 0.72, "lower": 0.6, "digit": 0.64, "narrow": 0.35, "other": 0.62}


def esc(text: object) -> str:
    """Text made safe for SVG/HTML."""
    return html.escape(str(text), quote=True)


def short(name: str, n: int = 32) -> str:
    """``name`` cut to ``n`` characters with an ellipsis."""
    return name if len(name) <= n else name[: n - 1] + "\u2026"


def text_width(text: str, size: float) -> float:
    """Width of ``text`` at font ``size`` (units), erring wide: a label laid out by it is not cut."""
    w = 0.0
    for ch in text:
        if ch.isupper():
            w += _WIDE["upper"]
        elif ch.islower():
            w += _WIDE["lower"]
        elif ch.isdigit():
            w += _WIDE["digit"]
        elif ch in " .,:;|!'()[]-_/":
            w += _WIDE["narrow"] if ch != "_" else 0.5
        else:
            w += _WIDE["other"]
    return w * size


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values covering ``[lo, hi]``.

    Examples
    --------
    >>> nice_ticks(0, 1)
    [0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]
    """
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [lo]
    raw = (hi - lo) / max(count, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step - 1e-9)
    return [k * step for k in range(first, int(math.floor(hi / step + 1e-9)) + 1)]


def fmt(v: float) -> str:
    """A tick or value label: 4 significant digits, no trailing zeros."""
    if v == 0:
        return "0"
    if float(v).is_integer() and 1e4 <= abs(v) < 1e9:  # a count: every digit, grouped (19,596, not 1.96e+04)
        return f"{v:,.0f}"
    return f"{v:.4g}"


@dataclass
class Svg:
    """An SVG drawing built element by element; :meth:`render` gives the markup."""

    width: float
    height: float
    title: str
    parts: list[str] = field(default_factory=list)
    attrs: dict[str, str] = field(default_factory=dict)

    def add(self, markup: str) -> None:
        """Append raw SVG markup."""
        self.parts.append(markup)

    def text(
        self,
        x: float,
        y: float,
        s: str,
        size: float = 11,
        anchor: str = "start",
        rotate: float = 0,
        title: str = "",
        weight: str = "",
        fill: str = "#222",
        cls: str = "",
    ) -> None:
        """Text at ``(x, y)``, never smaller than :data:`MIN_FONT`; ``title`` names it on hover."""
        size = max(size, MIN_FONT)
        extra = f" transform='rotate({rotate:g} {x:.1f} {y:.1f})'" if rotate else ""
        extra += f" font-weight='{weight}'" if weight else ""
        extra += f" class='{cls}'" if cls else ""
        inner = f"<title>{esc(title)}</title>{esc(s)}" if title else esc(s)
        self.add(
            f"<text x='{x:.1f}' y='{y:.1f}' font-size='{size:g}' text-anchor='{anchor}' fill='{fill}'{extra}>"
            f"{inner}</text>"
        )

    def rect(self, x: float, y: float, w: float, h: float, fill: str, title: str = "", stroke: str = "") -> None:
        """A rectangle; ``title`` names it on hover."""
        line = f" stroke='{stroke}'" if stroke else ""
        body = f"<title>{esc(title)}</title>" if title else ""
        end = f">{body}</rect>" if body else "/>"
        self.add(f"<rect x='{x:.1f}' y='{y:.1f}' width='{w:.2f}' height='{h:.2f}' fill='{fill}'{line}{end}")

    def circle(self, x: float, y: float, r: float, fill: str, title: str = "", stroke: str = "") -> None:
        """A dot; ``title`` names it on hover."""
        line = f" stroke='{stroke}' stroke-width='1.5'" if stroke else ""
        body = f"<title>{esc(title)}</title>" if title else ""
        end = f">{body}</circle>" if body else "/>"
        self.add(f"<circle cx='{x:.1f}' cy='{y:.1f}' r='{r:g}' fill='{fill}'{line}{end}")

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str = "#888", width: float = 1) -> None:
        """A straight line."""
        self.add(
            f"<line x1='{x1:.1f}' y1='{y1:.1f}' x2='{x2:.1f}' y2='{y2:.1f}' stroke='{stroke}' "
            f"stroke-width='{width:g}'/>"
        )

    def render(self) -> str:
        """The ``<svg>`` element, its title first (what a screen reader and a hover over empty space say)."""
        extra = "".join(f" {k}='{esc(v)}'" for k, v in self.attrs.items())
        return (
            f"<svg xmlns='http://www.w3.org/2000/svg' class='fig' viewBox='0 0 {self.width:.0f} {self.height:.0f}' "
            f"width='{self.width:.0f}' height='{self.height:.0f}' role='img' aria-label='{esc(self.title)}'"
            f" font-family='system-ui, sans-serif'{extra}><title>{esc(self.title)}</title>"
            + "".join(self.parts)
            + "</svg>"
        )


# ------------------------------------------------------------------ colours
_RDBU = [  # ColorBrewer RdBu, reversed: -1 blue, 0 white, +1 red
    (5, 48, 97),
    (33, 102, 172),
    (67, 147, 195),
    (146, 197, 222),
    (209, 229, 240),
    (247, 247, 247),
    (253, 219, 199),
    (244, 165, 130),
    (214, 96, 77),
    (178, 24, 43),
    (103, 0, 31),
]
_VIRIDIS = [(68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37)]


def _ramp(anchors: Sequence[tuple[int, int, int]], t: np.ndarray) -> np.ndarray:
    """Colours (n x 3 uint8) of ``t`` in [0, 1] along ``anchors`` (linear between them); NaN grey."""
    t = np.asarray(t, dtype=float)
    a = np.asarray(anchors, dtype=float)
    pos = np.clip(np.nan_to_num(t, nan=0.0), 0, 1) * (len(a) - 1)
    i = np.minimum(pos.astype(int), len(a) - 2)
    f = (pos - i)[..., None]
    rgb = a[i] * (1 - f) + a[i + 1] * f
    rgb[np.isnan(t)] = (204, 204, 204)
    return np.round(rgb).astype(np.uint8)


def diverging(values: np.ndarray, lo: float = -1.0, hi: float = 1.0) -> np.ndarray:
    """Red-white-blue colours of ``values`` between ``lo`` and ``hi``."""
    return _ramp(_RDBU, (np.asarray(values, dtype=float) - lo) / (hi - lo))


def sequential(values: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Viridis colours of ``values`` between ``lo`` and ``hi``."""
    span = hi - lo if hi > lo else 1.0
    return _ramp(_VIRIDIS, (np.asarray(values, dtype=float) - lo) / span)


def hexes(rgb: np.ndarray) -> list[str]:
    """``#rrggbb`` of each row of ``rgb``."""
    return [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in np.asarray(rgb).reshape(-1, 3).tolist()]


def png_rgb(rgb: np.ndarray) -> bytes:
    """A PNG of an ``h x w x 3`` uint8 image (no dependency but :mod:`zlib`)."""
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[r].tobytes() for r in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    head = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


# ------------------------------------------------------------------ label placement
def thin(count: int, cell: float, size: float = 11) -> tuple[int, float]:
    """Every how many of ``count`` names fit at ``cell`` units apart, and their font size.

    Examples
    --------
    >>> thin(16, 40)
    (1, 11)
    >>> thin(200, 4.5)
    (3, 11)
    """
    if cell >= size + 1:
        return 1, size
    if cell >= MIN_FONT + 1:
        return 1, MIN_FONT
    return max(1, math.ceil((size + 2) / cell)), size


# ------------------------------------------------------------------ charts
def _axis_y(
    s: Svg,
    x0: float,
    y_of: Callable[[float], float],
    ticks: Sequence[float],
    label: str,
    top: float,
    bottom: float,
    log: bool = False,
) -> None:
    s.line(x0, top, x0, bottom, "#555")
    for t in ticks:
        y = y_of(t)
        if top - 0.5 <= y <= bottom + 0.5:
            s.line(x0 - 4, y, x0, y, "#555")
            s.line(x0, y, s.width - 10, y, "#eee")
            s.text(x0 - 6, y + 4, fmt(t), 10, "end")
    s.text(14, (top + bottom) / 2, label, 11, "middle", rotate=-90)


def _log_ticks(lo: float, hi: float) -> list[float]:
    """Powers of ten inside ``[lo, hi]``; 2 and 5 times them as well when that gives fewer than three."""
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    step = max(1, (b - a) // 6)
    ticks = [t for t in (10.0**k for k in range(a, b + 1, step)) if lo <= t <= hi]
    if len(ticks) < 3:
        ticks = sorted(t for t in {*ticks, *(m * 10.0**k for k in range(a, b + 1) for m in (1, 2, 5))} if lo <= t <= hi)
    if len(ticks) < 3:  # less than a factor of 5: round values, as on a linear axis, a step a tenth of it or so
        # (4 steps gave [1, 1.5] on the ratios 0.64-1.7 of two builds: nothing below 1, where the change was)
        ticks = [t for t in nice_ticks(lo, hi, 6) if t > 0]
    return ticks


def dot_plot(
    values: Sequence[float],
    names: Sequence[str],
    *,
    title: str,
    ylabel: str,
    xlabel: str,
    hover: Sequence[str] | None = None,
    log: bool = False,
    named: int = 5,
    named_low: int = 3,
    height: float = 320,
) -> Svg:
    """Values sorted from largest to smallest, one dot each, the ``named`` largest and ``named_low`` smallest named.

    Every dot's ``<title>`` is its name and value (``hover`` when given).  On a log scale
    values <= 0 are not drawable: the caller leaves them out and says so.
    """
    v = np.asarray(values, dtype=float)
    order = np.argsort(-v, kind="stable")
    v, names = v[order], [names[i] for i in order]
    hover = (
        [hover[i] for i in order] if hover is not None else [f"{n}: {fmt(x)}" for n, x in zip(names, v, strict=True)]
    )
    n = len(v)
    top_pick = list(range(min(named, n)))
    low_pick = list(range(max(n - named_low, len(top_pick)), n))
    left, right, top, bottom = 70.0, WIDTH - 20, 34.0, height - 40
    # room for the names: the largest go above their dots' level, the smallest below theirs
    top_d = top + 8 + 13 * max(len(top_pick) - 1, 0)
    bottom_d = bottom - (16 + 13 * max(len(low_pick) - 1, 0) if low_pick else 0)
    s = Svg(WIDTH, height, title)
    s.text(WIDTH / 2, 18, title, 13, "middle", weight="600")
    lo, hi = (float(v.min()), float(v.max())) if n else (0.0, 1.0)
    if log:
        lo, hi = lo / 1.15, hi * 1.15
        span = math.log10(hi) - math.log10(lo)
        # the axis runs over the whole height: the values map to [bottom_d, top_d]
        ext_lo = 10 ** (math.log10(lo) - span * (bottom - bottom_d) / (bottom_d - top_d))
        ext_hi = 10 ** (math.log10(hi) + span * (top_d - top) / (bottom_d - top_d))
        ticks = _log_ticks(ext_lo, ext_hi)

        def y_of(x: float) -> float:
            return bottom_d - (math.log10(x) - math.log10(lo)) / span * (bottom_d - top_d)
    else:
        pad = (hi - lo) * 0.05 or max(abs(hi), 1.0) * 0.1
        lo, hi = lo - pad, hi + pad
        span = hi - lo
        ext_lo = lo - span * (bottom - bottom_d) / (bottom_d - top_d)
        ext_hi = hi + span * (top_d - top) / (bottom_d - top_d)
        ticks = nice_ticks(ext_lo, ext_hi)

        def y_of(x: float) -> float:
            return bottom_d - (x - lo) / span * (bottom_d - top_d)

    _axis_y(s, left, y_of, ticks, ylabel, top, bottom, log)
    s.line(left, bottom, right, bottom, "#555")
    step = (right - left) / max(n, 1)
    xs = [left + step * (i + 0.5) for i in range(n)]
    r = 4 if step >= 8 else 3 if step >= 4 else 2.2
    for x, y, h in zip(xs, v, hover, strict=True):
        s.circle(x, y_of(y), r, "#3465a4", title=h)
    s.text((left + right) / 2, height - 10, xlabel, 11, "middle")
    # sorted from largest: every dot after a large one is lower, so a name written right of its dot
    # and above its level covers no dot; every dot before a small one is higher, so a name written
    # left of its dot and below its level covers none.  Names that would touch move further away.
    base = [y_of(v[i]) - r - 3 for i in top_pick]
    for k in range(len(base) - 2, -1, -1):
        base[k] = min(base[k], base[k + 1] - 13)
    for i, y in zip(top_pick, base, strict=True):
        s.text(xs[i] + r + 3, y, short(names[i], 40), 10, "start", title=hover[i])
    base = [y_of(v[i]) + r + 11 for i in low_pick]
    for k in range(1, len(base)):
        base[k] = max(base[k], base[k - 1] + 13)
    for i, y in zip(low_pick, base, strict=True):
        s.text(xs[i] - r - 3, y, short(names[i], 40), 10, "end", title=hover[i])
    return s


def forest(
    labels: Sequence[str],
    estimate: Sequence[float],
    lower: Sequence[float],
    upper: Sequence[float],
    *,
    title: str,
    xlabel: str,
    colours: Sequence[str],
    hover: Sequence[str],
    legend: Sequence[tuple[str, str]] = (),
    xlim: tuple[float, float] = (-1.0, 1.0),
    zero: float | None = 0.0,
    log: bool = False,
) -> Svg:
    """One row per item: its label at the left, the interval as a bar, the estimate as a dot (``log``: log x)."""
    n = len(labels)
    row = 17.0
    label_w = min(430.0, max((text_width(x, 11) for x in labels), default=0) + 12)
    left, right, top = label_w + 8, WIDTH - 20, 40.0
    legend_h = 22.0 if legend else 0.0
    bottom = top + row * n
    s = Svg(WIDTH, bottom + 44 + legend_h, title)
    s.text(WIDTH / 2, 18, title, 13, "middle", weight="600")
    lo, hi = xlim

    def x_of(x: float) -> float:
        x = min(max(x, lo), hi)
        if log:
            return left + (math.log(x) - math.log(lo)) / (math.log(hi) - math.log(lo)) * (right - left)
        return left + (x - lo) / (hi - lo) * (right - left)

    for t in _log_ticks(lo, hi) if log else nice_ticks(lo, hi, 8):
        s.line(x_of(t), top - 4, x_of(t), bottom, "#eee")
        s.text(x_of(t), bottom + 14, fmt(t), 10, "middle")
    if zero is not None and lo < zero < hi:
        s.line(x_of(zero), top - 4, x_of(zero), bottom, "#999")
    for i in range(n):
        y = top + row * (i + 0.5)
        s.text(left - 6, y + 4, labels[i], 11, "end", title=hover[i])
        s.line(x_of(lower[i]), y, x_of(upper[i]), y, colours[i], 2.5)
        s.circle(x_of(estimate[i]), y, 3.5, colours[i], title=hover[i])
    s.line(left, bottom, right, bottom, "#555")
    s.text((left + right) / 2, bottom + 32, xlabel, 11, "middle")
    x = left
    for colour, name in legend:
        s.rect(x, bottom + 44, 12, 10, colour)
        s.text(x + 16, bottom + 53, name, 10)
        x += text_width(name, 10) + 40
    return s


def bars(
    categories: Sequence[str],
    counts: Sequence[float] | np.ndarray,
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    colours: Sequence[str],
    hover: Sequence[str],
    height: float = 260,
    series: Sequence[tuple[str, str]] = (),
    line: tuple[float, str] | None = None,
) -> Svg:
    """Vertical bars with a ``<title>`` each; categories thinned when many.

    ``counts`` of one value per category (its count written above the bar when it fits,
    ``colours`` per category), or categories x series stacked (``series``: the colour and
    name of each, drawn as a key).  ``line``: a dashed level (value, name), e.g. a target.
    """
    v = np.asarray(counts, dtype=float)
    stacked = v.ndim == 2
    n = len(categories)
    left, right, top, bottom = 70.0, WIDTH - 20, 36.0 + (18 if series or line else 0), height - 44
    s = Svg(WIDTH, height, title)
    s.text(WIDTH / 2, 18, title, 13, "middle", weight="600")
    total = v.sum(axis=1) if stacked else v
    hi = max(float(total.max()) if n else 1.0, line[0] if line else 0.0, 1.0) * 1.12

    def y_of(x: float) -> float:
        return bottom - x / hi * (bottom - top)

    _axis_y(s, left, y_of, nice_ticks(0, hi), ylabel, top, bottom)
    step = (right - left) / max(n, 1)
    # the names are written across: every k-th, k enough for the longest to fit between them
    widest = max((text_width(c, 10) for c in categories), default=0.0) + 6
    every, size = max(1, math.ceil(widest / step)), 10
    for i, c in enumerate(categories):
        x = left + step * i
        if stacked:
            base = 0.0
            for k, (colour, _) in enumerate(series):
                if v[i, k] > 0:
                    s.rect(
                        x + step * 0.1,
                        y_of(base + v[i, k]),
                        step * 0.8,
                        y_of(base) - y_of(base + v[i, k]),
                        colour,
                        title=hover[i],
                    )
                base += v[i, k]
        else:
            s.rect(x + step * 0.1, y_of(v[i]), step * 0.8, bottom - y_of(v[i]), colours[i], title=hover[i])
            if step >= text_width(fmt(v[i]), 10) + 2:
                s.text(x + step / 2, y_of(v[i]) - 3, fmt(v[i]), 10, "middle")
        if i % every == 0:
            s.text(x + step / 2, bottom + 14, c, size, "middle")
    s.line(left, bottom, right, bottom, "#555")
    if line is not None:
        s.add(
            f"<line x1='{left:.1f}' y1='{y_of(line[0]):.1f}' x2='{right:.1f}' y2='{y_of(line[0]):.1f}' "
            f"stroke='#555' stroke-dasharray='5 3'><title>{esc(line[1])}: {fmt(line[0])}</title></line>"
        )
    x = left
    for colour, name in [*series, *([("#555", line[1])] if line else [])]:
        s.rect(x, 30, 12, 10, colour)
        s.text(x + 16, 39, name, 10)
        x += text_width(name, 10) + 40
    s.text((left + right) / 2, height - 10, xlabel, 11, "middle")
    return s


def heatmap(
    colours: np.ndarray,
    rows: Sequence[str],
    columns: Sequence[str],
    *,
    title: str,
    cell_hover: Callable[[int, int], str],
    legend: Callable[[Svg, float, float], float] | None = None,
    matrix: np.ndarray | None = None,
    value_name: str = "value",
    key_width: float = 150.0,
) -> Svg:
    """A grid of coloured cells (``colours``: rows x columns x 3 uint8), named rows and columns.

    Up to :data:`CELL_TITLES` rows each cell is a rectangle whose ``<title>`` is
    ``cell_hover(i, j)``; beyond, the cells are one PNG (a pixel each, scaled) and the
    figure carries ``data-rows``/``data-cols`` (the names) and ``data-values`` (``matrix``,
    rounded) for the page's script to name the cell under the pointer.  Names are thinned
    to what fits; every one is in the figure as a ``<title>`` of its label or of its row.
    ``legend(svg, x, y)`` draws a key at the right and returns its width.
    """
    nr, nc = colours.shape[:2]
    key_w = key_width if legend else 0.0
    # the cell size the names allow: shrink until the longest row name, the grid and the key fit
    long_r = max((text_width(short(x), 11) for x in rows), default=0)
    cell = max(1.0, min(22.0, (WIDTH - long_r - 20 - key_w) / max(nc, 1), 900.0 / max(nr, 1)))
    every_r, size_r = thin(nr, cell)
    every_c, size_c = thin(nc, cell)
    long_r = max((text_width(short(x), size_r) for x in rows[::every_r]), default=0)
    long_c = max((text_width(short(x), size_c) for x in columns[::every_c]), default=0)
    left, top = long_r + 14, 36 + long_c + 8
    width, height = cell * nc, cell * nr
    s = Svg(WIDTH, top + height + 20, title)
    s.text(WIDTH / 2, 18, title, 13, "middle", weight="600")
    for i, name in enumerate(rows):
        if i % every_r == 0:
            s.text(left - 4, top + cell * (i + 0.5) + size_r * 0.35, short(name), size_r, "end", title=name)
    for j, name in enumerate(columns):
        if j % every_c == 0:
            x = left + cell * (j + 0.5) + size_c * 0.35
            s.text(x, top - 4, short(name), size_c, "start", rotate=-90, title=name)
    if nr <= CELL_TITLES and nc <= CELL_TITLES:
        hx = hexes(colours)
        for i in range(nr):
            for j in range(nc):
                s.rect(left + cell * j, top + cell * i, cell, cell, hx[i * nc + j], title=cell_hover(i, j))
    else:
        data = base64.b64encode(png_rgb(np.ascontiguousarray(colours, dtype=np.uint8))).decode("ascii")
        s.add(
            f"<image class='cells' x='{left:.1f}' y='{top:.1f}' width='{width:.1f}' height='{height:.1f}' "
            f"preserveAspectRatio='none' style='image-rendering:pixelated' href='data:image/png;base64,{data}'>"
            f"<title>{esc(title)}: point at a cell to name it (the page's script), or find it in the table below"
            "</title></image>"
        )
        s.attrs.update(
            {
                "data-heat": f"{left:.1f} {top:.1f} {cell:.4f}",
                "data-rows": "\t".join(rows),
                "data-cols": "\t".join(columns),
                "data-name": value_name,
            }
        )
        if matrix is not None:
            s.attrs["data-values"] = " ".join("" if not np.isfinite(x) else f"{x:.3g}" for x in matrix.ravel())
    s.rect(left, top, width, height, "none", stroke="#999")
    if legend is not None:
        legend(s, left + width + 24, top)
    return s


def colour_key(
    s: Svg,
    x: float,
    y: float,
    *,
    lo: float,
    hi: float,
    colour: Callable[[np.ndarray], np.ndarray],
    label: str,
    ticks: Sequence[float],
) -> float:
    """A vertical colour key from ``lo`` (bottom) to ``hi`` (top) at ``(x, y)``; returns its width."""
    h, w, steps = 180.0, 14.0, 40
    vals = np.linspace(hi, lo, steps)
    for k, c in enumerate(hexes(colour(vals))):
        s.rect(x, y + h * k / steps, w, h / steps + 0.5, c)
    s.rect(x, y, w, h, "none", stroke="#999")
    for t in ticks:
        ty = y + (hi - t) / (hi - lo) * h if hi > lo else y
        s.line(x + w, ty, x + w + 4, ty, "#555")
        s.text(x + w + 6, ty + 4, fmt(t), 10)
    s.text(x, y + h + 16, label, 10)
    return max(w + 40, text_width(label, 10))


def swatches(s: Svg, x: float, y: float, items: Sequence[tuple[str, str]]) -> float:
    """A key of coloured squares with their names, one per line, at ``(x, y)``; returns its width."""
    for k, (colour, name) in enumerate(items):
        s.rect(x, y + 16 * k, 12, 12, colour, stroke="#888")
        s.text(x + 17, y + 16 * k + 10, name, 10)
    return 17 + max((text_width(n, 10) for _, n in items), default=0)


# ------------------------------------------------------------------ ordering
def cluster_order(corr: np.ndarray) -> list[int]:
    """Leaf order of an average-linkage clustering of ``1 - |corr|``: related events end up side by side.

    NumPy only (scipy.cluster's import alone costs more than a report of 16 events).  Ties
    are broken by position, so the order is deterministic.

    Examples
    --------
    >>> c = np.array([[1, 0, .9], [0, 1, 0], [.9, 0, 1.]])
    >>> cluster_order(c)
    [0, 2, 1]
    """
    k = len(corr)
    if k <= 2:
        return list(range(k))
    d = 1.0 - np.abs(np.nan_to_num(np.asarray(corr, dtype=float), nan=0.0))
    d = (d + d.T) / 2
    np.fill_diagonal(d, np.inf)
    members: dict[int, list[int]] = {i: [i] for i in range(k)}
    size = np.ones(k)
    alive = np.ones(k, dtype=bool)
    for _ in range(k - 1):
        masked = np.where(alive[:, None] & alive[None, :], d, np.inf)
        a, b = divmod(int(np.argmin(masked)), k)
        if a > b:
            a, b = b, a
        # Lance-Williams, average linkage: the merged cluster's distance to each other one
        d[a, :] = (size[a] * d[a, :] + size[b] * d[b, :]) / (size[a] + size[b])
        d[:, a] = d[a, :]
        d[a, a] = np.inf
        alive[b] = False
        size[a] += size[b]
        members[a] = members[a] + members.pop(b)
    (order,) = members.values()
    return order
