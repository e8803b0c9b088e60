"""Jack's car rental (Sutton and Barto, Example 4.2 and Exercise 4.7): one game of the registry.
``rules.py`` is the game, ``spec.py`` its registry entry (:data:`SPEC`, lesson, simulation). Plain numpy
and scipy; never imports Qt."""
from mdpviz.models.kit.game.package import game_package

__getattr__, __dir__ = game_package(__name__)
