"""The 3x3x3 cube: its 49 lines (and the 11 the seed's win check misses), the rules, the batch engine."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from mdpviz.models import ttt3d
from mdpviz.models.ttt import EMPTY, O, X


def _collinear_triples() -> set[tuple[int, int, int]]:
    """Every set of 3 cells whose coordinates form an arithmetic progression on each axis (brute force)."""
    out = set()
    for a, b, c in itertools.combinations(range(27), 3):
        pts = [ttt3d.cell_coords(i) for i in (a, b, c)]
        for order in itertools.permutations(pts):
            if all(order[0][k] + order[2][k] == 2 * order[1][k] for k in range(3)) and len(set(order)) == 3:
                out.add((a, b, c))
                break
    return out


class FakeRng:
    """A scripted stand-in for numpy's Generator: random() and integers(n) return queued values."""

    def __init__(self, randoms=(), integers=()):
        self.randoms = list(randoms)
        self.ints = list(integers)

    def random(self, size=None):
        if size is None:
            return self.randoms.pop(0)
        return np.array([self.randoms.pop(0) for _ in range(int(np.prod(size)))]).reshape(size)

    def integers(self, n):
        v = self.ints.pop(0)
        return n - 1 if v == "last" else v


# ---------------------------------------------------------------------- the 49 lines
def test_the_cube_has_49_lines_27_straight_18_plane_diagonals_4_space_diagonals():
    lines = ttt3d.LINES
    assert lines.shape == (49, 3)
    keys = {tuple(sorted(int(c) for c in line)) for line in lines}
    assert len(keys) == 49  # no line listed twice
    kinds = [ttt3d.line_kind(line) for line in lines]
    assert kinds.count("straight") == 27
    assert kinds.count("plane diagonal") == 18
    assert kinds.count("space diagonal") == 4
    # Independent derivation: every collinear triple of cells, by brute force over C(27, 3) = 2925 sets.
    assert keys == _collinear_triples()


@pytest.mark.parametrize(
    "cells, kind",
    [
        ((0, 1, 2), "straight"),          # a row of the bottom layer
        ((0, 3, 6), "straight"),          # a column of the bottom layer
        ((4, 13, 22), "straight"),        # through the layers, middle of each
        ((0, 4, 8), "plane diagonal"),    # inside the bottom layer
        ((0, 10, 20), "plane diagonal"),  # plane of row 0, across the layers
        ((0, 12, 24), "plane diagonal"),  # plane of column 0: missed by the seed
        ((0, 13, 26), "space diagonal"),
        ((2, 13, 24), "space diagonal"),
        ((6, 13, 20), "space diagonal"),  # missed by the seed
        ((8, 13, 18), "space diagonal"),  # missed by the seed
    ],
)
def test_some_lines_by_hand(cells, kind):
    keys = {tuple(sorted(int(c) for c in line)) for line in ttt3d.LINES}
    assert cells in keys
    assert ttt3d.line_kind(cells) == kind


def test_lines_through_each_cell():
    # Centre 13 lines, corners 7, face centres 5, edge middles 4 (49 * 3 = 147 incidences).
    per = ttt3d.LINES_PER_CELL
    assert per[13] == 13
    assert all(per[c] == 7 for c in (0, 2, 6, 8, 18, 20, 24, 26))
    assert all(per[c] == 5 for c in (4, 10, 12, 14, 16, 22))
    assert all(per[c] == 4 for c in (1, 3, 5, 7, 9, 11, 15, 17, 19, 21, 23, 25))
    assert per.sum() == 147
    for c in range(27):  # the padded table holds exactly the lines through c
        got = {tuple(sorted(line)) for line in ttt3d.LINES_THROUGH[c].tolist()}
        want = {tuple(sorted(line)) for line in ttt3d.LINES.tolist() if c in line}
        assert got == want


def test_the_seed_win_check_misses_11_lines():
    checked = {tuple(sorted(t)) for t in ttt3d.SEED_CHECKED}
    assert len(ttt3d.SEED_CHECKED) == 47 and len(checked) == 38
    all_lines = {tuple(sorted(int(c) for c in line)) for line in ttt3d.LINES}
    assert checked <= all_lines  # everything the seed checks is a real line
    missing = ttt3d.seed_missing_lines()
    assert missing.shape == (11, 3)
    by_hand = {
        (0, 12, 24), (6, 12, 18), (1, 13, 25), (7, 13, 19), (2, 14, 26), (8, 14, 20),  # column planes
        (2, 10, 18), (5, 13, 21), (8, 16, 24),  # anti-diagonals of the row planes
        (6, 13, 20), (8, 13, 18),  # two space diagonals
    }
    assert {tuple(m) for m in missing.tolist()} == by_hand
    assert by_hand | checked == all_lines
    # Ours finds a win on each of them; the seed's check would not.
    for line in by_hand:
        b = np.zeros(27, dtype=np.int8)
        b[list(line)] = O
        assert ttt3d.winner(b) == O
        assert not any(all(b[c] == O for c in t) for t in ttt3d.SEED_CHECKED)


