"""The affine-map probe reads the real integrators' steps exactly and rejects non-affine ones."""

import numpy as np
import pytest
import torch

from bnnsample.analysis.probe import NotAffine, ProbeError, probe_step
from bnnsample.analysis.stationary import (
    baoab_affine,
    batch_sequences,
    cycle_moments,
    em_affine,
    linear_scheme_moments,
    ubu_affine,
)  # fmt: skip
from bnnsample.integrators import get_integrator
from bnnsample.integrators.base import Integrator, State
from bnnsample.models.analytic import GaussianMean

# paulin2025 §3.4, Fig. 1: grad U_i(x) = H_i x - r_i, H = 1/sd^2, r = y/sd^2
Y, SD = [-1.0, 1.0], [0.5, 2.0]
H, R = np.array([4.0, 0.25]), np.array([-4.0, 0.25])
MAPS = {"ubu": ubu_affine, "baoab": baoab_affine, "em": em_affine}


def potential():
    return GaussianMean(torch.tensor(Y, dtype=torch.float64), torch.tensor(SD, dtype=torch.float64))


# (batch index or None, force scale, H, r of the estimated potential)
BATCHES = [(None, 1.0, H.sum(), R.sum()), ([0], 2.0, 2 * H[0], 2 * R[0]), ([1], 2.0, 2 * H[1], 2 * R[1])]


@pytest.mark.parametrize("name", sorted(MAPS))
@pytest.mark.parametrize("batch,scale,Hb,rb", BATCHES)
def test_probe_matches_independent_affine_maps(name, batch, scale, Hb, rb):
    h, gamma = 0.3, 1.3
    idx = None if batch is None else torch.tensor(batch)
    p = probe_step(lambda: get_integrator(name), potential(), [idx], scale=scale, eps=0.0, h=h, gamma=gamma)
    ref = MAPS[name](np.array([[Hb]]), np.array([rb]), h, gamma)
    assert [s.name for s in p.layout.slots] == (["x", "v", "g"] if name == "baoab" else ["x", "v"])
    np.testing.assert_allclose(p.A, ref.A, rtol=0, atol=1e-12)
    np.testing.assert_allclose(p.c, ref.c, rtol=0, atol=1e-12)
    np.testing.assert_allclose(p.Q, ref.Q, rtol=0, atol=1e-12)


def test_probed_cycle_moments_match_stationary_engine():
    """SMS-UBU on the two-batch target: probe + cycle_moments == linear_scheme_moments."""
    h, gamma = 0.25, 1.0
    pot = potential()
    maps = {b: probe_step(lambda: get_integrator("ubu"), pot, [torch.tensor([b])], scale=2.0, eps=0.0, h=h,
                          gamma=gamma).affine_step() for b in (0, 1)}  # fmt: skip
    seqs = batch_sequences("sms", 2, 1, [[0], [1]])
    got = cycle_moments([(p, [maps[b[0]] for b in s]) for p, s in seqs])
    want = linear_scheme_moments(lambda Hm, r: ubu_affine(Hm, r, h, gamma), H[:, None], R[:, None], 0.0, 0.0,
                                 "sms", 1, [[0], [1]])  # fmt: skip
    assert len(got) == len(want) == 4
    for (m1, c1), (m2, c2) in zip(got, want):
        np.testing.assert_allclose(m1, m2, atol=1e-12)
        np.testing.assert_allclose(c1, c2, atol=1e-12)


class _Quadratic(Integrator):
    """x' = x + h v, v' = v - h G(x) - h x^2 + xi: not affine (deliberately)."""

    name = "quadratic_toy"

    def advance(self, state, n, next_force, ctx):
        x, v = state.x, state.v
        for _ in range(n):
            v = v - ctx.h * next_force()(x) - ctx.h * x**2 + ctx.normal(*x.shape, like=x)
            x = x + ctx.h * v
        return State(x, v, state.extra)


class _NoiseTimesState(Integrator):
    """v' = v - h G(x) + x xi: affine in z for fixed noise, but not jointly in (z, xi)."""

    name = "multiplicative_toy"

    def advance(self, state, n, next_force, ctx):
        v = state.v - ctx.h * next_force()(state.x) + state.x * ctx.normal(*state.x.shape, like=state.x)
        return State(state.x + ctx.h * v, v, state.extra)


class _SharedNoise(Integrator):
    """One noise draw shared by every chain: the probe cannot separate the chains."""

    name = "shared_noise_toy"

    def advance(self, state, n, next_force, ctx):
        next_force()
        return State(state.x + ctx.normal(1, like=state.x), state.v, state.extra)


@pytest.mark.parametrize("cls", [_Quadratic, _NoiseTimesState])
def test_probe_rejects_non_affine_steps(cls):
    with pytest.raises(NotAffine):
        probe_step(cls, potential(), [None], scale=1.0, eps=0.0, h=0.1, gamma=1.0)


def test_probe_rejects_noise_shared_by_chains():
    with pytest.raises(ProbeError, match="chain axis"):
        probe_step(_SharedNoise, potential(), [None], scale=1.0, eps=0.0, h=0.1, gamma=1.0)


def test_probe_checks_the_number_of_minibatches():
    with pytest.raises(ProbeError, match="minibatch"):
        probe_step(lambda: get_integrator("ubu"), potential(), [None, None], scale=1.0, eps=0.0, h=0.1, gamma=1.0)
