"""``reference=PATH`` (bnnsample/evaluate/reference.py): the average Kolmogorov distance of two
exact samplers is franzese's 0.8687 sqrt((n+m)/(nm)), the self-distance band and the theta
distances are the metrics module's on the pooled draws, an oracle run made by the pipeline
is reused end to end, and a missing or mismatched reference gives one line naming
``reference`` (exit code != 0 through the CLI)."""

import math
import signal
import sys

import numpy as np
import pytest
from hydra.core.global_hydra import GlobalHydra
from scipy import stats

from bnnsample.cli import main as cli_main
from bnnsample.evaluate import metrics as M
from bnnsample.evaluate.reference import KOLMOGOROV_MEAN, reference_rows, resolve_reference_paths
from bnnsample.evaluate.report import evaluate_run
from bnnsample.plumbing.errors import UserError
from bnnsample.store import SampleStore

from ..helpers import run_inprocess

CONFIG = "dataset: {name: synthetic_test, n_test: 200}\n"


def _write(path, predictive=None, theta=None, targets=None, config=CONFIG, diverged=None):
    """A samples.h5 holding the given draws: predictive (C, D, T, K), theta (C, D, d)."""
    arr = predictive if predictive is not None else theta
    C, D = arr.shape[:2]
    path.parent.mkdir(parents=True, exist_ok=True)
    s = SampleStore.create(
        path, chains=C, draws=D, dim=1 if theta is None else theta.shape[2], store_theta=theta is not None,
        theta_dtype="float64", predictive_shape=None if predictive is None else predictive.shape[2:],
        attrs={"config": config},
    )  # fmt: skip
    s.append(theta=theta, predictive=predictive, diagnostics={"kinetic_temperature": np.ones((C, D))})
    if targets is not None:
        s.write_array("targets", targets)
    if diverged is not None:
        s.set_diverged(diverged)
    s.mark_complete()
    s.close()
    return path


def _rows_dict(rows):
    return {(r["group"], r["metric"]): r["value"] for r in rows}


def _exact_draws(rng, chains, draws, n_test, shift=0.0):
    """Exact i.i.d. draws of T different continuous predictive marginals N(mu_t, sd_t^2)."""
    t = np.linspace(-2, 2, n_test)
    mu, sd = np.sin(t), 0.2 + 0.1 * t**2
    return (mu + shift * sd + sd * rng.standard_normal((chains, draws, n_test)))[..., None]


def test_avg_kolmogorov_of_exact_samplers_band_and_power(tmp_path):
    rng = np.random.default_rng(5)
    T = 200
    y = np.linspace(-1, 1, T)
    run = _write(tmp_path / "run.h5", _exact_draws(rng, 4, 500, T), targets=y)  # n = 2000
    refs = [_write(tmp_path / f"ref{r}" / "samples.h5", _exact_draws(rng, 2, 1000, T), targets=y) for r in range(5)]
    with SampleStore(run) as s:
        rows = reference_rows(s, [str(tmp_path / f"ref{r}") for r in range(5)])
    got = _rows_dict(rows)
    n = m = 2000
    expected = KOLMOGOROV_MEAN * math.sqrt((n + m) / (n * m))  # 0.0275
    # the same number from the metrics module, with its standard error over test points
    with SampleStore(run) as s:
        pooled = s.predictive().reshape(-1, T)
    per_ref = []
    for r in refs:
        with SampleStore(r) as s:
            per_ref.append(M.marginal_kolmogorov_distances(pooled, s.predictive().reshape(-1, T)))
    per_ref = np.array(per_ref)
    assert got[("bayes", "avg_kolmogorov")] == pytest.approx(per_ref.mean(), rel=1e-12)
    se = per_ref.mean(0).std(ddof=1) / math.sqrt(T)
    print(f"avg_kolmogorov {got[('bayes', 'avg_kolmogorov')]:.5f} +- {se:.5f}, 0.8687 sqrt((n+m)/nm) = {expected:.5f}")
    assert abs(got[("bayes", "avg_kolmogorov")] - expected) < 4 * se
    assert got[("bayes", "avg_kolmogorov_floor")] == pytest.approx(expected, rel=1e-12)
    assert got[("reference", "references")] == 5 and got[("reference", "reference_draws")] == 10_000
    # self-distance band over the 10 pairs of the 5 reference runs (metrics.self_distance_band)
    low, mean, high = (got[("reference", f"self_distance_{k}")] for k in ("low", "mean", "high"))
    assert low <= mean <= high and abs(mean - expected) < 4 * se
    assert resolve_reference_paths(str(tmp_path)) == [r for r in refs]  # a directory of runs
    # power: a sampler biased by 0.25 sd per test point is far above the band
    biased = _write(tmp_path / "biased.h5", _exact_draws(rng, 4, 500, T, shift=0.25), targets=y)
    with SampleStore(biased) as s:
        far = _rows_dict(reference_rows(s, str(refs[0])))
    assert far[("bayes", "avg_kolmogorov")] > high + 20 * se


