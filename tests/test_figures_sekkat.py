"""The sekkat2023 figure recipes' computational cores at tiny size: exact stationary variances
(checked against Monte Carlo runs of the project's integrators, with power), the quadrature
and L2(pi) projections (known answers), option validation and the files a recipe writes."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from bnnsample.analysis import quadrature as q
from bnnsample.figures import recipes
from bnnsample.figures import sekkat2023 as S
from bnnsample.models.analytic import GaussianMean
from bnnsample.simulate import build_target


@pytest.fixture(scope="module")
def gaussian():
    pot = build_target(["dataset=gaussian_mean", "dataset.variant=sekkat"], seed=0).potential
    return pot, S.gaussian_model(pot)


def test_gaussian_model_constants(gaussian):
    pot, gm = gaussian
    y = pot.prec_y[:, 0].numpy()  # noise sd 1: P_i y_i = y_i
    assert gm.a == pytest.approx(101.0)
    assert gm.sigma_x == pytest.approx(np.var(y, ddof=1), rel=1e-12)  # eq. 40, sigma_x = 1
    assert gm.mu == pytest.approx(y.sum() / 101.0, rel=1e-12)  # eq. 39


def test_exact_variances_first_order(gaussian):
    """(41) and (42) are the first-order expansions of the exact values (derived for this project)."""
    _, gm = gaussian
    h, eps = 1e-5, 1900.0
    first = eps * h * gm.sigma_x / 2
    lang = S.exact_relative_error("langevin", gm, eps, h)
    sgld = S.exact_relative_error("sgld", gm, eps, h)
    assert lang == pytest.approx(first, rel=1e-3)
    assert sgld == pytest.approx(first + h * gm.a / 2, rel=1e-3)
    # SGLD closed form = the geometric series of the linear recursion
    a, es = gm.a, eps * gm.sigma_x
    h = 2e-3
    series = sum((1 - a * h) ** (2 * k) for k in range(20000)) * (2 * h + h * h * es)
    assert S.sgld_variance(a, es, h) == pytest.approx(series, rel=1e-10)
    # full-gradient OABAO is O(h^2) on the Gaussian, far below the minibatch term
    assert abs(S.exact_relative_error("langevin", gm, 0.0, 2e-3)) < 1e-3 * S.exact_relative_error(
        "langevin", gm, 100, 2e-3
    )


@pytest.mark.parametrize(
    "scheme,batching,burn,time_,wrong_eps",
    [("sgld", "iid_wor", 0.3, 1.0, 0.8), ("langevin", "iid", 2.0, 4.0, 0.0)],
)
def test_run_matches_exact_variance(gaussian, scheme, batching, burn, time_, wrong_eps):
    """A short many-chain run of the project's integrator lies within 4 SE of the exact
    stationary variance, and > 8 SE from the value with eps(n) scaled by ``wrong_eps`` (power:
    SGLD resolves a 20% error in eps(n); Langevin, slower to decorrelate, the unbiased value)."""
    pot, gm = gaussian
    h, n, C = 2e-3, 5, 200
    x0, v0 = S._gaussian_start(gm, C, 3)
    name, params = S.SCHEMES[scheme]
    run = S.simulate(pot, name, params, batching, n, h, x0, v0, burn=round(burn / h), draws=100,
                     thin=round(time_ / h) // 100, seed=11)  # fmt: skip
    _, se, signed = S.variance_error(run.x[:, :, 0], gm.var)
    eps = S.eps_of(pot.n_data, n, batching)
    exact = S.exact_relative_error(scheme, gm, eps, h)
    assert abs(signed - exact) < 4 * se, (signed, exact, se)
    wrong = S.exact_relative_error(scheme, gm, eps * wrong_eps, h)
    assert abs(wrong - exact) > 8 * se


def test_quadrature_on_gaussian_target():
    """2-D Gaussian mean (posterior known, Sigma_x = the data covariance, constant): the
    grid marginal is the exact normal density; the full-matrix projection error is 0 and the
    scalar one is ||Sigma - tr(Sigma)/2 I||_F."""
    g = torch.Generator().manual_seed(0)
    y = torch.randn(50, 2, generator=g, dtype=torch.float64) * torch.tensor([0.5, 1.5], dtype=torch.float64) + 0.3
    pot = GaussianMean(y, torch.ones(50, dtype=torch.float64), prior_precision=1.0)
    mean, cov = (t.numpy() for t in pot.exact_posterior())
    grid = q.posterior_grid(pot, box=((-0.5, 1.2), (-0.5, 1.2)), cells=200)
    t = np.linspace(mean[0] - 0.2, mean[0] + 0.2, 7)
    exact = np.exp(-((t - mean[0]) ** 2) / (2 * cov[0, 0])) / math.sqrt(2 * math.pi * cov[0, 0])
    np.testing.assert_allclose(q.marginal_density_at(grid)(t), exact, rtol=2e-3)
    pts = grid.points[::97]
    sig = q.gradient_covariance(pot, pts)
    ycov = np.cov(y.numpy().T, ddof=1)
    np.testing.assert_allclose(sig, np.broadcast_to(ycov, sig.shape), rtol=1e-10)
    w = np.ones(len(pts))
    assert q.projection_error(sig, w, "full") < 1e-12
    dev = ycov - np.trace(ycov) / 2 * np.eye(2)
    assert q.projection_error(sig, w, "scalar") == pytest.approx(np.sqrt((dev**2).sum()), rel=1e-10)
    assert q.projection_error(sig, w, "diagonal") == pytest.approx(math.sqrt(2) * abs(ycov[0, 1]), rel=1e-10)
    with pytest.raises(ValueError, match="allowed values"):
        q.projection_error(sig, w, "bogus")


def test_projection_with_basis_recovers_position_dependent_sigma():
    """Sigma(theta) = f(theta) M lies in the span of the basis {1, f}: projection error 0;
    with the constant only it is ||M|| sd_pi(f) (least squares by hand)."""
    rng = np.random.default_rng(1)
    pts = rng.random((400, 2))
    f = 1 + pts[:, 0] ** 2
    M = np.array([[2.0, 0.3], [0.3, 1.0]])
    sig = f[:, None, None] * M
    w = rng.random(400)
    basis = np.stack([np.ones(400), f], 1)
    assert q.projection_error(sig, w, "full", basis) < 1e-10
    wn = w / w.sum()
    sd = math.sqrt((wn * (f - (wn * f).sum()) ** 2).sum())
    assert q.projection_error(sig, w, "full") == pytest.approx(np.sqrt((M**2).sum()) * sd, rel=1e-10)


def test_mixture_projection_errors_nested():
    """sekkat2023 §4.3: nested classes give non-increasing projection errors (Remark 15, Theorem 17);
    the full-matrix value on our data set is the paper's 0.57 to two digits."""
    ref = S.mixture_reference(cells=120, with_sigma=True)
    p = S.projection_errors(ref)
    assert p["full"] <= p["diagonal"] <= p["scalar"]
    assert p["K=0"] >= p["K=3"] >= p["K=15"] >= p["K=35"]
    assert p["K=15"] < 0.2 * p["K=3"]
    assert p["full"] == pytest.approx(0.57, abs=0.03)
    assert ref.grid.mass_in(0.0, 1.4) > 0.9999


