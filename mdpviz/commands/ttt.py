"""``mdpviz ttt``, ``mdpviz risk-ttt`` and ``mdpviz match``: tic-tac-toe from the command line.

* ``ttt``: tic-tac-toe against a uniformly random opponent (seed 001): solve, then the exact
  win / draw / loss probabilities of the policy beside a simulation, and why the first moves are chosen.
* ``risk-ttt``: risk tic-tac-toe (seed 003): minimax value iteration on 3x3 with the seed's
  per-sweep log, or the exact 4x4 solve by backward induction.
* ``match``: N games between two agents of risk tic-tac-toe, with the exact probabilities of the pair.

``mdpviz bench risk4`` (:func:`bench_risk4`) times the exact 4x4 solve.
"""
from __future__ import annotations

import argparse
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

from mdpviz.commands import ArgumentParser, add_option, positive_float, positive_int, seed
from mdpviz.core.chunked import check_games
from mdpviz.cli import print_json
from mdpviz.models.kit.boards.position import MatchupRow
from mdpviz.models.kit.game.options import DISCOUNT_ALIASES
from mdpviz.models.ttt.cli import parse_rewards as _parse_rewards  # (the game's own, shared with --game ttt)
from mdpviz.models.risk_ttt import (
    AGENT_KINDS,
    PRESETS,
    Agent,
    MatchOutcome,
    compile_risk,
    load_policy_file,
    make_agent,
    parse_risk,
    play_match,
    risk_preset,
    solve_exact,
    state_label,
)
from mdpviz.models.ttt import (
    OUTCOMES,
    BoardGeometry,
    VsRandomGame,
    VsRandomSettings,
    compile_vs_random,
    move_reports,
    outcome_matrix,
    simulate_outcomes,
)
from mdpviz.core.simulate import proportion_ci
from mdpviz.solvers import METHOD_NAMES, registry, run, solver

NOT_METHOD_IDS = {"q": "the JSON field and table column of an opening's or a move's Q value"}
"""Words of this module that are not method ids (the registry test's scan reads this declaration)."""

TTT_METHODS = registry.game_choices(acyclic=True)
"""Solvers offered for the vs-random game (one player, acyclic: bi = backward induction included)."""

RISK_METHODS = registry.game_choices(two_player=True, acyclic=True)
"""Solvers offered for 3x3 risk tic-tac-toe (two players, acyclic; 4x4 always uses backward induction)."""

LAYERED_METHOD = registry.ids_where("solver", needs_acyclic=True)[0]
"""The method 4x4 risk tic-tac-toe is always solved with (backward induction, layer by layer), as its JSON names it."""


FRACTION_TOL = 2e-15
"""Relative distance within which a float counts as equal to a fraction (a few rounding errors;
a random real has a fraction of denominator <= 10^6 this close with probability ~0.2%)."""


def exact_fraction(x: float, *, max_den: int = 10**6) -> str | None:
    """``"866/945"`` when the closest fraction with denominator <= ``max_den`` matches ``x`` to
    within :data:`FRACTION_TOL` (relative), else None (the value is then shown as a decimal only)."""
    x = float(x)
    f = Fraction(x).limit_denominator(max_den)
    if abs(float(f) - x) > FRACTION_TOL * max(1.0, abs(x)):
        return None
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


# ====================================================================== ttt
def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "ttt",
        help="tic-tac-toe against a uniformly random opponent: exact outcome probabilities",
        description="Solve tic-tac-toe against an opponent that plays a uniformly random empty cell "
        "(seed 001), then print the exact win/draw/loss probabilities of the policy (a Markov chain, "
        "no sampling) beside a simulation, and the numbers behind the first moves.",
    )
    p.add_argument("--agent", choices=("X", "O", "x", "o"), default="O", help="the agent's mark (default O)")
    p.add_argument("--first", choices=("opponent", "agent"), default="opponent",
                   help="who moves first (default opponent)")
    p.add_argument("--rewards", default="500,0,-3500", help="win,draw,loss rewards (default 500,0,-3500)")
    add_option(p, "--discount", *DISCOUNT_ALIASES, type=float, default=0.9, help="discount per round (default 0.9)")
    p.add_argument("--method", choices=TTT_METHODS, default=registry.DEFAULT_SOLVER,
                   help="vi value iteration (default), gs in-place VI, pi policy iteration, lp linear "
                   "programming, bi backward induction")
    p.add_argument("--games", type=int, default=100_000, help="games simulated (default 100000; 0: none)")
    p.add_argument("--seed", type=seed, default=None, help="random seed of the simulation")
    p.add_argument("--explain", default=None, metavar="BOARD",
                   help="also print every legal move of this board (e.g. 'X...O....'): Q and exact outcomes")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run_ttt)
    register_risk(sub)
    register_match(sub)