def test_no_full_cube_is_a_draw():
    """Depth-first search over 2-colourings of the 27 cells, pruning at the first one-colour line:
    none survives, so a full cube always holds a line and no game is drawn."""
    by_last = [[] for _ in range(27)]
    for line in ttt3d.LINES.tolist():
        by_last[max(line)].append(line)
    colour = [0] * 27
    found = 0

    def dfs(i: int) -> None:
        nonlocal found
        if i == 27:
            found += 1
            return
        for v in (X, O):
            colour[i] = v
            if all(not (colour[a] == colour[b] == colour[c]) for a, b, c in by_last[i]):
                dfs(i + 1)

    dfs(0)
    assert found == 0


# ---------------------------------------------------------------------- rules
def test_board_text_round_trip_and_winner():
    b = ttt3d.board("XXX......|....O....|........O")
    assert b[:3].tolist() == [X, X, X] and b[13] == O and b[26] == O
    assert ttt3d.board_text(b) == "XXX......|....O....|........O"
    assert ttt3d.winner(b) == X
    assert ttt3d.winner(np.zeros(27, dtype=np.int8)) is None
    both = ttt3d.board("XXX......|OOO......|.........")
    with pytest.raises(ValueError, match="line of X and a line of O"):
        ttt3d.winner(both)
    with pytest.raises(ValueError, match="27 cells"):
        ttt3d.board("XXX")
    assert ttt3d.legal_moves(b).size == 27 - 5


def test_completes_and_completing_cells_agree_with_brute_force():
    rng = np.random.default_rng(5)
    boards = rng.integers(0, 3, size=(300, 27)).astype(np.int8)
    for mark in (X, O):
        comp = ttt3d.completing_cells(boards, mark)
        for k in range(0, 300, 7):
            b = boards[k]
            for c in range(27):
                want = False
                if b[c] == EMPTY:
                    t = b.copy()
                    t[c] = mark
                    want = any(all(t[i] == mark for i in line) for line in ttt3d.LINES.tolist() if c in line)
                assert comp[k, c] == want
    cells = rng.integers(0, 27, size=300)
    marks = rng.integers(1, 3, size=300).astype(np.int8)
    placed = boards.copy()
    placed[np.arange(300), cells] = marks
    got = ttt3d.completes(placed, cells, marks)
    for k in range(300):
        want = any(all(placed[k, i] == marks[k] for i in line) for line in ttt3d.LINES.tolist() if cells[k] in line)
        assert got[k] == want == ttt3d.completes_one(placed[k], int(cells[k]), int(marks[k]))


def test_play_move_risk_coin():
    risk = np.full(27, 0.25)
    b = ttt3d.board("XX.......|.........|.........")
    landed, result = ttt3d.play_move(b, 2, X, risk=risk, rng=FakeRng(randoms=[0.30]))  # 0.30 >= 0.25: own mark
    assert (landed, result) == (X, X)
    b = ttt3d.board("XX.......|.........|.........")
    landed, result = ttt3d.play_move(b, 2, X, risk=risk, rng=FakeRng(randoms=[0.10]))  # coin: O's mark
    assert (landed, result) == (O, None) and b[2] == O
    # The coin completes the opponent's line: the opponent wins.
    b = ttt3d.board("OO.......|X........|.........")
    landed, result = ttt3d.play_move(b, 2, X, risk=risk, rng=FakeRng(randoms=[0.0]))
    assert (landed, result) == (O, O)
    with pytest.raises(ValueError, match="already taken"):
        ttt3d.check_move(ttt3d.board("X" + "." * 26), 0)
    with pytest.raises(ValueError, match="out of range"):
        ttt3d.check_move(np.zeros(27, dtype=np.int8), 27)


