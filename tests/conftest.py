"""Test setup shared by every tier: headless Qt, and no worker thread may outlive a test."""
from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

# CI has no display: the test setup itself selects Qt's offscreen platform (before Qt loads).
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("MDPVIZ_SETTINGS_ORG", "mdpviz-tests")  # keep tests out of the user's QSettings

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def cs747_dir() -> Path:
    """The course data folder shipped inside the package (mdpviz/examples/cs747)."""
    from mdpviz.models.examples import CS747_DIR

    assert CS747_DIR.is_dir(), f"the package's example data is missing: {CS747_DIR}"
    return CS747_DIR


@pytest.fixture(autouse=True)
def no_thread_left_running():
    """Fail any test that leaves a worker thread (Qt or Python) running."""
    before = set(threading.enumerate())
    yield
    ctrl = sys.modules.get("mdpviz.controller")
    if ctrl is not None and hasattr(ctrl, "running_threads"):
        alive = ctrl.running_threads()
        if alive:
            for t in alive:  # stop them so one failure does not cascade into the next tests
                t.quit()
                t.wait(5000)
            pytest.fail(f"{len(alive)} Qt worker thread(s) still running at the end of the test")
    extra = [t for t in threading.enumerate() if t not in before and t.is_alive() and not t.daemon]
    if extra:
        pytest.fail(f"Python thread(s) left running: {[t.name for t in extra]}")
