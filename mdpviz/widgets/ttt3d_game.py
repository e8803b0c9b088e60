"""3x3x3 risk tic-tac-toe in the main window: an agent learned by playing, shown on the cube.

The cube has 3^27 boards: there is no :class:`~mdpviz.models.mdp.TabularMDP` to step, so this game
has no solver. Instead of sweeps it shows LEARNING (seed 003, :mod:`mdpviz.solvers.rl`):

* the cube as three 3x3 layers side by side (the common position board of
  :mod:`mdpviz.widgets.position`), each legal cell coloured by the value of playing there to the
  player to move (the trained agent's estimate: +1 a win, -1 a loss, on a fixed scale) with the
  number on it and the greedy move starred; click a cell to play it, Back / Forward / New game,
  and "play vs agent" with "hide hints" (the common board's controls);
* training (:func:`mdpviz.solvers.rl.train`) on the controller's job thread, started and stopped
  from the game panel, drawn live as a learning curve in the window's Convergence dock (the
  game's ``convergence_widget``): the greedy agent's win rate against the uniformly random
  opponent over each evaluation batch with its Wilson 95% interval, the loss rate, and the mean
  |TD error| of the updates since the previous point;
* save and load agents (``.npz``, :meth:`~mdpviz.solvers.rl.Agent.save` /
  :func:`~mdpviz.solvers.rl.load_agent`);
* matchups (agent vs random, random vs agent, agent vs agent, random vs random) simulated with the
  vectorised engine :func:`mdpviz.models.ttt3d.play_batch`, shown as outcome bars with CIs.

The rules (the 49 lines, the risk coin, who wins) live only in :mod:`mdpviz.models.ttt3d`; this
module calls them. The game's edits (:class:`Ttt3dState`) are the training settings and the risk
vector; the trained agent is a result, like a solve, not an edit.
"""
from __future__ import annotations

import math
import queue
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, QRectF, Qt, Signal
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
from mdpviz.models.simulate import proportion_ci
from mdpviz.models.tictactoe import EMPTY, MARK_CHARS, O, X, other, parse_mark
from mdpviz.scenario import ScenarioError
from mdpviz.solvers import Sweep, rl
from mdpviz.models.colors import DIVERGING, ColorScale
from mdpviz.widgets.convergence import (
    RoomyAxis,
    export_scene,
    fit_legend_row,
    legend_above,
    set_axes_font,
    set_legend_font,
)
from mdpviz.models.display import BackupTerm
from mdpviz.widgets.game import Cancelled, Progress
from mdpviz.widgets.position import LayersPainter, PositionBoard, PositionGame
from mdpviz.models.position import (
    DECISION,
    MODEL,
    PLAY,
    MatchupResult,
    MatchupRow,
    MoveSpec,
    Ply,
    Position,
    PositionModel,
)
from mdpviz.widgets import named as _named

AGENT_SCALE = ColorScale(-1.0, 1.0, label="move value to the mover (+1 win, \u22121 loss)",
                         kind=DIVERGING)
"""The fixed colour scale of the cube's move values: the agent's rewards are +1, -1 and 0, so every
value it can learn lies in [-1, 1] (values outside are clipped to the end colours)."""

GUI_SETTINGS = rl.TrainSettings(episodes=20_000, report_every=500, eval_games=1_000)
"""Training settings of a new game: the CLI's target agent (TD(0), 64-ReLU network, 20,000 games)
with a learning-curve point every 500 games, so Stop is seen within a fraction of a second."""

REPLIES: dict[str, str] = {
    "agent": "the trained agent (greedy)",
    "random": "uniformly random (as in training)",
}
"""Who plays the side that is not the agent's when you walk the tree (in "play vs agent" the agent
plays whichever side you do not)."""

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


# ---------------------------------------------------------------------------------- the edits
@dataclass(frozen=True)
class Ttt3dState:
    """The 3D game's edits: how the next agent is trained, and the risks of the cube's cells."""

    settings: rl.TrainSettings = GUI_SETTINGS
    """Training settings (method, approximator, games, evaluation batch, mark, seed, ...)."""
    risk: str | tuple[float, ...] = "classic"
    """A preset of :data:`mdpviz.models.ttt3d.RISK_CHOICES` (noisy and random ones drawn with the
    settings' seed) or 27 probabilities, cell ``9 * layer + 3 * row + column``."""

    def risk_vector(self) -> np.ndarray:
        """float64 (27), read-only: the probability that a move on each cell lands the opponent's mark."""
        spec = self.risk if isinstance(self.risk, str) else list(self.risk)
        return ttt3d.resolve_risk(spec, seed=self.settings.seed)


def risk_spec_for(risk: np.ndarray, *, seed: int) -> str | tuple[float, ...]:
    """The preset name that gives ``risk`` with ``seed`` (e.g. a loaded agent's), else the 27 numbers."""
    p = np.asarray(risk, dtype=np.float64)
    for name in ttt3d.RISK_CHOICES:
        if np.array_equal(ttt3d.resolve_risk(name, seed=seed), p):
            return name
    return tuple(float(v) for v in p)


def risk_text(spec: str | tuple[float, ...]) -> str:
    """How a risk spec reads in the panel: the preset name, or "custom (mean 0.42)"."""
    if isinstance(spec, str):
        return spec
    return f"custom (mean {float(np.mean(spec)):.2f})"


# ---------------------------------------------------------------------------------- pure helpers
def cell_label(cell: int) -> str:
    """A cell of the cube in words, 1-based like the board's titles: "layer 2, row 2, col 2"."""
    layer, row, col = ttt3d.cell_coords(cell)
    return f"layer {layer + 1}, row {row + 1}, col {col + 1}"


