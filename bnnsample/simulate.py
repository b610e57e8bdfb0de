"""The simulation kernel: C chains of a registered scheme, in memory, advanced in blocks.

Everything that runs an integrator outside ``bnnsample/integrators/`` goes through this module:
``Sampler.run`` (this loop plus the HDF5 sink), the figure recipes, the scheme-analysis tools
(``bnnsample.analysis``) and scripts/bench.py. ``advance`` is the one call of the integrator
contract (``Integrator.advance(state, n, next_force, ctx)``).

Blocks. ``blocks`` cuts the steps ``start .. total`` into the calls of ``advance``. A block
ends at every draw step ``burn_in + thin * j`` (j >= 1), at ``total``, at every multiple of
``check_every`` (if given), and, when ``burn_block`` is given, the burn-in is its own phase
of blocks of at most ``burn_block`` steps (counted from 0) ending exactly at ``burn_in``;
``single`` makes every block one step (a step-size schedule). The boundaries are a function of
the absolute step count only, so a run resumed at a block boundary retraces the uninterrupted
run exactly. They matter for the numbers: a splitting such as UBU fuses the half-steps inside
one block, so two block layouts give different (equally valid) chains.

Seeds. One rule for every caller, ``Seeds.of(seed)`` (that of ``bnnsample run``): the Gaussian
noise from seed ``2 seed``, the minibatch schedule from ``2 seed + 1``, the model (a network's
initial weights) from ``2 seed + 7919``, and a target with its own noise generator
(noisy-gradient toys) reseeded with ``10007 seed + 3``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from .batching import Schedule
from .integrators import get_integrator
from .integrators.base import Integrator, State, StepContext
from .plumbing.rng import GaussianNoise, make_generator
from .potential import Oracle


# -- the one seed rule ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Seeds:
    """Seeds of the three random streams of a run: the Gaussian noise of the steps, the
    minibatch schedule, and the target's own gradient noise (None: left as built)."""

    noise: int
    batches: int
    target: int | None = None
    model: int | None = None  # what the model is built with (a network's initial weights)

    @classmethod
    def of(cls, seed: int) -> Seeds:
        """The seed rule of ``bnnsample run`` (noise 2 seed, batches 2 seed + 1, model
        2 seed + 7919), plus the reseeding of a target with its own noise generator
        (10007 seed + 3)."""
        seed = int(seed)
        return cls(noise=2 * seed, batches=2 * seed + 1, target=10_007 * seed + 3, model=2 * seed + 7919)


# -- composing a target --------------------------------------------------------------------------
@dataclass
class Target:
    cfg: Any
    data: Any
    potential: Any


def potential_of(cfg, data, *, device="cpu", dtype=None, seed: int | None = None):
    """The potential a run of ``cfg`` samples, on ``data``: the one way a target is built from a
    config (runner, evaluation, recipes), with the one seed rule, the model built with
    ``Seeds.of(cfg.seed).model`` (a recipe may fix ``seed`` itself). ``dtype`` defaults to
    ``cfg.dtype``."""
    from .models import build_potential

    seed = Seeds.of(cfg.seed).model if seed is None else seed
    dtype = getattr(torch, dtype or cfg.dtype) if not isinstance(dtype, torch.dtype) else dtype
    return build_potential(cfg.model, data, torch.device(device), dtype, seed=seed)


def target_of(cfg, *, device="cpu", dtype=None, seed: int | None = None) -> Target:
    """The config, data and potential (``potential_of``) of a run config (composed, or read
    back from a run's config.yaml)."""
    from omegaconf import DictConfig, OmegaConf

    from .data import load_data

    cfg = cfg if isinstance(cfg, DictConfig) else OmegaConf.create(cfg)
    data = load_data(cfg)
    return Target(cfg, data, potential_of(cfg, data, device=device, dtype=dtype, seed=seed))


def build_target(overrides: Sequence[str], *, seed: int | None = None, dtype: str = "float64",
                 device: str = "cpu", threads: int | None = None) -> Target:  # fmt: skip
    """The config, data and potential of ``bnnsample run`` with these overrides (Hydra
    composition), on ``device`` in ``dtype`` (``target_of``). ``threads`` sets torch's intra-op
    threads first (the recipes' many small operations run fastest on one)."""
    from .config import compose

    if threads is not None:
        torch.set_num_threads(threads)
    return target_of(compose(list(overrides)), device=device, dtype=dtype, seed=seed)


