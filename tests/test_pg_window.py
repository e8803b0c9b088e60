"""Policy gradients in the window (issue 37 item 5): REINFORCE on the short corridor (Example 13.1) from the
Solver panel, the board showing each state's most likely action and its probability, the dock's J curve with one
point per snapshot against J_best, figure 13.1's curve with the current policy on it, the gradient view's job
(the exact gradient beside sampled estimates) and the inspector's last update of theta."""
from __future__ import annotations

import math

import numpy as np
import pytest

from mdpviz.solvers.pg_exact import evaluate_policy
from mdpviz.window.policy_gradient import NO_BASELINE, WITH_BASELINE, most_likely, one_probability
from tests.conftest import make_window


@pytest.fixture
def corridor(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path / "settings.ini", game="corridor")
    yield qtbot, w
    w.shutdown()


def step_episodes(qtbot, w, k: int) -> None:
    for _ in range(k):
        n = len(w.controller.history)
        w.solver_panel.step.click()
        qtbot.waitUntil(lambda: len(w.controller.history) > n and w.controller.state != "stepping", timeout=60_000)


def test_most_likely_and_one_probability_without_qt():
    from mdpviz.models.kit.game import registry

    spec = registry.get("corridor")
    settings = spec.default_settings()
    mdp = spec.compile(settings)
    X = spec.model.action_features(settings, mdp)
    right = one_probability(mdp, X)
    assert right is not None
    pi = np.where(np.asarray(mdp.row_action) == right, 0.7, 0.3)
    acts, probs = most_likely(mdp, pi)
    live = ~np.asarray(mdp.terminal)
    assert (acts[live] == right).all() and np.allclose(probs[live], 0.7) and (acts[~live] == -1).all()
    assert one_probability(mdp, np.eye(mdp.n_rows)) is None  # tabular features: one probability per state


def test_reinforce_on_the_corridor_in_the_window(corridor):
    qtbot, w = corridor
    p, lp = w.solver_panel, w.solver_panel.learning
    assert p.algorithm.findData("reinforce") > p.algorithm.findData("semi-td")  # after the approximation methods
    p.algorithm.setCurrentIndex(p.algorithm.findData("reinforce"))
    assert w.controller.method == "reinforce"
    assert lp.features_text == "game" and lp.pg_alphas.isVisibleTo(p) and not lp.alpha.isVisibleTo(p)
    lp.alpha_theta.setText("0.0009765625")  # 2^-10
    lp.alpha_theta.editingFinished.emit()
    assert w.controller.options["alpha_theta"] == 2 ** -10
    step_episodes(qtbot, w, 3)
    hist = w.controller.history
    step = w.learning.shown_step()
    assert step.episode == 3 and step.n_features == 2
    mdp = w.controller.mdp
    # the board: each state's most likely action and its probability (the book's start: left, 0.95 at first)
    lp.set_mode("probability")
    w.solving.redraw()
    shown = w.stage.board._shown[1]
    acts, probs = most_likely(mdp, step.policy)
    live = ~np.asarray(mdp.terminal)
    assert np.allclose(np.asarray(shown.values)[live], probs[live]) and (np.asarray(shown.policy) == acts).all()
    assert probs[live].min() > 0.5
    # the dock: J over episodes, one point per snapshot, against J_best = -(6 + 4 sqrt 2)
    curves = w.learning.pg.curves
    assert w.conv_stack.currentWidget() is curves
    assert np.allclose(curves.j_curve.J, [s.J for s in hist]) and curves.j_curve.episodes.size == len(hist)
    assert curves.j_curve.J_best == pytest.approx(-(6 + 4 * math.sqrt(2)), abs=1e-6)
    # figure 13.1: the curve (computed as a job after the reset) and the shown policy's probability of right
    qtbot.waitUntil(lambda: curves.tabs.indexOf(curves.policy_curve) >= 0, timeout=60_000)
    w.solving.redraw()
    right = w.learning.pg.curve_action
    p_right = float(step.policy[mdp.row_of(0, right)])
    assert curves.policy_curve.current[0] == pytest.approx(p_right)
    assert curves.policy_curve.best[1] == pytest.approx(-(6 + 4 * math.sqrt(2)), abs=0.02)
    # the inspector writes the last update of theta with its numbers
    w.solving.inspect(0)
    w.solving.redraw()
    text = w.inspector.text.toPlainText()
    assert step.last_update.text(w.session.state_name, w.session.action_name) in text


    # the gradient view: N sampled estimates at the shown theta, computed as a job off the GUI thread
    curves.tabs.setCurrentWidget(curves.gradient)
    w.solving.redraw()  # the frame starts the job on the controller's job thread
    qtbot.waitUntil(lambda: curves.estimates is not None and not w.controller.job_busy, timeout=60_000)
    w.solving.redraw()
    step = w.learning.shown_step()
    r = curves.estimates
    assert np.array_equal(r.theta, step.theta)
    pv = evaluate_policy(w.controller.mdp, w.learning.pg.Xsa, step.theta, start=0)
    assert np.allclose(curves.gradient.bar_heights(), pv.gradient)
    assert np.allclose(r.exact, pv.gradient)
    for name in (NO_BASELINE, WITH_BASELINE):
        assert np.allclose(curves.gradient.bar_heights(name), r.stats[name].mean)
    assert r.stats[WITH_BASELINE].variance < r.stats[NO_BASELINE].variance  # the baseline lowers the variance


def test_a_policy_gradient_frame_draws_no_ties_or_endless_marks_from_its_probabilities():
    """Issue 37: a frame of a policy-gradient run carries each state's most likely action's probability in
    ``values``; ties and "never ends" marks computed from them (as from a solver's values) were drawn on the
    corridor and the grid world. :func:`backed_up` says which frames are values to back up."""
    import numpy as np

    from mdpviz.models.kit.pictures.ties import backed_up
    from mdpviz.solvers.sweep import Sweep

    common = dict(values=np.zeros(3), policy=np.zeros(3, dtype=np.int64), changed=np.zeros(0, dtype=np.int64),
                  phase="episode", iteration=1, delta=0.0, mean_delta=0.0, delta_state=-1, elapsed=0.0)
    assert not backed_up(Sweep(method="reinforce", **common))
    assert backed_up(Sweep(method="vi", **common)) and backed_up(Sweep(method="q", **common))
    assert not backed_up(None)