def method_text(settings: rl.TrainSettings) -> str:
    """"TD(0), mlp (64 ReLU)" etc.: how an agent learns, in a few words."""
    m = "TD(0)" if settings.method == "td" else "Q-learning"
    a = f"mlp ({settings.hidden} ReLU)" if settings.approx == "mlp" else settings.approx
    return f"{m}, {a}"


@dataclass(frozen=True, eq=False)
class LearningCurve:
    """The learning curve of one training run, as arrays (what the plot draws)."""

    episodes: np.ndarray
    """float64 (k): training games played at each point."""
    win: np.ndarray
    """float64 (k): fraction of the evaluation games the greedy agent won against the random opponent."""
    win_lo: np.ndarray
    """float64 (k): lower end of the Wilson 95% interval of ``win``."""
    win_hi: np.ndarray
    """float64 (k): upper end of the Wilson 95% interval of ``win``."""
    loss: np.ndarray
    """float64 (k): fraction lost."""
    draw: np.ndarray
    """float64 (k): fraction drawn (0 on the cube: every full cube holds a line)."""
    td_error: np.ndarray
    """float64 (k): mean |TD error| (reward units) of the updates since the previous point (NaN at 0)."""
    eval_games: int
    """Games behind each rate (0: no evaluation, the rates are NaN)."""

    def __len__(self) -> int:
        return int(self.episodes.size)


def learning_curve(records: Sequence[rl.TrainProgress]) -> LearningCurve:
    """The arrays of a run's progress records. The counts behind each rate are ``round(rate * games)``
    (exact: the rates are counts divided by the batch size), and the interval is Wilson's."""
    k = len(records)
    ep = np.array([r.episodes for r in records], dtype=np.float64)
    win = np.array([r.win for r in records], dtype=np.float64)
    games = int(records[-1].eval_games) if k else 0
    lo = np.full(k, np.nan)
    hi = np.full(k, np.nan)
    ok = np.isfinite(win)
    if games > 0 and ok.any():
        wins = np.rint(win[ok] * games).astype(np.int64)
        a, b = proportion_ci(wins, games)
        lo[ok], hi[ok] = a, b
    return LearningCurve(
        episodes=ep, win=win, win_lo=lo, win_hi=hi,
        loss=np.array([r.loss for r in records], dtype=np.float64),
        draw=np.array([r.draw for r in records], dtype=np.float64),
        td_error=np.array([r.mean_td_error for r in records], dtype=np.float64),
        eval_games=games,
    )


def record_text(rec: rl.TrainProgress, total: int) -> str:
    """One line about a progress record: games, win rate with its interval, TD error, time."""
    parts = [f"{rec.episodes:,} of {total:,} games"]
    if math.isfinite(rec.win):
        lo, hi = proportion_ci(int(round(rec.win * rec.eval_games)), rec.eval_games)
        parts.append(f"win {100 * rec.win:.1f}% [{100 * float(lo):.1f}, {100 * float(hi):.1f}] vs random "
                     f"({rec.eval_games:,} games)")
    if math.isfinite(rec.mean_td_error):
        parts.append(f"mean |TD error| {rec.mean_td_error:.3f}")
    parts.append(f"\u03b5 {rec.epsilon:.3f}")
    parts.append(f"{rec.seconds:.1f} s")
    return " \u00b7 ".join(parts)


def agent_text(agent: rl.Agent | None) -> str:
    """What the current agent is: how it learned, its mark, games behind it, the risk it expects."""
    if agent is None:
        return "No agent yet: press Train (or load an agent file)."
    s = agent.settings
    spec = risk_spec_for(agent.risk, seed=s.seed)
    return (f"Agent: {method_text(s)}, plays {s.mark}, {agent.episodes:,} training games "
            f"({agent.train_seconds:.1f} s), risk {risk_text(spec)}")


