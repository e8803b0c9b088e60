"""``mdpviz plan``: solve a course-format MDP file (or a Storm DRN file) and print ``V pi`` per state."""
from __future__ import annotations

import argparse
import inspect

from mdpviz.core.cs747 import format_value_policy
from mdpviz.core.examples import resolve_mdp
from mdpviz.core.modelcheck import load_model_file
from mdpviz.solvers import registry, solve
from mdpviz.commands import positive_float, positive_int

ALGORITHMS = registry.planner_names()
"""--algorithm -> solver id: the registry's ids and aliases (one meaning per word: vi is synchronous value
iteration here as in ``mdpviz solve``), plus the course planner's names of each line's ``planner_aliases``."""

DEFAULT_ALGORITHM = registry.exact_solver()
"""--algorithm's default: the exact solver (policy iteration, exact and fast on every course file)."""


def algorithm_help() -> str:
    """--algorithm's help, from the registry: each method's names and title, then the deprecated names."""
    by_id: dict[str, list[str]] = {}
    for name, method in ALGORITHMS.items():
        if name not in registry.planner_notes():
            by_id.setdefault(method, []).append(name)
    text = "; ".join(f"{'/'.join(names)}: {registry.title(m)}" + (" (default)" if m == DEFAULT_ALGORITHM else "")
                     for m, names in by_id.items())
    return text + "".join(f"; {name}: {note}" for name, note in registry.planner_notes().items())


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "plan",
        help="solve a course-format MDP file",
        description="Solve an MDP in the course file format and print one line per state, "
        "'V pi', with V to 6 decimals (like the course's sol-* files).",
    )
    p.add_argument("--mdp", required=True, help="the MDP file (course format, or Storm's DRN: mdpviz export-model), "
                   "or the name of a shipped example (mdpviz examples)")
    p.add_argument("--algorithm", choices=sorted(ALGORITHMS), default=DEFAULT_ALGORITHM, metavar="NAME",
                   help=algorithm_help())
    p.add_argument("--tol", type=positive_float, default=1e-12,
                   help="value iteration's stopping tolerance (default 1e-12; with discount 1 value iteration can "
                   "need tens of thousands of sweeps to reach it)")
    p.add_argument("--sweeps", type=positive_int, default=None, metavar="K",
                   help="stop after K sweeps (rounds of policy iteration) and print V_K and its greedy policy")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    mdp = load_model_file(resolve_mdp(args.mdp))
    method = ALGORITHMS[args.algorithm]
    opts = {"tol": args.tol} if registry.get(method).value_iteration else {}
    if "linear_solver" in inspect.signature(registry.get(method).load()).parameters:
        # (policy iteration) a course file is small: dense LAPACK, no scipy import (issue 15: < 0.5 s)
        opts["linear_solver"] = "lapack"
    if args.sweeps is not None:
        from mdpviz.commands.solve import solution_after

        sol = solution_after(mdp, method, opts, args.sweeps)
    else:
        sol = solve(mdp, method, **opts)
    if not sol.converged and args.sweeps is None:
        raise ValueError(f"{args.mdp}: {args.algorithm} did not converge in {sol.sweeps} sweeps")
    print(format_value_policy(sol.values, sol.policy), end="")
    return 0
