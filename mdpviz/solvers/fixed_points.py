"""The exact answers of linear function approximation, computed from the model (Sutton and Barto, ch. 9 and 11).

For a policy pi evaluated with linear features X (n_states x d, v_hat = X w), this module computes, with no
sampling:

* the on-policy distribution mu (section 9.2, eq. 9.2-9.3 for episodic tasks; the stationary distribution
  for continuing ones);
* the value error VE(w) = sum_s mu(s) (v_hat(s, w) - v_pi(s))^2 (eq. 9.1);
* the best fit, argmin_w VE(w), where gradient Monte Carlo converges (section 9.3);
* the TD fixed point w_TD = A^-1 b, A = X^T D (I - gamma P_pi) X, b = X^T D r_pi (eq. 9.12), where
  semi-gradient TD(0) and LSTD converge (sections 9.4 and 9.8), and the bound VE(w_TD) <= VE(best) / (1 - gamma)
  (eq. 9.14);
* the expected updates of off-policy semi-gradient TD and of TDC (figures 11.2 and 11.5), the deterministic
  iterations the sampled learners follow on average.

The policy is given as row probabilities (n_rows,), as the tabular learners' ``ExactAnswer.policy_rows``.
numpy and scipy only; never imports Qt, knows no game.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Iterator

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.csgraph import breadth_first_order, connected_components

from mdpviz.core.mdp import TabularMDP, read_only

ROW_SUM_TOL = 1e-6
"""Allowed deviation of a non-terminal state's policy row probabilities from a sum of 1."""

EXPECTED_RULES = {"semi-td": "semi-gradient", "off-td": "semi-gradient", "tdc": "tdc"}
"""The learners whose expected update :func:`expected_updates` runs, and the rule each follows."""


# ====================================================================== the chain of a policy
def _check_rows(mdp: TabularMDP, policy_rows: np.ndarray, what: str = "policy") -> np.ndarray:
    pi = np.asarray(policy_rows, dtype=np.float64).reshape(-1)
    if pi.shape != (mdp.n_rows,):
        raise ValueError(f"{what}: {pi.size} row probabilities for the model's {mdp.n_rows} rows")
    if not np.all(np.isfinite(pi)) or np.any(pi < 0):
        raise ValueError(f"{what}: row probabilities must be finite and not negative")
    pi = np.where(np.asarray(mdp.terminal)[mdp.row_state], 0.0, pi)
    sums = np.bincount(mdp.row_state, weights=pi, minlength=mdp.n_states)
    bad = np.flatnonzero(~np.asarray(mdp.terminal) & (np.abs(sums - 1.0) > ROW_SUM_TOL))
    if bad.size:
        s = int(bad[0])
        raise ValueError(f"{what}: the probabilities of state {s}'s actions sum to {sums[s]:.9g}, not 1")
    return pi


def policy_chain(mdp: TabularMDP, policy_rows: np.ndarray) -> tuple[sp.csr_matrix, np.ndarray]:
    """P_pi (n_states x n_states CSR, terminal rows 0) and r_pi (n_states, the expected one-step reward,
    0 at terminal states) of the policy with row probabilities ``policy_rows`` (eq. 3.x's
    p(s'|s) = sum_a pi(a|s) p(s'|s, a) and r(s) = sum_a pi(a|s) r(s, a))."""
    pi = _check_rows(mdp, policy_rows)
    W = sp.csr_matrix((pi, (mdp.row_state, np.arange(mdp.n_rows))), shape=(mdp.n_states, mdp.n_rows))
    P = (W @ mdp.matrix).tocsr()
    P.sum_duplicates()
    P.eliminate_zeros()
    r = np.asarray(W @ np.asarray(mdp.row_reward), dtype=np.float64)
    return P, r


