"""Walking down a board game's tree: positions, moves, who plays next, what the board shows. No Qt.

The position board (:mod:`mdpviz.widgets.position`) shows ONE position of a game with thousands of
states: each legal move coloured by its Q-value at the shown sweep, the number on it, the greedy
move marked. This module holds everything about that which is not painting, so it is tested
without a display:

* :class:`Position`, :class:`MoveSpec`, :class:`Ply`: what a game tells the board;
* :class:`PositionModel` (and :class:`TabularPositionModel` for games compiled to a
  :class:`~mdpviz.core.mdp.TabularMDP`): the interface a game implements; the RULES stay in
  ``mdpviz.models`` and a model only calls them;
* :func:`greedy_move` and :func:`position_view`: the derived display data of one position;
* :class:`GameWalk`: the walk (history with Back / Forward, walk mode vs human-vs-agent, who plays
  next: the user, the agent's greedy policy, or the model's opponent);
* :class:`MatchupRow` / :class:`MatchupResult`: outcome counts of agent-vs-agent simulations with
  Wilson 95% intervals and exact probabilities.
"""
from __future__ import annotations

import csv
import io
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Hashable, Sequence

import numpy as np

from mdpviz.core.mdp import TabularMDP
from mdpviz.core.simulate import proportion_ci
from mdpviz.models.kit.pictures.colors import ColorScale, format_value
from mdpviz.models.kit.pictures.display import BackupTerm, best_actions, format_prob, state_q
from mdpviz.solvers.sweep import TIE_TOL

DECISION = "decision"
"""The player to move is the MDP's decision maker: its moves have Q-values."""
MODEL = "model"
"""The model picks the mover's moves (a uniformly random or fixed-policy opponent)."""

USER, AGENT = "user", "agent"
"""Who plays at a position in a walk (besides MODEL): the person at the board, or the agent's policy."""

WALK, PLAY = "walk", "play"
"""Walk modes: walk the tree (the user plays every decision) or play a game against the agent."""

MAX_AUTO_PLIES = 10_000
"""Safety bound on plies played automatically in one go (no game here is that long)."""


# ---------------------------------------------------------------------------------- what a game says
@dataclass(frozen=True, eq=False)
class Position:
    """One position of a game, as the board shows it."""

    key: Hashable
    """The model's identity of the position (equal keys: the same position)."""
    cells: np.ndarray
    """int8 (n_cells): what the painter draws on each cell (model-defined codes; tic-tac-toe: 0 empty, 1 X, 2 O)."""
    mover: str
    """The player to move ("X", "O", ...); "" when the game is over."""
    state: int = -1
    """The MDP state whose V and Q are shown (-1: none)."""
    chooser: str = DECISION
    """:data:`DECISION` (the mover's moves have Q-values) or :data:`MODEL` (the model picks them)."""
    objective: str = "max"
    """"max" or "min": which Q-value the mover wants."""
    outcome: str = ""
    """Non-empty when the game is over ("X wins", "O wins", "draw", ...)."""
    text: str = ""
    """Optional caption of the position."""

    @property
    def terminal(self) -> bool:
        """The game is over."""
        return bool(self.outcome)


@dataclass(frozen=True)
class MoveSpec:
    """One legal move of a position."""

    action: int
    """Action id (the MDP's at DECISION positions; the model's own at MODEL positions)."""
    label: str
    """How the move is named ("cell 4", "b6-a5")."""
    cell: int
    """The cell where the move is drawn (its colour and number)."""
    origin: int = -1
    """The cell of the piece that moves (click it first), or -1: one click on ``cell`` plays it."""
    prob: float = math.nan
    """At MODEL positions: the model's probability of this move."""


@dataclass(frozen=True, eq=False)
class Ply:
    """One move played: the position before and after, and what happened."""

    before: Position
    """The position the move was played in."""
    action: int
    """The action played."""
    after: Position
    """The resulting position."""
    text: str
    """What happened, in words (e.g. "X on cell 4; the coin put O's mark there")."""
    reward: float = 0.0
    """Reward of this step (model units)."""
    by: str = ""
    """Who played it: "you", "agent" or "model" (set by :class:`GameWalk`)."""


