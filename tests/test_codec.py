"""The one settings codec (mdpviz.models.kit.game.codec): scenario data <-> a game's frozen settings dataclass.

First the codec on a small dataclass of its own (nested, inline, tuples, optional and union fields,
defaults, the metadata markers, errors that name the field); then every registered game the same way
(parametrised over the registry, so a new game is checked with no edit here): each value of its
scenario entry replaced by one of a wrong type, by a non-finite number, by a bad value of the right
type, and an unknown key in each of its objects, each refused by a ScenarioError naming that field
as ``games.<key>.<field>``.
"""
from __future__ import annotations

import copy
import dataclasses
import json
import math
from dataclasses import dataclass, field
from typing import Any, Iterator

import pytest

import mdpviz.models.kit.game.registry as registry
from mdpviz.core.files import ScenarioError
from mdpviz.models.kit.game.codec import INLINE, PAIRS_AS_OBJECT, FieldError, from_data, stored_as, to_data


# ---------------------------------------------------------------------------------- a dataclass of the test's own
@dataclass(frozen=True)
class Part:
    """A nested settings object."""

    weight: float = 1.0
    steps: int = 3

    def __post_init__(self) -> None:
        if not 0.0 <= self.weight <= 10.0:
            raise FieldError("weight", f"must be in [0, 10], got {self.weight}")


@dataclass(frozen=True)
class Board:
    """Settings stored flat in the parent's object."""

    side: int = 3
    wrap: bool = False

    def validate(self) -> "Board":
        if self.side < 1:
            raise FieldError("side", f"must be at least 1, got {self.side}", subject="the board side")
        return self


@dataclass(frozen=True)
class Example:
    """Every shape the codec knows."""

    name: str
    board: Board = field(default=Board(side=5), metadata=INLINE)
    parts: tuple[Part, ...] = (Part(),)
    main: Part = Part(weight=2.0, steps=7)
    pair: tuple[int, float] = (1, 0.5)
    rate: float | None = None
    risk: str | tuple[float, ...] = "flat"
    env_id: str = field(default="e", metadata=stored_as("env"))
    kwargs: tuple[tuple[str, str], ...] = field(default=(("a", "1"),), metadata=PAIRS_AS_OBJECT)

    def __post_init__(self) -> None:
        if self.rate is not None and self.rate <= 0:
            raise FieldError("rate", f"must be positive, got {self.rate}", subject="the rate")
        if self.name == "plain":
            raise ValueError("a check that names no field")


def read(data: Any) -> Example:
    return from_data(Example, data, "t.json", "games.example")


def test_settings_are_written_in_field_order_in_their_json_shapes():
    ex = Example("x", parts=(Part(0.5, 2), Part()), rate=0.1, risk=(0.25, 1))
    data = to_data(ex)
    assert data == {"name": "x", "side": 5, "wrap": False,
                    "parts": [{"weight": 0.5, "steps": 2}, {"weight": 1.0, "steps": 3}],
                    "main": {"weight": 2.0, "steps": 7}, "pair": [1, 0.5], "rate": 0.1, "risk": [0.25, 1.0],
                    "env": "e", "kwargs": {"a": "1"}}
    assert list(data) == ["name", "side", "wrap", "parts", "main", "pair", "rate", "risk", "env", "kwargs"]
    assert isinstance(data["risk"][1], float)  # a float field writes a float (1.0, not 1)
    back = read(json.loads(json.dumps(data)))
    assert back == ex and hash(back) == hash(ex)  # lists come back as tuples: the settings stay hashable
    assert to_data(ex, skip=("board", "parts", "main")) == {
        k: v for k, v in data.items() if k not in ("side", "wrap", "parts", "main")}


def test_missing_fields_keep_their_defaults_a_nested_object_its_parent_fields_default():
    ex = read({"name": "x", "side": 2, "main": {"steps": 1}})
    assert ex.board == Board(side=2, wrap=False)
    assert ex.main == Part(weight=2.0, steps=1)  # weight from the field's default Part(2.0, 7), not Part()'s 1.0
    assert ex.parts == (Part(),) and ex.rate is None and ex.risk == "flat" and ex.kwargs == (("a", "1"),)
    assert read({"name": "x"}) == Example("x")


