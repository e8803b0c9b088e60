"""The main window's parts are objects that own their state (issue 23 item 6, issue 34 item 2).

Each part of :class:`mdpviz.app.MainWindow` is a QObject in its own module of :mod:`mdpviz.window`,
handed the window's :class:`~mdpviz.window.hub.Hub`. The sources are read (nothing is imported for the
first checks): each attribute the window's modules set on ``self``, or declare in a class body, belongs
to one module; no part reads another part's private state through the hub (``self._hub.solving._dirty``)
nor the mdpviz window's own attributes through ``hub.main`` (only Qt's QMainWindow API); no part probes
with ``getattr(self, ...)``; ``MainWindow`` is one class with one base and at most 400 lines; where
one part reacts to another it hears a named signal (the live part hears the solving part's
``model_loaded``, not ``model_changed`` after it)."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "mdpviz"
MODULES = [PACKAGE / "app.py", *sorted((PACKAGE / "window").glob("*.py"))]
PART_NAMES = ("stage", "view", "solving", "learning", "playing", "files", "classroom", "sensitivity", "search", "bandit",
              "live")
"""The parts: the stage (built first by the window) and :data:`mdpviz.app.PARTS`."""
MAX_WINDOW_LINES = 400


def declared(source: str) -> set[str]:
    """The attribute names a module assigns on ``self`` (``self.x = ``, ``self.x += ``, ``for self.x in``,
    ...) or in a class body (a part's signal)."""
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


# every part keeps its hub in ``self._hub`` (its own, not shared state): the one name all parts set
COMMON = {"_hub"}


def owners(sources: dict[str, str]) -> dict[str, list[str]]:
    """Each attribute declared by more than one of ``sources`` (module name -> source), with those modules."""
    seen: dict[str, list[str]] = {}
    for name, src in sources.items():
        for attr in declared(src) - COMMON:
            seen.setdefault(attr, []).append(name)
    return {attr: mods for attr, mods in sorted(seen.items()) if len(mods) > 1}


def _hub_chain(node: ast.AST) -> list[str] | None:
    """``["solving", "_dirty"]`` for ``self._hub.solving._dirty`` (or ``hub.solving._dirty``); None for an
    expression that does not start at the hub."""
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    names.reverse()
    if isinstance(node, ast.Name) and node.id == "self" and names[:1] == ["_hub"]:
        return names[1:]
    if isinstance(node, ast.Name) and node.id == "hub":
        return names
    return None


def private_reads(source: str) -> list[tuple[int, str]]:
    """(line, dotted name) of each read of a private name through the hub: another part's private state
    (``self._hub.solving._dirty``) or the hub's own (``self._hub._x``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and not isinstance(getattr(node, "ctx", None), ast.Store):
            chain = _hub_chain(node)
            if chain and chain[-1].startswith("_") and len(chain) <= 2:
                found.append((node.lineno, ".".join(chain)))
    return sorted(set(found))


def hub_writes(source: str) -> list[tuple[int, str]]:
    """(line, dotted name) of each assignment to another part's attribute through the hub
    (``self._hub.solving.scale = ...``): a part changes another's state only by calling its methods."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            chain = _hub_chain(node)
            if chain and chain[0] in PART_NAMES:
                found.append((node.lineno, ".".join(chain)))
    return found


def main_reads(source: str) -> set[str]:
    """The names a part reads of ``hub.main`` (the window, which parts may use only as a QMainWindow)."""
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute):
            chain = _hub_chain(node)
            if chain and len(chain) == 2 and chain[0] == "main":
                out.add(chain[1])
    return out


def probes(source: str) -> list[int]:
    """Lines calling ``getattr``, ``hasattr`` or ``setattr`` on ``self``."""
    return [node.lineno for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr", "setattr") and node.args
            and isinstance(node.args[0], ast.Name) and node.args[0].id == "self"]


def _sources() -> dict[str, str]:
    return {p.relative_to(PACKAGE.parent).as_posix(): p.read_text(encoding="utf-8") for p in MODULES}


def _part_sources() -> dict[str, str]:
    return {name: (PACKAGE / "window" / f"{name}.py").read_text(encoding="utf-8") for name in PART_NAMES}


