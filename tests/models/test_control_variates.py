"""The control-variate force estimator (paulin2025 §2.2 eq. 8): unbiased, exact at the
reference, less noisy near it, and run through the pipeline it keeps the exact stationary law
of its own linear recursion."""

import numpy as np
import pytest
import torch

from bnnsample.analysis.stationary import linear_scheme_moments, recorded_mixture, ubu_affine
from bnnsample.models.logistic import LogisticRegression
from bnnsample.potential import ControlVariate, Oracle, covariance_factor

from ..helpers import assert_theta_matches, run_inprocess

D = torch.float64


def logistic(N=12, d=3, seed=0):
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(N, d, generator=g, dtype=D)
    y = (torch.rand(N, generator=g, dtype=D) < torch.sigmoid(a @ torch.ones(d, dtype=D))).long()
    return LogisticRegression(a, y, prior_precision=0.5)


def points(C, d, seed, sd=1.0):
    return sd * torch.randn(C, d, generator=torch.Generator().manual_seed(seed), dtype=D)


@pytest.mark.parametrize("shared_ref", [False, True])
def test_unbiased_over_all_batches_and_exact_at_reference(shared_ref):
    base = logistic()
    C, N, n = 4, base.n_data, 3
    ref = points(1, base.dim, 1)[0] if shared_ref else points(C, base.dim, 1)
    cv = ControlVariate(base, ref, chunk=5)  # G_ref summed over uneven chunks
    x = points(C, base.dim, 2)
    full = base.force(x, None, 1.0)
    # a partition into N/n batches, each used with scale N/n: the average is the full gradient
    partition = torch.randperm(N, generator=torch.Generator().manual_seed(3)).view(N // n, n)
    avg = sum(cv.force(x, b, N / n) for b in partition) / len(partition)
    assert torch.allclose(avg, full, rtol=1e-12, atol=1e-12)
    # per-chain batches (each chain its own batch of one datum): average over all N
    avg1 = sum(cv.force(x, torch.full((C, 1), i), float(N)) for i in range(N)) / N
    assert torch.allclose(avg1, full, rtol=1e-12, atol=1e-12)
    # the batch's sampling noise vanishes at the reference: the estimate is the full gradient
    r = ref.expand(C, -1) if shared_ref else ref
    for b in partition:
        assert torch.allclose(cv.force(r, b, N / n), base.force(r, None, 1.0), rtol=1e-12, atol=1e-12)
    # per-datum gradients are differences, the Hessian is the base's
    pd = cv.per_datum_grads(x, partition[0])
    assert torch.allclose(pd, base.per_datum_grads(x, partition[0]) - base.per_datum_grads(r, partition[0]))
    u = points(C, base.dim, 4)
    assert torch.equal(cv.hvp(x, u, partition[0], N / n), base.hvp(x, u, partition[0], N / n))


def test_noise_smaller_near_reference():
    """Exact covariance of the estimator over i.i.d. batches (eps(n) x per-datum covariance)
    at points ever further from the reference: far below the plain estimator's near it."""
    base = logistic(N=400, d=5)
    ref = points(1, base.dim, 5)
    cv = ControlVariate(base, ref)
    n = 10
    eps = covariance_factor(n, base.n_data, with_replacement=True)
    traces = []
    for dist in (0.01, 0.1, 1.0):
        x = ref + dist * points(1, base.dim, 6) / points(1, base.dim, 6).norm()
        plain = Oracle(base, None, base.n_data / n, eps).covariance(x).diagonal().sum()
        with_cv = Oracle(cv, None, base.n_data / n, eps).covariance(x).diagonal().sum()
        traces.append((float(with_cv), float(plain)))
        assert with_cv < plain
    (near, plain_near), (mid, _), (far, _) = traces
    assert near < 1e-3 * plain_near
    assert near < mid < far  # grows like the squared distance to the reference
    assert 50 < mid / near < 200


H = np.array([[4.0], [0.25]])
R = np.array([[-4.0], [0.25]])
BURN, THIN, SAMPLES, CHAINS, STEP = 600, 3, 400, 4000, 0.125


def test_sms_ubu_with_control_variate_exact_moments(tmp_path):
    """two_batch_gaussian (init zeros, so x_ref = 0): the control-variate force is
    G_S(x) = 2 H_S x - sum_i r_i (grad U_i = H_i x - r_i), affine with a random slope and a
    fixed intercept. Its exact SMS-UBU stationary law differs from both the full-batch law
    and the plain SMS law; the run must match it."""
    path, cfg = run_inprocess(
        tmp_path,
        ["integrator=sms_ubu", "dataset=two_batch_gaussian", "control_variate=true", f"chains={CHAINS}",
         f"step_size={STEP}", f"burn_in={BURN}", f"thin={THIN}", f"samples={SAMPLES}", "seed=11"],
    )  # fmt: skip
    assert cfg.batching.name == "sms"
    draws = BURN + THIN * np.arange(1, SAMPLES + 1)
    step = lambda Hm, r: ubu_affine(Hm, r, STEP, 1.0)  # noqa: E731

    def law(kind, r_i, r0):
        part = [[0], [1]] if kind == "sms" else None
        return recorded_mixture(linear_scheme_moments(step, H, r_i, 0.0, r0, kind, 1, part), draws)

    mean, cov = law("sms", np.zeros_like(R), R.sum(0))
    m_se, v_se = assert_theta_matches(path, mean[0], cov[0, 0])
    full_mean, full_cov = law("full", R, 0.0)
    plain_mean, plain_cov = law("sms", R, 0.0)
    # power: the full-batch and the plain-SMS laws are many standard errors away
    assert abs(cov[0, 0] - full_cov[0, 0]) > 8 * v_se or abs(mean[0] - full_mean[0]) > 8 * m_se
    assert abs(cov[0, 0] - plain_cov[0, 0]) > 8 * v_se or abs(mean[0] - plain_mean[0]) > 8 * m_se


def test_control_variate_on_equal_precisions_is_the_full_force(tmp_path):
    """gaussian_points with equal noise: every grad U_i has the same slope, so the
    control-variate estimate is the full force at every x and SMS-UBU follows the
    full-batch UBU law exactly (the plain SMS law is many standard errors away)."""
    y, sd = [-2.0, -0.5, 1.0, 3.0], 1.0
    path, _ = run_inprocess(
        tmp_path,
        ["integrator=sms_ubu", "dataset=gaussian_points", f"dataset.y={y}", f"dataset.noise_sd={sd}", "batch_size=2",
         "model=gaussian_mean", "init=zeros", "unit=step", "dtype=float64", "friction=1.0",
         "control_variate=true", f"chains={CHAINS}", f"step_size={STEP * 2}", f"burn_in={BURN}", f"thin={THIN}",
         f"samples={SAMPLES}", "seed=12"],
    )  # fmt: skip
    Hi = np.full((4, 1), 1 / sd**2)
    Ri = np.array(y)[:, None] / sd**2
    draws = BURN + THIN * np.arange(1, SAMPLES + 1)
    step = lambda Hm, r: ubu_affine(Hm, r, STEP * 2, 1.0)  # noqa: E731
    mean, cov = recorded_mixture(linear_scheme_moments(step, Hi, Ri, 0.0, 0.0, "full", 4), draws)
    m_se, v_se = assert_theta_matches(path, mean[0], cov[0, 0])
    plain = recorded_mixture(linear_scheme_moments(step, Hi, Ri, 0.0, 0.0, "iid", 2), draws)
    assert abs(plain[1][0, 0] - cov[0, 0]) > 8 * v_se


def test_cached_reference_gradients_equal_recomputed_ones_with_batchnorm():
    """The per-batch gradients at x_ref are computed once and looked up from the step's batch
    (authors' code): the force equals the recomputing estimator for every batch of an sms
    sweep, on a BatchNorm network with one reference per chain, at one base gradient per call
    instead of two. Schedules with i.i.d. batches (no fixed partition) fall back."""
    from bnnsample.batching import Schedule
    from bnnsample.models.cnn import ARCHITECTURES
    from bnnsample.models.network import ClassifierPotential

    g = torch.Generator().manual_seed(0)
    xs, ys = torch.rand(50, 1, 8, 8, generator=g), torch.randint(3, (50,), generator=g)
    torch.manual_seed(0)
    net = ClassifierPotential(ARCHITECTURES["cnn_small"](in_channels=1, n_classes=3, image_size=8), xs, ys, xs[:5])
    sched = Schedule("sms", 50, 10, generator=torch.Generator().manual_seed(1))
    ref = net.layout.flatten(net.module)[None] + 0.01 * torch.randn(2, net.dim, generator=g)
    cached = ControlVariate(net, ref, batches=sched._fixed)
    plain = ControlVariate(net, ref, batches=sched._fixed, cache_limit=0)
    assert cached.cached and not plain.cached
    torch.testing.assert_close(cached.ref_force, plain.ref_force)
    calls = {"n": 0}
    force = net.force

    def counting(*a):
        calls["n"] += 1
        return force(*a)

    net.force = counting
    x = ref + 0.05 * torch.randn(2, net.dim, generator=g)
    for _ in range(2 * sched.n_batches):
        idx = sched.next()
        assert any(torch.equal(idx, row) for row in sched._fixed)  # a row of the partition
        before = calls["n"]
        a = cached.force(x, idx, sched.scale)
        assert calls["n"] - before == 1
        b = plain.force(x, idx, sched.scale)
        assert calls["n"] - before == 3
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-3 * float(b.abs().max()))
    # power: looking up the wrong batch's reference gradient is far off
    wrong = cached._cache[(cached._batch_of[idx[0]] + 1) % sched.n_batches]
    off = force(x, idx, sched.scale) - torch.add(cached._prior_ref, wrong, alpha=sched.scale) + cached.ref_force
    assert (off - b).abs().max() > 100 * (a - b).abs().max()
    iid = Schedule("iid", 50, 10, generator=torch.Generator().manual_seed(1))
    assert not ControlVariate(net, ref, batches=iid._fixed).cached


def test_cached_reference_gradients_per_chain_batches():
    """Per-chain batches [C, n] (analytic targets) look up each chain's own batch."""
    from bnnsample.batching import Schedule

    base = logistic(N=12)
    sched = Schedule("sms", 12, 3, chains=4, generator=torch.Generator().manual_seed(2))
    for ref in (points(4, base.dim, 1), points(1, base.dim, 1)[0]):
        cached = ControlVariate(base, ref, batches=sched._fixed)
        plain = ControlVariate(base, ref, batches=sched._fixed, cache_limit=0)
        assert cached.cached
        x = points(4, base.dim, 3)
        for _ in range(8):
            idx = sched.next()
            assert idx.shape == (4, 3)
            torch.testing.assert_close(cached.force(x, idx, 4.0), plain.force(x, idx, 4.0), rtol=1e-12, atol=1e-12)
