"""``mdpviz learn --method dyna-q|dyna-q+ --planning-steps N [--kappa K] [--total-steps T]``: planning with a model.

The planning methods of the registry (kind "planning": :mod:`mdpviz.solvers.dyna`) learn Q from real steps and
make n planning updates from their learned model after each. On a game whose world changes (the grid world's
``--switch-map``/``--switch-after``, which the blocking and shortcut mazes set), the environment becomes the
second model after that many real steps, and ``exact`` is the second world's answer (``exact_before`` the
first's). ``--json`` prints what ``mdpviz learn`` prints for a learner (``values``, ``q``, ``policy``, ``exact``,
``rms_error``, ``greedy_agreement``, ``policy_value``...) and ``planning_steps``, ``kappa`` (Dyna-Q+),
``real_steps``, ``planning_updates``, ``cumulative_reward``, ``total_steps``, ``switch_after``, ``switched``, and a
``curve`` of one entry per episode (per ``--every`` episodes: their mean ``steps``) with ``real_steps`` and
``cumulative_reward`` at its end.

Its JSON keys are in :mod:`mdpviz.commands.json_keys`; bad input is one line, exit 2.
"""
from __future__ import annotations

import argparse
import math
import time
from typing import Any

NOT_METHOD_IDS = {"q": "the JSON field of the learned Q table"}
"""Words of this module that are not method ids (the registry test's scan reads this declaration)."""

CURVE_EVERY_EPISODES = 10_000
"""Up to this many episodes (or with ``--total-steps``) the curve has a point per episode (figure 8.2); beyond, one
per episodes / 100."""


def add_options(p: argparse.ArgumentParser) -> None:
    """The options ``mdpviz learn`` takes for the planning methods only."""
    p.add_argument("--planning-steps", type=int, default=None, metavar="N",
                   help="dyna-q, dyna-q+: planning updates from the learned model per real step (default 5; 0: "
                   "Q-learning)")
    p.add_argument("--kappa", type=float, default=None, metavar="K",
                   help="dyna-q+: the exploration bonus kappa sqrt(tau) of a planning update's reward (default 1e-3)")
    p.add_argument("--total-steps", type=int, default=None, metavar="T",
                   help="dyna-q, dyna-q+: stop after T real steps in all, the last episode cut (figures 8.4-8.5: "
                   "3000 and 6000; default: run the episodes)")


def is_planning(method: str) -> bool:
    from mdpviz.solvers import registry

    return registry.is_kind(method, "planning")


def check_not_planning(args: argparse.Namespace) -> None:
    """ValueError when a planning-only option is given to another method."""
    from mdpviz.solvers import registry

    for flag, value in (("--planning-steps", args.planning_steps), ("--kappa", args.kappa),
                        ("--total-steps", args.total_steps)):
        if value is not None:
            raise ValueError(f"{flag} applies to the planning methods only (--method "
                             f"{', '.join(registry.ids('planning'))}), not {args.method}")


def dyna_options(args: argparse.Namespace, base: dict[str, Any]) -> dict[str, Any]:
    """The method's options: ``base`` (what the learners share) and this module's flags, each refused in one line
    when the method does not take it or is out of range."""
    from mdpviz.solvers import registry

    spec = registry.get(args.method)
    opts = dict(base)
    if opts.pop("alpha_power", 0.0):
        raise ValueError(f"--alpha: {args.method} takes a constant step size in (0, 1], not 1/n^w")
    if args.kappa is not None:
        if not spec.takes("kappa"):
            raise ValueError(f"--kappa applies to --method {' or '.join(registry.ids_where('planning', takes='kappa'))} "
                             f"only, not {args.method}")
        if not (math.isfinite(args.kappa) and args.kappa >= 0):
            raise ValueError(f"--kappa must be a finite number >= 0, got {args.kappa:g}")
        opts["kappa"] = args.kappa
    if args.planning_steps is not None:
        if args.planning_steps < 0:
            raise ValueError(f"--planning-steps must be 0 or more, got {args.planning_steps}")
        opts["planning_steps"] = args.planning_steps
    if args.total_steps is not None:
        if args.total_steps < 1:
            raise ValueError(f"--total-steps must be a positive whole number, got {args.total_steps}")
        opts["total_steps"] = args.total_steps
    return opts


