"""The printed end of a run: one comparison table, diagnostics with a reading, notes once;
`evaluate` on a sweep prints one cross-job table."""

import os
import subprocess
import sys

import pandas as pd

from bnnsample.evaluate.summary import render


def _table(rows):
    return pd.DataFrame(rows, columns=["group", "metric", "value", "se"])


def test_classifier_summary_is_one_table_with_readings():
    nan = float("nan")
    rows = [("run", "chains", 4, nan), ("run", "diverged_chains", 0, nan), ("run", "draws_per_chain", 8, nan)]
    for g, acc in (("standard", 0.95), ("swa", 0.96), ("bayes", 0.97)):
        rows += [(g, m, v, nan) for m, v in (("accuracy", acc), ("nll", 0.1), ("ace", 0.01), ("rps", 0.02),
                                               ("ece", 0.03))]  # fmt: skip
    rows += [("bayes@es1", "nll", 0.2, 0.01), ("diagnostics", "rhat_max", 4.8, nan),
             ("diagnostics", "ess_bulk_min", 5.2, nan), ("diagnostics", "kinetic_temperature", 0.73, 0.01)]  # fmt: skip
    notes = ["chains start from different points (e.g. their own SWA solutions): R-hat across them ...",
             "configurational temperature skipped: target too large (dim 9000)"] * 2  # fmt: skip
    out = render(_table(rows), notes)
    lines = out.splitlines()
    assert lines[0].split() == ["accuracy", "nll", "ece", "ace", "rps"]
    assert [ln.split()[0] for ln in lines[1:4]] == ["standard", "SWA", "Bayesian"]
    assert "R-hat max 4.8: across different SWA starts, not a convergence test" in out
    assert "kinetic temperature 0.73: below 1, the run is still in its transient" in out
    assert out.count("configurational temperature skipped") == 1 and "chains start from" not in out
    assert "bayes@es1" not in out and len(lines) <= 10


def test_exact_law_summary_and_equilibrium_reading():
    nan = float("nan")
    rows = [("theta[0]", "mean", 0.5, 0.01), ("theta[0]", "posterior_mean", 0.5, 0.0),
            ("theta[0]", "var", 1.02, 0.02), ("theta[0]", "posterior_var", 1.0, 0.0), ("theta[0]", "w2", 0.03, nan),
            ("diagnostics", "kinetic_temperature", 1.01, 0.01), ("diagnostics", "rhat_max", 1.002, nan)]  # fmt: skip
    out = render(_table(rows), [])
    assert "exact mean" in out.splitlines()[0] and "theta[0]" in out
    assert "close to 1" in out and "R-hat max 1: chains agree" in out


def test_arviz_import_prints_nothing_under_info_logging():
    code = ("import logging; logging.basicConfig(level=logging.INFO)\n"
            "from bnnsample.evaluate.diagnostics import _arviz; _arviz()")  # fmt: skip
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")])))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert "not installed" not in out.stderr + out.stdout


def test_evaluate_on_a_sweep_prints_one_cross_job_table(tmp_path, capsys):
    from bnnsample.evaluate.report import evaluate_paths

    from ..helpers import run_inprocess

    sweep = tmp_path / "sweep"
    for i, h in enumerate((0.1, 0.2, 0.4)):
        run_inprocess(sweep / str(i), ["dataset=two_batch_gaussian", "chains=20", "burn_in=20", "samples=20",
                                       f"step_size={h}"])  # fmt: skip
    capsys.readouterr()
    assert evaluate_paths([sweep]) == []
    out = capsys.readouterr().out
    assert "== " + str(sweep / "0") not in out and out.count("theta[0]/mean_error") == 1
    header = next(ln for ln in out.splitlines() if ln.split()[:1] == ["job"])
    assert "step_size" in header and "diagnostics/kinetic_temperature" in header
    body = out.split(header)[1].splitlines()[1:4]
    assert [ln.split()[0] for ln in body] == ["0", "1", "2"]
