"""Scenario data <-> settings: one codec over the games' frozen settings dataclasses.

A game's settings are a frozen dataclass with type hints. :func:`to_data` writes one as plain JSON
data, its fields in order; :func:`from_data` reads it back: it checks each value against its field's
type, builds the dataclass (its ``__post_init__`` runs) and calls its ``validate()`` where it has one,
so a value is refused by the same rule wherever it comes from. Every problem is a
:class:`~mdpviz.core.files.ScenarioError` naming the file and the field, ``games.<key>.<field>``
(``games.snakes.dice[0].faces[1]``); a validation that knows which field is wrong says so by raising
:class:`FieldError`, any other ValueError names the object.

The JSON form follows the type hints: ``bool``, ``int``, ``float`` (finite), ``str`` and ``None`` as
themselves, a tuple as a list, a nested dataclass as an object, ``X | Y`` as whichever of them the
value is. A field missing from the data keeps its default (for the fields of a nested dataclass: the
parent field's default value, else the nested class's defaults); a key that is no field is refused.
Three markers in a field's ``metadata`` describe a JSON shape that differs from the Python one (each
game says beside the field why):

* :data:`INLINE`: a nested dataclass whose fields sit in the parent's object;
* :func:`stored_as`: the field's key in the file is another word;
* :data:`PAIRS_AS_OBJECT`: a tuple of (name, value) pairs is a JSON object.

Plain Python; never imports Qt.
"""
from __future__ import annotations

import dataclasses
import functools
import math
import numbers
import os
import types
import typing
from typing import Any, Collection, Mapping, Sequence, TypeVar

from mdpviz.core.files import ScenarioError

T = TypeVar("T")

INLINE: Mapping[str, Any] = types.MappingProxyType({"codec_inline": True})
"""Field metadata: a nested settings dataclass whose fields are stored in the parent's object."""
PAIRS_AS_OBJECT: Mapping[str, Any] = types.MappingProxyType({"codec_pairs": True})
"""Field metadata: a ``tuple[tuple[str, X], ...]`` of (name, value) pairs stored as a JSON object."""


def stored_as(key: str) -> Mapping[str, Any]:
    """Field metadata: the field is stored under ``key`` in the file."""
    return types.MappingProxyType({"codec_key": key})


class FieldError(ValueError):
    """A settings value that is wrong: ``str()`` reads "<subject> <problem>" as the ValueError always did
    (subject: the field's name, spaces for underscores); the codec reports ``<where>.<field>: <problem>``."""

    def __init__(self, field: str, problem: str, *, subject: str | None = None) -> None:
        self.field = field
        """The field's name in the dataclass."""
        self.problem = problem
        """What is wrong, without the subject ("must be in [0, 1], got 2")."""
        subject = field.replace("_", " ") if subject is None else subject
        super().__init__(f"{subject} {problem}" if subject else problem)


def check_numbers(settings: Any, ranges: Sequence[tuple[str, float, float]]) -> None:
    """Each field ``name`` of ``settings`` a finite number in ``[lo, hi]``, else a FieldError naming it."""
    for name, lo, hi in ranges:
        v = getattr(settings, name)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise FieldError(name, f"must be a finite number, got {v!r}")
        if not lo <= v <= hi:
            raise FieldError(name, f"must be in [{lo:g}, {hi:g}], got {v!r}")


@dataclasses.dataclass(frozen=True)
class _Field:
    name: str
    key: str
    type: Any
    field: dataclasses.Field

    @property
    def inline(self) -> bool:
        return bool(self.field.metadata.get("codec_inline"))

    @property
    def pairs(self) -> bool:
        return bool(self.field.metadata.get("codec_pairs"))

    def default(self, base: Any) -> Any:
        """The value of a missing field: ``base``'s, else the field's default (MISSING: none)."""
        if base is not None:
            return getattr(base, self.name)
        if self.field.default is not dataclasses.MISSING:
            return self.field.default
        if self.field.default_factory is not dataclasses.MISSING:
            return self.field.default_factory()
        return dataclasses.MISSING