class PositionModel(ABC):
    """What the position board needs from a game (see /tmp/prompts/position_api.md)."""

    players: tuple[str, ...] = ("X", "O")
    """The players, in the order of the game's own start."""
    value_label: str = "value"
    """What the values are (the colour bar's label when the board makes its own scale)."""
    n_cells: int = 9
    """Number of cells of the board."""

    @abstractmethod
    def start(self, *, first: str | None = None) -> Position:
        """The start position with ``first`` to move (None: the model's own start); ValueError if impossible."""

    @abstractmethod
    def moves(self, pos: Position) -> tuple[MoveSpec, ...]:
        """The legal moves of ``pos`` (empty when the game is over)."""

    @abstractmethod
    def play(self, pos: Position, action: int, rng: np.random.Generator) -> Ply:
        """The mover plays ``action`` (the model's chance, e.g. a risk coin, is sampled with ``rng``)."""

    def reply(self, pos: Position, rng: np.random.Generator) -> int:
        """At a MODEL position: the action the model picks (default: by the moves' probabilities)."""
        mv = self.moves(pos)
        if not mv:
            raise ValueError("the game is over: there is no move to reply with")
        p = np.array([m.prob for m in mv], dtype=np.float64)
        if not np.all(np.isfinite(p)) or p.sum() <= 0:
            p = np.ones(len(mv))
        return int(mv[int(rng.choice(len(mv), p=p / p.sum()))].action)

    @abstractmethod
    def move_values(self, pos: Position, values: Any) -> np.ndarray:
        """float64 (len(moves(pos))): the Q-value of each move under ``values`` (NaN: unknown)."""

    @abstractmethod
    def value(self, pos: Position, values: Any) -> float:
        """V of the position under ``values`` (NaN: none)."""

    # ------------------------------------------------------------------ optional
    def backup(self, pos: Position, action: int, values: Any) -> list[BackupTerm]:
        """The terms of the Bellman backup of (pos, action) for the selected-move box ([]: none)."""
        return []

    def discount(self) -> float:
        """Discount used in :meth:`backup` texts."""
        return 1.0

    def outcome_probabilities(self, pos: Position, values: Any) -> dict[str, float] | None:
        """Exact probability of each result from ``pos`` if play goes on (None: not computed)."""
        return None

    def position_of(self, state: int) -> Position:
        """The position of an MDP state (the episode player's token)."""
        raise ValueError(f"this game cannot show state {state} as a position")

    def final_position(self, state: int, action: int, end: int) -> Position | None:
        """The board an episode ended on when its last step went from MDP ``state`` by ``action`` to
        ``end``, an end state without a board of its own (tic-tac-toe's "win", "draw", "loss"); None
        when the game cannot say (its end states are boards, or the last board is not determined)."""
        return None

    def human_marks(self) -> tuple[str, ...]:
        """The marks a human may take against the agent."""
        return tuple(self.players)

    def first_choices(self) -> tuple[str, ...]:
        """Who may move first in a game against the agent."""
        return tuple(self.players)

    def default_values(self) -> Any:
        """The values before the first sweep (None: the board shows no numbers)."""
        return None

    def value_range(self) -> tuple[float, float] | None:
        """The range of values for a colour scale when the window has none (no sweep): e.g. [-1, 1]
        for X's expected result. None: no colours without a sweep."""
        return None

    def agent_move(self, pos: Position, values: Any) -> int:
        """The agent's move: greedy on :meth:`move_values` (ties to the lowest action id)."""
        mv = self.moves(pos)
        if not mv:
            raise ValueError("the game is over: the agent has no move")
        vals = values if values is not None else self.default_values()
        qs = self.move_values(pos, vals) if vals is not None else np.full(len(mv), np.nan)
        i = greedy_move(mv, qs, pos.objective)
        return int(mv[i if i >= 0 else int(np.argmin([m.action for m in mv]))].action)

    def describe(self, pos: Position) -> str:
        """One line about the position (whose turn, or the result)."""
        if pos.terminal:
            return f"Game over: {pos.outcome}"
        return pos.text or f"{pos.mover} to move"


