"""Reading JSON files safely: one place for the checks every JSON reader needs (issue 14).

A UTF-8 byte-order mark is accepted; a file over :data:`MAX_JSON_BYTES`, nesting deeper than
Python's parser can follow (a 100,000-deep array) and integers longer than
:data:`MAX_INT_DIGITS` digits (a 5,000-digit "version") are each one clear error instead of a
``RecursionError`` or ``ValueError`` traceback. Plain Python; never imports Qt.
"""
from __future__ import annotations

import json
import os
import stat
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


class JSONTooComplex(ValueError):
    """JSON that :func:`loads_bounded` will not read: ``str()`` says why, without naming a file."""


def loads_bounded(text: str) -> Any:
    """``json.loads(text)`` within the limits of the module docstring: an integer longer than
    :data:`MAX_INT_DIGITS` digits or nesting deeper than Python's parser follows is a
    :class:`JSONTooComplex` (one line), never an ``OverflowError`` or ``RecursionError`` traceback;
    text that is not JSON raises ``json.JSONDecodeError`` as ``json.loads`` does."""
    try:
        return json.loads(text, parse_int=_parse_int)
    except json.JSONDecodeError:
        raise
    except _TooLong as e:
        raise JSONTooComplex(f"an integer of {e.digits:,} digits (longer than {MAX_INT_DIGITS})") from None
    except RecursionError:
        raise JSONTooComplex("JSON nested too deeply to read") from None
    except ValueError as e:  # e.g. Python's own integer-length limit
        raise JSONTooComplex(f"not valid JSON ({e})") from None


def parse_json_text(text: str, path: str | os.PathLike, error: Callable[[str], Exception]) -> Any:
    """``json.loads(text)``; every problem raised as ``error("PATH: problem")`` in one line."""
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        return loads_bounded(text)
    except json.JSONDecodeError as e:
        raise error(f"{path}: line {e.lineno}: not valid JSON ({e.msg})") from None
    except JSONTooComplex as e:
        tail = "" if str(e).startswith("not valid") else "; not a file mdpviz wrote"
        raise error(f"{path}: {e}{tail}") from None


MAX_TEXT_BYTES = 256 * 1024 * 1024
"""Largest text file (course MDP file, states or policy file) read: a 50 MB course file already takes
about 800 MB to parse and solve."""

READ_CHUNK = 1 << 20
"""Bytes read per call by :func:`read_bytes_limited`."""


def _a(what: str) -> str:
    """``what`` with its indefinite article ("a grid map", "an agent file")."""
    return f"{'an' if what[:1].lower() in 'aeiou' else 'a'} {what}"


