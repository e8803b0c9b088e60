"""Tic-tac-toe against a random opponent: one game of the registry. ``rules.py`` is the game, ``spec.py`` its registry entry
(:data:`SPEC`, settings codec, jobs, lesson); every name of its modules is importable from here too.

Plain numpy; never imports Qt.
"""
from mdpviz.models.kit.game.package import game_package

__getattr__, __dir__ = game_package(__name__)
