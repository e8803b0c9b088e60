"""3x3x3 risk tic-tac-toe in the main window (issue 9, part 4): the cube on the common position
board, live training on the controller's job thread, save / load, play vs the agent, matchups.

Pure helpers and the position model are tested without a window; the window tests use tiny
training budgets (a few dozen games) so each runs in about a second.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from mdpviz.models import ttt3d
from mdpviz.models.ttt import O, X
from mdpviz.models.kit.game.scenario import ScenarioError
from mdpviz.models.ttt3d import learning as rl
from mdpviz.models.kit.game.registry import JobProgress
from mdpviz.models.kit.pictures.display import backup_q
from mdpviz.models.kit.boards.position import DECISION, MODEL, PLAY, WALK
from mdpviz.models.ttt3d import (
    AGENT_SCALE,
    GUI_SETTINGS,
    Ttt3dPositionModel,
    Ttt3dSettings,
    learning_curve,
    matchup_job,
    record_text,
    risk_spec_for,
    training_job,
)
from mdpviz.widgets.games.ttt3d import Ttt3dGame
from tests.conftest import FakeDialogs, make_window

TINY = replace(GUI_SETTINGS, episodes=60, report_every=20, eval_games=50, seed=3)
"""A training budget small enough for a GUI test (4 learning-curve points)."""


@pytest.fixture(scope="module")
def agent() -> rl.Agent:
    """A small TD(0) network agent (trained once per module, well under a second)."""
    return rl.run_training(replace(TINY, episodes=200, report_every=200, eval_games=0))[0]


def _pos(model: Ttt3dPositionModel, text: str, mover: str):
    return model.position(ttt3d.board(text), mover)


# ---------------------------------------------------------------------------------- pure helpers
def test_learning_curve_wilson_interval_by_hand():
    # 50 wins of 100: Wilson centre (0.5 + z^2/200) / (1 + z^2/100) = 0.5, half-width
    # z sqrt(0.25/100 + z^2/40000) / (1 + z^2/100) = 0.0961683 with z = 1.959964 -> [0.40383, 0.59617]
    agent = rl.untrained_agent(replace(TINY, approx="linear"))
    recs = [rl.TrainProgress(episodes=e, epsilon=1.0, mean_td_error=td, updates=1, win=w, draw=0.0, loss=1 - w,
                             eval_games=100, train_seconds=0.0, seconds=0.0, agent=agent, seat_win={"X": w},
                             baselines={"tactical": {"X": 0.6}, "untrained": {"X": 0.1}})
            for e, w, td in ((0, 0.5, math.nan), (20, 0.93, 0.25))]
    c = learning_curve(recs)
    assert len(c) == 2 and c.eval_games == 100
    assert c.win_lo[0] == pytest.approx(0.40383, abs=2e-5) and c.win_hi[0] == pytest.approx(0.59617, abs=2e-5)
    assert c.win_lo[1] < 0.93 < c.win_hi[1]
    np.testing.assert_array_equal(c.episodes, [0, 20])
    np.testing.assert_allclose(c.loss, [0.5, 0.07])
    assert math.isnan(c.td_error[0]) and c.td_error[1] == 0.25
    assert c.seat_win["X"][1] == 0.93 and c.seat_ci["X"][0][0] == pytest.approx(0.40383, abs=2e-5)
    assert c.baselines == {"tactical": {"X": 0.6}, "untrained": {"X": 0.1}}
    assert "win vs random as X 50.0% [40.4, 59.6] (tactical player 60.0%) (100 games per seat)" in record_text(recs[0], 20)
    assert len(learning_curve([])) == 0


def test_risk_spec_names_presets_and_keeps_custom_vectors():
    assert risk_spec_for(ttt3d.resolve_risk("half"), seed=0) == "half"
    assert risk_spec_for(ttt3d.resolve_risk("noisy-classic", seed=5), seed=5) == "noisy-classic"
    custom = np.linspace(0.0, 1.0, 27)
    spec = risk_spec_for(custom, seed=0)
    assert isinstance(spec, tuple) and np.allclose(spec, custom)
    np.testing.assert_array_equal(Ttt3dSettings(risk=spec).risk_vector(), custom)
    assert Ttt3dSettings(settings=replace(TINY, seed=5), risk="noisy-classic").risk_vector().tolist() == \
        ttt3d.resolve_risk("noisy-classic", seed=5).tolist()


# ---------------------------------------------------------------------------------- the position model
def test_model_plays_by_the_cube_rules_coin_and_lines():
    always = Ttt3dPositionModel(risk=np.ones(27), side="X")
    never = Ttt3dPositionModel(risk=np.zeros(27), side="X")
    rng = np.random.default_rng(0)
    start = never.start()
    assert start.mover == "X" and start.chooser == DECISION and len(never.moves(start)) == 27
    # risk 1: X's move on the centre lands O's mark, and the turn passes to O (played by the model)
    ply = always.play(always.start(), 13, rng)
    assert ply.after.cells[13] == O and ply.after.mover == "O" and ply.after.chooser == MODEL
    assert "the coin" in ply.text and not ply.after.terminal
    # X completes the top row of layer 1 (cells 0, 1, 2): X wins, the line's cells drawn with code 3
    pos = _pos(never, "XX.OO....|.........|.........", "X")
    ply = never.play(pos, 2, rng)
    assert ply.after.outcome == "X wins" and ply.reward == 1.0 and ply.after.terminal
    assert ply.after.cells[[0, 1, 2]].tolist() == [3, 3, 3] and ply.after.cells[3] == O
    # the coin puts O's mark on the cell that completes O's line: O wins although X moved
    pos = _pos(always, "OO.XX....|.........|.........", "X")
    ply = always.play(pos, 2, rng)
    assert ply.after.outcome == "O wins" and ply.reward == -1.0 and ply.after.cells[[0, 1, 2]].tolist() == [4, 4, 4]
    # a space diagonal (0, 13, 26) wins too: all 49 lines come from the model
    pos = _pos(never, "X.OO.....|....X....|.........", "X")
    assert never.play(pos, 26, rng).after.outcome == "X wins"
    with pytest.raises(ValueError, match="already taken"):
        never.play(pos, 0, rng)
    with pytest.raises(ValueError, match="X always moves first"):
        never.start(first="O")


def test_model_random_and_agent_replies(agent):
    rnd = Ttt3dPositionModel(risk=np.zeros(27), side="X", reply="random", agent=lambda: agent)
    ag = Ttt3dPositionModel(risk=np.zeros(27), side="X", reply="agent", agent=lambda: agent)
    pos = _pos(rnd, "X........|.........|.........", "O")
    mv = rnd.moves(pos)
    assert pos.chooser == MODEL and len(mv) == 26 and all(m.prob == pytest.approx(1 / 26) for m in mv)
    greedy = agent.choose_move(rnd.board_of(pos), "O")
    mv = ag.moves(pos)
    assert [m.action for m in mv if m.prob == 1.0] == [greedy]
    assert ag.reply(pos, np.random.default_rng(1)) == greedy
    picks = {rnd.reply(pos, np.random.default_rng(s)) for s in range(40)}
    assert len(picks) > 10 and 0 not in picks  # uniformly random over the empty cells
    # no agent yet: the agent reply falls back to random, the agent's own move is refused
    none = Ttt3dPositionModel(risk=np.zeros(27), side="X", reply="agent")
    assert all(m.prob == pytest.approx(1 / 26) for m in none.moves(pos))
    with pytest.raises(ValueError, match="no agent"):
        none.agent_move(none.start(), None)


def test_move_values_value_and_backup_match_the_agent(agent):
    risk = ttt3d.resolve_risk("half")
    model = Ttt3dPositionModel(risk=risk, side="X")
    # X to move with a completing cell (2: X owns 0 and 1) and O threatening (5: O owns 3 and 4)
    pos = _pos(model, "XX.OO....|.........|.........", "X")
    q = model.move_values(pos, agent)
    direct = agent.move_values(model.board_of(pos), "X")
    assert [m.action for m in model.moves(pos)] == ttt3d.legal_moves(model.board_of(pos)).tolist()
    np.testing.assert_allclose(q, direct[ttt3d.legal_moves(model.board_of(pos))])
    assert model.value(pos, agent) == pytest.approx(np.nanmax(direct))
    assert model.agent_move(pos, agent) == agent.choose_move(model.board_of(pos), "X")
    for c in (2, 5, 13, 26):
        terms = model.backup(pos, c, agent)
        assert backup_q(terms, model.discount()) == pytest.approx(direct[c], abs=1e-12)
        assert sum(t.prob for t in terms) == pytest.approx(1.0)
    # an agent that expects the coin of "half": cell 2 completes X's line with probability 1/2 (+1, the
    # game ends), else O's mark lands there (no line of O: the afterstate's value); cell 5 the other way round
    half = rl.untrained_agent(replace(TINY, approx="linear"), risk=risk)
    t2 = model.backup(pos, 2, half)
    assert [(t.prob, t.reward, t.next_value) for t in t2][0] == (0.5, 1.0, 0.0) and t2[1].reward == 0.0
    t5 = model.backup(pos, 5, half)
    assert (t5[1].prob, t5[1].reward, t5[1].next_value) == (0.5, -1.0, 0.0)
    for c in (2, 5, 13):
        assert backup_q(model.backup(pos, c, half), 1.0) == pytest.approx(half.move_values(model.board_of(pos), "X")[c])
    assert all(math.isnan(v) for v in model.move_values(pos, None))


def test_q_learning_backup_is_the_learned_q():
    a = rl.untrained_agent(replace(TINY, method="q", approx="linear"))
    model = Ttt3dPositionModel(risk=np.zeros(27), side="X")
    terms = model.backup(model.start(), 13, a)
    assert len(terms) == 1 and terms[0].next_value == pytest.approx(a.move_values(model.board_of(model.start()))[13])


# ---------------------------------------------------------------------------------- jobs (no window)
def drive(gen, *, stop_after: int | None = None):
    """Iterate a job generator as the controller does: (result, partial results, progress); closed
    (a cancel) after ``stop_after`` items, the result then None."""
    partial, progress = [], []
    n = 0
    try:
        while True:
            if stop_after is not None and n >= stop_after:
                return None, partial, progress
            try:
                item = next(gen)
            except StopIteration as stop:
                return stop.value, partial, progress
            n += 1
            (progress if isinstance(item, JobProgress) else partial).append(item)
    finally:
        gen.close()


def test_training_job_streams_every_record_and_stops_when_cancelled():
    agent, recs, seen = drive(training_job(TINY, np.zeros(27)))
    assert [r.episodes for r in recs] == [0, 20, 40, 60]
    assert [(p.done, p.total) for p in seen] == [(0, 60), (20, 60), (40, 60), (60, 60)]
    assert seen[-1].text == record_text(recs[-1], 60)
    ref, _ = rl.run_training(TINY, risk=np.zeros(27))  # the same seeded run, bit for bit
    for k in ref.params:
        np.testing.assert_array_equal(agent.params[k], ref.params[k])
    result, recs, _ = drive(training_job(TINY, np.zeros(27)), stop_after=2)  # the first record and its progress
    assert result is None and [r.episodes for r in recs] == [0]


def test_matchup_job_agrees_with_the_models_evaluator(agent):
    risk = ttt3d.resolve_risk("classic")
    res, _, progress = drive(matchup_job(agent, risk, games=300, seed=11))
    assert progress[-1].done == progress[-1].total == 7
    rows = {r.name: r for r in res.rows}
    assert set(rows) == {"agent vs tactical", "tactical vs agent", "tactical vs tactical", "agent vs random",
                         "random vs agent", "agent vs agent", "random vs random"}
    assert all(sum(r.counts) == 300 and r.exact is None for r in res.rows)
    assert all(r.counts[2] == 0 for r in res.rows)  # every full cube holds a line: no draws
    # the first matchup's stream replayed through ttt3d.play_vs (the agent's own evaluator)
    ss = np.random.SeedSequence(11).spawn(7)[0]
    score = ttt3d.play_vs(agent.choose_moves, opponent="tactical", mark="X", risk=risk, games=300,
                          seed=np.random.default_rng(ss))
    assert rows["agent vs tactical"].counts[0] == score.wins
    # the yardstick: the tactical player wins well over half its games as X against itself (about 60%)
    assert 0.5 < rows["tactical vs tactical"].counts[0] / 300 < 0.7
    assert drive(matchup_job(agent, risk, games=300, seed=11), stop_after=1)[0] is None
    alone, _, _ = drive(matchup_job(None, risk, games=100, seed=1))
    assert [r.name for r in alone.rows] == ["tactical vs tactical", "random vs random"] and alone.notes
    with pytest.raises(ValueError, match="at least 1 game"):
        matchup_job(agent, risk, games=0, seed=1)


# ---------------------------------------------------------------------------------- the window
@pytest.fixture
def window(qtbot, tmp_path):
    from mdpviz.widgets.session import GameSession

    g = Ttt3dGame(GameSession(ttt3d.SPEC, Ttt3dSettings(settings=TINY)))
    w = make_window(qtbot, tmp_path / "s.ini", games=[g], dialogs=FakeDialogs(strict=True))
    yield w
    w.shutdown()


def _train(qtbot, g: Ttt3dGame) -> None:
    with qtbot.waitSignal(g.session.changed, timeout=30_000, check_params_cb=lambda: not g.training.busy):
        assert g.editor().train.isEnabled()
        g.editor().train.click()
    assert not g.training.busy


def test_window_shows_the_cube_and_says_there_is_no_solver(window):
    g = window.game
    window.solving.redraw()
    sp = window.solver_panel
    assert not sp.step.isEnabled() and not sp.run.isEnabled()
    assert "3^27" in sp.status.text() and "Train" in sp.status.text()
    assert window.color_bar.scale == AGENT_SCALE
    assert window.stage.board_stack.currentWidget() is g.board and window.conv_stack.currentWidget() is g.curve_plot
    b = g.board
    assert b.position.mover == "X" and b.canvas.cell_rects() and len(b.canvas.cell_rects()) == 27
    assert "No agent" in b.caption_label.text() and "train" in b.value_label.text().lower()
    assert all(t == "" for t in b.view().texts)  # no agent: no numbers yet


def test_training_draws_the_curve_and_changes_the_numbers(qtbot, window, tmp_path):
    g = window.game
    b = g.board
    _train(qtbot, g)
    assert [r.episodes for r in g.training.records] == [0, 20, 40, 60] and g.training.agent.episodes == 60
    c = g.curve_plot.curve
    assert len(c) == 4 and np.all(np.isfinite(c.win)) and c.eval_games == 50
    for seat in ("X", "O"):  # the default agent plays both seats: a curve per seat, its yardsticks as lines
        x, y = g.curve_plot.seat_curves[seat].getData()
        np.testing.assert_array_equal(x, [0, 20, 40, 60])
        np.testing.assert_array_equal(y, c.seat_win[seat])
        for who in ("tactical", "untrained"):
            line = g.curve_plot.baseline_lines[(who, seat)]
            assert line.isVisible() and line.value() == pytest.approx(c.baselines[who][seat])
    assert c.opponent == "tactical" and "Agent vs tactical" in g.curve_plot.top.titleLabel.text
    assert "Trained." in g.editor().status.text() and g.editor().progress.value() == 60
    # the cube shows the agent's values: numbers on every legal cell, the greedy move marked
    window.solving.redraw()
    view = b.view()
    qs = g.training.agent.move_values(np.zeros(27, dtype=np.int8), "X")
    np.testing.assert_allclose(view.qs, qs)
    assert all(view.texts) and view.greedy_cell == int(np.argmax(qs))
    first = rl.untrained_agent(TINY).move_values(np.zeros(27, dtype=np.int8), "X")
    assert not np.allclose(qs, first)  # learning changed the numbers
    assert "Agent's value" in b.value_label.text()
    # the learning curve is the figure File > Export > Convergence plot saves while this game is shown
    out = window.files.export_figure("convergence", tmp_path / "curve.png")
    assert out.exists() and out.stat().st_size > 5_000
    window.view.set_presenter(True)
    assert g.curve_plot.top.getAxis("left").fixedWidth == int(18 * 4.5)  # presenter fonts reach the curve
    window.view.set_presenter(False)


def test_clicking_a_cell_plays_it_and_the_model_replies(qtbot, window):
    g = window.game
    _train(qtbot, g)
    b = g.board
    g.editor().reply.setCurrentIndex(g.editor().reply.findData("random"))
    assert b.click_cell(13) == "played"
    assert b.walk.index == 2 and b.walk.plies[0].action == 13 and b.walk.plies[1].by == "model"
    assert b.position.cells[13] == X and b.position.mover == "X"
    assert b.back() and b.position.mover == "O" and b.forward()
    assert b.click_cell(13) == "none" and "not a legal move" in b.status.text()  # taken: nothing is played
    assert b.walk.index == 2


def test_play_vs_agent_reaches_the_end_and_the_agent_plays_greedily(qtbot, window):
    g = window.game
    _train(qtbot, g)
    b = g.board
    b.set_mode(PLAY)
    assert b.walk.human == "O"  # you take the side the agent does not play
    assert b.walk.plies and b.walk.plies[0].by == "agent"  # the agent opens as X
    for _ in range(27):
        pos = b.position
        if pos.terminal:
            break
        cell = int(ttt3d.legal_moves(g.position_model().board_of(pos))[0])
        assert b.click_cell(cell) == "played"
    pos = b.position
    assert pos.terminal and pos.outcome in ("X wins", "O wins", "draw") and "Game over" in b.status.text()
    model = g.position_model()
    for ply in b.walk.plies:
        if ply.by == "agent":
            assert ply.action == g.training.agent.choose_move(model.board_of(ply.before), ply.before.mover)
    # you as X, the agent's own mark: the agent plays O; your moves carry the agent's values as hints
    b.set_human("X")
    assert b.walk.human == "X" and not b.walk.plies and b.position.chooser == DECISION
    board0 = np.zeros(27, dtype=np.int8)
    np.testing.assert_allclose(b.view().qs, g.training.agent.move_values(board0, "X"))
    assert b.click_cell(0) == "played" and b.walk.plies[-1].by == "agent" and b.walk.plies[-1].before.mover == "O"
    before = b.walk.plies[-1].before
    assert b.walk.plies[-1].action == g.training.agent.choose_move(model.board_of(before), "O")
    b.set_hide_hints(True)
    assert b.new_game() and all(t == "" for t in b.view().texts) and b.view().greedy_cell == -1
    b.set_mode(WALK)
    assert b.position.chooser == DECISION and g.position_model().moves(model.start())  # back to walking
    assert g.position_model().position(board0 + 0, "O").chooser == MODEL


def test_stop_keeps_the_agent_and_leaves_no_thread(qtbot, window):
    from mdpviz.controller import running_threads

    g = window.game
    g.set_settings(episodes=1_000_000, report_every=10, eval_games=0)
    ed = g.editor()
    ed.train.click()
    assert g.training.busy and ed.stop.isEnabled() and not ed.episodes.isEnabled()
    qtbot.waitUntil(lambda: len(g.training.records) >= 2, timeout=20_000)
    with qtbot.waitSignal(g.session.changed, timeout=20_000, check_params_cb=lambda: not g.training.busy):
        ed.stop.click()
    assert not g.training.busy and g.training.agent is not None and g.training.agent.episodes == g.training.records[-1].episodes < 1_000_000
    assert "Stopped." in ed.status.text() and ed.train.isEnabled() and not window.controller.job_busy
    window.shutdown()
    assert not running_threads()


def test_save_and_load_an_agent(qtbot, window, tmp_path):
    g = window.game
    with pytest.raises(ValueError, match="no agent"):
        g.save_agent(tmp_path / "none.npz")
    _train(qtbot, g)
    path = g.save_agent(tmp_path / "a.npz")
    trained = g.training.agent
    g2 = Ttt3dGame()
    loaded = g2.load_agent_file(path)
    assert g2.training.agent is loaded and g2.tstate.settings == trained.settings and g2.tstate.risk == "classic"
    board = ttt3d.board("X........|....O....|.........")
    np.testing.assert_array_equal(loaded.move_values(board, "X"), trained.move_values(board, "X"))
    bad = tmp_path / "bad.npz"
    bad.write_text("not an agent")
    with pytest.raises(ValueError, match="bad.npz"):
        g2.load_agent_file(bad)
    assert g2.training.agent is loaded  # a failed load changes nothing
    ed = g2.editor()
    ed.ask_open_path = lambda: str(bad)
    msgs = []
    g2.session.message.connect(msgs.append)
    ed.load.click()
    assert msgs and "Cannot load the agent" in msgs[-1]


def test_matchups_from_the_simulation_panel(qtbot, window, tmp_path):
    g = window.game
    _train(qtbot, g)
    panel = window.playing.sim_panel
    assert panel is g.simulation_widget()
    panel.games.setValue(200)
    with qtbot.waitSignal(window.controller.job_finished, timeout=30_000):
        panel.simulate.click()
    assert [r.name for r in panel.rows] == [m[0] for m in ttt3d.MATCHUPS]
    assert all(r.games == 200 and sum(r.counts) == 200 for r in panel.rows)
    shown = {panel.table.item(i, 0).text() for i in range(panel.table.rowCount()) if panel.table.item(i, 0)}
    assert {r.name for r in panel.rows} <= shown  # the numbers are in the table as text
    text = window.files.export_csv(tmp_path / "m.csv").read_text()
    assert text.startswith("matchup,") and "random vs random" in text


def test_settings_are_undoable_edits_and_scenarios_round_trip(window, tmp_path):
    g = window.game
    ed = g.editor()
    ed.approx.setCurrentIndex(ed.approx.findData("linear"))
    ed.risk.setCurrentIndex(ed.risk.findData("half"))
    assert g.tstate.settings.approx == "linear" and g.tstate.risk == "half"
    assert g.position_model().risk.tolist() == [0.5] * 27
    g.session.undo_stack.undo()
    assert g.tstate.risk == "classic" and ed.risk.currentData() == "classic"
    data = g.session.to_dict()
    assert g.session.load_dict(data, "x.json") == g.tstate
    g.set_risk(list(np.linspace(0, 1, 27)))
    assert g.session.load_dict(g.session.to_dict(), "x.json") == g.tstate and "custom" in ed.risk.currentText()
    with pytest.raises(ScenarioError, match=r"games\.ttt3d\.settings\.learning_rate: must be a positive number"):
        g.session.load_dict({"settings": {"learning_rate": -1}}, "x.json")
    with pytest.raises(ScenarioError, match=r"games\.ttt3d\.risk.*risk\[0\]"):
        g.session.load_dict({"risk": [2.0] + [0.0] * 26}, "x.json")
    with pytest.raises(ValueError, match="approximator"):
        g.set_settings(approx="cubic")
    p = window.files.save_scenario(tmp_path / "s.json")
    window.files.load_scenario(p)
    assert window.game.tstate == g.tstate


def test_closing_the_window_while_training_stops_the_job(qtbot, window):
    from mdpviz.controller import running_threads

    g = window.game
    g.set_settings(episodes=1_000_000, report_every=10, eval_games=0)
    assert g.training.start()
    qtbot.waitUntil(lambda: len(g.training.records) >= 1, timeout=20_000)
    window.shutdown()
    assert not running_threads()


def test_readme_screenshots_are_written(qapp, tmp_path):
    from mdpviz.screenshots import save_ttt3d_screenshots

    files = save_ttt3d_screenshots(tmp_path, episodes=40, eval_games=20, sim_games=100)
    assert [f.name for f in files] == ["ttt3d-learning.png", "ttt3d-play-1280x720.png"]
    assert all(f.stat().st_size > 20_000 for f in files)


def test_a_training_edit_names_its_settings_in_words(qtbot):
    """The undo button once read "Undo training: episodes 1000, report_every 100, eval_games 200"."""
    g = Ttt3dGame()
    assert g.set_settings(episodes=1_000, report_every=100, eval_games=200)
    assert g.session.undo_stack.undoText() == "training: games 1,000, curve every 100, evaluation games 200"
    assert g.set_settings(epsilon_min=0.1)
    assert g.session.undo_stack.undoText() == "training: \u03b5 min 0.1"


def test_the_status_bar_says_the_training_state_not_a_solver_state(qtbot, tmp_path):
    """The 3D game has no solver: the status bar once read "value iteration (synchronous) · empty"."""
    w = make_window(qtbot, tmp_path / "s.ini")
    try:
        w.switch_game("ttt3d")
        g = w.game
        qtbot.waitUntil(lambda: w.state_label.text() == "3D tic-tac-toe (learning) \u00b7 no agent yet: press Train",
                        timeout=10_000)  # (at the window's next redraw)
        g.set_settings(episodes=200, report_every=100, eval_games=0)
        with qtbot.waitSignal(g.session.changed, timeout=60_000, check_params_cb=lambda: not g.training.busy):
            g.training.start()
            assert w.state_label.text().endswith("\u00b7 training")
        assert w.state_label.text().endswith("\u00b7 agent ready")
        w.switch_game("snakes")
        qtbot.waitUntil(lambda: "value iteration" in w.state_label.text(), timeout=10_000)
    finally:
        w.shutdown()
