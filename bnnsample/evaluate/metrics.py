"""Evaluation metrics for posterior samples and posterior-predictive distributions.

Everything in this module is plain numpy/scipy (no torch): callers convert
tensors with ``.cpu().numpy()`` first.

Conventions
-----------
* Classification: ``probs`` is an ``(n, K)`` array of predictive class
  probabilities *already averaged over posterior draws*,
  ``p_ik = (1/S) sum_s p(y=k | x_i, theta_s)``; ``y`` is an ``(n,)`` array of
  integer labels in ``{0, ..., K-1}``.  Rows are not renormalised.
* Regression: ``means`` is an ``(S, n)`` array of predictive means
  ``f_{theta_s}(x_i)`` of ``S`` posterior draws, the observation model is
  Gaussian with a fixed noise variance; ``y`` is ``(n,)``.  Targets may be
  standardised, ``y_orig = y_scale * y + shift``; ``regression_metrics``
  reports RMSE and NLL in original units.
* 1-D distribution tests: a ``sample`` is a 1-D array (any shape is flattened)
  compared either with an exact normal law ``N(mean, sd^2)`` or with another
  sample.
* Many-chain Monte Carlo errors: ``draws`` is ``(chains, draws_per_chain)``
  of *independent* chains.
* All functions reject empty or non-finite input with ``ValueError``: callers
  must drop diverged chains before calling (``posterior_average_bias_mse`` drops
  diverged runs itself with ``drop_diverged=True``).

Classification definitions follow Paulin et al. (2025), §3.4 and §5 with the formulas of
the authors' code (accuracy, NLL clipped at -100, ACE with
20 equal-count bins, RPS); ECE is the usual top-label, equal-width version and
is provided for comparison only.  Kolmogorov distances, the average Kolmogorov
distance over test points and the self-distance band follow Franzese et al.
(2021), §5 and App. F.2.  The relative variance error, the mean relative error of
the covariance diagonal and the 500-bin L1 histogram error (eq. 44) follow
Sekkat & Stoltz (2023), §2.5, §3.4 and eq. 44; the bias and MSE of posterior averages over
independent runs follow Chen et al. (2015), §5.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import special, stats

from ..stats import chain_mean_se, chain_var_se, l1_histogram_error  # noqa: F401  (re-exported: they live in stats)
from ..stats import check_chains as _check_chains
from ..stats import finite_array as _finite_array

__all__ = [
    "accuracy",
    "nll",
    "ace",
    "ece",
    "rps",
    "classification_metrics",
    "classification_metrics_with_se",
    "rmse",
    "gaussian_mixture_nll",
    "regression_metrics",
    "regression_metrics_streamed",
    "kolmogorov_distance_normal",
    "wasserstein1_normal",
    "wasserstein1_normal_with_se",
    "wasserstein1_normal_influence",
    "iid_floor",
    "wasserstein1",
    "kolmogorov_distance",
    "moment_errors",
    "chain_mean_se",
    "chain_var_se",
    "marginal_kolmogorov_distances",
    "average_kolmogorov_distance",
    "distance_band",
    "self_distance_band",
    "wasserstein2_1d",
    "wasserstein2_normal",
    "relative_variance_error",
    "relative_covariance_diagonal_error",
    "l1_histogram_error",
    "posterior_average_bias_mse",
    "class_probability_bias",
]


# --------------------------------------------------------------------------
# input validation
# --------------------------------------------------------------------------


def _sample_1d(x, name: str = "sample") -> np.ndarray:
    """Flatten a sample to 1-D float64, checking it is non-empty and finite."""
    return _finite_array(np.ravel(np.asarray(x, dtype=np.float64)), name)


def _positive_scalar(x, name: str) -> float:
    v = float(x)
    if not (np.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be finite and > 0, got {x!r}")
    return v


def _finite_scalar(x, name: str) -> float:
    v = float(x)
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {x!r}")
    return v


def _check_classification(probs, y) -> tuple[np.ndarray, np.ndarray]:
    """Validate ``probs`` (n, K) and integer labels ``y`` (n,) in [0, K)."""
    p = _finite_array(probs, "probs", ndim=2)
    n, k = p.shape
    if k < 2:
        raise ValueError(f"probs needs at least 2 classes, got shape {p.shape}")
    yf = _finite_array(y, "y", ndim=1)
    if yf.shape[0] != n:
        raise ValueError(f"probs has {n} rows but y has {yf.shape[0]} labels")
    if np.any(yf != np.round(yf)) or np.any(yf < 0) or np.any(yf >= k):
        raise ValueError(f"y must hold integer labels in [0, {k - 1}]")
    return p, yf.astype(np.int64)


# --------------------------------------------------------------------------
# classification
# --------------------------------------------------------------------------


def accuracy(probs, y) -> float:
    """Accuracy = (1/n) sum_i 1[argmax_k p_ik = y_i].

    Ties in the argmax go to the lowest class index (``np.argmax``).
    """
    p, lab = _check_classification(probs, y)
    return float(np.mean(np.argmax(p, axis=1) == lab))


def nll(probs, y, clip: float = -100.0) -> float:
    """Clipped negative log-likelihood.

    NLL = -(1/n) sum_i max(log p_{i, y_i}, clip),  clip = -100 by default.

    ``log 0 = -inf`` is mapped to ``clip`` without a warning.
    """
    p, lab = _check_classification(probs, y)
    p_true = p[np.arange(p.shape[0]), lab]
    if np.any(p_true < 0):
        raise ValueError("probs must be non-negative")
    with np.errstate(divide="ignore"):
        logp = np.log(p_true)
    return float(-np.mean(np.maximum(logp, float(clip))))


def ace(probs, y, n_bins: int = 20) -> float:
    """Adaptive calibration error (Nixon et al. 2019), Paulin et al. section 2.8.

    For each class k, sort the n test points by p_ik ascending with a *stable*
    sort; the point of rank r (r = 0..n-1) goes to bin b = floor(r / (n/R))
    with R = ``n_bins``.  This is evaluated exactly in integer arithmetic as
    b = floor(r * R / n), so for n not divisible by R the bins have sizes
    floor(n/R) or ceil(n/R) as the formula dictates.  Then

        ACE = (1/(K R)) sum_k sum_{b=0}^{R-1}
                  | mean_{i in b} 1[y_i = k] - mean_{i in b} p_ik |.

    If n >= R every bin is non-empty.  If n < R, exactly n bins are non-empty
    (one point each); the empty bins are skipped and the average is taken
    over the K * n non-empty (class, bin) pairs instead of K * R.
    """
    p, lab = _check_classification(probs, y)
    n, k = p.shape
    n_bins = int(n_bins)
    if n_bins < 1:
        raise ValueError(f"n_bins must be >= 1, got {n_bins}")
    order = np.argsort(p, axis=0, kind="stable")  # (n, K), per-class ranks
    p_sorted = np.take_along_axis(p, order, axis=0)
    hit_sorted = (lab[order] == np.arange(k)[None, :]).astype(np.float64)

    bin_of_rank = (np.arange(n, dtype=np.int64) * n_bins) // n  # non-decreasing
    starts = np.flatnonzero(np.r_[True, bin_of_rank[1:] != bin_of_rank[:-1]])
    counts = np.diff(np.r_[starts, n])[:, None]  # sizes of the non-empty bins
    conf = np.add.reduceat(p_sorted, starts, axis=0) / counts
    freq = np.add.reduceat(hit_sorted, starts, axis=0) / counts
    return float(np.mean(np.abs(freq - conf)))


def ece(probs, y, n_bins: int = 15) -> float:
    """Top-label expected calibration error with equal-width bins (comparison only).

    With c_i = max_k p_ik, yhat_i = argmax_k p_ik and the M = ``n_bins`` bins
    B_m = (m/M, (m+1)/M] (c_i = 0 goes to the first bin),

        ECE = sum_m (|B_m| / n) | mean_{i in B_m} 1[yhat_i = y_i]
                                  - mean_{i in B_m} c_i |,

    empty bins contributing 0.
    """
    p, lab = _check_classification(probs, y)
    n_bins = int(n_bins)
    if n_bins < 1:
        raise ValueError(f"n_bins must be >= 1, got {n_bins}")
    conf = np.max(p, axis=1)
    correct = (np.argmax(p, axis=1) == lab).astype(np.float64)
    inner_edges = np.linspace(0.0, 1.0, n_bins + 1)[1:-1]
    bins = np.digitize(conf, inner_edges, right=True)  # edges[m] < c <= edges[m+1]
    gap = np.abs(
        np.bincount(bins, weights=correct, minlength=n_bins) - np.bincount(bins, weights=conf, minlength=n_bins)
    )
    # sum_m (|B_m|/n) |acc_m - conf_m| = (1/n) sum_m |sum_{B_m} correct - sum_{B_m} c|
    return float(gap.sum() / p.shape[0])


def rps(probs, y) -> float:
    """Ranked probability score (Constantinou & Fenton 2012), natural label order.

    RPS_i = (1/(K-1)) sum_{j=1}^{K} ( sum_{l<=j} p_il - sum_{l<=j} 1[y_i = l] )^2,
    RPS = (1/n) sum_i RPS_i.
    """
    p, lab = _check_classification(probs, y)
    n, k = p.shape
    onehot = np.zeros_like(p)
    onehot[np.arange(n), lab] = 1.0
    diff = np.cumsum(p, axis=1) - np.cumsum(onehot, axis=1)
    return float(np.mean(np.sum(diff**2, axis=1)) / (k - 1))


def classification_metrics(probs, y) -> dict:
    """All classification metrics with default settings.

    Returns ``{"accuracy", "nll" (clip -100), "ace" (20 bins), "rps",
    "ece" (15 bins)}``.
    """
    return {
        "accuracy": accuracy(probs, y),
        "nll": nll(probs, y),
        "ace": ace(probs, y),
        "rps": rps(probs, y),
        "ece": ece(probs, y),
    }


def _renormalised_metrics(probs: np.ndarray, y: np.ndarray) -> dict:
    if not np.all(np.isfinite(probs)):
        return {"accuracy": float("nan"), "nll": float("nan"), "ace": float("nan"), "rps": float("nan")}
    p = probs / probs.sum(1, keepdims=True)
    return {"accuracy": accuracy(p, y), "nll": nll(p, y), "ace": ace(p, y), "rps": rps(p, y)}


def classification_metrics_with_se(mean: np.ndarray, chunks: np.ndarray, y: np.ndarray, K: int) -> dict:
    """Accuracy, NLL, ACE and RPS of the averaged predictive ``mean`` [n_test * K] (rows
    renormalised; NaN for a non-finite predictive), with chunk SEs under ``<metric>_se``: std
    over the chunks' predictives ``chunks`` [n_chunks, n_test * K] / sqrt(n_chunks) (Paulin et
    al. 2025, §3.4 and App. D.1: the authors' error bar, std of 4 chunks / 2)."""
    out = _renormalised_metrics(mean.reshape(-1, K), y)
    per = [_renormalised_metrics(c.reshape(-1, K), y) for c in chunks]
    for k in list(out):
        out[f"{k}_se"] = float(np.std([m[k] for m in per], ddof=1) / np.sqrt(len(per)))
    return out


