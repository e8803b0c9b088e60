"""Issue 24's remaining window items, each as a class meets it: a solve kept across game switches,
clipped captions and controls, the episode player's end, readable small text, the presenter inspector,
Taxi's board and the 3D game's lesson."""
from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import make_window, wait_model


@pytest.fixture
def win(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path / "settings.ini")
    yield w
    w.shutdown()


def run_to_end(qtbot, w, timeout: int = 60_000) -> None:
    with qtbot.waitSignal(w.controller.finished, timeout=timeout):
        w.solver_panel.run.click()
    w.solving.redraw()


def test_switching_games_keeps_each_games_finished_solve(qtbot, win):
    win.switch_game("gridworld")
    run_to_end(qtbot, win)
    values = np.asarray(win.controller.solution.values).copy()
    n = len(win.controller.history)
    assert win.controller.state == "converged" and n > 1
    win.switch_game("snakes")
    assert win.controller.history == [] and win.controller.state == "ready"  # snakes has no solve yet
    win.switch_game("gridworld")
    c = win.controller
    assert c.state == "converged" and len(c.history) == n
    assert np.array_equal(c.solution.values, values)
    win.solving.redraw()
    assert win.convergence.point_count == n  # the plot shows the solve again
    assert win.solving.shown_sweep() is c.history[-1]  # and the board its last sweep
    # an edit makes the kept solve stale: the next visit starts afresh
    win.switch_game("snakes")
    win.stage.game_by_key("gridworld").session.set_discount(0.5)
    win.switch_game("gridworld")
    wait_model(win, qtbot)
    assert win.controller.history == [] and win.controller.state == "ready"


def test_opening_a_scenario_keeps_the_game_editor_as_wide_as_its_dock(qtbot, tmp_path):
    from tests.conftest import wait_laid_out

    w = make_window(qtbot, tmp_path / "s.ini", size=(1366, 768), show=True)
    try:
        wait_laid_out(qtbot, w)
        ed = w.stage.editor_stack.currentWidget()
        before = ed.width()
        assert before > ed.sizeHint().width()  # the dock is wider than the editor needs: it fills the dock
        w.files.save_scenario(tmp_path / "a.json")
        w.files.load_scenario(tmp_path / "a.json")
        wait_laid_out(qtbot, w)
        assert w.stage.editor_stack.currentWidget().width() == before  # the dice faces' column is not cut
    finally:
        w.shutdown()


def test_wrap_caption_breaks_at_a_space_and_elides_only_what_two_lines_cannot_hold():
    from mdpviz.widgets.geometry import wrap_caption

    adv = len  # one pixel per letter

    def elide(t, w):
        return t[: int(w) - 1] + "\u2026"

    assert wrap_caption("sweep 3", 10, adv, elide) == ["sweep 3"]
    assert wrap_caption("sweep 79 converged colour", 15, adv, elide) == ["sweep 79", "converged colour"[:14] + "\u2026"]
    assert wrap_caption("sweep 79 converged", 10, adv, elide) == ["sweep 79", "converged"]


def test_a_long_board_caption_is_drawn_whole_on_two_lines(qtbot):
    from mdpviz.widgets.board import BoardView
    from mdpviz.widgets.geometry import snakes_layout
    from mdpviz.models.snakes import next_squares

    board = BoardView()
    qtbot.addWidget(board)
    board.resize(520, 300)  # the board's width at 1366 x 768
    board.set_board(snakes_layout(next_squares))
    board.caption = "value iteration (synchronous): sweep 79 \u2014 converged \u2014 colour: change in this sweep"
    lines = board.caption_lines()
    assert len(lines) == 2 and " ".join(lines) == board.caption  # nothing cut
    one = BoardView()
    qtbot.addWidget(one)
    one.resize(520, 300)
    one.set_board(snakes_layout(next_squares))
    one.caption = "value iteration (synchronous): sweep 3"
    assert one.caption_lines() == [one.caption]
    assert board.cell_rect(0).top() > one.cell_rect(0).top()  # the board makes room for the second line
    board.grab()


