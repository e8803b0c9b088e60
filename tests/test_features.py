"""Feature maps (mdpviz/solvers/features.py, issue 36 item 1): the spec grammar and its one-line errors, each
kind's matrix checked against its definition in the book (tabular one-hot, aggregation groups, tile coding's
asymmetric offsets of section 9.5.4, the polynomial and Fourier bases of sections 9.5.1-9.5.2), the stacking
x(s, a) of section 10.1, and the features file's refusals (a FIFO never blocks, an oversized file is never
read whole)."""
from __future__ import annotations

import itertools
import os
import threading

import numpy as np
import pytest

from mdpviz.core.mdp import TabularMDP
from mdpviz.solvers import features as F
from mdpviz.solvers.features import (
    Coordinates, FeatureSpec, action_features, describe, feature_matrix, kinds_for, parse_features, tile_indices,
)


def line_model(n_live: int, *, actions: int = 1) -> TabularMDP:
    """States 0..n_live-1 walk right (action 0) or stay (action 1); state n_live is terminal."""
    src, act, dst = [], [], []
    for s in range(n_live):
        for a in range(actions):
            src.append(s), act.append(a), dst.append(s + 1 if a == 0 else s)
    labels = [f"s{i}" for i in range(n_live)] + ["end"]
    return TabularMDP.from_transitions(n_live + 1, actions, src, act, dst, [1.0] * len(src), [0.0] * len(src),
                                       discount=1.0, terminal=[n_live], state_labels=labels)


def line_coords(mdp, positions, low=0.0, high=1.0):
    values = np.full((mdp.n_states, 1), np.nan)
    values[~mdp.terminal, 0] = positions
    return Coordinates(("position",), values, np.array([low]), np.array([high]))


# ------------------------------------------------------------------------------ the grammar
@pytest.mark.parametrize("text, kind, numbers, path", [
    ("tabular", "tabular", (), ""), (" Tabular ", "tabular", (), ""), ("aggregate:10", "aggregate", (10.0,), ""),
    ("aggregate:2x3", "aggregate", (2.0, 3.0), ""), ("tiles:8:0.25", "tiles", (8.0, 0.25), ""),
    ("poly:3", "poly", (3.0,), ""), ("fourier:5", "fourier", (5.0,), ""), ("game", "game", (), ""),
    ("file:my feats.csv", "file", (), "my feats.csv"), ("course/x.CSV", "file", (), "course/x.CSV"),
    ("file:C:/x.txt", "file", (), "C:/x.txt"),
])
def test_parse_features(text, kind, numbers, path):
    spec = parse_features(text)
    assert (spec.kind, spec.numbers, spec.path) == (kind, numbers, path)
    assert spec.text == text.strip() and isinstance(spec, FeatureSpec)


@pytest.mark.parametrize("text", [
    "", "tile", "tiles", "tiles:8", "tiles:0:0.5", "tiles:8:0", "tiles:8:nan", "tiles:8:x", "tiles:2.5:0.5",
    "aggregate", "aggregate:0", "aggregate:ax3", "aggregate:2x", "poly:-1", "poly:x", "fourier", "fourier:1:2",
    "tabular:3", "game:1", "file:", "radial:3", "tiles:8:0.5\nx", "poly:1000",
])
def test_parse_errors_are_one_line_starting_features(text):
    with pytest.raises(ValueError) as e:
        parse_features(text)
    msg = str(e.value)
    assert msg.startswith("features:") and "\n" not in msg


def test_kinds_for_what_a_game_has():
    assert kinds_for(None) == ("tabular", "aggregate", "file")
    c = line_coords(line_model(3), [0, 0.5, 1])
    assert kinds_for(c) == ("tabular", "aggregate", "tiles", "poly", "fourier", "file")
    assert kinds_for(None, game_features=True) == ("tabular", "aggregate", "file", "game")
    assert set(kinds_for(c, game_features=True)) == set(F.KINDS)


# ------------------------------------------------------------------------------ the kinds
def test_tabular_is_one_hot_over_the_non_terminal_states():
    mdp = line_model(5)
    X = feature_matrix("tabular", mdp)
    np.testing.assert_array_equal(X, np.vstack([np.eye(5), np.zeros((1, 5))]))
    assert not X.flags.writeable and X.dtype == np.float64
    assert describe("tabular", X) == "tabular: one feature per non-terminal state, 5 features"


