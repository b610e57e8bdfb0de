"""The finished-cell cache of the figure recipes: a cell is computed once and read back by the
next invocation with the same arguments (a stopped recipe resumes), a different argument is a
different cell, a damaged file is moved aside and its cell computed again, and a resumed
sekkat2023 recipe writes the same rows as an uninterrupted one."""

from __future__ import annotations

import numpy as np
import pytest

from bnnsample.figures.common import read_sections
from bnnsample.jobs.cells import CellCache
from bnnsample.papers import recipes
from bnnsample.papers.sekkat2023 import chains, fig4, fig13
from bnnsample.papers.sekkat2023 import mixture_runs as mixture
from bnnsample.rundir import read_csv


def test_a_cell_is_computed_once_and_read_back(tmp_path):
    calls = []

    def compute(v):
        calls.append(v)
        return {"l1": np.float64(0.25) * v, "n": np.int64(v), "nan": float("nan"), "seconds": 2.5}

    first = CellCache(tmp_path)
    a = first.row(("row", 1), lambda: compute(1))
    again = CellCache(tmp_path)
    b = again.row(("row", 1), lambda: compute(1))
    other = again.row(("row", 2), lambda: compute(2))
    assert calls == [1, 2]
    assert b["l1"] == a["l1"] == 0.25 and b["n"] == 1 and np.isnan(b["nan"]) and other["n"] == 2
    assert (first.reused, again.reused, again.reused_seconds) == (0, 1, 2.5)
    assert "1 finished cells read back" in again.summary() and first.summary() == ""


def test_arrays_round_trip_without_pickles(tmp_path):
    x = np.arange(12.0).reshape(2, 3, 2)
    run = chains.Run(x, None, np.ones((2, 3)), None, seconds=1.5, steps=30)
    calls = []

    def make():
        calls.append(1)
        return run

    for _ in range(2):
        got = chains.Run.cached(CellCache(tmp_path), ("run", 7), make)
        assert np.array_equal(got.x, x) and got.friction is None and np.array_equal(got.xi, run.xi)
        assert got.predict is None and (got.seconds, got.steps) == (1.5, 30)
    assert calls == [1]


def test_a_damaged_cell_is_moved_aside_and_computed_again(tmp_path, capsys):
    cache = CellCache(tmp_path)
    cache.row("k", lambda: {"v": 1})
    (path,) = tmp_path.glob("*.json")
    path.write_text('{"v": ')
    calls = []
    out = CellCache(tmp_path).row("k", lambda: calls.append(1) or {"v": 2})
    assert out == {"v": 2} and calls == [1]
    assert len(list(tmp_path.glob("*.json.damaged-*"))) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "did not read back" in err and path.name in err


TINY_FIG4 = {"h": (3e-4,), "n": (5, 50), "chains": 16, "burn": 0.01, "time": 0.02, "cells": 60,
             "langevin": ((15, 3e-4),), "langevin_burn": 0.01, "langevin_time": 0.02, "iid_h": (3e-4,)}  # fmt: skip


def test_a_resumed_recipe_writes_the_rows_of_an_uninterrupted_one(tmp_path, monkeypatch):
    """sekkat2023-fig4 stopped after two cells (the third raises), then run again: the two
    finished cells are read back, the rest computed, and the CSV equals a fresh run's in another
    folder; the section says how many cells were read back."""
    monkeypatch.setitem(fig4.FIG4, "quick", TINY_FIG4)
    fresh = recipes()["sekkat2023-fig4"]
    fresh.make(tmp_path / "fresh", {})
    real, n = mixture.run_chains, {"calls": 0}

    def stops_at_the_third(*a, **k):
        n["calls"] += 1
        if n["calls"] == 3:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(mixture, "run_chains", stops_at_the_third)
    with pytest.raises(KeyboardInterrupt):
        fresh.make(tmp_path / "resumed", {})
    assert len(list((tmp_path / "resumed" / "sekkat2023-fig4" / "runs" / "cells").glob("*.json"))) == 2
    monkeypatch.setattr(mixture, "run_chains", real)
    fresh.make(tmp_path / "resumed", {})
    drop = ("seconds",)
    a, b = (read_csv(tmp_path / d / "sekkat2023-fig4" / "fig4.csv") for d in ("fresh", "resumed"))
    assert [{k: v for k, v in r.items() if k not in drop} for r in a] == [
        {k: v for k, v in r.items() if k not in drop} for r in b]  # fmt: skip
    section = read_sections((tmp_path / "resumed" / "REPRODUCTION.md").read_text())["sekkat2023-fig4"]
    assert "2 finished cells read back from `runs/cells/`" in section
    assert "read back" not in read_sections((tmp_path / "fresh" / "REPRODUCTION.md").read_text())["sekkat2023-fig4"]


def test_fig13_reads_back_its_runs(tmp_path, monkeypatch):
    st = {"h": (1e-2,), "n": (10,), "chains": 4, "burn": 20, "steps": 400, "bins": 20}
    first = fig13.fig13_rows(st, cache=CellCache(tmp_path))
    monkeypatch.setattr(fig13, "run_chains", lambda *a, **k: (_ for _ in ()).throw(AssertionError("recomputed")))
    again = CellCache(tmp_path)
    second = fig13.fig13_rows(st, cache=again)
    assert again.reused == 4
    assert [{k: v for k, v in r.items()} for r in first] == second
    # the kept runs hold N_theta(x*), the friction and xi, not the positions (3.3 MB a run at paper size)
    files = sorted(tmp_path.glob("*.npz"))
    assert len(files) == 4 and all("x" not in np.load(f).files and "predict" in np.load(f).files for f in files)


