"""Fused kicks: product models add their force into a velocity the step made (``add_force_``),
and the Euler-type updates (EM, SGLD, ABOBA, LEAPFROG) and UBU's kick are built around it.

The fused force is held to ``out + alpha force`` (float64); the schemes on the fused path are
held to the exact stationary moments of their own discrete recursions on a linear-Gaussian
target whose model accumulates (within 4 Monte Carlo standard errors, with the power to tell
i.i.d. batches from the full batch); targets that do not accumulate keep the numbers of the
unfused updates bit for bit (the committed GPU runs of networks were made with them)."""

import math

import numpy as np
import pytest
import torch

from bnnsample.analysis.stationary import linear_scheme_moments, ubu_affine
from bnnsample.integrators import StepContext, get_integrator
from bnnsample.integrators.base import State
from bnnsample.models.logistic import LogisticRegression
from bnnsample.models.toys import LinearGaussian
from bnnsample.plumbing.rng import GaussianNoise
from bnnsample.potential import Localized, Oracle
from bnnsample.simulate import draws
from bnnsample.stats import chain_mean_se, chain_var_se

from .test_splitting_exact import aboba_step, em_step, leapfrog_step, sgld_step

D = torch.float64


def _logistic(N=40, d=5, C=6, seed=0):
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(N, d, generator=g, dtype=D)
    y = (torch.rand(N, generator=g, dtype=D) < 0.5).long()
    return LogisticRegression(a, y, prior_precision=0.7), torch.randn(C, d, generator=g, dtype=D), g


def _linear(N=40, d=5, C=6, seed=1):
    g = torch.Generator().manual_seed(seed)
    phi = torch.randn(N, d, generator=g, dtype=D)
    y = torch.randn(N, generator=g, dtype=D)
    return LinearGaussian(phi, y, noise_var=0.3, prior_precision=1.3), torch.randn(C, d, generator=g, dtype=D), g


@pytest.mark.parametrize("build", [_logistic, _linear, "localized"])
@pytest.mark.parametrize("kind", ["full", "shared", "per_chain"])
def test_add_force_is_the_force_added(build, kind):
    if build == "localized":
        base, x, g = _logistic()
        pot = Localized(base, torch.randn(x.shape, generator=g, dtype=D), 2.5)
        assert pot.accumulates
    else:
        pot, x, g = build()
    C, N = x.shape[0], pot.n_data
    idx = {"full": None, "shared": torch.randperm(N, generator=g)[:8],
           "per_chain": torch.stack([torch.randperm(N, generator=g)[:8] for _ in range(C)])}[kind]  # fmt: skip
    scale = 1.0 if idx is None else N / 8
    out = torch.randn(x.shape, generator=g, dtype=D)
    want = out + (-0.37) * pot.force(x, idx, scale)
    got = Oracle(pot, idx, scale).add_to_(out.clone(), x, -0.37)
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)


# a 1-D Bayesian linear regression of two data points: per-datum precision phi_i^2 / s2 and
# prior precision lam0 in every batch's force, the two-batch structure of paulin2025 Fig. 1
PHI, Y, S2, LAM0 = np.array([2.0, 0.5]), np.array([-1.0, 0.5]), 1.0, 1.0
H_I, R_I = (PHI**2 / S2)[:, None], (PHI * Y / S2)[:, None]
STEP, GAMMA, BURN, THIN, RECORDS, CHAINS = 0.1, 1.0, 600, 3, 400, 4000
MAPS = {
    "em": lambda H, r: em_step(H[0, 0], r[0], STEP, GAMMA),
    "aboba": lambda H, r: aboba_step(H[0, 0], r[0], STEP, GAMMA),
    "leapfrog": lambda H, r: leapfrog_step(H[0, 0], r[0], STEP, GAMMA),
    "sgld": lambda H, r: sgld_step(H[0, 0], r[0], STEP, GAMMA),
    "ubu": lambda H, r: ubu_affine(H, r, STEP, GAMMA),
}


def _exact(scheme: str, kind: str) -> tuple[float, float]:
    ((mean, cov),) = linear_scheme_moments(MAPS[scheme], H_I, R_I, LAM0, 0.0, kind, 1 if kind == "iid" else 2)
    return float(mean[0]), float(cov[0, 0])


@pytest.mark.parametrize("scheme", sorted(MAPS))
def test_fused_schemes_match_their_exact_stationary_law(scheme):
    pot = LinearGaussian(torch.tensor(PHI[:, None]), torch.tensor(Y), noise_var=S2, prior_precision=LAM0)
    assert pot.accumulates
    rec, diverged = draws(pot, scheme, {}, chains=CHAINS, h=STEP, gamma=GAMMA, burn_in=BURN, thin=THIN,
                          records=RECORDS, batching="iid", batch_size=1, seed=3)  # fmt: skip
    assert not diverged.any()
    theta = rec.T  # [C, R]
    m, m_se = chain_mean_se(theta)
    v, v_se = chain_var_se(theta)
    mean, var = _exact(scheme, "iid")
    assert abs(m - mean) < 4 * m_se, (m, mean, m_se)
    assert abs(v - var) < 4 * v_se, (v, var, v_se)
    # the comparison has power: the full-batch law of the same scheme is many standard errors away
    assert abs(_exact(scheme, "full")[1] - var) > 8 * v_se


class _NotAccumulating(LinearGaussian):
    accumulates = False


@pytest.mark.parametrize("scheme", ["em", "aboba", "leapfrog", "sgld", "ubu"])
def test_targets_that_do_not_accumulate_keep_the_unfused_numbers(scheme):
    """The same step with the fused path switched off equals, bit for bit, the update written
    out as before: c v - h G, then + std xi (EM shown; the others through their kicks), and the
    fused path gives the same chain to rounding."""
    pot, x, _ = _linear()
    plain = _NotAccumulating(pot.phi, pot.y, pot.noise_var, pot.lam0)
    idx = torch.arange(8)

    def run(p):
        ctx = StepContext(h=0.05, gamma=2.0, noise=GaussianNoise("cpu", 5))
        st = State(x.clone(), torch.full_like(x, 0.3))
        out = get_integrator(scheme).advance(st, 3, lambda: Oracle(p, idx, 5.0), ctx)
        return out.x, out.v

    fused, unfused = run(pot), run(plain)
    torch.testing.assert_close(fused, unfused, rtol=1e-12, atol=1e-12)
    if scheme == "em":
        noise = GaussianNoise("cpu", 5)
        xx, v = x.clone(), torch.full_like(x, 0.3)
        h, gamma = 0.05, 2.0
        for _ in range(3):
            f = plain.force(xx, idx, 5.0)
            xi = noise(*xx.shape, like=xx)
            v_new = (v * (1 - h * gamma)).add_(f, alpha=-h).add_(xi, alpha=math.sqrt(2 * gamma * h))
            xx, v = torch.add(xx, v, alpha=h), v_new
        assert torch.equal(unfused[0], xx) and torch.equal(unfused[1], v)
