"""The README pictures of the views beside the games: value iteration's error and bounds on the
convergence plot and the exact return distribution (:func:`save_theory_screenshots`), the policy diff
of a live re-solve (:func:`save_policy_diff_screenshots`), learning in progress
(:func:`save_learning_screenshots`), the inspector's chain of backups (:func:`save_chain_screenshots`)
and the Sensitivity dock (:func:`save_sensitivity_screenshots`).
``python -m mdpviz.screenshots`` takes them with the games' pictures.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from mdpviz.shot_window import LAYOUT, SIZES, ShotOptions, prepare_game, screenshot_window
from mdpviz.solvers import registry


def save_theory_screenshots(out: str | Path, *, games: int = 10_000) -> list[Path]:
    """``convergence-bounds.png`` (value iteration on the book's 4x3 grid, solved, with View > Error and
    bounds on: the true error, the stopping bound, the gamma^k envelope and the loss bound beside max|dV|)
    and ``gridworld-returns.png`` (the same grid's strategies simulated, ``games`` each, the exact return
    distribution as dots on each histogram)."""
    from mdpviz.models import gridworld as gw

    with screenshot_window(out) as sw:
        w = sw.window
        w.switch_game("gridworld")
        g = w.game
        g.set_map(gw.BUILTIN_MAPS["book"])
        sw.reset(registry.DEFAULT_SOLVER)
        sw.solve()
        w.solving.set_theory_shown(True)
        w.solving.inspect(g.session.start_state())
        w.stage.show_page("board")
        sw.shot("convergence-bounds.png")
        w.solving.set_theory_shown(False)
        sw.simulate(games)
        sw.shot("gridworld-returns.png")
    return sw.saved


def save_policy_diff_screenshots(out: str | Path) -> list[Path]:
    """The live re-solve's policy diff on CS188's DiscountGrid: solved with living reward 0, then the living
    reward edited to -2 (re-solved live): ``policy-diff-after.png`` (the solve after the edit, the states
    whose optimal action changed outlined), ``policy-diff-before.png`` (the solve before it, B) and
    ``policy-diff-map.png`` (V after - V before on the diverging scale, Shift+B), each at 1366x768 and in
    ``policy-diff/<size>/`` at the three sizes of :data:`SIZES`."""
    from mdpviz.models import gridworld as gw

    with screenshot_window(out) as sw:
        w = sw.window
        w.live.set_live_resolve(True)
        w.switch_game("gridworld")
        g = w.game
        g.set_map(gw.BUILTIN_MAPS["discount"])
        g.set_living_reward(0.0)
        sw.reset(registry.DEFAULT_SOLVER)
        sw.solve()
        g.set_living_reward(-2.0)  # an edit: re-solved at once
        sw.wait(lambda: w.live.live_diff is not None and w.controller.state == "converged", what="the live re-solve")
        w.solving.inspect(g.session.start_state())
        w.inspector_dock.raise_()
        for mode, name in (("after", "policy-diff-after.png"), ("before", "policy-diff-before.png"),
                           ("difference", "policy-diff-map.png")):
            w.live.set_diff_mode(mode)
            sw.shot(name)
            sw.shot_sizes(lambda folder: f"policy-diff/{folder}/{name}")
        w.live.set_diff_mode("after")
    return sw.saved


LEARNING_SHOTS: dict[str, tuple[str, int]] = {
    "gridworld": (registry.DEFAULT_LEARNER, 200),
    "snakes": (registry.DEFAULT_LEARNER, 300),
    "ttt": (registry.DEFAULT_LEARNER, 2_000),
}
"""Learning in progress (``learning/<size>/<game>.png``): the learner and its episodes, by game key."""


def save_learning_screenshots(out: str | Path, key: str) -> list[Path]:
    """``learning/<size>/<key>.png`` at every size of :data:`SIZES`: the game at its defaults (snakes:
    the example layout) learning by the learner of :data:`LEARNING_SHOTS` for its episodes (seed 0):
    the learned values on the exact answer's scale, the learning curves, the start's learned and
    exact Q in the inspector."""
    method, episodes = LEARNING_SHOTS[key]
    out = Path(out)
    with screenshot_window(out) as sw:
        w = sw.window
        w.switch_game(key)
        g = w.game
        if key == "snakes":
            g.session.edit(replace(g.cfg, layout=LAYOUT), "example layout")
        sw.wait_built(f"the {key} model")
        lp = w.solver_panel.learning
        lp.episodes.setValue(episodes)
        lp.seed.setValue(0)
        sw.reset(method)
        w.solving.run_solver()
        sw.wait(lambda: w.controller.state == "converged", what=f"{episodes} episodes of {method}")
        w.solving.inspect(g.session.start_state())
        w.inspector_dock.raise_()
        w.stage.show_page("board")
        sw.shot_sizes(lambda folder: f"learning/{folder}/{key}.png")
    return sw.saved


CHAIN_SHOTS = ("snakes", "gridworld")
"""The inspector's chain of backups (``chain/<size>/<game>.png``), by game key: the games whose board outlines it."""


