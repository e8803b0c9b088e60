"""Big files (issue 35, item 10): a scenario is read and checked on the job thread, and the readers split
their text a chunk at a time (the same lines and the same first error as splitting it at once)."""
from __future__ import annotations

import json
import random
import threading

import numpy as np
import pytest

from mdpviz.core.cs747 import MDPFileError, format_cs747, parse_cs747
from mdpviz.core.files import iter_lines
from mdpviz.core.modelcheck import format_drn, parse_drn
from tests.conftest import SMALL_MDP, open_scenario_via_menu, wait_model


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64])
def test_lines_a_chunk_at_a_time_are_splitlines(chunk):
    rng = random.Random(chunk)
    ends = ["\n", "\r\n", "\r", "\x0b", "\x85", "\u2028", ""]
    for _ in range(400):
        text = "".join(rng.choice(["ab", "c", " ", "x" * rng.randint(0, 9)]) + rng.choice(ends)
                       for _ in range(rng.randint(0, 30)))
        assert list(iter_lines(text, chunk=chunk)) == text.splitlines()


def _chain(n: int) -> str:
    lines = [f"numStates {n}", "numActions 2", "end -1"]
    for s in range(n):
        lines += [f"transition {s} 0 {(s + 1) % n} 1.5 0.25", f"transition {s} 0 {s} -1 0.75",
                  f"transition {s} 1 {(s * 7) % n} 0 1"]
    return "\n".join(lines + ["mdptype continuing", "discount 0.9"]) + "\n"


def test_the_course_reader_reads_every_transition_into_the_model():
    text = _chain(50)
    mdp = parse_cs747(text)
    again = parse_cs747(format_cs747(mdp))
    for a, b in zip(mdp.to_transitions().values(), again.to_transitions().values()):
        np.testing.assert_array_equal(a, b)
    assert mdp.n_states == 50 and int(mdp.state_ptr[-1]) == 100
    drn = parse_drn(format_drn(mdp)).mdp  # the DRN reader reads the same model back
    np.testing.assert_allclose(np.sort(drn.prob), np.sort(mdp.prob))


@pytest.mark.parametrize("bad, line, words", [
    ("transition 3 0 4 1.5 x", 16, "probability must be a number, got 'x'"),  # (state 4's first line)
    ("transition 3 0 99 1.5 0.25", 16, "next state 99 is out of range"),
    ("transition 3 0 4 inf 0.25", 16, "reward must be finite"),
    ("transition 3 0 4 1 1.5", 16, "probability 1.5 is outside [0, 1]"),
    ("transition 3 0 4 1 " + "9" * 30, 16, "probability"),
    ("transition 3 0 " + "9" * 30 + " 1 0.5", 16, "out of range"),
])
def test_the_first_bad_transition_is_named_with_its_own_message(bad, line, words):
    lines = _chain(50).splitlines()
    assert lines[line - 1].startswith("transition 4 0 ")
    lines[line - 1] = bad
    lines[30] = "transition 9 0 nine 1 1"  # a later bad line: the earlier one is named
    with pytest.raises(MDPFileError) as e:
        parse_cs747("\n".join(lines) + "\n", "m.txt")
    assert f"m.txt:{line}: " in str(e.value) and words in str(e.value)


def test_a_scenario_is_checked_on_the_job_thread(qtbot, window, tmp_path, monkeypatch):
    """File > Open scenario: the settings are read and checked (a course file parsed) off the GUI thread; the
    game then shows them, and a bad one is one message that changes nothing."""
    import mdpviz.window.files as files

    seen: list[threading.Thread] = []
    real = files.read_game_dict

    def record(spec, data, path):
        seen.append(threading.current_thread())
        return real(spec, data, path)

    monkeypatch.setattr(files, "read_game_dict", record)
    doc = window.files.scenario().to_json()
    doc["game"] = "file"
    doc["games"] = {"file": {"path": "small.txt", "text": SMALL_MDP, "discount": 0.5}}
    good = tmp_path / "good.json"
    good.write_text(json.dumps(doc))
    open_scenario_via_menu(window, qtbot, good)
    assert seen and all(t is not threading.main_thread() for t in seen)
    assert not window.dialogs.errors and window.game.key == "file"
    assert wait_model(window, qtbot).discount == 0.5
    doc["games"]["file"]["text"] = SMALL_MDP.replace("transition 0 0 1 1 0.5", "transition 0 0 1 1 0.9")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    open_scenario_via_menu(window, qtbot, bad)
    assert len(window.dialogs.errors) == 1 and "games.file.text" in window.dialogs.errors[0][1]
    assert window.stage.game_by_key("file").session.settings.text == SMALL_MDP
