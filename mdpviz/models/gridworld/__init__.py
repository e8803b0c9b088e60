"""Grid worlds (CS188's maps, Russell-Norvig's 4x3): one game of the registry. ``rules.py`` is the game, ``spec.py`` its registry entry
(:data:`SPEC`, settings codec, jobs, lesson); every public name is importable from here too.

Plain numpy; never imports Qt.
"""
from mdpviz.models.gridworld.rules import *  # noqa: F401,F403
from mdpviz.models.gridworld.spec import *  # noqa: F401,F403


def __getattr__(name: str):
    """Any other name of the game's modules, as the game's old single module had it (PEP 562)."""
    import importlib

    for sub in ('rules', 'spec'):
        found = vars(importlib.import_module(f"{__name__}.{sub}"))
        if name in found:
            return found[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
