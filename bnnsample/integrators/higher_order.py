"""Higher-order kinetic Langevin integrators: MT3 (franzese2021 App. B.5.2)."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from .base import Force, Integrator, State, StepContext, register
from .scalars import scaled


@register
class MT3(Integrator):
    """MT3: the 3-stage quasi-symplectic weak-order-3 scheme of Milstein & Tretyakov (2003,
    §2.3) as printed in franzese2021 App. B.5.2, eqs. (39)-(43), unit mass,
    C = gamma, G = this step's minibatch force estimate (F_j = -G(x_j) - C v_j):

        x1 = x + (7/24) h v
        v1 = (v - (7/24) h G(x1)) / (1 + (7/24) h C)                 implicit, linear in v1
        F1 = -G(x1) - C v1
        x2 = x + (25/24) h v + (h^2/2) F1
        v2 = (v + (2/3) h F1 - (3/8) h G(x2)) / (1 + (3/8) h C)
        F2 = -G(x2) - C v2
        x3 = x + h v + (17/36) h^2 F1 + (1/36) h^2 F2
        v3 = (v + (2/3) h F1 - (2/3) h F2 - h G(x3)) / (1 + h C)
        x' = x3 + h^{3/2} s (w1/2 + w2) - C h^{5/2} s w1 / 6
        v' = v3 + h^{1/2} s w1 - C h^{3/2} s (w1/2 + w2)
               - (h^{5/2}/6) Hess U(x3) (s w1) + h^{5/2} C^2 s w1 / 6
        s = sqrt(2C),   w1 ~ N(0, I),   w2 ~ N(0, I/12) independent

    The paper leaves the law of w1, w2 unstated; w2 ~ N(0, 1/12) (this project's choice) makes
    h^{3/2}(w1/2 + w2) match int_0^h W(s) ds in variance and in covariance with W(h); other
    variances drop the scheme to weak order 2 (tests/integrators/test_higher_order.py checks both).
    Cost per step: 3 force evaluations (at x1, x2, x3) and 1 Hessian-vector product
    (``oracle.hvp(x3, s w1)``), all on the same minibatch (the step's single oracle).
    """

    name = "mt3"
    needs = ("hvp",)
    summary = "franzese2021 MT3: Milstein-Tretyakov 3-stage weak order 3 (3 gradients + 1 HVP per step)"

    def advance(self, state: State, n: int, next_force: Callable[[], Force], ctx: StepContext) -> State:
        x, v = state.x, state.v
        h, C = ctx.h, ctx.gamma
        s = math.sqrt(2 * C)
        h15, h25 = h**1.5, h**2.5
        for _ in range(n):
            oracle = next_force()
            x1 = torch.add(x, v, alpha=7 / 24 * h)
            g1 = oracle(x1)
            v1 = torch.add(v, g1, alpha=-7 / 24 * h).div_(1 + 7 / 24 * h * C)
            f1 = torch.add(g1, v1, alpha=C).neg_()
            x2 = torch.add(x, v, alpha=25 / 24 * h).add_(f1, alpha=h * h / 2)
            g2 = oracle(x2)
            v2 = torch.add(v, f1, alpha=2 / 3 * h).add_(g2, alpha=-3 / 8 * h).div_(1 + 3 / 8 * h * C)
            f2 = torch.add(g2, v2, alpha=C).neg_()
            x3 = torch.add(x, v, alpha=h).add_(f1, alpha=17 / 36 * h * h).add_(f2, alpha=h * h / 36)
            g3 = oracle(x3)
            v3 = torch.add(v, f1, alpha=2 / 3 * h).add_(f2, alpha=-2 / 3 * h).add_(g3, alpha=-h).div_(1 + h * C)
            w = ctx.normal(2, *x.shape, like=x)
            sw1 = scaled(w[0], s)
            iw = torch.add(scaled(sw1, 0.5), w[1], alpha=s / math.sqrt(12.0))  # s (w1/2 + w2), w2 = w[1]/sqrt(12)
            x = torch.add(x3, iw, alpha=h15).add_(sw1, alpha=-C * h25 / 6)
            hv = oracle.hvp(x3, sw1)
            v = (torch.add(v3, sw1, alpha=math.sqrt(h) + h25 * C * C / 6)
                 .add_(iw, alpha=-C * h15).add_(hv, alpha=-h25 / 6))  # fmt: skip
            if ctx.boundary is not None:
                x, v = ctx.boundary(x, v)
        return State(x, v, state.extra)
