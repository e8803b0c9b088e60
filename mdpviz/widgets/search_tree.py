"""The tree-search dock's panel (issue 38): Monte Carlo tree search from the shown position, drawn as a tree.

:class:`SearchTreeView` paints what :func:`~mdpviz.models.kit.pictures.search_tree.tree_view` lays out: the root,
its tried moves and the best-visited lines below the most visited ones; a node's area grows with its visits, its
fill is its mean return on the solve's colour scale, and beside it its visits, mean and exact value (V* or Q*).
The last simulation's selection is outlined in black, what it added in magenta; the move the search plays is
boxed, the exact best moves ringed in green. :class:`SearchTreePanel` adds the controls (Step: one simulation,
Run: many, as a job of the window; c; the seed) and the root moves' table. Widgets draw only: the window's
search part runs the search.
"""
from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import (
    QDoubleSpinBox, QHBoxLayout, QHeaderView, QLabel, QProgressBar, QPushButton, QSizePolicy, QSpinBox, QSplitter,
    QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget,
)

from mdpviz.solvers.mcts import MAX_SIMULATIONS
from mdpviz.models.kit.pictures.colors import HIGHLIGHT, ColorScale
from mdpviz.models.kit.pictures.search_tree import NodeView
from mdpviz.widgets import named
from mdpviz.widgets.board import scale_rgb

BEST_RING = "#009e73"
"""Ring of the exact best moves (Okabe-Ito bluish green)."""


def _fmt(x: float) -> str:
    if not math.isfinite(x):
        return "-"
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:,.0f}"