@functools.lru_cache(maxsize=None)
def _fields(cls: type) -> tuple[_Field, ...]:
    hints = typing.get_type_hints(cls)
    return tuple(_Field(f.name, f.metadata.get("codec_key", f.name), hints[f.name], f)
                 for f in dataclasses.fields(cls) if f.init)


def _keys(cls: type) -> list[str]:
    """The keys of ``cls``'s JSON object, in order (an inline field's keys in its place)."""
    return [k for f in _fields(cls) for k in (_keys(f.type) if f.inline else [f.key])]


def _key_of(cls: type, name: str) -> str:
    return next((f.key for f in _fields(cls) if f.name == name), name)


# ---------------------------------------------------------------------------------- settings -> data
def to_data(settings: Any, *, skip: Collection[str] = ()) -> dict[str, Any]:
    """``settings`` (a dataclass) as plain JSON data (see the module docstring); the fields named in
    ``skip`` are left to the caller (a game's extras)."""
    out: dict[str, Any] = {}
    for f in _fields(type(settings)):
        if f.name in skip:
            continue
        value = getattr(settings, f.name)
        if f.inline:
            out.update(to_data(value))
        elif f.pairs:
            value_type = typing.get_args(typing.get_args(f.type)[0])[1]
            out[f.key] = {str(k): _encode(value_type, v) for k, v in value}
        else:
            out[f.key] = _encode(f.type, value)
    return out


def _is_union(tp: Any) -> bool:
    return typing.get_origin(tp) in (typing.Union, types.UnionType)


def _encode(tp: Any, value: Any) -> Any:
    if _is_union(tp):
        tp = next((m for m in typing.get_args(tp) if _fits(m, value, python=True)), None)
        if tp is None:
            raise TypeError(f"{value!r} is none of the types its field allows")
    if value is None:
        return None
    if dataclasses.is_dataclass(tp):
        return to_data(value)
    if tp is bool:
        return bool(value)
    if tp is int:
        return int(value)
    if tp is float:
        return float(value)
    if tp is str:
        return value
    if typing.get_origin(tp) is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return [_encode(args[0], v) for v in value]
        return [_encode(t, v) for t, v in zip(args, value)]
    raise TypeError(f"no JSON form for {tp!r}")


# ---------------------------------------------------------------------------------- data -> settings
def as_object(data: Any, path: str | os.PathLike, where: str) -> dict[str, Any]:
    """``data`` if it is a JSON object, else ScenarioError at ``where``."""
    if not isinstance(data, dict):
        raise ScenarioError(path, where, f"must be an object, got {_show(data)}")
    return data


def from_data(cls: type[T], data: Any, path: str | os.PathLike, where: str, *,
              given: Mapping[str, Any] | None = None, ignore: Collection[str] = (), base: Any = None) -> T:
    """The ``cls`` of JSON ``data``, validated (see the module docstring); ScenarioError naming ``path``
    and the field under ``where`` ("games.snakes") otherwise. ``given``: fields the caller decoded
    itself (a game's extras); ``ignore``: keys of ``data`` left to the caller; ``base``: an instance
    whose values missing fields take (default: the fields' defaults)."""
    obj = as_object(data, path, where)
    given = dict(given or {})
    keys = [k for k in _keys(cls) if k not in given]
    unknown = [k for k in obj if k not in keys and k not in ignore]
    if unknown:
        raise ScenarioError(path, f"{where}.{unknown[0]}", f"unknown field (fields: {', '.join([*keys, *ignore])})")
    return _read(cls, obj, path, where, given, base)


def _read(cls: type[T], obj: dict[str, Any], path: str | os.PathLike, where: str,
          given: Mapping[str, Any], base: Any) -> T:
    kw = dict(given)
    for f in _fields(cls):
        if f.name in kw:
            continue
        default = f.default(base)
        if f.inline:
            kw[f.name] = _read(f.type, obj, path, where, {}, None if default is dataclasses.MISSING else default)
        elif f.key not in obj:
            if default is dataclasses.MISSING:
                raise ScenarioError(path, f"{where}.{f.key}", "missing (this field has no default)")
            kw[f.name] = default
        elif f.pairs:
            value_type = typing.get_args(typing.get_args(f.type)[0])[1]
            pairs = as_object(obj[f.key], path, f"{where}.{f.key}")
            kw[f.name] = tuple((k, _decode(value_type, v, path, f"{where}.{f.key}.{k}", None))
                               for k, v in pairs.items())
        else:
            nested = default if dataclasses.is_dataclass(default) else None
            kw[f.name] = _decode(f.type, obj[f.key], path, f"{where}.{f.key}", nested)
    try:
        built = cls(**kw)
        check = getattr(built, "validate", None)
        if callable(check):
            check()
    except FieldError as e:
        raise ScenarioError(path, f"{where}.{_key_of(cls, e.field)}", e.problem) from None
    except ValueError as e:
        raise ScenarioError(path, where, str(e)) from None
    return built


