"""A game's command-line model options, headless: :class:`ModelOption`, and where each game keeps its own.

Each game that takes options of its own on the command line lists them in its folder, in
``mdpviz/models/<key>/cli.py``: ``OPTIONS``, a tuple of :class:`ModelOption` in the order they apply
(a preset's risks follow ``--size`` and ``--seed``; a die joins the dice of ``--rules``), and, where
the game's default settings build no model, ``EMPTY``, the one line that says what to give (the file
game: ``--mdp``). The shared grammar of the commands (:mod:`mdpviz.commands.game_args`) reads them
through :func:`options_of`; it names no game. Every option turns its text into scenario data, which the
one settings codec (:mod:`mdpviz.models.kit.game.codec`) then reads, so a value is refused by the same rule,
naming the same field, as in a scenario file. Plain Python; never imports Qt.
"""
from __future__ import annotations

import importlib
import importlib.util
import math
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable


@dataclass(frozen=True)
class ModelOption:
    """One model option of a game: its flag, its help, what it sets, how argparse reads it."""

    flag: str
    """The option as typed, e.g. "--noise"."""
    help: str
    """One line of help (the grammar adds the games that take the flag)."""
    to_data: Callable[[Any, str, dict], dict]
    """``to_data(value, key, data)``: the scenario fields the option sets for game ``key`` (``data``: the
    game's scenario data so far, for options that depend on another field). ValueError: one line naming
    the option."""
    argparse: dict = field(default_factory=dict)
    """Keyword arguments of ``add_argument`` (e.g. ``{"action": "store_true"}``, ``{"choices": ...}``)."""
    aliases: tuple[str, ...] = ()
    """Old spellings still taken, hidden from the help (``--gamma`` of ``--discount``: scripts keep working)."""

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")


def number(flag: str) -> Callable[[str], float]:
    """A parser of a finite number for ``flag`` (ValueError naming it)."""
    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise ValueError(f"{flag}: expected a number, got {text!r}") from None
        if not math.isfinite(v):
            raise ValueError(f"{flag}: expected a finite number, got {text!r}")
        return v
    return parse


def whole(flag: str) -> Callable[[str], int]:
    """A parser of a whole number for ``flag`` (ValueError naming it)."""
    def parse(text: str) -> int:
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{flag}: expected a whole number, got {text!r}") from None
    return parse


def sets(name: str, parse: Callable[[str], Any] = str) -> Callable[[Any, str, dict], dict]:
    """An option that sets scenario field ``name`` to its parsed value."""
    return lambda value, key, data: {name: parse(value)}


def switch(name: str, value: Any) -> Callable[[Any, str, dict], dict]:
    """A switch (``store_true``) that sets scenario field ``name`` to ``value``."""
    return lambda given, key, data: {name: value}


DISCOUNT_FLAG = "--discount"
"""The one spelling of the discount on the command line (issue 35, item 21): the settings field's name (scenario
files, ``--set discount=``, ``sensitivity --param discount``) and the JSON key of every command."""

DISCOUNT_ALIASES = ("--gamma",)
"""The discount's old spelling (tic-tac-toe's and checkers' commands), still taken, hidden from the help."""


def discount(flag: str = DISCOUNT_FLAG, help: str = "the discount gamma per step, in [0, 1]") -> ModelOption:
    """The discount option of a game whose settings have a ``discount`` field: ``--discount`` (``--gamma``
    taken too). ``flag``: kept for callers of the old signature; any other spelling than ``--discount`` is
    refused (one spelling per concept)."""
    if flag not in (DISCOUNT_FLAG, *DISCOUNT_ALIASES):
        raise ValueError(f"the discount is spelled {DISCOUNT_FLAG}, not {flag}")
    return ModelOption(DISCOUNT_FLAG, help, sets("discount", number(DISCOUNT_FLAG)), aliases=DISCOUNT_ALIASES)


def cli_module(key: str) -> ModuleType | None:
    """Game ``key``'s ``mdpviz.models.<key>.cli`` module, or None when the game has none."""
    name = f"mdpviz.models.{key}.cli"
    if importlib.util.find_spec(name) is None:
        return None
    return importlib.import_module(name)


def options_of(key: str) -> tuple[ModelOption, ...]:
    """Game ``key``'s model options, in the order they apply (none: only ``--set``)."""
    mod = cli_module(key)
    return tuple(getattr(mod, "OPTIONS", ())) if mod is not None else ()


def empty_text(key: str) -> str:
    """What to give when game ``key``'s settings build no model (its cli module's ``EMPTY``; "": none said)."""
    mod = cli_module(key)
    return str(getattr(mod, "EMPTY", "")) if mod is not None else ""


__all__ = ["DISCOUNT_ALIASES", "DISCOUNT_FLAG", "ModelOption", "cli_module", "discount", "empty_text", "number", "options_of", "sets", "switch", "whole"]
