"""Anti-tic-tac-toe in the main window (issue 9, part 2): best-response rounds stepped one at a time.

The game of seed 000 (:mod:`mdpviz.models.attt`: the player who COMPLETES a line of their own
marks loses). Its edits (:class:`AtttSetup`) are the two players' boards (the course's states
files, or every reachable board), the policy the iteration starts from (a course policy file, a
random or the uniform policy), the tie rule and the solver of each best response. What is derived
from them:

* the best-response ROUNDS (:func:`mdpviz.models.attt.best_response_iteration`): one round per
  Step of the window (its one Step, Run, Pause and Reset drive the rounds), computed on the window's
  job thread (never on the GUI thread); the
  table shows per round who responded, how many boards changed their move, and the exact
  outcome probabilities of the current pair of policies from the empty board; the boards whose
  move a round changed are listed in a picker, and a picked board opens on the board;
* the MDP on the board: the last round's responder's boards against the other player's policy
  (:func:`mdpviz.models.attt.encode`, V(s) = the responder's probability of winning; before round 1
  the first responder against the start policy). After each round the window solves it at once
  (history, convergence plot, inspector), so the board shows that round's best response: its values
  and its moves (the same policy under the default lowest-cell tie rule);
* the position board (:mod:`mdpviz.widgets.position`): the responder's moves coloured by Q (its
  probability of winning after that move), the opponent's moves answered by its policy; walk the
  game tree or play against either policy;
* matchups (the solved best response, the current pair, each policy against uniform play): exact
  probabilities by :func:`mdpviz.models.attt.outcome_probabilities`, simulations by
  :func:`mdpviz.models.simulate.simulate` over player 1's encoded MDP (the rules live in the
  encoder only).

The rounds are solve progress, not edits: like the solver's sweeps they are not in the undo
history and not saved in scenarios (a scenario keeps the setup); an edit of the setup starts the
rounds again.
"""
from __future__ import annotations

import math
import os
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Generator

import numpy as np
from PySide6.QtCore import QObject, QSize, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mdpviz.models import attt
from mdpviz.models.cs747 import MDPFileError
from mdpviz.models.examples import ATTT_DIR
from mdpviz.models.mdp import TabularMDP
from mdpviz.models.simulate import simulate
from mdpviz.scenario import ScenarioError
from mdpviz.solvers import hitting_probabilities, row_weights_deterministic
from mdpviz.solvers.sweep import policy_to_rows
from mdpviz.models.display import BackupTerm
from mdpviz.models.colors import SEQUENTIAL
from mdpviz.widgets.position import GridPainter, PositionGame
from mdpviz.models.position import (
    DECISION,
    MODEL,
    TIE_TOL,
    MatchupResult,
    MatchupRow,
    MoveSpec,
    Ply,
    Position,
    TabularPositionModel,
)
from mdpviz.widgets import named as _named

COURSE_DIR = ATTT_DIR
"""The course's anti-tic-tac-toe files, shipped inside the package (``mdpviz/examples/cs747/attt``)."""

PLAYERS = {1: "P1 (X)", 2: "P2 (O)"}
"""Names of the players on the board (player 1 draws X and moves first, player 2 draws O)."""

RESULTS = ("P1 wins", "P2 wins", "draw")
"""The three results of a game, in the order of the matchup bars and the outcome lines."""

START_KINDS = ("file", "random", "uniform")
"""How the start policy is made: a policy file, a random deterministic policy, the uniform policy."""

METHODS = ("gs", "vi", "pi", "lp")
"""Solvers a best response may use (:func:`mdpviz.solvers.solve` ids); V* is unique, so the
rounds do not depend on it."""

METHOD_NAMES = {"gs": "in-place value iteration", "vi": "synchronous value iteration",
                "pi": "policy iteration", "lp": "linear programming"}
"""Names of :data:`METHODS` in the Setup tab ("gs" is the seed's planner: measured about 0.2 s per
round here, "vi" about 0.02 s)."""

ROUND_PAUSE_MS = 350
"""Pause between rounds when the rounds run on their own (so each round can be seen)."""


def course_files(folder: str | os.PathLike | None = None) -> dict[str, Path] | None:
    """The course's four files (``states_p1``, ``states_p2``, ``policy_p1``, ``policy_p2``) in
    ``folder`` (default :data:`COURSE_DIR`), or None if any is missing."""
    d = Path(folder) if folder is not None else COURSE_DIR
    files = {
        "states_p1": d / "states" / "states_file_p1.txt",
        "states_p2": d / "states" / "states_file_p2.txt",
        "policy_p1": d / "policies" / "p1_policy1.txt",
        "policy_p2": d / "policies" / "p2_policy1.txt",
    }
    return files if all(p.is_file() for p in files.values()) else None


def boards_path(boards: attt.Boards) -> str:
    """The states file ``boards`` were read from ("" for the boards generated from the rules)."""
    return "" if boards.lines is None else boards.source


def describe_boards(boards: attt.Boards) -> str:
    """"states_file_p1.txt (2423 boards)" or "every reachable board (2423)"."""
    if boards.lines is None:
        return f"every reachable board ({len(boards)})"
    return f"{Path(boards.source).name} ({len(boards)} boards)"


# ---------------------------------------------------------------------------------- the edits
@dataclass(frozen=True)
class AtttSetup:
    """The edits of anti-tic-tac-toe: both players' boards, the start policy and the tie rule."""

    p1_boards: attt.Boards
    """Player 1's boards (a states file's, in file order, or every reachable board)."""
    p2_boards: attt.Boards
    """Player 2's boards."""
    start: attt.AtttPolicy
    """The policy the iteration starts from; the first round is the other player's best response to it."""
    start_kind: str = "file"
    """How ``start`` was made: "file" (a policy file), "random" (one uniformly drawn cell per board) or "uniform"."""
    seed: int = 0
    """Seed of a "random" start (unused otherwise)."""
    ties: str = "lowest"
    """Tie rule of a best response among cells of equal value: "lowest" (the seed's) or "highest" cell."""
    method: str = "gs"
    """Solver of each best response: "gs" (in-place value iteration, the seed's), "vi", "pi" or "lp"."""
    max_rounds: int = 100
    """Give up (not converged) after this many rounds."""

    def __post_init__(self) -> None:
        if self.p1_boards.player != 1:
            raise ValueError(f"{self.p1_boards.source}: player 1's boards hold player {self.p1_boards.player}'s boards")
        if self.p2_boards.player != 2:
            raise ValueError(f"{self.p2_boards.source}: player 2's boards hold player {self.p2_boards.player}'s boards")
        if self.start_kind not in START_KINDS:
            raise ValueError(f"start kind must be one of {', '.join(START_KINDS)}, got {self.start_kind!r}")
        if self.ties not in attt.TIE_RULES:
            raise ValueError(f"tie rule must be one of {', '.join(attt.TIE_RULES)}, got {self.ties!r}")
        if self.method not in METHODS:
            raise ValueError(f"best-response solver must be one of {', '.join(METHODS)}, got {self.method!r}")
        if int(self.max_rounds) < 1:
            raise ValueError(f"max_rounds must be at least 1, got {self.max_rounds}")

    def boards(self, player: int) -> attt.Boards:
        """The boards of ``player`` (1 or 2)."""
        return self.p1_boards if player == 1 else self.p2_boards

    def settings(self) -> attt.IterationSettings:
        """The iteration settings of these edits."""
        return attt.IterationSettings(ties=self.ties, method=self.method, max_rounds=int(self.max_rounds))

    def start_text(self) -> str:
        """The start policy in words ("p1_policy1.txt (player 1)", "random player-2 policy (seed 3)")."""
        p = self.start.player
        if self.start_kind == "file":
            return f"{Path(self.start.source).name} (player {p})"
        if self.start_kind == "random":
            return f"random player-{p} policy (seed {self.seed})"
        return f"uniform player-{p} policy"


