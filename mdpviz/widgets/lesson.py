"""The lesson side panel: the current game as an MDP, its Bellman equation with the current
parameters, and its settings (text from :mod:`mdpviz.models.kit.teaching.lessons`; this widget only shows it)."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from mdpviz.models.kit.teaching.lessons import Lesson
from mdpviz.widgets import named as _named




class LessonPanel(QWidget):
    """A text browser with the lesson of the current game, and a button to copy it as Markdown."""

    copied = Signal(str)
    """The lesson was copied to the clipboard (the text says what)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lessonPanel")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        self.browser = _named(QTextBrowser(), "lessonText", "Lesson: the game as an MDP")
        self.browser.setOpenExternalLinks(False)
        lay.addWidget(self.browser, 1)
        row = QHBoxLayout()
        self.copy_button = _named(QPushButton("Copy as Markdown"), "lessonCopyButton", "Copy the lesson as Markdown")
        self.copy_button.setToolTip("Copy the lesson (with the current parameters) as Markdown, for notes or slides")
        self.copy_button.setEnabled(False)
        row.addStretch(1)
        row.addWidget(self.copy_button)
        lay.addLayout(row)
        self.lesson: Lesson | None = None
        self.copy_button.clicked.connect(self.copy_markdown)

    def show_lesson(self, lesson: Lesson | None, *, message: str = "") -> None:
        """Show ``lesson`` (None: ``message``, e.g. why there is no model)."""
        self.lesson = lesson
        bar = self.browser.verticalScrollBar()
        pos = bar.value()
        if lesson is None:
            self.browser.setPlainText(message or "No lesson for this game yet.")
        else:
            self.browser.setHtml(lesson.html())
            bar.setValue(min(pos, bar.maximum()))  # an edit keeps the reader's place
        self.copy_button.setEnabled(lesson is not None)

    def copy_markdown(self) -> str:
        """Put the lesson on the clipboard as Markdown; returns the text ("" without a lesson)."""
        if self.lesson is None:
            return ""
        text = self.lesson.markdown()
        QGuiApplication.clipboard().setText(text)
        self.copied.emit("Lesson copied as Markdown.")
        return text