# ---------------------------------------------------------------------------------- the position model
class Ttt3dPositionModel(PositionModel):
    """The cube for the common position board (rules from :mod:`mdpviz.models.ttt3d`).

    ``side`` is the agent's mark: its positions are DECISION positions whose moves carry the
    agent's values (the ``values`` the board is shown are an :class:`~mdpviz.solvers.rl.Agent`).
    Walking the tree (``play`` False), the other side is played by the model: uniformly at
    random, or by the agent's greedy move for that mark (``reply`` = "random" / "agent"). In a game
    against the agent (``play`` True) both sides are DECISION positions: you play your mark, the
    agent greedily plays the other, and the hints on your moves are the agent's values for them.
    X always moves first. Values are from the mover's side: both players maximise. The risk coin
    of every move uses ``risk`` (the environment; the agent scores moves with the risk it was
    trained for).
    """

    players = ("X", "O")
    n_cells = ttt3d.N_CELLS

    def __init__(self, *, risk: np.ndarray, side: str = "X", reply: str = "agent", play: bool = False,
                 agent: Callable[[], rl.Agent | None] = lambda: None) -> None:
        self.risk = ttt3d.resolve_risk(np.asarray(risk, dtype=np.float64))
        self.side = MARK_CHARS[parse_mark(side)]
        if reply not in REPLIES:
            raise ValueError(f"reply must be one of {', '.join(REPLIES)}, got {reply!r}")
        self.reply_mode = reply
        self.play_mode = bool(play)
        self._agent = agent

    # ------------------------------------------------------------------ positions
    @staticmethod
    def board_of(pos: Position) -> np.ndarray:
        """int8 (27): the marks of a position (a fresh copy)."""
        return np.frombuffer(pos.key[0], dtype=np.int8).copy()

    def position(self, board: np.ndarray, mover: str, *, result: int | None = None, text: str = "") -> Position:
        """The position of ``board`` with ``mover`` to move (``result``: X, O or 0 once the game is over)."""
        b = np.asarray(board, dtype=np.int8).copy()
        b.flags.writeable = False
        cells = b.copy()
        if result is None:
            decides = self.play_mode or mover == self.side
            return Position(key=(b.tobytes(), mover), cells=cells, mover=mover,
                            chooser=DECISION if decides else MODEL, objective="max", text=text)
        outcome = "draw" if result == 0 else f"{MARK_CHARS[result]} wins"
        if result:  # the completed line's cells get codes 3 (X) / 4 (O): the painter highlights them
            for line in ttt3d.LINES:
                if np.all(b[line] == result):
                    cells[line] = result + 2
        return Position(key=(b.tobytes(), ""), cells=cells, mover="", outcome=outcome, text=text)

    def start(self, *, first: str | None = None) -> Position:
        if first not in (None, "X"):
            raise ValueError("X always moves first in 3x3x3 tic-tac-toe: choose O to let the agent open as X")
        return self.position(np.zeros(ttt3d.N_CELLS, dtype=np.int8), "X")

    def first_choices(self) -> tuple[str, ...]:
        return ("X",)

    def human_marks(self) -> tuple[str, ...]:
        opp = MARK_CHARS[other(parse_mark(self.side))]
        return (opp, self.side)  # default: you take the side the agent does not play

    def moves(self, pos: Position) -> tuple[MoveSpec, ...]:
        if pos.terminal:
            return ()
        b = self.board_of(pos)
        empty = ttt3d.legal_moves(b)
        probs = np.full(empty.size, np.nan)
        if pos.chooser == MODEL:
            agent = self._agent()
            if self.reply_mode == "random" or agent is None:
                probs[:] = 1.0 / empty.size
            else:
                probs[int(np.flatnonzero(empty == agent.choose_move(b, pos.mover))[0])] = 1.0
        return tuple(MoveSpec(int(c), cell_label(int(c)), int(c), prob=float(p)) for c, p in zip(empty, probs))

    def play(self, pos: Position, action: int, rng: np.random.Generator) -> Ply:
        b = self.board_of(pos)
        c = int(action)
        ttt3d.check_move(b, c)
        me = parse_mark(pos.mover)
        mark, result = ttt3d.play_move(b, c, me, risk=self.risk, rng=rng)
        text = f"{pos.mover} on {cell_label(c)}"
        if mark != me:
            text += f"; the coin (risk {self.risk[c]:.2f}) put {MARK_CHARS[mark]}'s mark there"
        if result:
            text += f"; {MARK_CHARS[result]} completes a line and wins"
        elif result == 0:
            text += "; the cube is full: a draw"
        agent = parse_mark(self.side)
        reward = 0.0 if not result else (1.0 if result == agent else -1.0)
        after = self.position(b, "" if result is not None else MARK_CHARS[other(me)], result=result)
        return Ply(pos, c, after, text, reward)

    def reply(self, pos: Position, rng: np.random.Generator) -> int:
        b = self.board_of(pos)
        agent = self._agent()
        if self.reply_mode == "agent" and agent is not None:
            return int(agent.choose_move(b, pos.mover))
        return int(ttt3d.random_moves(b[None], rng)[0])

    # ------------------------------------------------------------------ values
    def move_values(self, pos: Position, values: Any) -> np.ndarray:
        mv = self.moves(pos)
        if not isinstance(values, rl.Agent) or pos.terminal or pos.chooser != DECISION:
            return np.full(len(mv), np.nan)
        q = values.move_values(self.board_of(pos), pos.mover)
        return np.array([q[m.action] for m in mv], dtype=np.float64)

    def value(self, pos: Position, values: Any) -> float:
        """The agent's value of the position to the mover: its best move's value (max over cells)."""
        q = self.move_values(pos, values)
        return float(np.max(q)) if q.size and np.all(np.isfinite(q)) else math.nan

    def agent_move(self, pos: Position, values: Any) -> int:
        if not isinstance(values, rl.Agent):
            raise ValueError("there is no agent to play against yet: press Train (or load an agent file)")
        return int(values.choose_move(self.board_of(pos), pos.mover))

    def backup(self, pos: Position, action: int, values: Any) -> list[BackupTerm]:
        """The move's value as the agent computes it. TD(0): the expectation over the risk coin,
        (1 - P[c]) u(own mark on c) + P[c] u(opponent's mark on c), with u the reward (+1 / -1 / 0)
        if that afterstate ends the game, else the afterstate value V(a) (rl module docstring).
        Q-learning: the learned Q(s, c) itself (the coin is inside it)."""
        if not isinstance(values, rl.Agent) or pos.terminal:
            return []
        b = self.board_of(pos)
        c = int(action)
        me = parse_mark(pos.mover)
        if values.settings.method != "td":
            q = float(values.move_values(b, me)[c])
            return [BackupTerm(1.0, 0.0, 2 * c + 2 * ttt3d.N_CELLS, q, "Q-learning: Q(s, c) learned directly")]
        p = float(values.risk[c])
        zero, one = np.zeros(ttt3d.N_CELLS), np.ones(ttt3d.N_CELLS)
        u_own = float(values.move_values_batch(b[None], me, risk=zero)[0, c])
        u_opp = float(values.move_values_batch(b[None], me, risk=one)[0, c])
        last = int(np.count_nonzero(b == EMPTY)) == 1
        terms = []
        for prob, mark, u, flip in ((1.0 - p, me, u_own, 0), (p, other(me), u_opp, 1)):
            if prob <= 0.0:
                continue
            done = bool(ttt3d.completing_cells(b[None], mark)[0, c])
            if done:
                r, v, note = (1.0 if mark == me else -1.0), 0.0, f"{MARK_CHARS[mark]} completes a line"
            elif last:
                r, v, note = 0.0, 0.0, "the cube is full: draw"
            else:
                r, v, note = 0.0, u, ("own mark lands" if not flip else "the coin: the opponent's mark lands")
            terms.append(BackupTerm(prob, r, 2 * c + flip, v, note))
        return terms

    def state_name(self, code: int) -> str:
        """Name of a backup term's afterstate (code ``2 c + flip``; see :meth:`backup`)."""
        c, flip = divmod(int(code), 2)
        if c >= ttt3d.N_CELLS:
            return f"Q: cell {c - ttt3d.N_CELLS}"
        return f"{'coin' if flip else 'own'} @{c}"

    def describe(self, pos: Position) -> str:
        if pos.terminal:
            return f"Game over: {pos.outcome}"
        if self.play_mode:
            return f"{pos.mover} to move"
        by_agent = self.reply_mode == "agent" and self._agent() is not None
        who = "the agent's side" if pos.mover == self.side else (
            "played by " + ("the agent" if by_agent else "random moves"))
        return f"{pos.mover} to move ({who})"


