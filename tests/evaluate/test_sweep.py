"""`bnnsample evaluate SWEEP_DIR`: a Hydra multirun -> sweep.csv, slopes and slope plots."""

import shutil

import numpy as np
import pandas as pd
import pytest
import yaml

from bnnsample.evaluate.sweep import aggregate_sweep, fit_loglog, flatten, line_keys

INTEGRATORS = ("sms_ubu", "sg_ubu", "sg_baoab")
STEPS = (0.25, 0.125, 0.0625, 0.03125)


def test_fit_loglog_recovers_a_known_slope():
    h = np.geomspace(0.01, 0.5, 8)
    exact = fit_loglog(h, -3.0 * h**2)  # the sign is ignored: log|value|
    assert exact.slope == pytest.approx(2.0, abs=1e-12) and np.exp(exact.intercept) == pytest.approx(3.0)
    rng = np.random.default_rng(0)
    noisy = fit_loglog(h, 0.7 * h**1.5 * np.exp(0.1 * rng.standard_normal(h.size)))
    assert noisy.lo < 1.5 < noisy.hi and abs(noisy.slope - 1.5) < 0.2
    # the t interval has its nominal coverage: 95% +- 3 binomial sd over 600 replicates
    hits = [
        (f := fit_loglog(h, h**1.5 * np.exp(0.2 * rng.standard_normal(h.size)))).lo < 1.5 < f.hi
        for _ in range(600)
    ]  # fmt: skip
    assert abs(np.mean(hits) - 0.95) < 3 * np.sqrt(0.95 * 0.05 / 600)
    # band: fit at the mean of log h lies between its limits; two points give a slope, no CI
    f, lo, hi = noisy.band(h)
    assert np.all(lo <= f) and np.all(f <= hi)
    two = fit_loglog([0.1, 0.2], [1.0, 4.0])
    assert two.slope == pytest.approx(2.0) and np.isnan(two.lo)
    assert fit_loglog([0.1, 0.1], [1.0, 2.0]) is None and fit_loglog([0.1, 0.2], [0.0, 1.0]) is None


def test_flatten_dotted_names():
    flat = flatten({"a": 1, "b": {"c": 2, "d": {"e": "x"}}, "l": [1, 2], "empty": {}})
    assert flat == {"a": 1, "b.c": 2, "b.d.e": "x", "l": "[1, 2]", "empty": None}


def _fake_run(d, cfg, rows):
    d.mkdir(parents=True)
    (d / "config.yaml").write_text(yaml.safe_dump(cfg))
    (d / "samples.h5").write_bytes(b"")  # present; metrics.csv is what the sweep reads
    pd.DataFrame(rows, columns=["group", "metric", "value", "se"]).to_csv(d / "metrics.csv", index=False)


def test_calibration_against_ensemble_size(tmp_path):
    """A sweep over samples= gives the calibration plot; lines ignore seed and samples."""
    for i, (draws, seed) in enumerate([(10, 0), (20, 1), (40, 2), (80, 3)]):
        cfg = {"integrator": {"name": "ubu"}, "batching": {"name": "sms"}, "batch_size": 50,
               "step_size": 0.01, "samples": draws, "seed": seed, "chains": 2}  # fmt: skip
        rows = [("run", "chains", 2, np.nan), ("run", "diverged_chains", 0, np.nan),
                ("run", "draws_per_chain", draws, np.nan)]  # fmt: skip
        rows += [("bayes", m, 1.0 / draws, np.nan) for m in ("nll", "ace", "rps", "accuracy")]
        _fake_run(tmp_path / str(i), cfg, rows)
    res = aggregate_sweep(tmp_path, echo=False)
    assert (tmp_path / "plots" / "calibration_vs_ensemble_size.png").exists()
    assert line_keys(res.table) == ["integrator.name", "batching.name", "batch_size"]
    assert set(res.table.run) == {"0", "1", "2", "3"} and (res.status.status == "ok").all()


