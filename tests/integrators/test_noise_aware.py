"""NOGIN, mSGLD and SGHMC (bnnsample.integrators.noise_aware), float64.

1. Exact stationary moments on a Gaussian mean with 4 equal-noise points, batch 2, under
   full, iid, reshuffle and sms batching: each batch's per-datum gradients x - y_i differ by
   constants, so Sigma-hat is constant per batch and every step is affine. The affine maps
   are written here from the schemes' equations, Sigma-hat is computed here per batch
   (numpy cov, ddof 1, times eps(n)).
2. Identities: NOGIN(Sigma = 0) = matthews' ABOBA in law (fails for a wrong lambda);
   Lemma 4.2 Gaussian exactness under state-dependent gradient noise (fails for a fresh R in
   the second half kick); identity (12) for lines 5-7.
3. The low-rank and dense paths of Gamma~ agree.
"""

import math

import numpy as np
import pytest
import torch

from bnnsample.analysis.stationary import (
    AffineStep,
    batch_sequences,
    cycle_moments,
    recorded_mixture,
)
from bnnsample.evaluate.metrics import chain_mean_se, chain_var_se
from bnnsample.integrators import StepContext, get_integrator
from bnnsample.integrators.base import State
from bnnsample.integrators.noise_aware import (
    NOGIN,
    gamma_tilde_dense,
    gamma_tilde_lowrank,
)
from bnnsample.potential import GradientCovariance

from ..helpers import assert_theta_matches, run_inprocess

Y = np.array([-1.0, 0.0, 0.5, 2.0])  # dataset.y, noise_sd 1, prior precision 0
N, BATCH = 4, 2
BURN, THIN, SAMPLES, CHAINS, STEP, GAMMA = 200, 3, 300, 2000, 0.125, 1.0


def lin(A, c=None, q=None):
    A = np.asarray(A, float)
    m = A.shape[0]
    return AffineStep(A, np.zeros(m) if c is None else np.asarray(c, float),
                      np.zeros((m, m)) if q is None else np.asarray(q, float))  # fmt: skip


# One step of each scheme for the batch force G(x) = Hb x - rb with Sigma-hat = S (d = 1).


def nogin_step(Hb, rb, S, h, gamma, lam2=None):
    """matthews Alg. 1 on z = (x, v, R): A(h/2); R ~ N(0, 1); v += -(h/2) G + lam R;
    v *= ((1 - lam^2) - a S)/((1 + lam^2) + a S); v += -(h/2) G + lam R (same R); A(h/2)."""
    lam2 = math.tanh(gamma * h / 2) if lam2 is None else lam2
    lam, a = math.sqrt(lam2), h * h / 4
    A = lin([[1, h / 2, 0], [0, 1, 0], [0, 0, 1]])
    draw = lin(np.diag([1.0, 1.0, 0.0]), q=np.diag([0.0, 0.0, 1.0]))
    K = lin([[1, 0, 0], [-h / 2 * Hb, 1, lam], [0, 0, 1]], c=[0, h / 2 * rb, 0])
    Gam = lin(np.diag([1.0, (1 - lam2 - a * S) / (1 + lam2 + a * S), 1.0]))
    return A.then(draw).then(K).then(Gam).then(K).then(A)


def msgld_step(Hb, rb, S, h, gamma):
    """x' = x - h G(x) + sqrt(2h)(1 - (h/4) S) xi on z = (x,)."""
    return lin([[1 - h * Hb]], c=[h * rb], q=[[2 * h * (1 - h * S / 4) ** 2]])


def sghmc_step(Hb, rb, S, h, gamma):
    """x' = x + h v; v' = v - h G(x') - h gamma v + sqrt(2h max(gamma - h S/2, 0)) xi on z = (x, v)."""
    A = lin([[1, h], [0, 1]])
    K = lin([[1, 0], [-h * Hb, 1 - h * gamma]], c=[0, h * rb], q=np.diag([0, 2 * h * max(gamma - h * S / 2, 0.0)]))
    return A.then(K)


def em_step(Hb, rb, S, h, gamma):
    """Fully explicit Euler-Maruyama (force at the OLD x): not SGHMC's law."""
    return lin([[1, h], [-h * Hb, 1 - h * gamma]], c=[0, h * rb], q=np.diag([0, 2 * gamma * h]))


