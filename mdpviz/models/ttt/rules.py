"""Tic-tac-toe board rules, and tic-tac-toe against a uniformly random opponent (seed 001).

Board rules (shared with :mod:`mdpviz.models.risk_ttt` and any later variant):

* A board of ``size**dims`` cells (3x3 by default; ``dims=3`` gives the 3x3x3 cube). A cell
  holds :data:`EMPTY` (0), :data:`X` (1) or :data:`O` (2); cell ``i`` of an n x n board is row
  ``i // n``, column ``i % n``.
* A board's index is its base-3 number, ``sum_i cell_i * 3**i``, so placing ``mark`` on the
  empty cell ``c`` of board ``b`` gives board ``b + mark * 3**c``.
* A player wins by owning every cell of a line: ``line`` cells in a row along any axis or
  (anti)diagonal direction (default: the board's full width, e.g. 8 lines on 3x3, 10 on 4x4,
  49 in the 3x3x3 cube). A full board without a line is a draw.
* Symmetries: the ``dims! * 2**dims`` reflections and rotations of the cube (8 for a square),
  as permutations of the cells; they map lines to lines, so symmetric boards have equal values.

The vs-random game (seed 001): the agent plays one mark, the opponent the other and picks an
empty cell uniformly at random. States are the boards where the agent is to move, plus three
absorbing outcome states WIN, DRAW and LOSS. One transition is a round: the agent's move and
the opponent's reply; the win / draw / loss reward is paid on the transition that ends the game
and the discount applies once per round (as in the seed's value iteration).

The board rules themselves live in :mod:`mdpviz.models.kit.boards.ttt_board` (re-exported here). This module
also holds the game's position model (:class:`VsRandomPositionModel`), its matchups (a job
generator), its scenario codec and its :data:`SPEC` for the registry :mod:`mdpviz.models.kit.game.registry`.

Plain numpy; never imports Qt.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Generator, Sequence

import numpy as np

from mdpviz.models.kit.game.codec import INLINE, FieldError
from mdpviz.models.kit.pictures.display import state_q
from mdpviz.models.kit.game.registry import JobProgress
from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.boards.position import DECISION, MODEL, MatchupResult, MatchupRow, MoveSpec, Ply, Position, \
    TabularPositionModel
from mdpviz.core.simulate import policy_matrix, simulate, uniform_policy_matrix
from mdpviz.models.kit.boards.ttt_board import (  # noqa: F401  (re-exported: the board rules' old home)
    EMPTY,
    MARK_CHARS,
    TTT3,
    BoardGeometry,
    LineAnalysis,
    O,
    X,
    other,
    parse_mark,
    swap_marks,
)
from mdpviz.models.kit.boards.ttt_board import MARK, mark_name, greedy_policy, ValuesCache  # noqa: F401

# ====================================================================== the vs-random game
@dataclass(frozen=True)
class VsRandomSettings:
    """Tic-tac-toe against a uniformly random opponent (seed 001); defaults are the seed's."""

    agent: str = "O"
    """The agent's mark, "X" or "O" (the opponent has the other one)."""
    first: str = "opponent"
    """Who makes the first move of the game: "opponent" or "agent"."""
    win: float = 500.0
    """Reward when the agent completes a line (reward units)."""
    draw: float = 0.0
    """Reward when the board fills up without a line."""
    loss: float = -3500.0
    """Reward when the opponent completes a line."""
    discount: float = 0.9
    """Discount per round (one agent move and the opponent's reply), in [0, 1]."""
    size: int = 3
    """Cells along each side of the board (a line is the full width)."""

    def __post_init__(self) -> None:
        try:
            parse_mark(self.agent)
        except ValueError as e:
            raise FieldError("agent", str(e), subject="") from None
        if self.first not in ("opponent", "agent"):
            raise FieldError("first", f"must be 'opponent' or 'agent', got {self.first!r}")
        for name in ("win", "draw", "loss"):
            v = getattr(self, name)
            if not math.isfinite(float(v)):
                raise FieldError(name, f"reward must be a finite number, got {v!r}", subject=f"the {name}")
        if not (0.0 <= float(self.discount) <= 1.0):
            raise FieldError("discount", f"must be in [0, 1], got {self.discount}", subject="the discount")
        if not (1 <= int(self.size) <= 3):
            raise FieldError(
                "size", f"must be 1..3 for the vs-random game, got {self.size} (a 4x4 board has millions "
                "of positions: too many to compile and simulate here)", subject="board size"
            )