class TabularPositionModel(PositionModel):
    """A :class:`PositionModel` over a compiled :class:`TabularMDP`: V and Q come from its rows.

    Subclasses implement :meth:`start`, :meth:`moves`, :meth:`play`, :meth:`position_of` (and
    :meth:`reply` if the model has MODEL positions); the moves of a DECISION position must use the
    MDP's action ids of ``pos.state``.
    """

    def __init__(self, mdp: TabularMDP) -> None:
        self.mdp = mdp

    def q_of_state(self, state: int, values: np.ndarray) -> np.ndarray:
        """float64 (n_actions): Q(state, a) for the legal actions, NaN for the others
        (:func:`~mdpviz.models.kit.pictures.display.state_q`)."""
        return state_q(self.mdp, state, values)

    def move_values(self, pos: Position, values: Any) -> np.ndarray:
        mv = self.moves(pos)
        if values is None or pos.state < 0 or pos.chooser != DECISION or not mv:
            return np.full(len(mv), np.nan)
        q = self.q_of_state(pos.state, values)
        return np.array([q[m.action] if 0 <= m.action < q.size else np.nan for m in mv], dtype=np.float64)

    def value(self, pos: Position, values: Any) -> float:
        if values is None or pos.state < 0:
            return math.nan
        return float(np.asarray(values)[pos.state])

    def backup(self, pos: Position, action: int, values: Any) -> list[BackupTerm]:
        if pos.state < 0 or pos.chooser != DECISION or self.mdp.terminal[pos.state]:
            return []
        v = np.zeros(self.mdp.n_states) if values is None else np.asarray(values, dtype=np.float64)
        return [BackupTerm(p, r, d, float(v[d])) for d, p, r in self.mdp.outcomes(pos.state, int(action))]

    def discount(self) -> float:
        return float(self.mdp.discount)

    def state_name(self, s: int) -> str:
        """The MDP's label of state ``s`` (its number when the MDP has no labels)."""
        lab = self.mdp.state_labels
        return lab[int(s)] if lab is not None and 0 <= int(s) < len(lab) else str(s)

    def default_values(self) -> Any:
        return None  # no numbers before the first sweep (as on the snakes board)

    def agent_move(self, pos: Position, values: Any) -> int:
        """Greedy on the Q-values of ``values`` (V = 0 before the first sweep; ties to the lowest action)."""
        return super().agent_move(pos, np.zeros(self.mdp.n_states) if values is None else values)


# ---------------------------------------------------------------------------------- display data
def greedy_move(moves: Sequence[MoveSpec], qs: np.ndarray, objective: str, *, tie_tol: float = TIE_TOL) -> int:
    """Index (into ``moves``) of the best move by ``objective`` ("max"/"min"); ties go to the lowest
    action id, as in the solvers (the one tie rule, :func:`~mdpviz.models.kit.pictures.display.best_actions`);
    -1 when no move has a finite value."""
    q = np.asarray(qs, dtype=np.float64)
    ok = np.flatnonzero(np.isfinite(q))
    if not len(moves) or ok.size == 0:
        return -1
    if objective not in ("max", "min"):
        raise ValueError(f"objective must be 'max' or 'min', got {objective!r}")
    best = best_actions([float(q[i]) for i in ok], objective, tie_tol=tie_tol)  # the solvers' tie rule
    tied = [int(i) for i, b in zip(ok, best) if b]
    return min(tied, key=lambda i: (moves[i].action, i))


