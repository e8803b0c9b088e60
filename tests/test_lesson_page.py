"""A lesson as one web page (issue 40, :mod:`mdpviz.lesson_page`): the embedded sweeps are ``mdpviz solve
--history --json``'s ``history``; the size limits; the page opened in a real browser engine (Qt WebEngine, from
the test extra's PySide6-Addons: without it these tests fail, they do not skip) loads with no script error and
no network request, its slider moves the frame and the plot's marker, and a click on a cell shows that state's
numbers at the shown sweep, as the kit's own backup computes them; bad options are one line and exit 2.

The numbers are checked on the data builder (no frames drawn); frames are drawn for three pages only (the 4x3
grid, snakes and the course file), each once per module."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from mdpviz import export as ex
from mdpviz import lesson_page as lp
from mdpviz.cli import main
from mdpviz.commands.export import export_view
from mdpviz.models.kit.game import registry
from mdpviz.models.kit.game.game_model import Game

CHEAP_GAMES = (("gridworld", None), ("gridworld", "pi"), ("snakes", None), ("file", None), ("ttt", None),
               ("attt", None), ("gambler", None), ("maxbias", None), ("baird", None), ("corridor", None), ("gym", None),
               ("bandit", None), ("jack", None), ("risk_ttt", None), ("randomwalk", None), ("checkers", None))
"""The table games (and method: None for the game's own) whose sweeps are checked against ``mdpviz solve`` in the
suite: policy iteration (every policy), the gambler's in-place sweeps, FrozenLake's 504 sweeps (200 kept) and
Jack's policy iteration among them. Mountain car at its defaults agrees too (docs/lessons.md has the run): its
``solve --json`` of 369 sweeps of 8,263 states takes 9 s, past the suite's budget for one test."""
SWEEP_KEYS = ("sweep", "phase", "delta", "values", "policy")


def solve_json(capsys, *argv: str) -> dict:
    assert main(["solve", *argv, "--history", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def page_json(text: str, element: str = "mdpviz-lesson") -> dict:
    m = re.search(rf'<script type="application/json" id="{element}">(.*?)</script>', text, re.S)
    assert m is not None, f"no {element} script"
    return json.loads(m.group(1))


# ---------------------------------------------------------------------------------- the numbers
@pytest.mark.parametrize("key, method", CHEAP_GAMES)
def test_embedded_sweeps_are_the_solve_commands_history(key, method, capsys):
    hg = Game(registry.get(key))
    data = lp.lesson_data(hg, ex.solve_game(hg, method=method))
    ref = solve_json(capsys, "--game", key, *(["--method", method] if method else []))
    hist = ref["history"]
    assert data["kept"] == lp.kept_indices(len(hist), len(ref["states"]))
    assert data["sampled"] == (len(data["kept"]) < len(hist))
    assert [{k: s[k] for k in SWEEP_KEYS} for s in data["sweeps"]] == [
        {k: hist[i][k] for k in SWEEP_KEYS} for i in data["kept"]]
    assert (data["game"], data["method"], data["discount"], data["states"], data["start"]) == (
        ref["game"], ref["method"], ref["discount"], ref["states"], ref["start"])
    assert data["total_sweeps"] == len(hist) and data["kept"][-1] == len(hist) - 1
    assert set(lp.LESSON_KEYS) == set(data)


def test_a_long_solve_keeps_evenly_spaced_sweeps_and_the_last(capsys):
    hg = Game(registry.get("gridworld"))
    data = lp.lesson_data(hg, ex.solve_game(hg), limit=7)
    hist = solve_json(capsys, "--game", "gridworld")["history"]
    kept = data["kept"]
    assert len(kept) == 7 and kept[0] == 0 and kept[-1] == len(hist) - 1 and data["sampled"]
    steps = np.diff(kept)
    assert steps.max() - steps.min() <= 1  # evenly spaced
    assert [s["values"] for s in data["sweeps"]] == [hist[i]["values"] for i in kept]
    # a large model keeps fewer: at most NUMBER_BUDGET values in all
    assert lp.kept_indices(369, 8263) == ex.frame_indices(369, lp.NUMBER_BUDGET // 8263)
    assert len(lp.kept_indices(1000, 10)) == lp.LIMIT


# ---------------------------------------------------------------------------------- pages drawn
def export_page(tmp: Path, key: str, *extra: str) -> Path:
    out = tmp / f"{key}.html"
    assert main(["export", "--game", key, "--figure", "html", "--out", str(out), *extra]) == 0
    return out


@pytest.fixture(scope="module")
def pages(qapp, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lesson")
    return {key: export_page(tmp, key) for key in ("gridworld", "snakes", "file")}


@pytest.mark.parametrize("key, limit_mb", [("gridworld", 2), ("snakes", 3), ("file", 2)])
def test_page_sizes_and_self_contained(pages, key, limit_mb):
    text = pages[key].read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) < limit_mb * 1_000_000
    data, frames = page_json(text), page_json(text, "mdpviz-frames")
    assert len(frames["images"]) == len(data["sweeps"]) and all(i.startswith("data:image/png;base64,")
                                                                 for i in frames["images"])
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text), "the page links to a URL"
    assert data["command"].startswith(f"mdpviz export --game {key} --figure html")
    assert data["version"] and data["settings"] is not None
    if key != "gridworld":  # the cell boards: every state has a rectangle to click
        assert sorted(int(s) for s in frames["rects"]) == list(range(len(data["states"])))


# ---------------------------------------------------------------------------------- in the browser
@pytest.fixture(scope="module")
def browser(qapp):
    from mdpviz.screenshot_lesson import PageBrowser  # Qt WebEngine: the test extra installs it (no skip)

    b = PageBrowser(1366, 768)
    yield b
    b.close()


def kit_backup(key: str, index: int, state: int) -> tuple[float, dict[str, float], str]:
    """(V, action name -> Q, the best action) of ``state`` at history ``index``, as the window's inspector
    computes them (the kit's backup_values and backup_terms)."""
    from mdpviz.models.kit.pictures.display import backup_q, backup_values, greedy_action
    from mdpviz.solvers.value_iteration import default_block_size

    hg = Game(registry.get(key))
    solved = ex.solve_game(hg)
    mdp, hist = solved.mdp, solved.history
    view = export_view(hg)
    src, _ = backup_values(hist, index, state, n_states=mdp.n_states, gs_block=default_block_size(mdp.n_states),
                           greedy_of_shown=not view.board_widget().draws_sweep_policy)
    acts = [int(a) for a in mdp.actions_of(state)]
    qs = [backup_q(hg.backup_terms(state, a, src), mdp.discount) for a in acts]
    best = greedy_action(acts, qs, "min" if mdp.sense[state] < 0 else "max")
    view.deleteLater()
    return float(hist[index].values[state]), {hg.action_name(a): q for a, q in zip(acts, qs)}, hg.action_name(best)


@pytest.mark.parametrize("key, state", [("file", 4), ("gridworld", 2)])
def test_page_in_the_browser(browser, pages, key, state):
    b = browser
    b.requests.clear()
    b.console.clear()
    assert b.load(pages[key])
    data = page_json(pages[key].read_text(encoding="utf-8"))
    n = len(data["sweeps"])
    assert b.js("window.mdpvizLesson.shown()") == n - 1
    marker = "document.getElementById('plot-marker').getAttribute('x1')"
    frame = "document.getElementById('frame').getAttribute('data-index')"
    src = "document.getElementById('frame').src.length + ':' + document.getElementById('frame').src.slice(-40)"
    last_marker, last_src = b.js(marker), b.js(src)
    k = n // 2  # the slider moved to the middle sweep: another frame, the marker moves left
    b.js(f"(function(s){{s.value='{k}'; s.dispatchEvent(new Event('input')); return 1;}})"
         f"(document.getElementById('slider'))")
    assert b.js(frame) == str(k) and b.js(src) != last_src
    assert float(b.js(marker)) < float(last_marker)
    assert b.js("document.getElementById('plot-marker').getAttribute('data-sweep')") == str(data["sweeps"][k]["sweep"])
    # a click at the centre of the state's cell on the frame inspects it at that sweep
    b.settle(100)
    clicked = b.js(f"""(function() {{
        var img = document.getElementById('frame'), r = JSON.parse(document.getElementById('mdpviz-frames')
            .textContent).rects['{state}'], box = img.getBoundingClientRect();
        img.scrollIntoView();
        box = img.getBoundingClientRect();
        img.dispatchEvent(new MouseEvent('click', {{bubbles: true, clientX: box.left + (r[0] + r[2] / 2) * box.width,
                                                    clientY: box.top + (r[1] + r[3] / 2) * box.height}}));
        return document.getElementById('state').value; }})()""")
    assert clicked == str(state)
    shown = json.loads(b.js("""JSON.stringify({v: document.querySelector('#inspector .v').textContent,
        q: Array.from(document.querySelectorAll('#inspector .action')).map(function (p) {
            return [p.querySelector('b').textContent.split(': Q = ')[0], p.querySelector('.q').textContent,
                    p.classList.contains('best-row')]; })})"""))
    v, qs, best = kit_backup(key, data["kept"][k], state)
    assert shown["v"] == f"{v:.4f}"
    assert [(name, q) for name, q, _ in shown["q"]] == [(name, f"{q:.4f}") for name, q in qs.items()]
    assert [name for name, _, is_best in shown["q"] if is_best] == [best]
    b.js("document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight'})); 1")
    assert b.js(frame) == str(k + 1)
    assert b.console == [], "the page wrote warnings or errors to the console"
    assert [u for u in b.requests if not u.startswith("file:")] == [], "the page asked for a URL"
    assert b.requests and b.requests[0].endswith(pages[key].name)


def test_page_screenshots_at_phone_laptop_and_presenter_size(browser, pages, tmp_path):
    from PySide6.QtGui import QImage

    from mdpviz.screenshot_lesson import SIZES

    b = browser
    assert b.load(pages["gridworld"])
    b.js("window.mdpvizLesson.select(2)")
    for name, (w, h) in SIZES.items():
        img = QImage(str(b.shot(tmp_path / f"{name}.png", w, h)))
        assert (img.width(), img.height()) == (w, h)
        # the board fills the page's width on a phone and more than a third of it elsewhere
        frame_w = b.js("document.getElementById('frame').getBoundingClientRect().width")
        assert frame_w > (0.8 if w < 600 else 0.35) * w
        assert b.js("document.documentElement.scrollWidth") <= w  # nothing sticks out sideways
        assert len({img.pixel(x, y) for x in range(0, w, 7) for y in range(0, h, 7)}) > 50  # not blank
    assert b.console == []


def test_the_page_says_when_it_keeps_fewer_sweeps(browser, qapp, tmp_path):
    page = export_page(tmp_path, "gridworld", "--max-sweeps", "5")
    assert browser.load(page)
    assert len(page_json(page.read_text(encoding="utf-8"))["sweeps"]) == 5
    note = browser.js("document.getElementById('sampled').hidden ? '' : document.getElementById('sampled').textContent")
    assert "keeps 5 of them" in note and "32 sweeps" in note


# ---------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("extra, says", [
    (["--out", "x.png"], ".html"),
    (["--out", "x.html", "--max-sweeps", "1"], "--max-sweeps"),
    (["--out", "x.png", "--figure", "board", "--max-sweeps", "5"], "--max-sweeps applies to --figure html"),
    (["--out", "no/such/folder/x.html"], "folder"),
])
def test_bad_options_are_one_line_and_exit_2(capsys, tmp_path, monkeypatch, extra, says):
    monkeypatch.chdir(tmp_path)
    fig = [] if "--figure" in extra else ["--figure", "html"]
    assert main(["export", "--game", "gridworld", *fig, *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and says in err
    assert list(tmp_path.rglob("*")) == []


def test_a_failed_export_leaves_no_file(qapp, capsys, tmp_path, monkeypatch):
    def fail(*_a, **_k):
        raise OSError("disk full")

    monkeypatch.setattr(lp, "page_html", fail)
    assert main(["export", "--game", "maxbias", "--figure", "html", "--out", str(tmp_path / "x.html")]) == 2
    assert "disk full" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------- the window
def test_file_menu_exports_the_shown_solve_as_a_web_page(qtbot, tmp_path, browser):
    from tests.conftest import make_window

    w = make_window(qtbot, tmp_path / "settings.ini", game="gridworld", show=True)  # its board lives in the window
    try:
        for _ in range(3):
            k = len(w.controller.history)
            w.solving.step()
            qtbot.waitUntil(lambda: len(w.controller.history) > k)
        hist = list(w.controller.history)
        board = w.stage.board
        # Esc while the frames are drawn: nothing is written
        w.files.export_page(tmp_path / "cancelled.html")
        qtbot.waitUntil(lambda: w.files.page_writer is not None)
        w.solving.stop()
        assert not w.files.page_writer.running and list(tmp_path.glob("*.html")) == []
        qtbot.waitUntil(lambda: not w.controller.job_busy)
        # File > Export lesson as web page: the numbers on the job thread, the frames one per event-loop turn
        w.dialogs.save_path = str(tmp_path / "grid.html")
        w.files.act_export_page.trigger()
        qtbot.waitUntil(lambda: w.files.page_writer is not None and w.files.page_writer.path.name == "grid.html")
        with qtbot.waitSignal(w.files.page_writer.finished, timeout=30_000) as blocker:
            pass
        assert blocker.args[0] == tmp_path / "grid.html" and not w.dialogs.errors
        text = (tmp_path / "grid.html").read_text(encoding="utf-8")
        data, frames = page_json(text), page_json(text, "mdpviz-frames")
        assert [s["values"] for s in data["sweeps"]] == [np.asarray(sw.values).tolist() for sw in hist]
        assert data["sweeps"][-1]["policy"] == [None if a < 0 or w.controller.mdp.terminal[s] else
                                                w.stage.session.game.action_name(int(a))
                                                for s, a in enumerate(hist[-1].policy)]
        # each frame is its own sweep (drawn on a board of the export's own: the window's stays in place)
        assert len(set(frames["images"])) == len(frames["images"]) == 3 and len(frames["rects"]) == 11
        assert w.stage.board is board and board.isVisible()
        assert sorted(p.name for p in tmp_path.iterdir() if p.name != "settings.ini") == ["grid.html"]
        # a learner: every episode, its learned values and greedy policy, the largest error to the exact values
        p = w.solver_panel
        p.algorithm.setCurrentIndex(p.algorithm.findData("q"))
        for _ in range(3):
            k = len(w.controller.history)
            p.step.click()
            qtbot.waitUntil(lambda: len(w.controller.history) > k and w.controller.state != "stepping")
        steps = list(w.controller.history)
        w.files.export_page(tmp_path / "q.html")
        qtbot.waitUntil(lambda: w.files.page_writer is not None and w.files.page_writer.path.name == "q.html")
        with qtbot.waitSignal(w.files.page_writer.finished, timeout=30_000):
            pass
        text = (tmp_path / "q.html").read_text(encoding="utf-8")
        data, frames = page_json(text), page_json(text, "mdpviz-frames")
        terminal = np.asarray(w.controller.mdp.terminal)
        assert [(s["sweep"], s["phase"], s["delta"]) for s in data["sweeps"]] == [
            (st.episode, "episode", st.max_error) for st in steps]
        assert [s["values"] for s in data["sweeps"]] == [np.where(terminal, 0.0, st.values).tolist() for st in steps]
        assert data["unit"] == "episode" and data["inspect"] is None and len(frames["images"]) == 3
        browser.console.clear()
        assert browser.load(tmp_path / "q.html")
        browser.js("window.mdpvizLesson.show(1); window.mdpvizLesson.select(0); 1")
        shown = browser.js("document.getElementById('inspector').textContent")
        assert f"V = {data['sweeps'][1]['values'][0]:.4f}" in shown and "learned values" in shown
        assert browser.console == []
        w.dialogs.save_path = str(tmp_path / "bad.png")
        w.files.act_export_page.trigger()
        assert w.dialogs.errors and ".html" in w.dialogs.errors[-1][1]
    finally:
        w.shutdown()
