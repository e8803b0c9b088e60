"""``mdpviz gradient --game KEY [model options] [--features SPEC] [--theta FILE] --samples N [--seed S] [--json]``.

At one theta (a JSON list in ``--theta``; default zeros: the uniform policy, or the game's own start with the
game's features) of the softmax policy over linear action preferences (:mod:`mdpviz.solvers.pg_exact`), prints
``J`` (the policy's exact value from the start), ``gradient`` (its exact gradient, from the policy-gradient
theorem: Sutton and Barto eq. 13.5) and, from ``--samples`` sampled episodes, the one-episode REINFORCE estimates
without a baseline (section 13.3) and with the exact v_pi(S_t) as baseline (section 13.4): their ``mean``,
``variance`` (the trace of the sample covariance), ``cosine`` (the angle between their mean and the exact
gradient) and ``standard_error`` per component. The baseline leaves the mean where it is and lowers the variance.

``--theta`` is read with the byte budget of every JSON file (:func:`mdpviz.core.files.read_json_file`), and a
list of the wrong length is named. Bad input is one line, exit 2.
"""
from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from mdpviz.commands import check_seed, positive_int
from mdpviz.commands.game_args import add_game_options

MAX_SAMPLES = 1_000_000
"""Most episodes ``--samples`` takes (each estimate is a vector of n_features floats, kept for the covariance)."""
ESTIMATE_BUDGET = 400_000_000
"""Most bytes the kept estimates may take (samples x features x 8)."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "gradient",
        help="the exact policy gradient at a theta beside sampled REINFORCE estimates, with and without baseline",
        description="At one theta of the softmax policy over linear action preferences (default: zeros, the uniform "
        "policy), the exact value J from the start and its exact gradient (the policy-gradient theorem), and the "
        "one-episode REINFORCE estimates of --samples sampled episodes without and with the exact v_pi baseline: "
        "their mean, variance (trace of the covariance) and cosine with the exact gradient.",
    )
    add_game_options(p, own_help={"--seed": "seed of the sampled episodes (default 0)"})
    p.add_argument("--features", default=None, metavar="SPEC",
                   help="the features x(s, a): a state feature spec stacked by action (tabular, aggregate:G, tiles:T:W, "
                   "poly:K, fourier:K, file:PATH) or game (the game's own); default: the game's first choice")
    p.add_argument("--theta", default=None, metavar="FILE", help="a JSON list of the preference weights (default: zeros)")
    p.add_argument("--samples", type=positive_int, required=True, metavar="N", help="episodes to sample")
    p.add_argument("--max-steps", type=positive_int, default=10_000, metavar="M",
                   help="cap on the steps of a sampled episode (default 10000)")
    p.add_argument("--digits", type=int, default=4, help="decimals printed (default 4; --json prints all)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


@dataclass(frozen=True, eq=False)
class PolicyInputs:
    """What the exact quantities need of a game: its state-action features and where theta starts."""

    features: str
    Xsa: np.ndarray
    theta0: np.ndarray | None
    fixed: np.ndarray | None
    fixed_probs: np.ndarray | None


def policy_inputs(game: Any, features: str | None) -> PolicyInputs:
    """The state-action features ``features`` names for ``game`` (a built GameModel): the game's own with
    "game" when it has them (the corridor's x(s, right) = (1, 0), x(s, left) = (0, 1), and the book's start
    theta), else the state features stacked by action; two-player models with the opponent fixed to the
    exact minimax policy (:func:`mdpviz.solvers.pg_exact.opponent_policy`)."""
    from mdpviz.solvers import pg_exact
    from mdpviz.solvers.features import action_features, feature_matrix

    mdp, hooks = game.mdp, game.spec.model
    spec = features or (getattr(hooks, "default_features", "") or "tabular")
    own = getattr(hooks, "action_features", None)
    theta0 = None
    if spec.strip() == "game" and own is not None:
        xsa = np.asarray(own(game.settings, mdp), dtype=np.float64)
        if getattr(hooks, "initial_weights", None) is not None:
            theta0 = np.asarray(hooks.initial_weights(game.settings, mdp), dtype=np.float64)
    else:
        coords = hooks.coordinates(game.settings, mdp) if getattr(hooks, "coordinates", None) else None
        own_x = hooks.features(game.settings, mdp) if getattr(hooks, "features", None) else None
        X = feature_matrix(spec, mdp, coords=coords, game_features=own_x)
        xsa = np.asarray(action_features(X, mdp), dtype=np.float64)
    fixed, fixed_probs = pg_exact.opponent_policy(mdp) if mdp.is_two_player else (None, None)
    return PolicyInputs(spec, xsa, theta0, fixed, fixed_probs)


def read_theta(path: str, n: int) -> np.ndarray:
    """The theta of file ``path`` (a JSON list of ``n`` finite numbers), or ValueError naming the problem."""
    from mdpviz.core.files import read_json_file

    data = read_json_file(path, error=lambda m: ValueError(f"--theta {m}"))
    if not isinstance(data, list) or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in data):
        raise ValueError(f"--theta {path}: must be a JSON list of numbers")
    if len(data) != n:
        raise ValueError(f"--theta {path}: {len(data)} numbers for {n} features (one per feature of x(s, a))")
    theta = np.asarray(data, dtype=np.float64)
    if not np.all(np.isfinite(theta)):
        raise ValueError(f"--theta {path}: the numbers must be finite")
    return theta


def run(args: argparse.Namespace) -> int:
    from mdpviz.cli import print_json

    out = gradient_report(args)
    if args.json:
        print_json(out)
    else:
        _print_text(out, args.digits)
    return 0


def gradient_report(args: argparse.Namespace) -> dict[str, Any]:
    """The JSON object of the module docstring."""
    from mdpviz.commands.game_args import game_from_args
    from mdpviz.solvers import pg_exact

    if not 0 <= args.digits <= 15:
        raise ValueError(f"--digits must be 0..15, got {args.digits}")
    if args.samples > MAX_SAMPLES:
        raise ValueError(f"--samples must be at most {MAX_SAMPLES:,}, got {args.samples:,}")
    seed = check_seed(args.seed) if args.seed is not None else 0
    game = game_from_args(args)
    mdp = game.mdp
    start = game.start_state()
    inputs = policy_inputs(game, args.features)
    xsa = inputs.Xsa
    d = int(xsa.shape[1])
    if args.samples * d * 8 > ESTIMATE_BUDGET:
        raise ValueError(f"--samples {args.samples:,} x {d:,} features would keep {args.samples * d * 8 / 1e6:,.0f} MB of "
                         f"estimates, over the budget of {ESTIMATE_BUDGET / 1e6:,.0f} MB: take fewer samples or features")
    theta = read_theta(args.theta, d) if args.theta is not None else (
        inputs.theta0 if inputs.theta0 is not None else np.zeros(d))
    fixed = dict(fixed=inputs.fixed, fixed_probs=inputs.fixed_probs)
    pv = pg_exact.evaluate_policy(mdp, xsa, theta, start=start, **fixed)
    out: dict[str, Any] = {
        "game": game.key, "discount": float(mdp.discount), "start": start, "start_label": game.state_labels()[start],
        "features": inputs.features, "n_features": d, "seed": seed, "samples": int(args.samples),
        "theta": [float(x) for x in theta], "J": _finite(pv.J), "gradient": [float(x) for x in pv.gradient],
    }
    for key, baseline in (("without_baseline", None), ("with_baseline", np.asarray(pv.v, dtype=np.float64))):
        est = pg_exact.reinforce_estimates(mdp, xsa, theta, start=start, samples=int(args.samples), seed=seed,
                                           baseline=baseline, max_steps=int(args.max_steps), **fixed)
        stats = pg_exact.estimate_stats(est, pv.gradient)
        out[key] = {"mean": [float(x) for x in stats.mean], "variance": float(stats.variance),
                    "cosine": _finite(stats.cosine), "standard_error": [float(x) for x in stats.standard_error]}
    return out


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


SHOWN = 12
"""Components of a vector the text output prints (--json prints them all)."""


def _vector(v: list[float], d: int) -> str:
    more = f", ... ({len(v)} in all; --json prints every one)" if len(v) > SHOWN else ""
    return ", ".join(f"{g:.{d}g}" for g in v[:SHOWN]) + more


def _print_text(out: dict[str, Any], d: int) -> None:
    print(f"{out['game']}: {out['features']} features ({out['n_features']} preferences), exact J from "
          f"{out['start_label']} = " + ("undefined" if out["J"] is None else f"{out['J']:.{d}f}"))
    print("exact gradient: " + _vector(out["gradient"], d))
    for key, name in (("without_baseline", "REINFORCE"), ("with_baseline", "REINFORCE with the exact v_pi baseline")):
        e = out[key]
        cos = "undefined" if e["cosine"] is None else f"{e['cosine']:.{d}f}"
        print(f"{name}, {out['samples']:,} episodes: mean " + _vector(e["mean"], d)
              + f"; variance (trace) {e['variance']:.{d}g}; cosine with the exact gradient {cos}")


__all__ = ["PolicyInputs", "gradient_report", "policy_inputs", "read_theta", "register", "run"]
