"""Sigma(theta) of sekkat2023 eq. 68, the large-N limit of the per-datum gradient covariance Sigma_x(theta) of
eq. 12 for the mixture of §2.5.2 when the data are drawn from P_elem(. | theta_0) (Fig. 6), and the posterior
modes drawn over it.

The integral over x is a midpoint rule on a fine grid of nodes x_j (weights P_elem(x_j | theta_0) dx); the
per-datum gradients are those of the project's mixture model (``models.toys.MixtureMeans``) built on the nodes,
so that Sigma(theta) and Sigma_x(theta) come from the same gradient code.
"""

from __future__ import annotations

import math

import numpy as np


def limit_covariance(points, weight: float, means, sd: float, nodes: int = 4001, width: float = 10.0,
                     chunk: int = 256) -> np.ndarray:  # fmt: skip
    """Sigma(theta) [G, 2, 2] of eq. 68 at ``points`` [G, 2], for the data law
    P_elem(x | theta_0) = w N(x; theta_0,1, sd^2) + (1 - w) N(x; theta_0,2, sd^2) (``weight``, ``means``):

        Sigma(theta) = int g(x, theta) g(x, theta)^T P_elem(x | theta_0) dx - m(theta) m(theta)^T,
        m(theta)     = int g(x, theta) P_elem(x | theta_0) dx,

    g(x, theta) = grad_theta log P_elem(x | theta) = (r_k(x) (x - theta_k) / sd^2)_k with the responsibilities
    r_k of eq. 43's mixture at theta (the sign of g does not matter). Midpoint rule on ``nodes`` points over
    [min theta_0 - width sd, max theta_0 + width sd]; the weights are renormalised to sum 1."""
    import torch

    from ...models.toys import MixtureMeans

    F64 = torch.float64

    lo, hi = min(means) - width * sd, max(means) + width * sd
    x = lo + (hi - lo) * (np.arange(nodes) + 0.5) / nodes
    dens = sum(wk * np.exp(-0.5 * ((x - m) / sd) ** 2) / (sd * math.sqrt(2 * math.pi))
               for wk, m in ((weight, means[0]), (1 - weight, means[1])))  # fmt: skip
    q = torch.as_tensor(dens / dens.sum(), dtype=F64)
    model = MixtureMeans(torch.as_tensor(x, dtype=F64), torch.tensor([weight, 1 - weight], dtype=F64),
                         torch.tensor([sd, sd], dtype=F64), 0.0)  # fmt: skip
    pts = torch.as_tensor(np.asarray(points, dtype=float), dtype=F64)
    out = []
    for i in range(0, pts.shape[0], chunk):
        g = model.per_datum_grads(pts[i : i + chunk], None)  # [C, nodes, 2]
        m = torch.einsum("j,cjk->ck", q, g)
        out.append((torch.einsum("j,cjk,cjl->ckl", q, g, g) - m[:, :, None] * m[:, None, :]).numpy())
    return np.concatenate(out)


def posterior_modes(grid, floor: float = 1e-3) -> list[dict]:
    """The local maxima of a 2-D grid posterior (``quadrature.Grid2D``) whose density is at least ``floor`` times
    the largest, with the mass, mean and covariance of the posterior restricted to the cells nearest to each
    (the ellipses of Fig. 6), largest mass first."""
    p = grid.weights
    inner = p[1:-1, 1:-1]
    peak = np.ones_like(inner, dtype=bool)
    for da in (-1, 0, 1):
        for db in (-1, 0, 1):
            if da or db:
                peak &= inner > p[1 + da : p.shape[0] - 1 + da, 1 + db : p.shape[1] - 1 + db]
    ia, ib = np.nonzero(peak & (inner >= floor * p.max()))
    at = np.stack([grid.centres1[ia + 1], grid.centres2[ib + 1]], 1)
    if not len(at):
        return []
    pts, w = grid.points, p.ravel()
    near = np.argmin(((pts[:, None, :] - at[None]) ** 2).sum(-1), 1)
    modes = []
    for k, a in enumerate(at):
        wk, xk = w[near == k], pts[near == k]
        mean = (wk[:, None] * xk).sum(0) / wk.sum()
        c = xk - mean
        modes.append({"theta1": float(a[0]), "theta2": float(a[1]), "mass": float(wk.sum()),
                      "mean1": float(mean[0]), "mean2": float(mean[1]),
                      "cov": (c.T * wk) @ c / wk.sum()})  # fmt: skip
    return sorted(modes, key=lambda m: -m["mass"])
