"""``mdpviz bench`` (``table``) and ``mdpviz bench gui``: the speed table of issue 15, measured now.

Every row prints the absolute figure, a reference measured in the same run and their ratio, so a
busy machine (other jobs, a laptop on battery) can be told from a slower program: a ratio moves
little when the whole machine slows down, an absolute figure moves a lot. ``uptime`` is printed
first for the same reason. The course file rows use ``--mdp FILE`` or the copy packaged under
``mdpviz/examples/cs747/mdp/``; never a path outside the package.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from mdpviz.commands import ArgumentParser, positive_float, positive_int, state_counts

COURSE_FILE = "episodic-mdp-10-5.txt"
"""The 10-state course file of the table (discount near 1: tens of thousands of sweeps)."""


# ------------------------------------------------------------------------------------ helpers
def load_text() -> str:
    """``uptime`` (or /proc/loadavg) as one line."""
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        try:
            return "load average: " + Path("/proc/loadavg").read_text().strip()
        except OSError:
            return "load unknown"


def packaged_course_file(name: str = COURSE_FILE) -> Path:
    """Where the package keeps its copy of a course file (it may be missing)."""
    return Path(__file__).resolve().parents[1] / "examples" / "cs747" / "mdp" / name


def course_file(given: str | None) -> Path | None:
    """``--mdp`` if given (must exist), else the packaged copy, else None (with a message)."""
    if given:
        p = Path(given)
        if not p.is_file():
            raise ValueError(f"--mdp {given}: no such file")
        return p
    p = packaged_course_file()
    if p.is_file():
        return p
    print(f"note: the course file {COURSE_FILE} is not packaged at {p}; its rows are skipped "
          f"(pass --mdp PATH/{COURSE_FILE} to measure them)", flush=True)
    return None


def best_of(fn: Callable[[], object], repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _mdpviz_cmd() -> list[str]:
    exe = Path(sys.executable).parent / "mdpviz"
    if exe.is_file():
        return [str(exe)]
    found = shutil.which("mdpviz")
    return [found] if found else [sys.executable, "-m", "mdpviz.cli"]


def process_seconds(cmd: list[str], repeat: int = 3, env: dict | None = None) -> float:
    """Best wall time of a whole process (start to exit), in seconds; inf if it fails."""
    best = math.inf
    for _ in range(repeat):
        t = time.perf_counter()
        cp = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
        dt = time.perf_counter() - t
        if cp.returncode != 0:
            print(f"  ({' '.join(cmd)} failed: {cp.stderr.strip().splitlines()[-1:] or cp.returncode})", flush=True)
            return math.inf
        best = min(best, dt)
    return best


def calibration_seconds() -> float:
    """A fixed CPU workload (numpy sort of 2^21 floats), best of 5: the unit of the rows whose
    reference is "this machine now" (whole solves, enumeration, process times)."""
    import numpy as np

    x = np.random.default_rng(0).random(1 << 21)
    return best_of(lambda: np.sort(x), 5)


class Table:
    """Collects and prints rows: what, measured, reference, ratio, target, met."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str, str, str]] = []

    def add(self, what: str, measured: str, reference: str, ratio: float | None, target: str, met: bool | None) -> None:
        r = "-" if ratio is None or not math.isfinite(ratio) else f"{ratio:.2f}"
        m = "-" if met is None else ("yes" if met else "NO")
        self.rows.append((what, measured, reference, r, target, m))
        print(f"  {what}: {measured} | reference {reference} | ratio {r} | target {target} | met: {m}", flush=True)

    def print(self) -> None:
        heads = ("row", "measured", "reference (same run)", "ratio", "target", "met")
        if not self.rows:
            print("\nno rows: every group was skipped")
            return
        w = [max([len(h), *(len(r[i]) for r in self.rows)]) for i, h in enumerate(heads)]
        line = "  ".join(h.ljust(w[i]) for i, h in enumerate(heads))
        print("\n" + line)
        print("-" * len(line))
        for r in self.rows:
            print("  ".join(c.ljust(w[i]) for i, c in enumerate(r)))


def _fmt_s(s: float) -> str:
    if not math.isfinite(s):
        return "failed"
    if s < 1e-3:
        return f"{s * 1e6:.2f} us"
    if s < 1:
        return f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"


# ------------------------------------------------------------------------------------ rows
def dense_reference_sweep(mdp) -> float:
    """Seconds of one bare dense sweep ``max_a (R + gamma P V)`` in numpy (padded actions)."""
    import numpy as np

    n = mdp.n_states
    k = int(mdp.actions_per_state.max()) if mdp.n_rows else 1
    P = np.zeros((n * k, n))
    R = np.full(n * k, -np.inf)
    rows = mdp.row_state * k + (np.arange(mdp.n_rows) - mdp.state_ptr[mdp.row_state])
    P[rows] = mdp.matrix.toarray()
    R[rows] = mdp.row_reward
    dead = np.repeat(np.asarray(mdp.terminal), k)  # terminal states: value 0 (all their slots 0)
    P[dead] = 0.0
    R[dead] = 0.0
    gP = mdp.discount * P
    v = np.zeros(n)
    reps = 2000

    def loop() -> None:
        x = v
        for _ in range(reps):
            x = (R + gP @ x).reshape(n, k).max(axis=1)

    return best_of(loop, 5) / reps


