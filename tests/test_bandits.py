"""The k-armed testbed (issue 39; Sutton and Barto chapter 2): mdpviz/solvers/bandits.py and ``mdpviz bandit``.

* figure 2.2: epsilon-greedy's curves (epsilon 0.1) agree with a separate simple simulation written here, within
  their standard errors, and sit near the book's 1.4 average reward and 80% optimal action at step 1,000;
* figures 2.3-2.5: optimistic greedy beats realistic epsilon-greedy on % optimal late, UCB beats epsilon-greedy on
  reward, the gradient bandit with baseline beats the one without at mean 4;
* the updates are the book's equations, checked step by step on run 1's snapshots (sample averages eq. 2.3, the
  gradient bandit's eq. 2.12, UCB's untried arms first, Thompson's Beta posterior);
* seeds give the same problems to every method; the parameter study's points are the testbed's own runs;
* the command line: JSON keys in the table, method ids from the registry, bad options one line, exit 2.

The runs shared by several tests are built once per module (the suite's time budget).
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from mdpviz.cli import main
from mdpviz.commands.json_keys import problems
from mdpviz.solvers import bandits, registry
from mdpviz.solvers.bandits import Testbed, run_testbed, start_bandit

RUNS, STEPS, SEED = 2000, 1000, 7
LATE = slice(900, 1000)  # steps 901..1000


def simple_epsilon_greedy(epsilon: float, runs: int, steps: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Figure 2.2's testbed written plainly (runs x arms, one generator): per run and step, the reward and whether
    the arm pulled was the best one. Ties of the greedy arm are broken at random."""
    rng = np.random.default_rng(seed)
    q = rng.normal(0.0, 1.0, size=(runs, 10))
    best = q.argmax(axis=1)
    Q = np.zeros((runs, 10))
    N = np.zeros((runs, 10))
    rewards = np.zeros((runs, steps))
    hit = np.zeros((runs, steps), dtype=bool)
    everyone = np.arange(runs)
    for t in range(steps):
        top = Q == Q.max(axis=1)[:, None]
        greedy = np.argmax(top * (1.0 + rng.random(Q.shape)), axis=1)
        explore = rng.random(runs) < epsilon
        arm = np.where(explore, rng.integers(10, size=runs), greedy)
        r = rng.normal(q[everyone, arm], 1.0)
        N[everyone, arm] += 1
        Q[everyone, arm] += (r - Q[everyone, arm]) / N[everyone, arm]
        rewards[:, t] = r
        hit[:, t] = arm == best
    return rewards, hit


@pytest.fixture(scope="module")
def eps01() -> bandits.TestbedResult:
    return run_testbed(bandits.method_of(bandits.epsilon_greedy), Testbed(), runs=RUNS, steps=STEPS, seed=SEED, epsilon=0.1)


def late_mean_and_se(per_run: np.ndarray) -> tuple[float, float]:
    """The runs' mean of a per-run quantity and its standard error."""
    return float(per_run.mean()), float(per_run.std(ddof=1) / math.sqrt(per_run.shape[0]))


