"""The games on the stage of the main window: the picker, each game's editor, board, simulation panel and
plot, and the central pages (board, simulation, comparison).

:class:`StagePart` is one part of :class:`mdpviz.app.MainWindow`, handed the window's
:class:`~mdpviz.window.hub.Hub`. It owns the games (each built on first use), the shown one
(:attr:`StagePart.game`, :attr:`StagePart.session`, :attr:`StagePart.board`: what the other parts read
of the shown game), the widgets built per game and the central pages. It emits the hub's
``game_shown`` and ``model_changed`` and hears ``scenario_loaded``; an edit of the shown game asks the
live part what to say (:meth:`~mdpviz.window.live.LivePart.edit_message`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)
from PySide6.QtGui import QFontMetricsF

from mdpviz.models.kit.game import registry
from mdpviz.solvers import registry as methods
from mdpviz.widgets import named as _named
from mdpviz.widgets.game import Game
from mdpviz.widgets.game_board import GameBoard
from mdpviz.widgets.games import view_class
from mdpviz.widgets.panels import in_picker
from mdpviz.widgets.session import GameSession
from mdpviz.widgets.simulation import SimulationPanel
from mdpviz.window.hub import Hub
from mdpviz.window.parts import GAME_DOCK_EM, PRESENTER_PLOT_PX, GameList, GameWidgets

if TYPE_CHECKING:
    from mdpviz.widgets.compare import ComparePanel  # built, and imported, when its page is first shown


class StagePart(QObject):
    """The games and their widgets (part of :class:`~mdpviz.app.MainWindow`)."""

    def __init__(self, hub: Hub, *, games: Sequence[Game] | None = None) -> None:
        """Build the picker, the central pages and the Game dock's editor stack; ``games``: the games to
        offer (default: every registered game, each built when first shown)."""
        super().__init__(hub)
        self._hub = hub
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
        """The shown game."""
        self._selected_file: str | None = None
        """The course file the "MDP from file" game showed when last edited (another file: new states)."""
        self.game_picker = _named(QComboBox(), "gamePicker", "Game")
        for k in self.games.keys:
            self.game_picker.addItem(self._games[k].title if k in self._games else registry.title(k), k)
        self.game_picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.game_picker.setMinimumContentsLength(12)
        self.game_picker.setToolTip("The game to solve; each game keeps its own edits")
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
        # (see build_widgets): building every game's at start took most of the time to the first
        # painted window. The mappings below build on demand when asked for a game's widget.
        self._built: set[str] = set()
        self._boards: dict[str, GameBoard] = {}
        self._sims: dict[str, QWidget] = {}
        self._convs: dict[str, QWidget] = {}
        self.game_boards: Mapping[str, GameBoard] = GameWidgets(self, self._boards)
        """Each game's board widget, by game key (built on first use)."""
        lay.addWidget(self.board_stack, 1)
        lay.addWidget(hub.color_bar)
        self.board_area = central
        """The board and its colour bar (the "Board" page of the central tabs; what Export > Board saves)."""
        self.central_tabs = _named(QTabWidget(), "centralTabs", "Board and results")
        """The central pages (the window's central widget)."""
        self.central_tabs.setDocumentMode(True)
        self.central_tabs.addTab(central, "Board")
        self.game_convs: Mapping[str, QWidget] = GameWidgets(self, self._convs)
        """Each game's own convergence plot, by game key (built on first use)."""
        # The shared simulation panel and the comparison are not on screen at start (pages behind the
        # board): they are built when first shown or asked for (:attr:`simulation`, :attr:`compare_panel`).
        self._simulation: SimulationPanel | None = None
        self.sim_placeholder = QWidget()
        """The simulation page's blank page until the shared panel is built."""
        self.sim_stack = QStackedWidget()
        self.sim_stack.setObjectName("simulationStack")
        self.sim_stack.addWidget(self.sim_placeholder)
        self.game_sims: Mapping[str, QWidget] = GameWidgets(self, self._sims)
        """Each game's own simulation panel, by game key (built on first use)."""
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
        design = round(QFontMetricsF(hub.main.font()).averageCharWidth() * GAME_DOCK_EM)
        scroll.setMinimumWidth(max(game_box.minimumSizeHint().width() + 16, design))
        self.game_scroll = scroll
        """The Game dock's content: the picker, why an edit was refused, the shown game's editor."""
        self.game_picker.currentIndexChanged.connect(lambda i: self.switch_game(self.games.keys[i]))
        hub.scenario_loaded.connect(self._on_scenario_loaded)

    def wire(self) -> None:
        """Connect the games built so far (and from now on each as it is built) to the window (once, when
        every part is built: a game's widgets call into the other parts)."""
        self._wired = True
        for g in self.games.built():
            self._wire_game(g)
        self._hub.undo_group.setActiveStack(self.session.undo_stack)

    def built_games(self) -> dict[str, Game]:
        """The games built so far, by key."""
        return dict(self._games)

    def built_boards(self) -> list[GameBoard]:
        """Every game's board built so far."""
        return list(self._boards.values())

    def built_plots(self) -> list[QWidget]:
        """Every game's own convergence plot built so far."""
        return list(self._convs.values())

    def own_simulation(self, key: str) -> QWidget | None:
        """Game ``key``'s own simulation panel, if it has one and it is built."""
        return self._sims.get(key)

    def plot_of(self, key: str) -> QWidget:
        """The Convergence dock's page for game ``key``: its own plot, else the sweeps' plot."""
        return self._convs.get(key, self._hub.convergence)

    @property
    def shared_simulation(self) -> SimulationPanel | None:
        """The shared simulation panel if it is built (None: not yet; :attr:`simulation` builds it)."""
        return self._simulation

    @property
    def built_compare_panel(self) -> ComparePanel | None:
        """The comparison panel if it is built (None: not yet; :attr:`compare_panel` builds it)."""
        return self._compare

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
        s.runner = self._hub.controller
        self._hub.undo_group.addStack(s.undo_stack)
        s.edited.connect(lambda text, g=g: self._on_game_edited(g, text))
        s.message.connect(lambda text: self._hub.status.showMessage(text, 8000))
        s.refused.connect(lambda why, g=g: self._on_edit_refused(g, why))
        s.undo_stack.indexChanged.connect(lambda _i, g=g: self._on_edit_refused(g, ""))  # an edit, undo or redo
        s.changed.connect(lambda g=g: self._on_game_redraw(g))
        g.redraw.connect(lambda g=g: self._on_game_redraw(g))
        g.open_file_requested.connect(self._hub.files.open_mdp_dialog)

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

    def build_widgets(self, g: Game) -> None:
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
        bw.scale_changed.connect(lambda sc, k=g.key: self._hub.solving.on_board_scale(k, sc))
        bw.inspect_requested.connect(
            lambda s, key=g.key: self._hub.solving.inspect(s if s >= 0 else None) if self.game.key == key else None)
        bw.raise_inspector.connect(lambda key=g.key: self._hub.docks["inspector"].raise_() if self.game.key == key else None)
        # a board's note (e.g. why a position cannot be shown)
        bw.job_message.connect(lambda text: self._hub.status.showMessage(text, 8000))
        bw.set_view_style(**self._hub.classroom.board_style())
        if self._hub.classroom.predict_mode:
            bw.set_predict_mode(True)
        if self._hub.classroom.q_view:
            bw.set_q_view(True)
        cw = g.convergence_widget()
        if cw is not None:
            self._convs[g.key] = cw
            self._hub.conv_stack.addWidget(cw)
            if self._hub.view.presenter:
                cw.set_font_size(PRESENTER_PLOT_PX)
        sim = g.simulation_widget()
        if sim is not None:
            self._sims[g.key] = sim
            self.sim_stack.addWidget(sim)
            self._fit_stack(self.sim_stack)
            sim.simulate_requested.connect(self._hub.playing.start_simulation)
            sim.cancel_requested.connect(self._hub.controller.cancel_job)
            sim.export_csv_requested.connect(self._hub.files.export_csv_dialog)
            sim.export_plot_requested.connect(lambda: self._hub.files.export_dialog("histogram"))

    @property
    def simulation(self) -> SimulationPanel:
        """The shared simulation panel (of the games without their own), built the first time it is
        shown or asked for."""
        if self._simulation is None:
            sim = SimulationPanel()
            self._simulation = sim
            self.sim_stack.addWidget(sim)
            sim.simulate_requested.connect(self._hub.playing.start_simulation)
            sim.cancel_requested.connect(self._hub.controller.cancel_job)
            sim.export_csv_requested.connect(self._hub.files.export_csv_dialog)
            sim.export_plot_requested.connect(lambda: self._hub.files.export_dialog("histogram"))
            self._hub.view.style_simulation()
            self._show_sim_page()
        return self._simulation

    def _show_sim_page(self) -> None:
        """The simulation page shows the active game's own panel, else the shared one (a blank page
        until that is built: when the page is first shown, see :meth:`_on_page_changed`)."""
        own = self._sims.get(self.game.key)
        page = own if own is not None else self._simulation if self._simulation is not None else self.sim_placeholder
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
            cp.compare_requested.connect(self._hub.classroom.compare_methods)
            cp.cancel_requested.connect(self._hub.playing.cancel_game_job)
            cp.export_csv_requested.connect(self._hub.classroom.export_comparison_dialog)
            cp.chart.set_line_width(2.0 * self._hub.classroom.line_factor())
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
        if g.default_method != methods.DEFAULT_SOLVER:  # a game's own algorithm (Jack's car rental: policy iteration)
            self._hub.files.solver_set_by_game(lambda: self._show_default_method(g))  # (not an edit)
        self.activate(g)

    def _show_default_method(self, g: Game) -> None:
        """Put game ``g``'s first algorithm (:attr:`Game.default_method`) in the Solver panel, without a reset
        of its own (the caller resets the solver next)."""
        method = g.default_method
        self._default_methods[g.key] = method
        if in_picker(method) and method != self._hub.solver_panel.method:
            self._hub.solver_panel.algorithm.blockSignals(True)
            self._hub.solver_panel.set_method(method)
            self._hub.solver_panel.algorithm.blockSignals(False)

    def activate(self, g: Game, *, initial: bool = False) -> None:
        self.build_widgets(g)
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
        self._hub.color_bar.setVisible(not board.has_color_bar)
        self._fit_stack(self.board_stack)  # size each stack to its shown page only
        self._show_sim_page()
        self._hub.conv_stack.setCurrentWidget(self._convs.get(g.key, self._hub.convergence))
        self._hub.docks["convergence"].setWindowTitle(g.convergence_title)  # e.g. the 3D game's "Learning curve"
        self._hub.docks["convergence"].setAccessibleName(g.convergence_title)
        for k in range(self.editor_stack.count()):  # size the stack to the shown editor only
            pol = QSizePolicy.Policy.Preferred if self.editor_stack.widget(k) is ed else QSizePolicy.Policy.Ignored
            self.editor_stack.widget(k).setSizePolicy(pol, pol)
        # the dock's layout places the stack again (adjustSize() here shrank the shown editor to its
        # size hint when the game was already shown, as after opening a scenario: dice faces cut)
        self.editor_stack.updateGeometry()
        self._hub.undo_group.setActiveStack(g.session.undo_stack)
        self._hub.game_shown.emit(g)
        self._hub.solving.deselect()
        self._model_changed(f"{g.title}" if not initial else "")
        pos = board.position
        self._hub.solving.inspect(pos.state if pos is not None and pos.state >= 0 else None)

    def _on_scenario_loaded(self, g: Game) -> None:
        """A scenario was loaded (the hub's ``scenario_loaded``): every built game's editor shows its loaded
        settings, and ``g`` is shown."""
        for b in self.games.built():
            b.refresh_editor()
        self.activate(g)

    def _on_game_edited(self, g: Game, text: str) -> None:
        """Game ``g``'s model changed (its session's ``edited``): an edit (said twice when its model is built on
        the job thread: made, then built), or with no text the end of a compile no edit asked for (the game
        shown or a scenario opened: the model arrives, nothing was edited)."""
        if g is not self.game:
            return
        if not text:  # (as when the game is shown: the board's position is inspected)
            self._model_changed("")
            pos = self._boards[g.key].position if g.key in self._boards else None
            if pos is not None and pos.state >= 0 and self._hub.solving.selected is None:
                self._hub.solving.inspect(pos.state)
            return
        if g.default_method != self._default_methods.get(g.key, methods.DEFAULT_SOLVER):  # e.g. the grid world's 4x4 map: evaluation
            self._show_default_method(g)
        self._hub.view.apply_panels()
        path = g.source_path()
        if path != self._selected_file:  # another MDP file: its states are not the old file's
            self._selected_file = path
            self._hub.solving.deselect()
            self._hub.inspector.show_inspection(None)
        self._model_changed(self._hub.live.edit_message(text))  # (window/live.py: re-solved live, or why not)

    def _on_game_redraw(self, g: Game) -> None:
        """Something a game shows changed (a display setting, its driver's or a job's state), not its model."""
        if g is self.game:
            self._hub.view.apply_panels()
            self._hub.solving.mark_dirty()  # the board lays itself out again on the game's redraw
            self._hub.solving.update_status(self._hub.solving.shown_sweep())

    # ------------------------------------------------------------------ panels each game uses
    def show_page(self, name: str) -> None:
        """Bring a page of the central tabs to the front: "board", "simulation" or "compare"."""
        self.central_tabs.setCurrentWidget(self.pages[name])

    def _model_changed(self, message: str) -> None:
        """The model (or the game) changed: the parts hear the hub's ``model_changed`` (the solver is reset,
        simulations and the episode forgotten); then the status bar says why."""
        g, s = self.game, self.session
        mdp = s.mdp()
        self._hub.solver_panel.set_discount(None if mdp is None else mdp.discount, editable=s.game.supports_discount,
                                       why=s.game.discount_tooltip())
        self._hub.model_changed.emit()
        err = s.mdp_error()
        if err:
            self._hub.status.showMessage(f"{g.title}: {err}", 10000)
        elif message:
            self._hub.status.showMessage(message, 6000)

