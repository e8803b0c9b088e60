"""mdpviz: watch Markov decision processes being solved.

The headless core: ``TabularMDP`` (one representation for every game), steppable solvers and
``solve``, and the course file format. ``mdpviz.app`` holds the Qt window; nothing here imports Qt.
"""
from typing import TYPE_CHECKING

__version__ = "0.1.0"

# The names below are loaded on first use (PEP 562), so that ``mdpviz --help`` and the CLI's
# light commands do not pay for numpy and scipy before they need them.
_LAZY = {
    "MDPFileError": "mdpviz.core.cs747", "load_cs747": "mdpviz.core.cs747", "save_cs747": "mdpviz.core.cs747",
    "TabularMDP": "mdpviz.core.mdp",
    "Solution": "mdpviz.solvers", "Sweep": "mdpviz.solvers", "solve": "mdpviz.solvers", "solver": "mdpviz.solvers",
    # Gymnasium is imported only when these are asked for: importing mdpviz never imports it.
    "from_gymnasium": "mdpviz.models.gym", "to_gymnasium": "mdpviz.models.gym",
}

if TYPE_CHECKING:  # pragma: no cover
    from mdpviz.core.cs747 import MDPFileError, load_cs747, save_cs747
    from mdpviz.core.mdp import TabularMDP
    from mdpviz.models.gym import from_gymnasium, to_gymnasium
    from mdpviz.solvers import Solution, Sweep, solve, solver


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'mdpviz' has no attribute {name!r}")

__all__ = ["MDPFileError", "Solution", "Sweep", "TabularMDP", "from_gymnasium", "load_cs747", "save_cs747", "solve",
           "solver", "to_gymnasium"]
