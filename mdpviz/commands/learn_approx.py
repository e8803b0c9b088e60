"""``mdpviz learn --method gradient-mc|semi-td|... --features SPEC``: learning with linear function approximation.

The approximation methods of the registry (kind "approximation": :mod:`mdpviz.solvers.approximation`) run on any
game with a table, with the features ``--features`` names (:func:`mdpviz.solvers.features.parse_features`:
tabular, aggregate:G, tiles:T:W, poly:K, fourier:K, file:PATH, game), the game's coordinates and own features
from its spec (``model.coordinates``, ``model.features``), and the game's own target and behaviour policies
when it has them (``model.policies``: Baird's). Beside what was learned it prints the exact answers
(:mod:`mdpviz.solvers.fixed_points`): the on-policy distribution ``mu``, the value error ``ve`` and, for the
linear prediction methods, the two fixed points (``fixed_points.mc``: the best fit, where gradient Monte Carlo
goes; ``fixed_points.td``: the TD fixed point, where semi-gradient TD and LSTD go). ``--expected`` runs the
expected update (no sampling: figures 11.2 and 11.5) of the off-policy methods; its "episodes" are steps.

Its JSON keys are in :mod:`mdpviz.commands.json_keys`, as every command's; bad input is one line, exit 2.
"""
from __future__ import annotations

import argparse
import math
import time
from typing import Any

import numpy as np

NOT_METHOD_IDS = {"q": "the JSON field of the learned Q table",
                  "mc": "the JSON key of the best fit in fixed_points (where gradient Monte Carlo converges: issue 36's name)"}
"""Words of this module that are not method ids (the registry test's scan reads this declaration)."""


def add_options(p: argparse.ArgumentParser) -> None:
    """The options ``mdpviz learn`` takes for the approximation methods only."""
    p.add_argument("--features", default=None, metavar="SPEC",
                   help="approximation methods: the features x(s): tabular, aggregate:G (or aggregate:RxC on a grid), "
                   "tiles:T:W (T tilings of width W in [0, 1]), poly:K, fourier:K, file:PATH (CSV: state label, "
                   "then the feature values) or game (the game's own, e.g. Baird's); default: the game's first choice")
    p.add_argument("--expected", action="store_true",
                   help="off-td, tdc, semi-td: run the expected update (no sampling; each 'episode' is one step)")
    p.add_argument("--beta", type=float, default=None, help="tdc: the step size of its second weight vector")
    p.add_argument("--behaviour", choices=("random", "game"), default=None,
                   help="off-td, tdc: the behaviour policy: uniformly random, or the game's own (Baird's 6/7 dashed; "
                   "the default when the game has one)")


def is_approximation(method: str) -> bool:
    from mdpviz.solvers import registry

    return registry.is_kind(method, "approximation")


def check_not_approximation(args: argparse.Namespace) -> None:
    """ValueError when an approximation-only option is given to a tabular learner."""
    for flag, value in (("--features", args.features), ("--expected", args.expected or None),
                        ("--beta", args.beta), ("--behaviour", args.behaviour)):
        if value is not None:
            raise ValueError(f"{flag} applies to the approximation methods only (--method "
                             f"{', '.join(_ids())}), not {args.method}")


def _ids() -> tuple[str, ...]:
    from mdpviz.solvers import registry

    return registry.ids("approximation")


def approx_options(args: argparse.Namespace, base: dict[str, Any]) -> dict[str, Any]:
    """The learner's options: ``base`` (those every learner takes, checked by ``mdpviz learn``) and this
    module's flags, each refused in one line when the method does not take it."""
    from mdpviz.solvers import registry

    spec = registry.get(args.method)
    opts = dict(base)
    if opts.pop("alpha_power", 0.0):
        raise ValueError(f"--alpha of {args.method} is a constant step size (1/n is the tabular learners')")
    if "initial" in opts:
        raise ValueError(f"--initial applies to the tabular learners; {args.method}'s weights start at 0 "
                         "(or at the game's own initial weights with --features game)")
    for flag, name, value in (("--beta", "beta", args.beta), ("--behaviour", "behaviour", args.behaviour),
                              ("--expected", "expected", True if args.expected else None)):
        if value is None:
            continue
        if not spec.takes(name):
            raise ValueError(f"{flag} applies to --method {' or '.join(registry.ids_where('approximation', takes=name))}"
                             f" only, not {args.method}")
        opts[name] = value
    if args.beta is not None and not (math.isfinite(args.beta) and 0.0 < args.beta <= 1.0):
        raise ValueError(f"--beta must be in (0, 1], got {args.beta:g}")
    return opts


def start_run(args: argparse.Namespace, opts: dict[str, Any], *, every: int):
    """``(game, start, options, generator, compile_seconds)`` of a learner with features (this module's methods and
    :mod:`mdpviz.commands.learn_pg`'s): the game built, its own inputs added (coordinates, features, policies:
    :func:`~mdpviz.models.kit.teaching.approx_inputs.approx_inputs`), the generator made (every option checked:
    ValueError), then the family's compiled loop prepared apart, so that ``seconds`` is learning alone."""
    import importlib

    from mdpviz.commands.game_args import game_from_args
    from mdpviz.models.kit.teaching.approx_inputs import approx_inputs
    from mdpviz.solvers import check_value_scale, registry
    from mdpviz.solvers import start as start_method

    game = game_from_args(args)
    mdp = game.mdp
    check_value_scale(mdp)
    start = game.start_state()
    if args.features is not None:
        opts = {**opts, "features": args.features}
    opts = approx_inputs(game.spec, game.settings, mdp, args.method, opts)
    gen = start_method(args.method, mdp, start=start, batch=every, compiled=False if args.python else None, **opts)
    family = importlib.import_module(registry.get(args.method).entry_point.partition(":")[0])
    compile_seconds = 0.0 if args.python else float(family.prepare_loop())
    return game, start, opts, gen, compile_seconds