def test_a_long_status_message_ends_before_the_solver_state_label(qtbot, tmp_path):
    from tests.conftest import wait_laid_out

    w = make_window(qtbot, tmp_path / "s.ini", size=(1366, 768), show=True)
    try:
        wait_laid_out(qtbot, w)
        bar = w.statusBar()
        long = "Edited (living reward): the solution is stale and the solver was reset. " * 3
        bar.showMessage(long)
        assert bar.currentMessage() == long  # the whole message for whoever reads it
        shown = bar.shown_message()
        assert shown.endswith("\u2026") and shown[:-1] in long
        assert bar.message_rect().right() < w.state_label.x()
        assert bar.fontMetrics().horizontalAdvance(shown) <= bar.message_rect().width()
        assert bar.toolTip() == long  # the whole text on hover
        bar.showMessage("Opened a.json")
        assert bar.shown_message() == "Opened a.json" and bar.toolTip() == ""
        bar.grab()
    finally:
        w.shutdown()


def test_the_move_arrow_ends_before_the_value_on_its_target_square(qtbot):
    from PySide6.QtCore import QRectF

    from mdpviz.widgets.position.canvas import PositionCanvas

    a, b = QRectF(0, 100, 100, 100), QRectF(100, 0, 100, 100)  # diagonal neighbours, as a checkers move
    value = QRectF(105, 31, 90, 38)  # "0.023" across the middle of the target square
    start, tip = PositionCanvas.arrow_ends(a, b)
    assert value.contains(tip)  # without the box: the tip is drawn on the number
    start, tip = PositionCanvas.arrow_ends(a, b, value)
    assert not value.adjusted(-2, -2, 2, 2).contains(tip)
    assert a.contains(start) and b.contains(tip)  # still from one square into the other
    # straight down (a white man's capture seen from above): the tip stops above the number
    start, tip = PositionCanvas.arrow_ends(QRectF(0, 0, 100, 100), QRectF(0, 200, 100, 100), QRectF(5, 231, 90, 38))
    assert tip.y() < 231 and tip.y() > 200


def _snakes_board(qtbot, width=520, height=300):
    from mdpviz.models.snakes import next_squares
    from mdpviz.widgets.board import BoardView
    from mdpviz.widgets.geometry import snakes_layout

    board = BoardView()
    qtbot.addWidget(board)
    board.resize(width, height)
    board.set_board(snakes_layout(next_squares))
    return board


def test_the_episode_tokens_caption_stays_on_the_board_at_the_goal(qtbot):
    from PySide6.QtCore import QRectF

    board = _snakes_board(qtbot)
    board.show_token(14, "die 3: 3 \u00b7 finished: reached square 15 \u00b7 20 turns")
    box = board.token_caption_rect()
    assert box is not None and QRectF(board.rect()).contains(box)  # the goal is the right-most square
    board.grab()


def test_the_inspections_p_outlines_are_not_drawn_while_an_episode_token_is_shown(qtbot):
    from PySide6.QtGui import QColor

    from mdpviz.widgets.board import SUCCESSOR

    board = _snakes_board(qtbot, 900, 300)
    board.show_selection(0, {1: 0.5, 2: 0.5})
    r = board.cell_rect(1)
    side = r.width()
    fm_h = board.fontMetrics().height()
    # inside the p= tag (snakes: at the cell's bottom edge, under its value)
    x, y = int(r.left() + side * 0.05 + 2), int(r.bottom() - side * 0.05 - fm_h / 2)

    def pixel() -> QColor:
        return board.grab().toImage().pixelColor(x, y)

    assert pixel() == QColor(SUCCESSOR)
    board.show_token(5, "die 2: 1")
    assert pixel() != QColor(SUCCESSOR)  # the episode's token: its moves, not the inspection's
    board.show_token(None)
    assert pixel() == QColor(SUCCESSOR)


