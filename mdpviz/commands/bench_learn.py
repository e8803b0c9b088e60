"""``mdpviz bench learn``: the learners' speed as the user meets it (issue 25; issue 35, item 22).

What is timed is ``mdpviz learn ... --json`` itself, in a process of its own, with its default curve (a
snapshot every episodes / 100 episodes, the learned greedy policy's exact value at up to 10 of them): its
``seconds`` (the episode loop only), ``compile_seconds`` and ``seconds_with_curve`` (loop, snapshots and
evaluations). Two models: a 10,000-state course file written by :func:`course_mdp` (seeded: the same file
on every machine) and Gymnasium's FrozenLake 8x8. Each is set beside two references timed in the same
run on the same model, with the same settings (Q-learning, alpha 0.1, epsilon 0.1, the same cap on an
episode's steps):

* :func:`plain_q_learning`, a plain Python loop over lists drawing with ``random.random()`` (what a
  student writes; the issue's "plain-Python list-based loop");
* the project's own Python reference loop (``learn --python``: the compiled loop's very source run by
  the interpreter, drawing every number from a numpy Generator, 2-3 times slower than the plain one).

The ratio is what counts on a shared machine: ``uptime``'s load and the CPU are printed before and after.
The rows of issue 25 (the 4x3 grid) follow. Nothing here is a test: the tests never depend on timing.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mdpviz.commands import ArgumentParser, positive_int

COURSE_STATES = 10_000
"""States of the bench's course file."""

TARGET_RATE = 5e6
"""Updates per second ``mdpviz learn`` should reach with its default curve (docs/performance.md)."""
TARGET_PLAIN_RATIO = 20.0
"""...and its ratio to :func:`plain_q_learning` on the same model."""
TARGET_CURVE_SHARE = 0.10
"""Most the curve (snapshots and exact evaluations) may add to the learning time, as a share of it."""


def q_learning() -> str:
    """The id of Q-learning, the learner timed here (the registry's learner of the loop's Q-learning code)."""
    from mdpviz.solvers import learning_loop, registry

    return registry.ids_where("learner", code=learning_loop.Q_LEARNING)[0]


