"""Lesson text per game: the game as an MDP, and its Bellman equation with the current numbers.

A :class:`Lesson` says what the states, actions, transition rule, rewards and discount of a game
are, writes its Bellman optimality equation (Sutton and Barto eq. 4.10; the minimax form for
alternating two-player games) with the current discount filled in, writes that equation out for
one state (the start) with the current probabilities and rewards of the compiled model, and
lists the game's parameters with their current values.

Nothing here is written twice: the prose comes from the models' own docstrings (the module
docstring of the game, the docstring of its rule function, the one-line docstring of each field
of its settings dataclass, read with :mod:`ast` from the source), and the numbers from the
compiled :class:`~mdpviz.core.mdp.TabularMDP`. When a model's docstring changes, the lesson
changes with it. :meth:`Lesson.html` gives the subset of HTML that Qt's ``QTextBrowser`` shows;
:meth:`Lesson.markdown` gives Markdown.

Plain Python and numpy; never imports Qt.
"""
from __future__ import annotations

import ast
import dataclasses
import html as _html
import inspect
import re
import textwrap
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Callable, Sequence

import numpy as np

from mdpviz.core.mdp import TabularMDP

MAX_EXAMPLE_ACTIONS = 4
"""Actions written out in the worked example (the others are counted)."""
MAX_EXAMPLE_TERMS = 6
"""Outcomes written out per action in the worked example (the others are counted)."""


# ---------------------------------------------------------------------------------- text blocks
@dataclass(frozen=True)
class Block:
    """A piece of docstring prose: a paragraph, a literal block or a bullet."""

    kind: str
    """"p" (paragraph), "pre" (literal block, kept as typed) or "li" (bullet item)."""
    text: str
    """The text, with reStructuredText roles and ``literals`` reduced to plain text."""


@dataclass(frozen=True)
class Parameter:
    """One parameter of the game with its current value and what it means."""

    name: str
    """Field name in the settings (e.g. "discount")."""
    value: str
    """The current value, formatted."""
    meaning: str
    """The field's own docstring."""

    @property
    def words(self) -> str:
        """The name in words, as the lesson shows it: the field's own name with spaces for its
        underscores ("settings.learning_rate" -> "learning rate", "rules.forced_capture" -> "forced capture")."""
        return self.name.rsplit(".", 1)[-1].replace("_", " ")


def parameter_labels(params: Sequence[Parameter]) -> list[str]:
    """Each parameter's name in words (:attr:`Parameter.words`); where two would read the same, the
    whole dotted name in words ("settings discount")."""
    words = [p.words for p in params]
    return [w if words.count(w) == 1 else p.name.replace(".", " ").replace("_", " ") for p, w in zip(params, words)]


