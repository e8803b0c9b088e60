"""The common board-game view: pure logic (tier 1) and the position board widget (tier 3).

The game used here is a hand-checkable "corridor": a token on a 1 x 4 board moves one or two
cells to the right (two-click moves: click the token, then the destination); reaching the last
cell pays 1; discount 0.5. By hand: V(2) = 1 (step +1 pays 1); from 1, +1 gives 0.5 x V(2) = 0.5
and +2 pays 1, so V(1) = 1 (greedy +2); from 0, +1 gives 0.5 x V(1) = 0.5 and +2 gives
0.5 x V(2) = 0.5: a tie, the greedy move is the lowest action (+1).
"""
from __future__ import annotations

import csv
import io
import math

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

from mdpviz.core.mdp import TabularMDP
from mdpviz.core.simulate import proportion_ci
from mdpviz.solvers import solve
from mdpviz.models.kit.pictures.colors import ColorScale
from mdpviz.widgets.position import GridPainter, LayersPainter, MatchupPanel, PositionBoard
from mdpviz.models.kit.boards.position import (
    MODEL,
    PLAY,
    USER,
    WALK,
    GameWalk,
    MatchupResult,
    MatchupRow,
    MoveSpec,
    Ply,
    Position,
    TabularPositionModel,
    compact_value,
    greedy_move,
    outcome_text,
    position_view,
)
from tests.conftest import wait_laid_out


# ---------------------------------------------------------------------------------- a tiny game
def corridor_mdp(discount: float = 0.5) -> TabularMDP:
    src, act, dst, prob, rew = [], [], [], [], []
    for s in range(3):
        for a, step in ((0, 1), (1, 2)):
            d = s + step
            if d > 3:
                continue
            src.append(s), act.append(a), dst.append(d), prob.append(1.0), rew.append(1.0 if d == 3 else 0.0)
    return TabularMDP.from_transitions(4, 2, src, act, dst, prob, rew, discount=discount, terminal=[3],
                                       action_labels=["+1", "+2"])


class Corridor(TabularPositionModel):
    """The corridor as a position model: the token (code 1) on the cell of the state."""

    players = ("token", "spectator")
    n_cells = 4

    def _pos(self, s: int) -> Position:
        cells = np.zeros(4, dtype=np.int8)
        cells[s] = 1
        return Position(s, cells, "" if s == 3 else "token", state=s, outcome="arrived" if s == 3 else "")

    def start(self, *, first=None):
        return self._pos(0)

    def position_of(self, state):
        return self._pos(int(state))

    def moves(self, pos):
        if pos.terminal:
            return ()
        return tuple(MoveSpec(int(a), f"{pos.state}\u2192{pos.state + a + 1}", pos.state + a + 1, origin=pos.state)
                     for a in self.mdp.actions_of(pos.state))

    def play(self, pos, action, rng):
        (d, _p, r), = self.mdp.outcomes(pos.state, int(action))
        return Ply(pos, int(action), self._pos(int(d)), f"token to cell {d}", float(r))


@pytest.fixture
def corridor():
    m = Corridor(corridor_mdp())
    return m, solve(m.mdp, "pi")


def test_the_corridor_values_are_the_hand_checked_ones(corridor):
    m, sol = corridor
    assert np.allclose(sol.values, [0.5, 1.0, 1.0, 0.0])
    assert np.allclose(m.q_of_state(0, sol.values), [0.5, 0.5])
    assert np.allclose(m.q_of_state(1, sol.values), [0.5, 1.0])
    q2 = m.q_of_state(2, sol.values)
    assert q2[0] == 1.0 and math.isnan(q2[1])  # +2 would leave the board: not a move


# ---------------------------------------------------------------------------------- pure helpers
def test_greedy_move_ties_go_to_the_lowest_action_and_min_players_take_the_smallest():
    mv = [MoveSpec(5, "a", 0), MoveSpec(2, "b", 1), MoveSpec(7, "c", 2)]
    assert greedy_move(mv, np.array([1.0, 1.0, 0.5]), "max") == 1  # action 2 < 5
    assert greedy_move(mv, np.array([1.0, 1.0 + 1e-12, 0.5]), "max") == 1  # within the tie tolerance
    assert greedy_move(mv, np.array([1.0, 2.0, 0.5]), "min") == 2
    assert greedy_move(mv, np.array([np.nan, np.nan, np.nan]), "max") == -1
    assert greedy_move([], np.array([]), "max") == -1
    with pytest.raises(ValueError, match="objective"):
        greedy_move(mv, np.array([1.0, 2.0, 3.0]), "best")