@pytest.mark.parametrize(
    "data, where, problem",
    [
        ([], "games.example", "must be an object, got a list of 0 items"),
        ({}, "games.example.name", "missing"),
        ({"name": "x", "colour": 1}, "games.example.colour", "unknown field (fields: name, side, wrap, parts"),
        ({"name": "x", "main": {"colour": 1}}, "games.example.main.colour", "unknown field (fields: weight, steps)"),
        ({"name": 3}, "games.example.name", "must be a string, got 3"),
        ({"name": "x", "wrap": 1}, "games.example.wrap", "must be true or false, got 1"),
        ({"name": "x", "side": 2.0}, "games.example.side", "must be a whole number, got 2.0"),
        ({"name": "x", "side": True}, "games.example.side", "must be a whole number, got true"),
        ({"name": "x", "rate": "fast"}, "games.example.rate", "must be a number or null, got 'fast'"),
        ({"name": "x", "rate": math.nan}, "games.example.rate", "must be a finite number, got nan"),
        ({"name": "x", "pair": [1, math.inf]}, "games.example.pair[1]", "must be a finite number, got inf"),
        ({"name": "x", "pair": [1]}, "games.example.pair", "must be a list [a whole number, a number], got a list of 1"),
        ({"name": "x", "parts": {}}, "games.example.parts", "must be a list of objects, got an object"),
        ({"name": "x", "parts": [{}, {"steps": "3"}]}, "games.example.parts[1].steps", "must be a whole number"),
        ({"name": "x", "risk": 3}, "games.example.risk", "must be a string or a list of numbers, got 3"),
        ({"name": "x", "risk": [0.5, "a"]}, "games.example.risk[1]", "must be a number, got 'a'"),
        ({"name": "x", "env_id": "e"}, "games.example.env_id", "unknown field"),
        ({"name": "x", "kwargs": {"a": 1}}, "games.example.kwargs.a", "must be a string, got 1"),
        ({"name": "x", "kwargs": [["a", "1"]]}, "games.example.kwargs", "must be an object"),
        # the dataclass's own validation, named by its FieldError (nested, inline, top level) or at the object
        ({"name": "x", "parts": [{"weight": 11}]}, "games.example.parts[0].weight", "must be in [0, 10], got 11.0"),
        ({"name": "x", "side": 0}, "games.example.side", "must be at least 1, got 0"),
        ({"name": "x", "rate": -1}, "games.example.rate", "must be positive, got -1.0"),
        ({"name": "plain"}, "games.example", "a check that names no field"),
        ({"name": "x" * 100, "side": "y" * 100}, "games.example.side", "got 'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy'\u2026"),
    ],
)
def test_bad_data_is_one_scenario_error_naming_the_field(data, where, problem):
    with pytest.raises(ScenarioError) as e:
        read(data)
    assert e.value.where == where
    assert problem in e.value.problem
    assert str(e.value) == f"t.json: {where}: {e.value.problem}" and "\n" not in str(e.value)


def test_a_field_error_reads_as_the_value_error_it_always_was():
    with pytest.raises(ValueError, match=r"^weight must be in \[0, 10\], got 11$"):
        Part(weight=11)
    with pytest.raises(ValueError, match=r"^the board side must be at least 1, got 0$"):
        Board(side=0).validate()
    assert str(FieldError("living_reward", "must be finite")) == "living reward must be finite"
    assert str(FieldError("x", "the whole message", subject="")) == "the whole message"


def test_given_fields_and_ignored_keys_leave_a_games_extras_to_it():
    ex = from_data(Example, {"name": "x", "view": "graph"}, "t.json", "games.example",
                   given={"main": Part(0.0, 0)}, ignore=("view",))
    assert ex.main == Part(0.0, 0)
    with pytest.raises(ScenarioError) as e:  # a given field's key is not read from the data
        from_data(Example, {"name": "x", "main": {}}, "t.json", "games.example", given={"main": Part()})
    assert e.value.where == "games.example.main" and "unknown field" in e.value.problem


