"""The U step: exact Ornstein-Uhlenbeck moments, stability, and the semigroup identity."""

import math

import numpy as np
import pytest
import torch
from scipy.linalg import expm

from bnnsample.integrators.ou import ou_constants, ou_step


def van_loan(gamma, tau):
    """Exact transition matrix and noise covariance of d(x,v) = (v, -gamma v) dt + (0, sqrt(2 gamma)) dW,
    by Van Loan's matrix-exponential method (independent of the closed forms under test)."""
    F = np.array([[0.0, 1.0], [0.0, -gamma]])
    G = np.array([[0.0, 0.0], [0.0, 2.0 * gamma]])
    big = np.block([[-F, G], [np.zeros((2, 2)), F.T]]) * tau
    E = expm(big)
    phi = E[2:, 2:].T
    Q = phi @ E[:2, 2:]
    return phi, (Q + Q.T) / 2


@pytest.mark.parametrize("gamma,tau", [(1.0, 0.125), (7.07, 1.25e-4), (5.0, 0.3), (2.0, 1.0), (0.3, 4.0)])
def test_constants_match_van_loan(gamma, tau):
    c = ou_constants(gamma, tau)
    phi, Q = van_loan(gamma, tau)
    assert c.drift == pytest.approx(phi[0, 1], rel=1e-10)
    assert c.eta == pytest.approx(phi[1, 1], rel=1e-12)
    vx, cxv, vv = c.covariance()
    assert vx == pytest.approx(Q[0, 0], rel=1e-7, abs=1e-300)
    assert cxv == pytest.approx(Q[0, 1], rel=1e-7)
    assert vv == pytest.approx(Q[1, 1], rel=1e-9)


def test_small_gamma_tau_is_stable():
    # s = gamma*tau = 1e-7: Var dx = (2/3) gamma tau^3 (1 - 3s/4 + ...), the naive formula gives 0 or < 0
    gamma, tau = 1e-3, 1e-4
    c = ou_constants(gamma, tau)
    s = gamma * tau
    assert c.s_x**2 == pytest.approx((2 / 3) * gamma * tau**3 * (1 - 0.75 * s), rel=1e-9)
    assert c.s_v**2 + c.rho**2 == pytest.approx(-math.expm1(-2 * s), rel=1e-12)
    free = ou_constants(0.0, 0.5)
    assert (free.eta, free.drift, free.s_x, free.s_v) == (1.0, 0.5, 0.0, 0.0)


@pytest.mark.parametrize("t1,t2", [(0.1, 0.3), (0.0625, 0.0625), (1.0, 0.01)])
def test_semigroup_in_law(t1, t2):
    """U(t1) then U(t2) equals U(t1 + t2) in law: same transition matrix and noise covariance."""
    gamma = 1.7

    def affine(t):
        c = ou_constants(gamma, t)
        A = np.array([[1.0, c.drift], [0.0, c.eta]])
        vx, cxv, vv = c.covariance()
        return A, np.array([[vx, cxv], [cxv, vv]])

    A1, Q1 = affine(t1)
    A2, Q2 = affine(t2)
    A, Q = affine(t1 + t2)
    np.testing.assert_allclose(A2 @ A1, A, rtol=1e-12)
    np.testing.assert_allclose(A2 @ Q1 @ A2.T + Q2, Q, rtol=1e-9, atol=1e-15)


def test_u_step_monte_carlo_moments():
    """Empirical mean and covariance of one U step from a fixed (x, v) within 4 standard errors."""
    gamma, tau, n = 2.0, 0.4, 400_000
    c = ou_constants(gamma, tau)
    g = torch.Generator().manual_seed(3)
    x = torch.full((n, 1), 0.7, dtype=torch.float64)
    v = torch.full((n, 1), -1.3, dtype=torch.float64)
    x2, v2 = ou_step(x, v, c, torch.randn(2, n, 1, dtype=torch.float64, generator=g))
    phi, Q = van_loan(gamma, tau)
    mean = phi @ np.array([0.7, -1.3])
    dx, dv = (x2[:, 0].numpy() - mean[0]), (v2[:, 0].numpy() - mean[1])
    for est, exact, samples in [
        (dx.mean(), 0.0, dx), (dv.mean(), 0.0, dv),
        ((dx * dx).mean(), Q[0, 0], dx * dx), ((dx * dv).mean(), Q[0, 1], dx * dv), ((dv * dv).mean(), Q[1, 1], dv * dv),
    ]:  # fmt: skip
        se = samples.std() / math.sqrt(n)
        assert abs(est - exact) < 4 * se, (est, exact, se)
