"""Reading JSON files safely: one place for the checks every JSON reader needs (issue 14).

A UTF-8 byte-order mark is accepted; a file over :data:`MAX_JSON_BYTES`, nesting deeper than
Python's parser can follow (a 100,000-deep array) and integers longer than
:data:`MAX_INT_DIGITS` digits (a 5,000-digit "version") are each one clear error instead of a
``RecursionError`` or ``ValueError`` traceback. Plain Python; never imports Qt.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable

MAX_JSON_BYTES = 256 * 1024 * 1024
"""Largest JSON file read (a scenario embedding a 15 MB MDP file is far below it)."""

MAX_INT_DIGITS = 100
"""Longest integer accepted in JSON: every count, cell or version mdpviz reads is far shorter."""


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _TooLong(len(text.lstrip("-")))
    return int(text)


class _TooLong(ValueError):
    def __init__(self, digits: int) -> None:
        self.digits = digits
        super().__init__(digits)


def parse_json_text(text: str, path: str | os.PathLike, error: Callable[[str], Exception]) -> Any:
    """``json.loads(text)``; every problem raised as ``error("PATH: problem")`` in one line."""
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        return json.loads(text, parse_int=_parse_int)
    except json.JSONDecodeError as e:
        raise error(f"{path}: line {e.lineno}: not valid JSON ({e.msg})") from None
    except _TooLong as e:
        raise error(f"{path}: an integer of {e.digits:,} digits (longer than {MAX_INT_DIGITS}); "
                    "not a file mdpviz wrote") from None
    except RecursionError:
        raise error(f"{path}: JSON nested too deeply to read; not a file mdpviz wrote") from None
    except ValueError as e:  # e.g. Python's own integer-length limit
        raise error(f"{path}: not valid JSON ({e})") from None


def read_text_limited(path: str | os.PathLike, error: Callable[[str], Exception], *, limit: int = MAX_JSON_BYTES) -> str:
    """The UTF-8 text of a file (BOM dropped), or ``error(...)`` naming the file and the problem."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if p.is_dir():
            raise error(f"{p}: is a directory")
        if size > limit:
            raise error(f"{p}: {size:,} bytes is larger than the {limit:,} bytes this reader accepts")
        data = p.read_bytes()
    except FileNotFoundError:
        raise error(f"{p}: no such file") from None
    except OSError as e:
        raise error(f"{p}: cannot be read ({e.strerror or e})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise error(f"{p}: is not a text file (invalid UTF-8 at offset {e.start})") from None


def read_json_file(path: str | os.PathLike, *, error: Callable[[str], Exception] = ValueError) -> Any:
    """The parsed JSON of a file with the checks of the module docstring."""
    return parse_json_text(read_text_limited(path, error), path, error)


class ScenarioError(ValueError):
    """A scenario file cannot be read; ``str()`` names the file, the field (or line) and the problem."""

    def __init__(self, path: str | os.PathLike, where: str, problem: str) -> None:
        self.path = str(path)
        self.where = where
        self.problem = problem
        super().__init__(f"{self.path}: {where}: {problem}" if where else f"{self.path}: {problem}")