def test_the_window_modules_are_found():
    names = set(_sources())
    assert {"mdpviz/app.py", "mdpviz/window/hub.py", *(f"mdpviz/window/{p}.py" for p in PART_NAMES)} <= names


def test_each_attribute_of_the_window_belongs_to_one_part():
    # the hub mirrors, by design, the names of what the window hands the parts (its controller, its parts)
    shared = owners({k: v for k, v in _sources().items() if k != "mdpviz/window/hub.py"})
    assert not shared, ("attributes set by more than one part of the window (the part that declares one "
                        f"changes it; the others call its methods or hear its signals): {shared}")


def test_no_part_reads_another_parts_private_state():
    found = {name: reads for name, src in _part_sources().items() if (reads := private_reads(src))}
    assert not found, f"private state read through the hub (use the part's public methods or signals): {found}"


def test_no_part_sets_another_parts_attributes():
    found = {name: w for name, src in _part_sources().items() if (w := hub_writes(src))}
    assert not found, f"attributes set through the hub (call the owner's method): {found}"


def test_the_parts_use_the_window_only_as_a_qmainwindow():
    from PySide6.QtWidgets import QMainWindow

    found = {name: sorted(n for n in main_reads(src) if not hasattr(QMainWindow, n))
             for name, src in _part_sources().items()}
    assert not {k: v for k, v in found.items() if v}, f"mdpviz window attributes read through hub.main: {found}"


def test_no_part_probes_the_window_with_getattr():
    found = {name: lines for name, src in _sources().items() if (lines := probes(src))}
    assert not found, f"getattr/hasattr/setattr on self (declare the attribute in its part's init): {found}"


def test_the_main_window_is_one_class_with_one_base_and_at_most_400_lines():
    src = (PACKAGE / "app.py").read_text(encoding="utf-8")
    classes = [n for n in ast.parse(src).body if isinstance(n, ast.ClassDef)]
    assert [c.name for c in classes] == ["MainWindow"]
    (cls,) = classes
    assert [ast.unparse(b) for b in cls.bases] == ["QMainWindow"]
    assert cls.end_lineno - cls.lineno + 1 <= MAX_WINDOW_LINES
    assert len(src.splitlines()) <= MAX_WINDOW_LINES


def test_each_part_is_a_qobject_built_from_the_hub_and_listed_once():
    from PySide6.QtCore import QObject

    from mdpviz.app import PARTS

    names = [n for n, _cls in PARTS]
    assert ["stage", *names] == list(PART_NAMES) and len(set(names)) == len(names)
    for name, cls in PARTS:
        assert issubclass(cls, QObject) and cls.__module__ == f"mdpviz.window.{name}"
        assert not [b for b in cls.__mro__ if b.__name__.endswith("Mixin")]
    for name, src in _part_sources().items():
        tree = ast.parse(src)
        assert not [c.name for c in ast.walk(tree) if isinstance(c, ast.ClassDef) and c.name.endswith("Mixin")], name
    doc = (PACKAGE / "window" / "__init__.py").read_text(encoding="utf-8")
    assert all(f"mdpviz.window.{p}" in doc for p in PART_NAMES), "window/__init__.py lists every part"
    assert "five parts" not in doc


def test_live_resolve_hears_the_solving_part_not_the_listener_order():
    """The live part runs an edit's solve when the solving part says the model's solver is loaded, and
    compares a finished solve after the solving part's word on it: it connects to neither
    ``model_changed`` nor the controller's ``finished``."""
    src = _part_sources()["live"]
    assert "model_changed.connect" not in src and "controller.finished.connect" not in src
    assert "solving.model_loaded.connect" in src and "solving.solve_finished.connect" in src
    assert "after the solving part" not in (PACKAGE / "app.py").read_text(encoding="utf-8")


