"""The exact quantities of policy-gradient methods over any TabularMDP (Sutton and Barto, chapter 13).

The policy is a softmax over linear action preferences (eq. 13.2-13.3): h(s, a, theta) = theta . x(s, a) over
state-action features ``Xsa`` (float64, one row per (state, action) row of the model), and
pi(a|s, theta) = exp h(s, a) / sum_b exp h(s, b) over the state's legal actions. With no sampling this module
computes, at a given theta:

* J(theta): the exact value of the stochastic policy from the start state (eq. 13.4, one linear solve);
  for a continuing model (no terminal state reachable from the start) the average reward r(pi) (section 13.6);
* its exact gradient from the policy-gradient theorem (eq. 13.5): grad J = sum_s eta(s) sum_a q_pi(s, a)
  grad pi(a|s), written with grad pi = pi grad ln pi (eq. 13.6-13.9) and, for the softmax, grad ln pi(a|s) =
  x(s, a) - sum_b pi(b|s) x(s, b) (exercise 13.3). eta(s) = sum_k gamma^k Pr(S_k = s | S_0 = start) are the
  discounted expected visits (the box of section 9.2, with gamma^k in eta for the discounted case); continuing:
  the stationary distribution mu and the differential action values (section 13.6);
* the best value any policy of the features reaches from the start (:func:`best_value`);
* one-episode REINFORCE estimates of the gradient with or without a baseline (eq. 13.8 with gamma^t as in
  REINFORCE's box in section 13.3, and eq. 13.11), and their statistics (:func:`estimate_stats`).

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
reward r(pi) (section 13.6); "auto": "average" for a continuing model (no terminal state reachable from the start),
else "start"."""

BEST_RESTARTS_MAX = 1_000
BEST_WORK = 200_000_000
"""The ascents of :func:`best_value` cost at most about this much work in all, an evaluation of J and its gradient
reckoned at 50 units per transition of the model (its sparse solves: 36 ms on risk tic-tac-toe's 160,300): on a large model (risk tic-tac-toe, 38,742 states)
fewer and shorter ascents, said in the answer's words, instead of minutes before a learner's first episode."""


# ====================================================================== the policy
def _live_starts(mdp: TabularMDP) -> tuple[np.ndarray, np.ndarray]:
    """(states with rows, the first row of each) for ``np.ufunc.reduceat`` over each state's rows."""
    counts = np.asarray(mdp.actions_per_state)
    has = np.flatnonzero(counts > 0)
    return has, np.asarray(mdp.state_ptr)[:-1][has]


