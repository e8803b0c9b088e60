"""The random walk (Sutton and Barto, Example 9.1; Example 6.2 as a setting): one game of the registry.
``rules.py`` is the game, ``spec.py`` its registry entry (:data:`SPEC`, lesson, coordinates). Plain numpy; never
imports Qt."""
from mdpviz.models.kit.game.package import game_package

__getattr__, __dir__ = game_package(__name__)
