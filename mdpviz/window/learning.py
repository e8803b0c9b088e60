"""Learning from experience in the main window, beside the exact answer (issue 25 item 4).

When the algorithm picker holds a learner of :mod:`mdpviz.solvers.learning`, the one controller runs
it on its solver thread like a solver: Step = one episode, Run = episodes at the chosen speed (at full
speed as many as fit in a time slice, delivered together: the numbers do not depend on it), Pause,
Reset, and the history slider over the recorded episodes. Each frame draws the shown snapshot on the
game's own board, as a snapshot of the solver is drawn: the learned values (or the exact ones, the
error, the visit counts: the solver panel's toggle) on the exact solution's colour scale, the learned
greedy policy as the game draws policies, and the states where it is not optimal marked as the board
marks changed states. At a finite speed the episode's path walks on the board's episode token. The
convergence dock shows the learning curves, the inspector the last update with its numbers and a
clicked state's learned and exact Q per action with its visits, the lesson tab the learning lesson.

:class:`LearningPart` is one part of :class:`mdpviz.app.MainWindow`, handed the window's
:class:`~mdpviz.window.hub.Hub`; the solving part's frame hands over to :meth:`LearningPart.draw_frame`
while a learner is loaded (:attr:`LearningPart.active`). It owns the learning curves and the transition
stepping; it hears the controller's ``history_reset`` and the hub's ``presenter_changed``. Nothing here computes more than one snapshot's display.
"""
from __future__ import annotations

import dataclasses
import html
import math
import time

import numpy as np
from PySide6.QtCore import QObject, Qt, QTimer

from mdpviz.models.kit.pictures.colors import DIVERGING, SEQUENTIAL, ColorScale
from mdpviz.models.kit.pictures.display import exact_policy, learning_view  # noqa: F401 - the tests import them from here too
from mdpviz.models.kit.pictures.value_range import range_scale
from mdpviz.core.mdp import TabularMDP
from mdpviz.solvers import Sweep, registry
from mdpviz.solvers.learning import (
    LEARNERS,
    PREDICTION,
    REPLAYABLE,
    LearningSettings,
    LearningStep,
    Update,
    replay_episode,
)
from mdpviz.solvers.approximation import ApproxStep
from mdpviz.solvers.dyna import DynaStep
from mdpviz.solvers.policy_gradient import PGStep
from mdpviz.solvers.features import kinds_for
from mdpviz.solvers.sweep import greedy
from mdpviz.widgets.approximation import ApproxCurves
from mdpviz.widgets.learning import APPROX_MODE_LABELS, APPROXIMATORS, PLANNERS, POLICY_GRADIENTS, LearningCurves, learns
from mdpviz.window.hub import Hub
from mdpviz.window.parts import PLOT_PX, PRESENTER_PLOT_PX

MODE_WORDS = {"learned": "learned V", "exact": "exact V", "error": "learned \u2212 exact", "visits": "visits"}
"""The board caption's name of each view."""

STATE_WORDS = {"converged": "done", "stopped": "done"}
"""The status bar's word for a controller state, where a learner's differs from a solver's."""

EXPECTED_MAX_STEPS = 100_000
"""The expected update is drawn beside a sampled off-policy run up to this many steps (figure 11.2)."""

ANIMATE_MAX_RATE = 10.0
"""Run speeds (episodes per second) up to this walk each episode's path on the board's token."""


# ---------------------------------------------------------------------------------- pure helpers
def mode_scale(mode: str, step: LearningStep, values_scale: ColorScale | None, label: str) -> ColorScale:
    """The colour scale of view ``mode``: the exact answer's scale for learned and exact values (the
    same colours mean the same values), a diverging one around 0 as wide as the exact values' span
    for the error, and 0 .. most visits of the shown snapshot for the visits."""
    if mode in ("learned", "exact"):
        if values_scale is not None:
            return values_scale
        v = step.exact.values
        return range_scale(float(np.min(v)), float(np.max(v)), label=label)
    if mode == "error":
        v = np.asarray(step.exact.values)
        w = float(np.max(v) - np.min(v)) if v.size else 1.0
        w = w if w > 0 and math.isfinite(w) else 1.0
        return ColorScale(-w / 2, w / 2, f"{label}: learned \u2212 exact", DIVERGING)
    hi = float(np.max(step.visits)) if np.size(step.visits) else 1.0
    return ColorScale(0.0, max(hi, 1.0), "visits", SEQUENTIAL)


def approx_scale(mode: str, step: ApproxStep, mdp: TabularMDP, label: str) -> ColorScale:
    """The colour scale of a function-approximation view: the true values' (over the non-terminal states) for
    the approximate, exact, TD fixed point and best fit values (one colour, one value, fixed for the run), a
    diverging one as wide as their span for the error, 0 .. most visits for the visits."""
    v = np.asarray(step.answer.v, dtype=np.float64)[~np.asarray(mdp.terminal, dtype=bool)]
    v = v[np.isfinite(v)]
    lo, hi = (float(v.min()), float(v.max())) if v.size else (0.0, 1.0)
    if mode == "error":
        w = hi - lo if hi > lo else 1.0
        return ColorScale(-w / 2, w / 2, f"{label}: approximate \u2212 exact", DIVERGING)
    if mode == "visits":
        return ColorScale(0.0, max(float(np.max(step.visits)) if np.size(step.visits) else 1.0, 1.0), "visits", SEQUENTIAL)
    return range_scale(lo, hi, label=label)


