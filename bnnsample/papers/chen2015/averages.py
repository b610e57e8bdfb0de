"""Posterior averages of SG-MCMC on the Gaussian-mean target of chen2015 (high-order SG-MCMC
integrators, §3 and §5), and their exact stationary values.

Target: ``dataset=gaussian_mean`` (variant chen): x_i ~ N(theta, 1), i = 1..1000, prior N(0, 1),
posterior N(mu, 1/1001); test function phi(theta) = theta^2 with phi_bar = mu^2 + 1/1001
(``chen_target``); minibatches of 10, force scale N/n. Schemes (the project's integrators,
``SCHEMES``): SGHMC-S ``aboba`` (chen2015 §4 eq. (9), the symmetric splitting, K = 2), SGHMC-E
``sghmc`` without noise correction (Euler, K = 1), SGLD ``sgld``.

Estimators (chen2015 §3.1, §3.3): phi_hat = (1/L) sum_{l<=L} phi(theta_l) for a fixed step, the
step-weighted phi_tilde = sum_l h_l phi(theta_l) / sum_l h_l for decreasing steps, per independent
run (``run_averages``); the grid search of chen2015 §5 for the step constant and the friction
(``select_constant``). Exact stationary laws come from the affine map that ``analysis.probe`` reads
off each integrator's own ``advance``, with the i.i.d. minibatch noise added as its exact covariance
(``exact_stationary``).
"""

from __future__ import annotations

import math

import numpy as np

SCHEMES = {
    "SGHMC-S": ("aboba", {}),
    "SGHMC-E": ("sghmc", {"noise_correction": "none"}),
    "SGLD": ("sgld", {}),
}
BATCH = 10
FRICTION = 10.0  # D of chen2015 (DECISION for Figs. 1-2: the smallest of Fig. 3's grid {10, 20, 30})
TARGET = ("dataset=gaussian_mean", "dataset.variant=chen")


def chen_target(seed: int = 0):
    """(potential, phi_bar = E[theta^2] under the exact posterior)."""
    from ...simulate import build_target

    pot = build_target(TARGET, seed=seed, threads=1).potential
    mean, cov = pot.exact_posterior()
    return pot, float(mean[0] ** 2 + cov[0, 0])


def exact_stationary(pot, label: str, h: float, gamma: float, batching: str = "iid", batch_size: int = BATCH) -> float:
    """Exact stationary E[theta^2] of scheme ``label`` (a key of SCHEMES) at step h, the i.i.d.
    minibatch noise added as its exact covariance (``analysis.exact.stationary_second_moment``);
    inf if the step map is unstable."""
    from ...analysis.exact import stationary_second_moment

    name, params = SCHEMES[label]
    return stationary_second_moment(pot, name, params, h, gamma, batching, batch_size)


def stability_limit(pot, label: str, gamma: float = FRICTION, lo: float = 1e-3, hi: float = 1.0) -> float:
    """The largest h (to 1e-6) at which scheme ``label``'s step map is stable, by bisection on the
    finiteness of ``exact_stationary`` between a stable ``lo`` and an unstable ``hi``."""
    while hi - lo > 1e-6:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if math.isfinite(exact_stationary(pot, label, mid, gamma)) else (lo, mid)
    return lo


def run_averages(pot, label: str, *, runs: int, steps: int, checkpoints, h=None, step_sizes=None,
                 gamma: float = FRICTION, batching: str = "iid", seed: int = 0) -> dict[int, np.ndarray]:  # fmt: skip
    """Per-run posterior averages of phi = theta^2 at each checkpoint L: the plain average
    (fixed h) or the step-weighted one (``step_sizes(l)`` = h_l). {L: [runs]} (NaN for
    diverged runs)."""
    import torch

    from ...simulate import simulate

    name, params = SCHEMES[label]
    x0 = torch.randn(runs, pot.dim, dtype=torch.float64, generator=torch.Generator().manual_seed(1000 + seed))
    acc = {"s": torch.zeros(runs, dtype=torch.float64), "w": 0.0, "out": {}}
    checks = {int(c) for c in checkpoints}

    def record(t, st):
        w = 1.0 if step_sizes is None else float(step_sizes(t))
        acc["s"] += w * st.x[:, 0] ** 2
        acc["w"] += w
        if t in checks:
            acc["out"][t] = (acc["s"] / acc["w"]).numpy().copy()

    simulate(pot, name, h=h if h is not None else float(step_sizes(1)), gamma=gamma, x0=x0, steps=steps,
             params=params, batching=batching, batch_size=BATCH, seed=seed, record=record,
             step_sizes=step_sizes)  # fmt: skip
    return acc["out"]


def select_constant(pot, truth, label, grid, alpha, runs, L0, frictions, decreasing: bool, seed: int = 0):
    """Grid search of the paper (chen2015 §5, Fig. 3): the constant (C of h = C L^-alpha, or the initial
    step h_0 of h_l = h_0 l^-alpha) and the friction with the smallest bias at L = L0.
    Stops along the grid once a value diverges. Returns (bias, constant, friction)."""
    from ...evaluate.metrics import posterior_average_bias_mse

    best = (math.inf, math.nan, math.nan)
    for D in frictions:
        for i, c in enumerate(grid):
            h, sizes = (None, lambda l, c=c: c * l**-alpha) if decreasing else (c * L0**-alpha, None)
            est = run_averages(pot, label, runs=runs, steps=L0, checkpoints=[L0], h=h, step_sizes=sizes, gamma=D,
                               seed=seed + i)[L0]  # fmt: skip
            b = posterior_average_bias_mse(est, truth, drop_diverged=True)["bias"]
            if not math.isfinite(b):
                break
            best = min(best, (b, float(c), D))
    return best


