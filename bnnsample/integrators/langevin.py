"""Kinetic Langevin splitting integrators built from the U (exact OU) and B (kick) steps."""

from __future__ import annotations

from typing import Callable

import torch

from .base import Force, Integrator, State, StepContext, register
from .ou import ou_constants, ou_step


def kick(v, force, x, h: float):
    """B step: v <- v - h G(x), with G the minibatch force estimate."""
    return torch.add(v, force(x), alpha=-h)


@register
class UBU(Integrator):
    """UBU (paulin2025 §1.3, Alg. 1/2): one step of size h is U(h/2) o B(h) o U(h/2).

        1. (x, v) <- U(x, v, h/2)            exact OU flow, fresh xi_1, xi_2
        2. v <- v - h G(x, omega_k)          force at the new position, this step's minibatch
        3. (x, v) <- U(x, v, h/2)            fresh xi_3, xi_4

    One gradient per step. Within a block of n steps the inner half flows are fused,
    U(h/2) U(h/2) = U(h) in law, so a block is U(h/2) [B U(h)]^(n-1) B U(h/2): half the
    Gaussian draws, exactly the same law at block ends. A boundary (elastic bounces) acts
    after each U that precedes a kick, as in the authors' BNN code (§1.12).
    SMS-UBU, SG-UBU and SG-UBU without replacement are this integrator with the sms, iid and
    reshuffle schedules.
    """

    name = "ubu"
    summary = "UBU splitting: exact OU half-flows around a minibatch kick (strong order 2 full-batch)"

    def advance(self, state: State, n: int, next_force: Callable[[], Force], ctx: StepContext) -> State:
        half = ou_constants(ctx.gamma, ctx.h / 2)
        full = ou_constants(ctx.gamma, ctx.h)
        x, v = ou_step(state.x, state.v, half, ctx.normal(2, *state.x.shape, like=state.x))
        for k in range(n):
            if ctx.boundary is not None:
                x, v = ctx.boundary(x, v)
            v = kick(v, next_force(), x, ctx.h)
            c = full if k < n - 1 else half
            x, v = ou_step(x, v, c, ctx.normal(2, *x.shape, like=x))
        return State(x, v, state.extra)
