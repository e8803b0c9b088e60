"""Tic-tac-toe vs random and risk tic-tac-toe in the window (issue 9): models, boards, matchups, 4x4 solve.

Reference values: seed 001's optimal policy against the random opponent (opponent first) wins
with probability 866/945 and draws with 79/945 (never loses); the empty 3x3 risk board with the
seed's stochastic risks is worth 0.11966164 for X (tests/test_risk_ttt.py).
"""
from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

from mdpviz.models import risk_ttt as rt
from mdpviz.models import ttt as tt
from mdpviz.models.kit.game.scenario import ScenarioError
from mdpviz.solvers import solve
from mdpviz.models.kit.pictures.colors import ColorScale
from mdpviz.models.kit.boards.position import DECISION, MODEL, PLAY, GameWalk, position_view
from mdpviz.models.risk_ttt import ExactRiskPositionModel, RiskPositionModel, solve_exact_cancellable
from mdpviz.models.ttt import VsRandomPositionModel, greedy_policy
from mdpviz.widgets.games.risk_ttt import RiskTicTacToeGame
from mdpviz.widgets.games.ttt import TicTacToeGame
from tests.conftest import FakeDialogs, make_window, wait_laid_out, wait_model


def _frac(x: float) -> Fraction:
    f = Fraction(x).limit_denominator(10**6)
    assert abs(float(f) - x) < 1e-12
    return f


@pytest.fixture(scope="module")
def vsr():
    g = tt.compile_vs_random(tt.VsRandomSettings())
    return VsRandomPositionModel(g), solve(g.mdp, "pi")


@pytest.fixture(scope="module")
def risk():
    g = rt.compile_risk(rt.risk_preset("stochastic"))
    return RiskPositionModel(g), solve(g.mdp, "vi", tol=1e-12)


# ---------------------------------------------------------------------------------- models (no window)
def test_vs_random_positions_reproduce_every_compiled_transition(vsr):
    """The agent's move then each reply of the random opponent (two plies of the board) give exactly
    the outcomes, probabilities and rewards of the MDP row: the board follows the compiled rules."""
    m, _ = vsr
    rng = np.random.default_rng(0)
    mdp = m.mdp
    for s in range(m.game.n_board_states):
        pos = m.position_of(s)
        assert pos.chooser == DECISION and pos.state == s
        for mv in m.moves(pos):
            got: dict[int, list[float]] = defaultdict(lambda: [0.0, 0.0])
            ply = m.play(pos, mv.action, rng)
            if ply.after.terminal:
                branches = [(1.0, ply)]
            else:
                assert ply.after.chooser == MODEL
                branches = [(r.prob, m.play(ply.after, r.action, rng)) for r in m.moves(ply.after)]
            for p, b in branches:
                after = b.after
                if after.terminal:
                    d = m.game.n_board_states + {"draw": 1}.get(after.outcome, 0 if after.outcome.startswith("O") else 2)
                else:
                    d = after.state
                got[d][0] += p
                got[d][1] = b.reward
            want = {d: [p, r] for d, p, r in mdp.outcomes(s, mv.action)}
            assert got.keys() == want.keys(), (s, mv.action)
            for d in want:
                assert got[d][0] == pytest.approx(want[d][0], abs=1e-12) and got[d][1] == want[d][1]


def test_vs_random_hand_checked_endgame(vsr):
    """X O X / X O O / . X . with O (the agent) to move: O on 6 leaves X only cell 8, a full board
    without a line: a draw, Q = 0. O on 8 lets X complete the column 0-3-6: Q = -3500. Greedy: 6."""
    m, sol = vsr
    pos = m.position_of(m.game.state_of("XOX/XOO/.X."))
    v = position_view(m, pos, sol.values, scale=ColorScale(-3500.0, 500.0))
    assert v.texts[6] == "0.00" and v.texts[8] == "-3500" and v.greedy_cell == 6
    assert v.fill[6] == pytest.approx(3500 / 4000) and v.fill[8] == 0.0
    assert all(v.texts[c] == "" for c in (0, 1, 2, 3, 4, 5, 7))
    terms = m.backup(pos, 8, sol.values)
    assert [(t.prob, t.reward) for t in terms] == [(1.0, -3500.0)]


