"""Kinetic Langevin integrators built from shared pieces:

U(tau)  exact Ornstein-Uhlenbeck flow of (x, v)           (ou.py)
B(t)    kick        v <- v - t G(x)
A(t)    drift       x <- x + t v
O(t)    velocity OU v <- e^{-gamma t} v + sqrt(1 - e^{-2 gamma t}) xi
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from .base import Force, Integrator, State, StepContext, register
from .ou import ou_constants, ou_step
from .scalars import scale_, scaled


def kick(v, force, x, h: float):
    """B step: v <- v - h G(x), with G the minibatch force estimate."""
    return torch.add(v, force(x), alpha=-h)


def kick_with(v, g, h: float):
    """B step with a force value already computed: v <- v - h g."""
    return torch.add(v, g, alpha=-h)


def kick_(v, force, x, h: float):
    """B step in place, v <- v - h G(x), on a velocity the step itself made: an oracle that
    accumulates (``Oracle.accumulates``) adds its force into v; otherwise the numbers of ``kick``."""
    add_to_ = getattr(force, "add_to_", None)
    return add_to_(v, x, -h) if add_to_ is not None else v.add_(force(x), alpha=-h)


def noisy_kick(v, c: float, force, x, h: float, std: float, ctx: StepContext, into=None):
    """c v - h G(x) + std xi as a fresh tensor: the Euler-type update of EM (c = 1 - h gamma),
    LEAPFROG, ABOBA (c = e^{-gamma h/2}) and SGLD (v = x, c = 1).

    Where the oracle accumulates (closed-form product models) the normals are drawn already
    scaled into the new tensor and c v and the force are added into it: three passes over the
    [C, d] numbers and the product, against five (a scaled copy, the force's own scaled copy of
    x in its product, two sums and the normals). Otherwise the terms are summed in the order
    c v, - h G, + std xi, the numbers of the unfused update. ``into``: a tensor of the step's
    own, no longer needed, that the fused update may be written into instead of a new one."""
    if getattr(force, "accumulates", False):
        out = ctx.scaled_normal(std, x, into=into)
        return force.add_to_(out.add_(v) if c == 1 else out.add_(v, alpha=c), x, -h)
    out = torch.add(v, force(x), alpha=-h) if c == 1 else scaled(v, c).add_(force(x), alpha=-h)
    return out.add_(ctx.normal(*x.shape, like=x), alpha=std)


def cached_force(state: State, next_force: Callable[[], Force]):
    """The force carried over by first-same-as-last schemes; g_0 takes the schedule's next batch."""
    g = state.extra.get("g")
    return next_force()(state.x) if g is None else g


def drift(x, v, t: float):
    """A step: x <- x + t v."""
    return torch.add(x, v, alpha=t)


def drift_bounce_kick(x, v, t: float, next_force: Callable[[], Force], t_kick: float, ctx: StepContext):
    """A(t), the boundary, then B(t_kick) with this step's minibatch force at the new position,
    the force that first-same-as-last schemes carry to the next step; returns (x, v, g)."""
    x = drift(x, v, t)
    if ctx.boundary is not None:
        x, v = ctx.boundary(x, v)
    g = next_force()(x)
    return x, kick_with(v, g, t_kick), g


def velocity_ou(v, gamma: float, t: float, xi):
    """O step, the exact velocity OU flow over time t: v <- e^{-gamma t} v + sqrt(1 - e^{-2 gamma t}) xi."""
    return scaled(v, math.exp(-gamma * t)).add_(xi, alpha=math.sqrt(-math.expm1(-2 * gamma * t)))


