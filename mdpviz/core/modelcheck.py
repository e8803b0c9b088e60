"""Models out to the probabilistic model checkers (issue 29): Storm's DRN and PRISM's explicit files,
the property that gives mdpviz's values there, and DRN read back as a model.

Export (:func:`format_drn`, :func:`format_prism`, :func:`format_props`, :func:`write_model`): state i of
the file is state i of the :class:`~mdpviz.core.mdp.TabularMDP`; the start state is labelled ``init``
and terminal states ``done`` (each with one zero-reward self-loop, as a model checker wants every state
to have a choice); every legal action is one choice named by its label; rewards are one reward model
("reward", or "cost" for a minimising model) of expected rewards per (state, action), which is all an
expected total or discounted reward needs. The DRN file also keeps the game's state names (a comment
after each state line, as Storm writes its state valuations) and mdpviz's discount and objective (one
``// mdpviz:`` comment, which Storm skips and :func:`parse_drn` reads).

The property (:func:`model_property`) that gives mdpviz's values V(s) in Storm:

* discount gamma < 1: ``R{"reward"}max=? [Cdiscount=gamma]`` (``min`` for costs), the discounted total;
* gamma = 1 and every policy ends (reaches ``done`` with probability 1) from every state:
  ``R{"reward"}max=? [F "done"]``, the expected total reward to the end (any sign of reward);
* gamma = 1, some policy never ends, rewards all >= 0: ``R{"reward"}max=? [C]``, the total reward
  (Storm's total reward refuses negative rewards);
* otherwise Storm's semantics cannot give mdpviz's values (a never-ending policy with negative
  rewards); the properties file says so in a comment (:attr:`ModelProperty.note`).

Import (:func:`parse_drn`, :func:`parse_drn_job`): MDPs and Markov chains (DTMCs: one action per
state) with at most one reward model (state and action rewards added); every problem, including what
mdpviz does not model (observations, parameters, intervals, continuous time, several reward models or
initial states), is one :class:`~mdpviz.core.cs747.MDPFileError` naming the file and line.

Plain numpy; never imports Qt.
"""
from __future__ import annotations

import math
import os
import re
import warnings
from array import array
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Callable, Generator

import numpy as np

from mdpviz.core.cs747 import (
    PROGRESS_LINES, RENORMALISE_TOL, MDPFileError, RenormalisedWarning, parse_cs747, read_text_file,
)
from mdpviz.core.files import iter_lines, write_text
from mdpviz.core.jobs import JobProgress, drive
from mdpviz.core.mdp import PROB_TOL, TabularMDP, check_state_budget


NOT_METHOD_IDS = {"q": "the typecode of array(\"q\"): 64-bit integers, not Q-learning"}
"""Words equal to a method id used here in another sense (read by the registry test's scan)."""

FORMATS = ("drn", "prism")
"""The export formats: Storm's one-file DRN, PRISM's explicit files."""

PRISM_SUFFIXES = (".tra", ".sta", ".lab", ".trew")
"""The files of a PRISM explicit export, beside each other with the same stem."""

TWO_PLAYER = ("two-player games are out of scope: Storm and PRISM read them through the PRISM-games "
              "language, not DRN or explicit files")
"""Why a two-player model is refused (one line)."""

NOLABEL = "__NOLABEL__"
"""Storm's name of a choice without a label."""


# ------------------------------------------------------------------------------------------- export
@dataclass(frozen=True)
class ModelProperty:
    """The property that gives mdpviz's values in a model checker, and what else to say."""

    text: str
    """The property in Storm's syntax (PRISM's too, except ``Cdiscount``)."""
    reward: str
    """The reward model's name: "reward" (maximised) or "cost" (minimised)."""
    note: str = ""
    """One line when Storm's semantics cannot give mdpviz's values ("" when the property gives them)."""
    others: tuple[str, ...] = ()
    """Further properties worth checking (one per line after the first)."""
    advice: str = ""
    """How to check it ("" when Storm's defaults do): its exact mode where floating point is not enough."""


def check_exportable(mdp: TabularMDP) -> None:
    """ValueError (one line) for a model the checkers' files cannot hold: a two-player game."""
    if mdp.is_two_player:
        raise ValueError(TWO_PLAYER)