def make_start(kind: str, boards: attt.Boards, *, seed: int = 0) -> attt.AtttPolicy:
    """A generated start policy on ``boards``: "random" (seeded) or "uniform"."""
    if kind == "random":
        return attt.AtttPolicy.random(boards, seed=int(seed))
    if kind == "uniform":
        return attt.AtttPolicy.uniform(boards)
    raise ValueError(f"a generated start policy is 'random' or 'uniform', not {kind!r}")


def default_setup(folder: str | os.PathLike | None = None) -> AtttSetup:
    """The course's states files and player 1's course policy as the start, if the files are in
    ``folder`` (default :data:`COURSE_DIR`); else every reachable board and a random player-1
    policy (seed 0)."""
    files = course_files(folder)
    if files is not None:
        b1 = attt.load_states(files["states_p1"], player=1)
        b2 = attt.load_states(files["states_p2"], player=2)
        return AtttSetup(b1, b2, attt.load_policy(files["policy_p1"], player=1), start_kind="file")
    b1, b2 = attt.reachable_boards()
    return AtttSetup(b1, b2, make_start("random", b1, seed=0), start_kind="random", seed=0)


@dataclass(frozen=True)
class AtttState:
    """The game's state: the edits and the best-response rounds computed for them so far."""

    setup: AtttSetup
    """The edits."""
    rounds: tuple[attt.Round, ...] = ()
    """The rounds done, in order (solve progress, not edits)."""

    @property
    def responder(self) -> int:
        """The player whose best response the next round computes."""
        last = self.rounds[-1].player if self.rounds else self.setup.start.player
        return 3 - last

    @property
    def shown_player(self) -> int:
        """The player whose MDP the board shows: the last round's responder (its new policy and values),
        or before round 1 the first responder (its MDP against the start policy, not solved yet)."""
        return self.rounds[-1].player if self.rounds else self.responder

    def policies(self) -> dict[int, attt.AtttPolicy | None]:
        """Each player's current policy (None for a player who has not responded yet and did not start)."""
        if self.rounds:
            r = self.rounds[-1]
            cur: dict[int, attt.AtttPolicy | None] = {1: r.p1_policy, 2: r.p2_policy}
            return cur
        cur = {1: None, 2: None}
        cur[self.setup.start.player] = self.setup.start
        return cur

    @property
    def converged(self) -> bool:
        """The last round changed nothing: neither policy changes any more."""
        return bool(self.rounds) and self.rounds[-1].converged

    def previous_policy(self, index: int) -> attt.AtttPolicy | None:
        """The responder's policy before round ``index`` (0-based): its previous response, the start
        policy if it started, or None before its first response."""
        r = self.rounds[index]
        for j in range(index - 1, -1, -1):
            if self.rounds[j].player == r.player:
                return self.rounds[j].p1_policy if r.player == 1 else self.rounds[j].p2_policy
        return self.setup.start if self.setup.start.player == r.player else None


@dataclass(frozen=True)
class BoardChange:
    """One board whose move a round changed."""

    board: str
    """The board (9 characters)."""
    new_cell: int
    """The cell the new policy plays (its most probable cell)."""
    old_cell: int
    """The cell the responder's previous policy played (-1: it had no policy there)."""


def round_changes(state: AtttState, index: int) -> list[BoardChange]:
    """The boards whose move changed in round ``index`` (0-based), with the new and the old cell."""
    r = state.rounds[index]
    new = r.p1_policy if r.player == 1 else r.p2_policy
    old = state.previous_policy(index)
    idx = np.asarray(r.changed_states, dtype=np.int64)
    new_cells = new.actions[idx]
    if old is None:
        old_cells = np.full(idx.size, -1, dtype=np.int64)
    else:
        p, found = old.probs_at(new.boards.codes[idx])
        old_cells = np.where(found, np.argmax(p, axis=1), -1)
    labels = new.boards.labels
    return [BoardChange(labels[i], int(a), int(b)) for i, a, b in zip(idx.tolist(), new_cells.tolist(), old_cells.tolist())]


def round_summary(r: attt.Round) -> str:
    """One line for a round: who responded, how much changed, the outcome probabilities."""
    done = " (converged)" if r.converged else ""
    return (f"round {r.round}: player {r.player} best response, {r.changed} board{'s' if r.changed != 1 else ''} "
            f"changed; P1 wins {r.p1_win:.4f}, P2 wins {r.p2_win:.4f}, draw {r.draw:.4f}{done}")


# ---------------------------------------------------------------------------------- the board model
def end_names(player: int) -> tuple[str, str, str]:
    """What the encoder's three end states (win, draw, loss of ``player``) mean, as results."""
    other = 3 - player
    return f"P{player} wins", "draw", f"P{other} wins"


def outcome_notes(enc: attt.Encoding, s: int, a: int) -> dict[int, str]:
    """What each successor of (board ``s``, cell ``a``) of an encoding means, for a backup's notes:
    the opponent's reply cell for a board, who completed a line for the end states."""
    me = enc.boards.player
    opp = 3 - me
    n = len(enc.boards)
    after = enc.boards.cells[s].copy()
    after[a] = me
    notes = {enc.win: f"P{opp} completes a line: P{me} wins", enc.draw: "board full: draw",
             enc.loss: f"P{me} completes a line: P{opp} wins"}
    for d, _p, _r in enc.mdp.outcomes(s, a):
        if d < n:
            diff = np.flatnonzero(enc.boards.cells[d] != after)
            if diff.size == 1:
                notes[int(d)] = f"P{opp} replies cell {int(diff[0])}"
    return notes


def backup_with_notes(enc: attt.Encoding, s: int, a: int, values: np.ndarray) -> list[BackupTerm]:
    """The Bellman backup terms of (board ``s``, cell ``a``) with what each outcome means."""
    notes = outcome_notes(enc, s, a)
    return [BackupTerm(p, r, d, float(values[d]), notes.get(int(d), "")) for d, p, r in enc.mdp.outcomes(s, a)]


