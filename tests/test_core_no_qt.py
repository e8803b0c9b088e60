"""The compute core never imports Qt: one fresh interpreter imports every module of mdpviz.core (the MDP,
file formats, jobs), mdpviz.models (the kit and every game folder), mdpviz.solvers and the pure display helpers beside them, compiles
every game of the registry at its default settings, and builds the CLI's parser; each step says which
Qt modules it loaded, so a failure names the step and the modules."""
from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import REPO

QT = ("PySide6", "shiboken6", "pyqtgraph", "superqt")
"""Top-level packages that are Qt (or load it)."""

CODE = """
import importlib, json, pkgutil, sys

QT = %r
steps = []


def qt():
    return sorted(m for m in sys.modules if m.split(".")[0] in QT)


def step(name, run):
    before = set(qt())
    run()
    steps.append([name, [m for m in qt() if m not in before]])


for pkg in ("mdpviz.core", "mdpviz.solvers", "mdpviz.models"):
    step("import " + pkg, lambda pkg=pkg: importlib.import_module(pkg))
    for m in pkgutil.walk_packages(sys.modules[pkg].__path__, pkg + "."):
        step("import " + m.name, lambda m=m: importlib.import_module(m.name))
for name in ("mdpviz.widgets.geometry",):  # a pure helper outside the three packages
    step("import " + name, lambda name=name: importlib.import_module(name))
registry = importlib.import_module("mdpviz.models.kit.game.registry")
for key in registry.keys():
    spec = registry.get(key)
    step("compile " + key, lambda spec=spec: spec.compile(spec.default_settings()))
step("build the CLI parser", lambda: importlib.import_module("mdpviz.cli").build_parser())
print(json.dumps({"keys": list(registry.keys()), "steps": steps}))
""" % (QT,)


def test_the_core_the_kit_and_every_game_import_and_compile_without_qt():
    res = subprocess.run([sys.executable, "-c", CODE], cwd=REPO, capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout.strip().splitlines()[-1])
    names = [name for name, _ in out["steps"]]
    assert out["keys"], "the registry lists no game"
    for key in out["keys"]:  # every game's folder was walked and every game compiled
        assert f"import mdpviz.models.{key}" in names and f"compile {key}" in names, key
    assert {"import mdpviz.models.kit", "import mdpviz.core.mdp", "import mdpviz.solvers.sweep",
            "build the CLI parser"} <= set(names)
    loaded = [f"{name}: {', '.join(mods)}" for name, mods in out["steps"] if mods]
    assert not loaded, "Qt modules loaded by the core:\n" + "\n".join(loaded)