def _decode(tp: Any, value: Any, path: str | os.PathLike, where: str, base: Any) -> Any:
    if _is_union(tp):
        tp = next((m for m in typing.get_args(tp) if _fits(m, value)), tp)
    if _is_union(tp) or not _fits(tp, value):
        raise ScenarioError(path, where, f"must be {_describe(tp)}, got {_show(value)}")
    if value is None or tp in (bool, int, str):
        return value
    if tp is float:
        try:
            ok = math.isfinite(value)
        except OverflowError:  # an integer beyond 1.8e308: no float holds it
            ok = False
        if not ok:
            raise ScenarioError(path, where, f"must be a finite number, got {_show(value)}")
        return float(value)
    if dataclasses.is_dataclass(tp):
        return from_data(tp, value, path, where, base=base if isinstance(base, tp) else None)
    args = typing.get_args(tp)
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(_decode(args[0], v, path, f"{where}[{i}]", None) for i, v in enumerate(value))
    if len(value) != len(args):
        raise ScenarioError(path, where, f"must be {_describe(tp)}, got {_show(value)}")
    return tuple(_decode(t, v, path, f"{where}[{i}]", None) for i, (t, v) in enumerate(zip(args, value)))


def _fits(tp: Any, value: Any, *, python: bool = False) -> bool:
    """Whether ``value`` has the JSON kind of type ``tp`` (``python``: the Python kind, for writing)."""
    if tp is type(None):
        return value is None
    if tp is bool:
        return isinstance(value, bool) or (python and type(value).__name__ == "bool_")
    if tp is int or tp is float:
        kind = numbers.Integral if tp is int else numbers.Real
        return isinstance(value, kind) and not isinstance(value, bool)
    if tp is str:
        return isinstance(value, str)
    if typing.get_origin(tp) is tuple:
        return isinstance(value, (list, tuple))
    if dataclasses.is_dataclass(tp):
        return isinstance(value, tp) if python else isinstance(value, dict)
    raise TypeError(f"no JSON form for {tp!r}")


def _describe(tp: Any, *, plural: bool = False) -> str:
    """What JSON value type ``tp`` takes, in words ("a whole number", or "whole numbers" for ``plural``)."""
    if _is_union(tp):
        return " or ".join(_describe(m, plural=plural) for m in typing.get_args(tp))
    if typing.get_origin(tp) is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return f"{'lists' if plural else 'a list'} of {_describe(args[0], plural=True)}"
        return f"{'lists' if plural else 'a list'} [{', '.join(_describe(a) for a in args)}]"
    if dataclasses.is_dataclass(tp):
        return "objects" if plural else "an object"
    words = {type(None): ("null", "nulls"), bool: ("true or false", "true or false values"),
             int: ("a whole number", "whole numbers"), float: ("a number", "numbers"), str: ("a string", "strings")}
    one, many = words.get(tp, (repr(tp), repr(tp)))
    return many if plural else one


def _show(value: Any) -> str:
    """A value in an error message, short and on one line (a list or object by its size only)."""
    if isinstance(value, list):
        return f"a list of {len(value)} item{'s' if len(value) != 1 else ''}"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    if isinstance(value, str) and len(value) > 40:
        return repr(value[:40]) + "\u2026"
    if isinstance(value, int) and abs(value) >= 10**40:
        return f"an integer of {len(str(abs(value)))} digits"
    return repr(value)


__all__ = ["FieldError", "INLINE", "PAIRS_AS_OBJECT", "as_object", "from_data", "stored_as", "to_data"]