def _kind_of(mode: int) -> str:
    """What a file that is not a regular file is, in words (from its ``st_mode``)."""
    for test, name in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def check_regular_file(path: str | os.PathLike, problem: Callable[[str], Exception], *, what: str = "file") -> os.stat_result:
    """``os.stat(path)`` when ``path`` is a regular file (symbolic links followed); otherwise
    ``problem(text)`` saying what it is instead: missing, a directory, a FIFO, a device or a socket.

    Every reader of a user-given path calls this before ``open``: opening a FIFO blocks until a
    writer comes (for ever, if none does) and a device such as ``/dev/tty`` or ``/dev/zero`` is no
    file of data (issue 35, item 19). The text does not name the file (the caller's exception does)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise problem("no such file") from None
    except NotADirectoryError:
        raise problem("no such file (a part of the path is not a folder)") from None
    except OSError as e:
        raise problem(f"cannot be read ({e.strerror or e})") from None
    if stat.S_ISDIR(info.st_mode):
        raise problem(f"is a directory, not {_a(what)}")
    if not stat.S_ISREG(info.st_mode):
        raise problem(f"is {_kind_of(info.st_mode)}, not a regular file; give the path of {_a(what)}")
    return info


def read_bytes_limited(path: str | os.PathLike, limit: int, problem: Callable[[str], Exception], *,
                       what: str = "file", stop_at_nul: bool = False) -> bytes:
    """The bytes of a regular file, read with a budget of ``limit`` bytes whatever the file claims to
    hold: a file that grows while it is read stops at the budget instead of filling memory (``st_size``
    may lie). A FIFO, a device (``/dev/zero``, ``/dev/tty``) or a socket is refused before it is opened
    (:func:`check_regular_file`: opening a FIFO waits for a writer for ever). ``problem(text)`` makes the
    exception for what is wrong (the text does not name the file: the caller's exception does, its own
    way): no such file, a directory, not a regular file, unreadable, or larger than the budget. ``stop_at_nul``: a text reader's early
    stop; the bytes read so far are returned as soon as a NUL byte is among them (the caller refuses
    binary data with its own message, without reading the rest)."""
    p = Path(path)
    try:
        check_regular_file(p, problem, what=what)
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
                    raise problem(f"over the {limit / 2**20:.3g} MB budget: larger than the {limit:,} bytes this reader "
                                  f"accepts for a {what}")
    except FileNotFoundError:
        raise problem("no such file") from None
    except IsADirectoryError:
        raise problem(f"is a directory, not a {what}") from None
    except OSError as e:
        raise problem(f"cannot be read ({e.strerror or e})") from None
    return b"".join(chunks)


def check_archive_budget(path: str | os.PathLike, limit: int, problem: Callable[[str], Exception], *,
                         what: str = "archive") -> int:
    """The bytes a ``.npz`` (zip) archive would inflate to, checked against ``limit`` BEFORE anything is
    inflated (issue 35, item 12: a 14 MB archive of zeros inflates to 3.2 GB). Each entry's declared
    uncompressed size is read from the zip directory and, for a NumPy array, the array's size from its
    ``.npy`` header (shape x item size: numpy allocates that much before it reads the data); both are
    summed over the entries. Only the headers are decompressed (zipfile never inflates more than an
    entry's declared size, so the sum bounds what a later ``np.load`` reads). ``problem(text)`` makes the
    exception: not a zip archive, or over the budget (the text says the budget)."""
    import zipfile

    import numpy as np

    check_regular_file(path, problem, what=what)
    total = 0
    try:
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                size = int(info.file_size)
                if info.filename.endswith(".npy") and size:
                    with z.open(info) as f:
                        version = np.lib.format.read_magic(f)
                        reader = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                                  else np.lib.format.read_array_header_2_0)
                        shape, _fortran, dtype = reader(f)
                    count = 1
                    for n in shape:
                        count *= int(n)  # Python ints: a lying header cannot overflow the product
                    size = max(size, count * int(dtype.itemsize))
                total += size
                if total > limit:
                    over = (f"its entries would inflate to more than {limit:,} bytes, the budget of {_a(what)} "
                            f"('{info.filename}' alone declares {size:,}); refused before decompressing")
                    break
            else:
                over = ""
    except zipfile.BadZipFile as e:
        over = f"not a readable {what} (a damaged or truncated zip archive: {e})"
    except (ValueError, EOFError, OSError, NotImplementedError, zipfile.LargeZipFile) as e:
        over = f"not a readable {what} (a damaged entry header: {type(e).__name__})"
    if over:
        raise problem(over)
    return total


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


LINE_CHUNK = 1 << 20
"""Characters split into lines at a time by :func:`iter_lines`."""


def iter_lines(text: str, *, chunk: int = LINE_CHUNK):
    """The lines of ``text`` exactly as ``text.splitlines()`` gives them, made a chunk at a time: a 200 MB
    model file split at once is a list of millions of strings (about 70 bytes each), which the readers
    never need all at once. Each chunk ends just after a newline (a ``\\r\\n`` is never cut)."""
    pos, n = 0, len(text)
    while pos < n:
        end = text.find("\n", min(pos + chunk, n) - 1)
        end = n if end < 0 else end + 1
        yield from text[pos:end].splitlines()
        pos = end


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
    if p.exists() and not p.is_file():  # a FIFO or a device: os.replace would not write into it
        raise ValueError(f"{p}: is not a regular file; give a file name for the {what}")
    import tempfile

    try:  # os.access says yes to root everywhere, /proc included: try a scratch file (issue 35, item 20)
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".check", dir=str(parent))
    except OSError as e:
        raise ValueError(f"{p}: cannot write in the folder {parent} ({e.strerror or e})") from None
    os.close(fd)
    os.unlink(tmp)
    return p


class StagedFiles:
    """Outputs that appear together or not at all (issue 35, item 20: a failing ``--csv`` left the figure
    written). :meth:`path` names a temporary file in the target's own folder (same file system, so the
    final rename is atomic; same extension, so writers that go by it still do); :meth:`commit` renames
    every staged file into place once all were written; leaving the ``with`` block without a commit (an
    error) deletes them. A staged folder of numbered frames works the same way (:meth:`folder`)."""

    def __init__(self) -> None:
        self._staged: list[tuple[Path, Path, bool]] = []
        """(temporary path, final path, is a folder of files), in the order staged."""
        self._done = False

    def path(self, final: str | os.PathLike) -> Path:
        """A temporary path for the file ``final`` (in its folder, with its extension)."""
        final = Path(final)
        tmp = final.with_name(f".{final.stem}.{os.getpid()}-{len(self._staged)}.partial{final.suffix}")
        self._staged.append((tmp, final, False))
        return tmp

    def folder(self, final: str | os.PathLike) -> Path:
        """A temporary folder whose files are moved into the folder ``final`` (made if missing) on commit."""
        import tempfile

        final = Path(final)
        base = final
        while not base.is_dir():  # the nearest folder that exists: where the frames' folder will be made
            base = base.parent if str(base.parent) != str(base) else Path(".")
        tmp = Path(tempfile.mkdtemp(prefix=".mdpviz-partial-", dir=str(base)))
        self._staged.append((tmp, final, True))
        return tmp

    def final_names(self, text: str) -> str:
        """``text`` (an error message) with every temporary path replaced by its final path."""
        for tmp, final, _folder in self._staged:
            text = text.replace(str(tmp), str(final))
        return text

    def commit(self) -> list[Path]:
        """Move every staged file into place; the final paths, in the order they were staged."""
        out: list[Path] = []
        try:
            for tmp, final, is_folder in self._staged:
                if is_folder:
                    final.mkdir(parents=True, exist_ok=True)
                    for f in sorted(tmp.iterdir()):
                        os.replace(f, final / f.name)
                        out.append(final / f.name)
                elif tmp.exists():
                    os.replace(tmp, final)
                    out.append(final)
        except OSError as e:
            raise ValueError(f"{final}: cannot be written ({e.strerror or e})") from None
        finally:
            self._done = True
            self.discard()
        return out

    def discard(self) -> None:
        """Delete whatever is still staged."""
        import shutil

        for tmp, _final, is_folder in self._staged:
            if is_folder:
                shutil.rmtree(tmp, ignore_errors=True)
                continue
            try:
                tmp.unlink()
            except OSError:  # never written, or already moved into place
                pass

    def __enter__(self) -> "StagedFiles":
        return self

    def __exit__(self, *exc: object) -> None:
        if not self._done:
            self.discard()


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
