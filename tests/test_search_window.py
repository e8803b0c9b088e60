"""The window's search views (issue 38), in one window: RTDP's Step draws its trajectory outlined in order on the
grid, the states never backed up hatched, the counts in the caption and V(start) against V* in the Solver panel;
the Tree search dock's Step runs one simulation and Run many as jobs of the controller, its tree, verdict and
table agree with the search's snapshot, and a Run can be cancelled."""
from __future__ import annotations

import numpy as np

from mdpviz.solvers.mcts import MAX_SIMULATIONS
from mdpviz.solvers import registry
from mdpviz.solvers.mcts import root_moves
from tests.conftest import make_window


def test_rtdp_and_tree_search_in_the_window(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path / "s.ini", size=(1366, 768), game="gridworld")
    try:
        # --- RTDP on the book grid: two trajectories
        rtdp = next(s.id for s in registry.specs("solver") if s.unit == "trajectory")
        w.solver_panel.set_method(rtdp)
        w.solving.reset_solver()
        qtbot.waitUntil(lambda: w.controller.state == "ready", timeout=30_000)
        assert w.controller.options["start"] == w.stage.session.start_state()
        for k in (1, 2):
            w.solving.step()
            qtbot.waitUntil(lambda k=k: len(w.controller.history) == k and w.controller.state != "stepping",
                            timeout=30_000)
        w.solving.redraw()
        sw = w.controller.history[-1]
        board = w.stage.board
        cv = board.canvas
        mdp = w.controller.mdp
        never = ~np.asarray(sw.visited) & ~mdp.terminal
        if never.any():
            np.testing.assert_array_equal(cv.unvisited, never)
        assert len(cv.chain_labels) == len({int(s) for s in sw.trajectory if not mdp.terminal[s]})  # each cell numbered
        assert "trajectory 2" in cv.caption and "backed up" in cv.caption
        qtbot.waitUntil(lambda: w.controller.value_range is not None, timeout=30_000)
        w.solving.update_status(sw)
        assert "V(start)" in w.solver_panel.status.text()
        # another method: the trajectory's outlines go
        w.solver_panel.set_method(registry.DEFAULT_SOLVER)
        w.solving.reset_solver()
        qtbot.waitUntil(lambda: w.controller.state == "ready", timeout=30_000)
        w.solving.step()
        qtbot.waitUntil(lambda: len(w.controller.history) == 1, timeout=30_000)
        w.solving.redraw()
        assert cv.chain_labels == {} and cv.unvisited is None

        # --- the Tree search dock on tic-tac-toe
        w.switch_game("ttt")
        qtbot.waitUntil(lambda: w.stage.session.mdp() is not None and not w.stage.session.building, timeout=60_000)
        part = w.hub.search
        panel = part.open_search()
        assert not part.search_dock.isHidden()
        with qtbot.waitSignal(w.controller.job_finished, timeout=60_000):
            assert part.simulate(1)
        tree = part.search_run.tree
        assert tree.simulations == 1 and tree.root == part.position_state()
        assert "1 selection" in panel.phases.text() and "2 expansion" in panel.phases.text()
        with qtbot.waitSignal(w.controller.job_finished, timeout=60_000):
            assert part.simulate(3000)
        tree = part.search_run.tree
        assert tree.simulations == 3001 and panel.view.nodes[0].visits == 3001
        moves = root_moves(tree, part.search_run.mdp)
        assert panel.table.rowCount() == len(moves)
        played = w.stage.session.action_name(tree.best_move())
        assert f"UCT plays {played}" in panel.verdict.text()
        assert all(w.stage.session.action_name(m.action) in panel.verdict.text() for m in moves if m.optimal)
        # a long Run is cancelled between two batches
        assert not part.simulate(MAX_SIMULATIONS)  # one tree takes at most MAX_SIMULATIONS (its memory grows)
        assert "at most" in w.statusBar().currentMessage()
        with qtbot.waitSignal(w.controller.job_cancelled, timeout=60_000):
            assert part.simulate(MAX_SIMULATIONS - 3001)
            panel.cancel_button.click()
        assert 3001 <= part.search_run.tree.simulations < MAX_SIMULATIONS  # (the tree as far as the Run went)
        assert f"{part.search_run.tree.simulations:,} simulations" in panel.verdict.text()
        panel.reset_button.click()
        assert part.search_run is None and panel.view.nodes == []
    finally:
        w.shutdown()


def test_a_node_tooltip_gives_its_ucb_and_exact_value(qtbot):
    """Hovering a drawn node names every number it carries (the tree writes three beside it)."""
    from mdpviz.models.kit.game import registry as games
    from mdpviz.models.kit.game.game_model import Game
    from mdpviz.models.kit.pictures.colors import scale_for
    from mdpviz.models.kit.pictures.search_tree import tree_view
    from mdpviz.solvers import solve
    from mdpviz.solvers.mcts import SearchRun
    from mdpviz.widgets.search_tree import SearchTreeView

    gm = Game(games.get("ttt")).model()
    run = SearchRun(gm.mdp, gm.start_state(), exact=solve(gm.mdp, "pi").values, seed=1)
    tree = run.advance(300)
    view = SearchTreeView()
    qtbot.addWidget(view)
    view.resize(900, 400)
    nodes = tree_view(tree, lambda s, a: gm.action_label(s, a), set())
    view.show_tree(nodes, scale_for(-3500, 500))
    centres = view.node_centres()
    k = next(i for i, n in enumerate(nodes) if n.level == 1)
    found = view.node_at(centres[k].x(), centres[k].y())
    assert found is nodes[k]
    text = view.node_text(found)
    assert "UCB score" in text and f"{found.exact:.6g}" in text and f"{found.visits:,} visits" in text
    assert view.node_at(-50, -50) is None
