"""``mdpviz checkers``: checkers on a small board, solved by value iteration against a random opponent.

::

    mdpviz checkers                                  # the default: 5x5, 1 row, 40 plies, discount 0.1
    mdpviz checkers --size 4 --discount 0.9 --games 10000 --seed 1 --json
    mdpviz checkers --agent white --ply-limit 0      # no ply limit (games may cycle)
    mdpviz bench checkers                            # state counts, time and memory per variant

The benchmark (``bench``) measures every variant in a fresh subprocess, so that its peak memory
(``ru_maxrss``) is its own.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from mdpviz.commands import (ArgumentParser, add_option, positive_float, positive_int, seed, spelled,
                             unit_interval)
from mdpviz.cli import print_json
from mdpviz.models.kit.game.options import DISCOUNT_ALIASES
from mdpviz.models.checkers import (
    BLACK,
    COLOURS,
    DEFAULT_DISCOUNT,
    DEFAULT_MAX_STATES,
    DEFAULT_MAX_TRANSITIONS,
    DEFAULT_TOL,
    CheckersRules,
    GameResults,
    VariantTooLarge,
    compile_checkers,
)
from mdpviz.solvers import METHOD_NAMES, registry, solve

METHODS = registry.game_choices(two_player=True)
"""Solvers offered (the games' commands' methods a two-player game with cycles takes): synchronous value
iteration (default), in-place value iteration, policy iteration."""

TIME_LIMIT_S = 30.0
"""The issue's limit for the default variant: enumerate and solve in under 30 s ..."""
MEMORY_LIMIT_MIB = 4096
"""... and 4 GiB."""


def _ply_limit(text: str) -> int | None:
    v = text.strip().lower()
    if v in ("0", "none", "off"):
        return None
    try:
        n = int(v)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--ply-limit must be a whole number of plies or 0/none, got {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"--ply-limit must be >= 0 (0: no limit), got {n}")
    return n


def register(sub: argparse._SubParsersAction) -> None:
    d = CheckersRules()
    p = sub.add_parser(
        "checkers",
        help="checkers on a small board: value iteration against a random opponent",
        description="Enumerate every reachable checkers position of a small variant (a state = the "
        "agent to move; a transition = the agent's move then the opponent's uniformly random reply), "
        "solve it by value iteration with the seed's rewards (1.5 x material with kings worth 3.33 "
        "men; +100 win, -100 loss, 0 draw), then play the solved agent and a random agent against "
        "the random opponent: simulated wins/draws/losses with 95% intervals, beside the exact "
        "probabilities.",
    )
    p.add_argument("--size", type=int, default=d.size, help=f"board side, 4..8 (default {d.size})")
    p.add_argument("--rows", type=int, default=d.rows, help=f"rows of men per side (default {d.rows})")
    p.add_argument("--ply-limit", type=_ply_limit, default=d.ply_limit, metavar="L",
                   help=f"draw after L plies (half-moves); 0 or none: no limit, games may cycle (default {d.ply_limit})")
    p.add_argument("--no-forced-capture", dest="forced_capture", action="store_false",
                   help="captures are optional (default: a capture must be played when there is one)")
    p.add_argument("--no-multi-jump", dest="multi_jump", action="store_false",
                   help="a capture is a single jump (default: a piece keeps jumping while it can)")
    p.add_argument("--agent", choices=COLOURS, default=BLACK, help="the agent's colour; black moves first (default black)")
    add_option(p, "--discount", *DISCOUNT_ALIASES, type=float, default=DEFAULT_DISCOUNT,
                   help=f"discount per agent move (default {DEFAULT_DISCOUNT:g}, the seed's: greedy for material)")
    p.add_argument("--tol", type=positive_float, default=DEFAULT_TOL,
                   help=f"value iteration stops when no value changes by this much (default {DEFAULT_TOL:g})")
    p.add_argument("--method", choices=METHODS, default=registry.DEFAULT_SOLVER,
                   help="vi: value iteration (synchronous), gs: in-place value iteration, pi: policy iteration (default vi)")
    p.add_argument("--games", type=int, default=10_000, help="simulated games per player (default 10000)")
    p.add_argument("--seed", type=seed, default=None, help="seed of the simulated games (default: fresh randomness)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--max-states", type=int, default=DEFAULT_MAX_STATES,
                   help=f"refuse variants with more states than this (default {DEFAULT_MAX_STATES:,}: "
                   "sized for 30 s and 4 GiB)")
    p.add_argument("--max-transitions", type=int, default=DEFAULT_MAX_TRANSITIONS,
                   help=f"refuse variants with more transitions than this (default {DEFAULT_MAX_TRANSITIONS:,})")
    p.set_defaults(func=run)