def _reachable(G: sp.csr_matrix, sources: np.ndarray) -> np.ndarray:
    """bool (n): the nodes reachable in the graph G (an edge i -> j where G[i, j] != 0) from any of
    ``sources`` (bool mask), by one breadth-first search from an added node linked to every source."""
    n = G.shape[0]
    src = np.flatnonzero(sources)
    link = sp.csr_matrix((np.ones(src.size), (np.zeros(src.size, dtype=np.int64), src)), shape=(1, n + 1))
    aug = sp.vstack([sp.hstack([G, sp.csr_matrix((n, 1))]), link]).tocsr()
    order = breadth_first_order(aug, n, directed=True, return_predecessors=False)
    seen = np.zeros(n + 1, dtype=bool)
    seen[order] = True
    return seen[:n]


def _closed_classes(P: sp.csr_matrix, states: np.ndarray) -> list[np.ndarray]:
    """The closed communicating classes of the chain P restricted to ``states`` (closed under P)."""
    sub = P[states][:, states]
    n_comp, label = connected_components(sub, directed=True, connection="strong")
    coo = sub.tocoo()
    leaves = np.zeros(n_comp, dtype=bool)
    leaves[label[coo.row][label[coo.row] != label[coo.col]]] = True
    return [states[label == c] for c in range(n_comp) if not leaves[c]]


def _stationary(P: sp.csr_matrix, cls: np.ndarray) -> np.ndarray:
    """The stationary distribution of the closed class ``cls`` (pi = pi P_C, sum 1)."""
    m = cls.size
    if m == 1:
        return np.ones(1)
    Q = (sp.identity(m, format="csr") - P[cls][:, cls]).T.tolil()
    Q[0, :] = np.ones(m)  # one balance equation replaced by the sum of the probabilities
    rhs = np.zeros(m)
    rhs[0] = 1.0
    x = spla.spsolve(Q.tocsc(), rhs)
    x = np.maximum(np.asarray(x).reshape(-1), 0.0)
    return x / x.sum()


def on_policy_distribution(mdp: TabularMDP, policy_rows: np.ndarray, *, start: int | None = None) -> np.ndarray:
    """mu, float64 (n_states), sums to 1, 0 at terminal states (section 9.2).

    Episodic (a terminal state is reachable from the start): the expected number of visits eta(s) per episode
    from ``start`` (eq. 9.2: eta = h + P_pi^T eta, h the start distribution) normalised (eq. 9.3), counted
    without discount as the book's eq. 9.2 (the box's discounted variant is not used). ValueError when the
    policy never ends some episodes (eta would be infinite). Continuing (no terminal state reachable): the
    long-run share of time in each state from ``start``: the stationary distribution of P_pi, mixed over its
    closed classes by the probability of reaching each. ``start`` None: h uniform over the non-terminal states.
    """
    n = mdp.n_states
    terminal = np.asarray(mdp.terminal)
    P, _ = policy_chain(mdp, policy_rows)
    h = np.zeros(n)
    if start is None:
        live = np.flatnonzero(~terminal)
        if live.size == 0:
            raise ValueError("on-policy distribution: the model has no non-terminal state")
        h[live] = 1.0 / live.size
    else:
        start = int(start)
        if not 0 <= start < n:
            raise ValueError(f"start: state {start} is out of range 0..{n - 1}")
        if terminal[start]:
            raise ValueError(f"start: state {start} is terminal")
        h[start] = 1.0
    # the states reachable from where episodes begin
    reach = np.flatnonzero(_reachable(P, h > 0))
    if terminal[reach].any():
        live = reach[~terminal[reach]]
        # every live reachable state must reach a terminal one (else the expected visits are infinite)
        back = _reachable(P.T.tocsr(), terminal)
        stuck = live[~back[live]]
        if stuck.size:
            raise ValueError(f"on-policy distribution: the policy never ends the episodes that reach state "
                             f"{int(stuck[0])} ({stuck.size} such states): the expected visits are infinite")
        A = (sp.identity(live.size, format="csc") - P[live][:, live].T).tocsc()
        eta = np.zeros(n)
        eta[live] = np.asarray(spla.spsolve(A, h[live])).reshape(-1)
        eta = np.maximum(eta, 0.0)
        return read_only(eta / eta.sum())
    # continuing: the Cesaro limit of the visits, over the closed classes the start reaches
    classes = _closed_classes(P, reach)
    mu = np.zeros(n)
    in_class = np.zeros(n, dtype=bool)
    for cls in classes:
        in_class[cls] = True
    transient = reach[~in_class[reach]]
    if transient.size:
        # the probability of ending in each class: solve (I - Q) B = R from the transient states
        Qt = (sp.identity(transient.size, format="csc") - P[transient][:, transient]).tocsc()
        lu = spla.splu(Qt)
    for cls in classes:
        share = h[cls].sum()
        if transient.size:
            into = np.asarray(P[transient][:, cls].sum(axis=1)).reshape(-1)
            share += float(h[transient] @ lu.solve(into))
        if share > 0:
            mu[cls] += share * _stationary(P, cls)
    return read_only(mu / mu.sum())