def test_vs_random_exact_outcomes_from_the_start_are_the_seeds(vsr):
    m, sol = vsr
    start = m.start()
    assert start.chooser == MODEL and start.mover == "X"  # the random opponent opens
    p = m.outcome_probabilities(start, sol.values)
    assert _frac(p["O (agent) wins"]) == Fraction(866, 945)
    assert _frac(p["draw"]) == Fraction(79, 945) and p["X wins"] == 0.0
    # from the agent's first position the probabilities are those of the compiled outcome matrix
    s0 = int(m.game.start_states[4])
    h = tt.outcome_matrix(m.game, sol.policy)[s0]
    assert list(m.outcome_probabilities(m.position_of(s0), sol.values).values()) == pytest.approx(list(h))
    with pytest.raises(ValueError, match="random opponent"):
        m.start(first="O")


def test_vs_random_walk_and_human_vs_agent(vsr):
    m, sol = vsr
    w = GameWalk(m, seed=3)
    plies = w.new_game(sol.values)
    assert [p.by for p in plies] == ["model"] and w.position.chooser == DECISION  # the opening reply
    w2 = GameWalk(m, mode=PLAY, seed=1)
    assert w2.human == "X" and m.first_choices() == ("X",)
    w2.set_first("X")
    w2.new_game(sol.values)
    while not w2.position.terminal:  # the human plays the lowest empty cell; the agent its greedy move
        empty = [mv.action for mv in m.moves(w2.position)]
        w2.play(empty[0], sol.values)
    for p in w2.plies:
        if p.by == "agent":
            assert p.action == sol.policy[p.before.state]
    assert {p.by for p in w2.plies} == {"you", "agent"}
    assert w2.position.outcome in ("O wins", "draw", "X wins")


def test_risk_positions_values_and_coin(risk):
    m, sol = risk
    pos = m.start()
    assert pos.mover == "X" and pos.objective == "max"
    v = position_view(m, pos, sol.values)
    assert v.value == pytest.approx(0.11966164, abs=1e-8)
    q = m.move_values(pos, sol.values)
    assert np.allclose(q, m.game.cell_values(sol.values, pos.state)[[mv.action for mv in m.moves(pos)]])
    assert v.greedy_cell == int(sol.policy[pos.state]) == 8
    o = m.start(first="O")
    assert o.mover == "O" and o.objective == "min"
    # the coin: cell 4 has risk 0.95; over many plays O's mark lands there about 95% of the time
    rng = np.random.default_rng(7)
    landed = [m.play(pos, 4, rng).after.cells[4] for _ in range(2000)]
    frac = np.mean(np.array(landed) == tt.O)
    assert abs(frac - 0.95) < 4 * np.sqrt(0.95 * 0.05 / 2000)
    terms = m.backup(pos, 4, sol.values)
    assert [t.note for t in terms] == ["own mark", "coin: opponent's mark"] and [t.prob for t in terms] == \
        pytest.approx([0.05, 0.95])
    p = m.outcome_probabilities(pos, sol.values)
    assert p["X wins"] - p["O wins"] == pytest.approx(sol.values[pos.state], abs=1e-12)


def test_risk_human_vs_agent_reaches_the_end(risk):
    m, sol = risk
    for human, first in (("O", "X"), ("X", "O"), ("O", "O")):
        w = GameWalk(m, mode=PLAY, human=human, first=first, seed=11)
        w.new_game(sol.values)
        while not w.position.terminal:
            w.play(m.moves(w.position)[0].action, sol.values)
        assert w.position.outcome in ("X wins", "O wins", "draw")
        assert all(p.before.mover == human for p in w.plies if p.by == "you")
        assert all(p.action == sol.policy[p.before.state] for p in w.plies if p.by == "agent")