# ---------------------------------------------------------------------------------- background jobs
def training_job(settings: rl.TrainSettings, risk: np.ndarray,
                 sink: "queue.SimpleQueue[rl.TrainProgress]") -> Callable[[Progress, Cancelled], rl.Agent | None]:
    """The job that trains an agent (run on the controller's job thread): every progress record of
    :func:`mdpviz.solvers.rl.train` goes into ``sink`` (the GUI thread drains it) and is announced
    with ``progress(episodes, total, text)``; ``cancelled()`` is checked after each record (Stop).
    Returns the last agent (None if no record was made)."""
    total = int(settings.episodes)
    p = np.asarray(risk, dtype=np.float64)

    def job(progress: Progress, cancelled: Cancelled) -> rl.Agent | None:
        gen = rl.train(settings, risk=p)
        last: rl.TrainProgress | None = None
        try:
            for rec in gen:
                sink.put(rec)
                last = rec
                progress(rec.episodes, max(total, 1), record_text(rec, total))
                if cancelled():
                    break
        finally:
            gen.close()
        return None if last is None else last.agent

    return job


MATCHUPS: tuple[tuple[str, str, str], ...] = (
    ("agent vs random", "agent", "random"),
    ("random vs agent", "random", "agent"),
    ("agent vs agent", "agent", "agent"),
    ("random vs random", "random", "random"),
)
"""(name, X player, O player) of the simulated matchups; X moves first."""

MATCHUP_CHUNK = 2_000
"""Games per batch of a matchup simulation (progress and cancel are checked between batches)."""


def matchup_job(agent: rl.Agent | None, risk: np.ndarray, *, games: int,
                seed: int) -> Callable[[Progress, Cancelled], MatchupResult | None]:
    """The job that plays every matchup of :data:`MATCHUPS` ``games`` times from the empty cube with
    the vectorised engine :func:`mdpviz.models.ttt3d.play_batch` (the agent greedy, its coin model
    its own; the environment's risk ``risk``). No exact probabilities: the cube has 3^27 boards."""
    n = int(games)
    if n < 1:
        raise ValueError(f"simulate at least 1 game per matchup, got {n}")
    p = np.asarray(risk, dtype=np.float64)
    names = [m for m in MATCHUPS if agent is not None or "agent" not in m[1:]]
    notes = () if agent is not None else ("the matchups with the agent need an agent: press Train first",)

    def job(progress: Progress, cancelled: Cancelled) -> MatchupResult | None:
        streams = np.random.SeedSequence(int(seed)).spawn(len(names))
        sizes = [min(MATCHUP_CHUNK, n - k) for k in range(0, n, MATCHUP_CHUNK)]
        rows = []
        for i, ((name, xs, os_), ss) in enumerate(zip(names, streams)):
            rng = np.random.default_rng(ss)
            rand = ttt3d.random_player(rng)
            players = {"agent": (agent.choose_moves if agent is not None else rand), "random": rand}
            counts = np.zeros(3, dtype=np.int64)
            for j, m in enumerate(sizes):
                if cancelled():
                    return None
                res = ttt3d.play_batch(players[xs], players[os_], risk=p, games=m, rng=rng)
                counts += [np.count_nonzero(res == X), np.count_nonzero(res == O), np.count_nonzero(res == 0)]
                progress(i * len(sizes) + j + 1, len(names) * len(sizes),
                         f"{name}: {sum(sizes[:j + 1]):,} of {n:,} games")
            rows.append(MatchupRow(name, xs, os_, (int(counts[0]), int(counts[1]), int(counts[2])), n))
        return MatchupResult(tuple(rows), "games", "the empty cube", notes)

    return job


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


