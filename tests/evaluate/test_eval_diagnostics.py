"""Evaluation diagnostics (bnnsample/evaluate/diagnostics.py): R-hat/ESS against arviz,
kinetic and configurational temperatures against exact values (an exact sampler gives 1, a
known-wrong one its own exact value), and the calibration check that ACE of a calibrated
predictor decays like 1/sqrt(n)."""

import math

import numpy as np
import pytest
import scipy.linalg
import torch

from bnnsample.evaluate import metrics as M
from bnnsample.evaluate.diagnostics import (
    diagnostic_rows,
    rebuild_target,
    rhat_ess,
    temperature_terms,
)
from bnnsample.evaluate.report import evaluate_run
from bnnsample.store import SampleStore

from ..helpers import compose_cfg, run_inprocess


def _arviz():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import arviz

    return arviz


def _row(table, group, metric):
    sel = table[(table.group == group) & (table.metric == metric)]
    assert len(sel) == 1, (group, metric, table)
    return float(sel.value.iloc[0]), float(sel.se.iloc[0])


def _synthetic_store(path, theta, attrs_cfg="dataset: {name: none}\n"):
    C, D, d = theta.shape
    s = SampleStore.create(path, chains=C, draws=D, dim=d, store_theta=True, theta_dtype="float64",
                           attrs={"config": attrs_cfg})  # fmt: skip
    s.append(theta=theta, diagnostics={"kinetic_temperature": np.ones((C, D))})
    s.mark_complete()
    return s


# --------------------------------------------------------------------------
# calibration: ACE of a perfectly calibrated predictor -> 0 like 1/sqrt(n)
# --------------------------------------------------------------------------


def _calibrated(n, rng, k=3, power=1.0):
    logits = 2.0 * rng.standard_normal((n, k))
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    u = rng.random(n)
    y = np.minimum((u[:, None] > np.cumsum(p, axis=1)).sum(1), k - 1)  # y ~ Cat(p): calibrated
    q = p**power
    return q / q.sum(1, keepdims=True), y


def test_ace_of_calibrated_predictor_decays_like_inverse_sqrt_n():
    rng = np.random.default_rng(7)
    ns = np.array([500, 2000, 8000, 32000])
    reps = 12
    calibrated = np.array([np.mean([M.ace(*_calibrated(n, rng)) for _ in range(reps)]) for n in ns])
    sharp = np.array([np.mean([M.ace(*_calibrated(n, rng, power=2.0)) for _ in range(reps)]) for n in ns])
    slope = np.polyfit(np.log(ns), np.log(calibrated), 1)[0]
    # 20 equal-count bins of n/20 points: |freq - conf| ~ sqrt(p(1-p) 20/n) per bin
    assert np.all(np.diff(calibrated) < 0), calibrated
    assert -0.6 < slope < -0.4, (slope, calibrated)
    assert calibrated[-1] < calibrated[0] / 6  # 64 times the points: 1/8 of the ACE
    print("ACE calibrated", calibrated, "slope", slope, "sharp", sharp)
    # power: an over-confident predictor plateaus at its miscalibration
    sharp_slope = np.polyfit(np.log(ns), np.log(sharp), 1)[0]
    assert sharp_slope > -0.15 and sharp[-1] > 8 * calibrated[-1], (sharp, sharp_slope)


# --------------------------------------------------------------------------
# R-hat and ESS
# --------------------------------------------------------------------------


