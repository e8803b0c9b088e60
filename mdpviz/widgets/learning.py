"""Learning from experience in the window: the learner's settings and its learning curves.

:class:`LearningPanel` holds the parameters of a learner of :mod:`mdpviz.solvers.learning` (step
size, exploration, n, the policy prediction evaluates, exploring starts, optimistic start, step cap,
seed, episodes) and what the board shows of it (learned / exact / error / visits); it sits in the
solver panel, shown when the algorithm picker holds a learner. :class:`LearningCurves` takes the
convergence dock's place while a learner runs: error to the exact answer (log scale), share of
optimal greedy actions, return per episode (moving average) against the exact expected return, and
the exact value of the learned greedy policy. Both only show and emit; the window passes requests to
the controller, which runs the learner on its solver thread.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from mdpviz.solvers import registry
from mdpviz.solvers.approximation import BOARD_MODES as APPROX_MODES
from mdpviz.solvers.approximation import ApproxSettings
from mdpviz.solvers.features import parse_features
from mdpviz.solvers.learning import (
    BOARD_MODES,
    LEARNERS,
    MAX_EPISODES,
    LearningSettings,
    LearningStep,
    parse_alpha,
)
from mdpviz.widgets import named as _named
from mdpviz.widgets.convergence import IntegerAxis, RoomyAxis, ZeroLogAxis, fit_legend_row, legend_above, log_safe, set_axes_font, set_legend_font

MODE_LABELS = {"learned": "learned values", "exact": "exact values", "error": "error: learned \u2212 exact",
               "visits": "visit counts"}
"""The board toggle's choices (one per :data:`~mdpviz.solvers.learning.BOARD_MODES`)."""
APPROX_MODE_LABELS = {"approximate": "approximate values", "exact": "exact values", "td": "TD fixed point",
                      "best": "best fit", "error": "error: approximate \u2212 exact", "visits": "visit counts"}
"""The board toggle's choices for a learner with function approximation (:data:`~mdpviz.solvers.approximation.BOARD_MODES`)."""
APPROXIMATORS = registry.ids_where("approximation")
"""The learners with linear function approximation (issue 36), listed after the tabular learners."""
POLICY_GRADIENTS = registry.ids_where("policy-gradient")
"""The policy-gradient learners (issue 37), listed after the approximation ones; they take the Features picker's
features (stacked per action) and two step sizes, alpha_theta and alpha_w."""
PLANNERS = registry.ids_where("planning")
"""The planning methods with a learned model (Dyna-Q, Dyna-Q+: issue 38), listed after the policy gradients; they
take the panel's step size, epsilon, initial value, step cap, seed and episodes, and n, kappa and a real-step budget."""
PG_MODE_LABELS = {"probability": "policy probabilities", "value": "exact v\u03c0 of the policy", "visits": "visit counts"}
"""The board toggle's choices for a policy-gradient learner (see :class:`mdpviz.window.policy_gradient.PGView`)."""
FEATURE_EXAMPLES = {"tabular": "tabular", "aggregate": "aggregate:10", "tiles": "tiles:8:0.125", "poly": "poly:5",
                    "fourier": "fourier:5", "file": "file:features.csv", "game": "game"}
"""The Features picker's entry of each kind (its numbers editable in place)."""


def learns(method: str | None) -> bool:
    """True for a learner from experience: tabular (:data:`LEARNERS`) or with function approximation."""
    return method in LEARNERS or method in APPROXIMATORS or method in POLICY_GRADIENTS or method in PLANNERS

MOVING_AVERAGE = 100
"""Episodes in the moving average of the return curve."""


def moving_average(x: np.ndarray, window: int) -> np.ndarray:
    """Mean of the last ``window`` values at each index (fewer at the start)."""
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return x
    c = np.concatenate(([0.0], np.cumsum(x)))
    idx = np.arange(1, x.size + 1)
    lo = np.maximum(idx - window, 0)
    return (c[idx] - c[lo]) / (idx - lo)


