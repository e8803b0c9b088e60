"""Value iteration exactly as Russell and Norvig's AIMA (figure 17.4) and aima-python run it.

aima-python's ``mdp.value_iteration(mdp, epsilon=0.001)`` (github.com/aimacode/aima-python, ``aima/mdp.py``)
starts from U_0 = 0 in every state, terminal states included, and sweeps synchronously

    U_{k+1}(s) = R(s) + gamma max_a sum_{s'} P(s' | s, a) U_k(s')        (AIMA eq. 17.6)

where a terminal state has no action, so U_k(terminal) = R(terminal) from the first sweep on. It stops
when the largest change delta of a sweep satisfies delta <= epsilon (1 - gamma) / gamma (AIMA eq.
17.8's bound) and returns the values *before* that sweep (``return U``, not ``U1``).

mdpviz compiles an AIMA grid world with terminal states worth 0 and a step into a terminal state paying
R(s) + gamma R(s') (see :mod:`mdpviz.models.gridworld.rules`), so its plain value iteration from V = 0
counts R(s') one sweep earlier than the book: V_k = U_{k+1} on the non-terminal states only when it
starts from V_0 = R(s). This module runs that: sweep 1 yields U_1 = R(s), sweep k >= 2 is value iteration's
sweep k - 1 from R(s), and the stopping rule and returned values are aima-python's. So figure 17.5(a)'s
curves and aima-python's test tables come out digit for digit. R(s) is read off the model: the reward of
a step from s that does not enter a terminal state (every such step pays R(s)), a terminal state's R from
a step into it, (reward - R(s)) / gamma, and for a state whose every step ends the episode (CS188's exit
cells) the reward of those steps (the terminal state it enters, CS188's "exited", worth 0). On a CS188
grid world the sequence is then CS188's own value iteration, with AIMA's stopping rule.
"""
from __future__ import annotations

import math
import time
from dataclasses import replace

import numpy as np

from mdpviz.core.mdp import TabularMDP, read_only
from mdpviz.solvers import registry
from mdpviz.solvers.sweep import (
    TIE_TOL, Solution, SolverGen, check_positive, greedy, greedy_policy, make_sweep, rows_to_policy,
)

EPSILON = 0.001
"""aima-python's default ``epsilon`` of ``value_iteration``."""

METHOD = registry.ids_where("solver", takes="sequence")[0]
"""The method this module's sequence is an option of (the registry line taking ``sequence``: synchronous
value iteration); its snapshots and Solution carry that id."""

REWARD_TOL = 1e-9
"""How far two steps from one state may differ in reward and still be read as one R(s)."""


def state_rewards(mdp: TabularMDP) -> tuple[np.ndarray, np.ndarray]:
    """(R, known): AIMA's reward R(s) of every state read off a model compiled as AIMA's (module
    docstring), and which entries are known (a terminal state that no step enters has none). ValueError
    when the model's rewards are not of that form (a state whose steps pay different rewards): AIMA's
    sequence is defined for rewards R(s) only."""
    n = mdp.n_states
    gamma = float(mdp.discount)
    t_row = np.repeat(np.arange(mdp.n_rows), np.diff(mdp.row_ptr))
    src = np.asarray(mdp.row_state)[t_row]
    dst = np.asarray(mdp.dst)
    rew = np.asarray(mdp.reward, dtype=np.float64)
    into_terminal = mdp.terminal[dst]
    R = np.zeros(n)
    known = np.zeros(n, dtype=bool)
    plain = ~into_terminal
    if plain.any():
        lo = np.full(n, np.inf)
        hi = np.full(n, -np.inf)
        np.minimum.at(lo, src[plain], rew[plain])
        np.maximum.at(hi, src[plain], rew[plain])
        seen = np.isfinite(lo)
        bad = np.flatnonzero(seen & (hi - lo > REWARD_TOL * (1.0 + np.abs(lo))))
        if bad.size:
            s = int(bad[0])
            raise ValueError(f"AIMA's value iteration needs a reward R(s) per state; the steps from state {s} "
                             f"pay different rewards ({lo[s]:g} to {hi[s]:g})")
        R[seen], known[seen] = lo[seen], True
    if gamma > 0 and into_terminal.any():
        ok = known[src] & into_terminal
        R[dst[ok]] = (rew[ok] - R[src[ok]]) / gamma
        known[dst[ok]] = True
    live = ~mdp.terminal & (np.diff(mdp.state_ptr) > 0)
    for s in np.flatnonzero(live & ~known).tolist():
        # every step from s ends the episode (CS188's exit cells, whose "exit" pays their reward): its R(s) is
        # that reward less gamma R(s') of a terminal s' whose R is known, and a terminal reached only so is
        # worth 0 (CS188's "exited" state)
        steps = np.flatnonzero(src == s)
        got = rew[steps] - gamma * np.where(known[dst[steps]], R[dst[steps]], 0.0)
        if got.max() - got.min() > REWARD_TOL * (1.0 + abs(float(got.min()))):
            raise ValueError(f"AIMA's value iteration needs a reward R(s) per state; the steps from state {s} "
                             f"pay different rewards ({got.min():g} to {got.max():g})")
        R[s], known[s] = float(got.min()), True
        known[dst[steps]] = True
    return R, known


