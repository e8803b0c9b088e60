"""Tier 1: the core MDP representation and the solvers on hand-solvable and random MDPs."""
from __future__ import annotations

import numpy as np
import pytest

from mdpviz.commands.bench import random_mdp_arrays
from mdpviz.core.mdp import TabularMDP
from mdpviz.core.simulate import mean_ci, policy_matrix, proportion_ci, simulate
from mdpviz.solvers import (
    ImproperPolicyError,
    evaluate_policy,
    evaluate_stochastic_policy,
    hitting_probabilities,
    policy_iteration,
    row_weights_deterministic,
    run,
    solve,
    solver,
    value_iteration,
)
from mdpviz.solvers.sweep import policy_to_rows

ALL = ("vi", "gs", "pi", "lp")


def two_state_chain(gamma: float = 0.5) -> TabularMDP:
    # s0: a0 -> s1 (r=1); a1 -> s0 (r=0.4).  s1: a0 -> s1 (r=1).
    # V1 = 1/(1-g) = 2; V0 = max(1 + g*2, 0.4 + g*V0) = max(2, 0.8) = 2, pi0 = 0.
    return TabularMDP.from_transitions(2, 2, [0, 0, 1], [0, 1, 0], [1, 0, 1], [1, 1, 1], [1, 0.4, 1], discount=gamma)


def absorbing_goal(p_gamble: float = 0.6) -> TabularMDP:
    # Cost minimisation. s0: walk -> s1 (cost 1); gamble -> goal w.p. p, stay w.p. 1-p (cost 1).
    # s1: walk -> goal (cost 1). V1 = 1; V0 = min(1 + V1, 1/p).
    return TabularMDP.from_transitions(
        3, 2,
        src=[0, 0, 0, 1], action=[0, 1, 1, 0], dst=[1, 2, 0, 2],
        prob=[1, p_gamble, 1 - p_gamble, 1], reward=[1, 1, 1, 1],
        discount=1.0, terminal=[2], objective="min",
    )


def minimax_tree() -> TabularMDP:
    # s0 (max): L -> s1, R -> s2. s1 (min): -> T with reward 3 or 5. s2 (min): 2 or 9. Value 3.
    return TabularMDP.from_transitions(
        4, 2,
        src=[0, 0, 1, 1, 2, 2], action=[0, 1, 0, 1, 0, 1], dst=[1, 2, 3, 3, 3, 3],
        prob=[1] * 6, reward=[0, 0, 3, 5, 2, 9],
        discount=1.0, terminal=[3], mover=[1, -1, -1, 1],
    )


@pytest.mark.parametrize("method", ALL)
def test_two_state_chain(method):
    sol = solve(two_state_chain(), method, **({"tol": 1e-13} if method in ("vi", "gs") else {}))
    assert sol.converged
    np.testing.assert_allclose(sol.values, [2.0, 2.0], atol=1e-9)
    assert sol.policy.tolist() == [0, 0]


@pytest.mark.parametrize("method", ALL)
def test_absorbing_goal_cost(method):
    sol = solve(absorbing_goal(0.6), method)
    np.testing.assert_allclose(sol.values, [1 / 0.6, 1.0, 0.0], atol=1e-8)
    assert sol.policy.tolist() == [1, 0, -1]


@pytest.mark.parametrize("method", ALL)
def test_exact_tie_goes_to_lowest_action(method):
    # p = 0.5: walking and gambling both cost 2 turns; the lowest action (walk) wins the tie.
    sol = solve(absorbing_goal(0.5), method)
    np.testing.assert_allclose(sol.values[0], 2.0, atol=1e-8)
    assert sol.policy[0] == 0


@pytest.mark.parametrize("method", ["vi", "gs", "pi"])
def test_minimax_value(method):
    sol = solve(minimax_tree(), method)
    assert sol.values[0] == pytest.approx(3.0)
    assert sol.values.tolist()[:3] == [3.0, 3.0, 2.0]
    assert sol.policy.tolist() == [0, 0, 0, -1]


def test_lp_refuses_two_player_games():
    with pytest.raises(ValueError, match="two players"):
        solve(minimax_tree(), "lp")


