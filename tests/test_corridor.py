"""The short corridor with switched actions (Sutton and Barto, Example 13.1) as a game: its model, its exact
answers (V*(S) = -3 with tabular features; J(p) = (2p - 4) / (p (1 - p)) for the policy that goes right with
probability p in every state, best at p = 2 - sqrt 2 with J = -(6 + 4 sqrt 2)), the book's features and starting
weights through its ModelHooks, and its board."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from mdpviz.models.kit.game import registry
from mdpviz.solvers import solve

LEFT, RIGHT = 0, 1


@pytest.fixture(scope="module")
def corridor():
    spec = registry.get("corridor")
    settings = spec.default_settings()
    return spec, settings, spec.compile(settings)


def moves_of(mdp) -> dict[tuple[int, int], list[tuple[int, float, float]]]:
    """(state, action) -> [(next state, probability, reward)], read from the model's CSR arrays."""
    out = {}
    for r in range(mdp.n_rows):
        lo, hi = int(mdp.row_ptr[r]), int(mdp.row_ptr[r + 1])
        out[(int(mdp.row_state[r]), int(mdp.row_action[r]))] = [
            (int(mdp.dst[t]), float(mdp.prob[t]), float(mdp.reward[t])) for t in range(lo, hi)]
    return out


def value_of_rows(mdp, row_probs: np.ndarray) -> np.ndarray:
    """v_pi of the policy with these row probabilities: (I - P_pi) v = r_pi over the non-terminal states, dense."""
    n = mdp.n_states
    P, r = np.zeros((n, n)), np.zeros(n)
    for row in range(mdp.n_rows):
        s = int(mdp.row_state[row])
        for t in range(int(mdp.row_ptr[row]), int(mdp.row_ptr[row + 1])):
            P[s, int(mdp.dst[t])] += row_probs[row] * float(mdp.prob[t])
            r[s] += row_probs[row] * float(mdp.prob[t]) * float(mdp.reward[t])
    live = np.flatnonzero(~np.asarray(mdp.terminal))
    v = np.zeros(n)
    v[live] = np.linalg.solve(np.eye(live.size) - mdp.discount * P[np.ix_(live, live)], r[live])
    return v


def test_the_model_is_example_13_1(corridor):
    spec, settings, mdp = corridor
    assert (mdp.n_states, mdp.n_actions, mdp.n_rows, mdp.discount) == (4, 2, 6, 1.0)
    assert list(mdp.terminal) == [False, False, False, True]
    assert tuple(mdp.action_labels) == ("left", "right")
    assert moves_of(mdp) == {
        (0, LEFT): [(0, 1.0, -1.0)], (0, RIGHT): [(1, 1.0, -1.0)],   # S: left bumps into the wall
        (1, LEFT): [(2, 1.0, -1.0)], (1, RIGHT): [(0, 1.0, -1.0)],   # the reversed state
        (2, LEFT): [(1, 1.0, -1.0)], (2, RIGHT): [(3, 1.0, -1.0)],   # right reaches G
    }
    assert registry.canonical("short-corridor") == registry.canonical("example-13.1") == "corridor"
    assert spec.title == registry.TITLES["corridor"] == "Short corridor (Example 13.1)"


@pytest.mark.parametrize("method", ["vi", "pi", "lp"])
def test_the_tabular_answer_is_right_left_right_with_v_star_minus_3(corridor, method):
    _, _, mdp = corridor
    sol = solve(mdp, method)
    assert sol.values[0] == pytest.approx(-3.0, abs=1e-8)
    assert np.allclose(sol.values, [-3.0, -2.0, -1.0, 0.0], atol=1e-8)
    assert [int(a) for a in sol.policy[:3]] == [RIGHT, LEFT, RIGHT]


@pytest.mark.parametrize("p", [0.05, 0.2, 0.5, 2 - math.sqrt(2), 0.8, 0.95])
def test_the_value_of_going_right_with_probability_p_is_the_books_curve(corridor, p):
    from mdpviz.models.corridor import rules as cr

    _, settings, mdp = corridor
    rows = np.array([p if int(a) == RIGHT else 1.0 - p for a in mdp.row_action])
    want = (2 * p - 4) / (p * (1 - p))
    assert value_of_rows(mdp, rows)[0] == pytest.approx(want, rel=1e-12)
    assert cr.value_of_right_probability(settings, p) == pytest.approx(want, rel=1e-12)
    assert np.array_equal(cr.right_probability_rows(mdp, p), rows)


def test_the_best_stochastic_policy_beats_both_epsilon_greedy_ones(corridor):
    from mdpviz.models.corridor import rules as cr

    _, settings, _ = corridor
    p, j = cr.best_right_probability(settings)
    assert p == pytest.approx(2 - math.sqrt(2), abs=1e-6)
    assert j == pytest.approx(-(6 + 4 * math.sqrt(2)), abs=1e-9)
    assert cr.value_of_right_probability(settings, 0.05) == pytest.approx(-3.9 / 0.0475)   # about -82.1
    assert cr.value_of_right_probability(settings, 0.95) == pytest.approx(-2.1 / 0.0475)   # about -44.2
    assert cr.value_of_right_probability(settings, 0.0) == -math.inf   # always left stays at S


