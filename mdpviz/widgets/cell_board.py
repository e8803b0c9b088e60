"""The board of a game drawn as cells, one per state (snakes and ladders, a course-format MDP file).

:class:`CellBoard` is the game's :class:`~mdpviz.widgets.game_board.GameBoard`: the shared cell painter
(:class:`~mdpviz.widgets.board.BoardView`) told by its game where the cells go and what marks them
(the game's ``board_layout``, ``decor``, ``policy_glyph``, ``badge`` and ``state_name``) and by the
window which sweep to show. It derives everything it draws from that sweep: the values and badges,
the cells whose value or action changed since the previous sweep, every action's Q (the Q view) or
the change of each value (the delta view). A click asks the game first (an edit, e.g. a snakes
square's type) and else asks the window to inspect the cell; the right-click menu offers the same.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Iterator, Mapping

import numpy as np
from PySide6.QtWidgets import QMenu, QWidget

from mdpviz.models.kit.pictures.colors import ColorScale
from mdpviz.models.kit.pictures.display import board_frame, board_q
from mdpviz.models.kit.pictures.ties import backed_up, endless_states, sweep_ties
from mdpviz.solvers.value_iteration import default_block_size
from mdpviz.widgets.board import BoardView
from mdpviz.widgets.delta import change_frame, delta_frame

Q_VIEW_MAX_STATES = 200_000
"""The Q view draws every action's Q on cell boards up to this many states (one backup per redraw)."""


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


