"""Anti-tic-tac-toe in the window (issue 9, part 2): best-response rounds, the position board, matchups.

Reference values (the course's files, seed 000): best-response iteration from the course's
p1_policy1.txt changes 2097, 1556, 374, 322, 40, 36, 0 boards in rounds 1..7 (player 2 responds
first) and ends with player 2 winning with probability 1 (tests/test_attt.py checks the same
numbers on the model; here they come through the window's job thread). p1_policy1 against
p2_policy1 is a certain win of player 1 (exact and in every simulated game). Boards are written
cell by cell, row by row: 0 empty, 1 = X = player 1, 2 = O = player 2.

The README screenshots of the game: ``python -m mdpviz.screenshots --games attt``
(``mdpviz.screenshots.save_attt_screenshots``).
"""
from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from mdpviz.models import attt
from mdpviz.core.cs747 import MDPFileError
from mdpviz.models.kit.game.scenario import ScenarioError
from mdpviz.solvers import solve
from mdpviz.models.attt import (
    RESULTS,
    AtttPositionModel,
    AtttSettings,
    AtttState,
    course_files,
    default_setup,
    play_matchup,
    round_changes,
)
from mdpviz.models.attt import iteration as attt_iteration
from mdpviz.screenshots import save_attt_screenshots as save_screenshots
from mdpviz.widgets.games.attt import AtttGame
from mdpviz.models.kit.boards.position import DECISION, MODEL, PLAY, compact_value, greedy_move, position_view
from tests.conftest import make_window, wait_model

COURSE_ROUNDS = (2097, 1556, 374, 322, 40, 36, 0)
"""Boards changed per round from p1_policy1.txt (seed 000's task 3, tests/test_attt.py)."""


@pytest.fixture(scope="module")
def files():
    f = course_files()
    assert f is not None, "the course's anti-tic-tac-toe files are missing from mdpviz/examples/cs747/attt"
    return f


@pytest.fixture(scope="module")
def course_state(files):
    """The default setup (course files, p1_policy1 start) at round 0: player 2's MDP against p1_policy1."""
    return AtttState(default_setup())


def model_of(state: AtttState) -> AtttPositionModel:
    pols = state.policies()
    me = state.responder
    return AtttPositionModel(state, attt.encode(state.setup.boards(me), pols[3 - me]))


def cells_of(board: str) -> np.ndarray:
    return np.array([int(c) for c in board], dtype=np.int8)


# ---------------------------------------------------------------------------------- the model (no window)
def test_default_setup_is_the_course_files(files, course_state):
    s = course_state.setup
    assert (len(s.p1_boards), len(s.p2_boards)) == (2423, 2097)
    assert s.start.player == 1 and s.start_kind == "file" and Path(s.start.source).name == "p1_policy1.txt"
    assert course_state.responder == 2 and course_state.policies()[2] is None


def test_rules_on_hand_checked_boards(course_state):
    """Player 2's MDP against p1_policy1: who moves, the end of a game and the encoder's reward."""
    m = model_of(course_state)
    rng = np.random.default_rng(0)
    start = m.start()
    assert start.chooser == MODEL and start.mover == "P1 (X)" and start.state == -1
    # p1_policy1 opens on cell 2 (its first line: 000000000 0 0 1 0 0 0 0 0 0)
    assert [mv.prob for mv in m.moves(start)] == [0, 0, 1, 0, 0, 0, 0, 0, 0]
    assert m.reply(start, rng) == 2
    # X X . / O . . / O . . : X on cell 2 completes the top row, so player 1 LOSES (reward 1 for P2)
    pos = m.position(cells_of("110200200"))
    assert pos.mover == "P1 (X)" and pos.chooser == MODEL
    ply = m.play(pos, 2, rng)
    assert ply.after.outcome == "P2 wins" and ply.after.state == m.enc.win and ply.reward == 1.0
    # X O X / X O O / O X . with X to move: X on 8 fills the board without a line: a draw
    pos = m.position(cells_of("121122210"))
    ply = m.play(pos, 8, rng)
    assert ply.after.outcome == "draw" and ply.after.state == m.enc.draw and ply.reward == 0.0
    # O . X / O X . / . X . (3 X, 2 O, player 2 to move): O on 6 completes column 0, so player 2 loses
    pos = m.position(cells_of("201210010"))
    assert pos.chooser == DECISION and pos.state >= 0
    ply = m.play(pos, 6, rng)
    assert ply.after.outcome == "P1 wins" and ply.after.state == m.enc.loss and ply.reward == 0.0
    with pytest.raises(ValueError, match="not an empty cell"):
        m.play(pos, 0, rng)
    with pytest.raises(ValueError, match="player 1 always moves first"):
        m.start(first="P2 (O)")


