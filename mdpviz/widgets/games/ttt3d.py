"""3x3x3 risk tic-tac-toe in the main window: an agent learned by playing, shown on the cube.

The cube has 3^27 boards: there is no :class:`~mdpviz.core.mdp.TabularMDP` to step, so this game
has no solver. Instead of sweeps it shows LEARNING (seed 003, :mod:`mdpviz.models.ttt3d.learning`):

* the cube as three 3x3 layers side by side (the common position board of
  :mod:`mdpviz.widgets.position`), each legal cell coloured by the value of playing there to the
  player to move (the trained agent's estimate: +1 a win, -1 a loss, on a fixed scale) with the
  number on it and the greedy move starred; click a cell to play it, Back / Forward / New game,
  and "play vs agent" with "hide hints" (the common board's controls);
* training (:class:`mdpviz.models.ttt3d.training.Training`, the session's driver: the job generator
  :func:`~mdpviz.models.ttt3d.training.training_job` on the controller's job thread), started and
  stopped from the game panel, drawn live as a learning curve in the window's Convergence dock (the
  view's ``convergence_widget``): the greedy agent's win rate in each seat against the chosen
  opponent (random or tactical) over each evaluation batch with its Wilson 95% interval, the
  tactical player's and the untrained agent's win rates on the same games as lines, and the mean
  |TD error| of the updates since the previous point;
* save and load agents (``.npz``, :meth:`~mdpviz.models.ttt3d.learning.Agent.save` /
  :func:`~mdpviz.models.ttt3d.learning.load_agent`);
* matchups (the agent, the tactical player and the random player against each other) simulated with the
  vectorised engine :func:`mdpviz.models.ttt3d.play_batch`, shown as outcome bars with CIs.

Everything headless (the rules, the game's edits :class:`~mdpviz.models.ttt3d.Ttt3dSettings`, the
position model, the learning curve's arrays, the training and its job, the matchup job, the scenario
codec) lives in :mod:`mdpviz.models.ttt3d`; this module draws and edits. The trained agent is a
result, like a solve, not an edit.
"""
from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from mdpviz.models import ttt3d
from mdpviz.models.ttt3d import learning as rl
from mdpviz.models.kit.pictures.colors import ColorScale
from mdpviz.models.kit.boards.position import DECISION, PLAY, Position
from mdpviz.models.kit.boards.ttt_board import MARK_CHARS
from mdpviz.models.ttt3d import (
    AGENT_SCALE,
    REPLIES,
    SPEC,
    LearningCurve,
    Ttt3dPositionModel,
    Ttt3dSettings,
    agent_text,
    learning_curve,
    risk_spec_for,
    risk_text,
)
from mdpviz.solvers import Sweep
from mdpviz.widgets import named as _named
from mdpviz.widgets.convergence import (
    RoomyAxis,
    export_scene,
    fit_legend_row,
    legend_above,
    set_axes_font,
    set_legend_font,
)
from mdpviz.models.ttt3d.training import Training
from mdpviz.widgets.position import LayersPainter, PositionBoard, PositionGame
from mdpviz.widgets.session import GameSession

WIN_COLOR = "#0072b2"  # Okabe-Ito blue
LOSS_COLOR = "#d55e00"  # vermillion
TD_COLOR = "#009e73"  # bluish green
LINE_COLOR = "#f0e442"  # Okabe-Ito yellow: the winning line's cells




def _combo_box(name: str, accessible: str) -> QComboBox:
    c = _named(QComboBox(), name, accessible)
    c.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    c.setMinimumContentsLength(6)
    return c


def _spin_box(name: str, accessible: str, lo: int, hi: int, step: int) -> QSpinBox:
    s = _named(QSpinBox(), name, accessible)
    s.setRange(lo, hi)
    s.setSingleStep(step)
    s.setGroupSeparatorShown(True)
    s.setKeyboardTracking(False)
    return s


def _pair(*widgets: QWidget) -> QWidget:
    """Widgets side by side in one form row."""
    w = QWidget()
    h = QHBoxLayout(w)
    h.setContentsMargins(0, 0, 0, 0)
    h.setSpacing(4)
    for x in widgets:
        h.addWidget(x, 0 if isinstance(x, QLabel) else 1)
    return w


