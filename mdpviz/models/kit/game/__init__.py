"""The game interface: the registry of games, the spec and its hooks, drivers, the headless game model, the settings codec."""