def slope_se_over_runs(Ls, est: dict, truth: float, k: float = 2.0) -> float:
    """The s.e. of the slope of log|bias| on log L (``stats.fit_slope_se``'s fit: the L whose bias
    exceeds k s.e.) when every L is a checkpoint of the same runs, so the biases' errors are
    correlated: the slope is sum_i c_i log|b_i| with b_i the mean over runs of phi_r(L_i) - truth,
    so by the delta method it is the mean over runs of g_r = sum_i c_i (phi_r(L_i) - mean_i) / b_i
    (plus a constant), and its s.e. is the s.d. of g over runs / sqrt(runs). ``est``: {L: [runs]}
    (``run_averages``); runs non-finite at some L are left out. NaN with fewer than 2 such L."""
    e = np.stack([np.asarray(est[L], float) for L in Ls], axis=1)  # [runs, L]
    e = e[np.isfinite(e).all(1) & (np.abs(e) < 1e6).all(1)]
    if len(e) < 2:
        return math.nan
    b = e.mean(0) - truth
    se = e.std(0, ddof=1) / math.sqrt(len(e))
    ok = (np.abs(b) > 0) & (np.abs(b) > k * se)
    if ok.sum() < 2:
        return math.nan
    x = np.log(np.asarray(Ls, float)[ok])
    c = (x - x.mean()) / ((x - x.mean()) ** 2).sum()
    g = ((e[:, ok] - e[:, ok].mean(0)) / b[ok]) @ c
    return float(g.std(ddof=1) / math.sqrt(len(e)))


def paired_margin(est_a, est_b, truth: float) -> tuple[float, float, int]:
    """|bias of b| - |bias of a| of two schemes' per-run averages whose run r shares its seed and
    theta_0 (``run_averages`` with the same seed), over the runs finite in both, with the s.e. of the
    paired difference: the margin is the mean over runs of g_r = sign(b_b) e_b,r - sign(b_a) e_a,r
    (e = phi_r - truth, b = mean e), so its s.e. is the s.d. of g over runs / sqrt(runs).
    (margin, s.e., runs); NaN with fewer than 2 runs."""
    a, b = (np.asarray(e, float) for e in (est_a, est_b))
    ok = np.isfinite(a) & np.isfinite(b) & (np.abs(a) < 1e6) & (np.abs(b) < 1e6)
    if ok.sum() < 2:
        return math.nan, math.nan, int(ok.sum())
    ea, eb = a[ok] - truth, b[ok] - truth
    g = np.sign(eb.mean()) * eb - np.sign(ea.mean()) * ea
    return float(g.mean()), float(g.std(ddof=1) / math.sqrt(len(g))), int(ok.sum())


def paired_slope_gap(Ls, bias_a, se_a, bias_b, se_b, margin_se, k: float = 2.0) -> tuple[float, float, int]:
    """The difference of two schemes' log-log slopes of |bias| on L, b's minus a's, when each L is its own runs
    (independent between L) and the two schemes' run r at an L shares its seed and theta_0 (``paired_margin``):
    the least-squares slope of y_i = log(|b_b,i| / |b_a,i|) on x_i = log L_i over the L at which both biases
    exceed k s.e., with the s.e. sqrt(sum_i c_i^2 v_i), c_i = (x_i - mean x) / sum_j (x_j - mean x)^2, by the
    delta method v_i = se_a^2 / b_a^2 + se_b^2 / b_b^2 - 2 cov_i / (|b_a| |b_b|), the pair's covariance
    recovered from the margin's s.e. (the s.e. of |b_b| - |b_a| over the paired runs), cov_i = (se_a^2 + se_b^2
    - margin_se^2) / 2. (gap, s.e., number of L); NaN with fewer than 2 such L."""
    a, b, sa, sb, sm = (np.asarray(v, float) for v in (bias_a, bias_b, se_a, se_b, margin_se))
    a, b = np.abs(a), np.abs(b)
    ok = np.isfinite(a + b + sa + sb + sm) & (a > k * sa) & (b > k * sb) & (a > 0) & (b > 0)
    if ok.sum() < 2:
        return math.nan, math.nan, int(ok.sum())
    x = np.log(np.asarray(Ls, float)[ok])
    c = (x - x.mean()) / ((x - x.mean()) ** 2).sum()
    a, b, sa, sb, sm = a[ok], b[ok], sa[ok], sb[ok], sm[ok]
    cov = (sa**2 + sb**2 - sm**2) / 2
    v = np.maximum(sa**2 / a**2 + sb**2 / b**2 - 2 * cov / (a * b), 0.0)
    return float(c @ np.log(b / a)), float(math.sqrt(c**2 @ v)), int(ok.sum())