WIN, DRAW, LOSS = "win", "draw", "loss"
OUTCOMES: tuple[str, str, str] = (WIN, DRAW, LOSS)
"""Names of the three absorbing outcome states, in the order they follow the board states."""


@dataclass(frozen=True, eq=False)
class VsRandomGame:
    """The compiled vs-random game: the MDP plus the board <-> state lookups the GUI needs.

    States ``0 .. n_boards-1`` are the boards where the agent is to move (by number of marks,
    then board index); the last three are the outcome states WIN, DRAW, LOSS. The action id of
    a move is its cell index.
    """

    settings: VsRandomSettings
    """The rules and rewards this game was compiled with."""
    geometry: BoardGeometry
    """The board."""
    mdp: TabularMDP
    """The compiled MDP (discount per round, rewards on the transition that ends the game)."""
    board_index: np.ndarray
    """int64 (n_board_states): the base-3 index of each board state."""
    start_states: np.ndarray
    """int64: where the game starts: the empty board, or the board after each opening move of the opponent."""
    start_probs: np.ndarray
    """float64: the probability of each start state (uniform over the opponent's opening moves)."""

    @property
    def agent(self) -> int:
        """The agent's mark."""
        return parse_mark(self.settings.agent)

    @property
    def opponent(self) -> int:
        """The opponent's mark."""
        return other(self.agent)

    @property
    def n_board_states(self) -> int:
        """Number of board states (all states except the three outcomes)."""
        return int(self.board_index.size)

    @property
    def outcome_states(self) -> np.ndarray:
        """int64 (3): the state ids of WIN, DRAW and LOSS."""
        return np.arange(3, dtype=np.int64) + self.n_board_states

    def state_of(self, board: str | Sequence[int] | np.ndarray | int) -> int:
        """The state id of a board (cells, string or base-3 index) where the agent is to move.

        ValueError if the agent is not to move there or the game is over.
        """
        idx = int(board) if isinstance(board, (int, np.integer)) else self.geometry.index(board)
        i = int(np.searchsorted(self._sorted_index, idx))
        if i < self._sorted_index.size and self._sorted_index[i] == idx:
            return int(self._sorted_state[i])
        raise ValueError(
            f"board {self.geometry.text(self.geometry.decode(idx))!r} is not a position where the agent "
            f"({self.settings.agent}, moving {'first' if self.settings.first == 'agent' else 'second'}) is to move"
        )

    def board_of(self, state: int) -> np.ndarray:
        """int8 (n_cells): the board of a board state; ValueError for an outcome state."""
        s = int(state)
        if not (0 <= s < self.n_board_states):
            raise ValueError(f"state {s} is not a board state (0..{self.n_board_states - 1})")
        return self.geometry.decode(int(self.board_index[s]))

    def legal_moves(self, state: int) -> np.ndarray:
        """int64: the cells (= action ids) the agent may play in ``state``."""
        return np.asarray(self.mdp.actions_of(int(state)), dtype=np.int64)

    def cell_values(self, values: np.ndarray, state: int) -> np.ndarray:
        """float64 (n_cells): Q of each legal cell of ``state`` under ``values``, NaN on occupied cells."""
        return state_q(self.mdp, state, values)

    @cached_property
    def _sorted_index(self) -> np.ndarray:
        return np.sort(self.board_index)

    @cached_property
    def _sorted_state(self) -> np.ndarray:
        return np.argsort(self.board_index, kind="stable")

    @cached_property
    def layers(self) -> np.ndarray:
        """int64 (n_states): backward-induction layer of each state (the game is acyclic)."""
        from mdpviz.solvers.backward_induction import mdp_layers

        return mdp_layers(self.mdp)

    def start_value(self, values: np.ndarray) -> float:
        """The agent's expected discounted return from the start: V of the empty board, or the mean
        over the opponent's opening moves of V of the agent's first position."""
        return float(np.asarray(values)[self.start_states] @ self.start_probs)