@dataclass(frozen=True)
class Lesson:
    """The game as an MDP, for the lesson panel and the lesson snapshot."""

    title: str
    """The game's name."""
    intro: tuple[Block, ...]
    """The rules in the model's own words (its module docstring)."""
    states: str
    """What a state is, and how many there are."""
    actions: str
    """What an action is, and how many there are."""
    transitions: str
    """The transition rule."""
    rewards: str
    """Rewards (or costs) and when they are paid."""
    discount: str
    """The discount gamma and what it means here."""
    bellman: str
    """HTML: the Bellman optimality equation, symbolic and with the current discount filled in."""
    example: str
    """HTML: the equation written out for one state with the current probabilities and rewards."""
    parameters: tuple[Parameter, ...]
    """The game's settings and their current values."""
    gamma: float | None
    """The current discount (None when there is no model)."""
    sources: tuple[str, ...]
    """Dotted names of the docstrings the prose was taken from."""
    algorithm: tuple[Block, ...] = ()
    """The algorithm in the Solver panel and the convention it runs under
    (:func:`mdpviz.models.kit.teaching.algorithms.algorithm_blocks`); empty for a lesson of the model alone."""

    def facts(self) -> tuple[tuple[str, str], ...]:
        """(heading, text) of states, actions, transitions, rewards and discount (a text that
        repeats its heading, "States: every board ...", loses the repetition)."""
        out = []
        for head, text in (("States", self.states), ("Actions", self.actions), ("Transitions", self.transitions),
                           ("Rewards", self.rewards), ("Discount", self.discount)):
            if text.lower().startswith(head.lower() + ":"):
                text = text[len(head) + 1:].strip()
                text = text[:1].upper() + text[1:]
            out.append((head, text))
        return tuple(out)

    def html(self) -> str:
        """The lesson as the HTML subset that Qt's QTextBrowser shows."""
        e = _inline
        out = [f"<h2>{_esc(self.title)}</h2>"]
        for b in self.intro:
            if b.kind == "pre":
                out.append(f"<pre>{_esc(b.text)}</pre>")
            elif b.kind == "li":
                out.append(f"<p>\u2022 {e(b.text)}</p>")
            else:
                out.append(f"<p>{e(b.text)}</p>")
        out.append("<h3>The game as an MDP</h3>")
        for head, text in self.facts():
            out.append(f"<p><b>{head}.</b> {e(text)}</p>")
        out.append("<h3>Bellman equation</h3>")
        out.append(self.bellman)
        if self.example:
            out.append(self.example)
        if self.algorithm:
            out.append("<h3>The algorithm</h3>" + "".join(f"<p>{e(b.text)}</p>" for b in self.algorithm))
        if self.parameters:
            out.append("<h3>Parameters</h3><table cellspacing='0' cellpadding='3' border='1'>"
                       "<tr><th align='left'>parameter</th><th align='left'>value</th>"
                       "<th align='left'>meaning</th></tr>")
            for p, label in zip(self.parameters, parameter_labels(self.parameters)):
                # in words, not the code name ("settings.learning_rate", "rules.forced_capture" read as code)
                out.append(f"<tr><td>{e(label)}</td><td>{e(p.value)}</td><td>{e(p.meaning)}</td></tr>")
            out.append("</table>")
        if self.sources:
            out.append(f"<p style='color:#555555'><small>From the docstrings of {e(', '.join(self.sources))}."
                       "</small></p>")
        return "".join(out)

    def markdown(self) -> str:
        """The lesson as Markdown (equations as inline HTML, which Markdown allows)."""
        out = [f"## {self.title}", ""]
        for b in self.intro:
            if out[-1].startswith("* ") and b.kind != "li":
                out.append("")
            if b.kind == "pre":
                out += ["```", b.text, "```", ""]
            elif b.kind == "li":
                out += [f"* {b.text}"]
            else:
                out += [b.text, ""]
        if out[-1]:
            out.append("")
        out += ["### The game as an MDP", ""]
        for head, text in self.facts():
            out += [f"**{head}.** {text}", ""]
        out += ["### Bellman equation", "", self.bellman, ""]
        if self.example:
            out += [self.example, ""]
        if self.algorithm:
            out += ["### The algorithm", ""] + [x for b in self.algorithm for x in (b.text, "")]
        if self.parameters:
            out += ["### Parameters", "", "| parameter | value | meaning |", "|---|---|---|"]
            # in words, the field's name beside it for whoever writes a scenario file
            out += [f"| {f'`{p.name}`' if label == p.name else f'{label} (`{p.name}`)'} | {p.value.replace('|', '/')} "
                    f"| {p.meaning.replace('|', '/')} |"
                    for p, label in zip(self.parameters, parameter_labels(self.parameters))]
            out.append("")
        return "\n".join(out)

    def text(self) -> str:
        """Plain text (the HTML with its tags removed): for tests and search."""
        t = re.sub(r"<[^>]+>", " ", self.html())
        return re.sub(r"[ \t]+", " ", _html.unescape(t)).replace("`", "")


def _esc(s: str) -> str:
    return _html.escape(str(s), quote=False)


