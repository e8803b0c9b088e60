"""Anti-tic-tac-toe on the position board and in matchups: what the board and the simulations need.

:class:`AtttPositionModel` is the position board's view of one encoding (the responder decides with
Q from the MDP, the other player's moves come from its fixed policy); :func:`backup_with_notes` says
what each outcome of a Bellman backup means; :func:`matchup_plan`, :func:`play_matchup` and
:func:`matchups_job` simulate pairs of policies from the empty board; :func:`lesson` is the game's
lesson. Plain numpy; never imports Qt.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Generator

import numpy as np

from mdpviz.models.attt import iteration as it
from mdpviz.models.attt import rules as attt
from mdpviz.models.attt.setup import PLAYERS, RESULTS, AtttSettings, AtttState, BoardChange, round_changes
from mdpviz.models.kit.pictures.display import BackupTerm
from mdpviz.models.kit.game.registry import JobProgress
from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.boards.position import (
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
from mdpviz.core.simulate import simulate
from mdpviz.solvers import hitting_probabilities, row_weights_deterministic
from mdpviz.solvers.sweep import policy_to_rows


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
        greedy = it.choose_actions(self.mdp, v, ties="lowest", tie_tol=TIE_TOL)
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


def first_board(enc: attt.Encoding) -> int:
    """The responder's first board (state) in ``enc``: the empty board for player 1; for player 2 the
    board after player 1's opening (its most probable first cell, the lowest on ties)."""
    if enc.boards.player == 1:
        return int(enc.boards.find(np.array([0]))[0])
    p, _found = enc.opponent.probs_at(np.array([0]))
    cells = np.zeros(attt.N_CELLS, dtype=np.int8)
    cells[int(np.argmax(p[0]))] = 1
    return int(enc.boards.find(np.array([attt.board_codes(cells)]))[0])


# ---------------------------------------------------------------------------------- matchups
def play_matchup(name: str, p1: attt.AtttPolicy, p2: attt.AtttPolicy, *, games: int, rng: np.random.Generator,
                 x: str = "", o: str = "") -> MatchupRow:
    """``games`` simulated games of ``p1`` against ``p2`` from the empty board, with the exact
    probabilities beside them.

    The games are sampled from player 1's encoded MDP against ``p2`` (:func:`mdpviz.models.attt.encode`:
    the rules live in the encoder) by :func:`mdpviz.core.simulate.simulate`, player 1 following
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


def matchups_job(state: AtttState, enc: attt.Encoding, policy: np.ndarray | None, *, games: int,
                 seed: Any) -> Generator[JobProgress, None, MatchupResult]:
    """The matchups of ``state`` (:func:`matchup_plan`) simulated, ``games`` games each, as a background
    job: a :class:`~mdpviz.models.kit.game.registry.JobProgress` after each matchup; returns the
    :class:`~mdpviz.models.kit.boards.position.MatchupResult`. ``policy``: the window's converged solution of
    ``enc`` (an action per state), or None to solve the best response here. A matchup that cannot be
    played (a policy lacking a board) becomes a note. Each matchup has its own random stream of ``seed``."""
    n = len(enc.boards)
    if policy is not None:  # the window's converged solution
        solved = attt.decode(enc.boards, np.asarray(policy, dtype=np.int64)[:n], source=f"solved P{enc.boards.player}")
    else:  # not converged in the window: solve the best response here (on the job thread)
        solved = it.best_response(enc.boards, enc.opponent, ties=state.setup.ties, method=state.setup.method).policy
    plan = matchup_plan(state, enc, solved)
    streams = np.random.SeedSequence(int(seed)).spawn(len(plan))
    rows, notes = [], []
    for i, ((name, p1, p2, x, o), ss) in enumerate(zip(plan, streams)):
        try:
            rows.append(play_matchup(name, p1, p2, games=games, rng=np.random.default_rng(ss), x=x, o=o))
        except ValueError as e:
            notes.append(f"{name}: {e}")
        yield JobProgress(i + 1, len(plan), f"{name}: {games:,} games")
    return MatchupResult(tuple(rows), unit="games", start="the empty board", notes=tuple(notes))


def matchup_names(setup: AtttSettings, mdp: TabularMDP | None = None) -> tuple[str, ...]:
    """The names of the matchups of ``setup`` at round 0 (the spec's ``strategies``)."""
    return tuple(m[0] for m in matchup_plan(AtttState(setup), None, None))


def position_model(setup: AtttSettings, mdp: TabularMDP) -> AtttPositionModel:
    """The position board's model of ``setup`` at round 0 on its compiled ``mdp`` (the spec's
    ``position_model``): the first responder's boards against the start policy."""
    state = AtttState(setup)
    me = state.shown_player
    boards = setup.boards(me)
    if mdp.n_states != len(boards) + 3:
        raise ValueError(f"the MDP has {mdp.n_states} states, not the {len(boards) + 3} of player {me}'s encoding")
    return AtttPositionModel(state, attt.Encoding(mdp=mdp, boards=boards, opponent=setup.start))


def lesson(setup: Any, mdp: TabularMDP | None, *, state: Any = None, start: int = 0,
           state_name: Callable[[int], str] | None = None, action_name: Callable[[int], str] | None = None) -> Any:
    """The anti-tic-tac-toe lesson (:class:`~mdpviz.models.kit.teaching.lessons.Lesson`) of the rules' docstring;
    its parameters are those of ``state`` (the window's :class:`AtttState`), else of ``setup`` (the
    settings, or the window's AtttState itself)."""
    from mdpviz.models.kit.teaching.lessons import doc_paragraphs, mdp_lesson, parameters_of, sentence_with

    if state is None and isinstance(setup, AtttState):
        setup, state = setup.setup, setup

    return mdp_lesson(
        mdp,
        title="Anti-tic-tac-toe",
        intro=doc_paragraphs(attt, "Rules."),
        states=sentence_with(attt.__doc__, "my boards are states"),
        transitions=sentence_with(attt.__doc__, "A planner solves"),
        parameters=parameters_of(state if state is not None else setup),
        start=start,
        state_name=state_name,
        action_name=action_name,
        mover_names=("player 1", "player 2"),
        sources=("mdpviz.models.attt",),
    )
