"""Checkers in the main window: the board with men and kings, the agent's move values, the discount lesson.

The rules, the state enumeration and the compiled MDP live in :mod:`mdpviz.models.checkers`; this
module only shows them through the common board-game view (:mod:`mdpviz.widgets.position`):

* :class:`CheckersSettings`: the game's edits (variant, agent colour, discount), one frozen value;
* :class:`CheckersPositionModel`: what the position board asks of a game (positions, the legal moves
  with their MDP action ids, playing a move, the random opponent's reply, exact outcome
  probabilities), answered by calling :class:`~mdpviz.models.checkers.Checkers` and
  :class:`~mdpviz.models.checkers.CheckersMDP`;
* :class:`CheckersPainter`: dark and light squares, men as discs and kings as discs with a crown;
* :class:`CheckersGame`: the :class:`~mdpviz.widgets.position.PositionGame` (the window's game),
  whose enumeration and compile run on the controller's job thread with progress and Cancel;
* :class:`CheckersEditor`: the variant, the agent's colour and the discount slider (greedy 0.1 vs
  far-sighted 0.9: the seed's lesson).

Compiling off the GUI thread
----------------------------
``compile_checkers`` has no progress or cancel hook, so a compile is run in two tries: first in
the job thread itself with a small state and transition budget (:data:`QUICK_MAX_STATES`,
:data:`QUICK_MAX_TRANSITIONS`, about a second on the development machine), which the model
refuses within that second when the variant is larger; then in a child Python process with the
model's own budgets, which Cancel ends at once (``Popen.kill``) and which leaves the window's
interpreter free while it runs (a pure-Python enumeration in a thread would hold the GIL for
tens of seconds). The result comes back pickled on the child's stdout.
"""
from __future__ import annotations

import json
import math
import os
import pickle
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

import numpy as np
from PySide6.QtCore import QObject, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from mdpviz.models import checkers as ck
from mdpviz.models.mdp import TabularMDP
from mdpviz.models.simulate import policy_matrix, simulate
from mdpviz.scenario import ScenarioError
from mdpviz.solvers import solve
from mdpviz.solvers.sweep import TIE_TOL
from mdpviz.models.display import BackupTerm
from mdpviz.widgets.game import Cancelled, Progress
from mdpviz.widgets.position import BoardPainter, GridPainter, PositionGame
from mdpviz.models.position import (
    DECISION,
    MODEL,
    MatchupResult,
    MatchupRow,
    MoveSpec,
    Ply,
    Position,
    TabularPositionModel,
)
from mdpviz.widgets import named as _named

COLOUR_NAME = {ck.BLACK: "Black", ck.WHITE: "White"}
"""Display name of each colour (the position board's player names)."""
NAME_COLOUR = {v: k for k, v in COLOUR_NAME.items()}
"""Model colour of each display name."""

OUTCOME_LABELS = ("Black wins", "White wins", "draws")
"""The three results of a checkers game, Black (the first player) first."""

QUICK_MAX_STATES = 80_000
"""State budget of the first, in-thread compile try (5x5, 1 row, 20 plies has 49,021 states and
compiles in about 0.4 s on the development machine); a larger variant goes to a child process."""
QUICK_MAX_TRANSITIONS = 600_000
"""Transition budget of the first, in-thread compile try (see :data:`QUICK_MAX_STATES`)."""

POLL_SECONDS = 0.25
"""How often the job thread checks Cancel and reports progress while the child process compiles."""

SIM_CHUNK_TRANSITIONS = 2_000_000
"""A simulation is split into at most this many transitions / the variant's transitions chunks
(at most 10): each chunk reports progress and checks Cancel."""
SIM_MAX_STEPS = 10_000
"""Agent moves after which a simulated game without a ply limit is stopped and counted as a draw."""

MAX_COMPILED = 3
"""Compiled variants kept in memory (so Undo of a variant edit does not recompile)."""

OUTCOME_MAX_STEPS = 500
"""Agent moves followed when computing exact outcome probabilities of a position (variants
without a ply limit can cycle; the mass still in play after this many moves is reported)."""
OUTCOME_MAX_WORK = 3_000_000
"""Transitions (and rows) the board's exact outcome probabilities may follow per position and
value array (about 0.2 s on the GUI thread on the development machine); where a game can cycle
(no ply limit) the probability still in play when the bound is reached is shown as such."""

DISCOUNT_STEPS = 100
"""The discount slider moves in steps of 1 / DISCOUNT_STEPS."""
GREEDY_DISCOUNT = 0.1
"""The seed's discount: the agent grabs material now."""
FAR_SIGHTED_DISCOUNT = 0.9
"""A discount that makes the agent play for the +100 win."""

LIGHT_SQUARE = "#f1e4c8"
"""Fill of the light squares (never used in play)."""
DARK_SQUARE = "#a47b56"
"""Fill of the dark squares without a value (pieces and the value colours read on it)."""
BLACK_PIECE = "#1b1b1b"
"""Fill of Black's pieces (outlined in white so they read on every value colour)."""
WHITE_PIECE = "#fbfbf8"
"""Fill of White's pieces (outlined in black)."""


# ---------------------------------------------------------------------------------- settings
@dataclass(frozen=True)
class CheckersSettings:
    """The checkers game's edits: the variant, the agent's colour and the discount."""

    size: int = 5
    """Board side n (4..8): the game is played on the dark squares of an n x n board."""
    rows: int = 1
    """Rows of men each side starts with."""
    forced_capture: bool = True
    """A capture must be played when one exists (English draughts)."""
    multi_jump: bool = True
    """A capturing piece keeps jumping while it can."""
    ply_limit: int | None = 20
    """Draw after this many plies (half-moves); None: no limit (games may cycle, discount < 1)."""
    agent: str = ck.BLACK
    """The agent's colour ("black" moves first); the other colour plays uniformly at random."""
    discount: float = GREEDY_DISCOUNT
    """gamma per agent move (the seed's 0.1: greedy for material; near 1: plays for the win)."""

    def rules(self) -> ck.CheckersRules:
        """The variant as the model's rules (ValueError naming the bad field)."""
        return ck.CheckersRules(size=self.size, rows=self.rows, forced_capture=self.forced_capture,
                                multi_jump=self.multi_jump, ply_limit=self.ply_limit)

    def validate(self) -> "CheckersSettings":
        """Self, checked: rules, agent colour, discount (ValueError naming the field)."""
        self.rules()
        if self.agent not in ck.COLOURS:
            raise ValueError(f"agent colour must be 'black' or 'white', got {self.agent!r}")
        g = self.discount
        if isinstance(g, bool) or not isinstance(g, (int, float)) or not 0.0 <= float(g) <= 1.0:
            raise ValueError(f"discount must be a number in [0, 1], got {g!r}")
        if self.ply_limit is None and float(g) >= 1.0:
            raise ValueError("without a ply limit games can cycle forever: the discount must be below 1")
        return self

    @property
    def key(self) -> tuple[ck.CheckersRules, str]:
        """What a compile depends on (the discount is not: it is swapped into the compiled MDP)."""
        return (self.rules(), self.agent)


def settings_to_dict(s: CheckersSettings) -> dict[str, Any]:
    """The settings as scenario data."""
    return {"size": s.size, "rows": s.rows, "forced_capture": s.forced_capture, "multi_jump": s.multi_jump,
            "ply_limit": s.ply_limit, "agent": s.agent, "discount": s.discount}


