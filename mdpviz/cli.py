"""The headless face of mdpviz: the same models and solvers as the GUI, printed or as JSON.

``mdpviz`` with no arguments opens the GUI; ``mdpviz SUBCOMMAND ...`` works without a display.
Every subcommand module in :data:`COMMAND_MODULES` has ``register(subparsers)``, which adds its
parser and sets ``func(args) -> int`` (the exit status). Bad input is reported as one line on
stderr, ``mdpviz: error: ...`` (argparse's own errors: ``mdpviz: error: <command>: ...``), with exit
status 2: never a traceback, never partial output.
"""
from __future__ import annotations

import argparse
import importlib
import io
import json
import math
import re
import sys
from typing import Sequence

from mdpviz.commands import ArgumentParser as _Parser  # argparse's errors in one line (issue 35, item 21)
from mdpviz.commands import UsageError, usage_error

COMMAND_MODULES: tuple[str, ...] = (
    "mdpviz.commands.plan",
    "mdpviz.commands.bench",
    "mdpviz.commands.attt",
    "mdpviz.commands.snakes",
    "mdpviz.commands.ttt3d",
    "mdpviz.commands.ttt",
    "mdpviz.commands.checkers",
    "mdpviz.commands.export",
    "mdpviz.commands.gridworld",
    "mdpviz.commands.gym",
    "mdpviz.commands.examples",
    "mdpviz.commands.solve",
    "mdpviz.commands.sensitivity",
    "mdpviz.commands.export_model",
    "mdpviz.commands.learn",
    "mdpviz.commands.gradient",
    "mdpviz.commands.bandit",
    "mdpviz.commands.mcts",
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
    "gridworld": ("mdpviz.commands.gridworld",
                  "a grid world (CS188's maps or a map file): values and the optimal policy as arrows"),
    "gym": ("mdpviz.commands.gym", "a Gymnasium environment with a transition table P (FrozenLake, CliffWalking, "
            "Taxi, ...): values and the optimal policy"),
    "examples": ("mdpviz.commands.examples", "list the example files shipped with mdpviz"),
    "solve": ("mdpviz.commands.solve",
              "any game, any solver: values, policy and Q per state (to the end or after K sweeps)"),
    "sensitivity": ("mdpviz.commands.sensitivity",
                    "sweep a setting: the exact switch points of the optimal policy, V*(start) along the range"),
    "export-model": ("mdpviz.commands.export_model",
                     "write a game's model for Storm (DRN) or PRISM (explicit files), with the property giving "
                     "mdpviz's values"),
    "learn": ("mdpviz.commands.learn",
              "learn any game from experience (TD, Monte Carlo, SARSA, Q-learning) beside its exact answer"),
    "gradient": ("mdpviz.commands.gradient",
                 "the exact policy gradient at a theta beside sampled REINFORCE estimates, with and without baseline"),
    "bandit": ("mdpviz.commands.bandit",
               "the k-armed bandit testbed (Sutton and Barto ch. 2): curves, regret, the Bayes-optimal answer"),
    "mcts": ("mdpviz.commands.mcts",
             "Monte Carlo tree search (UCT) from a position: each move's visits and mean beside its exact value"),
}
"""Subcommand -> (module that registers it, its one-line help), in the order of ``mdpviz --help``.
``main`` imports only the module of the command it runs (the others pull in numpy, scipy, Qt...);
tests/test_speed_kernels.py checks this table against what the modules register."""


class CLIError(Exception):
    """A user error: printed as one line and exit status 2."""




def _version() -> str:
    """The installed version of mdpviz (the package metadata, else the source tree's)."""
    try:
        from importlib.metadata import version

        return version("mdpviz")
    except Exception:  # running from a source tree that is not installed
        from mdpviz import __version__

        return __version__


class _VersionAction(argparse.Action):
    """``--version``: looks the version up only when asked (importlib.metadata costs ~30 ms a start)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show program's version number and exit")

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(f"mdpviz {_version()}")  # to stdout, as argparse's own version action
        parser.exit()


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser with every registered subcommand.

    With ``argv``, only the module of the command named first in it is imported; the other
    commands get a stub parser carrying just their help line (enough for ``mdpviz --help``).
    """
    parser = _Parser(prog="mdpviz", description="Watch Markov decision processes being solved. "
                     "With no arguments, opens the window.")
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    if argv is None:
        for name in COMMAND_MODULES:
            importlib.import_module(name).register(sub)
        return parser
    first = next((a for a in argv if not a.startswith("-")), None)
    wanted = COMMAND_HELP[first][0] if first in COMMAND_HELP else None
    # The stubs only feed the top-level help and its "invalid choice" message; a known command with
    # no option before it (no --help/-h, even abbreviated) never shows either, so it skips them
    # (13 argparse parsers, ~10 ms of `mdpviz plan`'s start).
    stubs = wanted is None or any(a.startswith("-") for a in argv[: argv.index(first)])
    done: set[str] = set()
    for cmd, (module, help_text) in COMMAND_HELP.items():
        if module == wanted and module not in done:
            importlib.import_module(module).register(sub)
            done.add(module)
        elif module != wanted and stubs:
            sub.add_parser(cmd, help=help_text)
    return parser


