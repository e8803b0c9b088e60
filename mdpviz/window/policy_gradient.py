"""Policy gradients in the main window (Sutton and Barto ch. 13; issue 37 item 5).

While the Solver panel holds a policy-gradient learner (kind "policy-gradient" of the registry), the learning
part (:mod:`mdpviz.window.learning`) hands its snapshots (:class:`~mdpviz.solvers.policy_gradient.PGStep`) to
:class:`PGView`, which draws them: the board shows the policy (each state's most likely action as the game draws
a policy, its probability as the cell's number and colour), the exact value v_pi of the shown policy or the
visits (the Solver panel's "Board shows"); the convergence dock's tabs (:class:`~mdpviz.widgets.policy_gradient.PGCurves`)
show J over episodes against J_best, the gradient view at the shown snapshot's theta (its N sampled REINFORCE
estimates with and without a baseline computed off the GUI thread, as a job on the controller) and, when the
policy is one probability (the short corridor, Example 13.1), figure 13.1's curve with the current policy on it;
the inspector writes the last update of theta with its numbers.

The pure helpers (:func:`most_likely`, :func:`one_probability`, :func:`probability_curve`,
:func:`gradient_job`) never touch Qt.
"""
from __future__ import annotations

import html
import math
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np
from PySide6.QtCore import QObject, QTimer

from mdpviz.core.jobs import Job, JobProgress
from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.pictures.colors import SEQUENTIAL, ColorScale
from mdpviz.models.kit.pictures.value_range import range_scale
from mdpviz.solvers import Sweep, registry
from mdpviz.widgets.policy_gradient import PGCurves

GRADIENT_SAMPLES = 1000
"""Episodes sampled for each of the gradient view's two estimates (without and with the baseline)."""

CURVE_MAX_STATES = 500
"""Figure 13.1's curve (99 exact evaluations at reset) is drawn for models up to this many states."""

CURVE_POINTS = 99
"""Probabilities on figure 13.1's curve (0.01 .. 0.99)."""

NO_BASELINE, WITH_BASELINE = "REINFORCE", "with baseline v\u03c0"
"""The gradient view's two series: the one-episode estimate without a baseline (eq. 13.8) and with the exact
v_pi of the shown theta as its baseline (eq. 13.11 with the best state-value baseline)."""