def compile_vs_random(settings: VsRandomSettings = VsRandomSettings()) -> VsRandomGame:
    """Compile tic-tac-toe against a uniformly random opponent into a :class:`VsRandomGame`.

    States: every board with no line and an empty cell where the agent is to move (the agent
    has as many marks as the opponent when it moves first, one fewer when it moves second):
    all of them are reachable. From board b the agent's move on empty cell c ends the game
    (reward ``win``, or ``draw`` if it fills the board) or the opponent answers on each of the
    e empty cells with probability 1/e (reward ``loss`` if that completes its line, ``draw`` if
    it fills the board, else 0 and the next board state). V(s) = max_c E[r + gamma V(s')]
    (Sutton and Barto eq. 4.10) with gamma = ``discount`` per round.
    """
    geo = BoardGeometry(size=int(settings.size))
    me = parse_mark(settings.agent)
    opp = other(me)
    n_cells = geo.n_cells
    allb = np.arange(geo.n_boards, dtype=np.int64)
    d = geo.digits(allb)
    n_me = (d == me).sum(axis=1)
    n_opp = (d == opp).sum(axis=1)
    lead = 0 if settings.first == "agent" else 1
    live = (n_opp == n_me + lead) & ~geo.has_line(d, me) & ~geo.has_line(d, opp) & (n_me + n_opp < n_cells)
    cand = allb[live]
    order = np.lexsort((cand, n_me[live] + n_opp[live]))
    board_index = cand[order]
    ns = board_index.size
    if ns == 0:
        raise ValueError("this board has no position where the agent is to move")
    state_of_board = np.full(geo.n_boards, -1, dtype=np.int64)
    state_of_board[board_index] = np.arange(ns)
    win_s, draw_s, loss_s = ns, ns + 1, ns + 2

    bd = d[board_index]
    # Rows: (state, empty cell).
    rs, rc = np.nonzero(bd == EMPTY)
    rows_n = rs.size
    wins = geo.completing_cells(bd, me)[rs, rc]
    after = board_index[rs] + me * geo.powers[rc]
    filled_after = (bd != EMPTY).sum(axis=1)[rs] + 1
    full = ~wins & (filled_after == n_cells)
    goes_on = ~wins & ~full

    src: list[np.ndarray] = []
    dst: list[np.ndarray] = []
    prb: list[np.ndarray] = []
    rew: list[np.ndarray] = []
    row_id = np.arange(rows_n)

    def add(rows: np.ndarray, to: np.ndarray, p: np.ndarray, r: np.ndarray) -> None:
        src.append(rows)
        dst.append(to)
        prb.append(p)
        rew.append(r)

    add(row_id[wins], np.full(int(wins.sum()), win_s), np.ones(int(wins.sum())), np.full(int(wins.sum()), float(settings.win)))
    add(row_id[full], np.full(int(full.sum()), draw_s), np.ones(int(full.sum())), np.full(int(full.sum()), float(settings.draw)))
    # The opponent's uniformly random reply to each move that leaves the game running.
    g_rows = row_id[goes_on]
    ad = geo.digits(after[goes_on])
    empties = ad == EMPTY
    e = empties.sum(axis=1)
    opp_wins = geo.completing_cells(ad, opp)
    gi, gc = np.nonzero(empties)
    p = 1.0 / e[gi]
    nxt = after[goes_on][gi] + opp * geo.powers[gc]
    ow = opp_wins[gi, gc]
    nfull = ~ow & (e[gi] == 1)
    cont = ~ow & ~nfull
    to = np.where(ow, loss_s, np.where(nfull, draw_s, 0))
    to[cont] = state_of_board[nxt[cont]]
    if np.any(to < 0):  # cannot happen: every line-free board with the agent to move is a state
        raise RuntimeError("internal error: a reply led to a board that is not a state")
    r = np.where(ow, float(settings.loss), np.where(nfull, float(settings.draw), 0.0))
    add(g_rows[gi], to, p, r)

    row_all = np.concatenate(src)
    dst_all = np.concatenate(dst)
    p_all = np.concatenate(prb)
    r_all = np.concatenate(rew)
    # Merge replies that lead to the same outcome state (e.g. two losing replies) into one transition.
    n_states = ns + 3
    key = row_all * n_states + dst_all
    ukey, inv = np.unique(key, return_inverse=True)
    p_u = np.bincount(inv, weights=p_all, minlength=ukey.size)
    r_u = np.zeros(ukey.size)
    r_u[inv] = r_all  # equal for every merged transition (same outcome state)
    row_u = ukey // n_states
    dst_u = ukey % n_states

    labels = [geo.text(b) for b in bd] + ["WIN", "DRAW", "LOSS"]
    mdp = TabularMDP.from_transitions(
        n_states, n_cells, rs[row_u], rc[row_u], dst_u, p_u, r_u,
        discount=float(settings.discount), terminal=[win_s, draw_s, loss_s], mover=None, objective="max",
        state_labels=labels, action_labels=[f"cell {i}" for i in range(n_cells)], mdptype="episodic",
    )
    if settings.first == "agent":
        starts = np.array([state_of_board[0]], dtype=np.int64)
    else:
        starts = state_of_board[opp * geo.powers].astype(np.int64)
    probs = np.full(starts.size, 1.0 / starts.size)
    for a in (board_index, starts, probs):
        a.flags.writeable = False
    return VsRandomGame(settings=settings, geometry=geo, mdp=mdp, board_index=board_index,
                        start_states=starts, start_probs=probs)


