"""What an edit changed in the solution: the policy diff of two solved models. Pure numpy, no Qt.

The window's live re-solve (:mod:`mdpviz.window.live`) solves the model again after every edit and
compares the solve before the edit with the solve after it:

* the states whose **set of optimal actions** changed, under the solvers' one tie rule
  (:func:`mdpviz.solvers.sweep.optimal_rows`: every action whose Q is within the tie tolerance of
  the state's best), so a state where a tie merely broke the other way is not "changed" unless
  the set of tied actions itself changed;
* the change of the values, dV(s) = V_after(s) - V_before(s), drawn on a diverging scale centred
  on 0 (:func:`diff_scale`).

The two models need not have the same states (a resized grid, a square turned into a wall): a
state of the new model is compared with the old state of the same label (:func:`align_states`);
one with no counterpart is *not compared* (its dV is NaN, it is never marked), and the sentence
says how many there are rather than drawing a made-up change.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from mdpviz.models.kit.pictures.colors import DIVERGING, ColorScale
from mdpviz.models.kit.pictures.display import state_q
from mdpviz.core.mdp import TabularMDP
from mdpviz.solvers.sweep import TIE_TOL, optimal_rows

DIFF_LABEL = "V after \u2212 V before the edit"
"""Colour bar label of the difference map."""


def align_states(before: TabularMDP, after: TabularMDP) -> np.ndarray:
    """int64 (after.n_states): the state of ``before`` that each state of ``after`` is, -1 for none.

    By label when both models name their states with unique labels (a grid world's "(2,1)" stays
    "(2,1)" when a wall is added elsewhere); else by index when both have the same number of states
    (a game whose state space does not depend on its settings); else no state is compared."""
    lb, la = before.state_labels, after.state_labels
    if lb and la and len(set(lb)) == len(lb) and len(set(la)) == len(la):
        where = {lab: i for i, lab in enumerate(lb)}
        return np.fromiter((where.get(lab, -1) for lab in la), dtype=np.int64, count=len(la))
    if before.n_states == after.n_states:
        return np.arange(after.n_states, dtype=np.int64)
    return np.full(after.n_states, -1, dtype=np.int64)


def optimal_pairs(mdp: TabularMDP, values: np.ndarray, *, tie_tol: float = TIE_TOL) -> tuple[np.ndarray, np.ndarray]:
    """(states, actions): every (state, action) whose action is optimal in ``values`` under the solvers'
    tie rule (:func:`~mdpviz.solvers.sweep.optimal_rows`); terminal states have none."""
    v = np.asarray(values, dtype=np.float64)
    if v.shape != (mdp.n_states,):
        raise ValueError(f"values have shape {v.shape}, the model has {mdp.n_states} states")
    rows = optimal_rows(mdp, mdp.q_values(v), tie_tol=tie_tol)
    return np.asarray(mdp.row_state)[rows].astype(np.int64), np.asarray(mdp.row_action)[rows].astype(np.int64)


@dataclass(frozen=True, eq=False)
class PolicyDiff:
    """The change from one solve to the next, per state of the model *after* the edit."""

    before_state: np.ndarray
    """int64 (n_states): the state of the model before the edit that each state is (-1: not compared)."""
    v_before: np.ndarray
    """float64 (n_states): V before the edit (NaN where not compared)."""
    v_after: np.ndarray
    """float64 (n_states): V after the edit."""
    changed: np.ndarray
    """bool (n_states): compared, and its set of optimal actions is not the one it had before."""
    gone: int = 0
    """States of the model before the edit that no longer exist."""
    start: int | None = None
    """The start state (of the model after the edit), or None."""
    terminal: np.ndarray | None = None
    """bool (n_states): the terminal states after the edit (none of their values is drawn as a change)."""
    before_mdp: TabularMDP | None = None
    """The model before the edit (a board that shows Q-values, the position boards, backs them up in it)."""
    before_values: np.ndarray | None = None
    """float64 (before_mdp.n_states): V before the edit in the old model's own state order."""
    after_mdp: TabularMDP | None = None
    """The model after the edit."""

    @property
    def compared(self) -> np.ndarray:
        """bool (n_states): the state existed before the edit."""
        return self.before_state >= 0

    @property
    def dv(self) -> np.ndarray:
        """float64 (n_states): V_after - V_before (NaN where not compared)."""
        return self.v_after - self.v_before

    @property
    def n_changed(self) -> int:
        return int(np.count_nonzero(self.changed))

    @property
    def n_new(self) -> int:
        """States that did not exist before the edit (not compared)."""
        return int(np.count_nonzero(self.before_state < 0))

    def max_abs_dv(self) -> float:
        """The largest |dV| over the compared states (0 if none)."""
        d = self.dv[np.isfinite(self.dv)]
        return float(np.abs(d).max()) if d.size else 0.0

    def sentence(self, state_name: Callable[[int], str] | None = None) -> str:
        """What changed, in one sentence: "3 states changed action; V(start) 0.41 \u2192 0.52", with the
        states not compared when the model's states changed."""
        n = self.n_changed
        parts = [f"{n} state{'s' if n != 1 else ''} changed action" if n else "no state changed action"]
        s = self.start
        if s is not None and 0 <= s < self.v_after.size:
            name = "start" if state_name is None else state_name(int(s))
            v = f"V{name}" if name.startswith("(") and name.endswith(")") else f"V({name})"  # not "V((2,1))"
            a = float(self.v_after[s])
            b = float(self.v_before[s])
            parts.append(f"{v} {_num(b)} \u2192 {_num(a)}" if math.isfinite(b) else
                         f"{v} {_num(a)} (the start did not exist before)")
        if not np.any(self.compared):
            parts.append("the states all changed: nothing compared")
        elif self.n_new or self.gone:
            bits = []
            if self.n_new:
                bits.append(f"{self.n_new} new state{'s' if self.n_new != 1 else ''} not compared")
            if self.gone:
                bits.append(f"{self.gone} state{'s' if self.gone != 1 else ''} removed")
            parts.append(", ".join(bits))
        return "; ".join(parts)


