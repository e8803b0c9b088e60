"""Gymnasium, both ways: import an environment's transition table, export any model as an environment.

:func:`from_gymnasium` reads ``env.unwrapped.P`` (the table of Gymnasium's toy-text
environments: ``P[s][a]`` is a list of ``(probability, next state, reward, terminated)``) into
one :class:`~mdpviz.core.mdp.TabularMDP`:

* outcomes of one (s, a) with the same next state, reward and ``terminated`` flag are summed
  (FrozenLake lists a slip into a wall and the intended bump as two entries);
* an outcome with ``terminated=True`` goes to one extra absorbing state, "terminated" (value 0),
  with its reward; so the states a table lists after the goal (CliffWalking's goal cell, Taxi's
  delivered states) keep their own moves and are never taken for terminal themselves;
* a time limit (Gymnasium's ``TimeLimit`` wrapper, ``truncated``) is not in ``P`` and is never
  treated as termination (openai/gym#2170): the model is the environment without its time limit.

:func:`to_gymnasium` goes the other way: a ``gymnasium.Env`` that samples any one-player
mdpviz model (the games included), checked by ``gymnasium.utils.env_checker.check_env``.

Gymnasium is an optional extra (``pip install "mdpviz[gym]"``): it is imported only inside
these functions, so ``import mdpviz`` never imports it. No Qt here.
"""
from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

import numpy as np

from mdpviz.models.kit.game.codec import PAIRS_AS_OBJECT, FieldError, stored_as
from mdpviz.models.kit.boards.grid import GridGeometry
from mdpviz.core.mdp import TabularMDP

INSTALL_HINT = 'Gymnasium is not installed: install it with  pip install "mdpviz[gym]"  (or pip install gymnasium)'
"""What to tell a user who asks for a Gymnasium environment without Gymnasium."""

MAX_ROWS = 5_000_000
"""Largest number of (state, action) pairs imported (a typo in a map size never fills memory)."""

TERMINATED = "terminated"
"""Label of the absorbing state that every ``terminated`` transition enters."""

ACTION_LABELS: dict[str, tuple[str, ...]] = {
    "FrozenLakeEnv": ("left", "down", "right", "up"),
    "CliffWalkingEnv": ("up", "right", "down", "left"),
    "TaxiEnv": ("south", "north", "east", "west", "pickup", "dropoff"),
}
"""Action names of the toy-text environments, by class name (Gymnasium's documentation)."""


class GymnasiumMissing(ImportError):
    """Gymnasium is not installed (the message says how to install it)."""


def import_gymnasium():
    """The ``gymnasium`` module, or GymnasiumMissing with :data:`INSTALL_HINT`."""
    try:
        import gymnasium
    except ImportError:
        raise GymnasiumMissing(INSTALL_HINT) from None
    return gymnasium


# ---------------------------------------------------------------------------------- import
def parse_kwargs(items: Sequence[str]) -> dict[str, Any]:
    """``["is_slippery=False", "map_name=8x8"]`` -> keyword arguments: each value read as a Python
    literal where it parses (``False``, ``0.5``, ``['SFFF', ...]``), else kept as a string.
    ValueError naming the item without ``=`` or with a bad name."""
    out: dict[str, Any] = {}
    for item in items:
        key, eq, text = str(item).partition("=")
        key = key.strip()
        if not eq:
            raise ValueError(f"--kw {item!r}: write key=value, e.g. is_slippery=False")
        if not key.isidentifier():
            raise ValueError(f"--kw {item!r}: {key!r} is not a keyword name")
        try:
            value = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            value = text.strip()
        out[key] = value
    return out


def make_env(env_id: str, kwargs: dict[str, Any] | None = None):
    """``gymnasium.make(env_id, **kwargs)`` with one-line errors: GymnasiumMissing when Gymnasium is
    not installed, ValueError for an unknown environment or bad keyword arguments."""
    import warnings

    gym = import_gymnasium()
    kwargs = dict(kwargs or {})
    try:
        with warnings.catch_warnings():  # Gymnasium's own notes (deprecations, render hints) are not errors
            warnings.simplefilter("ignore")
            return gym.make(env_id, **kwargs)
    except gym.error.Error as e:
        raise ValueError(f"{env_id}: {_one_line(e)}") from None
    except Exception as e:  # noqa: BLE001 - an environment's constructor may raise anything for bad arguments
        given = ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) or "no keyword arguments"
        raise ValueError(f"{env_id} with {given}: {type(e).__name__}: {_one_line(e)}") from None


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return text if len(text) <= 300 else text[:297] + "..."


