"""The exact answers of the Bernoulli bandit (issue 39, mdpviz/solvers/bandit_exact.py): the Bayes-optimal value of
the belief MDP against a brute-force recursion over posteriors written here, the Gittins index against the
published table (Gittins, Glazebrook and Weber's table for discount 0.9: Beta(1, 1) 0.7029, Beta(2, 2) 0.6346,
Beta(3, 3) 0.6010, Beta(10, 2) 0.8695; reproduced in Christian and Griffiths, *Algorithms to Live By*, ch. 2) and
between its two methods, the Bayes-optimal policy's simulated reward against its exact value, the ``--exact`` /
``--gittins`` modes' options and JSON keys, and the ``bandit`` game."""
from __future__ import annotations

import argparse
import math
from functools import lru_cache

import numpy as np
import pytest

from mdpviz.commands import bandit_exact as cmd
from mdpviz.commands.json_keys import problems
from mdpviz.solvers import bandit_exact as be


def brute_force(arms: int, horizon: int, prior: tuple[float, float], discount: float):
    """The Bayes-optimal value by the plain recursion over posteriors, and Q of each arm at a belief:
    V(counts) = max_i p_i (1 + gamma V(counts + success_i)) + (1 - p_i) gamma V(counts + failure_i), 0 after
    ``horizon`` pulls, p_i = (a + s_i) / (a + b + s_i + f_i)."""
    a, b = prior

    @lru_cache(maxsize=None)
    def q(counts: tuple[int, ...]) -> tuple[float, ...]:
        out = []
        for i in range(arms):
            s, f = counts[2 * i], counts[2 * i + 1]
            p = (a + s) / (a + b + s + f)
            win = list(counts)
            win[2 * i] += 1
            lose = list(counts)
            lose[2 * i + 1] += 1
            out.append(p * (1.0 + discount * v(tuple(win))) + (1.0 - p) * discount * v(tuple(lose)))
        return tuple(out)

    @lru_cache(maxsize=None)
    def v(counts: tuple[int, ...]) -> float:
        return 0.0 if sum(counts) >= horizon else max(q(counts))

    return v, q


CASES = [(2, h, (1.0, 1.0), 1.0) for h in (1, 2, 5, 8)] + [
    (3, 5, (1.0, 1.0), 1.0), (2, 6, (2.0, 1.0), 1.0), (2, 7, (0.5, 0.5), 1.0), (3, 4, (1.0, 3.0), 0.9),
    (2, 8, (1.0, 1.0), 0.9), (1, 3, (2.0, 5.0), 1.0)]


