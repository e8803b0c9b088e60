"""``mdpviz learn --method reinforce|reinforce-baseline|actor-critic|avg-actor-critic``: policy gradients.

The policy-gradient methods of the registry (kind "policy-gradient": :mod:`mdpviz.solvers.policy_gradient`)
learn a softmax policy over linear action preferences h(s, a) = theta . x(s, a) on any game with a table, with
the features ``--features`` names (the state features of :mod:`mdpviz.solvers.features` stacked by action, or
the game's own state-action features: the short corridor's), and each snapshot's policy is valued exactly
(:mod:`mdpviz.solvers.pg_exact`): ``J`` (the exact value of the final policy from the start; continuing
models: its average reward), ``J_best`` (the best value a policy of these features reaches, and how it was
found), ``gradient`` (the exact gradient of J at the final theta, from the policy-gradient theorem). Step sizes:
``--alpha-theta`` for the policy, ``--alpha-w`` for the baseline or the critic.

Its JSON keys are in :mod:`mdpviz.commands.json_keys`; bad input is one line, exit 2.
"""
from __future__ import annotations

import argparse
import math
import time
from typing import Any

import numpy as np


def add_options(p: argparse.ArgumentParser) -> None:
    """The options ``mdpviz learn`` takes for the policy-gradient methods only."""
    p.add_argument("--alpha-theta", type=float, default=None, metavar="A",
                   help="policy-gradient methods: the policy's step size (default: the method's)")
    p.add_argument("--alpha-w", type=float, default=None, metavar="B",
                   help="reinforce-baseline, actor-critic, avg-actor-critic: the step size of the baseline or critic")


def is_policy_gradient(method: str) -> bool:
    from mdpviz.solvers import registry

    return registry.is_kind(method, "policy-gradient")


def check_not_policy_gradient(args: argparse.Namespace) -> None:
    """ValueError when a policy-gradient-only option is given to another method."""
    from mdpviz.solvers import registry

    for flag, value in (("--alpha-theta", args.alpha_theta), ("--alpha-w", args.alpha_w)):
        if value is not None:
            raise ValueError(f"{flag} applies to the policy-gradient methods only (--method "
                             f"{', '.join(registry.ids('policy-gradient'))}), not {args.method}")


def pg_options(args: argparse.Namespace, base: dict[str, Any]) -> dict[str, Any]:
    """The learner's options: ``base`` (what every learner takes) and this module's flags, each refused in one
    line when the method does not take it or is out of range."""
    from mdpviz.solvers import registry

    spec = registry.get(args.method)
    opts = dict(base)
    if "alpha" in opts:
        raise ValueError(f"--alpha: {args.method} takes --alpha-theta (the policy's step size) and --alpha-w "
                         "(the baseline's or critic's)")
    opts.pop("alpha_power", None)
    if "initial" in opts:
        raise ValueError(f"--initial applies to the tabular learners; {args.method}'s preferences start at 0 "
                         "(the uniform policy), or at the game's own start with --features game")
    for flag, name, value in (("--alpha-theta", "alpha_theta", args.alpha_theta), ("--alpha-w", "alpha_w", args.alpha_w)):
        if value is None:
            continue
        if not spec.takes(name):
            raise ValueError(f"{flag} applies to --method "
                             f"{' or '.join(registry.ids_where('policy-gradient', takes=name))} only, not {args.method}")
        if not (math.isfinite(value) and 0.0 < value <= 1.0):
            raise ValueError(f"{flag} must be in (0, 1], got {value:g}")
        opts[name] = value
    return opts


def run_pg(args: argparse.Namespace, base: dict[str, Any], *, every: int) -> dict[str, Any]:
    """Learn with ``args.method`` and return the JSON object ``mdpviz learn --json`` prints."""
    from mdpviz.commands.learn_approx import start_run
    from mdpviz.solvers import registry

    game, start, opts, gen, compile_seconds = start_run(args, pg_options(args, base), every=every)
    mdp = game.mdp
    spec = registry.get(args.method)
    curve: list[dict[str, Any]] = []
    last = None
    t0 = time.perf_counter()
    for snap in gen:
        last = snap
        point: dict[str, Any] = {"episode": snap.episode, "J": _finite(snap.J)}
        if snap.returns:
            point["return"] = float(sum(snap.returns) / len(snap.returns))
        curve.append(point)
    wall = time.perf_counter() - t0
    if not np.all(np.isfinite(np.asarray(last.theta, dtype=float))):
        raise ValueError(f"theta diverged (not finite) after {last.episode} episodes: lower --alpha-theta")
    labels = game.state_labels()
    probs = []
    for s in range(mdp.n_states):
        r0, r1 = int(mdp.state_ptr[s]), int(mdp.state_ptr[s + 1])
        probs.append({} if mdp.terminal[s] else
                     {game.action_label(s, int(mdp.row_action[r])): float(last.policy[r]) for r in range(r0, r1)})
    out: dict[str, Any] = {
        "game": game.key, "method": spec.id, "method_name": spec.title, "episodes": last.episode,
        "updates": last.updates, "seconds": last.learning_seconds, "compile_seconds": compile_seconds,
        "seconds_with_curve": wall,
        "objective": mdp.objective, "discount": float(mdp.discount), "start": start, "start_label": labels[start],
        "seed": opts.get("seed", 0), "features": opts["features"], "n_features": int(last.n_features),
        "states": labels, "theta": _floats(last.theta), "policy_probs": probs, "J": _finite(last.J),
        "J_best": _finite(last.J_best), "J_best_how": last.J_best_how,
        "gradient": None if last.gradient is None else _floats(last.gradient),
    }
    if last.critic is not None:
        out["critic"] = _floats(last.critic)
    if last.avg_reward is not None:
        out["avg_reward"] = _finite(last.avg_reward)
    out["curve"] = curve
    return out


def print_text(out: dict[str, Any], d: int) -> None:
    """The run in words and the learned policy's probabilities per state."""
    print(f"{out['game']}: {out['method_name']} with {out['features']} features ({out['n_features']} preferences), "
          f"{out['episodes']} episodes, {out['updates']:,} updates in {out['seconds']:.3f} s; discount {out['discount']:g}")
    j, best = out["J"], out["J_best"]
    line = f"exact value of the learned policy from {out['start_label']}: J = {_num(j, d)}; best {_num(best, d)} ({out['J_best_how']})"
    if out["gradient"] is not None:
        line += f"; |exact gradient| = {float(np.linalg.norm(out['gradient'])):.{d}g}"
    print(line)
    names = out["states"]
    width = min(40, max(len(x) for x in names))
    for s, name in enumerate(names):
        if out["policy_probs"][s]:
            print(f"{name:<{width}}  " + "  ".join(f"{a} {p:.{d}f}" for a, p in out["policy_probs"][s].items()))


def _num(x: float | None, d: int) -> str:
    return "undefined" if x is None else f"{x:.{d}f}"


def _floats(a) -> list[float]:
    return [float(x) for x in np.asarray(a, dtype=np.float64)]


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


__all__ = ["add_options", "check_not_policy_gradient", "is_policy_gradient", "pg_options", "print_text", "run_pg"]
