"""The exact transition of kinetic Langevin dynamics for linear-Gaussian targets
(franzese2021 App. E.2, eqs. 90-91, generalised to any diagonal minibatch Hessian)."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from ..plumbing.errors import ConfigError
from .base import Force, Integrator, State, StepContext, register


class LinearTargetError(ConfigError, ValueError):
    """exact_ou was run on a target whose force is not linear with a diagonal Hessian."""


def _linear_potential(potential) -> bool:
    """True for targets whose minibatch force is H x - r with diagonal H (GaussianMean, also
    when wrapped by Localized)."""
    while potential is not None:
        if hasattr(potential, "linear_form"):
            return True
        potential = getattr(potential, "base", None)
    return False


def exact_linear_transition(Hd: torch.Tensor, r: torch.Tensor, gamma: float, h: float):
    """Coefficients of the exact flow over time h of, coordinate-wise,

        dx = v dt,   dv = -(a x - r) dt - gamma v dt + sqrt(2 gamma) dW,    a = Hd >= 0,

    i.e. z' = E z + phi + N(0, Q) with z = (x, v), in closed form and elementwise (no matrix
    exponential per chain). The drift matrix is A = -(gamma/2) I + N with N^2 = w^2 I,
    w^2 = gamma^2/4 - a, so

        E = e^{Ah} = e^{-gamma h/2} (cosh(w h) I + sinh(w h)/w N)
        phi = r (int_0^h E01, E01)                 the response to the constant force r
        Q = S - E S E^T,  S = diag(1/a, 1)         (franzese eq. 91), written without 1/a:
            Q00 = I (1 + E00) - E01^2,   Q01 = E01 (E00 - E11),   Q11 = 1 - a E01^2 - E11^2,

    with I = int_0^h E01 dt = (1 - E00)/a (for a h^2 < 1e-8 its a = 0 value
    (h - (1 - e^{-gamma h})/gamma)/gamma, the constant-force/OU case). cosh and sinh/w are
    real for either sign of w^2 and are evaluated in complex128. Computed in float64;
    returns (E [..., 2, 2], phi [..., 2], L [..., 2, 2]) with L the Cholesky factor of Q.
    """
    a = Hd.double()
    r = r.double()
    w = torch.sqrt((gamma * gamma / 4 - a).to(torch.complex128))
    wh = w * h
    c = torch.cosh(wh).real
    sw = torch.where(w.abs() * h > 1e-6, torch.sinh(wh) / torch.where(w == 0, 1, w), h * (1 + wh * wh / 6)).real
    damp = math.exp(-gamma * h / 2)
    e00 = damp * (c + gamma / 2 * sw)
    e01 = damp * sw
    e10 = -a * e01
    e11 = damp * (c - gamma / 2 * sw)
    g = gamma * h
    i0 = h * h * (0.5 - g / 6 + g * g / 24) if g < 1e-4 else (h + math.expm1(-g) / gamma) / gamma
    small = a * h * h < 1e-8
    integral = torch.where(small, torch.full_like(a, i0), (1 - e00) / torch.where(small, 1, a))
    E = torch.stack([torch.stack([e00, e01], -1), torch.stack([e10, e11], -1)], -2)
    phi = torch.stack([r * integral, r * e01], -1)
    q00 = (integral * (1 + e00) - e01 * e01).clamp_min(0.0)
    q10 = e01 * (e00 - e11)
    q11 = 1 - a * e01 * e01 - e11 * e11
    l00 = q00.sqrt()
    l10 = torch.where(l00 > 0, q10 / l00.clamp_min(1e-300), torch.zeros_like(l00))
    l11 = (q11 - l10**2).clamp_min(0.0).sqrt()
    zero = torch.zeros_like(l00)
    L = torch.stack([torch.stack([l00, zero], -1), torch.stack([l10, l11], -1)], -2)
    return E, phi, L


@register
class ExactOU(Integrator):
    """exact_ou: the exact law of kinetic Langevin dynamics over a step h for this step's
    minibatch force, on linear-Gaussian targets (franzese2021 App. E.2, eqs. 90-91). The
    minibatch force is G(x) = H x - r with diagonal H (GaussianMean); it is read
    from the oracle as H = diag(oracle.hvp(x, 1)) and r = -G(0), so one step costs one force
    and one HVP. Each coordinate then follows the 2x2 linear SDE

        d(x, v) = [[0, 1], [-H, -gamma]] (x, v) dt + (0, r) dt + (0, sqrt(2 gamma) dW),

    whose transition over h is applied exactly (``exact_linear_transition``: the 2x2 matrix
    exponential of the drift and the exact covariance, in closed form, elementwise). With the full batch this
    leaves the posterior invariant for every h (franzese eqs. 93-94); with minibatches the
    stationary law is that of the randomly switched exact flows (franzese eqs. 95-100), not
    the posterior. Running it on a non-linear target raises LinearTargetError (a ValueError).
    """

    name = "exact_ou"
    needs = ("hvp",)
    summary = "exact kinetic Langevin flow per minibatch on linear-Gaussian targets (franzese2021 App. E.2)"

    def __init__(self):
        self._checked = False

    def advance(self, state: State, n: int, next_force: Callable[[], Force], ctx: StepContext) -> State:
        x, v = state.x, state.v
        for _ in range(n):
            oracle = next_force()
            if not self._checked:
                pot = getattr(oracle, "potential", None)
                if not _linear_potential(pot):
                    raise LinearTargetError(
                        "model", type(pot).__name__, "integrator=exact_ou needs a linear-Gaussian target: allowed "
                        "models: gaussian_mean (datasets two_batch_gaussian, gaussian_points)")  # fmt: skip
                self._checked = True
            idx = oracle.idx
            # a batch shared by all chains (or the full data) has one (H, r): solve it once
            xs = x if idx is not None and idx.dim() == 2 else x[:1]
            Hd = oracle.hvp(xs, torch.ones_like(xs))
            r = -oracle(torch.zeros_like(xs))
            a, b, L = (t.to(x.dtype) for t in exact_linear_transition(Hd, r, ctx.gamma, ctx.h))
            w = ctx.normal(2, *x.shape, like=x)
            x_new = a[..., 0, 0] * x + a[..., 0, 1] * v + b[..., 0] + L[..., 0, 0] * w[0]
            v = a[..., 1, 0] * x + a[..., 1, 1] * v + b[..., 1] + L[..., 1, 0] * w[0] + L[..., 1, 1] * w[1]
            x = x_new
            if ctx.boundary is not None:
                x, v = ctx.boundary(x, v)
        return State(x, v, state.extra)
