"""The short corridor with switched actions (Sutton and Barto, Example 13.1): one game of the registry. ``rules.py``
is the game, ``spec.py`` its registry entry (:data:`SPEC`, lesson, the book's features and starting weights).
Plain numpy; never imports Qt."""
from mdpviz.models.kit.game.package import game_package

__getattr__, __dir__ = game_package(__name__)
