"""The classroom view of every game (issue 13): a convergence plot that tells the truth about the run on
screen, panels that apply, a window that fits a laptop and a projector, and an animated GIF export.

Parametrised over the registry's games (``mdpviz.models.kit.game.registry.keys()``), so a new game is checked the same way."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSize

from mdpviz.app import MainWindow, default_size
from mdpviz.core.jobs import drive
from mdpviz.widgets.game import PANELS
from mdpviz.widgets.games import default_games
from mdpviz.models.kit.game.registry import keys
from tests.conftest import FakeDialogs, make_window, wait_laid_out, wait_model

GAME_KEYS = list(keys())  # every registered game

SMALL_MDP = """numStates 4
numActions 2
end 0
transition 1 0 2 1 0.5
transition 1 0 1 0 0.5
transition 1 1 3 2 1.0
transition 2 0 0 5 1.0
transition 2 1 1 0 1.0
transition 3 0 0 1 1.0
transition 3 1 2 0 1.0
mdptype episodic
discount 0.9
"""
"""Four states, state 0 terminal (as in the course's episodic-mdp-10-5): the default start must be 1."""

LAPTOP = QSize(1366, 768)
PROJECTOR = QSize(1280, 720)


@pytest.fixture
def window(qtbot, tmp_path):
    """Shown at laptop size; any error dialog fails the test."""
    w = make_window(qtbot, tmp_path / "settings.ini", dialogs=FakeDialogs(strict=True), size=(LAPTOP.width(), LAPTOP.height()), show=True)
    yield w
    w.shutdown()


def show_game(qtbot, w: MainWindow, key: str, tmp_path: Path, *, wait: bool = True) -> bool:
    """Show game ``key`` with a model ready to solve (``wait``: until its model is compiled); False when
    the game has no MDP (it learns)."""
    if key == "file":
        p = tmp_path / "small.txt"
        p.write_text(SMALL_MDP)
        w.files.open_mdp_file(p)
    else:
        w.switch_game(key)
    if not w.game.panels >= {"solver", "convergence"}:
        return False
    if not wait:  # the layout does not depend on the model (checkers compiles on the job thread meanwhile)
        return True
    # the shown game's own model, built and loaded (the window's first game is loaded and "ready" already: a
    # solve asked for before the switch's compile ends ran on it, and the new model's load then reset the run)
    wait_model(w, qtbot)
    qtbot.waitUntil(lambda: w.controller.mdp is not None and w.controller.mdp is w.game.session.mdp()
                    and w.controller.state == "ready", timeout=120_000)
    return True


def solve(qtbot, w: MainWindow) -> None:
    with qtbot.waitSignal(w.controller.finished, timeout=120_000):
        w.solving.run_solver()
    w.convergence.refresh()


def step(qtbot, w: MainWindow) -> None:
    n = len(w.controller.history)
    w.solving.step()
    qtbot.waitUntil(lambda: len(w.controller.history) > n and w.controller.state != "stepping", timeout=60_000)
    w.convergence.refresh()


# ---------------------------------------------------------------------------------- the convergence plot
@pytest.mark.parametrize("key", GAME_KEYS)
def test_plot_has_one_point_per_sweep_final_sweep_included(qtbot, window, key, tmp_path):
    w = window
    if not show_game(qtbot, w, key, tmp_path):
        assert w.conv_stack.currentWidget() is not w.convergence  # its own plot (the learning curve)
        pytest.skip(f"{key}: no sweeps (the game learns; its curve is the learning curve)")
    plot = w.convergence
    assert plot.point_count == 0 and not plot.legend.items  # before the first sweep: only the axes' names
    solve(qtbot, w)
    hist = w.controller.history
    assert hist[-1].converged
    assert plot.point_count == len(hist)
    y = np.asarray(plot.max_curve.yData, dtype=float)
    assert np.isfinite(y).all() and (y > 0).all()  # every sweep is drawn, a zero change too (at the "0" tick)
    if hist[-1].delta == 0:  # the final sweep changed nothing: drawn at the bottom, below the tolerance line
        assert plot.zero_level is not None and plot.zero_marks.xData[-1] == len(hist)
        assert np.log10(y[-1]) == pytest.approx(plot.zero_level)
        if plot.tol_line.isVisible():
            assert plot.zero_level < plot.tol_line.value()
    lo, hi = plot.y_range
    assert lo < np.log10(y).min() and np.log10(y).max() < hi


SOLVED_IN_ONE_SWEEP = {
    "baird": "Baird's counterexample pays 0 on every transition (Example 11.1): V = 0, the first sweep converges",
}
"""Games whose default solve ends after its first sweep, so no shorter run exists (checked: all values 0)."""


@pytest.mark.parametrize("key", GAME_KEYS)
def test_plot_range_follows_the_current_run(qtbot, window, key, tmp_path):
    w = window
    if not show_game(qtbot, w, key, tmp_path):
        pytest.skip(f"{key}: no sweeps")
    solve(qtbot, w)
    if w.session.game.drives_steps:
        # Run keeps computing rounds, and each new round resets the solver with its own MDP: stop
        # them (and let the last round's solve end) so that no round lands after the resets below
        w.session.driver.pause()
        qtbot.waitUntil(lambda: not w.session.driver.running()
                        and w.controller.state not in ("running", "stepping"), timeout=120_000)
        w.convergence.refresh()
    hist = w.controller.history
    long_run = len(hist)
    if key in SOLVED_IN_ONE_SWEEP:  # no shorter run to draw: the one sweep is drawn, at its number
        assert long_run == 1 and not np.any(np.asarray(hist[-1].values)), SOLVED_IN_ONE_SWEEP[key]
        assert w.convergence.x_range == (0.5, 1.5)
        return
    # the axis ends at the last sweep: its number, or the step count where steps share a round's number
    assert w.convergence.x_range == (0.5, max(long_run, hist[-1].iteration) + 0.5)
    if w.session.game.drives_steps:
        # Anti-tic-tac-toe's Step is a whole best-response round, solved at once on Reset: the short
        # run here is one sweep of the same round's MDP, stepped through the controller itself.
        w.controller.reset(w.game.session.mdp(), w.solver_panel.method, **w.solving.solver_options())
    else:
        w.solving.reset_solver()
    qtbot.waitUntil(lambda: w.controller.state == "ready", timeout=60_000)
    w.convergence.refresh()
    assert w.convergence.point_count == 0
    if w.session.game.drives_steps:
        w.controller.step()
        qtbot.waitUntil(lambda: len(w.controller.history) == 1 and w.controller.state != "stepping", timeout=60_000)
        w.convergence.refresh()
    else:
        step(qtbot, w)  # the short run: one Step (one sweep; policy iteration's evaluate and improve)
    short = len(w.controller.history)
    assert 1 <= short <= 2 and short < long_run
    assert w.convergence.x_range == (0.5, short + 0.5)  # the long run's axis is gone


def test_sweep_axis_has_whole_numbers_only(qtbot):
    from mdpviz.widgets.convergence import IntegerAxis, ZeroLogAxis

    ax = IntegerAxis("bottom")
    ticks = [v for _, vals in ax.tickValues(0.5, 5.5, 600) for v in vals]
    assert ticks and all(float(v).is_integer() for v in ticks)
    assert ax.tickStrings([1.0, 2.0], 1.0, 1.0) == ["1", "2"]
    assert not ax.autoSIPrefix
    log = ZeroLogAxis("left")
    log.setLogMode(False, True)
    log.zero_level = -12.0
    values = [v for _, vals in log.tickValues(-12.4, 1.0, 300) for v in vals]
    assert -12.0 in values and log.tickStrings([-12.0], 1.0, 1.0) == ["0"]
    assert not log.autoSIPrefix


def test_a_short_log_axis_in_a_large_font_still_labels_two_decades(qtbot):
    """Presenter mode at 1280x720: the |dV| axis is ~70 px tall in an 18-px font. It once labelled
    only its top decade (nothing to read the curve's magnitudes against)."""
    from PySide6.QtGui import QFont

    from mdpviz.widgets.convergence import ZeroLogAxis

    log = ZeroLogAxis("left")
    log.setLogMode(False, True)
    font = QFont()
    font.setPixelSize(18)
    log.setStyle(tickFont=font)
    values = [v for _, vals in log.tickValues(-11.15, 0.15, 70.8) for v in vals]
    assert len(values) >= 2 and 0.0 in values and all(float(v).is_integer() for v in values)
    px = 70.8 / 11.3 * min(b - a for a, b in zip(values, values[1:]))
    assert px >= 2.5 * 18  # never crowded: a label's height and a half between two labels
    # a tall axis labels more decades, at the same spacing rule
    tall = [v for _, vals in log.tickValues(-11.15, 0.15, 400) for v in vals]
    assert len(tall) > len(values)
    # with exact zeros drawn ("0" two decades below the rest): the "0" label keeps the same room
    log.zero_level = -12.0  # tic-tac-toe's run: |dV| from 10^4 down to 0, tolerance 1e-9
    values = [v for _, vals in log.tickValues(-12.4, 4.15, 62.0) for v in vals]
    assert values[0] == -12.0 and 4.0 in values
    px = 62.0 / 16.55 * min(b - a for a, b in zip(values, values[1:]))
    assert px >= 2.5 * 18, values


def test_a_legend_that_grows_a_row_never_covers_the_curves_even_before_the_next_event(qtbot):
    """The legend's row is resized at once: a picture taken right after the legend changed (a lesson
    export, a GIF frame) once showed its second row over the curves until the event loop ran."""
    from mdpviz.widgets.convergence import ConvergencePlot

    p = ConvergencePlot()
    qtbot.addWidget(p)
    p.resize(600, 220)
    p.set_font_size(18)  # presenter mode
    p.reset(tol=1e-9)
    wait_laid_out(qtbot, p)
    p._update_legend(True, False, False)  # five entries: two rows at this width
    rows, legend_bottom, plot_top = (p.legend.columnCount < len(p.legend.items), p.legend.sceneBoundingRect().bottom(),
                                     p.top.vb.sceneBoundingRect().top())
    assert rows and legend_bottom <= plot_top + 1, (legend_bottom, plot_top)


def test_policy_iteration_marks_its_improvements(qtbot, window, tmp_path):
    w = window
    show_game(qtbot, w, "snakes", tmp_path)
    w.solver_panel.set_method("pi")
    qtbot.waitUntil(lambda: w.controller.state == "ready" and w.controller.method == "pi", timeout=60_000)
    solve(qtbot, w)
    phases = [sw.phase for sw in w.controller.history]
    def count(item) -> int:
        return 0 if item.xData is None else int(item.xData.size)

    # every improvement step is marked: a square, or the "0" triangle where its residual is exactly 0
    assert count(w.convergence.improve_marks) + count(w.convergence.zero_marks) >= phases.count("improve") > 0
    labels = [label.text for _, label in w.convergence.legend.items]
    assert "improve: residual" in labels and "evaluate: max |dV|" in labels


def test_a_thinned_run_is_drawn_at_its_sweeps(qtbot, window, monkeypatch):
    """Past the first snapshots a Run takes one snapshot per many sweeps: the axis still counts sweeps
    (each point at its own sweep's number, up to the last), and a policy change is marked at its sweep."""
    from mdpviz import controller
    from mdpviz.core.examples import resolve_mdp

    monkeypatch.setattr(controller, "RUN_RECORD_ALL", 20)
    w = window
    w.files.open_mdp_file(resolve_mdp("episodic-mdp-10-5"))
    w.solver_panel.set_method("vi")
    qtbot.waitUntil(lambda: w.controller.state == "ready" and w.controller.method == "vi", timeout=60_000)
    solve(qtbot, w)
    hist = w.controller.history
    sweeps = np.array([sw.iteration for sw in hist], dtype=float)
    plot = w.convergence
    assert hist[-1].converged and plot.point_count == len(hist) < sweeps[-1]  # thinned: fewer snapshots than sweeps
    assert np.array_equal(plot.max_curve.xData, sweeps)
    assert plot.x_range == (0.5, sweeps[-1] + 0.5)
    changed = np.array([sw.policy_changes for sw in hist])
    x, y = np.asarray(plot.changes_curve.xData), np.asarray(plot.changes_curve.yData)
    assert np.array_equal(np.unique(x[y > 0]), sweeps[changed > 0]) and changed.any()


# ---------------------------------------------------------------------------------- panels and sizes
@pytest.mark.parametrize("key", GAME_KEYS)
def test_presenter_on_then_off_leaves_the_same_tab_bars(qtbot, window, key, tmp_path):
    w = window
    show_game(qtbot, w, key, tmp_path, wait=False)
    qtbot.waitUntil(lambda: bool(w.view.visible_tab_bars()))
    before = w.view.visible_tab_bars()
    for _ in range(2):  # each round trip once left one more stray tab bar
        w.view.set_presenter(True)
        qtbot.waitUntil(lambda: len(w.view.visible_tab_bars()) == 1)
        w.view.set_presenter(False)
        qtbot.waitUntil(lambda: w.view.visible_tab_bars() == before)
    assert w.view.visible_tab_bars() == before
    assert all(w.docks[n].isHidden() for n in set(w.docks) - set(w.game.panels))


@pytest.mark.parametrize("key", GAME_KEYS)
def test_window_fits_a_laptop_and_a_projector(qtbot, window, key, tmp_path):
    w = window
    show_game(qtbot, w, key, tmp_path, wait=False)
    hint = w.minimumSizeHint()
    assert hint.width() <= LAPTOP.width() and hint.height() <= LAPTOP.height(), hint
    w.view.set_presenter(True)
    hint = w.minimumSizeHint()
    assert hint.width() <= PROJECTOR.width() and hint.height() <= PROJECTOR.height(), hint
    w.view.set_presenter(False)


@pytest.mark.parametrize("key", ["ttt3d", "ttt"])
def test_the_position_mode_box_is_never_cut(qtbot, window, key, tmp_path):
    """Beside the cube in presenter mode at 1280x720 the box read "Walk the game tre"."""
    w = window
    show_game(qtbot, w, key, tmp_path, wait=False)
    board = w.stage.game_boards[key]
    combo = board.mode_combo
    for presenter, size in ((False, LAPTOP), (True, PROJECTOR)):
        w.view.set_presenter(presenter)
        w.resize(size)
        qtbot.waitUntil(lambda: combo.isVisible() and combo.width() >= combo.sizeHint().width(), timeout=10_000)
        text_px = combo.fontMetrics().horizontalAdvance(combo.itemText(0))
        assert combo.width() > text_px, (presenter, combo.width(), text_px)
    w.view.set_presenter(False)


@pytest.mark.parametrize("key", ["ttt", "risk_ttt", "checkers"])
def test_presenter_mode_reads_two_decades_of_dv(qtbot, window, key, tmp_path):
    """Presenter mode at 1280x720: the board games' |dV| plot was ~45 px tall with one "0" tick (its
    legend two rows tall). Its axis labels two decades besides the "0", on a plot as tall as that
    needs, with the counts plot below it still readable and the legend one line tall."""
    from mdpviz.widgets.convergence import LOG_AXIS_LINES
    from mdpviz.window.parts import PRESENTER_PLOT_PX as px

    w = window
    show_game(qtbot, w, key, tmp_path)
    solve(qtbot, w)
    w.resize(PROJECTOR)
    w.view.set_presenter(True)
    plot = w.convergence
    wait_laid_out(qtbot, w)  # the docks are sized at the next turn of the event loop
    top, bottom = plot.top.vb, plot.bottom.vb
    ticks = [v for _, vals in plot.left_axis.tickValues(*top.viewRange()[1], top.height()) for v in vals]
    decades = [v for v in ticks if plot.zero_level is None or v != plot.zero_level]
    assert len(decades) >= 2, (ticks, top.height())
    assert top.height() >= LOG_AXIS_LINES * px and bottom.height() >= 2 * px, (top.height(), bottom.height())
    row = max(label.boundingRect().height() for _, label in plot.legend.items)
    assert plot.top.layout.rowMinimumHeight(0) < 1.5 * row  # one line of legend entries
    w.view.set_presenter(False)


def test_default_size_fits_the_screen():
    laptop = default_size(QSize(1366, 738))  # a 1366x768 screen with a 30-pixel task bar
    assert laptop.width() <= 1366 and laptop.height() + 40 <= 738
    assert default_size(QSize(1920, 1050)) == QSize(1600, 900)


def test_games_declare_known_panels():
    for g in default_games():
        assert g.panels <= PANELS, (g.key, g.panels - PANELS)
        assert "game" in g.panels


def test_panels_follow_the_game(qtbot, window, tmp_path):
    w = window
    w.switch_game("ttt3d")  # no MDP: no solver, inspector, episode player or comparison
    for name in ("solver", "inspector", "player"):
        assert w.docks[name].isHidden() and not w.docks[name].toggleViewAction().isEnabled()
    assert not w.stage.central_tabs.isTabVisible(w.stage.central_tabs.indexOf(w.stage.pages["compare"]))
    assert not w.convergence_dock.isHidden()  # its learning curve
    w.switch_game("snakes")
    assert not any(d.isHidden() for d in w.docks.values())
    w.inspector_dock.close()  # closed by the user: stays closed through a game that hides it
    w.switch_game("ttt3d")
    w.switch_game("snakes")
    assert w.inspector_dock.isHidden() and not w.solver_dock.isHidden()


def test_risk_4x4_has_no_plot(qtbot, window):
    w = window
    w.switch_game("risk_ttt")
    assert not w.convergence_dock.isHidden()
    w.game.set_size(4)
    assert w.convergence_dock.isHidden() and w.solver_dock.isHidden()
    w.game.set_size(3)
    assert not w.convergence_dock.isHidden()


def test_results_pages_take_the_plot_room(qtbot, window):
    w = window
    w.stage.show_page("simulation")
    assert w.convergence_dock.isHidden()
    w.stage.show_page("board")
    assert not w.convergence_dock.isHidden()


# ---------------------------------------------------------------------------------- MDP files
def test_file_starts_in_the_first_live_state_and_forgets_the_old_selection(qtbot, window, tmp_path):
    w = window
    p = tmp_path / "small.txt"
    p.write_text(SMALL_MDP)
    w.files.open_mdp_file(p)
    g = w.game
    assert g.session.start_state() == 1  # state 0 is terminal
    g.editor().start.setValue(3)
    assert g.session.start_state() == 3
    w.solving.inspect(2)
    assert w.solving.selected == 2
    q = tmp_path / "other.txt"
    q.write_text(SMALL_MDP.replace("discount 0.9", "discount 0.8"))
    w.files.open_mdp_file(q)
    assert w.solving.selected is None and g.session.start_state() == 1  # a new file: its own default start, no old selection
    solve(qtbot, w)
    result = drive(g.session.game.simulation(w.playing.current_policy(), games=200, seed=1))  # the job generator, stepped here
    assert result.start == "state 1" and all(r.exact != 0 for r in result.rows)


# ---------------------------------------------------------------------------------- animated GIF
def test_animated_gif_has_one_frame_per_sweep(qtbot, tmp_path):
    from PIL import Image

    from mdpviz import export as ex

    ex.ensure_app()
    game = next(g for g in default_games() if g.key == "snakes")
    solved = ex.solve_game(game)
    path = ex.export_sweep_gif(game, solved, tmp_path / "sweeps.gif", width=480, height=270)
    with Image.open(path) as im:
        assert im.format == "GIF" and im.size == (480, 270)
        assert im.n_frames == len(solved.history)  # snakes: 30 sweeps, under MAX_GIF_FRAMES
        assert im.info.get("loop") == 0
    few = ex.export_sweep_gif(game, solved, tmp_path / "few.gif", width=480, height=270, max_frames=5)
    with Image.open(few) as im:
        assert im.n_frames == len(ex.frame_indices(len(solved.history), 5)) == 5  # a stated subsample
    with pytest.raises(ValueError, match=r"\.gif"):
        ex.gif_path(tmp_path / "sweeps.png")
    game.deleteLater()


def test_export_command_writes_a_gif(tmp_path, capsys):
    from PIL import Image

    from mdpviz.cli import main

    out = tmp_path / "snakes.gif"
    assert main(["export", "--game", "snakes", "--figure", "gif", "--out", str(out), "--width", "400",
                 "--height", "240"]) == 0
    with Image.open(out) as im:
        assert im.format == "GIF" and im.size == (400, 240) and im.n_frames == 30
    assert "30 frames" in capsys.readouterr().out


BOARD_GAMES = [k for k in ("ttt", "risk_ttt", "attt", "checkers", "ttt3d") if k in GAME_KEYS]


@pytest.mark.parametrize("key", BOARD_GAMES)
def test_the_position_controls_are_read_whole_and_never_overlap(qtbot, window, key, tmp_path):
    """Risk tic-tac-toe's play controls read "Play vs ageyou play" and "Hide hin" at 1366x768 and in presenter
    mode, and anti-tic-tac-toe's "Hide hints" sat over its mode box: in both modes, at both sizes, each shown
    control of the row under the board is at least as wide as it asks, inside the board, and over no other."""
    from mdpviz.widgets.position.board import PLAY, WALK

    w = window
    show_game(qtbot, w, key, tmp_path, wait=False)
    board = w.stage.game_boards[key]
    qtbot.waitUntil(lambda: board.walk is not None, timeout=120_000)  # checkers compiles its model first
    controls = [board.mode_combo, board.human_caption, board.human_combo, board.first_caption, board.first_combo,
                board.hide_check]
    for presenter, size in ((False, LAPTOP), (True, PROJECTOR)):
        w.view.set_presenter(presenter)
        w.resize(size)
        for mode in (WALK, PLAY):
            board.set_mode(mode)
            qtbot.waitUntil(lambda: board.mode_combo.isVisible())
            wait_laid_out(qtbot, w)
            shown = [c for c in controls if c.isVisible()]
            assert len(shown) == (6 if mode == PLAY else 2)
            rects = {c.accessibleName() or c.text(): c.geometry().translated(c.parentWidget().mapTo(board, c.parentWidget().rect().topLeft()))
                     for c in shown}
            for c, (name, r) in zip(shown, rects.items()):
                assert c.width() >= c.minimumSizeHint().width(), (presenter, mode, name, c.width(), c.minimumSizeHint())
                if not hasattr(c, "currentText"):  # a label or the check box: its whole text
                    assert c.width() >= c.sizeHint().width(), (presenter, mode, name, c.width(), c.sizeHint())
                assert board.rect().contains(r), (presenter, mode, name, r, board.rect())
            names = list(rects)
            for i, a in enumerate(names):
                for b in names[i + 1:]:
                    assert not rects[a].intersects(rects[b]), (presenter, mode, a, rects[a], b, rects[b])
    w.view.set_presenter(False)


@pytest.mark.parametrize("first", ["normal", "presenter"])
def test_presenter_mode_leaves_the_game_dock_as_wide_as_before(qtbot, window, first):
    """The grid world's editor first shown in presenter mode kept its combo boxes' projector widths after it
    (a QComboBox's cached minimum size hint): the Game dock went from 343 to 436 px for good and the window
    stayed 1288-1309 px wide on a 1280 projector, its right dock cut."""
    from PySide6.QtWidgets import QComboBox

    w = window
    before = w.stage.game_scroll.minimumWidth()
    if first == "normal":
        w.switch_game("gridworld")
    w.resize(PROJECTOR)
    w.view.set_presenter(True)
    if first == "presenter":
        w.switch_game("gridworld")
    wait_laid_out(qtbot, w)
    w.view.set_presenter(False)
    wait_laid_out(qtbot, w)
    editor = w.stage.game_scroll.widget()
    for combo in editor.findChildren(QComboBox):  # each as wide as a new one with its items in today's font
        fresh = QComboBox()
        fresh.setFont(combo.font())
        fresh.setSizeAdjustPolicy(combo.sizeAdjustPolicy())
        fresh.setMinimumContentsLength(combo.minimumContentsLength())
        fresh.addItems([combo.itemText(i) for i in range(combo.count())])
        assert combo.minimumSizeHint().width() == fresh.minimumSizeHint().width(), (combo.objectName(), combo.minimumSizeHint())
    assert w.stage.game_scroll.minimumWidth() == before
    w.view.set_presenter(True)
    w.resize(PROJECTOR)
    wait_laid_out(qtbot, w)
    assert w.minimumSizeHint().width() <= PROJECTOR.width() and w.width() <= PROJECTOR.width(), (w.width(), w.minimumSizeHint())
    # and the editor, measured in the projector's font, is not cut by the right-hand column
    assert editor.minimumSizeHint().width() <= w.stage.game_scroll.viewport().width(), (editor.minimumSizeHint(), w.stage.game_scroll.viewport().width())
    w.view.set_presenter(False)
