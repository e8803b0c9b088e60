"""Snakes and ladders of the course assignment (seed 002): rules, compiler and ``markovDecision``.

The board has 15 squares. Square 3 is a junction: a player who STOPS on 3 goes, on the next
move, into the slow lane (4..10) or the fast lane (11..14) with probability 1/2 each; a player
who passes through 3 stays on the slow lane. From 10 and from 14 the next square is 15 (goal)::

    slow lane  1 2 3 4 5 6 7 8 9 10 15
    fast lane  1 2 3 11 12 13 14 15

A turn is one throw of a die chosen by the player. A die is data (:class:`Die`): its faces
(move, probability) and the probability that it triggers the trap or bonus of the square it
stops on (also after a move of 0: the square the player stands on). Square types
(:data:`SQUARE_TYPES`): 0 ordinary; 1 restart (teleport to square 1); 2 penalty (teleport 3
squares back along the path travelled: 11->1, 12->2, 13->3, 14->11, 4->1, ..., 10->7; from 2 or
3 to square 1); 3 prison (the player waits one turn: the turn costs 2 turns); 4 bonus (the next
throw is free: the turn that triggers it costs 0 turns). There is no cascade: a teleport ignores
the trap of the square it lands on (a trap may still trigger there on a later roll of 0).

``circle=False``: reaching or passing 15 wins. ``circle=True``: the player must stop exactly on
15; overshooting restarts from square 1 (``overshoot="restart"``, the statement's rule) or, with
``overshoot="wrap"``, continues round the board: overshooting 15 by k lands on square k (along
the slow lane from square 1), and that square's trap can trigger as on any landing.

:func:`outcomes` is THE rule function: the compiler (:func:`compile_snakes`), the simulators
(:mod:`mdpviz.models.snakes.simulate`) and the GUI inspector all read it. The compiled
:class:`~mdpviz.core.mdp.TabularMDP` has state i = square i + 1 (i = 0..14; state 14 = square 15
is terminal) and action k = ``cfg.dice[k]``; the cost of a transition is the number of turns it
uses (1, 2 for a prison, 0 for a bonus); objective "min", discount 1, so the value of a state is
the expected number of turns to reach square 15 (stochastic shortest path, Bertsekas; Bellman
equation V(s) = min_a sum_s' p(s'|s,a) [c(s,a,s') + V(s')], Sutton and Barto eq. 4.10 with
gamma = 1). No extra internal states are needed: bonus and prison are costs on transitions.

Plain numpy; never imports Qt.
"""
from __future__ import annotations

import functools
import math
import numbers
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Sequence

import numpy as np

from mdpviz.models.kit.game.codec import FieldError
from mdpviz.core.mdp import TabularMDP, read_only
from mdpviz.solvers.value_iteration import value_iteration_values

N_SQUARES = 15
"""Squares on the board; square 15 is the goal."""
GOAL = 15
"""The goal square."""
JUNCTION = 3
"""The square where the fast lane branches off (only for a player who stops on it)."""
SLOW_LANE: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15)
"""The squares of the slow lane in path order."""
FAST_LANE: tuple[int, ...] = (1, 2, 3, 11, 12, 13, 14, 15)
"""The squares of the fast lane in path order."""
MAX_MOVE = 14
"""Largest |move| a die face may have."""
PENALTY_STEPS = 3
"""Squares a penalty trap sends the player back (along the path travelled)."""
PRISON_COST = 2.0
"""Turns used by a turn that ends in prison (the throw plus the turn waited)."""
BONUS_COST = 0.0
"""Turns used by a turn that triggers a bonus (the next throw is free)."""
PROB_TOL = 1e-9
"""Allowed deviation of a die's probabilities from a sum of 1."""

SQUARE_TYPES: dict[int, str] = {0: "ordinary", 1: "restart", 2: "penalty", 3: "prison", 4: "bonus"}
"""Layout code -> square type name (the name of type 4 follows the rule set: see :func:`square_type_name`)."""
TYPE4_RULES: tuple[str, ...] = ("bonus", "gamble", "mystery")
"""Meanings of a type-4 square: bonus (free next throw), gamble (teleport uniformly to any of the
15 squares), mystery (restart, penalty or prison with probability 1/3 each)."""
OVERSHOOT_RULES: tuple[str, ...] = ("restart", "wrap")
"""What overshooting 15 does on a circular board: back to square 1, or on round to square k."""


