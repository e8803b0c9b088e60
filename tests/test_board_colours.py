"""What is drawn on the boards (issue 13, the board part): colour scales that span the values on
screen, fixed per solve, reported by every board's ``color_range()``; and one rule for which values
the badge and the inspector back up from, so they agree at every history index."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSettings

from mdpviz.app import MainWindow
from mdpviz.models.kit.game import registry as games
from mdpviz.models.kit.pictures.colors import DIVERGING, SEQUENTIAL
from mdpviz.widgets.board import BoardView

from mdpviz.shot_window import SMALL_MDP  # (the course file of the graph-view picture)
from tests.conftest import wait_model


class _Dialogs:
    def error(self, title: str, text: str) -> None:
        raise AssertionError(f"{title}: {text}")

    def ask_unsaved(self) -> str:
        return "discard"

    def open_file(self, *args) -> str:
        return ""

    def save_file(self, *args) -> str:
        return ""


@pytest.fixture
def window(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    settings.setValue("solve/liveResolve", "false")  # these tests Run the solve themselves after opening a file
    w = MainWindow(dialogs=_Dialogs(), settings=settings)
    qtbot.addWidget(w)
    w.resize(1366, 768)
    wait_model(w, qtbot)
    yield w
    w.shutdown()


def run_to_end(qtbot, w: MainWindow, timeout: int = 60_000) -> None:
    with qtbot.waitSignal(w.controller.finished, timeout=timeout):
        w.solver_panel.run.click()
    w.solving.redraw()


def open_game(qtbot, w: MainWindow, key: str, tmp_path: Path):
    w.switch_game(key)
    g = w.game
    if key == "file":
        p = tmp_path / "small.txt"
        p.write_text(SMALL_MDP)
        g.open_file(p)
    wait_model(w, qtbot)  # (the shown game's own model: the first game's is loaded and ready already)
    qtbot.waitUntil(lambda: w.controller.mdp is not None and w.controller.state == "ready", timeout=60_000)
    return g


def shown_values(w: MainWindow) -> np.ndarray:
    """The values the active board colours: every non-terminal state's (cell boards, grid worlds) or
    the shown position's legal moves' (board games)."""
    gb = w.board
    if isinstance(gb, BoardView):
        f = gb.frame
        return f.values[~np.isnan(f.fill)]
    if hasattr(gb, "view"):
        view = gb.view()
        return view.qs[np.isfinite(view.qs)]
    mdp = w.controller.mdp  # a grid world's board: the values of its live states
    v = np.asarray(gb.sweep.values)[~np.asarray(mdp.terminal)]
    return v[np.isfinite(v)]


KINDS = {"snakes": SEQUENTIAL, "file": SEQUENTIAL, "ttt": DIVERGING, "risk_ttt": DIVERGING, "attt": SEQUENTIAL,
         "checkers": DIVERGING, "ttt3d": DIVERGING, "gridworld": None, "gym": None}
"""The colour scale's kind each game's values call for (win/loss: diverging around 0; costs and
returns: sequential); None: the board has its own colour bar and map (the grid worlds)."""

def run_game(qtbot, w: MainWindow, key: str) -> None:
    """"Run" as the game offers it: a solve to the end; anti-tic-tac-toe's best-response rounds to
    convergence; the 3D game's training (a few hundred episodes: it has no solve)."""
    g = w.game
    if key == "attt":  # Run steps best-response rounds to convergence; each round's MDP is solved at once
        g.rounds.pause_ms = 0
        w.solving.run_solver()
        qtbot.waitUntil(lambda: g.astate.converged and w.controller.state == "converged", timeout=60_000)
    elif key == "ttt3d":
        g.set_settings(episodes=200, report_every=50, eval_games=0)
        with qtbot.waitSignal(g.session.changed, timeout=60_000, check_params_cb=lambda: not g.training.busy):
            g.editor().train.click()
    else:
        run_to_end(qtbot, w)
    w.solving._dirty = True
    w.solving.redraw()


@pytest.mark.parametrize("key", games.keys())
def test_after_run_the_board_uses_most_of_its_colour_range(qtbot, window, tmp_path, key):
    """Issue 13: for every game of the registry at its default settings, after Run the values the
    board shows use at least 70% of its colour range, and the range contains them all."""
    w = window
    if key == "ttt3d":  # no solver model to wait for: it trains
        w.switch_game(key)
    else:
        open_game(qtbot, w, key, tmp_path)
    run_game(qtbot, w, key)
    board = w.stage.game_boards[key]
    lo, hi = board.color_range()
    v = shown_values(w)
    assert v.size >= 2
    if key == "ttt3d":
        assert v.size == 27  # every cell of the empty cube
    assert lo <= v.min() and v.max() <= hi, (key, (lo, hi), v)  # the scale contains every value shown
    if v.max() > v.min():
        assert (v.max() - v.min()) / (hi - lo) >= 0.7, (key, (lo, hi), v.min(), v.max())
    elif v[0] == 0:  # every value 0 (Baird's counterexample: every reward 0): fitted_scale's room of 1 above 0
        assert (lo, hi) == (0.0, 1.0), (key, (lo, hi))
    else:  # every move has the same value (a solved position): it sits inside the scale, which is tight
        assert hi - lo <= 0.2 * max(abs(v[0]), 1e-9) + 1e-12
    # the colour bar shows the same scale, of the kind the game's values call for, with its unit
    bar = board.color_bar if getattr(board, "has_color_bar", False) else w.color_bar
    assert (bar.scale.lo, bar.scale.hi) == (lo, hi)
    assert bar.scale.label.startswith(w.session.game.value_label)
    kind = KINDS.get(key, w.session.game.color_kind)  # a game not listed: the kind its spec says
    if kind is not None:
        assert bar.scale.kind == kind and bar.scale.label == w.session.game.value_label


