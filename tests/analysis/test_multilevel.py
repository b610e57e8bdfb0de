"""The coupled multilevel bias estimator (paulin2025 App. D.1) against exact discrete biases.

Target: paulin2025's two-batch Gaussian (U_i = (x - mu_i)^2 / (2 s_i^2), mu = (-1, 1),
s = (0.5, 2), batches of one point, gamma = 1). The exact stationary moments of UBU and EM at
any step and schedule come from the linear recursion (analysis/stationary.py, written from
the schemes' equations, not from bnnsample.integrators); the estimator runs the registered
integrators. Test functions f(x) = (x, x^2).
"""

import math
from functools import partial

import numpy as np
import pytest
import torch

from bnnsample.analysis.multilevel import (
    CoupledBatches,
    LevelResult,
    combiner_for,
    multilevel_bias,
    ou_pair_combiner,
    run_level,
    telescope,
)
from bnnsample.analysis.stationary import em_affine, linear_scheme_moments, recorded_mixture, ubu_affine
from bnnsample.integrators.ou import ou_constants, ou_step
from bnnsample.models.analytic import GaussianMean

GAMMA = 1.0
H_I = np.array([[4.0], [0.25]])  # per-datum precisions 1/s_i^2
R_I = np.array([[-4.0], [0.25]])  # P_i mu_i
POSTERIOR = (-15 / 17, 1 / 4.25)
CHAINS, CHUNKS = 1000, 16


def potential():
    return GaussianMean(torch.tensor([-1.0, 1.0], dtype=torch.float64), torch.tensor([0.5, 2.0], dtype=torch.float64))


def f(x):
    return torch.cat([x, x * x], dim=1)


def exact_moments(scheme, kind, h, phase_step=1):
    """Exact stationary (E x, E x^2) of the scheme at step h, pooled over the recorded phases
    0, phase_step, 2 phase_step, ... of the schedule's cycle (the fine chain is recorded
    after even fine steps: phase_step 2)."""
    step = {"ubu": ubu_affine, "em": em_affine}[scheme]
    part = [[0], [1]] if kind in ("sms", "reshuffle") else None
    phases = linear_scheme_moments(partial(step, h=h, gamma=GAMMA), H_I, R_I, 0.0, 0.0, kind,
                                   2 if kind == "full" else 1, part)  # fmt: skip
    L = len(phases)
    mean, cov = recorded_mixture(phases, np.arange(0, L, phase_step) if L > 1 else [0])
    return np.array([mean[0], cov[0, 0] + mean[0] ** 2])


def exact_difference(scheme, kind, h):
    """E_h f (every coarse step recorded) - E_{h/2} f (recorded every second fine step)."""
    return exact_moments(scheme, kind, h) - exact_moments(scheme, kind, h / 2, phase_step=2)


def level(scheme, kind, h, time=200.0, coupled=True, seed=0):
    gen = torch.Generator()
    gen.manual_seed(seed)
    batches = CoupledBatches(kind, 2, 1, chains=CHAINS, generator=gen, coupled=coupled)
    x0 = torch.full((CHAINS, 1), POSTERIOR[0], dtype=torch.float64)
    return run_level(scheme, potential(), x0, h=h, gamma=GAMMA, batches=batches, steps=int(time / h),
                     burn_in=int(10 / h), test_fn=f, seed=seed, n_chunks=CHUNKS, coupled=coupled)  # fmt: skip


def test_ou_pair_combiner_is_the_composition_of_two_flows():
    """The coarse U(2 tau) fed with the combined numbers lands exactly where the fine chain's
    two U(tau) flows land, and the combined numbers are standard normal (covariance I)."""
    for gamma, tau in ((1.0, 0.0625), (7.07, 2.5e-4), (5.0, 0.3)):
        c, c2 = ou_constants(gamma, tau), ou_constants(gamma, 2 * tau)
        comb = ou_pair_combiner(gamma, tau)
        g = torch.Generator().manual_seed(1)
        x, v = (
            torch.randn(5, 3, generator=g, dtype=torch.float64),
            torch.randn(5, 3, generator=g, dtype=torch.float64),
        )
        a, b = (
            torch.randn(2, 5, 3, generator=g, dtype=torch.float64),
            torch.randn(2, 5, 3, generator=g, dtype=torch.float64),
        )
        x1, v1 = ou_step(*ou_step(x, v, c, a), c, b)
        x2, v2 = ou_step(x, v, c2, comb(a, b))
        assert torch.allclose(x1, x2, rtol=0, atol=1e-12) and torch.allclose(v1, v2, rtol=0, atol=1e-12)
        # the linear map (a1, a2, b1, b2) -> (xi1, xi2) has M M^T = I
        basis = torch.eye(4, dtype=torch.float64)
        M = torch.stack([comb(e[:2, None], e[2:, None])[:, 0] for e in basis], dim=1)
        assert torch.allclose(M @ M.T, torch.eye(2, dtype=torch.float64), atol=1e-10)
    assert combiner_for("em", 1.0, 0.1)(torch.ones(3), torch.ones(3)).allclose(torch.full((3,), math.sqrt(2)))
    with pytest.raises(ValueError, match="allowed: baoab, em, ubu"):
        combiner_for("sgld", 1.0, 0.1)