def test_a_type_without_a_json_form_is_a_programming_error_not_a_scenario_error():
    @dataclass(frozen=True)
    class Odd:
        when: complex = 1j

    with pytest.raises(TypeError, match="no JSON form"):
        to_data(Odd())
    with pytest.raises(TypeError, match="no JSON form"):
        from_data(Odd, {"when": 1}, "t.json", "games.odd")


# ---------------------------------------------------------------------------------- every registered game
KEYS = registry.keys()
Step = str | int


def entry(key: str) -> dict[str, Any]:
    """The game's scenario entry for its default settings, as plain JSON data."""
    spec = registry.get(key)
    return json.loads(json.dumps(spec.to_dict(spec.default_settings()), allow_nan=False))


def nodes(data: Any, steps: tuple[Step, ...] = ()) -> Iterator[tuple[tuple[Step, ...], Any]]:
    """Every value in ``data`` (objects, lists and their items), with the steps that reach it."""
    if steps:
        yield steps, data
    if isinstance(data, dict):
        for k, v in data.items():
            yield from nodes(v, steps + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from nodes(v, steps + (i,))


def put(data: Any, steps: tuple[Step, ...], value: Any) -> Any:
    """A deep copy of ``data`` with the value at ``steps`` replaced."""
    out = copy.deepcopy(data)
    inner = out
    for s in steps[:-1]:
        inner = inner[s]
    inner[steps[-1]] = value
    return out


def name(key: str, steps: tuple[Step, ...]) -> str:
    """``games.snakes.dice[0].faces``: how a ScenarioError names the value at ``steps``."""
    return f"games.{key}" + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in steps)


def game_nodes(key: str) -> list[tuple[tuple[Step, ...], Any]]:
    """The values of the game's entry, its view's display settings left out (the view reads those)."""
    shown = set(registry.get(key).display.keys)
    return [(steps, v) for steps, v in nodes(entry(key)) if steps[0] not in shown]


def refusal(key: str, data: dict[str, Any]) -> ScenarioError | None:
    try:
        registry.get(key).from_dict(data, "t.json")
    except ScenarioError as e:
        return e
    return None


def wrong_type(value: Any) -> Any:
    return 12345 if isinstance(value, str) else ("yes" if isinstance(value, bool) else "text")


def plain_values(value: Any, where: str) -> Iterator[tuple[str, Any]]:
    """Every value inside settings (through nested dataclasses and tuples), with where it sits."""
    yield where, value
    if dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            yield from plain_values(getattr(value, f.name), f"{where}.{f.name}")
    elif isinstance(value, tuple):
        for i, v in enumerate(value):
            yield from plain_values(v, f"{where}[{i}]")


@pytest.mark.parametrize("key", KEYS)
def test_lists_come_back_as_tuples_and_nested_objects_as_dataclasses(key):
    spec = registry.get(key)
    settings = spec.from_dict(entry(key), "t.json")
    hash(settings)  # frozen all the way down: a list left in the settings would make them unhashable
    odd = [w for w, v in plain_values(settings, key) if isinstance(v, (list, dict))]
    assert odd == [], f"JSON lists or objects left in the settings: {odd}"
    nested = {f.name for f in dataclasses.fields(settings) if dataclasses.is_dataclass(getattr(settings, f.name))}
    for f in nested:  # a nested settings object is read as its own dataclass, validated on its own
        assert type(getattr(settings, f)) is type(getattr(spec.default_settings(), f))


@pytest.mark.parametrize("key", KEYS)
def test_a_value_of_the_wrong_type_is_refused_naming_its_field(key):
    for steps, value in game_nodes(key):
        e = refusal(key, put(entry(key), steps, wrong_type(value)))
        assert e is not None, f"{name(key, steps)} = {wrong_type(value)!r} was accepted"
        assert e.where == name(key, steps), str(e)


@pytest.mark.parametrize("key", KEYS)
def test_a_non_finite_number_is_refused_naming_its_field(key):
    numbers = [(steps, v) for steps, v in game_nodes(key) if isinstance(v, (int, float)) and not isinstance(v, bool)]
    for steps, _ in numbers:
        for bad in (math.nan, math.inf, -math.inf):
            e = refusal(key, put(entry(key), steps, bad))
            assert e is not None, f"{name(key, steps)} = {bad} was accepted"
            assert e.where == name(key, steps), str(e)