def aima_value_iteration(
    mdp: TabularMDP,
    *,
    epsilon: float = EPSILON,
    max_sweeps: int = 100_000,
    tie_tol: float = TIE_TOL,
) -> SolverGen:
    """aima-python's ``value_iteration(mdp, epsilon)`` (module docstring), one snapshot per sweep: sweep
    k's values are U_k on the non-terminal states (the board shows R(s) on the terminal ones, which is
    U_k there for every k >= 1). Stops at the first sweep whose largest change (terminal states
    included, as aima-python counts them) is <= epsilon (1 - gamma) / gamma (with discount 1: no change
    at all); that snapshot is ``converged`` and the Solution's values are the sweep before it, as
    aima-python returns them (``sweeps`` counts the sweeps run). ``epsilon`` > 0; discount 0 is a
    ValueError (the bound divides by gamma). A snapshot's policy is value iteration's (greedy in the
    values the sweep backed up from, see the solver option ``q_from``).
    """
    from mdpviz.solvers.value_iteration import _check, value_iteration

    eps = check_positive("epsilon", epsilon)
    _check(0.0, max_sweeps)
    gamma = float(mdp.discount)
    if gamma <= 0:
        raise ValueError("AIMA's value iteration divides by the discount (epsilon (1 - gamma) / gamma): "
                         "give a discount above 0")
    R, known = state_rewards(mdp)
    return _aima(mdp, R, known, eps * (1.0 - gamma) / gamma, int(max_sweeps), tie_tol, value_iteration)


def _aima(mdp: TabularMDP, R: np.ndarray, known: np.ndarray, bound: float, cap: int, tie_tol: float,
          value_iteration) -> SolverGen:
    """The sweeps of :func:`aima_value_iteration` (``bound``: epsilon (1 - gamma) / gamma)."""
    t0 = time.perf_counter()
    live = ~mdp.terminal
    u1 = read_only(np.where(live, R, 0.0))
    # sweep 1: U_1 = R(s); its change is |R(s)| everywhere, terminal states included (known ones)
    change = np.where(known | live, np.abs(R), 0.0)
    i = int(np.argmax(change)) if change.size else -1
    delta = float(change[i]) if change.size else 0.0
    done = delta <= bound
    zero = read_only(np.zeros(mdp.n_states))
    # sweep 1 backs up from U_0 = 0, terminal states included: every action's sum is 0, a tie everywhere
    policy = read_only(rows_to_policy(mdp, greedy(mdp, np.zeros(mdp.n_rows), tie_tol=tie_tol)[1]))
    yield make_sweep(method=METHOD, phase="sweep", iteration=1, values=u1, old_values=zero, policy=policy,
                     old_policy=None, elapsed=time.perf_counter() - t0, terminal=mdp.terminal, converged=done,
                     delta_override=(delta, float(np.abs(u1)[live].mean()) if live.any() else 0.0, i))
    if done or cap == 1:
        back = zero if done else u1
        return Solution(METHOD, back, _best(mdp, back, tie_tol), 1, done, delta, time.perf_counter() - t0)
    prev = u1
    # delta <= bound is delta < the next float above bound: value iteration's own stopping test
    gen = value_iteration(mdp, tol=float(np.nextafter(bound, math.inf)), max_sweeps=cap - 1, initial=u1,
                          tie_tol=tie_tol)
    k, delta = 1, math.inf
    for sw in gen:
        k, delta = k + 1, sw.delta
        yield replace(sw, iteration=k, elapsed=time.perf_counter() - t0)
        if sw.converged:  # aima-python returns U, the values before this sweep
            return Solution(METHOD, prev, _best(mdp, prev, tie_tol), k, True, delta, time.perf_counter() - t0)
        prev = sw.values
    return Solution(METHOD, prev, _best(mdp, prev, tie_tol), k, False, delta, time.perf_counter() - t0)


def _best(mdp: TabularMDP, values: np.ndarray, tie_tol: float) -> np.ndarray:
    """aima-python's ``best_policy(mdp, U)``: the greedy action of each state under the returned values."""
    return read_only(greedy_policy(mdp, values, tie_tol=tie_tol)[1])
