"""Steppable solvers: generators that yield one immutable :class:`Sweep` per sweep.

``solve(mdp, method=...)`` drives one to the end and returns its :class:`Solution`. Every method, solver
or learner, is one line of :mod:`mdpviz.solvers.registry` (id, title, typed parameters, what it needs);
``start(method, mdp, **options)`` builds its generator from that line.
The learners from experience (TD, Monte Carlo, SARSA, Q-learning: :data:`LEARNERS`) are reached as
``learner(mdp, method, **options)`` (:mod:`mdpviz.solvers.learning`), kept apart from the DP
:data:`METHODS`: they sample episodes and yield one snapshot per episode, not per sweep.
Plain numpy/scipy/PuLP; never imports Qt.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Callable

import numpy as np

from mdpviz.solvers import registry
from mdpviz.solvers.sweep import VALUE_LIMIT, check_value_scale

from mdpviz.core.mdp import TabularMDP
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
from mdpviz.solvers.aima import aima_value_iteration
from mdpviz.solvers.sweep import (
    Q_FROM, TIE_TOL, TIES, Solution, Sweep, SolverGen, action_ranks, check_choice, greedy, greedy_policy, ordered_policy,
    run, tie_tolerance,
)
from mdpviz.solvers.value_iteration import gauss_seidel_value_iteration, value_iteration

class _MethodView(Mapping):
    """A live read-only view of the registry's solvers (:mod:`mdpviz.solvers.registry`): a method registered
    later is in it too. ``value(spec)`` gives each id's value."""

    def __init__(self, value: Callable, *, aliases: bool) -> None:
        self._value = value
        self._aliases = aliases

    def _ids(self) -> tuple[str, ...]:
        return registry.ids("solver", aliases=self._aliases)

    def __getitem__(self, key: str):
        if key not in self._ids():
            raise KeyError(key)
        return self._value(registry.get(key))

    def __iter__(self):
        return iter(self._ids())

    def __len__(self) -> int:
        return len(self._ids())

    def __repr__(self) -> str:
        return repr(dict(self))


METHODS: Mapping[str, Callable[..., SolverGen]] = _MethodView(lambda spec: spec.load(), aliases=True)
"""Solver ids (with their aliases, e.g. "hpi" for "pi") and their generator functions, read from the
registry (:data:`mdpviz.solvers.registry.ENTRIES`, where each id's title and lesson say what it is)."""

METHOD_NAMES: Mapping[str, str] = _MethodView(lambda spec: spec.title, aliases=False)
"""Display names of the solver ids (the registry's titles)."""


COMMON_OPTIONS = ("tol", "max_sweeps", "max_iterations", "tie_tol", "ties", "q_from")
"""Options every method accepts through :func:`solver` / :func:`solve`: ``tol`` (stopping
tolerance of the iterative methods; LP and BI are exact and ignore it, prioritized sweeping stops
on its ``theta``, MPI and RVI take it as their ``epsilon``), ``max_sweeps`` and ``max_iterations``
(the same cap: sweeps of value iteration and evaluation, improvement steps of policy iteration,
single-state steps of async-vi and prioritized (their ``iterations``); ignored by LP and BI),
``tie_tol`` (ties of the greedy policy), and the two course conventions (:data:`~mdpviz.solvers.sweep.TIES`,
:data:`~mdpviz.solvers.sweep.Q_FROM`): ``ties`` ("tolerance", the default, or "strict": the float
maximum, exact ties to the lowest action id) and ``q_from`` ("previous", the default: a sweep's policy
backs up from V_(k-1); "current": from V_k, CS188's iteration k; it changes the synchronous and in-place
value iteration sweeps, whose policy is the only one chosen from other values than the snapshot's).
"vi" also takes ``sequence``: "standard" or "aima" (:func:`~mdpviz.solvers.aima.aima_value_iteration`,
aima-python's value iteration with its ``epsilon``; ``tol`` is then not taken); "vi" and "gs" take
``action_order`` (action ids or labels: exact ties, or ties within the tolerance, go to the first in
this order instead of the lowest id; aima-python's is east, north, west, south)."""

SEQUENCES = ("standard", "aima")
"""The value-iteration sequences of the option ``sequence`` of "vi" (see :data:`COMMON_OPTIONS`)."""


