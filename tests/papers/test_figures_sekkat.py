"""The sekkat2023 figure recipes' computational cores at tiny size: exact stationary variances
(checked against Monte Carlo runs of the project's integrators, with power), the quadrature
and L2(pi) projections (known answers), option validation and the files a recipe writes."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch

from bnnsample.figures.claims import SOURCES, VERDICTS
from bnnsample.figures.common import read_sections, verdict_counts
from bnnsample.models.analytic import GaussianMean
from bnnsample.papers import recipes
from bnnsample.papers.sekkat2023 import chains, fig1, fig2, fig3, fig4, fig5, fig7, fig13, fig14, mixture, shared
from bnnsample.papers.sekkat2023 import gaussian as exact
from bnnsample.papers.sekkat2023 import mixture_runs as exact_mixture
from bnnsample.papers.sekkat2023 import quadrature as q
from bnnsample.rundir import read_csv
from bnnsample.simulate import build_target
from bnnsample.stats import chain_histogram_counts, l1_difference_se, l1_of_counts


@pytest.fixture(scope="module")
def gaussian():
    pot = build_target(["dataset=gaussian_mean", "dataset.variant=sekkat"], seed=0).potential
    return pot, exact.gaussian_model(pot)


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
    lang = exact.exact_relative_error("langevin", gm, eps, h)
    sgld = exact.exact_relative_error("sgld", gm, eps, h)
    assert lang == pytest.approx(first, rel=1e-3)
    assert sgld == pytest.approx(first + h * gm.a / 2, rel=1e-3)
    # SGLD closed form = the geometric series of the linear recursion
    a, es = gm.a, eps * gm.sigma_x
    h = 2e-3
    series = sum((1 - a * h) ** (2 * k) for k in range(20000)) * (2 * h + h * h * es)
    assert exact.sgld_variance(a, es, h) == pytest.approx(series, rel=1e-10)
    # full-gradient OABAO is O(h^2) on the Gaussian, far below the minibatch term
    assert abs(exact.exact_relative_error("langevin", gm, 0.0, 2e-3)) < 1e-3 * exact.exact_relative_error(
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
    x0, v0 = chains._gaussian_start(gm, C, 3)
    name, params = fig3.SCHEMES[scheme]
    run = chains.run_chains(pot, name, params, batching, n, h, x0, v0, burn=round(burn / h), draws=100,
                          thin=round(time_ / h) // 100, seed=11)  # fmt: skip
    _, se, signed = chains.variance_error(run.x[:, :, 0], gm.var)
    eps = chains.eps_of(pot.n_data, n, batching)
    want = exact.exact_relative_error(scheme, gm, eps, h)
    assert abs(signed - want) < 4 * se, (signed, want, se)
    wrong = exact.exact_relative_error(scheme, gm, eps * wrong_eps, h)
    assert abs(wrong - want) > 8 * se


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
    ref = exact_mixture.mixture_reference(cells=120, with_sigma=True)
    p = exact_mixture.projection_errors(ref)
    assert p["full"] <= p["diagonal"] <= p["scalar"]
    assert p["K=0"] >= p["K=3"] >= p["K=15"] >= p["K=35"]
    assert p["K=15"] < 0.2 * p["K=3"]
    assert p["full"] == pytest.approx(0.57, abs=0.03)
    assert ref.grid.mass_in(0.0, 1.4) > 0.9999


def test_mixture_row_and_floor():
    """A tiny eAdL run on the mixture gives a finite L1 error in [0, 2] with a bootstrap s.e., and
    exact posterior draws have an L1 error at the level of the bootstrap floor (it is a noise
    estimate)."""
    ref = exact_mixture.mixture_reference(cells=120)
    row = exact_mixture.mixture_row(ref, "eadl", {"edges": exact_mixture.EDGES, "degree": 1, "friction_kind": "full"}, "iid_wor",
                                    15, 3e-3, chains=20, burn_time=0.06, time_=0.06, seed=5, label="eadl", draws=20)  # fmt: skip
    assert 0 < row["l1"] < 2 and row["eps"] == pytest.approx(200 * 185 / 15)
    assert 0 < row["l1_se"] < row["l1"]
    exact = ref.grid.sample(200 * 50, np.random.default_rng(2))[:, 0].reshape(200, 50)
    floor, se = exact_mixture.l1_floor(exact, ref, seed=3)
    assert 0.5 * floor < exact_mixture.l1_error(exact, ref) < 2.0 * floor
    # the L1 error's bootstrap s.e. is a fluctuation of the error, far below its noise level
    assert 0 < se < 0.5 * floor


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
    monkeypatch.setitem(fig5.FIG5, "quick", {"h": (1e-2,), "n": (20, 50), "chains": 16, "burn": 0.2, "time": 0.2})
    files = recipes()["sekkat2023-fig5"].make(tmp_path, {})
    assert all(p.exists() for p in files)
    text = (tmp_path / "REPRODUCTION.md").read_text()
    assert "<!-- begin sekkat2023-fig5 -->" in text and "| E[xi] = gamma" in text
    section = read_sections(text)["sekkat2023-fig5"]
    counts = verdict_counts(section)
    claims = [c for c in fig5.FIG5_CLAIMS.values() if c.source != "check"]
    assert sum(counts[v] for v in VERDICTS) == len(claims) == sum(counts[s] for s in SOURCES)
    assert all(f"| {c.text} | {c.where} |" in section for c in claims)
    rows = (tmp_path / "sekkat2023-fig5" / "fig5.csv").read_text().splitlines()
    assert len(rows) == 3


ALL_CLAIMS = {"fig3": fig3.FIG3_CLAIMS, "fig4": fig4.FIG4_CLAIMS, "fig5": fig5.FIG5_CLAIMS, "fig7": fig7.FIG7_CLAIMS,
              "fig13": fig13.FIG13_CLAIMS, "fig14": fig14.FIG14_CLAIMS}  # fmt: skip


@pytest.mark.parametrize("fig", sorted(ALL_CLAIMS))
def test_claims_tables_are_filled(fig):
    """Every claim names where the paper makes it, the paper's value and its source; paper claims
    (not checks) say what counts as agreement."""
    for key, c in ALL_CLAIMS[fig].items():
        assert c.text and c.where and c.paper, (fig, key)
        assert c.source in (*SOURCES, "check"), (fig, key)
        assert c.source == "check" or c.tolerance, (fig, key)
        assert "digest" not in c.where + c.method and "shared" not in c.where + c.method


def _mix(scheme, h, n, l1, se=0.005, floor=0.05, **extra):
    return {"scheme": scheme, "sampling": "wor", "h": h, "n": n, "eps": 200 * (200 - n) / n,
            "eps_h": 200 * (200 - n) / n * h, "l1": l1, "l1_se": se, "l1_noise_floor": floor, "chains": 400,
            "exact_mass_gt_0.7": 0.365, **extra}  # fmt: skip


def _verdicts(outcomes):
    return {c.text: o.verdict for c, o in outcomes}


def _fig7_rows(full_l1, scalar_l1, langevin_l1=0.6):
    st = fig7.FIG7["quick"]
    rows = [_mix("adl_full", h, n, full_l1(h, n)) for h in st["h"] for n in st["n"]]
    rows += [_mix("adl_scalar", h, n, scalar_l1(h, n)) for h in st["h"] for n in st["n"]]
    return rows + [_mix("langevin", h, n, langevin_l1) for n, h in st["langevin"]]


PROJ = {"scalar": 1.16, "diagonal": 0.82, "full": 0.57}
BY_DATA = [{"scalar": 1.2 + 0.1 * k, "diagonal": 0.8, "full": 0.57 + 0.01 * k} for k in range(-4, 5)]


def test_fig7_ratio_at_the_noise_floor_is_not_measured():
    """Issue 16: where the full-matrix errors sit at their noise floor, the scalar/full ratio is not
    measured (not tested: scale) unless the scalar errors bound it above the band (the thirtieth audit: then it
    is a measured 'not within'); it is measured where both are resolved, and partly when only some settings are."""
    st = fig7.FIG7["quick"]
    ratio = fig7.FIG7_CLAIMS["ratio"].text
    at_floor = _fig7_rows(lambda h, n: 0.05, lambda h, n: 0.08)  # ratio at most (0.08 - 0.01 - 0.05) / 0.06
    out = _verdicts(fig7.fig7_outcomes(at_floor, PROJ, BY_DATA, st, "quick"))
    assert out[ratio] == "not tested: scale"
    far = _fig7_rows(lambda h, n: 0.05, lambda h, n: 0.05 + 1000 * h)  # scalar 1.05 / 3.05: ratio >= 16
    assert _verdicts(fig7.fig7_outcomes(far, PROJ, BY_DATA, st, "quick"))[ratio] == "not reproduced"
    resolved = _fig7_rows(lambda h, n: 0.05 + 50 * h, lambda h, n: 0.05 + 100 * h)  # ratio 1.4..1.7 ~ 2.0
    assert _verdicts(fig7.fig7_outcomes(resolved, PROJ, BY_DATA, st, "quick"))[ratio] == "reproduced"
    one = _fig7_rows(lambda h, n: 0.05 + 50 * h * (h == 3e-3 and n == 5), lambda h, n: 0.05 + 100 * h)
    assert _verdicts(fig7.fig7_outcomes(one, PROJ, BY_DATA, st, "quick"))[ratio] == "partly"
    off = _fig7_rows(lambda h, n: 0.05 + 10 * h, lambda h, n: 0.05 + 200 * h)  # ratio ~ 3.5..5, twice ours
    assert _verdicts(fig7.fig7_outcomes(off, PROJ, BY_DATA, st, "quick"))[ratio] == "not reproduced"
    # projection errors: the paper's value against the spread over data sets
    assert out[fig7.FIG7_CLAIMS["proj_full"].text] == "reproduced"
    far = [{**d, "scalar": 0.9 + 0.01 * k} for k, d in enumerate(BY_DATA)]
    assert _verdicts(fig7.fig7_outcomes(at_floor, PROJ, far, st, "quick"))[
        fig7.FIG7_CLAIMS["proj_scalar"].text
    ].startswith("not reproduced (")


def test_fig7_linear_tiers():
    """'Linear in x = eps h ||Sigma - S*|| when small': reproduced when linear over every resolved setting,
    partly when only over the smaller half of x, not reproduced when over neither."""
    st, lin = fig7.FIG7["quick"], fig7.FIG7_CLAIMS["linear"].text
    scale = {"full": 0.57, "scalar": 1.16}

    def verdict(f):
        rows = _fig7_rows(lambda h, n: f(200 * (200 - n) / n * h * scale["full"]),
                          lambda h, n: f(200 * (200 - n) / n * h * scale["scalar"]))  # fmt: skip
        return _verdicts(fig7.fig7_outcomes(rows, PROJ, BY_DATA, st, "quick"))[lin]

    assert verdict(lambda x: 0.1 + 0.01 * x) == "reproduced"
    # linear up to x = 3 (the smaller half of these settings' x, 0.34..2.86), flat at 0.13 beyond
    assert verdict(lambda x: 0.1 + 0.01 * min(x, 3.0)) == "partly"
    assert verdict(lambda x: 0.1 + 0.05 * abs(math.sin(3 * x))) == "not reproduced"


def test_fig7_through_origin_tells_affine_from_proportional():
    """The thirty-ninth audit: the 'linear' tier is an affine fit; the reason says what a fit of L1 - floor through
    the origin gives, and whether a proportional bias fits inside every setting's [L1 - floor, L1] bracket."""

    def pts(y, floor=0.03, se=0.002):
        return [(x, {"l1": floor + y(x), "l1_se": se, "l1_noise_floor": floor}) for x in (1.0, 2.0, 4.0, 8.0)]

    prop = fig7.through_origin(pts(lambda x: 0.01 * x))
    assert "chi^2 0.0 on 3 dof" in prop and "intercept 0.000 ± 0.00" in prop and "not empty" in prop
    off = fig7.through_origin(pts(lambda x: 0.04 + 0.01 * x))  # an offset above the floor of 0.04 (20 s.e.)
    assert "intercept 0.040 ± 0.00" in off and "empty by" in off and "chi^2 0.0 on 3 dof" not in off


