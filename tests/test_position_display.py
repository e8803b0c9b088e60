"""The pure parts of the board-game view and of the colour range (no Qt): one tie rule, one Q(s, .),
the position's colour range, the words of a game's end, and the solve's value range that the window
and ``mdpviz export`` share."""
from __future__ import annotations

import numpy as np
import pytest

from mdpviz.models.kit.pictures import value_range as vr
from mdpviz.models.kit.pictures.display import greedy_action, state_q
from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.boards.position import MoveSpec, greedy_move
from mdpviz.models.kit.boards.position_display import moves_range, terminal_words
from mdpviz.solvers import run, solver


def _mdp() -> TabularMDP:
    # 0 -> {1, 2} -> 3 (terminal); state 1 has two actions with equal Q (a tie), state 2 one action
    return TabularMDP.from_transitions(4, 2, [0, 0, 1, 1, 2], [0, 1, 0, 1, 0], [1, 2, 3, 3, 3],
                                       [1.0] * 5, [1.0, 0.5, 2.0, 2.0, 3.0], discount=0.9, terminal=[3])


def test_state_q_is_the_rows_of_q_values():
    mdp = _mdp()
    v = np.array([0.5, 1.5, -2.0, 0.0])
    rows = mdp.q_values(v)
    for s in range(3):
        q = state_q(mdp, s, v)
        lo, hi = int(mdp.state_ptr[s]), int(mdp.state_ptr[s + 1])
        assert q.shape == (mdp.n_actions,)
        assert np.allclose(q[mdp.row_action[lo:hi]], rows[lo:hi])
        assert np.isnan(np.delete(q, mdp.row_action[lo:hi])).all()
    assert np.isnan(state_q(mdp, 3, v)).all() and np.isnan(state_q(mdp, -1, v)).all()


@pytest.mark.parametrize("objective", ["max", "min"])
def test_greedy_move_is_the_solvers_tie_rule(objective):
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(1, 6))
        actions = [int(a) for a in rng.permutation(9)[:n]]
        qs = np.round(rng.normal(size=n), 1)  # rounded: many ties
        qs[rng.random(n) < 0.2] = np.nan
        moves = [MoveSpec(action=a, cell=a, label=str(a)) for a in actions]
        i = greedy_move(moves, qs, objective)
        ok = [k for k in range(n) if np.isfinite(qs[k])]
        if not ok:
            assert i == -1
            continue
        want = greedy_action([actions[k] for k in ok], [float(qs[k]) for k in ok], objective)
        assert actions[i] == want
    with pytest.raises(ValueError, match="objective"):
        greedy_move([MoveSpec(action=0, cell=0, label="0")], np.array([1.0]), "best")


def test_moves_range_widens_and_never_shrinks():
    assert moves_range([np.nan, np.nan]) is None
    assert moves_range([2.0, np.nan, -1.0]) == (-1.0, 2.0)
    assert moves_range([0.5], (-1.0, 2.0)) == (-1.0, 2.0)  # inside: unchanged
    assert moves_range([3.0, 0.0], (-1.0, 2.0)) == (-1.0, 3.0)  # exceeded: widened
    assert moves_range([np.nan], (-1.0, 2.0)) == (-1.0, 2.0)


def test_terminal_words():
    assert terminal_words("Win (agent)") == "the agent wins"
    assert terminal_words(" draw") == "draw"
    assert terminal_words("LOSS") == "the agent loses"
    assert terminal_words("X.O|...") is None


def test_solve_range_is_the_windows_rule(monkeypatch):
    mdp = _mdp()
    hist = run(solver(mdp, "vi", tol=1e-12), record=True).history
    ref = vr.solve_range(mdp, hist)
    assert ref.source == "reference" and ref == vr.reference_range(mdp)
    live = ~np.asarray(mdp.terminal)
    assert (ref.lo, ref.hi) == pytest.approx((hist[-1].values[live].min(), hist[-1].values[live].max()))
    # too large for a reference solve: the values seen over the run (first sweep, widened), without 0
    monkeypatch.setattr(vr, "REFERENCE_MAX_STATES", 2)
    seen = vr.solve_range(mdp, hist)
    vals = np.concatenate([np.asarray(sw.values)[live] for sw in hist])
    assert seen.source == "seen" and (seen.lo, seen.hi) == (vals.min(), vals.max())
    assert vr.seen_range(hist[1:], mdp.terminal, vr.first_sweep_range(hist[0], mdp.terminal)) == seen
    assert vr.solve_range(mdp, ()) is None
    s = vr.range_scale(seen.lo, seen.hi, label="reward")
    assert s.lo <= seen.lo and seen.hi <= s.hi and (seen.hi - seen.lo) / (s.hi - s.lo) >= 0.8


def test_value_range_needs_no_qt():
    import ast
    from pathlib import Path

    import mdpviz.models.kit.boards.position_display as pd

    for mod in (vr, pd):
        tree = ast.parse(Path(mod.__file__).read_text(encoding="utf-8"))
        names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert not any(n.startswith(("PySide6", "pyqtgraph", "mdpviz.widgets")) for n in names), mod.__name__