def json_safe(obj: object, where: str = "") -> object:
    """``obj`` with numpy arrays and scalars as Python lists and numbers, NaN as null (every NaN in a
    result means "not measured") and an infinite number refused: ValueError naming its key (issue 35,
    item 14: 101 ``Infinity`` tokens are not JSON, and an overflow is no result)."""
    if isinstance(obj, float):
        if math.isfinite(obj):
            return obj
        if math.isnan(obj):
            return None
        raise ValueError(f"the result's {where.lstrip('.') or 'value'} is {obj}: an overflow, not a result; "
                         "nothing printed")
    if isinstance(obj, dict):
        return {k: json_safe(v, f"{where}.{k}") for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v, f"{where}[{i}]") for i, v in enumerate(obj)]
    if type(obj).__module__ == "numpy":
        import numpy as np

        if isinstance(obj, np.ndarray):
            return json_safe(obj.tolist(), where)
        if isinstance(obj, np.generic):
            return json_safe(obj.item(), where)
    return obj


def print_json(obj: object) -> None:
    """Print ``obj`` as indented JSON, always valid (:func:`json_safe`: numpy converted, NaN as null,
    ValueError for an infinite number)."""

    def default(o: object) -> object:
        raise TypeError(f"not JSON serialisable: {type(o).__name__}")

    print(json.dumps(json_safe(obj), indent=2, default=default, allow_nan=False))


def _one_line_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings (e.g. probabilities rescaled to sum to 1) as one line on stderr, not two with source."""
    kind = "note" if issubclass(category, UserWarning) else "warning"
    print(f"mdpviz: {kind}: {message}", file=sys.stderr if file is None else file)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``mdpviz`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        from mdpviz.startup_check import explain_missing_display

        problem = explain_missing_display()
        if problem:
            print(problem, file=sys.stderr)
            return 2
        import gc

        # No cyclic collection while the window's modules load (about 150 collections, 0.06 s of
        # the start): the window collects on its GUI thread once it is built (see mdpviz.app.run).
        gc.disable()
        from mdpviz.app import run

        return run()
    import warnings

    with warnings.catch_warnings():
        warnings.showwarning = _one_line_warning
        return _main(argv)


def _run(args: argparse.Namespace) -> int:
    """Run a parsed command with long simulations' progress shown on a terminal (imported only
    now: ``mdpviz --help`` never loads the models, nor numpy)."""
    from mdpviz.core.chunked import set_reporter

    previous = set_reporter(_TerminalProgress() if sys.stderr.isatty() else None)
    try:
        return int(args.func(args) or 0)
    finally:
        reporter = set_reporter(previous)
        if isinstance(reporter, _TerminalProgress):
            reporter.clear()


class _TerminalProgress:
    """Long simulations' progress as one self-erasing line on a terminal's stderr (at most 5 per second)."""

    def __init__(self) -> None:
        self.last = 0.0
        self.shown = False

    def __call__(self, done: int, total: int, label: str) -> None:
        import time

        now = time.monotonic()
        if done < total and now - self.last < 0.2:
            return
        self.last = now
        sys.stderr.write(f"\r{done:,} of {total:,} {label} ({100.0 * done / max(total, 1):.0f}%), Ctrl+C stops\x1b[K")
        sys.stderr.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self.shown = False


NEGATIVE_VALUE = re.compile(r"^-\.?\d")
"""A value that starts like a negative number: "-0.1,0.3,..." (a list), "-1e-3"."""


def join_negative_values(argv: list[str]) -> list[str]:
    """``--risk -0.1,0.3`` as ``--risk=-0.1,0.3``: argparse takes a value starting with "-" for an
    option unless it is one plain negative number, so a list of numbers whose first is negative met
    "expected one argument". No mdpviz option is spelled like a number, so nothing else changes."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if (a.startswith("--") and "=" not in a and i + 1 < len(argv) and NEGATIVE_VALUE.match(argv[i + 1])):
            out.append(f"{a}={argv[i + 1]}")
            i += 2
            continue
        out.append(a)
        i += 1
    return out


def _main(argv: list[str]) -> int:
    argv = join_negative_values(argv)
    try:
        parser = build_parser(argv)
        args, extra = parser.parse_known_args(argv)
        if extra:  # named by the command they were given to, as its other errors are
            raise usage_error(f"mdpviz {getattr(args, 'command', None) or ''}",
                              f"unrecognized arguments: {' '.join(extra)}")
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        args.argv = list(argv)  # what the command was given (a lesson page shows the command that made it)
        if getattr(args, "stream", False):  # long runs (benchmarks) print as they go
            return _run(args)
        # Buffer stdout so a failure halfway never leaves a partial answer behind.
        buf = io.StringIO()
        real = sys.stdout
        sys.stdout = buf
        try:
            status = _run(args)
        finally:
            sys.stdout = real
        sys.stdout.write(buf.getvalue())
        sys.stdout.flush()
        return status
    except UsageError as e:  # argparse's own: "mdpviz: error: <command>: <message>", one line
        print(e, file=sys.stderr)
        return 2
    except (CLIError, ValueError, OSError) as e:
        print(f"mdpviz: error: {e}", file=sys.stderr)
        return 2
    except MemoryError:  # numpy's ArrayMemoryError too: one line, never a traceback
        print("mdpviz: error: out of memory: the model or the option values ask for more memory than this "
              "machine has (lower the sizes, budgets or MDPVIZ_MAX_STATES)", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        from mdpviz.core.chunked import SimulationInterrupted, reporter

        r = reporter()
        if isinstance(r, _TerminalProgress):
            r.clear()
        if isinstance(e, SimulationInterrupted):
            print(f"mdpviz: {e} (nothing printed: a partial run is not a result)", file=sys.stderr)
        else:
            print("mdpviz: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
