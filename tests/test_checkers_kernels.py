"""The numba checkers compiler against the pure-Python one it replaced (tests/checkers_reference.py,
kept only as this test's reference): the compiled MDP must be identical, array for array."""
from __future__ import annotations

import numpy as np
import pytest

from tests.checkers_reference import _engine as ref_engine
from tests.checkers_reference import reference_compile
from mdpviz.models.checkers import Checkers, CheckersRules, Position, VariantTooLarge, compile_checkers
from mdpviz.models.checkers.rules import _engine

VARIANTS = [
    CheckersRules(size=4, rows=1, ply_limit=None),
    CheckersRules(size=4, rows=1, forced_capture=False, multi_jump=False, ply_limit=16),
    CheckersRules(size=5, rows=1, ply_limit=14),
    CheckersRules(size=5, rows=1, forced_capture=False, multi_jump=True, ply_limit=10),
    CheckersRules(size=5, rows=1, forced_capture=True, multi_jump=False, ply_limit=None),
    CheckersRules(size=5, rows=2, ply_limit=6),
    CheckersRules(size=6, rows=1, ply_limit=8),
    CheckersRules(size=6, rows=2, forced_capture=False, multi_jump=True, ply_limit=4),
]


def assert_identical(cm, ref) -> None:
    m, r = cm.mdp, ref["mdp"]
    assert (m.n_states, m.n_actions, m.discount, m.objective, m.mdptype) == (
        r.n_states, r.n_actions, r.discount, r.objective, r.mdptype)
    assert m.action_labels == r.action_labels and m.state_labels == r.state_labels
    for name in ("state_ptr", "row_action", "row_ptr", "dst", "prob", "reward", "terminal", "mover"):
        a, b = getattr(m, name), getattr(r, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name  # exact, not approximate
    for name in ("state_position", "state_ply", "start_states", "start_probs"):
        assert np.array_equal(getattr(cm, name), ref[name]), name
    assert (cm.win, cm.draw, cm.loss, cm.n_positions) == (ref["win"], ref["draw"], ref["loss"], ref["n_positions"])
    assert np.array_equal(cm._position_material, ref["position_material"])
    # the same position behind every id, and the lookups both ways
    e, S = _engine(cm.rules.size, cm.rules.forced_capture, cm.rules.multi_jump), ref["bits_len"]
    mask = (1 << S) - 1
    keys = [e.board_bits(int(x)) | e.board_bits(int(y)) << S | e.board_bits(int(z)) << (2 * S) for x, y, z in cm._keys]
    assert keys == ref["keys"]
    for s in np.linspace(0, cm.n_states - 4, 25).astype(int) if cm.n_states > 3 else []:
        pos = cm.position(int(s))
        key = ref["keys"][ref["state_position"][s]]
        me, them = (pos.black, pos.white) if cm.agent == "black" else (pos.white, pos.black)
        assert (me, them, pos.kings) == (key & mask, (key >> S) & mask, key >> (2 * S))
        assert cm.state_of(pos) == s


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: r.describe())
@pytest.mark.parametrize("agent", ["black", "white"])
def test_the_kernels_compile_the_same_mdp_as_the_python_reference(rules, agent):
    assert_identical(compile_checkers(rules, agent=agent, discount=0.9),
                     reference_compile(rules, agent=agent, discount=0.9))


def test_the_same_mdp_from_a_hand_made_start_with_kings():
    g = Checkers(CheckersRules(size=6, rows=2, forced_capture=True, multi_jump=True, ply_limit=12))
    start = g.position(black_men=["a1", "c1"], black_kings=["e3"], white_men=["b6", "d4", "f6"],
                       white_kings=["c3"], to_move="white", ply=3)
    for agent in ("black", "white"):
        assert_identical(compile_checkers(g.rules, agent=agent, start=start),
                         reference_compile(g.rules, agent=agent, start=start))


def test_moves_agree_with_the_python_engine_on_random_positions():
    rng = np.random.default_rng(5)
    for size in (4, 5, 6, 7, 8):
        for forced in (True, False):
            for multi in (True, False):
                new, old = _engine(size, forced, multi), ref_engine(size, forced, multi)
                for _ in range(150):
                    occ = [b for b in new.bits if rng.random() < 0.45]
                    side = rng.random(len(occ)) < 0.5
                    king = rng.random(len(occ)) < 0.3
                    me = sum(1 << b for b, s in zip(occ, side) if s)
                    them = sum(1 << b for b, s in zip(occ, side) if not s)
                    kings = sum(1 << b for b, k in zip(occ, king) if k)
                    for fwd in (1, -1):
                        assert new.moves(me, them, kings, fwd) == old.moves(me, them, kings, fwd)
                        assert new.has_move(me, them, kings, fwd) == old.has_move(me, them, kings, fwd)


def test_budgets_refuse_with_the_same_message():
    for rules, kw in [
        (CheckersRules(size=8, rows=3, ply_limit=None), dict(max_states=1000)),
        (CheckersRules(size=6, rows=2, ply_limit=40), dict(max_transitions=5000)),
        (CheckersRules(size=4, ply_limit=60), dict(max_states=2000)),
        (CheckersRules(size=5, ply_limit=30), dict(max_transitions=20000)),
    ]:
        with pytest.raises(VariantTooLarge) as new:
            compile_checkers(rules, **kw)
        with pytest.raises(VariantTooLarge) as old:
            reference_compile(rules, **kw)
        assert str(new.value) == str(old.value)


def test_a_decided_start_compiles_to_the_terminal_states_alone():
    g = Checkers(CheckersRules(size=4))
    lost = Position(black=0, white=g._mask(["b4"]), kings=0, to_move="black", ply=0)
    assert_identical(compile_checkers(g.rules, start=lost), reference_compile(g.rules, start=lost))