def _inline(s: str) -> str:
    """Escaped HTML with `literal` spans as <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", _esc(s))


# ---------------------------------------------------------------------------------- docstrings
_ROLE = re.compile(r":[a-z]+:`(~?)([^`]+)`")


_CONST = r"(?:[\w.]*\.)?[A-Z][A-Z0-9]*_[A-Z0-9_]+"
"""A code constant such as SQUARE_TYPES or mdpviz.models.ttt3d.RISK_CHOICES."""


def drop_identifiers(text: str) -> str:
    """Code names a student should not have to read, taken out of lesson prose: "(Die)", "(SQUARE_TYPES)",
    ", see TYPE4_RULES", "(see TYPE4_RULES)", "None: DEFAULT_LEARNING_RATES" (the sentence reads without them)."""
    text = re.sub(r"\s*\((?:see\s+)?(?:[A-Z][a-z]+(?:[A-Z][a-z]+)*|" + _CONST + r")\)", "", text)  # (Die), (SQUARE_TYPES)
    text = re.sub(r",\s*see\s+" + _CONST, "", text)  # "(0..4, see SQUARE_TYPES)" -> "(0..4)"
    text = re.sub(r"\bof\s+" + _CONST, "of the built-in ones", text)
    text = re.sub(r":\s*" + _CONST, ": the default", text)
    return text


def clean_rst(text: str) -> str:
    """reStructuredText roles and literals as plain text: :class:`~a.b.C` -> C, ``x`` -> x; code names
    in parentheses dropped (:func:`drop_identifiers`)."""
    text = _ROLE.sub(lambda m: m.group(2).rsplit(".", 1)[-1] if m.group(1) else m.group(2), text)
    text = re.sub(r"``([^`]+)``", r"`\1`", text)
    text = drop_identifiers(text)
    return re.sub(r"(?<![\w*])\*([^*\s][^*]*)\*(?!\w)", r"\1", text)  # *emphasis*


def doc_blocks(doc: str | None) -> list[Block]:
    """A docstring as blocks: paragraphs (lines joined), ``::`` literal blocks, ``*`` bullets."""
    if not doc:
        return []
    lines = inspect.cleandoc(doc).splitlines()
    blocks: list[Block] = []
    para: list[str] = []
    literal_next = False
    i = 0

    def flush() -> None:
        nonlocal para
        if para:
            text = " ".join(x.strip() for x in para)
            if text.startswith("* "):
                blocks.append(Block("li", clean_rst(text[2:])))
            else:
                blocks.append(Block("p", clean_rst(text)))
        para = []

    while i < len(lines):
        line = lines[i]
        if literal_next and line.strip() and line.startswith((" ", "\t")):
            lit = []
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith((" ", "\t"))):
                lit.append(lines[i])
                i += 1
            blocks.append(Block("pre", textwrap.dedent("\n".join(lit)).strip("\n")))
            literal_next = False
            continue
        if not line.strip():
            if para and para[-1].rstrip().endswith("::"):
                literal_next = True
                para[-1] = para[-1].rstrip()[:-1]  # "text::" reads "text:"
                if para[-1].strip() == ":":
                    para.pop()
            flush()
        elif set(line.strip()) <= set("-=~") and para:  # an underline: the paragraph was a heading
            blocks.append(Block("h", clean_rst(" ".join(x.strip() for x in para))))
            para = []
        elif line.lstrip().startswith("* ") and para:
            flush()
            para.append(line.strip())
        else:
            para.append(line)
        i += 1
    flush()
    return [b for b in blocks if b.text]


def doc_paragraphs(obj: Any, *starts: str) -> tuple[Block, ...]:
    """The blocks of ``obj``'s docstring whose text starts with one of ``starts`` (in docstring
    order); a paragraph ending in ":" brings the literal block that follows it."""
    blocks = doc_blocks(inspect.getdoc(obj))
    out: list[Block] = []
    take_pre = False
    for b in blocks:
        if b.kind == "pre":
            if take_pre:
                out.append(b)
            take_pre = False
            continue
        hit = any(b.text.startswith(s) for s in starts)
        if hit:
            out.append(b)
        take_pre = hit and b.text.endswith(":")
    return tuple(out)


def doc_section(obj: Any, heading: str) -> tuple[Block, ...]:
    """The blocks of ``obj``'s docstring under the underlined heading ``heading`` (up to the next)."""
    out: list[Block] = []
    inside = False
    for b in doc_blocks(inspect.getdoc(obj)):
        if b.kind == "h":
            inside = b.text.startswith(heading)
            continue
        if inside:
            out.append(b)
    return tuple(out)


def first_sentence(text: str | None) -> str:
    """The first sentence of a docstring (plain text)."""
    if not text:
        return ""
    blocks = doc_blocks(text)
    if not blocks:
        return ""
    t = blocks[0].text
    m = re.search(r"(?<=[.!?])\s", t)
    return t[: m.start()] if m else t


def sentences(text: str) -> list[str]:
    """``text`` split into sentences (at ". " before a capital letter or a parenthesis)."""
    return [x.strip() for x in re.split(r"(?<=[.!?])\s+(?=[A-Z(])", text) if x.strip()]


