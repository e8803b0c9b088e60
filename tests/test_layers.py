"""The package's import layers, checked on the source with ``ast`` (function-level imports too).

Layers, lowest first; a module may import its own layer and the ones below, never one above:

0. core: ``mdpviz/core`` (the MDP, file formats, the simulator, chunked building and the job protocol)
1. solvers: ``mdpviz/solvers`` (they see only the core: an MDP, never a game)
2. kit and games: ``mdpviz/models``: the kit (``models/kit/{game,boards,pictures,teaching}``: the registry,
   scenario files, display data, the lesson engine...) and one folder per game in ``mdpviz/models/<key>/``
3. Qt: ``controller`` and ``mdpviz/widgets``
4. app: ``app``, ``export``, ``lesson_page`` and the start-up check ``display``
5. entry points: ``screenshots``, ``cli``, ``commands``, ``__main__`` and the package's lazy ``__init__``

Each folder below the package's root belongs to one layer (every module in it), and no folder imports a
folder of a higher layer: the folders follow the layers, so the tree read floor by floor is the import graph.
The root folder ``mdpviz/`` keeps the design card's modules of the upper layers side by side (``controller``,
``app``, ``export``, ``cli``, the screenshots), each checked as a module.

No import cycle is allowed either (between any two modules, at any depth). Importing a package's
submodule counts as importing the package too (Python runs the package's ``__init__`` first), except
for the importer's own enclosing packages, which are always initialised before it runs.

Within layer 2, no module of one game's folder imports another game's folder, and the kit imports no
game: what two games share belongs in the kit. Within layer 3, no widget imports the controller.
"""
from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "mdpviz"

LAYER_NAMES = ("core", "solvers", "games", "Qt", "app", "entry points")

ALLOWED: dict[tuple[str, str], str] = {
}
"""(importer, imported) pairs tolerated while the move is under way, each with its reason."""

