"""Checkers in the main window (issue 9, part 3): the position model over the compiled MDP (pure),
the painter, the settings, and the game driven through the real window (pytest-qt).

The window tests use a 4x4 variant (1,193 states, compiled in ~10 ms) so they stay fast; the
cancel test uses 5x5 with a 40-ply limit (1.29 million states, ~10 s to compile), cancelled
while it compiles in its child process.

The README screenshots of checkers are ``mdpviz.screenshots.save_checkers_screenshots``
(``python -m mdpviz.screenshots --games checkers``). The headless jobs (compile, matchups) are
tested without Qt in ``tests/test_checkers_jobs.py``.
"""
from __future__ import annotations

import subprocess

import numpy as np
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QWidget

from mdpviz.controller import running_threads
from mdpviz.models import checkers as ck
from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.game.scenario import ScenarioError
from mdpviz.solvers import solve
from mdpviz.models.checkers import spec as cg
from mdpviz.models.checkers import play as cp
from mdpviz.models.checkers.spec import SPEC, CheckersSettings

settings_from_dict, settings_to_dict = SPEC.from_dict, SPEC.to_dict
from mdpviz.models.checkers.play import (
    CheckersPositionModel,
    cell_square,
    greedy_rows,
    outcome_distribution,
    square_cell,
)
from mdpviz.widgets.games import checkers as cv
from mdpviz.widgets.games.checkers import CheckersGame, CheckersPainter
from mdpviz.models.kit.boards.position import DECISION, MODEL, PLAY, GameWalk
from tests.conftest import make_window

SMALL = CheckersSettings(ck.CheckersRules(size=4, rows=1, ply_limit=20))
"""The GUI tests' variant: 4x4, one row of men, a draw after 20 plies (1,193 states)."""


# ---------------------------------------------------------------------------------- pure: cells, settings
def test_square_names_and_cells():
    assert square_cell("a1", 5) == 0 and square_cell("b2", 5) == 6 and square_cell("e5", 5) == 24
    for n in (4, 5, 8):
        for c in range(n * n):
            assert square_cell(cell_square(c, n), n) == c
    assert cp.is_dark(0, 4) and not cp.is_dark(1, 4) and cp.is_dark(5, 4)  # a1, b1, b2


def test_settings_validate_and_round_trip():
    s = CheckersSettings(ck.CheckersRules(size=6, rows=2, forced_capture=False, multi_jump=False, ply_limit=None),
                         agent=ck.WHITE, discount=0.5)
    assert settings_from_dict(settings_to_dict(s), "x.json") == s
    assert s.key == (ck.CheckersRules(size=6, rows=2, forced_capture=False, multi_jump=False, ply_limit=None),
                     ck.WHITE)
    with pytest.raises(ValueError, match="below 1"):
        CheckersSettings(ck.CheckersRules(ply_limit=None), discount=1.0).validate()
    with pytest.raises(ValueError, match="1..1"):
        CheckersSettings(ck.CheckersRules(size=4, rows=2)).validate()
    with pytest.raises(ScenarioError, match=r"games\.checkers\.rows"):
        settings_from_dict({"size": 4, "rows": 2}, "x.json")
    with pytest.raises(ScenarioError, match=r"games\.checkers\.agent"):
        settings_from_dict({"agent": "red"}, "x.json")
    with pytest.raises(ScenarioError, match=r"games\.checkers\.discount"):
        settings_from_dict({"discount": 1.5}, "x.json")
    with pytest.raises(ScenarioError, match=r"games\.checkers\.colour"):
        settings_from_dict({"colour": "black"}, "x.json")
    with pytest.raises(ScenarioError, match=r"games\.checkers\.size"):
        settings_from_dict({"size": "5"}, "x.json")


def test_greedy_rows_break_ties_to_the_lowest_action():
    # state 0: actions 0 and 1 both reach the end with reward 1; action 2 pays 0.5
    mdp = TabularMDP.from_transitions(2, 3, [0, 0, 0], [2, 1, 0], [1, 1, 1], [1.0, 1.0, 1.0], [0.5, 1.0, 1.0],
                                      discount=0.9, terminal=[1])
    rows = greedy_rows(mdp, np.array([0]), np.zeros(2))
    assert int(mdp.row_action[rows[0]]) == 0