def compact_value(v: float) -> str:
    """A value short enough for a cell: 2-3 significant digits, whole numbers from 100 to 10^4, three
    decimals below 0.1 (so -0.0017 and -0.0027 read differently), scientific below 0.0005."""
    if not math.isfinite(v):
        return format_value(v)
    a = abs(v)
    if a >= 10_000:
        return f"{v:.3g}"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a == 0 or a >= 0.1:
        return f"{v:.2f}"
    if a >= 0.0005:
        return f"{v:.3f}"
    return f"{v:.1e}"


@dataclass(frozen=True, eq=False)
class PositionView:
    """What the board paints for one position (per cell arrays; pure data)."""

    moves: tuple[MoveSpec, ...]
    """The legal moves."""
    qs: np.ndarray
    """float64 (len(moves)): Q of each move (NaN: unknown, hidden or a MODEL position)."""
    greedy: int
    """Index into ``moves`` of the greedy move (-1: none shown)."""
    fill: np.ndarray
    """float64 (n_cells): colour-scale position in [0, 1] of each cell, NaN for no value colour."""
    texts: tuple[str, ...]
    """The number printed on each cell ("" for none)."""
    tips: tuple[str, ...]
    """Tooltip of each cell: the move(s) and full values."""
    legal: np.ndarray
    """bool (n_cells): a move of the shown origin (or any move) is drawn on this cell."""
    origins: np.ndarray
    """bool (n_cells): the cell holds a piece that can move (checkers-style two-click moves)."""
    greedy_cell: int
    """The cell of the greedy move (-1: none)."""
    greedy_origin: int
    """The origin of the greedy move (-1: none or one-click moves)."""
    value: float
    """V of the position (NaN: none or hidden)."""
    tied_cells: tuple[int, ...] = ()
    """The cells of the other optimal moves where several tie with the greedy one under the solvers' tie
    rule (drawn with an outlined star beside the greedy move's solid one; empty when hidden)."""