class LearningCurvePlot(pg.GraphicsLayoutWidget):
    """The live learning curve: win and loss rates vs random per evaluation batch (95% band), and the
    mean |TD error| per point below."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ttt3dLearningCurve")
        self.setAccessibleName("Learning curve")
        self.setAccessibleDescription("Win and loss rates of the greedy agent against the random opponent per "
                                      "evaluation batch, with 95% intervals, and the mean TD error")
        self.setBackground("w")
        self.setMinimumHeight(150)
        self.top: pg.PlotItem = self.addPlot(row=0, col=0, axisItems={"left": RoomyAxis("left")})
        self.bottom: pg.PlotItem = self.addPlot(row=1, col=0, axisItems={"left": RoomyAxis("left"),
                                                                          "bottom": RoomyAxis("bottom")})
        self.ci.layout.setRowStretchFactor(0, 3)
        self.ci.layout.setRowStretchFactor(1, 2)
        self.top.setLabel("left", "rate")  # short: the title says against whom
        self.top.setYRange(0.0, 1.0, padding=0.02)
        self.top.showGrid(y=True, alpha=0.25)
        self.legend = legend_above(self.top)  # beside the title, off the curves
        self.win_curve = self.top.plot([], [], pen=pg.mkPen(WIN_COLOR, width=2), symbol="o", symbolSize=5,
                                       symbolBrush=WIN_COLOR, symbolPen=None, connect="finite")
        self.legend.addItem(self.win_curve, "win")
        self.lo_curve = pg.PlotDataItem([], [], pen=pg.mkPen(WIN_COLOR, width=0.5))
        self.hi_curve = pg.PlotDataItem([], [], pen=pg.mkPen(WIN_COLOR, width=0.5))
        self.band = pg.FillBetweenItem(self.lo_curve, self.hi_curve, brush=pg.mkBrush(0, 114, 178, 50))
        self.top.addItem(self.lo_curve)
        self.top.addItem(self.hi_curve)
        self.top.addItem(self.band)
        # a FillBetweenItem as a legend sample crashes pyqtgraph 0.14.0's legend painter: a wide line stands in
        self._band_sample = pg.PlotDataItem(pen=pg.mkPen((0, 114, 178, 90), width=8))
        self.legend.addItem(self._band_sample, "win 95% CI")
        self.loss_curve = self.top.plot([], [], pen=pg.mkPen(LOSS_COLOR, width=2, style=Qt.PenStyle.DashLine),
                                        symbol="t", symbolSize=5, symbolBrush=LOSS_COLOR, symbolPen=None,
                                        connect="finite")
        self.legend.addItem(self.loss_curve, "loss")
        fit_legend_row(self.top, self.legend)
        self.td_curve = self.bottom.plot([], [], pen=pg.mkPen(TD_COLOR, width=2), symbol="s", symbolSize=4,
                                         symbolBrush=TD_COLOR, symbolPen=None, connect="finite")
        self.bottom.setLabel("left", "|TD error|")
        self.bottom.setLabel("bottom", "training games")
        self.bottom.setXLink(self.top)
        for item in (self.top, self.bottom):
            item.getAxis("left").setWidth(55)
            for ax in ("left", "bottom"):
                item.getAxis(ax).setTextPen("k")
                item.getAxis(ax).setPen("#444444")
                item.getAxis(ax).enableAutoSIPrefix(False)
        self.curve: LearningCurve = learning_curve([])
        self.show_curve(self.curve)

    def show_curve(self, curve: LearningCurve) -> None:
        """Draw ``curve`` (the whole run so far)."""
        self.curve = curve
        x = curve.episodes
        self.win_curve.setData(x, curve.win)
        ok = np.isfinite(curve.win_lo)
        self.lo_curve.setData(x[ok], curve.win_lo[ok])
        self.hi_curve.setData(x[ok], curve.win_hi[ok])
        self.loss_curve.setData(x, curve.loss)
        fin = np.isfinite(curve.td_error)  # no TD error before the first update
        self.td_curve.setData(x[fin], curve.td_error[fin])
        games = f" ({curve.eval_games:,} games per point)" if curve.eval_games else ""
        self.top.setTitle(f"Greedy agent vs random{games}" if len(curve) else "Learning curve: press Train",
                          color="k", size="9pt", justify="left")  # the legend sits at the right of this row
        fit_legend_row(self.top, self.legend)

    def set_font_size(self, px: int) -> None:
        """Axis, label and legend font size in pixels (presenter mode)."""
        set_axes_font((self.top, self.bottom), px)
        set_legend_font(self.top, self.legend, max(11, int(px * 0.8)))

    def export(self, path: str | Path) -> Path:
        """Save the plot as PNG or SVG (by the extension)."""
        return export_scene(self, path)


class Ttt3dBoard(PositionBoard):
    """The common position board, told about the agent instead of sweeps (the cube has no MDP)."""

    def __init__(self, game: "Ttt3dGame") -> None:
        super().__init__(game.position_model, game.painter)
        self.game = game

    def show_sweep(self, sweep: Sweep | None, scale: ColorScale | None, *, caption: str = "") -> None:
        """The window's redraw: there are no sweeps here, the values are the current agent's. While an
        agent trains, the colour scale of a position spans its moves' values seen during this training
        run, widened when exceeded, never shrunk; when the run ends (or an agent is loaded) it is fitted
        to the agent's values once, and stays (the values no longer change)."""
        run = (self.game._run, bool(self.game.training))
        if run != getattr(self, "_seen_run", None):
            self._seen = {}
            self._seen_run = run
        self.show_values(self.game.agent, AGENT_SCALE, caption=self.game.caption())

    def initial_values(self, model: Any) -> rl.Agent | None:
        """The agent's values do not depend on the position model (a new walk keeps them)."""
        game = getattr(self, "game", None)  # None while PositionBoard.__init__ runs
        return None if game is None else game.agent

    # the common board words these for MDP states; the cube's positions have no state number
    def position_value_text(self, pos: Position, view: Any) -> str:
        if not pos.terminal and pos.chooser == DECISION and not isinstance(self.values, rl.Agent):
            return "No values yet: train an agent (Game panel) or load one."
        if not pos.terminal and pos.chooser == DECISION and not self.values_hidden:
            v = self.model.value(pos, self.values) if self.model is not None else math.nan
            if math.isfinite(v):
                learned = self.values.settings.mark
                note = "" if pos.mover == learned else (
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
        self.setToolTip("3^27 boards: no table of states to solve. The agent learns by playing the random "
                        "opponent (seed 003); its values are shown on the cube, its learning curve in the "
                        "Convergence panel.")
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
        self.episodes.setToolTip("Games against the random opponent to train for")
        self.report = _spin_box("ttt3dReportEvery", "Games between learning-curve points", 1, 100_000, 100)
        self.report.setToolTip("A learning-curve point every this many training games (Stop is seen at a point); "
                               "the next box: evaluation games per point")
        self.eval_games = _spin_box("ttt3dEvalGames", "Evaluation games per point", 0, 100_000, 100)
        self.eval_games.setSuffix(" eval")
        self.eval_games.setToolTip("Greedy games against the random opponent behind each point (0: no win rates)")
        self.risk = _combo_box("ttt3dRisk", "Risk preset")
        for name in ttt3d.RISK_CHOICES:
            self.risk.addItem(name, name)
        self.risk.setToolTip("The risk coin of every cell: with this probability a move lands the opponent's "
                             "mark (noisy and random presets are drawn with the seed)")
        self.mark = _combo_box("ttt3dMark", "The agent's mark")
        self.mark.addItem("X (first)", "X")
        self.mark.addItem("O (second)", "O")
        self.mark.setToolTip("The mark the agent learns to play: X moves first")
        self.seed = _spin_box("ttt3dSeed", "Training seed", 0, 999_999, 1)
        self.seed.setGroupSeparatorShown(False)
        self.seed.setToolTip("Seed of the training: exploration, coins, the opponent and the initial weights")
        self.reply = _combo_box("ttt3dReply", "Who plays the other side")
        for k, v in REPLIES.items():
            self.reply.addItem(k, k)
            self.reply.setItemData(self.reply.count() - 1, v, Qt.ItemDataRole.ToolTipRole)
        self.reply.setToolTip("Who answers your moves when you walk the cube: the agent (greedy) or uniformly "
                              "random moves, as in training (in a game against the agent, the agent plays)")
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow("Learner", _pair(self.method, self.approx))
        form.addRow("Games", self.episodes)
        form.addRow("Curve", _pair(self.report, self.eval_games))
        form.addRow("Risk", self.risk)
        form.addRow("Agent", _pair(self.mark, QLabel("seed"), self.seed))
        form.addRow("Replies", self.reply)
        lay.addLayout(form)
        self.train = _named(QPushButton("Train"), "ttt3dTrainButton", "Train an agent")
        self.train.setToolTip("Train a new agent against the random opponent in the background "
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
        self.seed.valueChanged.connect(lambda v: self._set(seed=int(v)))
        self.risk.currentIndexChanged.connect(lambda _i: self._set_risk())
        self.reply.currentIndexChanged.connect(lambda _i: game.set_reply(self.reply.currentData()))
        self.train.clicked.connect(game.start_training)
        self.stop.clicked.connect(game.stop_training)
        self.save.clicked.connect(self._save)
        self.load.clicked.connect(self._load)
        game.edited.connect(lambda _t: self.refresh())
        game.agent_changed.connect(self.refresh)
        game.training_changed.connect(lambda _on: self.refresh())
        self.refresh()

    def _set(self, **changes: Any) -> None:
        try:
            self.game.set_settings(**changes)
        except ValueError as e:
            self.game.message.emit(str(e))
            self.refresh()

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
            self.game.message.emit(f"Cannot save the agent: {e}")

    def _load(self) -> None:
        path = self.ask_open_path()
        if not path:
            return
        try:
            self.game.load_agent_file(path)
        except ValueError as e:
            self.game.message.emit(f"Cannot load the agent: {e}")

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
        st: Ttt3dState = self.game.state
        s = st.settings
        self._combo(self.method, s.method)
        self._combo(self.approx, s.approx)
        self._spin(self.episodes, s.episodes)
        self._spin(self.report, s.report_every)
        self._spin(self.eval_games, s.eval_games)
        self._combo(self.mark, s.mark)
        self._spin(self.seed, s.seed)
        custom = self.risk.findData("custom")
        if isinstance(st.risk, str):
            if custom >= 0:
                self.risk.blockSignals(True)
                self.risk.removeItem(custom)
                self.risk.blockSignals(False)
            self._combo(self.risk, st.risk)
        else:
            if custom < 0:
                self.risk.blockSignals(True)
                self.risk.addItem(risk_text(st.risk), "custom")
                self.risk.blockSignals(False)
            self._combo(self.risk, "custom")
        self._combo(self.reply, self.game.reply)
        busy = self.game.training
        for w in (self.method, self.approx, self.episodes, self.report, self.eval_games, self.risk, self.mark,
                  self.seed, self.load):
            w.setEnabled(not busy)
        self.train.setEnabled(not busy)
        self.stop.setEnabled(busy)
        self.save.setEnabled(self.game.agent is not None and not busy)
        self.agent_label.setText(agent_text(self.game.agent))
        self.status.setText(self.game.status)
        done, total = self.game.progress
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(min(done, max(total, 1)))


# ---------------------------------------------------------------------------------- the game
class Ttt3dGame(PositionGame):
    """3x3x3 risk tic-tac-toe learned by playing (no MDP: training replaces the solver)."""

    key = "ttt3d"
    title = "3D tic-tac-toe (learning)"
    value_label = AGENT_SCALE.label
    unit = "games"
    supports_discount = False
    convergence_title = "Learning curve"
    panels = frozenset({"game", "convergence", "simulation", "lesson"})
    """No MDP: no solver, inspector, episode player or method comparison (training replaces them)."""
    fixed_scale = AGENT_SCALE
    """The colour scale of the values shown (there is no solve to fix one; the window's colour bar shows it)."""
    simulates_without_model = True
    """The matchup simulation needs no MDP (the window's Simulate runs :meth:`simulation_job`)."""

    agent_changed = Signal()
    """A new agent (a training point, the end of training, a loaded file)."""
    training_changed = Signal(bool)
    """Training started (True) or ended (False)."""

    def __init__(self, state: Ttt3dState | None = None, parent: QObject | None = None) -> None:
        super().__init__(state or Ttt3dState(), parent)
        self.agent: rl.Agent | None = None
        """The current agent (the latest training point, or a loaded file); None before any."""
        self.records: list[rl.TrainProgress] = []
        """The progress records of the current (or last) training run."""
        self.training = False
        """A training job is running."""
        self.status = ""
        """The training status line."""
        self.progress: tuple[int, int] = (0, 1)
        """(games done, games to play) of the current (or last) run."""
        self.reply = "agent"
        """Who plays the side that is not the agent's (:data:`REPLIES`): a display setting."""
        self._run = 0
        self._model_cache: tuple[Any, Ttt3dPositionModel] | None = None
        self._curve: LearningCurvePlot | None = None
        self._panel: TrainingPanel | None = None

    @property
    def tstate(self) -> Ttt3dState:
        return self._state

    # ------------------------------------------------------------------ the window's interface
    def build_mdp(self) -> None:
        """None: 3^27 boards cannot be tabulated; the agent is trained instead (see :meth:`empty_text`)."""
        return None

    def empty_text(self) -> str:
        return ("3D tic-tac-toe has 3^27 boards: no table of states to step or solve. "
                "Train an agent in the Game panel; its values are shown on the cube.")

    def position_model(self) -> Ttt3dPositionModel:
        play = self._board is not None and self._board.mode == PLAY  # both sides decide in a game vs the agent
        key = (self._state, self.reply, play)
        if self._model_cache is None or self._model_cache[0] != key:
            m = Ttt3dPositionModel(risk=self.tstate.risk_vector(), side=self.tstate.settings.mark,
                                   reply=self.reply, play=play, agent=lambda: self.agent)
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

    def caption(self) -> str:
        """The line above the cube: whose values are shown."""
        if self.agent is None:
            return "No agent yet: the cube shows no values. Train one in the Game panel (or load a file)."
        cap = agent_text(self.agent)
        if self.training:
            cap += " \u2014 training\u2026"
        return cap

    def matchups(self) -> list[str]:
        return [m[0] for m in MATCHUPS]

    def simulation_job(self, mdp: Any, policy: Any, *, games: int, seed: int):
        """Matchups on the cube (there is no MDP: ``mdp`` and ``policy`` are ignored)."""
        return matchup_job(self.agent, self.tstate.risk_vector(), games=games, seed=seed)

    # ------------------------------------------------------------------ edits
    def set_settings(self, **changes: Any) -> bool:
        """Edit training settings (ValueError naming a bad value; nothing changes then)."""
        new = replace(self.tstate.settings, **changes)
        what = ", ".join(f"{k} {v}" for k, v in changes.items())
        return self.edit(replace(self.tstate, settings=new), f"training: {what}")

    def set_risk(self, spec: str | Sequence[float]) -> bool:
        """The cube's risks: a preset name or 27 probabilities (ValueError naming a bad entry)."""
        s = spec if isinstance(spec, str) else tuple(float(v) for v in ttt3d.resolve_risk(list(spec)))
        new = replace(self.tstate, risk=s)
        new.risk_vector()  # validates
        return self.edit(new, f"risk: {risk_text(s)}")

    def set_reply(self, reply: str) -> None:
        """Who plays the other side (a display setting: a new walk on the cube, no edit)."""
        if reply not in REPLIES:
            raise ValueError(f"reply must be one of {', '.join(REPLIES)}, got {reply!r}")
        if reply != self.reply:
            self.reply = reply
            self._refresh_board()

    def _set_state(self, state: Any, text: str) -> None:
        super()._set_state(state, text)
        self._refresh_board()

    def load_state(self, state: Any) -> None:
        super().load_state(state)
        if self._panel is not None:
            self._panel.refresh()

    # ------------------------------------------------------------------ training
    def start_training(self) -> bool:
        """Train a new agent with the current settings on the controller's job thread (the window
        runs it); the learning curve and the cube follow each progress record. False if training
        already runs."""
        if self.training:
            return False
        settings, risk = self.tstate.settings, self.tstate.risk_vector()
        self._run += 1
        run = self._run
        sink: queue.SimpleQueue[rl.TrainProgress] = queue.SimpleQueue()
        self.records = []
        self.training = True
        self.progress = (0, max(int(settings.episodes), 1))
        self.status = f"Training {method_text(settings)} for {settings.episodes:,} games\u2026"
        self.curve_plot.show_curve(learning_curve([]))
        self.training_changed.emit(True)

        def drain() -> None:
            if run != self._run:
                return
            got = False
            while True:
                try:
                    rec = sink.get_nowait()
                except queue.Empty:
                    break
                self.records.append(rec)
                got = True
            if got:
                last = self.records[-1]
                self.agent = last.agent
                self.progress = (last.episodes, max(int(settings.episodes), 1))
                self.status = record_text(last, int(settings.episodes))
                self.curve_plot.show_curve(learning_curve(self.records))
                self.agent_changed.emit()
                self._refresh_board()

        def finish(text: str) -> None:
            drain()
            if run != self._run:
                return
            self.training = False
            self.status = text + (f" {self.status}" if self.records else "")
            self.training_changed.emit(False)
            self._refresh_board()

        def on_progress(done: int, total: int, text: str) -> None:
            drain()
            if run == self._run:
                self.training_changed.emit(True)  # the panel shows the new status and progress

        self.run_job(
            training_job(settings, risk, sink),
            label=f"Training the 3D tic-tac-toe agent ({settings.episodes:,} games)",
            on_done=lambda _agent: finish("Trained."),
            on_progress=on_progress,
            on_failed=lambda msg: finish(f"Training failed: {msg}."),
            on_cancelled=lambda: finish("Stopped."),
        )
        return self.training

    def stop_training(self) -> None:
        """Stop training after the current learning-curve point (the agent so far is kept)."""
        if self.training:
            self.cancel_job()

    # ------------------------------------------------------------------ files
    def save_agent(self, path: str | Path) -> Path:
        """Save the current agent (ValueError when there is none)."""
        if self.agent is None:
            raise ValueError("there is no agent to save: train one first")
        p = self.agent.save(path)
        self.message.emit(f"Saved the agent to {p}")
        return p

    def load_agent_file(self, path: str | Path) -> rl.Agent:
        """Load an agent (ValueError naming the file and the problem; nothing changes then). The
        game's settings and risks become the agent's (one undoable edit), so the cube plays with the
        risks it was trained for; its learning curve is not in the file."""
        if self.training:
            raise ValueError("stop training before loading an agent")
        agent = rl.load_agent(path)
        self._run += 1
        self.agent = agent
        self.records = []
        self.progress = (0, 1)
        self.status = f"Loaded {Path(path).name}."
        self.curve_plot.show_curve(learning_curve([]))
        self.edit(Ttt3dState(settings=agent.settings, risk=risk_spec_for(agent.risk, seed=agent.settings.seed)),
                  f"settings of agent {Path(path).name}")
        self.agent_changed.emit()
        self._refresh_board()
        return agent

    def _refresh_board(self) -> None:
        if self._board is not None:
            self._board.show_sweep(None, None)

    # ------------------------------------------------------------------ scenarios
    def to_dict(self) -> dict[str, Any]:
        st = self.tstate
        return {"settings": {f.name: getattr(st.settings, f.name) for f in fields(rl.TrainSettings)},
                "risk": st.risk if isinstance(st.risk, str) else list(st.risk), "reply": self.reply}

    def load_dict(self, data: dict[str, Any], path: str) -> Ttt3dState:
        where = f"games.{self.key}"
        raw = data.get("settings", {})
        known = {f.name for f in fields(rl.TrainSettings)}
        if not isinstance(raw, dict):
            raise ScenarioError(path, f"{where}.settings", f"must be an object, got {raw!r}")
        unknown = sorted(set(raw) - known)
        if unknown:
            raise ScenarioError(path, f"{where}.settings", f"unknown field(s) {', '.join(unknown)}")
        try:
            settings = rl.TrainSettings(**raw)
        except (TypeError, ValueError) as e:
            raise ScenarioError(path, f"{where}.settings", str(e)) from None
        risk = data.get("risk", "classic")
        if not isinstance(risk, str):
            if not isinstance(risk, list):
                raise ScenarioError(path, f"{where}.risk", f"must be a preset name or 27 numbers, got {risk!r}")
            risk = tuple(risk)
        st = Ttt3dState(settings=settings, risk=risk)
        try:
            st.risk_vector()
        except ValueError as e:
            raise ScenarioError(path, f"{where}.risk", str(e)) from None
        if isinstance(risk, tuple):
            st = Ttt3dState(settings=settings, risk=tuple(float(v) for v in risk))
        reply = data.get("reply", "agent")
        if reply not in REPLIES:
            raise ScenarioError(path, f"{where}.reply", f"must be one of {', '.join(REPLIES)}, got {reply!r}")
        return st

    def load_display(self, data: dict[str, Any]) -> None:
        if data.get("reply") in REPLIES:
            self.set_reply(data["reply"])


# ---------------------------------------------------------------------------------- README screenshots
def save_screenshots(out_dir: str | Path, *, episodes: int = 3_000, eval_games: int = 500, seed: int = 0,
                     sim_games: int = 2_000, timeout: float = 300.0) -> list[Path]:
    """Take this game's README screenshots headless (``python -m mdpviz.screenshots --games ttt3d``;
    the window from :func:`mdpviz.screenshots.screenshot_window`): the 3D game trained for
    ``episodes`` games on the window's own job thread (the GUI thread only waits; 20 learning-curve
    points of ``eval_games`` games each; training seed ``seed``), then

    * ``ttt3d-learning.png`` (default window size): the learning curve, the agent's values on the
      cube after one move of a walk, the matchup simulation (``sim_games`` games per matchup);
    * ``ttt3d-play-1280x720.png``: a game against the agent at 1280 x 720 (the window may be wider
      if its docks need more room).

    ``timeout`` (seconds) bounds each wait. Returns the files written."""
    from mdpviz.screenshots import SIZE_1280x720, screenshot_window

    with screenshot_window(out_dir, timeout=timeout) as sw:
        w = sw.window
        w.switch_game("ttt3d")
        g = w.game
        g.set_settings(episodes=int(episodes), report_every=max(1, int(episodes) // 20), eval_games=int(eval_games),
                       seed=int(seed))
        g.start_training()
        sw.wait(lambda: not g.training, what="the 3D agent's training")
        g.board.click_cell(ttt3d.CENTRE)
        sw.simulate(sim_games)
        sw.shot("ttt3d-learning.png")
        g.board.set_mode(PLAY)
        g.board.click_cell(4)
        sw.shot("ttt3d-play-1280x720.png", size=SIZE_1280x720)
    return sw.saved


__all__ = [
    "AGENT_SCALE", "GUI_SETTINGS", "LearningCurve", "LearningCurvePlot", "MATCHUPS", "REPLIES", "TrainingPanel",
    "Ttt3dBoard", "Ttt3dGame", "Ttt3dPainter", "Ttt3dPositionModel", "Ttt3dState", "agent_text",
    "cell_label", "learning_curve", "matchup_job", "record_text", "risk_spec_for", "risk_text", "save_screenshots",
    "training_job",
]