def test_board_moves_reproduce_every_compiled_transition(course_state):
    """For every decision board and cell: the board's move, then each reply of the opponent's policy with
    its probability, lands exactly on the MDP row's outcomes (states, probabilities, rewards)."""
    m = model_of(course_state)
    enc = m.enc
    rng = np.random.default_rng(1)
    checked = 0
    for s in range(len(enc.boards)):
        pos = m.position(enc.boards.cells[s])
        assert pos.state == s and pos.chooser == DECISION
        for mv in m.moves(pos):
            got: dict[tuple[int, float], float] = {}
            ply = m.play(pos, mv.action, rng)
            if ply.after.terminal:
                got[(ply.after.state, ply.reward)] = 1.0
            else:
                for rep in m.moves(ply.after):
                    if rep.prob > 0:
                        p2 = m.play(ply.after, rep.action, rng)
                        key = (p2.after.state, ply.reward + p2.reward)
                        got[key] = got.get(key, 0.0) + rep.prob
            want = {(d, r): p for d, p, r in enc.mdp.outcomes(s, mv.action)}
            assert set(got) == set(want) and all(abs(got[k] - want[k]) < 1e-12 for k in want), (s, mv.action)
            checked += 1
    assert checked == enc.mdp.n_rows  # every (board, cell) row of the MDP


def test_values_outcomes_and_backup_of_a_solved_position(course_state):
    """Against a uniformly random player 1 the exact outcome of player 2's best response (absorbing-chain
    probabilities of the board) equals the model's independent forward propagation."""
    s = course_state.setup
    uni = attt.AtttPolicy.uniform(s.p1_boards)
    st = AtttState(AtttSettings(s.p1_boards, s.p2_boards, uni, start_kind="uniform"))
    m = model_of(st)
    sol = solve(m.mdp, "vi", tol=1e-12)
    v = np.asarray(sol.values)
    br = attt.best_response(s.p2_boards, uni)
    ref = attt.outcome_probabilities(uni, br.policy)
    got = m.outcome_probabilities(m.start(), v)
    assert list(got) == list(RESULTS)
    assert got["P1 wins"] == pytest.approx(ref.p1_win, abs=1e-12)
    assert got["P2 wins"] == pytest.approx(ref.p2_win, abs=1e-12)
    assert got["draw"] == pytest.approx(ref.draw, abs=1e-12)
    assert 0.0 < ref.p1_win < ref.p2_win < 1.0  # non-trivial: the random player 1 sometimes wins
    # Q on the board = the backup: after X on 4, O on 0 ... every move's Q is sum p (r + V(s'))
    pos = m.position(cells_of("000010000"))
    qs = m.move_values(pos, v)
    for mv, q in zip(m.moves(pos), qs):
        terms = m.backup(pos, mv.action, v)
        assert q == pytest.approx(sum(t.prob * (t.reward + t.next_value) for t in terms), abs=1e-12)
        assert sum(t.prob for t in terms) == pytest.approx(1.0)
        assert all(t.note for t in terms)  # each outcome says what it is ("P1 replies cell 3", ...)
    view = position_view(m, pos, v)
    assert view.value == pytest.approx(v[pos.state])
    assert view.qs[view.greedy] == pytest.approx(np.nanmax(qs))


