"""Integrators that use an estimate of the gradient-noise covariance Sigma-hat.

    nogin   matthews2018 Algorithm 1 (A B~ O B~ A), Gaussian-exact under gradient noise
    msgld   matthews2018 §5 (the authors' code): SGLD with the injected noise shrunk by Sigma-hat
    sghmc   Chen, Fox & Guestrin 2014 SGHMC with the noise correction B-hat = h Sigma-hat / 2

Sign convention: the oracle returns G = grad U (energy gradient); the papers' force is
F = grad log pi = -G. Covariances are the same. Sigma-hat comes from the same minibatch as
the force (``oracle.force_and_covariance``) as a GradientCovariance: a factor B [C, k, d]
with Sigma = B^T B (the minibatch estimate), a diagonal, or a dense matrix; each scheme has
a path for each form and never forms a d x d matrix from a factor with k <= d.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from ..potential import GradientCovariance
from .base import Force, Integrator, State, StepContext, register
from .langevin import drift, kick_with
from .scalars import scaled


def nogin_lambda2(gamma: float, h: float) -> float:
    """lambda^2 of matthews Algorithm 1: (1 - e^{-gamma h}) / (1 + e^{-gamma h}) = tanh(gamma h / 2)."""
    return math.tanh(gamma * h / 2)


def gamma_tilde_dense(p: torch.Tensor, sigma: torch.Tensor, lam2: float, a: float) -> torch.Tensor:
    """Gamma~ p with Gamma~ = ((1 - lam2) I - a Sigma)((1 + lam2) I + a Sigma)^{-1} (matthews eq. 13,
    a = h^2/4), Sigma [C, d, d], by one linear solve. The two factors commute, and
    (1 - lam2) I - a Sigma = 2 I - ((1 + lam2) I + a Sigma), so Gamma~ p = 2 M^{-1} p - p with
    M = (1 + lam2) I + a Sigma (symmetric, eigenvalues >= 1 + lam2)."""
    eye = torch.eye(p.shape[1], dtype=p.dtype, device=p.device)
    m = torch.mul(sigma, a).add_(eye, alpha=1 + lam2)
    # solve_ex: no error check, so no device-to-host sync (m is positive definite)
    return torch.linalg.solve_ex(m, p[..., None])[0][..., 0].mul_(2).sub_(p)


def gamma_tilde_lowrank(p: torch.Tensor, factor: torch.Tensor, lam2: float, a: float) -> torch.Tensor:
    """Gamma~ p for Sigma = B^T B, B = ``factor`` [C, k, d], in O(k^2 d + k^3) per chain.

    The low-rank route that matthews2018 §3 suggests ("a low rank approximation of Sigma"):
    with B B^T = W diag(s) W^T (the nonzero eigenvalues of Sigma), Gamma~ p = c0 p + sum_k (g(s_k) - c0) v_k v_k^T p with
    c0 = (1 - lam2)/(1 + lam2) and g(s) = (1 - lam2 - a s)/(1 + lam2 + a s). Since
    g(s) - c0 = -2 a s / ((1 + lam2)(1 + lam2 + a s)) and v_k = B^T w_k / sqrt(s_k), the sum
    is -(2a/(1 + lam2)) B^T W diag(1/(1 + lam2 + a s)) W^T B p
      = -(2a/(1 + lam2)) B^T ((1 + lam2) I_k + a B B^T)^{-1} B p     (Woodbury),
    so one k x k Cholesky solve gives exactly the eigendecomposition route, with no division
    by s (zero and rounding-negative eigenvalues of B B^T are harmless).
    """
    hi = 1 + lam2
    eye = torch.eye(factor.shape[1], dtype=p.dtype, device=p.device)
    k = torch.baddbmm(eye.expand(factor.shape[0], -1, -1), factor, factor.transpose(1, 2), beta=hi, alpha=a)
    bp = factor @ p[..., None]  # [C, k, 1]
    y = torch.cholesky_solve(bp, torch.linalg.cholesky_ex(k)[0])  # k is positive definite: no check, no sync
    return scaled(p, (1 - lam2) / hi).sub_((factor.transpose(1, 2) @ y)[..., 0], alpha=2 * a / hi)


def apply_gamma_tilde(p: torch.Tensor, cov: GradientCovariance, lam2: float, a: float) -> torch.Tensor:
    """Gamma~ p by the cheapest exact path: elementwise for a diagonal Sigma, the low-rank route
    for a factor with k <= d, a dense solve otherwise. Gamma~ is never clipped: its eigenvalues
    (g(s) in (-1, 1)) are negative where lam2 + a s > 1 (derived for this project)."""
    if cov.diag is not None:
        s = cov.diag * a
        return p * (1 - lam2 - s) / (1 + lam2 + s)
    if cov.factor is not None and cov.factor.shape[1] <= p.shape[1]:
        return gamma_tilde_lowrank(p, cov.factor, lam2, a)
    return gamma_tilde_dense(p, cov.to_dense(), lam2, a)


@register
class NOGIN(Integrator):
    """NOGIN, matthews2018 §3, eqs. 7-13 and Algorithm 1, the string A B~ O B~ A. In our sign
    convention (G = -F, p = v, a = h^2/4, lambda^2 = tanh(gamma h / 2)):

        3: x <- x + (h/2) v
        4: G, Sigma-hat <- oracle at x (ONE minibatch),  R ~ N(0, I)
        5: v <- v - (h/2) G + lambda R
        6: v <- ((1 - lambda^2) I - a Sigma)((1 + lambda^2) I + a Sigma)^{-1} v     (eq. 13)
        7: v <- v - (h/2) G + lambda R          the SAME G and the SAME R as in line 5
        8: x <- x + (h/2) v

    One force and one covariance estimate per step, at the midpoint; one Gaussian draw.
    After lines 5-7, v has mean Gamma~ v - (h/2)(I + Gamma~) G_true and covariance
    I - Gamma~^2 (identity (12)). With Sigma = 0, Gamma~ = e^{-gamma h} I and the step equals
    matthews' ABOBA, A(h/2) B(h/2) O(h) B(h/2) A(h/2) with the exact O, in law (not this
    package's ``aboba``, which is Chen's SGHMC-S). On a Gaussian target with Gaussian gradient
    noise of any state-dependent covariance the x-marginal is exact for every stable h
    (Lemma 4.2). Line 6 is applied by a linear solve (``apply_gamma_tilde``), never clipped.
    A boundary acts after the first drift, before the force.
    """

    name = "nogin"
    needs = ("covariance",)
    summary = "matthews2018 NOGIN (A B~ O B~ A): gradient-noise-aware, one force + covariance per step"

    def lambda2(self, ctx: StepContext) -> float:
        return nogin_lambda2(ctx.gamma, ctx.h)

    def half_kicks(self, v, g, noise, cov, lam: float, lam2: float, ctx: StepContext):
        """Lines 5-7 of Algorithm 1."""
        half = ctx.h / 2
        v = kick_with(v, g, half).add_(noise, alpha=lam)
        v = apply_gamma_tilde(v, cov, lam2, half * half)
        return kick_with(v, g, half).add_(noise, alpha=lam)

    def advance(self, state: State, n: int, next_force: Callable[[], Force], ctx: StepContext) -> State:
        x, v = state.x, state.v
        half = ctx.h / 2
        lam2 = self.lambda2(ctx)
        lam = math.sqrt(lam2)
        for _ in range(n):
            x = drift(x, v, half)
            if ctx.boundary is not None:
                x, v = ctx.boundary(x, v)
            g, cov = next_force().force_and_covariance(x)
            v = self.half_kicks(v, g, ctx.normal(*x.shape, like=x), cov, lam, lam2, ctx)
            x = drift(x, v, half)
        return State(x, v, state.extra)


@register
class MSGLD(Integrator):
    """mSGLD, matthews2018 §5 (the authors' code; the paper gives no equations):

        authors:  theta <- theta + eps F~ + sqrt(2 eps) (I - (eps/4) Sigma~) R,   eps = dt^2 / 2
        ours:     x <- x - h G(x) + sqrt(2h) (I - (h/4) Sigma-hat(x)) xi

    Mapping: our ``step_size`` h is the authors' eps = dt^2/2 (the SGLD step in our convention
    x <- x - h G + sqrt(2h) xi), i.e. their dt = sqrt(2h); G = -F~. G and Sigma-hat come from
    the same minibatch at the current x. The injected noise covariance is
    2h (I - (h/4) Sigma)^2 = 2h I - h^2 Sigma + O(h^3), which with the gradient noise h^2 Sigma
    sums to 2h I + O(h^3). (I - (h/4) Sigma) may have negative eigenvalues (h Sigma > 4); the
    noise covariance stays positive semidefinite, nothing is clipped. The velocity is unused
    and kept at zero.
    """

    name = "msgld"
    needs = ("covariance",)
    summary = "matthews2018 mSGLD: SGLD with injected noise sqrt(2h)(I - (h/4) Sigma-hat) xi"

    def init_state(self, x, ctx: StepContext) -> State:
        return State(x=x.clone(), v=torch.zeros_like(x))

    def advance(self, state: State, n: int, next_force: Callable[[], Force], ctx: StepContext) -> State:
        x, h = state.x, ctx.h
        noise = math.sqrt(2 * h)
        for _ in range(n):
            g, cov = next_force().force_and_covariance(x)
            xi = ctx.normal(*x.shape, like=x)
            xi = xi.sub_(cov.matvec(xi), alpha=h / 4)
            x = kick_with(x, g, h).add_(xi, alpha=noise)
            if ctx.boundary is not None:
                x, _ = ctx.boundary(x, state.v)
        return State(x, state.v, state.extra)


NOISE_CORRECTIONS = ("none", "estimate")


def _finite_gram(m: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(``m`` [C, k, k] with each chain's matrix that holds a NaN or an infinity replaced by the identity, those
    chains [C] bool). A chain whose gradients grow so large that Sigma-hat (or B B^T) overflows has diverged in
    all but name, and LAPACK's eigh can fail on its matrix and stop every chain of the run (franzese2021
    breast_cancer, SGHMC batch 8 at h = 0.32: gradients near 1e22, B B^T infinite in float32): it is
    decomposed as the identity instead, and the caller gives it NaN noise, so the sampler's non-finite test
    flags it diverged at the block's end while the other chains go on. No host sync."""
    bad = ~torch.isfinite(m).flatten(1).all(1)
    eye = torch.eye(m.shape[-1], dtype=m.dtype, device=m.device)
    return torch.where(bad[:, None, None], eye, m), bad