def _normalise_options(spec: registry.MethodSpec, options: dict) -> dict:
    """Map the common options onto what the method of ``spec`` takes (see :data:`COMMON_OPTIONS`): the
    cap to its :attr:`~mdpviz.solvers.registry.MethodSpec.cap_as`, ``tol`` to its ``tol_as`` (or dropped)."""
    opts = dict(options)
    cap = [opts.pop(k) for k in ("max_sweeps", "max_iterations") if k in opts]
    if len(cap) == 2 and cap[0] != cap[1]:
        raise ValueError(f"max_sweeps ({cap[0]}) and max_iterations ({cap[1]}) are the same cap; give one")
    if cap and spec.cap_as is not None:
        opts[spec.cap_as] = _one(opts, spec.cap_as, cap[0], "max_sweeps")
    if "tol" in opts and spec.tol_as != "tol":
        tol = opts.pop("tol")
        if spec.tol_as is not None:  # (pymdptoolbox's epsilon is their tolerance)
            opts[spec.tol_as] = _one(opts, spec.tol_as, tol, "tol")
    return opts


def _one(opts: dict, name: str, value: object, common: str) -> object:
    """``value`` (given as the common option ``common``) unless ``opts`` already has ``name`` with
    another value: one setting given twice, differently."""
    if name in opts and opts[name] != value:
        raise ValueError(f"{common} ({value}) and {name} ({opts[name]}) are the same setting; give one")
    return value


def solver(mdp: TabularMDP, method: str = registry.DEFAULT_SOLVER, **options) -> SolverGen:
    """The generator of ``method`` on ``mdp``: the common options (:data:`COMMON_OPTIONS`) for every
    method, plus what the solver function itself takes (e.g. ``evaluation_sweeps`` of "pi")."""
    spec = registry.find(method)
    if spec is None or spec.kind != "solver":
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    fn = spec.load()
    check_value_scale(mdp)
    opts = _normalise_options(spec, options)
    q_from = check_choice("q_from", opts.pop("q_from", "previous"), Q_FROM)
    if "ties" in opts:
        ties = opts.pop("ties")
        strict = tie_tolerance(ties, opts.get("tie_tol", TIE_TOL))
        if ties == "strict":
            if opts.get("tie_tol", 0.0) != 0.0:
                raise ValueError(f"ties 'strict' and tie_tol ({opts['tie_tol']}) are the same setting; give one")
            opts["tie_tol"] = strict
    rank = None
    if "action_order" in opts:
        if not spec.takes("action_order"):
            raise ValueError(f"action_order is value iteration's option ({_methods_taking('action_order')}), "
                             f"not {method!r}'s")
        rank = action_ranks(mdp, opts.pop("action_order"))
    aima = False
    if "sequence" in opts:
        if check_choice("sequence", opts.pop("sequence"), SEQUENCES) == "aima":
            aima = True
            if not spec.takes("sequence"):
                raise ValueError(f"sequence 'aima' is value iteration's ({_methods_taking('sequence')}), "
                                 f"not {method!r}'s")
            if "tol" in opts:
                raise ValueError("AIMA's value iteration stops by its epsilon (delta <= epsilon (1 - gamma) / gamma); "
                                 "give epsilon, not tol")
            fn = aima_value_iteration
    try:
        gen = fn(mdp, **opts)
    except TypeError as e:  # an option this method does not take: say which, not a Python error
        raise ValueError(f"method {method!r} does not take the option(s) given ({e})") from None
    if spec.value_iteration and (q_from == "current" or rank is not None):
        gen = restated_policy(mdp, gen, tie_tol=opts.get("tie_tol", TIE_TOL), q_from=q_from, rank=rank,
                              initial=opts.get("initial"), final_from_values=aima)
    return gen


def start(method: str, mdp: TabularMDP, **options):
    """The generator of any registered method on ``mdp`` with ``options`` (checked now: ValueError): a
    solver's sweeps through :func:`solver` (the common options mapped, the conventions applied), a
    learner's episodes through its registry line's entry point (``fn(mdp, method, **options)``). The
    window's controller and the command line run what this builds."""
    spec = registry.get(method)
    if spec.kind == "solver":
        return solver(mdp, method, **options)
    return spec.load()(mdp, spec.id, **options)