def test_mixture_row_and_floor():
    """A tiny eAdL run on the mixture gives a finite L1 error in [0, 2], and exact posterior
    draws have an L1 error at the level of the bootstrap floor (it is a noise estimate)."""
    ref = S.mixture_reference(cells=120)
    row = S.mixture_row(ref, "eadl", {"edges": S.EDGES, "degree": 1, "friction_kind": "full"}, "iid_wor", 15, 3e-3,
                        chains=20, burn_time=0.06, time_=0.06, seed=5, label="eadl", draws=20)  # fmt: skip
    assert 0 < row["l1"] < 2 and row["eps"] == pytest.approx(200 * 185 / 15)
    exact = ref.grid.sample(200 * 50, np.random.default_rng(2))[:, 0].reshape(200, 50)
    floor = S.l1_floor(exact, ref, seed=3)
    assert 0.5 * floor < S.l1_error(exact, ref) < 2.0 * floor


def test_recipes_registered_and_options(tmp_path):
    ids = [f"sekkat2023-fig{k}" for k in (3, 4, 5, 7, 13, 14)]
    all_ = recipes()
    for i in ids:
        assert i in all_
        with pytest.raises(ValueError, match="allowed"):
            all_[i].make(tmp_path, {"bogus": "1"})
        with pytest.raises(ValueError, match="scale"):
            all_[i].make(tmp_path, {"scale": "huge"})


def test_fig5_recipe_tiny(tmp_path, monkeypatch):
    monkeypatch.setitem(S.FIG5, "quick", {"h": (1e-2,), "n": (20, 50), "chains": 16, "burn": 0.2, "time": 0.2})
    files = S.make_fig5(tmp_path, {})
    assert all(p.exists() for p in files)
    text = (tmp_path / "REPRODUCTION.md").read_text()
    assert "<!-- begin sekkat2023-fig5 -->" in text and "| E[xi] = gamma" in text
    rows = (tmp_path / "sekkat2023-fig5" / "fig5.csv").read_text().splitlines()
    assert len(rows) == 3
