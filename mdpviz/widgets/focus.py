"""Where the keyboard focus goes between the board and the game's editor (issue 35 item 4).

The window's single-key shortcuts (B, Shift+B, the view modes) are window-wide actions, but a text
field with the focus takes a printable key as its own input: after typing a value into an editor's
spin box, B did nothing, even after a click on the board (a board took no focus). :class:`FocusKeeper`
gives a board the focus when it is clicked (anywhere on it, its plots and labels too), and gives it
back from an editor's text field when Enter commits the value.
"""
from __future__ import annotations

from typing import Callable

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox, QLineEdit, QWidget

_ENTER = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


class FocusKeeper(QObject):
    """The boards take the focus when clicked; an editor's field hands it to the board on Enter."""

    def __init__(self, board: Callable[[], QWidget | None], parent: QObject | None = None) -> None:
        """``board``: the board shown now (where an editor's Enter sends the focus)."""
        super().__init__(parent)
        self._board = board
        self._boards: list[QWidget] = []
        """The boards watched (a press inside one gives it the focus)."""
        self._editors: list[QWidget] = []
        """The editors watched (Enter in one of their text fields gives the shown board the focus)."""

    def watch_board(self, board: QWidget) -> None:
        """A click anywhere on ``board`` gives it the keyboard focus (once per board)."""
        if any(b is board for b in self._boards):
            return
        self._boards.append(board)
        if board.focusPolicy() == Qt.FocusPolicy.NoFocus:
            board.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self._install(board)

    def watch_editor(self, editor: QWidget) -> None:
        """Enter in a text field of ``editor`` (a spin box, a line edit) gives the shown board the focus."""
        if any(e is editor for e in self._editors):
            return
        self._editors.append(editor)
        self._install(editor)

    def _install(self, top: QWidget) -> None:
        for w in (top, *top.findChildren(QWidget)):
            w.installEventFilter(self)

    def _owner(self, obj: QObject, among: list[QWidget]) -> QWidget | None:
        for top in among:
            if shiboken6.isValid(top) and (obj is top or (isinstance(obj, QWidget) and top.isAncestorOf(obj))):
                return top
        return None

    def eventFilter(self, obj: QObject, ev: QEvent) -> bool:  # noqa: N802
        t = ev.type()
        if t == QEvent.Type.ChildAdded:
            child = ev.child()
            if isinstance(child, QWidget):  # (a board's plot, an editor's row built later)
                child.installEventFilter(self)
                for w in child.findChildren(QWidget):
                    w.installEventFilter(self)
        elif t == QEvent.Type.MouseButtonPress:
            board = self._owner(obj, self._boards)
            if board is not None:
                focus = QApplication.focusWidget()
                if focus is None or not (focus is board or board.isAncestorOf(focus)):
                    board.setFocus(Qt.FocusReason.MouseFocusReason)
        elif t == QEvent.Type.KeyPress and ev.key() in _ENTER and isinstance(obj, (QAbstractSpinBox, QLineEdit)) \
                and not isinstance(obj.parent(), QComboBox) and self._owner(obj, self._editors) is not None:
            QTimer.singleShot(0, self, lambda field=obj: self._after_enter(field))
        return False

    def _after_enter(self, field: QWidget) -> None:
        """Enter was handled by ``field`` (its value committed): the board takes the focus if the field kept it."""
        if not shiboken6.isValid(field) or not field.hasFocus():
            return
        board = self._board()
        if board is not None and board.isVisible():
            board.setFocus(Qt.FocusReason.OtherFocusReason)
