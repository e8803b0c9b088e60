"""Scenario files: JSON with a schema version, atomic save, errors that name file and field."""
from __future__ import annotations

import json
import os

import pytest

from mdpviz.models import snakes as sn
from mdpviz.models.kit.game.scenario import (
    FORMAT,
    SCHEMA_VERSION,
    Scenario,
    ScenarioError,
    load_scenario,
    parse_scenario,
    save_scenario,
)
from mdpviz.models.kit.game import registry

SNAKES = registry.get("snakes")
snakes_from_dict, snakes_to_dict = SNAKES.from_dict, SNAKES.to_dict

CFG = sn.SnakesSettings(
    layout=(0, 0, 3, 0, 2, 0, 1, 0, 3, 0, 0, 1, 0, 4, 0),
    circle=True,
    dice=(sn.SECURITY, sn.Die("lucky", ((1, 1 / 3), (3, 2 / 3)), 0.25), sn.RISKY),
    type4="gamble",
)


def _scenario() -> Scenario:
    return Scenario(game="snakes", games={"snakes": snakes_to_dict(CFG),
                                         "file": {"path": "a.txt", "text": "", "discount": None, "view": "grid"}},
                    solver={"method": "pi", "tol": 1e-10})


def test_round_trip_is_exact(tmp_path):
    path = save_scenario(_scenario(), tmp_path / "s.json")
    doc = json.loads(path.read_text())
    assert doc["format"] == FORMAT and doc["version"] == SCHEMA_VERSION == 1
    back = load_scenario(path)
    assert back == _scenario()
    cfg = snakes_from_dict(back.games["snakes"], path)
    assert cfg == CFG  # floats such as 1/3 survive JSON exactly
    assert cfg.dice[1].faces[0][1] == 1 / 3


def test_save_is_atomic_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "s.json"
    save_scenario(_scenario(), path)
    before = path.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]

    def crash(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    other = Scenario(game="file", games={}, solver={})
    with pytest.raises(OSError, match="disk full"):
        save_scenario(other, path)
    assert path.read_text() == before  # the old file is untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]  # and the temporary file is gone


def _doc(**over) -> str:
    d = _scenario().to_json()
    d.update(over)
    return json.dumps(d)


@pytest.mark.parametrize(
    "text, where, problem",
    [
        ("{not json", "line 1", "not valid JSON"),
        ("[1, 2]", "", "a scenario is a JSON object"),
        (json.dumps({"format": "other"}), "format", "not an mdpviz scenario"),
        (_doc(version=2), "version", "newer than this mdpviz reads"),
        (_doc(version="1"), "version", "not an integer"),
        (_doc(game=3), "game", "missing or not a string"),
        (_doc(games=[]), "games", "must map game keys"),
        (_doc(solver={"method": "xx"}), "solver.method", "unknown method"),
        (_doc(solver={"tol": -1}), "solver.tol", "positive number"),
    ],
)
def test_bad_documents_name_the_field(text, where, problem):
    with pytest.raises(ScenarioError) as e:
        parse_scenario(text, "scn.json")
    assert e.value.where == where
    assert problem in str(e.value)
    assert str(e.value).startswith("scn.json: ")


def test_missing_file(tmp_path):
    with pytest.raises(ScenarioError, match="no such file"):
        load_scenario(tmp_path / "nope.json")


@pytest.mark.parametrize(
    "data, where, problem",
    [
        ({"layout": [1] + [0] * 14}, "games.snakes.layout", "square 1 is the start"),
        ({"layout": "000"}, "games.snakes.layout", "must be a list of whole numbers"),
        ({"layout": [0, 0.5] + [0] * 13}, "games.snakes.layout[1]", "must be a whole number"),
        ({"circle": "yes"}, "games.snakes.circle", "true or false"),
        ({"dice": []}, "games.snakes.dice", "at least one die"),
        ({"dice": [{"name": "x", "faces": [[1, 0.5], [2, 0.4]], "trigger": 0}]}, "games.snakes.dice[0]", "sum to 0.9"),
        ({"dice": [{"name": "x", "faces": [1, 2], "trigger": 0}]}, "games.snakes.dice[0].faces[0]",
         "must be a list [a whole number, a number]"),
        ({"type4": "lottery"}, "games.snakes.type4", "must be one of"),
    ],
)
def test_bad_snakes_data_names_the_field(data, where, problem):
    with pytest.raises(ScenarioError) as e:
        snakes_from_dict(data, "scn.json")
    assert e.value.where == where
    assert problem in str(e.value)


def test_partial_snakes_data_keeps_defaults():
    assert snakes_from_dict({}, "x") == sn.SnakesSettings()
    assert snakes_from_dict({"circle": True}, "x") == sn.SnakesSettings(circle=True)
