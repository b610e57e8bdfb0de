"""MT3 (franzese2021 App. B.5.2) and the exact linear flow (exact_ou, App. E.2), run through
the real pipeline, against the exact stationary moments of their own linear recursions on
paulin2025's two-batch Gaussian; plus MT3's weak order from its exact one-step moments.

The affine maps are built here from the schemes' equations (MT3: a scalar transcription of
eqs. 39-43 evaluated at basis points; exact_ou: scipy.linalg.expm and franzese eq. 91),
independently of bnnsample.integrators."""

import math

import numpy as np
import pytest
import scipy.linalg as sl

from bnnsample.analysis.stationary import AffineStep, cycle_moments, recorded_mixture

from ..helpers import assert_theta_matches, run_inprocess, two_batch_cycles

H = np.array([4.0, 0.25])  # per-datum precisions of paulin2025's two-batch Gaussian
R = np.array([-4.0, 0.25])  # P_i mu_i
POST_MEAN, POST_VAR = R.sum() / H.sum(), 1 / H.sum()
BURN, THIN, SAMPLES, CHAINS, STEP, GAMMA = 600, 3, 400, 4000, 0.125, 1.0
KINDS = ["full", "iid", "reshuffle", "sms"]


def mt3_equations(x, v, w1, w2, a, b, h, C):
    """franzese eqs. 39-43 with M = 1 on the force G(x) = a x - b (Hessian a); w2 given as is."""
    G = lambda t: a * t - b  # noqa: E731
    s = math.sqrt(2 * C)
    x1 = x + 7 / 24 * h * v
    v1 = (v - 7 / 24 * h * G(x1)) / (1 + 7 / 24 * h * C)
    F1 = -G(x1) - C * v1
    x2 = x + 25 / 24 * h * v + h**2 / 2 * F1
    v2 = (v + 2 / 3 * h * F1 - 3 / 8 * h * G(x2)) / (1 + 3 / 8 * h * C)
    F2 = -G(x2) - C * v2
    x3 = x + h * v + 17 / 36 * h**2 * F1 + 1 / 36 * h**2 * F2
    v3 = (v + 2 / 3 * h * F1 - 2 / 3 * h * F2 - h * G(x3)) / (1 + h * C)
    xn = x3 + h**1.5 * s * (w1 / 2 + w2) - C * h**2.5 * s * w1 / 6
    vn = v3 + h**0.5 * s * w1 - C * h**1.5 * s * (w1 / 2 + w2) - h**2.5 / 6 * a * s * w1 + h**2.5 * C**2 * s * w1 / 6
    return xn, vn


def mt3_step(a, b, h, C, w2_var=1 / 12):
    """The affine-Gaussian map of one MT3 step on z = (x, v): read off the equations at the
    origin and the unit vectors of (x, v, w1, w2)."""
    P = np.vstack([np.zeros(4), np.eye(4)])
    out = np.array(mt3_equations(*P.T, a, b, h, C)).T  # [5, 2]
    c = out[0]
    A = (out[1:3] - c).T
    Lw = (out[3:5] - c).T
    return AffineStep(A, c, Lw @ np.diag([1.0, w2_var]) @ Lw.T)


def exact_flow_step(a, b, h, C):
    """Exact flow of dx = v dt, dv = -(a x - b) dt - C v dt + sqrt(2C) dW over h (a > 0):
    z' = e^{Bh} (z - z*) + z* + N(0, S - e^{Bh} S e^{B^T h}), z* = (b/a, 0), S = diag(1/a, 1)
    (franzese eq. 91)."""
    E = sl.expm(np.array([[0.0, 1.0], [-a, -C]]) * h)
    zs = np.array([b / a, 0.0])
    S = np.diag([1 / a, 1.0])
    return AffineStep(E, zs - E @ zs, S - E @ S @ E.T)


def schedule_law(step_for, kind, phases, period=1):
    """(mean, cov) of z pooled over the recorded steps ``phases`` for a scheme on the
    two-batch target: ``step_for(Hb, rb, k)`` is the map of a step with minibatch force
    Hb x - rb at time-phase k (mod ``period``)."""
    scale = 1.0 if kind == "full" else 2.0
    combined = two_batch_cycles(kind, period)
    cache = {}

    def m(b, k):
        if (b, k % period) not in cache:
            cache[b, k % period] = step_for(scale * H[list(b)].sum(), scale * R[list(b)].sum(), k % period)
        return cache[b, k % period]

    return recorded_mixture(cycle_moments([(p, [m(b, k) for k, b in enumerate(s)]) for p, s in combined]), phases)