def test_unknown_method():
    with pytest.raises(ValueError, match="unknown method 'foo'"):
        solve(two_state_chain(), "foo")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(prob=[0.5, 1, 1]), r"state 0, action 0: probabilities sum to 0\.5"),
        (dict(prob=[-0.1, 1, 1]), r"state 0, action 0: probability -0\.1"),
        (dict(dst=[1, 0, 7]), r"state 1, action 0\): dst index 7 is out of range"),
        (dict(reward=[1, np.nan, 1]), r"state 0, action 1: reward nan is not finite"),
        (dict(discount=1.5), r"discount must be in \[0, 1\]"),
        (dict(action=[0, 1, 5]), r"action index 5 is out of range 0\.\.1"),
    ],
)
def test_validation_names_state_and_action(kwargs, message):
    base = dict(src=[0, 0, 1], action=[0, 1, 0], dst=[1, 0, 1], prob=[1, 1, 1], reward=[1, 0.4, 1], discount=0.5)
    base.update(kwargs)
    disc = base.pop("discount")
    with pytest.raises(ValueError, match=message):
        TabularMDP.from_transitions(2, 2, **base, discount=disc)


def test_non_terminal_state_without_action_is_refused():
    with pytest.raises(ValueError, match="state 1 has no action and is not terminal"):
        TabularMDP.from_transitions(2, 1, [0], [0], [1], [1.0], [0.0], discount=0.9)


def test_improper_policy_is_an_error_not_a_hang():
    # discount 1: state 0 can loop forever (action 0) or go to the goal (action 1).
    mdp = TabularMDP.from_transitions(2, 2, [0, 0], [0, 1], [0, 1], [1, 1], [0, 1], discount=1.0, terminal=[1])
    with pytest.raises(ImproperPolicyError, match=r"from state\(s\) 0 the policy never reaches a terminal state"):
        evaluate_policy(mdp, np.array([0, -1]))
    assert evaluate_policy(mdp, np.array([1, -1])).tolist() == [1.0, 0.0]
    # policy iteration starts from a proper policy instead of the improper lowest actions
    assert solve(mdp, "pi").values.tolist() == [1.0, 0.0]


def test_continuing_discount_one_policy_evaluation_reports_problem():
    mdp = TabularMDP.from_transitions(1, 1, [0], [0], [0], [1.0], [1.0], discount=1.0)
    with pytest.raises(ImproperPolicyError):
        evaluate_policy(mdp, np.array([0]))
    sol = solve(mdp, "vi", max_sweeps=50)
    assert not sol.converged and sol.sweeps == 50


def test_max_sweeps_reports_not_converged():
    sol = solve(two_state_chain(0.99), "vi", tol=1e-12, max_sweeps=5)
    assert sol.converged is False
    assert sol.sweeps == 5


def test_snapshots_are_read_only_and_stepping_equals_running():
    mdp = two_state_chain(0.9)
    gen = value_iteration(mdp, tol=1e-10)
    first = next(gen)
    assert first.iteration == 1
    with pytest.raises(ValueError):
        first.values[0] = 5.0
    with pytest.raises(ValueError):
        first.policy[0] = 1
    with pytest.raises(AttributeError):
        first.delta = 0.0  # frozen dataclass
    steps = [first]
    while True:
        try:
            steps.append(next(gen))
        except StopIteration as stop:
            final = stop.value
            break
    whole = solve(mdp, "vi", tol=1e-10, record=True)
    assert len(whole.history) == len(steps) == whole.sweeps == final.sweeps
    np.testing.assert_array_equal(final.values, whole.values)
    assert steps[-1].converged and not any(s.converged for s in steps[:-1])
    for a, b in zip(steps, whole.history):
        np.testing.assert_array_equal(a.values, b.values)
    # the first sweep's values must not have been changed by later sweeps
    np.testing.assert_array_equal(first.values, whole.history[0].values)
    assert [s.iteration for s in steps] == list(range(1, len(steps) + 1))