MAPS = {"nogin": nogin_step, "msgld": msgld_step, "sghmc": sghmc_step, "em": em_step,
        "sghmc_none": lambda Hb, rb, S, h, gamma: sghmc_step(Hb, rb, 0.0, h, gamma)}  # fmt: skip


def batch_map(scheme, batch, kind, ignore_sigma=False):
    idx = list(batch)
    scale = 1.0 if kind == "full" else N / BATCH
    eps = 0.0 if kind == "full" else (N * (N - 1) / BATCH if kind == "iid" else N * (N - BATCH) / BATCH)
    Hb = scale * len(idx)  # per-datum precision 1
    rb = scale * Y[idx].sum()
    S = 0.0 if ignore_sigma else eps * np.cov(Y[idx], ddof=1)
    return MAPS[scheme](Hb, rb, S, STEP, GAMMA)


def exact(scheme, kind, partition=None, ignore_sigma=False):
    seqs = batch_sequences(kind, N, BATCH, partition)
    phases = cycle_moments([(p, [batch_map(scheme, b, kind, ignore_sigma) for b in s]) for p, s in seqs])
    return recorded_mixture(phases, BURN + THIN * np.arange(1, SAMPLES + 1))


CASES = [
    ("nogin", "nogin"), ("sg_nogin", "nogin"), ("nogin batching=reshuffle", "nogin"), ("sms_nogin", "nogin"),
    ("msgld batching=full", "msgld"), ("msgld", "msgld"), ("msgld batching=reshuffle", "msgld"),
    ("msgld batching=sms", "msgld"), ("sghmc batching=full", "sghmc"), ("sghmc", "sghmc"),
    ("sghmc batching=reshuffle", "sghmc"), ("sghmc batching=sms", "sghmc"),
    ("sghmc integrator.noise_correction=none", "sghmc_none"),
]  # fmt: skip


@pytest.mark.parametrize("preset,scheme", CASES)
def test_gaussian_points_moments(tmp_path, preset, scheme):
    path, cfg = run_inprocess(
        tmp_path,
        [*f"integrator={preset}".split(), "dataset=gaussian_points", f"dataset.y={Y.tolist()}", "dataset.noise_sd=1",
         f"batch_size={BATCH}", f"chains={CHAINS}", f"step_size={STEP}", f"friction={GAMMA}", f"burn_in={BURN}",
         f"thin={THIN}", f"samples={SAMPLES}", "seed=5", "evaluate=false"],
    )  # fmt: skip
    kind = cfg.batching.name
    part = None
    if kind in ("reshuffle", "sms"):  # the run's fixed partition of the data into batches
        from bnnsample.store import SampleStore

        with SampleStore(path) as s:
            part = s.read_state()["schedule/fixed_partition"].tolist()
    mean, cov = exact(scheme, kind, part)
    m_se, v_se = assert_theta_matches(path, mean[0], cov[0, 0])
    # power: the scheme without its Sigma-hat term (full batch: under iid batches; sghmc_none:
    # with it) and, for sghmc, the fully explicit em are many standard errors away
    if kind == "full":
        others = [exact(scheme, "iid")]
    elif scheme == "sghmc_none":
        others = [exact("sghmc", kind, part)]
    else:
        others = [exact(scheme, kind, part, ignore_sigma=True)]
    if scheme.startswith("sghmc"):
        others.append(exact("em", kind, part))
    from bnnsample.store import SampleStore

    with SampleStore(path) as s:
        th = s.theta()[:, :, 0]
    print(
        f"\nMOMENTS {preset}: exact mean {mean[0]:.5f} var {cov[0, 0]:.5f}; measured {th.mean():.5f} "
        f"{chain_var_se(th)[0]:.5f}; se {m_se:.5f} {v_se:.5f}; z {(th.mean() - mean[0]) / m_se:.2f} "
        f"{(chain_var_se(th)[0] - cov[0, 0]) / v_se:.2f}; "
        + " ".join(f"other z {(om[0] - mean[0]) / m_se:.1f} {(oc[0, 0] - cov[0, 0]) / v_se:.1f}" for om, oc in others)
    )
    for om, oc in others:
        assert abs(oc[0, 0] - cov[0, 0]) > 8 * v_se or abs(om[0] - mean[0]) > 8 * m_se


