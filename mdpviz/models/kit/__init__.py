"""What the games share, Qt-free: the registry, position models, strategies, the lesson engine,
display data, colour scales, value ranges and episodes. Imports the core and the solvers, never a game."""
