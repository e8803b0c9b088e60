"""``mdpviz gridworld``: a grid world solved from the command line.

``mdpviz gridworld --grid book|bridge|discount|cliff|maze|FILE [--discount G] [--noise P]
[--living-reward R] [--convention cs188|aima|sutton] [--json]`` prints the values (one row of the grid
per line, walls blank) and the optimal policy as arrows. ``--json`` gives ``values`` as rows from
the top with null for walls, and ``policy`` likewise (arrows, "exit", null for walls and terminal
cells). A map file has one row per line: ``#`` wall, ``S`` start, ``.`` open, numbers for exits
(:mod:`mdpviz.models.gridworld`); a bad map is one line naming file and line, exit status 2.
"""
from __future__ import annotations

import argparse

import numpy as np

from mdpviz.cli import print_json
from mdpviz.models.gridworld import (
    BUILTIN_MAPS, CONVENTIONS, CONVENTION_NAMES, GridGeometry, GridSettings, compile_gridworld, format_rows,
    MAP_SETTINGS, load_map, policy_rows, value_rows,
)
from mdpviz.core.mdp import TabularMDP
from mdpviz.solvers import METHOD_NAMES, Solution, registry, solve
from mdpviz.commands import add_option, positive_float, positive_int
from mdpviz.models.kit.game.options import DISCOUNT_ALIASES

MAX_SWEEPS = 100_000
"""Value-iteration sweeps before the command gives up (values that grow without bound never converge)."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "gridworld",
        help="a grid world (CS188's maps or a map file): values and the optimal policy as arrows",
        description="Solve a grid world and print its values (one grid row per line, walls blank) and the "
        "optimal policy as arrows. Maps: CS188's book, bridge, discount, cliff and maze, or a text file "
        "('#' wall, 'S' start, '.' open, numbers for exits, cells separated by spaces).",
    )
    p.add_argument("--grid", required=True, metavar="book|bridge|discount|cliff|maze|sutton4x4|FILE",
                   help="a built-in map or a map file (also Sutton and Barto's chapter 8 mazes: dyna, blocking, "
                   "shortcut, blocking-after, shortcut-after; the world's change is learn's, not this solve's)")
    add_solver_options(p)
    p.add_argument("--noise", type=float, default=None,
                   help="probability of slipping to a perpendicular direction, noise/2 each side (default 0.2; "
                   "0 on sutton4x4)")
    p.add_argument("--living-reward", type=float, default=None,
                   help="reward of every move from an open cell (AIMA's R(s); default 0, -1 on sutton4x4)")
    p.add_argument("--convention", choices=CONVENTIONS, default=None,
                   help="cs188: an exit cell's one action 'exit' pays its reward (default); aima: R(s) per "
                   "state, exit cells are terminal (sutton4x4's default); sutton: exit cells are terminal and the "
                   "move into one pays its number (the chapter 8 mazes' default)")
    p.set_defaults(func=run, default_discount=0.9)


def add_solver_options(p: argparse.ArgumentParser) -> None:
    """--discount, --method, --tol, --digits and --json (shared with ``mdpviz gym``)."""
    add_option(p, "--discount", *DISCOUNT_ALIASES, type=float, default=None, help="discount gamma in [0, 1]")
    p.add_argument("--method", choices=registry.game_choices(), default=registry.DEFAULT_SOLVER,
                   help="solver: vi value iteration (default), gs in-place value iteration, pi policy iteration, "
                   "lp linear programming")
    p.add_argument("--tol", type=positive_float, default=1e-12, help="value iteration's tolerance (default 1e-12)")
    p.add_argument("--sweeps", type=positive_int, default=None, metavar="K",
                   help="stop after K sweeps (rounds of pi) and print V_K and its greedy policy")
    p.add_argument("--digits", type=int, default=3, help="decimals printed (default 3; --json prints all)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")


def solve_checked(mdp: TabularMDP, args: argparse.Namespace) -> Solution:
    """Solve with the command's method; ValueError when the values do not converge."""
    if not args.tol > 0:
        raise ValueError(f"--tol must be a positive number, got {args.tol}")
    if not 0 <= args.digits <= 15:
        raise ValueError(f"--digits must be 0..15, got {args.digits}")
    opts = {"tol": args.tol, "max_sweeps": MAX_SWEEPS} if registry.get(args.method).value_iteration else {}
    if getattr(args, "sweeps", None) is not None:
        from mdpviz.commands.solve import solution_after

        return solution_after(mdp, args.method, opts, args.sweeps)
    try:
        sol = solve(mdp, args.method, **opts)
    except (ArithmeticError, np.linalg.LinAlgError) as e:
        raise ValueError(f"{METHOD_NAMES[args.method]} failed: {e}") from None
    if not sol.converged or not np.all(np.isfinite(sol.values)):
        why = (" (with discount 1 and a positive living reward the values grow without bound: "
               "use a discount below 1)") if mdp.discount == 1.0 else ""
        raise ValueError(f"{METHOD_NAMES[args.method]} did not converge in {sol.sweeps} sweeps{why}")
    return sol