@register
class UBU(Integrator):
    """UBU (paulin2025 §2.1-2.2, Algorithms 1-2): one step of size h is U(h/2) o B(h) o U(h/2).

        1. (x, v) <- U(x, v, h/2)            exact OU flow, fresh xi_1, xi_2
        2. v <- v - h G(x, omega_k)          force at the new position, this step's minibatch
        3. (x, v) <- U(x, v, h/2)            fresh xi_3, xi_4

    One gradient per step. Within a block of n steps the inner half flows are fused,
    U(h/2) U(h/2) = U(h) in law, so a block is U(h/2) [B U(h)]^(n-1) B U(h/2): half the
    Gaussian draws, exactly the same law at block ends. Fusing across a block end would
    change the law at a draw there (thin = 1: every step ends a block): the recorded state Z
    lies between the two half flows, and given the post-kick state W, (Z, U(h/2) Z) is
    Gaussian with a nonsingular 4 x 4 covariance per coordinate (the Schur complement is the
    half flow's noise covariance), so an exact chain draws 4 normals per coordinate there, as
    the unfused steps do. A boundary (elastic bounces) acts after each U that precedes a
    kick, as in the authors' BNN code (paulin2025 §4, Algorithm 3).
    SMS-UBU, SG-UBU and SG-UBU without replacement are this integrator with the sms, iid and
    reshuffle schedules.
    """

    name = "ubu"
    compilable = coupled = True
    summary = "UBU splitting: exact OU half-flows around a minibatch kick (strong order 2 full-batch)"

    def advance(self, state: State, n: int, next_force: Callable[[], Force], ctx: StepContext) -> State:
        half = ou_constants(ctx.gamma, ctx.h / 2)
        full = ou_constants(ctx.gamma, ctx.h)
        x, v = ou_step(state.x, state.v, half, ctx.normal(2, *state.x.shape, like=state.x))
        for k in range(n):
            if ctx.boundary is not None:
                x, v = ctx.boundary(x, v)
            v = kick_(v, next_force(), x, ctx.h)  # v is the U step's (or the boundary's) new tensor
            c = full if k < n - 1 else half
            x, v = ou_step(x, v, c, ctx.normal(2, *x.shape, like=x))
        return State(x, v, state.extra)


class FirstSameAsLast(Integrator):
    """Splittings whose end-of-step force is the next step's first kick (one gradient per step):
    the force is carried in ``state.extra["g"]``; g_0 = G(x_0, omega_1) takes the schedule's
    first batch. Subclasses implement one step, ``step(x, v, g, next_force, ctx) -> (x, v, g)``."""

    def step(self, x, v, g, next_force: Callable[[], Force], ctx: StepContext):
        raise NotImplementedError

    def advance(self, state: State, n: int, next_force: Callable[[], Force], ctx: StepContext) -> State:
        x, v = state.x, state.v
        g = cached_force(state, next_force)
        for _ in range(n):
            x, v, g = self.step(x, v, g, next_force, ctx)
        return State(x, v, {**state.extra, "g": g})


@register
class BAOAB(FirstSameAsLast):
    """BAOAB (paulin2025 §2.1, App. A Algorithm 5; textbook O step over the full h):

        B  v <- v - (h/2) g_k
        A  x <- x + (h/2) v
        O  v <- e^{-gamma h} v + sqrt(1 - e^{-2 gamma h}) xi
        A  x <- x + (h/2) v
        g_{k+1} = G(x, omega_{k+2})          this step's minibatch, at the end position
        B  v <- v - (h/2) g_{k+1}

    First-same-as-last: the end-of-step force is reused by the next step's first kick, so one
    gradient per step; g_0 = G(x_0, omega_1) takes the schedule's first batch. The SMS-UBU
    authors' code uses e^{-gamma h/2} in O (an effective friction gamma/2); we keep the textbook
    BAOAB, whose friction is gamma.
    """

    name = "baoab"
    compilable = coupled = True
    summary = "BAOAB splitting with first-same-as-last minibatch force (one gradient per step)"

    def step(self, x, v, g, next_force: Callable[[], Force], ctx: StepContext):
        half = ctx.h / 2
        v = kick_with(v, g, half)
        x = drift(x, v, half)
        v = velocity_ou(v, ctx.gamma, ctx.h, ctx.normal(*x.shape, like=x))
        return drift_bounce_kick(x, v, half, next_force, half, ctx)