# ---------------------------------------------------------------------------------- pure helpers
def most_likely(mdp: TabularMDP, policy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(action, probability)`` per state of the row probabilities ``policy`` (n_rows): each state's most
    likely action (the lowest id among ties; -1 at terminal states) and its probability (0 at terminal states)."""
    pi = np.asarray(policy, dtype=np.float64)
    ptr = np.asarray(mdp.state_ptr)
    acts = np.full(mdp.n_states, -1, dtype=np.int64)
    probs = np.zeros(mdp.n_states)
    live = np.flatnonzero(ptr[1:] > ptr[:-1])
    if live.size:
        # one pass for every state (a frame on the GUI thread: a Python argmax per state took 30 ms on risk
        # tic-tac-toe): each state's best probability, then its first row reaching it (rows of a state are
        # contiguous and in action order, so the first is the lowest action id among ties)
        best = np.maximum.reduceat(pi, ptr[live])
        rows_state = np.asarray(mdp.row_state)
        owner_best = np.full(mdp.n_states, np.inf)
        owner_best[live] = best
        hit = np.flatnonzero(pi == owner_best[rows_state])
        first = hit[np.unique(rows_state[hit], return_index=True)[1]]
        acts[rows_state[first]] = np.asarray(mdp.row_action)[first]
        probs[live] = best
    return acts, probs


def one_probability(mdp: TabularMDP, Xsa: np.ndarray) -> int | None:
    """The action whose probability is the whole policy, when it is one number: every non-terminal state has
    the same two actions with the same features in every state (Example 13.1: x(s, right) = (1, 0),
    x(s, left) = (0, 1)), so pi(a|s) is the same everywhere. The second action's id (the corridor's right),
    else None."""
    X = np.asarray(Xsa, dtype=np.float64)
    ptr = np.asarray(mdp.state_ptr)
    live = np.flatnonzero(ptr[1:] > ptr[:-1])
    if not live.size or mdp.is_two_player:
        return None
    first = None
    for s in live:
        lo, hi = int(ptr[s]), int(ptr[s + 1])
        rows = (tuple(int(a) for a in mdp.row_action[lo:hi]), X[lo:hi])
        if hi - lo != 2:
            return None
        if first is None:
            first = rows
        elif rows[0] != first[0] or not np.array_equal(rows[1], first[1]):
            return None
    if np.array_equal(first[1][0], first[1][1]):
        return None  # (both actions look the same: the policy is always 1/2)
    return first[0][1]


def probability_curve(mdp: TabularMDP, Xsa: np.ndarray, action: int, *, start: int,
                      points: int = CURVE_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """Figure 13.1: ``(p, J(p))``, the exact J (:func:`~mdpviz.solvers.pg_exact.evaluate_policy`) of the policy
    that plays ``action`` with probability p in every state (see :func:`one_probability`), for p = 1/(points+1)
    .. points/(points+1). The theta of p: (logit p) d / |d|^2 with d = x(s, action) - x(s, other), so that
    h(action) - h(other) = logit p (eq. 13.2); NaN where a policy has no value."""
    from mdpviz.solvers.pg_exact import evaluate_policy

    X = np.asarray(Xsa, dtype=np.float64)
    s = int(np.flatnonzero(np.diff(np.asarray(mdp.state_ptr)) > 0)[0])
    lo = int(mdp.state_ptr[s])
    r = lo if int(mdp.row_action[lo]) == action else lo + 1
    d = X[r] - X[lo + 1 if r == lo else lo]
    def value(q: float) -> float:
        try:
            return evaluate_policy(mdp, X, math.log(q / (1 - q)) * d / float(d @ d), start=start).J
        except ValueError:
            return math.nan

    p = np.arange(1, points + 1) / (points + 1.0)
    J = np.array([value(float(q)) for q in p])
    sign = -1.0 if mdp.objective == "min" else 1.0
    if np.isfinite(J).any():
        # the best point itself, not the best of the grid: refined between the grid's neighbours of its best
        # (the corridor's 2 - sqrt 2 = 0.5858, where the grid's best is 0.59)
        from scipy.optimize import minimize_scalar

        k = int(np.nanargmax(sign * J))
        a, b = p[max(k - 1, 0)], p[min(k + 1, p.size - 1)]
        res = minimize_scalar(lambda q: -sign * value(q), bounds=(a, b), method="bounded",
                              options={"xatol": 1e-10})
        if res.success and math.isfinite(res.fun) and -sign * res.fun >= sign * J[k]:
            i = int(np.searchsorted(p, res.x))
            p, J = np.insert(p, i, res.x), np.insert(J, i, value(float(res.x)))
    return p, J


@dataclass(frozen=True, eq=False)
class GradientSample:
    """What the gradient job found at one theta."""

    theta: np.ndarray
    exact: np.ndarray
    """The exact gradient of J (eq. 13.5)."""
    stats: dict
    """Series name -> :class:`~mdpviz.solvers.pg_exact.EstimateStats` (without and with the baseline)."""
    samples: int


def gradient_job(mdp: TabularMDP, Xsa: np.ndarray, theta: np.ndarray, *, start: int, samples: int = GRADIENT_SAMPLES,
                 seed: int = 0) -> Iterator[Any]:
    """The job generator of the gradient view: the exact gradient at ``theta`` and ``samples`` one-episode
    REINFORCE estimates without a baseline and with the exact v_pi as the baseline
    (:func:`~mdpviz.solvers.pg_exact.reinforce_estimates`), their statistics; returns a :class:`GradientSample`.
    A two-player model's opponent plays its fixed exact policy (:func:`~mdpviz.solvers.policy_gradient.opponent`)."""
    from mdpviz.solvers.pg_exact import estimate_stats, evaluate_policy, reinforce_estimates
    from mdpviz.solvers.policy_gradient import opponent

    yield JobProgress(0, 3, "the exact gradient")
    fixed, fixed_probs = opponent(mdp)
    pv = evaluate_policy(mdp, Xsa, theta, start=start, fixed=fixed, fixed_probs=fixed_probs)
    stats = {}
    for k, (name, b) in enumerate(((NO_BASELINE, None), (WITH_BASELINE, pv.v))):
        yield JobProgress(k + 1, 3, f"{samples:,} episodes, {name}")
        est = reinforce_estimates(mdp, Xsa, theta, start=start, samples=samples, seed=seed, baseline=b,
                                  fixed=fixed, fixed_probs=fixed_probs)
        stats[name] = estimate_stats(est, pv.gradient)
    return GradientSample(theta=np.array(theta, dtype=np.float64), exact=np.asarray(pv.gradient), stats=stats,
                          samples=int(samples))


