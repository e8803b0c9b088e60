"""Numbers of Berkeley CS188's reinforcement project autograder, question 1 (value iteration), kept ONLY as
the reference of tests/test_course_references.py. Beside tests/cs188_reference.py (questions 2-5), in the
same form, in a file of its own only because q1 checks Q at every k and the numbers alone run to ~700 lines.

Source: the UC Berkeley CS188 "reinforcement" project (http://ai.berkeley.edu; "The Pacman AI projects
were developed at UC Berkeley. The core projects and autograders were primarily created by John DeNero
and Dan Klein. Student side autograding was added by Brad Miller, Nick Hay, and Pieter Abbeel"), files
``test_cases/q1/{1-tinygrid,2-tinygrid-noisy,3-bridge,4-discountgrid}.test`` / ``.solution`` (class
``ValueIterationTest``), as published in the project's public copies (the GitHub repository
sebsadface/ai, ``reinforcement/test_cases/q1``). The grader (``reinforcementTestClasses.py``) builds
``gridworld.Gridworld`` from ``grid`` with ``noise`` and ``livingReward``, runs ``ValueIterationAgent``
with ``iterations`` = k for k = 0..9 and k = ``valueIterations`` (100), and compares V_k, Q of every
action computed from V_k (``computeQValueFromValues``) at every such k, and at the last k the policy
(``computeActionFromValues``), cell by cell with an absolute tolerance of 0.01 (``comparePrettyValues``).

Copied here: each case's grid and settings, V_k and Q of every action at every k checked, and the policy
at the last k. A string lists the printed numbers of the board's non-wall cells row by row, top row first
(``/`` between rows), as the ``.solution`` files print them; "illegal" where the action is not available
(the grader's ``None``).
"""
from __future__ import annotations

TOLERANCE = 0.01
"""The grader's absolute tolerance (``comparePrettyValues(..., tolerance=0.01)``)."""

Q1_GRIDS: dict[str, dict] = {
    "1-tinygrid": {"grid": """
  -10
    S
   10
""", "discount": 0.5, "noise": 0.0, "livingReward": 0.0,
        "valueIterations": 100},
    "2-tinygrid-noisy": {"grid": """
  -10
    S
   10
""", "discount": 0.75, "noise": 0.25, "livingReward": 0.0,
        "valueIterations": 100},
    "3-bridge": {"grid": """
    #   10    #
 -100    _ -100
 -100    _ -100
 -100    _ -100
 -100    _ -100
 -100    S -100
    #    1    #
""", "discount": 0.85, "noise": 0.1, "livingReward": 0.0,
        "valueIterations": 100},
    "4-discountgrid": {"grid": """
  -10    _   10    _    _
  -10    _    #    _    _
  -10    _    1    _    _
  -10    _    #    #    _
  -10    S    _    _    _
""", "discount": 0.9, "noise": 0.2, "livingReward": 0.0,
        "valueIterations": 100},
}
"""Each q1 case's ``grid`` and settings (q1's grids are not q4's: the tiny grid and the bridge stand upright,
the discount grid is another board)."""

