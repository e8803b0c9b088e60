"""``mdpviz bench bandit``: the 10-armed testbed as the user runs it (``mdpviz bandit --method eps-greedy
--epsilon 0.1 --runs 2000 --steps 1000``, figure 2.2's size, the whole command in this process) against the
plainest fair reference timed in the same run: a plain Python loop over lists with ``random`` (one run at a
time, sample averages, ties broken at random), in pulls per second. Issue 39: 2,000 runs of 1,000 steps "take a
few seconds"."""
from __future__ import annotations

import contextlib
import io
import random
import time

TARGET_SECONDS = 5.0
"""Issue 39: figure 2.2's 2,000 runs of 1,000 steps in a few seconds."""

ARGS = ("bandit", "--arms", "10", "--method", "eps-greedy", "--epsilon", "0.1", "--runs", "2000", "--steps", "1000",
        "--seed", "0", "--json")
"""The command timed (its JSON output, so the printing of a table is not what is measured)."""


def plain_eps_greedy(runs: int, steps: int, *, arms: int = 10, epsilon: float = 0.1, seed: int = 0) -> int:
    """Epsilon-greedy with sample averages on Gaussian arms (q* ~ N(0, 1), rewards ~ N(q*, 1)), one run at a
    time over Python lists: the reference loop. Returns the pulls made."""
    rng = random.Random(seed)
    for _ in range(runs):
        q_star = [rng.gauss(0.0, 1.0) for _ in range(arms)]
        q = [0.0] * arms
        n = [0] * arms
        for _ in range(steps):
            if rng.random() < epsilon:
                a = rng.randrange(arms)
            else:
                top = max(q)
                best = [i for i in range(arms) if q[i] == top]
                a = best[0] if len(best) == 1 else rng.choice(best)
            r = rng.gauss(q_star[a], 1.0)
            n[a] += 1
            q[a] += (r - q[a]) / n[a]
    return runs * steps


def rows_bandit(tab, *, seconds: float = 1.0, repeat: int = 2) -> dict:
    """The row of issue 39: the command's wall time and pulls per second, the reference's pulls per second for
    at least ``seconds``, each the best of ``repeat``."""
    from mdpviz.cli import main

    pulls = 2000 * 1000
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            status = main(list(ARGS))
        best = min(best, time.perf_counter() - t)
        if status != 0:
            raise SystemExit(status)
    ref = 0.0
    for _ in range(repeat):
        runs, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            runs += plain_eps_greedy(10, 1000, seed=runs) // 1000
        ref = max(ref, runs * 1000 / (time.perf_counter() - t0))
    rate = pulls / best
    tab.add(f"mdpviz {' '.join(ARGS)} (whole command, best of {repeat}): {best:.2f} s",
            f"{rate / 1e6:.2f} M pulls/s", f"plain Python loop (lists, random) {ref / 1e3:.0f} k pulls/s",
            rate / ref, f"< {TARGET_SECONDS:g} s", best < TARGET_SECONDS)
    return {"seconds": best, "rate": rate, "reference_rate": ref}


def bench(argv: list[str]) -> int:
    """The 10-armed testbed of figure 2.2 (2,000 runs of 1,000 steps) as ``mdpviz bandit`` runs it, against a
    plain Python loop of the same method, in the same run."""
    from mdpviz.commands.bench_table import timed_rows_bench

    return timed_rows_bench("mdpviz bench bandit", bench.__doc__, rows_bandit, argv)


__all__ = ["ARGS", "TARGET_SECONDS", "bench", "plain_eps_greedy", "rows_bandit"]
