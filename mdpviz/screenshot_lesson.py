"""An exported lesson page (:mod:`mdpviz.lesson_page`) opened in a real browser engine, Qt WebEngine (Chromium,
from the PySide6-Addons wheel of the test extra), offscreen: the tests drive it and the pictures of the page
in ``assets/screenshots/lesson/`` are taken by it.

``python -m mdpviz.screenshot_lesson`` writes the example page ``assets/lessons/gridworld-4x3.html`` and its
pictures at a phone's width (390 px), a laptop's (1366 x 768) and presenter size (1280 x 720).

:class:`PageBrowser` loads a file with every network request recorded and blocked (a page that asks for any
URL but its own file and ``data:`` is caught), collects the script console's warnings and errors (an uncaught
exception is one), runs JavaScript and returns its value, and grabs the page at a given size.

Chromium runs as root only without its sandbox: :func:`prepare` sets ``QTWEBENGINE_CHROMIUM_FLAGS``
(``--no-sandbox --disable-gpu``) and ``QTWEBENGINE_DISABLE_SANDBOX`` unless they are set, before Qt WebEngine
is imported. It needs these shared libraries of the system beyond the ones Qt's widgets need (Debian 12
names): libnss3, libnspr4, libasound2, libxcomposite1, libxdamage1, libxtst6, libxkbfile1, libxrandr2,
libgbm1 (a desktop Linux and GitHub's Ubuntu runners have them; see docs/lessons.md).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "assets" / "lessons" / "gridworld-4x3.html"
"""The example page the repository ships (the 4x3 grid by value iteration)."""
SHOTS = ROOT / "assets" / "screenshots" / "lesson"
"""Where the pictures of the page go."""
SIZES = {"phone": (390, 844), "laptop": (1366, 768), "presenter": (1280, 720)}
"""The widths (and heights) the page is looked at: a phone, a laptop, a projector (presenter mode's size).
Their pictures go in ``SHOTS/<w>x<h>/`` (presenter size: ``SHOTS/presenter-1280x720/``), as the other topics'."""


def shot_folder(name: str) -> str:
    """The folder of a size's pictures under :data:`SHOTS`."""
    w, h = SIZES[name]
    return f"presenter-{w}x{h}" if name == "presenter" else f"{w}x{h}"


def prepare() -> None:
    """Chromium's flags for an offscreen run (no GPU; no sandbox, which cannot start as root), set before Qt
    WebEngine is imported, unless the environment sets them already."""
    os.environ.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox --disable-gpu --disable-dev-shm-usage")
    os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")


class PageBrowser:
    """One offscreen browser view (a :class:`QWebEngineView` of its own off-the-record profile)."""

    def __init__(self, width: int = 1366, height: int = 768) -> None:
        prepare()
        from mdpviz.export import ensure_app

        ensure_app()
        from PySide6.QtWebEngineCore import (QWebEnginePage, QWebEngineProfile, QWebEngineSettings,
                                             QWebEngineUrlRequestInterceptor)
        from PySide6.QtWebEngineWidgets import QWebEngineView

        self.requests: list[str] = []
        """Every URL the page asked for (its own file first)."""
        self.console: list[tuple[str, str, int]] = []
        """(level, message, line) of every console message at warning level or above."""
        browser = self

        class Interceptor(QWebEngineUrlRequestInterceptor):
            def interceptRequest(self, info) -> None:  # noqa: N802
                url = info.requestUrl()
                browser.requests.append(url.toString())
                info.block(url.scheme() not in ("file", "data"))  # nothing leaves the machine

        class Page(QWebEnginePage):
            def javaScriptConsoleMessage(self, level, message, line, source) -> None:  # noqa: N802
                if level != QWebEnginePage.JavaScriptConsoleMessageLevel.InfoMessageLevel:
                    browser.console.append((level.name, message, int(line)))

        self.profile = QWebEngineProfile()  # off the record: no cache or cookies on disk
        self.interceptor = Interceptor()
        self.profile.setUrlRequestInterceptor(self.interceptor)
        self.page = Page(self.profile)
        # a local page may ask for remote URLs: then the interceptor sees (and blocks) every request it makes
        self.page.settings().setAttribute(QWebEngineSettings.WebAttribute.LocalContentCanAccessRemoteUrls, True)
        self.view = QWebEngineView()
        self.view.setPage(self.page)
        self.view.resize(width, height)
        self.view.show()

    def _wait(self, done: list, ms: int) -> None:
        from PySide6.QtCore import QEventLoop, QTimer

        loop = QEventLoop()
        timer = QTimer()
        timer.setSingleShot(True)
        timer.timeout.connect(loop.quit)
        timer.start(ms)
        check = QTimer()
        check.timeout.connect(lambda: loop.quit() if done else None)
        check.start(10)
        loop.exec()
        check.stop()

    def load(self, path: str | Path, *, timeout_ms: int = 30_000) -> bool:
        """Open the file ``path``; whether it loaded (False: it did not within ``timeout_ms``)."""
        from PySide6.QtCore import QUrl

        ok: list[bool] = []
        self.page.loadFinished.connect(ok.append)
        try:
            self.page.load(QUrl.fromLocalFile(str(Path(path).resolve())))
            self._wait(ok, timeout_ms)
        finally:
            self.page.loadFinished.disconnect(ok.append)
        return bool(ok and ok[0])

    def js(self, code: str, *, timeout_ms: int = 10_000):
        """The value of the JavaScript expression ``code`` in the page (numbers come back as floats; a
        structure: pass it through JSON.stringify). TimeoutError if it gives none within ``timeout_ms``."""
        out: list = []
        self.page.runJavaScript(code, 0, lambda r: out.append((r,)))
        self._wait(out, timeout_ms)
        if not out:
            raise TimeoutError(f"no answer from the page to {code[:60]!r}")
        return out[0][0]

    def resize(self, width: int, height: int) -> None:
        """Show the page at ``width`` x ``height`` CSS pixels and let it lay out again."""
        self.view.resize(width, height)
        self.settle()

    def settle(self, ms: int = 300) -> None:
        """Let the page lay out and paint (a frame's image decodes, the view repaints)."""
        self.js("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))")
        self._wait([], ms)

    def shot(self, path: str | Path, width: int, height: int) -> Path:
        """The page at ``width`` x ``height`` as PNG (what the view shows, from the top)."""
        self.resize(width, height)
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        if not self.view.grab().save(str(path), "PNG"):
            raise OSError(f"cannot write {path}")
        return path

    def close(self) -> None:
        """Close the view; its page is deleted before its profile (Qt warns when a profile goes first)."""
        from PySide6.QtCore import QCoreApplication, QEvent

        self.view.close()
        self.view.deleteLater()
        self.page.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        self.profile.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def write_example(out: Path = EXAMPLE) -> Path:
    """The example page: the 4x3 grid (its defaults) by value iteration, as ``mdpviz export`` writes it (run
    from the repository's root, so the command on the page names the file as the repository does)."""
    from mdpviz.cli import main

    out.parent.mkdir(parents=True, exist_ok=True)
    here = Path.cwd()
    os.chdir(ROOT)
    try:
        name = os.path.relpath(out, ROOT)
        if main(["export", "--game", "gridworld", "--figure", "html", "--out", name]) != 0:
            raise SystemExit("the example page could not be written")
    finally:
        os.chdir(here)
    return out


def page_shots(page: Path = EXAMPLE, folder: Path = SHOTS, *, state: int | None = 2) -> list[Path]:
    """Pictures of ``page`` at :data:`SIZES`, a state inspected (``state``) at the shown sweep, and a phone's
    screen scrolled down to the inspector at sweep 4."""
    b = PageBrowser()
    try:
        if not b.load(page):
            raise SystemExit(f"{page} did not load")
        if state is not None:
            b.js(f"window.mdpvizLesson.select({int(state)})")
        out = [b.shot(folder / shot_folder(name) / "lesson.png", w, h) for name, (w, h) in SIZES.items()]
        w, h = SIZES["phone"]  # and a phone scrolled down to the inspector: the backup of the state tapped
        b.resize(w, h)
        b.js("window.mdpvizLesson.show(3); document.querySelector('#inspector').parentNode.scrollIntoView(); 1")
        out.append(b.shot(folder / shot_folder("phone") / "lesson-inspector.png", w, h))
        if b.console:
            raise SystemExit(f"the page wrote to the console: {b.console}")
        return out
    finally:
        b.close()


def main() -> int:
    page = write_example()
    for p in page_shots(page):
        print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    prepare()
    sys.exit(main())
