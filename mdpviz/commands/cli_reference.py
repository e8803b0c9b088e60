"""The command-line reference, ``docs/cli.md``, generated from the parsers :func:`mdpviz.cli.build_parser` builds.

``python -m mdpviz.commands.cli_reference`` (from a checkout) writes ``docs/cli.md``; ``--check`` only
says whether the file is current (exit 1 when it is not); ``--out -`` prints the page. Every command's
page is what ``mdpviz COMMAND --help`` prints, at a fixed width of :data:`WIDTH` columns and without
colour, so the page depends on the parsers only, never on the terminal it is written from
(``tests/test_docs.py`` compares the file with :func:`render`).
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import Iterator, Sequence

WIDTH = 100
"""Columns of the help text on the page (argparse otherwise reads the terminal's width)."""

REGENERATE = "python -m mdpviz.commands.cli_reference"
"""The one command that writes ``docs/cli.md`` again (named on the page and in the test's message)."""

PYTHON = f"{sys.version_info[0]}.{sys.version_info[1]}"
"""The Python whose argparse wrote the page (named in its first line: help layout changes between versions)."""

DEFAULT_OUT = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
"""Where the page lives in a checkout of the repository."""


@contextlib.contextmanager
def _fixed_terminal() -> Iterator[None]:
    """Make argparse format for a terminal of :data:`WIDTH` columns with no colour, then restore the
    environment (argparse reads ``COLUMNS`` through :func:`shutil.get_terminal_size`; Python 3.13+
    colours help unless ``NO_COLOR`` is set)."""
    saved = {k: os.environ.get(k) for k in ("COLUMNS", "NO_COLOR", "FORCE_COLOR", "PYTHON_COLORS")}
    os.environ["COLUMNS"] = str(WIDTH + 2)  # HelpFormatter takes the terminal's columns minus 2
    os.environ["NO_COLOR"] = "1"
    for k in ("FORCE_COLOR", "PYTHON_COLORS"):
        os.environ.pop(k, None)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(name, one-line help, parser) of each subcommand of ``parser``, in the order ``--help`` lists them."""
    out: list[tuple[str, str, argparse.ArgumentParser]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            seen: set[int] = set()
            for name, sub in action.choices.items():
                if id(sub) not in seen:  # an alias maps to the same parser
                    seen.add(id(sub))
                    out.append((name, helps.get(name, ""), sub))
    return out


def _walk(parser: argparse.ArgumentParser, *, summary: str = "") -> Iterator[tuple[argparse.ArgumentParser, str]]:
    """``parser`` and every parser below it, depth first, each with its one-line help."""
    yield parser, summary
    for _, help_text, sub in _subcommands(parser):
        yield from _walk(sub, summary=help_text)


def _anchor(title: str) -> str:
    """The anchor GitHub gives a heading (lower case, spaces to hyphens, punctuation but ``-``/``_`` dropped)."""
    return "".join(c for c in title.lower().replace(" ", "-") if c.isalnum() or c in "-_")


def written_with(text: str) -> str | None:
    """The Python version named in the first line of a page :func:`render` wrote (None: not named)."""
    first = text.split("\n", 1)[0]
    marker = " with Python "
    return first.split(marker, 1)[1].split(";", 1)[0] if marker in first else None


def option_strings() -> dict[str, list[str]]:
    """Each command's option strings (``--game``, ``-h`` ...) by its ``prog``: what any Python's page names."""
    from mdpviz.cli import build_parser

    with _fixed_terminal():
        return {p.prog: [s for a in p._actions for s in a.option_strings] for p, _ in _walk(build_parser())}


def render() -> str:
    """The whole reference page as Markdown: an index of the commands, then each command's ``--help``."""
    from mdpviz.cli import build_parser

    with _fixed_terminal():
        root = build_parser()
        pages = [(p.prog, summary, p.format_help().rstrip()) for p, summary in _walk(root)]
    lines = [
        f"<!-- {REGENERATE} with Python {PYTHON}; argparse's layout differs a little between versions -->",
        "# Command-line reference",
        "",
        f"Generated from the command line's own parsers by `{REGENERATE}`; do not edit by hand",
        "(`tests/test_docs.py` fails when this page and the parsers differ). Each section is what",
        "`mdpviz COMMAND --help` prints. `mdpviz` with no arguments opens the window; bad input gives one line",
        "on stderr and exit status 2. How the commands fit together, with examples, is in the guides:",
        "[dynamic programming](dynamic-programming.md), [learning](learning.md) and [the games](games.md).",
        "",
        "| command | what it does |",
        "|---|---|",
    ]
    for prog, summary, _ in pages[1:]:
        lines.append(f"| [`{prog}`](#{_anchor(prog)}) | {summary.replace('|', '&#124;')} |")
    for prog, _, text in pages:
        lines += ["", f"## {prog}", "", "```text", text, "```"]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Write (or check, or print) the reference page; returns the exit status."""
    p = argparse.ArgumentParser(prog="python -m mdpviz.commands.cli_reference",
                                description="Write docs/cli.md from the command line's parsers.")
    p.add_argument("--out", default=None,
                   help="the file to write ('-': print it; default: docs/cli.md of this checkout)")
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 if the file is not current")
    args = p.parse_args(argv)
    text = render()
    if args.out == "-":
        sys.stdout.write(text)
        return 0
    out = Path(args.out) if args.out else DEFAULT_OUT
    if args.out is None and not out.parent.is_dir():
        print(f"{p.prog}: error: --out: no docs/ folder at {out.parent} (not a checkout); name a file",
              file=sys.stderr)
        return 2
    if args.check:
        current = out.is_file() and out.read_text(encoding="utf-8") == text
        if not current:
            print(f"{out} is not current: run {REGENERATE}", file=sys.stderr)
        return 0 if current else 1
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