class LearningPanel(QWidget):
    """A learner's settings and the board toggle (part of the solver panel)."""

    settings_changed = Signal()
    mode_changed = Signal(str)
    invalid_input = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("learningPanel")
        d = LearningSettings()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        top = QFormLayout()
        self.mode_picker = _named(QComboBox(), "learningMode", "Board shows")
        for m in BOARD_MODES:
            self.mode_picker.addItem(MODE_LABELS[m], m)
        self.mode_picker.setToolTip("What the board shows: the learned values, the exact ones (same colour scale), "
                                    "their difference, or how often each state was visited")
        top.addRow("Board shows", self.mode_picker)
        self.unit = _named(QComboBox(), "learningStepUnit", "Step unit")
        self.unit.addItem("one episode", "episode")
        self.unit.addItem("one transition", "transition")
        self.unit.setToolTip("What Step does: learn one whole episode, or show the next transition and its update "
                             "(TD(0), SARSA, Expected SARSA and Q-learning: the episode replayed one update at a time)")
        top.addRow("Step", self.unit)
        lay.addLayout(top)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.alpha = _named(QLineEdit(""), "learningAlpha", "Step size")
        self.alpha.setPlaceholderText("default: 0.1 (Monte Carlo: 1/n)")
        self.alpha.setToolTip("Step size: a number in (0, 1], 1/n (sample averages) or 1/n^w (e.g. 1/n^0.8); "
                              "n counts the updates of that entry")
        form.addRow("Step size \u03b1", self.alpha)
        self.alpha_theta = _named(QLineEdit(""), "learningAlphaTheta", "Policy step size alpha theta")
        self.alpha_w = _named(QLineEdit(""), "learningAlphaW", "Critic step size alpha w")
        self.alpha_theta.setToolTip("Policy gradient: the policy's step size \u03b1\u03b8 (a positive number; "
                                    "empty: the learner's default)")
        self.alpha_w.setToolTip("Policy gradient: the baseline's or critic's step size \u03b1w (empty: the default)")
        self.alpha_theta.setPlaceholderText("\u03b1\u03b8: default")
        self.alpha_w.setPlaceholderText("\u03b1w: default")
        self.pg_alphas = QWidget()
        row = QHBoxLayout(self.pg_alphas)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.alpha_theta)
        row.addWidget(self.alpha_w)
        form.addRow("\u03b1\u03b8, \u03b1w", self.pg_alphas)
        self._form = form
        form.setRowVisible(self.pg_alphas, False)
        self.features = _named(QComboBox(), "learningFeatures", "Features")
        self.features.setEditable(True)
        self.features.setToolTip("Function approximation: the features x(s), a kind and its numbers (aggregate:G "
                                 "groups, tiles:T:W tilings and width, poly:K, fourier:K, file:PATH of a CSV); edit "
                                 "the numbers in place")
        form.addRow("Features", self.features)
        self._features_text = "tabular"
        self.set_feature_kinds(("tabular", "aggregate", "file"))
        self.epsilon = self._spin("learningEpsilon", "Epsilon", 0.0, 1.0, d.epsilon, 0.05, 3)
        self.epsilon.setToolTip("Probability of a random legal action (control)")
        self.decay = self._spin("learningDecay", "Epsilon decay", 0.5, 1.0, d.epsilon_decay, 0.001, 4)
        self.decay.setToolTip("Epsilon is multiplied by this after every episode (1: constant) ...")
        self.floor = self._spin("learningFloor", "Epsilon floor", 0.0, 1.0, d.epsilon_min, 0.01, 3)
        self.floor.setToolTip("... down to this floor")
        row = QHBoxLayout()
        for w in (self.epsilon, self.decay, self.floor):
            row.addWidget(w)
        form.addRow("\u03b5, decay, floor", row)
        self.n = _named(QSpinBox(), "learningN", "n of n-step TD")
        self.n.setRange(1, 100)
        self.n.setValue(d.n)
        self.policy = _named(QComboBox(), "learningPolicy", "Policy evaluated")
        self.policy.addItem("optimal", "optimal")
        self.policy.addItem("random", "random")
        self.policy.setToolTip("Prediction: the policy whose values are learned")
        row = QHBoxLayout()
        row.addWidget(self.n)
        row.addWidget(self.policy, 1)
        form.addRow("n, policy", row)
        self.explore = _named(QCheckBox("exploring starts"), "learningExploring", "Exploring starts")
        self.explore.setToolTip("Control: every episode starts in a random state with a random first action")
        self.initial = self._spin("learningInitial", "Initial value", -1e6, 1e6, d.initial, 0.5, 2)
        self.initial.setToolTip("Initial Q (or V); a high value is optimistic and makes the greedy policy explore")
        self.expected = _named(QCheckBox("expected update"), "learningExpected", "Expected update")
        self.expected.setToolTip("Off-policy TD, TDC and semi-gradient TD: run the expected update (no sampling; "
                                 "one step per episode), as the book's figures 11.2 and 11.5 draw it")
        row = QHBoxLayout()
        row.addWidget(self.explore)
        row.addWidget(self.expected)
        row.addWidget(self.initial, 1)
        form.addRow("Start", row)
        self.max_steps = _named(QSpinBox(), "learningMaxSteps", "Max steps per episode")
        self.max_steps.setRange(1, 1_000_000)
        self.max_steps.setValue(d.max_steps)
        self.seed = _named(QSpinBox(), "learningSeed", "Seed")
        self.seed.setRange(0, 2_000_000_000)
        self.seed.setValue(d.seed)
        row = QHBoxLayout()
        row.addWidget(self.max_steps, 1)
        row.addWidget(self.seed, 1)
        form.addRow("Max steps, seed", row)
        self.planning_steps = _named(QSpinBox(), "learningPlanningSteps", "Planning updates per real step")
        self.planning_steps.setRange(0, 100_000)
        self.planning_steps.setValue(5)
        self.planning_steps.setToolTip("Dyna: n planning updates from the learned model after each real step (0: "
                                       "Q-learning)")
        self.kappa = self._spin("learningKappa", "Dyna-Q+ kappa", 0.0, 10.0, 1e-3, 1e-3, 5)
        self.kappa.setToolTip("Dyna-Q+: a planning update's reward is R + \u03ba \u221a\u03c4, \u03c4 the real "
                              "steps since (S, A) was last tried")
        self.total_steps = _named(QSpinBox(), "learningTotalSteps", "Real steps in all")
        self.total_steps.setRange(0, 2_000_000_000)
        self.total_steps.setSpecialValueText("episodes")
        self.total_steps.setToolTip("Dyna: stop after this many real steps in all (figures 8.4-8.5: 3000, 6000); "
                                    "\u201cepisodes\u201d: run the episodes")
        self.planning_row = QWidget()
        row = QHBoxLayout(self.planning_row)
        row.setContentsMargins(0, 0, 0, 0)
        for w in (self.planning_steps, self.kappa, self.total_steps):
            row.addWidget(w, 1)
        form.addRow("n, \u03ba, steps", self.planning_row)
        form.setRowVisible(self.planning_row, False)
        self.episodes = _named(QSpinBox(), "learningEpisodes", "Episodes")
        self.episodes.setRange(1, min(MAX_EPISODES, 2_000_000_000))
        self.episodes.setValue(10_000)
        self.episodes.setToolTip("Episodes Run learns for (Step: one episode)")
        form.addRow("Episodes", self.episodes)
        lay.addLayout(form)
        lay.addStretch(1)  # (the rows at the top of the scroll area, not spread over it)
        self._mode = "learned"
        self.mode_picker.currentIndexChanged.connect(self._on_mode)
        self.alpha.editingFinished.connect(self._on_alpha)
        self.features.lineEdit().editingFinished.connect(self._on_features)
        self.features.activated.connect(lambda _i: self._on_features())
        self._alpha_text = ""
        for w in (self.alpha_theta, self.alpha_w):
            w.editingFinished.connect(self._on_pg_alpha)
        self._pg_alphas = ("", "")
        for w in (self.epsilon, self.decay, self.floor, self.initial):
            w.valueChanged.connect(lambda _v: self.settings_changed.emit())
        for w in (self.n, self.max_steps, self.seed, self.episodes, self.planning_steps, self.total_steps, self.kappa):
            w.valueChanged.connect(lambda _v: self.settings_changed.emit())
        self.policy.currentIndexChanged.connect(lambda _i: self.settings_changed.emit())
        self.explore.toggled.connect(lambda _on: self.settings_changed.emit())
        self.expected.toggled.connect(lambda _on: self.settings_changed.emit())

    def _spin(self, name: str, label: str, lo: float, hi: float, value: float, step: float,
              decimals: int) -> QDoubleSpinBox:
        w = _named(QDoubleSpinBox(), name, label)
        w.setRange(lo, hi)
        w.setDecimals(decimals)
        w.setSingleStep(step)
        w.setValue(value)
        w.setKeyboardTracking(False)
        return w

    def _on_alpha(self) -> None:
        text = self.alpha.text().strip()
        if text == self._alpha_text:
            return
        if text:
            try:
                a, _w = parse_alpha(text)
                if not 0 < a <= 1:
                    raise ValueError(f"step size {text!r}: give a number in (0, 1], 1/n or 1/n^w")
            except ValueError as e:
                self.alpha.setText(self._alpha_text)
                self.invalid_input.emit(str(e))
                return
        self._alpha_text = text
        self.settings_changed.emit()

    def _on_pg_alpha(self) -> None:
        texts = (self.alpha_theta.text().strip(), self.alpha_w.text().strip())
        if texts == self._pg_alphas:
            return
        for name, text in zip(("alpha_theta", "alpha_w"), texts):
            try:
                if text and not float(text) > 0:
                    raise ValueError
            except ValueError:
                self.alpha_theta.setText(self._pg_alphas[0])
                self.alpha_w.setText(self._pg_alphas[1])
                self.invalid_input.emit(f"{name}: give a positive number, got {text!r}")
                return
        self._pg_alphas = texts
        self.settings_changed.emit()

    def set_feature_kinds(self, kinds, default: str = "") -> None:
        """The kinds of features the game offers (:func:`~mdpviz.solvers.features.kinds_for`), ``default``
        (e.g. "tiles:8:0.125"; "": "tabular") chosen."""
        first = default or "tabular"
        items = [first] + [FEATURE_EXAMPLES[k] for k in kinds if FEATURE_EXAMPLES[k] != first]
        self.features.blockSignals(True)
        self.features.clear()
        self.features.addItems(items)
        self.features.setCurrentIndex(0)
        self.features.blockSignals(False)
        self._features_text = first

    def _on_features(self) -> None:
        text = self.features.currentText().strip()
        if text == self._features_text:
            return
        try:
            parse_features(text)
        except ValueError as e:
            self.features.setEditText(self._features_text)
            self.invalid_input.emit(str(e))
            return
        self._features_text = text
        self.settings_changed.emit()

    def set_features(self, text: str) -> None:
        """Choose the features ``text`` (ValueError starting "features:" when it is not a spec)."""
        parse_features(text)
        if text != self._features_text:
            self._show_features(text)
            self.settings_changed.emit()

    def _show_features(self, text: str) -> None:
        self.features.blockSignals(True)
        if self.features.findText(text) < 0:
            self.features.addItem(text)
        self.features.setCurrentIndex(self.features.findText(text))
        self.features.blockSignals(False)
        self._features_text = text

    @property
    def features_text(self) -> str:
        """The Features picker's spec (checked by :func:`~mdpviz.solvers.features.parse_features`)."""
        return self._features_text

    def _on_mode(self, i: int) -> None:
        m = str(self.mode_picker.itemData(i))
        if m != self._mode:
            self._mode = m
            self.mode_changed.emit(m)

    @property
    def mode(self) -> str:
        """What the board shows: one of :data:`~mdpviz.solvers.learning.BOARD_MODES`."""
        return self._mode

    def set_mode(self, mode: str) -> None:
        i = self.mode_picker.findData(mode)
        if i < 0:
            raise ValueError(f"unknown board mode {mode!r}; choose one of {', '.join(BOARD_MODES)}")
        self.mode_picker.setCurrentIndex(i)

    @property
    def step_unit(self) -> str:
        """What Step does: "episode" or "transition"."""
        return str(self.unit.currentData())

    def show_method(self, method: str) -> None:
        """Enable the fields ``method`` uses."""
        spec = registry.find(method)
        takes = spec.takes if spec is not None else (lambda _name: False)
        for w, name in ((self.epsilon, "epsilon"), (self.decay, "epsilon_decay"), (self.floor, "epsilon_min"),
                        (self.explore, "exploring_starts")):
            w.setEnabled(takes(name))
        self.policy.setEnabled(takes("policy"))
        self.n.setEnabled(takes("n"))
        pg = method in POLICY_GRADIENTS
        approx = method in APPROXIMATORS or pg
        self._form.setRowVisible(self.planning_row, method in PLANNERS)
        self.kappa.setEnabled(takes("kappa"))
        self.features.setEnabled(approx)
        self._form.setRowVisible(self.pg_alphas, pg)
        self._form.setRowVisible(self.alpha, not pg)
        self.expected.setEnabled(takes("expected"))
        self.alpha.setPlaceholderText("default: 0.1 / mean x\u1d40x (constant)" if approx else
                                      "default: 0.1 (Monte Carlo: 1/n)")
        for w in (self.explore, self.initial):
            w.setEnabled(w.isEnabled() and not approx)
        modes, labels = ((tuple(PG_MODE_LABELS), PG_MODE_LABELS) if pg else (APPROX_MODES, APPROX_MODE_LABELS)
                         if approx else (BOARD_MODES, MODE_LABELS))
        if tuple(self.mode_picker.itemData(i) for i in range(self.mode_picker.count())) != tuple(modes):
            self.mode_picker.blockSignals(True)
            self.mode_picker.clear()
            for m in modes:
                self.mode_picker.addItem(labels[m], m)
            self.mode_picker.blockSignals(False)
            self._on_mode(0)

    def scenario_settings(self) -> dict:
        """The learner's settings as a scenario saves them (plain JSON: the step size as its text)."""
        out: dict = {"episodes": int(self.episodes.value()), "epsilon": float(self.epsilon.value()),
                     "epsilon_decay": float(self.decay.value()), "epsilon_min": float(self.floor.value()),
                     "n": int(self.n.value()), "policy": str(self.policy.currentData()),
                     "exploring_starts": bool(self.explore.isChecked()), "max_steps": int(self.max_steps.value()),
                     "initial": float(self.initial.value()), "seed": int(self.seed.value()),
                     "features": self._features_text, "expected": bool(self.expected.isChecked())}
        for key, w, default in (("planning_steps", self.planning_steps, 5), ("kappa", self.kappa, 1e-3),
                                ("total_steps", self.total_steps, 0)):  # (written when set: older files stay as they were)
            if w.value() != default:
                out[key] = w.value()
        if self._alpha_text:
            out["alpha"] = self._alpha_text
        for key, text in zip(("alpha_theta", "alpha_w"), self._pg_alphas):
            if text:
                out[key] = text
        return out

    def set_scenario_settings(self, data: dict) -> None:
        """Show what :meth:`scenario_settings` saved (a field left out keeps the panel's default).
        ValueError naming the field for a value out of its range or of the wrong type."""
        d = LearningSettings()
        spins = {"episodes": (self.episodes, 10_000, int), "epsilon": (self.epsilon, d.epsilon, float),
                 "epsilon_decay": (self.decay, d.epsilon_decay, float), "epsilon_min": (self.floor, d.epsilon_min, float),
                 "n": (self.n, d.n, int), "max_steps": (self.max_steps, d.max_steps, int),
                 "initial": (self.initial, d.initial, float), "seed": (self.seed, d.seed, int),
                 "planning_steps": (self.planning_steps, 5, int), "kappa": (self.kappa, 1e-3, float),
                 "total_steps": (self.total_steps, 0, int)}
        unknown = sorted(set(data) - set(spins) - {"policy", "exploring_starts", "alpha", "features", "expected",
                                                   "alpha_theta", "alpha_w"})
        if unknown:
            raise ValueError(f"{unknown[0]}: not a setting of the learners")
        values = {}
        for key, (w, default, kind) in spins.items():
            v = data.get(key, default)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or (kind is int and v != int(v)):
                raise ValueError(f"{key}: must be {'a whole number' if kind is int else 'a number'}, got {v!r}")
            if not w.minimum() <= v <= w.maximum():
                raise ValueError(f"{key}: {v!r} is out of range {w.minimum():g}..{w.maximum():g}")
            values[key] = kind(v)
        policy = data.get("policy", "optimal")
        if self.policy.findData(policy) < 0:
            raise ValueError(f"policy: {policy!r} is not one of optimal, random")
        explore = data.get("exploring_starts", False)
        if not isinstance(explore, bool):
            raise ValueError(f"exploring_starts: must be true or false, got {explore!r}")
        features = data.get("features", self._features_text)
        if not isinstance(features, str):
            raise ValueError(f"features: must be a string such as \"tiles:8:0.125\", got {features!r}")
        parse_features(features)  # (its ValueError starts "features:")
        expected = data.get("expected", False)
        if not isinstance(expected, bool):
            raise ValueError(f"expected: must be true or false, got {expected!r}")
        pg_alphas = tuple(data.get(key, "") for key in ("alpha_theta", "alpha_w"))
        for key, text in zip(("alpha_theta", "alpha_w"), pg_alphas):
            try:
                if not isinstance(text, str) or (text and not 0 < float(text) <= 1):
                    raise ValueError
            except ValueError:
                raise ValueError(f"{key}: must be a string holding a step size in (0, 1], got {text!r}") from None
        alpha = data.get("alpha", "")
        if not isinstance(alpha, str):
            raise ValueError(f"alpha: must be a string such as \"0.1\" or \"1/n^0.8\", got {alpha!r}")
        if alpha:
            a, _w = parse_alpha(alpha)
            if not 0 < a <= 1:
                raise ValueError(f"alpha: step size {alpha!r}: give a number in (0, 1], 1/n or 1/n^w")
        widgets = [w for w, _d, _k in spins.values()] + [self.policy, self.explore, self.expected, self.features,
                                                          self.alpha_theta, self.alpha_w]
        for w in widgets:  # one change signal at the end, not one reset per field
            w.blockSignals(True)
        try:
            for key, (w, _d, _k) in spins.items():
                w.setValue(values[key])
            self.policy.setCurrentIndex(self.policy.findData(policy))
            self.explore.setChecked(explore)
            self.expected.setChecked(expected)
            self._show_features(features)
            self.alpha_theta.setText(pg_alphas[0])
            self.alpha_w.setText(pg_alphas[1])
            self._pg_alphas = pg_alphas
            self.alpha.setText(alpha)
            self._alpha_text = alpha
        finally:
            for w in widgets:
                w.blockSignals(False)
        self.settings_changed.emit()

    def options(self, method: str, start: int) -> dict:
        """The learner's options (fields of :class:`~mdpviz.solvers.learning.LearningSettings`) for ``method``
        from state ``start``; ValueError when they do not make a valid learner."""
        opts: dict = {"episodes": int(self.episodes.value()), "epsilon": float(self.epsilon.value()),
                      "epsilon_decay": float(self.decay.value()), "epsilon_min": float(self.floor.value()),
                      "n": int(self.n.value()), "policy": str(self.policy.currentData()),
                      "exploring_starts": bool(self.explore.isChecked()), "max_steps": int(self.max_steps.value()),
                      "initial": float(self.initial.value()), "seed": int(self.seed.value()), "start": int(start)}
        if method in APPROXIMATORS:
            return self._approx_options(method, opts)
        if method in POLICY_GRADIENTS:
            return self._pg_options(method, opts)
        if method in PLANNERS:
            return self._planning_options(method, opts)
        if self._alpha_text:
            opts["alpha"], opts["alpha_power"] = parse_alpha(self._alpha_text)
        LearningSettings(method=method, **opts)  # checked here: a bad field is one line in the status bar
        return opts


    def _approx_options(self, method: str, opts: dict) -> dict:
        """The options of a learner with function approximation (its registry line's parameters among the
        panel's fields, and the Features picker's spec); ValueError when they do not make a valid learner."""
        spec = registry.get(method)
        out = {k: v for k, v in opts.items() if spec.takes(k) or k in ("episodes", "max_steps", "seed", "start")}
        out["features"] = self._features_text
        if spec.takes("expected"):
            out["expected"] = bool(self.expected.isChecked())
        if self._alpha_text:
            a, power = parse_alpha(self._alpha_text)
            if power:
                raise ValueError(f"step size {self._alpha_text!r}: the weights take a constant step size")
            out["alpha"] = a
        ApproxSettings(method=method, **out)
        return out


    def _planning_options(self, method: str, opts: dict) -> dict:
        """The options of a planning method (Dyna): its registry line's parameters among the panel's fields, a
        constant step size; ValueError when they do not make a valid run."""
        from mdpviz.solvers.dyna import DynaSettings

        spec = registry.get(method)
        out = {k: v for k, v in opts.items() if spec.takes(k) or k in ("episodes", "max_steps", "seed", "start", "initial")}
        out["planning_steps"] = int(self.planning_steps.value())
        if spec.takes("kappa"):
            out["kappa"] = float(self.kappa.value())
        if self.total_steps.value():
            out["total_steps"] = int(self.total_steps.value())
        if self._alpha_text:
            a, power = parse_alpha(self._alpha_text)
            if power:
                raise ValueError(f"step size {self._alpha_text!r}: Dyna takes a constant step size")
            out["alpha"] = a
        DynaSettings(method=method, bonus=spec.takes("kappa"), **out)
        return out

    def _pg_options(self, method: str, opts: dict) -> dict:
        """The options of a policy-gradient learner: its registry line's parameters among the panel's fields,
        the Features picker's spec and the two step sizes; ValueError when they do not make a valid learner."""
        from mdpviz.solvers.policy_gradient import PGSettings

        spec = registry.get(method)
        out = {k: v for k, v in opts.items() if spec.takes(k) or k in ("episodes", "max_steps", "seed", "start")}
        out["features"] = self._features_text
        for key, text in zip(("alpha_theta", "alpha_w"), self._pg_alphas):
            if text and spec.takes(key):
                out[key] = float(text)
        PGSettings(method=method, **out)
        return out