# --------------------------------------------------------------------------
# regression
# --------------------------------------------------------------------------


def rmse(mean_pred, y) -> float:
    """RMSE = sqrt( (1/n) sum_i (mean_pred_i - y_i)^2 )."""
    m = _finite_array(mean_pred, "mean_pred", ndim=1)
    t = _finite_array(y, "y", ndim=1)
    if m.shape != t.shape:
        raise ValueError(f"mean_pred shape {m.shape} != y shape {t.shape}")
    return float(np.sqrt(np.mean((m - t) ** 2)))


def _regression_inputs(means, y) -> tuple[np.ndarray, np.ndarray]:
    """Validate ``means`` (S, n) (a 1-D array is taken as S = 1) and ``y`` (n,)."""
    m = _finite_array(means, "means")
    if m.ndim == 1:
        m = m[None, :]
    if m.ndim != 2:
        raise ValueError(f"means must be (S, n) or (n,), got shape {m.shape}")
    t = _finite_array(y, "y", ndim=1)
    if m.shape[1] != t.shape[0]:
        raise ValueError(f"means has {m.shape[1]} test points but y has {t.shape[0]}")
    return m, t


def gaussian_mixture_nll(means, y, noise_var) -> float:
    """Mean negative log predictive density of an equal-weight Gaussian mixture.

    NLL = -(1/n) sum_i log( (1/S) sum_s N(y_i; means[s, i], noise_var) )
        = (1/n) sum_i [ log S - logsumexp_s( -(y_i - means[s, i])^2 / (2 noise_var)
                                               - log(2 pi noise_var) / 2 ) ].

    ``means`` is (S, n); a 1-D array is treated as a single draw (S = 1).
    """
    m, t = _regression_inputs(means, y)
    return regression_metrics_streamed([m], t, noise_var)["nll"]


