"""Howard policy iteration and policy evaluation (exact or by k sweeps).

Policy evaluation solves the linear Bellman expectation equation (Sutton and Barto, eq. 4.4)

    V_pi = r_pi + gamma P_pi V_pi      on the non-terminal states (terminal states have V = 0)

and policy improvement takes the greedy policy of Q_pi (eq. 4.9), ties to the lowest action.
With discount 1 a policy that does not reach a terminal state with probability 1 has no finite
value; :class:`ImproperPolicyError` names the states where that happens instead of returning a
singular solve, NaN or an endless loop.

:func:`iterative_policy_iteration` is pymdptoolbox's ``PolicyIteration(eval_type=1)``: evaluation
by sweeps of the expectation backup (eq. 4.5) from V = 0 to a tolerance (:func:`evaluate_iteratively`,
shared with modified policy iteration), reached as ``policy_iteration(..., evaluation="iterative")``.
"""
from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

import numpy as np

from mdpviz.core.mdp import TabularMDP, read_only
from mdpviz.solvers.endless import ZERO_REWARD_TOL, infinite_states, name_states
from mdpviz.solvers.sweep import (  # noqa: F401  (check_count, check_positive: used here, imported from here)
    TIE_TOL, Solution, SolverGen, check_count, check_positive, greedy, make_sweep, policy_to_rows, rows_to_policy,
)

if TYPE_CHECKING:  # pragma: no cover
    import scipy.sparse as sp

DIRECT_SOLVE_MAX_STATES = 2_000
"""Up to this many states policy evaluation uses a sparse LU solve; above, BiCGSTAB with an LU
fallback (LU of a random sparse transition graph fills in catastrophically: 84 s at 10^4 states)."""


class ImproperPolicyError(ValueError):
    """With discount 1, the evaluated policy never reaches a terminal state from some states."""

    def __init__(self, states: np.ndarray, mdp: TabularMDP) -> None:
        self.states = np.asarray(states)
        super().__init__(
            "policy evaluation with discount 1: from state(s) "
            f"{name_states(mdp, self.states)} the policy never reaches a terminal state, so the "
            "expected total reward is not finite; use a discount below 1 or another policy"
        )


def row_weights_deterministic(mdp: TabularMDP, rows: np.ndarray) -> sp.csr_matrix:
    """The (n_states x n_rows) matrix W that picks row ``rows[s]`` in state s (terminal: none)."""
    import scipy.sparse as sp

    live = rows >= 0
    s = np.flatnonzero(live)
    return sp.csr_matrix((np.ones(s.size), (s, rows[live])), shape=(mdp.n_states, mdp.n_rows))


def row_weights_stochastic(mdp: TabularMDP, probs: np.ndarray) -> sp.csr_matrix:
    """W for a stochastic policy: ``probs[s, a]`` is the probability of action a in state s.

    Each non-terminal state's probabilities must be >= 0, sum to 1 and lie on legal actions.
    """
    import scipy.sparse as sp

    probs = np.asarray(probs, dtype=np.float64)
    if probs.shape != (mdp.n_states, mdp.n_actions):
        raise ValueError(f"a stochastic policy must have shape ({mdp.n_states}, {mdp.n_actions}), got {probs.shape}")
    if np.any(probs < 0) or not np.all(np.isfinite(probs)):
        raise ValueError("policy probabilities must be finite and >= 0")
    w = probs[mdp.row_state, mdp.row_action]
    legal_sum = np.bincount(mdp.row_state, weights=w, minlength=mdp.n_states)
    bad = np.flatnonzero(~mdp.terminal & (np.abs(legal_sum - 1.0) > 1e-9))
    if bad.size:
        s = bad[0]
        raise ValueError(
            f"state {s}: the policy's probabilities over its legal actions sum to {legal_sum[s]:.6g}, not 1"
        )
    w = np.where(mdp.terminal[mdp.row_state], 0.0, w)
    return sp.csr_matrix((w, (mdp.row_state, np.arange(mdp.n_rows))), shape=(mdp.n_states, mdp.n_rows))