def test_the_tic_tac_toe_episode_ends_on_its_final_board_and_names_the_discounted_return(qtbot, win):
    win.switch_game("ttt")
    run_to_end(qtbot, win)
    assert win.playing.new_episode("optimal")
    p = win.player
    p.seek(len(p.moves) - 1)
    last = p.moves[-1]
    mdp = win.controller.mdp
    assert mdp.terminal[last.next_state]  # the game's outcome state: it has no board of its own
    pos = win.board.position
    assert pos.terminal and np.count_nonzero(pos.cells) >= 3  # the board the game ended on, not an empty one
    assert "discounted return (\u03b3 = 0.9)" in p.status.text()
    assert f"{last.total:g}" in p.status.text()


def test_final_position_is_the_agents_winning_move_or_the_only_reply_that_ends_the_game():
    from mdpviz.models.ttt.rules import (DRAW, LOSS, OUTCOMES, WIN, VsRandomPositionModel, VsRandomSettings,
                                         compile_vs_random)

    game = compile_vs_random(VsRandomSettings())
    model = VsRandomPositionModel(game)
    mdp, n = game.mdp, game.n_board_states
    seen = {WIN: 0, DRAW: 0, LOSS: 0}
    for s in range(n):
        for a in mdp.actions_of(s):
            for d, _p, _r in mdp.outcomes(s, int(a)):
                if d < n:
                    continue
                name = OUTCOMES[d - n]
                fin = model.final_position(s, int(a), d)
                if fin is None:
                    continue
                seen[name] += 1
                assert fin.terminal
                w = model.geo.winner(fin.cells)
                assert w == {WIN: game.agent, DRAW: 0, LOSS: game.opponent}[name]
                # one mark more than the position the round started from, or two (the reply)
                added = np.count_nonzero(fin.cells) - np.count_nonzero(model.position_of(s).cells)
                assert added in (1, 2)
        if all(seen.values()):
            break
    assert all(seen.values())
    assert model.final_position(0, 0, 0) is None  # not an outcome state


def test_dice_differ_by_colour_and_shape_not_by_one_pip_only(qtbot):
    from PySide6.QtGui import QColor

    from mdpviz.models.kit.pictures.colors import black_text
    from mdpviz.widgets.board import die_style

    styles = [die_style(a) for a in range(3)]  # security, normal, risky
    assert len({c for c, _ in styles}) == 3 and len({s for _, s in styles}) == 3
    for colour, _shape in styles:  # black pips stay readable on every face
        c = QColor(colour)
        assert black_text(np.array([[c.red(), c.green(), c.blue()]]))[0]
    board = _snakes_board(qtbot, 900, 300)
    board.set_policy_glyph("die", ("security", "normal", "risky"))
    img = board.grab().toImage()
    assert not img.isNull()


def test_the_colour_bar_writes_its_numbers_and_label_in_black(qtbot):
    from PySide6.QtGui import QColor

    from mdpviz.widgets.board import ColorBar

    bar = ColorBar()
    qtbot.addWidget(bar)
    for ax in ("left", "right"):
        assert bar.bar.getAxis(ax).textPen().color() == QColor("#000000")  # not pyqtgraph's light grey


@pytest.mark.parametrize("side", [60, 80, 120, 200])
def test_q_triangle_numbers_are_larger_and_east_and_west_never_touch(qtbot, side):
    from PySide6.QtGui import QFont, QFontMetricsF

    from mdpviz.widgets.games.grid_board import q_number_px

    for txt in ("0.57", "-0.60", "12.5"):
        px = q_number_px(side, txt)
        f = QFont()
        f.setPixelSize(max(8, int(px)))
        f.setBold(True)
        assert QFontMetricsF(f).horizontalAdvance(txt) < side * 0.5  # east at +0.25, west at -0.25 of the cell
    assert q_number_px(side, "0.57") >= 0.17 * side  # was 0.16: 9-10 px on a projector's 60-80 px cells


