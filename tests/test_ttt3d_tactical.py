"""The 3D agent judged by an opponent that plays (issue 30): the tactical player, training against it
in both seats, evaluation with its yardsticks, old files read as they were written."""
from __future__ import annotations

import json
from dataclasses import asdict, replace

import numpy as np
import pytest

from mdpviz.cli import main
from mdpviz.models import ttt3d
from mdpviz.models.kit.boards.ttt_board import EMPTY, O, X
from mdpviz.models.ttt3d import learning as rl
from mdpviz.models.ttt3d import spec


def test_tactical_player_wins_if_it_can_else_blocks_else_plays_anywhere():
    rng = np.random.default_rng(0)
    # X to move: X can complete 0-1-2, O threatens 3-4-5: X wins (never blocks instead)
    both = ttt3d.board("XX.OO....|.........|.........")
    assert {int(ttt3d.tactical_moves(np.repeat(both[None], 50, 0), X, rng)[k]) for k in range(50)} == {2}
    # O to move on the same board: O wins on 5
    assert set(ttt3d.tactical_moves(np.repeat(both[None], 50, 0), O, rng).tolist()) == {5}
    # X to move, only O threatens (the rows 3-4-5 and 18-19-20): X blocks, uniformly between the two cells
    threat = ttt3d.board("X..OO....|.........|OO.......")
    picks = ttt3d.tactical_moves(np.repeat(threat[None], 4000, 0), X, rng)
    assert set(picks.tolist()) == {5, 20}
    assert abs(np.mean(picks == 5) - 0.5) < 0.03  # 4,000 draws: sd 0.008
    # no line to complete or block: uniform over the empty cells
    quiet = ttt3d.board("X.........................O")
    picks = ttt3d.tactical_moves(np.repeat(quiet[None], 25_000, 0), X, rng)
    counts = np.bincount(picks, minlength=27)
    assert counts[0] == counts[26] == 0 and counts[1:26].min() > 850 and counts[1:26].max() < 1150  # mean 1,000


def test_single_board_tactical_move_is_the_batch_move_with_the_same_draws():
    rng = np.random.default_rng(7)
    for t in range(300):
        b = np.zeros(27, dtype=np.int8)
        k = int(rng.integers(0, 20))
        b[rng.permutation(27)[:k]] = rng.integers(1, 3, size=k)
        for mark in (X, O):
            one = ttt3d.tactical_move(b, mark, np.random.default_rng(t))
            batch = int(ttt3d.tactical_moves(b[None], mark, np.random.default_rng(t))[0])
            assert one == batch and b[one] == EMPTY


def test_tactical_yardsticks_on_the_classic_cube():
    risk = np.zeros(27)
    tx = ttt3d.play_vs("tactical", opponent="tactical", mark="X", risk=risk, games=4000, seed=3)
    to = ttt3d.play_vs("tactical", opponent="tactical", mark="O", risk=risk, games=4000, seed=3)
    assert 0.56 < tx.win < 0.64 and 0.36 < to.win < 0.44  # issue 30 measured 60% / 40%
    assert tx.draws == to.draws == 0
    # against random the tactical player almost always wins; random against tactical almost never
    assert ttt3d.play_vs("tactical", opponent="random", mark="O", risk=risk, games=2000, seed=3).win > 0.95
    assert ttt3d.play_vs("random", opponent="tactical", mark="X", risk=risk, games=2000, seed=3).win < 0.05
    again = ttt3d.play_vs("tactical", opponent="tactical", mark="X", risk=risk, games=4000, seed=3)
    assert again.wins == tx.wins  # seeded
    with pytest.raises(ValueError, match="unknown opponent"):
        ttt3d.play_vs(None, opponent="perfect", risk=risk, games=10)


def test_settings_seats_opponents_and_the_curriculum():
    s = rl.TrainSettings(episodes=100, opponent="curriculum", mark="both")
    assert s.seats == (X, O) and rl.TrainSettings(mark="O").seats == (O,)
    phases = [s.opponent_at(k) for k in range(100)]
    assert phases[:10] == ["random"] * 10 and phases[10:50] == ["tactical"] * 40 and phases[50:] == ["self"] * 50
    assert rl.TrainSettings(opponent="self").opponent_at(5) == "self"
    for bad, message in (({"mark": "Z"}, "the mark must be one of X, O, both"),
                         ({"opponent": "perfect"}, "unknown opponent 'perfect'"),
                         ({"eval_opponent": "self"}, "unknown evaluation opponent 'self'")):
        with pytest.raises(ValueError, match=message):
            rl.TrainSettings(**bad)


def test_a_short_run_against_the_tactical_opponent_learns_in_both_seats():
    """2,000 seeded games against the tactical opponent, both seats: the learned agent wins clearly
    more often than the untrained one (the same network before training) in each seat, judged by
    Wilson intervals over 500 games per seat on the same seeds."""
    s = rl.TrainSettings(episodes=2000, report_every=2000, eval_games=0, seed=5, epsilon_decay=0.998)
    agent, curve = rl.run_training(s)
    fresh = rl.untrained_agent(s)
    for mark in ("X", "O"):
        learned = agent.evaluate(500, seed=1, mark=mark, opponent="tactical")
        before = fresh.evaluate(500, seed=1, mark=mark, opponent="tactical")
        assert learned.win_ci()[0] > before.win_ci()[1], (mark, learned.win, before.win)
        assert learned.win - before.win > 0.12


