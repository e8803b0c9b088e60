"""The main window's constants and small helpers (sizes, settings, dialogs, lazily built game widgets)."""
from __future__ import annotations

import os
from typing import Any, Callable, Iterator, Mapping, Sequence

from PySide6.QtCore import QEvent, QObject, QRect, QSettings, QSize, Qt, QTimer
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import (
    QFileDialog,
    QMessageBox,
    QStatusBar,
    QStyle,
    QStyleOption,
    QWidget,
)



REDRAW_MS = 33
"""Redraw period of the board and inspector (about 30 frames per second)."""

PLOT_MIN_INTERVAL = 0.1
"""During Run the convergence plot redraws at most every 0.1 s: repainting pyqtgraph's axes and a
curve of thousands of sweeps is the most expensive part of a frame (measured), and 10 Hz still
shows it growing."""

DEFAULT_SIZE = QSize(1600, 900)
"""Window size when no layout was saved yet, on a screen that has room for it (see :func:`default_size`)."""

PLOT_PX, PRESENTER_PLOT_PX = 12, 18
"""Pixel size of the plots' tick and label text (normal, presenter mode)."""

TITLE_BAR = 40
"""Pixels kept free above the window for the window manager's title bar."""


def default_size(available: QSize) -> QSize:
    """The first window size on a screen whose free area (without task bars) is ``available``:
    :data:`DEFAULT_SIZE`, made smaller to fit, title bar included (a 1366x768 laptop with a task
    bar gets about 1366x690, so the status bar and the plot's axis stay on screen)."""
    return QSize(min(DEFAULT_SIZE.width(), available.width()),
                 min(DEFAULT_SIZE.height(), max(available.height() - TITLE_BAR, 400)))

GAME_DOCK_EM = 56.5
"""The Game dock's least width, in average character widths of the window's font (343 px at the default
9-point font): room for the widest game editor (the grid world's), so the dock keeps one width whatever
the game is, although each editor is built only when its game is first shown (a test checks that every
editor fits; one that does not widens the dock when first shown)."""

PRESENTER_SCALE = 1.5
"""Font scale of presenter mode."""


class StatusBar(QStatusBar):
    """The window's status bar: a message wider than the room left of the permanent widgets (the
    solver's state) is drawn elided, its whole text in the tooltip; Qt's own drew it on under the
    state label, cut mid-letter. ``currentMessage()`` stays the whole message."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._permanent: list[QWidget] = []
        self.messageChanged.connect(self._on_message)

    def addPermanentWidget(self, widget: QWidget, stretch: int = 0) -> None:  # noqa: N802 (Qt's name)
        super().addPermanentWidget(widget, stretch)
        self._permanent.append(widget)

    def message_rect(self) -> QRect:
        """Where the message is drawn: from the left margin to just before the first shown permanent widget."""
        left, right = 6, self.width() - 12
        for w in self._permanent:
            if w.isVisible():
                right = min(right, w.x() - 8)
        return QRect(left, 0, max(0, right - left), self.height())

    def shown_message(self) -> str:
        """The message as drawn (elided to :meth:`message_rect`; "" when there is none)."""
        msg = self.currentMessage()
        if not msg:
            return ""
        return self.fontMetrics().elidedText(msg, Qt.TextElideMode.ElideRight, self.message_rect().width())

    def _on_message(self, msg: str) -> None:
        self.setToolTip(msg if msg and self.shown_message() != msg else "")

    def resizeEvent(self, ev) -> None:  # noqa: N802
        super().resizeEvent(ev)
        self._on_message(self.currentMessage())

    def paintEvent(self, ev) -> None:  # noqa: N802
        msg = self.shown_message()
        if not msg:
            super().paintEvent(ev)
            return
        # as QStatusBar::paintEvent does with a message, but the message elided
        p = QPainter(self)
        opt = QStyleOption()
        opt.initFrom(self)
        self.style().drawPrimitive(QStyle.PrimitiveElement.PE_PanelStatusBar, opt, p, self)
        for w in self._permanent:
            if w.isVisible():
                item = QStyleOption()
                item.rect = w.geometry().adjusted(-2, -1, 2, 1)
                item.palette = self.palette()
                self.style().drawPrimitive(QStyle.PrimitiveElement.PE_FrameStatusBarItem, item, p, w)
        p.setPen(self.palette().windowText().color())
        p.drawText(self.message_rect(), Qt.AlignmentFlag.AlignLeading | Qt.AlignmentFlag.AlignVCenter
                   | Qt.TextFlag.TextSingleLine, msg)
        p.end()


def settings_org() -> str:
    """QSettings organisation: $MDPVIZ_SETTINGS_ORG (tests set it), default "mdpviz"."""
    return os.environ.get("MDPVIZ_SETTINGS_ORG", "mdpviz") or "mdpviz"


def make_settings() -> QSettings:
    """The window's QSettings (organisation from :func:`settings_org`, application "mdpviz")."""
    return QSettings(settings_org(), "mdpviz")


