"""``mdpviz mcts --game KEY [model options] [--position LABEL] --simulations N [--c C] [--seed S] [--json]``:
Monte Carlo tree search (UCT, :mod:`mdpviz.solvers.mcts`) from one position of a game's table, each move's
statistics beside its exact value.

The game and its settings are taken as every game-wide command takes them (:mod:`mdpviz.commands.game_args`);
the position is a state label of the model (default: the game's start). The exact values are the game's own
exact solve of the same table (what its window solves first). ``--json`` prints ``game``, ``position`` (the
label), ``start`` (its index in the model), ``simulations``, ``c``, ``seed``, ``nodes`` (the tree's size),
``seconds`` (the search alone), ``exact_value`` (V* of the position), ``children`` (one per legal move: ``move``
label, ``visits``, ``mean`` (null when never tried), ``ucb``, ``exact`` Q*(position, move), ``optimal``),
``best_move`` (the most visited move) and ``exact_best_moves`` (every move within the solvers' tie tolerance of
the best Q*). Bad input: one line, exit status 2.
"""
from __future__ import annotations

import argparse
import math

from mdpviz.commands import check_seed, positive_int
from mdpviz.commands.game_args import add_game_options
from mdpviz.solvers.mcts import MAX_SIMULATIONS

HELP = "Monte Carlo tree search (UCT) from a position: each move's visits and mean beside its exact value"


NOT_METHOD_IDS = {"ucb": "the JSON key of each child's UCB score, not the bandit method"}
"""Words equal to a method id used here in another sense (read by the registry test's scan)."""


def _c(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}") from None
    if not (math.isfinite(v) and v >= 0):
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0, got {text!r}")
    return v


def _simulations(text: str) -> int:
    v = positive_int(text)
    if v > MAX_SIMULATIONS:
        raise argparse.ArgumentTypeError(f"at most {MAX_SIMULATIONS:,} (each simulation grows the tree by up to two "
                                         f"nodes, about 0.7 KB each), got {v:,}")
    return v


def register(sub: argparse._SubParsersAction) -> None:
    from mdpviz.solvers.mcts import DEFAULT_C

    p = sub.add_parser(
        "mcts", help=HELP,
        description="Run Monte Carlo tree search (UCT: selection by UCB, expansion, a uniformly random rollout, "
        "backup) from one position of a game's table and print each legal move's visits, mean return and UCB "
        "score beside its exact value Q* from the game's exact solve. The mover signs of the table give minimax; "
        "a move with several outcomes (a random opponent's reply) is a chance node.",
    )
    add_game_options(p, own_help={"--seed": "seed of the search's random draws (default 0)"})
    p.add_argument("--position", default=None, metavar="LABEL",
                   help="the position searched, a state label of the model (default: the game's start)")
    p.add_argument("--simulations", type=_simulations, required=True, metavar="N",
                   help=f"simulations to run (at most {MAX_SIMULATIONS:,}: the tree's memory grows with them)")
    p.add_argument("--c", type=_c, default=DEFAULT_C,
                   help=f"UCT's exploration constant, in units of the reward range (default {DEFAULT_C:.4g})")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def position_state(game, label: str | None) -> int:
    """The state of ``label`` (default: the game's start); ValueError naming --position."""
    if label is None:
        return int(game.start_state())
    labels = game.state_labels()
    try:
        return labels.index(label)
    except ValueError:
        near = [x for x in labels if x.replace(" ", "") == label.replace(" ", "")]
        if len(near) == 1:
            return labels.index(near[0])
        raise ValueError(f"--position: {label!r} is not a state label of --game {game.key} (e.g. "
                         f"{labels[int(game.start_state())]!r})") from None


def exact_values(game):
    """V* of the game's table by the game's own exact solve (what its window solves first)."""
    from mdpviz.solvers import solve

    method, opts = game.solve_defaults()
    return solve(game.mdp, method, **opts).values


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from mdpviz.cli import print_json
    from mdpviz.commands.game_args import game_from_args
    from mdpviz.solvers.mcts import root_moves, tree_search

    seed = check_seed(args.seed) if args.seed is not None else 0
    game = game_from_args(args)
    mdp = game.mdp
    s = position_state(game, args.position)
    v_star = exact_values(game)
    gen = tree_search(mdp, s, exact=v_star, c=args.c, seed=seed, simulations=args.simulations)
    tree = next(gen)
    try:
        if args.simulations > 1:
            tree = gen.send(args.simulations - 1)
    except StopIteration as stop:  # (the generator's last snapshot)
        tree = stop.value
    moves = root_moves(tree, mdp)
    label = lambda a: game.action_label(s, int(a))  # noqa: E731
    best = tree.best_move()

    def num(x: float):
        return None if not np.isfinite(x) else float(x)

    out = {
        "game": game.key, "position": game.state_labels()[s], "start": s, "simulations": int(tree.simulations),
        "c": float(args.c), "seed": seed, "nodes": tree.n_nodes, "seconds": float(tree.elapsed),
        "exact_value": float(v_star[s]),
        "children": [{"move": label(m.action), "visits": m.visits, "mean": num(m.mean), "ucb": num(m.ucb),
                      "exact": float(m.exact), "optimal": m.optimal} for m in moves],
        "best_move": label(best), "exact_best_moves": [label(m.action) for m in moves if m.optimal],
    }
    if args.json:
        print_json(out)
        return 0
    print(f"{game.spec.title}: UCT from {out['position']} ({tree.simulations:,} simulations, c = {args.c:.4g}, "
          f"{tree.n_nodes:,} nodes, {tree.elapsed:.2f} s); exact value {v_star[s]:.6g}")
    width = max(len(c["move"]) for c in out["children"])
    print(f"{'move':<{width}}  {'visits':>9}  {'mean':>12}  {'exact Q*':>12}")
    for c in out["children"]:
        mean = "-" if c["mean"] is None else f"{c['mean']:.4f}"
        print(f"{c['move']:<{width}}  {c['visits']:>9,}  {mean:>12}  {c['exact']:>12.4f}{'  best' if c['optimal'] else ''}")
    verdict = "an exact best move" if out["best_move"] in out["exact_best_moves"] else "not an exact best move"
    print(f"the search plays {out['best_move']} (most visited): {verdict}; exact best: "
          f"{', '.join(out['exact_best_moves'])}")
    return 0