def test_presenter_inspector_lists_every_actions_q_and_writes_out_only_the_best_backup(qtbot, win):
    from mdpviz.models.kit.pictures.display import ActionBackup, Inspection

    acts = tuple(ActionBackup(a, f"die {a + 1}", q, f"backup-of-die-{a + 1}", best=(a == 2))
                 for a, q in enumerate((12.736, 12.1538, 11.986)))
    insp = Inspection("square 1 after sweep 79", 11.986, acts, "min", 1.0, unit="turns")
    win.inspector.show_inspection(insp)
    full = win.inspector.text.toPlainText()
    assert all(f"backup-of-die-{k}" in full for k in (1, 2, 3))
    win.view.set_presenter(True)
    try:
        assert win.inspector.compact
        short = win.inspector.text.toPlainText()
        assert "12.7360" in short and "12.1538" in short and "11.9860" in short  # every action's Q
        assert "backup-of-die-3" in short  # the best one written out
        assert "backup-of-die-1" not in short and "backup-of-die-2" not in short
    finally:
        win.view.set_presenter(False)
    assert not win.inspector.compact and "backup-of-die-1" in win.inspector.text.toPlainText()


def test_taxi_map_slices_the_500_states_into_grids_of_the_taxis_cells():
    pytest.importorskip("gymnasium")
    from mdpviz.models.gym.rules import TAXI_IN_TAXI, make_env, taxi_map, taxi_slice

    env = make_env("Taxi-v4", {})
    try:
        u = env.unwrapped
        tm = taxi_map(env)
        assert tm is not None and (tm.rows, tm.cols) == (5, 5)
        seen = set()
        for p in range(TAXI_IN_TAXI + 1):
            for d in range(4):
                g = taxi_slice(tm, p, d)
                for r in range(5):
                    for c in range(5):
                        s = int(g.state[r, c])
                        assert tuple(int(x) for x in u.decode(s)) == (r, c, p, d)  # the environment's own numbering
                        seen.add(s)
        assert len(seen) == 500
        g = taxi_slice(tm, 0, 1)
        assert g.label[0][0] == "R pickup" and g.label[0][4] == "G goal" and g.label[4][0] == "Y"
        assert g.marks == {4: "pick up", 5: "drop off"} and g.direction(0) == "south"
        assert (0, 1, "east") in g.walls and (4, 2, "east") in g.walls  # the map's "|" between cells
        assert tm.slice_of(int(u.encode(2, 3, TAXI_IN_TAXI, 2))) == (TAXI_IN_TAXI, 2)
        with pytest.raises(ValueError):
            taxi_slice(tm, 5, 0)
    finally:
        env.close()
    assert taxi_map(object()) is None


def test_taxi_is_drawn_as_a_board_of_the_taxis_cells_with_values_and_policy(qtbot, win):
    pytest.importorskip("gymnasium")
    win.switch_game("gym")
    g = win.game
    assert g.set_environment("Taxi-v4", {})
    wait_model(win, qtbot)
    qtbot.waitUntil(lambda: win.controller.mdp is not None and win.controller.state == "ready", timeout=30_000)
    run_to_end(qtbot, win)
    board = win.board
    cv = board.canvas
    assert board.stack.currentWidget() is cv  # not the table of 501 tiles
    assert cv.geometry_.rows == 5 and cv.geometry_.cols == 5
    assert cv.values is not None and cv.policy is not None  # Values and Policy arrows draw something
    pas, dest = g.board_controls()
    assert pas.isVisibleTo(board) and dest.isVisibleTo(board)
    pas.setCurrentIndex(pas.findData(4))  # the passenger in the taxi
    dest.setCurrentIndex(dest.findData(1))  # bound for G
    win.solving.redraw()
    geom = board.canvas.geometry_
    gr, gc = 0, 4  # G
    s = int(geom.state[gr, gc])
    assert int(cv.policy[s]) == 5  # at G with the passenger aboard: drop off, drawn as words
    assert geom.marks[5] == "drop off"
    # the episode's token takes the board to its slice
    assert win.playing.new_episode("optimal")
    win.player.seek(0)
    first = win.player.moves[0].next_state
    assert g.taxi_slice == g.session.built().taxi.slice_of(first)
    board.grab()
    # another environment: the slice's choosers go
    assert g.set_environment("FrozenLake-v1", {"map_name": "4x4", "is_slippery": True})
    wait_model(win, qtbot)
    qtbot.waitUntil(lambda: win.controller.mdp is not None and win.controller.mdp.n_states == 17, timeout=30_000)
    win.solving.redraw()
    assert not pas.isVisibleTo(board) and not dest.isVisibleTo(board)


