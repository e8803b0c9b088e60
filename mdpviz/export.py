"""Figures for slides and reports, rendered headless: the lesson snapshot, the board, the plots,
an image sequence of the sweeps, and the results as CSV.

A *lesson snapshot* is one picture of a solve: the board at the shown sweep with its colour bar,
the convergence plot, and the parameters (game, algorithm, tolerance, discount, sweeps, the
start state's value, the game's own settings) with the Bellman equation of the game
(:mod:`mdpviz.models.kit.teaching.lessons`). Every figure is written at exactly the requested size in pixels,
as PNG or SVG by the file's extension (an SVG's root ``width``/``height`` are that many pixels
and its ``viewBox`` is ``0 0 width height``).

The same functions serve the window (File > Export) and the command line
(``mdpviz export``): a game (:class:`~mdpviz.widgets.game.Game`) and a :class:`SolvedGame`
(its model, the recorded sweeps and the fixed colour scale) go in, files come out. The figures
are fresh widgets laid out at the requested size and painted without ever being shown (the
command line runs on Qt's offscreen platform); a board that lives in the window is painted
scaled (:class:`WidgetMirror`). Nothing here solves on the GUI thread: :func:`solve_game` is the
command line's, and the window exports the sweeps it already has.

An animated sequence is written as numbered PNG files (``name_0001.png`` ...): Qt cannot write
GIF, and an encoder (Pillow) is not a dependency of mdpviz.
"""
from __future__ import annotations

import csv
import io
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
from PySide6.QtCore import QObject, QPoint, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPalette, QRegion
from PySide6.QtWidgets import QApplication, QGridLayout, QHBoxLayout, QLabel, QSizePolicy, QWidget

from mdpviz.core.files import check_writable, write_text  # noqa: F401 (the exports write text through these)
from mdpviz.core.mdp import TabularMDP
from mdpviz.models.kit.pictures.value_range import ValueRange, range_scale, solve_range
from mdpviz.solvers import METHOD_NAMES, Solution, Sweep, registry, run, solver
from mdpviz.solvers.compare import Comparison

MIN_SIZE = (320, 200)
"""Smallest export in pixels (width, height): below this the board's text is unreadable."""
MAX_SIZE = (10_000, 10_000)
"""Largest export in pixels (a 10,000 x 10,000 ARGB image is 400 MB)."""
DEFAULT_SIZE = (1600, 900)
"""Default size of a lesson snapshot (16:9, as a slide)."""
FRAME_SIZE = (960, 540)
"""Default size of each image of a sweep sequence."""
MAX_FRAMES = 300
"""Most images in a sweep sequence; longer solves are sampled evenly (first and last kept)."""
FORMATS = (".png", ".svg")
"""Figure formats, chosen by the file extension."""
MAX_GIF_FRAMES = 120
"""Most frames of an animated GIF; longer solves are sampled evenly (first and last kept), so the
file stays small enough for a slide (about 120 x 50 kB at 960 x 540)."""
GIF_FRAME_MS = 250
"""How long each sweep is shown in an animated GIF (milliseconds)."""
GIF_HOLD_MS = 2500
"""How long the last sweep (the answer) is held before the GIF starts again (milliseconds)."""


# ---------------------------------------------------------------------------------- pure helpers
def check_size(width: int, height: int) -> tuple[int, int]:
    """The requested size as ints; ValueError naming the bad dimension."""
    out = []
    for name, v, lo, hi in (("width", width, MIN_SIZE[0], MAX_SIZE[0]), ("height", height, MIN_SIZE[1], MAX_SIZE[1])):
        whole = isinstance(v, (int, np.integer)) or (isinstance(v, float) and math.isfinite(v) and v == int(v))
        if isinstance(v, bool) or not whole:
            raise ValueError(f"{name} must be a whole number of pixels, got {v!r}")
        v = int(v)
        if not lo <= v <= hi:
            raise ValueError(f"{name} {v} is outside {lo}..{hi} pixels")
        out.append(v)
    return out[0], out[1]


def figure_format(path: str | Path) -> str:
    """".png" or ".svg" from the file name; ValueError otherwise."""
    ext = Path(path).suffix.lower()
    if ext not in FORMATS:
        raise ValueError(f"{path}: export as .png or .svg, not '{ext or '(no extension)'}'")
    return ext


def frame_indices(n: int, max_frames: int = MAX_FRAMES) -> list[int]:
    """Indices of the snapshots to draw for a sequence of ``n``: all of them, or ``max_frames``
    evenly spaced ones including the first and the last."""
    if n <= 0:
        return []
    if max_frames < 2:
        raise ValueError(f"max_frames must be at least 2, got {max_frames}")
    if n <= max_frames:
        return list(range(n))
    return sorted(set(np.round(np.linspace(0, n - 1, max_frames)).astype(int).tolist()))