@pytest.mark.parametrize("key", ["snakes", "file"])
def test_export_colours_the_board_as_the_window_does(qtbot, window, tmp_path, key):
    """``mdpviz export`` and the window take a solve's colour scale from one rule
    (:func:`mdpviz.models.kit.pictures.value_range.solve_range`): after the same solve, the same scale."""
    from mdpviz import export as ex

    w = window
    g = open_game(qtbot, w, key, tmp_path)
    qtbot.waitUntil(lambda: w.controller.value_range is not None, timeout=60_000)
    run_to_end(qtbot, w)
    shown = w.board.color_range()
    solved = ex.solve_game(g, method=w.controller.method, tol=w.controller.options.get("tol"))
    board, scale = ex.make_board(g, solved.mdp, solved)
    try:
        assert board.color_range() == shown and (scale.lo, scale.hi) == shown
        assert scale.kind == w.color_bar.scale.kind
        # the window's own export path (File > Export) sees the same scale
        assert ex.scale_of(g, w.classroom.solved_view()) == ex.scale_of(g, solved)
    finally:
        board.deleteLater()


def test_snakes_scale_is_the_optimal_values_under_value_iteration(qtbot, window, tmp_path):
    """The scale spans V*, not the all-security policy's evaluation, and is fixed for the run."""
    w = window
    open_game(qtbot, w, "snakes", tmp_path)
    # The reference range arrives from the worker thread after the model is loaded (when exactly
    # depends on the machine's load), always before the first sweep: wait for it, then watch the run.
    qtbot.waitUntil(lambda: w.controller.value_range is not None, timeout=60_000)
    assert w.controller.value_range.source == "reference"
    seen = []
    w.controller.range_ready.connect(seen.append)
    run_to_end(qtbot, w)
    assert seen == [] and w.controller.value_range.source == "reference"  # fixed for the whole run
    v = w.controller.solution.values[:14]
    lo, hi = w.board.color_range()
    assert lo <= v.min() < v.max() <= hi and (v.max() - v.min()) / (hi - lo) >= 0.8
    assert hi < 10  # the all-security evaluation reaches 20 turns: not used


@pytest.mark.parametrize("method", ["vi", "gs", "pi", "lp"])
def test_badge_and_inspector_agree_at_every_history_index(qtbot, window, tmp_path, method):
    w = window
    g = open_game(qtbot, w, "snakes", tmp_path)
    from dataclasses import replace

    g.session.edit(replace(g.cfg, layout=(0, 0, 3, 0, 2, 0, 1, 0, 3, 0, 0, 1, 0, 4, 0)), "traps")
    w.solver_panel.set_method(method)
    w.solving.reset_solver()
    qtbot.waitUntil(lambda: w.controller.state == "ready", timeout=10_000)
    run_to_end(qtbot, w)
    for i in range(len(w.controller.history)):
        w.solving._on_history_moved(i)
        w.solving.redraw()
        for s in range(14):
            w.solving.inspect(s)
            best = [a.action for a in w.solving.inspection().actions if a.best]
            assert [str(a + 1) for a in best] == [w.board.cell_text(s)[1]], (method, i, s)


def test_snakes_square_5_at_sweep_2(qtbot, window, tmp_path):
    """The case of the issue: value iteration's sweep 2 chose its dice from sweep 1's values; the
    inspector now backs up from those too (its best Q is the value on the square)."""
    w = window
    open_game(qtbot, w, "snakes", tmp_path)
    w.solver_panel.set_method("vi")
    w.solving.reset_solver()
    qtbot.waitUntil(lambda: w.controller.state == "ready", timeout=10_000)
    run_to_end(qtbot, w)
    w.solving._on_history_moved(1)  # sweep 2
    w.solving.redraw()
    w.solving.inspect(4)  # square 5
    insp = w.solving.inspection()
    best = next(a for a in insp.actions if a.best)
    assert str(best.action + 1) == w.board.cell_text(4)[1]
    assert best.q == pytest.approx(w.controller.history[1].values[4], abs=1e-12)
    assert "previous sweep" in insp.source


