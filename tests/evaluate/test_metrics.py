"""Tests for bnnsample.evaluate.metrics.

Expected values are worked out by hand in the comments or computed with an
independent formula (never by calling the function under test).
"""

import math
import warnings

import numpy as np
import pytest
from scipy import special, stats

from bnnsample.evaluate import metrics as M


def two_class(p1):
    """(n, 2) probabilities from the class-1 probabilities."""
    p1 = np.asarray(p1, dtype=float)
    return np.stack([1.0 - p1, p1], axis=1)


# --------------------------------------------------------------------------
# classification
# --------------------------------------------------------------------------


def test_accuracy_hand():
    probs = np.array(
        [
            [0.6, 0.3, 0.1],  # argmax 0, y 0 -> right
            [0.2, 0.7, 0.1],  # argmax 1, y 2 -> wrong
            [0.1, 0.1, 0.8],  # argmax 2, y 2 -> right
            [0.5, 0.4, 0.1],  # argmax 0, y 1 -> wrong
        ]
    )
    y = np.array([0, 2, 2, 1])
    assert M.accuracy(probs, y) == pytest.approx(2 / 4)


def test_nll_hand_and_clip_at_zero_probability():
    probs = np.array([[0.5, 0.5], [0.0, 1.0], [0.25, 0.75]])
    y = np.array([0, 0, 1])
    # p_true = 0.5, 0 (log -> -inf -> clipped to -100), 0.75
    expected = -(math.log(0.5) - 100.0 + math.log(0.75)) / 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a log(0) RuntimeWarning would fail here
        value = M.nll(probs, y)
    assert value == pytest.approx(expected, rel=1e-12)
    assert np.isfinite(value)
    # a custom clip is honoured
    expected_clip10 = -(math.log(0.5) - 10.0 + math.log(0.75)) / 3
    assert M.nll(probs, y, clip=-10.0) == pytest.approx(expected_clip10, rel=1e-12)


def test_nll_clip_applies_to_tiny_nonzero_probability():
    probs = np.array([[1e-300, 1.0 - 1e-300]])
    # log(1e-300) = -690.8 < -100 -> clipped
    assert M.nll(probs, np.array([0])) == pytest.approx(100.0)


def test_ace_hand_four_points_two_bins():
    # class-1 probabilities and labels
    probs = two_class([0.1, 0.4, 0.35, 0.8])
    y = np.array([0, 1, 0, 1])
    # n = 4, R = 2 -> ranks {0,1} in bin 0, ranks {2,3} in bin 1.
    # class 0: p0 = [0.9, 0.6, 0.65, 0.2]; ascending order i = 3, 1, 2, 0
    #   bin 0 = {3, 1}: mean p = (0.2+0.6)/2 = 0.4,    freq(y=0) = 0 -> 0.4
    #   bin 1 = {2, 0}: mean p = (0.65+0.9)/2 = 0.775, freq(y=0) = 1 -> 0.225
    # class 1: p1 = [0.1, 0.4, 0.35, 0.8]; ascending order i = 0, 2, 1, 3
    #   bin 0 = {0, 2}: mean p = 0.225, freq(y=1) = 0 -> 0.225
    #   bin 1 = {1, 3}: mean p = 0.6,   freq(y=1) = 1 -> 0.4
    # ACE = (0.4 + 0.225 + 0.225 + 0.4) / (K R = 4) = 0.3125
    assert M.ace(probs, y, n_bins=2) == pytest.approx(0.3125, abs=1e-12)


def test_ace_n_not_divisible_by_bins():
    probs = two_class([0.1, 0.2, 0.3, 0.4, 0.9])
    y = np.array([0, 0, 1, 0, 1])
    # n = 5, R = 2: bin(r) = floor(2 r / 5) = 0,0,0,1,1 -> sizes 3 and 2.
    # class 1 (already ascending): bin 0 = {0,1,2}: mean p 0.2,  freq 1/3 -> 2/15
    #                              bin 1 = {3,4}:   mean p 0.65, freq 1/2 -> 0.15
    # class 0: p0 = [0.9,0.8,0.7,0.6,0.1], ascending i = 4,3,2,1,0
    #   bin 0 = {4,3,2}: mean p 1.4/3, freq(y=0) 1/3 -> 0.4/3 = 2/15
    #   bin 1 = {1,0}:   mean p 0.85,  freq(y=0) 1   -> 0.15
    expected = (2 / 15 + 0.15 + 2 / 15 + 0.15) / 4
    assert M.ace(probs, y, n_bins=2) == pytest.approx(expected, abs=1e-12)


