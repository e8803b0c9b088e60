"""The course MDP file format (seed 000, the cs747 planning assignment).

::

    numStates 2
    numActions 2
    end -1                      # terminal states, or -1 for none
    transition 0 0 1 0.93 0.65  # s a s' reward probability
    ...
    mdptype continuing          # or episodic
    discount  0.96

Fields may be separated by several spaces. Every problem with a file is reported as a
:class:`MDPFileError` whose message names the file, the line and what is wrong.
"""
from __future__ import annotations

import math
import os
import warnings
from array import array
from pathlib import Path
from typing import Generator

import numpy as np

from mdpviz.core.files import MAX_TEXT_BYTES, iter_lines, read_bytes_limited
from mdpviz.core.jobs import JobProgress, drive
from mdpviz.core.mdp import PROB_TOL, TabularMDP, check_state_budget

RENORMALISE_TOL = 1e-5
"""A (state, action)'s probabilities that sum to within this of 1 (files written to 6 decimals:
``0.333333`` three times) are rescaled to sum to 1, with one :class:`RenormalisedWarning`; the
anti-tic-tac-toe policy reader accepts the same tolerance."""


class RenormalisedWarning(UserWarning):
    """Probabilities of a file were rescaled to sum to 1 (the CLI prints it as one note on stderr)."""

HEADERS = ("numStates", "numActions", "end", "mdptype", "discount")


class MDPFileError(ValueError):
    """A course-format file is malformed; ``str()`` is ``"FILE:LINE: problem"``."""

    def __init__(self, path: str | os.PathLike, line: int | None, problem: str) -> None:
        self.path = str(path)
        self.line = line
        self.problem = problem
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {problem}")


def read_text_file(path: str | os.PathLike) -> str:
    """The text of a file, or MDPFileError (no such file, a directory, over :data:`~mdpviz.core.files.MAX_TEXT_BYTES`
    whatever the file claims to hold, binary or not UTF-8)."""
    data = read_bytes_limited(path, MAX_TEXT_BYTES, lambda problem: MDPFileError(path, None, problem),
                              what="course file", stop_at_nul=True)
    nul = data.find(b"\0")
    if nul >= 0:
        raise MDPFileError(path, None, f"is not a text file (NUL byte at offset {nul})")
    try:
        return data.decode("utf-8-sig")  # a UTF-8 byte-order mark (Windows editors) is dropped
    except UnicodeDecodeError as e:
        raise MDPFileError(path, None, f"is not a text file (invalid UTF-8 at offset {e.start})") from None


NOT_METHOD_IDS = {"q": "the typecode of array(\"q\"): 64-bit integers, not Q-learning"}
"""Words equal to a method id used here in another sense (read by the registry test's scan)."""

PROGRESS_LINES = 65_536
"""Lines parsed between two progress reports / cancel checks of :func:`parse_cs747`."""


def parse_cs747(text: str, path: str | os.PathLike = "<text>") -> TabularMDP:
    """Parse course-format text into a :class:`TabularMDP` (see :func:`load_cs747`)."""
    return drive(parse_cs747_job(text, path))


