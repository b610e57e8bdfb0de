"""The matthews2018 and chen2015 figure recipes: their computational cores at tiny size
against exact answers (with power checks), option validation and registration, the claims
tables and the verdicts their sections give to measured numbers."""

import csv
import itertools
import math
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg
import scipy.stats
import torch

from bnnsample.evaluate.metrics import posterior_average_bias_mse
from bnnsample.figures.claims import SOURCES, by_slope
from bnnsample.figures.common import claims as claims_of
from bnnsample.figures.common import verdict_counts
from bnnsample.figures.costs import measured_costs
from bnnsample.figures.driver import Invocation
from bnnsample.papers import recipes
from bnnsample.papers.chen2015 import averages
from bnnsample.papers.chen2015 import recipes as chen
from bnnsample.papers.matthews2018 import passes
from bnnsample.papers.matthews2018 import recipes as mw
from bnnsample.papers.matthews2018 import toy_runs as toys
from bnnsample.simulate import build_target
from bnnsample.stats import fit_slope, fit_slope_se

IDS = (
    "matthews2018-fig1",
    "matthews2018-fig2",
    "matthews2018-fig3",
    "chen2015-fig1",
    "chen2015-fig2",
    "chen2015-fig3",
)


def test_recipes_registered():
    have = recipes()
    for rid in IDS:
        assert rid in have and have[rid].description


@pytest.mark.parametrize("rid", IDS)
def test_bad_options_fail_before_any_work(rid, tmp_path):
    make = recipes()[rid].make
    with pytest.raises(ValueError, match="allowed: scale"):
        make(tmp_path, {"chains": "3"})
    with pytest.raises(ValueError, match="allowed values: quick, paper"):
        make(tmp_path, {"scale": "huge"})
    assert not any(tmp_path.iterdir())


def test_fit_slope_and_msgld_mapping():
    h = np.array([0.1, 0.2, 0.4])
    assert fit_slope(h, 3 * h**2)[0] == pytest.approx(2.0)
    # points within 2 SE are left out; fewer than two left -> nan
    assert math.isnan(fit_slope(h, 3 * h**2, se=np.array([1.0, 1.0, 0.01]))[0])
    assert passes.step_size_for("msgld", 0.25) == pytest.approx(0.03125)
    assert passes.step_size_for("nogin", 0.25) == 0.25


def _aboba_exact(h, gamma, a, r, V):
    """E[theta^2] of ABOBA (chen2015 §4 eq. (9)) built here from the equations, on U = a x^2/2 - r x
    with additive force noise of variance V: z = (x, v), z' = A z + c + b e + s xi."""
    d = math.exp(-gamma * h / 2)
    # x1 = x + h/2 v ; v2 = d v - h (a x1 - r + e) + sqrt(2 gamma h) xi ; v' = d v2 ; x' = x1 + h/2 v'
    Av = np.array([-d * h * a, d * d - d * h * a * h / 2])  # v' as a function of (x, v)
    cv, bv, sv = d * h * r, -d * h, d * math.sqrt(2 * gamma * h)
    A = np.array([[1 + h / 2 * Av[0], h / 2 + h / 2 * Av[1]], Av])
    c = np.array([h / 2 * cv, cv])
    b = np.array([h / 2 * bv, bv])
    s = np.array([h / 2 * sv, sv])
    mean = np.linalg.solve(np.eye(2) - A, c)
    cov = scipy.linalg.solve_discrete_lyapunov(A, np.outer(s, s) + V * np.outer(b, b))
    return cov[0, 0] + mean[0] ** 2


def test_exact_stationary_matches_hand_built_aboba():
    pot, truth = averages.chen_target()
    y = pot.per_datum_grads(torch.zeros(1, 1, dtype=torch.float64), None)[0, :, 0].numpy() * -1  # grad U_i(0) = -x_i
    N = len(y)
    a, r = N + 1.0, float(y.sum())
    V = N**2 / 10 * float(np.var(y))
    for h in (0.01, 0.04):
        want = _aboba_exact(h, 10.0, a, r, V)
        assert averages.exact_stationary(pot, "SGHMC-S", h, 10.0) == pytest.approx(want, rel=1e-9)
        full = averages.exact_stationary(pot, "SGHMC-S", h, 10.0, batching="full")
        assert full == pytest.approx(_aboba_exact(h, 10.0, a, r, 0.0), rel=1e-9)
        assert abs(full - truth) < 1e-4 < abs(want - truth)  # the minibatch noise dominates the bias
    # Euler is unstable at h = 0.06 (D = 10), the splitting is not (chen2015 Fig. 1)
    assert math.isinf(averages.exact_stationary(pot, "SGHMC-E", 0.06, 10.0))
    assert math.isfinite(averages.exact_stationary(pot, "SGHMC-S", 0.06, 10.0))


def test_stability_limits_are_the_step_maps_own():
    """The splitting's limit is that of chen2015 eq. (9)'s mean map built by hand (half drift, half
    friction, kick, half friction, half drift; spectral radius 1), not Verlet's frictionless
    2/sqrt(a); Euler's lies below it, each map stable just below its limit and not just above."""
    pot, _ = averages.chen_target()
    a, D = 1001.0, 10.0

    def radius(h):
        drift, fric, kick = (
            np.array([[1, h / 2], [0, 1]]),
            np.diag([1, math.exp(-D * h / 2)]),
            np.array([[1, 0], [-h * a, 1]]),
        )
        return max(abs(np.linalg.eigvals(drift @ fric @ kick @ fric @ drift)))

    lim_s, lim_e = averages.stability_limit(pot, "SGHMC-S"), averages.stability_limit(pot, "SGHMC-E")
    assert radius(lim_s - 1e-5) < 1 < radius(lim_s + 1e-5)
    assert lim_s > 2 / math.sqrt(a) + 1e-3 and lim_e < lim_s - 5e-3
    for label, lim in (("SGHMC-S", lim_s), ("SGHMC-E", lim_e)):
        assert math.isfinite(averages.exact_stationary(pot, label, lim - 1e-5, D))
        assert math.isinf(averages.exact_stationary(pot, label, lim + 1e-5, D))


def test_monte_carlo_average_matches_exact_stationary_law():
    pot, truth = averages.chen_target()
    h, burn, L = 0.02, 100, 800
    est = averages.run_averages(pot, "SGHMC-S", runs=120, steps=burn + L, checkpoints=[burn, burn + L], h=h, seed=3)
    tail = (est[burn + L] * (burn + L) - est[burn] * burn) / L
    se = tail.std(ddof=1) / math.sqrt(len(tail))
    exact = averages.exact_stationary(pot, "SGHMC-S", h, averages.FRICTION)
    assert abs(tail.mean() - exact) < 4 * se
    # power: the full-gradient law (and the posterior) are many standard errors away
    assert abs(tail.mean() - averages.exact_stationary(pot, "SGHMC-S", h, averages.FRICTION, batching="full")) > 50 * se
    out = posterior_average_bias_mse(tail, truth, drop_diverged=True)
    assert out["bias"] == pytest.approx(abs(tail.mean() - truth)) and out["diverged"] == 0


def test_weighted_average_uses_step_sizes():
    pot, _ = averages.chen_target()
    a = averages.run_averages(
        pot, "SGLD", runs=4, steps=30, checkpoints=[30], step_sizes=lambda l: 1e-4 * l**-0.5, seed=1
    )
    b = averages.run_averages(pot, "SGLD", runs=4, steps=30, checkpoints=[30], h=1e-4 * 30**-0.5, seed=1)
    assert a[30].shape == (4,) and np.all(np.isfinite(a[30])) and not np.allclose(a[30], b[30])


def test_nogin_exact_on_noisy_gaussian_and_naive_baoab_is_not():
    """matthews2018 Lemma 4.2: NOGIN's variance is 1 at h = 0.5 under state-dependent noise;
    the noise-unaware BAOAB is far off (power)."""
    r = toys.toy_bias("gaussian", "nogin", 0.5, chains=1000, T=40.0, seed=2)
    assert r["diverged"] == 0 and abs(r["bias"]) < 4 * r["se"]
    q = toys.toy_bias("gaussian", "baoab", 0.5, chains=1000, T=40.0, seed=2)
    assert q["bias"] > 20 * q["se"]


def test_exact_covariance_is_the_covariance_of_the_minibatch_force():
    from bnnsample.models.analytic import GaussianMean
    from bnnsample.potential import covariance_factor

    y = torch.tensor([-1.0, 0.3, 0.5, 2.0, 1.1], dtype=torch.float64)
    sd = torch.tensor([0.5, 1.0, 2.0, 0.7, 1.3], dtype=torch.float64)
    pot = GaussianMean(y, sd)
    N, n = 5, 2
    x = torch.tensor([[0.4], [-1.2]], dtype=torch.float64)
    forces = torch.stack([pot.force(x, torch.tensor(S), N / n) for S in itertools.combinations(range(N), n)])
    want = forces.var(0, unbiased=False)[:, 0]  # without replacement: uniform over the subsets
    got = passes.ExactCovariance(pot).force_covariance(x, torch.tensor([0, 1]), N / n, covariance_factor(n, N, False))
    assert torch.allclose(got.to_dense()[:, 0, 0], want, rtol=1e-12)
    est = pot.force_covariance(x, torch.tensor([0, 1]), N / n, covariance_factor(n, N, False))
    assert not torch.allclose(est.to_dense()[:, 0, 0], want)  # the minibatch estimate is not exact


def test_passes_error_tiny_gmm_and_passes_to():
    pot = build_target(["dataset=gmm3"], seed=0, threads=1).potential
    x0 = torch.zeros(3, pot.dim, dtype=torch.float64)
    ref = np.ones(2 * pot.K)
    rows = passes.passes_error(
        pot, pot.natural, ref, "nogin", "estimated", 64, h=0.02, x0=x0, max_passes=1.0, n_checks=4
    )
    assert [r["steps"] for r in rows] == sorted(r["steps"] for r in rows) and rows[-1]["passes"] == pytest.approx(1.0)
    assert all(np.isfinite(r["error"]) for r in rows)
    fake = [{"scheme": "s", "covariance": "c", "n": n, "passes": p, "error": e}
            for n, p, e in ((4, 1, 0.5), (4, 2, 0.009), (4, 4, 0.02), (8, 1, 0.3), (8, 3, 0.008), (8, 6, 0.005))]  # fmt: skip
    assert passes.passes_to(fake, "s", "c", 0.01) == (3, 8)  # n=4 goes back above 1%


# -- claims tables and the verdicts of the rendered sections ------------------------------------------
def _all_claims():
    yield from chen.FIG1_CLAIMS.values()
    yield from chen.FIG2_CLAIMS.values()
    yield from chen.FIG3_CLAIMS.values()
    yield from mw.FIG1_CLAIMS.values()
    for fig in ("matthews2018-fig2", "matthews2018-fig3"):
        yield from mw.PASSES_CLAIMS[fig].values()


def test_claims_tables_have_every_field():
    claims = list(_all_claims())
    assert len(claims) == 4 + 5 + 6 + 10 + 5 + 4  # matthews2018 Fig. 1: the Gaussian inset since 2026-11-29
    for c in claims:
        assert c.text and c.where and c.paper and c.method and c.source in (*SOURCES, "check"), c
        assert c.tolerance or c.source == "derived", c
        assert c.where == "-" or "§" in c.where, c  # the paper's own section numbers
        assert "shared" not in f"{c.where} {c.tolerance} {c.method}" and "digest" not in c.method
    # Theorem 4's O(h^K) with Lemma 8's 'a 2nd-order local integrator': a number printed in the paper (the
    # twenty-eighth audit's test, as orders' aboba / full row)
    t4 = chen.FIG1_CLAIMS["theorem4"]
    assert t4.source == "printed" and "Lemma 8" in t4.where and "Theorem 4" in t4.where
    # matthews2018 prints NOGIN's O(h^2) in §4 (after Theorem 4.1); CC-ADL's and mSGLD's orders are §5.1's words
    orders = {k: c for k, c in mw.FIG1_CLAIMS.items() if isinstance(k, tuple) and k[0] == "order"}
    assert {k[1:]: c.source for k, c in orders.items() if c.source == "printed"} == {
        ("nogin", "double_well"): "printed"
    }
    assert "O(h^2) infinite-time bias" in orders["order", "nogin", "double_well"].where


def test_fit_slope_se_is_the_spread_of_fitted_slopes():
    """The slope's s.e. from the biases' s.e. matches the spread of slopes fitted to noisy
    biases (power: a s.e. off by 20% fails)."""
    rng = np.random.default_rng(0)
    h = np.array([0.1, 0.15, 0.2, 0.3])
    b = 2 * h**1.5
    se = np.array([0.08, 0.05, 0.04, 0.02]) * b
    slopes = [fit_slope(h, b + se * rng.standard_normal(4))[0] for _ in range(4000)]
    p, s, k = fit_slope_se(h, b, se)
    assert k == 4 and p == pytest.approx(1.5) and s == pytest.approx(np.std(slopes), rel=0.06)
    assert math.isnan(fit_slope_se(h[:1], b[:1], se[:1])[1])


def test_by_slope_verdicts():
    assert by_slope(1.9, 0.1, 2, 0.5, "x").verdict == "reproduced"
    assert by_slope(1.44, 0.115, 1, 0.5, "x").verdict == "partly"  # within 0.5 but 3.8 s.e. off
    assert by_slope(-0.48, 0.014, -2 / 3, 0.15, "x").verdict == "not reproduced (13.3 s.e.)"
    assert by_slope(3.0, 0.6, 2, 0.5, "x").verdict == "not tested: scale"  # the s.e. does not resolve 0.5
    assert by_slope(math.nan, math.nan, 2, 0.5, "x").verdict == "not tested: scale"
    assert by_slope(1.0, 0.0, 2, 0.3, "x").verdict == "not reproduced"  # exact values: tolerance only


def _counts(md):
    c = verdict_counts(md)
    return {k: v for k, v in c.items() if v}


def _chen_section(fig, rows):
    """The section of a chen2015 recipe (a declared Figure) for these rows."""
    inv = Invocation(fig.id, ".", {}, fig.scales, heading=fig.heading)
    return inv.section(fig.settings(rows, inv), fig.outcomes(rows, inv), fig.notes(rows, inv), [])


def test_chen_fig1_section_counts():
    hs = chen.FIG1["quick"]["h"]
    rows = []
    for scheme, extra in (("SGHMC-S", 0.0), ("SGHMC-E", 40.0)):
        for h in hs:
            ex = math.inf if scheme == "SGHMC-E" and h > 0.052 else 5 * h + extra * h * h
            rows.append({"scheme": scheme, "h": h, "exact_bias": ex, "exact_bias_full_gradient": -4e-3 * h * h,
                         "mc_bias": ex + 1e-4, "mc_bias_se": 2e-4})  # fmt: skip
    md = _chen_section(chen.FIGURE1, rows)
    assert _counts(md) == {"reproduced": 2, "not reproduced": 1, "statement": 2, "printed": 1}
    assert "| passed |" in md and "not reproduced (125.5 s.e.)" in md  # (0.025 + 1e-4) / 2e-4 at h = 0.005
    # the thirteenth audit: an unstable Euler step is printed so (the rule counts it as larger), not as nan
    assert "0.055: E unstable, 0.06: E unstable" in md and "0.06: nan" not in md


@pytest.mark.parametrize("power, want", [(2.0, "reproduced"), (2.6, "partly"), (1.0, "not reproduced")])
def test_chen_fig1_theorem4_tiers(power, want):
    """The thirteenth audit: Theorem 4 bounds the bias by O(h^2), so a slope above 2.3 is a higher order within
    the bound (partly), one below 1.7 violates it (not reproduced); the tiers and the old rule are stated."""
    hs = chen.FIG1["quick"]["h"]
    S = {h: {"exact_bias": 3 * h**power, "exact_bias_full_gradient": -4e-3 * h * h, "mc_bias": 3 * h**power + 1e-6,
             "mc_bias_se": 1e-6} for h in hs}  # fmt: skip
    out = chen._theorem4(S, S, hs)
    assert out.verdict.split(" (")[0] == want
    tol = chen.FIG1_CLAIMS["theorem4"].tolerance
    assert "partly: above 2.3" in tol and "not reproduced: below 1.7" in tol and "until 2026-11-29" in tol


def test_chen_fig2_full_gradient_mse_reason_names_the_transient_and_its_measured_share():
    """The thirteenth audit: with full gradients the MSE falls as L^-2(1 - alpha), the transient's O(1/(Lh)) squared,
    not the variance term's L^-(1 - alpha). The twenty-first audit: the transient's squared mean is only a third of
    the MSE in alpha_sweep.csv, the rest its spread over theta_0; the row gives the share bias^2 / MSE at the largest
    L from the rows (here 0.2 and 0.5: 20%-50%), not 'the square of the bias dominates'."""
    Ls = chen.FIG2["quick"]["L"]
    why = chen._optima_cause(Ls)
    assert "its mean and its spread over theta_0, both O(1/(Lh))" in why["full_mse"]
    assert "square of the initial transient's 1/(Lh) bias dominates" not in why["full_mse"]
    assert "so the 1/(Lh) variance" not in why["full_mse"]
    rows = [{"variant": "SGHMC-F", "batching": "full", "alpha": a, "L": L, "bias": b, "mse": b**2 / share,
             "bias_se": b / 10, "mse_se": b**2 / share / 10}
            for a, share in zip(chen.ALPHAS, (0.2, 0.5, 0.3, 0.4)) for L in Ls for b in [1e-3 * a * (L / 100) ** -1]]  # fmt: skip
    out = chen._optimum(("mse", "full"), rows, Ls, why)
    assert out.verdict == "not tested: not a paper experiment"
    assert f"bias^2 is 20%-50% of the MSE at L = {max(Ls)}, the rest the runs' spread" in out.why


@pytest.mark.parametrize("fifth, priced", [(0.000552, 0.2), (0.003, 0.1)])
def test_chen_fig2_full_gradient_test_prices_every_smaller_alpha(fifth, priced):
    """The twenty-first audit: a test of the full-gradient bias optimum (alpha = 1/3) must see every smaller alpha
    still below it overtaken, not only the smallest: alpha = 1/5 (below 1/3 at L = 10000) is overtaken only at L ~
    5e17, later than 1/10 (3e10), so the cost is 1/5's; with 1/5 already above 1/3, 1/10's."""
    Ls = chen.FIG2["quick"]["L"]
    summ = {0.1: (-0.9, 0.000181, 1.8e-5), 0.2: (-0.8, fifth, 5e-5), 1 / 3: (-0.67, 0.00186, 2e-4),
            0.5: (-0.5, 0.0059, 6e-4)}  # fmt: skip
    top = 4.14e-3 * chen.C_DECR**2
    c2 = abs(top) / chen.C_DECR**2
    f0 = c2 * chen.C_DECR**2 * (1 - priced) / (1 - 3 * priced)
    L_star = (0.00186 * 10_000 ** (2 / 3) / f0) ** (1 / (2 / 3 - 2 * priced))
    text = chen._full_gradient_test("bias", summ, Ls, top)
    assert f"alpha = {chen._afmt(priced)}'s, at L ~ {L_star:.0e} steps" in text
    assert f"about {L_star * chen.CPU_PER_STEP / 3600:.0e} CPU-hours" in text
    assert ("only the smallest alpha's was priced" in text) == (priced != 0.1)
    if priced == 0.2:
        assert L_star > 1e17 and "alpha = 1/10's at L ~ 3e+10 steps" in text


