"""The main window: pick a game, edit it on the board, step the solver, watch it converge, play it out.

:class:`MainWindow` wires the widgets of :mod:`mdpviz.widgets` to one
:class:`~mdpviz.controller.SolverController`, which owns the worker threads: the GUI thread never
runs a solve or a batch simulation. Sweeps arrive as immutable snapshots and are recorded; the
window redraws on a ~30 Hz timer from the recorded history (or the sweep the history slider
points at), never once per sweep. Each game is a generic :class:`mdpviz.widgets.session.GameSession`
(built from its headless spec: settings, model, jobs) and its view, a :class:`mdpviz.widgets.game.Game`
(how it is drawn and edited).

Modal dialogs go through one :class:`Dialogs` object so tests can replace it and never block.

The window is assembled from parts, one object per concern (:mod:`mdpviz.window`, listed in
:data:`PARTS`): this module builds what they share (the controller, the Solver panel, the inspector,
the plots, the player, the docks, the menus, the status line) into a :class:`~mdpviz.window.hub.Hub`,
builds the stage (:class:`~mdpviz.window.stage.StagePart`: the games and their widgets) and then each
part, handing it the hub. The parts own their state and talk through the hub's signals and their own.
"""
from __future__ import annotations

import sys
from typing import Sequence

import pyqtgraph as pg
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import QCloseEvent, QKeySequence, QUndoGroup
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow, QMenu, QStackedWidget, QToolBar

from mdpviz.controller import SolverController, hold_loads_until_first_paint, release_loads
from mdpviz.widgets import named as _named
from mdpviz.widgets.board import ColorBar
from mdpviz.widgets.convergence import ConvergencePlot
from mdpviz.widgets.game import Game
from mdpviz.widgets.game_board import GameBoard
from mdpviz.widgets.lesson import LessonPanel
from mdpviz.widgets.panels import Inspector, SolverPanel
from mdpviz.widgets.session import GameSession
from mdpviz.widgets.simulation import EpisodePlayer
from mdpviz.window.bandit import BanditPart
from mdpviz.window.classroom import ClassroomPart
from mdpviz.window.files import FilesPart
from mdpviz.window.hub import Hub, Menus, keyed_tooltip
from mdpviz.window.learning import LearningPart
from mdpviz.window.live import LivePart
from mdpviz.window.parts import (  # noqa: F401 (Dialogs, default_size, make_settings, settings_org: this module's API)
    DEFAULT_SIZE,
    GUI_SWITCH_INTERVAL,
    AfterFirstPaint,
    Dialogs,
    StatusBar,
    default_size,
    make_settings,
    settings_org,
)
from mdpviz.window.playing import PlayingPart
from mdpviz.window.search import SearchPart
from mdpviz.window.sensitivity import SensitivityPart
from mdpviz.window.solving import SolvingPart
from mdpviz.window.stage import StagePart
from mdpviz.window.view import ViewPart

PARTS = (
    ("view", ViewPart),
    ("solving", SolvingPart),
    ("learning", LearningPart),
    ("playing", PlayingPart),
    ("files", FilesPart),
    ("classroom", ClassroomPart),
    ("sensitivity", SensitivityPart),
    ("search", SearchPart),
    ("bandit", BanditPart),
    ("live", LivePart),
)
"""The window's parts after the stage, by name, in the order the window builds them (each one's
``__init__(hub)``); a new dock is its part module plus one line here. The order places their actions in
the shared menus, never who hears a signal first (live re-solve, built last, hears the solving part's
own signals)."""