def _fig14_rows(l1, se=0.005, mass=0.365):
    st = fig14.FIG14["quick"]
    return [_mix("eadl", h, n, l1(K, n), se, K=K, **{"mass_theta1_gt_0.7": mass}) for h in st["h"] for n in st["n"]
            for K in (0, 3, 15, 35)]  # fmt: skip


def _fric(A=1.0, n=(5, 15), h=(1e-3, 1e-2)):
    """fig7.csv's full-matrix AdL rows with mean friction A (a function of (n, h), or one value)."""
    a = A if callable(A) else (lambda n_, h_: A)
    return [{"scheme": "adl_full", "n": k, "h": v, "friction_mean": a(k, v)} for k in n for v in h]


def test_fig14_verdicts_follow_the_measured_changes():
    """Drops count only beyond 2 s.e.; a residual far above half the AdL excess is a measured
    disagreement (the n = 5 case of issue 16), one at the floor agrees."""
    st, proj = fig14.FIG14["quick"], {"K=0": 0.57, "K=3": 0.56, "K=15": 0.03, "K=35": 0.01}
    C = fig14.FIG14_CLAIMS
    clear = {0: 0.30, 3: 0.20, 15: 0.06, 35: 0.055}
    out = _verdicts(fig14.fig14_outcomes(_fig14_rows(lambda K, n: clear[K]), proj, st, "quick", _fric()))
    assert out[C["k3"].text] == out[C["k15"].text] == out[C["residual"].text] == "reproduced"
    assert out[C["monotone"].text] == "passed"
    noisy = _verdicts(fig14.fig14_outcomes(_fig14_rows(lambda K, n: clear[K], se=0.05), proj, st, "quick", _fric()))
    assert noisy[C["k3"].text] == "not tested: scale"
    # AdL at its floor: untested rows show what was measured and what a test would cost (audit of 2026-11-29)
    floor = dict(fig14.fig14_outcomes(_fig14_rows(lambda K, n: 0.05, se=0.02), proj, st, "paper", _fric()))
    residual, k15 = floor[C["residual"]], floor[C["k15"]]
    assert (
        residual.verdict == "not tested: scale"
        and "K=35" in residual.ours
        and "within 2 s.e. of its floor" in residual.ours
    )
    assert k15.ours.startswith(fig14.ETA1_OURS)
    assert "a floor 4x lower needs 16x the chains of every setting" in residual.why and "CPU-hours" in residual.why
    assert "chains x recorded time" not in residual.why  # the split between the modes does not fall with the record
    # the mode weights exact everywhere: the files do not decide whether 16x the chains resolves the claim (the
    # thirty-first audit: until then 'that test would likely leave the claim untested' here too)
    assert "the files do not decide" in residual.why and "would likely leave" not in residual.why
    n5_stuck = {0: 0.30, 3: 0.24, 15: 0.17, 35: 0.31}
    mixed = _fig14_rows(lambda K, n: n5_stuck[K] if n == 5 else clear[K], se=0.02)
    out = _verdicts(fig14.fig14_outcomes(mixed, proj, st, "quick", _fric()))
    assert out[C["residual"].text] == "partly"
    both = _verdicts(fig14.fig14_outcomes(_fig14_rows(lambda K, n: n5_stuck[K], se=0.02), proj, st, "quick", _fric()))
    assert both[C["residual"].text].startswith("not reproduced (")


def _fig13_rows(friction_mean, burn=1500):
    rows = []
    for n, l1 in ((500, 0.05), (10, 1.2), (50, 0.8), (250, 0.2)):
        for kind, f in (("diagonal", 0.9), ("groups", 1.0)):
            rows.append({"friction": kind, "sampling": "full" if n == 500 else "wor", "h": 1e-2, "n": n,
                         "eps_h": 0.0 if n == 500 else 500 * (500 - n) / n * 1e-2, "l1": l1 * f,
                         "friction_mean": friction_mean[kind], "burn_steps": burn, "steps": burn + 4500,
                         "seconds": 1.0, "l1_se": 0.004, "l1_minus_groups_se": 0.005})  # fmt: skip
    return rows


def test_fig13_short_runs_are_not_tests():
    """Issue 16: a burn-in shorter than 3 relaxation times A eta of the diagonal friction leaves
    every row untested (scale), with the steps it would take; a long enough one is measured."""
    st = fig13.FIG13["quick"]
    short = fig13.fig13_outcomes(_fig13_rows({"diagonal": 1.5, "groups": 3.6}), st)
    assert [o.verdict for _, o in short] == ["not tested: scale"] * 3
    assert all("a lower bound" in o.why and "2160" in o.why for _, o in short)  # 3 x 3.6 x 200 time units
    assert not any("CPU-hours" in o.why for _, o in short)  # a cost from a lower-bound A would mislead
    out = _verdicts(fig13.fig13_outcomes(_fig13_rows({"diagonal": 1.2, "groups": 1.25}, burn=300_000), st))
    C = fig13.FIG13_CLAIMS
    assert out[C["grows"].text] == out[C["diag_better"].text] == out[C["xi_mean"].text] == "reproduced"


def test_fig13_names_the_cells_past_their_own_relaxation_time():
    """The note lists the (n, h) cells whose frictions are stationary (burn-in past 3 A eta, A = the larger mean
    friction of the cell's two runs) with their values, and the others with what they need."""
    rows = _fig13_rows({"diagonal": 1.2, "groups": 1.25}, burn=300_000)  # 3,000 time units
    for r in rows:  # n = 10 runs hot: A = 20 needs 3 x 20 x 200 = 12,000 time units
        if r["n"] == 10:
            r["friction_mean"] = 20.0
    text = fig13._fig13_stationary_cells(rows, fig13.FIG13["quick"])
    past, pending = text.split("not:")
    assert "n=250 h=0.01 (burn-in 3000 time units, 3 A eta = 750)" in past and "n=50 h=0.01" in past
    assert "n=10" not in past and "n=250" not in pending
    assert (
        "n=10 h=0.01: burn-in 3000 time units vs 3 A eta = 12000 (A = 20.00 as these runs measured it, a lower"
        in pending
    )


def test_fig13_an_unresolved_difference_is_not_a_verdict():
    """diagonal < groups at the smallest eps h counts only beyond 2 s.e. of the difference; within, the row is
    not tested (scale) and says how many times the chains would resolve it."""
    rows = _fig13_rows({"diagonal": 1.2, "groups": 1.25}, burn=300_000)  # n = 250: 0.18 vs 0.20
    for r in rows:
        r["l1_minus_groups_se"] = 0.015
    out = dict((c.text, o) for c, o in fig13.fig13_outcomes(rows, fig13.FIG13["quick"]))
    o = out[fig13.FIG13_CLAIMS["diag_better"].text]
    assert o.verdict == "not tested: scale" and "2x the draws" in o.why  # (2 x 0.015 / 0.02)^2 = 2.25
    assert out[fig13.FIG13_CLAIMS["grows"].text].verdict == "reproduced"


def test_fig13_bootstrap_counts_give_the_l1_of_eq_44():
    """The chains' histogram counts pooled give the L1 error of the pooled samples; the bootstrap s.e. of the
    difference is smaller than the two s.e. combined when the reference is shared (its noise cancels)."""
    rng = np.random.default_rng(1)
    a, b, ref = rng.beta(2, 3, (8, 50)), rng.beta(2, 2.5, (8, 50)), rng.beta(2, 3, (8, 50))
    counts = [chain_histogram_counts(p, 20) for p in (a, ref)]
    assert np.isclose(l1_of_counts(*counts), fig13._hist_l1(a, ref, 20))
    sa, sb, sd = l1_difference_se(a, b, ref, 20)
    assert 0 < sd < np.hypot(sa, sb) and sa > 0 and sb > 0


def test_fig13_a_longer_burn_in_at_one_batch_size_is_judged_per_cell():
    """burn_n gives the runs of one batch size their own burn-in (the others and the full-batch reference keep
    the scale's) and runs them again at the scale's as a check; each (n, h) is held to 3 A eta of its own
    frictions, so one that burned in long enough passes."""
    st = dict(fig13.FIG13["quick"], burn=300_000, burn_n={10: 1_300_000})
    plan = fig13.fig13_plan(st, 500)
    assert {(smp, n, kw["burn"]) for smp, _, n, _, kw in plan} == {
        ("full", 500, 300_000), ("wor", 10, 1_300_000), ("wor", 50, 300_000), ("wor", 250, 300_000),
        ("check", 10, 300_000)}  # fmt: skip
    seeds = {(smp, kind, n): kw["seed"] for smp, kind, n, _, kw in plan}
    assert seeds[("check", "diagonal", 10)] == seeds[("wor", "diagonal", 10)]  # the same chains, burned in less
    rows = _fig13_rows({"diagonal": 1.2, "groups": 1.25}, burn=300_000)
    for r in rows:  # A = 20 at n = 10: 12,000 time units, which 1.3M steps of h = 0.01 pass
        if r["n"] == 10:
            r["friction_mean"], r["burn_steps"] = 20.0, 1_300_000
    assert fig13._unsettled(rows, st) == {}
    rows[2]["burn_steps"] = rows[3]["burn_steps"] = 300_000
    assert (
        "3 A eta = 12000 (A = 20.00 as these runs measured it, a lower bound" in fig13._unsettled(rows, st)[(10, 0.01)]
    )


def test_fig13_more_draws_at_one_batch_size_keep_the_others_runs():
    """draws_n records more draws per chain at one batch size and for the full-batch reference (n = N), at the
    same thinning; every other run keeps the arguments it had, so its kept cell is read back."""
    st = dict(fig13.FIG13["relaxed"], draws_n={250: 1600, 500: 1600})
    base = {(smp, kind, n): kw for smp, kind, n, _, kw in fig13.fig13_plan(dict(st, draws_n={}), 500)}
    for smp, kind, n, _, kw in fig13.fig13_plan(st, 500):
        assert kw["thin"] == st["steps"] // fig13.DRAWS
        assert kw == (dict(base[(smp, kind, n)], draws=1600) if n in (250, 500) else base[(smp, kind, n)])
    assert "1600 over 17600 steps at n = 250" in fig13._draws_n_text(st)


