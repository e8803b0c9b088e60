"""``mdpviz examples``: list the example files shipped with the package (the CS747 course files)."""
from __future__ import annotations

import argparse

from mdpviz.core.examples import examples


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "examples",
        help="list the example files shipped with mdpviz",
        description="List the course files installed with mdpviz: the CS747 MDP instances (open one "
        "by name: mdpviz plan --mdp episodic-mdp-2-2) with their published solutions, and the "
        "anti-tic-tac-toe states and policy files.",
    )
    p.add_argument("--paths", action="store_true", help="print the full path of each file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    kinds = {"mdp": "MDP files (mdpviz plan --mdp NAME; the window: File > Open example)",
             "states": "anti-tic-tac-toe states files", "policy": "anti-tic-tac-toe policy files"}
    shown = None
    for e in examples():
        if e.kind != shown:
            print(("" if shown is None else "\n") + kinds[e.kind] + ":")
            shown = e.kind
        extra = f"  (solution: {e.solution.name})" if e.solution is not None and not args.paths else ""
        print(f"  {e.path if args.paths else e.name}{extra}")
    if shown is None:
        raise ValueError("no example files are installed (the package data is missing)")
    return 0
