"""Take the README screenshots headless: ``python -m mdpviz.screenshots [--out DIR] [--games snakes,ttt,...]``.

Runs the real window on Qt's offscreen platform (no display needed), drives it through its own
methods and saves every game's pictures into one folder (default ``assets/screenshots``):

* for every game, the window at the three sizes it must work at (:data:`SIZES`):
  ``1920x1080/<game>.png``, ``1366x768/<game>.png`` (a student's laptop) and
  ``presenter-1280x720/<game>.png`` (presenter mode on a projector), each solved with the game's
  defaults (``--no-sizes`` skips them);
* the README gallery (``--no-gallery`` skips it), each picture at a stated window size: 1366 x 768
  unless its name ends in ``-1280x720``. The games, by ``--games`` key:

* ``snakes``: ``solving.png`` (value iteration a few sweeps in, a square's Bellman backup
  inspected), ``simulation.png`` (solved, every strategy simulated: histogram and exact-vs-simulated
  table), ``presenter-1280x720.png`` (presenter mode);
* ``file``: ``policy-iteration.png`` (a small course-format MDP as a graph, solved by policy
  iteration);
* ``ttt``: ``ttt-vs-random.png`` (tic-tac-toe vs random by policy iteration, a move played, the
  matchups);
* ``risk_ttt``: ``risk-ttt.png``, ``risk-ttt-play-1280x720.png``, ``risk-ttt-4x4.png`` (exact solve
  running) and ``risk-ttt-4x4-solved.png``;
* ``attt``: ``attt.png``, ``attt-1280x720.png``, ``attt-matchups.png`` (best-response rounds);
* ``checkers``: ``checkers-greedy.png``, ``checkers-far-sighted.png``, ``checkers-matchups.png``,
  ``checkers-1280x720.png``;
* ``ttt3d``: ``ttt3d-learning.png``, ``ttt3d-play-1280x720.png`` (TD(0) learning);
* ``gridworld``: ``gridworld-values.png`` (values and arrows), ``gridworld-q-1280x720.png`` (Q
  triangles, presenter mode);
  ``convergence-bounds.png`` (value iteration's error and bounds on the convergence plot),
  ``gridworld-returns.png`` (the exact return distribution on the simulated histograms),
  ``policy-diff-after.png``, ``policy-diff-before.png``, ``policy-diff-map.png`` (the live re-solve's
  policy diff after a living-reward edit of CS188's DiscountGrid, also in ``policy-diff/<size>/`` at
  the three sizes), ``sensitivity-phase.png`` (the Sensitivity dock's phase diagram of the discount
  grid) and ``sensitivity/{bridge,phase}-<size>.png`` at the three sizes;
  and planning with a learned model, ``planning/<size>/{figure-8.2,shortcut-after-switch}.png`` at the three sizes
  (:mod:`mdpviz.screenshot_planning`);
* ``gym``: ``gym-frozenlake.png`` (Gymnasium's FrozenLake 8x8, when Gymnasium is installed);
* ``randomwalk``, ``baird``, ``mountaincar``: the book's figures 9.1, 11.2 and 10.1 as the window draws them,
  ``approximation/<size>/figure-*.png`` at the three sizes (:mod:`mdpviz.screenshot_approx`);
* ``ttt`` also: Monte Carlo tree search and RTDP, ``planning/<size>/{search-tree,rtdp-trajectories}.png`` at the
  three sizes (:mod:`mdpviz.screenshot_search`);
* ``corridor``: policy gradients on the short corridor, ``policy-gradient/<size>/{figure-13.1,gradient-view,
  j-curve}.png`` at the three sizes (:mod:`mdpviz.screenshot_pg`);
* ``bandit``: the belief tree and the Gittins heatmap, ``bandits/<size>/{belief-tree,gittins-heatmap}.png`` at
  the three sizes (:mod:`mdpviz.screenshot_bandit`), and the Bandit testbed dock's figures 2.2 and 2.6 and arms,
  ``bandits/<size>/{figure-2.2,figure-2.6,arms}.png`` (:mod:`mdpviz.screenshot_testbed`);
* learning in progress (:data:`LEARNING_SHOTS`: ``gridworld``, ``snakes``, ``ttt``):
  ``learning/<size>/<game>.png`` at the three sizes, Q-learning a few hundred episodes in;
* the inspector's chain of backups (:data:`CHAIN_SHOTS`: ``snakes``, ``gridworld``):
  ``chain/<size>/<game>.png`` at the three sizes, three links followed from the start.

Every game gets a fresh window from :func:`screenshot_window` (one QApplication for the whole run);
the window's settings go to a temporary file, never to the user's settings. The per-game functions
live beside their games (``mdpviz.widgets.*_game*``) and use the :class:`ShotWindow` helpers here.
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable, Sequence

from mdpviz.shot_window import (  # noqa: F401  (the screenshot window's names, as they were here)
    DEFAULT_SIZE,
    LAYOUT,
    SIM_SEED,
    SIZE_1280x720,
    SIZES,
    SMALL_MDP,
    SNAKES_TIES,
    STAGED,
    SUTTON_GRID,
    SUTTON_OPTIMAL,
    TIES_LAYOUT,
    TTT_TIES,
    QuietDialogs,
    Shot,
    ShotOptions,
    ShotWindow,
    prepare_game,
    screenshot_window,
)
from mdpviz.screenshot_views import (  # noqa: F401  (the views' pictures, taken with the games')
    CHAIN_SHOTS,
    LEARNING_SHOTS,
    follow_chain,
    save_chain_screenshots,
    save_learning_screenshots,
    save_policy_diff_screenshots,
    save_sensitivity_screenshots,
    save_theory_screenshots,
)
from mdpviz.solvers import registry

# ---------------------------------------------------------------------------------- snakes, MDP file
def save_snakes_screenshots(out: str | Path, *, games: int = 10_000) -> list[Path]:
    """``solving.png``, ``simulation.png`` (``games`` games per strategy) and ``presenter-1280x720.png``."""
    with screenshot_window(out) as sw:
        w = sw.window
        w.switch_game("snakes")
        g = w.game
        g.session.edit(replace(g.cfg, layout=LAYOUT), "example layout")
        sw.wait(lambda: w.controller.state == "ready", what="the snakes solver")
        sw.step(9)
        w.solving.inspect(6)
        w.inspector_dock.raise_()
        sw.shot("solving.png")

        sw.solve()
        sw.simulate(games)
        w.solving.inspect(None)
        sw.shot("simulation.png")

        w.view.set_presenter(True)
        w.solving.inspect(2)
        w.inspector_dock.raise_()
        sw.shot("presenter-1280x720.png", size=SIZE_1280x720)
        w.view.set_presenter(False)
    return sw.saved


def save_file_screenshots(out: str | Path) -> list[Path]:
    """``policy-iteration.png``: :data:`SMALL_MDP` opened as a file, drawn as a graph, solved by policy iteration."""
    with screenshot_window(out) as sw:
        w = sw.window
        mdp_file = sw.tmp / "small-mdp.txt"
        mdp_file.write_text(SMALL_MDP)
        w.files.open_mdp_file(mdp_file)
        w.game.set_view("graph")
        sw.reset(registry.exact_solver())
        sw.solve()
        w.solving.inspect(0)
        w.inspector_dock.raise_()
        sw.shot("policy-iteration.png")
    return sw.saved


# ---------------------------------------------------------------------------------- tic-tac-toe family
def save_ttt_screenshots(out: str | Path, *, games: int = 10_000) -> list[Path]:
    """``ttt-vs-random.png`` (for the README; ``python -m mdpviz.screenshots --games ttt``): tic-tac-toe
    vs random solved by policy iteration, the agent's first move played and the opponent's replies
    shown, with the matchups simulated (``games`` games each; exact probabilities beside them)."""
    with screenshot_window(out) as sw:
        w = sw.window
        w.switch_game("ttt")
        sw.reset(registry.exact_solver())
        sw.solve()
        b = w.game.board
        b.new_game()
        b.play_move(int(w.controller.solution.policy[b.position.state]))
        b.select_move(b.view().moves[0].action)
        sw.simulate(games)
        sw.shot("ttt-vs-random.png")
    return sw.saved


def save_risk_screenshots(out: str | Path, *, solve_4x4: bool = True) -> list[Path]:
    """Risk tic-tac-toe screenshots (for the README; ``python -m mdpviz.screenshots --games risk_ttt``):

    * ``risk-ttt.png``: stochastic risks, six sweeps of value iteration, the risks on the cells;
    * ``risk-ttt-play-1280x720.png``: solved, human (O) vs agent (X) at 1280 x 720;
    * ``risk-ttt-4x4.png``: the 4x4 board during its exact solve (progress bar), then solved
      (``risk-ttt-4x4-solved.png``) if ``solve_4x4``, else the solve is cancelled."""
    with screenshot_window(out) as sw:
        w = sw.window
        w.switch_game("risk_ttt")
        sw.reset(registry.DEFAULT_SOLVER)
        sw.step(6)
        w.inspector_dock.raise_()
        sw.shot("risk-ttt.png")

        sw.solve()
        b = w.game.board
        b.set_mode("play")
        b.set_human("O")
        b.set_first("X")
        b.play_move(b.view().moves[0].action)
        sw.shot("risk-ttt-play-1280x720.png", size=SIZE_1280x720)
        b.set_mode("walk")

        g = w.game
        g.set_size(4)
        g.solve_exact()
        sw.wait(lambda: g.editor().progress.value() > 0 and g.editor().progress.maximum() > 1,
                what="the exact 4x4 solve to report progress")
        sw.pump(1.0)
        sw.shot("risk-ttt-4x4.png")
        if solve_4x4:
            sw.wait(lambda: g.exact_solution() is not None or not g.solving, timeout=600,
                    what="the exact 4x4 solve")
            if g.exact_solution() is None:
                raise RuntimeError("screenshots: the exact 4x4 risk tic-tac-toe solve stopped without a solution")
            sw.shot("risk-ttt-4x4-solved.png")
        else:
            g.session.cancel_job()
            sw.wait(lambda: not g.solving, what="the cancelled 4x4 solve to stop")
    return sw.saved


def save_ttt3d_screenshots(out_dir: str | Path, *, episodes: int = 3_000, eval_games: int = 500, seed: int = 0,
                           sim_games: int = 2_000, timeout: float = 300.0) -> list[Path]:
    """The 3D tic-tac-toe README screenshots, taken headless (``python -m mdpviz.screenshots --games ttt3d``;
    the window from :func:`screenshot_window`): the 3D game trained for
    ``episodes`` games on the window's own job thread (the GUI thread only waits; 20 learning-curve
    points of ``eval_games`` games each; training seed ``seed``), then

    * ``ttt3d-learning.png`` (default window size): the learning curve, the agent's values on the
      cube after one move of a walk, the matchup simulation (``sim_games`` games per matchup);
    * ``ttt3d-play-1280x720.png``: a game against the agent at 1280 x 720 (the window may be wider
      if its docks need more room).

    ``timeout`` (seconds) bounds each wait. Returns the files written."""
    from mdpviz.models.kit.boards.position import PLAY
    from mdpviz.models.ttt3d import CENTRE

    with screenshot_window(out_dir, timeout=timeout) as sw:
        w = sw.window
        w.switch_game("ttt3d")
        g = w.game
        g.set_settings(episodes=int(episodes), report_every=max(1, int(episodes) // 20), eval_games=int(eval_games),
                       seed=int(seed))
        g.training.start()
        sw.wait(lambda: not g.training.busy, what="the 3D agent's training")
        g.board.click_cell(CENTRE)
        sw.simulate(sim_games)
        sw.shot("ttt3d-learning.png")
        g.board.set_mode(PLAY)
        g.board.click_cell(4)
        sw.shot("ttt3d-play-1280x720.png", size=SIZE_1280x720)
    return sw.saved


# ---------------------------------------------------------------------------------- every game
def save_size_screenshots(out: str | Path, *, games: Sequence[str] | None = None,
                          options: ShotOptions = ShotOptions()) -> list[Path]:
    """``<size>/<game>.png`` for every game of ``games`` (registry keys; None: all) and
    every entry of :data:`SIZES`, in one window (see :func:`prepare_game`)."""
    out = Path(out)
    with screenshot_window(out) as sw:
        for key in (all_games() if games is None else games):
            prepare_game(sw, key, options)
            sw.shot_sizes(lambda folder: f"{folder}/{key}.png")
    return sw.saved


def _snakes(out: Path, o: ShotOptions) -> list[Path]:
    return save_snakes_screenshots(out, games=o.sim_games)


def _file(out: Path, o: ShotOptions) -> list[Path]:
    return save_file_screenshots(out)


def _ttt(out: Path, o: ShotOptions) -> list[Path]:
    from mdpviz.screenshot_search import save_search_screenshots

    return save_ttt_screenshots(out, games=o.sim_games) + save_search_screenshots(out)


def _risk_ttt(out: Path, o: ShotOptions) -> list[Path]:
    return save_risk_screenshots(out, solve_4x4=o.exact_4x4)


def save_attt_screenshots(out_dir: str | Path, *, games: int = 10_000) -> list[Path]:
    """Anti-tic-tac-toe screenshots for the README (``python -m mdpviz.screenshots --games attt``): three
    best-response rounds stepped (the board shows round 3's best response, solved at once) and a move
    played, at the default size (``attt.png``) and at 1280 x 720 (``attt-1280x720.png``); then the
    matchups simulated, ``games`` games each (``attt-matchups.png``). Returns the files written."""
    with screenshot_window(out_dir) as sw:
        w = sw.window
        w.switch_game("attt")
        g = w.game
        for k in range(3):
            g.rounds.step()
            sw.wait(lambda: not g.rounds.busy and len(g.astate.rounds) == k + 1, what=f"best-response round {k + 1}")
        sw.wait(lambda: w.controller.state == "converged", what="the solve of round 3's MDP")  # solved at once
        sw.redraw()
        g.board.click_cell(4)
        sw.shot("attt.png")
        sw.shot("attt-1280x720.png", size=SIZE_1280x720)
        sw.simulate(games)
        sw.shot("attt-matchups.png")
    return sw.saved


def _attt(out: Path, o: ShotOptions) -> list[Path]:
    return save_attt_screenshots(out, games=o.sim_games)


def save_checkers_screenshots(out: str | Path, *, games: int = 10_000) -> list[Path]:
    """Checkers screenshots for the README (``python -m mdpviz.screenshots --games checkers``), the
    window's default variant (5x5, 1 row, 20 plies):

    * ``checkers-greedy.png``: solved at the seed's greedy discount, one move in, a piece's moves shown;
    * ``checkers-far-sighted.png``: the same position solved far-sighted;
    * ``checkers-matchups.png``: the matchups simulated (``games`` games each, exact beside them);
    * ``checkers-1280x720.png``: the same at 1280 x 720 with the inspector.

    Returns the files written."""
    with screenshot_window(out) as sw:
        w = sw.window
        w.switch_game("checkers")
        g = w.game
        sw.wait(lambda: w.controller.mdp is not None and g.session.built() is not None, what="the checkers compile")
        sw.solve()
        b = g.board
        mv = next(m for m in b.model.moves(b.position) if m.label == "c1-d2")  # one move in
        b.click_cell(mv.origin)
        b.click_cell(mv.cell)
        mv = b.model.moves(b.position)
        b.click_cell(mv[b.view().greedy].origin)
        sw.shot("checkers-greedy.png")

        g.editor().far_button.click()
        sw.wait_built("the far-sighted model")
        sw.solve()
        b.click_cell(b.model.moves(b.position)[b.view().greedy].origin)
        sw.shot("checkers-far-sighted.png")

        sw.simulate(games)
        sw.shot("checkers-matchups.png")

        w.inspector_dock.raise_()
        sw.shot("checkers-1280x720.png", size=SIZE_1280x720)
    return sw.saved


def _checkers(out: Path, o: ShotOptions) -> list[Path]:
    return save_checkers_screenshots(out, games=o.sim_games)


def _ttt3d(out: Path, o: ShotOptions) -> list[Path]:
    return save_ttt3d_screenshots(out, episodes=o.episodes, sim_games=o.sim_games)


def save_gridworld_screenshots(out: str | Path) -> list[Path]:
    """``gridworld-values.png`` (CS188's DiscountGrid with living reward -0.1, solved: values as
    colour and numbers, the policy as arrows, the start's backup inspected) and
    ``gridworld-q-1280x720.png`` (the book grid in presenter mode with every action's Q as triangles)."""
    from mdpviz.models import gridworld as gw

    with screenshot_window(out) as sw:
        w = sw.window
        w.switch_game("gridworld")
        g = w.game
        g.set_map(gw.BUILTIN_MAPS["discount"])
        g.set_living_reward(-0.1)
        sw.reset(registry.DEFAULT_SOLVER)
        sw.solve()
        board = g.board_widget()
        w.solving.inspect(g.session.start_state())
        w.inspector_dock.raise_()
        sw.shot("gridworld-values.png")
        g.set_map(gw.BUILTIN_MAPS["book"])
        g.set_living_reward(0.0)
        sw.reset(registry.DEFAULT_SOLVER)
        sw.solve()
        board.set_q_view(True)
        w.solving.inspect(g.session.start_state())
        w.view.set_presenter(True)
        sw.shot("gridworld-q-1280x720.png", size=SIZE_1280x720)
        w.view.set_presenter(False)
        board.set_q_view(False)
    return sw.saved


def save_gym_screenshots(out: str | Path) -> list[Path]:
    """``gym-frozenlake.png``: Gymnasium's FrozenLake 8x8 (slippery) imported and solved; nothing
    when Gymnasium is not installed (noted on stderr)."""
    import importlib.util

    if importlib.util.find_spec("gymnasium") is None:
        print('screenshots: gym skipped: Gymnasium is not installed (pip install "mdpviz[gym]")', file=sys.stderr)
        return []
    with screenshot_window(out) as sw:
        w = sw.window
        w.switch_game("gym")
        w.game.set_environment("FrozenLake-v1", {"map_name": "8x8", "is_slippery": True})
        sw.reset(registry.DEFAULT_SOLVER)
        sw.solve()
        sw.shot("gym-frozenlake.png")
    return sw.saved


def _gridworld(out: Path, o: ShotOptions) -> list[Path]:
    from mdpviz.screenshot_planning import save_planning_screenshots

    return (save_gridworld_screenshots(out) + save_theory_screenshots(out, games=o.sim_games)
            + save_policy_diff_screenshots(out) + save_sensitivity_screenshots(out) + save_planning_screenshots(out))


def _gym(out: Path, o: ShotOptions) -> list[Path]:
    return save_gym_screenshots(out)


def _policy_gradient(out: Path, o: ShotOptions) -> list[Path]:
    from mdpviz.screenshot_pg import save_pg_screenshots

    return save_pg_screenshots(out)


def _bandit(out: Path, o: ShotOptions) -> list[Path]:
    from mdpviz.screenshot_bandit import save_bandit_screenshots
    from mdpviz.screenshot_testbed import save_testbed_screenshots

    return save_bandit_screenshots(out) + save_testbed_screenshots(out)


def _approximation(key: str) -> Callable[[Path, ShotOptions], list[Path]]:
    def take_figure(out: Path, o: ShotOptions) -> list[Path]:
        from mdpviz.screenshot_approx import save_approximation_screenshots

        return save_approximation_screenshots(out, key)
    return take_figure


SCREENSHOTS: dict[str, Callable[[Path, ShotOptions], list[Path]]] = {
    "snakes": _snakes,
    "file": _file,
    "ttt": _ttt,
    "risk_ttt": _risk_ttt,
    "attt": _attt,
    "checkers": _checkers,
    "ttt3d": _ttt3d,
    "gridworld": _gridworld,
    "gym": _gym,
    "randomwalk": _approximation("randomwalk"),
    "baird": _approximation("baird"),
    "mountaincar": _approximation("mountaincar"),
    "corridor": _policy_gradient,
    "bandit": _bandit,
}
"""The README gallery's recipe of each game that has one, by game key. Every registered game is
photographed at the three sizes (:func:`save_size_screenshots`) whether it has a recipe or not."""


def all_games() -> list[str]:
    """Every game of the registry (:mod:`mdpviz.models.kit.game.registry`), in the game picker's order."""
    from mdpviz.models.kit.game.registry import keys

    return list(keys())


def parse_games(text: str) -> list[str]:
    """``"snakes,ttt"`` -> ``["snakes", "ttt"]`` (``"all"``: every game; any spelling the registry
    accepts, e.g. ``risk-ttt``); ValueError naming an unknown key."""
    from mdpviz.models.kit.game.registry import canonical

    names = [k.strip() for k in text.split(",") if k.strip()]
    if names == ["all"]:
        return [*all_games(), *STAGED]
    keys, unknown = [], []
    for k in names:
        if k in STAGED:  # (a picture of a game staged another way, not a game of its own)
            keys.append(k)
            continue
        try:
            keys.append(canonical(k))
        except ValueError:
            unknown.append(k)
    if unknown or not keys:
        raise ValueError(f"--games: unknown game {', '.join(map(repr, unknown)) or '(none given)'}; "
                         f"choose from {', '.join(all_games())}, {', '.join(STAGED)} or all")
    return list(dict.fromkeys(keys))


def take(out: str | Path, *, games: Sequence[str] | None = None, options: ShotOptions = ShotOptions(),
         sizes: bool = True, gallery: bool = True) -> list[Path]:
    """Save the screenshots of ``games`` (registry keys; None: all) into ``out``: the
    per-size pictures (``sizes``) and the README gallery (``gallery``); returns the files.

    pyqtgraph draws antialiased while they are taken, as in the app (:func:`mdpviz.app.run`)."""
    import pyqtgraph as pg

    keys = parse_games("all") if games is None else parse_games(",".join(games))
    out = Path(out)
    antialias = pg.getConfigOption("antialias")
    pg.setConfigOptions(antialias=True)
    saved: list[Path] = []
    try:
        if sizes:
            saved += save_size_screenshots(out, games=keys, options=options)
        for key in keys if gallery else ():
            if key in SCREENSHOTS:
                saved += SCREENSHOTS[key](out, options)
            if key in LEARNING_SHOTS:
                saved += save_learning_screenshots(out, key)
            if key in CHAIN_SHOTS:
                saved += save_chain_screenshots(out, key)
    finally:
        pg.setConfigOptions(antialias=antialias)
    return saved


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m mdpviz.screenshots", description=__doc__.splitlines()[0])
    p.add_argument("--out", default="assets/screenshots", help="folder for the PNG files (default assets/screenshots)")
    p.add_argument("--games", default="all",
                   help=f"comma-separated games to photograph: {','.join(all_games())} (default all)")
    p.add_argument("--sim-games", type=int, default=ShotOptions.sim_games,
                   help="games per strategy or matchup in the simulation pictures (default %(default)s)")
    p.add_argument("--episodes", type=int, default=ShotOptions.episodes,
                   help="training games of the 3D tic-tac-toe agent (default %(default)s)")
    p.add_argument("--no-exact-4x4", dest="exact_4x4", action="store_false",
                   help="do not wait for the exact 4x4 risk tic-tac-toe solve (no risk-ttt-4x4-solved.png)")
    p.add_argument("--no-sizes", dest="sizes", action="store_false",
                   help="skip the per-size pictures (1920x1080/, 1366x768/, presenter-1280x720/)")
    p.add_argument("--no-gallery", dest="gallery", action="store_false", help="skip the README gallery pictures")
    args = p.parse_args(argv)
    try:
        keys = parse_games(args.games)
    except ValueError as e:
        p.error(str(e))
    if args.sim_games < 1 or args.episodes < 1:
        p.error(f"--sim-games and --episodes must be at least 1, got {args.sim_games} and {args.episodes}")
    t0 = time.perf_counter()
    paths = take(Path(args.out), games=keys,
                 options=ShotOptions(sim_games=args.sim_games, episodes=args.episodes, exact_4x4=args.exact_4x4),
                 sizes=args.sizes, gallery=args.gallery)
    for path in paths:
        print(path)
    print(f"{len(paths)} pictures in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return 0


__all__ = ["CHAIN_SHOTS", "DEFAULT_SIZE", "LAYOUT", "SNAKES_TIES", "STAGED", "SUTTON_GRID", "SUTTON_OPTIMAL", "TIES_LAYOUT", "TTT_TIES", "LEARNING_SHOTS", "SCREENSHOTS", "SIM_SEED", "SIZES", "SIZE_1280x720", "prepare_game",
           "save_size_screenshots", "SMALL_MDP", "QuietDialogs", "Shot",
           "ShotOptions", "ShotWindow", "all_games", "main", "parse_games", "save_attt_screenshots",
           "save_checkers_screenshots", "save_file_screenshots", "save_policy_diff_screenshots", "save_learning_screenshots", "save_risk_screenshots", "save_snakes_screenshots",
           "save_ttt3d_screenshots", "save_ttt_screenshots", "screenshot_window", "take"]


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