class Dialogs:
    """The window's modal dialogs in one place; tests pass a stand-in that answers at once."""

    def __init__(self, parent: QWidget) -> None:
        self.parent = parent

    def error(self, title: str, text: str) -> None:
        QMessageBox.critical(self.parent, title, text)

    def ask_unsaved(self) -> str:
        """"save", "discard" or "cancel" for unsaved edits."""
        b = QMessageBox.question(
            self.parent, "Unsaved edits", "The scenario has unsaved edits. Save them first?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        return {QMessageBox.StandardButton.Save: "save", QMessageBox.StandardButton.Discard: "discard"}.get(b, "cancel")

    def open_file(self, title: str, directory: str, filters: str) -> str:
        return QFileDialog.getOpenFileName(self.parent, title, directory, filters)[0]

    def save_file(self, title: str, directory: str, filters: str) -> str:
        return QFileDialog.getSaveFileName(self.parent, title, directory, filters)[0]


GUI_SWITCH_INTERVAL = 0.0005
"""Seconds a worker thread may hold the GIL while the GUI thread waits for it (see MainWindow)."""


class GameList(Sequence[Any]):
    """The window's games in picker order (:class:`~mdpviz.widgets.game.Game` objects): each game's view
    is built the first time it is asked for (by index, by iterating, or the stage part's ``game_by_key``),
    so the window builds only the shown game at start. :meth:`built` lists those built so far."""

    def __init__(self, stage: Any, keys: Sequence[str]) -> None:
        self._stage = stage
        self.keys: tuple[str, ...] = tuple(keys)
        """Every game's key, in picker order."""

    def __len__(self) -> int:
        return len(self.keys)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        return self._stage.game_by_key(self.keys[i])

    def __contains__(self, g: object) -> bool:
        return any(b is g for b in self.built())

    def index(self, g: Any, *args: Any) -> int:  # type: ignore[override]
        if g not in self:
            raise ValueError(f"{g!r} is not one of the window's games")
        return self.keys.index(g.key)

    def built(self) -> list[Any]:
        """The games built so far, in picker order (an unbuilt game has no edits)."""
        made = self._stage.built_games()
        return [made[k] for k in self.keys if k in made]


class GameWidgets(Mapping[str, QWidget]):
    """A game's own widgets of one kind (boards, simulation panels, plots) by game key: asking for a
    game's builds its widgets (see the stage part's ``build_widgets``); iterating builds every game's."""

    def __init__(self, stage: Any, built: dict[str, QWidget]) -> None:
        self._stage, self._widgets = stage, built

    def __getitem__(self, key: str) -> QWidget:
        s = self._stage
        if key not in self._widgets and key in s.games.keys:
            s.build_widgets(s.game_by_key(key))
        return self._widgets[key]

    def __iter__(self) -> Iterator[str]:
        for g in list(self._stage.games):
            if g.key in self:
                yield g.key

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, key: object) -> bool:
        try:
            self[key]  # type: ignore[index]
        except KeyError:
            return False
        return True


class AfterFirstPaint(QObject):
    """Calls ``fn()`` once, on the event-loop turn after ``widget`` was first painted (what the window
    defers to after its first paint: loading the sweep kernels)."""

    def __init__(self, widget: QWidget, fn: Callable[[], None]) -> None:
        super().__init__(widget)
        self._fn: Callable[[], None] | None = fn
        widget.installEventFilter(self)

    def eventFilter(self, obj: QObject, ev: QEvent) -> bool:  # noqa: N802
        if ev.type() == QEvent.Type.Paint and self._fn is not None:
            obj.removeEventFilter(self)
            QTimer.singleShot(0, self, self._fire)
        return False

    def _fire(self) -> None:
        fn, self._fn = self._fn, None
        if fn is not None:
            fn()
