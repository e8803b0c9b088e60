"""Start or explain: can Qt open a window here? Checked before any QApplication exists.

Qt aborts the whole process (exit 134, "could not load the Qt platform plugin xcb") when there is
no display or when a library its xcb plugin links against is missing, and its message names the
wrong library (it blames ``xcb-cursor0`` whatever is missing). :func:`explain_missing_display`
finds the real reason first and returns one paragraph naming it and the Debian packages; the
``mdpviz`` command prints it and exits 2. Never imports Qt.
"""
from __future__ import annotations

import ctypes
import os
import sys

XCB_LIBRARIES: tuple[tuple[str, str], ...] = (
    # (soname, Debian package): what PySide6's libqxcb.so and libQt6XcbQpa.so.6 link against
    # (``ldd`` on both, PySide6 6.11), X and xcb libraries first.
    ("libxcb.so.1", "libxcb1"),
    ("libX11.so.6", "libx11-6"),
    ("libX11-xcb.so.1", "libx11-xcb1"),
    ("libxcb-cursor.so.0", "libxcb-cursor0"),
    ("libxcb-icccm.so.4", "libxcb-icccm4"),
    ("libxcb-image.so.0", "libxcb-image0"),
    ("libxcb-keysyms.so.1", "libxcb-keysyms1"),
    ("libxcb-randr.so.0", "libxcb-randr0"),
    ("libxcb-render.so.0", "libxcb-render0"),
    ("libxcb-render-util.so.0", "libxcb-render-util0"),
    ("libxcb-shape.so.0", "libxcb-shape0"),
    ("libxcb-shm.so.0", "libxcb-shm0"),
    ("libxcb-sync.so.1", "libxcb-sync1"),
    ("libxcb-util.so.1", "libxcb-util1"),
    ("libxcb-xfixes.so.0", "libxcb-xfixes0"),
    ("libxcb-xkb.so.1", "libxcb-xkb1"),
    ("libxkbcommon.so.0", "libxkbcommon0"),
    ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
    ("libGL.so.1", "libgl1"),
    ("libEGL.so.1", "libegl1"),
    ("libfontconfig.so.1", "libfontconfig1"),
    ("libfreetype.so.6", "libfreetype6"),
    ("libglib-2.0.so.0", "libglib2.0-0"),
    ("libdbus-1.so.3", "libdbus-1-3"),
)
"""Shared libraries Qt's xcb platform plugin needs, with the Debian/Ubuntu package of each."""

HEADLESS_HINT = (
    "Every subcommand works without a display (mdpviz --help lists them; export and screenshots "
    "use Qt's offscreen platform by themselves). To open the window on a machine without a screen, "
    "run it on a virtual display: xvfb-run mdpviz (Debian package xvfb)."
)


def missing_libraries(libraries: tuple[tuple[str, str], ...] = XCB_LIBRARIES) -> list[tuple[str, str]]:
    """The (soname, package) pairs of ``libraries`` that the dynamic loader cannot load."""
    missing = []
    for soname, package in libraries:
        try:
            ctypes.CDLL(soname)
        except OSError:
            missing.append((soname, package))
    return missing


def _x_server_answers(display: str) -> bool:
    """True if an X server accepts a connection on ``display`` (through libxcb; no Qt)."""
    try:
        xcb = ctypes.CDLL("libxcb.so.1")
    except OSError:
        return True  # reported as a missing library instead
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
    xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
    conn = xcb.xcb_connect(display.encode(), None)
    try:
        return conn is not None and xcb.xcb_connection_has_error(conn) == 0
    finally:
        if conn is not None:
            xcb.xcb_disconnect(conn)


def explain_missing_display(
    env: dict[str, str] | None = None,
    *,
    platform: str | None = None,
    libraries: tuple[tuple[str, str], ...] = XCB_LIBRARIES,
) -> str | None:
    """One paragraph saying why Qt cannot open a window here, or None if it should be able to.

    Only Linux (and other X11 systems) is checked; macOS and Windows always have a display.
    ``QT_QPA_PLATFORM`` set to anything but xcb (offscreen, wayland, vnc...) is taken as the
    user's choice and not second-guessed.
    """
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    if platform.startswith(("win", "darwin", "cygwin")):
        return None
    qpa = env.get("QT_QPA_PLATFORM", "").strip()
    if qpa and not qpa.startswith("xcb"):
        return None
    if not qpa and env.get("WAYLAND_DISPLAY"):
        return None  # Qt picks its Wayland plugin, which needs none of the xcb libraries
    display = env.get("DISPLAY", "").strip()
    if not display:
        return (
            "mdpviz: cannot open the window: there is no display (the DISPLAY environment variable "
            "is empty, and there is no Wayland session). " + HEADLESS_HINT
        )
    missing = missing_libraries(libraries)
    if missing:
        names = ", ".join(s for s, _ in missing)
        packages = " ".join(p for _, p in missing)
        return (
            f"mdpviz: cannot open the window: Qt's X11 (xcb) platform plugin needs {names}, which "
            f"{'is' if len(missing) == 1 else 'are'} not installed. On Debian or Ubuntu: "
            f"sudo apt-get install {packages} (the README lists every package a minimal Linux "
            "needs). " + HEADLESS_HINT
        )
    if not _x_server_answers(display):
        return (
            f"mdpviz: cannot open the window: no X server answers on DISPLAY={display} (is the "
            "graphical session running, or the SSH connection forwarding X with ssh -X?). " + HEADLESS_HINT
        )
    return None