def value_error(values: np.ndarray, v: np.ndarray, mu: np.ndarray) -> float:
    """VE = sum_s mu(s) (values(s) - v(s))^2 (eq. 9.1): the mu-weighted mean squared value error."""
    e = np.asarray(values, dtype=np.float64) - np.asarray(v, dtype=np.float64)
    return float(np.asarray(mu, dtype=np.float64) @ (e * e))


# ====================================================================== the fixed points
@dataclass(frozen=True)
class FixedPoint:
    """A weight vector, the values it gives (X w) and their VE."""

    weights: np.ndarray
    """float64 (d,), read-only."""
    values: np.ndarray
    """float64 (n_states,), read-only: v_hat = X w (0 at terminal states)."""
    ve: float
    """VE (eq. 9.1) of ``values`` against the true v under mu."""


def _fixed(X: np.ndarray, w: np.ndarray, v: np.ndarray | None, mu: np.ndarray) -> FixedPoint:
    w = np.asarray(w, dtype=np.float64).copy()
    vals = np.asarray(X @ w, dtype=np.float64).reshape(-1)
    ve = value_error(vals, v, mu) if v is not None else float("nan")
    return FixedPoint(read_only(w), read_only(vals), ve)


def _as_matrix(X: np.ndarray):
    """A sparse copy of X when most entries are 0 (tabular, aggregation, tiles), else X itself."""
    X = np.asarray(X, dtype=np.float64)
    if X.size and np.count_nonzero(X) < 0.25 * X.size:
        return sp.csr_matrix(X)
    return X


def _dense(M) -> np.ndarray:
    return M.toarray() if sp.issparse(M) else np.asarray(M)