def parse_cs747_job(text: str, path: str | os.PathLike = "<text>") -> Generator[JobProgress, None, TabularMDP]:
    """:func:`parse_cs747` as a job generator (:mod:`mdpviz.core.jobs`): it yields progress every
    :data:`PROGRESS_LINES` lines (a chance to cancel: the window parses on its job thread) and
    returns the model."""
    header: dict[str, tuple[int, list[str]]] = {}
    # The transitions' fields converted as they are read, into compact arrays (a list of five strings per line
    # took ~15 times the file's size in memory); a field that does not convert is a 0 here and the line is
    # checked again, word for word, once the header is known (the first bad line's message is as before).
    t_lines, t_ints, t_nums = array("q"), array("q"), array("d")
    first_unread: int | None = None
    n_lines = max(text.count("\n"), 1)
    name = Path(str(path)).name
    for no, raw in enumerate(iter_lines(text), start=1):
        if no % PROGRESS_LINES == 0:
            yield JobProgress(no, 2 * n_lines, f"Reading {name}: line {no:,} of {n_lines:,}")
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        key = parts[0]
        if key == "transition":
            if len(parts) != 6:
                raise MDPFileError(path, no, f"a transition needs 5 fields 's a s2 reward prob', got {len(parts) - 1}")
            t_lines.append(no)
            try:
                t_ints.extend((int(parts[1]), int(parts[2]), int(parts[3])))
                t_nums.extend((float(parts[4]), float(parts[5])))
            except (ValueError, OverflowError):
                if first_unread is None:
                    first_unread = len(t_lines) - 1
                del t_ints[3 * (len(t_lines) - 1):]
                del t_nums[2 * (len(t_lines) - 1):]
                t_ints.extend((0, 0, 0))
                t_nums.extend((0.0, 0.0))
        elif key in HEADERS:
            if key in header:
                raise MDPFileError(path, no, f"'{key}' repeated (first given on line {header[key][0]})")
            header[key] = (no, parts[1:])
        else:
            raise MDPFileError(path, no, f"unknown keyword '{key}' (expected one of {', '.join(HEADERS)}, transition)")
    if not header and not t_lines:
        raise MDPFileError(path, None, "is empty")
    for key in HEADERS:
        if key not in header:
            raise MDPFileError(path, None, f"missing header '{key}'")

    def one_int(key: str, lo: int) -> int:
        no, vals = header[key]
        if len(vals) != 1:
            raise MDPFileError(path, no, f"'{key}' takes one integer, got {len(vals)} values")
        try:
            v = int(vals[0])
        except ValueError:
            raise MDPFileError(path, no, f"'{key}' must be an integer, got '{vals[0]}'") from None
        if v < lo:
            raise MDPFileError(path, no, f"'{key}' must be at least {lo}, got {v}")
        return v

    n_states = one_int("numStates", 1)
    n_actions = one_int("numActions", 1)
    for key, n, what in (("numStates", n_states, "states"), ("numActions", n_actions, "action ids")):
        try:
            check_state_budget(n, what)  # before anything of that size is allocated
        except ValueError as e:
            raise MDPFileError(path, header[key][0], str(e)) from None

    no, vals = header["end"]
    if not vals:
        raise MDPFileError(path, no, "'end' needs the terminal states, or -1 for none")
    try:
        ends = [int(v) for v in vals]
    except ValueError:
        raise MDPFileError(path, no, f"'end' takes integers, got '{' '.join(vals)}'") from None
    if ends == [-1]:
        ends = []
    for e in ends:
        if not 0 <= e < n_states:
            raise MDPFileError(path, no, f"terminal state {e} is out of range 0..{n_states - 1}")

    no, vals = header["mdptype"]
    if len(vals) != 1 or vals[0] not in ("continuing", "episodic"):
        raise MDPFileError(path, no, f"'mdptype' must be 'continuing' or 'episodic', got '{' '.join(vals)}'")
    mdptype = vals[0]

    no, vals = header["discount"]
    try:
        if len(vals) != 1:
            raise ValueError
        discount = float(vals[0])
    except ValueError:
        raise MDPFileError(path, no, f"'discount' takes one number, got '{' '.join(vals)}'") from None
    if not (0.0 <= discount <= 1.0):
        raise MDPFileError(path, no, f"discount {discount:g} is outside [0, 1]")

    m = len(t_lines)
    yield JobProgress(n_lines, n_lines + 1, f"Checking {name}: {m:,} transitions")
    ints3 = np.frombuffer(t_ints, dtype=np.int64).reshape(m, 3)
    nums2 = np.frombuffer(t_nums, dtype=np.float64).reshape(m, 2)
    src, act, dst = (np.array(ints3[:, j]) for j in range(3))
    rew, prob = (np.array(nums2[:, j]) for j in range(2))
    del ints3, nums2, t_ints, t_nums
    # The first transition that breaks a rule (a field that is not a number, out of range, not finite, a
    # probability outside [0, 1]) is read again field by field below, for its exact message.
    bad = ((src < 0) | (src >= n_states) | (act < 0) | (act >= n_actions) | (dst < 0) | (dst >= n_states)
           | ~np.isfinite(rew) | ~np.isfinite(prob) | (prob < 0.0) | (prob > 1.0))
    first_bad = int(np.argmax(bad)) if bad.any() else None
    if first_unread is not None and (first_bad is None or first_unread < first_bad):
        first_bad = first_unread
    if first_bad is not None:
        no = int(t_lines[first_bad])
        raw = next(r for k, r in enumerate(iter_lines(text), start=1) if k == no)
        _check_transition(raw.split("#", 1)[0].split()[1:], no, path, n_states, n_actions)
        raise MDPFileError(path, no, "this transition is malformed")  # (not reached: the check names why)
    prob = _check_sums(src, act, prob, t_lines, n_states, n_actions, path)
    return _build(n_states, n_actions, src, act, dst, prob, rew, ends, discount, mdptype, path)


def _check_transition(f: list[str], no: int, path, n_states: int, n_actions: int) -> None:
    """A transition line's fields ``s a s2 reward prob`` checked in order (MDPFileError naming the first
    rule they break)."""
    names = ("state", "action", "next state", "reward", "probability")
    limits = (n_states, n_actions, n_states)
    for j in range(3):
        try:
            v = int(f[j])
        except ValueError:
            raise MDPFileError(path, no, f"{names[j]} must be an integer, got '{f[j]}'") from None
        if not 0 <= v < limits[j]:
            raise MDPFileError(path, no, f"{names[j]} {v} is out of range 0..{limits[j] - 1}")
    nums = []
    for j in (3, 4):
        try:
            x = float(f[j])
        except ValueError:
            raise MDPFileError(path, no, f"{names[j]} must be a number, got '{f[j]}'") from None
        if not math.isfinite(x):
            raise MDPFileError(path, no, f"{names[j]} must be finite, got '{f[j]}'")
        nums.append(x)
    if not 0.0 <= nums[1] <= 1.0:
        raise MDPFileError(path, no, f"probability {f[4]} is outside [0, 1]")