# ---------------------------------------------------------------------------------- pure: the position model
@pytest.fixture(scope="module")
def small_cm() -> ck.CheckersMDP:
    return ck.compile_checkers(SMALL.rules, discount=0.1)


def test_start_position_moves_and_cells(small_cm):
    m = CheckersPositionModel(small_cm)
    pos = m.start()
    # 4x4, one row: Black men on a1 and c1, White men on b4 and d4
    assert pos.cells.tolist() == [1, 0, 1, 0] + [0] * 8 + [0, -1, 0, -1]
    assert pos.mover == "Black" and pos.chooser == DECISION and pos.state == int(small_cm.start_states[0])
    mv = m.moves(pos)
    assert [(x.label, x.origin, x.cell) for x in mv] == [("a1-b2", 0, 5), ("c1-b2", 2, 5), ("c1-d2", 2, 7)]
    assert [x.action for x in mv] == [a for a, _ in small_cm.moves(pos.state)]  # the MDP's action ids
    with pytest.raises(ValueError, match="Black always moves first"):
        m.start(first="White")
    assert m.human_marks() == ("White",) and m.first_choices() == ("Black",)


def test_the_random_reply_is_a_model_position_with_probability_one_over_k(small_cm):
    m = CheckersPositionModel(small_cm)
    ply = m.play(m.start(), m.moves(m.start())[0].action, np.random.default_rng(0))
    after = ply.after
    assert ply.text == "Black a1-b2" and ply.reward == 0.0
    assert after.mover == "White" and after.chooser == MODEL and after.state == -1
    mv = m.moves(after)
    assert sorted(x.label for x in mv) == ["b4-a3", "b4-c3", "d4-c3"]
    assert all(x.prob == pytest.approx(1 / 3) for x in mv)
    assert np.all(np.isnan(m.move_values(after, np.zeros(small_cm.n_states))))


def test_move_values_are_the_compiled_q_values(small_cm):
    m = CheckersPositionModel(small_cm)
    v = solve(small_cm.mdp, "vi", tol=1e-12).values
    pos = m.start()
    got = m.move_values(pos, v)
    want = [q for _, _, q in small_cm.move_values(pos.state, v)]  # the model's own loop over the rows
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert m.value(pos, v) == pytest.approx(max(want), abs=1e-9)


def test_ply_rewards_add_up_to_every_transition_reward_of_the_start(small_cm):
    """Playing each move and each reply with the rules reproduces the compiled rows: the two plies'
    rewards sum to the transition reward, and the replies land on the transition's next state."""
    m = CheckersPositionModel(small_cm)
    rng = np.random.default_rng(0)
    pos = m.start()
    for spec in m.moves(pos):
        ply1 = m.play(pos, spec.action, rng)
        got = []
        for r in m.moves(ply1.after):
            ply2 = m.play(ply1.after, r.action, rng)
            nxt = ply2.after.state if not ply2.after.terminal else m._terminal_state(ply2.after)
            got.append((nxt, ply1.reward + ply2.reward))
        want = [(d, rew) for d, _, rew in small_cm.mdp.outcomes(pos.state, spec.action)]
        assert sorted(got) == sorted(want)
        # every reply leaves the agent with one man and the opponent two: material 1.5 (1 - 2)... or the
        # man was captured; the material reward is the seed's formula either way
        for nxt, rew in got:
            if 0 <= nxt < small_cm.n_states - 3:
                assert rew == pytest.approx(small_cm.material[nxt])


def test_hand_checked_win_in_one():
    """Black man a1, White man b2: the only move a1xc3 captures White's last piece: Q = +100."""
    rules = ck.CheckersRules(size=4, rows=1, ply_limit=20)
    start = ck.Checkers(rules).position(black_men=["a1"], white_men=["b2"])
    cm = ck.compile_checkers(rules, start=start, discount=0.1)
    m = CheckersPositionModel(cm)
    v = solve(cm.mdp, "vi", tol=1e-12).values
    pos = m.wrap(start)
    (mv,) = m.moves(pos)
    assert mv.label == "a1xc3" and (mv.origin, mv.cell) == (0, 10)
    assert m.move_values(pos, v).tolist() == [100.0]
    ply = m.play(pos, mv.action, np.random.default_rng(0))
    assert ply.after.terminal and ply.after.outcome == "Black wins" and ply.reward == 100.0
    assert m.outcome_probabilities(pos, v) == {"Black wins": 1.0, "White wins": 0.0, "draw": 0.0}


