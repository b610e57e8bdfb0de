"""Exact stationary laws of the discrete schemes on Gaussian targets, against which the paper
recipes and the tests hold the simulations:

- ``stationary_second_moment``: E[theta^2] of a registered scheme on a one-dimensional
  Gaussian-mean target with i.i.d. minibatch noise added as its exact covariance, from the
  scheme's probed affine step (chen2015 Figs. 1-3);
- ``full_batch_stationary_akd``: the average Kolmogorov distance of a scheme's exact full-batch
  stationary predictive marginals from the posterior predictive (franzese2021 Fig. 1);
- ``fixed_order_w1``: the W1 to the posterior of a scheme run with a fixed periodic batch order
  (paulin2025 Fig. 1, the authors' notebook SMS-BAOAB).
"""

from __future__ import annotations

import math

import numpy as np

from ..stats import normal_kolmogorov as _normal_kolmogorov


class ShiftedForce:
    """The full-batch force of ``base`` minus a constant ``delta`` (probing how a force
    perturbation enters the step; used by ``stationary_second_moment``)."""

    def __init__(self, base, delta: float):
        self.base, self.delta = base, float(delta)
        self.dim, self.n_data = base.dim, base.n_data

    def force(self, x, idx, scale):
        return self.base.force(x, idx, scale) - self.delta


def stationary_second_moment(pot, name: str, params: dict, h: float, gamma: float, batching: str = "iid",
                             batch_size: int = 10) -> float:  # fmt: skip
    """Exact stationary E[theta^2] of the registered scheme ``name`` (with ``params``) at step h on a
    one-dimensional Gaussian-mean target, i.i.d. minibatches of ``batch_size`` (or the full batch);
    inf if the step map is unstable (chen2015 Figs. 1-3).

    On the Gaussian-mean target the minibatch force is G = G_full + e with e independent of
    the state, mean 0 and variance V = (N^2 / n) Var_pop(grad U_i) (i.i.d. with replacement;
    grad U_i = theta - x_i differ by constants). The step is z' = A z + c + b e + N xi, with
    (A, c, N) read off the integrator's full-batch ``advance`` by ``probe_step`` and b the
    response of z to a unit force shift (probe of the shifted force, minus c). The stationary
    moments solve the discrete Lyapunov equation (``cycle_moments``) with Q = N N^T + V b b^T.
    """
    import torch

    from ..integrators import get_integrator
    from .probe import probe_step
    from .stationary import AffineStep, active_coordinates, cycle_moments

    def probe(p):
        return probe_step(lambda: get_integrator(name, **params), p, [None], scale=1.0, eps=0.0, h=h, gamma=gamma)

    p0 = probe(pot)
    b = probe(ShiftedForce(pot, -1.0)).c - p0.c  # G -> G + 1
    Q = p0.Q.copy()
    if batching != "full":
        g = pot.per_datum_grads(torch.zeros(1, pot.dim, dtype=torch.float64), None)[0, :, 0]
        V = pot.n_data**2 / batch_size * float(g.var(unbiased=False))
        Q = Q + V * np.outer(b, b)
    step = AffineStep(p0.A, p0.c, Q)
    keep = active_coordinates([(1.0, [step, AffineStep(p0.A, p0.c + b, Q)])])
    A = p0.A[np.ix_(keep, keep)]
    if np.max(np.abs(np.linalg.eigvals(A))) >= 1:
        return math.inf
    (mean, cov), = cycle_moments([(1.0, [AffineStep(A, p0.c[keep], Q[np.ix_(keep, keep)])])])  # fmt: skip
    ix = keep.index(0)  # x is the first coordinate of z
    return float(cov[ix, ix] + mean[ix] ** 2)


def full_batch_stationary_akd(pot, integrator: str, h: float, gamma: float) -> float:
    """Average Kolmogorov distance between the exact stationary predictive marginals of a scheme
    with the full batch and the posterior predictive (nan if the scheme is unstable at h). One
    step is the affine map z' = A z + c + N(0, Q) read off the integrator (``probe_step``); its
    stationary law is N(m, S) with (I - A) m = c and S = A S A^T + Q (a discrete Lyapunov
    equation, ``scipy.linalg.solve_discrete_lyapunov``), Gaussian because the batch is fixed."""
    from scipy.linalg import solve_discrete_lyapunov

    from ..integrators import get_integrator
    from .probe import probe_step

    pr = probe_step(lambda: get_integrator(integrator), pot, [None], scale=1.0, eps=0.0, h=h, gamma=gamma)
    if np.max(np.abs(np.linalg.eigvals(pr.A))) >= 1:
        return math.nan
    m = np.linalg.solve(np.eye(pr.A.shape[0]) - pr.A, pr.c)
    S = solve_discrete_lyapunov(pr.A, pr.Q)
    xs = pr.layout.index("x")
    phi = pot.phi_test.numpy()
    mean = phi @ m[xs]
    var = np.einsum("tj,jk,tk->t", phi, S[xs, xs], phi)
    m0, v0 = (t.numpy() for t in pot.predictive_moments())
    return float(np.mean(_normal_kolmogorov(mean, np.sqrt(np.maximum(var, 0)), m0, np.sqrt(v0))))


def fixed_order_w1(pot, name: str, params: dict, h: float, gamma: float, order: tuple = (0, 1, 1, 0)) -> float:
    """Exact W1 to the posterior of the recorded law of the registered scheme ``name`` (with
    ``params``) on a one-dimensional target of single-point batches in a fixed batch order
    (paulin2025's notebook SMS-BAOAB: the new force of step it uses batch ``order[it % 4]``),
    records at every (odd number of) epoch(s): the equal mixture of the stationary laws after 2
    and 4 steps of the cycle, each Gaussian (one deterministic batch sequence). Per-batch affine
    maps are probed off the integrator (``probe``), the phase laws are
    ``stationary.cycle_moments``; W1 is the integral of |F_mix - Phi| by adaptive quadrature."""
    import torch
    from scipy import integrate
    from scipy.stats import norm

    from ..integrators import get_integrator
    from ..potential import covariance_factor
    from .probe import probe_step
    from .stationary import cycle_moments

    eps = covariance_factor(1, pot.n_data, with_replacement=False)
    maps = {b: probe_step(lambda: get_integrator(name, **params), pot, [torch.tensor([b])], scale=pot.n_data / 1,
                          eps=eps, h=h, gamma=gamma).affine_step() for b in set(order)}  # fmt: skip
    phases = cycle_moments([(1.0, [maps[b] for b in order])])
    comps = [(float(phases[p][0][0]), math.sqrt(float(phases[p][1][0, 0]))) for p in (0, len(order) // 2)]
    mean, cov = (t.numpy() for t in pot.exact_posterior())
    mu, sd = float(mean[0]), math.sqrt(float(cov[0, 0]))

    def gap(x):
        return abs(sum(norm.cdf(x, m, v) for m, v in comps) / len(comps) - norm.cdf(x, mu, sd))

    val, _ = integrate.quad(gap, mu - 15 * sd, mu + 15 * sd, points=[m for m, _ in comps] + [mu], limit=500,
                            epsabs=1e-12)  # fmt: skip
    return float(val)