def rules_from_args(args: argparse.Namespace) -> CheckersRules:
    """The variant the command line asks for (ValueError naming a bad option)."""
    return CheckersRules(size=args.size, rows=args.rows, forced_capture=args.forced_capture,
                         multi_jump=args.multi_jump, ply_limit=args.ply_limit)


def _check_args(args: argparse.Namespace) -> None:
    from mdpviz.core.chunked import check_games

    check_games(args.games, "--games")
    flag = spelled(args, "discount", "--discount")
    if not (0.0 <= args.discount <= 1.0):
        raise ValueError(f"{flag} must be in [0, 1], got {args.discount}")
    if args.discount >= 1.0 and args.ply_limit is None:
        raise ValueError(f"{flag} 1 needs a ply limit: without one games can cycle forever and the "
                         "undiscounted values are not finite")
    if not (args.tol > 0 and np.isfinite(args.tol)):
        raise ValueError(f"--tol must be a positive number, got {args.tol}")
    if args.max_states < 1 or args.max_transitions < 1:
        raise ValueError("--max-states and --max-transitions must be at least 1")


def _player(res: GameResults, exact: dict[str, float] | None) -> dict:
    rates = res.rates()
    out: dict = {k: rates[k]["rate"] for k in ("win", "draw", "loss")}
    out["ci"] = {k: [rates[k]["ci_low"], rates[k]["ci_high"]] for k in ("win", "draw", "loss")}
    out["counts"] = {"win": res.win, "draw": res.draw, "loss": res.loss}
    out["unfinished"] = res.unfinished
    out["mean_moves"] = res.mean_moves
    out["exact"] = exact
    return out


def run(args: argparse.Namespace) -> int:
    _check_args(args)
    rules = rules_from_args(args)
    t0 = time.perf_counter()
    cm = compile_checkers(rules, agent=args.agent, discount=args.discount, max_states=args.max_states,
                          max_transitions=args.max_transitions)
    t1 = time.perf_counter()
    opts = {"tol": args.tol} if registry.get(args.method).value_iteration else {}
    sol = solve(cm.mdp, args.method, **opts)
    t2 = time.perf_counter()
    if not sol.converged:
        raise ValueError(f"{METHOD_NAMES[args.method]} did not converge in {sol.sweeps} sweeps "
                         f"(largest change {sol.delta:.3g})")
    exact_agent = cm.outcome_probabilities(sol.policy)
    exact_random = cm.outcome_probabilities(None)
    t3 = time.perf_counter()
    seeds = np.random.SeedSequence(args.seed).spawn(2)
    agent = cm.play_games(sol.policy, games=args.games, seed=np.random.default_rng(seeds[0]))
    rnd = cm.play_games(None, games=args.games, seed=np.random.default_rng(seeds[1]))
    t4 = time.perf_counter()
    start_value = float(cm.start_probs @ sol.values[cm.start_states])
    report = {
        "variant": {**asdict(rules), "agent": args.agent, "discount": args.discount, "gamma": args.discount,
                    "description": rules.describe()},
        "method": args.method,
        "n_states": cm.n_states,
        "positions": cm.n_positions,
        "n_actions": cm.mdp.n_actions,
        "transitions": cm.mdp.n_transitions,
        "sweeps": sol.sweeps,
        "converged": sol.converged,
        "seconds": t2 - t0,
        "timing": {"enumerate": t1 - t0, "solve": t2 - t1, "exact": t3 - t2, "simulate": t4 - t3},
        "start_value": start_value,
        "games": args.games,
        "seed": args.seed,
        "agent_outcomes": _player(agent, exact_agent),
        "random": _player(rnd, exact_random),
    }
    if args.json:
        print_json(report)
        return 0
    _print_report(report, rules, args)
    return 0