SETTING_NAMES = {"method": "learner", "approx": "approximator", "episodes": "games", "learning_rate": "learning rate",
                 "discount": "discount", "epsilon": "\u03b5", "epsilon_decay": "\u03b5 decay",
                 "epsilon_min": "\u03b5 min", "hidden": "hidden units", "mark": "agent plays",
                 "opponent": "trains against", "eval_opponent": "curve against",
                 "report_every": "curve every", "eval_games": "evaluation games", "seed": "seed"}
"""The training settings as the Game panel names them (the undo menu's and the status bar's words)."""


def settings_text(changes: dict[str, Any]) -> str:
    """Training setting changes as words, e.g. "games 1,000, curve every 100" (undo text)."""
    def value(v: Any) -> str:
        return f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else str(v)

    return ", ".join(f"{SETTING_NAMES.get(k, k.replace('_', ' '))} {value(v)}" for k, v in changes.items())


# ---------------------------------------------------------------------------------- widgets
class Ttt3dPainter(LayersPainter):
    """The cube as three 3x3 layers; the risk of each cell in its tooltip; the winning line's cells
    (codes 3 and 4: X and O on the line) filled yellow under their marks."""

    def __init__(self, risk: np.ndarray | None = None) -> None:
        super().__init__(3, 3)
        self.risk = None if risk is None else np.asarray(risk, dtype=np.float64)

    def paint_piece(self, qp: QPainter, r: QRectF, cell: int, code: int) -> None:
        if code in (3, 4):
            qp.setPen(Qt.PenStyle.NoPen)
            qp.setBrush(QColor(LINE_COLOR))
            qp.drawRect(r.adjusted(1, 1, -1, -1))
            qp.setPen(QPen(QColor("#000000"), max(2.0, r.width() * 0.05)))
            qp.setBrush(Qt.BrushStyle.NoBrush)
            qp.drawRect(r.adjusted(2, 2, -2, -2))
            code -= 2
        super().paint_piece(qp, r, cell, code)

    def cell_name(self, cell: int) -> str:
        name = super().cell_name(cell)
        if self.risk is not None:
            name += f", risk {self.risk[cell]:.3g}"
        return name


SEAT_COLORS = {"X": WIN_COLOR, "O": "#d55e00"}
"""The agent's win rate in each seat: Okabe-Ito blue (X) and vermillion (O)."""