def test_ace_ties_use_stable_order():
    # all probabilities tie at 0.5: a stable sort keeps the input order 0,1,2,3
    probs = two_class([0.5, 0.5, 0.5, 0.5])
    y = np.array([1, 1, 0, 0])
    # class 1: bin 0 = {0,1} freq 1, p 0.5 -> 0.5; bin 1 = {2,3} freq 0 -> 0.5
    # class 0: bin 0 = {0,1} freq 0 -> 0.5;        bin 1 = {2,3} freq 1 -> 0.5
    assert M.ace(probs, y, n_bins=2) == pytest.approx(0.5, abs=1e-12)


def test_ace_fewer_points_than_bins_skips_empty_bins():
    probs = two_class([0.3, 0.6])
    y = np.array([0, 1])
    # n = 2 < R = 4: bins floor(4 r / 2) = 0, 2 -> two non-empty single-point bins.
    # class 1: |0 - 0.3| = 0.3, |1 - 0.6| = 0.4
    # class 0: p0 = [0.7, 0.4], ascending i = 1, 0: |0 - 0.4| = 0.4, |1 - 0.7| = 0.3
    # mean over the K * n = 4 non-empty (class, bin) pairs: 1.4 / 4
    assert M.ace(probs, y, n_bins=4) == pytest.approx(0.35, abs=1e-12)