def rows_course(tab: Table, path: Path) -> None:
    import numpy as np

    from mdpviz.core.cs747 import load_cs747
    from mdpviz.solvers import solve, solver
    from mdpviz.solvers import kernels

    mdp = load_cs747(path)
    kernels.warm_up()
    ref = dense_reference_sweep(mdp)
    vi = min((solve(mdp, "vi") for _ in range(3)), key=lambda s: s.elapsed)
    per_vi = vi.elapsed / vi.sweeps
    tab.add(f"VI sweep, {path.name} (solve: {vi.sweeps:,} sweeps in {_fmt_s(vi.elapsed)})", _fmt_s(per_vi),
            f"bare dense numpy max_a(R + g P V) {_fmt_s(ref)}", per_vi / ref, "<= 3x", per_vi / ref <= 3)
    gen = solver(mdp, "vi", tol=0.0, max_sweeps=10**9)
    next(gen)
    step = best_of(lambda: next(gen), 200)
    gen.close()
    tab.add("  same, Step path (one frozen snapshot per sweep)", _fmt_s(step), f"bare dense sweep {_fmt_s(ref)}",
            step / ref, "(information)", None)
    in_place = min((solve(mdp, "gs") for _ in range(3)), key=lambda s: s.elapsed)
    per_gs = in_place.elapsed / in_place.sweeps
    tab.add(f"in-place (GS) sweep, same file ({in_place.sweeps:,} sweeps in {_fmt_s(in_place.elapsed)}; no Python loop)",
            _fmt_s(per_gs), f"synchronous sweep {_fmt_s(per_vi)}", per_gs / per_vi, "<= 3x", per_gs / per_vi <= 3)
    gap = float(np.abs(in_place.values - solve(mdp, "pi").values).max())
    print(f"  (GS vs policy iteration: max |dV| = {gap:.1e})", flush=True)
    return None


def rows_processes(tab: Table, path: Path | None, cal_import: float, cal_start: float) -> None:
    cmd = _mdpviz_cmd()
    t = process_seconds(cmd + ["--help"])
    tab.add("`mdpviz --help`, whole process", _fmt_s(t), f"`python -c pass` {_fmt_s(cal_start)}",
            t / cal_start, "< 0.3 s", t < 0.3)
    if path is None:
        return
    t = process_seconds(cmd + ["plan", "--algorithm", "hpi", "--mdp", str(path)])
    tab.add(f"`mdpviz plan --algorithm hpi --mdp {path.name}`, whole process", _fmt_s(t),
            f"`python -c 'import numpy'` {_fmt_s(cal_import)}", t / cal_import, "< 0.5 s", t < 0.5)
    hpi = t
    t = process_seconds(cmd + ["plan", "--mdp", str(path)])
    tab.add(f"`mdpviz plan --mdp {path.name}` (default algorithm: pi), whole process", _fmt_s(t),
            f"`python -c 'import numpy'` {_fmt_s(cal_import)}", t / cal_import, "< 1 s", t < 1.0)
    rows_plan_vi(tab, cmd, path, hpi)


def rows_plan_vi(tab: Table, cmd: list[str], path: Path, hpi: float) -> None:
    """Value iteration on 10-state course files, whole process, against ``plan --algorithm hpi`` on
    the table's file in the same run (issue 24 item 19): a small model's sweeps start in the
    interpreter (mdpviz/solvers/python_sweeps.py), so it pays for numba only past a budget of work."""
    small = packaged_course_file("continuing-mdp-10-5.txt")
    if small.is_file():  # a few hundred sweeps: no numba at all
        for algorithm in ("gs", "vi"):  # in place, synchronous
            t = process_seconds(cmd + ["plan", "--algorithm", algorithm, "--mdp", str(small)])
            tab.add(f"`mdpviz plan --algorithm {algorithm} --mdp {small.name}`, whole process", _fmt_s(t),
                    f"`plan --algorithm hpi` {_fmt_s(hpi)}", t / hpi, "<= 1.5x", t / hpi <= 1.5)
    # discount 1: 20,114 in-place sweeps (within the interpreter's budget) and 57,808 synchronous
    # ones (past it: the interpreter's budget, then numba loaded, then the kernel)
    for algorithm in ("gs", "vi"):  # in place, synchronous
        t = process_seconds(cmd + ["plan", "--algorithm", algorithm, "--mdp", str(path)])
        tab.add(f"`mdpviz plan --algorithm {algorithm} --mdp {path.name}`, whole process", _fmt_s(t),
                f"`plan --algorithm hpi` {_fmt_s(hpi)}", t / hpi, "(information)", None)


