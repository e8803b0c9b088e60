"""The policy diff (mdpviz.models.kit.pictures.policy_diff), pure: against two separate headless solves and a
brute-force reading of each state's optimal actions, state by state."""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from mdpviz.models.gridworld.rules import BUILTIN_MAPS, GridMap, GridSettings, with_map
from mdpviz.models.kit.pictures.colors import DIVERGING
from mdpviz.models.kit.game.game_model import build_game
from mdpviz.models.kit.pictures.policy_diff import align_states, diff_scale, policy_diff
from mdpviz.models.snakes.rules import SnakesSettings
from mdpviz.solvers import solve
from mdpviz.solvers.sweep import TIE_TOL


def brute_optimal(mdp, values) -> dict[str, frozenset[int]]:
    """Each state's label -> its optimal actions, read off one backup at a time (the tie rule written out)."""
    out = {}
    labels = mdp.state_labels or [str(s) for s in range(mdp.n_states)]
    for s in range(mdp.n_states):
        if mdp.terminal[s]:
            out[labels[s]] = frozenset()
            continue
        qs = {int(a): sum(p * (r + mdp.discount * values[d]) for d, p, r in mdp.outcomes(s, int(a)))
              for a in mdp.actions_of(s)}
        best = max(qs.values()) if mdp.sense[s] > 0 else min(qs.values())
        out[labels[s]] = frozenset(a for a, q in qs.items()
                                   if mdp.sense[s] * (q - best) >= -TIE_TOL * (1 + abs(best)))
    return out


def check_against_two_solves(before, after, method="pi"):
    """The diff of two models equals what two separate solves say, state by state (by label)."""
    vb = solve(before.mdp, method).values
    va = solve(after.mdp, method).values
    d = policy_diff(before.mdp, vb, after.mdp, va, start=after.start_state())
    ob, oa = brute_optimal(before.mdp, vb), brute_optimal(after.mdp, va)
    labels_a = after.mdp.state_labels or [str(s) for s in range(after.mdp.n_states)]
    labels_b = list(before.mdp.state_labels or [str(s) for s in range(before.mdp.n_states)])
    for s, lab in enumerate(labels_a):
        if lab not in ob:
            assert not d.changed[s] and math.isnan(d.dv[s]), lab
            continue
        assert d.changed[s] == (ob[lab] != oa[lab]), lab
        assert d.dv[s] == pytest.approx(va[s] - vb[labels_b.index(lab)], abs=0), lab
    return d


def test_discount_grid_living_reward_changes_the_route():
    base = build_game("gridworld", with_map(GridSettings(), BUILTIN_MAPS["discount"]))
    after = build_game("gridworld", replace(base.settings, living_reward=-2.0))
    d = check_against_two_solves(base, after)
    assert d.n_changed > 0  # a costly living reward sends the agent to the close exit: the policy re-routes
    assert d.n_new == 0 and d.gone == 0
    s = d.start
    assert "changed action" in d.sentence() and "V(start)" in d.sentence()
    assert f"{d.v_before[s]:.3g} \u2192 {d.v_after[s]:.3g}" in d.sentence()


def test_bridge_noise_edit():
    base = build_game("gridworld", with_map(GridSettings(noise=0.0), BUILTIN_MAPS["bridge"]))
    after = build_game("gridworld", replace(base.settings, noise=0.2))
    d = check_against_two_solves(base, after)
    assert d.n_changed > 0  # with noise the bridge does not pay: the agent stays at the near exit
    assert np.all(d.dv[np.isfinite(d.dv)] <= 1e-12)  # noise never helps on the bridge


def test_snakes_trap_added_and_undo_gives_the_reverse_diff():
    base = build_game("snakes", SnakesSettings())
    lay = list(base.settings.layout)
    lay[7] = 1  # square 8 sends the player back to square 1
    after = build_game("snakes", replace(base.settings, layout=tuple(lay)))
    d = check_against_two_solves(base, after, method="vi")
    assert d.n_changed > 0
    back = check_against_two_solves(after, base, method="vi")
    assert np.array_equal(back.changed, d.changed)  # the same states mark the way back
    assert np.allclose(back.dv, -d.dv)


def test_resized_grid_new_states_not_compared():
    small = build_game("gridworld", GridSettings())
    rows = [list(r) + ["."] for r in small.settings.grid.cells]  # one more column of open cells
    bigger = GridMap(tuple(tuple(r) for r in rows), small.settings.grid.start, "wider")
    big = build_game("gridworld", with_map(small.settings, bigger))
    d = check_against_two_solves(small, big)
    assert d.n_new == small.settings.grid.rows  # the new column
    assert "new states not compared" in d.sentence()
    assert not np.any(d.changed[~d.compared])


def test_align_by_index_or_nothing():
    a = build_game("snakes").mdp
    assert np.array_equal(align_states(a, a), np.arange(a.n_states))
    g = build_game("gambler").mdp
    from mdpviz.models.gambler.rules import GamblerSettings  # noqa: F401 (the game's own settings type)
    g2 = build_game("gambler", replace(build_game("gambler").settings, goal=50)).mdp
    where = align_states(g, g2)  # labels "capital k": the capitals both goals have are compared
    assert np.all(where[:51] == np.arange(51))


def test_nothing_compared_is_said():
    a = build_game("snakes").mdp
    b = build_game("gambler").mdp
    d = policy_diff(a, solve(a, "vi").values, b, solve(b, "pi").values)
    assert d.n_changed == 0 and not np.any(d.compared) and "nothing compared" in d.sentence()


def test_diff_scale_is_diverging_and_centred():
    base = build_game("gridworld", with_map(GridSettings(), BUILTIN_MAPS["discount"]))
    after = build_game("gridworld", replace(base.settings, living_reward=-2.0))
    d = policy_diff(base.mdp, solve(base.mdp, "pi").values, after.mdp, solve(after.mdp, "pi").values)
    sc = diff_scale(d)
    assert sc.kind == DIVERGING and sc.lo == -sc.hi == -d.max_abs_dv() and sc.normalise(np.array([0.0]))[0] == 0.5


def test_shapes_checked():
    a = build_game("snakes").mdp
    with pytest.raises(ValueError, match="do not fit"):
        policy_diff(a, np.zeros(3), a, np.zeros(a.n_states))