@dataclass(frozen=True)
class OutcomeProbabilities:
    """Exact probabilities of the three outcomes of a policy (a Markov chain, no sampling)."""

    win: float
    """Probability that the agent completes a line."""
    draw: float
    """Probability that the board fills up without a line."""
    loss: float
    """Probability that the opponent completes a line."""


def outcome_matrix(game: VsRandomGame, policy: np.ndarray | None = None, *, probs: np.ndarray | None = None) -> np.ndarray:
    """float64 (n_states, 3): exact P(win), P(draw), P(loss) from every state under a policy.

    Give a deterministic ``policy`` (action id per state) or stochastic ``probs``
    (n_states x n_actions). These are the absorption probabilities of the Markov chain of the
    policy, the quantities :func:`mdpviz.solvers.hitting_probabilities` solves for; the game is
    acyclic (every round fills two cells), so they are computed exactly by backward induction
    (:func:`mdpviz.solvers.backward_induction.evaluate_acyclic`), without a linear solver's tolerance.
    """
    from mdpviz.solvers import row_weights_deterministic, row_weights_stochastic
    from mdpviz.solvers.backward_induction import evaluate_acyclic
    from mdpviz.solvers.sweep import policy_to_rows

    if (policy is None) == (probs is None):
        raise ValueError("give exactly one of policy (action per state) or probs (action probabilities)")
    mdp = game.mdp
    W = row_weights_deterministic(mdp, policy_to_rows(mdp, policy)) if probs is None else row_weights_stochastic(mdp, probs)
    ind = np.zeros((mdp.n_states, 3))
    ind[game.outcome_states, [0, 1, 2]] = 1.0
    h = evaluate_acyclic(mdp, W, rewards=mdp.matrix @ ind, discount=1.0, layers=game.layers)
    h[game.outcome_states] = ind[game.outcome_states]
    return h


def outcome_probabilities(game: VsRandomGame, policy: np.ndarray) -> OutcomeProbabilities:
    """Exact outcome probabilities of ``policy`` from the start of the game (averaged over the
    opponent's opening moves when it moves first)."""
    h = outcome_matrix(game, policy)
    w, dr, lo = game.start_probs @ h[game.start_states]
    return OutcomeProbabilities(win=float(w), draw=float(dr), loss=float(lo))


@dataclass(frozen=True)
class MoveReport:
    """Why a move is chosen: its Q-value and the exact outcome probabilities it leads to."""

    cell: int
    """The cell played (= action id)."""
    q: float
    """Q(s, cell) = E[r + gamma V(s')] under the given values (reward units)."""
    win: float
    """P(agent wins) when playing this cell and then following the policy."""
    draw: float
    """P(draw) likewise."""
    loss: float
    """P(agent loses) likewise."""


def move_reports(game: VsRandomGame, values: np.ndarray, policy: np.ndarray, state: int) -> list[MoveReport]:
    """One :class:`MoveReport` per legal cell of ``state``: the numbers behind the policy's choice
    (e.g. a discount or reward change makes a quick but riskier win worth more than a safe draw)."""
    mdp = game.mdp
    q = mdp.q_values(values)
    h = outcome_matrix(game, policy)
    after = mdp.matrix @ h  # (n_rows, 3): outcome probabilities of each row, then the policy
    out = []
    for r in range(int(mdp.state_ptr[state]), int(mdp.state_ptr[state + 1])):
        w, dr, lo = after[r]
        out.append(MoveReport(cell=int(mdp.row_action[r]), q=float(q[r]), win=float(w), draw=float(dr), loss=float(lo)))
    return out