def _print_report(r: dict, rules: CheckersRules, args: argparse.Namespace) -> None:
    print(f"checkers {rules.describe()}; agent {args.agent} vs a uniformly random opponent")
    print(f"states {r['n_states']:,} ({r['positions']:,} positions, {r['n_actions']} move labels, "
          f"{r['transitions']:,} transitions)")
    t = r["timing"]
    print(f"{METHOD_NAMES[args.method]}, discount {args.discount:g}: {r['sweeps']} sweeps; enumerate {t['enumerate']:.2f} s, "
          f"solve {t['solve']:.2f} s; value of the start {r['start_value']:.4f}")
    print(f"{args.games:,} games each{'' if args.seed is None else f' (seed {args.seed})'}: "
          "simulated rate [95% interval] | exact probability")
    for who, key in (("agent", "agent_outcomes"), ("random", "random")):
        p = r[key]
        cells = "  ".join(
            f"{k} {p[k]:.4f} [{p['ci'][k][0]:.4f}, {p['ci'][k][1]:.4f}] | {p['exact'][k]:.4f}"
            for k in ("win", "draw", "loss")
        )
        extra = f"  ({p['unfinished']} stopped by the step cap)" if p["unfinished"] else ""
        print(f"  {who:>6}: {cells}{extra}")


# ------------------------------------------------------------------------------------ benchmark
BENCH_BOARDS = "4x1,5x1,5x2,6x1,6x2,8x1,8x2,8x3"
"""Boards measured by default: SIZExROWS."""
BENCH_OPTIONS = "fm,f,m,-"
"""Rule options measured by default: f = forced capture, m = multi-jump, - = neither."""


def measure_variant(rules: CheckersRules, *, discount: float = DEFAULT_DISCOUNT, tol: float = DEFAULT_TOL,
                    max_states: int = DEFAULT_MAX_STATES, max_transitions: int = DEFAULT_MAX_TRANSITIONS) -> dict:
    """Enumerate and solve one variant in this process; the counts, seconds and peak memory (MiB).

    Run it in a fresh process (as :func:`bench` does) for the peak memory to be the variant's own.
    """
    t0 = time.perf_counter()
    try:
        cm = compile_checkers(rules, discount=discount, max_states=max_states, max_transitions=max_transitions)
    except VariantTooLarge as e:
        return {"refused": str(e), "seconds": time.perf_counter() - t0, "peak_mib": _peak_mib()}
    t1 = time.perf_counter()
    sol = solve(cm.mdp, registry.DEFAULT_SOLVER, tol=tol)
    t2 = time.perf_counter()
    return {
        "states": cm.n_states, "positions": cm.n_positions, "transitions": cm.mdp.n_transitions,
        "enumerate": t1 - t0, "solve": t2 - t1, "seconds": t2 - t0, "sweeps": sol.sweeps,
        "peak_mib": _peak_mib(),
    }


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: kilobytes


def _measure_spec(s: dict) -> dict:
    """Measure the variant of a benchmark spec under its address-space cap (in this process)."""
    cap = int(s["address_space_gib"] * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))  # a safety net for the shared machine
    try:
        return measure_variant(CheckersRules(**s["rules"]), discount=s["discount"], tol=s["tol"],
                               max_states=s["max_states"], max_transitions=s["max_transitions"])
    except MemoryError:
        return {"refused": "out of memory (address-space cap of the benchmark)", "peak_mib": _peak_mib()}


