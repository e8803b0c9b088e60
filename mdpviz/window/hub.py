"""What the main window's parts share, and the signals they talk through (app layer).

:class:`Hub` is handed to every part of :class:`mdpviz.app.MainWindow` in place of the window. It
carries the window-wide signals (a part emits one where others react to it), the shared things the
window builds before its parts (the one controller, the settings, the dialogs, the status line, the
Solver panel, the inspector, the convergence plot, the colour bar, the episode player, the docks, the
menus) and, by name, the parts themselves, whose *public* methods and attributes another part may use
(``tests/test_window_parts.py`` reads the part modules: none reads another's private state).

A part that must lay out docks or set the window's font or palette gets :attr:`Hub.main`, typed as
a plain :class:`~PySide6.QtWidgets.QMainWindow`: it uses Qt's API on it (``resizeDocks``,
``tabifyDockWidget``, ``saveState``...), never an attribute of the mdpviz window.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import shiboken6
from PySide6.QtCore import QObject, QSettings, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence, QUndoGroup
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QMenu, QStackedWidget, QToolBar, QWidget

if TYPE_CHECKING:
    from mdpviz.controller import SolverController
    from mdpviz.widgets.convergence import ConvergencePlot
    from mdpviz.widgets.board import ColorBar
    from mdpviz.widgets.lesson import LessonPanel
    from mdpviz.widgets.panels import Inspector, SolverPanel
    from mdpviz.widgets.simulation import EpisodePlayer
    from mdpviz.window.parts import Dialogs, StatusBar


@dataclass(frozen=True)
class Menus:
    """The window's menus a part adds its actions to (in the order the parts are built)."""

    file: QMenu
    """File (scenarios, course files, exports)."""
    export: QMenu
    """File > Export figure."""
    solve: QMenu
    """Solve (the solver's buttons and what runs on a model)."""
    view: QMenu
    """View (presenter mode, layouts, the board's view modes)."""


def keyed_tooltip(a: QAction) -> None:
    """``a``'s tooltip: its text and its keys ("Undo example layout (Ctrl+Z)")."""
    if not shiboken6.isValid(a):  # the undo group changes its actions' text while the window is deleted
        return
    keys = " or ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in a.shortcuts())
    tip = a.text().replace("&&", "\0").replace("&", "").replace("\0", "&") + (f" ({keys})" if keys else "")
    if a.toolTip() != tip:
        a.setToolTip(tip)


class Hub(QObject):
    """The window's shared things and signals (see the module's docstring). Built by the window, which
    fills in the shared widgets and then each part's slot as it builds the part."""

    game_shown = Signal(object)
    """Another game (its :class:`~mdpviz.widgets.game.Game`) is shown, its widgets already in front;
    emitted before :attr:`model_changed` tells the parts about its model."""
    model_changed = Signal()
    """The shown model changed (another game, or an edit): the parts forget what belonged to the old one
    (the solving part loads the model's solver, then emits its own ``model_loaded``)."""
    scenario_loaded = Signal(object)
    """A scenario was loaded into the games; the argument is the game it shows."""
    presenter_changed = Signal(bool)
    """Presenter mode was switched on (True) or off, the window's font already set."""
    shutting_down = Signal()
    """The window is shutting down: the parts stop their timers, players and exports."""

    def __init__(self, main: QMainWindow, *, controller: SolverController, settings: QSettings,
                 dialogs: Dialogs) -> None:
        super().__init__(main)
        self.main = main
        """The window as a QMainWindow (docks, font, palette: Qt's API only)."""
        self.controller = controller
        """The one :class:`~mdpviz.controller.SolverController` (the worker threads)."""
        self.settings = settings
        """The window's QSettings."""
        self.dialogs = dialogs
        """The window's modal dialogs (tests pass a stand-in)."""
        self.status: StatusBar | None = None
        """The status line."""
        self.state_label: QLabel | None = None
        """The status line's permanent label: the game, the method and the solver's state."""
        self.solver_panel: SolverPanel | None = None
        self.inspector: Inspector | None = None
        self.convergence: ConvergencePlot | None = None
        """The sweeps' convergence plot (a page of :attr:`conv_stack`)."""
        self.conv_stack: QStackedWidget | None = None
        """The Convergence dock's pages: the sweeps' plot, a game's own plot, the learning curves."""
        self.color_bar: ColorBar | None = None
        """The shared colour bar beside the board."""
        self.player: EpisodePlayer | None = None
        self.lesson_panel: LessonPanel | None = None
        """The Lesson dock's panel (written by the classroom part)."""
        self.docks: dict[str, QDockWidget] = {}
        """The docks by panel name (see :attr:`Game.panels`): game, solver, inspector, player,
        convergence, lesson."""
        self.menus: Menus | None = None
        self.toolbar: QToolBar | None = None
        """The main toolbar (Step, Run, Reset, Undo, Redo, Presenter mode)."""
        self.undo_group: QUndoGroup | None = None
        """The games' undo stacks (Edit > Undo and Redo act on the shown game's)."""
        # The parts, by name, filled in by the window as it builds them (typed Any: the part modules import
        # this one, and an import back would be a cycle). Each is the class of its module's name:
        # stage: StagePart, solving: SolvingPart, and so on (see mdpviz.app.PARTS).
        self.stage: Any = None
        self.solving: Any = None
        self.live: Any = None
        self.learning: Any = None
        self.playing: Any = None
        self.files: Any = None
        self.classroom: Any = None
        self.view: Any = None
        self.sensitivity: Any = None
        self.bandit: Any = None
        self.search: Any = None

    def say(self, text: str, ms: int = 0) -> None:
        """Show ``text`` on the status line for ``ms`` milliseconds (0: until the next message)."""
        self.status.showMessage(text, ms)

    def action(self, text: str, name: str, slot: Callable[..., Any], shortcut: Any = None, *, tip: str = "",
               checkable: bool = False) -> QAction:
        """A window-wide action (its shortcut works wherever the focus is in the window), its keys on
        its tooltip."""
        a = QAction(text, self.main)
        a.setObjectName(name)
        if shortcut is not None:
            if isinstance(shortcut, (list, tuple)):
                a.setShortcuts([QKeySequence(s) for s in shortcut])
            else:
                a.setShortcut(QKeySequence(shortcut))
            a.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        a.setCheckable(checkable)
        if tip:
            a.setStatusTip(tip)
        # the key on the toolbar button's tooltip too (the menus show it; the toolbar did not)
        keys = " or ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in a.shortcuts())
        base = tip or text.replace("&&", "\0").replace("&", "").replace("\0", "&")
        a.setToolTip(f"{base} ({keys})" if keys else base)
        a.triggered.connect(slot)
        self.main.addAction(a)
        return a

    def dock(self, title: str, name: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        """A movable, floatable, closable dock of the window holding ``widget``."""
        d = QDockWidget(title, self.main)
        d.setObjectName(name)
        d.setAccessibleName(title)
        d.setWidget(widget)
        d.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                      | QDockWidget.DockWidgetFeature.DockWidgetClosable)
        self.main.addDockWidget(area, d)
        return d