def test_resolve_risk():
    assert np.array_equal(ttt3d.resolve_risk(None), np.zeros(27))
    assert np.array_equal(ttt3d.resolve_risk("reverse"), np.ones(27))
    assert np.array_equal(ttt3d.resolve_risk("half"), np.full(27, 0.5))
    r1, r2 = ttt3d.resolve_risk("random", seed=3), ttt3d.resolve_risk("random", seed=3)
    assert np.array_equal(r1, r2) and r1.shape == (27,) and 0 <= r1.min() and r1.max() < 1
    assert not np.array_equal(r1, ttt3d.resolve_risk("random", seed=4))
    nums = ",".join(["0.5"] * 26 + ["1"])
    assert ttt3d.resolve_risk(nums)[-1] == 1.0
    with pytest.raises(ValueError, match="unknown risk preset"):
        ttt3d.resolve_risk("nope")
    with pytest.raises(ValueError, match="27 entries"):
        ttt3d.resolve_risk("0.1, 0.2")
    with pytest.raises(ValueError, match=r"risk\[3\]"):
        ttt3d.resolve_risk([0.0] * 3 + [1.5] + [0.0] * 23)
    with pytest.raises(ValueError, match="9 risks"):
        ttt3d.resolve_risk("stochastic")


# ---------------------------------------------------------------------- the batch engine
def _lowest(boards, mark):
    return np.argmax(boards == EMPTY, axis=1)


def _highest(boards, mark):
    return 26 - np.argmax(boards[:, ::-1] == EMPTY, axis=1)


def test_play_batch_by_hand():
    rng = np.random.default_rng(0)
    # Classic: X plays 0, 1, 2 while O plays 26, 25: X completes the row on ply 5.
    res = ttt3d.play_batch(_lowest, _highest, risk=np.zeros(27), games=5, rng=rng)
    assert res.tolist() == [X] * 5
    # Reverse (every risk 1): X's choices 0, 1, 2 receive O's marks, so O's line (0, 1, 2) ends the game.
    res = ttt3d.play_batch(_lowest, _highest, risk=np.ones(27), games=3, rng=rng)
    assert res.tolist() == [O] * 3
    with pytest.raises(ValueError, match="occupied"):
        ttt3d.play_batch(lambda b, m: np.zeros(b.shape[0], dtype=np.int64), _highest, risk=np.zeros(27), games=2, rng=rng)


def test_random_vs_random_is_seeded_and_never_drawn():
    a = ttt3d.play_vs_random(None, risk=np.zeros(27), games=4000, seed=11)
    b = ttt3d.play_vs_random(None, risk=np.zeros(27), games=4000, seed=11)
    assert (a.wins, a.draws, a.losses) == (b.wins, b.draws, b.losses)
    assert a.wins + a.draws + a.losses == 4000
    assert a.draws == 0
    assert 0.5 < a.win < 0.65  # the first player's edge (about 0.567 over 100,000 games)
    lo, hi = a.win_ci()
    assert lo < a.win < hi
    # As O (second) the random player's share mirrors X's.
    o = ttt3d.play_vs_random(None, mark="O", risk=np.zeros(27), games=4000, seed=11)
    assert o.loss > 0.5


def test_random_moves_are_uniform_over_empty_cells():
    rng = np.random.default_rng(1)
    b = np.zeros((20000, 27), dtype=np.int8)
    b[:, :24] = X  # three empty cells left
    cells = ttt3d.random_moves(b, rng)
    counts = np.bincount(cells, minlength=27)
    assert counts[:24].sum() == 0
    assert np.all(np.abs(counts[24:] / 20000 - 1 / 3) < 0.02)


# ---------------------------------------------------------------------------------- the window's training, headless
def test_training_keeps_each_record_the_agent_and_its_state(tmp_path):
    """The 3D game's training as the window runs it, without Qt (a HereHost runs the job at once): every
    progress record becomes the agent and a point of the curve; a loaded agent replaces it."""
    from dataclasses import replace

    from mdpviz.models.kit.game.driver import HereHost
    from mdpviz.models.ttt3d.training import Training

    t = Training()
    t.host = HereHost()
    state = ttt3d.Ttt3dSettings(settings=replace(ttt3d.GUI_SETTINGS, episodes=60, report_every=20, eval_games=20, seed=3))
    t.settings_changed(state)
    assert t.state_text() == "no agent yet: press Train" and t.agent is None and not t.running()
    assert t.start()  # (a HereHost runs the job to its end before start returns)
    assert [r.episodes for r in t.records] == [0, 20, 40, 60] and t.agent is t.records[-1].agent
    assert not t.busy and t.progress == (60, 60) and t.status.startswith("Trained. 60 of 60 games")
    assert t.state_text() == "agent ready"
    path = t.agent.save(tmp_path / "a.npz")
    run = t.run_id
    loaded = t.load(path)
    assert t.agent is loaded and t.records == [] and t.run_id == run + 1 and t.status == "Loaded a.npz."
    with pytest.raises(ValueError, match="bad.npz"):
        (tmp_path / "bad.npz").write_text("not an agent")
        t.load(tmp_path / "bad.npz")
    assert t.agent is loaded  # a failed load changes nothing