@register
class EM(Integrator):
    """Euler-Maruyama for kinetic Langevin, the SG-HMC of paulin2025 Algorithm 4:

        x_{k+1} = x_k + h v_k
        v_{k+1} = v_k - h G(x_k, omega_{k+1}) - h gamma v_k + sqrt(2 gamma h) xi_{k+1}

    The force is evaluated at the old position (fully explicit).
    """

    name = "em"
    compilable = coupled = True
    summary = "Euler-Maruyama (SG-HMC): force at the old position, Euler friction and noise"

    def advance(self, state: State, n: int, next_force: Callable[[], Force], ctx: StepContext) -> State:
        x, v = state.x, state.v
        h, gamma = ctx.h, ctx.gamma
        noise = math.sqrt(2 * gamma * h)
        spare = None
        for k in range(n):
            v_new = noisy_kick(v, 1 - h * gamma, next_force(), x, h, noise, ctx, into=spare)
            # after the first step x and v are this block's own tensors: the drift writes into x,
            # and v, used up by it, takes the next step's velocity
            x, v, spare = (drift(x, v, h) if k == 0 else x.add_(v, alpha=h)), v_new, (v if k else None)
            if ctx.boundary is not None:
                x, v = ctx.boundary(x, v)
        return State(x, v, state.extra)


@register
class OBABO(FirstSameAsLast):
    """OBABO (paulin2025 §2.1): O(h/2) B(h/2) A(h) B(h/2) O(h/2), with
    O(h/2): v <- e^{-gamma h/2} v + sqrt(1 - e^{-gamma h}) xi. The force at the end of A is
    this step's minibatch and is reused by the next step's first kick (one gradient per
    step; g_0 takes the schedule's first batch)."""

    name = "obabo"
    compilable = True
    summary = "OBABO splitting with first-same-as-last minibatch force"

    def step(self, x, v, g, next_force: Callable[[], Force], ctx: StepContext):
        half = ctx.h / 2
        v = velocity_ou(v, ctx.gamma, half, ctx.normal(*x.shape, like=x))
        v = kick_with(v, g, half)
        x, v, g = drift_bounce_kick(x, v, ctx.h, next_force, half, ctx)
        return x, velocity_ou(v, ctx.gamma, half, ctx.normal(*x.shape, like=x)), g


@register
class ABOBA(Integrator):
    """The symmetric splitting of Chen, Ding & Carin (2015), SGHMC-S (chen2015 §4 eq. (9)):

    x1 = x + (h/2) v                          A, half step
    v1 = e^{-gamma h/2} v                     friction only, half step
    v2 = v1 - h G(x1) + sqrt(2 gamma h) xi    kick with the force at the half-step position, Euler noise
    v' = e^{-gamma h/2} v2                    friction only, half step
    x' = x1 + (h/2) v'                        A, half step
    """

    name = "aboba"
    compilable = True
    summary = "Chen et al. 2015 symmetric splitting (SGHMC-S): force at the half step, Euler noise"

    def advance(self, state: State, n: int, next_force: Callable[[], Force], ctx: StepContext) -> State:
        x, v = state.x, state.v
        half = ctx.h / 2
        damp = math.exp(-ctx.gamma * half)
        noise = math.sqrt(2 * ctx.gamma * ctx.h)
        for _ in range(n):
            x = drift(x, v, half)
            if ctx.boundary is not None:
                x, v = ctx.boundary(x, v)
            v = scale_(noisy_kick(v, damp, next_force(), x, ctx.h, noise, ctx), damp)
            x = drift(x, v, half)
        return State(x, v, state.extra)


