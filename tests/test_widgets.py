"""Widgets draw what they are given: change the data, check the view (no window, no solver thread)."""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPointF, Qt

from mdpviz.models.snakes import SnakesSettings, compile_snakes, next_squares
from mdpviz.solvers import solve
from mdpviz.widgets.board import BoardView, CellDecor, ColorBar
from mdpviz.models.kit.pictures.colors import ColorScale
from mdpviz.widgets.convergence import ConvergencePlot, log_safe
from mdpviz.models.kit.pictures.display import BoardFrame, StrategyRow, board_frame
from mdpviz.models.kit.boards.episodes import Move
from mdpviz.widgets.geometry import snakes_layout
from mdpviz.widgets.panels import Inspector, SolverPanel, parse_tolerance
from mdpviz.widgets.simulation import EpisodePlayer, SimulationPanel


@pytest.fixture
def history():
    return solve(compile_snakes(SnakesSettings(layout=(0, 0, 3, 0, 2, 0, 1, 0, 3, 0, 0, 1, 0, 4, 0))), "vi",
                 record=True, tol=1e-9).history


def test_log_safe_turns_zeros_into_gaps():
    out = log_safe([1.0, 0.0, -1.0, math.inf, 1e-12])
    assert out[0] == 1.0 and out[4] == 1e-12 and np.isnan(out[1:4]).all()


def test_convergence_plot_grows_one_point_per_sweep(qtbot, history):
    plot = ConvergencePlot()
    qtbot.addWidget(plot)
    plot.reset(tol=1e-9)
    assert plot.point_count == 0
    assert not plot.tol_line.isVisible() and not plot.legend.items  # an empty plot: only its axes' names
    plot.append(history[0])
    assert plot.point_count == 0  # appended, drawn at the next refresh
    plot.refresh()
    assert plot.point_count == 1
    assert plot.tol_line.isVisible() and plot.tol_line.value() == pytest.approx(-9.0)  # log10 of the tolerance
    for sw in history[1:5]:
        plot.append(sw)
    plot.refresh()
    assert plot.point_count == 5
    assert plot.max_curve.yData.tolist() == [sw.delta for sw in history[:5]]
    assert plot.mean_curve.yData.tolist() == [sw.mean_delta for sw in history[:5]]
    assert plot.changes_curve.yData.tolist() == [sw.policy_changes for sw in history[:5]]
    plot.set_cursor(2)
    assert plot.cursor.isVisible() and plot.cursor.value() == 3
    plot.set_cursor(4)  # the newest sweep: no cursor
    assert not plot.cursor.isVisible()
    assert [label.text for _, label in plot.legend.items] == ["max |dV|", "mean |dV|", "tolerance",
                                                              "policy changes (below)"]
    plot.reset(tol=None)  # policy iteration and linear programming have no tolerance
    assert plot.point_count == 0 and not plot.tol_line.isVisible()
    plot.append(history[0])
    plot.refresh()
    assert not plot.tol_line.isVisible()
    assert [label.text for _, label in plot.legend.items] == ["max |dV|", "mean |dV|", "policy changes (below)"]


def test_convergence_plot_stays_fast_for_long_runs(qtbot, history):
    plot = ConvergencePlot()
    qtbot.addWidget(plot)
    for _ in range(3):
        for sw in history:
            plot.append(sw)
    plot.refresh()
    assert plot.point_count == 3 * len(history) > 150
    assert plot.max_curve.opts["symbol"] is None  # symbols off beyond SYMBOL_MAX_POINTS


def _frame(history, i=-1) -> tuple[BoardFrame, ColorScale]:
    scale = ColorScale(0.0, 20.0, "turns")
    sw = history[i]
    terminal = np.zeros(15, dtype=bool)
    terminal[14] = True
    return board_frame(sw.values, sw.policy, scale=scale, terminal=terminal, badge=lambda a: str(a + 1)), scale