def test_figure_2_2_agrees_with_a_separate_simulation(eps01):
    rewards, hit = simple_epsilon_greedy(0.1, RUNS, STEPS, seed=12345)
    ref_r, ref_r_se = late_mean_and_se(rewards[:, LATE].mean(axis=1))
    ref_o, ref_o_se = late_mean_and_se(hit[:, LATE].mean(axis=1))
    # the testbed's per-step curves averaged over the same steps; their standard error from the per-step errors
    # is not the per-run one (the steps of a run are correlated), so the run totals' spread sets it: a run's late
    # mean has about the spread of its whole mean (the best arm's value dominates both)
    ours_r = float(eps01.average_reward[LATE].mean())
    ours_o = float(eps01.optimal_action[LATE].mean())
    assert abs(ours_r - ref_r) < 4 * math.sqrt(2) * ref_r_se, (ours_r, ref_r, ref_r_se)
    assert abs(ours_o - ref_o) < 4 * math.sqrt(2) * ref_o_se, (ours_o, ref_o, ref_o_se)
    # the book's figure 2.2: about 1.4 average reward (the best of 10 N(0, 1) is 1.54 on average) and about 80%
    # optimal action at step 1,000 for epsilon = 0.1
    assert 1.30 < ours_r < 1.45 and 1.30 < ref_r < 1.45
    assert 0.74 < ours_o < 0.86 and 0.74 < ref_o < 0.86
    # the first steps: no information yet, so 1 in 10 optimal and 0 reward on average
    assert abs(eps01.optimal_action[0] - 0.1) < 4 * math.sqrt(0.09 / RUNS)
    assert abs(eps01.average_reward[0]) < 4 * math.sqrt(2.0 / RUNS)
    # the per-step standard errors are the runs' spread: about sqrt(1 + Var q*) / sqrt(runs) late
    assert np.all((eps01.average_reward_se > 0.8 / math.sqrt(RUNS)) & (eps01.average_reward_se < 1.8 / math.sqrt(RUNS)))


def test_figure_2_4_ucb_beats_epsilon_greedy_on_the_same_problems(eps01):
    u = run_testbed(bandits.method_of(bandits.ucb), Testbed(), runs=RUNS, steps=STEPS, seed=SEED, c=2.0)
    diff = (u.run_totals - eps01.run_totals) / STEPS  # the same true values per run (one seed): a paired difference
    mean, se = late_mean_and_se(diff)
    assert mean > 4 * se and mean > 0.05, (mean, se)
    assert u.average_reward[LATE].mean() > eps01.average_reward[LATE].mean() + 0.05


def test_figure_2_3_optimistic_greedy_beats_realistic_epsilon_greedy_late():
    runs = 1000
    opt = run_testbed(bandits.method_of(bandits.optimistic), Testbed(), runs=runs, steps=STEPS, seed=3)
    real = run_testbed(bandits.method_of(bandits.epsilon_greedy), Testbed(), runs=runs, steps=STEPS, seed=3, epsilon=0.1,
                       alpha=0.1)
    assert opt.options == {"initial": 5.0, "epsilon": 0.0, "alpha": 0.1}  # the book's figure 2.3
    late = slice(500, 1000)
    a, b = opt.optimal_action[late].mean(), real.optimal_action[late].mean()
    se = math.sqrt(a * (1 - a) / runs + b * (1 - b) / runs)  # (per step; the late mean's is larger, bounded below)
    assert a - b > 0.04 and a - b > 4 * se, (a, b)
    # the optimistic method's early spike (figure 2.3's step 11): after every arm was tried once, the best one
    # is pulled far more often than at the steps around it
    assert opt.optimal_action[10] > 0.3 and opt.optimal_action[10] > opt.optimal_action[5] + 0.15


def test_figure_2_5_the_baseline_matters_at_mean_4():
    runs, tb = 500, Testbed(mean=4.0)
    gid = bandits.method_of(bandits.gradient_bandit)
    with_b = run_testbed(gid, tb, runs=runs, steps=STEPS, seed=5, alpha=0.1)
    without = run_testbed(gid, tb, runs=runs, steps=STEPS, seed=5, alpha=0.1, baseline=False)
    a, b = with_b.optimal_action[LATE].mean(), without.optimal_action[LATE].mean()
    assert a > 0.7 and b < 0.65 and a - b > 0.15, (a, b)  # the book: about 80% against about 50%


# ------------------------------------------------------------------------------ the updates, step by step
def _steps(method, tb, steps, **options):
    return list(start_bandit(method, tb, runs=3, steps=steps, seed=11, **options))