class SearchTreeView(QWidget):
    """The tree: nodes sized by visits, coloured by mean, the exact value written beside each."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("searchTreeView")
        self.setAccessibleName("Search tree")
        self.nodes: list[NodeView] = []
        self.scale: ColorScale | None = None
        self.message = "Press Step (one simulation) or Run."
        self.px = 11
        self.setMinimumHeight(160)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def show_tree(self, nodes: list[NodeView], scale: ColorScale | None, message: str = "") -> None:
        """Draw ``nodes`` (root first) filled on ``scale``; ``message`` when there are none."""
        self.nodes, self.scale, self.message = list(nodes), scale, message
        self.update()

    def set_font_size(self, px: int) -> None:
        self.px = int(px)
        self.update()

    def fit_px(self) -> int:
        """The text size drawn: the chosen one, smaller on a short view so that the root and its moves' four
        lines of numbers fit (never below 10 pixels)."""
        return max(10, min(self.px, int(self.height() / 11.0)))

    def rows_fit(self) -> int:
        """How many best-visited lines fit below the root's moves (the others are left out on a short dock)."""
        line = self.fit_px() * 1.2
        lines = max((n.line for n in self.nodes), default=-1) + 1
        return max(0, min(lines, int((self.height() - 9.5 * line - line) / (1.7 * line))))

    def _geometry(self) -> tuple[float, float, float, float]:
        """(radius of the largest node, y of the root, y of the root's moves, y of the first line's row)."""
        line = self.fit_px() * 1.2
        lines = self.rows_fit()
        rows_h = lines * line * 1.7 + (line if lines else 0)
        top_h = max(40.0, self.height() - rows_h)
        per = self.width() / max(1, sum(1 for n in self.nodes if n.level == 1))
        rmax = max(4.0, min((top_h - 6.0 * line - 14) / 3.2, per * 0.28, 36.0))  # (the moves' 4 lines fit below)
        y_root = max(rmax + 4, 1.7 * line)
        y_moves = max(y_root + 2.2 * rmax, top_h - 4.3 * line - rmax - 12)
        return rmax, y_root, y_moves, top_h + line * 0.9

    def node_centres(self) -> list[QPointF]:
        """Where each node is drawn (widget pixels): the root on top, its moves in a row below, each best-visited
        line in a row of its own at the bottom, from left to right."""
        rmax, y_root, y_moves, y_rows = self._geometry()
        line = self.fit_px() * 1.2
        left = self.fit_px() * 7.5
        depth = max((n.level for n in self.nodes), default=1) - 1
        col = (self.width() - left) / max(1, depth)
        out = []
        for n in self.nodes:
            if n.level == 0:
                out.append(QPointF(n.x * self.width(), y_root))
            elif n.level == 1:
                out.append(QPointF(n.x * self.width(), y_moves))
            else:
                out.append(QPointF(left + col * (n.level - 2) + 8, y_rows + n.line * line * 1.7))
        return out

    def node_at(self, x: float, y: float) -> NodeView | None:
        """The drawn node nearest to (x, y) within its circle and a few pixels, or None."""
        fit = self.rows_fit()
        rmax = self._geometry()[0]
        best, best_d = None, math.inf
        for n, c in zip(self.nodes, self.node_centres()):
            if n.line >= fit:
                continue
            d = math.hypot(c.x() - x, c.y() - y)
            if d <= max(8.0, rmax * n.size + 4) and d < best_d:
                best, best_d = n, d
        return best

    def node_text(self, n: NodeView) -> str:
        """Every number of a node, for its tooltip: visits, mean, UCB score and exact value."""
        what = "root" if n.level == 0 else n.label
        exact = "V*" if n.level == 0 else "Q*"
        ucb = "" if not math.isfinite(n.ucb) else f"\nUCB score {n.ucb:.6g}"
        return (f"{what}: {n.visits:,} visits\nmean return {_fmt(n.mean) if not math.isfinite(n.mean) else f'{n.mean:.6g}'}"
                f"{ucb}\nexact {exact} {n.exact:.6g}" + ("\nan exact best move" if n.best else "")
                + ("\nthe move UCT plays (most visited)" if n.chosen else ""))

    def event(self, e) -> bool:  # noqa: D102 (Qt's tooltip event: a node's numbers)
        from PySide6.QtCore import QEvent
        from PySide6.QtWidgets import QToolTip

        if e.type() == QEvent.Type.ToolTip:
            n = self.node_at(e.pos().x(), e.pos().y())
            if n is not None:
                QToolTip.showText(e.globalPos(), self.node_text(n), self)
                return True
        return super().event(e)

    def paintEvent(self, _event) -> None:  # noqa: N802 (Qt's name)
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), QColor("#ffffff"))
        font = QFont(self.font())
        font.setPixelSize(self.fit_px())
        p.setFont(font)
        if not self.nodes:
            p.setPen(QColor("#444444"))
            p.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self.message)
            return
        centres = self.node_centres()
        rmax, _y_root, _y_moves, y_rows = self._geometry()
        line = self.fit_px() * 1.2
        per = self.width() / max(1, sum(1 for n in self.nodes if n.level == 1))
        p.setPen(QPen(QColor("#999999"), 1.2))
        for n, c in zip(self.nodes, centres):
            if 0 <= n.parent and n.level == 1:  # (a line's moves are read left to right, no connectors)
                p.drawLine(centres[n.parent], c)
        means = np.array([n.mean for n in self.nodes])
        fill = scale_rgb(self.scale, self.scale.normalise(means)) if self.scale is not None else None
        heads = {n.line: self.nodes[n.parent] for n in self.nodes if n.level == 2 and n.line < self.rows_fit()}
        p.setPen(QColor("#000000"))
        for k, head in sorted(heads.items()):
            p.drawText(QRectF(2, y_rows + k * line * 1.7 - line / 2, self.fit_px() * 7.3, line),
                       Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, f"after {head.label} \u25b8")
        p.setPen(QColor("#444444"))
        p.drawText(QRectF(2, 2, self.width() / 2 - rmax - 8, 3 * line), Qt.AlignmentFlag.AlignLeft,
                   "each move: visits n, mean\nreturn, exact Q* (narrow:\nmean | *Q*, or one below)")
        if heads:
            p.drawText(QRectF(2, y_rows - 1.6 * line, self.width() - 4, line), Qt.AlignmentFlag.AlignLeft,
                       "best-visited lines (n visits, mean | exact):")
        fit = self.rows_fit()
        for i, (n, c) in enumerate(zip(self.nodes, centres)):
            if n.line >= fit:
                continue
            r = max(3.0, rmax * n.size) if n.level <= 1 else max(3.0, min(rmax * n.size, line * 0.6))
            color = QColor("#dddddd") if fill is None or not math.isfinite(n.mean) else QColor(*map(int, fill[i]))
            pen = (QPen(QColor(HIGHLIGHT), 3.0) if n.mark == "expansion" else
                   QPen(QColor("#000000"), 2.5) if n.mark == "selection" else QPen(QColor("#555555"), 1.0))
            p.setPen(pen)
            p.setBrush(color)
            p.drawEllipse(c, r, r)
            if n.best:
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.setPen(QPen(QColor(BEST_RING), 3.0))
                p.drawEllipse(c, r + 4, r + 4)
            if n.chosen:
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.setPen(QPen(QColor("#000000"), 2.0, Qt.PenStyle.DashLine))
                p.drawRect(QRectF(c.x() - r - 7, c.y() - r - 7, 2 * r + 14, 2 * r + 14))
            p.setPen(QColor("#000000"))
            if n.level == 0:  # the root: its numbers to the right
                box = QRectF(c.x() + r + 8, c.y() - 1.5 * line, self.width() / 2 - r - 10, 3 * line)
                p.drawText(box, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                           f"root  n {n.visits:,}\nmean {_fmt(n.mean)}\nexact V* {_fmt(n.exact)}")
            elif n.level == 1:
                box = QRectF(c.x() - per / 2, c.y() + max(r, rmax * 0.35) + (9 if n.chosen or n.best else 4), per, line * 4)
                # the widest of these that fits its column (a narrow one: the numbers alone, in the legend's
                # order, then mean and *exact on lines of their own): no label runs into its neighbour's
                fm = p.fontMetrics()
                texts = (f"{n.label}\nn {n.visits:,}\nmean {_fmt(n.mean)}\nexact {_fmt(n.exact)}",
                         f"{n.label}\nn {n.visits:,}\n{_fmt(n.mean)} | *{_fmt(n.exact)}",
                         f"{n.label}\nn {n.visits:,}\n{_fmt(n.mean)}\n*{_fmt(n.exact)}")
                room = self.height() - box.top()

                def fits(t: str, *, tall: bool = True) -> bool:
                    lines = t.split("\n")
                    return (max(fm.horizontalAdvance(w) for w in lines) <= per - 4
                            and (not tall or len(lines) * fm.lineSpacing() <= room))
                text = next((t for t in texts if fits(t)), None) or next(
                    (t for t in texts[1:] if fits(t, tall=False)), texts[-1])
                p.drawText(box, Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop, text)
            else:
                box = QRectF(c.x() + r + 4, c.y() - line / 2, self.width(), line)
                p.drawText(box, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                           f"{n.label}  n {n.visits:,}  {_fmt(n.mean)} | {_fmt(n.exact)}")


