"""Scenarios: the edits of every game and the solver settings, saved as JSON with a schema version.

Pure Python (no Qt). A scenario file looks like::

    {
      "format": "mdpviz-scenario",
      "version": 1,
      "game": "snakes",                       # the game shown when the file is opened
      "games": {                              # each game's edits, by game key
        "snakes": {"layout": [0, 0, 3, ...], "circle": false, "overshoot": "restart",
                   "type4": "bonus", "dice": [{"name": "security", "faces": [[0, 0.5], [1, 0.5]],
                   "trigger": 0.0}, ...]},
        "file": {"path": "episodic-mdp-2-2.txt", "text": "numStates 2 ...", "discount": 0.9,
                 "view": "grid"}
      },
      "solver": {"method": "vi", "tol": 1e-09}
    }

:func:`save_scenario` writes a temporary file in the same folder, flushes it to disk and renames it
over the target (``os.replace``), so a crash never leaves a half-written scenario.
:func:`load_scenario` reports every problem as a :class:`ScenarioError` naming the file and the
field (and the line, for malformed JSON).
"""
from __future__ import annotations

import json
import math
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mdpviz.core.files import ScenarioError, parse_json_text, read_text_limited
from mdpviz.solvers import registry

FORMAT = "mdpviz-scenario"
"""Value of the "format" key that marks a scenario file."""

SCHEMA_VERSION = 1
"""The scenario schema this version of mdpviz writes and reads."""


@dataclass(frozen=True)
class Scenario:
    """Everything a scenario file holds."""

    game: str
    """Key of the game shown ("snakes", "file", ...)."""
    games: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Each game's edits as plain JSON data, by game key."""
    solver: dict[str, Any] = field(default_factory=dict)
    """Solver settings: "method" (a solver or a learner of :mod:`mdpviz.solvers.registry`), "tol"
    (float); "options" (the Solver panel's tie rule, Q convention, sequence, order, theta, where not at
    their defaults) and "learning" (a learner's settings) where the window has them."""

    def to_json(self) -> dict[str, Any]:
        """The JSON document (a dict) of this scenario."""
        return {"format": FORMAT, "version": SCHEMA_VERSION, "game": self.game, "games": self.games,
                "solver": self.solver}


def fsync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable: after a crash the folder's entry could otherwise still name
    the old file (or none). Platforms where a folder cannot be opened (Windows) skip it."""
    try:
        fd = os.open(str(folder or Path(".")), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def save_scenario(scenario: Scenario, path: str | os.PathLike) -> Path:
    """Write ``scenario`` to ``path`` atomically (temporary file in the same folder, then rename)."""
    path = Path(path)
    text = json.dumps(scenario.to_json(), indent=2, allow_nan=False) + "\n"
    # Through a symbolic link: replace the file it points to (the link stays a link).
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        mode = target.stat().st_mode & 0o7777  # an existing file keeps its permissions
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask  # a new file: what open() would have given it
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=str(target.parent or Path(".")))
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
        fsync_folder(target.parent)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def load_scenario(path: str | os.PathLike) -> Scenario:
    """Read a scenario file; raises :class:`ScenarioError` naming the file and what is wrong."""
    path = Path(path)
    return parse_scenario(read_text_limited(path, _error_for(path)), path)


def _error_for(path: str | os.PathLike):
    """A ScenarioError factory for :mod:`mdpviz.core.files` messages ("PATH: [line N: ]problem")."""

    def make(message: str) -> ScenarioError:
        rest = message[len(str(path)) + 2:] if message.startswith(f"{path}: ") else message
        where, sep, problem = rest.partition(": ")
        if sep and where.startswith("line "):
            return ScenarioError(path, where, problem)
        return ScenarioError(path, "", rest)

    return make


def parse_scenario(text: str, path: str | os.PathLike = "<text>") -> Scenario:
    """Parse the JSON text of a scenario (see :func:`load_scenario`)."""
    doc = parse_json_text(text, path, _error_for(path))
    if not isinstance(doc, dict):
        raise ScenarioError(path, "", "a scenario is a JSON object")
    if doc.get("format") != FORMAT:
        raise ScenarioError(path, "format", f"not an mdpviz scenario (expected \"{FORMAT}\")")
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ScenarioError(path, "version", "missing or not an integer")
    if version > SCHEMA_VERSION:
        raise ScenarioError(path, "version", f"schema version {version} is newer than this mdpviz "
                            f"reads ({SCHEMA_VERSION}); update mdpviz")
    if version < 1:
        raise ScenarioError(path, "version", f"unknown schema version {version}")
    game = doc.get("game")
    if not isinstance(game, str) or not game:
        raise ScenarioError(path, "game", "missing or not a string")
    games = doc.get("games", {})
    if not isinstance(games, dict) or not all(isinstance(v, dict) for v in games.values()):
        raise ScenarioError(path, "games", "must map game keys to objects")
    solver = doc.get("solver", {})
    if not isinstance(solver, dict):
        raise ScenarioError(path, "solver", "must be an object")
    methods = registry.ids()  # (every kind: whether this window offers it is the Solver panel's check)
    if "method" in solver and solver["method"] not in methods:
        raise ScenarioError(path, "solver.method", f"unknown method {solver['method']!r} ({', '.join(methods)})")
    for key in ("options", "learning"):
        if key in solver and not isinstance(solver[key], dict):
            raise ScenarioError(path, f"solver.{key}", "must be an object")
    if "tol" in solver:
        tol = solver["tol"]
        if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not (tol > 0 and math.isfinite(tol)):
            raise ScenarioError(path, "solver.tol", f"must be a positive number, got {tol!r}")
    return Scenario(game=game, games=games, solver=solver)