def test_sample_averages_are_eq_2_3_and_their_standard_error():
    snaps = _steps(bandits.method_of(bandits.epsilon_greedy), Testbed(), 60, epsilon=0.3)
    sums, counts = np.zeros(10), np.zeros(10, dtype=int)
    for s in snaps:
        sums[s.last_arm] += s.last_reward
        counts[s.last_arm] += 1
        assert np.array_equal(s.counts, counts)
        pulled = counts > 0
        assert np.allclose(s.estimates[pulled], sums[pulled] / counts[pulled], atol=1e-12)
        assert np.all(s.estimates[~pulled] == 0.0)
        assert np.allclose(s.uncertainty[pulled], 1 / np.sqrt(counts[pulled])) and np.all(np.isnan(s.uncertainty[~pulled]))
    last = snaps[-1]
    assert last.step == 60 and last.average_reward.shape == (60,) and not last.average_reward.flags.writeable
    assert last.arms.shape == (3,) and not last.rewards.flags.writeable


def test_the_gradient_bandit_is_eq_2_12():
    gid = bandits.method_of(bandits.gradient_bandit)
    for baseline in (True, False):
        snaps = _steps(gid, Testbed(), 30, alpha=0.25, baseline=baseline)
        H = np.zeros(10)
        rewards: list[float] = []
        for s in snaps:
            pi = np.exp(H - H.max())
            pi /= pi.sum()
            r = s.last_reward
            base = (r if not rewards else float(np.mean(rewards))) if baseline else 0.0  # Rbar_1 = R_1
            H = H - 0.25 * (r - base) * pi
            H[s.last_arm] += 0.25 * (r - base)
            rewards.append(r)
            assert np.allclose(s.estimates, H, atol=1e-12), (baseline, s.step)
        assert s.estimate_name == "H"
        if baseline:
            assert np.allclose(snaps[0].estimates, 0.0)  # the first step's advantage is R_1 - R_1 = 0


def test_ucb_tries_every_arm_first_then_follows_eq_2_10():
    snaps = _steps(bandits.method_of(bandits.ucb), Testbed(arms=5), 12, c=1.5)
    assert np.array_equal(snaps[4].counts, np.ones(5))  # five steps, five different arms
    assert len({s.last_arm for s in snaps[:5]}) == 5
    for prev, s in zip(snaps[4:], snaps[5:]):
        t = s.step
        score = prev.estimates + 1.5 * np.sqrt(math.log(t) / prev.counts)
        assert np.isclose(score[s.last_arm], score.max())


def test_thompson_keeps_the_beta_posterior_of_bernoulli_arms():
    snaps = _steps(bandits.method_of(bandits.thompson), Testbed(arms=3, bernoulli=True, prior=(2.0, 3.0)), 40)
    s_count, n = np.zeros(3), np.zeros(3)
    for s in snaps:
        assert s.last_reward in (0.0, 1.0)
        s_count[s.last_arm] += s.last_reward
        n[s.last_arm] += 1
        a, b = 2.0 + s_count, 3.0 + n - s_count
        assert np.allclose(s.estimates, a / (a + b)) and np.allclose(s.uncertainty, np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1))))
        assert np.all((s.true_values >= 0) & (s.true_values <= 1))


def test_one_seed_gives_every_method_the_same_problems_and_the_same_numbers():
    tb = Testbed(arms=4)
    first = [next(start_bandit(m, tb, runs=5, steps=3, seed=2)).true_values for m in registry.ids("bandit")
             if m != bandits.method_of(bandits.bayes_optimal_policy)]
    assert all(np.array_equal(first[0], v) for v in first[1:])
    a = run_testbed(bandits.method_of(bandits.ucb), tb, runs=50, steps=30, seed=9)
    b = run_testbed(bandits.method_of(bandits.ucb), tb, runs=50, steps=30, seed=9)
    c = run_testbed(bandits.method_of(bandits.ucb), tb, runs=50, steps=30, seed=10)
    assert np.array_equal(a.average_reward, b.average_reward) and not np.array_equal(a.average_reward, c.average_reward)