def last_update(prev: LearningStep | None, step: LearningStep, mdp: TabularMDP,
                step_rule: tuple[float, float]) -> tuple[Update | None, str]:
    """The last update of ``step``'s episode with its numbers: ``(Update, "")`` for the one-step TD
    learners when the entry of the episode's last transition moved once in the episode (the old
    value is the previous snapshot's, the step size 1/N^w or constant from its update count, the
    target from old + step x (target - old) = new; ``step_rule``: the learner's ``(alpha, w)``, see
    :attr:`~mdpviz.solvers.learning.LearningSettings.step`); otherwise ``(None, sentence)`` saying what moved."""
    if not step.path or len(step.path) < 2 or not step.actions:
        return None, "The last episode made no step."
    s, a = int(step.path[-2]), int(step.actions[-1])
    s2, r = int(step.path[-1]), float(step.rewards[-1])
    control = step.q is not None
    idx = mdp.row_of(s, a) if control else s
    table_new = (step.q if control else step.values)
    new = float(table_new[idx])
    n_now = int(step.row_updates[idx])
    n_before = 0 if prev is None else int(prev.row_updates[idx])
    old = float(prev.q[idx] if control else prev.values[idx]) if prev is not None else None
    spec = registry.find(step.method)
    one_step = spec is not None and spec.replayable  # (one update per step: the one-step TD learners)
    exact_one = one_step and n_now - n_before == 1 and old is not None
    if prev is None and step.episode == 1 and n_now == 1 and one_step:
        exact_one = False  # (the initial value is not in a snapshot: said in words below)
    if exact_one and n_now > 0:
        alpha = step_size(step_rule, n_now)
        if alpha > 0:
            target = old + (new - old) / alpha
            gamma = float(mdp.discount)
            term = bool(mdp.terminal[s2])
            nxt = None if term or gamma == 0 else (target - r) / gamma
            return Update(s, a if control else -1, r, s2, old, alpha, gamma, nxt, target, new,
                          "Q" if control else "V"), ""
    key = "Q(s, a)" if control else "V(s)"
    moved = n_now - n_before
    k = step.episode - (0 if prev is None else prev.episode)
    span = "this episode" if k == 1 else f"these {k:,} episodes (one snapshot)"
    if old is None:
        return None, f"{key} of the last transition is {new:.4g} after {n_now} update{'s' if n_now != 1 else ''}."
    return None, (f"{key} of the last transition moved {moved} time{'s' if moved != 1 else ''} in {span}: "
                  f"{old:.4g} \u2192 {new:.4g}" + ("" if spec is None or not spec.targets
                                                           else f" ({LEARNERS[step.method]}: its targets are "
                                                                f"{spec.targets})") + ".")


def partial_step(mdp: TabularMDP, prev: LearningStep | None, step: LearningStep, table: np.ndarray,
                 t: int) -> LearningStep:
    """``step`` as it stood after ``t`` transitions of its episode: ``table`` (the learned Q per row, or V
    per state, from :func:`~mdpviz.solvers.learning.replay_episode`), the greedy values and policy of
    it, the visits and update counts so far, and its errors to the exact answer."""
    control = step.q is not None
    live = ~np.asarray(mdp.terminal)
    visits = np.zeros(mdp.n_states, np.int64) if prev is None else np.array(prev.visits, np.int64)
    counts = (np.zeros(np.shape(step.row_updates), np.int64) if prev is None
              else np.array(prev.row_updates, np.int64))
    path, acts = step.path, step.actions
    visits[int(path[0])] += 1
    for k in range(t):
        s2 = int(path[k + 1])
        if live[s2]:
            visits[s2] += 1
        counts[mdp.row_of(int(path[k]), int(acts[k])) if control else int(path[k])] += 1
    ex = step.exact
    if control:
        values, best = greedy(mdp, table, tie_tol=0.0)
        policy = np.where(best >= 0, np.asarray(mdp.row_action)[np.maximum(best, 0)], -1).astype(np.int64)
        agree = float(ex.optimal[best[live]].mean()) if live.any() else 1.0
        q = table
    else:
        values, policy, agree, q = np.array(table, dtype=np.float64), None, math.nan, None
    err = (values - ex.values)[live]
    rms = float(np.sqrt(np.mean(err ** 2))) if err.size else 0.0
    mx = float(np.abs(err).max()) if err.size else 0.0
    return dataclasses.replace(step, q=q, values=values, policy=policy, visits=visits, row_updates=counts,
                               rms_error=rms, max_error=mx, greedy_agreement=agree, policy_value=None,
                               done=False)


def visited_states(step: LearningStep, mdp: TabularMDP) -> np.ndarray:
    """bool (n_states): the non-terminal states the behaviour has visited so far (the others keep their
    initial value: the cliff cells of CliffWalking can never be stood on)."""
    return (np.asarray(step.visits) > 0) & ~np.asarray(mdp.terminal, dtype=bool)


def visited_errors(step: LearningStep, mdp: TabularMDP) -> tuple[int, float, float]:
    """``(visited states, RMS, largest)`` of learned V - exact V over the non-terminal states the behaviour
    visited (the learner's own ``rms_error`` and ``max_error`` are over every non-terminal state, reachable
    or not: on CliffWalking they stayed near 11 while the start's value was exact)."""
    seen = visited_states(step, mdp)
    err = (np.asarray(step.values, dtype=np.float64) - np.asarray(step.exact.values))[seen]
    if not err.size:
        return 0, 0.0, 0.0
    return int(err.size), float(np.sqrt(np.mean(err ** 2))), float(np.abs(err).max())


FAR_INSIDE = 0.5
"""Learned values are far from the exact scale when fewer than this share of the visited states' values
lie within it (widened by a quarter of its span each side) and they are not all one number (the first
episodes' initial values, which the exact scale shows growing towards it)."""