def _num(x: float) -> str:
    return f"{x:.3g}" if abs(x) < 1e4 else f"{x:.4g}"


def policy_diff(before: TabularMDP, v_before: np.ndarray, after: TabularMDP, v_after: np.ndarray, *,
                start: int | None = None, tie_tol: float = TIE_TOL) -> PolicyDiff:
    """The :class:`PolicyDiff` from the solve (``before``, ``v_before``) to the solve (``after``, ``v_after``):
    states aligned by :func:`align_states`, optimal-action sets by :func:`optimal_pairs`."""
    vb = np.asarray(v_before, dtype=np.float64)
    va = np.asarray(v_after, dtype=np.float64)
    if vb.shape != (before.n_states,) or va.shape != (after.n_states,):
        raise ValueError(f"values {vb.shape} and {va.shape} do not fit models of {before.n_states} and "
                         f"{after.n_states} states")
    where = align_states(before, after)
    ok = where >= 0
    v_old = np.full(after.n_states, np.nan)
    v_old[ok] = vb[where[ok]]
    # each optimal (state, action) pair as one integer, the state numbered as in the model after the edit
    base = max(before.n_actions, after.n_actions, 1)
    sa, aa = optimal_pairs(after, va, tie_tol=tie_tol)
    keep = ok[sa]
    keys_after = sa[keep] * base + aa[keep]
    sb, ab = optimal_pairs(before, vb, tie_tol=tie_tol)
    to_after = np.full(before.n_states, -1, dtype=np.int64)
    to_after[where[ok]] = np.flatnonzero(ok)
    mapped = to_after[sb]
    keys_before = mapped[mapped >= 0] * base + ab[mapped >= 0]
    differ = np.setxor1d(keys_after, keys_before, assume_unique=False) // base
    changed = np.zeros(after.n_states, dtype=bool)
    changed[differ] = True
    changed &= ok
    gone = int(before.n_states - np.count_nonzero(to_after >= 0))
    return PolicyDiff(where, v_old, va, changed, gone=gone, start=start,
                      terminal=np.asarray(after.terminal, dtype=bool), before_mdp=before, before_values=vb,
                      after_mdp=after)


