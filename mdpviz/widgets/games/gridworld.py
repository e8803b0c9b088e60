"""Grid worlds in the window: CS188's maps and map files (rules in :mod:`mdpviz.models.gridworld`),
edited on the board with undo: click a cell in edit mode to cycle open -> wall -> exit -> open,
right-click for a menu (wall, open, exit with the editor's reward, start here), fields for noise and
living reward, the convention, the map. The board is :class:`~mdpviz.widgets.games.grid_board.GridBoard`.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QFileDialog, QFormLayout, QLabel, QPushButton, QWidget

from mdpviz.models import gridworld as gw
from mdpviz.widgets import named as _named
from mdpviz.widgets.games.grid_board import GridGameBase
from mdpviz.widgets.session import GameSession

SPEC = gw.SPEC


class GridWorldGame(GridGameBase):
    """A grid world (CS188's maps or a map file) in either convention, edited on the board."""

    spec = SPEC
    editable = True

    def __init__(self, session: GameSession | None = None, parent: QObject | None = None) -> None:
        super().__init__(session, parent)
        self.new_exit_reward = 1.0
        """Reward of an exit made by a click (the editor's field)."""
        self._map_settings: dict[str, gw.GridSettings] = {}
        """The settings each built-in map had when another map was chosen (what it comes back with)."""

    @property
    def settings(self) -> gw.GridSettings:
        return self.session.settings

    # -------------------------------------------------------------- edits
    def set_noise(self, noise: float) -> bool:
        return self._try(replace(self.settings, noise=float(noise)), f"noise {float(noise):g}")

    def set_living_reward(self, r: float) -> bool:
        return self._try(replace(self.settings, living_reward=float(r)), f"living reward {float(r):g}")

    def set_convention(self, conv: str) -> bool:
        return self._try(replace(self.settings, convention=conv), f"convention {conv}")

    def set_map(self, grid: gw.GridMap, text: str = "") -> bool:
        """Choose a map. Another map than the shown one (another name: a built-in map or a map file) starts a
        new lesson with its own rules (issue 35 item 2: the 4x4 map's noise 0, living reward -1 and discount 1
        stayed on the book grid): a built-in map comes back as the user left it (its edits stay with it),
        else with the game's default rules and :data:`~mdpviz.models.gridworld.rules.MAP_SETTINGS`' for it; an
        undoable step that live re-solve does not compare (see :meth:`GameSession.edit`'s ``new_lesson``).
        The shown map's own name (its cells edited) is an edit of the map: its rules stay."""
        cur = self.settings
        if grid.name == cur.grid.name:
            return self._try(gw.with_map(cur, grid), text or f"map {grid.name}")
        if cur.grid.name in gw.BUILTIN_MAPS:
            self._map_settings[cur.grid.name] = cur
        kept = self._map_settings.get(grid.name)
        if kept is not None and grid == gw.BUILTIN_MAPS.get(grid.name):
            new = kept
        else:
            new = gw.with_map(self.session.spec.default_settings(), grid)
        return self._try(new, text or f"map {grid.name}", new_lesson=True)

    def _edit_map(self, grid: gw.GridMap, text: str) -> bool:
        """An edit of the shown map's cells or start (its rules stay)."""
        return self._try(replace(self.settings, grid=grid), text)

    def open_map_file(self, path: str | Path) -> bool:
        """Load a map file as an edit; GridFileError (file:line) leaves the current map untouched."""
        return self.set_map(gw.read_grid(path), f"opened {Path(path).name}")

    def _try(self, new: gw.GridSettings, text: str, *, new_lesson: bool = False) -> bool:
        """Apply an edit if the new settings are valid; otherwise say why and keep the old ones."""
        try:
            new.validate()
        except ValueError as e:
            return self.session.refuse(f"Not applied: {e}")
        return self.session.edit(new, text, new_lesson=new_lesson)

    def set_cell(self, r: int, c: int, value: gw.Cell) -> bool:
        g = self.settings.grid
        if (r, c) == g.start and not gw.is_open(value):
            return self.session.refuse("The start cell must stay open: move the start first (right-click another cell).")
        return self._edit_map(g.with_cell(r, c, value), f"row {r + 1}, column {c + 1}: {gw.describe_cell(value)}")

    def cycle_cell(self, r: int, c: int) -> bool:
        """Edit mode's click: open -> wall -> exit (the editor's reward) -> open."""
        return self.set_cell(r, c, gw.next_cell(self.settings.grid.cells[r][c], self.new_exit_reward))

    def move_start(self, r: int, c: int) -> bool:
        g = self.settings.grid
        if not gw.is_open(g.cells[r][c]):
            return self.session.refuse("The start must be an open cell.")
        return self._edit_map(replace(g, start=(r, c)), f"start at row {r + 1}, column {c + 1}")

    def grid_menu(self, r, c):
        x = self.settings.grid.cells[r][c]
        rew = float(self.new_exit_reward)
        out: list[tuple[str, Callable[[], None] | None]] = [
            ("Open cell" + (" \u2713" if x == gw.OPEN else ""), lambda: self.set_cell(r, c, gw.OPEN)),
            ("Wall" + (" \u2713" if x == gw.WALL else ""), lambda: self.set_cell(r, c, gw.WALL)),
            (f"Exit with reward {rew:+g} (the editor's exit reward)", lambda: self.set_cell(r, c, rew)),
            (f"Open cell with its own reward {rew:+g} (R(s): replaces the living reward here)"
             + (" \u2713" if gw.own_reward(x) == rew else ""), lambda: self.set_cell(r, c, gw.reward_cell(rew))),
        ]
        out.append(("Start here", (lambda: self.move_start(r, c)) if gw.is_open(x) else None))
        return out

    # -------------------------------------------------------------- panels
    def editor(self) -> QWidget:
        if self._editor is None:
            self._editor = GridEditor(self)
        return self._editor

    def refresh_editor(self) -> None:
        if self._editor is not None:
            self._editor.sync()


# ---------------------------------------------------------------------------------- editors
class GridEditor(QWidget):
    """Map, convention, noise, living reward and the exit reward of new exits."""

    def __init__(self, game: GridWorldGame, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.setObjectName("gridworldEditor")
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.map = _named(QComboBox(), "gridMapPicker", "Grid map")
        for name in gw.BUILTIN_MAPS:
            self.map.addItem(name, name)
        self.map.addItem("custom", "")
        self.map.setToolTip("CS188's layouts (gridworld.py); 'Open map file' reads your own")
        form.addRow("Map", self.map)
        self.open = _named(QPushButton("Open map file\u2026"), "gridOpenMap", "Open a grid map file")
        self.open.setToolTip("One row per line, cells separated by spaces: # wall, S start, . open, numbers for exits")
        form.addRow(self.open)
        self.convention = _named(QComboBox(), "gridConvention", "Convention")
        for k in gw.CONVENTIONS:
            self.convention.addItem({"cs188": "CS188 (exit action)", "aima": "Russell-Norvig (R(s), terminals)",
                                    "sutton": "Sutton-Barto (+exit on arrival)"}[k], k)
        # as narrow as eight letters (the longer name is cut in the box, whole in its list): a box as wide
        # as "Russell-Norvig (R(s), terminals)" cut the editor in presenter mode's right-hand column
        self.convention.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.convention.setMinimumContentsLength(8)
        form.addRow("Convention", self.convention)
        self.convention_note = QLabel()
        self.convention_note.setWordWrap(True)
        self.convention_note.setObjectName("gridConventionNote")
        form.addRow(self.convention_note)
        self.noise = _named(QDoubleSpinBox(), "gridNoise", "Noise")
        self.noise.setRange(0.0, 1.0)
        self.noise.setDecimals(3)
        self.noise.setSingleStep(0.05)
        self.noise.setToolTip("Probability of slipping sideways (noise/2 to each side)")
        form.addRow("Noise", self.noise)
        self.living = _named(QDoubleSpinBox(), "gridLivingReward", "Living reward")
        self.living.setRange(-1000.0, 1000.0)
        self.living.setDecimals(4)
        self.living.setSingleStep(0.01)
        self.living.setToolTip("Reward of every move from an open cell (R(s) in Russell-Norvig)")
        form.addRow("Living reward", self.living)
        self.exit_reward = _named(QDoubleSpinBox(), "gridExitReward", "Reward of new exits")
        self.exit_reward.setRange(-1000.0, 1000.0)
        self.exit_reward.setDecimals(2)
        self.exit_reward.setValue(1.0)
        self.exit_reward.setToolTip("The reward of an exit made by clicking in edit mode, or from the cell menu of an "
                                    "exit or of an open cell with its own reward R(s) (map files: .-0.5)")
        form.addRow("New exit reward", self.exit_reward)
        help_ = QLabel("Discount: the Solver panel. Edit cells: the board's \u201cEdit cells\u201d, then click "
                       "(open \u2192 wall \u2192 exit); right-click a cell to move the start or give it its own reward. "
                       "Ctrl+Z undoes.")
        help_.setWordWrap(True)
        form.addRow(help_)
        self.map.activated.connect(self._on_map)
        self.open.clicked.connect(self._on_open)
        self.convention.activated.connect(lambda i: self.game.set_convention(self.convention.itemData(i)))
        self.noise.editingFinished.connect(lambda: self.game.set_noise(self.noise.value()))
        self.living.editingFinished.connect(lambda: self.game.set_living_reward(self.living.value()))
        # a step of the arrows or the wheel is an edit at once (live re-solve follows it as it moves);
        # typed digits only at Enter or leaving the field, as before
        for box, fn in ((self.noise, self.game.set_noise), (self.living, self.game.set_living_reward)):
            box.setKeyboardTracking(False)
            box.valueChanged.connect(lambda v, fn=fn: fn(float(v)))
        self.exit_reward.valueChanged.connect(lambda v: setattr(self.game, "new_exit_reward", float(v)))
        game.session.edited.connect(lambda _t: self.sync())
        self.sync()

    def sync(self) -> None:
        settings = self.game.settings
        for w in (self.map, self.convention, self.noise, self.living):
            w.blockSignals(True)
        i = self.map.findData(settings.grid.name if settings.grid.name in gw.BUILTIN_MAPS and
                              settings.grid.cells == gw.BUILTIN_MAPS[settings.grid.name].cells and
                              settings.grid.start == gw.BUILTIN_MAPS[settings.grid.name].start else "")
        self.map.setCurrentIndex(i)
        self.convention.setCurrentIndex(self.convention.findData(settings.convention))
        self.convention_note.setText(gw.CONVENTION_NAMES[settings.convention] + "." + (
            f" After {settings.switch_after:,} real steps of a learner the world becomes the map {settings.switch_map}."
            if settings.switch_map and settings.switch_after else ""))
        self.noise.setValue(settings.noise)
        self.living.setValue(settings.living_reward)
        for w in (self.map, self.convention, self.noise, self.living):
            w.blockSignals(False)

    def _on_map(self, i: int) -> None:
        name = self.map.itemData(i)
        if name:
            self.game.set_map(gw.BUILTIN_MAPS[name])
        self.sync()

    def _on_open(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a grid map", "", "Grid maps (*.txt *.grid);;All files (*)")
        if path:
            try:
                self.game.open_map_file(path)
            except gw.GridFileError as e:
                self.game.session.refuse(str(e))


VIEW = GridWorldGame
"""This game's view (the registry finds it here by the game's key)."""
