"""The compute core (mdpviz.models, mdpviz.solvers, the CLI's headless commands) never imports Qt."""
from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO

CODE = """
import importlib, pkgutil, sys
import mdpviz.models, mdpviz.solvers
for pkg in (mdpviz.models, mdpviz.solvers):
    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
        importlib.import_module(m.name)
import mdpviz.cli
mdpviz.cli.build_parser()
bad = sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "pyqtgraph", "shiboken6", "superqt"))
print(",".join(bad))
"""


def test_models_and_solvers_do_not_import_qt():
    res = subprocess.run([sys.executable, "-c", CODE], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "", f"Qt modules imported by the core: {res.stdout.strip()}"