class LearningCurvePlot(pg.GraphicsLayoutWidget):
    """The live learning curve: the greedy agent's win rate in each seat against the chosen opponent
    per evaluation batch (95% band), with the yardsticks of the same games as horizontal lines (the
    tactical player dashed, the untrained agent dotted, in the seat's colour), and the mean |TD
    error| per point below."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ttt3dLearningCurve")
        self.setAccessibleName("Learning curve")
        self.setAccessibleDescription("Win rate of the greedy agent in each seat against the chosen opponent per "
                                      "evaluation batch, with 95% intervals, the tactical player's and the "
                                      "untrained agent's win rates as lines, and the mean TD error")
        self.setBackground("w")
        self.setMinimumHeight(150)
        self.top: pg.PlotItem = self.addPlot(row=0, col=0, axisItems={"left": RoomyAxis("left")})
        self.bottom: pg.PlotItem = self.addPlot(row=1, col=0, axisItems={"left": RoomyAxis("left"),
                                                                          "bottom": RoomyAxis("bottom")})
        self.ci.layout.setRowStretchFactor(0, 3)
        self.ci.layout.setRowStretchFactor(1, 2)
        self.top.setLabel("left", "win")  # short (the plot is low in presenter mode); the title says against whom
        self.top.setYRange(0.0, 1.0, padding=0.02)
        self.top.showGrid(y=True, alpha=0.25)
        self.legend = legend_above(self.top)  # beside the title, off the curves
        self.seat_curves: dict[str, pg.PlotDataItem] = {}
        self.seat_bands: dict[str, tuple[pg.PlotDataItem, pg.PlotDataItem, pg.FillBetweenItem]] = {}
        self.baseline_lines: dict[tuple[str, str], pg.InfiniteLine] = {}
        for seat, color in SEAT_COLORS.items():
            c = QColor(color)
            lo = pg.PlotDataItem([], [], pen=pg.mkPen(color, width=0.5))
            hi = pg.PlotDataItem([], [], pen=pg.mkPen(color, width=0.5))
            band = pg.FillBetweenItem(lo, hi, brush=pg.mkBrush(c.red(), c.green(), c.blue(), 45))
            for item in (lo, hi, band):
                self.top.addItem(item)
            self.seat_bands[seat] = (lo, hi, band)
            self.seat_curves[seat] = self.top.plot([], [], pen=pg.mkPen(color, width=2), symbol="o" if seat == "X"
                                                   else "t", symbolSize=5, symbolBrush=color, symbolPen=None,
                                                   connect="finite")
            self.legend.addItem(self.seat_curves[seat], f"as {seat}")
            for who, style in (("tactical", Qt.PenStyle.DashLine), ("untrained", Qt.PenStyle.DotLine)):
                line = pg.InfiniteLine(angle=0, movable=False, pen=pg.mkPen(color, width=1.5, style=style))
                line.setVisible(False)
                self.top.addItem(line)
                self.baseline_lines[(who, seat)] = line
        # the yardsticks' legend samples: grey, the style is what tells them apart (the colour is the seat's)
        self._tactical_sample = pg.PlotDataItem(pen=pg.mkPen("#555555", width=1.5, style=Qt.PenStyle.DashLine))
        self._untrained_sample = pg.PlotDataItem(pen=pg.mkPen("#555555", width=1.5, style=Qt.PenStyle.DotLine))
        self.legend.addItem(self._tactical_sample, "tactical player")
        self.legend.addItem(self._untrained_sample, "untrained agent")
        fit_legend_row(self.top, self.legend)
        self.td_curve = self.bottom.plot([], [], pen=pg.mkPen(TD_COLOR, width=2), symbol="s", symbolSize=4,
                                         symbolBrush=TD_COLOR, symbolPen=None, connect="finite")
        # the lower plot's name as its title, not a second y title: in presenter mode "|TD error|" was
        # taller than the plot and ran into "rate"
        self.bottom.setLabel("bottom", "training games")
        self.bottom.setXLink(self.top)
        for item in (self.top, self.bottom):
            item.getAxis("left").setWidth(55)
            for ax in ("left", "bottom"):
                item.getAxis(ax).setTextPen("k")
                item.getAxis(ax).setPen("#444444")
                item.getAxis(ax).enableAutoSIPrefix(False)
        self.curve: LearningCurve = learning_curve([])
        self._title_size = "9pt"  # the legend's size in presenter mode (set_font_size)
        self.show_curve(self.curve)

    def show_curve(self, curve: LearningCurve) -> None:
        """Draw ``curve`` (the whole run so far)."""
        self.curve = curve
        x = curve.episodes
        for seat, item in self.seat_curves.items():
            w = curve.seat_win.get(seat)
            lo_item, hi_item, band = self.seat_bands[seat]
            if w is None:
                item.setData([], [])
                lo_item.setData([], [])
                hi_item.setData([], [])
            else:
                item.setData(x, w)
                lo, hi = curve.seat_ci[seat]
                ok = np.isfinite(lo)
                lo_item.setData(x[ok], lo[ok])
                hi_item.setData(x[ok], hi[ok])
            for who in ("tactical", "untrained"):
                line = self.baseline_lines[(who, seat)]
                v = curve.baselines.get(who, {}).get(seat)
                line.setVisible(v is not None and w is not None)
                if v is not None:
                    line.setValue(float(v))
        fin = np.isfinite(curve.td_error)  # no TD error before the first update
        self.td_curve.setData(x[fin], curve.td_error[fin])
        # short: the legend shares the row at 1366 px; the games behind a point are in the tooltip and the status line
        self.setToolTip(f"{curve.eval_games:,} greedy games per seat behind each point" if curve.eval_games else "")
        self.top.setTitle(f"Agent vs {curve.opponent}" if len(curve) else "Learning curve: press Train",
                          color="k", size=self._title_size, justify="left")  # the legend sits at the right of this row
        self.bottom.setTitle("mean |TD error| per point", color="k", size=self._title_size, justify="left")
        fit_legend_row(self.top, self.legend)
        # before training there is no game to count: no numbers on the axis (pyqtgraph's empty range
        # read as "-0.4 .. 0.4 training games")
        for item in (self.top, self.bottom):
            item.getAxis("bottom").setStyle(showValues=bool(len(curve)))
        self.bottom.getAxis("left").setStyle(showValues=bool(fin.any()))  # no TD error yet: no numbers

    def set_font_size(self, px: int) -> None:
        """Axis, label, title and legend font size in pixels (presenter mode)."""
        set_axes_font((self.top, self.bottom), px)
        small = max(11, int(px * 0.8))
        set_legend_font(self.top, self.legend, small)
        self._title_size = f"{small}px"
        self.show_curve(self.curve)

    def export(self, path: str | Path) -> Path:
        """Save the plot as PNG or SVG (by the extension)."""
        return export_scene(self, path)


class Ttt3dBoard(PositionBoard):
    """The common position board, told about the agent instead of sweeps (the cube has no MDP)."""

    def __init__(self, game: "Ttt3dGame") -> None:
        super().__init__(game.position_model, game.painter)
        self.game = game

    def show_sweep(self, sweep: Sweep | None, scale: ColorScale | None, *, caption: str = "", previous: Any = None,
                   delta: ColorScale | None = None) -> None:
        """The window's redraw: there are no sweeps here, the values are the current agent's. While an
        agent trains, the colour scale of a position spans its moves' values seen during this training
        run, widened when exceeded, never shrunk; when the run ends (or an agent is loaded) it is fitted
        to the agent's values once, and stays (the values no longer change)."""
        t = self.game.training
        run = (t.run_id, bool(t.busy))
        if run != getattr(self, "_seen_run", None):
            self._seen = {}
            self._seen_run = run
        self.show_values(t.agent, AGENT_SCALE, caption=self.game.caption())

    def initial_values(self, model: Any) -> rl.Agent | None:
        """The agent's values do not depend on the position model (a new walk keeps them)."""
        game = getattr(self, "game", None)  # None while PositionBoard.__init__ runs
        return None if game is None else game.training.agent

    # the common board words these for MDP states; the cube's positions have no state number
    def position_value_text(self, pos: Position, view: Any) -> str:
        if not pos.terminal and pos.chooser == DECISION and not isinstance(self.values, rl.Agent):
            return "No values yet: train an agent (Game panel) or load one."
        if not pos.terminal and pos.chooser == DECISION and not self.values_hidden:
            v = self.model.value(pos, self.values) if self.model is not None else math.nan
            if math.isfinite(v):
                learned = self.values.settings.mark
                note = "" if pos.mover == learned or learned == "both" else (
                    f" The agent learned as {learned}: its values for {pos.mover} extrapolate from that.")
                return (f"Agent's value of the position to {pos.mover}: {v:.4f} "
                        f"(its best move; +1 a win, \u22121 a loss).{note}")
        return super().position_value_text(pos, view)

    def path_text(self) -> str:
        w = self.walk
        return "" if w is None else f"Positions on the path: {w.index + 1} (move {w.index} of {len(w.plies)})"


