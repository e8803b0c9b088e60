"""One meaning per short name (issue 34 item 7): ``st`` and ``gs`` meant settings, a learning step, numba's
statistics, a state, a stat result, a game session and the Gauss-Seidel solver id; each now has the name of what
it holds, and ``gs`` is only the solver id (a string). Every game's settings class ends in ``Settings``."""
from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "mdpviz"
BANNED = ("st", "gs")


def test_no_variable_parameter_or_attribute_is_named_st_or_gs():
    found = []
    for p in sorted(PKG.rglob("*.py")):
        for n in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            name = (n.id if isinstance(n, ast.Name) else n.arg if isinstance(n, ast.arg)
                    else n.attr if isinstance(n, ast.Attribute) else None)
            if name in BANNED:
                found.append(f"{p.relative_to(PKG.parent)}:{n.lineno}: {name}")
    assert not found, "short names with several meanings (name what they hold):\n" + "\n".join(found)


def test_every_games_settings_class_ends_in_settings():
    from mdpviz.models.kit.game import registry

    names = {key: type(registry.get(key).default_settings()).__name__ for key in registry.keys()}
    assert all(n.endswith("Settings") for n in names.values()), names