def test_changes_of_a_round_list_old_and_new_moves(course_state):
    s = course_state.setup
    res = attt.run_iteration(attt.best_response_iteration(s.start, p1_boards=s.p1_boards, p2_boards=s.p2_boards,
                                                          settings=attt.IterationSettings(method="vi")))
    assert res.changed == COURSE_ROUNDS
    st = AtttState(s, res.history)
    first = round_changes(st, 0)  # player 2's first response: every board, no old move
    assert len(first) == 2097 and all(c.old_cell == -1 for c in first)
    third = round_changes(st, 2)  # player 2 again: the boards that differ from its round-1 response
    assert len(third) == 374
    r1, r3 = res.history[0].p2_policy, res.history[2].p2_policy
    for c in third[:50]:
        i = int(r1.boards.find(np.array([int(c.board, 3)]))[0])
        assert c.old_cell == r1.actions[i] and c.new_cell == r3.actions[i] and c.old_cell != c.new_cell
    m = model_of(st)  # player 1's MDP after 7 rounds: its describe() marks the boards round 7 changed (none)
    assert m.me == 1 and m.changes == {}


def test_matchups_simulate_through_the_encoder(files, course_state):
    p1 = attt.load_policy(files["policy_p1"])
    p2 = attt.load_policy(files["policy_p2"])
    row = play_matchup("course", p1, p2, games=500, rng=np.random.default_rng(3))
    assert row.exact == (1.0, 0.0, 0.0) and row.counts == (500, 0, 0)  # deterministic: player 1 always wins
    s = course_state.setup
    u1, u2 = attt.AtttPolicy.uniform(s.p1_boards), attt.AtttPolicy.uniform(s.p2_boards)
    row = play_matchup("uniform", u1, u2, games=20_000, rng=np.random.default_rng(4))
    assert sum(row.counts) == 20_000 and abs(sum(row.exact) - 1.0) < 1e-12
    # each simulated share within 4.5 standard errors of the exact probability (a 95% interval misses
    # one of three shares often enough to make a fixed-seed assertion on it a coin toss)
    e = np.asarray(row.exact)
    assert np.all(np.abs(row.fractions - e) <= 4.5 * np.sqrt(e * (1 - e) / row.games))


# ---------------------------------------------------------------------------------- the window
@pytest.fixture
def window(qtbot, tmp_path, files):
    w = make_window(qtbot, tmp_path / "s.ini", game="attt")
    yield w
    w.shutdown()


def _rounds(g: AtttGame) -> tuple[int, ...]:
    return tuple(r.changed for r in g.astate.rounds)


def test_the_game_loads_and_one_step_is_one_round(window, qtbot):
    """The window's Step is the one Step: it computes a best-response round; the board then shows the
    responder's best response (its MDP solved at once: values, Q of each move, the new move starred)."""
    w = window
    g = w.game
    assert isinstance(g, AtttGame) and g.session.mdp().n_states == 2097 + 3
    assert w.stage.board_stack.currentWidget() is g.board
    assert not hasattr(g.editor(), "step")  # no second Step in the Game dock
    w.solving.redraw()
    b = g.board
    pos = b.position  # p1_policy1 opened on cell 2: player 2 (the responder) to move
    assert pos.key == "001000000" and pos.chooser == DECISION
    assert b.caption_label.text().startswith("Round 0: player 2's MDP against player 1's start policy")
    assert all(t == "" for t in b.view().texts)  # round 0: nothing solved yet
    w.solving.step()
    qtbot.waitUntil(lambda: len(g.astate.rounds) == 1 and w.controller.state == "converged", timeout=20_000)
    w.solving._dirty = True
    w.solving.redraw()
    assert b.caption_label.text().startswith("Round 1: player 2's best response to player 1's policy")
    # the board: player 2's boards against p1_policy1, solved by the window: the round's values
    mdp = g.session.mdp()
    assert mdp.n_states == 2097 + 3
    r = g.astate.rounds[0]
    np.testing.assert_allclose(w.controller.solution.values[:2097], r.values, atol=1e-9)
    pos = b.position
    after = b.view().texts
    q = mdp.q_values(w.controller.solution.values)
    rows = range(int(mdp.state_ptr[pos.state]), int(mdp.state_ptr[pos.state + 1]))
    assert [int(mdp.row_action[k]) for k in rows] == [c for c in range(9) if pos.cells[c] == 0]
    for k in rows:
        assert after[int(mdp.row_action[k])] == compact_value(float(q[k]))
    # the starred move is player 2's new policy's move there
    p, _found = r.p2_policy.probs_at(np.array([attt.board_codes(pos.cells)]))
    assert p[0][b.view().greedy_cell] == 1.0
    lo, hi = b.color_range()
    assert lo <= min(float(x) for x in q[list(rows)]) and max(float(x) for x in q[list(rows)]) <= hi


