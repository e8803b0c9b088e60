"""The Bernoulli bandit's belief MDP in the window (rules in :mod:`mdpviz.models.bandit`): two tabs on the board.

* **Belief tree**: the beliefs before the horizon in rows by pulls (the prior on top), each coloured by its value
  on the window's colour scale, and from each the Bayes-optimal pull drawn in its arm's colour (solid to the
  success, dashed to the failure); the other pulls are faint grey. Two arms over up to 6 pulls are drawn whole;
  beyond, the tree below a root belief as deep as stays readable (click a belief to make it the root; "Prior"
  goes back). Step value iteration and the rows come right from the last pull up: sweep k makes every belief
  within k pulls of the horizon exact.
* **Gittins index**: the index of a Beta(a, b) arm at a discount as a heatmap over (a, b), each cell's number
  printed, computed as a job of the window (progress and cancel): :func:`mdpviz.models.bandit.spec.gittins_job`.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, QRectF, Qt
from PySide6.QtWidgets import (QDoubleSpinBox, QFormLayout, QHBoxLayout, QLabel, QPushButton, QSpinBox, QTabWidget,
                               QVBoxLayout, QWidget)

from mdpviz.core.jobs import Job
from mdpviz.models import bandit as bd
from mdpviz.models.kit.pictures.colors import ColorScale
from mdpviz.widgets import named as _named
from mdpviz.widgets.board import scale_colormap, scale_rgb
from mdpviz.widgets.game import Game
from mdpviz.widgets.game_board import GameBoard
from mdpviz.widgets.session import GameSession

SPEC = bd.SPEC

ARM_COLORS = ("#e69f00", "#0072b2", "#009e73", "#cc79a7", "#d55e00", "#56b4e9", "#000000", "#f0e442", "#999999",
              "#882255")
"""Each arm's colour (Okabe and Ito's colour-blind-safe palette first)."""
FAINT = "#c8c8c8"
"""The pulls that are not Bayes-optimal."""
PENDING = "#eeeeee"
"""A belief with no pull backed up yet (backward induction, one row per Step, has not reached it)."""
GITTINS_DISCOUNT = 0.9
"""The heatmap's first discount (Gittins' table)."""
GITTINS_COUNT = 10
"""The heatmap's first a, b range: 1..10."""
NUMBERS_UP_TO = 12
"""The heatmap prints each cell's index when a and b go no further."""


