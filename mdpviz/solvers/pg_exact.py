"""The exact quantities of policy-gradient methods over any TabularMDP (Sutton and Barto, chapter 13).

The policy is a softmax over linear action preferences (eq. 13.2-13.3): h(s, a, theta) = theta . x(s, a) over
state-action features ``Xsa`` (float64, one row per (state, action) row of the model), and
pi(a|s, theta) = exp h(s, a) / sum_b exp h(s, b) over the state's legal actions. With no sampling this module
computes, at a given theta:

* J(theta): the exact value of the stochastic policy from the start state (eq. 13.4, one linear solve);
  for a continuing model (no terminal state reachable from the start) the average reward r(pi) (eq. 13.15);
* its exact gradient from the policy-gradient theorem (eq. 13.5): grad J = sum_s eta(s) sum_a q_pi(s, a)
  grad pi(a|s), written with grad pi = pi grad ln pi (eq. 13.6-13.9) and, for the softmax, grad ln pi(a|s) =
  x(s, a) - sum_b pi(b|s) x(s, b) (exercise 13.3). eta(s) = sum_k gamma^k Pr(S_k = s | S_0 = start) are the
  discounted expected visits (the box on page 199: the discounted case puts gamma^k in eta); continuing:
  the stationary distribution mu and the differential action values (section 13.6);
* the best value any policy of the features reaches from the start (:func:`best_value`);
* one-episode REINFORCE estimates of the gradient with or without a baseline (eq. 13.8 with gamma^t as in
  the box on page 328, and eq. 13.11), and their statistics (:func:`estimate_stats`).

Objectives and players: the learner maximises J for objective "max" and minimises it for "min" (costs), i.e.
it ascends sign * J with sign = +1 / -1 (:attr:`PolicyValue.sign`); the gradients here are always of J itself.
In a two-player model the learner's softmax acts where the maximising player (mover +1) moves; the opponent's
rows (``fixed``) keep fixed probabilities (``fixed_probs``, by default the exact minimax policy:
:func:`opponent_policy`), so they contribute nothing to the gradient.

numpy and scipy only; never imports Qt, knows no game.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from mdpviz.core.mdp import TabularMDP, read_only

FORMS = ("auto", "start", "average")
"""What J is: "start": the discounted value of the start state v_pi(start) (eq. 13.4); "average": the average
reward r(pi) (eq. 13.15); "auto": "average" for a continuing model (no terminal state reachable from the start),
else "start"."""

BEST_RESTARTS_MAX = 1_000


# ====================================================================== the policy
def _live_starts(mdp: TabularMDP) -> tuple[np.ndarray, np.ndarray]:
    """(states with rows, the first row of each) for ``np.ufunc.reduceat`` over each state's rows."""
    counts = np.asarray(mdp.actions_per_state)
    has = np.flatnonzero(counts > 0)
    return has, np.asarray(mdp.state_ptr)[:-1][has]


