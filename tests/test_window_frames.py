"""The window's image-sequence export draws every sweep (a board on screen shows one: each frame was the
window's current board), with one colour bar (a grid world's board draws its own)."""
from __future__ import annotations

import hashlib

from tests.conftest import make_window, wait_model


def test_the_window_writes_each_sweep_of_a_shown_board(qtbot, tmp_path):
    from PIL import Image

    w = make_window(qtbot, tmp_path / "s.ini", game="gridworld", size=(1366, 768), show=True)
    try:
        wait_model(w, qtbot)
        p = w.solver_panel
        p.algorithm.setCurrentIndex(p.algorithm.findData("vi"))
        for _ in range(4):
            n = len(w.controller.history)
            p.step.click()
            qtbot.waitUntil(lambda: len(w.controller.history) > n and w.controller.state != "stepping",
                            timeout=20_000)
        w.solving.redraw()
        fw = w.classroom.export_frames(tmp_path / "f.png", width=480, height=270)
        qtbot.waitUntil(lambda: not fw.running, timeout=60_000)
        assert len(fw.written) == 4
        digests = {hashlib.md5(path.read_bytes()).hexdigest() for path in fw.written}
        assert len(digests) == 4  # each sweep's own values, not the shown board four times
        with Image.open(fw.written[-1]) as im:  # one colour bar: the board's own (a second, empty one was viridis)
            import numpy as np

            px = np.asarray(im.convert("RGB"), dtype=int)
            viridis_low = (abs(px[..., 0] - 68) < 12) & (px[..., 1] < 25) & (abs(px[..., 2] - 84) < 14)
            assert not viridis_low.any()
    finally:
        w.shutdown()