class BeliefTreePlot(QWidget):
    """The belief tree: nodes coloured by value, the Bayes-optimal pulls in their arm's colour."""

    def __init__(self, board: "BanditBoard") -> None:
        super().__init__()
        self.board = board
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.plot_widget = _named(pg.PlotWidget(background="w"), "banditTree", "Belief tree")
        self.plot = self.plot_widget.getPlotItem()
        for ax in ("left", "bottom"):
            self.plot.hideAxis(ax)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        lay.addWidget(self.plot_widget, 1)
        row = QHBoxLayout()
        self.legend = _named(QLabel(), "banditLegend", "Tree legend")
        self.legend.setWordWrap(True)
        row.addWidget(self.legend, 1)
        self.prior_button = _named(QPushButton("Prior"), "banditPrior", "Tree from the prior")
        self.prior_button.setToolTip("Draw the tree from the prior's belief again")
        self.prior_button.clicked.connect(lambda: self.set_root(0))
        row.addWidget(self.prior_button)
        lay.addLayout(row)
        self.hover = _named(QLabel("Point at a belief: its counts, value and Bayes-optimal pull."), "banditHover",
                            "The belief under the mouse")
        self.hover.setWordWrap(True)
        lay.addWidget(self.hover)
        self.root = 0
        """The tree's root belief (0: the prior)."""
        self.tree: bd.BeliefTree | None = None
        self.selected: int | None = None
        self.node_colors: list[str] = []
        """The fill of each drawn belief ("#rrggbb", in the tree's order; :data:`PENDING`: not backed up)."""
        self.plot_widget.scene().sigMouseMoved.connect(self._on_hover)
        self.plot_widget.scene().sigMouseClicked.connect(self._on_click)

    def set_root(self, state: int) -> None:
        self.root = int(state)
        self.redraw()

    def redraw(self) -> None:
        """Draw the tree of the game's settings from :attr:`root` with the board's shown sweep."""
        self.plot.clear()
        game = self.board.game
        settings = game.settings
        try:
            self.tree = tree = bd.belief_tree(settings, self.root)
        except ValueError:
            self.tree = None
            return
        sweep, scale = self.board.sweep, self.board.scale
        mdp = game.session.mdp()
        solved = sweep is not None and mdp is not None and len(sweep.values) == mdp.n_states
        values = np.asarray(sweep.values, dtype=np.float64)[tree.states] if solved else None
        policy = np.asarray(sweep.policy)[tree.states] if solved else np.full(tree.states.size, -1)
        y = -tree.row.astype(np.float64)
        # the pulls: the optimal one of each belief in its arm's colour (solid: success, dashed: failure)
        best = policy[tree.edge_from] == tree.edge_arm
        faint = ~best
        if faint.any():
            self._edges(faint, pg.mkPen(FAINT, width=1))
        for arm in range(int(settings.arms)):
            for success in (True, False):
                sel = best & (tree.edge_arm == arm) & (tree.edge_success == success)
                if sel.any():
                    style = Qt.PenStyle.SolidLine if success else Qt.PenStyle.DashLine
                    self._edges(sel, pg.mkPen(ARM_COLORS[arm % len(ARM_COLORS)], width=2.5, style=style))
        # the beliefs, coloured by value (not yet backed up: pale)
        if values is not None and scale is not None:
            rgb = scale_rgb(scale, scale.normalise(values))
            self.node_colors = ["#%02x%02x%02x" % tuple(c) if p >= 0 else PENDING for c, p in zip(rgb.tolist(), policy)]
        else:
            self.node_colors = [PENDING] * tree.states.size
        brushes = [pg.mkBrush(c) for c in self.node_colors]
        widest = int(np.bincount(tree.row).max())
        size = float(np.clip(520.0 / widest, 8.0, 30.0))
        self.plot.addItem(pg.ScatterPlotItem(tree.x, y, size=size, brush=brushes, pen=pg.mkPen("#444444", width=1)))
        if self.selected is not None and self.selected in set(tree.states.tolist()):
            i = int(np.flatnonzero(tree.states == self.selected)[0])
            self.plot.addItem(pg.ScatterPlotItem([tree.x[i]], [y[i]], size=size + 8, brush=None,
                                                 pen=pg.mkPen("#d62728", width=3)))
        # the pulls made, per row, at the left
        t0 = int(bd.beliefs_of(settings).counts[tree.root].sum())
        for r in range(tree.depth + 1):
            text = pg.TextItem(f"t={t0 + r}", color="#333333", anchor=(1.0, 0.5))
            text.setPos(-0.01, -r)
            self.plot.addItem(text)
        if values is not None and widest <= 6:  # few beliefs: their values printed beside them
            for xi, yi, v in zip(tree.x, y, values):
                label = pg.TextItem(f"{v:.3f}", color="#000000", anchor=(0.5, -0.6))
                label.setPos(float(xi), float(yi))
                self.plot.addItem(label)
        self.plot.setRange(xRange=(-0.1, 1.0), yRange=(-tree.depth - 0.4, 0.4), padding=0.02)
        self.prior_button.setEnabled(tree.root != 0)
        arms = " ".join(f"<span style='color:{ARM_COLORS[i % len(ARM_COLORS)]}'>\u25ac arm {i + 1}</span>"
                        for i in range(int(settings.arms)))
        whole = ("every belief before the horizon" if tree.complete and tree.root == 0 else
                 f"{tree.depth} pull{'s' if tree.depth != 1 else ''} below the root (click a belief to go down)")
        self.legend.setText(f"Bayes-optimal pull: {arms} (solid: success, dashed: failure; grey: other pulls). "
                            f"Drawn: {whole}.")

    def _edges(self, sel: np.ndarray, pen: Any) -> None:
        tree = self.tree
        a, b = tree.edge_from[sel], tree.edge_to[sel]
        xs = np.column_stack([tree.x[a], tree.x[b]]).ravel()
        ys = np.column_stack([-tree.row[a], -tree.row[b]]).ravel().astype(np.float64)
        self.plot.addItem(pg.PlotCurveItem(xs, ys, connect="pairs", pen=pen))

    def _nearest(self, scene_pos: Any) -> int | None:
        """The index in the tree of the belief under ``scene_pos`` (None: none near)."""
        tree = self.tree
        if tree is None or not self.plot.sceneBoundingRect().contains(scene_pos):
            return None
        p = self.plot.vb.mapSceneToView(scene_pos)
        r = int(round(-p.y()))
        where = np.flatnonzero(tree.row == r)
        if where.size == 0:
            return None
        i = int(where[np.argmin(np.abs(tree.x[where] - p.x()))])
        return i if abs(tree.x[i] - p.x()) < 0.6 / where.size + 0.02 else None

    def describe(self, state: int) -> str:
        """One belief in words: its counts, value and Bayes-optimal pull on the shown sweep."""
        game = self.board.game
        text = game.session.state_name(int(state))
        sweep = self.board.sweep
        mdp = game.session.mdp()
        if sweep is not None and mdp is not None and len(sweep.values) == mdp.n_states:
            a = int(np.asarray(sweep.policy)[state])
            text += f": V = {float(sweep.values[state]):.4f}" + (f", pull arm {a + 1}" if a >= 0 else ", not backed up yet")
        return text

    def _on_hover(self, pos: Any) -> None:
        i = self._nearest(pos)
        if i is not None:
            self.hover.setText(self.describe(int(self.tree.states[i])))

    def _on_click(self, event: Any) -> None:
        i = self._nearest(event.scenePos())
        if i is None:
            return
        state = int(self.tree.states[i])
        self.board.inspect_requested.emit(state)
        self.board.raise_inspector.emit()
        if not (self.tree.complete and self.tree.root == 0) and i != 0:
            self.set_root(state)