def _check_features(mdp: TabularMDP, Xsa: np.ndarray, theta: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    X = np.asarray(Xsa, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] != mdp.n_rows:
        raise ValueError(f"features: Xsa is {X.shape}, not (n_rows={mdp.n_rows}, d)")
    if not np.all(np.isfinite(X)):
        raise ValueError("features: Xsa holds a number that is not finite")
    if theta is None:
        return X, None
    th = np.asarray(theta, dtype=np.float64).reshape(-1)
    if th.shape != (X.shape[1],):
        raise ValueError(f"theta: {th.size} numbers for {X.shape[1]} features")
    if not np.all(np.isfinite(th)):
        raise ValueError("theta: a number is not finite")
    return X, th


def softmax_rows(mdp: TabularMDP, Xsa: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """pi(a|s, theta) per row, float64 (n_rows), read-only: the softmax in action preferences (eq. 13.2) of
    the linear preferences h(s, a, theta) = theta . x(s, a) (eq. 13.3) over each state's rows (its legal
    actions); the probabilities of every state with rows sum to 1. Computed with the state's largest
    preference subtracted, so large preferences do not overflow."""
    X, th = _check_features(mdp, Xsa, theta)
    if mdp.n_rows == 0:
        return read_only(np.zeros(0))
    h = X @ th
    has, starts = _live_starts(mdp)
    top = np.zeros(mdp.n_states)
    top[has] = np.maximum.reduceat(h, starts)
    e = np.exp(h - top[mdp.row_state])
    total = np.zeros(mdp.n_states)
    total[has] = np.add.reduceat(e, starts)
    return read_only(e / total[mdp.row_state])


def grad_log_pi(mdp: TabularMDP, Xsa: np.ndarray, pi: np.ndarray) -> np.ndarray:
    """grad ln pi(a|s, theta) per row, float64 (n_rows, d), read-only: x(s, a) - sum_b pi(b|s) x(s, b), the
    eligibility vector of the softmax over linear preferences (eq. 13.9; exercise 13.3). ``pi`` is the row
    probabilities (:func:`softmax_rows`)."""
    X, _ = _check_features(mdp, Xsa)
    p = np.asarray(pi, dtype=np.float64).reshape(-1)
    if p.shape != (mdp.n_rows,):
        raise ValueError(f"policy: {p.size} row probabilities for the model's {mdp.n_rows} rows")
    if mdp.n_rows == 0:
        return read_only(np.zeros((0, X.shape[1])))
    has, starts = _live_starts(mdp)
    mean = np.zeros((mdp.n_states, X.shape[1]))
    mean[has] = np.add.reduceat(p[:, None] * X, starts, axis=0)
    return read_only(X - mean[mdp.row_state])


def opponent_rows(mdp: TabularMDP, exact_policy_rows: np.ndarray | None = None) -> np.ndarray:
    """bool (n_rows), read-only: the rows the opponent plays in a two-player model (the states whose mover is
    -1, the minimising player), whose probabilities stay fixed; all False in a one-player model.
    ``exact_policy_rows`` (the fixed probabilities it will be paired with, n_rows) is checked for its length."""
    if exact_policy_rows is not None:
        n = np.asarray(exact_policy_rows).reshape(-1).size
        if n != mdp.n_rows:
            raise ValueError(f"fixed_probs: {n} row probabilities for the model's {mdp.n_rows} rows")
    if not mdp.is_two_player:
        return read_only(np.zeros(mdp.n_rows, dtype=bool))
    return read_only(np.asarray(mdp.mover)[mdp.row_state] == -1)


def opponent_policy(mdp: TabularMDP) -> tuple[np.ndarray | None, np.ndarray | None]:
    """``(fixed, fixed_probs)`` of "the game's own opponent": in a two-player model the opponent's rows
    (:func:`opponent_rows`) and the row probabilities of the exact (minimax) policy from value iteration
    (eq. 4.10 with the min at the minimiser's states), as :func:`mdpviz.solvers.learning.exact_answer` gives
    them; ``(None, None)`` in a one-player model."""
    if not mdp.is_two_player:
        return None, None
    from mdpviz.solvers.learning import LearningSettings, exact_answer

    probs = np.asarray(exact_answer(mdp, LearningSettings()).policy_rows, dtype=np.float64)
    return opponent_rows(mdp, probs), read_only(probs.copy())


def _check_fixed(mdp: TabularMDP, fixed: np.ndarray | None, fixed_probs: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(bool mask n_rows, float probabilities n_rows) with whole states fixed and each fixed state's
    probabilities summing to 1."""
    if fixed is None:
        if fixed_probs is not None:
            raise ValueError("fixed_probs: given without fixed (the rows they apply to)")
        return np.zeros(mdp.n_rows, dtype=bool), np.zeros(mdp.n_rows)
    mask = np.asarray(fixed).reshape(-1)
    if mask.shape != (mdp.n_rows,):
        raise ValueError(f"fixed: {mask.size} row flags for the model's {mdp.n_rows} rows")
    mask = mask.astype(bool)
    if fixed_probs is None:
        raise ValueError("fixed_probs: needed with fixed (the opponent's row probabilities)")
    probs = np.asarray(fixed_probs, dtype=np.float64).reshape(-1)
    if probs.shape != (mdp.n_rows,):
        raise ValueError(f"fixed_probs: {probs.size} row probabilities for the model's {mdp.n_rows} rows")
    rs = mdp.row_state
    per_state = np.bincount(rs, weights=mask.astype(np.float64), minlength=mdp.n_states)
    split = np.flatnonzero((per_state > 0) & (per_state < np.asarray(mdp.actions_per_state)))
    if split.size:
        raise ValueError(f"fixed: state {int(split[0])} has some rows fixed and some not (fix whole states)")
    p = np.where(mask, probs, 0.0)
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError("fixed_probs: row probabilities must be finite and not negative")
    sums = np.bincount(rs, weights=p, minlength=mdp.n_states)
    bad = np.flatnonzero((per_state > 0) & ~np.asarray(mdp.terminal) & (np.abs(sums - 1.0) > 1e-6))
    if bad.size:
        s = int(bad[0])
        raise ValueError(f"fixed_probs: the probabilities of state {s}'s actions sum to {sums[s]:.9g}, not 1")
    return mask, p


def policy_rows(mdp: TabularMDP, Xsa: np.ndarray, theta: np.ndarray, *, fixed: np.ndarray | None = None,
                fixed_probs: np.ndarray | None = None) -> np.ndarray:
    """float64 (n_rows), read-only: the policy played: the learner's softmax (eq. 13.2) in its states, the
    fixed (opponent's) probabilities on the rows ``fixed`` (bool n_rows, whole states)."""
    mask, p = _check_fixed(mdp, fixed, fixed_probs)
    pi = softmax_rows(mdp, Xsa, theta)
    if not mask.any():
        return pi
    return read_only(np.where(mask, p, pi))


# ====================================================================== the exact value and gradient
@dataclass(frozen=True, eq=False)
class PolicyValue:
    """Everything exact about one theta (no sampling)."""

    theta: np.ndarray
    """float64 (d): the policy's parameters."""
    pi: np.ndarray
    """float64 (n_rows): the row probabilities played (the learner's softmax, the opponent's fixed rows)."""
    J: float
    """The performance measure: v_pi(start) (eq. 13.4, discounted by the model's discount), or for the average
    form the average reward r(pi) (eq. 13.15); in the model's unit (reward, or cost with objective "min")."""
    v: np.ndarray
    """float64 (n_states): v_pi (eq. 4.4); average form: the differential values (eq. 13.17) with
    sum_s mu(s) v(s) = 0, NaN at the states the start never reaches."""
    q: np.ndarray
    """float64 (n_rows): q_pi(s, a) = sum_s' p (r + gamma v(s')); average form: the differential action values
    r(s, a) - r(pi) + sum_s' p v(s') (NaN where a successor is never reached)."""
    visits: np.ndarray
    """float64 (n_states): eta(s) = sum_k gamma^k Pr(S_k = s) from the start (eq. 13.5's on-policy
    distribution with the discount, not normalised: expected discounted visits per episode); average form:
    the stationary distribution mu (sums to 1)."""
    gradient: np.ndarray
    """float64 (d): the exact grad J (eq. 13.5), of J itself whatever the objective (ascend sign * gradient)."""
    sign: float
    """+1 when the learner maximises J (objective "max"), -1 when it minimises it (objective "min", costs)."""
    form: str
    """"start" (v_pi(start)) or "average" (r(pi))."""

    @property
    def improvement(self) -> np.ndarray:
        """float64 (d): sign * gradient, the direction the learner ascends."""
        return self.sign * self.gradient


def _check_start(mdp: TabularMDP, start: int) -> int:
    s = int(start)
    if not 0 <= s < mdp.n_states:
        raise ValueError(f"start: state {s} is out of range 0..{mdp.n_states - 1}")
    if mdp.terminal[s]:
        raise ValueError(f"start: state {s} is terminal")
    return s


def _chain(mdp: TabularMDP, pi: np.ndarray) -> tuple[sp.csr_matrix, np.ndarray]:
    """P_pi (n_states x n_states, terminal rows 0) and r_pi (n_states) of the row probabilities ``pi``."""
    w = np.where(np.asarray(mdp.terminal)[mdp.row_state], 0.0, pi)
    W = sp.csr_matrix((w, (mdp.row_state, np.arange(mdp.n_rows))), shape=(mdp.n_states, mdp.n_rows))
    P = (W @ mdp.matrix).tocsr()
    P.sum_duplicates()
    return P, np.asarray(W @ np.asarray(mdp.row_reward), dtype=np.float64)


def _reach(P: sp.csr_matrix, start: int) -> np.ndarray:
    """bool (n_states): the states the chain P reaches from ``start`` (itself included), over edges > 0."""
    from scipy.sparse.csgraph import breadth_first_order

    G = P.copy()
    G.data = (G.data > 0).astype(np.float64)
    G.eliminate_zeros()
    order = breadth_first_order(G, start, directed=True, return_predecessors=False)
    seen = np.zeros(P.shape[0], dtype=bool)
    seen[order] = True
    return seen


def _support(mdp: TabularMDP, mask: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """The rows every policy of the family plays with positive probability (the learner's all, the fixed
    ones where their probability is positive): which states are reached does not depend on theta."""
    return np.where(mask, (probs > 0).astype(np.float64), 1.0)


def _form_of(mdp: TabularMDP, start: int, mask: np.ndarray, probs: np.ndarray, form: str) -> str:
    if form not in FORMS:
        raise ValueError(f"form: {form!r} is not one of {', '.join(FORMS)}")
    if form != "auto":
        return form
    P, _ = _chain(mdp, _support(mdp, mask, probs))
    return "start" if np.asarray(mdp.terminal)[_reach(P, start)].any() else "average"


def evaluate_policy(mdp: TabularMDP, Xsa: np.ndarray, theta: np.ndarray, *, start: int,
                    fixed: np.ndarray | None = None, fixed_probs: np.ndarray | None = None,
                    form: str = "auto") -> PolicyValue:
    """J(theta), v, q and the exact gradient of J at ``theta`` (the policy-gradient theorem, eq. 13.5).

    Start form (episodic models, and any model with ``form="start"``): v_pi by one linear solve
    (I - gamma P_pi) v = r_pi (eq. 4.4, :func:`mdpviz.solvers.policy_iteration.evaluate_weights`), J = v(start)
    (eq. 13.4); eta from (I - gamma P_pi^T) eta = e_start (eq. 9.2 with gamma^k, the discounted case of the box
    on page 199); grad J = sum_s eta(s) sum_a pi(a|s) (q(s, a) - v(s)) grad ln pi(a|s) (eq. 13.5 with
    grad pi = pi grad ln pi; subtracting v(s) changes nothing since sum_a pi grad ln pi = 0, eq. 13.10, and keeps
    the sum accurate). With discount 1 a policy that never ends some episodes has no value: ValueError naming a
    state (a softmax plays every action, so this is a property of the model and the fixed rows).

    Average form (continuing models: no terminal state reachable from the start, section 13.6): the start's
    states must reach one closed class (a unichain from the start), whose stationary distribution mu gives
    J = r(pi) = sum_s mu(s) sum_a pi(a|s) r(s, a) (eq. 13.15), the differential values from
    v(s) = sum_a pi (r(s, a) - r(pi) + sum_s' p v(s')) (eq. 13.17) with mu . v = 0, and
    grad r(pi) = sum_s mu(s) sum_a pi(a|s) q(s, a) grad ln pi(a|s) (eq. 13.5 in the average-reward case).

    Only the learner's rows contribute to the gradient: the ``fixed`` rows keep ``fixed_probs``."""
    start = _check_start(mdp, start)
    mask, probs = _check_fixed(mdp, fixed, fixed_probs)
    X, th = _check_features(mdp, Xsa, theta)
    pi = policy_rows(mdp, X, th, fixed=fixed, fixed_probs=fixed_probs)
    form = _form_of(mdp, start, mask, probs, form)
    sign = 1.0 if mdp.objective == "max" else -1.0
    if form == "start":
        J, v, q, visits = _start_form(mdp, pi, start)
    else:
        J, v, q, visits = _average_form(mdp, pi, start)
    g = grad_log_pi(mdp, X, pi)
    rs = mdp.row_state
    learner = ~mask & (visits[rs] > 0)
    adv = np.zeros(mdp.n_rows)
    adv[learner] = q[learner] - v[rs[learner]]
    weight = np.where(learner, visits[rs] * pi * adv, 0.0)
    gradient = g.T @ weight
    return PolicyValue(theta=read_only(th.copy()), pi=pi, J=float(J), v=read_only(v), q=read_only(q),
                       visits=read_only(visits), gradient=read_only(np.asarray(gradient, dtype=np.float64)),
                       sign=sign, form=form)


def _start_form(mdp: TabularMDP, pi: np.ndarray, start: int) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    from mdpviz.solvers.policy_iteration import ImproperPolicyError, evaluate_weights

    w = np.where(np.asarray(mdp.terminal)[mdp.row_state], 0.0, pi)
    W = sp.csr_matrix((w, (mdp.row_state, np.arange(mdp.n_rows))), shape=(mdp.n_states, mdp.n_rows))
    try:
        v = np.asarray(evaluate_weights(mdp, W), dtype=np.float64)
    except ImproperPolicyError as e:
        bad = np.asarray(e.states)
        raise ValueError(f"model: with discount 1 the episodes from state {int(bad[0])} never end under a softmax "
                         f"policy, which plays every action ({bad.size} such state{'s' if bad.size > 1 else ''}): "
                         f"J is not finite (choose a discount below 1)") from None
    q = np.asarray(mdp.q_values(v), dtype=np.float64)
    P, _ = _chain(mdp, pi)
    live = np.flatnonzero(~np.asarray(mdp.terminal))
    h = np.zeros(live.size)
    h[np.searchsorted(live, start)] = 1.0
    A = (sp.identity(live.size, format="csc") - mdp.discount * P[live][:, live].T).tocsc()
    eta = np.zeros(mdp.n_states)
    eta[live] = np.asarray(spla.spsolve(A, h)).reshape(-1)
    eta = np.maximum(eta, 0.0)  # round-off below 0 at states never visited
    return float(v[start]), v, q, eta


def _average_form(mdp: TabularMDP, pi: np.ndarray, start: int) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    from scipy.sparse.csgraph import connected_components

    P, r_pi = _chain(mdp, pi)
    reach = np.flatnonzero(_reach(P, start))
    if np.asarray(mdp.terminal)[reach].any():
        raise ValueError("form: the average reward needs a continuing model, and the start reaches a terminal state "
                         "(use the start form)")
    sub = P[reach][:, reach]
    n_comp, label = connected_components(sub, directed=True, connection="strong")
    coo = sub.tocoo()
    keep = coo.data > 0
    leaves = np.zeros(n_comp, dtype=bool)
    out = label[coo.row[keep]] != label[coo.col[keep]]
    leaves[label[coo.row[keep]][out]] = True
    closed = [c for c in range(n_comp) if not leaves[c]]
    if len(closed) != 1:
        raise ValueError(f"form: the average reward's gradient needs one closed class of states from the start, and "
                         f"the start reaches {len(closed)} (the model is not unichain from there)")
    cls = reach[label == closed[0]]
    trans = reach[label != closed[0]]
    m = cls.size
    Pc = P[cls][:, cls].tocsc()
    # stationary distribution: mu (I - P_C) = 0, sum mu = 1 (one balance equation replaced by the sum)
    mu_c = np.ones(1)
    if m > 1:
        Q = (sp.identity(m, format="csr") - Pc).T.tolil()
        Q[0, :] = np.ones(m)
        rhs = np.zeros(m)
        rhs[0] = 1.0
        mu_c = np.asarray(spla.spsolve(Q.tocsc(), rhs)).reshape(-1)
        mu_c = np.maximum(mu_c, 0.0)
        mu_c = mu_c / mu_c.sum()
    r_avg = float(mu_c @ r_pi[cls])
    # differential values on the class: v(ref) = 0 (the class's equations leave one free), then mu . v = 0
    v = np.full(mdp.n_states, np.nan)
    vc = np.zeros(m)
    if m > 1:
        rest = np.arange(1, m)
        A = (sp.identity(m - 1, format="csc") - Pc[rest][:, rest]).tocsc()
        vc[rest] = np.asarray(spla.spsolve(A, r_pi[cls][rest] - r_avg)).reshape(-1)
    vc -= mu_c @ vc
    v[cls] = vc
    if trans.size:  # the transient states the start passes through: (I - P_TT) v_T = r_T - r + P_TC v_C
        A = (sp.identity(trans.size, format="csc") - P[trans][:, trans]).tocsc()
        b = r_pi[trans] - r_avg + P[trans][:, cls] @ vc
        v[trans] = np.asarray(spla.spsolve(A, b)).reshape(-1)
    known = np.where(np.isnan(v), 0.0, v)
    q = np.asarray(mdp.row_reward, dtype=np.float64) - r_avg + mdp.matrix @ known
    unknown = np.asarray((mdp.matrix @ np.isnan(v).astype(np.float64)) > 0).reshape(-1)
    q[unknown] = np.nan
    mu = np.zeros(mdp.n_states)
    mu[cls] = mu_c
    return r_avg, v, q, mu


# ====================================================================== the best value
def best_value(mdp: TabularMDP, Xsa: np.ndarray, *, start: int, tabular: bool, fixed: np.ndarray | None = None,
               fixed_probs: np.ndarray | None = None, restarts: int = 8, seed: int = 0,
               max_iterations: int = 2_000) -> tuple[float, str]:
    """(J_best, how it was found): the best J any policy of the features reaches from ``start``.

    ``tabular``: V*(start) of the model the learner faces (the fixed rows folded into their states' one
    outcome) by value iteration (eq. 4.10): softmax policies come as close to it as one likes ("the optimal
    value V*(start)"). Otherwise the best of exact-gradient ascents on sign * J (eq. 13.5's gradient, L-BFGS
    with its line search) from theta = 0 and ``restarts - 1`` seeded random starts: a local optimum, so a
    lower bound of the best for a maximiser (an upper bound for a minimiser). On the short corridor with the
    book's features it is -(6 + 4 sqrt 2) at p(right) = 2 - sqrt 2 (Example 13.1)."""
    start = _check_start(mdp, start)
    mask, probs = _check_fixed(mdp, fixed, fixed_probs)
    X, _ = _check_features(mdp, Xsa)
    sign = 1.0 if mdp.objective == "max" else -1.0
    if tabular:
        return _optimal_value(mdp, mask, probs, start), "the optimal value V*(start)"
    if not isinstance(restarts, (int, np.integer)) or isinstance(restarts, bool) or not 1 <= restarts <= BEST_RESTARTS_MAX:
        raise ValueError(f"restarts must be a whole number in 1..{BEST_RESTARTS_MAX}, got {restarts!r}")
    from scipy.optimize import minimize

    form = _form_of(mdp, start, mask, probs, "auto")

    def f(theta: np.ndarray) -> tuple[float, np.ndarray]:
        pv = evaluate_policy(mdp, X, theta, start=start, fixed=fixed, fixed_probs=fixed_probs, form=form)
        return -sign * pv.J, -sign * np.asarray(pv.gradient)

    rng = np.random.default_rng(seed)
    d = X.shape[1]
    best = -math.inf
    for k in range(int(restarts)):
        theta0 = np.zeros(d) if k == 0 else rng.normal(0.0, 1.0, size=d)
        res = minimize(f, theta0, jac=True, method="L-BFGS-B",
                       options={"maxiter": int(max_iterations), "gtol": 1e-12, "ftol": 1e-15})
        value = -float(res.fun)
        if math.isfinite(value) and value > best:
            best = value
    bound = "a lower bound" if sign > 0 else "an upper bound"
    how = f"the best of {int(restarts)} exact-gradient ascent{'s' if restarts != 1 else ''}: a local optimum ({bound})"
    return sign * best, how


def _optimal_value(mdp: TabularMDP, mask: np.ndarray, probs: np.ndarray, start: int) -> float:
    """V*(start) of the model with the fixed rows folded in (each fixed state keeps one action whose
    outcomes are the fixed mixture), by value iteration to 1e-12 (eq. 4.10)."""
    from mdpviz.solvers.sweep import run
    from mdpviz.solvers.value_iteration import value_iteration

    model = mdp
    if mask.any():
        t = mdp.to_transitions()
        row_of_t = np.repeat(np.arange(mdp.n_rows), np.diff(mdp.row_ptr))
        fixed_t = mask[row_of_t]
        keep = ~fixed_t | (probs[row_of_t] > 0)
        weight = np.where(fixed_t, probs[row_of_t], 1.0)[keep]
        action = np.where(fixed_t, 0, t["action"])[keep]
        model = TabularMDP.from_transitions(
            mdp.n_states, mdp.n_actions, t["src"][keep], action, t["dst"][keep], t["prob"][keep] * weight,
            t["reward"][keep], discount=mdp.discount, terminal=np.flatnonzero(mdp.terminal),
            objective=mdp.objective, mdptype=mdp.mdptype)
    sol = run(value_iteration(model, tol=1e-12, max_sweeps=1_000_000))
    return float(np.asarray(sol.values)[start])
