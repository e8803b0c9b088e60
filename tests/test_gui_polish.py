"""GUI polish and freeze fixes found while plugging the board games into the window.

* the position board's moves table is filled without per-item layout, and only when what it shows
  changed (the window redraws the board at screen rate);
* the window names states lazily (no O(states) loop on the GUI thread);
* the matchup chart: legend above the bars, readable axis labels (names or letters keyed in the table);
* the discount field's tooltip is the game's own note; the Convergence dock is named by the game;
* the board's public ``show_position`` / ``values_hidden`` / text hooks; a new model drops the old
  model's values; a board's ``job_message`` reaches the status bar.

The position board tests use the hand-checked corridor of ``tests/test_position.py``: V = (0.5, 1, 1, 0),
Q(0, +1) = Q(0, +2) = 0.5, Q(1, +1) = 0.5, Q(1, +2) = 1, Q(2, +1) = 1.
"""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtWidgets import QHeaderView

from mdpviz.solvers import solve
from mdpviz.models.kit.pictures.colors import ColorScale
from mdpviz.widgets.position import (
    AXIS_FONT_PT,
    MAX_NAMED_BARS,
    OUTCOME_COLORS,
    GridPainter,
    MatchupPanel,
    PositionBoard,
    legend_html,
    table_rows,
    tick_labels,
)
from mdpviz.models.kit.boards.position import MatchupRow, MoveSpec
from tests.conftest import wait_laid_out, wait_model
from tests.test_position import Corridor, corridor_mdp


# ---------------------------------------------------------------------------------- pure helpers
def test_table_rows_format_q_probabilities_hidden_and_revealed_values():
    moves = (MoveSpec(0, "0\u21921", 1, origin=0), MoveSpec(1, "0\u21922", 2, origin=0))
    qs = np.array([0.5, np.nan])
    assert table_rows(moves, qs, 0, model_pos=False, hidden=False) == (
        ("0\u21921", "0.5000", "\u2605", 0), ("0\u21922", "", "", 1))  # a NaN Q prints nothing
    # hidden: no numbers, except on a revealed cell (the star goes with the view's greedy index)
    assert table_rows(moves, np.array([0.5, 0.25]), -1, model_pos=False, hidden=True, revealed={2}) == (
        ("0\u21921", "", "", 0), ("0\u21922", "0.2500", "", 1))
    coin = (MoveSpec(0, "+1", 1, prob=0.25), MoveSpec(1, "+2", 2, prob=0.75))
    assert [r[1] for r in table_rows(coin, np.full(2, np.nan), -1, model_pos=True, hidden=False)] == ["1/4", "3/4"]
    assert [r[1] for r in table_rows(coin, np.full(2, np.nan), -1, model_pos=True, hidden=True)] == ["", ""]


def test_tick_labels_name_few_matchups_and_letter_many():
    assert tick_labels(["optimal vs random", "random vs random"]) == ["optimal\nvs random", "random\nvs random"]
    six = ["optimal vs random", "random vs optimal", "optimal vs optimal", "random vs random",
           "optimal vs classic", "classic vs optimal"]
    assert MAX_NAMED_BARS == 3 and tick_labels(six[:3])[2] == "optimal\nvs optimal"
    assert tick_labels(six) == ["A", "B", "C", "D", "E", "F"]
    with pytest.raises(ValueError, match="at most 26"):
        tick_labels([f"m{i} vs r" for i in range(27)])


def test_legend_html_has_each_result_in_its_bar_colour():
    html = legend_html(("X wins", "O wins", "draws"), exact=True)
    for colour, label in zip(OUTCOME_COLORS, ("X wins", "O wins", "draws")):
        assert f"color:{colour}'>\u25a0</span>&nbsp;{label}" in html
    assert "exact" in html and f"font-size:{AXIS_FONT_PT}pt" in html
    assert "exact" not in legend_html(("P1 wins", "P2 & co", "draws"), exact=False)
    assert "P2 &amp; co" in legend_html(("P1 wins", "P2 & co", "draws"), exact=False)