def _reaches_terminal(mdp: TabularMDP, P_pi: sp.csr_matrix | np.ndarray) -> np.ndarray:
    """bool (n_states): the chain P_pi (scipy CSR or dense) reaches a terminal state with positive probability.

    A breadth-first search backwards from the terminal states over the edges of positive
    probability, one frontier per numpy step (graph reachability only, no arithmetic on the
    probabilities; scipy's csgraph, which costs its import on the CLI's path, is not needed).
    """
    n = mdp.n_states
    seen = mdp.terminal.copy()
    if not seen.any():
        return np.zeros(n, dtype=bool)
    if isinstance(P_pi, np.ndarray):  # the dense chain of the small-model path
        src, dst = np.nonzero(P_pi > 0)
    else:
        indptr = np.asarray(P_pi.indptr)
        keep = np.asarray(P_pi.data) > 0
        src = np.repeat(np.arange(n), np.diff(indptr))[keep]
        dst = np.asarray(P_pi.indices)[keep]
    order = np.argsort(dst, kind="stable")
    pred = src[order]  # the predecessors of state t are pred[ptr[t]:ptr[t + 1]]
    ptr = np.searchsorted(dst[order], np.arange(n + 1))
    frontier = np.flatnonzero(seen)
    while frontier.size:
        starts = ptr[frontier]
        counts = ptr[frontier + 1] - starts
        total = int(counts.sum())
        if total == 0:
            break
        ends = np.cumsum(counts)
        at = np.repeat(starts - (ends - counts), counts) + np.arange(total)
        cand = pred[at]
        cand = np.sort(cand[~seen[cand]])
        # distinct states (np.unique would import numpy.ma, ~30 ms of the CLI's start)
        frontier = cand[np.r_[True, cand[1:] != cand[:-1]]] if cand.size else cand
        seen[frontier] = True
    return seen


def _solve_acyclic(Q: sp.csr_matrix, b: np.ndarray, gamma: float) -> np.ndarray | None:
    """Solve x = b + gamma Q x exactly when the chain Q (live states only) has no cycle.

    Kahn's algorithm in vectorised layers: states with no live successor are solved first, then
    the states whose successors are all solved, and so on (a game's chain is acyclic: every move
    fills a cell or counts a ply). Returns None as soon as a layer is empty while states remain,
    i.e. at the first sign of a cycle, after one sparse product.
    """
    n = b.size
    struct = Q.copy()
    struct.data = (struct.data > 0).astype(np.float64)
    struct.eliminate_zeros()
    outdeg = np.diff(struct.indptr).astype(np.float64)
    remaining = np.ones(n, dtype=bool)
    x = np.zeros(n)
    while remaining.any():
        layer = np.flatnonzero(remaining & (outdeg == 0))
        if layer.size == 0:
            return None
        x[layer] = b[layer] + gamma * (Q[layer] @ x)
        remaining[layer] = False
        hit = np.zeros(n)
        hit[layer] = 1.0
        outdeg -= struct @ hit
    return x


def _zero_reward_classes(mdp: TabularMDP, P_pi: sp.csr_matrix, r_pi: np.ndarray) -> np.ndarray:
    """bool (n_states): the states of the chain's closed classes without a terminal state (it never
    ends there: :mod:`mdpviz.solvers.endless`), when every such class has zero expected reward per step.

    Their total reward is exactly 0 (nothing is ever collected), so with discount 1 they act as
    terminal states. A class with a non-zero reward has an infinite (or undefined) total reward:
    ImproperPolicyError names every state that can reach one (their values have no finite answer).
    """
    infinite, free = infinite_states(P_pi, r_pi, mdp.terminal)
    if infinite.any():
        raise ImproperPolicyError(np.flatnonzero(infinite), mdp)
    return free


