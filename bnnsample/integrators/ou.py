"""The exact Ornstein-Uhlenbeck flow of kinetic Langevin dynamics (the "U" step).

Conventions (fixed for the whole package): unit mass, temperature 1,

    dX = V dt,   dV = -grad U(X) dt - gamma V dt + sqrt(2 gamma) dW.

With the force switched off, (X, V) is an Ornstein-Uhlenbeck process whose flow over a time
tau is known exactly in law (paulin2025 §2.1, eqs. (3)-(6)). With e = exp(-gamma tau):

    x' = x + (1 - e)/gamma * v + s_x xi_1
    v' = e v + rho xi_1 + s_v xi_2,            xi_1, xi_2 ~ N(0, I) independent,

    s_x^2 = (2 gamma tau - 3 + 4e - e^2) / gamma^2      (variance of the position noise)
    Cov(position noise, velocity noise) = (1 - e)^2 / gamma
    rho   = (1 - e)^2 / (gamma s_x)
    s_v^2 = (1 - e^2) - rho^2                          (velocity noise variance 1 - e^2).

All constants are computed in float64 with expm1 and, for tiny gamma*tau, a Taylor series, so
that they stay accurate where the textbook formula cancels catastrophically; gamma = 0 gives
the free flow x' = x + tau v.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from .scalars import scaled


@dataclass(frozen=True)
class OUConstants:
    """Coefficients of the exact OU map over a time tau (see the module docstring)."""

    tau: float
    eta: float  # e = exp(-gamma tau)
    drift: float  # (1 - e) / gamma, the position's response to v
    s_x: float  # std of the position noise
    rho: float  # velocity noise loading on the position noise xi_1
    s_v: float  # std of the velocity noise's independent part

    def covariance(self) -> tuple[float, float, float]:
        """(Var dx, Cov(dx, dv), Var dv) of the noise of one U step."""
        return self.s_x**2, self.s_x * self.rho, self.rho**2 + self.s_v**2


def _phi1(s: float) -> float:
    """(1 - exp(-s)) / s, equal to 1 at s = 0."""
    return 1.0 if s == 0.0 else -math.expm1(-s) / s


def _position_variance_factor(s: float) -> float:
    """f(s)/s^2 with f(s) = 2s - 3 + 4 e^{-s} - e^{-2s}, so that s_x^2 = tau^2 f(s)/s^2.

    Closed form: f(s) = 2s - (1 - e^{-s})(3 - e^{-s}). For s < 1e-2 the Taylor series
    f(s) = (2/3)s^3 - (1/2)s^4 + (7/30)s^5 - (1/12)s^6 + (31/1260)s^7 - ... replaces it,
    because the closed form cancels catastrophically there.
    """
    if s < 1e-2:
        return s * (2.0 / 3.0 - s * (0.5 - s * (7.0 / 30.0 - s * (1.0 / 12.0 - s * 31.0 / 1260.0))))
    one_minus_e = -math.expm1(-s)
    return (2.0 * s - one_minus_e * (2.0 + one_minus_e)) / s**2


def ou_constants(gamma: float, tau: float) -> OUConstants:
    """Exact OU-flow constants for friction gamma >= 0 over time tau >= 0 (float64)."""
    gamma = float(gamma)
    tau = float(tau)
    if gamma < 0 or tau < 0:
        raise ValueError(f"OU flow needs gamma >= 0 and tau >= 0, got gamma={gamma}, tau={tau}")
    s = gamma * tau
    eta = math.exp(-s)
    drift = tau * _phi1(s)
    var_x = tau**2 * _position_variance_factor(s)
    if var_x <= 0.0:
        return OUConstants(tau, eta, drift, 0.0, 0.0, 0.0)
    s_x = math.sqrt(var_x)
    cov = drift * (-math.expm1(-s))  # (1-e)^2/gamma = drift * (1-e)
    rho = cov / s_x
    var_v = max(-math.expm1(-2.0 * s) - rho**2, 0.0)
    return OUConstants(tau, eta, drift, s_x, rho, math.sqrt(var_v))


def ou_step(x: torch.Tensor, v: torch.Tensor, c: OUConstants, noise: torch.Tensor):
    """Apply the exact OU flow with constants c; noise has shape (2, *x.shape), N(0, 1)."""
    xi1, xi2 = noise.unbind(0)  # one op for both views
    x_new = torch.add(x, v, alpha=c.drift).add_(xi1, alpha=c.s_x)
    v_new = scaled(v, c.eta).add_(xi1, alpha=c.rho).add_(xi2, alpha=c.s_v)
    return x_new, v_new