def run_approx(args: argparse.Namespace, base: dict[str, Any], *, every: int) -> dict[str, Any]:
    """Learn with ``args.method`` and return the JSON object ``mdpviz learn --json`` prints."""
    from mdpviz.solvers import registry

    game, start, opts, gen, compile_seconds = start_run(args, approx_options(args, base), every=every)
    mdp = game.mdp
    features = opts["features"]
    spec = registry.get(args.method)
    off_policy = spec.takes("behaviour")
    curve: list[dict[str, Any]] = []
    last = None
    t0 = time.perf_counter()
    for snap in gen:
        last = snap
        point: dict[str, Any] = {"episode": snap.episode, "ve": _finite(snap.ve)}
        if snap.returns:
            point["return"] = float(sum(snap.returns) / len(snap.returns))
        if math.isfinite(snap.pbe):
            point["pbe"] = float(snap.pbe)
        if off_policy:
            point["weights"] = [float(w) for w in snap.weights]
        curve.append(point)
    wall = time.perf_counter() - t0
    _check_finite(last)
    labels = game.state_labels()
    ans = last.answer
    out: dict[str, Any] = {
        "game": game.key, "method": spec.id, "method_name": spec.title, "episodes": last.episode,
        "updates": last.updates, "seconds": last.learning_seconds, "compile_seconds": compile_seconds,
        "seconds_with_curve": wall,
        "objective": mdp.objective, "discount": float(mdp.discount), "start": start, "start_label": labels[start],
        "seed": opts.get("seed", 0), "expected": bool(last.expected),
        "features": features, "n_features": int(last.n_features), "weights": _floats(last.weights),
        "states": labels, "values": _floats(last.values), "exact": _floats(ans.v), "mu": _floats(ans.mu),
        "ve": float(last.ve), "visits": [int(v) for v in last.visits],
    }
    if last.q is None:
        out["fixed_points"] = {"mc": _point(ans.best), "td": None if ans.td is None else _point(ans.td)}
        if ans.td is None:
            out["td_note"] = ans.td_note
        out["bound"] = None if ans.bound is None else float(ans.bound)
    else:
        out["policy"] = [None if mdp.terminal[s] or a < 0 else game.action_label(s, int(a))
                         for s, a in enumerate(last.policy)]
        out["q"] = [{} if mdp.terminal[s] else
                    {game.action_label(s, int(mdp.row_action[r])): float(last.q[r])
                     for r in range(int(mdp.state_ptr[s]), int(mdp.state_ptr[s + 1]))} for s in range(mdp.n_states)]
    out["curve"] = curve
    return out


def print_text(out: dict[str, Any], d: int) -> None:
    """The run in words and a table of states (the learned, exact and fixed-point values)."""
    print(f"{out['game']}: {out['method_name']} with {out['features']} features ({out['n_features']} weights), "
          f"{out['episodes']} {'steps of the expected update' if out['expected'] else 'episodes'}, "
          f"{out['updates']:,} updates in {out['seconds']:.3f} s; discount {out['discount']:g}")
    line = f"value error VE = {out['ve']:.{d}g} (root {math.sqrt(max(out['ve'], 0.0)):.{d}g})"
    fp = out.get("fixed_points")
    if fp:
        line += f"; best fit VE {fp['mc']['ve']:.{d}g}"
        line += f", TD fixed point VE {fp['td']['ve']:.{d}g}" if fp["td"] else f"; {out.get('td_note', '')}"
        if out.get("bound") is not None:
            line += f" (bound VE(best)/(1 - gamma) = {out['bound']:.{d}g})"
    print(line)
    names = out["states"]
    width = min(40, max(len(x) for x in names))
    head = f"{'state':<{width}}  {'learned':>{d + 8}}  {'exact':>{d + 8}}  {'mu':>{d + 6}}"
    if fp:
        head += f"  {'best fit':>{d + 8}}  {'TD point':>{d + 8}}"
    print(head)
    for s, name in enumerate(names):
        row = (f"{name:<{width}}  {out['values'][s]:>{d + 8}.{d}f}  {out['exact'][s]:>{d + 8}.{d}f}  "
               f"{out['mu'][s]:>{d + 6}.{d}f}")
        if fp:
            td = fp["td"]["values"][s] if fp["td"] else math.nan
            row += f"  {fp['mc']['values'][s]:>{d + 8}.{d}f}  {td:>{d + 8}.{d}f}"
        print(row)


def _point(p) -> dict[str, Any]:
    return {"weights": _floats(p.weights), "values": _floats(p.values), "ve": float(p.ve)}


def _floats(a) -> list[float]:
    return [float(x) for x in np.asarray(a, dtype=np.float64)]


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def _check_finite(last) -> None:
    """ValueError when the weights are not finite: a diverging learner (Baird's counterexample under
    off-policy TD) overflows; nothing non-finite is printed (issue 35, item 14)."""
    if not np.all(np.isfinite(np.asarray(last.weights, dtype=float))):
        raise ValueError(f"the weights diverged (not finite) after {last.episode} episodes: off-policy TD with "
                         "bootstrapping is not guaranteed to converge (the deadly triad); take fewer episodes or a "
                         "smaller --alpha to watch them grow")


__all__ = ["add_options", "approx_options", "start_run", "check_not_approximation", "is_approximation", "print_text", "run_approx"]
