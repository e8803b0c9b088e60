"""The live re-solve's policy diff on a position board: what the last edit changed at the shown position.

The window's live part (:mod:`mdpviz.window.live`) hands every board the last edit's
:class:`~mdpviz.models.kit.pictures.policy_diff.PolicyDiff` (``show_change``). A cell board outlines the changed
states; a position board shows one position, so it marks the *moves* there (:func:`position_change`):

* "after" / "before": the moves whose optimality changed with the edit (optimal now and not before, or
  the reverse, under the solvers' one tie rule, so that the position's diff agrees with the states the
  diff counts as changed) get a dashed magenta ring (:data:`~mdpviz.models.kit.pictures.colors.HIGHLIGHT`), and
  a line says what changed here ("Best move here: cell 2 before the edit, cell 4 now"). "before"
  shows each move's Q backed up in the model before the edit from its values (:class:`BeforeModel`);
* "difference": each move's cell coloured by Q after - Q before the edit on a diverging scale centred
  on 0, its signed change as the number; a move with no counterpart before is uncoloured, "new".

Pure display data (no Qt): the board paints what :func:`position_change` returns.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from mdpviz.models.kit.pictures.colors import DIVERGING, ColorScale, fitted_scale
from mdpviz.models.kit.pictures.display import BackupTerm, state_q
from mdpviz.models.kit.pictures.policy_diff import PolicyDiff, StateChange, state_change
from mdpviz.models.kit.boards.position import (
    DECISION,
    Position,
    PositionModel,
    PositionView,
    compact_value,
    greedy_move,
)

DQ_LABEL = "Q after \u2212 Q before the edit"
"""Colour bar label of a position's difference map (its moves' Q, not the states' V)."""


@dataclass(frozen=True, eq=False)
class ShownChange:
    """The last edit's diff as the window asked the board to show it (see ``show_change``)."""

    diff: PolicyDiff
    """The diff (per state of the model after the edit, carrying both models)."""
    mode: str
    """"after", "before" or "difference"."""
    scale: ColorScale | None = None
    """The window's diverging scale of the difference map (its label and kind; the range is fitted to the
    shown position's changes)."""


@dataclass(frozen=True, eq=False)
class PositionChange:
    """What the board draws of the diff at one position."""

    view: PositionView
    """The view to paint (the difference map's colours and numbers in "difference")."""
    marked: tuple[int, ...]
    """Cells ringed: a move drawn there changed optimality with the edit."""
    line: str
    """What changed here, in words ("" for nothing to say)."""
    scale: ColorScale | None
    """The colour scale of ``view``'s fill (the diverging one in "difference")."""


def fits(diff: PolicyDiff, model: PositionModel | None) -> bool:
    """The diff belongs to the model the board walks (its states, and both models carried)."""
    mdp = getattr(model, "mdp", None)
    return (mdp is not None and diff.after_mdp is not None and diff.before_mdp is not None
            and np.shape(diff.changed) == (mdp.n_states,) and diff.after_mdp.n_states == mdp.n_states)