# ---------------------------------------------------------------------------------- the board
@pytest.fixture
def corridor_board(qtbot):
    m = Corridor(corridor_mdp())
    sol = solve(m.mdp, "pi")
    box = {"m": m}
    b = PositionBoard(lambda: box["m"], lambda: GridPainter(2))
    qtbot.addWidget(b)
    b.resize(700, 420)
    b.show()
    b.show_values(sol.values, ColorScale(0.0, 2.0), caption="solved")
    return b, box, sol


def test_moves_table_is_refilled_only_when_it_changes_and_sized_once(corridor_board):
    b, box, sol = corridor_board
    t = b.moves_table
    header = t.horizontalHeader()
    # no per-item resizing to contents (that measured every row again on each setItem)
    # (the move's name stretches to the width left: that measures no rows)
    assert header.sectionResizeMode(0) == QHeaderView.ResizeMode.Stretch
    assert header.sectionResizeMode(1) == QHeaderView.ResizeMode.Interactive
    assert header.sectionResizeMode(2) == QHeaderView.ResizeMode.Interactive
    b.play_move(0)  # at state 1: +1 (Q 0.5) and +2 (Q 1, greedy)
    assert [(t.item(i, 0).text(), t.item(i, 1).text(), t.item(i, 2).text()) for i in range(2)] == [
        ("1\u21922", "0.5000", ""), ("1\u21923", "1.0000", "\u2605")]
    first = t.item(0, 1)
    assert t.columnWidth(0) >= t.sizeHintForColumn(0) and t.columnWidth(1) >= t.sizeHintForColumn(1)
    b.show_values(sol.values, ColorScale(0.0, 2.0), caption="the same sweep again")  # a redraw: same rows
    assert t.item(0, 1) is first  # not refilled
    b.show_values(np.array([0.5, 1.0, 0.25, 0.0]), ColorScale(0.0, 2.0), caption="other values")
    assert t.item(0, 1) is not first and t.item(0, 1).text() == "0.1250"  # 0.5 x V(2) = 0.5 x 0.25
    b.select_move(0)  # a new selection is shown
    assert [i.row() for i in t.selectionModel().selectedRows()] == [0]
    b.set_hide_hints(True)
    assert t.item(0, 1).text() == "" and t.item(1, 1).text() == ""


def test_show_position_is_public_and_starts_a_fresh_walk(corridor_board):
    b, box, sol = corridor_board
    b.play_move(0)
    assert b.show_position(box["m"].position_of(2), "shown by the game")
    assert b.position.state == 2 and b.walk.plies == [] and not b.back_button.isEnabled()
    assert b.status.text().startswith("shown by the game")
    assert b.moves_table.item(0, 1).text() == "1.0000"  # Q(2, +1) = 1
    box["m"] = None
    assert not b.show_position(Corridor(corridor_mdp()).position_of(1), "no model")
    assert b.position is None


def test_values_hidden_and_the_text_hooks(corridor_board):
    b, box, sol = corridor_board
    assert not b.values_hidden
    b.set_predict_mode(True)
    assert b.values_hidden and b.value_label.text() == "Values hidden."
    b.set_predict_mode(False)

    class Worded(PositionBoard):
        def position_value_text(self, pos, view):
            return f"custom {pos.state}: " + super().position_value_text(pos, view)

        def path_text(self):
            return f"path of {len(self.walk.plies)}"

    m = box["m"]
    w = Worded(lambda: m, lambda: GridPainter(2))
    w.show_values(sol.values, ColorScale(0.0, 2.0))
    assert w.value_label.text() == "custom 0: V(position) = 0.5000  (token to move, maximises)"
    w.play_move(1)  # +2: state 2
    assert w.visited_label.text() == "path of 1" and w.value_label.text().startswith("custom 2: V(position) = 1.0000")
    w.deleteLater()


