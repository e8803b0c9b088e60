"""Feature maps x(s) for linear function approximation over any TabularMDP (Sutton and Barto, chapter 9).

A feature map turns each state into a vector x(s) of d numbers; a linear learner estimates
v_hat(s, w) = w . x(s) (eq. 9.8). This module builds the (n_states x d) matrix X of every state's features
from a short spec the user types (``parse_features``):

* ``tabular``: one-hot, one column per non-terminal state in state order (v_hat = w is the table);
* ``aggregate:G``: state aggregation (section 9.3, Example 9.1): G groups of consecutive non-terminal
  states, sizes as equal as possible (the book's 10 groups of 100 on the 1000-state walk); over two
  coordinates (a board) ``aggregate:G`` cuts the board into blocks, ``aggregate:RxC`` says the blocks;
* ``tiles:T:W``: tile coding (section 9.5.4): T tilings of tiles of width W over the coordinates scaled to
  [0, 1], tiling k displaced by k * (1, 3, 5, ...) * W / T (the book's asymmetric, odd-number offsets, as
  Sutton's ``tiles3`` software); one feature per tile some state touches;
* ``poly:K``: the polynomial basis (section 9.5.1, eq. 9.17): every product prod_j u_j^c_j, c_j in 0..K;
* ``fourier:K``: the Fourier cosine basis (section 9.5.2, eq. 9.18): cos(pi c . u), c_j in 0..K;
* ``file:PATH`` (or a bare ``PATH.csv``): a course's own features, one CSV line per state;
* ``game``: the game's own matrix (Baird's counterexample: the book's features, figure 11.1).

Terminal states' rows are all 0, so v_hat(terminal) = 0 and bootstrapping off a terminal state gives 0, as
the tabular learners do. The module knows no game: a game hands over its :class:`Coordinates` (grid:
row and column; random walk: position; mountain car: position and velocity). numpy only; never imports Qt.
"""
from __future__ import annotations

import csv
import io
import itertools
import math
import os
import stat
from dataclasses import dataclass

import numpy as np

from mdpviz.core.mdp import TabularMDP, read_only

KINDS = ("tabular", "aggregate", "tiles", "poly", "fourier", "file", "game")
"""The kinds of feature map, in the order a Features picker lists them."""

COORDINATE_KINDS = ("tiles", "poly", "fourier")
"""The kinds that need the game's coordinates."""

MATRIX_BUDGET_BYTES = 200_000_000
"""Largest feature matrix (float64 bytes) built; a bigger one is refused before it is allocated."""

FILE_BUDGET_BYTES = 20_000_000
"""Default largest features file read (bytes)."""

MAX_TILINGS = 1024
MAX_ORDER = 64

SYNTAX = "tabular, aggregate:G, aggregate:RxC, tiles:T:W, poly:K, fourier:K, file:PATH or game"


@dataclass(frozen=True)
class Coordinates:
    """Where each state sits: the numbers tile coding and the polynomial and Fourier bases read."""

    names: tuple[str, ...]
    """One name per coordinate, e.g. ("row", "column"), ("position",), ("position", "velocity")."""
    values: np.ndarray
    """float64 (n_states, d); a row of NaN: a state with no coordinates (a terminal state)."""
    low: np.ndarray
    """float64 (d,): the low end of each coordinate's range (scaled to 0)."""
    high: np.ndarray
    """float64 (d,): the high end of each coordinate's range (scaled to 1)."""

    def __post_init__(self) -> None:
        names = tuple(str(n) for n in self.names)
        values = np.array(self.values, dtype=np.float64)
        if values.ndim == 1:
            values = values[:, None]
        d = len(names)
        if values.ndim != 2 or values.shape[1] != d or d < 1:
            raise ValueError(f"coordinates: values must be (n_states, {d}) for the names {names}, got {values.shape}")
        low = np.array(self.low, dtype=np.float64).reshape(-1)
        high = np.array(self.high, dtype=np.float64).reshape(-1)
        if low.shape != (d,) or high.shape != (d,) or not (np.all(np.isfinite(low)) and np.all(np.isfinite(high))):
            raise ValueError(f"coordinates: low and high must be {d} finite numbers each")
        if np.any(high < low):
            raise ValueError("coordinates: high must not be below low")
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "values", read_only(values))
        object.__setattr__(self, "low", read_only(low))
        object.__setattr__(self, "high", read_only(high))

    @property
    def dim(self) -> int:
        """Number of coordinates d."""
        return len(self.names)

    def scaled(self) -> np.ndarray:
        """float64 (n_states, d): the coordinates mapped from [low, high] to [0, 1] (clipped; NaN kept)."""
        span = np.where(self.high > self.low, self.high - self.low, 1.0)
        with np.errstate(invalid="ignore"):
            return np.clip((self.values - self.low) / span, 0.0, 1.0)


