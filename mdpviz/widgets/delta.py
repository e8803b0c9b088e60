"""The "delta" view of the board: each square coloured by how much its value changed in the shown
sweep, |V_k(s) - V_{k-1}(s)|, on a log scale fixed for the whole solve. Pure functions, no Qt.

The scale runs from the solve's stopping tolerance (changes below it are "converged") to the span
of the values the solve passes through (no single change can be larger than that span, since
every V_k lies in it), so the colours of sweep 1 and sweep 200 mean the same thing and the
movie shows the change dying out square by square. The number on each square is the signed
change, and the greedy action badge stays.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from mdpviz.models.kit.pictures.colors import ColorScale
from mdpviz.models.kit.pictures.display import BoardFrame

DELTA_LABEL = "log\u2081\u2080 |\u0394V| in the shown sweep"
"""Colour bar label of the delta view."""

DELTA_FLOOR = 1e-12
"""Lowest change drawn on the scale when the solve has no tolerance (policy iteration, LP)."""


def delta_scale(lo: float, hi: float, *, tol: float | None = None) -> ColorScale:
    """The fixed log10 scale of |dV| for a solve whose values stay in [lo, hi] (see module docstring)."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError(f"value range must be finite, got ({lo}, {hi})")
    span = max(abs(hi - lo), abs(hi), abs(lo), 1e-300)
    floor = tol if tol is not None and tol > 0 and math.isfinite(tol) else DELTA_FLOOR * max(1.0, span)
    top = math.log10(span)
    bottom = min(math.log10(floor), top - 1.0)
    return ColorScale(bottom, top, label=DELTA_LABEL)


def format_delta(d: float) -> str:
    """A signed change, short: "+0.33", "-1.2e-05", "0"."""
    if d == 0 or not math.isfinite(d):
        return "0" if d == 0 else str(d)
    a = abs(d)
    if 0.01 <= a < 10_000:
        return f"{d:+.3g}"
    return f"{d:+.1e}"


def delta_frame(
    values: np.ndarray,
    prev_values: np.ndarray | None,
    badges: tuple[str, ...],
    *,
    terminal: np.ndarray,
    scale: ColorScale,
    caption: str = "",
    action_changed: np.ndarray | None = None,
    actions: np.ndarray | None = None,
) -> BoardFrame:
    """The board frame of the delta view: fill = position of log10 |V - V_prev| on ``scale`` (0 for
    no change), text = the signed change; ``prev_values`` None means V_prev = 0 (the first sweep).
    Only squares in ``action_changed`` (bool per state) get the "changed" outline: the colour
    already shows which values moved."""
    v = np.asarray(values, dtype=np.float64)
    prev = np.zeros_like(v) if prev_values is None else np.asarray(prev_values, dtype=np.float64)
    terminal = np.asarray(terminal, dtype=bool)
    if prev.shape != v.shape or terminal.shape != v.shape or len(badges) != v.size:
        raise ValueError(f"values {v.shape}, previous values {prev.shape}, terminal {terminal.shape} and "
                         f"{len(badges)} badges must match")
    d = v - prev
    a = np.abs(d)
    with np.errstate(divide="ignore"):
        lg = np.where(a > 0, np.log10(np.where(a > 0, a, 1.0)), -np.inf)
    fill = np.where(terminal, np.nan, np.where(np.isfinite(lg), scale.normalise(np.where(np.isfinite(lg), lg, 0.0)), 0.0))
    texts = tuple("" if t else format_delta(float(x)) for x, t in zip(d.tolist(), terminal.tolist()))
    changed = np.zeros(v.size, dtype=bool) if action_changed is None else np.asarray(action_changed, dtype=bool)
    return BoardFrame(values=d, texts=texts, fill=fill, badges=tuple(badges), changed=changed & ~terminal,
                      caption=caption, actions=actions)


def change_frame(
    diff: Any,
    badges: tuple[str, ...],
    *,
    terminal: np.ndarray,
    scale: ColorScale,
    caption: str = "",
    actions: np.ndarray | None = None,
) -> BoardFrame:
    """The board frame of an edit's difference map (the live re-solve's policy diff,
    :class:`~mdpviz.models.kit.pictures.policy_diff.PolicyDiff`): fill = position of dV = V after - V before on
    the diverging ``scale`` (0 is its neutral middle), text = the signed change, the states whose
    optimal actions changed outlined; a state that did not exist before the edit has no colour and
    reads "new" (nothing to compare it with)."""
    d = np.asarray(diff.dv, dtype=np.float64)
    terminal = np.asarray(terminal, dtype=bool)
    if terminal.shape != d.shape or len(badges) != d.size:
        raise ValueError(f"dV {d.shape}, terminal {terminal.shape} and {len(badges)} badges must match")
    new = ~np.isfinite(d)
    fill = np.where(terminal | new, np.nan, scale.normalise(np.where(new, 0.0, d)))
    texts = tuple("new" if n else "" if t else format_delta(float(x))
                  for x, t, n in zip(d.tolist(), terminal.tolist(), new.tolist()))
    return BoardFrame(values=np.where(new, np.nan, d), texts=texts, fill=fill, badges=tuple(badges),
                      changed=np.asarray(diff.changed, dtype=bool) & ~terminal, caption=caption, actions=actions)


__all__ = ["DELTA_FLOOR", "change_frame", "DELTA_LABEL", "delta_frame", "delta_scale", "format_delta"]
