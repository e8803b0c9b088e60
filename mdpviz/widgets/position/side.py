"""The side panel of the position board: the texts about the shown position, its moves table and the
selected move's backup, sized so that the texts are read whole and the table shows whole rows."""
from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHeaderView,
    QLabel,
    QLayout,
    QScrollArea,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mdpviz.widgets import named as _named

MIN_TABLE_ROWS = 4
"""The moves table shows at least this many whole rows (or all of them, if fewer), even on a projector
at 1280x720: the texts above it scroll first."""


class PositionSide(QWidget):
    """The texts (caption, whose turn, V, exact outcomes, path), the moves table and the backup box,
    top to bottom, with a row of controls at the bottom (:meth:`add_controls`)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("positionSide")
        self.caption_label = _named(QLabel(""), "positionCaption", "Which sweep the values are from")
        self.caption_label.setWordWrap(True)
        self.status = _named(QLabel(""), "positionStatus", "Whose turn, and what happened")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        f = QFont(self.status.font())
        f.setBold(True)
        self.status.setFont(f)
        self.value_label = _named(QLabel(""), "positionValue", "Value of the position")
        self.value_label.setWordWrap(True)
        self.outcome_label = _named(QLabel(""), "positionOutcomes", "Exact outcome probabilities from here")
        self.outcome_label.setWordWrap(True)
        self.visited_label = _named(QLabel(""), "positionVisited", "States visited")
        self.visited_label.setWordWrap(True)

        self.moves_table = t = _named(QTableWidget(0, 3), "positionMoves", "Legal moves and their values")
        t.setHorizontalHeaderLabels(["Move", "Q", "\u2605"])
        t.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        t.verticalHeader().setVisible(False)
        t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        # sized to the contents once per fill (fill_moves): ResizeToContents measures every row again on
        # each setItem, which made a refresh of 27 moves cost 12-46 ms of the GUI thread
        t.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        t.horizontalHeader().setStretchLastSection(False)
        t.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        t.verticalHeader().setDefaultSectionSize(20)
        t.setToolTip("Select a move (or right-click its cell) to see its backup; double-click to play it")
        # between a few whole rows and all of them, as fit() finds room (whole rows only)
        t.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.backup_label = _named(QLabel(""), "positionBackup", "Backup of the selected move")
        self.backup_label.setWordWrap(True)
        self.backup_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.backup_label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)

        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(3)
        # the texts, full width, each wrapped to a line or two; they scroll (as a last resort) only when
        # even the widest side panel the board leaves cannot hold them and a few whole moves
        texts = QWidget()
        tl = QVBoxLayout(texts)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.setSpacing(3)
        for lab in self.texts():
            tl.addWidget(lab)
        tl.addStretch(1)
        self.texts_scroll = QScrollArea()
        self.texts_scroll.setObjectName("positionTextsScroll")
        self.texts_scroll.setWidget(texts)
        self.texts_scroll.setWidgetResizable(True)
        self.texts_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.texts_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        col.addWidget(self.texts_scroll)
        col.addWidget(self.moves_table, 1)
        # the selected move's backup can be long (one term per reply): it scrolls in its own box of a few
        # lines (the inspector shows the same backup); shown only while a move is selected
        self.backup_scroll = QScrollArea()
        self.backup_scroll.setObjectName("positionBackupScroll")
        self.backup_scroll.setWidget(self.backup_label)
        self.backup_scroll.setWidgetResizable(True)
        self.backup_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.backup_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.backup_scroll.setVisible(False)
        col.addWidget(self.backup_scroll)
        col.addStretch(0)  # the room the table's whole rows leave
        self.controls: QLayout | None = None
        self._hint = False
        self.setMinimumWidth(150)
        self._fit_pending = False

    def texts(self) -> tuple[QLabel, ...]:
        return (self.caption_label, self.status, self.value_label, self.outcome_label, self.visited_label)

    def add_controls(self, layout: QLayout) -> None:
        """The row of controls under the backup box (the board's mode, marks and hints)."""
        self.controls = layout
        self.layout().addLayout(layout)

    # ------------------------------------------------------------------ contents
    def show_backup(self, html: str, *, hint: bool = False) -> None:
        """The selected move's backup ("": none, the box is hidden and the table gets its room). A
        ``hint`` (how to select a move) is shown only where the texts and every move fit with it."""
        before = (self._hint, self.backup_scroll.isHidden())
        self.backup_label.setText(html)
        self._hint = bool(hint and html)
        self._show_box(bool(html) and not self._hint)
        if (self._hint, self.backup_scroll.isHidden()) != before and self.width() > 100:
            self.fit(self.width(), self.height())  # the box takes (or gives back) room: the texts make way

    def _show_box(self, on: bool) -> None:
        if self.backup_scroll.isHidden() == on:
            self.backup_scroll.setVisible(on)

    def fill_moves(self, rows: Sequence[tuple[str, str, str, int]], *, model_pos: bool, selected_row: int) -> None:
        """The moves table's rows ((label, value text, star, action) each, see
        :func:`~mdpviz.models.kit.boards.position_display.table_rows`) without per-item layout, the columns sized
        to their contents once."""
        t = self.moves_table
        t.blockSignals(True)
        t.setUpdatesEnabled(False)
        try:
            t.setRowCount(len(rows))
            t.setHorizontalHeaderLabels(["Move", "P" if model_pos else "Q", "\u2605"])
            for i, (label, qt, star, action) in enumerate(rows):
                items = [QTableWidgetItem(label), QTableWidgetItem(qt), QTableWidgetItem(star)]
                items[2].setToolTip("the greedy move" if star == "\u2605" else
                                    "as good as the greedy move (a tie)" if star else "")
                items[0].setData(Qt.ItemDataRole.UserRole, action)
                items[1].setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                for j, it in enumerate(items):
                    t.setItem(i, j, it)
            t.resizeColumnToContents(1)
            t.resizeColumnToContents(2)
            # wide enough for the longest move's name and its value (no "cell 0 (ri..." cut-offs)
            fm = QFontMetrics(t.font())
            name_w = max((fm.horizontalAdvance(r[0]) for r in rows), default=40) + 16
            t.setMinimumWidth(min(320, name_w + t.columnWidth(1) + t.columnWidth(2)
                                  + t.verticalScrollBar().sizeHint().width() + 2 * t.frameWidth()))
            if selected_row >= 0:
                t.selectRow(selected_row)
            else:
                t.clearSelection()
        finally:
            t.setUpdatesEnabled(True)
            t.blockSignals(False)

    # ------------------------------------------------------------------ sizes
    def texts_height(self, width: int) -> int:
        """The height of the texts, each whole, at ``width``."""
        return sum(lab.heightForWidth(width) + 3 for lab in self.texts() if lab.text())

    def _whole_texts(self, width: int, room: int) -> int:
        """The height of the first texts that fit whole in ``room`` (the rest scroll, no half line)."""
        used = 0
        for lab in self.texts():
            if lab.text():
                h = lab.heightForWidth(width) + 3
                if used + h > room:
                    break
                used += h
        return used

    def table_height(self, rows: int) -> int:
        """The height of the moves table showing ``rows`` whole rows under its header."""
        t = self.moves_table
        head = t.horizontalHeader().sizeHint().height() if t.horizontalHeader().isVisibleTo(t) else 0
        return head + rows * t.verticalHeader().defaultSectionSize() + 2 * t.frameWidth()

    def min_table_rows(self) -> int:
        """The whole rows the table keeps however little room there is (one for an empty table)."""
        return max(1, min(self.moves_table.rowCount(), MIN_TABLE_ROWS))

    def _backup_height(self, height: int) -> int:
        line = QFontMetrics(self.backup_label.font()).lineSpacing()
        return int(line * (2.2 if height < 420 else 5.2)) + 4

    def _others_height(self, height: int) -> int:
        """The height of everything but the texts and the table, spacing included."""
        sp = self.layout().spacing()
        need = 2 * sp
        if not self.backup_scroll.isHidden():
            need += self._backup_height(height) + sp
        if self.controls is not None:
            need += self.controls.sizeHint().height() + sp
        return need

    def needed_height(self, width: int, height: int) -> int:
        """The height the panel needs at ``width``: its texts whole, a few whole moves, the backup box."""
        return self.texts_height(width) + self.table_height(self.min_table_rows()) + self._others_height(height)

    def fit(self, width: int, height: int) -> None:
        """Lay the panel out for ``width`` x ``height``: the texts whole if they fit beside at least
        :data:`MIN_TABLE_ROWS` whole moves (else they scroll), then the table as many whole rows as
        are left (all of them if there is room; it scrolls otherwise, never showing half a row)."""
        if self._hint:  # the hint only where it leaves the texts whole and every move in sight
            self._show_box(False)
            need = (self.texts_height(width) + self.table_height(max(1, self.moves_table.rowCount()))
                    + self._others_height(height) + self._backup_height(height) + self.layout().spacing())
            self._show_box(need <= height)
        if not self.backup_scroll.isHidden():
            bh = self._backup_height(height)
            if self.backup_scroll.height() != bh or self.backup_scroll.minimumHeight() != bh:
                self.backup_scroll.setFixedHeight(bh)
        others = self._others_height(height)
        texts = self.texts_height(width)
        room = height - others - self.table_height(self.min_table_rows())
        want = texts if texts <= room else max(40, self._whole_texts(width, room))
        row = max(1, self.moves_table.verticalHeader().defaultSectionSize())
        fit_rows = (height - others - want - self.table_height(0)) // row
        rows = max(self.min_table_rows(), min(self.moves_table.rowCount(), fit_rows))
        lo, hi = self.table_height(self.min_table_rows()), self.table_height(rows)
        changed = False
        if self.texts_scroll.minimumHeight() != want or self.texts_scroll.maximumHeight() != want:
            self.texts_scroll.setFixedHeight(want)
            changed = True
        if self.moves_table.minimumHeight() != lo or self.moves_table.maximumHeight() != hi:
            self.moves_table.setMinimumHeight(lo)
            self.moves_table.setMaximumHeight(hi)
            changed = True
        if changed:
            lay = self.layout()
            lay.invalidate()
            lay.activate()

    def resizeEvent(self, ev) -> None:  # noqa: N802
        super().resizeEvent(ev)
        if not self._fit_pending:
            # the texts wrap at the new width: refit once the layout pass that resized the panel is over
            # (a size changed inside it would not move the table below)
            self._fit_pending = True
            QTimer.singleShot(0, self, self._fit_later)

    def _fit_later(self) -> None:
        self._fit_pending = False
        if self.width() > 100:
            self.fit(self.width(), self.height())
