"""Every way out of a command leaves nothing behind: the temporary file of a write is removed
on any exit (an error, Ctrl-C, SIGTERM, sys.exit), and the old file is left as it was."""

import pytest

from bnnsample.plumbing.errors import WriteRefused
from bnnsample.rundir import replaced, write_bytes


@pytest.mark.parametrize("exc", [KeyboardInterrupt, SystemExit, RuntimeError, OSError])
def test_a_write_stopped_in_the_middle_leaves_no_temporary_file(tmp_path, exc):
    target = tmp_path / "toy.csv"
    target.write_text("old\n")
    with pytest.raises(WriteRefused if exc is OSError else exc), replaced(target) as tmp:
        tmp.write_text("half of the new")
        raise exc()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["toy.csv"]
    assert target.read_text() == "old\n"


def test_ctrl_c_inside_write_bytes_leaves_no_temporary_file(tmp_path, monkeypatch):
    import os

    def interrupted_fsync(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted_fsync)
    with pytest.raises(KeyboardInterrupt):
        write_bytes(tmp_path / "toy.csv", b"new\n")
    assert list(tmp_path.iterdir()) == []


def test_a_finished_write_replaces_the_file(tmp_path):
    target = tmp_path / "toy.csv"
    target.write_text("old\n")
    write_bytes(target, b"new\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["toy.csv"]
    assert target.read_text() == "new\n"


def test_ctrl_c_while_the_command_line_loads_is_one_line_and_exit_130(tmp_path):
    """The console entry point catches an interrupt that arrives while bnnsample.cli is being
    imported (the first second of every command): SIGINT is sent from inside that import."""
    import os
    import subprocess
    import sys

    import bnnsample

    probe = (
        "import os, signal, sys\n"
        "class Interrupt:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'bnnsample.cli':\n"
        "            os.kill(os.getpid(), signal.SIGINT)\n"
        "sys.meta_path.insert(0, Interrupt())\n"
        "sys.argv = ['bnnsample', 'info']\n"
        "from bnnsample.console import main\n"
        "main()\n"
        "print('NOT INTERRUPTED')\n"
    )
    here = os.path.dirname(os.path.dirname(bnnsample.__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")])))
    got = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert got.returncode == 130, got.stderr
    assert got.stderr == "bnnsample: error: interrupted\n"
    assert "NOT INTERRUPTED" not in got.stdout