@dataclass(frozen=True)
class FeatureSpec:
    """A parsed feature spec (``parse_features``)."""

    text: str
    """As the user wrote it, e.g. "tiles:8:0.25"."""
    kind: str
    """One of :data:`KINDS`."""
    numbers: tuple[float, ...] = ()
    """aggregate: (G,) or (R, C); tiles: (T, W); poly and fourier: (K,); else ()."""
    path: str = ""
    """The file of kind "file"."""


def _bad(text: str, why: str) -> ValueError:
    return ValueError(f"features: {text!r} {why} (choose {SYNTAX})")


def _count(text: str, word: str, what: str, *, low: int, high: int) -> int:
    try:
        n = int(word.strip())
    except ValueError:
        raise _bad(text, f"needs a whole number of {what}, got {word.strip()!r}") from None
    if not low <= n <= high:
        raise ValueError(f"features: {text!r}: the number of {what} must be in {low}..{high}, got {n}")
    return n


def parse_features(text: str) -> FeatureSpec:
    """The :class:`FeatureSpec` of ``text``: "tabular" | "aggregate:G" | "aggregate:RxC" | "tiles:T:W" |
    "poly:K" | "fourier:K" | "file:PATH" | "game"; a bare path ending in ".csv" is the file kind too.
    ValueError (one line starting "features:") for anything else."""
    if not isinstance(text, str):
        raise ValueError(f"features: expected text such as 'tiles:8:0.25', got {type(text).__name__}")
    raw = text.strip()
    if not raw or "\n" in raw or "\r" in raw:
        raise _bad(text, "is not a feature spec")
    head, sep, rest = raw.partition(":")
    kind = head.strip().lower()
    if kind == "file":
        path = rest.strip()
        if not path:
            raise _bad(text, "names no file (file:PATH)")
        return FeatureSpec(raw, "file", (), path)
    if kind not in KINDS:
        if raw.lower().endswith(".csv"):
            return FeatureSpec(raw, "file", (), raw)
        raise _bad(text, f"has an unknown kind {head.strip()!r}")
    parts = [p.strip() for p in rest.split(":")] if sep else []
    if kind in ("tabular", "game"):
        if parts:
            raise _bad(text, f"takes no numbers after {kind!r}")
        return FeatureSpec(raw, kind)
    if kind == "aggregate":
        if len(parts) != 1:
            raise _bad(text, "needs one number of groups, aggregate:G, or blocks, aggregate:RxC")
        word = parts[0].lower()
        if "x" in word:
            r, _, c = word.partition("x")
            rows = _count(text, r, "block rows", low=1, high=1_000_000)
            cols = _count(text, c, "block columns", low=1, high=1_000_000)
            return FeatureSpec(raw, kind, (float(rows), float(cols)))
        return FeatureSpec(raw, kind, (float(_count(text, word, "groups", low=1, high=10_000_000)),))
    if kind == "tiles":
        if len(parts) != 2:
            raise _bad(text, "needs tiles:T:W (T tilings of width W in the coordinates scaled to [0, 1])")
        tilings = _count(text, parts[0], "tilings", low=1, high=MAX_TILINGS)
        try:
            width = float(parts[1])
        except ValueError:
            raise _bad(text, f"needs a tile width, got {parts[1]!r}") from None
        if not (math.isfinite(width) and 0.0 < width <= 10.0):
            raise ValueError(f"features: {text!r}: the tile width must be in (0, 10] (the coordinates are scaled "
                             f"to [0, 1]), got {parts[1]}")
        return FeatureSpec(raw, kind, (float(tilings), width))
    # poly, fourier
    if len(parts) != 1:
        raise _bad(text, f"needs {kind}:K (the order K)")
    return FeatureSpec(raw, kind, (float(_count(text, parts[0], "the order", low=0, high=MAX_ORDER)),))


