"""``mdpviz bench approx``: the speed of learning with linear function approximation (issue 36).

On the 1000-state random walk (Sutton and Barto Example 9.1, built here: start in the middle, jumps of
1..100 left or right, -1 and +1 at the ends, discount 1), semi-gradient TD(0) of the random walk's only
policy is timed in updates per second and set beside two references timed in the same run:

* state aggregation (10 groups of 100, figure 9.1's features): the compiled approximation loop against
  :func:`mdpviz.solvers.approx_loop.plain_semi_td`, the same semi-gradient TD(0) as a plain Python loop over
  lists with ``random.random()`` (what a student writes; the issue's "plain-Python list-based loop");
* one-hot ("tabular") features: the compiled approximation loop against the tabular learners' compiled loop
  running its twin, TD(0), on the same model (what the features cost).

The ratio is what counts on a shared machine: ``uptime``'s load and the CPU are printed before and after.
Nothing here is a test: the tests never depend on timing.
"""
from __future__ import annotations

import time

import numpy as np


WALK_STATES = 1000
"""Non-terminal states of the bench's random walk."""
WALK_JUMP = 100
"""Its largest jump."""
TARGET_PLAIN_RATIO = 20.0
"""The compiled loop against the plain Python one, as the tabular loop's bench asks."""
TARGET_TABULAR_SHARE = 0.5
"""The approximation loop with one-hot features against the tabular loop: at least this share of its speed."""


def random_walk(n: int = WALK_STATES, jump: int = WALK_JUMP):
    """Example 9.1's random walk: state 0 the left end (terminal, reward -1 on reaching it), 1..n the walk,
    n + 1 the right end (terminal, +1); from s a jump of 1..``jump`` left or right, each 1 / (2 jump), a jump
    past an end landing on that end. One action; discount 1. ``(mdp, start)`` with start n // 2."""
    from mdpviz.core.mdp import TabularMDP

    src, dst, prob, rew = [], [], [], []
    p = 1.0 / (2 * jump)
    for s in range(1, n + 1):
        to: dict[int, float] = {}
        for k in range(1, jump + 1):
            for t in (max(0, s - k), min(n + 1, s + k)):
                to[t] = to.get(t, 0.0) + p
        for t, q in sorted(to.items()):
            src.append(s), dst.append(t), prob.append(q)
            rew.append(-1.0 if t == 0 else 1.0 if t == n + 1 else 0.0)
    mdp = TabularMDP.from_transitions(n + 2, 1, src, [0] * len(src), dst, prob, rew, discount=1.0,
                                      terminal=[0, n + 1])
    return mdp, n // 2


def _ids() -> tuple[str, str]:
    """(semi-gradient TD(0)'s id, its tabular twin's id), read from the registry by loop code."""
    from mdpviz.solvers import approx_loop, registry
    from mdpviz.solvers.approximation import tabular_twin

    semi = registry.ids_where("approximation", code=approx_loop.SEMI_TD)[0]
    return semi, tabular_twin(semi)


def _loop_rate(make, seconds: float) -> tuple[float, int]:
    """Updates per second of ``make(episodes)`` (a learner's generator, one snapshot): its learning seconds
    only, doubling the episodes until they last ``seconds``."""
    episodes = 10
    while True:
        gen = make(episodes)
        step = next(gen)
        gen.close()
        dt = max(step.learning_seconds, 1e-9)
        if dt >= seconds or episodes >= 10_000_000:
            return step.updates / dt, step.updates
        episodes *= 2 if dt > seconds / 8 else 4


def _plain_rate(mdp, start: int, X: np.ndarray, pi: np.ndarray, seconds: float) -> tuple[float, int]:
    from mdpviz.solvers.approx_loop import plain_semi_td
    from mdpviz.solvers.approximation import default_alpha, model_arrays

    arr = model_arrays(mdp)
    rows = [[(int(i), float(X[s, i])) for i in np.flatnonzero(X[s])] for s in range(mdp.n_states)]
    kw = dict(state_ptr=arr["state_ptr"].tolist(), row_ptr=arr["row_ptr"].tolist(), dst=arr["dst"].tolist(),
              cum=arr["cum"].tolist(), reward=arr["reward"].tolist(), terminal=arr["terminal"].tolist(),
              pi=pi.tolist(), gamma=float(mdp.discount), start=start, alpha=default_alpha(X), max_steps=1000)
    episodes = 10
    while True:
        t = time.perf_counter()
        n = plain_semi_td(rows, episodes=episodes, **kw)
        dt = time.perf_counter() - t
        if dt >= seconds or episodes >= 10_000_000:
            return n / dt, n
        episodes *= 2 if dt > seconds / 8 else 4


