"""The linear-programming formulation of an MDP, solved with PuLP and its bundled CBC.

For a reward-maximising MDP (the course planner of seed 000):

    minimise  sum_s V(s)
    subject to V(s) >= sum_{s'} p(s'|s,a) [r(s,a,s') + gamma V(s')]   for every legal (s, a)
               V(s) = 0 for terminal s

and for a cost-minimising one the mirror image (maximise sum V, V(s) <= Q(s, a)). Its optimum is
V* (Puterman, section 6.9). Alternating two-player games are not a single LP in this form and are
refused. The policy is greedy with respect to the LP's values; the reported values are then the
exact evaluation of that policy, which removes CBC's ~1e-7 primal tolerance from the numbers shown.
"""
from __future__ import annotations

import time
import warnings

import numpy as np

from mdpviz.models.mdp import TabularMDP
from mdpviz.solvers.policy_iteration import ImproperPolicyError, evaluate_weights, row_weights_deterministic
from mdpviz.solvers.sweep import TIE_TOL, Solution, SolverGen, _ro, greedy, make_sweep, rows_to_policy


def lp_values(mdp: TabularMDP) -> np.ndarray:
    """Solve the LP above with CBC and return its raw values (float64, n_states)."""
    if mdp.is_two_player:
        raise ValueError("linear programming solves one-player MDPs only; this model has two players (use value iteration)")
    maximise = mdp.objective == "max"
    import pulp  # imported on first use (about 0.2 s)

    problem = pulp.LpProblem("mdp", pulp.LpMinimize if maximise else pulp.LpMaximize)
    live = ~mdp.terminal
    V = [
        problem.add_variable(f"v{s}", None if live[s] else 0, None if live[s] else 0)
        for s in range(mdp.n_states)
    ]
    problem += pulp.lpSum(V[s] for s in np.flatnonzero(live))
    P = mdp.matrix.copy()
    P.sum_duplicates()
    g = mdp.discount
    rr = mdp.row_reward
    for r in range(mdp.n_rows):
        s = int(mdp.row_state[r])
        if not live[s]:
            continue
        lo, hi = P.indptr[r], P.indptr[r + 1]
        coef: dict[int, float] = {s: 1.0}
        for j, p in zip(P.indices[lo:hi], P.data[lo:hi]):
            coef[int(j)] = coef.get(int(j), 0.0) - g * float(p)
        expr = pulp.LpAffineExpression([(V[j], c) for j, c in coef.items() if c != 0.0])
        if maximise:
            problem += expr >= float(rr[r])
        else:
            problem += expr <= float(rr[r])
    with warnings.catch_warnings():
        # PuLP 3.x warns that its bundled CBC goes away in 4.0; pyproject pins pulp < 4 for that reason.
        warnings.simplefilter("ignore", DeprecationWarning)
        cbc = pulp.PULP_CBC_CMD(msg=False)
    status = problem.solve(cbc)
    if pulp.LpStatus[status] != "Optimal":
        raise ValueError(f"the linear program has no optimal solution (CBC status: {pulp.LpStatus[status]})")
    return np.array([0.0 if v.varValue is None else float(v.varValue) for v in V])


def linear_programming(mdp: TabularMDP, *, tie_tol: float = TIE_TOL) -> SolverGen:
    """Solve by linear programming; yields one snapshot (phase "lp") and returns the solution."""
    t0 = time.perf_counter()
    raw = lp_values(mdp)
    _, rows = greedy(mdp, mdp.q_values(raw), tie_tol=max(tie_tol, 1e-7))
    try:
        values = evaluate_weights(mdp, row_weights_deterministic(mdp, rows), x0=raw)
    except ImproperPolicyError:
        values = raw
    values = _ro(values)
    policy = _ro(rows_to_policy(mdp, rows))
    zero = np.zeros(mdp.n_states)
    sweep = make_sweep(
        method="lp", phase="lp", iteration=1, values=values, old_values=zero, policy=policy, old_policy=None,
        elapsed=time.perf_counter() - t0, terminal=mdp.terminal, converged=True,
    )
    yield sweep
    return Solution("lp", values, policy, 1, True, 0.0, time.perf_counter() - t0)
