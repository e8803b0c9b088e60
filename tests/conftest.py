"""Test setup shared by every tier: headless Qt, and no worker thread may outlive a test."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

# CI has no display: the test setup itself selects Qt's offscreen platform (before Qt loads).
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Keep tests out of the user's QSettings, and each pytest-xdist worker ("gw0", "gw1", ...) out of the
# others' (a window built without a settings file of its own reads and writes this organisation's). A
# worker inherits the controller's environment, where this file has already set the organisation.
os.environ.setdefault("MDPVIZ_SETTINGS_ORG", "mdpviz-tests")
if os.environ.get("PYTEST_XDIST_WORKER") and not os.environ["MDPVIZ_SETTINGS_ORG"].endswith(os.environ["PYTEST_XDIST_WORKER"]):
    os.environ["MDPVIZ_SETTINGS_ORG"] += "-" + os.environ["PYTEST_XDIST_WORKER"]

import pytest

REPO = Path(__file__).resolve().parents[1]


def warm_sweep_kernels() -> None:
    """Compile (or load) the sweep kernels and the learning loop: 15-25 s cold, under 3 s from numba's cache.
    The learning loop loaded here, no ``mdpviz learn`` in a test says "compiling the learning loop" on stderr
    (a line the one-line error tests would count), however cold the cache or busy the machine."""
    from mdpviz.solvers import kernels
    from mdpviz.solvers.learning_warmup import prepare_loop

    kernels.warm_up()
    prepare_loop()


def warm_game_kernels() -> None:
    """Compile (or load) the checkers compiler's and the risk layer's kernels: 16-24 s cold."""
    from mdpviz.models import checkers, risk_ttt

    checkers.warm_up()
    risk_ttt.solve_exact(risk_ttt.risk_preset("classic", n_cells=4), size=2)


WARM_UPS = (warm_sweep_kernels, warm_game_kernels)
"""What :func:`numba_kernels_compiled` runs, in two about equal halves."""


def pytest_sessionstart(session: pytest.Session) -> None:
    """Under pytest-xdist (``-n``, the README's command), fill numba's on-disk cache before the workers start.

    Each worker runs :func:`numba_kernels_compiled` before its first test. With the cache empty (a fresh
    clone, or a kernel's source just edited) both workers would compile every kernel at once, 25-40 s each;
    compiled here, in two processes at once (one per half of the kernels), the workers then load them from
    the cache in 1-2 s. This runs in the xdist controller only (before it starts the workers: xdist starts
    them in its own, later ``pytest_sessionstart``); a single-process run (``-n 0``) compiles in the fixture
    as before. A compile that fails here is not an error of its own: the fixture meets it again and fails
    the first test with numba's message."""
    config = session.config
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None) or config.option.collectonly:
        return
    procs = [subprocess.Popen([sys.executable, "-c", f"from tests.conftest import {f.__name__}; {f.__name__}()"],
                              cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # (this checkout's)
             for f in WARM_UPS]
    for p in procs:
        try:
            p.wait(timeout=600)  # (a hang here is left to the fixture, which runs under the per-test timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


@pytest.fixture
def cs747_dir() -> Path:
    """The course data folder shipped inside the package (mdpviz/examples/cs747)."""
    from mdpviz.core.examples import CS747_DIR

    assert CS747_DIR.is_dir(), f"the package's example data is missing: {CS747_DIR}"
    return CS747_DIR


@pytest.fixture(scope="session", autouse=True)
def numba_kernels_compiled():
    """Compile (or load) every numba kernel once, before any test waits on a Step or a model.

    On a fresh install numba compiles them on first use, then its cache serves them: the sweep
    kernels take 10-15 s once, the checkers compiler's 14-22 s, the risk layer's 2 s (2-core
    machine, idle). The window does that on its job thread, and a GUI test waits for the result
    within a bound meant for the work itself: CI's first run failed that way (checkers, 60 s, on
    a busy machine). Compiled here, no test's result depends on how fast this machine compiles.
    (The sweep kernel's V-prefetch version, for models of 2^19 states or more, is compiled by the
    kernel tests that use it, which wait without a bound.) Under pytest-xdist this runs once per worker and
    loads what :func:`pytest_sessionstart` compiled into numba's cache."""
    for warm_up in WARM_UPS:
        warm_up()
    yield


@pytest.fixture(autouse=True)
def no_thread_left_running():
    """Fail any test that leaves a worker thread (Qt or Python) running."""
    before = set(threading.enumerate())
    yield
    ctrl = sys.modules.get("mdpviz.controller")
    if ctrl is not None and hasattr(ctrl, "running_threads"):
        alive = ctrl.running_threads()
        if alive:
            for t in alive:  # stop them so one failure does not cascade into the next tests
                t.quit()
                t.wait(5000)
            pytest.fail(f"{len(alive)} Qt worker thread(s) still running at the end of the test")
    extra = [t for t in threading.enumerate() if t not in before and t.is_alive() and not t.daemon]
    if extra:
        pytest.fail(f"Python thread(s) left running: {[t.name for t in extra]}")


# ---------------------------------------------------------------------------------- shared test data
LAYOUT = (0, 0, 3, 0, 2, 0, 1, 0, 3, 0, 0, 1, 0, 4, 0)
"""A snakes board with every trap: prisons on 3 and 9, a penalty on 5, restarts on 7 and 12, a bonus on 14."""

SMALL_MDP = """numStates 3
numActions 2
end 2
transition 0 0 1 1 0.5
transition 0 0 0 0 0.5
transition 0 1 2 3 1.0
transition 1 0 2 2 1.0
transition 1 1 2 1 1.0
mdptype episodic
discount 0.9
"""
"""Hand-checkable: V(1) = max(2, 1) = 2 (action 0); V(0) = max(0.5 (1 + 0.9 x 2) + 0.5 x 0.9 V(0), 3):
action 0 gives 1.4 + 0.45 V(0) = 2.75 < 3 at V(0) = 3, so V(0) = 3 (action 1). With discount 0.5:
action 0 gives 1 + 0.25 x 3 = 1.75 < 3, so V(0) = 3 again."""


class FakeDialogs:
    """The window's dialogs, answering at once and recording what was asked (``strict``: any error
    message fails the test)."""

    def __init__(self, *, strict: bool = False) -> None:
        self.strict = strict
        self.errors: list[tuple[str, str]] = []
        self.asked = 0
        self.unsaved_answer = "discard"
        self.open_path = ""
        self.save_path = ""

    def error(self, title: str, text: str) -> None:
        if self.strict:
            raise AssertionError(f"{title}: {text}")
        self.errors.append((title, text))

    def ask_unsaved(self) -> str:
        self.asked += 1
        return self.unsaved_answer

    def open_file(self, *args) -> str:
        return self.open_path

    def save_file(self, *args) -> str:
        return self.save_path


def make_window(qtbot, settings_path: Path, *, dialogs: FakeDialogs | None = None, games=None,
                game: str | None = None, size: tuple[int, int] | None = None, show: bool = False,
                live: bool | None = False):
    """A MainWindow with fake dialogs and its own settings file (closed by the caller's ``shutdown``).

    ``live``: the window's "Live re-solve" (on by default in the app) as these tests want it: off unless
    a test asks (an edit then only resets the solver, as the tests of Step, Run and the edits expect;
    tests/test_live_window.py turns it on); None leaves the settings file as it is."""
    from PySide6.QtCore import QSettings

    from mdpviz.app import MainWindow

    kw = {} if games is None else {"games": games}
    settings = QSettings(str(settings_path), QSettings.Format.IniFormat)
    if live is not None:
        settings.setValue("solve/liveResolve", "true" if live else "false")
    w = MainWindow(dialogs=dialogs if dialogs is not None else FakeDialogs(), settings=settings, **kw)
    qtbot.addWidget(w)
    if size is not None:
        w.resize(*size)
    if show:
        w.show()
    if game is not None:
        w.switch_game(game)
    wait_model(w, qtbot)
    return w


def open_scenario_via_menu(window, qtbot, path=None, *, timeout: int = 60_000) -> None:
    """File > Open scenario (the fake dialog answers ``path``, if given) and wait until the job thread has
    read and checked it and the window has shown it, or said why not."""
    if path is not None:
        window.dialogs.open_path = str(path)
    window.files.open_scenario_dialog()
    qtbot.waitUntil(lambda: not window.files.opening_scenario, timeout=timeout)


def wait_model(window, qtbot, game=None, *, timeout: int = 60_000):
    """Wait until the model of ``game`` (a view; default: the shown game) is built, and for the shown game
    until the solver is loaded with it: every game's model is built by a compile job on the controller's
    job thread (the board says "building" meanwhile), so what a test asks of a model right after a window
    opens, a game is shown or an edit is made waits here, for the job's end (no sleep, no time guessed).
    Returns the model (None: the game has none, or why is its ``mdp_error``)."""
    g = window.stage.game if game is None else game

    def ready() -> bool:
        s = g.session
        if s.building:
            s.mdp()  # (a game not shown is built when its model is asked for)
            return False
        m = s.mdp()
        return m is None or g is not window.stage.game or window.controller.mdp is m

    qtbot.waitUntil(ready, timeout=timeout)
    return g.session.mdp()


@pytest.fixture
def window(qtbot, tmp_path):
    """The window at its defaults (snakes shown), fake dialogs; shut down after the test."""
    w = make_window(qtbot, tmp_path / "settings.ini")
    yield w
    w.shutdown()


@pytest.fixture
def small_file(tmp_path) -> Path:
    """:data:`SMALL_MDP` written to a file."""
    p = tmp_path / "small.txt"
    p.write_text(SMALL_MDP)
    return p


def wait_laid_out(qtbot, top, *, timeout: int = 30_000) -> None:
    """Wait until Qt has laid ``top`` out: running the event loop (waitUntil's turn between two looks)
    moves or resizes none of its widgets and none of the layout items of its pyqtgraph scenes any more.
    Layouts settle over one to a few passes after a resize, a new text or a new font; a fixed wait of
    N ms only guessed how long."""
    from PySide6.QtWidgets import QGraphicsView, QGraphicsWidget, QWidget

    def shape() -> list:
        widgets = [top, *top.findChildren(QWidget)]
        out = [w.geometry() for w in widgets]
        for v in widgets:
            if isinstance(v, QGraphicsView) and v.scene() is not None:
                out += [i.geometry() for i in v.scene().items() if isinstance(i, QGraphicsWidget)]
        return out

    last: list = []

    def still() -> bool:  # (waitUntil runs the event loop between two calls)
        now = shape()
        same = bool(last) and last[0] == now
        last[:] = [now]
        return same

    qtbot.waitUntil(still, timeout=timeout)