def test_fig13_a_friction_still_moving_since_the_check_is_not_counted():
    """A cell whose friction mean moved by more than 10% between the scale's burn-in and its own is not
    stationary: the claims are judged on the other cells, and what holds there is partly."""
    rows = _fig13_rows({"diagonal": 1.2, "groups": 1.25}, burn=300_000)
    for r in [r for r in rows if r["n"] == 10]:
        r["burn_steps"] = 8_000_000
        rows.append({**r, "sampling": "check", "burn_steps": 300_000,
                     "friction_mean": r["friction_mean"] * (0.5 if r["friction"] == "diagonal" else 1.05)})  # fmt: skip
    st = fig13.FIG13["quick"]
    why = fig13._unsettled(rows, st)[(10, 0.01)]
    assert "diagonal friction's mean moved from 0.60 after 3000 time units of burn-in to 1.20 after 80000" in why
    assert "groups" not in why  # 5% is within the 10%
    out = _verdicts(fig13.fig13_outcomes(rows, st))
    C = fig13.FIG13_CLAIMS
    assert out[C["grows"].text] == out[C["xi_mean"].text] == "partly"  # hold over n = 50, 250
    assert out[C["diag_better"].text] == "reproduced"  # at n = 250, resolved and stationary


def test_fig13_diag_better_states_its_tiers_and_the_margin_past_3_A_eta():
    """fig13#2 (seventeenth audit): the tolerance states its tiers and that the smallest-eps(n) h cell must be
    stationary; the reason gives the burn-in against 3 A eta for the mean friction and, from the coordinates' sd,
    Samuelson's bound on the largest."""
    rows = _fig13_rows({"diagonal": 1.2, "groups": 1.25}, burn=300_000)
    for r in rows:
        r["friction_coord_sd"] = 0.5
    o = dict(fig13.fig13_outcomes(rows, fig13.FIG13["quick"]))[fig13.FIG13_CLAIMS["diag_better"]]
    top = 1.25 + 0.5 * math.sqrt(31)
    assert o.verdict == "reproduced" and "burn-in 3000 time units vs 3 A eta = 750 (A = 1.25" in o.why
    assert f"at most mean + sd sqrt(31) = {top:.2f}" in o.why and f"<= {3 * top * 200:.0f}, also below" in o.why
    for r in rows:
        r["friction_coord_sd"] = 3.0  # 3 (1.25 + 3 sqrt 31) 200 > 3000
    o = dict(fig13.fig13_outcomes(rows, fig13.FIG13["quick"]))[fig13.FIG13_CLAIMS["diag_better"]]
    assert "not below the burn-in: the slowest coordinates are not shown relaxed" in o.why
    t = fig13.FIG13_CLAIMS["diag_better"].tolerance
    assert "reproduced: below beyond 2 s.e. at every h; partly: at some h" in t and "not shown stationary" in t


def test_fig13_an_l1_step_within_2_se_is_unresolved():
    """fig13#1 (twelfth audit): each step of the L1 to the next smaller n counts only beyond 2 s.e. of the step (the
    two cells' s.e. in quadrature); a series with a step within is unresolved, not counted: partly while another
    series is resolved, not tested when none is; a step the other way beyond 2 s.e. is a failure."""
    C = fig13.FIG13_CLAIMS
    st = fig13.FIG13["quick"]
    rows = _fig13_rows({"diagonal": 1.2, "groups": 1.25}, burn=300_000)
    assert fig13._step_z(rows[2], rows[4]) == pytest.approx((1.08 - 0.72) / np.hypot(0.004, 0.004))
    for r in rows:  # diagonal n = 50: 0.72 -> 0.19, 0.05 above n = 250's 0.18 ± 0.02 combined 0.0283: 0.35 s.e.
        if r["friction"] == "diagonal" and r["n"] in (50, 250):
            r["l1"], r["l1_se"] = (0.19, 0.02) if r["n"] == 50 else (0.18, 0.02)
    o = dict(fig13.fig13_outcomes(rows, st))[C["grows"]]
    assert o.verdict == "partly" and "1 of 2 series with a step within 2 s.e., unresolved, not counted" in o.why
    assert "diagonal h=0.01: n=10 1.080 ± 0.004, n=50 0.190 ± 0.020, n=250 0.180 ± 0.020 (steps to the smaller n: " \
           "+43.6, +0.4 s.e.)" in o.ours  # fmt: skip
    for r in rows:
        if r["friction"] == "groups" and r["n"] == 250:
            r["l1"], r["l1_se"] = 0.79, 0.02  # groups n = 50 0.80: within too
    assert dict(fig13.fig13_outcomes(rows, st))[C["grows"]].verdict == "not tested: scale"
    for r in rows:
        if r["friction"] == "groups" and r["n"] == 250:
            r["l1"], r["l1_se"] = 0.95, 0.02  # 0.15 above n = 50's 0.80: the other way, 7 s.e.
    assert dict(fig13.fig13_outcomes(rows, st))[C["grows"]].verdict.startswith("not reproduced")
    t = C["grows"].tolerance
    assert "a step within 2 s.e. leaves its series unresolved" in t and "since 2026-11-29, after the result" in t


def test_fig13_a_move_past_the_threshold_is_not_shown_stationary_and_a_test_is_costed():
    """fig13#1 (twelfth audit): a move past 10% of the earlier value, its noise unmeasured, is 'not shown stationary'
    with the move, the threshold and its denominator; the not-tested row says what a test takes: each such cell burned
    in as long again, at its runs' cost per step (seconds over steps)."""
    rows = _fig13_rows({"diagonal": 1.2, "groups": 1.25}, burn=300_000)
    for r in [r for r in rows if r["n"] in (10, 50)]:
        r["burn_steps"], r["steps"], r["seconds"] = 4_000_000, 4_004_400, 1800.0
        f = 1.104 if (r["friction"], r["n"]) == ("diagonal", 50) else 0.5 if r["friction"] == "diagonal" else 1.0
        rows.append({**r, "sampling": "check", "burn_steps": 1_330_000, "friction_mean": r["friction_mean"] / f})
    st = fig13.FIG13["quick"]
    why = fig13._unsettled(rows, st)[(50, 0.01)]
    assert "to 1.20 after 40000, by 0.113 (+10.4% of its earlier value) against a threshold of 0.109 (10% of the " \
           "earlier value); the move's noise is not measured: not shown stationary" in why  # fmt: skip
    o = dict(fig13.fig13_outcomes(rows, st))[fig13.FIG13_CLAIMS["grows"]]
    assert o.verdict == "not tested: scale" and o.why.startswith("not shown stationary, so not counted: ")
    assert "a test needs two batch sizes shown stationary (now n = 250): " in o.why
    # another 4,000,000 steps of both runs at 3,600 CPU-s per 4,004,400 steps: 59.9 CPU-minutes; 12,004,400 from 0
    assert "n=50: another 40000 time units of burn-in (to 80000, its move judged against these runs at 40000) is " \
           "about 60 CPU-minutes for its two runs" in o.why and ", 120 from theta = 0" in o.why  # fmt: skip
    assert "not shown non-stationary" in fig13.FIG13_CLAIMS["grows"].method
    assert "10% of their value at the earlier burn-in, the scale's (the drift test's denominator" in \
           fig13.FIG13_CLAIMS["grows"].method  # fmt: skip


def test_fig13_xi_mean_states_what_stationary_means_and_its_old_definition():
    """fig13#3 (twelfth audit): the row says what 'stationary' is (the move against the earlier value, since
    2026-11-29) and that under the previous definition n = 50 was set aside as unresolved, with the same verdict."""
    m = fig13.FIG13_CLAIMS["xi_mean"].method
    assert "moved by at most 10% of their value at the earlier burn-in (since 2026-11-29; before, 10% of the later" in m
    assert "n = 50 was set aside here as unresolved, within 0.006 of the edge against a move of 0.471: the same " \
           "verdict, partly" in m  # fmt: skip


def test_fig4_affine_needs_points_above_the_floor():
    st = fig4.FIG4["quick"]
    rows = [_mix("sgld", h, n, 0.055 + (h == 3e-4) * 0.2) for h in st["h"] for n in st["n"]]
    rows = [{**r, "eps": {5: 7800.0, 15: 2466.67, 50: 600.0}[r["n"]]} for r in rows]
    rows += [{**_mix("langevin", 1e-4, 15, 0.06), "eps": 2466.67}]
    out = _verdicts(fig4.fig4_outcomes(rows, st, "quick"))
    assert out[fig4.FIG4_CLAIMS["affine"].text] == "not tested: scale"
    assert out[fig4.FIG4_CLAIMS["sgld_langevin"].text] == "not tested: scale"
    lin = [{**r, "l1": 0.05 + 5e-6 * r["eps"], "l1_noise_floor": 0.02} if r["h"] == 1e-4 else r for r in rows]
    assert _verdicts(fig4.fig4_outcomes(lin, st, "quick"))[fig4.FIG4_CLAIMS["affine"].text] == "reproduced"
    # h <= 1e-4 above 0.1 at n = 5: counted, and the reason names the setting, its L1 and how many s.e. above 0.1
    regime = dict(fig4.fig4_outcomes(rows, st, "quick"))[fig4.FIG4_CLAIMS["regime"]]
    assert regime.verdict == "reproduced" and regime.why.startswith("5 of 5 conditions hold")
    worse = [{**r, "l1": 0.2} if r["h"] == 1e-4 and r["n"] == 5 else r for r in rows]
    regime = dict(fig4.fig4_outcomes(worse, st, "quick"))[fig4.FIG4_CLAIMS["regime"]]
    assert regime.verdict == "partly"
    assert "h=0.0001 wor n=5 0.200 ± 0.005 (floor 0.050) (20 s.e. above; L1 - floor 0.150)" in regime.why
    assert "h=0.0001: sgld" not in regime.ours and "h=0.0001: wor n=5 0.200" in regime.ours
    # a failure the histogram floor alone could make is named as not resolved (still counted)
    floor_only = [{**r, "l1": 0.13} if r["h"] == 1e-4 and r["n"] == 5 else r for r in rows]
    regime = dict(fig4.fig4_outcomes(floor_only, st, "quick"))[fig4.FIG4_CLAIMS["regime"]]
    assert regime.verdict == "partly" and "L1 - floor 0.080: not resolved at this floor" in regime.why
    assert "not reproduced: none hold" in fig4.FIG4_CLAIMS["regime"].tolerance


def test_fig14_eta1_numbers_are_its_committed_csv():
    """The eta_k = 1 run the fig14 rows quote: its settings, baseline errors and sampling time (the
    cost of a longer test) are those of the committed fig14_eta1.csv."""
    path = Path(__file__).parents[2] / "results" / "sekkat2023-fig14" / "fig14_eta1.csv"
    if not path.exists():
        pytest.skip("no committed fig14_eta1.csv")
    rows = read_csv(path)
    seconds = sum(r["seconds"] for r in rows)
    assert abs(fig14.ETA1_SECONDS - seconds) < 0.01
    steps = {round(r["steps"] * r["h"], 6) for r in rows}  # burn-in + record, in time units
    assert steps == {fig14.ETA1_BURN + fig14.FIG14["paper"]["time"]}
    assert f"for those {len(rows)} settings a record 10x as long about 2.2 CPU-hours, 100x about 21 (their sampling " \
           f"time, {seconds:.0f} CPU-s, 20 of whose 25 time units are recorded)" in fig14.ETA1_RESULT  # fmt: skip
    base = [r["l1"] for r in rows if r["K"] == 0 and r["n"] == 5 and r["sampling"] == "wor"]
    assert ", ".join(f"{v:.3f}" for v in base) in fig14.ETA1_RESULT