def sentence_starting(text: str | None, prefix: str) -> str:
    """The first sentence of ``text`` (a docstring) that starts with ``prefix``, or ""."""
    if not text:
        return ""
    flat = " ".join(b.text for b in doc_blocks(text) if b.kind != "pre")
    return next((s for s in sentences(flat) if s.startswith(prefix)), "")


def sentence_with(text: str | None, word: str) -> str:
    """The first sentence of ``text`` (a docstring) that contains ``word`` (case-insensitive), or ""."""
    if not text:
        return ""
    flat = " ".join(b.text for b in doc_blocks(text) if b.kind != "pre")
    for s in sentences(flat):
        if word.lower() in s.lower():
            return s.strip()
    return ""


def paragraph_with(text: str | None, word: str) -> str:
    """The first paragraph of ``text`` that contains ``word`` (case-insensitive), or ""."""
    for b in doc_blocks(text):
        if b.kind in ("p", "li") and word.lower() in b.text.lower():
            return b.text
    return ""


_TYPE_PREFIX = re.compile(r"^(?:int|float|bool)\w* \([^)]*\)(?:, read-only)?: ")


def _pairs_docs(body: list) -> dict[str, str]:
    out: dict[str, str] = {}
    for a, b in zip(body, body[1:]):
        if not (isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant) and isinstance(b.value.value, str)):
            continue
        if isinstance(a, ast.AnnAssign) and isinstance(a.target, ast.Name):
            names = [a.target.id]
        elif isinstance(a, ast.Assign):
            names = [n.id for t in a.targets for n in ([t] if isinstance(t, ast.Name) else getattr(t, "elts", []))
                     if isinstance(n, ast.Name)]
        else:
            continue
        for name in names:
            out[name] = _TYPE_PREFIX.sub("", clean_rst(" ".join(b.value.value.split())))
    return out


@lru_cache(maxsize=None)
def _module_tree(module: Any) -> ast.Module:
    """The parsed source of ``module`` (parsed once: a lesson reads a module's constants and several
    of its classes, and ``inspect.getsource`` of a class parses the whole module each time)."""
    return ast.parse(inspect.getsource(module))


def _class_node(obj: type) -> ast.ClassDef | None:
    """The definition of class ``obj`` in its module's parsed source (by its qualified name)."""
    import sys

    module = sys.modules.get(obj.__module__)
    if module is None or "<locals>" in obj.__qualname__:
        raise OSError("no module source")
    body = _module_tree(module).body
    node = None
    for name in obj.__qualname__.split("."):
        node = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == name), None)  # the first, as inspect
        if node is None:
            raise OSError(f"class {obj.__qualname__} not found")
        body = node.body
    return node


@lru_cache(maxsize=None)
def _attribute_docs_cached(obj: Any) -> dict[str, str]:
    try:
        if inspect.ismodule(obj):
            return _pairs_docs(_module_tree(obj).body)
        if inspect.isclass(obj):
            try:
                return _pairs_docs(_class_node(obj).body)
            except (OSError, TypeError, SyntaxError):
                pass  # e.g. a class made at run time: read its own source, as below
        src = textwrap.dedent(inspect.getsource(obj))
        tree = ast.parse(src)
    except (OSError, TypeError, SyntaxError):
        return {}
    if inspect.ismodule(obj):
        return _pairs_docs(tree.body)
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            return _pairs_docs(node.body)
    return {}


def field_docs(obj: Any) -> dict[str, str]:
    """{attribute name: its docstring} of a (data)class's fields or a module's constants, read from
    the source with :mod:`ast` (the string literal right after an assignment)."""
    return dict(_attribute_docs_cached(obj))


# ---------------------------------------------------------------------------------- numbers as text
def fmt_prob(p: float) -> str:
    """A probability as a short fraction when it is one (1/6, 3/8), else 4 significant digits."""
    if p == 1.0:
        return "1"
    f = Fraction(float(p)).limit_denominator(1000)
    if f.denominator > 1 and abs(float(f) - p) < 1e-12:
        return f"{f.numerator}/{f.denominator}"
    return f"{p:.4g}"


def fmt_number(x: float) -> str:
    """A reward or discount as typed: 0.9, 500, -3500, 1.5."""
    x = float(x)
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.6g}"


MAX_LISTED = 30
"""Longest sequence written out in full in the parameter table (longer ones are counted)."""


def _simple(v: Any) -> bool:
    return v is None or isinstance(v, (bool, np.bool_, int, np.integer, float, np.floating, str))


