"""The main window's parts own their state (issue 23, item 6): each attribute the window's modules
(mdpviz/app.py and mdpviz/window/*.py) set on ``self``, or declare in a class body, belongs to one
module, and no part probes another's state with ``getattr(self, ...)`` (the sources are read, nothing
is imported); where one part reacts to another, the window emits a signal the others hear."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "mdpviz"
MODULES = [PACKAGE / "app.py", *sorted((PACKAGE / "window").glob("*.py"))]


def declared(source: str) -> set[str]:
    """The attribute names a module assigns on ``self`` (``self.x = ``, ``self.x += ``, ``for self.x in``,
    ...) or in a class body (a mixin's default, a window's signal)."""
    tree = ast.parse(source)
    names = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name) and node.value.id == "self"):
            names.add(node.attr)
        elif isinstance(node, ast.ClassDef):
            for stmt in node.body:
                targets = stmt.targets if isinstance(stmt, ast.Assign) else (
                    [stmt.target] if isinstance(stmt, ast.AnnAssign) else [])
                names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def owners(sources: dict[str, str]) -> dict[str, list[str]]:
    """Each attribute declared by more than one of ``sources`` (module name -> source), with those modules."""
    seen: dict[str, list[str]] = {}
    for name, src in sources.items():
        for attr in declared(src):
            seen.setdefault(attr, []).append(name)
    return {attr: mods for attr, mods in sorted(seen.items()) if len(mods) > 1}


def probes(source: str) -> list[int]:
    """Lines calling ``getattr``, ``hasattr`` or ``setattr`` on ``self``."""
    return [node.lineno for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr", "setattr") and node.args
            and isinstance(node.args[0], ast.Name) and node.args[0].id == "self"]


def _sources() -> dict[str, str]:
    return {p.relative_to(PACKAGE.parent).as_posix(): p.read_text(encoding="utf-8") for p in MODULES}


def test_the_window_modules_are_found():
    names = set(_sources())
    assert {"mdpviz/app.py", "mdpviz/window/solving.py", "mdpviz/window/playing.py", "mdpviz/window/files.py",
            "mdpviz/window/classroom.py", "mdpviz/window/view.py"} <= names


def test_each_attribute_of_the_window_belongs_to_one_part():
    shared = owners(_sources())
    assert not shared, ("attributes set by more than one part of the window (the part that declares one "
                        f"changes it; the others call its methods or hear its signals): {shared}")


def test_no_part_probes_the_window_with_getattr():
    found = {name: lines for name, src in _sources().items() if (lines := probes(src))}
    assert not found, f"getattr/hasattr/setattr on self (declare the attribute in its part's init): {found}"


def test_the_checks_catch_what_they_look_for():
    a = "class A:\n    flag = False\n    def f(self):\n        self.x = 1\n"
    b = "class B:\n    def g(self):\n        self.x += 1\n        self.y: int = 0\n        self.flag = True\n"
    assert owners({"a.py": a, "b.py": b}) == {"flag": ["a.py", "b.py"], "x": ["a.py", "b.py"]}
    assert owners({"a.py": a, "c.py": "def h(self):\n    return self.x\n"}) == {}
    assert probes("def f(self):\n    return getattr(self, '_shut', False)\n") == [2]
    assert probes("def f(self, o):\n    return getattr(o, 'x', None)\n") == []


SIGNALS = ("game_shown", "model_changed", "scenario_loaded", "presenter_changed", "shutting_down")


def test_the_window_tells_its_parts_through_signals(window, tmp_path):
    w = window
    heard: list[str] = []
    for name in SIGNALS:
        getattr(w, name).connect(lambda *_args, name=name: heard.append(name))
    w.switch_game("gridworld")
    assert heard == ["game_shown", "model_changed"]
    assert w.controller.mdp is w.session.mdp()  # the solving part heard it: a fresh solver for the shown game
    heard.clear()
    w.load_scenario(w.save_scenario(tmp_path / "s.json"))
    assert sorted(heard) == ["game_shown", "model_changed", "scenario_loaded"]  # the game shown is the scenario's
    heard.clear()
    w.set_presenter(True)
    w.set_presenter(True)  # no change: nothing to tell
    assert heard == ["presenter_changed"] and w.presenter
    w.set_presenter(False)
    heard.clear()
    w.shutdown()
    w.shutdown()
    assert heard == ["shutting_down"]
    assert not w.redraw_timer.isActive()  # the solving part stopped its timer
