"""Pure statistics that need no run: Student-t quantiles and intervals for means over a few
independent groups, pooled means and variances over independent chains with their Monte Carlo
standard errors, the one log-log slope fitter (orders of convergence, with t intervals), the L1
error of a histogram marginal (sekkat2023 eq. 44) with a bootstrap over chains of the difference of
two such errors, the Kolmogorov distance of two normal laws, the autocorrelation of chains, and the
classic Gelman-Rubin R-hat of a few chains.
The lowest floor of the package: it imports nothing of bnnsample, and
analysis/, evaluate/ and figures/ take these from here."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MIN_POINTS = 3  # step sizes a slope needs to carry an interval
MAX_CI_HALF_WIDTH = 1.0  # a wider 95% interval of an order cannot tell order 1 from order 2
ROUNDOFF = 1e-12  # |values| below this times the largest of their line are zeros in floating point


def t_quantile(groups: int, level: float = 0.95) -> float:
    """The two-sided ``level`` quantile of Student's t with groups - 1 degrees of freedom, the
    factor that turns the standard error of a mean over ``groups`` independent values into the
    half-width of its confidence interval (12.71 for 2 groups, 2.36 for 8, 1.96 in the limit);
    NaN for fewer than 2 groups."""
    from scipy.stats import t

    return float(t.ppf(0.5 + level / 2, groups - 1)) if groups >= 2 else math.nan


def t_interval(mean: float, se: float, groups: int, level: float = 0.95) -> tuple[float, float]:
    """(low, high) of the ``level`` t interval of a mean with standard error ``se`` over
    ``groups`` independent groups; (NaN, NaN) for fewer than 2."""
    half = t_quantile(groups, level) * se
    return mean - half, mean + half


def finite_array(x, name: str, ndim: int | None = None) -> np.ndarray:
    """Return ``x`` as a float64 array; raise ValueError if empty or non-finite."""
    a = np.asarray(x, dtype=np.float64)
    if ndim is not None and a.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {a.shape}")
    if a.size == 0:
        raise ValueError(f"{name} is empty")
    if not np.all(np.isfinite(a)):
        bad = int(np.size(a) - np.count_nonzero(np.isfinite(a)))
        raise ValueError(
            f"{name} contains {bad} non-finite value(s) (NaN/inf); drop diverged chains/draws before computing metrics"
        )
    return a


def check_chains(draws) -> np.ndarray:
    d = finite_array(draws, "draws", ndim=2)
    if d.shape[0] < 2:
        raise ValueError(f"need at least 2 independent chains for a standard error, got {d.shape[0]}")
    return d


def pooled_with_se(per_chain: np.ndarray, pooled: float) -> tuple[float, float]:
    """(pooled estimate, std_{ddof=1}(per-chain estimates) / sqrt(chains))."""
    return pooled, float(np.std(per_chain, ddof=1) / np.sqrt(per_chain.size))


def chain_mean_se(draws) -> tuple[float, float]:
    """Pooled mean over independent chains and its Monte Carlo standard error.

    ``draws`` is (C, D).  Returns (xbar, se) with
        xbar = (1/(C D)) sum_{c,d} x_cd,
        se   = std_{ddof=1}( xbar_1, ..., xbar_C ) / sqrt(C),  xbar_c = (1/D) sum_d x_cd.
    """
    d = check_chains(draws)
    return pooled_with_se(d.mean(axis=1), float(d.mean()))


def chain_var_se(draws) -> tuple[float, float]:
    """Pooled variance over independent chains and its Monte Carlo standard error.

    ``draws`` is (C, D).  Returns (s2, se) with
        xbar = (1/(C D)) sum_{c,d} x_cd,
        s2   = (1/(C D)) sum_{c,d} (x_cd - xbar)^2          (ddof 0),
        v_c  = (1/D) sum_d (x_cd - xbar)^2                   (about the pooled mean),
        se   = std_{ddof=1}( v_1, ..., v_C ) / sqrt(C).
    Note s2 = (1/C) sum_c v_c.
    """
    d = check_chains(draws)
    sq_dev = (d - d.mean()) ** 2
    return pooled_with_se(sq_dev.mean(axis=1), float(sq_dev.mean()))


def chain_acf(draws, lag: int = 1) -> np.ndarray:
    """Lag-``lag`` autocorrelation of independent chains, pooled over them, per trailing element.

    ``draws`` is (C, D, ...): C chains of D successive draws (each trailing element, e.g. a test
    point, is a separate series). With xbar and s2 the pooled mean and variance over all C D draws
    (ddof 0), the estimate is

        rho(k) = [1 / (C (D - k))] sum_c sum_{t < D - k} (x_{c,t} - xbar)(x_{c,t+k} - xbar) / s2,

    the usual ACF estimator with products taken within chains only. Returns an array of the trailing
    shape (a 0-d array for (C, D) input). For a stationary AR(1), x_t = phi x_{t-1} + e_t, rho(k) -> phi^k.
    """
    d = np.asarray(draws, dtype=np.float64)
    if d.ndim < 2 or not 1 <= lag < d.shape[1]:
        raise ValueError(f"need draws (C, D, ...) with D > lag >= 1, got shape {d.shape} and lag {lag}")
    c = d - d.mean(axis=(0, 1))
    return (c[:, :-lag] * c[:, lag:]).mean(axis=(0, 1)) / (c**2).mean(axis=(0, 1))


def z_score(diff: float, se: float) -> float:
    """A difference in standard errors: infinite when a nonzero difference has a zero s.e., 0
    when both are zero."""
    return diff / se if se > 0 else math.copysign(math.inf, diff) if diff else 0.0


def welch_df(var_a: float, n_a: int, var_b: float, n_b: int) -> float:
    """Welch-Satterthwaite degrees of freedom of a difference of two means whose squared
    standard errors are var_a, var_b (from n_a, n_b values); n_a - 1 when var_b is 0."""
    den = (var_a**2 / (n_a - 1) if var_a else 0.0) + (var_b**2 / (n_b - 1) if var_b and n_b > 1 else 0.0)
    return (var_a + var_b) ** 2 / den if den > 0 else float(n_a - 1)


def interpolate_with_se(x: float, points) -> tuple[float, float]:
    """Linear interpolation at x of (x_i, y_i, se_i) points (extrapolation on the end
    segments) and its s.e., the y_i independent."""
    pts = sorted(points)
    i = min(max(np.searchsorted([p[0] for p in pts], x), 1), len(pts) - 1)
    (x0, y0, s0), (x1, y1, s1) = pts[i - 1], pts[i]
    w = (x - x0) / (x1 - x0)
    return (1 - w) * y0 + w * y1, math.hypot((1 - w) * s0, w * s1)


def fit_line(x, y) -> tuple[float, float, float]:
    """(intercept, slope, R^2) of the least-squares line of y on x."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    A = np.stack([np.ones_like(x), x], 1)
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    res = y - A @ coef
    r2 = 1 - (res**2).sum() / max(((y - y.mean()) ** 2).sum(), 1e-300)
    return float(coef[0]), float(coef[1]), float(r2)