def square_type_name(t: int, type4: str = "bonus") -> str:
    """Display name of layout code ``t`` (0..4) under the type-4 rule ``type4``."""
    if t not in SQUARE_TYPES:
        raise ValueError(f"square type {t!r} is not one of {sorted(SQUARE_TYPES)}")
    if type4 not in TYPE4_RULES:
        raise ValueError(f"type4 must be one of {', '.join(TYPE4_RULES)}, got {type4!r}")
    return type4 if t == 4 else SQUARE_TYPES[t]


# ---------------------------------------------------------------------------------- dice
@dataclass(frozen=True)
class Die:
    """A die as data: its faces and its trap trigger probability. Validated on construction."""

    name: str
    """Display name (e.g. "risky")."""
    faces: tuple[tuple[int, float], ...]
    """(move in squares, probability) pairs; moves are distinct integers in -14..14, probabilities > 0 sum to 1."""
    trigger: float = 0.0
    """Probability that the trap or bonus of the square the die stops on fires (0..1)."""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"a die needs a non-empty name, got {self.name!r}")
        where = f"die {self.name!r}"
        try:
            faces = tuple(self.faces)
        except TypeError:
            raise ValueError(f"{where}: faces must be a sequence of (move, probability) pairs") from None
        if not faces:
            raise ValueError(f"{where}: it has no faces")
        clean: list[tuple[int, float]] = []
        for i, face in enumerate(faces):
            if not isinstance(face, (tuple, list)) or len(face) != 2:
                raise ValueError(f"{where}: face {i} must be a (move, probability) pair, got {face!r}")
            move, p = face
            if isinstance(move, bool) or not isinstance(move, numbers.Integral):
                raise ValueError(f"{where}: face {i}: the move must be an integer, got {move!r}")
            if isinstance(p, bool) or not isinstance(p, numbers.Real) or not math.isfinite(float(p)):
                raise ValueError(f"{where}: face {i}: the probability must be a finite number, got {p!r}")
            move, p = int(move), float(p)
            if abs(move) > MAX_MOVE:
                raise ValueError(f"{where}: face {i}: move {move} is outside -{MAX_MOVE}..{MAX_MOVE}")
            if not p > 0:
                raise ValueError(f"{where}: face {i} (move {move}): probability {p} must be > 0")
            if any(m == move for m, _ in clean):
                raise ValueError(f"{where}: move {move} appears more than once")
            clean.append((move, p))
        total = math.fsum(p for _, p in clean)
        if abs(total - 1.0) > PROB_TOL:
            raise ValueError(f"{where}: the face probabilities sum to {total:.12g}, not 1")
        if all(m == 0 for m, _ in clean):
            raise ValueError(f"{where}: every face moves 0 squares, so the die can never leave its square")
        trig = self.trigger
        if isinstance(trig, bool) or not isinstance(trig, numbers.Real) or not (0.0 <= float(trig) <= 1.0):
            raise ValueError(f"{where}: trigger must be a probability in [0, 1], got {trig!r}")
        object.__setattr__(self, "faces", tuple(clean))
        object.__setattr__(self, "trigger", float(trig))

    @property
    def moves(self) -> tuple[int, ...]:
        """The moves of the faces, in face order."""
        return tuple(m for m, _ in self.faces)

    def describe(self) -> str:
        """One line such as ``risky: 0,1,2,3 (1/4 each), trigger 1``."""
        probs = [p for _, p in self.faces]
        moves = ",".join(f"{m:+d}" if m < 0 else str(m) for m in self.moves)
        if all(abs(p - probs[0]) < 1e-12 for p in probs):
            pr = f"{_frac(probs[0])} each"
        else:
            pr = ", ".join(_frac(p) for p in probs)
        return f"{self.name}: {moves} ({pr}), trigger {_frac(self.trigger)}"


def _frac(x: float) -> str:
    f = Fraction(x).limit_denominator(1000)
    return str(f) if abs(float(f) - x) < 1e-12 else f"{x:g}"


