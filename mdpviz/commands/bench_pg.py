"""``mdpviz bench pg``: the speed of the policy-gradient learners (issue 37).

REINFORCE (Sutton and Barto 13.3) on the short corridor (Example 13.1) with the book's features, from the book's
start (p(right) = 0.05), and on the grid world with tabular features from the uniform policy, with alpha_theta =
2^-12, timed in updates (steps learned from) per second, compiled,
beside :func:`mdpviz.solvers.pg_loop.plain_reinforce`, the same update as a plain Python loop over lists with
``random.random()`` (what a student writes), timed in the same run.

The ratio is what counts on a shared machine: ``uptime``'s load and the CPU are printed before and after.
Nothing here is a test: the tests never depend on timing.
"""
from __future__ import annotations

import time

import numpy as np


TARGET_PLAIN_RATIO = 20.0
"""The compiled loop against the plain Python one, as the other loops' benches ask."""
ALPHA_THETA = 2.0 ** -12
"""The book's step size of figure 13.1."""
GAMES = ("corridor", "gridworld")
"""The games timed: the short corridor (2 features, 2 actions) and the grid world (tabular: 4 actions)."""


def _case(key: str):
    """``(title, mdp, Xsa, theta0, start)`` of a game: the corridor with its book features and start (p(right) =
    0.05), the grid world with tabular features from theta = 0 (the uniform policy)."""
    from mdpviz.models.kit.game import registry as games
    from mdpviz.solvers.policy_gradient import build_features

    spec = games.get(key)
    settings = spec.default_settings()
    mdp = spec.compile(settings)
    start = int(np.flatnonzero(~np.asarray(mdp.terminal))[0])
    if spec.model.action_features is not None:
        Xsa = np.asarray(spec.model.action_features(settings, mdp), dtype=np.float64)
        return (f"{spec.title}, the game's features", mdp, Xsa,
                np.asarray(spec.model.initial_weights(settings, mdp), dtype=np.float64), start)
    Xsa = np.asarray(build_features(mdp, "tabular", critic=False)[1])
    return f"{spec.title}, tabular features", mdp, Xsa, np.zeros(Xsa.shape[1]), start


def _reinforce() -> str:
    from mdpviz.solvers import pg_loop, registry
    from mdpviz.solvers.policy_gradient import KIND

    return registry.ids_where(KIND, code=pg_loop.REINFORCE)[0]


def _timed(run, seconds: float) -> tuple[float, int]:
    """Updates per second of ``run(episodes) -> (updates, seconds)``, doubling the episodes until they last
    ``seconds``."""
    episodes = 10
    while True:
        n, dt = run(episodes)
        dt = max(dt, 1e-9)
        if dt >= seconds or episodes >= 10_000_000:
            return n / dt, n
        episodes *= 2 if dt > seconds / 8 else 4


def rows_pg(tab, *, seconds: float = 1.0, repeat: int = 2, games: tuple[str, ...] = GAMES) -> list[dict]:
    """The rows of issue 37: REINFORCE on each game of ``games``, compiled, against the plain Python loop; each
    the best of ``repeat``."""
    from mdpviz.solvers.approximation import model_arrays
    from mdpviz.solvers.pg_loop import plain_reinforce
    from mdpviz.solvers.policy_gradient import compiled_loop, pg_learner, prepare_loop

    method = _reinforce()
    if compiled_loop() is None:
        tab.add("policy-gradient loop, compiled", "unavailable (numba)", "-", None, f">= {TARGET_PLAIN_RATIO:g}x",
                False)
        return []
    t = time.perf_counter()
    prepare_loop()
    compile_s = time.perf_counter() - t
    best = (float("nan"), "not computed (bench)")
    out = []
    for key in games:
        title, mdp, Xsa, theta0, start = _case(key)

        def compiled(episodes: int, mdp=mdp, Xsa=Xsa, theta0=theta0, start=start) -> tuple[int, float]:
            gen = pg_learner(mdp, method, features="game", Xsa=Xsa, initial_theta=theta0, alpha_theta=ALPHA_THETA,
                             episodes=episodes, batch=episodes, eval_every=0, best=best, start=start, seed=1,
                             compiled=True)
            step = next(gen)  # (its exact evaluation is not in learning_seconds)
            gen.close()
            return step.updates, step.learning_seconds

        arr = model_arrays(mdp)
        rows = [[(int(i), float(Xsa[r, i])) for i in np.flatnonzero(Xsa[r])] for r in range(mdp.n_rows)]
        kw = dict(state_ptr=arr["state_ptr"].tolist(), row_ptr=arr["row_ptr"].tolist(), dst=arr["dst"].tolist(),
                  cum=arr["cum"].tolist(), reward=arr["reward"].tolist(), terminal=arr["terminal"].tolist(),
                  gamma=float(mdp.discount), start=start, alpha=ALPHA_THETA, max_steps=10_000)

        def plain(episodes: int, rows=rows, kw=kw, theta0=theta0) -> tuple[int, float]:
            t0 = time.perf_counter()
            n = plain_reinforce(rows, theta=theta0.tolist(), episodes=episodes, seed=1, **kw)
            return n, time.perf_counter() - t0

        rate, n = max(_timed(compiled, seconds) for _ in range(repeat))
        ref, n_ref = max(_timed(plain, seconds) for _ in range(repeat))
        tab.add(f"{method} (REINFORCE), {title} ({Xsa.shape[1]} features), alpha 2^-12: compiled, {n:,} updates "
                f"(best of {repeat})", f"{rate / 1e6:.2f} M updates/s",
                f"plain Python loop (lists, random.random()) {ref / 1e3:.0f} k updates/s ({n_ref:,} updates)",
                rate / ref, f">= {TARGET_PLAIN_RATIO:g}x", rate / ref >= TARGET_PLAIN_RATIO)
        out.append({"game": key, "rate": rate, "updates": n, "reference_rate": ref})
    print(f"  (the policy-gradient loop compiled or loaded from numba's cache in {compile_s:.2f} s, not timed)",
          flush=True)
    return out


def bench(argv: list[str]) -> int:
    """REINFORCE on the short corridor and the grid world, compiled, against a plain Python loop of the same
    update, in the same run."""
    from mdpviz.commands.bench_table import timed_rows_bench

    return timed_rows_bench("mdpviz bench pg", bench.__doc__, rows_pg, argv)


__all__ = ["bench", "rows_pg"]