def rows_gui(tab: Table, path: Path | None) -> None:
    argv = [sys.executable, "-m", "mdpviz.cli", "bench", "gui", "--json"]
    if path is not None:
        argv += ["--mdp", str(path)]
    cp = subprocess.run(argv, capture_output=True, text=True, timeout=900)
    try:
        m = json.loads(cp.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        err = cp.stderr.strip().splitlines()[-1:] or [f"exit status {cp.returncode}"]
        tab.add("window rows (bench gui)", "failed: " + err[0], "-", None, "-", None)
        return
    fp, bare = m["first_paint_s"], m["bare_qt_paint_s"]
    tab.add("`mdpviz` to first painted window (default game's board drawn; bytecode compiled as installed, "
            f"without: {_fmt_s(m['first_paint_no_pyc_s'])})", _fmt_s(fp), f"bare Qt window, same steps {_fmt_s(bare)}",
            fp / bare, "< 1.5 s", fp < 1.5)
    if "run_s" in m:
        tab.add(f"Run in the window, {Path(m['file']).name} ({m['method']}, {m['sweeps']:,} sweeps, "
                f"{m['snapshots']} snapshots)", _fmt_s(m["run_s"]), f"solve() of the same {_fmt_s(m['solve_s'])}",
                m["run_s"] / m["solve_s"], "< 2 s", m["run_s"] < 2.0)
        tab.add("  event loop while it runs: largest gap (95th percentile)",
                f"{m['max_gap_ms']:.0f} ms ({m['p95_gap_ms']:.0f} ms)", f"timer interval {m['interval_ms']} ms",
                m["max_gap_ms"] / m["interval_ms"], "never > 100 ms", m["max_gap_ms"] <= 100)


def rows_snakes(tab: Table, calls: int) -> None:
    import numpy as np

    from mdpviz.models.snakes import MARKOV_TOL, N_SQUARES, SnakesSettings, compile_snakes, markovDecision

    rng = np.random.default_rng(0)
    layouts = rng.integers(0, 5, size=(calls, N_SQUARES))
    layouts[:, 0] = 0
    layouts[:, -1] = 0
    circles = rng.random(calls) < 0.5
    markovDecision(layouts[0], bool(circles[0]))
    t_md = np.empty(calls)
    t_ref = np.empty(calls)
    for i in range(calls):
        t = time.perf_counter()
        markovDecision(layouts[i], bool(circles[i]))
        t_md[i] = time.perf_counter() - t
        mdp = compile_snakes(SnakesSettings(layout=tuple(int(x) for x in layouts[i]), circle=bool(circles[i])))
        P = mdp.matrix.toarray()
        R = mdp.row_reward
        n, k = mdp.n_states, int(mdp.actions_per_state.max())
        rows = mdp.row_state * k + (np.arange(mdp.n_rows) - mdp.state_ptr[mdp.row_state])
        Pd = np.zeros((n * k, n))
        Rd = np.full(n * k, np.inf)
        Pd[rows] = P
        Rd[rows] = R
        live = ~mdp.terminal
        t = time.perf_counter()
        v = np.zeros(n)
        while True:  # dense numpy value iteration to the same tolerance (costs in turns: min)
            new = np.where(live, (Rd + Pd @ v).reshape(n, k).min(axis=1), 0.0)
            d = np.abs(new - v).max()
            v = new
            if d < MARKOV_TOL:
                break
        t_ref[i] = time.perf_counter() - t
    med, ref = float(np.median(t_md)), float(np.median(t_ref))
    tab.add(f"markovDecision, {calls} random layouts (median)", _fmt_s(med),
            f"dense numpy VI to the same tolerance {_fmt_s(ref)}", med / ref, "<= 1 ms and <= 3x",
            med <= 1e-3 and med / ref <= 3)


ROUNDS = 5
"""Rounds of the large-sweep rows: each round's ratio is the best sweep over the best product of its
repetitions; the row prints the median round and the spread (a machine's load moves single rounds)."""


def rows_core(tab: Table, sizes: list[int]) -> None:
    import gc

    import numpy as np

    from mdpviz.commands.bench import random_mdp_arrays
    from mdpviz.core.mdp import TabularMDP
    from mdpviz.solvers.value_iteration import value_iteration

    for n in sizes:
        arr = random_mdp_arrays(n, seed=0)
        mdp = TabularMDP.from_transitions(n, 4, arr["src"], arr["action"], arr["dst"], arr["prob"], arr["reward"],
                                          discount=0.95)
        del arr
        gc.collect()
        P = mdp.matrix
        v = np.random.default_rng(1).random(n)
        reps = 20 if n <= 100_000 else 7
        rounds = ROUNDS
        gen = value_iteration(mdp, tol=0.0, max_sweeps=rounds * (2 * reps + 2) + 2)
        next(gen)
        # interleaved (one product, one sweep, ...), so both see the same machine; best of each per round,
        # in wall time (the row) and in this thread's CPU time (less moved by other processes); the row
        # is the median round's ratio, with the spread of the rounds beside it
        ratios, cpu_ratios, best = [], [], {"mv": math.inf, "sw": math.inf}
        for _ in range(rounds):
            wall = {"mv": math.inf, "sw": math.inf}
            cpu = dict(wall)
            for _ in range(reps):
                for key, fn in (("mv", lambda P=P: P @ v), ("sw", lambda: next(gen))):
                    t, c = time.perf_counter(), time.thread_time()
                    fn()
                    wall[key] = min(wall[key], time.perf_counter() - t)
                    cpu[key] = min(cpu[key], time.thread_time() - c)
            ratios.append(wall["sw"] / wall["mv"])
            cpu_ratios.append(cpu["sw"] / cpu["mv"])
            best = {k: min(best[k], wall[k]) for k in best}
        gen.close()
        ratio = float(np.median(ratios))
        tab.add(f"VI sweep (with its snapshot), random sparse MDP, {n:,} states, {mdp.n_transitions:,} transitions "
                f"[median of {rounds} rounds; rounds {min(ratios):.2f}-{max(ratios):.2f}; CPU time "
                f"{float(np.median(cpu_ratios)):.2f} ({min(cpu_ratios):.2f}-{max(cpu_ratios):.2f})]",
                _fmt_s(best["sw"]), f"bare scipy CSR P @ v {_fmt_s(best['mv'])}", ratio, "<= 1.2x", ratio <= 1.2)
        del mdp, P
        gc.collect()


def rows_risk4(tab: Table, cal: float) -> None:
    argv = [sys.executable, "-m", "mdpviz.cli", "bench", "risk4", "--presets", "classic", "--no-tracemalloc"]
    try:
        cp = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        tab.add("exact 4x4 risk tic-tac-toe (bench risk4, classic)", "did not finish in 600 s", "-", None,
                "<= 15 s, <= 1 GiB", False)
        return
    m = re.search(r"([\d.]+) s .*?process peak RSS so far ([\d.]+) GiB", cp.stdout)
    if not m:
        tab.add("exact 4x4 risk tic-tac-toe", "failed: " + (cp.stderr.strip().splitlines()[-1:] or ["?"])[0], "-",
                None, "<= 15 s, <= 1 GiB", False)
        return
    s, gib = float(m.group(1)), float(m.group(2))
    tab.add("exact 4x4 risk tic-tac-toe (bench risk4, classic): time, peak RSS", f"{s:.2f} s, {gib:.2f} GiB",
            f"calibration (numpy sort of 2^21 floats) {_fmt_s(cal)}", s / cal, "<= 15 s, <= 1 GiB",
            s <= 15 and gib <= 1.0)


def rows_checkers(tab: Table, cal: float, timeout: float) -> None:
    # Each compile in a fresh process, as the window's child process and the CLI meet it: the time
    # includes importing numba and loading the kernels from numba's cache (about 1 s of it). The
    # cache is filled first (on a fresh install numba compiles the kernels there, once: 14-22 s).
    cp = subprocess.run([sys.executable, "-c", "from mdpviz.models import checkers; print(checkers.warm_up())"],
                        capture_output=True, text=True, timeout=600)
    try:
        print(f"checkers kernels ready in {float(cp.stdout.strip().splitlines()[-1]):.2f} s, fresh process "
              "(first call: compile once, then loaded from numba's cache)", flush=True)
    except (IndexError, ValueError):
        print(f"checkers kernels: warm-up failed: {(cp.stderr.strip().splitlines() or ['?'])[-1]}", flush=True)
    for what, rules in (("CheckersRules(): 5x5, 1 row, forced, multi-jump, 40 plies", "CheckersRules()"),
                        ("the window's default: the same at 20 plies", "CheckersRules(ply_limit=20)")):
        code = ("import time; from mdpviz.models.checkers import CheckersRules, compile_checkers; "
                f"t = time.perf_counter(); compile_checkers({rules}); print(time.perf_counter() - t)")
        cp = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
        try:
            s = float(cp.stdout.strip().splitlines()[-1])
            tab.add(f"checkers compile, {what} (fresh process)", _fmt_s(s),
                    f"calibration {_fmt_s(cal)}", s / cal, "<= 3 s", s <= 3)
        except (IndexError, ValueError):
            tab.add(f"checkers compile, {what}", "failed", "-", None, "<= 3 s", False)
    t = time.perf_counter()
    try:
        subprocess.run([sys.executable, "-m", "mdpviz.cli", "bench", "checkers"], capture_output=True, text=True,
                       timeout=timeout)
        s = time.perf_counter() - t
        tab.add("`mdpviz bench checkers`, whole", _fmt_s(s), f"calibration {_fmt_s(cal)}", s / cal, "< 2 min", s < 120)
    except subprocess.TimeoutExpired:
        tab.add("`mdpviz bench checkers`, whole", f"did not finish in {timeout:.0f} s (stopped)",
                f"calibration {_fmt_s(cal)}", None, "< 2 min", False)


def timed_rows_bench(prog: str, description: str, rows: Callable[..., None], argv: list[str]) -> int:
    """A bench command whose rows time each measurement for ``--seconds`` and take the best of ``--repeat``
    (``mdpviz bench approx``, ``mdpviz bench pg``): its parser, the load and CPU before, the table, the load
    after. ``rows(table, seconds=, repeat=)`` adds the rows."""
    p = ArgumentParser(prog=prog, description=description)
    p.add_argument("--seconds", type=float, default=1.0, help="seconds each measurement runs for (default 1)")
    p.add_argument("--repeat", type=positive_int, default=2,
                   help="runs of each measurement, the best taken (default 2)")
    args = p.parse_args(argv)
    if not 0.05 <= args.seconds <= 600:
        p.error(f"--seconds: must be in [0.05, 600], got {args.seconds:g}")
    print(f"uptime: {load_text()}", flush=True)
    print(f"cpu: {cpu_model()}", flush=True)
    tab = Table()
    rows(tab, seconds=args.seconds, repeat=args.repeat)
    tab.print()
    print(f"uptime: {load_text()}")
    return 0


def cpu_model() -> str:
    """``lscpu``'s model name (or /proc/cpuinfo's), and the number of CPUs."""
    import os
    import subprocess

    name = ""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
        name = next((ln.split(":", 1)[1].strip() for ln in out.splitlines() if ln.startswith("Model name")), "")
    except (OSError, subprocess.SubprocessError):
        pass
    if not name:
        try:
            with open("/proc/cpuinfo") as f:
                name = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "")
        except OSError:
            name = ""
    return f"{name or 'unknown CPU'}, {os.cpu_count()} CPUs"