def never_ending_states(mdp: TabularMDP) -> np.ndarray:
    """bool (n_states): the largest set X of non-terminal states where every state has an action whose
    successors (probability > 0) all lie in X: from X some policy stays away from the terminal states
    forever (X holds every end component that avoids them). Empty when every policy ends."""
    term = np.asarray(mdp.terminal, dtype=bool)
    x = ~term
    live_row = ~term[mdp.row_state]  # a terminal state's rows are not moves (the solvers ignore them)
    pos = np.asarray(mdp.prob) > 0
    row_of_t = np.repeat(np.arange(mdp.n_rows), np.diff(mdp.row_ptr))
    while True:
        leaves = np.zeros(mdp.n_rows, dtype=bool)  # a row that may leave X
        np.logical_or.at(leaves, row_of_t[pos], ~x[np.asarray(mdp.dst)[pos]])
        stays = live_row & ~leaves
        keep = np.zeros(mdp.n_states, dtype=bool)
        keep[mdp.row_state[stays]] = True
        new = x & keep
        if np.array_equal(new, x):
            return read_only_bool(x)
        x = new


def read_only_bool(a: np.ndarray) -> np.ndarray:
    """``a`` as a read-only bool array."""
    a = np.asarray(a, dtype=bool)
    a.flags.writeable = False
    return a


def model_property(mdp: TabularMDP) -> ModelProperty:
    """The property whose value in each state is mdpviz's V(s) (see the module docstring)."""
    check_exportable(mdp)
    sense = "max" if mdp.objective == "max" else "min"
    reward = "reward" if sense == "max" else "cost"
    r = f'R{{"{reward}"}}{sense}=?'
    if mdp.discount < 1.0:
        return ModelProperty(f"{r} [Cdiscount={mdp.discount!r}]", reward)
    loops = never_ending_states(mdp)
    live_rows = ~np.asarray(mdp.terminal)[mdp.row_state]
    negative = bool((np.asarray(mdp.row_reward)[live_rows] < 0).any())
    if not loops.any():
        advice = ("rewards of both signs: check in Storm's exact mode (storm --exact), whose floating-point "
                  "engine can miss such values (Storm 2.0)") if negative else ""
        return ModelProperty(f'{r} [F "done"]', reward, others=('Pmin=? [F "done"]',), advice=advice)
    if not negative:
        return ModelProperty(f"{r} [C]", reward)
    n = int(loops.sum())
    return ModelProperty(
        f"{r} [C]", reward,
        note=(f"Storm cannot give mdpviz's values: at discount 1 some policy never ends ({n:,} state"
              f"{'s' if n != 1 else ''} can avoid the end forever, e.g. state {int(np.flatnonzero(loops)[0])}) "
              f"and some {reward}s are negative, which Storm's total reward refuses; export with a discount below 1"))


def named_model(mdp: TabularMDP, state_name: Callable[[int], str], action_name: Callable[[int, int], str]) -> TabularMDP:
    """``mdp`` with the game's own names: ``state_name(s)`` per state, ``action_name(s, a)`` per action id
    (asked in the first state where ``a`` is legal). The windows' and commands' names go in the files."""
    first = np.full(mdp.n_actions, -1, dtype=np.int64)
    ra = np.asarray(mdp.row_action)
    rows = np.arange(ra.size)[::-1]
    first[ra[rows]] = np.asarray(mdp.row_state)[rows]  # the last write per action is its first row
    actions = tuple(str(action_name(int(first[a]), a)) if first[a] >= 0 else f"a{a}" for a in range(mdp.n_actions))
    states = tuple(str(state_name(s)) for s in range(mdp.n_states))
    return replace(mdp, state_labels=states, action_labels=actions)


def action_names(mdp: TabularMDP) -> list[str]:
    """One choice name per action id: its label with blanks as ``_`` (a DRN name is one word), made
    unique with ``_<id>``; ``a<id>`` without labels."""
    if mdp.action_labels is None:
        return [f"a{a}" for a in range(mdp.n_actions)]
    base = [re.sub(r"\s+", "_", str(lab).strip()).replace('"', "'") or f"a{a}" for a, lab in enumerate(mdp.action_labels)]
    base = [f"a{a}" if b == NOLABEL else b for a, b in enumerate(base)]
    counts: dict[str, int] = {}
    for b in base:
        counts[b] = counts.get(b, 0) + 1
    return [b if counts[b] == 1 else f"{b}_{a}" for a, b in enumerate(base)]


