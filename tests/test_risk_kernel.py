"""The compiled risk tic-tac-toe layer kernel against the numpy reference (expand_boards + _best).

The kernel must give bit-for-bit the same values and the same policy, on whole solves and on
random batches of boards with random child values (so that ties and near-ties are exercised).
"""
from __future__ import annotations

import numpy as np
import pytest

from mdpviz.models import risk_ttt as rt
from mdpviz.models.risk_ttt import exact as rt_exact
from mdpviz.models.ttt import BoardGeometry
from mdpviz.solvers import kernels
from mdpviz.solvers.backward_induction import _best

needs_numba = pytest.mark.skipif(rt.layer_kernel() is None,
                                 reason=f"numba unavailable: {kernels.unavailable_reason()}")


def _numpy_only(monkeypatch):
    monkeypatch.setattr(rt.RiskLayers, "backup", lambda *a, **k: None)


@needs_numba
@pytest.mark.parametrize("size", [2, 3])
@pytest.mark.parametrize("preset", ["classic", "reverse", "half", "random"])
@pytest.mark.parametrize("keep_policy", [True, False])
def test_whole_solve_is_bit_identical(size, preset, keep_policy, monkeypatch):
    risk = rt.risk_preset(preset, n_cells=size * size, seed=3)
    chunk = 7 if size == 2 else 997  # several batches per layer
    fast = rt.solve_exact(risk, size=size, keep_policy=keep_policy, chunk_size=chunk)
    with monkeypatch.context() as m:
        _numpy_only(m)
        ref = rt.solve_exact(risk, size=size, keep_policy=keep_policy, chunk_size=chunk)
    a, b = fast.layered, ref.layered
    assert a.values.tobytes() == b.values.tobytes()  # sign of zero included
    if keep_policy:
        assert np.array_equal(a.policy, b.policy)
    else:
        assert a.policy is None and b.policy is None
    assert (a.states, a.terminal, a.rows) == (b.states, b.terminal, b.rows)


def _reference_batch(game, idx, layer, V, tie_tol):
    """The numpy path of backward_induction._induction for one batch: (values, actions, counts)."""
    ex = game.expand(idx, layer)
    m = idx.size
    q = np.zeros(ex.child.shape[1])
    for j in range(ex.child.shape[0]):
        vj = V[ex.child[j]]
        vj += ex.reward[j]
        vj *= ex.prob[j]
        q += vj
    values, act = _best(q, ex, m, game.n_actions, tie_tol)
    invalid = np.asarray(ex.invalid, dtype=bool)
    term = np.asarray(ex.terminal, dtype=bool) | invalid
    values[term] = 0.0
    act = np.where(term, -1, act)
    counts = (int(m - invalid.sum()), int((term & ~invalid).sum()), int(np.count_nonzero(~term[ex.row_state])))
    return values, act, counts


@needs_numba
@pytest.mark.parametrize("seed", range(4))
def test_random_batches_on_4x4_match_numpy(seed):
    """Random boards of random layers, random risks, and child values drawn from a few levels
    (ties, near-ties within the tolerance, both signs, signed zeros)."""
    rng = np.random.default_rng(seed)
    geo = BoardGeometry(size=4)
    game = rt.RiskLayers(rng.choice([0.0, 0.25, 0.5, 1.0, 0.3], size=16), geometry=geo)
    levels = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 0.5 + 1e-12, 0.25, -0.75])
    V = rng.choice(levels, size=geo.n_boards) if seed % 2 else rng.uniform(-1, 1, size=geo.n_boards)
    for layer in rng.choice(np.arange(17), size=2, replace=False):
        cells = np.zeros((2000, 16), dtype=np.int64)
        for i in range(cells.shape[0]):  # boards with `layer` marks, X and O in turn-consistent numbers
            pos = rng.choice(16, size=layer, replace=False)
            marks = np.array([1, 2] * 8)[:layer]
            cells[i, pos] = marks
        idx = np.unique(cells @ geo.powers)
        ref_v, ref_a, ref_c = _reference_batch(game, idx, int(layer), V, 1e-9)  # reads V only
        W = V.copy()
        pol = np.full(geo.n_boards, -7, dtype=np.int16)
        got = game.backup(idx, int(layer), W, pol, 1e-9)
        assert got == ref_c
        assert W[idx].tobytes() == ref_v.tobytes()
        assert np.array_equal(pol[idx], ref_a)
        W[idx] = V[idx]
        assert np.array_equal(W.view(np.uint64), V.view(np.uint64))  # it wrote only the batch (bit for bit,
        # as tobytes() compared, without two 344 MB copies of the 3^16 boards' values)


def test_without_numba_the_numpy_path_is_used(monkeypatch):
    monkeypatch.setattr(rt_exact, "layer_kernel", lambda: None)  # where RiskLayers looks it up
    game = rt.RiskLayers(rt.risk_preset("classic", n_cells=9), geometry=BoardGeometry(size=3))
    assert game.backup(np.arange(3), 0, np.zeros(3**9), None, 1e-9) is None
    assert rt.solve_exact(rt.risk_preset("classic", n_cells=9), size=3).empty_value == 0.0