# -- identities ----------------------------------------------------------------------------


class FakeOracle:
    """G(x) = H x - r (+ L zeta, zeta ~ N(0, I), when L is given) with covariance Sigma."""

    def __init__(self, H, r, sigma, L=None, gen=None):
        self.H, self.r, self.sigma, self.L, self.gen = H, r, sigma, L, gen

    def __call__(self, x):
        g = x @ self.H.T - self.r
        if self.L is not None:
            g = g + torch.randn(x.shape, generator=self.gen, dtype=x.dtype) @ self.L.T
        return g

    def force_and_covariance(self, x):
        return self(x), GradientCovariance(dense=self.sigma.expand(x.shape[0], -1, -1))


class WrongLambda(NOGIN):
    """lambda_h^2 = tanh(gamma h) in place of lambda_{h/2}^2 = tanh(gamma h / 2)."""

    def lambda2(self, ctx):
        return math.tanh(ctx.gamma * ctx.h)


class FreshR(NOGIN):
    """The known bug: an independent R in line 7."""

    def half_kicks(self, v, g, noise, cov, lam, lam2, ctx):
        half = ctx.h / 2
        from bnnsample.integrators.noise_aware import apply_gamma_tilde

        v = v - half * g + lam * noise
        v = apply_gamma_tilde(v, cov, lam2, half * half)
        return v - half * g + lam * ctx.normal(*v.shape, like=v)


def one_step_loading(integ, x0, v0, H, r, h, gamma):
    """One step from (x0, v0) with the Gaussian draw set to 0 and to 1: (mean, noise loading)."""
    out = []
    for val in (0.0, 1.0):
        ctx = StepContext(
            h=h, gamma=gamma, noise=lambda *shape, like, val=val: torch.full(shape, val, dtype=like.dtype)
        )
        oracle = FakeOracle(H, r, torch.zeros(1, 1, 1, dtype=torch.float64))
        s = integ.advance(State(x0.clone(), v0.clone()), 1, lambda o=oracle: o, ctx)
        out.append(np.array([float(s.x), float(s.v)]))
    return out[0], out[1] - out[0]


@pytest.mark.parametrize("h,gamma", [(0.5, 1.0), (0.3, 4.0)])
def test_nogin_without_noise_is_matthews_aboba(h, gamma):
    """With Sigma = 0 one NOGIN step from a fixed state is A(h/2) B(h/2) O(h) B(h/2) A(h/2) (exact
    O) in law: same mean and the same rank-one noise covariance (one Gaussian draw each)."""
    Hs, rs = 2.0, 0.5
    x0 = torch.tensor([[0.3]], dtype=torch.float64)
    v0 = torch.tensor([[-0.7]], dtype=torch.float64)
    H, r = torch.tensor([[Hs]], dtype=torch.float64), torch.tensor([rs], dtype=torch.float64)
    e = math.exp(-gamma * h)
    A = lin([[1, h / 2], [0, 1]])
    B = lin([[1, 0], [-h / 2 * Hs, 1]], c=[0, h / 2 * rs])
    O = lin([[1, 0], [0, e]], q=np.diag([0, 1 - e * e]))
    ab = A.then(B).then(O).then(B).then(A)
    mean_ab = ab.A @ np.array([0.3, -0.7]) + ab.c
    mean, load = one_step_loading(get_integrator("nogin"), x0, v0, H, r, h, gamma)
    np.testing.assert_allclose(mean, mean_ab, rtol=0, atol=1e-13)
    np.testing.assert_allclose(np.outer(load, load), ab.Q, rtol=0, atol=1e-13)
    _, wrong = one_step_loading(WrongLambda(), x0, v0, H, r, h, gamma)
    print(
        f"\nABOBA h={h} gamma={gamma}: Var v' nogin {load[1] ** 2:.12f} aboba {ab.Q[1, 1]:.12f} "
        f"wrong lambda {wrong[1] ** 2:.6f}; mean diff {np.abs(mean - mean_ab).max():.1e}"
    )
    assert abs(np.outer(wrong, wrong)[1, 1] - ab.Q[1, 1]) > 1e-3


