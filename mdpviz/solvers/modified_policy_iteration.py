"""Modified policy iteration as pymdptoolbox (4.0b3) defines it (``PolicyIterationModified``).

Puterman, *Markov Decision Processes*, section 6.5: a Bellman optimality backup (Sutton and Barto
eq. 4.10) that also picks the greedy policy, then at most a few sweeps of that policy's expectation
backup (eq. 4.5), repeated until the span of the optimality backup's change is small. Between value
iteration (no evaluation sweep) and policy iteration (evaluation to the end). Terminal states stay at 0
and spans are taken over the non-terminal states (pymdptoolbox has no terminal states, so on its
models this is all of them). Values are in reward units.
"""
from __future__ import annotations

import math
import time

import numpy as np

from mdpviz.core.mdp import TabularMDP, read_only
from mdpviz.solvers.policy_iteration import evaluate_iteratively, evaluation_threshold
from mdpviz.solvers.sweep import (
    TIE_TOL, Solution, SolverGen, check_count, check_positive, greedy, make_sweep, rows_to_policy,
)


def span(x: np.ndarray) -> float:
    """sp(x) = max_s x(s) - min_s x(s) (pymdptoolbox ``util.getSpan``; 0 for no states)."""
    return float(x.max() - x.min()) if x.size else 0.0


def modified_policy_iteration(
    mdp: TabularMDP,
    *,
    epsilon: float = 0.01,
    evaluation_sweeps: int = 10,
    max_iterations: int = 10_000,
    tie_tol: float = TIE_TOL,
) -> SolverGen:
    """Modified policy iteration exactly as pymdptoolbox's ``PolicyIterationModified`` (defaults: its
    ``epsilon=0.01`` and ``max_iter=10``, here ``evaluation_sweeps``):

    * start: V = 0 with discount 1, else V = R_min / (1 - gamma) in every state, R_min the smallest
      expected reward of any (state, action) (a lower bound of V*, so the values rise; for a cost
      model, objective "min", the largest cost; for a two-player model, 0);
    * each round ("improve" snapshot): V' = max_a Q(s, a) under V and the greedy policy
      (eq. 4.10); stop when sp(V' - V) < epsilon (1 - gamma) / gamma (epsilon when gamma is 1), the
      epsilon-optimal stopping rule; V = V';
    * otherwise ("evaluate" snapshot): up to ``evaluation_sweeps`` sweeps of the greedy policy's
      backup (eq. 4.5) from V, stopping early when the largest change is below
      epsilon (1 - gamma) / gamma (:func:`evaluate_iteratively`).

    pymdptoolbox has no cap on rounds; here ``max_iterations`` (then not ``converged``). The Solution's
    values are the last improvement's V', as pymdptoolbox returns them.
    """
    eps = check_positive("epsilon", epsilon)
    sweeps = check_count("evaluation_sweeps", evaluation_sweeps)
    cap = check_count("max_iterations", max_iterations)
    return _modified(mdp, eps, sweeps, cap, tie_tol)


def _start_values(mdp: TabularMDP) -> np.ndarray:
    """PolicyIterationModified's V_0 (see :func:`modified_policy_iteration`)."""
    gamma = float(mdp.discount)
    v = np.zeros(mdp.n_states)
    if gamma < 1.0 and mdp.n_rows and not mdp.is_two_player:
        worst = float(mdp.row_reward.min()) if mdp.objective == "max" else float(mdp.row_reward.max())
        v[:] = 1.0 / (1.0 - gamma) * worst
        v[mdp.terminal] = 0.0
    return v


def _modified(mdp: TabularMDP, epsilon: float, sweeps: int, cap: int, tie_tol: float) -> SolverGen:
    t0 = time.perf_counter()
    gamma = float(mdp.discount)
    if gamma == 1.0:
        thresh = epsilon
    else:
        thresh = evaluation_threshold(gamma, epsilon)
    live = ~mdp.terminal
    v = read_only(_start_values(mdp))
    policy = None
    variation = math.inf
    for it in range(1, cap + 1):
        nxt, rows = greedy(mdp, mdp.q_values(v), tie_tol=tie_tol)  # the rows go to the evaluation
        new_policy = read_only(rows_to_policy(mdp, rows))
        change = (nxt - v)[live]
        variation = span(change)
        i = int(np.flatnonzero(live)[np.argmax(np.abs(change))]) if change.size else -1
        nxt = read_only(nxt)
        done = variation < thresh
        yield make_sweep(
            method="mpi", phase="improve", iteration=it, values=nxt, old_values=v, policy=new_policy,
            old_policy=policy, elapsed=time.perf_counter() - t0, terminal=mdp.terminal, converged=done,
            delta_override=(variation, float(np.abs(change).mean()) if change.size else 0.0, i),
        )
        v, policy = nxt, new_policy
        if done:
            return Solution("mpi", v, policy, it, True, variation, time.perf_counter() - t0)
        ev, _ = evaluate_iteratively(mdp, rows, v, epsilon, sweeps)
        ev = read_only(ev)
        yield make_sweep(
            method="mpi", phase="evaluate", iteration=it, values=ev, old_values=v, policy=policy,
            old_policy=None, elapsed=time.perf_counter() - t0, terminal=mdp.terminal,
        )
        v = ev
    return Solution("mpi", v, policy, cap, False, variation, time.perf_counter() - t0)