def test_fig14_eta1_verdicts_quoted_are_what_the_rules_give_on_fig14_eta1():
    """The rows quote what their rules give at the printed eta_k = 1 (judged with eta = 1 and the committed fig7.csv's
    frictions: no (n, h) stationary) and what the rule before 2026-11-29 gave (every (n, h) counted): recomputed here,
    with the 3 A eta_k range the K = 15 row states."""
    root = Path(__file__).parents[2] / "results"
    path = root / "sekkat2023-fig14" / "fig14_eta1.csv"
    if not path.exists() or not (root / "sekkat2023-fig7" / "fig7.csv").exists():
        pytest.skip("no committed fig14_eta1.csv or fig7.csv")
    rows = [{**r, "replica": 0} for r in read_csv(path)]
    proj = {f"K={r['K']}": r["projection_error"] for r in rows}
    st = {**fig14.FIG14["paper"], "burn": fig14.ETA1_BURN, "h": tuple(sorted({r["h"] for r in rows}))}
    fric = fig14.fig7_frictions(root)
    got = dict(fig14.fig14_outcomes(rows, proj, st, "paper", fric, eta=1.0))
    for key, verdict in fig14.ETA1_VERDICTS.items():
        assert got[fig14.FIG14_CLAIMS[key]].verdict == verdict
        assert f"was counted, which gave {fig14.ETA1_OLD[key]};" in got[fig14.FIG14_CLAIMS[key]].why
    A = sorted(fig14.mean_friction(fric, r["n"], r["h"]) for r in rows)
    assert f"{A[0]:.1f}-{A[-1]:.1f}: {3 * A[0]:.1f}-{3 * A[-1]:.1f} time units" in fig14.ETA1_RESULT
    assert 3 * A[0] > st["burn"]


def test_fig14_counts_only_resolved_stationary_cells():
    """The seventeenth audit: an (n, h) counts only where AdL's (K = 0) error is resolved above its floor and the
    burn-in passes 3 A eta (A from fig7.csv's full-matrix AdL); with none counted the rows are not tested and say
    what counting every (n, h) gave."""
    st, proj = fig14.FIG14["quick"], {"K=0": 0.57, "K=3": 0.56, "K=15": 0.03, "K=35": 0.01}
    C = fig14.FIG14_CLAIMS
    worse = {0: 0.30, 3: 0.20, 15: 0.30, 35: 0.31}  # K = 15 the other way beyond 2 s.e. at every (n, h)
    rows = _fig14_rows(lambda K, n: worse[K], se=0.01)
    settled = dict(fig14.fig14_outcomes(rows, proj, st, "quick", _fric(1.0)))
    assert settled[C["k15"]].verdict.startswith("not reproduced (")
    # A = 10: 3 A eta = 3 > the quick burn-in 2 at every (n, h): none counted
    hot = dict(fig14.fig14_outcomes(rows, proj, st, "quick", _fric(10.0)))
    for key in ("k3", "k15", "residual"):
        assert hot[C[key]].verdict == "not tested: scale" and "no (n, h) counted" in hot[C[key]].why
    assert "every (n, h) was counted, which gave not reproduced (" in hot[C["k15"]].why
    assert (
        "burn-in 2 vs 3 A eta = 3.0 (A = 10.0), mode weight +0.0 s.e. from the exact: not counted, not shown stationary"
        in hot[C["k15"]].why
    )
    assert "a test needs a burn-in past 3 A eta where not stationary" in hot[C["k15"]].why
    # no fig7 friction: not shown stationary either
    assert _verdicts(fig14.fig14_outcomes(rows, proj, st, "quick"))[C["k15"].text] == "not tested: scale"
    # one (n, h) stationary (n = 15), the other not: judged on the one
    mixed = dict(fig14.fig14_outcomes(rows, proj, st, "quick", _fric(lambda n, h: 1.0 if n == 15 else 10.0)))
    assert mixed[C["k15"]].verdict.startswith("not reproduced (") and "(5, 0.01)" in mixed[C["k15"]].why
    # AdL's error at its floor: no drop measurable, not counted though stationary
    flat = dict(fig14.fig14_outcomes(_fig14_rows(lambda K, n: 0.05, se=0.02), proj, st, "quick", _fric(1.0)))
    assert flat[C["k15"]].verdict == "not tested: scale" and "no drop measurable" in flat[C["k15"]].why


def test_fig14_does_not_count_frozen_mode_weights():
    """The twenty-second audit: an (n, h) whose AdL mode weight is off the exact by more than 2 binomial s.e. does
    not count (its error is the start-up's split between the modes, which the records do not mix); within 2 s.e.
    it counts."""
    st, proj = fig14.FIG14["quick"], {"K=0": 0.57, "K=3": 0.56, "K=15": 0.03, "K=35": 0.01}
    C = fig14.FIG14_CLAIMS
    worse = {0: 0.30, 3: 0.20, 15: 0.30, 35: 0.31}
    se = (0.365 * 0.635 / 400) ** 0.5  # binomial s.e. of the mass at _mix's 400 chains
    off = dict(fig14.fig14_outcomes(_fig14_rows(lambda K, n: worse[K], se=0.01, mass=0.365 + 2.5 * se), proj, st,
                                    "quick", _fric(1.0)))  # fmt: skip
    for key in ("k3", "k15", "residual"):
        assert off[C[key]].verdict == "not tested: scale" and "mode weights off" in off[C[key]].why
    assert "a test needs records in which the chains cross between the modes" in off[C["k15"]].why
    near = dict(fig14.fig14_outcomes(_fig14_rows(lambda K, n: worse[K], se=0.01, mass=0.365 + 1.5 * se), proj, st,
                                     "quick", _fric(1.0)))  # fmt: skip
    assert near[C["k15"]].verdict.startswith("not reproduced (")
    assert fig14.mode_z({"mass_theta1_gt_0.7": 0.39, "exact_mass_gt_0.7": 0.365, "chains": 1000,
                         "chains_seeds": 4000}) == pytest.approx(0.025 / (0.365 * 0.635 / 4000) ** 0.5)  # fmt: skip


def test_fig14_mean_friction_is_fig7s_linear_in_h():
    fric = _fric(lambda n, h: 10.0 if h == 1e-3 else 100.0)
    assert fig14.mean_friction(fric, 5, 1e-3) == 10.0
    assert fig14.mean_friction(fric, 5, 5.5e-3) == pytest.approx(55.0)
    assert fig14.mean_friction(fric, 5, 2e-2) is None and fig14.mean_friction(fric, 50, 1e-3) is None


def test_fig3_sgld_langevin_ratio_counts_within_2_se_of_the_band():
    """The SGLD / Langevin ratio agrees inside [0.8, 1.25] or within 2 s.e. of it (the 2026-11-29 noise allowance),
    and fails beyond; only settings with eps(n) Sigma_x >= 10 a are counted."""
    _, gm = chains.gaussian()
    rule = fig3.FIG3_CLAIMS.rules["sgld_langevin"]

    def rows(ratio, se):
        return [{"scheme": s, "sampling": "wor", "h": 1e-3, "n": 1, "eps": 9900.0, "exact": 1.0,
                 "rel_var_error": ratio if s == "sgld" else 1.0, "se": se if s == "sgld" else 1e-9}
                for s in ("sgld", "langevin")]  # fmt: skip

    assert rule(rows(1.2, 0.01), {}, gm).verdict == "reproduced"
    assert rule(rows(1.28, 0.02), {}, gm).verdict == "reproduced"  # 1.5 s.e. above the band
    assert rule(rows(1.35, 0.02), {}, gm).verdict.startswith("not reproduced")  # 5 s.e. above
    assert "nearest the band's edge 1.200 ± 0.010 (5.0 s.e. inside)" in rule(rows(1.2, 0.01), {}, gm).ours
    assert "our reading of the paper's eps(n) >> 1" in fig3.FIG3_CLAIMS["sgld_langevin"].tolerance


def _fig5_row(gm, n, h, err, se):
    """A fig5 row at (n, h) with relative variance error ``err`` ± ``se`` and exact Langevin's beside it."""
    eps = 100 * (100 - n) / n
    return {"n": n, "h": h, "eps": eps, "rel_var_error": err, "se": se, "seconds": 1.0,
            "langevin_exact": exact.exact_relative_error("langevin", gm, eps, h)}  # fmt: skip


def test_fig5_below_langevin_compares_across_h_with_figure_3s_steps():
    """'Even with larger h': AdL at h against exact Langevin at each smaller h of Fig. 3 (same n), with AdL's error
    taken as at least 2 s.e.; a comparison AdL cannot resolve is named with what resolving it takes."""
    _, gm = chains.gaussian()
    rule = fig5.FIG5_CLAIMS.rules["below_langevin"]

    good = rule([_fig5_row(gm, 5, 0.01, 0.005, 0.005)], {}, (5e-4, 2e-3))
    assert good.verdict == "reproduced" and "2 of 2 above 3" in good.ours
    coarse = rule([_fig5_row(gm, 5, 0.01, 0.005, 0.005), _fig5_row(gm, 50, 0.01, 0.0, 0.012)], {}, (5e-4, 2e-3))
    assert coarse.verdict == "partly" and "n=50 against Langevin at h=0.0005" in coarse.why
    assert "the chains x time of the AdL runs there" in coarse.why
    assert "until 2026-11-29 at equal (n, h) only" in fig5.FIG5_CLAIMS["below_langevin"].tolerance
    full = _fig5_row(gm, 5, 0.01, 0.005, 0.005) | {
        "signed_error": 0.0,
        "eps_h": 1.0,
        "xi_mean": 1.0,
        "xi_predicted": 1.0,
        "xi_mean_se": 0.1,
        "xi_var": 1.0,
        "xi_var_se": 0.1,
        "xi_var_predicted": 1.0,
        "burn_time": 5.0,
    }
    out = dict(fig5.fig5_outcomes([full], {"h": (0.01,)}, "paper"))[fig5.FIG5_CLAIMS["below_langevin"]]
    assert "(0.0001, 0.0003, 0.001) at least 3x smaller: min" in out.ours and "3 of 3 above 3" in out.ours


def test_fig5_even_with_much_larger_h_compares_steps_at_least_3x_larger():
    """fig5#3 (twenty-first audit): 'even with much larger time steps' compares AdL at h with exact Langevin at Fig. 3's
    h only where h is at least 3x larger (2x and 2.5x are not 'much larger'); the change and the old count stated."""
    _, gm = chains.gaussian()
    rule = fig5.FIG5_CLAIMS.rules["below_langevin"]

    # h = 0.001 is 2x Fig. 3's 0.0005 and h = 0.005 is 2.5x its 0.002: not compared; 0.005 is 10x 0.0005: compared
    assert "0 of 0 above 3" in rule([_fig5_row(gm, 50, 0.001, 0.0, 0.001)], {}, (5e-4, 2e-3)).ours
    out = rule([_fig5_row(gm, 50, 0.005, 0.0, 0.001)], {}, (5e-4, 2e-3))
    assert "1 of 1 above 3" in out.ours and out.verdict == "reproduced"
    # an AdL error Langevin's at the 2x smaller step is not 3x above no longer counts against the claim
    lv = abs(exact.exact_relative_error("langevin", gm, 100 * 50 / 50, 5e-4))
    assert rule([_fig5_row(gm, 50, 0.001, 0.0, lv / 4)], {}, (5e-4, 2e-3)).verdict == "reproduced"
    assert rule([_fig5_row(gm, 50, 0.002, 0.0, lv / 4)], {}, (5e-4, 2e-3)).verdict == "partly"  # 4x the step: compared
    c = fig5.FIG5_CLAIMS["below_langevin"]
    assert "even with much larger h" in c.text and "'even with much larger time steps'" in c.paper
    assert "which gave partly, 40 of 44" in c.tolerance and "2026-11-29, the twenty-first audit" in c.tolerance


