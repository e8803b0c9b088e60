"""A scenario keeps every choice of the Solver panel: any algorithm of the picker (the asynchronous and
evaluation methods, the learners: a file saved with one used to be refused when opened), the tie rule,
the Q convention, the sequence, the order, theta and a learner's settings; a bad one is named."""
from __future__ import annotations

import json

import pytest

from mdpviz.models.kit.game.scenario import ScenarioError, parse_scenario


def test_a_learner_and_its_settings_come_back(window, tmp_path):
    p = window.solver_panel
    window.switch_game("gridworld")
    p.set_method("q")
    lp = p.learning
    lp.episodes.setValue(321)
    lp.epsilon.setValue(0.35)
    lp.seed.setValue(17)
    lp.explore.setChecked(True)
    lp.alpha.setText("1/n^0.8")
    lp.alpha.editingFinished.emit()
    path = window.files.save_scenario(tmp_path / "q.json")
    doc = json.loads(path.read_text())
    assert doc["solver"]["method"] == "q" and doc["solver"]["learning"]["episodes"] == 321
    assert doc["solver"]["learning"]["alpha"] == "1/n^0.8"
    p.set_method("vi")
    lp.set_scenario_settings({})  # the defaults
    assert lp.episodes.value() != 321
    window.files.load_scenario(path)
    assert p.method == "q" and lp.episodes.value() == 321 and lp.epsilon.value() == pytest.approx(0.35)
    assert lp.seed.value() == 17 and lp.explore.isChecked() and lp.scenario_settings()["alpha"] == "1/n^0.8"
    assert not window.files.dirty


@pytest.mark.parametrize("method, opts", [
    ("vi", {"ties": "strict", "q_from": "current", "sequence": "aima"}),
    ("async-vi", {"order": "random"}),
    ("prioritized", {"theta": 0.001}),
    ("evaluate", {}),
    ("gs", {"q_from": "current"}),
    ("lp", {"ties": "strict"}),
])
def test_every_algorithm_and_its_options_come_back(window, tmp_path, method, opts):
    p = window.solver_panel
    p.set_method(method)
    p.set_scenario_options(opts)
    path = window.files.save_scenario(tmp_path / "s.json")
    solver = json.loads(path.read_text())["solver"]
    assert solver.get("options", {}) == opts and "learning" not in solver
    p.set_method("pi")
    p.set_scenario_options({})
    window.files.load_scenario(path)
    assert p.method == method and p.scenario_options() == opts and not window.files.dirty


def test_a_changed_option_is_an_unsaved_edit(window, tmp_path):
    window.files.save_scenario(tmp_path / "s.json")
    assert not window.files.dirty
    window.solver_panel.set_scenario_options({"ties": "strict"})
    assert window.files.dirty and window.windowTitle().endswith("*")


@pytest.mark.parametrize("solver, where, problem", [
    ({"method": "vi", "options": {"ties": "never"}}, "solver.options.ties", "not one of"),
    ({"method": "prioritized", "options": {"theta": -1}}, "solver.options.theta", "positive number"),
    ({"method": "vi", "options": {"colour": 1}}, "solver.options.colour", "not an option"),
    ({"method": "q", "learning": {"episodes": 0}}, "solver.learning.episodes", "out of range"),
    ({"method": "q", "learning": {"alpha": "2"}}, "solver.learning.alpha", "(0, 1]"),
    ({"method": "q", "learning": {"policy": "greedy"}}, "solver.learning.policy", "not one of"),
])
def test_a_bad_option_is_named_and_changes_nothing(window, tmp_path, solver, where, problem):
    p = window.solver_panel
    before = (p.method, p.scenario_options(), p.learning.scenario_settings())
    doc = {"format": "mdpviz-scenario", "version": 1, "game": "gridworld", "games": {}, "solver": solver}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ScenarioError) as e:
        window.files.load_scenario(path)
    assert e.value.where == where and problem in str(e.value)
    assert (p.method, p.scenario_options(), p.learning.scenario_settings()) == before
    assert window.game.key == "snakes"  # no game was opened either


def test_the_file_format_takes_every_method_and_checks_the_objects():
    base = {"format": "mdpviz-scenario", "version": 1, "game": "snakes", "games": {}}
    for m in ("async-vi", "prioritized", "evaluate", "mpi", "rvi", "q", "sarsa", "td0"):
        assert parse_scenario(json.dumps({**base, "solver": {"method": m}})).solver["method"] == m
    with pytest.raises(ScenarioError, match="must be an object"):
        parse_scenario(json.dumps({**base, "solver": {"method": "vi", "options": []}}))


def test_an_approximation_learners_features_come_back(window, tmp_path):
    """Issue 36: the Features picker's spec and the expected-update box are saved with the learner."""
    p = window.solver_panel
    window.switch_game("randomwalk")
    p.set_method("off-td")
    lp = p.learning
    lp.set_features("aggregate:20")
    lp.expected.setChecked(True)
    path = window.files.save_scenario(tmp_path / "walk.json")
    doc = json.loads(path.read_text())
    assert doc["solver"]["method"] == "off-td"
    assert doc["solver"]["learning"]["features"] == "aggregate:20" and doc["solver"]["learning"]["expected"] is True
    lp.set_features("tabular")
    lp.expected.setChecked(False)
    window.files.load_scenario(path)
    assert p.method == "off-td" and lp.features_text == "aggregate:20" and lp.expected.isChecked()
    with pytest.raises(ValueError, match="^features:"):
        lp.set_scenario_settings({"features": "tiles:x"})
    with pytest.raises(ValueError, match="^expected:"):
        lp.set_scenario_settings({"expected": "yes"})


def test_a_policy_gradient_learners_step_sizes_come_back(window, tmp_path):
    """Issue 37: alpha_theta and alpha_w are saved with the learner and restored."""
    p = window.solver_panel
    window.switch_game("corridor")
    p.set_method("reinforce-baseline")
    lp = p.learning
    lp.alpha_theta.setText("0.001953125")
    lp.alpha_w.setText("0.015625")
    lp.alpha_theta.editingFinished.emit()
    path = window.files.save_scenario(tmp_path / "corridor.json")
    doc = json.loads(path.read_text())
    assert doc["solver"]["method"] == "reinforce-baseline"
    assert doc["solver"]["learning"]["alpha_theta"] == "0.001953125" and doc["solver"]["learning"]["alpha_w"] == "0.015625"
    lp.set_scenario_settings({})
    assert lp.alpha_theta.text() == "" and lp.alpha_w.text() == ""
    window.files.load_scenario(path)
    assert p.method == "reinforce-baseline" and lp.alpha_theta.text() == "0.001953125" and lp.alpha_w.text() == "0.015625"
    with pytest.raises(ValueError, match="^alpha_theta:"):
        lp.set_scenario_settings({"alpha_theta": "2"})
