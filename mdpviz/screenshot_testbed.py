"""The README pictures of the bandit testbed (issue 39), taken by ``python -m mdpviz.screenshots --games bandit``
(with the game's own, :mod:`mdpviz.screenshot_bandit`) or alone by ``python -m mdpviz.screenshot_testbed [--out DIR]``
(default ``assets/screenshots``), at the three sizes of :data:`~mdpviz.shot_window.SIZES`, in ``bandits/<size>/``:

* ``figure-2.2.png``: the Bandit dock's curves of the book's figure 2.2 on the 10-armed Gaussian testbed (2,000 runs
  of 1,000 steps, seed 0): epsilon-greedy with sample averages at epsilon 0, 0.01 and 0.1, then UCB (c = 2) beside
  them: average reward and % optimal action over the steps;
* ``figure-2.6.png``: the parameter study (figure 2.6): the average reward over the first 1,000 steps of
  epsilon-greedy, the gradient bandit, UCB and optimistic greedy against their parameter (log2 axis), 500 runs a
  point (the window's :data:`~mdpviz.window.bandit.STUDY_RUNS`);
* ``arms.png``: run 1's arms after 100 Steps of UCB: true values, estimates with their standard errors, counts.

Every picture is computed as the window computes it (jobs on the controller's job thread).
"""
from __future__ import annotations

import argparse
from pathlib import Path

from mdpviz.shot_window import SIZES, screenshot_window
from mdpviz.solvers import bandits

ARM_STEPS = 100
"""Steps of the arms picture."""


def save_testbed_screenshots(out: str | Path) -> list[Path]:
    """The pictures of the module docstring, at every size."""
    with screenshot_window(Path(out), timeout=600.0) as sw:
        w = sw.window
        part = w.hub.bandit
        panel = part.open_bandit()
        panel.runs.setValue(2000)
        panel.steps.setValue(1000)
        panel.seed.setValue(0)
        busy = lambda: w.controller.job_busy  # noqa: E731
        part.run_figure_2_2()
        sw.wait(lambda: not busy() and len(part.results) == 3, what="figure 2.2's three runs")
        panel.set_method(bandits.method_of(bandits.ucb))
        part.run()
        sw.wait(lambda: not busy() and len(part.results) == 4, what="the UCB run")
        panel.tabs.setCurrentWidget(panel.curves)
        panel.set_controls_hidden(True)  # (the plots take the dock's width; the arms picture shows the controls)
        sw.shot_sizes(lambda folder: f"bandits/{folder}/figure-2.2.png")
        part.run_study()
        sw.wait(lambda: not busy() and part.study is not None, what="the parameter study")
        panel.tabs.setCurrentWidget(panel.study_plot)
        sw.shot_sizes(lambda folder: f"bandits/{folder}/figure-2.6.png")
        panel.set_controls_hidden(False)
        panel.set_method(bandits.method_of(bandits.ucb))
        part.step()
        sw.wait(lambda: not busy() and part.stepped is not None, what="the stepped run")
        for _ in range(ARM_STEPS - 1):
            part.step()
        for folder, (size, presenter) in SIZES.items():  # the controls beside the bars, but on the projector
            (sw.out / f"bandits/{folder}").mkdir(parents=True, exist_ok=True)
            panel.set_controls_hidden(presenter)
            if presenter:
                w.resize(*size)
                sw.pump(0.2)
                w.view.set_presenter(True)
            sw.shot(f"bandits/{folder}/arms.png", size=size)
            if presenter:
                w.view.set_presenter(False)
    return sw.saved


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m mdpviz.screenshot_testbed", description=__doc__.split("\n")[0])
    p.add_argument("--out", default="assets/screenshots", help="the folder (default assets/screenshots)")
    args = p.parse_args(argv)
    for path in save_testbed_screenshots(args.out):
        print(path)
    return 0


__all__ = ["ARM_STEPS", "main", "save_testbed_screenshots"]


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
