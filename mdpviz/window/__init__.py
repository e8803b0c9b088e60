"""The parts :class:`mdpviz.app.MainWindow` is assembled from, one concern per module (app layer).

:mod:`~mdpviz.window.parts` holds constants, dialogs and helpers. Each other part is a mixin that
declares its own state (one docstring per attribute) in its ``_init_<part>()``, called once from
``MainWindow.__init__``, and connects its widgets there; no part sets an attribute another declared
(``tests/test_window_parts.py``):

- :mod:`~mdpviz.window.solving`: the solver's buttons, colour scale, shown sweep, inspected state and
  the redraw timer; hears ``model_changed`` (a fresh solver) and ``shutting_down`` (the timer stops).
- :mod:`~mdpviz.window.playing`: simulations, a game's jobs, the episode player; hears
  ``model_changed`` (the job stops, results go) and ``shutting_down`` (the player pauses).
- :mod:`~mdpviz.window.files`: scenarios, MDP files, figure exports, the window title; emits
  ``scenario_loaded``; hears ``game_shown`` (the title) and ``shutting_down``.
- :mod:`~mdpviz.window.classroom`: lesson, comparison, lesson exports, predict/change/Q views, high
  contrast; hears ``model_changed``, ``presenter_changed`` (lines and text) and ``shutting_down``.
- :mod:`~mdpviz.window.view`: presenter mode, the dock and page layout, saved settings, shutting
  down; emits ``presenter_changed`` and ``shutting_down``; hears ``game_shown`` (the game's panels).

The window itself (:mod:`mdpviz.app`) emits ``game_shown`` and ``model_changed`` and hears
``scenario_loaded``.
"""