def test_fig13_cells_made_by_two_worker_processes_equal_one_process(tmp_path):
    """jobs=2: the cells not kept yet are made by two spawned workers, then read back; the rows are
    those of one process, and the section's clause says how they were made."""
    st = {"h": (1e-2,), "n": (10,), "chains": 4, "burn": 20, "steps": 400, "bins": 20}
    one = fig13.fig13_rows(st, cache=CellCache(tmp_path / "one"))
    two_cache = CellCache(tmp_path / "two")
    two = fig13.fig13_rows(st, cache=two_cache, jobs=2)
    assert two_cache.filled == 4 and two_cache.reused == 4 and two_cache.jobs == 2
    strip = [{k: v for k, v in r.items() if k != "seconds"} for r in one]
    assert strip == [{k: v for k, v in r.items() if k != "seconds"} for r in two]
    assert "4 cells computed by 2 worker processes in " in two_cache.summary() and "earlier" not in two_cache.summary()


@pytest.mark.parametrize("value", ["0", "x", "100000"])
def test_jobs_outside_the_machines_cores_is_named(value, tmp_path):
    from bnnsample.figures.driver import JOBS, Invocation

    with pytest.raises(ValueError, match=r"jobs=.*allowed values: an integer in 1\.\."):
        Invocation("t", tmp_path, {"jobs": value}, {"quick": {}}, (JOBS,))


def test_an_invocation_that_reads_cells_back_records_what_they_took(tmp_path):
    """The cost an invocation that read finished cells of an earlier one back asks the ledger to
    keep is what all its cells took (their own seconds plus this process's CPU; wall time blank),
    not the seconds of the read-back; the command line writes it (one writer of the ledger)."""
    from bnnsample.figures.costs import record_cost
    from bnnsample.figures.driver import Invocation

    def invocation():
        return Invocation("t-fig", tmp_path, {"scale": "quick"}, {"quick": {}})

    inv = invocation()
    inv.cache.row(("cell", 1), lambda: {"seconds": 5000.0})  # computed: the command's own measure holds
    inv.finish("## t-fig\n", [])
    assert inv.cost is None and not (tmp_path / "costs.csv").exists()
    inv = invocation()
    inv.cache.row(("cell", 1), lambda: pytest.fail("computed again"))
    inv.finish("## t-fig\n", [])
    assert not (tmp_path / "costs.csv").exists()
    options, wall, cpu = inv.cost
    assert options == {"scale": "quick"} and wall is None and 5000 <= cpu < 5100
    record_cost(tmp_path / "costs.csv", "t-fig", *inv.cost)
    row = read_csv(tmp_path / "costs.csv")[0]
    assert (row["figure"], row["scale"], row["wall_s"]) == ("t-fig", "quick", "")
    assert 5000 <= float(row["cpu_s"]) < 5100


def test_runs_read_back_are_counted_in_the_command_line_and_the_ledger(tmp_path):
    """A sweep whose complete runs an earlier invocation made (franzese2021's run directories, e.g. per-data-set
    invocations merged into one section) states them and their sampling seconds on its command line, and the
    ledger keeps this process's CPU plus those seconds; a run this invocation made and met again is not counted,
    nor one read back without stored seconds (NaN) added."""
    from types import SimpleNamespace

    from bnnsample.figures.driver import Invocation

    inv = Invocation("demo-fig", tmp_path, {}, {"quick": {}})

    def res(key, reused, seconds):
        return SimpleNamespace(spec=SimpleNamespace(key=lambda: key), reused=reused, seconds=seconds)

    for r in (res("a", True, 30.0), res("b", True, 12.5), res("c", False, 9.0), res("c", True, 9.0),
              res("d", True, float("nan"))):  # fmt: skip
        inv.run_read_back(r)
    assert (inv.runs_read_back, inv.runs_read_back_seconds) == (3, 42.5)
    text = inv.section("s", [], "", [])
    assert "; 3 finished runs read back from `runs/` of earlier invocations, whose sampling took 42 CPU-s" in text
    inv.finish(text, [])
    options, wall, cpu = inv.cost
    assert wall is None and 42.5 <= cpu < 42.5 + 60
    fresh = Invocation("demo-fig", tmp_path, {}, {"quick": {}})
    assert "read back" not in fresh.section("s", [], "", []) and fresh.cost is None


def test_franzese_run_spec_says_whether_it_read_a_run_back(tmp_path):
    """franzese2021's ``run_spec``: a run it makes is not ``reused``; the same Spec again (here, or complete under
    another franzese2021 recipe's runs/) is read back, ``reused``, with the seconds its sampling took."""
    from bnnsample.papers.franzese2021.uci_runs import Spec, run_spec

    spec = Spec(dataset="trig_features", integrator="lie_trotter", h=0.05, chains=2, draws=3, t_burn=0.5, t_thin=0.1)
    made = run_spec(spec, tmp_path / "franzese2021-fig4" / "runs")
    again = run_spec(spec, tmp_path / "franzese2021-fig4" / "runs")
    elsewhere = run_spec(spec, tmp_path / "franzese2021-fig10" / "runs")
    assert (made.reused, again.reused, elsewhere.reused) == (False, True, True)
    assert made.seconds > 0 and again.seconds == elsewhere.seconds == made.seconds
    assert not (tmp_path / "franzese2021-fig10" / "runs" / spec.key()).exists()
