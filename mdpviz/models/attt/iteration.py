"""Anti-tic-tac-toe best responses and their iteration (seed 000, task 3), as generators.

:func:`best_response_iteration` yields one :class:`Round` per best response (the CLI and the tests
iterate it); :func:`rounds_job` is the same iteration as a background job (it also yields
:class:`~mdpviz.models.kit.game.registry.JobProgress` before each round, and can resume after rounds already
computed), which the window's controller steps on its job thread. Plain numpy; never imports Qt.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Generator, Sequence

import numpy as np

from mdpviz.models.attt.rules import (
    TIE_RULES,
    AtttPolicy,
    Boards,
    Encoding,
    Outcome,
    decode,
    encode,
    outcome_probabilities,
    reachable_boards,
)
from mdpviz.models.kit.game.registry import JobProgress
from mdpviz.core.mdp import TabularMDP, read_only
from mdpviz.solvers import registry as methods
from mdpviz.solvers.sweep import TIE_TOL, greedy

# ---------------------------------------------------------------------------------- best responses
@dataclass(frozen=True, eq=False)
class BestResponse:
    """A best response of one player to the other's fixed policy."""

    policy: AtttPolicy
    """The one-hot best-response policy on the responder's boards."""
    values: np.ndarray
    """float64 (n), read-only: V*(s) = the responder's maximal probability of winning from each board."""
    encoding: Encoding
    """The MDP that was solved."""


def choose_actions(mdp: TabularMDP, values: np.ndarray, *, ties: str = "lowest", tie_tol: float = TIE_TOL) -> np.ndarray:
    """Greedy action per state from ``values`` (argmax_a Q(s, a), Sutton and Barto eq. 4.9).

    The solvers' tie rule (:func:`mdpviz.solvers.sweep.greedy`: actions whose Q is within
    ``tie_tol * (1 + |max Q|)`` of the best are tied): ``ties`` picks the "lowest" action (cell
    index) among them, the solvers' own choice, or the "highest" (the same rule on each state's rows
    in reverse order). Terminal states get -1.
    """
    if ties not in TIE_RULES:
        raise ValueError(f"tie rule must be one of {', '.join(TIE_RULES)}, got {ties!r}")
    q = mdp.q_values(values)
    ptr = mdp.state_ptr
    if ties == "lowest":
        rows = greedy(mdp, q, tie_tol=tie_tol)[1]
    else:  # mirror each state's rows: the lowest tied row of the mirror is the highest tied row
        state = mdp.row_state
        mirror = (ptr[state] + ptr[state + 1] - 1 - np.arange(q.size)).astype(np.int64)
        rows = greedy(mdp, q[mirror], tie_tol=tie_tol)[1]
        rows = np.where(rows >= 0, mirror[np.maximum(rows, 0)], -1)
    return np.where(rows >= 0, mdp.row_action[np.maximum(rows, 0)], -1).astype(np.int64)


SEED_METHOD = methods.ids_where("solver", mixed_q_view=True)[0]
"""The seed's planner of each best response: in-place (Gauss-Seidel) value iteration, the course's "vi"
(the registry line whose sweeps run in place)."""


def best_response(
    boards: Boards,
    opponent: AtttPolicy,
    *,
    ties: str = "lowest",
    method: str = SEED_METHOD,
    tol: float = 1e-12,
) -> BestResponse:
    """The best response of ``boards.player`` to ``opponent``: :func:`encode`, solve, pick greedily.

    ``method`` is a solver id of :func:`mdpviz.solvers.solve` ("gs" in-place value iteration, the
    seed's; "vi" synchronous; "pi" policy iteration; "lp"), ``tol`` the value-iteration tolerance
    (the MDP is acyclic, at most 5 moves per player, so value iteration reaches V* within a
    few sweeps); V* is unique, so the policy depends only on the
    tie rule ``ties`` ("lowest" cell index, the seed's rule, or "highest"), applied to the exact
    Q-values of V* (:func:`choose_actions`).
    """
    from mdpviz.solvers import solve

    if ties not in TIE_RULES:
        raise ValueError(f"tie rule must be one of {', '.join(TIE_RULES)}, got {ties!r}")
    enc = encode(boards, opponent)
    opts = {"tol": tol} if methods.get(method).value_iteration else {}
    sol = solve(enc.mdp, method, **opts)
    if not sol.converged:
        raise ValueError(f"the {method} solver did not converge on the player-{boards.player} MDP")
    actions = choose_actions(enc.mdp, sol.values, ties=ties)[: len(boards)]
    policy = decode(boards, actions, source=f"best response of player {boards.player}")
    return BestResponse(policy=policy, values=read_only(np.array(sol.values[: len(boards)])), encoding=enc)