def simulate_outcomes(
    game: VsRandomGame,
    policy: np.ndarray,
    *,
    games: int,
    seed: int | np.random.Generator | None = None,
) -> np.ndarray:
    """int64 (3): wins, draws and losses in ``games`` simulated games (vectorised Monte Carlo
    over the compiled MDP, :func:`mdpviz.core.simulate.simulate`; the opponent's opening move,
    when it has one, is drawn uniformly)."""
    from mdpviz.core.chunked import check_games, run_chunks
    from mdpviz.core.simulate import policy_matrix, simulate

    games = check_games(games, "the number of games")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    probs = policy_matrix(game.mdp, policy)
    counts = np.zeros(3, dtype=np.int64)

    def step(n: int) -> None:  # chunks of games: memory does not grow with ``games``
        starts = game.start_states[rng.integers(0, game.start_states.size, size=n)]
        ep = simulate(game.mdp, probs, start=starts, episodes=n, seed=rng, max_steps=game.geometry.n_cells + 1)
        if not ep.finished.all():  # a game has at most n_cells moves
            raise RuntimeError("internal error: a simulated game did not end")
        counts[:] += np.bincount(ep.final_state - game.n_board_states, minlength=3)

    run_chunks(games, step)
    return counts

def cell_q_values(mdp: TabularMDP, values: np.ndarray, state: int) -> np.ndarray:
    """float64 (n_actions): Q(state, cell) for every legal cell, NaN elsewhere (what a board view
    shows on each empty cell): :func:`mdpviz.models.kit.pictures.display.state_q`."""
    return state_q(mdp, state, values)


# ====================================================================== shared by the board games of this family









