"""Regression guard for a crash of PySide6 6.12.0 with pyqtgraph 0.14.0.

That pair dies with ``Fatal Python error: none_dealloc`` inside pyqtgraph's axis painting when a
PlotWidget's curve gets ``setData`` a few hundred times with events processed in between (the
convergence plot does exactly this during Run). pyproject.toml pins PySide6 < 6.12 for it; this
test runs the loop in a subprocess so a future bump that brings the crash back fails here
instead of killing the test session (or a lesson).
"""
from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO

LOOP = """
import numpy as np
import pyqtgraph as pg
from PySide6 import QtWidgets
app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
w = pg.PlotWidget()
w.setLogMode(y=True)
w.resize(640, 400)
w.show()
curve = w.plot()
for i in range(1, 201):
    x = np.arange(i)
    curve.setData(x, np.exp(-0.05 * x) + 1e-12)
    app.processEvents()
w.close()
print("ok", i)
"""


def test_200_setdata_updates_with_event_processing_do_not_crash():
    env = {"QT_QPA_PLATFORM": "offscreen"}
    import os

    env = {**os.environ, **env}
    res = subprocess.run([sys.executable, "-c", LOOP], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, f"exit {res.returncode}: {res.stderr[-2000:]}"
    assert res.stdout.split() == ["ok", "200"]
