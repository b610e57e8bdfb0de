"""Grid quadrature of a 2-D posterior (sekkat2023 §2.5.2 mixture means): the reference
marginal of the L1 error (eq. 44), the per-datum gradient covariance Sigma_x(theta) (eq. 12)
and its L2(pi) projections onto the friction classes of AdL / eAdL (eq. 63, Remark 15, eq. 76).

Everything is evaluated through the target's own ``Potential`` (``energy(x, None, 1)`` for the
unnormalised posterior, ``per_datum_grads(x, None)`` for Sigma_x), on a tensor grid with the
midpoint rule, so the only approximation is the grid spacing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

PROJECTION_KINDS = ("scalar", "diagonal", "full")


def _chunks(x: torch.Tensor, size: int):
    for i in range(0, x.shape[0], size):
        yield x[i : i + size]


def log_density(pot, points: np.ndarray, chunk: int = 4096) -> np.ndarray:
    """-U(theta) at ``points`` [G, d] (the unnormalised log posterior of ``pot``)."""
    x = torch.as_tensor(points, dtype=torch.float64)
    return np.concatenate([(-pot.energy(c, None, 1.0)).numpy() for c in _chunks(x, chunk)])


def gradient_covariance(pot, points: np.ndarray, chunk: int = 2048) -> np.ndarray:
    """Sigma_x(theta) of sekkat2023 eq. 12 at ``points`` [G, d]: the covariance of the N
    per-datum gradients with denominator N - 1 (the sign convention of the gradients does not
    matter), [G, d, d]."""
    x = torch.as_tensor(points, dtype=torch.float64)
    out = []
    for c in _chunks(x, chunk):
        g = pot.per_datum_grads(c, None)  # [C, N, d]
        g = g - g.mean(1, keepdim=True)
        out.append((g.transpose(1, 2) @ g / (g.shape[1] - 1)).numpy())
    return np.concatenate(out)


@dataclass
class Grid2D:
    """Midpoint grid on [lo1, hi1] x [lo2, hi2] with ``m`` cells per axis and the normalised
    posterior weights of its cells (sum 1)."""

    centres1: np.ndarray
    centres2: np.ndarray
    weights: np.ndarray  # [m1, m2], sums to 1

    @property
    def points(self) -> np.ndarray:
        a, b = np.meshgrid(self.centres1, self.centres2, indexing="ij")
        return np.stack([a.ravel(), b.ravel()], 1)

    @property
    def cell1(self) -> float:
        return float(self.centres1[1] - self.centres1[0])

    def marginal1(self) -> tuple[np.ndarray, np.ndarray]:
        """(theta_1 cell centres, density of the theta_1 marginal there)."""
        return self.centres1, self.weights.sum(1) / self.cell1

    def mass_in(self, lo: float, hi: float) -> float:
        """Posterior mass of theta_1 in [lo, hi] (cells whose centre lies inside)."""
        keep = (self.centres1 >= lo) & (self.centres1 <= hi)
        return float(self.weights[keep].sum())

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """n draws from the grid posterior (a cell by weight, uniform inside it): [n, 2]."""
        flat = self.weights.ravel()
        k = rng.choice(flat.size, size=n, p=flat / flat.sum())
        pts = self.points[k]
        h = np.array([self.cell1, self.centres2[1] - self.centres2[0]])
        return pts + (rng.random((n, 2)) - 0.5) * h


def posterior_grid(pot, box=((-0.5, 2.0), (-0.5, 2.0)), cells: int = 500) -> Grid2D:
    """The posterior of a 2-D ``pot`` on a midpoint grid over ``box`` (cells per axis)."""
    c = []
    for lo, hi in box:
        w = (hi - lo) / cells
        c.append(lo + w * (np.arange(cells) + 0.5))
    grid = Grid2D(c[0], c[1], np.zeros((cells, cells)))
    logp = log_density(pot, grid.points).reshape(cells, cells)
    p = np.exp(logp - logp.max())
    grid.weights = p / p.sum()
    return grid


def marginal_density_at(grid: Grid2D):
    """A callable theta_1 -> marginal density (linear interpolation between grid centres, 0
    outside); at the centres it is the quadrature value."""
    c, p = grid.marginal1()
    return lambda t: np.interp(np.asarray(t, dtype=float), c, p, left=0.0, right=0.0)


def projection_error(sigma: np.ndarray, weights: np.ndarray, kind: str, basis: np.ndarray | None = None) -> float:
    """||Sigma - S*||_{L2(pi)} with S* the L2(pi) projection of Sigma onto the friction class
    (sekkat2023 eq. 63, Remark 15; eq. 76 for eAdL):

        S(theta) = sum_k M_k f_k(theta),   M_k = s_k I (scalar), diagonal, or symmetric (full)

    with f_k the columns of ``basis`` [G, K] (None: K = 1, f = 1, i.e. AdL's constant
    friction: S* = s* I with s* = (1/d) int tr Sigma dpi, D* = int diag Sigma dpi, or
    Sigma-bar = int Sigma dpi). The norm is ||M||^2 = int sum_ij M_ij(theta)^2 pi(dtheta)
    (the sum over entries used in sekkat2023's proof of Lemma 14). sigma [G, d, d] symmetric,
    weights [G] the posterior mass of each point.
    The projection is weighted least squares, entry by entry (full), per diagonal entry
    (diagonal; off-diagonal entries are not approximated) or on tr(Sigma)/d (scalar).
    """
    if kind not in PROJECTION_KINDS:
        raise ValueError(f"kind={kind!r}: allowed values: {', '.join(PROJECTION_KINDS)}")
    G, d, _ = sigma.shape
    w = np.asarray(weights, dtype=float).reshape(G)
    w = w / w.sum()
    F = np.ones((G, 1)) if basis is None else np.asarray(basis, dtype=float).reshape(G, -1)
    sw = np.sqrt(w)[:, None]
    A = F * sw

    def fit(y: np.ndarray) -> np.ndarray:  # y [G, m] -> fitted [G, m]
        coef, *_ = np.linalg.lstsq(A, y * sw, rcond=None)
        return F @ coef

    S = np.zeros_like(sigma)
    if kind == "full":
        S = fit(sigma.reshape(G, d * d)).reshape(G, d, d)
    elif kind == "diagonal":
        S[:, np.arange(d), np.arange(d)] = fit(np.diagonal(sigma, axis1=1, axis2=2))
    else:
        s = fit(np.trace(sigma, axis1=1, axis2=2)[:, None] / d)[:, 0]
        S[:, np.arange(d), np.arange(d)] = s[:, None]
    r = ((sigma - S) ** 2).sum((1, 2))
    return float(np.sqrt((w * r).sum()))
