"""`bnnsample figure`: writes under ./results of the working directory (or --out), never into
the package, and prints each claim's verdict."""

from pathlib import Path

import pytest

import bnnsample
from bnnsample import figures
from bnnsample.cli import main
from bnnsample.figures.common import update_reproduction

SECTION = """## fake-fig1
| claim | paper | ours | verdict |
|---|---|---|---|
| slope of W2 in h | 2 | 1.98 | reproduced |
| ESS per second | 10 | 3 | not reproduced: ten times fewer steps |
"""


@pytest.fixture
def fake_recipe(monkeypatch):
    def make(out_dir, options):
        d = Path(out_dir) / "fake-fig1"
        d.mkdir(parents=True, exist_ok=True)
        (d / "a.csv").write_text("x\n1\n")
        return [d / "a.csv", update_reproduction(Path(out_dir), "fake-fig1", SECTION)]

    monkeypatch.setitem(figures.FIGURES, "fake-fig1", figures.Recipe("fake-fig1", "a test recipe", make))
    monkeypatch.setattr(figures, "_load", lambda: None)


def test_figure_writes_under_the_working_directory_and_prints_verdicts(tmp_path, monkeypatch, capsys, fake_recipe):
    monkeypatch.chdir(tmp_path)
    main(["figure", "fake-fig1"])
    out = capsys.readouterr().out
    assert (tmp_path / "results" / "fake-fig1" / "a.csv").exists()
    assert (tmp_path / "results" / "REPRODUCTION.md").exists()
    assert str(tmp_path / "results") in out
    assert "fake-fig1: 2 claims" in out
    assert "reproduced" in out and "slope of W2 in h" in out and "not reproduced: ten times" in out


def test_figure_refuses_to_write_into_the_package(tmp_path, monkeypatch, capsys, fake_recipe):
    pkg = Path(bnnsample.__file__).resolve().parent
    with pytest.raises(SystemExit) as e:
        main(["figure", "fake-fig1", "--out", str(pkg / "results")])
    assert e.value.code == 2
    assert "inside the bnnsample package" in capsys.readouterr().err
    assert not (pkg / "results").exists()


def test_figure_answers_a_user_error_in_one_line(tmp_path, monkeypatch, capsys):
    """A recipe that stops on bad input (here a run directory it cannot own) prints one line
    naming the figure, no traceback."""
    from bnnsample.rundir import RunDirBusy

    def make(out_dir, options):
        raise RunDirBusy("/x is in use by PID 1")

    monkeypatch.setitem(figures.FIGURES, "fake-busy", figures.Recipe("fake-busy", "a test recipe", make))
    monkeypatch.setattr(figures, "_load", lambda: None)
    with pytest.raises(SystemExit) as e:
        main(["figure", "fake-busy", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert e.value.code == 2
    assert err.strip().splitlines() == ["bnnsample: error: figure fake-busy: /x is in use by PID 1"]