def _outcome_dict(p: np.ndarray) -> dict[str, float]:
    return {name: float(v) for name, v in zip(OUTCOMES, p)}


def _fmt_p(x: float) -> str:
    f = exact_fraction(x)
    return f"{100 * x:.3f}%" + (f" ({f})" if f is not None and f not in ("0", "1") else "")


def run_ttt(args: argparse.Namespace) -> int:
    win, draw, loss = _parse_rewards(args.rewards)
    check_games(args.games, "--games", allow_zero=True)
    settings = VsRandomSettings(agent=args.agent.upper(), first=args.first, win=win, draw=draw, loss=loss,
                                discount=float(args.discount))
    game = compile_vs_random(settings)
    sol = run(solver(game.mdp, args.method))
    if not sol.converged:
        raise ValueError(f"{args.method} did not converge in {sol.sweeps} sweeps")
    h = outcome_matrix(game, sol.policy)
    start = game.start_probs @ h[game.start_states]
    value = _exact_policy_value(game, sol.policy)
    out: dict = {
        "agent": settings.agent, "first": settings.first, "rewards": [win, draw, loss], "discount": settings.discount,
        "gamma": settings.discount,
        "method": args.method, **_outcome_dict(start),
        "fractions": {name: exact_fraction(v) for name, v in zip(OUTCOMES, start)},
        "value": value, "n_states": game.mdp.n_states, "board_states": game.n_board_states, "iterations": sol.sweeps,
    }
    if args.games:
        counts = simulate_outcomes(game, sol.policy, games=args.games, seed=args.seed)
        lo, hi = proportion_ci(counts, args.games)
        out["simulated"] = {
            "games": args.games, "seed": args.seed,
            **{name: counts[i] / args.games for i, name in enumerate(OUTCOMES)},
            "ci": {name: [float(lo[i]), float(hi[i])] for i, name in enumerate(OUTCOMES)},
        }
    openings = _opening_table(game, sol.values, sol.policy, h)
    out["first_moves"] = openings
    explain = None
    if args.explain is not None:
        s = game.state_of(args.explain)
        explain = [vars(r) for r in move_reports(game, sol.values, sol.policy, s)]
        out["explain"] = {"board": game.geometry.text(game.board_of(s)), "chosen": int(sol.policy[s]), "moves": explain}
    if args.json:
        print_json(out)
        return 0
    who = "the agent" if settings.first == "agent" else "the opponent"
    print(f"tic-tac-toe against a uniformly random opponent: agent {settings.agent}, {who} moves first")
    print(f"rewards win {win:g} / draw {draw:g} / loss {loss:g}, discount {settings.discount:g} per round; "
          f"{game.n_board_states:,} positions with the agent to move (+3 outcome states)")
    print(f"{METHOD_NAMES[args.method]}: {sol.sweeps} iteration{'s' if sol.sweeps != 1 else ''}")
    start_txt = "from the empty board" if settings.first == "agent" else "mean over the opponent's 9 opening moves"
    print(f"value of the policy ({start_txt}): {value:.6g}")
    print("exact outcome of the policy:   " + "   ".join(f"{n} {_fmt_p(v)}" for n, v in zip(OUTCOMES, start)))
    if args.games:
        sim = out["simulated"]
        print(f"simulated ({args.games:,} games{'' if args.seed is None else f', seed {args.seed}'}): "
              + "   ".join(f"{n} {100 * sim[n]:.3f}% [{100 * sim['ci'][n][0]:.2f}, {100 * sim['ci'][n][1]:.2f}]"
                         for n in OUTCOMES) + "  (95% CI)")
    print()
    if settings.first == "agent":
        print("why: every first move from the empty board (Q = expected discounted return; then exact outcomes)")
    else:
        print("why: the agent's reply to each opening move of the opponent (Q; then exact outcomes)")
    print(f"  {'board':<11} {'cell':>4} {'Q':>12} {'win':>9} {'draw':>9} {'loss':>9}")
    for row in openings:
        mark = " <- chosen" if row.get("chosen") else ""
        print(f"  {row['board']:<11} {row['cell']:>4} {row['q_value']:>12.6g} {100 * row['win']:>8.3f}% "
              f"{100 * row['draw']:>8.3f}% {100 * row['loss']:>8.3f}%{mark}")
    if explain is not None:
        print()
        print(f"moves on {out['explain']['board']} (the policy plays cell {out['explain']['chosen']}):")
        for r in explain:
            print(f"  cell {r['cell']}: Q {r['q']:.6g}   win {100 * r['win']:.3f}%   draw {100 * r['draw']:.3f}%   "
                  f"loss {100 * r['loss']:.3f}%")
    return 0


