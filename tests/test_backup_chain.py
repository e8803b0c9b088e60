"""The inspector's chain of backups (issue 28 item 5): each term's V(s') is a link to the backup of s'
at the snapshot whose values the term read, with a breadcrumb back; the board outlines the chain.

Pure parts first (the chain, its links, the one rule for the source snapshot), then the window.
"""
from __future__ import annotations

import re
from html import unescape

import numpy as np
import pytest

from mdpviz.models.kit.pictures.chain import (BackupChain, back_href, breadcrumb_html, follow_href, outline_labels,
                                     parse_href)
from mdpviz.models.kit.pictures.display import (ActionBackup, BackupTerm, Inspection, backup_sources, backup_text,
                                       backup_values, html_escape, inspection_html)
from mdpviz.models.kit.game.game_model import build_game
from mdpviz.solvers import solver


# ---------------------------------------------------------------------------------- pure: links
def test_links_round_trip():
    assert parse_href(follow_href(17)) == ("next", 17)
    assert parse_href(back_href(0)) == ("back", 0)
    for junk in ("", "chain:", "chain:next/", "chain:next/-1", "chain:jump/3", "http://x/next/3", "next/3",
                 "chain:back/a"):
        assert parse_href(junk) is None, junk


def test_chain_follow_back_and_pages():
    c = BackupChain.start(4)
    assert c.states == (4,) and c.current == 4
    c = c.follow(5).follow(4).follow(9)  # a state may come back (a wall bounces to itself)
    assert c.states == (4, 5, 4, 9) and c.current == 9
    assert c.back(1).states == (4, 5)
    assert c.back(0).states == (4,)
    with pytest.raises(ValueError, match="crumb 4"):
        c.back(4)
    assert BackupChain.start(None).states == () and BackupChain().current is None

    # Jacobi-like sources: every successor is read from the snapshot before; the -1 snapshot ends it
    calls = []

    def sources(s, i):
        calls.append((s, i))
        return np.full(10, i - 1)

    assert c.pages(2, sources) == ((4, 2), (5, 1), (4, 0), (9, -1))
    assert calls == [(4, 2), (5, 1), (4, 0)]
    assert c.pages(0, sources) == ((4, 0), (5, -1), (4, -1), (9, -1))  # before the first sweep: V = 0 stays


def test_outline_labels_in_chain_order():
    assert outline_labels([7]) == {}  # one state: the inspected state's own outline
    assert outline_labels([]) == {}
    assert outline_labels([3, 8, 1]) == {3: "1", 8: "2", 1: "3"}
    assert outline_labels([3, 8, 3, 3, 3, 2]) == {3: "1,3,4+", 8: "2", 2: "6"}
    assert list(outline_labels([5, 2, 9])) == [5, 2, 9]


def test_backup_text_links_every_term_and_reads_as_the_plain_text():
    terms = [BackupTerm(0.8, -0.04, 3, 0.5), BackupTerm(0.1, -0.04, 2, -1.25, "a<b"),
             BackupTerm(0.1, -0.04, 7, 0.0)]
    plain = backup_text(terms, 0.9, state_name=lambda s: f"<{s}>")
    html = backup_text(terms, 0.9, state_name=lambda s: f"<{s}>",
                       link=lambda t: follow_href(t.next_state) if t.next_state != 7 else None)
    assert re.findall(r"href='([^']*)'", html) == ["chain:next/3", "chain:next/2"]
    assert "&lt;3&gt;" in html and "<3>" not in html
    assert unescape(re.sub(r"<[^>]+>", "", html)) == plain


def test_breadcrumb_links_back_to_every_page_but_the_shown_one():
    assert breadcrumb_html(["(0,0)"], escape=html_escape) == ""
    html = breadcrumb_html(["(0,0)", "(0,1)", "a&b"], escape=html_escape)
    assert re.findall(r"href='([^']*)'>([^<]*)<", html) == [("chain:back/0", "(0,0)"), ("chain:back/1", "(0,1)")]
    assert "<b>a&amp;b</b>" in html
    assert html.index("(0,0)") < html.index("(0,1)") < html.index("a&amp;b")


