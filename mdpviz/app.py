"""The main window: pick a game, edit it on the board, step the solver, watch it converge, play it out.

:class:`MainWindow` wires the widgets of :mod:`mdpviz.widgets` to one
:class:`~mdpviz.controller.SolverController`, which owns the worker threads: the GUI thread never
runs a solve or a batch simulation. Sweeps arrive as immutable snapshots and are recorded; the
window redraws on a ~30 Hz timer from the recorded history (or the sweep the history slider
points at), never once per sweep. Games plug in through :class:`mdpviz.widgets.game.Game`.

Modal dialogs go through one :class:`Dialogs` object so tests can replace it and never block.
"""
from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path
from typing import Callable, Iterator, Mapping, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QByteArray, QSettings, QSize, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QFont, QKeySequence, QUndoGroup
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDockWidget,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QScrollArea,
    QSizePolicy,
    QStackedWidget,
    QTabBar,
    QTabWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from mdpviz.controller import SolverController, ValueRange
from mdpviz.models.value_range import range_scale
from mdpviz.models.cs747 import MDPFileError
from mdpviz.scenario import Scenario, ScenarioError, load_scenario, save_scenario
from mdpviz.solvers import METHOD_NAMES, Solution, Sweep
from mdpviz.solvers.value_iteration import default_block_size
from mdpviz.widgets.board import BoardView, ColorBar
from mdpviz.models.colors import SEQUENTIAL, ColorScale, scale_for
from mdpviz.widgets.convergence import ConvergencePlot, render_svg, set_legend_font
from mdpviz.models.display import (
    ActionBackup,
    Inspection,
    backup_q,
    backup_text,
    backup_values,
    board_frame,
    board_q,
    greedy_action,
    merge_terms,
    results_csv,
    sweep_caption,
)
from mdpviz.widgets.game import Game, GameJob, SimulationResult
from mdpviz.widgets.games import default_games
from mdpviz.widgets.panels import Inspector, SolverPanel
from mdpviz.widgets.simulation import EpisodePlayer, SimulationPanel
from mdpviz import export as lesson_export
from mdpviz.widgets.compare import ComparePanel, compare_job
from mdpviz.widgets.delta import delta_frame, delta_scale
from mdpviz.widgets.lesson import LessonPanel
from mdpviz.widgets import named as _named

REDRAW_MS = 33
"""Redraw period of the board and inspector (about 30 frames per second)."""

PLOT_MIN_INTERVAL = 0.1
"""During Run the convergence plot redraws at most every 0.1 s: repainting pyqtgraph's axes and a
curve of thousands of sweeps is the most expensive part of a frame (measured), and 10 Hz still
shows it growing."""

DEFAULT_SIZE = QSize(1600, 900)
"""Window size when no layout was saved yet, on a screen that has room for it (see :func:`default_size`)."""

TITLE_BAR = 40
"""Pixels kept free above the window for the window manager's title bar."""


def default_size(available: QSize) -> QSize:
    """The first window size on a screen whose free area (without task bars) is ``available``:
    :data:`DEFAULT_SIZE`, made smaller to fit, title bar included (a 1366x768 laptop with a task
    bar gets about 1366x690, so the status bar and the plot's axis stay on screen)."""
    return QSize(min(DEFAULT_SIZE.width(), available.width()),
                 min(DEFAULT_SIZE.height(), max(available.height() - TITLE_BAR, 400)))

PRESENTER_SCALE = 1.5
"""Font scale of presenter mode."""

Q_VIEW_MAX_STATES = 200_000
"""The Q toggle draws every action's Q on cell boards up to this many states (one backup per redraw)."""


def settings_org() -> str:
    """QSettings organisation: $MDPVIZ_SETTINGS_ORG (tests set it), default "mdpviz"."""
    return os.environ.get("MDPVIZ_SETTINGS_ORG", "mdpviz") or "mdpviz"


def make_settings() -> QSettings:
    """The window's QSettings (organisation from :func:`settings_org`, application "mdpviz")."""
    return QSettings(settings_org(), "mdpviz")


