"""Qt widgets that draw boards, heatmaps, plots and editors; they render, they never solve.

The modules ``geometry``, ``colors``, ``display`` and ``episodes`` hold the pure functions behind
what the widgets draw (no Qt import, tested without a display); the others are Qt widgets.
"""


def named(widget, name: str, accessible: str):
    """Give a control its objectName (for tests) and accessible name (for screen readers); returns it."""
    widget.setObjectName(name)
    widget.setAccessibleName(accessible)
    return widget
