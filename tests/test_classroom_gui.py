"""Classroom features in the window: the lesson panel, the compare panel (on the job thread),
predict-then-reveal, the delta view, presenter polish and exports (tier 3: controls driven through
their own methods, dialogs replaced).

Run as a script to save the screenshots of these features:
``python tests/test_classroom_gui.py OUT_DIR`` (see :func:`take_screenshots`).
"""
from __future__ import annotations

import csv
import io
import os
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("MDPVIZ_SETTINGS_ORG", "mdpviz-tests")

import numpy as np
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QImage, QPalette

from mdpviz.app import MainWindow
from mdpviz.solvers import solve
from mdpviz.solvers import compare as compare_solver
from mdpviz.widgets.board import EMPTY_FILL
from mdpviz.widgets.delta import DELTA_LABEL, format_delta
from mdpviz.widgets.game_board import GameBoard
from tests.conftest import LAYOUT, SMALL_MDP, FakeDialogs

def snakes_with_layout(qtbot, w: MainWindow):
    g = w.stage.game_by_key("snakes")
    g.session.edit(replace(g.cfg, layout=LAYOUT), "layout")
    qtbot.waitUntil(lambda: w.controller.state == "ready")
    return g


def step(qtbot, w: MainWindow, n: int = 1) -> None:
    for _ in range(n):
        k = len(w.controller.history)
        w.solving.step()
        qtbot.waitUntil(lambda: len(w.controller.history) > k)
    w.solving.redraw()


def lesson_text(w: MainWindow) -> str:
    return w.classroom.lesson_panel.browser.toPlainText()


# ---------------------------------------------------------------------------------- lesson panel
def test_lesson_panel_shows_the_current_discount(qtbot, window, tmp_path):
    w = window
    assert "Snakes and ladders" in lesson_text(w) and "\u03b3 = 1" in lesson_text(w)
    path = tmp_path / "small.txt"
    path.write_text(SMALL_MDP)
    w.files.open_mdp_file(path)
    assert "MDP from file: small.txt" in lesson_text(w) and "\u03b3 = 0.9" in lesson_text(w)
    w.solver_panel.discount.setValue(0.5)  # the discount box -> the game's edit -> a new lesson
    assert w.game.session.mdp().discount == 0.5
    text = lesson_text(w)
    assert "\u03b3 = 0.5" in text and "\u03b3 = 0.9" not in text
    assert "action 1: 1\u00b7(3 + 0.5\u00b7V(2))" in text  # the backup of state 0 with gamma = 0.5
    md = w.classroom.lesson_panel.copy_markdown()
    assert "\u03b3 = 0.5" in md and md.startswith("## MDP from file: small.txt")
    w.undo_group.undo()
    assert "\u03b3 = 0.9" in lesson_text(w)
    assert w.lesson_dock.objectName() == "lessonDock" and w.classroom.lesson_panel.copy_button.accessibleName()


# ---------------------------------------------------------------------------------- compare panel
def test_compare_runs_on_the_job_thread_and_the_table_equals_solve(qtbot, window, monkeypatch):
    w = window
    snakes_with_layout(qtbot, w)
    threads = []
    real = compare_solver.compare_job

    def spy(*args, **kwargs):
        threads.append(threading.current_thread() is threading.main_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(compare_solver, "compare_job", spy)
    assert w.classroom.compare_methods()
    assert not w.stage.compare_panel.run_button.isEnabled() and w.stage.compare_panel.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: w.stage.compare_panel.comparison is not None, timeout=30_000)
    assert threads == [False]  # computed off the GUI thread
    comp = w.stage.compare_panel.comparison
    table = w.stage.compare_panel.table
    assert table.rowCount() == 4
    assert table.horizontalHeaderItem(3).text() == "V(square 1)"
    mdp = w.game.session.mdp()
    for i, method in enumerate(("vi", "gs", "pi", "lp")):
        opts = {"tol": w.solver_panel.tol} if method in ("vi", "gs") else {}
        single = solve(mdp, method, **opts)
        assert table.item(i, 3).text() == f"{float(single.values[0]):.10g}"
        np.testing.assert_allclose(comp.run(method).values, single.values, rtol=0, atol=1e-9)
        x, y = w.stage.compare_panel.chart.curves[method].getOriginalDataset()
        np.testing.assert_array_equal(x, comp.run(method).steps)
    assert "agree" in w.stage.compare_panel.agreement.text() and comp.agree
    w.stage.compare_panel.x_axis.setCurrentIndex(1)  # error vs wall time
    x, _ = w.stage.compare_panel.chart.curves["vi"].getOriginalDataset()
    np.testing.assert_allclose(x, comp.run("vi").times * 1000.0)
    assert w.stage.compare_panel.run_button.isEnabled() and w.stage.compare_panel.csv_button.isEnabled()


