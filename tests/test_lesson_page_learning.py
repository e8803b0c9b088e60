"""The lesson page of a learning run from the command line (issue 40: "every episode of a learning run"):
``mdpviz export --figure html --method <learner>`` runs the learner with ``mdpviz learn``'s options and seed and
embeds per kept episode the learned V, the learned greedy action and the largest error to the exact V.

Checked against two independent runs: ``mdpviz learn --json`` (its final values, greedy policy and largest error)
for the last episode, and the registry's learner driven one episode at a time for every episode. One page is drawn
(a few episodes of the 4x3 grid); the other checks build the page's numbers only."""
from __future__ import annotations

import json

import numpy as np
import pytest

from mdpviz import lesson_page as lp
from mdpviz.cli import main
from mdpviz.models.kit.game import registry as games
from mdpviz.models.kit.game.game_model import Game
from mdpviz.solvers import registry

CONTROL = "q"
PREDICTION = "td0"
OPTIONS = ("--episodes", "12", "--seed", "7", "--alpha", "0.3", "--epsilon", "0.25")
"""A short Q-learning run of the 4x3 grid with options other than the defaults (they must reach the learner)."""
SETTINGS = {"episodes": 12, "seed": 7, "alpha": 0.3, "epsilon": 0.25}


def embedded(text: str, element: str = "mdpviz-lesson") -> dict:
    import re

    m = re.search(rf'<script type="application/json" id="{element}">(.*?)</script>', text, re.S)
    assert m is not None, f"no {element} script"
    return json.loads(m.group(1))


def every_episode(method: str, settings: dict, key: str = "gridworld") -> tuple[list, Game]:
    """The registry's learner ``method`` on ``key``'s model from its start, one snapshot per episode."""
    hg = Game(games.get(key))
    mdp = hg.compile_now()
    gen = registry.get(method).load()(mdp, method, start=int(hg.start_state()), **settings)
    return list(gen), hg


def labels(hg: Game, mdp, policy) -> list:
    if policy is None:
        return [None] * mdp.n_states
    return [None if mdp.terminal[s] or a < 0 else hg.model().action_label(s, int(a)) for s, a in enumerate(policy)]


