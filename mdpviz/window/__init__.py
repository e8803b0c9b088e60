"""The parts :class:`mdpviz.app.MainWindow` is assembled from, one concern per module (app layer).

:mod:`~mdpviz.window.parts` (constants, dialogs, helpers), :mod:`~mdpviz.window.solving` (solver,
drawing, inspector), :mod:`~mdpviz.window.playing` (simulations, jobs, episodes),
:mod:`~mdpviz.window.files` (scenarios, MDP files, exports), :mod:`~mdpviz.window.classroom`
(lesson, comparison, view modes) and :mod:`~mdpviz.window.view` (presenter mode, layouts, settings).
"""
