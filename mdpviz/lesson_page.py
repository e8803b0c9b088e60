"""A lesson as one self-contained web page (issue 40): ``mdpviz export --figure html`` and the window's
File > Export lesson as web page.

The page holds everything inline (no URL it loads): the board at every kept sweep as a PNG data URI, drawn
by the window's own board drawing as the GIF export draws its frames (:func:`mdpviz.export.make_board`:
one drawing path, no second renderer of boards in JavaScript), each cell's rectangle on those frames (a
click or tap on a cell inspects it), the numbers as JSON in ``<script type="application/json"
id="mdpviz-lesson">`` (the keys of :data:`LESSON_KEYS`; its ``sweeps`` are ``mdpviz solve --history
--json``'s ``history``: ``sweep``, ``delta``, ``values`` in model state order, ``policy`` as action labels,
null where terminal), the game's lesson text, the settings, the mdpviz version and the command.

The inspector's backup (Sutton and Barto eq. 4.9 / 3.14: Q(s, a) = sum p (r + gamma V(s')), the window's
inspector text) is computed by the page's script from embedded rows for models of at most
:data:`INSPECT_STATES` states: each state's actions with their outcomes (p, r, s', note), and per sweep
which values the backup reads (:func:`~mdpviz.models.kit.pictures.display.backup_sources`: the previous
sweep's for a synchronous sweep, this sweep's for an improvement, the in-place mixture for Gauss-Seidel).
Larger models show each state's value and greedy action only. A learner's run (the window's, or one run here
by :func:`learn_game` for ``mdpviz export --method <learner>``: its episodes as the board's "learned" view draws
them, :func:`learning_sweeps`) shows the learned value and greedy action: no backup made them. Its ``sweeps``
hold per kept episode ``sweep`` (the episode), ``values`` (learned V), ``policy`` (the learned greedy action)
and ``delta`` (the largest error |V - V*| over the non-terminal states, the window's learning curve).

Split in two so the tests stay cheap: :func:`lesson_data` (the numbers: no Qt drawing) and
:func:`draw_frames` (Qt paints, on the GUI thread); :func:`page_html` joins them.
"""
from __future__ import annotations

import base64
import html
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal

from mdpviz.export import SolvedGame, frame_indices, headless

NOT_METHOD_IDS = {"evaluate": "a snapshot's phase (policy iteration's evaluation step), as the inspector reads it"}
"""Words of this module that are not method ids (the registry test's scan reads this declaration)."""

LIMIT = 200
"""Most sweeps a page keeps by default (``--max-sweeps``); a longer solve keeps evenly spaced ones and the last."""
NUMBER_BUDGET = 200_000
"""Most values a page embeds (kept sweeps x states): a large model keeps fewer sweeps (at least 2), and says so."""
INSPECT_STATES = 400
"""Largest model whose backups the page embeds (each state's actions and outcomes) for the inspector."""
FRAME_WIDTH = 720
"""Width in pixels of each frame (its height follows the board's shape); the page scales it to the screen."""
FRAME_BYTES = 1_200_000
"""The frames' budget (PNG bytes, before base64): when the last frame (the answer, drawn first) times the frames kept
would pass it, every frame is drawn narrower (down to :data:`MIN_FRAME_WIDTH`), so that a course file's 91 sweeps stay under 2 MB."""
MIN_FRAME_WIDTH = 480
"""The narrowest frame a page draws to stay in :data:`FRAME_BYTES`."""
LESSON_KEYS = ("game", "title", "method", "method_name", "discount", "objective", "states", "actions", "start",
               "sweeps", "total_sweeps", "sampled", "max_sweeps", "settings", "command", "version", "inspect", "kept",
               "unit", "learning")
"""The keys of the page's JSON (``mdpviz-lesson``)."""
TEMPLATE = Path(__file__).with_name("assets") / "lesson_page.html"
"""The page's HTML, style and script, with ``__TITLE__``, ``__LESSON__``, ``__FRAMES__`` and ``__TEXT__`` to fill."""


