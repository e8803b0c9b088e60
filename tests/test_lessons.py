"""Lesson text (mdpviz.models.kit.teaching.lessons): built from the models' docstrings and the compiled model,
with the current parameters (the discount above all) filled in. Pure, no Qt."""
from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, replace

import numpy as np
import pytest

from mdpviz.models.kit.teaching import lessons as L
from mdpviz.models import snakes as sn
from mdpviz.models.file import spec as file_spec
from mdpviz.models.snakes import spec as sn_spec
from mdpviz.models import ttt as tt
from mdpviz.core.cs747 import parse_cs747
from mdpviz.core.mdp import TabularMDP
from tests.conftest import SMALL_MDP

@dataclass(frozen=True)
class Wrapper:
    """A game's edits that hold a model's settings one level down (as the window's ttt game does)."""

    settings: tt.VsRandomSettings = tt.VsRandomSettings()
    """The rules and rewards."""
    note: str = "x"
    """A display note."""


# ---------------------------------------------------------------------------------- the discount is current
@pytest.mark.parametrize("gamma", [0.8, 0.95])
def test_ttt_lesson_contains_the_current_discount(gamma):
    lesson = L.lesson_for("ttt", tt.VsRandomSettings(discount=gamma), None)
    g = L.fmt_number(gamma)
    assert lesson.gamma == gamma
    assert lesson.discount.startswith(f"\u03b3 = {g}: ")
    assert f"+ {g}\u00b7V(s\u2032) ]" in lesson.bellman  # the equation with gamma filled in
    assert f"(\u03b3 = {g})" in lesson.bellman
    assert ("discount", g) in [(p.name, p.value) for p in lesson.parameters]
    text = lesson.text()
    assert f"\u03b3 = {g}" in text and f"{g}\u00b7V(" in lesson.example
    other = 0.9 if gamma != 0.9 else 0.5  # the seed's default must not linger anywhere
    assert re.search(f"\u03b3 = {re.escape(L.fmt_number(other))}(?![0-9])", text) is None


def test_file_lesson_follows_a_changed_discount_and_writes_the_backup_out():
    mdp = parse_cs747(SMALL_MDP, "small.txt")
    lesson = file_spec.file_lesson(replace(mdp, discount=0.5), path="/some/where/small.txt")
    assert lesson.title == "MDP from file: small.txt"
    assert lesson.discount.startswith("\u03b3 = 0.5")
    # state 0 by hand: action 0 -> 1/2 (1 + 0.5 V(1)) + 1/2 (0 + 0.5 V(0)); action 1 -> 1 (3 + 0.5 V(2))
    assert ("action 0: 1/2\u00b7(1 + 0.5\u00b7V(1)) + 1/2\u00b7(0 + 0.5\u00b7V(0))") in lesson.example
    assert "action 1: 1\u00b7(3 + 0.5\u00b7V(2))" in lesson.example
    assert "V(0) = max {" in lesson.example
    assert "3 states, 1 of them terminal" in lesson.states
    assert "the values that occur: 0, 1, 2, 3" in lesson.rewards
    assert "and V(s) = 0 in the 1 terminal state" in lesson.bellman


def test_snakes_lesson_from_the_docstrings_and_the_model():
    cfg = sn.SnakesSettings(layout=(0, 0, 3, 0, 2, 0, 1, 0, 3, 0, 0, 1, 0, 4, 0))
    lesson = sn_spec.snakes_lesson(cfg)
    assert lesson.gamma == 1.0 and lesson.discount.startswith("\u03b3 = 1: the turns are counted")
    # the rules are the model's own words
    first = inspect.getdoc(sn.rules).split("\n\n")[1].split(".")[0]  # the rules module's own words
    assert any(b.text.startswith(first) for b in lesson.intro)
    assert any(b.kind == "pre" and "fast lane  1 2 3 11 12 13 14 15" in b.text for b in lesson.intro)
    rule = L.sentences(L.doc_blocks(sn.outcomes.__doc__)[1].text)[0]
    assert lesson.transitions.startswith(rule)
    assert "Current board: 3 prison, 5 penalty, 7 restart, 9 prison, 12 restart, 14 bonus" in lesson.transitions
    for die in cfg.dice:
        assert die.describe() in lesson.actions
    assert "min<sub>a \u2208 {security, normal, risky}</sub>" in lesson.bellman
    # square 1 by hand: security moves 0 or 1 (1/2 each, cost 1); square 3 is a prison (cost 2 when
    # it triggers): the normal die reaches 3 with 1/3, trigger 1/2 -> 1/6 at cost 1 and 1/6 at cost 2
    assert "security: 1/2\u00b7(1 + V(1)) + 1/2\u00b7(1 + V(2))" in lesson.example
    assert "normal: 1/3\u00b7(1 + V(1)) + 1/3\u00b7(1 + V(2)) + 1/6\u00b7(1 + V(3)) + 1/6\u00b7(2 + V(3))" in lesson.example
    assert "Written out for square 1 (the start)" in lesson.example
    names = [p.name for p in lesson.parameters]
    assert names == ["layout", "circle", "overshoot", "dice", "type4"]
    circle = next(p for p in lesson.parameters if p.name == "circle")
    assert circle.value == "no" and circle.meaning.startswith("True: the player must stop exactly on 15")
    md = lesson.markdown()
    assert md.startswith("## Snakes and ladders") and "| `circle` | no |" in md
    assert "```\nslow lane" in md


