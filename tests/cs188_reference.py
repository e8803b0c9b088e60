"""Numbers of Berkeley CS188's reinforcement project autograder, questions 4 and 5, kept ONLY as the
reference of tests/test_course_algorithms.py.

Source: the UC Berkeley CS188 "reinforcement" project (http://ai.berkeley.edu; "The Pacman AI projects
were developed at UC Berkeley. The core projects and autograders were primarily created by John DeNero
and Dan Klein. Student side autograding was added by Brad Miller, Nick Hay, and Pieter Abbeel"), files
``test_cases/q4/{1-tinygrid,2-tinygrid-noisy,3-bridge,4-discountgrid}.test`` / ``.solution``
(class ``AsynchronousValueIterationTest``) and the same names under ``test_cases/q5/`` (class
``PrioritizedSweepingValueIterationTest``), as published in the project's public copies (e.g. the
GitHub repository sebsadface/ai, ``reinforcement/test_cases``). The grader
(``reinforcementTestClasses.py``) builds ``gridworld.Gridworld`` from ``grid`` with ``noise`` and
``livingReward``, runs the agent with ``iterations`` = k for k = 0..9 and k = ``valueIterations``,
and compares V, Q of every action (from V_k) and, at the last k, the policy, cell by cell with an
absolute tolerance of 0.01 (``comparePrettyValues``).

Copied here: each case's grid and settings, V at every k checked, Q of every action and the policy at
the last k. A string lists the printed numbers of the board's non-wall cells row by row, top row
first (``/`` between rows), as the ``.solution`` files print them; "illegal" where the action is not
available (the grader's ``None``).
"""
from __future__ import annotations

TOLERANCE = 0.01
"""The grader's absolute tolerance (``comparePrettyValues(..., tolerance=0.01)``)."""

GRIDS: dict[str, dict] = {
    "1-tinygrid": {"grid": "10 S -10", "discount": 0.5, "noise": 0.0, "livingReward": 0.0, "valueIterations": 1000},
    "2-tinygrid-noisy": {"grid": "10 S -10", "discount": 0.75, "noise": 0.25, "livingReward": 0.0,
                         "valueIterations": 1000},
    "3-bridge": {"grid": """
    # -100 -100 -100 -100 -100    #
    1    S    _    _    _    _   10
    # -100 -100 -100 -100 -100    #
""", "discount": 0.85, "noise": 0.1, "livingReward": 0.0, "valueIterations": 1000},
    "4-discountgrid": {"grid": """
    _    _    _    _    _
    _    #    _    _    _
    _    #    1    #   10
    S    _    _    _    _
  -10  -10  -10  -10  -10
""", "discount": 0.9, "noise": 0.2, "livingReward": 0.0, "valueIterations": 1000},
}
"""Each case's ``grid`` and settings (the same in q4 and q5)."""