class BeforeModel(PositionModel):
    """The board's position model with each move's Q, V and backup taken from the model before the edit
    and its values (the moves, their cells and the rules are today's: an edit of rewards or risks keeps
    the positions and moves, and a position that did not exist before shows no values)."""

    def __init__(self, model: PositionModel, diff: PolicyDiff) -> None:
        self.now = model
        self.diff = diff
        self.players, self.value_label, self.n_cells = model.players, model.value_label, model.n_cells

    def _before(self, pos: Position) -> int:
        return int(self.diff.before_state[pos.state]) if 0 <= pos.state < self.diff.before_state.size else -1

    def start(self, *, first: str | None = None) -> Position:
        return self.now.start(first=first)

    def moves(self, pos: Position):
        return self.now.moves(pos)

    def play(self, pos: Position, action: int, rng: np.random.Generator):
        return self.now.play(pos, action, rng)

    def move_values(self, pos: Position, values: Any) -> np.ndarray:
        mv = self.now.moves(pos)
        b = self._before(pos)
        if b < 0 or pos.chooser != DECISION or not mv:
            return np.full(len(mv), np.nan)
        q = state_q(self.diff.before_mdp, b, self.diff.before_values)
        return np.array([q[m.action] if 0 <= m.action < q.size else np.nan for m in mv], dtype=np.float64)

    def value(self, pos: Position, values: Any) -> float:
        b = self._before(pos)
        return math.nan if b < 0 else float(self.diff.before_values[b])

    def backup(self, pos: Position, action: int, values: Any) -> list[BackupTerm]:
        b, old = self._before(pos), self.diff.before_mdp
        if b < 0 or pos.chooser != DECISION or old.terminal[b]:
            return []
        v = self.diff.before_values
        return [BackupTerm(p, r, d, float(v[d])) for d, p, r in old.outcomes(b, int(action))]

    def discount(self) -> float:
        return float(self.diff.before_mdp.discount)

    def state_name(self, s: int) -> str:
        lab = self.diff.before_mdp.state_labels
        return lab[int(s)] if lab is not None and 0 <= int(s) < len(lab) else str(s)

    def describe(self, pos: Position) -> str:
        return self.now.describe(pos)


def shown_model(model: PositionModel, change: ShownChange | None) -> PositionModel:
    """The model whose values the board shows: the one before the edit in "before", else ``model``."""
    if change is not None and change.mode == "before" and fits(change.diff, model):
        return BeforeModel(model, change.diff)
    return model


def _cell(m, two_click: bool, origin: int) -> int:
    """The cell a move is drawn on (its piece's while the piece is not selected)."""
    return m.cell if not two_click or m.origin < 0 or origin == m.origin else m.origin


def _names(moves, actions) -> str:
    labels = [m.label for m in moves if m.action in actions]
    if len(labels) > 1:
        return ", ".join(labels[:-1]) + " and " + labels[-1]
    return labels[0] if labels else "none"


def change_line(moves, sc: StateChange) -> str:
    """What the edit changed at a position with these ``moves``: its best moves before and after."""
    before = {m.action for m in moves if 0 <= m.action < sc.changed.size and sc.optimal_before[m.action]}
    after = {m.action for m in moves if 0 <= m.action < sc.changed.size and sc.optimal_after[m.action]}
    if before == after:
        return "This position's best move did not change with the edit."
    s = "s" if max(len(before), len(after)) > 1 else ""
    return f"Best move{s} here: {_names(moves, before)} before the edit, {_names(moves, after)} now (ringed)."