def test_an_edit_discards_a_stale_comparison(qtbot, window):
    w = window
    g = snakes_with_layout(qtbot, w)
    w.classroom.compare_methods()
    g.set_square(5, 0)  # the model changes while (or after) the comparison runs
    qtbot.waitUntil(lambda: not w.controller.job_busy, timeout=30_000)
    assert w.stage.compare_panel.comparison is None
    assert w.stage.compare_panel.run_button.isEnabled()


# ---------------------------------------------------------------------------------- predict, then reveal
def test_predict_then_reveal(qtbot, window):
    w = window
    snakes_with_layout(qtbot, w)
    step(qtbot, w, 2)
    b = w.board
    w.classroom.act_predict.trigger()
    w.solving.redraw()
    assert w.classroom.predict_mode and b.predict
    for s in range(14):
        assert b.cell_text(s) == ("?", "")
        assert b.cell_color(s).name() == EMPTY_FILL
    assert "hidden" in b.tooltip_text(6)
    rect = b.cell_rect(6)
    qtbot.mouseClick(b, Qt.MouseButton.LeftButton, pos=rect.center().toPoint())
    assert b.cell_text(6) == (b.frame.texts[6], b.frame.badges[6]) and b.frame.texts[6] != "?"
    assert b.cell_text(7) == ("?", "")
    assert w.solving.selected == 6  # the click also explains the backup in the inspector
    step(qtbot, w)  # a new sweep: ask the class again
    assert b.cell_text(6) == ("?", "") and w.solving.selected is None
    w.classroom.act_predict.trigger()
    w.solving.redraw()
    assert not b.predict and b.cell_text(6)[0] == b.frame.texts[6]
    for board in w.stage.game_boards.values():  # the board games' own boards get the same option
        w.classroom.set_predict_mode(True)
        assert getattr(board, "predict", True)
    w.classroom.set_predict_mode(False)


# ---------------------------------------------------------------------------------- delta view
def test_delta_view_colours_the_change_of_the_shown_sweep(qtbot, window):
    w = window
    snakes_with_layout(qtbot, w)
    step(qtbot, w, 3)
    w.classroom.act_delta.trigger()
    w.solving.redraw()
    hist = w.controller.history
    d = np.asarray(hist[2].values) - np.asarray(hist[1].values)
    frame = w.board.frame
    assert frame.texts[:14] == tuple(format_delta(float(x)) for x in d[:14])
    assert frame.texts[14] == ""
    assert w.color_bar.scale.label == DELTA_LABEL
    assert w.color_bar.scale.lo == pytest.approx(np.log10(w.solver_panel.tol))  # fixed: tolerance ..
    span = max(w.solving.scale.hi - w.solving.scale.lo, abs(w.solving.scale.hi), abs(w.solving.scale.lo))
    assert w.color_bar.scale.hi == pytest.approx(np.log10(span))  # .. value span
    big = int(np.argmax(np.abs(d[:14])))
    assert frame.fill[big] == pytest.approx(w.color_bar.scale.normalise(np.log10(abs(d[big]))))
    w.classroom.act_delta.trigger()
    w.solving.redraw()
    assert w.color_bar.scale == w.solving.scale
    assert w.board.frame.texts[0] == f"{hist[2].values[0]:.2f}"


