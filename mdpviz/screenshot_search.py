"""The README pictures of search (issue 38), taken with the tic-tac-toe gallery (``python -m mdpviz.screenshots
--games ttt``), at the three sizes of :data:`~mdpviz.shot_window.SIZES`:

* ``planning/<size>/search-tree.png``: Monte Carlo tree search (UCT, c = sqrt 2, seed 0) from the empty board of
  tic-tac-toe against the random opponent, the agent moving first (win 500, draw 0, loss -3500, discount 0.9),
  after 20,000 simulations: the Tree search dock's tree (nodes sized by visits, filled by mean return, the exact
  value written beside each), the root's moves, and the verdict: UCT plays the centre while the exact best moves
  are the corners;
* ``planning/<size>/rtdp-trajectories.png``: real-time dynamic programming on CS188's DiscountGrid (noise 0.2)
  after 4 trajectories from the start: the 4th trajectory outlined in order, the states never backed up hatched,
  V(start) against V* in the Solver panel.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

from mdpviz.shot_window import screenshot_window

SIMULATIONS = 20_000
"""Simulations of the tree picture (the issue's 20,000)."""
TRAJECTORIES = 4
"""RTDP's trajectories before the picture."""


def save_search_screenshots(out: str | Path) -> list[Path]:
    """The two pictures of the module docstring, at every size."""
    from mdpviz.models.gridworld.rules import BUILTIN_MAPS, with_map
    from mdpviz.models.ttt.rules import TicTacToeSettings
    from mdpviz.solvers import registry

    rtdp = next(s.id for s in registry.specs("solver") if s.unit == "trajectory")
    with screenshot_window(Path(out)) as sw:
        w = sw.window
        w.switch_game("ttt")
        sw.wait_built("tic-tac-toe")
        session = w.stage.session
        session.edit(TicTacToeSettings(settings=dataclasses.replace(session.settings.settings, first="agent")),
                     "the agent moves first")
        sw.wait_built("tic-tac-toe, the agent first")
        part = w.hub.search
        part.open_search()
        part.simulate(SIMULATIONS)
        sw.wait(lambda: part.search_run is not None and part.search_run.tree.simulations >= SIMULATIONS
                and not w.controller.job_busy, what=f"{SIMULATIONS:,} simulations")
        sw.redraw()
        sw.shot_sizes(lambda folder: f"planning/{folder}/search-tree.png")
        part.search_dock.hide()  # (the board and the convergence plot for RTDP)
        w.switch_game("gridworld")
        sw.wait_built("the grid world")
        grid = w.stage.session
        grid.edit(with_map(grid.settings, BUILTIN_MAPS["discount"]), "DiscountGrid")
        sw.wait_built("DiscountGrid")
        sw.reset(rtdp)
        sw.step(TRAJECTORIES)
        sw.redraw()
        sw.shot_sizes(lambda folder: f"planning/{folder}/rtdp-trajectories.png")
    return sw.saved


__all__ = ["SIMULATIONS", "TRAJECTORIES", "save_search_screenshots"]