def rows_learning(tab, *, updates: int = 2_000_000) -> None:
    """The bench rows of issue 25: compiled vs Python updates per second (Q-learning on the 4x3 grid,
    the same seed: the same updates), and 10,000 episodes of the 4x3 grid headless."""
    from mdpviz.models.gridworld.rules import GridSettings, compile_gridworld
    from mdpviz.solvers import kernels
    from mdpviz.solvers.learning import exact_answer, LearningSettings, learn, learner

    world = compile_gridworld(GridSettings())
    mdp, start = world.mdp, world.start_state
    if kernels.learning_loop() is None:
        tab.add("learning loop, compiled", f"unavailable ({kernels.unavailable_reason()})", "-", None, ">= 50x", False)
        return
    exact = exact_answer(mdp, LearningSettings(method="q"))
    learn(mdp, "q", episodes=10, start=start, exact=exact)  # compile (or load from numba's cache) first

    def rate(compiled: bool, episodes: int) -> tuple[float, int]:
        gen = learner(mdp, "q", episodes=episodes, batch=episodes, start=start, exact=exact, compiled=compiled,
                      eval_every=0, seed=1)
        t = time.perf_counter()
        last = next(gen)
        dt = time.perf_counter() - t
        gen.close()
        return last.updates / dt, last.updates

    py_eps = 5_000
    best_py, n_py = max(rate(False, py_eps) for _ in range(3))
    per_episode = n_py / py_eps
    best_c, n_c = max(rate(True, max(1, int(updates / per_episode))) for _ in range(3))
    tab.add(f"learning loop (Q-learning, 4x3 grid, epsilon 0.1): compiled, {n_c:,} updates (best of 3)",
            f"{best_c / 1e6:.2f} M updates/s", f"the same loop in Python {best_py / 1e3:.0f} k updates/s "
            f"({n_py:,} updates)", best_c / best_py, ">= 50x and >= 5 M/s", best_c / best_py >= 50 and best_c >= 5e6)
    def whole(batch: int, eval_every: int) -> float:
        t = time.perf_counter()
        for _ in learner(mdp, "q", episodes=10_000, batch=batch, start=start, exact=exact, seed=2,
                         eval_every=eval_every):
            pass
        return time.perf_counter() - t

    bare = min(whole(10_000, 0) for _ in range(3))
    for batch, what in ((1, "a snapshot per episode"), (100, "a snapshot per 100 episodes")):
        s = min(whole(batch, 100) for _ in range(3))
        tab.add(f"10,000 episodes of the 4x3 grid headless, Q-learning, {what}, the greedy policy evaluated "
                "exactly every 100 (best of 3)", f"{s:.3f} s",
                f"the compiled loop alone, one snapshot {bare * 1e3:.1f} ms", s / bare, "< 1 s", s < 1.0)


