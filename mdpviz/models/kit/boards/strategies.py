"""Comparing strategies by simulation: the one background job of the games whose episodes are walks
of their MDP (course files, grid worlds, Gymnasium environments), and what a simulation returns.

Each strategy is a matrix of action probabilities (n_states, n_actions); it is evaluated twice, so
theory and simulation can be compared: exactly, by policy evaluation (Sutton and Barto eq. 4.4,
:func:`~mdpviz.solvers.evaluate_stochastic_policy`), and empirically, by ``games`` simulated
episodes (:func:`~mdpviz.core.simulate.simulate`) from one start state; where the return takes
finitely many values, its exact distribution too (:func:`~mdpviz.solvers.distribution.return_distribution`).

:func:`strategy_simulation` is a generator: it yields
:class:`~mdpviz.models.kit.game.registry.JobProgress` after each strategy and returns a
:class:`SimulationResult`; the window's controller steps it on its job thread, tests and the
CLI simply iterate it. Plain numpy; never imports Qt.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Generator, Sequence

import numpy as np

from mdpviz.models.kit.pictures.display import StrategyRow, results_csv
from mdpviz.core.jobs import JobProgress
from mdpviz.core.mdp import TabularMDP
from mdpviz.core.simulate import mean_ci, policy_matrix, simulate, uniform_policy_matrix
from mdpviz.solvers import ImproperPolicyError, evaluate_stochastic_policy
from mdpviz.solvers.distribution import return_distribution

@dataclass(frozen=True, eq=False)
class SimulationResult:
    """What a batch simulation returns to the window."""

    rows: tuple[StrategyRow, ...]
    """One row per strategy."""
    unit: str
    """What the samples count ("turns", "return")."""
    start: str
    """Name of the start state (e.g. "square 1")."""
    notes: tuple[str, ...] = ()
    """Strategies that could not be evaluated, and why."""

    def csv(self) -> str:
        """The table as CSV (:func:`~mdpviz.models.kit.pictures.display.results_csv`), for File \u25b8 Export."""
        return results_csv(self.rows, unit=self.unit, start=self.start)


def at_least_two_games(games: int) -> int:
    """``games`` as an int, or ValueError when fewer than 2 (no confidence interval)."""
    games = int(games)
    if games < 2:
        raise ValueError(f"simulate at least 2 games, got {games}")
    return games


def walk_strategy_probs(name: str, mdp: TabularMDP, policy: np.ndarray | None) -> np.ndarray:
    """The action probabilities of strategy ``name`` of a plain MDP: "optimal" (``policy``, a solved
    model's), "random" (every legal action alike) or "action k" (action k wherever it is legal in every
    live state, see :func:`fixed_action_strategies`)."""
    if name == "optimal":
        if policy is None:
            raise ValueError("the optimal strategy needs a solved model: run the solver first")
        return policy_matrix(mdp, policy)
    if name == "random":
        return uniform_policy_matrix(mdp)
    if name.startswith("action "):
        a = int(name.split()[1])
        return policy_matrix(mdp, np.where(mdp.terminal, -1, a))
    raise ValueError(f"unknown strategy {name!r}")


def fixed_action_strategies(mdp: TabularMDP) -> tuple[str, ...]:
    """"action k" for each action k that is legal in every non-terminal state of ``mdp``."""
    live = np.flatnonzero(~mdp.terminal)
    return tuple(f"action {a}" for a in range(mdp.n_actions)
                 if np.all(np.isin(live, mdp.row_state[mdp.row_action == a])))


def discounted_max_steps(mdp: TabularMDP, *, eps: float, cap: int) -> int:
    """Steps per simulated episode: until gamma^t < ``eps`` for a discount in (0, 1), else ``cap``
    (1 for a discount of 0)."""
    if mdp.discount < 1.0:
        if mdp.discount <= 0.0:
            return 1
        return int(min(cap, math.ceil(math.log(eps) / math.log(mdp.discount))))
    return cap


def strategy_simulation(mdp: TabularMDP, names: Sequence[str], probs_of: Callable[[str, np.ndarray], np.ndarray],
                        policy: np.ndarray | None, *, games: int, seed, start: int, start_name: str, max_steps: int,
                        optimal: Callable[[], np.ndarray]) -> Generator[JobProgress, None, SimulationResult]:
    """Simulate each strategy of ``names`` from ``start`` for ``games`` episodes beside its exact value.

    ``probs_of(name, optimal_policy)`` gives a strategy's action probabilities; ``policy`` is the
    optimal policy when the caller has one, else ``optimal()`` solves for it (on the job thread).
    Each strategy draws from its own stream of ``np.random.SeedSequence(seed)``, so results do not
    depend on which strategies run. Yields :class:`JobProgress` after each strategy; returns the
    :class:`SimulationResult` (unit "return")."""
    games = at_least_two_games(games)
    opt = np.array(policy, dtype=np.int64) if policy is not None else optimal()
    streams = np.random.SeedSequence(seed).spawn(len(names))
    rows, notes = [], []
    for i, (name, ss) in enumerate(zip(names, streams)):
        probs = probs_of(name, opt)
        try:
            exact = float(evaluate_stochastic_policy(mdp, probs)[start])
        except ImproperPolicyError as e:
            notes.append(f"{name}: {e}")
            continue
        ep = simulate(mdp, probs, start=start, episodes=games, seed=np.random.default_rng(ss), max_steps=max_steps)
        m, c = mean_ci(ep.total)
        fin = int(ep.finished.sum()) if mdp.terminal.any() else -1
        rd = return_distribution(mdp, probs, start)  # exact P(return = v) beside the histogram, if listable
        returns = (rd.values, rd.probabilities) if not rd.stopped and rd.never == 0 and rd.values.size else None
        rows.append(StrategyRow(name, exact, m, c, np.asarray(ep.total), fin, returns=returns))
        yield JobProgress(i + 1, len(names), f"{name}: {games:,} episodes")
    return SimulationResult(tuple(rows), "return", start_name, tuple(notes))


def settings_strategy_probs(settings: object, name: str, mdp: TabularMDP, policy: np.ndarray | None) -> np.ndarray:
    """A spec's ``strategy_probs(settings, name, mdp, policy)``: :func:`walk_strategy_probs` of the
    model, the rule of every game whose strategies follow from the model alone ("optimal", "random",
    "action k"; ValueError for any other name)."""
    return walk_strategy_probs(name, mdp, policy)


__all__ = ["SimulationResult", "at_least_two_games", "discounted_max_steps", "fixed_action_strategies", "strategy_simulation",
           "settings_strategy_probs", "walk_strategy_probs"]