def test_the_3d_games_lesson_says_what_is_learnt_not_no_model_yet():
    from mdpviz.models.kit.teaching.lessons import lesson_for
    from mdpviz.models.ttt3d import Ttt3dSettings

    lesson = lesson_for("ttt3d", Ttt3dSettings(), None)
    text = lesson.text()
    assert "No model yet" not in text
    for head, fact in lesson.facts():
        assert fact, head  # every fact has its sentence
    assert "3^27" in lesson.states and "TD(0)" in lesson.states and "54 features" in lesson.states
    assert "\u03b3 = 0.9" in lesson.discount


def test_the_learning_curve_shows_no_numbers_before_training_and_one_y_title(qtbot):
    from mdpviz.models.ttt3d.learning import TrainProgress
    from mdpviz.models.ttt3d.spec import learning_curve
    from mdpviz.widgets.games.ttt3d import LearningCurvePlot

    plot = LearningCurvePlot()
    qtbot.addWidget(plot)
    plot.set_font_size(18)  # presenter mode
    assert not plot.bottom.getAxis("bottom").style["showValues"]  # not "-0.4 .. 0.4 training games"
    assert not plot.bottom.getAxis("left").style["showValues"]
    assert plot.bottom.getAxis("left").labelText == ""  # the TD error plot is named by its title, not a y title
    assert plot.top.getAxis("left").labelText  # one y title, on the upper plot
    recs = [TrainProgress(episodes=e, epsilon=0.5, mean_td_error=td, updates=e, win=0.6, draw=0.0, loss=0.4,
                          eval_games=100, train_seconds=0.1, seconds=0.1, agent=None)
            for e, td in ((0, float("nan")), (100, 0.2))]
    plot.show_curve(learning_curve(recs))
    assert plot.bottom.getAxis("bottom").style["showValues"] and plot.bottom.getAxis("left").style["showValues"]


def test_a_circular_board_marks_its_goal(qtbot, win):
    from mdpviz.models import snakes as sn

    g = win.stage.game_by_key("snakes")
    assert g.decor()[sn.N_SQUARES - 1].tag == ""
    assert g.set_circle(True)
    d = g.decor()[sn.N_SQUARES - 1]
    assert d.goal and d.tag == "\u21bb"
    assert "\u21bb" in g.editor().circle.text()  # the editor's toggle names the mark


def test_risk_board_3x3_to_4x4_and_back_keeps_its_custom_risks(qtbot, win):
    g = win.stage.game_by_key("risk_ttt")
    assert g.set_risk(4, 0.05)  # the centre: a custom board
    custom = tuple(g.rstate.risk)
    assert g.rstate.preset == "custom"
    g.set_size(4)
    assert g.rstate.size == 4 and len(g.rstate.risk) == 16
    g.set_size(3)
    assert g.rstate.size == 3 and g.rstate.preset == "custom" and tuple(g.rstate.risk) == custom  # not "half"


def test_side_panels_name_states_not_by_their_numbers(qtbot, win):
    import re

    win.switch_game("attt")
    qtbot.waitUntil(lambda: win.controller.mdp is not None, timeout=60_000)
    board = win.board
    start = board.position.state
    win.solving.inspect(start)
    text = win.inspector.text.toPlainText()
    assert "V(" in text and not re.search(r"V\(\d+\)", text)  # not "V(121000000)"
    assert re.search(r"V\([.XO]{9}\)", text)  # the board in marks, as tic-tac-toe writes it
    board.play_move(board.walk.legal_actions()[0])
    assert re.fullmatch(r"Positions on the path: \d+; move \d+ of \d+", board.visited_label.text())  # no "0 -> 2909"