GROUPS = ("course", "process", "gui", "snakes", "learn", "risk4", "checkers", "core")
"""The row groups of ``mdpviz bench table``, in the order they run (``--skip`` names them)."""


def bench_table(argv: list[str]) -> int:
    """Every row of the speed table (issue 15): absolute figure, same-run reference, ratio, target."""
    p = ArgumentParser(prog="mdpviz bench table", description=bench_table.__doc__)
    p.add_argument("--mdp", default=None, help=f"the course file {COURSE_FILE} (default: the packaged copy)")
    p.add_argument("--sizes", type=state_counts, default="100000,1000000", help="state counts of the large-sweep rows")
    p.add_argument("--calls", type=positive_int, default=300, help="markovDecision calls (default 300)")
    p.add_argument("--skip", default="", help="comma-separated row groups to skip: " + ", ".join(GROUPS))
    p.add_argument("--checkers-timeout", type=positive_float, default=180.0,
                   help="seconds before mdpviz bench checkers is stopped (default 180)")
    args = p.parse_args(argv)
    skip = {x.strip() for x in args.skip.split(",") if x.strip()}
    unknown = sorted(skip - set(GROUPS))
    if unknown:
        p.error(f"--skip: no row group {', '.join(map(repr, unknown))} (the groups: {', '.join(GROUPS)})")
    path = course_file(args.mdp)
    print(f"uptime: {load_text()}", flush=True)
    from mdpviz.solvers import kernels

    t = time.perf_counter()
    warm = kernels.warm_up()
    if warm:
        print(f"numba kernels ready in {time.perf_counter() - t:.2f} s (first call: compile once, then loaded from "
              f"numba's cache): " + ", ".join(f"{k} {v:.2f} s" for k, v in warm.items()), flush=True)
    else:
        print(f"numba kernels unavailable ({kernels.unavailable_reason()}): numpy reference code", flush=True)
    cal = calibration_seconds()
    cal_start = process_seconds([sys.executable, "-c", "pass"], 5)
    cal_import = process_seconds([sys.executable, "-c", "import numpy"], 5)
    print(f"calibration: numpy sort of 2^21 floats {_fmt_s(cal)}; `python -c pass` {_fmt_s(cal_start)}; "
          f"`python -c 'import numpy'` {_fmt_s(cal_import)}", flush=True)
    tab = Table()
    if path is not None and "course" not in skip:
        rows_course(tab, path)
    if "process" not in skip:
        rows_processes(tab, path, cal_import, cal_start)
    if "gui" not in skip:
        rows_gui(tab, path)
    if "snakes" not in skip:
        rows_snakes(tab, args.calls)
    if "learn" not in skip:
        print(f"cpu: {cpu_model()}", flush=True)
        rows_learning(tab)
    # Subprocesses before the large in-process rows: Linux carries a process's peak RSS across
    # fork + exec, so a child started after the 10^6-state row would report this process's peak.
    if "risk4" not in skip:
        rows_risk4(tab, cal)
    if "checkers" not in skip:
        rows_checkers(tab, cal, args.checkers_timeout)
    if "core" not in skip:
        rows_core(tab, args.sizes)
    tab.print()
    print(f"uptime: {load_text()}")
    return 0


