"""The core, below everything else: the one MDP type (:class:`~mdpviz.core.mdp.TabularMDP`), the file formats
(the course's MDP files, Storm's DRN, byte-budgeted reading), the simulator, chunked building and the one job
protocol (:mod:`mdpviz.core.jobs`). numpy only: it never imports the solvers, a game or Qt."""
