"""The README is a user's page and ``docs/`` holds the rest (issue 34, item 6); both stay true to the tree.

- ``docs/cli.md`` is what :func:`mdpviz.commands.cli_reference.render` makes of the parsers today;
- the README has at most 250 lines, keeps the quick start's two commands verbatim (``.ci/run`` runs the
  test command as the README writes it) and links every page of ``docs/``;
- every relative link and picture of the README and of ``docs/*.md`` points to a file that exists, and
  a link to a heading of a Markdown page (``page.md#heading``) to a heading that page has.
"""
from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = REPO / "docs"

QUICK_START = (
    'python3 -m pip install . && mdpviz                                # install and open the app',
    'python3 -m pip install ".[test]" && python3 -m pytest             # install and run every test',
)
"""The README's two set-up lines, byte for byte (the second is the command CI runs)."""

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")


def pages() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def prose(text: str) -> str:
    """The Markdown outside fenced code blocks and inline code (where a link is only text)."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives the headings of ``page``."""
    from mdpviz.commands.cli_reference import _anchor

    out = set()
    for line in FENCE.sub("", page.read_text(encoding="utf-8")).splitlines():
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            out.add(_anchor(m.group(1).replace("`", "")))
    return out


def links(page: Path) -> list[str]:
    return LINK.findall(prose(page.read_text(encoding="utf-8")))


def test_the_cli_reference_is_current():
    """Byte for byte under the Python that wrote it; under another (argparse's layout moves a little between
    versions), every option of every command is still on the page and the page names no other command."""
    from mdpviz.commands.cli_reference import PYTHON, REGENERATE, option_strings, render, written_with

    current = (DOCS / "cli.md").read_text(encoding="utf-8") if (DOCS / "cli.md").is_file() else ""
    message = f"docs/cli.md is not what the parsers give: run `{REGENERATE}` and commit it"
    if written_with(current) in (PYTHON, None):
        assert current == render(), message
        return
    sections = dict(re.findall(r"^## ([^\n]+)\n\n```text\n(.*?)\n```$", current, re.MULTILINE | re.DOTALL))
    options = option_strings()
    assert set(sections) == set(options), message
    for prog, names in options.items():
        missing = [n for n in names if not re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", sections[prog])]
        assert not missing, f"{message} (`{prog}` lacks {missing})"


def test_the_cli_reference_does_not_depend_on_the_terminal(monkeypatch):
    from mdpviz.commands.cli_reference import render

    monkeypatch.setenv("COLUMNS", "40")
    narrow = render()
    monkeypatch.setenv("COLUMNS", "250")
    assert render() == narrow
    assert "## mdpviz solve" in narrow and "usage: mdpviz solve" in narrow and "--game KEY" in narrow


def test_the_cli_reference_has_every_command():
    from mdpviz.cli import COMMAND_HELP

    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    for name in COMMAND_HELP:
        assert f"\n## mdpviz {name}\n" in text, f"docs/cli.md has no section for `mdpviz {name}`"


def test_the_readme_is_a_short_page():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines (at most 250: the rest belongs in docs/)"


def test_the_readme_keeps_the_quick_start_commands_verbatim():
    lines = README.read_text(encoding="utf-8").splitlines()
    for command in QUICK_START:
        assert command in lines, f"README.md lost its quick-start line {command!r}"
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert QUICK_START[1].split("#")[0].strip() in ci  # CI runs the README's test command


def test_the_readme_links_every_docs_page():
    docs = sorted(p.name for p in DOCS.glob("*.md"))
    assert {"cli.md", "performance.md", "architecture.md", "dynamic-programming.md", "learning.md",
            "approximation.md", "planning.md", "bandits.md"} <= set(docs)
    linked = {(README.parent / t.split("#")[0]).resolve() for t in links(README) if not t.startswith("#")}
    missing = [name for name in docs if (DOCS / name).resolve() not in linked]
    assert not missing, f"README.md links no docs page {missing}"


def test_every_relative_link_and_picture_exists():
    bad = []
    for page in pages():
        for target in links(page):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            where = f"{page.relative_to(REPO)} -> {target}"
            if not dest.exists():
                bad.append(f"{where}: no such file")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                bad.append(f"{where}: no heading #{anchor} in {dest.relative_to(REPO)}")
    assert not bad, "broken links:\n" + "\n".join(bad)


def test_the_pictures_of_the_readme_are_pictures():
    shown = [t for t in re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", prose(README.read_text(encoding="utf-8")))]
    assert len(shown) >= 4  # a short tour with pictures
    for target in shown:
        assert target.endswith(".png") and (REPO / target).is_file(), target
