"""Relative value iteration for the average-reward criterion, as pymdptoolbox (4.0b3) defines it.

The average reward per step (the gain g) and the bias h of a continuing model solve Bellman's
average-reward equation (Puterman, *Markov Decision Processes*, eq. 8.4.1; Sutton and Barto
section 10.3)

    g + h(s) = max_a [ r(s, a) + sum_{s'} p(s' | s, a) h(s') ]

which fixes h only up to a constant. Relative value iteration backs up without discounting and
subtracts, at each step, the value of one reference state, so the values stay bounded and converge to
the bias with h(reference) = g (Puterman section 8.5.5).
"""
from __future__ import annotations

import math
import time

import numpy as np

from mdpviz.core.mdp import TabularMDP, read_only
from mdpviz.solvers.modified_policy_iteration import span
from mdpviz.solvers.sweep import (
    TIE_TOL, Solution, SolverGen, check_count, check_positive, greedy, make_sweep, rows_to_policy,
)


def relative_value_iteration(
    mdp: TabularMDP,
    *,
    epsilon: float = 0.01,
    max_iterations: int = 1_000,
    reference: int | None = None,
    tie_tol: float = TIE_TOL,
) -> SolverGen:
    """Relative value iteration exactly as pymdptoolbox's ``RelativeValueIteration`` (its defaults
    ``epsilon=0.01``, ``max_iter=1000``). From h = 0 and g_ref = 0, each step:

        h'(s) = max_a [ r(s, a) + sum_s' p(s' | s, a) h(s') ] - g_ref       (undiscounted: the model's
                                                                            discount is not used)

    with the greedy policy; it stops when sp(h' - h) < ``epsilon`` or after ``max_iterations`` steps;
    then h = h' and g_ref = h(``reference``) (default: the last state, as pymdptoolbox).

    Each snapshot carries the values h' (the bias, in reward units) and ``gain`` = g_ref + min_s
    (h' - h)(s) (reward per step), the lower bound of the average reward that pymdptoolbox reports as
    ``average_reward`` when it stops; the Solution carries the last one. Only for continuing models:
    a model with terminal states (an average reward of 0 once it ends) is a ValueError.
    """
    eps = check_positive("epsilon", epsilon)
    cap = check_count("max_iterations", max_iterations)
    if mdp.terminal.any():
        raise ValueError("relative value iteration is for continuing models (average reward per step); this "
                         f"model has {int(mdp.terminal.sum())} terminal state(s): use a discounted or "
                         "total-reward method")
    ref = mdp.n_states - 1 if reference is None else int(reference)
    if not 0 <= ref < mdp.n_states:
        raise ValueError(f"reference state {reference} is out of range 0..{mdp.n_states - 1}")
    return _relative(mdp, eps, cap, ref, tie_tol)


def _relative(mdp: TabularMDP, epsilon: float, cap: int, ref: int, tie_tol: float) -> SolverGen:
    t0 = time.perf_counter()
    h = read_only(np.zeros(mdp.n_states))
    g_ref = 0.0
    policy = None
    gain = math.nan
    variation = math.inf
    for it in range(1, cap + 1):
        q = mdp.row_reward + mdp.matrix @ h
        nxt, rows = greedy(mdp, q, tie_tol=tie_tol)
        nxt = read_only(nxt - g_ref)
        new_policy = read_only(rows_to_policy(mdp, rows))
        change = nxt - h
        variation = span(change)
        gain = g_ref + float(change.min())
        done = variation < epsilon
        i = int(np.argmax(np.abs(change)))
        yield make_sweep(
            method="rvi", phase="sweep", iteration=it, values=nxt, old_values=h, policy=new_policy,
            old_policy=policy, elapsed=time.perf_counter() - t0, terminal=mdp.terminal, converged=done,
            delta_override=(variation, float(np.abs(change).mean()), i), gain=gain,
        )
        h, policy = nxt, new_policy
        g_ref = float(h[ref])
        if done:
            return Solution("rvi", h, policy, it, True, variation, time.perf_counter() - t0, gain=gain)
    return Solution("rvi", h, policy, cap, False, variation, time.perf_counter() - t0, gain=gain)