def test_sweep_reports_changed_states_and_delta_location():
    mdp = absorbing_goal(0.6)
    hist = solve(mdp, "vi", record=True).history
    # sweep 1 from V=0: walk costs 1 = gamble 1 -> tie -> walk; later gamble becomes better.
    assert hist[0].policy[0] == 0
    switched = [s.iteration for s in hist if 0 in s.changed]
    assert switched, "state 0 must switch to gambling at some sweep"
    assert all(s.delta_state in (0, 1) for s in hist)


def test_policy_iteration_yields_evaluate_then_improve():
    hist = solve(absorbing_goal(0.6), "pi", record=True).history
    assert [s.phase for s in hist][:2] == ["evaluate", "improve"]
    assert hist[-1].phase == "improve" and hist[-1].converged
    assert hist[-1].policy_changes == 0


@pytest.mark.parametrize("seed", range(4))
def test_all_solvers_agree_on_random_mdps(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 200))
    arr = random_mdp_arrays(n, seed=seed)
    gamma = float(rng.uniform(0.5, 0.95))
    mdp = TabularMDP.from_transitions(n, 4, arr["src"], arr["action"], arr["dst"], arr["prob"], arr["reward"], discount=gamma)
    ref = solve(mdp, "pi")
    for method, opts in (("vi", {"tol": 1e-11}), ("gs", {"tol": 1e-11}), ("gs", {"tol": 1e-11, "block_size": 7}),
                         ("lp", {}), ("pi", {"evaluation_sweeps": 3, "tol": 1e-11})):
        sol = solve(mdp, method, **opts)
        assert sol.converged
        np.testing.assert_allclose(sol.values, ref.values, atol=1e-6, err_msg=f"{method} {opts}")
        q = mdp.q_values(ref.values)
        chosen = q[policy_to_rows(mdp, sol.policy)]
        np.testing.assert_allclose(chosen, ref.values, atol=1e-6)


def test_cost_objective_mirrors_reward_objective():
    arr = random_mdp_arrays(40, seed=9)
    common = (40, 4, arr["src"], arr["action"], arr["dst"], arr["prob"])
    rmax = TabularMDP.from_transitions(*common, arr["reward"], discount=0.9)
    cmin = TabularMDP.from_transitions(*common, -arr["reward"], discount=0.9, objective="min")
    for method in ALL:
        np.testing.assert_allclose(solve(cmin, method).values, -solve(rmax, method).values, atol=1e-6)


def test_stochastic_policy_evaluation_is_the_mixture_of_rows():
    mdp = absorbing_goal(0.6)
    probs = np.zeros((3, 2))
    probs[0] = [0.5, 0.5]
    probs[1, 0] = 1
    # V0 = 1 + 0.5*V1 + 0.5*(0.4*V0) -> V0 = 1.5 / 0.8
    np.testing.assert_allclose(evaluate_stochastic_policy(mdp, probs), [1.5 / 0.8, 1, 0])
    with pytest.raises(ValueError, match="state 0: the policy's probabilities"):
        probs[0] = [0.5, 0.2]
        evaluate_stochastic_policy(mdp, probs)


def test_exact_hitting_probabilities_match_simulation():
    # from s0 (max) in the minimax tree, the policy ends in terminal 3 with probability 1
    mdp = absorbing_goal(0.6)
    sol = solve(mdp, "pi")
    W = row_weights_deterministic(mdp, policy_to_rows(mdp, sol.policy))
    assert hitting_probabilities(mdp, W, [2])[:, 0].tolist() == [1.0, 1.0, 1.0]
    eps = simulate(mdp, policy_matrix(mdp, sol.policy), start=0, episodes=20_000, seed=3)
    mean, half = mean_ci(eps.total)
    assert abs(mean - sol.values[0]) < half
    assert eps.finished.all()
    lo, hi = proportion_ci(np.array([50]), 100)
    assert lo[0] < 0.5 < hi[0]