class AtttPositionModel(TabularPositionModel):
    """The position board's view of one encoding: the responder decides (Q from the MDP), the other
    player's moves are chosen by its fixed policy (a MODEL position). The rules are the model's:
    :func:`mdpviz.models.attt.move_result` and :func:`mdpviz.models.attt.player_to_move`."""

    players = (PLAYERS[1], PLAYERS[2])
    n_cells = attt.N_CELLS

    def __init__(self, state: AtttState, enc: attt.Encoding) -> None:
        super().__init__(enc.mdp)
        self.game_state = state
        self.enc = enc
        self.me = enc.boards.player
        self.opp = 3 - self.me
        self.opponent = enc.opponent
        self._hits: tuple[Any, np.ndarray] | None = None
        self.changes: dict[str, tuple[int, BoardChange]] = {}
        """Boards changed by the last round: board -> (round number, change)."""
        if state.rounds:
            k = len(state.rounds) - 1
            self.changes = {c.board: (state.rounds[k].round, c) for c in round_changes(state, k)}

    # ------------------------------------------------------------------ positions
    def position(self, cells: np.ndarray, *, outcome: str = "", end: int = -1) -> Position:
        """The position of a board (``outcome`` and the end state ``end`` for a finished game)."""
        cells = np.asarray(cells, dtype=np.int8).copy()
        cells.flags.writeable = False
        key = attt.board_strings(cells)[0]
        if outcome:
            return Position(key=key, cells=cells, mover="", state=end, outcome=outcome)
        mover = int(attt.player_to_move(cells[None, :])[0])
        if mover == 0:
            raise ValueError(f"board {key} has impossible mark counts")
        if mover == self.me:
            s = int(self.enc.boards.find(np.array([attt.board_codes(cells)]))[0])
            text = f"{PLAYERS[mover]} to move" + ("" if s >= 0 else f" (board not in {self.enc.boards.source})")
            return Position(key=key, cells=cells, mover=PLAYERS[mover], state=s, chooser=DECISION, text=text)
        return Position(key=key, cells=cells, mover=PLAYERS[mover], state=-1, chooser=MODEL,
                        text=f"{PLAYERS[mover]} to move: its policy chooses")

    def board_position(self, board: str) -> Position:
        """The position of a 9-character board string (ValueError if it is not a board)."""
        if len(board) != attt.N_CELLS or any(ch not in "012" for ch in board):
            raise ValueError(f"'{board}' is not a board: 9 characters, each 0, 1 or 2")
        return self.position(np.frombuffer(board.encode("ascii"), dtype=np.uint8) - ord("0"))

    def start(self, *, first: str | None = None) -> Position:
        if first is not None and first != PLAYERS[1]:
            raise ValueError(f"in anti-tic-tac-toe player 1 always moves first, not {first}")
        return self.position(np.zeros(attt.N_CELLS, dtype=np.int8))

    def first_choices(self) -> tuple[str, ...]:
        return (PLAYERS[1],)

    def _mover(self, pos: Position) -> int:
        return 1 if pos.mover == PLAYERS[1] else 2

    def _opponent_probs(self, pos: Position) -> np.ndarray:
        probs, found = self.opponent.probs_at(np.array([attt.board_codes(pos.cells)]))
        if not found[0]:
            raise ValueError(f"{self.opponent.source or f'player {self.opp} policy'} has no entry for board {pos.key}")
        return probs[0]

    def moves(self, pos: Position) -> tuple[MoveSpec, ...]:
        if pos.terminal:
            return ()
        empty = np.flatnonzero(pos.cells == 0)
        if pos.chooser == MODEL:
            try:
                p = self._opponent_probs(pos)
            except ValueError:
                p = np.full(attt.N_CELLS, math.nan)
            return tuple(MoveSpec(int(c), f"cell {c}", int(c), prob=float(p[c])) for c in empty)
        return tuple(MoveSpec(int(c), f"cell {c}", int(c)) for c in empty)

    def play(self, pos: Position, action: int, rng: np.random.Generator) -> Ply:
        if pos.terminal:
            raise ValueError(f"the game is over ({pos.outcome})")
        a = int(action)
        if not 0 <= a < attt.N_CELLS or pos.cells[a] != 0:
            raise ValueError(f"cell {a} is not an empty cell of board {pos.key}")
        mover = self._mover(pos)
        after = pos.cells.copy()
        after[a] = mover
        res = int(attt.move_result(after, mover))
        text = f"{PLAYERS[mover]} plays cell {a}"
        if res == attt.MOVER_LOSES:
            winner = 3 - mover
            end = self.enc.win if winner == self.me else self.enc.loss
            nxt = self.position(after, outcome=f"P{winner} wins", end=end)
            text += f" and completes a line: P{winner} wins"
        elif res == attt.DRAW:
            nxt = self.position(after, outcome="draw", end=self.enc.draw)
            text += ": the board is full, a draw"
        else:
            nxt = self.position(after)
        reward = 1.0 if (res == attt.MOVER_LOSES and mover == self.opp) else 0.0  # the encoder's reward
        return Ply(pos, a, nxt, text, reward)

    def reply(self, pos: Position, rng: np.random.Generator) -> int:
        p = self._opponent_probs(pos)
        return int(rng.choice(attt.N_CELLS, p=p / p.sum()))

    def position_of(self, state: int) -> Position:
        n = len(self.enc.boards)
        if 0 <= state < n:
            return self.position(self.enc.boards.cells[state])
        if n <= state < n + 3:
            name = end_names(self.me)[state - n]
            raise ValueError(f"the episode ended ({name}); the MDP's end state does not keep the final board")
        raise ValueError(f"state {state} is out of range 0..{n + 2}")

    def human_marks(self) -> tuple[str, ...]:
        return (PLAYERS[self.opp], PLAYERS[self.me])

    def state_name(self, s: int) -> str:
        """A board string, or the result of an end state (for the backup text)."""
        n = len(self.enc.boards)
        return self.enc.boards.labels[s] if s < n else end_names(self.me)[s - n]

    # ------------------------------------------------------------------ values
    def backup(self, pos: Position, action: int, values: Any) -> list[BackupTerm]:
        if pos.state < 0 or pos.chooser != DECISION or self.mdp.terminal[pos.state]:
            return []
        v = np.zeros(self.mdp.n_states) if values is None else np.asarray(values, dtype=np.float64)
        return backup_with_notes(self.enc, pos.state, int(action), v)

    def _hitting(self, values: Any) -> np.ndarray:
        """(n_states, 3): P(win, draw, loss of the responder) playing greedily on ``values`` (ties to the
        lowest cell, as the board's greedy mark) against the opponent's policy. Cached per values array."""
        if self._hits is not None and self._hits[0] is values:
            return self._hits[1]
        v = self.default_values() if values is None else np.asarray(values, dtype=np.float64)
        greedy = attt.choose_actions(self.mdp, v, ties="lowest", tie_tol=TIE_TOL)
        w = row_weights_deterministic(self.mdp, policy_to_rows(self.mdp, greedy))
        h = hitting_probabilities(self.mdp, w, np.array([self.enc.win, self.enc.draw, self.enc.loss]))
        self._hits = (values, h)
        return h

    def outcome_probabilities(self, pos: Position, values: Any) -> dict[str, float] | None:
        """Exact P(P1 wins), P(P2 wins), P(draw) from ``pos``: the responder greedy on ``values``, the
        opponent by its policy (absorbing-chain probabilities of the encoded MDP)."""
        if pos.terminal:
            return {k: float(k == pos.outcome) for k in RESULTS}
        h = self._hitting(values)
        if pos.chooser == DECISION:
            if pos.state < 0:
                return None
            wdl = h[pos.state]
        else:
            p = self._opponent_probs(pos)
            wdl = np.zeros(3)
            for c in np.flatnonzero(p > 0):
                after = pos.cells.copy()
                after[c] = self.opp
                res = int(attt.move_result(after, self.opp))
                if res == attt.MOVER_LOSES:
                    wdl += p[c] * np.array([1.0, 0.0, 0.0])
                elif res == attt.DRAW:
                    wdl += p[c] * np.array([0.0, 1.0, 0.0])
                else:
                    s = int(self.enc.boards.find(np.array([attt.board_codes(after)]))[0])
                    if s < 0:
                        return None
                    wdl += p[c] * h[s]
        win, draw, loss = (float(x) for x in wdl)
        by = {f"P{self.me} wins": win, f"P{self.opp} wins": loss, "draw": draw}
        return {k: by[k] for k in RESULTS}

    def describe(self, pos: Position) -> str:
        if pos.terminal:
            return f"Game over: {pos.outcome}"
        text = pos.text or f"{pos.mover} to move"
        ch = self.changes.get(pos.key)
        if ch is not None:
            rnd, c = ch
            was = f"cell {c.old_cell}" if c.old_cell >= 0 else "no move"
            text += f" \u2014 round {rnd} changed this board's move: {was} \u2192 cell {c.new_cell}"
        return text