class GittinsHeatmap(QWidget):
    """The Gittins index over (a, b) at a discount: a heatmap computed as a job (progress, cancel)."""

    def __init__(self, board: "BanditBoard") -> None:
        super().__init__()
        self.board = board
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(QLabel("Discount"))
        self.discount = _named(QDoubleSpinBox(), "gittinsDiscount", "Gittins discount")
        self.discount.setRange(0.5, 0.99)
        self.discount.setDecimals(2)
        self.discount.setSingleStep(0.01)
        self.discount.setValue(GITTINS_DISCOUNT)
        self.discount.setToolTip("gamma < 1: the index is for an endless bandit discounted per pull")
        row.addWidget(self.discount)
        row.addWidget(QLabel("a, b up to"))
        self.count = _named(QSpinBox(), "gittinsCount", "Gittins table size")
        self.count.setRange(2, 30)
        self.count.setValue(GITTINS_COUNT)
        row.addWidget(self.count)
        self.compute = _named(QPushButton("Compute"), "gittinsCompute", "Compute the Gittins indices")
        self.compute.clicked.connect(self.toggle)
        row.addWidget(self.compute)
        row.addStretch(1)
        lay.addLayout(row)
        self.plot_widget = _named(pg.PlotWidget(background="w"), "gittinsHeatmap", "Gittins index heatmap")
        self.plot = self.plot_widget.getPlotItem()
        self.plot.setLabel("bottom", "b = prior b + failures", color="#000")
        self.plot.setLabel("left", "a", color="#000")  # (short: a presenter-mode board is a few lines tall)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.image = pg.ImageItem(axisOrder="row-major")
        self.plot.addItem(self.image)
        self.plot.vb.sigResized.connect(lambda *_: self._fit_numbers())
        self.plot_widget.scene().sigMouseMoved.connect(self._on_hover)
        self.bar: Any = None
        lay.addWidget(self.plot_widget, 1)
        self.status = _named(QLabel("Press Compute (or open this tab) for the Gittins index of every Beta(a, b)."),
                             "gittinsStatus", "Gittins status")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)
        self.table: np.ndarray | None = None
        self.shown_for: tuple[float, int] | None = None
        self.running = False
        self._texts: list[Any] = []

    def toggle(self) -> None:
        if self.running:
            self.board.game.session.cancel_job()
        else:
            self.start()

    def start(self) -> None:
        """Compute the table for the shown discount and size on the window's job thread."""
        g, m = round(float(self.discount.value()), 6), int(self.count.value())
        self.running = True
        self.compute.setText("Cancel")

        def done(table: np.ndarray) -> None:
            self.running = False
            self.compute.setText("Compute")
            self.show_table(np.asarray(table), g)
            self.status.setText(f"Gittins index of Beta(a, b), a = prior a + successes, at discount {g:g} (calibration, "
                                f"within 1e-6): above the mean a / (a + b) by what more pulls would teach. Beta(1, 1): "
                                f"{float(table[0, 0]):.4f}. Point at a cell for its number.")

        def stopped(text: str) -> None:
            self.running = False
            self.compute.setText("Compute")
            self.status.setText(text)

        self.board.game.session.run_job(Job(
            lambda: SPEC.jobs["gittins"](g, m), label=f"Gittins index at discount {g:g}", on_done=done,
            on_progress=lambda d, t, text: self.status.setText(text), on_failed=lambda e: stopped(f"Failed: {e}"),
            on_cancelled=lambda: stopped("Cancelled.")))

    def show_table(self, table: np.ndarray, discount: float) -> None:
        """Draw ``table`` ([a - 1, b - 1]) as the heatmap, its numbers in the cells when few."""
        self.table, self.shown_for = table, (discount, table.shape[0])
        m = table.shape[0]
        lo, hi = float(table.min()), float(table.max())
        scale = ColorScale(lo, max(hi, lo + 1e-9), label="Gittins index")
        rgb = scale_rgb(scale, scale.normalise(table.ravel())).reshape(m, m, 3).astype(np.uint8)
        self.image.setImage(rgb, levels=(0, 255))
        self.image.setRect(QRectF(0.5, 0.5, m, m))
        for t in self._texts:
            self.plot.removeItem(t)
        self._texts = []
        if m <= NUMBERS_UP_TO:  # shown while the cells are large enough to hold them (_fit_numbers)
            for i in range(m):
                for j in range(m):
                    v = float(table[i, j])
                    dark = scale.normalise(np.array([v]))[0] > 0.55  # light cells of viridis: black text
                    t = pg.TextItem(f"{v:.3f}", color="#000000" if dark else "#ffffff", anchor=(0.5, 0.5))
                    t.setPos(j + 1, i + 1)
                    self.plot.addItem(t)
                    self._texts.append(t)
        if self.bar is None:
            self.bar = pg.ColorBarItem(values=(lo, hi), colorMap=scale_colormap(scale), interactive=False, width=14)
            self.plot.layout.addItem(self.bar, 2, 5)
        self.bar.setColorMap(scale_colormap(scale))
        self.bar.setLevels((lo, hi))
        self.plot.setRange(xRange=(0.5, m + 0.5), yRange=(0.5, m + 0.5), padding=0)
        ticks = [[(k, str(k)) for k in range(1, m + 1, 1 if m <= 12 else 2)]]
        self.plot.getAxis("bottom").setTicks(ticks)
        self.plot.getAxis("left").setTicks(ticks)
        self._fit_numbers()

    def _on_hover(self, pos: Any) -> None:
        """Every cell's number in the status line when pointed at (the colours alone are not the numbers)."""
        if self.table is None or not self.plot.sceneBoundingRect().contains(pos):
            return
        p = self.plot.vb.mapSceneToView(pos)
        a, b = int(round(p.y())), int(round(p.x()))
        m = self.table.shape[0]
        if 1 <= a <= m and 1 <= b <= m:
            g = self.shown_for[0] if self.shown_for else 0.0
            self.status.setText(f"Beta({a}, {b}) at discount {g:g}: Gittins index {float(self.table[a - 1, b - 1]):.4f}, "
                                f"mean {a / (a + b):.4f}.")

    def _fit_numbers(self) -> None:
        """The cells' numbers shown only while a cell is at least 15 px tall and 38 px wide."""
        if self.table is None or not self._texts:
            return
        m = self.table.shape[0]
        rect = self.plot.vb.boundingRect()
        fits = rect.height() / m >= 15 and rect.width() / m >= 38
        for t in self._texts:
            t.setVisible(fits)