def kinds_for(coords: Coordinates | None, *, game_features: bool = False) -> tuple[str, ...]:
    """The kinds a game offers: tabular, aggregate and file always; tiles, poly and fourier with
    coordinates; game when it has its own features. In :data:`KINDS` order."""
    have = {"tabular", "aggregate", "file"}
    if coords is not None:
        have.update(COORDINATE_KINDS)
    if game_features:
        have.add("game")
    return tuple(k for k in KINDS if k in have)


def check_matrix_size(rows: int, cols: int, what: str = "feature matrix") -> None:
    """ValueError if a float64 (rows x cols) matrix is over :data:`MATRIX_BUDGET_BYTES` (before allocating)."""
    size = int(rows) * int(cols) * 8
    if size > MATRIX_BUDGET_BYTES:
        raise ValueError(f"features: the {what} would be {rows:,} x {cols:,} = {size / 1e6:,.0f} MB, over the "
                         f"budget of {MATRIX_BUDGET_BYTES / 1e6:,.0f} MB (choose fewer features, e.g. aggregate:G)")


# ====================================================================== the kinds
def _tabular(mdp: TabularMDP) -> np.ndarray:
    live = np.flatnonzero(~np.asarray(mdp.terminal))
    check_matrix_size(mdp.n_states, live.size)
    X = np.zeros((mdp.n_states, live.size))
    X[live, np.arange(live.size)] = 1.0
    return X


def _columns_of_groups(mdp: TabularMDP, live: np.ndarray, group: np.ndarray) -> np.ndarray:
    """One-hot of ``group`` (per live state) with the never-used groups dropped, in group order."""
    used, col = np.unique(group, return_inverse=True)
    check_matrix_size(mdp.n_states, used.size)
    X = np.zeros((mdp.n_states, used.size))
    X[live, col] = 1.0
    return X


def _aggregate(spec: FeatureSpec, mdp: TabularMDP, coords: Coordinates | None) -> np.ndarray:
    """State aggregation (section 9.3): the groups are one-hot features (Example 9.1)."""
    live = np.flatnonzero(~np.asarray(mdp.terminal))
    if live.size == 0:
        raise ValueError(f"features: {spec.text!r}: the model has no non-terminal state")
    blocks = len(spec.numbers) == 2 or (coords is not None and coords.dim == 2)
    if not blocks:
        g = int(spec.numbers[0])
        if g > live.size:
            raise ValueError(f"features: {spec.text!r} asks for {g:,} groups of the {live.size:,} non-terminal "
                             f"states")
        # state i of the live ones goes to group floor(i G / n): sizes differ by at most one
        group = (np.arange(live.size, dtype=np.int64) * g) // live.size
        return _columns_of_groups(mdp, live, group)
    if coords is None or coords.dim != 2:
        raise ValueError(f"features: {spec.text!r}: blocks RxC need a game with two coordinates (row, column)")
    if len(spec.numbers) == 2:
        r, c = int(spec.numbers[0]), int(spec.numbers[1])
    else:
        g = int(spec.numbers[0])
        r = max(k for k in range(1, math.isqrt(g) + 1) if g % k == 0)  # the squarest R x C = G
        c = g // r
    u = _scaled_live(spec, mdp, coords, live)
    br = np.minimum((u[:, 0] * r).astype(np.int64), r - 1)
    bc = np.minimum((u[:, 1] * c).astype(np.int64), c - 1)
    return _columns_of_groups(mdp, live, br * c + bc)


def _scaled_live(spec: FeatureSpec, mdp: TabularMDP, coords: Coordinates | None, live: np.ndarray) -> np.ndarray:
    if coords is None:
        raise ValueError(f"features: {spec.text!r} needs the game's coordinates, and this game has none "
                         f"(choose tabular, aggregate:G or a features file)")
    if coords.values.shape[0] != mdp.n_states:
        raise ValueError(f"features: the coordinates have {coords.values.shape[0]} rows for {mdp.n_states} states")
    u = coords.scaled()[live]
    bad = np.flatnonzero(~np.all(np.isfinite(u), axis=1))
    if bad.size:
        raise ValueError(f"features: {spec.text!r}: non-terminal state {int(live[bad[0]])} has no coordinates")
    return u