class SearchTreePanel(QWidget):
    """The Tree search dock: controls, the verdict, the last simulation's phases, the tree and the root's moves."""

    step_requested = Signal()
    """Step: one simulation."""
    run_requested = Signal(int)
    """Run: this many simulations more (a job of the window)."""
    reset_requested = Signal()
    """Reset: a fresh tree from the shown position with the panel's c and seed."""
    cancel_requested = Signal()
    """Cancel the running job."""

    COLUMNS = ("move", "visits", "mean", "UCB", "exact Q*", "")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("searchTreePanel")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        row = QHBoxLayout()
        self.step_button = named(QPushButton("Step"), "searchStep", "One simulation")
        self.run_button = named(QPushButton("Run"), "searchRun", "Run simulations")
        self.simulations = named(QSpinBox(), "searchSimulations", "Simulations per Run")
        self.simulations.setRange(1, MAX_SIMULATIONS)
        self.simulations.setValue(20_000)
        self.simulations.setSingleStep(1000)
        self.simulations.setGroupSeparatorShown(True)
        self.c = named(QDoubleSpinBox(), "searchC", "Exploration constant c")
        self.c.setRange(0.0, 100.0)
        self.c.setDecimals(3)
        self.c.setValue(math.sqrt(2.0))
        self.seed = named(QSpinBox(), "searchSeed", "Seed")
        self.seed.setRange(0, 99_999)
        self.reset_button = named(QPushButton("Reset"), "searchReset", "New tree")
        self.cancel_button = named(QPushButton("Cancel"), "searchCancel", "Cancel the run")
        self.cancel_button.setEnabled(False)
        self.progress = named(QProgressBar(), "searchProgress", "Simulations run")
        self.progress.setMaximumWidth(110)
        for box in (self.simulations, self.c, self.seed):
            box.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.progress.hide()
        for w in (self.step_button, self.run_button, self.simulations, QLabel("c"), self.c, QLabel("seed"),
                  self.seed, self.reset_button, self.cancel_button, self.progress):
            row.addWidget(w)
        row.addStretch(1)
        lay.addLayout(row)
        self.verdict = named(QLabel(""), "searchVerdict", "The move played against the exact best moves")
        self._verdict = ("", "")
        """(the whole verdict, its presenter-mode line)."""
        self.verdict.setWordWrap(True)
        self.phases = named(QLabel(""), "searchPhases", "The last simulation's four phases")
        self.phases.setWordWrap(True)
        split = QSplitter(Qt.Orientation.Horizontal)
        self.view = SearchTreeView()
        self.view.setToolTip("Node size: visits; fill: mean return; beside each node its visits, mean and exact "
                             "value (V* or Q*); hover a node for its UCB score. Black outline: the last "
                             "simulation's selection; magenta: what it added; green ring: an exact best move; "
                             "dashed box: the move UCT plays (most visited).")
        lay.addWidget(self.verdict)
        side = QWidget()
        self.side = side
        side_lay = QVBoxLayout(side)
        side_lay.setContentsMargins(0, 0, 0, 0)
        side_lay.addWidget(self.phases)
        self.table = named(QTableWidget(0, len(self.COLUMNS)), "searchMoves", "The root's moves")
        self.table.setHorizontalHeaderLabels(list(self.COLUMNS))
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        side_lay.addWidget(self.table, 1)
        split.addWidget(self.view)
        split.addWidget(side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        lay.addWidget(split, 1)
        self.step_button.clicked.connect(self.step_requested)
        self.run_button.clicked.connect(lambda: self.run_requested.emit(int(self.simulations.value())))
        self.reset_button.clicked.connect(self.reset_requested)
        self.cancel_button.clicked.connect(self.cancel_requested)

    def show_running(self, on: bool) -> None:
        """A Run's job is going (the Step, Run and Reset buttons wait; Cancel stops it)."""
        for b in (self.step_button, self.run_button, self.reset_button):
            b.setEnabled(not on)
        self.cancel_button.setEnabled(on)
        self.progress.setVisible(on)

    def show_progress(self, done: int, total: int) -> None:
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(done)

    def show_moves(self, rows: list[tuple[str, int, float, float, float, str]]) -> None:
        """The root's moves: (label, visits, mean, UCB, exact Q*, mark) each."""
        self.table.setRowCount(len(rows))
        for i, (label, visits, mean, ucb, exact, mark) in enumerate(rows):
            for j, text in enumerate((label, f"{visits:,}", _fmt(mean), _fmt(ucb), _fmt(exact), mark)):
                item = QTableWidgetItem(text)
                if j in (1, 2, 3, 4):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(i, j, item)

    def set_verdict(self, text: str, *, short: str = "") -> None:
        """The move played against the exact best ones: ``text`` (in presenter mode ``short``, the whole text
        on hover: the tree needs the dock's height there)."""
        self._verdict = (text, short or text)
        self.verdict.setToolTip(text)
        self.verdict.setText(self._verdict[1] if self.side.isHidden() else text)

    def set_compact(self, on: bool) -> None:
        """Presenter mode: the tree alone below the verdict (the phases and the table hidden: the tree's
        outlines show the phases, its nodes the table's numbers; the verdict without its why), so that nothing
        is cut at 1280 x 720."""
        self.side.setVisible(not on)
        self.view.setMinimumHeight(100 if on else 160)  # (clipped by a shorter dock, its labels were cut)
        self.verdict.setText(self._verdict[1] if on else self._verdict[0])

    def set_font_size(self, px: int, *, tree_px: int | None = None) -> None:
        """Text size in pixels (presenter mode); ``tree_px``: the tree's own (default the same)."""
        self.view.set_font_size(tree_px or px)
        font = QFont(self.font())
        font.setPixelSize(px)
        for w in (self.verdict, self.phases, self.table):
            w.setFont(font)


__all__ = ["BEST_RING", "SearchTreePanel", "SearchTreeView"]
