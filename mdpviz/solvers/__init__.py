"""Steppable solvers: generators that yield one immutable :class:`Sweep` per sweep.

``solve(mdp, method=...)`` drives one to the end and returns its :class:`Solution`.
The learners from experience (TD, Monte Carlo, SARSA, Q-learning: :data:`LEARNERS`) are reached as
``learner(mdp, method, **options)`` (:mod:`mdpviz.solvers.learning`), kept apart from the DP
:data:`METHODS`: they sample episodes and yield one snapshot per episode, not per sweep.
Plain numpy/scipy/PuLP; never imports Qt.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from mdpviz.solvers.sweep import VALUE_LIMIT, check_value_scale

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
from mdpviz.solvers.asynchronous import asynchronous_value_iteration, prioritized_sweeping
from mdpviz.solvers.evaluation import policy_evaluation
from mdpviz.solvers.learning import LEARNERS, ExperienceLearner, LearningStep, learn, learner
from mdpviz.solvers.modified_policy_iteration import modified_policy_iteration
from mdpviz.solvers.relative_value_iteration import relative_value_iteration
from mdpviz.solvers.sweep import Solution, Sweep, SolverGen, greedy, run
from mdpviz.solvers.value_iteration import gauss_seidel_value_iteration, value_iteration

METHODS: dict[str, Callable[..., SolverGen]] = {
    "vi": value_iteration,
    "gs": gauss_seidel_value_iteration,
    "pi": policy_iteration,
    "hpi": policy_iteration,
    "lp": linear_programming,
    "bi": backward_induction_mdp,
    "async-vi": asynchronous_value_iteration,
    "prioritized": prioritized_sweeping,
    "evaluate": policy_evaluation,
    "mpi": modified_policy_iteration,
    "rvi": relative_value_iteration,
}
"""Solver ids: vi = synchronous (Jacobi) value iteration, gs = in-place (Gauss-Seidel) value
iteration, pi/hpi = Howard policy iteration (``evaluation="iterative"``: pymdptoolbox's
``PolicyIteration(eval_type=1)``), lp = linear programming (PuLP/CBC), bi = backward induction
(acyclic models only: exact, one layer per step), async-vi = asynchronous value iteration (one
state per step, CS188 q4), prioritized = prioritized sweeping (CS188 q5), evaluate = iterative
evaluation of a given policy (Sutton and Barto 4.1), mpi = modified policy iteration
(pymdptoolbox's ``PolicyIterationModified``), rvi = relative value iteration for the average reward
(pymdptoolbox's ``RelativeValueIteration``)."""

METHOD_NAMES: dict[str, str] = {
    "vi": "value iteration (synchronous)",
    "gs": "value iteration (in place)",
    "pi": "policy iteration",
    "lp": "linear programming",
    "bi": "backward induction",
    "async-vi": "asynchronous value iteration",
    "prioritized": "prioritized sweeping",
    "evaluate": "policy evaluation",
    "mpi": "modified policy iteration",
    "rvi": "relative value iteration (average reward)",
}
"""Display names of the solver ids."""


COMMON_OPTIONS = ("tol", "max_sweeps", "max_iterations", "tie_tol")
"""Options every method accepts through :func:`solver` / :func:`solve`: ``tol`` (stopping
tolerance of the iterative methods; LP and BI are exact and ignore it, prioritized sweeping stops
on its ``theta``, MPI and RVI take it as their ``epsilon``), ``max_sweeps`` and ``max_iterations``
(the same cap: sweeps of value iteration and evaluation, improvement steps of policy iteration,
single-state steps of async-vi and prioritized (their ``iterations``); ignored by LP and BI) and
``tie_tol`` (ties of the greedy policy)."""


def _normalise_options(method: str, options: dict) -> dict:
    """Map the common options onto what ``method``'s function takes (see :data:`COMMON_OPTIONS`)."""
    opts = dict(options)
    cap = [opts.pop(k) for k in ("max_sweeps", "max_iterations") if k in opts]
    if len(cap) == 2 and cap[0] != cap[1]:
        raise ValueError(f"max_sweeps ({cap[0]}) and max_iterations ({cap[1]}) are the same cap; give one")
    if method in ("vi", "gs"):
        if cap:
            opts["max_sweeps"] = cap[0]
    elif method in ("pi", "hpi"):
        if cap:
            opts["max_iterations"] = cap[0]
    elif method == "bi":
        opts.pop("tol", None)  # exact: no tolerance, no cap
    elif method in ("async-vi", "prioritized"):
        if cap:
            opts["iterations"] = _one(opts, "iterations", cap[0], "max_sweeps")
        if method == "prioritized":
            opts.pop("tol", None)  # stops when its queue is empty (theta decides what is queued)
    elif method == "evaluate":
        if cap:
            opts["max_sweeps"] = cap[0]
    elif method in ("mpi", "rvi"):
        if cap:
            opts["max_iterations"] = cap[0]
        if "tol" in opts:  # pymdptoolbox's epsilon is their tolerance
            opts["epsilon"] = _one(opts, "epsilon", opts.pop("tol"), "tol")
    return opts


def _one(opts: dict, name: str, value: object, common: str) -> object:
    """``value`` (given as the common option ``common``) unless ``opts`` already has ``name`` with
    another value: one setting given twice, differently."""
    if name in opts and opts[name] != value:
        raise ValueError(f"{common} ({value}) and {name} ({opts[name]}) are the same setting; give one")
    return value


def solver(mdp: TabularMDP, method: str = "vi", **options) -> SolverGen:
    """The generator of ``method`` on ``mdp``: the common options (:data:`COMMON_OPTIONS`) for every
    method, plus what the solver function itself takes (e.g. ``evaluation_sweeps`` of "pi")."""
    try:
        fn = METHODS[method]
    except KeyError:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}") from None
    check_value_scale(mdp)
    opts = _normalise_options(method, options)
    try:
        return fn(mdp, **opts)
    except TypeError as e:  # an option this method does not take: say which, not a Python error
        raise ValueError(f"method {method!r} does not take the option(s) given ({e})") from None


def solve(mdp: TabularMDP, method: str = "vi", *, record: bool = False, **options) -> Solution:
    """Solve ``mdp`` to the end: ``.values``, ``.policy``, ``.sweeps``, ``.converged``.

    ``method``: one of :data:`METHODS` ("vi", "gs", "pi", "lp", "bi", ...); ``options`` go to the solver (``tol``,
    ``max_sweeps`` for value iteration, ...). ``record=True`` keeps every snapshot in ``.history``.
    """
    sol = run(solver(mdp, method, **options), record=record)
    if not np.all(np.isfinite(sol.values)):  # never a silently wrong answer (the check above is a bound)
        raise ValueError(f"{METHOD_NAMES.get(method, method)} gave values that are not finite: the rewards are "
                         "too large for floating point (scale them down)")
    if method in ("vi", "gs") and mdp.discount >= 1.0 and sol.converged and not mdp.is_two_player:
        sol = _end_ties_towards_terminals(mdp, sol)
    return sol


def _end_ties_towards_terminals(mdp: TabularMDP, sol: Solution) -> Solution:
    """With discount 1 a free loop can tie with the optimal way out, and value iteration's lowest-action
    tie rule may then return a policy that loops for ever (worth 0, not V*): break such ties towards
    the terminal states (:func:`~mdpviz.solvers.policy_iteration.progress_rows`), values unchanged."""
    import dataclasses

    import numpy as np

    from mdpviz.solvers.policy_iteration import progress_rows
    from mdpviz.solvers.sweep import policy_to_rows, rows_to_policy

    q = mdp.q_values(sol.values)
    best, _ = greedy(mdp, q)
    rows = policy_to_rows(mdp, np.where(mdp.terminal, -1, sol.policy))
    fixed = progress_rows(mdp, q, best, rows)
    if np.array_equal(fixed, rows):
        return sol
    policy = rows_to_policy(mdp, fixed)
    policy.flags.writeable = False
    return dataclasses.replace(sol, policy=policy)


__all__ = [
    "COMMON_OPTIONS", "METHODS", "VALUE_LIMIT", "check_value_scale", "METHOD_NAMES", "ImproperPolicyError", "Solution", "Sweep", "SolverGen",
    "evaluate_policy", "evaluate_stochastic_policy", "evaluate_weights", "hitting_probabilities",
    "row_weights_deterministic", "row_weights_stochastic", "gauss_seidel_value_iteration", "greedy",
    "linear_programming", "policy_iteration", "run", "solve", "solver", "value_iteration",
    "LEARNERS", "ExperienceLearner", "LearningStep", "learn", "learner",
]