def position_view(
    model: PositionModel,
    pos: Position,
    values: Any,
    *,
    scale: ColorScale | None = None,
    hide: bool = False,
    revealed: Sequence[int] = (),
    origin: int = -1,
) -> PositionView:
    """The display data of ``pos`` under ``values``.

    Each legal move's cell gets its Q-value (colour position on the fixed ``scale`` and a short
    number); at MODEL positions the number is the model's probability of the move and there is no
    colour. Two-click moves (``origin`` >= 0 on the moves): with no origin selected the origin
    cells show the best Q of their moves; with ``origin`` selected its moves' cells show their Q.
    ``hide`` hides every value and the greedy mark except on the ``revealed`` cells.
    """
    n = int(pos.cells.size)
    mv = tuple(model.moves(pos)) if not pos.terminal else ()
    if values is not None and pos.chooser == DECISION and mv:
        qs = np.asarray(model.move_values(pos, values), dtype=np.float64)
        if qs.shape != (len(mv),):
            raise ValueError(f"move_values returned shape {qs.shape} for {len(mv)} moves")
    else:
        qs = np.full(len(mv), np.nan)
    greedy = greedy_move(mv, qs, pos.objective) if mv else -1
    fill = np.full(n, np.nan)
    texts = [""] * n
    tips = [""] * n
    legal = np.zeros(n, dtype=bool)
    origins = np.zeros(n, dtype=bool)
    two_click = any(m.origin >= 0 for m in mv)
    shown = set(int(c) for c in revealed)

    def put(cell: int, q: float, tip: str) -> None:
        if not 0 <= cell < n:
            raise ValueError(f"a move is drawn on cell {cell}, outside the board's {n} cells")
        if math.isfinite(q) and (not hide or cell in shown):
            fill[cell] = float(scale.normalise(q)) if scale is not None else math.nan
            texts[cell] = compact_value(q)
        tips[cell] = (tips[cell] + "\n" if tips[cell] else "") + tip

    for i, m in enumerate(mv):
        q = float(qs[i])
        if pos.chooser == MODEL:
            legal[m.cell] = True
            p = m.prob
            tips[m.cell] = (tips[m.cell] + "\n" if tips[m.cell] else "") + (
                f"{m.label}: the model plays it with probability {format_prob(p)}" if math.isfinite(p) else m.label)
            if math.isfinite(p) and not hide:
                texts[m.cell] = format_prob(p)
            continue
        qtip = f"{m.label}: Q = {q:.6g}" if math.isfinite(q) and (not hide or m.cell in shown) else m.label
        if two_click and m.origin >= 0:
            origins[m.origin] = True
            if origin == m.origin:
                legal[m.cell] = True
                put(m.cell, q, qtip)
        else:
            legal[m.cell] = True
            put(m.cell, q, qtip)
    if two_click and origin < 0:  # each movable piece shows the best value of its moves
        for c in np.flatnonzero(origins):
            idx = [i for i, m in enumerate(mv) if m.origin == c]
            j = greedy_move([mv[i] for i in idx], qs[idx], pos.objective)
            if j >= 0:
                q = float(qs[idx[j]])
                put(int(c), q, f"best move of this piece: Q = {q:.6g}" if (not hide or c in shown) else "")
    g_cell = g_origin = -1
    if greedy >= 0 and not hide:
        g_cell, g_origin = mv[greedy].cell, mv[greedy].origin
        if two_click and mv[greedy].origin >= 0 and origin != mv[greedy].origin:
            g_cell = -1  # the greedy piece is marked, its destination once the piece is selected
    tied: list[int] = []
    if greedy >= 0 and not hide:  # every other move within the tie rule of the best, on the cell that shows it
        ok = np.flatnonzero(np.isfinite(qs))
        best = best_actions([float(qs[i]) for i in ok], pos.objective)
        for i in (int(i) for i, b in zip(ok, best) if b and int(i) != greedy):
            m = mv[i]
            c = m.origin if two_click and m.origin >= 0 and origin != m.origin else m.cell
            if 0 <= c < n and c not in (g_cell, g_origin) and c not in tied:
                tied.append(int(c))
    v = model.value(pos, values) if values is not None else math.nan
    if hide:
        v = math.nan
    return PositionView(mv, qs, -1 if hide else greedy, fill, tuple(texts), tuple(tips), legal, origins,
                        g_cell, g_origin, float(v), tuple(tied))


def outcome_text(probs: dict[str, float] | None) -> str:
    """"X wins 91.64% · draw 8.36% · O wins 0.00%" (exact outcome probabilities), "" for None."""
    if not probs:
        return ""
    return " \u00b7 ".join(f"{k} {100.0 * v:.2f}%" for k, v in probs.items())


