"""Subcommands of the ``mdpviz`` command line; each module has ``register(subparsers)``."""