def test_board_colours_numbers_badges_and_tooltips(qtbot, history):
    board = BoardView()
    qtbot.addWidget(board)
    board.resize(900, 300)
    board.set_board(snakes_layout(next_squares), {2: CellDecor("\u25a6", "#0072b2", "prison"),
                                                 14: CellDecor("", "", "goal", goal=True)})
    assert board.cell_text(0) == ("", "")
    frame, scale = _frame(history)
    board.show_frame(frame, scale)
    v = history[-1].values
    assert board.cell_text(0) == (f"{v[0]:.2f}", str(history[-1].policy[0] + 1))
    c = board.cell_color(0)
    expected = pg.colormap.get("viridis").map(v[0] / 20.0, mode="byte")  # a sequential scale: viridis
    assert max(abs(c.red() - expected[0]), abs(c.green() - expected[1]), abs(c.blue() - expected[2])) <= 1
    assert board.color_range() == (0.0, 20.0)
    assert board.cell_text(14) == ("", "")  # the goal: no value, no action
    tip = board.tooltip_text(2)
    assert "prison" in tip and f"value {v[2]:.10g}" in tip and "greedy action" in tip
    board.grab()  # paints without error


def test_board_reports_clicks_with_the_state(qtbot):
    board = BoardView()
    qtbot.addWidget(board)
    board.resize(900, 300)
    board.set_board(snakes_layout(next_squares))
    board.show()
    clicked = []
    board.cell_clicked.connect(clicked.append)
    centre = board.cell_rect(10).center()
    assert board.state_at(centre) == 10
    qtbot.mouseClick(board, Qt.MouseButton.LeftButton, pos=centre.toPoint())
    assert clicked == [10]
    qtbot.mouseClick(board, Qt.MouseButton.LeftButton, pos=QPointF(2, 2).toPoint())  # the margin
    assert clicked == [10]


def test_board_selection_and_token(qtbot):
    board = BoardView()
    qtbot.addWidget(board)
    board.set_board(snakes_layout(next_squares))
    board.show_selection(6, {6: 0.5, 7: 0.5})
    board.show_token(3, "4 turns")
    assert board.selected == 6 and board.successors == {6: 0.5, 7: 0.5}
    assert board.token == 3 and board.token_text == "4 turns"
    board.grab()


def test_color_bar_shows_the_fixed_scale(qtbot):
    bar = ColorBar()
    qtbot.addWidget(bar)
    bar.show_scale(ColorScale(0.0, 20.0, "expected turns"))
    assert bar.bar.levels() == (0.0, 20.0)
    bar.show_scale(None)
    assert bar.bar.levels() == (0.0, 1.0)


def test_solver_panel_buttons_follow_the_state(qtbot):
    p = SolverPanel()
    qtbot.addWidget(p)
    p.show_state("ready", method="vi", next_phase="", has_model=True)
    assert p.step.isEnabled() and p.run.isEnabled() and not p.pause.isEnabled()
    assert not p.evaluate.isVisibleTo(p)
    p.show_state("running", method="vi", next_phase="", has_model=True)
    assert not p.step.isEnabled() and p.pause.isEnabled()
    p.show_state("paused", method="pi", next_phase="improve", has_model=True)
    assert p.improve.isEnabled() and not p.evaluate.isEnabled() and p.evaluate.isVisibleTo(p)
    p.show_state("converged", method="vi", next_phase="", has_model=True)
    assert not p.step.isEnabled() and not p.run.isEnabled() and p.reset.isEnabled()
    p.show_state("empty", method="vi", next_phase="", has_model=False)
    assert not p.reset.isEnabled()


def test_solver_panel_tolerance_input(qtbot):
    p = SolverPanel()
    qtbot.addWidget(p)
    got, errors = [], []
    p.tolerance_changed.connect(got.append)
    p.invalid_input.connect(errors.append)
    p.tolerance.setText("1e-6")
    p.tolerance.editingFinished.emit()
    assert got == [1e-6] and p.tol == 1e-6
    p.tolerance.setText("abc")
    p.tolerance.editingFinished.emit()
    assert errors and "not a number" in errors[0] and p.tolerance.text() == "1e-06" and p.tol == 1e-6
    assert parse_tolerance(" 2e-3 ") == 2e-3
    with pytest.raises(ValueError, match="positive"):
        parse_tolerance("-1")


def test_inspector_shows_and_clears(qtbot):
    from mdpviz.models.kit.pictures.display import ActionBackup, Inspection

    ins = Inspector()
    qtbot.addWidget(ins)
    assert ins.q_values == {}
    ins.show_inspection(Inspection("square 2 after sweep 1", 1.0,
                                   (ActionBackup(0, "die 1", 2.0, "... = 2.0000", False),
                                    ActionBackup(1, "die 2", 1.5, "... = 1.5000", True)), "min", 1.0))
    assert ins.q_values == {0: 2.0, 1: 1.5}
    assert "die 2: Q = 1.5000" in ins.text.toPlainText()
    ins.show_inspection(None, hint="Click a square")
    assert ins.q_values == {} and "Click a square" in ins.text.toPlainText()


