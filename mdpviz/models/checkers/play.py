"""Checkers positions for the position board, headless: what the board asks of the game.

* :class:`CheckersPositionModel`: the positions, the legal moves with their MDP action ids, playing a
  move, the random opponent's reply and exact outcome probabilities, answered by calling
  :class:`~mdpviz.models.checkers.rules.Checkers` and :class:`~mdpviz.models.checkers.rules.CheckersMDP`;
* :func:`outcome_distribution`: exact results of greedy play from a few positions (forward
  propagation of the policy's Markov chain, no sampling);
* square names and cells, move labels, and the inspector's backup terms with the opponent's replies.

The settings, the compile job and the registry's spec are in :mod:`mdpviz.models.checkers.spec`.
numpy only; never imports Qt.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from mdpviz.models.checkers import compiler as cc
from mdpviz.models.checkers import rules as ck
from mdpviz.models.kit.pictures.display import BackupTerm
from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.boards.position import DECISION, MODEL, MoveSpec, Ply, Position, TabularPositionModel
from mdpviz.solvers.sweep import greedy_rows, index_ranges

COLOUR_NAME = {ck.BLACK: "Black", ck.WHITE: "White"}
"""Display name of each colour (the position board's player names)."""
NAME_COLOUR = {v: k for k, v in COLOUR_NAME.items()}
"""Model colour of each display name."""

OUTCOME_LABELS = ("Black wins", "White wins", "draws")
"""The three results of a checkers game, Black (the first player) first."""

OUTCOME_MAX_STEPS = 500
"""Agent moves followed when computing exact outcome probabilities of a position (variants
without a ply limit can cycle; the mass still in play after this many moves is reported)."""
OUTCOME_MAX_WORK = 3_000_000
"""Transitions (and rows) the board's exact outcome probabilities may follow per position and
value array (about 0.2 s on the GUI thread on the development machine); where a game can cycle
(no ply limit) the probability still in play when the bound is reached is shown as such."""


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


# ---------------------------------------------------------------------------------- exact outcomes
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
        t, owner = index_ranges(mdp.row_ptr[rows], mdp.row_ptr[rows + 1])
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
    Every rule is the model's: :class:`~mdpviz.models.checkers.rules.Checkers` plays and judges the moves.
    """

    players = ("Black", "White")

    def __init__(self, cm: cc.CheckersMDP, mdp: TabularMDP | None = None) -> None:
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


def annotate_terms(cm: cc.CheckersMDP, state: int, action: int, terms: list[BackupTerm]) -> list[BackupTerm]:
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


__all__ = [
    "COLOUR_NAME", "CheckersPositionModel", "NAME_COLOUR", "OUTCOME_LABELS", "OUTCOME_MAX_STEPS", "OUTCOME_MAX_WORK",
    "annotate_terms", "cell_square", "greedy_rows", "is_dark", "move_label", "outcome_distribution", "square_cell",
]