def test_compact_values_and_outcome_text():
    assert [compact_value(v) for v in (0.0, -0.7776, 12.345, 376.07, -3500.0, 123456.0)] == \
        ["0.00", "-0.78", "12.3", "376", "-3500", "1.23e+05"]
    assert [compact_value(v) for v in (-0.0017, -0.0027, 0.05, 0.0001)] == ["-0.002", "-0.003", "0.050", "1.0e-04"]
    assert outcome_text({"X wins": 0.5, "draw": 0.25}) == "X wins 50.00% \u00b7 draw 25.00%"
    assert outcome_text(None) == ""


def test_view_of_two_click_moves(corridor):
    m, sol = corridor
    scale = ColorScale(0.0, 2.0)
    pos = m.start()
    v = position_view(m, pos, sol.values, scale=scale)
    # no piece selected: the token's cell shows the best of its moves (0.5), and it is the greedy origin
    assert v.origins.tolist() == [True, False, False, False]
    assert v.texts == ("0.50", "", "", "")
    assert v.fill[0] == pytest.approx(0.25) and np.isnan(v.fill[1:]).all()
    assert v.greedy == 0 and v.greedy_origin == 0 and v.greedy_cell == -1
    assert v.value == pytest.approx(0.5)
    # the piece selected: both destinations with their Q, the tie goes to +1 (cell 1)
    v = position_view(m, pos, sol.values, scale=scale, origin=0)
    assert v.texts == ("", "0.50", "0.50", "") and v.legal.tolist() == [False, True, True, False]
    assert v.greedy_cell == 1
    v = position_view(m, m.position_of(1), sol.values, scale=scale, origin=1)
    assert v.texts[2:] == ("0.50", "1.00") and v.greedy_cell == 3 and v.fill[3] == pytest.approx(0.5)


def test_view_hides_values_except_revealed_cells(corridor):
    m, sol = corridor
    pos = m.position_of(1)
    v = position_view(m, pos, sol.values, hide=True, origin=1)
    assert v.texts == ("", "", "", "") and v.greedy == -1 and v.greedy_cell == -1 and math.isnan(v.value)
    assert v.legal.tolist() == [False, False, True, True]  # the moves stay visible, their values do not
    v = position_view(m, pos, sol.values, hide=True, revealed=[3], origin=1)
    assert v.texts == ("", "", "", "1.00") and v.greedy == -1
    assert all(t == "" for t in position_view(m, pos, None).texts)  # no values: nothing to print


def test_view_of_a_model_position_shows_the_move_probabilities():
    class Coin(Corridor):
        def _pos(self, s):
            p = super()._pos(s)
            return Position(p.key, p.cells, p.mover, state=-1, chooser=MODEL, outcome=p.outcome) if s == 0 else p

        def moves(self, pos):
            if pos.chooser == MODEL:
                return (MoveSpec(0, "+1", 1, prob=0.25), MoveSpec(1, "+2", 2, prob=0.75))
            return super().moves(pos)

    m = Coin(corridor_mdp())
    v = position_view(m, m.start(), np.zeros(4))
    assert v.texts == ("", "1/4", "3/4", "") and v.greedy == -1 and np.isnan(v.fill).all()


# ---------------------------------------------------------------------------------- the walk
def test_walk_back_forward_and_a_new_branch(corridor):
    m, sol = corridor
    w = GameWalk(m)
    assert w.role() == USER and w.visited_states() == [0]
    w.play(0, sol.values)
    w.play(0, sol.values)
    assert w.position.state == 2 and w.visited_states() == [0, 1, 2]
    assert w.back() and w.position.state == 1 and w.can_forward
    assert w.forward() and w.position.state == 2 and not w.can_forward
    w.back()
    w.play(1, sol.values)  # a new branch forgets the old future
    assert w.position.terminal and len(w.plies) == 2 and not w.can_forward
    assert [p.by for p in w.plies] == ["you", "you"]
    with pytest.raises(ValueError, match="game is over"):
        w.play(0)
    w.back()
    with pytest.raises(ValueError, match="not legal"):
        w.play(7)


def test_play_mode_lets_the_agent_play_greedily(corridor):
    m, sol = corridor
    w = GameWalk(m, mode=PLAY)
    assert w.human == "token" and w.role() == USER
    w.set_human("spectator")  # the token is played by the agent all the way
    with pytest.raises(ValueError, match="you can play"):
        w.set_human("referee")
    plies = w.new_game(sol.values)
    assert [p.by for p in plies] == ["agent", "agent"]
    assert [(p.before.state, p.action) for p in plies] == [(0, 0), (1, 1)]  # tie at 0 -> +1, then +2
    assert w.position.terminal and w.role() == ""
    w.set_mode(WALK)
    assert w.role(m.start()) == USER
    with pytest.raises(ValueError, match="mode"):
        w.set_mode("chess")