def _exact_policy_value(game: VsRandomGame, policy: np.ndarray) -> float:
    """The agent's expected discounted return from the start under ``policy`` (exact, acyclic DP)."""
    from mdpviz.solvers import row_weights_deterministic
    from mdpviz.solvers.backward_induction import evaluate_acyclic
    from mdpviz.solvers.sweep import policy_to_rows

    W = row_weights_deterministic(game.mdp, policy_to_rows(game.mdp, policy))
    return game.start_value(evaluate_acyclic(game.mdp, W, layers=game.layers))


def _opening_table(game: VsRandomGame, values: np.ndarray, policy: np.ndarray, h: np.ndarray) -> list[dict]:
    """Agent first: every move from the empty board. Opponent first: the agent's reply to each opening."""
    mdp = game.mdp
    q = mdp.q_values(values)
    after = mdp.matrix @ h
    rows = []
    if game.settings.first == "agent":
        s = int(game.start_states[0])
        for r in range(int(mdp.state_ptr[s]), int(mdp.state_ptr[s + 1])):
            a = int(mdp.row_action[r])
            rows.append({"board": game.geometry.text(game.board_of(s)), "cell": a, "q_value": float(q[r]),
                         **_outcome_dict(after[r]), "chosen": a == int(policy[s])})
    else:
        for s in game.start_states:
            r = mdp.row_of(int(s), int(policy[s]))
            rows.append({"board": game.geometry.text(game.board_of(int(s))), "cell": int(policy[s]), "q_value": float(q[r]),
                         **_outcome_dict(after[r])})
    return rows


# ====================================================================== risk-ttt
def _add_risk_args(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--preset", default=None, choices=sorted(PRESETS),
                   help="a risk preset of seed 003 (default stochastic on 3x3): " +
                   "; ".join(f"{k}: {v}" for k, v in PRESETS.items()))
    g.add_argument("--risk", default=None, help="one risk in [0, 1] per cell, comma-separated (row-major)")
    p.add_argument("--seed", type=seed, default=None, help="seed of the noisy and random presets (and of games)")


def _risk_vector(args: argparse.Namespace, n_cells: int) -> tuple[np.ndarray, str]:
    if args.risk is not None:
        return parse_risk(args.risk, n_cells), "custom"
    name = args.preset or ("stochastic" if n_cells == 9 else None)
    if name is None:
        raise ValueError(f"give --preset or --risk with {n_cells} values for this board (the stochastic preset is 3x3 only)")
    return risk_preset(name, n_cells=n_cells, seed=args.seed), name