# ---------------------------------------------------------------------------------- one backup rule, pure
def _check_q_matches_policy(mdp, hist, *, gs_block=1):
    from mdpviz.models.kit.pictures.display import board_q, greedy_action

    obj = "min" if mdp.objective == "min" else "max"
    checked = 0
    for i, sw in enumerate(hist):
        if sw.phase == "evaluate" and i == 0:
            continue  # round 1 evaluates the starting policy: not a greedy choice
        q = board_q(mdp, hist, i, gs_block=gs_block)
        for s in np.flatnonzero(~mdp.terminal):
            if sw.policy[s] < 0:
                continue
            legal = [int(a) for a in mdp.actions_of(s)]
            sense = "min" if mdp.sense[s] < 0 else obj
            assert greedy_action(legal, [q[s, a] for a in legal], sense) == sw.policy[s], (sw.method, i, s)
            checked += 1
    return checked


@pytest.mark.parametrize("method, options", [("vi", {}), ("gs", {}), ("gs", {"block_size": 4}), ("pi", {}),
                                             ("lp", {})])
def test_board_q_backs_up_from_the_values_each_badge_was_chosen_with(method, options):
    from mdpviz.models.snakes import SnakesSettings, compile_snakes
    from mdpviz.solvers import solver

    mdp = compile_snakes(SnakesSettings(layout=(0, 0, 3, 0, 2, 0, 1, 0, 3, 0, 0, 1, 0, 4, 0)))
    gen = solver(mdp, method, **options)
    hist = list(gen)
    assert _check_q_matches_policy(mdp, hist, gs_block=options.get("block_size", 1)) >= 14


def test_board_q_of_backward_induction_uses_the_layer_values():
    from mdpviz.core.mdp import TabularMDP
    from mdpviz.solvers import solver

    # 0 -> {1, 2} -> 3 (terminal): acyclic, two actions with different rewards
    mdp = TabularMDP.from_transitions(4, 2, [0, 0, 1, 1, 2, 2], [0, 1, 0, 1, 0, 1], [1, 2, 3, 3, 3, 3],
                                      [1.0] * 6, [1.0, 0.5, 2.0, 1.0, 0.0, 3.0], discount=1.0,
                                      terminal=[3])
    hist = list(solver(mdp, "bi"))
    assert _check_q_matches_policy(mdp, hist) >= 3


# ---------------------------------------------------------------------------------- glyphs and the Q toggle
def test_snakes_policy_is_a_die_face_readable_on_a_projector(qtbot, window, tmp_path):
    w = window
    open_game(qtbot, w, "snakes", tmp_path)
    run_to_end(qtbot, w)
    assert w.board.policy_glyph == "die" and w.board.action_names == ("security", "normal", "risky")
    assert list(w.board.frame.actions[:14]) == list(w.controller.solution.policy[:14])
    w.show()
    w.view.set_presenter(True)
    w.resize(1280, 720)
    # die faces from the back of a room, once the layout has settled at 1280x720
    qtbot.waitUntil(lambda: w.board.glyph_size() >= 24, timeout=5_000)
    assert w.width() <= 1280 and w.board.glyph_size() >= 24
    w.view.set_presenter(False)


def test_q_toggle_shows_every_action_on_the_board(qtbot, window, tmp_path):
    w = window
    open_game(qtbot, w, "snakes", tmp_path)
    run_to_end(qtbot, w)
    act = w.findChild(type(w.classroom.act_q), "qValuesAction")
    view_menu = next(a.menu() for a in w.menuBar().actions() if a.text().replace("&", "") == "View")
    assert act is w.classroom.act_q and act in view_menu.actions() and act.isCheckable()
    act.trigger()
    assert w.classroom.q_view and w.board.q_values is not None
    q = w.board.q_values
    mdp = w.controller.mdp
    assert q.shape == (mdp.n_states, mdp.n_actions) and np.isnan(q[14]).all()
    # the best Q of each square is its die (the badge) and equals the value on it at convergence
    for s in range(14):
        assert int(np.nanargmin(q[s])) == int(w.board.frame.actions[s])
        assert np.nanmin(q[s]) == pytest.approx(w.board.frame.values[s], abs=1e-8)
    assert "Q(risky)" in w.board.tooltip_text(4)
    w.board.grab()  # paints the rows without error
    # scrubbed back to sweep 2: the rows back up from sweep 1's values, as the inspector does
    w.solving._on_history_moved(1)
    w.solving.redraw()
    w.solving.inspect(4)
    insp = w.solving.inspection()
    assert [a.q for a in insp.actions] == pytest.approx(list(w.board.q_values[4]), abs=1e-12)
    act.trigger()
    assert not w.classroom.q_view and w.board.q_values is None


def test_every_board_reports_its_colour_range(window):
    for g in window.stage.games:
        board = window.stage.game_boards[g.key]
        assert callable(getattr(board, "color_range", None)), g.key