def test_matchup_rows_and_csv():
    r = MatchupRow("a vs b", "a", "b", (50, 30, 20), 100, (0.5, 0.3, 0.2))
    lo, hi = r.ci
    elo, ehi = proportion_ci(np.array([50, 30, 20]), 100)
    assert np.allclose(lo, elo) and np.allclose(hi, ehi)
    assert r.fractions.tolist() == [0.5, 0.3, 0.2] and r.within_ci.all()
    rows = list(csv.reader(io.StringIO(MatchupResult((r,)).csv())))
    assert rows[0][:6] == ["matchup", "x", "o", "games", "X_wins", "X_wins_fraction"]
    assert rows[1][:5] == ["a vs b", "a", "b", "100", "50"] and float(rows[1][8]) == 0.5
    with pytest.raises(ValueError, match="summing"):
        MatchupRow("bad", "a", "b", (1, 2, 3), 7)


# ---------------------------------------------------------------------------------- the widget
@pytest.fixture
def board(qtbot, corridor):
    m, sol = corridor
    b = PositionBoard(lambda: m, lambda: GridPainter(2))
    qtbot.addWidget(b)
    b.resize(700, 420)
    b.show()
    b.show_values(sol.values, ColorScale(0.0, 2.0), caption="solved")
    return b, m, sol


def test_board_plays_two_click_moves_and_walks_back(board, qtbot):
    b, m, sol = board
    assert b.position.state == 0 and b.view().texts[0] == "0.50"
    assert b.click_cell(2) == "none"  # no piece selected: a destination does nothing
    assert b.click_cell(0) == "origin" and b.view().texts[1:3] == ("0.50", "0.50")
    with qtbot.waitSignal(b.inspect_requested) as sig:
        assert b.click_cell(2) == "played"
    assert sig.args == [2] and b.position.state == 2
    assert b.moves_table.rowCount() == 1 and b.moves_table.item(0, 1).text() == "1.0000"
    assert "2" in b.visited_label.text() and b.back_button.isEnabled() and not b.forward_button.isEnabled()
    b.back_button.click()
    assert b.position.state == 0 and b.forward_button.isEnabled()
    b.forward_button.click()
    assert b.position.state == 2
    b.new_button.click()
    assert b.position.state == 0 and not b.back_button.isEnabled()


def test_a_mouse_click_on_the_canvas_plays_the_cell(board, qtbot):
    b, m, sol = board
    c = b.canvas
    for cell in (0, 1):
        p = c.cell_center(cell)
        qtbot.mouseClick(c, Qt.MouseButton.LeftButton, pos=QPoint(int(p.x()), int(p.y())))
    assert b.position.state == 1
    assert c.cell_at(-5, -5) == -1


def test_selected_move_backup(board):
    b, m, sol = board
    b.play_move(0)
    b.select_move(1)
    text = b.backup_label.text()
    assert "Q = 1.0000" in text and "1 x (1 + 0.5 x V(3)=0.0000) = 1.0000" in text
    b.moves_table.selectRow(0)
    assert b.selected_action == 0 and "0.5 x V(2)=1.0000" in b.backup_label.text()


def test_hide_hints_and_predict_mode(board, qtbot):
    b, m, sol = board
    with qtbot.waitSignal(b.inspect_requested) as sig:  # hidden values: the inspector is cleared too
        b.set_hide_hints(True)
    assert sig.args == [-1]
    assert b.hide_check.isChecked() and all(t == "" for t in b.view().texts) and b.view().greedy == -1
    assert b.moves_table.item(0, 1).text() == "" and b.value_label.text() == "Values hidden."
    b.set_hide_hints(False)
    b.set_predict_mode(True)
    assert all(t == "" for t in b.view().texts)
    assert b.click_cell(0) == "revealed" and b.position.state == 0  # the first click reveals, does not play
    assert b.view().texts[0] == "0.50" and b.view().greedy == -1
    assert b.click_cell(0) == "origin"
    assert b.click_cell(1) == "revealed" and b.view().texts[1] == "0.50" and b.view().texts[2] == ""
    assert b.click_cell(1) == "played" and b.position.state == 1
    assert all(t == "" for t in b.view().texts)  # a new position: the reveals reset
    assert b.click_cell(1) == "revealed" and b.click_cell(1) == "origin" and b.click_cell(3) == "revealed"
    b.hide_all()  # a new sweep hides the reveals again
    assert b.view().texts[3] == ""
    b.set_predict_mode(False)
    assert b.view().texts[2:] == ("0.50", "1.00")  # the piece is still selected: its moves show their values