class CellBoard(BoardView):
    """A game's cell board: lays itself out from its game and draws the sweeps the window shows it."""

    draws_sweep_policy = True

    def __init__(self, game: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        """The game's view: its layout, decorations, badges, clicks and cell menus (its session: the
        model and the names of states)."""
        self.q_view = False
        """Every action's Q is drawn in the cells (see :meth:`set_q_view`)."""
        self._shown: tuple[Any, Any, Any, ColorScale | None] = (None, None, None, None)
        """(model, sweep, previous sweep, delta scale) of the frame shown."""
        self._laid_out: tuple[Any, Any, bytes | None] | None = None
        """(model, view, graph policy) the layout was made for."""
        self.cell_clicked.connect(self._on_click)
        self.cell_menu_requested.connect(self._on_menu)
        game.session.edited.connect(self._relayout)  # bound methods: disconnected when the board is deleted
        game.redraw.connect(self._relayout)
        # the session's other changes (a display setting, a compile's progress, a driver's state): lay out
        # again only when the model or the view changed (refresh_layout's own check), not at every tick
        game.session.changed.connect(self.refresh_layout)
        self.refresh_layout(force=True)

    # ------------------------------------------------------------------ layout
    def refresh_layout(self, policy: np.ndarray | None = None, *, force: bool = False) -> None:
        """Lay the cells out for the game's current model (in a graph view, with ``policy``'s arrows);
        nothing to do unless one of them changed or ``force``."""
        g = self.game
        mdp = g.session.mdp()
        drawn = policy.tobytes() if policy is not None and g.view == "graph" else None
        if not force and self._laid_out is not None and self._laid_out[0] is mdp and self._laid_out[1:] == (g.view, drawn):
            return
        self._laid_out = (mdp, g.view, drawn)
        self.set_board(g.board_layout(mdp, policy), g.decor())
        self.set_policy_glyph(*g.policy_glyph())
        # named on demand (a tooltip, a caption): naming all 1.29M states of checkers took 2.4 s here
        self.state_names = {} if mdp is None else StateNames(g.session.state_name, mdp.n_states)

    def _relayout(self, *_: Any) -> None:
        """An edit, or a change of what the view draws: lay the cells out again."""
        self.refresh_layout(force=True)

    # ------------------------------------------------------------------ the window's calls
    def show_sweep(self, sweep: Any, scale: ColorScale | None, *, caption: str = "", previous: Any = None,
                   delta: ColorScale | None = None) -> None:
        """Draw ``sweep`` (None: the unsolved board) on ``scale``; the cells whose value or action changed
        since ``previous`` are marked; ``delta``: colour by that change instead, on this log scale."""
        mdp = self.game.session.mdp()
        if sweep is not None and (mdp is None or np.shape(sweep.values) != (mdp.n_states,)):
            sweep = previous = None  # a sweep of the model before an edit (the solver is being reset)
        self._shown = (mdp, sweep, previous, delta)
        self.refresh_layout(None if sweep is None else np.asarray(sweep.policy))
        self.shown_scale = delta if sweep is not None else None  # the delta view's scale on the colour bar
        if sweep is None:
            self.show_q_values(None)
            self.show_frame(None, scale)
            self.caption = caption
            self.update()
            return
        hist = (sweep,) if previous is None else (previous, sweep)
        # a solver's snapshot (a learner's draws its learned policy only); a policy-gradient run's values are its
        # actions' probabilities, not values to back up: no tied actions, no "never ends" marks from them
        solved = backed_up(sweep)
        frame = board_frame(
            sweep.values, sweep.policy, scale=scale, terminal=mdp.terminal, badge=lambda a: self.game.badge(a, mdp),
            prev_values=None if previous is None else previous.values,
            prev_policy=None if previous is None else previous.policy, caption=caption,
            # every optimal action, backed up as the badge and the inspector are; where the policy never ends
            ties=(sweep_ties(mdp, hist, len(hist) - 1, gs_block=default_block_size(mdp.n_states))
                  if solved and mdp.n_states <= Q_VIEW_MAX_STATES else None),
            endless=endless_states(mdp, sweep.policy) if solved else None,
        )
        if delta is not None:
            changed = None if previous is None else (np.asarray(previous.policy) != np.asarray(sweep.policy))
            frame = delta_frame(sweep.values, None if previous is None else previous.values, frame.badges,
                                terminal=mdp.terminal, scale=delta,
                                caption=frame.caption + " \u2014 colour: change in this sweep",
                                action_changed=changed, actions=frame.actions)
            scale = delta
        self.show_frame(frame, scale)
        self._show_q()

    def show_change(self, diff: Any, mode: str, scale: ColorScale | None = None) -> bool:
        """The live re-solve's policy diff on the frame just shown: the states whose optimal actions
        changed outlined; "difference": each cell coloured by dV on the diverging ``scale``, its signed
        change printed (a state that did not exist before the edit: no colour, "new")."""
        frame = self.frame
        mdp = self.game.session.mdp()
        if frame is None or mdp is None or np.shape(diff.changed) != (mdp.n_states,):
            return False
        if mdp.n_states != len(self.layout_.cells):
            return False
        if mode != "difference" or scale is None:
            self.show_frame(replace(frame, changed=np.asarray(diff.changed, dtype=bool)), self.scale)
            return True
        self.show_frame(change_frame(diff, frame.badges, terminal=mdp.terminal, scale=scale, caption=frame.caption,
                                     actions=frame.actions), scale)
        self.shown_scale = scale
        self.show_q_values(None)
        return True

    def set_q_view(self, on: bool) -> None:
        """Every action's Q-value in the cells (as rows coloured on the board's scale) or not."""
        self.q_view = bool(on)
        self._show_q()

    def _show_q(self) -> None:
        """The Q view of the shown sweep: each Q backed up from the values its badge was chosen with
        (:func:`~mdpviz.models.kit.pictures.display.board_q`); none in the delta view or on a huge model."""
        mdp, sweep, previous, delta = self._shown
        if not self.q_view or sweep is None or delta is not None or mdp.n_states > Q_VIEW_MAX_STATES:
            self.show_q_values(None)
            return
        hist = (sweep,) if previous is None else (previous, sweep)
        self.show_q_values(board_q(mdp, hist, len(hist) - 1, gs_block=default_block_size(mdp.n_states)))

    def shows_state(self, state: int) -> bool:
        """Every state is a cell (an episode's token stands on its end state too)."""
        return True

    # ------------------------------------------------------------------ clicks
    def _on_click(self, state: int) -> None:
        if self.game.cell_clicked(state):  # the game used it (an edit)
            return
        self.inspect_requested.emit(state)
        self.raise_inspector.emit()

    def _on_menu(self, state: int, pos) -> None:
        self.cell_menu(state).exec(pos)

    def cell_menu(self, state: int) -> QMenu:
        """The right-click menu of a cell: inspect, then the game's edits."""
        menu = QMenu(self)
        menu.setObjectName("cellMenu")
        menu.addAction(f"Inspect {self.game.session.state_name(state)}", lambda: self.inspect_requested.emit(state))
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


__all__ = ["CellBoard", "Q_VIEW_MAX_STATES", "StateNames"]
