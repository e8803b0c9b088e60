"""The value range a solve's colour scale spans: one rule for the window and for ``mdpviz export``.

* small models (up to :data:`REFERENCE_MAX_STATES` states): the exact optimal values' range, from a
  policy-iteration reference solve (:func:`reference_range`), fixed for the whole solve;
* larger ones: the range of the values seen so far (:func:`first_sweep_range`, then
  :meth:`ValueRange.widened` by each later sweep, never shrunk): :func:`seen_range`.

The window's controller computes it sweep by sweep as they arrive; :func:`solve_range` gives the same
range for a recorded solve, and :func:`range_scale` the colour scale both draw with. Pure numpy
(and the solvers, for the reference solve); no Qt.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

import numpy as np

from mdpviz.models.kit.pictures.colors import SEQUENTIAL, ColorScale, fitted_scale
from mdpviz.core.mdp import TabularMDP
from mdpviz.solvers import Sweep, registry, solve

REFERENCE_MAX_STATES = 100_000
"""Up to this many states (and :data:`REFERENCE_MAX_TRANSITIONS` transitions) the colour scale comes
from an exact policy-iteration reference solve (the optimal values; measured 0.5 s for the 49,021
states of the default checkers variant); above, from the values seen so far."""

REFERENCE_MAX_TRANSITIONS = 1_000_000
"""Transition budget of the reference solve (see :data:`REFERENCE_MAX_STATES`)."""


@dataclass(frozen=True)
class ValueRange:
    """The value range of one solve, for its colour scale (fixed for the solve; see :meth:`widened`)."""

    lo: float
    """Lowest value on the scale (model units: reward, or turns for cost models)."""
    hi: float
    """Highest value on the scale."""
    source: str
    """How it was found: "reference" (the optimal values, from an exact solve on the worker thread)
    or "seen" (the values of the sweeps drawn so far: widened when exceeded, never shrunk)."""
    values: np.ndarray | None = field(default=None, compare=False, repr=False)
    """The exact optimal values V* of every state ("reference" only), read-only: a board that shows
    one position of a game (its moves' Q-values) takes its scale from them."""

    def widened(self, values: np.ndarray) -> "ValueRange":
        """This range joined with the finite ``values`` (itself when they fit: never shrunk)."""
        v = np.asarray(values, dtype=np.float64)
        v = v[np.isfinite(v)]
        if v.size == 0:
            return self
        lo, hi = min(self.lo, float(v.min())), max(self.hi, float(v.max()))
        if lo == self.lo and hi == self.hi:
            return self
        return ValueRange(lo, hi, self.source, self.values)


NOT_OPTIMAL_METHODS = registry.ids_where("solver", optimal=False)
"""Methods whose values are not the optimal values V* (their registry lines' ``optimal=False``): a given policy's values (policy evaluation: the
random policy of the 4x4 grid runs to -22 where V* stops at -3) or relative values (relative value
iteration's bias). Their colour scale is the values seen, and the convergence plot has no V* to compare."""


def reference_range(mdp: TabularMDP, method: str | None = None) -> ValueRange | None:
    """The optimal values' range over the non-terminal states (the values the board shows once the
    solve is done), from an exact policy-iteration solve, or None when the model is too large
    (over :data:`REFERENCE_MAX_STATES` states) or has no finite solution. Runs on the worker thread.

    Sweeps before convergence may lie outside it (value iteration starts from 0, policy iteration
    from its first policy's values): the board draws them with the scale's end colours and their
    numbers stay exact; the scale is not rescaled while the movie plays.
    """
    if mdp.n_states > REFERENCE_MAX_STATES or mdp.n_transitions > REFERENCE_MAX_TRANSITIONS:
        return None
    if method in NOT_OPTIMAL_METHODS:  # (its values are not V*: see NOT_OPTIMAL_METHODS)
        return None
    try:
        sol = solve(mdp, registry.exact_solver())
    except (ValueError, np.linalg.LinAlgError, RuntimeError):
        return None
    values = np.array(sol.values, dtype=np.float64)
    values.setflags(write=False)
    v = values[~np.asarray(mdp.terminal)]
    if not np.all(np.isfinite(values)):
        return None
    if v.size == 0:
        return ValueRange(0.0, 0.0, "reference", values)
    return ValueRange(float(v.min()), float(v.max()), "reference", values)


def first_sweep_range(sweep: Sweep, terminal: np.ndarray) -> ValueRange:
    """The range when there is no reference: the first snapshot's non-terminal values (a board
    widens it with :meth:`ValueRange.widened` as later sweeps exceed it)."""
    v = np.asarray(sweep.values, dtype=np.float64)[~np.asarray(terminal)]
    v = v[np.isfinite(v)]
    if v.size == 0:
        return ValueRange(0.0, 0.0, "seen")
    return ValueRange(float(v.min()), float(v.max()), "seen")


def seen_range(sweeps: Iterable[Sweep], terminal: np.ndarray, start: ValueRange | None = None) -> ValueRange | None:
    """``start`` (None: the first sweep's range, :func:`first_sweep_range`) widened by the
    non-terminal values of every sweep in ``sweeps`` (the range when there is no reference); None
    when there is neither a start nor a sweep."""
    live = ~np.asarray(terminal, dtype=bool)
    rng = start
    for sw in sweeps:
        rng = first_sweep_range(sw, ~live) if rng is None else rng.widened(np.asarray(sw.values)[live])
    return rng


def solve_range(mdp: TabularMDP, history: Iterable[Sweep], method: str | None = None) -> ValueRange | None:
    """The range the window's colour scale spans once the recorded solve ``history`` of ``mdp`` has
    been drawn: the reference range when the model is small enough (:func:`reference_range`), else
    the range of the values seen (:func:`seen_range`); None without either."""
    ref = reference_range(mdp, method)
    return ref if ref is not None else seen_range(history, mdp.terminal)


def range_scale(lo: float, hi: float, *, label: str = "value", kind: str = SEQUENTIAL) -> ColorScale:
    """The colour scale of a solve whose values span [lo, hi] (a :class:`ValueRange`'s ends): the
    tight :func:`~mdpviz.models.kit.pictures.colors.fitted_scale`, as the window's colour bar and board draw it."""
    return fitted_scale(lo, hi, label=label, kind=kind)


__all__ = [
    "REFERENCE_MAX_STATES", "REFERENCE_MAX_TRANSITIONS", "ValueRange", "first_sweep_range", "range_scale",
    "reference_range", "seen_range", "solve_range",
]
