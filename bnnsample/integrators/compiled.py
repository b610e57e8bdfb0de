"""Compiled blocks of steps (``compile=true``): K steps of an integrator's own ``advance`` as one
``torch.compile``d function, for runs of few chains, where eager torch spends most of a step
dispatching its ten or so small kernels (scripts/bench_compiled.py measured 16.6 against 7.4 us
per Euler-Maruyama step at one chain on this project's CPU); on a GPU the block is also a CUDA
graph (``mode="reduce-overhead"``), one launch for all its kernels.

The compiled function is a pure function of its inputs: the positions, velocities and the
scheme's extra state, the K minibatches (drawn by the schedule outside it, in step order, and
stacked) and the K steps' normals (one draw of all of them from the run's noise stream, handed
out in the order the steps ask for them). A compiled run is therefore reproducible like an eager
one, but it consumes the noise stream in blocks, so its draws are not those of an eager run of
the same seed (the law is the same; ``compile`` is a sampling key of the config). The steps of a
sampler block that do not fill K (block lengths follow thin, check_every and the flushes) run
eagerly.

Only where compiling pays and is known to trace: a closed-form target (``closed_form``), no
boundary, a scheme whose class is ``compilable`` (the Langevin family: no step-dependent rule, the same
requests every step), minibatches of one size, and a run of at least ``MIN_STEPS`` steps on a
CPU (the first compilation took 13-21 s here, which a saving of about 9 us per step repays after
about 2M steps; torch's on-disk cache makes later compilations of the same shapes a few
seconds) or ``MIN_STEPS_GPU`` on a GPU.
``CompiledBlocks.decide`` says which, in one line printed at the start of the run.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable

import torch

from .base import Integrator, State, StepContext, capable

BLOCK = 16  # steps per compiled call: long enough to amortise a call, short enough to trace fast
MIN_STEPS = 200_000
# on a GPU a compiled block also saves the launches: about 300 us a step on an H200 at 1-100
# chains, which repays 6-15 s of compilation after some 50,000 steps
MIN_STEPS_GPU = 50_000


class Replayed:
    """A noise stream handing out a flat buffer of normals in request order (shapes from the requests)."""

    def __init__(self, buf: torch.Tensor):
        self.buf, self.used = buf, 0

    def __call__(self, *shape: int, like: torch.Tensor) -> torch.Tensor:
        m = math.prod(shape)
        out = self.buf[self.used : self.used + m].view(shape)
        self.used += m
        return out


class Counted:
    """A noise stream that counts the normals asked of it (zeros)."""

    def __init__(self):
        self.used = 0

    def __call__(self, *shape: int, like: torch.Tensor) -> torch.Tensor:
        self.used += math.prod(shape)
        return torch.zeros(shape, dtype=like.dtype, device=like.device)


class CompiledBlocks:
    """Advance a state as ``integrator.advance`` does, BLOCK steps at a time through one compiled
    function (``advance``); ``on_force`` ticks once per step, as the eager force supplier does."""

    def __init__(self, integrator: Integrator, potential, schedule, on_force: Callable[[], None] | None = None,
                 block: int = BLOCK):  # fmt: skip
        from ..potential import Oracle

        # inductor's C++ build says, as a warning, that a CPU-only machine has no CUDA runtime
        logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)
        self.integrator, self.potential, self.schedule, self.on_force = integrator, potential, schedule, on_force
        self.block, self.normals = block, None  # normals per block: counted on the first call
        scale, eps = schedule.scale, schedule.eps

        def steps(x, v, extra: dict, noise: torch.Tensor, idx, h: float, gamma: float):
            batches = iter(idx.unbind(0)) if idx is not None else None
            ctx = StepContext(h=h, gamma=gamma, noise=Replayed(noise))
            s = integrator.advance(State(x, v, dict(extra)), block,
                                   lambda: Oracle(potential, next(batches) if batches is not None else None, scale, eps),
                                   ctx)  # fmt: skip
            return s.x, s.v, s.extra

        self.eager_steps = steps  # the same function uncompiled (tests hold the compiled one to it)
        # on a GPU the block is also captured as a CUDA graph (one launch for its kernels), whose
        # outputs the next replay overwrites: they are copied out
        self.graphs = schedule.device.type == "cuda"
        self._steps = torch.compile(steps, fullgraph=True, dynamic=False,
                                    mode="reduce-overhead" if self.graphs else None)  # fmt: skip

    @staticmethod
    def decide(compile_: bool, integrator: Integrator, potential, ctx: StepContext, total_steps: int) -> str:
        """'' when the run should compile its blocks, else why not (one line); '' also when
        ``compile_`` is off and there is nothing to say."""
        if not compile_:
            return ""
        if not integrator.compilable:
            allowed = ", ".join(capable("compilable"))
            return f"integrator {integrator.name} is not one compile=true traces (allowed: {allowed})"
        if not getattr(potential, "closed_form", False):
            return ("the target is not a closed-form model (blocks are for logistic, linear and Gaussian targets; a "
                    "network's own force is compiled instead)")  # fmt: skip
        if ctx.boundary is not None:
            return "the run has a boundary (bounces), which compile=true does not trace"
        gpu = getattr(ctx.noise, "device", torch.device("cpu")).type == "cuda"
        need = MIN_STEPS_GPU if gpu else MIN_STEPS
        if total_steps < need:
            return (f"the run has {total_steps:,} steps, fewer than the {need:,} that repay the compilation "
                    f"({'6-15 s on an H200' if gpu else '13-21 s the first time on a 2-core CPU'})")  # fmt: skip
        return ""

    def _count(self, state: State, ctx: StepContext, idx) -> int:
        """Normals one block asks for: the integrator run on zeros with a counting noise stream
        (the batch ``idx`` for every step)."""
        from ..potential import Oracle

        extra = {k: v.clone() for k, v in state.extra.items()}
        zeros = State(torch.zeros_like(state.x), torch.zeros_like(state.v), extra)
        probe = StepContext(h=ctx.h, gamma=ctx.gamma, noise=Counted())
        self.integrator.advance(zeros, self.block, lambda: Oracle(self.potential, idx, 1.0), probe)
        return probe.noise.used

    def advance(self, state: State, n: int, next_force: Callable, ctx: StepContext) -> State:
        """``n`` steps: whole blocks compiled, the rest eagerly (``next_force``)."""
        whole, rest = divmod(n, self.block)
        for _ in range(whole):
            batches = [self.schedule.next() for _ in range(self.block)]
            if not _stackable(batches):
                state = _eager_with(self.integrator, state, batches, ctx, self.potential, self.schedule)
            else:
                if self.normals is None:
                    self.normals = self._count(state, ctx, batches[0])
                noise = ctx.noise(self.normals, like=state.x)
                idx = None if batches[0] is None else torch.stack(batches)
                x, v, extra = self._steps(state.x, state.v, state.extra, noise, idx, ctx.h, ctx.gamma)
                if self.graphs:
                    x, v, extra = x.clone(), v.clone(), {k: t.clone() for k, t in extra.items()}
                state = State(x, v, extra)
            if self.on_force is not None:
                for _ in range(self.block):
                    self.on_force()
        return self.integrator.advance(state, rest, next_force, ctx) if rest else state


def _stackable(batches) -> bool:
    """All full-data steps (None), or all minibatches of one shape."""
    if batches[0] is None:
        return all(b is None for b in batches)
    return all(b is not None and b.shape == batches[0].shape for b in batches)


def _eager_with(integrator: Integrator, state: State, batches, ctx: StepContext, potential, schedule) -> State:
    """The block eagerly, on minibatches already drawn (ones of unequal sizes cannot be stacked)."""
    from ..potential import Oracle

    it = iter(batches)
    return integrator.advance(state, len(batches), lambda: Oracle(potential, next(it), schedule.scale, schedule.eps),
                              ctx)  # fmt: skip
