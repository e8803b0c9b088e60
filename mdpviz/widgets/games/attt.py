"""Anti-tic-tac-toe in the main window (issue 9, part 2): best-response rounds stepped one at a time.

The view only: the game's edits and the Game panel. The game of seed 000 and everything derived
from its edits (:class:`~mdpviz.models.attt.AtttSettings`: both players' boards, the start policy, the
tie rule, the solver of each best response) are in :mod:`mdpviz.models.attt`:

* the best-response ROUNDS (:class:`mdpviz.models.attt.rounds.Rounds`, the session's driver): one
  round per Step of the window (its one Step, Run, Pause and Reset drive the rounds), each a job of
  the window's controller (never on the GUI thread); this panel's table shows per round who
  responded, how many boards changed their move, and the exact outcome probabilities of the current
  pair of policies from the empty board; the boards whose move a round changed are listed in a
  picker, and a picked board opens on the board;
* the MDP on the board (:func:`mdpviz.models.attt.encode_state`): the last round's responder against
  the other player's policy (before round 1 the first responder against the start policy). After each
  round the window solves it at once, so the board shows that round's best response;
* the position board (:class:`mdpviz.models.attt.AtttPositionModel`): the responder's moves coloured
  by Q, the opponent's moves answered by its policy; walk the game tree or play against either policy;
* matchups (:func:`mdpviz.models.attt.matchups_job`): exact probabilities and simulated games.

The rounds are solve progress, not edits: like the solver's sweeps they are not in the undo
history and not saved in scenarios (a scenario keeps the setup); a change of the setup starts the
rounds again (the rounds computed for a setup are kept: a Step after an undo applies them at once).
"""
from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QSize, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mdpviz.models import attt
from mdpviz.models.attt import (
    COURSE_DIR,
    METHOD_NAMES,
    METHODS,
    AtttPositionModel,
    AtttSettings,
    AtttState,
    course_files,
    default_setup,
    describe_boards,
    carried_start,
    make_start,
    round_changes,
    round_summary,
)
from mdpviz.core.mdp import TabularMDP
from mdpviz.widgets import named as _named
from mdpviz.models.attt.rounds import Rounds
from mdpviz.widgets.position import GridPainter, PositionGame
from mdpviz.widgets.session import GameSession