@pytest.mark.parametrize("compact", [False, True])
def test_inspection_html_has_the_breadcrumb_and_the_links(compact):
    link = "V(<a href='chain:next/2'>2</a>)"
    insp = Inspection("s after sweep 3", 1.0, (ActionBackup(0, "go", 1.0, "V(2)", True, html=link),),
                      "max", 0.9, chain=("root", "mid", "s"))
    html = inspection_html(insp, compact=compact)
    assert "chain:back/0" in html and "chain:back/1" in html and "chain:back/2" not in html
    assert link in html
    term = Inspection("t after sweep 2", 0.0, (), "max", 0.9, terminal=True, chain=("root", "t"))
    html = inspection_html(term, compact=compact)
    assert "Terminal state" in html and "chain ends here" in html and "chain:back/0" in html


# ---------------------------------------------------------------------------------- pure: the one rule
def _history(key: str, method: str, **opts):
    mdp = build_game(key).mdp
    return mdp, list(solver(mdp, method, **opts))


@pytest.mark.parametrize("method,opts", [("vi", {}), ("gs", {}), ("vi", {"q_from": "current"}), ("pi", {}),
                                         ("evaluate", {"policy": "random"})])
@pytest.mark.parametrize("key", ["gridworld", "snakes"])
def test_each_term_reads_the_snapshot_its_link_opens(key, method, opts):
    """backup_values is backup_sources' snapshots: the V(s') of every term is V of s' in the snapshot
    the term's link opens (so the linked page's V is the term's number), at every index and state."""
    mdp, hist = _history(key, method, **opts)
    n = mdp.n_states
    moved = set()
    for i in [-1, *range(len(hist))]:
        for s in range(n):
            vals, text = backup_values(hist, i, s, n_states=n)
            src, text2 = backup_sources(hist, i, s, n_states=n)
            assert text == text2
            page = np.array([0.0 if j < 0 else hist[j].values[t] for t, j in enumerate(src)])
            assert np.array_equal(vals, page), (i, s)
            assert ((src == i) | (src == i - 1)).all() and src.dtype == np.int64
            if i >= 0:
                moved |= set(np.unique(src - i).tolist())
    # the rule is not trivial: Jacobi reads the previous snapshot, Gauss-Seidel both, CS188's k its own
    expect = {"vi": {-1}, "gs": {-1, 0}, "pi": {-1, 0}, "evaluate": {0}}[method]
    assert moved == ({0} if opts.get("q_from") == "current" else expect)


# ---------------------------------------------------------------------------------- the window
def _solved(qtbot, w, key: str, method: str, **conventions):
    from tests.test_board_colours import open_game, run_to_end

    g = open_game(qtbot, w, key, None)
    w.solver_panel.set_method(method)
    if conventions:
        w.solver_panel.set_conventions(**conventions)
    w.solving.reset_solver()
    qtbot.waitUntil(lambda: w.controller.state == "ready", timeout=10_000)
    run_to_end(qtbot, w)
    return g


def _click(w, href: str) -> None:
    """Click a link of the inspector's text (its anchorClicked, as a mouse click on the anchor emits it)."""
    from PySide6.QtCore import QUrl

    assert href in w.inspector.text.toHtml() or href.startswith("chain:back"), href
    w.inspector.text.anchorClicked.emit(QUrl(href))


def _best(insp):
    return next(a for a in insp.actions if a.best)


def _follow_checked(w, term: BackupTerm) -> None:
    """Follow ``term``'s link and check the page: the successor's backup, its V the term's number."""
    before = w.solving.chain.states
    _click(w, follow_href(term.next_state))
    page = w.solving.inspection()
    assert w.solving.chain.states == (*before, term.next_state)
    assert w.solving.selected == term.next_state
    assert page.value == term.next_value  # exactly the number in the parent's term
    assert page.chain[-1] == w.solving._crumb_name(term.next_state) and len(page.chain) == len(before) + 1