def test_classification_and_theta_rows_match_direct_computation(tmp_path):
    rng = np.random.default_rng(9)
    C, D, T, K, d = 3, 40, 7, 3, 4
    logits = rng.standard_normal((C, D, T, K))
    probs = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    ref_logits = 1.3 * rng.standard_normal((2, 50, T, K))
    ref_probs = np.exp(ref_logits) / np.exp(ref_logits).sum(-1, keepdims=True)
    y = rng.integers(0, K, T)
    theta = rng.standard_normal((C, D, d))
    ref_theta = 0.5 + 2.0 * rng.standard_normal((2, 50, d))
    diverged = np.array([False, True, False])  # chain 1 is dropped from the run's draws
    run = _write(tmp_path / "run.h5", probs.astype(np.float32), theta, y, diverged=diverged)
    ref = _write(tmp_path / "ref.h5", ref_probs.astype(np.float32), ref_theta, y)
    with SampleStore(run) as s:
        got = _rows_dict(reference_rows(s, str(ref)))
    a = probs.astype(np.float32)[~diverged].reshape(-1, T * K).astype(np.float64)
    b = ref_probs.astype(np.float32).reshape(-1, T * K).astype(np.float64)
    # every (test point, class) probability is one marginal: hand loop over scipy's ks_2samp
    akd = np.mean([stats.ks_2samp(a[:, j], b[:, j]).statistic for j in range(T * K)])
    assert got[("bayes", "avg_kolmogorov")] == pytest.approx(akd, rel=1e-12)
    n, m = a.shape[0], b.shape[0]
    assert got[("bayes", "avg_kolmogorov_floor")] == pytest.approx(KOLMOGOROV_MEAN * math.sqrt((n + m) / (n * m)))
    pr, pf = a.reshape(-1, T, K).mean(0), b.reshape(-1, T, K).mean(0)
    assert got[("bayes", "class_prob_bias_ref")] == pytest.approx(
        np.mean(np.abs(pr[np.arange(T), y] - pf[np.arange(T), y]))
    )
    ta, tb = theta[~diverged].reshape(-1, d), ref_theta.reshape(-1, d)
    for j in range(d):
        assert got[(f"theta[{j}]", "w1_ref")] == pytest.approx(stats.wasserstein_distance(ta[:, j], tb[:, j]))
        assert got[(f"theta[{j}]", "w2_ref")] == pytest.approx(M.wasserstein2_1d(ta[:, j], tb[:, j]))
        assert got[(f"theta[{j}]", "kolmogorov_ref")] == pytest.approx(stats.ks_2samp(ta[:, j], tb[:, j]).statistic)
    va, vb = ta.var(0, ddof=1), tb.var(0, ddof=1)
    assert got[("reference", "cov_diag_error")] == pytest.approx(np.mean(np.abs(va - vb) / vb))
    assert got[("reference", "w1_mean")] == pytest.approx(
        np.mean([stats.wasserstein_distance(ta[:, j], tb[:, j]) for j in range(d)])
    )
    assert ("reference", "self_distance_mean") not in got  # one reference: no band


def test_mismatched_and_missing_references_give_one_line(tmp_path):
    rng = np.random.default_rng(1)
    y = np.arange(5.0)
    run = _write(tmp_path / "run.h5", rng.standard_normal((2, 10, 5, 1)), targets=y)
    other_data = _write(tmp_path / "d.h5", rng.standard_normal((2, 10, 5, 1)), targets=y,
                        config="dataset: {name: synthetic_test, n_test: 300}\n")  # fmt: skip
    other_test = _write(tmp_path / "t.h5", rng.standard_normal((2, 10, 5, 1)), targets=y + 1)
    other_shape = _write(tmp_path / "s.h5", rng.standard_normal((2, 10, 5, 2)), targets=y)
    theta_only = _write(tmp_path / "th.h5", theta=rng.standard_normal((2, 10, 3)), targets=y)
    cases = {
        other_data: "another data set than the run's (dataset.n_test: run 200, reference 300)",
        other_test: "its test set differs",
        other_shape: "predictive shape",
        theta_only: "stores no predictive draws",
        tmp_path / "missing": "no samples.h5 there",
    }
    for ref, why in cases.items():
        with SampleStore(run) as s, pytest.raises(UserError) as e:
            reference_rows(s, str(ref))
        msg = str(e.value)
        assert msg.startswith(f"reference={ref}") and why in msg and "\n" not in msg, msg
    assert resolve_reference_paths(None) == [] and resolve_reference_paths([]) == []