class MainWindow(QMainWindow):
    """The mdpviz window (constructible with no arguments): the shared widgets, the docks, the menus and
    the parts (:attr:`parts`, each also an attribute: ``window.solving``, ``window.stage``...)."""

    def __init__(
        self,
        *,
        games: Sequence[Game] | None = None,
        dialogs: Dialogs | None = None,
        settings: QSettings | None = None,
    ) -> None:
        super().__init__()
        # Solvers and jobs run Python on worker threads. PySide6 releases the GIL around every Qt
        # call, so each call the GUI thread makes must win the GIL back, waiting up to the
        # interpreter's switch interval (5 ms by default) while a worker is busy: a redraw of
        # hundreds of calls then takes seconds and the window freezes (seen with the anti-tic-tac-toe
        # rounds). A 0.5 ms interval keeps the GUI thread's waits short at little cost to the workers.
        sys.setswitchinterval(min(sys.getswitchinterval(), GUI_SWITCH_INTERVAL))
        self.setObjectName("mainWindow")
        self.setWindowTitle("mdpviz")
        self.settings = settings if settings is not None else make_settings()
        self.dialogs = dialogs if dialogs is not None else Dialogs(self)
        self.controller = SolverController(self, warm_up=False)  # the kernels load once the window is painted
        self.hub = Hub(self, controller=self.controller, settings=self.settings, dialogs=self.dialogs)
        """What the parts share, and the signals they talk through."""
        self._shown_once = False
        """The window has been shown (the default dock sizes and the kernels' first load wait for it)."""
        self._shut = False
        """:meth:`shutdown` ran."""
        self._build_shared()
        self.stage = StagePart(self.hub, games=games)
        """The games and their widgets (the shown one: :attr:`game`, :attr:`session`, :attr:`board`)."""
        self.hub.stage = self.stage
        self.setCentralWidget(self.stage.central_tabs)
        self._build_docks()
        self.parts: dict[str, object] = {"stage": self.stage}
        """Every part by name, the stage first, then :data:`PARTS` in order."""
        for name, part_class in PARTS:  # each part builds its actions (menus in this order) and its docks
            part = part_class(self.hub)
            setattr(self.hub, name, part)
            self.parts[name] = part
        h = self.hub
        self.view, self.solving, self.learning, self.playing = h.view, h.solving, h.learning, h.playing
        self.files, self.classroom, self.sensitivity, self.live = h.files, h.classroom, h.sensitivity, h.live
        self._finish_menus()
        self.stage.wire()
        self.stage.activate(self.stage.game, initial=True)
        self.view.restore_settings()
        self.solving.redraw_timer.start()
        if self.settings.value("window/geometry") is None:
            screen = self.screen()
            self.resize(default_size(screen.availableGeometry().size()) if screen is not None else DEFAULT_SIZE)

    # ------------------------------------------------------------------ construction
    def _build_shared(self) -> None:
        """The widgets, menus and status line more than one part uses, put on the hub."""
        h = self.hub
        h.color_bar = self.color_bar = ColorBar()
        h.solver_panel = self.solver_panel = SolverPanel()
        h.inspector = self.inspector = Inspector()
        h.convergence = self.convergence = ConvergencePlot()
        # A game without sweeps may bring its own plot for the Convergence dock (the 3D game's
        # learning curve): an optional ``convergence_widget()`` method of the game.
        h.conv_stack = self.conv_stack = QStackedWidget()
        self.conv_stack.setObjectName("convergenceStack")
        self.conv_stack.addWidget(self.convergence)
        h.player = self.player = EpisodePlayer()
        h.lesson_panel = LessonPanel()  # (written when first shown: see the classroom part)
        h.state_label = self.state_label = _named(QLabel(""), "solverStateLabel", "Solver state")
        self.setStatusBar(StatusBar(self))  # a long message elided before the solver's state, not under it
        self.statusBar().setObjectName("statusBar")
        self.statusBar().addPermanentWidget(self.state_label)
        h.status = self.statusBar()
        self.undo_group = QUndoGroup(self)
        h.undo_group = self.undo_group
        mb = self.menuBar()
        file_menu = mb.addMenu("&File")
        export = QMenu("&Export figure", self)
        export.setObjectName("exportMenu")
        m = mb.addMenu("&Edit")
        self.act_undo = self.undo_group.createUndoAction(self, "&Undo")
        self.act_undo.setObjectName("undoAction")
        self.act_undo.setShortcuts([QKeySequence("Ctrl+Z")])
        self.act_redo = self.undo_group.createRedoAction(self, "&Redo")
        self.act_redo.setObjectName("redoAction")
        self.act_redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        for a in (self.act_undo, self.act_redo):  # their text follows the undo stack: the key follows the text
            a.changed.connect(lambda a=a: keyed_tooltip(a))
            keyed_tooltip(a)
            a.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            self.addAction(a)
        m.addActions([self.act_undo, self.act_redo])
        h.menus = Menus(file=file_menu, export=export, solve=mb.addMenu("&Solve"), view=mb.addMenu("&View"))

    def _build_docks(self) -> None:
        h, stage = self.hub, self.stage
        area = Qt.DockWidgetArea
        self.game_dock = h.dock("Game", "gameDock", stage.game_scroll, area.LeftDockWidgetArea)
        self.solver_dock = h.dock("Solver", "solverDock", self.solver_panel, area.RightDockWidgetArea)
        self.inspector_dock = h.dock("Inspector", "inspectorDock", self.inspector, area.RightDockWidgetArea)
        self.player_dock = h.dock("Episode player", "episodeDock", self.player, area.LeftDockWidgetArea)
        self.convergence_dock = h.dock("Convergence", "convergenceDock", self.conv_stack, area.BottomDockWidgetArea)
        self.setCorner(Qt.Corner.BottomLeftCorner, area.LeftDockWidgetArea)
        self.setCorner(Qt.Corner.BottomRightCorner, area.RightDockWidgetArea)
        self.lesson_dock = h.dock("Lesson", "lessonDock", h.lesson_panel, area.RightDockWidgetArea)
        self.tabifyDockWidget(self.inspector_dock, self.lesson_dock)
        self.inspector_dock.raise_()
        h.docks.update({
            "game": self.game_dock, "solver": self.solver_dock, "inspector": self.inspector_dock,
            "player": self.player_dock, "convergence": self.convergence_dock, "lesson": self.lesson_dock})
        self.docks = h.docks
        """The docks by panel name (see :attr:`Game.panels`)."""

    def _finish_menus(self) -> None:
        """What follows the parts' actions: File > Quit and the toolbar."""
        self.act_quit = self.hub.action("&Quit", "quitAction", self.close, QKeySequence.StandardKey.Quit)
        self.hub.menus.file.addAction(self.act_quit)
        tb = QToolBar("Main")
        tb.setObjectName("mainToolBar")
        tb.setMovable(False)
        tb.addActions([self.solving.act_step, self.solving.act_run, self.solving.act_reset])
        tb.addSeparator()
        tb.addActions([self.act_undo, self.act_redo])
        tb.addSeparator()
        tb.addAction(self.view.act_presenter)
        self.addToolBar(tb)
        self.toolbar = self.hub.toolbar = tb

    def showEvent(self, ev) -> None:  # noqa: N802
        super().showEvent(ev)
        if not self._shown_once:
            self._shown_once = True
            if not self.view.layout_restored:
                QTimer.singleShot(0, self, self.view.default_dock_sizes)
            # the kernels' first load (numba, scipy: ~0.5 s holding the GIL on the job thread) would
            # slow the window's first paint: it starts once the shown board has been painted, with
            # the solver thread's first load (held by ``run``, see hold_loads_until_first_paint)
            AfterFirstPaint(self.stage.board_stack.currentWidget(), self._after_first_paint)

    def _after_first_paint(self) -> None:
        release_loads()
        self.controller.warm_up_kernels()

    # ------------------------------------------------------------------ the shown game (the stage's)
    @property
    def game(self) -> Game:
        """The shown game."""
        return self.stage.game

    @property
    def session(self) -> GameSession:
        """The shown game's session."""
        return self.stage.session

    @property
    def board(self) -> GameBoard:
        """The shown game's board."""
        return self.stage.board

    def switch_game(self, key: str) -> None:
        """Show game ``key`` (see :meth:`~mdpviz.window.stage.StagePart.switch_game`)."""
        self.stage.switch_game(key)

    # ------------------------------------------------------------------ closing
    def shutdown(self) -> None:
        """Stop timers and worker threads and save the layout (idempotent)."""
        if self._shut:
            return
        self._shut = True
        self.hub.shutting_down.emit()  # the parts stop their timers, the episode player and image exports
        self.view.save_settings()
        self.controller.shutdown()

    def closeEvent(self, ev: QCloseEvent) -> None:  # noqa: N802
        if self.files.dirty:
            ans = self.dialogs.ask_unsaved()
            if ans == "cancel" or (ans == "save" and not self.files.save_scenario_dialog()):
                ev.ignore()
                return
        self.shutdown()
        ev.accept()


def run(argv: Sequence[str] | None = None) -> int:
    """Open the window and run the Qt event loop; returns the exit status (what ``mdpviz`` calls)."""
    app = QApplication.instance()
    if app is None:
        from mdpviz.startup_check import explain_missing_display

        problem = explain_missing_display()  # before Qt can abort the process (see mdpviz.startup_check)
        if problem:
            print(problem, file=sys.stderr)
            return 2
        app = QApplication(list(argv) if argv is not None else sys.argv)
    app.setOrganizationName(settings_org())
    app.setApplicationName("mdpviz")
    pg.setConfigOptions(antialias=True)
    hold_loads_until_first_paint()
    w = MainWindow()
    # What the start built (modules, classes, the window) lives as long as the process: frozen out of
    # the cyclic collector, whose collections on the GUI thread (the window's controller runs them, see
    # GuiThreadCollector) then never walk it again (~50 ms each time, the first one right after the
    # first paint otherwise).
    import gc

    gc.freeze()
    w.show()
    try:
        return int(app.exec())
    finally:
        release_loads()


__all__ = ["Dialogs", "MainWindow", "make_settings", "run", "settings_org"]
