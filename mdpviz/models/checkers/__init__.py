"""Checkers against a random opponent: one game of the registry. ``rules.py`` is the game, ``spec.py`` its registry entry
(:data:`SPEC`, settings codec, jobs, lesson); every public name is importable from here too.

Plain numpy; never imports Qt.
"""
from mdpviz.models.checkers.play import *  # noqa: F401,F403
from mdpviz.models.checkers.spec import *  # noqa: F401,F403
# the compiler and the rules last: their warm_up (the kernels') is the package's, as when the rules were
# mdpviz.models.checkers; the spec's warm_up (of a compiled model) stays mdpviz.models.checkers.spec.warm_up
from mdpviz.models.checkers.compiler import *  # noqa: F401,F403,E402
from mdpviz.models.checkers.rules import *  # noqa: F401,F403,E402


def __getattr__(name: str):
    """Any other name of the game's modules, as the game's old single module had it (PEP 562)."""
    import importlib

    for sub in ('rules', 'compiler', 'play', 'spec', 'kernels'):
        found = vars(importlib.import_module(f"{__name__}.{sub}"))
        if name in found:
            return found[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