# ---------------------------------------------------------------------------------- matchups
def play_matchup(name: str, p1: attt.AtttPolicy, p2: attt.AtttPolicy, *, games: int, rng: np.random.Generator,
                 x: str = "", o: str = "") -> MatchupRow:
    """``games`` simulated games of ``p1`` against ``p2`` from the empty board, with the exact
    probabilities beside them.

    The games are sampled from player 1's encoded MDP against ``p2`` (:func:`mdpviz.models.attt.encode`:
    the rules live in the encoder) by :func:`mdpviz.models.simulate.simulate`, player 1 following
    ``p1``; its end states win / draw / loss are "P1 wins" / "draw" / "P2 wins". Exact:
    :func:`mdpviz.models.attt.outcome_probabilities`.
    """
    enc = attt.encode(p1.boards, p2)
    n = len(p1.boards)
    probs = np.zeros((enc.mdp.n_states, attt.N_CELLS))
    probs[:n] = p1.probs
    start = int(p1.boards.find(np.array([0]))[0])
    if start < 0:
        raise ValueError(f"{p1.source or 'player 1 policy'} has no entry for the empty board")
    ep = simulate(enc.mdp, probs, start=start, episodes=int(games), seed=rng, max_steps=attt.N_CELLS)
    if not np.all(ep.finished):
        raise RuntimeError(f"{name}: {int((~ep.finished).sum())} simulated games did not end within 9 moves")
    fs = np.asarray(ep.final_state)
    counts = (int(np.sum(fs == enc.win)), int(np.sum(fs == enc.loss)), int(np.sum(fs == enc.draw)))
    ex = attt.outcome_probabilities(p1, p2)
    return MatchupRow(name, x or p1.source, o or p2.source, counts, int(games),
                      exact=(ex.p1_win, ex.p2_win, ex.draw), labels=("P1 wins", "P2 wins", "draws"))


def matchup_plan(state: AtttState, enc: attt.Encoding | None,
                 solved: attt.AtttPolicy | None) -> list[tuple[str, Any, Any, str, str]]:
    """The matchups of a state: (name, player 1's policy, player 2's policy, who is P1, who is P2).

    The solved best response of the responder (``solved``, on the MDP on the board) against the other
    player's current policy (``enc.opponent``); the current pair, once both players have a policy;
    each current policy against uniformly random play; uniform against uniform. With ``enc`` None
    the policies are left out (the names only)."""
    me = state.shown_player
    opp = 3 - me
    pols = state.policies()
    s = state.setup
    uni = {1: None, 2: None} if enc is None else {1: attt.AtttPolicy.uniform(s.p1_boards),
                                                   2: attt.AtttPolicy.uniform(s.p2_boards)}
    pair = {me: solved, opp: None if enc is None else enc.opponent}
    who = {me: f"solved P{me}", opp: f"P{opp} policy"}
    plan = [(f"solved P{me}", pair[1], pair[2], who[1], who[2])]
    if pols[1] is not None and pols[2] is not None:
        plan.append(("P1 vs P2", pols[1], pols[2], "P1 policy", "P2 policy"))
    if pols[1] is not None:
        plan.append(("P1 vs uniform", pols[1], uni[2], "P1 policy", "uniform"))
    if pols[2] is not None:
        plan.append(("uniform vs P2", uni[1], pols[2], "uniform", "P2 policy"))
    plan.append(("uniform vs uniform", uni[1], uni[2], "uniform", "uniform"))
    return plan


# ---------------------------------------------------------------------------------- the game
class _RoundSource:
    """The round generator of one setup and the rounds it has yielded (shared with the job thread)."""

    def __init__(self, setup: AtttSetup) -> None:
        self.setup = setup
        self.gen: Generator[attt.Round, None, attt.IterationResult] = attt.best_response_iteration(
            setup.start, p1_boards=setup.p1_boards, p2_boards=setup.p2_boards, settings=setup.settings())
        self.rounds: list[attt.Round] = []
        self.result: attt.IterationResult | None = None
        self.finished = False
        """The generator returned (converged, or gave up at the round limit)."""
        self.broken = False
        """The generator raised (e.g. a policy lacks a board): a new source is made for the next try."""
        self.lock = threading.Lock()

    def pull(self, wanted: int, progress: Callable[[int, int, str], None], cancelled: Callable[[], bool]) -> int:
        """Run the generator until it has yielded ``wanted`` rounds (or finished, or ``cancelled()``);
        returns the number of rounds yielded. Runs on the job thread, one job at a time; an error of the
        generator is raised (the job fails with its message)."""
        while True:
            with self.lock:
                have = len(self.rounds)
                if have >= wanted or self.finished:
                    return have
            if cancelled():
                return have
            nxt = 3 - (self.rounds[-1].player if self.rounds else self.setup.start.player)
            progress(have, wanted, f"round {have + 1}: player {nxt}'s best response")
            try:
                r = next(self.gen)
            except StopIteration as stop:
                with self.lock:
                    self.result = stop.value
                    self.finished = True
                continue
            except BaseException:
                self.broken = True
                raise
            with self.lock:
                self.rounds.append(r)


