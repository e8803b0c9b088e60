"""The games, one folder each, and the kit they share (:mod:`mdpviz.models.kit`); each game compiles into one
:class:`~mdpviz.core.mdp.TabularMDP`. Above the solvers, below Qt; numpy only, never Qt. The MDP type itself
lives in the core (:mod:`mdpviz.core`); ``mdpviz.models.TabularMDP`` is kept for scripts that import it here."""
from mdpviz.core.mdp import TabularMDP

__all__ = ["TabularMDP"]