@dataclass(frozen=True)
class IterationSettings:
    """Settings of a best-response iteration."""

    ties: str = "lowest"
    """Tie rule between cells of equal value: "lowest" (the seed's) or "highest" cell index."""
    method: str = SEED_METHOD
    """Solver id of each best response: "gs" in-place value iteration (the seed's), "vi" synchronous
    (faster here), "pi", "lp". V* is unique, so the policies do not depend on it."""
    max_rounds: int = 100
    """Stop (not converged) after this many rounds."""

    def __post_init__(self) -> None:
        if self.ties not in TIE_RULES:
            raise ValueError(f"tie rule must be one of {', '.join(TIE_RULES)}, got {self.ties!r}")
        if int(self.max_rounds) < 1:
            raise ValueError(f"max_rounds must be at least 1, got {self.max_rounds}")


@dataclass(frozen=True, eq=False)
class Round:
    """One round of best-response iteration: one player responded to the other's current policy."""

    round: int
    """1-based round number."""
    player: int
    """The player (1 or 2) who computed a best response this round."""
    changed: int
    """Number of the responder's boards whose action changed (all of them on its first response)."""
    changed_states: np.ndarray
    """int64, read-only: indices (into the responder's boards) of the boards that changed."""
    changed_boards: tuple[str, ...]
    """The changed boards as 9-character strings."""
    p1_win: float
    """Exact P(player 1 wins) of the current pair from the empty board."""
    p2_win: float
    """Exact P(player 2 wins) of the current pair from the empty board."""
    draw: float
    """Exact P(draw) of the current pair from the empty board."""
    p1_policy: AtttPolicy
    """Player 1's current policy (after this round)."""
    p2_policy: AtttPolicy
    """Player 2's current policy (after this round)."""
    values: np.ndarray
    """float64, read-only: the responder's V* (probability of winning) on each of its boards."""
    converged: bool
    """True if neither policy changes any more (this is then the last round)."""
    elapsed: float
    """Seconds since the iteration started."""


@dataclass(frozen=True, eq=False)
class IterationResult:
    """What :func:`best_response_iteration` returns."""

    rounds: int
    """Number of rounds performed."""
    converged: bool
    """True if the last round changed nothing (so neither policy changes again)."""
    p1_policy: AtttPolicy
    """Player 1's final policy."""
    p2_policy: AtttPolicy
    """Player 2's final policy."""
    outcome: Outcome
    """Exact outcome probabilities of the final pair."""
    changed: tuple[int, ...]
    """Changed count of each round."""
    history: tuple[Round, ...] = field(default=())
    """Every round, in order."""


IterationGen = Generator[Round, None, IterationResult]


def best_response_iteration(
    start: AtttPolicy,
    *,
    p1_boards: Boards | None = None,
    p2_boards: Boards | None = None,
    settings: IterationSettings = IterationSettings(),
    resume: Sequence[Round] = (),
) -> IterationGen:
    """Alternate best responses from ``start`` (seed 000, task 3), one :class:`Round` per response.

    The player who did not start responds first (to ``start``), then the players alternate, each
    replying to the other's current policy with :func:`best_response` (tie rule
    ``settings.ties``). A round's ``changed`` counts the responder's boards whose action
    distribution differs from its previous policy (the start policy, or every board on a first
    response). Converged at the first round after the first whose response changes nothing:
    then the other player's current policy is already its best response to this unchanged policy,
    so neither policy changes again. ``p1_boards``/``p2_boards`` default to :func:`reachable_boards`
    (the course's states files). Returns an :class:`IterationResult`.

    ``resume``: rounds 1..k this iteration (the same start, boards and settings) yielded before;
    the generator continues with round k + 1, exactly as if it had not stopped (each round depends
    only on the policies after the one before; ``elapsed`` then counts the computing time of the
    earlier rounds, not the time between).
    """
    return (yield from _iterate(start, p1_boards, p2_boards, settings, tuple(resume), progress=False))


