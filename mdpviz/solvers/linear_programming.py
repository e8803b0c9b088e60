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

import math
import time
import warnings

import numpy as np

from mdpviz.core.mdp import TabularMDP, read_only
from mdpviz.solvers.policy_iteration import (
    ImproperPolicyError,
    endless_states,
    evaluate_weights,
    _value_iteration_from_zero,
    harmless_loops,
    progress_rows,
    row_weights_deterministic,
)
from mdpviz.solvers.sweep import TIE_TOL, Solution, SolverGen, check_value_scale, greedy, make_sweep, rows_to_policy

LP_STATUS_MEANING = {
    "Infeasible": "no values satisfy the constraints",
    "Unbounded": "the values are unbounded",
    "Not Solved": "CBC stopped before solving it",
    "Undefined": "CBC could not decide whether it has a solution",
}
"""What PuLP's statuses other than "Optimal" mean for an MDP's linear program."""


def check_lp_applicable(mdp: TabularMDP) -> bool:
    """ValueError for a model the LP does not handle; True when its answer must be checked against
    value iteration from 0 (see below), False when it is exact as it stands.

    With discount 1 the LP is exact when every policy that never ends loses an infinite amount
    (stochastic shortest path assumptions). A loop that pays for ever (reward > 0 for a maximiser)
    makes V* infinite and the LP infeasible (refused by its status). A loop that costs nothing
    makes Bellman's inequality admit values below V* (leaving with -1 beside a free loop: the LP
    says -1, staying is worth 0), so the LP's answer is kept only if value iteration from 0 agrees.
    """
    if mdp.is_two_player:
        raise ValueError("linear programming solves one-player MDPs only; this model has two players (use value iteration)")
    if mdp.discount < 1.0:
        return False
    endless = endless_states(mdp)
    return bool(endless.any() and harmless_loops(mdp, endless).size)


LP_VALUE_LIMIT = 1e20
"""Largest value scale given to CBC: it treats numbers from 1e30 on as infinite (an LP with rewards
of 1e45 came back "Infeasible"), and its tolerances are relative to the coefficients."""