def test_fig7_full_projection_row_declares_its_first_rule():
    """The 0.57 row names the seed-0 rule it was first judged by and what that gave."""
    t = fig7.FIG7_CLAIMS["proj_full"].tolerance
    assert "first judged on data seed 0 alone" in t and "which gave reproduced, 0.569" in t
    assert "reproduced: within; not reproduced: beyond" in t
    by_data = [{"full": v, "scalar": 1.2, "diagonal": 0.8} for v in (0.5, 0.55, 0.6, 0.65)]
    out = fig7.FIG7_CLAIMS.rules["proj_full"]([], {"full": 0.569}, by_data, "")
    assert out.verdict == "reproduced" and "sd from our mean" in out.why


def test_fig13_xi_mean_within_its_drift_of_the_edge_is_unresolved():
    """A cell whose friction means' difference lies closer to the 10% edge than their move between the burn-in
    check and the run's own burn-in is not counted; one well inside is."""
    rows = _fig13_rows({"diagonal": 1.2, "groups": 1.25}, burn=300_000)
    for r in rows:
        if r["n"] == 50:  # 0.12 apart on a band of 0.125: inside by 0.005
            r["friction_mean"] = {"diagonal": 1.37, "groups": 1.25}[r["friction"]]
            r["burn_steps"] = 800_000
    rows += [{**r, "sampling": "check", "burn_steps": 300_000, "friction_mean": r["friction_mean"] * 0.95}
             for r in rows if r["n"] == 50 and r["sampling"] == "wor"]  # fmt: skip
    o = dict(fig13.fig13_outcomes(rows, fig13.FIG13["quick"]))[fig13.FIG13_CLAIMS["xi_mean"]]
    assert o.verdict == "reproduced"  # n = 10 and 250 counted and within
    assert "unresolved, not counted: n=50 h=0.01 (within 0.005 of the edge" in o.why
    assert "band 0.125, inside by 0.005; diagonal 1.302 -> 1.370 (+5.3%) since the check" in o.ours
    assert fig13.FIG13_CLAIMS["grows"].source == "derived"


def test_fig14_tolerances_state_what_by_bound_gives():
    """by_bound gives partly when some case agrees even if another goes the other way beyond 2 s.e., and not
    reproduced only when none agrees: the tolerances say so, per (n, h); the eta_k = 1 runs are not called 'the same
    plan' (another h grid, no seed replicas)."""
    some = fig14.by_bound([-3.0, 3.0], "o", "w", "u")
    assert some.verdict == "partly" and fig14.by_bound([3.0, 0.0], "o", "w", "u").verdict.startswith("not reproduced")
    for key in ("k3", "k15", "residual"):
        t = fig14.FIG14_CLAIMS[key].tolerance
        assert "partly: at some (even if others go the other way beyond 2 s.e.)" in t and "at each counted (n, h)" in t
        assert "burn-in passes 3 A eta" in t and "seventeenth audit" in t
    assert "our lenient reading of 'dramatic'" in fig14.FIG14_CLAIMS["k15"].tolerance
    assert "at most half of L1 - floor at K = 0 (AdL), within 2 s.e." in fig14.FIG14_CLAIMS["residual"].tolerance
    st, proj = fig14.FIG14["quick"], {"K=0": 0.57, "K=3": 0.56, "K=15": 0.03, "K=35": 0.01}
    rows = _fig14_rows(lambda K, n: 0.2, se=0.02)
    rows[3]["diverged_chains"] = 4
    out = dict(fig14.fig14_outcomes(rows, proj, st, "quick"))
    assert all("the same plan" not in o.why for o in out.values())
    assert "h in {0.001, 0.002, 0.005}, no seed replicas" in out[fig14.FIG14_CLAIMS["k3"]].why
    assert "diverged chains left out: n=5 h=0.01 K=35: 4 of 400" in out[fig14.FIG14_CLAIMS["residual"]].why
    assert "z of L1(K=15) - 0.7 L1(K=3) at (n, h) = (5, 0.01): " in out[fig14.FIG14_CLAIMS["k15"]].why


def test_fig14_judges_the_replicated_setting_on_its_seed_mean():
    """The eleventh audit: at the (n, h) with seed replicas each K is judged on the mean over its seeds, with
    the seeds' own s.e., not on replica 0 alone."""
    from bnnsample.papers.sekkat2023 import fig14

    base = {"n": 5, "h": 0.01, "K": 3, "l1_noise_floor": 0.04, "mass_theta1_gt_0.7": 0.4, "l1_se": 0.02,
            "chains": 1000, "diverged_chains": 0}  # fmt: skip
    rows = [dict(base, replica=k, l1=v, diverged_chains=k) for k, v in enumerate((0.05, 0.10, 0.07, 0.08))]
    rows.append(dict(base, K=0, replica=0, l1=0.06))
    got = {r["K"]: r for r in fig14._seed_means(rows, 1.5)}
    assert got[3]["l1"] == pytest.approx(0.075) and got[3]["seeds"] == 4
    # the twelfth audit: diverged chains are counted over every seed, not replica 0's alone
    assert fig14._left_out(list(got.values())) == "; diverged chains left out: n=5 h=0.01 K=3: 6 of 4000 (4 seeds)"
    assert got[3]["l1_se"] == pytest.approx(np.std([0.05, 0.10, 0.07, 0.08], ddof=1) / 2)
    assert got[0]["l1"] == 0.06 and got[0]["l1_se"] == pytest.approx(0.03)  # one run: its s.e. widened


def test_fig4_sgld_langevin_is_the_ratio_band_of_fig3():
    """'Quite similar' (thirteenth audit): the SGLD / Langevin ratio of the L1 errors in fig3#3's band [0.8, 1.25]
    or within 2 s.e. of it, not an equality test; the committed n = 5 case (0.233 vs 0.261, +3.7 s.e. apart) agrees."""
    st = fig4.FIG4["paper"]
    rule = fig4.FIG4_CLAIMS.rules["sgld_langevin"]

    def rows(sgld, lv, se=(0.00212, 0.00716)):
        return [_mix("sgld", 1e-4, 5, sgld, se=se[0], floor=0.037), _mix("langevin", 1e-4, 5, lv, se=se[1], floor=0.04)]

    out = rule(rows(0.23337, 0.26086), st, "", "paper")
    assert out.verdict == "reproduced" and "ratio 0.895 ± 0.026 (inside), equality z = +3.7" in out.why
    assert rule(rows(0.36, 0.26), st, "", "paper").verdict.startswith("not reproduced")  # 1.38, 4.6 s.e. above the band
    assert rule(rows(0.09151, 0.07319, (0.00725, 0.00588)), st, "", "paper").verdict == "reproduced"  # 1.250 ± 0.141
    assert "until 2026-11-29 |SGLD - Langevin| within 2 s.e." in fig4.FIG4_CLAIMS["sgld_langevin"].tolerance
    assert "which gave partly: n = 5 apart by +3.7 s.e." in fig4.FIG4_CLAIMS["sgld_langevin"].tolerance


def test_similar_band_helpers():
    q, se = shared.ratio_se(1.0, 0.1, 2.0, 0.2)
    assert q == 0.5 and se == pytest.approx(0.5 * math.hypot(0.1, 0.1))
    assert shared.band_z(1.0, 0.1) == 0.0 and shared.band_z(1.45, 0.1) == pytest.approx(2.0)
    assert shared.band_z(0.7, 0.05) == pytest.approx(2.0) and shared.band_edge(1.2, 0.01) == pytest.approx(5.0)


def _noise_summary(n, l1, coord=1, se=0.001, floor=0.005, eps=0.0):
    return {"kind": "summary", "n": n, "coord": coord, "l1": l1, "l1_se": se, "l1_floor": floor, "skew": 0.1,
            "kurt": 0.0, "eps": eps}  # fmt: skip


def test_fig1_far_says_whether_n2_is_already_close():
    """fig1#1 (thirteenth audit): tested at n = 1; the reason says n = 2 is already within 'close' when it is."""
    rule = fig1.FIG1_CLAIMS.rules["far"]
    rows = [_noise_summary(1, 0.63, eps=9900.0), _noise_summary(2, 0.101, se=0.001, eps=4900.0)]
    out = rule(rows, {})
    assert out.verdict == "reproduced" and "n = 2 is already within our 'close' threshold (L1 0.101" in out.why
    assert "N = 100" in out.why and "far from Gaussian at n = 1 only" in out.why
    far2 = [rows[0], _noise_summary(2, 0.3, eps=4900.0)]
    assert "n = 2 is not yet close" in rule(far2, {}).why
    assert fig1.FIG1_CLAIMS["far"].paper == "far from Gaussian for small values of n (Figs. 1-2)"


def test_fig2_close_states_its_margin_and_the_data_seed_spread():
    """fig2#2 (thirteenth audit): the reason gives the tightest case's margin at each n; the data-seed spread comes
    from fig2_data_seeds.csv's rows (since the thirty-ninth audit; test_figures_sekkat_noise), none here."""
    rule = fig2.FIG2_CLAIMS.rules["close_20_30"]
    rows = [_noise_summary(20, 0.06838, 1, 0.00132, 0.0049), _noise_summary(20, 0.10038, 2, 0.00059, 0.0049),
            _noise_summary(30, 0.03809, 1), _noise_summary(30, 0.06357, 2)]  # fmt: skip
    out = rule(rows, {})
    assert out.verdict == "reproduced"
    assert "n = 20, coordinate 2 passes by 0.006 (raw L1 0.100)" in out.why
    assert "depends on the data draw" not in out.why and "data seeds" not in out.why


def test_fig3_slope_removes_the_exact_eps_free_error_and_counts_2_se_of_the_band():
    """fig3#2 (twenty-first audit): each scheme's exact eps-free error is removed before the fit through the origin
    (SGLD's first-order a h/2 left a constant the fit turned into slope), and a slope within 2 s.e. of the 15% band
    agrees; beyond 2 s.e. it does not."""
    _, gm = chains.gaussian()
    rule = fig3.FIG3_CLAIMS.rules["slope"]
    st, want = {"h": (2e-3,)}, gm.sigma_x / 2

    def rows(slope_sgld, se=0.002, slope_lv=None):
        """SGLD's signed error: its exact eps-free term plus slope x eps x h; Langevin's the exact values."""
        base = exact.exact_relative_error("sgld", gm, 0.0, 2e-3)
        out = []
        for eps in (50.0, 150.0, 300.0, 450.0):
            for s in ("sgld", "langevin"):
                ex = exact.exact_relative_error(s, gm, eps, 2e-3)
                v = base + slope_sgld * eps * 2e-3 if s == "sgld" else ex if slope_lv is None else slope_lv * eps * 2e-3
                out.append({"scheme": s, "h": 2e-3, "eps": eps, "eps_h": eps * 2e-3, "signed_error": v, "exact": ex,
                            "se": se * eps * 2e-3})  # fmt: skip
        return out

    o = rule(rows(want), {"h": (2e-3,)}, gm)
    assert o.verdict == "reproduced" and f"sgld h=0.002: {want:.3f}" in o.ours  # the exact base leaves the slope
    assert "sgld h=0.002: 0.715 (+11.2%)" in o.why  # the exact values carry 1/(1 - a h/2) alone
    edge = 1.15 * want
    assert rule(rows(edge + 0.01, se=0.01), st, gm).verdict == "reproduced"  # 1 s.e. above the band
    out = rule(rows(edge + 0.05, se=0.01), st, gm)  # 5 s.e. above
    assert out.verdict == "partly" and "1.0 s.e. outside" not in out.why and "s.e. outside" in out.why
    tol = fig3.FIG3_CLAIMS["slope"].tolerance
    assert "or within 2 s.e. of that band" in tol and "2026-11-29, the twenty-first audit" in tol
    assert "which gave the same verdict, reproduced, 4 of 4" in tol