def tile_indices(u: np.ndarray, *, tilings: int, width: float) -> np.ndarray:
    """int64 (n, tilings, d): the tile of each point of ``u`` (n x d, scaled to [0, 1]) in each tiling.

    Tiling k is displaced by k * (1, 3, 5, ...) * width / tilings (section 9.5.4, the asymmetric offsets of
    the book's figure 9.11 and Sutton's ``tiles3``): the tile along coordinate j is
    floor((u_j + k (2j + 1) width / tilings) / width)."""
    u = np.asarray(u, dtype=np.float64)
    d = u.shape[1]
    odd = 2 * np.arange(d) + 1
    k = np.arange(tilings)[:, None]
    offset = k * odd[None, :] * (width / tilings)  # (tilings, d)
    return np.floor((u[:, None, :] + offset[None, :, :]) / width).astype(np.int64)


def _tiles(spec: FeatureSpec, mdp: TabularMDP, coords: Coordinates | None) -> np.ndarray:
    """Tile coding (section 9.5.4): T tilings, each state active in exactly one tile of each (T features 1)."""
    live = np.flatnonzero(~np.asarray(mdp.terminal))
    u = _scaled_live(spec, mdp, coords, live)
    tilings, width = int(spec.numbers[0]), float(spec.numbers[1])
    idx = tile_indices(u, tilings=tilings, width=width)  # (n_live, T, d)
    blocks = []
    total = 0
    for k in range(tilings):  # per tiling, its touched tiles in lexicographic order: deterministic
        used, col = np.unique(idx[:, k, :], axis=0, return_inverse=True)
        blocks.append(total + col.reshape(-1))
        total += used.shape[0]
    check_matrix_size(mdp.n_states, total)
    X = np.zeros((mdp.n_states, total))
    for cols in blocks:
        X[live, cols] = 1.0
    return X


def _exponents(spec: FeatureSpec, d: int) -> np.ndarray:
    k = int(spec.numbers[0])
    n = (k + 1) ** d
    if n > 1_000_000:
        raise ValueError(f"features: {spec.text!r} over {d} coordinates gives {n:,} features (choose a lower order)")
    return np.array(list(itertools.product(range(k + 1), repeat=d)), dtype=np.int64).reshape(n, d)


def _poly(spec: FeatureSpec, mdp: TabularMDP, coords: Coordinates | None) -> np.ndarray:
    """The polynomial basis (section 9.5.1, eq. 9.17): x_i(s) = prod_j u_j^c_ij, c_ij in 0..K."""
    live = np.flatnonzero(~np.asarray(mdp.terminal))
    u = _scaled_live(spec, mdp, coords, live)
    c = _exponents(spec, u.shape[1])
    check_matrix_size(mdp.n_states, c.shape[0])
    X = np.zeros((mdp.n_states, c.shape[0]))
    X[live] = np.prod(u[:, None, :] ** c[None, :, :], axis=2)  # 0 ** 0 == 1: the constant feature
    return X


def _fourier(spec: FeatureSpec, mdp: TabularMDP, coords: Coordinates | None) -> np.ndarray:
    """The Fourier cosine basis (section 9.5.2, eq. 9.18): x_i(s) = cos(pi c_i . u), c_ij in 0..K."""
    live = np.flatnonzero(~np.asarray(mdp.terminal))
    u = _scaled_live(spec, mdp, coords, live)
    c = _exponents(spec, u.shape[1])
    check_matrix_size(mdp.n_states, c.shape[0])
    X = np.zeros((mdp.n_states, c.shape[0]))
    X[live] = np.cos(np.pi * (u @ c.T.astype(np.float64)))
    return X