def test_chen_fig2_section_counts():
    """Optima measured elsewhere than the paper's: not reproduced with their size; the
    full-gradient rows: not a paper experiment; a smaller alpha ahead early, overtaken late."""
    grid = itertools.product(("SGHMC-F", "SGHMC-D"), ("iid", "full"), chen.ALPHAS, chen.FIG2["quick"]["L"])
    rows = [
        {"variant": v, "batching": bt, "alpha": a, "L": L, "bias": m, "mse": m, "bias_se": m / 100, "mse_se": m / 100}
        for v, bt, a, L in grid
        for m in [0.01 * (1 + 3 * a) * (L / 100) ** -(0.3 + 2 * a)]
    ]
    md = _chen_section(chen.FIGURE2, rows)
    assert _counts(md) == {"reproduced": 1, "not reproduced": 2, "not tested": 2, "printed": 2, "statement": 1,
                           "derived": 2}  # fmt: skip
    assert md.count("| not tested: not a paper experiment |") == 2
    assert len(claims_of(md)) == 5 and not any("Theorem 4" in c for c, _ in claims_of(md))  # counted once: fig1
    # judged against the paper's optima (1/5 for the MSE, 1/3 for the bias), both panels
    assert "MSE of SGHMC-F: alpha 1/10 below the optimum 1/5 by" in md and "bias of SGHMC-D: alpha 1/10 below" in md


def test_chen_fig2_early_late_is_judged_against_the_papers_optima():
    """The sixth audit: a smaller alpha behind the paper's optimum at the smallest L is a measured
    disagreement (its size in s.e.), whatever alpha is best late in our data; the old reading is named."""
    Ls = chen.FIG2["quick"]["L"]
    assert Ls[0] == 10 < chen.L_OLD  # the thirty-seventh audit: 'at the beginning' read below L = 100 too

    def rows_of(value):
        grid = itertools.product(("SGHMC-F", "SGHMC-D"), ("iid",), chen.ALPHAS, Ls)
        return [{"variant": v, "batching": bt, "alpha": a, "L": L, "bias": m, "mse": m, "bias_se": m / 100,
                 "mse_se": m / 100} for v, bt, a, L in grid for m in [value(a, L)]]  # fmt: skip

    behind = rows_of(lambda a, L: 0.01 * (2 - a) * L**-0.3)  # a smaller alpha behind at every L
    out = chen._early_late(behind, Ls, {})
    assert out.verdict.startswith("not reproduced (") and "alpha 1/5 above the optimum 1/3 by" in out.ours
    assert "(alpha 1/10 above it by" in out.ours  # every smaller alpha is reported
    assert "against the alpha best at the largest L here instead" in out.why
    assert "1/3 (bias) and alpha = 1/5 (MSE)" in chen.FIG2_CLAIMS["early_late"].where
    # ahead at L = 10, behind from L = 100: judged at L = 10, the reason says what L = 100 gave
    cross = rows_of(lambda a, L: 0.01 * (2 - a) * (L / 100) ** -(0.3 + 2 * a))
    out = chen._early_late(cross, Ls, {})
    assert out.verdict == "reproduced" and "below the optimum 1/5 by" in out.ours and "at L = 10," in out.ours
    assert "read at L = 100 (the grid's first point until 2026-11-30) it gave not reproduced (" in out.why


def test_chen_fig2_full_gradient_cost_uses_the_ledgers_cpu_time():
    """The cost of a full-gradient test is scaled from the scale=quick run's CPU time in results/costs.csv."""
    import pandas as pd

    costs = pd.read_csv(Path(__file__).parents[2] / "results" / "costs.csv")
    row = costs[(costs.figure == "chen2015-fig2") & (costs.scale == "quick")]
    assert pytest.approx(float(row.cpu_s.iloc[0])) == chen.CPU_PER_STEP * chen.QUICK_STEPS


@pytest.mark.parametrize(
    "third, want", [(0.010, "reproduced"), (0.0185, "partly"), (0.022, "not reproduced (5.2 s.e.)")]
)
def test_chen_fig2_optimum_is_judged_with_its_noise(third, want):
    """The ninth audit: the optimum row compares the bias at alpha = 1/3 with every other alpha's in s.e.
    of the difference: below all beyond 2 s.e. is reproduced, within 2 s.e. of the lowest is partly (not
    resolved), another alpha below beyond 2 s.e. is not reproduced with that margin."""
    Ls = chen.FIG2["quick"]["L"]
    last = {0.1: (0.0989, 0.00022), 0.2: (0.0475, 0.00019), 1 / 3: (third, 0.00031), 0.5: (0.0176, 0.00079)}
    rows = [{"variant": "SGHMC-D", "batching": "iid", "alpha": a, "L": L, "bias": v * (Ls[-1] / L) ** 0.4,
             "bias_se": se} for a, (v, se) in last.items() for L in Ls]  # fmt: skip
    if want == "reproduced":
        rows = [dict(r, bias=r["bias"] * (3 if r["alpha"] == 0.5 else 1)) for r in rows]
    out = chen._optimum(("bias", "iid"), rows, Ls, {"iid": "cause"})
    assert out.verdict == want and "others above alpha 1/3 by:" in out.ours
    assert (want == "partly") == ("not resolved" in out.why)
    tol = chen.FIG2_CLAIMS["optimum", "bias", "iid"].tolerance
    assert "partly:" in tol and "not reproduced:" in tol and "until 2026-11-29" in tol


def test_slope_se_over_runs_counts_the_checkpoints_correlation():
    """Checkpoints of the same runs: with each run's error a fixed share of the bias at every L (perfectly
    correlated), the fitted slope does not move from run to run, so its s.e. is 0 while the independent-L
    formula gives a positive one; with independent values at each L it is fit_slope_se's (within 15%), and
    it matches the spread of slopes over repeated draws (power: 20% off fails)."""
    rng = np.random.default_rng(1)
    Ls, truth = [500, 1000, 3000, 10_000, 30_000], 1.0
    b = 0.5 * np.array(Ls, float) ** -0.5
    z = rng.standard_normal(400)
    est = {L: truth + bi * (1 + 0.3 * z) for L, bi in zip(Ls, b)}
    assert averages.slope_se_over_runs(Ls, est, truth) < 1e-9
    se_i = [np.std(est[L], ddof=1) / 20 for L in Ls]
    assert fit_slope_se(Ls, [np.mean(est[L]) - truth for L in Ls], se_i)[1] > 0.003

    def draw():
        return {L: truth + bi + 0.3 * bi * rng.standard_normal(400) for L, bi in zip(Ls, b)}

    est = draw()
    se_i = [np.std(est[L], ddof=1) / 20 for L in Ls]
    s_ind = fit_slope_se(Ls, [np.mean(est[L]) - truth for L in Ls], se_i)[1]
    assert averages.slope_se_over_runs(Ls, est, truth) == pytest.approx(s_ind, rel=0.15)
    slopes, ses = [], []
    for _ in range(1500):
        e = draw()
        slopes.append(fit_slope(Ls, [np.mean(e[L]) - truth for L in Ls])[0])
        ses.append(averages.slope_se_over_runs(Ls, e, truth))
    assert np.mean(ses) == pytest.approx(np.std(slopes), rel=0.1)


def test_chen_fig3_decreasing_rates_use_the_correlated_slope_se():
    """The decreasing-step rows judge the slope with the s.e. over runs (``slope_se_runs``), the
    independent-L s.e. shown beside; fixed steps keep the independent-L s.e."""
    rec = _fig3_rows({"fixed": 0.3, "decreasing": 0.3})
    rows = rec["main"]
    rows = [dict(r, bias=r["bias"] * (r["L"] / 500) ** 0.08 if r["scheme"] == "SGLD" else r["bias"]) for r in rows]
    rows = [dict(r, slope_se_runs=0.002) if r["steps"] == "decreasing" else r for r in rows]
    inv = Invocation(chen.FIGURE3.id, ".", {}, chen.FIGURE3.scales, heading=chen.FIGURE3.heading)
    out = {c.text: o for c, o in chen.FIGURE3.outcomes({**rec, "main": rows}, inv)}
    dec = out["bias rate of SGLD at its optimal alpha, decreasing steps"]
    assert dec.verdict == "partly" and "± 0.002 (5 L); ± 0.0" in dec.ours and "40.0 s.e." in dec.why
    # the fourteenth audit: at alpha = 1/(K+1) Theorem 5's bound carries a log L (Remark 7 drops it); the
    # measured slope (-0.42) is set between its two terms' local slopes over the L run
    assert "Theorem 5's bound is L^-1/2 log L (Remark 7 drops the log)" in dec.why
    assert "sum h_l^2 / S_L is -0.39, that of 1/S_L -0.51; the measured -0.420 lies between them" in dec.why
    assert "L^-2/3 log L" in out["bias rate of SGHMC-S at its optimal alpha, decreasing steps"].why
    assert "log L" not in out["bias rate of SGLD at its optimal alpha, fixed steps"].why
    fix = out["bias rate of SGLD at its optimal alpha, fixed steps"]
    assert "log L" not in out["bias rate of SGHMC-S at its optimal alpha, fixed steps"].why
    assert "if the L were independent" not in fix.ours
    # the thirteenth audit: the fixed-step SGHMC-S row explains its rate with one h = C L^-alpha per run
    s_fix = out["bias rate of SGHMC-S at its optimal alpha, fixed steps"]
    assert "with h = C L^-alpha it decays as L^-alpha: L^-0.33" in s_fix.why and "h_l ~ l^-alpha" not in s_fix.why
    assert "h_l ~ l^-alpha" in out["bias rate of SGHMC-S at its optimal alpha, decreasing steps"].why
    assert "not reproduced: beyond 0.15 and beyond 2 s.e." in chen.FIG3_CLAIMS["per_kind", "fixed", "SGLD"].tolerance
    assert "checkpoints of the same 200 runs" in chen.FIG3_CLAIMS["per_kind", "decreasing", "SGLD"].method


def _seeded_decreasing(first: float, offsets) -> dict:
    """``_fig3_rows`` with SGLD's decreasing-step biases 8 L^first on the first seed (delta s.e. 0.001) and, in both
    readings, one seed per offset (the first 0) with biases 8 L^(first + offset)."""
    rec = _fig3_rows({"fixed": 0.3, "decreasing": 8.0})
    main = [dict(r, bias=8 * r["L"] ** first, bias_se=0.4 * r["L"] ** first, slope_se_runs=0.001)
            if (r["scheme"], r["steps"]) == ("SGLD", "decreasing") else r for r in rec["main"]]  # fmt: skip
    readings = [r for r in rec["readings"] if r["steps"] == "fixed"]
    for r in (r for r in rec["readings"] if r["steps"] == "decreasing"):
        for j, off in enumerate(offsets):
            b = 8 * r["L"] ** (first + off)
            readings.append(dict(r, seed=950 + j, sgld_bias=b, sgld_bias_se=0.05 * b, sgld_slope_se_runs=0.001,
                                 margin=b - r["sghmc_bias"]))  # fmt: skip
    return {"main": main, "readings": readings}


@pytest.mark.parametrize("spread, want", [(1.0, "partly"), (10.0, "reproduced")])
def test_chen_fig3_sgld_decreasing_rate_is_judged_with_its_seeds_scatter(spread, want):
    """The nineteenth audit: the delta-method s.e. of SGLD's decreasing-step slope had been checked over seeds only at
    h_0 = 0.001, no longer judged; it is now the s.d. of the slopes of the committed seeds, per reading, the delta
    s.e. and what it gives beside. Slope -0.49 against -0.5: seeds' s.d. 0.0016 (6 s.e.) is partly, 0.016 (0.6
    s.e.) reproduced; the delta s.e. 0.001 gives partly at 10 s.e."""
    offsets = spread * np.array([0.0, 0.002, -0.002, 0.001, -0.001, 0.0])
    rec = _seeded_decreasing(-0.49, offsets)
    inv = Invocation(chen.FIGURE3.id, ".", {}, chen.FIGURE3.scales, heading=chen.FIGURE3.heading)
    out = {c.text: o for c, o in chen.FIGURE3.outcomes(rec, inv)}
    dec = out["bias rate of SGLD at its optimal alpha, decreasing steps"]
    sd = np.std(offsets, ddof=1)
    assert dec.verdict == want and f"slope -0.490 ± {sd:.2g} (5 L)" in dec.ours
    assert "s.e. the s.d. of the slopes of 6 seeds" in dec.ours and "by the delta method ± 0.001" in dec.ours
    assert "with the delta-method s.e. (the rule until 2026-11-29): partly, 10.0 s.e." in dec.why
    assert [round(p, 4) for p, _ in chen.seed_slopes(rec["readings"], "main text", chen.FIG3["quick"]["L"])] == [
        round(-0.49 + o, 4) for o in offsets
    ]
    method = chen.FIG3_CLAIMS["per_kind", "decreasing", "SGLD"].method
    assert "s.d. of the slopes over the 6 seeds" in method and "only at h_0 = 0.001" in method
    assert "0.0028" not in chen.FIG3_CLAIMS["per_kind", "decreasing", "SGHMC-S"].method


def test_chen_fig3_log_factor_slopes():
    """Theorem 5's two bias terms at alpha = 1/(K+1), exact sums over the committed L (500-30000): the local
    slope of sum h_l^(K+1) / S_L (its log L factor flattens it) and of 1/S_L, for SGLD (K = 1) and SGHMC-S
    (K = 2); near L^-(1-alpha) log L against L^-(1-alpha) by the integral approximation."""
    Ls = chen.FIG3["quick"]["L"]
    assert Ls == [500, 1000, 3000, 10000, 30000]
    t, s = chen.log_factor_slopes("SGLD", Ls)
    assert (round(t, 2), round(s, 2)) == (-0.39, -0.51)
    t, s = chen.log_factor_slopes("SGHMC-S", Ls)
    assert (round(t, 2), round(s, 2)) == (-0.55, -0.67)
    x = np.log(Ls)  # the same fit of log(log L / sqrt L)
    assert chen.log_factor_slopes("SGLD", Ls)[0] == pytest.approx(np.polyfit(x, np.log(np.log(Ls)) - x / 2, 1)[0],
                                                                  abs=0.03)  # fmt: skip


def _fig3_rows(sgld_bias, other=None, s_power=-0.48):
    """The record of chen2015 Fig. 3 for SGLD biases sgld_bias[kind] L^-1/2 (SGHMC-S: 0.45 L^s_power), in the main
    text's reading and (``other``: its own {kind: prefactor}, default the same) the Welling-Teh one: bias_vs_L.csv's
    rows and sgld_readings.csv's (one seed per L, margin s.e. 5% of the SGHMC-S bias)."""
    rows, readings = [], []
    for scheme in ("SGHMC-S", "SGLD"):
        for steps in ("fixed", "decreasing"):
            for L in chen.FIG3["quick"]["L"]:
                b = 0.45 * L**s_power if scheme == "SGHMC-S" else sgld_bias[steps] * L**-0.5
                rows.append({"scheme": scheme, "steps": steps, "C": 0.03, "D": 10.0, "L": L, "bias": b,
                             "bias_se": 0.05 * b})  # fmt: skip
    for name, pref, scale in (("main text", sgld_bias, 1.0), ("Welling-Teh", other or sgld_bias, 0.5)):
        for steps in ("fixed", "decreasing"):
            for k, L in enumerate(chen.FIG3["quick"]["L"]):
                s, g = 0.45 * L**s_power, pref[steps] * L**-0.5
                readings.append({"reading": name, "steps": steps, "sgld_constant": 0.003, "printed": 0.003 / scale,
                                 "seed": 900 + k if steps == "fixed" else 950, "L": L, "sgld_bias": g, "sgld_bias_se": 0.05 * g, "sghmc_bias": s,
                                 "sghmc_bias_se": 0.05 * s, "margin": g - s, "margin_se": 0.05 * s,
                                 "paired_runs": 200, "sgld_slope_se_runs": math.nan})  # fmt: skip
    return {"main": rows, "readings": readings}


def test_chen_fig3_section_counts_and_sizes():
    md = _chen_section(chen.FIGURE3, _fig3_rows({"fixed": 0.3, "decreasing": 8.0}, s_power=-0.40))
    assert "Chosen: SGHMC-S fixed C = 0.03, D = 10; decreasing h_0 = 0.03, D = 10; SGLD fixed C = 0.03" in md
    assert "Welling-Teh: fixed SGLD C = 0.003, printed 0.006" in md
    # fixed: SGHMC-S above SGLD at every L and its slope shallower (not reproduced, size in s.e.); decreasing: below
    # (reproduced; one seed, so the rate is not resolved)
    assert _counts(md) == {"reproduced": 3, "not reproduced": 3, "statement": 2, "printed": 2, "derived": 2}
    line = next(x for x in md.splitlines() if x.startswith("| SGHMC (splitting) converges faster than SGLD (Euler), f"))
    assert "| not reproduced (" in line and "s.e.) |" in line
    # the SGHMC-S rates (slope -0.48 against -2/3) are measured disagreements with their size
    assert md.count("bias rate of SGHMC-S") == 2 and md.count("| not reproduced (") == 3


@pytest.mark.parametrize("other, want", [
    ({"fixed": 0.3, "decreasing": 8.0}, "reproduced"),  # SGHMC-S below in both readings
    ({"fixed": 0.3, "decreasing": 0.3}, "partly"),  # below in the main text's reading only
])  # fmt: skip
def test_chen_fig3_faster_is_judged_in_both_readings_of_sglds_step(other, want):
    """The seventeenth audit: SGLD's decreasing-step grid had been started below the paper's after a first run; the
    rule now searches the paper's grid in both readings of SGLD's step (main text; Welling and Teh, eps = 2h) and
    needs both for reproduced, one alone giving partly; the margin's s.e. is the paired one."""
    rec = _fig3_rows({"fixed": 0.3, "decreasing": 8.0}, other, s_power=-0.40)
    inv = Invocation(chen.FIGURE3.id, ".", {}, chen.FIGURE3.scales, heading=chen.FIGURE3.heading)
    out = {c.text: o for c, o in chen.FIGURE3.outcomes(rec, inv)}
    dec = out["SGHMC (splitting) converges faster than SGLD (Euler), decreasing step size"]
    assert dec.verdict == want and "verdict per reading of SGLD's step: main text: reproduced" in dec.why
    if want == "partly":
        assert dec.why.startswith("the verdict depends on the reading of SGLD's step")
    # fixed: SGLD below in both readings and falling faster (L^-0.5 against L^-0.4): not reproduced
    fix = out["SGHMC (splitting) converges faster than SGLD (Euler), fixed step size"]
    assert fix.verdict.startswith("not reproduced (") and "the rule until 2026-11-29" in fix.why
    claim = chen.FIG3_CLAIMS["per_kind", "decreasing", "faster"]
    assert "in both readings" in claim.tolerance and "below the paper's in either reading" in claim.tolerance
    assert "s.e. from the seeds' scatter" in claim.method


