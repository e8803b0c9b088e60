"""Planning with a learned model in the window: Dyna's curves and its marks on a grid (Sutton and Barto 8.2-8.3).

:class:`DynaCurves` takes the convergence dock's place while Dyna-Q or Dyna-Q+ runs: the real steps of each
episode (figure 8.2's curve, up to 800 steps as the book draws it: the first episode's random walk runs off the top) and the
cumulative reward against real steps (figures 8.4 and 8.5), the step at which the world changes marked by a
dashed line. Each new run keeps the last few runs' curves beside it, labelled by their n and method, so that
figure 8.2's n = 0, 5, 50 (or figure 8.5's Dyna-Q against Dyna-Q+) are drawn together by running them one after
the other.

:func:`paint_model_marks` draws on a grid world's canvas what the learned model knows: a small dot at the edge of
a cell for each (state, action) in the model (hollow: an untried action Dyna-Q+ keeps in its model, the book's
footnote), and the last real step's planning updates as short bars along the edge of the action they updated.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QVBoxLayout, QWidget

from mdpviz.widgets.convergence import IntegerAxis, RoomyAxis, fit_legend_row, legend_above, set_axes_font, set_legend_font

RUN_COLOURS = ("#0072b2", "#d55e00", "#009e73", "#cc79a7")
"""The current run and the earlier ones kept beside it (Okabe-Ito: told apart by colour-blind viewers)."""
RUN_STYLES = (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine, Qt.PenStyle.DashDotLine)
"""... and by line style, in greyscale too."""
STEPS_TOP = 800
"""The steps axis stops here, as the book's figure 8.2 does (a first episode's random walk runs off the top)."""
KEEP_RUNS = 3
"""Earlier runs kept beside the current one."""
PLANNED = "#d55e00"
"""The last real step's planning updates on the board (vermillion)."""
KNOWN = "#000000"
"""The model's known (state, action) dots (black with a white rim: readable on every cell colour)."""


@dataclass
class _Run:
    label: str
    steps: list[float]
    ends: list[float]
    cumulative: list[float]


