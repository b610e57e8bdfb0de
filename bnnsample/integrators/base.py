"""The integrator contract shared by every sampler.

A state holds tensors with a leading chain dimension: position ``x [C, d]`` and velocity
``v [C, d]`` (plus scheme-specific entries in ``extra``, e.g. a thermostat). An integrator
advances the state by ``n`` steps; for step k it asks ``next_force()`` for the force oracle of
the minibatch the schedule chose for that step. The oracle ``force(x) -> [C, d]`` returns an
unbiased estimate of grad U(x) (prior gradient + data term scaled by N/n). Integrators never
loop over chains or parameters and never synchronise with the host.

Integrators may use the exact identity U(t1) o U(t2) = U(t1 + t2) (in law) to fuse the
half-step OU flows of consecutive steps inside ``advance``; the states at the ends of the
block are distributed exactly as with unfused steps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import torch

from ..plumbing.rng import GaussianNoise
from ..registry import Registry

Force = Callable[[torch.Tensor], torch.Tensor]


@dataclass
class State:
    """Sampler state: positions and velocities batched over chains, plus extras."""

    x: torch.Tensor
    v: torch.Tensor
    extra: dict[str, torch.Tensor] = field(default_factory=dict)

    def tensors(self) -> dict[str, torch.Tensor]:
        return {"x": self.x, "v": self.v, **self.extra}


class Boundary(Protocol):
    """A constraint applied to positions (e.g. elastic bounces in a box)."""

    def __call__(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]: ...


@dataclass
class StepContext:
    """Everything a step needs besides the state and the force."""

    h: float
    gamma: float
    noise: GaussianNoise
    boundary: Boundary | None = None
    step: int = 0  # sampler steps done before this advance (schemes with step-dependent rules)
    burn_in: int = 0  # sampler steps of burn-in (adaptation may only happen before it ends)
    total_steps: int = 0

    def normal(self, *shape: int, like: torch.Tensor) -> torch.Tensor:
        return self.noise(*shape, like=like)

    def scaled_normal(self, std: float, like: torch.Tensor, into: torch.Tensor | None = None) -> torch.Tensor:
        """``std`` times the next normals of ``like``'s shape, in a tensor the step may write into:
        ``into`` (a tensor of the step's own that it no longer needs), else a fresh one; drawn in
        place where the stream can (its ``fill_``: one pass instead of two)."""
        fill = getattr(self.noise, "fill_", None)
        if fill is None:
            return self.noise(*like.shape, like=like) * std
        return fill(torch.empty(like.shape, dtype=like.dtype, device=like.device) if into is None else into, std)


class Integrator:
    """Base class: subclasses implement ``advance`` (and may add ``init_extra``)."""

    name: str = "?"
    summary: str = ""
    # what the scheme asks of the oracle beyond the force: "covariance" (Sigma-hat, needs
    # per-datum gradients and batches of >= 2), "hvp", "energy"; checked before sampling
    needs: tuple[str, ...] = ()
    # what the machinery that serves only some schemes reads (``capable`` lists them by name):
    # ``compilable``, compile=true traces the step (no step-dependent rule, the same kernels every
    # step; ``integrators.compiled``); ``coupled``, paulin2025's coupled multilevel pair of a fine
    # and a coarse chain exists for it (``analysis.multilevel``)
    compilable: bool = False
    coupled: bool = False

    def diagnostics(self, state: State) -> dict[str, torch.Tensor]:
        """Per-chain values ([C] each) recorded with every draw, e.g. a thermostat's friction."""
        return {}

    def check_run(self, burn_in: int, total_steps: int) -> None:
        """Raise ValueError (field and allowed values) if the run's schedule cannot serve the
        scheme, e.g. a scheme that estimates something during burn-in with burn_in = 0."""

    def init_state(self, x: torch.Tensor, ctx: StepContext) -> State:
        """Start at x with velocities from the Maxwellian N(0, I)."""
        return State(x=x.clone(), v=ctx.normal(*x.shape, like=x))

    def advance(self, state: State, n: int, next_force: Callable[[], Force], ctx: StepContext) -> State:
        raise NotImplementedError


REGISTRY: Registry[type[Integrator]] = Registry("integrator.name")


def register(cls: type[Integrator]) -> type[Integrator]:
    """Class decorator: file an Integrator subclass under its ``name``."""
    return REGISTRY.add(cls.name, cls)


def capable(capability: str) -> tuple[str, ...]:
    """The names of the registered schemes whose class declares ``capability`` (a bool
    attribute of ``Integrator``: "compilable", "coupled"), in registry order."""
    return tuple(name for name in REGISTRY.names() if getattr(REGISTRY[name], capability))


def get_integrator(name: str, **params) -> Integrator:
    """An integrator by config name; ``params`` are its scheme parameters (e.g. n_leapfrog).
    An unknown name raises UnknownName (allowed values listed)."""
    return REGISTRY[name](**params)