def _game(spec: FeatureSpec, mdp: TabularMDP, game_features: np.ndarray | None) -> np.ndarray:
    if game_features is None:
        raise ValueError(f"features: {spec.text!r}: this game has no features of its own")
    G = np.asarray(game_features, dtype=np.float64)
    if G.ndim != 2 or G.shape[0] != mdp.n_states or G.shape[1] < 1:
        raise ValueError(f"features: the game's features are {G.shape}, not (n_states={mdp.n_states}, d)")
    if not np.all(np.isfinite(G)):
        raise ValueError("features: the game's features hold numbers that are not finite")
    X = G.copy()
    X[np.asarray(mdp.terminal)] = 0.0
    return X


# ====================================================================== the file kind
def _number(path: str, line: int, word: str) -> float:
    try:
        x = float(word)
    except ValueError:
        raise ValueError(f"features: {path}, line {line}: {word.strip()!r} is not a number") from None
    if not math.isfinite(x):
        raise ValueError(f"features: {path}, line {line}: {word.strip()!r} is not a finite number")
    return x


def _is_number(word: str) -> bool:
    try:
        return math.isfinite(float(word))
    except ValueError:
        return False


def read_feature_file(path: str, mdp: TabularMDP, *, max_bytes: int = FILE_BUDGET_BYTES) -> np.ndarray:
    """The features of a CSV file: an optional header row, then "state label, f1, f2, ..." per state.

    Every non-terminal state is listed once (a terminal state may be listed; its row stays 0). A label with
    commas (a grid world's "(1,1)") is written in quotes, or bare: the first fields that join into a label
    are taken as it. Blank lines and lines starting with "#" are skipped. Refused, in one line naming the
    file and line: a missing or non-regular file (a FIFO or a device, checked before it is opened, so it
    never blocks), a file over ``max_bytes`` (never read past the budget), text that is not UTF-8, an
    unknown or repeated label, a missing state, a row with another number of values, a non-finite number.
    """
    try:
        info = os.stat(path)
    except OSError as e:
        raise ValueError(f"features: cannot read {path}: {e.strerror or e}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"features: {path} is not a regular file")
    if info.st_size > max_bytes:
        raise ValueError(f"features: {path} is {info.st_size:,} bytes, over the budget of {max_bytes:,}")
    try:
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as e:
        raise ValueError(f"features: cannot read {path}: {e.strerror or e}") from None
    if len(data) > max_bytes:
        raise ValueError(f"features: {path} is over the budget of {max_bytes:,} bytes")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise ValueError(f"features: {path}, line {line}: the text is not UTF-8") from None

    labels = mdp.state_labels if mdp.state_labels is not None else tuple(str(i) for i in range(mdp.n_states))
    index: dict[str, int] = {}
    for i, lab in enumerate(labels):
        index.setdefault(lab.strip(), i)
    most = max((lab.count(",") for lab in labels), default=0) + 1
    terminal = np.asarray(mdp.terminal)
    rows: dict[int, list[float]] = {}
    width = -1
    first = True
    reader = csv.reader(io.StringIO(text, newline=""), skipinitialspace=True)
    line = 0
    for fields in reader:
        line = reader.line_num
        if not fields or all(not f.strip() for f in fields) or fields[0].lstrip().startswith("#"):
            continue
        state, used = -1, 0
        for j in range(1, min(most, len(fields)) + 1):
            state = index.get(",".join(fields[:j]).strip(), -1)
            if state >= 0:
                used = j
                break
        values = fields[used:] if state >= 0 else fields[1:]
        if first:
            first = False
            if state < 0 and not all(_is_number(v) for v in values):
                continue  # a header row
        if state < 0:
            raise ValueError(f"features: {path}, line {line}: {fields[0].strip()!r} is not a state of this game")
        if state in rows:
            raise ValueError(f"features: {path}, line {line}: state {labels[state]!r} is listed twice")
        if width < 0:
            width = len(values)
            if width < 1:
                raise ValueError(f"features: {path}, line {line}: no feature values after the state label")
        elif len(values) != width:
            raise ValueError(f"features: {path}, line {line}: {len(values)} values where the rows before have "
                             f"{width}")
        rows[state] = [_number(path, line, v) for v in values]
    missing = [s for s in np.flatnonzero(~terminal) if int(s) not in rows]
    if not rows:
        raise ValueError(f"features: {path} lists no state")
    if missing:
        raise ValueError(f"features: {path}: state {labels[missing[0]]!r} is missing ({len(missing)} non-terminal "
                         f"state{'s' if len(missing) > 1 else ''} not listed)")
    check_matrix_size(mdp.n_states, width)
    X = np.zeros((mdp.n_states, width))
    for s, vals in rows.items():
        if not terminal[s]:
            X[s] = vals
    return X


# ====================================================================== the entry points
def feature_matrix(
    spec: FeatureSpec | str,
    mdp: TabularMDP,
    *,
    coords: Coordinates | None = None,
    game_features: np.ndarray | None = None,
    max_bytes: int = FILE_BUDGET_BYTES,
) -> np.ndarray:
    """float64 (n_states, d), read-only: x(s) for every state (terminal states' rows 0). See the module
    docstring for the kinds; ``max_bytes`` bounds a features file. ValueError one line "features: ..."."""
    if isinstance(spec, str):
        spec = parse_features(spec)
    kind = spec.kind
    if kind == "tabular":
        X = _tabular(mdp)
    elif kind == "aggregate":
        X = _aggregate(spec, mdp, coords)
    elif kind == "tiles":
        X = _tiles(spec, mdp, coords)
    elif kind == "poly":
        X = _poly(spec, mdp, coords)
    elif kind == "fourier":
        X = _fourier(spec, mdp, coords)
    elif kind == "file":
        X = read_feature_file(spec.path, mdp, max_bytes=max_bytes)
    elif kind == "game":
        X = _game(spec, mdp, game_features)
    else:
        raise ValueError(f"features: unknown kind {kind!r} (choose {SYNTAX})")
    if X.shape[1] == 0:
        raise ValueError(f"features: {spec.text!r} gives no feature (the model has no non-terminal state)")
    return read_only(np.ascontiguousarray(X, dtype=np.float64))


def action_features(X: np.ndarray, mdp: TabularMDP) -> np.ndarray:
    """(n_rows, d * n_actions) float64, read-only: x(s, a) = x(s) placed in the block of action a, zeros
    elsewhere (section 10.1: q_hat(s, a, w) = w . x(s, a), one copy of the state features per action)."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] != mdp.n_states:
        raise ValueError(f"features: X is {X.shape}, not (n_states={mdp.n_states}, d)")
    d = X.shape[1]
    check_matrix_size(mdp.n_rows, d * mdp.n_actions, "state-action feature matrix")
    out = np.zeros((mdp.n_rows, mdp.n_actions, d))
    out[np.arange(mdp.n_rows), np.asarray(mdp.row_action)] = X[np.asarray(mdp.row_state)]
    return read_only(out.reshape(mdp.n_rows, mdp.n_actions * d))


def describe(spec: FeatureSpec | str, X: np.ndarray) -> str:
    """One line for the window and the lesson, e.g. "tile coding: 8 tilings of width 0.25, 72 features"."""
    if isinstance(spec, str):
        spec = parse_features(spec)
    d = int(np.asarray(X).shape[1])
    n = f"{d:,} feature{'s' if d != 1 else ''}"
    nums = spec.numbers
    if spec.kind == "tabular":
        return f"tabular: one feature per non-terminal state, {n}"
    if spec.kind == "aggregate":
        what = f"{int(nums[0])}x{int(nums[1])} blocks" if len(nums) == 2 else f"{int(nums[0])} groups"
        return f"state aggregation: {what}, {n}"
    if spec.kind == "tiles":
        return f"tile coding: {int(nums[0])} tilings of width {nums[1]:g}, {n}"
    if spec.kind == "poly":
        return f"polynomial basis of order {int(nums[0])}, {n}"
    if spec.kind == "fourier":
        return f"Fourier basis of order {int(nums[0])}, {n}"
    if spec.kind == "file":
        return f"features from {os.path.basename(spec.path)}: {n}"
    return f"the game's own features: {n}"


__all__ = [
    "COORDINATE_KINDS", "Coordinates", "FILE_BUDGET_BYTES", "FeatureSpec", "KINDS", "MATRIX_BUDGET_BYTES",
    "action_features", "check_matrix_size", "describe", "feature_matrix", "kinds_for", "parse_features",
    "read_feature_file", "tile_indices",
]