def run_dyna(args: argparse.Namespace, base: dict[str, Any], *, every: int | None) -> dict[str, Any]:
    """Learn and plan with ``args.method`` and return the JSON object ``mdpviz learn --json`` prints."""
    import numpy as np

    from mdpviz.commands.game_args import game_from_args
    from mdpviz.solvers import check_value_scale, registry
    from mdpviz.models.kit.game.hooks import world_change
    from mdpviz.solvers.dyna import dyna_learner

    opts = dyna_options(args, base)
    game = game_from_args(args)
    mdp = game.mdp
    check_value_scale(mdp)
    start = game.start_state()
    change = world_change(game.spec, game.settings, game.built)
    if change is not None:
        opts["switch_after"] = change[1]
    if every is None:
        every = 1 if opts["episodes"] <= CURVE_EVERY_EPISODES or "total_steps" in opts else opts["episodes"] // 100
    eval_every = args.eval_every or max(1, opts["episodes"] // 10)
    gen = dyna_learner(mdp, args.method, start=start, batch=every, eval_every=eval_every,
                       switch_mdp=None if change is None else change[0], **opts)
    spec = registry.get(args.method)
    curve: list[dict[str, Any]] = []
    last = None
    t0 = time.perf_counter()
    for snap in gen:
        last = snap
        point = {"episode": snap.episode, "steps": float(np.mean(snap.lengths)), "real_steps": snap.real_steps,
                 "cumulative_reward": snap.cumulative_reward, "return": float(np.mean(snap.returns)),
                 "rms_error": snap.rms_error, "greedy_agreement": snap.greedy_agreement}
        if snap.policy_value is not None:
            point["policy_value"] = _finite(snap.policy_value)
        curve.append(point)
    wall = time.perf_counter() - t0
    if not (np.all(np.isfinite(np.asarray(last.q))) and math.isfinite(last.rms_error)):
        raise ValueError(f"the learned Q overflowed (not finite) after {last.episode} episodes: lower --initial, "
                         "--kappa or scale the rewards down")
    labels = game.state_labels()
    out: dict[str, Any] = {
        "game": game.key, "method": spec.id, "method_name": spec.title, "episodes": last.episode,
        "planning_steps": last.planning_steps, "kappa": float(opts.get("kappa", spec.param("kappa").default))
        if spec.takes("kappa") else None,
        "real_steps": last.real_steps, "planning_updates": last.planning_updates, "updates": last.updates,
        "cumulative_reward": last.cumulative_reward, "total_steps": int(opts.get("total_steps", 0)),
        "switch_after": None if change is None else int(change[1]), "switched": bool(last.switched),
        "seconds": last.learning_seconds, "seconds_with_curve": wall,
        "objective": mdp.objective, "discount": float(mdp.discount), "start": start, "start_label": labels[start],
        "seed": opts.get("seed", 0), "states": labels, "values": [float(v) for v in last.values],
        "exact": [float(v) for v in last.exact.values],
        "exact_before": None if change is None else [float(v) for v in _first_exact(mdp)],
        "visits": [int(v) for v in last.visits], "rms_error": last.rms_error, "max_error": last.max_error,
        "q": [{} if mdp.terminal[s] else {game.action_label(s, int(mdp.row_action[r])): float(last.q[r])
                                           for r in range(int(mdp.state_ptr[s]), int(mdp.state_ptr[s + 1]))}
              for s in range(mdp.n_states)],
        "policy": [None if mdp.terminal[s] or a < 0 else game.action_label(s, int(a)) for s, a in enumerate(last.policy)],
        "greedy_agreement": last.greedy_agreement, "policy_value": _finite(last.policy_value),
        "exact_start_value": float(last.exact.values[start]),
        "curve": curve,
    }
    return out


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def _first_exact(mdp):
    from mdpviz.solvers.learning import LearningSettings, exact_answer
    from mdpviz.solvers import registry

    return exact_answer(mdp, LearningSettings(method=registry.ids_where("learner", prediction=False)[0])).values


def print_text(out: dict[str, Any], d: int) -> None:
    """The run in words, the curve's last points and the learned values beside the exact ones."""
    kappa = "" if out["kappa"] is None else f", kappa {out['kappa']:g}"
    print(f"{out['game']}: {out['method_name']} with n = {out['planning_steps']}{kappa}: {out['episodes']:,} episodes, "
          f"{out['real_steps']:,} real steps and {out['planning_updates']:,} planning updates in {out['seconds']:.3f} s; "
          f"cumulative reward {out['cumulative_reward']:g}")
    if out["switch_after"] is not None:
        print(f"the world changed after {out['switch_after']:,} real steps" if out["switched"] else
              f"the world would change after {out['switch_after']:,} real steps (not reached)")
    pv = out["policy_value"]
    print(f"learned greedy policy from {out['start_label']}: " + ("never ends" if pv is None else f"{pv:.{d}f}")
          + f" (optimal {out['exact_start_value']:.{d}f}); RMS error {out['rms_error']:.{d}f}")
    steps = [p["steps"] for p in out["curve"]]
    print("steps per episode: " + " ".join(f"{x:g}" for x in steps[:20]) + (" ..." if len(steps) > 20 else ""))


__all__ = ["add_options", "check_not_planning", "dyna_options", "is_planning", "print_text", "run_dyna"]