def test_view_modes_reach_every_games_board(qtbot, window, tmp_path):
    """One drawing path: every game draws on its own GameBoard, and the window's delta view, Q view and
    presenter and contrast styles reach each one (a course file's cell board as snakes', the grid
    world's Q triangles follow the View menu's toggle)."""
    w = window
    path = tmp_path / "small.txt"
    path.write_text(SMALL_MDP)
    w.files.open_mdp_file(path)
    qtbot.waitUntil(lambda: w.controller.state == "ready")
    step(qtbot, w, 2)
    board = w.board
    assert board is w.stage.game_boards["file"] and board is not w.stage.game_boards["snakes"]
    w.classroom.act_delta.trigger()
    w.solving.redraw()
    hist, live = w.controller.history, ~w.controller.mdp.terminal
    d = np.asarray(hist[1].values) - np.asarray(hist[0].values)
    assert np.asarray(board.frame.texts)[live].tolist() == [format_delta(float(x)) for x in d[live]]
    assert w.color_bar.scale.label == DELTA_LABEL and board.shown_scale == w.color_bar.scale
    w.classroom.act_delta.trigger()
    w.classroom.act_q.trigger()
    assert board.q_values is not None and board.q_values.shape == (3, 2)
    w.switch_game("gridworld")  # built now: it starts with the window's Q view
    grid = w.board
    assert grid is w.stage.game_boards["gridworld"] and grid.q_box.isChecked() and grid.canvas.show_q
    w.classroom.act_q.trigger()
    assert not grid.canvas.show_q and board.q_values is None
    w.classroom.act_contrast.trigger()
    w.view.set_presenter(True)
    assert grid.canvas.line_scale == pytest.approx(1.6 * 1.4)
    assert (board.line_scale, board.text_scale, board.outline) == (pytest.approx(1.6 * 1.4), 1.3, "#000000")
    w.view.set_presenter(False)
    w.classroom.act_contrast.trigger()
    assert grid.canvas.line_scale == 1.0 and (board.line_scale, board.text_scale, board.outline) == (1.0, 1.0, "#444444")
    for key in w.stage.games.keys:
        assert isinstance(w.stage.game_boards[key], GameBoard), key


# ---------------------------------------------------------------------------------- presenter polish
def test_high_contrast_and_thick_lines(qtbot, window, tmp_path):
    w = window
    w.show()
    w.classroom.act_contrast.trigger()
    assert w.classroom.high_contrast and w.board.outline == "#000000"
    assert w.palette().color(QPalette.ColorRole.WindowText).name() == "#000000"
    assert w.palette().color(QPalette.ColorRole.Base).name() == "#ffffff"
    assert w.board.line_scale == pytest.approx(1.4)
    w.view.set_presenter(True)
    assert w.board.line_scale == pytest.approx(1.6 * 1.4)
    assert w.convergence.line_width == pytest.approx(2.0 * 1.6 * 1.4)
    assert w.stage.compare_panel.chart.line_width == pytest.approx(2.0 * 1.6 * 1.4)
    w.resize(1280, 720)
    assert w.minimumSizeHint().width() <= 1280 and w.minimumSizeHint().height() <= 720
    w.view.set_presenter(False)
    w.classroom.act_contrast.trigger()
    assert not w.classroom.high_contrast and w.board.line_scale == 1.0 and w.board.outline == "#444444"
    w.classroom.act_contrast.trigger()
    w.view.save_settings()
    w2 = MainWindow(dialogs=FakeDialogs(), settings=QSettings(w.settings.fileName(), QSettings.Format.IniFormat))
    qtbot.addWidget(w2)
    try:
        assert w2.classroom.high_contrast and w2.classroom.act_contrast.isChecked()
    finally:
        w2.shutdown()


# ---------------------------------------------------------------------------------- exports from the window
def test_exports_from_the_window(qtbot, window, tmp_path):
    w = window
    snakes_with_layout(qtbot, w)
    step(qtbot, w, 4)
    p = w.classroom.export_lesson(tmp_path / "lesson.png", width=800, height=450)
    img = QImage(str(p))
    assert (img.width(), img.height()) == (800, 450)
    s = w.classroom.export_lesson(tmp_path / "lesson.svg", width=640, height=360)
    assert 'width="640" height="360"' in s.read_text() and 'viewBox="0 0 640 360"' in s.read_text()
    rows = list(csv.DictReader(io.StringIO(w.classroom.export_results_csv(tmp_path / "v.csv").read_text())))
    shown = w.solving.shown_sweep()
    assert [float(r["value"]) for r in rows] == np.asarray(shown.values).tolist()
    with pytest.raises(ValueError, match="press Compare methods first"):
        w.classroom.export_comparison_csv(tmp_path / "c.csv")
    b = w.classroom.export_sized("board", tmp_path / "board.png", width=720, height=400)
    assert QImage(str(b)).size().toTuple() == (720, 400)
    c = w.classroom.export_sized("convergence", tmp_path / "conv.svg", width=700, height=300)
    assert 'width="700" height="300"' in c.read_text()
    hist = list(csv.DictReader(io.StringIO(w.classroom.export_history_csv(tmp_path / "h.csv").read_text())))
    assert [float(r["delta"]) for r in hist] == [sw.delta for sw in w.controller.history]
    # the export size menu, and the dialog path
    w.classroom.export_size_actions[(1280, 720)].trigger()
    assert w.classroom.export_size() == (1280, 720) and w.settings.value("export/size") == "1280x720"
    w.dialogs.save_path = str(tmp_path / "dialog.png")
    w.classroom.act_export_lesson.trigger()
    img = QImage(str(tmp_path / "dialog.png"))
    assert (img.width(), img.height()) == (1280, 720) and not w.dialogs.errors
    w.dialogs.save_path = str(tmp_path / "bad.gif")
    w.classroom.act_export_lesson.trigger()
    assert w.dialogs.errors and "export as .png or .svg" in w.dialogs.errors[-1][1]
    # the sweeps as a PNG sequence, written one frame per event-loop turn
    fw = w.classroom.export_frames(tmp_path / "frames" / "anim.png", width=400, height=240)
    with qtbot.waitSignal(fw.finished, timeout=30_000) as blocker:
        pass
    paths = blocker.args[0]
    assert len(paths) == len(w.controller.history) == 4
    assert [p.name for p in paths] == [f"anim_{i:04d}.png" for i in range(1, 5)]
    assert all(QImage(str(p)).size().toTuple() == (400, 240) for p in paths)


