"""The README pictures of the Bernoulli bandit's exact answers (issue 39), taken by ``python -m mdpviz.screenshots
--games bandit``: the game ``bandit`` with its defaults (two arms, six pulls, uniform Beta(1, 1) priors), at the
three sizes of :data:`~mdpviz.shot_window.SIZES`:

* ``bandits/<size>/belief-tree.png``: the belief MDP solved by value iteration (the window's first solver), every
  belief before the horizon coloured by its value (V(prior) = 3.5083 expected successes in 6 pulls) and its
  Bayes-optimal pull drawn in the arm's colour, the prior inspected;
* ``bandits/<size>/gittins-heatmap.png``: the Gittins index of Beta(a, b) for a, b in 1..10 at discount 0.9
  (Beta(1, 1): 0.7029), computed as a job of the window.
"""
from __future__ import annotations

from pathlib import Path

from mdpviz.shot_window import screenshot_window


def save_bandit_screenshots(out: str | Path) -> list[Path]:
    """The two pictures of the module docstring, at every size."""
    with screenshot_window(Path(out)) as sw:
        w = sw.window
        w.switch_game("bandit")
        sw.wait_built("the bandit's belief MDP")
        sw.reset(w.game.default_method)
        sw.solve()
        w.solving.inspect(w.game.session.start_state())
        board = w.game.board_widget()
        board.tabs.setCurrentWidget(board.tree)
        sw.redraw()
        sw.shot_sizes(lambda folder: f"bandits/{folder}/belief-tree.png")
        board.tabs.setCurrentWidget(board.gittins)  # opening the tab starts the job
        sw.wait(lambda: board.gittins.table is not None and not w.controller.job_busy, what="the Gittins indices")
        sw.redraw()
        sw.shot_sizes(lambda folder: f"bandits/{folder}/gittins-heatmap.png")
    return sw.saved


__all__ = ["save_bandit_screenshots"]