def test_a_new_model_drops_the_old_models_values(corridor_board):
    b, box, sol = corridor_board
    assert b.moves_table.item(0, 1).text() == "0.5000"
    m2 = Corridor(corridor_mdp(0.9))
    box["m"] = m2
    b.new_game()  # any call that picks up the new model
    assert b.model is m2 and b.values is None and b.scale is None
    assert b.view().texts == ("", "", "", "") and b.moves_table.item(0, 1).text() == ""
    assert b.value_label.text() == "No values yet: step or run the solver."
    b.show_values(solve(m2.mdp, "pi").values, ColorScale(0.0, 2.0))  # the new solve's values show again
    assert b.moves_table.item(0, 1).text() == "0.9000"  # 0.9 x V(1) = 0.9 x 1 (tie with +2: 0.9 x V(2))


def test_initial_values_hook_keeps_model_independent_values(qtbot):
    m = Corridor(corridor_mdp())
    sol = solve(m.mdp, "pi")
    box = {"m": m}

    class Keeps(PositionBoard):
        def initial_values(self, model):
            return sol.values  # e.g. the 3D game's agent: the same values for every model

    b = Keeps(lambda: box["m"], lambda: GridPainter(2))
    qtbot.addWidget(b)
    box["m"] = Corridor(corridor_mdp())
    b.new_game()
    assert b.values is sol.values and b.moves_table.item(0, 1).text() == "0.5000"


# ---------------------------------------------------------------------------------- the matchup panel
def _rows(n: int) -> tuple[MatchupRow, ...]:
    names = ["optimal vs random", "random vs optimal", "optimal vs optimal", "random vs random",
             "optimal vs classic", "classic vs optimal"][:n]
    return tuple(MatchupRow(nm, *nm.split(" vs "), (900, 60, 40), 1000, (0.9, 0.06, 0.04)) for nm in names)


def _shown_matchups(qtbot, width: int, n: int) -> MatchupPanel:
    """A matchup panel, shown ``width`` px wide, with ``n`` matchups drawn."""
    p = MatchupPanel()
    qtbot.addWidget(p)
    p.resize(width, 520)
    p.show()
    p.show_results(_rows(n), start="the empty board")
    wait_laid_out(qtbot, p)
    return p


def test_matchup_chart_legend_sits_above_the_bars_and_letters_are_keyed(qtbot, tmp_path):
    p = _shown_matchups(qtbot, 370, 6)
    title, vb = p.plot.titleLabel, p.plot.getViewBox()
    assert title.isVisible() and "X wins" in p.legend_text and "exact" in p.legend_text
    assert title.sceneBoundingRect().bottom() <= vb.sceneBoundingRect().top() + 1  # never over a bar
    ax = p.plot.getAxis("bottom")
    assert [t for _, t in ax._tickLevels[0]] == ["A", "B", "C", "D", "E", "F"]
    assert ax.style["tickFont"].pointSize() == AXIS_FONT_PT
    vh = p.table.verticalHeader()
    assert vh.isVisible() and [p.table.verticalHeaderItem(r).text() for r in range(6)] == list("ABCDEF")
    assert p.table.rowCount() == 6 and p.table.item(1, 0).text() == "random vs optimal"  # names whole in the table
    assert p.table.horizontalHeader().sectionResizeMode(0) == QHeaderView.ResizeMode.Interactive
    assert p.table.columnWidth(0) >= p.table.sizeHintForColumn(0)
    p.export_plot_to(tmp_path / "bars.png")
    assert (tmp_path / "bars.png").stat().st_size > 0
    p.show_results(_rows(2), start="the empty board")  # few matchups: named on two lines, no letters
    assert [t for _, t in ax._tickLevels[0]] == ["optimal\nvs random", "random\nvs optimal"]
    assert not vh.isVisible()
    assert ax.height() >= 2 * p.fontMetrics().lineSpacing()
    p.clear("gone")
    assert p.legend_text == "" and not vh.isVisible()