class LearningCurves(QWidget):
    """The learning curves of one learner's snapshots (the convergence dock while a learner runs).

    Three plots over episodes: the error of the learned V to the exact answer (RMS and largest over every
    non-terminal state, visited or not, as the learner measures them: the legend says so; the window's
    caption gives them over the visited states, log scale); the share of states whose learned greedy action is optimal (control); the return of each
    episode as a moving average, beside the exact expected return from the start and the exact value of
    the learned greedy policy where it was evaluated. Points are appended as snapshots arrive
    (:meth:`extend`) and drawn at :meth:`refresh` (the window's frame rate).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("learningCurves")
        self.setAccessibleName("Learning curves")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.view = pg.GraphicsLayoutWidget()
        self.view.setBackground("w")
        lay.addWidget(self.view)
        dash = pg.QtCore.Qt.PenStyle.DashLine
        self.err_plot = self._plot(0, "error of V (log)", ZeroLogAxis("left"))
        self.err_plot.setLogMode(y=True)
        self.err_legend = legend_above(self.err_plot, columns=2)  # (a legend never over the curves)
        self.rms_curve = self.err_plot.plot([], [], pen=pg.mkPen("#1f77b4", width=2), name="RMS to exact, all states")
        self.max_curve = self.err_plot.plot([], [], pen=pg.mkPen("#d62728", width=1.5, style=dash), name="largest, all states")
        self.agree_plot = self._plot(1, "greedy action optimal")
        self.agree_plot.setYRange(0.0, 1.0)
        self.agree_legend = legend_above(self.agree_plot, columns=1)  # (what "share" means: one line)
        self.agree_curve = self.agree_plot.plot([], [], pen=pg.mkPen("#2ca02c", width=2),
                                                name="share of states")
        self.ret_plot = self._plot(2, "return")
        self.ret_legend = legend_above(self.ret_plot, columns=1)
        self.ret_curve = self.ret_plot.plot([], [], pen=pg.mkPen("#9467bd", width=2),
                                            name=f"per episode, mean of {MOVING_AVERAGE}")
        self.pv_curve = self.ret_plot.plot([], [], pen=None, symbol="o", symbolSize=6, symbolBrush="#ff7f0e",
                                           symbolPen=None, name="greedy policy's exact value")
        self.exact_line = pg.InfiniteLine(angle=0, pen=pg.mkPen("#444444", width=1.5, style=pg.QtCore.Qt.PenStyle.DotLine))
        self.ret_plot.addItem(self.exact_line)
        for leg, items in ((self.err_legend, (self.rms_curve, self.max_curve)), (self.agree_legend, (self.agree_curve,)),
                           (self.ret_legend, (self.ret_curve, self.pv_curve))):
            for item in items:
                leg.addItem(item, item.name())
        self.ret_legend.addItem(pg.PlotDataItem(pen=self.exact_line.pen), "exact expected (optimal)")
        for p, leg in self._legends():
            fit_legend_row(p, leg)
        for p in (self.agree_plot, self.ret_plot):
            p.setXLink(self.err_plot)
        self.cursor = pg.InfiniteLine(angle=90, pen=pg.mkPen("#888888", width=1))
        self.cursor.setVisible(False)
        self.err_plot.addItem(self.cursor)
        self.reset()

    def _plot(self, col: int, label: str, left: pg.AxisItem | None = None) -> pg.PlotItem:
        """One of the three plots, side by side (the dock is wide and short), over episodes."""
        p = self.view.addPlot(row=0, col=col, axisItems={"left": left or RoomyAxis("left"),
                                                          "bottom": IntegerAxis("bottom")})
        p.setLabel("left", label)
        p.setLabel("bottom", "episode")
        p.showGrid(x=True, y=True, alpha=0.2)
        p.getAxis("left").enableAutoSIPrefix(False)
        p.getAxis("bottom").enableAutoSIPrefix(False)
        return p

    def reset(self, *, control: bool = True, exact_return: float | None = None) -> None:
        """Forget every point (a new learner); ``control``: it learns Q (else the share of optimal actions
        is not defined); ``exact_return``: the exact expected return from the start (V* or V of the policy)."""
        self.control = control
        self._ep: list[int] = []
        self._rms: list[float] = []
        self._max: list[float] = []
        self._agree: list[float] = []
        self._ret_ep: list[float] = []
        self._ret: list[float] = []
        self._pv_ep: list[float] = []
        self._pv: list[float] = []
        self.exact_return = exact_return
        self.pv_curve.setVisible(control)
        self.agree_legend.items[0][1].setText("share of states" if control else "(prediction: no policy)")
        self.stale = True

    def set_exact_return(self, value: float | None) -> None:
        self.exact_return = value
        self.stale = True

    def extend(self, steps: Sequence[LearningStep]) -> None:
        """Append the points of these snapshots (in order)."""
        for step in steps:
            self._ep.append(step.episode)
            self._rms.append(step.rms_error)
            self._max.append(step.max_error)
            self._agree.append(step.greedy_agreement)
            first = step.episode - len(step.returns) + 1
            self._ret_ep.extend(range(first, step.episode + 1))
            self._ret.extend(step.returns)
            if step.policy_value is not None and math.isfinite(step.policy_value):
                self._pv_ep.append(step.episode)
                self._pv.append(step.policy_value)
        self.stale = bool(steps) or self.stale

    @property
    def point_count(self) -> int:
        """Snapshots drawn."""
        return len(self._ep)

    def curves(self) -> dict[str, np.ndarray]:
        """The plotted data: episode, rms, max, agreement, return moving average, policy values."""
        return {"episode": np.asarray(self._ep, float), "rms": np.asarray(self._rms), "max": np.asarray(self._max),
                "agreement": np.asarray(self._agree), "return_episode": np.asarray(self._ret_ep, float),
                "return_mean": moving_average(np.asarray(self._ret), MOVING_AVERAGE),
                "policy_episode": np.asarray(self._pv_ep, float), "policy_value": np.asarray(self._pv)}

    def set_font_size(self, px: int) -> None:
        """Axis, title and legend font size in pixels (presenter mode)."""
        for p, leg in self._legends():
            set_axes_font((p,), px)
            set_legend_font(p, leg, max(11, int(px * 0.8)))

    def _legends(self) -> tuple:
        return ((self.err_plot, self.err_legend), (self.agree_plot, self.agree_legend), (self.ret_plot, self.ret_legend))

    def set_cursor(self, episode: int | None) -> None:
        """A vertical line at the history slider's episode (None: following the newest)."""
        self.cursor.setVisible(episode is not None)
        if episode is not None:
            self.cursor.setValue(episode)

    def refresh(self) -> None:
        """Draw the points appended since the last refresh."""
        if not self.stale:
            return
        self.stale = False
        c = self.curves()
        x = c["episode"]
        self.rms_curve.setData(x, log_safe(c["rms"]))
        self.max_curve.setData(x, log_safe(c["max"]))
        if self.control:
            self.agree_curve.setData(x, c["agreement"])
        else:
            self.agree_curve.setData([], [])
        self.ret_curve.setData(c["return_episode"], c["return_mean"])
        self.pv_curve.setData(c["policy_episode"], c["policy_value"])
        self.exact_line.setVisible(self.exact_return is not None)
        if self.exact_return is not None:
            self.exact_line.setValue(self.exact_return)


