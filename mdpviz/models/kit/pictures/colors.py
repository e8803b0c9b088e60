"""Colour scales and badge text for the boards: pure functions, no Qt (tested without a display).

Two kinds of scale, both drawn with pyqtgraph's colour maps (``pyqtgraph.colormap.get(name)``):

* sequential (:data:`COLORMAP`, viridis: perceptually uniform, readable with the common
  colour-vision deficiencies and in greyscale) for costs and returns (expected turns, V(s));
* diverging (:data:`DIVERGING_COLORMAP`, colorcet's CET-CBD1: blue - grey - gold, designed for
  deuteranopes and protanopes) for win/loss values, centred on 0: a value's colour depends on its
  sign and size only, so the part of the map a scale uses is where its [lo, hi] falls
  (:meth:`ColorScale.map_span`).

A :class:`ColorScale` is fixed for a whole solve: the board never rescales frame by frame. The
text on a coloured cell is black or white by WCAG contrast (:func:`text_color`, :func:`black_text`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

COLORMAP = "viridis"
"""Name of the pyqtgraph colour map of sequential scales (costs, returns)."""

DIVERGING_COLORMAP = "CET-CBD1"
"""Name of the pyqtgraph colour map of diverging scales (win/loss values; its middle is 0)."""

SEQUENTIAL, DIVERGING = "sequential", "diverging"
"""The kinds of :class:`ColorScale`."""

ONE_SIDED_START = 0.2
"""A diverging scale whose values all have one sign starts this far (in map position) from the
neutral middle, so that its lowest value is still visibly on its side of 0."""

SCALE_STEPS = 20
"""A fitted scale's ends are rounded to a nice step of about (hi - lo) / SCALE_STEPS: round numbers
on the bar, and the values still use at least 80% of the scale."""

SQUARE_COLORS: dict[int, str] = {
    0: "#ffffff",
    1: "#d55e00",  # restart: vermillion
    2: "#e69f00",  # penalty: orange
    3: "#0072b2",  # prison: blue
    4: "#009e73",  # bonus / gamble / mystery: bluish green
}
"""Okabe-Ito colours of the snakes-and-ladders square types (colour-blind safe)."""

SQUARE_ICONS: dict[str, str] = {
    "ordinary": "",
    "restart": "\u21ba",  # anticlockwise open circle arrow
    "penalty": "\u21903",  # leftwards arrow + 3
    "prison": "\u25a6",  # square with crosshatch (bars)
    "bonus": "\u2605",  # black star
    "gamble": "?\u21c4",
    "mystery": "?",
}
"""Glyph drawn on a square of each type (all present in DejaVu Sans)."""

HIGHLIGHT = "#ff00aa"
"""Outline of squares whose value or action changed in the shown sweep (magenta: not in viridis)."""


@dataclass(frozen=True)
class ColorScale:
    """A fixed linear map from values to [0, 1] for one solve."""

    lo: float
    """Value drawn with the lowest colour (model units)."""
    hi: float
    """Value drawn with the highest colour (model units)."""
    label: str = "value"
    """What the values are, for the colour bar (e.g. "expected turns")."""
    kind: str = SEQUENTIAL
    """:data:`SEQUENTIAL` (costs, returns) or :data:`DIVERGING` (win/loss, centred on 0)."""

    def __post_init__(self) -> None:
        if not (math.isfinite(self.lo) and math.isfinite(self.hi)):
            raise ValueError(f"colour scale bounds must be finite, got ({self.lo}, {self.hi})")
        if self.hi < self.lo:
            raise ValueError(f"colour scale: hi {self.hi} is below lo {self.lo}")
        if self.kind not in (SEQUENTIAL, DIVERGING):
            raise ValueError(f"colour scale kind must be {SEQUENTIAL!r} or {DIVERGING!r}, got {self.kind!r}")

    @property
    def colormap(self) -> str:
        """Name of the pyqtgraph colour map this scale draws with."""
        return DIVERGING_COLORMAP if self.kind == DIVERGING else COLORMAP

    def map_span(self) -> tuple[float, float]:
        """The positions (in [0, 1]) of the colour map that ``lo`` and ``hi`` get; values in between
        are linear in between (:meth:`normalise` is the position within this span).

        Sequential: the whole map. Diverging: 0 is the map's middle and +-m its ends, with
        m = max(|lo|, |hi|), so equal sizes of opposite sign get mirror colours; a scale whose
        values all have one sign uses that half of the map from :data:`ONE_SIDED_START` past the
        middle (its lowest value must not look like 0)."""
        if self.kind != DIVERGING:
            return 0.0, 1.0
        lo, hi = self.lo, self.hi
        if lo >= 0.0 and hi > 0.0:
            return 0.5 + ONE_SIDED_START if lo > 0 else 0.5, 1.0
        if hi <= 0.0 and lo < 0.0:
            return 0.0, 0.5 - ONE_SIDED_START if hi < 0 else 0.5
        m = max(abs(lo), abs(hi))
        if m == 0.0:
            return 0.5, 0.5
        return 0.5 + 0.5 * lo / m, 0.5 + 0.5 * hi / m

    @property
    def span(self) -> float:
        """hi - lo, or 1 for a degenerate scale (every value gets the middle colour)."""
        return self.hi - self.lo if self.hi > self.lo else 1.0

    def normalise(self, values: np.ndarray | float) -> np.ndarray:
        """Position of each value on the scale, clipped to [0, 1] (NaN stays NaN)."""
        v = np.asarray(values, dtype=np.float64)
        if self.hi <= self.lo:
            return np.where(np.isnan(v), np.nan, 0.5)
        return np.clip((v - self.lo) / self.span, 0.0, 1.0)


def scale_for(lo: float, hi: float, *, label: str = "value", kind: str = SEQUENTIAL) -> ColorScale:
    """A :class:`ColorScale` over [lo, hi] with round ends (1, 2 or 5 times a power of ten steps of
    about a fifth of the span: coarse; :func:`fitted_scale` is the tight one boards use)."""
    lo, hi = float(lo), float(hi)
    if hi < lo:
        lo, hi = hi, lo
    if hi == lo:
        return ColorScale(lo - 0.5, hi + 0.5, label, kind) if lo != 0 else ColorScale(0.0, 1.0, label, kind)
    step = nice_step((hi - lo) / 5)
    return ColorScale(math.floor(lo / step + 1e-9) * step, math.ceil(hi / step - 1e-9) * step, label, kind)


def fitted_scale(lo: float, hi: float, *, label: str = "value", kind: str = SEQUENTIAL) -> ColorScale:
    """The scale that spans the values [lo, hi] on screen: ends rounded outwards to a nice step of
    about (hi - lo) / :data:`SCALE_STEPS` (so the values use at least 80% of it). Equal ends get a
    little room either side."""
    lo, hi = float(lo), float(hi)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError(f"a colour scale needs finite values, got ({lo}, {hi})")
    if hi < lo:
        lo, hi = hi, lo
    if hi == lo:
        pad = 0.05 * abs(lo) if lo != 0 else 1.0
        if kind == DIVERGING and lo != 0:
            return ColorScale(lo - pad, hi + pad, label, kind)
        return ColorScale(lo - pad if (lo != 0 or kind == DIVERGING) else 0.0, hi + pad, label, kind)
    step = nice_step((hi - lo) / SCALE_STEPS)
    a = math.floor(lo / step + 1e-9) * step
    b = math.ceil(hi / step - 1e-9) * step  # floor/ceil to a step never move an end across 0
    nd = max(0, 1 - math.floor(math.log10(step)))  # drop float noise (1.2000000000000002)
    return ColorScale(round(a, nd) + 0.0, round(b, nd) + 0.0, label, kind)


def nice_step(x: float) -> float:
    """The smallest of 1, 2, 5 x 10^k that is >= x (x > 0)."""
    if not (x > 0 and math.isfinite(x)):
        raise ValueError(f"nice_step needs a positive finite number, got {x}")
    k = math.floor(math.log10(x))
    for m in (1.0, 2.0, 5.0, 10.0):
        if m * 10**k >= x * (1 - 1e-12):
            return m * 10**k
    return 10.0 ** (k + 1)  # pragma: no cover


def relative_luminance(rgb: tuple[int, int, int]) -> float:
    """WCAG 2 relative luminance of an sRGB colour (0 black .. 1 white)."""

    def lin(c: float) -> float:
        c /= 255.0
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """WCAG 2 contrast ratio between two colours (1 .. 21)."""
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def text_color(rgb: tuple[int, int, int]) -> str:
    """"#000000" or "#ffffff", whichever contrasts more with the background ``rgb``."""
    return "#000000" if contrast_ratio(rgb, (0, 0, 0)) >= contrast_ratio(rgb, (255, 255, 255)) else "#ffffff"


BLACK_TEXT_LUMINANCE = math.sqrt(1.05 * 0.05) - 0.05
"""Above this relative luminance black text contrasts more than white (the WCAG ratios cross here)."""


def black_text(rgb: np.ndarray) -> np.ndarray:
    """bool per row of an (n, 3) array of 0-255 colours: black text reads better than white on it
    (vectorised :func:`text_color`)."""
    c = np.asarray(rgb, dtype=np.float64)[..., :3] / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    lum = lin @ np.array([0.2126, 0.7152, 0.0722])
    return lum >= BLACK_TEXT_LUMINANCE


def format_value(v: float, *, digits: int = 2) -> str:
    """A value as drawn on a cell: fixed decimals, or 3 significant digits when large/small."""
    if not math.isfinite(v):
        return "\u221e" if v > 0 else ("-\u221e" if v < 0 else "?")
    if v != 0 and (abs(v) >= 10_000 or abs(v) < 10 ** (-digits)):
        return f"{v:.3g}"
    return f"{v:.{digits}f}"


def action_badge(action: int, labels: tuple[str, ...] | None, *, one_based: bool = False) -> str:
    """Badge text of an action: the die number (1-based) for snakes, else the action id or label."""
    if action < 0:
        return ""
    if one_based:
        return str(action + 1)
    if labels is not None and len(labels[action]) <= 3:
        return labels[action]
    return str(action)
