"""The Gaussian model of sekkat2023 §2.5.1 (eqs. 41-42, App. B) and the exact stationary
variances of SGLD and Langevin OABAO with additive minibatch noise on it (``sgld_variance``,
``oabao_variance``), written independently of the integrator code; ``exact_relative_error`` is
the relative variance error Figs. 3 and 5 plot against eps(n)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class GaussianModel:
    """sekkat2023 §2.5.1: a = 1/sigma_post^2 (the force's slope), mu_post, Sigma_x (constant)."""

    a: float
    mu: float
    sigma_x: float

    @property
    def var(self) -> float:
        return 1.0 / self.a


def gaussian_model(pot) -> GaussianModel:
    from .quadrature import gradient_covariance

    mean, cov = pot.exact_posterior()
    sig = gradient_covariance(pot, np.zeros((1, 1)))[0, 0, 0]
    return GaussianModel(1.0 / float(cov[0, 0]), float(mean[0]), float(sig))


def sgld_variance(a: float, eps_sigma: float, h: float) -> float:
    """Exact stationary variance of SGLD theta' = theta + h F_hat + sqrt(2h) G on the Gaussian
    model, F_hat = -a (theta - mu) + b, Var b = eps(n) Sigma_x (exact; eq. 41 is
    its first order; derived for this project):

        Var = (2h + h^2 eps Sigma_x) / (1 - (1 - a h)^2) = sigma_post^2 (1 + eps h Sigma_x / 2) / (1 - a h / 2).
    """
    return (2 * h + h * h * eps_sigma) / (1 - (1 - a * h) ** 2)


def oabao_variance(a: float, eps_sigma: float, h: float, gamma: float = 1.0) -> float:
    """Exact stationary Var(theta) of Langevin OABAO with a minibatch kick (sekkat2023 eq. 30,
    §2.4.1 and App. B) on the Gaussian model: z = (theta - mu, p) evolves by

        O: p <- alpha p + sqrt(1 - alpha^2) G,  alpha = e^{-gamma h/2}
        A: theta <- theta + (h/2) p
        B: p <- p + h (-a theta + b),           Var b = eps(n) Sigma_x (fresh each step)
        A, O as above,

    a linear map z' = M z + noise; the stationary covariance solves the discrete Lyapunov
    equation C = M C M^T + Q (scipy). Independent of the integrator code."""
    from scipy.linalg import solve_discrete_lyapunov

    al = math.exp(-gamma * h / 2)
    O = np.array([[1.0, 0.0], [0.0, al]])
    QO = np.diag([0.0, 1 - al * al])
    A = np.array([[1.0, h / 2], [0.0, 1.0]])
    B = np.array([[1.0, 0.0], [-a * h, 1.0]])
    QB = np.diag([0.0, h * h * eps_sigma])
    M, Q = np.eye(2), np.zeros((2, 2))
    for T, QT in ((O, QO), (A, None), (B, QB), (A, None), (O, QO)):
        M, Q = T @ M, T @ Q @ T.T + (QT if QT is not None else 0)
    return float(solve_discrete_lyapunov(M, Q)[0, 0])


def exact_relative_error(scheme: str, gm: GaussianModel, eps: float, h: float) -> float:
    fn = sgld_variance if scheme == "sgld" else oabao_variance
    return (fn(gm.a, eps * gm.sigma_x, h) - gm.var) / gm.var
