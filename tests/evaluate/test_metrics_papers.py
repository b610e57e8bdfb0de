"""Tests for the paper metrics of bnnsample.evaluate.metrics (issue 5).

Average Kolmogorov distance and self-distance band (Franzese et al. 2021,
section 3.5), W2 of 1-D laws, Sekkat & Stoltz (2023) section 2 errors, bias
and MSE of posterior averages (Chen et al. 2015, section 2.1) and the bias of
test-set class probabilities (Paulin et al. 2025).

Expected values are worked out by hand in the comments or computed with an
independent method (a library, a linear program, numerical quadrature), never
by calling the function under test.
"""

import math

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from bnnsample.evaluate import metrics as M

KOLMOGOROV_MEAN = math.sqrt(math.pi / 2.0) * math.log(2.0)  # 0.86873...


# --------------------------------------------------------------------------
# average Kolmogorov distance (Franzese 3.5)
# --------------------------------------------------------------------------


def test_kolmogorov_mean_constant():
    assert math.isclose(KOLMOGOROV_MEAN, 0.8687, abs_tol=1e-4)


def test_average_kolmogorov_distance_hand():
    # column 0: a = {0, 1, 2}, b = {0.5, 1.5}
    #   x:    0    0.5   1    1.5   2
    #   F_a: 1/3  1/3   2/3  2/3   1
    #   F_b:  0   1/2   1/2   1    1      -> sup |F_a - F_b| = 1/3
    # column 1 (ties): a = {5, 5, 5}, b = {5, 6}
    #   x = 5: F_a = 1, F_b = 1/2; x = 6: 1 vs 1  -> 1/2
    a = np.array([[0.0, 5.0], [1.0, 5.0], [2.0, 5.0]])
    b = np.array([[0.5, 5.0], [1.5, 6.0]])
    d = M.marginal_kolmogorov_distances(a, b)
    np.testing.assert_allclose(d, [1 / 3, 1 / 2], rtol=1e-12)
    assert M.average_kolmogorov_distance(a, b) == pytest.approx(5 / 12, rel=1e-12)
    # symmetric in its arguments
    assert M.average_kolmogorov_distance(b, a) == pytest.approx(5 / 12, rel=1e-12)


def test_marginal_kolmogorov_distances_match_scipy_per_column():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((37, 6))
    b = rng.standard_normal((23, 6)) * 1.3 + 0.2
    b[:5] = np.round(b[:5], 1)  # some ties with rounding
    a[:5] = np.round(a[:5], 1)
    expected = [stats.ks_2samp(a[:, t], b[:, t]).statistic for t in range(6)]
    np.testing.assert_allclose(M.marginal_kolmogorov_distances(a, b), expected, rtol=1e-12)
    assert M.average_kolmogorov_distance(a, b) == pytest.approx(np.mean(expected), rel=1e-12)


def test_average_kolmogorov_distance_two_exact_samplers():
    # Issue 5: two exact samplers of n and m draws give an average Kolmogorov
    # distance close to 0.8687 sqrt((n + m)/(n m)).  200 test points, each an
    # independent N(0, 1) marginal, n = 2000 and m = 3000 draws (Franzese's
    # Fig. 1 uses 2000); tolerance 4 standard errors of the mean over test
    # points.  The constant is asymptotic: over 100 seeds the finite-sample
    # mean sat 0.35 standard errors below it here (max |z| = 2.8).
    rng = np.random.default_rng(2024)
    n, m, n_test = 2000, 3000, 200
    expected = KOLMOGOROV_MEAN * math.sqrt((n + m) / (n * m))  # 0.02508
    a = rng.standard_normal((n, n_test))
    b = rng.standard_normal((m, n_test))
    d = M.marginal_kolmogorov_distances(a, b)
    se = d.std(ddof=1) / math.sqrt(n_test)  # ~5e-4
    assert abs(d.mean() - expected) < 4 * se
    assert M.average_kolmogorov_distance(a, b) == pytest.approx(d.mean(), rel=1e-12)

    # power: a biased sampler is farther away, increasingly with the bias
    akd = [M.average_kolmogorov_distance(a + shift, b) for shift in (0.0, 0.1, 0.25)]
    assert akd[1] > akd[0] + 4 * se
    assert akd[2] > akd[1] + 4 * se
    # population KS of N(0.25, 1) vs N(0, 1) is 2 Phi(0.125) - 1 = 0.0995
    assert akd[2] > 2 * stats.norm.cdf(0.125) - 1
    # a wrong variance is detected too
    assert M.average_kolmogorov_distance(1.2 * a, b) > akd[0] + 4 * se