def regression_metrics_streamed(blocks, y, noise_var, y_scale: float = 1.0) -> dict:
    """``regression_metrics`` of draws given as blocks of rows of ``means`` (each (S_b, n)),
    one block in memory at a time: sum_s N(y_i; means[s, i], noise_var) is accumulated as a
    running logsumexp over the blocks, mbar_i as a running sum."""
    t = _finite_array(y, "y", ndim=1)
    var = _positive_scalar(noise_var, "noise_var")
    scale = _positive_scalar(y_scale, "y_scale")
    log_sum, total, draws = None, np.zeros(t.shape[0]), 0
    for block in blocks:
        m, _ = _regression_inputs(block, t)
        log_dens = special.logsumexp(-0.5 * (t[None, :] - m) ** 2 / var - 0.5 * np.log(2.0 * np.pi * var), axis=0)
        log_sum = log_dens if log_sum is None else np.logaddexp(log_sum, log_dens)
        total += m.sum(axis=0)
        draws += m.shape[0]
    if not draws:
        raise ValueError("means holds no draw")
    return {
        "rmse": scale * rmse(total / draws, t),
        "nll": float(-np.mean(log_sum - np.log(draws))) + float(np.log(scale)),
    }


def regression_metrics(means, y, noise_var, y_scale: float = 1.0) -> dict:
    """RMSE and NLL of a posterior-predictive sample, reported in original units.

    ``means``, ``y`` and ``noise_var`` are in the (possibly standardised) units
    in which the model was fitted, with y_orig = y_scale * y + shift.  Then

        rmse = y_scale * sqrt( (1/n) sum_i (mbar_i - y_i)^2 ),
               mbar_i = (1/S) sum_s means[s, i],
        nll  = gaussian_mixture_nll(means, y, noise_var) + log(y_scale),

    the last term being the Jacobian of the change of units.
    """
    m, t = _regression_inputs(means, y)
    return regression_metrics_streamed([m], t, noise_var, y_scale)


# --------------------------------------------------------------------------
# 1-D distances to an exact normal law, and two-sample distances
# --------------------------------------------------------------------------


