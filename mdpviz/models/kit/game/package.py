"""A game folder's package namespace, written once for every game (PEP 562).

Each ``mdpviz/models/<key>/__init__.py`` is its docstring and the line
``__getattr__, __dir__ = game_package(__name__)``: ``from mdpviz.models.snakes import markovDecision`` and
``mdpviz.models.snakes.SPEC`` find the name in the folder's modules, imported on first use (``spec`` first, then
``rules``, then the others by name), so importing a game's package costs nothing until a name is asked for.
"""
from __future__ import annotations

import importlib
import pkgutil
import sys
from typing import Any, Callable

FIRST = ("spec", "rules")
"""The modules searched first, in this order; a name both define is the same object (spec imports the rules')."""


def submodules(package: str) -> list[str]:
    """The module names of ``package``'s folder: :data:`FIRST`, then the rest in alphabetical order."""
    found = sorted(m.name for m in pkgutil.iter_modules(sys.modules[package].__path__) if not m.ispkg)
    return [m for m in FIRST if m in found] + [m for m in found if m not in FIRST]


def game_package(package: str) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of game package ``package`` (its ``__name__``)."""

    def __getattr__(name: str) -> Any:
        if not name.startswith("__"):
            mods = submodules(package)
            if name in mods:  # ``from <package> import rules``: that module itself, before any other is imported
                return importlib.import_module(f"{package}.{name}")  # (spec first made a cycle in a fresh process)
            for sub in mods:
                found = vars(importlib.import_module(f"{package}.{sub}"))
                if name in found:
                    return found[name]
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        names = set(vars(sys.modules[package]))
        for sub in submodules(package):
            names.update(n for n in vars(importlib.import_module(f"{package}.{sub}")) if not n.startswith("_"))
        return sorted(names)

    return __getattr__, __dir__