def test_fig3_full_batch_declares_its_reading_and_tiers():
    """fig3#5 (seventeenth audit): the 1/10 cut is our reading of 'much smaller' and the tiers are those of
    by_count over the settings."""
    t = fig3.FIG3_CLAIMS["full_batch"].tolerance
    assert "1/10: our reading of 'much smaller'" in t
    assert "reproduced: at every setting; partly: at some; not reproduced: at none" in t


def test_fig4_affine_reports_the_next_h_and_prices_the_smallest_hs_settings():
    """fig4#1 (seventeenth audit): untested at the smallest h, the reason gives what the next h shows (not counted)
    and the cost of a lower floor for the smallest h's settings only, from their seconds."""
    st = {**fig4.FIG4["paper"], "h": (3e-5, 1e-4)}
    eps = {5: 7800.0, 15: 2466.67, 50: 600.0}
    rows = [{**_mix("sgld", h, n, 0.055 if h == 3e-5 else 0.03 + 8e-6 * eps[n], floor=0.05 if h == 3e-5 else 0.02),
             "eps": eps[n], "seconds": 100.0} for h in st["h"] for n in eps]  # fmt: skip
    out = dict(fig4.fig4_outcomes(rows, st, "paper"))[fig4.FIG4_CLAIMS["affine"]]
    assert out.verdict == "not tested: scale"
    assert (
        "at h = 0.0001 (also within the paper's h <= 1e-4; SGLD only, with and without replacement pooled) 3 points"
        in out.why
    )
    assert (
        "R^2 = 1.00 over eps 600-7800 (a factor 13.0) (not counted: the rule takes the smallest h only; at this h its other conditions, 3 points and R^2 >= 0.9, are met)"
        in out.why
    )
    narrow = [{**r, "eps": r["eps"] / 10 + 1000} if r["h"] == 1e-4 else r for r in rows]  # 1060-1780
    out = dict(fig4.fig4_outcomes(narrow, st, "paper"))[fig4.FIG4_CLAIMS["affine"]]
    assert (
        "(a factor 1.7, below our cut of 3, set on 2026-11-29 after this range was seen: too narrow a range" in out.why
    )
    assert (
        "at the 3 settings of h = 3e-05" in out.why
        and "for these 3 settings (their measured sampling time, 300" in out.why
    )
    assert "partly: below; not tested: fewer than 3" in fig4.FIG4_CLAIMS["affine"].tolerance


def _fig4_committed():
    return read_csv(Path(__file__).resolve().parents[2] / "results" / fig4.ID / "fig4.csv")


def test_fig4_affine_names_the_queued_floor_test_of_the_settings_it_needs():
    """The thirty-first audit (fig4#1, overturned): the test the rule needs is 16x the chains at the 2 settings with
    the largest eps(n) not resolved at h = 3e-5 (n = 10, 15: with eps 7800 three points over a factor 3.2), about
    2.0 CPU-hours (81.3 + 359.7 CPU-s x 16), queued (option floor_n): 'not run', not 'scale' at 14.0 CPU-hours for
    all 6 settings; once it has run, its rows are judged (resolved: tested; still at the floor: scale)."""
    from bnnsample.papers.franzese2021 import appendix

    st, C = fig4.FIG4["paper"], fig4.FIG4_CLAIMS["affine"]
    rows = _fig4_committed()
    need = fig4.floor_settings(rows, st)
    assert [(r["h"], r["n"]) for r in need] == [(3e-5, 10), (3e-5, 15)]
    # the job reruns the resolved n = 5 too (the thirty-second audit): the fit's 3 points then share one floor
    assert [r["n"] for r in fig4.fit_runs(rows, st, [r for r in rows if r["h"] == 3e-5 and r["n"] == 5], need)] == [
        5,
        10,
        15,
    ]
    assert fig4.FLOOR_JOB in appendix.queue_jobs() and fig4.FLOOR_JOB.endswith("floor_n=5,10,15")
    out = dict(fig4.fig4_outcomes(rows, st, "paper"))[C]
    assert out.verdict == "not tested: not run"
    assert "about 2.2 CPU-hours for these 3 settings (their measured sampling time, 487 CPU-s, x 16)" in out.why
    assert f"not run: made by `bnnsample figure {fig4.FLOOR_JOB}`, queued in scripts/cpu_queue.sh" in out.why
    assert "n = 5 (eps 7800, resolved) rerun with the same chains" in out.why
    # the bias bounds from h = 1e-4, point and 2 s.e. lower (the thirty-second audit: (L1 - floor - 2 s.e.) h0 / h1)
    assert "a bias at h = 3e-05 of at least 0.029, 0.016 (point), 0.026, 0.012 (2 s.e. lower" in out.why
    assert "against the 0.0126, 0.0115 that 16x" in out.why
    assert "n = 10 +0.0139 (clear), n = 15 +0.0003 (marginal)" in out.why
    lo = fig4._bias_from_next_h(rows, st, need[1])
    q = next(r for r in rows if r["sampling"] == "wor" and r["h"] == 1e-4 and r["n"] == 15)
    assert lo[1] == pytest.approx((q["l1"] - q["l1_noise_floor"] - 2 * q["l1_se"]) * 0.3) and lo[1] < lo[0]
    assert "until 2026-11-29 (the thirty-first audit) 'not tested: scale', priced at 14.0 CPU-hours" in out.why
    assert "n = 30, 50, 100 are not shown to resolve even then" in out.why

    # the test made: resolved (L1 well above a 4x lower floor) it is tested; left at its floor, 'scale'
    def made(l1):
        return [{**r, "chains": 16000, "l1": l1, "l1_noise_floor": r["l1_noise_floor"] / 4, "l1_se": r["l1_se"] / 4}
                if r in need else r for r in rows]  # fmt: skip

    # a setting the test leaves between its floor and the 2-s.e. bound is named 'below: not shown to resolve'
    low = [{**r, "l1": r["l1_noise_floor"] + 0.02} if r["h"] == 1e-4 and r["n"] == 15 else r for r in rows]
    assert "n = 15 -0." in dict(fig4.fig4_outcomes(low, st, "paper"))[C].why

    assert not dict(fig4.fig4_outcomes(made(0.035), st, "paper"))[C].verdict.startswith("not tested")
    stuck = dict(fig4.fig4_outcomes(made(0.0095), st, "paper"))[C]
    assert (
        stuck.verdict == "not tested: scale" and "with 16000 chains (option floor_n) still at their floors" in stuck.why
    )
    assert "wor eps 3800 (16000 chains): 0.009 ± 0.002 (floor 0.009)" in stuck.ours


def test_fig4_option_floor_n_runs_only_its_settings_and_reads_the_rest_back(tmp_path, monkeypatch):
    """Option floor_n (the thirty-first audit): only the SGLD runs without replacement at h = 3e-5 and those n, with
    16x the chains and the same seeds, are made; every other row is the committed fig4.csv's; bad values get one
    line naming what is allowed."""
    from bnnsample.figures.driver import Invocation

    st = fig4.FIG4["paper"]
    plan = fig4.floor_plan(st, (10, 15))
    full = {a[3]: a for a, _ in fig4.fig4_plan(st) if a[0] == "sgld" and a[4] == 3e-5}
    assert [a[3] for a, _ in plan] == [10, 15] and all(a[5] == 16000 for a, _ in plan)
    assert [a[8] for a, _ in plan] == [full[10][8], full[15][8]]  # the seeds of the committed runs
    with pytest.raises(ValueError, match=r"^floor_n=7: allowed values \(a comma list\): the n of scale=paper, 5, 10"):
        Invocation(fig4.ID, tmp_path, {"scale": "paper", "floor_n": "7"}, fig4.FIG4, fig4.FIGURE.options)
    inv = Invocation(fig4.ID, tmp_path, {"scale": "paper", "floor_n": "15,10"}, fig4.FIG4, fig4.FIGURE.options)
    assert inv.opt["floor_n"] == (10, 15)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="needs the committed results/sekkat2023-fig4/fig4.csv"):
        fig4._rows(inv, None)
    committed = _fig4_committed()
    (tmp_path / "results" / fig4.ID).mkdir(parents=True)
    from bnnsample.rundir import write_csv

    write_csv(tmp_path / fig4.COMMITTED, committed)
    made = []

    def fake(inv_, plan_):
        made.extend(plan_)
        return mixture.Measured(None, [{**_mix("sgld", a[4], a[3], 0.03), "chains": a[5]} for a, _ in plan_])

    monkeypatch.setattr(mixture, "reference_and_rows", fake)
    rows = fig4._rows(inv, None).rows
    assert made == plan and len(rows) == len(committed)
    assert [r["chains"] for r in rows if r["h"] == 3e-5 and r["n"] in (10, 15)] == [16000, 16000]
    assert [r for r in rows if r["chains"] == 1000] == [r for r in committed if not (r["h"] == 3e-5 and r["n"] in
                                                                                       (10, 15))]  # fmt: skip
    quick = Invocation(fig4.ID, tmp_path, {"scale": "quick", "floor_n": "10"}, fig4.FIG4, fig4.FIGURE.options)
    with pytest.raises(ValueError, match="only with scale=paper"):
        fig4._rows(quick, None)


def test_fig7_greatly_reduces_is_fig5s_3x():
    """fig7#4 (seventeenth audit): 'greatly reduces' takes fig5#3's cut for 'much smaller', Langevin at least 3x each
    AdL L1 (the AdL L1 taken as at least 2 s.e.); 2.5x, which the old 2x cut passed, fails; tiers by pair."""
    st, C = fig7.FIG7["quick"], fig7.FIG7_CLAIMS

    def verdict(full, scalar, se=0.005):
        rows = [{**r, "l1_se": se} if r["scheme"] != "langevin" else r for r in _fig7_rows(full, scalar, 0.6)]
        return dict(fig7.fig7_outcomes(rows, PROJ, BY_DATA, st, "quick"))[C["vs_langevin"]]

    o = verdict(lambda h, n: 0.05, lambda h, n: 0.15)  # 12x and 4x
    assert o.verdict == "reproduced" and "Langevin / AdL 4.0x to 12.0x" in o.why
    assert verdict(lambda h, n: 0.05, lambda h, n: 0.24).verdict == "partly"  # scalar 2.5x
    assert verdict(lambda h, n: 0.24, lambda h, n: 0.24).verdict.startswith("not reproduced")
    # an AdL L1 below 2 s.e. counts as 2 s.e.: 0.6 / 0.24 = 2.5x for both frictions
    assert verdict(lambda h, n: 0.05, lambda h, n: 0.15, se=0.12).verdict.startswith("not reproduced")
    assert "'greatly reduces the L^1 error'" in C["vs_langevin"].paper
    assert "until then 2x with the bare AdL L1, which gave the same verdict" in C["vs_langevin"].tolerance


