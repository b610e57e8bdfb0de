"""The gradient oracle that samplers see, and the pieces of Algorithm 3 acting on it.

U(x) = U_0(x) + sum_{i=1}^N U_i(x): U_0 the negative log-prior, U_i the i-th datum's negative
log-likelihood. ``force(x, idx, scale)`` returns

    G(x, S) = grad U_0(x) + scale * sum_{i in S} grad U_i(x),       x: [C, d]

with S the minibatch ``idx`` ([n] shared by the chains, [C, n] one per chain, or None for the
full data with scale 1). With scale = N/n it is the unbiased estimator of grad U.
"""

from __future__ import annotations

import math

import torch


class Potential:
    """Interface of a target. Subclasses set ``dim`` and ``n_data`` and implement force."""

    dim: int
    n_data: int
    task: str = "density"  # "density" | "classification" | "regression"

    def force(self, x: torch.Tensor, idx: torch.Tensor | None, scale: float) -> torch.Tensor:
        raise NotImplementedError

    def predict(self, x: torch.Tensor) -> torch.Tensor | None:
        """Predictive output per chain, [C, n_test, K]; None for targets without a test set."""
        return None

    def exact_posterior(self) -> tuple[torch.Tensor, torch.Tensor] | None:
        """(mean [d], covariance [d, d]) when the posterior is Gaussian and known."""
        return None

    def diagnostics(self) -> dict[str, torch.Tensor]:
        """Per-chain values from the last force call, e.g. the minibatch loss ([C] each)."""
        return {}


class Localized(Potential):
    """U_loc(x) = U(x) + (lam/2) ||x - center||^2 (paulin2025 §1.12, Algorithm 3 step 4)."""

    def __init__(self, base: Potential, center: torch.Tensor, lam: float):
        self.base = base
        self.center = center
        self.lam = float(lam)
        self.dim, self.n_data, self.task = base.dim, base.n_data, base.task

    def force(self, x, idx, scale):
        return self.base.force(x, idx, scale) + self.lam * (x - self.center)

    def predict(self, x):
        return self.base.predict(x)

    def diagnostics(self):
        return self.base.diagnostics()


class ElasticBox:
    """Elastic bounces keeping x in the box center + [-delta, delta]^d (paulin2025 §1.12).

    Coordinate-wise, with u = x - center:
        v <- (-1)^floor((u + delta) / (2 delta)) v
        x <- center + |((u - delta) mod 4 delta) - 2 delta| - delta
    i.e. the identity on [-delta, delta) and repeated mirror reflections outside. The number
    of reflected coordinates is accumulated per chain in ``counts``.
    """

    def __init__(self, center: torch.Tensor, delta: float):
        if not delta > 0:
            raise ValueError("bounce delta must be > 0")
        self.center = center
        self.delta = float(delta)
        self.counts = torch.zeros(center.shape[0], dtype=torch.long, device=center.device)

    @classmethod
    def for_localization(cls, center: torch.Tensor, lam: float, width: float = 6.0) -> "ElasticBox":
        """The authors' choice delta = width / sqrt(lam) (width 6)."""
        return cls(center, width / math.sqrt(lam))

    def __call__(self, x, v):
        d = self.delta
        u = x - self.center
        k = torch.floor((u + d) / (2 * d))
        self.counts += (k != 0).sum(dim=1)
        v = torch.where(torch.remainder(k, 2) == 1, -v, v)
        x = self.center + torch.abs(torch.remainder(u - d, 4 * d) - 2 * d) - d
        return x, v