def test_export_needs_a_model(qtbot, window):
    w = window
    w.switch_game("file")
    with pytest.raises(ValueError, match="nothing to export"):
        w.classroom.export_lesson("x.png")


# ---------------------------------------------------------------------------------- screenshots
def take_screenshots(out: Path, qtbot=None) -> list[Path]:
    """Save the classroom screenshots into ``out``: the window with the lesson and the compare
    panel at its default size and at 1280 x 720 (presenter mode, high contrast), the delta view,
    predict-then-reveal, and a lesson snapshot export. Returns the paths."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    out.mkdir(parents=True, exist_ok=True)

    def wait(cond, timeout=60.0):
        end = time.perf_counter() + timeout
        while not cond():
            if time.perf_counter() > end:
                raise RuntimeError("timed out waiting for the window")
            app.processEvents()
            time.sleep(0.005)

    saved: list[Path] = []
    settings = QSettings(str(out / ".screenshot-settings.ini"), QSettings.Format.IniFormat)
    settings.clear()
    settings.setValue("solve/liveResolve", "false")  # the pictures step the solve after the edit themselves
    w = MainWindow(dialogs=FakeDialogs(), settings=settings)
    try:
        w.show()
        w.resize(1366, 820)
        wait(lambda: w.controller.state == "ready")
        g = w.stage.game_by_key("snakes")
        g.session.edit(replace(g.cfg, layout=LAYOUT), "layout")
        wait(lambda: w.controller.state == "ready")
        w.classroom.compare_methods()
        wait(lambda: w.stage.compare_panel.comparison is not None)
        for _ in range(6):
            n = len(w.controller.history)
            w.solving.step()
            wait(lambda: len(w.controller.history) > n)
        w.stage.show_page("compare")
        for name, setup in (("classroom-compare.png", lambda: None),
                            ("classroom-delta.png", lambda: w.classroom.set_delta_view(True)),
                            ("classroom-predict.png", lambda: (w.classroom.set_delta_view(False), w.classroom.set_predict_mode(True),
                                                               w.solving.redraw(), w.board.reveal(6), w.lesson_dock.raise_()))):
            setup()
            app.processEvents()
            w.solving.redraw()
            saved.append(out / name)
            w.grab().save(str(saved[-1]))
        w.classroom.set_predict_mode(False)
        w.view.set_presenter(True)
        w.classroom.set_high_contrast(True)
        w.resize(1280, 720)
        app.processEvents()
        w.lesson_dock.raise_()
        w.solving.redraw()
        saved.append(out / "classroom-presenter-1280x720.png")
        w.grab().save(str(saved[-1]))
        w.classroom.set_high_contrast(False)
        w.view.set_presenter(False)
        saved.append(w.classroom.export_lesson(out / "lesson-snapshot.png", width=1600, height=900))
    finally:
        w.shutdown()
        w.close()
        w.deleteLater()
        app.processEvents()
        Path(settings.fileName()).unlink(missing_ok=True)
    return saved


def test_screenshots(qtbot, tmp_path):
    paths = take_screenshots(tmp_path)
    sizes = [QImage(str(p)).size().toTuple() for p in paths]
    assert all(s[0] > 0 for s in sizes)
    assert sizes[-1] == (1600, 900)


if __name__ == "__main__":  # pragma: no cover
    for p in take_screenshots(Path(sys.argv[1] if len(sys.argv) > 1 else "classroom-screenshots")):
        print(p)