SECURITY = Die("security", ((0, 0.5), (1, 0.5)), 0.0)
"""Moves 0 or 1 (1/2 each); immune to traps and bonuses."""
NORMAL = Die("normal", ((0, 1 / 3), (1, 1 / 3), (2, 1 / 3)), 0.5)
"""Moves 0, 1 or 2 (1/3 each); triggers with probability 1/2."""
RISKY = Die("risky", ((0, 0.25), (1, 0.25), (2, 0.25), (3, 0.25)), 1.0)
"""Moves 0..3 (1/4 each); always triggers."""
SPECIAL = Die("special", ((-3, 0.25), (-1, 0.25), (3, 0.25), (5, 0.25)), 1.0)
"""Moves -3, -1, +3, +5 (1/4 each), always triggers (a rule set of another year)."""
DEFAULT_DICE: tuple[Die, ...] = (SECURITY, NORMAL, RISKY)
"""The statement's three dice; the course numbers them 1, 2, 3."""


def parse_die(spec: str) -> Die:
    """A die from text ``NAME:MOVE=PROB,MOVE=PROB,...:TRIGGER``; probabilities may be fractions.

    Example: ``"lucky:1=1/2,3=1/2:1/4"``. Raises ValueError saying which part is wrong.
    """
    parts = str(spec).split(":")
    if len(parts) != 3:
        raise ValueError(f"die {spec!r}: expected NAME:MOVE=PROB,...:TRIGGER (for example lucky:1=1/2,3=1/2:1/4)")
    name, faces_txt, trig_txt = (p.strip() for p in parts)
    faces = []
    for item in faces_txt.split(","):
        if "=" not in item:
            raise ValueError(f"die {spec!r}: face {item.strip()!r} must be MOVE=PROB")
        m_txt, p_txt = item.split("=", 1)
        try:
            move = int(m_txt.strip())
        except ValueError:
            raise ValueError(f"die {spec!r}: move {m_txt.strip()!r} is not an integer") from None
        faces.append((move, _parse_prob(p_txt, spec)))
    return Die(name, tuple(faces), _parse_prob(trig_txt, spec))


def _parse_prob(text: str, spec: str) -> float:
    try:
        return float(Fraction(text.strip()))
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"die {spec!r}: {text.strip()!r} is not a probability (a number or a fraction)") from None


