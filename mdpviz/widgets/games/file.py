"""Any MDP in the course file format: the view (reader in :mod:`mdpviz.models.cs747`)."""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from mdpviz.models.cs747 import MDPFileError, parse_cs747, read_text_file
from mdpviz.models.mdp import TabularMDP
from mdpviz.models.simulate import policy_matrix, uniform_policy_matrix
from mdpviz.scenario import ScenarioError
from mdpviz.solvers import solve
from mdpviz.widgets.board import CellDecor
from mdpviz.models.episodes import sample_mdp_episode
from mdpviz.widgets.geometry import GRAPH_MAX_STATES, BoardLayout, graph_layout, grid_layout, policy_edges
from mdpviz.widgets.game import Game, strategy_simulation_job


# ---------------------------------------------------------------------------------- MDP from a course file
@dataclass(frozen=True)
class FileState:
    """The "MDP from file" game's edits: which file, its text and the discount."""

    path: str = ""
    """File the MDP was read from ("" before any file)."""
    text: str = ""
    """The file's text (kept so a scenario is self-contained)."""
    discount: float | None = None
    """Discount in use (None: the file's own)."""


class FileGame(Game):
    """Any MDP in the course file format, drawn as a grid of states (or a graph when small)."""

    key = "file"
    title = "MDP from file"
    value_label = "value V(s)"
    unit = "return"
    supports_discount = True

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(FileState(), parent)
        self.view = "grid"
        """"grid" or "graph" (a display setting; the graph view needs at most GRAPH_MAX_STATES states)."""
        self._editor: QWidget | None = None
        self._parsed: tuple[str, str, TabularMDP] | None = None
        self.start: int | None = None
        """Start state of simulations and episodes (a display setting; None: :func:`first_live_state`)."""

    @property
    def fstate(self) -> FileState:
        return self._state

    def _file_mdp(self, path: str, text: str) -> TabularMDP:
        if self._parsed is None or self._parsed[:2] != (path, text):
            self._parsed = (path, text, parse_cs747(text, path))
        return self._parsed[2]

    def build_mdp(self) -> TabularMDP | None:
        st = self.fstate
        if not st.text:
            return None
        m = self._file_mdp(st.path, st.text)
        if st.discount is not None and st.discount != m.discount:
            m = replace(m, discount=float(st.discount))
        return m

    def read_file(self, path: str | Path) -> FileState:
        """The state for ``path`` (parsed and checked); raises MDPFileError naming file and line."""
        result = self.read_file_job(path)
        assert result is not None  # never cancelled without a cancel check
        self.prime(*result)
        return result[0]

    def read_file_job(self, path: str | Path, progress=None, cancelled=None) -> tuple[FileState, TabularMDP] | None:
        """Read and parse ``path`` (any thread: touches no widget); (state, model), or None if
        ``cancelled()`` said so. The file is read once and parsed once (MDPFileError naming the line)."""
        path = str(path)
        if progress is not None:
            progress(0, 0, f"Reading {Path(path).name}\u2026")
        text = read_text_file(path)  # the course reader's checks: missing, binary, not UTF-8
        mdp = parse_cs747(text, path, progress=progress, cancelled=cancelled)
        if mdp is None:
            return None
        return FileState(path=path, text=text, discount=None), mdp

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
        m = self._file_mdp(self.fstate.path, self.fstate.text)
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
        if m is None:
            return 0
        if self.start is not None and 0 <= self.start < m.n_states:
            return int(self.start)
        return first_live_state(m)

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
            from mdpviz.widgets.editors import FileEditor

            self._editor = FileEditor(self)
        return self._editor

    def empty_text(self) -> str:
        return "No MDP loaded: File \u25b8 Open course MDP file\u2026"

    def state_name(self, s: int) -> str:
        return f"state {s}"

    def action_name(self, a: int, mdp: TabularMDP) -> str:
        return f"action {a}"

    def strategies(self, mdp):
        acts = [f"action {a}" for a in range(mdp.n_actions)
                if np.all(np.isin(np.flatnonzero(~mdp.terminal), mdp.row_state[mdp.row_action == a]))]
        return ["optimal", *acts, "random"]

    def strategy_probs(self, name, mdp, policy):
        if name == "optimal":
            if policy is None:
                raise ValueError("the optimal strategy needs a solved model: run the solver first")
            return policy_matrix(mdp, policy)
        if name == "random":
            return uniform_policy_matrix(mdp)
        if name.startswith("action "):
            a = int(name.split()[1])
            return policy_matrix(mdp, np.where(mdp.terminal, -1, a))
        raise ValueError(f"unknown strategy {name!r}")

    def max_steps(self, mdp: TabularMDP) -> int:
        """Steps per simulated episode: until gamma^t < 1e-12 for a discount below 1, else 10,000."""
        if mdp.discount < 1.0:
            if mdp.discount <= 0.0:
                return 1
            return int(min(10_000, math.ceil(math.log(1e-12) / math.log(mdp.discount))))
        return 10_000

    def simulation_job(self, mdp, policy, *, games, seed):
        start = self.start_state()
        return strategy_simulation_job(self, mdp, policy, games=games, seed=seed, start=start,
                                       start_name=f"state {start}", optimal=lambda: solve(mdp, "pi").policy)

    def outcome_text(self, mdp, state):
        return f"reached {self.state_name(state)} (terminal)"

    def episode(self, mdp, probs, rng):
        return sample_mdp_episode(mdp, probs, rng=rng, start=self.start_state(), max_steps=200,
                                  state_name=str, action_name=str)

    def to_dict(self):
        st = self.fstate
        return {"path": st.path, "text": st.text, "discount": st.discount, "view": self.view, "start": self.start}

    def load_dict(self, data, path):
        where = "games.file"
        text, fpath, disc, view = data.get("text", ""), data.get("path", ""), data.get("discount"), data.get("view", "grid")
        if not isinstance(text, str) or not isinstance(fpath, str):
            raise ScenarioError(path, where, "path and text must be strings")
        if view not in ("grid", "graph"):
            raise ScenarioError(path, f"{where}.view", f"must be 'grid' or 'graph', got {view!r}")
        if disc is not None and (isinstance(disc, bool) or not isinstance(disc, (int, float)) or not 0.0 <= disc <= 1.0):
            raise ScenarioError(path, f"{where}.discount", f"must be a number in [0, 1] or null, got {disc!r}")
        if text:
            try:
                parse_cs747(text, fpath or "<scenario>")
            except MDPFileError as e:
                raise ScenarioError(path, f"{where}.text", str(e)) from None
        return FileState(path=fpath, text=text, discount=None if disc is None else float(disc))

    def load_display(self, data: dict[str, Any]) -> None:
        if data.get("view") in ("grid", "graph"):
            self.view = data["view"]
        start = data.get("start")
        self.start = int(start) if isinstance(start, int) and not isinstance(start, bool) and start >= 0 else None



def first_live_state(mdp: TabularMDP) -> int:
    """The first state that is not terminal (0 if every state is terminal)."""
    live = np.flatnonzero(~np.asarray(mdp.terminal, dtype=bool))
    return int(live[0]) if live.size else 0
