"""Iterative policy evaluation of a given policy (Sutton and Barto, section 4.1).

Each sweep applies the Bellman expectation backup of the policy pi (Sutton and Barto, eq. 4.5)

    V_{k+1}(s) = sum_a pi(a | s) sum_{s'} p(s' | s, a) [ r(s, a, s') + gamma V_k(s') ]

to every non-terminal state (terminal states stay 0), either from the previous sweep's values
(synchronous, "two arrays": how figure 4.1's V_k are computed) or in place, state by state in index
order, each backup seeing the values already updated in this sweep (Gauss-Seidel, "one array", the
version of the book's boxed algorithm). Values are in the model's reward (or cost) units.
"""
from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Callable

import numpy as np

from mdpviz.core.mdp import TabularMDP, read_only
from mdpviz.solvers.sweep import TIE_TOL, Solution, SolverGen, greedy_policy, make_sweep, policy_to_rows

if TYPE_CHECKING:  # pragma: no cover
    import scipy.sparse as sp

PROB_TOL = 1e-9
"""How far a stochastic policy's probabilities in a state may sum from 1."""


def uniform_policy(mdp: TabularMDP) -> np.ndarray:
    """float64 (n_states, n_actions): the equiprobable random policy, 1/k on each of a state's k legal
    actions (Sutton and Barto's example 4.1); rows of terminal states are 0."""
    probs = np.zeros((mdp.n_states, mdp.n_actions))
    k = np.maximum(mdp.actions_per_state, 1)
    probs[mdp.row_state, mdp.row_action] = 1.0 / k[mdp.row_state]
    probs[mdp.terminal] = 0.0
    return probs


def policy_weights(mdp: TabularMDP, policy: str | np.ndarray) -> "sp.csr_matrix":
    """The (n_states x n_rows) row weights W of ``policy``: "random" (:func:`uniform_policy`), an action
    id per state (int array of n_states; terminal entries ignored), or action probabilities
    (n_states x n_actions). ValueError naming what does not fit the model: the length or shape, an
    action that is not legal in its state, a probability on an illegal action, negative or not
    finite probabilities, or a state whose probabilities do not sum to 1."""
    from mdpviz.solvers.policy_iteration import row_weights_deterministic, row_weights_stochastic

    if isinstance(policy, str):
        if policy != "random":
            raise ValueError(f"policy must be 'random', an action per state or a (states x actions) matrix, got {policy!r}")
        return row_weights_stochastic(mdp, uniform_policy(mdp))
    arr = np.asarray(policy)
    if arr.ndim == 1:
        if arr.size != mdp.n_states:
            raise ValueError(f"policy has {arr.size} entries for {mdp.n_states} states")
        if arr.dtype.kind not in "iu":
            if arr.dtype.kind != "f" or not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
                raise ValueError(f"a deterministic policy holds an action id (a whole number) per state, got {arr[:5].tolist()}")
        return row_weights_deterministic(mdp, policy_to_rows(mdp, arr.astype(np.int64)))
    if arr.ndim != 2 or arr.shape != (mdp.n_states, mdp.n_actions):
        raise ValueError(f"a stochastic policy must have shape ({mdp.n_states}, {mdp.n_actions}) "
                         f"(states x actions), got {arr.shape}")
    probs = arr.astype(np.float64)
    if not np.all(np.isfinite(probs)) or np.any(probs < 0):
        s, a = np.argwhere(~np.isfinite(probs) | (probs < 0))[0]
        raise ValueError(f"state {s}: probability {float(probs[s, a])!r} of action {a} is not a number in [0, 1]")
    legal = np.zeros_like(probs, dtype=bool)
    legal[mdp.row_state, mdp.row_action] = True
    off = (probs > 0) & ~legal & ~mdp.terminal[:, None]
    if off.any():
        s, a = np.argwhere(off)[0]
        raise ValueError(f"state {s}: probability {probs[s, a]:.6g} on action {a}, which is not one of its "
                         f"legal actions {[int(x) for x in mdp.actions_of(s)]}")
    return row_weights_stochastic(mdp, probs)


def policy_evaluation(
    mdp: TabularMDP,
    *,
    policy: str | np.ndarray = "random",
    in_place: bool = False,
    tol: float = 1e-9,
    max_sweeps: int = 100_000,
    initial: np.ndarray | None = None,
    tie_tol: float = TIE_TOL,
) -> SolverGen:
    """Iterative policy evaluation (Sutton and Barto section 4.1, eq. 4.5), one snapshot per sweep.

    ``policy``: "random" (the equiprobable policy of example 4.1), an action id per state, or a
    (n_states x n_actions) matrix of action probabilities (see :func:`policy_weights`; a policy that
    does not fit the model is a ValueError). ``in_place=False``: synchronous sweeps from V_k, so sweep
    k yields figure 4.1's V_k; ``in_place=True``: Gauss-Seidel in state order. Starts from V = 0 (or
    ``initial``); stops when the largest change of a sweep is below ``tol`` (``converged``) or after
    ``max_sweeps``. With discount 1 a policy that may loop for ever collecting a non-zero reward has no
    finite value: :class:`~mdpviz.solvers.policy_iteration.ImproperPolicyError` naming the states,
    before any sweep; a loop that collects nothing is worth 0 (:func:`free_loops_end`).

    A snapshot's ``policy`` is the greedy policy of its own values (figure 4.1's right-hand column:
    the policy one improvement step would pick), not the evaluated one; so is the Solution's.
    """
    from mdpviz.solvers.policy_iteration import chain_of_weights
    from mdpviz.solvers.value_iteration import _check, _initial_values

    _check(tol, max_sweeps)
    P_pi, r_pi = chain_of_weights(mdp, policy_weights(mdp, policy), proper=False)
    P_pi.sum_duplicates()
    v0 = _initial_values(mdp, initial)
    if mdp.discount >= 1.0:
        P_pi, r_pi, v0 = free_loops_end(mdp, P_pi, r_pi, v0)  # ImproperPolicyError where V has no finite value
    return _sweeps(mdp, P_pi, r_pi, bool(in_place), float(tol), int(max_sweeps), v0, tie_tol)