@pytest.mark.parametrize("key,method,conv", [
    ("gridworld", "vi", {}), ("gridworld", "gs", {}),  # the grid's arrows are greedy in the shown values
    ("snakes", "vi", {}), ("snakes", "gs", {}), ("snakes", "vi", {"q_from": "current"}),  # the sweep's own dice
])
def test_links_show_the_terms_numbers(qtbot, window, key, method, conv):
    w = window
    g = _solved(qtbot, w, key, method, **conv)
    mdp = w.controller.mdp
    mid = len(w.controller.history) // 2
    w.solving._on_history_moved(mid)  # a sweep before convergence: the values still change between sweeps
    w.solving.redraw()
    root = int(g.session.start_state())
    w.solving.inspect(root)
    root_html = w.inspector.text.toHtml()
    for _ in range(3):  # every term of the best action, then on along its first non-terminal one
        insp = w.solving.inspection()
        terms = _best(insp).terms
        assert terms and all(follow_href(t.next_state) in w.inspector.text.toHtml() for t in terms)
        for t in terms:
            _follow_checked(w, t)
            _click(w, back_href(len(w.solving.chain.states) - 2))  # the breadcrumb back to the parent
            assert w.solving.inspection() == insp
        _follow_checked(w, next(t for t in terms if not mdp.terminal[t.next_state]))
    assert len(w.solving.chain.states) == 4 and "chain:back/2" in w.inspector.text.toHtml()
    # which sweep each page is at: the one whose values its parent's term read
    at = [i for _, i in w.solving.chain_pages()]
    if key == "gridworld" or conv:  # the shown values (the grid's arrows; CS188's "Q from V_k")
        assert at == [mid] * 4
    elif method == "vi":  # Jacobi: V_k(s) came from V_(k-1) of its successors, one sweep further back
        assert at == [mid, mid - 1, mid - 2, mid - 3]
        assert w.solving.inspection().title.endswith(f"after sweep {w.controller.history[mid - 3].iteration}")
    else:  # in place: this sweep's values for the states updated before, the previous sweep's after
        states = w.solving.chain.states
        assert at[0] == mid and all(at[k + 1] == at[k] - (states[k + 1] >= states[k]) for k in range(3))
    # the breadcrumb's first crumb returns to the clicked state, as first shown
    _click(w, back_href(0))
    assert w.solving.chain.states == (root,) and w.solving.selected == root and w.inspector.text.toHtml() == root_html


def test_snakes_chain_reaches_the_goal_and_the_board_outlines_it(qtbot, window):
    from mdpviz.widgets.chain_marks import CHAIN, MIN_DISC

    w = window
    _solved(qtbot, w, "snakes", "vi")
    mdp = w.controller.mdp
    w.solving.inspect(0)  # square 1, at the last sweep
    seen = [0]
    for _ in range(40):
        insp = w.solving.inspection()
        if insp.terminal:
            break
        t = max(_best(insp).terms, key=lambda t: (t.next_state, t.prob))  # the furthest square the best die reaches
        _follow_checked(w, t)
        seen.append(t.next_state)
    assert insp.terminal and mdp.terminal[w.solving.selected]
    html = w.inspector.text.toHtml()
    assert "Terminal state" in html and "chain ends here" in html
    assert w.solving.chain.states == tuple(seen) and len(seen) >= 3
    # the board outlines the chain's states, numbered in order
    assert w.board.chain_labels == outline_labels(seen)
    assert [w.board.chain_labels[s] for s in dict.fromkeys(seen)][:3] == ["1", "2", "3"]
    w.board.resize(900, 600)
    img = w.board.grab().toImage()
    for s in seen[:2]:  # drawn, not only stored: each number's disc on its cell's top edge
        rect = w.board.cell_rect(s)
        assert img.pixelColor(int(rect.center().x() - MIN_DISC * 0.35), int(rect.top())).name() == CHAIN
    far = w.board.cell_rect(next(s for s in range(mdp.n_states) if s not in seen and not mdp.terminal[s]))
    assert img.pixelColor(int(far.center().x() - MIN_DISC * 0.35), int(far.top())).name() != CHAIN
    # a new click starts a new chain; the board's outlines go
    w.board.inspect_requested.emit(5)
    assert w.solving.chain.states == (5,) and w.board.chain_labels == {}


