"""The ``bandit`` game (issue 39): the belief MDP as a game of the registry, its settings, the tree the board draws
(a pure function), the Gittins job, and the window: solving colours the tree, a belief deeper than the drawn tree
becomes its root, the Gittins tab computes its heatmap as a job."""
from __future__ import annotations

import math

import numpy as np
import pytest

from mdpviz.models.bandit import rules as bd
from mdpviz.models.bandit.spec import SPEC, gittins_job
from mdpviz.models.kit.game.codec import FieldError
from mdpviz.solvers import bandit_exact as be


def test_the_game_is_the_belief_mdp_and_its_solution_the_bayes_optimal_one():
    from mdpviz.solvers import solve

    settings = bd.BanditSettings(arms=2, horizon=5, prior=(2.0, 1.0), discount=0.95)
    mdp = SPEC.compile(settings)
    assert mdp.n_states == be.belief_size(2, 5) and mdp.discount == 0.95
    assert mdp.state_labels[0] == "t=0 s=(0,0) f=(0,0)" and mdp.action_labels == ("pull arm 1", "pull arm 2")
    bo = be.bayes_optimal(2, 5, prior=(2.0, 1.0), discount=0.95)
    sol = solve(mdp)  # the window's first solver, value iteration, to 1e-9
    assert np.max(np.abs(np.asarray(sol.values) - bo.values)) < 1e-8
    live = ~np.asarray(mdp.terminal)
    assert np.array_equal(np.asarray(sol.policy)[live], bo.arm[live])


@pytest.mark.parametrize("changes,field_name", [
    ({"arms": 0}, "arms"), ({"arms": 11}, "arms"), ({"horizon": 0}, "horizon"), ({"arms": 4, "horizon": 40}, "horizon"),
    ({"prior": (0.0, 1.0)}, "prior"), ({"prior": (1.0,)}, "prior"), ({"discount": 1.5}, "discount")])
def test_bad_settings_are_refused_naming_their_field(changes, field_name):
    with pytest.raises(FieldError) as err:
        bd.BanditSettings(**changes).validate()
    assert err.value.field == field_name


def test_the_tree_is_every_belief_before_the_horizon_for_two_arms_and_the_next_pulls_beyond():
    tree = bd.belief_tree(bd.BanditSettings())  # two arms, six pulls
    bel = be.beliefs(2, 6)
    assert tree.complete and tree.depth == 5 and tree.states.size == math.comb(5 + 4, 4)
    counts = np.asarray(bel.counts, dtype=np.int64)
    assert np.array_equal(counts[tree.states].sum(axis=1), tree.row)
    assert np.all(tree.row[tree.edge_to] == tree.row[tree.edge_from] + 1)
    step = counts[tree.states[tree.edge_to]] - counts[tree.states[tree.edge_from]]
    col = 2 * tree.edge_arm + np.where(tree.edge_success, 0, 1)
    assert np.array_equal(step, np.eye(4, dtype=np.int64)[col])  # one more success or failure of the pulled arm
    assert np.all((tree.x > 0) & (tree.x < 1))
    # arm 1 pulled more sits to the left of arm 2 pulled more
    row1 = tree.row == 1
    arm1 = counts[tree.states, 0] + counts[tree.states, 1] > 0
    assert tree.x[row1 & arm1].max() < tree.x[row1 & ~arm1].min()
    deep = bd.belief_tree(bd.BanditSettings(arms=3, horizon=9), root=0)
    assert not deep.complete and deep.states.size <= bd.MAX_TREE_NODES
    below = bd.belief_tree(bd.BanditSettings(arms=3, horizon=9), root=int(deep.states[-1]))
    assert below.root == deep.states[-1] and below.row.min() == 0


def test_the_gittins_job_reports_each_row_and_gives_the_table():
    from mdpviz.core.jobs import drive

    seen = []
    table = drive(gittins_job(0.9, 4), progress=lambda d, t, text: seen.append((d, t)))
    assert seen[0] == (0, 4) and seen[-1] == (4, 4)
    assert np.max(np.abs(table - be.gittins_table(0.9, 4))) < 1e-6
    with pytest.raises(ValueError, match="discount"):
        next(gittins_job(1.0, 4))


def test_the_window_colours_the_tree_when_solved_and_computes_the_heatmap_as_a_job(qtbot, tmp_path):
    from tests.conftest import make_window, wait_model
    from mdpviz.widgets.games.bandit import PENDING

    w = make_window(qtbot, tmp_path / "s.ini", game="bandit")
    try:
        board = w.stage.game.board_widget()
        tree = board.tree
        assert tree.tree.complete and set(tree.node_colors) == {PENDING}  # not solved: nothing coloured
        w.solving.run_solver()
        qtbot.waitUntil(lambda: w.controller.state == "converged", timeout=60_000)
        w.solving.mark_dirty()
        w.solving.redraw()
        assert board.sweep is not None and PENDING not in tree.node_colors
        assert len(set(tree.node_colors)) > 10  # the values spread over the colour scale
        assert float(board.sweep.values[0]) == pytest.approx(be.bayes_optimal(2, 6).value, abs=1e-9)
        assert "V = " in tree.describe(0) and "pull arm 1" in tree.describe(0)
        # more arms: the tree below a root as deep as stays readable, and a belief deeper down becomes the root
        w.stage.game.set_settings(arms=3, horizon=7)
        wait_model(w, qtbot)
        assert not tree.tree.complete and tree.tree.states.size <= bd.MAX_TREE_NODES
        leaf = int(tree.tree.states[-1])
        tree.set_root(leaf)
        assert tree.tree.root == leaf and tree.prior_button.isEnabled()
        tree.prior_button.click()
        assert tree.tree.root == 0
        # the Gittins tab computes its table as a job of the window's controller
        board.tabs.setCurrentWidget(board.gittins)
        qtbot.waitUntil(lambda: board.gittins.table is not None and not w.controller.job_busy, timeout=60_000)
        assert round(float(board.gittins.table[0, 0]), 4) == 0.7029
        assert board.gittins.table.shape == (10, 10) and "0.7029" in board.gittins.status.text()
        assert w.color_bar.isHidden()  # the heatmap has its own colour bar: the window's hides beside it
        board.tabs.setCurrentWidget(board.tree)
        assert not w.color_bar.isHidden()
    finally:
        w.shutdown()