def test_every_opponent_and_method_trains_and_the_curve_carries_its_yardsticks():
    for method, approx in (("td", "mlp"), ("q", "quadratic"), ("td", "quadratic"), ("q", "mlp")):
        for opponent in ("tactical", "self", "curriculum"):
            s = rl.TrainSettings(method=method, approx=approx, hidden=8, episodes=20, report_every=10, eval_games=30,
                                 seed=2, opponent=opponent)
            agent, recs = rl.run_training(s)
            assert agent.episodes == 20 and [r.episodes for r in recs] == [0, 10, 20]
            for r in recs:
                assert set(r.seat_win) == {"X", "O"} and r.eval_opponent == "tactical"
                assert r.win == pytest.approx((r.seat_win["X"] + r.seat_win["O"]) / 2)
                assert set(r.baselines) == {"tactical", "untrained"}
            # the untrained baseline is the record at episode 0 (the same agent, the same games)
            assert recs[0].baselines["untrained"] == dict(recs[0].seat_win)
    # the tactical yardstick of a run is the tactical player on the run's evaluation games
    s = rl.TrainSettings(approx="linear", episodes=10, report_every=10, eval_games=200, seed=4, mark="O")
    _, recs = rl.run_training(s)
    want = rl.evaluate_seats("tactical", 200, seed=4, opponent="tactical", risk=np.zeros(27), marks=(O,))
    assert recs[-1].baselines["tactical"] == {"O": want["O"].win} and set(recs[-1].seat_win) == {"O"}


def test_old_agent_and_scenario_files_mean_the_random_opponent(tmp_path):
    s = rl.TrainSettings(approx="linear", opponent="random", eval_opponent="random", mark="X")
    agent = rl.untrained_agent(s)
    path = agent.save(tmp_path / "old.npz")
    # rewrite the metadata without the keys issue 30 added, as an agent file of the previous version
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["meta"]))
    for k in ("opponent", "eval_opponent"):
        del meta["settings"][k]
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(tmp_path / "legacy.npz", **arrays)
    loaded = rl.load_agent(tmp_path / "legacy.npz")
    assert loaded.settings.opponent == loaded.settings.eval_opponent == "random"
    # scenario entries: absent keys read as "random" and are left out again when written
    state = spec.Ttt3dSettings(settings=replace(spec.GUI_SETTINGS, opponent="random", eval_opponent="random"))
    data = spec.settings_to_dict(state)
    assert "opponent" not in data["settings"] and "eval_opponent" not in data["settings"]
    assert spec.settings_from_dict(data, "f.json") == state
    new = spec.Ttt3dSettings()
    data = spec.settings_to_dict(new)
    assert data["settings"]["opponent"] == "tactical" and spec.settings_from_dict(data, "f.json") == new
    assert asdict(spec.settings_from_dict({"settings": {}}, "f.json").settings)["opponent"] == "random"


def test_position_model_replies_tactically_and_plays_it_in_play_mode():
    model = spec.Ttt3dPositionModel(risk=np.zeros(27), side="X", reply="tactical")
    b = ttt3d.board("XX.OO....|.........|.........")
    pos = model.position(b, "O")  # O to move, played by the model: it wins on 5
    assert model.reply(pos, np.random.default_rng(0)) == 5
    probs = {m.action: m.prob for m in model.moves(pos)}
    assert probs[5] == 1.0 and sum(probs.values()) == pytest.approx(1.0)
    quiet = model.position(ttt3d.board("X" + "." * 26), "O")
    assert all(m.prob == pytest.approx(1 / 26) for m in model.moves(quiet))
    assert "tactical player" in model.describe(pos)
    play = spec.Ttt3dPositionModel(risk=np.zeros(27), side="X", reply="tactical", play=True)
    assert play.agent_move(play.position(b, "X"), None) == 2  # no agent needed: the scripted player moves


def _run(argv, capsys):
    rc = main(argv)
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    return cap.out


def test_eval_against_the_tactical_opponent_prints_the_yardsticks(tmp_path, capsys):
    out = tmp_path / "a.npz"
    rl.untrained_agent(rl.TrainSettings(approx="linear")).save(out)
    ev = json.loads(_run(["ttt3d", "eval", "--agent", str(out), "--opponent", "tactical", "--mark", "O",
                          "--games", "600", "--json"], capsys))
    assert ev["opponent"] == "tactical" and ev["mark"] == "O" and ev["episodes"] == 600
    tac = ttt3d.play_vs("tactical", opponent="tactical", mark="O", risk=np.zeros(27), games=600, seed=0)
    assert ev["baselines"]["tactical"]["wins"] == tac.wins
    # an untrained agent is its own untrained yardstick: the same games, the same result
    assert ev["baselines"]["untrained"]["wins"] == ev["wins"]
    text = _run(["ttt3d", "eval", "--agent", str(out), "--opponent", "tactical", "--mark", "O", "--games", "600"],
                capsys)
    assert "against the tactical opponent, 600 games" in text and f"tactical player win {tac.win:.4f}" in text
    text = _run(["ttt3d", "eval", "--agent", "tactical", "--opponent", "tactical", "--games", "600"], capsys)
    assert "the tactical player as X against the tactical opponent" in text
    for bad in ("perfect", "self"):  # self-play and the curriculum train; they are no yardstick to evaluate against
        rc = main(["ttt3d", "eval", "--agent", str(out), "--opponent", bad])
        cap = capsys.readouterr()
        assert rc == 2 and "invalid choice" in cap.err
