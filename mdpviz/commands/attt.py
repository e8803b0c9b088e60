"""``mdpviz attt encode|decode|iterate``: anti-tic-tac-toe with the course's files (seed 000).

The course pipeline::

    mdpviz attt encode --policy p1_policy1.txt --states states_file_p2.txt > mdp.txt
    mdpviz plan --mdp mdp.txt > vp.txt
    mdpviz attt decode --value-policy vp.txt --states states_file_p2.txt --player-id 2 > policy.txt

and best-response iteration to convergence (``mdpviz attt iterate``).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mdpviz.cli import print_json
from mdpviz.commands.plan import ALGORITHMS, algorithm_help
from mdpviz.models import attt
from mdpviz.core.cs747 import read_text_file, format_cs747
from mdpviz.commands import seed
from mdpviz.solvers import registry

START_KEYWORDS = ("random", "uniform")
"""Values of ``--start`` that are not file names."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "attt",
        help="anti-tic-tac-toe: encode, decode, best-response iteration",
        description="Anti-tic-tac-toe (the player who completes a line loses) with the course's "
        "states and policy files.",
    )
    asub = p.add_subparsers(dest="attt_command", metavar="SUBCOMMAND", parser_class=type(p))
    p.set_defaults(func=lambda args: _missing(p))

    e = asub.add_parser(
        "encode",
        help="the MDP of a player against the opponent's fixed policy (course format)",
        description="Print, in the course MDP format, the MDP of the player whose states are given "
        "against the opponent's fixed policy: my boards are states 0..n-1 in file order, then "
        "three absorbing end states n (win), n+1 (draw), n+2 (loss); actions are cells 0..8; "
        "reward 1 on winning, 0 otherwise; discount 1; episodic.",
    )
    e.add_argument("--policy", required=True, help="the opponent's policy file")
    e.add_argument("--states", required=True, help="my states file (boards where I am to move)")
    e.set_defaults(func=run_encode)

    d = asub.add_parser(
        "decode",
        help="a planner's 'V pi' output -> the best-response policy file",
        description="Write the one-hot policy file (player id, then 'board p0 ... p8') that plays "
        "the planner's action on each board; the first lines of the value-policy file are the "
        "boards of the states file, in order.",
    )
    d.add_argument("--value-policy", required=True, help="the planner's output ('V pi' per state)")
    d.add_argument("--states", required=True, help="the states file the MDP was encoded from")
    d.add_argument("--player-id", required=True, type=int, help="1 or 2: the player of the states file")
    d.set_defaults(func=run_decode)

    it = asub.add_parser(
        "iterate",
        help="alternate best responses until neither policy changes",
        description="Starting from one player's policy, alternately compute each player's best "
        "response to the other's current policy; per round print how many boards changed action "
        "and the exact win/draw probabilities from the empty board. Stops when neither policy changes.",
    )
    it.add_argument(
        "--start", default="random",
        help="a policy file, 'random' (a deterministic policy with a uniformly drawn empty cell per "
        "board, see --seed) or 'uniform' (every empty cell equally likely); default: random",
    )
    it.add_argument("--seed", type=seed, default=None, help="seed of --start random (default 0)")
    it.add_argument("--start-player", type=int, default=None,
                    help="the player of --start random/uniform: 1 (default) or 2")
    it.add_argument("--states1", default=None, help="player 1's states file (default: every reachable board)")
    it.add_argument("--states2", default=None, help="player 2's states file (default: every reachable board)")
    it.add_argument("--ties", choices=attt.TIE_RULES, default="lowest",
                    help="among cells of equal value play the lowest (the seed's rule) or the highest index")
    it.add_argument(
        "--algorithm", choices=sorted(ALGORITHMS),
        default=attt.IterationSettings().method, metavar="NAME",  # (the seed's planner)
        help="planner of each best response, named as in 'mdpviz plan' (default: in-place value iteration, the "
        "seed's; the policies do not depend on it): " + algorithm_help(),
    )
    it.add_argument("--max-rounds", type=int, default=100, help="give up after this many rounds (default 100; exit status 1 when they did not converge by then)")
    it.add_argument("--save-dir", default=None, help="write the final p1_policy.txt and p2_policy.txt here")
    it.add_argument("--json", action="store_true", help="print JSON instead of a table")
    it.set_defaults(func=run_iterate)


def _missing(p: argparse.ArgumentParser) -> int:
    p.print_help()
    return 2


def _example_names(args: argparse.Namespace, *names: str) -> None:
    """The course's states and policy files by the names ``mdpviz examples`` prints (``p1_policy1``,
    ``states_file_p2``), as ``plan --mdp`` takes its examples: a path that exists is used as it is."""
    from mdpviz.core.examples import resolve_mdp

    for name in names:
        value = getattr(args, name, None)
        if value and not (name == "start" and value in START_KEYWORDS):
            setattr(args, name, str(resolve_mdp(value)))


