"""Tic-tac-toe against a random opponent (seed 001) in the window: the view of :mod:`mdpviz.models.ttt`.

A :class:`~mdpviz.widgets.position.PositionGame`: the board shows one position with each legal
cell coloured by its Q-value. Everything headless (the rules, the position model
:class:`~mdpviz.models.ttt.VsRandomPositionModel`, the matchups as a job generator, the
scenario codec) lives in :mod:`mdpviz.models.ttt`; this module draws and edits.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QFormLayout, QLabel, QWidget

from mdpviz.models import ttt as tt
from mdpviz.models.ttt import SPEC, TicTacToeSettings, VsRandomPositionModel, mark_name
from mdpviz.widgets import named as _named
from mdpviz.widgets.position import GridPainter, PositionGame
from mdpviz.widgets.session import GameSession


class TicTacToeGame(PositionGame):
    """Tic-tac-toe against a uniformly random opponent (seed 001)."""

    spec = SPEC

    def __init__(self, session: GameSession | None = None, parent: QObject | None = None) -> None:
        super().__init__(session, parent)
        self._model: tuple[Any, VsRandomPositionModel] | None = None
        self._editor: QWidget | None = None

    @property
    def settings(self) -> tt.VsRandomSettings:
        return self.session.settings.settings

    def position_model(self) -> VsRandomPositionModel | None:
        game = self.session.built()
        if game is None:
            return None
        if self._model is None or self._model[0] is not game:
            try:
                self._model = (game, VsRandomPositionModel(game))
            except ValueError:
                return None
        return self._model[1]

    def painter(self) -> GridPainter:
        return GridPainter(self.settings.size)

    # ------------------------------------------------------------------ edits
    def _set(self, text: str, **changes) -> bool:
        try:
            new = replace(self.settings, **changes)
        except ValueError as e:
            return self.session.refuse(str(e))
        return self.session.edit(TicTacToeSettings(new), text)

    def set_rewards(self, *, win: float | None = None, draw: float | None = None, loss: float | None = None) -> bool:
        s = self.settings
        w, d, lo = (s.win if win is None else float(win)), (s.draw if draw is None else float(draw)), \
            (s.loss if loss is None else float(loss))
        return self._set(f"rewards win {w:g}, draw {d:g}, loss {lo:g}", win=w, draw=d, loss=lo)

    def set_agent(self, mark: str) -> bool:
        m = mark_name(tt.parse_mark(mark))
        return self._set(f"agent plays {m}", agent=m)

    def set_first(self, who: str) -> bool:
        if who not in ("agent", "opponent"):
            raise ValueError(f"first must be 'agent' or 'opponent', got {who!r}")
        return self._set(f"{who} moves first", first=who)

    def editor(self) -> QWidget:
        if self._editor is None:
            self._editor = VsRandomEditor(self)
        return self._editor

    def refresh_editor(self) -> None:
        if self._editor is not None:
            self._editor.refresh()


class VsRandomEditor(QWidget):
    """The vs-random game's panel: the agent's mark, who moves first, rewards, discount."""

    def __init__(self, game: TicTacToeGame, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.setObjectName("tttEditor")
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.agent = _named(QComboBox(), "tttAgentMark", "Agent's mark")
        self.agent.addItems(["O", "X"])
        self.agent.setToolTip("The agent's mark; the random opponent (or you, in 'play vs agent') has the other")
        self.first = _named(QComboBox(), "tttFirst", "First move")
        self.first.addItem("random opponent", "opponent")
        self.first.addItem("agent", "agent")
        self.win = self._spin("tttWin", "Reward for a win")
        self.draw = self._spin("tttDraw", "Reward for a draw")
        self.loss = self._spin("tttLoss", "Reward for a loss")
        self.discount = _named(QDoubleSpinBox(), "tttDiscount", "Discount per round")
        self.discount.setRange(0.0, 1.0)
        self.discount.setDecimals(3)
        self.discount.setSingleStep(0.05)
        self.discount.setKeyboardTracking(False)
        form.addRow("Agent plays", self.agent)
        form.addRow("First move", self.first)
        form.addRow("Win reward", self.win)
        form.addRow("Draw reward", self.draw)
        form.addRow("Loss reward", self.loss)
        form.addRow("Discount", self.discount)
        note = QLabel("The opponent picks an empty cell uniformly at random. One MDP step is a round (your move and "
                      "its reply). Seed 001: +500 / 0 / \u22123500, discount 0.9. In 'Play vs agent' you take the "
                      "random opponent's place: choose the agent's mark and who moves first here.")
        note.setWordWrap(True)
        form.addRow(note)
        self.refresh()
        self.agent.currentTextChanged.connect(lambda t: self.game.set_agent(t))
        self.first.currentIndexChanged.connect(lambda _i: self.game.set_first(self.first.currentData()))
        for w, k in ((self.win, "win"), (self.draw, "draw"), (self.loss, "loss")):
            w.valueChanged.connect(lambda v, k=k: self.game.set_rewards(**{k: v}))
        self.discount.valueChanged.connect(lambda v: self.game.session.set_discount(v))
        game.session.edited.connect(lambda _t: self.refresh())

    def _spin(self, name: str, text: str) -> QDoubleSpinBox:
        s = _named(QDoubleSpinBox(), name, text)
        s.setRange(-1e6, 1e6)
        s.setDecimals(1)
        s.setSingleStep(100)
        s.setKeyboardTracking(False)
        return s

    def refresh(self) -> None:
        s = self.game.settings
        for w, v in ((self.win, s.win), (self.draw, s.draw), (self.loss, s.loss), (self.discount, s.discount)):
            w.blockSignals(True)
            w.setValue(float(v))
            w.blockSignals(False)
        for combo, data in ((self.agent, None), (self.first, s.first)):
            combo.blockSignals(True)
            if data is None:
                combo.setCurrentText(s.agent)
            else:
                combo.setCurrentIndex(combo.findData(data))
            combo.blockSignals(False)


__all__ = ["TicTacToeGame", "VsRandomEditor"]


VIEW = TicTacToeGame
"""This game's view (the registry finds it here by the game's key)."""
