"""Adaptive SGHMC (Springenberg et al. 2016) and cyclical SG-HMC (Zhang et al. 2020) on
paulin2025's two-batch Gaussian, against the exact moments of their own linear recursions
(affine maps written here from the update equations); plus unit tests of the adaptation
rule and of the cosine cycle."""

import math

import numpy as np
import pytest

from bnnsample.analysis.stationary import AffineStep, cycle_moments, recorded_mixture
from bnnsample.evaluate.metrics import chain_mean_se, chain_var_se
from bnnsample.store import SampleStore

from ..helpers import assert_theta_matches, run_inprocess, two_batch_cycles

H = np.array([4.0, 0.25])
R = np.array([-4.0, 0.25])
KINDS = ["full", "iid", "reshuffle", "sms"]


def forces(kind, b):
    scale = 1.0 if kind == "full" else 2.0
    return scale * H[list(b)].sum(), scale * R[list(b)].sum()


# -- adaptive SGHMC ---------------------------------------------------------------------------

LR, MDECAY = 0.25, 0.2
A_BURN, A_THIN, A_SAMPLES, A_CHAINS, A_SKIP = 1000, 3, 500, 3000, 100


def adaptive_step(Hb, rb, m, lr=LR, mdecay=MDECAY, lr4=True):
    """pysgmcmc SGHMC with frozen M^{-1} = m on z = (x, v):
    v' = (1 - mdecay) v - lr^2 m (Hb x - rb) + sigma xi,  x' = x + v',
    sigma^2 = 2 lr^2 mdecay m - lr^4."""
    k = lr**2 * m
    s2 = max(2 * lr**2 * mdecay * m - (lr**4 if lr4 else 0.0), 1e-16)
    A = np.array([[1 - k * Hb, 1 - mdecay], [-k * Hb, 1 - mdecay]])
    return AffineStep(A, np.array([k * rb, k * rb]), s2 * np.ones((2, 2)))


def adaptive_law(kind, ms, phases, **kw):
    """Pooled (mean, var) of x over chains with frozen preconditioners ``ms`` (one per chain)."""
    cycles = two_batch_cycles(kind, 1)
    means, seconds = [], []
    for m in ms:
        ph = cycle_moments([(p, [adaptive_step(*forces(kind, b), m, **kw) for b in s]) for p, s in cycles])
        mu, cov = recorded_mixture(ph, phases)
        means.append(mu[0])
        seconds.append(cov[0, 0] + mu[0] ** 2)
    mean = float(np.mean(means))
    return mean, float(np.mean(seconds)) - mean**2


@pytest.mark.parametrize("kind", KINDS)
def test_sghmc_adaptive_post_burn_in_moments(tmp_path, kind):
    path, cfg = run_inprocess(
        tmp_path,
        ["integrator=sghmc_adaptive", f"batching={kind}", "dataset=two_batch_gaussian", f"chains={A_CHAINS}",
         f"step_size={LR}", f"integrator.mdecay={MDECAY}", f"burn_in={A_BURN}", f"thin={A_THIN}",
         f"samples={A_SAMPLES}", "seed=3", "evaluate=false"],
    )  # fmt: skip
    with SampleStore(path) as s:
        v_hat = s.read_state()["tensor/v_hat"][:, 0]
        theta = s.theta()[:, A_SKIP:, 0]  # the first draws relax to the frozen law
        assert not s.diverged().any()
    ms = 1 / np.sqrt(v_hat)
    assert np.ptp(ms) > 0  # adapted per chain
    phases = A_BURN + A_THIN * np.arange(A_SKIP + 1, A_SAMPLES + 1)
    mean, var = adaptive_law(kind, ms, phases)
    m, m_se = chain_mean_se(theta)
    v, v_se = chain_var_se(theta)
    assert abs(m - mean) < 4 * m_se, (m, mean, m_se)
    assert abs(v - var) < 4 * v_se, (v, var, v_se)
    # power: ignoring the adaptation (m = 1) or another schedule gives laws many SE away
    unadapted = adaptive_law(kind, [1.0], phases)
    other = adaptive_law("full" if kind == "iid" else "iid", ms[:200], phases)
    assert abs(unadapted[1] - var) > 8 * v_se
    assert abs(other[1] - var) > 8 * v_se or abs(other[0] - mean) > 8 * m_se


def _pysgmcmc_reference(gradients, burn_in, lr, mdecay, noise):
    """Scalar transcription of pysgmcmc's SGHMC step (iteration counted from 1, adapt while
    iteration <= burn_in) for scripted gradients g(x) and noise draws."""
    tau = gm = v_hat = 1.0
    x, mom = 0.3, 0.0
    for k, (grad, xi) in enumerate(zip(gradients, noise)):
        gradient = grad(x)
        r_t = 1 / (tau + 1)
        minv = 1 / math.sqrt(v_hat)
        if k + 1 <= burn_in:
            tau = tau - tau * gm * gm / v_hat + 1
            gm = gm - gm * r_t + r_t * gradient
            v_hat = v_hat - v_hat * r_t + r_t * gradient**2
        sigma = math.sqrt(max(2 * lr**2 * mdecay * minv - lr**4, 1e-16))
        mom = mom - lr**2 * minv * gradient - mdecay * mom + sigma * xi
        x = x + mom
    return x, mom, tau, gm, v_hat


