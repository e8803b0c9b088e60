"""``mdpviz ttt3d train|eval``: 3x3x3 risk tic-tac-toe learned by reinforcement learning (seed 003).

::

    mdpviz ttt3d train --seed 0 --out agent.npz      # the defaults: TD(0), 128-ReLU network, both seats vs tactical
    mdpviz ttt3d train --method q --approx quadratic --risk random --seed 1 --out q.npz --json
    mdpviz ttt3d eval --agent agent.npz --opponent tactical --mark O --games 10000 --json
    mdpviz ttt3d eval --agent random --games 10000 --risk half  # the random-vs-random baseline

Every evaluation of an agent prints its yardsticks beside it: the tactical player and the untrained
agent (same settings, zero training) against the same opponent in the same seat, same seed.
"""
from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path

import numpy as np

from mdpviz.cli import print_json
from mdpviz.models import ttt3d
from mdpviz.models.ttt3d import learning as rl
from mdpviz.models.kit.boards.ttt_board import MARK_CHARS
from mdpviz.commands import ArgumentParser, add_option, seed
from mdpviz.models.kit.game.options import DISCOUNT_ALIASES

RISK_HELP = (
    "the risk vector: a preset (" + ", ".join(ttt3d.RISK_CHOICES) + "; noisy-* and random are drawn "
    "with --seed) or 27 numbers in [0, 1] separated by commas, cell i = 9*layer + 3*row + column"
)