def test_two_player_equation_has_max_and_min():
    mdp = TabularMDP.from_transitions(3, 2, [0, 0, 1, 1], [0, 1, 0, 1], [1, 2, 2, 2], [1, 1, 1, 1], [1, 2, 0, 5],
                                      discount=1.0, terminal=[2], mover=[1, -1, 1])
    html = L.bellman_html(mdp, mover_names=("X", "O"))
    assert "max<sub>a</sub>" in html and "where X moves" in html
    assert "min<sub>a</sub>" in html and "where O moves" in html
    assert "V(1) = min {" in L.example_html(mdp, 1)


# ---------------------------------------------------------------------------------- docstring reading
def test_field_docs_read_the_source():
    docs = L.field_docs(sn.SnakesSettings)
    assert docs["overshoot"].startswith('On a circular board, overshooting 15 by k')
    assert L.field_docs(sn.rules)["GOAL"] == "The goal square."  # module constants too
    assert L.field_docs(tt.VsRandomSettings)["win"] == "Reward when the agent completes a line (reward units)."


def test_doc_blocks_paragraphs_literals_bullets_and_roles():
    doc = """Title line.

    A paragraph with :class:`~a.b.Thing` and ``code``
    over two lines::

        literal  block

    * first bullet
    * second bullet

    Heading
    -------
    Under the heading.
    """
    blocks = L.doc_blocks(doc)
    kinds = [b.kind for b in blocks]
    assert kinds == ["p", "p", "pre", "li", "li", "h", "p"]
    assert blocks[1].text == "A paragraph with Thing and `code` over two lines:"
    assert blocks[2].text == "literal  block"
    assert L.doc_section(type("X", (), {"__doc__": doc}), "Heading")[0].text == "Under the heading."


def test_parameters_expand_nested_settings_and_keep_big_objects_short():
    params = L.parameters_of(Wrapper(settings=tt.VsRandomSettings(discount=0.7)))
    d = {p.name: p for p in params}
    assert d["settings.discount"].value == "0.7"
    assert d["settings.win"].meaning.startswith("Reward when the agent completes a line")
    assert d["note"].meaning == "A display note."
    assert L.fmt_value(tuple(range(100))) == "100 values"
    assert L.fmt_value(np.array([0.5, 0.25])) == "0.5, 0.25"


def test_parameters_are_named_in_words_on_screen_and_with_their_field_in_markdown():
    """The 3D game's lesson showed "settings.meth" over "od" in its narrow parameter column, and code
    names ("settings.learning_rate", checkers' "rules.forced_capture") where a class reads words."""
    from mdpviz.models.kit.game import registry
    from mdpviz.models.ttt3d import Ttt3dSettings

    lesson = L.lesson_for("ttt3d", Ttt3dSettings(), None)
    assert any(p.name == "settings.learning_rate" for p in lesson.parameters)
    html = lesson.html()
    assert "<td>learning rate</td>" in html and "settings.learning_rate" not in html and "learning_rate" not in html
    assert "learning rate (`settings.learning_rate`)" in lesson.markdown() and "\u200b" not in lesson.markdown()
    spec = registry.get("checkers")
    html = spec.display.lesson(spec.default_settings(), None).html()
    assert "<td>forced capture</td>" in html and "<td>rules.forced_capture" not in html
    # two fields that read the same keep their whole path, in words
    params = (L.Parameter("discount", "0.9", ""), L.Parameter("settings.discount", "0.5", ""),
              L.Parameter("settings.win", "1", ""))
    assert L.parameter_labels(params) == ["discount", "settings discount", "win"]


def test_lesson_for_finds_the_games_lesson_through_the_registry():
    lesson = L.lesson_for("ttt", tt.TicTacToeSettings(settings=tt.VsRandomSettings(discount=0.85)), None)
    assert lesson.title == "Tic-tac-toe against a random opponent"
    assert lesson.gamma == 0.85
    snakes = L.lesson_for("snakes", sn.SnakesSettings(), None)
    assert snakes.title == "Snakes and ladders"
    mdp = parse_cs747(SMALL_MDP, "small.txt")
    other = L.lesson_for("some_new_game", None, mdp, title="New game")
    assert other.title == "New game" and other.gamma == 0.9
    assert L.lesson_for("file", None, None).bellman.startswith("<p>No model yet")
    assert L.lesson_for("Risk_TTT", None, None).title == L.lesson_for("risk-ttt", None, None).title


def test_checkers_lesson_quotes_the_rules_and_the_mdp_sections():
    """The lesson reads its text from the rules module's docstring: after the move into a folder it read
    the package's short docstring and lost everything but the model's counts."""
    from mdpviz.models.kit.game import registry

    spec = registry.get("checkers")
    md = spec.display.lesson(spec.default_settings(), None).markdown()
    for words in ("forced_capture", "multi_jump", "A state is", "An action is", "1/k", "Rewards"):
        assert words in md, words


def test_no_lesson_shows_a_code_reference_in_its_parameter_table():
    from mdpviz.models.kit.game import registry

    for key in registry.keys():
        spec = registry.get(key)
        if spec.display.lesson is None:
            continue
        for p in spec.display.lesson(spec.default_settings(), None).parameters:
            assert ":data:" not in p.meaning and ":func:" not in p.meaning and "MAX_" not in p.meaning, (key, p)