def best_fit(X: np.ndarray, v: np.ndarray, mu: np.ndarray) -> FixedPoint:
    """argmin_w VE(w) = sum_s mu(s) (x(s).w - v(s))^2 (eq. 9.1): where gradient Monte Carlo converges
    (section 9.3). Solved by the weighted normal equations X^T D X w = X^T D v (D = diag(mu)) with a
    least-squares solver, so features that mu never sees or that repeat others give the minimum-norm
    point (its values on the states mu sees are the unique best fit)."""
    X = np.asarray(X, dtype=np.float64)
    mu = np.asarray(mu, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    Xm = _as_matrix(X)
    DX = Xm.multiply(mu[:, None]).tocsr() if sp.issparse(Xm) else X * mu[:, None]
    G = _dense(Xm.T @ DX)
    c = np.asarray(DX.T @ v).reshape(-1)
    w = la.lstsq(G, c, cond=1e-12, lapack_driver="gelsy")[0]
    return _fixed(X, w, v, mu)


def _td_system(mdp: TabularMDP, X: np.ndarray, target_rows: np.ndarray, mu: np.ndarray):
    P, r = policy_chain(mdp, target_rows)
    Xm = _as_matrix(X)
    mu = np.asarray(mu, dtype=np.float64)
    DX = Xm.multiply(mu[:, None]).tocsr() if sp.issparse(Xm) else X * mu[:, None]
    PX = P @ Xm
    A = _dense(DX.T @ Xm) - mdp.discount * _dense(DX.T @ PX)
    b = np.asarray(DX.T @ r).reshape(-1)
    return A, b


def td_fixed_point(mdp: TabularMDP, X: np.ndarray, target_rows: np.ndarray, mu: np.ndarray,
                   *, v: np.ndarray | None = None) -> FixedPoint:
    """The TD fixed point w_TD = A^-1 b, A = X^T D (I - gamma P_pi) X, b = X^T D r_pi, D = diag(mu) (eq. 9.12),
    where semi-gradient TD(0) and LSTD converge (sections 9.4, 9.8). ``mu`` may be the behaviour policy's
    distribution (off-policy, section 11.4: then A need not be positive definite and TD may diverge).

    Features that mu never sees (all their values 0 where mu > 0) get weight 0: their rows of A and b are 0
    and they change no value under mu. When A is still singular, the least-squares (minimum-norm) point is
    returned only if it is meaningful: the equations are consistent and A's rank equals the rank of the
    features under mu (the singularity comes from repeated features, and every fixed point gives the same
    values). Otherwise ValueError: "the TD fixed point does not exist: A is singular ...". ``v``: the true
    values, for the returned VE (NaN without it)."""
    X = np.asarray(X, dtype=np.float64)
    mu = np.asarray(mu, dtype=np.float64)
    A, b = _td_system(mdp, X, target_rows, mu)
    d = X.shape[1]
    seen = (mu @ (X * X)) > 0
    idx = np.flatnonzero(seen)
    w = np.zeros(d)
    if idx.size:
        As, bs = A[np.ix_(idx, idx)], b[idx]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", la.LinAlgWarning)
                w[idx] = la.solve(As, bs)
        except (la.LinAlgError, la.LinAlgWarning):
            # the rank of the features under mu, sqrt(D) X, from the eigenvalues of X^T D X (d x d, cheap)
            G = (X[:, idx] * mu[:, None]).T @ X[:, idx]
            eig = np.linalg.eigvalsh((G + G.T) / 2)
            rank_x = int(np.count_nonzero(eig > max(eig.max(), 0.0) * idx.size * 1e-13))
            rank_a = int(np.linalg.matrix_rank(As, tol=np.abs(As).max() * max(As.shape) * 1e-12))
            ws = la.lstsq(As, bs, cond=1e-12, lapack_driver="gelsy")[0]
            resid = np.linalg.norm(As @ ws - bs)
            if rank_a < rank_x or resid > 1e-8 * max(1.0, float(np.linalg.norm(bs))):
                raise ValueError(f"the TD fixed point does not exist: A is singular (rank {rank_a} of {idx.size} "
                                 f"features seen, which have rank {rank_x} under mu)") from None
            w[idx] = ws
    return _fixed(X, w, v, mu)


@dataclass(frozen=True, eq=False)
class ApproxAnswer:
    """What a linear learner is measured against, computed once from the model."""

    v: np.ndarray
    """float64 (n_states): the true V of the evaluated (target) policy (prediction), V* for control."""
    mu: np.ndarray
    """float64 (n_states): the distribution VE weighs by (off-policy: the behaviour's)."""
    best: FixedPoint
    """argmin VE: where gradient Monte Carlo converges."""
    td: FixedPoint | None
    """The TD fixed point: where semi-gradient TD and LSTD converge (None when it does not exist)."""
    td_note: str
    """Why ``td`` is None (or a remark about it); "" when there is nothing to say."""
    bound: float | None
    """VE(best) / (1 - gamma) (eq. 9.14) on-policy below discount 1, else None."""
    X: np.ndarray
    """float64 (n_states, d): the state features used."""


def policy_values(mdp: TabularMDP, policy_rows: np.ndarray) -> np.ndarray:
    """v_pi, float64 (n_states): the exact value of the policy (a linear solve, eq. 4.4)."""
    from mdpviz.solvers.policy_iteration import evaluate_weights

    pi = _check_rows(mdp, policy_rows)
    W = sp.csr_matrix((pi, (mdp.row_state, np.arange(mdp.n_rows))), shape=(mdp.n_states, mdp.n_rows))
    return np.asarray(evaluate_weights(mdp, W), dtype=np.float64)


def approximation_answer(mdp: TabularMDP, X: np.ndarray, target_rows: np.ndarray, *, start: int,
                         behaviour_rows: np.ndarray | None = None, v: np.ndarray | None = None) -> ApproxAnswer:
    """The exact answer for the target policy with features X: v (solved unless given), mu (the target's
    on-policy distribution from ``start``, or the behaviour's when ``behaviour_rows`` is given), the best fit,
    the TD fixed point (None with the reason in ``td_note`` when it does not exist) and, on-policy below
    discount 1, the bound VE(best) / (1 - gamma) of eq. 9.14 (it needs mu to be the target's own
    distribution, so off-policy it is None)."""
    X = read_only(np.ascontiguousarray(X, dtype=np.float64))
    if X.ndim != 2 or X.shape[0] != mdp.n_states:
        raise ValueError(f"features: X is {X.shape}, not (n_states={mdp.n_states}, d)")
    target_rows = _check_rows(mdp, target_rows, "target policy")
    if v is None:
        v = policy_values(mdp, target_rows)
    v = read_only(np.array(v, dtype=np.float64).reshape(-1))
    off = behaviour_rows is not None
    mu = on_policy_distribution(mdp, behaviour_rows if off else target_rows, start=start)
    best = best_fit(X, v, mu)
    note = ""
    try:
        td = td_fixed_point(mdp, X, target_rows, mu, v=v)
        if off:
            note = "off-policy: A is built with the behaviour's distribution and need not be positive definite"
    except ValueError as e:
        td, note = None, str(e)
    bound = best.ve / (1.0 - mdp.discount) if (mdp.discount < 1.0 and not off) else None
    return ApproxAnswer(v=v, mu=mu, best=best, td=td, td_note=note, bound=bound, X=X)


# ====================================================================== expected updates
@dataclass(frozen=True)
class ExpectedStep:
    """One step of an expected (deterministic) update."""

    step: int
    """1, 2, ...: the number of updates made."""
    weights: np.ndarray
    """float64 (d,), read-only: w after this step."""
    aux: np.ndarray | None
    """TDC's second weight vector (the book's v, eq. 11.7), read-only; None for semi-gradient TD."""
    ve: float
    """VE (eq. 9.1) of X w against the target's true v under mu."""
    pbe: float = float("nan")
    """The projected Bellman error PBE(w) (eq. 11.22) of w under mu: what TDC drives to 0 (figure 11.5)."""


def projected_bellman_error(mdp: TabularMDP, X: np.ndarray, target_rows: np.ndarray, mu: np.ndarray,
                            w: np.ndarray) -> float:
    """PBE(w) = ||Pi delta_w||^2_mu = (X^T D delta_w)^T (X^T D X)^+ (X^T D delta_w) (eq. 11.22, with the
    pseudo-inverse when features repeat), delta_w = r_pi + gamma P_pi X w - X w the expected TD error."""
    return pbe_function(mdp, X, target_rows, mu)(w)


def pbe_function(mdp: TabularMDP, X: np.ndarray, target_rows: np.ndarray, mu: np.ndarray):
    """``pbe(w)``: :func:`projected_bellman_error` of many weight vectors, the chain, X^T D and (X^T D X)^+
    computed once (a learner's snapshots: figure 11.5's sampled curve)."""
    P, r = policy_chain(mdp, target_rows)
    X = np.asarray(X, dtype=np.float64)
    mu = np.asarray(mu, dtype=np.float64)
    xd = (X * mu[:, None]).T
    m = np.linalg.pinv(xd @ X)
    gamma = float(mdp.discount)

    def pbe(w: np.ndarray) -> float:
        vals = X @ np.asarray(w, dtype=np.float64)
        g = xd @ (r + gamma * (P @ vals) - vals)
        return float(g @ (m @ g))
    return pbe


def expected_updates(mdp: TabularMDP, X: np.ndarray, target_rows: np.ndarray, mu: np.ndarray, *, method: str,
                     w0, alpha: float, beta: float = 0.0, steps: int,
                     v: np.ndarray | None = None) -> Iterator[ExpectedStep]:
    """The expected update, one :class:`ExpectedStep` per step (steps 1..``steps``; w0 is step 0).

    Semi-gradient TD ("off-td"; "semi-td" is the same with on-policy mu), the book's "semi-gradient DP" of
    figure 11.2 (right): w <- w + alpha X^T D (r_pi + gamma P_pi X w - X w), D = diag(mu) (the importance
    ratio turns the behaviour's expectation into the target's, eq. 11.2). TDC (section 11.7, figure 11.5
    right): with E[rho delta x] = X^T D (r_pi + gamma P_pi X w - X w), E[rho x' x^T] = (P_pi X)^T D X and
    E[x x^T] = X^T D X, w <- w + alpha (E[rho delta x] - gamma E[rho x' x^T] u) and
    u <- u + beta (E[rho delta x] - E[x x^T] u), u (the book's v) from 0. ``v``: the target's true values for
    VE (solved from the model when None). Each step also carries PBE(w) (eq. 11.22): on Baird's counterexample
    expected TDC drives the PBE to 0 while VE stays near 2^2 after 1000 steps and falls only very slowly (the
    book's section 11.7 on figure 11.5)."""
    rule = EXPECTED_RULES.get(method)
    if rule is None:
        raise ValueError(f"method: the expected update is defined for {', '.join(EXPECTED_RULES)}, not {method!r}")
    X = np.asarray(X, dtype=np.float64)
    mu = np.asarray(mu, dtype=np.float64)
    d = X.shape[1]
    w = np.array(w0, dtype=np.float64).reshape(-1)
    if w.shape != (d,):
        raise ValueError(f"initial_weights: {w.size} numbers for {d} features")
    if not (np.isfinite(alpha) and alpha > 0):
        raise ValueError(f"alpha: must be a positive number, got {alpha}")
    if rule == "tdc" and not (np.isfinite(beta) and beta > 0):
        raise ValueError(f"beta: TDC needs a positive second step size, got {beta}")
    steps = int(steps)
    if steps < 0:
        raise ValueError(f"steps: must not be negative, got {steps}")
    P, r = policy_chain(mdp, target_rows)
    if v is None:
        v = policy_values(mdp, target_rows)
    gamma = mdp.discount
    DX = X * mu[:, None]
    # expected TD error term: X^T D (r + gamma P X w - X w) = c - M w
    c = DX.T @ r
    PX = np.asarray(P @ X)
    M = DX.T @ X - gamma * (DX.T @ PX)
    C = DX.T @ X  # E[x x^T]
    Cx = PX.T @ DX  # E[rho x' x^T] = (P X)^T D X
    Cinv = np.linalg.pinv(C)
    u = np.zeros(d)
    for k in range(1, steps + 1):
        g = c - M @ w
        if rule == "semi-gradient":
            w = w + alpha * g
            aux = None
        else:
            w_new = w + alpha * (g - gamma * (Cx @ u))
            u = u + beta * (g - C @ u)
            w = w_new
            aux = read_only(u.copy())
        g = c - M @ w
        yield ExpectedStep(k, read_only(w.copy()), aux, value_error(X @ w, v, mu), float(g @ (Cinv @ g)))


__all__ = [
    "ApproxAnswer", "EXPECTED_RULES", "ExpectedStep", "FixedPoint", "approximation_answer", "best_fit",
    "expected_updates", "on_policy_distribution", "policy_chain", "policy_values", "projected_bellman_error",
    "td_fixed_point",
    "value_error",
]