def _worker() -> None:
    """The benchmark's worker process: imports and loads the numba kernels once, then measures each
    variant read from stdin (one JSON spec a line, with "timeout" in seconds) in a child forked from
    itself, and prints one JSON line per variant ({"timeout": true} when stopped, {"failed": ...}).

    A forked child starts from this small, single-threaded process, so its peak memory is the
    variant's own plus the same baseline a fresh process has, without paying a Python start and a
    numba load (about 1.5 s) per variant."""
    import select
    import signal

    from mdpviz.solvers import kernels

    kernels.warm_up()
    measure_variant(CheckersRules(size=4, ply_limit=4))  # loads the checkers kernels and the solver's
    measure_variant(CheckersRules(size=4, ply_limit=None))
    print("ready", flush=True)
    for line in sys.stdin:
        spec = json.loads(line)
        timeout = float(spec.pop("timeout"))
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: measure, write the result, leave at once
            os.close(r)
            try:
                data = json.dumps(_measure_spec(spec))
            except BaseException as e:  # noqa: BLE001 - reported to the parent as one line
                data = json.dumps({"failed": f"{type(e).__name__}: {e}"})
            view = memoryview(data.encode())
            while view:
                view = view[os.write(w, view):]
            os._exit(0)
        os.close(w)
        chunks: list[bytes] = []
        deadline = time.monotonic() + timeout
        stopped = False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                stopped = True
                break
            ready, _, _ = select.select([r], [], [], left)
            if ready:
                chunk = os.read(r, 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
        _, status = os.waitpid(pid, 0)
        os.close(r)
        text = b"".join(chunks).decode()
        if stopped:
            text = json.dumps({"timeout": True})
        elif not text:
            text = json.dumps({"failed": f"the measuring process ended with status {status}"})
        print(text, flush=True)


def _parse_boards(text: str) -> list[tuple[int, int]]:
    boards = []
    for item in text.split(","):
        item = item.strip().lower()
        if not item:
            continue
        try:
            size, rows = (int(x) for x in item.split("x"))
        except ValueError:
            raise ValueError(f"--boards: {item!r} is not SIZExROWS (e.g. 5x1)") from None
        try:
            CheckersRules(size=size, rows=rows)
        except ValueError as e:
            raise ValueError(f"--boards: {item}: {e}") from None
        boards.append((size, rows))
    return boards


def _parse_options(text: str) -> list[tuple[bool, bool]]:
    out = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        if set(item) - set("fm-"):
            raise ValueError(f"--options: {item!r} must be made of f (forced capture), m (multi-jump) or -")
        out.append(("f" in item, "m" in item))
    return out


def bench(argv: list[str]) -> int:
    """``mdpviz bench checkers``: reachable states, seconds and peak memory to enumerate and solve
    each variant (one fresh subprocess per variant), and the largest one within the limits."""
    p = ArgumentParser(prog="mdpviz bench checkers", description=bench.__doc__)
    p.add_argument("--boards", default=BENCH_BOARDS, help=f"SIZExROWS list (default {BENCH_BOARDS})")
    p.add_argument("--options", default=BENCH_OPTIONS,
                   help=f"rule options: f forced capture, m multi-jump, - neither (default {BENCH_OPTIONS})")
    p.add_argument("--ply-limits", default=str(CheckersRules().ply_limit),
                   help="comma-separated ply limits, 0 = none (default %(default)s)")
    add_option(p, "--discount", *DISCOUNT_ALIASES, type=unit_interval, default=DEFAULT_DISCOUNT,
               help="discount (default %(default)s)")
    p.add_argument("--tol", type=positive_float, default=DEFAULT_TOL, help="value-iteration tolerance (default %(default)s)")
    p.add_argument("--max-states", type=positive_int, default=DEFAULT_MAX_STATES, help="state budget (default %(default)s)")
    p.add_argument("--max-transitions", type=positive_int, default=DEFAULT_MAX_TRANSITIONS,
                   help="transition budget (default %(default)s)")
    p.add_argument("--memory-cap-gib", type=positive_float, default=8.0,
                   help="address-space cap of each subprocess, a safety net (default %(default)s)")
    p.add_argument("--timeout", type=positive_float, default=300.0, help="seconds before a subprocess is stopped (default %(default)s)")
    p.add_argument("--jobs", type=positive_int, default=min(2, os.cpu_count() or 1),
                   help="variants measured at a time, each in its own process (default %(default)s: the cores, at "
                        "most 2; 1 for timings undisturbed by a neighbour)")
    args = p.parse_args(argv)
    boards = _parse_boards(args.boards)
    options = _parse_options(args.options)
    try:
        limits = [_ply_limit(x) for x in args.ply_limits.split(",") if x.strip()]
    except argparse.ArgumentTypeError as e:
        raise ValueError(str(e).replace("--ply-limit", "--ply-limits")) from None
    env = dict(os.environ)  # the subprocesses import this very package
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    jobs = max(1, int(args.jobs))
    workers = [subprocess.Popen([sys.executable, "-c", "from mdpviz.commands.checkers import _worker; _worker()"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env) for _ in range(jobs)]
    try:
        for w in workers:
            if w.stdout.readline().strip() != "ready":
                raise RuntimeError(f"the benchmark's worker process failed to start (exit {w.wait()})")
        return _bench_variants(args, boards, options, limits, workers)
    finally:
        for w in workers:
            w.stdin.close()
        for w in workers:
            w.wait()


def _bench_variants(args: argparse.Namespace, boards: list, options: list, limits: list,
                    workers: list[subprocess.Popen]) -> int:
    import queue
    from concurrent.futures import ThreadPoolExecutor

    print(f"checkers: enumerate + compile + value iteration (discount {args.discount:g}, tol {args.tol:g}), one process "
          f"per variant (forked from a worker that loaded the numba kernels once), {len(workers)} at a time; limits "
          f"{TIME_LIMIT_S:g} s and {MEMORY_LIMIT_MIB / 1024:g} GiB; budgets "
          f"{args.max_states:,} states, {args.max_transitions:,} transitions", flush=True)
    print(f"{'size':>4} {'rows':>4} {'forced':>6} {'multi':>5} {'plies':>5} {'states':>10} {'positions':>10} "
          f"{'transitions':>11} {'enum s':>7} {'solve s':>7} {'sweeps':>6} {'peak MiB':>8}  verdict", flush=True)
    free: queue.Queue = queue.Queue()
    for w in workers:
        free.put(w)

    def measure(spec: str) -> dict:
        w = free.get()
        try:
            w.stdin.write(spec + "\n")
            w.stdin.flush()
            reply = w.stdout.readline()
        finally:
            free.put(w)
        try:
            return json.loads(reply)
        except json.JSONDecodeError:
            return {"failed": "the benchmark's worker process ended"}

    items = []
    with ThreadPoolExecutor(len(workers)) as pool:
        for size, rows in boards:
            for forced, multi in options:
                for limit in limits:
                    rules = CheckersRules(size=size, rows=rows, forced_capture=forced, multi_jump=multi,
                                          ply_limit=limit)  # (each part checked by the parsers above)
                    spec = json.dumps({"rules": asdict(rules), "discount": args.discount, "tol": args.tol,
                                       "max_states": args.max_states, "max_transitions": args.max_transitions,
                                       "address_space_gib": args.memory_cap_gib, "timeout": args.timeout})
                    head = f"{size:>4} {rows:>4} {'yes' if forced else 'no':>6} {'yes' if multi else 'no':>5} " \
                           f"{'none' if limit is None else limit:>5}"
                    items.append((head, pool.submit(measure, spec), (forced, multi, limit, size, rows)))
        best: dict[tuple, tuple[int, str]] = {}
        for head, fut, what in items:  # in the order of the table, each as soon as it and those before are done
            if fut is None:
                print(head, flush=True)
                continue
            m = fut.result()
            if m.get("timeout"):
                print(f"{head} stopped after {args.timeout:g} s", flush=True)
                continue
            if "failed" in m:
                print(f"{head} failed: {m['failed']}", flush=True)
                continue
            if "refused" in m:
                print(f"{head} refused after {m.get('seconds', float('nan')):.1f} s, peak "
                      f"{m['peak_mib']:.0f} MiB: {m['refused']}", flush=True)
                continue
            ok = m["seconds"] < TIME_LIMIT_S and m["peak_mib"] < MEMORY_LIMIT_MIB
            print(f"{head} {m['states']:>10,} {m['positions']:>10,} {m['transitions']:>11,} {m['enumerate']:>7.2f} "
                  f"{m['solve']:>7.2f} {m['sweeps']:>6} {m['peak_mib']:>8.0f}  "
                  f"{'within limits' if ok else 'over the limits'}", flush=True)
            forced, multi, limit, size, rows = what
            if ok:
                key = (forced, multi, limit)
                if key not in best or m["states"] > best[key][0]:
                    best[key] = (m["states"], f"{size}x{size}, {rows} row{'s' if rows > 1 else ''}")
    for (forced, multi, limit), (states, board) in best.items():
        print(f"largest within the limits with forced capture {'on' if forced else 'off'}, multi-jump "
              f"{'on' if multi else 'off'}, {'no ply limit' if limit is None else f'{limit} plies'}: "
              f"{board} ({states:,} states)", flush=True)
    print("(wall-clock seconds on a shared machine: other jobs may slow a run)", flush=True)
    return 0