def lp_values(mdp: TabularMDP) -> np.ndarray:
    """Solve the LP above with CBC and return its raw values (float64, n_states)."""
    check_value_scale(mdp, limit=LP_VALUE_LIMIT, what="the LP solver's range",
                      advice="solve with value iteration or policy iteration")
    check = check_lp_applicable(mdp)
    maximise = mdp.objective == "max"
    live = ~mdp.terminal
    if not live.any():  # every state terminal: V = 0, nothing to solve (CBC would return no values)
        return np.zeros(mdp.n_states)
    import pulp  # imported on first use (about 0.2 s)

    problem = pulp.LpProblem("mdp", pulp.LpMinimize if maximise else pulp.LpMaximize)
    V = [
        problem.add_variable(f"v{s}", None if live[s] else 0, None if live[s] else 0)
        for s in range(mdp.n_states)
    ]
    problem += pulp.lpSum(V[s] for s in np.flatnonzero(live))
    P = mdp.matrix.copy()
    P.sum_duplicates()
    g = mdp.discount
    rr = mdp.row_reward
    n_constraints = 0
    for r in range(mdp.n_rows):
        s = int(mdp.row_state[r])
        if not live[s]:
            continue
        lo, hi = P.indptr[r], P.indptr[r + 1]
        coef: dict[int, float] = {s: 1.0}
        for j, p in zip(P.indices[lo:hi], P.data[lo:hi]):
            coef[int(j)] = coef.get(int(j), 0.0) - g * float(p)
        terms = [(V[j], c) for j, c in coef.items() if c != 0.0]
        if not terms:  # a sure self-loop with discount 1: V(s) >= r + V(s) holds iff 0 >= r
            if (float(rr[r]) > 0) if maximise else (float(rr[r]) < 0):
                raise ValueError(
                    f"linear programming with discount 1: state {s}, action {int(mdp.row_action[r])} loops on "
                    f"itself for ever collecting {float(rr[r]):g} per step, so the optimal total reward is "
                    f"infinite; use a discount below 1")
            continue
        expr = pulp.LpAffineExpression(terms)
        n_constraints += 1
        if maximise:
            problem += expr >= float(rr[r])
        else:
            problem += expr <= float(rr[r])
    with warnings.catch_warnings():
        # PuLP 3.x warns that its bundled CBC goes away in 4.0; pyproject pins pulp < 4 for that reason.
        warnings.simplefilter("ignore", DeprecationWarning)
        cbc = pulp.PULP_CBC_CMD(msg=False)
    if n_constraints == 0 and live.any():  # every row a free self-loop: nothing holds V down
        raise ValueError(
            "linear programming found no optimal solution: the values are unbounded (every action loops "
            "on itself at no cost, so nothing constrains the values); use value iteration")
    try:
        status = problem.solve(cbc)
    except pulp.PulpSolverError as e:
        raise ValueError(f"linear programming failed: the CBC solver reported an error ({e})") from None
    name = pulp.LpStatus.get(status, str(status))
    if name != "Optimal":
        why = ""
        if mdp.discount >= 1.0 and name in ("Infeasible", "Unbounded"):
            why = ("; with discount 1 this means a loop that never reaches a terminal state "
                   + ("collects reward for ever (infinite total reward)" if name == "Infeasible"
                      else "costs nothing, which leaves the LP's values free") + ": use value iteration")
        raise ValueError(
            f"linear programming found no optimal solution: {LP_STATUS_MEANING.get(name, 'unknown status')} "
            f"(CBC status {name}){why}"
        )
    # a terminal state is 0 by definition; CBC gives no value to one that no constraint mentions
    values = np.array([0.0 if not live[s] else math.nan if v.varValue is None else float(v.varValue)
                       for s, v in enumerate(V)])
    if not np.all(np.isfinite(values)):
        raise ValueError("linear programming returned no value for some states (CBC gave no solution)")
    if check:
        best = _value_iteration_from_zero(mdp)
        if best is None or np.max(np.abs(best - values)) > 1e-6 * (1.0 + np.max(np.abs(best))):
            i = 0 if best is None else int(np.argmax(np.abs(best - values)))
            raise ValueError(
                f"linear programming with discount 1: some states can loop for ever at no cost, and the "
                f"LP's value of state {i} ({values[i]:g}) is not the optimal total reward "
                f"{'(value iteration does not settle)' if best is None else f'({best[i]:g})'}; "
                f"use value iteration, or a discount below 1"
            )
    return values


def linear_programming(
    mdp: TabularMDP,
    *,
    tie_tol: float = TIE_TOL,
    tol: float | None = None,
    max_sweeps: int | None = None,
    max_iterations: int | None = None,
) -> SolverGen:
    """Solve by linear programming; yields one snapshot (phase "lp") and returns the solution.

    The LP is solved exactly (to CBC's tolerance, then the greedy policy is evaluated exactly), so
    the iterative solvers' options ``tol``, ``max_sweeps`` and ``max_iterations`` are accepted
    and ignored: ``solve(mdp, method="lp", tol=1e-9)`` works like the other methods.
    """
    t0 = time.perf_counter()
    raw = lp_values(mdp)
    q = mdp.q_values(raw)
    best, rows = greedy(mdp, q, tie_tol=max(tie_tol, 1e-7))
    if mdp.discount >= 1.0:
        rows = progress_rows(mdp, q, best, rows, tie_tol=max(tie_tol, 1e-7))
    try:
        values = evaluate_weights(mdp, row_weights_deterministic(mdp, rows), x0=raw, zero_loops=True)
    except ImproperPolicyError:
        values = raw
    values = read_only(values)
    policy = read_only(rows_to_policy(mdp, rows))
    zero = np.zeros(mdp.n_states)
    sweep = make_sweep(
        method="lp", phase="lp", iteration=1, values=values, old_values=zero, policy=policy, old_policy=None,
        elapsed=time.perf_counter() - t0, terminal=mdp.terminal, converged=True,
    )
    yield sweep
    return Solution("lp", values, policy, 1, True, 0.0, time.perf_counter() - t0)
