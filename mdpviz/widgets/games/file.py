"""Any MDP in the course file format: the view (reader in :mod:`mdpviz.core.cs747`)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QPushButton, QSpinBox, QVBoxLayout, QWidget

from mdpviz.models.file import spec as mf
from mdpviz.widgets import named as _named
from mdpviz.widgets.board import CellDecor
from mdpviz.widgets.game import Game
from mdpviz.widgets.session import GameSession
from mdpviz.widgets.geometry import GRAPH_MAX_STATES, BoardLayout, graph_layout, grid_layout, policy_edges

SPEC = mf.SPEC
FileSettings = mf.FileSettings


# ---------------------------------------------------------------------------------- MDP from a course file
class FileGame(Game):
    """Any MDP in the course file format, drawn as a grid of states (or a graph when small)."""

    spec = SPEC

    def __init__(self, session: GameSession | None = None, parent: QObject | None = None) -> None:
        super().__init__(session, parent)
        self._editor: QWidget | None = None
        self._path = self.session.settings.path
        self.session.edited.connect(self._on_edited)

    def initial_settings(self) -> FileSettings:
        """No file: a new window opens empty (the spec's default, a course example, is for headless use)."""
        return FileSettings()

    @property
    def fstate(self) -> FileSettings:
        return self.session.settings

    @property
    def view(self) -> str:  # type: ignore[override]
        """"grid" or "graph" (a display setting; the graph view needs at most GRAPH_MAX_STATES states)."""
        return self.session.display["view"]

    @property
    def start(self) -> int | None:
        """Start state of simulations and episodes (a display setting; None: the first live state)."""
        return self.session.display["start"]

    def _on_edited(self, _text: str) -> None:
        if self.fstate.path != self._path:  # another file: back to its own default start
            self._path = self.fstate.path
            self.session.display["start"] = None

    def read_file(self, path: str | Path) -> FileSettings:
        """The settings for ``path`` (parsed and checked; the model kept); MDPFileError naming file and line."""
        state, mdp = mf.read_file(path)
        self.session.game.prime(state, mdp)
        return state

    def open_file(self, path: str | Path) -> bool:
        """Load a course-format file as an edit; MDPFileError leaves the current settings untouched."""
        new = self.read_file(path)
        return self.session.edit(new, f"opened {Path(new.path).name}")

    def set_view(self, view: str) -> bool:
        """Grid or graph view: a display setting, not an edit (no solver reset, no undo entry)."""
        if view not in ("grid", "graph"):
            raise ValueError(f"view must be 'grid' or 'graph', got {view!r}")
        m = self.session.mdp()
        if view == "graph" and m is not None and m.n_states > GRAPH_MAX_STATES:
            self.session.message.emit(f"The graph view shows at most {GRAPH_MAX_STATES} states; this MDP has "
                                      f"{m.n_states}.")
            return False
        self.session.set_display("view", view)
        return True

    def set_start(self, state: int) -> bool:
        """Start simulations and episodes in ``state`` (a display setting: no solver reset, no undo entry)."""
        m = self.session.mdp()
        if m is None or not 0 <= int(state) < m.n_states:
            raise ValueError(f"start state must be in 0..{(m.n_states - 1) if m is not None else -1}, got {state}")
        changed = int(state) != self.session.start_state()
        self.session.set_display("start", int(state))
        return changed

    def board_layout(self, mdp, policy) -> BoardLayout:
        if mdp is None:
            return BoardLayout(())
        if self.view == "graph" and mdp.n_states <= GRAPH_MAX_STATES:  # (labelled with the state numbers)
            edges = policy_edges(mdp, policy)
            return graph_layout(mdp.n_states, edges)
        return grid_layout(mdp.n_states)  # (labelled with the state numbers: the cached layout)

    def decor(self):
        m = self.session.mdp()
        if m is None:
            return {}
        return {int(s): CellDecor("", "#555555", "end", goal=True) for s in np.flatnonzero(m.terminal)}

    def editor(self) -> QWidget:
        if self._editor is None:
            self._editor = FileEditor(self)
            self._editor.open_requested.connect(self.open_file_requested)
        return self._editor

    def refresh_editor(self) -> None:
        if self._editor is not None:
            self._editor.refresh()

    def source_path(self) -> str | None:
        return self.fstate.path

    def empty_text(self) -> str:
        return "No MDP loaded: File \u25b8 Open course MDP file\u2026"


# ---------------------------------------------------------------------------------- the editor
class FileEditor(QWidget):
    """Open a course-format MDP file, see what it holds, pick the grid or the graph view."""

    open_requested = Signal()

    def __init__(self, game, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.setObjectName("fileEditor")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.open = _named(QPushButton("Open course MDP file\u2026"), "openMdpButton", "Open course MDP file")
        self.open.clicked.connect(self.open_requested)
        lay.addWidget(self.open)
        self.summary = _named(QLabel(), "fileSummary", "Loaded MDP")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.summary)
        form = QFormLayout()
        self.view = _named(QComboBox(), "viewPicker", "Board view")
        self.view.addItems(["grid", "graph"])
        self.view.setToolTip(f"The graph view (arrows weighted by probability) is offered up to {GRAPH_MAX_STATES} states")
        form.addRow("View", self.view)
        self.start = _named(QSpinBox(), "startStateSpin", "Start state")
        self.start.setPrefix("state ")
        self.start.setToolTip("Where simulated games and played episodes start (default: the first state that "
                              "is not terminal)")
        form.addRow("Start", self.start)
        lay.addLayout(form)
        lay.addStretch(1)
        self.view.currentIndexChanged.connect(lambda i: (self.game.set_view(self.view.itemText(i)), self.refresh()))
        self.start.valueChanged.connect(lambda v: self.game.set_start(int(v)))
        game.session.edited.connect(lambda _: self.refresh())
        game.session.changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        settings = self.game.fstate
        m = self.game.session.mdp()
        if m is None:
            self.summary.setText("No file loaded. Course files list numStates, numActions, end, "
                                 "transition s a s' r p lines, mdptype and discount.")
        else:
            kind = m.mdptype or ("episodic" if m.terminal.any() else "continuing")
            ends = ", ".join(str(int(s)) for s in m.terminal.nonzero()[0][:8]) or "none"
            self.summary.setText(
                f"<b>{Path(settings.path).name}</b><br>{m.n_states} states, {m.n_actions} actions, "
                f"{m.n_transitions} transitions<br>{kind}, discount {m.discount:g}<br>terminal: {ends}")
        self.start.blockSignals(True)
        self.start.setRange(0, max(0, (m.n_states - 1) if m is not None else 0))
        self.start.setEnabled(m is not None)
        self.start.setValue(self.game.session.start_state())
        self.start.blockSignals(False)
        self.view.blockSignals(True)
        self.view.setCurrentText(self.game.view)
        item = self.view.model().item(1)
        if item is not None:
            item.setEnabled(m is None or m.n_states <= GRAPH_MAX_STATES)
        self.view.blockSignals(False)


VIEW = FileGame
"""This game's view (the registry finds it here by the game's key)."""
