"""The README pictures of policy gradients (issue 37), taken by ``python -m mdpviz.screenshots --games corridor``:
the short corridor (Example 13.1) after 1,000 episodes of REINFORCE from the book's start (epsilon-greedy left,
alpha_theta = 2^-12, seed 0), at the three sizes of :data:`~mdpviz.shot_window.SIZES`:

* ``policy-gradient/<size>/figure-13.1.png``: the exact J as a function of the probability of right (the
  example's graph), the learned policy a point on it (the dock's "figure 13.1" tab);
* ``policy-gradient/<size>/gradient-view.png``: at the learned theta, the exact gradient beside the means of
  1,000 sampled one-episode REINFORCE estimates with and without the exact v_pi baseline, their variances
  written out (the "gradient" tab, sampled as a job off the GUI thread);
* ``policy-gradient/<size>/j-curve.png``: the exact J of each snapshot's policy over the episodes against the
  best value -11.657 (the "J(theta)" tab).
"""
from __future__ import annotations

from pathlib import Path

from mdpviz.shot_window import screenshot_window

METHOD = "reinforce"
"""The method the book's figure 13.1 learns the corridor with (section 13.3)."""


def save_pg_screenshots(out: str | Path) -> list[Path]:
    """The three pictures of the module docstring, at every size."""
    with screenshot_window(Path(out)) as sw:
        w = sw.window
        w.switch_game("corridor")
        sw.wait_built("the corridor")
        p = w.solver_panel
        p.set_method(METHOD)
        lp = p.learning
        lp.alpha_theta.setText(str(2 ** -12))
        lp.alpha_theta.editingFinished.emit()
        lp.episodes.setValue(1000)
        lp.seed.setValue(0)
        sw.reset(METHOD)
        w.solving.run_solver()
        sw.wait(lambda: w.controller.state == "converged", what="1,000 episodes of REINFORCE")
        curves = w.learning.pg.curves
        sw.wait(lambda: curves.tabs.indexOf(curves.policy_curve) >= 0 and not w.controller.job_busy,
                what="figure 13.1's curve (a job)")
        w.solving.inspect(w.game.session.start_state())
        for tab, name in ((curves.policy_curve, "figure-13.1"), (curves.gradient, "gradient-view"),
                          (curves.j_curve, "j-curve")):
            curves.tabs.setCurrentWidget(tab)
            sw.redraw()
            if tab is curves.gradient:
                sw.wait(lambda: curves.estimates is not None and not w.controller.job_busy,
                        what="the sampled gradient estimates")
                sw.redraw()
            sw.shot_sizes(lambda folder, name=name: f"policy-gradient/{folder}/{name}.png")
    return sw.saved


__all__ = ["METHOD", "save_pg_screenshots"]
