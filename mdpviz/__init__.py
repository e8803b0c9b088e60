"""mdpviz: watch Markov decision processes being solved.

The headless core: ``TabularMDP`` (one representation for every game), steppable solvers and
``solve``, and the course file format. ``mdpviz.app`` holds the Qt window; nothing here imports Qt.
"""
from mdpviz.models.cs747 import MDPFileError, load_cs747, save_cs747
from mdpviz.models.mdp import TabularMDP
from mdpviz.solvers import Solution, Sweep, solve, solver

__version__ = "0.1.0"

__all__ = ["MDPFileError", "Solution", "Sweep", "TabularMDP", "from_gymnasium", "load_cs747", "save_cs747", "solve",
           "solver", "to_gymnasium"]


def __getattr__(name: str):
    """``from_gymnasium`` / ``to_gymnasium`` on first use: importing mdpviz never imports Gymnasium."""
    if name in ("from_gymnasium", "to_gymnasium"):
        from mdpviz.models import gymnasium_bridge

        return getattr(gymnasium_bridge, name)
    raise AttributeError(f"module 'mdpviz' has no attribute {name!r}")
