"""A figure run never dirties the checkout: its measured cost goes beside its results (git-ignored),
and a rerun that reproduces the committed numbers leaves every committed file byte-identical,
although its timing (the section's wall and CPU time, a CSV's seconds column) differs."""

import shutil
import subprocess
import time
from pathlib import Path

import pytest

from bnnsample import figures, papers
from bnnsample.cli import main
from bnnsample.figures.claims import Claim, by_z
from bnnsample.figures.driver import Figure, register_figure

ROOT = Path(__file__).resolve().parents[2]
CLAIM = Claim("the mean is zero", "§1", "0", tolerance="within 2 s.e.", method="mean of the cells")


def _rows(inv, bar, runs: list):
    runs.append(inv)
    rows = []
    for i in range(inv.st["cells"]):
        t0 = time.perf_counter()
        time.sleep(0.01 * (1 + i % 2) * len(runs))  # a timing that differs between runs
        rows.append({"cell": i, "value": 0.5 * (-1) ** i, "seconds": time.perf_counter() - t0})
        bar.done(f"cell {i}")
    return rows


def _plot(rows, inv, path):
    from bnnsample.plotting import pyplot, save_figure

    fig, ax = pyplot().subplots()
    ax.plot([r["cell"] for r in rows], [r["value"] for r in rows])
    return save_figure(fig, path, "toy")


@pytest.fixture
def toy(monkeypatch):
    runs = []
    monkeypatch.setattr(figures, "FIGURES", type(figures.FIGURES)("figure", message="unknown figure {name!r}"))
    monkeypatch.setattr(papers, "_load", lambda: None)
    outcomes = lambda rows, inv: [(CLAIM, by_z(sum(r["value"] for r in rows) / len(rows), 0.1, "0"))]  # noqa: E731
    register_figure(Figure("toy2024-fig1", ": a toy", "a toy recipe", scales={"quick": {"cells": 3}},
                           rows=lambda inv, bar: _rows(inv, bar, runs),
                           outcomes=outcomes, plot=_plot, settings=lambda rows, inv: "3 cells",
                           cells=lambda inv: 3, csv="toy.csv", png="toy.png"))  # fmt: skip


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def test_a_rerun_at_the_committed_scale_leaves_the_checkout_clean(tmp_path, monkeypatch, capsys, toy):
    """Two runs of a recipe into a git checkout with the project's .gitignore: after the first
    is committed, the second (its timings differ: its seconds column, its section's wall and CPU
    time) leaves `git status` clean, and each run's cost is in results/<id>/cost.csv, ignored;
    the ledger results/costs.csv is not written (only --record-cost writes it)."""
    repo = tmp_path / "checkout"
    repo.mkdir()
    shutil.copy(ROOT / ".gitignore", repo / ".gitignore")
    git(repo, "init", "-q")
    monkeypatch.chdir(repo)
    main(["figure", "toy2024-fig1"])
    results = repo / "results"
    first = {p: p.read_bytes() for p in results.rglob("*") if p.is_file()}
    assert (results / "toy2024-fig1" / "cost.csv") in first and not (results / "costs.csv").exists()
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "results")
    tracked = git(repo, "ls-files").split()
    assert "results/toy2024-fig1/toy.csv" in tracked and "results/REPRODUCTION.md" in tracked
    assert "results/toy2024-fig1/cost.csv" not in tracked

    main(["figure", "toy2024-fig1"])
    assert "reproduced" in capsys.readouterr().out
    assert git(repo, "status", "--porcelain") == ""
    seconds = [line.split(",")[-1] for line in (results / "toy2024-fig1" / "toy.csv").read_text().splitlines()]
    assert seconds[0] == "seconds"  # the kept file is the first run's, timing column and all
    assert (results / "toy2024-fig1" / "toy.csv").read_bytes() == first[results / "toy2024-fig1" / "toy.csv"]


def test_a_rerun_with_other_numbers_replaces_the_files():
    """The check that keeps the committed files compares the values: a value that changed
    replaces the CSV and the section."""
    from bnnsample.figures.common import same_but_timing, untimed

    old = b"cell,value,seconds\n0,0.5,0.01\n1,-0.5,0.02\n"
    assert same_but_timing(old, b"cell,value,seconds\n0,0.5,0.03\n1,-0.5,0.01\n")
    assert not same_but_timing(old, b"cell,value,seconds\n0,0.5,0.01\n1,-0.4,0.02\n")
    assert not same_but_timing(old, b"cell,value,wall\n0,0.5,0.01\n1,-0.5,0.02\n")
    per = b"cell,value,seconds,seconds_per_1e6_steps\n0,0.5,0.01,10\n"
    assert same_but_timing(per, b"cell,value,seconds,seconds_per_1e6_steps\n0,0.5,0.02,20\n")
    timed = ("Command: `bnnsample figure x scale=quick` (wall time {} s, CPU time {} s on one thread; the wall "
             "time includes waiting on a shared machine). Files: `a.csv`.\n\n| claim | ours |\n| m | {} |")  # fmt: skip
    assert untimed(timed.format(3, 2, "0.1")) == untimed(timed.format(40, 31, "0.1"))
    assert untimed(timed.format(3, 2, "0.1")) != untimed(timed.format(3, 2, "0.2"))
