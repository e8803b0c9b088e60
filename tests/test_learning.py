"""The learners from experience (mdpviz.solvers.learning) on the textbook cases, with fixed seeds.

Sutton and Barto (2nd ed.): the 5-state random walk (Example 6.2), the cliff (Example 6.6); the
4x3 grid of AIMA / CS188. No test here depends on timing.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from mdpviz.models.gridworld.rules import GridSettings, compile_gridworld
from mdpviz.core.mdp import TabularMDP
from mdpviz.solvers import kernels
from mdpviz.solvers.learning import LEARNERS, ExperienceLearner, learn, learner, parse_alpha


# ------------------------------------------------------------------------------------------- models
def random_walk() -> TabularMDP:
    """S&B Example 6.2: terminal 0, A..E = 1..5, terminal 6; start C; +1 on the right exit; discount 1."""
    src, act, dst, prob, rew = [], [], [], [], []
    for s in range(1, 6):
        for d in (s - 1, s + 1):
            src.append(s), act.append(0), dst.append(d), prob.append(0.5), rew.append(1.0 if d == 6 else 0.0)
    return TabularMDP.from_transitions(7, 1, src, act, dst, prob, rew, discount=1.0, terminal=[0, 6],
                                       state_labels=["L", "A", "B", "C", "D", "E", "R"])


CLIFF_ROWS, CLIFF_COLS = 4, 12
CLIFF_START = 3 * CLIFF_COLS
CLIFF_GOAL = 3 * CLIFF_COLS + 11


def cliff_walking() -> TabularMDP:
    """S&B Example 6.6 (Gymnasium's CliffWalking): 4x12, start bottom-left, goal bottom-right, the
    bottom row between them a cliff (-100 and back to the start); every step -1; discount 1."""
    moves = ((-1, 0), (0, 1), (1, 0), (0, -1))  # up, right, down, left (Gymnasium's order)
    src, act, dst, prob, rew = [], [], [], [], []
    for s in range(CLIFF_ROWS * CLIFF_COLS):
        if s == CLIFF_GOAL or (s // CLIFF_COLS == 3 and 1 <= s % CLIFF_COLS <= 10):
            continue  # the goal is terminal; cliff cells are never stood on
        r, c = divmod(s, CLIFF_COLS)
        for a, (dr, dc) in enumerate(moves):
            r2, c2 = min(max(r + dr, 0), CLIFF_ROWS - 1), min(max(c + dc, 0), CLIFF_COLS - 1)
            d = r2 * CLIFF_COLS + c2
            cliff = r2 == 3 and 1 <= c2 <= 10
            src.append(s), act.append(a), dst.append(CLIFF_START if cliff else d), prob.append(1.0)
            rew.append(-100.0 if cliff else -1.0)
    # cliff cells: unreachable, given one action that stays (so the model is valid)
    for c in range(1, 11):
        s = 3 * CLIFF_COLS + c
        src.append(s), act.append(0), dst.append(CLIFF_START), prob.append(1.0), rew.append(-100.0)
    return TabularMDP.from_transitions(CLIFF_ROWS * CLIFF_COLS, 4, src, act, dst, prob, rew, discount=1.0,
                                       terminal=[CLIFF_GOAL], action_labels=["up", "right", "down", "left"])


def greedy_path(mdp: TabularMDP, policy: np.ndarray, start: int, cap: int = 200) -> list[int]:
    """The states a deterministic model walks through under ``policy`` (one outcome per action)."""
    path = [start]
    s = start
    while not mdp.terminal[s] and len(path) < cap:
        (s, _, _), = mdp.outcomes(s, int(policy[s]))
        path.append(s)
    return path


def grid(**kw):
    return compile_gridworld(GridSettings(**kw))


# ------------------------------------------------------------------------------------------- textbook cases
@pytest.mark.parametrize("method, options, tol", [
    ("td0", {"alpha": "1/n^0.8"}, 0.05),
    ("td0", {"alpha": 0.01}, 0.07),  # constant alpha: a noise floor of about sqrt(alpha / 2) x 0.5
    ("nstep", {"alpha": "1/n^0.8", "n": 3}, 0.05),
    ("mc", {}, 0.03),  # sample averages (1/N)
])
def test_random_walk_prediction_reaches_true_values(method, options, tol):
    mdp = random_walk()
    last, _ = learn(mdp, method, episodes=4000, start=3, seed=0, batch=1000, **options)
    np.testing.assert_allclose(last.exact.values[1:6], np.arange(1, 6) / 6, atol=1e-9)  # the exact answer itself
    assert last.max_error < tol, (last.values, last.max_error)
    np.testing.assert_allclose(last.values[1:6], np.arange(1, 6) / 6, atol=tol)
    assert last.values[0] == last.values[6] == 0.0
    assert last.q is None and last.policy is None and math.isnan(last.greedy_agreement)


@pytest.mark.parametrize("n", [1, 3, 10])
def test_n_step_td_is_the_books_algorithm_on_the_episodes_it_saw(n):
    """S&B 7.1's box, written out here over the recorded episodes (prediction: the episodes do not
    depend on V, so they can be replayed), gives the learner's V to the last bit."""
    mdp = random_walk()
    last, steps = learn(mdp, "nstep", n=n, alpha=0.05, episodes=300, start=3, seed=0)
    v = np.zeros(7)
    for st in steps:
        S, R, T = st.path, (0.0,) + st.rewards, len(st.path) - 1
        for tau in range(T):
            g = sum(R[i] for i in range(tau + 1, min(tau + n, T) + 1))
            if tau + n < T:
                g += v[S[tau + n]]
            v[S[tau]] += 0.05 * (g - v[S[tau]])
    assert np.array_equal(v, last.values)
    td, _ = learn(mdp, "td0", alpha=0.05, episodes=300, start=3, seed=0, batch=300)
    if n == 1:
        assert np.array_equal(td.values, last.values)