def run_noisy_gaussian(integ, h, chains=4000, burn_time=20.0, time=100.0, seed=0):
    """NOGIN-type integrator on matthews' toy N(0, 1) with noise std 1 - cos(1 + 5 x), exact
    Sigma(x), gamma = 1: (draws of x [C, T], mean of v^2 at the end of steps)."""
    from bnnsample.models.analytic import NoisyGradientGaussian
    from bnnsample.plumbing.rng import GaussianNoise
    from bnnsample.potential import Oracle

    pot = NoisyGradientGaussian(dim=1, sigma_model="cosine", seed=seed + 1)
    ctx = StepContext(h=h, gamma=1.0, noise=GaussianNoise("cpu", seed))
    state = integ.init_state(torch.zeros(chains, 1, dtype=torch.float64), ctx)

    def next_force():
        return Oracle(pot, None, 1.0, 0.0)

    state = integ.advance(state, int(burn_time / h), next_force, ctx)
    xs, v2 = [], []
    for _ in range(int(time / h)):
        state = integ.advance(state, 1, next_force, ctx)
        xs.append(state.x[:, 0].clone())
        v2.append(state.v[:, 0] ** 2)
    return torch.stack(xs, 1).numpy(), torch.stack(v2, 1).numpy()


@pytest.mark.parametrize("h", [0.125, 0.25, 0.5])
def test_nogin_gaussian_exact_under_state_dependent_noise(h):
    """Lemma 4.2: Var x = 1 for every h; E[v^2] at the end of a step = 1/(1 - h^2/4). The
    variant with a fresh R in line 7 is many standard errors away (an independent check: -0.34 to -0.46)."""
    x, v2 = run_noisy_gaussian(get_integrator("nogin"), h)
    m, m_se = chain_mean_se(x)
    var, v_se = chain_var_se(x)
    assert abs(m) < 4 * m_se, (m, m_se)
    assert abs(var - 1) < 4 * v_se, (var, v_se)
    p2, p2_se = chain_mean_se(v2)
    assert abs(p2 - 1 / (1 - h * h / 4)) < 4 * p2_se, (p2, p2_se)
    xw, _ = run_noisy_gaussian(FreshR(), h, time=50.0)
    var_w, vw_se = chain_var_se(xw)
    print(
        f"\nLEMMA42 h={h}: mean {m:.5f} (se {m_se:.5f}) var {var:.5f} (se {v_se:.5f}) E[p^2] {p2:.5f} "
        f"(se {p2_se:.5f}, exact {1 / (1 - h * h / 4):.5f}); fresh R var {var_w:.5f} (se {vw_se:.5f})"
    )
    assert abs(var_w - 1) > 8 * max(v_se, vw_se), (var_w, vw_se)