def test_rounds_step_on_the_job_thread_to_the_course_reference(window, qtbot, monkeypatch):
    w = window
    g = w.game
    panel = g.editor()
    threads = []
    real = attt.best_response

    def spy(*args, **kw):
        threads.append(threading.current_thread() is threading.main_thread())
        return real(*args, **kw)

    monkeypatch.setattr(attt_iteration, "best_response", spy)
    w.solving.step()
    assert g.rounds.busy or len(g.astate.rounds) == 1
    qtbot.waitUntil(lambda: not g.rounds.busy and len(g.astate.rounds) == 1, timeout=10_000)
    assert threads == [False]  # solved off the GUI thread
    assert panel.table.rowCount() == 1 and panel.table.item(0, 1).text() == "2,097"
    # the board shows player 2's best response (its MDP against p1_policy1); the window solves it
    wait_model(w, qtbot)
    assert g.session.mdp().n_states == 2097 + 3 and w.controller.mdp is g.session.mdp()
    qtbot.waitUntil(lambda: w.controller.state == "converged", timeout=10_000)
    g.rounds.pause_ms = 0  # no pause between the rounds of Run
    panel.method.activated.emit(1)  # synchronous value iteration: 10x faster here, the same rounds
    assert g.setup.method == "vi" and g.astate.rounds == ()  # an edit: the rounds start again
    w.solving.step()
    qtbot.waitUntil(lambda: not g.rounds.busy and len(g.astate.rounds) == 1, timeout=10_000)
    w.solving.run_solver()  # the window's Run: rounds until convergence
    assert g.rounds.auto or g.astate.converged
    qtbot.waitUntil(lambda: g.astate.converged and w.controller.state == "converged", timeout=30_000)
    assert _rounds(g) == COURSE_ROUNDS
    last = g.astate.rounds[-1]
    assert (last.p1_win, last.p2_win, last.draw) == (0.0, 1.0, 0.0)  # at convergence player 1 never wins
    assert panel.table.rowCount() == 7 and panel.table.item(6, 4).text() == "0.0000"
    w.solving._dirty = True
    w.solving.redraw()
    assert not w.solver_panel.step.isEnabled() and not w.solving.act_step.isEnabled() and not w.solver_panel.run.isEnabled()
    assert not g.rounds.step()
    # after the converged rounds the board is not an empty grid: player 2's final best response
    b = g.board
    assert last.player == 2 and b.position.chooser == DECISION
    assert any(b.view().texts) and np.isfinite(b.view().fill).any() and b.view().greedy_cell >= 0
    assert "converged" in b.caption_label.text()
    # Reset (the window's) goes back to round 0; the computed rounds are reused by Step at once (no job)
    w.solving.reset_action()
    wait_model(w, qtbot)
    assert g.astate.rounds == () and g.session.mdp().n_states == 2097 + 3
    w.solving.step()
    assert len(g.astate.rounds) == 1 and not g.rounds.busy and len(threads) == 8