@pytest.mark.slow  # end-to-end processes: left out by -m "not slow"
def test_multirun_sweep_table_and_slope_plots(cli, tmp_path):
    sweep = tmp_path / "sweep"
    out = cli(
        "run", "-m", "integrator=" + ",".join(INTEGRATORS), "step_size=" + ",".join(map(str, STEPS)),
        "dataset=two_batch_gaussian", "chains=200", "burn_in=100", "samples=100", "thin=1",
        "progress=false", "evaluate=false", f"hydra.sweep.dir={sweep}",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    # a run whose store is truncated, and a job that died before creating one
    shutil.copytree(sweep / "0", sweep / "12")
    h5 = sweep / "12" / "samples.h5"
    h5.write_bytes(h5.read_bytes()[: h5.stat().st_size // 3])
    (sweep / "13" / ".hydra").mkdir(parents=True)
    shutil.copy(sweep / "0" / ".hydra" / "config.yaml", sweep / "13" / ".hydra" / "config.yaml")

    ev = cli("evaluate", str(sweep))
    assert ev.returncode == 1, ev.stderr[-3000:]  # failed runs make the exit status nonzero ...
    table = pd.read_csv(sweep / "sweep.csv")
    ok = table[table.status == "ok"]
    assert ok.run.nunique() == 12  # ... and the rest is aggregated
    cols = ("run", "run_dir", "group", "metric", "value", "se", "integrator.name", "batching.name",
            "choice.integrator", "step_size", "batch_size", "seed", "friction", "chains", "dataset.name")  # fmt: skip
    for col in cols:
        assert col in table.columns, col
    grid = ok.drop_duplicates("run").groupby("choice.integrator").step_size.apply(sorted)
    assert grid.to_dict() == {i: sorted(STEPS) for i in INTEGRATORS}
    assert set(ok["batching.name"]) == {"sms", "iid"} and set(ok["integrator.name"]) == {"ubu", "baoab"}
    w1 = ok.query("metric == 'w1' and group == 'theta[0]'")
    assert len(w1) == 12 and (w1.value > 0).all()
    assert (w1.se > 0).all() and (w1.se < w1.value).all()  # W1's Monte Carlo s.e. over chains: the plots' floor

    failed = table[table.status == "failed"]
    assert sorted(failed.run.astype(str)) == ["12", "13"]
    status = pd.read_csv(sweep / "sweep_status.csv", dtype={"run": str})
    assert set(status.loc[status.status == "failed", "run"]) == {"12", "13"} and len(status) == 14
    assert str(sweep / "12") in ev.stdout and str(sweep / "13") in ev.stdout

    for name in ("w1", "var_error", "scheme_var_error"):
        assert (sweep / "plots" / f"{name}_vs_step_size.png").stat().st_size > 0
    assert f"sweep table in {sweep / 'sweep.csv'}" in ev.stdout and "slope" in ev.stdout
    slopes = pd.read_csv(sweep / "slopes.csv").query("group == 'theta[0]'").set_index(["metric", "choice.integrator"])
    assert len(slopes.loc["w1"]) == 3 and (slopes.loc["w1"].points == 4).all()
    # the exact bias of the schemes: SMS-UBU second order, the i.i.d.-batch schemes first order
    exact = slopes.loc["scheme_var_error"].slope
    assert exact["sms_ubu"] > 1.6 and 0.9 < exact["sg_ubu"] < 1.5 and 0.9 < exact["sg_baoab"] < 1.6
    assert pd.read_parquet(sweep / "sweep.parquet").shape == table.shape  # pyarrow is a dependency


def test_corrupt_and_truncated_stores_are_named_and_the_rest_is_evaluated(tmp_path, capsys):
    """Two good runs, a truncated samples.h5 and a garbage one (each with a stale metrics.csv
    that must not be used): evaluate names the two bad runs, the table keeps one row per run."""
    from bnnsample.evaluate.report import evaluate_paths

    from ..helpers import run_inprocess

    sweep = tmp_path / "sweep"
    for i, h in enumerate((0.1, 0.2)):
        run_inprocess(sweep / str(i), ["dataset=two_batch_gaussian", "chains=20", "burn_in=20", "samples=20",
                                       f"step_size={h}"])  # fmt: skip
    for bad in ("2", "3"):
        shutil.copytree(sweep / "0", sweep / bad)
        pd.DataFrame([("theta[0]", "w1", 0.0, 0.0)], columns=["group", "metric", "value", "se"]).to_csv(
            sweep / bad / "metrics.csv", index=False
        )
    h5 = sweep / "2" / "samples.h5"
    h5.write_bytes(h5.read_bytes()[: h5.stat().st_size // 2])
    (sweep / "3" / "samples.h5").write_bytes(np.random.default_rng(0).bytes(4096))

    failed = evaluate_paths([sweep])
    out = capsys.readouterr().out
    assert sorted(p.name for p in failed) == ["2", "3"]
    assert "2 failed" in out and f"failed: {sweep / '2'}" in out and f"failed: {sweep / '3'}" in out
    runs = pd.read_csv(sweep / "sweep_runs.csv", dtype={"run": str}).set_index("run")
    assert list(runs.index) == ["0", "1", "2", "3"]
    assert runs.status.to_dict() == {"0": "ok", "1": "ok", "2": "failed", "3": "failed"}
    w1 = runs["theta[0]/w1"]
    assert w1[["0", "1"]].gt(0).all() and w1[["2", "3"]].isna().all()
    assert runs.loc["1", "step_size"] == 0.2 and "unreadable" in runs.loc["3", "error"]


@pytest.mark.slow  # end-to-end processes: left out by -m "not slow"
def test_replicate_jobs_are_pooled_into_ensembles(inprocess, tmp_path):
    """A multirun over seeds (paulin2025's independent runs as jobs): the runs of the jobs
    that differ only in the seed are pooled, in job order, into disjoint ensembles; jobs of
    another setting form their own line."""
    from bnnsample.evaluate.ensembles import ensemble_metrics, run_predictives
    from bnnsample.store import SampleStore

    sweep = tmp_path / "sweep"
    code = inprocess(
        "run", "-m", "dataset=digits", "dataset.n_test=97", "chains=2", "init.train_epochs=1", "init.swa_epochs=1",
        "burn_in=1", "samples=2", "model.n_calibration=100", "store_theta=false", "progress=false",
        "seed=0,1,2", "init.localization=50,25", f"hydra.sweep.dir={sweep}",
    )  # fmt: skip
    assert code == 0 and inprocess("evaluate", str(sweep)) == 0
    t = pd.read_csv(sweep / "ensembles.csv")
    assert sorted(set(t["init.localization"])) == [25.0, 50.0] and set(t.jobs) == {3}
    assert set(t.method) == {"standard", "swa", "bayes"} and sorted(set(t.ensemble_size)) == [1, 2, 4]
    # recompute one line from the stores: 3 jobs x 2 chains, job order
    runs = pd.read_csv(sweep / "sweep_runs.csv")
    dirs = runs[runs["init.localization"] == 25.0].sort_values("seed").run_dir
    preds, y = [], None
    for d in dirs:
        with SampleStore(f"{d}/samples.h5") as s:
            p, y = run_predictives(s)
            preds.append(p["bayes"])
    expect = ensemble_metrics(np.concatenate(preds), y, method="bayes")
    got = t[(t["init.localization"] == 25.0) & (t.method == "bayes")]
    np.testing.assert_allclose(got["mean"].to_numpy(), expect["mean"].to_numpy(), rtol=1e-9)
    assert (sweep / "plots" / "ensembles_vs_size_0.png").exists()


def test_slopes_only_where_the_fit_means_something():
    from bnnsample.evaluate.sweep import fit_loglog, robust_limits

    h = np.array([0.05, 0.1, 0.2, 0.4])
    clean = fit_loglog(h, 3 * h**2)
    assert clean.problem() == "" and clean.label().startswith("slope 2.00")
    assert (
        "need 3" in fit_loglog(h[:2], h[:2] ** 2).problem()
        and fit_loglog(h[:2], h[:2]).label() == "no fit (2 step sizes)"
    )
    noisy = fit_loglog(h, np.array([1e-2, 1e-4, 3e-2, 2e-3]))  # the README example's 2.23 [-32.5, 37.0]
    assert noisy.label().startswith("no fit (95% CI") and "no power law" in noisy.problem()
    # a floating-point zero (1e-19 next to 1e-2) is not a point of the fit nor of the axis
    with_zero = fit_loglog(np.append(h, 0.8), np.append(3 * h**2, 1e-19))
    assert with_zero.n == 4 and abs(with_zero.slope - 2) < 1e-9
    lo, hi = robust_limits(np.array([1e-3, 1e-2, np.inf, -1.0, 0.0]))
    assert 1e-4 < lo < 1e-3 and 1e-2 < hi < 1e-1


def test_slope_plots_keep_the_monte_carlo_floor_in_view(tmp_path, monkeypatch):
    """The floor (median s.e.) sits far below the points: the y-axis reaches down to it."""
    from bnnsample.evaluate import sweep as sw

    rows = [dict(run=str(i), status="ok", group="theta[0]", metric="w1", value=0.01 * h, se=1e-5, step_size=h,
                 **{"choice.integrator": "sms_ubu"}) for i, h in enumerate((0.1, 0.2, 0.4))]  # fmt: skip
    limits = []
    real_plt = __import__("matplotlib.pyplot", fromlist=["subplots"])
    real_subplots = real_plt.subplots

    def subplots(*a, **k):
        fig, axes = real_subplots(*a, **k)
        limits.append(axes[0][0])
        return fig, axes

    monkeypatch.setattr(real_plt, "subplots", subplots)
    paths = sw.plot_slopes(pd.DataFrame(rows), tmp_path)
    assert paths and limits[0].get_ylim()[0] < 1e-5
