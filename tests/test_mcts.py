"""Monte Carlo tree search (UCT) on the compiled tables (issue 38), its nodes beside the exact values.

On tic-tac-toe against the random opponent (the agent moving first): from positions where one move wins or
blocks, 20,000 simulations play an exact best move; each root move's mean approaches its exact Q* as the
simulations grow (the error averaged over seeds and moves, 1,000 against 20,000); from the empty board the exact
best moves are the corners, about 2 points above the centre, and textbook UCT with random rollouts plays the
centre (its rollouts estimate the value under random play). The tree's bookkeeping (visits add up, each node's
exact value is V* or Q* of its position), minimax by the mover signs on a small two-player table, the command
line's JSON and its one-line errors."""
from __future__ import annotations

import json

import numpy as np
import pytest

from mdpviz.cli import main
from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.game import registry as games
from mdpviz.models.kit.game.game_model import Game
from mdpviz.models.ttt.rules import TicTacToeSettings, VsRandomSettings
from mdpviz.solvers import solve
from mdpviz.solvers.mcts import MOVE, POSITION, root_moves, tree_search
from mdpviz.solvers.sweep import optimal_rows


@pytest.fixture(scope="module")
def ttt():
    """(game model, V*) of tic-tac-toe against the random opponent, the agent first, default rewards
    (win 500, draw 0, loss -3500, discount 0.9)."""
    g = Game(games.get("ttt"), TicTacToeSettings(settings=VsRandomSettings(first="agent")))
    gm = g.model()
    return gm, solve(gm.mdp, "pi").values


def search(mdp, s, v, n, seed=0, c=None):
    gen = tree_search(mdp, s, exact=v, seed=seed, **({} if c is None else {"c": c}))
    tree = next(gen)
    return gen.send(n - 1) if n > 1 else tree


def marks(label: str) -> int:
    return sum(ch in "XO" for ch in label)


def test_one_move_wins_or_blocks_and_20000_simulations_find_it(ttt):
    """Positions read off the table: a win (exactly one move whose every outcome is the WIN end, the only exact
    best move) or a block (no move wins, and every move but one lets the random opponent win at once with some
    reply, that one exact best). Two of each, drawn with a fixed seed, searched 20,000 simulations each."""
    gm, v = ttt
    mdp = gm.mdp
    labels = gm.state_labels()
    win_end, loss_end = labels.index("WIN"), labels.index("LOSS")
    opt = optimal_rows(mdp, mdp.q_values(v))

    def ends(row: int) -> set[int]:
        t0, t1 = int(mdp.row_ptr[row]), int(mdp.row_ptr[row + 1])
        return set(np.asarray(mdp.dst[t0:t1])[np.asarray(mdp.prob[t0:t1]) > 0].tolist())

    wins, blocks = [], []
    for s in range(mdp.n_states):
        r0, r1 = int(mdp.state_ptr[s]), int(mdp.state_ptr[s + 1])
        if mdp.terminal[s] or r1 - r0 < 3:
            continue
        winning = [r for r in range(r0, r1) if ends(r) == {win_end}]
        safe = [r for r in range(r0, r1) if loss_end not in ends(r)]
        if len(winning) == 1 and opt[r0:r1].sum() == 1 and opt[winning[0]]:
            wins.append(s)
        elif not winning and len(safe) == 1 and opt[r0:r1].sum() == 1 and opt[safe[0]]:
            blocks.append(s)
    assert len(wins) > 100 and len(blocks) > 100
    rng = np.random.default_rng(38)
    for s in [*rng.choice(wins, 2, replace=False), *rng.choice(blocks, 2, replace=False)]:
        tree = search(mdp, int(s), v, 20_000, seed=int(s))
        moves = {m.action: m for m in root_moves(tree, mdp)}
        assert moves[tree.best_move()].optimal, (labels[s], [(m.action, m.visits, m.exact) for m in moves.values()])