def fmt_value(v: Any) -> str:
    """A parameter value for the table: dice by their description, short sequences joined, floats
    short; a large object by its type and size (never a page of repr)."""
    if hasattr(v, "describe") and callable(v.describe):
        try:
            return str(v.describe())
        except TypeError:
            pass
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (float, np.floating)):
        return fmt_number(float(v))
    if v is None:
        return "none"
    if isinstance(v, (int, np.integer, str)):
        return str(v)
    if isinstance(v, np.ndarray):
        return fmt_value(tuple(v.tolist())) if v.ndim == 1 else f"array {'x'.join(map(str, v.shape))}"
    if isinstance(v, (tuple, list)):
        if v and all(hasattr(x, "describe") for x in v):
            return "; ".join(fmt_value(x) for x in v)
        if all(_simple(x) for x in v):
            if len(v) <= MAX_LISTED:
                return ", ".join(fmt_value(x) for x in v)
            return f"{len(v):,} values"
        return f"{len(v):,} {type(v[0]).__name__ if v else 'item'}{'s' if len(v) != 1 else ''}"
    name = type(v).__name__
    try:
        return f"{name} ({len(v):,})"
    except TypeError:
        return name


def parameters_of(state: Any, *, skip: tuple[str, ...] = (), prefix: str = "", depth: int = 1) -> tuple[Parameter, ...]:
    """The fields of a settings dataclass with their current values and docstrings (() otherwise);
    a field that is itself a settings dataclass is expanded (``settings.win``), ``depth`` levels deep."""
    if state is None or not dataclasses.is_dataclass(state) or isinstance(state, type):
        return ()
    docs = field_docs(type(state))
    out: list[Parameter] = []
    for f in dataclasses.fields(state):
        if f.name.startswith("_") or f.name in skip:
            continue
        v = getattr(state, f.name)
        if dataclasses.is_dataclass(v) and not isinstance(v, type) and depth > 0 and not hasattr(v, "describe"):
            out.extend(parameters_of(v, skip=skip, prefix=f"{prefix}{f.name}.", depth=depth - 1))
            continue
        out.append(Parameter(prefix + f.name, fmt_value(v), docs.get(f.name, "")))
    return tuple(out)


# ---------------------------------------------------------------------------------- equations
def _gamma_times(gamma: float) -> str:
    return "" if gamma == 1.0 else f"{fmt_number(gamma)}\u00b7"


def bellman_html(
    mdp: TabularMDP,
    *,
    action: str = "a",
    actions: str = "",
    mover_names: tuple[str, str] = ("the maximiser", "the minimiser"),
) -> str:
    """The Bellman optimality equation of ``mdp`` in HTML: symbolic (with gamma), then with the
    current discount filled in, and the terminal condition.

    One player: V(s) = opt_a sum_s' p(s'|s,a) [r(s,a,s') + gamma V(s')] (Sutton and Barto eq. 4.10),
    opt = max for rewards and min for costs. Two players: max in the maximiser's states, min in
    the minimiser's (minimax). ``actions`` names the action set, e.g. "{security, normal, risky}".
    """
    g = mdp.discount
    r = "c" if mdp.objective == "min" else "r"
    a = action
    over = f"{a} \u2208 {actions}" if actions else a
    body = f"\u03a3<sub>s\u2032</sub> p(s\u2032 | s, {a}) [ {r}(s, {a}, s\u2032) + {{g}}V(s\u2032) ]"
    sym = body.replace("{g}", "\u03b3\u00b7")
    num = body.replace("{g}", _gamma_times(g))
    lines = []
    if mdp.is_two_player:
        opt_x, opt_o = ("max", "min") if mdp.objective == "max" else ("min", "max")
        lines.append(f"V(s) = {opt_x}<sub>{over}</sub> {sym} &nbsp; where {_esc(mover_names[0])} moves,")
        lines.append(f"V(s) = {opt_o}<sub>{over}</sub> {sym} &nbsp; where {_esc(mover_names[1])} moves;")
        lines.append(f"with the current parameters (\u03b3 = {fmt_number(g)}): "
                     f"V(s) = {opt_x}/{opt_o}<sub>{a}</sub> {num}.")
    else:
        opt = "max" if mdp.objective == "max" else "min"
        lines.append(f"V(s) = {opt}<sub>{over}</sub> {sym}")
        lines.append(f"with the current parameters (\u03b3 = {fmt_number(g)}): V(s) = {opt}<sub>{a}</sub> {num}")
    n_term = int(mdp.terminal.sum())
    if n_term:
        lines.append(f"and V(s) = 0 in the {n_term:,} terminal state{'s' if n_term != 1 else ''}.")
    return "<p style='font-size:large'>" + "<br>".join(lines) + "</p>"


