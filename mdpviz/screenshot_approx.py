"""The README pictures of function approximation (issue 36): the book's figures as the window draws them, at
the three sizes of :data:`~mdpviz.shot_window.SIZES`, taken by ``python -m mdpviz.screenshots --games
randomwalk,baird,mountaincar``:

* ``approximation/<size>/figure-9.1.png``: the 1000-state random walk, gradient Monte Carlo with state
  aggregation (10 groups of 100, alpha 2e-5 as the book), its staircase beside the true values, the best fit
  (where it goes) and the TD fixed point, mu below (the values tab);
* ``approximation/<size>/figure-11.2.png``: Baird's counterexample, off-policy semi-gradient TD with the
  book's features and initial weights (alpha 0.01), the weights over 1000 steps, sampled, with the expected
  update dashed beside them (the weights-over-steps tab); ``figure-11.5.png``: TDC on it (alpha 0.005, beta
  0.05: the learners' default), the roots of VE and of the projected Bellman error over the steps (the root-VE tab);
* ``approximation/<size>/figure-10.1.png``: mountain car, semi-gradient SARSA with 8 tilings, the learned
  cost-to-go over position x velocity after 500 episodes (the cost-to-go tab).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from mdpviz.shot_window import screenshot_window

FIGURES: dict[str, tuple[dict[str, Any], ...]] = {
    "randomwalk": ({"name": "figure-9.1", "method": "gradient-mc", "features": "aggregate:10", "alpha": "0.00002",
                    "episodes": 100_000, "max_steps": 10_000, "tab": "values"},),
    "baird": ({"name": "figure-11.2", "method": "off-td", "features": "game", "alpha": "0.01", "episodes": 1000,
               "max_steps": 1, "tab": "weights over steps"},
              {"name": "figure-11.5", "method": "tdc", "features": "game", "alpha": "0.005",
               "episodes": 1000, "max_steps": 1, "tab": "\u221aVE"}),
    "mountaincar": ({"name": "figure-10.1", "method": "semi-sarsa", "features": "tiles:8:0.125", "alpha": "0.0625",
                     "episodes": 500, "max_steps": 5000, "epsilon": 0.0, "tab": "cost-to-go"},),
}
"""Each game's figure: the learner, its features and options as the book gives them, and the tab shown."""


def save_approximation_screenshots(out: str | Path, key: str) -> list[Path]:
    """``approximation/<size>/<figure>.png`` of each figure of game ``key`` (a key of :data:`FIGURES`) at every size."""
    saved: list[Path] = []
    for fig in FIGURES[key]:
        saved += _save_figure(Path(out), key, fig)
    return saved


def _save_figure(out: Path, key: str, fig: dict[str, Any]) -> list[Path]:
    with screenshot_window(out) as sw:
        w = sw.window
        w.switch_game(key)
        sw.wait_built(f"the {key} model")
        p = w.solver_panel
        p.set_method(fig["method"])
        lp = p.learning
        lp.set_features(fig["features"])
        lp.alpha.setText(fig["alpha"])
        lp.alpha.editingFinished.emit()
        lp.episodes.setValue(fig["episodes"])
        lp.max_steps.setValue(fig["max_steps"])
        lp.seed.setValue(0)
        if "epsilon" in fig:
            lp.epsilon.setValue(fig["epsilon"])
        sw.reset(fig["method"])
        w.solving.run_solver()
        sw.wait(lambda: w.controller.state == "converged", what=f"{fig['episodes']} episodes of {fig['method']}")
        curves = w.learning.approx_curves
        tabs = curves.tabs
        titles = [tabs.tabText(i) for i in range(tabs.count())]
        if fig["tab"] not in titles:
            raise RuntimeError(f"{key}: no {fig['tab']!r} tab among {titles}")
        tabs.setCurrentIndex(titles.index(fig["tab"]))
        w.solving.inspect(w.game.session.start_state())
        w.stage.show_page("board")
        sw.shot_sizes(lambda folder: f"approximation/{folder}/{fig['name']}.png")
    return sw.saved


__all__ = ["FIGURES", "save_approximation_screenshots"]
