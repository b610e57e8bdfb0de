"""The rescaled mini-batch gradient noise Z of sekkat2023 eq. 14 (Figs. 1 and 2): draws at one theta, their
moments and the distance of their marginals from N(0, 1).

Eq. 14 writes the mini-batch estimator of eq. 10 as

    F_hat_n(theta) = grad log pi(theta | x) + sqrt(eps(n)) Sigma_x(theta)^{1/2} Z_{x,N,n},

with eps(n) of eq. 13 and Sigma_x of eq. 12 (denominator N - 1), so Z is centred with identity covariance by
construction, whatever its law. The minibatches are the project's (``batching.Schedule``), the estimator the
target's own force (the prior's gradient is not subsampled and cancels in F_hat_n - grad log pi).
"""

from __future__ import annotations

import math

import numpy as np

from ...stats import l1_histogram_error

BLOCK = 2048  # minibatches drawn side by side (one schedule step of BLOCK "chains")


def rescaled_noise(pot, theta, n: int, draws: int, seed: int, batching: str = "iid_wor") -> np.ndarray:
    """``draws`` independent draws of Z_{x,N,n} at ``theta`` [d] (eq. 14), [draws, d]:

        Z = Sigma_x(theta)^{-1/2} (F_hat_n(theta) - grad log pi(theta | x)) / sqrt(eps(n)),

    F_hat_n = -G(theta, I_n) the force of ``pot`` with a minibatch I_n of size n (``batching``: iid_wor
    without replacement, iid with) at scale N / n, grad log pi = -G(theta, all data); Sigma_x^{-1/2} the
    inverse symmetric square root of eq. 12."""
    import torch

    from ...batching import Schedule
    from .quadrature import gradient_covariance

    torch.set_num_threads(1)
    x1 = torch.as_tensor(np.asarray(theta, dtype=float).reshape(1, -1), dtype=torch.float64)
    sched = Schedule(batching, pot.n_data, n, chains=BLOCK, generator=torch.Generator().manual_seed(int(seed)))
    lam, vec = np.linalg.eigh(gradient_covariance(pot, x1.numpy())[0])
    root = torch.as_tensor(vec @ np.diag(lam**-0.5) @ vec.T / math.sqrt(sched.eps))
    full, x = pot.force(x1, None, 1.0), x1.expand(BLOCK, -1).contiguous()
    out = []
    for _ in range(-(-draws // BLOCK)):
        out.append(((full - pot.force(x, sched.next(), sched.scale)) @ root).numpy())
    return np.concatenate(out)[:draws]


def exact_gaussian_noise(y: np.ndarray, n: int) -> np.ndarray:
    """The atoms of the exact law of Z (eq. 14) for the Gaussian model of §2.5.1 (data ``y`` [N], noise sd 1)
    with minibatches of n = 1 or 2 drawn without replacement, each atom equally likely:

        F_hat_n - grad log pi = N (mean_I y - mean y),   Z = N (mean_I y - mean y) / sqrt(eps(n) Sigma_x),

    I uniform over the C(N, n) subsets; eps(n) Sigma_x / N^2 = (N - n) s^2 / (n N) (s^2 the data's variance,
    denominator N - 1) is the exact variance of mean_I y, so Z is the centred atoms over their exact sd."""
    y = np.asarray(y, dtype=float).ravel()
    if n == 1:
        v = y - y.mean()
    elif n == 2:
        i, j = np.triu_indices(len(y), 1)
        v = (y[i] + y[j]) / 2 - y.mean()
    else:
        raise ValueError(f"n={n}: the exact law is enumerated for n = 1, 2 only")
    N = len(y)
    return v / math.sqrt((N - n) * y.var(ddof=1) / (n * N))


def moments(z: np.ndarray) -> dict:
    """Mean, variance, covariance of the first two coordinates, skewness and excess kurtosis of each column of
    ``z`` [M, d], with the Monte Carlo s.e. of the mean and of the variance (sqrt((m4 - var^2) / M))."""
    M = z.shape[0]
    c = z - z.mean(0)
    var = (c**2).mean(0)
    out = {"mean": z.mean(0), "mean_se": np.sqrt(var / M), "var": var,
           "var_se": np.sqrt(((c**4).mean(0) - var**2) / M), "skew": (c**3).mean(0) / var**1.5,
           "kurt": (c**4).mean(0) / var**2 - 3}  # fmt: skip
    if z.shape[1] > 1:
        p = c[:, 0] * c[:, 1]
        out["cov12"], out["cov12_se"] = p.mean(), p.std() / math.sqrt(M)
    return out


def normal_l1(z: np.ndarray, bins: int, lim: float, parts: int = 4, seed: int = 0) -> tuple[float, float, float]:
    """The L1 distance (sekkat2023 eq. 44, ``stats.l1_histogram_error``) between the histogram of the draws
    ``z`` [M] on ``bins`` bins over [-lim, lim] and the N(0, 1) density; its s.e. from ``parts`` disjoint
    parts (the spread of their L1 over sqrt(parts)); and the noise floor: the L1 of as many N(0, 1) draws."""
    from scipy.stats import norm

    def l1(a):
        return l1_histogram_error(a, norm.pdf, bins=bins, range=(-lim, lim))

    per = [l1(p) for p in np.array_split(z, parts)]
    floor = l1(np.random.default_rng(seed).standard_normal(z.size))
    return l1(z), float(np.std(per, ddof=1) / math.sqrt(parts)), floor


def noise_rows(pot, theta, ns, draws: int, seed: int, bins: int, lim: float, bar=None, grid2d: int = 0):
    """Per batch size n of ``ns``: a summary row per coordinate of Z (eq. 14) at ``theta`` (moments, L1 from
    N(0, 1) with its s.e. and noise floor), the marginal histograms (densities on ``bins`` bins over
    [-lim, lim]) and, with ``grid2d``, the 2-D histogram of the first two coordinates on grid2d^2 cells.
    Rows carry ``kind``: summary | hist | hist2d."""
    import torch

    from ...batching import Schedule

    rows, edges = [], np.linspace(-lim, lim, bins + 1)
    for i, n in enumerate(ns):
        z = rescaled_noise(pot, theta, n, draws, seed + i)
        mo, eps = moments(z), Schedule("iid_wor", pot.n_data, n, generator=torch.Generator()).eps
        for k in range(z.shape[1]):
            l1, l1_se, floor = normal_l1(z[:, k], bins, lim, seed=seed + 100 + i)
            rows.append({"kind": "summary", "n": n, "eps": eps, "coord": k + 1, "draws": draws,
                         **{key: float(v[k]) for key, v in mo.items() if np.ndim(v)},
                         **({"cov12": float(mo["cov12"]), "cov12_se": float(mo["cov12_se"])} if "cov12" in mo else {}),
                         "l1": l1, "l1_se": l1_se, "l1_floor": floor})  # fmt: skip
            dens = np.histogram(z[:, k], bins=edges)[0] / (draws * (edges[1] - edges[0]))
            rows += [{"kind": "hist", "n": n, "coord": k + 1, "centre": 0.5 * (a + b), "density": d}
                     for a, b, d in zip(edges[:-1], edges[1:], dens)]  # fmt: skip
        if grid2d:
            e2 = np.linspace(-lim, lim, grid2d + 1)
            h = np.histogram2d(z[:, 0], z[:, 1], bins=(e2, e2))[0] / (draws * (e2[1] - e2[0]) ** 2)
            c = 0.5 * (e2[:-1] + e2[1:])
            rows += [{"kind": "hist2d", "n": n, "z1": c[a], "z2": c[b], "density": h[a, b]}
                     for a in range(grid2d) for b in range(grid2d)]  # fmt: skip
        if bar:
            worst = max(r["l1"] for r in rows if r["kind"] == "summary" and r["n"] == n)
            bar.done(f"n={n} (eps {eps:.4g}): mean {np.round(mo['mean'], 3)}, var {np.round(mo['var'], 3)}, "
                     f"L1 from N(0,1) up to {worst:.3f}")  # fmt: skip
    return rows


# -- what Figs. 1 and 2 measure on these rows (their rules call these) ------------------------------------------
FAR, CLOSE = 0.2, 0.1  # L1 (eq. 44, in [0, 2]) from N(0, 1): "far" above FAR, "close" below CLOSE over the floor


def summaries(rows) -> list[dict]:
    return [r for r in rows if r["kind"] == "summary"]


def as_check(o):
    """A moment of Z that holds by construction (eq. 14) as a check of our minibatch code, not a paper claim:
    passed when the rule's outcome is reproduced."""
    from ...figures.claims import check

    return check(o.verdict == "reproduced", o.ours, o.why)


def centred(rows, k: float = 4.0):
    """Outcome: every coordinate's mean within ``k`` s.e. of 0, at every n."""
    from ...figures.claims import by_count, not_tested

    s = summaries(rows)
    if not s:
        return not_tested("scale", why="no draws of Z")
    z = [abs(r["mean"]) / r["mean_se"] for r in s]
    worst = max(abs(r["mean"]) for r in s)
    return by_count(sum(v <= k for v in z), len(s), f"max |mean| = {worst:.4f}, max |z| = {max(z):.1f} over "
                                                     f"{len(s)} (n, coordinate) with {s[0]['draws']} draws each")  # fmt: skip


def identity_covariance(rows, k: float = 4.0):
    """Outcome: every variance within ``k`` s.e. of 1 (and the covariance of the two coordinates within k s.e.
    of 0), at every n."""
    from ...figures.claims import by_count, not_tested

    s = summaries(rows)
    if not s:
        return not_tested("scale", why="no draws of Z")
    z = [abs(r["var"] - 1) / r["var_se"] for r in s] + [abs(r["cov12"]) / r["cov12_se"] for r in s
                                                         if r["coord"] == 1 and "cov12" in r]  # fmt: skip
    var = [r["var"] for r in s]
    cov = [r["cov12"] for r in s if r["coord"] == 1 and "cov12" in r]
    ours = f"variance {min(var):.4f}..{max(var):.4f}" + (f", covariance {min(cov):.4f}..{max(cov):.4f}" if cov else "")
    return by_count(sum(v <= k for v in z), len(z), f"{ours}; max |z| = {max(z):.1f} over {len(z)} moments")


def far_at(rows, ns):
    """Outcome: at each n of ``ns`` some marginal of Z is far from N(0, 1): L1 above FAR (beyond 2 s.e.)."""
    from ...figures.claims import by_count

    s = summaries(rows)
    cases = {n: max((r for r in s if r["n"] == n), key=lambda r: r["l1"]) for n in ns if any(r["n"] == n for r in s)}
    good = sum(r["l1"] - 2 * r["l1_se"] > FAR for r in cases.values())
    ours = "; ".join(f"n={n}: L1 {r['l1']:.3f} ± {r['l1_se']:.3f} (coordinate {r['coord']}, skewness "
                     f"{r['skew']:.2f}, excess kurtosis {r['kurt']:.2f})" for n, r in cases.items())  # fmt: skip
    return by_count(good, len(cases), ours)


def close_at(rows, ns):
    """Outcome: at each n of ``ns`` every marginal of Z is close to N(0, 1): L1 less its noise floor below CLOSE
    (within 2 s.e.)."""
    from ...figures.claims import by_count

    cases = [r for r in summaries(rows) if r["n"] in ns]
    good = sum(r["l1"] - r["l1_floor"] - 2 * r["l1_se"] < CLOSE for r in cases)
    ours = "; ".join(f"n={r['n']} coordinate {r['coord']}: L1 {r['l1']:.3f} ± {r['l1_se']:.3f} (floor "
                     f"{r['l1_floor']:.3f}, skewness {r['skew']:.2f})" for r in cases)  # fmt: skip
    return by_count(good, len(cases), ours)


def plot_marginals(axes, rows, coord: int, lim: float, label: str):
    """The histogram of coordinate ``coord`` of Z per n, each on its axes, with the N(0, 1) density."""
    from scipy.stats import norm

    t = np.linspace(-lim, lim, 400)
    for ax, n in zip(axes, dict.fromkeys(r["n"] for r in rows if r["kind"] == "hist")):
        h = [r for r in rows if r["kind"] == "hist" and r["n"] == n and r["coord"] == coord]
        c = np.array([r["centre"] for r in h])
        ax.bar(c, [r["density"] for r in h], width=c[1] - c[0], color="C0", alpha=0.6)
        ax.plot(t, norm.pdf(t), color="k", lw=1)
        s = next(r for r in summaries(rows) if r["n"] == n and r["coord"] == coord)
        ax.set_title(f"{label}, n={n}: L1 {s['l1']:.2f}", fontsize=8)
        ax.set_xlim(-lim, lim)