# ---------------------------------------------------------------------------------- the walk
class GameWalk:
    """A walk down the game tree: the plies played, Back / Forward, and who plays next.

    In WALK mode the user plays every DECISION position (both sides of a two-player game) and
    the model answers at MODEL positions at once. In PLAY mode (human vs agent) the user plays
    the positions where ``human`` is to move, the agent plays the other DECISION positions
    greedily on the shown values, and the model plays its MODEL positions.
    """

    def __init__(self, model: PositionModel, *, mode: str = WALK, human: str | None = None,
                 first: str | None = None, seed: int = 0) -> None:
        self.model = model
        self.mode = WALK
        self.human = human if human is not None else model.human_marks()[0]
        self.first = first
        self.rng = np.random.default_rng(seed)
        self.plies: list[Ply] = []
        self.index = 0
        self.start = model.start()
        self.set_mode(mode)

    # ------------------------------------------------------------------ state
    @property
    def position(self) -> Position:
        """The position shown (after ``index`` plies)."""
        return self.plies[self.index - 1].after if self.index else self.start

    @property
    def can_back(self) -> bool:
        return self.index > 0

    @property
    def can_forward(self) -> bool:
        return self.index < len(self.plies)

    def path(self) -> list[Position]:
        """The positions from the start to the shown one."""
        return [self.start] + [p.after for p in self.plies[: self.index]]

    def visited_states(self) -> list[int]:
        """The MDP states on the path to the shown position, in order (positions without a state skipped)."""
        return [p.state for p in self.path() if p.state >= 0]

    def last_ply(self) -> Ply | None:
        return self.plies[self.index - 1] if self.index else None

    def role(self, pos: Position | None = None) -> str:
        """Who plays at ``pos`` (default: the shown position): USER, AGENT, MODEL or "" (game over)."""
        pos = self.position if pos is None else pos
        if pos.terminal:
            return ""
        if self.mode == WALK:
            return USER if pos.chooser == DECISION else MODEL
        if pos.mover == self.human:
            return USER
        return AGENT if pos.chooser == DECISION else MODEL

    # ------------------------------------------------------------------ settings
    def set_mode(self, mode: str) -> None:
        if mode not in (WALK, PLAY):
            raise ValueError(f"mode must be {WALK!r} or {PLAY!r}, got {mode!r}")
        self.mode = mode

    def set_human(self, mark: str) -> None:
        if mark not in self.model.human_marks():
            raise ValueError(f"you can play {', '.join(self.model.human_marks())}, not {mark!r}")
        self.human = mark

    def set_first(self, mark: str | None) -> None:
        if mark is not None and mark not in self.model.first_choices():
            raise ValueError(f"the first move can be made by {', '.join(self.model.first_choices())}, not {mark!r}")
        self.first = mark

    # ------------------------------------------------------------------ moves
    def new_game(self, values: Any = None) -> list[Ply]:
        """Back to the start (with the chosen first player in PLAY mode); plays the agent's and the
        model's opening moves if they come first. ValueError (nothing changes) if the model cannot
        start that way."""
        start = self.model.start(first=self.first if self.mode == PLAY else None)
        self.start = start
        self.plies = []
        self.index = 0
        return self.advance(values)

    def back(self) -> bool:
        if not self.can_back:
            return False
        self.index -= 1
        return True

    def forward(self) -> bool:
        if not self.can_forward:
            return False
        self.index += 1
        return True

    def goto(self, index: int) -> None:
        if not 0 <= index <= len(self.plies):
            raise ValueError(f"ply {index} is out of range 0..{len(self.plies)}")
        self.index = int(index)

    def legal_actions(self) -> list[int]:
        return [m.action for m in self.model.moves(self.position)] if not self.position.terminal else []

    def play(self, action: int, values: Any = None) -> list[Ply]:
        """The user plays ``action`` at the shown position (the plies after it are forgotten), then
        the agent and the model play until it is the user's turn again or the game is over.
        ValueError if the move is not legal or it is not the user's turn."""
        pos = self.position
        if pos.terminal:
            raise ValueError(f"the game is over ({pos.outcome}): press New game")
        who = self.role(pos)
        if who != USER:
            raise ValueError(f"it is not your turn: {pos.mover} is played by the {who}")
        legal = self.legal_actions()
        if int(action) not in legal:
            raise ValueError(f"move {action} is not legal here; legal moves: {legal}")
        ply = self._apply(pos, int(action), "you")
        return [ply] + self.advance(values)

    def advance(self, values: Any = None) -> list[Ply]:
        """Let the agent and the model play until the user is to move or the game is over."""
        out = []
        for _ in range(MAX_AUTO_PLIES):
            pos = self.position
            who = self.role(pos)
            if who in ("", USER):
                return out
            if who == AGENT:
                a = self.model.agent_move(pos, values)
                out.append(self._apply(pos, a, "agent"))
            else:
                a = self.model.reply(pos, self.rng)
                out.append(self._apply(pos, a, "model"))
        raise RuntimeError(f"more than {MAX_AUTO_PLIES} moves were played automatically: the game does not end")

    def _apply(self, pos: Position, action: int, by: str) -> Ply:
        ply = self.model.play(pos, action, self.rng)
        ply = Ply(ply.before, ply.action, ply.after, ply.text, ply.reward, by)
        del self.plies[self.index:]
        self.plies.append(ply)
        self.index = len(self.plies)
        return ply

    def show(self, pos: Position) -> None:
        """Show ``pos`` as a fresh start (the episode player's token): the history is forgotten."""
        self.start = pos
        self.plies = []
        self.index = 0


