"""Subcommands of the ``mdpviz`` command line; each module has ``register(subparsers)``."""

import argparse
import math


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


def _number(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return v


def positive_float(text: str) -> float:
    """argparse type: a finite number above 0."""
    v = _number(text)
    if v <= 0:
        raise argparse.ArgumentTypeError(f"must be above 0, got {text!r}")
    return v


def unit_interval(text: str) -> float:
    """argparse type: a number in [0, 1] (a discount, a probability)."""
    v = _number(text)
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