def test_hand_checked_half_loss_half_draw():
    """Optional captures, 2-ply limit. Black man a1, White man c3: Black's only move a1-b2; White
    replies c3xa1 (Black has nothing left: -100) or c3-d2 (the ply limit: a draw, 0), 1/2 each.
    Q(a1-b2) = 1/2 (-100) + 1/2 (0) = -50; P(loss) = P(draw) = 1/2."""
    rules = ck.CheckersRules(size=4, rows=1, forced_capture=False, ply_limit=2)
    start = ck.Checkers(rules).position(black_men=["a1"], white_men=["c3"])
    cm = ck.compile_checkers(rules, start=start, discount=0.1)
    m = CheckersPositionModel(cm)
    v = solve(cm.mdp, "vi", tol=1e-12).values
    pos = m.wrap(start)
    assert m.move_values(pos, v).tolist() == [-50.0]
    assert m.outcome_probabilities(pos, v) == {"Black wins": 0.0, "White wins": 0.5, "draw": 0.5}
    terms = m.backup(pos, m.moves(pos)[0].action, v)
    assert sorted((t.prob, t.reward, t.note) for t in terms) == [(0.5, -100.0, "White c3xa1"),
                                                                  (0.5, 0.0, "White c3-d2")]


@pytest.mark.parametrize("agent", [ck.BLACK, ck.WHITE])
@pytest.mark.parametrize("gamma", [0.1, 0.9])
def test_exact_outcomes_from_the_start_match_the_model(agent, gamma):
    """Forward propagation from the start position (the agent greedy on V*) = the model's absorbing
    chain of the solver's policy (an independent computation), for both colours and discounts."""
    cm = ck.compile_checkers(SMALL.rules, agent=agent, discount=gamma)
    sol = solve(cm.mdp, "vi", tol=1e-12)
    m = CheckersPositionModel(cm)
    pos = m.start()
    assert pos.chooser == (DECISION if agent == ck.BLACK else MODEL)
    got = m.outcome_probabilities(pos, sol.values)
    ex = cm.outcome_probabilities(sol.policy)
    agent_wins = got["Black wins"] if agent == ck.BLACK else got["White wins"]
    agent_loses = got["White wins"] if agent == ck.BLACK else got["Black wins"]
    assert agent_wins == pytest.approx(ex["win"], abs=1e-12)
    assert agent_loses == pytest.approx(ex["loss"], abs=1e-12)
    assert got["draw"] == pytest.approx(ex["draw"], abs=1e-12)
    assert sum(got.values()) == pytest.approx(1.0, abs=1e-12)


def test_outcome_distribution_reports_mass_still_in_play():
    # a two-state loop that never ends (continuing MDP), one move
    mdp = TabularMDP.from_transitions(2, 1, [0, 1], [0, 0], [1, 0], [1.0, 1.0], [0.0, 0.0], discount=0.5)
    ended, left = outcome_distribution(mdp, {0: 1.0}, np.zeros(2), max_steps=7)
    assert ended == {} and left == 1.0
    # a game that ends after one move: a work bound of 0 stops before the move
    mdp = TabularMDP.from_transitions(3, 1, [0, 0], [0, 0], [1, 2], [0.25, 0.75], [1.0, -1.0], discount=1.0,
                                      terminal=[1, 2])
    assert outcome_distribution(mdp, {0: 1.0}, np.zeros(3)) == ({1: 0.25, 2: 0.75}, 0.0)
    assert outcome_distribution(mdp, {0: 1.0}, np.zeros(3), max_work=0) == ({}, 1.0)


def test_walk_human_vs_agent_reaches_the_end(small_cm):
    m = CheckersPositionModel(small_cm)
    v = solve(small_cm.mdp, "vi", tol=1e-9).values
    walk = GameWalk(m, mode=PLAY, seed=3)
    walk.new_game(v)  # the agent (Black) opens at once
    assert walk.position.mover == "White" and len(walk.plies) == 1 and walk.plies[0].by == "agent"
    for _ in range(40):
        if walk.position.terminal:
            break
        walk.play(walk.legal_actions()[-1], v)
    assert walk.position.terminal and walk.position.outcome in ("Black wins", "White wins", "draw (ply limit)")