def slope_through_origin(x, y, se) -> tuple[float, float]:
    """Least-squares slope b of y = b x and its s.e. from the s.e. of each y (independent)."""
    x, y, se = (np.asarray(v, float) for v in (x, y, se))
    sxx = (x * x).sum()
    return float((x * y).sum() / sxx), float(math.sqrt(((x * se) ** 2).sum()) / sxx)


@dataclass
class SlopeFit:
    """Least squares log|y| = intercept + slope log x, with a t confidence interval."""

    slope: float
    intercept: float
    slope_se: float
    lo: float  # confidence interval of the slope (nan with fewer than 3 points)
    hi: float
    n: int
    level: float
    x_mean: float  # of log x
    sxx: float  # sum (log x - mean)^2
    resid_sd: float
    rms: float = math.nan  # root mean square residual of log|y|

    def band(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(fit, lower, upper) of the fitted line at x, on the original scale: the confidence
        band of the mean response exp(a + b log x +- t s sqrt(1/n + (log x - xbar)^2 / Sxx))."""
        lx = np.log(np.asarray(x, dtype=float))
        fit = self.intercept + self.slope * lx
        if self.n < 3:
            return np.exp(fit), np.exp(fit), np.exp(fit)
        from scipy.stats import t as _t

        t = _t.ppf(0.5 + self.level / 2, self.n - 2)
        half = t * self.resid_sd * np.sqrt(1.0 / self.n + (lx - self.x_mean) ** 2 / self.sxx)
        return np.exp(fit), np.exp(fit - half), np.exp(fit + half)

    def problem(self) -> str:
        """Why the slope says nothing ("" when it does): fewer than MIN_POINTS step sizes, or
        a confidence interval wider than +-MAX_CI_HALF_WIDTH, which cannot tell order 1 from
        order 2."""
        if self.n < MIN_POINTS or not math.isfinite(self.lo):
            return f"{self.n} step sizes, need {MIN_POINTS}"
        half = (self.hi - self.lo) / 2
        if half > MAX_CI_HALF_WIDTH:
            return f"interval +-{half:.2g} wider than +-{MAX_CI_HALF_WIDTH:g}: no power law over these step sizes (noise or a change of regime)"
        return ""

    def label(self) -> str:
        """The legend's short form of the fit."""
        if self.n < MIN_POINTS or not math.isfinite(self.lo):
            return f"no fit ({self.n} step sizes)"
        if self.problem():
            return f"no fit (95% CI +-{(self.hi - self.lo) / 2:.2g})"
        return f"slope {self.slope:.2f} [{self.lo:.2f}, {self.hi:.2f}]"


def fit_loglog(x, y, level: float = 0.95) -> SlopeFit | None:
    """Fit log|y| = a + b log x by least squares over the points with x > 0 and y finite and
    nonzero; the slope's interval is b +- t_{n-2, (1+level)/2} se(b). None with fewer than 2
    distinct x."""
    x, y = np.asarray(x, dtype=float), np.abs(np.asarray(y, dtype=float))
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > ROUNDOFF * np.nanmax(y, initial=0.0))
    lx, ly = np.log(x[ok]), np.log(y[ok])
    n = lx.size
    if n < 2 or np.ptp(lx) == 0:
        return None
    xm = lx.mean()
    sxx = float(((lx - xm) ** 2).sum())
    b = float(((lx - xm) * (ly - ly.mean())).sum() / sxx)
    a = float(ly.mean() - b * xm)
    ssr = float(((ly - a - b * lx) ** 2).sum())
    if n > 2:
        s = math.sqrt(ssr / (n - 2))
        se = s / math.sqrt(sxx)
        lo, hi = b - t_quantile(n - 1, level) * se, b + t_quantile(n - 1, level) * se  # n - 2 degrees of freedom
    else:
        s = se = lo = hi = float("nan")
    return SlopeFit(b, a, se, lo, hi, n, level, float(xm), sxx, s, math.sqrt(ssr / n))


