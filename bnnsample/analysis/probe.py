"""Read off the affine map of a real integrator step on a linear-Gaussian target.

On a target whose minibatch forces are affine in x (``GaussianMean``), every scheme of the
Langevin family advances the concatenated state z (x, v and any per-chain extras such as
BAOAB's cached force ``g``) by an affine map with additive Gaussian noise,

    z' = A z + c + N xi,        Q = N N^T,

for a fixed sequence of minibatches. ``probe_step`` extracts (A, c, N) from the integrator's
own ``advance`` by superposition, in one call on a batch of probe chains that share the
minibatches:

    chain 0                  z = 0,   all noise numbers 0           -> c
    chains 1 .. m            z = e_j, all noise numbers 0           -> column j of A (minus c)
    chains m+1 .. m+K        z = 0,   the k-th number drawn is 1    -> column k of N (minus c)
    two check chains         random z and random noise              -> must equal A z + c + N xi

K, the count of standard normals one chain draws during the step, comes from a dry run. The
noise object replaces ``bnnsample.plumbing.rng.GaussianNoise`` (same call ``noise(*shape, like=t)``);
it finds the chain axis of each requested shape as the one axis of size C. A step that fails
the check (thermostats, Metropolis tests, noise multiplied by the state) raises ``NotAffine``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from ..integrators.base import Integrator, State, StepContext
from ..potential import Oracle, Potential
from ..simulate import advance
from .stationary import AffineStep


class ProbeError(RuntimeError):
    """The step cannot be probed (noise without a chain axis, state shared by chains, ...)."""


class NotAffine(ProbeError):
    """The step is not an affine-Gaussian map of the state on this target."""


class _AmbiguousChainAxis(ProbeError):
    pass


@dataclass(frozen=True)
class Slot:
    """One state tensor inside z: its name, per-chain shape and offset."""

    name: str
    shape: tuple[int, ...]
    offset: int

    @property
    def size(self) -> int:
        return math.prod(self.shape)


@dataclass
class Layout:
    """How z is cut into the state tensors (x, v, then the float extras in dict order).
    ``fixed`` holds non-float extras, passed through unchanged (one value for every chain)."""

    slots: list[Slot]
    fixed: dict[str, torch.Tensor]

    @property
    def dim(self) -> int:
        return sum(s.size for s in self.slots)

    def index(self, name: str) -> slice:
        for s in self.slots:
            if s.name == name:
                return slice(s.offset, s.offset + s.size)
        raise KeyError(name)

    def to_state(self, z: torch.Tensor) -> State:
        C = z.shape[0]
        t = {s.name: z[:, s.offset : s.offset + s.size].reshape(C, *s.shape).clone() for s in self.slots}
        extra = {k: v.expand(C, *v.shape[1:]).clone() for k, v in self.fixed.items()}
        x, v = t.pop("x"), t.pop("v")
        return State(x, v, {**t, **extra})

    def from_state(self, state: State) -> torch.Tensor:
        tensors = state.tensors()
        missing = [s.name for s in self.slots if s.name not in tensors]
        if missing:
            raise ProbeError(f"the step dropped state entries {missing}")
        C = state.x.shape[0]
        return torch.cat([tensors[s.name].reshape(C, -1) for s in self.slots], dim=1)


class CountingNoise:
    """Returns zeros and counts the standard normals each chain draws."""

    def __init__(self, chains: int):
        self.chains = chains
        self.per_chain = 0

    def __call__(self, *shape: int, like: torch.Tensor) -> torch.Tensor:
        _chain_axis(shape, self.chains)
        self.per_chain += math.prod(shape) // self.chains
        return torch.zeros(shape, dtype=like.dtype, device=like.device)


class BasisNoise:
    """Numbers per chain from a table [C, K]: the k-th number chain c draws is table[c, k]."""

    def __init__(self, table: torch.Tensor):
        self.table = table
        self.used = 0

    def __call__(self, *shape: int, like: torch.Tensor) -> torch.Tensor:
        C, K = self.table.shape
        axis = _chain_axis(shape, C)
        rest = shape[:axis] + shape[axis + 1 :]
        k = math.prod(rest)
        if self.used + k > K:
            raise ProbeError("the step drew more normals than in the dry run (noise count depends on the state)")
        block = self.table[:, self.used : self.used + k].reshape(C, *rest)
        self.used += k
        return torch.movedim(block, 0, axis).to(dtype=like.dtype, device=like.device).contiguous()


def _chain_axis(shape: Sequence[int], chains: int) -> int:
    axes = [i for i, s in enumerate(shape) if s == chains]
    if not axes:
        raise ProbeError(
            f"a noise draw of shape {tuple(shape)} has no chain axis (size {chains}): noise shared by chains"
        )
    if len(axes) > 1:
        raise _AmbiguousChainAxis(str(tuple(shape)))
    return axes[0]


def _ctx(h: float, gamma: float, noise, step: int, burn_in: int, total_steps: int) -> StepContext:
    return StepContext(h=h, gamma=gamma, noise=noise, step=step, burn_in=burn_in, total_steps=total_steps)


def _supplier(potential: Potential, batches: Sequence, scale: float, eps: float, strict: bool):
    """next_force(): the oracle of the next minibatch of ``batches`` (idx tensor or None)."""
    calls = [0]

    def next_force():
        i = calls[0]
        calls[0] += 1
        if i >= len(batches):
            if strict:
                raise ProbeError(f"the step asked for more than {len(batches)} minibatch(es)")
            i = len(batches) - 1
        return Oracle(potential, batches[i], scale, eps)

    return next_force, calls


def discover_layout(
    integrator: Integrator, potential: Potential, batch, scale: float, eps: float, h: float, gamma: float,
    *, step: int = 0, burn_in: int = 0, total_steps: int = 0, dtype=torch.float64,
) -> tuple[Layout, int]:  # fmt: skip
    """The state layout after a step (x, v, per-chain float extras) and the number of
    minibatches one step uses once the state carries its extras (e.g. BAOAB's cached force).
    Two steps are run from x = 0 on a few chains with zero noise."""
    for C in range(5, 55):
        ctx = _ctx(h, gamma, CountingNoise(C), step, burn_in, total_steps)
        try:
            state = integrator.init_state(torch.zeros(C, potential.dim, dtype=dtype), ctx)
            nf, _ = _supplier(potential, [batch], scale, eps, strict=False)
            state = advance(integrator, state, 1, nf, ctx)
            nf, calls = _supplier(potential, [batch], scale, eps, strict=False)
            state = advance(integrator, state, 1, nf, ctx)
        except _AmbiguousChainAxis:
            continue
        break
    else:
        raise ProbeError("could not find an unambiguous chain count")
    slots, fixed, offset = [], {}, 0
    for name, t in state.tensors().items():
        if t.dim() == 0 or t.shape[0] != C:
            raise ProbeError(f"state entry {name!r} of shape {tuple(t.shape)} is not per chain")
        if t.is_floating_point():
            slots.append(Slot(name, tuple(t.shape[1:]), offset))
            offset += slots[-1].size
        else:
            fixed[name] = t[:1].clone()
    return Layout(slots, fixed), calls[0]


@dataclass
class Probe:
    """The affine map of one step: z' = A z + c + N xi (xi standard normal)."""

    A: np.ndarray
    c: np.ndarray
    N: np.ndarray
    layout: Layout
    draws: int  # standard normals drawn per chain

    @property
    def Q(self) -> np.ndarray:
        return self.N @ self.N.T

    def affine_step(self) -> AffineStep:
        return AffineStep(self.A, self.c, self.Q)


def probe_step(
    integrator_factory: Callable[[], Integrator],
    potential: Potential,
    batches: Sequence,
    *,
    scale: float,
    eps: float,
    h: float,
    gamma: float,
    layout: Layout | None = None,
    step: int = 0,
    burn_in: int = 0,
    total_steps: int = 0,
    tol: float = 1e-10,
    seed: int = 0,
) -> Probe:
    """Extract (A, c, N) of one ``advance(state, 1, ...)`` whose ``next_force`` calls return the
    oracles of ``batches`` in turn (each an index tensor shared by the chains, or None for the
    full data). ``integrator_factory`` builds a fresh integrator (schemes may keep state).
    Raises NotAffine if random states and noise are not reproduced to ``tol`` (relative)."""
    dtype = torch.float64
    if layout is None:
        layout, _ = discover_layout(integrator_factory(), potential, batches[0], scale, eps, h, gamma,
                                    step=step, burn_in=burn_in, total_steps=total_steps)  # fmt: skip
    m = layout.dim
    times = {"step": step, "burn_in": burn_in, "total_steps": total_steps}

    # dry run: how many normals does one chain draw in this step?
    for pad in range(50):
        C0 = 7 + pad
        counter = CountingNoise(C0)
        nf, calls = _supplier(potential, batches, scale, eps, strict=True)
        try:
            advance(integrator_factory(), layout.to_state(torch.zeros(C0, m, dtype=dtype)), 1, nf,
                    _ctx(h, gamma, counter, **times))  # fmt: skip
        except _AmbiguousChainAxis:
            continue
        break
    else:
        raise ProbeError("could not find an unambiguous chain count")
    if calls[0] != len(batches):
        raise ProbeError(f"the step used {calls[0]} minibatch(es), {len(batches)} given")
    K = counter.per_chain

    rng = np.random.default_rng(seed)
    z_check = rng.standard_normal((2, m))
    z_check[1] *= 3.0
    xi_check = rng.standard_normal((2, K))
    for pad in range(50):
        C = 1 + m + K + 2 + pad
        z = torch.zeros(C, m, dtype=dtype)
        z[1 : 1 + m] = torch.eye(m, dtype=dtype)
        z[C - 2 - pad : C - pad] = torch.as_tensor(z_check)
        table = torch.zeros(C, K, dtype=dtype)
        table[1 + m : 1 + m + K] = torch.eye(K, dtype=dtype)
        table[C - 2 - pad : C - pad] = torch.as_tensor(xi_check)
        noise = BasisNoise(table)
        nf, calls = _supplier(potential, batches, scale, eps, strict=True)
        try:
            out = advance(integrator_factory(), layout.to_state(z), 1, nf, _ctx(h, gamma, noise, **times))
        except _AmbiguousChainAxis:
            continue
        break
    else:
        raise ProbeError("could not find an unambiguous chain count")
    if noise.used != K:
        raise ProbeError(f"the step drew {noise.used} normals per chain, {K} in the dry run")
    zp = layout.from_state(out).detach().cpu().numpy().astype(np.float64)
    c = zp[0]
    A = (zp[1 : 1 + m] - c).T
    N = (zp[1 + m : 1 + m + K] - c).T
    got = zp[C - 2 - pad : C - pad]
    want = z_check @ A.T + c + xi_check @ N.T
    if not (np.all(np.isfinite(got)) and np.all(np.isfinite(zp))):
        raise NotAffine("non-finite output")
    err = np.abs(got - want).max() / (1.0 + np.abs(want).max())
    if err > tol:
        raise NotAffine(f"random states and noise are off the affine map by {err:.2e} (relative)")
    return Probe(A, c, N, layout, K)