def _space_n(space: Any, what: str) -> int:
    n = getattr(space, "n", None)
    if n is None or type(space).__name__ != "Discrete":
        raise ValueError(f"the {what} space is {space}, not Discrete: only finite (Discrete) spaces can be imported")
    start = int(getattr(space, "start", 0))
    if start != 0:
        raise ValueError(f"the {what} space starts at {start}: only Discrete spaces numbered from 0 can be imported")
    return int(n)


def state_labels(env: Any, n: int) -> list[str]:
    """The environment's own description of each state (Taxi's decoded positions), else the number."""
    u = getattr(env, "unwrapped", env)
    name = type(u).__name__
    if name == "TaxiEnv" and hasattr(u, "decode"):
        places = ("R", "G", "Y", "B")
        out = []
        for s in range(n):
            row, col, pas, dest = (int(x) for x in u.decode(s))
            where = "in taxi" if pas == 4 else f"at {places[pas]}"
            out.append(f"taxi ({row},{col}), passenger {where}, to {places[dest]}")
        return out
    if name in ("FrozenLakeEnv", "CliffWalkingEnv"):
        ncol = int(getattr(u, "ncol", 0) or (getattr(u, "shape", (0, 0))[1]))
        if ncol:
            return [f"({s // ncol},{s % ncol})" for s in range(n)]
    return [str(s) for s in range(n)]


def from_gymnasium(env: Any, *, discount: float = 0.99) -> TabularMDP:
    """The TabularMDP of an environment whose unwrapped object has a transition table ``P`` and
    Discrete spaces (module docstring: duplicates summed, ``terminated`` -> one absorbing state,
    a time limit never read as termination). ``discount`` is gamma (Gymnasium has none; 0.99 by
    default). States keep the environment's numbers; the absorbing state is the last one.
    ValueError naming the state and action of anything malformed."""
    u = getattr(env, "unwrapped", env)
    P = getattr(u, "P", None)
    if P is None:
        raise ValueError(f"{type(u).__name__} has no transition table P: only environments with one "
                         "(FrozenLake, CliffWalking, Taxi, ...) can be imported")
    n = _space_n(u.observation_space, "observation")
    k = _space_n(u.action_space, "action")
    if n * k > MAX_ROWS:
        raise ValueError(f"{n:,} states x {k} actions is more than the {MAX_ROWS:,} pairs mdpviz imports")
    done = n
    src: list[int] = []
    act: list[int] = []
    dst: list[int] = []
    prob: list[float] = []
    rew: list[float] = []
    for s in range(n):
        try:
            row = P[s]
        except (KeyError, IndexError):
            raise ValueError(f"P has no entry for state {s} (the observation space has {n} states)") from None
        actions = sorted(int(a) for a in row)
        if not actions:
            raise ValueError(f"P[{s}] lists no action")
        for a in actions:
            if not 0 <= a < k:
                raise ValueError(f"P[{s}] lists action {a}, outside the action space 0..{k - 1}")
            merged: dict[tuple[int, float], float] = {}
            for i, entry in enumerate(row[a]):
                try:
                    p, s2, r, term = entry[:4]
                    p, s2, r, term = float(p), int(s2), float(r), bool(term)
                except (TypeError, ValueError):
                    raise ValueError(f"P[{s}][{a}][{i}] = {entry!r} is not (probability, next state, reward, "
                                     "terminated)") from None
                if not (0 <= s2 < n):
                    raise ValueError(f"P[{s}][{a}][{i}]: next state {s2} is outside 0..{n - 1}")
                if not (math.isfinite(p) and math.isfinite(r)):
                    raise ValueError(f"P[{s}][{a}][{i}]: probability {p} or reward {r} is not finite")
                if p == 0.0:
                    continue
                key = (done if term else s2, r)
                merged[key] = merged.get(key, 0.0) + p
            for (d, r), p in merged.items():
                src.append(s), act.append(a), dst.append(d), prob.append(p), rew.append(r)
    labels = [*state_labels(u, n), TERMINATED]
    names = ACTION_LABELS.get(type(u).__name__)
    if names is None or len(names) != k:
        names = tuple(f"action {a}" for a in range(k))
    try:
        return TabularMDP.from_transitions(n + 1, k, src, act, dst, prob, rew, discount=discount, terminal=[done],
                                           state_labels=labels, action_labels=names, mdptype="episodic")
    except ValueError as e:
        raise ValueError(f"{type(u).__name__}.P: {e}") from None