def test_a_changed_board_opens_on_the_board(window, qtbot):
    w = window
    g = w.game
    panel = g.editor()
    for k in range(3):
        w.solving.step()
        qtbot.waitUntil(lambda: not g.rounds.busy and len(g.astate.rounds) == k + 1, timeout=10_000)
    qtbot.waitUntil(lambda: w.controller.state == "converged", timeout=10_000)
    assert panel.changed.count() == 1 + 374 and panel.changed.itemText(0).startswith("round 3: 374 P2 boards")
    board, rnd, old, new = panel.changed.itemData(1)
    panel.changed.activated.emit(1)
    b = g.board
    assert b.position.key == board and b.position.chooser == DECISION  # player 2's own board: its best response
    w.solving._dirty = True
    w.solving.redraw()
    assert b.view().greedy_cell == new  # the starred move is the new one
    assert f"round 3 changed this board's move: cell {old} \u2192 cell {new}" in b.status.text()
    # selecting round 1 lists every board of player 2 (its first response)
    panel.table.selectRow(0)
    assert panel.changed.count() == 1 + 2097 and "first response" in panel.changed.itemText(0)


def test_clicking_a_cell_plays_it_and_the_policy_replies(window, qtbot):
    w = window
    g = w.game
    w.solving.run_solver()
    qtbot.waitUntil(lambda: w.controller.state == "converged", timeout=20_000)
    w.solving.redraw()
    b = g.board
    assert b.position.key == "001000000"
    assert b.click_cell(4) == "played"
    # p1_policy1's move on 001020000, read from the file's policy
    probs, found = g.setup.start.probs_at(np.array([int("001020000", 3)]))
    reply = int(np.argmax(probs[0]))
    expect = list("001020000")
    expect[reply] = "1"
    assert found[0] and b.position.key == "".join(expect)
    assert b.walk.index == 3  # player 1's opening, my move, player 1's reply
    assert b.back() and b.position.key == "001020000"
    assert b.click_cell(2) == "none"  # occupied
    assert b.new_game() and b.position.key == "001000000"


@pytest.mark.parametrize("human", ["P1 (X)", "P2 (O)"])
def test_human_vs_agent_reaches_the_end(window, qtbot, human):
    w = window
    g = w.game
    w.solving.run_solver()
    qtbot.waitUntil(lambda: w.controller.state == "converged", timeout=20_000)
    w.solving.redraw()
    b = g.board
    b.set_mode(PLAY)
    b.set_human(human)
    b.set_hide_hints(True)
    assert all(t == "" for t in b.view().texts)  # no values, no probabilities, no greedy mark
    assert b.view().greedy_cell == -1
    m = g.position_model()
    for _ in range(9):
        if b.position.terminal:
            break
        assert b.walk.role() == "user"
        assert b.play_move(m.moves(b.position)[-1].action)
    assert b.position.terminal and b.position.outcome in RESULTS
    values = np.asarray(w.controller.history[-1].values)
    by = {p.by for p in b.walk.plies}
    assert "you" in by and by <= {"you", "agent", "model"}
    for p in b.walk.plies:
        if p.by == "agent":  # player 2's greedy move on the converged values
            mv = m.moves(p.before)
            assert p.action == mv[greedy_move(mv, m.move_values(p.before, values), "max")].action
        elif p.by == "model":  # player 1's fixed policy (one-hot): the cell it plays with probability 1
            assert [x.prob for x in m.moves(p.before) if x.action == p.action] == [1.0]


