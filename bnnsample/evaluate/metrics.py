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
  must drop diverged chains before calling.

Classification definitions follow Paulin et al. (2025), section 2.8 of
``shared/spec/paulin2025-sms-ubu.md`` (accuracy, NLL clipped at -100, ACE with
20 equal-count bins, RPS); ECE is the usual top-label, equal-width version and
is provided for comparison only.  Kolmogorov distances follow Franzese et al.
(2021), section 3.5.
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

__all__ = [
    "accuracy",
    "nll",
    "ace",
    "ece",
    "rps",
    "classification_metrics",
    "rmse",
    "gaussian_mixture_nll",
    "regression_metrics",
    "kolmogorov_distance_normal",
    "wasserstein1_normal",
    "wasserstein1",
    "kolmogorov_distance",
    "moment_errors",
    "chain_mean_se",
    "chain_var_se",
]


# --------------------------------------------------------------------------
# input validation
# --------------------------------------------------------------------------


def _finite_array(x, name: str, ndim: int | None = None) -> np.ndarray:
    """Return ``x`` as a float64 array; raise ValueError if empty or non-finite."""
    a = np.asarray(x, dtype=np.float64)
    if ndim is not None and a.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {a.shape}")
    if a.size == 0:
        raise ValueError(f"{name} is empty")
    if not np.all(np.isfinite(a)):
        bad = int(np.size(a) - np.count_nonzero(np.isfinite(a)))
        raise ValueError(
            f"{name} contains {bad} non-finite value(s) (NaN/inf); "
            "drop diverged chains/draws before computing metrics"
        )
    return a


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


def _check_chains(draws) -> np.ndarray:
    d = _finite_array(draws, "draws", ndim=2)
    if d.shape[0] < 2:
        raise ValueError(
            f"need at least 2 independent chains for a standard error, got {d.shape[0]}"
        )
    return d


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
        np.bincount(bins, weights=correct, minlength=n_bins)
        - np.bincount(bins, weights=conf, minlength=n_bins)
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
    var = _positive_scalar(noise_var, "noise_var")
    log_dens = -0.5 * (t[None, :] - m) ** 2 / var - 0.5 * np.log(2.0 * np.pi * var)
    log_pred = special.logsumexp(log_dens, axis=0) - np.log(m.shape[0])
    return float(-np.mean(log_pred))


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
    scale = _positive_scalar(y_scale, "y_scale")
    return {
        "rmse": scale * rmse(m.mean(axis=0), t),
        "nll": gaussian_mixture_nll(m, t, noise_var) + float(np.log(scale)),
    }


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
    return float(stats.kstest(x, "norm", args=(mu, s)).statistic)


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

    Vectorised: one sort, one ``ndtr`` and one ``ndtri`` pass over n values.
    """
    x = _sample_1d(sample)
    mu = _finite_scalar(mean, "mean")
    s = _positive_scalar(sd, "sd")
    z = np.sort((x - mu) / s)
    n = z.size
    cdf = special.ndtr(z)
    g = _normal_cdf_antiderivative(z, cdf)
    total = g[0] + _normal_cdf_antiderivative(-z[-1], 1.0 - cdf[-1])
    if n > 1:
        a, b = z[:-1], z[1:]
        c = np.arange(1, n, dtype=np.float64) / n
        m = np.clip(special.ndtri(c), a, b)
        g_m = _normal_cdf_antiderivative(m, np.clip(c, cdf[:-1], cdf[1:]))
        pieces = c * (2.0 * m - a - b) + g[:-1] + g[1:] - 2.0 * g_m
        # every piece is >= 0 mathematically; drop round-off on near-ties
        total = total + np.sum(np.maximum(pieces, 0.0))
    return float(s * total)


def wasserstein1(a, b) -> float:
    """Two-sample W1 = int |F_a(x) - F_b(x)| dx (``scipy.stats.wasserstein_distance``)."""
    return float(stats.wasserstein_distance(_sample_1d(a, "a"), _sample_1d(b, "b")))


def kolmogorov_distance(a, b) -> float:
    """Two-sample Kolmogorov distance sup_x |F_a(x) - F_b(x)|.

    The ``scipy.stats.ks_2samp`` statistic (its p-value is not used, so the
    cheap asymptotic method is requested; the statistic does not depend on it).
    """
    return float(
        stats.ks_2samp(_sample_1d(a, "a"), _sample_1d(b, "b"), method="asymp").statistic
    )


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


def _pooled_with_se(per_chain: np.ndarray, pooled: float) -> tuple[float, float]:
    """(pooled estimate, std_{ddof=1}(per-chain estimates) / sqrt(chains))."""
    return pooled, float(np.std(per_chain, ddof=1) / np.sqrt(per_chain.size))


def chain_mean_se(draws) -> tuple[float, float]:
    """Pooled mean over independent chains and its Monte Carlo standard error.

    ``draws`` is (C, D).  Returns (xbar, se) with
        xbar = (1/(C D)) sum_{c,d} x_cd,
        se   = std_{ddof=1}( xbar_1, ..., xbar_C ) / sqrt(C),  xbar_c = (1/D) sum_d x_cd.
    """
    d = _check_chains(draws)
    return _pooled_with_se(d.mean(axis=1), float(d.mean()))


def chain_var_se(draws) -> tuple[float, float]:
    """Pooled variance over independent chains and its Monte Carlo standard error.

    ``draws`` is (C, D).  Returns (s2, se) with
        xbar = (1/(C D)) sum_{c,d} x_cd,
        s2   = (1/(C D)) sum_{c,d} (x_cd - xbar)^2          (ddof 0),
        v_c  = (1/D) sum_d (x_cd - xbar)^2                   (about the pooled mean),
        se   = std_{ddof=1}( v_1, ..., v_C ) / sqrt(C).
    Note s2 = (1/C) sum_c v_c.
    """
    d = _check_chains(draws)
    sq_dev = (d - d.mean()) ** 2
    return _pooled_with_se(sq_dev.mean(axis=1), float(sq_dev.mean()))