# ------------------------------------------------------------------------------------ gui
_FIRST_PAINT = r"""
import json, os, sys, time
t0 = float(os.environ["MDPVIZ_BENCH_T0"])
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication
app = QApplication.instance() or QApplication(sys.argv[:1])
bare = bool(os.environ.get("MDPVIZ_BENCH_BARE"))
class FirstPaint(QObject):
    seen = False
    def eventFilter(self, obj, ev):
        # mdpviz: the paint of the shown game's board (the current page of the window's "boardStack",
        # painted with the docks and controls around it), not the first paint of any widget
        if (not self.seen and ev.type() == QEvent.Type.Paint and obj.isWidgetType() and obj.window().isVisible()
                and (bare or (obj.parentWidget() is not None and obj.parentWidget().objectName() == "boardStack"))):
            self.seen = True
            def done():  # the paint event has been handled: the window is on screen
                print(json.dumps({"seconds": time.time() - t0}), flush=True)
                os._exit(0)
            QTimer.singleShot(0, done)
        return False
f = FirstPaint()
app.installEventFilter(f)
if bare:
    from PySide6.QtWidgets import QLabel
    w = QLabel("bare Qt window")
    w.resize(1280, 720)
    w.show()
    app.exec()
else:
    from mdpviz.cli import main
    main([])
"""


def first_paint_seconds(bare: bool, *, bytecode: bool = True, runs: int = 3, times: list[float] | None = None) -> float:
    """Wall seconds from starting a process to its first painted window: for ``mdpviz``, until the
    default game's board has been painted (the window around it is painted in the same pass); or a
    bare Qt window. Best of ``runs``.

    ``bytecode``: the project's modules are loaded from compiled bytecode, as after ``pip install``
    (which compiles them) or any earlier start (the first run, untimed, writes the cache to a
    temporary folder, even where PYTHONDONTWRITEBYTECODE is set); False: compiled from source at
    every start. ``times``: each timed run's seconds are appended to it."""
    import tempfile

    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    if bare:
        env["MDPVIZ_BENCH_BARE"] = "1"
    with tempfile.TemporaryDirectory(prefix="mdpviz-bench-pyc-") as cache:
        if bytecode:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = cache
        else:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        best = math.inf
        for k in range(runs + (1 if bytecode else 0)):
            env["MDPVIZ_BENCH_T0"] = repr(time.time())
            cp = subprocess.run([sys.executable, "-c", _FIRST_PAINT], capture_output=True, text=True, env=env,
                                timeout=120)
            try:
                t = float(json.loads(cp.stdout.strip().splitlines()[-1])["seconds"])
            except (IndexError, ValueError, KeyError):
                raise ValueError("the window did not open: " + (cp.stderr.strip().splitlines()[-1:] or ["?"])[0]) from None
            if k or not bytecode:  # the first run with a cache only writes it
                best = min(best, t)
                if times is not None:
                    times.append(t)
    return best


def gui_gaps(app, start: Callable[[], object], done: Callable[[], bool], *, interval_ms: int = 5,
             limit_s: float = 300.0) -> dict:
    """Call ``start()`` and wait in the GUI thread's event loop (as the window does: blocked in
    ``exec``, not spinning) until ``done()``; meanwhile a ``interval_ms`` QTimer on the GUI thread
    records its gaps. Seconds, largest gap and 95th percentile (ms), and how much of the largest
    gap the GUI thread spent computing (its CPU time: the rest it waited for the GIL or a core)."""
    import numpy as np
    from PySide6.QtCore import QEventLoop, QTimer

    stamps: list[tuple[float, float]] = []

    def tick() -> None:
        stamps.append((time.perf_counter(), time.thread_time()))

    loop = QEventLoop()
    timer = QTimer()
    timer.setInterval(interval_ms)
    timer.timeout.connect(tick)
    t0 = time.perf_counter()

    def poll() -> None:
        if done() or time.perf_counter() - t0 > limit_s:
            loop.quit()

    watch = QTimer()
    watch.setInterval(10)
    watch.timeout.connect(poll)
    timer.start()
    watch.start()
    tick()
    start()
    if not done():
        loop.exec()
    seconds = time.perf_counter() - t0
    tick()
    timer.stop()
    watch.stop()
    t = np.array(stamps)
    gaps, cpu = np.diff(t[:, 0]), np.diff(t[:, 1])
    k = int(np.argmax(gaps))
    return {"seconds": seconds, "max_gap_ms": 1e3 * float(gaps[k]), "max_gap_cpu_ms": 1e3 * float(cpu[k]),
            "p95_gap_ms": 1e3 * float(np.percentile(gaps, 95)), "timed_out": seconds > limit_s}


