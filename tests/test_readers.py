"""Every reader reads with a byte budget, whatever the file claims (issue 24, item 14), and refuses what
is not a regular file before opening it (issue 35, item 19): a device file such as /dev/zero
(``st_size`` 0, endless), a FIFO (whose open() waits for a writer for ever) or a file larger than the
budget gives one line and exit 2, with memory bounded by the budget, not by what was typed."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from mdpviz.cli import main
from mdpviz.core import files
from mdpviz.core.cs747 import MDPFileError, read_text_file
from mdpviz.models.gridworld import GridFileError, read_grid

DEV_ZERO = Path("/dev/zero")
needs_dev_zero = pytest.mark.skipif(not DEV_ZERO.exists() or sys.platform == "win32", reason="no /dev/zero here")


def one_line_error(capsys, argv: list[str]) -> str:
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, (code, out, err)
    assert out == "" and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_the_budget_holds_whatever_the_file_claims(tmp_path):
    p = tmp_path / "big.txt"
    p.write_bytes(b"x" * 5000)
    assert files.read_bytes_limited(p, 5000, ValueError) == b"x" * 5000
    with pytest.raises(ValueError, match="larger than the 4,999 bytes this reader accepts for a course file"):
        files.read_bytes_limited(p, 4999, ValueError, what="course file")
    with pytest.raises(ValueError, match="^no such file$"):
        files.read_bytes_limited(tmp_path / "none", 10, ValueError)
    with pytest.raises(ValueError, match="^is a directory, not a grid map$"):
        files.read_bytes_limited(tmp_path, 10, ValueError, what="grid map")


def test_a_text_reader_stops_at_the_first_nul_chunk(tmp_path):
    p = tmp_path / "bin"
    p.write_bytes(b"abc\0" + b"y" * (3 * files.READ_CHUNK))
    got = files.read_bytes_limited(p, 10 * files.READ_CHUNK, ValueError, stop_at_nul=True)
    assert got.startswith(b"abc\0") and len(got) <= files.READ_CHUNK


@needs_dev_zero
def test_dev_zero_is_refused_by_every_reader_without_reading_it_all():
    with pytest.raises(MDPFileError, match="is a character device, not a regular file"):
        read_text_file(DEV_ZERO)
    with pytest.raises(GridFileError, match="character device"):
        read_grid(DEV_ZERO)
    with pytest.raises(ValueError, match="/dev/zero: is a character device"):
        files.read_text_limited(DEV_ZERO, ValueError)
    from mdpviz.core.files import ScenarioError
    from mdpviz.models.kit.game.scenario import load_scenario

    with pytest.raises(ScenarioError, match="/dev/zero: is a character device"):
        load_scenario(DEV_ZERO)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_before_it_is_opened(tmp_path):
    """Opening a FIFO with no writer blocks for ever: the reader looks at what the path is first. (Before
    issue 35 a FIFO was read up to the budget, which still hung when no writer came.)"""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="^is a FIFO \\(named pipe\\), not a regular file"):
        files.read_bytes_limited(fifo, 100_000, ValueError)
    with pytest.raises(ValueError, match="pipe: is a FIFO"):
        files.read_text_limited(fifo, ValueError)


@needs_dev_zero
@pytest.mark.parametrize("argv, says", [
    (["plan", "--mdp", "/dev/zero"], "/dev/zero: is a character device"),
    (["gridworld", "--grid", "/dev/zero"], "/dev/zero: is a character device"),
    (["match", "--x", "/dev/zero"], "/dev/zero: not a regular file"),
])
def test_device_files_on_the_command_line_are_one_line_and_exit_2(capsys, argv, says):
    assert says in one_line_error(capsys, argv)
