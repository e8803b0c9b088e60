"""``mdpviz bench [NAME] [OPTIONS]``: benchmarks that print measured numbers (never timed tests).

``BENCHES`` maps a name to a function ``(argv: list[str]) -> int`` (as "module:function") that parses its own options
(``mdpviz bench NAME --help``) and prints as it goes. ``table`` (the default) prints every row of
the speed table of issue 15, each as a ratio to a reference measured in the same run plus the
absolute figure, after ``uptime``; ``core`` times the solvers on random sparse MDPs against a bare
sparse matrix-vector product and, when installed, pymdptoolbox; ``gui`` measures the window.
"""
from __future__ import annotations

import argparse
import gc
import importlib
import time
from typing import TYPE_CHECKING, Callable

from mdpviz.commands import ArgumentParser, positive_int, seed, state_counts, unit_interval

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np


def random_mdp_arrays(
    n_states: int, *, n_actions: int = 4, min_succ: int = 3, max_succ: int = 5, seed: int = 0
) -> dict[str, np.ndarray]:
    """Flat transition arrays of a random sparse MDP: each (s, a) has 3..5 random successors with
    random probabilities, and a reward r(s, a) uniform in [0, 1) (shared by its transitions)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n_rows = n_states * n_actions
    k = rng.integers(min_succ, max_succ + 1, size=n_rows)
    row = np.repeat(np.arange(n_rows), k)
    w = rng.random(row.size) + 0.05
    tot = np.bincount(row, weights=w, minlength=n_rows)
    prob = w / tot[row]
    dst = rng.integers(0, n_states, size=row.size)
    r_sa = rng.random(n_rows)
    return {
        "src": row // n_actions,
        "action": row % n_actions,
        "dst": dst,
        "prob": prob,
        "reward": r_sa[row],
        "r_sa": r_sa.reshape(n_states, n_actions),
    }


def _best_of(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _mdptoolbox_problem(arr: dict[str, np.ndarray], n: int, a: int):
    import scipy.sparse as sp

    P = []
    for act in range(a):
        m = arr["action"] == act
        P.append(sp.csr_matrix((arr["prob"][m], (arr["src"][m], arr["dst"][m])), shape=(n, n)))
    return P, arr["r_sa"]


def _open_discount(text: str) -> float:
    """``--discount`` of ``bench core``: the stopping rule divides by gamma and needs gamma < 1."""
    v = unit_interval(text)
    if not 0 < v < 1:
        raise argparse.ArgumentTypeError(f"must be strictly between 0 and 1, got {text!r}")
    return v


def bench_core(argv: list[str]) -> int:
    """Seconds per sweep vs the bare mat-vec, and whole solves vs pymdptoolbox."""
    import numpy as np

    from mdpviz.core.mdp import TabularMDP
    from mdpviz.solvers import run
    from mdpviz.solvers.policy_iteration import policy_iteration
    from mdpviz.solvers.value_iteration import value_iteration

    p = ArgumentParser(prog="mdpviz bench core", description=bench_core.__doc__)
    p.add_argument("--sizes", type=state_counts, default="3000,10000,100000,1000000",
                   help="comma-separated state counts")
    p.add_argument("--discount", type=_open_discount, default=0.95, help="0 < gamma < 1 (default 0.95)")
    p.add_argument("--toolbox-max", type=positive_int, default=3_000,
                   help="largest state count given to pymdptoolbox (it validates densely)")
    p.add_argument("--seed", type=seed, default=0, help="seed of the random models (default 0)")
    args = p.parse_args(argv)
    sizes = args.sizes
    gamma = args.discount
    eps = 1e-6
    tol = eps * (1 - gamma) / gamma  # sup-norm stopping rule that guarantees ||V - V*|| < 1e-6
    try:
        import mdptoolbox.mdp as mtb  # type: ignore
    except ImportError:
        mtb = None
    print(f"random sparse MDPs: 4 actions, 3-5 successors, discount {gamma}; solve = build + "
          f"validate + value iteration to within {eps:g} of V* (stop when max|dV| < {tol:.3g})")
    if mtb is None:
        print("pymdptoolbox not installed (pip install 'mdpviz[bench]'): toolbox columns skipped")
    hdr = f"{'states':>9} {'transitions':>12} {'matvec s':>10} {'VI sweep s':>11} {'ratio':>6} " \
          f"{'VI solve s':>11} {'sweeps':>6} {'PI solve s':>11} {'PI rounds':>9}"
    print(hdr)
    rows_out = []
    for n in sizes:
        arr = random_mdp_arrays(n, seed=args.seed)
        gc.collect()
        t0 = time.perf_counter()
        mdp = TabularMDP.from_transitions(
            n, 4, arr["src"], arr["action"], arr["dst"], arr["prob"], arr["reward"], discount=gamma
        )
        P = mdp.matrix
        _ = mdp.row_reward
        build = time.perf_counter() - t0
        v = np.random.default_rng(1).random(n)
        reps = 20 if n <= 100_000 else 5
        t_mv = _best_of(lambda: P @ v, reps)
        sweeps = value_iteration(mdp, tol=0.0, max_sweeps=reps + 1)
        next(sweeps)  # warm-up
        t_sw = float("inf")
        for _ in range(reps):
            t = time.perf_counter()
            next(sweeps)
            t_sw = min(t_sw, time.perf_counter() - t)
        sweeps.close()
        sol = run(value_iteration(mdp, tol=tol))
        vi_total = build + sol.elapsed
        pi = run(policy_iteration(mdp))
        pi_total = build + pi.elapsed
        gap = float(np.abs(sol.values - pi.values).max())
        print(f"{n:>9} {mdp.n_transitions:>12} {t_mv:>10.2e} {t_sw:>11.2e} {t_sw / t_mv:>6.2f} "
              f"{vi_total:>11.3f} {sol.sweeps:>6} {pi_total:>11.3f} {pi.sweeps:>9}   |V_vi - V_pi| = {gap:.1e}",
              flush=True)
        rec = {"states": n, "transitions": mdp.n_transitions, "matvec": t_mv, "sweep": t_sw,
               "vi_solve": vi_total, "pi_solve": pi_total, "sweeps": sol.sweeps}
        if mtb is not None and n <= args.toolbox_max:
            t0 = time.perf_counter()
            Pm, R = _mdptoolbox_problem(arr, n, 4)
            vi_t = mtb.ValueIteration(Pm, R, gamma, epsilon=eps, max_iter=100_000)
            vi_t.run()
            tb_vi = time.perf_counter() - t0
            t0 = time.perf_counter()
            pi_t = mtb.PolicyIteration(Pm, R, gamma, eval_type=0, max_iter=10_000)
            pi_t.run()
            tb_pi = time.perf_counter() - t0
            gap_vi = float(np.abs(np.asarray(vi_t.V) - pi.values).max())
            gap_pi = float(np.abs(np.asarray(pi_t.V) - pi.values).max())
            same = int(np.sum(np.asarray(vi_t.policy) == sol.policy))
            print(f"{'':>9} pymdptoolbox ValueIteration {tb_vi:.3f} s = {tb_vi / vi_total:.1f}x mdpviz VI "
                  f"({vi_t.iter} sweeps: it stops on the span of the change, so its values are off by "
                  f"{gap_vi:.2g} while {same}/{n} greedy actions agree)", flush=True)
            print(f"{'':>9} pymdptoolbox PolicyIteration {tb_pi:.3f} s = {tb_pi / pi_total:.1f}x mdpviz PI "
                  f"(max |V_toolbox - V_mdpviz| = {gap_pi:.1e})", flush=True)
            rec.update(toolbox_vi=tb_vi, toolbox_pi=tb_pi)
        elif mtb is not None:
            dense_gb = 4 * n * n * 8 / 2**30
            print(f"{'':>9} pymdptoolbox skipped: its dense validation would need about {dense_gb:,.0f} GiB", flush=True)
        rows_out.append(rec)
        del mdp, arr
    return 0


BENCHES: dict[str, str] = {
    "table": "mdpviz.commands.bench_table:bench_table",
    "gui": "mdpviz.commands.bench_stalls:bench_gui",
    "core": "mdpviz.commands.bench:bench_core",
    "snakes": "mdpviz.commands.snakes:bench",
    "risk4": "mdpviz.commands.ttt:bench_risk4",
    "ttt3d": "mdpviz.commands.ttt3d:bench",
    "checkers": "mdpviz.commands.checkers:bench",
    "learn": "mdpviz.commands.bench_learn:bench",
    "approx": "mdpviz.commands.bench_approx:bench",
    "pg": "mdpviz.commands.bench_pg:bench",
    "bandit": "mdpviz.commands.bench_bandit:bench",
}
"""Benchmark name -> "module:function"; the function takes argv and returns the exit status.
Modules are imported only when their benchmark runs."""


def run_bench(name: str, argv: list[str]) -> int:
    """Import and run the benchmark ``name`` with its own options."""
    module, func = BENCHES[name].split(":")
    return int(getattr(importlib.import_module(module), func)(argv) or 0)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bench", help="run a benchmark and print measured numbers",
        description="Run a benchmark and print the numbers it measures. Names: " + ", ".join(BENCHES)
        + ". Each takes its own options: mdpviz bench NAME --help.",
    )
    p.add_argument("name", nargs="?", default="table", choices=sorted(BENCHES), help="benchmark (default: table)")
    p.add_argument("options", nargs=argparse.REMAINDER, help="options of that benchmark")
    p.set_defaults(func=lambda a: run_bench(a.name, list(a.options)), stream=True)
