"""Schemes whose step parameters change with time: the adaptive SGHMC of Springenberg et al.
(2016) (franzese2021's oracle, App. F.2) and cyclical SG-HMC (Zhang et al. 2020; paulin2025
§5, Fig. 4, and the authors' notebook fashion_MNIST_cyclic_SG_HMC.ipynb)."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from .base import Force, Integrator, State, StepContext, register
from .langevin import drift, kick_with
from .scalars import scaled

CYCLE_UNITS = ("step", "epoch")


@register
class SGHMCAdaptive(Integrator):
    """Adaptive SGHMC of Springenberg et al. (2016) as in pysgmcmc's SGHMC optimizer, the
    franzese2021 oracle (App. F.2; update of pysgmcmc). Per chain and coordinate, with lr = step_size h,
    G = this step's force estimate at the current x:

        burn-in only (global step k < burn_in), with r = 1/(tau + 1) from the old tau:
            tau   <- tau + 1 - tau g^2 / v_hat
            g     <- g - r g + r G
            v_hat <- v_hat - r v_hat + r G^2
        m       = v_hat^{-1/2}                         (M^{-1}, from v_hat before this step's update)
        sigma^2 = max(2 lr^2 mdecay m - lr^4, 1e-16)
        v <- v - lr^2 m G - mdecay v + sigma xi
        x <- x + v

    Initial tau = g = v_hat = 1 and v = 0, as in pysgmcmc. pysgmcmc works on the mean loss
    with scale_grad = N; because m scales as 1/|G| this is the same recursion as the one
    above on the total potential (G = grad U estimate), so there is no scale_grad here.
    pysgmcmc's optional gradient-noise estimate ("noise", default 0) is left out. The
    friction setting is not used: mdecay is the per-step momentum decay. After burn-in
    (tau, g, v_hat) are frozen. v is pysgmcmc's momentum (a position increment), not a
    unit-mass velocity. The adaptation state lives in ``state.extra`` (resumable); blocks
    that straddle the end of burn-in are split there.
    """

    name = "sghmc_adaptive"
    summary = "Springenberg et al. 2016 adaptive SGHMC (pysgmcmc): preconditioner adapted during burn-in"

    def __init__(self, mdecay: float = 0.05):
        mdecay = float(mdecay)
        if not 0.0 < mdecay < 2.0:
            raise ValueError(f"mdecay={mdecay}: must be a number in (0, 2)")
        self.mdecay = mdecay

    def init_state(self, x: torch.Tensor, ctx: StepContext) -> State:
        ones = torch.ones_like(x)
        return State(x=x.clone(), v=torch.zeros_like(x), extra={"tau": ones, "g": ones.clone(), "v_hat": ones.clone()})

    def advance(self, state: State, n: int, next_force: Callable[[], Force], ctx: StepContext) -> State:
        n_adapt = max(0, min(n, ctx.burn_in - ctx.step))
        x, v = state.x, state.v
        tau, g, v_hat = state.extra["tau"], state.extra["g"], state.extra["v_hat"]
        lr2 = ctx.h**2
        for adapt, steps in ((True, n_adapt), (False, n - n_adapt)):
            if steps == 0:
                continue
            m = v_hat.rsqrt()
            sigma = (2 * lr2 * self.mdecay * m - lr2 * lr2).clamp_min(1e-16).sqrt()
            for _ in range(steps):
                f = next_force()(x)
                if adapt:
                    m = v_hat.rsqrt()
                    sigma = (2 * lr2 * self.mdecay * m - lr2 * lr2).clamp_min(1e-16).sqrt()
                    r = (tau + 1).reciprocal()
                    tau = tau + 1 - tau * g * g / v_hat
                    g = g + r * (f - g)
                    v_hat = v_hat + r * (f * f - v_hat)
                v = scaled(v, 1 - self.mdecay).addcmul_(m, f, value=-lr2)
                v = v.addcmul_(sigma, ctx.normal(*x.shape, like=x))
                x = x + v
                if ctx.boundary is not None:
                    x, v = ctx.boundary(x, v)
        return State(x, v, {**state.extra, "tau": tau, "g": g, "v_hat": v_hat})


def cyclical_step_size(h: float, k: int, K: int) -> float:
    """Zhang et al. (2020) cosine cycle: h_k = (h/2) (cos(pi mod(k, K)/K) + 1), k from 0."""
    return h / 2 * (math.cos(math.pi * (k % K) / K) + 1)


@register
class CyclicalSGHMC(Integrator):
    """Cyclical SG-HMC (Zhang et al. 2020; paulin2025 §5, Fig. 4): Euler-Maruyama SG-HMC
    steps (paulin2025 Algorithm 4) with a cosine step-size cycle over the global step index
    k (``ctx.step`` + position in the block, from 0):

        h_k = (h/2) (cos(pi mod(k, K)/K) + 1)          K = cycle length in steps
        x_{k+1} = x_k + h_k v_k
        v_{k+1} = v_k - h_k G(x_k) - h_k gamma v_k + [sqrt(2 gamma h_k) xi_k   if mod(k, K)/K >= beta]

    The first fraction beta (``exploration``) of each cycle is Zhang et al.'s exploration
    stage: the noise is switched off (stochastic-gradient descent with momentum); the rest is
    the sampling stage. Zhang et al. collect samples in the sampling stage only; the sampler
    here records every ``thin`` steps, so choose thin = K (and burn_in so that draws fall at
    the end of cycles) to keep only cycle-end draws. ``cycle_length`` is in steps or, with
    cycle_unit = epoch, in epochs of floor(N/n) steps (1 step for the full batch). The
    authors' code restarts the cycle every epoch with an offset of 20 batches; we use the
    global index as in Zhang et al.'s formula. One gradient per step.
    """

    name = "cyclical_sghmc"
    summary = "Zhang et al. 2020 cyclical SG-HMC: Euler-Maruyama steps with cosine step-size cycles"

    def __init__(self, cycle_length: int = 50, cycle_unit: str = "step", exploration: float = 0.0):
        if int(cycle_length) != cycle_length or int(cycle_length) < 1:
            raise ValueError(f"cycle_length={cycle_length}: must be an integer >= 1")
        if cycle_unit not in CYCLE_UNITS:
            raise ValueError(f"cycle_unit={cycle_unit}: allowed values: {', '.join(CYCLE_UNITS)}")
        if not 0.0 <= float(exploration) < 1.0:
            raise ValueError(f"exploration={exploration}: must be a number in [0, 1)")
        self.cycle_length, self.cycle_unit, self.exploration = int(cycle_length), cycle_unit, float(exploration)

    def cycle_steps(self, oracle) -> int:
        if self.cycle_unit == "step":
            return self.cycle_length
        return self.cycle_length * max(1, int(math.floor(getattr(oracle, "scale", 1.0) + 1e-9)))

    def advance(self, state: State, n: int, next_force: Callable[[], Force], ctx: StepContext) -> State:
        x, v = state.x, state.v
        gamma = ctx.gamma
        for j in range(n):
            oracle = next_force()
            K = self.cycle_steps(oracle)
            k = ctx.step + j
            h = cyclical_step_size(ctx.h, k, K)
            f = oracle(x)
            x_new = drift(x, v, h)
            v = kick_with(scaled(v, 1 - h * gamma), f, h)
            if (k % K) / K >= self.exploration:
                v = v.add_(ctx.normal(*x.shape, like=x), alpha=math.sqrt(2 * gamma * h))
            x = x_new
            if ctx.boundary is not None:
                x, v = ctx.boundary(x, v)
        return State(x, v, state.extra)