@pytest.mark.parametrize("key", KEYS)
def test_an_unknown_field_is_refused_naming_it(key):
    spec = registry.get(key)
    free = {f.metadata.get("codec_key", f.name) for f in dataclasses.fields(spec.settings_type)
            if all(f.metadata.get(k) == v for k, v in PAIRS_AS_OBJECT.items())}  # any key is a name there
    objects = [((), entry(key))] + [(steps, v) for steps, v in game_nodes(key)
                                    if isinstance(v, dict) and steps[0] not in free]
    for steps, obj in objects:
        data = put(entry(key), steps, {**obj, "no_such_field": 1}) if steps else {**obj, "no_such_field": 1}
        e = refusal(key, data)
        assert e is not None, f"{name(key, steps)}.no_such_field was accepted"
        assert e.where == name(key, steps + ("no_such_field",)) and "unknown field" in e.problem, str(e)


def within(where: str, path: str) -> bool:
    """Whether ``where`` names ``path`` or an object or list that holds it."""
    return path == where or path.startswith(where + ".") or path.startswith(where + "[")


@pytest.mark.parametrize("key", KEYS)
def test_a_bad_value_is_refused_by_the_settings_own_validation_naming_the_field(key):
    refused = []
    for steps, value in game_nodes(key):
        if isinstance(value, bool) or isinstance(value, (dict, list)) or value is None:
            continue
        candidates = ("\u2603 no such thing",) if isinstance(value, str) else (-1, 10**9, -1e9, 1e9)
        for bad in candidates:
            e = refusal(key, put(entry(key), steps, bad))
            if e is None:
                continue  # a value the game allows (any name, any reward ...)
            assert within(e.where, name(key, steps)) and e.where != f"games.{key}", (
                f"{name(key, steps)} = {bad!r}: refused at {e.where!r}, not at the field: {e}")
            refused.append(name(key, steps))
    assert refused, f"{key}: no bad value of its scenario entry was refused"


MOVED = [
    # validation only the hand-written codecs did, now the dataclasses' own (so the window refuses it too)
    ("file", "discount", lambda s: dataclasses.replace(s, discount=1.5)),
    ("gym", "discount", lambda s: dataclasses.replace(s, discount=-0.5)),
    ("gym", "env_id", lambda s: dataclasses.replace(s, env_id=" ")),
    ("risk_ttt", "size", lambda s: dataclasses.replace(s, size=5)),
    ("risk_ttt", "risk", lambda s: dataclasses.replace(s, risk=(0.5,) * 8)),
    ("risk_ttt", "preset", lambda s: dataclasses.replace(s, preset="lottery")),
    ("ttt3d", "risk", lambda s: dataclasses.replace(s, risk=(0.5,) * 26)),
    ("checkers", "forced_capture", lambda s: dataclasses.replace(s.rules, forced_capture=1)),
    ("attt", "seed", lambda s: dataclasses.replace(s, seed=-1)),
]


@pytest.mark.parametrize("key, field_name, change", MOVED, ids=[f"{k}.{f}" for k, f, _ in MOVED])
def test_validation_the_codecs_did_is_the_settings_own(key, field_name, change):
    with pytest.raises(FieldError) as e:
        change(registry.get(key).default_settings())
    assert e.value.field == field_name


def test_hand_written_entries_that_leave_fields_out_read_as_every_earlier_version_did():
    """Files mdpviz writes hold every key; a teacher's hand-written entry may not. Two fields whose
    dataclass default belongs to another field's default keep the earlier codecs' reading."""
    from mdpviz.models.kit.game import registry

    gym = registry.get("gym").from_dict({"env": "Taxi-v3"}, "<hand>")
    assert gym.env_id == "Taxi-v3" and gym.kwargs == ()  # not FrozenLake's map_name
    assert registry.get("gym").default_settings().kwargs == (("map_name", "'4x4'"), ("is_slippery", "True"))
    risk = registry.get("risk_ttt").from_dict({"risk": [0.5] * 9}, "<hand>")
    assert risk.preset == "custom" and risk.risk == (0.5,) * 9  # its own risks, not the stochastic preset's
    assert registry.get("risk_ttt").from_dict({}, "<hand>").preset == "custom"