def _slope_points(h, bias, se, k: float):
    """(log h, log|bias|, relative s.e. or None) of the points with a finite nonzero bias that
    exceeds k standard errors (every such point without se)."""
    h, b = np.asarray(h, float), np.abs(np.asarray(bias, float))
    ok = np.isfinite(b) & (b > 0)
    if se is not None:
        se = np.asarray(se, float)
        ok &= b > k * se
        return np.log(h[ok]), np.log(b[ok]), se[ok] / b[ok]
    return np.log(h[ok]), np.log(b[ok]), None


def fit_slope(h, bias, se=None, k: float = 2.0):
    """``fit_loglog`` of |bias| on h over the points whose |bias| exceeds k standard errors
    (all points without se); (slope, number of points used). NaN if < 2."""
    x, y, _ = _slope_points(h, bias, se, k)
    fit = fit_loglog(np.exp(x), np.exp(y)) if len(x) >= 2 else None
    return (math.nan if fit is None else fit.slope), len(x)


def fit_slope_se(h, bias, se, k: float = 2.0):
    """``fit_slope`` with the standard error of its slope: the least-squares slope is
    sum_i c_i y_i with c_i = (x_i - mean x) / sum_j (x_j - mean x)^2, so with independent
    errors se_i / |bias_i| on y_i = log|bias_i| its s.e. is sqrt(sum_i c_i^2 (se_i / bias_i)^2).
    (slope, s.e., number of points); NaN s.e. with fewer than 2 points."""
    slope, n = fit_slope(h, bias, se, k)
    x, _, rel = _slope_points(h, bias, se, k)
    if n < 2:
        return slope, math.nan, n
    c = (x - x.mean()) / ((x - x.mean()) ** 2).sum()
    return slope, float(np.sqrt((c**2 * rel**2).sum())), n


