"""The example data shipped inside the package: the CS747 course files (public course material).

::

    mdpviz/examples/cs747/mdp/           continuing-mdp-10-5.txt, episodic-mdp-2-2.txt, ...
                                         and their published solutions sol-<name>.txt
    mdpviz/examples/cs747/attt/states/   states_file_p1.txt, states_file_p2.txt
    mdpviz/examples/cs747/attt/policies/ p1_policy1.txt, p2_policy1.txt

An example is named by its file name without ``.txt`` (``episodic-mdp-2-2``); :func:`resolve_mdp`
turns a name or a path into a path, so ``mdpviz plan --mdp episodic-mdp-2-2`` works from any folder.
Plain Python; never imports Qt.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

EXAMPLES_DIR = Path(__file__).resolve().parents[1] / "examples"
"""The package's example folder (installed as package data)."""

CS747_DIR = EXAMPLES_DIR / "cs747"
"""The course data: ``mdp/`` (instances and ``sol-*`` solutions) and ``attt/`` (states, policies)."""

MDP_DIR = CS747_DIR / "mdp"
"""The course MDP instances and their published solutions."""

ATTT_DIR = CS747_DIR / "attt"
"""The course's anti-tic-tac-toe folder: ``states/states_file_p{1,2}.txt``, ``policies/p{1,2}_policy1.txt``."""


@dataclass(frozen=True)
class Example:
    """One shipped example file."""

    name: str
    """Its name: the file name without ``.txt`` (``episodic-mdp-2-2``)."""
    kind: str
    """"mdp" (a course MDP file), "states" or "policy" (anti-tic-tac-toe files)."""
    path: Path
    """Where it is installed."""
    solution: Path | None = None
    """The published solution (``sol-<name>.txt``) of an MDP example, if shipped."""


def examples() -> tuple[Example, ...]:
    """Every shipped example, MDP files first, each group sorted by name."""
    out: list[Example] = []
    if MDP_DIR.is_dir():
        for p in sorted(MDP_DIR.glob("*.txt")):
            if p.name.startswith("sol-"):
                continue
            sol = p.with_name("sol-" + p.name)
            out.append(Example(p.stem, "mdp", p, sol if sol.is_file() else None))
    for kind, sub in (("states", "states"), ("policy", "policies")):
        d = ATTT_DIR / sub
        if d.is_dir():
            out.extend(Example(p.stem, kind, p) for p in sorted(d.glob("*.txt")))
    return tuple(out)


def mdp_examples() -> tuple[Example, ...]:
    """The shipped course MDP files (those the window's "Open example" menu lists)."""
    return tuple(e for e in examples() if e.kind == "mdp")


def find_example(name: str) -> Example | None:
    """The example called ``name`` (with or without ``.txt``), or None."""
    stem = name[:-4] if name.endswith(".txt") else name
    for e in examples():
        if e.name == stem:
            return e
    return None


def resolve_mdp(arg: str | os.PathLike) -> Path:
    """``arg`` as a path if such a file or folder exists, else the shipped example of that name.

    A name that is neither is returned unchanged, so the reader reports "no such file" for it.
    """
    p = Path(arg)
    if p.exists():
        return p
    s = str(arg)
    if os.sep not in s and "/" not in s:
        e = find_example(s)
        if e is not None:
            return e.path
    return p
