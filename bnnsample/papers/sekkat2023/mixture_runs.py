"""The exact posterior of the sekkat2023 §2.5.2 mixture (dataset ``mixture_means``) by grid
quadrature: its theta_1 marginal, Sigma_x and the L2(pi) projection errors of the friction
classes (Fig. 15), and the L1 error of eq. 44 between draws and that marginal, with a
histogram-noise floor and a standard error from a bootstrap over chains; a run of a sampler on the
mixture measured that way (``mixture_row``) and what a plan of such runs costs (``mixture_work``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...stats import l1_histogram_error
from .chains import eps_of, run_chains

BINS, RANGE = 500, (0.0, 1.4)
FLOOR_REPS = 20  # the bootstrap resamples of whole chains behind each floor and s.e. (``l1_floor``)
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
    from ...simulate import build_target
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

    from ...integrators.thermostats import PartitionBasis
    from .quadrature import projection_error

    out = {k: projection_error(ref.sigma, ref.weights, k) for k in CLASSES}
    for deg, K in ((0, 3), (1, 15), (2, 35)):
        f = PartitionBasis(EDGES, deg, 2)(torch.as_tensor(ref.points)).numpy()
        out[f"K={K}"] = projection_error(ref.sigma, ref.weights, "full", f)
    out["K=0"] = out["full"]
    return out


def l1_error(theta1: np.ndarray, ref: MixtureReference) -> float:
    return l1_histogram_error(theta1.ravel(), ref.density, bins=BINS, range=RANGE)


def l1_floor(theta1: np.ndarray, ref: MixtureReference, seed: int, reps: int = FLOOR_REPS) -> tuple[float, float]:
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


def _steps(h: float, burn_time: float, time_: float, draws: int) -> tuple[int, int]:
    """(burn-in steps, thinning) of a mixture run of ``burn_time`` + ``time_`` time units at step h."""
    return max(2, round(burn_time / h)), max(draws, round(time_ / h)) // draws


def mixture_row(ref: MixtureReference, scheme: str, params: dict, batching: str, n: int, h: float, chains: int,
                burn_time: float, time_: float, seed: int, label: str, draws: int = 200) -> dict:  # fmt: skip
    """One run of ``scheme`` (a registered integrator with ``params``) on the mixture, ``chains`` chains started
    from exact posterior draws with v ~ N(0, I), ``burn_time`` then ``time_`` time units (``draws`` records a
    chain): the L1 error of eq. 44 of its theta_1 draws against the exact marginal, with its histogram-noise
    floor and standard error (``l1_floor``), the mass above 0.7 beside the exact one, and the run's cost. Chains with non-finite draws (diverged) are left
    out of every statistic and counted (``diverged_chains``)."""
    rng = np.random.default_rng(seed)
    x0 = ref.grid.sample(chains, rng)
    v0 = rng.standard_normal((chains, 2))
    burn, thin = _steps(h, burn_time, time_, draws)
    run = run_chains(ref.pot, scheme, params, batching, n, h, x0, v0, seed=seed, draws=draws, thin=thin, burn=burn)
    finite = np.isfinite(run.x).all(axis=(1, 2))  # a chain that diverged is dropped and counted
    th1 = run.x[finite, :, 0]
    floor, se = l1_floor(th1, ref, seed)
    eps = eps_of(ref.pot.n_data, n, batching)
    row = {"scheme": label, "sampling": {"iid_wor": "wor", "iid": "iid", "full": "full"}[batching], "h": h, "n": n,
           "eps": eps, "eps_h": eps * h, "l1": l1_error(th1, ref), "l1_se": se, "l1_noise_floor": floor,
           "mass_theta1_gt_0.7": float((th1 > 0.7).mean()), "exact_mass_gt_0.7": 1 - ref.grid.mass_in(-9, 0.7),
           "chains": chains, "diverged_chains": int(chains - finite.sum()), "steps": run.steps,
           "seconds": run.seconds}  # fmt: skip
    if run.friction is not None:
        row["friction_mean"] = float(run.friction[finite].mean())
    return row


def mixture_work(plan, draws: int = 200) -> int:
    """Chains x steps of a plan's runs (their CPU time is about proportional to it)."""
    total = 0
    for (_, _, _, _, h, chains, burn_time, time_, *_), _ in plan:
        burn, thin = _steps(h, burn_time, time_, draws)
        total += chains * (burn + draws * thin)
    return total