def l1_histogram_error(sample, reference, bins: int = 500, range=None) -> float:
    """L1 error of a histogram marginal, Sekkat & Stoltz (2023) eq. 44 (experiment E2).

    The 1-D ``sample`` (e.g. the theta_1 column of a chain) and the reference
    marginal are both made piecewise constant on ``bins`` equal-width bins
    B_1..B_M of width w over ``range`` = (lo, hi) (the paper: 500 bins on
    [0, 1.4]), and the quantity integrated over [lo, hi] is

        L1 = int_lo^hi | phat(x) - p(x) | dx = w sum_b | phat_b - p_b |,

    phat_b = #{j : x_j in B_b} / (n w), n = *all* sample points, so mass
    outside [lo, hi] is not renormalised into the bins (it lowers phat and
    shows up as error; with all points inside this is numpy's
    ``density=True`` histogram).  The reference is either

    * a callable density p(x) (vectorised, finite, >= 0), taken at the bin
      centres, p_b = p(c_b) (midpoint rule, O(w^2) per bin; it may be an
      unnormalised marginal only if the caller normalised it), or
    * a reference sample, p_b = #{y_k in B_b} / (m w) in the same way.

    Bins follow ``np.histogram`` (half-open, last bin closed).  ``range`` is
    required with a density; with a reference sample it defaults to the
    pooled (min, max).  The value lies in [0, 2].
    """
    x = finite_array(np.ravel(sample), "sample")
    n_bins = int(bins)
    if n_bins < 1:
        raise ValueError(f"bins must be >= 1, got {bins!r}")
    ref_sample = None
    if not callable(reference):
        ref_sample = finite_array(np.ravel(reference), "reference")
    if range is None:
        if ref_sample is None:
            raise ValueError("range=(lo, hi) is required when reference is a density")
        lo, hi = (
            float(min(x.min(), ref_sample.min())),
            float(max(x.max(), ref_sample.max())),
        )
        if not hi > lo:
            raise ValueError("all points are equal; pass range=(lo, hi) explicitly")
    else:
        r = np.asarray(range, dtype=np.float64)
        if r.shape != (2,) or not np.all(np.isfinite(r)) or not r[1] > r[0]:
            raise ValueError(f"range must be finite (lo, hi) with lo < hi, got {range!r}")
        lo, hi = float(r[0]), float(r[1])
    edges = np.linspace(lo, hi, n_bins + 1)
    width = (hi - lo) / n_bins
    phat = np.histogram(x, bins=edges)[0] / (x.size * width)
    if ref_sample is not None:
        p = np.histogram(ref_sample, bins=edges)[0] / (ref_sample.size * width)
    else:
        centres = 0.5 * (edges[:-1] + edges[1:])
        p = np.asarray(reference(centres), dtype=np.float64)
        if p.shape != centres.shape:
            raise ValueError(f"reference density returned shape {p.shape} for {centres.shape} bin centres")
        if not np.all(np.isfinite(p)) or np.any(p < 0):
            raise ValueError("reference density must return finite values >= 0")
    return float(width * np.sum(np.abs(phat - p)))


def chain_histogram_counts(samples: np.ndarray, bins: int, range=(0.0, 1.0)) -> np.ndarray:
    """Each chain's histogram counts of its samples [C, D] on ``bins`` equal bins of ``range``
    (np.histogram's), [C, bins]."""
    return np.stack([np.histogram(p, bins=bins, range=range)[0] for p in samples])


