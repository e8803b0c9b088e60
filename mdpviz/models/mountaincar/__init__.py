"""Mountain car (Sutton and Barto, Example 10.1) on a grid of position x velocity: one game of the registry.
``rules.py`` is the game, ``spec.py`` its registry entry (:data:`SPEC`, lesson, coordinates). Plain numpy; never
imports Qt."""
from mdpviz.models.kit.game.package import game_package

__getattr__, __dir__ = game_package(__name__)