@pytest.fixture(scope="module")
def q_page(qapp, tmp_path_factory):
    out = tmp_path_factory.mktemp("learnpage") / "q.html"
    assert main(["export", "--game", "gridworld", "--method", CONTROL, *OPTIONS, "--figure", "html",
                 "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    return embedded(text), embedded(text, "mdpviz-frames"), out


def test_the_page_of_a_q_learning_run_holds_learns_numbers(q_page, capsys):
    data, frames, _out = q_page
    capsys.readouterr()
    assert main(["learn", "--game", "gridworld", "--method", CONTROL, *OPTIONS, "--json"]) == 0
    ref = json.loads(capsys.readouterr().out)
    last = data["sweeps"][-1]
    assert (last["sweep"], last["values"], last["policy"], last["delta"]) == (
        ref["episodes"], ref["values"], ref["policy"], ref["max_error"])
    assert (data["states"], data["start"], data["discount"], data["method"]) == (
        ref["states"], ref["start"], ref["discount"], ref["method"])
    # every episode: as the registry's learner yields it, run one episode at a time with the same seed
    steps, hg = every_episode(CONTROL, SETTINGS)
    mdp = hg.compile_now()
    assert [s["sweep"] for s in data["sweeps"]] == [st.episode for st in steps] == list(range(1, 13))
    assert [s["values"] for s in data["sweeps"]] == [np.asarray(st.values).tolist() for st in steps]
    assert [s["policy"] for s in data["sweeps"]] == [labels(hg, mdp, st.policy) for st in steps]
    assert [s["delta"] for s in data["sweeps"]] == [st.max_error for st in steps]
    assert len({json.dumps(s["values"]) for s in data["sweeps"]}) > 1  # (the values move: a run, not one snapshot)
    # a learning run, said as such; one frame per episode, its learning options listed
    assert (data["unit"], data["method_name"], data["inspect"], data["sampled"], data["total_sweeps"]) == (
        "episode", registry.title(CONTROL), None, False, 12)
    assert {k: data["learning"][k] for k in ("episodes", "alpha", "epsilon", "seed")} == {
        "episodes": 12, "alpha": "0.3", "epsilon": 0.25, "seed": 7}
    assert len(frames["images"]) == 12 and len(set(frames["images"])) > 1
    assert data["command"].startswith(f"mdpviz export --game gridworld --method {CONTROL} --episodes 12")


def test_the_page_says_it_is_a_learning_run_in_the_browser(q_page):
    from mdpviz.screenshot_lesson import PageBrowser  # Qt WebEngine (the test extra installs it: no skip)

    data, _frames, out = q_page
    b = PageBrowser(1366, 768)
    try:
        assert b.load(out)
        assert "a learning run" in b.js("document.getElementById('subtitle').textContent")
        assert "per episode" in b.js("document.getElementById('plot-title').textContent")
        facts = b.js("document.getElementById('facts').textContent")
        assert "learning: epsilon" in facts and "learning: seed" in facts
        b.js("window.mdpvizLesson.show(3); window.mdpvizLesson.select(0); 1")
        shown = b.js("document.getElementById('inspector').textContent")
        assert f"V = {data['sweeps'][3]['values'][0]:.4f}" in shown and data["sweeps"][3]["policy"][0] in shown
        assert b.console == [] and [u for u in b.requests if not u.startswith("file:")] == []
    finally:
        b.close()


def test_the_page_limit_keeps_evenly_spaced_episodes_and_the_last():
    hg = Game(games.get("gridworld"))
    settings = {"episodes": 40, "seed": 3}
    solved, refs, at = lp.learn_game(hg, CONTROL, settings, limit=7)
    data = lp.lesson_data(hg, solved, limit=7, at=at)
    kept = data["kept"]
    assert kept == at == lp.kept_indices(40, hg.compile_now().n_states, 7)
    assert len(kept) == 7 and kept[0] == 0 and kept[-1] == 39 and data["sampled"] and data["total_sweeps"] == 40
    gaps = np.diff(kept)
    assert gaps.max() - gaps.min() <= 1  # evenly spaced
    steps, _ = every_episode(CONTROL, settings)
    assert [s["sweep"] for s in data["sweeps"]] == [i + 1 for i in kept]
    assert [s["values"] for s in data["sweeps"]] == [np.asarray(steps[i].values).tolist() for i in kept]
    assert len(refs) == len(solved.history) == 7
    # the references mark exactly the states whose learned action is not optimal
    mdp = solved.mdp
    for ref, sw, i in zip(refs, solved.history, kept):
        assert np.flatnonzero(np.asarray(ref.policy) != np.asarray(sw.policy)).tolist() == \
            np.flatnonzero(steps[i].differs(mdp)).tolist()
    with pytest.raises(ValueError, match="not those a page"):
        lp.lesson_data(hg, solved, limit=8, at=at)


def test_a_prediction_run_shows_its_values_and_no_policy(capsys):
    hg = Game(games.get("gridworld"))
    solved, _refs, at = lp.learn_game(hg, PREDICTION, {"episodes": 6, "seed": 2, "policy": "random"})
    data = lp.lesson_data(hg, solved, at=at)
    assert main(["learn", "--game", "gridworld", "--method", PREDICTION, "--episodes", "6", "--seed", "2",
                 "--policy", "random", "--json"]) == 0
    ref = json.loads(capsys.readouterr().out)
    assert data["sweeps"][-1]["values"] == ref["values"] and data["sweeps"][-1]["delta"] == ref["max_error"]
    assert all(p is None for s in data["sweeps"] for p in s["policy"])
    assert data["learning"]["policy"] == "random" and "epsilon" not in data["learning"]


@pytest.mark.parametrize("extra, says", [
    (["--method", CONTROL, "--episodes", "5", "--figure", "gif", "--out", "x.gif"], "--figure html"),
    (["--method", CONTROL, "--figure", "html", "--out", "x.html"], "--episodes"),
    (["--method", CONTROL, "--episodes", "5", "--tol", "1e-3", "--figure", "html", "--out", "x.html"],
     "--tol applies to the solvers"),
    (["--method", CONTROL, "--episodes", "5", "--history", "h.csv", "--figure", "html", "--out", "x.html"],
     "--history applies to the solvers"),
    (["--method", PREDICTION, "--episodes", "5", "--epsilon", "0.2", "--figure", "html", "--out", "x.html"],
     "--epsilon applies to the control methods"),
    (["--episodes", "5", "--figure", "html", "--out", "x.html"], "--episodes applies to the learners"),
    (["--alpha", "0.5", "--out", "x.png"], "--alpha applies to the learners"),
    (["--method", registry.ids("approximation")[0], "--figure", "html", "--out", "x.html"], "tabular learners"),
    (["--method", registry.ids("policy-gradient")[0], "--figure", "html", "--out", "x.html"], "tabular learners"),
    (["--method", registry.ids("bandit")[0], "--figure", "html", "--out", "x.html"], "tabular learners"),
])
def test_bad_combinations_are_one_line_and_exit_2(capsys, tmp_path, monkeypatch, extra, says):
    monkeypatch.chdir(tmp_path)
    assert main(["export", "--game", "gridworld", *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and says in err, err
    assert list(tmp_path.rglob("*")) == []