def _clipped_root_lowrank(u, factor, gamma: float, c: float):
    """(gamma I - c B^T B)_+^{1/2} u and the number of clipped eigenvalues per chain.

    With B B^T = W diag(s) W^T: (gamma I - c Sigma)_+^{1/2} = sqrt(gamma) I
    + B^T W diag(phi(s)) W^T B, phi(s) = (sqrt(max(gamma - c s, 0)) - sqrt(gamma)) / s, written
    as -c / (sqrt(gamma - c s) + sqrt(gamma)) where unclipped (no division by s). A chain whose
    B B^T is not finite gets NaN (``_finite_gram``)."""
    gram, bad = _finite_gram(factor @ factor.transpose(1, 2))
    s, w = torch.linalg.eigh(gram)
    rest = gamma - c * s
    ok = rest >= 0
    root_g = math.sqrt(gamma)
    phi = torch.where(ok, -c / (rest.clamp_min(0).sqrt() + root_g), -root_g / torch.where(ok, 1.0, s))
    coef = w.transpose(1, 2) @ (factor @ u[..., None])  # [C, k, 1]
    out = torch.mul(u, root_g).add_((factor.transpose(1, 2) @ (w @ (phi[..., None] * coef)))[..., 0])
    return out.masked_fill_(bad[:, None], math.nan), (~ok).sum(1)