def test_fig5_flat_reason_states_what_would_pass():
    from bnnsample.papers.sekkat2023 import fig5

    rows = [{"h": 0.001, "n": n, "signed_error": e, "se": s, "langevin_exact": lv}
            for n, e, s, lv in ((1, 0.001, 0.02, 30.0), (50, -0.002, 0.01, 0.06))]  # fmt: skip
    why = fig5._resolution(rows, [0.001])
    assert "within 0.20 s.e. of 0" in why and "up to 0.09 (h = 0.001)" in why and "0.06..30" in why


def _xi_row(h, n, burn, xi, pred, z_se=0.05, err=0.0, se=0.01):
    return {"h": h, "n": n, "burn_time": burn, "xi_mean": xi, "xi_predicted": pred, "xi_mean_se": z_se,
            "signed_error": err, "rel_var_error": abs(err), "se": se, "eps_h": 1.0}  # fmt: skip


def test_fig5_depends_states_cells_short_of_the_measured_friction_burn_in():
    """fig5#2 (twenty-eighth audit): a counted cell whose burn-in is below 3 A eta with A the measured mean friction
    (fig12-fig14's test) is named with its relaxation times and its friction's distance from Lemma 9's mean, and the
    reason says how the tally changes as the short cells are dropped in order of their shortfall."""
    rows = [_xi_row(0.01, 1, 194.0, 72.3, 64.66, err=-0.10, se=0.02), _xi_row(0.01, 5, 40.0, 13.2, 13.2, err=0.008),
            _xi_row(0.02, 1, 385.0, 656.0, 128.3, err=0.29, se=0.04), _xi_row(0.02, 5, 76.3, 27.29, 25.44, err=-0.07),
            _xi_row(0.02, 50, 7.0, 2.2, 2.3, err=0.03)]  # fmt: skip
    out = fig5._depends(rows, {"h": (0.01, 0.02)})
    assert out.verdict == "reproduced" and "3 of 5 counted cells fall short" in out.why
    assert "h = 0.02, n = 1: 385 against 1968 (0.59 A eta; friction +411%" in out.why
    assert "3 of 3 of their frictions lie at or above Lemma 9's mean" in out.why
    assert "without h = 0.02, n = 1: 4.8, 7.1 (2 of 2 h above 4); without h = 0.01, n = 1: 0.0, 7.1 (1 of 2" in out.why
    assert "the tally (2 of 2 h) holds while the cells from 2.68 A eta up count" in out.why
    long = [{**r, "burn_time": 3.1 * r["xi_mean"]} for r in rows]
    assert "every counted cell's burn-in passes 3 A eta" in fig5._depends(long, {"h": (0.01, 0.02)}).why


def test_fig5_xi_mean_allows_its_measured_noise_and_names_the_misses_outside():
    """fig5#4 (twenty-eighth audit): the mean friction agrees within 5% or 2 s.e. of eq. 45's value (its s.e. of the
    mean over chains), with tiers; the reason says what 5% alone gives; the settings outside eps h <= 10 are each
    listed with their deviation, the misses named; Lemma 9 and eq. 45 cited by their sections."""
    c = fig5.FIG5_CLAIMS["xi_mean"]
    assert c.where.startswith("Lemma 9 (§3.2.1), eq. 45 (§3.1)") and "reproduced: every such setting" in c.tolerance
    noisy = {**_xi_row(0.001, 50, 5.0, 1.12, 1.0, z_se=0.07), "eps_h": 0.1}  # 12% off, 1.7 s.e.: agrees
    far = {**_xi_row(0.02, 1, 385.0, 656.0, 128.3, z_se=0.77), "eps_h": 198.0}
    out = fig5.FIG5_CLAIMS.rules["xi_mean"]([noisy, far], {})
    assert out.verdict == "reproduced" and "the 5% alone (the rule until 2026-11-29) holds at 0 of 1" in out.why
    assert "h = 0.02, n = 1 (eps h 198): 656 vs 128.3, +411% (+685.3 s.e.), a miss" in out.ours
    assert fig5.FIG5_CLAIMS.rules["xi_mean"]([{**noisy, "xi_mean_se": 0.01}], {}).verdict.startswith("not reproduced")


def test_fig14_record_cost_is_linear_in_the_recorded_time():
    """fig14#1 (twenty-eighth audit): a record m times as long costs secs (burn + m time) / (burn + time), not m - 1
    more of the first 10x's amount (181 CPU-s for 30 + 20 time units: 10x 0.2, 100x 2.0, 1000x 20 CPU-hours)."""
    assert fig14.record_cost(180.9, 30.0, 20.0, (10, 100, 1000)) == (
        "a record 10x as long about 0.2 CPU-hours, 100x about 2.0, 1000x about 20"
    )
    assert fig14.record_cost(3600.0, 0.0, 1.0, (10,)) == "a record 10x as long about 10 CPU-hours"
    assert "each 10x" not in fig14.ETA1_RESULT


def test_fig7_ratio_bounds_name_the_ratios_above_the_band_and_price_the_adl_settings():
    """The thirtieth audit (fig7#3): a ratio whose full-matrix error is at its floor is still bounded below by
    (scalar L1 - 2 s.e. - floor) / (full L1 + 2 s.e.); above the band it is a measured 'not within' (the committed
    (n, h) = (10, 0.01): 0.1609 / 0.0505 = 3.18); the floor's price counts the AdL settings only, not Langevin's."""
    scal = {"l1": 0.210715, "l1_se": 0.00429336, "l1_noise_floor": 0.0411585}
    full = {"l1": 0.0357189, "l1_se": 0.00741658, "l1_noise_floor": 0.0352}
    assert fig7.ratio_bound(scal, full) == pytest.approx(3.184, abs=5e-4)
    st, C = fig7.FIG7["quick"], fig7.FIG7_CLAIMS["ratio"]
    # full at its floor but at (5, 3e-3); scalar 0.15 at h = 1e-3 (bound 1.5, inside), 0.35 at h = 3e-3 (bound 4.8)
    rows = _fig7_rows(lambda h, n: 0.05 + 50 * h * (h == 3e-3 and n == 5), lambda h, n: 0.05 + 100 * h)
    rows = [{**r, "seconds": 10.0 if r["scheme"] != "langevin" else 1000.0} for r in rows]
    out = dict(fig7.fig7_outcomes(rows, PROJ, BY_DATA, st, "paper"))[C]
    assert out.verdict == "partly"  # one ratio within (1.75), two bounded above: 1 of 6
    assert "2 bounded above it by the committed numbers" in out.why
    assert "n=15 h=0.003 >= 4.833 (4.796), n=50 h=0.003 >= 4.833 (4.796)" in out.why
    assert out.ours.startswith("ratio n=5 h=0.003: 1.75; bounded above 3.053: n=15 h=0.003: >= 4.833")
    assert "the other 3 unresolved" in out.why and "1.50 to 1.50, none above the band" in out.why
    assert "about 0.5 CPU-hours for these 12 settings (their measured sampling time, 120 CPU-s, x 16)" in out.why
    assert (
        "since 2026-11-29, the thirtieth audit" in C.tolerance and "which gave the same verdict, partly" in C.tolerance
    )


def test_fig7_ratio_bound_at_the_edge_of_the_band_is_unmeasured():
    """The thirty-first audit (fig7#3): a bound above the band by less than the floor's own noise (the floor a mean
    over 20 resamples; 2 of its s.e., l1_se / sqrt(20), added to it put the bound back inside) is 'at the edge',
    unmeasured: the committed (n, h) = (15, 0.01), 3.063 against the band's top 3.061 (3.035 with the floor's noise),
    while (10, 0.01), 3.184 (3.146), stays bounded above."""
    edge_s = {"l1": 0.196589, "l1_se": 0.00309524, "l1_noise_floor": 0.0366725}
    edge_f = {"l1": 0.0357852, "l1_se": 0.00720103, "l1_noise_floor": 0.0366}
    far_s = {"l1": 0.210715, "l1_se": 0.00429336, "l1_noise_floor": 0.0411585}
    far_f = {"l1": 0.0357189, "l1_se": 0.00741658, "l1_noise_floor": 0.0352}
    assert fig7.ratio_bound(edge_s, edge_f) == pytest.approx(3.0630, abs=5e-5)
    assert fig7.ratio_bound(edge_s, edge_f, 2.0) == pytest.approx(3.0355, abs=5e-5)
    assert fig7.ratio_bound(far_s, far_f, 2.0) == pytest.approx(3.1463, abs=5e-5)
    proj = {"scalar": 1.16199, "diagonal": 0.8, "full": 0.569418}  # the band's top 2.0407 x 1.5 = 3.0610
    st, C = fig7.FIG7["quick"], fig7.FIG7_CLAIMS["ratio"]

    def rows(cells):
        out = _fig7_rows(lambda h, n: 0.05, lambda h, n: 0.05)
        for r in out:
            for (h, n), (sc, fu) in cells.items():
                if (r["h"], r["n"]) == (h, n) and r["scheme"] in ("adl_scalar", "adl_full"):
                    r.update(sc if r["scheme"] == "adl_scalar" else fu)
        return out

    both = dict(fig7.fig7_outcomes(rows({(3e-3, 5): (edge_s, edge_f), (3e-3, 15): (far_s, far_f)}), proj, BY_DATA,
                                   st, "quick"))[C]  # fmt: skip
    assert "1 bounded above it" in both.why and "n=15 h=0.003 >= 3.184 (3.146)" in both.why
    assert "1 at the edge, unmeasured" in both.why and "n=5 h=0.003 >= 3.063 (3.035)" in both.why
    assert both.ours.startswith("ratio measured nowhere; bounded above 3.061: n=15 h=0.003: >= 3.184;")
    # at the edge alone nothing is measured or bounded: not tested (counted as above, it gave not reproduced)
    alone = dict(fig7.fig7_outcomes(rows({(3e-3, 5): (edge_s, edge_f)}), proj, BY_DATA, st, "quick"))[C]
    assert alone.verdict == "not tested: scale" and "bounded above" not in alone.ours
    assert "since 2026-11-29, the thirty-first audit" in C.tolerance and "which gave 2 bounded above" in C.tolerance