def test_the_hooks_give_the_books_features_and_start(corridor):
    spec, settings, mdp = corridor
    hooks = spec.model
    assert hooks.default_features == "game"
    X = np.asarray(hooks.action_features(settings, mdp))
    assert X.shape == (mdp.n_rows, 2) and X.dtype == np.float64
    for row in range(mdp.n_rows):
        want = (1.0, 0.0) if int(mdp.row_action[row]) == RIGHT else (0.0, 1.0)
        assert tuple(X[row]) == want, row
    theta = np.asarray(hooks.initial_weights(settings, mdp), dtype=np.float64)
    assert theta.shape == (2,)
    h = X @ theta                                       # the preferences, eq. 13.3
    for s in range(3):
        rows = np.flatnonzero(np.asarray(mdp.row_state) == s)
        pi = np.exp(h[rows] - h[rows].max())
        pi /= pi.sum()                                  # the softmax, eq. 13.2
        right = rows[np.asarray(mdp.row_action)[rows] == RIGHT][0]
        assert pi[list(rows).index(right)] == pytest.approx(0.05, abs=1e-12), s
    # the state features: every state alike, one weight (the book's baseline v_hat(s, w) = w, figure 13.2)
    from mdpviz.solvers.features import action_features, feature_matrix

    Xs = feature_matrix("game", mdp, game_features=hooks.features(settings, mdp))
    assert Xs.shape == (4, 1) and list(Xs[:, 0]) == [1.0, 1.0, 1.0, 0.0]
    stacked = action_features(Xs, mdp)   # the same family of policies as the book's, its columns (left, right)
    assert np.array_equal(stacked, X[:, ::-1])


def test_a_state_value_learner_on_the_games_features_does_not_take_the_policys_weights(corridor):
    from mdpviz.models.kit.teaching.approx_inputs import approx_inputs
    from mdpviz.solvers.approximation import approx_learner

    spec, settings, mdp = corridor
    opts = approx_inputs(spec, settings, mdp, "gradient-mc", {"episodes": 20, "seed": 0, "start": 0})
    assert opts["features"] == "game" and "initial_weights" not in opts
    last = None
    gen = approx_learner(mdp, "gradient-mc", **opts)
    try:
        while True:
            last = next(gen)
    except StopIteration as stop:
        last = stop.value if stop.value is not None else last
    assert last is not None and last.n_features == 1


@pytest.mark.parametrize("changes, field_name", [
    ({"n_states": 0}, "n_states"), ({"n_states": 51}, "n_states"), ({"reversed": 3}, "reversed"),
    ({"reversed": -1}, "reversed"), ({"discount": 1.5}, "discount"), ({"n_states": True}, "n_states"),
])
def test_bad_settings_are_refused_naming_their_field(corridor, changes, field_name):
    from mdpviz.models.kit.game.codec import FieldError

    _, settings, _ = corridor
    with pytest.raises(FieldError) as err:
        dataclasses.replace(settings, **changes).validate()
    assert err.value.field == field_name and str(err.value).count("\n") == 0


def test_a_longer_corridor_reverses_the_state_asked_for():
    from mdpviz.models.corridor import rules as cr

    settings = cr.CorridorSettings(n_states=5, reversed=3)
    mdp = cr.compile_corridor(settings)
    moves = moves_of(mdp)
    assert moves[(3, RIGHT)][0][0] == 2 and moves[(3, LEFT)][0][0] == 4
    assert moves[(1, RIGHT)][0][0] == 2 and moves[(4, RIGHT)][0][0] == 5 and mdp.terminal[5]
    assert solve(mdp, "vi").values[0] == pytest.approx(-5.0)   # right, right, right, left, right
    p, j = cr.best_right_probability(settings)
    grid = np.linspace(0.01, 0.99, 99)
    assert j >= max(cr.value_of_right_probability(settings, q) for q in grid) - 1e-9
    assert 0 < p < 1


def test_the_board_draws_the_reversed_states_right_arrow_back_to_the_left(qtbot):
    from mdpviz.widgets.games.corridor import CorridorGame, corridor_layout
    from mdpviz.models.corridor import rules as cr

    layout = corridor_layout(cr.CorridorSettings())
    assert [c.label for c in layout.cells] == ["S", "2", "3", "G"]
    xs = [c.x for c in layout.cells]
    assert xs == sorted(xs) and len({c.y for c in layout.cells}) == 1
    right = {a.src: a.dst for a in layout.arrows if not a.dashed}
    left = {a.src: a.dst for a in layout.arrows if a.dashed}
    assert right == {0: 1, 1: 0, 2: 3} and left == {0: 0, 1: 2, 2: 1}
    game = CorridorGame()
    decor = game.decor()
    assert decor[1].tag and decor[1].color and "reversed" in decor[1].name and decor[3].goal
