"""Function approximation in the window (issue 36 item 5): the Features picker, the approximation methods in the
algorithm picker, Board shows approximate / exact / TD fixed point / best fit / error, the plots in the
convergence dock and the inspector's last weight update."""
from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import make_window


def choose(w, method: str) -> None:
    p = w.solver_panel
    p.algorithm.setCurrentIndex(p.algorithm.findData(method))
    assert w.controller.method == method


def set_features(w, text: str) -> None:
    lp = w.solver_panel.learning
    lp.features.setEditText(text)
    lp.features.lineEdit().editingFinished.emit()
    assert lp.features_text == text


def step_episodes(qtbot, w, k: int) -> None:
    for _ in range(k):
        n = len(w.controller.history)
        w.solver_panel.step.click()
        qtbot.waitUntil(lambda: len(w.controller.history) > n and w.controller.state != "stepping", timeout=60_000)


@pytest.fixture
def walk(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path / "settings.ini", game="randomwalk")
    yield w
    w.shutdown()


def test_semi_td_with_aggregation_on_the_random_walk(qtbot, walk):
    w = walk
    p, lp = walk.solver_panel, walk.solver_panel.learning
    assert p.algorithm.findData("semi-td") > p.algorithm.findData("q")  # after the tabular learners
    offered = [lp.features.itemText(i) for i in range(lp.features.count())]
    assert "aggregate:10" in offered and any(t.startswith("tiles:") for t in offered)  # the walk has a position
    choose(w, "semi-td")
    set_features(w, "aggregate:10")
    step_episodes(qtbot, w, 3)
    step = w.learning.shown_step()
    assert step.features == "aggregate:10" and step.n_features == 10 and step.episode == 3
    modes = [lp.mode_picker.itemData(i) for i in range(lp.mode_picker.count())]
    assert modes == ["approximate", "exact", "td", "best", "error", "visits"]
    mdp, a = w.controller.mdp, step.answer
    live = ~np.asarray(mdp.terminal)
    for mode, values in {"approximate": step.values, "exact": a.v, "td": a.td.values, "best": a.best.values,
                         "error": step.values - a.v}.items():
        lp.set_mode(mode)
        w.solving.redraw()
        shown = w.stage.board._shown[1]  # (the snapshot the board draws: a CellBoard's (mdp, sweep, previous, delta))
        assert np.allclose(np.asarray(shown.values)[live], np.asarray(values)[live]), mode
    lp.set_mode("approximate")
    w.solving.redraw()
    scale = w.learning.shown_scale
    lp.set_mode("exact")
    w.solving.redraw()
    assert w.learning.shown_scale == scale  # one colour scale for the approximate and the exact values
    curves = w.learning.approx_curves
    assert w.conv_stack.currentWidget() is curves
    assert np.allclose(curves.error.root, np.sqrt([s.ve for s in w.controller.history]))
    assert curves.error.best_root == pytest.approx(np.sqrt(a.best.ve))
    assert curves.error.td_root == pytest.approx(np.sqrt(a.td.ve))
    assert curves.tabs.widget(0) is curves.function and curves.step  # aggregation: a staircase
    assert np.allclose(curves.function.curves["approximate"], step.values)
    assert np.allclose(curves.weights.bar_heights(), step.weights)
    s = int(step.last_update.state)
    w.solving.inspect(s)
    w.solving.redraw()
    text = w.inspector.text.toPlainText()
    assert step.last_update.text(w.session.state_name, w.session.action_name) in text
    assert f"approximate {step.values[s]:.4g}" in text and f"exact {a.v[s]:.4g}" in text


def test_a_bad_feature_spec_is_refused_in_one_line(qtbot, walk):
    lp = walk.solver_panel.learning
    choose(walk, "gradient-mc")
    messages = []
    lp.invalid_input.connect(messages.append)
    lp.features.setEditText("tiles:0:x")
    lp.features.lineEdit().editingFinished.emit()
    assert messages and messages[0].startswith("features") and "\n" not in messages[0]
    assert lp.features_text != "tiles:0:x"


def test_off_policy_td_on_baird_draws_the_weights_over_steps(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path / "settings.ini", game="baird")
    try:
        lp = w.solver_panel.learning
        choose(w, "off-td")
        assert lp.features_text == "game"  # Baird's own eight features come first
        lp.max_steps.setValue(1)
        step_episodes(qtbot, w, 3)
        step = w.learning.shown_step()
        assert step.n_features == 8
        curves = w.learning.approx_curves
        assert curves.tabs.widget(0) is curves.weights_curve
        w.solving.redraw()
        sampled = np.vstack([np.asarray(s.weights) for s in w.controller.history])
        assert np.allclose(curves.weights_curve.weights, sampled)
        assert np.allclose(w.controller.history[0].weights[:7], [1, 1, 1, 1, 1, 1, 10]) or step.episode > 0
    finally:
        w.shutdown()
