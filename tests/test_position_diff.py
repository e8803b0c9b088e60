"""The live re-solve's policy diff on the position boards (mdpviz.widgets.position.change): at the shown
position the moves whose optimality changed with an edit are ringed, and the difference map's numbers are
each move's Q after - Q before, both checked against two separate headless solves; Undo gives the reverse.
No timing: qtbot.waitUntil on the controller."""
from __future__ import annotations

import re

import numpy as np
import pytest

import mdpviz.models.kit.game.registry as registry
from mdpviz.models.kit.pictures.policy_diff import policy_diff, state_change
from mdpviz.solvers import solve
from mdpviz.widgets.position.change import DQ_LABEL, change_line, signed

from .conftest import make_window
from .test_live_diff import brute_optimal
from .test_live_window import solve_first, wait_diff

DQ_TIP = re.compile("Q after \u2212 Q before the edit: ([-+0-9.eE]+)")


@pytest.fixture
def win(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path / "settings.ini", live=True)
    yield w
    w.shutdown()


def brute_q(mdp, values, s) -> dict[int, float]:
    """Q(s, a) of every action of ``s``, one backup at a time."""
    return {int(a): sum(p * (r + mdp.discount * values[d]) for d, p, r in mdp.outcomes(s, int(a)))
            for a in mdp.actions_of(s)}


def expected_at(before, after, s):
    """From two separate solves: (the actions of state ``s`` (of ``after``) whose optimal-set membership
    differs, Q after - Q before per action)."""
    vb, va = solve(before, "pi").values, solve(after, "pi").values
    la = after.state_labels or [str(i) for i in range(after.n_states)]  # (no labels: the states by index)
    lb = before.state_labels or [str(i) for i in range(before.n_states)]
    lab = la[s]
    b = list(lb).index(lab)
    flipped = brute_optimal(before, vb)[lab] ^ brute_optimal(after, va)[lab]
    qa, qb = brute_q(after, va, s), brute_q(before, vb, b)
    return flipped, {a: qa[a] - qb[a] for a in qa}


def edit_and_wait(qtbot, w, edit) -> None:
    w.live._live_measured = None  # (re-solved live whatever this computer's last solve took: no timing in a test)
    edit()
    wait_diff(qtbot, w)


def show_state(w, s: int) -> None:
    board = w.board
    assert board.show_position(board.model.position_of(int(s)))
    w.solving.mark_dirty()
    w.solving.redraw()


def check_marks_and_map(w, before, after, *, sign: float = 1.0):
    """At the shown position: the ringed cells, the line and the difference map against two solves."""
    board = w.board
    pos = board.position
    flipped, dq = expected_at(before, after, pos.state)
    moves = board.model.moves(pos)
    w.live.set_diff_mode("after")
    w.solving.mark_dirty()
    w.solving.redraw()
    assert board.change is not None and board.change.mode == "after"
    assert set(board.canvas.changed) == {m.cell for m in moves if m.action in flipped}
    assert bool(flipped) == bool(w.live.live_diff.changed[pos.state])  # agrees with the states the diff counts
    assert ("Best move" in board.caption_label.text()) == bool(flipped)
    if not flipped:
        assert "did not change" in board.caption_label.text()
    w.live.set_diff_mode("difference")
    w.solving.redraw()
    view = board.view()
    assert board.shown_scale.kind == "diverging" and board.shown_scale.lo == -board.shown_scale.hi
    assert board.shown_scale.label == DQ_LABEL and w.color_bar.scale == board.shown_scale
    for m in moves:
        got = float(DQ_TIP.search(view.tips[m.cell]).group(1))
        assert got == pytest.approx(sign * dq[m.action], rel=1e-5, abs=1e-6)
        assert view.texts[m.cell] == signed(got)
    assert set(board.canvas.changed) == {m.cell for m in moves if m.action in flipped}  # still ringed
    w.live.set_diff_mode("after")
    return flipped, dq


def test_ttt_draw_reward_changes_the_best_move_and_undo_reverses_it(qtbot, win):
    w = win
    w.switch_game("ttt")
    solve_first(qtbot, w)
    before = w.session.mdp()
    edit_and_wait(qtbot, w, lambda: w.game.set_rewards(draw=-1000.0))
    after = w.session.mdp()
    d = w.live.live_diff
    assert d.n_changed > 0
    # a position whose best move changed: the agent's first move after the opponent's opening
    s = int(np.flatnonzero(d.changed & ~np.asarray(after.terminal))[0])
    show_state(w, s)
    flipped, dq = check_marks_and_map(w, before, after)
    assert flipped and len(w.board.canvas.changed) >= 2  # one move stops being best, another starts
    # walking on keeps the diff: the next position shows its own change (a position that did not change)
    keep = int(np.flatnonzero(~d.changed & ~np.asarray(after.terminal) & d.compared)[0])
    show_state(w, keep)
    check_marks_and_map(w, before, after)
    # "before": the Q of every move from the model and values before the edit
    show_state(w, s)
    w.live.set_diff_mode("before")
    w.solving.redraw()
    vb = solve(before, "pi").values
    qb = brute_q(before, vb, list(before.state_labels).index(after.state_labels[s]))
    view = w.board.view()
    for i, m in enumerate(w.board.model.moves(w.board.position)):
        assert view.qs[i] == pytest.approx(qb[m.action], rel=1e-6, abs=1e-6)
    w.live.set_diff_mode("after")
    # Undo is an edit too: the same moves ringed, every change reversed
    edit_and_wait(qtbot, w, w.act_undo.trigger)
    assert w.session.settings.settings.draw == 0.0
    show_state(w, list(w.session.mdp().state_labels).index(after.state_labels[s]))
    flipped_back, dq_back = check_marks_and_map(w, after, w.session.mdp())
    assert flipped_back == flipped
    assert dq_back == pytest.approx({a: -v for a, v in dq.items()}, abs=1e-6)