def _check_sums(src: np.ndarray, act: np.ndarray, prob: np.ndarray, t_lines, n_states: int, n_actions: int,
                path) -> np.ndarray:
    """The probabilities, each (state, action)'s summing to 1: MDPFileError at the first line of a pair whose
    sum is off by more than the renormalising tolerance; rescaled, with a warning, within it."""
    m = len(src)
    if m:
        key = src * n_actions + act
        uniq, first, inv = np.unique(key, return_index=True, return_inverse=True)
        sums = np.bincount(inv, weights=prob)
        bad = np.flatnonzero(np.abs(sums - 1.0) > RENORMALISE_TOL)
        if bad.size:
            b = bad[np.argmin(first[bad])]
            s, a = divmod(int(uniq[b]), n_actions)
            raise MDPFileError(
                path, t_lines[first[b]],
                f"state {s}, action {a}: probabilities sum to {sums[b]:.12g}, not 1 "
                f"(tolerance {RENORMALISE_TOL:g})",
            )
        off = np.flatnonzero(np.abs(sums - 1.0) > PROB_TOL)
        if off.size:
            b = off[np.argmin(first[off])]
            s, a = divmod(int(uniq[b]), n_actions)
            prob = prob / sums[inv]
            warnings.warn(RenormalisedWarning(
                f"{path}: probabilities of {off.size} (state, action) pair{'s' if off.size > 1 else ''} "
                f"summed to within {RENORMALISE_TOL:g} of 1 and were rescaled to 1 (first: state {s}, "
                f"action {a}, line {t_lines[first[b]]}, sum {sums[b]:.12g})"), stacklevel=3)
    return prob


def _build(n_states: int, n_actions: int, src, act, dst, prob, rew, ends, discount: float, mdptype: str,
           path) -> TabularMDP:
    """The model of checked transitions (MDPFileError for what :meth:`TabularMDP.from_transitions` refuses)."""
    try:
        return TabularMDP.from_transitions(
            n_states, n_actions, src, act, dst, prob, rew,
            discount=discount, terminal=ends, mdptype=mdptype,
        )
    except ValueError as e:  # e.g. a non-terminal state without any transition
        raise MDPFileError(path, None, str(e)) from None


def load_cs747(path: str | os.PathLike) -> TabularMDP:
    """Read a course-format MDP file; raises :class:`MDPFileError` naming file, line and problem."""
    return parse_cs747(read_text_file(path), path)


def format_cs747(mdp: TabularMDP) -> str:
    """The course-format text of an MDP; ``repr`` of floats keeps the round trip exact."""
    if mdp.is_two_player or mdp.objective != "max":
        raise ValueError("the course format holds one-player reward-maximising MDPs only")
    t = mdp.to_transitions()
    ends = np.flatnonzero(mdp.terminal)
    out = [f"numStates {mdp.n_states}", f"numActions {mdp.n_actions}"]
    out.append("end " + (" ".join(str(int(e)) for e in ends) if ends.size else "-1"))
    for s, a, d, r, p in zip(t["src"], t["action"], t["dst"], t["reward"], t["prob"]):
        out.append(f"transition {int(s)} {int(a)} {int(d)} {float(r)!r} {float(p)!r}")
    mdptype = mdp.mdptype or ("episodic" if ends.size else "continuing")
    out.append(f"mdptype {mdptype}")
    out.append(f"discount {mdp.discount!r}")
    return "\n".join(out) + "\n"


def save_cs747(mdp: TabularMDP, path: str | os.PathLike) -> None:
    """Write an MDP in the course format (written to a temporary file, then renamed)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(format_cs747(mdp))
    os.replace(tmp, path)


def format_value_policy(values: np.ndarray, policy: np.ndarray) -> str:
    """Solution text like the course's ``sol-*`` files: ``V pi`` per state, V with 6 decimals.

    Terminal states (policy -1) print action 0, as the course's solutions do.
    """
    return "".join(f"{v:.6f} {max(int(a), 0)}\n" for v, a in zip(values, policy))


def parse_value_policy(text: str, path: str | os.PathLike = "<text>") -> tuple[np.ndarray, np.ndarray]:
    """Read ``V pi`` lines (a solution file) into (values, actions)."""
    vals, acts = [], []
    for no, raw in enumerate(text.splitlines(), start=1):
        parts = raw.split()
        if not parts:
            continue
        if len(parts) != 2:
            raise MDPFileError(path, no, f"expected 'value action', got {len(parts)} fields")
        try:
            vals.append(float(parts[0]))
            acts.append(int(parts[1]))
        except ValueError:
            raise MDPFileError(path, no, f"expected a number and an integer, got '{raw.strip()}'") from None
    if not vals:
        raise MDPFileError(path, None, "is empty")
    return np.array(vals), np.array(acts, dtype=np.int64)
