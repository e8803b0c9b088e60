"""The main window: pick a game, edit it on the board, step the solver, watch it converge, play it out.

:class:`MainWindow` wires the widgets of :mod:`mdpviz.widgets` to one
:class:`~mdpviz.controller.SolverController`, which owns the worker threads: the GUI thread never
runs a solve or a batch simulation. Sweeps arrive as immutable snapshots and are recorded; the
window redraws on a ~30 Hz timer from the recorded history (or the sweep the history slider
points at), never once per sweep. Each game is a generic :class:`mdpviz.widgets.session.GameSession`
(built from its headless spec: settings, model, jobs) and its view, a :class:`mdpviz.widgets.game.Game`
(how it is drawn and edited).

Modal dialogs go through one :class:`Dialogs` object so tests can replace it and never block.

The window is assembled from one part per concern (:mod:`mdpviz.window`): this module builds the
widgets, docks and menus and switches games; :class:`~mdpviz.window.solving.SolvingMixin` (solver,
drawing, inspector), :class:`~mdpviz.window.playing.PlayingMixin` (simulations, jobs, episodes),
:class:`~mdpviz.window.files.FilesMixin` (scenarios, MDP files, exports),
:class:`~mdpviz.window.classroom.ClassroomMixin` (lesson, comparison, view modes) and
:class:`~mdpviz.window.view.ViewMixin` (presenter mode, layouts, settings) hold the rest. Each part
declares its own state in its ``_init_<part>()``; where one part reacts to another, the window emits
one of its signals (:attr:`MainWindow.game_shown`, ``model_changed``, ``scenario_loaded``,
``presenter_changed``, ``shutting_down``) and the parts connect to it in their inits.
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Mapping, Sequence

import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QEvent, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QFontMetricsF, QKeySequence, QUndoGroup
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDockWidget,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QScrollArea,
    QSizePolicy,
    QStackedWidget,
    QTabWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from mdpviz.controller import SolverController, hold_loads_until_first_paint, release_loads
from mdpviz.widgets.board import ColorBar
from mdpviz.widgets.game_board import GameBoard
from mdpviz.widgets.convergence import ConvergencePlot
from mdpviz.widgets.game import Game
from mdpviz.widgets.session import GameSession
from mdpviz.widgets.games import view_class
from mdpviz.models.kit import registry
from mdpviz.widgets.panels import METHOD_ORDER, Inspector, SolverPanel
from mdpviz.widgets.simulation import EpisodePlayer, SimulationPanel
from mdpviz.widgets.lesson import LessonPanel
from mdpviz.widgets import named as _named

from mdpviz.window.classroom import ClassroomMixin
from mdpviz.window.files import FilesMixin
from mdpviz.window.parts import (  # noqa: F401 (Dialogs, default_size, make_settings, settings_org: this module's API)
    DEFAULT_SIZE,
    GAME_DOCK_EM,
    AfterFirstPaint,
    GUI_SWITCH_INTERVAL,
    PRESENTER_PLOT_PX,
    Dialogs,
    GameList,
    StatusBar,
    GameWidgets,
    default_size,
    make_settings,
    settings_org,
)
from mdpviz.window.playing import PlayingMixin

if TYPE_CHECKING:
    from mdpviz.widgets.compare import ComparePanel  # built, and imported, when its page is first shown
from mdpviz.window.learning import LearningMixin
from mdpviz.window.live import LiveMixin
from mdpviz.window.sensitivity import SensitivityMixin
from mdpviz.window.solving import SolvingMixin
from mdpviz.window.view import ViewMixin


class MainWindow(SolvingMixin, LiveMixin, LearningMixin, PlayingMixin, FilesMixin, ClassroomMixin, ViewMixin,
                 SensitivityMixin, QMainWindow):
    """The mdpviz window (constructible with no arguments)."""

    game_shown = Signal(object)
    """Another game (its :class:`~mdpviz.widgets.game.Game`) is shown, its widgets already in front;
    emitted before :attr:`model_changed` tells the parts about its model."""
    model_changed = Signal()
    """The shown model changed (another game, or an edit): the parts forget what belonged to the old one
    (the solving part loads a fresh solver)."""
    scenario_loaded = Signal(object)
    """A scenario was loaded into the games; the argument is the game it shows."""
    presenter_changed = Signal(bool)
    """Presenter mode was switched on (True) or off, the window's font already set."""
    shutting_down = Signal()
    """The window is shutting down: the parts stop their timers, players and exports."""

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
        # Each game's view is built when first asked for (shown, loaded from a scenario, saved): at
        # start only the shown one. Building all nine (their rules modules, a course file read, their
        # editors) took about a fifth of the time to the first painted window.
        self._games: dict[str, Game] = {}
        self._default_methods: dict[str, str] = {}
        """The first algorithm each game last put in the Solver panel (a settings edit that changes it shows the new one)."""
        self._wired = False
        for g in games if games is not None else ():
            if g.parent() is None:
                g.setParent(self)
            self._games[g.key] = g
        self.games = GameList(self, list(self._games) if games is not None else registry.keys())
        """The games in picker order (:class:`~mdpviz.window.parts.GameList`: each built on first use)."""
        self.game: Game = self.games[0]
        self._selected_file: str | None = None
        """The course file the "MDP from file" game showed when last edited (another file: new states)."""
        self._shown_once = False
        """The window has been shown (the default dock sizes and the kernels' first load wait for it)."""

        self._build_widgets()
        self._build_docks()
        self._build_actions()
        # Each part declares its own state and connects to the signals above in its init; the order
        # is the order the parts hear a signal in (the model_changed listeners: playing, classroom, then
        # the solver's reset).
        self._init_playing()
        self._init_classroom()
        self._init_solving()
        self._init_live()  # (after the solving part: an edit's fresh solver is loaded before the live part runs it)
        self._init_learning()
        self._init_files()
        self._init_view()
        self._init_sensitivity()
        self.game_picker.currentIndexChanged.connect(lambda i: self.switch_game(self.games.keys[i]))
        self.scenario_loaded.connect(self._on_scenario_loaded)
        self._wired = True
        for g in self.games.built():
            self._wire_game(g)
        self.undo_group.setActiveStack(self.session.undo_stack)
        self._activate(self.game, initial=True)
        self._restore_settings()
        self.redraw_timer.start()
        if self.settings.value("window/geometry") is None:
            screen = self.screen()
            self.resize(default_size(screen.availableGeometry().size()) if screen is not None else DEFAULT_SIZE)

    # ------------------------------------------------------------------ construction
    def _build_widgets(self) -> None:
        self.game_picker = _named(QComboBox(), "gamePicker", "Game")
        for k in self.games.keys:
            self.game_picker.addItem(self._games[k].title if k in self._games else registry.title(k), k)
        self.game_picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.game_picker.setMinimumContentsLength(12)
        self.game_picker.setToolTip("The game to solve; each game keeps its own edits")
        self.color_bar = ColorBar()
        central = QWidget()
        central.setObjectName("boardArea")
        lay = QHBoxLayout(central)
        lay.setContentsMargins(4, 4, 4, 4)
        # Every game brings its board widget (a GameBoard: board games one position at a time, snakes
        # and course files a cell board) and may bring its simulation panel; the stacks show the active
        # game's (see Game.board_widget / Game.simulation_widget).
        self.board_stack = QStackedWidget()
        self.board_stack.setObjectName("boardStack")
        # A game's board, simulation panel and plot are built the first time the game is shown
        # (see _build_game_widgets): building every game's at start took most of the time to the first
        # painted window. The mappings below build on demand when asked for a game's widget.
        self._built: set[str] = set()
        self._boards: dict[str, GameBoard] = {}
        self._sims: dict[str, QWidget] = {}
        self._convs: dict[str, QWidget] = {}
        self.game_boards: Mapping[str, GameBoard] = GameWidgets(self, self._boards)
        """Each game's board widget, by game key (built on first use)."""
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
        self.game_convs: Mapping[str, QWidget] = GameWidgets(self, self._convs)
        """Each game's own convergence plot, by game key (built on first use)."""
        # The shared simulation panel, the comparison and the lesson are not on screen at start (pages
        # behind the board, a tab behind the inspector): they are built, and the lesson written, when
        # first shown or asked for (:attr:`simulation`, :attr:`compare_panel`, :attr:`lesson_panel`).
        self._simulation: SimulationPanel | None = None
        self._sim_placeholder = QWidget()
        self.sim_stack = QStackedWidget()
        self.sim_stack.setObjectName("simulationStack")
        self.sim_stack.addWidget(self._sim_placeholder)
        self.game_sims: Mapping[str, QWidget] = GameWidgets(self, self._sims)
        """Each game's own simulation panel, by game key (built on first use)."""
        self.player = EpisodePlayer()
        self._lesson_panel = LessonPanel()
        self._compare: ComparePanel | None = None
        compare_page = QWidget()
        compare_page.setObjectName("comparePage")
        QVBoxLayout(compare_page).setContentsMargins(0, 0, 0, 0)
        # results get the board's room: simulation (matchups) and the comparison are pages of the central tabs
        self.central_tabs.addTab(self.sim_stack, "Simulation")
        self.central_tabs.addTab(compare_page, "Compare methods")
        self.pages: dict[str, QWidget] = {"board": central, "simulation": self.sim_stack, "compare": compare_page}
        """The pages of the central tabs, by panel name (see :attr:`Game.panels`)."""
        self.editor_stack = QStackedWidget()
        self.editor_stack.setObjectName("gameEditors")
        self._editors: dict[str, QWidget] = {}  # each game's editor page, added when the game is first shown
        self.editor_stack.installEventFilter(self)
        self.edit_refusal = _named(QLabel(""), "editRefusal", "Why the last edit was refused")
        self.edit_refusal.setWordWrap(True)
        self.edit_refusal.setStyleSheet("color: #b00020;")  # dark red: readable on the dock's grey
        self.edit_refusal.hide()
        self._refusals: dict[str, str] = {}
        """Why each game's last edit was refused, kept until its next edit (shown above its editor)."""
        self.state_label = _named(QLabel(""), "solverStateLabel", "Solver state")
        self.setStatusBar(StatusBar(self))  # a long message elided before the solver's state, not under it
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
        # why an edit was refused: at the editor's top, seen at every size (the stack below can be taller
        # than the dock, which then clips what follows it)
        v.addWidget(self.edit_refusal)
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
        design = round(QFontMetricsF(self.font()).averageCharWidth() * GAME_DOCK_EM)
        scroll.setMinimumWidth(max(game_box.minimumSizeHint().width() + 16, design))
        self.game_dock = self._dock("Game", "gameDock", scroll, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.solver_dock = self._dock("Solver", "solverDock", self.solver_panel, Qt.DockWidgetArea.RightDockWidgetArea)
        self.inspector_dock = self._dock("Inspector", "inspectorDock", self.inspector, Qt.DockWidgetArea.RightDockWidgetArea)
        self.player_dock = self._dock("Episode player", "episodeDock", self.player, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.convergence_dock = self._dock("Convergence", "convergenceDock", self.conv_stack,
                                           Qt.DockWidgetArea.BottomDockWidgetArea)
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        self.lesson_dock = self._dock("Lesson", "lessonDock", self._lesson_panel, Qt.DockWidgetArea.RightDockWidgetArea)
        self.tabifyDockWidget(self.inspector_dock, self.lesson_dock)
        self.inspector_dock.raise_()
        self.docks: dict[str, QDockWidget] = {
            "game": self.game_dock, "solver": self.solver_dock, "inspector": self.inspector_dock,
            "player": self.player_dock, "convergence": self.convergence_dock, "lesson": self.lesson_dock}
        """The docks by panel name (see :attr:`Game.panels`)."""

    def showEvent(self, ev) -> None:  # noqa: N802
        super().showEvent(ev)
        if not self._shown_once:
            self._shown_once = True
            if not self._layout_restored:
                QTimer.singleShot(0, self, self._default_dock_sizes)
            # the kernels' first load (numba, scipy: ~0.5 s holding the GIL on the job thread) would
            # slow the window's first paint: it starts once the shown board has been painted, with
            # the solver thread's first load (held by ``run``, see hold_loads_until_first_paint)
            AfterFirstPaint(self.board_stack.currentWidget(), self._after_first_paint)

    def _after_first_paint(self) -> None:
        release_loads()
        self.controller.warm_up_kernels()

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
        # the key on the toolbar button's tooltip too (the menus show it; the toolbar did not)
        keys = " or ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in a.shortcuts())
        base = tip or text.replace("&&", "\0").replace("&", "").replace("\0", "&")
        a.setToolTip(f"{base} ({keys})" if keys else base)
        a.triggered.connect(slot)
        self.addAction(a)
        return a

    @staticmethod
    def _keyed_tooltip(a: QAction) -> None:
        """``a``'s tooltip: its text and its keys ("Undo example layout (Ctrl+Z)")."""
        if not shiboken6.isValid(a):  # the undo group changes its actions' text while the window is deleted
            return
        keys = " or ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in a.shortcuts())
        tip = a.text().replace("&&", "\0").replace("&", "").replace("\0", "&") + (f" ({keys})" if keys else "")
        if a.toolTip() != tip:
            a.setToolTip(tip)

    def _build_actions(self) -> None:
        self.undo_group = QUndoGroup(self)
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
        self.act_export_model = self._action("Export &model (DRN/PRISM)\u2026", "exportModelAction",
                                             self.export_model_dialog,
                                             tip="Write the model as Storm DRN or PRISM explicit files, with the "
                                                 "property that gives mdpviz's values")
        m.addAction(self.act_export_model)
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
        for a in (self.act_undo, self.act_redo):  # their text follows the undo stack: the key follows the text
            a.changed.connect(lambda a=a: self._keyed_tooltip(a))
            self._keyed_tooltip(a)
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
        self._solve_menu = m
        self._build_sensitivity_actions(m)

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
        self.act_bounds = self._action("&Error and bounds on the convergence plot", "boundsAction",
                                       self.set_theory_shown, "Ctrl+Shift+B", checkable=True,
                                       tip="Beside max |dV|: the true error max |V - V*| and, for value iteration, "
                                           "the bounds that the stopping rule and the contraction guarantee")
        m.addAction(self.act_bounds)
        self._build_live_actions(self._solve_menu, m)

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

    def _game(self, key: str) -> Game:
        """Game ``key`` (a key of :attr:`games`), its view built and wired now if it was not yet."""
        g = self._games.get(key)
        if g is None:
            g = view_class(key)(parent=self)
            self._games[key] = g
            if self._wired:
                self._wire_game(g)
        return g

    def _wire_game(self, g: Game) -> None:
        """Connect a newly built game to the window: its session (jobs on the controller, its undo stack,
        edits and messages) and its view."""
        s = g.session
        s.runner = self.controller
        self.undo_group.addStack(s.undo_stack)
        s.edited.connect(lambda text, g=g: self._on_game_edited(g, text))
        s.message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        s.refused.connect(lambda why, g=g: self._on_edit_refused(g, why))
        s.undo_stack.indexChanged.connect(lambda _i, g=g: self._on_edit_refused(g, ""))  # an edit, undo or redo
        s.changed.connect(lambda g=g: self._on_game_redraw(g))
        g.redraw.connect(lambda g=g: self._on_game_redraw(g))
        g.open_file_requested.connect(self.open_mdp_dialog)

    def _on_edit_refused(self, g: Game, why: str) -> None:
        """Game ``g`` refused an edit (``why``; "" after an edit that was applied): said above its editor
        until its next edit (the status bar hears it as the session's message)."""
        if why:
            self._refusals[g.key] = why
        else:
            self._refusals.pop(g.key, None)
        if g is self.game:
            self._show_refusal()

    def _show_refusal(self) -> None:
        if not shiboken6.isValid(self.edit_refusal):  # a game's undo stack is cleared as the window is deleted
            return
        why = self._refusals.get(self.game.key, "")
        self.edit_refusal.setText(why)
        self.edit_refusal.setVisible(bool(why))

    def eventFilter(self, obj, ev) -> bool:  # noqa: N802
        # A game editor built while the window is shown can keep the heights its word-wrapped labels
        # had at the width it was first laid out at (Qt's cached height-for-width; seen as extra room
        # under the grid world's notes after a resize): lay the shown editor out again when the
        # Game dock's height changes.
        if obj is self.editor_stack and ev.type() == QEvent.Type.Resize and ev.oldSize().height() != ev.size().height():
            lay = self.editor_stack.currentWidget().layout() if self.editor_stack.currentWidget() else None
            if lay is not None:
                lay.invalidate()
        return super().eventFilter(obj, ev)

    def _editor_page(self, g: Game) -> QWidget:
        """Game ``g``'s page of the Game dock (its editor), added to the dock's stack on first use."""
        ed = self._editors.get(g.key)
        if ed is None:
            ed = g.editor()
            if ed is None:
                ed = QLabel("Nothing to edit for this game.")
            self._editors[g.key] = ed
            self.editor_stack.addWidget(ed)
        return ed

    def _build_game_widgets(self, g: Game) -> None:
        """Build game ``g``'s board, its own simulation panel and plot (once, the first time it is shown
        or asked for), wire them like the shared ones and give them the window-wide view modes."""
        if g.key in self._built:
            return
        self._built.add(g.key)
        bw = g.board_widget()
        self._boards[g.key] = bw
        self.board_stack.addWidget(bw)
        self._fit_stack(self.board_stack)
        # the colour bar follows the shown position's scale
        bw.scale_changed.connect(lambda sc, k=g.key: self._on_board_scale(k, sc))
        bw.inspect_requested.connect(
            lambda s, key=g.key: self.inspect(s if s >= 0 else None) if self.game.key == key else None)
        bw.raise_inspector.connect(lambda key=g.key: self.inspector_dock.raise_() if self.game.key == key else None)
        # a board's note (e.g. why a position cannot be shown)
        bw.job_message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        bw.set_view_style(**self._board_style())
        if self.predict_mode:
            bw.set_predict_mode(True)
        if self.q_view:
            bw.set_q_view(True)
        cw = g.convergence_widget()
        if cw is not None:
            self._convs[g.key] = cw
            self.conv_stack.addWidget(cw)
            if self.presenter:
                cw.set_font_size(PRESENTER_PLOT_PX)
        sim = g.simulation_widget()
        if sim is not None:
            self._sims[g.key] = sim
            self.sim_stack.addWidget(sim)
            self._fit_stack(self.sim_stack)
            sim.simulate_requested.connect(self.start_simulation)
            sim.cancel_requested.connect(self.controller.cancel_job)
            sim.export_csv_requested.connect(self.export_csv_dialog)
            sim.export_plot_requested.connect(lambda: self.export_dialog("histogram"))

    @property
    def simulation(self) -> SimulationPanel:
        """The shared simulation panel (of the games without their own), built the first time it is
        shown or asked for."""
        if self._simulation is None:
            sim = SimulationPanel()
            self._simulation = sim
            self.sim_stack.addWidget(sim)
            sim.simulate_requested.connect(self.start_simulation)
            sim.cancel_requested.connect(self.controller.cancel_job)
            sim.export_csv_requested.connect(self.export_csv_dialog)
            sim.export_plot_requested.connect(lambda: self.export_dialog("histogram"))
            self._style_simulation()
            self._show_sim_page()
        return self._simulation

    def _show_sim_page(self) -> None:
        """The simulation page shows the active game's own panel, else the shared one (a blank page
        until that is built: when the page is first shown, see :meth:`_on_page_changed`)."""
        own = self._sims.get(self.game.key)
        page = own if own is not None else self._simulation if self._simulation is not None else self._sim_placeholder
        self.sim_stack.setCurrentWidget(page)
        self._fit_stack(self.sim_stack)

    @property
    def compare_panel(self) -> ComparePanel:
        """The Compare methods page's panel, built the first time it is shown or asked for."""
        if self._compare is None:
            from mdpviz.widgets.compare import ComparePanel

            cp = ComparePanel()
            self._compare = cp
            page = self.pages["compare"]
            page.layout().addWidget(cp)
            if page.isVisible():
                cp.show()
            cp.compare_requested.connect(self.compare_methods)
            cp.cancel_requested.connect(self.cancel_game_job)
            cp.export_csv_requested.connect(self.export_comparison_dialog)
            cp.chart.set_line_width(2.0 * self._line_factor())
        return self._compare

    @staticmethod
    def _fit_stack(stack: QStackedWidget) -> None:
        """Size a stack to its shown page only."""
        for k in range(stack.count()):
            pol = QSizePolicy.Policy.Expanding if k == stack.currentIndex() else QSizePolicy.Policy.Ignored
            stack.widget(k).setSizePolicy(pol, pol)

    # ------------------------------------------------------------------ games
    @property
    def board(self) -> GameBoard:
        """The shown game's board (every game draws its sweeps on its own :class:`GameBoard`)."""
        return self.game_boards[self.game.key]

    @property
    def session(self) -> GameSession:
        """The shown game's session (its settings, model, jobs: everything but drawing it)."""
        return self.game.session

    def game_by_key(self, key: str) -> Game:
        if key in self.games.keys:
            return self._game(key)
        raise ValueError(f"no game {key!r}; games: {', '.join(self.games.keys)}")

    def switch_game(self, key: str) -> None:
        """Show game ``key``; each game keeps its own edits (and undo history)."""
        g = self.game_by_key(key)
        if g is self.game:
            return
        if g.default_method != "vi":  # a game's own algorithm (Jack's car rental: policy iteration)
            self._show_default_method(g)
        self._activate(g)

    def _show_default_method(self, g: Game) -> None:
        """Put game ``g``'s first algorithm (:attr:`Game.default_method`) in the Solver panel, without a reset
        of its own (the caller resets the solver next)."""
        method = g.default_method
        self._default_methods[g.key] = method
        if method in METHOD_ORDER and method != self.solver_panel.method:
            self.solver_panel.algorithm.blockSignals(True)
            self.solver_panel.set_method(method)
            self.solver_panel.algorithm.blockSignals(False)

    def _activate(self, g: Game, *, initial: bool = False) -> None:
        self._build_game_widgets(g)
        self.game = g
        i = self.games.keys.index(g.key)
        if self.game_picker.currentIndex() != i:
            self.game_picker.blockSignals(True)
            self.game_picker.setCurrentIndex(i)
            self.game_picker.blockSignals(False)
        ed = self._editor_page(g)
        self.editor_stack.setCurrentWidget(ed)
        self._show_refusal()
        board = self._boards[g.key]
        self.board_stack.setCurrentWidget(board)
        # a board with its own colour bar (the grid world's diverging map) replaces the shared one
        self.color_bar.setVisible(not board.has_color_bar)
        self._fit_stack(self.board_stack)  # size each stack to its shown page only
        self._show_sim_page()
        self.conv_stack.setCurrentWidget(self._convs.get(g.key, self.convergence))
        self.convergence_dock.setWindowTitle(g.convergence_title)  # e.g. the 3D game's "Learning curve"
        self.convergence_dock.setAccessibleName(g.convergence_title)
        for k in range(self.editor_stack.count()):  # size the stack to the shown editor only
            pol = QSizePolicy.Policy.Preferred if self.editor_stack.widget(k) is ed else QSizePolicy.Policy.Ignored
            self.editor_stack.widget(k).setSizePolicy(pol, pol)
        # the dock's layout places the stack again (adjustSize() here shrank the shown editor to its
        # size hint when the game was already shown, as after opening a scenario: dice faces cut)
        self.editor_stack.updateGeometry()
        self.undo_group.setActiveStack(g.session.undo_stack)
        self.game_shown.emit(g)
        self.deselect()
        self._model_changed(f"{g.title}" if not initial else "")
        pos = board.position
        self.inspect(pos.state if pos is not None and pos.state >= 0 else None)

    def _on_scenario_loaded(self, g: Game) -> None:
        """A scenario was loaded (:attr:`scenario_loaded`): every built game's editor shows its loaded
        settings, and ``g`` is shown."""
        for b in self.games.built():
            b.refresh_editor()
        self._activate(g)

    def _on_game_edited(self, g: Game, text: str) -> None:
        if g is not self.game:
            return
        if g.default_method != self._default_methods.get(g.key, "vi"):  # e.g. the grid world's 4x4 map: evaluation
            self._show_default_method(g)
        self.apply_panels()
        path = g.source_path()
        if path != self._selected_file:  # another MDP file: its states are not the old file's
            self._selected_file = path
            self.deselect()
            self.inspector.show_inspection(None)
        self._model_changed(self._live_edit_message(text))  # (window/live.py: re-solved live, or why not)

    def _on_game_redraw(self, g: Game) -> None:
        """Something a game shows changed (a display setting, its driver's or a job's state), not its model."""
        if g is self.game:
            self.apply_panels()
            self.mark_dirty()  # the board lays itself out again on the game's redraw
            self._update_status(self.shown_sweep())

    # ------------------------------------------------------------------ panels each game uses
    def show_page(self, name: str) -> None:
        """Bring a page of the central tabs to the front: "board", "simulation" or "compare"."""
        self.central_tabs.setCurrentWidget(self.pages[name])

    def _model_changed(self, message: str) -> None:
        """The model (or the game) changed: the parts hear :attr:`model_changed` (the solver is reset,
        simulations and the episode forgotten); then the status bar says why."""
        g, s = self.game, self.session
        mdp = s.mdp()
        self.solver_panel.set_discount(None if mdp is None else mdp.discount, editable=s.game.supports_discount,
                                       why=s.game.discount_tooltip())
        self.model_changed.emit()
        err = s.mdp_error()
        if err:
            self.statusBar().showMessage(f"{g.title}: {err}", 10000)
        elif message:
            self.statusBar().showMessage(message, 6000)

    def closeEvent(self, ev: QCloseEvent) -> None:  # noqa: N802
        if self.dirty:
            ans = self.dialogs.ask_unsaved()
            if ans == "cancel" or (ans == "save" and not self.save_scenario_dialog()):
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