@dataclass(frozen=True, eq=False)
class StateChange:
    """What the edit changed at one state (of the model after it), action by action: what a position board
    draws at the position it shows."""

    q_before: np.ndarray
    """float64 (n_actions of the model after the edit): Q(s, a) before the edit, backed up in the old model
    from the old values (NaN: not an action of the state then, or the state did not exist)."""
    q_after: np.ndarray
    """float64 (n_actions): Q(s, a) after the edit (NaN: not an action of the state)."""
    optimal_before: np.ndarray
    """bool (n_actions): optimal before the edit under the solvers' tie rule."""
    optimal_after: np.ndarray
    """bool (n_actions): optimal after the edit under the same rule."""

    @property
    def changed(self) -> np.ndarray:
        """bool (n_actions): optimal after the edit and not before, or the reverse (the diff's ``changed``
        for the state is whether any is)."""
        return self.optimal_before != self.optimal_after

    @property
    def dq(self) -> np.ndarray:
        """float64 (n_actions): Q after - Q before (NaN where either is unknown)."""
        return self.q_after - self.q_before


def _optimal(mdp: TabularMDP, state: int, q: np.ndarray, tie_tol: float) -> np.ndarray:
    """bool (len(q)): the actions of ``state`` optimal in ``q`` (per action id), by the state's mover (the
    rule of :func:`~mdpviz.solvers.sweep.optimal_rows`: within ``tie_tol * (1 + |best|)`` of the best)."""
    out = np.zeros(q.size, dtype=bool)
    ok = np.isfinite(q)
    if not ok.any() or bool(mdp.terminal[state]):
        return out
    sense = float(np.asarray(mdp.sense)[state])
    best = float(np.max(q[ok]) if sense >= 0 else np.min(q[ok]))
    out[ok] = sense * (q[ok] - best) >= -tie_tol * (1.0 + abs(best))
    return out


def state_change(diff: PolicyDiff, state: int, *, tie_tol: float = TIE_TOL) -> StateChange:
    """Q before and after the edit of every action of ``state`` (a state of the model after the edit) and
    which were optimal, each backed up in its own model from its own values (the same action id compared,
    as :func:`policy_diff` compares them). ValueError when the diff does not carry both models."""
    after, before = diff.after_mdp, diff.before_mdp
    if after is None or before is None or diff.before_values is None:
        raise ValueError("this diff does not carry the models before and after the edit")
    s = int(state)
    if not 0 <= s < after.n_states:
        raise ValueError(f"state {s} is out of range 0..{after.n_states - 1}")
    qa = state_q(after, s, diff.v_after)
    qb = np.full(qa.size, np.nan)
    b = int(diff.before_state[s])
    if b >= 0:
        old = state_q(before, b, diff.before_values)
        n = min(old.size, qb.size)
        qb[:n] = old[:n]
        ob = np.zeros(qa.size, dtype=bool)
        ob[:n] = _optimal(before, b, old, tie_tol)[:n]
    else:
        ob = np.zeros(qa.size, dtype=bool)
    oa = _optimal(after, s, qa, tie_tol) if b >= 0 else np.zeros(qa.size, dtype=bool)
    return StateChange(qb, qa, ob, oa)


def diff_scale(diff: PolicyDiff, *, label: str = DIFF_LABEL) -> ColorScale:
    """The diverging colour scale of the difference map: centred on 0, from -m to m with m the largest
    |dV| (a tiny span when nothing moved, so that every cell is the neutral middle)."""
    m = diff.max_abs_dv()
    m = m if m > 0 and math.isfinite(m) else 1e-12
    return ColorScale(-m, m, label=label, kind=DIVERGING)


__all__ = ["DIFF_LABEL", "PolicyDiff", "StateChange", "align_states", "diff_scale", "optimal_pairs", "policy_diff",
           "state_change"]
