"""``mdpviz bench gui --stalls``: the GUI thread's longest event-loop gap in the four cases of issue 35
item 8 (training the 3D agent, SARSA on risk tic-tac-toe and on checkers, one policy-iteration Step on
Jack's car rental), each started as its button would in an offscreen window. Information rows: the
target is no gap over 100 ms, but a timing is never a pass/fail test, so ``uptime`` and the CPU are
printed beside them (a loaded machine's gap is not the window's)."""
from __future__ import annotations

import math
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

STALL_TARGET_MS = 100.0
"""Issue 35 item 8: no event-loop gap over this while the window works."""


def _after(done: Callable[[], bool], settle_s: float) -> Callable[[], bool]:
    """``done`` that holds on for ``settle_s`` after it first turns true (the last frames are drawn
    after the job ends: their gaps count too)."""
    since: list[float | None] = [None]

    def check() -> bool:
        if not done():
            since[0] = None
            return False
        if since[0] is None:
            since[0] = time.perf_counter()
        return time.perf_counter() - since[0] >= settle_s

    return check


def stall_cases(*, interval_ms: int = 5, limit_s: float = 180.0, cases: tuple[str, ...] | None = None) -> dict[str, dict]:
    """Label -> :func:`~mdpviz.commands.bench_table.gui_gaps` of each case, in a fresh offscreen window
    (throw-away settings, no live re-solve)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from mdpviz.app import MainWindow
    from mdpviz.commands.bench_table import _settle, gui_gaps

    app = QApplication.instance() or QApplication(sys.argv[:1])
    settings = QSettings(str(Path(tempfile.mkdtemp(prefix="mdpviz-bench-")) / "settings.ini"),
                         QSettings.Format.IniFormat)
    settings.setValue("solve/liveResolve", "false")
    w = MainWindow(settings=settings)
    w.resize(1366, 768)
    w.show()
    ctrl = w.controller
    out: dict[str, dict] = {}

    def show(game: str) -> None:  # the game shown, its model built and loaded, the window settled
        w.switch_game(game)
        t = time.perf_counter()
        while time.perf_counter() - t < limit_s:
            _settle(app, 0.1)
            mdp = w.game.session.mdp()
            if not ctrl.job_busy and (game == "ttt3d" or (mdp is not None and ctrl.mdp is mdp)):
                break
        _settle(app, 1.0)

    def method(m: str) -> None:
        p = w.solver_panel
        p.algorithm.setCurrentIndex(p.algorithm.findData(m))
        w.solving.reset_solver()
        _settle(app, 0.5)

    idle = lambda: ctrl.state not in ("running", "stepping")  # noqa: E731
    wanted = cases or ("ttt3d", "risk_ttt", "checkers", "jack")
    if "ttt3d" in wanted:
        show("ttt3d")
        tr = w.game.training
        n = int(tr.settings.settings.episodes)
        out[f"Train the 3D agent ({n:,} games)"] = gui_gaps(app, tr.start, _after(lambda: not tr.busy, 1.0),
                                                          interval_ms=interval_ms, limit_s=limit_s)
    for game, title in (("risk_ttt", "risk tic-tac-toe"), ("checkers", "checkers")):
        if game in wanted:
            show(game)
            method("sarsa")
            out[f"Run SARSA ({title}, {ctrl.mdp.n_states:,} states)"] = gui_gaps(
                app, w.solving.run_solver, _after(idle, 1.0), interval_ms=interval_ms, limit_s=limit_s)
    if "jack" in wanted:
        show("jack")
        method("pi")
        h0 = len(ctrl.history)
        out["Step policy iteration (Jack's car rental)"] = gui_gaps(
            app, w.solving.step, _after(lambda: idle() and len(ctrl.history) > h0, 1.0), interval_ms=interval_ms,
            limit_s=limit_s)
    return out


def print_stalls(out: dict[str, dict], *, load_before: str, load_after: str, cpu: str) -> None:
    """The rows of :func:`stall_cases` with the load and the CPU."""
    print(f"CPU: {cpu}\nuptime before: {load_before}")
    print(f"Longest event-loop gap on the GUI thread (5 ms timer; target: none over {STALL_TARGET_MS:.0f} ms):")
    for label, g in out.items():
        met = "yes" if g["max_gap_ms"] <= STALL_TARGET_MS else "NO"
        print(f"  {label}: {g['seconds']:.2f} s{' (stopped waiting)' if g['timed_out'] else ''}, longest gap "
              f"{g['max_gap_ms']:.0f} ms ({g['max_gap_cpu_ms']:.0f} ms of it computing on the GUI thread), "
              f"95th percentile {g['p95_gap_ms']:.0f} ms, met: {met}", flush=True)
    print(f"uptime after: {load_after}", flush=True)


def run(*, as_json: bool, cases: tuple[str, ...] | None = None) -> int:
    """``mdpviz bench gui --stalls``."""
    import json

    from mdpviz.commands.bench_table import cpu_model, load_text

    before, cpu = load_text(), cpu_model()
    out = stall_cases(cases=cases)
    after = load_text()
    if as_json:
        print(json.dumps({"stalls": out, "load_before": before, "load_after": after, "cpu": cpu,
                          "target_ms": STALL_TARGET_MS}), flush=True)
    else:
        print_stalls(out, load_before=before, load_after=after, cpu=cpu)
    sys.stdout.flush()
    os._exit(0)  # the window is still open: no teardown to wait for (or to print errors)
    return 0 if all(math.isfinite(g["max_gap_ms"]) for g in out.values()) else 1


def bench_gui(argv: list[str]) -> int:
    """``mdpviz bench gui``: with ``--stalls`` (and ``--json``), :func:`run`; else
    :func:`mdpviz.commands.bench_table.bench_gui` (whose parser documents ``--stalls``)."""
    from mdpviz.commands.bench_table import bench_gui as rest

    if "--stalls" in argv and "-h" not in argv and "--help" not in argv:
        others = [a for a in argv if a not in ("--stalls", "--json")]
        if others:  # the other options are the first paint's and Run's: one error line, exit 2
            print(f"mdpviz bench gui: error: --stalls takes only --json, got {' '.join(others)}", file=sys.stderr)
            return 2
        return run(as_json="--json" in argv)
    return rest(argv)