Q1: dict[str, dict] = {  # test_cases/q1: ValueIterationAgent
    "1-tinygrid": {
        "values": {
            0: "0.0000 / 0.0000 / 0.0000",
            1: "-10.0000 / 0.0000 / 10.0000",
            2: "-10.0000 / 5.0000 / 10.0000",
            3: "-10.0000 / 5.0000 / 10.0000",
            4: "-10.0000 / 5.0000 / 10.0000",
            5: "-10.0000 / 5.0000 / 10.0000",
            6: "-10.0000 / 5.0000 / 10.0000",
            7: "-10.0000 / 5.0000 / 10.0000",
            8: "-10.0000 / 5.0000 / 10.0000",
            9: "-10.0000 / 5.0000 / 10.0000",
            100: "-10.0000 / 5.0000 / 10.0000",
        },
        "q": {  # Q of every action from V_k, at every k
            0: {
                "north": "illegal / 0.0000 / illegal",
                "east": "illegal / 0.0000 / illegal",
                "exit": "-10.0000 / illegal / 10.0000",
                "south": "illegal / 0.0000 / illegal",
                "west": "illegal / 0.0000 / illegal",
            },
            1: {
                "north": "illegal / -5.0000 / illegal",
                "east": "illegal / 0.0000 / illegal",
                "exit": "-10.0000 / illegal / 10.0000",
                "south": "illegal / 5.0000 / illegal",
                "west": "illegal / 0.0000 / illegal",
            },
            2: {
                "north": "illegal / -5.0000 / illegal",
                "east": "illegal / 2.5000 / illegal",
                "exit": "-10.0000 / illegal / 10.0000",
                "south": "illegal / 5.0000 / illegal",
                "west": "illegal / 2.5000 / illegal",
            },
            3: {
                "north": "illegal / -5.0000 / illegal",
                "east": "illegal / 2.5000 / illegal",
                "exit": "-10.0000 / illegal / 10.0000",
                "south": "illegal / 5.0000 / illegal",
                "west": "illegal / 2.5000 / illegal",
            },
            4: {
                "north": "illegal / -5.0000 / illegal",
                "east": "illegal / 2.5000 / illegal",
                "exit": "-10.0000 / illegal / 10.0000",
                "south": "illegal / 5.0000 / illegal",
                "west": "illegal / 2.5000 / illegal",
            },
            5: {
                "north": "illegal / -5.0000 / illegal",
                "east": "illegal / 2.5000 / illegal",
                "exit": "-10.0000 / illegal / 10.0000",
                "south": "illegal / 5.0000 / illegal",
                "west": "illegal / 2.5000 / illegal",
            },
            6: {
                "north": "illegal / -5.0000 / illegal",
                "east": "illegal / 2.5000 / illegal",
                "exit": "-10.0000 / illegal / 10.0000",
                "south": "illegal / 5.0000 / illegal",
                "west": "illegal / 2.5000 / illegal",
            },
            7: {
                "north": "illegal / -5.0000 / illegal",
                "east": "illegal / 2.5000 / illegal",
                "exit": "-10.0000 / illegal / 10.0000",
                "south": "illegal / 5.0000 / illegal",
                "west": "illegal / 2.5000 / illegal",
            },
            8: {
                "north": "illegal / -5.0000 / illegal",
                "east": "illegal / 2.5000 / illegal",
                "exit": "-10.0000 / illegal / 10.0000",
                "south": "illegal / 5.0000 / illegal",
                "west": "illegal / 2.5000 / illegal",
            },
            9: {
                "north": "illegal / -5.0000 / illegal",
                "east": "illegal / 2.5000 / illegal",
                "exit": "-10.0000 / illegal / 10.0000",
                "south": "illegal / 5.0000 / illegal",
                "west": "illegal / 2.5000 / illegal",
            },
            100: {
                "north": "illegal / -5.0000 / illegal",
                "east": "illegal / 2.5000 / illegal",
                "exit": "-10.0000 / illegal / 10.0000",
                "south": "illegal / 5.0000 / illegal",
                "west": "illegal / 2.5000 / illegal",
            },
        },
        "policy": "exit / south / exit",
    },
    "2-tinygrid-noisy": {
        "values": {
            0: "0.0000 / 0.0000 / 0.0000",
            1: "-10.0000 / 0.0000 / 10.0000",
            2: "-10.0000 / 5.6250 / 10.0000",
            3: "-10.0000 / 6.6797 / 10.0000",
            4: "-10.0000 / 6.8774 / 10.0000",
            5: "-10.0000 / 6.9145 / 10.0000",
            6: "-10.0000 / 6.9215 / 10.0000",
            7: "-10.0000 / 6.9228 / 10.0000",
            8: "-10.0000 / 6.9230 / 10.0000",
            9: "-10.0000 / 6.9231 / 10.0000",
            100: "-10.0000 / 6.9231 / 10.0000",
        },
        "q": {  # Q of every action from V_k, at every k
            0: {
                "north": "illegal / 0.0000 / illegal",
                "east": "illegal / 0.0000 / illegal",
                "exit": "-10.0000 / illegal / 10.0000",
                "south": "illegal / 0.0000 / illegal",
                "west": "illegal / 0.0000 / illegal",
            },
            1: {
                "north": "illegal / -5.6250 / illegal",
                "east": "illegal / 0.0000 / illegal",
                "exit": "-10.0000 / illegal / 10.0000",
                "south": "illegal / 5.6250 / illegal",
                "west": "illegal / 0.0000 / illegal",
            },
            2: {
                "north": "illegal / -4.5703 / illegal",
                "east": "illegal / 3.1641 / illegal",
                "exit": "-10.0000 / illegal / 10.0000",
                "south": "illegal / 6.6797 / illegal",
                "west": "illegal / 3.1641 / illegal",
            },
            3: {
                "north": "illegal / -4.3726 / illegal",
                "east": "illegal / 3.7573 / illegal",
                "exit": "-10.0000 / illegal / 10.0000",
                "south": "illegal / 6.8774 / illegal",
                "west": "illegal / 3.7573 / illegal",
            },
            4: {
                "north": "illegal / -4.3355 / illegal",
                "east": "illegal / 3.8686 / illegal",
                "exit": "-10.0000 / illegal / 10.0000",
                "south": "illegal / 6.9145 / illegal",
                "west": "illegal / 3.8686 / illegal",
            },
            5: {
                "north": "illegal / -4.3285 / illegal",
                "east": "illegal / 3.8894 / illegal",
                "exit": "-10.0000 / illegal / 10.0000",
                "south": "illegal / 6.9215 / illegal",
                "west": "illegal / 3.8894 / illegal",
            },
            6: {
                "north": "illegal / -4.3272 / illegal",
                "east": "illegal / 3.8933 / illegal",
                "exit": "-10.0000 / illegal / 10.0000",
                "south": "illegal / 6.9228 / illegal",
                "west": "illegal / 3.8933 / illegal",
            },
            7: {
                "north": "illegal / -4.3270 / illegal",
                "east": "illegal / 3.8941 / illegal",
                "exit": "-10.0000 / illegal / 10.0000",
                "south": "illegal / 6.9230 / illegal",
                "west": "illegal / 3.8941 / illegal",
            },
            8: {
                "north": "illegal / -4.3269 / illegal",
                "east": "illegal / 3.8942 / illegal",
                "exit": "-10.0000 / illegal / 10.0000",
                "south": "illegal / 6.9231 / illegal",
                "west": "illegal / 3.8942 / illegal",
            },
            9: {
                "north": "illegal / -4.3269 / illegal",
                "east": "illegal / 3.8942 / illegal",
                "exit": "-10.0000 / illegal / 10.0000",
                "south": "illegal / 6.9231 / illegal",
                "west": "illegal / 3.8942 / illegal",
            },
            100: {
                "north": "illegal / -4.3269 / illegal",
                "east": "illegal / 3.8942 / illegal",
                "exit": "-10.0000 / illegal / 10.0000",
                "south": "illegal / 6.9231 / illegal",
                "west": "illegal / 3.8942 / illegal",
            },
        },
        "policy": "exit / south / exit",
    },
    "3-bridge": {
        "values": {
            0: ("0.0000 / 0.0000 0.0000 0.0000 / 0.0000 0.0000 0.0000 / 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 / 0.0000 0.0000 0.0000 / 0.0000"),
            1: ("10.0000 / -100.0000 0.0000 -100.0000 / -100.0000 0.0000 -100.0000 / "
                "-100.0000 0.0000 -100.0000 / -100.0000 0.0000 -100.0000 / -100.0000 0.0000 -100.0000 / 1.0000"),
            2: ("10.0000 / -100.0000 -0.8500 -100.0000 / -100.0000 -8.5000 -100.0000 / "
                "-100.0000 -8.5000 -100.0000 / -100.0000 -8.5000 -100.0000 / -100.0000 -7.7350 -100.0000 / "
                "1.0000"),
            3: ("10.0000 / -100.0000 -0.8500 -100.0000 / -100.0000 -9.1502 -100.0000 / "
                "-100.0000 -15.0025 -100.0000 / -100.0000 -14.4173 -100.0000 / -100.0000 -7.7350 -100.0000 / "
                "1.0000"),
            4: ("10.0000 / -100.0000 -0.8500 -100.0000 / -100.0000 -9.1502 -100.0000 / "
                "-100.0000 -15.4999 -100.0000 / -100.0000 -14.4173 -100.0000 / -100.0000 -7.7350 -100.0000 / "
                "1.0000"),
            5: ("10.0000 / -100.0000 -0.8500 -100.0000 / -100.0000 -9.1502 -100.0000 / "
                "-100.0000 -15.4999 -100.0000 / -100.0000 -14.4173 -100.0000 / -100.0000 -7.7350 -100.0000 / "
                "1.0000"),
            6: ("10.0000 / -100.0000 -0.8500 -100.0000 / -100.0000 -9.1502 -100.0000 / "
                "-100.0000 -15.4999 -100.0000 / -100.0000 -14.4173 -100.0000 / -100.0000 -7.7350 -100.0000 / "
                "1.0000"),
            7: ("10.0000 / -100.0000 -0.8500 -100.0000 / -100.0000 -9.1502 -100.0000 / "
                "-100.0000 -15.4999 -100.0000 / -100.0000 -14.4173 -100.0000 / -100.0000 -7.7350 -100.0000 / "
                "1.0000"),
            8: ("10.0000 / -100.0000 -0.8500 -100.0000 / -100.0000 -9.1502 -100.0000 / "
                "-100.0000 -15.4999 -100.0000 / -100.0000 -14.4173 -100.0000 / -100.0000 -7.7350 -100.0000 / "
                "1.0000"),
            9: ("10.0000 / -100.0000 -0.8500 -100.0000 / -100.0000 -9.1502 -100.0000 / "
                "-100.0000 -15.4999 -100.0000 / -100.0000 -14.4173 -100.0000 / -100.0000 -7.7350 -100.0000 / "
                "1.0000"),
            100: ("10.0000 / -100.0000 -0.8500 -100.0000 / -100.0000 -9.1502 -100.0000 / "
                "-100.0000 -15.4999 -100.0000 / -100.0000 -14.4173 -100.0000 / -100.0000 -7.7350 -100.0000 / "
                "1.0000"),
        },
        "q": {  # Q of every action from V_k, at every k
            0: {
                "north": ("illegal / illegal 0.0000 illegal / illegal 0.0000 illegal / "
                              "illegal 0.0000 illegal / illegal 0.0000 illegal / illegal 0.0000 illegal / "
                              "illegal"),
                "east": ("illegal / illegal 0.0000 illegal / illegal 0.0000 illegal / "
                             "illegal 0.0000 illegal / illegal 0.0000 illegal / illegal 0.0000 illegal / "
                             "illegal"),
                "exit": ("10.0000 / -100.0000 illegal -100.0000 / -100.0000 illegal -100.0000 / "
                             "-100.0000 illegal -100.0000 / -100.0000 illegal -100.0000 / "
                             "-100.0000 illegal -100.0000 / 1.0000"),
                "south": ("illegal / illegal 0.0000 illegal / illegal 0.0000 illegal / "
                              "illegal 0.0000 illegal / illegal 0.0000 illegal / illegal 0.0000 illegal / "
                              "illegal"),
                "west": ("illegal / illegal 0.0000 illegal / illegal 0.0000 illegal / "
                             "illegal 0.0000 illegal / illegal 0.0000 illegal / illegal 0.0000 illegal / "
                             "illegal"),
            },
            1: {
                "north": ("illegal / illegal -0.8500 illegal / illegal -8.5000 illegal / "
                              "illegal -8.5000 illegal / illegal -8.5000 illegal / illegal -8.5000 illegal / "
                              "illegal"),
                "east": ("illegal / illegal -76.0750 illegal / illegal -76.5000 illegal / "
                             "illegal -76.5000 illegal / illegal -76.5000 illegal / illegal -76.4575 illegal / "
                             "illegal"),
                "exit": ("10.0000 / -100.0000 illegal -100.0000 / -100.0000 illegal -100.0000 / "
                             "-100.0000 illegal -100.0000 / -100.0000 illegal -100.0000 / "
                             "-100.0000 illegal -100.0000 / 1.0000"),
                "south": ("illegal / illegal -8.5000 illegal / illegal -8.5000 illegal / "
                              "illegal -8.5000 illegal / illegal -8.5000 illegal / illegal -7.7350 illegal / "
                              "illegal"),
                "west": ("illegal / illegal -76.0750 illegal / illegal -76.5000 illegal / "
                             "illegal -76.5000 illegal / illegal -76.5000 illegal / illegal -76.4575 illegal / "
                             "illegal"),
            },
            2: {
                "north": ("illegal / illegal -0.8500 illegal / illegal -9.1502 illegal / "
                              "illegal -15.0025 illegal / illegal -15.0025 illegal / illegal -15.0025 illegal / "
                              "illegal"),
                "east": ("illegal / illegal -76.4363 illegal / illegal -76.8974 illegal / "
                             "illegal -77.2225 illegal / illegal -77.1900 illegal / illegal -76.8187 illegal / "
                             "illegal"),
                "exit": ("10.0000 / -100.0000 illegal -100.0000 / -100.0000 illegal -100.0000 / "
                             "-100.0000 illegal -100.0000 / -100.0000 illegal -100.0000 / "
                             "-100.0000 illegal -100.0000 / 1.0000"),
                "south": ("illegal / illegal -15.0025 illegal / illegal -15.0025 illegal / "
                              "illegal -15.0025 illegal / illegal -14.4173 illegal / illegal -7.7350 illegal / "
                              "illegal"),
                "west": ("illegal / illegal -76.4363 illegal / illegal -76.8974 illegal / "
                             "illegal -77.2225 illegal / illegal -77.1900 illegal / illegal -76.8187 illegal / "
                             "illegal"),
            },
            3: {
                "north": ("illegal / illegal -0.8500 illegal / illegal -9.1502 illegal / "
                              "illegal -15.4999 illegal / illegal -19.9769 illegal / illegal -19.5292 illegal / "
                              "illegal"),
                "east": ("illegal / illegal -76.4639 illegal / illegal -77.1737 illegal / "
                             "illegal -77.5016 illegal / illegal -77.4663 illegal / illegal -77.0702 illegal / "
                             "illegal"),
                "exit": ("10.0000 / -100.0000 illegal -100.0000 / -100.0000 illegal -100.0000 / "
                             "-100.0000 illegal -100.0000 / -100.0000 illegal -100.0000 / "
                             "-100.0000 illegal -100.0000 / 1.0000"),
                "south": ("illegal / illegal -15.4999 illegal / illegal -19.9769 illegal / "
                              "illegal -19.5292 illegal / illegal -14.4173 illegal / illegal -7.7350 illegal / "
                              "illegal"),
                "west": ("illegal / illegal -76.4639 illegal / illegal -77.1737 illegal / "
                             "illegal -77.5016 illegal / illegal -77.4663 illegal / illegal -77.0702 illegal / "
                             "illegal"),
            },
            4: {
                "north": ("illegal / illegal -0.8500 illegal / illegal -9.1502 illegal / "
                              "illegal -15.4999 illegal / illegal -20.3575 illegal / illegal -19.5292 illegal / "
                              "illegal"),
                "east": ("illegal / illegal -76.4639 illegal / illegal -77.1949 illegal / "
                             "illegal -77.5016 illegal / illegal -77.4875 illegal / illegal -77.0702 illegal / "
                             "illegal"),
                "exit": ("10.0000 / -100.0000 illegal -100.0000 / -100.0000 illegal -100.0000 / "
                             "-100.0000 illegal -100.0000 / -100.0000 illegal -100.0000 / "
                             "-100.0000 illegal -100.0000 / 1.0000"),
                "south": ("illegal / illegal -15.4999 illegal / illegal -20.3575 illegal / "
                              "illegal -19.5292 illegal / illegal -14.4173 illegal / illegal -7.7350 illegal / "
                              "illegal"),
                "west": ("illegal / illegal -76.4639 illegal / illegal -77.1949 illegal / "
                             "illegal -77.5016 illegal / illegal -77.4875 illegal / illegal -77.0702 illegal / "
                             "illegal"),
            },
            5: {
                "north": ("illegal / illegal -0.8500 illegal / illegal -9.1502 illegal / "
                              "illegal -15.4999 illegal / illegal -20.3575 illegal / illegal -19.5292 illegal / "
                              "illegal"),
                "east": ("illegal / illegal -76.4639 illegal / illegal -77.1949 illegal / "
                             "illegal -77.5016 illegal / illegal -77.4875 illegal / illegal -77.0702 illegal / "
                             "illegal"),
                "exit": ("10.0000 / -100.0000 illegal -100.0000 / -100.0000 illegal -100.0000 / "
                             "-100.0000 illegal -100.0000 / -100.0000 illegal -100.0000 / "
                             "-100.0000 illegal -100.0000 / 1.0000"),
                "south": ("illegal / illegal -15.4999 illegal / illegal -20.3575 illegal / "
                              "illegal -19.5292 illegal / illegal -14.4173 illegal / illegal -7.7350 illegal / "
                              "illegal"),
                "west": ("illegal / illegal -76.4639 illegal / illegal -77.1949 illegal / "
                             "illegal -77.5016 illegal / illegal -77.4875 illegal / illegal -77.0702 illegal / "
                             "illegal"),
            },
            6: {
                "north": ("illegal / illegal -0.8500 illegal / illegal -9.1502 illegal / "
                              "illegal -15.4999 illegal / illegal -20.3575 illegal / illegal -19.5292 illegal / "
                              "illegal"),
                "east": ("illegal / illegal -76.4639 illegal / illegal -77.1949 illegal / "
                             "illegal -77.5016 illegal / illegal -77.4875 illegal / illegal -77.0702 illegal / "
                             "illegal"),
                "exit": ("10.0000 / -100.0000 illegal -100.0000 / -100.0000 illegal -100.0000 / "
                             "-100.0000 illegal -100.0000 / -100.0000 illegal -100.0000 / "
                             "-100.0000 illegal -100.0000 / 1.0000"),
                "south": ("illegal / illegal -15.4999 illegal / illegal -20.3575 illegal / "
                              "illegal -19.5292 illegal / illegal -14.4173 illegal / illegal -7.7350 illegal / "
                              "illegal"),
                "west": ("illegal / illegal -76.4639 illegal / illegal -77.1949 illegal / "
                             "illegal -77.5016 illegal / illegal -77.4875 illegal / illegal -77.0702 illegal / "
                             "illegal"),
            },
            7: {
                "north": ("illegal / illegal -0.8500 illegal / illegal -9.1502 illegal / "
                              "illegal -15.4999 illegal / illegal -20.3575 illegal / illegal -19.5292 illegal / "
                              "illegal"),
                "east": ("illegal / illegal -76.4639 illegal / illegal -77.1949 illegal / "
                             "illegal -77.5016 illegal / illegal -77.4875 illegal / illegal -77.0702 illegal / "
                             "illegal"),
                "exit": ("10.0000 / -100.0000 illegal -100.0000 / -100.0000 illegal -100.0000 / "
                             "-100.0000 illegal -100.0000 / -100.0000 illegal -100.0000 / "
                             "-100.0000 illegal -100.0000 / 1.0000"),
                "south": ("illegal / illegal -15.4999 illegal / illegal -20.3575 illegal / "
                              "illegal -19.5292 illegal / illegal -14.4173 illegal / illegal -7.7350 illegal / "
                              "illegal"),
                "west": ("illegal / illegal -76.4639 illegal / illegal -77.1949 illegal / "
                             "illegal -77.5016 illegal / illegal -77.4875 illegal / illegal -77.0702 illegal / "
                             "illegal"),
            },
            8: {
                "north": ("illegal / illegal -0.8500 illegal / illegal -9.1502 illegal / "
                              "illegal -15.4999 illegal / illegal -20.3575 illegal / illegal -19.5292 illegal / "
                              "illegal"),
                "east": ("illegal / illegal -76.4639 illegal / illegal -77.1949 illegal / "
                             "illegal -77.5016 illegal / illegal -77.4875 illegal / illegal -77.0702 illegal / "
                             "illegal"),
                "exit": ("10.0000 / -100.0000 illegal -100.0000 / -100.0000 illegal -100.0000 / "
                             "-100.0000 illegal -100.0000 / -100.0000 illegal -100.0000 / "
                             "-100.0000 illegal -100.0000 / 1.0000"),
                "south": ("illegal / illegal -15.4999 illegal / illegal -20.3575 illegal / "
                              "illegal -19.5292 illegal / illegal -14.4173 illegal / illegal -7.7350 illegal / "
                              "illegal"),
                "west": ("illegal / illegal -76.4639 illegal / illegal -77.1949 illegal / "
                             "illegal -77.5016 illegal / illegal -77.4875 illegal / illegal -77.0702 illegal / "
                             "illegal"),
            },
            9: {
                "north": ("illegal / illegal -0.8500 illegal / illegal -9.1502 illegal / "
                              "illegal -15.4999 illegal / illegal -20.3575 illegal / illegal -19.5292 illegal / "
                              "illegal"),
                "east": ("illegal / illegal -76.4639 illegal / illegal -77.1949 illegal / "
                             "illegal -77.5016 illegal / illegal -77.4875 illegal / illegal -77.0702 illegal / "
                             "illegal"),
                "exit": ("10.0000 / -100.0000 illegal -100.0000 / -100.0000 illegal -100.0000 / "
                             "-100.0000 illegal -100.0000 / -100.0000 illegal -100.0000 / "
                             "-100.0000 illegal -100.0000 / 1.0000"),
                "south": ("illegal / illegal -15.4999 illegal / illegal -20.3575 illegal / "
                              "illegal -19.5292 illegal / illegal -14.4173 illegal / illegal -7.7350 illegal / "
                              "illegal"),
                "west": ("illegal / illegal -76.4639 illegal / illegal -77.1949 illegal / "
                             "illegal -77.5016 illegal / illegal -77.4875 illegal / illegal -77.0702 illegal / "
                             "illegal"),
            },
            100: {
                "north": ("illegal / illegal -0.8500 illegal / illegal -9.1502 illegal / "
                              "illegal -15.4999 illegal / illegal -20.3575 illegal / illegal -19.5292 illegal / "
                              "illegal"),
                "east": ("illegal / illegal -76.4639 illegal / illegal -77.1949 illegal / "
                             "illegal -77.5016 illegal / illegal -77.4875 illegal / illegal -77.0702 illegal / "
                             "illegal"),
                "exit": ("10.0000 / -100.0000 illegal -100.0000 / -100.0000 illegal -100.0000 / "
                             "-100.0000 illegal -100.0000 / -100.0000 illegal -100.0000 / "
                             "-100.0000 illegal -100.0000 / 1.0000"),
                "south": ("illegal / illegal -15.4999 illegal / illegal -20.3575 illegal / "
                              "illegal -19.5292 illegal / illegal -14.4173 illegal / illegal -7.7350 illegal / "
                              "illegal"),
                "west": ("illegal / illegal -76.4639 illegal / illegal -77.1949 illegal / "
                             "illegal -77.5016 illegal / illegal -77.4875 illegal / illegal -77.0702 illegal / "
                             "illegal"),
            },
        },
        "policy": ("exit / exit north exit / exit north exit / exit north exit / exit south exit / "
                   "exit south exit / exit"),
    },
    "4-discountgrid": {
        "values": {
            0: ("0.0000 0.0000 0.0000 0.0000 0.0000 / 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 / 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000"),
            1: ("-10.0000 0.0000 10.0000 0.0000 0.0000 / -10.0000 0.0000 0.0000 0.0000 / "
                "-10.0000 0.0000 1.0000 0.0000 0.0000 / -10.0000 0.0000 0.0000 / "
                "-10.0000 0.0000 0.0000 0.0000 0.0000"),
            2: ("-10.0000 7.2000 10.0000 7.2000 0.0000 / -10.0000 0.0000 0.0000 0.0000 / "
                "-10.0000 0.7200 1.0000 0.7200 0.0000 / -10.0000 0.0000 0.0000 / "
                "-10.0000 0.0000 0.0000 0.0000 0.0000"),
            3: ("-10.0000 7.8480 10.0000 7.8480 5.1840 / -10.0000 4.2840 5.1840 0.0000 / "
                "-10.0000 0.7200 1.0000 0.7848 0.5184 / -10.0000 0.0648 0.0000 / "
                "-10.0000 0.0000 0.0000 0.0000 0.0000"),
            4: ("-10.0000 8.2919 10.0000 8.3729 6.1171 / -10.0000 5.1361 6.1171 4.2457 / "
                "-10.0000 2.2745 1.0000 3.8691 0.5651 / -10.0000 0.1115 0.3732 / "
                "-10.0000 0.0058 0.0000 0.0000 0.0000"),
            5: ("-10.0000 8.4085 10.0000 8.5041 6.9611 / -10.0000 5.5324 6.9611 5.3370 / "
                "-10.0000 2.8880 1.0000 4.5452 3.4560 / -10.0000 0.7477 0.4740 / "
                "-10.0000 0.0106 0.0042 0.0000 0.2687"),
            6: ("-10.0000 8.4547 10.0000 8.5919 7.2298 / -10.0000 5.6521 7.2298 6.1188 / "
                "-10.0000 3.1733 1.0000 5.4130 4.5627 / -10.0000 1.2467 2.5736 / "
                "-10.0000 0.0713 0.0084 0.1935 0.3655"),
            7: ("-10.0000 8.4696 10.0000 8.6239 7.3875 / -10.0000 5.6961 7.3875 6.4068 / "
                "-10.0000 3.2595 1.0000 5.7061 5.3034 / -10.0000 1.4970 3.7484 / "
                "-10.0000 0.1246 0.1408 0.2980 1.9033"),
            8: ("-10.0000 8.4749 10.0000 8.6410 7.4507 / -10.0000 5.7108 7.4507 6.5605 / "
                "-10.0000 3.2912 1.0000 5.8863 5.6038 / -10.0000 1.5816 4.4932 / "
                "-10.0000 0.2473 0.2399 1.4240 2.8970"),
            9: ("-10.0000 8.4767 10.0000 8.6483 7.4826 / -10.0000 5.7159 7.4826 6.6255 / "
                "-10.0000 3.3017 1.0000 5.9589 5.7577 / -10.0000 1.6120 4.8435 / "
                "-10.0000 0.3373 1.0685 2.3421 3.6240"),
            100: ("-10.0000 8.4777 10.0000 8.6547 7.5087 / -10.0000 5.7186 7.5087 6.6836 / "
                "-10.0000 3.3074 1.0000 6.0258 5.8841 / -10.0000 2.0045 5.1665 / "
                "-10.0000 2.9289 3.4513 3.9306 4.4765"),
        },
        "q": {  # Q of every action from V_k, at every k
            0: {
                "north": ("illegal 0.0000 illegal 0.0000 0.0000 / illegal 0.0000 0.0000 0.0000 / "
                              "illegal 0.0000 illegal 0.0000 0.0000 / illegal 0.0000 0.0000 / "
                              "illegal 0.0000 0.0000 0.0000 0.0000"),
                "east": ("illegal 0.0000 illegal 0.0000 0.0000 / illegal 0.0000 0.0000 0.0000 / "
                             "illegal 0.0000 illegal 0.0000 0.0000 / illegal 0.0000 0.0000 / "
                             "illegal 0.0000 0.0000 0.0000 0.0000"),
                "exit": ("-10.0000 illegal 10.0000 illegal illegal / -10.0000 illegal illegal illegal / "
                             "-10.0000 illegal 1.0000 illegal illegal / -10.0000 illegal illegal / "
                             "-10.0000 illegal illegal illegal illegal"),
                "south": ("illegal 0.0000 illegal 0.0000 0.0000 / illegal 0.0000 0.0000 0.0000 / "
                              "illegal 0.0000 illegal 0.0000 0.0000 / illegal 0.0000 0.0000 / "
                              "illegal 0.0000 0.0000 0.0000 0.0000"),
                "west": ("illegal 0.0000 illegal 0.0000 0.0000 / illegal 0.0000 0.0000 0.0000 / "
                             "illegal 0.0000 illegal 0.0000 0.0000 / illegal 0.0000 0.0000 / "
                             "illegal 0.0000 0.0000 0.0000 0.0000"),
            },
            1: {
                "north": ("illegal 0.0000 illegal 0.9000 0.0000 / illegal -0.9000 0.0000 0.0000 / "
                              "illegal -0.8100 illegal 0.0900 0.0000 / illegal -0.9000 0.0000 / "
                              "illegal -0.9000 0.0000 0.0000 0.0000"),
                "east": ("illegal 7.2000 illegal 0.0000 0.0000 / illegal 0.0000 0.0000 0.0000 / "
                             "illegal 0.7200 illegal 0.0000 0.0000 / illegal 0.0000 0.0000 / "
                             "illegal 0.0000 0.0000 0.0000 0.0000"),
                "exit": ("-10.0000 illegal 10.0000 illegal illegal / -10.0000 illegal illegal illegal / "
                             "-10.0000 illegal 1.0000 illegal illegal / -10.0000 illegal illegal / "
                             "-10.0000 illegal illegal illegal illegal"),
                "south": ("illegal 0.0000 illegal 0.9000 0.0000 / illegal -0.9000 0.0000 0.0000 / "
                              "illegal -0.8100 illegal 0.0900 0.0000 / illegal -0.9000 0.0000 / "
                              "illegal -0.9000 0.0000 0.0000 0.0000"),
                "west": ("illegal -7.2000 illegal 7.2000 0.0000 / illegal -7.2000 0.0000 0.0000 / "
                             "illegal -7.2000 illegal 0.7200 0.0000 / illegal -7.2000 0.0000 / "
                             "illegal -7.2000 0.0000 0.0000 0.0000"),
            },
            2: {
                "north": ("illegal 5.1840 illegal 6.0840 0.6480 / illegal 4.2840 5.1840 0.0000 / "
                              "illegal -0.8100 illegal 0.0900 0.0648 / illegal -0.3816 0.0000 / "
                              "illegal -0.9000 0.0000 0.0000 0.0000"),
                "east": ("illegal 7.8480 illegal 0.6480 0.0000 / illegal 0.7128 0.7128 0.0000 / "
                             "illegal 0.7200 illegal 0.0648 0.0000 / illegal 0.0648 0.0000 / "
                             "illegal 0.0000 0.0000 0.0000 0.0000"),
                "exit": ("-10.0000 illegal 10.0000 illegal illegal / -10.0000 illegal illegal illegal / "
                             "-10.0000 illegal 1.0000 illegal illegal / -10.0000 illegal illegal / "
                             "-10.0000 illegal illegal illegal illegal"),
                "south": ("illegal 0.0000 illegal 0.9000 0.6480 / illegal -0.3816 0.5184 0.0000 / "
                              "illegal -0.8100 illegal 0.6084 0.0648 / illegal -0.9000 0.0000 / "
                              "illegal -0.9000 0.0000 0.0000 0.0000"),
                "west": ("illegal -6.5520 illegal 7.8480 5.1840 / illegal -6.4872 0.7128 0.0000 / "
                             "illegal -7.2000 illegal 0.7848 0.5184 / illegal -7.1352 0.0000 / "
                             "illegal -7.2000 0.0000 0.0000 0.0000"),
            },
            3: {
                "north": ("illegal 5.6506 illegal 7.0171 4.9054 / illegal 5.1361 6.1171 4.1990 / "
                              "illegal 2.2745 illegal 3.8691 0.1173 / illegal -0.3758 0.3732 / "
                              "illegal -0.8533 0.0000 0.0000 0.0000"),
                "east": ("illegal 8.2919 illegal 4.9054 4.1990 / illegal 3.8556 0.7770 0.5132 / "
                             "illegal 1.1114 illegal 0.9104 0.3732 / illegal 0.1115 0.0467 / "
                             "illegal 0.0058 0.0000 0.0000 0.0000"),
                "exit": ("-10.0000 illegal 10.0000 illegal illegal / -10.0000 illegal illegal illegal / "
                             "-10.0000 illegal 1.0000 illegal illegal / -10.0000 illegal illegal / "
                             "-10.0000 illegal illegal illegal illegal"),
                "south": ("illegal 3.0845 illegal 5.0990 1.1729 / illegal 0.0040 1.0316 0.8398 / "
                              "illegal -0.7633 illegal 0.7017 0.1173 / illegal -0.8942 0.0000 / "
                              "illegal -0.9000 0.0000 0.0000 0.0000"),
                "west": ("illegal -6.1081 illegal 8.3729 6.1171 / illegal -6.4289 4.5094 4.2457 / "
                             "illegal -6.8086 illegal 1.2572 0.5651 / illegal -7.1352 0.0467 / "
                             "illegal -7.1942 0.0000 0.0000 0.0000"),
            },
            4: {
                "north": ("illegal 5.9702 illegal 7.4790 5.7084 / illegal 5.5324 6.9611 5.3370 / "
                              "illegal 2.8880 illegal 4.5452 3.4560 / illegal 0.7477 0.4740 / "
                              "illegal -0.8198 0.0005 0.0000 0.2687"),
                "east": ("illegal 8.4085 illegal 5.7084 5.3370 / illegal 4.6490 4.1587 3.6583 / "
                             "illegal 1.1923 illegal 1.3056 0.8225 / illegal 0.2855 0.3196 / "
                             "illegal 0.0106 0.0000 0.0000 0.0336"),
                "exit": ("-10.0000 illegal 10.0000 illegal illegal / -10.0000 illegal illegal illegal / "
                             "-10.0000 illegal 1.0000 illegal illegal / -10.0000 illegal illegal / "
                             "-10.0000 illegal illegal illegal illegal"),
                "south": ("illegal 3.6980 illegal 5.8549 4.3610 / illegal 1.1999 3.7184 1.3395 / "
                              "illegal -0.7298 illegal 2.9266 0.6678 / illegal -0.8858 0.0672 / "
                              "illegal -0.8958 0.0005 0.0000 0.0000"),
                "west": ("illegal -5.9915 illegal 8.5041 6.9611 / illegal -6.2490 5.5061 5.0057 / "
                             "illegal -6.7277 illegal 1.6188 3.2015 / illegal -6.9948 0.3196 / "
                             "illegal -7.1894 0.0042 0.0000 0.0336"),
            },
            5: {
                "north": ("illegal 6.0541 illegal 7.6495 6.4039 / illegal 5.6521 7.2298 6.1188 / "
                              "illegal 3.1733 illegal 5.4130 4.5627 / illegal 1.2467 2.5736 / "
                              "illegal -0.3613 0.0040 0.0246 0.3655"),
                "east": ("illegal 8.4547 illegal 6.4039 6.1188 / illegal 5.0000 5.0171 4.7802 / "
                             "illegal 1.2852 illegal 3.5239 3.0113 / illegal 0.7992 0.6765 / "
                             "illegal 0.0713 0.0008 0.1935 0.2603"),
                "exit": ("-10.0000 illegal 10.0000 illegal illegal / -10.0000 illegal illegal illegal / "
                             "-10.0000 illegal 1.0000 illegal illegal / -10.0000 illegal illegal / "
                             "-10.0000 illegal illegal illegal illegal"),
                "south": ("illegal 3.9833 illegal 6.5385 5.2345 / illegal 1.6773 4.3794 3.5951 / "
                              "illegal -0.2717 illegal 3.6736 1.0614 / illegal -0.8251 0.2788 / "
                              "illegal -0.8920 0.0040 0.0246 0.2177"),
                "west": ("illegal -5.9453 illegal 8.5919 7.2298 / illegal -6.1833 6.1864 5.9496 / "
                             "illegal -6.6348 illegal 1.7556 3.7955 / illegal -6.9391 0.6765 / "
                             "illegal -7.1318 0.0084 0.0030 0.0668"),
            },
            6: {
                "north": ("illegal 6.0874 illegal 7.7368 6.6294 / illegal 5.6961 7.3875 6.4068 / "
                              "illegal 3.2595 illegal 5.7061 5.3034 / illegal 1.4970 3.7484 / "
                              "illegal -0.0017 0.0298 0.1730 1.9033"),
                "east": ("illegal 8.4696 illegal 6.6294 6.4068 / illegal 5.1160 5.6660 5.4669 / "
                             "illegal 1.3409 illegal 4.4230 4.0675 / illegal 1.1896 2.2966 / "
                             "illegal 0.1246 0.1408 0.2980 0.5277"),
                "exit": ("-10.0000 illegal 10.0000 illegal illegal / -10.0000 illegal illegal illegal / "
                             "-10.0000 illegal 1.0000 illegal illegal / -10.0000 illegal illegal / "
                             "-10.0000 illegal illegal illegal illegal"),
                "south": ("illegal 4.0695 illegal 6.7561 5.8295 / illegal 1.8935 5.0988 4.4865 / "
                              "illegal 0.0876 illegal 4.3980 2.7508 / illegal -0.7365 0.7264 / "
                              "illegal -0.8479 0.0298 0.1730 0.3135"),
                "west": ("illegal -5.9304 illegal 8.6239 7.3875 / illegal -6.1535 6.4659 6.2668 / "
                             "illegal -6.5791 illegal 1.8579 4.6797 / illegal -6.9080 2.2966 / "
                             "illegal -7.0814 0.0528 0.0408 0.4038"),
            },
            7: {
                "north": ("illegal 6.0981 illegal 7.7741 6.7600 / illegal 5.7108 7.4507 6.5605 / "
                              "illegal 3.2912 illegal 5.8863 5.6038 / illegal 1.5816 4.4932 / "
                              "illegal 0.1905 0.1394 0.3985 2.8970"),
                "east": ("illegal 8.4749 illegal 6.7600 6.5605 / illegal 5.1568 5.9026 5.7551 / "
                             "illegal 1.3674 illegal 4.9969 4.7324 / illegal 1.3824 3.3475 / "
                             "illegal 0.2473 0.2399 1.4240 1.8790"),
                "exit": ("-10.0000 illegal 10.0000 illegal illegal / -10.0000 illegal illegal illegal / "
                             "-10.0000 illegal 1.0000 illegal illegal / -10.0000 illegal illegal / "
                             "-10.0000 illegal illegal illegal illegal"),
                "south": ("illegal 4.1012 illegal 6.8839 6.0539 / illegal 1.9595 5.3499 5.0599 / "
                              "illegal 0.2678 illegal 4.6757 3.6897 / illegal -0.6755 2.0451 / "
                              "illegal -0.7976 0.1394 0.3985 1.5685"),
                "west": ("illegal -5.9251 illegal 8.6410 7.4507 / illegal -6.1444 6.6087 6.4612 / "
                             "illegal -6.5526 illegal 1.8984 5.0224 / illegal -6.8954 3.3475 / "
                             "illegal -7.0541 0.1151 0.1550 0.7232"),
            },
            8: {
                "north": ("illegal 6.1019 illegal 7.7921 6.8128 / illegal 5.7159 7.4826 6.6255 / "
                              "illegal 3.3017 illegal 5.9589 5.7577 / illegal 1.6120 4.8435 / "
                              "illegal 0.2603 0.3231 1.3076 3.6240"),
                "east": ("illegal 8.4767 illegal 6.8128 6.6255 / illegal 5.1707 6.0310 5.8985 / "
                             "illegal 1.3763 illegal 5.2350 5.0295 / illegal 1.4572 4.0001 / "
                             "illegal 0.3373 1.0685 2.3421 2.7509"),
                "exit": ("-10.0000 illegal 10.0000 illegal illegal / -10.0000 illegal illegal illegal / "
                             "-10.0000 illegal 1.0000 illegal illegal / -10.0000 illegal illegal / "
                             "-10.0000 illegal illegal illegal illegal"),
                "south": ("illegal 4.1117 illegal 6.9351 6.1718 / illegal 1.9836 5.4992 5.2957 / "
                              "illegal 0.3287 illegal 4.8325 4.2692 / illegal -0.5796 2.8946 / "
                              "illegal -0.7003 0.3231 1.3076 2.4747"),
                "west": ("illegal -5.9233 illegal 8.6483 7.4826 / illegal -6.1411 6.6720 6.5394 / "
                             "illegal -6.5437 illegal 1.9203 5.2330 / illegal -6.8815 4.0001 / "
                             "illegal -7.0354 0.2213 0.4290 1.6904"),
            },
            9: {
                "north": ("illegal 6.1032 illegal 7.8002 6.8392 / illegal 5.7177 7.4965 6.6572 / "
                              "illegal 3.3055 illegal 5.9956 5.8249 / illegal 1.6223 5.0174 / "
                              "illegal 0.3568 1.0105 2.1087 4.0243"),
                "east": ("illegal 8.4773 illegal 6.8392 6.6572 / illegal 5.1755 6.0850 5.9620 / "
                             "illegal 1.3795 illegal 5.3553 5.1777 / illegal 1.4881 4.3316 / "
                             "illegal 0.9447 1.8787 3.0308 3.3713"),
                "exit": ("-10.0000 illegal 10.0000 illegal illegal / -10.0000 illegal illegal illegal / "
                             "-10.0000 illegal 1.0000 illegal illegal / -10.0000 illegal illegal / "
                             "-10.0000 illegal illegal illegal illegal"),
                "south": ("illegal 4.1155 illegal 6.9609 6.2222 / illegal 1.9917 5.5601 5.4153 / "
                              "illegal 0.3506 illegal 4.8986 4.5418 / illegal -0.5121 3.4811 / "
                              "illegal -0.5610 1.0105 2.1087 3.1462"),
                "west": ("illegal -5.9227 illegal 8.6518 7.4965 / illegal -6.1399 6.7021 6.5791 / "
                             "illegal -6.5405 illegal 1.9297 5.3226 / illegal -6.8725 4.3316 / "
                             "illegal -7.0246 0.4352 1.1909 2.4484"),
            },
            100: {
                "north": ("illegal 6.1039 illegal 7.8072 6.8610 / illegal 5.7186 7.5087 6.6836 / "
                              "illegal 3.3074 illegal 6.0258 5.8841 / illegal 1.6617 5.1665 / "
                              "illegal 0.8539 3.1023 3.5435 4.4765"),
                "east": ("illegal 8.4777 illegal 6.8610 6.6836 / illegal 5.1780 6.1334 6.0175 / "
                             "illegal 1.4151 illegal 5.4546 5.3030 / illegal 2.0045 4.6523 / "
                             "illegal 2.9289 3.4513 3.9306 4.0910"),
                "exit": ("-10.0000 illegal 10.0000 illegal illegal / -10.0000 illegal illegal illegal / "
                             "-10.0000 illegal 1.0000 illegal illegal / -10.0000 illegal illegal / "
                             "-10.0000 illegal illegal illegal illegal"),
                "south": ("illegal 4.1174 illegal 6.9820 6.2669 / illegal 1.9960 5.6159 5.5138 / "
                              "illegal 0.6333 illegal 4.9582 4.7918 / illegal 1.3892 4.1531 / "
                              "illegal 1.5194 3.1023 3.5435 3.9797"),
                "west": ("illegal -5.9223 illegal 8.6547 7.5087 / illegal -6.1393 6.7275 6.6116 / "
                             "illegal -6.5049 illegal 1.9381 5.4051 / illegal -6.6387 4.6523 / "
                             "illegal -6.7560 2.7300 3.1924 3.6979"),
            },
        },
        "policy": ("exit east exit west west / exit north north north / exit north exit north north / "
                   "exit east north / exit east east east north"),
    },
}
