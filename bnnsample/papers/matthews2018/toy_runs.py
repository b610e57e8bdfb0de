"""The runs of matthews2018 §5.1 (Fig. 1) on its 1-D toys, measured against their exact laws:
the long-run variance each scheme samples on the noisy Gaussian and the double well
(``toy_bias``), the error of each run's running variance against the iteration count with the
histogram it ends at (``toy_convergence``), and the toys' exact densities (``exact_density``).
Conventions of the authors' code (c-matthews/nogin), as in ``passes``: friction gamma = 1;
mSGLD's step is eps = h^2/2 for the paper's h (``step_size_for``).

Runs go through the simulation kernel ``bnnsample.simulate``, all chains as one tensor dimension.
"""

from __future__ import annotations

import math

import numpy as np

from .passes import GAMMA, step_size_for

DW_VAR = 1.0417972965  # double-well variance (matthews2018 §5.1 target; quadrature, derived for this project)
FIG1_TARGETS = {"gaussian": ("noisy_gaussian", 1.0), "double_well": ("double_well", DW_VAR)}


def toy_potential(overrides, seed: int = 0):
    """The potential of ``dataset=...`` overrides, float64 on the CPU, one torch thread."""
    from ...simulate import build_target

    return build_target(overrides, seed=seed, threads=1).potential