def test_drift_moves_the_true_values_from_an_equal_start():
    tb = Testbed(arms=10, drift=0.5, equal_start=True, mean=1.0)
    snaps = list(start_bandit(bandits.method_of(bandits.epsilon_greedy), tb, runs=2, steps=100, seed=4))
    # after t steps each true value has moved by N(0, 0.5^2 t): after 100 steps, about 5 away from 1 (sd)
    assert np.all(np.abs(snaps[0].true_values - 1.0) < 5 * 0.5)
    spread = np.std(snaps[-1].true_values - 1.0)
    assert 0.5 * 5 / 3 < spread < 0.5 * 5 * 3


def test_the_parameter_study_points_are_the_testbeds_runs():
    grid = {bandits.method_of(bandits.ucb): ("c", (-1, 1)), bandits.method_of(bandits.epsilon_greedy): ("epsilon", (-3, -2))}
    study = bandits.parameter_study(Testbed(arms=5), runs=40, steps=50, seed=6, grid=grid)
    assert [c.method for c in study.curves] == list(grid)
    ucb_curve = study.curves[0]
    assert np.allclose(ucb_curve.values, [0.5, 1.0, 2.0])
    one = run_testbed(bandits.method_of(bandits.ucb), Testbed(arms=5), runs=40, steps=50, seed=6, c=2.0)
    assert ucb_curve.average_reward[2] == pytest.approx(one.total_reward / 50, abs=1e-12)
    assert bandits.STUDY_GRID  # the figure's default grid names methods that take those parameters
    assert all(registry.get(m).takes(p) for m, (p, _k) in bandits.STUDY_GRID.items())


@pytest.mark.parametrize("bad, match", [
    (dict(arms=1), "--arms"), (dict(drift=-1.0), "--drift"), (dict(prior=(0.0, 1.0)), "--prior"),
    (dict(bernoulli=True, mean=4.0), "--mean"),
])
def test_a_bad_testbed_is_one_line_naming_the_option(bad, match):
    with pytest.raises(ValueError, match=match):
        Testbed(**bad)


# ------------------------------------------------------------------------------ regret against the exact answer
def test_the_bayes_optimal_policy_earns_its_exact_value_and_thompson_has_regret():
    """Two Bernoulli arms, Beta(1, 1), 12 pulls: the simulated Bayes-optimal policy's total reward agrees with the
    belief MDP's exact value (bandit_exact.bayes_optimal) within 4 standard errors, its regret is 0 within them,
    and Thompson sampling, which is not Bayes-optimal, loses reward to it on the same problems."""
    from mdpviz.solvers.bandit_exact import bayes_optimal

    tb, runs, steps = Testbed(arms=2, bernoulli=True), 4000, 12
    exact = bayes_optimal(2, steps, prior=(1.0, 1.0))
    bo = run_testbed(bandits.method_of(bandits.bayes_optimal_policy), tb, runs=runs, steps=steps, seed=8)
    assert abs(bo.total_reward - exact.value) < 4 * bo.total_reward_se, (bo.total_reward, exact.value)
    assert np.allclose(bo.regret, exact.reward_per_step - bo.average_reward)
    assert abs(bo.regret.sum()) < 4 * bo.total_reward_se
    ts = run_testbed(bandits.method_of(bandits.thompson), tb, runs=runs, steps=steps, seed=8)
    paired = ts.run_totals - bo.run_totals  # the same arms per run (one seed)
    se = paired.std(ddof=1) / math.sqrt(runs)
    assert ts.regret.sum() == pytest.approx(exact.value - ts.total_reward, abs=1e-9)
    assert -paired.mean() > 3 * se and ts.regret.sum() > 0.1, (paired.mean(), se)
    # the first pull knows nothing: every policy earns the prior's mean 1/2 (regret 0 within its error)
    assert abs(ts.regret[0]) < 4 * 0.5 / math.sqrt(runs) and exact.reward_per_step[0] == pytest.approx(0.5)