ALLOWED_CYCLES: dict[frozenset, str] = {
}
"""Import cycles tolerated while the move is under way, each with its reason."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PKG.rglob("*.py")}


def within(name: str, package: str) -> bool:
    """Whether module ``name`` is ``package`` or inside it."""
    return name == package or name.startswith(package + ".")


def layer(name: str) -> int:
    if within(name, "mdpviz.core"):
        return 0
    if within(name, "mdpviz.solvers"):
        return 1
    if within(name, "mdpviz.models"):
        return 2
    if name == "mdpviz.controller" or name.startswith("mdpviz.widgets"):
        return 3
    if name in ("mdpviz.app", "mdpviz.export", "mdpviz.lesson_page", "mdpviz.startup_check") or name.startswith("mdpviz.window"):
        return 4  # mdpviz.window: the parts the main window (mdpviz.app) is assembled from
    return 5


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package modules ``name`` imports anywhere in its source (``from x import y`` counts
    ``x.y`` when that is a module, else ``x``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    is_pkg = path.name == "__init__.py"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                if not is_pkg:
                    base = base[:-1]
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in known else mod for a in node.names]
        else:
            continue
        for t in targets:
            if not t.startswith("mdpviz"):
                continue
            while t not in known and "." in t:
                t = t.rsplit(".", 1)[0]
            if t != name and t != "mdpviz":
                out.add(t)
    return out


def with_packages(name: str, deps: set[str], known: dict[str, Path]) -> set[str]:
    """``deps`` plus every enclosing package of each, as Python imports them, except ``name``'s own
    enclosing packages (already initialised when ``name`` runs)."""
    own = {name.rsplit(".", k)[0] for k in range(1, name.count(".") + 1)}
    out = set(deps)
    for d in deps:
        parts = d.split(".")
        for k in range(2, len(parts)):
            pkg = ".".join(parts[:k])
            if pkg in known and pkg not in own and pkg != name:
                out.add(pkg)
    return out


def graph() -> dict[str, set[str]]:
    known = modules()
    return {n: with_packages(n, imports(n, p, known), known) for n, p in known.items()}


def game_of(name: str) -> str | None:
    """The game folder a module belongs to (``mdpviz.models.<key>...``), or None (core, kit, elsewhere)."""
    parts = name.split(".")
    if len(parts) >= 3 and parts[:2] == ["mdpviz", "models"] and parts[2] != "kit":
        return parts[2]
    return None


def cycles(edges: dict[str, set[str]]) -> list[frozenset]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[frozenset] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = set()
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.add(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(frozenset(comp))
    return out


def test_no_module_imports_a_higher_layer():
    bad = []
    for src, deps in sorted(graph().items()):
        for dst in sorted(deps):
            if layer(dst) > layer(src) and (src, dst) not in ALLOWED:
                bad.append(f"{src} ({LAYER_NAMES[layer(src)]}) imports {dst} ({LAYER_NAMES[layer(dst)]})")
    assert not bad, "imports into a higher layer:\n" + "\n".join(bad)


def test_no_game_imports_another_game_and_the_kit_imports_none():
    bad = []
    for src, deps in sorted(graph().items()):
        g = game_of(src)
        in_kit = src.startswith("mdpviz.models.kit")
        for dst in sorted(deps):
            h = game_of(dst)
            if h is not None and ((g is not None and h != g) or in_kit):
                bad.append(f"{src} imports {dst}")
    assert not bad, "imports across game folders (shared code belongs in mdpviz.models.kit):\n" + "\n".join(bad)


def test_no_widget_imports_the_controller():
    """Widgets and game views draw and edit; their background work goes to the controller as a
    :class:`~mdpviz.core.jobs.Job` through the session, never by importing it."""
    bad = sorted(src for src, deps in graph().items()
                 if src.startswith("mdpviz.widgets") and "mdpviz.controller" in deps)
    assert not bad, "widgets that import mdpviz.controller:\n" + "\n".join(bad)


def test_every_game_is_a_folder_and_the_models_package_stays_small():
    models = PKG / "models"
    top = sorted(p.name for p in models.glob("*.py"))
    assert len(top) <= 12, f"{len(top)} modules directly in mdpviz/models: {top}"
    from mdpviz.models.kit.game import registry

    for key in registry.keys():
        assert (models / key / "spec.py").is_file(), f"game {key!r} has no mdpviz/models/{key}/spec.py"
    longest = max((len(p.read_text(encoding="utf-8").splitlines()), str(p.relative_to(PKG)))
                  for p in PKG.rglob("*.py"))
    assert longest[0] <= 900, f"{longest[1]} has {longest[0]} lines (at most 900)"


def folder(name: str) -> str:
    """The folder (package) module ``name`` lives in, dotted: a package's ``__init__`` is in its own folder."""
    return name if (PKG.parent / name.replace(".", "/")).is_dir() else name.rsplit(".", 1)[0]


def test_each_folder_is_one_layer_and_no_folder_imports_a_higher_one():
    known = modules()
    layers: dict[str, set[int]] = {}
    for name in known:
        if folder(name) != "mdpviz":
            layers.setdefault(folder(name), set()).add(layer(name))
    mixed = {f: sorted(LAYER_NAMES[k] for k in ls) for f, ls in layers.items() if len(ls) > 1}
    assert not mixed, f"folders holding modules of several layers: {mixed}"
    bad = set()
    for src, deps in graph().items():
        for dst in deps:
            if layer(dst) > layer(src):
                bad.add(f"{folder(src)} ({LAYER_NAMES[layer(src)]}) imports {folder(dst)} ({LAYER_NAMES[layer(dst)]})")
    assert not bad, "folders importing a higher folder:\n" + "\n".join(sorted(bad))
    # the core and the solvers each have a folder of their own, below the games' folder
    assert layers["mdpviz.core"] == {0} and layers["mdpviz.solvers"] == {1} and layers["mdpviz.models"] == {2}