@pytest.mark.parametrize("arms,horizon,prior,discount", CASES)
def test_bayes_optimal_value_equals_the_brute_force_recursion(arms, horizon, prior, discount):
    v, q = brute_force(arms, horizon, prior, discount)
    bo = be.bayes_optimal(arms, horizon, prior=prior, discount=discount)
    start = (0,) * (2 * arms)
    assert bo.value == pytest.approx(v(start), abs=1e-12)
    q0 = q(start)
    assert bo.first_action == tuple(i for i in range(arms) if q0[i] >= max(q0) - 1e-9)
    # the value as the discounted sum of the expected reward per pull, which starts at the prior mean
    assert bo.reward_per_step.shape == (horizon,)
    assert bo.reward_per_step[0] == pytest.approx(prior[0] / sum(prior), abs=1e-15)
    assert float(np.sum(discount ** np.arange(horizon) * bo.reward_per_step)) == pytest.approx(bo.value, abs=1e-12)
    # every belief's value, and its arm is optimal there (the lowest of tied arms)
    bel = bo.beliefs
    for s in range(0, bel.n_states, max(1, bel.n_states // 60)):
        c = tuple(int(x) for x in bel.counts[s])
        assert bo.values[s] == pytest.approx(v(c), abs=1e-12)
        if sum(c) < horizon:
            qs = q(c)
            best = max(qs)
            assert bo.arm[s] == min(i for i in range(arms) if qs[i] >= best - 1e-9 * (1 + abs(best)))
            assert bo.policy(c[0::2], c[1::2], t=sum(c)) == bo.arm[s]


def test_beliefs_are_numbered_one_to_one_in_layers():
    for arms, horizon in ((1, 4), (2, 5), (3, 3)):
        bel = be.beliefs(arms, horizon)
        assert bel.n_states == be.belief_size(arms, horizon) == math.comb(horizon + 2 * arms, 2 * arms)
        assert len({tuple(c) for c in bel.counts.tolist()}) == bel.n_states
        assert np.array_equal(bel.index(bel.counts[:, 0::2], bel.counts[:, 1::2]), np.arange(bel.n_states))
        assert np.array_equal(bel.pulls(), bel.counts.sum(axis=1))
    mdp = be.belief_mdp(2, 2, labels=True)
    assert mdp.state_labels[0] == "t=0 s=(0,0) f=(0,0)"
    assert mdp.action_labels == ("pull arm 1", "pull arm 2")
    assert int(mdp.terminal.sum()) == math.comb(2 + 3, 3)  # the beliefs after exactly 2 pulls


def test_the_policy_run_on_arms_drawn_from_the_prior_earns_its_exact_value():
    """Arms drawn from Beta(2, 1), outcomes drawn from the arms; 20,000 seeded runs of 6 pulls."""
    arms, horizon, prior = 2, 6, (2.0, 1.0)
    bo = be.bayes_optimal(arms, horizon, prior=prior)
    rng = np.random.default_rng(39)
    runs = 20_000
    p = rng.beta(*prior, size=(runs, arms))
    s = np.zeros((runs, arms), dtype=np.int64)
    f = np.zeros((runs, arms), dtype=np.int64)
    total = np.zeros(runs)
    per_step = np.zeros(horizon)
    for t in range(horizon):
        arm = bo.policy(s, f)
        win = rng.random(runs) < p[np.arange(runs), arm]
        s[np.arange(runs), arm] += win
        f[np.arange(runs), arm] += ~win
        total += win
        per_step[t] = win.mean()
    se = total.std(ddof=1) / math.sqrt(runs)
    assert abs(total.mean() - bo.value) < 4 * se
    assert np.all(np.abs(per_step - bo.reward_per_step) < 4 * 0.5 / math.sqrt(runs))
    assert np.all(bo.policy(s, f) == -1)  # the horizon reached


def test_gittins_index_matches_the_published_table_and_the_two_methods_agree():
    table = be.gittins_table(0.9, 10)
    assert round(be.gittins_index(1, 1, 0.9), 4) == 0.7029
    assert [round(float(table[a - 1, b - 1]), 4) for a, b in ((1, 1), (2, 2), (3, 3), (10, 2))] == \
        [0.7029, 0.6346, 0.6010, 0.8695]
    assert table[0, 0] == pytest.approx(be.gittins_index(1, 1, 0.9), abs=1e-9)
    # above the posterior mean, increasing in a, decreasing in b
    a, b = np.meshgrid(np.arange(1, 11), np.arange(1, 11), indexing="ij")
    assert np.all(table > a / (a + b))
    assert np.all(np.diff(table, axis=0) > 0) and np.all(np.diff(table, axis=1) < 0)
    # Katehakis and Veinott's restart-in-state MDP solved by policy iteration: the same numbers
    for g in (0.7, 0.9):
        cal = be.gittins_table(g, 4, depth=30)
        res = be.gittins_table(g, 4, method="restart", depth=30)
        assert np.max(np.abs(cal - res)) < 1e-8


def test_gittins_truncation_stays_below_the_index_within_its_bound():
    deep = be.gittins_index(1, 2, 0.8)
    for depth in (3, 8, 15):
        shallow = be.gittins_index(1, 2, 0.8, depth=depth)
        assert -1e-9 <= deep - shallow <= be.truncation_error(0.8, depth) + 1e-9
    assert be.truncation_error(0.9, be.truncation_depth(0.9)) <= be.GITTINS_ERROR


def parser() -> argparse.ArgumentParser:
    """A parser like ``mdpviz bandit``'s, whose own options the exact modes read (until it is merged)."""
    from mdpviz.commands import ArgumentParser

    p = ArgumentParser(prog="mdpviz bandit")
    p.add_argument("--json", action="store_true")
    cmd.add_exact_options(p)
    return p


def test_the_exact_modes_print_their_keys():
    exact = cmd.run_exact(parser().parse_args(["--bernoulli", "--arms", "2", "--horizon", "8", "--prior", "1,1",
                                               "--exact"]))
    assert exact["value"] == pytest.approx(be.bayes_optimal(2, 8).value, abs=1e-15)
    assert exact["first_action"] == [1, 2] and exact["n_states"] == 495
    gitt = cmd.run_exact(parser().parse_args(["--gittins", "--discount", "0.9", "--max-count", "3"]))
    assert gitt["a"] == gitt["b"] == [1, 2, 3] and round(gitt["index"][0][0], 4) == 0.7029
    assert problems(exact, "bandit --exact") == [] and problems(gitt, "bandit --gittins") == []
    assert "0.7029" in cmd.exact_text(gitt) and "arms 1, 2 (tied)" in cmd.exact_text(exact)
    assert cmd.run_exact(parser().parse_args([])) is None


@pytest.mark.parametrize("argv,names", [
    (["--exact", "--arms", "2", "--horizon", "200"], "--arms"),
    (["--exact", "--prior", "1,0"], "--prior"),
    (["--exact", "--prior", "x"], "--prior"),
    (["--exact", "--discount", "1.5"], "--discount"),
    (["--gittins", "--discount", "1"], "--discount"),
    (["--gittins", "--max-count", "500"], "--max-count"),
    (["--gittins", "--discount", "0.9999999"], "--discount"),
    (["--exact", "--gittins"], "--exact"),
])
def test_bad_options_are_one_line_naming_the_option(argv, names):
    with pytest.raises(ValueError) as err:
        cmd.run_exact(parser().parse_args(argv))
    assert names in str(err.value) and "\n" not in str(err.value)


def test_mdpviz_bandit_runs_the_exact_modes_end_to_end(capsys):
    """Through ``mdpviz bandit`` (the testbed's command, which calls the exact part's options and run)."""
    import json

    from mdpviz.cli import main

    assert main(["bandit", "--bernoulli", "--arms", "2", "--horizon", "4", "--prior", "2,1", "--exact", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["value"] == pytest.approx(brute_force(2, 4, (2.0, 1.0), 1.0)[0]((0, 0, 0, 0)), abs=1e-12)
    assert doc["first_action"] == [1, 2] and problems(doc, "bandit --exact") == []
    assert main(["bandit", "--gittins", "--discount", "0.9", "--max-count", "2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert round(doc["index"][0][0], 4) == 0.7029 and problems(doc, "bandit --gittins") == []
    for argv in (["--exact", "--arms", "3", "--horizon", "90"], ["--gittins", "--discount", "1"],
                 ["--exact", "--gittins"], ["--exact", "--prior", "1,-1"]):
        assert main(["bandit", *argv]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.startswith("mdpviz: error:") and err.count("\n") == 1, err