def test_run_pressed_while_checkers_compiles_is_queued_and_runs_when_the_model_is_built(qtbot, win, monkeypatch):
    from mdpviz.models.checkers import spec as cg

    monkeypatch.setattr(cg, "QUICK_MAX_STATES", 100)  # compiled in the background, as a large variant is
    monkeypatch.setattr(cg, "POLL_SECONDS", 0.05)
    win.switch_game("checkers")
    g = win.game
    g.set_variant(size=4, ply_limit=12)
    qtbot.waitUntil(lambda: g.session.compiling, timeout=10_000)
    assert win.controller.mdp is None
    win.solving.update_buttons()
    assert win.solver_panel.run.isEnabled()  # Run can be pressed during the compile
    with qtbot.waitSignal(win.controller.finished, timeout=60_000):
        win.solver_panel.run.click()
        assert "Run starts when the model is compiled" in win.statusBar().currentMessage()
        assert not win.solver_panel.run.isEnabled()  # queued once
    assert win.controller.solution is not None and win.controller.mdp is g.session.mdp()


def test_the_toolbar_buttons_tooltips_name_their_keys(win):
    from PySide6.QtGui import QKeySequence

    acts = [a for a in win.toolbar.actions() if not a.isSeparator() and a.shortcuts()]
    assert {a.objectName() for a in acts} >= {"stepAction", "runAction"}
    for a in acts:
        key = a.shortcuts()[0].toString(QKeySequence.SequenceFormat.NativeText)
        assert f"({key}" in a.toolTip() or f" or {key}" in a.toolTip(), (a.objectName(), a.toolTip())
    assert win.solving.act_run.toolTip() == "Run to convergence or pause (R)"
    win.stage.game_by_key("snakes").set_circle(True)
    assert win.act_undo.toolTip() == "Undo circular board (Ctrl+Z)"  # the key follows the undo stack's text


def test_an_in_ci_no_is_explained_with_the_chance_of_one_miss_among_all_intervals(qtbot):
    from mdpviz.models.kit.pictures.display import StrategyRow
    from mdpviz.widgets.simulation import SimulationPanel, misses_text

    assert "26%" in misses_text(6)  # 1 - 0.95^6 = 0.265: about a quarter of the time
    assert "5%" in misses_text(1)
    sp = SimulationPanel()
    qtbot.addWidget(sp)
    a = np.full(100, 10.0)
    rows = [StrategyRow(f"s{k}", 10.0, 10.0, 0.5, a) for k in range(5)] + [StrategyRow("s5", 12.0, 10.0, 0.5, a)]
    sp.show_results(rows, unit="turns", start="square 1")
    assert sp.table.item(5, 4).text() == "no"
    assert "26%" in sp.status.text() and "26%" in sp.table.item(5, 4).toolTip()
    sp.show_results(rows[:5], unit="turns", start="square 1")  # no miss: nothing to explain
    assert "%" not in sp.status.text().split("CI.")[1]


def test_hide_hints_never_touches_the_mode_box_in_a_1280x720_window(qtbot, tmp_path):
    from PySide6.QtCore import QRect

    from tests.conftest import wait_laid_out

    w = make_window(qtbot, tmp_path / "s.ini", size=(1280, 720), show=True, game="risk_ttt")
    try:
        board = w.board
        qtbot.waitUntil(lambda: board.walk is not None, timeout=30_000)
        for mode in ("walk", "play"):
            board.set_mode(mode)
            wait_laid_out(qtbot, w)

            def rect(wid) -> QRect:
                return QRect(wid.mapTo(board, wid.rect().topLeft()), wid.size())

            assert not rect(board.mode_combo).adjusted(-2, -2, 2, 2).intersects(rect(board.hide_check)), mode
    finally:
        w.shutdown()


def test_a_small_hole_or_goal_worth_0_shows_its_letter_in_the_numbers_place():
    from mdpviz.widgets.games.grid_board import small_end_label

    assert small_end_label(30, "exit", "H", 0.0, 90)  # FrozenLake 8x8 on a projector: "H", not a tiny "0.00"
    assert small_end_label(60, "exit", "G", 0.0, 90)
    assert not small_end_label(120, "exit", "H", 0.0, 90)  # large cells keep the number and the tag
    assert not small_end_label(30, "open", "S", 0.0, 90)
    assert not small_end_label(30, "exit", "+1", 1.0, 90)  # a grid world's exit shows what it is worth
