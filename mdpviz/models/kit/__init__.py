"""What the games share, Qt-free, in four folders by concern (imports the core and the solvers, never a game):

- :mod:`~mdpviz.models.kit.game`: the game interface: the registry of games, the spec's hooks, the drivers of
  games with a state machine of their own, the headless game model and the settings codec;
- :mod:`~mdpviz.models.kit.boards`: position models, the tic-tac-toe board, grid geometry, strategies and episodes;
- :mod:`~mdpviz.models.kit.pictures`: display data, colour scales, value ranges, ties, the chain of backups and
  the policy diff;
- :mod:`~mdpviz.models.kit.teaching`: the lesson engine, the learning lesson, the algorithms' texts and the
  sensitivity sweeps (switch points, phase diagrams)."""