def position_change(model: PositionModel, pos: Position, view: PositionView, change: ShownChange, *,
                    origin: int = -1, hidden: bool = False) -> PositionChange:
    """The diff at ``pos`` on the board's ``view`` of it (see the module docstring). ``hidden``: values
    hidden (Hide hints, predict mode): nothing is marked nor said, as the view shows no answer."""
    d = change.diff
    none = PositionChange(view, (), "", None)
    if hidden or pos.terminal or not fits(d, model) or not 0 <= pos.state < d.changed.size:
        return none
    if pos.chooser != DECISION:
        return replace(none, line="The model moves here: the edit's change is shown at your moves.")
    if int(d.before_state[pos.state]) < 0:
        return replace(none, line="This position did not exist before the edit: nothing to compare.")
    sc = state_change(d, pos.state)
    mv = view.moves
    two_click = any(m.origin >= 0 for m in mv)
    marked: list[int] = []
    for m in mv:
        c = _cell(m, two_click, origin)
        drawn = not two_click or m.origin < 0 or origin < 0 or origin == m.origin
        if drawn and 0 <= m.action < sc.changed.size and sc.changed[m.action] and 0 <= c < view.fill.size \
                and c not in marked:
            marked.append(int(c))
    line = change_line(mv, sc)
    if change.mode != "difference":
        return PositionChange(view, tuple(marked), line, None)
    # the difference map: Q after - Q before of each move, on a diverging scale fitted to this position
    qa = np.array([sc.q_after[m.action] if 0 <= m.action < sc.q_after.size else np.nan for m in mv])
    qb = np.array([sc.q_before[m.action] if 0 <= m.action < sc.q_before.size else np.nan for m in mv])
    n = view.fill.size
    dq = np.full(n, np.nan)
    new = np.zeros(n, dtype=bool)
    for i, m in enumerate(mv):
        if two_click and m.origin >= 0 and origin != m.origin:
            continue  # a piece not selected: its cell shows its best move's change (below)
        if 0 <= m.cell < n:
            dq[m.cell], new[m.cell] = qa[i] - qb[i], not math.isfinite(qb[i])
    if two_click and origin < 0:
        for c in {m.origin for m in mv if m.origin >= 0}:
            idx = [i for i, m in enumerate(mv) if m.origin == c]
            sub = [mv[i] for i in idx]
            ja, jb = greedy_move(sub, qa[idx], pos.objective), greedy_move(sub, qb[idx], pos.objective)
            if ja >= 0 and 0 <= c < n:
                dq[c] = qa[idx[ja]] - qb[idx[jb]] if jb >= 0 else math.nan
                new[c] = jb < 0
    ok = np.isfinite(dq)
    m_abs = float(np.abs(dq[ok]).max()) if ok.any() else 0.0
    label = DQ_LABEL
    scale = (fitted_scale(-m_abs, m_abs, label=label, kind=DIVERGING) if m_abs > 0 else
             ColorScale(-1e-12, 1e-12, label=label, kind=DIVERGING))  # nothing moved: every cell the middle
    fill = np.full(n, np.nan)
    fill[ok] = scale.normalise(dq[ok])
    texts = list(view.texts)
    tips = list(view.tips)
    for c in range(n):
        if ok[c]:
            texts[c] = signed(float(dq[c]))
            tips[c] = (tips[c] + "\n" if tips[c] else "") + f"Q after \u2212 Q before the edit: {dq[c]:+.6g}"
        elif new[c]:
            texts[c] = "new"
            tips[c] = (tips[c] + "\n" if tips[c] else "") + "no such move before the edit"
        else:
            texts[c] = ""  # (no value of the solve beside the changes)
    shown = replace(view, fill=fill, texts=tuple(texts), tips=tuple(tips))
    line = f"{line} V here {signed(float(d.dv[pos.state]))}."
    return PositionChange(shown, tuple(marked), line, scale)


def signed(x: float) -> str:
    """A change with its sign, short enough for a cell ("+0.12", "\u22123500", "0")."""
    if not math.isfinite(x):
        return ""
    if x == 0:
        return "0"
    return ("+" if x > 0 else "\u2212") + compact_value(abs(x))


def both_scale(model: PositionModel, pos: Position, change: ShownChange | None, scale: ColorScale | None) -> ColorScale | None:
    """In "after" and "before": the position's colour scale widened to the other solve's Q-values of its
    moves, so that flipping between the two compares colours (the window fixes one scale for both)."""
    if change is None or scale is None or change.mode == "difference" or pos.terminal or pos.chooser != DECISION \
            or not fits(change.diff, model):
        return scale
    qs = [BeforeModel(model, change.diff).move_values(pos, None), model.move_values(pos, change.diff.v_after)]
    q = np.concatenate(qs)
    q = q[np.isfinite(q)]
    if not q.size:
        return scale
    lo, hi = min(scale.lo, float(q.min())), max(scale.hi, float(q.max()))
    if lo >= scale.lo and hi <= scale.hi:
        return scale
    return fitted_scale(lo, hi, label=scale.label, kind=scale.kind)


__all__ = ["BeforeModel", "DQ_LABEL", "PositionChange", "ShownChange", "both_scale", "change_line", "fits",
           "position_change", "shown_model", "signed"]
