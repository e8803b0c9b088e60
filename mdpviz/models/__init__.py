"""Games and file formats, each compiled into one :class:`TabularMDP`; numpy only, never Qt."""
from mdpviz.models.mdp import TabularMDP

__all__ = ["TabularMDP"]
