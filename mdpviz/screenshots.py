"""Take the README screenshots headless: ``python -m mdpviz.screenshots [--out assets/screenshots]``.

Runs the real window on Qt's offscreen platform (no display needed), drives it through its own
methods and saves:

* ``solving.png``: snakes and ladders mid-solve (value iteration, a few sweeps in), a square
  inspected with its Bellman backup, the convergence plot growing;
* ``simulation.png``: the same board solved, after a batch simulation of every strategy
  (histogram and exact-vs-simulated table);
* ``policy-iteration.png``: an "MDP from file" (a small course-format MDP) as a graph, solved by
  policy iteration;
* ``presenter-1280x720.png``: presenter mode at 1280 x 720.

The settings of this run go to a temporary file, never to the user's settings.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence

LAYOUT = (0, 0, 3, 0, 2, 0, 1, 0, 3, 0, 0, 1, 0, 4, 0)
"""The board of the screenshots: a prison on 3 and 9, a penalty on 5, restarts on 7 and 12, a bonus on 14."""

SMALL_MDP = """numStates 6
numActions 2
end 5
transition 0 0 1 -1 0.8
transition 0 0 0 -1 0.2
transition 0 1 2 -1 0.6
transition 0 1 3 -1 0.4
transition 1 0 3 -1 0.9
transition 1 0 1 -1 0.1
transition 1 1 4 -1 1.0
transition 2 0 4 -1 0.7
transition 2 0 0 -1 0.3
transition 2 1 3 -2 1.0
transition 3 0 5 10 0.5
transition 3 0 1 -1 0.5
transition 3 1 4 -1 1.0
transition 4 0 5 5 0.9
transition 4 0 2 -1 0.1
transition 4 1 5 1 1.0
mdptype episodic
discount 0.95
"""
"""A six-state episodic MDP in the course format, for the graph-view screenshot."""


class _Quiet:
    """Dialogs that never block (errors are printed)."""

    def error(self, title: str, text: str) -> None:
        print(f"{title}: {text}", file=sys.stderr)

    def ask_unsaved(self) -> str:
        return "discard"

    def open_file(self, *args) -> str:
        return ""

    def save_file(self, *args) -> str:
        return ""


def _pump(app, seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.005)


def _wait(app, cond, timeout: float = 60.0) -> None:
    end = time.perf_counter() + timeout
    while not cond():
        if time.perf_counter() > end:
            raise RuntimeError("timed out waiting for the window")
        app.processEvents()
        time.sleep(0.005)


def take(out: Path, *, games: int = 10_000) -> list[Path]:
    """Save the screenshots into ``out``; returns their paths."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from dataclasses import replace

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from mdpviz.app import MainWindow

    app = QApplication.instance() or QApplication([])
    out.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp:
        settings = QSettings(str(Path(tmp) / "settings.ini"), QSettings.Format.IniFormat)
        w = MainWindow(dialogs=_Quiet(), settings=settings)
        try:
            w.show()
            w.resize(1366, 820)
            _pump(app, 0.3)
            g = w.game_by_key("snakes")
            g.edit(replace(g.cfg, layout=LAYOUT), "screenshot layout")
            _wait(app, lambda: w.controller.state == "ready")
            for _ in range(9):
                n = len(w.controller.history)
                w.step()
                _wait(app, lambda: len(w.controller.history) > n)
            w.inspect(6)
            w.inspector_dock.raise_()
            _pump(app, 0.3)
            w.redraw()
            saved.append(out / "solving.png")
            w.grab().save(str(saved[-1]))

            w.run_solver()
            _wait(app, lambda: w.controller.state == "converged")
            w.start_simulation(games, 2024)
            _wait(app, lambda: w.sim_result is not None, timeout=300)
            w.inspect(None)
            w.simulation_dock.raise_()
            _pump(app, 0.3)
            w.redraw()
            saved.append(out / "simulation.png")
            w.grab().save(str(saved[-1]))

            mdp_file = Path(tmp) / "small-mdp.txt"
            mdp_file.write_text(SMALL_MDP)
            w.open_mdp_file(mdp_file)
            w.game.set_view("graph")
            w.solver_panel.set_method("pi")
            w.reset_solver()
            _wait(app, lambda: w.controller.state == "ready")
            w.run_solver()
            _wait(app, lambda: w.controller.state == "converged")
            w.inspect(0)
            w.inspector_dock.raise_()
            _pump(app, 0.3)
            w.redraw()
            saved.append(out / "policy-iteration.png")
            w.grab().save(str(saved[-1]))

            w.switch_game("snakes")
            w.set_presenter(True)
            w.resize(1280, 720)
            _pump(app, 0.3)
            w.run_solver()
            _wait(app, lambda: w.controller.state == "converged")
            w.inspect(2)
            w.inspector_dock.raise_()
            _pump(app, 0.3)
            w.redraw()
            saved.append(out / "presenter-1280x720.png")
            w.grab().save(str(saved[-1]))
            w.set_presenter(False)
        finally:
            w.shutdown()
            w.close()
            w.deleteLater()
            app.processEvents()
    return saved


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m mdpviz.screenshots", description=__doc__.splitlines()[0])
    p.add_argument("--out", default="assets/screenshots", help="folder for the PNG files (default assets/screenshots)")
    p.add_argument("--games", type=int, default=10_000, help="games per strategy in the simulation screenshot")
    args = p.parse_args(argv)
    for path in take(Path(args.out), games=args.games):
        print(path)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