def settings_from_dict(data: dict[str, Any], path: str) -> CheckersSettings:
    """Scenario data -> settings; ScenarioError naming the file and the field otherwise."""
    where = "games.checkers"
    if not isinstance(data, dict):
        raise ScenarioError(path, where, f"must be an object, got {type(data).__name__}")
    d = CheckersSettings()
    known = set(settings_to_dict(d))
    extra = sorted(set(data) - known)
    if extra:
        raise ScenarioError(path, f"{where}.{extra[0]}", f"unknown field (fields: {', '.join(sorted(known))})")
    vals = {**settings_to_dict(d), **data}
    for name in ("size", "rows"):
        v = vals[name]
        if isinstance(v, bool) or not isinstance(v, int):
            raise ScenarioError(path, f"{where}.{name}", f"must be an integer, got {v!r}")
    for name in ("forced_capture", "multi_jump"):
        if not isinstance(vals[name], bool):
            raise ScenarioError(path, f"{where}.{name}", f"must be true or false, got {vals[name]!r}")
    pl = vals["ply_limit"]
    if pl is not None and (isinstance(pl, bool) or not isinstance(pl, int)):
        raise ScenarioError(path, f"{where}.ply_limit", f"must be an integer or null, got {pl!r}")
    g = vals["discount"]
    if isinstance(g, bool) or not isinstance(g, (int, float)) or not math.isfinite(g):
        raise ScenarioError(path, f"{where}.discount", f"must be a number in [0, 1], got {g!r}")
    s = CheckersSettings(size=vals["size"], rows=vals["rows"], forced_capture=vals["forced_capture"],
                         multi_jump=vals["multi_jump"], ply_limit=pl, agent=vals["agent"], discount=float(g))
    try:
        s.rules()
    except ValueError as e:
        msg = str(e)
        field_ = "rows" if "rows" in msg else ("ply_limit" if "ply" in msg else "size")
        raise ScenarioError(path, f"{where}.{field_}", msg) from None
    if s.agent not in ck.COLOURS:
        raise ScenarioError(path, f"{where}.agent", f"must be 'black' or 'white', got {s.agent!r}")
    try:
        s.validate()
    except ValueError as e:
        raise ScenarioError(path, f"{where}.discount", str(e)) from None
    return s


# ---------------------------------------------------------------------------------- squares and cells
def square_cell(name: str, size: int) -> int:
    """Board cell (row-major from rank 1: cell = (rank - 1) * size + file) of a square name like "b2"."""
    return (int(name[1:]) - 1) * size + (ord(name[0]) - ord("a"))


def cell_square(cell: int, size: int) -> str:
    """The square name of a board cell ("a1" is cell 0)."""
    r, c = divmod(int(cell), size)
    return f"{chr(ord('a') + c)}{r + 1}"


def is_dark(cell: int, size: int) -> bool:
    """Pieces stand on the dark squares: a1 is dark (rank + file even)."""
    r, c = divmod(int(cell), size)
    return (r + c) % 2 == 0