def free_loops_end(mdp: TabularMDP, P_pi: "sp.csr_matrix", r_pi: np.ndarray,
                   v0: np.ndarray) -> tuple["sp.csr_matrix", np.ndarray, np.ndarray]:
    """The chain of a policy at discount 1 with its free loops ended: ImproperPolicyError (naming them)
    when some states can reach a closed class without a terminal state that collects a non-zero reward
    (their total reward diverges or never settles, so eq. 4.5's sweeps would run for ever:
    bettermdptools #19); the states of closed classes that collect nothing are worth exactly 0 and are
    treated as terminal (their rows emptied, V = 0), so the sweeps converge to that answer. A policy
    that ends from every state is returned as it is."""
    import scipy.sparse as sp

    from mdpviz.solvers.policy_iteration import _zero_reward_classes

    free = _zero_reward_classes(mdp, P_pi, r_pi)
    if not free.any():
        return P_pi, r_pi, v0
    keep = sp.diags((~free).astype(np.float64))
    v = np.array(v0, dtype=np.float64)
    v[free] = 0.0
    return (keep @ P_pi).tocsr(), np.where(free, 0.0, r_pi), read_only(v)


def in_place_sweep(mdp: TabularMDP, P_pi: "sp.csr_matrix", r_pi: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """The Gauss-Seidel sweep of eq. 4.5 in state order, vectorised: with P_pi = L + U (L strictly below
    the diagonal, the states already updated in this sweep), the sweep's new values solve the
    triangular system (I - gamma L) new = r_pi + gamma U v, one sparse triangular solve (scipy) per
    sweep instead of a Python step per state. Terminal states stay 0. Returns ``v -> new``."""
    import scipy.sparse as sp
    from scipy.sparse.linalg import spsolve_triangular

    gamma = float(mdp.discount)
    live = sp.diags((~mdp.terminal).astype(np.float64))
    P_live = (live @ P_pi).tocsr()
    r_live = np.where(mdp.terminal, 0.0, r_pi)
    lower = (sp.identity(mdp.n_states, format="csr") - gamma * sp.tril(P_live, k=-1)).tocsr()
    lower.sort_indices()
    upper = (gamma * sp.triu(P_live, k=0)).tocsr()
    return lambda v: spsolve_triangular(lower, r_live + upper @ v, lower=True, unit_diagonal=True)


def _sweeps(mdp: TabularMDP, P_pi: "sp.csr_matrix", r_pi: np.ndarray, in_place: bool, tol: float, max_sweeps: int,
            v0: np.ndarray, tie_tol: float) -> SolverGen:
    """The sweeps of :func:`policy_evaluation` of the chain (P_pi, r_pi) from ``v0``."""
    from mdpviz.solvers.policy_iteration import expectation_sweep

    gauss_seidel = in_place_sweep(mdp, P_pi, r_pi) if in_place else None
    t0 = time.perf_counter()
    v = read_only(v0)
    n_live = max(1, int(np.count_nonzero(~mdp.terminal)))
    old_policy = None
    delta = math.inf
    policy_k = read_only(np.full(mdp.n_states, -1, dtype=np.int64))
    for it in range(1, max_sweeps + 1):
        new = read_only(gauss_seidel(v) if gauss_seidel is not None else expectation_sweep(mdp, P_pi, r_pi, v))
        policy_k = read_only(greedy_policy(mdp, new, tie_tol=tie_tol)[1])
        diff = np.abs(new - v)
        i = int(np.argmax(diff)) if diff.size else -1
        delta = float(diff[i]) if diff.size else 0.0
        done = delta < tol
        yield make_sweep(
            method="evaluate", phase="sweep", iteration=it, values=new, old_values=v, policy=policy_k,
            old_policy=old_policy, elapsed=time.perf_counter() - t0, terminal=mdp.terminal, converged=done,
            delta_override=(delta, float(diff.sum()) / n_live, i), q_from="current",
        )
        v, old_policy = new, policy_k
        if done:
            return Solution("evaluate", v, policy_k, it, True, delta, time.perf_counter() - t0)
    return Solution("evaluate", v, policy_k, max_sweeps, False, delta, time.perf_counter() - t0)
