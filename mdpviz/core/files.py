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


MAX_TEXT_BYTES = 256 * 1024 * 1024
"""Largest text file (course MDP file, states or policy file) read: a 50 MB course file already takes
about 800 MB to parse and solve."""

READ_CHUNK = 1 << 20
"""Bytes read per call by :func:`read_bytes_limited`."""


def read_bytes_limited(path: str | os.PathLike, limit: int, problem: Callable[[str], Exception], *,
                       what: str = "file", stop_at_nul: bool = False) -> bytes:
    """The bytes of a file, read with a budget of ``limit`` bytes whatever the file claims to hold:
    ``/dev/zero``, a FIFO or a file that grows while it is read stop at the budget instead of filling
    memory (``st_size`` is 0 for device files and may lie). ``problem(text)`` makes the exception for
    what is wrong (the text does not name the file: the caller's exception does, its own way): no such
    file, a directory, unreadable, or larger than the budget. ``stop_at_nul``: a text reader's early
    stop; the bytes read so far are returned as soon as a NUL byte is among them (the caller refuses
    binary data with its own message, without reading the rest)."""
    p = Path(path)
    try:
        if p.is_dir():
            raise problem(f"is a directory, not a {what}")
        with open(p, "rb") as f:
            chunks: list[bytes] = []
            total = 0
            while True:
                chunk = f.read(min(READ_CHUNK, limit + 1 - total))
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
                if stop_at_nul and b"\0" in chunk:
                    break
                if total > limit:
                    raise problem(f"larger than the {limit:,} bytes this reader accepts for a {what}")
    except FileNotFoundError:
        raise problem("no such file") from None
    except IsADirectoryError:
        raise problem(f"is a directory, not a {what}") from None
    except OSError as e:
        raise problem(f"cannot be read ({e.strerror or e})") from None
    return b"".join(chunks)


def read_text_limited(path: str | os.PathLike, error: Callable[[str], Exception], *, limit: int = MAX_JSON_BYTES) -> str:
    """The UTF-8 text of a file (BOM dropped), or ``error(...)`` naming the file and the problem."""
    p = Path(path)
    data = read_bytes_limited(p, limit, lambda problem: error(f"{p}: {problem}"), stop_at_nul=True)
    nul = data.find(b"\0")
    if nul >= 0:  # JSON text never holds a NUL byte: a binary or device file, refused before reading the rest
        raise error(f"{p}: is not a text file (NUL byte at offset {nul})")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise error(f"{p}: is not a text file (invalid UTF-8 at offset {e.start})") from None


def read_json_file(path: str | os.PathLike, *, error: Callable[[str], Exception] = ValueError) -> Any:
    """The parsed JSON of a file with the checks of the module docstring."""
    return parse_json_text(read_text_limited(path, error), path, error)


def check_writable(path: str | Path, what: str) -> Path:
    """``path`` as a file that can be written, checked before any work (so a bad ``--csv`` does not
    leave the figure written beside an error): ValueError naming the file when it is a folder, or its
    folder is missing, not a folder or not writable."""
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise ValueError(f"{p}: is a folder; give a file name for the {what}")
    if not parent.exists():
        raise ValueError(f"{p}: the folder {parent} does not exist")
    if not parent.is_dir():
        raise ValueError(f"{p}: {parent} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{p}: the folder {parent} is not writable")
    return p


def write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` atomically (a temporary file renamed over ``path``); ValueError naming ``path``
    (not the temporary file) when it cannot be written."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as e:
        try:
            tmp.unlink()
        except OSError:  # never created (no folder), or already gone
            pass
        raise ValueError(f"{path}: cannot be written ({e.strerror or e})") from None
    return path


class ScenarioError(ValueError):
    """A scenario file cannot be read; ``str()`` names the file, the field (or line) and the problem."""

    def __init__(self, path: str | os.PathLike, where: str, problem: str) -> None:
        self.path = str(path)
        self.where = where
        self.problem = problem
        super().__init__(f"{self.path}: {where}: {problem}" if where else f"{self.path}: {problem}")
