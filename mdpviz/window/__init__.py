"""The parts :class:`mdpviz.app.MainWindow` is assembled from, one object per concern (app layer).

Each part is a :class:`~PySide6.QtCore.QObject` that owns its state (one docstring per attribute),
builds its own menu actions and docks, and is handed the window's :class:`~mdpviz.window.hub.Hub`:
the shared things (the controller, the settings, the dialogs, the status line, the Solver panel,
the inspector, the plots, the colour bar, the player, the docks, the menus) and the other parts,
of which it uses only the public methods and attributes. No part sets an attribute of another, nor
reads one's private state (``tests/test_window_parts.py`` reads the modules). Where one part
reacts to another it hears a named signal, so nothing depends on the order listeners were connected.

The hub's signals: ``game_shown`` and ``model_changed`` (emitted by the stage), ``scenario_loaded``
(files), ``presenter_changed`` (view) and ``shutting_down`` (the window).

- :mod:`~mdpviz.window.stage` (:class:`~mdpviz.window.stage.StagePart`, built first by the window): the
  games, the shown one's session and board, the widgets built per game, the central pages; hears
  ``scenario_loaded``.
- :mod:`~mdpviz.window.view`: presenter mode, the dock and page layout, the saved settings; hears
  ``game_shown``.
- :mod:`~mdpviz.window.solving`: the solver's buttons, colour scale, shown sweep, inspector and redraw
  timer; emits ``model_loaded`` (after ``model_changed``, the model's solver is loaded) and
  ``solve_finished`` (after its own word on a finished solve); hears ``model_changed``, ``game_shown``
  and ``shutting_down``.
- :mod:`~mdpviz.window.learning`: learning from experience (its frame, curves, transition steps);
  hears the controller's ``history_reset`` and ``presenter_changed``.
- :mod:`~mdpviz.window.playing`: simulations, a game's jobs, the episode player; hears
  ``model_changed`` and ``shutting_down``.
- :mod:`~mdpviz.window.files`: scenarios, MDP files, figure exports, the window title; emits
  ``scenario_loaded``; hears ``game_shown`` and ``shutting_down``.
- :mod:`~mdpviz.window.classroom`: lesson, comparison, lesson exports, predict/change/Q views, high
  contrast; hears ``model_changed``, ``presenter_changed`` and ``shutting_down``.
- :mod:`~mdpviz.window.sensitivity`: the Sensitivity dock; hears ``game_shown``, ``model_changed`` and
  ``presenter_changed``.
- :mod:`~mdpviz.window.search`: the Tree search dock (Monte Carlo tree search from the shown position, its
  nodes beside the exact values); hears ``game_shown``, ``model_changed`` and ``presenter_changed``.
- :mod:`~mdpviz.window.live`: live re-solve and the policy diff; hears the solving part's
  ``model_loaded`` and ``solve_finished`` and the hub's ``game_shown``.
- :mod:`~mdpviz.window.bandit`: the Bandit testbed dock (Sutton and Barto ch. 2: arms, figure 2.2's curves,
  the parameter study); hears ``presenter_changed``.

:mod:`~mdpviz.window.parts` holds constants, dialogs and helpers. A new dock is its part module plus
one line in :data:`mdpviz.app.PARTS`.
"""