def check_page_path(path: str | Path) -> Path:
    """``path`` if it names an .html (or .htm) file; ValueError naming it otherwise."""
    path = Path(path)
    if path.suffix.lower() not in (".html", ".htm"):
        raise ValueError(f"{path}: a lesson page is written as .html, not '{path.suffix or '(no extension)'}'")
    return path


def check_limit(limit: int) -> int:
    """``limit`` (the most sweeps kept) as an int of at least 2; ValueError naming --max-sweeps otherwise."""
    if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 2:
        raise ValueError(f"--max-sweeps must be a whole number of at least 2, got {limit!r}")
    return int(limit)


def kept_indices(n_sweeps: int, n_states: int, limit: int = LIMIT) -> list[int]:
    """The history indices a page keeps: all of them, or evenly spaced ones with the first and the last
    (:func:`~mdpviz.export.frame_indices`), at most ``limit`` and at most :data:`NUMBER_BUDGET` values."""
    cap = min(check_limit(limit), max(2, NUMBER_BUDGET // max(1, int(n_states))))
    return frame_indices(int(n_sweeps), cap)


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def _policy_labels(model, mdp, policy) -> list[str | None]:
    return [None if mdp.terminal[s] or int(a) < 0 else model.action_label(s, int(a)) for s, a in enumerate(policy)]


def _when(sw) -> str:
    """The inspector's words for a snapshot (as the window's inspector titles it)."""
    if sw.phase == "sweep":
        return f"after sweep {sw.iteration}"
    return "(linear program)" if sw.phase == "lp" else f"after round {sw.iteration}, {sw.phase}"


def view_facts(view, n_states: int) -> dict:
    """What the page takes from the game's window view (read on the GUI thread): the inspector's title of
    every state (of a model small enough for the inspector) and whether the board draws each sweep's own
    policy (then the backups read the values that policy was chosen from: the window's rule)."""
    if view is None:
        return {}
    board = view.board_widget()
    titles = [view.state_title(s) for s in range(n_states)] if n_states <= INSPECT_STATES else None
    return {"titles": titles, "sweep_policy": bool(getattr(board, "draws_sweep_policy", False))}


def _inspect(game, facts: dict, model, solved: SolvedGame, kept: Sequence[int]) -> dict | None:
    """What the page's inspector computes its backups from (None for a model over :data:`INSPECT_STATES`)."""
    from mdpviz.models.kit.pictures.display import backup_sources, merge_terms
    from mdpviz.solvers.value_iteration import default_block_size

    mdp, hist = solved.mdp, solved.history
    n = mdp.n_states
    if n > INSPECT_STATES or hist[0].phase == "episode":  # (a learner's values come from experience, not a backup)
        return None
    zeros = np.zeros(n)
    rows = []
    for s in range(n):
        if mdp.terminal[s]:
            rows.append([])
            continue
        acts = []
        for a in mdp.actions_of(s):
            terms = game.backup_terms(s, int(a), zeros)
            terms = terms if len(terms) <= 12 else merge_terms(terms)
            acts.append([int(a), game.action_name(int(a)),
                         [[float(t.prob), float(t.reward), int(t.next_state), t.note] for t in terms]])
        rows.append(acts)
    block = default_block_size(n)
    sweep_policy = bool(facts.get("sweep_policy", False))
    sources = []
    for i in kept:
        sw = hist[i]
        src, text = backup_sources(hist, i, 0, n_states=n, gs_block=block, greedy_of_shown=not sweep_policy)
        mixed = "already updated in place" in text
        rule = "mixed" if mixed else ("cur" if int(src[-1]) == i else "prev")
        entry = {"rule": rule, "text": text, "when": _when(sw),
                 "evaluate": bool(sw.phase == "evaluate" and sweep_policy)}
        if rule != "cur" and i > 0 and (i - 1) not in kept:
            entry["prev"] = [float(v) for v in hist[i - 1].values]  # the previous sweep is not kept
        sources.append(entry)
    labels = list(mdp.state_labels) if mdp.state_labels else []
    titles = facts.get("titles") or [game.state_name(s) for s in range(n)]
    return {
        "rows": rows, "block": block, "sources": sources, "unit": game.unit if game.unit == "turns" else "",
        "names": [(labels[s] if labels and labels[s] else str(s)) for s in range(n)],
        "titles": list(titles),
        "sense": [int(x) for x in mdp.sense],
    }


def lesson_data(game, solved: SolvedGame, *, limit: int = LIMIT, command: str = "", view=None,
                facts: dict | None = None, at: Sequence[int] | None = None) -> dict:
    """The page's JSON (:data:`LESSON_KEYS`): ``game`` a headless game (or a window view), ``solved`` its solve
    with every snapshot. Pure computation, no drawing (the window runs it on its job thread); the game's window
    ``view`` only names the inspector's states and tells the board's rule as the window does: ``facts``
    (:func:`view_facts`, read on the GUI thread), else read from ``view`` here. ``at``: when ``solved.history``
    holds only the snapshots a page keeps of a longer run (:func:`learn_game`), the index of each in the run
    (which must be :func:`kept_indices` of the run's length, ``at[-1] + 1``: ValueError otherwise)."""
    import mdpviz

    hg = headless(game)
    model = hg.model()
    mdp, hist = solved.mdp, solved.history
    if not hist:
        raise ValueError("nothing to export: the solve has no sweeps yet")
    from mdpviz.solvers import Sweep

    if not isinstance(hist[0], Sweep):
        raise ValueError("a lesson page shows snapshots as a board draws them: a learner's through learning_sweeps")
    total = len(hist) if at is None else int(at[-1]) + 1
    kept = kept_indices(total, mdp.n_states, limit)
    if at is None:
        picks = kept
    elif list(at) == kept and len(hist) == len(kept):
        picks = list(range(len(hist)))
    else:
        raise ValueError(f"the recorded snapshots are not those a page of {total} keeps (at most {limit})")
    from mdpviz.solvers import registry

    if not all(np.all(np.isfinite(np.asarray(hist[i].values, dtype=np.float64))) for i in picks):
        raise ValueError(f"{hg.title}: the values are not finite (rewards too large for floating point, or a policy "
                         "that never ends at discount 1): nothing to show")
    sweeps = [{"sweep": int(sw.iteration), "phase": sw.phase, "delta": _finite(sw.delta),
               "values": [float(v) for v in sw.values], "policy": _policy_labels(model, mdp, sw.policy)}
              for sw in (hist[i] for i in picks)]
    try:
        settings = hg.spec.to_dict(hg.model_input())
    except (TypeError, ValueError, AttributeError):
        settings = {}
    start = int(model.start_state())
    return {
        "game": hg.key, "title": hg.title, "method": solved.method, "method_name": registry.title(solved.method),
        "discount": float(mdp.discount), "objective": mdp.objective, "states": model.state_labels(),
        "actions": [model.action_label(0, a) for a in range(mdp.n_actions)], "start": start,
        "sweeps": sweeps, "total_sweeps": total, "sampled": len(kept) < total, "max_sweeps": int(limit),
        "settings": json.loads(json.dumps(settings, default=str)), "command": command,
        "version": mdpviz.__version__,
        "inspect": None if at is not None else _inspect(hg, facts if facts is not None else view_facts(view, mdp.n_states),
                                                        model, solved, kept),
        "kept": kept, "unit": registry.get(solved.method).unit, "learning": learning_settings(solved),
    }


def learning_settings(solved: SolvedGame) -> dict | None:
    """How a learning run learned, as its page lists it (None for a solve): episodes, the step size as a student
    writes it (``alpha``: "0.1", "1/N"), the options the method takes (epsilon and its decay, n, visits, the
    evaluated policy, exploring starts), the initial value, the cap on an episode's steps and the seed."""
    from dataclasses import fields

    from mdpviz.solvers import registry
    from mdpviz.solvers.learning import LearningSettings

    if not solved.history or solved.history[0].phase != "episode" or not registry.is_kind(solved.method, "learner"):
        return None
    names = {f.name for f in fields(LearningSettings)} - {"method"}
    try:
        s = LearningSettings(method=solved.method, **{k: v for k, v in solved.options.items() if k in names})
    except (TypeError, ValueError):
        return {}
    spec = registry.get(solved.method)
    out: dict = {"episodes": int(s.episodes), "alpha": s.step_text()}
    for name in ("epsilon", "epsilon_decay", "epsilon_min", "n", "visits", "policy", "exploring_starts"):
        if spec.takes(name):
            out[name] = getattr(s, name)
    out.update(initial=float(s.initial), max_steps=int(s.max_steps), seed=int(s.seed))
    return out


def data_job(game, solved: SolvedGame, *, limit: int = LIMIT, command: str = "", facts: dict | None = None):
    """:func:`lesson_data` as a job generator (the window runs it on the controller's job thread)."""
    from mdpviz.core.jobs import JobProgress

    yield JobProgress(0, 1, "the numbers of every sweep")
    return lesson_data(game, solved, limit=limit, command=command, facts=facts or {})


def learning_sweeps(steps: Sequence, mdp) -> tuple[tuple, tuple]:
    """A learner's snapshots as a page draws them: ``(shown, references)``, each as the board's "learned" view
    shows it (:func:`~mdpviz.models.kit.pictures.display.learning_view`: the learned V and greedy policy, and a
    reference whose policy marks the states whose learned action is not optimal). ValueError for snapshots of
    another kind (function approximation, policy gradient): they hold no table of learned values to draw."""
    from mdpviz.models.kit.pictures.display import learning_view
    from mdpviz.solvers.learning import LearningStep

    if not all(isinstance(s, LearningStep) for s in steps):
        raise ValueError("a lesson page of a function-approximation or policy-gradient run is not built yet")
    views = [learning_view(s, mdp, "learned") for s in steps]
    return tuple(v[0] for v in views), tuple(v[1] for v in views)


def learn_game(game, method: str, options: dict, *, limit: int = LIMIT,
               notify: Callable[[float], None] | None = None) -> tuple[SolvedGame, tuple, list[int]]:
    """Run the tabular learner ``method`` on ``game`` (a headless game) from its start state, ``options`` the
    fields of :class:`~mdpviz.solvers.learning.LearningSettings` as ``mdpviz learn`` gives them (``episodes``
    among them), and record the episodes a page keeps (:func:`kept_indices`: every one up to ``limit``, else
    evenly spaced ones with the first and the last), the learner asked each time for the episodes up to the
    next kept one (its seeded draws do not depend on that: the numbers of a snapshot per episode).
    ``notify(seconds)``: told before numba compiles the loop (its first use here).

    ``(solved, references, at)`` for :func:`write_page`: the kept episodes as the board draws them
    (:func:`learning_sweeps`) on the window's colour scale (V*'s range, as the window's controller finds it),
    each one's reference (the states whose learned action is not optimal) and its index in the run."""
    from mdpviz.export import model_headless
    from mdpviz.models.kit.pictures.value_range import solve_range
    from mdpviz.solvers import check_value_scale, registry
    from mdpviz.solvers import start as start_method
    from mdpviz.solvers.learning import LearningSettings
    from mdpviz.solvers.learning_warmup import prepare_loop

    if not registry.is_kind(method, "learner"):
        raise ValueError(f"{method!r} is not a tabular learner ({', '.join(registry.ids('learner'))})")
    hg = headless(game)
    mdp = model_headless(hg)
    check_value_scale(mdp)
    episodes = int(options.get("episodes", LearningSettings.episodes))
    at = kept_indices(episodes, mdp.n_states, limit)
    # every option and the start are checked here, before the loop is compiled (ValueError: one line)
    gen = start_method(method, mdp, start=int(hg.start_state()), eval_every=0, **options)
    prepare_loop(notify=notify)
    steps = []
    try:
        step = next(gen)
        steps.append(step)
        for i in at[1:]:
            while step.episode < i + 1:  # (a learner that takes no number sent in goes one snapshot at a time)
                step = gen.send(i + 1 - step.episode)
            steps.append(step)
    except StopIteration:
        pass
    finally:
        gen.close()
    if [s.episode for s in steps] != [i + 1 for i in at]:
        raise ValueError(f"{method}: its snapshots are not one per episode asked for (episodes "
                         f"{', '.join(str(s.episode) for s in steps[:5])}...)")
    shown, refs = learning_sweeps(steps, mdp)
    rng = solve_range(mdp, shown, method)  # the window's rule: V*'s range (a small model), else the values seen
    lo, hi = (rng.lo, rng.hi) if rng is not None else (0.0, 1.0)
    solved = SolvedGame(mdp=mdp, method=method, options=dict(options, start=int(hg.start_state())), history=shown,
                        lo=lo, hi=hi, value_range=rng)
    return solved, refs, at


@dataclass(frozen=True)
class Frames:
    """The drawn frames of a page: PNG bytes per kept sweep, the image size and each cell's rectangle."""

    images: tuple[bytes, ...]
    size: tuple[int, int]
    rects: dict[int, tuple[float, float, float, float]]
    """State -> (x, y, w, h) as fractions of the image (empty: a board without cells to click)."""


def _frame_height(board, width: int) -> int:
    """A frame's height for ``width``: the board's shape (a cell board's layout, a grid's rows and columns),
    plus room for its caption and controls."""
    from mdpviz import export as ex
    from mdpviz.widgets.board import BoardView

    if isinstance(board, BoardView):
        aspect = ex.board_aspect(board)
    else:
        geom = getattr(getattr(board, "game", None), "geometry", lambda: None)()
        aspect = geom.cols / geom.rows if geom is not None else 1.25
    return int(max(240, min(width * 1.1, width / max(aspect, 0.5) * 0.8 + 120)))


def _png(img) -> bytes:
    """``img`` (a QImage) as PNG bytes with at most 256 colours (Pillow's fast octree, as the GIF export
    quantizes its frames to a palette): a board's flat colours lose nothing visible and the page is 4x smaller."""
    import io

    from PIL import Image
    from PySide6.QtGui import QImage

    rgb = img if img.format() == QImage.Format.Format_RGB888 else img.convertToFormat(QImage.Format.Format_RGB888)
    im = Image.frombuffer("RGB", (rgb.width(), rgb.height()), bytes(rgb.constBits()), "raw", "RGB",
                          rgb.bytesPerLine(), 1)
    out = io.BytesIO()
    im.quantize(colors=256, method=Image.Quantize.FASTOCTREE).save(out, "PNG", compress_level=6)
    return out.getvalue()


class _FrameBox:
    """The board of a game and its colour bar laid out off screen at one size, shown at one snapshot after
    another: the board is the one :func:`~mdpviz.export.make_board` gives the GIF export, and each snapshot is
    shown on it as make_board shows one (its value range, the sweep with its caption and the one before)."""

    def __init__(self, view, solved: SolvedGame, width: int, height: int | None,
                 previous: Sequence | None = None, at: Sequence[int] | None = None) -> None:
        from PySide6.QtWidgets import QHBoxLayout, QWidget

        from mdpviz import export as ex
        from mdpviz.widgets.board import ColorBar

        self.view, self.solved, self.width = view, solved, width
        self.previous = previous
        """Per snapshot, the one the board compares it with (None: the snapshot before it, as make_board does; a
        learner's: the reference whose policy marks the states whose learned action is not optimal)."""
        self.at = at
        """Per snapshot, its index in the run when the history holds only the kept ones (:func:`lesson_data`)."""
        self.board, scale = ex.make_board(view, solved.mdp, solved, -1)
        self.scale = ex.scale_of(view, solved)
        self.height = height or _frame_height(self.board, width)
        self.box = QWidget()
        self.box.setStyleSheet("background: white")
        lay = QHBoxLayout(self.box)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.board, 1)
        self.bar = None
        if self.board.findChild(ColorBar) is None:  # a board with its own colour bar keeps it (as the snapshot does)
            self.bar = ex.make_color_bar(scale, font_px=max(12, width // 50))
            lay.addWidget(self.bar)
        self.box.resize(width, self.height)
        lay.activate()

    def frame(self, i: int) -> bytes:
        """Snapshot ``i`` drawn, as PNG bytes."""
        from PySide6.QtGui import QColor, QImage, QPainter

        from mdpviz import export as ex

        hist = self.solved.history
        self.board.set_value_range(self.solved.value_range)
        prev = self.previous[i] if self.previous is not None else (hist[i - 1] if i > 0 else None)
        run = None if self.at is None else (int(self.at[i]), int(self.at[-1]) + 1)
        self.board.show_sweep(hist[i], self.scale, caption=ex.sweep_caption_of(hist, i, run=run), previous=prev)
        if self.bar is not None:
            self.bar.show_scale(self.board.shown_scale or self.scale)
        ex.settle(self.box)
        img = QImage(self.width, self.height, QImage.Format.Format_RGB32)
        img.fill(QColor("white"))
        p = QPainter(img)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        try:
            ex._paint_into(self.box, p)  # the export's own painting of a widget laid out off screen
        finally:
            p.end()
        return _png(img)

    def rects(self) -> dict[int, tuple[float, float, float, float]]:
        """State -> its cell's rectangle as fractions of the frame (boards that draw cells: ``state_rect``)."""
        from PySide6.QtCore import QPoint, QPointF

        out = {}
        if not hasattr(self.board, "state_rect"):
            return out
        o = QPointF(self.board.mapTo(self.box, QPoint(0, 0)))
        for s in range(self.solved.mdp.n_states):
            r = self.board.state_rect(s)
            if r is None or r.isEmpty():
                continue
            r = r.translated(o)
            out[s] = (round(r.x() / self.width, 5), round(r.y() / self.height, 5),
                      round(r.width() / self.width, 5), round(r.height() / self.height, 5))
        return out

    def close(self) -> None:
        from mdpviz import export as ex

        ex._dispose(self.box)


def frame_steps(view, solved: SolvedGame, kept: Sequence[int], *, width: int = FRAME_WIDTH,
                previous: Sequence | None = None, at: Sequence[int] | None = None):
    """The board at every kept sweep as PNG bytes, drawn as :func:`~mdpviz.export.export_board` draws the GIF's
    frames (the game's board, and the colour bar unless the board has its own, laid out off screen), on the
    GUI thread (Qt paints widgets only there), one frame per step: a job generator that yields a
    :class:`~mdpviz.core.jobs.JobProgress` after each frame and returns the :class:`Frames`. The answer is drawn
    first (the most text): its size sets every frame's width within the page's budget. ``previous`` and
    ``at``: as :class:`_FrameBox` takes them (a learning run's references and episodes)."""
    from mdpviz import export as ex
    from mdpviz.core.jobs import JobProgress

    ex.ensure_app()
    if not kept:
        raise ValueError("nothing to draw: no sweeps kept")
    n = len(kept)
    fb = _FrameBox(view, solved, width, None, previous, at)
    try:
        last = fb.frame(kept[-1])
        if len(last) * n > FRAME_BYTES and width > MIN_FRAME_WIDTH:
            fb.close()
            width = max(MIN_FRAME_WIDTH, int(width * (FRAME_BYTES / (len(last) * n)) ** 0.8))
            fb = _FrameBox(view, solved, width, None, previous, at)
            last = fb.frame(kept[-1])
        rects = fb.rects()
        images = []
        for k, i in enumerate(kept[:-1]):
            yield JobProgress(k, n, f"frame {k} of {n}")
            images.append(fb.frame(i))
        yield JobProgress(n, n, f"frame {n} of {n}")
        return Frames(tuple(images) + (last,), (fb.width, int(fb.height)), rects)
    finally:
        fb.close()


def draw_frames(view, solved: SolvedGame, kept: Sequence[int], *, width: int = FRAME_WIDTH,
                progress: Callable[[int, int, str], None] | None = None,
                cancelled: Callable[[], bool] | None = None, previous: Sequence | None = None,
                at: Sequence[int] | None = None) -> Frames | None:
    """:func:`frame_steps` driven here to its end (None when ``cancelled()`` says so between two frames)."""
    from mdpviz.core.jobs import drive

    return drive(frame_steps(view, solved, kept, width=width, previous=previous, at=at), progress=progress,
                 cancelled=cancelled)


def drawing_view(view):
    """The view the window's page export draws its frames with: ``view`` itself when its board is a cell board
    (:func:`~mdpviz.export.make_board` draws a fresh one of those), else a view of its own on a twin of the
    game (the same settings and display settings, the model the window built, not built again), whose board is
    laid out off screen while the window's stays where it is. ValueError for a game whose model follows a
    driver's rounds (anti-tic-tac-toe): its twin would not be at the window's round."""
    from mdpviz.models.kit.game.game_model import Game
    from mdpviz.widgets.cell_board import CellBoard
    from mdpviz.widgets.games import view_class
    from mdpviz.widgets.session import GameSession

    if isinstance(view.board_widget(), CellBoard):
        return view
    hg = headless(view)
    if hg.driver is not None:
        raise ValueError(f"{hg.title}: its model follows the window's rounds, which a page drawn off screen cannot "
                         f"follow; write its page with mdpviz export --game {hg.key} --figure html")
    twin = Game(hg.spec, hg.settings)
    twin.display.update(hg.display)
    key, built = hg.build_key(), hg.built()
    if built is not None and twin.build_key() == key:
        twin.keep(key, built)
    return view_class(hg.key)(GameSession(hg.spec, game=twin))


class PageWriter(QObject):
    """Writes a lesson page in the window: the frames one per event-loop turn (Qt paints widgets on the GUI
    thread only, so the window stays responsive between two), then the page; ``cancel()`` stops between two
    frames and writes nothing. ``data``: :func:`lesson_data`, computed before (the window: on its job thread)."""

    progress = Signal(int, int, str)
    """(frames drawn, frames in all, text)."""
    finished = Signal(object)
    """The Path written, or None when cancelled."""
    failed = Signal(str)
    """Drawing or writing failed: the message (no file is left)."""

    def __init__(self, view, solved: SolvedGame, path: str | Path, data: dict, *, width: int = FRAME_WIDTH,
                 previous: Sequence | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.previous = previous
        """Per snapshot, what its board compares it with (:class:`_FrameBox`); None: the snapshot before it."""
        self.path = check_page_path(path)
        self.view, self.solved, self.data, self.width = view, solved, data, width
        self.kept: list[int] = list(data["kept"])
        self._steps = None
        """The frames being drawn (:func:`frame_steps`), one per turn of the event loop."""
        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._tick)

    @property
    def running(self) -> bool:
        return self._timer.isActive()

    def start(self) -> None:
        self._timer.start()

    def cancel(self) -> None:
        if self._timer.isActive():
            self._timer.stop()
            self._close()
            self.finished.emit(None)

    def _close(self) -> None:
        if self._steps is not None:
            self._steps.close()  # (its board laid out off screen goes with it)
            self._steps = None

    def _tick(self) -> None:
        try:
            done = self._step()
        except Exception as e:  # noqa: BLE001 - a frame that cannot be drawn stops the writer, as one message
            from mdpviz.core.jobs import error_text

            self._timer.stop()
            self._close()
            self.failed.emit(error_text(e))
            return
        if done:
            self._timer.stop()
            self.finished.emit(self.path)

    def _step(self) -> bool:
        if self._steps is None:
            self._steps = frame_steps(self.view, self.solved, self.kept, width=self.width, previous=self.previous)
        try:
            p = next(self._steps)
        except StopIteration as stop:
            self._steps = None
            write_text_atomic(self.path, page_html(self.data, stop.value,
                                                   lesson_html=headless(self.view).lesson().html()))
            return True
        if p.done:
            self.progress.emit(p.done, p.total, p.text)
        return False


def write_text_atomic(path: Path, text: str) -> Path:
    """Write ``text`` through a temporary name in ``path``'s folder, renamed into place at the end: a failed
    write leaves no file (not even the temporary one)."""
    import os

    tmp = path.with_name(f".{path.stem}.tmp{path.suffix}")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path


def _script_json(obj: Any) -> str:
    """JSON safe inside a <script> element (no "</" closes it early)."""
    return json.dumps(obj, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")


def page_html(data: dict, frames: Frames, *, lesson_html: str = "") -> str:
    """The whole page: the template filled with the lesson's JSON, the frames and the lesson's text."""
    frames_json = {"size": list(frames.size), "rects": {str(s): r for s, r in frames.rects.items()},
                   "images": ["data:image/png;base64," + base64.b64encode(b).decode("ascii") for b in frames.images]}
    parts = {"TITLE": html.escape(f"{data['title']}: {data['method_name']} (mdpviz lesson)"),
             "LESSON": _script_json(data), "FRAMES": _script_json(frames_json), "TEXT": lesson_html}
    # one pass: a state named "__FRAMES__" in the data is not a place to fill
    return re.sub(r"__(TITLE|LESSON|FRAMES|TEXT)__", lambda m: parts[m.group(1)], TEMPLATE.read_text(encoding="utf-8"))


def write_page(view, solved: SolvedGame, path: str | Path, *, limit: int = LIMIT, command: str = "",
               frame_width: int = FRAME_WIDTH, progress: Callable[[int, int, str], None] | None = None,
               cancelled: Callable[[], bool] | None = None, previous: Sequence | None = None,
               at: Sequence[int] | None = None) -> Path | None:
    """Write the lesson page of ``solved`` (the game's window ``view`` draws the frames) to ``path``, through a
    temporary name in its folder renamed into place at the end (a failed export leaves no file). None if
    cancelled. ``previous`` and ``at``: a learning run's references and episodes (:func:`learn_game`)."""
    path = check_page_path(path)
    hg = headless(view)
    data = lesson_data(hg, solved, limit=limit, command=command, view=view, at=at)
    picks = data["kept"] if at is None else list(range(len(solved.history)))
    frames = draw_frames(view, solved, picks, width=frame_width, progress=progress, cancelled=cancelled,
                         previous=previous, at=at)
    if frames is None:
        return None
    return write_text_atomic(path, page_html(data, frames, lesson_html=hg.lesson().html()))


__all__ = ["FRAME_BYTES", "FRAME_WIDTH", "Frames", "INSPECT_STATES", "LESSON_KEYS", "LIMIT", "MIN_FRAME_WIDTH",
           "NUMBER_BUDGET", "PageWriter", "check_limit", "check_page_path", "data_job", "draw_frames", "drawing_view",
           "frame_steps",
           "kept_indices", "learn_game", "learning_settings", "learning_sweeps", "lesson_data", "page_html", "view_facts", "write_page", "write_text_atomic"]