def example_html(
    mdp: TabularMDP,
    state: int,
    *,
    state_name: Callable[[int], str] | None = None,
    action_name: Callable[[int], str] | None = None,
    max_actions: int = MAX_EXAMPLE_ACTIONS,
    max_terms: int = MAX_EXAMPLE_TERMS,
    where: str = "",
) -> str:
    """The Bellman equation written out for ``state`` with the model's own probabilities, rewards and
    discount: V(s) = opt { a: p x (r + gamma V(s')) + ..., ... } (outcomes with the same next state
    and reward merged; long sums shortened, saying how many terms are left out)."""
    if not 0 <= state < mdp.n_states:
        raise ValueError(f"state {state} is out of range 0..{mdp.n_states - 1}")
    sn = state_name or (lambda s: mdp.state_labels[s] if mdp.state_labels else str(s))
    an = action_name or (lambda a: mdp.action_labels[a] if mdp.action_labels else f"action {a}")
    head = f"V({_esc(sn(state))})"
    if mdp.terminal[state]:
        return f"<p>For example, {head} = 0: a terminal state.</p>"
    g = mdp.discount
    opt = "max" if mdp.sense[state] > 0 else "min"
    acts = [int(a) for a in mdp.actions_of(state)]
    items = []
    for a in acts[:max_actions]:
        merged: dict[tuple[int, float], float] = {}
        for d, p, r in mdp.outcomes(state, a):
            merged[(d, r)] = merged.get((d, r), 0.0) + p
        terms = []
        for (d, r), p in list(merged.items())[:max_terms]:
            terms.append(f"{fmt_prob(p)}\u00b7({fmt_number(r)} + {_gamma_times(g)}V({_esc(sn(d))}))")
        more = len(merged) - max_terms
        if more > 0:
            terms.append(f"\u2026 ({more} more outcome{'s' if more != 1 else ''})")
        items.append(f"{_esc(an(a))}: " + " + ".join(terms))
    rest = len(acts) - max_actions
    if rest > 0:
        items.append(f"\u2026 ({rest} more action{'s' if rest != 1 else ''})")
    lines = "<br>&nbsp;&nbsp;".join(items)
    return (f"<p>Written out for {_esc(where or sn(state))} with the current model ({len(acts)} legal "
            f"action{'s' if len(acts) != 1 else ''}):<br>{head} = {opt} {{<br>&nbsp;&nbsp;{lines}<br>}}</p>")


# ---------------------------------------------------------------------------------- generic facts
def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _states_fact(mdp: TabularMDP) -> str:
    n_term = int(mdp.terminal.sum())
    s = f"{_count(mdp.n_states, 'state')}, {n_term:,} of them terminal (absorbing, value 0)"
    if mdp.is_two_player:
        s += f"; the maximiser moves in {int((mdp.mover > 0).sum()):,}, the minimiser in {int((mdp.mover < 0).sum()):,}"
    return s + "."


def _actions_fact(mdp: TabularMDP) -> str:
    counts = mdp.actions_per_state[~mdp.terminal]
    lo, hi = (int(counts.min()), int(counts.max())) if counts.size else (0, 0)
    legal = f"{lo}" if lo == hi else f"{lo} to {hi}"
    names = ""
    if mdp.action_labels and mdp.n_actions <= 6:
        names = ": " + ", ".join(mdp.action_labels)
    return (f"{_count(mdp.n_actions, 'action id')}{names}; a non-terminal state has {legal} legal "
            f"action{'s' if hi != 1 else ''} ({mdp.n_rows:,} (state, action) pairs in all).")


def _rewards_fact(mdp: TabularMDP) -> str:
    word = "cost" if mdp.objective == "min" else "reward"
    if mdp.n_transitions == 0:
        return f"No transitions, so no {word}s."
    r = np.asarray(mdp.reward)
    if r.size > 1_000_000:  # a sort of millions of rewards would stall the window at every edit
        return (f"The {word} r(s, a, s\u2032) is paid on each transition; they range from "
                f"{fmt_number(r.min())} to {fmt_number(r.max())}.")
    vals = np.unique(r)
    if vals.size <= 6:
        which = ", ".join(fmt_number(v) for v in vals)
        return f"The {word} r(s, a, s\u2032) is paid on each transition; the values that occur: {which}."
    return (f"The {word} r(s, a, s\u2032) is paid on each transition; they range from "
            f"{fmt_number(vals.min())} to {fmt_number(vals.max())}.")