def clipped_noise_root(u: torch.Tensor, cov: GradientCovariance, gamma: float, c: float):
    """(gamma I - c Sigma)_+^{1/2} u, Sigma given by ``cov`` (eigenvalues of gamma I - c Sigma
    below 0 set to 0), and the number of clipped eigenvalues per chain [C]; NaN for a chain whose
    Sigma (or B B^T, by the factor) is not finite (``_finite_gram``)."""
    if cov.diag is not None:
        rest = gamma - c * cov.diag
        return u * rest.clamp_min(0).sqrt(), (rest < 0).sum(1)
    if cov.factor is not None and cov.factor.shape[1] <= u.shape[1]:
        return _clipped_root_lowrank(u, cov.factor, gamma, c)
    dense, bad = _finite_gram(cov.to_dense())
    s, w = torch.linalg.eigh(dense)
    rest = gamma - c * s
    root = rest.clamp_min(0).sqrt()
    out = (w @ (root[..., None] * (w.transpose(1, 2) @ u[..., None])))[..., 0]
    return out.masked_fill_(bad[:, None], math.nan), (rest < 0).sum(1)


@register
class SGHMC(Integrator):
    """SGHMC of Chen, Fox & Guestrin 2014 (Alg. 2, unit mass, C = gamma; franzese2021 §5 compares against it):

        x_{k+1} = x_k + h v_k
        v_{k+1} = v_k - h G(x_{k+1}) - h gamma v_k + sqrt(2h) (gamma I - B-hat)^{1/2} xi,
        B-hat = (h/2) Sigma-hat(x_{k+1})         (noise_correction = estimate)
        B-hat = 0                                (noise_correction = none)

    The force is at the NEW position (Chen 2014's theta-first form; chen2015 §4's
    SGHMC-E up to an index shift); the friction acts on the old v. G and
    Sigma-hat come from the same minibatch. This is not ``em`` (paulin Alg. 4, force at the
    OLD position, fully explicit), and no other scheme here has the same recorded law (with
    noise_correction = none it is franzese's ``leapfrog`` observed at its midpoint x*).

    Where gamma I - B-hat is not positive semidefinite (h s / 2 > gamma for an eigenvalue s
    of Sigma-hat), the eigenvalues are clipped at 0: no noise is injected in those directions
    and the gradient noise alone exceeds 2 gamma h there. The number of clipped eigenvalues is
    accumulated per chain in ``state.extra['noise_clipped']`` (no host sync). The square root
    uses an eigendecomposition (of B B^T [C, k, k] for a factor with k <= d, of Sigma
    otherwise); torch.linalg.eigh checks convergence, which costs one device sync per step on
    CUDA with noise_correction = estimate. A chain whose Sigma-hat overflows gets NaN noise and is
    flagged diverged, the other chains going on (``_finite_gram``).
    """

    name = "sghmc"
    summary = "Chen et al. 2014 SGHMC (Euler, force at the new x) with optional noise correction h Sigma-hat / 2"

    def __init__(self, noise_correction: str = "estimate"):
        if noise_correction not in NOISE_CORRECTIONS:
            raise ValueError(f"noise_correction={noise_correction!r}: allowed values: {', '.join(NOISE_CORRECTIONS)}")
        self.noise_correction = noise_correction
        self.needs = ("covariance",) if noise_correction == "estimate" else ()

    def diagnostics(self, state: State) -> dict[str, torch.Tensor]:
        """Steps so far in which gamma I - B-hat had eigenvalues clipped at 0 (per chain)."""
        return {"noise_clipped": state.extra["noise_clipped"]}

    def init_state(self, x, ctx: StepContext) -> State:
        state = super().init_state(x, ctx)
        state.extra["noise_clipped"] = torch.zeros(x.shape[0], dtype=torch.long, device=x.device)
        return state

    def advance(self, state: State, n: int, next_force: Callable[[], Force], ctx: StepContext) -> State:
        x, v = state.x, state.v
        h, gamma = ctx.h, ctx.gamma
        clipped = state.extra.get("noise_clipped")
        if clipped is None:
            clipped = torch.zeros(x.shape[0], dtype=torch.long, device=x.device)
        estimate = self.noise_correction == "estimate"
        for _ in range(n):
            x_new = drift(x, v, h)
            if ctx.boundary is not None:
                x_new, v = ctx.boundary(x_new, v)
            xi = ctx.normal(*x.shape, like=x)
            if estimate:
                g, cov = next_force().force_and_covariance(x_new)
                xi, k = clipped_noise_root(xi, cov, gamma, h / 2)
                clipped = clipped + k
                noise = math.sqrt(2 * h)
            else:
                g = next_force()(x_new)
                noise = math.sqrt(2 * gamma * h)
            v = kick_with(scaled(v, 1 - h * gamma), g, h).add_(xi, alpha=noise)
            x = x_new
        return State(x, v, {**state.extra, "noise_clipped": clipped})