@pytest.mark.parametrize("uniform", [True, False])
def test_chunked_greedy_equals_one_block(monkeypatch, uniform):
    import mdpviz.solvers.sweep as sw

    rng = np.random.default_rng(11)
    n = 5000
    if uniform:
        arr = random_mdp_arrays(n, seed=11)
        mdp = TabularMDP.from_transitions(n, 4, arr["src"], arr["action"], arr["dst"], arr["prob"],
                                          arr["reward"], discount=0.9, mover=rng.choice([-1, 1], n))
    else:  # 1..3 actions per state, some terminal states without actions
        k = rng.integers(1, 4, size=n)
        k[rng.random(n) < 0.05] = 0
        src = np.repeat(np.arange(n), k)
        act = np.concatenate([np.arange(c) for c in k])
        mdp = TabularMDP.from_transitions(n, 3, src, act, rng.integers(0, n, src.size), np.ones(src.size),
                                          rng.integers(0, 3, src.size).astype(float), discount=0.9,
                                          terminal=np.flatnonzero(k == 0), mover=rng.choice([-1, 1], n))
    q = mdp.q_values(rng.random(n))
    whole = sw.greedy(mdp, q)
    monkeypatch.setattr(sw, "GREEDY_CHUNK", 777)
    chunked = sw.greedy(mdp, q)
    np.testing.assert_array_equal(whole[0], chunked[0])
    np.testing.assert_array_equal(whole[1], chunked[1])


def _dense_and_sparse(mdp: TabularMDP):
    """Policy iteration with scipy's sparse LU and with the dense LAPACK path of ``mdpviz plan``."""
    a = [s for s in policy_iteration(mdp)]
    b = [s for s in policy_iteration(mdp, linear_solver="lapack")]
    return a, b


@pytest.mark.parametrize("seed", range(40))
def test_dense_lapack_policy_iteration_takes_the_same_steps(seed):
    """linear_solver="lapack" (``mdpviz plan``) walks the same policies as the sparse LU and ends on
    the same policy, values equal to rounding: discounted, discount 1 with terminal states (the
    initial proper-policy fix), ragged actions, duplicate successors, both reward signs."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    k = int(rng.integers(1, 6))
    src, act, dst, prob, rew = [], [], [], [], []
    term = np.flatnonzero(rng.random(n) < 0.25) if seed % 2 else np.array([], dtype=int)
    for s in set(range(n)) - set(term.tolist()):
        for a in range(k):
            if a and rng.random() < 0.2:
                continue
            m = int(rng.integers(1, min(n, 6) + 1))
            p = rng.random(m) + 0.1
            src += [s] * m; act += [a] * m; dst += rng.integers(0, n, m).tolist()
            prob += (p / p.sum()).tolist(); rew += rng.normal(0, 2, m).tolist()
    if not src:
        return
    gamma = 1.0 if seed % 4 == 1 else float(rng.uniform(0.3, 0.99))
    mdp = TabularMDP.from_transitions(n, k, src, act, dst, prob, rew, discount=gamma, terminal=term)
    try:
        a, b = _dense_and_sparse(mdp)
    except ImproperPolicyError as e:  # discount 1 where no policy ends: both paths refuse alike
        with pytest.raises(ImproperPolicyError, match=str(e).split(":")[0]):
            _dense_and_sparse(mdp)
        return
    assert [(s.phase, s.iteration) for s in a] == [(s.phase, s.iteration) for s in b]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x.policy, y.policy)
        np.testing.assert_allclose(x.values, y.values, rtol=1e-12, atol=1e-12)
    assert a[-1].converged and b[-1].converged


def test_dense_lapack_refuses_and_falls_back_like_the_sparse_path():
    # an improper policy with discount 1 is refused by the same error
    mdp = TabularMDP.from_transitions(1, 1, [0], [0], [0], [1.0], [1.0], discount=1.0)
    with pytest.raises(ImproperPolicyError, match=r"from state\(s\) 0 the policy never reaches"):
        run(policy_iteration(mdp, linear_solver="lapack"))
    # a free loop with discount 1: the sparse path's zero-reward classes (same answer as superlu)
    loop = TabularMDP.from_transitions(2, 2, [0, 0], [0, 1], [0, 1], [1, 1], [0, 1], discount=1.0, terminal=[1])
    sol = run(policy_iteration(loop, linear_solver="lapack"))
    assert sol.values.tolist() == run(policy_iteration(loop)).values.tolist() == [1.0, 0.0]
    with pytest.raises(ValueError, match="linear_solver must be one of superlu, lapack"):
        run(policy_iteration(loop, linear_solver="dense"))
