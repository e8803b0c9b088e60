"""Colour scales and badge text for the boards: pure functions, no Qt (tested without a display).

The value heatmap uses viridis (perceptually uniform, readable with the common colour-vision
deficiencies and in greyscale). The widgets draw with ``pyqtgraph.colormap.get("viridis")``;
:data:`VIRIDIS_ANCHORS` are nine samples of the same map (matplotlib's published table, also
checked against pyqtgraph's map in the widget tests) used here to pick readable text colours.
A :class:`ColorScale` is fixed for a whole solve: the board never rescales frame by frame.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

COLORMAP = "viridis"
"""Name of the pyqtgraph colour map of the value heatmap."""

VIRIDIS_ANCHORS: tuple[tuple[int, int, int], ...] = (
    (68, 1, 84),
    (71, 44, 122),
    (59, 81, 139),
    (44, 113, 142),
    (33, 144, 141),
    (39, 173, 129),
    (92, 200, 99),
    (170, 220, 50),
    (253, 231, 37),
)
"""viridis at t = 0, 1/8, ..., 1 (RGB 0-255)."""

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

    def __post_init__(self) -> None:
        if not (math.isfinite(self.lo) and math.isfinite(self.hi)):
            raise ValueError(f"colour scale bounds must be finite, got ({self.lo}, {self.hi})")
        if self.hi < self.lo:
            raise ValueError(f"colour scale: hi {self.hi} is below lo {self.lo}")

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


def scale_for(lo: float, hi: float, *, label: str = "value") -> ColorScale:
    """A :class:`ColorScale` over [lo, hi] with round ends (1, 2 or 5 times a power of ten steps)."""
    lo, hi = float(lo), float(hi)
    if hi < lo:
        lo, hi = hi, lo
    if hi == lo:
        return ColorScale(lo - 0.5, hi + 0.5, label) if lo != 0 else ColorScale(0.0, 1.0, label)
    step = nice_step((hi - lo) / 5)
    return ColorScale(math.floor(lo / step + 1e-9) * step, math.ceil(hi / step - 1e-9) * step, label)


def nice_step(x: float) -> float:
    """The smallest of 1, 2, 5 x 10^k that is >= x (x > 0)."""
    if not (x > 0 and math.isfinite(x)):
        raise ValueError(f"nice_step needs a positive finite number, got {x}")
    k = math.floor(math.log10(x))
    for m in (1.0, 2.0, 5.0, 10.0):
        if m * 10**k >= x * (1 - 1e-12):
            return m * 10**k
    return 10.0 ** (k + 1)  # pragma: no cover


def viridis_rgb(t: float) -> tuple[int, int, int]:
    """viridis at t in [0, 1], linearly interpolated between :data:`VIRIDIS_ANCHORS`."""
    t = min(max(float(t), 0.0), 1.0)
    x = t * (len(VIRIDIS_ANCHORS) - 1)
    i = min(int(x), len(VIRIDIS_ANCHORS) - 2)
    f = x - i
    a, b = VIRIDIS_ANCHORS[i], VIRIDIS_ANCHORS[i + 1]
    return tuple(int(round(a[j] + f * (b[j] - a[j]))) for j in range(3))  # type: ignore[return-value]


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
