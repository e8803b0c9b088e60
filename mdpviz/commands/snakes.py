"""``mdpviz snakes``: the course's snakes and ladders (seed 002) from the command line.

``mdpviz snakes --layout 0,0,0,1,0,0,2,0,3,0,4,0,1,2,0 [--circle] [--json]`` prints Expec and
Dice as ``markovDecision`` returns them; ``--compare --games 100000 --seed 1`` prints, for every
strategy, the exact expected turns from square 1 beside the simulated mean and its 95%
confidence interval. ``mdpviz bench snakes`` (see :func:`bench`) times both.
"""
from __future__ import annotations

import argparse
import math
import time
from dataclasses import replace

import numpy as np

from mdpviz.commands import ArgumentParser, positive_int, seed
from mdpviz.cli import print_json
from mdpviz.models.snakes import (
    N_SQUARES,
    RULE_SETS,
    SnakesSettings,
    apply_rule_set,
    compile_snakes,
    layout_from_input,
    markovDecision,
    parse_die,
    square_type_name,
)
from mdpviz.core.chunked import check_games
from mdpviz.models.snakes.simulate import compare_strategies, simulate_turns, strategy_probs
from mdpviz.solvers import METHOD_NAMES, registry, solve

RULE_CHOICES: dict[str, str] = {name.replace(" ", "-"): name for name in RULE_SETS}
"""--rules value -> RULE_SETS key (spaces written as hyphens, e.g. special-die)."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "snakes",
        help="snakes and ladders of the course: optimal dice, expected turns, strategy comparison",
        description="Solve the course's 15-square snakes and ladders: print the expected number of "
        "turns (Expec) and the optimal die (Dice: 1 security, 2 normal, 3 risky) for squares 1..14, "
        "or compare strategies exactly and by simulation (--compare).",
    )
    p.add_argument("--layout", required=True,
                   help="15 comma-separated square types: 0 ordinary, 1 restart, 2 penalty, 3 prison, 4 bonus")
    p.add_argument("--circle", action="store_true", help="the player must stop exactly on square 15")
    p.add_argument("--overshoot", choices=("restart", "wrap"), default=None,
                   help="with --circle, overshooting 15 by k goes back to square 1 (restart, the statement's "
                   "rule) or on to square k (wrap)")
    p.add_argument("--rules", choices=sorted(RULE_CHOICES), default="statement",
                   help="rule set: the statement's (default) or another year's variant")
    p.add_argument("--die", action="append", default=[], metavar="NAME:MOVE=PROB,...:TRIGGER",
                   help="add a die of your own, e.g. lucky:1=1/2,3=1/2:1/4 (repeatable)")
    p.add_argument("--method", choices=registry.game_choices(), default=registry.DEFAULT_SOLVER,
                   help="solver: vi synchronous value iteration (default, as markovDecision), gs in-place "
                   "value iteration, pi policy iteration, lp linear programming")
    p.add_argument("--compare", action="store_true",
                   help="compare strategies: exact expected turns vs simulated games")
    p.add_argument("--games", type=int, default=100_000, help="games simulated from square 1 (default 100000)")
    p.add_argument("--games-per-square", type=int, default=None,
                   help="games simulated from each of squares 2..14 (default games/10)")
    p.add_argument("--seed", type=seed, default=None, help="random seed of the simulation")
    p.add_argument("--mix", default=None, help="die probabilities of the mixed strategy, e.g. 0.2,0.3,0.5")
    p.add_argument("--policy", default=None,
                   help="a custom strategy: 14 dice (1-based, as Dice) for squares 1..14, compared too")
    p.add_argument("--distribution", action="store_true",
                   help="also the exact distribution of the number of turns from square 1 under the optimal dice")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def _parse_numbers(text: str, what: str) -> list[float]:
    out = []
    for i, tok in enumerate(text.split(",")):
        tok = tok.strip()
        try:
            out.append(float(tok))
        except ValueError:
            raise ValueError(f"{what}: entry {i + 1} ({tok!r}) is not a number") from None
    return out


def _config(args: argparse.Namespace) -> SnakesSettings:
    layout = layout_from_input(_parse_numbers(args.layout, "--layout"))
    cfg = apply_rule_set(SnakesSettings(layout=layout, circle=bool(args.circle)), RULE_CHOICES[args.rules])
    if args.overshoot is not None:
        if not cfg.circle:  # the rule only exists on the circular board: say so rather than ignore it
            raise ValueError("--overshoot applies to the circular board only: add --circle")
        cfg = replace(cfg, overshoot=args.overshoot)
    if args.die:
        cfg = replace(cfg, dice=cfg.dice + tuple(parse_die(s) for s in args.die))
    return cfg.validate()


def run(args: argparse.Namespace) -> int:
    cfg = _config(args)
    if args.compare:
        return _run_compare(args, cfg)
    default_rules = cfg == SnakesSettings(layout=cfg.layout, circle=cfg.circle)
    if default_rules and registry.get(args.method).synchronous_vi:  # (markovDecision's own method)
        expec, dice = markovDecision(np.array(cfg.layout), cfg.circle)  # the course API itself
    else:
        opts = {"tol": 1e-12} if registry.get(args.method).value_iteration else {}
        sol = solve(compile_snakes(cfg), args.method, **opts)
        if not sol.converged:
            raise ValueError(f"{args.method} did not converge in {sol.sweeps} sweeps")
        expec = np.array(sol.values[: N_SQUARES - 1])
        dice = np.array(sol.policy[: N_SQUARES - 1] + 1)
    names = cfg.dice_names
    dist = None
    if args.distribution:
        from mdpviz.solvers.distribution import turn_distribution

        mdp = compile_snakes(cfg)
        policy = np.zeros(mdp.n_states, dtype=np.int64)
        policy[: N_SQUARES - 1] = np.asarray(dice) - 1  # the dice printed, square 1 is state 0
        dist = turn_distribution(mdp, policy, 0)
    if args.json:
        from mdpviz.commands.solve import distribution_json

        print_json({
            "layout": list(cfg.layout), "circle": cfg.circle, "rules": RULE_CHOICES[args.rules],
            "overshoot": cfg.overshoot, "method": args.method, "dice_names": list(names),
            "expec": [float(x) for x in expec], "dice": [int(d) for d in dice],
            **(distribution_json(dist) if dist is not None else {}),
        })
        return 0
    print(f"layout {','.join(map(str, cfg.layout))}  circle={cfg.circle}  rules: {RULE_CHOICES[args.rules]}"
          f"{'  overshoot: ' + cfg.overshoot if cfg.circle else ''}  solver: {METHOD_NAMES[args.method]}")
    print(f"{'square':>6}  {'type':<9} {'Expec':>10}  Dice")
    for s in range(1, N_SQUARES):
        d = int(dice[s - 1])
        kind = square_type_name(cfg.layout[s - 1], cfg.type4)
        print(f"{s:>6}  {kind:<9} {expec[s - 1]:>10.6f}  {d} ({names[d - 1]})")
    if dist is not None:
        from mdpviz.commands.solve import distribution_line

        print(distribution_line(dist, "square 1"))
    return 0


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def _run_compare(args: argparse.Namespace, cfg: SnakesSettings) -> int:
    check_games(args.games, "--games")
    if args.games_per_square is not None:
        check_games(args.games_per_square, "--games-per-square")
    mix = None if args.mix is None else np.array(_parse_numbers(args.mix, "--mix"))
    per_square = None
    if args.policy is not None:
        vals = _parse_numbers(args.policy, "--policy")
        if len(vals) != N_SQUARES - 1:
            raise ValueError(f"--policy must give {N_SQUARES - 1} dice (squares 1..14), got {len(vals)}")
        for i, v in enumerate(vals):
            if v != int(v) or not 1 <= v <= cfg.n_dice:
                raise ValueError(f"--policy: square {i + 1} has die {v:g}, not one of 1..{cfg.n_dice}")
        per_square = np.array(vals, dtype=np.int64) - 1
    results = compare_strategies(cfg, games=args.games, seed=args.seed, games_per_square=args.games_per_square,
                                 mix=mix, per_square=per_square)
    if args.json:
        print_json({
            "layout": list(cfg.layout), "circle": cfg.circle, "rules": RULE_CHOICES[args.rules],
            "overshoot": cfg.overshoot, "games": args.games, "seed": args.seed,
            "games_per_square": [int(g) for g in results[0].games] if results else [],
            "strategies": [
                {
                    "name": r.name, "exact_mean": _finite(r.exact[0]), "mean": _finite(r.mean[0]),
                    "ci_half_width": _finite(r.ci[0]), "inside": bool(r.inside[0]),
                    "exact_by_square": [_finite(x) for x in r.exact],
                    "mean_by_square": [_finite(x) for x in r.mean],
                    "ci_by_square": [_finite(x) for x in r.ci],
                    "error": r.error,
                }
                for r in results
            ],
        })
        return 0
    per = results[0].games[1] if results else 0
    print(f"layout {','.join(map(str, cfg.layout))}  circle={cfg.circle}  rules: {RULE_CHOICES[args.rules]}  "
          f"games from square 1: {args.games} (seed {args.seed}); from squares 2..14: {per} each")
    print(f"{'strategy':<10} {'exact':>9} {'simulated':>10} {'95% CI':>9}  exact inside CI (square 1 / all squares)")
    for r in results:
        if r.error:
            print(f"{r.name:<10} {'inf':>9} {'-':>10} {'-':>9}  {r.error}")
            continue
        print(f"{r.name:<10} {r.exact[0]:>9.4f} {r.mean[0]:>10.4f} {'±' + format(r.ci[0], '.4f'):>9}  "
              f"{'yes' if r.inside[0] else 'no'} / {int(r.inside.sum())} of {r.inside.size}")
    return 0


def bench(argv: list[str]) -> int:
    """Time markovDecision per call (random layouts) and the simulation of 100,000 games."""
    p = ArgumentParser(prog="mdpviz bench snakes", description=bench.__doc__)
    p.add_argument("--calls", type=positive_int, default=1000, help="markovDecision calls (random layouts, default 1000)")
    p.add_argument("--games", type=int, default=100_000, help="games per simulation (default 100000)")
    p.add_argument("--seed", type=seed, default=0, help="seed of the random layouts and the games (default 0)")
    args = p.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    layouts = rng.integers(0, 5, size=(args.calls, N_SQUARES))
    layouts[:, 0] = 0
    layouts[:, -1] = 0
    circles = rng.random(args.calls) < 0.5
    markovDecision(layouts[0], bool(circles[0]))  # warm-up (imports, first allocations)
    times = np.empty(args.calls)
    cpu0 = time.process_time()
    for i in range(args.calls):
        t = time.perf_counter()
        markovDecision(layouts[i], bool(circles[i]))
        times[i] = time.perf_counter() - t
    cpu = (time.process_time() - cpu0) / args.calls * 1e3
    ms = times * 1e3
    print(f"markovDecision: {args.calls} calls on random layouts (half circle): wall time per call mean "
          f"{ms.mean():.3f} ms, median {np.median(ms):.3f} ms, 99th percentile {np.percentile(ms, 99):.3f} ms, "
          f"max {ms.max():.3f} ms; CPU time per call {cpu:.3f} ms (target < 5 ms)", flush=True)
    issue = np.array([0, 0, 0, 1, 0, 0, 2, 0, 3, 0, 4, 0, 1, 2, 0])
    for circle in (False, True):
        cfg = SnakesSettings(layout=tuple(int(x) for x in issue), circle=circle)
        probs = strategy_probs(cfg, "optimal")
        mdp = compile_snakes(cfg)
        simulate_turns(cfg, probs, games=1000, seed=args.seed, mdp=mdp)  # warm-up
        t = time.perf_counter()
        turns = simulate_turns(cfg, probs, games=args.games, seed=args.seed, mdp=mdp)
        dt = time.perf_counter() - t
        expec, _ = markovDecision(issue, circle)
        print(f"simulation: {args.games} games, optimal strategy, layout {','.join(map(str, issue))}, "
              f"circle={circle}: {dt:.3f} s (target < 1 s); mean {turns.mean():.4f} turns vs exact {expec[0]:.4f}",
              flush=True)
    return 0