def test_oracle_run_reused_end_to_end(tmp_path, capsys):
    # franzese's oracle preset through the pipeline (tiny: 2 chains, 30 draws), then a UBU run
    # with minibatches on the same data compared with it; trig_features has predictive draws
    # (200 test points) and theta (d = 256).
    small = ["dataset=trig_features", "dataset.n_train=40", "dataset.n_test=20", "dataset.n_features=16"]
    oracle, _ = run_inprocess(tmp_path / "oracle", [
        *small, "experiment=franzese2021_oracle", "chains=2", "burn_in=200", "thin=20", "samples=30",
        "evaluate=false"])  # fmt: skip
    with SampleStore(oracle) as s:
        assert s.attrs["integrator"] == "sghmc_adaptive" and s.attrs["batching"] == "full"
        assert s.attrs["step_size"] == 0.005 and s.attrs["thin_steps"] == 20
    run_inprocess(tmp_path / "run", [
        *small, "integrator=ubu", "batching=iid", "chains=4", "burn_in=200", "thin=10", "samples=25",
        f"reference={tmp_path / 'oracle'}", "evaluate=false"])  # fmt: skip
    table = evaluate_run(tmp_path / "run")
    got = {(g, m): v for g, m, v in zip(table.group, table.metric, table.value)}
    for key in [("bayes", "avg_kolmogorov"), ("bayes", "avg_kolmogorov_floor"), ("reference", "references"),
                ("theta[0]", "w1_ref"), ("theta[0]", "w2_ref"), ("reference", "cov_diag_error"),
                ("diagnostics", "rhat_max"), ("diagnostics", "kinetic_temperature")]:  # fmt: skip
        assert key in got, key
    assert 0 < got[("bayes", "avg_kolmogorov")] <= 1 and got[("reference", "reference_draws")] == 60
    assert (tmp_path / "run" / "metrics.csv").read_text().count("avg_kolmogorov") == 2

    # the CLI: `bnnsample evaluate RUN reference=OTHER` with a reference on another data set
    # fails with one line and exit code 1; metrics.csv is still written, without reference rows
    run_inprocess(tmp_path / "other", [
        "dataset=trig_features", "dataset.n_train=40", "dataset.n_test=20", "dataset.n_features=8",
        "integrator=ubu", "chains=2", "burn_in=5", "thin=1", "samples=5", "evaluate=false"])  # fmt: skip
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        cli_main(["evaluate", str(tmp_path / "run"), f"reference={tmp_path / 'other'}"])
    assert e.value.code == 1
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("bnnsample: error")]
    assert len(err) == 1 and "reference=" in err[0] and "dataset.n_features: run 16, reference 8" in err[0], err
    assert "avg_kolmogorov" not in (tmp_path / "run" / "metrics.csv").read_text()


@pytest.mark.parametrize("which", ["missing", "other_data"])
def test_cli_run_with_bad_reference_fails_before_sampling(tmp_path, monkeypatch, capsys, which):
    # through `bnnsample run` (cli.main in process, as tests/test_fuzz.py): exit code != 0,
    # one line on stderr naming reference, and no samples.h5 left behind
    if which == "missing":
        ref, why = tmp_path / "nope", "no samples.h5 there"
    else:
        ref, why = tmp_path / "ref" / "samples.h5", "another data set than the run's (dataset.name"
        _write(ref, theta=np.zeros((1, 2, 1)), config="dataset: {name: two_batch_gaussian}\n")
    handlers = {sg: signal.getsignal(sg) for sg in (signal.SIGINT, signal.SIGTERM)}
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    GlobalHydra.instance().clear()
    try:
        with pytest.raises(SystemExit) as e:
            cli_main(["run", "dataset=franzese_toy", "chains=2", "burn_in=5", "samples=5", "progress=false",
                      f"reference={ref}", f"hydra.run.dir={tmp_path / 'run'}"])  # fmt: skip
    finally:
        GlobalHydra.instance().clear()
        for sg, h in handlers.items():
            signal.signal(sg, h)
    assert e.value.code not in (0, None)
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"bnnsample: error: reference={ref}") and why in lines[0], lines
    assert not (tmp_path / "run" / "samples.h5").exists()


def test_reference_search_goes_one_level_down_and_refuses_the_root_in_one_line(tmp_path):
    """A run directory or a sweep of them; a run deeper down is not searched for, so that
    reference=/ is refused at once rather than walking the whole file system."""
    deep = _write(tmp_path / "refs" / "yacht" / "0" / "samples.h5", theta=np.zeros((1, 2, 1)))
    assert resolve_reference_paths(str(tmp_path / "refs" / "yacht")) == [deep]
    assert resolve_reference_paths(str(tmp_path / "refs" / "yacht" / "0")) == [deep]
    for too_wide in (tmp_path / "refs", tmp_path, "/"):
        with pytest.raises(UserError) as e:
            resolve_reference_paths(str(too_wide))
        assert str(e.value).startswith(f"reference={too_wide}: no samples.h5 there") and "\n" not in str(e.value)