def test_painter_puts_rank_one_at_the_bottom_and_draws_pieces(qtbot):
    p = CheckersPainter(4)
    rects = p.cell_rects(QRectF(0, 0, 216, 216), 16)
    assert rects[0].top() > rects[12].top()  # a1 below a4
    assert rects[0].left() < rects[3].left()  # a1 left of d1
    assert p.cell_base(0) == QColor(cv.DARK_SQUARE) and p.cell_base(1) == QColor(cv.LIGHT_SQUARE)
    assert p.cell_name(5) == "b2 (dark square)"
    img = QImage(60, 60, QImage.Format.Format_RGB32)
    img.fill(QColor("#808080"))
    qp = QPainter(img)
    p.paint_piece(qp, QRectF(0, 0, 60, 60), 0, 2)  # a black king: dark disc, orange crown
    qp.end()
    assert QColor(img.pixel(30, 12)).lightness() < 60  # the disc, above the crown
    crown = QColor(img.pixel(30, 28))
    assert crown.red() > 180 and crown.blue() < 80


# ---------------------------------------------------------------------------------- the window
def checkers_window(qtbot, tmp_path, settings: CheckersSettings = SMALL):
    """A window with snakes and a small checkers board only."""
    from mdpviz.widgets.games.snakes import SnakesGame
    from mdpviz.widgets.session import GameSession

    return make_window(qtbot, tmp_path / "settings.ini", games=[SnakesGame(), CheckersGame(GameSession(cg.SPEC, settings))])


@pytest.fixture
def window(qtbot, tmp_path):
    w = checkers_window(qtbot, tmp_path)
    yield w
    w.shutdown()


def open_checkers(qtbot, w) -> CheckersGame:
    w.switch_game("checkers")
    g = w.game
    qtbot.waitUntil(lambda: w.controller.mdp is not None and g.session.built() is not None, timeout=20_000)
    w.solving.redraw()
    return g


def step_once(qtbot, w) -> None:
    n = len(w.controller.history)
    w.solver_panel.step.click()
    qtbot.waitUntil(lambda: len(w.controller.history) > n and w.controller.state != "stepping", timeout=10_000)
    w.solving.redraw()


def run_to_end(qtbot, w) -> None:
    with qtbot.waitSignal(w.controller.finished, timeout=30_000):
        w.solver_panel.run.click()
    w.solving.redraw()


def test_checkers_is_in_the_default_games(qtbot):
    from mdpviz.widgets.games import default_games

    assert "checkers" in [g.key for g in default_games()]


def test_the_game_loads_and_shows_its_state_count(window, qtbot):
    g = open_checkers(qtbot, window)
    assert window.stage.board_stack.currentWidget() is g.board
    cm = g.session.built()
    assert cm.n_states == 1193 and window.controller.mdp.n_states == 1193
    ed = g.editor()
    assert ed.info.text().startswith("1,193 states")
    for name in ("checkersSize", "checkersRows", "checkersPlyLimit", "checkersAgent", "checkersDiscountSlider",
                 "checkersModelInfo", "checkersCompileProgress", "checkersCancelCompile", "checkersBuild"):
        wid = window.findChild(QWidget, name)
        assert wid is not None and wid.accessibleName(), name
    pos = g.board.position
    assert pos.mover == "Black" and pos.state == 0
    view = g.board.view()
    assert view.origins[0] and view.origins[2]  # the two men that can move
    assert np.all(np.isnan(view.qs)) and view.texts[0] == ""  # no numbers before the first sweep


def test_a_step_changes_the_numbers(window, qtbot):
    g = open_checkers(qtbot, window)
    before = g.board.view().qs.copy()
    step_once(qtbot, window)
    after = g.board.view().qs
    assert not np.array_equal(before, after)
    # the numbers are the Q-values of the shown sweep
    sw = window.controller.history[-1]
    want = [q for _, _, q in g.session.built().move_values(g.board.position.state, np.asarray(sw.values))]
    np.testing.assert_allclose(after, want, atol=1e-12)
    assert "sweep 1" in g.board.caption