def test_a_round_can_be_cancelled_and_leaves_the_app_usable(window, qtbot, monkeypatch):
    w = window
    g = w.game
    gate = threading.Event()
    entered = threading.Event()
    real = attt.best_response

    def blocked(*args, **kw):
        entered.set()
        gate.wait(10)
        return real(*args, **kw)

    monkeypatch.setattr(attt_iteration, "best_response", blocked)
    w.solving.run_solver()  # the window's Run: rounds
    assert g.rounds.busy and g.rounds.auto
    w.solving._dirty = True
    w.solving.redraw()
    assert w.solver_panel.pause.isEnabled() and not w.solver_panel.step.isEnabled()
    qtbot.waitUntil(entered.is_set, timeout=10_000)
    w.classroom.set_q_view(True)  # the window stays usable while the round is computed
    w.classroom.set_q_view(False)
    w.solver_panel.pause.click()  # Pause: cancels the round in progress
    assert not g.rounds.auto
    gate.set()
    qtbot.waitUntil(lambda: not g.rounds.busy, timeout=10_000)
    assert g.astate.rounds == () and not w.controller.job_busy
    # the round finished before the cancel was seen: it is kept and applied by the next Step at once
    monkeypatch.setattr(attt_iteration, "best_response", real)
    assert g.rounds.step() and len(g.astate.rounds) == 1 and not g.rounds.busy
    g.rounds.step()
    qtbot.waitUntil(lambda: not g.rounds.busy and len(g.astate.rounds) == 2, timeout=10_000)


def test_an_edit_during_a_round_discards_it(window, qtbot, monkeypatch):
    w = window
    g = w.game
    gate = threading.Event()
    entered = threading.Event()
    real = attt.best_response

    def blocked(*args, **kw):
        entered.set()
        gate.wait(10)
        return real(*args, **kw)

    monkeypatch.setattr(attt_iteration, "best_response", blocked)
    g.rounds.step()
    assert g.rounds.busy
    # the round is under way (a cancel seen before the job thread starts it computes nothing to keep)
    qtbot.waitUntil(entered.is_set, timeout=10_000)
    assert g.set_ties("highest")  # an edit: the window cancels the job
    gate.set()
    qtbot.waitUntil(lambda: not g.rounds.busy, timeout=10_000)
    assert g.astate.rounds == () and g.setup.ties == "highest"
    assert w.undo_group.canUndo()
    w.act_undo.trigger()
    assert g.setup.ties == "lowest"
    # the round computed for this setup before the edit is kept: Step applies it at once
    assert g.rounds.step() and len(g.astate.rounds) == 1 and not g.rounds.busy
    # Reset while a round is computed: that round is not applied
    gate.clear()
    g.rounds.step()
    assert g.rounds.busy and g.rounds.reset()
    gate.set()
    qtbot.waitUntil(lambda: not g.rounds.busy, timeout=10_000)
    assert g.astate.rounds == ()


def test_setup_edits_files_and_errors(window, qtbot, tmp_path, files):
    w = window
    g = w.game
    panel = g.editor()
    # a random player-2 start: player 1 responds first, on its 2423 boards
    panel.seed.setValue(5)
    panel.start.activated.emit(2)
    assert g.setup.start_kind == "random" and g.setup.start.player == 2 and g.setup.seed == 5
    wait_model(w, qtbot)
    assert g.astate.responder == 1 and g.session.mdp().n_states == 2423 + 3
    assert g.board.position.key == "000000000" and g.board.position.chooser == DECISION
    g.rounds.step()
    qtbot.waitUntil(lambda: not g.rounds.busy and len(g.astate.rounds) == 1, timeout=10_000)
    assert g.astate.rounds[0].player == 1
    # the rules' boards give the same MDP sizes as the course's states files
    panel.reachable.click()
    wait_model(w, qtbot)
    assert g.setup.p1_boards.lines is None and g.session.mdp().n_states == 2423 + 3 and g.astate.rounds == ()
    # a malformed states file: nothing changes, the message names the file and line
    bad = tmp_path / "bad_states.txt"
    bad.write_text("000000000\n1200\n")
    msgs = []
    g.session.message.connect(msgs.append)
    panel.dialogs.open_file = lambda *a: str(bad)
    panel.open_states.click()
    assert msgs and f"{bad}:2:" in msgs[-1] and g.setup.p1_boards.lines is None
    with pytest.raises(MDPFileError, match=r"bad_states.txt:2"):
        g.open_states(bad)
    # a start policy file
    panel.dialogs.open_file = lambda *a: str(files["policy_p2"])
    panel.start.activated.emit(0)
    assert g.setup.start_kind == "file" and g.setup.start.player == 2
    panel.course.click()
    assert Path(g.setup.start.source).name == "p1_policy1.txt" and g.setup.p1_boards.lines is not None