def register_risk(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "risk-ttt",
        help="risk tic-tac-toe: minimax values with per-cell risks (3x3 by sweeps, 4x4 exactly)",
        description="Solve risk tic-tac-toe (seed 003): choosing cell i places the opponent's mark there "
        "with probability P[i]. X maximises, O minimises; +1 / -1 for a line of X / O. 3x3: minimax value "
        "iteration over every (board, turn) state, logging each sweep as the seed does. 4x4 (4 in a row): "
        "solved exactly by backward induction over the number of filled cells.",
    )
    _add_risk_args(p)
    p.add_argument("--size", type=int, default=3, help="board side: 3 (default), 4, or 2 (a tiny board of 150 states to follow by hand); 5 and larger are refused")
    p.add_argument("--method", choices=RISK_METHODS, default=registry.DEFAULT_SOLVER,
                   help="3x3 solver: vi minimax value iteration (default), gs in place, pi policy iteration, "
                   "bi backward induction")
    p.add_argument("--tol", type=positive_float, default=1e-12,
                   help="value-iteration tolerance: stop when max |T(V) - V| < tol (default 1e-12, i.e. until "
                   "a sweep changes nothing, the seed's last log entry)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run_risk)


def run_risk(args: argparse.Namespace) -> int:
    from mdpviz.models.risk_ttt import check_exact_size

    check_exact_size(args.size)
    n_cells = args.size * args.size
    risk, name = _risk_vector(args, n_cells)
    if args.size != 3:
        return _run_risk_exact(args, risk, name)
    t0 = time.perf_counter()
    game = compile_risk(risk)
    opts = {"tol": args.tol} if registry.get(args.method).value_iteration else {}
    gen = solver(game.mdp, args.method, **opts)
    sol = run(gen, record=True)
    secs = time.perf_counter() - t0
    if not sol.converged:
        raise ValueError(f"{args.method} did not converge in {sol.sweeps} sweeps")
    log = [
        {"sweep": sw.iteration, "phase": sw.phase, "max_change": sw.delta,
         "state": state_label(game, sw.delta_state) if sw.delta_state >= 0 else None, "mean_change": sw.mean_delta}
        for sw in sol.history
    ]
    value = game.value(sol.values, 0, "X")
    out = {"size": 3, "preset": name, "risk": risk, "method": args.method, "value": value,
           "fraction": exact_fraction(value), "n_states": game.n_states, "sweeps": sol.sweeps, "seconds": secs,
           "log": log}
    if args.json:
        print_json(out)
        return 0
    print(f"risk tic-tac-toe 3x3, risks {_fmt_risk(risk)} ({name})")
    print(f"{game.n_states:,} (board, turn) states; {METHOD_NAMES[args.method]}")
    for e in log:
        what = "max |T(V) - V|" if e["phase"] in ("sweep", "improve") else "max change"
        print(f"  {e['phase']} {e['sweep']:>2}: {what} = {e['max_change']:.10g} at {e['state']}, "
              f"mean change {e['mean_change']:.10g}")
    frac = f" = {out['fraction']}" if out["fraction"] not in (None, "0") else ""
    print(f"value of the empty board, X to move: {value:.8f}{frac}  ({sol.sweeps} sweeps, {secs:.3f} s)")
    return 0


def _fmt_risk(risk: np.ndarray) -> str:
    return "[" + ", ".join(f"{v:.4g}" for v in risk) + "]"


def _run_risk_exact(args: argparse.Namespace, risk: np.ndarray, name: str) -> int:
    layers = []
    ex = solve_exact(risk, size=args.size, keep_policy=False,
                     on_layer=lambda layer: layers.append({"layer": layer.layer, "n_states": layer.states,
                                                        "terminal": layer.terminal, "seconds": layer.elapsed}))
    out = {"size": args.size, "preset": name, "risk": risk, "method": LAYERED_METHOD, "value": ex.empty_value,
           "fraction": exact_fraction(ex.empty_value), "n_states": ex.n_states, "boards_solved": ex.layered.states,
           "sweeps": ex.layered.layers, "seconds": ex.seconds, "log": layers}
    if args.json:
        print_json(out)
        return 0
    n = args.size
    print(f"risk tic-tac-toe {n}x{n} ({n} in a row), risks {_fmt_risk(risk)} ({name})")
    print(f"backward induction over the number of filled cells: {ex.layered.states:,} boards with X to move "
          f"after X opened; the other turn by colour symmetry: {ex.n_states:,} (board, turn) states")
    for e in layers:
        print(f"  layer {e['layer']:>2} ({e['n_states']:>10,} boards, {e['terminal']:>9,} terminal) done at {e['seconds']:.2f} s")
    frac = f" = {out['fraction']}" if out["fraction"] not in (None, "0") else ""
    print(f"value of the empty board, X to move: {ex.empty_value:.10g}{frac}  ({ex.seconds:.2f} s)")
    return 0


# ====================================================================== match
def register_match(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "match",
        help="risk tic-tac-toe matchups: N games between two agents, with exact probabilities",
        description="Play N games of 3x3 risk tic-tac-toe between two agents: optimal (for this risk "
        "vector), classic (optimal for P = 0, playing in this environment), random (uniform over empty "
        "cells) or a JSON policy file mapping boards to cells (the seed-001 format; positions it does "
        "not list are played at random). Prints X wins / O wins / draws with 95% intervals and the exact "
        "outcome probabilities of the pair.",
    )
    _add_risk_args(p)
    p.add_argument("--x", default="optimal", help="the X player: optimal, classic, random or a policy file")
    p.add_argument("--o", default="random", help="the O player: optimal, classic, random or a policy file")
    p.add_argument("--games", type=positive_int, default=100_000, help="games to simulate (default 100000)")
    p.add_argument("--both-orders", action="store_true", help="also play with the agents' marks swapped")
    p.add_argument("--no-exact", action="store_true", help="skip the exact probabilities")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run_match)


