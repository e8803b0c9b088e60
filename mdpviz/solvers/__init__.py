"""Steppable solvers: generators that yield one immutable :class:`Sweep` per sweep.

``solve(mdp, method=...)`` drives one to the end and returns its :class:`Solution`.
Plain numpy/scipy/PuLP; never imports Qt.
"""
from __future__ import annotations

from typing import Callable

from mdpviz.models.mdp import TabularMDP
from mdpviz.solvers.backward_induction import backward_induction_mdp
from mdpviz.solvers.linear_programming import linear_programming
from mdpviz.solvers.policy_iteration import (
    ImproperPolicyError,
    evaluate_policy,
    evaluate_stochastic_policy,
    evaluate_weights,
    hitting_probabilities,
    policy_iteration,
    row_weights_deterministic,
    row_weights_stochastic,
)
from mdpviz.solvers.sweep import Solution, Sweep, SolverGen, greedy, run
from mdpviz.solvers.value_iteration import gauss_seidel_value_iteration, value_iteration

METHODS: dict[str, Callable[..., SolverGen]] = {
    "vi": value_iteration,
    "gs": gauss_seidel_value_iteration,
    "pi": policy_iteration,
    "hpi": policy_iteration,
    "lp": linear_programming,
    "bi": backward_induction_mdp,
}
"""Solver ids: vi = synchronous (Jacobi) value iteration, gs = in-place (Gauss-Seidel) value
iteration, pi/hpi = Howard policy iteration, lp = linear programming (PuLP/CBC), bi = backward
induction (acyclic models only: exact, one layer per step)."""

METHOD_NAMES: dict[str, str] = {
    "vi": "value iteration (synchronous)",
    "gs": "value iteration (in place)",
    "pi": "policy iteration",
    "lp": "linear programming",
    "bi": "backward induction",
}
"""Display names of the solver ids."""


def solver(mdp: TabularMDP, method: str = "vi", **options) -> SolverGen:
    """The generator of ``method`` on ``mdp`` (options as the solver function takes them)."""
    try:
        fn = METHODS[method]
    except KeyError:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}") from None
    return fn(mdp, **options)


def solve(mdp: TabularMDP, method: str = "vi", *, record: bool = False, **options) -> Solution:
    """Solve ``mdp`` to the end: ``.values``, ``.policy``, ``.sweeps``, ``.converged``.

    ``method``: "vi", "gs", "pi" (alias "hpi"), "lp" or "bi" (acyclic models); ``options`` go to the solver (``tol``,
    ``max_sweeps`` for value iteration, ...). ``record=True`` keeps every snapshot in ``.history``.
    """
    return run(solver(mdp, method, **options), record=record)


__all__ = [
    "METHODS", "METHOD_NAMES", "ImproperPolicyError", "Solution", "Sweep", "SolverGen",
    "evaluate_policy", "evaluate_stochastic_policy", "evaluate_weights", "hitting_probabilities",
    "row_weights_deterministic", "row_weights_stochastic", "gauss_seidel_value_iteration", "greedy",
    "linear_programming", "policy_iteration", "run", "solve", "solver", "value_iteration",
]