def far_from_scale(values: np.ndarray, scale: ColorScale) -> bool:
    """The values (finite ones) mostly lie outside ``scale``: on it they would all be one end colour (SARSA's
    0-6 on tic-tac-toe's exact 230-380)."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    if not v.size or not (math.isfinite(scale.lo) and math.isfinite(scale.hi)) or float(v.max() - v.min()) <= 0:
        return False
    pad = 0.25 * (scale.hi - scale.lo)
    inside = (v >= scale.lo - pad) & (v <= scale.hi + pad)
    return float(inside.mean()) < FAR_INSIDE


def step_size(step_rule: tuple[float, float], n: int) -> float:
    """The step size ``alpha / n^w`` of an entry's ``n``-th update (``step_rule`` = ``(alpha, w)``)."""
    alpha, w = step_rule
    return float(alpha) / (n ** float(w)) if w else float(alpha)


class LearningPart(QObject):
    """Learning from experience in the window (part of :class:`~mdpviz.app.MainWindow`)."""

    def __init__(self, hub: Hub) -> None:
        """Build the learning curves in the convergence dock's stack and connect the learner's settings."""
        super().__init__(hub)
        self._hub = hub
        self._learning_curves: LearningCurves | None = None
        self._approx_curves: ApproxCurves | None = None
        self._pg = None
        self._plot_px = PLOT_PX
        """The plots' font size (the projector's in presenter mode), for the pages built later."""
        lp = self._hub.solver_panel.learning
        lp.settings_changed.connect(self._on_learning_settings)
        lp.mode_changed.connect(lambda _m: self._hub.solving.mark_dirty())
        lp.invalid_input.connect(lambda msg: self._hub.status.showMessage(msg, 8000))
        self._hub.controller.history_reset.connect(self._learning_reset)
        self._hub.presenter_changed.connect(self._learning_presenter)
        self._walk = (-1, 0.0)
        """(episode whose path the token walks, when it began) at a finite speed."""
        self._tr: tuple[int, int] | None = None
        self._expected: tuple | None = None
        """Stepping one transition at a time: (history index of the episode, transitions shown)."""
        self._tr_wait = False
        """A transition Step asked the learner for the next episode."""
        self._replays: dict[int, list | None] = {}
        """The replayed transitions of recorded episodes, by history index (see :meth:`replay_at`)."""
        self._lesson_learning = False
        """The lesson tab shows the learning lesson (see :meth:`_lesson_for_method`)."""
        self.shown_scale: ColorScale | None = None
        """The colour scale of the learner's last frame (read by tests)."""
        self.act_exact_scale = hub.action("Learned values on the &exact answer's scale", "learnedExactScaleAction",
                                          lambda _on: self._hub.solving.mark_dirty(), checkable=True,
                                          tip="Draw learned values on the exact answer's colours even when they "
                                              "lie far outside them (else they get a scale of their own)")
        hub.menus.view.addAction(self.act_exact_scale)
        hub.game_shown.connect(self._learning_game_shown)
        from mdpviz.window.dyna import DynaView

        self.dyna = DynaView(hub)
        """Draws what a planning method (Dyna) adds to a learner's frame (its curves, built on first use:
        ``dyna.plan_curves``)."""

    def _learning_game_shown(self, game) -> None:
        """Another game with a learner still picked: the window says plainly that Run trains it (issue 35
        item 7: after a learning demo, Run on tic-tac-toe trained SARSA unannounced)."""
        m = self._hub.solver_panel.method
        hooks = self._hub.stage.session.spec.model
        self._hub.solver_panel.learning.set_feature_kinds(
            kinds_for(True if getattr(hooks, "coordinates", None) else None,  # (only whether it has coordinates)
                      game_features=getattr(hooks, "features", None) is not None
                      or getattr(hooks, "action_features", None) is not None),
            getattr(hooks, "default_features", ""))
        if learns(m):
            text = (f"{game.title}: Run trains {registry.title(m)} from experience (picked before); pick a solver "
                    "in the Solver panel's Algorithm for the exact answer.")
            QTimer.singleShot(0, self, lambda: self._hub.status.showMessage(text, 15000))

    @property
    def learning_curves(self) -> LearningCurves:
        """The convergence dock's page while a learner is loaded (built on first use, as the others)."""
        if self._learning_curves is None:
            self._learning_curves = LearningCurves()
            self._learning_curves.set_font_size(self._plot_px)
            self._hub.conv_stack.addWidget(self._learning_curves)
        return self._learning_curves

    @property
    def approx_curves(self) -> ApproxCurves:
        """The convergence dock's page while a learner with function approximation is loaded (built on first
        use: its seven plots cost a third of a window's construction, and most lessons never show them)."""
        if self._approx_curves is None:
            self._approx_curves = ApproxCurves()
            self._approx_curves.set_font_size(self._plot_px)
            self._hub.conv_stack.addWidget(self._approx_curves)
        return self._approx_curves

    @property
    def pg(self):
        """Draws a policy-gradient learner's snapshots (its plots: ``pg.curves``, the dock's page then; built
        on first use, as :attr:`approx_curves`)."""
        if self._pg is None:
            from mdpviz.window.policy_gradient import PGView

            self._pg = PGView(self._hub)
            self._pg.curves.set_font_size(self._plot_px)
        return self._pg

    def _learning_presenter(self, on: bool) -> None:
        self._plot_px = PRESENTER_PLOT_PX if on else PLOT_PX
        if self._learning_curves is not None:
            self._learning_curves.set_font_size(self._plot_px)
        if self._approx_curves is not None:
            self._approx_curves.set_font_size(self._plot_px)
        if self._pg is not None:
            self._pg.curves.set_font_size(self._plot_px)
        if self.active:
            QTimer.singleShot(0, self, self._fit_solver_dock)

    def _fit_solver_dock(self) -> None:
        """Give the solver dock the height of its learner's settings (at most 60% of the window; they
        scroll beyond), taken from the docks below it (the inspector)."""
        if not self.active or self._hub.docks["solver"].isFloating():
            return
        want = self._hub.solver_panel.sizeHint().height() + self._hub.docks["solver"].titleBarWidget().sizeHint().height() \
            if self._hub.docks["solver"].titleBarWidget() is not None else self._hub.solver_panel.sizeHint().height() + 24
        self._hub.main.resizeDocks([self._hub.docks["solver"]], [min(want, int(self._hub.main.height() * 0.6))], Qt.Orientation.Vertical)

    @property
    def active(self) -> bool:
        """True while the controller holds a learner (not a solver)."""
        return learns(self._hub.controller.method)

    @property
    def approx_active(self) -> bool:
        """True while the controller holds a learner with function approximation."""
        return self._hub.controller.method in APPROXIMATORS

    @property
    def pg_active(self) -> bool:
        """True while the controller holds a policy-gradient learner."""
        return self._hub.controller.method in POLICY_GRADIENTS

    def learning_options(self) -> dict:
        """The learner's options from the solver panel (fields of LearningSettings; checked by the load)."""
        lp = self._hub.solver_panel.learning
        m = self._hub.solver_panel.method
        try:
            opts = lp.options(m, self._hub.stage.session.start_state())
            if m in PLANNERS:  # the world after its change, where the game's changes (issue 38)
                from mdpviz.window.dyna import planning_inputs

                return planning_inputs(self._hub.stage.session, opts)
            return self._game_inputs(m, opts) if m in APPROXIMATORS or m in POLICY_GRADIENTS else opts
        except ValueError as e:
            self._hub.status.showMessage(str(e), 8000)
            return {"start": self._hub.stage.session.start_state()}

    def _game_inputs(self, method: str, opts: dict) -> dict:
        """A learner with function approximation's options with what the game gives (its ModelHooks: the
        states' coordinates, its own features and their initial weights, its target and behaviour policies),
        as ``mdpviz learn`` adds them (:func:`~mdpviz.models.kit.teaching.approx_inputs.approx_inputs`)."""
        from mdpviz.models.kit.teaching.approx_inputs import approx_inputs

        session = self._hub.stage.session
        mdp = session.mdp()
        return opts if mdp is None else approx_inputs(session.spec, session.settings, mdp, method, opts)

    def _on_learning_settings(self) -> None:
        if learns(self._hub.solver_panel.method):
            self._hub.solving.reset_solver()

    def _learning_reset(self) -> None:
        """A new solve or learner: the convergence dock shows the curves of a learner, the game's plot else."""
        self._hub.stage.board.show_model(None)  # (a planning method's marks: drawn again by its frames only)
        if self._hub.controller.method not in PLANNERS and self.dyna.page_shown():
            self._hub.conv_stack.setCurrentWidget(self.learning_curves)  # (the branches below take it from there)
        if self._hub.controller.method in PLANNERS:
            self.learning_curves.reset()
            self.dyna.reset(self._hub.controller.method, self._hub.controller.options)
            QTimer.singleShot(0, self, self._fit_solver_dock)
        elif self.approx_active:
            self._approx_reset()
        elif self.pg_active:
            self.pg.reset()
            QTimer.singleShot(0, self, self._fit_solver_dock)
        elif self.active:
            ctrl = self._hub.solver_panel.method not in PREDICTION
            self.learning_curves.reset(control=ctrl)
            self._hub.conv_stack.setCurrentWidget(self.learning_curves)
            self._hub.docks["convergence"].setWindowTitle("Learning curves")
            self._hub.docks["convergence"].setAccessibleName("Learning curves")
            QTimer.singleShot(0, self, self._fit_solver_dock)
        elif self._hub.conv_stack.currentWidget() in (self._learning_curves, self._approx_curves,
                                                      None if self._pg is None else self._pg.curves):
            g = self._hub.stage.game
            self._hub.conv_stack.setCurrentWidget(self._hub.stage.plot_of(g.key))
            self._hub.docks["convergence"].setWindowTitle(g.convergence_title)
            self._hub.docks["convergence"].setAccessibleName(g.convergence_title)
        self._walk = (-1, 0.0)
        self._tr, self._tr_wait, self._replays = None, False, {}
        self._lesson_for_method()

    def _approx_reset(self) -> None:
        """A learner with function approximation: its plots in the convergence dock, set for the game's
        coordinates (one: the values over them; two: the surface) and the method (off-policy: the weights
        over steps)."""
        c = self._hub.controller
        spec, opts, mdp = registry.get(c.method), c.options, c.mdp
        coords = opts.get("coords")
        cost = mdp is not None and not spec.prediction and bool(np.all(np.asarray(mdp.reward) <= 0))
        self.approx_curves.reset(coords=None if coords is None else coords.values,
                                 names=() if coords is None else coords.names, off_policy=spec.takes("behaviour"),
                                 expected=bool(opts.get("expected")), cost=cost,
                                 step=str(opts.get("features", "")).startswith("aggregate"))
        self._expected: tuple | None = None  # (generator, weights per step) of the expected update beside it
        self._hub.conv_stack.setCurrentWidget(self.approx_curves)
        self._hub.docks["convergence"].setWindowTitle("Function approximation")
        self._hub.docks["convergence"].setAccessibleName("Function approximation")
        QTimer.singleShot(0, self, self._fit_solver_dock)

    def take_steps(self, steps: tuple) -> None:
        """Snapshots arrived: the curves take their points (drawn at the next frame)."""
        pg = tuple(s for s in steps if isinstance(s, PGStep))
        if pg:
            self.pg.curves.extend(pg)
            self._tr_wait = False
            return
        approx = tuple(s for s in steps if isinstance(s, ApproxStep))
        if approx:
            self.approx_curves.extend(approx)
            self._tr_wait = False  # (one episode at a time: no transitions to replay)
            return
        steps = tuple(s for s in steps if isinstance(s, LearningStep))
        if not steps:
            return
        if self.learning_curves.exact_return is None and self._hub.controller.mdp is not None:
            step = steps[0]
            start = int(self._hub.controller.options.get("start", 0))
            self.learning_curves.set_exact_return(float(step.exact.values[start]))
        self.learning_curves.extend(steps)
        self.dyna.extend(steps)
        if self._tr_wait:  # a transition Step: the new episode is shown from its first transition
            self._tr_wait = False
            i = len(self._hub.controller.history) - 1
            self._tr = (i, 1) if self.replay_at(i) else None
            if self._tr is None:
                self._hub.status.showMessage(
                    f"{registry.title(self._hub.controller.method)} is stepped one episode at a time (one transition at a "
                    f"time: {', '.join(LEARNERS[m] for m in REPLAYABLE)})", 8000)

    # ------------------------------------------------------------------ one transition at a time
    def replay_at(self, i: int) -> list | None:
        """The transitions of recorded episode ``i`` replayed one at a time (cached), or None."""
        if i in self._replays:
            return self._replays[i]
        c = self._hub.controller
        hist = c.history
        out = None
        if 0 <= i < len(hist) and isinstance(hist[i], LearningStep) and not isinstance(hist[i], DynaStep) \
                and c.mdp is not None:  # (a planning method's episode is not replayed: n updates a step)
            prev = hist[i - 1] if i > 0 else None
            try:
                out = replay_episode(c.mdp, prev, hist[i], LearningSettings(method=c.method, **c.options)) or None
            except ValueError:
                out = None
        if len(self._replays) > 64:
            self._replays.clear()
        self._replays[i] = out
        return out

    def step_transition(self) -> None:
        """Step by one transition: the next one of the shown episode, or the next episode's first."""
        c = self._hub.controller
        n = len(c.history)
        if self._tr is not None and self._tr[0] == n - 1 and self._hub.solving.view_index is None:
            rep = self.replay_at(n - 1)
            if rep is not None and self._tr[1] < len(rep):
                self._tr = (n - 1, self._tr[1] + 1)
                self._hub.solving.mark_dirty()
                return
        if not c.can_step:
            return
        self._tr_wait = True
        self._hub.solving.follow_newest()
        c.step()

    def transition_view(self) -> tuple[LearningStep, Update | None, int, int] | None:
        """While stepping transitions and the shown episode is the one stepped: ``(snapshot after t
        transitions, the update of transition t, t, transitions of the episode)``; else None."""
        i = self._hub.solving.shown_index()
        if self._tr is None or self._tr[0] != i:
            return None
        rep = self.replay_at(i)
        if not rep:
            return None
        c = self._hub.controller
        t = min(self._tr[1], len(rep))
        prev = c.history[i - 1] if i > 0 else None
        table, upd = rep[t - 1]
        return partial_step(c.mdp, prev, c.history[i], table, t), upd, t, len(rep)

    def _lesson_for_method(self) -> None:
        """The lesson tab follows the picker: the learning lesson while a learner is chosen, the game's
        else (written again when shown, as the game's is)."""
        if self._lesson_learning != self.active or self.active:
            self._lesson_learning = self.active
            self._hub.classroom.lesson_changed()

    def learning_lesson(self):
        """The learning lesson of the current model with the learner's settings (the lesson tab's page)."""
        from mdpviz.models.kit.teaching.learning_lesson import learning_lesson

        if self.approx_active or self.pg_active or self._hub.controller.method in PLANNERS:
            # the game's lesson says what each method converges to (issue 36 item 7); the mazes' lesson their change
            from mdpviz.export import game_lesson

            return game_lesson(self._hub.stage.game)
        session = self._hub.stage.session
        mdp = session.mdp()
        opts = dict(self._hub.controller.options)
        try:
            step = LearningSettings(method=self._hub.controller.method, **opts)
        except ValueError:
            step = LearningSettings(method=self._hub.controller.method)
        return learning_lesson(mdp, step, title=f"{self._hub.stage.game.title}: learning by {LEARNERS[step.method]}",
                               start=step.start, state_name=session.state_name, action_name=session.action_name)

    # ------------------------------------------------------------------ drawing
    def shown_step(self) -> LearningStep | None:
        """The learner's snapshot the history slider points at (None: none yet, or not learning)."""
        c = self._hub.controller
        i = self._hub.solving.shown_index()
        step = c.history[i] if i >= 0 else None
        return step if isinstance(step, (LearningStep, ApproxStep, PGStep)) else None

    def draw_frame(self) -> None:
        c = self._hub.controller
        g, session = self._hub.stage.game, self._hub.stage.session
        mdp = c.mdp
        hist = c.history
        i = self._hub.solving.shown_index()
        step = self.shown_step()
        lp = self._hub.solver_panel.learning
        mode = lp.mode
        board = self._hub.stage.board
        name = LEARNERS.get(c.method) or registry.title(c.method)
        if mdp is None or session.mdp() is not mdp or step is None or np.shape(step.visits if isinstance(step, PGStep) else step.values) != (mdp.n_states,):
            cap = (f"{name}: press Step for one episode or Run" if mdp is not None
                   else (session.mdp_error() or g.building_text() or g.empty_text()))
            board.set_value_range(None)
            board.show_sweep(None, self._hub.solving.scale, caption=cap)
            self.learning_curves.refresh()
            self._hub.solver_panel.show_history(len(hist), i)
            self._hub.solving.update_buttons()
            self._hub.solver_panel.show_status(f"{name}: ready \u00b7 Run trains {name} from experience (a learner, "
                                               "not an exact solver)" if c.state != "failed"
                                               else f"{name}: failed: {c.error}")
            self._hub.state_label.setText(f"{g.title} \u00b7 {name} \u00b7 {STATE_WORDS.get(c.state, c.state)}")
            self._hub.solving.update_inspection()
            return
        if isinstance(step, ApproxStep):
            self._draw_approx(step, i)
            return
        if isinstance(step, PGStep):
            self.pg.draw(step, i, mode, state_word=STATE_WORDS.get(c.state, c.state))
            return
        tv = self.transition_view()
        if tv is not None:
            step = tv[0]
        shown, ref = learning_view(step, mdp, mode)
        scale = mode_scale(mode, step, self._hub.solving.scale, session.game.value_label)
        seen = visited_states(step, mdp)
        n_seen, rms, largest = visited_errors(step, mdp)
        own = ""
        if mode == "learned" and not self.act_exact_scale.isChecked() and far_from_scale(np.asarray(shown.values)[seen], scale):
            v, exact = np.asarray(shown.values)[seen], scale
            scale = range_scale(float(v.min()), float(v.max()), label=f"{session.game.value_label} (learned)")
            own = f" \u00b7 own colours: far from the exact {exact.lo:.3g}..{exact.hi:.3g} (View menu)"
        self.shown_scale = scale
        unvisited = ~seen & ~np.asarray(mdp.terminal, dtype=bool) if mode in ("learned", "error") else None
        if unvisited is not None and unvisited.any():  # a state that learned nothing is not "not optimal"
            keep = np.asarray(shown.changed)[~unvisited[np.asarray(shown.changed, dtype=np.int64)]]
            keep.setflags(write=False)
            ref_pol = np.where(unvisited, shown.policy, ref.policy)
            ref_pol.setflags(write=False)
            shown, ref = dataclasses.replace(shown, changed=keep), dataclasses.replace(ref, policy=ref_pol, changed=keep)
        n_diff = int(shown.changed.size)
        when = f"episode {step.episode:,}" + ("" if tv is None else f", transition {tv[2]} of {tv[3]}") + (
            self.dyna.caption(step) if isinstance(step, DynaStep) else "")
        cap = f"{when} \u00b7 {MODE_WORDS[mode]} \u00b7 RMS error {rms:.3g} over {n_seen:,} visited{own}"
        if step.policy is not None:
            cap += (f" \u00b7 {n_diff} not optimal (dashed)" if mode != "exact" else " \u00b7 optimal policy")
        if unvisited is not None and unvisited.any():
            cap += f" \u00b7 {int(unvisited.sum()):,} unvisited (hatched)"
        board.set_value_range(c.value_range if mode in ("learned", "exact") else None)
        board.show_sweep(shown, scale, caption=g.board_caption(cap, shown), previous=ref)
        board.show_unvisited(unvisited if unvisited is not None and unvisited.any() else None)
        if isinstance(step, DynaStep):
            self.dyna.draw(step, cursor=None if self._hub.solving.view_index is None else step.episode)
        self._hub.color_bar.show_scale(board.shown_scale or scale)
        if tv is not None:  # the token stands where the transition led
            board.show_token(self._hub.playing.token_state(int(step.path[tv[2]]), int(step.path[tv[2] - 1])), when)
            self._walk = (-2, 0.0)  # (taken away when the view leaves the transitions)
        else:
            self._walk_token(step)
        self.learning_curves.refresh()
        self.learning_curves.set_cursor(None if self._hub.solving.view_index is None else step.episode)
        self._hub.solver_panel.show_history(len(hist), i)
        self._hub.solving.update_buttons()
        agree = "" if step.policy is None else f" \u00b7 optimal actions {step.greedy_agreement:.0%}"
        n_live = int(np.count_nonzero(~np.asarray(mdp.terminal, dtype=bool)))
        self._hub.solver_panel.show_status(
            f"{when} \u00b7 {step.updates:,} updates \u00b7 return {step.ret:.4g} \u00b7 "
            f"RMS error {rms:.3g}, largest {largest:.3g} over the {n_seen:,} visited states (all {n_live:,} "
            f"non-terminal: {step.rms_error:.3g}, {step.max_error:.3g}){agree} \u00b7 \u03b5 {step.epsilon:.3g}"
            + (f" \u00b7 {self.dyna.status(step)}" if isinstance(step, DynaStep) else ""))
        self._hub.state_label.setText(f"{g.title} \u00b7 {name} \u00b7 {STATE_WORDS.get(c.state, c.state)}")
        self._hub.solving.update_inspection()

    def _draw_approx(self, step: ApproxStep, i: int) -> None:
        """A frame of a learner with function approximation: the board shows the view the solver panel picks
        (approximate, exact, TD fixed point, best fit, error, visits) on the true values' colour scale, with
        the greedy policy of q_hat (control); the plots take the shown snapshot."""
        c, g, session = self._hub.controller, self._hub.stage.game, self._hub.stage.session
        mdp, mode, board = c.mdp, self._hub.solver_panel.learning.mode, self._hub.stage.board
        term = np.asarray(mdp.terminal, dtype=bool)
        values = np.array(step.shown(mode), dtype=np.float64)
        missing = ~np.isfinite(values)  # (the TD fixed point when it does not exist)
        values[missing | (term if mode != "visits" else False)] = 0.0
        policy = (np.full(mdp.n_states, -1, dtype=np.int64) if step.policy is None or mode in ("exact", "td", "best")
                  else np.array(step.policy, dtype=np.int64))
        changed = np.zeros(0, dtype=np.int64)
        for a in (values, policy, changed):
            a.setflags(write=False)
        a = step.answer
        shown = Sweep(values=values, policy=policy, changed=changed, method=step.method, phase="episode",
                      iteration=step.episode, delta=step.rms_ve, mean_delta=step.rms_ve, delta_state=-1,
                      elapsed=step.elapsed)
        scale = approx_scale(mode, step, mdp, session.game.value_label)
        own = ""
        if mode == "approximate" and not self.act_exact_scale.isChecked() and far_from_scale(values[~term], scale):
            v, exact = values[~term], scale  # (Baird's diverging weights: values in the hundreds on a 0..1 scale)
            scale = range_scale(float(v.min()), float(v.max()), label=f"{session.game.value_label} (approximate)")
            own = f" \u00b7 own colours: far from the exact {exact.lo:.3g}..{exact.hi:.3g} (View menu)"
        self.shown_scale = scale
        td = "none" if a.td is None else f"{math.sqrt(max(a.td.ve, 0.0)):.3g}"
        cap = (f"episode {step.episode:,} \u00b7 {APPROX_MODE_LABELS[mode]} \u00b7 \u221aVE {step.rms_ve:.3g} "
               f"(best fit {math.sqrt(max(a.best.ve, 0.0)):.3g}, TD fixed point {td}) \u00b7 {step.n_features} features")
        if mode == "td" and a.td is None:
            cap += f" \u00b7 no TD fixed point: {a.td_note}"
        cap += own
        board.set_value_range(None)
        board.show_sweep(shown, scale, caption=g.board_caption(cap, shown), previous=shown)  # (nothing marked changed)
        board.show_unvisited(None)
        self._hub.color_bar.show_scale(board.shown_scale or scale)
        self.approx_curves.show_step(step)
        self._expected_beside(step)
        self.approx_curves.refresh()
        self._hub.solver_panel.show_history(len(c.history), i)
        self._hub.solving.update_buttons()
        self._hub.solver_panel.show_status(f"episode {step.episode:,} \u00b7 {step.updates:,} updates \u00b7 "
                                           f"{step.features}: {step.n_features} features \u00b7 \u221aVE {step.rms_ve:.3g}"
                                           + (f" \u00b7 \u03b5 {step.epsilon:.3g}" if step.policy is not None else ""))
        self._hub.state_label.setText(f"{g.title} \u00b7 {registry.title(c.method)} \u00b7 "
                                      f"{STATE_WORDS.get(c.state, c.state)}")
        self._hub.solving.update_inspection()

    def _expected_beside(self, step: ApproxStep) -> None:
        """Beside a sampled off-policy run with the game's target policy (Baird's), the expected update from the
        same weights with the same step sizes (:func:`~mdpviz.solvers.fixed_points.expected_updates`), at each
        drawn step: figure 11.2's two panels in one plot."""
        from mdpviz.solvers.approximation import default_alpha
        from mdpviz.solvers.fixed_points import expected_updates

        cur, c = self.approx_curves, self._hub.controller
        x = cur.weight_steps
        if not cur.off_policy or cur.expected_run or "target_rows" not in c.options or not x.size:
            return
        need = int(x.max())
        if need > EXPECTED_MAX_STEPS:
            return
        if self._expected is None:
            a, o = step.answer, c.options
            w0 = np.asarray(o.get("initial_weights") or np.zeros(step.n_features), dtype=np.float64)
            gen = expected_updates(c.mdp, a.X, o["target_rows"], a.mu, method=c.method, w0=w0,
                                   alpha=float(o.get("alpha") or default_alpha(np.asarray(a.X))),
                                   beta=float(o.get("beta", 0.05)), steps=EXPECTED_MAX_STEPS, v=a.v)
            self._expected = (gen, [w0])
        gen, rows = self._expected
        if len(rows) <= need:
            rows.extend(np.asarray(e.weights, dtype=np.float64) for _, e in zip(range(need + 1 - len(rows)), gen))
        if cur.expected_rows is None or len(cur.expected_rows) != x.size:
            cur.expected_rows = np.vstack([rows[min(int(k), len(rows) - 1)] for k in x])
            cur.stale = True

    def _approx_inspection_html(self, step: ApproxStep) -> str:
        """The inspector's page of a learner with function approximation: its last weight update with its
        numbers (w <- w + alpha rho delta x) and the clicked state's values beside the exact answers."""
        session, a = self._hub.stage.session, step.answer
        parts = [f"<h3>{html.escape(registry.title(step.method))}: episode {step.episode:,}</h3>",
                 "<p><b>Last weight update</b>:<br>"]
        upd = step.last_update
        if upd is not None:
            parts.append("<code>" + html.escape(upd.text(session.state_name, session.action_name)) + "</code>")
            parts.append(f"<br>\u03b4 = {upd.delta:.4g}")
        else:
            lstd = registry.get(step.method).takes("lstd_epsilon")  # (LSTD: no step size, a solve)
            parts.append("none written: " + ("the expected update (no sample)" if step.expected else
                                             "LSTD solves A\u0302 w = b\u0302" if lstd else "no step yet"))
        parts.append("</p>")
        s = self._hub.solving.selected
        mdp = self._hub.controller.mdp
        if s is not None and mdp is not None and 0 <= s < mdp.n_states:
            td = "none" if a.td is None else f"{a.td.values[s]:.4g}"
            x = np.asarray(a.X)[s]
            nz = np.flatnonzero(x)
            feats = ", ".join(f"{j}: {x[j]:.3g}" for j in nz[:8]) + (" ..." if nz.size > 8 else "")
            parts.append(f"<p><b>{html.escape(self._hub.stage.game.state_title(s))}</b>: visited {int(step.visits[s]):,} "
                         f"times; approximate {step.values[s]:.4g}, exact {a.v[s]:.4g}, best fit {a.best.values[s]:.4g}, "
                         f"TD fixed point {td}; \u03bc {a.mu[s]:.4g}; x(s) = {{{html.escape(feats)}}}</p>")
        else:
            parts.append("<p>Click a state of the board for its approximate and exact values and its features.</p>")
        return "".join(parts)

    def _walk_token(self, step: LearningStep) -> None:
        """At a finite Run speed up to ANIMATE_MAX_RATE, the newest episode's path walks on the board's
        token over the episode's share of a second; otherwise no token."""
        c = self._hub.controller
        rate = c.rate
        board = self._hub.stage.board
        if self._hub.solving.view_index is not None or not (c.state == "running" and math.isfinite(rate) and rate <= ANIMATE_MAX_RATE):
            if self._walk[0] != -1:
                board.show_token(None)
                self._walk = (-1, 0.0)
            return
        now = time.perf_counter()
        if self._walk[0] != step.episode:
            self._walk = (step.episode, now)
        k = len(step.path)
        i = min(k - 1, int((now - self._walk[1]) * rate * k))
        board.show_token(self._hub.playing.token_state(int(step.path[i]), int(step.path[max(i - 1, 0)])), f"t={i}")
        if i < k - 1:
            self._hub.solving.mark_dirty()  # the next frame moves the token on

    # ------------------------------------------------------------------ inspector
    def learning_inspection_html(self) -> str | None:
        """The inspector's page while learning: the last update written out with its numbers, and for
        the clicked state its learned and exact Q per action (or V) and its visits. None: not learning."""
        c = self._hub.controller
        mdp = c.mdp
        step = self.shown_step()
        if not self.active or mdp is None or step is None:
            return None
        if isinstance(step, ApproxStep):
            return self._approx_inspection_html(step)
        if isinstance(step, PGStep):
            return self.pg.inspection_html(step)
        session = self._hub.stage.session
        i = self._hub.solving.shown_index()
        tv = self.transition_view()
        if tv is not None:  # stepping transitions: the update of the shown one
            step, upd, words = tv[0], tv[1], ""
            head = f"episode {step.episode:,}, transition {tv[2]} of {tv[3]}"
            what = "this transition's update"
        else:
            rep = self.replay_at(i)
            if rep:
                upd, words = rep[-1][1], ""
            else:
                prev = c.history[i - 1] if i > 0 and isinstance(c.history[i - 1], LearningStep) else None
                try:
                    rule = LearningSettings(method=c.method, **c.options).step
                except (ValueError, TypeError):  # (a planning method's options are not a learner's)
                    rule = (0.1, 0.0)
                upd, words = last_update(prev, step, mdp, rule)
            head = f"episode {step.episode:,}"
            what = "the episode's last transition"
        parts = [f"<h3>{html.escape(registry.title(step.method))}: {head}</h3>",
                 f"<p><b>Last update</b> ({what}):<br>"]
        if upd is not None:
            parts.append("<code>" + html.escape(upd.text(lambda s: session.state_name(s), lambda a: session.action_name(a)))
                         + "</code>")
        else:
            parts.append(html.escape(words))
        parts.append("</p>")
        s = self._hub.solving.selected
        if s is not None and 0 <= s < mdp.n_states:
            parts.append(f"<p><b>{html.escape(self._hub.stage.game.state_title(s))}</b>: visited {int(step.visits[s]):,} "
                         f"time{'s' if step.visits[s] != 1 else ''}; learned V {step.values[s]:.4g}, "
                         f"exact V {step.exact.values[s]:.4g}.</p>")
            if mdp.terminal[s]:
                parts.append("<p>Terminal: its value is 0, nothing to learn.</p>")
            else:
                rows = range(int(mdp.state_ptr[s]), int(mdp.state_ptr[s + 1]))
                head = ("<tr><th>action</th><th>learned</th><th>exact</th><th>N</th><th></th></tr>"
                        if step.q is not None else "<tr><th>action</th><th>exact Q</th><th></th></tr>")
                body = []
                for r in rows:
                    a = int(mdp.row_action[r])
                    mark = []
                    if step.policy is not None and int(step.policy[s]) == a:
                        mark.append("learned greedy")
                    if step.exact.optimal[r]:
                        mark.append("optimal")
                    cells = [html.escape(session.action_name(a))]
                    if step.q is not None:
                        cells += [f"{step.q[r]:.4g}", f"{step.exact.q[r]:.4g}", f"{int(step.row_updates[r]):,}"]
                    else:
                        cells += [f"{step.exact.q[r]:.4g}"]
                    cells.append(", ".join(mark))
                    body.append("<tr>" + "".join(f"<td>{x}</td>" for x in cells) + "</tr>")
                parts.append("<p>Q per action (N: updates of that Q):</p>" if step.q is not None else "<p>Q per action:</p>")
                parts.append("<table cellspacing='4'>" + head + "".join(body) + "</table>")
        else:
            parts.append("<p>Click a state of the board for its learned and exact Q per action and its visits.</p>")
        if isinstance(step, DynaStep):
            parts.append(self.dyna.inspection_html(step))
        return "".join(parts)

    def learning_inspection_text(self) -> str:
        """The inspector's page as plain text (tests, screen readers)."""
        return self._hub.inspector.text.toPlainText()
