"""The spectral norm of a symmetric linear operator given only its products (a Hessian through
Hessian-vector products), by power iteration: paulin2025 App. D.2 (Fig. 7) estimates the largest
eigenvalue in absolute value of a network's log-posterior Hessian this way (10 iterations in the
authors' code).

For a symmetric H with eigenvalues |l_1| > |l_2| >= ..., and a start v_0 not orthogonal to the
top eigenvector, v_{k+1} = H v_k / ||H v_k|| gives ||H v_k|| -> |l_1| = ||H||_2 with error
O((l_2 / l_1)^{2k}) in the Rayleigh quotient and O((l_2 / l_1)^k) in the direction; ||H v_k||
never exceeds ||H||_2, so every iterate is a lower bound."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class PowerIteration:
    """norm: ||H v|| at the last unit vector v (a lower bound of ||H||_2); rayleigh: v . H v
    there (its sign is the sign of the dominant eigenvalue); history: norm at every
    iteration, for judging convergence."""

    norm: float
    rayleigh: float
    history: tuple[float, ...]

    @property
    def last_change(self) -> float:
        """The relative change of the estimate over the last iteration (NaN after one)."""
        if len(self.history) < 2 or self.history[-1] == 0:
            return float("nan")
        return abs(self.history[-1] - self.history[-2]) / abs(self.history[-1])


def power_iteration(matvec: Callable[[torch.Tensor], torch.Tensor], v0: torch.Tensor, iters: int) -> PowerIteration:
    """``iters`` >= 1 products of ``matvec`` (a symmetric H) from ``v0`` (normalised first):
    the spectral norm estimate, the Rayleigh quotient and the history (``PowerIteration``)."""
    if iters < 1:
        raise ValueError(f"iters must be >= 1, got {iters}")
    nv = torch.linalg.vector_norm(v0)
    if not nv > 0:
        raise ValueError("v0 must be nonzero")
    v = v0 / nv
    history, rayleigh = [], float("nan")
    for _ in range(iters):
        w = matvec(v)
        norm = torch.linalg.vector_norm(w)
        rayleigh = float((v * w).sum())
        history.append(float(norm))
        if not norm > 0:
            break
        v = w / norm
    return PowerIteration(history[-1], rayleigh, tuple(history))