def evaluate_weights(
    mdp: TabularMDP,
    W: sp.csr_matrix,
    *,
    x0: np.ndarray | None = None,
    rewards: np.ndarray | None = None,
    discount: float | None = None,
    zero_loops: bool = False,
) -> np.ndarray:
    """Exact value of the policy with row weights W: solve (I - gamma P_pi) V = r_pi.

    ``rewards`` (n_rows) replaces the model's expected row rewards and ``discount`` its discount
    (used to compute other quantities of the same chain, e.g. outcome probabilities).
    With discount 1 a policy that never reaches a terminal state from some states raises
    :class:`ImproperPolicyError`, unless ``zero_loops``: then a closed class of such states that
    collects zero reward per step is worth exactly 0 (only classes with a non-zero reward raise).
    Returns float64 (n_states).
    """
    import scipy.sparse as sp

    n = mdp.n_states
    gamma = mdp.discount if discount is None else float(discount)
    P_pi = (W @ mdp.matrix).tocsr()
    P_pi.sum_duplicates()
    r_pi = W @ (mdp.row_reward if rewards is None else np.asarray(rewards, dtype=np.float64))
    live = ~mdp.terminal
    if gamma >= 1.0:
        ok = _reaches_terminal(mdp, P_pi) | mdp.terminal
        if not ok.all():
            if not zero_loops:
                raise ImproperPolicyError(np.flatnonzero(~ok), mdp)
            live = live & ~_zero_reward_classes(mdp, P_pi, r_pi)
    idx = np.flatnonzero(live)
    v = np.zeros(n)
    if idx.size == 0:
        return v
    import scipy.sparse.linalg as spla  # imported on first use: ``mdpviz --help`` never needs it

    Q = P_pi[idx][:, idx].tocsr()
    b = r_pi[idx]
    x = None
    if idx.size > DIRECT_SOLVE_MAX_STATES:
        x = _solve_acyclic(Q, b, gamma)  # games: exact, one layer at a time; None if the chain has a cycle
    A = sp.identity(idx.size, format="csr") - gamma * Q
    if x is None and idx.size > DIRECT_SOLVE_MAX_STATES:
        guess = None if x0 is None else np.asarray(x0, dtype=np.float64)[idx]
        scale = max(1.0, float(np.abs(b).max()))
        for _ in range(3):  # restarts from the last iterate before giving up on the iterative solve
            # BiCGSTAB's vector operations go through BLAS; on a shared 2-core machine OpenBLAS's
            # threads make them 5x slower (2.3 s vs 0.47 s for policy iteration at 10^5 states).
            from threadpoolctl import threadpool_limits

            with threadpool_limits(limits=1, user_api="blas"):
                x, info = spla.bicgstab(A, b, x0=guess, rtol=1e-12, atol=0.0, maxiter=1_000)
            if np.all(np.isfinite(x)) and np.abs(A @ x - b).max() <= 1e-9 * scale:
                break
            guess = x if np.all(np.isfinite(x)) else None
            x = None
    if x is None:
        x = spla.spsolve(A.tocsc(), b)
    if not np.all(np.isfinite(x)):
        raise ValueError("policy evaluation failed: the linear system is singular")
    v[idx] = x
    return v


LINEAR_SOLVERS = ("superlu", "lapack")
"""Policy evaluation's linear solvers: "superlu", scipy's sparse LU (the default, used by everything
that prints full-precision values), or "lapack", numpy's dense LU on small models
(:data:`LAPACK_MAX_STATES`), which imports no scipy: importing scipy.sparse and its LU costs about
twice numpy's own import, most of ``mdpviz plan``'s start (issue 15). ``mdpviz plan`` prints V to
6 decimals and uses "lapack". Both solve the same system and agree to rounding (about 1e-15
relative), not bit for bit, so full-precision outputs (JSON, CSV, the window) keep "superlu"."""

LAPACK_MAX_STATES = 500
"""Largest model (states) the "lapack" linear solver evaluates densely; larger ones use SuperLU."""

LAPACK_MAX_ENTRIES = 1_000_000
"""Largest dense transition matrix (rows x states) of the "lapack" linear solver."""


def dense_matrix(mdp: TabularMDP) -> np.ndarray:
    """float64 (n_rows x n_states): the transition matrix P dense, duplicate transitions summed."""
    P = np.zeros((mdp.n_rows, mdp.n_states))
    np.add.at(P, (np.repeat(np.arange(mdp.n_rows), np.diff(mdp.row_ptr)), mdp.dst), mdp.prob)
    return P