def test_rhat_ess_agree_with_arviz_and_flag_shifted_chains(tmp_path):
    az = _arviz()
    rng = np.random.default_rng(3)
    C, D, d = 4, 300, 3
    # AR(1) chains (correlated draws, so ESS < C D)
    theta = np.zeros((C, D, d))
    for t in range(1, D):
        theta[:, t] = 0.7 * theta[:, t - 1] + rng.standard_normal((C, d))
    r = rhat_ess(theta)
    for j in range(d):
        assert r["rhat"][j] == pytest.approx(az.rhat(theta[:, :, j], method="rank"), rel=1e-12)
        assert r["ess_bulk"][j] == pytest.approx(az.ess(theta[:, :, j], method="bulk"), rel=1e-12)
        assert r["ess_tail"][j] == pytest.approx(az.ess(theta[:, :, j], method="tail"), rel=1e-12)
    assert np.all(r["rhat"] < 1.02) and np.all(r["ess_bulk"] < C * D / 2)

    with _synthetic_store(tmp_path / "ok.h5", theta) as s:
        rows, notes = diagnostic_rows(s, {}, np.ones(C, bool))
    got = {(row["group"], row["metric"]): row["value"] for row in rows}
    assert got[("theta[1]", "rhat")] == pytest.approx(az.rhat(theta[:, :, 1], method="rank"), rel=1e-12)
    assert got[("diagnostics", "rhat_max")] == pytest.approx(r["rhat"].max(), rel=1e-12)
    assert got[("diagnostics", "ess_bulk_min")] == pytest.approx(r["ess_bulk"].min(), rel=1e-12)
    assert got[("diagnostics", "kinetic_temperature")] == 1.0
    assert any("configurational temperature skipped" in n for n in notes)  # no target to rebuild

    # one chain shifted by 2 stationary sd (sd = 1/sqrt(1 - 0.49) = 1.4): R-hat flags it
    shifted = theta.copy()
    shifted[0, :, 0] += 2.8
    with _synthetic_store(tmp_path / "bad.h5", shifted) as s:
        rows, _ = diagnostic_rows(s, {}, np.ones(C, bool))
    got = {(row["group"], row["metric"]): row["value"] for row in rows}
    assert got[("theta[0]", "rhat")] > 1.3 and got[("diagnostics", "rhat_max")] > 1.3
    assert got[("theta[1]", "rhat")] < 1.02


def test_too_few_chains_or_draws_skip_rhat_with_a_note(tmp_path):
    rng = np.random.default_rng(0)
    for name, shape in (("one_chain", (1, 50, 2)), ("three_draws", (3, 3, 2))):
        with _synthetic_store(tmp_path / f"{name}.h5", rng.standard_normal(shape)) as s:
            rows, notes = diagnostic_rows(s, {}, np.ones(shape[0], bool))
        assert not any(r["metric"].startswith(("rhat", "ess")) for r in rows)
        assert any("R-hat/ESS skipped" in n for n in notes), notes
    with pytest.raises(ValueError):
        rhat_ess(rng.standard_normal((1, 50)))


# --------------------------------------------------------------------------
# temperatures
# --------------------------------------------------------------------------


def test_configurational_temperature_of_exact_and_inflated_draws():
    # trig_features (d = 256, linear-Gaussian): exact posterior draws give T = 1 for both
    # forms (Hutchinson Laplacian: d > 32); draws with covariance 1.3 Sigma give T = 1.3.
    cfg = compose_cfg(["dataset=trig_features", "dataset.n_train=60"])
    from omegaconf import OmegaConf

    pot, localization = rebuild_target(OmegaConf.to_container(cfg, resolve=True))
    assert localization is None
    mean, cov = (t.numpy() for t in pot.exact_posterior())
    d = mean.size
    L = np.linalg.cholesky(cov)
    rng = np.random.default_rng(11)
    z = rng.standard_normal((1500, d))
    for inflate in (1.0, 1.3):
        x = torch.as_tensor(mean + math.sqrt(inflate) * z @ L.T)
        t = temperature_terms(pot, x, seed=1)
        vir = t["virial"] / d
        vir_mean, vir_se = vir.mean(), vir.std(ddof=1) / math.sqrt(vir.size)
        # ratio estimator: delta-method standard error
        g2, lap = t["grad_sq"], t["laplacian"]
        rugh = g2.mean() / lap.mean()
        resid = (g2 - rugh * lap) / lap.mean()
        rugh_se = resid.std(ddof=1) / math.sqrt(resid.size)
        assert abs(vir_mean - inflate) < 4 * vir_se, (inflate, vir_mean, vir_se)
        assert abs(rugh - inflate) < 4 * rugh_se, (inflate, rugh, rugh_se)
        print(f"inflate {inflate}: virial {vir_mean:.4f} +- {vir_se:.4f}, Rugh {rugh:.4f} +- {rugh_se:.4f}")
        if inflate == 1.0:
            assert rugh_se < 0.02 and vir_se < 0.02  # power: 1.3 is > 15 se away
        # the Laplacian of a linear-Gaussian target is the trace of its precision
        np.testing.assert_allclose(lap.mean(), np.trace(np.linalg.inv(cov)), rtol=0.01)