def test_average_kolmogorov_distance_small_samples():
    # Franzese's 200-draw regime, n = 200 vs m = 300: the exact mean is a few
    # percent below the asymptotic 0.8687 sqrt((n+m)/(nm)) = 0.0793 (about
    # 2.5%, i.e. ~1.2 standard errors at 200 test points), so allow 5% below.
    rng = np.random.default_rng(2024)
    n, m, n_test = 200, 300, 200
    expected = KOLMOGOROV_MEAN * math.sqrt((n + m) / (n * m))
    d = M.marginal_kolmogorov_distances(rng.standard_normal((n, n_test)), rng.standard_normal((m, n_test)))
    se = d.std(ddof=1) / math.sqrt(n_test)
    assert 0.95 * expected - 4 * se < d.mean() < expected + 4 * se


def test_average_kolmogorov_distance_bad_input():
    good = np.zeros((4, 3))
    with pytest.raises(ValueError, match="non-finite"):
        M.average_kolmogorov_distance(np.full((4, 3), np.nan), good)
    with pytest.raises(ValueError, match="2-D"):
        M.average_kolmogorov_distance(np.zeros(4), good)
    with pytest.raises(ValueError, match="test points"):
        M.average_kolmogorov_distance(good, np.zeros((4, 2)))
    with pytest.raises(ValueError, match="empty"):
        M.average_kolmogorov_distance(np.zeros((0, 3)), good)


# --------------------------------------------------------------------------
# self-distance band
# --------------------------------------------------------------------------


def test_self_distance_band_hand():
    # one test point, three runs: A = {0, 1}, B = {2, 3}, C = {0.5, 1.5}
    # d(A, B) = 1 (disjoint), d(A, C) = 1/2 (at x = 1: F_A = 1, F_C = 1/2),
    # d(B, C) = 1 (disjoint).  Pair order (0,1), (0,2), (1,2).
    runs = [
        np.array([[0.0], [1.0]]),
        np.array([[2.0], [3.0]]),
        np.array([[0.5], [1.5]]),
    ]
    band = M.self_distance_band(runs)
    np.testing.assert_allclose(band["pair_distances"], [1.0, 0.5, 1.0], rtol=1e-12)
    assert band["mean"] == pytest.approx(2.5 / 3)
    # sorted [0.5, 1, 1]; linear quantile at 0.05: position 0.1 -> 0.55; at 0.95 -> 1
    assert band["low"] == pytest.approx(0.55)
    assert band["high"] == pytest.approx(1.0)
    band2 = M.self_distance_band(runs, q=(0.0, 0.5))
    assert (band2["low"], band2["high"]) == pytest.approx((0.5, 1.0))


def test_self_distance_band_exact_runs():
    # 5 runs x 200 draws (Franzese's setting) of exact N(0, 1) marginals at
    # 50 test points: 10 pairs, band around 0.8687 sqrt(2/200) = 0.0869
    rng = np.random.default_rng(7)
    runs = [rng.standard_normal((200, 50)) for _ in range(5)]
    band = M.self_distance_band(runs)
    assert band["pair_distances"].shape == (10,)
    assert band["low"] <= band["mean"] <= band["high"]
    assert band["mean"] == pytest.approx(KOLMOGOROV_MEAN * 0.1, rel=0.15)
    # the band brackets neither a biased sampler nor a too-wide one
    biased = rng.standard_normal((200, 50)) + 0.5
    assert M.average_kolmogorov_distance(biased, runs[0]) > band["high"]


def test_self_distance_band_bad_input():
    with pytest.raises(ValueError, match="at least 2"):
        M.self_distance_band([np.zeros((3, 2))])
    with pytest.raises(ValueError, match="test points"):
        M.self_distance_band([np.zeros((3, 2)), np.zeros((3, 4))])
    with pytest.raises(ValueError, match="non-finite"):
        M.self_distance_band([np.zeros((3, 2)), np.full((3, 2), np.inf)])
    with pytest.raises(ValueError, match="q must"):
        M.self_distance_band([np.zeros((3, 2)), np.zeros((3, 2))], q=(0.9, 0.1))


# --------------------------------------------------------------------------
# W2 of 1-D laws
# --------------------------------------------------------------------------