Q4: dict[str, dict] = {  # test_cases/q4: AsynchronousValueIterationAgent
    "1-tinygrid": {
        "values": {
            0: "0.0000 0.0000 0.0000",
            1: "0.0000 0.0000 0.0000",
            2: "10.0000 0.0000 0.0000",
            3: "10.0000 5.0000 0.0000",
            4: "10.0000 5.0000 -10.0000",
            5: "10.0000 5.0000 -10.0000",
            6: "10.0000 5.0000 -10.0000",
            7: "10.0000 5.0000 -10.0000",
            8: "10.0000 5.0000 -10.0000",
            9: "10.0000 5.0000 -10.0000",
            1000: "10.0000 5.0000 -10.0000",
        },
        "q": {  # at k = 1000
            "north": "illegal 2.5000 illegal",
            "east": "illegal -5.0000 illegal",
            "south": "illegal 2.5000 illegal",
            "west": "illegal 5.0000 illegal",
            "exit": "10.0000 illegal -10.0000",
        },
        "policy": "exit west exit",
    },
    "2-tinygrid-noisy": {
        "values": {
            0: "0.0000 0.0000 0.0000",
            1: "0.0000 0.0000 0.0000",
            2: "10.0000 0.0000 0.0000",
            3: "10.0000 5.6250 0.0000",
            4: "10.0000 5.6250 -10.0000",
            5: "10.0000 5.6250 -10.0000",
            6: "10.0000 5.6250 -10.0000",
            7: "10.0000 6.6797 -10.0000",
            8: "10.0000 6.6797 -10.0000",
            9: "10.0000 6.6797 -10.0000",
            1000: "10.0000 6.9231 -10.0000",
        },
        "q": {  # at k = 1000
            "north": "illegal 3.8942 illegal",
            "east": "illegal -4.3269 illegal",
            "south": "illegal 3.8942 illegal",
            "west": "illegal 6.9231 illegal",
            "exit": "10.0000 illegal -10.0000",
        },
        "policy": "exit west exit",
    },
    "3-bridge": {
        "values": {
            0: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000"),
            1: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000"),
            2: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "1.0000 0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000"),
            3: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "1.0000 0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-100.0000 0.0000 0.0000 0.0000 0.0000"),
            4: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "1.0000 0.0425 0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-100.0000 0.0000 0.0000 0.0000 0.0000"),
            5: ("-100.0000 0.0000 0.0000 0.0000 0.0000 / "
                "1.0000 0.0425 0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-100.0000 0.0000 0.0000 0.0000 0.0000"),
            6: ("-100.0000 0.0000 0.0000 0.0000 0.0000 / "
                "1.0000 0.0425 0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-100.0000 -100.0000 0.0000 0.0000 0.0000"),
            7: ("-100.0000 0.0000 0.0000 0.0000 0.0000 / "
                "1.0000 0.0425 0.0018 0.0000 0.0000 0.0000 0.0000 / "
                "-100.0000 -100.0000 0.0000 0.0000 0.0000"),
            8: ("-100.0000 -100.0000 0.0000 0.0000 0.0000 / "
                "1.0000 0.0425 0.0018 0.0000 0.0000 0.0000 0.0000 / "
                "-100.0000 -100.0000 0.0000 0.0000 0.0000"),
            9: ("-100.0000 -100.0000 0.0000 0.0000 0.0000 / "
                "1.0000 0.0425 0.0018 0.0000 0.0000 0.0000 0.0000 / "
                "-100.0000 -100.0000 -100.0000 0.0000 0.0000"),
            1000: ("-100.0000 -100.0000 -100.0000 -100.0000 -100.0000 / "
                   "1.0000 -7.7350 -14.4173 -15.4999 -9.1502 -0.8500 10.0000 / "
                   "-100.0000 -100.0000 -100.0000 -100.0000 -100.0000"),
        },
        "q": {  # at k = 1000
            "north": ("illegal illegal illegal illegal illegal / "
                      "illegal -77.0702 -77.4875 -77.5016 -77.1949 -76.4639 illegal / "
                      "illegal illegal illegal illegal illegal"),
            "east": ("illegal illegal illegal illegal illegal / "
                     "illegal -19.5292 -20.3575 -15.4999 -9.1502 -0.8500 illegal / "
                     "illegal illegal illegal illegal illegal"),
            "south": ("illegal illegal illegal illegal illegal / "
                      "illegal -77.0702 -77.4875 -77.5016 -77.1949 -76.4639 illegal / "
                      "illegal illegal illegal illegal illegal"),
            "west": ("illegal illegal illegal illegal illegal / "
                     "illegal -7.7350 -14.4173 -19.5292 -20.3575 -15.4999 illegal / "
                     "illegal illegal illegal illegal illegal"),
            "exit": ("-100.0000 -100.0000 -100.0000 -100.0000 -100.0000 / "
                     "1.0000 illegal illegal illegal illegal illegal 10.0000 / "
                     "-100.0000 -100.0000 -100.0000 -100.0000 -100.0000"),
        },
        "policy": ("exit exit exit exit exit / "
                   "exit west west east east east exit / "
                   "exit exit exit exit exit"),
    },
    "4-discountgrid": {
        "values": {
            0: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000"),
            1: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000"),
            2: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-10.0000 0.0000 0.0000 0.0000 0.0000"),
            3: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-10.0000 0.0000 0.0000 0.0000 0.0000"),
            4: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-10.0000 0.0000 0.0000 0.0000 0.0000"),
            5: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-10.0000 0.0000 0.0000 0.0000 0.0000"),
            6: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-10.0000 0.0000 0.0000 0.0000 0.0000"),
            7: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-10.0000 -10.0000 0.0000 0.0000 0.0000"),
            8: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-10.0000 -10.0000 0.0000 0.0000 0.0000"),
            9: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-10.0000 -10.0000 0.0000 0.0000 0.0000"),
            1000: ("4.4765 5.1665 5.8841 6.6836 7.5087 / "
                   "3.9306 6.0258 7.5087 8.6547 / "
                   "3.4513 1.0000 10.0000 / "
                   "2.9289 2.0045 3.3074 5.7186 8.4777 / "
                   "-10.0000 -10.0000 -10.0000 -10.0000 -10.0000"),
        },
        "q": {  # at k = 1000
            "north": ("4.0910 4.6523 5.3030 6.0175 6.6836 / "
                      "3.9306 5.4546 6.1334 6.8610 / "
                      "3.4513 illegal illegal / "
                      "2.9289 2.0045 1.4151 5.1780 8.4777 / "
                      "illegal illegal illegal illegal illegal"),
            "east": ("4.4765 5.1665 5.8841 6.6836 6.8610 / "
                     "3.5435 6.0258 7.5087 7.8072 / "
                     "3.1023 illegal illegal / "
                     "0.8539 1.6617 3.3074 5.7186 6.1039 / "
                     "illegal illegal illegal illegal illegal"),
            "south": ("3.6979 4.6523 5.4051 6.6116 7.5087 / "
                      "3.1924 1.9381 6.7275 8.6547 / "
                      "2.7300 illegal illegal / "
                      "-6.7560 -6.6387 -6.5049 -6.1393 -5.9223 / "
                      "illegal illegal illegal illegal illegal"),
            "west": ("3.9797 4.1531 4.7918 5.5138 6.2669 / "
                     "3.5435 4.9582 5.6159 6.9820 / "
                     "3.1023 illegal illegal / "
                     "1.5194 1.3892 0.6333 1.9960 4.1174 / "
                     "illegal illegal illegal illegal illegal"),
            "exit": ("illegal illegal illegal illegal illegal / "
                     "illegal illegal illegal illegal / "
                     "illegal 1.0000 10.0000 / "
                     "illegal illegal illegal illegal illegal / "
                     "-10.0000 -10.0000 -10.0000 -10.0000 -10.0000"),
        },
        "policy": ("east east east east south / "
                   "north east east south / "
                   "north exit exit / "
                   "north north east east north / "
                   "exit exit exit exit exit"),
    },
}