def test_play_mode_against_the_agent_reaches_the_end(board):
    b, m, sol = board
    b.mode_combo.setCurrentIndex(b.mode_combo.findData(PLAY))
    assert b.mode == PLAY
    # the only player is the human's mark: the user plays to the end
    while not b.position.terminal:
        b.play_move(m.moves(b.position)[-1].action)
    assert b.position.outcome == "arrived" and "Game over" in b.status.text()
    assert b.click_cell(0) == "none"


def test_a_new_model_restarts_the_walk(qtbot, corridor):
    m, sol = corridor
    box = {"m": m}
    b = PositionBoard(lambda: box["m"], lambda: GridPainter(2))
    qtbot.addWidget(b)
    b.show_values(sol.values, None)
    b.play_move(0)
    m2 = Corridor(corridor_mdp(0.9))
    box["m"] = m2
    b.show_values(solve(m2.mdp, "pi").values, None)
    assert b.model is m2 and b.position.state == 0 and b.walk.plies == []
    box["m"] = None
    b.show_values(None, None, caption="no model")
    assert b.position is None and b.moves_table.rowCount() == 0


def test_token_of_the_episode_player(board):
    b, m, sol = board
    b.show_token(2, "step 2")
    assert b.position.state == 2 and "step 2" in b.status.text()


def test_painters_lay_out_cells():
    from PySide6.QtCore import QRectF

    rects = GridPainter(3).cell_rects(QRectF(0, 0, 300, 300), 9)
    assert rects[4].center().x() == pytest.approx(150) and rects[4].width() == pytest.approx(100)
    lay = LayersPainter(3, 3).cell_rects(QRectF(0, 0, 1000, 400), 27)
    assert len(lay) == 27 and lay[9].left() > lay[2].right() and lay[18].left() > lay[11].right()
    assert lay[0].top() == pytest.approx(lay[9].top())
    assert LayersPainter(3, 3).cell_name(13) == "cell 13 (layer 2, row 2, column 2)"


def test_matchup_panel_shows_numbers_as_text(qtbot, tmp_path):
    p = MatchupPanel()
    qtbot.addWidget(p)
    rows = (MatchupRow("opt vs rnd", "opt", "rnd", (9000, 500, 500), 10_000, (0.9, 0.05, 0.05)),
            MatchupRow("rnd vs rnd", "rnd", "rnd", (5850, 2880, 1270), 10_000))
    p.show_results(rows, start="the empty board")
    assert p.table.rowCount() == 2  # one row per matchup
    assert [p.table.horizontalHeaderItem(k).text() for k in range(7)] == [
        "Matchup", "X wins %", "exact", "O wins %", "exact", "draws %", "exact"]
    assert [p.table.item(0, k).text() for k in range(3)] == ["opt vs rnd", "90.00 \u00b10.59", "90.00 \u2713"]
    assert "[89.40%, 90.57%]" in p.table.item(0, 1).toolTip()  # the Wilson interval itself on hover
    assert p.table.item(1, 3).text() == "28.80 \u00b10.89" and p.table.item(1, 4).text() == ""  # no exact
    assert p.export_csv.isEnabled()
    p.export_plot_to(tmp_path / "bars.png")
    assert (tmp_path / "bars.png").stat().st_size > 0
    p.clear("gone")
    assert p.table.rowCount() == 0 and p.status.text() == "gone"


def test_five_matchups_fit_a_laptop_results_page(qtbot):
    """One row per matchup: anti-tic-tac-toe's five matchups are every row and column visible in the
    results page of a 1366x768 window (about 640 x 650 px)."""
    p = MatchupPanel()
    qtbot.addWidget(p)
    p.resize(640, 650)
    p.show()
    rows = tuple(MatchupRow(f"{a} vs {b}", a, b, (2950, 5740, 1310), 10_000, (0.2881, 0.5849, 0.127))
                 for a, b in (("solved P2", "x"), ("P1", "P2"), ("P1", "uniform"), ("uniform", "P2"),
                              ("uniform", "uniform")))
    p.show_results(rows, start="the empty board", unit="games")
    wait_laid_out(qtbot, p)
    t = p.table
    assert t.rowCount() == 5 and t.columnCount() == 7
    assert sum(t.rowHeight(i) for i in range(5)) <= t.viewport().height()
    assert sum(t.columnWidth(k) for k in range(7)) <= t.viewport().width() + 1
    assert all(t.columnWidth(k) >= t.sizeHintForColumn(k) for k in range(7))
    assert t.item(4, 1).text() == "29.50 \u00b10.89" and t.item(4, 2).text() == "28.81 \u2713"