def sequence_paths(out: str | Path, count: int) -> list[Path]:
    """The file names of an image sequence: ``out`` is a folder (frames ``sweep_0001.png`` ...) or a
    file name whose stem is numbered (``anim.png`` -> ``anim_0001.png`` ...)."""
    out = Path(out)
    if out.suffix.lower() == ".png":
        folder, stem = out.parent, out.stem
    elif out.suffix:
        raise ValueError(f"{out}: an image sequence is written as PNG files (give a folder or a .png name)")
    else:
        folder, stem = out, "sweep"
    digits = max(4, len(str(count)))
    return [folder / f"{stem}_{i + 1:0{digits}d}.png" for i in range(count)]


def solution_csv(
    mdp: TabularMDP,
    values: np.ndarray,
    policy: np.ndarray,
    *,
    state_name: Callable[[int], str] = str,
    action_name: Callable[[int], str] | None = None,
) -> str:
    """Values and greedy actions per state as CSV: state, name, terminal, value, action, action_name."""
    values = np.asarray(values, dtype=np.float64)
    policy = np.asarray(policy, dtype=np.int64)
    if values.shape != (mdp.n_states,) or policy.shape != (mdp.n_states,):
        raise ValueError(f"values {values.shape} and policy {policy.shape} must have one entry per state "
                         f"({mdp.n_states})")
    an = action_name or (lambda a: mdp.action_labels[a] if mdp.action_labels else str(a))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["state", "name", "terminal", "value", "action", "action_name"])
    for s in range(mdp.n_states):
        a = int(policy[s])
        w.writerow([s, state_name(s), bool(mdp.terminal[s]), repr(float(values[s])), a, an(a) if a >= 0 else ""])
    return buf.getvalue()


def convergence_csv(history: Sequence[Sweep]) -> str:
    """Every recorded snapshot as CSV: step, method, phase, iteration, max |dV|, mean |dV|, the
    state of the max, policy changes, seconds since the solver started, converged."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["step", "method", "phase", "iteration", "delta", "mean_delta", "delta_state", "policy_changes",
                "elapsed_s", "converged"])
    for i, sw in enumerate(history):
        w.writerow([i + 1, sw.method, sw.phase, sw.iteration, repr(float(sw.delta)), repr(float(sw.mean_delta)),
                    sw.delta_state, sw.policy_changes, repr(float(sw.elapsed)), sw.converged])
    return buf.getvalue()


_SVG_ROOT = re.compile(r"<svg\b[^>]*>", re.S)


def set_svg_size(text: str, width: int, height: int) -> str:
    """The SVG ``text`` with its root width and height set to pixels and viewBox ``0 0 w h``
    (QSvgGenerator writes millimetres)."""
    m = _SVG_ROOT.search(text)
    if m is None:
        raise ValueError("not an SVG document: no <svg> element")
    tag = m.group(0)
    for attr, val in (("width", str(width)), ("height", str(height)), ("viewBox", f"0 0 {width} {height}")):
        if re.search(rf'\s{attr}="[^"]*"', tag):
            tag = re.sub(rf'(\s){attr}="[^"]*"', rf'\g<1>{attr}="{val}"', tag, count=1)
        else:
            tag = tag[:-1].rstrip("/") + f' {attr}="{val}"' + (" />" if tag.endswith("/>") else ">")
    return text[: m.start()] + tag + text[m.end():]


# ---------------------------------------------------------------------------------- solving (headless only)
@dataclass(frozen=True, eq=False)
class SolvedGame:
    """What the figures show: the model, the recorded sweeps of one solve and its colour scale."""

    mdp: TabularMDP
    """The compiled model."""
    method: str
    """Solver id ("vi", "gs", "pi", "lp", ...)."""
    options: dict = field(default_factory=dict)
    """Solver options (e.g. {"tol": 1e-9})."""
    history: tuple[Sweep, ...] = ()
    """Every snapshot of the solve, in order."""
    solution: Solution | None = None
    """The final solution (None if the solve was not run to the end)."""
    lo: float = 0.0
    """Low end of the solve's value range (model units): the colour scale, fixed for the whole solve,
    is fitted to [lo, hi] (:func:`scale_of`), as in the window."""
    hi: float = 1.0
    """High end of the colour scale."""
    value_range: ValueRange | None = None
    """The solve's value range as the window's controller finds it (:func:`~mdpviz.models.kit.pictures.value_range.solve_range`;
    its ``values``: the exact optimal V, if known), for a board game's board to narrow the scale to the
    shown position as in the window."""

    @property
    def tol(self) -> float | None:
        """Value iteration's tolerance (None for the other methods)."""
        t = self.options.get("tol")
        return None if t is None or not registry.get(self.method).value_iteration else float(t)


def headless(game):
    """The headless :class:`~mdpviz.models.kit.game.game_model.Game` of ``game``: a window view's (its session's
    ``game``), or ``game`` itself when it is one already (``mdpviz export`` computes with no view)."""
    session = getattr(game, "session", None)
    return session.game if session is not None else game