def test_nogin_identity_12():
    """After lines 5-7, v has mean Gamma~ p - (h/2)(I + Gamma~) G and covariance I - Gamma~^2
    (matthews eq. 12; G = -F), for d = 2, a full Sigma and Gaussian gradient noise of that
    covariance. A fresh R in line 7 gives a covariance many standard errors away."""
    h, gamma, C = 0.8, 0.7, 200_000
    sigma = np.array([[3.0, 1.2], [1.2, 1.5]])
    Hm, r = np.array([[1.0, 0.3], [0.3, 2.0]]), np.array([0.4, -0.2])
    x0, p = np.array([0.5, -1.0]), np.array([0.9, 0.2])
    lam2, a = math.tanh(gamma * h / 2), h * h / 4
    I = np.eye(2)
    gam = np.linalg.solve(((1 + lam2) * I + a * sigma).T, ((1 - lam2) * I - a * sigma).T).T
    G = Hm @ (x0 + h / 2 * p) - r  # at the midpoint
    mean_exact = gam @ p - h / 2 * (I + gam) @ G
    cov_exact = I - gam @ gam

    def t(a_):
        return torch.tensor(a_, dtype=torch.float64)

    gen = torch.Generator().manual_seed(3)
    oracle = FakeOracle(t(Hm), t(r), t(sigma)[None], L=t(np.linalg.cholesky(sigma)), gen=gen)
    from bnnsample.plumbing.rng import GaussianNoise

    def moments(integ, seed):
        ctx = StepContext(h=h, gamma=gamma, noise=GaussianNoise("cpu", seed))
        s = integ.advance(State(t(x0).expand(C, 2).clone(), t(p).expand(C, 2).clone()), 1, lambda: oracle, ctx)
        v = s.v.numpy()
        return v.mean(0), np.cov(v, rowvar=False)

    mean, cov = moments(get_integrator("nogin"), 1)
    # standard errors of a sample mean and covariance of a Gaussian with covariance cov_exact
    m_se = np.sqrt(np.diag(cov_exact) / C)
    c_se = np.sqrt((cov_exact**2 + np.outer(np.diag(cov_exact), np.diag(cov_exact))) / C)
    assert np.all(np.abs(mean - mean_exact) < 4 * m_se), (mean, mean_exact, m_se)
    assert np.all(np.abs(cov - cov_exact) < 4 * c_se), (cov, cov_exact, c_se)
    _, cov_w = moments(FreshR(), 2)
    print(
        f"\nIDENTITY12 mean {mean} exact {mean_exact}; cov {cov.ravel()} exact {cov_exact.ravel()}; "
        f"max z mean {np.max(np.abs(mean - mean_exact) / m_se):.2f} cov {np.max(np.abs(cov - cov_exact) / c_se):.2f}; "
        f"fresh R cov {cov_w.ravel()} max z {np.max(np.abs(cov_w - cov_exact) / c_se):.1f}"
    )
    assert np.max(np.abs(cov_w - cov_exact) / c_se) > 8


# -- low-rank path -------------------------------------------------------------------------


@pytest.mark.parametrize("k,d", [(3, 7), (1, 4), (9, 5)])
def test_gamma_tilde_lowrank_equals_dense(k, d):
    gen = torch.Generator().manual_seed(k * 10 + d)
    C = 6
    B = torch.randn(C, k, d, generator=gen, dtype=torch.float64) * 2.0
    p = torch.randn(C, d, generator=gen, dtype=torch.float64)
    lam2, a = math.tanh(0.3), 0.2  # h^2 Sigma / 4 large enough for negative eigenvalues of Gamma~
    lo = gamma_tilde_lowrank(p, B, lam2, a)
    de = gamma_tilde_dense(p, B.transpose(1, 2) @ B, lam2, a)
    torch.testing.assert_close(lo, de, rtol=0, atol=1e-10)
    # and both equal the explicit formula (eigenvalues of Gamma~ may be negative: no clipping)
    S = (B.transpose(1, 2) @ B).numpy()
    I = np.eye(d)
    ref = np.stack(
        [np.linalg.inv((1 + lam2) * I + a * S[c]) @ ((1 - lam2) * I - a * S[c]) @ p[c].numpy() for c in range(C)]
    )
    np.testing.assert_allclose(de.numpy(), ref, rtol=0, atol=1e-10)
    assert min(np.linalg.eigvalsh(np.linalg.inv((1 + lam2) * I + a * S[c]) @ ((1 - lam2) * I - a * S[c])).min()
               for c in range(C)) < 0  # fmt: skip