class TrainingPanel(QWidget):
    """The game panel: training settings, Train / Stop with progress, save / load the agent."""

    def __init__(self, game: "Ttt3dGame", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ttt3dPanel")
        self.setAccessibleName("3D tic-tac-toe training")
        self.game = game
        self.ask_save_path: Callable[[], str] = lambda: QFileDialog.getSaveFileName(
            self, "Save agent", "agent.npz", "mdpviz agents (*.npz)")[0]
        self.ask_open_path: Callable[[], str] = lambda: QFileDialog.getOpenFileName(
            self, "Load agent", "", "mdpviz agents (*.npz);;All files (*)")[0]
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.setToolTip("3^27 boards: no table of states to solve. The agent learns by playing an opponent "
                        "(random, tactical, itself or a curriculum); its values are shown on the cube, its "
                        "learning curve against the chosen opponent in the Convergence panel.")
        self.method = _combo_box("ttt3dMethod", "Learning method")
        for k, v in rl.METHODS.items():
            self.method.addItem("TD(0)" if k == "td" else "Q-learning", k)
            self.method.setItemData(self.method.count() - 1, v, Qt.ItemDataRole.ToolTipRole)
        self.method.setToolTip("TD(0) on afterstate values, or Q-learning on action values")
        self.approx = _combo_box("ttt3dApprox", "Function approximator")
        for k, v in rl.APPROXIMATORS.items():
            self.approx.addItem(k, k)
            self.approx.setItemData(self.approx.count() - 1, v, Qt.ItemDataRole.ToolTipRole)
        self.approx.setToolTip("Function approximator: linear, quadratic (every product of two board features) "
                               "or a network with one hidden layer of ReLU units")
        self.episodes = _spin_box("ttt3dEpisodes", "Training games", 1, 1_000_000, 1000)
        self.episodes.setToolTip("Training games to play (against the opponent chosen under 'Opponent')")
        self.report = _spin_box("ttt3dReportEvery", "Games between learning-curve points", 1, 100_000, 100)
        self.report.setToolTip("A learning-curve point every this many training games (Stop is seen at a point); "
                               "the next box: evaluation games per point")
        self.eval_games = _spin_box("ttt3dEvalGames", "Evaluation games per point", 0, 100_000, 100)
        self.eval_games.setSuffix(" eval")
        self.eval_games.setToolTip("Greedy games per seat against the curve's opponent behind each point "
                                   "(0: no win rates)")
        self.opponent = _combo_box("ttt3dOpponent", "Training opponent")
        for k, v in rl.TRAIN_OPPONENTS.items():
            self.opponent.addItem(k, k)
            self.opponent.setItemData(self.opponent.count() - 1, v, Qt.ItemDataRole.ToolTipRole)
        self.opponent.setToolTip("Who the agent trains against: random, tactical (wins if it can, blocks if it "
                                 "must), itself, or a curriculum (random, then tactical, then itself)")
        self.eval_opponent = _combo_box("ttt3dEvalOpponent", "Learning curve opponent")
        for k, v in ttt3d.OPPONENTS.items():
            self.eval_opponent.addItem(k, k)
            self.eval_opponent.setItemData(self.eval_opponent.count() - 1, v, Qt.ItemDataRole.ToolTipRole)
        self.eval_opponent.setToolTip("The opponent of the learning curve's evaluation games")
        self.risk = _combo_box("ttt3dRisk", "Risk preset")
        for name in ttt3d.RISK_CHOICES:
            self.risk.addItem(name, name)
        self.risk.setToolTip("The risk coin of every cell: with this probability a move lands the opponent's "
                             "mark (noisy and random presets are drawn with the seed)")
        self.mark = _combo_box("ttt3dMark", "The agent's mark")
        self.mark.addItem("both", "both")
        self.mark.addItem("X (first)", "X")
        self.mark.addItem("O (second)", "O")
        self.mark.setToolTip("The seat the agent learns to play: X moves first; both: X and O in turn, one network")
        self.seed = _spin_box("ttt3dSeed", "Training seed", 0, 999_999, 1)
        self.seed.setGroupSeparatorShown(False)
        self.seed.setToolTip("Seed of the training: exploration, coins, the opponent and the initial weights")
        self.reply = _combo_box("ttt3dReply", "Who plays the other side")
        for k, v in REPLIES.items():
            self.reply.addItem(k, k)
            self.reply.setItemData(self.reply.count() - 1, v, Qt.ItemDataRole.ToolTipRole)
        self.reply.setToolTip("Who answers your moves when you walk the cube, and your opponent in 'play vs "
                              "agent': the agent (greedy), the tactical player or uniformly random moves")
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow("Learner", _pair(self.method, self.approx))
        form.addRow("Games", self.episodes)
        form.addRow("Opponent", self.opponent)
        form.addRow("Curve", _pair(self.report, self.eval_games))
        form.addRow("Curve vs", self.eval_opponent)
        form.addRow("Risk", self.risk)
        form.addRow("Agent", _pair(self.mark, QLabel("seed"), self.seed))
        form.addRow("Replies", self.reply)
        lay.addLayout(form)
        self.train = _named(QPushButton("Train"), "ttt3dTrainButton", "Train an agent")
        self.train.setToolTip("Train a new agent against the chosen opponent in the background "
                              "(learning rate and exploration: the defaults of 'mdpviz ttt3d train')")
        self.stop = _named(QPushButton("Stop"), "ttt3dStopButton", "Stop training")
        self.stop.setToolTip("Stop training; the agent trained so far is kept")
        self.stop.setEnabled(False)
        self.save = _named(QPushButton("Save…"), "ttt3dSaveButton", "Save the agent")
        self.save.setToolTip("Save the agent (.npz: weights, risks and training settings)")
        self.load = _named(QPushButton("Load…"), "ttt3dLoadButton", "Load an agent")
        self.load.setToolTip("Load an agent saved here or by 'mdpviz ttt3d train' (its settings become the game's)")
        row = QHBoxLayout()
        for btn in (self.train, self.stop, self.save, self.load):
            btn.setMinimumWidth(10)
            row.addWidget(btn)
        lay.addLayout(row)
        self.progress = _named(QProgressBar(), "ttt3dProgress", "Training progress")
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        lay.addWidget(self.progress)
        self.status = _named(QLabel(""), "ttt3dStatus", "Training status")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.status)
        self.agent_label = _named(QLabel(""), "ttt3dAgent", "The current agent")
        self.agent_label.setWordWrap(True)
        lay.addWidget(self.agent_label)
        lay.addStretch(1)

        self.method.currentIndexChanged.connect(lambda _i: self._set(method=self.method.currentData()))
        self.approx.currentIndexChanged.connect(lambda _i: self._set(approx=self.approx.currentData()))
        self.episodes.valueChanged.connect(lambda v: self._set(episodes=int(v)))
        self.report.valueChanged.connect(lambda v: self._set(report_every=int(v)))
        self.eval_games.valueChanged.connect(lambda v: self._set(eval_games=int(v)))
        self.mark.currentIndexChanged.connect(lambda _i: self._set(mark=self.mark.currentData()))
        self.opponent.currentIndexChanged.connect(lambda _i: self._set(opponent=self.opponent.currentData()))
        self.eval_opponent.currentIndexChanged.connect(
            lambda _i: self._set(eval_opponent=self.eval_opponent.currentData()))
        self.seed.valueChanged.connect(lambda v: self._set(seed=int(v)))
        self.risk.currentIndexChanged.connect(lambda _i: self._set_risk())
        self.reply.currentIndexChanged.connect(lambda _i: game.set_reply(self.reply.currentData()))
        self.train.clicked.connect(game.training.start)
        self.stop.clicked.connect(game.training.stop)
        self.save.clicked.connect(self._save)
        self.load.clicked.connect(self._load)
        game.session.edited.connect(lambda _t: self.refresh())
        game.session.changed.connect(self.refresh)
        self.refresh()

    def _set(self, **changes: Any) -> None:
        try:
            self.game.set_settings(**changes)
        except ValueError as e:
            self.game.session.refuse(str(e))

    def _set_risk(self) -> None:
        d = self.risk.currentData()
        if isinstance(d, str):
            self.game.set_risk(d)

    def _save(self) -> None:
        path = self.ask_save_path()
        if not path:
            return
        try:
            self.game.save_agent(path)
        except (ValueError, OSError) as e:
            self.game.session.message.emit(f"Cannot save the agent: {e}")

    def _load(self) -> None:
        path = self.ask_open_path()
        if not path:
            return
        try:
            self.game.load_agent_file(path)
        except ValueError as e:
            self.game.session.message.emit(f"Cannot load the agent: {e}")

    @staticmethod
    def _combo(combo: QComboBox, data: Any) -> None:
        i = combo.findData(data)
        if i >= 0 and combo.currentIndex() != i:
            combo.blockSignals(True)
            combo.setCurrentIndex(i)
            combo.blockSignals(False)

    @staticmethod
    def _spin(spin: QSpinBox, value: int) -> None:
        if spin.value() != value:
            spin.blockSignals(True)
            spin.setValue(int(value))
            spin.blockSignals(False)

    def refresh(self) -> None:
        """Show the game's settings, training state and agent."""
        settings: Ttt3dSettings = self.game.session.settings
        s = settings.settings
        self._combo(self.method, s.method)
        self._combo(self.approx, s.approx)
        self._spin(self.episodes, s.episodes)
        self._spin(self.report, s.report_every)
        self._spin(self.eval_games, s.eval_games)
        self._combo(self.mark, s.mark)
        self._combo(self.opponent, s.opponent)
        self._combo(self.eval_opponent, s.eval_opponent)
        self._spin(self.seed, s.seed)
        custom = self.risk.findData("custom")
        if isinstance(settings.risk, str):
            if custom >= 0:
                self.risk.blockSignals(True)
                self.risk.removeItem(custom)
                self.risk.blockSignals(False)
            self._combo(self.risk, settings.risk)
        else:
            if custom < 0:
                self.risk.blockSignals(True)
                self.risk.addItem(risk_text(settings.risk), "custom")
                self.risk.blockSignals(False)
            self._combo(self.risk, "custom")
        self._combo(self.reply, self.game.reply)
        t = self.game.training
        busy = t.busy
        for w in (self.method, self.approx, self.episodes, self.report, self.eval_games, self.risk, self.mark,
                  self.opponent, self.eval_opponent, self.seed, self.load):
            w.setEnabled(not busy)
        self.train.setEnabled(not busy)
        self.stop.setEnabled(busy)
        self.save.setEnabled(t.agent is not None and not busy)
        self.agent_label.setText(agent_text(t.agent))
        self.status.setText(t.status)
        done, total = t.progress
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(min(done, max(total, 1)))