def draws_at():
    return BURN + THIN * np.arange(1, SAMPLES + 1)


def run(tmp_path, integrator, kind, step=STEP, seed=5, extra=()):
    path, cfg = run_inprocess(
        tmp_path,
        [f"integrator={integrator}", f"batching={kind}", "dataset=two_batch_gaussian", f"chains={CHAINS}",
         f"step_size={step}", f"friction={GAMMA}", f"burn_in={BURN}", f"thin={THIN}", f"samples={SAMPLES}",
         f"seed={seed}", "evaluate=false", *extra],
    )  # fmt: skip
    assert cfg.batching.name == kind
    return path


# -- MT3 ------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_mt3_two_batch_moments(tmp_path, kind):
    step = lambda Hb, rb, k: mt3_step(Hb, rb, STEP, GAMMA)  # noqa: E731
    mean, cov = schedule_law(step, kind, draws_at())
    m_se, v_se = assert_theta_matches(run(tmp_path, "mt3", kind), mean[0], cov[0, 0])
    other = schedule_law(step, "full" if kind == "iid" else "iid", draws_at())
    assert abs(cov[0, 0] - other[1][0, 0]) > 8 * v_se


def _local_second_moment_error(h, C=2.0, a=1.0, w2_var=1 / 12):
    """max |E z1 z1^T (MT3) - E z(h) z(h)^T (SDE)| from z0 = (1, 0.5), U = a x^2 / 2."""
    z0 = np.array([1.0, 0.5])
    s = mt3_step(a, 0.0, h, C, w2_var)
    m = s.A @ z0 + s.c
    B = np.array([[0.0, 1.0], [-a, -C]])
    van_loan = sl.expm(np.block([[-B, np.diag([0.0, 2 * C])], [np.zeros((2, 2)), B.T]]) * h)
    phi = van_loan[2:, 2:].T
    me, Qe = phi @ z0, phi @ van_loan[:2, 2:]
    return np.abs(s.Q + np.outer(m, m) - Qe - np.outer(me, me)).max()


def _slopes(errors, hs):
    e = np.asarray(errors)
    return np.log(e[:-1] / e[1:]) / np.log(np.asarray(hs[:-1]) / np.asarray(hs[1:]))


def test_mt3_weak_order():
    """Local weak error O(h^4) (order 3 + 1) and stationary variance bias O(h^3) (full batch),
    both exact through the affine map; with Var(w2) = 0 (a wrong variant) the local error is O(h^3)."""
    hs = [0.2, 0.1, 0.05]
    local = _slopes([_local_second_moment_error(h) for h in hs], hs)
    assert np.all(np.abs(local - 4) < 0.25), local
    wrong = _slopes([_local_second_moment_error(h, w2_var=0.0) for h in [0.1, 0.05, 0.025]], [0.1, 0.05, 0.025])
    assert np.all(wrong < 3.2), wrong
    hs = [0.1, 0.05, 0.025]
    bias = []
    for h in hs:
        s = mt3_step(1.0, 0.0, h, 2.0)
        bias.append(abs(sl.solve_discrete_lyapunov(s.A, s.Q)[0, 0] - 1.0))
    stat = _slopes(bias, hs)
    assert np.all(np.abs(stat - 3) < 0.35), stat