def kolmogorov_distance_normal(sample, mean, sd) -> float:
    """Kolmogorov distance sup_x |F_n(x) - Phi((x - mean)/sd)|.

    F_n is the empirical CDF of ``sample``; this is the one-sample
    Kolmogorov-Smirnov statistic (``scipy.stats.kstest``).
    """
    x = _sample_1d(sample)
    mu = _finite_scalar(mean, "mean")
    s = _positive_scalar(sd, "sd")
    # the law as a callable: SciPy 1.18 passes kstest's args for "norm" to special.ndtr, which takes none
    return float(stats.kstest(x, stats.norm(loc=mu, scale=s).cdf).statistic)


_INV_SQRT_2PI = 1.0 / np.sqrt(2.0 * np.pi)


def _normal_cdf_antiderivative(z, cdf_z):
    """G(z) = z Phi(z) + phi(z), given Phi(z); G' = Phi and G(-inf) = 0."""
    return z * cdf_z + _INV_SQRT_2PI * np.exp(-0.5 * z * z)


def wasserstein1_normal(sample, mean, sd) -> float:
    """Exact 1-Wasserstein distance between the empirical law of ``sample`` and N(mean, sd^2).

    W1 = int |F_n(x) - Phi((x - mean)/sd)| dx = sd * int |F_n(z) - Phi(z)| dz
    in standardised coordinates z = (x - mean)/sd.  With the sorted standardised
    sample z_(1) <= ... <= z_(n) and G(z) = z Phi(z) + phi(z) (G' = Phi,
    G(-inf) = 0, and int_z^inf (1 - Phi) = G(-z) by symmetry):

    * lower tail, F_n = 0 on (-inf, z_(1)):  int Phi = G(z_(1));
    * upper tail, F_n = 1 on (z_(n), inf):  int (1 - Phi) = G(-z_(n));
    * on [a, b] = [z_(i), z_(i+1)], i = 1..n-1, F_n = c = i/n.  With
      m = clip(Phi^{-1}(c), a, b) (Phi <= c on [a, m], Phi >= c on [m, b]),
        int_a^b |c - Phi| = c (m - a) - (G(m) - G(a)) + (G(b) - G(m)) - c (b - m)
                          = c (2m - a - b) + G(a) + G(b) - 2 G(m),
      which also covers Phi^{-1}(c) outside [a, b] and ties (a = b gives 0).
      Phi(m) = clip(c, Phi(a), Phi(b)) by monotonicity, so G(m) needs no
      extra evaluation of Phi.

    One sort, then one ``ndtr`` and one ``ndtri`` pass over the gaps (``_w1_sorted``).
    """
    x = _sample_1d(sample)
    mu = _finite_scalar(mean, "mean")
    s = _positive_scalar(sd, "sd")
    return float(s * _w1_sorted(np.sort((x - mu) / s)))


# gaps per pass of _w1_sorted: its temporaries stay in cache; temporaries the size of a 2e7-value
# sample (paulin2025-fig1 pools that many) cost more in page faults and memory traffic than the arithmetic
_W1_CHUNK = 1 << 15


def _w1_sorted(zs: np.ndarray, psi: np.ndarray | None = None) -> float:
    """int |F_n(z) - Phi(z)| dz of the sorted standardised sample ``zs`` (the formula of
    ``wasserstein1_normal``), over the gaps in chunks of _W1_CHUNK. With ``psi`` (an array of
    zs.size), it is filled with psi_(i) = -S(z_(i)), S(z) = int_{z_(1)}^{z} sign(F_n - Phi),
    for ``wasserstein1_normal_with_se``: int_a^b sign(F_n - Phi) = 2m - a - b on each gap."""
    n = zs.size
    total = _normal_cdf_antiderivative(zs[0], special.ndtr(zs[0]))
    total += _normal_cdf_antiderivative(-zs[-1], special.ndtr(-zs[-1]))
    if psi is not None:
        psi[0] = 0.0
    carry = 0.0
    for lo in range(0, n - 1, _W1_CHUNK):
        hi = min(lo + _W1_CHUNK, n - 1)
        z = zs[lo : hi + 1]
        a, b = z[:-1], z[1:]
        cdf = special.ndtr(z)
        g = _normal_cdf_antiderivative(z, cdf)
        c = np.arange(lo + 1, hi + 1, dtype=np.float64) / n
        m = np.clip(special.ndtri(c), a, b)
        g_m = _normal_cdf_antiderivative(m, np.clip(c, cdf[:-1], cdf[1:]))
        slope = 2.0 * m - a - b
        # every piece is >= 0 mathematically; drop round-off on near-ties
        total += np.sum(np.maximum(c * slope + g[:-1] + g[1:] - 2.0 * g_m, 0.0))
        if psi is not None:
            run = carry + np.cumsum(slope)
            psi[lo + 1 : hi + 1] = -run
            carry = run[-1]
    return float(total)