def game_defaults(game) -> tuple[str, dict]:
    """(method, options) a game is solved with by default: the one rule of the headless game
    (:func:`~mdpviz.models.kit.game.game_model.solve_defaults`: its spec's ``solve_with``, else synchronous
    value iteration with tolerance 1e-9)."""
    return headless(game).solve_defaults()


def model_headless(game) -> TabularMDP:
    """The game's model, compiled here and now if its spec compiles in a background job (checkers):
    the job runs on this thread, as the window's job thread would run it. ValueError when the game
    has no model (its own message) or the compile fails."""
    hg = headless(game)
    m = hg.compile_now()
    if m is None:
        from mdpviz.models.kit.game.options import empty_text

        why = hg.mdp_error() or (game.empty_text() if hasattr(game, "empty_text") else "") or empty_text(hg.key)
        raise ValueError(f"{hg.title}: {why or 'no model to solve'}")
    return m


def solve_game(game, *, method: str | None = None, tol: float | None = None) -> SolvedGame:
    """Compile ``game`` (a headless :class:`~mdpviz.models.kit.game.game_model.Game`, or a window view:
    :func:`model_headless`) and solve it to the end with every snapshot recorded (the command line's
    path; the window exports the sweeps it already has)."""
    mdp = model_headless(game)
    m0, opts = game_defaults(game)
    m = method or m0
    if registry.get(m).value_iteration:
        opts = {"tol": float(tol) if tol is not None else float(opts.get("tol", 1e-9))}
    else:
        opts = {}
    sol = run(solver(mdp, m, **opts), record=True)
    rng = solve_range(mdp, sol.history, m)  # the window's rule: the optimal values' range, else the values seen
    lo, hi = (rng.lo, rng.hi) if rng is not None else (0.0, 1.0)
    return SolvedGame(mdp=mdp, method=m, options=opts, history=sol.history, solution=sol, lo=lo, hi=hi,
                      value_range=rng)


def scale_of(game, solved: SolvedGame):
    """The colour scale of ``solved`` as the window draws it (:func:`~mdpviz.models.kit.pictures.value_range.range_scale`
    of its value range, of the kind the game's values call for)."""
    hg = headless(game)
    return range_scale(solved.lo, solved.hi, label=hg.value_label, kind=hg.color_kind)


# ---------------------------------------------------------------------------------- rendering
def ensure_app() -> QApplication:
    """The running QApplication (the window's), or a new headless one: Qt's offscreen platform
    unless $QT_QPA_PLATFORM chooses another."""
    app = QApplication.instance()
    if app is None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # no window ever opens, display or not
        app = QApplication(["mdpviz-export"])
    return app


def _paint_into(widget: QWidget, painter: QPainter) -> None:
    """Paint ``widget`` and its children with ``painter`` (QWidget's render: QGraphicsView overrides
    ``render`` with a scene-rendering one of another signature)."""
    from pyqtgraph import GraphicsScene
    from PySide6.QtWidgets import QGraphicsView

    if isinstance(widget, QGraphicsView) and isinstance(widget.scene(), GraphicsScene):
        widget.scene().prepareForPaint()  # pyqtgraph's scene lays its items out before painting
    QWidget.render(widget, painter, QPoint())


SETTLE_ROUNDS = 3
"""Rounds of posted events :func:`settle` delivers: pyqtgraph's plots post layout requests while they
handle the previous ones, and three rounds settle every figure mdpviz draws (the PNGs are the same
byte for byte with more)."""


def settle(widget: QWidget) -> None:
    """Deliver the events Qt has posted for a widget laid out off screen (layout requests, pyqtgraph's
    scene updates), :data:`SETTLE_ROUNDS` rounds. No event loop runs: no timer fires, no input or other
    window's event is handled and nothing is waited for, so what is rendered depends only on the
    widget and its snapshot, not on how busy the machine is."""
    from PySide6.QtCore import QCoreApplication

    for _ in range(SETTLE_ROUNDS):
        QCoreApplication.sendPostedEvents()