def test_a_policy_lacking_boards_is_reported_and_a_round_fails_cleanly(window, qtbot, tmp_path):
    w = window
    g = w.game
    short = tmp_path / "short_policy.txt"  # player 1 plays cell 4 on the empty board, and lists nothing else
    short.write_text("1\n000000000 0 0 0 0 1 0 0 0 0\n")
    msgs = []
    g.session.message.connect(msgs.append)
    assert g.open_start_policy(short)
    wait_model(w, qtbot)
    assert g.session.mdp() is None and "no entry for board" in g.session.mdp_error() and "short_policy.txt" in g.session.mdp_error()
    assert "No MDP" in g.editor().next_label.text()
    for _ in range(2):  # a failed round leaves the game usable (and fails again the same way)
        g.rounds.step()
        qtbot.waitUntil(lambda: not g.rounds.busy, timeout=10_000)
        assert g.astate.rounds == () and "Best-response round failed" in msgs[-1] and "short_policy.txt" in msgs[-1]
    w.act_undo.trigger()  # back to the course's start policy
    assert g.session.mdp() is not None and g.rounds.step()
    qtbot.waitUntil(lambda: not g.rounds.busy and len(g.astate.rounds) == 1, timeout=10_000)


def test_the_round_limit_stops_the_rounds(window, qtbot):
    from dataclasses import replace

    w = window
    g = w.game
    assert g.edit_setup(replace(g.setup, max_rounds=2, method="vi"), "two rounds at most")
    g.rounds.pause_ms = 0
    msgs = []
    g.session.message.connect(msgs.append)
    assert g.rounds.run()
    qtbot.waitUntil(lambda: not g.rounds.busy and not g.rounds.auto, timeout=10_000)
    assert _rounds(g) == COURSE_ROUNDS[:2] and not g.astate.converged
    assert not g.rounds.can_step() and not g.rounds.step() and "without converging (limit 2)" in msgs[-1]


def test_export_policy_round_trips(window, qtbot, tmp_path):
    w = window
    g = w.game
    panel = g.editor()
    msgs = []
    g.session.message.connect(msgs.append)
    assert not panel.export2.isEnabled() and not panel.export_dialog(2)  # no player-2 policy yet
    assert "step a round first" in msgs[-1]
    g.rounds.step()
    qtbot.waitUntil(lambda: not g.rounds.busy and len(g.astate.rounds) == 1, timeout=10_000)
    out = tmp_path / "p2_policy.txt"
    panel.dialogs.save_file = lambda *a: str(out)
    panel.export2.click()
    back = attt.load_policy(out, player=2)
    mine = g.astate.policies()[2]
    assert back.boards.labels == mine.boards.labels and np.array_equal(back.probs, mine.probs)
    assert out.read_text().startswith("2\n100000000 ")


def test_matchups_in_the_window(window, qtbot):
    w = window
    g = w.game
    assert w.playing.start_simulation(2000, 11)
    panel = w.playing.sim_panel
    qtbot.waitUntil(lambda: len(panel.rows) > 0 and not w.controller.job_busy, timeout=20_000)
    names = [r.name for r in panel.rows]
    assert names == list(attt.matchup_names(g.setup)) == ["solved P2", "P1 vs uniform", "uniform vs uniform"]
    solved = panel.rows[0]  # player 2's best response to p1_policy1 always wins
    assert solved.exact == (0.0, 1.0, 0.0) and solved.counts == (0, 2000, 0)
    for r in panel.rows:  # within 4.5 standard errors (see test_matchups_simulate_through_the_encoder)
        e = np.asarray(r.exact)
        assert np.all(np.abs(r.fractions - e) <= 4.5 * np.sqrt(e * (1 - e) / r.games) + 1e-12)