def test_aggregate_groups_consecutive_states_as_equal_as_possible():
    mdp = line_model(1000)
    X = np.asarray(feature_matrix("aggregate:10", mdp))
    assert X.shape == (1001, 10) and np.all(X[:1000].sum(axis=1) == 1) and np.all(X[1000] == 0)
    np.testing.assert_array_equal(X[:1000].sum(axis=0), np.full(10, 100))  # the book's 10 groups of 100
    assert np.argmax(X[0]) == 0 and np.argmax(X[99]) == 0 and np.argmax(X[100]) == 1 and np.argmax(X[999]) == 9
    X7 = np.asarray(feature_matrix("aggregate:7", line_model(23)))
    sizes = X7[:23].sum(axis=0)
    assert sizes.sum() == 23 and sizes.max() - sizes.min() <= 1
    group = np.argmax(X7[:23], axis=1)
    assert np.all(np.diff(group) >= 0)  # consecutive
    with pytest.raises(ValueError, match="^features: 'aggregate:24' asks for 24 groups"):
        feature_matrix("aggregate:24", line_model(23))
    assert describe("aggregate:10", X) == "state aggregation: 10 groups, 10 features"


def grid_model(rows: int, cols: int) -> tuple[TabularMDP, Coordinates]:
    """A board of rows x cols cells (one action: stay), plus a terminal state with no coordinates."""
    n = rows * cols
    mdp = TabularMDP.from_transitions(n + 1, 1, range(n), [0] * n, range(n), [1.0] * n, [0.0] * n, discount=0.9,
                                      terminal=[n])
    values = np.full((n + 1, 2), np.nan)
    values[:n] = [(r, c) for r in range(rows) for c in range(cols)]
    return mdp, Coordinates(("row", "column"), values, np.zeros(2), np.array([rows - 1.0, cols - 1.0]))