def _ranges(starts: np.ndarray, stops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Concatenated index ranges starts[i]:stops[i], and the range number i of each index."""
    counts = (stops - starts).astype(np.int64)
    owner = np.repeat(np.arange(starts.size), counts)
    offs = np.arange(owner.size) - np.repeat(np.cumsum(counts) - counts, counts)
    return starts[owner] + offs, owner


def greedy_rows(mdp: TabularMDP, states: np.ndarray, values: np.ndarray, *,
                tie_tol: float = TIE_TOL) -> np.ndarray:
    """The greedy row of each (non-terminal) state in ``states`` under ``values``: the row of
    max_a Q(s, a) = sum_s' p (r + gamma V(s')) (Sutton and Barto eq. 4.10), ties within
    ``tie_tol * (1 + |best|)`` to the lowest action id, as the solvers break them."""
    s = np.asarray(states, dtype=np.int64)
    rows, owner = _ranges(mdp.state_ptr[s], mdp.state_ptr[s + 1])
    q = mdp.row_reward[rows] + mdp.discount * (mdp.matrix[rows] @ np.asarray(values, dtype=np.float64))
    best = np.full(s.size, -np.inf)
    np.maximum.at(best, owner, q)
    tied = q >= best[owner] - tie_tol * (1.0 + np.abs(best[owner]))
    act = np.where(tied, mdp.row_action[rows], np.iinfo(np.int64).max)
    low = np.full(s.size, np.iinfo(np.int64).max)
    np.minimum.at(low, owner, act)
    pick = tied & (mdp.row_action[rows] == low[owner])
    out = np.full(s.size, -1, dtype=np.int64)
    out[owner[pick]] = rows[pick]
    return out


def outcome_distribution(mdp: TabularMDP, start: dict[int, float], values: np.ndarray, *,
                         max_steps: int = OUTCOME_MAX_STEPS, max_work: int | None = None,
                         tol: float = 1e-15) -> tuple[dict[int, float], float]:
    """Exact probability of ending in each terminal state when play starts from the distribution
    ``start`` (state -> probability), the agent plays greedily on ``values`` and the opponent as the
    MDP's transitions say (uniformly at random).

    Forward propagation of the policy's Markov chain, one agent move per step (no sampling); only
    the states reachable from ``start`` are touched, so one position costs a few milliseconds even
    in a large variant. It stops after ``max_steps`` moves, or once ``max_work`` transitions have
    been followed (None: no bound). Returns ({terminal state: probability}, the mass still in play
    when it stopped: 0 when every game has ended, as with a ply limit and enough work).
    """
    states = np.fromiter(start.keys(), dtype=np.int64, count=len(start))
    mass = np.fromiter(start.values(), dtype=np.float64, count=len(start))
    ended: dict[int, float] = {}
    work = 0
    for _ in range(int(max_steps)):
        term = mdp.terminal[states]
        for s, p in zip(states[term].tolist(), mass[term].tolist()):
            ended[s] = ended.get(s, 0.0) + p
        states, mass = states[~term], mass[~term]
        if states.size == 0 or mass.sum() <= tol:
            return ended, float(mass.sum())
        if max_work is not None and work >= max_work:
            break
        rows = greedy_rows(mdp, states, values)
        t, owner = _ranges(mdp.row_ptr[rows], mdp.row_ptr[rows + 1])
        work += int(mdp.state_ptr[states + 1].sum() - mdp.state_ptr[states].sum()) + t.size
        dst = mdp.dst[t]
        w = mass[owner] * mdp.prob[t]
        states, inv = np.unique(dst, return_inverse=True)
        mass = np.bincount(inv, weights=w, minlength=states.size)
    term = mdp.terminal[states]
    for s, p in zip(states[term].tolist(), mass[term].tolist()):
        ended[s] = ended.get(s, 0.0) + p
    return ended, float(mass[~term].sum())


# ---------------------------------------------------------------------------------- the position model
class CheckersPositionModel(TabularPositionModel):
    """Checkers positions for the position board, over one compiled variant.

    DECISION positions are the agent's (its moves carry the MDP's action ids, so their Q-values come
    from the compiled rows); MODEL positions are the random opponent's (probability 1/k per reply).
    Every rule is the model's: :class:`~mdpviz.models.checkers.Checkers` plays and judges the moves.
    """

    players = ("Black", "White")

    def __init__(self, cm: ck.CheckersMDP, mdp: TabularMDP | None = None) -> None:
        super().__init__(mdp if mdp is not None else cm.mdp)
        self.cm = cm
        self.game = cm.game
        self.size = cm.rules.size
        self.n_cells = self.size * self.size
        self.agent = COLOUR_NAME[cm.agent]
        self.opponent = COLOUR_NAME[ck.WHITE if cm.agent == ck.BLACK else ck.BLACK]
        self._moves: dict[ck.Position, list[tuple[int, ck.Move]]] = {}
        self._outcomes: dict[Any, dict[str, float] | None] = {}
        self._outcome_values: Any = None

    def use_mdp(self, mdp: TabularMDP) -> None:
        """The same variant with another discount: the positions (and the walk) stay, the Q-values change."""
        if mdp.n_states != self.cm.n_states:
            raise ValueError(f"the MDP has {mdp.n_states} states, the compiled variant {self.cm.n_states}")
        if mdp is not self.mdp:
            self.mdp = mdp
            self._outcomes = {}

    # ------------------------------------------------------------------ positions
    def wrap(self, p: ck.Position) -> Position:
        """The board's :class:`Position` of a model position."""
        cells = np.asarray(self.game.board(p), dtype=np.int8).ravel()
        res = self.game.result(p)
        mover = COLOUR_NAME[p.to_move]
        limit = self.cm.rules.ply_limit
        ply = f"ply {p.ply}" + (f" of {limit}" if limit is not None else "")
        if res is not None:
            outcome = f"{COLOUR_NAME[res]} wins" if res in COLOUR_NAME else "draw (ply limit)"
            return Position(p, cells, "", -1, DECISION, "max", outcome, ply)
        if mover == self.agent:
            try:
                state = self.cm.state_of(p)
            except ValueError:
                state = -1
            return Position(p, cells, mover, state, DECISION, "max", "", f"{mover} (agent) to move, {ply}")
        return Position(p, cells, mover, -1, MODEL, "max", "", f"{mover} (random opponent) to move, {ply}")

    def start(self, *, first: str | None = None) -> Position:
        if first is not None and first != "Black":
            raise ValueError("In checkers Black always moves first.")
        return self.wrap(self.game.initial_position())

    def position_of(self, state: int) -> Position:
        p = self.cm.position(int(state))
        if p is None:
            raise ValueError(f"the game is over: {self.state_name(int(state))}")
        return self.wrap(p)

    def state_name(self, s: int) -> str:
        """Short name of an MDP state: its number, or win / draw / loss (from the agent's side)."""
        return {self.cm.win: "win", self.cm.draw: "draw", self.cm.loss: "loss"}.get(int(s), str(int(s)))

    def human_marks(self) -> tuple[str, ...]:
        """A person plays the opponent's colour against the agent (the policy is the agent's colour's)."""
        return (self.opponent,)

    def first_choices(self) -> tuple[str, ...]:
        return ("Black",)

    # ------------------------------------------------------------------ moves
    def _move_list(self, pos: Position) -> list[tuple[int, ck.Move]]:
        """(action id, move) of the legal moves: MDP action ids at the agent's states, else the index."""
        p: ck.Position = pos.key
        got = self._moves.get(p)
        if got is None:
            if pos.terminal:
                got = []
            elif pos.chooser == DECISION and pos.state >= 0:
                got = list(self.cm.moves(pos.state))
            else:
                got = list(enumerate(self.game.legal_moves(p)))
            if len(self._moves) > 4096:
                self._moves.clear()
            self._moves[p] = got
        return got

    def moves(self, pos: Position) -> tuple[MoveSpec, ...]:
        ml = self._move_list(pos)
        prob = 1.0 / len(ml) if ml and pos.chooser == MODEL else math.nan
        return tuple(MoveSpec(a, move_label(m), square_cell(m.path[-1], self.size),
                              square_cell(m.start, self.size), prob) for a, m in ml)

    def play(self, pos: Position, action: int, rng: np.random.Generator) -> Ply:
        if pos.terminal:
            raise ValueError(f"the game is over ({pos.outcome})")
        move = dict(self._move_list(pos)).get(int(action))
        if move is None:
            raise ValueError(f"move {action} is not legal here")
        after = self.wrap(self.game.play(pos.key, move))
        return Ply(pos, int(action), after, f"{pos.mover} {move_label(move)}", self._reward(pos, after))

    def _reward(self, before: Position, after: Position) -> float:
        """The MDP's reward, split over the two plies of a transition: the agent's move pays only when
        it ends the game (+100 win, 0 draw); the reply pays the entry reward of what it leads to
        (+100 / 0 / -100, or the material R(Z) of the agent's next position)."""
        agent_moved = before.mover == self.agent
        if after.terminal:
            if after.outcome.startswith(self.agent):
                return ck.WIN_REWARD
            if after.outcome.startswith(self.opponent):
                return ck.LOSS_REWARD
            return ck.DRAW_REWARD
        if agent_moved:
            return 0.0
        return float(self.game.material(after.key, self.cm.agent))

    # ------------------------------------------------------------------ values
    def describe(self, pos: Position) -> str:
        if pos.terminal:
            who = ""
            if pos.outcome.startswith(self.agent):
                who = " (the agent wins)"
            elif pos.outcome.startswith(self.opponent):
                who = " (the agent loses)"
            return f"Game over: {pos.outcome}{who}, {pos.text}"
        mat = self.game.material(pos.key, self.cm.agent)
        return f"{pos.text}; material for the agent {mat:+.2f}"

    def backup(self, pos: Position, action: int, values: Any) -> list[BackupTerm]:
        terms = super().backup(pos, action, values)
        if not terms:
            return terms
        return annotate_terms(self.cm, pos.state, int(action), terms)

    def outcome_probabilities(self, pos: Position, values: Any) -> dict[str, float] | None:
        """Exact P(Black wins), P(White wins), P(draw) from ``pos`` when the agent plays greedily on
        ``values`` and the opponent uniformly at random (see :func:`outcome_distribution`); without a
        ply limit, where games can cycle, the probability not decided within the work bound
        (:data:`OUTCOME_MAX_STEPS`, :data:`OUTCOME_MAX_WORK`) is given as "not decided yet"."""
        if values is None or pos.terminal:
            return None
        if values is not self._outcome_values:
            self._outcome_values = values
            self._outcomes = {}
        if pos.key in self._outcomes:
            return self._outcomes[pos.key]
        v = np.asarray(values, dtype=np.float64)
        if v.shape != (self.mdp.n_states,):
            return None
        if pos.chooser == DECISION and pos.state >= 0:
            start = {pos.state: 1.0}
        elif pos.chooser == MODEL:
            start = {}
            replies = self._move_list(pos)
            for _, m in replies:
                after = self.wrap(self.game.play(pos.key, m))
                s = self._terminal_state(after) if after.terminal else after.state
                if s < 0:
                    return None
                start[s] = start.get(s, 0.0) + 1.0 / len(replies)
        else:
            return None
        ended, left = outcome_distribution(self.mdp, start, v, max_work=OUTCOME_MAX_WORK)
        cm = self.cm
        win, loss, draw = ended.get(cm.win, 0.0), ended.get(cm.loss, 0.0), ended.get(cm.draw, 0.0)
        black, white = (win, loss) if cm.agent == ck.BLACK else (loss, win)
        out = {"Black wins": black, "White wins": white, "draw": draw}
        if left > 1e-12:
            out["not decided yet"] = left
        if len(self._outcomes) > 4096:
            self._outcomes.clear()
        self._outcomes[pos.key] = out
        return out

    def _terminal_state(self, pos: Position) -> int:
        if pos.outcome.startswith(self.agent):
            return self.cm.win
        if pos.outcome.startswith(self.opponent):
            return self.cm.loss
        return self.cm.draw