def follow_chain(window: Any, links: int) -> None:
    """Follow ``links`` links of the inspector's chain of backups from the inspected state: each time the
    shown action's likeliest successor that is not terminal (the furthest one on a tie), as a user
    clicking its V(s') would."""
    from mdpviz.models.kit.pictures.chain import follow_href

    w = window
    mdp = w.controller.mdp
    for _ in range(int(links)):
        insp = w.solving.inspection()
        best = next((a for a in insp.actions if a.best), None) if insp is not None else None
        terms = [t for t in (best.terms if best is not None else ()) if not mdp.terminal[t.next_state]]
        if not terms:
            return
        w.solving.follow_link(follow_href(max(terms, key=lambda t: (t.prob, t.next_state)).next_state))


def save_chain_screenshots(out: str | Path, key: str, *, links: int = 3, root: int | None = None) -> list[Path]:
    """``chain/<size>/<key>.png`` at every size of :data:`SIZES`: the game solved as in
    :func:`prepare_game`, the start (or state ``root``) inspected and ``links`` links of its chain of backups followed
    (:func:`follow_chain`): the breadcrumb in the inspector, the chain outlined and numbered on the board."""
    out = Path(out)
    with screenshot_window(out) as sw:
        w = sw.window
        prepare_game(sw, key, ShotOptions())
        w.solving.inspect(w.game.session.start_state() if root is None else int(root))
        follow_chain(w, links)
        w.inspector_dock.raise_()
        sw.shot_sizes(lambda folder: f"chain/{folder}/{key}.png")
    return sw.saved


def save_sensitivity_screenshots(out: str | Path) -> list[Path]:
    """The Sensitivity dock's pictures (issue 28, item 2), staged in the real window on CS188's grids
    (:func:`stage_sensitivity`):

    * ``sensitivity/bridge-<size>.png``: the bridge's noise swept from 0 to 0.5 (the switch near 0.016955),
      its second interval clicked, so its policy is on the board;
    * ``sensitivity/phase-<size>.png`` and the README's ``sensitivity-phase.png`` (1366 x 768): the discount
      grid's phase diagram of noise x living reward, the cell at noise 0.1, living reward -0.5 clicked."""
    with screenshot_window(out) as sw:
        stage_sensitivity(sw, SIZES)
    return sw.saved


def stage_sensitivity(sw: Any, sizes: Mapping[str, tuple[tuple[int, int], bool]]) -> None:
    """Take the pictures above with ``sw`` (a ShotWindow) at each of ``sizes`` (folder name -> (window size,
    presenter mode))."""
    from mdpviz.models import gridworld as gw

    (sw.out / "sensitivity").mkdir(parents=True, exist_ok=True)
    w = sw.window
    w.switch_game("gridworld")
    g = w.game
    g.set_map(gw.BUILTIN_MAPS["bridge"])
    sw.reset(registry.DEFAULT_SOLVER)
    panel = w.sensitivity.open_sensitivity()
    panel.set_range("noise", 0.0, 0.5)
    w.sensitivity.run_sensitivity()
    sw.wait(lambda: panel.result is not None and not w.controller.job_busy, what="the bridge's noise sweep")
    panel.choose_interval(1)
    sw.wait(lambda: w.controller.state == "converged", what="the solver to converge")
    _at_sizes(sw, sizes, "bridge")
    w.act_undo.trigger()  # the bridge's own noise back (the phase picture's caption names the defaults)
    g.set_map(gw.BUILTIN_MAPS["discount"])
    sw.reset(registry.DEFAULT_SOLVER)
    panel.set_range("noise", 0.0, 0.5, second=("living_reward", -2.0, 1.0))
    w.sensitivity.run_sensitivity()
    sw.wait(lambda: panel.phase is not None and not w.controller.job_busy, timeout=max(sw.timeout, 300.0),
            what="the discount grid's phase diagram")
    ph = panel.phase
    panel.choose_cell(int(np.argmin(abs(ph.xs - 0.1))), int(np.argmin(abs(ph.ys + 0.5))))
    sw.wait(lambda: w.controller.state == "converged", what="the solver to converge")
    _at_sizes(sw, sizes, "phase")
    w.sensitivity.open_sensitivity()
    sw.shot("sensitivity-phase.png")


def _at_sizes(sw: Any, sizes: Mapping[str, tuple[tuple[int, int], bool]], name: str) -> None:
    w = sw.window
    for folder, (size, presenter) in sizes.items():
        w.view.set_presenter(presenter)
        sw.pump(0.2)  # presenter mode's dock sizes first, then the dock opened as a user would
        w.sensitivity.open_sensitivity()
        sw.shot(f"sensitivity/{name}-{folder}.png", size=size)
    w.view.set_presenter(False)
