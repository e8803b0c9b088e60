"""The headless face of mdpviz: the same models and solvers as the GUI, printed or as JSON.

``mdpviz`` with no arguments opens the GUI; ``mdpviz SUBCOMMAND ...`` works without a display.
Every subcommand module in :data:`COMMAND_MODULES` has ``register(subparsers)``, which adds its
parser and sets ``func(args) -> int`` (the exit status). Bad input is reported as one line on
stderr, ``mdpviz: error: ...``, with exit status 2: never a traceback, never partial output.
"""
from __future__ import annotations

import argparse
import importlib
import io
import json
import sys
from typing import Sequence

COMMAND_MODULES: tuple[str, ...] = (
    "mdpviz.commands.plan",
    "mdpviz.commands.bench",
    "mdpviz.commands.attt",
    "mdpviz.commands.snakes",
    "mdpviz.commands.ttt3d",
    "mdpviz.commands.ttt",
    "mdpviz.commands.checkers",
    "mdpviz.commands.export",
)
"""Modules that each add one or more subcommands (see the module docstring)."""

COMMAND_HELP: dict[str, tuple[str, str]] = {
    "plan": ("mdpviz.commands.plan", "solve a course-format MDP file"),
    "bench": ("mdpviz.commands.bench", "run a benchmark and print measured numbers"),
    "attt": ("mdpviz.commands.attt", "anti-tic-tac-toe: encode, decode, best-response iteration"),
    "snakes": ("mdpviz.commands.snakes",
               "snakes and ladders of the course: optimal dice, expected turns, strategy comparison"),
    "ttt3d": ("mdpviz.commands.ttt3d", "3x3x3 risk tic-tac-toe: train and evaluate reinforcement-learning agents"),
    "ttt": ("mdpviz.commands.ttt", "tic-tac-toe against a uniformly random opponent: exact outcome probabilities"),
    "risk-ttt": ("mdpviz.commands.ttt",
                 "risk tic-tac-toe: minimax values with per-cell risks (3x3 by sweeps, 4x4 exactly)"),
    "match": ("mdpviz.commands.ttt", "risk tic-tac-toe matchups: N games between two agents, with exact probabilities"),
    "checkers": ("mdpviz.commands.checkers", "checkers on a small board: value iteration against a random opponent"),
    "export": ("mdpviz.commands.export",
               "write a game's lesson snapshot (board + convergence plot + parameters) as PNG or SVG"),
}
"""Subcommand -> (module that registers it, its one-line help), in the order of ``mdpviz --help``.
``main`` imports only the module of the command it runs (the others pull in numpy, scipy, Qt...);
tests/test_speed_kernels.py checks this table against what the modules register."""


class CLIError(Exception):
    """A user error: printed as one line and exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's own errors: same one-line form, status 2
        self.print_usage(sys.stderr)
        raise CLIError(message)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser with every registered subcommand.

    With ``argv``, only the module of the command named first in it is imported; the other
    commands get a stub parser carrying just their help line (enough for ``mdpviz --help``).
    """
    parser = _Parser(prog="mdpviz", description="Watch Markov decision processes being solved. "
                     "With no arguments, opens the window.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    if argv is None:
        for name in COMMAND_MODULES:
            importlib.import_module(name).register(sub)
        return parser
    first = next((a for a in argv if not a.startswith("-")), None)
    wanted = COMMAND_HELP[first][0] if first in COMMAND_HELP else None
    done: set[str] = set()
    for cmd, (module, help_text) in COMMAND_HELP.items():
        if module == wanted and module not in done:
            importlib.import_module(module).register(sub)
            done.add(module)
        elif module != wanted:
            sub.add_parser(cmd, help=help_text)
    return parser


def print_json(obj: object) -> None:
    """Print ``obj`` as indented JSON (numpy scalars and arrays converted)."""

    def default(o: object) -> object:
        import numpy as np

        if isinstance(o, np.ndarray):
            return o.tolist()
        if isinstance(o, np.generic):
            return o.item()
        raise TypeError(f"not JSON serialisable: {type(o).__name__}")

    print(json.dumps(obj, indent=2, default=default))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``mdpviz`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        from mdpviz.app import run

        return run()
    try:
        parser = build_parser(argv)
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        if getattr(args, "stream", False):  # long runs (benchmarks) print as they go
            return int(args.func(args) or 0)
        # Buffer stdout so a failure halfway never leaves a partial answer behind.
        buf = io.StringIO()
        real = sys.stdout
        sys.stdout = buf
        try:
            status = int(args.func(args) or 0)
        finally:
            sys.stdout = real
        sys.stdout.write(buf.getvalue())
        sys.stdout.flush()
        return status
    except (CLIError, ValueError, OSError) as e:
        print(f"mdpviz: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mdpviz: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