Q5: dict[str, dict] = {  # test_cases/q5: PrioritizedSweepingValueIterationAgent
    "1-tinygrid": {
        "values": {
            0: "0.0000 0.0000 0.0000",
            1: "10.0000 0.0000 0.0000",
            2: "10.0000 0.0000 -10.0000",
            3: "10.0000 5.0000 -10.0000",
            4: "10.0000 5.0000 -10.0000",
            5: "10.0000 5.0000 -10.0000",
            6: "10.0000 5.0000 -10.0000",
            7: "10.0000 5.0000 -10.0000",
            8: "10.0000 5.0000 -10.0000",
            9: "10.0000 5.0000 -10.0000",
            1000: "10.0000 5.0000 -10.0000",
        },
        "q": {  # at k = 1000
            "north": "illegal 2.5000 illegal",
            "east": "illegal -5.0000 illegal",
            "south": "illegal 2.5000 illegal",
            "west": "illegal 5.0000 illegal",
            "exit": "10.0000 illegal -10.0000",
        },
        "policy": "exit west exit",
    },
    "2-tinygrid-noisy": {
        "values": {
            0: "0.0000 0.0000 0.0000",
            1: "10.0000 0.0000 0.0000",
            2: "10.0000 0.0000 -10.0000",
            3: "10.0000 5.6250 -10.0000",
            4: "10.0000 6.6797 -10.0000",
            5: "10.0000 6.8774 -10.0000",
            6: "10.0000 6.9145 -10.0000",
            7: "10.0000 6.9215 -10.0000",
            8: "10.0000 6.9228 -10.0000",
            9: "10.0000 6.9230 -10.0000",
            1000: "10.0000 6.9231 -10.0000",
        },
        "q": {  # at k = 1000
            "north": "illegal 3.8942 illegal",
            "east": "illegal -4.3269 illegal",
            "south": "illegal 3.8942 illegal",
            "west": "illegal 6.9231 illegal",
            "exit": "10.0000 illegal -10.0000",
        },
        "policy": "exit west exit",
    },
    "3-bridge": {
        "values": {
            0: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000"),
            1: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-100.0000 0.0000 0.0000 0.0000 0.0000"),
            2: ("-100.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-100.0000 0.0000 0.0000 0.0000 0.0000"),
            3: ("-100.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-100.0000 -100.0000 0.0000 0.0000 0.0000"),
            4: ("-100.0000 -100.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-100.0000 -100.0000 0.0000 0.0000 0.0000"),
            5: ("-100.0000 -100.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-100.0000 -100.0000 -100.0000 0.0000 0.0000"),
            6: ("-100.0000 -100.0000 -100.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-100.0000 -100.0000 -100.0000 0.0000 0.0000"),
            7: ("-100.0000 -100.0000 -100.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-100.0000 -100.0000 -100.0000 -100.0000 0.0000"),
            8: ("-100.0000 -100.0000 -100.0000 -100.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-100.0000 -100.0000 -100.0000 -100.0000 0.0000"),
            9: ("-100.0000 -100.0000 -100.0000 -100.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-100.0000 -100.0000 -100.0000 -100.0000 -100.0000"),
            1000: ("-100.0000 -100.0000 -100.0000 -100.0000 -100.0000 / "
                   "1.0000 -7.7350 -14.4173 -15.4999 -9.1502 -0.8500 10.0000 / "
                   "-100.0000 -100.0000 -100.0000 -100.0000 -100.0000"),
        },
        "q": {  # at k = 1000
            "north": ("illegal illegal illegal illegal illegal / "
                      "illegal -77.0702 -77.4875 -77.5016 -77.1949 -76.4639 illegal / "
                      "illegal illegal illegal illegal illegal"),
            "east": ("illegal illegal illegal illegal illegal / "
                     "illegal -19.5292 -20.3575 -15.4999 -9.1502 -0.8500 illegal / "
                     "illegal illegal illegal illegal illegal"),
            "south": ("illegal illegal illegal illegal illegal / "
                      "illegal -77.0702 -77.4875 -77.5016 -77.1949 -76.4639 illegal / "
                      "illegal illegal illegal illegal illegal"),
            "west": ("illegal illegal illegal illegal illegal / "
                     "illegal -7.7350 -14.4173 -19.5292 -20.3575 -15.4999 illegal / "
                     "illegal illegal illegal illegal illegal"),
            "exit": ("-100.0000 -100.0000 -100.0000 -100.0000 -100.0000 / "
                     "1.0000 illegal illegal illegal illegal illegal 10.0000 / "
                     "-100.0000 -100.0000 -100.0000 -100.0000 -100.0000"),
        },
        "policy": ("exit exit exit exit exit / "
                   "exit west west east east east exit / "
                   "exit exit exit exit exit"),
    },
    "4-discountgrid": {
        "values": {
            0: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000"),
            1: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-10.0000 0.0000 0.0000 0.0000 0.0000"),
            2: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-10.0000 -10.0000 0.0000 0.0000 0.0000"),
            3: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-10.0000 -10.0000 -10.0000 0.0000 0.0000"),
            4: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-10.0000 -10.0000 -10.0000 -10.0000 0.0000"),
            5: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-10.0000 -10.0000 -10.0000 -10.0000 -10.0000"),
            6: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 10.0000 / "
                "0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "-10.0000 -10.0000 -10.0000 -10.0000 -10.0000"),
            7: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 10.0000 / "
                "0.0000 0.0000 0.0000 0.0000 7.2000 / "
                "-10.0000 -10.0000 -10.0000 -10.0000 -10.0000"),
            8: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 0.0000 7.2000 / "
                "0.0000 0.0000 10.0000 / "
                "0.0000 0.0000 0.0000 0.0000 7.2000 / "
                "-10.0000 -10.0000 -10.0000 -10.0000 -10.0000"),
            9: ("0.0000 0.0000 0.0000 0.0000 0.0000 / "
                "0.0000 0.0000 5.1840 7.2000 / "
                "0.0000 0.0000 10.0000 / "
                "0.0000 0.0000 0.0000 0.0000 7.2000 / "
                "-10.0000 -10.0000 -10.0000 -10.0000 -10.0000"),
            1000: ("4.4765 5.1665 5.8840 6.6836 7.5087 / "
                   "3.9306 6.0258 7.5087 8.6547 / "
                   "3.4512 1.0000 10.0000 / "
                   "2.9289 2.0045 3.3074 5.7186 8.4777 / "
                   "-10.0000 -10.0000 -10.0000 -10.0000 -10.0000"),
        },
        "q": {  # at k = 1000
            "north": ("4.0909 4.6523 5.3030 6.0175 6.6836 / "
                      "3.9306 5.4546 6.1334 6.8610 / "
                      "3.4512 illegal illegal / "
                      "2.9289 2.0045 1.4151 5.1780 8.4777 / "
                      "illegal illegal illegal illegal illegal"),
            "east": ("4.4765 5.1665 5.8840 6.6836 6.8610 / "
                     "3.5435 6.0258 7.5087 7.8072 / "
                     "3.1022 illegal illegal / "
                     "0.8538 1.6617 3.3074 5.7186 6.1039 / "
                     "illegal illegal illegal illegal illegal"),
            "south": ("3.6979 4.6523 5.4051 6.6116 7.5087 / "
                      "3.1924 1.9381 6.7275 8.6547 / "
                      "2.7300 illegal illegal / "
                      "-6.7560 -6.6387 -6.5049 -6.1393 -5.9223 / "
                      "illegal illegal illegal illegal illegal"),
            "west": ("3.9797 4.1530 4.7917 5.5138 6.2669 / "
                     "3.5435 4.9581 5.6159 6.9820 / "
                     "3.1022 illegal illegal / "
                     "1.5194 1.3892 0.6332 1.9960 4.1174 / "
                     "illegal illegal illegal illegal illegal"),
            "exit": ("illegal illegal illegal illegal illegal / "
                     "illegal illegal illegal illegal / "
                     "illegal 1.0000 10.0000 / "
                     "illegal illegal illegal illegal illegal / "
                     "-10.0000 -10.0000 -10.0000 -10.0000 -10.0000"),
        },
        "policy": ("east east east east south / "
                   "north east east south / "
                   "north exit exit / "
                   "north north east east north / "
                   "exit exit exit exit exit"),
    },
}