def test_each_move_mean_approaches_its_exact_value(ttt):
    gm, v = ttt
    mdp = gm.mdp
    labels = gm.state_labels()
    # two positions four marks in (the agent to move), with their five moves to search
    three = [s for s, lab in enumerate(labels) if marks(lab) == 4 and not mdp.terminal[s]
             and mdp.actions_per_state[s] >= 5]
    pick = [three[0], three[len(three) // 2]]
    err = {}
    for n in (1_000, 20_000):
        e = [np.mean([abs(m.mean - m.exact) for m in root_moves(search(mdp, s, v, n, seed=seed), mdp)])
             for s in pick for seed in (1, 2)]
        err[n] = float(np.mean(e))
    assert err[20_000] < 0.75 * err[1_000], err


def test_empty_board_corners_beat_the_centre_but_uct_plays_the_centre(ttt):
    gm, v = ttt
    mdp = gm.mdp
    s = gm.start_state()
    assert gm.state_labels()[s] == "........."
    tree = search(mdp, s, v, 20_000, seed=3)
    moves = {gm.action_label(s, m.action): m for m in root_moves(tree, mdp)}
    corners = [moves[f"cell {i}"] for i in (0, 2, 6, 8)]
    centre = moves["cell 4"]
    assert all(m.optimal for m in corners) and sum(m.optimal for m in moves.values()) == 4
    gap = corners[0].exact - centre.exact
    assert gap == pytest.approx(2.278, abs=0.01)  # "about 2 points" (win 500, loss -3500, discount 0.9)
    assert gm.action_label(s, tree.best_move()) == "cell 4"  # UCT with random rollouts: the centre
    assert centre.visits > 3 * max(m.visits for m in corners)
    assert all(centre.mean > m.mean for m in corners)  # the rollouts' means order the moves as random play does
    assert all(m.mean < m.exact - 300 for m in corners)  # far below their exact values


def test_tree_bookkeeping(ttt):
    gm, v = ttt
    mdp = gm.mdp
    s = gm.start_state()
    q = mdp.q_values(v)
    gen = tree_search(mdp, s, exact=v, seed=5)
    first = next(gen)
    assert first.simulations == 1 and first.selection == (0,) and len(first.expanded) == 2
    move, pos = first.expanded
    assert first.kind[move] == MOVE and first.kind[pos] == POSITION and first.parent[pos] == move
    assert first.rollout[0] == first.state[pos] and mdp.terminal[first.rollout[-1]]
    assert [name for name, _ in first.phases] == ["selection", "expansion", "rollout", "backup"]
    steps = [next(gen) for _ in range(30)]
    assert [t.simulations for t in steps] == list(range(2, 32))
    tree = gen.send(3000)
    assert tree.simulations == 3031
    assert tree.visits[0] == tree.simulations
    for node in range(tree.n_nodes):
        kids = tree.children(node)
        if tree.kind[node] == MOVE:
            assert tree.visits[node] == tree.visits[kids].sum()  # every simulation through a move reaches an outcome
            assert tree.exact[node] == pytest.approx(q[tree.row[node]])
        else:
            assert tree.exact[node] == pytest.approx(v[tree.state[node]])
            if node == 0:
                assert tree.visits[0] == tree.visits[kids].sum()
    # the root's mean is its moves' returns pooled
    kids = tree.children(0)
    assert tree.mean[0] == pytest.approx(np.sum(tree.mean[kids] * tree.visits[kids]) / tree.visits[0])
    assert not tree.visits.flags.writeable and not tree.mean.flags.writeable


@pytest.mark.parametrize("root_mover", [1, -1])
def test_minimax_by_the_mover_signs(root_mover):
    """Root (max) -> A: the minimiser then picks +10 or -1 (minimax -1, random mean 4.5); -> B: 0 or 0 (0).
    Random play prefers A; minimax prefers B; UCT's selection at the minimiser's node finds B. The same with
    every sign flipped (a minimiser at the root)."""
    src = [0, 0, 1, 1, 2, 2]
    act = [0, 1, 0, 1, 0, 1]
    dst = [1, 2, 3, 4, 5, 6]
    rew = [root_mover * r for r in (0, 0, 10, -1, 0, 0)]
    mdp = TabularMDP.from_transitions(7, 2, src, act, dst, [1.0] * 6, rew, discount=1.0, terminal=[3, 4, 5, 6],
                                      mover=[root_mover, -root_mover, -root_mover, 1, 1, 1, 1])
    v = solve(mdp, "pi").values
    assert v[0] == 0.0 and v[1] == -root_mover
    tree = search(mdp, 0, v, 2000, seed=0)
    assert tree.best_move() == 1
    a_node = next(k for k in tree.children(0) if tree.action[k] == 0)
    assert root_mover * tree.mean[a_node] < 0  # the replies of the player after the root, not their average
    moves = root_moves(tree, mdp)
    assert [m.optimal for m in moves] == [False, True]


def test_bad_options_are_one_line(ttt):
    gm, v = ttt
    mdp = gm.mdp
    term = int(np.flatnonzero(mdp.terminal)[0])
    for kwargs, word in (({"c": -1.0}, "c must"), ({"simulations": 0}, "simulations"), ({"seed": 0, "c": float("nan")}, "c must")):
        with pytest.raises(ValueError, match=word):
            tree_search(mdp, 0, exact=v, **kwargs)
    with pytest.raises(ValueError, match="position"):
        tree_search(mdp, term, exact=v)
    with pytest.raises(ValueError, match="position"):
        tree_search(mdp, mdp.n_states, exact=v)


def test_command_json(capsys):
    argv = ["mcts", "--game", "ttt", "--first", "agent", "--simulations", "3000", "--seed", "2", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["position"] == "........." and out["simulations"] == 3000 and len(out["children"]) == 9
    assert out["exact_best_moves"] == ["cell 0", "cell 2", "cell 6", "cell 8"]
    assert out["best_move"] in {c["move"] for c in out["children"]}
    assert sum(c["visits"] for c in out["children"]) == 3000
    assert max(out["children"], key=lambda c: c["visits"])["move"] == out["best_move"]
    assert main(argv) == 0 and json.loads(capsys.readouterr().out)["children"] == out["children"]  # same seed
    assert main(["mcts", "--game", "ttt", "--first", "agent", "--position", "XOX.O....", "--simulations", "200"]) == 0
    assert "exact best" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["--simulations", "0"], "--simulations"),
    (["--simulations", "1000001"], "at most 1,000,000"),  # (the tree's memory grows with its simulations)
    (["--simulations", "10", "--c", "-1"], "--c"),
    (["--simulations", "10", "--position", "nope"], "--position"),
    (["--simulations", "10", "--seed", "-3"], "--seed"),
    (["--simulations", "10", "--position", "WIN"], "end of the game"),
    ([], "--simulations"),
])
def test_command_bad_options_exit_2_in_one_line(capsys, argv, message):
    assert main(["mcts", "--game", "ttt", "--first", "agent", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_the_tree_view_shows_the_root_its_moves_and_the_best_visited_lines(ttt):
    from mdpviz.models.kit.pictures.search_tree import phase_text, tree_view

    gm, v = ttt
    mdp = gm.mdp
    s = gm.start_state()
    tree = search(mdp, s, v, 2000, seed=4)
    best = {m.action for m in root_moves(tree, mdp) if m.optimal}
    nodes = tree_view(tree, lambda st, a: gm.action_label(st, a), best, lines=3, depth=3)
    assert nodes[0].node == 0 and nodes[0].level == 0 and nodes[0].size == 1.0
    level1 = [n for n in nodes if n.level == 1]
    assert [n.node for n in level1] == list(tree.move_nodes())  # every tried move of the root, by action
    assert [n.x for n in level1] == sorted(n.x for n in level1)
    assert {n.label for n in level1 if n.best} == {"cell 0", "cell 2", "cell 6", "cell 8"}
    assert [n.label for n in level1 if n.chosen] == [gm.action_label(s, tree.best_move())]
    lines = {n.line for n in nodes if n.level > 1}
    assert lines == {0, 1, 2}
    head = nodes[[n.line for n in nodes].index(0)].parent
    assert nodes[head].visits == max(n.visits for n in level1)  # line 0 hangs below the most visited move
    for n in nodes[1:]:
        parent = nodes[n.parent]
        assert n.visits <= parent.visits and n.exact == pytest.approx(tree.exact[n.node])
        if n.level > 1:  # a line's move is the most visited move of its parent's most visited outcome
            outcome = tree.parent[n.node]
            assert tree.parent[outcome] == parent.node
            siblings = tree.children(outcome)
            assert tree.visits[n.node] == tree.visits[siblings].max()
    assert phase_text(tree, lambda st, a: gm.action_label(st, a)).startswith("simulation 2,000: 1 selection")