def toy_bias(target: str, scheme: str, h: float, chains: int, T: float, seed: int = 0) -> dict:
    """Long-run variance of x for one scheme at the paper's step h: ``chains`` independent
    chains from x = 0 run for time T (plus 10% burn-in; mSGLD's time per step is eps = h^2/2),
    variance = pooled mean of the per-chain time averages of x^2 minus the squared pooled mean.
    bias = variance - exact, se from the spread of the per-chain time averages."""
    import torch

    from ...simulate import simulate

    ds, exact = FIG1_TARGETS[target]
    pot = toy_potential([f"dataset={ds}"], seed=seed)
    step = step_size_for(scheme, h)
    steps = math.ceil(T / step)
    burn = steps // 10
    acc = {"s1": torch.zeros(chains, dtype=torch.float64), "s2": torch.zeros(chains, dtype=torch.float64)}

    def record(t, st):
        if t > burn:
            acc["s1"] += st.x[:, 0]
            acc["s2"] += st.x[:, 0] ** 2

    x0 = torch.zeros(chains, 1, dtype=torch.float64)
    simulate(pot, scheme, h=step, gamma=GAMMA, x0=x0, steps=steps + burn, record=record, seed=seed)
    m1, m2 = (acc[k].numpy() / steps for k in ("s1", "s2"))
    with np.errstate(all="ignore"):
        ok = np.isfinite(m1) & np.isfinite(m2) & (np.abs(m2) < 1e6)
    var = se = math.nan
    if ok.sum() >= max(2, chains // 2):  # the bias is reported only where most chains stay finite
        var = float(m2[ok].mean() - m1[ok].mean() ** 2)
        # delta method over independent chains: Var = E m2 - (E m1)^2
        g = m2[ok] - 2 * m1[ok].mean() * m1[ok]
        se = float(g.std(ddof=1) / math.sqrt(ok.sum()))
    return {"target": target, "scheme": scheme, "h": h, "step_size": step, "steps": steps, "burn_in": burn,
            "chains": chains, "diverged": int((~ok).sum()), "variance": var, "exact": exact,
            "bias": var - exact, "se": se}  # fmt: skip


def toy_convergence(target: str, scheme: str, h: float, runs: int, iters: int, seed: int = 0, groups: int = 8):
    """Error of each run's running variance estimate against the iteration count at step h:
    ``runs`` independent chains from x = 0, no burn-in; at log-spaced iterations the average
    over the runs of |var_run - exact| (var_run = time average of x^2 minus the squared time
    average of x over the run so far), with its s.e. over the runs (``se_abs_error``). Also the
    histogram of the second half of all runs. Returns (rows, edges, density, extra): extra
    "group_counts", the histogram's counts from each of ``groups`` equal blocks of runs (the noise
    of a statistic of it, by the jackknife), and "errors", {iterations: each run's |var_run - exact|,
    NaN where it diverged} (differences paired by run)."""
    import torch

    from ...simulate import simulate

    ds, exact = FIG1_TARGETS[target]
    pot = toy_potential([f"dataset={ds}"], seed=seed)
    checks = sorted({round(v) for v in np.geomspace(10, iters, 25)})
    edges = np.linspace(-3.5, 3.5, 71)
    block = -(-runs // groups)
    acc = {"s1": torch.zeros(runs, dtype=torch.float64), "s2": torch.zeros(runs, dtype=torch.float64),
           "hist": np.zeros((groups, len(edges) - 1)), "out": [], "errors": {}}  # fmt: skip

    def record(t, st):
        x = st.x[:, 0]
        acc["s1"] += x
        acc["s2"] += x * x
        if t > iters // 2 and t % 10 == 0:
            xn = x.numpy()
            for g in range(groups):
                xg = xn[g * block : (g + 1) * block]
                acc["hist"][g] += np.histogram(xg[np.isfinite(xg)], edges)[0]
        if t in checks:
            m1, m2 = acc["s1"].numpy() / t, acc["s2"].numpy() / t
            with np.errstate(all="ignore"):
                err = np.abs(m2 - m1 * m1 - exact)
            ok = np.isfinite(err) & (err < 1e6)  # larger: a run on its way to overflow
            acc["errors"][t] = np.where(ok, err, np.nan)
            kept = ok.sum() > runs // 2
            acc["out"].append({"target": target, "scheme": scheme, "h": h, "iterations": t,
                               "mean_abs_error": float(err[ok].mean()) if kept else math.nan,
                               "diverged": int((~ok).sum()), "runs": runs,
                               "se_abs_error": float(err[ok].std(ddof=1) / math.sqrt(ok.sum())) if kept else math.nan})  # fmt: skip

    x0 = torch.zeros(runs, 1, dtype=torch.float64)
    simulate(pot, scheme, h=step_size_for(scheme, h), gamma=GAMMA, x0=x0, steps=iters, record=record, seed=seed)
    counts = acc["hist"].sum(0)
    hist = counts / max(counts.sum(), 1) / np.diff(edges)
    return acc["out"], edges, hist, {"group_counts": acc["hist"], "errors": acc["errors"]}


def _symmetric(edges) -> np.ndarray:
    """The histogram's edges, which must be symmetric about 0 (bin j's mirror is bin -1 - j)."""
    edges = np.asarray(edges, float)
    if not np.allclose(edges, -edges[::-1]):
        raise ValueError("edges not symmetric about 0")
    return edges


def mirror_asymmetry(counts, edges) -> float:
    """sum_j |p_j - p_j'| dx_j over the bins of a histogram on edges symmetric about 0 (j' the mirror
    bin of j, p the density): the L1 distance between the density and its mirror image, 0 for a
    symmetric one, 2 at most; NaN for an empty histogram."""
    edges = _symmetric(edges)
    counts = np.asarray(counts, float)
    if counts.sum() <= 0:
        return math.nan
    w = np.diff(edges)
    p = counts / counts.sum() / w
    return float(np.sum(np.abs(p - p[::-1]) * w))


def cross_block_asymmetry(groups, edges) -> float:
    """sum (p(x) - p(-x))^2 dx of a histogram kept as blocks of independent runs (``toy_convergence``'s
    group_counts), from products of different blocks only: with d_g(j) = c_g(j) - c_g(j') the mirror
    difference of block g's counts (j' the mirror bin of j) and n_g its points,
    sum_{g != h} sum_j d_g(j) d_h(j) / dx_j / sum_{g != h} n_g n_h. Two blocks' differences are independent,
    so for a symmetric law (each zero-mean) the estimate has mean 0 whatever the sample size; the plug-in value
    of the pooled histogram (as ``mirror_asymmetry``) adds each block's own sampling noise, a floor that grows
    as the sample shrinks. Can be negative; NaN with fewer than two non-empty blocks."""
    edges = _symmetric(edges)
    c = np.asarray(groups, float)
    d = c - c[:, ::-1]
    n = c.sum(1)
    pairs = n.sum() ** 2 - np.sum(n**2)
    if pairs <= 0:
        return math.nan
    return float(np.sum((d.sum(0) ** 2 - np.sum(d**2, 0)) / np.diff(edges)) / pairs)


def exact_bin_masses(target: str, edges) -> np.ndarray:
    """The exact law's mass in each bin of ``edges`` (a key of FIG1_TARGETS), by adaptive quadrature of exp(-V)
    over each bin, normalised over the histogram's range (a histogram holds the points inside it only)."""
    from scipy.integrate import quad

    def weight(y):
        return math.exp(-(y * y / 2 if target == "gaussian" else (y * y - 1) ** 2 / 4))

    edges = np.asarray(edges, float)
    m = np.array([quad(weight, a, b)[0] for a, b in zip(edges[:-1], edges[1:])])
    return m / m.sum()


def cross_block_distance(groups, edges, masses) -> float:
    """sum (p(x) - p_exact(x))^2 dx of a histogram kept as blocks of independent runs (``toy_convergence``'s
    group_counts) against the exact bin masses Q_j (``exact_bin_masses``), from products of different blocks only:
    with e_g(j) = c_g(j) - n_g Q_j (block g's count in bin j less its exact share, n_g its points),
    sum_{g != h} sum_j e_g(j) e_h(j) / dx_j / sum_{g != h} n_g n_h. Two blocks' deviations are independent, so the
    estimate's mean is the binned distance of the law the runs sample whatever the sample size (0 for the exact
    law), without the floor each block's own sampling noise adds to a plug-in value. Can be negative; NaN with
    fewer than two non-empty blocks."""
    c = np.asarray(groups, float)
    n = c.sum(1)
    e = c - n[:, None] * np.asarray(masses, float)[None, :]
    pairs = n.sum() ** 2 - np.sum(n**2)
    if pairs <= 0:
        return math.nan
    return float(np.sum((e.sum(0) ** 2 - np.sum(e**2, 0)) / np.diff(np.asarray(edges, float))) / pairs)


def pooled_asymmetry(groups, edges) -> float:
    """``mirror_asymmetry`` of the sum of a histogram's blocks (the symmetry measure until 2026-11-29)."""
    return mirror_asymmetry(np.asarray(groups, float).sum(0), edges)


def block_jackknife(f, blocks: int) -> tuple[float, float]:
    """f of all ``blocks`` blocks (f takes a list of block indices) and its jackknife s.e. over the blocks:
    sqrt((G-1)/G sum_g (f_-g - mean)^2), f_-g with block g left out."""
    reps = np.array([f([g for g in range(blocks) if g != k]) for k in range(blocks)])
    return f(list(range(blocks))), float(math.sqrt((blocks - 1) / blocks * np.sum((reps - reps.mean()) ** 2)))


def asymmetry_difference(groups_a, groups_b, edges, stat=pooled_asymmetry) -> tuple[float, float]:
    """``stat`` (a symmetry measure of a histogram's blocks) of histogram b minus that of a, each kept as blocks
    (``toy_convergence``'s group_counts, block g of both from the same runs), and the jackknife s.e. of that
    difference over the blocks, block g left out of both (``block_jackknife``)."""
    ga, gb = np.asarray(groups_a, float), np.asarray(groups_b, float)
    return block_jackknife(lambda k: stat(gb[k], edges) - stat(ga[k], edges), len(ga))


def exact_density(target: str, x):
    """The exact density of a toy (a key of FIG1_TARGETS) at x, normalised by the trapezoidal rule on [-6, 6]."""
    grid = np.linspace(-6, 6, 4001)
    v, vg = ((y**2 / 2 if target == "gaussian" else (y**2 - 1) ** 2 / 4) for y in (x, grid))
    return np.exp(-v) / np.trapezoid(np.exp(-vg), grid)