# --------------------------------------------------------------------------- questions 2 and 3 (GridPolicyTest)
GRID_POLICY_ITERATIONS = 100
"""``computePolicy`` builds ``ValueIterationAgent(grid, discount=discount)``: its default 100 iterations,
the policy from V_100 (``computeActionFromValues``, the strict float maximum)."""

Q2: dict = {  # test_cases/q2/1-bridge-grid.test (parameterFn question2, question2: true)
    "grid": """
   # -100 -100 -100 -100 -100    #
   1    S    _    _    _    _    10
   # -100 -100 -100 -100 -100    #
""",
    "policy": """
   _    _    _    _    _    _    _
   _    E    _    _    _    _    _
   _    _    _    _    _    _    _
""",
    "default": (0.9, 0.2),  # the grader: "Must change either the discount or the noise, not both"
    "answer": (0.9, 0.0),  # sebsadface/ai reinforcement/analysis.py question2(): (answerDiscount, answerNoise)
}
"""CS188 q2 ("Bridge Crossing Analysis"): a (discount, noise) that makes the agent cross the bridge; the
grader checks the start cell's action (E) and that only one of the defaults (0.9, 0.2) changed."""

DISCOUNT_GRID = """
   _    _    _    _    _
   _    #    _    _    _
   _    #    1    #   10
   S    _    _    _    _
 -10  -10  -10  -10  -10
"""
"""``gridName: "discountGrid"`` of every q3 case."""