def test_risk_of_the_centre_changes_the_opening(qtbot, win):
    w = win
    w.switch_game("risk_ttt")
    solve_first(qtbot, w)
    before = w.session.mdp()
    edit_and_wait(qtbot, w, lambda: w.game.set_risk(4, 0.0))  # the centre can no longer be lost to the coin
    after = w.session.mdp()
    pos = w.board.position
    assert pos.state == w.session.start_state()  # the walk starts again on the edited model
    w.solving.mark_dirty()
    w.solving.redraw()
    flipped, dq = check_marks_and_map(w, before, after)
    assert flipped and w.live.live_diff.changed[pos.state]
    assert w.board.position.text == pos.text
    # Undo: the opening's change, reversed
    edit_and_wait(qtbot, w, w.act_undo.trigger)
    w.solving.mark_dirty()
    w.solving.redraw()
    back, dq_back = check_marks_and_map(w, after, w.session.mdp())
    assert back == flipped
    assert dq_back == pytest.approx({a: -v for a, v in dq.items()}, abs=1e-6)


def test_state_change_agrees_with_the_diff_on_every_state():
    """The per-move change (what a position board draws) says a state changed exactly where the diff does."""
    spec = registry.get("ttt")
    s0 = spec.default_settings()
    from dataclasses import replace

    s1 = replace(s0, settings=replace(s0.settings, draw=-3000.0))
    m0, m1 = spec.compile(s0), spec.compile(s1)
    d = policy_diff(m0, solve(m0, "pi").values, m1, solve(m1, "pi").values)
    assert d.n_changed > 0
    for s in range(m1.n_states):
        sc = state_change(d, s)
        assert bool(sc.changed.any()) == bool(d.changed[s])
        ok = np.isfinite(sc.dq)
        assert np.allclose(sc.q_after[ok] - sc.q_before[ok], sc.dq[ok])


def test_change_line_words():
    from mdpviz.models.kit.pictures.policy_diff import StateChange
    from mdpviz.models.kit.boards.position import MoveSpec

    moves = (MoveSpec(0, "cell 0", 0), MoveSpec(4, "cell 4", 4))
    q = np.zeros(9)
    sc = StateChange(q, q, np.isin(np.arange(9), [0]), np.isin(np.arange(9), [4]))
    assert change_line(moves, sc) == "Best move here: cell 0 before the edit, cell 4 now (ringed)."
    same = StateChange(q, q, np.isin(np.arange(9), [4]), np.isin(np.arange(9), [4]))
    assert change_line(moves, same) == "This position's best move did not change with the edit."
    assert signed(0.5) == "+0.50"
    assert signed(-3500.0) == "\u22123500" and signed(0.0) == "0"


def test_checkers_two_click_moves(qtbot, win):
    """Checkers' moves are played piece first: a changed move is ringed on its piece until the piece is
    selected, then on where it goes; the difference map's numbers follow the same cells."""
    w = win
    w.switch_game("checkers")
    qtbot.waitUntil(lambda: w.session.mdp() is not None and w.controller.mdp is w.session.mdp(), timeout=120_000)
    solve_first(qtbot, w)
    before = w.session.mdp()
    edit_and_wait(qtbot, w, lambda: w.session.set_discount(0.95))
    after = w.session.mdp()
    d = w.live.live_diff
    board = w.board
    dec = [s for s in np.flatnonzero(d.changed & d.compared & ~np.asarray(after.terminal))
           if board.model.position_of(int(s)).chooser == "decision"]
    assert dec
    show_state(w, dec[0])
    pos = board.position
    flipped, dq = expected_at(before, after, pos.state)
    moves = board.model.moves(pos)
    assert flipped and all(m.origin >= 0 for m in moves)
    assert set(board.canvas.changed) == {m.origin for m in moves if m.action in flipped}
    piece = next(m.origin for m in moves if m.action in flipped)
    assert board.click_cell(piece) == "origin"
    assert set(board.canvas.changed) == {m.cell for m in moves if m.action in flipped and m.origin == piece}
    w.live.set_diff_mode("difference")
    w.solving.redraw()
    view = board.view()
    for m in moves:
        if m.origin == piece:
            got = float(DQ_TIP.search(view.tips[m.cell]).group(1))
            assert got == pytest.approx(dq[m.action], rel=1e-5, abs=1e-6)