def _dense_chain(mdp: TabularMDP, P: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """P_pi (n_states x n_states) and r_pi (n_states) of the deterministic policy ``rows`` (-1: none)."""
    live = rows >= 0
    P_pi = np.zeros((mdp.n_states, mdp.n_states))
    P_pi[live] = P[rows[live]]
    r_pi = np.zeros(mdp.n_states)
    r_pi[live] = mdp.row_reward[rows[live]]
    return P_pi, r_pi


def _evaluate_dense(mdp: TabularMDP, P: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """:func:`evaluate_weights` of the deterministic policy ``rows`` by a dense LU solve (LAPACK):
    the same system (I - gamma P_pi) V = r_pi on the non-terminal states, the same refusals."""
    P_pi, r_pi = _dense_chain(mdp, P, rows)
    if mdp.discount >= 1.0:
        ok = _reaches_terminal(mdp, P_pi) | mdp.terminal
        if not ok.all():
            raise ImproperPolicyError(np.flatnonzero(~ok), mdp)
    idx = np.flatnonzero(~mdp.terminal)
    v = np.zeros(mdp.n_states)
    if idx.size == 0:
        return v
    A = np.eye(idx.size) - mdp.discount * P_pi[np.ix_(idx, idx)]
    try:
        x = np.linalg.solve(A, r_pi[idx])
    except np.linalg.LinAlgError:
        x = None
    if x is None or not np.all(np.isfinite(x)):
        raise ValueError("policy evaluation failed: the linear system is singular")
    v[idx] = x
    return v


def hitting_probabilities(mdp: TabularMDP, W: sp.csr_matrix, targets: np.ndarray) -> np.ndarray:
    """Probability of ending in each terminal state of ``targets`` from every state (n_states x k).

    The chain is the policy with row weights W (see :func:`row_weights_deterministic`,
    :func:`row_weights_stochastic`); exact linear solves, no sampling. Used for exact win / draw /
    loss probabilities. Raises ImproperPolicyError if some state never reaches a terminal state.
    """
    targets = np.asarray(targets, dtype=np.int64).ravel()
    if not np.all(mdp.terminal[targets]):
        raise ValueError("hitting probabilities are computed for terminal states only")
    out = np.zeros((mdp.n_states, targets.size))
    for j, t in enumerate(targets):
        ind = np.zeros(mdp.n_states)
        ind[t] = 1.0
        out[:, j] = evaluate_weights(mdp, W, rewards=mdp.matrix @ ind, discount=1.0)
        out[t, j] = 1.0
    return out


def evaluate_policy(mdp: TabularMDP, policy: np.ndarray) -> np.ndarray:
    """Exact value of a deterministic policy (action id per state; terminal entries ignored)."""
    return evaluate_weights(mdp, row_weights_deterministic(mdp, policy_to_rows(mdp, policy)))


def evaluate_stochastic_policy(mdp: TabularMDP, probs: np.ndarray) -> np.ndarray:
    """Exact value of a stochastic policy given as (n_states x n_actions) action probabilities."""
    return evaluate_weights(mdp, row_weights_stochastic(mdp, probs))


def proper_policy_rows(mdp: TabularMDP, *, strict: bool = True, matrix: np.ndarray | None = None) -> np.ndarray:
    """Rows of a policy that reaches a terminal state with probability 1 from every state.

    Backward breadth-first layers from the terminal states: a state of layer d+1 takes its lowest
    action with positive probability of moving into layers <= d. Raises ImproperPolicyError when
    some states cannot reach a terminal state whatever the actions (``strict=False``: their row
    is -1 instead). ``matrix``: P as a dense array (:func:`dense_matrix`) instead of ``mdp.matrix``
    (only which products are positive matters here: the same rows either way).
    """
    n = mdp.n_states
    reached = mdp.terminal.copy()
    rows = np.full(n, -1, dtype=np.int64)
    P = mdp.matrix if matrix is None else matrix
    while True:
        hit = (P @ reached.astype(np.float64)) > 0
        cand = hit & ~reached[mdp.row_state]
        if not cand.any():
            break
        r = np.flatnonzero(cand)
        s = mdp.row_state[r]
        first = np.r_[True, s[1:] != s[:-1]]
        rows[s[first]] = r[first]
        reached[s[first]] = True
    if strict and not reached.all():
        raise ImproperPolicyError(np.flatnonzero(~reached), mdp)
    return rows


def _initial_rows(mdp: TabularMDP, initial_policy: np.ndarray | None, dense: np.ndarray | None = None) -> np.ndarray:
    if initial_policy is not None:
        return policy_to_rows(mdp, initial_policy)
    rows = np.where(mdp.terminal | (mdp.actions_per_state == 0), -1, mdp.state_ptr[:-1]).astype(np.int64)
    if mdp.discount >= 1.0:
        if dense is None:
            P_pi = (row_weights_deterministic(mdp, rows) @ mdp.matrix).tocsr()
        else:
            P_pi = _dense_chain(mdp, dense, rows)[0]
        ok = _reaches_terminal(mdp, P_pi) | mdp.terminal
        if not ok.all():
            fix = proper_policy_rows(mdp, strict=False, matrix=dense)  # -1 where no action ever reaches a terminal
            change = ~ok & (fix >= 0)
            rows[change] = fix[change]
    return rows


def endless_states(mdp: TabularMDP, *, matrix: np.ndarray | None = None) -> np.ndarray:
    """bool (n_states): states from which some policy avoids every terminal state forever.

    The largest set of non-terminal states in which each state has an action whose successors
    all lie in the set (a greatest fixed point). Empty: every policy is proper (reaches a terminal
    state with probability 1), the stochastic-shortest-path setting where, with discount 1, value
    iteration, policy iteration and linear programming all give the same exact answer.
    ``matrix``: P as a dense array instead of ``mdp.matrix`` (as in :func:`proper_policy_rows`).
    """
    inside = ~mdp.terminal.copy()
    P = mdp.matrix if matrix is None else matrix
    while True:
        leak = P @ (~inside).astype(np.float64)  # probability of leaving the set, per row
        row_ok = (leak <= 0) & inside[mdp.row_state]
        keep = np.bincount(mdp.row_state[row_ok], minlength=mdp.n_states) > 0
        if np.array_equal(keep, inside):
            return inside
        inside = keep


def loop_rows(mdp: TabularMDP, endless: np.ndarray, *, matrix: np.ndarray | None = None) -> np.ndarray:
    """Rows that keep play inside ``endless`` (every successor in it): the moves of a loop."""
    leak = (mdp.matrix if matrix is None else matrix) @ (~endless).astype(np.float64)
    return np.flatnonzero(endless[mdp.row_state] & (leak <= 0))


def harmless_loops(mdp: TabularMDP, endless: np.ndarray | None = None, *, matrix: np.ndarray | None = None) -> np.ndarray:
    """Loop rows whose expected reward does not hurt the player choosing them (reward >= 0 for a
    maximiser, cost <= 0 for a minimiser). None of them: every improper policy loses an infinite
    amount, so (with discount 1) the optimal policy is proper and V* is the unique solution of
    Bellman's equation (Bertsekas and Tsitsiklis' stochastic shortest path assumptions)."""
    endless = endless_states(mdp, matrix=matrix) if endless is None else endless
    rows = loop_rows(mdp, endless, matrix=matrix)
    return rows[mdp.sense[mdp.row_state[rows]] * mdp.row_reward[rows] >= -ZERO_REWARD_TOL]


def progress_rows(mdp: TabularMDP, q: np.ndarray, best: np.ndarray, rows: np.ndarray, *, tie_tol: float = TIE_TOL) -> np.ndarray:
    """Greedy rows ``rows`` with ties broken towards ending the game (discount 1).

    With discount 1 a free loop can tie with the optimal way out (Q(loop) = 0 + V*(s) = V*(s)),
    and the lowest tied action may be the loop: a policy worth 0, not V*. Backward layers from
    the terminal states over the optimal rows (Q within ``tie_tol`` of ``best``) give each state
    that never ends under ``rows`` but can end optimally its lowest optimal row that moves one
    layer closer; every other state keeps its row (so ties still go to the lowest action).
    """
    rows = np.asarray(rows, dtype=np.int64)
    P_pi = (row_weights_deterministic(mdp, rows) @ mdp.matrix).tocsr()
    stuck = ~(_reaches_terminal(mdp, P_pi) | mdp.terminal)
    if not stuck.any():
        return rows
    s_of = mdp.row_state
    b = best[s_of]
    optimal = mdp.sense[s_of] * (q - b) >= -tie_tol * (1.0 + np.abs(b))
    reached = mdp.terminal.copy()
    out = np.asarray(rows, dtype=np.int64).copy()
    P = mdp.matrix
    while True:
        hit = (P @ reached.astype(np.float64)) > 0
        cand = optimal & hit & ~reached[s_of]
        if not cand.any():
            return out
        r = np.flatnonzero(cand)
        s = s_of[r]
        first = np.r_[True, s[1:] != s[:-1]]
        change = s[first][stuck[s[first]]]
        out[change] = r[first][stuck[s[first]]]
        reached[s[first]] = True


def _value_iteration_from_zero(mdp: TabularMDP, *, tol: float = 1e-12, max_sweeps: int = 100_000) -> np.ndarray | None:
    """V* by plain synchronous value iteration from V = 0, or None if it does not settle.

    With discount 1 and harmless loops, Bellman's equation has many solutions; iteration from 0
    converges to the optimal total reward (Puterman, sections 7.2-7.3), the one every policy can
    be compared with.
    """
    v = np.zeros(mdp.n_states)
    for _ in range(max_sweeps):
        new, _ = greedy(mdp, mdp.q_values(v))
        new[mdp.terminal] = 0.0
        if np.max(np.abs(new - v), initial=0.0) <= tol * (1.0 + np.max(np.abs(new), initial=0.0)):
            return new
        v = new
    return None


def policy_iteration(
    mdp: TabularMDP,
    *,
    initial_policy: np.ndarray | None = None,
    evaluation_sweeps: int | None = None,
    tol: float = 1e-9,
    max_iterations: int = 10_000,
    tie_tol: float = TIE_TOL,
    linear_solver: str = "superlu",
    evaluation: str = "exact",
    epsilon: float = 1e-4,
) -> SolverGen:
    """Howard policy iteration, yielding each half-step: an "evaluate" then an "improve" snapshot.

    ``evaluation="iterative"`` runs pymdptoolbox's ``PolicyIteration(eval_type=1)`` instead
    (:func:`iterative_policy_iteration`: its starting
    policy, evaluation by sweeps from V = 0 to ``epsilon`` (1 - gamma) / gamma, its stopping rule). It is
    an option of "pi" rather than a method of its own because it is the same algorithm with another
    evaluation step, and pymdptoolbox itself makes it an option (``eval_type``) of one class; the
    options of the exact path (``evaluation_sweeps``, ``linear_solver``, ``tol``) do not apply to it.

    Evaluation is exact (sparse linear solve) by default, or ``evaluation_sweeps`` = k sweeps of
    the expectation backup from the previous values (k fixed sweeps per evaluation; pymdptoolbox's
    modified policy iteration, with its epsilon-based evaluation stop and its starting values, is the
    method "mpi" of :mod:`mdpviz.solvers.modified_policy_iteration`). ``linear_solver="lapack"`` evaluates small models (:data:`LAPACK_MAX_STATES`)
    with dense numpy arrays and LAPACK instead of scipy's sparse LU (see :data:`LINEAR_SOLVERS`;
    a model with free loops and discount 1 keeps the sparse path). Improvement is greedy, keeping
    the current action where it ties with the best (Howard's rule) and otherwise breaking ties to the lowest action. Stops when an improvement
    changes no action (and, with k-sweep evaluation, the Bellman residual is below ``tol``).
    The initial policy is the lowest action of every state; with discount 1, states where that
    never reaches a terminal state get an action of a proper policy (:func:`proper_policy_rows`).
    """
    if evaluation == "iterative":
        if evaluation_sweeps is not None:
            raise ValueError("evaluation_sweeps is an option of exact evaluation; iterative evaluation stops "
                             "at epsilon (1 - gamma) / gamma")
        return (yield from iterative_policy_iteration(mdp, initial_policy=initial_policy, epsilon=epsilon,
                                                      max_iterations=max_iterations, tie_tol=tie_tol))
    if evaluation != "exact":
        raise ValueError(f"evaluation must be 'exact' or 'iterative', got {evaluation!r}")
    if evaluation_sweeps is not None and int(evaluation_sweeps) < 1:
        raise ValueError(f"evaluation_sweeps must be at least 1, got {evaluation_sweeps}")
    if int(max_iterations) < 1:
        raise ValueError(f"max_iterations must be at least 1, got {max_iterations}")
    if linear_solver not in LINEAR_SOLVERS:
        raise ValueError(f"linear_solver must be one of {', '.join(LINEAR_SOLVERS)}, got {linear_solver!r}")
    t0 = time.perf_counter()
    dense = None
    if (linear_solver == "lapack" and evaluation_sweeps is None and mdp.n_states <= LAPACK_MAX_STATES
            and mdp.n_rows * mdp.n_states <= LAPACK_MAX_ENTRIES):
        dense = dense_matrix(mdp)
    # Discount 1 with loops that cost nothing (or pay): policies that never end can be worth a finite
    # amount, evaluation values their zero-reward loops at 0, and the answer is checked at the end.
    loops = mdp.discount >= 1.0 and harmless_loops(mdp, matrix=dense).size > 0
    if loops:
        dense = None  # zero-reward classes and the final check are the sparse path's
    rows = _initial_rows(mdp, initial_policy, dense)
    policy = read_only(rows_to_policy(mdp, rows))
    v = np.zeros(mdp.n_states)
    residual = math.inf
    checked = False
    for it in range(1, int(max_iterations) + 1):
        if dense is not None:
            v_new = _evaluate_dense(mdp, dense, rows)
        elif evaluation_sweeps is None:
            v_new = evaluate_weights(mdp, row_weights_deterministic(mdp, rows), x0=v, zero_loops=loops)
        else:
            W = row_weights_deterministic(mdp, rows)
            P_pi = (W @ mdp.matrix).tocsr()
            r_pi = W @ mdp.row_reward
            v_new = v.copy()
            for _ in range(int(evaluation_sweeps)):
                v_new = r_pi + mdp.discount * (P_pi @ v_new)
                v_new[mdp.terminal] = 0.0
        v_new = read_only(v_new)
        yield make_sweep(
            method="pi", phase="evaluate", iteration=it, values=v_new, old_values=v, policy=policy,
            old_policy=None, elapsed=time.perf_counter() - t0, terminal=mdp.terminal,
        )
        v = v_new
        q = mdp.q_values(v) if dense is None else mdp.row_reward + mdp.discount * (dense @ v)
        tv, new_rows = greedy(mdp, q, tie_tol=tie_tol)
        # Howard's rule: keep the current action when it ties with the best one. Ties otherwise go
        # to the lowest action, but switching between tied actions can pick an improper policy
        # (a zero-reward loop with discount 1) and cannot improve anything.
        live_rows = rows >= 0
        cur = np.where(live_rows, q[np.maximum(rows, 0)], 0.0) if q.size else np.zeros(mdp.n_states)
        keep = live_rows & (mdp.sense * (cur - tv) >= -tie_tol * (1.0 + np.abs(tv)))
        new_rows = np.where(keep, rows, new_rows)
        res = np.abs(tv - v)
        i = int(np.argmax(res)) if res.size else -1
        residual = float(res[i]) if res.size else 0.0
        live = ~mdp.terminal
        mean = float(res[live].mean()) if live.any() else 0.0
        if loops and not checked and bool(np.array_equal(new_rows, rows)):
            # Howard's rule can stop at a fixed point of Bellman's equation that is not V* (a tie
            # between leaving with reward -1 and a free loop worth -1 under the current policy).
            # Value iteration from 0 finds V*; if it differs, continue from its greedy policy.
            checked = True
            best = _value_iteration_from_zero(mdp)
            if best is None:
                raise ValueError(
                    "policy iteration with discount 1: value iteration from 0 does not settle on this "
                    "model (a loop collects reward forever), so the optimal total reward is not finite; "
                    "use a discount below 1")
            if np.max(np.abs(best - v), initial=0.0) > 1e-9 * (1.0 + np.max(np.abs(best), initial=0.0)):
                _, new_rows = greedy(mdp, mdp.q_values(best), tie_tol=tie_tol)
        new_policy = read_only(rows_to_policy(mdp, new_rows))
        stable = bool(np.array_equal(new_policy, policy))
        done = stable and (evaluation_sweeps is None or residual < tol)
        if done and loops:  # ties with a free loop: prefer the rows that end the game (same values)
            fixed = progress_rows(mdp, q, tv, new_rows, tie_tol=tie_tol)
            if not np.array_equal(fixed, new_rows):
                new_policy = read_only(rows_to_policy(mdp, fixed))
        yield make_sweep(
            method="pi", phase="improve", iteration=it, values=v, old_values=v, policy=new_policy,
            old_policy=policy, elapsed=time.perf_counter() - t0, terminal=mdp.terminal, converged=done,
            delta_override=(residual, mean, i),
        )
        rows, policy = new_rows, new_policy
        if done:
            return Solution("pi", v, policy, it, True, residual, time.perf_counter() - t0)
    return Solution("pi", v, policy, int(max_iterations), False, residual, time.perf_counter() - t0)


# ---------------------------------------------------------------- iterative evaluation (pymdptoolbox)
def chain_of_weights(mdp: TabularMDP, W: sp.csr_matrix, *, proper: bool = True) -> tuple[sp.csr_matrix, np.ndarray]:
    """P_pi (CSR) and r_pi of the policy whose row weights are ``W`` (Sutton and Barto eq. 4.5's
    sum_a pi(a | s) p(s' | s, a) and expected reward; pymdptoolbox ``_computePpolicyPRpolicy``); with
    discount 1 and ``proper``, ImproperPolicyError if it does not reach a terminal state from every state."""
    P_pi = (W @ mdp.matrix).tocsr()
    if proper and mdp.discount >= 1.0:
        ok = _reaches_terminal(mdp, P_pi) | mdp.terminal
        if not ok.all():
            raise ImproperPolicyError(np.flatnonzero(~ok), mdp)
    return P_pi, np.asarray(W @ mdp.row_reward, dtype=np.float64)


def policy_chain(mdp: TabularMDP, rows: np.ndarray) -> tuple[sp.csr_matrix, np.ndarray]:
    """:func:`chain_of_weights` of the deterministic policy ``rows`` (pymdptoolbox's models have no
    terminal states: their discount-1 chains are not checked)."""
    return chain_of_weights(mdp, row_weights_deterministic(mdp, rows), proper=bool(mdp.terminal.any()))


def expectation_sweep(mdp: TabularMDP, P_pi: sp.csr_matrix, r_pi: np.ndarray, v: np.ndarray) -> np.ndarray:
    """One synchronous sweep of the policy's expectation backup (Sutton and Barto eq. 4.5):
    r_pi + gamma P_pi v, terminal states 0. A fresh array."""
    new = r_pi + float(mdp.discount) * (P_pi @ v)
    new[mdp.terminal] = 0.0
    return new


def evaluation_threshold(gamma: float, epsilon: float) -> float:
    """pymdptoolbox's stopping threshold of an evaluation sweep, epsilon (1 - gamma) / gamma: a change
    below it keeps the evaluated values within epsilon of the policy's (inf for gamma 0, 0 for gamma 1)."""
    return math.inf if gamma == 0 else epsilon * (1.0 - gamma) / gamma


def evaluate_iteratively(mdp: TabularMDP, rows: np.ndarray, v0: np.ndarray, epsilon: float,
                         max_sweeps: int) -> tuple[np.ndarray, int]:
    """pymdptoolbox's ``_evalPolicyIterative``: V <- r_pi + gamma P_pi V from ``v0`` until the largest
    change is below :func:`evaluation_threshold` or after ``max_sweeps`` sweeps; (V, sweeps done)."""
    P_pi, r_pi = policy_chain(mdp, rows)
    thresh = evaluation_threshold(float(mdp.discount), epsilon)
    v = np.array(v0, dtype=np.float64)
    for k in range(1, int(max_sweeps) + 1):
        prev = v
        v = expectation_sweep(mdp, P_pi, r_pi, prev)
        if float(np.max(np.abs(v - prev), initial=0.0)) < thresh:
            return v, k
    return v, int(max_sweeps)


def iterative_policy_iteration(
    mdp: TabularMDP,
    *,
    initial_policy: np.ndarray | None = None,
    epsilon: float = 1e-4,
    evaluation_max_sweeps: int = 10_000,
    max_iterations: int = 1_000,
    tie_tol: float = TIE_TOL,
) -> SolverGen:
    """Policy iteration with iterative evaluation exactly as pymdptoolbox's
    ``PolicyIteration(eval_type=1)`` (its defaults: ``max_iter=1000``; the evaluation's ``epsilon=1e-4``
    and 10 000 sweeps):

    * the starting policy maximises the expected immediate reward (greedy in Q under V = 0), unless
      ``initial_policy`` is given;
    * each round: evaluate the policy by sweeps of eq. 4.5 from V = 0 (not from the last values) until
      the largest change is below epsilon (1 - gamma) / gamma ("evaluate" snapshot); then the greedy
      policy of those values (eq. 4.9; "improve" snapshot); stop when it changes no action.

    The values returned are the last evaluation's (pymdptoolbox's ``V``). With discount 1 a policy
    that does not reach a terminal state has no finite value: ImproperPolicyError.
    """
    eps = check_positive("epsilon", epsilon)
    ev_cap = check_count("evaluation_max_sweeps", evaluation_max_sweeps)
    cap = check_count("max_iterations", max_iterations)
    if initial_policy is None:
        _, rows = greedy(mdp, mdp.q_values(np.zeros(mdp.n_states)), tie_tol=tie_tol)
    else:
        rows = policy_to_rows(mdp, initial_policy)
    return _iterative(mdp, rows, eps, ev_cap, cap, tie_tol)


def _iterative(mdp: TabularMDP, rows: np.ndarray, epsilon: float, ev_cap: int, cap: int, tie_tol: float) -> SolverGen:
    """The rounds of :func:`iterative_policy_iteration` from the starting ``rows``."""
    t0 = time.perf_counter()
    policy = read_only(rows_to_policy(mdp, rows))
    v = read_only(np.zeros(mdp.n_states))
    it = 0
    while True:
        it += 1
        ev, _ = evaluate_iteratively(mdp, rows, np.zeros(mdp.n_states), epsilon, ev_cap)
        ev = read_only(ev)
        yield make_sweep(
            method="pi", phase="evaluate", iteration=it, values=ev, old_values=v, policy=policy, old_policy=None,
            elapsed=time.perf_counter() - t0, terminal=mdp.terminal,
        )
        v = ev
        tv, new_rows = greedy(mdp, mdp.q_values(v), tie_tol=tie_tol)
        res = np.abs(tv - v)
        i = int(np.argmax(res)) if res.size else -1
        residual = float(res[i]) if res.size else 0.0
        live = ~mdp.terminal
        new_policy = read_only(rows_to_policy(mdp, new_rows))
        done = bool(np.array_equal(new_policy, policy))
        yield make_sweep(
            method="pi", phase="improve", iteration=it, values=v, old_values=v, policy=new_policy,
            old_policy=policy, elapsed=time.perf_counter() - t0, terminal=mdp.terminal, converged=done,
            delta_override=(residual, float(res[live].mean()) if live.any() else 0.0, i),
        )
        if done or it == cap:  # at the cap pymdptoolbox keeps the evaluated policy, not the new one
            return Solution("pi", v, policy, it, done, residual, time.perf_counter() - t0)
        rows, policy = new_rows, new_policy