def test_aggregate_cuts_a_board_into_blocks():
    mdp, coords = grid_model(4, 6)
    X = np.asarray(feature_matrix("aggregate:2x3", mdp, coords=coords))
    assert X.shape == (25, 6) and np.all(X[:24].sum(axis=1) == 1) and np.all(X[24] == 0)
    block = np.argmax(X[:24], axis=1).reshape(4, 6)
    expect = np.array([[r // 2 * 3 + c // 2 for c in range(6)] for r in range(4)])
    np.testing.assert_array_equal(block, expect)
    # aggregate:G over two coordinates: the squarest blocks R x C = G
    X6 = np.asarray(feature_matrix("aggregate:6", mdp, coords=coords))
    np.testing.assert_array_equal(X6, X)
    with pytest.raises(ValueError, match="two coordinates"):
        feature_matrix("aggregate:2x3", line_model(4))


def test_tile_coding_offsets_are_the_books_asymmetric_ones_in_1d():
    """Tiling k is displaced by k * W / T: each feature of tiling k is active on [j W - k W/T, (j+1) W - k W/T)."""
    mdp = line_model(401)
    u = np.linspace(0.0, 1.0, 401)
    T, W = 4, 0.25
    X = np.asarray(feature_matrix(f"tiles:{T}:{W}", mdp, coords=line_coords(mdp, u)))
    live = X[:401]
    assert np.all(live.sum(axis=1) == T) and np.all(X[401] == 0)  # exactly T active features per state
    lefts = []
    for col in range(X.shape[1]):
        on = np.flatnonzero(live[:, col])
        assert on.size and np.all(np.diff(on) == 1)  # a tile is an interval: states within it share it
        lefts.append(u[on[0]])
        # the interval's width is at most W and is W unless cut by the ends of [0, 1]
        width = u[on[-1]] - u[on[0]]
        assert width < W and (width > W - 2 * (u[1] - u[0]) or on[0] == 0 or on[-1] == 400)
    # each interior left edge sits at j W - k W / T for some tiling k: the k-th multiple of W / T mod W
    phases = [round(((-left) % W) / (W / T)) % T for left in lefts if left > 0]
    assert sorted(set(phases)) == list(range(T))
    # (within the grid's spacing 0.0025 = 0.04 W / T)
    assert all(abs(((-left) % W) / (W / T) - round(((-left) % W) / (W / T))) < 0.05 for left in lefts)
    # and tiling k's tiles follow the formula floor((u + k W / T) / W) (k = 0 is the untouched grid)
    idx = tile_indices(u[:, None], tilings=T, width=W)
    for k in range(T):
        np.testing.assert_array_equal(idx[:, k, 0], np.floor((u + k * (W / T)) / W).astype(int))
    assert describe(f"tiles:{T}:{W}", X) == f"tile coding: 4 tilings of width 0.25, {X.shape[1]} features"


def test_tile_coding_offsets_are_k_times_1_3_in_2d():
    T, W = 8, 0.25
    rng = np.random.default_rng(1)
    pts = rng.random((500, 2))
    idx = tile_indices(pts, tilings=T, width=W)
    for k in range(T):
        shift = k * np.array([1.0, 3.0]) * W / T
        np.testing.assert_array_equal(idx[:, k, :], np.floor((pts + shift) / W).astype(int))
    # tiling k moved by exactly k (1, 3) W / T: a point moved back by that lands in tiling 0's same tile
    for k in range(1, T):
        shift = k * np.array([1.0, 3.0]) * W / T
        back = tile_indices(pts + shift, tilings=1, width=W)[:, 0, :]
        np.testing.assert_array_equal(back, idx[:, k, :])
    # the 2-D matrix: T active features per state, and two states share a tiling's feature iff same tile
    mdp, coords = grid_model(9, 9)
    X = np.asarray(feature_matrix(f"tiles:{T}:{W}", mdp, coords=coords))
    assert np.all(X[:81].sum(axis=1) == T) and np.all(X[81] == 0)
    tid = tile_indices(coords.scaled()[:81], tilings=T, width=W)
    shared = X[:81] @ X[:81].T
    same = sum((tid[:, None, k, :] == tid[None, :, k, :]).all(axis=2).astype(int) for k in range(T))
    np.testing.assert_array_equal(shared, same)
    assert np.all(X.any(axis=0))  # never-active tiles are dropped
    X2 = np.asarray(feature_matrix(f"tiles:{T}:{W}", mdp, coords=coords))
    np.testing.assert_array_equal(X, X2)  # deterministic order


def test_poly_and_fourier_bases():
    mdp, coords = grid_model(3, 4)
    u = coords.scaled()[:12]
    K = 2
    P = np.asarray(feature_matrix(f"poly:{K}", mdp, coords=coords))
    Fo = np.asarray(feature_matrix(f"fourier:{K}", mdp, coords=coords))
    assert P.shape == Fo.shape == (13, 9) and np.all(P[12] == 0) and np.all(Fo[12] == 0)
    for col, (i, j) in enumerate(itertools.product(range(K + 1), repeat=2)):
        np.testing.assert_allclose(P[:12, col], u[:, 0] ** i * u[:, 1] ** j)
        np.testing.assert_allclose(Fo[:12, col], np.cos(np.pi * (i * u[:, 0] + j * u[:, 1])))
    assert np.all(P[:12, 0] == 1) and describe("fourier:2", Fo) == "Fourier basis of order 2, 9 features"
    assert describe("poly:2", P) == "polynomial basis of order 2, 9 features"


def test_coordinate_kinds_need_coordinates():
    with pytest.raises(ValueError, match="^features: 'tiles:4:0.5' needs the game's coordinates"):
        feature_matrix("tiles:4:0.5", line_model(3))
    mdp = line_model(3)
    bad = Coordinates(("position",), np.array([[0.0], [np.nan], [1.0], [np.nan]]), np.zeros(1), np.ones(1))
    with pytest.raises(ValueError, match="state 1 has no coordinates"):
        feature_matrix("poly:2", mdp, coords=bad)


def test_game_features_and_a_matrix_over_budget(monkeypatch):
    mdp = line_model(3)
    G = np.arange(8.0).reshape(4, 2) + 1
    X = np.asarray(feature_matrix("game", mdp, game_features=G))
    np.testing.assert_array_equal(X, np.vstack([G[:3], [[0, 0]]]))
    with pytest.raises(ValueError, match="no features of its own"):
        feature_matrix("game", mdp)
    monkeypatch.setattr(F, "MATRIX_BUDGET_BYTES", 10_000)
    with pytest.raises(ValueError, match=r"^features: the feature matrix would be 2,001 x 2,000 = 32 MB"):
        feature_matrix("tabular", line_model(2000))


def test_action_features_stack_per_action():
    mdp = line_model(3, actions=2)
    X = np.asarray(feature_matrix("tabular", mdp)) * 2.0
    Z = np.asarray(action_features(X, mdp))
    assert Z.shape == (mdp.n_rows, 6) and not action_features(X, mdp).flags.writeable
    for row in range(mdp.n_rows):
        s, a = mdp.row_state[row], mdp.row_action[row]
        expect = np.zeros(6)
        expect[a * 3:(a + 1) * 3] = X[s]
        np.testing.assert_array_equal(Z[row], expect)


# ------------------------------------------------------------------------------ the file kind
def write(tmp_path, text: str, name: str = "f.csv") -> str:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


def test_a_good_features_file(tmp_path):
    mdp = line_model(3)
    path = write(tmp_path, "state,a,b\n# a comment\ns2, 5, 6\ns0,1,2\n\ns1,3,4\nend,9,9\n")
    X = np.asarray(feature_matrix(f"file:{path}", mdp))
    np.testing.assert_array_equal(X, [[1, 2], [3, 4], [5, 6], [0, 0]])  # terminal: 0 whatever the file says
    np.testing.assert_array_equal(np.asarray(feature_matrix(path, mdp)), X)  # a bare .csv path
    assert describe(path, X) == "features from f.csv: 2 features"
    # no header; labels with commas, quoted or bare
    grid = TabularMDP.from_transitions(2, 1, [0, 1], [0, 0], [1, 1], [1, 1], [0, 0], discount=1.0, terminal=[1],
                                       state_labels=["(1,1)", "exited"])
    p2 = write(tmp_path, '"(1,1)",0.5\n', "g.csv")
    np.testing.assert_array_equal(np.asarray(feature_matrix(f"file:{p2}", grid)), [[0.5], [0]])
    p3 = write(tmp_path, "(1,1),0.25\n", "h.csv")
    np.testing.assert_array_equal(np.asarray(feature_matrix(f"file:{p3}", grid)), [[0.25], [0]])


@pytest.mark.parametrize("text, match", [
    ("s0,1\ns1,2\nzz,3\ns2,4\n", r"line 3: 'zz' is not a state of this game"),
    ("s0,1\ns1,2\n", r"state 's2' is missing"),
    ("s0,1,2\ns1,3\ns2,4,5\n", r"line 2: 1 values where the rows before have 2"),
    ("s0,1\ns1,nan\ns2,4\n", r"line 2: 'nan' is not a finite number"),
    ("s0,1\ns1,inf\ns2,4\n", r"line 2: 'inf' is not a finite number"),
    ("s0,1\ns0,2\ns1,3\ns2,4\n", r"line 2: state 's0' is listed twice"),
    ("s0,1\ns1,x\ns2,4\n", r"line 2: 'x' is not a number"),
    ("", r"lists no state"),
])
def test_bad_features_files_are_refused_in_one_line(tmp_path, text, match):
    path = write(tmp_path, text)
    with pytest.raises(ValueError, match=match) as e:
        feature_matrix(f"file:{path}", line_model(3))
    msg = str(e.value)
    assert msg.startswith("features:") and "\n" not in msg and (path in msg or "lists no state" not in msg)


def test_a_missing_file_and_bad_utf8(tmp_path):
    with pytest.raises(ValueError, match="^features: cannot read"):
        feature_matrix(f"file:{tmp_path / 'none.csv'}", line_model(3))
    p = tmp_path / "b.csv"
    p.write_bytes(b"s0,1\ns1,\xff\xfe\n")
    with pytest.raises(ValueError, match="line 2: the text is not UTF-8"):
        feature_matrix(f"file:{p}", line_model(3))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_is_refused_at_once_without_blocking(tmp_path):
    path = tmp_path / "pipe.csv"
    os.mkfifo(path)
    result: list[BaseException] = []

    def attempt() -> None:
        try:
            feature_matrix(f"file:{path}", line_model(3))
        except BaseException as e:  # noqa: BLE001 (handed to the test's thread)
            result.append(e)

    t = threading.Thread(target=attempt, daemon=True)
    t.start()
    t.join(timeout=20)
    if t.is_alive():  # it blocked opening the FIFO: unblock it by opening the write end, then fail
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        t.join(timeout=5)
        pytest.fail("reading a FIFO blocked")
    assert len(result) == 1 and isinstance(result[0], ValueError)
    assert str(result[0]) == f"features: {path} is not a regular file"


def test_a_file_over_the_budget_is_refused_without_reading_it(tmp_path, monkeypatch):
    path = write(tmp_path, "s0,1\ns1,2\ns2,3\n" + "# padding\n" * 1000)
    reads: list[str] = []
    real_open = open

    def spy_open(file, *args, **kwargs):
        reads.append(str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", spy_open)
    with pytest.raises(ValueError, match=r"^features: .* is 10,015 bytes, over the budget of 1,000$"):
        feature_matrix(f"file:{path}", line_model(3), max_bytes=1000)
    assert path not in reads  # refused from its size, never opened
    monkeypatch.undo()
    X = np.asarray(feature_matrix(f"file:{path}", line_model(3), max_bytes=20_000))
    np.testing.assert_array_equal(X[:3, 0], [1, 2, 3])