# ---------------------------------------------------------------------------------- the game
class Ttt3dGame(PositionGame):
    """3x3x3 risk tic-tac-toe learned by playing (no MDP: training replaces the solver)."""

    spec = SPEC
    convergence_title = "Learning curve"
    panels = frozenset({"game", "convergence", "simulation", "lesson"})
    """No MDP: no solver, inspector, episode player or method comparison (training replaces them)."""
    fixed_scale = AGENT_SCALE
    """The colour scale of the values shown (there is no solve to fix one; the window's colour bar shows it)."""

    def __init__(self, session: GameSession | None = None, parent: QObject | None = None) -> None:
        super().__init__(session, parent)
        self._model_cache: tuple[Any, Ttt3dPositionModel] | None = None
        self._curve: LearningCurvePlot | None = None
        self._shown_records: tuple[int, int] | None = None
        self._panel: TrainingPanel | None = None
        # while training runs, the curve and the cube follow a progress record at a later turn of the
        # event loop than the panel (issue 35 item 8: all three in one turn stalled it 100-200 ms)
        self._later = QTimer(self)
        self._later.setSingleShot(True)
        self._later.setInterval(0)
        self._later.timeout.connect(self._follow_training)
        self.session.edited.connect(lambda _t: self._refresh_board())
        self.session.changed.connect(self._on_changed)

    @property
    def training(self) -> Training:
        """The agent and its training (the session's driver)."""
        return self.session.driver

    @property
    def tstate(self) -> Ttt3dSettings:
        return self.session.settings

    @property
    def reply(self) -> str:
        """Who plays the side that is not the agent's (:data:`REPLIES`): a display setting."""
        return self.session.display["reply"]

    # ------------------------------------------------------------------ the window's interface
    def empty_text(self) -> str:
        return SPEC.no_table

    def position_model(self) -> Ttt3dPositionModel:
        play = self._board is not None and self._board.mode == PLAY  # both sides decide in a game vs the agent
        key = (self.tstate, self.reply, play)
        if self._model_cache is None or self._model_cache[0] != key:
            m = Ttt3dPositionModel(risk=self.tstate.risk_vector(), side=MARK_CHARS[self.tstate.settings.seats[0]],
                                   reply=self.reply, play=play, agent=lambda: self.training.agent)
            self._model_cache = (key, m)
        return self._model_cache[1]

    def painter(self) -> Ttt3dPainter:
        return Ttt3dPainter(self.tstate.risk_vector())

    def board_widget(self) -> Ttt3dBoard:
        if self._board is None:
            self._board = Ttt3dBoard(self)
        return self._board

    def convergence_widget(self) -> LearningCurvePlot:
        """The learning curve, shown in the window's Convergence dock (there are no sweeps here)."""
        if self._curve is None:
            self._curve = LearningCurvePlot()
        return self._curve

    @property
    def curve_plot(self) -> LearningCurvePlot:
        """The learning curve widget."""
        return self.convergence_widget()

    def editor(self) -> TrainingPanel:
        if self._panel is None:
            self._panel = TrainingPanel(self)
        return self._panel

    def refresh_editor(self) -> None:
        if self._panel is not None:
            self._panel.refresh()

    def caption(self) -> str:
        """The line above the cube: whose values are shown."""
        t = self.training
        if t.agent is None:
            return "No agent yet: the cube shows no values. Train one in the Game panel (or load a file)."
        cap = agent_text(t.agent)
        if t.busy:
            cap += " \u2014 training\u2026"
        return cap

    def _on_changed(self) -> None:
        """The training moved on (a point, its start or end, a loaded agent): the curve and the cube follow
        (at the event loop's next turn while training runs, at once else)."""
        if self.training.busy:
            self._later.start()
            return
        self._later.stop()
        self._follow_training()

    def _follow_training(self) -> None:
        t = self.training
        shown = (t.run_id, len(t.records))
        if shown != self._shown_records:
            self._shown_records = shown
            self.curve_plot.show_curve(learning_curve(t.records))
        self._refresh_board()

    # ------------------------------------------------------------------ edits
    def set_settings(self, **changes: Any) -> bool:
        """Edit training settings (ValueError naming a bad value; nothing changes then)."""
        new = replace(self.tstate.settings, **changes)
        return self.session.edit(replace(self.tstate, settings=new), f"training: {settings_text(changes)}")

    def set_risk(self, spec: str | Sequence[float]) -> bool:
        """The cube's risks: a preset name or 27 probabilities (ValueError naming a bad entry)."""
        s = spec if isinstance(spec, str) else tuple(float(v) for v in ttt3d.resolve_risk(list(spec)))
        new = replace(self.tstate, risk=s)
        new.risk_vector()  # validates
        return self.session.edit(new, f"risk: {risk_text(s)}")

    def set_reply(self, reply: str) -> None:
        """Who plays the other side (a display setting: a new walk on the cube, no edit)."""
        if reply not in REPLIES:
            raise ValueError(f"reply must be one of {', '.join(REPLIES)}, got {reply!r}")
        self.session.set_display("reply", reply)

    # ------------------------------------------------------------------ files
    def save_agent(self, path: str | Path) -> Path:
        """Save the current agent (ValueError when there is none)."""
        if self.training.agent is None:
            raise ValueError("there is no agent to save: train one first")
        p = self.training.agent.save(path)
        self.session.message.emit(f"Saved the agent to {p}")
        return p

    def load_agent_file(self, path: str | Path) -> rl.Agent:
        """Load an agent (ValueError naming the file and the problem; nothing changes then). The
        game's settings and risks become the agent's (one undoable edit), so the cube plays with the
        risks it was trained for; its learning curve is not in the file."""
        agent = self.training.load(path)
        self.session.edit(Ttt3dSettings(settings=agent.settings, risk=risk_spec_for(agent.risk, seed=agent.settings.seed)),
                          f"settings of agent {Path(path).name}")
        return agent

    def _refresh_board(self) -> None:
        if self._board is not None:
            self._board.show_sweep(None, None)


__all__ = [
    "AGENT_SCALE", "LearningCurvePlot", "REPLIES", "TrainingPanel", "Ttt3dBoard", "Ttt3dGame", "Ttt3dPainter",
    "Ttt3dPositionModel", "Ttt3dSettings",
]


VIEW = Ttt3dGame
"""This game's view (the registry finds it here by the game's key)."""
