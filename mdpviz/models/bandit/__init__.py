"""The Bernoulli bandit as a belief MDP (Sutton and Barto ch. 2; the Bayes-optimal answer): one game of the
registry. ``rules.py`` is the game, ``spec.py`` its registry entry (:data:`SPEC`, lesson, the Gittins job).
Plain numpy; never imports Qt."""
from mdpviz.models.kit.game.package import game_package

__getattr__, __dir__ = game_package(__name__)