def render_widget(widget, path: str | Path, *, width: int, height: int, title: str = "mdpviz") -> Path:
    """Lay ``widget`` out at exactly ``width`` x ``height`` and save it as PNG or SVG (by extension).

    The widget is resized and laid out without being shown; a PNG is an image of exactly that many pixels, an SVG has that size in pixels.
    """
    width, height = check_size(width, height)
    ext = figure_format(path)
    path = Path(path)
    widget.resize(width, height)
    if widget.layout() is not None:
        widget.layout().activate()  # lay the children out now; render() then sends their pending resizes
    settle(widget)
    if ext == ".png":
        img = QImage(width, height, QImage.Format.Format_ARGB32)
        img.fill(QColor("white"))
        p = QPainter(img)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        try:
            _paint_into(widget, p)
        finally:
            p.end()
        tmp = path.with_name(f".{path.stem}.tmp.png")
        if not img.save(str(tmp), "PNG"):
            raise OSError(f"cannot write {path}")
        os.replace(tmp, path)
        return path
    from PySide6.QtSvg import QSvgGenerator

    tmp = path.with_name(f".{path.stem}.tmp.svg")
    gen = QSvgGenerator()
    gen.setFileName(str(tmp))
    gen.setSize(QSize(width, height))
    gen.setViewBox(QRect(0, 0, width, height))
    gen.setResolution(96)
    gen.setTitle(title)
    p = QPainter()
    if not p.begin(gen):
        raise OSError(f"cannot write {path}")
    try:
        p.fillRect(QRect(0, 0, width, height), QColor("white"))
        _paint_into(widget, p)
    finally:
        p.end()
    text = tmp.read_text(encoding="utf-8")
    tmp.unlink()
    write_text(path, set_svg_size(text, width, height))
    return path