def wasserstein1_normal_with_se(draws, mean, sd) -> tuple[float, float]:
    """``wasserstein1_normal`` of the pooled draws (C, D) of C independent chains and its Monte
    Carlo standard error, by the delta method, from one sort.

    W1 = sd * int |F_n(z) - Phi(z)| dz moves with the empirical CDF as
    dW1 = sd * int s(t) dF_n(t) dt, s = sign(F_n - Phi), and F_n = (1/n) sum_j 1[z_j <= t], so
    W1 is, to first order, the mean of psi(z_j) = -sd * S(z_j) (up to a constant) with
    S(z) = int_{z_(1)}^{z} s(t) dt.  On [a, b] = [z_(i), z_(i+1)], F_n = c = i/n and
    int_a^b s = 2 m - a - b with m = clip(Phi^{-1}(c), a, b).  The standard error is that of a
    mean over independent chains: std_{ddof=1}(psibar_1, ..., psibar_C) / sqrt(C).

    Valid while W1 is well above its sampling noise (s is then the sign of the bias, not of the
    noise); a W1 near the noise floor of as many exact draws is biased upwards by the noise,
    which this standard error does not measure.
    """
    return wasserstein1_normal_influence(draws, mean, sd)[:2]


def wasserstein1_normal_influence(draws, mean, sd) -> tuple[float, float, np.ndarray]:
    """``wasserstein1_normal_with_se`` and the chains' mean influences sd * psibar_c [C], in the
    chains' order: the s.e. of a difference of two W1 whose chains are paired (run with the same
    seed, chain c of one with chain c of the other) is std(psi_a - psi_b) / sqrt(C)."""
    d = _check_chains(draws)
    mu = _finite_scalar(mean, "mean")
    s = _positive_scalar(sd, "sd")
    z = np.subtract(d, mu, order="C")  # draws of a chain contiguous, whatever the layout of ``draws``
    z /= s
    chain_of = _chains_in_value_order(z)
    z = np.sort(z.reshape(-1))
    psi = np.empty_like(z)
    w1 = _w1_sorted(z, psi)
    chains, per_chain = d.shape
    psibar = np.bincount(chain_of, weights=psi, minlength=chains) / per_chain
    return float(s * w1), float(s * np.std(psibar, ddof=1) / np.sqrt(chains)), s * psibar


def _chains_in_value_order(z: np.ndarray) -> np.ndarray:
    """The chain (row) of each value of ``z`` [C, D], listed in ascending order of value.

    From one sort of 64-bit integer keys instead of an argsort (0.13 against 1.8 CPU-s for the
    2e7 records of a paulin2025 Fig. 1 cell, one thread; NumPy sorts integers with SIMD code
    and argsorts without): a float's bits, made monotone (negative floats' magnitude bits
    flipped), with their last ceil(log2 C) bits replaced by the chain number. Values that
    differ only in those bits (relative 2^-37 for 20,000 chains) may come out in either order,
    which moves psi of ``wasserstein1_normal_with_se`` by as little (it is 1-Lipschitz in z)."""
    chains = z.shape[0]
    bits = max(1, int(chains - 1).bit_length())
    if bits > 24:  # the keys would lose more than half of a float64's 52 fraction bits
        return np.argsort(z.reshape(-1)) // z.shape[1]
    key = np.ascontiguousarray(z).view(np.int64).copy()
    key ^= (key >> 63) & np.int64(0x7FFF_FFFF_FFFF_FFFF)
    mask = np.int64((1 << bits) - 1)
    key &= ~mask
    key |= np.arange(chains, dtype=np.int64)[:, None]
    key = key.reshape(-1)
    key.sort()
    key &= mask
    return key


def wasserstein1_normal_se(draws, mean, sd) -> float:
    """The standard error of ``wasserstein1_normal_with_se``."""
    return wasserstein1_normal_with_se(draws, mean, sd)[1]


@functools.lru_cache(maxsize=4)
def iid_floor(distance, mu: float, sd: float, size: int, seed: int) -> float:
    """``distance(sample, mu, sd)`` (a distance to N(mu, sd^2), e.g. ``wasserstein1_normal`` or
    ``kolmogorov_distance_normal``) of ``size`` i.i.d. draws from N(mu, sd^2) (numpy generator
    ``seed``): the Monte Carlo floor of that distance for a sample of that size (paulin2025 §3.4,
    Fig. 1; franzese2021 App. E). The last few are kept: every cell of a grid with the same
    size and seed shares one."""
    return distance(np.random.default_rng(seed).normal(mu, sd, size), mu, sd)


def wasserstein1(a, b) -> float:
    """Two-sample W1 = int |F_a(x) - F_b(x)| dx (``scipy.stats.wasserstein_distance``)."""
    return float(stats.wasserstein_distance(_sample_1d(a, "a"), _sample_1d(b, "b")))


def kolmogorov_distance(a, b) -> float:
    """Two-sample Kolmogorov distance sup_x |F_a(x) - F_b(x)|.

    The ``scipy.stats.ks_2samp`` statistic (its p-value is not used, so the
    cheap asymptotic method is requested; the statistic does not depend on it).
    """
    return float(stats.ks_2samp(_sample_1d(a, "a"), _sample_1d(b, "b"), method="asymp").statistic)


# --------------------------------------------------------------------------
# moments and many-chain Monte Carlo errors
# --------------------------------------------------------------------------


