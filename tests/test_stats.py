"""bnnsample.stats.chain_acf against the known autocorrelations of a stationary AR(1)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bnnsample.stats import chain_acf


def _ar1(phi: float, chains: int, draws: int, points: int, seed: int) -> np.ndarray:
    """Stationary AR(1) chains x_t = phi x_{t-1} + sqrt(1 - phi^2) e_t, x_0 ~ N(0, 1), shifted by 3: (C, D, P)."""
    rng = np.random.default_rng(seed)
    x = np.empty((chains, draws, points))
    x[:, 0] = rng.standard_normal((chains, points))
    for t in range(1, draws):
        x[:, t] = phi * x[:, t - 1] + math.sqrt(1 - phi * phi) * rng.standard_normal((chains, points))
    return x + 3.0


@pytest.mark.parametrize("phi", [0.6, -0.3, 0.0])
def test_chain_acf_of_ar1(phi):
    """rho(1) = phi and rho(2) = phi^2 within 4 s.e. per series (Bartlett's formula for an AR(1), n draws:
    Var rho-hat(k) = [(1 + phi^2)(1 - phi^2k) / (1 - phi^2) - 2 k phi^2k] / n); phi^2 (the lag-2 value) is many
    s.e. from the lag-1 estimate when phi is not 0."""
    x = _ar1(phi, chains=200, draws=100, points=3, seed=1)
    n = 200 * 99
    se1, se2 = (math.sqrt(((1 + phi**2) * (1 - phi ** (2 * k)) / (1 - phi**2) - 2 * k * phi ** (2 * k)) / n)
                for k in (1, 2))  # fmt: skip
    r1, r2 = chain_acf(x, 1), chain_acf(x, 2)
    assert r1.shape == (3,)
    assert np.all(np.abs(r1 - phi) < 4 * se1), (r1, phi)
    assert np.all(np.abs(r2 - phi**2) < 4 * se2), r2
    if phi:
        assert np.all(np.abs(r1 - phi**2) > 8 * se1)


def test_chain_acf_pairs_within_chains_only():
    """Chains that are constant but differ from each other have rho(1) = 1 (the pooled mean); independent draws ~ 0;
    a 2-D input gives a scalar; a lag as long as the chains is refused."""
    x = np.repeat(np.arange(5.0)[:, None], 4, axis=1)
    assert float(chain_acf(x)) == pytest.approx(1.0)
    iid = np.random.default_rng(0).standard_normal((100, 50))
    assert abs(float(chain_acf(iid))) < 4 / math.sqrt(100 * 49)
    with pytest.raises(ValueError, match="lag"):
        chain_acf(x, 4)