# ---------------------------------------------------------------------------------- matchups
OUTCOME_LABELS = ("X wins", "O wins", "draws")
"""Default names of the three results of a matchup."""


@dataclass(frozen=True, eq=False)
class MatchupRow:
    """Simulated results of one matchup (and the exact probabilities when the model computes them)."""

    name: str
    """E.g. "optimal vs random"."""
    x: str
    """The agent playing X (or the first result's side)."""
    o: str
    """The agent playing O."""
    counts: tuple[int, int, int]
    """Games ending in each result (X wins, O wins, draws by default)."""
    games: int
    """Games simulated."""
    exact: tuple[float, float, float] | None = None
    """Exact probability of each result, or None when not computed."""
    labels: tuple[str, str, str] = OUTCOME_LABELS
    """Names of the three results."""
    seconds: float | None = None
    """Wall time of the simulation in seconds, or None when not measured."""

    def __post_init__(self) -> None:
        if self.games < 1:
            raise ValueError(f"matchup {self.name!r}: games must be at least 1, got {self.games}")
        if len(self.counts) != 3 or sum(self.counts) != self.games or min(self.counts) < 0:
            raise ValueError(f"matchup {self.name!r}: counts {self.counts} must be 3 non-negative numbers summing "
                             f"to the {self.games} games")

    @property
    def fractions(self) -> np.ndarray:
        """float64 (3): the simulated frequency of each result."""
        return np.asarray(self.counts, dtype=np.float64) / self.games

    @property
    def ci(self) -> tuple[np.ndarray, np.ndarray]:
        """Wilson 95% interval (low, high) of each frequency."""
        lo, hi = proportion_ci(np.asarray(self.counts), self.games)
        return np.asarray(lo), np.asarray(hi)

    @property
    def within_ci(self) -> np.ndarray | None:
        """bool (3): each exact probability lies in its simulated 95% interval (None: no exact)."""
        if self.exact is None:
            return None
        lo, hi = self.ci
        e = np.asarray(self.exact)
        return (e >= lo - 1e-12) & (e <= hi + 1e-12)


@dataclass(frozen=True, eq=False)
class MatchupResult:
    """What a board game's simulation job returns to the window."""

    rows: tuple[MatchupRow, ...]
    """One row per matchup."""
    unit: str = "games"
    """What is counted."""
    start: str = "the empty board"
    """Where the games start."""
    notes: tuple[str, ...] = field(default_factory=tuple)
    """Matchups that could not be played, and why."""

    def csv(self) -> str:
        """The results as CSV: matchup, X, O, games, then per result count, fraction, CI and exact."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        labels = self.rows[0].labels if self.rows else OUTCOME_LABELS
        head = ["matchup", "x", "o", "games"]
        for lab in labels:
            k = lab.replace(" ", "_")
            head += [f"{k}", f"{k}_fraction", f"{k}_ci95_low", f"{k}_ci95_high", f"{k}_exact"]
        w.writerow(head)
        for r in self.rows:
            lo, hi = r.ci
            row: list[Any] = [r.name, r.x, r.o, r.games]
            for j in range(3):
                row += [r.counts[j], repr(float(r.fractions[j])), repr(float(lo[j])), repr(float(hi[j])),
                        "" if r.exact is None else repr(float(r.exact[j]))]
            w.writerow(row)
        return buf.getvalue()


__all__ = [
    "AGENT", "DECISION", "GameWalk", "MODEL", "MatchupResult", "MatchupRow", "MoveSpec", "OUTCOME_LABELS",
    "PLAY", "Ply", "Position", "PositionModel", "PositionView", "TabularPositionModel", "USER", "WALK",
    "compact_value", "greedy_move", "outcome_text", "position_view",
]