class WidgetMirror(QWidget):
    """Paints another (live, on-screen) widget scaled to fit, keeping its aspect ratio: how a board
    widget that lives in the window appears in an exported snapshot (vector-scaled in an SVG)."""

    def __init__(self, source: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.source = source
        self.setMinimumSize(10, 10)

    def paintEvent(self, ev) -> None:  # noqa: N802
        src = self.source
        sw, sh = max(1, src.width()), max(1, src.height())
        s = min(self.width() / sw, self.height() / sh)
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.translate((self.width() - sw * s) / 2, (self.height() - sh * s) / 2)
        p.scale(s, s)
        QWidget.render(src, p, QPoint(), QRegion(0, 0, sw, sh),
                       QWidget.RenderFlag.DrawChildren | QWidget.RenderFlag.DrawWindowBackground)
        p.end()


def widget_mirror(source: QWidget) -> WidgetMirror:
    """A :class:`WidgetMirror` of ``source``."""
    return WidgetMirror(source)


def sweep_caption_of(history: Sequence[Sweep], index: int, *, run: tuple[int, int] | None = None) -> str:
    """The board caption of snapshot ``index`` (as the window writes it); ``run``: (its index, the run's
    length) when ``history`` holds only some snapshots of a run (a lesson page's episodes)."""
    from mdpviz.models.kit.pictures.display import sweep_caption

    sw = history[index]
    name = METHOD_NAMES.get(sw.method) or (registry.title(sw.method) if registry.find(sw.method) else sw.method)
    where, total = run if run is not None else (index, len(history))
    cap = sweep_caption(name, sw.phase, sw.iteration, where, total)
    return cap + (" \u2014 converged" if sw.converged else "")


def _index(history: Sequence[Sweep], index: int) -> int:
    n = len(history)
    if n == 0:
        return -1
    i = index if index >= 0 else n + index
    if not 0 <= i < n:
        raise ValueError(f"sweep index {index} is out of range for {n} snapshots")
    return i


def make_board(game, mdp: TabularMDP, solved: SolvedGame, index: int = -1):
    """A board widget showing snapshot ``index`` of ``solved`` of ``game`` (whose model is ``mdp``): the
    game's board when it is not on screen yet, else a mirror of it; a cell board, which draws nothing
    but the snapshot, is always a fresh one (laid out at the export's size, not scaled)."""
    from mdpviz.widgets.cell_board import CellBoard

    scale = scale_of(game, solved)
    hist = solved.history
    i = _index(hist, index)
    sw = hist[i] if i >= 0 else None
    board = game.board_widget()
    if isinstance(board, CellBoard):
        board = CellBoard(game)
        board.setMinimumSize(40, 40)
    elif board.isVisible() or board.parent() is not None:
        return widget_mirror(board), scale
    else:
        board.setProperty(GAME_BOARD_PROPERTY, True)
    # a board game's board narrows the scale to the shown position
    board.set_value_range(solved.value_range if sw is not None else None)
    cap = sweep_caption_of(hist, i) if sw is not None else "Not solved yet"
    board.show_sweep(sw, scale, caption=cap, previous=hist[i - 1] if i > 0 else None)
    return board, board.shown_scale or scale


def make_color_bar(scale, *, font_px: int = 12):
    """The colour bar of ``scale`` with black text of ``font_px`` pixels (exports are on white)."""
    from mdpviz.widgets.board import ColorBar

    bar = ColorBar()
    bar.setMinimumHeight(40)
    bar.set_text_color(QColor("black"))
    bar.set_font_size(font_px)  # as wide as its numbers and label need (ColorBar.fit)
    bar.show_scale(scale)
    return bar


def make_convergence(solved: SolvedGame, *, font_px: int = 12, theory: bool = True):
    """A convergence plot of every snapshot of ``solved``; ``theory``: with the true error and the bounds
    (on in the lesson snapshot and the exported plot; the window's View menu toggles them)."""
    from mdpviz.widgets.convergence import ConvergencePlot

    plot = ConvergencePlot()
    plot.setMinimumHeight(60)
    rounds = registry.get(solved.method).unit == "round"  # (policy iteration)
    plot.reset(tol=solved.tol, x_label="step (evaluate / improve)" if rounds else "sweep")
    if theory:
        from mdpviz.models.kit.pictures.value_range import reference_range
        from mdpviz.widgets.convergence import bounded_method

        ref = solved.value_range  # (the solve's own reference, when it made one: not solved twice)
        if ref is None or ref.source != "reference":
            ref = reference_range(solved.mdp, solved.method) if solved.value_range is None else None
        if ref is not None:
            plot.set_reference(ref.values, gamma=float(solved.mdp.discount),
                               method=bounded_method(solved.method, solved.options))
    plot.set_theory_shown(theory)
    plot.extend(solved.history)
    plot.refresh()
    plot.set_font_size(font_px)
    return plot


def _fmt(x: float) -> str:
    if not math.isfinite(x):
        return str(x)
    return f"{x:.6g}" if abs(x) < 1e6 else f"{x:.4g}"


def snapshot_facts(game, solved: SolvedGame, index: int = -1) -> list[tuple[str, str]]:
    """(label, value) lines of a snapshot's parameter panel: game, algorithm, tolerance, discount,
    snapshot shown, converged, wall time, and the start state's value."""
    mdp = solved.mdp
    hist = solved.history
    i = _index(hist, index)
    headless_game = headless(game)
    out = [("Game", headless_game.title), ("Algorithm", METHOD_NAMES.get(solved.method, solved.method))]
    if solved.tol is not None:
        out.append(("Tolerance", f"{solved.tol:g} (stop when max |\u0394V| of a sweep is below it)"))
    out.append(("Discount \u03b3", f"{mdp.discount:g}"))
    out.append(("States", f"{mdp.n_states:,} ({int(mdp.terminal.sum()):,} terminal), {mdp.n_rows:,} (state, action) pairs"))
    if i >= 0:
        sw = hist[i]
        unit = registry.get(sw.method).count_word
        last = hist[-1]
        conv = "converged" if last.converged else "not converged"
        out.append(("Shown", f"snapshot {i + 1} of {len(hist)} ({last.iteration} {unit} in all, {conv})"))
        out.append(("Elapsed", f"{last.elapsed * 1000:.3g} ms since the solver started"))
        s = int(headless_game.start_state()) if 0 <= int(headless_game.start_state()) < mdp.n_states else 0
        out.append((f"V({headless_game.state_name(s)})", f"{_fmt(float(sw.values[s]))} {headless_game.value_label}"))
    else:
        out.append(("Shown", "not solved yet"))
    return out


def game_lesson(game):
    """The lesson of ``game`` (:mod:`mdpviz.models.kit.teaching.lessons`) with its settings and model."""
    return headless(game).lesson()


def _esc(s: str) -> str:
    import html

    return html.escape(str(s), quote=False)


def parameters_html(game, solved: SolvedGame, index: int = -1, *, lesson=None, max_params: int = 8) -> str:
    """The parameter panel of a snapshot as HTML: the facts, the game's settings, the Bellman equation."""
    rows = "".join(f"<tr><td><b>{_esc(k)}</b></td><td>{_esc(v)}</td></tr>" for k, v in snapshot_facts(game, solved, index))
    out = [f"<table cellspacing='0' cellpadding='2'>{rows}</table>"]
    if lesson is not None:
        params = [p for p in lesson.parameters if p.name not in ("discount",)][:max_params]
        if params:
            out.append("<p><b>Settings</b><br>" + "<br>".join(
                f"{_esc(p.name)} = {_esc(p.value if len(p.value) <= 160 else p.value[:157] + '...')}" for p in params)
                + "</p>")
        out.append("<p><b>Bellman equation</b></p>" + lesson.bellman.replace("font-size:large", "font-size:normal"))
    return "".join(out)


class LessonSnapshot(QWidget):
    """Board + colour bar, parameters and convergence plot, under a title line.

    A square board: on the left, full height; parameters above the plot on the right. A wide board
    (snakes): board and colour bar across the left column with the plot under them, as tall as the
    board needs at that width (:meth:`band_height`), and the parameters in a column on the right; the
    board then spans its column's width instead of a third of a band the full figure wide."""

    WIDE_LEFT = 13
    """Share (of 20) of the width the left column takes beside a wide board's parameters."""

    def __init__(self, board, color_bar, params_html: str, plot, title: str, *, font_px: int,
                 wide: bool = False, aspect: float = 1.0) -> None:
        super().__init__()
        self.setObjectName("lessonSnapshot")
        self.setAutoFillBackground(True)
        pal = self.palette()
        pal.setColor(QPalette.ColorRole.Window, QColor("white"))
        pal.setColor(QPalette.ColorRole.Base, QColor("white"))
        pal.setColor(QPalette.ColorRole.WindowText, QColor("black"))
        pal.setColor(QPalette.ColorRole.Text, QColor("black"))
        self.setPalette(pal)
        f = QFont(self.font())
        f.setPixelSize(font_px)
        self.setFont(f)
        self.grid = grid = QGridLayout(self)
        m = max(6, font_px // 2)
        grid.setContentsMargins(m, m, m, m)
        grid.setSpacing(m)
        self.title = QLabel(title)
        tf = QFont(f)
        tf.setPixelSize(int(font_px * 1.5))
        tf.setBold(True)
        self.title.setFont(tf)
        grid.addWidget(self.title, 0, 0, 1, 2)
        left = QHBoxLayout()
        left.addWidget(board, 1)
        if color_bar is not None:
            left.addWidget(color_bar)
        self.params = QLabel(params_html)
        self.params.setTextFormat(Qt.TextFormat.RichText)
        self.params.setWordWrap(True)
        self.params.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.params.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        if wide:  # a wide board (snakes): board over plot on the left, the parameters on the right
            grid.addLayout(left, 1, 0)
            grid.addWidget(plot, 2, 0)
            grid.addWidget(self.params, 1, 1, 2, 1)
            grid.setColumnStretch(0, self.WIDE_LEFT)
            grid.setColumnStretch(1, 20 - self.WIDE_LEFT)
        else:  # a square board: on the left; parameters above the plot on the right
            grid.addLayout(left, 1, 0, 2, 1)
            grid.addWidget(self.params, 1, 1)
            grid.addWidget(plot, 2, 1)
            grid.setColumnStretch(0, 11)
            grid.setColumnStretch(1, 8)
            grid.setRowStretch(1, 11)
            grid.setRowStretch(2, 9)
        self.wide = wide
        self.aspect = float(aspect)
        """Width / height of the board's drawing (a wide board's band is sized by it)."""
        self.board, self.color_bar, self.plot = board, color_bar, plot

    def band_height(self, width: int, height: int) -> int:
        """A wide board's band (board and colour bar) at a figure of ``width`` x ``height``: what the board
        needs at the left column's width (plus its caption), between 35% and 60% of the room under the title."""
        g = self.grid
        ml, mt, mr, mb = g.getContentsMargins()
        sp = g.spacing()
        room = height - mt - mb - self.title.sizeHint().height() - 2 * sp
        col = (width - ml - mr - sp) * self.WIDE_LEFT / 20
        bar = self.color_bar.width() + sp if self.color_bar is not None else 0
        caption = int(self.board.fontMetrics().height() * 1.6) + 20
        need = (col - bar - 20) / max(self.aspect, 1e-9) + caption
        return int(max(0.35 * room, min(0.6 * room, need)))

    def resizeEvent(self, ev) -> None:  # noqa: N802
        super().resizeEvent(ev)
        if self.wide:
            band = self.band_height(self.width(), self.height())
            self.grid.setRowStretch(1, 0)
            self.grid.setRowStretch(2, 1)
            self.grid.setRowMinimumHeight(1, band)
            self.board.setMaximumHeight(band)


def snapshot_widget(game, solved: SolvedGame, *, width: int, height: int, index: int = -1, board=None, lesson=None):
    """The lesson snapshot as a widget (not shown), laid out for ``width`` x ``height``."""
    font_px = max(11, min(28, int(round(min(height / 52, width / 90)))))
    if board is None:
        board, scale = make_board(game, solved.mdp, solved, index)
    else:
        scale = scale_of(game, solved)
    from mdpviz.widgets.board import ColorBar

    # a board with its own colour bar (the grid worlds: their map diverges around 0 where the values
    # have both signs) keeps it; a second bar would show a different map
    bar = None if board.findChild(ColorBar) is not None else make_color_bar(scale, font_px=font_px)
    plot = make_convergence(solved, font_px=font_px)
    lesson = lesson if lesson is not None else game_lesson(game)
    title = game.title
    aspect = board_aspect(board)
    w = LessonSnapshot(board, bar, parameters_html(game, solved, index, lesson=lesson), plot, title,
                       font_px=font_px, wide=aspect > WIDE_BOARD, aspect=aspect)
    w.resize(width, height)
    return w


WIDE_BOARD = 1.8
"""Boards wider than this (width / height) go across the top of a lesson snapshot."""


def board_aspect(board) -> float:
    """Width / height of what a board draws: its cell layout's bounds, or 1 for other widgets."""
    from mdpviz.widgets.board import BoardView

    if not isinstance(board, BoardView) or not board.layout_.cells:
        return 1.0
    lay = board.layout_
    x0, y0, x1, y1 = lay.bounds()
    return (x1 - x0 + 0.2) / max(y1 - y0 + 0.6, 1e-9)


GAME_BOARD_PROPERTY = "mdpvizGameBoard"
"""Dynamic property marking a game's own board widget lent to an export (given back, not deleted)."""


def _dispose(w) -> None:
    for child in w.findChildren(QWidget):
        if child.property(GAME_BOARD_PROPERTY):  # the game keeps its board: take it out before deleting
            child.setParent(None)
            child.setProperty(GAME_BOARD_PROPERTY, False)
    w.hide()
    w.setParent(None)
    w.deleteLater()


def export_lesson_snapshot(game, solved: SolvedGame, path: str | Path, *, width: int = DEFAULT_SIZE[0],
                           height: int = DEFAULT_SIZE[1], index: int = -1, board=None, lesson=None) -> Path:
    """Write the lesson snapshot of snapshot ``index`` (default: the last) as PNG or SVG at exactly
    ``width`` x ``height`` pixels. ``board``: a widget to show as the board (the window passes a
    mirror of its live board); default a fresh board of the game."""
    ensure_app()
    width, height = check_size(width, height)
    figure_format(path)
    w = snapshot_widget(game, solved, width=width, height=height, index=index, board=board, lesson=lesson)
    try:
        return render_widget(w, path, width=width, height=height, title=f"mdpviz: {game.title}")
    finally:
        _dispose(w)


def export_board(game, solved: SolvedGame, path: str | Path, *, width: int = FRAME_SIZE[0],
                 height: int = FRAME_SIZE[1], index: int = -1, with_scale: bool = True) -> Path:
    """Write the board at snapshot ``index`` (with its colour bar) as PNG or SVG at exactly that size."""
    ensure_app()
    width, height = check_size(width, height)
    figure_format(path)
    board, scale = make_board(game, solved.mdp, solved, index)
    box = QWidget()
    box.setStyleSheet("background: white")
    lay = QHBoxLayout(box)
    lay.setContentsMargins(4, 4, 4, 4)
    lay.addWidget(board, 1)
    if with_scale and not game.board_widget().has_color_bar:  # (a grid world's board draws its own)
        lay.addWidget(make_color_bar(scale, font_px=max(11, min(24, height // 40))))
    try:
        return render_widget(box, path, width=width, height=height, title=f"mdpviz board: {game.title}")
    finally:
        _dispose(box)


def export_convergence(solved: SolvedGame, path: str | Path, *, width: int = FRAME_SIZE[0],
                       height: int = FRAME_SIZE[1]) -> Path:
    """Write the convergence plot of ``solved`` as PNG or SVG at exactly that size."""
    ensure_app()
    width, height = check_size(width, height)
    figure_format(path)
    plot = make_convergence(solved, font_px=max(11, min(24, height // 40)))
    try:
        return render_widget(plot, path, width=width, height=height, title="mdpviz convergence")
    finally:
        _dispose(plot)


def export_comparison_plot(comp: Comparison, path: str | Path, *, width: int = FRAME_SIZE[0],
                           height: int = FRAME_SIZE[1], x: str = "sweep") -> Path:
    """Write the overlaid error curves of a comparison (x = "sweep" or "time") as PNG or SVG."""
    from mdpviz.widgets.compare import CompareChart

    ensure_app()
    width, height = check_size(width, height)
    figure_format(path)
    chart = CompareChart()
    chart.show_comparison(comp, x=x)
    chart.set_font_size(max(11, min(24, height // 40)))
    try:
        return render_widget(chart, path, width=width, height=height, title="mdpviz comparison")
    finally:
        _dispose(chart)


def export_sweep_frames(game, solved: SolvedGame, out: str | Path, *, width: int = FRAME_SIZE[0],
                        height: int = FRAME_SIZE[1], max_frames: int = MAX_FRAMES,
                        progress: Callable[[int, int, str], None] | None = None,
                        cancelled: Callable[[], bool] | None = None) -> list[Path]:
    """Write the board at every snapshot (at most ``max_frames``, evenly sampled) as numbered PNG
    files (see :func:`sequence_paths`): an animation for slides. Returns the paths written."""
    ensure_app()
    width, height = check_size(width, height)
    idx = frame_indices(len(solved.history), max_frames)
    if not idx:
        raise ValueError("nothing to animate: the solve has no sweeps yet")
    paths = sequence_paths(out, len(idx))
    paths[0].parent.mkdir(parents=True, exist_ok=True)
    written = []
    for k, (i, p) in enumerate(zip(idx, paths)):
        if cancelled is not None and cancelled():
            break
        export_board(game, solved, p, width=width, height=height, index=i)
        written.append(p)
        if progress is not None:
            progress(k + 1, len(idx), f"frame {k + 1} of {len(idx)}")
    return written


def gif_path(path: str | Path) -> Path:
    """``path`` if it names a .gif file; ValueError otherwise."""
    path = Path(path)
    if path.suffix.lower() != ".gif":
        raise ValueError(f"{path}: an animation is written as .gif, not '{path.suffix or '(no extension)'}'")
    return path


def write_gif(frames: Sequence[str | Path], path: str | Path, *, frame_ms: int = GIF_FRAME_MS,
              hold_ms: int = GIF_HOLD_MS) -> Path:
    """Join PNG ``frames`` (same size) into an animated GIF that loops, each shown ``frame_ms`` and the
    last ``hold_ms`` milliseconds. Written to a temporary name first, then moved into place.

    Pillow writes the GIF (Qt reads GIFs but cannot write them). Each frame gets its own 256-colour
    palette; frames that are exactly alike are merged by Pillow (their times added), which the
    sweep captions ("sweep 12 of 40") prevent."""
    from PIL import Image

    path = gif_path(path)
    if not frames:
        raise ValueError("nothing to animate: no frames")
    images = []
    for f in frames:
        with Image.open(f) as im:
            images.append(im.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT))
    durations = [int(frame_ms)] * (len(images) - 1) + [int(hold_ms)]
    tmp = path.with_name(f".{path.stem}.tmp.gif")
    images[0].save(tmp, format="GIF", save_all=True, append_images=images[1:], duration=durations, loop=0,
                   disposal=1)
    os.replace(tmp, path)
    return path


def export_sweep_gif(game, solved: SolvedGame, path: str | Path, *, width: int = FRAME_SIZE[0],
                     height: int = FRAME_SIZE[1], max_frames: int = MAX_GIF_FRAMES, frame_ms: int = GIF_FRAME_MS,
                     hold_ms: int = GIF_HOLD_MS, progress: Callable[[int, int, str], None] | None = None,
                     cancelled: Callable[[], bool] | None = None) -> Path | None:
    """The board at every snapshot of ``solved`` (at most ``max_frames``, evenly sampled, first and
    last kept: :func:`frame_indices`) as one looping animated GIF, for slides. None if cancelled."""
    import tempfile

    path = gif_path(path)
    if not path.parent.exists():
        raise ValueError(f"{path}: the folder {path.parent} does not exist")
    with tempfile.TemporaryDirectory(prefix="mdpviz-gif-") as tmp:
        frames = export_sweep_frames(game, solved, tmp, width=width, height=height, max_frames=max_frames,
                                     progress=progress, cancelled=cancelled)
        if cancelled is not None and cancelled():
            return None
        return write_gif(frames, path, frame_ms=frame_ms, hold_ms=hold_ms)


class FrameWriter(QObject):
    """Writes an image sequence one frame per event-loop turn, so the window stays responsive
    (widgets can only be rendered on the GUI thread); ``cancel()`` stops after the current frame."""

    progress = Signal(int, int, str)
    """(frames written, frames in all, text)."""
    finished = Signal(object)
    """list[Path] of the frames written (fewer than planned when cancelled)."""
    failed = Signal(str)
    """Writing a frame failed: the message."""

    def __init__(self, game, solved: SolvedGame, out: str | Path, *, width: int = FRAME_SIZE[0],
                 height: int = FRAME_SIZE[1], max_frames: int = MAX_FRAMES, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.width, self.height = check_size(width, height)
        self.indices = frame_indices(len(solved.history), max_frames)
        if not self.indices:
            raise ValueError("nothing to animate: the solve has no sweeps yet")
        self.paths = sequence_paths(out, len(self.indices))
        self.game, self.solved = game, solved
        self.written: list[Path] = []
        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._tick)

    @property
    def running(self) -> bool:
        return self._timer.isActive()

    def start(self) -> None:
        self.paths[0].parent.mkdir(parents=True, exist_ok=True)
        self._timer.start()

    def cancel(self) -> None:
        if self._timer.isActive():
            self._timer.stop()
            self.finished.emit(list(self.written))

    def _tick(self) -> None:
        k = len(self.written)
        try:
            export_board(self.game, self.solved, self.paths[k], width=self.width, height=self.height,
                         index=self.indices[k])
        except (OSError, ValueError) as e:
            self._timer.stop()
            self.failed.emit(str(e))
            return
        self.written.append(self.paths[k])
        n = len(self.indices)
        self.progress.emit(k + 1, n, f"frame {k + 1} of {n}")
        if k + 1 >= n:
            self._timer.stop()
            self.finished.emit(list(self.written))


__all__ = ["FrameWriter", "GIF_FRAME_MS", "GIF_HOLD_MS", "MAX_GIF_FRAMES", "export_sweep_gif", "gif_path", "write_gif",
    "DEFAULT_SIZE", "FRAME_SIZE", "MAX_FRAMES", "SolvedGame", "check_size", "convergence_csv", "ensure_app",
    "export_board", "export_comparison_plot", "export_convergence", "export_lesson_snapshot", "export_sweep_frames",
    "figure_format", "frame_indices", "game_defaults", "game_lesson", "headless", "model_headless", "make_board",
    "parameters_html", "render_widget", "sequence_paths", "set_svg_size", "snapshot_facts", "snapshot_widget",
    "solution_csv", "solve_game", "widget_mirror", "write_text",
]