class AtttGame(PositionGame):
    """Anti-tic-tac-toe with the course's files: best-response rounds, the next responder's MDP on the board."""

    key = "attt"
    title = "Anti-tic-tac-toe"
    value_label = "P(responder wins)"
    color_kind = SEQUENTIAL
    unit = "wins"
    supports_discount = False

    def __init__(self, setup: AtttSetup | None = None, parent: QObject | None = None, *,
                 folder: str | os.PathLike | None = None) -> None:
        super().__init__(AtttState(setup if setup is not None else default_setup(folder)), parent)
        self.folder = folder
        """Where the course files are looked for (None: :data:`COURSE_DIR`)."""
        self._enc: tuple[AtttState, attt.Encoding | None, str] | None = None
        self._model: tuple[AtttState, AtttPositionModel | None] | None = None
        self._painter = GridPainter(3)
        self._source: _RoundSource | None = None
        self._editor: AtttPanel | None = None
        self.busy = False
        """A round job is running."""
        self.auto = False
        """Rounds keep running (one job after the other) until convergence or :meth:`stop_rounds`."""
        self.round_pause_ms = ROUND_PAUSE_MS
        """Pause between two rounds of Run, in milliseconds."""
        self._token = 0  # bumped by Reset and by edits: a round job of an older token is not applied

    # ------------------------------------------------------------------ state
    @property
    def astate(self) -> AtttState:
        """The current state (edits and rounds)."""
        return self._state

    @property
    def setup(self) -> AtttSetup:
        return self._state.setup

    def _set_state(self, state: Any, text: str) -> None:
        """Every change of the state (an edit, undo, a round, a reset): the window resets the solver on
        ``edited``; then the board (which drops the old model's values with the model) starts a fresh
        walk, whose position the inspector follows."""
        if state.setup is not self._state.setup:
            self.auto = False
            self._token += 1
        super()._set_state(state, text)
        b = self._board
        if b is not None:
            b.new_game()

    def load_state(self, state: Any) -> None:
        self.auto = False
        self._token += 1
        super().load_state(state)
        if self._editor is not None:
            self._editor.refresh()

    def edit_setup(self, setup: AtttSetup, text: str) -> bool:
        """An edit of the setup (through the undo stack); the rounds start again."""
        if setup == self.setup:
            return False
        return self.edit(AtttState(setup), text)

    # ------------------------------------------------------------------ model
    def encoding(self) -> attt.Encoding:
        """The encoded MDP on the board (cached per state): the last round's responder against the other
        player's policy (the window solves it: its values and greedy moves are that round's best
        response), or before round 1 the first responder against the start policy. ValueError (e.g. a
        policy lacking a board) says why there is none."""
        st = self._state
        if self._enc is None or self._enc[0] is not st:
            try:
                pols = st.policies()
                me = st.shown_player
                opp = pols[3 - me]
                if opp is None:  # cannot happen: the other player started or responded last
                    raise ValueError(f"player {3 - me} has no policy yet")
                enc, err = attt.encode(st.setup.boards(me), opp), ""
            except ValueError as e:
                enc, err = None, str(e)
            self._enc = (st, enc, err)
        if self._enc[1] is None:
            raise ValueError(self._enc[2])
        return self._enc[1]

    def build_mdp(self) -> TabularMDP:
        return self.encoding().mdp

    def position_model(self) -> AtttPositionModel | None:
        st = self._state
        if self._model is None or self._model[0] is not st:
            m = None
            if self.mdp() is not None:
                m = AtttPositionModel(st, self.encoding())
            self._model = (st, m)
        return self._model[1]

    def painter(self) -> GridPainter:
        return self._painter

    def empty_text(self) -> str:
        return "No model: load the states and policy files in the Game panel."

    def state_name(self, s: int) -> str:
        m = self.position_model()
        if m is None:
            return str(s)
        return m.state_name(s)  # the board, not the state's number (students read this)

    def action_name(self, a: int, mdp: TabularMDP) -> str:
        return f"cell {a}"

    def badge(self, a: int, mdp: TabularMDP) -> str:
        return str(a)

    def backup_terms(self, mdp: TabularMDP, state: int, action: int, values: np.ndarray) -> list[BackupTerm]:
        enc = self.encoding()
        if enc is None or enc.mdp is not mdp or state >= len(enc.boards):
            return super().backup_terms(mdp, state, action, values)
        return backup_with_notes(enc, state, action, np.asarray(values, dtype=np.float64))

    def start_state(self) -> int:
        """The responder's first board: the empty board for player 1; for player 2 the board after player
        1's opening (its most probable first cell, the lowest on ties)."""
        enc = self.encoding()
        if enc.boards.player == 1:
            return int(enc.boards.find(np.array([0]))[0])
        p, _found = enc.opponent.probs_at(np.array([0]))
        cells = np.zeros(attt.N_CELLS, dtype=np.int8)
        cells[int(np.argmax(p[0]))] = 1
        return int(enc.boards.find(np.array([attt.board_codes(cells)]))[0])

    # ------------------------------------------------------------------ rounds
    def can_step_round(self) -> bool:
        """A round can be computed: no round job running, not converged, below the round limit."""
        st = self._state
        src = self._source if self._source is not None and self._source.setup is st.setup else None
        stopped = src is not None and src.finished and len(src.rounds) <= len(st.rounds)
        return not self.busy and not st.converged and not stopped and len(st.rounds) < int(st.setup.max_rounds)

    def _round_source(self) -> _RoundSource:
        if self._source is None or self._source.setup is not self.setup or self._source.broken:
            self._source = _RoundSource(self.setup)
        return self._source

    def step_round(self) -> bool:
        """Compute the next best-response round on the window's job thread (a round already computed
        for this setup, e.g. after Reset, is reused at once). False (with a message) if it cannot."""
        st = self._state
        if self.busy:
            self.message.emit("A best-response round is being computed.")
            return False
        if st.converged:
            self.auto = False
            self.message.emit(f"Converged after {len(st.rounds)} rounds: neither policy changes any more.")
            return False
        if not self.can_step_round():
            self.auto = False
            self.message.emit(f"Stopped after {len(st.rounds)} rounds without converging (limit "
                              f"{st.setup.max_rounds}).")
            return False
        src = self._round_source()
        wanted = len(st.rounds) + 1
        with src.lock:
            ready = len(src.rounds) >= wanted
        if ready:
            self._apply_rounds(src, wanted)
            return True
        self.busy = True
        self._refresh_editor()

        def job(progress, cancelled):
            return src.pull(wanted, progress, cancelled)

        started = [True]

        def failed(msg: str) -> None:
            started[0] = False
            self.auto = False
            self._job_over()
            self.message.emit(f"Best-response round failed: {msg}")

        token = self._token
        self.run_job(job, label=f"Anti-tic-tac-toe: round {wanted} (player {st.responder}'s best response)\u2026",
                     on_done=lambda _n: self._on_rounds(src, wanted, token), on_failed=failed,
                     on_cancelled=self._on_round_cancelled,
                     on_progress=lambda d, t, text: self._editor.show_progress(text) if self._editor else None)
        return started[0]

    def _job_over(self) -> None:
        self.busy = False
        self._refresh_editor()

    def _on_round_cancelled(self) -> None:
        self.auto = False
        self._job_over()
        self.message.emit("Best-response round cancelled.")

    def _on_rounds(self, src: _RoundSource, wanted: int, token: int) -> None:
        self._job_over()
        if token != self._token or src is not self._source or src.setup is not self.setup:
            return  # reset or edited while the round was computed (the round stays in the source)
        with src.lock:
            have = len(src.rounds)
            finished = src.finished
        if have >= wanted:
            self._apply_rounds(src, wanted)
        elif finished:
            self.auto = False
            self.message.emit(f"Stopped after {have} rounds without converging (limit {src.setup.max_rounds}).")
            self._refresh_editor()

    def _apply_rounds(self, src: _RoundSource, upto: int) -> None:
        with src.lock:
            rounds = tuple(src.rounds[:upto])
        new = AtttState(self.setup, rounds)
        r = rounds[-1]
        self._set_state(new, f"round {r.round}")
        tail = (" Converged: neither policy changes any more." if r.converged else
                f" The board shows player {r.player}'s best response (its moves and values); Step: "
                f"player {new.responder}'s.")
        summary = round_summary(r)
        self.message.emit(summary[0].upper() + summary[1:] + "." + tail)
        if r.converged:
            self.auto = False
        self._refresh_editor()
        if self.auto:
            QTimer.singleShot(int(self.round_pause_ms), self, self._auto_step)

    def _auto_step(self) -> None:
        if self.auto and not self.busy:
            if not self.step_round():
                self.auto = False
                self._refresh_editor()

    def run_rounds(self) -> bool:
        """Step rounds one after the other (each its own job, shown as it arrives) until convergence."""
        if self._state.converged or not self.can_step_round():
            return self.step_round()
        self.auto = True
        ok = self.step_round()
        if not ok:
            self.auto = False
        self._refresh_editor()
        return ok

    def stop_rounds(self) -> None:
        """Stop running rounds: the round being computed is cancelled (a round already computed is kept)."""
        self.auto = False
        if self.busy:
            self.cancel_job()
        self._refresh_editor()

    def reset_rounds(self) -> bool:
        """Back to the start policy (round 0); the rounds computed so far are reused by later Steps."""
        if not self._state.rounds and not self.busy:
            return False
        self.auto = False
        self._token += 1
        if self.busy:
            self.cancel_job()
        self._set_state(AtttState(self.setup), "rounds reset")
        self.message.emit("Rounds reset to the start policy.")
        self._refresh_editor()
        return True

    def _refresh_editor(self) -> None:
        if self._editor is not None:
            self._editor.refresh()
        self.redraw.emit()  # the window's Step / Run / Pause follow the rounds

    # ------------------------------------------------------------------ the window's one Step
    drives_steps = True
    """The window's Step, Run, Pause and Reset drive the best-response rounds (there is no other Step)."""

    def window_step(self) -> bool:
        return self.step_round()

    def window_run(self) -> bool:
        return self.run_rounds()

    def window_pause(self) -> None:
        if self.auto or self.busy:
            self.stop_rounds()

    def window_reset(self) -> bool:
        return self.reset_rounds()

    def window_can_step(self) -> bool:
        return self.mdp() is not None and self.can_step_round()

    def window_running(self) -> bool:
        return bool(self.auto or self.busy)

    def solve_after_reset(self) -> bool:
        """After a round the window solves the MDP on the board at once: the round's best response."""
        return bool(self._state.rounds)

    def board_caption(self, caption: str, sweep: Any) -> str:
        """What the board shows, in the rounds' words (before the solver's own caption)."""
        st = self._state
        if not st.rounds:
            me = st.responder
            return (f"Round 0: player {me}'s MDP against player {3 - me}'s start policy. Step: round 1, "
                    f"player {me}'s best response.")
        r = st.rounds[-1]
        head = (f"Round {r.round}: player {r.player}'s best response to player {3 - r.player}'s policy"
                + (" \u2014 converged, neither policy changes any more" if r.converged else ""))
        if sweep is None:
            return head + " (solving\u2026)"
        return f"{head}. {caption}"

    # ------------------------------------------------------------------ showing a board
    def show_board(self, board: str, *, text: str = "") -> bool:
        """Show ``board`` (9 characters) on the position board as a fresh start of the walk."""
        m = self.position_model()
        if m is None:
            return False
        return self.board.show_position(m.board_position(board), text)

    # ------------------------------------------------------------------ setup edits
    def _start_for(self, b1: attt.Boards, b2: attt.Boards) -> attt.AtttPolicy:
        """The current start policy carried over to new boards (a generated one is made again on them)."""
        s = self.setup
        if s.start_kind == "file":
            return s.start
        return make_start(s.start_kind, b1 if s.start.player == 1 else b2, seed=s.seed)

    def use_course_files(self) -> bool:
        """The course's states files and player 1's course policy as the start."""
        if course_files(self.folder) is None:
            self.message.emit(f"The course files are not in {self.folder or COURSE_DIR}.")
            return False
        return self.edit_setup(replace(default_setup(self.folder), ties=self.setup.ties, method=self.setup.method),
                               "course files")

    def use_reachable_boards(self) -> bool:
        """Both players' boards generated from the rules (every reachable board)."""
        b1, b2 = attt.reachable_boards()
        return self.edit_setup(replace(self.setup, p1_boards=b1, p2_boards=b2, start=self._start_for(b1, b2)),
                               "every reachable board")

    def open_states(self, path: str | os.PathLike) -> bool:
        """A states file for the player its boards belong to (MDPFileError naming the line otherwise)."""
        boards = attt.load_states(path)
        b1 = boards if boards.player == 1 else self.setup.p1_boards
        b2 = boards if boards.player == 2 else self.setup.p2_boards
        return self.edit_setup(replace(self.setup, p1_boards=b1, p2_boards=b2, start=self._start_for(b1, b2)),
                               f"player {boards.player} states: {Path(path).name}")

    def open_start_policy(self, path: str | os.PathLike) -> bool:
        """A policy file as the start policy (MDPFileError naming the line if it is malformed)."""
        pol = attt.load_policy(path)
        return self.edit_setup(replace(self.setup, start=pol, start_kind="file"),
                               f"start policy {Path(path).name}")

    def set_generated_start(self, kind: str, player: int, *, seed: int = 0) -> bool:
        """A "random" (seeded) or "uniform" start policy of ``player``."""
        if player not in (1, 2):
            raise ValueError(f"player must be 1 or 2, got {player}")
        pol = make_start(kind, self.setup.boards(player), seed=seed)
        what = f"random player-{player} start (seed {seed})" if kind == "random" else f"uniform player-{player} start"
        return self.edit_setup(replace(self.setup, start=pol, start_kind=kind, seed=int(seed)), what)

    def set_ties(self, ties: str) -> bool:
        return self.edit_setup(replace(self.setup, ties=ties), f"ties to the {ties} cell")

    def set_method(self, method: str) -> bool:
        """The solver of each best response (the rounds do not depend on it: V* is unique)."""
        return self.edit_setup(replace(self.setup, method=method), f"best responses by {METHOD_NAMES[method]}")

    # ------------------------------------------------------------------ export
    def export_policy(self, player: int, path: str | os.PathLike) -> Path:
        """Write ``player``'s current policy as a course policy file (atomically); ValueError if the
        player has no policy yet."""
        pol = self._state.policies().get(int(player))
        if pol is None:
            raise ValueError(f"player {player} has no policy yet: step a round first")
        path = Path(path)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(attt.format_policy(pol), encoding="utf-8")
        os.replace(tmp, path)
        return path

    # ------------------------------------------------------------------ matchups
    def matchups(self) -> list[str]:
        return [m[0] for m in matchup_plan(self._state, None, None)]

    def simulation_job(self, mdp, policy, *, games, seed):
        games = int(games)
        if games < 2:
            raise ValueError(f"simulate at least 2 games, got {games}")
        st = self._state
        enc = self.encoding()
        pol = None if policy is None else np.array(policy, dtype=np.int64)

        def job(progress, cancelled):
            n = len(enc.boards)
            if pol is not None:  # the window's converged solution
                solved = attt.decode(enc.boards, pol[:n], source=f"solved P{enc.boards.player}")
            else:  # not converged in the window: solve the best response here, on the job thread
                solved = attt.best_response(enc.boards, enc.opponent, ties=st.setup.ties,
                                            method=st.setup.method).policy
            plan = matchup_plan(st, enc, solved)
            streams = np.random.SeedSequence(int(seed)).spawn(len(plan))
            rows, notes = [], []
            for i, ((name, p1, p2, x, o), ss) in enumerate(zip(plan, streams)):
                if cancelled():
                    return None
                try:
                    rows.append(play_matchup(name, p1, p2, games=games, rng=np.random.default_rng(ss), x=x, o=o))
                except ValueError as e:
                    notes.append(f"{name}: {e}")
                progress(i + 1, len(plan), f"{name}: {games:,} games")
            return MatchupResult(tuple(rows), unit="games", start="the empty board", notes=tuple(notes))

        return job

    # ------------------------------------------------------------------ editor
    def editor(self) -> "AtttPanel":
        if self._editor is None:
            self._editor = AtttPanel(self)
        return self._editor

    # ------------------------------------------------------------------ scenarios
    def to_dict(self) -> dict[str, Any]:
        s = self.setup
        start: dict[str, Any] = {"kind": s.start_kind, "player": s.start.player}
        if s.start_kind == "file":
            start["path"] = s.start.source
        elif s.start_kind == "random":
            start["seed"] = s.seed
        return {"p1_states": boards_path(s.p1_boards), "p2_states": boards_path(s.p2_boards), "start": start,
                "ties": s.ties, "method": s.method, "max_rounds": int(s.max_rounds)}

    def load_dict(self, data: dict[str, Any], path: str) -> AtttState:
        where = "games.attt"

        def fail(field_: str, problem: str) -> ScenarioError:
            return ScenarioError(path, f"{where}.{field_}" if field_ else where, problem)

        boards = {}
        for p in (1, 2):
            f = data.get(f"p{p}_states", "")
            if not isinstance(f, str):
                raise fail(f"p{p}_states", f"must be a file name or \"\" (every reachable board), got {f!r}")
            try:
                boards[p] = attt.load_states(f, player=p) if f else attt.reachable_boards()[p - 1]
            except MDPFileError as e:
                raise fail(f"p{p}_states", str(e)) from None
        start = data.get("start", {})
        if not isinstance(start, dict):
            raise fail("start", f"must be an object, got {start!r}")
        kind, player = start.get("kind", "random"), start.get("player", 1)
        if kind not in START_KINDS:
            raise fail("start.kind", f"must be one of {', '.join(START_KINDS)}, got {kind!r}")
        if player not in (1, 2) or isinstance(player, bool):
            raise fail("start.player", f"must be 1 or 2, got {player!r}")
        seed = start.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise fail("start.seed", f"must be a non-negative integer, got {seed!r}")
        if kind == "file":
            fpath = start.get("path")
            if not isinstance(fpath, str) or not fpath:
                raise fail("start.path", f"must be the policy file's name, got {fpath!r}")
            try:
                pol = attt.load_policy(fpath, player=player)
            except MDPFileError as e:
                raise fail("start.path", str(e)) from None
        else:
            pol = make_start(kind, boards[player], seed=seed)
        ties = data.get("ties", "lowest")
        if ties not in attt.TIE_RULES:
            raise fail("ties", f"must be one of {', '.join(attt.TIE_RULES)}, got {ties!r}")
        method = data.get("method", "gs")
        if method not in METHODS:
            raise fail("method", f"must be one of {', '.join(METHODS)}, got {method!r}")
        rounds = data.get("max_rounds", 100)
        if isinstance(rounds, bool) or not isinstance(rounds, int):
            raise fail("max_rounds", f"must be an integer, got {rounds!r}")
        try:
            setup = AtttSetup(boards[1], boards[2], pol, start_kind=kind, seed=seed, ties=ties, method=method,
                              max_rounds=rounds)
        except ValueError as e:
            raise fail("", str(e)) from None
        return AtttState(setup)


