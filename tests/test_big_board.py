"""Issue 35 item 10: a big board is painted as one image (no cell-by-cell painting, no timing asked),
a hovered point still maps to its state and value, and a file over a reader's budget says the budget."""
from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPointF

from mdpviz.core.files import read_bytes_limited
from mdpviz.widgets.board import BoardView
from mdpviz.widgets.board_image import IMAGE_MIN_STATES, lattice_of
from mdpviz.widgets.geometry import grid_layout
from tests.conftest import wait_model


def _course_file(path: Path, n: int) -> Path:
    lines = [f"numStates {n}", "numActions 2", "end -1"]
    for s in range(n):
        lines.append(f"transition {s} 0 {(s + 1) % n} {s % 7} 1")
        lines.append(f"transition {s} 1 {(s * 7 + 3) % n} 0.5 1")
    lines += ["mdptype continuing", "discount 0.9"]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_20000_state_course_file_paints_as_one_image(window, qtbot, tmp_path, monkeypatch):
    calls = {"cell": 0, "outlines": 0}
    paint_cell, paint_outlines = BoardView._paint_cell, BoardView._paint_outlines

    def count_cell(self, *a, **k):
        calls["cell"] += 1
        return paint_cell(self, *a, **k)

    def count_outlines(self, *a, **k):
        calls["outlines"] += 1
        return paint_outlines(self, *a, **k)

    from mdpviz.widgets import geometry

    built_on = []  # which thread laid the 20,000 cells out: the job's, not the GUI thread
    lay_out = geometry._grid_layout

    def record(n, *a, **k):
        built_on.append((n, threading.current_thread() is threading.main_thread()))
        return lay_out(n, *a, **k)

    geometry._plain_grid_layout.cache_clear()
    monkeypatch.setattr(geometry, "_grid_layout", record)
    monkeypatch.setattr(BoardView, "_paint_cell", count_cell)
    monkeypatch.setattr(BoardView, "_paint_outlines", count_outlines)
    p = _course_file(tmp_path / "big.txt", 20_000)
    assert window.files.open_mdp_file_in_background(p)
    g = window.stage.game_by_key("file")
    qtbot.waitUntil(lambda: g.fstate.path == str(p), timeout=120_000)
    mdp = wait_model(window, qtbot)
    assert mdp.n_states == 20_000
    with qtbot.waitSignal(window.controller.finished, timeout=120_000):  # solved: values on their scale
        window.solver_panel.run.click()
    window.solving.redraw()
    board = window.board
    assert isinstance(board, BoardView) and board.uses_image()
    board.resize(800, 600)
    before = board.image_paints
    board.grab()  # paints now
    assert board.image_paints == before + 1
    assert calls["cell"] == 0 and calls["outlines"] == 0
    # a point over a cell maps to that cell's state, and the tooltip shows its value
    for state in (0, 137, 19_999):
        r = board.cell_rect(state)
        assert not r.isEmpty()
        assert board.state_at(r.center()) == state
        assert board.frame is not None, "the open file's board shows a frame"
        if not np.isnan(board.frame.fill[state]):
            assert f"value {board.frame.values[state]:.10g}" in board.tooltip_text(state)
    assert board.state_at(QPointF(1, 1)) is None
    # each pixel of the image is its cell's colour on the frame's scale (the per-cell painter's colour)
    lat = lattice_of(board.layout_)
    rgba = board._image_rgba(lat)
    for state in (0, 1, 6, 999, 19_999):
        row, col = np.argwhere(lat.states == state)[0]
        c = board.cell_color(state)
        assert tuple(int(v) for v in rgba[row, col]) == (c.red(), c.green(), c.blue(), 255)
    assert len({tuple(rgba[0, col, :3]) for col in range(7)}) > 1  # rewards 0..6: not one colour
    assert [on_gui for n, on_gui in built_on if n == 20_000] == [False]  # once, on the job thread
    assert "_lattice" in board.layout_.__dict__ and board.layout_ is geometry.grid_layout(20_000)
    assert window.dialogs.errors == []


def test_the_image_is_the_colour_of_each_cell(qtbot):
    from mdpviz.widgets.board import CellDecor

    b = BoardView()
    qtbot.addWidget(b)
    n = IMAGE_MIN_STATES + 1
    b.set_board(grid_layout(n), {3: CellDecor("", "#555555", "end", goal=True)})
    lat = lattice_of(b.layout_)
    assert lat is not None and (lat.states >= 0).sum() == n

    def pixels_are_cell_colours() -> None:
        rgba = b._image_rgba(lat)
        for s in [3, 5, n - 1, *range(0, n, 97)]:  # (3: the goal, 5: unvisited)
            row, col = np.argwhere(lat.states == s)[0]
            c = b.cell_color(s)
            assert tuple(int(v) for v in rgba[row, col]) == (c.red(), c.green(), c.blue(), 255), s
        assert (rgba[..., 3] == 0).sum() == lat.states.size - n  # no cell: transparent

    pixels_are_cell_colours()  # unsolved: empty cells, the goal in its own fill
    unvisited = np.zeros(n, dtype=bool)
    unvisited[::5] = True
    b.show_unvisited(unvisited)
    pixels_are_cell_colours()
    b.set_predict_mode(True)
    b.reveal(97)
    pixels_are_cell_colours()
    assert b.uses_image()


def test_small_boards_are_still_painted_cell_by_cell(qtbot):
    b = BoardView()
    qtbot.addWidget(b)
    b.resize(600, 400)
    b.set_board(grid_layout(12))
    assert not b.uses_image()
    b.grab()
    assert b.image_paints == 0


def test_a_file_over_the_budget_names_the_budget_in_mb(tmp_path):
    p = tmp_path / "big.txt"
    p.write_bytes(b"x" * (3 * 1024 * 1024 + 1))
    with pytest.raises(ValueError, match=r"over the 3 MB budget"):
        read_bytes_limited(p, 3 * 1024 * 1024, ValueError, what="course file")


def test_a_course_file_over_the_readers_budget_names_it(tmp_path, monkeypatch):
    from mdpviz.core.cs747 import MDPFileError, load_cs747

    monkeypatch.setattr("mdpviz.core.cs747.MAX_TEXT_BYTES", 1024 * 1024)
    p = _course_file(tmp_path / "big.txt", 60_000)  # about 2 MB
    with pytest.raises(MDPFileError) as e:
        load_cs747(p)
    assert str(p) in str(e.value) and "over the 1 MB budget" in str(e.value)
    assert "\n" not in str(e.value)