def rows_approx(tab, *, seconds: float = 1.0, repeat: int = 2) -> list[dict]:
    """The rows of issue 36: semi-gradient TD(0) on the 1000-state walk, compiled, against the plain Python
    loop (aggregation) and against the tabular loop's TD(0) (one-hot features); each the best of ``repeat``."""
    from mdpviz.solvers.approximation import approx_learner, compiled_loop, prepare_loop
    from mdpviz.solvers.features import feature_matrix
    from mdpviz.solvers.fixed_points import approximation_answer
    from mdpviz.solvers.learning import LearningSettings, exact_answer, learner

    semi, twin = _ids()
    mdp, start = random_walk()
    if compiled_loop() is None:
        tab.add("approximation loop, compiled", "unavailable (numba)", "-", None, f">= {TARGET_PLAIN_RATIO:g}x", False)
        return []
    t = time.perf_counter()
    prepare_loop()
    compile_s = time.perf_counter() - t
    exact = exact_answer(mdp, LearningSettings(method=twin))
    pi = np.asarray(exact.policy_rows, dtype=np.float64)
    out = []
    for spec in ("aggregate:10", "tabular"):
        X = feature_matrix(spec, mdp)
        answer = approximation_answer(mdp, X, pi, start=start, v=exact.values)

        def make(episodes: int, X=X, answer=answer):
            return approx_learner(mdp, semi, X=X, features=spec, answer=answer, exact=exact, episodes=episodes,
                                  batch=episodes, start=start, seed=1, compiled=True)

        make(1).close()
        rate, n = max(_loop_rate(make, seconds) for _ in range(repeat))
        what = f"{semi} (semi-gradient TD(0)), {spec} ({X.shape[1]} features), {WALK_STATES}-state walk"
        if spec == "tabular":
            def tab_make(episodes: int):
                return learner(mdp, twin, exact=exact, episodes=episodes, batch=episodes, start=start, seed=1,
                               alpha=0.1, eval_every=0, compiled=True)

            ref, n_ref = max(_loop_rate(tab_make, seconds) for _ in range(repeat))
            tab.add(f"{what}: compiled, {n:,} updates (best of {repeat})", f"{rate / 1e6:.2f} M updates/s",
                    f"the tabular loop's {twin} {ref / 1e6:.2f} M updates/s ({n_ref:,} updates)", rate / ref,
                    f">= {TARGET_TABULAR_SHARE:g}x", rate / ref >= TARGET_TABULAR_SHARE)
        else:
            ref, n_ref = max(_plain_rate(mdp, start, X, pi, seconds) for _ in range(repeat))
            tab.add(f"{what}: compiled, {n:,} updates (best of {repeat})", f"{rate / 1e6:.2f} M updates/s",
                    f"plain Python loop (lists, random.random()) {ref / 1e3:.0f} k updates/s ({n_ref:,} updates)",
                    rate / ref, f">= {TARGET_PLAIN_RATIO:g}x", rate / ref >= TARGET_PLAIN_RATIO)
        out.append({"features": spec, "rate": rate, "updates": n, "reference_rate": ref})
    print(f"  (the approximation loop compiled or loaded from numba's cache in {compile_s:.2f} s, not timed)",
          flush=True)
    return out


def bench(argv: list[str]) -> int:
    """Semi-gradient TD(0) on the 1000-state random walk, compiled, against a plain Python loop of the same
    update (aggregation) and against the tabular loop's TD(0) (one-hot features), in the same run."""
    from mdpviz.commands.bench_table import timed_rows_bench

    return timed_rows_bench("mdpviz bench approx", bench.__doc__, rows_approx, argv)


__all__ = ["bench", "random_walk", "rows_approx"]