def _ace_reference(probs, y, n_bins):
    """Plain-loop ACE: Python's sorted() is stable; bin of rank r is floor(r / (n/R))."""
    n, k = probs.shape
    total, count = 0.0, 0
    for cls in range(k):
        order = sorted(range(n), key=lambda i: probs[i, cls])
        bins = {}
        for r, i in enumerate(order):
            bins.setdefault(int(r // (n / n_bins)), []).append(i)
        for members in bins.values():
            freq = sum(1.0 for i in members if y[i] == cls) / len(members)
            conf = sum(probs[i, cls] for i in members) / len(members)
            total += abs(freq - conf)
            count += 1
    return total / count


@pytest.mark.parametrize("n, n_bins", [(203, 20), (1000, 20), (57, 7)])  # 203, 57: n % R != 0
def test_ace_matches_loop_reference_with_heavy_ties(n, n_bins):
    rng = np.random.default_rng(n)
    raw = rng.integers(1, 5, size=(n, 3)).astype(float)  # many exact ties per class
    probs = raw / raw.sum(axis=1, keepdims=True)
    y = rng.integers(0, 3, size=n)
    assert M.ace(probs, y, n_bins=n_bins) == pytest.approx(_ace_reference(probs, y, n_bins), abs=1e-12)


def _calibrated_sample(n, rng, k=3):
    probs = rng.dirichlet(np.ones(k), size=n)
    u = rng.random(n)
    y = (u[:, None] > np.cumsum(probs, axis=1)).sum(axis=1)  # y_i ~ Cat(probs_i)
    return probs, np.minimum(y, k - 1)


def test_ace_of_calibrated_predictor_decreases_to_zero():
    rng = np.random.default_rng(12345)
    ace_small = M.ace(*_calibrated_sample(1_000, rng))
    ace_large = M.ace(*_calibrated_sample(100_000, rng))
    assert ace_large < ace_small
    assert ace_large < 0.01
    # a miscalibrated (over-confident) predictor on the same labels is clearly worse
    probs, y = _calibrated_sample(100_000, rng)
    sharp = probs**3 / np.sum(probs**3, axis=1, keepdims=True)
    assert M.ace(sharp, y) > 5 * ace_large


def test_ece_confident_correct_is_zero():
    y = np.array([0, 2, 1, 1, 0])
    probs = np.eye(3)[y]
    assert M.ece(probs, y) == 0.0


def test_ece_hand():
    probs = np.array(
        [
            [0.95, 0.03, 0.02],  # conf 0.95, correct (y 0)
            [0.85, 0.10, 0.05],  # conf 0.85, wrong   (y 1)
            [0.10, 0.70, 0.20],  # conf 0.70, correct (y 1)
            [0.65, 0.30, 0.05],  # conf 0.65, wrong   (y 2)
            [0.20, 0.30, 0.50],  # conf 0.50, correct (y 2)
        ]
    )
    y = np.array([0, 1, 1, 2, 2])
    # 5 bins of width 0.2:
    # (0.8, 1.0]: conf mean 0.9,   acc 0.5 -> 2/5 * 0.4   = 0.16
    # (0.6, 0.8]: conf mean 0.675, acc 0.5 -> 2/5 * 0.175 = 0.07
    # (0.4, 0.6]: conf 0.5,        acc 1   -> 1/5 * 0.5   = 0.10
    assert M.ece(probs, y, n_bins=5) == pytest.approx(0.33, abs=1e-12)


def test_ece_bins_are_right_closed():
    # n_bins = 2: bins (0, 0.5] and (0.5, 1]
    probs = np.array([[0.5, 0.5], [1.0, 0.0]])
    y = np.array([0, 1])
    # row 0: conf 0.5 -> first bin, argmax 0 (first of the tie) = y -> correct
    # row 1: conf 1.0 -> second bin, wrong
    # ECE = 1/2 |1 - 0.5| + 1/2 |0 - 1| = 0.75
    assert M.ece(probs, y, n_bins=2) == pytest.approx(0.75, abs=1e-12)


def test_rps_hand_three_classes():
    probs = np.array([[0.2, 0.5, 0.3], [0.7, 0.2, 0.1]])
    y = np.array([1, 2])
    # row 0: cumsum p = [0.2, 0.7, 1.0], cumsum onehot = [0, 1, 1]
    #        diffs [0.2, -0.3, 0] -> (0.04 + 0.09) / (K-1 = 2) = 0.065
    # row 1: cumsum p = [0.7, 0.9, 1.0], cumsum onehot = [0, 0, 1]
    #        diffs [0.7, 0.9, 0] -> (0.49 + 0.81) / 2 = 0.65
    assert M.rps(probs, y) == pytest.approx((0.065 + 0.65) / 2, abs=1e-12)


def test_rps_perfect_prediction_is_zero_and_order_matters():
    y = np.array([0, 1, 2])
    assert M.rps(np.eye(3)[y], y) == pytest.approx(0.0, abs=1e-15)
    # wrong by one class vs wrong by two classes (ranked score)
    near = M.rps(np.array([[0.0, 1.0, 0.0]]), np.array([0]))  # diffs [-1, 0, 0] -> 1/2
    far = M.rps(np.array([[0.0, 0.0, 1.0]]), np.array([0]))  # diffs [-1, -1, 0] -> 2/2
    assert near == pytest.approx(0.5)
    assert far == pytest.approx(1.0)


def test_classification_metrics_keys_and_values():
    rng = np.random.default_rng(0)
    probs, y = _calibrated_sample(500, rng, k=4)
    out = M.classification_metrics(probs, y)
    assert set(out) == {"accuracy", "nll", "ace", "rps", "ece"}
    assert out["accuracy"] == pytest.approx(np.mean(probs.argmax(1) == y))
    assert out["nll"] == pytest.approx(-np.mean(np.log(probs[np.arange(500), y])))
    assert out["ace"] == M.ace(probs, y, n_bins=20)
    assert out["ece"] == M.ece(probs, y, n_bins=15)
    assert out["rps"] == M.rps(probs, y)


@pytest.mark.parametrize("fn", [M.accuracy, M.nll, M.ace, M.ece, M.rps])
def test_classification_rejects_bad_input(fn):
    probs = np.array([[0.5, 0.5], [0.2, 0.8]])
    with pytest.raises(ValueError, match="non-finite"):
        fn(np.array([[0.5, 0.5], [np.nan, 0.8]]), np.array([0, 1]))
    with pytest.raises(ValueError):
        fn(probs, np.array([0, 2]))  # label out of range
    with pytest.raises(ValueError):
        fn(probs, np.array([0, 1, 1]))  # length mismatch


# --------------------------------------------------------------------------
# regression
# --------------------------------------------------------------------------


def test_rmse_hand():
    # errors 1, -2, 2 -> sqrt((1 + 4 + 4)/3) = sqrt(3)
    assert M.rmse(np.array([1.0, 0.0, 5.0]), np.array([0.0, 2.0, 3.0])) == pytest.approx(math.sqrt(3.0))


def test_gaussian_nll_single_draw_matches_direct_formula():
    rng = np.random.default_rng(1)
    mu = rng.normal(size=50)
    y = rng.normal(size=50)
    var = 0.3
    direct = np.mean(0.5 * np.log(2 * np.pi * var) + (y - mu) ** 2 / (2 * var))
    assert M.gaussian_mixture_nll(mu[None, :], y, var) == pytest.approx(direct, rel=1e-12)
    assert M.gaussian_mixture_nll(mu, y, var) == pytest.approx(direct, rel=1e-12)


def test_gaussian_nll_mixture_matches_pdf_average_and_is_stable():
    means = np.array([[0.0, 1.0, -2.0], [0.5, 3.0, -2.0]])
    y = np.array([0.2, 2.0, -1.0])
    var = 0.5
    dens = stats.norm.pdf(y[None, :], loc=means, scale=math.sqrt(var)).mean(axis=0)
    assert M.gaussian_mixture_nll(means, y, var) == pytest.approx(-np.mean(np.log(dens)))
    # far-away targets: naive pdf underflows to 0, logsumexp must not
    far = M.gaussian_mixture_nll(np.array([[0.0], [1.0]]), np.array([100.0]), 1e-2)
    # dominated by the draw at 1: 0.5 log(2 pi 0.01) + 99^2 / 0.02 + log 2
    expected = 0.5 * math.log(2 * math.pi * 1e-2) + 99.0**2 / 0.02 + math.log(2.0)
    assert far == pytest.approx(expected, rel=1e-12)


def test_regression_metrics_in_original_units():
    rng = np.random.default_rng(2)
    S, n = 7, 40
    means = rng.normal(size=(S, n))
    y = rng.normal(size=n)
    var, scale, shift = 0.2, 3.5, 10.0
    out = M.regression_metrics(means, y, var, y_scale=scale)
    # recompute directly on the original scale
    means_o, y_o, sd_o = means * scale + shift, y * scale + shift, math.sqrt(var) * scale
    rmse_o = np.sqrt(np.mean((means_o.mean(axis=0) - y_o) ** 2))
    dens_o = stats.norm.pdf(y_o[None, :], loc=means_o, scale=sd_o).mean(axis=0)
    assert out["rmse"] == pytest.approx(rmse_o, rel=1e-12)
    assert out["nll"] == pytest.approx(-np.mean(np.log(dens_o)), rel=1e-10)


def test_regression_rejects_nonfinite():
    with pytest.raises(ValueError, match="non-finite"):
        M.gaussian_mixture_nll(np.array([[0.0, np.inf]]), np.array([0.0, 1.0]), 1.0)
    with pytest.raises(ValueError):
        M.gaussian_mixture_nll(np.array([[0.0, 1.0]]), np.array([0.0, 1.0]), 0.0)


# --------------------------------------------------------------------------
# 1-D distances
# --------------------------------------------------------------------------


def test_wasserstein1_normal_single_point_at_mean():
    # W1(delta_mu, N(mu, sd^2)) = E|X - mu| = sd sqrt(2/pi)
    assert M.wasserstein1_normal(np.array([1.7]), 1.7, 2.5) == pytest.approx(2.5 * math.sqrt(2 / math.pi), rel=1e-12)


def test_wasserstein1_normal_single_point_off_mean():
    # W1(delta_x, N(0,1)) = E|Z - x| = x (2 Phi(x) - 1) + 2 phi(x)
    x = 1.3
    expected = x * (2 * stats.norm.cdf(x) - 1) + 2 * stats.norm.pdf(x)
    assert M.wasserstein1_normal(np.array([x]), 0.0, 1.0) == pytest.approx(expected, rel=1e-12)


def test_wasserstein1_normal_two_point_sample():
    # sample {-1, 1} vs N(0, 1): by symmetry W1 = 2 int_{-inf}^{0} |F_n - Phi|
    #   = 2 [ int_{-inf}^{-1} Phi + int_{-1}^{0} (1/2 - Phi) ]
    #   = 2 [ G(-1) + (1/2)(1) - (G(0) - G(-1)) ],  G(z) = z Phi(z) + phi(z)
    G = lambda z: z * stats.norm.cdf(z) + stats.norm.pdf(z)  # noqa: E731
    expected = 2 * (G(-1.0) + 0.5 - (G(0.0) - G(-1.0)))
    assert M.wasserstein1_normal(np.array([1.0, -1.0]), 0.0, 1.0) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    "n, loc, scale, mean, sd",
    [(10, 0.3, 1.5, 0.2, 1.4), (1000, 0.0, 1.0, 0.0, 1.0), (100_000, 0.5, 2.0, 0.0, 1.0)],
)
def test_wasserstein1_normal_vs_scipy_fine_quantile_grid(n, loc, scale, mean, sd):
    rng = np.random.default_rng(n)
    sample = rng.normal(loc, scale, size=n)
    m = 1_000_000
    grid = stats.norm.ppf((np.arange(m) + 0.5) / m, loc=mean, scale=sd)
    reference = stats.wasserstein_distance(sample, grid)
    assert M.wasserstein1_normal(sample, mean, sd) == pytest.approx(reference, abs=1e-4)


def test_wasserstein1_normal_with_ties_and_far_sample():
    sample = np.array([2.0, 2.0, 2.0, 5.0])
    m = 1_000_000
    grid = stats.norm.ppf((np.arange(m) + 0.5) / m)
    assert M.wasserstein1_normal(sample, 0.0, 1.0) == pytest.approx(stats.wasserstein_distance(sample, grid), abs=1e-4)
    # a sample far in the tail: W1 -> |shift| (means differ by 40, spreads similar)
    far = np.random.default_rng(3).normal(40.0, 1.0, size=10_000)
    assert M.wasserstein1_normal(far, 0.0, 1.0) == pytest.approx(stats.wasserstein_distance(far, grid), abs=1e-4)


@pytest.mark.parametrize("shift, scale", [(0.15, 1.0), (0.0, 1.1)])
def test_wasserstein1_normal_se_is_the_spread_over_replicates(shift, scale):
    """Chains of AR(1) draws (correlation 0.7) of a biased law: the delta-method s.e. is the
    standard deviation of W1 over independent replicates, and (power) it is far larger than
    the s.e. the same draws would have if they were independent."""
    rng = np.random.default_rng(11)

    def chains(c=200, d=20, rho=0.7):
        e = rng.normal(size=(c, d))
        x = np.empty_like(e)
        x[:, 0] = e[:, 0]
        for j in range(1, d):
            x[:, j] = rho * x[:, j - 1] + math.sqrt(1 - rho**2) * e[:, j]
        return shift + scale * x

    reps = [chains() for _ in range(200)]
    spread = np.std([M.wasserstein1_normal(x, 0.0, 1.0) for x in reps], ddof=1)
    se = np.mean([M.wasserstein1_normal_se(x, 0.0, 1.0) for x in reps])
    assert se == pytest.approx(spread, rel=0.15)
    assert se > 1.4 * M.wasserstein1_normal_se(reps[0].reshape(-1, 1), 0.0, 1.0)
    with pytest.raises(ValueError, match="at least 2 independent chains"):
        M.wasserstein1_normal_se(reps[0][:1], 0.0, 1.0)


def test_wasserstein1_normal_with_se_from_one_sort_in_chunks(monkeypatch):
    """W1 and its s.e. from one sort, in chunks smaller than the sample: the pooled W1 of
    ``wasserstein1_normal``, and the s.e. of psi computed over the whole sample at once (the
    delta-method formula of the docstring), for draws stored chain-major or transposed."""
    monkeypatch.setattr(M, "_W1_CHUNK", 37)  # many chunks, the last one short
    rng = np.random.default_rng(5)
    d = rng.normal(0.2, 1.3, size=(40, 25))
    w1, se = M.wasserstein1_normal_with_se(d, 0.1, 1.2)
    assert w1 == pytest.approx(M.wasserstein1_normal(d.reshape(-1), 0.1, 1.2), rel=1e-12)
    z = ((d - 0.1) / 1.2).reshape(-1)
    order = np.argsort(z)
    zs = z[order]
    m = np.clip(special.ndtri(np.arange(1, zs.size) / zs.size), zs[:-1], zs[1:])
    psi = np.empty_like(z)
    psi[order] = -np.concatenate(([0.0], np.cumsum(2 * m - zs[:-1] - zs[1:])))
    expected = 1.2 * np.std(psi.reshape(d.shape).mean(axis=1), ddof=1) / np.sqrt(d.shape[0])
    assert se == pytest.approx(expected, rel=1e-10)
    assert M.wasserstein1_normal_with_se(np.asfortranarray(d), 0.1, 1.2) == pytest.approx((w1, se), rel=1e-12)
    # the chains' influences, in the chains' order: their spread is the s.e.
    w1_i, se_i, psibar = M.wasserstein1_normal_influence(d, 0.1, 1.2)
    assert (w1_i, se_i) == (w1, se)
    assert psibar == pytest.approx(1.2 * psi.reshape(d.shape).mean(axis=1), rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("chains", [1, 2, 3, 300])
def test_chains_in_value_order_pairs_each_value_with_its_chain(chains):
    """The chain numbers of the integer-key sort, beside the sorted values, are the (value,
    chain) pairs of the data: signs, zeros of both signs, exact ties, huge and tiny values."""
    rng = np.random.default_rng(chains)
    z = rng.normal(size=(chains, 41)) * rng.choice([1e-300, 1e-3, 1.0, 1e200], size=(chains, 41))
    z[:, :5] = np.round(z[:, :5])  # ties across chains
    z[0, 5], z[-1, 6] = 0.0, -0.0
    got = M._chains_in_value_order(z)
    zs = np.sort(z.reshape(-1))
    pairs = sorted(zip(zs.tolist(), got.tolist()))
    expected = sorted(zip(z.reshape(-1).tolist(), np.repeat(np.arange(chains), 41).tolist()))
    assert pairs == expected


def test_kolmogorov_distance_normal_direct_formula():
    rng = np.random.default_rng(4)
    sample = rng.normal(0.2, 1.3, size=500)
    mean, sd = 0.0, 1.0
    # D = max_i max( i/n - Phi(z_(i)), Phi(z_(i)) - (i-1)/n )
    z = np.sort(sample)
    cdf = stats.norm.cdf((z - mean) / sd)
    i = np.arange(1, z.size + 1)
    expected = max(np.max(i / z.size - cdf), np.max(cdf - (i - 1) / z.size))
    assert M.kolmogorov_distance_normal(sample, mean, sd) == pytest.approx(expected, rel=1e-12)
    # single point at the mean: sup |1[x >= mu] - Phi| = 1/2
    assert M.kolmogorov_distance_normal(np.array([3.0]), 3.0, 2.0) == pytest.approx(0.5)


def test_two_sample_wasserstein_equal_sizes_is_mean_sorted_gap():
    rng = np.random.default_rng(5)
    a = rng.normal(size=300)
    b = rng.standard_t(3, size=300) + 0.4
    # for equal sizes W1 = (1/n) sum |a_(i) - b_(i)|
    expected = np.mean(np.abs(np.sort(a) - np.sort(b)))
    assert M.wasserstein1(a, b) == pytest.approx(expected, rel=1e-12)
    assert M.wasserstein1(a, b) == pytest.approx(stats.wasserstein_distance(a, b), rel=1e-12)


def test_two_sample_kolmogorov_direct_formula():
    rng = np.random.default_rng(6)
    a = rng.normal(size=200)
    b = rng.normal(0.3, 1.2, size=150)
    pooled = np.concatenate([a, b])
    fa = np.searchsorted(np.sort(a), pooled, side="right") / a.size
    fb = np.searchsorted(np.sort(b), pooled, side="right") / b.size
    expected = np.max(np.abs(fa - fb))
    assert M.kolmogorov_distance(a, b) == pytest.approx(expected, abs=1e-15)
    assert M.kolmogorov_distance(a, b) == pytest.approx(stats.ks_2samp(a, b).statistic)


def test_distances_reject_nonfinite():
    bad = np.array([0.0, np.nan])
    for call in (
        lambda: M.wasserstein1_normal(bad, 0.0, 1.0),
        lambda: M.kolmogorov_distance_normal(bad, 0.0, 1.0),
        lambda: M.wasserstein1(bad, np.zeros(3)),
        lambda: M.kolmogorov_distance(np.zeros(3), bad),
        lambda: M.moment_errors(bad, 0.0, 1.0),
    ):
        with pytest.raises(ValueError, match="non-finite"):
            call()
    with pytest.raises(ValueError):
        M.wasserstein1_normal(np.zeros(3), 0.0, 0.0)  # sd must be > 0


# --------------------------------------------------------------------------
# moments and many-chain Monte Carlo errors
# --------------------------------------------------------------------------


def test_moment_errors_hand():
    sample = np.array([1.0, 2.0, 3.0, 6.0])
    # mean 3, var (4 + 1 + 0 + 9)/4 = 3.5
    out = M.moment_errors(sample, mean=2.5, var=4.0)
    assert out["mean_error"] == pytest.approx(0.5)
    assert out["var_error"] == pytest.approx(-0.5)
    assert out["rel_var_error"] == pytest.approx(-0.125)


def test_chain_mean_se_hand():
    draws = np.array([[1.0, 3.0], [2.0, 2.0], [6.0, 4.0]])
    # chain means 2, 2, 5 -> pooled mean 3; deviations -1, -1, 2
    # std(ddof=1) = sqrt((1 + 1 + 4)/2) = sqrt(3) -> se = sqrt(3)/sqrt(3 chains) = 1
    mean, se = M.chain_mean_se(draws)
    assert mean == pytest.approx(3.0)
    assert se == pytest.approx(1.0)


def test_chain_var_se_hand():
    draws = np.array([[1.0, 3.0], [2.0, 2.0], [6.0, 4.0]])
    # pooled mean 3; squared deviations [[4, 0], [1, 1], [9, 1]]
    # pooled var = 16/6; per-chain v_c = (4+0)/2, (1+1)/2, (9+1)/2 = 2, 1, 5
    # mean v = 8/3; deviations -2/3, -5/3, 7/3; sum sq = (4+25+49)/9 = 78/9;
    # var(ddof=1) = 78/18 = 13/3 -> se = sqrt(13/3) / sqrt(3)
    var, se = M.chain_var_se(draws)
    assert var == pytest.approx(16 / 6)
    assert se == pytest.approx(math.sqrt(13 / 3) / math.sqrt(3.0))


def test_chain_mean_and_var_se_iid_normal():
    rng = np.random.default_rng(7)
    chains, per_chain, sd = 1000, 50, 2.0
    draws = rng.normal(1.0, sd, size=(chains, per_chain))
    mean, se = M.chain_mean_se(draws)
    assert se == pytest.approx(sd / math.sqrt(chains * per_chain), rel=0.10)
    assert abs(mean - 1.0) < 4 * sd / math.sqrt(chains * per_chain)
    var, var_se = M.chain_var_se(draws)
    # Var of a mean of D squared N(0, sd^2) deviations is 2 sd^4 / D
    assert var_se == pytest.approx(sd**2 * math.sqrt(2.0 / (chains * per_chain)), rel=0.10)
    assert abs(var - sd**2) < 4 * var_se


def test_chain_se_needs_two_finite_chains():
    with pytest.raises(ValueError):
        M.chain_mean_se(np.zeros((1, 10)))
    with pytest.raises(ValueError, match="non-finite"):
        M.chain_var_se(np.array([[0.0, 1.0], [np.inf, 0.0]]))
