"""The Bandit testbed dock (issue 39): a window part (mdpviz/window/bandit.py) whose panel only draws.

One window for the dock's whole story (a window costs over a second to build; the controller's threads live
with it, so it cannot be shared between tests): Step is one pull of every run, the bars are run 1's snapshot; Run
and figure 2.2 are jobs whose curves join the ones shown, the same numbers as the headless testbed; the parameter
study is a job drawn on a log2 axis; Cancel stops a job; a refused field is one line in the panel, never a
traceback; presenter mode enlarges the text.
"""
from __future__ import annotations

import numpy as np

from mdpviz.solvers import bandits
from mdpviz.solvers.bandits import Testbed, run_testbed


def idle(w, bot) -> None:
    bot.waitUntil(lambda: not w.controller.job_busy, timeout=60_000)


def test_the_bandit_dock(window, qtbot):
    w, bot = window, qtbot
    # its shortcut is no other action's (a second Ctrl+Shift+B made both ambiguous: neither fired)
    from PySide6.QtGui import QAction

    keys = [k.toString() for a in w.findChildren(QAction) for k in a.shortcuts() if not k.isEmpty()]
    mine = w.hub.bandit.act_bandit.shortcut().toString()
    assert mine and keys.count(mine) == 1
    w.hub.bandit.act_bandit.trigger()
    panel = w.hub.bandit.panel
    assert not w.hub.bandit.bandit_dock.isHidden()  # (the window itself is not shown in the tests)
    panel.arms.setValue(5)
    panel.runs.setValue(40)
    panel.steps.setValue(30)
    panel.seed.setValue(3)
    step_is_one_pull_and_the_bars_are_run_1(w, bot)
    run_and_figure_2_2_are_jobs_with_the_testbeds_numbers(w, bot)
    the_parameter_study_is_a_job_on_a_log2_axis(w, bot)
    cancel_stops_a_job_and_a_bad_field_is_one_line(w, bot)
    presenter_mode_enlarges_the_plots_text(w, bot)


def step_is_one_pull_and_the_bars_are_run_1(w, bot):
    part, panel = w.hub.bandit, w.hub.bandit.panel
    panel.set_method(bandits.method_of(bandits.ucb))
    assert part.step()  # the first Step builds the generator as a job, then pulls
    bot.waitUntil(lambda: part.stepped is not None, timeout=60_000)
    for _ in range(6):
        assert part.step()
    s = part.stepped
    assert s.step == 7 and int(s.counts.sum()) == 7 and s.arms.shape == (40,)
    assert np.array_equal(s.counts[:5], np.ones(5)) or int(s.counts.max()) == 2  # UCB: each arm once first
    xs, heights = panel.bars.true_bars.opts["x"], panel.bars.true_bars.opts["height"]
    assert np.allclose(xs, np.arange(1, 6)) and np.allclose(heights, s.true_values)
    assert f"Step 7: run 1 pulled arm {s.last_arm + 1}" in panel.last.text()
    assert [t.textItem.toPlainText() for t in panel.bars.count_items] == [str(int(c)) for c in s.counts]
    # a change of the controls drops the stepped run: the next Step starts a new one
    panel.seed.setValue(4)
    assert part.stepped is None
    panel.seed.setValue(3)


def run_and_figure_2_2_are_jobs_with_the_testbeds_numbers(w, bot):
    part, panel = w.hub.bandit, w.hub.bandit.panel
    part.clear()
    panel.set_method(bandits.method_of(bandits.gradient_bandit))
    panel.params.set_value("alpha", 0.25)
    assert part.run()
    idle(w, bot)
    assert len(part.results) == 1
    same = run_testbed(bandits.method_of(bandits.gradient_bandit), Testbed(arms=5), runs=40, steps=30, seed=3, alpha=0.25)
    assert np.array_equal(part.results[0].average_reward, same.average_reward)
    assert part.run_figure_2_2()
    idle(w, bot)
    assert [r.options.get("epsilon") for r in part.results] == [None, 0.0, 0.01, 0.1]
    curves = panel.curves
    assert len(curves.reward.lines) == len(curves.optimal.lines) == 4 and curves.regret.isHidden()
    y = curves.optimal.lines[3].getData()[1]
    assert np.allclose(y, 100 * part.results[3].optimal_action)  # % optimal action, in percent
    assert "\u03b5=0.01" in curves.legend.text() and "gradient \u03b1=0.25" in curves.legend.text()


def the_parameter_study_is_a_job_on_a_log2_axis(w, bot):
    part, panel = w.hub.bandit, w.hub.bandit.panel
    panel.steps.setValue(10)
    assert part.run_study()
    idle(w, bot)
    panel.steps.setValue(30)
    study = part.study
    assert study is not None and study.steps == 10 and len(panel.study_plot.lines) == len(bandits.STUDY_GRID)
    x, y = panel.study_plot.lines[0].getData()
    assert np.allclose(2.0 ** x, study.curves[0].values) and np.allclose(y, study.curves[0].average_reward)
    axis = panel.study_plot.plot.getAxis("bottom")
    assert axis.tickStrings([-7, -2, 0, 2], 1, 1) == ["1/128", "1/4", "1", "4"]


def cancel_stops_a_job_and_a_bad_field_is_one_line(w, bot):
    part, panel = w.hub.bandit, w.hub.bandit.panel
    before = len(part.results)
    panel.runs.setValue(2000)
    panel.steps.setValue(50_000)
    panel.set_method(bandits.method_of(bandits.epsilon_greedy))
    assert part.run() and panel.cancel.isEnabled()
    panel.cancel.click()
    idle(w, bot)
    assert len(part.results) == before and not panel.cancel.isEnabled() and panel.step.isEnabled()
    panel.runs.setValue(40)
    panel.steps.setValue(30)
    panel.params.fields["epsilon"].setText("lots")
    assert not part.run()
    assert panel.message.text() == "epsilon: 'lots' is not a number"
    panel.params.fields["epsilon"].setText("2")
    assert not part.step() and "epsilon must be at most 1" in panel.message.text()
    panel.params.fields["epsilon"].setText("")
    # Bernoulli arms with a prior of the panel's: the regret panel shows, against the exact Bayes-optimal policy
    part.clear()
    panel.kind.setCurrentIndex(1)
    panel.arms.setValue(2)
    panel.prior.setText("2, 1")
    panel.prior.editingFinished.emit()
    assert part.run()
    idle(w, bot)
    (res,) = part.results
    assert res.testbed.prior == (2.0, 1.0) and res.regret is not None and not panel.curves.regret.isHidden()
    from mdpviz.solvers.bandit_exact import bayes_optimal

    assert np.allclose(res.regret, bayes_optimal(2, 30, prior=(2.0, 1.0)).reward_per_step - res.average_reward)
    panel.prior.setText("2")
    assert not part.run() and panel.message.text() == "--prior must be two numbers A,B above 0 (the Beta prior), got (2.0,)"


def presenter_mode_enlarges_the_plots_text(w, _bot):
    panel = w.hub.bandit.panel
    w.view.set_presenter(True)
    try:
        assert panel.bars.px == panel.curves.reward.px == panel.study_plot.px == 18
    finally:
        w.view.set_presenter(False)
    assert panel.bars.px == 12