def test_random_walk_td_error_falls_with_experience():
    _, steps = learn(random_walk(), "td0", episodes=2000, alpha=0.05, start=3, seed=3, batch=100)
    assert steps[-1].rms_error < steps[0].rms_error / 2


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cliff_sarsa_keeps_away_q_learning_runs_the_edge(seed):
    mdp = cliff_walking()
    opts = dict(episodes=1000, alpha=0.1, epsilon=0.1, start=CLIFF_START, seed=seed, batch=1000)
    sarsa, _ = learn(mdp, "sarsa", **opts)
    q, _ = learn(mdp, "q", **opts)
    p_sarsa = greedy_path(mdp, sarsa.policy, CLIFF_START)
    p_q = greedy_path(mdp, q.policy, CLIFF_START)
    assert p_sarsa[-1] == CLIFF_GOAL and p_q[-1] == CLIFF_GOAL
    over_cliff = lambda s: 1 <= s % CLIFF_COLS <= 10  # noqa: E731
    # SARSA: no cell next to the cliff (row 2) between start and goal; Q-learning: all of them
    assert all(s // CLIFF_COLS <= 1 for s in p_sarsa if over_cliff(s)), p_sarsa
    assert [s for s in p_q if over_cliff(s)] == [2 * CLIFF_COLS + c for c in range(1, 11)], p_q
    assert len(p_q) - 1 == 13 and len(p_sarsa) - 1 > 13
    # and on-line (exploring), SARSA's safer path earns more per episode (Figure 6.4)
    assert np.mean(sarsa.returns[-500:]) > np.mean(q.returns[-500:])


def test_cliff_through_gymnasium_matches_the_hand_built_one():
    gym_rules = pytest.importorskip("mdpviz.models.gym.rules")
    pytest.importorskip("gymnasium")
    mdp = gym_rules.from_gymnasium(gym_rules.make_env("CliffWalking-v1"), discount=1.0)
    start = gym_rules.start_state(gym_rules.make_env("CliffWalking-v1"))
    assert start == CLIFF_START
    opts = dict(episodes=1000, alpha=0.1, epsilon=0.1, start=start, seed=0, batch=1000)
    q, _ = learn(mdp, "q", **opts)
    sarsa, _ = learn(mdp, "sarsa", **opts)
    p_q = greedy_path(mdp, q.policy, start)
    p_sarsa = greedy_path(mdp, sarsa.policy, start)
    assert mdp.terminal[p_q[-1]] and mdp.terminal[p_sarsa[-1]]
    assert len(p_q) - 1 == 13 < len(p_sarsa) - 1


def test_q_learning_with_one_over_n_approaches_q_star_on_the_4x3_grid():
    w = grid()
    mdp = w.mdp
    live = ~mdp.terminal[mdp.row_state]
    errs = []
    for n in (2000, 50_000):
        last, _ = learn(mdp, "q", episodes=n, alpha="1/n", epsilon=1.0, exploring_starts=True, start=w.start_state,
                        seed=0, batch=n)
        errs.append(float(np.abs(last.q - last.exact.q)[live].max()))
    assert errs[1] < 0.05 and errs[1] < errs[0] / 2, errs
    assert last.greedy_agreement >= 10 / 11  # one near-tie (3,2) is still learning; the rest are optimal


def test_deterministic_grid_alpha_one_random_behaviour_is_q_star_exactly():
    w = grid(noise=0.0)
    mdp = w.mdp
    last, _ = learn(mdp, "q", episodes=3000, alpha=1.0, epsilon=1.0, start=w.start_state, seed=5, batch=3000)
    visited = last.row_updates > 0
    assert visited[~mdp.terminal[mdp.row_state]].all()  # random behaviour tries every pair
    np.testing.assert_allclose(last.q[visited], last.exact.q[visited], rtol=0, atol=1e-12)
    assert last.greedy_agreement == 1.0
    assert last.policy_value == pytest.approx(last.exact.values[w.start_state], abs=1e-12)


@pytest.mark.parametrize("method", ["mc-control", "sarsa", "expected-sarsa", "double-q"])
def test_control_learners_find_the_optimal_policy_of_the_4x3_grid(method):
    w = grid()
    last, _ = learn(w.mdp, method, episodes=20_000, epsilon=0.3, exploring_starts=True, start=w.start_state,
                    seed=2, batch=20_000, alpha=None if method == "mc-control" else "1/n^0.8")
    assert last.greedy_agreement >= 9 / 11, (method, last.greedy_agreement)
    assert last.rms_error < 0.15


# ------------------------------------------------------------------------------------------- signs and players
def _choice(objective: str, mover=None) -> TabularMDP:
    """State 0: action 0 pays 1, action 1 pays 5, both end the episode."""
    return TabularMDP.from_transitions(2, 2, [0, 0], [0, 1], [1, 1], [1.0, 1.0], [1.0, 5.0], discount=1.0,
                                       terminal=[1], objective=objective, mover=mover)


@pytest.mark.parametrize("objective, best, value", [("max", 1, 5.0), ("min", 0, 1.0)])
def test_the_objective_sign_is_respected(objective, best, value):
    for method in ("q", "sarsa", "expected-sarsa", "double-q", "mc-control"):
        last, _ = learn(_choice(objective), method, episodes=300, epsilon=0.2, seed=1, batch=300)
        assert last.policy[0] == best, (objective, method)
        assert last.values[0] == pytest.approx(value, abs=0.05)
        assert last.greedy_agreement == 1.0


def test_two_player_self_play_learns_the_minimax_value():
    # 0 (max) -> a: 1 (min) or b: 2 (min); from 1 the minimiser picks +3 or +7, from 2 +1 or +9.
    # minimax: V(1) = 3, V(2) = 1, V(0) = 3 via a. A maximiser that ignored the mover would go b for 9.
    src = [0, 0, 1, 1, 2, 2]
    act = [0, 1, 0, 1, 0, 1]
    dst = [1, 2, 3, 3, 3, 3]
    rew = [0.0, 0.0, 3.0, 7.0, 1.0, 9.0]
    mdp = TabularMDP.from_transitions(4, 2, src, act, dst, [1.0] * 6, rew, discount=1.0, terminal=[3],
                                      mover=[1, -1, -1, 1])
    for method in ("q", "expected-sarsa", "double-q"):
        last, _ = learn(mdp, method, episodes=2000, epsilon=0.5, exploring_starts=True, seed=0, batch=2000)
        assert list(last.policy[:3]) == [0, 0, 0], method
        assert last.greedy_agreement == 1.0
        if method == "expected-sarsa":  # on-policy: Q(0, .) values epsilon-greedy play at 1 and 2 (epsilon 0.5)
            # Q(0, a) = 0.75 x 3 + 0.25 x 7 = 4, Q(0, b) = 0.75 x 1 + 0.25 x 9 = 3; V(0) = max = 4
            np.testing.assert_allclose(last.values[:3], [4.0, 3.0, 1.0], atol=0.05)
        else:
            np.testing.assert_allclose(last.values[:3], [3.0, 3.0, 1.0], atol=0.05)


# ------------------------------------------------------------------------------------------- determinism
def test_same_seed_same_numbers_whatever_the_batch():
    w = grid()
    a, sa = learn(w.mdp, "sarsa", episodes=300, start=w.start_state, seed=11, batch=1)
    b, sb = learn(w.mdp, "sarsa", episodes=300, start=w.start_state, seed=11, batch=37)
    c, _ = learn(w.mdp, "sarsa", episodes=300, start=w.start_state, seed=12, batch=300)
    assert np.array_equal(a.q, b.q) and np.array_equal(a.visits, b.visits) and a.updates == b.updates
    assert [x for s in sa for x in s.returns] == [x for s in sb for x in s.returns]
    assert len(sa) == 300 and len(sb) == 9 and a.path == b.path
    assert not np.array_equal(a.q, c.q)


@pytest.mark.skipif(not kernels.available(), reason="numba is not installed")
@pytest.mark.parametrize("method", list(LEARNERS))
def test_compiled_loop_gives_the_python_reference_numbers(method):
    w = grid(noise=0.2, living_reward=-0.04)
    opts = dict(episodes=200, start=w.start_state, seed=4, batch=50, n=3, epsilon=0.2, epsilon_decay=0.99,
                epsilon_min=0.05, policy="random", initial=0.5)
    fast, _ = learn(w.mdp, method, compiled=True, **opts)
    ref, _ = learn(w.mdp, method, compiled=False, **opts)
    assert fast.updates == ref.updates and fast.path == ref.path and fast.returns == ref.returns
    assert np.array_equal(fast.values, ref.values)
    if fast.q is not None:
        assert np.array_equal(fast.q, ref.q) and np.array_equal(fast.policy, ref.policy)


def test_snapshots_carry_the_episode_and_its_return():
    w = grid(living_reward=-0.1)
    mdp = w.mdp
    steps = list(learner(mdp, "q", episodes=30, start=w.start_state, seed=0, eval_every=10))
    assert [s.episode for s in steps] == list(range(1, 31)) and steps[-1].done
    for s in steps:
        assert s.path[0] == w.start_state and len(s.path) == len(s.actions) + 1 == len(s.rewards) + 1
        g = sum(r * mdp.discount ** k for k, r in enumerate(s.rewards))
        assert s.ret == pytest.approx(g)
        assert mdp.terminal[s.path[-1]] or len(s.actions) == 1000
        assert not s.values.flags.writeable and not s.q.flags.writeable
    assert [s.episode for s in steps if s.policy_value is not None] == [10, 20, 30]
    assert steps[-1].visits.sum() >= sum(len(s.path) - 1 for s in steps)


def test_step_cap_ends_an_endless_episode():
    # one state looping on itself with discount 1: only the cap ends an episode
    mdp = TabularMDP.from_transitions(1, 1, [0], [0], [0], [1.0], [-1.0], discount=0.5)
    last, _ = learn(mdp, "q", episodes=3, max_steps=25, alpha=0.5, seed=0, batch=3)
    assert last.lengths == (25, 25, 25) and last.updates == 75
    assert last.values[0] == pytest.approx(-2.0, abs=0.01)  # V* = -1 / (1 - 0.5)


# ------------------------------------------------------------------------------------------- experience API
def test_experience_api_follows_the_textbook_update():
    # 0 -> 1 -> 2 (terminal); two actions everywhere live
    src, act, dst = [0, 0, 1, 1], [0, 1, 0, 1], [1, 1, 2, 2]
    mdp = TabularMDP.from_transitions(3, 2, src, act, dst, [1.0] * 4, [0.0] * 4, discount=0.9, terminal=[2],
                                      state_labels=["s0", "s1", "end"], action_labels=["L", "R"])
    ql = ExperienceLearner(mdp, "q", alpha=0.1)
    ql.Q[mdp.row_of(0, 0)] = 0.42
    ql.Q[mdp.row_of(1, 0)] = 0.61
    ql.Q[mdp.row_of(1, 1)] = 0.20
    u = ql.update(0, 0, -0.04, 1)
    assert u.new == pytest.approx(0.42 + 0.1 * (-0.04 + 0.9 * 0.61 - 0.42)) == ql.q(0, 0)
    assert u.text(mdp.state_labels.__getitem__, mdp.action_labels.__getitem__) == \
        "Q(s0,L) <- 0.42 + 0.1 x (-0.04 + 0.9 x 0.61 - 0.42) = 0.4289"  # (the issue's example says 0.4308: its arithmetic slipped)
    # terminal next state: no bootstrap
    ql.Q[mdp.row_of(1, 1)] = 0.5
    u = ql.update(1, 1, 1.0, 2)
    assert u.next_value is None and u.new == pytest.approx(0.5 + 0.1 * (1.0 - 0.5))
    # SARSA bootstraps on the next action taken, not the best one
    sa = ExperienceLearner(mdp, "sarsa", alpha=0.5)
    sa.Q[mdp.row_of(1, 0)], sa.Q[mdp.row_of(1, 1)] = 1.0, 3.0
    assert sa.update(0, 1, 0.0, 1, a_next=0).new == pytest.approx(0.5 * 0.9 * 1.0)
    with pytest.raises(ValueError, match="a_next"):
        sa.update(0, 1, 0.0, 1)
    # Expected SARSA: epsilon 0.2 over two actions -> 0.1 x 1 + 0.9 x 3
    es = ExperienceLearner(mdp, "expected-sarsa", alpha=1.0, epsilon=0.2)
    es.Q[mdp.row_of(1, 0)], es.Q[mdp.row_of(1, 1)] = 1.0, 3.0
    assert es.update(0, 0, 0.0, 1).new == pytest.approx(0.9 * (0.1 * 1.0 + 0.9 * 3.0))
    # 1/N step sizes: the sample average of the targets
    avg = ExperienceLearner(mdp, "q", alpha="1/n")
    for r in (1.0, 2.0, 6.0):
        avg.update(1, 0, r, 2)
    assert avg.q(1, 0) == pytest.approx(3.0)
    # TD(0) on V
    td = ExperienceLearner(mdp, "td0", alpha=0.5)
    td.V[1] = 2.0
    assert td.update(0, 0, 1.0, 1).new == pytest.approx(0.5 * (1.0 + 0.9 * 2.0))
    assert td.values[0] == pytest.approx(1.4)


def test_experience_api_takes_the_min_at_a_minimiser_and_double_q_uses_the_other_table():
    mdp = TabularMDP.from_transitions(3, 2, [0, 0, 1, 1], [0, 1, 0, 1], [1, 1, 2, 2], [1.0] * 4, [0.0] * 4,
                                      discount=1.0, terminal=[2], mover=[1, -1, 1])
    ql = ExperienceLearner(mdp, "q", alpha=1.0)
    ql.Q[mdp.row_of(1, 0)], ql.Q[mdp.row_of(1, 1)] = 4.0, -2.0
    assert ql.update(0, 0, 0.0, 1).new == -2.0  # the minimiser moves at state 1
    dq = ExperienceLearner(mdp, "double-q", alpha=1.0, seed=0)
    dq.Q[mdp.row_of(1, 0)], dq.Q[mdp.row_of(1, 1)] = 4.0, -2.0    # table 1 picks action 1 (the min) ...
    dq.Q2[mdp.row_of(1, 0)], dq.Q2[mdp.row_of(1, 1)] = 10.0, 7.0  # ... table 2 picks action 1 too
    u = dq.update(0, 0, 0.0, 1)
    # the table updated takes the other table's value of its own greedy action
    assert u.new == (7.0 if u.table == "Q1" else -2.0)


def test_bad_settings_say_what_is_wrong():
    mdp = random_walk()
    with pytest.raises(ValueError, match="unknown learner"):
        learner(mdp, "tdlambda")
    with pytest.raises(ValueError, match="terminal"):
        learner(mdp, "td0", start=0)
    with pytest.raises(ValueError, match="episodes"):
        learner(mdp, "td0", start=3, episodes=0)
    with pytest.raises(ValueError, match="epsilon"):
        learner(mdp, "q", start=3, epsilon=1.5)
    with pytest.raises(ValueError, match="step size"):
        parse_alpha("fast")
    assert parse_alpha("1/n") == (1.0, 1.0) and parse_alpha("1/n^0.8") == (1.0, 0.8) and parse_alpha("0.3") == (0.3, 0)


# ------------------------------------------------------------------------------------------- lesson
def test_the_learning_lesson_explains_each_update_and_the_cliff_with_the_models_numbers():
    from mdpviz.models.kit.teaching.learning_lesson import learning_lesson
    from mdpviz.solvers.learning import LearningSettings

    w = grid(living_reward=-0.04)
    mdp = w.mdp
    lesson = learning_lesson(mdp, LearningSettings(method="q", alpha=0.1), start=w.start_state)
    text = lesson.text()
    for name in ("TD(0)", "n-step TD", "Monte Carlo", "SARSA", "Expected SARSA", "Q-learning", "Double Q-learning"):
        assert name in text, name
    assert "cliff" in text and "on-policy" in text and "off-policy" in text
    assert "max" in lesson.bellman and "0.9" in lesson.bellman  # what the learner should reach
    assert {p.name for p in lesson.parameters} >= {"alpha", "epsilon", "max_steps"}
    # the worked update: Q((3,1),north) from 0 toward -0.04 + 0.9 x max Q((2,1), .) = -0.04 + 0 -> -0.004
    assert "Q((3,1),north) &lt;- 0 + 0.1 x (-0.04 + 0.9 x 0 - 0) = -0.004" in lesson.example
    q = np.zeros(mdp.n_rows)
    q[mdp.row_of(4, 0)] = 0.61  # state (2,1): its best Q bootstraps the target
    lesson = learning_lesson(mdp, LearningSettings(method="q", alpha=0.1), start=w.start_state, q=q)
    assert "(-0.04 + 0.9 x 0.61 - 0) = 0.0509" in lesson.example
    sarsa = learning_lesson(mdp, LearningSettings(method="sarsa"), start=w.start_state)
    assert "SARSA's update" in sarsa.example and "then takes north" in sarsa.example
    assert learning_lesson(None).gamma is None  # no model yet: the prose alone


def test_outcomes_are_drawn_with_their_probabilities_even_late_in_a_large_model():
    from mdpviz.solvers.learning import model_arrays

    # 20,000 rows before one whose outcomes have probabilities 1e-13 and 1 - 1e-13: its cumulative
    # probabilities are summed within the row, not carried over from the rows before
    n = 20_001
    src = np.r_[np.arange(n - 1), n - 1, n - 1]
    dst = np.r_[np.arange(1, n), 0, 1]
    prob = np.r_[np.full(n - 1, 1.0), 1e-13, 1.0 - 1e-13]
    mdp = TabularMDP.from_transitions(n + 1, 1, src, np.zeros(src.size, int), dst, prob, np.zeros(src.size),
                                      discount=0.9, terminal=[n])
    cum = model_arrays(mdp)["cum"]
    lo, hi = int(mdp.row_ptr[n - 1]), int(mdp.row_ptr[n])
    assert cum[lo] == 1e-13 and cum[hi - 1] == 1.0
    assert np.all(cum[: lo] == 1.0)


def test_runs_are_bounded_before_anything_is_allocated():
    with pytest.raises(ValueError, match="max_steps must be at most"):
        learner(random_walk(), "td0", start=3, max_steps=10**9)
    with pytest.raises(ValueError, match="episodes must be at most"):
        learner(random_walk(), "td0", start=3, episodes=10**9)


def test_a_snapshot_gives_each_board_view_and_the_states_that_differ_from_the_optimum():
    from mdpviz.solvers.learning import BOARD_MODES

    w = grid()
    mdp = w.mdp
    last, _ = learn(mdp, "q", episodes=30, start=w.start_state, seed=0, batch=30)
    assert set(BOARD_MODES) == {"learned", "exact", "error", "visits"}
    np.testing.assert_array_equal(last.shown("learned"), last.values)
    np.testing.assert_array_equal(last.shown("exact"), last.exact.values)
    err = last.shown("error")
    assert np.abs(err[~mdp.terminal]).max() == pytest.approx(last.max_error) and np.all(err[mdp.terminal] == 0)
    np.testing.assert_array_equal(last.shown("visits"), last.visits)
    differs = last.differs(mdp)
    assert not differs[mdp.terminal].any()
    assert 1 - differs[~mdp.terminal].mean() == pytest.approx(last.greedy_agreement)
    assert differs.any()  # 30 episodes are not enough everywhere
    # the vectorised lookup of each state's row finds what row_of finds, state by state
    live = np.flatnonzero(last.policy >= 0)
    one_by_one = np.zeros(mdp.n_states, dtype=bool)
    one_by_one[live] = [not last.exact.optimal[mdp.row_of(int(s), int(last.policy[s]))] for s in live]
    np.testing.assert_array_equal(differs, one_by_one)
    with pytest.raises(ValueError, match="board mode"):
        last.shown("colour")
    td, _ = learn(mdp, "td0", episodes=5, start=w.start_state, batch=5)
    assert not td.differs(mdp).any()


def test_the_learner_runs_as_a_background_job_with_progress_and_cancel():
    from mdpviz.core.jobs import Job, run_here
    from mdpviz.solvers.learning import learning_job

    w = grid()
    progress, partial = [], []
    job = Job(make=lambda: learning_job(w.mdp, "sarsa", episodes=50, batch=10, start=w.start_state, seed=3),
              on_progress=lambda d, t, text: progress.append((d, t, text)), on_partial=partial.append)
    last = run_here(job)
    assert [d for d, _, _ in progress] == [10, 20, 30, 40, 50] and all(t == 50 for _, t, _ in progress)
    assert "SARSA: episode 50 of 50" in progress[-1][2]
    assert [s.episode for s in partial] == [10, 20, 30, 40, 50] and last is partial[-1]
    direct, _ = learn(w.mdp, "sarsa", episodes=50, batch=10, start=w.start_state, seed=3)
    assert np.array_equal(last.q, direct.q)  # the job is the learner, not a copy of it
    seen = []
    cancelled = run_here(Job(make=lambda: learning_job(w.mdp, "q", episodes=1000, start=w.start_state),
                             on_partial=seen.append), cancelled=lambda: len(seen) >= 3)
    assert cancelled is None and len(seen) == 3
    with pytest.raises(ValueError, match="unknown learner"):
        learning_job(w.mdp, "tdlambda")