def test_exact_solve_agrees_with_the_compiled_game_and_can_be_cancelled(risk):
    m, sol = risk
    seen = []
    ex = solve_exact_cancellable(np.asarray(m.game.risk), size=3, progress=lambda d, t, s: seen.append((d, t)),
                                 cancelled=lambda: False)
    assert ex.empty_value == pytest.approx(0.11966164, abs=1e-8)
    assert seen[-1] == (3 ** 9, 3 ** 9) and len(seen) == 10  # one batch per layer of a 3x3 board
    em = ExactRiskPositionModel(np.asarray(m.game.risk), 3, ex)
    rng = np.random.default_rng(2)
    pos_t, pos_e = m.start(), em.start()
    for _ in range(5):  # the same positions have the same move values in both models
        assert np.allclose(em.move_values(pos_e, None), m.move_values(pos_t, sol.values), atol=1e-12)
        assert em.value(pos_e, None) == pytest.approx(m.value(pos_t, sol.values), abs=1e-12)
        a = m.moves(pos_t)[0].action
        pos_t = m.play(pos_t, a, rng).after
        pos_e = em.start() if pos_t.terminal else em._pos(int(pos_t.cells.astype(np.int64) @ em.geo.powers),
                                                          tt.parse_mark(pos_t.mover))
        if pos_t.terminal:
            break
    calls = iter(range(100))
    assert solve_exact_cancellable(np.asarray(m.game.risk), size=3, progress=lambda *a: None,
                                   cancelled=lambda: next(calls) >= 3) is None
    with pytest.raises(ValueError, match="5x5"):
        solve_exact_cancellable(np.full(25, 0.5), size=5, progress=lambda *a: None, cancelled=lambda: False)


def test_greedy_policy_is_the_solvers(risk):
    m, sol = risk
    assert np.array_equal(greedy_policy(m.mdp, sol.values), sol.policy)


# ---------------------------------------------------------------------------------- games (edits, scenarios)
def test_vs_random_edits_and_scenario_round_trip(qtbot):
    g = TicTacToeGame()
    assert g.set_rewards(win=1, loss=-1) and g.settings.win == 1.0 and g.settings.loss == -1.0
    assert g.session.set_discount(0.5) and g.session.mdp().discount == 0.5
    assert g.set_agent("X") and g.position_model().players == ("X", "O")
    assert g.set_first("agent") and g.position_model().start().chooser == DECISION
    data = g.session.to_dict()
    assert g.session.load_dict(data, "s.json") == g.session.settings
    with pytest.raises(ScenarioError, match="games.ttt.win"):
        g.session.load_dict({"win": "lots"}, "s.json")
    with pytest.raises(ScenarioError, match="discount"):
        g.session.load_dict({"discount": 2.0}, "s.json")
    g.session.undo_stack.undo()
    assert g.settings.first == "opponent"


def test_risk_edits_presets_and_scenario_round_trip(qtbot):
    g = RiskTicTacToeGame()
    ed = g.editor()
    names = [ed.preset.itemData(i) for i in range(ed.preset.count())]
    assert names[:7] == list(rt.PRESETS) and len(rt.PRESETS) == 7
    ed.preset.setCurrentIndex(ed.preset.findData("classic"))
    assert g.rstate.risk == (0.0,) * 9 and g.rstate.preset == "classic"
    ed.spins[4].setValue(0.35)
    assert g.rstate.risk[4] == 0.35 and g.rstate.preset == "custom"
    assert ed.preset.currentData() == "custom"
    g.session.undo_stack.undo()
    assert g.rstate.preset == "classic" and ed.spins[4].value() == 0.0
    ed.size.setCurrentIndex(ed.size.findData(4))
    assert g.rstate.size == 4 and len(g.rstate.risk) == 16 and g.session.mdp() is None and len(ed.spins) == 16
    assert "Solve 4x4" in g.empty_text()
    assert g.session.load_dict(g.session.to_dict(), "s.json") == g.rstate
    with pytest.raises(ScenarioError, match="risk"):
        g.session.load_dict({"size": 3, "risk": [0.5] * 8}, "s.json")
    with pytest.raises(ScenarioError, match="size"):
        g.session.load_dict({"size": 5}, "s.json")
    assert not g.set_preset("stochastic")  # 9 risks only: refused with a message, nothing changes
    assert g.rstate.size == 4


# ---------------------------------------------------------------------------------- in the window
@pytest.fixture
def window(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path / "s.ini", dialogs=FakeDialogs(strict=True), size=(1366, 820), show=True)
    yield w
    w.shutdown()


