"""The gambler's problem in the window (rules in :mod:`mdpviz.models.gambler`): figure 4.3 as two
pyqtgraph plots, the value estimate per capital (earlier sweeps kept as fainter curves: sweeps 1, 2 and
3 beside the one shown) above the policy's stakes as bars, every tied optimal stake a dot."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QDoubleSpinBox, QFormLayout, QLabel, QSpinBox, QVBoxLayout, QWidget

from mdpviz.models import gambler as gb
from mdpviz.models.kit.pictures.colors import HIGHLIGHT, ColorScale
from mdpviz.widgets import named as _named
from mdpviz.models.kit.pictures.chain import outline_labels
from mdpviz.widgets.board import scale_rgb
from mdpviz.widgets.chain_marks import chain_plot_items
from mdpviz.widgets.game import Game
from mdpviz.widgets.game_board import GameBoard
from mdpviz.widgets.session import GameSession

SPEC = gb.SPEC

KEPT_SWEEPS = (1, 2, 3)
"""The earlier sweeps drawn as fainter curves (figure 4.3's top panel: sweeps 1, 2, 3 and the final one)."""
FAINT = ("#9ecae1", "#6baed6", "#3182bd")
"""Colours of the kept sweeps, lightest first (blues: apart from the shown curve's black)."""
TIE_COLOR = "#d95f02"
"""Colour of the dots of tied optimal stakes (orange on the blue bars: colour-blind safe)."""


class GamblerBoard(GameBoard):
    """Figure 4.3: V per capital (with sweeps 1, 2, 3 faint) above the stakes (bars, tied stakes as dots)."""

    draws_sweep_policy = True

    def __init__(self, game: "GamblerGame", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.setObjectName("gamblerBoard")
        self.setAccessibleName("Gambler's values and stakes")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.caption = _named(QLabel(), "gamblerCaption", "Board caption")
        self.caption.setWordWrap(True)
        lay.addWidget(self.caption)
        self.plots = pg.GraphicsLayoutWidget()
        self.plots.setBackground("w")
        lay.addWidget(self.plots, 1)
        self.value_plot = self.plots.addPlot(row=0, col=0)
        self.stake_plot = self.plots.addPlot(row=1, col=0)
        # short axis titles: in presenter mode each plot is a few text lines tall, and a longer title
        # ran into the other plot's (the caption above says what the bars and the dots are)
        self.value_plot.setLabel("left", "V(capital)")
        self.stake_plot.setLabel("left", "stake")
        self.stake_plot.setLabel("bottom", "capital")
        self.stake_plot.setXLink(self.value_plot)
        for p in (self.value_plot, self.stake_plot):
            p.showGrid(x=True, y=True, alpha=0.25)
            p.setMouseEnabled(x=False, y=False)
            p.hideButtons()
            for ax in ("left", "bottom"):
                p.getAxis(ax).enableAutoSIPrefix(False)
        # top left, in two columns: the values start near 0 at small capitals, so that corner is empty at
        # every size (bottom right was under the curve's end in presenter mode's short plot)
        legend = self.value_plot.addLegend(offset=(10, 5))
        legend.setColumnCount(2)
        self.sweep: Any = None
        """The shown snapshot (None: not solved yet)."""
        self.scale: ColorScale | None = None
        self.kept: dict[int, np.ndarray] = {}
        """Values of the kept early sweeps of this solve, by sweep number (:meth:`show_history`)."""
        self.ties: list[tuple[int, ...]] = []
        """Every optimal stake per capital of the shown values (the dots)."""
        self._chain_items: list[Any] = []
        """The numbers of the inspector's chain of backups on the value curve (:meth:`show_chain`)."""
        self.plots.scene().sigMouseClicked.connect(self._on_click)
        self.show_sweep(None, None)

    # ------------------------------------------------------------------ GameBoard
    def show_history(self, history: Sequence[Any], index: int) -> None:
        """Keep sweeps 1, 2 and 3 of the solve up to the shown one (the fainter curves)."""
        self.kept = {int(sw.iteration): np.asarray(sw.values) for sw in history[: min(index + 1, 8)]
                     if getattr(sw, "iteration", None) in KEPT_SWEEPS and getattr(sw, "phase", "sweep") == "sweep"}

    def color_range(self) -> tuple[float, float] | None:
        return None if self.scale is None else (self.scale.lo, self.scale.hi)

    def show_sweep(self, sweep: Any, scale: ColorScale | None, *, caption: str = "", previous: Any = None,
                   delta: ColorScale | None = None) -> None:
        self.sweep, self.scale = sweep, scale
        if self.shown_scale is not None:  # the difference map was shown (see show_change): values again
            self.value_plot.setLabel("left", "V(capital)")
        self.shown_scale = None
        mdp = self.game.session.mdp()
        self.value_plot.clear()
        self.stake_plot.clear()
        if sweep is None or mdp is None or len(sweep.values) != mdp.n_states:
            self.kept, self.ties = {}, []
            self.caption.setText(caption or "Not solved yet: press Step (one sweep) or Run.")
            return
        it = int(sweep.iteration)
        values = np.asarray(sweep.values, dtype=np.float64)
        caps = np.flatnonzero(~np.asarray(mdp.terminal))  # capitals 1..goal-1, as the figure draws them
        for k, color in zip(KEPT_SWEEPS, FAINT):
            if k in self.kept and k != it and len(self.kept[k]) == mdp.n_states:
                self.value_plot.plot(caps, self.kept[k][caps], pen=pg.mkPen(color, width=2), name=f"sweep {k}")
        self.value_plot.plot(caps, values[caps], pen=pg.mkPen("k", width=2.5), name=f"sweep {it}")
        if scale is not None:  # the shown values' dots in the window's colour scale
            rgb = scale_rgb(scale, scale.normalise(values[caps]))
            self.value_plot.addItem(pg.ScatterPlotItem(caps, values[caps], size=5, pen=None,
                                                       brush=[pg.mkBrush(*c) for c in rgb.tolist()]))
        policy = np.asarray(sweep.policy)
        live = np.flatnonzero(policy >= 0)
        self.stake_plot.addItem(pg.BarGraphItem(x=live, height=policy[live] + 1, width=0.8,
                                                brush=QColor("#3182bd"), pen=None))
        self.ties = gb.tied_stakes(mdp, values)
        xs = [s for s, t in enumerate(self.ties) for _ in t]
        ys = [k for t in self.ties for k in t]
        if xs:
            self.stake_plot.addItem(pg.ScatterPlotItem(xs, ys, size=5, pen=None, brush=pg.mkBrush(TIE_COLOR)))
        n_tied = sum(len(t) > 1 for t in self.ties)
        self.value_plot.setXRange(0, mdp.n_states - 1, padding=0.01)
        self.value_plot.setYRange(0, max(1.0, float(values.max())), padding=0.02)
        self.caption.setText(f"{caption}  Bars: the drawn stake (the smallest optimal one, as the book's figure); "
                             f"dots: every optimal stake ({n_tied} capitals have several).")


    def show_chain(self, states) -> None:
        """The inspector's chain of backups: each capital numbered in the chain's order on the value curve."""
        for item in self._chain_items:
            self.value_plot.removeItem(item)
        mdp = self.game.session.mdp()
        sw = self.sweep
        if sw is None or mdp is None or len(sw.values) != mdp.n_states:
            self._chain_items = []
            return
        values = np.asarray(sw.values, dtype=np.float64)
        self._chain_items = chain_plot_items(outline_labels(states), lambda s: (s, float(values[s])), anchor=(0.5, 1.2))
        for item in self._chain_items:
            self.value_plot.addItem(item)

    def _on_click(self, event: Any) -> None:
        """A click on either plot inspects the nearest capital (the goal and 0 are terminal)."""
        mdp = self.game.session.mdp()
        plot = next((p for p in (self.value_plot, self.stake_plot) if p.sceneBoundingRect().contains(event.scenePos())),
                    None)
        if mdp is None or plot is None:
            return
        s = int(round(plot.vb.mapSceneToView(event.scenePos()).x()))
        if 0 <= s < mdp.n_states:
            self.inspect_requested.emit(s)
            self.raise_inspector.emit()
    def show_change(self, diff: Any, mode: str, scale: ColorScale | None = None) -> bool:
        """The live re-solve's policy diff on figure 4.3's panels: the capitals whose optimal stakes changed
        marked under the stakes (magenta triangles); "after"/"before": the other solve's V as a dashed
        curve; "difference": V after - V before per capital, coloured on the diverging ``scale``, around 0."""
        mdp = self.game.session.mdp()
        if self.sweep is None or mdp is None or np.shape(diff.changed) != (mdp.n_states,):
            return False
        caps = np.flatnonzero(~np.asarray(mdp.terminal))
        changed = np.flatnonzero(diff.changed)
        if changed.size:
            self.stake_plot.addItem(pg.ScatterPlotItem(changed, np.zeros(changed.size), size=12, symbol="t1",
                                                       pen=pg.mkPen(HIGHLIGHT, width=2), brush=pg.mkBrush(HIGHLIGHT)))
        if mode == "difference" and scale is not None:
            d = np.asarray(diff.dv, dtype=np.float64)
            ok = caps[np.isfinite(d[caps])]
            self.value_plot.clear()
            self.value_plot.addLine(y=0.0, pen=pg.mkPen("#888888", width=1))
            self.value_plot.plot(ok, d[ok], pen=pg.mkPen("k", width=2.5), name="V after \u2212 V before")
            rgb = scale_rgb(scale, scale.normalise(d[ok]))
            self.value_plot.addItem(pg.ScatterPlotItem(ok, d[ok], size=6, pen=None,
                                                       brush=[pg.mkBrush(*c) for c in rgb.tolist()]))
            m = max(scale.hi, 1e-12)
            self.value_plot.setYRange(-m, m, padding=0.05)
            if self.shown_scale is None:
                self.value_plot.setLabel("left", "\u0394V")
            self.shown_scale = scale
            return True
        other = np.asarray(diff.v_before if mode != "before" else diff.v_after, dtype=np.float64)
        ok = caps[np.isfinite(other[caps])]
        self.value_plot.plot(ok, other[ok], pen=pg.mkPen("#7f7f7f", width=2, style=Qt.PenStyle.DashLine),
                             name="before the edit" if mode != "before" else "after the edit")
        return True


class GamblerGame(Game):
    """The gambler's problem: figure 4.3's two panels, the coin's bias and the goal edited in the Game dock."""

    spec = SPEC
    panels = frozenset({"game", "solver", "inspector", "player", "convergence", "simulation", "lesson", "compare"})

    def __init__(self, session: GameSession | None = None, parent: QObject | None = None) -> None:
        super().__init__(session, parent)
        self._board: GamblerBoard | None = None
        self._editor: GamblerEditor | None = None

    @property
    def settings(self) -> gb.GamblerSettings:
        return self.session.settings

    def board_widget(self) -> GamblerBoard:
        if self._board is None:
            self._board = GamblerBoard(self)
        return self._board

    def editor(self) -> QWidget:
        if self._editor is None:
            self._editor = GamblerEditor(self)
        return self._editor

    def refresh_editor(self) -> None:
        if self._editor is not None:
            self._editor.sync()


class GamblerEditor(QWidget):
    """The coin's probability of heads and the goal (the discount is the Solver panel's)."""

    def __init__(self, game: GamblerGame, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.setObjectName("gamblerEditor")
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.p_heads = _named(QDoubleSpinBox(), "gamblerPHeads", "Probability of heads")
        self.p_heads.setRange(0.0, 1.0)
        self.p_heads.setDecimals(3)
        self.p_heads.setSingleStep(0.05)
        self.p_heads.setToolTip("The gambler wins his stake with this probability (0.4 in figure 4.3)")
        form.addRow("P(heads)", self.p_heads)
        self.goal = _named(QSpinBox(), "gamblerGoal", "Goal")
        self.goal.setRange(2, gb.MAX_GOAL)
        self.goal.setToolTip("The capital that wins (+1); the game also ends at 0")
        form.addRow("Goal ($)", self.goal)
        help_ = QLabel("Figure 4.3: value iteration (in place, as the book) at P(heads) 0.4. Step draws each "
                       "sweep; sweeps 1, 2 and 3 stay as fainter curves.")
        help_.setWordWrap(True)
        form.addRow(help_)
        self.p_heads.editingFinished.connect(lambda: self.game.set_settings(p_heads=float(self.p_heads.value())))
        self.p_heads.setKeyboardTracking(False)  # a step of the arrows or the wheel is an edit at once (live re-solve)
        self.p_heads.valueChanged.connect(lambda v: self.game.set_settings(p_heads=float(v)))
        self.goal.editingFinished.connect(lambda: self.game.set_settings(goal=int(self.goal.value())))
        game.session.edited.connect(lambda _t: self.sync())
        self.sync()

    def sync(self) -> None:
        settings = self.game.settings
        for w in (self.p_heads, self.goal):
            w.blockSignals(True)
        self.p_heads.setValue(float(settings.p_heads))
        self.goal.setValue(int(settings.goal))
        for w in (self.p_heads, self.goal):
            w.blockSignals(False)


VIEW = GamblerGame
"""This game's view (the registry finds it here by the game's key)."""