def start_distribution(env: Any) -> np.ndarray | None:
    """The environment's initial-state distribution when it publishes one (toy-text's
    ``initial_state_distrib``), else None."""
    d = getattr(getattr(env, "unwrapped", env), "initial_state_distrib", None)
    return None if d is None else np.asarray(d, dtype=np.float64)


def start_state(env: Any) -> int:
    """The most likely start state (0 when the environment does not say)."""
    d = start_distribution(env)
    return int(np.argmax(d)) if d is not None and d.size else 0


def gym_geometry(env: Any, mdp: TabularMDP | None = None) -> GridGeometry | None:
    """Where the states of FrozenLake (any map) and CliffWalking sit on their grid; None for other
    environments (Taxi and the rest are shown as a table of states)."""
    u = getattr(env, "unwrapped", env)
    name = type(u).__name__
    if name == "FrozenLakeEnv":
        desc = np.asarray(u.desc).astype(str)
        rows, cols = desc.shape
        kind = tuple(tuple("exit" if ch in "HG" else "open" for ch in row) for row in desc)
        label = tuple(tuple(ch if ch in "SHG" else "" for ch in row) for row in desc)
        moves = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}
    elif name == "CliffWalkingEnv":
        rows, cols = (int(x) for x in u.shape)
        cliff = np.asarray(getattr(u, "_cliff", np.zeros((rows, cols), dtype=bool)), dtype=bool)
        kind = tuple(tuple("hazard" if cliff[r, c] else ("exit" if (r, c) == (rows - 1, cols - 1) else "open")
                           for c in range(cols)) for r in range(rows))
        label = tuple(tuple("cliff" if cliff[r, c] else ("G" if (r, c) == (rows - 1, cols - 1) else
                            ("S" if (r, c) == (rows - 1, 0) else "")) for c in range(cols)) for r in range(rows))
        moves = {0: (-1, 0), 1: (0, 1), 2: (1, 0), 3: (0, -1)}
    else:
        return None
    state = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols)
    s0 = start_state(u)
    return GridGeometry(rows, cols, state, kind, label, moves, None, (s0 // cols, s0 % cols))


TAXI_PLACES = ("R", "G", "Y", "B")
"""Taxi's four landmarks, in the environment's order (passenger locations 0-3 and destinations)."""
TAXI_IN_TAXI = 4
"""Taxi's passenger location "in the taxi"."""
TAXI_ACTIONS = {0: (1, 0), 1: (-1, 0), 2: (0, 1), 3: (0, -1)}
"""Taxi's moves: south, north, east, west (action id -> (row step, column step))."""


@dataclass(frozen=True, eq=False)
class TaxiMap:
    """Gymnasium's Taxi as a 5 x 5 board: the state of every (taxi row, taxi column, passenger
    location, destination), the landmarks and the walls, so one slice (a passenger location and a
    destination) is drawn as a grid of the taxi's cells (:func:`taxi_slice`)."""

    rows: int
    """Rows of the taxi's grid."""
    cols: int
    """Columns of the taxi's grid."""
    state: np.ndarray
    """int64 (rows, cols, 5, 4): the environment's state of each taxi cell, passenger location (0-3 at
    a landmark, 4 in the taxi) and destination (0-3)."""
    places: tuple[tuple[int, int], ...]
    """(row, column) of the landmarks R, G, Y, B."""
    walls: tuple[tuple[int, int, str], ...]
    """The map's inner walls, as :attr:`GridGeometry.walls` lists them."""

    def slice_of(self, state: int) -> tuple[int, int] | None:
        """(passenger location, destination) of the slice that holds ``state`` (None: not a Taxi state)."""
        hit = np.argwhere(self.state == int(state))
        return (int(hit[0][2]), int(hit[0][3])) if hit.size else None


def taxi_map(env: Any) -> TaxiMap | None:
    """The :class:`TaxiMap` of Gymnasium's Taxi (None for any other environment)."""
    u = getattr(env, "unwrapped", env)
    if type(u).__name__ != "TaxiEnv" or not hasattr(u, "encode"):
        return None
    desc = np.asarray(u.desc).astype(str)
    rows, cols = desc.shape[0] - 2, (desc.shape[1] - 1) // 2
    state = np.empty((rows, cols, 5, 4), dtype=np.int64)
    for r in range(rows):
        for c in range(cols):
            for p in range(5):
                for d in range(4):
                    state[r, c, p, d] = int(u.encode(r, c, p, d))
    walls = []
    for r in range(rows):
        for c in range(cols - 1):
            if desc[r + 1, 2 * c + 2] == "|":
                walls.append((r, c, "east"))
    places = tuple((int(r), int(c)) for r, c in u.locs)
    return TaxiMap(rows, cols, state, places, tuple(walls))


def taxi_slice(tm: TaxiMap, passenger: int, destination: int) -> GridGeometry:
    """The grid of the taxi's cells with the passenger at ``passenger`` (0-3: R, G, Y, B; 4: in the
    taxi) and bound for ``destination`` (0-3): each cell is the state with the taxi there; the
    landmarks are labelled, where the passenger waits "pickup" and the destination "goal" ("R pickup",
    "G goal"); the pick-up and drop-off actions are drawn as words."""
    if not 0 <= passenger <= TAXI_IN_TAXI or not 0 <= destination < len(TAXI_PLACES):
        raise ValueError(f"Taxi has passenger locations 0..4 and destinations 0..3, not {passenger}, {destination}")
    label = [["" for _ in range(tm.cols)] for _ in range(tm.rows)]
    for k, (r, c) in enumerate(tm.places):
        words = [TAXI_PLACES[k]] + (["pickup"] if k == passenger else []) + (["goal"] if k == destination else [])
        label[r][c] = " ".join(words)
    kind = tuple(tuple("open" for _ in range(tm.cols)) for _ in range(tm.rows))
    # no start cell is marked: the taxi starts anywhere (Gymnasium draws its start)
    return GridGeometry(tm.rows, tm.cols, np.ascontiguousarray(tm.state[:, :, passenger, destination]), kind,
                        tuple(tuple(row) for row in label), dict(TAXI_ACTIONS), None, (-1, -1),
                        marks={4: "pick up", 5: "drop off"}, walls=tm.walls)


# ---------------------------------------------------------------------------------- export
_ENV_CLASS: list[type] = []


def tabular_env_class() -> type:
    """The ``gymnasium.Env`` subclass that :func:`to_gymnasium` instantiates (built on first use,
    so Gymnasium is imported only then)."""
    if _ENV_CLASS:
        return _ENV_CLASS[0]
    gym = import_gymnasium()

    class TabularEnv(gym.Env):
        """A one-player mdpviz model as a Gymnasium environment.

        Observations and actions are the model's state and action numbers (``Discrete``). A step
        samples the chosen row's transitions; it pays the transition's reward (a cost model's
        cost is paid as a negative reward, since Gymnasium maximises) and ``terminated`` is True
        on entering a terminal state. ``max_episode_steps`` (optional) truncates, never
        terminates. ``info["action_mask"]`` marks the legal actions of the new state (int8, as
        Gymnasium's Taxi does); an illegal action raises ValueError naming the state.
        """

        metadata = {"render_modes": ["ansi"]}

        def __init__(self, mdp: TabularMDP, *, start: int | Sequence[float] = 0, max_episode_steps: int | None = None,
                     render_mode: str | None = None) -> None:
            super().__init__()
            if mdp.is_two_player:
                raise ValueError("a two-player model (some states minimise) is not a single-agent environment")
            self.mdp = mdp
            self.observation_space = gym.spaces.Discrete(mdp.n_states)
            self.action_space = gym.spaces.Discrete(mdp.n_actions)
            if isinstance(start, (int, np.integer)):
                if not 0 <= int(start) < mdp.n_states:
                    raise ValueError(f"start state {start} is outside 0..{mdp.n_states - 1}")
                d = np.zeros(mdp.n_states)
                d[int(start)] = 1.0
            else:
                d = np.asarray(start, dtype=np.float64).ravel()
                if d.size != mdp.n_states or np.any(d < 0) or not math.isclose(float(d.sum()), 1.0, abs_tol=1e-9):
                    raise ValueError(f"start distribution must be {mdp.n_states} probabilities summing to 1")
            self.start_probs = d / d.sum()
            if max_episode_steps is not None and int(max_episode_steps) < 1:
                raise ValueError(f"max_episode_steps must be at least 1, got {max_episode_steps}")
            self.max_episode_steps = None if max_episode_steps is None else int(max_episode_steps)
            if render_mode not in (None, "ansi"):
                raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
            self.render_mode = render_mode
            self._sign = 1.0 if mdp.objective == "max" else -1.0
            self.s = int(np.argmax(self.start_probs))
            self.steps = 0
            self.lastaction: int | None = None

        def action_mask(self, state: int) -> np.ndarray:
            m = np.zeros(self.mdp.n_actions, dtype=np.int8)
            if not self.mdp.terminal[state]:
                m[self.mdp.actions_of(state)] = 1
            return m

        def _info(self, p: float) -> dict:
            return {"prob": float(p), "action_mask": self.action_mask(self.s)}

        def reset(self, *, seed: int | None = None, options: dict | None = None):
            super().reset(seed=seed)
            self.s = int(self.np_random.choice(self.mdp.n_states, p=self.start_probs))
            self.steps = 0
            self.lastaction = None
            return self.s, self._info(float(self.start_probs[self.s]))

        def step(self, action):
            m = self.mdp
            a = int(action)
            if m.terminal[self.s]:
                raise ValueError(f"state {self.s} is terminal: call reset() before stepping again")
            try:
                r = m.row_of(self.s, a)
            except ValueError:
                legal = ", ".join(str(int(x)) for x in m.actions_of(self.s))
                raise ValueError(f"action {a} is not legal in state {self.s} (legal: {legal}; see info['action_mask'])"
                                 ) from None
            lo, hi = int(m.row_ptr[r]), int(m.row_ptr[r + 1])
            p = np.asarray(m.prob[lo:hi])
            i = lo + int(self.np_random.choice(hi - lo, p=p / p.sum()))
            self.s = int(m.dst[i])
            self.steps += 1
            self.lastaction = a
            terminated = bool(m.terminal[self.s])
            truncated = (not terminated and self.max_episode_steps is not None and self.steps >= self.max_episode_steps)
            return self.s, self._sign * float(m.reward[i]), terminated, truncated, self._info(float(m.prob[i]))

        def render(self):
            if self.render_mode != "ansi":
                return None
            lab = self.mdp.state_labels[self.s] if self.mdp.state_labels else str(self.s)
            return f"state {self.s} ({lab})\n"

    _ENV_CLASS.append(TabularEnv)
    return TabularEnv


def to_gymnasium(mdp: TabularMDP, *, start: int | Sequence[float] = 0, max_episode_steps: int | None = None,
                 render_mode: str | None = None):
    """A ``gymnasium.Env`` that steps ``mdp`` (see :func:`tabular_env_class`): start in state
    ``start`` (or draw it from a distribution), optional time limit ``max_episode_steps``
    (truncation, never termination). GymnasiumMissing when Gymnasium is not installed."""
    return tabular_env_class()(mdp, start=start, max_episode_steps=max_episode_steps, render_mode=render_mode)


# ---------------------------------------------------------------------------------- the game
@dataclass(frozen=True)
class GymSettings:
    """The "Gymnasium environment" game's settings."""

    env_id: str = field(default="FrozenLake-v1", metadata=stored_as("env"))  # "env" in scenario files (every version)
    """Environment id for ``gymnasium.make``."""
    # A {name: literal} object in files; pairs, not a dict, so that settings are hashable. None by default: a
    # file naming only its environment makes it with Gymnasium's own defaults.
    kwargs: tuple[tuple[str, str], ...] = field(default=(), metadata=PAIRS_AS_OBJECT)
    """Keyword arguments as (name, Python literal) pairs."""
    discount: float = 0.99
    """Discount gamma (Gymnasium's environments have none)."""

    def __post_init__(self) -> None:
        env = self.env_id
        if not isinstance(env, str) or not env.strip():
            raise FieldError("env_id", f"must be an environment id, got {env!r}", subject="the environment")
        object.__setattr__(self, "env_id", env.strip())
        if not all(isinstance(p, tuple) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in self.kwargs):
            raise FieldError("kwargs", f"must be (name, Python literal) pairs of strings, got {self.kwargs!r}")
        g = self.discount
        if isinstance(g, bool) or not isinstance(g, (int, float)) or not 0.0 <= g <= 1.0:
            raise FieldError("discount", f"must be a number in [0, 1], got {g!r}")

    def kwargs_dict(self) -> dict[str, Any]:
        return parse_kwargs([f"{k}={v}" for k, v in self.kwargs])


def split_kwargs(text: str) -> list[str]:
    """``"map_name='8x8' is_slippery=False"`` -> ["map_name='8x8'", "is_slippery=False"]: split at
    spaces or commas that are outside brackets and quotes."""
    out, cur, depth, quote = [], "", 0, ""
    for ch in text:
        if quote:
            cur += ch
            if ch == quote:
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch in " ,;" and depth == 0:
            if cur.strip():
                out.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def state_with_kwargs(state: GymSettings, env_id: str, kwargs: str | dict[str, Any]) -> GymSettings:
    """``state`` with environment ``env_id`` and keyword arguments (``"key=value key=value"`` or a dict,
    whose values are written as Python literals); ValueError naming a malformed item."""
    if isinstance(kwargs, dict):
        kw = {k: repr(v) for k, v in kwargs.items()}
    else:
        items = split_kwargs(kwargs)
        parse_kwargs(items)
        kw = dict(i.split("=", 1) for i in items)
    return replace(state, env_id=env_id.strip(), kwargs=tuple((k.strip(), v.strip()) for k, v in kw.items()))


@dataclass(frozen=True, eq=False)
class ImportedEnv:
    """An environment's transition table as a model, with where its states sit."""

    mdp: TabularMDP
    """The model (discount: the settings' one when imported)."""
    geometry: GridGeometry | None
    """Cells of FrozenLake and CliffWalking; None for a table of states."""
    start: int
    """The most likely start state."""
    taxi: TaxiMap | None = None
    """Taxi's board (drawn one slice at a time); None for other environments."""


def import_env(state: GymSettings, *, max_pairs: int | None = None, too_many: str = "") -> ImportedEnv:
    """Make the environment of ``state``, read its table and close it. ValueError with a one-line
    reason (Gymnasium missing, an unknown id, bad keyword arguments, more than ``max_pairs``
    (state, action) pairs: ``too_many`` says what to do instead)."""
    try:
        env = make_env(state.env_id, state.kwargs_dict())
    except GymnasiumMissing as e:
        raise ValueError(str(e)) from None
    try:
        u = env.unwrapped
        if max_pairs is not None:
            n = int(getattr(u.observation_space, "n", 0) or 0) * int(getattr(u.action_space, "n", 0) or 0)
            if n > max_pairs:
                raise ValueError(f"{n:,} (state, action) pairs is more than {too_many or f'{max_pairs:,}'}")
        mdp = from_gymnasium(env, discount=state.discount)
        return ImportedEnv(mdp, gym_geometry(env, mdp), start_state(env), taxi_map(env))
    finally:
        env.close()


def compile_gym(state: GymSettings) -> TabularMDP:
    """The model of ``state``'s environment (imports Gymnasium; ValueError when it is missing)."""
    return import_env(state).mdp


__all__ = ['ACTION_LABELS', 'INSTALL_HINT', 'GymnasiumMissing', 'TERMINATED', 'from_gymnasium', 'gym_geometry', 'import_gymnasium', 'make_env', 'parse_kwargs', 'start_distribution', 'start_state', 'state_labels', 'tabular_env_class', 'to_gymnasium', 'GymSettings', 'ImportedEnv', 'compile_gym', 'import_env', 'split_kwargs', 'state_with_kwargs']
