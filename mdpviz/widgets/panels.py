"""The solver panel (algorithm, discount, tolerance, Step / Evaluate / Improve / Run / Pause /
Reset, speed, history slider) and the inspector. They show state and emit requests; the window
passes the requests to the controller."""
from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSlider,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from mdpviz.models.kit.teaching.algorithms import convention_text
from mdpviz.solvers import registry
from mdpviz.solvers.sweep import Q_FROM, TIES
from mdpviz.models.kit.pictures.display import Inspection, inspection_html
from mdpviz.widgets import named as _named
from mdpviz.widgets.learning import LearningPanel, add_learners


def picker_methods() -> tuple[registry.MethodSpec, ...]:
    """The solvers in the picker, in registry order (their lines' ``in_panel``); the learners follow."""
    return tuple(s for s in registry.specs("solver") if s.in_panel)


def in_picker(method: str) -> bool:
    """True when ``method`` is one of the picker's solvers (:func:`picker_methods`)."""
    spec = registry.find(method)
    return spec is not None and spec.kind == "solver" and spec.in_panel


SCENARIO_OPTIONS = ("ties", "q_from", "sequence", "order", "theta")
"""The Solver panel's choices a scenario saves (under ``solver.options``, only those not at their default)."""


def uses_tolerance(method: str) -> bool:
    """True when ``method`` stops by the panel's tolerance (its registry line's ``uses_tol``; AIMA's sequence
    takes it as its epsilon)."""
    spec = registry.find(method)
    return spec is not None and spec.uses_tol

TIE_LABELS = {"tolerance": "ties \u2264 1e-9", "strict": "strict max"}
"""Short names of the tie rules (:data:`~mdpviz.solvers.sweep.TIES`) in the picker."""
Q_FROM_LABELS = {"previous": "\u03c0 \u2190 V(k\u22121)", "current": "\u03c0 \u2190 V(k)"}
"""Short names of the Q conventions (:data:`~mdpviz.solvers.sweep.Q_FROM`) in the picker."""




SPEEDS: tuple[tuple[str, float], ...] = (
    ("1 sweep/s", 1.0),
    ("2 sweeps/s", 2.0),
    ("5 sweeps/s", 5.0),
    ("10 sweeps/s", 10.0),
    ("30 sweeps/s", 30.0),
    ("100 sweeps/s", 100.0),
    ("as fast as possible", math.inf),
)
"""Run speeds offered by the solver panel: (label, sweeps per second; the controller's ``set_rate``)."""


def parse_tolerance(text: str) -> float:
    """A tolerance typed by the user: a positive finite number (e.g. "1e-9")."""
    try:
        x = float(text.strip())
    except ValueError:
        raise ValueError(f"tolerance '{text.strip()}' is not a number (write e.g. 1e-9)") from None
    if not (x > 0 and math.isfinite(x)):
        raise ValueError(f"tolerance must be a positive number, got {text.strip()}")
    return x