def _discount_fact(mdp: TabularMDP, why: str = "") -> str:
    g = mdp.discount
    base = f"\u03b3 = {fmt_number(g)}"
    if why:
        return f"{base}: {why}"
    if g == 1.0:
        return f"{base}: rewards are not discounted (an episodic total)."
    return f"{base}: a reward k steps ahead counts \u03b3^k = {fmt_number(g)}^k as much as one now."


def _transitions_fact(mdp: TabularMDP) -> str:
    return (f"p(s\u2032 | s, a) for each of the {mdp.n_rows:,} (state, action) pairs: "
            f"{mdp.n_transitions:,} transitions in all, each pair's probabilities summing to 1.")


# ---------------------------------------------------------------------------------- per game


def mdp_lesson(
    mdp: TabularMDP | None,
    *,
    title: str = "MDP",
    intro: tuple[Block, ...] = (),
    states: str = "",
    actions: str = "",
    transitions: str = "",
    rewards: str = "",
    discount_why: str = "",
    parameters: tuple[Parameter, ...] = (),
    start: int = 0,
    state_name: Callable[[int], str] | None = None,
    action_name: Callable[[int], str] | None = None,
    action_set: str = "",
    mover_names: tuple[str, str] = ("the maximiser", "the minimiser"),
    sources: tuple[str, ...] = (),
    where: str = "",
) -> Lesson:
    """A lesson for any TabularMDP: the game-specific prose (when given) followed by the facts of the
    compiled model (counts, reward values, discount), its Bellman equation and a worked example."""
    if mdp is None:
        return Lesson(title, intro, states or "No model yet.", actions, transitions, rewards,
                      "No model yet.", "<p>No model yet: nothing to write the equation for.</p>", "",
                      parameters, None, sources)
    join = lambda a, b: f"{a} {b}".strip() if a else b  # noqa: E731
    start = start if 0 <= start < mdp.n_states else 0
    return Lesson(
        title=title,
        intro=intro,
        states=join(states, _states_fact(mdp)),
        actions=join(actions, _actions_fact(mdp)),
        transitions=join(transitions, _transitions_fact(mdp)),
        rewards=join(rewards, _rewards_fact(mdp)),
        discount=_discount_fact(mdp, discount_why),
        bellman=bellman_html(mdp, actions=action_set, mover_names=mover_names),
        example=example_html(mdp, start, state_name=state_name, action_name=action_name, where=where),
        parameters=parameters,
        gamma=float(mdp.discount),
        sources=sources,
    )










def lesson_for(
    key: str,
    state: Any,
    mdp: TabularMDP | None,
    *,
    title: str = "",
    start: int | None = None,
    state_name: Callable[[int], str] | None = None,
    action_name: Callable[[int], str] | None = None,
) -> Lesson:
    """The lesson of game ``key`` (any spelling the registry accepts) with settings ``state`` and
    compiled model ``mdp``: its spec's :attr:`~mdpviz.models.kit.game.registry.GameSpec.lesson`; a key the registry
    does not know (or a game without a lesson) gets :func:`mdp_lesson` of its model with its settings
    as parameters. ``start``: the state the worked example backs up (None: the game's own choice)."""
    from mdpviz.models.kit.game import registry as games

    try:
        spec = games.get(key)
    except ValueError:
        spec = None
    names = {"state_name": state_name, "action_name": action_name, **({} if start is None else {"start": start})}
    if spec is not None and spec.display.lesson is not None:
        return spec.display.lesson(state, mdp, **names)
    return mdp_lesson(mdp, title=title or (spec.title if spec is not None else key), parameters=parameters_of(state),
                      **names)


__all__ = [
    "Block", "Lesson", "Parameter", "bellman_html", "parameter_labels",
    "clean_rst", "doc_blocks", "doc_paragraphs", "doc_section", "example_html", "field_docs",
    "first_sentence", "fmt_number", "fmt_prob", "fmt_value", "lesson_for", "mdp_lesson",
    "parameters_of", "paragraph_with", "sentence_with",
]