def test_mt3_one_step_matches_equations():
    """One torch MT3 step with scripted noise equals the scalar transcription of eqs. 39-43
    (3 forces and 1 HVP from one oracle)."""
    import torch

    from bnnsample.integrators import StepContext, get_integrator
    from bnnsample.integrators.base import State

    a, b, h, C = 3.0, 0.7, 0.3, 1.5
    noise = torch.tensor([[[0.4]], [[-1.1]]], dtype=torch.float64)
    calls = {"force": 0, "hvp": 0, "oracles": 0}

    class Oracle:
        def __call__(self, x):
            calls["force"] += 1
            return a * x - b

        def hvp(self, x, u):
            calls["hvp"] += 1
            return a * u

    def next_force():
        calls["oracles"] += 1
        return Oracle()

    ctx = StepContext(h=h, gamma=C, noise=lambda *shape, like: noise.clone())
    out = get_integrator("mt3").advance(State(torch.tensor([[0.8]], dtype=torch.float64),
                                              torch.tensor([[-0.3]], dtype=torch.float64)), 1, next_force, ctx)  # fmt: skip
    xn, vn = mt3_equations(0.8, -0.3, 0.4, -1.1 / math.sqrt(12), a, b, h, C)
    assert float(out.x) == pytest.approx(xn, rel=1e-12) and float(out.v) == pytest.approx(vn, rel=1e-12)
    assert calls == {"force": 3, "hvp": 1, "oracles": 1}


# -- exact_ou -------------------------------------------------------------------------------


def test_exact_ou_full_batch_is_exact_for_large_steps(tmp_path):
    """h = 1: the full-batch exact flow samples the posterior N(-15/17, 1/4.25) exactly."""
    path = run(tmp_path, "exact_ou", "full", step=1.0)
    m_se, v_se = assert_theta_matches(path, POST_MEAN, POST_VAR)
    # power: the same flow under i.i.d. minibatches has a variance many standard errors away
    step = lambda Hb, rb, k: exact_flow_step(Hb, rb, 1.0, GAMMA)  # noqa: E731
    other = schedule_law(step, "iid", draws_at())
    assert abs(other[1][0, 0] - POST_VAR) > 8 * v_se


@pytest.mark.parametrize("kind", ["iid", "reshuffle", "sms"])
def test_exact_ou_minibatch_moments(tmp_path, kind):
    step = lambda Hb, rb, k: exact_flow_step(Hb, rb, STEP, GAMMA)  # noqa: E731
    mean, cov = schedule_law(step, kind, draws_at())
    m_se, v_se = assert_theta_matches(run(tmp_path, "exact_ou", kind), mean[0], cov[0, 0])
    other = schedule_law(step, "full" if kind == "iid" else "iid", draws_at())
    assert abs(cov[0, 0] - other[1][0, 0]) > 8 * v_se or abs(mean[0] - other[0][0]) > 8 * m_se


def test_exact_ou_transition_matches_expm():
    """The torch Van Loan coefficients equal the closed form of franzese eq. 91 (and the
    Hd = 0 free-particle-with-constant-force case its own closed form)."""
    import torch

    from bnnsample.integrators.exact import exact_linear_transition

    Hd = torch.tensor([[4.0, 0.25, 0.0]], dtype=torch.float64)
    r = torch.tensor([[-4.0, 0.25, 0.3]], dtype=torch.float64)
    a, b, L = exact_linear_transition(Hd, r, 1.3, 0.7)
    for j in range(2):
        ref = exact_flow_step(float(Hd[0, j]), float(r[0, j]), 0.7, 1.3)
        np.testing.assert_allclose(a[0, j].numpy(), ref.A, atol=1e-12)
        np.testing.assert_allclose(b[0, j].numpy(), ref.c, atol=1e-12)
        np.testing.assert_allclose((L[0, j] @ L[0, j].T).numpy(), ref.Q, atol=1e-12)
    g, h = 1.3, 0.7  # Hd = 0: v' = e v + r (1 - e)/g, x' = x + (1 - e)/g v + r (h - (1 - e)/g)/g
    e = math.exp(-g * h)
    np.testing.assert_allclose(a[0, 2].numpy(), [[1, (1 - e) / g], [0, e]], atol=1e-12)
    np.testing.assert_allclose(b[0, 2].numpy(), [0.3 * (h - (1 - e) / g) / g, 0.3 * (1 - e) / g], atol=1e-12)


def test_exact_ou_rejects_nonlinear_targets(tmp_path):
    from bnnsample.plumbing.errors import UserError

    with pytest.raises(ValueError, match="model=NoisyGradientGaussian.*gaussian_mean") as e:
        run_inprocess(tmp_path, ["integrator=exact_ou", "dataset=noisy_gaussian", "chains=2", "burn_in=1",
                                 "samples=1", "evaluate=false"])  # fmt: skip
    assert isinstance(e.value, UserError)