def _check_features(mdp: TabularMDP, Xsa: np.ndarray,
                    theta: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
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


def _check_fixed(mdp: TabularMDP, fixed: np.ndarray | None,
                 fixed_probs: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
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
    form the average reward r(pi) (section 13.6); in the model's unit (reward, or cost with objective "min")."""
    v: np.ndarray
    """float64 (n_states): v_pi (eq. 4.4); average form: the differential values (section 13.6) with
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
    (eq. 13.4); eta from (I - gamma P_pi^T) eta = e_start (eq. 9.2 with gamma^k, as the box of section 9.2
    counts discounted visits); grad J = sum_s eta(s) sum_a pi(a|s) (q(s, a) - v(s)) grad ln pi(a|s) (eq. 13.5 with
    grad pi = pi grad ln pi; subtracting v(s) changes nothing since sum_a pi grad ln pi = 0, eq. 13.10, and keeps
    the sum accurate). With discount 1 a policy that never ends some episodes has no value: ValueError naming a
    state (a softmax plays every action, so this is a property of the model and the fixed rows).

    Average form (continuing models: no terminal state reachable from the start, section 13.6): the start's
    states must reach one closed class (a unichain from the start), whose stationary distribution mu gives
    J = r(pi) = sum_s mu(s) sum_a pi(a|s) r(s, a) (section 13.6), the differential values from
    v(s) = sum_a pi (r(s, a) - r(pi) + sum_s' p v(s')) (section 13.6) with mu . v = 0, and
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
    rs = mdp.row_state
    learner = ~mask & (visits[rs] > 0)
    adv = np.zeros(mdp.n_rows)
    adv[learner] = q[learner] - v[rs[learner]]
    weight = np.where(learner, visits[rs] * pi * adv, 0.0)
    # sum_r weight_r grad ln pi_r = sum_r weight_r (x_r - sum_b pi_b x_b) = X^T (weight - pi W(s_r)) with W(s) the
    # state's total weight (0 up to round-off, eq. 13.10): the (n_rows x d) eligibilities are never formed
    per_state = np.bincount(rs, weights=weight, minlength=mdp.n_states)
    gradient = X.T @ (weight - pi * per_state[rs])
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
    value V*(start)"); for the average form the optimal average reward r* by relative value iteration on the
    aperiodic transform ("the optimal average reward r*"; when that does not settle, the ascents below).
    Otherwise the best of exact-gradient ascents on sign * J (eq. 13.5's gradient, L-BFGS
    with its line search) from theta = 0 and ``restarts - 1`` seeded random starts: a local optimum, so a
    lower bound of the best for a maximiser (an upper bound for a minimiser). On the short corridor with the
    book's features it is -(6 + 4 sqrt 2) at p(right) = 2 - sqrt 2 (Example 13.1)."""
    start = _check_start(mdp, start)
    mask, probs = _check_fixed(mdp, fixed, fixed_probs)
    X, _ = _check_features(mdp, Xsa)
    sign = 1.0 if mdp.objective == "max" else -1.0
    form = _form_of(mdp, start, mask, probs, "auto")
    if tabular and form == "start":
        return _optimal_value(mdp, mask, probs, start), "the optimal value V*(start)"
    if tabular:
        gain = _optimal_gain(mdp, mask, probs, start)
        if gain is not None:
            return gain, "the optimal average reward r*"
    whole = isinstance(restarts, (int, np.integer)) and not isinstance(restarts, bool)
    if not whole or not 1 <= restarts <= BEST_RESTARTS_MAX:
        raise ValueError(f"restarts must be a whole number in 1..{BEST_RESTARTS_MAX}, got {restarts!r}")
    from scipy.optimize import minimize

    def f(theta: np.ndarray) -> tuple[float, np.ndarray]:
        try:
            pv = evaluate_policy(mdp, X, theta, start=start, fixed=fixed, fixed_probs=fixed_probs, form=form)
        except ValueError:  # a probability underflowed to 0 far out and the policy no longer ends: step back
            return math.inf, np.zeros(theta.size)
        return -sign * pv.J, -sign * np.asarray(pv.gradient)

    rng = np.random.default_rng(seed)
    d = X.shape[1]
    best = -math.inf
    evaluations = max(40, BEST_WORK // (50 * max(int(np.asarray(mdp.dst).size), 1)))  # (what the model's size allows)
    runs = max(1, min(int(restarts), evaluations // 40))
    per_run = min(int(max_iterations), evaluations // runs)
    for k in range(runs):
        theta0 = np.zeros(d) if k == 0 else rng.normal(0.0, 1.0, size=d)
        res = minimize(f, theta0, jac=True, method="L-BFGS-B",
                       options={"maxiter": per_run, "maxfun": per_run, "gtol": 1e-12, "ftol": 1e-15})
        value = -float(res.fun)
        if math.isfinite(value) and value > best:
            best = value
    bound = "a lower bound" if sign > 0 else "an upper bound"
    short = "" if per_run >= int(max_iterations) else f" of at most {per_run} evaluations (the model's size)"
    how = f"the best of {runs} exact-gradient ascent{'s' if runs != 1 else ''}{short}: a local optimum ({bound})"
    return sign * best, how


def _optimal_value(mdp: TabularMDP, mask: np.ndarray, probs: np.ndarray, start: int) -> float:
    """V*(start) of the model the learner faces (:func:`_folded`) by value iteration to 1e-12 (eq. 4.10)."""
    from mdpviz.solvers.sweep import run
    from mdpviz.solvers.value_iteration import value_iteration

    sol = run(value_iteration(_folded(mdp, mask, probs), tol=1e-12, max_sweeps=1_000_000))
    return float(np.asarray(sol.values)[start])


def _optimal_gain(mdp: TabularMDP, mask: np.ndarray, probs: np.ndarray, start: int,
                  max_iterations: int = 200_000) -> float | None:
    """The best average reward from ``start`` (section 10.3) by relative value iteration on the aperiodic
    transform P' = (1 - tau) I + tau P, r' = tau r (Puterman section 8.5.4: same policies, gain tau g) over the
    states the start reaches, to a span of 1e-12; None when it does not settle (a multichain optimum)."""
    model = _folded(mdp, mask, probs)
    P, _ = _chain(model, np.ones(model.n_rows))
    reach = _reach(P, start)
    tau = 0.5
    rows = np.flatnonzero(reach[model.row_state])
    rs = np.asarray(model.row_state)[rows]
    M = model.matrix[rows]
    rr = np.asarray(model.row_reward)[rows]
    has = np.unique(rs)
    starts = np.searchsorted(rs, has)
    h = np.zeros(model.n_states)
    for _ in range(int(max_iterations)):
        q = tau * rr + (1.0 - tau) * h[rs] + tau * (M @ h)
        best = np.maximum.reduceat(q, starts) if model.objective == "max" else np.minimum.reduceat(q, starts)
        change = best - h[has]
        if float(change.max() - change.min()) < 1e-12:
            return float(change.mean()) / tau
        h[has] = best - best[0]
    return None


def _folded(mdp: TabularMDP, mask: np.ndarray, probs: np.ndarray) -> TabularMDP:
    """The one-player model the learner faces: each fixed state keeps one action (id 0) whose outcomes are
    the fixed mixture of its rows."""
    if not mask.any():
        return mdp
    t = mdp.to_transitions()
    row_of_t = np.repeat(np.arange(mdp.n_rows), np.diff(mdp.row_ptr))
    fixed_t = mask[row_of_t]
    keep = ~fixed_t | (probs[row_of_t] > 0)
    weight = np.where(fixed_t, probs[row_of_t], 1.0)[keep]
    action = np.where(fixed_t, 0, t["action"])[keep]
    return TabularMDP.from_transitions(
        mdp.n_states, mdp.n_actions, t["src"][keep], action, t["dst"][keep], t["prob"][keep] * weight,
        t["reward"][keep], discount=mdp.discount, terminal=np.flatnonzero(mdp.terminal), objective=mdp.objective,
        mdptype=mdp.mdptype, state_labels=mdp.state_labels, action_labels=mdp.action_labels)


# ====================================================================== sampled REINFORCE estimates
@dataclass(frozen=True)
class EstimateStats:
    """The statistics of N one-episode gradient estimates at one theta."""

    samples: int
    """N, the number of episodes."""
    mean: np.ndarray
    """float64 (d): the sample mean of the estimates."""
    variance: float
    """The trace of the sample covariance (ddof 1): the summed variance of one estimate's components."""
    cosine: float
    """cos of the angle between the sample mean and the exact gradient (NaN when either is 0)."""
    standard_error: np.ndarray
    """float64 (d): the standard error of the mean per component, sd / sqrt(N)."""


def reinforce_estimates(mdp: TabularMDP, Xsa: np.ndarray, theta: np.ndarray, *, start: int, samples: int, seed: int,
                        baseline: np.ndarray | None, fixed: np.ndarray | None = None,
                        fixed_probs: np.ndarray | None = None, max_steps: int = 10_000) -> np.ndarray:
    """float64 (samples, d): one REINFORCE estimate of grad J per sampled episode from ``start``,
    sum_t gamma^t (G_t - b(S_t)) grad ln pi(A_t|S_t, theta) (eq. 13.8 with the gamma^t of the pseudocode box of section 13.3;
    eq. 13.11 with the baseline b over the states, 0 without). Its mean is the exact gradient (eq. 13.5), with
    or without a baseline (eq. 13.10). Steps at the opponent's (fixed) rows add nothing (grad ln pi = 0 there).

    The episodes run side by side (one numpy step for all of them) with a seeded ``numpy.random.Generator``;
    the sum is accumulated online as sum_k gamma^k R_{k+1} sum_{t<=k} grad ln pi_t - sum_t gamma^t b(S_t)
    grad ln pi_t (the same sum, regrouped), so no episode is stored. Rewards with a standard deviation
    (``mdp.reward_sd``) are drawn from N(mean, sd^2) as the learners draw them. ValueError for a continuing
    model (no episode ends) or when an episode runs past ``max_steps`` steps."""
    start = _check_start(mdp, start)
    mask, probs = _check_fixed(mdp, fixed, fixed_probs)
    X, th = _check_features(mdp, Xsa, theta)
    for name, val, hi in (("samples", samples, 10_000_000), ("max_steps", max_steps, 100_000_000)):
        if not isinstance(val, (int, np.integer)) or isinstance(val, bool) or not 1 <= val <= hi:
            raise ValueError(f"{name} must be a whole number in 1..{hi:,}, got {val!r}")
    n, d = int(samples), X.shape[1]
    from mdpviz.solvers.features import check_matrix_size

    check_matrix_size(n, d, "table of gradient estimates")
    if _form_of(mdp, start, mask, probs, "auto") != "start":
        raise ValueError("model: REINFORCE needs episodes, and no terminal state is reachable from the start")
    b = np.zeros(mdp.n_states)
    if baseline is not None:
        b = np.asarray(baseline, dtype=np.float64).reshape(-1)
        if b.shape != (mdp.n_states,) or not np.all(np.isfinite(b[~np.asarray(mdp.terminal)])):
            raise ValueError(f"baseline: needs one finite number per state ({mdp.n_states}), got {b.size}")
        b = np.where(np.asarray(mdp.terminal), 0.0, b)
    pi = policy_rows(mdp, X, th, fixed=fixed, fixed_probs=fixed_probs)
    g = np.array(grad_log_pi(mdp, X, pi))
    g[mask] = 0.0
    rs = np.asarray(mdp.row_state)
    # cumulative probabilities offset by the state (rows) and by the row (transitions): one searchsorted
    # draws every episode's action, another every outcome; each state's (row's) last entry is exactly 1
    key_rows = _offset_cumsum(pi, np.asarray(mdp.state_ptr), rs)
    row_of_t = np.repeat(np.arange(mdp.n_rows), np.diff(mdp.row_ptr))
    key_t = _offset_cumsum(np.asarray(mdp.prob), np.asarray(mdp.row_ptr), row_of_t)
    sd = None if mdp.reward_sd is None else np.asarray(mdp.reward_sd, dtype=np.float64)
    rng = np.random.default_rng(seed)
    gamma = float(mdp.discount)
    terminal = np.asarray(mdp.terminal)
    state = np.full(n, start, dtype=np.int64)
    active = np.arange(n)
    trace = np.zeros((n, d))  # sum_{t<=k} grad ln pi(A_t|S_t)
    out = np.zeros((n, d))
    discount_t = 1.0
    for _ in range(int(max_steps)):
        s = state[active]
        u = rng.random(active.size)
        row = np.searchsorted(key_rows, s + u, side="right")
        row = np.clip(row, mdp.state_ptr[s], mdp.state_ptr[s + 1] - 1)
        u = rng.random(active.size)
        t = np.searchsorted(key_t, row + u, side="right")
        t = np.clip(t, mdp.row_ptr[row], mdp.row_ptr[row + 1] - 1)
        reward = np.asarray(mdp.reward)[t]
        if sd is not None:
            noisy = sd[t] > 0
            if noisy.any():
                reward = reward.copy()
                reward[noisy] += sd[t][noisy] * rng.standard_normal(int(noisy.sum()))
        gt = g[row]
        trace[active] += gt
        out[active] += discount_t * (reward[:, None] * trace[active] - b[s][:, None] * gt)
        nxt = np.asarray(mdp.dst)[t]
        state[active] = nxt
        active = active[~terminal[nxt]]
        discount_t *= gamma
        if active.size == 0:
            return read_only(out)
    raise ValueError(f"max_steps: {active.size} of the {n} episodes ran past {int(max_steps):,} steps (the policy "
                     f"rarely ends them; raise max_steps)")


def _offset_cumsum(p: np.ndarray, ptr: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """owner + the cumulative sum of ``p`` within each owner's segment (ptr), the segment's last positive entry
    (and any after it) set to exactly owner + 1: searchsorted(key, owner + u, "right") for u in [0, 1) picks
    an index with probability p."""
    p = np.asarray(p, dtype=np.float64)
    c = np.cumsum(p)
    first = ptr[:-1][owner] if owner.size else owner
    before = np.concatenate(([0.0], c))[first]
    within = c - before
    # from each segment's last positive entry on, exactly 1: a zero-probability entry after it is never drawn
    idx = np.arange(p.size)
    has = np.flatnonzero(np.diff(ptr) > 0)
    last_positive = np.full(ptr.size - 1, -1)
    last_positive[has] = np.maximum.reduceat(np.where(p > 0, idx, -1), ptr[:-1][has])
    within = np.where(idx >= last_positive[owner], 1.0, np.minimum(within, 1.0))
    return owner.astype(np.float64) + within


def estimate_stats(estimates: np.ndarray, exact_gradient: np.ndarray) -> EstimateStats:
    """The sample mean of the estimates (samples x d), the trace of their sample covariance (ddof 1), the
    cosine between the mean and the exact gradient, and each component's standard error sd / sqrt(N)."""
    E = np.asarray(estimates, dtype=np.float64)
    if E.ndim != 2 or E.shape[0] < 2:
        raise ValueError(f"estimates: need a (samples >= 2, d) table, got {E.shape}")
    exact = np.asarray(exact_gradient, dtype=np.float64).reshape(-1)
    if exact.shape != (E.shape[1],):
        raise ValueError(f"exact_gradient: {exact.size} numbers for {E.shape[1]} components")
    n = E.shape[0]
    mean = E.mean(axis=0)
    var = E.var(axis=0, ddof=1)
    na, nb = float(np.linalg.norm(mean)), float(np.linalg.norm(exact))
    cosine = float(mean @ exact) / (na * nb) if na > 0 and nb > 0 else math.nan
    return EstimateStats(samples=n, mean=read_only(mean), variance=float(var.sum()), cosine=cosine,
                         standard_error=read_only(np.sqrt(var / n)))


__all__ = [
    "EstimateStats", "FORMS", "PolicyValue", "best_value", "estimate_stats", "evaluate_policy", "grad_log_pi",
    "opponent_policy", "opponent_rows", "policy_rows", "reinforce_estimates", "softmax_rows",
]