def _step(w, qtbot, n: int = 1) -> None:
    for _ in range(n):
        k = len(w.controller.history)
        w.solving.step()
        qtbot.waitUntil(lambda: len(w.controller.history) > k, timeout=10_000)
    w.solving._dirty = True
    w.solving.redraw()


def _converge(w, qtbot) -> None:
    wait_model(w, qtbot)
    w.solving.run_solver()
    d = w.session.driver  # (anti-tic-tac-toe's Run: rounds, each one's model built on the job thread)
    qtbot.waitUntil(lambda: (d is None or not d.running()) and not w.session.building
                    and w.controller.state == "converged", timeout=30_000)
    w.solving._dirty = True
    w.solving.redraw()


def test_vs_random_loads_steps_and_plays(window, qtbot):
    w = window
    w.switch_game("ttt")
    b = w.game.board
    assert w.stage.board_stack.currentWidget() is b and w.stage.sim_stack.currentWidget() is w.game.simulation_widget()
    wait_model(w, qtbot)
    w.solving.redraw()
    assert b.position is not None and b.position.chooser == DECISION  # after the opponent's opening
    assert all(t == "" for t in b.view().texts) and "Not solved" in b.caption_label.text()
    _step(w, qtbot)
    first = b.view().texts
    assert any(first) and "sweep 1" in b.caption_label.text()
    _step(w, qtbot)
    assert b.view().texts != first  # a step changes the numbers
    s = b.position.state
    assert w.solving.selected == s  # the inspector shows the position's backup
    insp = w.solving.inspection()
    assert [a.action for a in insp.actions] == [mv.action for mv in b.view().moves]
    cell = b.view().moves[0].cell
    c = b.canvas.cell_center(cell)
    qtbot.mouseClick(b.canvas, Qt.MouseButton.LeftButton, pos=QPoint(int(c.x()), int(c.y())))
    assert [p.by for p in b.walk.plies] == ["model", "you", "model"]  # opening, the click, the random reply
    assert b.walk.plies[1].action == cell and b.walk.plies[1].before.state == s
    # the history slider shows an older sweep on the same position
    w.solving._on_history_moved(0)
    w.solving.redraw()
    assert "sweep 1" in b.caption_label.text()


def test_vs_random_policy_iteration_steps_evaluate_and_improve_on_the_board(window, qtbot):
    w = window
    w.switch_game("ttt")
    w.solver_panel.set_method("pi")
    w.solving.reset_solver()
    b = w.game.board
    qtbot.waitUntil(lambda: w.controller.state == "ready", timeout=10_000)
    seen = []
    for _ in range(4):  # evaluate, improve, evaluate, improve
        k = len(w.controller.history)
        w.controller.step()
        qtbot.waitUntil(lambda: len(w.controller.history) > k, timeout=10_000)
        w.solving._dirty = True
        w.solving.redraw()
        seen.append((w.controller.history[-1].phase, b.view().texts))
    assert [p for p, _ in seen] == ["evaluate", "improve", "evaluate", "improve"]
    assert "round 2, improve" in b.caption_label.text()
    assert seen[0][1] != seen[2][1]  # the second evaluation (of the improved policy) changes the numbers
    assert b.view().texts == position_view(b.model, b.position, np.asarray(w.controller.history[-1].values),
                                           scale=b.scale).texts


def test_the_episode_player_shows_its_positions_on_the_board(window, qtbot):
    w = window
    w.switch_game("risk_ttt")
    _converge(w, qtbot)
    assert w.playing.new_episode("optimal")
    moves = w.player.moves
    assert moves and w.player.start_state == w.game.session.start_state()
    w.player.seek(1)
    b = w.game.board
    assert b.position.state == moves[1].next_state and "Episode" in b.status.text()
    assert not b.position.terminal and w.solving.selected == b.position.state
    insp = w.solving.inspection()  # the inspector names positions and the coin's two outcomes
    other = "O" if b.position.mover == "X" else "X"
    assert "own mark" in insp.actions[0].text and f"|{other})=" in insp.actions[0].text