class AtttGame(PositionGame):
    """Anti-tic-tac-toe with the course's files: best-response rounds, the next responder's MDP on the board."""

    spec = attt.SPEC

    def __init__(self, session: GameSession | None = None, parent: QObject | None = None, *,
                 folder: str | os.PathLike | None = None) -> None:
        if session is None and folder is not None:
            session = GameSession(self.spec, default_setup(folder))
        super().__init__(session, parent)
        self.folder = folder
        """Where the course files are looked for (None: :data:`COURSE_DIR`)."""
        self._model: tuple[Any, AtttPositionModel | None] | None = None
        self._painter = GridPainter(3)
        self._editor: AtttPanel | None = None
        self.session.edited.connect(self._on_edited)

    # ------------------------------------------------------------------ state
    @property
    def rounds(self) -> Rounds:
        """The best-response rounds (the session's driver: the window's Step, Run, Pause and Reset)."""
        return self.session.driver

    @property
    def astate(self) -> AtttState:
        """The setup with the rounds applied so far."""
        return self.rounds.state

    @property
    def setup(self) -> AtttSettings:
        return self.session.settings

    def _on_edited(self, _text: str) -> None:
        """Every change of the model (an edit, undo, a round, a reset): the window starts the solve again;
        the board (which drops the old model's values with the model) starts a fresh walk, whose position
        the inspector follows."""
        if self._board is not None:
            self._board.new_game()

    def edit_setup(self, setup: AtttSettings, text: str) -> bool:
        """An edit of the setup (through the undo stack); the rounds start again."""
        if setup == self.setup:
            return False
        return self.session.edit(setup, text)

    # ------------------------------------------------------------------ the board
    def position_model(self) -> AtttPositionModel | None:
        enc = self.session.built()
        if self._model is None or self._model[0] is not enc:
            self._model = (enc, None if enc is None else AtttPositionModel(self.astate, enc))
        return self._model[1]

    def painter(self) -> GridPainter:
        return self._painter

    def empty_text(self) -> str:
        return "No model: load the states and policy files in the Game panel."

    def badge(self, a: int, mdp: TabularMDP) -> str:
        return str(a)

    def board_caption(self, caption: str, sweep: Any) -> str:
        """What the board shows, in the rounds' words (before the solver's own caption)."""
        astate = self.astate
        if not astate.rounds:
            me = astate.responder
            return (f"Round 0: player {me}'s MDP against player {3 - me}'s start policy. Step: round 1, "
                    f"player {me}'s best response.")
        r = astate.rounds[-1]
        head = (f"Round {r.round}: player {r.player}'s best response to player {3 - r.player}'s policy"
                + (" \u2014 converged, neither policy changes any more" if r.converged else ""))
        if sweep is None:
            return head + " (solving\u2026)"
        return f"{head}. {caption}"

    # ------------------------------------------------------------------ showing a board
    def show_board(self, board: str, *, text: str = "") -> bool:
        """Show ``board`` (9 characters) on the position board as a fresh start of the walk."""
        m = self.position_model()
        if m is None:
            return False
        return self.board.show_position(m.board_position(board), text)

    # ------------------------------------------------------------------ setup edits
    def _start_for(self, b1: attt.Boards, b2: attt.Boards) -> attt.AtttPolicy:
        return carried_start(self.setup, b1, b2)

    def use_course_files(self) -> bool:
        """The course's states files and player 1's course policy as the start."""
        if course_files(self.folder) is None:
            self.session.message.emit(f"The course files are not in {self.folder or COURSE_DIR}.")
            return False
        return self.edit_setup(replace(default_setup(self.folder), ties=self.setup.ties, method=self.setup.method),
                               "course files")

    def use_reachable_boards(self) -> bool:
        """Both players' boards generated from the rules (every reachable board)."""
        b1, b2 = attt.reachable_boards()
        return self.edit_setup(replace(self.setup, p1_boards=b1, p2_boards=b2, start=self._start_for(b1, b2)),
                               "every reachable board")

    def open_states(self, path: str | os.PathLike) -> bool:
        """A states file for the player its boards belong to (MDPFileError naming the line otherwise)."""
        boards = attt.load_states(path)
        b1 = boards if boards.player == 1 else self.setup.p1_boards
        b2 = boards if boards.player == 2 else self.setup.p2_boards
        return self.edit_setup(replace(self.setup, p1_boards=b1, p2_boards=b2, start=self._start_for(b1, b2)),
                               f"player {boards.player} states: {Path(path).name}")

    def open_start_policy(self, path: str | os.PathLike) -> bool:
        """A policy file as the start policy (MDPFileError naming the line if it is malformed)."""
        pol = attt.load_policy(path)
        return self.edit_setup(replace(self.setup, start=pol, start_kind="file"),
                               f"start policy {Path(path).name}")

    def set_generated_start(self, kind: str, player: int, *, seed: int = 0) -> bool:
        """A "random" (seeded) or "uniform" start policy of ``player``."""
        if player not in (1, 2):
            raise ValueError(f"player must be 1 or 2, got {player}")
        pol = make_start(kind, self.setup.boards(player), seed=seed)
        what = f"random player-{player} start (seed {seed})" if kind == "random" else f"uniform player-{player} start"
        return self.edit_setup(replace(self.setup, start=pol, start_kind=kind, seed=int(seed)), what)

    def set_ties(self, ties: str) -> bool:
        return self.edit_setup(replace(self.setup, ties=ties), f"ties to the {ties} cell")

    def set_method(self, method: str) -> bool:
        """The solver of each best response (the rounds do not depend on it: V* is unique)."""
        return self.edit_setup(replace(self.setup, method=method), f"best responses by {METHOD_NAMES[method]}")

    # ------------------------------------------------------------------ export
    def export_policy(self, player: int, path: str | os.PathLike) -> Path:
        """Write ``player``'s current policy as a course policy file (atomically); ValueError if the
        player has no policy yet."""
        pol = self.astate.policies().get(int(player))
        if pol is None:
            raise ValueError(f"player {player} has no policy yet: step a round first")
        path = Path(path)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(attt.format_policy(pol), encoding="utf-8")
        os.replace(tmp, path)
        return path

    # ------------------------------------------------------------------ editor
    def editor(self) -> "AtttPanel":
        if self._editor is None:
            self._editor = AtttPanel(self)
        return self._editor

    def refresh_editor(self) -> None:
        if self._editor is not None:
            self._editor.refresh()