Q3: dict[str, dict] = {  # test_cases/q3/<case>.test; answers: sebsadface/ai reinforcement/analysis.py
    "1-question-3.1": {  # question3a: prefer the close exit (+1), risking the cliff (-10)
        "policy": "_ _ _ _ _ / _ _ _ _ _ / _ _ _ _ _ / E E N _ _ / _ _ _ _ _",
        "answer": (0.9, 0.2, -2.0),  # (discount, noise, living reward)
    },
    "2-question-3.2": {  # question3b: prefer the close exit (+1), avoiding the cliff
        "policy": "E E S _ _ / N _ S _ _ / N _ _ _ _ / N _ _ _ _ / _ _ _ _ _",
        "answer": (0.3, 0.15, 0.0),
    },
    "3-question-3.3": {  # question3c: prefer the distant exit (+10), risking the cliff
        "policy": "_ _ _ _ _ / _ _ _ _ _ / _ _ _ _ _ / E E E E N / _ _ _ _ _",
        "answer": (0.9, 0.1, -2.0),
    },
    "4-question-3.4": {  # question3d: prefer the distant exit (+10), avoiding the cliff
        "policy": "_ _ _ _ _ / _ _ _ _ _ / _ _ _ _ _ / N _ _ _ _ / _ _ _ _ _",
        "pathVisits": "(4,2)",
        "answer": (1.0, 0.4, 0.0),
    },
    "5-question-3.5": {  # question3e: avoid both exits and the cliff (an episode that never ends)
        "policy": "_ _ _ _ _ / _ _ _ _ _ / _ _ _ _ _ / _ _ _ _ _ / _ _ _ _ _",
        "pathNotVisits": "TERMINAL_STATE",
        "answer": (0.1, 0.0, 10.0),
    },
}
"""CS188 q3 ("Policies"), class ``GridPolicyTest``: the policy grid of each ``.test`` (N/E/S/W must be
that action, ``_`` not checked; rows top first) and ``pathVisits`` / ``pathNotVisits`` of the
noise-free path from the start (``followPath``: (x, y) with (0, 0) bottom left, at most 100 steps). The
course publishes no answers; the parameters are those of a public solution, sebsadface/ai's
``analysis.py`` (question3a..question3e)."""