def test_chen_fig3_searches_the_papers_whole_grid_and_says_why_sgld_is_lower():
    """The nineteenth audit: at scale=quick SGHMC-S's C was searched over every sixth value of the paper's grid (step
    0.012) while the row said 'the paper's grid'; every scale now searches every value (step 0.002), the old search
    and its verdict stated. The fixed-step reason gives the biases' ratio at the first and last L and says that
    SGLD's lower start is not explained."""
    assert chen.GRID_STEP == 0.002 and not any("C_step" in st or "h0_step" in st for st in chen.FIG3.values())
    tol = chen.FIG3_CLAIMS["per_kind", "fixed", "faster"].tolerance
    assert "every sixth value of the paper's grid (step 0.012), which chose C = 0.037" in tol
    assert "same h_0 = 0.027" in chen.FIG3_CLAIMS["per_kind", "decreasing", "faster"].tolerance
    rec = _fig3_rows({"fixed": 0.3, "decreasing": 8.0})
    inv = Invocation(chen.FIGURE3.id, ".", {}, chen.FIGURE3.scales, heading=chen.FIGURE3.heading)
    out = {c.text: o for c, o in chen.FIGURE3.outcomes(rec, inv)}
    fix = out["SGHMC (splitting) converges faster than SGLD (Euler), fixed step size"]
    r0, r1 = (0.45 * L**-0.48 / (0.3 * L**-0.5) for L in (500, 30000))
    assert f"{r0:.2f} times SGLD's at L = 500 and {r1:.2f} times at L = 30000" in fix.why
    assert "is not explained by these runs" in fix.why
    assert "times SGLD's" not in out["SGHMC (splitting) converges faster than SGLD (Euler), decreasing step size"].why
    assert "step 0.002 for both schemes" in chen.FIGURE3.settings(rec, inv)


def test_chen_fig3_margins_over_seeds_and_paired_margin():
    """Over 3 or more seeds the margin's s.e. is their scatter; with one, the paired s.e. of that seed's runs. The
    paired margin is |bias b| - |bias a| with the s.e. of the per-run difference."""
    rows = [{"reading": "main text", "steps": "decreasing", "L": 500, "margin": m, "margin_se": 9.0}
            for m in (1.0, 2.0, 3.0)]  # fmt: skip
    assert chen._margins(rows, "main text", "decreasing", [500])[500] == pytest.approx((2.0, 1 / math.sqrt(3), 3))
    assert chen._margins(rows[:1], "main text", "decreasing", [500])[500] == (1.0, 9.0, 1)
    rng = np.random.default_rng(0)
    a = 1.0 + rng.normal(size=400)
    b = a + 0.5 + 0.1 * rng.normal(size=400)  # correlated with a
    m, se, n = averages.paired_margin(a, b, 0.0)
    assert n == 400 and m == pytest.approx(abs(b.mean()) - abs(a.mean()))
    assert se == pytest.approx(np.std(b - a, ddof=1) / 20) and se < np.hypot(a.std(ddof=1), b.std(ddof=1)) / 20 / 5


def test_paired_slope_gap_is_the_spread_of_the_gap():
    """Two schemes run at each L (independent between L), run r of both sharing its noise (correlation 0.9): the
    delta-method s.e. of the gap of their log-log slopes, with each L's covariance recovered from the paired
    margin's s.e., matches the spread of the gap over repeated draws (within 10%), and is well below the s.e. of
    unpaired slopes (which ignores the pairing)."""
    rng = np.random.default_rng(3)
    Ls = np.array([500, 1000, 3000, 10_000, 30_000])
    ba, bb = 0.45 * Ls**-0.44, 0.3 * Ls**-0.5

    def draw():
        cols = {k: [] for k in ("a", "sa", "b", "sb", "sm")}
        for x, y in zip(ba, bb):
            z = rng.standard_normal(200)
            ea = x * (1 + 0.5 * z)
            eb = y * (1 + 0.5 * (0.9 * z + math.sqrt(1 - 0.81) * rng.standard_normal(200)))
            _, sm, _ = averages.paired_margin(ea, eb, 0.0)
            for k, v in zip(cols, (ea.mean(), ea.std(ddof=1) / math.sqrt(200), eb.mean(),
                                   eb.std(ddof=1) / math.sqrt(200), sm)):  # fmt: skip
                cols[k].append(v)
        return cols

    gaps, ses, unpaired = [], [], []
    for _ in range(800):
        c = draw()
        g, se, k = averages.paired_slope_gap(Ls, c["a"], c["sa"], c["b"], c["sb"], c["sm"])
        assert k == 5
        gaps.append(g)
        ses.append(se)
        unpaired.append(math.hypot(fit_slope_se(Ls, c["a"], c["sa"])[1], fit_slope_se(Ls, c["b"], c["sb"])[1]))
    assert np.mean(gaps) == pytest.approx(-0.06, abs=0.005)
    assert np.mean(ses) == pytest.approx(np.std(gaps), rel=0.1)
    assert np.mean(ses) < 0.6 * np.mean(unpaired)


@pytest.mark.parametrize("level, gap, want", [
    ("reproduced", (0.0, 0.01), "reproduced"),  # lower at every L, the slopes alike
    ("reproduced", (-0.03, 0.005), "partly"),  # lower, but SGLD's bias falls faster (6 s.e.)
    ("not reproduced (13.6 s.e.)", (-0.05, 0.01), "not reproduced (5.0 s.e.)"),  # neither: the smaller size
    ("not reproduced (13.6 s.e.)", (0.03, 0.01), "partly"),  # above, but falling faster
    ("partly", (-0.05, 0.01), "partly"),  # lower at some L only
    ("not tested: scale", (0.0, 0.01), "not tested: scale"),  # neither resolved
    ("reproduced", (-0.05, math.nan), "reproduced"),  # the rate not resolved (fewer than 3 seeds)
])  # fmt: skip
def test_chen_fig3_faster_needs_the_level_and_the_rate(level, gap, want):
    """The twenty-first audit: §5 ('as indicated by both theory and experiments') and Remarks 9-10 tie 'converges
    faster' to the rate, so the row needs SGHMC-S's bias below SGLD's at every L and its slope not shallower than
    SGLD's beyond 2 s.e.; one of the two is partly, neither not reproduced with the smaller size."""
    out = chen._level_and_rate(chen.Outcome(level, "margins", "above beyond 2 s.e. at 5 of 5 L"), (*gap, 6, "how"),
                               "cause")  # fmt: skip
    assert out.verdict == want and "SGLD's slope minus SGHMC-S's" in out.ours
    assert ("cause" in out.why) == (want != "reproduced")
    tol = chen.FIG3_CLAIMS["per_kind", "decreasing", "faster"].tolerance
    assert "not shallower than SGLD's beyond 2 s.e." in tol and "the twenty-first audit; until then the level" in tol
    assert "Remark 10" in chen.FIG3_CLAIMS["per_kind", "decreasing", "faster"].where


@pytest.mark.parametrize("first, want", [(-0.49, "partly"), (-0.47, "reproduced")])
def test_chen_fig3_decreasing_faster_pairs_the_slopes_by_seed(first, want):
    """Over 6 seeds SGHMC-S's decreasing-step bias (0.45 L^-0.48) is far below SGLD's (8 L^first) at every L; with
    SGLD's slope -0.49 it falls faster than SGHMC-S's by 0.01, resolved by the seeds' scatter of the paired gap
    (about 0.0006): partly, where the level alone (the rule until the twenty-first audit) gave reproduced; with
    -0.47 SGHMC-S's is the steeper: reproduced."""
    offsets = np.array([0.0, 0.002, -0.002, 0.001, -0.001, 0.0])
    rec = _seeded_decreasing(first, offsets)
    Ls = chen.FIG3["quick"]["L"]
    gap, se, n, how = chen.slope_gap(rec["readings"], "Welling-Teh", "decreasing", Ls)
    assert n == 6 and how == "scatter of 6 seeds"
    assert gap == pytest.approx(first + 0.48, abs=1e-4) and se == pytest.approx(np.std(offsets, ddof=1) / math.sqrt(6))
    inv = Invocation(chen.FIGURE3.id, ".", {}, chen.FIGURE3.scales, heading=chen.FIGURE3.heading)
    out = {c.text: o for c, o in chen.FIGURE3.outcomes(rec, inv)}
    dec = out["SGHMC (splitting) converges faster than SGLD (Euler), decreasing step size"]
    assert dec.verdict == want
    assert (
        "the rule until 2026-11-29, the twenty-first audit (the level alone, in both readings) gives reproduced"
        in dec.why
    )
    if want == "partly":
        assert "SGLD's bias falls faster (SGHMC-S's slope shallower by" in dec.why


@pytest.mark.parametrize("spread, want", [(8.0, "not reproduced"), (80.0, "not tested: scale")])
def test_chen_fig3_sghmc_decreasing_rate_is_judged_with_its_seeds_scatter(spread, want):
    """The twenty-first audit: SGHMC-S's decreasing-step slope is judged with the s.d. of the committed seeds'
    slopes (sgld_readings.csv), not the delta-method s.e. (shown beside with what it gives). Slope -0.48 against
    -2/3 (0.187 off): seeds' s.d. 0.0127 gives not reproduced at 14.7 s.e., a s.d. 10 times larger leaves the 0.15
    tolerance unresolved (not tested); the delta s.e. 0.001 gives 186.7 s.e."""
    offsets = spread * np.array([0.0, 0.002, -0.002, 0.001, -0.001, 0.0])
    rec = _seeded_decreasing(-0.49, np.array([0.0, 0.002, -0.002, 0.001, -0.001, 0.0]))
    rec["main"] = [dict(r, slope_se_runs=0.001) if (r["scheme"], r["steps"]) == ("SGHMC-S", "decreasing") else r
                   for r in rec["main"]]  # fmt: skip
    j = {950 + k: off for k, off in enumerate(offsets)}
    rec["readings"] = [dict(r, sghmc_bias=0.45 * r["L"] ** (-0.48 + j[r["seed"]])) if r["steps"] == "decreasing"
                       else r for r in rec["readings"]]  # fmt: skip
    inv = Invocation(chen.FIGURE3.id, ".", {}, chen.FIGURE3.scales, heading=chen.FIGURE3.heading)
    out = {c.text: o for c, o in chen.FIGURE3.outcomes(rec, inv)}
    row = out["bias rate of SGHMC-S at its optimal alpha, decreasing steps"]
    sd = np.std(offsets, ddof=1)
    size = f" ({(0.48 - 2 / 3) / -sd:.1f} s.e.)" if want == "not reproduced" else ""
    assert row.verdict == want + size and f"slope -0.480 ± {sd:.2g} (5 L)" in row.ours
    assert "s.e. the s.d. of the slopes of 6 seeds" in row.ours and "by the delta method ± 0.001" in row.ours
    assert "(the rule until 2026-11-29, the twenty-first audit): not reproduced (186.7 s.e.)" in row.why
    method = chen.FIG3_CLAIMS["per_kind", "decreasing", "SGHMC-S"].method
    assert "s.d. of the slopes over the 6 seeds" in method and "0.0088" not in method


