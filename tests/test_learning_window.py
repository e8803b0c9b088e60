"""Learning from experience in the window (issue 25 item 4): the learners in the algorithm picker,
the board's learned / exact / error / visits views, the learning curves, the inspector, Reset, and
every table game learning a few episodes."""
from __future__ import annotations

import numpy as np
import pytest

from mdpviz.models.kit.game import registry
from mdpviz.solvers.learning import LearningStep, learner
from mdpviz.window.learning import MODE_WORDS, exact_policy, last_update, learning_view
from tests.conftest import make_window


def choose(w, method: str) -> None:
    p = w.solver_panel
    p.algorithm.setCurrentIndex(p.algorithm.findData(method))
    assert w.controller.method == method


def step_episodes(qtbot, w, k: int) -> None:
    for _ in range(k):
        n = len(w.controller.history)
        w.solver_panel.step.click()
        qtbot.waitUntil(lambda: len(w.controller.history) > n and w.controller.state != "stepping", timeout=20_000)
    w.solving.redraw()


@pytest.fixture
def grid(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path / "settings.ini", game="gridworld")
    yield w
    w.shutdown()


def board_values(w) -> np.ndarray:
    return np.asarray(w.board.sweep.values)


def test_q_learning_steps_update_board_and_curves(qtbot, grid):
    w = grid
    p = w.solver_panel
    assert p.algorithm.findData("q") > p.algorithm.findData("lp")  # the learners come after the solvers
    choose(w, "q")
    assert p.learning.isVisibleTo(p)
    assert w.conv_stack.currentWidget() is w.learning.learning_curves
    step_episodes(qtbot, w, 3)
    c = w.controller
    assert [s.episode for s in c.history] == [1, 2, 3]
    assert all(isinstance(s, LearningStep) for s in c.history)
    last = c.history[-1]
    # the board shows the learned values of the newest episode (they moved away from the initial 0)
    assert np.allclose(board_values(w), last.values)
    assert np.any(last.values[~c.mdp.terminal] != 0.0)
    # the same numbers as the headless learner with the same options
    ref = list(learner(c.mdp, "q", **{**c.options, "episodes": 3}))
    assert np.array_equal(ref[-1].q, last.q)
    # the curves got one point per episode, and the exact expected return from the start
    assert w.learning.learning_curves.point_count == 3
    cur = w.learning.learning_curves.curves()
    assert np.allclose(cur["rms"], [s.rms_error for s in c.history])
    start = int(c.options["start"])
    assert w.learning.learning_curves.exact_return == pytest.approx(last.exact.values[start])
    # the history slider scrubs back over episodes
    p.history.setValue(0)
    w.solving.redraw()
    assert np.allclose(board_values(w), c.history[0].values)


def test_board_modes(qtbot, grid):
    w = grid
    choose(w, "q")
    step_episodes(qtbot, w, 2)
    st = w.controller.history[-1]
    mdp = w.controller.mdp
    expect = {"learned": st.values, "exact": st.exact.values, "error": st.values - st.exact.values,
              "visits": st.visits.astype(float)}
    for mode, values in expect.items():
        w.solver_panel.learning.set_mode(mode)
        w.solving.redraw()
        got = board_values(w)
        live = ~mdp.terminal
        assert np.allclose(got[live], np.asarray(values, float)[live]), mode
        assert MODE_WORDS[mode] in w.board.canvas.caption
    # learned and exact colour on the same scale: the exact answer's
    w.solver_panel.learning.set_mode("learned")
    w.solving.redraw()
    assert w.board.scale == w.solving.scale


def test_learning_view_marks_the_states_whose_action_is_not_optimal(qtbot, grid):
    w = grid
    choose(w, "q")
    step_episodes(qtbot, w, 1)
    st = w.controller.history[-1]
    mdp = w.controller.mdp
    shown, ref = learning_view(st, mdp, "learned")
    differs = st.differs(mdp)
    assert differs.any()  # one episode does not learn the optimal policy everywhere
    assert np.array_equal(np.flatnonzero(np.asarray(shown.policy) != np.asarray(ref.policy)), np.flatnonzero(differs))
    ex = exact_policy(mdp, st)
    live = np.flatnonzero(~mdp.terminal)
    assert all(st.exact.optimal[mdp.row_of(int(s), int(ex[s]))] for s in live)