def _w2_linprog(a, b):
    """W2 by solving the discrete optimal-transport linear program."""
    n, m = len(a), len(b)
    cost = (np.asarray(a)[:, None] - np.asarray(b)[None, :]) ** 2
    a_eq = np.zeros((n + m, n * m))
    for i in range(n):
        a_eq[i, i * m : (i + 1) * m] = 1.0
    for j in range(m):
        a_eq[n + j, j::m] = 1.0
    b_eq = np.r_[np.full(n, 1.0 / n), np.full(m, 1.0 / m)]
    res = optimize.linprog(cost.ravel(), A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    assert res.success
    return math.sqrt(res.fun)


def test_wasserstein2_1d_hand():
    # a = {0, 1}, b = {0, 1, 2}: quantiles on (0,1/3] 0|0, (1/3,1/2] 0|1,
    # (1/2,2/3] 1|1, (2/3,1] 1|2  ->  W2^2 = 1/6 + 1/3 = 1/2
    assert M.wasserstein2_1d([0.0, 1.0], [2.0, 0.0, 1.0]) == pytest.approx(math.sqrt(0.5))
    # equal sizes: sorted pairing, sqrt(((1-0)^2 + (3-2)^2 + (5-7)^2)/3) = sqrt(2)
    assert M.wasserstein2_1d([3.0, 1.0, 5.0], [7.0, 0.0, 2.0]) == pytest.approx(math.sqrt(2))
    # a shift by c has W2 = c exactly; one point vs two: sqrt((1 + 9)/2)
    x = np.array([0.3, -1.2, 2.0, 0.7])
    assert M.wasserstein2_1d(x, x + 0.25) == pytest.approx(0.25)
    assert M.wasserstein2_1d([0.0], [1.0, -3.0]) == pytest.approx(math.sqrt(5.0))


def test_wasserstein2_1d_matches_linear_program():
    rng = np.random.default_rng(3)
    for n, m in [(4, 7), (5, 3), (6, 4), (5, 5)]:
        a, b = rng.normal(size=n), rng.normal(1.0, 2.0, size=m)
        assert M.wasserstein2_1d(a, b) == pytest.approx(_w2_linprog(a, b), rel=1e-7)
        # W2 >= W1 (Jensen), W1 from scipy
        assert M.wasserstein2_1d(a, b) >= stats.wasserstein_distance(a, b) - 1e-12


def test_wasserstein2_normal_hand_and_quadrature():
    # one point x: W2^2 = E (x - mu - sd Z)^2 = (x - mu)^2 + sd^2
    assert M.wasserstein2_normal([3.0], 1.0, 2.0) == pytest.approx(math.sqrt(4.0 + 4.0))
    # x = {-1, 1}, N(0, 1): W2^2 = 1 - 2 (-1 (0 - phi(0)) + 1 (phi(0) - 0)) + 1
    #                            = 2 - 4 / sqrt(2 pi) = 0.40423
    assert M.wasserstein2_normal([1.0, -1.0], 0.0, 1.0) == pytest.approx(
        math.sqrt(2 - 4 / math.sqrt(2 * math.pi)), rel=1e-12
    )
    # against quadrature of the squared quantile difference
    rng = np.random.default_rng(5)
    x = np.sort(rng.normal(0.3, 1.7, size=6))
    mu, sd = 0.1, 1.5
    n = x.size
    total = 0.0
    for i in range(n):
        total += integrate.quad(
            lambda u, xi=x[i]: (xi - mu - sd * stats.norm.ppf(u)) ** 2, i / n, (i + 1) / n, limit=200
        )[0]
    assert M.wasserstein2_normal(x, mu, sd) == pytest.approx(math.sqrt(total), rel=1e-7)


def test_wasserstein2_normal_large_sample_and_bias():
    rng = np.random.default_rng(11)
    x = rng.normal(2.0, 0.5, size=100_000)
    w_exact = M.wasserstein2_normal(x, 2.0, 0.5)
    assert w_exact < 0.01
    # W2 between normals is sqrt(dmu^2 + dsd^2): shifted/scaled target
    assert M.wasserstein2_normal(x, 2.3, 0.9) == pytest.approx(math.hypot(0.3, 0.4), abs=0.01)


def test_wasserstein2_bad_input():
    with pytest.raises(ValueError, match="non-finite"):
        M.wasserstein2_1d([0.0, np.nan], [1.0])
    with pytest.raises(ValueError, match="empty"):
        M.wasserstein2_1d([], [1.0])
    with pytest.raises(ValueError, match="sd"):
        M.wasserstein2_normal([0.0], 0.0, 0.0)
    with pytest.raises(ValueError, match="non-finite"):
        M.wasserstein2_normal([np.inf], 0.0, 1.0)


# --------------------------------------------------------------------------
# Sekkat & Stoltz section 2
# --------------------------------------------------------------------------


def test_relative_variance_error_hand():
    # |0.011 - 1/101| / (1/101) = |1.111 - 1| = 0.111
    assert M.relative_variance_error(0.011, 1 / 101) == pytest.approx(0.111, rel=1e-12)
    assert M.relative_variance_error(0.5, 1.0) == pytest.approx(0.5)  # absolute value
    np.testing.assert_allclose(M.relative_variance_error([1.0, 3.0], [2.0, 2.0]), [0.5, 0.5])
    with pytest.raises(ValueError, match="> 0"):
        M.relative_variance_error(1.0, 0.0)
    with pytest.raises(ValueError, match="shape"):
        M.relative_variance_error([1.0, 2.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="non-finite"):
        M.relative_variance_error(np.nan, 1.0)


def test_relative_covariance_diagonal_error_hand():
    est = np.array([[1.1, 0.5], [0.5, 1.5]])
    ref = np.array([[1.0, 0.0], [0.0, 2.0]])
    # (|1.1 - 1|/1 + |1.5 - 2|/2) / 2 = (0.1 + 0.25)/2 = 0.175; off-diagonals ignored
    assert M.relative_covariance_diagonal_error(est, ref) == pytest.approx(0.175)
    assert M.relative_covariance_diagonal_error([1.1, 1.5], [1.0, 2.0]) == pytest.approx(0.175)
    # sample covariance of exact draws from the reference law: error ~ sqrt(2/n)
    rng = np.random.default_rng(0)
    draws = rng.multivariate_normal([0, 0, 0], np.diag([1.0, 4.0, 0.25]), size=20_000)
    err = M.relative_covariance_diagonal_error(np.cov(draws.T), np.diag([1.0, 4.0, 0.25]))
    assert err < 5 * math.sqrt(2 / 20_000)
    with pytest.raises(ValueError, match="square"):
        M.relative_covariance_diagonal_error(np.zeros((2, 3)), np.eye(2))
    with pytest.raises(ValueError, match="dimension"):
        M.relative_covariance_diagonal_error(np.eye(3), np.eye(2))
    with pytest.raises(ValueError, match="> 0"):
        M.relative_covariance_diagonal_error(np.eye(2), np.zeros((2, 2)))


def test_l1_histogram_error_hand():
    # 2 bins on (0, 1), width 1/2; sample {0.1, 0.1, 0.6, 1.5}: counts (2, 1),
    # n = 4 (the point outside counts in n): phat = (2/(4*0.5), 1/(4*0.5)) = (1, 0.5);
    # U(0, 1) density p = (1, 1): L1 = 0.5 (0 + 0.5) = 0.25

    def uniform(x):
        return np.ones_like(x)

    sample = [0.1, 0.1, 0.6, 1.5]
    assert M.l1_histogram_error(sample, uniform, bins=2, range=(0, 1)) == pytest.approx(0.25)
    # reference sample {0.2, 0.7}: p = (1, 1) -> same 0.25
    assert M.l1_histogram_error(sample, [0.2, 0.7], bins=2, range=(0, 1)) == pytest.approx(0.25)
    # disjoint samples: L1 = 2 (pooled range)
    assert M.l1_histogram_error([0.0, 0.1], [5.0, 5.1], bins=10) == pytest.approx(2.0)
    # the density is taken at bin centres: p(x) = 2x on (0, 1), 2 bins -> (0.5, 1.5);
    # phat for {0.1, 0.6} is (1, 1): L1 = 0.5 (0.5 + 0.5) = 0.5
    assert M.l1_histogram_error([0.1, 0.6], lambda x: 2 * x, bins=2, range=(0, 1)) == (pytest.approx(0.5))


def test_l1_histogram_error_matches_numpy_and_converges():
    rng = np.random.default_rng(4)
    a, b = rng.normal(0.7, 0.2, size=5000), rng.normal(0.7, 0.2, size=3000)
    edges = np.linspace(0.0, 1.4, 501)

    def inside(x):
        return x[(x >= 0) & (x <= 1.4)]

    ha = np.histogram(inside(a), bins=edges, density=True)[0] * inside(a).size / a.size
    hb = np.histogram(inside(b), bins=edges, density=True)[0] * inside(b).size / b.size
    expected = np.sum(np.abs(ha - hb)) * (1.4 / 500)
    assert M.l1_histogram_error(a, b, bins=500, range=(0.0, 1.4)) == pytest.approx(expected)
    # against the exact density, the error decreases with the sample size
    pdf = stats.norm(0.7, 0.2).pdf
    errs = [M.l1_histogram_error(rng.normal(0.7, 0.2, size=n), pdf, range=(0.0, 1.4)) for n in (10_000, 1_000_000)]
    assert errs[1] < errs[0] / 3
    assert errs[1] < 0.05


def test_l1_histogram_error_bad_input():
    with pytest.raises(ValueError, match="range"):
        M.l1_histogram_error([0.1], lambda x: x)
    with pytest.raises(ValueError, match="range"):
        M.l1_histogram_error([0.1], [0.2], range=(1.0, 0.0))
    with pytest.raises(ValueError, match="non-finite"):
        M.l1_histogram_error([np.nan], [0.2], range=(0, 1))
    with pytest.raises(ValueError, match="bins"):
        M.l1_histogram_error([0.1], [0.2], bins=0, range=(0, 1))
    with pytest.raises(ValueError, match="density"):
        M.l1_histogram_error([0.1], lambda x: -np.ones_like(x), range=(0, 1))
    with pytest.raises(ValueError, match="shape"):
        M.l1_histogram_error([0.1], lambda x: 1.0, range=(0, 1))


# --------------------------------------------------------------------------
# Chen 2.1 and Paulin
# --------------------------------------------------------------------------


def test_posterior_average_bias_mse_hand():
    # estimates {1, 2, 3, 6}, truth 2: mean 3 -> bias 1;
    # mse = (1 + 0 + 1 + 16)/4 = 4.5 = bias^2 + var_0 = 1 + 3.5
    out = M.posterior_average_bias_mse([1.0, 2.0, 3.0, 6.0], 2.0)
    assert out["bias"] == pytest.approx(1.0)
    assert out["mse"] == pytest.approx(4.5)
    # std_1 of {1,2,3,6} = sqrt(14/3); se = sqrt(14/3)/2
    assert out["bias_se"] == pytest.approx(math.sqrt(14 / 3) / 2)
    # squared errors {1, 0, 1, 16}: mean 4.5, std_1 = sqrt((12.25+20.25+12.25+132.25)/3)
    assert out["mse_se"] == pytest.approx(math.sqrt(177 / 3) / 2)
    # bias is an absolute value
    assert M.posterior_average_bias_mse([1.0, 2.0], 3.0)["bias"] == pytest.approx(1.5)
    with pytest.raises(ValueError, match="at least 2"):
        M.posterior_average_bias_mse([1.0], 1.0)
    with pytest.raises(ValueError, match="1-D"):
        M.posterior_average_bias_mse(np.zeros((2, 2)), 1.0)
    with pytest.raises(ValueError, match="non-finite"):
        M.posterior_average_bias_mse([1.0, np.nan], 1.0)
    with pytest.raises(ValueError, match="truth"):
        M.posterior_average_bias_mse([1.0, 2.0], np.nan)


def test_posterior_average_bias_mse_drops_diverged_runs():
    """drop_diverged: non-finite runs and runs with |phi_hat| >= 1e6 are left out and counted;
    with fewer than max(2, R // 2) runs left the bias is inf."""
    good = [1.0, 2.0, 3.0, 6.0]
    out = M.posterior_average_bias_mse([*good, np.nan, 1e6, -np.inf], 2.0, drop_diverged=True)
    assert out == {**M.posterior_average_bias_mse(good, 2.0), "diverged": 3}
    assert M.posterior_average_bias_mse(good, 2.0, drop_diverged=True)["diverged"] == 0
    # 2 of 5 runs left is enough (max(2, 5 // 2) = 2), 2 of 6 is not (3)
    assert M.posterior_average_bias_mse([1.0, 2.0, *[np.nan] * 3], 2.0, drop_diverged=True)["bias"] == 0.5
    out = M.posterior_average_bias_mse([1.0, 2.0, *[np.nan] * 4], 2.0, drop_diverged=True)
    assert out["bias"] == out["mse"] == math.inf and math.isnan(out["bias_se"]) and out["diverged"] == 4
    assert M.posterior_average_bias_mse([1.0, np.nan], 2.0, drop_diverged=True)["bias"] == math.inf


def test_classification_metrics_with_se_hand():
    """Metrics of the renormalised averaged predictive, and chunk SEs std_1 / sqrt(chunks);
    NaN for a non-finite predictive."""
    y = np.array([0, 1, 1])
    chunks = np.array([[0.8, 0.2, 0.4, 0.6, 0.3, 0.7], [0.6, 0.4, 0.2, 0.8, 0.5, 0.5]])
    out = M.classification_metrics_with_se(chunks.mean(0), chunks, y, 2)
    assert out["accuracy"] == 1.0  # chunk accuracies 1 and 2/3 (the second's tie goes to class 0)
    assert out["accuracy_se"] == pytest.approx(np.std([1, 2 / 3], ddof=1) / 2**0.5)
    assert out["nll"] == pytest.approx(M.nll(chunks.mean(0).reshape(3, 2), y))
    for key in ("nll", "ace", "rps"):
        per = [getattr(M, key)(c.reshape(3, 2), y) for c in chunks]
        assert out[f"{key}_se"] == pytest.approx(np.std(per, ddof=1) / 2**0.5)
    twice = M.classification_metrics_with_se(2 * chunks.mean(0), 2 * chunks, y, 2)  # rows renormalised
    assert twice == pytest.approx(out)
    bad = M.classification_metrics_with_se(np.full(6, np.nan), chunks, y, 2)
    assert all(math.isnan(bad[k]) for k in ("accuracy", "nll", "ace", "rps"))


def test_iid_floor_is_the_distance_of_seeded_exact_draws():
    """The distance of `size` i.i.d. draws N(mu, sd^2) (numpy generator `seed`) to that law."""
    want = M.kolmogorov_distance_normal(np.random.default_rng(7).normal(0.5, 2.0, 1000), 0.5, 2.0)
    assert M.iid_floor(M.kolmogorov_distance_normal, 0.5, 2.0, 1000, 7) == want
    w1 = M.iid_floor(M.wasserstein1_normal, 0.5, 2.0, 1000, 7)
    assert w1 == M.wasserstein1_normal(np.random.default_rng(7).normal(0.5, 2.0, 1000), 0.5, 2.0)
    assert 0 < w1 < 0.2 and M.iid_floor(M.wasserstein1_normal, 0.5, 2.0, 1000, 8) != w1


def test_class_probability_bias_hand():
    probs = np.array([[0.7, 0.2, 0.1], [0.1, 0.5, 0.4]])
    ref = np.array([[0.6, 0.3, 0.1], [0.2, 0.2, 0.6]])
    y = np.array([0, 2])
    # true class: |0.7 - 0.6| = 0.1, |0.4 - 0.6| = 0.2 -> 0.15
    assert M.class_probability_bias(probs, ref, y) == pytest.approx(0.15)
    # all classes: (0.1 + 0.1 + 0 + 0.1 + 0.3 + 0.2)/6 = 0.8/6
    assert M.class_probability_bias(probs, ref) == pytest.approx(0.8 / 6)
    assert M.class_probability_bias(ref, ref, y) == 0.0
    with pytest.raises(ValueError, match="shape"):
        M.class_probability_bias(probs, ref[:1])
    with pytest.raises(ValueError, match="labels"):
        M.class_probability_bias(probs, ref, np.array([0, 3]))
    with pytest.raises(ValueError, match="non-finite"):
        M.class_probability_bias(np.full((2, 3), np.nan), ref)


def test_marginal_kolmogorov_distances_heavy_ties_match_scipy():
    # discrete values (many ties within and across the two samples), unequal sizes
    rng = np.random.default_rng(4)
    a = rng.integers(0, 4, (41, 25)).astype(float)
    b = rng.integers(1, 6, (17, 25)).astype(float)
    b[:, 0] = 2.0  # a constant column
    expected = [stats.ks_2samp(a[:, t], b[:, t]).statistic for t in range(25)]
    np.testing.assert_allclose(M.marginal_kolmogorov_distances(a, b), expected, rtol=1e-12)
    # identical samples: distance 0
    np.testing.assert_array_equal(M.marginal_kolmogorov_distances(a, a), np.zeros(25))