@pytest.mark.parametrize("blocks", [[20], [3, 4, 5, 8], [7, 13]])
def test_sghmc_adaptive_rule_and_freeze(blocks):
    """The adaptation follows pysgmcmc, runs for the first burn_in global steps only (blocks
    straddling the end of burn-in are split) and is frozen afterwards."""
    import torch

    from bnnsample.integrators import StepContext, get_integrator

    burn_in, lr, mdecay = 9, 0.3, 0.1
    rng = np.random.default_rng(0)
    noise = rng.standard_normal(20)
    grads = [(lambda x, a=a, b=b: a * x - b) for a, b in rng.uniform(0.5, 3.0, size=(20, 2))]
    integ = get_integrator("sghmc_adaptive", mdecay=mdecay)
    it = iter(noise)
    ctx = StepContext(h=lr, gamma=1.0, noise=lambda *shape, like: torch.full(shape, next(it), dtype=like.dtype),
                      burn_in=burn_in)  # fmt: skip
    state = integ.init_state(torch.tensor([[0.3]], dtype=torch.float64), ctx)
    assert float(state.v) == 0.0
    gi = iter(grads)
    step = 0
    for n in blocks:
        ctx.step = step
        state = integ.advance(state, n, lambda: next(gi), ctx)
        step += n
    x, mom, tau, gm, v_hat = _pysgmcmc_reference(grads, burn_in, lr, mdecay, noise)
    assert float(state.x) == pytest.approx(x, rel=1e-12)
    assert float(state.v) == pytest.approx(mom, rel=1e-12)
    assert float(state.extra["tau"]) == pytest.approx(tau, rel=1e-12)
    assert float(state.extra["g"]) == pytest.approx(gm, rel=1e-12)
    assert float(state.extra["v_hat"]) == pytest.approx(v_hat, rel=1e-12)
    # a different burn-in gives different adapted values (the split point matters)
    assert _pysgmcmc_reference(grads, burn_in + 1, lr, mdecay, noise)[4] != pytest.approx(v_hat, rel=1e-6)


# -- cyclical SG-HMC --------------------------------------------------------------------------

C_STEP, C_GAMMA, C_K = 0.125, 2.0, 8
C_BURN, C_THIN, C_SAMPLES, C_CHAINS = 600, 3, 400, 4000


def cyclical_em_step(Hb, rb, k, h=C_STEP, gamma=C_GAMMA, K=C_K, explore=0.0, cosine=True):
    """EM with h_k = h/2 (cos(pi (k mod K)/K) + 1); noise only when (k mod K)/K >= explore."""
    hk = h / 2 * (math.cos(math.pi * (k % K) / K) + 1) if cosine else h
    q = 2 * gamma * hk if (k % K) / K >= explore else 0.0
    return AffineStep(np.array([[1, hk], [-hk * Hb, 1 - hk * gamma]]), np.array([0.0, hk * rb]), np.diag([0.0, q]))


def cyclical_law(kind, phases, **kw):
    cycles = two_batch_cycles(kind, C_K)
    ph = cycle_moments([(p, [cyclical_em_step(*forces(kind, b), k, **kw) for k, b in enumerate(s)])
                        for p, s in cycles])  # fmt: skip
    return recorded_mixture(ph, phases)


@pytest.mark.parametrize("kind,explore", [("full", 0.0), ("iid", 0.0), ("reshuffle", 0.0), ("sms", 0.0),
                                          ("iid", 0.25)])  # fmt: skip
def test_cyclical_sghmc_moments(tmp_path, kind, explore):
    path, cfg = run_inprocess(
        tmp_path,
        ["integrator=cyclical_sghmc", f"batching={kind}", "dataset=two_batch_gaussian", f"chains={C_CHAINS}",
         f"step_size={C_STEP}", f"friction={C_GAMMA}", f"integrator.cycle_length={C_K}",
         f"integrator.exploration={explore}", f"burn_in={C_BURN}", f"thin={C_THIN}", f"samples={C_SAMPLES}",
         "seed=9", "evaluate=false"],
    )  # fmt: skip
    phases = C_BURN + C_THIN * np.arange(1, C_SAMPLES + 1)
    mean, cov = cyclical_law(kind, phases, explore=explore)
    m_se, v_se = assert_theta_matches(path, mean[0], cov[0, 0])
    # power: the constant-step EM law (no cycle), and without/with the exploration stage
    plain = cyclical_law(kind, phases, cosine=False, explore=explore)
    assert abs(plain[1][0, 0] - cov[0, 0]) > 8 * v_se
    if explore:
        assert abs(cyclical_law(kind, phases)[1][0, 0] - cov[0, 0]) > 8 * v_se


def test_cyclical_step_sizes_and_epochs():
    import torch

    from bnnsample.integrators import StepContext, get_integrator
    from bnnsample.integrators.adaptive import cyclical_step_size
    from bnnsample.integrators.base import State

    assert [cyclical_step_size(1.0, k, 4) for k in range(5)] == pytest.approx([1.0, 0.8535534, 0.5, 0.1464466, 1.0])

    class Oracle:
        scale = 3.0  # N/n: an epoch is 3 steps

        def __call__(self, x):
            return torch.zeros_like(x)

    # zero force and noise, gamma = 0: x advances by sum_k h_k v over the steps
    integ = get_integrator("cyclical_sghmc", cycle_length=2, cycle_unit="epoch")
    ctx = StepContext(h=0.1, gamma=0.0, noise=lambda *s, like: torch.zeros(*s, dtype=like.dtype), step=4)
    out = integ.advance(State(torch.zeros(1, 1, dtype=torch.float64), torch.ones(1, 1, dtype=torch.float64)),
                        5, Oracle, ctx)  # fmt: skip
    assert float(out.x) == pytest.approx(sum(cyclical_step_size(0.1, k, 6) for k in range(4, 9)), rel=1e-12)
    for bad in [dict(cycle_length=0), dict(cycle_unit="sweep"), dict(exploration=1.0)]:
        with pytest.raises(ValueError, match=next(iter(bad))):
            get_integrator("cyclical_sghmc", **bad)