def _methods_taking(param: str) -> str:
    """"method 'vi'" or "methods 'vi' and 'gs'": the solvers that take ``param``."""
    found = registry.ids_where("solver", takes=param)
    return ("method " if len(found) == 1 else "methods ") + " and ".join(repr(m) for m in found)


def restated_policy(mdp: TabularMDP, gen: SolverGen, *, tie_tol: float = TIE_TOL, q_from: str = "current",
                    rank: np.ndarray | None = None, initial: np.ndarray | None = None,
                    final_from_values: bool = False) -> SolverGen:
    """The sweeps of a value-iteration generator ``gen`` with each sweep's policy chosen again: greedy in
    the sweep's own values V_k (``q_from="current"``: CS188's iteration k) or in the previous sweep's
    (``initial`` or 0 before the first), ties to the action of lowest ``rank`` when given (the option
    ``action_order``; :func:`~mdpviz.solvers.sweep.ordered_policy`); the changed states counted again,
    ``q_from`` set. The Solution's policy: greedy in its values with ``q_from="current"`` or
    ``final_from_values`` (aima-python's ``best_policy(U)``), else the last sweep's. ``gen.send(m)``
    passes through with ``q_from="current"`` (batches of sweeps give the same numbers); with "previous"
    every snapshot is one sweep, so that V_(k-1) is known."""
    import dataclasses

    def choose(values: np.ndarray) -> np.ndarray:
        p = (ordered_policy(mdp, values, rank, tie_tol=tie_tol) if rank is not None
             else greedy_policy(mdp, values, tie_tol=tie_tol)[1])
        p.flags.writeable = False
        return p

    base = np.zeros(mdp.n_states) if initial is None else np.asarray(initial, dtype=np.float64)
    old = None
    req = None
    while True:
        try:
            sw = gen.send(req) if req is not None else next(gen)
        except StopIteration as stop:
            sol: Solution = stop.value
            final = choose(sol.values) if (q_from == "current" or final_from_values or old is None) else old
            return dataclasses.replace(sol, policy=final)
        policy = choose(sw.values if q_from == "current" else base)
        changed = np.flatnonzero(policy != old) if old is not None else np.arange(0)
        changed.flags.writeable = False
        req = yield dataclasses.replace(sw, policy=policy, changed=changed, q_from=q_from)
        if q_from == "previous":
            req = None  # one sweep per snapshot: the next policy backs up from exactly these values
        old, base = policy, sw.values


def solve(mdp: TabularMDP, method: str = registry.DEFAULT_SOLVER, *, record: bool = False, **options) -> Solution:
    """Solve ``mdp`` to the end: ``.values``, ``.policy``, ``.sweeps``, ``.converged``.

    ``method``: one of :data:`METHODS` ("vi", "gs", "pi", "lp", "bi", ...); ``options`` go to the solver (``tol``,
    ``max_sweeps`` for value iteration, ...). ``record=True`` keeps every snapshot in ``.history``.
    """
    sol = run(solver(mdp, method, **options), record=record)
    if not np.all(np.isfinite(sol.values)):  # never a silently wrong answer (the check above is a bound)
        raise ValueError(f"{registry.title(method)} gave values that are not finite: the rewards are "
                         "too large for floating point (scale them down)")
    if registry.get(method).value_iteration and mdp.discount >= 1.0 and sol.converged and not mdp.is_two_player:
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
    "COMMON_OPTIONS", "METHODS", "registry", "start", "Q_FROM", "SEQUENCES", "TIES", "aima_value_iteration", "restated_policy", "VALUE_LIMIT", "check_value_scale", "METHOD_NAMES", "ImproperPolicyError", "Solution", "Sweep", "SolverGen",
    "evaluate_policy", "evaluate_stochastic_policy", "evaluate_weights", "hitting_probabilities",
    "row_weights_deterministic", "row_weights_stochastic", "gauss_seidel_value_iteration", "greedy",
    "linear_programming", "policy_iteration", "run", "solve", "solver", "value_iteration",
    "LEARNERS", "ExperienceLearner", "LearningStep", "learn", "learner",
]
