"""Gymnasium environments in the window: any environment with a transition table
(:mod:`mdpviz.models.gym`); FrozenLake and CliffWalking open on the grid board, Taxi on the grid of
the taxi's cells one slice at a time (the passenger's place and the destination chosen above the
board), others on a table of states named by the environment. Gymnasium is imported only when the
game is used.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QLabel, QLineEdit, QPushButton, QWidget

from mdpviz.models.kit.boards.grid import GridGeometry

from mdpviz.models import gym as gb
from mdpviz.widgets import named as _named
from mdpviz.widgets.games.grid_board import GridGameBase

SPEC = gb.SPEC
GymSettings = gb.GymSettings

class GymGame(GridGameBase):
    """A Gymnasium environment's transition table (needs the optional ``gymnasium`` package)."""

    spec = SPEC

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._slice = (0, 1)
        """Taxi's slice on the board: (passenger location 0-3 at R, G, Y, B or 4 in the taxi, destination 0-3)."""
        self._slice_controls: list[QWidget] = []

    @property
    def gstate(self) -> GymSettings:
        return self.session.settings

    def _taxi(self):
        built = self.session.built()
        return None if built is None else built.taxi

    def geometry(self) -> GridGeometry | None:
        """FrozenLake's and CliffWalking's grid; Taxi's chosen slice (:meth:`set_taxi_slice`)."""
        tm = self._taxi()
        for w in self._slice_controls:  # the slice's choosers only for Taxi
            if w.isVisibleTo(w.parentWidget()) != (tm is not None) and w.parentWidget() is not None:
                w.setVisible(tm is not None)
        if tm is not None:
            return gb.taxi_slice(tm, *self._slice)
        return super().geometry()

    @property
    def taxi_slice(self) -> tuple[int, int]:
        """(passenger location, destination) of the Taxi slice drawn."""
        return self._slice

    def set_taxi_slice(self, passenger: int, destination: int) -> None:
        """Draw Taxi's states with the passenger at ``passenger`` (0-3: R, G, Y, B; 4: in the taxi) bound
        for ``destination`` (0-3)."""
        new = (int(passenger), int(destination))
        if not 0 <= new[0] <= gb.TAXI_IN_TAXI or not 0 <= new[1] < len(gb.TAXI_PLACES):
            raise ValueError(f"no Taxi slice {new}")
        if new != self._slice:
            self._slice = new
            self._sync_slice_controls()
            self.redraw.emit()

    def follow_state(self, state: int) -> None:
        tm = self._taxi()
        where = None if tm is None else tm.slice_of(state)
        if where is not None:
            self.set_taxi_slice(*where)

    def board_controls(self) -> list[QWidget]:
        if not self._slice_controls:
            pas = _named(QComboBox(), "taxiPassenger", "Taxi: where the passenger is")
            for k, name in enumerate(gb.TAXI_PLACES):
                pas.addItem(f"passenger at {name}", k)
            pas.addItem("passenger in the taxi", gb.TAXI_IN_TAXI)
            dest = _named(QComboBox(), "taxiDestination", "Taxi: the passenger's destination")
            for k, name in enumerate(gb.TAXI_PLACES):
                dest.addItem(f"to {name}", k)
            pas.setToolTip("Taxi has 500 states: the board shows the 25 with the passenger here (one per taxi cell)")
            dest.setToolTip("The passenger's destination of the states drawn")
            pas.currentIndexChanged.connect(lambda _i: self.set_taxi_slice(pas.currentData(), self._slice[1]))
            dest.currentIndexChanged.connect(lambda _i: self.set_taxi_slice(self._slice[0], dest.currentData()))
            self._slice_controls = [pas, dest]
            self.session.changed.connect(self._sync_slice_controls)
            self._sync_slice_controls()
        return list(self._slice_controls)

    def _sync_slice_controls(self) -> None:
        if not self._slice_controls:
            return
        pas, dest = self._slice_controls
        for box, value in ((pas, self._slice[0]), (dest, self._slice[1])):
            box.blockSignals(True)
            box.setCurrentIndex(box.findData(value))
            box.blockSignals(False)

    def empty_text(self) -> str:
        return "Choose a Gymnasium environment in the Game panel"

    def set_environment(self, env_id: str, kwargs_text: str | dict[str, Any]) -> bool:
        """Switch to ``env_id`` with keyword arguments (``"key=value key=value"`` or a dict): imported on the
        job thread (Gymnasium is never imported on the GUI thread), then an edit; a bad one is refused with a
        message (the session's ``refused``) and leaves the current environment. False: refused at once (a
        malformed argument) or nothing to change."""
        try:
            new = gb.state_with_kwargs(self.gstate, env_id, kwargs_text)
        except ValueError as e:
            return self.session.refuse(f"Not applied: {e}")
        kwt = ", ".join(f"{k}={v}" for k, v in new.kwargs)
        return self.session.edit(new, f"{new.env_id}" + (f" ({kwt})" if kwt else ""), when_built=True)

    def editor(self) -> QWidget:
        if self._editor is None:
            self._editor = GymEditor(self)
        return self._editor

    def refresh_editor(self) -> None:
        if self._editor is not None:
            self._editor.sync()