def iteration_job(
    start: AtttPolicy,
    *,
    p1_boards: Boards | None = None,
    p2_boards: Boards | None = None,
    settings: IterationSettings = IterationSettings(),
    resume: Sequence[Round] = (),
    stop_after: int | None = None,
) -> Generator[Round | JobProgress, None, IterationResult]:
    """:func:`best_response_iteration` as a background job: a :class:`~mdpviz.models.kit.game.registry.JobProgress`
    before each round (done = rounds so far, total = the round limit or ``stop_after``), then the
    :class:`Round`; returns the :class:`IterationResult` (``history`` holds ``resume`` and the new
    rounds). With ``stop_after`` it returns after that round (converged False unless that round
    converged): the window's Step computes one round per job, resuming after the rounds it has."""
    return (yield from _iterate(start, p1_boards, p2_boards, settings, tuple(resume), progress=True,
                                stop_after=stop_after))


def _iterate(
    start: AtttPolicy,
    p1_boards: Boards | None,
    p2_boards: Boards | None,
    settings: IterationSettings,
    resume: tuple[Round, ...],
    *,
    progress: bool,
    stop_after: int | None = None,
) -> Generator[Round | JobProgress, None, IterationResult]:
    """The iteration (see :func:`best_response_iteration`), with a :class:`JobProgress` before each round
    if ``progress``; returns after round ``stop_after`` (if given) with that round's (unfinished) result."""
    if p1_boards is None or p2_boards is None:
        b1, b2 = reachable_boards()
        p1_boards = p1_boards if p1_boards is not None else b1
        p2_boards = p2_boards if p2_boards is not None else b2
    if p1_boards.player != 1 or p2_boards.player != 2:
        raise ValueError("p1_boards must be player 1's boards and p2_boards player 2's")
    boards = {1: p1_boards, 2: p2_boards}
    player = 3 - start.player
    previous: AtttPolicy | None = None  # the responder's policy before its first response: none
    current = {start.player: start}
    changed_counts: list[int] = [r.changed for r in resume]
    t0 = time.perf_counter()
    for k, done in enumerate(resume, start=1):
        if done.round != k or done.player != player:
            raise ValueError(f"cannot resume: round {k} of the given rounds is round {done.round} of player "
                             f"{done.player}, not round {k} of player {player}")
        player = 3 - player
    if resume:
        last = resume[-1]
        current = {1: last.p1_policy, 2: last.p2_policy}
        previous = current[player]
        t0 -= last.elapsed
        p1, p2 = current[1], current[2]
        if last.converged or len(resume) >= int(settings.max_rounds) or (
                stop_after is not None and len(resume) >= stop_after):
            outcome = Outcome(p1_win=last.p1_win, p2_win=last.p2_win, draw=last.draw)
            return IterationResult(len(resume), last.converged, p1, p2, outcome, tuple(changed_counts), resume)
    history = list(resume)
    total = int(settings.max_rounds) if stop_after is None else min(int(stop_after), int(settings.max_rounds))
    for r in range(len(resume) + 1, int(settings.max_rounds) + 1):
        if progress:
            yield JobProgress(r - 1, total, f"round {r}: player {player}'s best response")
        br = best_response(boards[player], current[3 - player], ties=settings.ties, method=settings.method)
        changed = br.policy.changed_from(previous)
        current[player] = br.policy
        p1, p2 = current[1], current[2]
        outcome = outcome_probabilities(p1, p2)
        done = r >= 2 and changed.size == 0
        changed_counts.append(int(changed.size))
        rnd = Round(
            round=r, player=player, changed=int(changed.size), changed_states=read_only(changed),
            changed_boards=tuple(boards[player].labels[i] for i in changed),
            p1_win=outcome.p1_win, p2_win=outcome.p2_win, draw=outcome.draw,
            p1_policy=p1, p2_policy=p2, values=br.values, converged=done,
            elapsed=time.perf_counter() - t0,
        )
        history.append(rnd)
        yield rnd
        if done or (stop_after is not None and r >= stop_after):
            return IterationResult(r, done, p1, p2, outcome, tuple(changed_counts), tuple(history))
        player = 3 - player
        previous = current[player]
    return IterationResult(int(settings.max_rounds), False, p1, p2, outcome, tuple(changed_counts), tuple(history))


def run_iteration(gen: IterationGen) -> IterationResult:
    """Drive :func:`best_response_iteration` to the end; the result keeps every round in ``history``."""
    while True:
        try:
            next(gen)
        except StopIteration as stop:
            return stop.value