# ---------------------------------------------------------------------------------- the panel
class _FileDialogs:
    """File dialogs of the panel (tests put a stand-in that answers at once in ``panel.dialogs``)."""

    def __init__(self, parent: QWidget) -> None:
        self.parent = parent

    def open_file(self, title: str, directory: str, filters: str) -> str:
        return QFileDialog.getOpenFileName(self.parent, title, directory, filters)[0]

    def save_file(self, title: str, directory: str, filters: str) -> str:
        return QFileDialog.getSaveFileName(self.parent, title, directory, filters)[0]




class _CompactTable(QTableWidget):
    """A table that asks for little height (the Game dock's scroll area sizes its page by the preferred
    height, so a default table would push the rows below it out of sight); it still grows to fill."""

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(super().sizeHint().width(), 100)


START_CHOICES = (
    ("file", 0, "policy file"),
    ("random", 1, "random P1 policy"),
    ("random", 2, "random P2 policy"),
    ("uniform", 1, "uniform P1 policy"),
    ("uniform", 2, "uniform P2 policy"),
)
"""Entries of the start picker: (kind, player, text)."""


class AtttPanel(QWidget):
    """The anti-tic-tac-toe panel: the files and start policy, the best-response rounds (Step / Run /
    Reset, a table per round, the changed boards of the selected round), policy export."""

    def __init__(self, game: AtttGame, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.dialogs = _FileDialogs(self)
        """Open/save dialogs (replaceable in tests)."""
        self.setObjectName("atttPanel")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)

        tabs = _named(QTabWidget(), "atttTabs", "Anti-tic-tac-toe panel")
        tabs.setDocumentMode(True)
        lay.addWidget(tabs, 1)

        # --- the rounds (first tab: what one steps)
        page = QWidget()
        v = QVBoxLayout(page)
        v.setContentsMargins(2, 4, 2, 2)
        self.next_label = _named(QLabel(""), "atttNext", "What the next round computes")
        self.next_label.setWordWrap(True)
        v.addWidget(self.next_label)
        # the rounds are driven by the window's one Step / Run / Pause / Reset (no second Step here)
        row = QHBoxLayout()
        row.addWidget(QLabel("Export"))
        self.export1 = _named(QPushButton("P1 policy\u2026"), "atttExportP1", "Export player 1's policy")
        self.export2 = _named(QPushButton("P2 policy\u2026"), "atttExportP2", "Export player 2's policy")
        for b in (self.export1, self.export2):
            b.setToolTip("Save the player's current policy as a course policy file (player id, then "
                         "'board p0 ... p8' per board)")
            row.addWidget(b)
        v.addLayout(row)
        self.changed = _named(QComboBox(), "atttChanged", "Changed boards of the selected round")
        self.changed.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.changed.setMinimumContentsLength(10)
        self.changed.setMaxVisibleItems(20)
        self.changed.setToolTip("The boards whose move the selected round changed (board: old move \u2192 new "
                                "move); pick one to show it on the board")
        v.addWidget(self.changed)
        self.table = _named(_CompactTable(0, 5), "atttRounds", "Best-response rounds")
        self.table.setHorizontalHeaderLabels(["round", "changed", "P1 win", "P2 win", "draw"])
        heads = ("the round and the player who responded", "how many of the responder's boards changed move",
                 "exact P(P1 wins) of the current pair of policies from the empty board",
                 "exact P(P2 wins) of the current pair", "exact P(draw) of the current pair")
        for j, tip in enumerate(heads):
            self.table.horizontalHeaderItem(j).setToolTip(tip)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        hh.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)  # fills what is left, no wider
        hh.setMinimumSectionSize(20)
        self.table.verticalHeader().setDefaultSectionSize(20)
        self.table.setMinimumHeight(64)
        self.table.setToolTip("Per round: who responded (P1 or P2), how many of its boards changed move, and the "
                              "exact outcome probabilities of the current pair of policies from the empty board. "
                              "Select a round to list its changed boards in the picker above.")
        v.addWidget(self.table, 1)
        tabs.addTab(page, "Rounds")

        # --- the setup (the edits)
        page = QWidget()
        form = QFormLayout(page)
        form.setContentsMargins(2, 4, 2, 2)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.files_label = _named(QLabel(""), "atttFiles", "Boards and start policy")
        self.files_label.setWordWrap(True)
        self.files_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form.addRow(self.files_label)
        row = QHBoxLayout()
        self.course = _named(QPushButton("Course files"), "atttCourseFiles", "Use the course's files")
        self.course.setToolTip(f"The course's states files and p1_policy1.txt as the start ({COURSE_DIR})")
        self.open_states = _named(QPushButton("States\u2026"), "atttOpenStates", "Open a states file")
        self.open_states.setToolTip("Open a states file (the player is read from its boards)")
        self.reachable = _named(QPushButton("Rules"), "atttReachable", "Every reachable board")
        self.reachable.setToolTip("Both players' boards generated from the rules (every reachable board)")
        for b in (self.course, self.open_states, self.reachable):
            row.addWidget(b)
        form.addRow(row)
        self.start = _named(QComboBox(), "atttStartPicker", "Start policy")
        for _kind, _player, text in START_CHOICES:
            self.start.addItem(text)
        self.start.setToolTip("The policy the iteration starts from; 'policy file' opens a course policy file")
        form.addRow("Start", self.start)
        self.seed = _named(QSpinBox(), "atttSeed", "Seed of a random start policy")
        self.seed.setRange(0, 999_999)
        self.seed.setToolTip("Seed of a random start policy")
        form.addRow("Seed", self.seed)
        self.ties = _named(QComboBox(), "atttTies", "Tie rule")
        self.ties.addItems(list(attt.TIE_RULES))
        self.ties.setToolTip("Among cells of equal value a best response plays the lowest (the seed's rule) or "
                             "the highest cell")
        form.addRow("Ties", self.ties)
        self.method = _named(QComboBox(), "atttMethod", "Solver of each best response")
        for m in METHODS:
            self.method.addItem(METHOD_NAMES[m], m)
        self.method.setToolTip("How each round's best response is solved (the seed used in-place value "
                               "iteration); V* is unique, so the rounds do not depend on it")
        form.addRow("Solver", self.method)
        tabs.addTab(page, "Setup")
        self.tabs = tabs

        self.course.clicked.connect(self.game.use_course_files)
        self.open_states.clicked.connect(self._open_states)
        self.reachable.clicked.connect(self.game.use_reachable_boards)
        self.start.activated.connect(self._on_start)
        self.seed.editingFinished.connect(self._on_seed)
        self.ties.activated.connect(lambda i: self.game.set_ties(self.ties.itemText(i)))
        self.method.activated.connect(lambda i: self.game.set_method(self.method.itemData(i)))
        self.table.itemSelectionChanged.connect(self._on_round_selected)
        self.changed.activated.connect(self._on_changed_picked)
        self.export1.clicked.connect(lambda: self.export_dialog(1))
        self.export2.clicked.connect(lambda: self.export_dialog(2))
        game.session.edited.connect(lambda _t: self.refresh())
        game.session.changed.connect(self.refresh)
        self._shown_rounds: tuple = ()
        self.show_round(None)
        self.refresh()

    # ------------------------------------------------------------------ actions
    def _open_states(self) -> None:
        path = self.dialogs.open_file("Open a states file", str(COURSE_DIR / "states"), "States files (*.txt);;All files (*)")
        if path:
            try:
                self.game.open_states(path)
            except ValueError as e:
                self.game.session.refuse(str(e))

    def _on_start(self, i: int) -> None:
        kind, player, _text = START_CHOICES[i]
        try:
            if kind == "file":
                path = self.dialogs.open_file("Open a start policy", str(COURSE_DIR / "policies"),
                                              "Policy files (*.txt);;All files (*)")
                if path:
                    self.game.open_start_policy(path)
            else:
                self.game.set_generated_start(kind, player, seed=self.seed.value())
        except ValueError as e:
            self.game.session.refuse(str(e))
        self.refresh()

    def _on_seed(self) -> None:
        s = self.game.setup
        if s.start_kind == "random" and self.seed.value() != s.seed:
            self.game.set_generated_start("random", s.start.player, seed=self.seed.value())

    def export_dialog(self, player: int) -> bool:
        """Ask for a file name and write ``player``'s current policy there."""
        if self.game.astate.policies().get(player) is None:
            self.game.session.message.emit(f"Player {player} has no policy yet: step a round first.")
            return False
        path = self.dialogs.save_file(f"Export player {player}'s policy", f"p{player}_policy.txt",
                                      "Policy files (*.txt);;All files (*)")
        if not path:
            return False
        try:
            p = self.game.export_policy(player, path)
        except (ValueError, OSError) as e:
            self.game.session.message.emit(f"Cannot export: {e}")
            return False
        self.game.session.message.emit(f"Saved player {player}'s policy to {p}")
        return True

    def _on_round_selected(self) -> None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        self.show_round(rows[0].row() if rows else None)

    def show_round(self, index: int | None) -> None:
        """List the changed boards of round ``index`` (0-based; None: clear) in the changed-boards picker."""
        c = self.changed
        c.blockSignals(True)
        c.clear()
        astate = self.game.astate
        if index is None or not 0 <= index < len(astate.rounds):
            c.addItem("changed boards: select a round")
            c.setEnabled(False)
            c.blockSignals(False)
            return
        r = astate.rounds[index]
        changes = round_changes(astate, index)
        first = " (first response: all)" if astate.previous_policy(index) is None else ""
        c.addItem(f"round {r.round}: {len(changes):,} P{r.player} boards changed{first}")
        for ch in changes:
            was = f"cell {ch.old_cell}" if ch.old_cell >= 0 else "\u2014"
            c.addItem(f"{ch.board}: {was} \u2192 cell {ch.new_cell}", (ch.board, r.round, ch.old_cell, ch.new_cell))
        c.setEnabled(bool(changes))
        c.blockSignals(False)

    def _on_changed_picked(self, i: int) -> None:
        data = self.changed.itemData(i)
        if data is None:
            return
        board, rnd, old, new = data
        was = f"cell {old}" if old >= 0 else "no move"
        try:
            self.game.show_board(board, text=f"Round {rnd} changed this board: {was} \u2192 cell {new}.")
        except ValueError as e:
            self.game.session.message.emit(str(e))

    # ------------------------------------------------------------------ display
    def refresh(self) -> None:
        g = self.game
        astate = g.astate
        s = astate.setup
        self.files_label.setText(f"P1 boards: {describe_boards(s.p1_boards)}<br>P2 boards: "
                                 f"{describe_boards(s.p2_boards)}<br>Start: {s.start_text()}")
        self.course.setEnabled(course_files(g.folder) is not None)
        i = next(k for k, (kind, player, _t) in enumerate(START_CHOICES)
                 if kind == s.start_kind and (kind == "file" or player == s.start.player))
        self.start.setCurrentIndex(i)
        self.seed.blockSignals(True)
        self.seed.setValue(int(s.seed))
        self.seed.blockSignals(False)
        self.seed.setEnabled(s.start_kind == "random")
        self.ties.setCurrentText(s.ties)
        self.method.setCurrentIndex(METHODS.index(s.method))
        me = astate.responder
        shown = astate.shown_player
        if g.rounds.busy:
            text = (f"{g.rounds.progress_text}\u2026" if g.rounds.progress_text else
                    f"Computing round {len(astate.rounds) + 1}: P{me}'s best response\u2026")
        elif astate.converged:
            text = (f"Converged after {len(astate.rounds)} rounds. The board: P{shown}'s final best response to "
                    f"P{3 - shown}'s final policy.")
        elif not astate.rounds:
            text = (f"Step (toolbar) computes round 1: P{me}'s best response to P{3 - me}'s start policy; "
                    "Run steps rounds until neither policy changes.")
        else:
            text = (f"The board: round {len(astate.rounds)}, P{shown}'s best response. Step: round "
                    f"{len(astate.rounds) + 1}, P{me}'s best response to P{3 - me}'s current policy.")
        if g.session.mdp_error():
            text = f"No MDP: {g.session.mdp_error()}"
        self.next_label.setText(text)
        pols = astate.policies()
        self.export1.setEnabled(pols[1] is not None)
        self.export2.setEnabled(pols[2] is not None)
        if astate.rounds != self._shown_rounds:
            self._fill_table(astate)

    def _fill_table(self, astate: AtttState) -> None:
        self._shown_rounds = astate.rounds
        t = self.table
        t.blockSignals(True)
        t.setRowCount(len(astate.rounds))
        for i, r in enumerate(astate.rounds):
            cells = [f"{r.round}: P{r.player}", f"{r.changed:,}" + (" \u2713" if r.converged else ""),
                     f"{r.p1_win:.4f}", f"{r.p2_win:.4f}", f"{r.draw:.4f}"]
            tip = (round_summary(r) + f" (exact: {r.p1_win!r}, {r.p2_win!r}, {r.draw!r}); "
                   f"{r.elapsed:.3f} s after the start")
            for j, text in enumerate(cells):
                it = QTableWidgetItem(text)
                it.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                it.setToolTip(tip)
                t.setItem(i, j, it)
        t.blockSignals(False)
        if astate.rounds:
            t.selectRow(len(astate.rounds) - 1)
            t.scrollToBottom()
        else:
            self.show_round(None)



__all__ = ["AtttGame", "AtttPanel"]


VIEW = AtttGame
"""This game's view (the registry finds it here by the game's key)."""
