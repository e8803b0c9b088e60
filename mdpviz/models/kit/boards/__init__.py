"""Boards shared by games: position models and their display, the tic-tac-toe board, grid geometry, strategies, episodes."""