def test_regret_is_refused_past_the_belief_budget_in_one_line():
    with pytest.raises(ValueError, match="--arms 10 with --steps 1000.*--no-regret"):
        run_testbed(bandits.method_of(bandits.ucb), Testbed(bernoulli=True), runs=10, steps=1000, regret=True)
    # not asked (None: where the budget allows) or refused: a Bernoulli run past the budget has no regret
    for regret in (None, False):
        assert run_testbed(bandits.method_of(bandits.ucb), Testbed(bernoulli=True), runs=10, steps=50,
                           regret=regret).regret is None
    assert run_testbed(bandits.method_of(bandits.ucb), Testbed(arms=2, bernoulli=True), runs=10, steps=5).regret.shape == (5,)
    with pytest.raises(ValueError, match="stationary Bernoulli"):
        run_testbed(bandits.method_of(bandits.ucb), Testbed(), runs=10, steps=5, regret=True)


# ------------------------------------------------------------------------------ the command line
def run_cli(capsys, *argv):
    status = main(["bandit", *argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_the_command_prints_the_curves_with_keys_in_the_table(capsys):
    status, out, err = run_cli(capsys, "--arms", "5", "--method", "gradient", "--mean", "4", "--no-baseline",
                               "--runs", "30", "--steps", "20", "--seed", "1", "--json")
    assert status == 0, err
    doc = json.loads(out)
    assert problems(doc, "bandit") == []
    assert doc["method"] == bandits.method_of(bandits.gradient_bandit) and doc["options"] == {"alpha": 0.1, "baseline": False}
    assert len(doc["average_reward"]) == len(doc["optimal_action"]) == 20 and doc["regret"] is None
    same = run_testbed(doc["method"], Testbed(arms=5, mean=4.0), runs=30, steps=20, seed=1, baseline=False)
    assert np.allclose(doc["average_reward"], same.average_reward)
    status, out, err = run_cli(capsys, "--study", "--arms", "3", "--runs", "5", "--steps", "10", "--json")
    assert status == 0, err
    doc = json.loads(out)
    assert problems(doc, "bandit --study") == [] and len(doc["parameter_study"]) == len(bandits.STUDY_GRID)
    status, out, err = run_cli(capsys, "--runs", "20", "--steps", "10")
    assert status == 0 and "step      10" in out and "optimal action" in out
    status, out, err = run_cli(capsys, "--bernoulli", "--arms", "2", "--prior", "2,1", "--method", "thomp",
                               "--runs", "50", "--steps", "6", "--json")
    assert status == 0, err
    doc = json.loads(out)
    assert problems(doc, "bandit --bernoulli") == [] and doc["prior"] == [2.0, 1.0] and len(doc["regret"]) == 6
    from mdpviz.solvers.bandit_exact import bayes_optimal

    best = bayes_optimal(2, 6, prior=(2.0, 1.0)).reward_per_step
    assert np.allclose(doc["regret"], best - np.array(doc["average_reward"]))
    assert doc["total_regret"] == pytest.approx(sum(doc["regret"]))


@pytest.mark.parametrize("argv, words", [
    (["--method", "nope"], "--method"),
    (["--method", "ucb", "--epsilon", "0.1"], "--epsilon"),
    (["--arms", "0"], "--arms"),
    (["--epsilon", "2"], "epsilon"),
    (["--prior", "1"], "--prior"),
    (["--prior", "1,1"], "--bernoulli"),
    (["--bernoulli", "--mean", "1"], "--mean"),
    (["--no-regret"], "--no-regret"),
    (["--drift", "-1"], "--drift"),
    (["--runs", "1000000", "--steps", "1000000"], "--runs"),
    (["--study", "--method", "ucb"], "--study"),
    (["--bernoulli", "--steps", "1000"], "--no-regret"),
    (["--method", "bayes"], "--bernoulli"),
    (["--bernoulli", "--drift", "0.1", "--arms", "2"], "--drift"),
    (["--seed", "-1"], "seed"),
])
def test_bad_options_are_one_line_exit_2(capsys, argv, words):
    small = [f for f in ("--runs", "--steps") if f not in argv]
    status, out, err = run_cli(capsys, *argv, *(x for f in small for x in (f, "3")))
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and words in err and "Traceback" not in err, err