def test_inspector_and_scenario_round_trip(window, qtbot, tmp_path):
    w = window
    g = w.game
    w.solving.step()  # round 1: player 2's best response, solved on the board at once
    qtbot.waitUntil(lambda: len(g.astate.rounds) == 1 and len(w.controller.history) >= 1, timeout=30_000)
    w.solving.redraw()
    insp = w.solving.inspection()  # the board's position (after p1_policy1's opening) is inspected
    # named in words (after P1's opening on cell 2), not by the board's encoding "001000000"
    assert insp is not None and insp.title.startswith("after P1 (X) plays cell 2: P2 (O) to move")
    assert "001000000" not in insp.title
    assert all("[P1 replies cell" in a.text for a in insp.actions)
    g.set_generated_start("uniform", 2)
    g.set_ties("highest")
    path = tmp_path / "attt.json"
    w.files.save_scenario(path)
    other = make_window(qtbot, tmp_path / "o.ini")
    qtbot.addWidget(other)
    try:
        other.files.load_scenario(path)
        g2 = other.game
        assert g2.key == "attt" and g2.setup.start_kind == "uniform" and g2.setup.start.player == 2
        assert g2.setup.ties == "highest" and g2.setup.p1_boards.source == g.setup.p1_boards.source
        assert np.array_equal(g2.setup.start.probs, g.setup.start.probs)
    finally:
        other.shutdown()


def test_episode_player_walks_the_board(window, qtbot):
    w = window
    g = w.game
    w.solving.step()  # round 1: player 2's best response to p1_policy1, solved on the board at once
    qtbot.waitUntil(lambda: len(g.astate.rounds) == 1 and w.controller.state == "converged", timeout=30_000)
    assert w.playing.new_episode("optimal")
    moves = w.player.moves
    assert moves and moves[0].state == g.session.start_state()
    assert g.session.mdp().state_labels[moves[0].state] == "001000000"  # player 2's first board after p1_policy1's opening
    assert moves[-1].next_state == g.session.built().win  # the best response to p1_policy1 always wins
    w.player.seek(0)
    assert g.board.position.key == g.session.mdp().state_labels[moves[0].next_state]
    w.player.seek(len(moves) - 1)  # an end state keeps no board: the last real position is shown (issue 13)
    assert g.board.position.key == g.session.mdp().state_labels[moves[-1].state]
    assert "the agent wins" in w.player.status.text()


def test_scenario_errors_name_the_field(qtbot, files, tmp_path):
    g = AtttGame()
    with pytest.raises(ScenarioError, match=r"games\.attt\.start\.kind: must be one of file, random, uniform"):
        g.session.load_dict({"start": {"kind": "bogus"}}, "s.json")
    with pytest.raises(ScenarioError, match=r"games\.attt\.p2_states: .*no such file"):
        g.session.load_dict({"p2_states": str(tmp_path / "missing.txt")}, "s.json")
    with pytest.raises(ScenarioError, match=r"games\.attt\.start\.path: .*wrong player id"):
        g.session.load_dict({"start": {"kind": "file", "player": 2, "path": str(files["policy_p1"])}}, "s.json")
    with pytest.raises(ScenarioError, match=r"games\.attt\.ties: must be one of lowest, highest"):
        g.session.load_dict({"ties": "middle"}, "s.json")
    st = g.session.load_dict(g.session.to_dict(), "s.json")  # the default setup round-trips
    assert st.start.source == g.setup.start.source and st.p2_boards.source == g.setup.p2_boards.source


# ---------------------------------------------------------------------------------- screenshots
def test_screenshots_are_written(tmp_path, files):
    paths = save_screenshots(tmp_path, games=1000)
    assert [p.name for p in paths] == ["attt.png", "attt-1280x720.png", "attt-matchups.png"]
    assert all(p.stat().st_size > 10_000 for p in paths)