class Dialogs:
    """The window's modal dialogs in one place; tests pass a stand-in that answers at once."""

    def __init__(self, parent: QWidget) -> None:
        self.parent = parent

    def error(self, title: str, text: str) -> None:
        QMessageBox.critical(self.parent, title, text)

    def ask_unsaved(self) -> str:
        """"save", "discard" or "cancel" for unsaved edits."""
        b = QMessageBox.question(
            self.parent, "Unsaved edits", "The scenario has unsaved edits. Save them before quitting?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        return {QMessageBox.StandardButton.Save: "save", QMessageBox.StandardButton.Discard: "discard"}.get(b, "cancel")

    def open_file(self, title: str, directory: str, filters: str) -> str:
        return QFileDialog.getOpenFileName(self.parent, title, directory, filters)[0]

    def save_file(self, title: str, directory: str, filters: str) -> str:
        return QFileDialog.getSaveFileName(self.parent, title, directory, filters)[0]


class StateNames(Mapping[int, str]):
    """The names of states ``0 .. n_states - 1``, each made by ``name(s)`` when first asked for
    (then kept): a read-only mapping that costs nothing for the states nobody looks at."""

    def __init__(self, name: Callable[[int], str], n_states: int) -> None:
        self._name = name
        self._n = int(n_states)
        self._made: dict[int, str] = {}

    def __getitem__(self, s: int) -> str:
        if not isinstance(s, (int, np.integer)) or not 0 <= s < self._n:
            raise KeyError(s)
        s = int(s)
        if s not in self._made:
            self._made[s] = self._name(s)
        return self._made[s]

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[int]:
        return iter(range(self._n))




GUI_SWITCH_INTERVAL = 0.0005
"""Seconds a worker thread may hold the GIL while the GUI thread waits for it (see MainWindow)."""


class MainWindow(QMainWindow):
    """The mdpviz window (constructible with no arguments)."""

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
        self.controller = SolverController(self)
        self.games: list[Game] = list(games) if games is not None else default_games(self)
        for g in self.games:
            if g.parent() is None:
                g.setParent(self)
        self.game: Game = self.games[0]
        self.scale: ColorScale | None = None
        self.view_index: int | None = None  # None: follow the newest sweep
        self.selected: int | None = None
        self.scenario_path: Path | None = None
        self.sim_result: SimulationResult | None = None
        self._sim_token = 0
        self._running_sim_token = -1
        self._dirty = True
        self._plot_time = 0.0
        self._episode_seed = np.random.SeedSequence(20240).generate_state(1)[0]
        self._episode_count = 0
        self._layout_key: tuple | None = None
        self._base_font = QFont(self.font())
        self.presenter = False
        self._normal_state: QByteArray | None = None
        self._normal_hidden: set[str] = set()
        self._selected_file: str | None = None

        self._build_widgets()
        self._build_docks()
        self._build_actions()
        self._connect()
        self.undo_group.setActiveStack(self.game.undo_stack)
        self._activate(self.game, initial=True)
        self._restore_settings()
        self._saved_solver = self._solver_settings()  # solver settings differing from it are unsaved edits

        self.redraw_timer = QTimer(self)
        self.redraw_timer.setInterval(REDRAW_MS)
        self.redraw_timer.timeout.connect(self.redraw)
        self.redraw_timer.start()
        if self.settings.value("window/geometry") is None:
            screen = self.screen()
            self.resize(default_size(screen.availableGeometry().size()) if screen is not None else DEFAULT_SIZE)

    # ------------------------------------------------------------------ construction
    def _build_widgets(self) -> None:
        self.game_picker = _named(QComboBox(), "gamePicker", "Game")
        for g in self.games:
            self.game_picker.addItem(g.title, g.key)
        self.game_picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.game_picker.setMinimumContentsLength(12)
        self.game_picker.setToolTip("The game to solve; each game keeps its own edits")
        self.board = BoardView()
        self.color_bar = ColorBar()
        central = QWidget()
        central.setObjectName("boardArea")
        lay = QHBoxLayout(central)
        lay.setContentsMargins(4, 4, 4, 4)
        # A game may bring its own board widget (board games: one position at a time) and simulation
        # panel; the stacks show the active game's (see Game.board_widget / Game.simulation_widget).
        self.board_stack = QStackedWidget()
        self.board_stack.setObjectName("boardStack")
        self.board_stack.addWidget(self.board)
        self.game_boards: dict[str, QWidget] = {}
        for g in self.games:
            bw = g.board_widget()
            if bw is not None:
                self.game_boards[g.key] = bw
                self.board_stack.addWidget(bw)
                if hasattr(bw, "scale_changed"):  # the colour bar follows the shown position's scale
                    bw.scale_changed.connect(lambda sc, k=g.key: self._on_board_scale(k, sc))
        self._game_job: GameJob | None = None
        lay.addWidget(self.board_stack, 1)
        lay.addWidget(self.color_bar)
        self.board_area = central
        """The board and its colour bar (the "Board" page of the central tabs; what Export > Board saves)."""
        self.central_tabs = _named(QTabWidget(), "centralTabs", "Board and results")
        self.central_tabs.setDocumentMode(True)
        self.central_tabs.addTab(central, "Board")
        self.setCentralWidget(self.central_tabs)
        self.solver_panel = SolverPanel()
        self.inspector = Inspector()
        self.convergence = ConvergencePlot()
        # A game without sweeps may bring its own plot for the Convergence dock (the 3D game's
        # learning curve): an optional ``convergence_widget()`` method of the game.
        self.conv_stack = QStackedWidget()
        self.conv_stack.setObjectName("convergenceStack")
        self.conv_stack.addWidget(self.convergence)
        self.game_convs: dict[str, QWidget] = {}
        for g in self.games:
            cw = getattr(g, "convergence_widget", lambda: None)()
            if cw is not None:
                self.game_convs[g.key] = cw
                self.conv_stack.addWidget(cw)
        self.simulation = SimulationPanel()
        self.sim_stack = QStackedWidget()
        self.sim_stack.setObjectName("simulationStack")
        self.sim_stack.addWidget(self.simulation)
        self.game_sims: dict[str, QWidget] = {}
        for g in self.games:
            sw = g.simulation_widget()
            if sw is not None:
                self.game_sims[g.key] = sw
                self.sim_stack.addWidget(sw)
        self.player = EpisodePlayer()
        self.lesson_panel = LessonPanel()
        self.compare_panel = ComparePanel()
        # results get the board's room: simulation (matchups) and the comparison are pages of the central tabs
        self.central_tabs.addTab(self.sim_stack, "Simulation")
        self.central_tabs.addTab(self.compare_panel, "Compare methods")
        self.pages: dict[str, QWidget] = {"board": central, "simulation": self.sim_stack, "compare": self.compare_panel}
        """The pages of the central tabs, by panel name (see :attr:`Game.panels`)."""
        self._plot_hidden_for_results = False
        self.central_tabs.currentChanged.connect(self._on_page_changed)
        self.editor_stack = QStackedWidget()
        self.editor_stack.setObjectName("gameEditors")
        for g in self.games:
            ed = g.editor()
            self.editor_stack.addWidget(ed if ed is not None else QLabel("Nothing to edit for this game."))
        self.state_label = _named(QLabel(""), "solverStateLabel", "Solver state")
        self.statusBar().setObjectName("statusBar")
        self.statusBar().addPermanentWidget(self.state_label)

    def _dock(self, title: str, name: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        d = QDockWidget(title, self)
        d.setObjectName(name)
        d.setAccessibleName(title)
        d.setWidget(widget)
        d.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                      | QDockWidget.DockWidgetFeature.DockWidgetClosable)
        self.addDockWidget(area, d)
        return d

    def _build_docks(self) -> None:
        game_box = QWidget()
        v = QVBoxLayout(game_box)
        v.setContentsMargins(4, 4, 4, 4)
        v.addWidget(self.game_picker)
        v.addWidget(self.editor_stack, 1)
        scroll = QScrollArea()
        scroll.setObjectName("gameScroll")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # scrolls only in presenter mode, where the editor shares a tab with the inspector (a word-wrapped
        # label otherwise makes Qt show a needless scroll bar for 2 pixels)
        scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(game_box)
        self.game_scroll = scroll
        scroll.setMinimumWidth(game_box.minimumSizeHint().width() + 16)
        self.game_dock = self._dock("Game", "gameDock", scroll, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.solver_dock = self._dock("Solver", "solverDock", self.solver_panel, Qt.DockWidgetArea.RightDockWidgetArea)
        self.inspector_dock = self._dock("Inspector", "inspectorDock", self.inspector, Qt.DockWidgetArea.RightDockWidgetArea)
        self.player_dock = self._dock("Episode player", "episodeDock", self.player, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.convergence_dock = self._dock("Convergence", "convergenceDock", self.conv_stack,
                                           Qt.DockWidgetArea.BottomDockWidgetArea)
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        self.lesson_dock = self._dock("Lesson", "lessonDock", self.lesson_panel, Qt.DockWidgetArea.RightDockWidgetArea)
        self.tabifyDockWidget(self.inspector_dock, self.lesson_dock)
        self.inspector_dock.raise_()
        self.docks: dict[str, QDockWidget] = {
            "game": self.game_dock, "solver": self.solver_dock, "inspector": self.inspector_dock,
            "player": self.player_dock, "convergence": self.convergence_dock, "lesson": self.lesson_dock}
        """The docks by panel name (see :attr:`Game.panels`)."""
        self._hidden_by_game: set[str] = set()
        self._shown_once = False
        self._layout_restored = False

    def _default_dock_sizes(self) -> None:
        """Dock sizes of the default layout, as fractions of the window (applied once shown)."""
        w, h = max(self.width(), 800), max(self.height(), 500)
        self.resizeDocks([self.game_dock, self.solver_dock], [int(w * 0.16), int(w * 0.27)], Qt.Orientation.Horizontal)
        self.resizeDocks([self.convergence_dock], [int(h * 0.36)], Qt.Orientation.Vertical)
        self.resizeDocks([self.solver_dock, self.inspector_dock], [int(h * 0.36), int(h * 0.64)], Qt.Orientation.Vertical)
        self.resizeDocks([self.game_dock, self.player_dock], [int(h * 0.55), int(h * 0.45)], Qt.Orientation.Vertical)

    def showEvent(self, ev) -> None:  # noqa: N802
        super().showEvent(ev)
        if not self._shown_once:
            self._shown_once = True
            if not self._layout_restored:
                QTimer.singleShot(0, self, self._default_dock_sizes)

    def _action(self, text: str, name: str, slot, shortcut=None, *, tip: str = "", checkable: bool = False) -> QAction:
        a = QAction(text, self)
        a.setObjectName(name)
        if shortcut is not None:
            if isinstance(shortcut, (list, tuple)):
                a.setShortcuts([QKeySequence(s) for s in shortcut])
            else:
                a.setShortcut(QKeySequence(shortcut))
            a.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        a.setCheckable(checkable)
        if tip:
            a.setStatusTip(tip)
            a.setToolTip(tip)
        a.triggered.connect(slot)
        self.addAction(a)
        return a

    def _build_actions(self) -> None:
        self.undo_group = QUndoGroup(self)
        for g in self.games:
            self.undo_group.addStack(g.undo_stack)
        mb = self.menuBar()
        m = mb.addMenu("&File")
        self.act_open = self._action("&Open scenario\u2026", "openScenarioAction", self.open_scenario_dialog,
                                     QKeySequence.StandardKey.Open)
        self.act_save = self._action("&Save scenario", "saveScenarioAction", self.save_scenario_dialog,
                                     QKeySequence.StandardKey.Save)
        self.act_save_as = self._action("Save scenario &as\u2026", "saveScenarioAsAction",
                                        lambda: self.save_scenario_dialog(ask=True), "Ctrl+Shift+S")
        self.act_open_mdp = self._action("Open course &MDP file\u2026", "openMdpAction", self.open_mdp_dialog, "Ctrl+M")
        m.addActions([self.act_open, self.act_save, self.act_save_as])
        m.addSeparator()
        m.addAction(self.act_open_mdp)
        self._build_example_menu(m)
        m.addSeparator()
        ex = m.addMenu("&Export figure")
        ex.setObjectName("exportMenu")
        self.act_export_board = self._action("Board\u2026", "exportBoardAction", lambda: self.export_dialog("board"),
                                             "Ctrl+E")
        self.act_export_conv = self._action("Convergence plot\u2026", "exportConvergenceAction",
                                            lambda: self.export_dialog("convergence"))
        self.act_export_hist = self._action("Histogram\u2026", "exportHistogramAction",
                                            lambda: self.export_dialog("histogram"))
        self.act_export_csv = self._action("Simulation table (CSV)\u2026", "exportCsvAction", self.export_csv_dialog)
        ex.addActions([self.act_export_board, self.act_export_conv, self.act_export_hist, self.act_export_csv])
        self._build_classroom_actions(ex)
        m.addSeparator()
        self.act_quit = self._action("&Quit", "quitAction", self.close, QKeySequence.StandardKey.Quit)
        m.addAction(self.act_quit)

        m = mb.addMenu("&Edit")
        self.act_undo = self.undo_group.createUndoAction(self, "&Undo")
        self.act_undo.setObjectName("undoAction")
        self.act_undo.setShortcuts([QKeySequence("Ctrl+Z")])
        self.act_redo = self.undo_group.createRedoAction(self, "&Redo")
        self.act_redo.setObjectName("redoAction")
        self.act_redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        for a in (self.act_undo, self.act_redo):
            a.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            self.addAction(a)
        m.addActions([self.act_undo, self.act_redo])

        m = mb.addMenu("&Solve")
        self.act_step = self._action("&Step", "stepAction", self.step, "Space", tip="One sweep (policy iteration: one round)")
        self.act_eval = self._action("&Evaluate", "evaluateAction", self.controller.step, tip="Policy iteration: evaluate")
        self.act_improve = self._action("&Improve", "improveAction", self.controller.step, tip="Policy iteration: improve")
        self.act_run = self._action("&Run / pause", "runAction", self.toggle_run, "R", tip="Run to convergence or pause")
        self.act_pause = self._action("&Pause", "pauseAction", self.pause_solver, tip="Pause the run")
        self.act_stop = self._action("S&top", "stopAction", self.stop, "Esc", tip="Pause the solver and the episode player")
        self.act_reset = self._action("Rese&t", "resetAction", self.reset_action, "Ctrl+R", tip="Start the solve again")
        m.addActions([self.act_step, self.act_eval, self.act_improve, self.act_run, self.act_pause, self.act_stop,
                      self.act_reset])
        m.addSeparator()
        self.act_simulate = self._action("Si&mulate", "simulateAction", self._simulate_from_panel, "Ctrl+Return",
                                         tip="Batch simulation of every strategy")
        m.addAction(self.act_simulate)
        m.addAction(self.act_compare)

        m = mb.addMenu("&View")
        self.act_presenter = self._action("&Presenter mode", "presenterAction", self.set_presenter, "F5",
                                          tip="Everything larger, for a projector", checkable=True)
        m.addAction(self.act_presenter)
        self.act_reset_layout = self._action("Reset &layout", "resetLayoutAction", self.reset_layout)
        m.addAction(self.act_reset_layout)
        m.addSeparator()
        for d in (self.game_dock, self.solver_dock, self.inspector_dock, self.player_dock, self.convergence_dock,
                  self.lesson_dock):
            m.addAction(d.toggleViewAction())
        m.addSeparator()
        m.addActions([self.act_predict, self.act_delta, self.act_contrast, self.act_q])

        tb = QToolBar("Main")
        tb.setObjectName("mainToolBar")
        tb.setMovable(False)
        tb.addActions([self.act_step, self.act_run, self.act_reset])
        tb.addSeparator()
        tb.addActions([self.act_undo, self.act_redo])
        tb.addSeparator()
        tb.addAction(self.act_presenter)
        self.addToolBar(tb)
        self.toolbar = tb

    def _connect(self) -> None:
        c = self.controller
        c.sweep_ready.connect(self._on_sweep)
        c.history_reset.connect(self._on_history_reset)
        c.range_ready.connect(self._on_range)
        c.state_changed.connect(self._on_state)
        c.finished.connect(self._on_finished)
        c.failed.connect(self._on_failed)
        c.job_progress.connect(self._on_job_progress)
        c.job_partial.connect(self._on_job_partial)
        c.job_finished.connect(self._on_job_finished)
        c.job_failed.connect(self._on_job_failed)
        c.job_cancelled.connect(self._on_job_cancelled)
        p = self.solver_panel
        p.step.clicked.connect(self.step)
        p.evaluate.clicked.connect(self.controller.step)
        p.improve.clicked.connect(self.controller.step)
        p.run.clicked.connect(self.run_solver)
        p.pause.clicked.connect(self.pause_solver)
        p.reset.clicked.connect(self.reset_action)
        p.method_changed.connect(lambda _m: self.reset_solver())
        p.tolerance_changed.connect(lambda _t: self.reset_solver())
        p.method_changed.connect(lambda _m: self._update_title())  # solver settings are saved edits too
        p.tolerance_changed.connect(lambda _t: self._update_title())
        p.discount_changed.connect(self._on_discount)
        p.speed_changed.connect(self.controller.set_rate)
        p.history_moved.connect(self._on_history_moved)
        p.invalid_input.connect(lambda msg: self.statusBar().showMessage(msg, 8000))
        self.game_picker.currentIndexChanged.connect(lambda i: self.switch_game(self.games[i].key))
        self.board.cell_clicked.connect(self._on_cell_clicked)
        self.board.cell_menu_requested.connect(self._on_cell_menu)
        self.simulation.simulate_requested.connect(self.start_simulation)
        self.simulation.cancel_requested.connect(self.controller.cancel_job)
        self.simulation.export_csv_requested.connect(self.export_csv_dialog)
        self.simulation.export_plot_requested.connect(lambda: self.export_dialog("histogram"))
        self.player.new_requested.connect(self.new_episode)
        self.player.position_changed.connect(self._on_token)
        self.undo_group.cleanChanged.connect(lambda _c: self._update_title())
        self.compare_panel.compare_requested.connect(self.compare_methods)
        self.compare_panel.cancel_requested.connect(self.cancel_game_job)
        self.compare_panel.export_csv_requested.connect(self.export_comparison_dialog)
        self.lesson_panel.copied.connect(lambda text: self.statusBar().showMessage(text, 4000))
        for key, sim in self.game_sims.items():
            sim.simulate_requested.connect(self.start_simulation)
            sim.cancel_requested.connect(self.controller.cancel_job)
            sim.export_csv_requested.connect(self.export_csv_dialog)
            sim.export_plot_requested.connect(lambda: self.export_dialog("histogram"))
        for key, bw in self.game_boards.items():
            if hasattr(bw, "inspect_requested"):
                bw.inspect_requested.connect(
                    lambda s, key=key: self.inspect(s if s >= 0 else None) if self.game.key == key else None)
            if hasattr(bw, "job_message"):  # a board's note (e.g. why a position cannot be shown)
                bw.job_message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        for g in self.games:
            g.job_requested.connect(self.start_game_job)
            g.job_cancel.connect(self.cancel_game_job)
            g.edited.connect(lambda text, g=g: self._on_game_edited(g, text))
            g.message.connect(lambda text: self.statusBar().showMessage(text, 8000))
            g.redraw.connect(lambda g=g: self._on_game_redraw(g))
            ed = g.editor()
            if ed is not None and hasattr(ed, "open_requested"):
                ed.open_requested.connect(self.open_mdp_dialog)

    # ------------------------------------------------------------------ games
    def game_by_key(self, key: str) -> Game:
        for g in self.games:
            if g.key == key:
                return g
        raise ValueError(f"no game {key!r}; games: {', '.join(g.key for g in self.games)}")

    def switch_game(self, key: str) -> None:
        """Show game ``key``; each game keeps its own edits (and undo history)."""
        g = self.game_by_key(key)
        if g is self.game:
            return
        self._activate(g)

    def _activate(self, g: Game, *, initial: bool = False) -> None:
        self.game = g
        i = self.games.index(g)
        if self.game_picker.currentIndex() != i:
            self.game_picker.blockSignals(True)
            self.game_picker.setCurrentIndex(i)
            self.game_picker.blockSignals(False)
        self.editor_stack.setCurrentIndex(i)
        self.board_stack.setCurrentWidget(self.game_boards.get(g.key, self.board))
        # a board with its own colour bar (the grid world's diverging map) replaces the shared one
        self.color_bar.setVisible(not getattr(self.game_boards.get(g.key), "has_color_bar", False))
        self.sim_stack.setCurrentWidget(self.sim_panel)
        for stack in (self.board_stack, self.sim_stack):  # size each stack to its shown page only
            for k in range(stack.count()):
                pol = QSizePolicy.Policy.Expanding if k == stack.currentIndex() else QSizePolicy.Policy.Ignored
                stack.widget(k).setSizePolicy(pol, pol)
        self.conv_stack.setCurrentWidget(self.game_convs.get(g.key, self.convergence))
        self.convergence_dock.setWindowTitle(g.convergence_title)  # e.g. the 3D game's "Learning curve"
        self.convergence_dock.setAccessibleName(g.convergence_title)
        for k in range(self.editor_stack.count()):  # size the stack to the shown editor only
            pol = QSizePolicy.Policy.Preferred if k == i else QSizePolicy.Policy.Ignored
            self.editor_stack.widget(k).setSizePolicy(pol, pol)
        self.editor_stack.adjustSize()
        self.undo_group.setActiveStack(g.undo_stack)
        self._apply_panels()
        self.selected = None
        self.board.state_names = {}
        self._refresh_board_layout(force=True)
        self._model_changed(f"{g.title}" if not initial else "")
        gb = self.game_boards.get(g.key)
        pos = getattr(gb, "position", None)
        self.inspect(pos.state if pos is not None and pos.state >= 0 else None)
        self._update_title()

    def _on_game_edited(self, g: Game, text: str) -> None:
        if g is not self.game:
            return
        self._apply_panels()
        path = getattr(g.state, "path", None)
        if path != self._selected_file:  # another MDP file: its states are not the old file's
            self._selected_file = path
            self.selected = None
            self.inspector.show_inspection(None)
        self._refresh_board_layout(force=True)
        self._model_changed(f"Edited ({text}): the solution is stale and the solver was reset.")

    def _on_game_redraw(self, g: Game) -> None:
        if g is self.game:
            self._apply_panels()
            self._refresh_board_layout(force=True)

    # ------------------------------------------------------------------ panels each game uses
    def show_page(self, name: str) -> None:
        """Bring a page of the central tabs to the front: "board", "simulation" or "compare"."""
        self.central_tabs.setCurrentWidget(self.pages[name])

    def _on_page_changed(self, _index: int = -1) -> None:
        """A results page takes the plot's room too: the Convergence dock (bottom) is hidden while a
        results page is shown, and comes back with the board."""
        board = self.central_tabs.currentWidget() is self.pages["board"]
        d = self.convergence_dock
        if not board and not d.isHidden() and not d.isFloating():
            d.hide()
            self._plot_hidden_for_results = True
        elif board and self._plot_hidden_for_results:
            self._plot_hidden_for_results = False
            if "convergence" in self.game.panels:
                d.show()

    def _save_layout(self) -> QByteArray:
        """saveState() as the layout would be with the board shown (the plot a results page hid included)."""
        if not self._plot_hidden_for_results:
            return self.saveState()
        self.convergence_dock.show()
        try:
            return self.saveState()
        finally:
            self.convergence_dock.hide()

    def _apply_panels(self) -> None:
        """Show the panels the shown game uses (:attr:`Game.panels`) and hide the rest. A dock hidden
        here comes back when a game that uses it is shown; one the user closed stays closed."""
        want = self.game.panels
        for name, d in self.docks.items():
            used = name in want
            d.toggleViewAction().setEnabled(used)
            if not used:
                if not d.isHidden():
                    d.hide()
                    self._hidden_by_game.add(name)
            elif name in self._hidden_by_game:
                self._hidden_by_game.discard(name)
                d.show()
        tabs = self.central_tabs
        for name, page in self.pages.items():
            tabs.setTabVisible(tabs.indexOf(page), name == "board" or name in want)
        if not tabs.isTabVisible(tabs.currentIndex()):
            tabs.setCurrentIndex(0)
        self._hide_orphan_tab_bars()

    def _hide_orphan_tab_bars(self) -> None:
        """Hide dock tab bars that no group of tabbed docks uses any more. Qt 6.11's restoreState leaves
        the tab bar of a group it rebuilt visible, painted over the docks (leaving presenter mode showed
        one more stray bar each time, measured); the live bar of a group is the newest one with its tabs."""
        groups = set()
        for d in self.docks.values():
            if d.isHidden() or d.isFloating():
                continue
            group = frozenset([d.windowTitle(), *(t.windowTitle() for t in self.tabifiedDockWidgets(d) if not t.isHidden())])
            if len(group) > 1:
                groups.add(group)
        seen = set()
        bars = self.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly)
        for bar in reversed(bars):
            titles = frozenset(bar.tabText(i) for i in range(bar.count()))
            if titles not in groups or titles in seen:
                bar.hide()
            else:
                seen.add(titles)
                bar.setElideMode(Qt.TextElideMode.ElideNone)  # whole titles (scroll buttons if they do not fit)
                bar.setUsesScrollButtons(True)

    def visible_tab_bars(self) -> list[tuple[str, ...]]:
        """The tabs of every visible dock tab bar, sorted (what a test of the layout compares)."""
        bars = self.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly)
        return sorted(tuple(sorted(b.tabText(i) for i in range(b.count()))) for b in bars if b.isVisible())

    def _model_changed(self, message: str) -> None:
        """The model (or the game) changed: reset the solver, forget simulations and the episode."""
        g = self.game
        mdp = g.mdp()
        self.solver_panel.set_discount(None if mdp is None else mdp.discount, editable=g.supports_discount,
                                       why=g.discount_tooltip())
        if self.controller.job_busy:
            self.controller.cancel_job()
        self._sim_token += 1
        self.sim_result = None
        self.simulation.clear()
        if self.sim_panel is not self.simulation:
            self.sim_panel.clear()
        self.player.clear()
        self.player.set_strategies(g.strategies(mdp) if mdp is not None else [])
        self._classroom_model_changed()
        if mdp is None and self.selected is not None:
            self.selected = None
        if self.selected is not None and mdp is not None and self.selected >= mdp.n_states:
            self.selected = None
        self.reset_solver()
        err = g.mdp_error()
        if err:
            self.statusBar().showMessage(f"{g.title}: {err}", 10000)
        elif message:
            self.statusBar().showMessage(message, 6000)

    def _refresh_board_layout(self, *, force: bool = False, policy: np.ndarray | None = None) -> None:
        g = self.game
        mdp = g.mdp()
        key = (id(g), id(mdp), getattr(g, "view", None), None if policy is None else policy.tobytes())
        if not force and key == self._layout_key:
            return
        self._layout_key = key
        if g.key in self.game_boards:  # the game draws its own board: no cell layout or state names to build
            self._dirty = True
            return
        self.board.set_board(g.board_layout(mdp, policy), g.decor())
        self.board.set_policy_glyph(*g.policy_glyph())
        # named on demand (a tooltip, a caption): naming all 1.29M states of checkers took 2.4 s here
        self.board.state_names = {} if mdp is None else StateNames(g.state_name, mdp.n_states)
        self._dirty = True

    # ------------------------------------------------------------------ solver
    def solver_options(self) -> dict:
        m = self.solver_panel.method
        return {"tol": self.solver_panel.tol} if m in ("vi", "gs") else {}

    def reset_solver(self) -> None:
        """Load a fresh solver for the current model, method and options (Reset)."""
        mdp = self.game.mdp()
        self.view_index = None
        self.scale = getattr(self.game, "fixed_scale", None)  # a game without solves may fix its own scale
        self.color_bar.show_scale(self.scale)
        self.controller.reset(mdp, self.solver_panel.method, **self.solver_options())
        if mdp is not None and getattr(self.game, "solve_after_reset", lambda: False)():
            self.controller.run(math.inf)  # the game's Step already decided: show that solve (anti-tic-tac-toe)
        self._dirty = True

    # A game whose Step is its own (anti-tic-tac-toe's best-response rounds) says so with
    # ``drives_steps = True`` and provides window_step / window_run / window_pause / window_reset /
    # window_can_step / window_running; the window's one Step, Run, Pause and Reset then drive it.
    def _drives(self) -> bool:
        return bool(getattr(self.game, "drives_steps", False))

    def reset_action(self) -> None:
        """The Reset button: the game's own reset (rounds back to 0) or a fresh solver."""
        if self._drives():
            self.game.window_reset()
        self.reset_solver()

    def pause_solver(self) -> None:
        """The Pause button."""
        if self._drives():
            self.game.window_pause()
        self.controller.pause()

    def step(self) -> None:
        """Step: one sweep, or one full round (evaluate + improve) of policy iteration."""
        if self._drives():
            self.game.window_step()
            return
        if self.controller.method == "pi":
            self.controller.step_round()
        else:
            self.controller.step()

    def run_solver(self) -> None:
        self.view_index = None
        if self._drives():
            self.game.window_run()
            return
        self.controller.run(self.solver_panel.rate)

    def toggle_run(self) -> None:
        if self._drives():
            self.pause_solver() if self.game.window_running() else self.run_solver()
            return
        if self.controller.state == "running":
            self.controller.pause()
        else:
            self.run_solver()

    def stop(self) -> None:
        """Esc: pause the solver and the episode player (and stop writing an image sequence)."""
        self.pause_solver()
        self.player.pause()
        if self._frame_writer is not None:
            self._frame_writer.cancel()

    def _on_discount(self, gamma: float) -> None:
        try:
            self.game.set_discount(gamma)
        except ValueError as e:
            self.statusBar().showMessage(str(e), 8000)

    def _on_sweep(self, sw: Sweep) -> None:
        self.convergence.append(sw)
        self._dirty = True

    def _on_history_reset(self) -> None:
        m = self.controller.method
        tol = self.controller.options.get("tol") if m in ("vi", "gs") else None
        self.convergence.reset(tol=tol, x_label="step (evaluate / improve)" if m == "pi" else "sweep")
        self._dirty = True

    def _on_range(self, rng: ValueRange) -> None:
        """The solve's value range (the optimal values, or the values seen so far): the colour scale
        spans it, fixed for the solve (a board game's board narrows it to the shown position)."""
        self.scale = range_scale(rng.lo, rng.hi, label=self.game.value_label,
                                 kind=getattr(self.game, "color_kind", SEQUENTIAL))
        if not self.delta_view:
            self.color_bar.show_scale(self.scale)
        self._dirty = True

    def _on_board_scale(self, key: str, scale: ColorScale | None) -> None:
        if key == self.game.key and scale is not None and not self.delta_view:
            self.color_bar.show_scale(scale)

    def _on_state(self, state: str) -> None:
        self._dirty = True
        self._update_buttons()

    def _on_finished(self, sol: Solution) -> None:
        what = "converged" if sol.converged else "stopped (sweep limit)"
        self.statusBar().showMessage(f"{METHOD_NAMES.get(sol.method, sol.method)} {what} after {sol.sweeps} "
                                     f"{'rounds' if sol.method == 'pi' else 'sweeps'}", 8000)
        self._dirty = True

    def _on_failed(self, msg: str) -> None:
        self.statusBar().showMessage(f"Solver failed: {msg}", 15000)
        self.solver_panel.show_status(f"Failed: {msg}")
        self._dirty = True

    def _update_buttons(self) -> None:
        c = self.controller
        has = c.mdp is not None
        self.solver_panel.show_state(c.state, method=c.method, next_phase=c.next_phase, has_model=has)
        can = has and c.state in ("ready", "paused", "stepping")
        self.act_step.setEnabled(can)
        self.act_eval.setEnabled(can and c.method == "pi" and c.next_phase == "evaluate")
        self.act_improve.setEnabled(can and c.method == "pi" and c.next_phase == "improve")
        self.act_run.setEnabled(can or c.state == "running")
        self.act_pause.setEnabled(c.state == "running")
        self.act_reset.setEnabled(has)
        if self._drives():  # the game's own Step (best-response rounds): its buttons follow the game
            g = self.game
            step, running = bool(g.window_can_step()), bool(g.window_running())
            for b, on in ((self.act_step, step), (self.solver_panel.step, step), (self.act_run, step or running),
                          (self.solver_panel.run, step or running), (self.act_pause, running),
                          (self.solver_panel.pause, running)):
                b.setEnabled(on)

    def _on_history_moved(self, index: int) -> None:
        n = len(self.controller.history)
        self.view_index = None if index >= n - 1 else int(index)
        self._dirty = True

    def shown_index(self) -> int:
        """Index of the sweep on display (-1 before the first sweep)."""
        n = len(self.controller.history)
        if self.view_index is None or self.view_index >= n:
            return n - 1
        return self.view_index

    def shown_sweep(self) -> Sweep | None:
        i = self.shown_index()
        return self.controller.history[i] if i >= 0 else None

    # ------------------------------------------------------------------ drawing (at screen rate)
    def redraw(self) -> None:
        """Redraw board, plot, inspector and status from the recorded history, if anything changed."""
        if not self._dirty:
            return
        self._dirty = False
        c = self.controller
        g = self.game
        mdp = c.mdp if c.mdp is not None else None
        hist = c.history
        i = self.shown_index()
        sw = hist[i] if i >= 0 else None
        self._predict_follow(sw)
        if getattr(g, "view", None) == "graph":
            self._refresh_board_layout(policy=None if sw is None else np.asarray(sw.policy))
        gb = self.game_boards.get(g.key)
        if gb is not None:  # the game's own board: it derives what it shows from the sweep itself
            cap = "" if sw is None else sweep_caption(METHOD_NAMES.get(sw.method, sw.method), sw.phase, sw.iteration,
                                                      i, len(hist)) + (" \u2014 converged" if sw.converged else "")
            if mdp is not None and sw is None:
                cap = "Not solved yet: press Step or Run"
            if mdp is not None and hasattr(g, "board_caption"):
                cap = g.board_caption(cap, sw)
            if hasattr(gb, "set_value_range"):
                gb.set_value_range(c.value_range if sw is not None else None)
            gb.show_sweep(sw, None if sw is None else (self.scale or scale_for(0.0, 1.0, label=g.value_label)),
                          caption=cap if mdp is not None else (g.mdp_error() or g.empty_text()))
            shown = getattr(gb, "shown_scale", None)  # the shown position's scale (its moves' values)
            if shown is not None:
                self.color_bar.show_scale(shown)
            elif sw is None and getattr(gb, "own_scale", None) is not None:  # values without a sweep (exact 4x4)
                self.color_bar.show_scale(gb.own_scale)
        elif mdp is None:
            self.board.show_q_values(None)
            self.board.show_frame(None, None)
            self.board.caption = g.mdp_error() or g.empty_text()
            self.board.update()
        elif sw is None:
            self.board.show_q_values(None)
            self.board.show_frame(None, self.scale)
            self.board.caption = "Not solved yet: press Step or Run"
            self.board.update()
        else:
            scale = self.scale or scale_for(0.0, 1.0, label=g.value_label)
            prev = hist[i - 1] if i > 0 else None
            cap = sweep_caption(METHOD_NAMES.get(sw.method, sw.method), sw.phase, sw.iteration, i, len(hist))
            if sw.converged:
                cap += " \u2014 converged"
            frame = board_frame(
                sw.values, sw.policy, scale=scale, terminal=mdp.terminal, badge=lambda a: g.badge(a, mdp),
                prev_values=None if prev is None else prev.values,
                prev_policy=None if prev is None else prev.policy, caption=cap,
            )
            if self.delta_view:
                frame, scale = self._delta_frame(frame, sw, prev, mdp)
            self.board.show_frame(frame, scale)
            q_on = self.q_view and not self.delta_view and mdp.n_states <= Q_VIEW_MAX_STATES
            self.board.show_q_values(board_q(mdp, hist, i, gs_block=default_block_size(mdp.n_states)) if q_on else None)
        now = time.perf_counter()
        if c.state != "running" or now - self._plot_time >= PLOT_MIN_INTERVAL:
            self._plot_time = now
            self.convergence.refresh()
        else:
            self._dirty = True  # the plot is behind: draw it at the next frame that is due
        self.convergence.set_cursor(None if self.view_index is None else i)
        self.solver_panel.show_history(len(hist), i)
        self._update_buttons()
        self._update_status(sw)
        if self.selected is not None:
            self._update_inspection()

    def _update_status(self, sw: Sweep | None) -> None:
        c = self.controller
        name = METHOD_NAMES.get(c.method, c.method)
        if c.mdp is None:
            text = self.game.mdp_error() or self.game.empty_text() or "No model"
        elif sw is None:
            text = f"{name}: ready" if c.state != "failed" else f"{name}: failed: {c.error}"
        else:
            d = f"max |dV| {sw.delta:.3g}" if sw.phase != "improve" else f"residual {sw.delta:.3g}"
            n = len(c.history)
            text = (f"{n} snapshot{'s' if n != 1 else ''} \u00b7 {sw.phase} {sw.iteration} \u00b7 {d} \u00b7 "
                    f"{sw.policy_changes} policy change{'s' if sw.policy_changes != 1 else ''}")
            if c.state == "failed":
                text += f" \u00b7 failed: {c.error}"
        self.solver_panel.show_status(text)
        self.state_label.setText(f"{self.game.title} \u00b7 {name} \u00b7 {c.state}")

    # ------------------------------------------------------------------ inspector
    def _on_cell_clicked(self, state: int) -> None:
        if self.game.cell_clicked(state):
            return
        self.inspect(state)
        self.inspector_dock.raise_()

    def _on_cell_menu(self, state: int, pos) -> None:
        menu = self.cell_menu(state)
        menu.exec(pos)

    def cell_menu(self, state: int) -> QMenu:
        """The right-click menu of a cell: inspect, then the game's edits."""
        menu = QMenu(self)
        menu.setObjectName("cellMenu")
        menu.addAction(f"Inspect {self.game.state_name(state)}", lambda: self.inspect(state))
        entries = self.game.cell_menu(state)
        if entries:
            menu.addSeparator()
            for text, fn in entries:
                a = menu.addAction(text)
                if fn is None:
                    a.setEnabled(False)
                else:
                    a.triggered.connect(lambda _checked=False, fn=fn: fn())
        return menu

    def inspect(self, state: int | None) -> None:
        """Show the Bellman backup of ``state`` at the shown sweep (None: clear)."""
        mdp = self.controller.mdp
        if state is not None and (mdp is None or not 0 <= state < mdp.n_states):
            state = None
        self.selected = state
        self._update_inspection()

    def inspection(self) -> Inspection | None:
        """The inspector's data for the selected state at the shown sweep (pure computation)."""
        mdp = self.controller.mdp
        s = self.selected
        if mdp is None or s is None:
            return None
        g = self.game
        if g.mdp() is not mdp:  # the game changed and the solver has not been reset to its model yet
            return None
        sw = self.shown_sweep()
        values = np.zeros(mdp.n_states) if sw is None else np.asarray(sw.values)
        # Q backs up from the values the board's action was chosen with (one rule for badge and inspector)
        src, source = backup_values(self.controller.history, self.shown_index(), s, n_states=mdp.n_states,
                                    gs_block=default_block_size(mdp.n_states),
                                    greedy_of_shown=g.key in self.game_boards)
        when = "before the first sweep (V = 0)" if sw is None else (
            f"after sweep {sw.iteration}" if sw.phase == "sweep" else
            ("(linear program)" if sw.phase == "lp" else f"after round {sw.iteration}, {sw.phase}"))
        title = f"{getattr(g, 'state_title', g.state_name)(s)} {when}"  # board games: in words
        if mdp.terminal[s]:
            return Inspection(title, 0.0, (), mdp.objective, mdp.discount, terminal=True, unit=g.unit)
        acts = [int(a) for a in mdp.actions_of(s)]
        rows = []
        qs = []
        for a in acts:
            terms = g.backup_terms(mdp, s, a, src)
            qs.append(backup_q(terms, mdp.discount))
            shown = terms if len(terms) <= 12 else merge_terms(terms)
            rows.append((a, terms, backup_text(shown, mdp.discount, state_name=lambda t: self._short_name(t))))
        objective = "min" if mdp.sense[s] < 0 else "max"
        chosen = greedy_action(acts, qs, objective)
        if sw is not None and sw.phase == "evaluate" and g.key not in self.game_boards:
            chosen = int(sw.policy[s])  # an evaluation evaluates its policy (round 1: the starting one)
        actions = tuple(ActionBackup(a, g.action_name(a, mdp), q, text, a == chosen)
                        for (a, _, text), q in zip(rows, qs))
        return Inspection(title, float(values[s]), actions, objective, mdp.discount,
                          unit=g.unit if g.unit == "turns" else "", source=source)

    def _short_name(self, s: int) -> str:
        lab = self.controller.mdp.state_labels if self.controller.mdp is not None else None
        return lab[s] if lab else str(s)

    def _update_inspection(self) -> None:
        insp = self.inspection()
        self.inspector.show_inspection(insp)
        mdp = self.controller.mdp
        own = self.game_boards.get(self.game.key)  # a game board that outlines the inspected cell too
        own_sel = getattr(own, "show_selection", None)
        if insp is None or mdp is None or self.selected is None:
            self.board.show_selection(None)
            if own_sel is not None:
                own_sel(None)
            return
        s = self.selected
        sw = self.shown_sweep()
        succ: dict[int, float] = {}
        if not mdp.terminal[s]:
            acts = [int(sw.policy[s])] if sw is not None and sw.policy[s] >= 0 else [int(a) for a in mdp.actions_of(s)]
            for a in acts:
                for d, p, _ in mdp.outcomes(s, a):
                    succ[d] = succ.get(d, 0.0) + p / len(acts)
        self.board.show_selection(s, succ)
        if own_sel is not None:
            own_sel(s, succ)

    # ------------------------------------------------------------------ simulation
    def _simulate_from_panel(self) -> None:
        self.start_simulation(self.sim_panel.games.value(), self.sim_panel.seed.value())

    def current_policy(self) -> np.ndarray | None:
        """The converged solution's policy, or None when the solver has not converged."""
        sol = self.controller.solution
        if sol is not None and sol.converged:
            return np.asarray(sol.policy)
        return None

    def start_simulation(self, games: int, seed: int) -> bool:
        """Batch simulation of every strategy in the background (the optimal one uses the converged
        solution, or is solved on the job thread if the solver has not converged)."""
        mdp = self.game.mdp()
        if mdp is None and not getattr(self.game, "simulates_without_model", False):
            self.statusBar().showMessage("Nothing to simulate: no model.", 6000)
            return False
        try:
            job = self.game.simulation_job(mdp, self.current_policy(), games=int(games), seed=int(seed))
        except ValueError as e:
            self.statusBar().showMessage(str(e), 8000)
            return False
        if not self.controller.start_job(job):
            self.statusBar().showMessage("A simulation is already running.", 6000)
            return False
        self._running_sim_token = self._sim_token
        self.sim_panel.show_running(True, f"Simulating {games:,} games per strategy\u2026")
        self.show_page("simulation")
        return True

    @property
    def sim_panel(self):
        """The simulation panel of the active game (its own, or the shared one)."""
        return self.game_sims.get(self.game.key, self.simulation)

    def start_game_job(self, job: GameJob) -> bool:
        """Run a game's own background job (e.g. an exact 4x4 solve) on the controller's job thread."""
        if not self.controller.start_job(job.fn):
            msg = "Another background job (a simulation or a solve) is running."
            self.statusBar().showMessage(msg, 6000)
            if job.on_failed is not None:
                job.on_failed(msg)
            return False
        self._game_job = job
        self.statusBar().showMessage(job.label, 4000)
        return True

    def cancel_game_job(self) -> None:
        if self._game_job is not None:
            self.controller.cancel_job()

    def _on_job_partial(self, item: object) -> None:
        if self._game_job is not None and self._game_job.on_partial is not None:
            self._game_job.on_partial(item)

    def _on_job_progress(self, done: int, total: int, text: str) -> None:
        if self._game_job is not None:
            if self._game_job.on_progress is not None:
                self._game_job.on_progress(done, total, text)
            return
        if self._running_sim_token == self._sim_token:
            self.sim_panel.show_progress(done, total, text)

    def _on_job_finished(self, result: SimulationResult | None) -> None:
        job, self._game_job = self._game_job, None
        if job is not None:
            job.on_done(result)
            return
        panel = self.sim_panel
        panel.show_running(False)
        if self._running_sim_token != self._sim_token:
            panel.clear("The model changed during the simulation: results discarded.")
            return
        if result is None:
            panel.clear("Simulation cancelled.")
            return
        self.sim_result = result
        panel.show_results(result.rows, unit=result.unit, start=result.start, notes=result.notes)

    def _on_job_failed(self, msg: str) -> None:
        job, self._game_job = self._game_job, None
        if job is not None:
            if job.on_failed is not None:
                job.on_failed(msg)
            self.statusBar().showMessage(f"{job.label}: failed: {msg}", 10000)
            return
        self.sim_panel.show_running(False, f"Simulation failed: {msg}")
        self.statusBar().showMessage(f"Simulation failed: {msg}", 10000)

    def _on_job_cancelled(self) -> None:
        job, self._game_job = self._game_job, None
        if job is not None:
            if job.on_cancelled is not None:
                job.on_cancelled()
            return
        self.sim_panel.show_running(False)
        self.sim_panel.clear("Simulation cancelled.")

    # ------------------------------------------------------------------ episode player
    def new_episode(self, strategy: str) -> bool:
        """Play one game with ``strategy`` ("optimal" uses the greedy policy of the shown sweep)."""
        g = self.game
        mdp = g.mdp()
        if mdp is None:
            return False
        sw = self.shown_sweep()
        policy = None if sw is None else np.asarray(sw.policy)
        try:
            probs = g.strategy_probs(strategy, mdp, policy)
            self._episode_count += 1
            rng = np.random.default_rng([int(self._episode_seed), self._episode_count])
            moves = g.episode(mdp, probs, rng)
        except ValueError as e:
            self.statusBar().showMessage(str(e), 8000)
            return False
        note = ""
        if strategy == "optimal" and (sw is None or not sw.converged):
            note = f"(greedy policy of {'the shown sweep' if sw else 'V = 0'}; not converged) "
        start = g.start_state()
        # only the states the episode visits are named (every state would be O(states) on the GUI thread)
        names = {s: g.state_name(s) for s in {start, *(m.state for m in moves), *(m.next_state for m in moves)}}
        end = moves[-1].next_state if moves else start
        outcome = g.outcome_text(mdp, end) if mdp.terminal[end] else (
            f"stopped after {len(moves)} moves (not finished)" if moves else "")
        total_label = (f"discounted return (\u03b3 = {mdp.discount:g})" if g.unit == "return" and mdp.discount < 1
                       else "")
        self.player.show_episode(moves, start_state=start, unit=g.unit, names=names,
                                 header=f"{strategy} {note}".strip() + ":", outcome=outcome, total_label=total_label)
        self.player_dock.raise_()
        return True

    def _on_token(self, pos) -> None:
        board = self.game_boards.get(self.game.key, self.board)
        if pos is None:
            board.show_token(None)
        else:
            state, text, before = pos
            board.show_token(self._token_state(state, before), text)

    def _token_state(self, state: int, before: int) -> int:
        """The state the board can draw for the episode's token: a game's absorbing end state (win,
        draw, loss) has no board, so the last real position is shown instead."""
        board = self.game_boards.get(self.game.key)
        mdp = self.controller.mdp
        if board is None or mdp is None or not 0 <= state < mdp.n_states or not mdp.terminal[state]:
            return state
        model = getattr(board, "model", None)
        try:
            if model is not None:
                model.position_of(int(state))
                return state
        except (ValueError, IndexError):
            pass
        return before

    # ------------------------------------------------------------------ scenarios
    def _solver_settings(self) -> tuple[str, float]:
        """The solver settings a scenario saves (method, tolerance)."""
        return (self.solver_panel.method, float(self.solver_panel.tol))

    @property
    def dirty(self) -> bool:
        """Unsaved edits in any game, or solver settings changed since the last save or open."""
        saved = getattr(self, "_saved_solver", None)
        return any(not g.undo_stack.isClean() for g in self.games) or (
            saved is not None and self._solver_settings() != saved)

    def _update_title(self) -> None:
        if getattr(self, "_shut", False):
            return
        name = self.scenario_path.name if self.scenario_path else "untitled"
        self.setWindowTitle(f"mdpviz \u2014 {self.game.title} \u2014 {name}{' *' if self.dirty else ''}")

    def scenario(self) -> Scenario:
        """The current edits and solver settings as a scenario."""
        return Scenario(game=self.game.key, games={g.key: g.to_dict() for g in self.games},
                        solver={"method": self.solver_panel.method, "tol": self.solver_panel.tol})

    def save_scenario(self, path: str | Path) -> Path:
        """Save atomically to ``path``; the edits count as saved."""
        p = save_scenario(self.scenario(), path)
        self.scenario_path = Path(p)
        self._saved_solver = self._solver_settings()
        for g in self.games:
            g.undo_stack.setClean()
        self._update_title()
        self.statusBar().showMessage(f"Saved {p}", 5000)
        return p

    def load_scenario(self, path: str | Path) -> None:
        """Load a scenario; any error leaves every game as it was (ScenarioError)."""
        scn = load_scenario(path)
        states = {}
        for key, data in scn.games.items():
            try:
                g = self.game_by_key(key)
            except ValueError:
                raise ScenarioError(path, f"games.{key}", "unknown game") from None
            try:
                states[key] = (g, g.load_dict(data, str(path)), data)
            except ScenarioError:
                raise
            except (ValueError, MemoryError, RecursionError) as e:  # a game's own check: still one message
                raise ScenarioError(path, f"games.{key}", str(e) or type(e).__name__) from None
        try:
            target = self.game_by_key(scn.game)
        except ValueError:
            raise ScenarioError(path, "game", f"unknown game {scn.game!r}") from None
        for g, st, data in states.values():
            g.load_state(st)
            g.load_display(data)
        if "method" in scn.solver:
            self.solver_panel.set_method(scn.solver["method"])
        if "tol" in scn.solver:
            self.solver_panel.set_tolerance(float(scn.solver["tol"]))
        self._saved_solver = self._solver_settings()
        self.scenario_path = Path(path)
        for g in self.games:
            ed = g.editor()
            if ed is not None and hasattr(ed, "refresh"):
                ed.refresh()
        self._activate(target)
        self.statusBar().showMessage(f"Opened {path}", 5000)

    def open_scenario_dialog(self) -> None:
        path = self.dialogs.open_file("Open scenario", self._dir("scenario"), "mdpviz scenarios (*.json);;All files (*)")
        if not path:
            return
        self._remember_dir("scenario", path)
        try:
            self.load_scenario(path)
        except ScenarioError as e:
            self.dialogs.error("Cannot open scenario", str(e))
        except (ValueError, MemoryError, RecursionError, OSError) as e:  # a game's own check, or too big
            self.dialogs.error("Cannot open scenario", f"{path}: {e or type(e).__name__}")

    def save_scenario_dialog(self, ask: bool = False) -> bool:
        path = self.scenario_path
        if path is None or ask:
            name = self.dialogs.save_file("Save scenario", self._dir("scenario"), "mdpviz scenarios (*.json)")
            if not name:
                return False
            path = Path(name if name.lower().endswith(".json") else name + ".json")
            self._remember_dir("scenario", str(path))
        try:
            self.save_scenario(path)
        except OSError as e:
            self.dialogs.error("Cannot save scenario", f"{path}: {e.strerror or e}")
            return False
        return True

    def open_mdp_file(self, path: str | Path) -> None:
        """Open a course-format MDP file in the "MDP from file" game (MDPFileError: nothing changes)."""
        g = self.game_by_key("file")
        new = g.read_file(path)  # raises before anything changes
        if g is not self.game:
            self._activate(g)
        g.edit(new, f"opened {Path(new.path).name}")

    def open_mdp_dialog(self) -> None:
        path = self.dialogs.open_file("Open course MDP file", self._dir("mdp"), "MDP files (*.txt);;All files (*)")
        if not path:
            return
        self._remember_dir("mdp", path)
        self.open_mdp_file_in_background(path)

    # ------------------------------------------------------------------ MDP files: examples, loading off the GUI thread
    def _build_example_menu(self, file_menu) -> None:
        """File > Open example: the course MDP files shipped with the package (mdpviz examples)."""
        from mdpviz.models.examples import mdp_examples

        menu = file_menu.addMenu("Open e&xample")
        menu.setObjectName("exampleMenu")
        self.example_actions: dict[str, QAction] = {}
        for ex in mdp_examples():
            a = QAction(ex.name, self)
            a.setObjectName(f"example_{ex.name}")
            a.setToolTip(f"{ex.path}" + (f" (published solution: {ex.solution.name})" if ex.solution else ""))
            a.triggered.connect(lambda _c=False, p=str(ex.path): self.open_mdp_file_in_background(p))
            menu.addAction(a)
            self.example_actions[ex.name] = a
        menu.setEnabled(bool(self.example_actions))

    def open_mdp_file_in_background(self, path: str | Path) -> bool:
        """Read and check an MDP file on the job thread (progress and Cancel in the status bar), then
        open it; a bad file is one message and nothing changes. False if another job is running."""
        g = self.game_by_key("file")
        name = Path(path).name

        def done(result) -> None:
            self._hide_load_progress()
            if result is None:
                self.statusBar().showMessage(f"Opening {name} cancelled.", 5000)
                return
            state, mdp = result
            g.prime(state, mdp)  # the parse is not repeated on the GUI thread
            if g is not self.game:
                self._activate(g)
            g.edit(state, f"opened {Path(state.path).name}")

        def failed(msg: str) -> None:
            self._hide_load_progress()
            self.dialogs.error("Cannot open MDP file", msg)

        def progress(done_: int, total: int, text: str) -> None:
            self._show_load_progress(done_, total, text)

        job = GameJob(fn=lambda prog, cancelled: g.read_file_job(path, prog, cancelled), label=f"Opening {name}\u2026",
                      on_done=done, on_progress=progress, on_failed=failed, on_cancelled=lambda: done(None))
        if not self.start_game_job(job):
            return False
        self._show_load_progress(0, 0, f"Opening {name}\u2026")
        return True

    def _show_load_progress(self, done: int, total: int, text: str) -> None:
        if getattr(self, "_load_bar", None) is None:
            from PySide6.QtWidgets import QProgressBar, QPushButton

            self._load_bar = QProgressBar(self)
            self._load_bar.setObjectName("loadProgress")
            self._load_bar.setMaximumWidth(160)
            self._load_bar.setFormat("%p%")  # the details go to the status message beside it
            self._load_cancel = QPushButton("Cancel", self)
            self._load_cancel.setObjectName("loadCancel")
            self._load_cancel.setAccessibleName("Cancel opening the file")
            self._load_cancel.clicked.connect(self.cancel_game_job)
            self.statusBar().addPermanentWidget(self._load_bar)
            self.statusBar().addPermanentWidget(self._load_cancel)
        self._load_bar.setRange(0, max(total, 0))
        if total > 0:
            self._load_bar.setValue(done)
        self._load_bar.setTextVisible(total > 0)
        self._load_bar.show()
        self._load_cancel.show()
        self.statusBar().showMessage(text)

    def _hide_load_progress(self) -> None:
        if getattr(self, "_load_bar", None) is not None:
            self._load_bar.hide()
            self._load_cancel.hide()
            self.statusBar().clearMessage()

    # ------------------------------------------------------------------ export
    def export_figure(self, which: str, path: str | Path) -> Path:
        """Save the board, the convergence plot or the histogram as PNG or SVG (by extension)."""
        path = Path(path)
        ext = path.suffix.lower()
        if ext not in (".png", ".svg"):
            raise ValueError(f"{path}: export as .png or .svg, not '{ext or '(no extension)'}'")
        if which == "convergence":
            self.conv_stack.currentWidget().export(path)  # the shown plot: the game's own (learning curve) or sweeps
        elif which == "histogram":
            self.sim_panel.export_plot_to(path)
        elif which == "board":
            self._export_widget(self.board_area, path)
        else:
            raise ValueError(f"unknown figure {which!r} (board, convergence or histogram)")
        return path

    @staticmethod
    def _export_widget(widget: QWidget, path: Path) -> None:
        if path.suffix.lower() == ".png":
            if not widget.grab().save(str(path), "PNG"):
                raise OSError(f"cannot write {path}")
            return
        render_svg(widget, path, title="mdpviz board")

    def export_dialog(self, which: str) -> None:
        if which == "histogram" and self.sim_result is None:
            self.statusBar().showMessage("Run a simulation first.", 5000)
            return
        name = self.dialogs.save_file(f"Export {which}", os.path.join(self._dir("export"), f"{which}.png"),
                                      "PNG image (*.png);;SVG image (*.svg)")
        if not name:
            return
        self._remember_dir("export", name)
        try:
            p = self.export_figure(which, name)
        except (ValueError, OSError) as e:
            self.dialogs.error("Cannot export", str(e))
            return
        self.statusBar().showMessage(f"Saved {p}", 5000)

    def export_csv(self, path: str | Path) -> Path:
        """Write the simulation table as CSV (ValueError when there are no results)."""
        if self.sim_result is None:
            raise ValueError("no simulation results to export: run a simulation first")
        path = Path(path)
        tmp = path.with_name(f".{path.name}.tmp")
        text = (self.sim_result.csv() if hasattr(self.sim_result, "csv") else
                results_csv(self.sim_result.rows, unit=self.sim_result.unit, start=self.sim_result.start))
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
        return path

    def export_csv_dialog(self) -> None:
        if self.sim_result is None:
            self.statusBar().showMessage("Run a simulation first.", 5000)
            return
        name = self.dialogs.save_file("Export simulation table", os.path.join(self._dir("export"), "simulation.csv"),
                                      "CSV (*.csv)")
        if not name:
            return
        self._remember_dir("export", name)
        try:
            p = self.export_csv(name)
        except (ValueError, OSError) as e:
            self.dialogs.error("Cannot export", str(e))
            return
        self.statusBar().showMessage(f"Saved {p}", 5000)

    # ------------------------------------------------------------------ classroom: lesson, compare, export, view
    predict_mode = False
    """Predict-then-reveal: the board hides values and actions until a square is clicked."""
    delta_view = False
    """The board is coloured by how much each square changed in the shown sweep."""
    high_contrast = False
    """High-contrast theme (black on white, thicker lines)."""
    _predict_key: int | None = None
    _frame_writer: "lesson_export.FrameWriter | None" = None

    def _build_classroom_actions(self, export_menu: QMenu) -> None:
        export_menu.addSeparator()
        self.act_export_lesson = self._action("&Lesson snapshot (board + plot + parameters)\u2026", "exportLessonAction",
                                              self.export_lesson_dialog, "Ctrl+Shift+E",
                                              tip="The board, the convergence plot and the parameters in one picture")
        self.act_export_frames = self._action("Sweeps as a PNG &sequence\u2026", "exportFramesAction",
                                              self.export_frames_dialog, tip="The board after every sweep, numbered")
        self.act_export_gif = self._action("Sweeps as an animated &GIF\u2026", "exportGifAction", self.export_gif_dialog,
                                           tip="The board after every sweep as one looping GIF, for slides")
        self.act_export_results = self._action("&Values and policy (CSV)\u2026", "exportResultsAction",
                                               self.export_results_dialog)
        self.act_export_compare = self._action("&Comparison table (CSV)\u2026", "exportCompareAction",
                                               self.export_comparison_dialog)
        self.act_export_history = self._action("Convergence &history (CSV)\u2026", "exportHistoryAction",
                                               self.export_history_dialog, tip="Every recorded sweep: delta, "
                                               "policy changes, time")
        self.act_export_board_sized = self._action("Board at export si&ze\u2026", "exportBoardSizedAction",
                                                   lambda: self.export_sized_dialog("board"))
        self.act_export_conv_sized = self._action("Convergence plot at export size\u2026", "exportConvSizedAction",
                                                  lambda: self.export_sized_dialog("convergence"))
        export_menu.addActions([self.act_export_lesson, self.act_export_board_sized, self.act_export_conv_sized,
                                self.act_export_frames, self.act_export_gif, self.act_export_results,
                                self.act_export_compare,
                                self.act_export_history])
        sizes = export_menu.addMenu("Export si&ze")
        sizes.setObjectName("exportSizeMenu")
        self.export_size_actions: dict[tuple[int, int], QAction] = {}
        saved = str(self.settings.value("export/size", "1600x900"))
        for w, h in ((1280, 720), (1600, 900), (1920, 1080), (3840, 2160)):
            a = QAction(f"{w} \u00d7 {h}", self)
            a.setObjectName(f"exportSize{w}x{h}")
            a.setCheckable(True)
            a.setChecked(saved == f"{w}x{h}")
            a.triggered.connect(lambda _c=False, w=w, h=h: self.set_export_size(w, h))
            sizes.addAction(a)
            self.export_size_actions[(w, h)] = a
        if not any(a.isChecked() for a in self.export_size_actions.values()):
            self.export_size_actions[(1600, 900)].setChecked(True)
        self.act_compare = self._action("&Compare methods", "compareAction", self.compare_methods, "Ctrl+Shift+C",
                                        tip="Run every solver on this model and overlay their convergence")
        self.act_predict = self._action("&Predict, then reveal", "predictAction", self.set_predict_mode,
                                        "Ctrl+Shift+P", checkable=True,
                                        tip="Hide values and actions on the board until a square is clicked")
        self.act_delta = self._action("Colour by &change (\u0394V)", "deltaAction", self.set_delta_view,
                                      "Ctrl+Shift+D", checkable=True,
                                      tip="Colour each square by how much its value changed in the shown sweep")
        self.act_contrast = self._action("&High contrast", "highContrastAction", self.set_high_contrast,
                                         checkable=True, tip="Black on white with thicker lines, for projectors")
        self.act_q = self._action("Every action's &Q on the board", "qValuesAction", self.set_q_view,
                                  "Ctrl+Shift+Q", checkable=True,
                                  tip="Show every action's Q-value on the board at once: a bar per action, "
                                      "coloured on the board's scale (hover a square for the numbers)")

    q_view = False
    """Every action's Q-value is drawn on the cell board (the View menu's toggle)."""

    def set_q_view(self, on: bool) -> None:
        """Show (or hide) every action's Q on the board, as bars coloured on the board's scale."""
        self.q_view = bool(on)
        if self.act_q.isChecked() != self.q_view:
            self.act_q.setChecked(self.q_view)
        self._dirty = True
        self.redraw()

    def _game_boards(self) -> list[QWidget]:
        """The cell board and every game's own board widget."""
        return [self.board, *getattr(self, "game_boards", {}).values()]

    def _classroom_model_changed(self) -> None:
        """The model changed: new lesson text, and a comparison of the old model is stale."""
        self.update_lesson()
        self.compare_panel.clear()
        self._predict_key = None
        for b in self._game_boards():
            if hasattr(b, "hide_all"):
                b.hide_all()

    def update_lesson(self) -> None:
        """Show the lesson of the current game with its current parameters."""
        g = self.game
        try:
            lesson = lesson_export.game_lesson(g)
        except (ValueError, TypeError, AttributeError, KeyError) as e:
            self.lesson_panel.show_lesson(None, message=f"No lesson for {g.title}: {e}")
            return
        self.lesson_panel.show_lesson(lesson)

    def compare_methods(self) -> bool:
        """Run every method on the current model on the job thread; the compare panel shows the result."""
        g = self.game
        mdp = g.mdp()
        if mdp is None:
            self.statusBar().showMessage("Nothing to compare: no model.", 6000)
            return False
        token = self._sim_token
        start = int(g.start_state()) if 0 <= int(g.start_state()) < mdp.n_states else 0

        def done(result) -> None:
            if result is None:
                self.compare_panel.clear("Comparison cancelled.")
            elif token != self._sim_token:
                self.compare_panel.clear("The model changed during the comparison: results discarded.")
            else:
                self.compare_panel.show_comparison(result, start_name=g.state_name(result.start))
                self.statusBar().showMessage(result.summary, 10000)

        job = GameJob(
            fn=compare_job(mdp, tol=self.solver_panel.tol, start=start, state_name=g.state_name),
            label="Comparing the solvers on this model\u2026", on_done=done,
            on_progress=self.compare_panel.show_progress,
            on_failed=lambda msg: self.compare_panel.show_running(False, f"Comparison failed: {msg}"),
            on_cancelled=lambda: self.compare_panel.clear("Comparison cancelled."),
        )
        if not self.start_game_job(job):
            return False
        self.compare_panel.show_running(True, "Running every method on this model\u2026")
        self.show_page("compare")
        return True

    # export
    def export_size(self) -> tuple[int, int]:
        """The size chosen in File > Export figure > Export size (pixels)."""
        for size, a in self.export_size_actions.items():
            if a.isChecked():
                return size
        return lesson_export.DEFAULT_SIZE

    def set_export_size(self, width: int, height: int) -> None:
        for size, a in self.export_size_actions.items():
            a.setChecked(size == (width, height))
        self.settings.setValue("export/size", f"{width}x{height}")

    def solved_view(self) -> "lesson_export.SolvedGame":
        """The current solve as the exporter sees it: model, recorded sweeps and the board's colour scale."""
        c = self.controller
        if c.mdp is None:
            raise ValueError(f"nothing to export: {self.game.mdp_error() or 'no model'}")
        scale = self.scale or scale_for(0.0, 1.0, label=self.game.value_label)
        rng = c.value_range  # the range the scale was fitted to (the exporter fits it the same way)
        lo, hi = (rng.lo, rng.hi) if rng is not None else (scale.lo, scale.hi)
        return lesson_export.SolvedGame(mdp=c.mdp, method=c.method, options=dict(c.options),
                                        history=tuple(c.history), solution=c.solution, lo=lo, hi=hi,
                                        value_range=rng)

    def export_lesson(self, path: str | Path, *, width: int | None = None, height: int | None = None) -> Path:
        """Write the lesson snapshot of the shown sweep as PNG or SVG (size: the Export size setting)."""
        w, h = self.export_size() if width is None or height is None else (width, height)
        return lesson_export.export_lesson_snapshot(self.game, self.solved_view(), path, width=w, height=h,
                                                    index=self.shown_index())

    def _export_to(self, title: str, name: str, filters: str, fn) -> None:
        path = self.dialogs.save_file(title, os.path.join(self._dir("export"), name), filters)
        if not path:
            return
        self._remember_dir("export", path)
        try:
            p = fn(path)
        except (ValueError, OSError) as e:
            self.dialogs.error("Cannot export", str(e))
            return
        if p is not None:
            self.statusBar().showMessage(f"Saved {p}", 5000)

    def export_lesson_dialog(self) -> None:
        self._export_to("Export lesson snapshot", "lesson.png", "PNG image (*.png);;SVG image (*.svg)",
                        self.export_lesson)

    def export_frames(self, out: str | Path, *, width: int | None = None, height: int | None = None):
        """Start writing the board after every recorded sweep as numbered PNG files (one per event-loop
        turn, so the window stays responsive); returns the running FrameWriter."""
        if self._frame_writer is not None and self._frame_writer.running:
            raise ValueError("an image sequence is already being written")
        w, h = (width, height) if width is not None and height is not None else lesson_export.FRAME_SIZE
        fw = lesson_export.FrameWriter(self.game, self.solved_view(), out, width=w, height=h, parent=self)
        fw.progress.connect(lambda k, n, text: self.statusBar().showMessage(f"Writing {text}\u2026 (Esc cancels)"))
        fw.finished.connect(lambda paths: self.statusBar().showMessage(
            f"Wrote {len(paths)} image{'s' if len(paths) != 1 else ''}"
            + (f": {paths[0].name} .. {paths[-1].name}" if paths else ""), 8000))
        fw.failed.connect(lambda msg: self.dialogs.error("Cannot export", msg))
        self._frame_writer = fw
        fw.start()
        return fw

    def export_gif(self, path: str | Path, *, width: int | None = None, height: int | None = None):
        """Start writing the board after every recorded sweep (at most MAX_GIF_FRAMES, evenly sampled)
        as one animated GIF: the frames are drawn one per event-loop turn (the window stays responsive),
        then joined; returns the running FrameWriter (its ``gif`` signal-free result: the status bar)."""
        import tempfile

        path = lesson_export.gif_path(path)
        if self._frame_writer is not None and self._frame_writer.running:
            raise ValueError("an image sequence is already being written")
        w, h = (width, height) if width is not None and height is not None else lesson_export.FRAME_SIZE
        tmp = tempfile.TemporaryDirectory(prefix="mdpviz-gif-")
        fw = lesson_export.FrameWriter(self.game, self.solved_view(), tmp.name, width=w, height=h,
                                       max_frames=lesson_export.MAX_GIF_FRAMES, parent=self)
        fw.progress.connect(lambda k, n, text: self.statusBar().showMessage(f"GIF: {text}\u2026 (Esc cancels)"))

        def done(paths) -> None:
            try:
                if len(paths) == len(fw.indices):
                    p = lesson_export.write_gif(paths, path)
                    self.statusBar().showMessage(f"Wrote {p.name}: {len(paths)} frames", 8000)
                else:
                    self.statusBar().showMessage("GIF cancelled", 5000)
            except (OSError, ValueError) as e:
                self.dialogs.error("Cannot export", str(e))
            finally:
                tmp.cleanup()

        fw.finished.connect(done)
        fw.failed.connect(lambda msg: (tmp.cleanup(), self.dialogs.error("Cannot export", msg)))
        self._frame_writer = fw
        fw.start()
        return fw

    def export_gif_dialog(self) -> None:
        self._export_to("Export the sweeps as an animated GIF", "sweeps.gif", "Animated GIF (*.gif)",
                        lambda p: (self.export_gif(p), None)[1])

    def export_frames_dialog(self) -> None:
        self._export_to("Export the sweeps as numbered PNG files", "sweep.png", "PNG images (*.png)",
                        lambda p: (self.export_frames(p), None)[1])

    def export_results_csv(self, path: str | Path) -> Path:
        """Write the shown sweep's value and greedy action per state as CSV."""
        sw = self.shown_sweep()
        mdp = self.controller.mdp
        if sw is None or mdp is None:
            raise ValueError("no values to export: run the solver first")
        g = self.game
        return lesson_export.write_text(path, lesson_export.solution_csv(
            mdp, np.asarray(sw.values), np.asarray(sw.policy), state_name=g.state_name,
            action_name=lambda a: g.action_name(a, mdp)))

    def export_results_dialog(self) -> None:
        self._export_to("Export values and policy", "values.csv", "CSV (*.csv)", self.export_results_csv)

    def export_comparison_csv(self, path: str | Path) -> Path:
        from mdpviz.solvers.compare import comparison_csv

        comp = self.compare_panel.comparison
        if comp is None:
            raise ValueError("no comparison to export: press Compare methods first")
        return lesson_export.write_text(path, comparison_csv(comp))

    def export_sized(self, which: str, path: str | Path, *, width: int | None = None,
                     height: int | None = None) -> Path:
        """The board ("board") or the convergence plot ("convergence") of the shown sweep as PNG or SVG at
        the Export size (or ``width`` x ``height``)."""
        w, h = self.export_size() if width is None or height is None else (width, height)
        solved = self.solved_view()
        if which == "board":
            return lesson_export.export_board(self.game, solved, path, width=w, height=h, index=self.shown_index())
        if which == "convergence":
            return lesson_export.export_convergence(solved, path, width=w, height=h)
        raise ValueError(f"unknown figure {which!r} (board or convergence)")

    def export_sized_dialog(self, which: str) -> None:
        self._export_to(f"Export {which}", f"{which}.png", "PNG image (*.png);;SVG image (*.svg)",
                        lambda p: self.export_sized(which, p))

    def export_history_csv(self, path: str | Path) -> Path:
        """Every recorded sweep of the current solve as CSV (:func:`mdpviz.export.convergence_csv`)."""
        if not self.controller.history:
            raise ValueError("no sweeps to export: run the solver first")
        return lesson_export.write_text(path, lesson_export.convergence_csv(self.controller.history))

    def export_history_dialog(self) -> None:
        self._export_to("Export the convergence history", "convergence.csv", "CSV (*.csv)", self.export_history_csv)

    def export_comparison_dialog(self) -> None:
        self._export_to("Export the comparison table", "comparison.csv", "CSV (*.csv)", self.export_comparison_csv)

    # view options
    def set_predict_mode(self, on: bool) -> None:
        """Predict, then reveal: hide values and actions on the board until a square is clicked; a new
        sweep hides everything again (and closes the inspector, which would give the answer away)."""
        on = bool(on)
        if self.act_predict.isChecked() != on:
            self.act_predict.setChecked(on)
        self.predict_mode = on
        self._predict_key = None
        for b in self._game_boards():
            if hasattr(b, "set_predict_mode"):
                b.set_predict_mode(on)
        if on:
            self.inspect(None)
        self._dirty = True

    def _predict_follow(self, sw: Sweep | None) -> None:
        if not self.predict_mode:
            return
        key = None if sw is None else id(sw)
        if key != self._predict_key:
            self._predict_key = key
            for b in self._game_boards():
                if hasattr(b, "hide_all"):
                    b.hide_all()
            if self.selected is not None:
                self.inspect(None)

    def set_delta_view(self, on: bool) -> None:
        """Colour the board by |V_k - V_{k-1}| of the shown sweep (log scale fixed per solve)."""
        on = bool(on)
        if self.act_delta.isChecked() != on:
            self.act_delta.setChecked(on)
        self.delta_view = on
        for b in getattr(self, "game_boards", {}).values():
            if hasattr(b, "set_delta_mode"):
                b.set_delta_mode(on)
        if not on:
            self.color_bar.show_scale(self.scale)
        self._dirty = True

    def _delta_frame(self, frame, sw: Sweep, prev: Sweep | None, mdp):
        """The delta view of a frame, and its scale (also shown on the colour bar)."""
        lo, hi = (self.scale.lo, self.scale.hi) if self.scale is not None else (0.0, 1.0)
        tol = self.controller.options.get("tol") if self.controller.method in ("vi", "gs") else None
        dscale = delta_scale(lo, hi, tol=tol)
        if self.color_bar.scale != dscale:
            self.color_bar.show_scale(dscale)
        act = None if prev is None else (np.asarray(prev.policy) != np.asarray(sw.policy))
        f = delta_frame(sw.values, None if prev is None else prev.values, frame.badges, terminal=mdp.terminal,
                        scale=dscale, caption=frame.caption + " \u2014 colour: change in this sweep",
                        action_changed=act, actions=frame.actions)
        return f, dscale

    def set_high_contrast(self, on: bool) -> None:
        """High-contrast theme: pure black on white, black cell borders, thicker lines."""
        from PySide6.QtGui import QColor, QPalette

        on = bool(on)
        if self.act_contrast.isChecked() != on:
            self.act_contrast.setChecked(on)
        if on == self.high_contrast:
            return
        if not hasattr(self, "_base_palette"):
            self._base_palette = QPalette(self.palette())
        self.high_contrast = on
        if on:
            pal = QPalette(self._base_palette)
            R = QPalette.ColorRole
            for role, colour in ((R.Window, "#ffffff"), (R.WindowText, "#000000"), (R.Base, "#ffffff"),
                                 (R.AlternateBase, "#e8e8e8"), (R.Text, "#000000"), (R.Button, "#ffffff"),
                                 (R.ButtonText, "#000000"), (R.Highlight, "#00007f"), (R.HighlightedText, "#ffffff"),
                                 (R.ToolTipBase, "#ffffff"), (R.ToolTipText, "#000000"), (R.PlaceholderText, "#333333"),
                                 (R.Mid, "#000000"), (R.Dark, "#000000"), (R.Shadow, "#000000")):
                pal.setColor(role, QColor(colour))
            for role in (R.WindowText, R.Text, R.ButtonText):  # disabled controls must still look disabled
                pal.setColor(QPalette.ColorGroup.Disabled, role, QColor("#595959"))  # 7:1 on white
            self.setPalette(pal)
        else:
            self.setPalette(self._base_palette)
        self.board.outline = "#000000" if on else "#444444"
        self.color_bar.set_text_color(QColor("#000000" if on else "#969696"))
        self._apply_lines()
        self.settings.setValue("view/contrast", on)
        self._dirty = True

    def _apply_lines(self) -> None:
        """Line widths of the board and the plots: thicker in presenter mode and in high contrast."""
        f = (1.6 if self.presenter else 1.0) * (1.4 if self.high_contrast else 1.0)
        self.board.line_scale = f
        self.board.update()
        self.convergence.set_line_width(2.0 * f)
        self.compare_panel.chart.set_line_width(2.0 * f)


    # ------------------------------------------------------------------ view
    def set_presenter(self, on: bool) -> None:
        """Presenter mode, for a projector: fonts, plots and toolbar scaled up by PRESENTER_SCALE, and
        the game editor and episode player moved into the right-hand tabs so the board gets the width.
        Leaving it restores the previous arrangement."""
        on = bool(on)
        if self.act_presenter.isChecked() != on:
            self.act_presenter.setChecked(on)
        if on == self.presenter:
            return
        self.presenter = on
        self.player_dock.setWindowTitle("Episode" if on else "Episode player")  # a tab title that fits
        f = QFont(self._base_font)
        size = f.pointSizeF() if f.pointSizeF() > 0 else 10.0
        f.setPointSizeF(size * (PRESENTER_SCALE if on else 1.0))
        self.setFont(f)
        px = 18 if on else 12
        self.convergence.set_font_size(px)
        for cw in self.game_convs.values():
            if hasattr(cw, "set_font_size"):
                cw.set_font_size(px)
        for ax in ("left", "bottom"):
            fnt = QFont()
            fnt.setPixelSize(px)
            a = self.simulation.hist_plot.getAxis(ax)
            a.setStyle(tickFont=fnt)
            a.label.setFont(fnt)
        set_legend_font(self.simulation.hist_plot, self.simulation.legend, max(11, int(px * 0.8)))
        self.toolbar.setIconSize(QSize(32, 32) if on else QSize(20, 20))
        self.color_bar.set_min_width(120 if on else 0)  # as wide as its text needs (ColorBar.fit), 120 px at least on a projector
        self.board.text_scale = 1.3 if on else 1.0
        self._apply_lines()
        self.game_scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded if on
                                                    else Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        if on:
            self._normal_state = self._save_layout()
            self._normal_hidden = set(self._hidden_by_game)
            for d in (self.game_dock, self.player_dock):
                d.setFloating(False)
                self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, d)
                self.tabifyDockWidget(self.lesson_dock, d)
            self.inspector_dock.raise_()
            QTimer.singleShot(0, self, self._hide_orphan_tab_bars)
            QTimer.singleShot(0, self, self._presenter_dock_sizes)
        elif self._normal_state is not None:
            self.restoreState(self._normal_state)
            self._normal_state = None
            self._after_restore(self._normal_hidden)
        self.settings.setValue("view/presenter", on)
        self._dirty = True

    def _presenter_dock_sizes(self) -> None:
        """Presenter mode: the right-hand column a third of the width, the plot a third of the height
        (the board and the results pages get the rest; a results page hides the plot)."""
        if not self.presenter:
            return
        self.resizeDocks([self.solver_dock], [int(self.width() * 0.33)], Qt.Orientation.Horizontal)
        self.resizeDocks([self.convergence_dock], [int(self.height() * 0.34)], Qt.Orientation.Vertical)

    def _after_restore(self, hidden_by_game: set[str]) -> None:
        """A layout was restored: the docks hidden for the game shown when it was saved are hidden by a
        game (not by the user), the shown game's panels apply, and stray tab bars go."""
        self._hidden_by_game = {n for n in hidden_by_game if n in self.docks and self.docks[n].isHidden()}
        self._plot_hidden_for_results = False
        self._apply_panels()
        self._on_page_changed()
        QTimer.singleShot(0, self, self._hide_orphan_tab_bars)  # Qt may lay the tabs out on the next turn

    def reset_layout(self) -> None:
        """Back to the default arrangement of the panels."""
        for name, d in self.docks.items():
            d.setFloating(False)
            d.setVisible(name in self.game.panels)
        self._hidden_by_game = set(self.docks) - set(self.game.panels)
        self._default_dock_sizes()

    # ------------------------------------------------------------------ settings and closing
    def _dir(self, kind: str) -> str:
        return str(self.settings.value(f"dirs/{kind}", str(Path.home())))

    def _remember_dir(self, kind: str, path: str) -> None:
        self.settings.setValue(f"dirs/{kind}", str(Path(path).parent))

    def _restore_settings(self) -> None:
        s = self.settings
        geo = s.value("window/geometry")
        if isinstance(geo, (QByteArray, bytes)):
            self.restoreGeometry(geo)
        st = s.value("window/state")
        if isinstance(st, (QByteArray, bytes)):
            self._layout_restored = bool(self.restoreState(st))
            hidden = s.value("window/hiddenByGame", "")
            self._after_restore(set(str(hidden).split(",")) if hidden else set())
        speed = s.value("solver/speed")
        if speed is not None:
            try:
                self.solver_panel.set_speed_index(int(speed))
            except (TypeError, ValueError):
                pass
        self.controller.set_rate(self.solver_panel.rate)
        if str(s.value("view/contrast", "false")).lower() in ("true", "1"):
            self.set_high_contrast(True)
        if str(s.value("view/presenter", "false")).lower() in ("true", "1"):
            self.set_presenter(True)

    def save_settings(self) -> None:
        s = self.settings
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self._normal_state if self._normal_state is not None else self._save_layout())
        hidden = self._normal_hidden if self._normal_state is not None else self._hidden_by_game
        s.setValue("window/hiddenByGame", ",".join(sorted(hidden)))
        s.setValue("solver/speed", self.solver_panel.speed.currentIndex())
        s.setValue("view/presenter", self.presenter)
        s.sync()

    def closeEvent(self, ev: QCloseEvent) -> None:  # noqa: N802
        if self.dirty:
            ans = self.dialogs.ask_unsaved()
            if ans == "cancel" or (ans == "save" and not self.save_scenario_dialog()):
                ev.ignore()
                return
        self.shutdown()
        ev.accept()

    def shutdown(self) -> None:
        """Stop timers and worker threads and save the layout (idempotent)."""
        if getattr(self, "_shut", False):
            return
        self._shut = True
        self.redraw_timer.stop()
        self.player.pause()
        if self._frame_writer is not None:
            self._frame_writer.cancel()
        self.save_settings()
        self.controller.shutdown()


def run(argv: Sequence[str] | None = None) -> int:
    """Open the window and run the Qt event loop; returns the exit status (what ``mdpviz`` calls)."""
    app = QApplication.instance()
    if app is None:
        from mdpviz.display import explain_missing_display

        problem = explain_missing_display()  # before Qt can abort the process (see mdpviz.display)
        if problem:
            print(problem, file=sys.stderr)
            return 2
        app = QApplication(list(argv) if argv is not None else sys.argv)
    app.setOrganizationName(settings_org())
    app.setApplicationName("mdpviz")
    pg.setConfigOptions(antialias=True)
    w = MainWindow()
    w.show()
    return int(app.exec())


__all__ = ["Dialogs", "MainWindow", "make_settings", "run", "settings_org"]