# ---------------------------------------------------------------------------------- the window's view
class PGView(QObject):
    """Draws a policy-gradient learner's snapshots (one part of the learning part; handed the window's hub)."""

    def __init__(self, hub) -> None:
        super().__init__(hub)
        self._hub = hub
        self.curves = PGCurves()
        """The convergence dock's page while a policy-gradient learner is loaded."""
        hub.conv_stack.addWidget(self.curves)
        self.curves.tabs.currentChanged.connect(lambda _i: hub.solving.mark_dirty())
        self.Xsa: np.ndarray | None = None
        self.curve_action: int | None = None
        self._sampled = None
        """The snapshot whose theta the gradient job last took (or is taking)."""
        self._value_scale: ColorScale | None = None
        self._curve_token = 0
        """Bumped by each new learner: figure 13.1's curve of an older one is not drawn."""

    def reset(self) -> None:
        """A new learner: its features (as the learner builds them), figure 13.1's curve when the policy is one
        probability, the dock's page."""
        from mdpviz.solvers.policy_gradient import build_features

        c = self._hub.controller
        mdp, o = c.mdp, c.options
        self.Xsa, self.curve_action, self._sampled, self._value_scale = None, None, None, None
        if mdp is not None:
            try:
                _t, self.Xsa, _x = build_features(mdp, o.get("features", "tabular"), coords=o.get("coords"),
                                                  game_features=o.get("game_features"),
                                                  game_action_features=o.get("game_action_features"), critic=False)
            except ValueError:
                self.Xsa = None
        if self.Xsa is not None and mdp.n_states <= CURVE_MAX_STATES:
            self.curve_action = one_probability(mdp, self.Xsa)
        name = self._hub.stage.session.action_name(self.curve_action) if self.curve_action is not None else ""
        self.curves.reset(curve=None, action=name)
        self._curve_token += 1
        if self.curve_action is not None:  # its 99 exact evaluations: up to 0.45 s, on the job thread
            self._start_curve(self._curve_token, mdp, self.Xsa, self.curve_action, int(o.get("start", 0)), name)
        self._hub.conv_stack.setCurrentWidget(self.curves)
        self._hub.docks["convergence"].setWindowTitle("Policy gradient")
        self._hub.docks["convergence"].setAccessibleName("Policy gradient")

    def _start_curve(self, token: int, mdp: TabularMDP, Xsa: np.ndarray, action: int, start: int, name: str) -> None:
        """Figure 13.1's curve as a job of the controller (started when the job thread is free); drawn when it
        ends, if no newer learner has come since."""
        def make():
            yield JobProgress(0, 0, "Figure 13.1: J over the probability of one action\u2026")
            return probability_curve(mdp, Xsa, action, start=start)

        def done(curve) -> None:
            if token == self._curve_token and curve is not None:
                self.curves.set_curve(curve, name)
                self._hub.solving.mark_dirty()

        if token != self._curve_token:
            return
        if not self._hub.controller.start_job(Job(make, label="Figure 13.1's curve", on_done=done)):
            QTimer.singleShot(50, self, lambda: self._start_curve(token, mdp, Xsa, action, start, name))

    def current_p(self, step) -> float | None:
        """The shown policy's probability of figure 13.1's action (None: no such curve)."""
        a, mdp = self.curve_action, self._hub.controller.mdp
        if a is None or mdp is None:
            return None
        s = int(np.flatnonzero(np.diff(np.asarray(mdp.state_ptr)) > 0)[0])
        return float(step.policy[mdp.row_of(s, a)])

    # ------------------------------------------------------------------ a frame
    def board_view(self, step, mode: str) -> tuple[Sweep, ColorScale, str]:
        """The board's snapshot, colour scale and caption words of view ``mode``: "probability" (each state's
        most likely action and its probability), "value" (v_pi of the shown theta, where it was evaluated) or
        "visits"."""
        mdp = self._hub.controller.mdp
        acts, probs = most_likely(mdp, step.policy)
        label = self._hub.stage.session.game.value_label
        if mode == "value" and step.evaluation is not None:
            values = np.nan_to_num(np.array(step.evaluation.v, dtype=np.float64))
            live = values[~np.asarray(mdp.terminal, dtype=bool)]
            lo, hi = float(min(live.min(), step.J_best)), float(max(live.max(), step.J_best))
            s0 = self._value_scale
            if s0 is None or lo < s0.lo or hi > s0.hi:  # (fixed for the run, widened only when it must be)
                self._value_scale = range_scale(min(lo, s0.lo) if s0 else lo, max(hi, s0.hi) if s0 else hi,
                                                label=f"v\u03c0 ({label})")
            scale, words = self._value_scale, "exact v\u03c0 of the shown policy"
        elif mode == "visits":
            values = np.asarray(step.visits, dtype=np.float64).copy()
            scale = ColorScale(0.0, max(float(values.max()) if values.size else 1.0, 1.0), "visits", SEQUENTIAL)
            words = "visits"
        else:
            values = probs
            scale = ColorScale(0.0, 1.0, "\u03c0 of the most likely action", SEQUENTIAL)
            words = "most likely action and its probability" + (
                "" if mode == "probability" else " (v\u03c0: not evaluated at this snapshot)")
        changed = np.zeros(0, dtype=np.int64)
        for a in (values, acts, changed):
            a.setflags(write=False)
        shown = Sweep(values=values, policy=acts, changed=changed, method=step.method, phase="episode",
                      iteration=step.episode, delta=0.0, mean_delta=0.0, delta_state=-1, elapsed=step.elapsed)
        return shown, scale, words

    def draw(self, step, i: int, mode: str, *, state_word: str) -> None:
        """A frame: the board in view ``mode``, the dock's plots at the shown snapshot, the status lines
        (``state_word``: the controller's state as the status bar says it)."""
        c, g, board = self._hub.controller, self._hub.stage.game, self._hub.stage.board
        from mdpviz.widgets.position.board import PositionBoard

        note = ""
        if isinstance(board, PositionBoard) and mode == "probability":
            # a position board draws each move by the value of the position it leads to: a probability per
            # state there would read as a value, so it shows v_pi, and each move's probability is the inspector's
            mode, note = "value", " (on a position board: click the position for each move's probability)"
        shown, scale, words = self.board_view(step, mode)
        words += note
        J = "not evaluated" if not math.isfinite(step.J) else f"{step.J:.5g}"
        cap = f"episode {step.episode:,} \u00b7 {words} \u00b7 J {J} (best {step.J_best:.5g})"
        board.set_value_range(None)
        board.show_sweep(shown, scale, caption=g.board_caption(cap, shown), previous=shown)
        board.show_unvisited(None)
        # (a board's own scale is for its value views: a probability view keeps the probability scale)
        self._hub.color_bar.show_scale(scale if mode == "probability" else board.shown_scale or scale)
        self.curves.show_step(step, current_p=self.current_p(step))
        self._sample(step)
        self.curves.refresh()
        self._hub.solver_panel.show_history(len(c.history), i)
        self._hub.solving.update_buttons()
        self._hub.solver_panel.show_status(
            f"episode {step.episode:,} \u00b7 {step.updates:,} updates \u00b7 J {J}, best {step.J_best:.5g} "
            f"({step.J_best_how}) \u00b7 {step.features}: {step.n_features} parameters")
        self._hub.state_label.setText(f"{g.title} \u00b7 {registry.title(c.method)} \u00b7 "
                                      f"{state_word}")
        self._hub.solving.update_inspection()

    def _sample(self, step) -> None:
        """While the gradient tab is shown and the learner is not running, sample the REINFORCE estimates at
        the shown snapshot's theta, once per snapshot, as a job on the controller (its thread, not the GUI's)."""
        c = self._hub.controller
        if (self.curves.tabs.currentWidget() is not self.curves.gradient or step is self._sampled or self.Xsa is None
                or c.state == "running" or c.job_busy):
            return
        mdp, Xsa, theta = c.mdp, self.Xsa, np.array(step.theta)
        start, seed = int(c.options.get("start", 0)), int(c.options.get("seed", 0))

        def done(result) -> None:
            self.curves.show_estimates(result)
            self._hub.solving.mark_dirty()

        def failed(msg: str) -> None:
            self._hub.status.showMessage(f"Gradient view: {msg}", 8000)

        job = Job(lambda: gradient_job(mdp, Xsa, theta, start=start, seed=seed),
                  label=f"Sampling {GRADIENT_SAMPLES:,} REINFORCE estimates at episode {step.episode:,}'s \u03b8\u2026",
                  on_done=done, on_failed=failed)
        if c.start_job(job):
            self._sampled = step

    # ------------------------------------------------------------------ inspector
    def inspection_html(self, step) -> str:
        """The inspector's page: the last update of theta with its numbers, and the clicked state's action
        probabilities (with q_pi where the snapshot was evaluated)."""
        session, mdp = self._hub.stage.session, self._hub.controller.mdp
        parts = [f"<h3>{html.escape(registry.title(step.method))}: episode {step.episode:,}</h3>",
                 "<p><b>Last update of \u03b8</b>:<br>"]
        upd = step.last_update
        parts.append("<code>" + html.escape(upd.text(session.state_name, session.action_name)) + "</code>"
                     if upd is not None else "none yet")
        parts.append("</p>")
        s = self._hub.solving.selected
        if s is not None and mdp is not None and 0 <= s < mdp.n_states and not mdp.terminal[s]:
            ev = step.evaluation
            rows = range(int(mdp.state_ptr[s]), int(mdp.state_ptr[s + 1]))
            body = "".join(f"<tr><td>{html.escape(session.action_name(int(mdp.row_action[r])))}</td>"
                           f"<td>{step.policy[r]:.4f}</td><td>{'' if ev is None else f'{ev.q[r]:.4g}'}</td></tr>"
                           for r in rows)
            parts.append(f"<p><b>{html.escape(self._hub.stage.game.state_title(s))}</b>: visited "
                         f"{int(step.visits[s]):,} times</p><table cellspacing='4'><tr><th>action</th>"
                         f"<th>\u03c0(a|s)</th><th>q\u03c0(s, a)</th></tr>{body}</table>")
        else:
            parts.append("<p>Click a state of the board for its action probabilities.</p>")
        return "".join(parts)


__all__ = ["GRADIENT_SAMPLES", "GradientSample", "NO_BASELINE", "PGView", "WITH_BASELINE", "gradient_job",
           "most_likely", "one_probability", "probability_curve"]
