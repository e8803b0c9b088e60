"""What the window's Sensitivity view needs beside the sweep itself: the numbers of a game's settings that
can be swept, each with a sensible default range.

:func:`numeric_fields` lists the real-valued fields of a game's scenario data (``discount``, ``noise``,
``living_reward``, ``p_heads``, the rewards, costs and means, and the real entries of a list such as
``risk[4]`` or ``request_means[0]``), each with a default range that the game's own validation accepts at
both ends. Whole numbers (a board's size, a goal, a ply limit) change the states themselves and are left
out, as are probabilities that must sum to one with others (a die's faces).

Plain Python; never imports Qt.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mdpviz.core.files import ScenarioError
from mdpviz.models.kit.game import registry
from mdpviz.models.kit.teaching.sensitivity import check_param, with_value

PROBABILITY_FIELDS = frozenset({"noise", "p_heads", "risk", "trigger", "epsilon", "epsilon_min"})
"""Fields (or lists) whose numbers are probabilities: swept over [0, 1] by default."""

FIXED_RANGES: dict[str, tuple[float, float]] = {
    "noise": (0.0, 0.5),  # CS188's questions: from none to a coin flip between the move and a slip
    "living_reward": (-2.0, 1.0),  # from "leave at any price" to "never leave" (CS188 q3)
    "p_heads": (0.05, 0.95),  # the gambler's coin; 0 and 1 make every stake tie
}
"""Default ranges of the fields named here (the others: see :func:`default_range`)."""


@dataclass(frozen=True)
class SweepField:
    """One number of a game's settings that the Sensitivity view can sweep."""

    name: str
    """As the scenario file names it (``discount``, ``risk[4]``, ``dice[1].trigger``): what the sweep takes."""
    value: float
    """Its value in the given settings."""
    lo: float
    """The default range's low end (the game accepts it)."""
    hi: float
    """The default range's high end (the game accepts it)."""

    @property
    def label(self) -> str:
        """The name in words, for menus and axis titles (:func:`field_words`: "living reward", "risk 5",
        "trigger of die 1"); the sweep itself takes :attr:`name`."""
        return field_words(self.name)


SINGULAR = {"dice": "die", "means": "mean", "request_means": "request mean", "return_means": "return mean"}
"""The one-entry word of a list field (the others: the field's words as they are)."""


def field_words(name: str) -> str:
    """A scenario field's path in words, counting entries from 1 (issue 35 item 9: the dock named fields by
    their code names, ``dice[0].trigger``): ``living_reward`` "living reward", ``risk[4]`` "risk 5",
    ``request_means[0]`` "request mean 1", ``dice[0].trigger`` "trigger of die 1"."""
    words: list[str] = []
    for part in name.split("."):
        base, _, rest = part.partition("[")
        if rest.endswith("]") and rest[:-1].isdigit():
            words.append(f"{SINGULAR.get(base, base.replace('_', ' '))} {int(rest[:-1]) + 1}")
        else:
            words.append(part.replace("_", " "))
    return " of ".join(reversed(words))


def _numbers(data: Any, prefix: str = "") -> list[tuple[str, float, str]]:
    """(name, value, last field name) of every real number in scenario ``data`` (lists of reals: each entry)."""
    out: list[tuple[str, float, str]] = []
    if isinstance(data, dict):
        for k, v in data.items():
            name = f"{prefix}.{k}" if prefix else str(k)
            if isinstance(v, float):
                out.append((name, v, str(k)))
            elif isinstance(v, list) and v and all(isinstance(x, float) for x in v):
                out.extend((f"{name}[{i}]", x, str(k)) for i, x in enumerate(v))
            elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
                for i, x in enumerate(v):
                    out.extend(_numbers(x, f"{name}[{i}]"))
            elif isinstance(v, dict):
                out.extend(_numbers(v, name))
    return out


def default_range(field: str, value: float) -> tuple[float, float]:
    """A first range for a field named ``field`` (its last part: ``risk`` for ``risk[4]``) now at ``value``:
    a probability over [0, 1], a discount over [0.1, 0.99] (or [0.5, 1] when it is 1 now), the fields of
    :data:`FIXED_RANGES` over theirs, any other number (a reward, a cost, a mean) from 0 to twice itself
    (or one either side of 0)."""
    if field in FIXED_RANGES:
        return FIXED_RANGES[field]
    if field in PROBABILITY_FIELDS:
        return 0.0, 1.0
    if field == "discount":
        return (0.5, 1.0) if value >= 1.0 else (0.1, 0.99)
    span = max(1.0, abs(value))
    return (min(0.0, 2 * value), max(0.0, 2 * value)) if value != 0 else (value - span, value + span)


def _accepts(key: str, data: dict, name: str, x: float) -> bool:
    spec = registry.get(key)
    try:
        spec.from_dict(with_value(data, name, x), "sensitivity")
    except (ScenarioError, ValueError):
        return False
    return True


def check_range(key: str, data: dict, param: str, lo: float, hi: float) -> None:
    """ValueError (one line) unless ``param`` names a number of game ``key``'s scenario ``data`` and the game
    accepts it at both ends of [lo, hi], lo below hi: what a sweep checks before it starts."""
    key = registry.canonical(key)
    check_param(data, param, key)
    label = param.replace("_", " ")
    if not lo < hi:
        raise ValueError(f"{label}: the range must run from a lower to a higher value, got {lo:g} to {hi:g}")
    spec = registry.get(key)
    for x in (lo, hi):
        try:
            spec.from_dict(with_value(data, param, x), "sensitivity")
        except ScenarioError as e:
            raise ValueError(f"{label} = {x:g}: {e.problem}") from None
        except ValueError as e:
            raise ValueError(f"{label} = {x:g}: {e}") from None


def _accepted_end(key: str, data: dict, name: str, end: float, value: float) -> float:
    """``end`` if the game accepts it, else the first of up to 30 points half way towards ``value`` that it
    accepts, else ``value`` itself (the present setting)."""
    for _ in range(30):
        if _accepts(key, data, name, end):
            return end
        end = 0.5 * (end + value)
    return value


def numeric_fields(key: str, data: dict) -> tuple[SweepField, ...]:
    """The real numbers of game ``key``'s scenario ``data`` that can be swept, each with a default range
    the game accepts at both ends (an end it refuses moves half way towards the present value, up to 30
    times, else to the value itself; a field left with no range is left out)."""
    key = registry.canonical(key)
    if registry.get(key).no_table:
        return ()
    out = []
    for name, value, last in _numbers(data):
        lo, hi = (_accepted_end(key, data, name, end, value) for end in default_range(last, value))
        if lo < hi:
            out.append(SweepField(name, float(value), float(lo), float(hi)))
    return tuple(out)


__all__ = ["SweepField", "check_range", "default_range", "field_words", "numeric_fields"]