def test_fig14_floor_test_says_why_more_chains_would_not_resolve_the_claim():
    """The thirtieth audit (fig14#2/#3): the floor test is 16x the chains; gate (c)'s binomial s.e. falls 4x with
    them, so where the mode weights pooled over K are off beyond 2 s.e. (c) would close the (n, h); elsewhere the row
    says how far AdL's error stands above its floor. fig14#3's method is a method, and 'remains' is said untested.
    The thirty-first audit: where the pooled weights are within 2 s.e. the row says the files do not decide: the
    pooled shift at 16x AdL's chains if it persisted, that start-up noise would fall instead, the bias AdL's error
    allows (L1 + 2 s.e.) against what 16x resolves ((floor + 2 s.e.) / 4), and what those runs cost."""
    st, proj = fig14.FIG14["quick"], {"K=0": 0.57, "K=3": 0.56, "K=15": 0.03, "K=35": 0.01}
    C = fig14.FIG14_CLAIMS
    rows = _fig14_rows(lambda K, n: 0.05, se=0.02, mass=0.365)
    rows = [{**r, "mass_theta1_gt_0.7": 0.365 + 0.03 * (r["n"] == 5)} for r in rows]  # n = 5: 4 x 400 chains
    z, chains = fig14.pooled_mode_z(rows, 5, 1e-2)
    assert chains == 1600 and z == pytest.approx(0.03 / math.sqrt(0.365 * 0.635 / 1600))
    out = dict(fig14.fig14_outcomes(rows, proj, st, "paper", _fric()))
    why = out[C["k15"]].why
    assert out[C["k15"]].verdict == "not tested: scale"
    assert f"(5, 0.01): +{z:.1f} s.e. over 1600 chains, so (c) would likely close them" in why
    assert "(5, 0.01): +" in why and "so (c) would likely close them" in why
    # n = 15 at mass 0.375 over 4 x 400 chains: +0.0100, +0.8 s.e. pooled; at 16 x 400 chains one run +0.0100 /
    # sqrt(0.365 x 0.635 / 6400) = +1.7 s.e.
    rows = [{**r, "mass_theta1_gt_0.7": 0.375} if r["n"] == 15 else r for r in rows]
    why = dict(fig14.fig14_outcomes(rows, proj, st, "paper", _fric()))[C["k15"]].why
    assert ("where the mode weights pooled over K are within 2 s.e. ((15, 0.01): +0.8, mass 0.3750 against the exact "
            "0.3650 (+0.0100)) the files do not decide: a shift that persisted would sit at +1.7 s.e. of AdL's run "
            "with 16x its chains") in why  # fmt: skip
    assert "the start's sampling noise (a chain keeps the split it starts with) would fall 4x" in why
    assert ("AdL's error there stands 0.000 ± 0.020 above its floor, which bounds its bias only by L1 + 2 s.e. (E L1 "
            ">= the bias): 0.090, while 16x the chains would resolve one from about 0.022 ((floor + 2 s.e.) / 4): "
            "whether that test resolves the claim there is not known") in why  # fmt: skip
    assert "no bias in evidence" not in why and "hence 'scale'" in why
    res = out[C["residual"]]
    assert "a non-zero residual ('remains') is not tested" in res.why and "'remains'" in C["residual"].tolerance
    assert C["residual"].method.startswith("independent runs, bootstrap s.e. over chains")


def test_fig14_k3_says_the_floor_test_would_not_resolve_a_drop_of_the_projection_errors_size():
    """The thirty-second audit (fig14#1): where the pooled mode weights are within 2 s.e., a bias of at most
    L1 + 2 s.e. at K = 0 that fell as the projection error does (K = 0 -> 3) drops by at most that fraction of it;
    below 2 s.e. of the K = 3 - K = 0 difference with 16x the chains (2 hypot(s.e.) / 4) the row says that test would
    not resolve the claim; a drop above it leaves 'not known'; fig14#2/#3 keep 'not known'."""
    st = fig14.FIG14["quick"]
    C = fig14.FIG14_CLAIMS
    rows = _fig14_rows(lambda K, n: 0.05, se=0.02, mass=0.365)
    rows = [{**r, "mass_theta1_gt_0.7": 0.365 + 0.03 * (r["n"] == 5) + 0.01 * (r["n"] == 15), "seconds": 10.0}
            for r in rows]  # fmt: skip

    def why(k3: float, key: str) -> str:
        proj = {"K=0": 0.57, "K=3": k3, "K=15": 0.03, "K=35": 0.01}
        return dict(fig14.fig14_outcomes(rows, proj, st, "paper", _fric()))[C[key]].why

    # 0.57 -> 0.56: 1.8% of a bias of at most 0.090 is 0.0016, below 2 hypot(0.020, 0.020) / 4 = 0.0141
    small = why(0.56, "k3")
    assert ("by 1.8% from K = 0 to 3, a bias of at most 0.090 drops by at most 0.0016, below the 0.0141 that 2 s.e. "
            "of the K = 3 - K = 0 difference reach with 16x the chains") in small  # fmt: skip
    assert "that test would not resolve this claim there" in small and "as a test that would leave" in small
    assert "whether that test resolves the claim there is not known" not in small.split("(since 2026-11-29")[0]
    # 0.57 -> 0.1: 82% of 0.090 is 0.0742, above 0.0141: not known
    large = why(0.1, "k3")
    assert "drops by at most 0.0742, against the 0.0141" in large and "would not resolve" not in large
    assert "whether that test resolves the claim there is not known" in large and "as a test that may leave" in large
    for key in ("k15", "residual"):
        other = why(0.56, key)
        assert "whether that test resolves the claim there is not known" in other and "would not resolve" not in other


def test_fig4_regime_names_the_largest_failing_n_and_the_larger_n_that_hold():
    """§2.5.2 bounds the affine regime 'for the values of n considered' without listing them: the reason names
    the largest n that fails and how many settings of larger n hold, so a reader sees what the verdict rests on;
    and the signed errors decide fig5's dependence on n while the absolute ones are shown beside them."""
    row = dict(scheme="sgld", sampling="wor", l1_se=0.004, l1_noise_floor=0.035)
    small = [dict(row, h=1e-4, n=n, eps_h=e, l1=v) for n, e, v in ((5, 0.78, 0.23), (10, 0.38, 0.13), (15, 0.25, 0.09),
                                                                  (30, 0.12, 0.05))]  # fmt: skip
    why = fig4._regime_fails([r for r in small if r["l1"] >= 0.1], small)
    assert "every failure is at n <= 10 (eps(n) h >= 0.38)" in why and "at n > 10 all 2 settings" in why
    assert fig4._regime_fails([], small) == ""
    rows = [dict(h=0.01, n=1, signed_error=-0.10, rel_var_error=0.10, se=0.02),
            dict(h=0.01, n=5, signed_error=0.01, rel_var_error=0.01, se=0.01)]  # fmt: skip
    assert fig5._pairwise_z(rows, 0.01) == pytest.approx(0.11 / math.hypot(0.02, 0.01))
    assert fig5._pairwise_z(rows, 0.01, "rel_var_error") == pytest.approx(0.09 / math.hypot(0.02, 0.01))


def test_fig4_regime_counts_langevin_and_prints_the_count():
    """§2.5.2's regime covers 'our simulations', Langevin (scheme 30) as well as SGLD (since 2026-11-30, the
    thirty-seventh audit): a Langevin setting at h <= 1e-4 above 0.1 fails the rule, and the reason prints the count
    the tiers use beside what SGLD's settings alone give."""
    st = fig4.FIG4["quick"]
    rows = [_mix("sgld", h, n, 0.055 + (h == 3e-4) * 0.2) for h in st["h"] for n in st["n"]]
    rows += [_mix("langevin", 1e-4, 15, 0.26)]
    regime = dict(fig4.fig4_outcomes(rows, st, "quick"))[fig4.FIG4_CLAIMS["regime"]]
    assert regime.verdict == "partly"  # SGLD alone holds everywhere: it would be reproduced
    assert regime.why.startswith("4 of 5 conditions hold (3 of the 4 settings at h <= 1e-4 below 0.1, 1 of the 4 "
                                 "Langevin's, run wor at h = 0.0001 only: n = 15; above 0.1 at some n at 1 of the 1 "
                                 "larger h); SGLD's settings alone (the rule until 2026-11-30): 4 of 4")  # fmt: skip
    assert "h=0.0001 Langevin wor n=15 0.260 ± 0.005 (floor 0.050) (32 s.e. above" in regime.why
    assert "Langevin wor n=15 0.260" in regime.ours and "h=0.0001: wor n=5 0.055" in regime.ours
    assert "the rule before counted SGLD settings only, which gave partly, 15 of 19" in \
        fig4.FIG4_CLAIMS["regime"].tolerance  # fmt: skip


def test_fig5_xi_var_band_takes_our_noise_and_states_tiers():
    """Var(xi) within 15% of 1/eta widened by 2 s.e. (the thirty-eighth audit): a setting 16% off passes with s.e.
    0.02 (band 0.19) and fails with s.e. 0.001 (band 0.152); the paper column does not give eta = 1 to the paper."""
    rule, c = fig5.FIG5_CLAIMS.rules["xi_var"], fig5.FIG5_CLAIMS["xi_var"]

    def row(v, se):
        return {"eps_h": 1.0, "xi_var": v, "xi_var_se": se, "xi_var_predicted": 1.0}

    assert rule([row(1.16, 0.02)], {}).verdict == "reproduced"
    out = rule([row(1.16, 0.001), row(1.02, 0.001)], {})
    assert out.verdict.startswith("partly") and "holds at 1 of 2 settings" in out.why
    assert rule([row(0.8, 0.01)], {}).verdict.startswith("not reproduced")
    assert "= 1" not in c.paper and "our choice" in c.method and "2026-11-30" in c.tolerance


def test_fig7_measured_ratio_is_the_raw_l1_ratio_and_the_bias_ratio_is_bounded():
    """The thirty-eighth audit (fig7#3): the one measured ratio (the committed (n, h) = (5, 0.01), 0.2571 / 0.1261 =
    2.04) is of the raw L1 errors; the biases' ratio it leaves is 1.75..2.72 from the point values (inside the band
    [1.36, 3.06]) and 1.31..4.61 with 2 s.e. of each L1 (not inside), whose lower end is ratio_bound; the method
    cites Lemma 14 / Remark 15, not Prop. 13 alone."""
    scal = {"l1": 0.257057, "l1_se": 0.00320636, "l1_noise_floor": 0.036443}
    full = {"l1": 0.126092, "l1_se": 0.0187058, "l1_noise_floor": 0.0314955}
    lo, hi = fig7.bias_ratio_range(scal, full)
    assert (lo, hi) == (pytest.approx(1.7496, abs=5e-4), pytest.approx(2.7174, abs=5e-4))
    lo2, hi2 = fig7.bias_ratio_range(scal, full, 2.0)
    assert lo2 == pytest.approx(fig7.ratio_bound(scal, full)) and hi2 == pytest.approx(4.607, abs=5e-3)
    assert fig7.bias_ratio_range(scal, {**full, "l1": 0.03})[1] == math.inf  # the full L1 at its floor: no top
    proj = {"scalar": 1.16199, "diagonal": 0.8, "full": 0.569418}
    rows = _fig7_rows(lambda h, n: 0.05, lambda h, n: 0.05)
    for r in rows:
        if (r["h"], r["n"]) == (3e-3, 5) and r["scheme"] in ("adl_scalar", "adl_full"):
            r.update(scal if r["scheme"] == "adl_scalar" else full)
    C = fig7.FIG7_CLAIMS["ratio"]
    out = dict(fig7.fig7_outcomes(rows, proj, BY_DATA, fig7.FIG7["quick"], "quick"))[C]
    assert out.verdict == "partly"  # the rule judges the raw ratio, 2.04 within
    assert "n=5 h=0.003 1.75..2.72 (inside the band), with 2 s.e. of each L1 1.31..4.61 (not inside)" in out.why
    assert "gives 0 of 6 within, not tested: scale by the rule's tiers" in out.why  # nothing bounded above here
    assert C.method.startswith("Lemma 14 (eq. 67) with Remark 15") and "raw L1" in C.method