def _merged_rows(mdp: TabularMDP) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per row, its successors in increasing order with the probabilities of repeated successors added
    and those of probability 0 dropped (a checker's sparse matrix takes each column once, in order):
    (row_ptr, dst, prob, reward) where reward is the probability-weighted reward of each merged entry."""
    row_of_t = np.repeat(np.arange(mdp.n_rows, dtype=np.int64), np.diff(mdp.row_ptr))
    prob = np.asarray(mdp.prob)
    keep = prob > 0
    rows, dst, p = row_of_t[keep], np.asarray(mdp.dst)[keep], prob[keep]
    pr = p * np.asarray(mdp.reward)[keep]
    key = rows * mdp.n_states + dst
    uniq, inv = np.unique(key, return_inverse=True)
    psum = np.minimum(np.bincount(inv, weights=p, minlength=uniq.size), 1.0)  # 0.1 + 0.9 may add to 1 + 1 ulp
    prsum = np.bincount(inv, weights=pr, minlength=uniq.size)
    u_rows = uniq // mdp.n_states
    ptr = np.searchsorted(u_rows, np.arange(mdp.n_rows + 1)).astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        rew = np.where(psum > 0, prsum / psum, 0.0)
    return ptr, (uniq % mdp.n_states).astype(np.int64), psum, rew


def _label_line(s: int, mdp: TabularMDP) -> str:
    name = mdp.state_labels[s] if mdp.state_labels is not None else ""
    return " ".join(name.split()) if name else ""


def _num(x: float) -> str:
    """A number as the files write it: exact (``repr``), integers without ``.0``."""
    x = float(x)
    if x == 0:
        return "0"
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)


def format_drn(mdp: TabularMDP, *, start: int = 0, title: str = "") -> str:
    """Storm's DRN text of ``mdp`` (see the module docstring); ``start`` is the ``init`` state."""
    check_exportable(mdp)
    if not 0 <= start < mdp.n_states:
        raise ValueError(f"start state {start} is out of range 0..{mdp.n_states - 1}")
    prop = model_property(mdp)
    names = action_names(mdp)
    term = np.asarray(mdp.terminal, dtype=bool)
    ptr, dst, prob, _ = _merged_rows(mdp)
    row_reward = np.asarray(mdp.row_reward)
    n_choices = int(term.sum()) + int((~term[mdp.row_state]).sum())
    out = [f"// {title or 'A model'} exported by mdpviz; state i here is state i of mdpviz's model",
           f"// mdpviz: discount={mdp.discount!r} objective={mdp.objective}",
           f"// property giving mdpviz's values: {prop.text}"]
    out += [f"// {line}" for line in (prop.note, prop.advice) if line]
    out += ["@type: MDP", "@value_type: double", "@parameters", "", "@reward_models", prop.reward,
            "@nr_states", str(mdp.n_states), "@nr_choices", str(n_choices), "@model"]
    sp = np.asarray(mdp.state_ptr)
    ra = np.asarray(mdp.row_action)
    for s in range(mdp.n_states):
        labels = (" init" if s == start else "") + (" done" if term[s] else "")
        out.append(f"state {s}{labels}")
        name = _label_line(s, mdp)
        if name:
            out.append(f"//[{name}]")
        if term[s]:
            out.append(f"\taction {NOLABEL} [0]")
            out.append(f"\t\t{s} : 1")
            continue
        for r in range(int(sp[s]), int(sp[s + 1])):
            out.append(f"\taction {names[int(ra[r])]} [{_num(row_reward[r])}]")
            for t in range(int(ptr[r]), int(ptr[r + 1])):
                out.append(f"\t\t{int(dst[t])} : {_num(prob[t])}")
    return "\n".join(out) + "\n"


def format_prism(mdp: TabularMDP, *, start: int = 0) -> dict[str, str]:
    """PRISM's explicit files of ``mdp``, by suffix (:data:`PRISM_SUFFIXES`): ``.tra`` (``s c s' p
    action`` after a ``states choices transitions`` line), ``.sta`` (one variable ``s``, the state's
    number: PRISM's states hold numbers, not names), ``.lab`` (``init``, ``deadlock``, ``done``) and
    ``.trew`` (mdpviz's reward of each transition)."""
    check_exportable(mdp)
    if not 0 <= start < mdp.n_states:
        raise ValueError(f"start state {start} is out of range 0..{mdp.n_states - 1}")
    names = action_names(mdp)
    term = np.asarray(mdp.terminal, dtype=bool)
    ptr, dst, prob, rew = _merged_rows(mdp)
    sp = np.asarray(mdp.state_ptr)
    ra = np.asarray(mdp.row_action)
    tra, trew = [], []
    n_choices = n_trans = n_rew = 0
    for s in range(mdp.n_states):
        if term[s]:
            tra.append(f"{s} 0 {s} 1")
            n_choices += 1
            n_trans += 1
            continue
        for c, r in enumerate(range(int(sp[s]), int(sp[s + 1]))):
            n_choices += 1
            for t in range(int(ptr[r]), int(ptr[r + 1])):
                tra.append(f"{s} {c} {int(dst[t])} {_num(prob[t])} {names[int(ra[r])]}")
                n_trans += 1
                if rew[t] != 0:
                    trew.append(f"{s} {c} {int(dst[t])} {_num(rew[t])}")
                    n_rew += 1
    lab = ['0="init" 1="deadlock" 2="done"']
    for s in range(mdp.n_states):
        ids = ([0] if s == start else []) + ([2] if term[s] else [])
        if ids:
            lab.append(f"{s}: " + " ".join(map(str, ids)))
    sta = ["(s)"] + [f"{s}:({s})" for s in range(mdp.n_states)]
    return {
        ".tra": "\n".join([f"{mdp.n_states} {n_choices} {n_trans}", *tra]) + "\n",
        ".sta": "\n".join(sta) + "\n",
        ".lab": "\n".join(lab) + "\n",
        ".trew": "\n".join([f"{mdp.n_states} {n_choices} {n_rew}", *trew]) + "\n",
    }


def format_props(mdp: TabularMDP, *, fmt: str = "drn") -> str:
    """The properties file: comments, then one property per line, the first giving mdpviz's values."""
    prop = model_property(mdp)
    out = [f"// The first property gives mdpviz's value V(s) of every state (objective {mdp.objective}, "
           f"discount {mdp.discount!r})."]
    out += [f"// {line}" for line in (prop.note, prop.advice) if line]
    if fmt == "prism" and "Cdiscount" in prop.text:
        out.append("// PRISM has no discounted reward operator: check this property in Storm "
                   "(storm --explicit ... --prop FILE).")
    out.append(prop.text)
    out += list(prop.others)
    return "\n".join(out) + "\n"


def props_path(path: str | os.PathLike) -> Path:
    """Where the properties of an export to ``path`` go: ``path`` with ``.props`` in place of its suffix."""
    return Path(path).with_suffix(".props")


def export_paths(path: str | os.PathLike, fmt: str) -> list[Path]:
    """The files an export to ``path`` in format ``fmt`` writes, the properties file last."""
    p = Path(path)
    if fmt == "drn":
        return [p, props_path(p)]
    if fmt == "prism":
        return [p.with_suffix(sfx) for sfx in PRISM_SUFFIXES] + [props_path(p)]
    raise ValueError(f"unknown model format {fmt!r}; choose one of {', '.join(FORMATS)}")


def export_texts(mdp: TabularMDP, path: str | os.PathLike, fmt: str, *, start: int = 0,
                 title: str = "") -> dict[Path, str]:
    """What :func:`write_model` writes: file -> text."""
    paths = export_paths(path, fmt)
    if fmt == "drn":
        texts = [format_drn(mdp, start=start, title=title)]
    else:
        files = format_prism(mdp, start=start)
        texts = [files[sfx] for sfx in PRISM_SUFFIXES]
    return dict(zip(paths, [*texts, format_props(mdp, fmt=fmt)]))


def write_model(mdp: TabularMDP, path: str | os.PathLike, fmt: str, *, start: int = 0,
                title: str = "") -> list[Path]:
    """Write ``mdp`` to ``path`` as ``fmt`` ("drn" or "prism") with its properties file; the files written.
    Everything is formatted before the first file is written (a refused model writes nothing)."""
    texts = export_texts(mdp, path, fmt, start=start, title=title)
    return [write_text(p, t) for p, t in texts.items()]


def format_of(path: str | os.PathLike) -> str:
    """The export format a file name asks for: "drn" for ``.drn``, "prism" for a PRISM file's suffix
    (:data:`PRISM_SUFFIXES`); ValueError naming the choices otherwise."""
    sfx = Path(path).suffix.lower()
    if sfx == ".drn":
        return "drn"
    if sfx in PRISM_SUFFIXES or sfx == ".prism":
        return "prism"
    raise ValueError(f"{path}: export a model as .drn (Storm) or .tra (PRISM's explicit files), not "
                     f"'{sfx or '(no suffix)'}'")


def write_model_job(mdp: TabularMDP, path: str | os.PathLike, fmt: str, *, start: int = 0,
                    title: str = "") -> Generator[JobProgress, None, list[Path]]:
    """:func:`write_model` as a job generator (the window writes on its job thread): the files written."""
    yield JobProgress(0, 2, f"Writing {Path(path).name}\u2026")
    texts = export_texts(mdp, path, fmt, start=start, title=title)
    yield JobProgress(1, 2, f"Writing {Path(path).name}\u2026")
    return [write_text(p, t) for p, t in texts.items()]


# ------------------------------------------------------------------------------------------- import
@dataclass(frozen=True, eq=False)
class DRNModel:
    """A DRN file read as mdpviz's model."""

    mdp: TabularMDP
    """The model (state i = state i of the file)."""
    init: int | None
    """The state labelled ``init`` (None: none is)."""


_LABEL = re.compile(r'"([^"]+?)"(?=\s|$|")|([^\s"]+)')
_META = re.compile(r"^//\s*mdpviz:\s*(.*)$")


def is_drn(text: str) -> bool:
    """True when ``text`` looks like a DRN file: its first line that is neither blank nor a ``//``
    comment starts with ``@`` (a course file starts with ``numStates``). Reads only up to that line (the
    window asks on the GUI thread: a 46 MB file's ``splitlines`` took 0.15 s there, issue 35 item 10)."""
    at, n = 0, len(text)
    while at < n:
        end = text.find("\n", at)
        end = n if end < 0 else end
        for line in text[at:end].splitlines():  # (a "\r" alone ends a line too, as in splitlines)
            s = line.strip()
            if s and not s.startswith("//"):
                return s.startswith("@")
        at = end + 1
    return False


def _number(text: str, path, no: int, what: str) -> float:
    """A DRN number (decimal or ``p/q``), or MDPFileError saying why not."""
    t = text.strip()
    if t.startswith("[") or t.startswith("("):
        raise MDPFileError(path, no, f"{what} {t} is an interval; mdpviz models exact probabilities and rewards only")
    if t.startswith("$"):
        raise MDPFileError(path, no, f"{what} {t} is a placeholder; mdpviz does not read @placeholders")
    try:
        x = float(Fraction(t)) if "/" in t else float(t)
    except (ValueError, ZeroDivisionError):
        raise MDPFileError(path, no, f"{what} '{t}' is not a number (parametric models are not modelled by "
                           "mdpviz)") from None
    if not math.isfinite(x):
        raise MDPFileError(path, no, f"{what} '{t}' is not finite")
    return x


def _rewards(text: str, path, no: int, n_models: int) -> float:
    """The one reward of ``[r]`` (0 for ``[]``); MDPFileError for several reward models."""
    parts = [p for p in text.split(",")]
    if len(parts) > 1 and n_models <= 1:
        raise MDPFileError(path, no, f"{len(parts)} rewards given; mdpviz reads one reward model")
    return _number(parts[0], path, no, "reward") if parts[0].strip() else 0.0


def parse_drn(text: str, path: str | os.PathLike = "<text>") -> DRNModel:
    """Read DRN text (see :func:`parse_drn_job`)."""
    return drive(parse_drn_job(text, path))


@dataclass
class _Header:
    """What a DRN file's lines before ``@model`` say."""

    mtype: str = ""
    n_states: int = 0
    n_choices: int | None = None
    reward_names: tuple[str, ...] = ()
    discount: float = 1.0
    objective: str = "max"
    model_line: int = 0
    """The line number of ``@model`` (the model starts after it)."""


def _read_header(lines: list[str], path) -> _Header:
    """The header of a DRN file (MDPFileError naming the line: what is malformed, what mdpviz does not model)."""
    discount, objective = 1.0, "max"
    mtype = None
    n_states = n_choices = None
    reward_names: list[str] = []
    i = 0
    model_line = None
    while i < len(lines):
        no, line = i + 1, lines[i].strip()
        i += 1
        meta = _META.match(line)
        if meta:
            for item in meta.group(1).split():
                key, _, val = item.partition("=")
                if key == "discount":
                    discount = _number(val, path, no, "discount")
                    if not 0.0 <= discount <= 1.0:
                        raise MDPFileError(path, no, f"discount {val} is outside [0, 1]")
                elif key == "objective":
                    if val not in ("max", "min"):
                        raise MDPFileError(path, no, f"objective must be 'max' or 'min', got '{val}'")
                    objective = val
            continue
        if not line or line.startswith("//"):
            continue
        if line.startswith("@type:"):
            mtype = line[6:].strip()
            if mtype == "POMDP":
                raise MDPFileError(path, no, "a POMDP: mdpviz does not model observations (read it as an MDP "
                                   "in Storm, or drop the observations)")
            if mtype in ("CTMC", "MA"):
                raise MDPFileError(path, no, f"a {mtype}: mdpviz models discrete-time models only")
            if mtype not in ("MDP", "DTMC"):
                raise MDPFileError(path, no, f"model type '{mtype}' is not one mdpviz reads (MDP or DTMC)")
        elif line.startswith("@value_type:"):
            vt = line[12:].strip()
            if vt in ("double-interval", "rational-interval"):
                raise MDPFileError(path, no, "interval probabilities are not modelled by mdpviz")
            if vt == "parametric":
                raise MDPFileError(path, no, "a parametric model: mdpviz models numbers, not parameters")
            if vt not in ("double", "rational"):
                raise MDPFileError(path, no, f"unknown value type '{vt}'")
        elif line == "@parameters":
            if i < len(lines) and lines[i].strip():
                raise MDPFileError(path, no + 1, f"a parametric model (parameters {lines[i].strip()}): mdpviz "
                                   "models numbers, not parameters")
            i += 1
        elif line == "@placeholders":
            raise MDPFileError(path, no, "@placeholders are not read by mdpviz (export without them)")
        elif line == "@reward_models":
            reward_names = lines[i].split() if i < len(lines) else []
            if len(reward_names) > 1:
                raise MDPFileError(path, no + 1, f"{len(reward_names)} reward models ({', '.join(reward_names)}); "
                                   "mdpviz reads one")
            i += 1
        elif line in ("@nr_states", "@nr_choices"):
            raw = lines[i].strip() if i < len(lines) else ""
            try:
                v = int(raw)
                if v < (1 if line == "@nr_states" else 0):
                    raise ValueError
            except ValueError:
                raise MDPFileError(path, no + 1, f"{line} needs a positive integer, got '{raw}'") from None
            if line == "@nr_states":
                try:
                    check_state_budget(v, "states")
                except ValueError as e:
                    raise MDPFileError(path, no + 1, str(e)) from None
                n_states = v
            else:
                n_choices = v or None  # 0: not given (Storm reads it so too)
            i += 1
        elif line == "@model":
            model_line = no
            break
        else:
            raise MDPFileError(path, no, f"unknown header line '{line}' (expected @type, @value_type, @parameters, "
                               "@reward_models, @nr_states, @nr_choices or @model)")
    if mtype is None:
        raise MDPFileError(path, None, "no '@type:' line: not a DRN file")
    if n_states is None:
        raise MDPFileError(path, None, "no '@nr_states' line")
    if model_line is None:
        raise MDPFileError(path, None, "no '@model' line")
    return _Header(mtype=mtype, n_states=n_states, n_choices=n_choices, reward_names=tuple(reward_names),
                   discount=discount, objective=objective, model_line=model_line)


def parse_drn_job(text: str, path: str | os.PathLike = "<text>") -> Generator[JobProgress, None, DRNModel]:
    """Read DRN text into a :class:`DRNModel` as a job generator (progress every
    :data:`~mdpviz.core.cs747.PROGRESS_LINES` lines). Actions are numbered by their names in the order
    they first appear (an unnamed choice, ``__NOLABEL__``, by its place in its state); states labelled
    ``done`` are terminal; a ``//`` comment right after a state line names the state; the discount and
    objective come from an mdpviz comment (``// mdpviz: discount=0.9 objective=min``), else 1 and max."""
    # The lines one chunk at a time (a 195 MB file split at once, with a Python list per transition field,
    # took 2.6 GB): the header's lines are kept for its reader, the model's are read as they come.
    it = iter_lines(text)
    head: list[str] = []
    for raw in it:
        head.append(raw)
        if raw.strip() == "@model":
            break
    n_text_lines = max(text.count("\n"), 1)
    name = Path(str(path)).name
    h = _read_header(head, path)
    n_states, n_choices, reward_names, model_line = h.n_states, h.n_choices, h.reward_names, h.model_line
    discount, objective, mtype = h.discount, h.objective, h.mtype
    nondet = mtype == "MDP"

    # The model: flat transitions, one row per (state, choice).
    src, dst, prob = array("q"), array("q"), array("d")
    row_rew = array("d")  # per row: state reward + action reward
    row_line, row_state, row_act = array("q"), array("q"), array("q")
    ids: dict[str, int] = {}
    labels: list[str | None] = [None] * n_states
    terminal: list[int] = []
    init: int | None = None
    init_line = 0
    state = -1
    state_reward = 0.0
    state_line = 0
    seen: dict[str, int] = {}
    local = 0
    after_state = False
    is_term = False
    n_lines = 0  # choices read (what @nr_choices counts)
    for no, raw in enumerate(it, start=model_line + 1):
        if no % PROGRESS_LINES == 0:
            yield JobProgress(min(no, n_text_lines), n_text_lines, f"Reading {name}: line {no:,} of {n_text_lines:,}")
        if raw.startswith("//"):
            if after_state and state >= 0 and labels[state] is None:
                lab = raw[2:].strip()
                labels[state] = lab[1:-1] if lab.startswith("[") and lab.endswith("]") else lab
            continue
        after_state = False
        line = raw.strip()
        if not line:
            continue
        if line.startswith("state "):
            rest = line[6:].strip()
            sid, _, rest = rest.partition(" ")
            try:
                s = int(sid)
            except ValueError:
                raise MDPFileError(path, no, f"state id '{sid}' is not an integer") from None
            if s != state + 1:
                raise MDPFileError(path, no, f"state ids must be in order without gaps: expected {state + 1}, got {s}")
            if s >= n_states:
                raise MDPFileError(path, no, f"state {s} is beyond @nr_states {n_states}")
            if state >= 0 and local == 0 and not is_term:
                raise MDPFileError(path, state_line, f"state {state} has no action and is not labelled done")
            state, state_line, local, seen, after_state, is_term = s, no, 0, {}, True, False
            rest = rest.strip()
            if rest.startswith("{"):
                raise MDPFileError(path, no, "an observation: mdpviz does not model POMDPs")
            if rest.startswith("!"):
                raise MDPFileError(path, no, "an exit rate: mdpviz models discrete-time models only")
            state_reward = 0.0
            if rest.startswith("["):
                end = rest.find("]")
                if end < 0:
                    raise MDPFileError(path, no, "']' missing after the state's rewards")
                state_reward = _rewards(rest[1:end], path, no, len(reward_names))
                rest = rest[end + 1:]
            for m in _LABEL.finditer(rest):
                lab = m.group(1) or m.group(2)
                if lab == "init":
                    if init is not None:
                        raise MDPFileError(path, no, f"a second initial state ({s}; the first is {init}, line "
                                           f"{init_line}); mdpviz starts from one state")
                    init, init_line = s, no
                elif lab == "done" and not is_term:
                    terminal.append(s)
                    is_term = True
            continue
        if state < 0:
            raise MDPFileError(path, no, f"'{line}' before the first state line")
        if line.startswith("action ") or line == "action":
            if not nondet and local >= 1:
                raise MDPFileError(path, no, f"a DTMC state has one choice; state {state} has a second")
            rest = line[7:].strip()
            aname, _, rest = rest.partition(" ")
            if not aname:
                raise MDPFileError(path, no, "an action line without a name")
            key = str(local) if aname == NOLABEL else aname
            if key in seen:
                raise MDPFileError(path, no, f"state {state} has two actions named '{key}' (lines {seen[key]} and "
                                   f"{no}); mdpviz needs one action per name in a state")
            seen[key] = no
            rest = rest.strip()
            reward = 0.0
            if rest.startswith("["):
                end = rest.find("]")
                if end < 0:
                    raise MDPFileError(path, no, "']' missing after the action's rewards")
                reward = _rewards(rest[1:end], path, no, len(reward_names))
            local += 1
            n_lines += 1
            if is_term:
                continue  # a terminal state's choices are not moves: read, checked, dropped
            row_state.append(state)
            row_act.append(ids.setdefault(key, len(ids)))
            row_rew.append(state_reward + reward)
            row_line.append(no)
            continue
        # A transition "target : probability".
        target, colon, value = line.partition(":")
        if not colon:
            raise MDPFileError(path, no, f"expected 'state ...', 'action ...' or 'target : probability', got '{line}'")
        try:
            d = int(target.strip())
        except ValueError:
            raise MDPFileError(path, no, f"target state '{target.strip()}' is not an integer") from None
        if not 0 <= d < n_states:
            raise MDPFileError(path, no, f"target state {d} is out of range 0..{n_states - 1}")
        p = _number(value, path, no, "probability")
        if not 0.0 <= p <= 1.0 + PROB_TOL:
            raise MDPFileError(path, no, f"probability {value.strip()} is outside [0, 1]")
        if local == 0:
            if nondet:
                raise MDPFileError(path, no, "a transition before any action of its state")
            # A DTMC may list transitions right after the state line: its one choice.
            local = 1
            seen["0"] = no
            n_lines += 1
            if not is_term:
                row_state.append(state)
                row_act.append(ids.setdefault("0", len(ids)))
                row_rew.append(state_reward)
                row_line.append(no)
        if is_term:
            continue
        src.append(len(row_state) - 1)
        dst.append(d)
        prob.append(p)
    if state + 1 != n_states:
        raise MDPFileError(path, None, f"{state + 1} states given, @nr_states says {n_states}")
    if local == 0 and not is_term:
        raise MDPFileError(path, state_line, f"state {state} has no action and is not labelled done")

    rows = np.frombuffer(src, dtype=np.int64) if len(src) else np.zeros(0, np.int64)
    pr = np.frombuffer(prob, dtype=np.float64) if len(prob) else np.zeros(0)
    dst = np.frombuffer(dst, dtype=np.int64) if len(dst) else np.zeros(0, np.int64)
    n_rows = len(row_state)
    sums = np.bincount(rows, weights=pr, minlength=n_rows) if n_rows else np.zeros(0)
    bad = np.flatnonzero(np.abs(sums - 1.0) > RENORMALISE_TOL)
    if bad.size:
        r = int(bad[0])
        raise MDPFileError(path, row_line[r], f"state {row_state[r]}: the probabilities of this action sum to "
                           f"{sums[r]:.12g}, not 1 (tolerance {RENORMALISE_TOL:g})")
    off = np.flatnonzero(np.abs(sums - 1.0) > PROB_TOL)
    if off.size:
        pr = pr / sums[rows]
        warnings.warn(RenormalisedWarning(
            f"{path}: probabilities of {off.size} action{'s' if off.size > 1 else ''} summed to within "
            f"{RENORMALISE_TOL:g} of 1 and were rescaled to 1 (first: line {row_line[int(off[0])]})"), stacklevel=2)
    rs = np.asarray(row_state, dtype=np.int64)  # (copies of the arrays: no view may keep them from growing)
    ra = np.asarray(row_act, dtype=np.int64)
    rr = np.asarray(row_rew, dtype=np.float64)
    # Rewards per (state, action), given to every transition of the row: the expected reward is the same.
    names = [""] * max(len(ids), 1)
    for k, v in ids.items():
        names[v] = k
    state_labels = None
    if any(lab for lab in labels):
        state_labels = [lab if lab else str(s) for s, lab in enumerate(labels)]
    try:
        mdp = TabularMDP.from_transitions(
            n_states, max(len(ids), 1), rs[rows], ra[rows], dst, pr, rr[rows],
            discount=discount, terminal=terminal, objective=objective, state_labels=state_labels,
            action_labels=names if ids else None, mdptype="episodic" if terminal else "continuing")
    except ValueError as e:
        raise MDPFileError(path, None, str(e)) from None
    if n_choices is not None and nondet and n_choices != n_lines:
        raise MDPFileError(path, None, f"@nr_choices says {n_choices}, the model has {n_lines} choices")
    return DRNModel(mdp=mdp, init=init)


def load_model_file(path: str | os.PathLike) -> TabularMDP:
    """The model of a course-format or DRN file (told apart by :func:`is_drn`); MDPFileError naming the
    file and line otherwise."""
    text = read_text_file(path)
    return parse_drn(text, path).mdp if is_drn(text) else parse_cs747(text, path)


def drn_start(text: str, path: str | os.PathLike = "<text>") -> int | None:
    """The state labelled ``init`` in DRN text (None: none), without building the model."""
    for raw in iter_lines(text):
        line = raw.strip()
        if line.startswith("state ") and not raw.startswith("//"):
            if any((m.group(1) or m.group(2)) == "init" for m in _LABEL.finditer(line[6:].partition(" ")[2])):
                try:
                    return int(line[6:].split()[0])
                except ValueError:
                    return None
    return None


__all__ = ["DRNModel", "FORMATS", "ModelProperty", "PRISM_SUFFIXES", "TWO_PLAYER", "action_names", "check_exportable",
           "drn_start", "export_paths", "export_texts", "format_drn", "format_of", "format_prism", "format_props", "is_drn",
           "load_model_file", "named_model",
           "model_property", "never_ending_states", "parse_drn", "parse_drn_job", "props_path", "write_model",
           "write_model_job"]