@register
class SGLD(Integrator):
    """Overdamped Langevin, Euler-Maruyama (SGLD; chen2015 §4, Welling & Teh 2011 with the
    main-text convention dx = -grad U dt + sqrt(2) dW):  x <- x - h G(x) + sqrt(2h) xi.
    The velocity is unused and kept at zero."""

    name = "sgld"
    compilable = True
    summary = "SGLD: first-order Langevin, x <- x - h G(x) + sqrt(2h) xi"

    def init_state(self, x, ctx: StepContext) -> State:
        return State(x=x.clone(), v=torch.zeros_like(x))

    def advance(self, state: State, n: int, next_force: Callable[[], Force], ctx: StepContext) -> State:
        x = state.x
        noise = math.sqrt(2 * ctx.h)
        for _ in range(n):
            x = noisy_kick(x, 1, next_force(), x, ctx.h, noise, ctx)
            if ctx.boundary is not None:
                x, _ = ctx.boundary(x, state.v)
        return State(x, state.v, state.extra)


@register
class Leapfrog(Integrator):
    """LEAPFROG of franzese2021 (SHMC, App. B.5.1 eq. 31):

    x* = x + (h/2) v
    v' = v - h G(x*) - h gamma v + sqrt(2 gamma h) w          friction on the old v
    x' = x* + (h/2) v'
    """

    name = "leapfrog"
    summary = "franzese2021 LEAPFROG (eq. 31): kick with Euler friction and noise between two half drifts"

    def advance(self, state: State, n: int, next_force: Callable[[], Force], ctx: StepContext) -> State:
        x, v = state.x, state.v
        half, h, gamma = ctx.h / 2, ctx.h, ctx.gamma
        noise = math.sqrt(2 * gamma * h)
        for _ in range(n):
            x = drift(x, v, half)
            if ctx.boundary is not None:
                x, v = ctx.boundary(x, v)
            v = noisy_kick(v, 1 - h * gamma, next_force(), x, h, noise, ctx)
            x = drift(x, v, half)
        return State(x, v, state.extra)


@register
class GeneralizedLieTrotter(Integrator):
    """Generalized LIE-TROTTER of franzese2021 (§4, eqs. 12-15; App. D eq. 66):
    ``n_leapfrog`` = N_l deterministic position-Verlet steps, each with the next minibatch,

        x* = x + (h/2) v,   v <- v - h G(x*),   x <- x* + (h/2) v,

    then the exact velocity refresh v <- alpha v + sqrt(1 - alpha^2) w, alpha = exp(-h N_l gamma):
    HMC with partial momentum refreshment. N_l = 1 is LIE-TROTTER. One integrator step uses
    N_l minibatches (so ``unit=epoch`` counts integrator steps, not passes, when N_l > 1).
    """

    name = "generalized_lie_trotter"
    summary = "franzese2021 generalized Lie-Trotter: N_l leapfrog steps then an exact OU refresh"

    def __init__(self, n_leapfrog: int = 1):
        if int(n_leapfrog) < 1:
            raise ValueError("n_leapfrog must be an integer >= 1")
        self.n_leapfrog = int(n_leapfrog)

    def advance(self, state: State, n: int, next_force: Callable[[], Force], ctx: StepContext) -> State:
        x, v = state.x, state.v
        half = ctx.h / 2
        for _ in range(n):
            for _ in range(self.n_leapfrog):
                x = drift(x, v, half)
                if ctx.boundary is not None:
                    x, v = ctx.boundary(x, v)
                v = kick(v, next_force(), x, ctx.h)
                x = drift(x, v, half)
            v = velocity_ou(v, ctx.gamma, ctx.h * self.n_leapfrog, ctx.normal(*x.shape, like=x))
        return State(x, v, state.extra)


@register
class LieTrotter(GeneralizedLieTrotter):
    """LIE-TROTTER of franzese2021 (eqs. 12-13): one position-Verlet step, then the exact
    velocity OU refresh over h (the generalized scheme with N_l = 1)."""

    name = "lie_trotter"
    summary = "franzese2021 LIE-TROTTER: position Verlet then the exact OU velocity refresh"

    def __init__(self):
        super().__init__(1)