def course_mdp(n_states: int = COURSE_STATES, *, n_actions: int = 4, seed: int = 0, terminal_share: float = 0.02,
               discount: float = 0.95):
    """A seeded random episodic course-file MDP: ``terminal_share`` of the states terminal, each live state
    with ``n_actions`` actions of 2-4 random successors (random probabilities) and rewards uniform in
    [-1, 1] (6 decimals). The same seed gives the same model on every machine."""
    import numpy as np

    from mdpviz.core.mdp import TabularMDP

    rng = np.random.default_rng(seed)
    term = rng.choice(n_states, max(1, int(n_states * terminal_share)), replace=False)
    live = np.setdiff1d(np.arange(n_states), term)
    n_rows = live.size * n_actions
    k = rng.integers(2, 5, size=n_rows)
    row = np.repeat(np.arange(n_rows), k)
    w = rng.random(row.size) + 0.05
    prob = w / np.bincount(row, weights=w, minlength=n_rows)[row]
    dst = rng.integers(0, n_states, size=row.size)
    reward = np.round(rng.random(row.size) * 2 - 1, 6)
    return TabularMDP.from_transitions(n_states, n_actions, live[row // n_actions], row % n_actions, dst, prob,
                                       reward, discount=discount, terminal=term, mdptype="episodic")


def write_course_file(folder: str | os.PathLike, **kwargs) -> Path:
    """:func:`course_mdp` written in the course format to ``folder``; its path."""
    from mdpviz.core.cs747 import save_cs747

    path = Path(folder) / f"bench-course-{kwargs.get('n_states', COURSE_STATES)}.txt"
    save_cs747(course_mdp(**kwargs), path)
    return path


def plain_q_learning(mdp, *, start: int, episodes: int, alpha: float = 0.1, epsilon: float = 0.1,
                     max_steps: int = 1000, seed: int = 0) -> int:
    """Q-learning (Sutton and Barto eq. 6.8) as plain Python: lists, ``random.random()``, epsilon-greedy with
    exact ties broken at random, the same update and the same cap as the learners. The number of updates."""
    from mdpviz.solvers.learning import model_arrays

    arr = model_arrays(mdp)
    state_ptr, row_ptr, dst = arr["state_ptr"].tolist(), arr["row_ptr"].tolist(), arr["dst"].tolist()
    cum, reward, terminal = arr["cum"].tolist(), arr["reward"].tolist(), arr["terminal"].tolist()
    gamma = float(mdp.discount)
    q = [0.0] * (len(row_ptr) - 1)
    rnd = random.Random(seed).random
    updates = 0

    def choose(s: int) -> int:
        r0, r1 = state_ptr[s], state_ptr[s + 1]
        if rnd() < epsilon:
            return r0 + int(rnd() * (r1 - r0))
        best = max(q[r0:r1])
        ties = [r for r in range(r0, r1) if q[r] == best]
        return ties[0] if len(ties) == 1 else ties[int(rnd() * len(ties))]

    for _ in range(episodes):
        row = choose(start)
        for _t in range(max_steps):
            u = rnd()
            j, last = row_ptr[row], row_ptr[row + 1] - 1
            while j < last and u >= cum[j]:
                j += 1
            s2, r = dst[j], reward[j]
            updates += 1
            if terminal[s2]:
                q[row] += alpha * (r - q[row])
                break
            row2 = choose(s2)
            q[row] += alpha * (r + gamma * max(q[state_ptr[s2]:state_ptr[s2 + 1]]) - q[row])
            row = row2
    return updates


def _rate(run, seconds: float) -> tuple[float, int]:
    """Updates per second of ``run(episodes) -> updates``, doubling the episodes until a run lasts ``seconds``."""
    episodes = 10
    while True:
        t = time.perf_counter()
        n = run(episodes)
        dt = time.perf_counter() - t
        if dt >= seconds or episodes >= 10_000_000:
            return n / dt, n
        episodes *= 2 if dt > seconds / 8 else 4


def numpy_loop_rate(mdp, *, start: int, seconds: float) -> tuple[float, int]:
    """Updates per second of the learners' Python reference loop (``learn --python``: numpy draws)."""
    from mdpviz.solvers.learning import LearningSettings, exact_answer, learner

    exact = exact_answer(mdp, LearningSettings(method=q_learning()))

    def run(episodes: int) -> int:
        gen = learner(mdp, q_learning(), episodes=episodes, batch=episodes, start=start, exact=exact, compiled=False,
                      eval_every=0)
        last = next(gen)
        gen.close()
        return last.updates

    return _rate(run, seconds)


def learn_json(argv: list[str]) -> dict:
    """``mdpviz learn ARGV --json`` in a process of its own: its JSON, plus ``stderr`` (ValueError if it fails)."""
    cmd = [sys.executable, "-m", "mdpviz.cli", "learn", *argv, "--json"]
    cp = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if cp.returncode != 0:
        raise ValueError(f"{' '.join(argv)} failed: {(cp.stderr.strip().splitlines() or ['?'])[-1]}")
    out = json.loads(cp.stdout)
    out["stderr"] = cp.stderr
    return out


def model_of(argv: list[str]):
    """The model and start state ``mdpviz learn ARGV`` learns (the same options, read the same way)."""
    from mdpviz.cli import build_parser
    from mdpviz.commands.game_args import game_from_args

    args = build_parser().parse_args(["learn", *argv, "--method", q_learning(), "--episodes", "1"])
    game = game_from_args(args)
    return game.mdp, game.start_state()


def rows_learn_command(tab, *, course_episodes: int, lake_episodes: int, reference_seconds: float = 1.0,
                       repeat: int = 2, folder: str | None = None) -> list[dict]:
    """The rows of issue 35, item 22: ``mdpviz learn`` with its default curve against the plain Python loop
    and the numpy-drawing one, on the 10,000-state course file and FrozenLake 8x8; what each run printed.
    Each is the best of ``repeat`` runs (on a shared machine the slowest run measures the other jobs)."""
    with tempfile.TemporaryDirectory(prefix="mdpviz-bench-learn-") as tmp:
        path = write_course_file(folder or tmp)
        cases = ((f"{COURSE_STATES:,}-state course file (seeded)", ["--game", "file", "--mdp", str(path)],
                  course_episodes),
                 ("FrozenLake 8x8", ["--game", "gym", "--env", "FrozenLake-v1", "--kw", "map_name=8x8"], lake_episodes))
        runs = []
        for name, model_argv, episodes in cases:
            mdp, start = model_of(model_argv)
            outs = [learn_json([*model_argv, "--method", q_learning(), "--episodes", str(episodes), "--seed", "0"])
                    for _ in range(repeat)]
            out = max(outs, key=lambda o: o["updates"] / o["seconds"])
            plain, n_plain = max(_rate(lambda e: plain_q_learning(mdp, start=start, episodes=e), reference_seconds)
                                 for _ in range(repeat))
            numpy_rate, n_numpy = max(numpy_loop_rate(mdp, start=start, seconds=reference_seconds)
                                      for _ in range(repeat))
            rate = out["updates"] / out["seconds"]
            curve = (out["seconds_with_curve"] - out["seconds"]) / out["seconds"]
            what = (f"`mdpviz learn --method {q_learning()} --episodes {episodes:,}`, {name}, default curve (best of "
                    f"{repeat})")
            tab.add(f"{what}: updates/s ({out['updates']:,} updates in {out['seconds']:.2f} s)",
                    f"{rate / 1e6:.2f} M updates/s",
                    f"plain Python loop (lists, random.random()) {plain / 1e3:.0f} k updates/s ({n_plain:,} updates)",
                    rate / plain, f">= {TARGET_PLAIN_RATIO:g}x and >= {TARGET_RATE / 1e6:g} M/s",
                    rate / plain >= TARGET_PLAIN_RATIO and rate >= TARGET_RATE)
            tab.add(f"same run against `learn --python` (the loop's source run by Python, numpy draws)",
                    f"{rate / 1e6:.2f} M updates/s", f"{numpy_rate / 1e3:.0f} k updates/s ({n_numpy:,} updates)",
                    rate / numpy_rate, "(information)", None)
            evaluated = sum("policy_value" in c for c in out["curve"])
            tab.add(f"same run: the curve ({len(out['curve'])} snapshots, the greedy policy's exact value at "
                    f"{evaluated} of them)",
                    f"{out['seconds_with_curve'] - out['seconds']:.3f} s",
                    f"learning alone (`seconds`) {out['seconds']:.3f} s", curve,
                    f"<= {TARGET_CURVE_SHARE:g}", curve <= TARGET_CURVE_SHARE)
            print(f"  (compile_seconds {out['compile_seconds']:.2f} s: numba's cache loaded or compiled, not in "
                  f"`seconds`)", flush=True)
            runs.append({"model": name, "episodes": episodes, "updates": out["updates"], "seconds": out["seconds"],
                         "seconds_with_curve": out["seconds_with_curve"], "compile_seconds": out["compile_seconds"],
                         "plain_rate": plain, "numpy_rate": numpy_rate})
        return runs


def bench(argv: list[str]) -> int:
    """``mdpviz learn`` as the user runs it (default curve) on a 10,000-state course file and FrozenLake 8x8,
    against a plain Python loop and the numpy-drawing Python loop timed in the same run; then the compiled
    loop against its Python reference on the 4x3 grid, and 10,000 episodes of it headless."""
    from mdpviz.commands.bench_table import Table, cpu_model, load_text, rows_learning

    p = ArgumentParser(prog="mdpviz bench learn", description=bench.__doc__)
    p.add_argument("--updates", type=positive_int, default=2_000_000,
                   help="updates of the compiled loop per measurement of the 4x3 grid rows (default 2,000,000)")
    p.add_argument("--course-episodes", type=positive_int, default=100_000,
                   help="episodes of `mdpviz learn` on the course file (default 100,000)")
    p.add_argument("--lake-episodes", type=positive_int, default=300_000,
                   help="episodes of `mdpviz learn` on FrozenLake 8x8 (default 300,000)")
    p.add_argument("--reference-seconds", type=float, default=1.0,
                   help="seconds each Python reference runs for (default 1)")
    p.add_argument("--repeat", type=positive_int, default=2,
                   help="runs of each measurement of the two models, the best taken (default 2)")
    p.add_argument("--skip-grid", action="store_true", help="leave out the 4x3 grid rows of issue 25")
    args = p.parse_args(argv)
    if not 0.05 <= args.reference_seconds <= 600:
        p.error(f"--reference-seconds: must be in [0.05, 600], got {args.reference_seconds:g}")
    print(f"uptime: {load_text()}", flush=True)
    print(f"cpu: {cpu_model()}", flush=True)
    tab = Table()
    rows_learn_command(tab, course_episodes=args.course_episodes, lake_episodes=args.lake_episodes,
                       reference_seconds=args.reference_seconds, repeat=args.repeat)
    if not args.skip_grid:
        rows_learning(tab, updates=args.updates)
    tab.print()
    print(f"uptime: {load_text()}")
    return 0


__all__ = ["COURSE_STATES", "bench", "course_mdp", "learn_json", "model_of", "numpy_loop_rate", "plain_q_learning", "q_learning",
           "rows_learn_command", "write_course_file"]