# ====================================================================== tic-tac-toe vs random
class VsRandomPositionModel(TabularPositionModel):
    """Positions of tic-tac-toe against a uniformly random opponent (agent: DECISION; opponent: MODEL)."""

    def __init__(self, game: VsRandomGame) -> None:
        super().__init__(game.mdp)
        self.game = game
        self.geo = game.geometry
        self.me, self.opp = game.agent, game.opponent
        self.players = (mark_name(self.me), mark_name(self.opp))
        self.n_cells = self.geo.n_cells
        self.settings = game.settings
        self._outcomes = ValuesCache()

    # ------------------------------------------------------------------ positions
    def _board_pos(self, idx: int) -> Position:
        """The position of board index ``idx``: the agent to move (a state), the opponent to move
        (after the agent's move), or the end of the game."""
        cells = self.geo.decode(idx)
        w = self.geo.winner(cells)
        if w is not None:
            outcome = "draw" if w == 0 else f"{mark_name(w)} wins"
            return Position(("end", idx), cells, "", outcome=outcome)
        n_me = int(np.count_nonzero(cells == self.me))
        n_opp = int(np.count_nonzero(cells == self.opp))
        lead = 0 if self.settings.first == "agent" else 1
        if n_opp == n_me + lead:  # the agent is to move: an MDP state
            s = self.game.state_of(idx)
            return Position(("s", s), cells, mark_name(self.me), state=s, chooser=DECISION, objective="max")
        return Position(("after", idx), cells, mark_name(self.opp), chooser=MODEL)

    def start(self, *, first: str | None = None) -> Position:
        starter = self.me if self.settings.first == "agent" else self.opp
        if first is not None and parse_mark(first) != starter:
            who = "the agent" if starter == self.me else "the random opponent"
            raise ValueError(f"In this game {who} ({mark_name(starter)}) moves first: change 'First move' in the "
                             "game panel to let the other side start (the solver restarts).")
        return self._board_pos(0)

    def position_of(self, state: int) -> Position:
        s = int(state)
        if not 0 <= s < self.mdp.n_states:
            raise ValueError(f"state {s} is out of range 0..{self.mdp.n_states - 1}")
        if s >= self.game.n_board_states:  # the outcome states (no board: the game is over)
            name = OUTCOMES[s - self.game.n_board_states]
            return Position(("outcome", s), np.zeros(self.n_cells, dtype=np.int8), "", state=s,
                            outcome={"win": f"{self.players[0]} (agent) wins", "draw": "draw",
                                     "loss": f"{self.players[1]} (random) wins"}[name])
        return self._board_pos(int(self.game.board_index[s]))

    def _index(self, pos: Position) -> int:
        return int(pos.cells.astype(np.int64) @ self.geo.powers)

    def moves(self, pos: Position) -> tuple[MoveSpec, ...]:
        if pos.terminal:
            return ()
        if pos.chooser == DECISION:
            return tuple(MoveSpec(int(a), f"cell {int(a)}", int(a)) for a in self.game.legal_moves(pos.state))
        empty = np.flatnonzero(pos.cells == EMPTY)
        return tuple(MoveSpec(int(c), f"cell {int(c)}", int(c), prob=1.0 / empty.size) for c in empty)

    def play(self, pos: Position, action: int, rng: np.random.Generator) -> Ply:
        c = int(action)
        if pos.terminal or pos.cells[c] != EMPTY:
            raise ValueError(f"cell {c} is not a legal move here")
        mark = self.me if pos.chooser == DECISION else self.opp
        nxt = self._board_pos(self._index(pos) + mark * int(self.geo.powers[c]))
        s = self.settings
        reward = 0.0
        if nxt.terminal:  # the reward of the MDP transition that ends the game
            reward = float(s.draw if nxt.outcome == "draw" else (s.win if mark == self.me else s.loss))
        who = "agent" if mark == self.me else "random opponent"
        text = f"{mark_name(mark)} ({who}) on cell {c}"
        if nxt.terminal:
            text += f": {nxt.outcome}, reward {reward:g}"
        return Ply(pos, c, nxt, text, reward)

    def reply(self, pos: Position, rng: np.random.Generator) -> int:
        empty = np.flatnonzero(pos.cells == EMPTY)
        return int(empty[rng.integers(empty.size)])

    def final_position(self, state: int, action: int, end: int) -> Position | None:
        """The last board of a game whose last round went from ``state`` by the agent's ``action`` to
        the outcome state ``end``: the agent's move if it ended the game, else the opponent's only
        reply that ends it that way (None if several could, e.g. a fork of two winning cells)."""
        n = self.game.n_board_states
        if not n <= int(end) < self.mdp.n_states or not 0 <= int(state) < n:
            return None
        want = {WIN: self.me, DRAW: 0, LOSS: self.opp}[OUTCOMES[int(end) - n]]
        rng = np.random.default_rng(0)  # (play is deterministic here: the opponent's reply is the move)
        try:
            after = self.play(self.position_of(int(state)), int(action), rng).after
        except ValueError:
            return None
        if after.terminal:
            return after if self.geo.winner(after.cells) == want else None
        ends = [p.after for p in (self.play(after, m.action, rng) for m in self.moves(after))
                if p.after.terminal and self.geo.winner(p.after.cells) == want]
        return ends[0] if len(ends) == 1 else None

    def human_marks(self) -> tuple[str, ...]:
        return (self.players[1],)

    def first_choices(self) -> tuple[str, ...]:
        return (self.players[0] if self.settings.first == "agent" else self.players[1],)

    def state_name(self, s: int) -> str:
        lab = self.mdp.state_labels
        return lab[s] if lab is not None else str(s)

    def describe(self, pos: Position) -> str:
        if pos.terminal:
            return f"Game over: {pos.outcome}"
        if pos.chooser == DECISION:
            return f"{pos.mover} (agent) to move"
        return f"{pos.mover} (random opponent) to move: each empty cell 1/{int(np.count_nonzero(pos.cells == 0))}"

    # ------------------------------------------------------------------ exact outcomes
    def outcome_matrix(self, values: np.ndarray) -> np.ndarray:
        """(n_states, 3): exact P(agent wins), P(draw), P(agent loses) from every state under the
        greedy policy of ``values`` (cached per values array)."""
        return self._outcomes.get(values, lambda: outcome_matrix(self.game, greedy_policy(self.mdp, values)))

    def outcome_probabilities(self, pos: Position, values: Any) -> dict[str, float] | None:
        if values is None or pos.terminal:
            return None
        h = self.outcome_matrix(values)
        if pos.chooser == DECISION:
            p = h[pos.state]
        else:  # the random opponent's reply first: the mean over its moves
            p = np.zeros(3)
            mv = self.moves(pos)
            rng = np.random.default_rng(0)  # play() draws nothing for a given cell
            for m in mv:
                nxt = self.play(pos, m.action, rng).after
                if nxt.terminal:
                    p[{"draw": 1}.get(nxt.outcome, 2)] += m.prob
                else:
                    p += m.prob * h[nxt.state]
        return {f"{self.players[0]} (agent) wins": float(p[0]), "draw": float(p[1]),
                f"{self.players[1]} wins": float(p[2])}