def l1_of_counts(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """L1 (sekkat2023 eq. 44) between the pooled histograms of chain counts [..., C, bins]:
    sum_b |a_b / n_a - b_b / n_b|."""
    pa, pb = a.sum(-2), b.sum(-2)
    return np.abs(pa / pa.sum(-1, keepdims=True) - pb / pb.sum(-1, keepdims=True)).sum(-1)


def l1_difference_se(a: np.ndarray, b: np.ndarray, ref: np.ndarray, bins: int, range=(0.0, 1.0), reps: int = 400,
                     seed: int = 0) -> tuple[float, float, float]:  # fmt: skip
    """Bootstrap over chains of the samples [C, D] of two runs ``a`` and ``b`` and their common
    reference (each run's chains resampled, the reference's once for both): the s.e. of
    L1(a, reference), of L1(b, reference) and of their difference (sekkat2023 eq. 44, Fig. 13)."""
    rng = np.random.default_rng(seed)
    counts = [chain_histogram_counts(p, bins, range) for p in (a, b, ref)]
    idx = [rng.integers(len(c), size=(reps, len(c))) for c in counts]
    d, g, r = (c[i] for c, i in zip(counts, idx))
    la, lb = l1_of_counts(d, r), l1_of_counts(g, r)
    return float(la.std(ddof=1)), float(lb.std(ddof=1)), float((la - lb).std(ddof=1))


def normal_kolmogorov(m1, s1, m2, s2, grid: int = 4001) -> np.ndarray:
    """sup_x |Phi((x - m1)/s1) - Phi((x - m2)/s2)| per element (arrays), by evaluation on a grid of
    ``grid`` points over +-9 of the larger sd around both means (refined around the maximiser)."""
    from scipy.special import ndtr

    m1, s1, m2, s2 = (np.asarray(a, float)[..., None] for a in (m1, s1, m2, s2))
    lo = np.minimum(m1 - 9 * s1, m2 - 9 * s2)
    hi = np.maximum(m1 + 9 * s1, m2 + 9 * s2)
    x = lo + (hi - lo) * np.linspace(0, 1, grid)
    d = np.abs(ndtr((x - m1) / s1) - ndtr((x - m2) / s2))
    k = d.argmax(-1)[..., None]
    step = (hi - lo) / (grid - 1)
    x0 = np.take_along_axis(x, k, -1)
    x = x0 + step * np.linspace(-1, 1, 201)
    return np.abs(ndtr((x - m1) / s1) - ndtr((x - m2) / s2)).max(-1)


def gelman_rubin(chains) -> float:
    """The classic potential scale reduction factor R-hat of Gelman & Rubin (1992), no split, of
    J chains of L values each, ``chains`` [J, L]:

        B = L/(J-1) sum_j (m_j - m)^2          (between-chain variance; m_j chain means, m their mean)
        W = 1/J sum_j s_j^2                     (mean within-chain variance, s_j^2 with L - 1 divisor)
        R-hat = sqrt(((L-1)/L W + B/L) / W)

    (paulin2025 §4, Fig. 3; the authors' notebook reports the square, without the root.)
    Near 1 when the chains agree; NaN when every chain is constant. ValueError for fewer than
    2 chains or 2 values per chain, or non-finite values."""
    x = finite_array(chains, "chains", ndim=2)
    j, n = x.shape
    if j < 2 or n < 2:
        raise ValueError(f"chains: need at least 2 chains of 2 values, got shape {x.shape}")
    means = x.mean(axis=1)
    b = n * means.var(ddof=1)
    w = x.var(axis=1, ddof=1).mean()
    if w == 0:
        return math.nan
    return math.sqrt(((n - 1) / n * w + b / n) / w)


def gelman_rubin_split(chains) -> float:
    """Split R-hat (Gelman et al., Bayesian Data Analysis, 3rd ed., §11.4): ``gelman_rubin`` of the 2J
    half-chains, each of the J chains of ``chains`` [J, L] cut into its first and last floor(L/2) values
    (the middle value dropped at odd L). Unlike the unsplit statistic it sees a chain that drifts within
    the window: a trend shifts its two halves' means apart. ValueError for fewer than 4 values per chain."""
    x = finite_array(chains, "chains", ndim=2)
    half = x.shape[1] // 2
    if half < 2:
        raise ValueError(f"chains: need at least 4 values per chain to split, got shape {x.shape}")
    return gelman_rubin(np.concatenate([x[:, :half], x[:, -half:]]))


def gelman_rubin_null_quantile(chains: int, length: int, level: float = 0.95) -> float:
    """The ``level`` quantile of ``gelman_rubin`` for ``chains`` chains of ``length`` independent
    N(mu, s^2) values (perfectly mixed): then L var(chain means) / W ~ F(J - 1, J (L - 1)), so
    R-hat = sqrt((L-1)/L + F/L). What R-hat reaches by chance alone with short chains (1.27 for
    4 chains of 4 values, 1.03 for 4 of 30)."""
    from scipy.stats import f

    q = float(f.ppf(level, chains - 1, chains * (length - 1)))
    return math.sqrt((length - 1) / length + q / length)