def test_vs_random_human_vs_agent_in_the_window(window, qtbot):
    w = window
    w.switch_game("ttt")
    _converge(w, qtbot)
    b = w.game.board
    b.set_mode(PLAY)
    assert b.human_combo.currentText() == "X" and b.first_combo.currentText() == "X"
    b.set_hide_hints(True)
    for _ in range(9):
        if b.position.terminal:
            break
        assert b.walk.role() == "user" and all(t == "" for t in b.view().texts)
        assert b.click_cell(b.view().moves[-1].cell) == "played"
    assert b.position.terminal and "Game over" in b.status.text()
    pol = w.controller.solution.policy
    assert all(p.action == pol[p.before.state] for p in b.walk.plies if p.by == "agent")


def test_vs_random_matchups_with_exact_probabilities(window, qtbot):
    w = window
    w.switch_game("ttt")
    _converge(w, qtbot)
    panel = w.playing.sim_panel
    with qtbot.waitSignal(w.controller.job_finished, timeout=60_000):
        assert w.playing.start_simulation(20_000, 5)
    rows = panel.rows
    assert [r.name for r in rows] == ["optimal O vs random X", "random O vs random X"]
    opt = rows[0]
    assert _frac(opt.exact[1]) == Fraction(866, 945) and _frac(opt.exact[2]) == Fraction(79, 945)
    assert opt.exact[0] == 0.0 and opt.counts[0] == 0
    assert all(r.within_ci.all() for r in rows)
    assert panel.table.horizontalHeaderItem(3).text() == "O wins %" and panel.table.item(0, 4).text() == "91.64 \u2713"
    text = w.files.export_csv(w.settings.fileName() + ".csv").read_text()
    assert text.startswith("matchup,x,o,games") and "optimal O vs random X" in text


def test_risk_loads_steps_plays_and_edits_on_the_board(window, qtbot):
    w = window
    w.switch_game("risk_ttt")
    g = w.game
    b = g.board
    _step(w, qtbot)
    one = b.view().texts
    _step(w, qtbot, 3)
    assert b.view().texts != one
    assert b.click_cell(8) == "played" and b.position.mover == "O" and b.position.objective == "min"
    assert b.status.text().startswith("You: X")
    # drag on a cell to set its risk: one undo step, and the solver restarts
    g.set_edit_on_board(True)
    c = b.canvas
    r = c.cell_rects()[0]
    top = QPoint(int(r.center().x()), int(r.top() + 0.1 * r.height()))
    qtbot.mousePress(c, Qt.MouseButton.LeftButton, pos=QPoint(int(r.center().x()), int(r.bottom() - 2)))
    qtbot.mouseMove(c, top)
    qtbot.mouseRelease(c, Qt.MouseButton.LeftButton, pos=top)
    assert g.rstate.risk[0] == pytest.approx(0.9) and g.rstate.preset == "custom"
    assert len(w.controller.history) == 0  # the edit reset the solver
    g.set_edit_on_board(False)
    g.session.undo_stack.undo()
    assert g.rstate.risk[0] == pytest.approx(rt.STOCHASTIC_3X3[0]) and g.rstate.preset == "stochastic"


def test_risk_human_vs_agent_in_the_window(window, qtbot):
    w = window
    w.switch_game("risk_ttt")
    _converge(w, qtbot)
    b = w.game.board
    b.set_mode(PLAY)
    b.set_human("X")
    b.set_first("O")  # the agent (O) opens
    assert b.walk.plies and b.walk.plies[0].by == "agent" and b.position.mover == "X"
    for _ in range(9):
        if b.position.terminal:
            break
        b.play_move(b.view().moves[0].action)
    assert b.position.terminal


def test_a_4x4_solve_can_be_cancelled_and_leaves_the_app_usable(window, qtbot):
    w = window
    w.switch_game("risk_ttt")
    g = w.game
    ed = g.editor()
    ed.size.setCurrentIndex(ed.size.findData(4))
    wait_model(w, qtbot)
    assert g.rstate.size == 4 and w.controller.mdp is None
    with qtbot.waitSignal(w.controller.job_progress, timeout=30_000):
        ed.solve_button.click()
    assert g.solving and ed.cancel_button.isEnabled() and not ed.solve_button.isEnabled()
    with qtbot.waitSignal(w.controller.job_cancelled, timeout=30_000):
        ed.cancel_button.click()
    assert not g.solving and g.exact_solution() is None
    assert "Cancelled" in ed.status.text() and ed.solve_button.isEnabled()
    qtbot.waitUntil(lambda: not w.controller.job_busy, timeout=10_000)
    # the app stays usable: the 4x4 board plays, and the game can be switched and solved again
    w.solving._dirty = True
    w.solving.redraw()
    b = g.board
    assert b.position.cells.size == 16 and b.click_cell(5) == "played"
    w.switch_game("ttt")
    _step(w, qtbot)
    assert not w.controller.job_busy  # nothing left solving (the fixture checks no thread outlives the window)