def preset_scheme(preset: str) -> tuple[str, dict, str, str]:
    """(integrator name, integrator parameters, batching, partition) of conf/integrator/<preset>.yaml."""
    from .config import compose

    cfg = compose([f"integrator={preset}"])
    params = {k: v for k, v in cfg.integrator.items() if k not in ("name", "description")}
    return cfg.integrator.name, params, cfg.batching.name, cfg.batching.partition


# -- the loop ------------------------------------------------------------------------------------
def advance(integrator: Integrator, state: State, n: int, next_force: Callable, ctx: StepContext) -> State:
    """``n`` steps of ``integrator`` from ``state``: the one call of the integrator contract."""
    return integrator.advance(state, n, next_force, ctx)


def blocks(total: int, *, start: int = 0, burn_in: int = 0, thin: int = 1, check_every: int | None = None,
           burn_block: int | None = None, single: bool = False) -> Iterator[tuple[int, int, bool]]:  # fmt: skip
    """(t, n, draw) of each block from step ``start``: n steps from t; draw is whether t + n is
    a draw step (burn_in + thin j, j >= 1). The boundaries are in the module docstring."""
    t = start
    while t < total:
        nxt = [total, burn_in + thin * (max(0, (t - burn_in) // thin) + 1)]
        if check_every:
            nxt.append((t // check_every + 1) * check_every)
        if burn_block is not None and t < burn_in:
            nxt += [burn_in, (t // burn_block + 1) * burn_block]
        n = 1 if single else min(nxt) - t
        t += n
        yield t - n, n, t > burn_in and (t - burn_in) % thin == 0


@dataclass
class Block:
    t: int  # steps done after this block
    n: int  # steps in this block
    state: State
    draw: bool  # t is a draw step


def run(integrator: Integrator, state: State, next_force: Callable, ctx: StepContext, *, total: int,
        start: int = 0, burn_in: int = 0, thin: int = 1, check_every: int | None = None,
        burn_block: int | None = None, step_sizes: Callable[[int], float] | None = None,
        before: Callable[[int], None] | None = None, inference: bool = False,
        stepper=None) -> Iterator[Block]:  # fmt: skip
    """Advance ``state`` block by block (``blocks``) and yield each block's end. The context
    carries the absolute step count, burn-in and total; ``step_sizes(l)`` (l = 1..total) sets
    the step of step l (one-step blocks); ``before(n)`` is called before each block.
    ``inference`` runs the steps under ``torch.inference_mode`` (a target whose
    ``closed_form`` is set); the states it yields are then inference tensors, which code
    outside may read and copy but not change in place. ``stepper``: what advances the blocks
    instead of the integrator itself (``integrators.compiled.CompiledBlocks``)."""
    ctx.burn_in, ctx.total_steps = burn_in, total
    for t, n, draw in blocks(total, start=start, burn_in=burn_in, thin=thin, check_every=check_every,
                             burn_block=burn_block, single=step_sizes is not None):  # fmt: skip
        if step_sizes is not None:
            ctx.h = float(step_sizes(t + 1))
        ctx.step = t
        if before is not None:
            before(n)
        with torch.inference_mode() if inference else contextlib.nullcontext():  # never switched off for a caller
            state = advance(integrator if stepper is None else stepper, state, n, next_force, ctx)
        yield Block(t + n, n, state, draw)


def force_supplier(potential, schedule: Schedule, on_force: Callable[[], None] | None = None) -> Callable:
    """next_force(): the oracle of the schedule's next minibatch (``on_force`` ticks first)."""

    def next_force():
        if on_force is not None:
            on_force()
        return Oracle(potential, schedule.next(), schedule.scale, schedule.eps)

    return next_force


@dataclass
class Chains:
    """C chains of one scheme on one target, ready to ``run``."""

    potential: Any
    integrator: Integrator
    schedule: Schedule
    ctx: StepContext
    state: State

    def __post_init__(self):
        self.next_force = force_supplier(self.potential, self.schedule)


def make_chains(potential, scheme: str | Integrator, params: dict | None = None, *, x0, v0=None, h: float,
                gamma: float, batching: str = "full", batch_size: int = 1, partition: str = "fixed",
                seed: int = 0, seeds: Seeds | None = None, device="cpu",
                dtype: torch.dtype = torch.float64) -> Chains:  # fmt: skip
    """Chains of ``scheme`` (a registered integrator name with ``params``, or an instance) from
    x0 [C, d] (in ``dtype`` on ``device``, float64 on the CPU by default) and v0 (else the
    integrator's initial velocity, drawn all the same), one minibatch per chain and step from
    ``Schedule(batching, ...)``, seeded by ``seeds`` (default ``Seeds.of(seed)``), the noise
    and the batches drawn on ``device`` as a run's are."""
    seeds = seeds or Seeds.of(seed)
    integ = get_integrator(scheme, **(params or {})) if isinstance(scheme, str) else scheme
    device = torch.device(device)
    x0 = torch.as_tensor(x0, dtype=dtype).to(device)
    if seeds.target is not None and hasattr(potential, "generator"):
        potential.generator.manual_seed(seeds.target)
    sched = Schedule(batching, potential.n_data, batch_size, chains=x0.shape[0], partition=partition,
                     generator=make_generator(device, seeds.batches), device=device)  # fmt: skip
    ctx = StepContext(h=h, gamma=gamma, noise=GaussianNoise(device, seeds.noise))
    state = integ.init_state(x0, ctx)
    if v0 is not None:
        state.v = torch.as_tensor(v0, dtype=dtype).to(device).clone()
    return Chains(potential, integ, sched, ctx, state)


def simulate(potential, scheme: str | Integrator, params: dict | None = None, *, x0, v0=None, h: float,
             gamma: float, steps: int, burn_in: int = 0, thin: int = 1,
             record: Callable[[int, State], None] | None = None, step_sizes: Callable[[int], float] | None = None,
             check_every: int | None = None, burn_block: int | None = None, batching: str = "full",
             batch_size: int = 1, partition: str = "fixed", seed: int = 0, seeds: Seeds | None = None,
             device="cpu", dtype: torch.dtype = torch.float64) -> State:  # fmt: skip
    """Run ``make_chains(...)`` for ``steps`` steps in the blocks of ``blocks`` and call
    ``record(t, state)`` at every draw step t = burn_in + thin j; returns the final state."""
    ch = make_chains(potential, scheme, params, x0=x0, v0=v0, h=h, gamma=gamma, batching=batching,
                     batch_size=batch_size, partition=partition, seed=seed, seeds=seeds, device=device,
                     dtype=dtype)  # fmt: skip
    ch.integrator.check_run(burn_in, steps)
    state = ch.state
    for blk in run(ch.integrator, state, ch.next_force, ch.ctx, total=steps, burn_in=burn_in, thin=thin,
                   check_every=check_every, burn_block=burn_block, step_sizes=step_sizes,
                   inference=getattr(potential, "closed_form", False)):  # fmt: skip
        state = blk.state
        if blk.draw and record is not None:
            record(blk.t, state)
    return state


def draws(potential, scheme: str, params: dict, *, chains: int, h: float, gamma: float, burn_in: int, thin: int,
          records: int, observe: Callable | None = None, batching: str = "full", batch_size: int = 1,
          partition: str = "fixed", seed: int = 0) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """(records [R, C, ...] float64, diverged [C] bool) of ``chains`` chains from x = 0:
    ``observe(x)`` (default x[:, 0]) at the R draw steps burn_in + thin j, the burn-in one
    block. Chains that go non-finite stay non-finite; once all have, the remaining records are
    NaN (the run stops)."""
    observe = observe or (lambda x: x[:, 0])
    x0 = torch.zeros(chains, potential.dim, dtype=torch.float64)
    ch = make_chains(potential, scheme, params, x0=x0, h=h, gamma=gamma, batching=batching, batch_size=batch_size,
                     partition=partition, seed=seed)  # fmt: skip
    out = None
    for blk in run(ch.integrator, ch.state, ch.next_force, ch.ctx, total=burn_in + thin * records,
                   burn_in=burn_in, thin=thin, burn_block=max(burn_in, 1), inference=getattr(potential, "closed_form", False)):  # fmt: skip
        if not blk.draw:
            continue
        obs = np.asarray(observe(blk.state.x), dtype=np.float64)
        if out is None:
            out = np.full((records, *obs.shape), np.nan)
        out[(blk.t - burn_in) // thin - 1] = obs
        if not torch.isfinite(blk.state.x).any():
            break
    diverged = ~np.all(np.isfinite(out.reshape(records, out.shape[1], -1)), axis=(0, 2))
    return out, diverged