__all__ = ["PLANNERS", "APPROXIMATORS", "APPROX_MODE_LABELS", "PG_MODE_LABELS", "POLICY_GRADIENTS", "LEARNERS", "LearningCurves", "add_learners", "LearningPanel", "MODE_LABELS",
           "MOVING_AVERAGE", "learns", "moving_average"]


def add_learners(combo: QComboBox) -> None:
    """Append the "learning from experience" group to an algorithm picker: a heading that cannot be
    chosen, then each learner of :data:`~mdpviz.solvers.learning.LEARNERS` (its id as the item's data)."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QStandardItemModel

    combo.insertSeparator(combo.count())
    combo.addItem("\u2014 learning from experience \u2014", None)
    model = combo.model()
    if isinstance(model, QStandardItemModel):
        item = model.item(combo.count() - 1)
        item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsSelectable & ~Qt.ItemFlag.ItemIsEnabled)
    for key, name in LEARNERS.items():
        combo.addItem(name, key)
        combo.setItemData(combo.count() - 1, f"{name}: learns from sampled episodes, beside the exact answer",
                          Qt.ItemDataRole.ToolTipRole)
    combo.addItem("\u2014 function approximation \u2014", None)
    if isinstance(model, QStandardItemModel):
        item = model.item(combo.count() - 1)
        item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsSelectable & ~Qt.ItemFlag.ItemIsEnabled)
    for key in APPROXIMATORS:
        combo.addItem(registry.title(key), key)
        combo.setItemData(combo.count() - 1, f"{registry.title(key)}: linear in the Features picker's features, "
                          "beside the exact answer and the fixed points", Qt.ItemDataRole.ToolTipRole)
    combo.addItem("\u2014 policy gradient \u2014", None)
    if isinstance(model, QStandardItemModel):
        item = model.item(combo.count() - 1)
        item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsSelectable & ~Qt.ItemFlag.ItemIsEnabled)
    for key in POLICY_GRADIENTS:
        combo.addItem(registry.title(key), key)
        combo.setItemData(combo.count() - 1, f"{registry.title(key)}: a softmax policy over the Features picker's "
                          "features, beside its exact value and gradient", Qt.ItemDataRole.ToolTipRole)
    combo.addItem("\u2014 planning with a model \u2014", None)
    if isinstance(model, QStandardItemModel):
        item = model.item(combo.count() - 1)
        item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsSelectable & ~Qt.ItemFlag.ItemIsEnabled)
    for key in PLANNERS:
        combo.addItem(registry.title(key), key)
        combo.setItemData(combo.count() - 1, f"{registry.title(key)}: learns from real steps and plans n updates "
                          "from its learned model after each, beside the exact answer", Qt.ItemDataRole.ToolTipRole)