def _em_stationary(h, gamma, prec):
    """Exact stationary covariance of (x - mu, v) under Euler-Maruyama on U = prec (x-mu)^2/2:
    x' = x + h v, v' = v - h prec x - h gamma v + sqrt(2 gamma h) xi."""
    A = np.array([[1.0, h], [-h * prec, 1 - h * gamma]])
    return scipy.linalg.solve_discrete_lyapunov(A, np.diag([0.0, 2 * gamma * h]))


@pytest.mark.parametrize("integrator,h", [("exact_ou", 0.5), ("em", 0.1)])
def test_temperatures_through_the_pipeline(tmp_path, integrator, h):
    # gaussian_points: y = (-1, 0, 0.5, 2), unit noise, flat prior: U'' = prec = 4.
    # exact_ou is exact in law for any h: both temperatures 1. Euler-Maruyama has
    # (h = 0.1) stationary E v^2 = 1.74 (kinetic) and prec Var x = 1.68 (both configurational forms).
    run_inprocess(tmp_path, [
        "dataset=gaussian_points", f"integrator={integrator}", "chains=400", "burn_in=300",
        "samples=200", "thin=5", f"step_size={h}", "friction=1.0", "evaluate=false",
    ])  # fmt: skip
    table = evaluate_run(tmp_path)
    prec = 4.0
    if integrator == "exact_ou":
        kin_exact = conf_exact = 1.0
    else:
        S = _em_stationary(h, 1.0, prec)
        kin_exact, conf_exact = S[1, 1], prec * S[0, 0]
        assert abs(kin_exact - 1) > 0.1 and abs(conf_exact - 1) > 0.1
    for metric, exact in (("kinetic_temperature", kin_exact), ("configurational_temperature", conf_exact),
                          ("configurational_temperature_virial", conf_exact)):  # fmt: skip
        value, se = _row(table, "diagnostics", metric)
        print(f"{integrator} h={h}: {metric} {value:.4f} +- {se:.4f} (exact {exact:.4f})")
        assert abs(value - exact) < 4 * se, (metric, value, exact, se)
        if integrator == "em":  # power: the wrong temperature is far from 1
            assert abs(value - 1) > 8 * se, (metric, value, se)
    assert (tmp_path / "plots" / "diagnostics.png").exists()
    assert _row(table, "diagnostics", "rhat_max")[0] < 1.05


def test_configurational_temperature_of_a_localized_target():
    # paulin2025's localized target U(x) + (lam/2)(x - c)^2, one centre per chain, on the 1-D
    # gaussian_points posterior N(0.375, 1/4): per chain the target is N(m_c, 1/(4 + lam)) with
    # m_c = (4 * 0.375 + lam c) / (4 + lam). Exact draws give T = 1; ignoring the localization
    # (the base target alone) does not.
    from omegaconf import OmegaConf

    from bnnsample.potential import Localized

    cfg = OmegaConf.to_container(compose_cfg(["dataset=gaussian_points"]), resolve=True)
    pot, _ = rebuild_target(cfg)
    lam, C, P = 3.0, 40, 100
    rng = np.random.default_rng(2)
    centers = rng.normal(0.0, 2.0, (C, 1))
    prec = 4.0 + lam
    means = (4.0 * 0.375 + lam * centers) / prec
    x = means[:, None, :] + rng.standard_normal((C, P, 1)) / math.sqrt(prec)  # (C, P, 1)
    flat = torch.as_tensor(x.reshape(C * P, 1))
    loc = (torch.as_tensor(np.repeat(centers, P, axis=0)), lam)
    t = temperature_terms(pot, flat, localization=loc)
    # the same terms as the project's Localized potential, point by point
    localized = Localized(pot, loc[0], lam)
    g = localized.force(flat, None, 1.0)
    ref = {"virial": (flat * g).sum(1), "grad_sq": (g * g).sum(1),
           "laplacian": localized.hvp(flat, torch.ones_like(flat), None, 1.0)[:, 0]}  # fmt: skip
    for k in ("virial", "grad_sq", "laplacian"):
        np.testing.assert_allclose(t[k], ref[k].numpy(), rtol=1e-12)
    rugh = t["grad_sq"].mean() / t["laplacian"].mean()
    se = np.std(t["grad_sq"] / t["laplacian"], ddof=1) / math.sqrt(C * P)  # Laplacian constant here
    assert abs(rugh - 1) < 4 * se, (rugh, se)
    base = temperature_terms(pot, flat)
    assert abs(base["grad_sq"].mean() / base["laplacian"].mean() - 1) > 20 * se