def run_encode(args: argparse.Namespace) -> int:
    _example_names(args, "policy", "states")
    opp = attt.load_policy(args.policy)
    me = 3 - opp.player
    boards = attt.load_states(
        args.states, player=me,
        why=f" (the opponent's policy {args.policy} is player {opp.player}'s, so the states must be player {me}'s)",
    )
    enc = attt.encode(boards, opp)
    print(format_cs747(enc.mdp), end="")
    return 0


def run_decode(args: argparse.Namespace) -> int:
    _example_names(args, "states")
    if args.player_id not in (1, 2):
        raise ValueError(f"--player-id must be 1 or 2, got {args.player_id}")
    boards = attt.load_states(args.states, player=args.player_id, why=f" (--player-id {args.player_id})")
    actions = attt.parse_value_policy_for(read_text_file(args.value_policy), args.value_policy, boards)
    print(attt.format_policy(attt.decode(boards, actions, source=args.value_policy)), end="")
    return 0


def _start_policy(args: argparse.Namespace, b1: attt.Boards, b2: attt.Boards) -> attt.AtttPolicy:
    if args.start in START_KEYWORDS:
        player = 1 if args.start_player is None else args.start_player
        if player not in (1, 2):
            raise ValueError(f"--start-player must be 1 or 2, got {player}")
        boards = b1 if player == 1 else b2
        if args.start == "uniform":
            if args.seed is not None:
                raise ValueError("--seed applies to --start random only (the uniform policy has no randomness to seed)")
            return attt.AtttPolicy.uniform(boards)
        return attt.AtttPolicy.random(boards, seed=0 if args.seed is None else args.seed)
    if args.seed is not None:
        raise ValueError("--seed applies to --start random only, not to a policy file")
    pol = attt.load_policy(args.start)
    if args.start_player is not None and args.start_player != pol.player:
        raise ValueError(f"--start-player {args.start_player}, but {args.start} is player {pol.player}'s policy")
    return pol


def run_iterate(args: argparse.Namespace) -> int:
    _example_names(args, "states1", "states2", "start")
    if args.max_rounds < 1:
        raise ValueError(f"--max-rounds must be at least 1, got {args.max_rounds}")
    r1, r2 = (None, None) if args.states1 and args.states2 else attt.reachable_boards()
    b1 = attt.load_states(args.states1, player=1, why=" (--states1)") if args.states1 else r1
    b2 = attt.load_states(args.states2, player=2, why=" (--states2)") if args.states2 else r2
    start = _start_policy(args, b1, b2)
    settings = attt.IterationSettings(ties=args.ties, method=ALGORITHMS[args.algorithm], max_rounds=args.max_rounds)
    result = attt.run_iteration(attt.best_response_iteration(start, p1_boards=b1, p2_boards=b2, settings=settings))
    saved = []
    if args.save_dir:
        out = Path(args.save_dir)
        out.mkdir(parents=True, exist_ok=True)
        for pol, name in ((result.p1_policy, "p1_policy.txt"), (result.p2_policy, "p2_policy.txt")):
            (out / name).write_text(attt.format_policy(pol))
            saved.append(str(out / name))
    o = result.outcome
    if args.json:
        print_json({
            "start_policy": {"policy": start.source, "player": start.player},
            "ties": args.ties,
            "algorithm": args.algorithm,
            "rounds": result.rounds,
            "converged": result.converged,
            "p1_win": o.p1_win,
            "p2_win": o.p2_win,
            "draw": o.draw,
            "changed_per_round": list(result.changed),
            "history": [
                {"round": r.round, "player": r.player, "changed": r.changed,
                 "p1_win": r.p1_win, "p2_win": r.p2_win, "draw": r.draw}
                for r in result.history
            ],
            "saved": saved,
        })
        return _iterate_status(result)
    print(f"start: player {start.player}, {start.source}; ties to the {args.ties} cell index; planner {args.algorithm}")
    print(f"{'round':>5}  {'responder':>9}  {'changed':>7}  {'P(p1 win)':>9}  {'P(p2 win)':>9}  {'P(draw)':>9}")
    for r in result.history:
        print(f"{r.round:>5}  {'player ' + str(r.player):>9}  {r.changed:>7}  {r.p1_win:>9.6f}  {r.p2_win:>9.6f}  {r.draw:>9.6f}")
    if result.converged:
        print(f"converged after {result.rounds} rounds: neither policy changes any more")
    else:
        print(f"not converged after {result.rounds} rounds (--max-rounds)")
    print(f"final: P(p1 win) = {o.p1_win:.12g}, P(p2 win) = {o.p2_win:.12g}, P(draw) = {o.draw:.12g}")
    if result.converged and o.p1_win == 0.0:
        print("player 1 never wins at convergence")
    for f in saved:
        print(f"wrote {f}")
    return _iterate_status(result)


def _iterate_status(result) -> int:
    """Exit status of ``attt iterate``: 0 when the rounds converged; 1 when --max-rounds stopped them
    first (the rounds printed are real, but not the answer: a script must not take them for it)."""
    if result.converged:
        return 0
    print(f"mdpviz: not converged after {result.rounds} rounds: raise --max-rounds to go on (exit status 1)",
          file=sys.stderr)
    return 1