# ---------------------------------------------------------------------------------- configuration
@dataclass(frozen=True)
class SnakesSettings:
    """One game: the layout and the rules. Edit copies with ``dataclasses.replace``."""

    layout: tuple[int, ...] = (0,) * N_SQUARES
    """Square type (0..4, see SQUARE_TYPES) of squares 1..15; squares 1 and 15 must be 0."""
    circle: bool = False
    """True: the player must stop exactly on 15 (overshooting follows ``overshoot``); False: reaching or passing 15 wins."""
    overshoot: str = "restart"
    """On a circular board, overshooting 15 by k: "restart" (back to square 1) or "wrap" (on to square k)."""
    dice: tuple[Die, ...] = DEFAULT_DICE
    """The dice the player chooses from (action k = dice[k])."""
    type4: str = "bonus"
    """Meaning of a type-4 square: "bonus", "gamble" or "mystery" (see TYPE4_RULES)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "layout", tuple(self.layout))
        object.__setattr__(self, "dice", tuple(self.dice))

    def validate(self) -> "SnakesSettings":
        """Raise ValueError saying what is wrong; return ``self`` when the configuration is valid."""
        lay = self.layout
        if len(lay) != N_SQUARES:
            raise FieldError("layout", f"must have {N_SQUARES} squares, got {len(lay)}", subject="the layout")
        for i, t in enumerate(lay):
            if type(t) is not int and (isinstance(t, bool) or not isinstance(t, numbers.Integral)):
                raise FieldError("layout", f"square {i + 1}: {t!r} is not an integer square type 0..4")
            if t not in SQUARE_TYPES:
                raise FieldError("layout", f"square {i + 1}: type {t} is outside 0..4")
        if lay[0] != 0:
            raise FieldError("layout", f"square 1 is the start and cannot hold a trap or bonus (type {lay[0]})")
        if lay[-1] != 0:
            raise FieldError("layout", f"square 15 is the goal and cannot hold a trap or bonus (type {lay[-1]})")
        if not isinstance(self.circle, (bool, np.bool_)):
            raise FieldError("circle", f"must be True or False, got {self.circle!r}")
        if self.overshoot not in OVERSHOOT_RULES:
            raise FieldError("overshoot", f"must be one of {', '.join(OVERSHOOT_RULES)}, got {self.overshoot!r}")
        if self.type4 not in TYPE4_RULES:
            raise FieldError("type4", f"must be one of {', '.join(TYPE4_RULES)}, got {self.type4!r}")
        if not self.dice:
            raise FieldError("dice", "the game needs at least one die", subject="")
        for i, d in enumerate(self.dice):
            if not isinstance(d, Die):
                raise FieldError("dice", f"dice[{i}] is not a Die: {d!r}", subject="")
        names = [d.name for d in self.dice]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise FieldError("dice", f"names must be distinct; repeated: {', '.join(dup)}")
        if not any(m > 0 for d in self.dice for m in d.moves):
            raise FieldError("dice", "no die has a forward move, so the goal can never be reached", subject="")
        return self

    @property
    def n_dice(self) -> int:
        """Number of dice (actions)."""
        return len(self.dice)

    @property
    def dice_names(self) -> tuple[str, ...]:
        """The dice names, in action order."""
        return tuple(d.name for d in self.dice)


RULE_SETS: dict[str, dict] = {
    "statement": {"type4": "bonus", "overshoot": "restart", "dice": DEFAULT_DICE},
    "gamble": {"type4": "gamble", "overshoot": "restart", "dice": DEFAULT_DICE},
    "mystery": {"type4": "mystery", "overshoot": "restart", "dice": DEFAULT_DICE},
    "special die": {"type4": "bonus", "overshoot": "restart", "dice": DEFAULT_DICE + (SPECIAL,)},
    "wrap": {"type4": "bonus", "overshoot": "wrap", "dice": DEFAULT_DICE},
}
"""Rule-set presets (SnakesSettings fields): the statement's rules (default) and other years' variants."""


def apply_rule_set(cfg: SnakesSettings, name: str) -> SnakesSettings:
    """A copy of ``cfg`` with the fields of preset ``name`` (layout and circle are kept)."""
    try:
        fields = RULE_SETS[name]
    except KeyError:
        raise ValueError(f"unknown rule set {name!r}; choose one of {', '.join(RULE_SETS)}") from None
    return replace(cfg, **fields)


def rule_set_name(cfg: SnakesSettings) -> str:
    """The preset whose fields ``cfg`` has (:data:`RULE_SETS`), or "custom"."""
    return next((name for name in RULE_SETS if apply_rule_set(cfg, name) == cfg), "custom")


def trap_refusal(square: int) -> str:
    """Why ``square`` (1..15) cannot hold a trap or bonus ("" when it can): the start and the goal."""
    if square == 1:
        return "Square 1 is the start: it cannot hold a trap or bonus."
    if square == N_SQUARES:
        return "Square 15 is the goal: it cannot hold a trap or bonus."
    return ""


def with_new_die(cfg: SnakesSettings) -> tuple[SnakesSettings, str]:
    """``cfg`` with one more die ("die k", the first free k; a fair coin of moves 1 and 2, trigger 1/2), and its name."""
    names = set(cfg.dice_names)
    name = next(f"die {k}" for k in range(len(names) + 1, 100) if f"die {k}" not in names)
    return replace(cfg, dice=cfg.dice + (Die(name, ((1, 0.5), (2, 0.5)), 0.5),)).validate(), name


# ---------------------------------------------------------------------------------- board graph
def next_squares(square: int) -> tuple[int, ...]:
    """The squares one step forward from ``square`` (the board graph for drawing); () for 15."""
    _check_square(square, allow_goal=True)
    if square == GOAL:
        return ()
    if square == JUNCTION:
        return (4, 11)
    lane = FAST_LANE if square in FAST_LANE[3:-1] else SLOW_LANE
    return (lane[lane.index(square) + 1],)


def _check_square(square: int, *, allow_goal: bool) -> None:
    hi = N_SQUARES if allow_goal else N_SQUARES - 1
    if isinstance(square, bool) or not isinstance(square, numbers.Integral) or not 1 <= square <= hi:
        raise ValueError(f"square must be an integer in 1..{hi}, got {square!r}")


def _lane_of(square: int) -> tuple[int, ...]:
    return FAST_LANE if square in FAST_LANE[3:-1] else SLOW_LANE


def walk(square: int, move: int, *, lane: tuple[int, ...] | None = None) -> tuple[int, int]:
    """Move ``move`` squares from ``square`` along ``lane`` (default: the square's own lane).

    Returns ``(landing square, overshoot)``: backward moves stop at square 1; a forward move that
    goes past 15 returns ``(15, k)`` with k > 0 the number of squares beyond 15, else k = 0.
    The junction is not decided here (the caller passes the lane for a move from square 3).
    """
    lane = _lane_of(square) if lane is None else lane
    j = lane.index(square) + move
    last = len(lane) - 1
    if j <= 0:
        return lane[0], 0
    if j >= last:
        return GOAL, j - last
    return lane[j], 0


def penalty_square(square: int) -> int:
    """Where a penalty trap on ``square`` sends the player: 3 squares back along the path, at least square 1."""
    return walk(square, -PENALTY_STEPS)[0]


def wrap_square(k: int) -> int:
    """The square reached by overshooting 15 by k > 0 on a wrapping circular board (square k, along the slow lane)."""
    return SLOW_LANE[(k - 1) % len(SLOW_LANE)]


# ---------------------------------------------------------------------------------- the rule function
@dataclass(frozen=True)
class Outcome:
    """One way a turn can end: a roll, the branch it took and any trap that fired."""

    square: int
    """The square the player ends the turn on, after any trap (1..15)."""
    prob: float
    """Probability of this outcome given the square and the die."""
    cost: float
    """Turns used: 1, 2 after a prison, 0 after a bonus."""
    roll: int
    """The die face (move in squares)."""
    event: str = ""
    """What happened besides the move: "" or restart, penalty, prison, bonus, gamble, mystery restart/penalty/prison, overshoot, fast lane."""


def _effects_of_type(t: int, type4: str, square: int) -> list[tuple[int, float, float, str]]:
    """(square, probability, cost, event) of the trap/bonus of type ``t`` (1..4, type 4 as
    ``type4`` says) that fires on ``square`` (no cascade)."""
    if t == 1:
        return [(1, 1.0, 1.0, "restart")]
    if t == 2:
        return [(penalty_square(square), 1.0, 1.0, "penalty")]
    if t == 3:
        return [(square, 1.0, PRISON_COST, "prison")]
    if t == 4:
        if type4 == "bonus":
            return [(square, 1.0, BONUS_COST, "bonus")]
        if type4 == "gamble":
            return [(s, 1.0 / N_SQUARES, 1.0, "gamble") for s in range(1, N_SQUARES + 1)]
        return [
            (1, 1 / 3, 1.0, "mystery restart"),
            (penalty_square(square), 1 / 3, 1.0, "mystery penalty"),
            (square, 1 / 3, PRISON_COST, "mystery prison"),
        ]
    return []


def outcomes(cfg: SnakesSettings, square: int, die_index: int) -> list[Outcome]:
    """Every way a turn from ``square`` with die ``cfg.dice[die_index]`` can end (the game's rules).

    For each face (move m, probability p): from square 3 with m > 0 the slow and the fast lane
    each take probability 1/2 ("fast lane"); the move follows the lane (backward moves stop at
    square 1); past 15 it wins, or on a circular board overshoots ("overshoot": to square 1, or
    on to square k with ``overshoot="wrap"``). On the landing square (also after m = 0) a trap or
    bonus fires with the die's trigger probability, once (no cascade). Outcomes are not merged,
    so the same square can appear several times (one entry per roll, branch and trap effect);
    their probabilities sum to 1. Square 15 is terminal: ``[]``. Raises ValueError for an invalid
    configuration, square or die index.
    """
    cfg.validate()
    return _outcomes(cfg, square, die_index)


def _outcomes(cfg: SnakesSettings, square: int, die_index: int) -> list[Outcome]:
    """:func:`outcomes` for a configuration already validated."""
    _check_square(square, allow_goal=True)
    if isinstance(die_index, bool) or not isinstance(die_index, numbers.Integral) or not 0 <= die_index < len(cfg.dice):
        raise ValueError(f"die index must be in 0..{len(cfg.dice) - 1}, got {die_index!r}")
    if square == GOAL:
        return []
    trig = cfg.dice[die_index].trigger
    out: list[Outcome] = []
    for land, q, move, ev, trapped in _landings(cfg, square, die_index):
        t = cfg.layout[land - 1] if trapped else 0
        out.extend(Outcome(dst, p, cost, move, tev or ev) for dst, p, cost, tev in _landing(land, q, trig, t, cfg.type4))
    return out


def _landing(land: int, q: float, trig: float, t: int, type4: str) -> list[tuple[int, float, float, str]]:
    """(square, probability, cost, trap event or "") of landing on ``land`` (type ``t``) with
    probability ``q`` and a die that triggers with probability ``trig``."""
    if t == 0:
        return [(land, q, 1.0, "")]
    out = [(land, q * (1.0 - trig), 1.0, "")] if trig < 1.0 else []
    out += [(dst, q * trig * pe, cost, tev) for dst, pe, cost, tev in _effects_of_type(t, type4, land)]
    return out


def _landings(cfg: SnakesSettings, square: int, die_index: int) -> list[tuple[int, float, int, str, bool]]:
    """:func:`_outcomes` before any trap: (square, probability, roll, event, a trap there may fire)
    per face and branch (square < 15). Reads no layout: a trap may fire on any landing square
    but 15, unless the die never triggers or the move overshot 15 (win, or restart)."""
    die = cfg.dice[die_index]
    out: list[tuple[int, float, int, str, bool]] = []
    for move, p in die.faces:
        if square == JUNCTION and move > 0:
            branches = ((SLOW_LANE, 0.5, ""), (FAST_LANE, 0.5, "fast lane"))
        else:
            branches = ((_lane_of(square), 1.0, ""),)
        for lane, lp, ev in branches:
            q = p * lp
            land, over = walk(square, move, lane=lane)
            if over:
                if not cfg.circle:
                    out.append((GOAL, q, move, ev, False))
                    continue
                if cfg.overshoot == "restart":
                    out.append((1, q, move, "overshoot", False))
                    continue
                land, ev = wrap_square(over), "overshoot"
            out.append((land, q, move, ev, not (land == GOAL or die.trigger == 0.0)))
    return out


# ---------------------------------------------------------------------------------- compiler
class _Board:
    """The transitions of every (square, die) for every layout at once, for one set of rules.

    The moves of a board do not depend on its layout; only what happens on the landing square
    does, and that depends only on the type of that square. So :func:`_outcomes` is run once per
    rule set, with each landing square's effects tabulated for each of the 5 square types;
    a layout then picks one segment of that table per landing ("entry") with a few numpy
    calls. The transitions, their order and every probability (the same float expressions as
    :func:`_outcomes`) are exactly those of the rule function.
    """

    def __init__(self, circle: bool, overshoot: str, dice: tuple[Die, ...], type4: str) -> None:
        cfg = SnakesSettings(circle=circle, overshoot=overshoot, dice=dice, type4=type4)
        n_types = len(SQUARE_TYPES)
        table: list[tuple[int, float, float, str]] = []
        entry_land: list[int] = []  # index into (layout + (0,)): the landing square - 1, or 15 (no trap)
        entry_row: list[int] = []
        slots: list[tuple[int, int]] = []  # (start, length) in table, n_types per entry
        for s in range(1, N_SQUARES):
            for k in range(len(dice)):
                row = (s - 1) * len(dice) + k
                for land, q, _, _, trapped in _landings(cfg, s, k):
                    entry_land.append(land - 1 if trapped else N_SQUARES)
                    entry_row.append(row)
                    for t in range(n_types):
                        start = len(table)
                        table += _landing(land, q, dice[k].trigger, t if trapped else 0, type4)
                        slots.append((start, len(table) - start))
        self.n_types = n_types
        self.n_rows = (N_SQUARES - 1) * len(dice)
        self.entry_land = np.array(entry_land, dtype=np.intp)
        self.entry_slot = np.arange(len(entry_land), dtype=np.intp) * n_types
        self.entry_src = np.array(entry_row, dtype=np.int64) // len(dice)
        self.entry_act = np.array(entry_row, dtype=np.int64) % len(dice)
        sl = np.array(slots, dtype=np.int64).reshape(-1, 2)
        self.slot_start, self.slot_len = sl[:, 0].copy(), sl[:, 1].copy()
        self.dst = np.array([t[0] - 1 for t in table], dtype=np.int64)
        self.prob = np.array([t[1] for t in table], dtype=np.float64)
        self.cost = np.array([t[2] for t in table], dtype=np.float64)
        self.row_first_entry = np.searchsorted(np.array(entry_row, dtype=np.int64), np.arange(self.n_rows))
        # every square 1..14 has a row for every die (a die always has a face): fixed row layout
        self.state_ptr = read_only(np.r_[np.arange(N_SQUARES) * len(dice), self.n_rows].astype(np.int64))
        self.row_action = read_only(np.tile(np.arange(len(dice), dtype=np.int64), N_SQUARES - 1))
        term = np.zeros(N_SQUARES, dtype=bool)
        term[GOAL - 1] = True
        self.terminal = read_only(term)
        self.mover = read_only(np.ones(N_SQUARES, dtype=np.int8))
        self.state_labels = tuple(str(s) for s in range(1, N_SQUARES + 1))
        self.action_labels = tuple(d.name for d in dice)

    def _pick(self, layout: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        """(table index of each transition, transitions per entry) of the board with ``layout``."""
        types = np.array(layout + (0,), dtype=np.intp)[self.entry_land]
        slot = self.entry_slot + types
        start, length = self.slot_start[slot], self.slot_len[slot]
        ends = np.cumsum(length)
        return np.arange(int(ends[-1])) + np.repeat(start - (ends - length), length), length

    def transitions(self, layout: tuple[int, ...]) -> tuple[np.ndarray, ...]:
        """(src, action, dst, prob, cost) of the board with ``layout``, in the order of :func:`_outcomes`."""
        idx, length = self._pick(layout)
        return (np.repeat(self.entry_src, length), np.repeat(self.entry_act, length),
                self.dst[idx], self.prob[idx], self.cost[idx])

    def mdp(self, layout: tuple[int, ...]) -> TabularMDP:
        """The TabularMDP of ``layout``: the arrays :meth:`TabularMDP.from_transitions` builds
        from :meth:`transitions` (tested equal), built directly, since the transitions come
        sorted by (square, die) and every row is known; its checks run on a failure only."""
        idx, length = self._pick(layout)
        prob = self.prob[idx]
        row_ptr = np.zeros(self.n_rows + 1, dtype=np.int64)
        np.cumsum(np.add.reduceat(length, self.row_first_entry), out=row_ptr[1:])
        if np.any(np.abs(np.add.reduceat(prob, row_ptr[:-1]) - 1.0) > PROB_TOL):
            # not expected (every die is checked to sum to 1): let the general builder say where
            return TabularMDP.from_transitions(
                N_SQUARES, len(self.action_labels), *self.transitions(layout), discount=1.0,
                terminal=(GOAL - 1,), objective="min", state_labels=self.state_labels,
                action_labels=self.action_labels)
        return TabularMDP(
            n_states=N_SQUARES, n_actions=len(self.action_labels), state_ptr=self.state_ptr,
            row_action=self.row_action, row_ptr=read_only(row_ptr), dst=read_only(self.dst[idx]), prob=read_only(prob),
            reward=read_only(self.cost[idx]), discount=1.0, terminal=self.terminal, mover=self.mover,
            objective="min", state_labels=self.state_labels, action_labels=self.action_labels,
        )


@functools.lru_cache(maxsize=32)
def _board(circle: bool, overshoot: str, dice: tuple[Die, ...], type4: str) -> _Board:
    return _Board(circle, overshoot, dice, type4)


def compile_snakes(cfg: SnakesSettings) -> TabularMDP:
    """The game as a cost-minimising TabularMDP (state i = square i + 1, action k = cfg.dice[k]).

    Transitions are the :func:`outcomes` of every (square 1..14, die); the cost (reward field)
    is in turns; discount 1; state 14 (square 15) is terminal. Raises ValueError for an invalid
    configuration, or when some square cannot reach 15 whatever dice are chosen. The moves are
    tabulated once per rule set (:class:`_Board`); a layout costs a few numpy calls.
    """
    cfg.validate()
    mdp = _board(bool(cfg.circle), cfg.overshoot, cfg.dice, cfg.type4).mdp(cfg.layout)
    if cfg.dice != DEFAULT_DICE:  # the security die alone always reaches 15; custom dice may not
        from mdpviz.solvers.policy_iteration import ImproperPolicyError, proper_policy_rows

        try:
            proper_policy_rows(mdp)
        except ImproperPolicyError as e:
            squares = ", ".join(str(int(s) + 1) for s in e.states)
            raise ValueError(f"from square(s) {squares} no choice of dice ever reaches square 15") from None
    return mdp


# ---------------------------------------------------------------------------------- the course API
MARKOV_TOL = 1e-12
"""Stopping rule of markovDecision's value iteration: max |V_{k+1} - V_k| below this (turns)."""


def layout_from_input(layout: object) -> tuple[int, ...]:
    """Check a course layout (15 integer codes 0..4, no trap on squares 1 and 15) and return it as ints.

    Accepts a numpy array or a sequence; integral floats (e.g. from ``np.zeros(15)``) are accepted.
    Raises ValueError saying what is wrong and where.
    """
    if (isinstance(layout, np.ndarray) and layout.shape == (N_SQUARES,) and layout.dtype.kind in "iu"
            and layout[0] == 0 and layout[-1] == 0 and bool(((layout >= 0) & (layout <= 4)).all())):
        return tuple(layout.tolist())  # the common case, checked at once (the loop below says what is wrong)
    if isinstance(layout, (str, bytes)):
        raise ValueError(f"layout must be 15 numbers, got the string {layout!r}")
    try:
        arr = np.asarray(layout, dtype=object)
    except Exception as e:  # pragma: no cover - numpy refuses very odd objects
        raise ValueError(f"layout is not a sequence of numbers: {e}") from None
    if arr.ndim != 1:
        raise ValueError(f"layout must be a flat sequence of {N_SQUARES} numbers, got shape {arr.shape}")
    if arr.size != N_SQUARES:
        raise ValueError(f"layout must have {N_SQUARES} values (squares 1..15), got {arr.size}")
    out = []
    for i, v in enumerate(arr.tolist()):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise ValueError(f"layout[{i}] (square {i + 1}) is not a number: {v!r}")
        f = float(v)
        if not math.isfinite(f) or f != int(f):
            raise ValueError(f"layout[{i}] (square {i + 1}) = {v!r} is not an integer square type 0..4")
        t = int(f)
        if t not in SQUARE_TYPES:
            raise ValueError(f"layout[{i}] (square {i + 1}) = {t} is outside 0..4")
        out.append(t)
    if out[0] != 0:
        raise ValueError(f"layout[0] (square 1, the start) must be 0: no trap or bonus there, got {out[0]}")
    if out[-1] != 0:
        raise ValueError(f"layout[14] (square 15, the goal) must be 0: no trap or bonus there, got {out[-1]}")
    return tuple(out)


def markovDecision(layout: np.ndarray | Sequence[int], circle: bool) -> list[np.ndarray]:  # noqa: N802 (course name)
    """The course API: optimal dice and expected turns for a layout, by value iteration.

    ``layout``: 15 square types (numpy array or sequence; 0 ordinary, 1 restart, 2 penalty,
    3 prison, 4 bonus; squares 1 and 15 must be 0). ``circle``: bool, True if the player must stop
    exactly on 15 (overshooting restarts from square 1). Returns the list ``[Expec, Dice]``:
    ``Expec`` float64 (14,), the expected number of turns to reach 15 from squares 1..14, and
    ``Dice`` int64 (14,), the optimal die per square (1 security, 2 normal, 3 risky; ties go to
    the lower die). Computed by synchronous value iteration (Bellman optimality equation with
    cost in turns and gamma = 1) from V = 0 until max |V_{k+1} - V_k| < 1e-12.
    Raises ValueError saying what is wrong with the input.
    """
    lay = layout_from_input(layout)
    if not isinstance(circle, (bool, np.bool_)):
        raise ValueError(f"circle must be a bool (True or False), got {circle!r} of type {type(circle).__name__}")
    mdp = compile_snakes(SnakesSettings(layout=lay, circle=bool(circle)))
    sol = value_iteration_values(mdp, tol=MARKOV_TOL, max_sweeps=1_000_000)
    if not sol.converged:
        raise ValueError(f"value iteration did not converge in {sol.sweeps} sweeps")
    values, policy = sol.values, sol.policy
    expec = np.array(values[: N_SQUARES - 1], dtype=np.float64)
    dice = np.array(policy[: N_SQUARES - 1] + 1, dtype=np.int64)
    return [expec, dice]


__all__ = [
    "BONUS_COST", "DEFAULT_DICE", "MARKOV_TOL", "MAX_MOVE", "PENALTY_STEPS", "PROB_TOL", "Die", "FAST_LANE", "GOAL", "JUNCTION", "N_SQUARES", "NORMAL", "Outcome",
    "PRISON_COST", "RISKY", "RULE_SETS", "SECURITY", "SLOW_LANE", "SPECIAL", "SQUARE_TYPES", "SnakesSettings",
    "TYPE4_RULES", "OVERSHOOT_RULES", "apply_rule_set", "rule_set_name", "trap_refusal", "with_new_die", "compile_snakes", "layout_from_input", "markovDecision",
    "next_squares", "outcomes", "parse_die", "penalty_square", "square_type_name", "walk", "wrap_square",
]
