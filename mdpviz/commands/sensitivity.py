"""``mdpviz sensitivity --game KEY [model options] --param NAME --from A --to B [--param2 NAME2 --from2 C
--to2 D] [--json]``: when does the optimal policy switch as a setting moves?

One setting: the switch points located to 1e-6 (the parameter values where the set of optimal actions
changes in any state), the policy of each interval between them and V*(start) along the range
(:mod:`mdpviz.models.kit.teaching.sensitivity`). Two settings: a phase diagram, each grid cell labelled by the
optimal policy along its likely path from the start. JSON (every key meaning what it means in the other
commands: :mod:`mdpviz.commands.json_keys`): ``states`` (labels in the model's order), ``start`` (the start
state's index) and ``start_label``, ``switch_points`` ascending, ``intervals`` (``from``, ``to`` and
``optimal_actions``: per state the labels of its optimal actions), ``start_value_curve`` (per grid value
``param_value`` and V*(start) as ``start_value``); with ``--param2``: ``phase`` (``x``, ``y``, ``region``
rows and ``regions``). Bad input: one line, exit status 2.
"""
from __future__ import annotations

import argparse

from mdpviz.commands import add_option, finite_float, positive_float, positive_int, spelled
from mdpviz.commands.game_args import add_game_options


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sensitivity",
        help="sweep a setting: the exact switch points of the optimal policy, V*(start) along the range",
        description="Sweep one numeric setting of a game (or two: a phase diagram) and locate where the optimal "
        "policy switches. Settings are named as a scenario file names them (discount, noise, living_reward, "
        "p_heads, risk[4], ...).",
    )
    add_game_options(p)
    p.add_argument("--param", required=True, metavar="NAME", help="the setting to sweep (a scenario field)")
    p.add_argument("--from", dest="lo", type=finite_float, required=True, metavar="A", help="the range's low end")
    p.add_argument("--to", dest="hi", type=finite_float, required=True, metavar="B", help="the range's high end")
    p.add_argument("--param2", default=None, metavar="NAME2", help="a second setting: a phase diagram")
    p.add_argument("--from2", dest="lo2", type=finite_float, default=None, metavar="C")
    p.add_argument("--to2", dest="hi2", type=finite_float, default=None, metavar="D")
    p.add_argument("--steps", type=positive_int, default=None,
                   help="grid values (default 101; 41 per axis for a phase diagram)")
    add_option(p, "--switch-tol", "--tol", type=positive_float, default=1e-6, dest="tol",
               help="width to which switch points are located (default 1e-6; not a solver's tolerance: each "
               "grid value is solved exactly)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mdpviz.cli import print_json
    from mdpviz.commands.game_args import settings_data
    from mdpviz.core.chunked import reporter
    from mdpviz.core.jobs import drive
    from mdpviz.models.kit.game import registry
    from mdpviz.models.kit.teaching import sensitivity as sv

    try:
        key = registry.canonical(args.game)
    except ValueError:
        raise ValueError(f"unknown game {args.game!r}; choose one of {', '.join(registry.keys())}") from None
    if registry.get(key).no_table:
        raise ValueError(f"game {key!r} has no table of states: {registry.get(key).no_table}")
    # every bound checked before any model is built (issue 35, item 17)
    sv.check_range(args.lo, args.hi, "--from/--to")
    if args.param2 is not None:
        if args.lo2 is None or args.hi2 is None:
            raise ValueError("--param2 needs --from2 and --to2")
        if sv.same_param(args.param, args.param2):
            raise ValueError(f"--param2 must name another setting than --param ({args.param} against itself "
                             "is no phase diagram)")
        sv.check_range(args.lo2, args.hi2, "--from2/--to2")
        steps = args.steps or sv.PHASE_STEPS
        if steps > sv.MAX_PHASE_STEPS or steps < 2:
            raise ValueError(f"--steps for a phase diagram: 2..{sv.MAX_PHASE_STEPS} per axis, got {steps}")
    else:
        steps = args.steps or sv.STEPS
        if steps > sv.MAX_STEPS or steps < 2:
            raise ValueError(f"--steps: 2..{sv.MAX_STEPS} grid values (each one a model built and solved), got {steps}")
    if not args.tol >= sv.MIN_TOL:
        raise ValueError(f"{spelled(args, 'tol', '--switch-tol')} must be at least {sv.MIN_TOL:g} (the width to which a switch point is located), "
                         f"got {args.tol:g}")
    data = settings_data(key, args)
    progress = reporter()  # a terminal's self-erasing progress line (mdpviz.cli installs it on a tty)
    if args.param2 is not None:
        ph = drive(sv.phase_job(key, data, (args.param, args.param2), ((args.lo, args.hi), (args.lo2, args.hi2)),
                                steps=steps), progress=progress)
        out = {"game": key, "params": list(ph.params), "phase": {
            "x": ph.xs.tolist(), "y": ph.ys.tolist(), "region": ph.region.tolist(),
            "regions": [{name: list(acts) for name, acts in r.items()} for r in ph.regions],
            "start_values": ph.start_values.tolist()}}
        if args.json:
            print_json(out)
            return 0
        print(f"{key}: {args.param} in [{args.lo:g}, {args.hi:g}] (columns) x {args.param2} in [{args.lo2:g}, "
              f"{args.hi2:g}] (rows, first at the top): {len(ph.regions)} policies from the start")
        for row in ph.region[::-1]:
            print("".join(_mark(int(r)) for r in row))
        for i, r in enumerate(ph.regions):
            print(f"{_mark(i)}: " + "; ".join(f"{k} {'/'.join(v)}" for k, v in r.items()))
        return 0
    if args.lo2 is not None or args.hi2 is not None:
        raise ValueError("--from2 and --to2 need --param2")
    res = drive(sv.sensitivity_job(key, data, args.param, args.lo, args.hi, steps=steps, tol=args.tol),
                progress=progress)
    start = res.states.index(res.start)
    out = {
        "game": key, "param": res.param, "from": args.lo, "to": args.hi, "states": list(res.states),
        "switch_points": list(res.switch_points),
        "intervals": [{"from": iv.lo, "to": iv.hi, "optimal_actions": [list(a) for a in iv.policy]}
                      for iv in res.intervals],
        # "start" and "values" meant a label and V*(start) along the range until issue 35: renamed, as
        # solve and learn print the start's index as "start" and the values per state as "values"
        "start": start, "start_label": res.start,
        "start_value_curve": [{"param_value": float(x), "start_value": float(v)}
                              for x, v in zip(res.xs, res.start_values)],
    }
    if args.json:
        print_json(out)
        return 0
    n = len(res.switch_points)
    print(f"{key}: {res.param} from {args.lo:g} to {args.hi:g}: {n} switch point{'s' if n != 1 else ''}"
          + (": " + ", ".join(f"{x:.6f}" for x in res.switch_points) if n else ""))
    print(f"  [{res.intervals[0].lo:.6f}, {res.intervals[0].hi:.6f}]  at {res.start}: "
          f"{'/'.join(res.intervals[0].policy[start]) or '(terminal)'}")
    for before, after in zip(res.intervals, res.intervals[1:]):
        moved = [(name, a, b) for name, a, b in zip(res.states, before.policy, after.policy) if a != b]
        shown = "; ".join(f"{name} {'/'.join(a) or '-'} -> {'/'.join(b) or '-'}" for name, a, b in moved[:4])
        more = f" and {len(moved) - 4} more" if len(moved) > 4 else ""
        print(f"  at {after.lo:.6f}: {shown}{more}")
    return 0


def _mark(i: int) -> str:
    marks = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    return marks[i] if i < len(marks) else "?"