def test_coupled_iid_batches_pick_one_of_the_fine_pair():
    gen = torch.Generator().manual_seed(0)
    b = CoupledBatches("iid", 50, 3, chains=400, generator=gen)
    picks = []
    for _ in range(20):
        b1, b2, bc = b.next()
        first = (bc == b1).all(1)
        assert (first | (bc == b2).all(1)).all()
        picks.append(first.double().mean())
    assert abs(float(torch.stack(picks).mean()) - 0.5) < 0.03  # 8000 fair coins: SE 0.0056
    sms = CoupledBatches("sms", 8, 2, generator=torch.Generator().manual_seed(0))
    seen_f = {tuple(sorted(sms.fine.next().tolist())) for _ in range(8)}
    seen_c = {tuple(sorted(sms.coarse.next().tolist())) for _ in range(8)}
    assert seen_f == seen_c and len(seen_f) == 4  # one fixed partition for both chains


@pytest.mark.parametrize(
    "scheme,kind,h",
    [
        ("ubu", "full", 0.25),
        ("ubu", "sms", 0.25),
        ("ubu", "iid", 0.25),
        ("em", "full", 0.125),
        ("em", "iid", 0.125),
    ],
)
def test_level_difference_matches_exact(scheme, kind, h):
    """D(h) = E_h f - E_{h/2} f within 4 chunk SEs of the exact value, for f = x and x^2, and the
    estimate rejects a wrong pairing: the exact D of (h, h/4) is more than 5 SEs away."""
    r = level(scheme, kind, h)
    exact = exact_difference(scheme, kind, h)
    z = (r.diff - exact) / r.diff_se
    assert r.diverged == 0
    assert np.all(np.abs(z) < 4), (r.diff, exact, r.diff_se)
    wrong = exact_moments(scheme, kind, h) - exact_moments(scheme, kind, h / 4, phase_step=4 if kind == "sms" else 1)
    assert abs(r.diff[1] - wrong[1]) > 5 * r.diff_se[1], (r.diff, wrong, r.diff_se)


def test_telescoped_bias_recovers_the_bias_at_h():
    """UBU, full batch: three levels h = 0.25, 0.125, 0.0625 telescope to the bias of E x^2
    relative to h_L = 0.03125; it equals the exact value within 4 SE, and the exact bias of
    h_L itself is below 2% of the bias at 0.25 (so it is the bias at h to that accuracy).
    Also the coupling sanity check: Var(f(coarse) - f(fine)) << Var(f(coarse))."""
    x0 = torch.full((CHAINS, 1), POSTERIOR[0], dtype=torch.float64)
    res = multilevel_bias("ubu", potential(), x0, hs=[0.25, 0.125, 0.0625], gamma=GAMMA, batching="full",
                          batch_size=2, steps=lambda h: int(100 / h), burn_in=lambda h: int(10 / h), test_fn=f,
                          n_chunks=CHUNKS)  # fmt: skip
    assert res.finest == 0.03125
    post2 = POSTERIOR[1] + POSTERIOR[0] ** 2
    for k, h in enumerate(res.hs):
        exact = exact_moments("ubu", "full", h) - exact_moments("ubu", "full", res.finest)
        assert abs(res.bias[k, 1] - exact[1]) < 4 * res.se[k, 1], (h, res.bias[k], exact, res.se[k])
        assert abs(res.bias[k, 0]) < 4 * res.se[k, 0]  # UBU's mean is exact on a Gaussian
    true_bias = exact_moments("ubu", "full", 0.25)[1] - post2
    assert abs(exact_moments("ubu", "full", res.finest)[1] - post2) < 0.02 * abs(true_bias)
    assert res.se[0, 1] < 0.01 * abs(true_bias)
    # weak order 2: the telescoped bias falls about 4x per halving
    assert np.all(np.abs(res.slopes(np.abs(res.bias[:, 1]))[:1] - 2) < 0.3), res.bias[:, 1]
    for lv in res.levels:
        assert lv.var_diff[1] < 0.01 * lv.var_coarse[1]
    value, se, floor = res.mean_abs(weights=np.array([0.0, 1.0]))
    assert np.allclose(value, np.abs(res.bias[:, 1])) and np.all(se > 0) and np.all(floor < value)


def test_uncoupled_estimator_is_much_noisier():
    """Power of the coupling: the same level with independent noise and batches has chunk SEs
    many times larger (UBU full batch: x^2), and the coupled estimate is far from 0 in SEs."""
    coupled = level("ubu", "full", 0.25, time=100)
    free = level("ubu", "full", 0.25, time=100, coupled=False)
    assert free.diff_se[1] > 8 * coupled.diff_se[1], (free.diff_se, coupled.diff_se)
    assert abs(coupled.diff[1]) > 20 * coupled.diff_se[1]
    assert free.coupling_ratio() > 0.5
    assert coupled.coupling_ratio() < 0.05


def test_baoab_coupling_runs_and_tracks():
    """BAOAB's first-same-as-last force and (xi + xi')/sqrt 2 noise: the pair stays close
    (Var of the difference well below the variance) under SG batching."""
    r = level("baoab", "iid", 0.125, time=50)
    assert r.diverged == 0 and r.coupling_ratio() < 0.5


def test_bad_inputs_raise_one_line():
    one = np.zeros((4, 2))
    a, b = (LevelResult(h, one, one, one[0], one[0], 10, 0, 4) for h in (0.25, 0.0625))
    with pytest.raises(ValueError, match="levels must halve"):
        telescope([a, b])
    gen = torch.Generator().manual_seed(0)
    with pytest.raises(ValueError, match="no multilevel coupling"):
        run_level("sgld", potential(), torch.zeros(2, 1, dtype=torch.float64), h=0.1, gamma=1.0,
                  batches=CoupledBatches("full", 2, 2, generator=gen), steps=10, burn_in=0, test_fn=f)  # fmt: skip