def test_clicking_a_piece_shows_its_moves_and_clicking_a_square_plays(window, qtbot):
    g = open_checkers(qtbot, window)
    run_to_end(qtbot, window)
    b = g.board
    assert b.click_cell(square_cell("c1", 4)) == "origin"
    view = b.view()
    assert [int(c) for c in np.flatnonzero(view.legal)] == [square_cell("b2", 4), square_cell("d2", 4)]
    assert view.texts[square_cell("d2", 4)] != ""  # its value is printed on the square
    assert b.click_cell(square_cell("d2", 4)) == "played"
    assert b.walk.index == 2  # the agent's move and the random reply
    assert b.walk.plies[0].text == "Black c1-d2" and b.walk.plies[1].by == "model"
    assert b.position.mover == "Black" and b.position.state > 0
    assert "Black c1-d2" in b.status.text()
    assert b.back() and b.walk.index == 1 and b.forward()


def test_human_vs_agent_reaches_a_terminal_position(window, qtbot):
    g = open_checkers(qtbot, window)
    run_to_end(qtbot, window)
    b = g.board
    b.set_mode(PLAY)  # you play White against the solved agent
    assert b.walk.human == "White"
    for _ in range(40):
        pos = b.position
        if pos.terminal:
            break
        assert pos.mover == "White"
        assert b.play_move(b.model.moves(pos)[0].action)
    assert b.position.terminal
    assert "Game over" in b.status.text()


def test_discount_slider_keeps_the_compile_and_the_position(window, qtbot):
    g = open_checkers(qtbot, window)
    cm = g.session.built()
    run_to_end(qtbot, window)
    b = g.board
    b.click_cell(square_cell("a1", 4))
    b.click_cell(square_cell("b2", 4))
    model, idx = b.model, b.walk.index
    q_greedy = b.view().qs.copy()
    ed = g.editor()
    ed.discount_slider.setValue(90)
    assert g.settings.discount == 0.9 and window.controller.mdp.discount == 0.9
    assert g.session.built() is cm  # no new enumeration for a new discount
    run_to_end(qtbot, window)
    assert b.model is model and b.walk.index == idx  # the same position, new values
    assert not np.allclose(b.view().qs, q_greedy)
    assert "far-sighted" in ed.discount_label.text()
    window.act_undo.trigger()
    assert g.settings.discount == 0.1


def test_inspector_shows_the_replies(window, qtbot):
    g = open_checkers(qtbot, window)
    run_to_end(qtbot, window)
    window.solving.inspect(0)
    insp = window.solving.inspection()
    assert [a.name for a in insp.actions] == ["a1-b2", "c1-b2", "c1-d2"]
    assert "White b4-a3" in insp.actions[0].text


def test_matchups_with_exact_probabilities(window, qtbot):
    g = open_checkers(qtbot, window)
    run_to_end(qtbot, window)
    with qtbot.waitSignal(window.controller.job_finished, timeout=30_000):
        assert window.playing.start_simulation(4000, 7)
    panel = window.playing.sim_panel
    rows = panel.rows
    assert [r.name for r in rows] == ["optimal vs random", "random vs random"]
    cm = g.session.built()
    ex = cm.outcome_probabilities(window.controller.solution.policy)
    opt = rows[0]
    assert opt.labels == cp.OUTCOME_LABELS and sum(opt.counts) == 4000
    assert opt.exact == pytest.approx((ex["win"], ex["loss"], ex["draw"]), abs=1e-12)
    assert np.all(np.abs(opt.fractions - np.asarray(opt.exact)) < 0.04)
    assert opt.fractions[0] > rows[1].fractions[0] + 0.1  # the agent wins clearly more than random play


def test_episode_player_shows_positions(window, qtbot):
    g = open_checkers(qtbot, window)
    run_to_end(qtbot, window)
    assert window.playing.new_episode("optimal")
    window.player.seek(0)
    assert g.board.position.state >= 0