def test_the_checks_catch_what_they_look_for():
    a = "class A:\n    flag = False\n    def f(self):\n        self.x = 1\n"
    b = "class B:\n    def g(self):\n        self.x += 1\n        self.y: int = 0\n        self.flag = True\n"
    assert owners({"a.py": a, "b.py": b}) == {"flag": ["a.py", "b.py"], "x": ["a.py", "b.py"]}
    assert owners({"a.py": a, "c.py": "def h(self):\n    return self.x\n"}) == {}
    assert owners({"a.py": "def f(self):\n    self._hub = 1\n", "b.py": "def g(self):\n    self._hub = 2\n"}) == {}
    assert probes("def f(self):\n    return getattr(self, '_shut', False)\n") == [2]
    assert probes("def f(self, o):\n    return getattr(o, 'x', None)\n") == []
    reads = "def f(self):\n    self._hub.solving._dirty\n    self._hub.solving.mark_dirty()\n    hub.view._x\n"
    assert private_reads(reads) == [(2, "solving._dirty"), (4, "view._x")]
    assert private_reads("def f(self):\n    self._hub.solving.scale.lo\n    self._own._x\n") == []
    assert hub_writes("def f(self):\n    self._hub.solving.scale = 1\n    self.scale = 2\n") == [(2, "solving.scale")]
    assert main_reads("def f(self):\n    self._hub.main.resizeDocks([], [], 1)\n    self._hub.main.presenter\n") \
        == {"resizeDocks", "presenter"}


SIGNALS = ("game_shown", "model_changed", "scenario_loaded", "presenter_changed", "shutting_down")


def test_the_window_tells_its_parts_through_signals(window, tmp_path):
    w = window
    heard: list[str] = []
    for name in SIGNALS:
        getattr(w.hub, name).connect(lambda *_args, name=name: heard.append(name))
    w.solving.model_loaded.connect(lambda: heard.append("model_loaded"))
    w.switch_game("gridworld")
    # (model_loaded is emitted while model_changed is heard: before or after this test's own listener)
    assert heard[0] == "game_shown" and sorted(heard[1:]) == ["model_changed", "model_loaded"]
    assert w.controller.mdp is w.session.mdp()  # the solving part heard it: a fresh solver for the shown game
    heard.clear()
    w.files.load_scenario(w.files.save_scenario(tmp_path / "s.json"))
    assert sorted(heard) == ["game_shown", "model_changed", "model_loaded", "scenario_loaded"]
    heard.clear()
    w.view.set_presenter(True)
    w.view.set_presenter(True)  # no change: nothing to tell
    assert heard == ["presenter_changed"] and w.view.presenter
    w.view.set_presenter(False)
    heard.clear()
    w.shutdown()
    w.shutdown()
    assert heard == ["shutting_down"]
    assert not w.solving.redraw_timer.isActive()  # the solving part stopped its timer


TOY_PART = '''
"""A toy dock: one part module, handed the hub, as a new dock of the window would be."""
from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QLabel


class ToyPart(QObject):
    def __init__(self, hub):
        super().__init__(hub)
        self._hub = hub
        self.label = QLabel("toy")
        self.dock = hub.dock("Toy", "toyDock", self.label, Qt.DockWidgetArea.RightDockWidgetArea)
        self.act = hub.action("&Toy", "toyAction", self.dock.show)
        hub.menus.view.addAction(self.act)
        self.shown_games = []
        hub.game_shown.connect(lambda g: self.shown_games.append(g.key))
'''


def test_a_new_dock_is_one_part_module_plus_one_line(qtbot, tmp_path, monkeypatch):
    """A part written in a temporary package and added to PARTS (the one line) gets its dock, its action in
    the window's menu and the hub's signals, with no other file touched."""
    import sys

    import mdpviz.app as app
    from tests.conftest import make_window

    pkg = tmp_path / "toypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "toy_part.py").write_text(TOY_PART, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    from toypkg.toy_part import ToyPart

    monkeypatch.setattr(app, "PARTS", (*app.PARTS, ("toy", ToyPart)))
    w = make_window(qtbot, tmp_path / "settings.ini")
    try:
        toy = w.hub.toy
        assert isinstance(toy, ToyPart) and w.findChild(type(toy.dock), "toyDock") is toy.dock
        assert toy.act in w.hub.menus.view.actions()
        w.switch_game("gridworld")
        assert toy.shown_games[-1] == "gridworld"
    finally:
        w.shutdown()
        sys.modules.pop("toypkg.toy_part", None)
        sys.modules.pop("toypkg", None)
