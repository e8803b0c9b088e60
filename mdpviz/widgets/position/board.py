"""The position board: one position of a board game, its moves coloured by value; walk the game tree.

A board game has thousands of states on a board of a few cells, so the board shows ONE position:
each legal move's cell coloured by its Q-value at the shown sweep (the window's fixed colour
scale), the number on it, the greedy move starred. Clicking a cell plays the move; the model
answers (random opponent, risk coin, fixed policy) and the walk goes on. Back / Forward / New
game walk the history; in "play vs agent" mode the user plays one mark against the greedy policy
of the shown values, with a "hide hints" switch. The logic lives in :mod:`mdpviz.models.kit.boards.position`
and :mod:`mdpviz.models.kit.boards.position_display` (no Qt), the rules in ``mdpviz.models``; the canvas in
:mod:`.canvas`, the texts and the moves table beside it in :mod:`.side`.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np
from PySide6.QtCore import QEvent, QRectF, Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication, QBoxLayout, QCheckBox, QComboBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from mdpviz.models.kit.pictures.colors import DIVERGING, ColorScale, fitted_scale, scale_for
from mdpviz.models.kit.pictures.display import backup_q, backup_text
from mdpviz.models.kit.boards.position import (
    DECISION,
    MODEL,
    PLAY,
    USER,
    WALK,
    GameWalk,
    Position,
    PositionModel,
    PositionView,
    greedy_move,
    outcome_text,
    position_view,
)
from mdpviz.models.kit.boards.position_display import (NOT_VISITED, html_escape, moves_range, table_rows, unvisited_view,
                                                       walk_path_text, walk_words)
from mdpviz.solvers import Sweep
from mdpviz.widgets import named as _named
from mdpviz.widgets.game_board import GameBoard
from mdpviz.widgets.position.canvas import PositionCanvas
from mdpviz.widgets.position.change import ShownChange, both_scale, fits, position_change, shown_model
from mdpviz.widgets.position.painters import BoardPainter
from mdpviz.widgets.position.side import PositionSide


# ---------------------------------------------------------------------------------- the board
OUTCOME_DELAY_MS = 200
"""The exact outcome line waits until the shown values have held still this long (a Run's frames come
every ~33 ms: it is worked out once when they stop, not in every frame)."""

OUTCOME_PENDING = "Exact from here (greedy play): \u2026 (worked out when the values hold still)"
"""The outcome line while it waits."""


class PositionBoard(GameBoard):
    """One position of a board game with the walk's controls (see the module docstring).

    Emits :attr:`~GameBoard.inspect_requested` with the MDP state of the shown position,
    :attr:`~GameBoard.job_message` and :attr:`~GameBoard.scale_changed` (see :class:`GameBoard`)."""

    position_changed = Signal(object)
    """The new :class:`Position`."""
    change_mark = ""  # (the changed moves at the shown position are ringed, and the caption says so)

    def __init__(self, model: Callable[[], PositionModel | None], painter: Callable[[], BoardPainter], *,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("positionBoard")
        # the exact outcome line is worked out once the shown values hold still for OUTCOME_DELAY_MS, for
        # the newest values only (issue 35 item 8: a whole-game evaluation, 20-70 ms on risk tic-tac-toe,
        # ran in every frame of a learner's Run, on the GUI thread)
        self._outcome_args: tuple | None = None
        self._outcome_timer = QTimer(self)
        self._outcome_timer.setSingleShot(True)
        self._outcome_timer.setInterval(OUTCOME_DELAY_MS)
        self._outcome_timer.timeout.connect(self._show_outcomes)
        self.setAccessibleName("Board game position")
        self._model_fn = model
        self._painter_fn = painter
        self.model: PositionModel | None = None
        self.walk: GameWalk | None = None
        self.values: Any = None
        self.scale: ColorScale | None = None
        self.caption = ""
        self.hide_hints = False
        self.predict = False
        self._revealed: set[int] = set()
        self._revealed_key: Any = None
        self.origin = -1
        self.selected_action: int | None = None
        self.last_text = ""
        self.token_text = ""
        self._seed = 0
        self._view: PositionView | None = None
        self.edit_text = ""
        self.own_scale: ColorScale | None = None
        """The colour scale the board made itself (no sweep, but the model has values and a range)."""
        self.value_range: Any = None
        """The solve's :class:`~mdpviz.controller.ValueRange` (its ``values``: the exact optimal V, if
        known), from :meth:`set_value_range`."""
        self.shown_scale: ColorScale | None = None
        """The colour scale of the shown position (see :meth:`color_range`)."""
        self._seen: dict[Any, tuple[float, float]] = {}
        self._fill_key: Any = None  # what the moves table shows (refilled only when it changes)
        self.change: ShownChange | None = None
        self.unvisited: np.ndarray | None = None  # states a learner's behaviour never visited (show_unvisited)
        """The last edit's diff as the window shows it (:meth:`show_change`; None: none), kept while the walk
        goes on, so that every position walked to shows what the edit changed there."""

        self.canvas = PositionCanvas(painter())
        # the texts, the moves table and the backup box beside the board (see PositionSide)
        self.side = side = PositionSide()
        self.caption_label, self.status = side.caption_label, side.status
        self.value_label, self.outcome_label, self.visited_label = side.value_label, side.outcome_label, side.visited_label
        self.moves_table, self.backup_label = side.moves_table, side.backup_label
        self.texts_scroll, self.backup_scroll = side.texts_scroll, side.backup_scroll

        self.back_button = _named(QPushButton("\u25c0 Back"), "positionBack", "Back one move")
        self.forward_button = _named(QPushButton("Forward \u25b6"), "positionForward", "Forward one move")
        self.new_button = _named(QPushButton("New game"), "positionNewGame", "New game")
        self.mode_combo = _named(QComboBox(), "positionMode", "Mode")
        self.mode_combo.addItem("Walk the game tree", WALK)
        self.mode_combo.addItem("Play vs agent", PLAY)
        self.mode_combo.setToolTip("Walk the tree (you play every move; the model answers) or play a game "
                                   "against the greedy policy of the shown values")
        self.human_combo = _named(QComboBox(), "positionHuman", "Your mark")
        self.human_combo.setToolTip("The mark you play against the agent")
        self.first_combo = _named(QComboBox(), "positionFirst", "Who moves first")
        self.first_combo.setToolTip("Who makes the first move of a game against the agent")
        self.hide_check = _named(QCheckBox("Hide hints"), "positionHideHints", "Hide hints")
        self.hide_check.setToolTip("Hide the values and the greedy mark on the board (for students)")

        # The board takes as much of the tab as it can: the canvas (with the walk's buttons under it) and
        # a side panel with every text beside it (resizeEvent -> _arrange).
        self.canvas_column = QWidget()
        self.canvas_column.setObjectName("positionCanvasColumn")
        left = QVBoxLayout(self.canvas_column)
        left.setContentsMargins(0, 0, 0, 0)
        left.addWidget(self.canvas, 1)
        nav = QHBoxLayout()
        nav.addWidget(self.back_button)
        nav.addWidget(self.forward_button)
        nav.addWidget(self.new_button)
        nav.addStretch(1)
        left.addLayout(nav)
        # rows: the six controls in one row were wider than the side panel at 1366x768 and in presenter
        # mode, and overlapped ("Play vs ageyou play", "Hide hin"); the play row is shown in PLAY only. The
        # mode box and "Hide hints" share a row where the side panel is as wide as they need, else (the
        # 1280x720 gallery pictures, where the window squeezes the panel below its minimum and the two
        # touched) "Hide hints" goes under the box (see _fit_mode_row)
        self.human_caption = QLabel("you play")
        self.first_caption = QLabel("first")
        self._mode_row = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        play_row = QHBoxLayout()
        for row, widgets in ((self._mode_row, (self.mode_combo, self.hide_check)),
                             (play_row, (self.human_caption, self.human_combo, self.first_caption, self.first_combo))):
            for wid in widgets:
                row.addWidget(wid)
            row.addStretch(1)
        hva = QVBoxLayout()
        hva.setSpacing(3)
        hva.addLayout(self._mode_row)
        hva.addLayout(play_row)
        side.add_controls(hva)
        self._box = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        self._box.setContentsMargins(0, 0, 0, 0)
        self._box.addWidget(self.canvas_column, 1)
        self._box.addWidget(side, 1)

        self.canvas.cell_clicked.connect(self.click_cell)
        self.canvas.cell_right_clicked.connect(self._on_right_click)
        self.back_button.clicked.connect(self.back)
        self.forward_button.clicked.connect(self.forward)
        self.new_button.clicked.connect(self.new_game)
        self.mode_combo.currentIndexChanged.connect(lambda _i: self.set_mode(self.mode_combo.currentData()))
        self.human_combo.currentIndexChanged.connect(lambda _i: self._on_human())
        self.first_combo.currentIndexChanged.connect(lambda _i: self._on_first())
        self.hide_check.toggled.connect(self.set_hide_hints)
        self.moves_table.itemSelectionChanged.connect(self._on_table_selection)
        self.moves_table.cellDoubleClicked.connect(self._on_table_double)
        self._sync_model()
        self._fit_mode_combo()
        side.installEventFilter(self)  # the mode row follows the side panel's width (_fit_mode_row)

    # ------------------------------------------------------------------ layout
    SIDE_WIDTH = 270
    """The side panel's width beside the board (px): its texts wrap to a few lines, the moves fit."""
    WIDE_SIDE_SHARE = 0.4
    """The most of the width the texts may take beside a wide board (the cube): they scroll beyond."""

    def board_aspect(self) -> float:
        """Width over height of the board the painter draws (1 for a square grid, about 3 for the cube)."""
        pos = self.position
        n = int(pos.cells.size) if pos is not None else 9
        key = (id(self.canvas.painter_), n)
        if getattr(self, "_aspect_key", None) != key:
            rects = self.canvas.painter_.cell_rects(QRectF(0, 0, 100_000, 1000), n)
            if rects:
                w = max(r.right() for r in rects) - min(r.left() for r in rects)
                h = max(r.bottom() for r in rects) - min(r.top() for r in rects)
                self._aspect = max(0.2, min(10.0, w / h)) if h > 0 else 1.0
            else:
                self._aspect = 1.0
            self._aspect_key = key
        return self._aspect

    def _arrange(self) -> None:
        """Cap the board's column so that the board is as large as the tab's height allows and the rest of
        the width goes to the side panel's texts."""
        w, h = self.width(), self.height()
        if w <= 0 or h <= 0:
            return
        a = self.board_aspect()
        nav = self.canvas_column.layout().itemAt(1).sizeHint().height() + 6
        pad = 12 + (18 if a > 1.5 else 0)  # the canvas's margins (and the cube's layer titles)
        big = 16_777_215  # QWIDGETSIZE_MAX
        # Beside only: below, the side panel's minimum height added to the board's would raise the
        # window's minimum height past a 720-px screen. A square board takes the tab's full height and the
        # texts the rest of the width; a wide board (the cube's three layers) is limited by the width, so
        # it gets most of it.
        buttons = self.canvas_column.layout().itemAt(1).sizeHint().width()
        controls = self.side.controls.minimumSize().width() if self.side.controls is not None else 0
        if a <= 1.5:
            side_w = max(self.SIDE_WIDTH, w - int((h - nav - pad) * a + pad))
            widest = w - buttons
        else:
            # the cube's layers (side by side, or two over one where the tab is taller) need width
            # more than the texts do: these keep at most WIDE_SIDE_SHARE of it and scroll beyond
            side_w = max(240, int(w * 0.36))
            widest = max(side_w, int(w * self.WIDE_SIDE_SHARE))
        side_w = max(side_w, controls)  # the mode, marks and hints read whole
        # a long caption (anti-tic-tac-toe's rounds) needs more lines: widen the texts until they fit
        # (but never narrower than the Back / Forward / New game buttons under the board)
        while side_w + 30 <= min(widest, w - buttons) and self.side.needed_height(side_w, h) > h:
            side_w += 30
        self.canvas_column.setMaximumSize(max(160, buttons, w - side_w), big)
        # beside a wide board the texts get no more than planned (the layout would split the width evenly)
        # (a square board's side panel is left alone: measuring or capping it re-lays the panel out)
        cap = max(side_w, self.side.minimumSizeHint().width()) if a > 1.5 else big
        if self.side.maximumWidth() != cap:
            self.side.setMaximumWidth(cap)
        actual = self.side.width()  # the width the texts wrap at (once laid out), else the planned one
        self.side.fit(min(side_w, actual) if actual > 100 else side_w, h)

    def _mode_row_width(self) -> int:
        """Pixels the mode box and "Hide hints" need side by side (the row's least width)."""
        return (self.mode_combo.minimumWidth() + self.hide_check.minimumSizeHint().width()
                + max(0, self._mode_row.spacing()))

    def _fit_mode_row(self) -> None:
        """The mode box and "Hide hints" side by side where the side panel holds both, else one under
        the other."""
        have = self.side.width()
        if have <= 100:  # not laid out yet
            return
        need = self._mode_row_width()
        app_pt = QApplication.font().pointSizeF()
        if app_pt > 0 and self.font().pointSizeF() > 1.2 * app_pt:
            # presenter mode (the window's larger font): the window keeps the side panel as wide as the
            # row, and a second row would take height the |dV| plot needs on a 720-px projector
            need = 0
        across = self._mode_row.direction() == QBoxLayout.Direction.LeftToRight
        if across and have < need:  # squeezed below the row's minimum (the window has no more room)
            self._mode_row.setDirection(QBoxLayout.Direction.TopToBottom)
        elif not across and have >= need:
            self._mode_row.setDirection(QBoxLayout.Direction.LeftToRight)

    def resizeEvent(self, ev) -> None:  # noqa: N802
        super().resizeEvent(ev)
        self._arrange()

    def eventFilter(self, obj, ev) -> bool:  # noqa: N802
        if obj is self.side and ev.type() == QEvent.Type.Resize:
            self._fit_mode_row()
        return super().eventFilter(obj, ev)

    def changeEvent(self, ev) -> None:  # noqa: N802
        super().changeEvent(ev)
        if ev.type() == QEvent.Type.FontChange and getattr(self, "side", None) is not None:  # presenter mode: the moves table's columns are re-measured
            self._fill_key = None
            self._refresh()
            QTimer.singleShot(0, self._fit_mode_combo)  # once every child has the new font

    def _fit_mode_combo(self) -> None:
        """The mode box as wide as its longest mode in the current font: never cut ("Walk the game
        tre" beside the cube in presenter mode); the side panel's minimum width follows."""
        w = self.mode_combo.sizeHint().width()
        if self.mode_combo.minimumWidth() != w:
            self.mode_combo.setMinimumWidth(w)
            self._arrange()

    # ------------------------------------------------------------------ the window's calls
    def show_sweep(self, sweep: Sweep | None, scale: ColorScale | None, *, caption: str = "", previous: Any = None,
                   delta: ColorScale | None = None) -> None:
        """The values of one sweep (None: no sweep yet; the model's default values are shown, if any).
        A position shows its moves' values: no change from ``previous``, no delta view."""
        self.change = None  # (the window hands the last edit's diff again after this, see show_change)
        self.unvisited = None  # (a learner's frame marks them after this: show_unvisited)
        self.show_values(None if sweep is None else np.asarray(sweep.values), scale, caption=caption)

    def show_values(self, values: Any, scale: ColorScale | None, *, caption: str = "") -> None:
        """Values from any source (the model's ``move_values`` interprets them)."""
        self._sync_model()
        self._set_values(values, scale)
        self.caption = caption
        self._refresh()

    def show_change(self, diff: Any, mode: str, scale: ColorScale | None = None) -> bool:
        """The last edit's diff at the shown position (and every position walked to until the next sweep is
        shown): the moves whose optimality changed ringed, a line of what changed here, the Q-values of the
        model before the edit ("before"), or each move's Q after - Q before ("difference"; see
        :mod:`.change`). False when the diff is not of the model walked."""
        self._sync_model()
        if not fits(diff, self.model):
            return False
        self.change = ShownChange(diff, mode, scale)
        self._fill_key = None
        self._refresh()
        return True

    def show_unvisited(self, states: Any) -> bool:
        """States a learner's behaviour never visited (bool per state; None: none): such a position is shown
        with its legal moves hatched, no numbers and no value colours, and says so (issue 35 item 6)."""
        self.unvisited = u = None if states is None else np.asarray(states, dtype=bool)
        pos = self.position  # (redrawn only when the shown position is, or was drawn, unvisited)
        if self.canvas.hatched or (pos is not None and u is not None and 0 <= pos.state < u.size and u[pos.state]):
            self._refresh()
        return True

    def set_value_range(self, rng: Any) -> None:
        """The solve's value range (None: no solve). A new one starts the ranges seen afresh."""
        if rng is not self.value_range:
            self.value_range = rng
            self._seen = {}

    def color_range(self) -> tuple[float, float] | None:
        """(low, high): the values drawn with the two ends of the shown position's colour scale
        (None: nothing coloured yet)."""
        s = self.shown_scale
        return None if s is None else (s.lo, s.hi)

    def position_scale(self, pos: Position) -> ColorScale | None:
        """The colour scale of ``pos``: it spans the Q-values of the position's legal moves. With the
        solve's exact optimal values (small models) those of the optimal values, fixed for the solve;
        otherwise the range of the values shown at this position so far, widened when exceeded and
        never shrunk within the solve. Positions without move values keep the last scale."""
        base, m = self.scale, self.model
        if base is None or m is None:
            return None
        keep = self.shown_scale if self.shown_scale is not None and self.shown_scale.label == base.label else base
        if pos.terminal or pos.chooser != DECISION:
            return keep
        ref = getattr(self.value_range, "values", None)
        mdp = getattr(m, "mdp", None)
        exact = ref is not None and mdp is not None and np.shape(ref) == (mdp.n_states,)
        if exact:
            rng = moves_range(m.move_values(pos, ref))
        elif self.values is None:
            return keep
        else:
            rng = moves_range(m.move_values(pos, self.values), self._seen.get(pos.key))
            if rng is not None:
                self._seen[pos.key] = rng
        if rng is None:
            return keep
        return fitted_scale(rng[0], rng[1], label=base.label, kind=base.kind)

    def _set_values(self, values: Any, scale: ColorScale | None) -> None:
        """Store ``values`` (None: the model's default values) and the colour scale (None: the
        model's own range, if it has one, as :attr:`own_scale`)."""
        if values is None and self.model is not None:
            values = self.model.default_values()
        self.own_scale = None
        if scale is None and values is not None and self.model is not None:
            rng = self.model.value_range()
            if rng is not None:
                self.own_scale = scale = scale_for(rng[0], rng[1], label=self.model.value_label, kind=DIVERGING)
        self.values = values
        self.scale = scale

    def initial_values(self, model: PositionModel) -> Any:
        """The values a new model starts with (see :meth:`_sync_model`): None, i.e. the model's default
        values, since the previous model's values index other states. A board whose values do not
        depend on the model (the 3D game's agent) returns them here."""
        return None

    def show_token(self, state: int | None, text: str = "") -> None:
        """Show the position of MDP ``state`` (the episode player's token); None: nothing changes."""
        self._sync_model()
        if state is None or self.model is None or self.walk is None:
            return
        try:
            pos = self.model.position_of(int(state))
        except ValueError as e:
            self.job_message.emit(str(e))
            return
        self.token_text = text
        self.show_position(pos, f"Episode: {text}" if text else "")

    def show_episode_end(self, state: int, action: int, end: int, text: str = "") -> bool:
        """The last board of an episode that ended in an end state without a board (tic-tac-toe vs
        random's outcome states: it showed an empty board), from the model's
        :meth:`~mdpviz.models.kit.boards.position.PositionModel.final_position`."""
        self._sync_model()
        if self.model is None or self.walk is None:
            return False
        pos = self.model.final_position(int(state), int(action), int(end))
        if pos is None:
            return False
        self.token_text = text
        self.show_position(pos, f"Episode: {text}" if text else "")
        return True

    def show_position(self, pos: Position, text: str = "") -> bool:
        """Show ``pos`` (a position of the current model) as a fresh start of the walk (the history is
        forgotten), with ``text`` on the status line; False if there is no model to walk."""
        self._sync_model()
        if self.walk is None:
            return False
        self.walk.show(pos)
        self.last_text = text
        self._position_changed()
        return True

    # ------------------------------------------------------------------ settings
    def set_mode(self, mode: str) -> None:
        """"walk" (walk the tree) or "play" (human vs agent); starts a new game."""
        if self.walk is None:
            return
        self.walk.set_mode(mode)
        i = self.mode_combo.findData(mode)
        if self.mode_combo.currentIndex() != i:
            self.mode_combo.blockSignals(True)
            self.mode_combo.setCurrentIndex(i)
            self.mode_combo.blockSignals(False)
        self._update_controls()
        self.new_game()

    def set_human(self, mark: str) -> None:
        if self.walk is None:
            return
        self.walk.set_human(mark)
        self._select_combo(self.human_combo, mark)
        if self.walk.mode == PLAY:
            self.new_game()

    def set_first(self, mark: str) -> None:
        if self.walk is None:
            return
        self.walk.set_first(mark)
        self._select_combo(self.first_combo, mark)
        if self.walk.mode == PLAY:
            self.new_game()

    def set_hide_hints(self, on: bool) -> None:
        """Hide the values and the greedy mark (the numbers stay readable once shown again)."""
        self.hide_hints = bool(on)
        if self.hide_check.isChecked() != self.hide_hints:
            self.hide_check.blockSignals(True)
            self.hide_check.setChecked(self.hide_hints)
            self.hide_check.blockSignals(False)
        self._refresh()
        self._emit_inspect()

    def set_predict_mode(self, on: bool) -> None:
        """Predict-then-reveal: values and the greedy mark hidden until the user clicks a cell; the
        first click on a cell reveals its value (it does not play it); reveals reset on a new position."""
        self.predict = bool(on)
        self._revealed = set()
        self._refresh()
        self._emit_inspect()

    def hide_all(self) -> None:
        """Predict mode: hide every revealed value again (the window calls this on each new sweep)."""
        if self._revealed:
            self._revealed = set()
            self._refresh()

    def _emit_inspect(self) -> None:
        """Ask the window to inspect the shown position (-1, i.e. clear, while values are hidden: the
        inspector would give the answer away)."""
        pos = self.position
        self.inspect_requested.emit(-1 if pos is None or self._hidden() else int(pos.state))

    def set_cell_editor(self, handler: Callable[[int, float, bool], None] | None, text: str = "") -> None:
        """Edit cells by dragging (e.g. risks): ``handler(cell, value in [0, 1], final)``; None: clicks play."""
        self.canvas.drag_handler = handler
        self.edit_text = text if handler is not None else ""
        self._refresh()

    @staticmethod
    def _select_combo(combo: QComboBox, data: str) -> None:
        i = combo.findData(data)
        if i >= 0 and combo.currentIndex() != i:
            combo.blockSignals(True)
            combo.setCurrentIndex(i)
            combo.blockSignals(False)

    def _on_human(self) -> None:
        d = self.human_combo.currentData()
        if d is not None and self.walk is not None and d != self.walk.human:
            self.set_human(d)

    def _on_first(self) -> None:
        d = self.first_combo.currentData()
        if d is not None and self.walk is not None and d != self.walk.first:
            self.set_first(d)

    # ------------------------------------------------------------------ state
    @property
    def position(self) -> Position | None:
        return None if self.walk is None else self.walk.position

    @property
    def mode(self) -> str:
        return WALK if self.walk is None else self.walk.mode

    def view(self) -> PositionView | None:
        """The display data last painted."""
        return self._view

    def _sync_model(self) -> None:
        """Pick up a new model (an edit, a new solve): a new walk from the start, same mode and marks."""
        m = self._model_fn()
        if m is self.model:
            return
        old = self.walk
        self.model = m
        self.canvas.set_painter(self._painter_fn())
        self.origin = -1
        self.selected_action = None
        self.last_text = ""
        self._revealed = set()
        self._seen = {}
        self.change = None
        # the previous model's values index its own states: the new walk starts with this model's
        # (the window shows the new solve's values at its next redraw)
        self._set_values(None if m is None else self.initial_values(m), None)
        self._fill_key = None
        if m is None:
            self.walk = None
            self._update_controls()
            self.inspect_requested.emit(-1)
            return
        try:
            w = GameWalk(m, seed=self._seed)
        except ValueError as e:
            self.walk = None
            self.last_text = str(e)
            self._update_controls()
            return
        self._fill_combo(self.human_combo, m.human_marks())
        self._fill_combo(self.first_combo, m.first_choices())
        if old is not None:
            if old.human in m.human_marks():
                w.human = old.human
            if old.first is None or old.first in m.first_choices():
                w.first = old.first
            w.mode = old.mode
        if w.first is None:
            w.first = m.first_choices()[0] if m.first_choices() else None
        self.walk = w
        self._select_combo(self.human_combo, w.human)
        if w.first is not None:
            self._select_combo(self.first_combo, w.first)
        self._update_controls()
        try:
            self.last_text = self._plies_text(w.new_game(self._agent_values()))
        except ValueError as e:
            self.last_text = str(e)
        self._emit_inspect()

    @staticmethod
    def _fill_combo(combo: QComboBox, items: Sequence[str]) -> None:
        combo.blockSignals(True)
        combo.clear()
        for it in items:
            combo.addItem(str(it), it)
        combo.blockSignals(False)

    def _agent_values(self) -> Any:
        return self.values

    def _update_controls(self) -> None:
        w = self.walk
        play = w is not None and w.mode == PLAY
        for wid in (self.human_combo, self.first_combo, self.human_caption, self.first_caption):
            wid.setVisible(play)
        self.back_button.setEnabled(w is not None and w.can_back)
        self.forward_button.setEnabled(w is not None and w.can_forward)
        self.new_button.setEnabled(w is not None)

    # ------------------------------------------------------------------ user actions
    def new_game(self) -> bool:
        """Back to the start position (PLAY: with the chosen first player; the agent opens if it starts)."""
        self._sync_model()
        if self.walk is None:
            return False
        self._seed += 1
        self.walk.rng = np.random.default_rng([self._seed, 9])
        try:
            plies = self.walk.new_game(self._agent_values())
        except ValueError as e:
            self.last_text = str(e)
            self.job_message.emit(str(e))
            self._refresh()
            return False
        self.last_text = self._plies_text(plies) if plies else ("New game" if self.walk.mode == PLAY else "")
        self._position_changed()
        return True

    def back(self) -> bool:
        if self.walk is None or not self.walk.back():
            return False
        self.last_text = ""
        self._position_changed()
        return True

    def forward(self) -> bool:
        if self.walk is None or not self.walk.forward():
            return False
        p = self.walk.last_ply()
        self.last_text = self._plies_text([p]) if p is not None else ""
        self._position_changed()
        return True

    def play_move(self, action: int) -> bool:
        """Play ``action`` at the shown position (then the model / agent answer); False with a status
        message if that is not possible (not your turn, illegal, game over)."""
        if self.walk is None:
            return False
        try:
            plies = self.walk.play(int(action), self._agent_values())
        except ValueError as e:
            self.last_text = str(e)
            self._refresh()
            return False
        self.last_text = self._plies_text(plies)
        self.token_text = ""
        self._position_changed()
        return True

    def click_cell(self, cell: int) -> str:
        """A left click on ``cell``; returns what it did: "played", "revealed", "origin", "none"."""
        pos = self.position
        if pos is None or self.model is None:
            return "none"
        if pos.terminal:
            self.last_text = f"Game over ({pos.outcome}): press New game or Back."
            self._refresh()
            return "none"
        moves = self.model.moves(pos)
        two_click = any(m.origin >= 0 for m in moves)
        if self.predict and self._hidden() and pos.chooser == DECISION and cell not in self._revealed:
            shows = {m.cell for m in moves if not two_click or m.origin == self.origin} | (
                {m.origin for m in moves if m.origin >= 0} if two_click and self.origin < 0 else set())
            if cell in shows:
                self._revealed.add(int(cell))
                self._refresh()
                return "revealed"
        if two_click:
            if self.origin >= 0:
                hits = [m for m in moves if m.origin == self.origin and m.cell == cell]
                if hits:
                    return "played" if self.play_move(self._pick(hits)) else "none"
            if any(m.origin == cell for m in moves):
                self.origin = int(cell) if self.origin != cell else -1
                self._revealed = set() if self.predict else self._revealed
                self._refresh()
                return "origin"
            self.origin = -1
            self._refresh()
            return "none"
        hits = [m for m in moves if m.cell == cell]
        if not hits:
            self.last_text = f"{self.canvas.painter_.cell_name(cell)} is not a legal move here."
            self._refresh()
            return "none"
        return "played" if self.play_move(self._pick(hits)) else "none"

    def _pick(self, hits) -> int:
        """Of several moves drawn on one cell, the greedy one (else the lowest action)."""
        if len(hits) == 1:
            return hits[0].action
        qs = self.model.move_values(self.position, self.values) if self.values is not None else None
        allm = self.model.moves(self.position)
        if qs is not None:
            q = {m.action: float(v) for m, v in zip(allm, qs)}
            sub = np.array([q.get(m.action, np.nan) for m in hits])
            i = greedy_move(hits, sub, self.position.objective)
            if i >= 0:
                return hits[i].action
        return min(m.action for m in hits)

    def select_move(self, action: int | None) -> None:
        """Show the backup of ``action`` at the shown position (None: clear)."""
        self.selected_action = None if action is None else int(action)
        self._refresh()

    def _on_right_click(self, cell: int) -> None:
        if self.model is None or self.position is None or self.position.terminal:
            return
        moves = [m for m in self.model.moves(self.position)
                 if m.cell == cell and (m.origin < 0 or m.origin == self.origin)]
        if moves:
            self.select_move(moves[0].action)

    def _on_table_selection(self) -> None:
        rows = self.moves_table.selectionModel().selectedRows() if self.moves_table.selectionModel() else []
        if not rows:
            return
        it = self.moves_table.item(rows[0].row(), 0)
        a = it.data(Qt.ItemDataRole.UserRole) if it is not None else None
        if a is not None and a != self.selected_action:
            self.select_move(int(a))

    def _on_table_double(self, row: int, _col: int) -> None:
        it = self.moves_table.item(row, 0)
        if it is not None:
            self.play_move(int(it.data(Qt.ItemDataRole.UserRole)))

    # ------------------------------------------------------------------ drawing
    @property
    def values_hidden(self) -> bool:
        """The values are hidden (Hide hints, or predict-then-reveal)."""
        return self.hide_hints or self.predict

    def _hidden(self) -> bool:
        return self.values_hidden

    def _position_changed(self) -> None:
        self.origin = -1
        self.selected_action = None
        self._revealed = set()
        pos = self.position
        self._refresh()
        if pos is not None:
            self.position_changed.emit(pos)
        self._emit_inspect()

    def _plies_text(self, plies) -> str:
        who = {"you": "You", "agent": "Agent", "model": "Model"}
        return "  ".join(f"{who.get(p.by, p.by)}: {p.text}." for p in plies if p is not None)

    def _refresh(self) -> None:
        pos = self.position
        m = self.model
        self._update_controls()
        self._arrange()  # the painter (and so the board's shape) may have changed with the game
        self.caption_label.setText(self.caption)
        if pos is None or m is None:
            self._view = None
            self.canvas.show_position(None, None, message=self.last_text or self.caption or "No game")
            self.status.setText(self.last_text)
            self.value_label.setText("")
            self.outcome_label.setText("")
            self.visited_label.setText("")
            self.moves_table.setRowCount(0)
            self._fill_key = None
            self.side.show_backup("")
            return
        if self._revealed_key is not pos.key and self._revealed_key != pos.key:
            self._revealed = set()
            self._revealed_key = pos.key
        hidden = self._hidden()
        who = self.walk.role(pos) if self.walk is not None else ""
        yours_vs_model = pos.chooser == MODEL and who == USER  # you play the model's side: its odds are noise
        marked, change_text = (), ""
        try:
            scale = both_scale(m, pos, self.change, self.position_scale(pos))
            view = position_view(shown_model(m, self.change), pos, self.values, scale=scale,
                                 hide=hidden or yours_vs_model, revealed=sorted(self._revealed), origin=self.origin)
            if self.change is not None:  # the last edit's diff here (see show_change)
                pc = position_change(m, pos, view, self.change, origin=self.origin, hidden=hidden or yours_vs_model)
                view, marked, change_text, scale = pc.view, pc.marked, pc.line, pc.scale or scale
            if scale != self.shown_scale:
                self.shown_scale = scale
                self.scale_changed.emit(scale)
        except ValueError as e:
            self.last_text = str(e)
            view = None
            scale = None
        u = self.unvisited
        here = view is not None and u is not None and 0 <= pos.state < u.size and bool(u[pos.state])
        if here:
            view = unvisited_view(view)
        self._view = view
        last = self.walk.last_ply() if self.walk is not None else None
        last_cells = ()
        if last is not None:
            mv = [mm for mm in m.moves(last.before) if mm.action == last.action] if not last.before.terminal else []
            last_cells = tuple(c for mm in mv for c in (mm.cell, mm.origin) if c >= 0)
        self.canvas.show_position(pos, view, last_cells=last_cells, origin=self.origin, scale=scale, changed=marked,
                                  hatched=here)
        # whose turn and what happened
        turn = m.describe(pos)
        if not pos.terminal and self.walk is not None and self.walk.mode == PLAY:
            turn += " (your move)" if who == USER else f" ({who})"
        self.status.setText(self.edit_text or (f"{self.last_text}  {turn}".strip() if self.last_text else turn))
        if change_text:  # what the last edit changed here, under the caption (read first, even on a projector)
            self.caption_label.setText(f"{self.caption}\n{change_text}" if self.caption else change_text)
        self.value_label.setText(NOT_VISITED if here else self.position_value_text(pos, view))
        before = self.change is not None and self.change.mode == "before"  # (today's rules, yesterday's values)
        if not hidden and not before and self.values is not None and not pos.terminal:
            self._outcome_args = (m, pos, self.values)
            self._outcome_timer.start()  # (again: a newer refresh moves it on)
            self.outcome_label.setText(OUTCOME_PENDING)
        else:
            self._outcome_args = None
            self._outcome_timer.stop()
            self.outcome_label.setText("")
        if self.walk is not None:
            tied = view is not None and bool(view.tied_cells)  # every optimal move is starred: say so
            self.visited_label.setText(self.path_text() + (
                "\n\u2606 as good as \u2605: tied moves, every one optimal (the solver picks \u2605)" if tied else ""))
        self._fill_table(view, hidden or yours_vs_model)
        self._fill_backup(pos, view, hidden)
        self._arrange()  # the texts' lengths changed: the side panel may need more width

    def _show_outcomes(self) -> None:
        """The exact outcome probabilities from the shown position under greedy play of the shown values
        (:data:`OUTCOME_DELAY_MS` after the last refresh that asked for them; the newest request only)."""
        if self._outcome_args is None:
            return
        m, pos, values = self._outcome_args
        self._outcome_args = None
        try:
            probs = m.outcome_probabilities(pos, values)
        except ValueError:
            probs = None
        self.outcome_label.setText(f"Exact from here (greedy play): {outcome_text(probs)}" if probs else "")
        self._arrange()  # the text's length changed: the side panel may need more width

    def position_value_text(self, pos: Position, view: PositionView | None) -> str:
        """The line about the shown position's value (a game's board may word it its own way)."""
        if pos.terminal:
            return f"Game over: {pos.outcome}."
        if view is not None and math.isfinite(view.value):
            return (f"V(position) = {view.value:.4f}  ({pos.mover} to move, "
                    f"{'maximises' if pos.objective == 'max' else 'minimises'})")
        if self.values_hidden:
            return "Values hidden."
        if pos.chooser == MODEL and self.walk is not None and self.walk.role(pos) == USER:
            return f"Your move: you play {pos.mover} in the model's place."
        if pos.chooser == MODEL:
            return f"{pos.mover} is played by the model: the numbers are its move probabilities."
        return "No values yet: step or run the solver."

    def describe_state(self, state: int) -> str | None:
        """The MDP state ``state`` in a student's words, for the inspector's title: how the walk got there
        ("after X on cell 4. O on cell 0; X to move ...") when it is on the walk's path, "empty board, X to
        move ..." at the start, else None (the caller names it by its board)."""
        return walk_words(self.model, self.walk, state)

    def path_text(self) -> str:
        """The line about the walk's path to the shown position (a game's board may word it its own way)."""
        return walk_path_text(self.walk)

    def _fill_table(self, view: PositionView | None, hidden: bool) -> None:
        """The moves table: refilled only when what it shows changed (the window redraws the board at
        screen rate), without per-item layout, the columns sized to their contents once."""
        moves = view.moves if view is not None else ()
        model_pos = self.position is not None and self.position.chooser == MODEL
        rows = table_rows(moves, () if view is None else view.qs, -1 if view is None else view.greedy,
                          model_pos=model_pos, hidden=hidden, revealed=self._revealed,
                          objective=self.position.objective if self.position is not None else "max")
        sel_row = next((i for i, mv in enumerate(moves) if mv.action == self.selected_action), -1)
        key = (model_pos, rows, sel_row)
        if key == self._fill_key:
            return
        self._fill_key = key
        self.side.fill_moves(rows, model_pos=model_pos, selected_row=sel_row)

    def _fill_backup(self, pos: Position, view: PositionView | None, hidden: bool) -> None:
        a = self.selected_action
        if a is None or view is None or self.model is None:
            self.side.show_backup("Right-click a cell (or pick a move in the table) for its backup."
                                  if pos.chooser == DECISION and not pos.terminal else "", hint=True)
            return
        mv = next((m for m in view.moves if m.action == a), None)
        if mv is None:
            self.side.show_backup("")
            return
        if hidden and mv.cell not in self._revealed:
            self.side.show_backup(f"{mv.label}: hidden.")
            return
        model = shown_model(self.model, self.change)  # ("before": backed up in the model before the edit)
        terms = model.backup(pos, a, self.values)
        if not terms:
            self.side.show_backup(f"{mv.label}: no backup (no values for this position).")
            return
        name = getattr(model, "state_name", str)
        text = backup_text(terms, model.discount(), state_name=name)
        q = backup_q(terms, model.discount())
        self.side.show_backup(f"<b>{mv.label}</b>: Q = {q:.4f}<br><span style='font-family:monospace'>"
                              f"{html_escape(text)}</span>")