# ---------------------------------------------------------------------------------- the panel
class _FileDialogs:
    """File dialogs of the panel (tests put a stand-in that answers at once in ``panel.dialogs``)."""

    def __init__(self, parent: QWidget) -> None:
        self.parent = parent

    def open_file(self, title: str, directory: str, filters: str) -> str:
        return QFileDialog.getOpenFileName(self.parent, title, directory, filters)[0]

    def save_file(self, title: str, directory: str, filters: str) -> str:
        return QFileDialog.getSaveFileName(self.parent, title, directory, filters)[0]




class _CompactTable(QTableWidget):
    """A table that asks for little height (the Game dock's scroll area sizes its page by the preferred
    height, so a default table would push the rows below it out of sight); it still grows to fill."""

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(super().sizeHint().width(), 100)


START_CHOICES = (
    ("file", 0, "policy file"),
    ("random", 1, "random P1 policy"),
    ("random", 2, "random P2 policy"),
    ("uniform", 1, "uniform P1 policy"),
    ("uniform", 2, "uniform P2 policy"),
)
"""Entries of the start picker: (kind, player, text)."""


class AtttPanel(QWidget):
    """The anti-tic-tac-toe panel: the files and start policy, the best-response rounds (Step / Run /
    Reset, a table per round, the changed boards of the selected round), policy export."""

    def __init__(self, game: AtttGame, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.dialogs = _FileDialogs(self)
        """Open/save dialogs (replaceable in tests)."""
        self.setObjectName("atttPanel")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)

        tabs = _named(QTabWidget(), "atttTabs", "Anti-tic-tac-toe panel")
        tabs.setDocumentMode(True)
        lay.addWidget(tabs, 1)

        # --- the rounds (first tab: what one steps)
        page = QWidget()
        v = QVBoxLayout(page)
        v.setContentsMargins(2, 4, 2, 2)
        self.next_label = _named(QLabel(""), "atttNext", "What the next round computes")
        self.next_label.setWordWrap(True)
        v.addWidget(self.next_label)
        # the rounds are driven by the window's one Step / Run / Pause / Reset (no second Step here)
        row = QHBoxLayout()
        row.addWidget(QLabel("Export"))
        self.export1 = _named(QPushButton("P1 policy\u2026"), "atttExportP1", "Export player 1's policy")
        self.export2 = _named(QPushButton("P2 policy\u2026"), "atttExportP2", "Export player 2's policy")
        for b in (self.export1, self.export2):
            b.setToolTip("Save the player's current policy as a course policy file (player id, then "
                         "'board p0 ... p8' per board)")
            row.addWidget(b)
        v.addLayout(row)
        self.changed = _named(QComboBox(), "atttChanged", "Changed boards of the selected round")
        self.changed.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.changed.setMinimumContentsLength(10)
        self.changed.setMaxVisibleItems(20)
        self.changed.setToolTip("The boards whose move the selected round changed (board: old move \u2192 new "
                                "move); pick one to show it on the board")
        v.addWidget(self.changed)
        self.table = _named(_CompactTable(0, 5), "atttRounds", "Best-response rounds")
        self.table.setHorizontalHeaderLabels(["round", "changed", "P1 win", "P2 win", "draw"])
        heads = ("the round and the player who responded", "how many of the responder's boards changed move",
                 "exact P(P1 wins) of the current pair of policies from the empty board",
                 "exact P(P2 wins) of the current pair", "exact P(draw) of the current pair")
        for j, tip in enumerate(heads):
            self.table.horizontalHeaderItem(j).setToolTip(tip)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        hh.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)  # fills what is left, no wider
        hh.setMinimumSectionSize(20)
        self.table.verticalHeader().setDefaultSectionSize(20)
        self.table.setMinimumHeight(64)
        self.table.setToolTip("Per round: who responded (P1 or P2), how many of its boards changed move, and the "
                              "exact outcome probabilities of the current pair of policies from the empty board. "
                              "Select a round to list its changed boards in the picker above.")
        v.addWidget(self.table, 1)
        tabs.addTab(page, "Rounds")

        # --- the setup (the edits)
        page = QWidget()
        form = QFormLayout(page)
        form.setContentsMargins(2, 4, 2, 2)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.files_label = _named(QLabel(""), "atttFiles", "Boards and start policy")
        self.files_label.setWordWrap(True)
        self.files_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form.addRow(self.files_label)
        row = QHBoxLayout()
        self.course = _named(QPushButton("Course files"), "atttCourseFiles", "Use the course's files")
        self.course.setToolTip(f"The course's states files and p1_policy1.txt as the start ({COURSE_DIR})")
        self.open_states = _named(QPushButton("States\u2026"), "atttOpenStates", "Open a states file")
        self.open_states.setToolTip("Open a states file (the player is read from its boards)")
        self.reachable = _named(QPushButton("Rules"), "atttReachable", "Every reachable board")
        self.reachable.setToolTip("Both players' boards generated from the rules (every reachable board)")
        for b in (self.course, self.open_states, self.reachable):
            row.addWidget(b)
        form.addRow(row)
        self.start = _named(QComboBox(), "atttStartPicker", "Start policy")
        for _kind, _player, text in START_CHOICES:
            self.start.addItem(text)
        self.start.setToolTip("The policy the iteration starts from; 'policy file' opens a course policy file")
        form.addRow("Start", self.start)
        self.seed = _named(QSpinBox(), "atttSeed", "Seed of a random start policy")
        self.seed.setRange(0, 999_999)
        self.seed.setToolTip("Seed of a random start policy")
        form.addRow("Seed", self.seed)
        self.ties = _named(QComboBox(), "atttTies", "Tie rule")
        self.ties.addItems(list(attt.TIE_RULES))
        self.ties.setToolTip("Among cells of equal value a best response plays the lowest (the seed's rule) or "
                             "the highest cell")
        form.addRow("Ties", self.ties)
        self.method = _named(QComboBox(), "atttMethod", "Solver of each best response")
        for m in METHODS:
            self.method.addItem(METHOD_NAMES[m], m)
        self.method.setToolTip("How each round's best response is solved (the seed used in-place value "
                               "iteration); V* is unique, so the rounds do not depend on it")
        form.addRow("Solver", self.method)
        tabs.addTab(page, "Setup")
        self.tabs = tabs

        self.course.clicked.connect(self.game.use_course_files)
        self.open_states.clicked.connect(self._open_states)
        self.reachable.clicked.connect(self.game.use_reachable_boards)
        self.start.activated.connect(self._on_start)
        self.seed.editingFinished.connect(self._on_seed)
        self.ties.activated.connect(lambda i: self.game.set_ties(self.ties.itemText(i)))
        self.method.activated.connect(lambda i: self.game.set_method(self.method.itemData(i)))
        self.table.itemSelectionChanged.connect(self._on_round_selected)
        self.changed.activated.connect(self._on_changed_picked)
        self.export1.clicked.connect(lambda: self.export_dialog(1))
        self.export2.clicked.connect(lambda: self.export_dialog(2))
        game.edited.connect(lambda _t: self.refresh())
        self._shown_rounds: tuple = ()
        self.show_round(None)
        self.refresh()

    # ------------------------------------------------------------------ actions
    def _open_states(self) -> None:
        path = self.dialogs.open_file("Open a states file", str(COURSE_DIR / "states"), "States files (*.txt);;All files (*)")
        if path:
            try:
                self.game.open_states(path)
            except ValueError as e:
                self.game.message.emit(str(e))

    def _on_start(self, i: int) -> None:
        kind, player, _text = START_CHOICES[i]
        try:
            if kind == "file":
                path = self.dialogs.open_file("Open a start policy", str(COURSE_DIR / "policies"),
                                              "Policy files (*.txt);;All files (*)")
                if path:
                    self.game.open_start_policy(path)
            else:
                self.game.set_generated_start(kind, player, seed=self.seed.value())
        except ValueError as e:
            self.game.message.emit(str(e))
        self.refresh()

    def _on_seed(self) -> None:
        s = self.game.setup
        if s.start_kind == "random" and self.seed.value() != s.seed:
            self.game.set_generated_start("random", s.start.player, seed=self.seed.value())

    def export_dialog(self, player: int) -> bool:
        """Ask for a file name and write ``player``'s current policy there."""
        if self.game.astate.policies().get(player) is None:
            self.game.message.emit(f"Player {player} has no policy yet: step a round first.")
            return False
        path = self.dialogs.save_file(f"Export player {player}'s policy", f"p{player}_policy.txt",
                                      "Policy files (*.txt);;All files (*)")
        if not path:
            return False
        try:
            p = self.game.export_policy(player, path)
        except (ValueError, OSError) as e:
            self.game.message.emit(f"Cannot export: {e}")
            return False
        self.game.message.emit(f"Saved player {player}'s policy to {p}")
        return True

    def _on_round_selected(self) -> None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        self.show_round(rows[0].row() if rows else None)

    def show_round(self, index: int | None) -> None:
        """List the changed boards of round ``index`` (0-based; None: clear) in the changed-boards picker."""
        c = self.changed
        c.blockSignals(True)
        c.clear()
        st = self.game.astate
        if index is None or not 0 <= index < len(st.rounds):
            c.addItem("changed boards: select a round")
            c.setEnabled(False)
            c.blockSignals(False)
            return
        r = st.rounds[index]
        changes = round_changes(st, index)
        first = " (first response: all)" if st.previous_policy(index) is None else ""
        c.addItem(f"round {r.round}: {len(changes):,} P{r.player} boards changed{first}")
        for ch in changes:
            was = f"cell {ch.old_cell}" if ch.old_cell >= 0 else "\u2014"
            c.addItem(f"{ch.board}: {was} \u2192 cell {ch.new_cell}", (ch.board, r.round, ch.old_cell, ch.new_cell))
        c.setEnabled(bool(changes))
        c.blockSignals(False)

    def _on_changed_picked(self, i: int) -> None:
        data = self.changed.itemData(i)
        if data is None:
            return
        board, rnd, old, new = data
        was = f"cell {old}" if old >= 0 else "no move"
        try:
            self.game.show_board(board, text=f"Round {rnd} changed this board: {was} \u2192 cell {new}.")
        except ValueError as e:
            self.game.message.emit(str(e))

    def show_progress(self, text: str) -> None:
        self.next_label.setText(text + "\u2026")

    # ------------------------------------------------------------------ display
    def refresh(self) -> None:
        g = self.game
        st = g.astate
        s = st.setup
        self.files_label.setText(f"P1 boards: {describe_boards(s.p1_boards)}<br>P2 boards: "
                                 f"{describe_boards(s.p2_boards)}<br>Start: {s.start_text()}")
        self.course.setEnabled(course_files(g.folder) is not None)
        i = next(k for k, (kind, player, _t) in enumerate(START_CHOICES)
                 if kind == s.start_kind and (kind == "file" or player == s.start.player))
        self.start.setCurrentIndex(i)
        self.seed.blockSignals(True)
        self.seed.setValue(int(s.seed))
        self.seed.blockSignals(False)
        self.seed.setEnabled(s.start_kind == "random")
        self.ties.setCurrentText(s.ties)
        self.method.setCurrentIndex(METHODS.index(s.method))
        me = st.responder
        shown = st.shown_player
        if g.busy:
            text = f"Computing round {len(st.rounds) + 1}: P{me}'s best response\u2026"
        elif st.converged:
            text = (f"Converged after {len(st.rounds)} rounds. The board: P{shown}'s final best response to "
                    f"P{3 - shown}'s final policy.")
        elif not st.rounds:
            text = (f"Step (toolbar) computes round 1: P{me}'s best response to P{3 - me}'s start policy; "
                    "Run steps rounds until neither policy changes.")
        else:
            text = (f"The board: round {len(st.rounds)}, P{shown}'s best response. Step: round "
                    f"{len(st.rounds) + 1}, P{me}'s best response to P{3 - me}'s current policy.")
        if g.mdp_error():
            text = f"No MDP: {g.mdp_error()}"
        self.next_label.setText(text)
        pols = st.policies()
        self.export1.setEnabled(pols[1] is not None)
        self.export2.setEnabled(pols[2] is not None)
        if st.rounds != self._shown_rounds:
            self._fill_table(st)

    def _fill_table(self, st: AtttState) -> None:
        self._shown_rounds = st.rounds
        t = self.table
        t.blockSignals(True)
        t.setRowCount(len(st.rounds))
        for i, r in enumerate(st.rounds):
            cells = [f"{r.round}: P{r.player}", f"{r.changed:,}" + (" \u2713" if r.converged else ""),
                     f"{r.p1_win:.4f}", f"{r.p2_win:.4f}", f"{r.draw:.4f}"]
            tip = (round_summary(r) + f" (exact: {r.p1_win!r}, {r.p2_win!r}, {r.draw!r}); "
                   f"{r.elapsed:.3f} s after the start")
            for j, text in enumerate(cells):
                it = QTableWidgetItem(text)
                it.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                it.setToolTip(tip)
                t.setItem(i, j, it)
        t.blockSignals(False)
        if st.rounds:
            t.selectRow(len(st.rounds) - 1)
            t.scrollToBottom()
        else:
            self.show_round(None)