def moment_errors(sample, mean, var) -> dict:
    """Errors of the first two sample moments against exact ones.

    mean_error    = xbar - mean,             xbar = (1/N) sum x_j,
    var_error     = s2 - var,                s2 = (1/N) sum (x_j - xbar)^2 (ddof 0),
    rel_var_error = (s2 - var) / var.
    """
    x = _sample_1d(sample)
    mu = _finite_scalar(mean, "mean")
    v = _positive_scalar(var, "var")
    var_error = float(np.var(x)) - v
    return {
        "mean_error": float(np.mean(x)) - mu,
        "var_error": var_error,
        "rel_var_error": var_error / v,
    }


# --------------------------------------------------------------------------
# predictive-marginal Kolmogorov distances (Franzese et al. 2021, section 3.5)
# --------------------------------------------------------------------------


def _draws_by_points(x, name: str) -> np.ndarray:
    """Validate a (draws, test_points) array with at least one draw and one point."""
    a = _finite_array(x, name)
    if a.ndim != 2:
        raise ValueError(f"{name} must be 2-D (draws, test_points), got shape {a.shape}")
    return a


def marginal_kolmogorov_distances(samples, reference) -> np.ndarray:
    """Per-test-point two-sample Kolmogorov distances between predictive marginals.

    ``samples`` is (n, T) and ``reference`` is (m, T): column t holds the
    n (resp. m) draws of the scalar predictive quantity at test point t.
    Returns the (T,) array

        D_t = sup_x | F_{samples[:, t]}(x) - F_{reference[:, t]}(x) |,

    the ``scipy.stats.ks_2samp`` statistic of each column (ties handled
    exactly; the p-value is not used).  Computed for all columns at once (the
    statistic only, which scipy computes column by column with its p-value):
    per column the pooled n + m values are sorted once, the two empirical CDFs
    are cumulative counts along the sorted order, and the supremum is taken
    only at the last element of each run of tied values, where both CDFs have
    their right-continuous values.
    """
    a = _draws_by_points(samples, "samples")
    b = _draws_by_points(reference, "reference")
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"samples has {a.shape[1]} test points but reference has {b.shape[1]}")
    n, m = a.shape[0], b.shape[0]
    out = np.empty(a.shape[1])
    block = max(1, 2**22 // (n + m))  # columns per pass: bounded temporaries
    for j in range(0, a.shape[1], block):
        pooled = np.concatenate([a[:, j : j + block], b[:, j : j + block]]).T.copy()  # (cols, n + m)
        order = np.argsort(pooled, axis=1)
        values = np.take_along_axis(pooled, order, axis=1)
        from_a = order < n
        gap = np.abs(np.cumsum(from_a, axis=1) / n - np.cumsum(~from_a, axis=1) / m)
        gap[:, :-1][values[:, 1:] == values[:, :-1]] = 0.0  # inside a run of ties: not a CDF value
        out[j : j + block] = gap.max(axis=1)
    return out


def average_kolmogorov_distance(samples, reference) -> float:
    """Average Kolmogorov distance of Franzese et al. (2021), section 3.5.

    AKD = (1/T) sum_{t=1}^T sup_x | F_{samples[:, t]}(x) - F_{reference[:, t]}(x) |

    with ``samples`` (n, T) and ``reference`` (m, T) as in
    ``marginal_kolmogorov_distances``.  The value lies in [0, 1].  For two
    exact samplers (i.i.d. draws of a continuous law) its expectation is
    asymptotically 0.8687 sqrt((n + m)/(n m)) (0.8687 = sqrt(pi/2) ln 2, the
    mean of the Kolmogorov distribution); at n = 200, m = 300 the exact finite
    sample mean is about 2.5% lower.
    """
    return float(np.mean(marginal_kolmogorov_distances(samples, reference)))


def self_distance_band(reference_runs, q=(0.05, 0.95)) -> dict:
    """Self-distance of independent reference runs and its quantile band (Franzese 3.5).

    ``reference_runs`` is a sequence of R >= 2 arrays of shape (m_r, T), the
    predictive draws of independent reference (oracle) runs on the same T test
    points (m_r may differ between runs).  Pairing: every unordered pair
    (r, s), r < s, is used once, giving R (R - 1)/2 values

        d_rs = average_kolmogorov_distance(run_r, run_s),

    in the order (0, 1), (0, 2), ..., (0, R-1), (1, 2), ...  The pairs share
    runs, so the d_rs are not independent.  Returns

        {"mean": mean_rs d_rs,
         "low":  np.quantile(d, q[0]), "high": np.quantile(d, q[1])
                 (numpy's default linear interpolation),
         "pair_distances": (R (R - 1)/2,) array of the d_rs}.

    A method whose average Kolmogorov distance to one reference run falls in
    [low, high] is indistinguishable from the reference at this sample size.
    """
    runs = list(reference_runs)
    if len(runs) < 2:
        raise ValueError(f"need at least 2 reference runs, got {len(runs)}")
    runs = [_draws_by_points(r, f"reference_runs[{i}]") for i, r in enumerate(runs)]
    n_points = {r.shape[1] for r in runs}
    if len(n_points) != 1:
        raise ValueError(f"reference runs must share the number of test points, got {[r.shape[1] for r in runs]}")
    q_arr = np.asarray(q, dtype=np.float64)
    if q_arr.shape != (2,) or not np.all(np.isfinite(q_arr)):
        raise ValueError(f"q must be a pair of quantile levels, got {q!r}")
    if not (0.0 <= q_arr[0] <= q_arr[1] <= 1.0):
        raise ValueError(f"q must satisfy 0 <= q[0] <= q[1] <= 1, got {q!r}")
    d = np.array(
        [average_kolmogorov_distance(runs[r], runs[s]) for r in range(len(runs)) for s in range(r + 1, len(runs))]
    )
    return distance_band(d, q_arr)


def distance_band(pair_distances, q=(0.05, 0.95)) -> dict:
    """{"mean", "low", "high", "pair_distances"} of the pair distances d_rs of
    ``self_distance_band`` (np.quantile's default linear interpolation for the band)."""
    d = np.asarray(pair_distances, dtype=np.float64)
    low, high = np.quantile(d, np.asarray(q, dtype=np.float64))
    return {
        "mean": float(np.mean(d)),
        "low": float(low),
        "high": float(high),
        "pair_distances": d,
    }


# --------------------------------------------------------------------------
# 2-Wasserstein distances of 1-D laws
# --------------------------------------------------------------------------


def wasserstein2_1d(a, b) -> float:
    """Exact 2-Wasserstein distance between the empirical laws of two 1-D samples.

    In 1-D the optimal coupling is the quantile coupling, so

        W2^2 = int_0^1 ( F_a^{-1}(u) - F_b^{-1}(u) )^2 du,

    with the empirical quantile function F_a^{-1}(u) = a_(ceil(u n)) (sorted
    sample a_(1) <= ... <= a_(n)), likewise for b with m points.  Both are
    constant between consecutive points of {i/n} U {j/m}, so the integral is a
    finite sum over at most n + m - 1 intervals; the breakpoints are handled
    exactly as the integers i m and j n on the grid 1/(n m).  For n = m this is
    sqrt( (1/n) sum_i (a_(i) - b_(i))^2 ).  Any shape is flattened.
    """
    xa = np.sort(_sample_1d(a, "a"))
    xb = np.sort(_sample_1d(b, "b"))
    n, m = xa.size, xb.size
    if n == m:
        return float(np.sqrt(np.mean((xa - xb) ** 2)))
    # breakpoints k / (n m) of both quantile functions, as integers k
    k = np.union1d(np.arange(1, n + 1, dtype=np.int64) * m,
                   np.arange(1, m + 1, dtype=np.int64) * n)  # fmt: skip
    k_prev = np.r_[np.int64(0), k[:-1]]
    # on (k_prev, k] / (n m) the quantiles are a_(k_prev // m + 1), b_(k_prev // n + 1)
    diff = xa[k_prev // m] - xb[k_prev // n]
    return float(np.sqrt(np.sum((k - k_prev) * diff**2) / (n * m)))


def wasserstein2_normal(sample, mean, sd) -> float:
    """Exact 2-Wasserstein distance between the empirical law of ``sample`` and N(mean, sd^2).

    With the quantile coupling, x'_(i) = x_(i) - mean sorted, and
    z_i = Phi^{-1}(i/n) (z_0 = -inf, z_n = +inf),

        W2^2 = sum_i int_{(i-1)/n}^{i/n} ( x'_(i) - sd Phi^{-1}(u) )^2 du
             = (1/n) sum_i x'_(i)^2
               - 2 sd sum_i x'_(i) ( phi(z_{i-1}) - phi(z_i) ) + sd^2,

    using int_{(i-1)/n}^{i/n} Phi^{-1}(u) du = phi(z_{i-1}) - phi(z_i) and
    int_0^1 Phi^{-1}(u)^2 du = 1.  Round-off below 0 is clipped.
    """
    x = np.sort(_sample_1d(sample)) - _finite_scalar(mean, "mean")
    s = _positive_scalar(sd, "sd")
    n = x.size
    z = special.ndtri(np.arange(1, n, dtype=np.float64) / n)
    phi = np.r_[0.0, _INV_SQRT_2PI * np.exp(-0.5 * z * z), 0.0]  # phi(z_0..z_n)
    w2sq = np.mean(x * x) - 2.0 * s * np.sum(x * (phi[:-1] - phi[1:])) + s * s
    return float(np.sqrt(max(w2sq, 0.0)))


# --------------------------------------------------------------------------
# variance, covariance and histogram errors (Sekkat & Stoltz 2023, section 2)
# --------------------------------------------------------------------------


def relative_variance_error(sample_var, exact_var):
    """Relative variance error of Sekkat & Stoltz (2023), experiment E1:

        |Var_est - Var_exact| / Var_exact.

    Scalars give a float; arrays of equal shape give the elementwise array.
    (``moment_errors`` reports the signed version.)
    """
    v = _finite_array(sample_var, "sample_var")
    ref = _finite_array(exact_var, "exact_var")
    if v.shape != ref.shape:
        raise ValueError(f"sample_var shape {v.shape} != exact_var shape {ref.shape}")
    err = _relative_error(v, ref, "exact_var")
    return float(err) if err.ndim == 0 else err


def _relative_error(est: np.ndarray, ref: np.ndarray, what: str) -> np.ndarray:
    """|est - ref| / ref elementwise; ValueError unless every ``ref`` (named ``what``) is > 0."""
    if np.any(ref <= 0):
        raise ValueError(f"{what} must be > 0")
    return np.abs(est - ref) / ref


def _covariance_diagonal(c, name: str) -> np.ndarray:
    a = _finite_array(c, name)
    if a.ndim == 2:
        if a.shape[0] != a.shape[1]:
            raise ValueError(f"{name} must be a square (d, d) matrix, got shape {a.shape}")
        return np.diagonal(a).copy()
    if a.ndim == 1:
        return a
    raise ValueError(f"{name} must be a (d, d) matrix or its (d,) diagonal, got shape {a.shape}")


def relative_covariance_diagonal_error(cov_est, cov_exact) -> float:
    """Mean relative error of the covariance diagonal, Sekkat & Stoltz (2023), E3 (Fig. 10):

        (1/d) sum_{i=1}^d | [C_est]_ii - [C_ref]_ii | / [C_ref]_ii,

    i.e. the mean of the elementwise relative errors (an l1 average, not a
    matrix norm).  Each argument is a (d, d) covariance matrix or its (d,)
    diagonal; off-diagonal entries are ignored.
    """
    est = _covariance_diagonal(cov_est, "cov_est")
    ref = _covariance_diagonal(cov_exact, "cov_exact")
    if est.shape != ref.shape:
        raise ValueError(f"cov_est has dimension {est.shape[0]} but cov_exact has {ref.shape[0]}")
    return float(np.mean(_relative_error(est, ref, "the diagonal of cov_exact")))


# --------------------------------------------------------------------------
# bias of posterior averages (Chen et al. 2015, section 2.1; Paulin et al. 2025)
# --------------------------------------------------------------------------


def posterior_average_bias_mse(estimates, truth, drop_diverged: bool = False) -> dict:
    """Bias and MSE of a posterior-average estimator over independent runs (Chen 2.1).

    ``estimates`` is the (R,) array of phi_hat_r, the posterior average of a
    test function phi from each of R >= 2 independent runs; ``truth`` is the
    exact posterior average phi_bar.  Returns

        bias    = | (1/R) sum_r phi_hat_r - phi_bar |,
        mse     = (1/R) sum_r (phi_hat_r - phi_bar)^2,
        bias_se = std_{ddof=1}(phi_hat) / sqrt(R)          (se of the mean error),
        mse_se  = std_{ddof=1}((phi_hat - phi_bar)^2) / sqrt(R).

    Note mse = bias^2 + var_{ddof=0}(phi_hat).

    ``drop_diverged``: the runs whose phi_hat_r is non-finite or has |phi_hat_r| >= 1e6
    (diverged) are left out and their number returned as ``diverged``; when fewer than
    max(2, R // 2) of the R runs are left, bias and mse are inf and their standard errors NaN.
    """
    if drop_diverged:
        e = np.asarray(estimates, float)
        ok = np.isfinite(e) & (np.abs(e) < 1e6)
        bad = int((~ok).sum())
        if ok.sum() < max(2, len(e) // 2):
            return {"bias": np.inf, "mse": np.inf, "bias_se": np.nan, "mse_se": np.nan, "diverged": bad}
        return {**posterior_average_bias_mse(e[ok], truth), "diverged": bad}
    e = _finite_array(estimates, "estimates", ndim=1)
    if e.size < 2:
        raise ValueError(f"need at least 2 independent runs, got {e.size}")
    t = _finite_scalar(truth, "truth")
    err = e - t
    sq = err**2
    r = e.size
    return {
        "bias": float(abs(np.mean(err))),
        "mse": float(np.mean(sq)),
        "bias_se": float(np.std(e, ddof=1) / np.sqrt(r)),
        "mse_se": float(np.std(sq, ddof=1) / np.sqrt(r)),
    }


def class_probability_bias(probs, reference_probs, y=None) -> float:
    """Bias of test-set class probabilities against a reference (Paulin et al. 2025).

    ``probs`` and ``reference_probs`` are (n, K) posterior-averaged predictive
    probabilities of the method and of the reference (exact posterior or
    oracle) on the same test points.  With labels ``y`` this is Paulin's test
    function f_i = p(y = y_i | x_i), the probability of the true class
    (sections 1.13 and 2.2):

        bias = (1/n) sum_i | p_{i, y_i} - pref_{i, y_i} |;

    without labels, all classes are averaged:

        bias = (1/(n K)) sum_{i, k} | p_ik - pref_ik |.

    (The multilevel telescoping estimator of Paulin App. D.1, which needs no
    reference, lives elsewhere.)
    """
    p = _finite_array(probs, "probs", ndim=2)
    ref = _finite_array(reference_probs, "reference_probs", ndim=2)
    if p.shape != ref.shape:
        raise ValueError(f"probs shape {p.shape} != reference_probs shape {ref.shape}")
    if y is None:
        return float(np.mean(np.abs(p - ref)))
    p, lab = _check_classification(p, y)
    rows = np.arange(p.shape[0])
    return float(np.mean(np.abs(p[rows, lab] - ref[rows, lab])))