class SolverPanel(QWidget):
    """Solver settings and the stepping buttons."""

    method_changed = Signal(str)
    tolerance_changed = Signal(float)
    discount_changed = Signal(float)
    speed_changed = Signal(float)
    history_moved = Signal(int)
    invalid_input = Signal(str)
    options_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("solverPanel")
        lay = QVBoxLayout(self)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        # rows closer together than the style's default: the convention row fits without taking the
        # convergence plot's height in presenter mode at 1280 x 720
        form.setVerticalSpacing(3)
        self.algorithm = _named(QComboBox(), "algorithmPicker", "Algorithm")
        for spec in picker_methods():
            self.algorithm.addItem(spec.picker_title, spec.id)
        add_learners(self.algorithm)
        self.algorithm.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.algorithm.setMinimumContentsLength(14)
        self.algorithm.setToolTip("Value iteration (synchronous: Jacobi; in place: Gauss-Seidel), "
                                  "Howard policy iteration, linear programming (PuLP/CBC), asynchronous value "
                                  "iteration and prioritized sweeping (one state per Step, CS188 q4/q5), or "
                                  "iterative evaluation of the random policy (Sutton and Barto 4.1)")
        form.addRow("Algorithm", self.algorithm)
        # the method's own options, beside the tolerance (a row of their own made the panel too tall for
        # presenter mode at 1280 x 720): the update order (async-vi), theta (prioritized), AIMA's sequence (vi)
        self.order = _named(QComboBox(), "orderPicker", "Update order")
        self.order.addItem("in order", "index")
        self.order.addItem("random", "random")
        self.order.setToolTip("Asynchronous value iteration: which state each Step backs up (CS188 q4: in order)")
        self.theta = _named(QLineEdit("1e-05"), "thetaEdit", "Theta")
        self.theta.setToolTip("Prioritized sweeping: a predecessor is queued when its |V - max Q| exceeds \u03b8 (> 0)")
        self.sequence = _named(QComboBox(), "sequencePicker", "Value iteration sequence")
        self.sequence.addItem("standard", "standard")
        self.sequence.addItem("AIMA", "aima")
        self.sequence.setToolTip("AIMA: value iteration as aima-python runs it (U_0 = 0, terminal squares worth "
                                 "R(s) from sweep 1, its \u03b5(1\u2212\u03b3)/\u03b3 stopping rule; "
                                 "\u03b5 = the tolerance)")
        self.theta_label = QLabel("\u03b8")
        self.theta_label.setContentsMargins(4, 0, 2, 0)
        for w in (self.order, self.sequence):
            w.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            w.setMinimumContentsLength(6)
        conv_row = QHBoxLayout()
        conv_row.setContentsMargins(0, 0, 0, 0)
        self.ties = _named(QComboBox(), "tiePicker", "Tie rule")
        for k in TIES:
            self.ties.addItem(TIE_LABELS[k], k)
            self.ties.setItemData(self.ties.count() - 1, TIES[k], Qt.ItemDataRole.ToolTipRole)
        self.q_from = _named(QComboBox(), "qFromPicker", "Policy and Q view from")
        for k in Q_FROM:
            self.q_from.addItem(Q_FROM_LABELS[k], k)
            self.q_from.setItemData(self.q_from.count() - 1, Q_FROM[k], Qt.ItemDataRole.ToolTipRole)
        for w in (self.ties, self.q_from):
            w.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            w.setMinimumContentsLength(5)
            conv_row.addWidget(w, 1)
        # the pickers' own texts say the convention in force; its full sentence is their tooltip and the
        # lesson's (a line of text here made the panel too tall for presenter mode at 1280 x 720)
        self.convention = _named(QLabel("Convention"), "conventionNote", "Convention in force")
        form.addRow(self.convention, conv_row)
        self._conv_row = conv_row
        self.discount = _named(QDoubleSpinBox(), "discountEdit", "Discount")
        self.discount.setRange(0.0, 1.0)
        self.discount.setDecimals(4)
        self.discount.setSingleStep(0.01)
        self.discount.setKeyboardTracking(False)
        form.addRow("Discount \u03b3", self.discount)
        self.tolerance = _named(QLineEdit("1e-09"), "toleranceEdit", "Tolerance")
        self.tolerance.setToolTip("Value iteration stops when max |dV| of a sweep is below this")
        tol_row = QHBoxLayout()
        tol_row.setContentsMargins(0, 0, 0, 0)
        tol_row.addWidget(self.tolerance, 1)
        for w in (self.theta_label, self.theta, self.order, self.sequence):
            tol_row.addWidget(w, 0 if w is self.theta_label else 1)
        form.addRow("Tolerance", tol_row)
        self._tol_row = tol_row
        self.speed = _named(QComboBox(), "speedPicker", "Run speed")
        for label, rate in SPEEDS:
            self.speed.addItem(label, rate)
        self.speed.setCurrentIndex(len(SPEEDS) - 1)
        self.speed.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.speed.setMinimumContentsLength(10)
        form.addRow("Speed", self.speed)
        lay.addLayout(form)
        self._form = form
        self.learning = LearningPanel()
        """The learner's settings and the board toggle (shown while the picker holds a learner)."""
        # in a scroll area: the panel's rows must not make the solver dock (and so the window) taller than
        # a projector's 720 pixels in presenter mode
        self.learning_scroll = QScrollArea()
        self.learning_scroll.setObjectName("learningScroll")
        self.learning_scroll.setWidgetResizable(True)
        self.learning_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.learning_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.learning_scroll.setWidget(self.learning)
        self.learning_scroll.setMinimumHeight(60)
        self.learning_scroll.setVisible(False)
        lay.addWidget(self.learning_scroll, 1)

        grid = QGridLayout()
        self.step = _named(QPushButton("Step"), "stepButton", "Step one sweep")
        self.evaluate = _named(QPushButton("Evaluate"), "evaluateButton", "Evaluate the policy")
        self.improve = _named(QPushButton("Improve"), "improveButton", "Improve the policy")
        self.run = _named(QPushButton("Run"), "runButton", "Run to convergence")
        self.pause = _named(QPushButton("Pause"), "pauseButton", "Pause")
        self.reset = _named(QPushButton("Reset"), "resetButton", "Reset the solver")
        self.step.setToolTip("One sweep (Space); for policy iteration one full round: evaluate + improve")
        self.evaluate.setToolTip("Policy iteration: solve for the value of the current policy")
        self.improve.setToolTip("Policy iteration: make the policy greedy with respect to those values")
        self.run.setToolTip("Sweep until convergence at the chosen speed (R toggles run/pause)")
        self.pause.setToolTip("Pause the run (R or Esc)")
        self.reset.setToolTip("Start the solve again from the beginning")
        grid.addWidget(self.step, 0, 0)
        grid.addWidget(self.evaluate, 0, 1)
        grid.addWidget(self.improve, 0, 2)
        grid.addWidget(self.run, 1, 0)
        grid.addWidget(self.pause, 1, 1)
        grid.addWidget(self.reset, 1, 2)
        lay.addLayout(grid)

        self.status = _named(QLabel("No model"), "solverStatus", "Solver status")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.status)
        row = QHBoxLayout()
        row.addWidget(QLabel("History"))
        self.history = _named(QSlider(Qt.Orientation.Horizontal), "historySlider", "Sweep history")
        self.history.setRange(0, 0)
        self.history.setEnabled(False)
        self.history.setToolTip("Scrub back through every recorded sweep")
        row.addWidget(self.history, 1)
        self.history_label = _named(QLabel("0 / 0"), "historyLabel", "Shown sweep")
        row.addWidget(self.history_label)
        lay.addLayout(row)

        self.algorithm.currentIndexChanged.connect(self._on_algorithm)
        for box in (self.order, self.sequence, self.ties, self.q_from):
            box.currentIndexChanged.connect(lambda _i: self._options_edited())
        self.theta.editingFinished.connect(self._on_theta)
        self.tolerance.editingFinished.connect(self._on_tolerance)
        self.discount.valueChanged.connect(lambda v: self.discount_changed.emit(float(v)))
        self.speed.currentIndexChanged.connect(lambda i: self.speed_changed.emit(float(self.speed.itemData(i))))
        self.history.valueChanged.connect(self.history_moved)
        self._tol = 1e-9
        self._theta = 1e-5
        self.set_method(registry.DEFAULT_SOLVER)
        self._show_options()

    def _on_algorithm(self, i: int) -> None:
        m = self.algorithm.itemData(i)
        if m is None:  # (the group heading is not selectable)
            return
        self.show_learning(str(m))
        self.method_changed.emit(m)
        self._show_options()

    # ------------------------------------------------------------------ values
    @property
    def method(self) -> str:
        return str(self.algorithm.currentData())

    @property
    def tol(self) -> float:
        return self._tol

    @property
    def rate(self) -> float:
        return float(self.speed.currentData())

    def options(self) -> dict:
        """The solver options the panel's choices give for the current method (the tolerance aside; the
        default conventions, ties "tolerance" and q_from "previous", left out)."""
        spec = registry.find(self.method)
        out: dict = {}
        if self.ties.currentData() != "tolerance":  # the defaults are not written: the options of before
            out["ties"] = str(self.ties.currentData())
        if spec is None:
            return out
        if spec.value_iteration and self.q_from.currentData() != "previous":
            out["q_from"] = str(self.q_from.currentData())
        if spec.takes("sequence") and self.sequence.currentData() == "aima":
            out["sequence"] = "aima"
        if spec.takes("order"):
            out["order"] = str(self.order.currentData())
            if out["order"] == "random" and spec.takes("seed"):
                out["seed"] = 0
        if spec.takes("theta"):
            out["theta"] = self._theta
        out.update(spec.panel_options)
        return out

    def convention_in_force(self) -> str:
        """The convention of the current choices in one sentence (what the panel shows)."""
        return convention_text(self.method, str(self.ties.currentData()), str(self.q_from.currentData()),
                               str(self.sequence.currentData()))

    def set_conventions(self, *, ties: str | None = None, q_from: str | None = None,
                        sequence: str | None = None) -> None:
        """Choose the tie rule, the Q convention or value iteration's sequence (as the pickers do)."""
        for box, key in ((self.ties, ties), (self.q_from, q_from), (self.sequence, sequence)):
            if key is not None:
                i = box.findData(key)
                if i < 0:
                    raise ValueError(f"unknown choice {key!r}")
                box.setCurrentIndex(i)

    def scenario_options(self) -> dict:
        """The choices a scenario saves beside the method and the tolerance: :meth:`options` without what
        follows from the method (evaluation's random policy, random order's seed). Empty for the defaults."""
        return {k: v for k, v in self.options().items() if k in SCENARIO_OPTIONS}

    def set_scenario_options(self, opts: dict) -> None:
        """Choose what :meth:`scenario_options` saved (a field left out keeps its default). ValueError
        naming the field for a value the panel does not offer."""
        unknown = sorted(set(opts) - set(SCENARIO_OPTIONS))
        if unknown:
            raise ValueError(f"{unknown[0]}: not an option of the solver panel ({', '.join(SCENARIO_OPTIONS)})")
        boxes = {"ties": (self.ties, "tolerance"), "q_from": (self.q_from, "previous"),
                 "sequence": (self.sequence, "standard"), "order": (self.order, "index")}
        for key, (box, default) in boxes.items():
            value = opts.get(key, default)
            i = box.findData(value) if isinstance(value, str) else -1
            if i < 0:
                choices = ", ".join(str(box.itemData(j)) for j in range(box.count()))
                raise ValueError(f"{key}: {value!r} is not one of {choices}")
            box.setCurrentIndex(i)
        theta = opts.get("theta", 1e-5)
        if isinstance(theta, bool) or not isinstance(theta, (int, float)) or not (theta > 0 and math.isfinite(theta)):
            raise ValueError(f"theta: must be a positive number, got {theta!r}")
        self._theta = float(theta)
        self.theta.setText(f"{self._theta:g}")
        self._options_edited()

    def _show_options(self) -> None:
        spec = registry.find(self.method)
        takes = spec.takes if spec is not None else (lambda _name: False)
        self.order.setVisible(takes("order"))
        self.theta.setVisible(takes("theta"))
        self.theta_label.setVisible(takes("theta"))
        self.sequence.setVisible(takes("sequence"))
        # (the other methods' policy is of their own values)
        self.q_from.setVisible(spec is not None and spec.value_iteration)
        text = self.convention_in_force()
        for w in (self.convention, self.ties, self.q_from):
            w.setToolTip(text)
        self.convention.setAccessibleDescription(text)

    def _options_edited(self) -> None:
        self._show_options()
        self.options_changed.emit()

    def _on_theta(self) -> None:
        try:
            theta = parse_tolerance(self.theta.text())
        except ValueError as e:
            self.theta.setText(f"{self._theta:g}")
            self.invalid_input.emit(str(e).replace("tolerance", "theta"))
            return
        if theta != self._theta:
            self._theta = theta
            self.options_changed.emit()

    def set_method(self, method: str) -> None:
        i = self.algorithm.findData(method)
        if i < 0:
            raise ValueError(f"unknown method {method!r}")
        self.algorithm.setCurrentIndex(i)
        self.tolerance.setEnabled(uses_tolerance(method))
        self.show_learning(method)

    def show_learning(self, method: str) -> None:
        """Show the learner's settings when ``method`` is a learner, in place of the solvers' tolerance and
        conventions (a learner has neither), and call the speeds episodes per second."""
        on = any(registry.is_kind(method, k) for k in ("learner", "approximation", "policy-gradient", "planning"))
        self.learning_scroll.setVisible(on)
        self._form.setRowVisible(self._tol_row, not on)
        self._form.setRowVisible(self._conv_row, not on)
        self._show_options()  # (showing a row shows all its widgets: the method's own options again as they were)
        for k, (label, _rate) in enumerate(SPEEDS):  # a learner's unit is the episode
            self.speed.setItemText(k, label.replace("sweep", "episode") if on else label)
        if on:
            self.learning.show_method(method)
        self.step.setToolTip("One episode, or one transition (Step unit below) (Space)" if on else
                             "One sweep (Space); for policy iteration one full round: evaluate + improve")
        self.run.setToolTip("Learn for the set number of episodes at the chosen speed (R toggles run/pause)" if on
                            else "Sweep until convergence at the chosen speed (R toggles run/pause)")

    def set_tolerance(self, tol: float) -> None:
        self._tol = float(tol)
        self.tolerance.setText(f"{tol:g}")

    def set_speed_index(self, index: int) -> None:
        if 0 <= index < self.speed.count():
            self.speed.setCurrentIndex(index)

    def set_discount(self, gamma: float | None, *, editable: bool, why: str = "") -> None:
        """Show the model's discount; ``editable`` False for games where it is fixed (``why``)."""
        self.discount.blockSignals(True)
        self.discount.setValue(1.0 if gamma is None else float(gamma))
        self.discount.blockSignals(False)
        self.discount.setEnabled(editable and gamma is not None)
        self.discount.setToolTip(why or "Discount factor applied to the value of the next state")

    def _on_tolerance(self) -> None:
        try:
            tol = parse_tolerance(self.tolerance.text())
        except ValueError as e:
            self.tolerance.setText(f"{self._tol:g}")
            self.invalid_input.emit(str(e))
            return
        if tol != self._tol:
            self._tol = tol
            self.tolerance_changed.emit(tol)

    # ------------------------------------------------------------------ state
    def show_state(self, state: str, *, method: str, next_phase: str, has_model: bool) -> None:
        """Enable the buttons that make sense in controller state ``state``."""
        can_step = has_model and state in ("ready", "paused", "stepping")
        pi = registry.find(method) is not None and registry.get(method).unit == "round"  # Evaluate / Improve
        self.step.setEnabled(can_step)
        self.evaluate.setVisible(pi)
        self.improve.setVisible(pi)
        self.evaluate.setEnabled(can_step and pi and next_phase == "evaluate")
        self.improve.setEnabled(can_step and pi and next_phase == "improve")
        self.run.setEnabled(can_step)
        self.pause.setEnabled(state == "running")
        self.reset.setEnabled(has_model)
        self.tolerance.setEnabled(uses_tolerance(method))

    def show_status(self, text: str) -> None:
        self.status.setText(text)

    def show_history(self, count: int, index: int) -> None:
        """The slider spans ``count`` recorded sweeps and stands at ``index`` (0-based)."""
        self.history.blockSignals(True)
        self.history.setRange(0, max(count - 1, 0))
        self.history.setValue(max(index, 0))
        self.history.setEnabled(count > 1)
        self.history.blockSignals(False)
        self.history_label.setText(f"{index + 1 if count else 0} / {count}")