def test_matchup_chart_labels_its_zero(qtbot):
    """The bars start at 0, at the axis's bottom edge: pyqtgraph's axis left that label out."""
    from PySide6.QtGui import QImage, QPainter

    p = _shown_matchups(qtbot, 600, 2)
    ax = p.plot.getAxis("left")
    img = QImage(4, 4, QImage.Format.Format_ARGB32)
    qp = QPainter(img)
    try:
        texts = [t for _r, _f, t in ax.generateDrawSpecs(qp)[2]]
    finally:
        qp.end()
    assert "0" in texts and "1" in texts, texts


def test_the_successor_tags_leave_the_dice_under_the_squares_whole(window, qtbot):
    """Snakes with a square inspected: each successor's "p=0.25" tag sat under its square, over the
    top of the die glyph drawn there. The dice must look the same with and without the tags."""
    from PySide6.QtCore import QRect

    w = window
    w.resize(1280, 720)
    w.show()
    qtbot.waitUntil(lambda: w.controller.state == "ready", timeout=60_000)
    w.solver_panel.step.click()  # the dice are the policy of a sweep
    qtbot.waitUntil(lambda: len(w.controller.history) >= 1, timeout=60_000)
    w.solving.redraw()
    w.solving.inspect(w.game.session.start_state())
    board = w.board
    succ = dict(board.successors)
    assert succ and board.layout_.glyph_room > 0
    wait_laid_out(qtbot, w)
    tagged = board.grab().toImage()
    board.show_selection(board.selected, None)
    wait_laid_out(qtbot, w)
    plain = board.grab().toImage()
    s, ox, oy = board._transform()
    ratio = tagged.width() / board.width()  # (device pixels)
    checked = 0
    for c in board.layout_.cells:
        if c.state not in succ:
            continue
        x0, y0, x1, y1 = board.layout_.glyph_rect(c)
        cell = board.cell_rect(c.state)
        side = cell.width()
        # the successor's outline ring may touch the die's top edge: compare the die below the ring
        ring = cell.bottom() + side * 0.06 + max(2.0, side * 0.07) * board.line_scale ** 0.5 / 2 + 1
        top, bottom = max(oy + s * y0, ring) + 1, oy + s * y1 - 2
        r = QRect(int((ox + s * x0 + 2) * ratio), int(top * ratio), int((s * (x1 - x0) - 4) * ratio),
                  int((bottom - top) * ratio))
        assert r.width() > 4 and r.height() > 4, (c.state, r)
        assert tagged.copy(r) == plain.copy(r), f"the die under square {c.state} is covered"
        checked += 1
    assert checked == len(succ)


# ---------------------------------------------------------------------------------- the window
def test_discount_tooltip_is_the_games_own_note(window, qtbot):
    w = window
    tip = w.solver_panel.discount.toolTip
    assert w.game.key == "snakes" and tip() == "Turns are counted, not discounted: the discount is 1."
    w.switch_game("risk_ttt")  # a fixed discount without a note of its own: the generic note names it
    assert wait_model(w, qtbot).discount == 1.0
    assert tip() == "Fixed by this game: results are not discounted (the discount is 1)."
    w.switch_game("ttt3d")  # no MDP, no discount
    assert tip() == "This game has no discount to edit."
    w.switch_game("ttt")  # editable: the field's own tooltip
    assert w.session.game.supports_discount and "Turns" not in tip() and "Discount factor" in tip()


def test_discount_tooltip_generic_note_names_a_fixed_value(qapp):
    from dataclasses import replace

    from mdpviz.models import gridworld as gw
    from mdpviz.widgets.session import GameSession

    fixed = replace(gw.SPEC, model=replace(gw.SPEC.model, with_discount=None))  # fixes its discount, here at 0.95
    s = GameSession(fixed, gw.GridSettings(discount=0.95))
    assert not s.game.supports_discount and s.game.discount_tooltip() == "Fixed by this game: the discount is 0.95."
    s = GameSession(replace(fixed, model=replace(fixed.model, discount_note="Set by the course file.")),
                    gw.GridSettings(discount=0.95))
    assert s.game.discount_tooltip() == "Set by the course file."