def test_inspector_writes_the_last_update_and_a_state(qtbot, grid):
    w = grid
    choose(w, "q")
    step_episodes(qtbot, w, 4)
    c = w.controller
    st, prev = c.history[-1], c.history[-2]
    s = int(st.path[-2])
    w.solving.inspect(s)
    w.solving.redraw()
    text = w.inspector.text.toPlainText()
    assert f"episode {st.episode}" in text
    upd, _ = last_update(prev, st, c.mdp, (0.1, 0.0))
    if upd is not None:  # written as the update rule with its numbers, ending at the learned value
        assert "<-" in text and f"= {upd.new:.4g}" in text
        assert upd.new == pytest.approx(upd.old + upd.alpha * (upd.target - upd.old))
        row = c.mdp.row_of(upd.state, st.actions[-1])
        assert upd.new == pytest.approx(st.q[row])
    # the clicked state's learned and exact Q per action, and its visits
    assert f"visited {int(st.visits[s]):,} time" in text
    for r in range(int(c.mdp.state_ptr[s]), int(c.mdp.state_ptr[s + 1])):
        assert f"{st.q[r]:.4g}" in text and f"{st.exact.q[r]:.4g}" in text


def test_reset_forgets_the_episodes(qtbot, grid):
    w = grid
    choose(w, "sarsa")
    step_episodes(qtbot, w, 2)
    assert w.learning.learning_curves.point_count == 2
    w.solver_panel.reset.click()
    w.solving.redraw()
    assert w.controller.history == [] and w.controller.method == "sarsa"
    assert w.learning.learning_curves.point_count == 0
    assert w.board.sweep is None
    # back to a solver: the convergence plot again
    choose(w, "vi")
    assert w.conv_stack.currentWidget() is not w.learning.learning_curves
    assert not w.solver_panel.learning.isVisibleTo(w.solver_panel)


def test_run_to_the_set_episodes(qtbot, grid):
    w = grid
    choose(w, "q")
    w.solver_panel.learning.episodes.setValue(300)
    with qtbot.waitSignal(w.controller.finished, timeout=60_000):
        w.solver_panel.run.click()
    w.solving.redraw()
    h = w.controller.history
    assert h[-1].episode == 300 and h[-1].done
    assert w.learning.learning_curves.point_count == len(h)
    assert h[-2].episode == 299  # the last episode is its own snapshot: its last update is written out
    assert " <- " in w.inspector.text.toPlainText()
    assert sum(len(s.returns) for s in h) == 300  # every episode's return is on the curve


TABLE_GAMES = [s.key for s in registry.specs() if not s.no_table]


@pytest.mark.parametrize("key", TABLE_GAMES)
def test_every_table_game_learns_in_the_window(qtbot, tmp_path, small_file, key):
    w = make_window(qtbot, tmp_path / "settings.ini", game=key)
    try:
        if key == "file":  # the file game's model is a file: a small one in the course format
            w.files.open_mdp_file(small_file)
        # (a game that compiles its model in a job, checkers, has it a moment later)
        qtbot.waitUntil(lambda: w.session.mdp() is not None and w.controller.mdp is w.session.mdp(), timeout=180_000)
        choose(w, "q")
        w.solver_panel.learning.max_steps.setValue(200)
        step_episodes(qtbot, w, 3)
        assert [s.episode for s in w.controller.history] == [1, 2, 3], w.controller.error
        assert w.learning.learning_curves.point_count == 3
        st = w.controller.history[-1]
        assert np.any(st.visits > 0) and st.values.shape == (w.controller.mdp.n_states,)
        assert "episode 3" in w.solver_panel.status.text()
    finally:
        w.shutdown()


