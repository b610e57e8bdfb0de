"""Metrics against ensemble size (paulin2025 §2.4): disjoint groups of consecutive runs, mean
and unbiased std over groups, for the baselines and the draw-averaged Bayesian predictive."""

import numpy as np
import pandas as pd
import pytest

from bnnsample.evaluate import metrics as M
from bnnsample.evaluate.ensembles import ensemble_metrics, ensemble_rows, ensemble_table, plot_ensembles
from bnnsample.store import SampleStore


def dirichlet_probs(shape, seed):
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.ones(shape[-1]), size=shape[:-1])


def test_groups_are_disjoint_consecutive_runs_with_unbiased_std():
    R, n, K = 8, 60, 3
    p = dirichlet_probs((R, n, K), 0)
    y = np.random.default_rng(1).integers(K, size=n)
    t = ensemble_metrics(p, y, sizes=(1, 2, 4, 8, 16))
    assert sorted(set(t.ensemble_size)) == [1, 2, 4, 8]  # 16 > R is left out
    for es in (1, 2, 4, 8):
        groups = [p[g * es : (g + 1) * es].mean(0) for g in range(R // es)]
        for m in ("accuracy", "nll", "ace", "rps"):
            vals = np.array([getattr(M, m)(g, y) for g in groups])
            row = t[(t.ensemble_size == es) & (t.metric == m)].iloc[0]
            assert row.groups == R // es
            assert row["mean"] == pytest.approx(vals.mean(), rel=1e-12)
            if es < R:
                assert row["std"] == pytest.approx(vals.std(ddof=1), rel=1e-12)
            else:
                assert np.isnan(row["std"])


def test_consecutive_grouping_is_what_is_measured():
    """Runs 0, 1 are right with certainty, runs 2, 3 wrong: consecutive pairs give accuracy
    1 and 0 (std 0.707); interleaved pairs would give two identical groups (std 0)."""
    n = 10
    y = np.zeros(n, dtype=int)
    right, wrong = np.tile([0.9, 0.1], (n, 1)), np.tile([0.1, 0.9], (n, 1))
    p = np.stack([right, right, wrong, wrong])
    t = ensemble_metrics(p, y, sizes=(2,))
    acc = t[t.metric == "accuracy"].iloc[0]
    assert acc["mean"] == 0.5 and acc["std"] == pytest.approx(np.sqrt(0.5))


def test_table_from_a_store_averages_draws_and_drops_diverged_runs(tmp_path):
    R, D, n, K = 5, 3, 40, 4
    pred = dirichlet_probs((R, D, n, K), 2).astype(np.float32)
    std_p, swa_p = dirichlet_probs((R, n, K), 3), dirichlet_probs((R, n, K), 4)
    y = np.random.default_rng(5).integers(K, size=n)
    s = SampleStore.create(
        tmp_path / "s.h5", chains=R, draws=D, dim=2, store_theta=False, predictive_shape=(n, K)
    )
    s.append(predictive=pred, diagnostics={"kinetic_temperature": np.ones((R, D))})
    s.write_array("targets", y)
    s.write_array("baselines/standard", std_p)
    s.write_array("baselines/swa", swa_p)
    s.set_diverged(np.array([False, False, True, False, False]))
    keep = [0, 1, 3, 4]
    t = ensemble_table(s, bayes_label="sms_ubu")
    assert set(t.method) == {"standard", "swa", "sms_ubu"}
    expect = pd.concat([
        ensemble_metrics(std_p[keep], y, method="standard"),
        ensemble_metrics(swa_p[keep], y, method="swa"),
        ensemble_metrics(pred[keep].astype(np.float64).mean(1), y, method="sms_ubu"),
    ], ignore_index=True)  # fmt: skip
    pd.testing.assert_frame_equal(t.reset_index(drop=True), expect, rtol=1e-6)
    assert set(t.ensemble_size) == {1, 2, 4}
    rows = ensemble_rows(s)
    r = next(r for r in rows if r["group"] == "swa@es2" and r["metric"] == "nll")
    ref = expect[(expect.method == "swa") & (expect.ensemble_size == 2) & (expect.metric == "nll")].iloc[0]
    assert r["value"] == pytest.approx(ref["mean"]) and r["se"] == pytest.approx(ref["std"] / np.sqrt(2))
    s.close()
    out = plot_ensembles(t, tmp_path / "plots" / "ensembles_vs_size.png", title="test")
    assert out.exists() and out.stat().st_size > 1000


def test_bad_shape_is_one_line():
    with pytest.raises(ValueError, match="runs, n_test, classes"):
        ensemble_metrics(np.ones((3, 4)), np.zeros(3, dtype=int))


def _table(values):
    """A tidy table from {(method, es): (accuracy, nll, ace, rps)}."""
    rows = []
    for (method, es), vals in values.items():
        for metric, v in zip(("accuracy", "nll", "ace", "rps"), vals):
            rows.append(
                {
                    "method": method,
                    "ensemble_size": es,
                    "metric": metric,
                    "mean": v,
                    "std": 0.001,
                    "groups": 4 // es,
                }
            )
    return pd.DataFrame(rows)


def test_fig4_verdicts_and_options():
    from bnnsample.figures import paulin2025_fig4 as fig

    good = {("standard", es): (0.90, 0.30, 0.010, 0.020) for es in (1, 2)}
    good |= {("swa", es): (0.91, 0.28, 0.009, 0.019) for es in (1, 2)}
    good |= {("sms_ubu", 1): (0.92, 0.20, 0.004, 0.015), ("sms_ubu", 2): (0.93, 0.18, 0.002, 0.014)}
    good |= {("sg_hmc", 1): (0.90, 0.25, 0.006, 0.018), ("sg_hmc", 2): (0.90, 0.24, 0.007, 0.018)}
    rows = fig.verdicts(_table(good))
    assert rows[0][2] == "reproduced" and "12 of 12" in rows[0][1]  # 2 sizes x 3 metrics x 2 baselines
    assert all(row[2] == "reproduced" for row in rows)
    bad = dict(good)
    bad[("sms_ubu", 1)] = (0.92, 0.40, 0.020, 0.030)  # worse than both baselines at es = 1
    bad[("sms_ubu", 2)] = (0.92, 0.40, 0.020, 0.030)
    bad[("sg_hmc", 2)] = (0.90, 0.24, 0.001, 0.018)  # ACE improves with size by more than one std
    rows = fig.verdicts(_table(bad))
    assert rows[0][2] == "not reproduced" and "not lower" in rows[0][3]
    assert next(r for r in rows if "SG-HMC's ACE" in r[0])[2] == "not reproduced"
    flat_ubu = dict(good)
    flat_ubu[("sms_ubu", 2)] = (0.93, 0.18, 0.005, 0.014)  # SMS-UBU's ACE does not improve either
    assert next(r for r in fig.verdicts(_table(flat_ubu)) if "SG-HMC's ACE" in r[0])[2] == "partly"
    with pytest.raises(ValueError, match="allowed: scale"):
        fig._settings({"bogus": "1"})
    with pytest.raises(ValueError, match="scale=huge"):
        fig._settings({"scale": "huge"})
    with pytest.raises(ValueError, match="methods=sgld"):
        fig._settings({"methods": "sgld"})
    scale, s, methods = fig._settings({"methods": "sg_hmc", "chains": "8"})
    assert methods == ["sms_ubu", "sg_hmc"] and s["chains"] == 8 and scale == "quick"
    ovr = fig.method_overrides("sg_hmc", s)
    assert (
        "experiment=paulin2025_fig4_sg_hmc" in ovr and "step_size=0.002" in ovr and "dataset=mnist5k" in ovr
    )