def test_convergence_dock_is_named_by_the_game(window):
    w = window
    assert w.convergence_dock.windowTitle() == "Convergence"
    w.switch_game("ttt3d")
    assert w.convergence_dock.windowTitle() == "Learning curve"
    assert w.convergence_dock.toggleViewAction().text() == "Learning curve"
    assert w.conv_stack.currentWidget() is w.game.convergence_widget()
    w.switch_game("snakes")
    assert w.convergence_dock.windowTitle() == "Convergence" and w.convergence_dock.accessibleName() == "Convergence"


def test_a_boards_job_message_reaches_the_status_bar(window, qtbot):
    w = window
    board = w.stage.game_boards["ttt"]
    board.job_message.emit("a note from the board")
    assert w.statusBar().currentMessage() == "a note from the board"
    w.switch_game("ttt")
    wait_model(w, qtbot)
    w.statusBar().clearMessage()
    w.game.board.show_token(10**9)  # no such state: the board says so, in the status bar
    n = w.game.session.mdp().n_states
    assert w.statusBar().currentMessage() == f"state 1000000000 is out of range 0..{n - 1}"


def test_states_are_named_lazily_on_the_gui_thread(window, monkeypatch):
    w = window
    g = w.game  # snakes: the shared cell board
    mdp = g.session.mdp()
    calls: list[int] = []
    name = g.session.state_name
    monkeypatch.setattr(g.session, "state_name", lambda s: calls.append(s) or name(s))
    w.board.refresh_layout(force=True)
    assert calls == []  # nothing named up front
    names = w.board.state_names
    assert len(names) == mdp.n_states and names.get(3) == name(3) and names.get(mdp.n_states) is None
    assert names[3] == name(3) and calls == [3]  # named once, then kept
    calls.clear()
    assert w.playing.new_episode("random")
    visited = {g.session.start_state()} | {m.next_state for m in w.player.moves}
    assert set(calls) == visited and len(calls) == len(visited)  # only the episode's states


def _whole_rows(t) -> tuple[int, int]:
    """(whole rows the moves table shows, pixels of a partly shown row: 0 when none is cut)."""
    h, row = t.viewport().height(), t.rowHeight(0)
    shown = min(t.rowCount(), h // row)
    return shown, (h - shown * row if shown < t.rowCount() else 0) % row


@pytest.mark.parametrize("key", ["ttt", "risk_ttt", "checkers"])
def test_presenter_mode_shows_whole_moves_beside_the_board(qtbot, window, key):
    """Issue 13: at 1280x720 in presenter mode the moves table beside the board showed about one and
    a half rows; now at least four whole rows (or every move), never half a row, with the selected
    move's backup too, and the controls under it stay inside the panel."""
    w = window
    w.show()
    w.switch_game(key)
    wait_model(w, qtbot)  # (the shown game's own model: the first game's is loaded and ready already)
    qtbot.waitUntil(lambda: w.controller.mdp is not None and w.controller.state == "ready", timeout=60_000)
    w.solving.run_solver()
    qtbot.waitUntil(lambda: w.controller.state == "converged", timeout=60_000)
    w.view.set_presenter(True)
    try:
        w.resize(1280, 720)
        b = w.game.board
        for select in (False, True):
            if select:
                b.moves_table.selectRow(0)
                assert b.backup_scroll.isVisible() and "Q =" in b.backup_label.text()
            wait_laid_out(qtbot, w)
            w.solving._dirty = True
            w.solving.redraw()
            wait_laid_out(qtbot, w)
            t = b.moves_table
            shown, cut = _whole_rows(t)
            assert shown >= min(4, t.rowCount()) and cut < 3, (key, select, shown, cut, t.viewport().height())
            ctl = b.side.controls.geometry()
            assert ctl.bottom() <= b.side.height() and t.geometry().bottom() <= ctl.top(), (key, select)
            if b.backup_scroll.isVisible():
                assert t.geometry().bottom() <= b.backup_scroll.geometry().top()
        assert b.canvas.height() >= 230  # the board is not shrunk for it
    finally:
        w.view.set_presenter(False)
