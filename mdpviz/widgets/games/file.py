"""Any MDP in the course file format: the view (reader in :mod:`mdpviz.models.cs747`)."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QPushButton, QSpinBox, QVBoxLayout, QWidget

from mdpviz.models.jobs import Job
from mdpviz.models.file import spec as mf
from mdpviz.models.kit.episodes import sample_mdp_episode
from mdpviz.models.files import ScenarioError
from mdpviz.models.mdp import TabularMDP
from mdpviz.models.kit.strategies import at_least_two_games
from mdpviz.widgets import named as _named
from mdpviz.widgets.board import CellDecor
from mdpviz.widgets.game import Game
from mdpviz.widgets.geometry import GRAPH_MAX_STATES, BoardLayout, graph_layout, grid_layout, policy_edges

SPEC = mf.SPEC
FileState = mf.FileState


# ---------------------------------------------------------------------------------- MDP from a course file
class FileGame(Game):
    """Any MDP in the course file format, drawn as a grid of states (or a graph when small)."""

    spec = SPEC
    supports_discount = True

    def __init__(self, parent: QObject | None = None) -> None:
        # a new window opens with no file (the spec's default, a course example, is for headless use)
        super().__init__(SPEC.settings_type(), parent)
        self.view = "grid"
        """"grid" or "graph" (a display setting; the graph view needs at most GRAPH_MAX_STATES states)."""
        self._editor: QWidget | None = None
        self._parsed: tuple[str, str, TabularMDP] | None = None
        self.start: int | None = None
        """Start state of simulations and episodes (a display setting; None: :func:`mdpviz.models.file.spec.first_live_state`)."""

    @property
    def fstate(self) -> FileState:
        return self._state

    def _file_mdp(self, state: FileState) -> TabularMDP:
        """The file's model with its own discount, parsed once per file (cached)."""
        if self._parsed is None or self._parsed[:2] != (state.path, state.text):
            self._parsed = (state.path, state.text, mf.parse_file_state(state))
        return self._parsed[2]

    def build_mdp(self) -> TabularMDP | None:
        st = self.fstate
        if not st.text:
            return None
        return mf.with_discount(self._file_mdp(st), st)

    def read_file(self, path: str | Path) -> FileState:
        """The state for ``path`` (parsed and checked); raises MDPFileError naming file and line."""
        result = mf.read_file(path)
        self.prime(*result)
        return result[0]

    def prime(self, state: FileState, mdp: TabularMDP) -> None:
        """Remember the model parsed off the GUI thread, so selecting the state does not parse again."""
        self._parsed = (state.path, state.text, mdp)

    def open_file(self, path: str | Path) -> bool:
        """Load a course-format file as an edit; MDPFileError leaves the current state untouched."""
        new = self.read_file(path)
        return self.edit(new, f"opened {Path(new.path).name}")

    def set_discount(self, gamma: float) -> bool:
        gamma = float(gamma)
        if not 0.0 <= gamma <= 1.0:
            raise ValueError(f"discount must be in [0, 1], got {gamma}")
        if not self.fstate.text:
            return False
        m = self._file_mdp(self.fstate)
        new = replace(self.fstate, discount=None if gamma == m.discount else gamma)
        return self.edit(new, f"discount {gamma:g}")

    def set_view(self, view: str) -> bool:
        """Grid or graph view: a display setting, not an edit (no solver reset, no undo entry)."""
        if view not in ("grid", "graph"):
            raise ValueError(f"view must be 'grid' or 'graph', got {view!r}")
        m = self.mdp()
        if view == "graph" and m is not None and m.n_states > GRAPH_MAX_STATES:
            self.message.emit(f"The graph view shows at most {GRAPH_MAX_STATES} states; this MDP has {m.n_states}.")
            return False
        if view != self.view:
            self.view = view
            self.redraw.emit()
        return True

    def _set_state(self, state: Any, text: str) -> None:
        if state.path != self.fstate.path:  # another file: back to its own default start
            self.start = None
        super()._set_state(state, text)

    def start_state(self) -> int:
        """The chosen start state if it is a state of the loaded MDP, else its first non-terminal state
        (course files may make state 0 terminal, where every strategy would score 0)."""
        m = self.mdp()
        return 0 if m is None else mf.start_state(m, self.start)

    def set_start(self, state: int) -> bool:
        """Start simulations and episodes in ``state`` (a display setting: no solver reset, no undo entry)."""
        m = self.mdp()
        if m is None or not 0 <= int(state) < m.n_states:
            raise ValueError(f"start state must be in 0..{(m.n_states - 1) if m is not None else -1}, got {state}")
        if int(state) != self.start_state():
            self.start = int(state)
            self.redraw.emit()
            return True
        self.start = int(state)
        return False

    def board_layout(self, mdp, policy) -> BoardLayout:
        if mdp is None:
            return BoardLayout(())
        labels = [str(s) for s in range(mdp.n_states)]
        if self.view == "graph" and mdp.n_states <= GRAPH_MAX_STATES:
            edges = policy_edges(mdp, policy)
            return graph_layout(mdp.n_states, edges, labels=labels)
        return grid_layout(mdp.n_states, labels=labels)

    def decor(self):
        m = self.mdp()
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
        return self.state.path

    def empty_text(self) -> str:
        return "No MDP loaded: File \u25b8 Open course MDP file\u2026"

    def state_name(self, s: int) -> str:
        return f"state {s}"

    def action_name(self, a: int, mdp: TabularMDP) -> str:
        return f"action {a}"

    def strategies(self, mdp):
        return list(SPEC.strategies(self.fstate, mdp))

    def strategy_probs(self, name, mdp, policy):
        return SPEC.strategy_probs(self.fstate, name, mdp, policy)

    def simulation_job(self, mdp, policy, *, games, seed):
        st, start, games = self.fstate, self.start_state(), at_least_two_games(games)
        pol = None if policy is None else np.array(policy, dtype=np.int64)
        return Job(lambda: SPEC.jobs["simulate"](st, mdp, pol, games=games, seed=seed, start=start))

    def outcome_text(self, mdp, state):
        return f"reached {self.state_name(state)} (terminal)"

    def episode(self, mdp, probs, rng):
        return sample_mdp_episode(mdp, probs, rng=rng, start=self.start_state(), max_steps=200,
                                  state_name=str, action_name=str)

    def to_dict(self):
        # the settings, then the display settings (grid or graph, the start state)
        return {**SPEC.to_dict(self.fstate), "view": self.view, "start": self.start}

    def load_dict(self, data, path):
        view = data.get("view", "grid")
        if view not in ("grid", "graph"):
            raise ScenarioError(path, "games.file.view", f"must be 'grid' or 'graph', got {view!r}")
        return SPEC.from_dict(data, path)

    def load_display(self, data: dict[str, Any]) -> None:
        if data.get("view") in ("grid", "graph"):
            self.view = data["view"]
        start = data.get("start")
        self.start = int(start) if isinstance(start, int) and not isinstance(start, bool) and start >= 0 else None


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
        game.edited.connect(lambda _: self.refresh())
        game.redraw.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        st = self.game.fstate
        m = self.game.mdp()
        if m is None:
            self.summary.setText("No file loaded. Course files list numStates, numActions, end, "
                                 "transition s a s' r p lines, mdptype and discount.")
        else:
            kind = m.mdptype or ("episodic" if m.terminal.any() else "continuing")
            ends = ", ".join(str(int(s)) for s in m.terminal.nonzero()[0][:8]) or "none"
            self.summary.setText(
                f"<b>{Path(st.path).name}</b><br>{m.n_states} states, {m.n_actions} actions, "
                f"{m.n_transitions} transitions<br>{kind}, discount {m.discount:g}<br>terminal: {ends}")
        self.start.blockSignals(True)
        self.start.setRange(0, max(0, (m.n_states - 1) if m is not None else 0))
        self.start.setEnabled(m is not None)
        self.start.setValue(self.game.start_state())
        self.start.blockSignals(False)
        self.view.blockSignals(True)
        self.view.setCurrentText(self.game.view)
        item = self.view.model().item(1)
        if item is not None:
            item.setEnabled(m is None or m.n_states <= GRAPH_MAX_STATES)
        self.view.blockSignals(False)


VIEW = FileGame
"""This game's view (the registry finds it here by the game's key)."""