EVAL_SEED = 0
"""Seed of the final evaluation of ``train`` and the default of ``eval --seed``: the two print the
same games for the same agent."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "ttt3d",
        help="3x3x3 risk tic-tac-toe: train and evaluate reinforcement-learning agents",
        description="3x3x3 risk tic-tac-toe (all 49 lines of the cube win; a move lands the "
        "opponent's mark with the cell's risk) learned by playing, judged against a uniformly random or a "
        "tactical opponent (wins if it can, blocks if it must, else random).",
    )
    tsub = p.add_subparsers(dest="ttt3d_command", metavar="SUBCOMMAND", parser_class=type(p))
    p.set_defaults(func=lambda args: _missing(p))
    d = rl.TrainSettings()

    t = tsub.add_parser(
        "train",
        help="train an agent and save it (.npz)",
        description="Train an agent against --opponent in --mark's seats, printing the learning "
        "curve (the greedy agent's win rate in each seat over an evaluation batch against --eval-opponent "
        "every K episodes, beside the tactical player's and the untrained agent's), then evaluate it over "
        "--final-games games per seat with the same yardsticks and save it. The defaults train the target "
        "agent: TD(0) with a 128-ReLU network in both seats against the tactical opponent.",
    )
    t.add_argument("--method", choices=sorted(rl.METHODS), default=d.method,
                   help=f"td: TD(0) on afterstate values; q: Q-learning (default {d.method})")
    t.add_argument("--approx", choices=list(rl.APPROXIMATORS), default=d.approx,
                   help=f"function approximator (default {d.approx})")
    t.add_argument("--episodes", type=int, default=d.episodes, help=f"training games (default {d.episodes})")
    t.add_argument("--risk", default="classic", help=RISK_HELP + " (default classic: all 0)")
    t.add_argument("--seed", type=seed, required=True, help="seed of the training (exploration, coins, opponent, weights)")
    t.add_argument("--out", required=True, help="where to save the agent (.npz archive; the name is kept as given)")
    t.add_argument("--lr", type=float, default=None,
                   help="learning rate (default per method and approximator: "
                   + ", ".join(f"{m}/{a} {v:g}" for (m, a), v in rl.DEFAULT_LEARNING_RATES.items()) + ")")
    add_option(t, "--discount", *DISCOUNT_ALIASES, type=float, default=d.discount, help=f"discount per round (default {d.discount})")
    t.add_argument("--epsilon", type=float, default=d.epsilon, help=f"initial exploration (default {d.epsilon})")
    t.add_argument("--epsilon-decay", type=float, default=d.epsilon_decay,
                   help=f"epsilon factor per episode (default {d.epsilon_decay})")
    t.add_argument("--epsilon-min", type=float, default=d.epsilon_min, help=f"exploration floor (default {d.epsilon_min})")
    t.add_argument("--hidden", type=int, default=d.hidden, help=f"hidden ReLU units of mlp (default {d.hidden})")
    t.add_argument("--mark", choices=list(rl.MARKS), default=d.mark,
                   help=f"the agent's seat: X moves first, both = X and O in turn, one network (default {d.mark})")
    t.add_argument("--opponent", choices=list(rl.TRAIN_OPPONENTS), default=d.opponent,
                   help="who the agent trains against: random; tactical (wins if it can, blocks if it must, "
                   "else random); self (its own epsilon-greedy moves in the other seat); curriculum (random for "
                   f"the first tenth of the games, tactical to the middle, then self) (default {d.opponent})")
    t.add_argument("--eval-opponent", choices=list(ttt3d.OPPONENTS), default=d.eval_opponent,
                   help=f"the opponent of the learning curve and the final evaluation (default {d.eval_opponent})")
    t.add_argument("--report-every", type=int, default=d.report_every,
                   help=f"K: a learning-curve point every K episodes (default {d.report_every})")
    t.add_argument("--eval-games", type=int, default=d.eval_games,
                   help=f"games behind each learning-curve point (default {d.eval_games}; 0: none)")
    t.add_argument("--final-games", type=int, default=10_000,
                   help="games per seat of the final evaluation of the trained agent (default 10000; 0: none), "
                   "the same games as 'ttt3d eval --opponent' the same opponent with its default seed")
    t.add_argument("--json", action="store_true", help="print one JSON object at the end instead of the table")
    t.set_defaults(func=run_train, stream=True)

    e = tsub.add_parser(
        "eval",
        help="play a saved agent against the random or the tactical opponent",
        description="Play --games games of a saved agent (greedy) in one seat against --opponent, all in "
        "parallel arrays, and print the win/draw/loss rates beside the yardsticks of the same games: the "
        "tactical player and the untrained agent in the same seat. JSON keys: win, draw, loss (fractions), "
        "episodes (games played), seconds (wall time of the games), opponent, mark, baselines (the same "
        "keys for the tactical player and the untrained agent), and more.",
    )
    e.add_argument("--agent", required=True,
                   help="an agent file from 'ttt3d train', or 'random' / 'tactical' (a scripted player)")
    e.add_argument("--opponent", choices=list(ttt3d.OPPONENTS), default="random",
                   help="the opponent: random or tactical (wins if it can, blocks if it must) (default random)")
    e.add_argument("--games", type=int, default=10_000, help="games to play (default 10000)")
    e.add_argument("--risk", default=None, help=RISK_HELP + " (default: the agent's own; classic for random)")
    e.add_argument("--mark", choices=["X", "O"], default=None,
                   help="the agent's seat (default: the one it was trained for; X for an agent of both seats)")
    e.add_argument("--seed", type=seed, default=EVAL_SEED, help=f"seed of the games (default {EVAL_SEED})")
    e.add_argument("--json", action="store_true", help="print JSON")
    e.set_defaults(func=run_eval)


def _missing(p: argparse.ArgumentParser) -> int:
    raise ValueError("choose a subcommand: train or eval (mdpviz ttt3d -h)")


def _risk_name(text: str) -> str:
    return text if not any(ch.isdigit() for ch in text) else "custom"


def _check_writable(out: Path) -> None:
    """ValueError naming --out when the agent could not be saved there (tried with a scratch file)."""
    import os
    import tempfile

    if out.exists() and not os.access(out, os.W_OK):
        raise ValueError(f"--out {out}: the file is not writable")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".check", dir=str(out.parent))
    except OSError as e:
        raise ValueError(f"--out {out}: cannot write in the folder {out.parent} ({e.strerror or e})") from None
    os.close(fd)
    os.unlink(tmp)


def run_train(args: argparse.Namespace) -> int:
    settings = rl.TrainSettings(
        method=args.method, approx=args.approx, episodes=args.episodes, learning_rate=args.lr,
        discount=args.discount, epsilon=args.epsilon, epsilon_decay=args.epsilon_decay,
        epsilon_min=args.epsilon_min, hidden=args.hidden, mark=args.mark, report_every=args.report_every,
        eval_games=args.eval_games, seed=args.seed, opponent=args.opponent, eval_opponent=args.eval_opponent,
    )
    from mdpviz.core.chunked import check_games

    check_games(args.final_games, "--final-games", allow_zero=True)
    check_games(args.eval_games, "--eval-games", allow_zero=True)
    risk = ttt3d.resolve_risk(args.risk, seed=args.seed)
    out = Path(args.out)
    if out.exists() and out.is_dir():
        raise ValueError(f"--out {out}: is a directory")
    if not out.parent.is_dir():
        raise ValueError(f"--out {out}: the folder {out.parent} does not exist")
    _check_writable(out)  # before training, not after it (issue 14: 19 s lost, then the error)
    name = _risk_name(args.risk)
    gen = rl.train(settings, risk=risk)
    seats = [MARK_CHARS[m] for m in settings.seats]
    vs = args.eval_opponent
    if not args.json:
        lab = f"{args.approx} ({args.hidden} ReLU)" if args.approx == "mlp" else args.approx
        seat_text = "X and O" if len(seats) == 2 else args.mark
        print(f"3x3x3 risk tic-tac-toe, agent {seat_text} trained against {rl.TRAIN_OPPONENTS[args.opponent]}: "
              f"{rl.METHODS[args.method]}, {lab}, alpha {settings.alpha:g}, gamma {settings.discount:g}, "
              f"{settings.episodes:,} episodes, risk {name}, seed {args.seed}", flush=True)
        print(f"{'episodes':>9} {'epsilon':>8} {'|TD err|':>9} "
              + " ".join(f"{'win ' + s:>7}" for s in seats)
              + f" {'train s':>8} {'wall s':>8}   (win: against the {vs} opponent, {settings.eval_games:,} games per seat)",
              flush=True)
    curve = []
    while True:
        try:
            rec = next(gen)
        except StopIteration as stop:
            agent = stop.value
            break
        except rl.FieldError as e:  # the weights diverged (issue 35, item 15): nothing is saved
            if e.field != "learning_rate":
                raise
            raise ValueError(f"--lr {e.problem}") from None
        curve.append(rec.as_dict())
        if not args.json:
            if rec.episodes == 0 and rec.baselines:
                for who in ("tactical", "untrained"):
                    print(f"{'(' + who + ')':>28} " + " ".join(f"{rec.baselines[who][s]:>7.3f}" for s in seats),
                          flush=True)
            err = "-" if np.isnan(rec.mean_td_error) else f"{rec.mean_td_error:.4f}"
            rates = " ".join(f"{rec.seat_win[s]:>7.3f}" if rec.eval_games else f"{'-':>7}" for s in seats)
            print(f"{rec.episodes:>9,} {rec.epsilon:>8.3f} {err:>9} {rates} {rec.train_seconds:>8.1f} "
                  f"{rec.seconds:>8.1f}", flush=True)
    final: dict[str, dict] | None = None
    if args.final_games:
        final = {}
        for s in seats:
            ev = _evaluation(agent, s, risk=agent.risk, opponent=vs, games=args.final_games, seed=EVAL_SEED)
            final[s] = {**_score_dict(ev["score"]),
                        "baselines": {k: _score_dict(v) for k, v in ev["baselines"].items()}}
            if not args.json:
                _print_evaluation(ev, f"final, {s}:", vs)
    agent.save(out)
    total = curve[-1]["seconds"] if curve else 0.0
    if args.json:
        print_json({
            "out": str(out), "settings": {**asdict(settings), "learning_rate": settings.alpha},
            "risk_name": name, "risk": agent.risk, "episodes": agent.episodes,
            "train_seconds": agent.train_seconds, "seconds": total, "curve": curve, "final": final,
        })
    else:
        print(f"saved {out} ({agent.episodes:,} episodes, {agent.train_seconds:.1f} s of training, "
              f"{total:.1f} s with the learning curve's evaluations)")
    return 0


def _evaluation(agent: rl.Agent, mark: str, *, risk: np.ndarray, opponent: str, games: int,
                seed: int) -> dict:
    """The agent's score in seat ``mark`` against ``opponent`` and its yardsticks on the same seed: the
    tactical player and the untrained agent (the agent's settings, no training) in the same seat."""
    score = agent.evaluate(games, seed=seed, risk=risk, mark=mark, opponent=opponent)
    fresh = rl.untrained_agent(agent.settings, risk=agent.risk)
    base = {
        "tactical": ttt3d.play_vs("tactical", opponent=opponent, mark=mark, risk=risk, games=games, seed=seed),
        "untrained": fresh.evaluate(games, seed=seed, risk=risk, mark=mark, opponent=opponent),
    }
    return {"score": score, "baselines": base}


def _print_evaluation(ev: dict, head: str, opponent: str) -> None:
    sc = ev["score"]
    lo, hi = sc.win_ci()
    print(f"{head} {sc.games:,} games against the {opponent} opponent: win {sc.win:.4f} "
          f"(95% CI {lo:.4f}-{hi:.4f}), draw {sc.draw:.4f}, loss {sc.loss:.4f} ({sc.seconds:.1f} s)")
    t, u = ev["baselines"]["tactical"], ev["baselines"]["untrained"]
    print(f"  yardsticks, same seat and seed: tactical player {t.win:.4f}, untrained agent {u.win:.4f}")


def _score_dict(sc: ttt3d.Score) -> dict[str, float | int | list[float]]:
    return {"win": sc.win, "draw": sc.draw, "loss": sc.loss, "episodes": sc.games, "seconds": sc.seconds,
            "wins": sc.wins, "draws": sc.draws, "losses": sc.losses, "win_ci": list(sc.win_ci())}


def run_eval(args: argparse.Namespace) -> int:
    from mdpviz.core.chunked import check_games

    check_games(args.games, "--games")
    scripted = args.agent.strip().lower()
    if scripted in ttt3d.OPPONENTS:
        agent = None
        mark = args.mark or "X"
        risk = ttt3d.resolve_risk(args.risk if args.risk is not None else "classic", seed=args.seed)
    else:
        try:
            agent = rl.load_agent(args.agent)
        except ValueError as e:
            raise ValueError(f"--agent {e}") from None
        mark = args.mark or MARK_CHARS[agent.mark]
        risk = agent.risk if args.risk is None else ttt3d.resolve_risk(args.risk, seed=args.seed)
    vs = args.opponent
    if agent is None:
        sc = ttt3d.play_vs(scripted, opponent=vs, mark=mark, risk=risk, games=args.games, seed=args.seed)
        ev = None
    else:
        ev = _evaluation(agent, mark, risk=risk, opponent=vs, games=args.games, seed=args.seed)
        sc = ev["score"]
    info = {"agent": args.agent, "mark": mark, "opponent": vs, "risk": risk}
    if agent is not None:
        info.update(method=agent.settings.method, approx=agent.settings.approx,
                    trained_episodes=agent.episodes, train_seconds=agent.train_seconds,
                    baselines={k: _score_dict(v) for k, v in ev["baselines"].items()})
    if args.json:
        print_json({**_score_dict(sc), **info})
        return 0
    opp = "the uniformly random opponent" if vs == "random" else "the tactical opponent"
    if agent is None:
        who = "the uniformly random player" if scripted == "random" else "the tactical player"
        lo, hi = sc.win_ci()
        print(f"{who} as {mark} against {opp}, {sc.games:,} games:")
        print(f"win {sc.win:.4f} (95% CI {lo:.4f}-{hi:.4f})  draw {sc.draw:.4f}  loss {sc.loss:.4f}  "
              f"({sc.seconds:.2f} s)")
        return 0
    who = f"{args.agent} ({agent.settings.method}, {agent.settings.approx}, {agent.episodes:,} training episodes)"
    lo, hi = sc.win_ci()
    print(f"{who} as {mark} against {opp}, {sc.games:,} games:")
    print(f"win {sc.win:.4f} (95% CI {lo:.4f}-{hi:.4f})  draw {sc.draw:.4f}  loss {sc.loss:.4f}  "
          f"({sc.seconds:.2f} s)")
    t, u = ev["baselines"]["tactical"], ev["baselines"]["untrained"]
    print(f"yardsticks as {mark}, same opponent and seed: tactical player win {t.win:.4f}, "
          f"untrained agent win {u.win:.4f}")
    return 0


def bench(argv: list[str]) -> int:
    """``mdpviz bench ttt3d``: training speed (episodes per second) and evaluation speed (games per
    second, all games in lockstep) of every method and approximator, with the win rate reached."""
    p = ArgumentParser(prog="mdpviz bench ttt3d", description=bench.__doc__)
    p.add_argument("--episodes", type=int, default=2_000, help="training episodes per combination (default 2000)")
    p.add_argument("--games", type=int, default=10_000, help="evaluation games (default 10000)")
    p.add_argument("--risk", default="classic", help=RISK_HELP + " (default classic)")
    p.add_argument("--methods", default="td,q", help="comma-separated methods (default td,q)")
    p.add_argument("--approx", default="linear,quadratic,mlp", help="comma-separated approximators")
    p.add_argument("--seed", type=seed, default=0, help="seed of the training and the games (default 0)")
    args = p.parse_args(argv)
    risk = ttt3d.resolve_risk(args.risk, seed=args.seed)
    base = ttt3d.play_vs_random(None, risk=risk, games=args.games, seed=EVAL_SEED)
    print(f"3x3x3 risk tic-tac-toe, risk {_risk_name(args.risk)}: random vs random, {base.games:,} games: "
          f"X wins {base.win:.4f}, draws {base.draw:.4f}, O wins {base.loss:.4f} "
          f"({base.games / base.seconds:,.0f} games/s)", flush=True)
    print(f"{'method':>6} {'approx':>9} {'episodes':>9} {'train s':>8} {'ms/episode':>10} "
          f"{'eval s':>7} {'games/s':>9} {'win':>7} {'loss':>7}", flush=True)
    for method in [m.strip() for m in args.methods.split(",") if m.strip()]:
        for approx in [a.strip() for a in args.approx.split(",") if a.strip()]:
            s = rl.TrainSettings(method=method, approx=approx, episodes=args.episodes,
                                 report_every=max(1, args.episodes), eval_games=0, seed=args.seed)
            agent, _ = rl.run_training(s, risk=risk)
            sc = agent.evaluate(args.games, seed=EVAL_SEED)
            ms = 1000 * agent.train_seconds / max(1, agent.episodes)
            print(f"{method:>6} {approx:>9} {agent.episodes:>9,} {agent.train_seconds:>8.2f} {ms:>10.3f} "
                  f"{sc.seconds:>7.2f} {sc.games / sc.seconds:>9,.0f} {sc.win:>7.4f} {sc.loss:>7.4f}", flush=True)
    return 0