def test_curves_moving_average():
    from mdpviz.widgets.learning import moving_average

    assert np.allclose(moving_average(np.array([1.0, 3.0, 5.0, 7.0]), 2), [1.0, 2.0, 4.0, 6.0])


def test_lesson_tab_follows_the_picker(qtbot, grid):
    w = grid
    choose(w, "sarsa")
    w.classroom.update_lesson()
    lesson = w.classroom.lesson_panel.lesson
    assert lesson is not None and lesson.title == "Grid world: learning by SARSA"
    assert any("Learning from experience" in b.text for b in lesson.intro)
    choose(w, "vi")
    w.classroom.update_lesson()
    assert "learning by" not in w.classroom.lesson_panel.lesson.title


def test_prediction_shows_values_without_a_policy(qtbot, grid):
    w = grid
    choose(w, "td0")
    assert not w.solver_panel.learning.epsilon.isEnabled() and w.solver_panel.learning.policy.isEnabled()
    step_episodes(qtbot, w, 2)
    st = w.controller.history[-1]
    assert st.policy is None and st.q is None
    assert np.all(np.asarray(w.board.sweep.policy) == -1)  # no arrows: prediction learns V of a given policy
    assert np.allclose(board_values(w), st.values)
    w.solving.inspect(int(st.path[0]))
    w.solving.redraw()
    assert "V(" in w.inspector.text.toPlainText() or "moved" in w.inspector.text.toPlainText()


def test_bad_step_size_is_refused_with_one_line(qtbot, grid):
    w = grid
    choose(w, "q")
    msgs = []
    w.solver_panel.learning.invalid_input.connect(msgs.append)
    w.solver_panel.learning.alpha.setText("2")
    w.solver_panel.learning.alpha.editingFinished.emit()
    assert msgs and "step size" in msgs[0]
    assert "alpha" not in w.controller.options
    w.solver_panel.learning.alpha.setText("1/n^0.8")
    w.solver_panel.learning.alpha.editingFinished.emit()
    assert w.controller.options["alpha"] == 1.0 and w.controller.options["alpha_power"] == 0.8


def test_step_one_transition_at_a_time(qtbot, grid):
    w = grid
    choose(w, "q")
    step_episodes(qtbot, w, 2)  # two whole episodes first
    w.solver_panel.learning.unit.setCurrentIndex(w.solver_panel.learning.unit.findData("transition"))
    c = w.controller
    n = len(c.history)
    w.solver_panel.step.click()  # the third episode, shown from its first transition
    qtbot.waitUntil(lambda: len(c.history) > n and c.state != "stepping", timeout=20_000)
    w.solving.redraw()
    st, prev = c.history[-1], c.history[-2]
    mdp = c.mdp
    row = mdp.row_of(int(st.path[0]), int(st.actions[0]))
    shown = w.learning.transition_view()
    assert shown is not None and shown[2] == 1 and shown[3] == len(st.actions)
    after_one = shown[0]
    # one update made: only the first transition's Q moved from the episode before
    moved = np.flatnonzero(after_one.q != prev.q)
    assert set(moved.tolist()) <= {row}
    upd = shown[1]
    assert upd.old == prev.q[row] and upd.new == after_one.q[row]
    assert "transition 1 of" in w.board.canvas.caption
    assert w.board.canvas.token == int(st.path[1])
    text = w.inspector.text.toPlainText()
    assert "transition 1 of" in text and f"= {upd.new:.4g}" in text
    # stepping through the rest of the episode ends on the episode's own numbers, no new episode
    for _ in range(len(st.actions) - 1):
        w.solver_panel.step.click()
    w.solving.redraw()
    assert len(c.history) == n + 1
    last = w.learning.transition_view()
    assert last[2] == last[3] and np.array_equal(last[0].q, st.q) and np.array_equal(last[0].visits, st.visits)
    assert np.allclose(board_values(w), st.values)
    # one more Step: the next episode
    w.solver_panel.step.click()
    qtbot.waitUntil(lambda: len(c.history) > n + 1 and c.state != "stepping", timeout=20_000)
    w.solving.redraw()
    assert w.learning.transition_view()[2] == 1