def move_label(m: ck.Move) -> str:
    """A move as the board lists it: "b2-c3", "a1xc3xe5", with " =K" when the man is crowned."""
    return m.label + (" =K" if m.promotes else "")


def annotate_terms(cm: ck.CheckersMDP, state: int, action: int, terms: list[BackupTerm]) -> list[BackupTerm]:
    """The backup terms of (state, action) with the opponent's reply behind each outcome as a note
    ("White c5-d4"), found by playing the move and each reply with the model's rules."""
    pos = cm.position(state)
    if pos is None:
        return terms
    label = cm.action_label(action)
    game = cm.game
    after = game.play(pos, label)
    if game.result(after) is not None:  # the move ends the game: one outcome, no reply
        res = game.result(after)
        note = f"{label} ends the game: " + (f"{COLOUR_NAME[res]} wins" if res in COLOUR_NAME else "draw")
        return [replace(t, note=note) for t in terms]
    by_state: dict[int, list[str]] = {}
    opp = COLOUR_NAME[after.to_move]
    for m in game.legal_moves(after):
        nxt = game.play(after, m)
        res = game.result(nxt)
        if res is None:
            try:
                s = cm.state_of(nxt)
            except ValueError:
                s = -1
        elif res == cm.agent:
            s = cm.win
        elif res == "draw":
            s = cm.draw
        else:
            s = cm.loss
        by_state.setdefault(int(s), []).append(f"{opp} {m.label}")
    out = []
    for t in terms:
        notes = by_state.get(int(t.next_state), [])
        note = notes.pop(0) if notes else ""
        out.append(replace(t, note=note))
    return out


# ---------------------------------------------------------------------------------- the painter
class CheckersPainter(GridPainter):
    """A checkers board: rank 1 at the bottom, files a.. left to right (labelled), dark and light
    squares; men are discs, kings discs with a crown. Codes: +1/+2 Black man/king, -1/-2 White."""

    MARGIN = 16.0
    """Pixels left of and below the board for the rank and file labels."""

    def cell_rects(self, rect: QRectF, n_cells: int) -> list[QRectF]:
        n = self.size
        area = rect.adjusted(self.MARGIN, 0, 0, -self.MARGIN)
        side = min(area.width() / n, area.height() / n)
        x0 = area.left() + (area.width() - side * n) / 2
        y0 = area.top() + (area.height() - side * n) / 2
        out = []
        for i in range(n_cells):
            r, c = divmod(i, n)
            out.append(QRectF(x0 + c * side, y0 + (n - 1 - r) * side, side, side))
        return out

    def paint_background(self, qp: QPainter, rect: QRectF, cells: list[QRectF]) -> None:
        n = self.size
        if len(cells) < n * n:
            return
        qp.setPen(QColor("#333333"))
        f = QFont(qp.font())
        f.setPixelSize(max(9, min(14, int(cells[0].width() * 0.22))))
        qp.setFont(f)
        for c in range(n):
            r = cells[c]
            qp.drawText(QRectF(r.left(), r.bottom() + 1, r.width(), self.MARGIN - 1),
                        Qt.AlignmentFlag.AlignCenter, chr(ord("a") + c))
        for row in range(n):
            r = cells[row * n]
            qp.drawText(QRectF(r.left() - self.MARGIN, r.top(), self.MARGIN - 2, r.height()),
                        Qt.AlignmentFlag.AlignCenter, str(row + 1))

    def cell_base(self, cell: int) -> QColor:
        return QColor(DARK_SQUARE if is_dark(cell, self.size) else LIGHT_SQUARE)

    def paint_piece(self, qp: QPainter, r: QRectF, cell: int, code: int) -> None:
        black = code > 0
        pad = r.width() * 0.16
        disc = r.adjusted(pad, pad * 0.8, -pad, -pad * 1.2)
        rim = max(1.5, r.width() * 0.035)
        fill, ink = (QColor(BLACK_PIECE), QColor("#ffffff")) if black else (QColor(WHITE_PIECE), QColor("#000000"))
        qp.save()
        qp.setPen(QPen(ink, rim))
        qp.setBrush(fill)
        qp.drawEllipse(disc)
        inner = disc.adjusted(disc.width() * 0.16, disc.height() * 0.16, -disc.width() * 0.16, -disc.height() * 0.16)
        qp.setPen(QPen(QColor("#777777") if black else QColor("#999999"), max(1.0, rim * 0.6)))
        qp.setBrush(Qt.BrushStyle.NoBrush)
        qp.drawEllipse(inner)
        if abs(code) >= 2:  # a king: a crown inside the disc
            w, h = inner.width() * 0.62, inner.height() * 0.42
            x, y = inner.center().x() - w / 2, inner.center().y() - h / 2
            crown = QPolygonF([QPointF(x, y + h), QPointF(x, y), QPointF(x + w * 0.25, y + h * 0.45),
                               QPointF(x + w * 0.5, y - h * 0.05), QPointF(x + w * 0.75, y + h * 0.45),
                               QPointF(x + w, y), QPointF(x + w, y + h)])
            qp.setPen(QPen(ink, max(1.0, rim * 0.7)))
            qp.setBrush(QColor("#e69f00"))  # Okabe-Ito orange: the crown reads on both colours
            qp.drawPolygon(crown)
        qp.restore()

    def cell_name(self, cell: int) -> str:
        return f"{cell_square(cell, self.size)} ({'dark' if is_dark(cell, self.size) else 'light'} square)"


# ---------------------------------------------------------------------------------- compiling
_CHILD = """
import json, pickle, sys
from mdpviz.models.checkers import CheckersRules, compile_checkers
a = json.loads(sys.argv[1])
try:
    res = ("ok", compile_checkers(CheckersRules(**a["rules"]), agent=a["agent"], discount=a["discount"]))
except ValueError as e:
    res = ("error", str(e))
except MemoryError:
    res = ("error", "the enumeration ran out of memory: use a smaller board, fewer rows or a lower ply limit")
sys.stdout.buffer.write(pickle.dumps(res, protocol=pickle.HIGHEST_PROTOCOL))
sys.stdout.buffer.flush()
"""


def _rules_dict(rules: ck.CheckersRules) -> dict[str, Any]:
    return {"size": rules.size, "rows": rules.rows, "forced_capture": rules.forced_capture,
            "multi_jump": rules.multi_jump, "ply_limit": rules.ply_limit}


