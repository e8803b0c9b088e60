"""The README pictures of planning with a learned model (issue 38), taken with the grid world's by ``python -m
mdpviz.screenshots --games gridworld``, at the three sizes of :data:`~mdpviz.shot_window.SIZES`:

* ``planning/<size>/figure-8.2.png``: the Dyna maze (figure 8.2) learned by Dyna-Q with n = 0, 5 and 50 planning
  updates per real step, one run after the other (50 episodes each, seed 0, the book's alpha 0.1 and epsilon
  0.1): the planning curves' steps per episode with the three runs together (n = 50 short after its third
  episode, n = 0 still wandering at its twentieth), and the board after the n = 50 run with its model's dots and
  the last step's planning updates;
* ``planning/<size>/shortcut-after-switch.png``: the shortcut maze (figure 8.5) after 6,000 real steps of Dyna-Q
  (n = 25, alpha 1) and then of Dyna-Q+ (kappa 0.001), the world changed at step 3,000: the cumulative reward
  of Dyna-Q+ bends upwards after the dashed line (it found the shortcut), Dyna-Q's does not, and the board shows
  Dyna-Q+'s greedy path through the new opening on the right.
"""
from __future__ import annotations

from pathlib import Path

from mdpviz.shot_window import screenshot_window

FIGURE_8_2_N = (0, 5, 50)
"""The planning steps of figure 8.2's three curves."""


def _run(sw, method: str, *, n: int, episodes: int, alpha: str = "0.1", total_steps: int = 0, kappa: float = 1e-3) -> None:
    w = sw.window
    p = w.solver_panel
    p.set_method(method)
    lp = p.learning
    lp.planning_steps.setValue(n)
    lp.kappa.setValue(kappa)
    lp.total_steps.setValue(total_steps)
    lp.alpha.setText(alpha)
    lp.alpha.editingFinished.emit()
    lp.epsilon.setValue(0.1)
    lp.episodes.setValue(episodes)
    lp.max_steps.setValue(100_000)
    lp.seed.setValue(0)
    sw.reset(method)
    w.solving.run_solver()
    sw.wait(lambda: w.controller.state == "converged", what=f"{method} with n = {n}")
    sw.redraw()


def save_planning_screenshots(out: str | Path) -> list[Path]:
    """The two pictures of the module docstring, at every size."""
    from mdpviz.models import gridworld as gw

    with screenshot_window(Path(out)) as sw:
        w = sw.window
        w.switch_game("gridworld")
        sw.wait_built("the grid world")
        w.game.set_map(gw.BUILTIN_MAPS["dyna"])
        sw.wait_built("the Dyna maze")
        for n in FIGURE_8_2_N:
            _run(sw, "dyna-q", n=n, episodes=50)
        sw.shot_sizes(lambda folder: f"planning/{folder}/figure-8.2.png")
        w.game.set_map(gw.BUILTIN_MAPS["shortcut"])
        sw.wait_built("the shortcut maze")
        for method in ("dyna-q", "dyna-q+"):
            _run(sw, method, n=25, episodes=100_000, alpha="1", total_steps=6000)
        sw.shot_sizes(lambda folder: f"planning/{folder}/shortcut-after-switch.png")
    return sw.saved


__all__ = ["FIGURE_8_2_N", "save_planning_screenshots"]