@dataclass(frozen=True)
class TicTacToeSettings:
    """The edits of the vs-random game (the rules and rewards of seed 001)."""

    settings: VsRandomSettings = field(default=VsRandomSettings(), metadata=INLINE)  # flat in scenario files
    """Agent's mark, who moves first, rewards and discount."""


def vs_random_match(game: VsRandomGame, probs: np.ndarray, *, games: int,
                    seed: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(wins, draws, losses counts, exact P(win), P(draw), P(loss)) of the agent playing ``probs``
    (n_states x n_cells) against the random opponent: simulated with the vectorised simulator over the
    compiled MDP, exact from the absorption probabilities (:func:`mdpviz.models.ttt.rules.outcome_matrix`)."""
    starts = game.start_states[seed.integers(0, game.start_states.size, size=games)]
    ep = simulate(game.mdp, probs, start=starts, episodes=games, seed=seed, max_steps=game.geometry.n_cells + 1)
    if not ep.finished.all():
        raise RuntimeError("internal error: a simulated game did not end")
    counts = np.bincount(ep.final_state - game.n_board_states, minlength=3).astype(np.int64)
    h = outcome_matrix(game, probs=probs)
    exact = game.start_probs @ h[game.start_states]
    return counts, exact


def agent_row(game: VsRandomGame, name: str, counts: np.ndarray, exact: np.ndarray) -> MatchupRow:
    """A matchup row in X / O terms from the agent's win / draw / loss."""
    w, d, lo = (int(c) for c in counts)
    ew, ed, el = (float(e) for e in exact)
    if game.agent == X:
        return MatchupRow(name, "agent", "random", (w, lo, d), w + d + lo, (ew, el, ed))
    return MatchupRow(name, "random", "agent", (lo, w, d), w + d + lo, (el, ew, ed))


def matchup_names(game: VsRandomGame) -> list[str]:
    """The two matchups of the vs-random game: the optimal agent, then a random agent, against the random opponent."""
    a, o = mark_name(game.agent), mark_name(game.opponent)
    return [f"optimal {a} vs random {o}", f"random {a} vs random {o}"]


def vs_random_matchups(game: VsRandomGame, policy: np.ndarray | None, *, games: int,
                       seed: int) -> Generator[JobProgress, None, MatchupResult]:
    """The matchup simulation as a job generator (``games`` per matchup; ValueError at once for
    fewer than 2): the optimal agent (``policy``, or solved by policy iteration when None) and a
    random agent, each against the random opponent, simulated and exact (:func:`vs_random_match`).
    Yields :class:`~mdpviz.models.kit.game.registry.JobProgress` after each matchup; returns the MatchupResult."""
    pol = None if policy is None else np.array(policy, dtype=np.int64)
    games = int(games)
    if games < 2:
        raise ValueError(f"simulate at least 2 games, got {games}")
    names = matchup_names(game)

    def run() -> Generator[JobProgress, None, MatchupResult]:
        from mdpviz.solvers import registry, solve

        g = game
        opt = pol if pol is not None else solve(g.mdp, registry.exact_solver()).policy
        rows = []
        streams = np.random.SeedSequence(int(seed)).spawn(2)
        for i, (name, probs) in enumerate(zip(names, (policy_matrix(g.mdp, opt), uniform_policy_matrix(g.mdp)))):
            counts, exact = vs_random_match(g, probs, games=games, seed=np.random.default_rng(streams[i]))
            rows.append(agent_row(g, name, counts, exact))
            yield JobProgress(i + 1, len(names), f"{name}: {games:,} games")
        first = "agent" if g.settings.first == "agent" else "random opponent"
        return MatchupResult(tuple(rows), start=f"the empty board ({first} first)")

    return run()


# ====================================================================== the registry's spec


__all__ = ['BoardGeometry', 'DRAW', 'EMPTY', 'LOSS', 'MARK', 'MARK_CHARS', 'MoveReport', 'O', 'OUTCOMES', 'OutcomeProbabilities', 'TTT3', 'TicTacToeSettings', 'ValuesCache', 'VsRandomGame', 'VsRandomPositionModel', 'VsRandomSettings', 'WIN', 'X', 'agent_row', 'cell_q_values', 'compile_vs_random', 'greedy_policy', 'mark_name', 'matchup_names', 'move_reports', 'other', 'outcome_matrix', 'outcome_probabilities', 'parse_mark', 'simulate_outcomes', 'swap_marks', 'vs_random_match', 'vs_random_matchups']
