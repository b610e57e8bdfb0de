"""The exact posterior of the sekkat2023 §2.5.2 mixture (dataset ``mixture_means``) by grid
quadrature: its theta_1 marginal, Sigma_x and the L2(pi) projection errors of the friction
classes (Fig. 15), and the L1 error of eq. 44 between draws and that marginal, with a
histogram-noise floor and a standard error from a bootstrap over chains."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..stats import l1_histogram_error

BINS, RANGE = 500, (0.0, 1.4)
EDGES = [0.0, 0.7, 1.4]
CLASSES = ("scalar", "diagonal", "full")  # the constant frictions of AdL (Remark 15)


@dataclass
class MixtureReference:
    pot: object
    grid: object
    density: object  # callable theta_1 -> marginal density
    sigma: np.ndarray = field(default=None)  # Sigma_x at the grid points with mass
    weights: np.ndarray = field(default=None)
    points: np.ndarray = field(default=None)
    key: tuple = ()  # (cells, seed): what the reference is made of, for the cell cache


def mixture_reference(cells: int = 300, with_sigma: bool = False, seed: int = 0) -> MixtureReference:
    """The exact posterior of sekkat2023 §2.5.2 (data seed ``seed``) on a grid over
    [-0.5, 2]^2, its theta_1 marginal and, optionally, Sigma_x on the cells carrying mass."""
    from ..simulate import build_target
    from . import quadrature as q

    pot = build_target(["dataset=mixture_means", f"dataset.seed={seed}"], seed=0).potential
    grid = q.posterior_grid(pot, cells=cells)
    ref = MixtureReference(pot, grid, q.marginal_density_at(grid), key=(cells, seed))
    if with_sigma:
        w = grid.weights.ravel()
        keep = w > 1e-12 * w.max()
        ref.points, ref.weights = grid.points[keep], w[keep]
        ref.sigma = q.gradient_covariance(pot, ref.points)
    return ref


def projection_errors(ref: MixtureReference) -> dict[str, float]:
    """||Sigma_x - S*||_{L2(pi)} for AdL's scalar, diagonal, full frictions and eAdL's full
    frictions on the K + 1 = 4, 16, 36 functions of the [0, 1.4]^2 partition (Fig. 15)."""
    import torch

    from ..integrators.thermostats import PartitionBasis
    from .quadrature import projection_error

    out = {k: projection_error(ref.sigma, ref.weights, k) for k in CLASSES}
    for deg, K in ((0, 3), (1, 15), (2, 35)):
        f = PartitionBasis(EDGES, deg, 2)(torch.as_tensor(ref.points)).numpy()
        out[f"K={K}"] = projection_error(ref.sigma, ref.weights, "full", f)
    out["K=0"] = out["full"]
    return out


def l1_error(theta1: np.ndarray, ref: MixtureReference) -> float:
    return l1_histogram_error(theta1.ravel(), ref.density, bins=BINS, range=RANGE)


def l1_floor(theta1: np.ndarray, ref: MixtureReference, seed: int, reps: int = 20) -> tuple[float, float]:
    """Histogram-noise floor of the L1 error of draws theta1 [C, D] from C independent chains, and
    the standard error of the L1 error itself, from ``reps`` bootstrap resamples of whole chains
    (which respect the correlation inside chains and the between-chain mode weights):

        floor = mean_r L1(resample_r, pooled)       (the bootstrap estimate of E L1(histogram, its mean))
        se    = sd_r   L1(resample_r, reference)    (the bootstrap s.e. of the L1 error, eq. 44).
    """
    rng = np.random.default_rng(seed)
    C = theta1.shape[0]
    floor, err = [], []
    for _ in range(reps):
        resample = theta1[rng.integers(0, C, C)].ravel()
        floor.append(l1_histogram_error(resample, theta1.ravel(), bins=BINS, range=RANGE))
        err.append(l1_error(resample, ref))
    return float(np.mean(floor)), float(np.std(err, ddof=1))
