"""Subcommands of the ``mdpviz`` command line; each module has ``register(subparsers)``."""

import argparse
import math
import re


class UsageError(Exception):
    """A command-line error argparse found (an unknown option, a value its type refused): its text is the
    whole one-line message, ``mdpviz: error: <command>: <what>``, printed as is with exit status 2."""


def usage_error(prog: str, message: str) -> UsageError:
    """The one-line error of command ``prog`` ("mdpviz solve", "mdpviz bench core"): ``mdpviz: error:
    solve: <message>``, the prefix of every other error of mdpviz (scripts and tests look for it), then
    the command the message is about."""
    command = prog.removeprefix("mdpviz").strip()
    return UsageError(f"mdpviz: error: {command + ': ' if command else ''}{message}")


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser with its errors in one line (issue 35, item 21): ``mdpviz: error: <command>:
    <message>``, exit status 2, no usage block (argparse prints 14-17 lines of usage before its message,
    while every other error of mdpviz is one line). Every parser of the command line is one of these:
    the sub-parsers inherit the class (``add_subparsers`` uses the parent's), the benchmarks build theirs
    with it (a benchmark's error reaches :func:`mdpviz.cli.main` the same way); ``--help`` still shows the
    usage."""

    def error(self, message: str) -> None:
        raise usage_error(self.prog, message)

    def format_help(self) -> str:
        """The help with reST markup (``code``, :mod:`x` roles) of docstrings used as descriptions removed."""
        return plain(super().format_help())


_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")


def plain(text: str) -> str:
    """``text`` without reStructuredText's markup: ``:mod:`x``` as x, ````code```` and ```code``` as code (a
    docstring written for Sphinx, shown as a command's help)."""
    return _ROLE.sub(r"\1", text).replace("``", "").replace("`", "")


class _Spelled(argparse._StoreAction):
    """argparse's store action that also notes which spelling of the option was typed (:func:`spelled`)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        super().__call__(parser, namespace, values, option_string)
        spellings = dict(getattr(namespace, "spellings_", {}))
        spellings[self.dest] = option_string
        setattr(namespace, "spellings_", spellings)


def add_option(parser, flag: str, *aliases: str, **kwargs) -> argparse.Action:
    """``parser.add_argument(flag, **kwargs)`` plus each of ``aliases`` as a hidden old spelling of the
    same option (one ``dest``, no help line: ``--gamma`` of ``--discount``), so scripts written with an
    old spelling keep working while ``--help`` shows one spelling per concept. A message about the value
    names the spelling typed: :func:`spelled`."""
    if aliases and "action" not in kwargs:
        kwargs["action"] = _Spelled
    action = parser.add_argument(flag, **kwargs)
    hidden = {k: v for k, v in kwargs.items() if k not in ("help", "default", "required", "dest")}
    for alias in aliases:
        parser.add_argument(alias, dest=action.dest, help=argparse.SUPPRESS, default=argparse.SUPPRESS, **hidden)
    return action


def spelled(args: argparse.Namespace, dest: str, flag: str) -> str:
    """The spelling of option ``dest`` the user typed (``--gamma`` for ``--discount``), else ``flag``."""
    return getattr(args, "spellings_", {}).get(dest) or flag


def positive_int(text: str) -> int:
    """argparse type: a whole number of at least 1."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {v}")
    return v


def seed(text: str) -> int:
    """argparse type: a random seed, a whole number of at least 0 (numpy's generators take no other)."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed is a whole number >= 0, got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"a seed is a whole number >= 0, got {v}")
    return v


def check_seed(value: object, flag: str = "--seed") -> int:
    """A seed given as text or number, checked at once (before any work): ValueError naming ``flag``
    unless it is a whole number >= 0 (numpy's generators take no other; issue 35, item 16)."""
    try:
        return seed(str(value).strip())
    except argparse.ArgumentTypeError as e:
        raise ValueError(f"{flag}: {e}") from None


def finite_float(text: str) -> float:
    """An argparse type: a finite number (argparse's one-line error otherwise)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return v


def positive_float(text: str) -> float:
    """argparse type: a finite number above 0."""
    v = finite_float(text)
    if v <= 0:
        raise argparse.ArgumentTypeError(f"must be above 0, got {text!r}")
    return v


def unit_interval(text: str) -> float:
    """argparse type: a number in [0, 1] (a discount, a probability)."""
    v = finite_float(text)
    if not 0 <= v <= 1:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {text!r}")
    return v


def state_counts(text: str) -> list[int]:
    """argparse type: comma-separated whole numbers, each at least 1 (e.g. ``--sizes 1000,10000``)."""
    try:
        counts = [positive_int(x.strip()) for x in text.split(",") if x.strip()]
    except argparse.ArgumentTypeError as e:
        raise argparse.ArgumentTypeError(f"state counts separated by commas: {e}") from None
    if not counts:
        raise argparse.ArgumentTypeError(f"state counts separated by commas: none in {text!r}")
    return counts
