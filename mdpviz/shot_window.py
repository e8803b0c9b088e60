"""The window the screenshots are taken of: :func:`screenshot_window` (the real main window, headless,
with quiet dialogs and throw-away settings), :class:`ShotWindow` (its few moves: wait, step, solve,
simulate, save a picture), the sizes every picture is taken at, and :func:`prepare_game` (a game staged
as its per-size pictures show it). :mod:`mdpviz.screenshots` (the games' README gallery and the command)
and :mod:`mdpviz.screenshot_views` (the pictures of the views: bounds, policy diff, learning, chain of
backups) both build on it.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterator

from mdpviz.solvers import registry

DEFAULT_SIZE = (1366, 768)
"""Window size (pixels, width x height) of a gallery picture whose name states no size (a laptop's screen)."""

SIZES: dict[str, tuple[tuple[int, int], bool]] = {
    "1920x1080": ((1920, 1080), False),
    "1366x768": ((1366, 768), False),
    "presenter-1280x720": ((1280, 720), True),
}
"""The folders of the per-size pictures: window size (pixels) and presenter mode."""

SIZE_1280x720 = (1280, 720)
"""Window size (pixels) of the ``*-1280x720.png`` pictures (a projector's)."""

SIM_SEED = 2024
"""Seed of every simulation in the screenshots (so the pictures are reproducible)."""

# ---------------------------------------------------------------------------------- the window
class QuietDialogs:
    """The window's dialogs for a headless run: nothing modal; errors are kept and printed on stderr."""

    def __init__(self) -> None:
        self.errors: list[tuple[str, str]] = []

    def error(self, title: str, text: str) -> None:
        self.errors.append((title, text))
        print(f"{title}: {text}", file=sys.stderr)

    def ask_unsaved(self) -> str:
        return "discard"

    def open_file(self, *args: Any) -> str:
        return ""

    def save_file(self, *args: Any) -> str:
        return ""


@dataclass(frozen=True)
class Shot:
    """One picture written by :meth:`ShotWindow.shot`."""

    path: Path
    """The PNG file."""
    size: tuple[int, int]
    """The stated window size (pixels, width x height)."""
    actual: tuple[int, int]
    """The size of the picture (pixels): larger than ``size`` where the window's layout needs more room."""


class ShotWindow:
    """The real main window on a headless screen, with the few moves every screenshot needs:
    let Qt work for a while, wait for a condition, step or solve, simulate, and save a picture."""

    def __init__(self, window: Any, out: Path, tmp: Path, *, timeout: float = 120.0) -> None:
        from PySide6.QtWidgets import QApplication

        self.window = window
        """The :class:`~mdpviz.app.MainWindow`."""
        self.app = QApplication.instance()
        self.out = out
        """The folder the pictures go to."""
        self.tmp = tmp
        """A scratch folder that lives as long as the window (settings, files to open)."""
        self.timeout = float(timeout)
        """Default limit (seconds) of :meth:`wait`."""
        self.shots: list[Shot] = []

    @property
    def saved(self) -> list[Path]:
        """The pictures written so far, in order."""
        return [s.path for s in self.shots]

    def pump(self, seconds: float) -> None:
        """Run Qt's events for ``seconds`` (layouts settle, timers fire, signals arrive)."""
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            self.app.processEvents()
            time.sleep(0.005)

    def wait(self, cond: Callable[[], bool], *, timeout: float | None = None, what: str = "the window") -> None:
        """Run Qt's events until ``cond()`` holds; RuntimeError naming ``what`` after ``timeout`` seconds."""
        limit = self.timeout if timeout is None else float(timeout)
        end = time.perf_counter() + limit
        while not cond():
            if time.perf_counter() > end:
                raise RuntimeError(f"screenshots: timed out after {limit:g} s waiting for {what}")
            self.app.processEvents()
            time.sleep(0.005)

    def model_built(self) -> bool:
        """The shown game's model is built (every game builds off the GUI thread) and its solver loaded: the
        controller holds the session's model, not the one before the last edit or switch."""
        w = self.window
        s = w.stage.session
        return not s.building and w.controller.mdp is not None and w.controller.mdp is s.mdp()

    def wait_built(self, what: str = "the model") -> None:
        """Wait until :meth:`model_built` and the solver is ready (or kept converged)."""
        w = self.window
        self.wait(lambda: self.model_built() and w.controller.state in ("ready", "converged"), what=what)

    def reset(self, method: str | None = None) -> None:
        """Load a fresh solver (``method`` "vi", "gs", "pi" or "lp"; None keeps the panel's) on the shown game's
        built model and wait until it is ready."""
        w = self.window
        self.wait(lambda: not w.stage.session.building, what="the model to be built")
        if method is not None:
            w.solver_panel.set_method(method)
        w.solving.reset_solver()
        self.wait(lambda: w.controller.state == "ready", what="the solver to be ready")

    def step(self, sweeps: int) -> None:
        """Press Step ``sweeps`` times, each time waiting for its snapshot."""
        w = self.window
        self.wait(lambda: not w.stage.session.building, what="the model to be built")
        for _ in range(int(sweeps)):
            n = len(w.controller.history)
            w.solving.step()
            self.wait(lambda: len(w.controller.history) > n and w.controller.state != "stepping",
                      what="a solver step")

    def solve(self) -> None:
        """Press Run and wait for convergence."""
        w = self.window
        self.wait(lambda: not w.stage.session.building, what="the model to be built")
        w.solving.run_solver()
        self.wait(lambda: w.controller.state == "converged", what="the solver to converge")
        self.redraw()

    def redraw(self) -> None:
        """Redraw the window now (board, plot, inspector), not at its next frame."""
        self.window.solving.mark_dirty()  # the window redraws at screen rate only when marked dirty
        self.window.solving.redraw()

    def simulate(self, games: int, *, seed: int = SIM_SEED) -> None:
        """Simulate ``games`` games per strategy through the active game's simulation panel (so the
        panel shows the count and seed that were run) and wait for the results."""
        w = self.window
        panel = w.playing.sim_panel
        panel.games.setValue(int(games))
        panel.seed.setValue(int(seed))
        if panel.games.value() != int(games) or panel.seed.value() != int(seed):
            raise ValueError(f"screenshots: the {w.game.key} simulation panel does not take {games} games, "
                             f"seed {seed} (its range is {panel.games.minimum()}..{panel.games.maximum()} games)")
        before = w.playing.sim_result
        panel.simulate.click()
        self.wait(lambda: w.playing.sim_result is not None and w.playing.sim_result is not before and not w.controller.job_busy, timeout=max(self.timeout, 300.0),
                  what=f"the {w.game.key} simulation")
        w.stage.show_page("simulation")

    def shot_sizes(self, path: Callable[[str], str]) -> list[Path]:
        """The window as it is at every size of :data:`SIZES`, each saved as ``out/path(folder)`` (presenter
        mode turned on for a presenter size, after the window has that size, and off again)."""
        w = self.window
        saved = []
        for folder, (size, presenter) in SIZES.items():
            (self.out / path(folder)).parent.mkdir(parents=True, exist_ok=True)
            if presenter:
                w.resize(*size)
                self.pump(0.2)
                w.view.set_presenter(True)
            saved.append(self.shot(path(folder), size=size))
            if presenter:
                w.view.set_presenter(False)
        return saved

    def shot(self, name: str, *, size: tuple[int, int] = DEFAULT_SIZE, settle: float = 0.3) -> Path:
        """Resize the window to ``size`` (pixels), let it settle for ``settle`` seconds, redraw and save
        it as ``out/name``. A picture larger than ``size`` (the layout's minimum is wider) is noted on stderr."""
        w = self.window
        w.resize(*size)
        self.pump(settle)
        self.redraw()
        self.pump(0.05)
        img = w.grab()
        path = self.out / name
        if not img.save(str(path)):
            raise OSError(f"screenshots: cannot write {path}")
        actual = (img.width(), img.height())
        self.shots.append(Shot(path, tuple(size), actual))
        if actual != tuple(size):
            print(f"note: {path} is {actual[0]}x{actual[1]}, not the stated {size[0]}x{size[1]} "
                  "(the window cannot be made smaller)", file=sys.stderr)
        return path


@contextmanager
def screenshot_window(out: str | Path, *, timeout: float = 120.0) -> Iterator[ShotWindow]:
    """The main window with every game, shown headless at :data:`DEFAULT_SIZE` with non-blocking
    dialogs and throw-away settings; shut down (threads stopped) on exit. Creates the QApplication
    (offscreen unless QT_QPA_PLATFORM says otherwise) if there is none yet, and ``out``."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QCoreApplication, QEvent, QSettings
    from PySide6.QtWidgets import QApplication

    from mdpviz.app import MainWindow

    app = QApplication.instance() or QApplication([])
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        settings = QSettings(str(Path(tmp) / "settings.ini"), QSettings.Format.IniFormat)
        # the pictures stage their solves step by step after their edits: no live re-solve unless a
        # picture turns it on (the policy diff's)
        settings.setValue("solve/liveResolve", "false")
        w = MainWindow(dialogs=QuietDialogs(), settings=settings)
        try:
            w.resize(*DEFAULT_SIZE)
            w.show()
            sw = ShotWindow(w, out, Path(tmp), timeout=timeout)
            sw.pump(0.3)
            yield sw
        finally:
            w.shutdown()
            w.close()
            w.deleteLater()
            app.processEvents()
            # outside an event loop deleteLater waits for one: delete the window (and its games) now
            QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


LAYOUT = (0, 0, 3, 0, 2, 0, 1, 0, 3, 0, 0, 1, 0, 4, 0)
"""The board of the snakes screenshots: a prison on 3 and 9, a penalty on 5, restarts on 7 and 12, a bonus on 14."""

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


# ---------------------------------------------------------------------------------- staging a game
@dataclass(frozen=True)
class ShotOptions:
    """How much work the screenshots do (the defaults make the README's pictures)."""

    sim_games: int = 10_000
    """Games per strategy (or matchup) in every simulation picture."""
    episodes: int = 3_000
    """Training games of the 3D tic-tac-toe agent."""
    exact_4x4: bool = True
    """Wait for the exact 4x4 risk tic-tac-toe solve (``risk-ttt-4x4-solved.png``; the longest part)."""


def prepare_game(sw: ShotWindow, key: str, o: ShotOptions) -> None:
    """Show game ``key`` as a class first sees it: solved with its defaults (snakes: the example layout;
    a course file: :data:`SMALL_MDP` as a graph, by policy iteration; anti-tic-tac-toe: its rounds to
    convergence; 3D tic-tac-toe: a short training run), a square inspected where the game has an inspector, the board page in front."""
    from mdpviz.widgets.cell_board import CellBoard

    w = sw.window
    if key in (SUTTON_GRID, SUTTON_OPTIMAL):  # the grid world on Example 4.1's map: its own default, evaluation
        from mdpviz.models.gridworld import BUILTIN_MAPS  # of the random policy; or value iteration to V* (ties)

        w.switch_game("gridworld")
        if w.game.settings.grid.name == "sutton4x4":  # (the previous picture's): another map first, so that
            w.game.set_map(BUILTIN_MAPS["book"])      # the 4x4 map sets its own rules and solver afresh
            sw.wait_built("the 4x3 grid")
        w.game.set_map(BUILTIN_MAPS["sutton4x4"])
        sw.wait_built("the 4x4 grid")
        if key == SUTTON_OPTIMAL:
            sw.reset(registry.DEFAULT_SOLVER)
        sw.solve()
        w.solving.inspect(w.game.session.start_state())
        w.stage.show_page("board")
        return
    if key == SNAKES_TIES:  # a layout where dice tie: every optimal die drawn under its square
        w.switch_game("snakes")
        w.game.session.edit(replace(w.game.cfg, layout=TIES_LAYOUT, circle=False), "a layout with ties")
        sw.wait_built("the snakes model")
        sw.reset(w.game.default_method)
        sw.solve()
        w.solving.inspect(8)  # square 9: all three dice are optimal
        w.stage.show_page("board")
        return
    if key == TTT_TIES:  # tic-tac-toe after the random opponent took the centre: the four corners tie
        w.switch_game("ttt")
        # (ready, or its solve kept from an earlier picture of the same window: reset below either way)
        sw.wait_built("the ttt model")
        sw.reset(w.game.default_method)
        sw.solve()
        w.stage.show_page("board")
        sw.redraw()
        w.board.click_cell(4)
        sw.redraw()
        return
    if key == "file":
        mdp_file = sw.tmp / "small-mdp.txt"
        mdp_file.write_text(SMALL_MDP)
        w.files.open_mdp_file(mdp_file)
        w.game.set_view("graph")
        sw.reset(registry.exact_solver())
    else:
        w.switch_game(key)
    g = w.game
    if key == "snakes":
        g.session.edit(replace(g.cfg, layout=LAYOUT), "example layout")
    if key == "ttt3d":
        episodes = min(o.episodes, 1_000)
        g.set_settings(episodes=episodes, report_every=max(1, episodes // 10), eval_games=200, seed=0)
        g.training.start()
        sw.wait(lambda: not g.training.busy, what="the 3D agent's training")
    elif "solver" in g.panels:
        sw.wait_built(f"the {key} model")
        if key != "file":
            sw.reset(g.default_method)  # the game's own algorithm (value iteration for most), whatever the previous game left
        sw.solve()
        if key == "attt":  # a solve starts the best-response rounds: every size's picture shows their end
            sw.wait(lambda: g.astate.converged and w.controller.state == "converged",
                    what="the anti-tic-tac-toe rounds")
        if "inspector" in g.panels and isinstance(w.board, CellBoard):  # a square of a cell board inspected
            w.solving.inspect(g.session.start_state())
            w.inspector_dock.raise_()
    w.stage.show_page("board")


SUTTON_GRID = "sutton4x4"
"""A picture name beside the registry's keys: the grid world on Sutton and Barto's Example 4.1 map."""
SUTTON_OPTIMAL = "sutton4x4-optimal"
"""A picture name beside the registry's keys: Example 4.1's grid solved by value iteration, every optimal arrow
drawn (four in the two cells three steps from both corners)."""
TTT_TIES = "ttt-ties"
"""A picture name beside the registry's keys: tic-tac-toe at a position whose optimal moves tie (every one starred)."""
SNAKES_TIES = "snakes-ties"
"""A picture name beside the registry's keys: snakes and ladders on :data:`TIES_LAYOUT`, whose dice tie."""
TIES_LAYOUT = (0, 2, 2, 4, 1, 0, 2, 2, 0, 2, 0, 0, 0, 0, 0)
"""A snakes layout (square types 1..15) on which dice tie: security and normal on square 1, all three on square 9."""
STAGED = (SUTTON_GRID, SUTTON_OPTIMAL, TTT_TIES, SNAKES_TIES)
"""The staged pictures beside the games' own."""
