"""The gambler's problem (Sutton and Barto, Example 4.3): one game of the registry. ``rules.py`` is the
game, ``spec.py`` its registry entry (:data:`SPEC`, lesson, simulation). Plain numpy; never imports Qt."""
from mdpviz.models.gambler.rules import *  # noqa: F401,F403
from mdpviz.models.gambler.spec import *  # noqa: F401,F403