class DynaCurves(QWidget):
    """Steps per episode (figure 8.2) and cumulative reward against real steps (figures 8.4-8.5), side by side."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("dynaCurves")
        self.setAccessibleName("Planning curves")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.view = pg.GraphicsLayoutWidget()
        self.view.setBackground("w")
        lay.addWidget(self.view)
        self.steps_plot = self.view.addPlot(row=0, col=0, axisItems={"left": IntegerAxis("left"),
                                                                      "bottom": IntegerAxis("bottom")})
        self.steps_plot.setLabel("left", "steps per episode")
        self.steps_plot.setLabel("bottom", "episode")
        self.reward_plot = self.view.addPlot(row=0, col=1, axisItems={"left": RoomyAxis("left"),
                                                                       "bottom": IntegerAxis("bottom")})
        self.reward_plot.setLabel("left", "cumulative reward")
        self.reward_plot.setLabel("bottom", "real steps")
        for p in (self.steps_plot, self.reward_plot):
            p.showGrid(x=True, y=True, alpha=0.2)
            p.getAxis("left").enableAutoSIPrefix(False)
            p.getAxis("bottom").enableAutoSIPrefix(False)
        self.steps_legend = legend_above(self.steps_plot, columns=2)
        self.reward_legend = legend_above(self.reward_plot, columns=1)
        self.steps_curves = [self.steps_plot.plot([], [], pen=self._pen(k)) for k in range(KEEP_RUNS + 1)]
        self.reward_curves = [self.reward_plot.plot([], [], pen=self._pen(k)) for k in range(KEEP_RUNS + 1)]
        self.switch_line = pg.InfiniteLine(angle=90, pen=pg.mkPen("#444444", width=1.5, style=Qt.PenStyle.DashLine))
        self.reward_plot.addItem(self.switch_line)
        self.cursor = pg.InfiniteLine(angle=90, pen=pg.mkPen("#888888", width=1))
        self.steps_plot.addItem(self.cursor)
        self.runs: list[_Run] = []
        """The earlier runs kept (oldest first), drawn beside the current one."""
        self.current = _Run("", [], [], [])
        self.switch_after = 0
        self.stale = True
        self._font_px = 0
        self.reset("")

    @staticmethod
    def _pen(k: int):
        return pg.mkPen(RUN_COLOURS[k % len(RUN_COLOURS)], width=2.5 if k == 0 else 1.8, style=RUN_STYLES[k % len(RUN_STYLES)])

    def reset(self, label: str, *, switch_after: int = 0) -> None:
        """A new run called ``label`` (e.g. "Dyna-Q, n = 5"); the last run, if it has points, is kept beside it
        (at most :data:`KEEP_RUNS`, one per label); ``switch_after``: the real step the world changes at (0: never)."""
        kept = [r for r in self.runs if r.label not in (self.current.label, label)]
        if self.current.steps and self.current.label != label:
            kept.append(self.current)
        self.runs = kept[-KEEP_RUNS:]
        self.current = _Run(label, [], [], [])
        self.switch_after = int(switch_after)
        self.stale = True

    def forget_runs(self) -> None:
        """Drop the earlier runs (another game or maze: they no longer compare)."""
        self.runs = []
        self.stale = True

    def extend(self, steps: Sequence) -> None:
        """Append the episodes of these :class:`~mdpviz.solvers.dyna.DynaStep` snapshots."""
        for s in steps:
            self.current.steps.extend(float(n) for n in s.lengths)
            self.current.ends.extend(float(x) for x in s.episode_ends)
            self.current.cumulative.extend(float(x) for x in s.episode_rewards)
        self.stale = self.stale or bool(steps)

    def curves(self) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
        """(label, steps per episode, real steps at each episode's end, cumulative reward there) of the current run,
        then the earlier ones (newest first): what is drawn."""
        return [(r.label, np.asarray(r.steps), np.asarray(r.ends), np.asarray(r.cumulative))
                for r in [self.current, *reversed(self.runs)]]

    def set_cursor(self, episode: int | None) -> None:
        """A vertical line at the history slider's episode (None: following the newest)."""
        self.cursor.setVisible(episode is not None)
        if episode is not None:
            self.cursor.setValue(episode)

    def set_font_size(self, px: int) -> None:
        """Axis and legend font size in pixels (presenter mode)."""
        self._font_px = px
        for p, leg in ((self.steps_plot, self.steps_legend), (self.reward_plot, self.reward_legend)):
            set_axes_font((p,), px)
            set_legend_font(p, leg, max(11, int(px * 0.8)))

    def refresh(self) -> None:
        """Draw the points appended since the last refresh."""
        if not self.stale:
            return
        self.stale = False
        self.steps_legend.clear()
        self.reward_legend.clear()
        drawn = self.curves()
        names = shown_labels([d[0] for d in drawn])
        self.steps_legend.setColumnCount(3 if max(map(len, names), default=0) <= 12 else 1)
        for k in range(KEEP_RUNS + 1):
            if k < len(drawn) and drawn[k][1].size:
                label, steps, ends, cum = drawn[k]
                x = np.arange(1, steps.size + 1, dtype=float)
                self.steps_curves[k].setData(x, steps)
                self.reward_curves[k].setData(np.concatenate(([0.0], ends)), np.concatenate(([0.0], cum)))
                self.steps_legend.addItem(self.steps_curves[k], names[k])
            else:
                self.steps_curves[k].setData([], [])
                self.reward_curves[k].setData([], [])
        top = max((float(d[1].max()) for d in drawn if d[1].size), default=100.0)
        self.steps_plot.setYRange(0.0, min(max(top, 20.0), STEPS_TOP) * 1.03, padding=0)
        self.switch_line.setVisible(self.switch_after > 0)
        if self.switch_after > 0:
            self.switch_line.setValue(self.switch_after)
            self.reward_legend.addItem(pg.PlotDataItem(pen=self.switch_line.pen), f"world changes at step {self.switch_after:,}")
        for p, leg in ((self.steps_plot, self.steps_legend), (self.reward_plot, self.reward_legend)):
            fit_legend_row(p, leg)
        if self._font_px:
            self.set_font_size(self._font_px)


def shown_labels(labels: Sequence[str]) -> list[str]:
    """The legend's names of runs labelled "method n=..": without the method when every run has the same one."""
    methods = {x.split(" ", 1)[0] for x in labels}
    return [x.split(" ", 1)[1] if len(methods) == 1 and " " in x else x for x in labels]


# ---------------------------------------------------------------------------------- the board's marks
@dataclass(frozen=True)
class ModelMarks:
    """What a grid draws of a learned model: per (row, column) cell the directions of its known actions (tried
    or only in the model) and the directions its last planning updates took."""

    known: dict[tuple[int, int], tuple[str, ...]]
    """Cell -> the directions ("north", ...) of its (state, action) pairs taken in the environment."""
    untried: dict[tuple[int, int], tuple[str, ...]]
    """Cell -> the directions in the model but never taken (Dyna-Q+'s footnote)."""
    planned: dict[tuple[int, int], tuple[str, ...]]
    """Cell -> the directions the last real step's planning updates updated."""


def model_marks(cell_of: Callable[[int], tuple[int, int] | None], direction: Callable[[int], str], mdp,
                known: np.ndarray, tried: np.ndarray, planned: Sequence[tuple[int, int]]) -> ModelMarks:
    """The marks of a snapshot's model on a grid: ``cell_of(state)`` its cell (None: off the grid),
    ``direction(action)`` its direction's name; ``known``/``tried`` bool per row, ``planned`` (state, action) pairs."""
    out: dict[str, dict[tuple[int, int], list[str]]] = {"known": {}, "untried": {}, "planned": {}}
    rows = np.flatnonzero(np.asarray(known))
    for r in rows.tolist():
        cell = cell_of(int(mdp.row_state[r]))
        if cell is not None:
            key = "known" if tried[r] else "untried"
            out[key].setdefault(cell, []).append(direction(int(mdp.row_action[r])))
    for s, a in planned:
        cell = cell_of(int(s))
        if cell is not None:
            out["planned"].setdefault(cell, []).append(direction(int(a)))
    return ModelMarks(*({c: tuple(sorted(set(d))) for c, d in out[k].items()} for k in ("known", "untried", "planned")))


_OFFSETS = {"north": (0.0, -1.0), "east": (1.0, 0.0), "south": (0.0, 1.0), "west": (-1.0, 0.0)}


def paint_model_marks(p: QPainter, marks: ModelMarks, cell_rect: Callable[[int, int], QRectF], *,
                      line_scale: float = 1.0) -> None:
    """Draw ``marks`` on a grid whose cell (r, c) is ``cell_rect(r, c)``: a black dot (hollow: untried) near the
    edge of each known action, a vermillion bar along the edge of each planned one."""
    p.save()
    for key in ("known", "untried"):
        for (r, c), dirs in getattr(marks, key).items():
            rect = cell_rect(r, c)
            side = min(rect.width(), rect.height())
            rad = max(2.5, side * 0.035)
            for d in dirs:
                if d not in _OFFSETS:
                    continue
                dx, dy = _OFFSETS[d]
                # near the edge of the action's side, a quarter of the cell off its middle (clockwise): the
                # policy arrow along the middle keeps its head
                centre = QPointF(rect.center().x() + dx * side * 0.42 - dy * side * 0.27,
                                 rect.center().y() + dy * side * 0.42 + dx * side * 0.27)
                p.setPen(QPen(QColor("#ffffff" if key == "known" else KNOWN), max(1.0, rad * 0.45)))
                p.setBrush(QColor(KNOWN) if key == "known" else QColor("#ffffff"))
                p.drawEllipse(centre, rad, rad)
    for (r, c), dirs in marks.planned.items():
        rect = cell_rect(r, c)
        side = min(rect.width(), rect.height())
        w = max(3.0, side * 0.07) * max(1.0, line_scale) ** 0.5
        p.setPen(QPen(QColor(PLANNED), w, Qt.PenStyle.SolidLine, Qt.PenCapStyle.FlatCap))
        inset = w / 2 + 1
        box = rect.adjusted(inset, inset, -inset, -inset)
        for d in dirs:
            if d == "north":
                p.drawLine(QPointF(box.left() + side * 0.2, box.top()), QPointF(box.right() - side * 0.2, box.top()))
            elif d == "south":
                p.drawLine(QPointF(box.left() + side * 0.2, box.bottom()), QPointF(box.right() - side * 0.2, box.bottom()))
            elif d == "west":
                p.drawLine(QPointF(box.left(), box.top() + side * 0.2), QPointF(box.left(), box.bottom() - side * 0.2))
            elif d == "east":
                p.drawLine(QPointF(box.right(), box.top() + side * 0.2), QPointF(box.right(), box.bottom() - side * 0.2))
    p.restore()


def show_grid_model(board, known, tried, planned, *, switched: bool = False) -> bool:
    """A grid world board's :meth:`~mdpviz.widgets.game_board.GameBoard.show_model`: the model's marks on its canvas
    (None: none); once the world has changed (``switched``), the canvas draws the map after the change (the same
    states: the built world's ``after``). True when marks are drawn."""
    canvas = board.canvas
    geom, mdp, built = board.game.geometry(), board.game.session.mdp(), board.game.session.built()
    if switched and getattr(built, "after", None) is not None:
        geom = canvas.geometry_ = built.after.geometry
    canvas.model_marks = None if known is None or geom is None or mdp is None or len(known) != mdp.n_rows \
        else model_marks(geom.cell_of, geom.direction, mdp, known, known if tried is None else tried, planned)
    canvas.update()
    return canvas.model_marks is not None


__all__ = ["show_grid_model", "DynaCurves", "KEEP_RUNS", "ModelMarks", "model_marks", "paint_model_marks", "shown_labels"]