def test_refused_edit_and_the_agent_playing_white(window, qtbot):
    g = open_checkers(qtbot, window)
    with qtbot.waitSignal(g.session.message, timeout=1000) as sig:
        assert not g.set_variant(rows=2)
    assert "1..1" in sig.args[0]
    assert g.settings == SMALL
    assert g.set_variant(agent=ck.WHITE)
    qtbot.waitUntil(lambda: window.controller.mdp is not None and g.session.built() is not None, timeout=20_000)
    window.solving.redraw()
    walk = g.board.walk
    assert walk.start.mover == "Black" and walk.start.chooser == MODEL  # Black is the random opponent
    assert walk.index == 1 and walk.plies[0].by == "model"  # it opened at once
    assert g.board.position.mover == "White" and g.board.position.chooser == DECISION
    assert g.board.position.state in set(g.session.built().start_states.tolist())
    run_to_end(qtbot, window)
    b = g.board
    b.set_mode(PLAY)  # you play Black (and move first) against the agent playing White
    assert b.walk.human == "Black" and b.walk.index == 0 and b.position.mover == "Black"
    for _ in range(40):
        if b.position.terminal:
            break
        assert b.play_move(b.model.moves(b.position)[-1].action)
    assert b.position.terminal
    window.act_undo.trigger()
    qtbot.waitUntil(lambda: window.controller.mdp is not None and g.session.built() is not None, timeout=20_000)
    assert g.settings.agent == ck.BLACK


def test_a_long_compile_can_be_cancelled_and_leaves_the_app_usable(window, qtbot, monkeypatch):
    """5x5 with a 40-ply limit (about 1.3 million states, ~10 s) compiles in a child process;
    Cancel kills it and the window stays usable: the small variant compiles and solves after."""
    started = []
    real = subprocess.Popen

    def popen(*a, **k):
        p = real(*a, **k)
        started.append(p)
        return p

    monkeypatch.setattr(cg.subprocess, "Popen", popen)
    monkeypatch.setattr(cg, "QUICK_MAX_STATES", 100)  # straight to the child process
    g = open_checkers(qtbot, window)
    ed = g.editor()
    g.set_variant(size=5, ply_limit=40)
    qtbot.waitUntil(lambda: bool(started) and g.session.compiling, timeout=10_000)
    assert window.controller.mdp is None and ed.cancel_button.isEnabled()
    assert "Compiling" in g.empty_text() or "Enumerating" in g.empty_text()
    with qtbot.waitSignal(window.controller.job_cancelled, timeout=10_000):
        ed.cancel_button.click()
    assert not g.session.compiling and not window.controller.job_busy
    assert started[0].poll() is not None  # the child process is gone
    assert "cancelled" in g.empty_text() and ed.build_button.isEnabled()
    window.act_undo.trigger()  # back to 4x4: compiled already, the app solves it
    qtbot.waitUntil(lambda: window.controller.mdp is not None, timeout=10_000)
    run_to_end(qtbot, window)
    assert window.controller.state == "converged"
    window.shutdown()
    assert running_threads() == []


def test_switching_game_during_a_compile_cancels_it_and_coming_back_restarts(window, qtbot, monkeypatch):
    monkeypatch.setattr(cg, "QUICK_MAX_STATES", 100)
    monkeypatch.setattr(cg, "POLL_SECONDS", 0.05)
    g = open_checkers(qtbot, window)
    g.set_variant(size=5, ply_limit=40)
    qtbot.waitUntil(lambda: g.session.compiling, timeout=10_000)
    with qtbot.waitSignal(window.controller.job_cancelled, timeout=10_000):
        window.switch_game("snakes")
    assert not g.session.compiling
    g.set_variant(size=4, ply_limit=12)  # a new small variant while another game is shown
    window.switch_game("checkers")
    qtbot.waitUntil(lambda: window.controller.mdp is not None and g.session.built() is not None, timeout=20_000)
    assert g.session.built().rules.ply_limit == 12


def test_scenario_round_trip(window, qtbot, tmp_path):
    g = open_checkers(qtbot, window)
    g.session.set_discount(0.75)
    p = window.files.save_scenario(tmp_path / "s.json")
    g.session.set_discount(0.2)
    window.files.load_scenario(p)
    assert g.settings == CheckersSettings(SMALL.rules, discount=0.75)
    assert g.editor().discount_slider.value() == 75