class Inspector(QWidget):
    """Q-values of the inspected state at the shown sweep, each with its Bellman backup; its links
    (a term's V(s'), a breadcrumb: :mod:`mdpviz.models.kit.pictures.chain`) are emitted, not opened."""

    link_clicked = Signal(str)
    """A link of the text was clicked: its href (the window follows the chain of backups)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("inspector")
        self.setAccessibleName("Inspector")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        self.text = _named(QTextBrowser(), "inspectorText", "Inspector text")
        self.text.setOpenLinks(False)
        self.text.anchorClicked.connect(lambda url: self.link_clicked.emit(url.toString()))
        lay.addWidget(self.text)
        self.inspection: Inspection | None = None
        self.compact = False
        """Presenter mode's form: every action's Q in one table, only the best one's backup written out."""
        self._hint = ""
        self.show_inspection(None)

    def set_compact(self, on: bool) -> None:
        """The compact form (presenter mode: the dock is short, and three dice's backups needed scrolling)."""
        if bool(on) != self.compact:
            self.compact = bool(on)
            self.show_inspection(self.inspection, hint=self._hint)

    def show_inspection(self, insp: Inspection | None, *, hint: str = "") -> None:
        """Show one state's backup (None: the hint, e.g. "Click a square to inspect it")."""
        self.inspection = insp
        self._hint = hint
        if insp is None:
            self.text.setHtml(f"<p>{hint or 'Click a cell of the board to inspect it.'}</p>")
        else:
            sb = self.text.verticalScrollBar().value()
            self.text.setHtml(inspection_html(insp, compact=self.compact))
            self.text.verticalScrollBar().setValue(sb)

    @property
    def q_values(self) -> dict[int, float]:
        """Action -> Q shown (empty when nothing is inspected)."""
        if self.inspection is None:
            return {}
        return {a.action: a.q for a in self.inspection.actions}