# ---------------------------------------------------------------------------------- README screenshots
def save_screenshots(out_dir: str | Path, *, games: int = 10_000) -> list[Path]:
    """Anti-tic-tac-toe screenshots for the README (``python -m mdpviz.screenshots --games attt``; the
    window from :func:`mdpviz.screenshots.screenshot_window`): three best-response rounds stepped (the
    board shows round 3's best response, solved at once) and a move played, at the default size (``attt.png``) and at 1280 x 720
    (``attt-1280x720.png``); then the matchups simulated, ``games`` games each (``attt-matchups.png``).
    Returns the files written."""
    from mdpviz.screenshots import SIZE_1280x720, screenshot_window

    with screenshot_window(out_dir) as sw:
        w = sw.window
        w.switch_game("attt")
        g = w.game
        for k in range(3):
            g.step_round()
            sw.wait(lambda: not g.busy and len(g.astate.rounds) == k + 1, what=f"best-response round {k + 1}")
        sw.wait(lambda: w.controller.state == "converged", what="the solve of round 3's MDP")  # solved at once
        sw.redraw()
        g.board.click_cell(4)
        sw.shot("attt.png")
        sw.shot("attt-1280x720.png", size=SIZE_1280x720)
        sw.simulate(games)
        sw.shot("attt-matchups.png")
    return sw.saved

__all__ = [
    "AtttGame", "AtttPanel", "AtttPositionModel", "AtttSetup", "AtttState", "BoardChange", "COURSE_DIR",
    "course_files", "default_setup", "play_matchup", "round_changes", "round_summary", "save_screenshots",
]
