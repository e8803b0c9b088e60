"""The Sensitivity dock's pictures (issue 28, item 2), staged in the real window on CS188's grids.

:func:`stage_sensitivity` drives a :class:`mdpviz.screenshots.ShotWindow` (passed in: this module does not
import the screenshot script, which calls it from ``save_sensitivity_screenshots``):

* ``sensitivity/bridge-<size>.png``: the bridge's noise swept from 0 to 0.5 (the switch near 0.016955),
  its second interval clicked, so its policy is on the board;
* ``sensitivity/phase-<size>.png`` and the README's ``sensitivity-phase.png`` (1366 x 768): the discount
  grid's phase diagram of noise x living reward, the cell at noise 0.1, living reward -0.5 clicked.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np


def stage_sensitivity(sw: Any, sizes: Mapping[str, tuple[tuple[int, int], bool]]) -> None:
    """Take the pictures above with ``sw`` (a ShotWindow) at each of ``sizes`` (folder name -> (window size,
    presenter mode))."""
    from mdpviz.models import gridworld as gw

    (sw.out / "sensitivity").mkdir(parents=True, exist_ok=True)
    w = sw.window
    w.switch_game("gridworld")
    g = w.game
    g.set_map(gw.BUILTIN_MAPS["bridge"])
    sw.reset("vi")
    panel = w.open_sensitivity()
    panel.set_range("noise", 0.0, 0.5)
    w.run_sensitivity()
    sw.wait(lambda: panel.result is not None and not w.controller.job_busy, what="the bridge's noise sweep")
    panel.choose_interval(1)
    sw.wait(lambda: w.controller.state == "converged", what="the solver to converge")
    _at_sizes(sw, sizes, "bridge")
    w.act_undo.trigger()  # the bridge's own noise back (the phase picture's caption names the defaults)
    g.set_map(gw.BUILTIN_MAPS["discount"])
    sw.reset("vi")
    panel.set_range("noise", 0.0, 0.5, second=("living_reward", -2.0, 1.0))
    w.run_sensitivity()
    sw.wait(lambda: panel.phase is not None and not w.controller.job_busy, timeout=max(sw.timeout, 300.0),
            what="the discount grid's phase diagram")
    ph = panel.phase
    panel.choose_cell(int(np.argmin(abs(ph.xs - 0.1))), int(np.argmin(abs(ph.ys + 0.5))))
    sw.wait(lambda: w.controller.state == "converged", what="the solver to converge")
    _at_sizes(sw, sizes, "phase")
    w.open_sensitivity()
    sw.shot("sensitivity-phase.png")


def _at_sizes(sw: Any, sizes: Mapping[str, tuple[tuple[int, int], bool]], name: str) -> None:
    w = sw.window
    for folder, (size, presenter) in sizes.items():
        w.set_presenter(presenter)
        sw.pump(0.2)  # presenter mode's dock sizes first, then the dock opened as a user would
        w.open_sensitivity()
        sw.shot(f"sensitivity/{name}-{folder}.png", size=size)
    w.set_presenter(False)


__all__ = ["stage_sensitivity"]