def _agent(spec: str, game, cache: dict) -> Agent:
    key = spec.strip()
    if key.lower() in AGENT_KINDS:
        k = key.lower()
        if k not in cache:
            cache[k] = make_agent(k, game)
        return cache[k]
    path = Path(key)
    if not path.is_file():
        if path.is_dir():
            raise ValueError(f"{path}: is a directory, not a policy file")
        if path.exists():  # a device, a FIFO, a socket: there, but not a file to read a policy from
            raise ValueError(f"{path}: not a regular file (a policy is a JSON file)")
        if path.suffix or "/" in key or "\\" in key:  # meant as a file: say that it is not there
            raise ValueError(f"{path}: no such file (an agent is {', '.join(AGENT_KINDS)} or a JSON policy file)")
        raise ValueError(f"unknown agent {spec!r}: use {', '.join(AGENT_KINDS)} or the path of a JSON policy file")
    probs, _ = load_policy_file(path, game)
    return Agent(path.name, probs)


def _match_dict(m: MatchupRow) -> dict:
    f, (lo, hi), keys = m.fractions, m.ci, MatchOutcome._fields
    d = {"x": m.x, "o": m.o, "games": m.games, **{k: float(f[j]) for j, k in enumerate(keys)},
         "ci": {k: [float(lo[j]), float(hi[j])] for j, k in enumerate(keys)}, "seconds": m.seconds}
    if m.exact is not None:
        d["exact_outcomes"] = m.exact._asdict()
    return d


def run_match(args: argparse.Namespace) -> int:
    risk, name = _risk_vector(args, 9)
    game = compile_risk(risk)
    cache: dict = {}
    check_games(args.games, "--games")
    x = _agent(args.x, game, cache)
    o = _agent(args.o, game, cache)
    rng = np.random.default_rng(args.seed)
    first = play_match(game, x, o, games=args.games, seed=rng, exact=not args.no_exact)
    out = {"preset": name, "risk": risk, **_match_dict(first)}
    second = None
    if args.both_orders:
        second = play_match(game, o, x, games=args.games, seed=rng, exact=not args.no_exact)
        out["swapped"] = _match_dict(second)
    if args.json:
        print_json(out)
        return 0
    print(f"risk tic-tac-toe 3x3, risks {_fmt_risk(risk)} ({name}); {args.games:,} games per order"
          + ("" if args.seed is None else f", seed {args.seed}"))
    for m in (first, second):
        if m is None:
            continue
        f, (lo, hi) = m.fractions, m.ci
        print(f"X = {m.x}, O = {m.o}  ({m.seconds:.2f} s)")
        for j, label in enumerate(m.labels):
            exact = "" if m.exact is None else f"   exact {100 * m.exact[j]:.3f}%"
            print(f"  {label:<7} {100 * f[j]:7.3f}%  [{100 * lo[j]:.3f}, {100 * hi[j]:.3f}]{exact}")
    return 0


# ====================================================================== benchmark
def bench_risk4(argv: list[str]) -> int:
    """Exact 4x4 risk tic-tac-toe: seconds, peak memory and the empty-board value per risk vector."""
    import resource
    import tracemalloc

    p = ArgumentParser(prog="mdpviz bench risk4", description=bench_risk4.__doc__)
    p.add_argument("--seed", type=seed, default=1, help="seed of the random risk vector (default 1)")
    p.add_argument("--presets", default="classic,reverse,half,random",
                   help="comma-separated presets to solve (default classic,reverse,half,random)")
    p.add_argument("--chunk", type=int, default=None, help="boards expanded at once (default 262144)")
    p.add_argument("--no-tracemalloc", action="store_true",
                   help="report only the process peak (ru_maxrss), without tracing allocations")
    args = p.parse_args(argv)
    geo = BoardGeometry(size=4)
    print(f"risk tic-tac-toe 4x4 (4 in a row), exact backward induction over 3^16 = {geo.n_boards:,} boards "
          f"(X to move after opening; the other turn by symmetry). Targets: < 30 s, < 2 GiB peak.", flush=True)
    for name in [t.strip() for t in args.presets.split(",") if t.strip()]:
        risk = risk_preset(name, n_cells=16, seed=args.seed)
        if not args.no_tracemalloc:
            tracemalloc.start()
        ex = solve_exact(risk, size=4, keep_policy=True, chunk_size=args.chunk)
        traced = None
        if not args.no_tracemalloc:
            traced = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB
        label = f"{name} (seed {args.seed})" if name in ("random", "noisy-classic", "noisy-reverse") else name
        peak = "" if traced is None else f"peak traced allocations {traced / 2**30:.2f} GiB, "
        print(f"{label:<16} value of the empty board {ex.empty_value:+.10f}   {ex.seconds:6.2f} s   {peak}"
              f"process peak RSS so far {rss / 2**30:.2f} GiB   ({ex.layered.states:,} boards, "
              f"{ex.layered.rows:,} (state, action) rows)", flush=True)
        if name == "random":
            print(f"{'':<16} risks {_fmt_risk(risk)}", flush=True)
        del ex
    return 0