def test_merged_snapshots_have_the_same_numbers():
    """A Run at full speed asks for many episodes per snapshot (send); Step for one (next): the same numbers."""
    from mdpviz.models.kit.game.game_model import build_game
    from mdpviz.solvers.learning import learning_batches

    g = build_game("gridworld")
    opts = dict(episodes=300, start=g.start_state(), seed=5)
    plain = list(learner(g.mdp, "q", **opts))
    gen = learning_batches(learner(g.mdp, "q", **opts), min_batch=40, episodes=300)
    got = [next(gen)]
    while True:
        try:
            got.append(gen.send(1 << 30))
        except StopIteration:
            break
    assert got[0].episode == 1 and got[-1].episode == 300 and got[-1].done
    assert got[-2].episode == 299  # the last episode is a snapshot of its own
    assert all(b.episode - a.episode >= 40 for a, b in zip(got[:-2], got[1:-1]))  # at least min_batch each
    assert np.array_equal(got[-1].q, plain[-1].q)
    assert [r for s in got for r in s.returns] == [s.ret for s in plain]
    by_episode = {s.episode: s for s in plain}
    for s in got:
        assert np.array_equal(s.q, by_episode[s.episode].q) and s.rms_error == by_episode[s.episode].rms_error


@pytest.mark.parametrize("key", ["gridworld", "snakes", "ttt"])
@pytest.mark.parametrize("method", ["q", "sarsa", "expected-sarsa", "td0"])
@pytest.mark.parametrize("alpha", [(0.1, 0.0), (1.0, 0.8)])
def test_replayed_transitions_end_on_the_learners_numbers(key, method, alpha):
    """One transition at a time (the window's transition Step) by the loop's own update functions: after
    the last transition the table is the compiled learner's snapshot, episode after episode (bit for bit
    with a constant step size; 1/N^w within the last bit of numba's power function)."""
    from mdpviz.models.kit.game.game_model import build_game
    from mdpviz.solvers.learning import LearningSettings, replay_episode

    g = build_game(key)
    opts = dict(episodes=12, start=g.start_state(), max_steps=400, epsilon=0.3, alpha=alpha[0], alpha_power=alpha[1],
                seed=3)
    steps = list(learner(g.mdp, method, **opts))
    st = LearningSettings(method=method, **opts)
    for i, step in enumerate(steps):
        rep = replay_episode(g.mdp, steps[i - 1] if i else None, step, st)
        assert rep is not None and len(rep) == len(step.actions)
        want = step.q if step.q is not None else step.values
        if alpha[1] == 0.0:
            assert np.array_equal(rep[-1][0], want)
        else:
            assert np.allclose(rep[-1][0], want, rtol=1e-12, atol=1e-12)
        for table, upd in rep:  # each update as the textbook writes it
            assert upd.new == pytest.approx(upd.old + upd.alpha * (upd.target - upd.old))
    assert replay_episode(g.mdp, None, steps[0], LearningSettings(method="mc", **opts)) is None


def test_replaying_episodes_builds_the_models_arrays_once(monkeypatch):
    """Issue 35 item 8: the window replays the shown episode in every frame of a Run; the model's
    simulator arrays are built once per model, not per replay (15-30 ms a frame on checkers)."""
    from mdpviz.models.kit.game.game_model import build_game
    from mdpviz.solvers import learning as lmod

    g = build_game("gridworld")
    opts = dict(episodes=4, start=g.start_state(), max_steps=200, epsilon=0.3, seed=1)
    steps = list(learner(g.mdp, "q", **opts))
    built: list = []
    real = lmod.model_arrays
    monkeypatch.setattr(lmod, "model_arrays", lambda mdp: built.append(mdp) or real(mdp))
    monkeypatch.setattr(lmod, "_REPLAY_ARRAYS", [None, None])
    st = lmod.LearningSettings(method="q", **opts)
    for i, step in enumerate(steps):
        assert lmod.replay_episode(g.mdp, steps[i - 1] if i else None, step, st) is not None
    assert built == [g.mdp]