def test_simulation_panel_table_and_histogram(qtbot, tmp_path):
    sp = SimulationPanel()
    qtbot.addWidget(sp)
    rng = np.random.default_rng(1)
    a = rng.integers(5, 30, 500)
    rows = [StrategyRow("optimal", 12.0, float(a.mean()), 0.3, a), StrategyRow("risky", 16.0, 16.1, 0.2, a + 4)]
    sp.show_running(True, "Simulating")
    assert sp.cancel.isEnabled() and not sp.simulate.isEnabled()
    sp.show_progress(1, 2, "optimal done")
    assert sp.progress.value() == 1 and sp.progress.maximum() == 2
    sp.show_running(False)
    sp.show_results(rows, unit="turns", start="square 1")
    assert sp.table.rowCount() == 2
    assert [sp.table.item(0, j).text() for j in range(5)] == ["optimal", "12.000", f"{a.mean():.3f}", "\u00b10.300",
                                                               "yes" if abs(a.mean() - 12) <= 0.3 else "no"]
    assert sp.table.item(1, 4).text() == "yes"
    assert len(sp.hist_plot.listDataItems()) == 2
    assert sp.export_csv.isEnabled() and sp.export_plot.isEnabled()
    sp.export_plot_to(tmp_path / "h.png")
    assert (tmp_path / "h.png").stat().st_size > 1000
    sp.clear("gone")
    assert sp.table.rowCount() == 0 and sp.status.text() == "gone" and not sp.export_csv.isEnabled()


def test_episode_player_steps_and_reports_positions(qtbot):
    player = EpisodePlayer()
    qtbot.addWidget(player)
    positions = []
    player.position_changed.connect(positions.append)
    moves = [Move(0, 2, "die 3 rolled 2: square 1 -> 3", 2, 1.0, 1.0, "die 3: 2"),
             Move(2, 2, "die 3 rolled 3: square 3 -> 13", 12, 1.0, 2.0),
             Move(12, 1, "die 2 rolled 2: square 13 -> 15", 14, 1.0, 3.0)]
    player.show_episode(moves, start_state=0, unit="turns", names={0: "square 1"}, header="optimal:")
    assert positions[-1] == (0, "0 turns", 0) and player.log.count() == 3
    player.step()
    assert positions[-1] == (2, "die 3: 2 \u00b7 1 turn", 0) and player.log.currentRow() == 0
    player.step()
    player.step()
    assert positions[-1] == (14, "3 turns", 12) and "finished" in player.status.text()
    assert not player.step_btn.isEnabled()
    player.seek(-1)
    assert positions[-1] == (0, "0 turns", 0) and player.rewind.isEnabled() is False
    player.clear()
    assert positions[-1] is None and player.log.count() == 0


def test_convergence_plot_extend_draws_what_append_draws(qtbot, history):
    """The window hands the plot each delivery at once (extend); the curves are the same as one
    append per sweep, across the arrays' growth and a reset."""
    one, many = ConvergencePlot(), ConvergencePlot()
    qtbot.addWidget(one)
    qtbot.addWidget(many)
    for plot in (one, many):
        plot.reset(tol=1e-9)
    sweeps = list(history) * 30  # past the first capacity (256) and SYMBOL_MAX_POINTS
    for sw in sweeps:
        one.append(sw)
    for k in range(0, len(sweeps), 97):
        many.extend(sweeps[k:k + 97])
        assert many.stale
        many.refresh()
    one.refresh()
    assert not many.stale and many.point_count == one.point_count == len(sweeps)
    for name in ("max_curve", "mean_curve", "changes_curve", "zero_marks", "improve_marks"):
        a, b = getattr(one, name), getattr(many, name)
        for u, v in ((a.xData, b.xData), (a.yData, b.yData)):
            assert (u is None) == (v is None)
            if u is not None:
                assert np.array_equal(np.asarray(u, float), np.asarray(v, float), equal_nan=True)
    assert one.y_range == many.y_range and one.x_range == many.x_range
    many.reset(tol=None)
    many.extend(sweeps[:3])
    many.refresh()
    assert many.point_count == 3 and many.max_curve.yData.tolist() == [sw.delta for sw in sweeps[:3]]