@pytest.mark.parametrize("k,d", [(2, 5), (6, 3)])
def test_sghmc_clipped_root_paths_agree(k, d):
    """(gamma I - c Sigma)_+^{1/2} u by the factor route and the dense route equal the explicit
    matrix function, and the clipped eigenvalues are counted."""
    from bnnsample.integrators.noise_aware import (
        _clipped_root_lowrank,
        clipped_noise_root,
    )

    gen = torch.Generator().manual_seed(k + d)
    C, gamma, c = 5, 1.0, 0.3
    B = torch.randn(C, k, d, generator=gen, dtype=torch.float64) * 1.5
    u = torch.randn(C, d, generator=gen, dtype=torch.float64)
    S = (B.transpose(1, 2) @ B).numpy()
    ref, nclip = [], []
    for i in range(C):
        s, w = np.linalg.eigh(gamma * np.eye(d) - c * S[i])
        ref.append(w @ np.diag(np.sqrt(np.clip(s, 0, None))) @ w.T @ u[i].numpy())
        nclip.append(int((s < 0).sum()))
    assert sum(nclip) > 0
    out_d, k_d = clipped_noise_root(u, GradientCovariance(dense=torch.tensor(S)), gamma, c)
    np.testing.assert_allclose(out_d.numpy(), np.stack(ref), rtol=0, atol=1e-10)
    assert k_d.tolist() == nclip
    if k <= d:
        out_l, k_l = _clipped_root_lowrank(u, B, gamma, c)
        np.testing.assert_allclose(out_l.numpy(), np.stack(ref), rtol=0, atol=1e-10)
        assert k_l.tolist() == nclip
    diag = torch.tensor(np.abs(S[:, 0, :]))
    out_g, k_g = clipped_noise_root(u, GradientCovariance(diag=diag), gamma, c)
    rest = gamma - c * diag.numpy()
    np.testing.assert_allclose(out_g.numpy(), u.numpy() * np.sqrt(np.clip(rest, 0, None)), rtol=0, atol=1e-12)
    assert k_g.tolist() == (rest < 0).sum(1).tolist()


def test_sghmc_clipped_root_of_an_overflowing_chain_is_nan_and_the_others_unchanged():
    """A chain whose gradients overflow B B^T in float32 (entries near 1e20, as franzese2021's breast_cancer
    SGHMC batch 8 at h = 0.32) gets NaN noise, flagged diverged by the sampler, instead of LAPACK's eigh
    failing and stopping every chain; the other chains' noise is what they get alone (factor and dense routes)."""
    from bnnsample.integrators.noise_aware import _clipped_root_lowrank, clipped_noise_root

    gen = torch.Generator().manual_seed(3)
    C, k, d, gamma, c = 3, 8, 50, 1.0, 0.1
    B = torch.randn(C, k, d, generator=gen)
    B[1] *= 1e20
    u = torch.randn(C, d, generator=gen)
    assert not torch.isfinite(B[1] @ B[1].T).all()
    keep = [0, 2]
    for out, k_ in (_clipped_root_lowrank(u, B, gamma, c),
                    clipped_noise_root(u, GradientCovariance(dense=B.transpose(1, 2) @ B), gamma, c)):  # fmt: skip
        assert torch.isnan(out[1]).all()
        alone, k_alone = _clipped_root_lowrank(u[keep], B[keep], gamma, c)
        torch.testing.assert_close(out[keep], alone, rtol=1e-5, atol=1e-5)
        assert k_[keep].tolist() == k_alone.tolist()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name", ["nogin", "msgld", "sghmc"])
def test_low_rank_minibatch_steps_run(name, dtype):
    """d = 3 with batches of 2 (the factor path, k <= d), both dtypes; sghmc counts clipping."""
    from bnnsample.models.analytic import GaussianMean
    from bnnsample.plumbing.rng import GaussianNoise
    from bnnsample.potential import Oracle

    y = torch.tensor([[-3.0, 0, 1], [0, 2, 0], [1, 1, -1], [4, -2, 0]], dtype=dtype)
    pot = GaussianMean(y, torch.tensor(1.0, dtype=dtype))
    gen = torch.Generator().manual_seed(0)

    def next_force():
        return Oracle(pot, torch.randint(4, (16, 2), generator=gen), 2.0, 6.0)

    ctx = StepContext(h=0.5, gamma=1.0, noise=GaussianNoise("cpu", 0))
    integ = get_integrator(name)
    state = integ.advance(integ.init_state(torch.zeros(16, 3, dtype=dtype), ctx), 50, next_force, ctx)
    assert state.x.dtype == dtype and torch.isfinite(state.x).all() and torch.isfinite(state.v).all()
    if name == "sghmc":
        assert int(state.extra["noise_clipped"].sum()) > 0  # h s / 2 > gamma for the far-apart pairs


def test_sghmc_rejects_unknown_noise_correction():
    with pytest.raises(ValueError, match="noise_correction"):
        get_integrator("sghmc", noise_correction="diag")