def test_the_kit_is_sorted_into_small_folders_by_concern():
    kit = PKG / "models" / "kit"
    assert sorted(p.name for p in kit.glob("*.py")) == ["__init__.py"], "the kit's modules live in its sub-folders"
    for sub in sorted(p for p in kit.iterdir() if p.is_dir() and p.name != "__pycache__"):
        mods = [p.name for p in sub.glob("*.py") if p.name != "__init__.py"]
        assert 0 < len(mods) <= 8, f"kit/{sub.name} holds {len(mods)} modules (at most 8): {sorted(mods)}"


def test_game_packages_share_one_namespace_rule():
    """Every game's ``__init__`` is its docstring and one line (no copied re-export shim), and still exports
    its modules' names: the old import paths users hold keep working."""
    for init in sorted((PKG / "models").glob("*/__init__.py")):
        if init.parent.name == "kit":
            continue
        code = [n for n in ast.parse(init.read_text(encoding="utf-8")).body
                if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
        assert len(code) == 2, f"{init.relative_to(PKG)}: more than the shared game_package line"
    # no name is defined by two modules of one game, so the order the namespace searches them never matters
    import importlib
    import inspect

    from mdpviz.models.kit.game import registry
    from mdpviz.models.kit.game.package import submodules

    twice = []
    for key in registry.keys():
        pkg = f"mdpviz.models.{key}"
        importlib.import_module(pkg)
        defined: dict[str, str] = {}
        for sub in submodules(pkg):
            mod = importlib.import_module(f"{pkg}.{sub}")
            for n, v in vars(mod).items():
                if (not n.startswith("_") and (inspect.isfunction(v) or inspect.isclass(v))
                        and v.__module__ == mod.__name__):
                    if n in defined:
                        twice.append(f"{pkg}: {n} in {defined[n]} and {sub}")
                    defined[n] = sub
    assert not twice, twice
    import mdpviz
    from mdpviz.models.snakes import markovDecision
    from mdpviz.models.gym import SPEC as gym_spec

    assert callable(markovDecision) and gym_spec.key == "gym"
    assert mdpviz.TabularMDP.__module__ == "mdpviz.core.mdp" and callable(mdpviz.solve)
    assert callable(mdpviz.from_gymnasium)


def test_no_import_cycle():
    found = [c for c in cycles(graph()) if c not in ALLOWED_CYCLES]
    assert not found, "import cycles:\n" + "\n".join(", ".join(sorted(c)) for c in found)


def test_the_allow_lists_hold_only_what_is_still_true():
    g = graph()
    stale = [pair for pair in ALLOWED if pair[1] not in g.get(pair[0], set())]
    stale += [c for c in ALLOWED_CYCLES if c not in cycles(g)]
    assert not stale, f"allow-list entries no longer needed: {stale}"


def test_the_checker_sees_function_level_imports_and_cycles():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(edges) == [frozenset({"a", "b", "c"})]
    # an import of a package's submodule imports the package: lessons -> snakes.rules runs snakes/__init__
    known = {"mdpviz.models.kit.teaching.lessons": Path(), "mdpviz.models.snakes": Path(), "mdpviz.models.snakes.rules": Path(),
             "mdpviz.models.snakes.spec": Path()}
    assert with_packages("mdpviz.models.kit.teaching.lessons", {"mdpviz.models.snakes.rules"}, known) == {
        "mdpviz.models.snakes.rules", "mdpviz.models.snakes"}
    # ... but not the importer's own package, which is initialised before the importer runs
    assert with_packages("mdpviz.models.snakes.spec", {"mdpviz.models.snakes.rules"}, known) == {
        "mdpviz.models.snakes.rules"}
    tree_src = "def f():\n    from mdpviz.app import MainWindow\n"
    p = Path(__file__).parent / "_layers_probe.py"
    p.write_text(tree_src, encoding="utf-8")
    try:
        assert imports("mdpviz.models.probe", p, {"mdpviz.app": p}) == {"mdpviz.app"}
    finally:
        p.unlink()