def _passes_rows(finals: dict):
    """Rows of passes_error for final errors {(scheme, cov, n): error} (checkpoints at 5 and 10 passes over N = 1024;
    a run non-finite at the end is so from a first checkpoint at 0.1 passes, a divergence Fig. 2's single-run rule
    resolves)."""
    return [{"scheme": sc, "covariance": cov, "n": n, "passes": p, "steps": int(p * 1024 // n),
             "error": e * (1.5 if p == 5 else 1)} for (sc, cov, n), e in finals.items()
            for p in ((0.1, 5, 10) if math.isnan(e) else (5, 10))]  # fmt: skip


def _section(fig_id, scale, s, rows, covs, ref_se, load, n_data=None, scatter=()):
    """The section of matthews2018 Fig. 2 or 3 for these rows (h and reference size made up)."""
    inv = Invocation(fig_id, ".", {"scale": scale}, {scale: s}, heading=mw.HEADING)
    out = mw._passes_outcomes(fig_id, s, rows, ref_se, load, n_data, scatter)
    return inv.section(
        mw._passes_settings(s, "test", 0.02, 0.03, ref_se, 64, n_data), out, mw._passes_notes(inv, out), []
    )


def _fig2_finals():
    """Final errors {(scheme, cov, n): error} like the scale=quick run's (NOGIN fails at n = 8 with the estimate)."""
    nan = math.nan
    finals = {}
    for sc, est, ex in (("nogin", (93.49, 0.471, 0.452), (0.335, 0.377, 0.470)),
                        ("msgld", (nan, 1.647, 0.575), (nan, 1.476, 0.578)),
                        ("ccadl", (nan, nan, nan), (nan, nan, nan))):  # fmt: skip
        for k, n in enumerate((8, 32, 128)):
            finals[sc, "estimated", n], finals[sc, "exact", n] = est[k], ex[k]
    return finals


# the scale=quick grid the synthetic finals of ``_fig2_finals`` cover (scale=quick's n = 512 since 2026-11-29)
FIG2_OLD_QUICK = dict(mw.FIG2["quick"], n=[8, 32, 128])


def _seeds(sc, cov, n, mean, sd=0.03, k=6):
    """Seed-scatter rows of (scheme, cov, n): k final errors with this mean and (about) this s.d."""
    return [{"scheme": sc, "covariance": cov, "n": n, "seed": 1000 * j, "error": mean + sd * (j - (k - 1) / 2) / 1.87}
            for j in range(k)]  # fmt: skip


def test_matthews_fig2_rows_without_seeds_are_open_where_both_work():
    """The audited fig2 rows: NOGIN with a 9349% error is no stable run; where two runs both work, their
    difference is judged against the seeds' scatter, so without seeds it is open (only a failing run decides);
    nothing converged for mSGLD: not tested."""
    finals = _fig2_finals()
    s = FIG2_OLD_QUICK
    ref_se = np.array([0.089, 0.154, 0.241, 0.183, 0.511, 0.066])
    md = _section("matthews2018-fig2", "quick", s, _passes_rows(finals), ("estimated", "exact"), ref_se,
                  dict.fromkeys(s["n"], (3.0, 0.5)))  # fmt: skip
    verdicts = dict(claims_of(md))
    claims = mw.FIG2_CLAIMS
    assert verdicts[claims["exact_nogin"].text] == "partly"  # better only at n = 8, where the estimate fails
    assert "fails at n = 8 (error 9349%)" in md and "within 2 s.e. at n = [32, 128]" in md
    assert (
        verdicts[claims["outperforms"].text] == "partly"
        and "NOGIN best at n = [32]" in md
        and "unresolved at n = [8], where no scheme works" in md
    )
    assert "mSGLD: seeds not measured" in md
    assert verdicts[claims["fifty"].text] == verdicts[claims["same", "msgld"].text] == "not tested: scale"
    # CC-ADL fails with both covariances at every n: the same stability (the white cells), the error half untested
    assert verdicts[claims["same", "ccadl"].text] == "partly" and "results/ccadl_diagnosis.md" in md
    assert "both fail at every n, n = [8, 32, 128]: the same stability" in md
    # a level never reached has no n (the twenty-second audit: "nan (n=None)" before)
    assert "passes to stay <= 1%: NOGIN never in the run, CC-ADL never in the run" in md and "n=None" not in md
    assert _counts(md) == {"partly": 3, "not tested": 2, "printed": 1, "statement": 4}
    assert "What a test of the rows not tested at scale=quick takes: u below 0.5%" in md
    # a precise reference alone resolves nothing now: the differences are judged against the seeds
    finals.update({("nogin", "exact", n): 0.01 for n in (32, 128)})
    md = _section("matthews2018-fig2", "quick", s, _passes_rows(finals), ("estimated", "exact"), ref_se / 100,
                  dict.fromkeys(s["n"], (3.0, 0.5)))  # fmt: skip
    assert dict(claims_of(md))[claims["exact_nogin"].text] == "partly"


@pytest.mark.parametrize("exact32, exact128, want", [(0.38, 0.46, "partly"), (0.38, 0.30, "reproduced"),
                                                     (0.55, 0.46, "partly")])  # fmt: skip
def test_matthews_fig2_nogin_differences_are_judged_against_the_seed_scatter(exact32, exact128, want):
    """The ninth audit: NOGIN against mSGLD, and NOGIN's exact covariance against the estimated one, are
    judged on the seeds' mean final errors in s.e. of their difference (the seeds' scatter), not against
    2u: 0.448 against 0.604 with seed s.d. about 0.03 over 6 seeds is resolved (NOGIN best at n = 128);
    the exact covariance better beyond 2 s.e. at n = 32 but not at n = 128 is partly; worse beyond 2 s.e.
    is a loss at that n."""
    finals = _fig2_finals()
    scatter = (_seeds("nogin", "estimated", 32, 0.466) + _seeds("nogin", "exact", 32, exact32)
               + _seeds("nogin", "estimated", 128, 0.448) + _seeds("nogin", "exact", 128, exact128)
               + _seeds("msgld", "estimated", 128, 0.604) + _seeds("msgld", "exact", 128, 0.606))  # fmt: skip
    s = FIG2_OLD_QUICK
    md = _section("matthews2018-fig2", "quick", s, _passes_rows(finals), ("estimated", "exact"), np.full(6, 0.2),
                  dict.fromkeys(s["n"], (3.0, 0.5)), scatter=scatter)  # fmt: skip
    verdicts = dict(claims_of(md))
    claims = mw.FIG2_CLAIMS
    assert (
        verdicts[claims["outperforms"].text] == "partly"
        and "NOGIN best at n = [32, 128]; unresolved at n = [8], where no scheme works" in md
    )
    assert "NOGIN 0.448 (0.03), mSGLD 0.604 (0.03), 6 and 6 seeds: mSGLD above by +9.0 s.e." in md
    assert verdicts[claims["exact_nogin"].text] == want
    if exact32 > 0.466:
        assert "not at n = [32]" in md
    # NOGIN behind mSGLD beyond 2 s.e. at n = 128 is a loss there
    scatter = [r for r in scatter if r["scheme"] != "msgld"] + _seeds("msgld", "estimated", 128, 0.40)
    md = _section("matthews2018-fig2", "quick", s, _passes_rows(finals), ("estimated", "exact"), np.full(6, 0.2),
                  dict.fromkeys(s["n"], (3.0, 0.5)), scatter=scatter)  # fmt: skip
    assert "NOGIN best at n = [32]; not at n = [128]; unresolved at n = [8], where no scheme works" in md


def test_matthews_fig2_no_difference_is_judged_against_the_seed_scatter():
    """mSGLD's 'no difference between the estimated and the exact covariance': the seeds' mean final
    errors at n = 128 within 2 s.e. of their difference is reproduced, a shift of 10 s.e. is not;
    the paired difference is reported beside it, in s.e. with two decimals and whether beyond 2 s.e."""
    nan = math.nan
    finals = {(sc, cov, n): nan for sc in mw.SCHEMES_23 for cov in ("estimated", "exact") for n in (8, 32, 128)}
    finals.update({("msgld", "estimated", 128): 0.575, ("msgld", "exact", 128): 0.578})
    s = FIG2_OLD_QUICK
    base = [0.575, 0.63, 0.573, 0.617, 0.607, 0.619]

    def scatter(shift, every=2):
        return [{"scheme": "msgld", "covariance": cov, "n": 128, "seed": 1000 * k + 2, "error": e + d}
                for k, e in enumerate(base) for cov, d in (("estimated", shift), ("exact", 0.001 * (k % every == 1)))]  # fmt: skip

    claim = mw.FIG2_CLAIMS["same", "msgld"].text
    args = ("matthews2018-fig2", "quick", s, _passes_rows(finals), ("estimated", "exact"), np.full(6, 0.2),
            dict.fromkeys(s["n"], (3.0, 0.5)))  # fmt: skip
    md = _section(*args, scatter=scatter(0.0))
    assert dict(claims_of(md))[claim] == "reproduced"
    assert "mean of 6" in md and "paired by seed" in md
    # the paired z with two decimals, and whether it is resolved (the twenty-first audit: -2.035 printed as -2.0)
    assert (
        "n = 128: -0.0005 +- 0.00022 (-2.24 s.e.: resolved), a shift of 0.1% of the error, 0.021 of the seeds' s.d. 0.024"
        in md
    )
    paired = _section(*args, scatter=scatter(0.0, every=3))
    assert dict(claims_of(paired))[claim] == "reproduced" and "(-1.58 s.e.: not resolved)" in paired
    assert dict(claims_of(_section(*args, scatter=scatter(0.2))))[claim].startswith("not reproduced")
    assert dict(claims_of(_section(*args)))[claim] == "not tested: scale"  # no seeds: the scatter is unknown


def _ccadl_at_512(exact=0.499, nogin_exact=0.611, exact_shift=0.0):
    """The CC-ADL row of Fig. 2 at scale=quick's grid: CC-ADL fails with both covariances at n = 8, 32, 128 and
    works at 512 (final errors, estimated 0.498, ``exact``), with 6 seeds of each there, and NOGIN's seeds at 512
    (estimated 0.611, exact ``nogin_exact``)."""
    s = mw.FIG2["quick"]
    finals = {(sc, cov, n): math.nan for sc in mw.SCHEMES_23 for cov in ("estimated", "exact") for n in s["n"]}
    finals.update({("ccadl", "estimated", 512): 0.498, ("ccadl", "exact", 512): exact,
                   ("nogin", "estimated", 512): 0.611, ("nogin", "exact", 512): nogin_exact})  # fmt: skip
    scatter = (_seeds("ccadl", "estimated", 512, 0.50) + _seeds("ccadl", "exact", 512, 0.50 + exact_shift + 0 * exact)
               + _seeds("nogin", "estimated", 512, 0.61) + _seeds("nogin", "exact", 512, nogin_exact))  # fmt: skip
    p = mw.Passes(_passes_rows(finals), s, np.full(6, 0.2), "", 1024, scatter)
    return mw.FIG2_CLAIMS.rules["same", "ccadl"](p)


def test_matthews_fig2_ccadl_no_difference_is_judged_where_it_works():
    """The twenty-second audit: scale=quick had no n at which CC-ADL works, and 'not tested: scale' stood for a test
    that costs seconds; n = 512 (the paper scale's, where CC-ADL is stable) is in scale=quick's grid now. Both
    covariances within 2 s.e. of the seeds there, and failing together at the other n, is reproduced; apart, or
    exactly one working, is not; NOGIN's own two covariances at the same n are named beside, and where they are
    within 2 s.e. too the reason says that n cannot show the paper's contrast."""
    assert 512 in mw.FIG2["quick"]["n"] and 512 in mw.FIG2["paper"]["n"]
    out = _ccadl_at_512()
    assert out.verdict == "reproduced" and "within 2 s.e. at n = [512]" in out.why
    assert "both fail at n = [8, 32, 128] (the same stability)" in out.why
    assert "10 passes are 1280 / 320 / 80 / 20 steps at n = 8 / 32 / 128 / 512" in out.why  # n = 512: the transient
    assert "NOGIN's estimated - exact over the same seeds: n = 512:" in out.why and "at n = [512] too" in out.why
    contrast = _ccadl_at_512(nogin_exact=0.40)  # NOGIN improved by the exact covariance beyond 2 s.e.
    assert contrast.verdict == "reproduced" and "NOGIN shows no difference either" not in contrast.why
    assert _ccadl_at_512(exact_shift=0.2).verdict.startswith("not reproduced")
    one = _ccadl_at_512(exact=math.nan)
    assert one.verdict.startswith("not reproduced") and "exactly one works at n = [512]" in one.why


@pytest.mark.parametrize("z, k, want", [(2.3, 5, "reproduced"), (2.7, 5, "not reproduced"), (3.0, 5, "not reproduced"),
                                        (2.65, 7, "reproduced")])  # fmt: skip
def test_matthews_fig1_nogin_flat_is_judged_at_the_family_wise_limit(z, k, want):
    """'Agnostic to h' is said of every h at once: |bias| within the two-sided 95% family-wise (Bonferroni) limit
    over the grid's k h, 2.58 s.e. for 5 h, 2.69 for 7 (the twenty-second audit: 3.5 s.e. before, without a basis,
    which passes z = 3.0; 2 s.e. at each h would fail z = 2.3, which an exact scheme reaches at one of 5 h about
    1 time in 10)."""
    assert mw.family_limit(5) == pytest.approx(2.5758, abs=1e-4) and mw.family_limit(7) == pytest.approx(
        2.6901, abs=1e-4
    )
    hs = [2 ** (-3 + j / 2) for j in range(k)]
    rows = [{"target": "gaussian", "scheme": "nogin", "h": h, "bias": (z if j == 1 else 0.1) * 0.0026, "se": 0.0026}
            for j, h in enumerate(hs)]  # fmt: skip
    rows += [{"target": "gaussian", "scheme": "msgld", "h": 0.25, "bias": -0.017, "se": 0.0026},
             {"target": "gaussian", "scheme": "ccadl", "h": 0.25, "bias": -0.18, "se": 0.0021}]  # fmt: skip
    out = mw.FIG1_CLAIMS.rules["nogin_flat"]({"bias": rows}, mw.FIG1["quick"])
    assert out.verdict.startswith(want) and f"max |bias|/s.e. = {z:.1f} over the {k} h" in out.ours
    assert f"the family-wise limit over {k} h is {mw.family_limit(k):.2f} s.e." in out.why
    assert "mSGLD's 0.017, CC-ADL's 0.18 at h = 0.25" in out.why
    assert "until 2026-11-29, the twenty-second audit, |bias| <= 3.5 s.e." in mw.FIG1_CLAIMS["nogin_flat"].tolerance


def _fig3_small_n(nogin6: float, msgld6: float, ccadl6: float = math.nan):
    """The section of a scale=quick Fig. 3 whose finals at n = 6 are these (NOGIN's first checkpoint at 1.5x)."""
    finals = {}
    for sc, e in (("nogin", (nogin6, 0.065, 0.331, 0.776)), ("msgld", (msgld6, 0.856, 0.954, 0.989)),
                  ("ccadl", (ccadl6, 0.337, 0.121, 0.743))):  # fmt: skip
        finals.update({(sc, "estimated", n): v for n, v in zip((6, 25, 100, 400), e)})
    s = mw.FIG3["quick"]
    load = dict.fromkeys(s["n"], (3.0, 0.5))
    return _section("matthews2018-fig3", "quick", s, _passes_rows(finals), ("estimated",), np.full(21, 0.0068), load)


@pytest.mark.parametrize("nogin6, msgld6, ccadl6, want", [
    (4.09, 0.570, math.nan, "partly"),  # NOGIN stable, biased beyond 'some'; mSGLD stable too
    (4.09, math.nan, math.nan, "partly"),  # both others unstable, but NOGIN's bias is more than 'some'
    (0.4, math.nan, math.nan, "reproduced"),
    (0.4, 0.570, math.nan, "partly"),
    (0.4, 0.570, 0.3, "not reproduced"),  # no other scheme unstable
    (math.nan, math.nan, math.nan, "not reproduced"),  # NOGIN unstable
])  # fmt: skip
def test_matthews_fig3_stable_at_small_n_is_finiteness_and_the_bias_apart(nogin6, msgld6, ccadl6, want):
    """The twenty-fourth audit: 'remains stable (though with some bias)' (§5.3) separates stability from bias, and
    Fig. 2 calls white (a chain non-finite) unstable, the test every scheme gets; NOGIN's 409% (finite) is stable,
    with more than 'some bias', which caps it at partly (the rule of 2026-11-29 before, stable = error below 100%
    for NOGIN alone, gave not reproduced)."""
    md = _fig3_small_n(nogin6, msgld6, ccadl6)
    claims = mw.FIG3_CLAIMS
    assert dict(claims_of(md))[claims["stable_small_n"].text] == want
    if (nogin6, msgld6) == (4.09, 0.570):
        assert "NOGIN stable at n = 6 (finite; error 6.13 after 5 passes and 4.09 after 10 passes, falling" in md
        assert "a 409% error, 4.1 times the 100% at which the section's other rows call a run not working" in md
        assert "mSGLD stable too, with a 57.0% error; CC-ADL unstable" in md
        assert "'the other schemes cannot deliver' holds for CC-ADL only" in md
        assert _counts(md) == {"partly": 2, "not reproduced": 1, "not tested": 1, "printed": 1, "statement": 3}
    tolerance = claims["stable_small_n"].tolerance
    assert "Fig. 2's 'white indicating instability'), the same test for every scheme" in tolerance
    assert "the twenty-fourth audit" in tolerance and "gave not reproduced" in tolerance
    assert mw._passes_text(1.00016) == "1 pass" and mw._passes_text(100.0) == "100 passes"  # not '1 passes'


def test_fig3_passes_count_the_papers_n():
    """Fig. 3's passes are over the paper's N = 12214 (§5.3), not the target's N: the run takes
    passes x 12214 / n steps and reports passes = steps x n / 12214 (data_passes over the
    target's own N); counting over the target's N (1024 here) would take 12x fewer steps."""
    assert mw.FIG3["paper"]["pass_N"] == mw.FIG3["quick"]["pass_N"] == mw.N_PAPER_FIG3 == 12214
    assert "pass_N" not in mw.FIG2["paper"]  # the GMM's N = 1024 is the paper's own
    pot = build_target(["dataset=gmm3"], seed=0, threads=1).potential
    x0 = torch.zeros(2, pot.dim, dtype=torch.float64)
    ref = np.ones(2 * pot.K)
    kw = {"h": 0.02, "x0": x0, "max_passes": 1.0, "n_checks": 3}
    rows = passes.passes_error(pot, pot.natural, ref, "nogin", "estimated", 100, pass_n=12214, **kw)
    last = rows[-1]
    assert last["steps"] == round(12214 / 100) == 122  # the last checkpoint; the run takes ceil(...) = 123
    assert last["passes"] == pytest.approx(122 * 100 / 12214) == pytest.approx(1.0, abs=0.01)
    assert last["data_passes"] == pytest.approx(122 * 100 / pot.n_data)
    own = passes.passes_error(pot, pot.natural, ref, "nogin", "estimated", 100, **kw)
    assert own[-1]["steps"] == round(pot.n_data / 100) == 10 and own[-1]["passes"] == own[-1]["data_passes"]
    # the section says so, and the 1% row is judged on passes over the paper's N
    finals = {
        (sc, "estimated", n): e for sc in mw.SCHEMES_23 for n, e in zip((6, 25, 100, 400), (0.5, 0.02, 0.008, 0.3))
    }
    rows = [dict(r, passes=r["passes"] * 10) for r in _passes_rows(finals)]  # checkpoints at 50 and 100 passes
    s = dict(mw.FIG3["quick"], passes=100.0)
    md = _section("matthews2018-fig3", "paper", s, rows, ("estimated",), np.full(21, 0.001),
                  dict.fromkeys(s["n"], (0.1, 0.0)), n_data=800)  # fmt: skip
    assert "up to 100 passes counted over the paper's N = 12214" in md and "1527 passes over them" in md
    line = next(x for x in md.splitlines() if x.startswith("| NOGIN reaches about a 1% error in one hundred passes"))
    assert "| reproduced |" in line and "passes to stay <= 1%: 100 (n=100)" in line
    assert "lowest error after <= 100 passes (over the paper's N = 12214): 0.008 at n = 100 after 100 passes" in line
    assert "passes count the paper's N = 12214" in line and "1527 passes over our N = 800" in line


def _fig1_conv(errs: dict, paired: float = 0.85):
    """The last error_vs_iterations row of each (target, scheme): {scheme: (mean, s.e.)} on both targets; the
    difference to NOGIN's paired by run with ``paired`` times the s.e. of independent runs."""
    ng = errs["nogin"]
    return [{"target": t, "scheme": sc, "h": 0.25, "iterations": 15000, "mean_abs_error": m, "se_abs_error": se,
             "diverged": 0 if math.isfinite(m) else 306, "runs": 400,
             "diff_vs_nogin": m - ng[0] if sc != "nogin" else math.nan,
             "diff_vs_nogin_se": paired * math.hypot(se, ng[1]) if sc != "nogin" else math.nan}
            for t in mw.FIG1_TARGETS for sc, (m, se) in errs.items()]  # fmt: skip


@pytest.mark.parametrize("msgld, want", [((0.0495, 0.0020), "reproduced"), ((0.0280, 0.0020), "partly"),
                                         ((0.0200, 0.0005), "not reproduced (7.2 s.e.)")])  # fmt: skip
def test_matthews_fig1_finite_time_is_judged_with_its_noise(msgld, want):
    """The ninth audit: NOGIN's mean |Var error| after the run against each other scheme's, in s.e. of the
    difference: below all beyond 2 s.e. is reproduced, within 2 s.e. of one is partly, another below beyond 2 s.e.
    is not reproduced; a mostly diverged scheme is higher. The seventeenth: the schemes share seed 7 and x = 0, so
    the difference's s.e. is the paired one (here 0.85x the independent one), the independent one beside."""
    conv = _fig1_conv({"nogin": (0.0268, 0.0010), "msgld": msgld, "ccadl": (math.nan, math.nan),
                       "baoab": (0.1828, 0.0020)})  # fmt: skip
    out = mw._finite_at("gaussian", {"conv": conv}, mw.FIG1["quick"])
    assert out.verdict == want and "nogin 0.0268 ± 0.0010" in out.ours and "ccadl (diverged)" in out.ours
    if want == "reproduced":
        assert "msgld +11.9 s.e. (+10.2)" in out.ours
    assert "partly:" in mw._FINITE["tolerance"] and "paired by run" in mw._FINITE["method"]


def test_toy_convergence_reports_the_error_s_e_over_runs():
    rows, edges, dens, extra = toys.toy_convergence("gaussian", "nogin", 0.25, 50, 200, seed=3, groups=5)
    assert all(0 < r["se_abs_error"] < r["mean_abs_error"] for r in rows[-3:])
    # the blocks of runs add up to the histogram; each run's error at each checkpoint, averaging to the row's
    counts = extra["group_counts"]
    assert counts.shape == (5, len(edges) - 1) and counts.sum() > 0
    assert np.allclose(counts.sum(0) / counts.sum() / np.diff(edges), dens)
    last = rows[-1]
    assert np.nanmean(extra["errors"][last["iterations"]]) == pytest.approx(last["mean_abs_error"])


def test_mirror_asymmetry_and_its_jackknife():
    edges = np.linspace(-2, 2, 5)
    assert toys.mirror_asymmetry([1, 2, 2, 1], edges) == 0.0
    assert toys.mirror_asymmetry([0, 0, 1, 1], edges) == pytest.approx(2.0)  # all mass on one side
    with pytest.raises(ValueError, match="symmetric"):
        toys.mirror_asymmetry([1, 1], [0.0, 1.0, 2.0])
    sym = np.array([[5, 10, 10, 5]] * 4)
    tilt = np.array([[5, 10, 10, 5], [6, 10, 10, 4], [4, 10, 10, 6], [7, 10, 10, 3]])
    d, se = toys.asymmetry_difference(sym, tilt, edges)
    assert d == pytest.approx(toys.mirror_asymmetry(tilt.sum(0), edges)) and se > 0
    assert toys.asymmetry_difference(sym, sym, edges) == (0.0, 0.0)


def _fig1_inset_res(tilt: dict, bias: dict, bump: dict | None = None, seed: int = 3):
    """A Fig. 1 record for the inset rule: double-well biases {scheme: (bias, se)} at h = 0.25 and histograms of 8
    blocks of 37,500 points each (the scale=quick run's 300,000 in 8 blocks) drawn from the exact law's bin masses,
    block k of scheme sc with tilt[sc] * (k % 3 + 1) counts moved from bin 29 to its mirror bin 40 (asymmetric) and
    (``bump``) bump[sc] * (k % 3 + 1) counts moved from the modes' bins 20 and 49 to the two bins either side of 0
    (symmetric, off the exact density)."""
    rng = np.random.default_rng(seed)
    edges = np.linspace(-3.5, 3.5, 71)
    q = toys.exact_bin_masses("double_well", edges)
    groups = {}
    for sc, tl in tilt.items():
        g = rng.multinomial(37_500, q, size=8).astype(float)
        k = np.arange(8) % 3 + 1
        g[:, 29] -= tl * k
        g[:, 40] += tl * k
        b = (bump or {}).get(sc, 0) * k
        g[:, [20, 49]] -= b[:, None]
        g[:, [34, 35]] += b[:, None]
        groups["double_well", sc] = g
    hists = {k: g.sum(0) / g.sum() / np.diff(edges) for k, g in groups.items()}
    rows = [{"target": "double_well", "scheme": sc, "h": 0.25, "bias": b, "se": se, "diverged": 0, "chains": 4000}
            for sc, (b, se) in bias.items()]  # fmt: skip
    return {"bias": rows, "groups": groups, "hists": hists, "edges": edges, "conv": []}


# the left panel's Var biases at h = 0.25 of the scale=quick run's double well: mSGLD's |Var bias| the smallest
FIG1_DW_BIAS = {"nogin": (-0.0155, 0.0012), "msgld": (-0.0073, 0.0014), "ccadl": (-0.055, 0.0012),
                "baoab": (0.049, 0.0012)}  # fmt: skip


@pytest.mark.parametrize("tilt, bump, want", [
    # the committed double well's pattern: NOGIN and mSGLD both symmetric, mSGLD's histogram farther from the exact
    # density, CC-ADL asymmetric and far off it: every part of the sentence holds
    ({"ccadl": 150}, {"msgld": 150, "ccadl": 600}, "reproduced"),
    ({"ccadl": 150}, {"ccadl": 600}, "partly"),  # mSGLD as close to the exact density as NOGIN: one bias unresolved
    ({"nogin": 60, "ccadl": 150}, {"msgld": 400, "ccadl": 600}, "partly"),  # NOGIN's asymmetry resolved above 0
    ({"nogin": 0, "msgld": 60, "ccadl": 150}, {"nogin": 400}, "not reproduced"),  # NOGIN the farthest off
])  # fmt: skip
def test_matthews_fig1_inset_judges_the_insets_own_bias_and_minimal_symmetry_breaking(tilt, bump, want):
    """The twenty-eighth audit: 'the distributions produced by NOGIN in the inset show an improvement with a smaller
    bias and with minimal breaking of symmetry' (§5.1) is judged on the inset, the final histograms against the
    exact density: a smaller bias is a smaller distance to the exact density than mSGLD's and CC-ADL's beyond 2 s.e.
    (the left panel's |Var bias|, from other runs, beside), minimal breaking of symmetry is NOGIN's asymmetry not
    resolved above 0 and not above another scheme's beyond 2 s.e. Until then the tiers read the bias off |Var bias|
    (mSGLD's the smaller here) and asked NOGIN's asymmetry to be below mSGLD's beyond 2 s.e., which a symmetric
    mSGLD never allows: that rule gave partly on the first case, as the row says."""
    res = _fig1_inset_res({"nogin": 0, "msgld": 0, "baoab": 150} | tilt, FIG1_DW_BIAS, bump=bump | {"baoab": 300})
    out = mw.FIG1_CLAIMS.rules["inset", "double_well"](res, mw.FIG1["quick"])
    assert out.verdict.startswith(want)
    assert out.ours.startswith("distance to the exact density sum (p(x) - p_exact(x))^2 dx, from different blocks: ")
    assert "; beside, the left panel's Var bias at h = 0.25: nogin -0.0155 ± 0.0012" in out.ours
    assert "the rule until 2026-11-29 (the twenty-eighth audit" in out.why
    if want == "reproduced":
        assert out.why.startswith("a smaller bias (density distance) than msgld, ccadl; NOGIN's asymmetry")
        assert "no other scheme's below it beyond 2 s.e.: minimal breaking of symmetry" in out.why
        assert "bias vs msgld depends on the measure: NOGIN's density distance below by" in out.why
        assert ") gave partly (NOGIN better: bias vs ccadl, symmetry vs ccadl; NOGIN worse: bias vs msgld" in out.why
    if "nogin" in tilt and tilt["nogin"]:
        assert "(resolved above 0)" in out.why and ": not minimal" in out.why
    # the L1 history and the mass rule of the rules before stay in the double well's row
    assert "the L1 asymmetry sum |p(x) - p(-x)| dx of the pooled histogram (the measure until 2026-11-29" in out.why
    assert "every scheme within" in out.why and "with the s.e. bound se_a + se_b" in out.why


def test_matthews_fig1_inset_rule_states_the_papers_words_and_its_history():
    """Both insets are claims (the Gaussian's since the twenty-fourth audit), the double well's keeping its id; the
    paper column quotes §5.1, and the tolerance gives each rule before with its date."""
    keys = [k for k in mw.FIG1_CLAIMS if k[0] == "inset"]
    assert keys == [("inset", "double_well"), ("inset", "gaussian")] and list(mw.FIG1_CLAIMS)[8] == keys[0]
    claim = mw.FIG1_CLAIMS[keys[0]]
    assert mw.FIG1_CLAIMS[keys[1]].text.endswith("(Gaussian, h = 0.25)")
    assert "show an improvement with a smaller bias and with minimal breaking of symmetry" in claim.paper
    for words in (
        "until 2026-11-29, the twenty-eighth audit, after the result was seen",
        "which every scheme passes",
        "mean is the sampled law's own value whatever the sample size",
        "the nineteenth audit",
    ):
        assert words in claim.tolerance
    assert mw._inset_verdict({"msgld": 5.2, "ccadl": 8.3}, True, "", "").verdict == "reproduced"
    assert mw._inset_verdict({"msgld": 0.5, "ccadl": 44.0}, True, "", "").verdict == "partly"
    assert mw._inset_verdict({"msgld": 0.5, "ccadl": 1.0}, True, "", "").verdict == "not tested: scale"
    assert mw._inset_verdict({"msgld": 0.5, "ccadl": 1.0}, False, "", "").verdict == "not reproduced"
    assert mw._inset_verdict({"msgld": -3.0, "ccadl": 1.0}, True, "", "").verdict == "not reproduced (3.0 s.e.)"


def test_matthews_fig1_inset_names_an_unresolved_bias_comparison_a_scale_limit():
    """The thirty-seventh audit: a density-distance comparison within 2 s.e. is unresolved at the run's size, not a
    measured equality. The reason gives the gap the left panel's Var biases predict (each law the exact one stretched
    to its Var bias: N(0, 1 + bias) on the Gaussian, checked here against the normal CDF), in s.e. of the measured
    difference, and prices the run that would resolve it, an expected 2.84 s.e.: (2.84 / z) to (2.84 / z)^2 times
    the runs, at most the latter times the figure's CPU seconds in results/costs.csv; a comparison beyond 2 s.e.
    gets no such clause, nor a predicted gap NOGIN does not win."""
    from scipy.stats import norm

    edges = np.linspace(-3.5, 3.5, 71)

    def binned(var):  # N(0, var)'s bin masses, normalised over the histogram's range
        m = np.diff(norm.cdf(edges / math.sqrt(var)))
        return m / m.sum()

    for b in (0.0166, -0.05):
        want = np.sum((binned(1 + b) - binned(1.0)) ** 2 / np.diff(edges))
        assert mw.stretched_distance("gaussian", edges, b) == pytest.approx(want, rel=1e-6)
    at = {sc: {"bias": b, "se": 0.003} for sc, b in (("nogin", 0.0036), ("msgld", 0.0166), ("ccadl", -0.18))}
    gap = mw.stretched_distance("gaussian", edges, 0.0166) - mw.stretched_distance("gaussian", edges, 0.0036)
    se = 1.3e-5
    res = {"edges": edges, "groups": {("gaussian", "nogin"): np.ones((8, 70))}}
    words = mw._unresolved_words("gaussian", res, mw.FIG1["quick"], at,
                                 {"msgld": (6.6e-6, se), "ccadl": (0.0044, 1e-4)})  # fmt: skip
    z = gap / se
    assert 0.9 < z < 1.2  # the committed run's: about 1.4e-5 against an s.e. of 1.3e-5
    assert words.startswith("bias vs msgld unresolved at this run's size, a limit of scale, not a measured equality")
    assert f"NOGIN's below by {gap:.2g}, {z:.1f} s.e. of the measured difference ({se:.2g})" in words
    cpu = float(measured_costs(Path(__file__).resolve().parents[2] / "results")["matthews2018-fig1", "quick"]["cpu_s"])
    hi = (2.8416 / z) ** 2
    assert f"needs {2.8416 / z:.1f} to {hi:.1f} times the 400 runs" in words
    assert f"about {hi:.1f} x {cpu:.0f} = {hi * cpu:.0f} CPU-s" in words
    assert "bias vs ccadl" not in words  # resolved (44 s.e.): no clause
    # a predicted gap against NOGIN (the other scheme's |Var bias| the smaller): no run size would resolve it
    flipped = mw._unresolved_words("gaussian", res, mw.FIG1["quick"], at | {"msgld": at["nogin"],
                                   "nogin": at["msgld"]}, {"msgld": (6.6e-6, se), "ccadl": (0.0044, 1e-4)})  # fmt: skip
    assert flipped.endswith("no run size would show NOGIN's smaller") and "CPU-s" not in flipped
    # the tolerance says so, with its date
    claim = mw.FIG1_CLAIMS["inset", "gaussian"]
    assert "a bias comparison within 2 s.e. is unresolved at the run's size" in claim.tolerance
    assert "since 2026-11-30, the thirty-seventh audit" in claim.tolerance


def test_matthews_fig1_reads_its_committed_files_back():
    """``fig1_res_from_files`` rebuilds the run from the committed CSVs: the rules judge it to the committed verdicts,
    the inset rows' numbers (histogram blocks and Var biases) to the letter."""
    folder = Path(__file__).resolve().parents[2] / "results" / "matthews2018-fig1"
    res = mw.fig1_res_from_files(folder)
    with (folder / "claims.csv").open(newline="") as f:
        old = list(csv.DictReader(f))
    scale = old[0]["setting"].split("scale=")[1].split()[0]
    outs = mw.FIG1_CLAIMS.outcomes(res, mw.FIG1[scale])
    assert [o.verdict for _, o in outs] == [r["verdict"] for r in old]
    assert [o.ours for c, o in outs if "final distribution" in c.text] == [
        r["ours"] for r in old if "final distribution" in r["claim"]
    ]
    assert res["groups"]["gaussian", "nogin"].shape == (8, 70) and len(res["edges"]) == 71


def test_matthews_fig1_quick_inset_reports_the_paper_scale_run(monkeypatch, tmp_path):
    """The thirty-eighth audit: at scale=quick, an unresolved inset comparison says what scale=paper gives for it,
    read from its files (the committed section since the thirty-ninth audit) with its CPU seconds from
    results/costs.csv; where it has
    not run, its price from the quick ledger row scaled by the steps of the two scales (the auditor's count: left
    panel sum 400/h = 19,919 against sum 150/h = 3,373 for three schemes, mSGLD's steps (h^2/2) apart, right 100,000
    against 15,000 iterations)."""
    s_q, s_p = mw.FIG1["quick"], mw.FIG1["paper"]
    assert sum(s_p["T"] / h for h in s_p["h"]) == pytest.approx(19919, abs=1)
    assert sum(s_q["T"] / h for h in s_q["h"]) == pytest.approx(3374, abs=2)
    msgld = [sum(2 * s["T_sgld"] / h**2 for h in s["h"]) for s in (s_q, s_p)]
    want = (1.1 * (3 * 19919 + msgld[1]) + 4 * 100_000) / (1.1 * (3 * 3374 + msgld[0]) + 4 * 15_000)
    assert mw._paper_steps_ratio() == pytest.approx(want, rel=2e-3)
    committed = Path(__file__).resolve().parents[2] / "results"
    monkeypatch.setattr(mw, "_results_dir", lambda: tmp_path)
    (tmp_path / "costs.csv").write_text(
        "figure,scale,options,wall_s,cpu_s,date,machine,cpu_model\n"
        "matthews2018-fig1,quick,,40,40,2026-11-30,x86_64 2 cores,cpu\n"
    )
    unrun = mw._paper_side_words("gaussian", "msgld", 300000)
    r = mw._paper_steps_ratio()
    assert f"not run: at least about {r:.1f} x 40 = {r * 40:.0f} CPU-s" in unrun
    # the quick run's files in the section's place are not the paper run's: still priced, not read
    main = tmp_path / "matthews2018-fig1"
    main.mkdir(parents=True)
    for name in ("bias_vs_h.csv", "error_vs_iterations.csv", "distributions_h0.25.csv"):
        (main / name).write_text((committed / "matthews2018-fig1" / mw.QUICK_SIDE / name).read_text())
    with (tmp_path / "costs.csv").open("a") as f:
        f.write("matthews2018-fig1,paper,,900,600,2026-11-30,x86_64 2 cores,cpu\n")
    assert "not run: at least about" in mw._paper_side_words("gaussian", "msgld", 123)
    # the committed section, the scale=paper run since the thirty-ninth audit: its margin, read from its files
    for name in ("bias_vs_h.csv", "error_vs_iterations.csv", "distributions_h0.25.csv"):
        (main / name).write_text((committed / "matthews2018-fig1" / name).read_text())
    words = mw._paper_side_words("gaussian", "msgld", 123)
    _, diff = mw._density_distances(mw.fig1_res_from_files(main), "gaussian")
    d, se = diff["msgld"]
    assert f"by {d:.2g} ± {se:.2g} ({d / se:+.1f} s.e.), resolved in NOGIN's favour; its row there: reproduced" in words
    assert "600 CPU-s in results/costs.csv" in words and "against 123 here" in words
    assert words.startswith("scale=paper, run 2026-11-30")


def test_cross_block_distance_to_the_exact_density():
    """sum (p - p_exact)^2 dx from products of different blocks: about 0 (within its jackknife s.e.) for draws of
    the exact law at any size, and the binned distance for another law."""
    rng = np.random.default_rng(5)
    edges = np.linspace(-3.5, 3.5, 71)
    q = toys.exact_bin_masses("gaussian", edges)
    assert q.sum() == pytest.approx(1.0) and q[35] == pytest.approx(scipy.stats.norm.cdf(0.1) - 0.5, rel=1e-3)
    for size in (200, 5000):
        g = np.array([np.histogram(rng.standard_normal(size), edges)[0] for _ in range(8)])
        d, se = toys.block_jackknife(lambda k, g=g: toys.cross_block_distance(g[k], edges, q), 8)
        assert abs(d) < 3 * se
    g = np.array([np.histogram(rng.normal(0.3, 1.0, 20_000), edges)[0] for _ in range(8)])
    shifted = np.diff(scipy.stats.norm.cdf(edges, 0.3))
    want = float(np.sum((shifted / shifted.sum() - q) ** 2 / np.diff(edges)))
    d, se = toys.block_jackknife(lambda k: toys.cross_block_distance(g[k], edges, q), 8)
    assert d == pytest.approx(want, abs=3 * se) and want > 10 * se


def test_cross_block_asymmetry_has_no_noise_floor():
    """The nineteenth audit: the L1 mirror asymmetry of a pooled histogram is biased upward by sampling noise, the
    more the fewer its points; the cross-block estimate of sum (p(x) - p(-x))^2 dx has mean 0 for a symmetric law
    at any size and the law's value for an asymmetric one."""
    edges = np.linspace(-2, 2, 9)
    w = np.diff(edges)
    sym = np.array([1, 2, 4, 8, 8, 4, 2, 1]) / 30
    tilt = np.array([1, 2, 4, 7, 9, 4, 2, 1]) / 30
    rng = np.random.default_rng(0)
    for n, law in itertools.product((50, 5000), (sym, tilt)):
        draws = [rng.multinomial(n, law, size=8) for _ in range(400)]
        cross = np.array([toys.cross_block_asymmetry(g, edges) for g in draws])
        truth = np.sum((law / w - law[::-1] / w) ** 2 * w)
        assert abs(cross.mean() - truth) < 3 * cross.std(ddof=1) / math.sqrt(len(cross))
        if law is sym:  # the plug-in L1 measure sits well above 0, higher at the smaller size
            l1 = np.mean([toys.pooled_asymmetry(g, edges) for g in draws])
            assert l1 > (0.05 if n == 50 else 0.005)
    g = rng.multinomial(500, tilt, size=8)
    assert toys.cross_block_asymmetry(g, edges) == pytest.approx(
        sum(np.sum((g[a] - g[a, ::-1]) * (g[b] - g[b, ::-1]) / w) for a in range(8) for b in range(8) if a != b)
        / (8 * 500) ** 2
        * 8
        / 7
    )
    assert math.isnan(toys.cross_block_asymmetry(np.array([[1, 2, 2, 1], [0, 0, 0, 0]]), np.linspace(-2, 2, 5)))
    value, se = toys.block_jackknife(lambda k: float(np.mean(np.arange(8.0)[k])), 8)
    assert value == 3.5 and se == pytest.approx(np.std(np.arange(8.0), ddof=1) / math.sqrt(8))


def test_friction_load_of_the_estimated_covariance():
    """Data -a, -a, a, a: a minibatch of 2 (without replacement) has gradients of opposite sign
    with probability 4/6, batch variance 2 a^2, eps(2) = 4 x 2 / 2, so (h^2/2) lambda = 4 h^2 a^2;
    else 0."""
    from bnnsample.models.analytic import GaussianMean

    a, h = 10.0, 0.1
    pot = GaussianMean(torch.tensor([-a, -a, a, a], dtype=torch.float64), torch.ones(4, dtype=torch.float64))
    median, share = passes.friction_load(pot, torch.zeros(1, 1, dtype=torch.float64), h, 2, batches=2000)
    assert median == pytest.approx(4 * h * h * a * a) and share == pytest.approx(4 / 6, abs=0.035)
    assert passes.friction_load(pot, torch.zeros(1, 1, dtype=torch.float64), h / 2, 2) == (pytest.approx(1.0), 0.0)


@pytest.mark.parametrize("final, u, want", [(0.0141, 0.0035, "reproduced"), (0.0141, 0.001, "reproduced"),
                                            (0.0155, 0.0035, "partly"), (0.0300, 0.0035, "not reproduced"),
                                            (0.008, 0.0035, "reproduced"), (0.008, 0.006, "not tested")])  # fmt: skip
def test_fig3_about_one_percent_is_judged_within_our_run_to_run_noise(final, u, want):
    """'around a 1% error from using one hundred passes': NOGIN's lowest error after <= 100 passes within 1% + 2s
    (s: NOGIN's s.d. over the seeds of seed_scatter.csv, here 0.23%, with the reference's share u / sqrt(D); 1.48%
    with u = 0.35%) reproduces it, as does one <= 1% without seeds (the twenty-first audit: 'around 1%', not 'at
    most 1%'; 1.41% was partly); within 2% + 2s (a factor 2 looser) partly; beyond, not reproduced by its size in
    s; a reference with 2u >= 1%: not tested; above 1% without two seeds: not tested."""
    finals = {
        (sc, "estimated", n): e for sc in mw.SCHEMES_23 for n, e in zip((6, 25, 100, 400), (0.5, 0.05, final, 0.3))
    }
    rows = [dict(r, passes=r["passes"] * 10) for r in _passes_rows(finals)]
    errs = final + 0.0023 * np.array([-1.0, 1.0, 0.0])  # s.d. 0.0023
    scatter = [{"scheme": "nogin", "covariance": "estimated", "n": 100, "seed": 1000 * k + 2, "error": e}
               for k, e in enumerate(errs)]  # fmt: skip
    s = dict(mw.FIG3["quick"], passes=100.0)
    one = mw._one_pct(mw.Passes(rows, s, np.full(21, u), "", None, scatter))
    assert one.verdict.startswith(want)
    sd = mw._noise_of_error(np.full(21, u), 0.0023)
    assert sd == pytest.approx(math.hypot(0.0023, u / math.sqrt(21)))
    assert (
        f"lowest error after <= 100 passes (over the paper's N = 12214): {final:.3g} at n = 100 after 100 passes"
        in one.ours
    )
    if want == "not reproduced":
        assert one.verdict == f"not reproduced ({(final - 0.01) / sd:.1f} s.e.)"
        assert f"beyond 1% + 2s = {0.01 + 2 * sd:.2%} and 2% + 2s = {0.02 + 2 * sd:.2%}" in one.why
    if want == "partly":
        assert f"within 2% + 2s = {0.02 + 2 * sd:.2%}, a factor 2 looser" in one.why
    alone = mw._one_pct(mw.Passes(rows, s, np.full(21, u), "", None, scatter[:1]))
    if final > 0.01 and want != "not tested":  # above 1% the noise decides: it needs two seeds
        assert "0.23% over 3 seeds at n = 100" in one.why
        assert alone.verdict == "not tested: scale" and "fewer than two finite NOGIN seeds" in alone.why
    if final > 0.01 and want == "reproduced":
        assert f"is about 1%: within 1% + 2s = {0.01 + 2 * sd:.2%}" in one.why and "never stays <= 1%" in one.why
    if final <= 0.01 and want == "reproduced":  # at most 1% needs no noise
        assert alone.verdict == "reproduced" and "is at most 1%" in alone.why


def test_fig3_about_one_percent_after_more_passes_is_partly():
    """About 1% only after more than one hundred passes is partly: the error after <= 100 passes is the one judged
    (here 1.95% after 100, beyond 1% + 2s), the end of a 200-pass run (1.3%) within 1% + 2s. The thirty-seventh
    audit: the paper prints 'one hundred passes', so 100, not 150 ('about one hundred') as until 2026-11-30; the
    rule until then, which here reads the 1.30% at 200 passes as well (checkpoints at 100 and 200 passes), is named
    with what it gives only where its e differs."""
    finals = {
        (sc, "estimated", n): e for sc in mw.SCHEMES_23 for n, e in zip((6, 25, 100, 400), (0.5, 0.02, 0.013, 0.3))
    }
    scatter = [{"scheme": "nogin", "covariance": "estimated", "n": 100, "seed": k, "error": 0.013 + 0.0023 * d}
               for k, d in enumerate((-1.0, 1.0, 0.0))]  # fmt: skip
    rows = [dict(r, passes=r["passes"] * 20) for r in _passes_rows(finals)]  # checkpoints at 100 and 200 passes
    one = mw._one_pct(mw.Passes(rows, dict(mw.FIG3["quick"], passes=200.0), np.full(21, 0.0035), "", None, scatter))
    assert one.verdict == "partly"
    assert "after <= 100 passes (over the paper's N = 12214): 0.0195 at n = 100 after 100 passes" in one.ours
    assert "about 1% only after more passes: 1.30% at n = 100 after 200" in one.why
    assert "the rule until 2026-11-30" not in one.why  # 150 passes read the same checkpoint at 100
    rows = [dict(r, passes=r["passes"] * 15) for r in _passes_rows(finals)]  # checkpoints at 75 and 150 passes
    one = mw._one_pct(mw.Passes(rows, dict(mw.FIG3["quick"], passes=150.0), np.full(21, 0.0035), "", None, scatter))
    assert "after <= 100 passes (over the paper's N = 12214): 0.0195 at n = 100 after 75 passes" in one.ours
    assert one.verdict == "partly"  # 1.30% only at 150 passes, after one hundred
    assert (
        "the rule until 2026-11-30 (the thirty-seventh audit: e after at most 150 passes) read 1.30% at n = 100 "
        "after 150 passes, which gave reproduced" in one.why
    )
    claim = mw.FIG3_CLAIMS["one_pct"]
    assert claim.text == "NOGIN reaches about a 1% error in one hundred passes" and claim.paper == "~1% at 100 passes"
    assert "after at most 100 passes ('one hundred passes')" in claim.tolerance
    assert "changed on 2026-11-29, the twenty-first audit" in claim.tolerance and "1.48%" in claim.tolerance
    assert "until 2026-11-30, the thirty-seventh audit, after the run was seen: e after at most 150" in claim.tolerance


@pytest.mark.parametrize("nogin, ccadl, want", [(2.0, 100.0, "reproduced"), (2.0, 300.0, "partly"),
                                                (2.0, 20.0, "not reproduced"), (2.0, math.inf, "partly"),
                                                (math.inf, 50.0, "not reproduced")])  # fmt: skip
def test_fig2_fifty_times_fewer_passes_tiers(monkeypatch, nogin, ccadl, want):
    """'About 50x fewer passes': a ratio in [25, 100] (within a factor 2; the fourteenth audit: no upper end
    before); above it partly, as is a ratio bounded below only (CC-ADL not at 1% in the run); below 25, or
    NOGIN never staying <= 1%, not reproduced."""
    at = {"nogin": nogin, "ccadl": ccadl}
    monkeypatch.setattr(mw, "passes_to", lambda rows, sc, cov, level: (at[sc], 8))
    p = mw.Passes([], dict(mw.FIG2["quick"], passes=1000.0), np.full(6, 1e-4), "", None)
    assert mw.FIG2_CLAIMS.rules["fifty"](p).verdict.startswith(want)


def test_fig2_test_cost_is_priced_from_the_committed_reference_sizes():
    """The twenty-second audit: the 'about 50x fewer passes' row priced its test from one reference size measured
    in prose only; REF_SIZES is now results/matthews2018-fig2/reference_sizes.csv (CPU seconds, u, the variance
    of lambda_2 and its relative s.e.), and the row gives the price from each size, (u / 0.5%)^2 times its CPU
    seconds."""
    import csv

    path = Path(__file__).resolve().parents[2] / "results" / "matthews2018-fig2" / "reference_sizes.csv"
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    sizes = {(int(r["chains"]), int(r["steps"])) for r in rows}
    assert sizes == set(mw.REF_SIZES)
    for (c, t), (cpu, u, var4, se4) in mw.REF_SIZES.items():
        r = next(r for r in rows if (int(r["chains"]), int(r["steps"])) == (c, t) and r["coordinate"] == "4")
        assert cpu == pytest.approx(float(r["cpu_s"]), abs=0.5) and u == pytest.approx(float(r["u"]), abs=5e-4)
        assert var4 == pytest.approx(float(r["variance"]), rel=0.02) and se4 == pytest.approx(
            float(r["variance_rel_se"]), abs=5e-3
        )
        hours = (float(r["u"]) / 0.005) ** 2 * float(r["cpu_s"]) / 3600
        assert mw.ref_hours()[c, t] == pytest.approx(hours, rel=0.02)
        assert (
            f"{c} x {t}, {cpu:.0f} CPU-s: u = {u:.1%}, about {mw.ref_hours()[c, t]:.1f} CPU-hours"
            in mw.NEEDS["matthews2018-fig2"]
        )
    # priced from the largest reference, the committed run's 256 x 20000 (the thirty-second audit: the range from
    # the 64 x 8000's 3.2 CPU-hours was 8x low, u not falling with size), the smaller sizes' prices beside it
    u = sum(float(r["variance_rel_se"]) for r in csv.DictReader(path.with_name("reference.csv").open())) / 6
    cpu = 382.5 / (256 * 9600) * 256 * 24000
    assert f"a reference of about {(u / 0.005) ** 2 * cpu / 3600:.0f} CPU-hours by 1/sqrt(chain-steps) from the " \
           "committed run's 256 x 20000 reference" in mw.FIG2_TEST["fifty"]  # fmt: skip
    assert "3.2 from the 64 x 8000, 25.9 from the 256 x 8000" in mw.FIG2_TEST["fifty"]
    assert "at least 25 times NOGIN's passes" in mw.FIG2_TEST["fifty"]
    # the scale=paper figure's cost (the twenty-fifth audit: was a hard-coded 17 CPU-minutes): its 256 x 20000
    # reference at the 256 x 8000 reference's cost per chain-step, 382.5 / 256 / 9600 CPU-s, and 48 runs of 100
    # passes at 0.1 CPU-s a pass
    ref, runs = mw.paper_fig2_minutes()
    assert ref == pytest.approx(382.5 / (256 * 9600) * 256 * 24000 / 60) and runs == pytest.approx(8.0)
    # since scale=paper ran (2026-11-30) the row gives the ledger's CPU seconds, the estimate (2.7x low: it left
    # out the sampler seeds' runs) beside them
    from bnnsample.figures.costs import measured_costs

    paper = measured_costs(path.parents[1])[("matthews2018-fig2", "paper")]
    assert (f"scale=paper's 100 passes, {float(paper['cpu_s']):,.0f} CPU-s as run (results/costs.csv, the sampler "
            "seeds' runs included; estimated until it ran, 2026-11-30, at about 24 CPU-minutes: its 256 x 20000 "
            "reference about 16") in mw.FIG2_TEST["fifty"]  # fmt: skip


def _fig3_seeds(sc: str, n: int, errors) -> list[dict]:
    return [{"scheme": sc, "covariance": "estimated", "n": n, "seed": 1000 * k + 2, "error": e}
            for k, e in enumerate(errors)]  # fmt: skip


@pytest.mark.parametrize("ccadl_seeds, want, at_100", [
    ((), "partly", "NOGIN best at n = [25, 100, 400]"),  # no CC-ADL scatter: n = 100 against 2u
    ((0.05, 0.005, 0.095), "partly", "within 2u or 2 s.e. of the seeds at n = [100]"),  # its scatter hides the margin
    ((0.05, 0.049, 0.051), "partly", "NOGIN best at n = [25, 100, 400]"),  # resolved over the seeds
    ((0.010, 0.009, 0.011), "partly", "not at n = [6, 100]"),  # CC-ADL below NOGIN over the seeds
])  # fmt: skip
def test_fig3_outperforms_sets_its_wins_against_both_schemes_seed_scatter(ccadl_seeds, want, at_100):
    """The seventeenth audit: a win over CC-ADL was set against NOGIN's seed scatter (n = 100) or 2u alone, while
    CC-ADL's own scatter is larger; now, where both schemes' seeds are measured, against 2 s.e. of the difference
    of their seed means, elsewhere against 2u (named in the reason). NOGIN fails at n = 6 (the others below it)."""
    finals = {("nogin", "estimated", n): e for n, e in zip((6, 25, 100, 400), (0.5, 0.02, 0.014, 0.03))}
    finals |= {(sc, "estimated", n): 0.05 for sc in ("msgld", "ccadl") for n in (6, 25, 100, 400)}
    rows = [dict(r, passes=r["passes"] * 10) for r in _passes_rows(finals)]
    scatter = _fig3_seeds("nogin", 100, 0.014 + 0.0023 * np.array([-1.0, 1.0, 0.0]))
    scatter += _fig3_seeds("ccadl", 100, ccadl_seeds)
    out = mw.FIG3_CLAIMS.rules["outperforms"](mw.Passes(rows, dict(mw.FIG3["quick"], passes=100.0),
                                                        np.full(21, 1e-3), "", None, scatter))  # fmt: skip
    assert out.verdict == want and at_100 in out.why
    assert "mSGLD at n = [6, 25, 100, 400]" in out.why  # its seeds are not measured: against 2u
    if ccadl_seeds:
        assert "CC-ADL at n = [6, 25, 400]" in out.why and "3 and 3 seeds: CC-ADL above by" in out.ours
    else:
        assert "CC-ADL at n = [6, 25, 100, 400]" in out.why and "over seeds" not in out.ours
    claim = mw.FIG3_CLAIMS["outperforms"]
    assert claim.text == "NOGIN provides superior sampling efficiency compared to the other schemes"
    assert "until 2026-11-29, the seventeenth audit" in claim.tolerance


def test_fig3_settings_name_every_seed_scatter():
    s = mw.FIG3["paper"]
    words = mw._passes_settings(s, "test", 0.005, 0.02, np.full(21, 0.003), 256, 800)
    assert (
        "NOGIN 8 seeds at n = 100, CC-ADL 4 seeds at n = 100, NOGIN 4 seeds at n = 200, CC-ADL 4 seeds at n = 200"
        in words
    )


@pytest.mark.parametrize("fig_id", ["matthews2018-fig2", "matthews2018-fig3"])
def test_matthews_passes_claims_are_what_the_rules_give_on_the_committed_files(fig_id):
    """The committed claims.csv and section table of Figs. 2-3 are the rules as they are now applied to the
    committed error_vs_passes.csv, reference.csv and seed_scatter.csv (the read-back that re-judges them without
    a rerun): a rule changed without writing its rows again fails here."""
    import csv

    from bnnsample.figures.claims import csv_rows, table
    from bnnsample.figures.common import read_sections

    results = Path(__file__).resolve().parents[2] / "results"
    outcomes, command = mw.outcomes_from_files(fig_id, results / fig_id)
    assert command == f"bnnsample figure {fig_id} scale=paper"  # Fig. 2 at scale=quick until 2026-11-30
    with (results / fig_id / "claims.csv").open(newline="") as f:
        committed = list(csv.DictReader(f))
    assert committed == csv_rows(fig_id, outcomes, command)
    section = read_sections((results / "REPRODUCTION.md").read_text())[fig_id]
    assert table(outcomes, heading=mw.HEADING) in section
    # CC-ADL's friction loads come from the folder's friction_load.csv, one row per n of the scale (Fig. 3's written
    # by scripts/matthews2018_friction_load.py since the twenty-eighth audit, read back from the rows' text before)
    loads = mw._loads(mw._read_rows(results / fig_id / "friction_load.csv"))
    assert list(loads) == (mw.FIG2 if fig_id.endswith("2") else mw.FIG3)[command.split("scale=")[1]]["n"]
    m, share = loads[min(loads)]
    assert f"median {m:.3g}, above 2 in {share:.0%} at n = {min(loads)}" in committed[0]["reason"] + section
    assert "`friction_load.csv`" in section.split("Settings:")[0]


def _fig2_quick_passes(h: float = 0.02):
    """A Fig. 2 record on scale=quick's grid like the committed run's: NOGIN (estimated) finite but growing at n = 8
    where the others are white, CC-ADL working at n = 512 only and below NOGIN there; seeds of NOGIN with both
    covariances at n = 32, 128, 512 (the estimated one lower by 0.014 at n = 128, the same in every seed), mSGLD's
    at 128 and 512, CC-ADL's at 512."""
    s, nan = mw.FIG2["quick"], math.nan
    finals = {(sc, cov, n): nan for sc in mw.SCHEMES_23 for cov in ("estimated", "exact") for n in s["n"]}
    for n, est, ex, ms in ((8, 57.2, 0.406, nan), (32, 0.459, 0.377, 1.6), (128, 0.452, 0.47, 0.575),
                           (512, 0.611, 0.611, 0.789)):  # fmt: skip
        finals |= {("nogin", "estimated", n): est, ("nogin", "exact", n): ex, ("msgld", "estimated", n): ms}
    finals[("ccadl", "estimated", 512)] = 0.498
    rows = _passes_rows(finals)
    next(r for r in rows if (r["scheme"], r["covariance"], r["n"]) == ("nogin", "estimated", 8))["error"] = 0.948
    jitter = np.array([0.0, 0.002, -0.001, 0.001, -0.002, 0.0005])
    scatter = []
    for n, ex, shift in ((32, 0.376, 0.09), (128, 0.462, -0.014), (512, 0.623, 0.0)):
        scatter += _seeds("nogin", "exact", n, ex) + [
            dict(r, covariance="estimated", error=r["error"] + shift + jitter[k])
            for k, r in enumerate(_seeds("nogin", "exact", n, ex))
        ]
    scatter += _seeds("msgld", "estimated", 128, 0.604) + _seeds("msgld", "estimated", 512, 0.784)
    scatter += _seeds("ccadl", "estimated", 512, 0.519, sd=0.02)
    return mw.Passes(rows, s, np.full(6, 0.2075), "", 1024, scatter, h)


def test_matthews_fig2_outperforms_says_what_each_n_compares():
    """The twenty-fourth audit: the 'outperforms' row gives 2u, says that at n = 8 NOGIN is the only scheme still
    finite (a loss in bias, not in stability), and that a run shorter than the friction time 1/gamma (n = 512: 20
    steps, 0.4 time units at h = 0.02) compares the start-up transient. The twenty-eighth audit: §5.2's 'vastly
    outperforms ... both in stability and in the size of the introduced bias' is judged in two halves, and such an
    n is unresolved in bias, not lost (CC-ADL's lower error there is no smaller bias); the rule before gave partly,
    not at n = [8, 512], and the verdict stays partly (stability held, best at 32 and 128)."""
    out = mw.FIG2_CLAIMS.rules["outperforms"](_fig2_quick_passes())
    assert out.verdict == "partly" and out.ours.endswith("; 2u = 0.415")
    assert out.why.startswith(
        "stability (a chain non-finite: unstable): NOGIN stable at every n, mSGLD unstable at n = [8], CC-ADL "
        "unstable at n = [8, 32, 128]; against mSGLD: NOGIN stable where it is not at n = [8], unstable where it is "
        "stable at no n; against CC-ADL: NOGIN stable where it is not at n = [8, 32, 128], unstable where it is "
        "stable at no n: held; bias: NOGIN best at n = [32, 128]; unresolved at n = [8], where no scheme works (each "
        "non-finite or at an error of 100% or more: no introduced bias to rank); unresolved at n = [512], runs "
        "shorter than the friction time;"
    )
    assert (
        "NOGIN the only scheme still finite (stable in Fig. 2's terms, the others white) but not working at n = 8 "
        "(0.948 after 5 passes, 57.2 at the end, growing): counted in stability (above), and in bias as no n where a "
        "scheme works (since 2026-11-30, the thirty-third audit; a loss in bias until then)" in out.why
    )
    assert "the rules until 2026-11-30 (the thirty-third audit" in out.why and "bias not at n = [8]" in out.why
    assert "10 passes are 1280 / 320 / 80 / 20 steps at n = 8 / 32 / 128 / 512 (25.6 / 6.4 / 1.6 / 0.4 time" in out.why
    assert (
        "n = 512: NOGIN 0.916 -> 0.611, mSGLD 1.18 -> 0.789, CC-ADL 0.747 -> 0.498 (n = 512: 0.4 time units" in out.why
    )
    assert "n = 128: 1.6" not in out.why  # 1.6 time units: not shorter than 1/gamma
    assert "judged as any other) gave partly (NOGIN best at n = [32, 128]; not at n = [8, 512])" in out.why
    claim = mw.FIG2_CLAIMS["outperforms"]
    assert (
        claim.paper.startswith("'the NOGIN scheme vastly outperforms the other methods")
        and "every n" not in claim.paper
    )
    assert "changed on 2026-11-29, the twenty-eighth audit, after the result was seen" in claim.tolerance
    bare = mw.FIG2_CLAIMS.rules["outperforms"](_fig2_quick_passes(h=math.nan))  # no time: no n unresolved for it
    assert "time units" not in bare.why and "not at n = [8, 512]" in bare.why and bare.verdict == "partly"
    # the thirty-fifth audit: the tolerance's 'what it gave: the reason' holds with no short run too
    assert "judged as any other; none is shorter here) gave partly (NOGIN best at n = [32, 128]; not at n = [8, " in (
        bare.why
    )


def _fig2_halves(nogin: dict, msgld: dict, ccadl: dict, h: float = 0.02):
    """A Fig. 2 record on scale=quick's grid with these final errors {n: error} per scheme (estimated covariance;
    the exact covariance's runs unstable) and every scheme's seeds at each n where it works, 0.02 apart."""
    s, nan = mw.FIG2["quick"], math.nan
    finals = {(sc, "exact", n): nan for sc in mw.SCHEMES_23 for n in s["n"]}
    for sc, err in (("nogin", nogin), ("msgld", msgld), ("ccadl", ccadl)):
        finals |= {(sc, "estimated", n): e for n, e in err.items()}
    scatter = [r for (sc, cov, n), e in finals.items() if cov == "estimated" and mw._works(e)
               for r in _seeds(sc, "estimated", n, e, sd=0.02)]  # fmt: skip
    return mw.Passes(_passes_rows(finals), s, np.full(6, 0.2), "", 1024, scatter, h)


@pytest.mark.parametrize("nogin, msgld, ccadl, want, old", [
    # NOGIN stable everywhere, the others unstable somewhere, NOGIN's error the lowest wherever it is resolved: the
    # n = 512 run (20 steps, 0.4 time units) unresolved, so not every n is won
    ({8: 0.5, 32: 0.4, 128: 0.3, 512: 0.6}, {8: math.nan, 32: 0.9, 128: 0.5, 512: 0.5},
     {8: math.nan, 32: math.nan, 128: math.nan, 512: 0.4}, "partly", "partly"),
    # NOGIN the one scheme stable at every n but working nowhere: the stability half holds alone (partly); the rule
    # before lost every n
    ({8: 3.0, 32: 2.0, 128: 1.5, 512: 0.6}, {8: math.nan, 32: 0.9, 128: 0.5, 512: 0.5},
     {8: math.nan, 32: math.nan, 128: math.nan, 512: 0.4}, "partly", "not reproduced"),
    # every scheme stable everywhere and NOGIN beaten wherever resolved: neither half
    ({8: 0.9, 32: 0.8, 128: 0.7, 512: 0.6}, {8: 0.5, 32: 0.5, 128: 0.5, 512: 0.5},
     {8: 0.4, 32: 0.4, 128: 0.4, 512: 0.4}, "not reproduced", "not reproduced"),
])  # fmt: skip
def test_matthews_fig2_outperforms_judges_stability_and_bias_apart(nogin, msgld, ccadl, want, old):
    """The twenty-eighth audit: the stability half holds when NOGIN is stable (finite) at every n and each other
    scheme unstable at some n; the bias half per n, an n whose run is shorter than the friction time unresolved;
    reproduced needs both, partly either. What the rule before gave is named where it differs in its n."""
    out = mw.FIG2_CLAIMS.rules["outperforms"](_fig2_halves(nogin, msgld, ccadl))
    assert out.verdict == want
    assert "unresolved at n = [512], runs shorter than the friction time" in out.why
    assert f"judged as any other) gave {old} (" in out.why
    held = "held" if all(math.isfinite(e) for e in nogin.values()) and math.isnan(msgld[8]) else "not held"
    assert f"CC-ADL {'unstable at n = [8, 32, 128]' if math.isnan(ccadl[8]) else 'stable at every n'};" in out.why
    assert f": {held}; bias:" in out.why
    # at a step of 0.2, 10 passes at n = 512 are 4 time units: the n is judged, and won where NOGIN is the lowest
    long = mw.FIG2_CLAIMS.rules["outperforms"](_fig2_halves(nogin, msgld | {512: 0.9}, ccadl | {512: 0.9}, h=0.2))
    assert "runs shorter than the friction time" not in long.why and "none is shorter here) gave" in long.why
    if want == "partly" and old == "partly":
        assert long.verdict == "reproduced" and "bias: NOGIN best at n = [8, 32, 128, 512]" in long.why


def test_matthews_fig2_exact_covariance_row_pairs_nogin_by_seed():
    """The twenty-fourth audit: the exact-covariance row gives NOGIN's estimated - exact paired by seed (the two runs
    of a seed share their minibatches and noises), as the 'no difference' rows do, and says where it is resolved the
    other way; the verdict still reads the seeds' scatter (partly: better at n = 8, 32, within 2 s.e. at 128, 512)."""
    out = mw.FIG2_CLAIMS.rules["exact_nogin"](_fig2_quick_passes())
    assert out.verdict == "partly" and "within 2 s.e. at n = [128, 512]" in out.why
    assert (
        "paired by seed, estimated - exact" in out.why
        and "n = 128: -0.014 +- 0.00058 (-23.86 s.e.: resolved)" in out.why
    )
    assert "resolved the other way, the estimated covariance lower, at n = [128]" in out.why
    assert "steps at n = 8 / 32 / 128 / 512" in out.why


@pytest.mark.parametrize("ccadl50, want", [(0.0124, "partly"), (0.05, "reproduced"), (0.005, "partly")])
def test_fig3_outperforms_gives_the_best_n_reading_beside(ccadl50, want):
    """The twenty-fourth audit: §5.3's 'superior sampling efficiency' names no n; the row reads it per n (the paper
    column says so) and gives beside it each scheme at its own best n against 2u (NOGIN 0.0141 at n = 100 against
    CC-ADL 0.0124 at n = 50 is within 2u = 0.00707: partly read so too), and the reduced data it ran on."""
    finals = {("nogin", "estimated", n): e for n, e in zip((6, 12, 25, 50, 100, 200, 400),
                                                           (4.24, 0.852, 0.178, 0.0474, 0.0141, 0.0265, 0.0324))}  # fmt: skip
    finals |= {("msgld", "estimated", n): 0.0414 + n / 1000 for n in (6, 12, 25, 50, 100, 200, 400)}
    finals |= {("ccadl", "estimated", n): 0.2 for n in (6, 12, 25, 100, 200, 400)} | {
        ("ccadl", "estimated", 50): ccadl50
    }
    s = dict(mw.FIG3["paper"], passes=100.0)
    out = mw.FIG3_CLAIMS.rules["outperforms"](mw.Passes(_passes_rows(finals), s, np.full(21, 0.003533), "", 800))
    best = f"CC-ADL {ccadl50:.3g} (n = 50)"
    assert f"at each scheme's own best n (main runs): NOGIN 0.0141 (n = 100), mSGLD 0.0474 (n = 6), {best}" in out.why
    side = "within 2u of" if ccadl50 == 0.0124 else "below" if ccadl50 > 0.0141 else "above"
    assert f"NOGIN below mSGLD, {side} CC-ADL (2u = 0.00707): read so, {want}" in out.why
    assert "on the reduced data (N = 800, D = 21; the paper's N = 12214, D = 129)" in out.why
    assert mw.FIG3_CLAIMS["outperforms"].paper.startswith("superior sampling efficiency (read here per n")


def _msgld_same(at32=(1.596, 1.447), shift32=0.149, seeds32=True):
    """mSGLD's 'no difference' row on scale=quick's grid: unstable (NaN) with both covariances at n = 8, final errors
    ``at32`` at n = 32 (above 100%), 0.575 / 0.578 at 128 and 0.789 / 0.790 at 512, with 6 seeds of each at 128 and
    512 (no shift) and, where ``seeds32``, at 32 (estimated - exact ``shift32``)."""
    s = mw.FIG2["quick"]
    finals = {(sc, cov, n): math.nan for sc in mw.SCHEMES_23 for cov in ("estimated", "exact") for n in s["n"]}
    finals.update({("msgld", "estimated", 32): at32[0], ("msgld", "exact", 32): at32[1],
                   ("msgld", "estimated", 128): 0.575, ("msgld", "exact", 128): 0.578,
                   ("msgld", "estimated", 512): 0.789, ("msgld", "exact", 512): 0.790})  # fmt: skip
    scatter = []
    for n, m in ((128, 0.604), (512, 0.784)):
        scatter += _seeds("msgld", "estimated", n, m, sd=0.025) + _seeds("msgld", "exact", n, m, sd=0.025)
    if seeds32:
        scatter += _seeds("msgld", "estimated", 32, 1.45 + shift32 + 0 * at32[0], sd=0.025) + _seeds(
            "msgld", "exact", 32, 1.45 + 0 * at32[1], sd=0.025
        )  # a covariance whose main run diverged diverges in every seed (Fig. 2's single-run rule reads them)
    p = mw.Passes(_passes_rows(finals), s, np.full(6, 0.2), "", 1024, scatter)
    return mw.FIG2_CLAIMS.rules["same", "msgld"](p)


def test_matthews_fig2_msgld_no_difference_counts_every_stable_n():
    """The twenty-seventh audit: mSGLD at n = 32 is finite with both covariances (errors 1.596 and 1.447, above
    100%: a bias, not Fig. 2's white instability), and the old rule left it out as 'both fail', which gave
    reproduced on n = 128 and 512 alone. Now every n where both are finite counts and its seed scatter decides:
    a 0.149 gap with seed s.d. 0.025 is apart there (partly, within at 128 and 512); no gap is reproduced; no
    seeds at 32 is not tested; exactly one finite is not reproduced."""
    out = _msgld_same()
    assert out.verdict == "partly" and "apart at n = [32]" in out.why
    assert "n = [32]: stable with both covariances at errors of 100% or more" in out.why
    assert "both unstable (a chain non-finite) at n = [8]" in out.why and "both fail" not in out.why
    assert "n = 32: estimated 1.6, exact 1.45 (mean of 6" in out.ours
    same = _msgld_same(shift32=0.0)
    assert same.verdict == "reproduced" and "within 2 s.e. at n = [32, 128, 512]" in same.why
    assert _msgld_same(seeds32=False).verdict == "not tested: scale"
    one = _msgld_same(at32=(math.nan, 1.447))
    assert one.verdict.startswith("not reproduced") and "exactly one is stable at n = [32]" in one.why
    # below 100% both ways the old and new rules agree
    assert _msgld_same(at32=(0.9, 0.8), shift32=0.0).verdict == "reproduced"
    tol = mw.FIG2_CLAIMS["same", "msgld"].tolerance
    assert "twenty-seventh audit" in tol and "that gave reproduced" in tol
    assert mw.SAME_FINITE == ("msgld",)


def test_matthews_fig2_ccadl_no_difference_keeps_the_working_rule():
    """CC-ADL's row is not changed by the twenty-seventh audit: a run finite at an error of 100% or more does not
    work there, so CC-ADL finite with both covariances at n = 128 with errors above 100% is 'both fail' and n = 128
    is not compared."""
    s = mw.FIG2["quick"]
    finals = {(sc, cov, n): math.nan for sc in mw.SCHEMES_23 for cov in ("estimated", "exact") for n in s["n"]}
    finals.update({("ccadl", "estimated", 128): 3.0, ("ccadl", "exact", 128): 2.0,
                   ("ccadl", "estimated", 512): 0.498, ("ccadl", "exact", 512): 0.499})  # fmt: skip
    scatter = _seeds("ccadl", "estimated", 512, 0.50) + _seeds("ccadl", "exact", 512, 0.50)
    out = mw.FIG2_CLAIMS.rules["same", "ccadl"](mw.Passes(_passes_rows(finals), s, np.full(6, 0.2), "", 1024, scatter))
    assert out.verdict == "reproduced" and "both fail at n = [8, 32, 128] (the same stability)" in out.why
    assert "twenty-seventh" not in mw.FIG2_CLAIMS["same", "ccadl"].tolerance


def test_matthews_fig3_plateau_names_the_n_where_the_scatter_is_measured():
    """Fig. 3's plateau row (the thirtieth audit): its 'far below a factor 2' rests on NOGIN's seed scatter, which
    seed_scatter.csv measures at n = 100 and 200 only; the tolerance names those n, the reason gives the s.d. over
    seeds at each from the file and the n where it is not measured."""
    claim = mw.FIG3_CLAIMS["plateau"]
    assert "NOGIN's seeds at n = 100 and 200 only (scale=paper; n = 100 at scale=quick)" in claim.tolerance
    results = Path(__file__).resolve().parents[2] / "results"
    outcomes, _ = mw.outcomes_from_files("matthews2018-fig3", results / "matthews2018-fig3")
    why = next(o for c, o in outcomes if c is claim).why
    assert "18% of the mean at n = 100 (8 seeds), 21% of the mean at n = 200 (4 seeds)" in why
    assert why.endswith("not measured at n = 6, 12, 25, 50") and "without n = 6 (§5.3's 'some bias' there)" in why
    # a scatter at one n only: every other n of the grid is named as not measured
    p = mw.Passes([], mw.FIG3["paper"], np.zeros(1), "", scatter=[
        {"scheme": "nogin", "covariance": "estimated", "n": 200, "seed": k, "error": e} for k, e in enumerate((1, 3))
    ])  # fmt: skip
    assert mw._nogin_scatter(p, [6, 100, 200]) == (
        "NOGIN's run-to-run s.d. over seeds (seed_scatter.csv): 71% of the mean at n = 200 (2 seeds); not measured "
        "at n = 6, 100"
    )


def test_matthews_fig3_plateau_reason_gives_the_curves_evidence():
    """Fig. 3's plateau row (the thirty-first audit): 'no vertical contour' rests on every n of the grid, not n = 6
    alone: at the n whose error is flat from the first checkpoint a bias floor, at the others the error after 10
    passes against n (lower at each smaller n: efficiency still rising, no plateau), from error_vs_passes.csv."""
    results = Path(__file__).resolve().parents[2] / "results"
    outcomes, _ = mw.outcomes_from_files("matthews2018-fig3", results / "matthews2018-fig3")
    why = next(o for c, o in outcomes if c is mw.FIG3_CLAIMS["plateau"]).why
    assert "at n = 6, 12, 25 the error stays within a factor 2 of its final value from the first checkpoint on" in why
    assert "(n = 6: 4.12 after 1 pass, 4.24 after 100 passes): a bias fixed from the start, higher at each" in why
    assert ("at n = 200, 100, 50 the error after 8.58 passes (each run's last checkpoint at most 10) is 0.168, "
            "0.0828, 0.049: 1.7-2.0x lower at each smaller n, 3.4x from n = 200 to 50 (beyond the row's factor 2): "
            "efficiency per pass still rising") in why  # fmt: skip
    assert "no n of the grid shows a vertical contour" not in why

    def run(n, errors):
        return [{"scheme": "nogin", "covariance": "estimated", "n": n, "passes": p, "error": e}
                for p, e in zip((1.0, 5.0, 9.0, 20.0), errors)]  # fmt: skip

    # a floor needs the error flat (within 2x of the final) from the first checkpoint on: a descent to the same
    # final value is none; errors within the row's factor 2 at 10 passes are a plateau there, not rising efficiency
    rows = run(6, (1.0, 0.9, 0.8, 0.7)) + run(12, (3.0, 1.0, 0.5, 0.4)) + run(25, (2.0, 0.8, 0.55, 0.5))
    floors, text = mw._floors(rows, [6, 12, 25])
    assert floors == [6] and "at n = 6 the error stays" in text and "higher at each" not in text
    assert mw._still_falling(rows, [12, 25]) == (
        "; at n = 25, 12 the error after 9 passes (each run's last checkpoint at most 10) is 0.55, 0.5: within the "
        "row's factor 2 of each other there, a plateau at that checkpoint"
    )
    rows = run(12, (3.0, 1.0, 0.2, 0.1)) + run(25, (2.0, 0.8, 0.55, 0.5)) + run(50, (2.0, 0.8, 0.6, 0.5))
    # the later checkpoints are read too (the thirty-second audit): at 20 passes 0.5, 0.5, 0.1 are 5x apart
    assert mw._still_falling(rows, [12, 25, 50]).endswith(
        "is 0.6, 0.55, 0.2: 1.1-2.8x lower at each smaller n, 3.0x from n = 50 to 12 (beyond the row's factor 2): "
        "efficiency per pass still rising as n falls at that checkpoint, not a plateau there; at the 1 later "
        "checkpoints they come within the factor 2 of each other at none"
    )
    rows = run(12, (3.0, 1.0, 0.5, 0.4)) + run(25, (2.0, 0.8, 0.2, 0.5))
    assert mw._still_falling(rows, [12, 25]).endswith("is 0.2, 0.5: 2.5x apart (beyond the row's factor 2), 0.4x "
                                                      "from one n to the next; at the 1 later checkpoints they come "
                                                      "within the factor 2 of each other at 1 (20 passes)")  # fmt: skip
    # the committed run: within the factor 2 again at 15.9 and 21.5 passes (the reading at 8.58 alone was early)
    assert "within the factor 2 of each other at 3 (15.9, 21.5, 39.8 passes)" in why
    assert mw._still_falling(rows, [12]) == ""


def _split_passes(diverged_at: dict, scatter=(), passes: float = 100.0):
    """A Fig. 2 record on n = 16 and 32 with runs checked at 1, 2, 50 and 100 passes: each (scheme, covariance, n)
    finite at 2.0, or non-finite from the checkpoint ``diverged_at`` gives it ({(scheme, cov, n): passes})."""
    from types import SimpleNamespace

    rows = [{"scheme": sc, "covariance": cov, "n": n, "passes": q, "steps": int(q * 1024 / n),
             "error": math.nan if q >= diverged_at.get((sc, cov, n), math.inf) else 2.0}
            for sc in mw.SCHEMES_23 for cov in ("estimated", "exact") for n in (16, 32)
            for q in (1.0, 2.0, 50.0, passes)]  # fmt: skip
    return SimpleNamespace(rows=rows, s={"n": [16, 32], "passes": passes, "seeds": 4}, scatter=list(scatter), added={})


def test_fig2_single_run_rule_resolves_only_an_early_divergence_or_the_seeds():
    """The thirty-third audit: one rule for a stability split of Fig. 2's rows. On one run each it holds only when
    the diverged run was non-finite before T / 58.4 passes (a constant hazard: one divergence by t passes puts the
    rate above -ln 0.95 / t, none in T passes the other's below ln 20 / T); over the seeds where both runs have two
    or more, by Fisher's exact test at 0.05 (4 of 4 against 0 of 4: p = 0.029); a scheme's seeds with only one
    covariance do not make a split seeded (the per-covariance check)."""
    assert mw._one_run_resolved(1.0, 100.0) and mw._one_run_resolved(1.7, 100.0)
    assert not mw._one_run_resolved(1.75, 100.0) and not mw._one_run_resolved(73.6, 100.0)
    assert mw._fisher(4, 4, 0, 4) == pytest.approx(2 / 70) and mw._fisher(4, 4, 1, 4) == pytest.approx(10 / 70)
    late, early = ("msgld", "exact", 16), ("msgld", "exact", 32)
    p = _split_passes({late: 50.0, early: 1.0})
    assert mw._split(p, ("msgld", "estimated"), late[:2], 16)[0] == "unresolved"
    got, words = mw._split(p, ("msgld", "estimated"), early[:2], 32)
    assert got == "a" and "non-finite by 1 pass of 100 on one run each" in words and "resolved" in words
    assert mw._single_run_splits("msgld", p, [16, 32]) == ([16], [32])
    # seeds of the estimated covariance alone at n = 16 leave it on one run each (until 2026-11-30 any seed of the
    # scheme at the n made it 'seeded', and the late divergence then decided the split)
    one_cov = [{"scheme": "msgld", "covariance": "estimated", "n": 16, "seed": k, "error": 2.0} for k in range(4)]
    assert mw._single_run_splits("msgld", _split_passes({late: 50.0}, one_cov), [16]) == ([16], [])

    def seeds(exact_finite: int):
        return one_cov + [{"scheme": "msgld", "covariance": "exact", "n": 16, "seed": k,
                           "error": 2.0 if k < exact_finite else math.nan} for k in range(4)]  # fmt: skip

    assert mw._single_run_splits("msgld", _split_passes({late: 50.0}, seeds(0)), [16]) == ([], [16])
    got, words = mw._split(_split_passes({late: 50.0}, seeds(1)), ("msgld", "estimated"), late[:2], 16)
    assert got == "unresolved" and "over the seeds mSGLD (estimated) 4 of 4 and mSGLD (exact) 1 of 4" in words


@pytest.mark.parametrize("nogin8, msgld32, held", [
    (math.nan, math.nan, True),  # NOGIN unstable only where every scheme is: held (not held until 2026-11-30)
    (math.nan, 0.9, False),  # mSGLD unstable nowhere NOGIN is stable: NOGIN does not outperform it
    (0.5, 0.9, True),
])  # fmt: skip
def test_fig2_stability_half_is_comparative(nogin8, msgld32, held):
    """The thirty-second and thirty-third audits: 'outperforms ... in stability' holds when NOGIN is stable wherever
    each other scheme is and stable at some n where it is not (until 2026-11-30: NOGIN stable at every n, which a
    divergence at an n where every scheme diverges broke); each difference counted by the single-run rule."""
    nan = math.nan
    p = _fig2_halves({8: nogin8, 32: 0.4, 128: 0.3, 512: 0.6}, {8: nan, 32: msgld32, 128: 0.5, 512: 0.5},
                     {8: nan, 32: nan, 128: nan, 512: 0.4})  # fmt: skip
    got, words, old = mw._stability_half(p, "estimated")
    assert got == held and old == (not math.isnan(nogin8))
    assert words.endswith(f": {'held' if held else 'not held'}")
    # NOGIN unstable where mSGLD is stable: not held
    q = _fig2_halves({8: 0.5, 32: nan, 128: 0.3, 512: 0.6}, {8: nan, 32: 0.9, 128: 0.5, 512: 0.5},
                     {8: nan, 32: nan, 128: nan, 512: 0.4})  # fmt: skip
    got, words, _ = mw._stability_half(q, "estimated")
    assert (
        not got
        and "against mSGLD: NOGIN stable where it is not at n = [8], unstable where it is stable at n = [32]" in words
    )


def test_fig2_seeds_both_covariances_of_msgld_where_either_is_stable():
    """The thirty-third audit: mSGLD's 'no difference' row judges a stability split over the seeds, so its seed
    plan runs both covariances wherever either is stable (finite), whatever the error (until 2026-11-30 only where
    both were: scale=paper's n = 16, the exact run non-finite after 54 passes, got none); CC-ADL and NOGIN keep
    seeding the covariances that work at an n where two or more runs work."""
    nan = math.nan
    finals = {(sc, cov, n): nan for sc in mw.SCHEMES_23 for cov in ("estimated", "exact") for n in (8, 16, 32)}
    finals |= {
        ("msgld", "estimated", 16): 7.25,
        ("msgld", "estimated", 32): 2.0,
        ("msgld", "exact", 32): 1.8,
        ("nogin", "exact", 16): 0.1,
        ("nogin", "estimated", 32): 0.5,
        ("nogin", "exact", 32): 0.08,
    }
    rows = _passes_rows(finals)
    covs = ("estimated", "exact")
    assert mw._seed_covariances(rows, "msgld", covs, 16) == ["estimated", "exact"]
    assert mw._seed_covariances(rows, "msgld", covs, 8) == []
    assert mw._seed_covariances(rows, "nogin", covs, 16) == []  # one working run at n = 16: nothing to compare
    assert mw._seed_covariances(rows, "nogin", covs, 32) == ["estimated", "exact"]
    plan = mw.fig2_seed_plan(rows, {"n": [8, 16, 32], "seeds": 2}, covs)
    assert plan[:4] == [("msgld", "estimated", 1, 16, 0), ("msgld", "exact", 1, 16, 0),
                        ("msgld", "estimated", 1, 16, 1), ("msgld", "exact", 1, 16, 1)]  # fmt: skip
    main = [mw.seed_row(None, None, None, None, {}, 0.02, rows, run) for run in plan[:2]]  # read back, not rerun
    assert main[0] == {"scheme": "msgld", "covariance": "estimated", "n": 16, "seed": 1, "error": 7.25}
    assert math.isnan(main[1]["error"]) and main[1]["seed"] == 1
    assert mw.fig2_seed_plan(rows, {"n": [8, 16, 32], "seeds": 2}, ("estimated",)) == []  # Fig. 3: its own seeds


def test_fig2_committed_msgld_row_reads_n16_by_the_rule():
    """The committed record: mSGLD's n = 16, split in the main runs (the exact run non-finite by 73.6 of 100
    passes), is judged over the seeds of both covariances (scripts/matthews2018_more_seeds.py, 2026-11-30: 2 of 4
    stable with each), and the
    outperforms row's stability half reads NOGIN against each scheme by the same single-run rule."""
    results = Path(__file__).resolve().parents[2] / "results" / "matthews2018-fig2"
    outcomes, _ = mw.outcomes_from_files("matthews2018-fig2", results)
    scatter = mw._read_rows(results / "seed_scatter.csv")
    assert {r["covariance"] for r in scatter if (r["scheme"], r["n"]) == ("msgld", 16)} == {"estimated", "exact"}
    o = next(o for c, o in outcomes if c is mw.FIG2_CLAIMS["same", "msgld"])
    # 2 of 4 seeds stable with each covariance: the main runs' split is the seeds' chance, not the covariance
    assert (
        "n = 16: estimated 7.25, exact nan, over the seeds mSGLD (estimated) 2 of 4 and mSGLD (exact) 2 of 4" in o.why
    )
    assert "Fisher's exact p = 1: not apart; seeds 1002 / 2002 / 3002" in o.why and o.verdict == "partly"
    assert "apart at n = [32, 64]" in o.why
    first = next(o for c, o in outcomes if c is mw.FIG2_CLAIMS["outperforms"])
    assert "against mSGLD: NOGIN stable where it is not at n = [8], unstable where it is stable at no n" in first.why
    assert "gave partly (stability not held; bias not at n = [4, 8, 16])" in first.why


def test_fig1_finite_rule_counts_the_papers_schemes_only():
    """§5.1's 'compared to the other methods' are mSGLD and CC-ADL: BAOAB (not in the paper's figure) is shown
    beside and decides nothing, even below NOGIN; mSGLD below NOGIN beyond 2 s.e. makes it not reproduced."""

    def e(mean, diff, se=0.001):
        return {"mean_abs_error": mean, "se_abs_error": se, "diff_vs_nogin": diff, "diff_vs_nogin_se": se}

    err = {"nogin": e(0.03, 0.0), "msgld": e(0.05, 0.02), "ccadl": e(math.nan, math.nan), "baoab": e(0.02, -0.01)}
    out = mw._finite_verdict(err, "x", "")
    assert out.verdict == "reproduced" and "baoab -10.0 s.e." in out.ours and "not counted" in out.ours
    err["msgld"] = e(0.02, -0.01)
    assert mw._finite_verdict(err, "x", "").verdict.startswith("not reproduced")


def test_fig2_old_rules_are_given_on_the_committed_run():
    """The thirty-fifth audit (fig2#1, #3): the tolerances' old rules are said where their results were seen (the
    2u rule's at scale=quick, whose grid was then n = 8 / 32 / 128) and what each gives on the committed scale=paper
    files is in the reason: the twenty-eighth audit's rule (no run shorter than 1/gamma here) and the 2u rule on the
    main runs (#3 at n = 64: 0.148 - 0.0524 = 0.0955 within 2u = 0.0995); #3's paper column quotes 'significantly'."""
    results = Path(__file__).resolve().parents[2] / "results" / "matthews2018-fig2"
    outcomes, _ = mw.outcomes_from_files("matthews2018-fig2", results)
    first, exact = (next(o for c, o in outcomes if c is mw.FIG2_CLAIMS[k]) for k in ("outperforms", "exact_nogin"))
    assert ("judged as any other; none is shorter here) gave partly (NOGIN best at n = [32, 64, 128, 256]; not at "
            "n = [4, 8, 16]; within 2 s.e. at n = [512])") in first.why  # fmt: skip
    assert ("the 2u rule (until 2026-11-29: the main runs' final errors against 2u = 0.0995) gives partly here "
            "(NOGIN best at n = [32, 64, 128, 256]; not at n = [4, 8, 16]; within 2u at n = [512])") in first.why  # fmt: skip
    assert ("gives partly here (the exact covariance better at n = [4, 8, 16, 32]; within 2u at n = [64, 128, 256, "
            "512])") in exact.why  # fmt: skip
    for k, quick in (("outperforms", "best at n = [32], not at [8]"), ("exact_nogin", "better at n = [8]")):
        tol = mw.FIG2_CLAIMS[k].tolerance
        assert f"that gave at scale=quick, whose grid was then n = 8 / 32 / 128 (2u = 0.415) partly: {quick}" in tol
        assert tol.endswith("what it gives on this run: the reason)")
    assert "significantly improves the accuracy of NOGIN" in mw.FIG2_CLAIMS["exact_nogin"].paper


def test_fig2_names_the_script_that_added_seeds(tmp_path):
    """The thirty-fifth audit (fig2#4): the n = 16 seeds of mSGLD that the row's split is judged over were run after
    the figure by scripts/matthews2018_more_seeds.py; the row and the section say so with its CPU seconds from
    results/costs.csv, and nothing is said where the ledger lacks the script's row or the figure's row is another
    run's (a rerun seeds them itself)."""
    import shutil

    from bnnsample.figures.common import read_sections

    results = Path(__file__).resolve().parents[2] / "results"
    fig = "matthews2018-fig2"
    outcomes, _ = mw.outcomes_from_files(fig, results / fig)
    msgld = next(o for c, o in outcomes if c is mw.FIG2_CLAIMS["same", "msgld"])
    words = ("seeds 1002 / 2002 / 3002 (estimated and exact covariances) run after the figure by "
             "scripts/matthews2018_more_seeds.py (2026-11-30; the run's settings and start, 1,186 CPU-s in "
             "results/costs.csv)")  # fmt: skip
    assert f"Fisher's exact p = 1: not apart; {words})): unresolved" in msgld.why
    assert (
        f"Not made by this command: mSGLD at n = 16, {words}."
        in read_sections((results / "REPRODUCTION.md").read_text())[fig]
    )
    scatter = mw._read_rows(results / fig / "seed_scatter.csv")
    assert mw.added_seeds(fig, "paper", results, scatter) == {("msgld", 16): words}
    assert mw.added_seeds(fig, "quick", results, scatter) == {}
    ledger = (results / "costs.csv").read_text().splitlines()
    (tmp_path / "costs.csv").write_text("\n".join(r for r in ledger if "matthews2018_more_seeds" not in r) + "\n")
    assert mw.added_seeds(fig, "paper", tmp_path, scatter) == {}
    rerun = [r.replace(",3881,", ",3900,") if r.startswith(f"{fig},paper,,") else r for r in ledger]
    (tmp_path / "costs.csv").write_text("\n".join(rerun) + "\n")
    assert mw.added_seeds(fig, "paper", tmp_path, scatter) == {}
    shutil.copy(results / "costs.csv", tmp_path / "costs.csv")
    assert mw.added_seeds(fig, "paper", tmp_path, scatter) == {("msgld", 16): words}


def test_fig3_outperforms_checks_2u_against_the_seeds_largest_scatter():
    """The thirty-fifth audit (fig3#1): a difference judged against 2u (the reference's noise) where no seeds ran is
    judged again with each run's noise the largest relative s.d. over the figure's seeds (CC-ADL at n = 200: 29.5%,
    its s.d. 0.0143 twice 2u); on the committed files no n's tier changes; where that scatter hides a 2u margin the
    reason says the tier changes, and the verdict still reads 2u."""
    results = Path(__file__).resolve().parents[2] / "results" / "matthews2018-fig3"
    outcomes, _ = mw.outcomes_from_files("matthews2018-fig3", results)
    why = next(o for c, o in outcomes if c is mw.FIG3_CLAIMS["outperforms"]).why
    assert ("the largest relative s.d. over seeds 29.5%, CC-ADL at n = 200, 4 seeds: its s.d. 0.0143 is 2.0 times "
            "2u)") in why  # fmt: skip
    assert ("n = 12: mSGLD -3.2, CC-ADL -2.4; n = 25: mSGLD -1.1, CC-ADL -2.7; n = 50: mSGLD +2.3, CC-ADL -2.4; "
            "n = 100: mSGLD +3.2; n = 200: mSGLD +3.1; n = 400: mSGLD +3.2, CC-ADL +2.4: every n's tier "
            "unchanged") in why  # fmt: skip
    assert "the reference's noise, not our run-to-run noise" in mw.FIG3_CLAIMS["outperforms"].tolerance
    # NOGIN 0.02 against 0.03 at n = 25: beyond 2u = 0.002, within 2 s.e. at 28.6% of each error (z = +1.0)
    finals = {("nogin", "estimated", n): e for n, e in zip((6, 25, 100, 400), (0.02, 0.02, 0.014, 0.03))}
    finals |= {(sc, "estimated", n): 0.03 if n == 25 else 0.2 for sc in ("msgld", "ccadl") for n in (6, 25, 100, 400)}
    rows = [dict(r, passes=r["passes"] * 10) for r in _passes_rows(finals)]
    scatter = _fig3_seeds("nogin", 100, (0.010, 0.014, 0.018)) + _fig3_seeds("ccadl", 100, (0.04, 0.05, 0.06))
    out = mw.FIG3_CLAIMS.rules["outperforms"](mw.Passes(rows, dict(mw.FIG3["quick"], passes=100.0),
                                                        np.full(21, 1e-3), "", None, scatter))  # fmt: skip
    assert out.verdict == "reproduced" and "the largest relative s.d. over seeds 28.6%, NOGIN at n = 100" in out.why
    assert "n = 25: mSGLD +1.0, CC-ADL +1.0" in out.why and out.why.count("the tier changes at n = [25]") == 1
    judge = mw._rel_versus(0.3)
    assert (judge(0.01, 0.05), judge(0.05, 0.01), judge(0.02, 0.03), judge(2.0, 0.1), judge(0.1, math.nan)) == (
        "win",
        "loss",
        "open",
        "loss",
        "win",
    )


def test_matthews_fig1_section_is_the_paper_scale_run_with_quick_beside():
    """The thirty-ninth audit: the committed section is the scale=paper run (1000 runs x 100000 iterations, 10000
    chains per h), every row judged on it; the scale=quick run's files and section are kept in quick/. On the double
    well mSGLD's error ends below NOGIN's (NOGIN levels off at its own variance bias), NOGIN ahead up to 31,623
    iterations; the Gaussian inset resolves NOGIN below mSGLD (unresolved at quick)."""
    base = Path(__file__).resolve().parents[2] / "results" / "matthews2018-fig1"
    rows = {r["claim_id"]: r for r in csv.DictReader((base / "claims.csv").read_text().splitlines())}
    quick = {r["claim_id"]: r for r in csv.DictReader((base / "quick" / "claims.csv").read_text().splitlines())}
    assert {r["setting"] for r in rows.values()} == {"bnnsample figure matthews2018-fig1 scale=paper"}
    assert {r["setting"] for r in quick.values()} == {"bnnsample figure matthews2018-fig1 scale=quick"}
    eight = rows["matthews2018-fig1#8"]
    assert eight["verdict"] == "not reproduced (18.6 s.e.)" and quick["matthews2018-fig1#8"]["verdict"] == "reproduced"
    assert "NOGIN below it beyond 2 s.e. at every checkpoint from 10 to 31623" in eight["reason"]
    assert (
        rows["matthews2018-fig1#10"]["verdict"] == "reproduced" and quick["matthews2018-fig1#10"]["verdict"] == "partly"
    )
    # a scheme whose runs all diverged has no inset histogram: named, counted as larger (not '+nan ... (+inf s.e.)')
    nine = rows["matthews2018-fig1#9"]
    assert "ccadl no draws (every run diverged): counted as larger" in nine["ours"]
    assert "nan s.e." not in nine["reason"] + nine["ours"] and "inf s.e." not in nine["reason"] + nine["ours"]
    assert "scale=paper 1000 x 100000" in rows["matthews2018-fig1#7"]["method"]


def test_matthews_fig1_rows_say_what_the_quick_section_gave_where_it_differs():
    """The fortieth audit: the switch of the committed section from scale=quick to scale=paper (after both were seen)
    is declared in each row whose verdict it changed, with the quick verdict; the inset counts a scheme with no draws
    as larger in its history clause too, and names where CC-ADL's runs were all gone."""
    base = Path(__file__).resolve().parents[2] / "results" / "matthews2018-fig1"
    rows = {r["claim_id"]: r for r in csv.DictReader((base / "claims.csv").read_text().splitlines())}
    quick = {r["claim_id"]: r for r in csv.DictReader((base / "quick" / "claims.csv").read_text().splitlines())}
    said = "on the scale=quick run (results/matthews2018-fig1/quick/, the committed section until 2026-11-30"
    for k, r in rows.items():
        assert (said in r["reason"]) == (r["verdict"] != quick[k]["verdict"]), k
    assert f"this row is {quick['matthews2018-fig1#8']['verdict']}" in rows["matthews2018-fig1#8"]["reason"]
    nine = rows["matthews2018-fig1#9"]["reason"]
    assert "every run diverged by iteration 31623" in nine and "ccadl no draws" in nine
    assert "ccadl (no draws: every run diverged)" in nine


def test_matthews_fig1_finite_time_row_says_the_run_length_decides_it():
    """The forty-first audit: the paper states no run length, and on the double well mSGLD overtakes NOGIN between
    31,623 and 46,416 iterations: the row says that where the run ends decides it."""
    base = Path(__file__).resolve().parents[2] / "results" / "matthews2018-fig1"
    rows = {r["claim_id"]: r for r in csv.DictReader((base / "claims.csv").read_text().splitlines())}
    assert "the paper states no run length" in rows["matthews2018-fig1#8"]["reason"]
    assert "100000 iterations here, decides this row" in rows["matthews2018-fig1#8"]["reason"]
    assert "the paper states no run length" not in rows["matthews2018-fig1#7"]["reason"]  # NOGIN ahead at the end