class BanditBoard(GameBoard):
    """The belief tree and the Gittins heatmap as two tabs."""

    draws_sweep_policy = True

    def __init__(self, game: "BanditGame", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.setObjectName("banditBoard")
        self.setAccessibleName("Bernoulli bandit: belief tree and Gittins index")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.caption = _named(QLabel(), "banditCaption", "Board caption")
        self.caption.setWordWrap(True)
        lay.addWidget(self.caption)
        self.tabs = _named(QTabWidget(), "banditTabs", "Belief tree or Gittins index")
        self.tree = BeliefTreePlot(self)
        self.gittins = GittinsHeatmap(self)
        self.tabs.addTab(self.tree, "Belief tree")
        self.tabs.addTab(self.gittins, "Gittins index")
        self.tabs.currentChanged.connect(self._tab_changed)
        lay.addWidget(self.tabs, 1)
        self.sweep: Any = None
        """The shown snapshot (None: not solved yet)."""
        self.scale: ColorScale | None = None
        self.show_sweep(None, None)

    def color_range(self) -> tuple[float, float] | None:
        return None if self.scale is None else (self.scale.lo, self.scale.hi)

    def show_sweep(self, sweep: Any, scale: ColorScale | None, *, caption: str = "", previous: Any = None,
                   delta: ColorScale | None = None) -> None:
        self.sweep, self.scale = sweep, scale
        mdp = self.game.session.mdp()
        if self.tree.tree is not None and mdp is not None and self.tree.root >= mdp.n_states:
            self.tree.root = 0
        self.tree.redraw()
        if sweep is None or mdp is None or len(sweep.values) != mdp.n_states:
            self.caption.setText(caption or "Not solved yet: press Step (value iteration: sweep k makes every "
                                            "belief k pulls from the horizon exact) or Run.")
            return
        self.caption.setText(f"{caption}  V(prior) = {float(sweep.values[0]):.4f}: the Bayes-optimal expected "
                             f"total reward.")

    def show_selection(self, state: int | None, successors: dict[int, float] | None = None) -> None:
        self.tree.selected = None if state is None else int(state)
        self.tree.redraw()

    def _tab_changed(self, index: int) -> None:
        on_gittins = self.tabs.widget(index) is self.gittins
        # the heatmap has its own colour bar: the window's, of the belief values, hides beside it
        self.has_color_bar = on_gittins
        self.scale_changed.emit(self.scale)
        if on_gittins and self.gittins.table is None and not self.gittins.running:
            self.gittins.start()


class BanditGame(Game):
    """The Bernoulli bandit's belief MDP: the tree and the Gittins heatmap; arms, pulls and prior in the Game dock."""

    spec = SPEC

    def __init__(self, session: GameSession | None = None, parent: QObject | None = None) -> None:
        super().__init__(session, parent)
        self._board: BanditBoard | None = None
        self._editor: BanditEditor | None = None

    @property
    def settings(self) -> bd.BanditSettings:
        return self.session.settings

    def board_widget(self) -> BanditBoard:
        if self._board is None:
            self._board = BanditBoard(self)
        return self._board

    def editor(self) -> QWidget:
        if self._editor is None:
            self._editor = BanditEditor(self)
        return self._editor

    def refresh_editor(self) -> None:
        if self._editor is not None:
            self._editor.sync()


class BanditEditor(QWidget):
    """Arms, pulls and the Beta prior (the discount is the Solver panel's)."""

    def __init__(self, game: BanditGame, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.game = game
        self.setObjectName("banditEditor")
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.arms = _named(QSpinBox(), "banditArms", "Arms")
        self.arms.setRange(1, bd.MAX_ARMS)
        self.arms.setToolTip("Arms of the bandit, each paying 1 or 0")
        form.addRow("Arms", self.arms)
        self.horizon = _named(QSpinBox(), "banditHorizon", "Pulls")
        self.horizon.setRange(1, 1_000)
        self.horizon.setToolTip(f"Pulls in all; the beliefs after the last are terminal (at most {bd.MAX_BELIEFS:,} beliefs)")
        form.addRow("Pulls", self.horizon)
        self.a = _named(QDoubleSpinBox(), "banditPriorA", "Prior a")
        self.b = _named(QDoubleSpinBox(), "banditPriorB", "Prior b")
        for w in (self.a, self.b):
            w.setRange(0.1, 100.0)
            w.setDecimals(2)
            w.setSingleStep(0.5)
            w.setKeyboardTracking(False)
        self.a.setToolTip("Beta(a, b) prior of every arm: a counts as a successes seen before the first pull")
        self.b.setToolTip("Beta(a, b) prior of every arm: b counts as b failures seen before the first pull")
        form.addRow("Prior a", self.a)
        form.addRow("Prior b", self.b)
        help_ = QLabel("The belief MDP: a state is what the agent has seen. Step value iteration: the horizon's "
                       "number of sweeps solves it; the tree marks each belief's Bayes-optimal pull.")
        help_.setWordWrap(True)
        form.addRow(help_)
        self.arms.editingFinished.connect(lambda: self.game.set_settings(arms=int(self.arms.value())))
        self.horizon.editingFinished.connect(lambda: self.game.set_settings(horizon=int(self.horizon.value())))
        self.a.valueChanged.connect(lambda v: self.game.set_settings(prior=(float(v), float(self.game.settings.prior[1]))))
        self.b.valueChanged.connect(lambda v: self.game.set_settings(prior=(float(self.game.settings.prior[0]), float(v))))
        game.session.edited.connect(lambda _t: self.sync())
        self.sync()

    def sync(self) -> None:
        settings = self.game.settings
        widgets = (self.arms, self.horizon, self.a, self.b)
        for w in widgets:
            w.blockSignals(True)
        self.arms.setValue(int(settings.arms))
        self.horizon.setValue(int(settings.horizon))
        self.a.setValue(float(settings.prior[0]))
        self.b.setValue(float(settings.prior[1]))
        for w in widgets:
            w.blockSignals(False)


VIEW = BanditGame
"""This game's view (the registry finds it here by the game's key)."""