def _settle(app, seconds: float) -> None:
    """Let the window's event loop run (blocked in ``exec``, as the window's is) for ``seconds``."""
    if seconds <= 0:
        return
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()


def run_in_window(path: Path, interval_ms: int = 5, *, jobs: bool = False) -> dict:
    """Open ``path`` in the window, press Run (as fast as possible) and time it; the GUI thread's
    timer gaps meanwhile (largest and 95th percentile). ``jobs``: the gaps during the window's other
    long jobs too (``out["jobs"]``: label -> :func:`gui_gaps`)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from mdpviz.app import MainWindow
    from mdpviz.solvers import solve

    from PySide6.QtCore import QSettings

    app = QApplication.instance() or QApplication(sys.argv[:1])
    # throw-away settings (the user's stay as they are), with no live re-solve: the file's opening
    # would solve it, and Run would then time nothing
    tmp = tempfile.mkdtemp(prefix="mdpviz-bench-")
    settings = QSettings(str(Path(tmp) / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue("solve/liveResolve", "false")
    w = MainWindow(settings=settings)
    w.resize(1366, 768)
    w.show()
    w.files.open_mdp_file(path)
    ctrl = w.controller
    deadline = time.perf_counter() + 30
    while ctrl.state != "ready" and time.perf_counter() < deadline:
        _settle(app, 0.05)
    _settle(app, 1.0)  # let the window settle (first paints, kernel warm-up)
    g = gui_gaps(app, lambda: ctrl.run(math.inf), lambda: ctrl.state != "running", interval_ms=interval_ms,
                 limit_s=600)
    sol = ctrl.solution
    out = {
        "file": str(path), "method": ctrl.method, "run_s": g["seconds"],
        "sweeps": sol.sweeps if sol is not None else -1, "snapshots": len(ctrl.history),
        "max_gap_ms": g["max_gap_ms"], "max_gap_cpu_ms": g["max_gap_cpu_ms"], "p95_gap_ms": g["p95_gap_ms"],
        "interval_ms": interval_ms,
    }
    ref = solve(ctrl.mdp, ctrl.method, **ctrl.options)
    out["solve_s"] = ref.elapsed
    if jobs:
        out["jobs"] = window_jobs(app, w, interval_ms=interval_ms)
    return out


def window_jobs(app, w, *, interval_ms: int = 5) -> dict[str, dict]:
    """The GUI thread's gaps during the window's other long jobs (each started as its button would):
    label -> :func:`gui_gaps`. The window has the course file open."""
    ctrl = w.controller
    out: dict[str, dict] = {}

    def measure(label: str, start: Callable[[], object], done: Callable[[], bool], limit_s: float = 120.0,
                settle: float = 0.3) -> None:
        _settle(app, settle)
        out[label] = gui_gaps(app, start, done, interval_ms=interval_ms, limit_s=limit_s)

    def method(m: str) -> None:
        p = w.solver_panel
        p.algorithm.setCurrentIndex(p.algorithm.findData(m))  # resets the solver
        w.solving.reset_solver()

    solver_idle = lambda: ctrl.state not in ("running", "stepping")  # noqa: E731
    method("vi")
    steps = iter(range(20))

    def step_more() -> bool:  # 20 Steps, each pressed when the one before is shown
        if ctrl.state == "stepping":
            return False
        if next(steps, None) is None:
            return True
        w.solving.step()
        return False

    measure("Step x20 (vi, course file)", lambda: None, step_more)
    for m in ("pi", "gs"):
        method(m)
        measure(f"Run {m} (course file)", w.solving.run_solver, solver_idle)
    method("vi")
    measure("Compare panel (course file)", w.classroom.compare_methods, lambda: not ctrl.job_busy)
    w.switch_game("snakes")
    w.solving.reset_solver()
    measure("Run vi (snakes)", w.solving.run_solver, solver_idle)
    measure("Simulation panel (snakes)", lambda: w.playing.start_simulation(w.playing.sim_panel.games.value(), 1),
            lambda: not ctrl.job_busy)
    w.switch_game("ttt")
    _settle(app, 0.5)
    n = ctrl.mdp.n_states if ctrl.mdp is not None else 0
    measure(f"Run vi (tic-tac-toe, {n:,} states)", w.solving.run_solver, solver_idle)
    w.switch_game("attt")
    _settle(app, 0.5)
    g = w.game
    measure("Run (anti-tic-tac-toe rounds)", w.solving.run_solver,
            lambda: not g.session.driver.running() and solver_idle(), limit_s=300)
    _settle(app, 0.3)
    w.switch_game("checkers")  # the compile starts at the next event-loop turn: timed from here
    g = w.game
    label = ("Checkers compile (default variant)" if g.session.built() is None
             else "Checkers (compiled before: no compile)")
    measure(label, lambda: None, lambda: g.session.built() is not None and not ctrl.job_busy, limit_s=300, settle=0.0)
    return out


def bench_gui(argv: list[str]) -> int:
    """The window: seconds from `mdpviz` to its first painted window, Run on the course file, and the
    GUI thread's timer gaps during the window's other long jobs (information rows)."""
    p = ArgumentParser(prog="mdpviz bench gui", description=bench_gui.__doc__)
    p.add_argument("--mdp", default=None, help=f"the course file {COURSE_FILE} (default: the packaged copy)")
    p.add_argument("--json", action="store_true", help="print one JSON object (for mdpviz bench)")
    p.add_argument("--no-jobs", action="store_true",
                   help="skip the information rows: the GUI thread's gaps during the window's other long jobs "
                        "(Step, Run with pi/gs, snakes, tic-tac-toe, Compare, simulation, anti-tic-tac-toe rounds, "
                        "checkers compile); --json never measures them")
    p.add_argument("--runs", type=int, default=3, metavar="N",
                   help="first paint: the best of N fresh processes (default 3; 1..50)")
    p.add_argument("--first-paint", action="store_true",
                   help="measure only the first painted window (each run's seconds, the best, the load and CPU)")
    p.add_argument("--stalls", action="store_true",
                   help="measure only the GUI thread's longest event-loop gap while training the 3D agent, running "
                        "SARSA on risk tic-tac-toe and checkers, and stepping policy iteration on Jack's car rental "
                        "(issue 35 item 8; with the load and the CPU)")
    args = p.parse_args(argv)
    if args.stalls:  # (handled by mdpviz.commands.bench_stalls.bench_gui, which runs before this parser)
        p.error("--stalls is measured by mdpviz.commands.bench_stalls.bench_gui")
    if not 1 <= args.runs <= 50:
        print(f"mdpviz bench gui: error: --runs must be 1..50, got {args.runs}", file=sys.stderr)
        return 2
    if args.first_paint:
        return _first_paint_only(args.runs, as_json=args.json)
    if not args.json:
        print(f"uptime: {load_text()}", flush=True)
    out: dict = {"first_paint_s": first_paint_seconds(False, runs=args.runs),
                 "bare_qt_paint_s": first_paint_seconds(True, runs=args.runs),
                 "first_paint_no_pyc_s": first_paint_seconds(False, bytecode=False, runs=args.runs)}
    path = course_file(args.mdp) if not args.json else (Path(args.mdp) if args.mdp else
                                                        (packaged_course_file() if packaged_course_file().is_file() else None))
    if path is not None:
        out.update(run_in_window(path, jobs=not (args.json or args.no_jobs)))
    if args.json:
        print(json.dumps(out), flush=True)
        os._exit(0)  # the window is still open: no teardown to wait for (or to print errors)
    print(f"`mdpviz` to the first painted window (the default game's board drawn, best of {args.runs}, bytecode compiled "
          f"as installed): {out['first_paint_s']:.2f} s (a bare Qt window: {out['bare_qt_paint_s']:.2f} s; "
          f"target < 1.5 s); without compiled bytecode: {out['first_paint_no_pyc_s']:.2f} s")
    if path is not None:
        print(f"Run in the window on {path.name} ({out['method']}): {out['run_s']:.2f} s for {out['sweeps']:,} sweeps "
              f"in {out['snapshots']} snapshots (solve() alone: {out['solve_s']:.2f} s; target < 2 s); GUI timer "
              f"({out['interval_ms']} ms) largest gap {out['max_gap_ms']:.0f} ms ({out['max_gap_cpu_ms']:.0f} ms of "
              f"it computing on the GUI thread), 95th percentile {out['p95_gap_ms']:.0f} ms (target: never > 100 ms)",
              flush=True)
        if out.get("jobs"):
            print("The GUI thread's 5 ms timer during the window's other long jobs (information, no target):")
        for label, g in out.get("jobs", {}).items():
            print(f"  GUI timer during {label}: {g['seconds']:.2f} s{' (stopped waiting)' if g['timed_out'] else ''}, "
                  f"largest gap {g['max_gap_ms']:.0f} ms ({g['max_gap_cpu_ms']:.0f} ms computing), "
                  f"95th percentile {g['p95_gap_ms']:.0f} ms", flush=True)
        os._exit(0)  # the window is still open: no teardown to wait for (or to print errors)
    return 0


def _first_paint_only(runs: int, *, as_json: bool) -> int:
    """``mdpviz bench gui --first-paint``: seconds from starting ``mdpviz`` in a fresh process to its first
    painted window (issue 35 item 11: target < 1.5 s on an idle machine), each run and the best of
    ``runs``, with the load before and after and the CPU (a loaded machine's time is not the window's)."""
    before, cpu = load_text(), cpu_model()
    times: list[float] = []
    bare: list[float] = []
    best = first_paint_seconds(False, runs=runs, times=times)
    best_bare = first_paint_seconds(True, runs=runs, times=bare)
    after = load_text()
    if as_json:
        print(json.dumps({"first_paint_s": best, "first_paint_runs_s": times, "bare_qt_paint_s": best_bare,
                          "load_before": before, "load_after": after, "cpu": cpu}), flush=True)
        return 0
    print(f"CPU: {cpu}\nuptime before: {before}", flush=True)
    print(f"`mdpviz` to the first painted window (fresh processes, bytecode compiled as installed): best of {runs} "
          f"{best:.2f} s (target < 1.5 s on an idle machine); runs: {', '.join(f'{t:.2f}' for t in times)} s; "
          f"a bare Qt window: {best_bare:.2f} s", flush=True)
    print(f"uptime after: {after}", flush=True)
    return 0