ENV_CHOICES = ("FrozenLake-v1", "CliffWalking-v1", "Taxi-v4")
"""Environments offered in the picker (any other id can be typed)."""


class GymEditor(QWidget):
    """Environment id, FrozenLake's map and slipperiness, free keyword arguments, Apply."""

    def __init__(self, game: GymGame, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.setObjectName("gymEditor")
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.env = _named(QComboBox(), "gymEnvPicker", "Gymnasium environment")
        self.env.setEditable(True)
        self.env.addItems(list(ENV_CHOICES))
        self.env.setToolTip("Any environment with a transition table env.unwrapped.P (toy-text)")
        form.addRow("Environment", self.env)
        self.map = _named(QComboBox(), "gymMapPicker", "FrozenLake map")
        self.map.addItems(["4x4", "8x8"])
        form.addRow("Map", self.map)
        self.slippery = _named(QCheckBox("Slippery ice"), "gymSlippery", "Slippery")
        self.slippery.setChecked(True)
        form.addRow(self.slippery)
        self.kwargs = _named(QLineEdit(), "gymKwargs", "Keyword arguments")
        self.kwargs.setPlaceholderText("key=value \u2026 (e.g. success_rate=0.5)")
        self.kwargs.setToolTip("More keyword arguments of gymnasium.make, each value a Python literal, e.g. "
                               "desc=['SFFF','FHFH','FFFH','HFFG']")
        form.addRow("Keywords", self.kwargs)
        self.apply = _named(QPushButton("Apply"), "gymApply", "Apply the environment")
        form.addRow(self.apply)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setObjectName("gymStatus")
        form.addRow(self.status)
        self.apply.clicked.connect(self.apply_settings)
        self.env.currentTextChanged.connect(lambda _t: self._update_enabled())
        game.session.edited.connect(lambda _t: self.sync())
        game.session.message.connect(self.status.setText)
        self.sync()

    def _update_enabled(self) -> None:
        lake = self.env.currentText().startswith("FrozenLake")
        self.map.setEnabled(lake)
        self.slippery.setEnabled(lake)

    def sync(self) -> None:
        settings = self.game.gstate
        self.env.setCurrentText(settings.env_id)
        kw = dict(settings.kwargs)
        extra = {k: v for k, v in kw.items() if k not in ("map_name", "is_slippery")}
        if "map_name" in kw:
            self.map.setCurrentText(str(kw["map_name"]).strip("'\""))
        if "is_slippery" in kw:
            self.slippery.setChecked(kw["is_slippery"].strip() == "True")
        self.kwargs.setText(" ".join(f"{k}={v}" for k, v in extra.items()))
        self._update_enabled()
        import importlib.util

        # find_spec, not an import: the window never imports Gymnasium before the game is used
        self.status.setText("" if importlib.util.find_spec("gymnasium") is not None else gb.INSTALL_HINT)

    def apply_settings(self) -> bool:
        env = self.env.currentText().strip()
        parts = gb.split_kwargs(self.kwargs.text())
        if env.startswith("FrozenLake") and not any(p.startswith("desc=") for p in parts):
            parts = [f"map_name='{self.map.currentText()}'", f"is_slippery={self.slippery.isChecked()}", *parts]
        ok = self.game.set_environment(env, " ".join(parts))
        if ok:
            self.status.setText("")
        return ok


VIEW = GymGame
"""This game's view (the registry finds it here by the game's key)."""