def grid_report(geom: GridGeometry, mdp: TabularMDP, sol: Solution, *, digits: int) -> list[str]:
    """The text lines: values (one grid row per line, walls blank), then the policy as arrows."""
    return ["values:", format_rows(value_rows(geom, sol.values), digits=digits),
            "policy:", format_rows(policy_rows(geom, mdp, sol.policy))]


def grid_json(geom: GridGeometry, mdp: TabularMDP, sol: Solution) -> dict:
    """The values and the policy as the grid shows them (a row per grid row, null at a wall): ``value_grid``
    and ``policy_grid``, named apart from the per-state lists ``values`` and ``policy`` of ``mdpviz solve``."""
    return {"value_grid": value_rows(geom, sol.values), "policy_grid": policy_rows(geom, mdp, sol.policy),
            "rows": geom.rows, "cols": geom.cols}


def run(args: argparse.Namespace) -> int:
    grid = load_map(args.grid)
    # a built-in map's own rules (Sutton and Barto's 4x4 grid) where the options do not say otherwise
    preset = dict(MAP_SETTINGS.get(grid.name, {})) if args.grid.lower().removesuffix("grid") in BUILTIN_MAPS else {}
    gamma = preset.get("discount", args.default_discount) if args.discount is None else args.discount
    settings = GridSettings(grid=grid, noise=preset.get("noise", 0.2) if args.noise is None else args.noise,
                      living_reward=preset.get("living_reward", 0.0) if args.living_reward is None else args.living_reward,
                      discount=gamma, convention=preset.get("convention", "cs188") if args.convention is None
                      else args.convention)
    w = compile_gridworld(settings)
    sol = solve_checked(w.mdp, args)
    r0, c0 = grid.start
    head = {
        "grid": args.grid if args.grid.lower().removesuffix("grid") not in BUILTIN_MAPS else grid.name,
        "convention": settings.convention, "noise": settings.noise, "living_reward": settings.living_reward, "discount": settings.discount,
        "method": args.method, "sweeps": int(sol.sweeps), "converged": bool(sol.converged),
        "start_cell": [r0, c0], "start_value": float(sol.values[w.start_state]),
    }
    if args.json:
        print_json({**head, **grid_json(w.geometry, w.mdp, sol)})
        return 0
    print(f"grid world {head['grid']} ({grid.rows} x {grid.cols}), {CONVENTION_NAMES[settings.convention]}")
    print(f"noise {settings.noise:g}, living reward {settings.living_reward:g}, discount {settings.discount:g}; "
          f"{METHOD_NAMES[args.method]}, {sol.sweeps} {registry.get(args.method).count_word}; "
          f"V(start row {r0 + 1}, column {c0 + 1}) = {head['start_value']:.{args.digits}f}")
    print("\n".join(grid_report(w.geometry, w.mdp, sol, digits=args.digits)))
    return 0