def test_history_keeps_the_chain_and_a_model_edit_clears_it(qtbot, window):
    from dataclasses import replace

    w = window
    g = _solved(qtbot, w, "gridworld", "vi")
    root = int(g.session.start_state())
    w.solving.inspect(root)
    for _ in range(2):
        _click(w, follow_href(_best(w.solving.inspection()).terms[0].next_state))
    states = w.solving.chain.states
    n = len(w.controller.history)
    assert len(states) == 3 and w.board.canvas.chain_labels  # the grid world's cells, numbered
    geom = g.geometry()
    assert w.board.canvas.chain_labels == {geom.cell_of(s): lab for s, lab in outline_labels(states).items()}
    for k in (n - 1, 3, 1):  # the slider moves: the same chain, every page at the new sweep
        w.solving._on_history_moved(k)
        w.solving.redraw()
        assert w.solving.chain.states == states and w.solving.chain_pages()[0] == (root, k)
        assert "chain:back/1" in w.inspector.text.toHtml()
        parent = w.solving._inspection_at(*w.solving.chain_pages()[-2])
        term = next(t for a in parent.actions for t in a.terms if t.next_state == states[-1])
        assert w.solving.inspection().value == term.next_value
    # a model edit clears the chain (the inspected state stays inspected, a chain of its own)
    g.session.edit(replace(g.settings, noise=0.1 if g.settings.noise != 0.1 else 0.3), "noise")
    w.solving.redraw()
    assert w.solving.chain.states == (states[-1],) and w.board.canvas.chain_labels == {}
    assert "chain:back" not in w.inspector.text.toHtml()


def test_presenter_compact_form_keeps_the_chain(qtbot, window):
    w = window
    _solved(qtbot, w, "snakes", "vi")
    w.solving.inspect(0)
    t = _best(w.solving.inspection()).terms[0]
    w.inspector.set_compact(True)
    _click(w, follow_href(t.next_state))
    html = w.inspector.text.toHtml()
    assert "chain:back/0" in html and "chain:next/" in html
    assert w.solving.inspection().value == t.next_value


def test_gambler_and_jack_number_the_chain_on_their_plots(qtbot, window):
    w = window
    g = _solved(qtbot, w, "gambler", "vi")
    board = w.board
    w.solving.inspect(30)
    for _ in range(2):
        t = next(t for t in _best(w.solving.inspection()).terms if not w.controller.mdp.terminal[t.next_state])
        _follow_checked(w, t)
    states = w.solving.chain.states
    values = w.controller.history[-1].values
    got = [(it.toPlainText(), (it.pos().x(), it.pos().y())) for it in board._chain_items]
    assert got == [(lab, (float(s), float(values[s]))) for s, lab in outline_labels(states).items()]
    assert all(it in board.value_plot.items for it in board._chain_items)
    w.solving.redraw()  # a frame redraws the plot: the numbers come back with it
    w.solving.mark_dirty()
    w.solving.redraw()
    assert len(board._chain_items) == 3 and all(it in board.value_plot.items for it in board._chain_items)
    w.solving.inspect(40)
    assert board._chain_items == [] and g.session.mdp() is w.controller.mdp

    from mdpviz.models.jack.rules import state_of

    w.switch_game("jack")
    jb = w.game.board_widget()
    m = w.game.settings.max_cars
    jb.show_chain([state_of(9, 11, m), state_of(9, 9, m), state_of(3, 4, m)])
    assert [(it.toPlainText(), (it.pos().x(), it.pos().y())) for it in jb._chain_items] == [
        ("1", (11.5, 9.5)), ("2", (9.5, 9.5)), ("3", (4.5, 3.5))]
    jb.show_chain([])
    assert jb._chain_items == [] and not any(it.__class__.__name__ == "TextItem" and it.toPlainText() == "1"
                                             for it in jb.plot.items)


def test_a_mouse_click_on_a_term_follows_it(qtbot, window):
    """The anchors are real links of the QTextBrowser: a click on one (not only its signal) follows it."""
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtGui import QTextCursor

    w = window
    _solved(qtbot, w, "snakes", "vi")
    w.inspector_dock.raise_()
    w.show()
    w.solving.inspect(0)
    text = w.inspector.text
    doc = text.document()
    found = None
    block = doc.begin()
    while found is None and block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            if frag.charFormat().anchorHref().startswith("chain:next/"):
                found = (frag.position() + frag.length() // 2, frag.charFormat().anchorHref())
                break
            it += 1
        block = block.next()
    assert found is not None
    pos, href = found
    cur = QTextCursor(doc)
    cur.setPosition(pos)
    text.setTextCursor(cur)
    text.ensureCursorVisible()
    r = text.cursorRect(cur)
    assert text.anchorAt(r.center()) == href
    qtbot.mouseClick(text.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(r.center()))
    assert w.solving.chain.states == (0, int(href.rsplit("/", 1)[1]))