def _board_fits(w, qtbot, size) -> float:
    """Resize the window, and check that every text beside the board is read whole (a wrapped label is
    as tall as its text needs at its width) and the moves table's columns show their contents; return
    the height of the board as drawn."""
    w.resize(*size)
    wait_laid_out(qtbot, w)
    w.solving._dirty = True
    w.solving.redraw()
    wait_laid_out(qtbot, w)
    b = w.game.board
    assert b.isVisible()
    for lab in (b.caption_label, b.status, b.value_label, b.outcome_label, b.visited_label):
        if lab.text():
            assert lab.isVisible() and lab.heightForWidth(lab.width()) <= lab.height(), (size, lab.objectName())
    t = b.moves_table
    assert t.rowCount() > 0
    for k in range(3):
        assert t.columnWidth(k) >= t.sizeHintForColumn(k), (size, k)
    assert sum(t.columnWidth(k) for k in range(3)) <= t.viewport().width() + 1
    assert t.rowHeight(0) <= t.viewport().height()  # at least one whole move
    rects = b.canvas.cell_rects()
    return max(r.bottom() for r in rects) - min(r.top() for r in rects)


@pytest.mark.parametrize("key", ["risk_ttt", "attt"])
def test_the_board_dominates_its_tab_and_its_texts_are_whole(window, qtbot, key):
    w = window
    w.switch_game(key)
    _converge(w, qtbot)
    b = w.game.board
    from mdpviz.widgets.position.board import OUTCOME_PENDING

    qtbot.waitUntil(lambda: "Exact from here" in b.outcome_label.text()
                    and b.outcome_label.text() != OUTCOME_PENDING)  # worked out once the values hold still
    big = _board_fits(w, qtbot, (1920, 1080))
    laptop = _board_fits(w, qtbot, (1366, 768))
    w.view.set_presenter(True)
    try:
        presenter = _board_fits(w, qtbot, (1280, 720))
    finally:
        w.view.set_presenter(False)
    assert big > laptop >= 240 and presenter >= 230  # was about 185 px in presenter mode
    # the board's square fills the tab's height: the side texts take the rest of the width
    assert b.canvas.height() >= 0.6 * b.height()
    # the inspector names the shown position in words, not by its encoding
    title = w.game.state_title(b.position.state)
    if key == "risk_ttt":
        assert title.startswith("empty board, X to move") and "|" not in title
    else:  # the responder's board: the start or the position after P1's opening move
        assert "to move" in title and w.game.session.state_name(b.position.state) not in title


def test_the_exact_outcome_line_is_worked_out_after_the_frame_for_the_newest_values_only(window, qtbot, monkeypatch):
    """Issue 35 item 8: the outcome line (a whole-game evaluation) ran inside every frame's board refresh;
    now a refresh only asks for it (the line says it is pending), and it is worked out once when the
    values hold still, for the newest values, however many refreshes came before."""
    from mdpviz.widgets.position.board import OUTCOME_PENDING

    w = window
    w.switch_game("risk_ttt")
    _converge(w, qtbot)
    b = w.game.board
    done = lambda: "Exact from here" in b.outcome_label.text() and b.outcome_label.text() != OUTCOME_PENDING  # noqa: E731
    qtbot.waitUntil(done)
    model = type(b.model)
    calls: list = []
    real = model.outcome_probabilities
    monkeypatch.setattr(model, "outcome_probabilities", lambda self, pos, values: calls.append(values) or real(self, pos, values))
    b.outcome_label.setText("")
    for _ in range(3):
        b._refresh()
    assert calls == [] and b.outcome_label.text() == OUTCOME_PENDING  # not in the refresh
    qtbot.waitUntil(done)
    assert len(calls) == 1 and calls[0] is b.values
