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


def test_classifier_summary_says_the_ensemble_size_and_the_paired_differences():
    nan = float("nan")
    rows = [("run", "chains", 4, nan), ("run", "diverged_chains", 1, nan), ("run", "draws_per_chain", 30, nan)]
    for g in ("standard", "swa", "bayes"):
        rows += [(g, m, 0.5, nan) for m in ("accuracy", "nll", "ace", "rps", "ece")]
    rows += [("bayes-swa@es1", "accuracy", -0.001, 0.0004), ("bayes-swa@es1", "nll", -0.0123, 0.0021),
             ("bayes-swa@es1", "ace", 0.0002, 0.0001), ("bayes-swa@es1", "rps", -0.0003, 0.00005)]  # fmt: skip
    out = render(_table(rows), [])
    lines = out.splitlines()
    assert lines[4] == ("  rows: ensembles of the same 3 runs (standard, SWA: 3 networks; Bayesian: 3 x 30 draws); "
                        "smaller ensembles in metrics.csv (<method>@es<k>)")  # fmt: skip
    assert lines[5] == ("  Bayesian - SWA per single run, paired (mean ± s.e. over 3 runs): accuracy -0.0010 ± 0.0004, "
                        "NLL -0.0123 ± 0.0021, ACE +0.0002 ± 0.0001, RPS -0.0003 ± 0.0001")  # fmt: skip
    assert "departs from" not in out  # no config: nothing to compare


def test_fmnist_cpu_departs_from_the_paper_in_network_images_and_runs_only():
    from omegaconf import OmegaConf

    from bnnsample.evaluate.summary import departures

    from ..helpers import compose_cfg

    cfg = OmegaConf.to_container(compose_cfg(["experiment=fmnist_cpu"]), resolve=True)
    assert departures(cfg) == ["network cnn_small (paper cnn_fmnist, 1.27M parameters)",
                               "training images 10,000, a stratified subset (paper 60,000)",
                               "runs 4 (paper 64)"]  # fmt: skip
    nan = float("nan")
    rows = [("run", "chains", 4, nan)] + [(g, "accuracy", 0.9, nan) for g in ("standard", "swa", "bayes")]
    out = render(_table(rows), [], cfg)
    assert (
        "  departs from Paulin et al. (2025), Algorithm 3 / Fig. 4 in: network cnn_small (paper cnn_fmnist, "
        "1.27M parameters); training images 10,000, a stratified subset (paper 60,000); runs 4 (paper 64)"
    ) in out
    paper = OmegaConf.to_container(compose_cfg(["dataset=fmnist", "chains=64", "model.n_calibration=10000"]),
                                   resolve=True)  # fmt: skip
    assert departures(paper) == []  # the paper's protocol: nothing to say
    short = OmegaConf.to_container(compose_cfg(["experiment=fmnist_cpu", "burn_in=1", "samples=8", "thin=2"]),
                                   resolve=True)  # fmt: skip
    assert departures(short)[3:] == ["burn-in 1 epoch (paper 10 epochs)",
                                     "draws 8, one per 2 epochs (paper 30, one per epoch)"]  # fmt: skip
    assert departures(OmegaConf.to_container(compose_cfg(["dataset=mnist5k"]), resolve=True)) == []


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
