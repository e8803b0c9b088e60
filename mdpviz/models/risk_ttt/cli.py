"""Risk tic-tac-toe's command-line model options, as ``mdpviz risk-ttt`` takes them (read by the shared
grammar, :mod:`mdpviz.commands.game_args`; see :mod:`mdpviz.models.kit.game.options`)."""
from __future__ import annotations

from mdpviz.models.kit.game.options import ModelOption, sets, whole


def _cells(data: dict) -> int:
    return int(data.get("size", 3)) ** 2


def _seed(value: str, key: str, data: dict) -> dict:
    n = whole("--seed")(value)
    if n < 0:
        raise ValueError(f"--seed: a seed is a whole number >= 0, got {n}")
    return {"seed": n}


def _preset(value: str, key: str, data: dict) -> dict:
    from mdpviz.models.kit.boards.ttt_board import PRESETS, risk_preset

    if value not in PRESETS:
        raise ValueError(f"--preset: unknown preset {value!r}; choose one of {', '.join(PRESETS)}")
    risk = risk_preset(value, n_cells=_cells(data), seed=int(data.get("seed", 0)))
    return {"preset": value, "risk": [float(x) for x in risk]}


def _risk(value: str, key: str, data: dict) -> dict:
    from mdpviz.models.kit.boards.ttt_board import parse_risk

    return {"preset": "custom", "risk": [float(x) for x in parse_risk(value, _cells(data))]}


OPTIONS = (
    ModelOption("--size", "board side (as mdpviz risk-ttt)", sets("size", whole("--size"))),
    ModelOption("--seed", "seed of the noisy and random risk presets (and of --order random)", _seed),
    ModelOption("--preset", "a risk preset (as mdpviz risk-ttt)", _preset),
    ModelOption("--risk", "one risk in [0, 1] per cell, comma-separated", _risk),
)
"""Risk tic-tac-toe's model options, in the order they apply (a preset's risks follow --size and --seed)."""

__all__ = ["OPTIONS"]
