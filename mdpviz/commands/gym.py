"""``mdpviz gym``: a Gymnasium environment's transition table solved from the command line.

``mdpviz gym --env FrozenLake-v1 [--kw key=value ...] [--discount G] [--json]`` builds the
environment (``gymnasium.make(env, **kw)``; each ``--kw`` value is read as a Python literal where
it parses, e.g. ``is_slippery=False``, ``desc=['SFFF','FHFH','FFFH','HFFG']``, else as a string),
imports ``env.unwrapped.P`` (:func:`mdpviz.models.gym.from_gymnasium`) and prints
the values and the optimal policy: as grid rows with arrows for FrozenLake and CliffWalking, as
one line per state (the environment's own description, value, action) otherwise. With ``--json``,
``values`` and ``policy`` are rows from the top for a grid, else flat lists in the environment's
state order. Gymnasium is optional: without it the command says how to install it (exit 2).
"""
from __future__ import annotations

import argparse

from mdpviz.cli import CLIError, print_json
from mdpviz.commands import spelled
from mdpviz.commands.gridworld import add_solver_options, grid_json, grid_report, solve_checked
from mdpviz.solvers import registry

DEFAULT_DISCOUNT = 0.99
"""Discount when --discount is not given (Gymnasium's environments have none; 0.99 is the RL courses' usual)."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "gym",
        help="a Gymnasium environment with a transition table P (FrozenLake, CliffWalking, Taxi, ...): values "
        "and the optimal policy",
        description="Import a Gymnasium environment's transition table env.unwrapped.P and solve it: "
        "terminated transitions go to an absorbing state, duplicate entries are summed, a time limit is "
        'not termination. Needs Gymnasium: pip install "mdpviz[gym]".',
    )
    p.add_argument("--env", required=True, metavar="ID", help="environment id, e.g. FrozenLake-v1, CliffWalking-v1, Taxi-v4")
    p.add_argument("--kw", action="append", default=[], metavar="KEY=VALUE",
                   help="keyword argument of gymnasium.make, a Python literal where it parses "
                   "(e.g. is_slippery=False, map_name=8x8); repeatable")
    add_solver_options(p)
    p.set_defaults(func=run)


def _jsonable(v):
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    return repr(v)


def run(args: argparse.Namespace) -> int:
    from mdpviz.models import gym as gb

    kwargs = gb.parse_kwargs(args.kw)
    gamma = DEFAULT_DISCOUNT if args.discount is None else args.discount
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"{spelled(args, 'discount', '--discount')} must be in [0, 1], got {gamma}")
    try:
        env = gb.make_env(args.env, kwargs)
    except gb.GymnasiumMissing as e:
        raise CLIError(str(e)) from None
    try:
        mdp = gb.from_gymnasium(env, discount=gamma)
        geom = gb.gym_geometry(env, mdp)
        start = gb.start_state(env)
        dist = gb.start_distribution(env)
    finally:
        env.close()
    sol = solve_checked(mdp, args)
    n = mdp.n_states - 1  # the environment's states; the last one is the absorbing "terminated"
    head = {"env": args.env, "kwargs": _jsonable(kwargs), "discount": gamma, "n_states": n,
            "actions": list(mdp.action_labels or ()), "method": args.method, "sweeps": int(sol.sweeps),
            "converged": bool(sol.converged), "start": start, "start_value": float(sol.values[start])}
    random_start = dist is not None and dist.size == n and int((dist > 0).sum()) > 1
    if random_start:  # Taxi: the start is drawn; its expected value is what a policy earns on average
        head["expected_start_value"] = float(dist @ sol.values[:n])
    names = mdp.action_labels or tuple(str(a) for a in range(mdp.n_actions))
    if args.json:
        if geom is not None:
            body = grid_json(geom, mdp, sol)
        else:
            body = {"values": [float(v) for v in sol.values[:n]],
                    "policy": [names[int(a)] if a >= 0 else None for a in sol.policy[:n]],
                    "state_labels": list(mdp.state_labels[:n]) if mdp.state_labels else None}
        print_json({**head, **body})
        return 0
    kw = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
    print(f"{args.env}{f' ({kw})' if kw else ''}: {n} states, {mdp.n_actions} actions "
          f"({', '.join(names)}); discount {gamma:g}; {sol.sweeps} {registry.get(args.method).count_word}; "
          + (f"mean V over the {int((dist > 0).sum())} start states = {head['expected_start_value']:.{args.digits}f}"
             if random_start else f"V(start {start}) = {head['start_value']:.{args.digits}f}"))
    if geom is not None:
        print("\n".join(grid_report(geom, mdp, sol, digits=args.digits)))
    else:
        labels = mdp.state_labels or tuple(str(s) for s in range(n))
        width = max(len(x) for x in labels[:n])
        print(f"{'state':>5}  {'description':<{width}}  {'value':>10}  action")
        for s in range(n):
            a = int(sol.policy[s])
            print(f"{s:>5}  {labels[s]:<{width}}  {sol.values[s]:>10.{args.digits}f}  {names[a] if a >= 0 else ''}")
    return 0