def compile_in_process(rules: ck.CheckersRules, *, agent: str, discount: float, progress: Progress,
                       cancelled: Cancelled, poll: float = POLL_SECONDS) -> ck.CheckersMDP | None:
    """``compile_checkers`` in a child Python process with the model's budgets; None if cancelled
    (the child is killed at once). ValueError with the model's message when it refuses the variant."""
    root = str(Path(ck.__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    arg = json.dumps({"rules": _rules_dict(rules), "agent": agent, "discount": float(discount)})
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", _CHILD, arg], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env)
    try:
        while True:
            try:
                out, err = proc.communicate(timeout=poll)
                break
            except subprocess.TimeoutExpired:
                if cancelled():
                    return None
                progress(0, 0, f"Enumerating {rules.describe()} in a worker process\u2026 "
                               f"{time.perf_counter() - t0:.0f} s")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    if proc.returncode != 0 or not out:
        tail = err.decode("utf-8", "replace").strip().splitlines()
        raise RuntimeError(f"the checkers compile process failed (exit {proc.returncode})"
                           + (f": {tail[-1]}" if tail else ""))
    status, payload = pickle.loads(out)
    if status != "ok":
        raise ValueError(payload)
    return payload


def compile_job(rules: ck.CheckersRules, *, agent: str, discount: float) -> Callable[[Progress, Cancelled], Any]:
    """The job ``fn(progress, cancelled) -> CheckersMDP | None`` that enumerates and compiles a variant:
    in the calling thread under the small budgets (:data:`QUICK_MAX_STATES`), else in a child process
    (:func:`compile_in_process`)."""

    def job(progress: Progress, cancelled: Cancelled) -> ck.CheckersMDP | None:
        progress(0, 0, f"Enumerating {rules.describe()}\u2026")
        try:
            cm = ck.compile_checkers(rules, agent=agent, discount=discount, max_states=QUICK_MAX_STATES,
                                     max_transitions=QUICK_MAX_TRANSITIONS)
        except ck.VariantTooLarge:  # larger than the quick budget: the child process applies the model's own
            if cancelled():
                return None
            cm = compile_in_process(rules, agent=agent, discount=discount, progress=progress, cancelled=cancelled)
        if cm is None or cancelled():
            return None
        progress(0, 0, f"Indexing {cm.n_states:,} states\u2026")
        warm_up(cm)
        return cm

    return job


def warm_up(cm: ck.CheckersMDP) -> None:
    """Build the compiled variant's lazy lookups (position -> state, the row matrix) on the calling
    thread, so that the GUI thread's first position does not pay for them (about 2 s at 1.3 million
    states on the development machine)."""
    for s in cm.start_states[:1]:
        pos = cm.position(int(s))
        if pos is not None:
            cm.state_of(pos)
    cm.mdp.matrix
    cm.mdp.row_reward


# ---------------------------------------------------------------------------------- the game
class CheckersGame(PositionGame):
    """Checkers against a uniformly random opponent (seed 004), solved by the window's solvers.

    The variant is compiled on the controller's job thread when it is first needed (progress and
    Cancel in the editor; the board says "Compiling"); ``build_mdp`` returns the compiled MDP with
    the edited discount, or None while the compile runs.
    """

    key = "checkers"
    title = "Checkers"
    value_label = "value of each move Q (reward)"
    unit = "reward"
    supports_discount = True

    def __init__(self, settings: CheckersSettings | None = None, parent: QObject | None = None) -> None:
        super().__init__((settings or CheckersSettings()).validate(), parent)
        self._compiled: dict[tuple, ck.CheckersMDP] = {}
        self._mdps: dict[tuple, TabularMDP] = {}
        self._models: dict[tuple, CheckersPositionModel] = {}
        self._errors: dict[tuple, str] = {}
        self._compiling: tuple | None = None
        self._starting = False
        self._user_cancel = False
        self._held: tuple | None = None  # a compile the user cancelled: not restarted until Build
        self._progress_text = ""
        self._editor: CheckersEditor | None = None
        self._start_timer = QTimer(self)
        self._start_timer.setSingleShot(True)
        self._start_timer.timeout.connect(self._start_compile)

    @property
    def settings(self) -> CheckersSettings:
        """The current edits."""
        return self._state

    # ------------------------------------------------------------------ the model
    def compiled(self) -> ck.CheckersMDP | None:
        """The compiled variant of the current settings, or None (not compiled yet)."""
        return self._compiled.get(self.settings.key)

    @property
    def compiling(self) -> bool:
        """A compile is running on the job thread."""
        return self._compiling is not None

    def build_mdp(self) -> TabularMDP | None:
        s = self.settings
        key = s.key
        if key in self._errors:
            raise ValueError(self._errors[key])
        cm = self._compiled.get(key)
        if cm is None:
            self._request_compile()
            return None
        mk = (key, float(s.discount))
        m = self._mdps.get(mk)
        if m is None:
            m = cm.mdp if float(cm.mdp.discount) == float(s.discount) else replace(cm.mdp, discount=float(s.discount))
            self._mdps = {k: v for k, v in self._mdps.items() if k[0] in self._compiled}
            self._mdps[mk] = m
        return m

    def position_model(self) -> CheckersPositionModel | None:
        key = self.settings.key
        cm = self._compiled.get(key)
        if cm is None:
            return None
        mdp = self.mdp()
        if mdp is None:
            return None
        model = self._models.get(key)
        if model is None:
            model = self._models[key] = CheckersPositionModel(cm, mdp)
        model.use_mdp(mdp)
        return model

    def painter(self) -> BoardPainter:
        return CheckersPainter(self.settings.size)

    def empty_text(self) -> str:
        if self._compiling is not None and self._compiling == self.settings.key:
            return self._progress_text or f"Compiling {self.settings.rules().describe()}\u2026"
        if self._held == self.settings.key:
            return "Compile cancelled: press Build in the Game panel to enumerate this variant."
        return f"Compiling {self.settings.rules().describe()}\u2026"

    def discount(self) -> float | None:
        return float(self.settings.discount)

    def start_state(self) -> int:
        cm = self.compiled()
        return 0 if cm is None else int(cm.start_states[0])

    # ------------------------------------------------------------------ compile on the job thread
    def _request_compile(self) -> None:
        """Start compiling the current variant soon (after the window has finished its reset, which
        cancels any job in flight), unless it runs already or the user cancelled it."""
        key = self.settings.key
        if self._compiling == key or self._held == key or key in self._compiled:
            return
        if not self._start_timer.isActive():
            self._start_timer.start(0)

    def build(self) -> None:
        """(Re)start the compile of the current variant (the Build button, e.g. after Cancel)."""
        self._held = None
        self._errors.pop(self.settings.key, None)
        self._mdp_cache = None
        self._request_compile()
        self.redraw.emit()

    def cancel_compile(self) -> None:
        """Cancel the running compile (Cancel button); it is not restarted until Build."""
        if self._compiling is not None:
            self._user_cancel = True
            self.cancel_job()

    def _start_compile(self) -> None:
        s = self.settings
        key = s.key
        if key in self._compiled or self._held == key or key in self._errors:
            return
        if self._compiling is not None:
            if self._compiling != key:  # an older variant is compiling: stop it, then start this one
                self.cancel_job()
            return
        self._compiling = key
        self._user_cancel = False
        self._progress_text = f"Compiling {s.rules().describe()}\u2026"
        fn = compile_job(key[0], agent=key[1], discount=float(s.discount))
        self._starting = True
        try:
            self.run_job(fn, label=f"Checkers: compiling {s.rules().describe()}",
                         on_done=lambda cm, key=key: self._on_compiled(key, cm),
                         on_progress=self._on_compile_progress,
                         on_failed=lambda msg, key=key: self._on_compile_failed(key, msg),
                         on_cancelled=lambda key=key: self._on_compile_cancelled(key))
        finally:
            self._starting = False
        if self._compiling == key:  # the window took it (else a retry is scheduled)
            self._show_progress(True)

    def _on_compile_progress(self, done: int, total: int, text: str) -> None:
        self._progress_text = text
        if self._editor is not None:
            self._editor.show_progress(done, total, text)
        self.redraw.emit()

    def _on_compiled(self, key: tuple, cm: ck.CheckersMDP | None) -> None:
        self._compiling = None
        self._show_progress(False)
        if cm is None:
            self._on_compile_cancelled(key)
            return
        self._compiled[key] = cm
        while len(self._compiled) > MAX_COMPILED:
            old = next(k for k in self._compiled if k != self.settings.key)
            del self._compiled[old]
            self._models.pop(old, None)
        if self._editor is not None:
            self._editor.refresh()
        if key == self.settings.key:
            self._mdp_cache = None
            self.edited.emit(f"compiled {cm.rules.describe()}: {cm.n_states:,} states")
            self.message.emit(self.model_summary())
        else:
            self._request_compile()

    def _on_compile_failed(self, key: tuple, msg: str) -> None:
        self._compiling = None
        if self._starting:  # the window refused to start it (another job is finishing): try again soon
            self._start_timer.start(150)
            return
        self._show_progress(False)
        self._errors[key] = msg
        if self._editor is not None:
            self._editor.refresh()
        if key == self.settings.key:
            self._mdp_cache = None
            self.edited.emit("checkers variant refused")
        else:
            self._request_compile()

    def _on_compile_cancelled(self, key: tuple) -> None:
        self._compiling = None
        self._show_progress(False)
        if self._user_cancel and key == self.settings.key:
            self._held = key
            self.message.emit("Checkers compile cancelled.")
        self._user_cancel = False
        self._mdp_cache = None  # the next mdp() call asks again (a game switch cancels without holding)
        if self._editor is not None:
            self._editor.refresh()
        if key != self.settings.key:
            self._request_compile()
        self.redraw.emit()

    def _show_progress(self, running: bool) -> None:
        if self._editor is not None:
            self._editor.show_running(running, self._progress_text)

    def model_summary(self) -> str:
        """One line: the variant's state count and compile time (or why there is none)."""
        s = self.settings
        key = s.key
        if key in self._errors:
            return self._errors[key]
        cm = self._compiled.get(key)
        if cm is None:
            return "Compiling\u2026" if self._compiling == key else "Not compiled yet."
        return (f"{cm.n_states:,} states ({cm.n_positions:,} distinct positions) \u00b7 "
                f"{cm.mdp.n_transitions:,} transitions \u00b7 compiled in {cm.seconds:.2f} s")

    # ------------------------------------------------------------------ edits
    def set_settings(self, new: CheckersSettings, text: str) -> bool:
        """Apply an edit (validated; a refused edit leaves everything as it was and says why)."""
        try:
            new.validate()
        except ValueError as e:
            self.message.emit(f"Checkers: {e}")
            if self._editor is not None:
                self._editor.refresh()
            return False
        return self.edit(new, text)

    def set_variant(self, **changes: Any) -> bool:
        """Change variant fields (size, rows, forced_capture, multi_jump, ply_limit, agent)."""
        unknown = set(changes) - {"size", "rows", "forced_capture", "multi_jump", "ply_limit", "agent"}
        if unknown:
            raise ValueError(f"unknown checkers setting(s): {', '.join(sorted(unknown))}")
        new = replace(self.settings, **changes)
        if new.size != self.settings.size and "rows" not in changes:
            new = replace(new, rows=min(new.rows, max(1, (new.size - 1) // 2)))
        text = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in changes.items())
        return self.set_settings(new, text)

    def set_discount(self, gamma: float) -> bool:
        gamma = float(gamma)
        if not 0.0 <= gamma <= 1.0:
            raise ValueError(f"discount must be in [0, 1], got {gamma}")
        if self.settings.ply_limit is None and gamma >= 1.0:
            raise ValueError("without a ply limit games can cycle forever: the discount must be below 1")
        return self.edit(replace(self.settings, discount=gamma), f"discount {gamma:g}")

    # ------------------------------------------------------------------ window hooks
    def editor(self) -> QWidget:
        if self._editor is None:
            self._editor = CheckersEditor(self)
        return self._editor

    def state_name(self, s: int) -> str:
        cm = self.compiled()
        if cm is not None:
            if s == cm.win:
                return "win"
            if s == cm.draw:
                return "draw"
            if s == cm.loss:
                return "loss"
            if 0 <= s < cm.state_ply.size:  # described, not numbered: students read this
                ply = int(cm.state_ply[s])
                return f"the position (ply {ply})" if ply >= 0 else "the position"
        return str(s)

    def backup_terms(self, mdp: TabularMDP, state: int, action: int, values: np.ndarray) -> list[BackupTerm]:
        terms = super().backup_terms(mdp, state, action, values)
        cm = self.compiled()
        if cm is None or cm.n_states != mdp.n_states or not terms:
            return terms
        return annotate_terms(cm, state, action, terms)

    def episode(self, mdp: TabularMDP, probs: np.ndarray, rng: np.random.Generator):
        """One game from a start drawn from the opening distribution (several when the agent is White)."""
        from mdpviz.models.episodes import sample_mdp_episode

        cm = self.compiled()
        start = self.start_state() if cm is None else int(rng.choice(cm.start_states, p=cm.start_probs))
        return sample_mdp_episode(mdp, probs, rng=rng, start=start, max_steps=1000, state_name=None,
                                  action_name=lambda a: self.action_name(a, mdp))

    def matchups(self) -> list[str]:
        return ["optimal vs random", "random vs random"]

    def simulation_job(self, mdp: TabularMDP, policy: np.ndarray | None, *, games: int, seed: int):
        """Simulate ``games`` games of the agent's greedy policy (the converged one, or solved here on
        the job thread) and of uniformly random moves against the random opponent, in chunks (progress,
        Cancel), with the exact probabilities beside them."""
        cm0 = self.compiled()
        if cm0 is None or cm0.n_states != mdp.n_states:
            raise ValueError("checkers is not compiled yet")
        games = int(games)
        if games < 1:
            raise ValueError(f"simulate at least 1 game, got {games}")
        cm = replace(cm0, mdp=mdp)
        pol = None if policy is None else np.array(policy, dtype=np.int64)
        agent = COLOUR_NAME[cm.agent]
        opp = COLOUR_NAME[ck.WHITE if cm.agent == ck.BLACK else ck.BLACK]

        def job(progress: Progress, cancelled: Cancelled) -> MatchupResult | None:
            opt = pol
            notes = []
            if opt is None:
                progress(0, 1, "Solving (value iteration) for the optimal policy\u2026")
                sol = solve(mdp, "vi", tol=ck.DEFAULT_TOL)
                opt = np.asarray(sol.policy)
                notes.append(f"the solver had not converged: optimal = value iteration to {ck.DEFAULT_TOL:g} "
                             f"({sol.sweeps} sweeps)")
            streams = np.random.SeedSequence(int(seed)).spawn(2)
            # chunks for progress and Cancel; few on big variants (each call of the simulator sets up
            # tables over every transition)
            chunks = max(1, min(10, games // 2000, SIM_CHUNK_TRANSITIONS // max(mdp.n_transitions, 1)))
            sizes = [games // chunks + (1 if i < games % chunks else 0) for i in range(chunks)]
            rows = []
            for j, (name, p) in enumerate((("optimal vs random", opt), ("random vs random", None))):
                rng = np.random.default_rng(streams[j])
                probs = cm.random_policy() if p is None else policy_matrix(mdp, p)
                win = loss = 0
                for i, n in enumerate(sizes):
                    if cancelled():
                        return None
                    starts = cm.start_states[rng.choice(cm.start_states.size, size=n, p=cm.start_probs)]
                    ep = simulate(mdp, probs, start=starts, episodes=n, seed=rng, max_steps=SIM_MAX_STEPS)
                    win += int(np.count_nonzero(ep.final_state == cm.win))
                    loss += int(np.count_nonzero(ep.final_state == cm.loss))
                    progress(j * chunks + i + 1, 2 * chunks, f"{name}: {sum(sizes[:i + 1]):,} of {games:,} games")
                del probs
                draw = games - win - loss  # the ply limit (or, without one, still playing at the step cap)
                ex = cm.outcome_probabilities(p)
                first = (win, loss) if cm.agent == ck.BLACK else (loss, win)
                efirst = (ex["win"], ex["loss"]) if cm.agent == ck.BLACK else (ex["loss"], ex["win"])
                who = "optimal" if p is not None else "random"
                x, o = (f"{who} agent", "random") if cm.agent == ck.BLACK else ("random", f"{who} agent")
                rows.append(MatchupRow(name, x, o, (first[0], first[1], draw), games,
                                       (efirst[0], efirst[1], ex["draw"]), OUTCOME_LABELS))
            start = f"the start ({agent} agent, {opp} random)"
            return MatchupResult(tuple(rows), "games", start, tuple(notes))

        return job

    # ------------------------------------------------------------------ scenarios
    def to_dict(self) -> dict[str, Any]:
        return settings_to_dict(self.settings)

    def load_dict(self, data: dict[str, Any], path: str) -> CheckersSettings:
        return settings_from_dict(data, path)

    def load_state(self, state: Any) -> None:
        super().load_state(state)
        self._mdp_cache = None
        if self._editor is not None:
            self._editor.refresh()


# ---------------------------------------------------------------------------------- the editor


def discount_words(gamma: float) -> str:
    """What a discount does to the checkers agent, in a few words (for the slider's label)."""
    if gamma <= 0.3:
        return "greedy: grabs material now"
    if gamma < 0.8:
        return "weighs material and the result"
    return "far-sighted: plays for the +100 win"


class CheckersEditor(QWidget):
    """The checkers panel: the variant, the agent's colour, the discount slider, the state count and
    the compile's progress with Cancel / Build."""

    def __init__(self, game: CheckersGame, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("checkersEditor")
        self.game = game
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(4)
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(6)
        self.size_combo = _named(QComboBox(), "checkersSize", "Board size")
        for n in range(ck.MIN_SIZE, ck.MAX_SIZE + 1):
            self.size_combo.addItem(f"{n} \u00d7 {n}", n)
        self.size_combo.setToolTip("Board side n: the game is played on the dark squares of an n x n board")
        self.rows_spin = _named(QSpinBox(), "checkersRows", "Rows of men per side")
        self.rows_spin.setRange(1, (ck.MAX_SIZE - 1) // 2)
        self.rows_spin.setToolTip("Rows of men each side starts with (at least one empty row between the sides)")
        self.ply_spin = _named(QSpinBox(), "checkersPlyLimit", "Ply limit")
        self.ply_spin.setRange(0, 200)
        self.ply_spin.setSpecialValueText("none")
        self.ply_spin.setKeyboardTracking(False)  # typing "40" is one edit (one compile), not "4" then "40"
        self.ply_spin.setToolTip("A draw after this many half-moves (part of the state); none: games may cycle "
                                 "(then the discount must be below 1)")
        self.agent_combo = _named(QComboBox(), "checkersAgent", "Agent colour")
        self.agent_combo.addItem("Black", ck.BLACK)
        self.agent_combo.addItem("White", ck.WHITE)
        self.agent_combo.setToolTip("The colour the agent plays (Black moves first); the other colour picks "
                                    "uniformly among its legal moves")
        grid.addWidget(QLabel("Board"), 0, 0)
        grid.addWidget(self.size_combo, 0, 1)
        grid.addWidget(QLabel("Rows"), 0, 2)
        grid.addWidget(self.rows_spin, 0, 3)
        grid.addWidget(QLabel("Plies"), 1, 0)
        grid.addWidget(self.ply_spin, 1, 1)
        grid.addWidget(QLabel("Agent"), 1, 2)
        grid.addWidget(self.agent_combo, 1, 3)
        self.forced_check = _named(QCheckBox("Forced capture"), "checkersForcedCapture", "Forced capture")
        self.forced_check.setToolTip("When a capture exists the move must capture (English draughts)")
        self.multi_check = _named(QCheckBox("Multi-jump"), "checkersMultiJump", "Multi-jump chains")
        self.multi_check.setToolTip("A capturing piece keeps jumping while it can (a chain is one move)")
        grid.addWidget(self.forced_check, 2, 0, 1, 2)
        grid.addWidget(self.multi_check, 2, 2, 1, 2)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        lay.addLayout(grid)

        self.discount_label = _named(QLabel(""), "checkersDiscountLabel", "Discount")
        self.discount_label.setWordWrap(True)
        lay.addWidget(self.discount_label)
        self.discount_slider = _named(QSlider(Qt.Orientation.Horizontal), "checkersDiscountSlider",
                                      "Discount: greedy to far-sighted")
        self.discount_slider.setRange(0, DISCOUNT_STEPS)
        self.discount_slider.setTracking(False)  # one edit (and one solver reset) when the slider is released
        self.discount_slider.setToolTip("gamma per agent move: 0.1 (the seed's) makes the agent greedy for "
                                        "material; near 1 it plans for the +100 win")
        lay.addWidget(self.discount_slider)
        row = QHBoxLayout()
        self.greedy_button = _named(QPushButton(f"Greedy {GREEDY_DISCOUNT:g}"), "checkersGreedyButton",
                                    "Greedy discount")
        self.greedy_button.setToolTip(f"Discount {GREEDY_DISCOUNT:g} (the seed's): material now counts most")
        self.far_button = _named(QPushButton(f"Far-sighted {FAR_SIGHTED_DISCOUNT:g}"), "checkersFarSightedButton",
                                 "Far-sighted discount")
        self.far_button.setToolTip(f"Discount {FAR_SIGHTED_DISCOUNT:g}: the +100 win, moves ahead, counts")
        row.addWidget(self.greedy_button)
        row.addWidget(self.far_button)
        lay.addLayout(row)

        self.info = _named(QLabel(""), "checkersModelInfo", "State count")
        self.info.setWordWrap(True)
        self.info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.info)
        row = QHBoxLayout()
        self.progress = _named(QProgressBar(), "checkersCompileProgress", "Compile progress")
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setTextVisible(False)
        self.progress.setVisible(False)
        row.addWidget(self.progress, 1)
        self.cancel_button = _named(QPushButton("Cancel"), "checkersCancelCompile", "Cancel the compile")
        self.build_button = _named(QPushButton("Build"), "checkersBuild", "Enumerate and compile the variant")
        self.build_button.setToolTip("Enumerate the variant's states and compile the MDP (after a Cancel)")
        row.addWidget(self.cancel_button)
        row.addWidget(self.build_button)
        lay.addLayout(row)
        self.status = _named(QLabel(""), "checkersCompileStatus", "Compile status")
        self.status.setWordWrap(True)
        self.status.setVisible(False)
        lay.addWidget(self.status)
        lay.addStretch(1)

        self.size_combo.currentIndexChanged.connect(lambda _i: self.game.set_variant(
            size=int(self.size_combo.currentData())))
        self.rows_spin.valueChanged.connect(lambda v: self.game.set_variant(rows=int(v)))
        self.ply_spin.valueChanged.connect(lambda v: self.game.set_variant(ply_limit=int(v) or None))
        self.agent_combo.currentIndexChanged.connect(lambda _i: self.game.set_variant(
            agent=self.agent_combo.currentData()))
        self.forced_check.toggled.connect(lambda on: self.game.set_variant(forced_capture=bool(on)))
        self.multi_check.toggled.connect(lambda on: self.game.set_variant(multi_jump=bool(on)))
        self.discount_slider.valueChanged.connect(self._on_slider)
        self.discount_slider.sliderMoved.connect(lambda v: self._show_discount(v / DISCOUNT_STEPS))
        self.greedy_button.clicked.connect(lambda: self.set_discount(GREEDY_DISCOUNT))
        self.far_button.clicked.connect(lambda: self.set_discount(FAR_SIGHTED_DISCOUNT))
        self.cancel_button.clicked.connect(self.game.cancel_compile)
        self.build_button.clicked.connect(self.game.build)
        game.edited.connect(lambda _t: self.refresh())
        self.refresh()

    def set_discount(self, gamma: float) -> bool:
        """Set the discount as the slider does (one edit); False with a status message if refused."""
        try:
            return self.game.set_discount(gamma)
        except ValueError as e:
            self.game.message.emit(str(e))
            self.refresh()
            return False

    def _on_slider(self, v: int) -> None:
        self.set_discount(v / DISCOUNT_STEPS)

    def _show_discount(self, gamma: float) -> None:
        self.discount_label.setText(f"Discount \u03b3 = {gamma:.2f} \u2014 {discount_words(gamma)}")

    def refresh(self) -> None:
        """Show the game's settings and model (without triggering edits)."""
        s = self.game.settings
        widgets = (self.size_combo, self.rows_spin, self.ply_spin, self.agent_combo, self.forced_check,
                   self.multi_check, self.discount_slider)
        for w in widgets:
            w.blockSignals(True)
        self.size_combo.setCurrentIndex(max(0, self.size_combo.findData(s.size)))
        self.rows_spin.setMaximum(max(1, (s.size - 1) // 2))
        self.rows_spin.setValue(s.rows)
        self.ply_spin.setValue(s.ply_limit or 0)
        self.agent_combo.setCurrentIndex(max(0, self.agent_combo.findData(s.agent)))
        self.forced_check.setChecked(s.forced_capture)
        self.multi_check.setChecked(s.multi_jump)
        self.discount_slider.setValue(int(round(s.discount * DISCOUNT_STEPS)))
        for w in widgets:
            w.blockSignals(False)
        self._show_discount(s.discount)
        self.info.setText(self.game.model_summary())
        self.info.setToolTip(f"{s.rules().describe()}, agent {COLOUR_NAME[s.agent]}. Reward on entering a "
                             "position: 1.5 \u00d7 (my men + 3.33 my kings \u2212 their men \u2212 3.33 their "
                             "kings); win +100, loss \u2212100, draw 0. The opponent replies uniformly at random.")
        running = self.game.compiling
        self.cancel_button.setEnabled(running)
        self.build_button.setEnabled(not running and self.game.compiled() is None)

    def show_running(self, running: bool, text: str = "") -> None:
        """The compile started (indeterminate bar) or ended."""
        self.progress.setRange(0, 0 if running else 1)
        self.progress.setValue(0)
        self.progress.setVisible(running)
        self.status.setText(text if running else "")
        self.status.setVisible(running and bool(text))
        self.refresh()

    def show_progress(self, done: int, total: int, text: str) -> None:
        self.progress.setRange(0, max(0, total))
        if total:
            self.progress.setValue(done)
        self.progress.setVisible(True)
        self.status.setText(text)
        self.status.setVisible(bool(text))



# ---------------------------------------------------------------------------------- README screenshots
def save_screenshots(out: str | Path, *, games: int = 10_000) -> list[Path]:
    """Checkers screenshots for the README (``python -m mdpviz.screenshots --games checkers``; the window
    from :func:`mdpviz.screenshots.screenshot_window`), the default variant (5x5, 1 row, 20 plies):

    * ``checkers-greedy.png``: solved at the seed's greedy discount, one move in, a piece's moves shown;
    * ``checkers-far-sighted.png``: the same position solved far-sighted;
    * ``checkers-matchups.png``: the matchups simulated (``games`` games each, exact beside them);
    * ``checkers-1280x720.png``: the same at 1280 x 720 with the inspector.

    Returns the files written."""
    from mdpviz.screenshots import SIZE_1280x720, screenshot_window

    with screenshot_window(out) as sw:
        w = sw.window
        w.switch_game("checkers")
        g = w.game
        sw.wait(lambda: w.controller.mdp is not None and g.compiled() is not None, what="the checkers compile")
        sw.solve()
        b = g.board
        mv = next(m for m in b.model.moves(b.position) if m.label == "c1-d2")  # one move in
        b.click_cell(mv.origin)
        b.click_cell(mv.cell)
        mv = b.model.moves(b.position)
        b.click_cell(mv[b.view().greedy].origin)
        sw.shot("checkers-greedy.png")

        g.editor().far_button.click()
        sw.wait(lambda: w.controller.mdp is not None and w.controller.state == "ready",
                what="the far-sighted model")
        sw.solve()
        b.click_cell(b.model.moves(b.position)[b.view().greedy].origin)
        sw.shot("checkers-far-sighted.png")

        sw.simulate(games)
        sw.shot("checkers-matchups.png")

        w.inspector_dock.raise_()
        sw.shot("checkers-1280x720.png", size=SIZE_1280x720)
    return sw.saved

__all__ = [
    "CheckersEditor", "CheckersGame", "CheckersPainter", "CheckersPositionModel", "CheckersSettings",
    "annotate_terms", "cell_square", "compile_in_process", "compile_job", "discount_words", "greedy_rows",
    "is_dark", "move_label", "outcome_distribution", "settings_from_dict", "settings_to_dict", "square_cell",
    "save_screenshots", "warm_up",
]
