"""The sampling loop: burn-in, thinning, divergence flags, streaming to HDF5, resume state.

The loop is the simulation kernel's (``simulate.run``) plus the HDF5 sink. It advances the
integrator in blocks whose boundaries are a function of the absolute
step count only (draw steps and multiples of ``check_every``), so a run resumed from a saved
state retraces the uninterrupted run exactly. Inside a block nothing synchronises with the
host; after each block a device-side test (``non_finite_rows``) marks diverged chains (they keep their
NaN/Inf values and cost, the other chains go on); a chain whose stored test predictive is not finite at a draw
(finite weights whose outputs overflow) is marked diverged too, so no metric reads its NaN. Draws are buffered on the device in
preallocated blocks of several draws (``DrawBuffer``) and written, one HDF5 write per
dataset and block, with the resume state at each flush: when the block is full, every
``flush_seconds``, at a stop and at the end. A run killed between flushes resumes from the
last flushed block and recomputes the draws that were only buffered.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import torch

from . import simulate
from .batching import Schedule
from .integrators.base import Integrator, State, StepContext
from .plumbing import hostmem
from .plumbing.errors import Interrupted
from .plumbing.stop import _stop, checked, request_stop  # noqa: F401 (request_stop: the loop's public handler)
from .potential import Potential
from .store import SampleStore


def non_finite_rows(*ts: torch.Tensor) -> torch.Tensor:
    """[C] bool: the chains (rows, the first axis) with a NaN or an infinity in any of ``ts``.
    ``x - x`` is 0 for every finite entry, however large, and NaN for NaN and +-inf, so a row
    sums to NaN exactly when it holds one: two passes over [C, ...] and a [C] test, against
    isfinite's bool tensor and its reduction (6x to 20x faster from 100 to 4000 chains)."""
    total = ts[0].sub(ts[0]).flatten(1).sum(dim=1)
    for t in ts[1:]:
        total.add_(t.sub(t).flatten(1).sum(dim=1))
    return torch.isnan(total)


@dataclass
class LoopSettings:
    burn_in: int  # steps discarded
    samples: int  # draws kept per chain
    thin: int  # steps between kept draws
    check_every: int = 100  # steps between divergence checks
    flush_seconds: float = 10.0
    flush_numbers: int = 2**23  # flush when this many buffered numbers accumulate
    progress: bool = True
    compile: bool = False  # compiled blocks of steps where they pay (integrators/compiled.py)

    @property
    def total_steps(self) -> int:
        return self.burn_in + self.samples * self.thin


def _to_np(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy()


def generator_state(g: torch.Generator) -> np.ndarray:
    return _to_np(g.get_state())


def draw_numbers(dim: int, store_theta: bool, predictive_numel: int) -> int:
    """Numbers one chain's draw writes: its position (when stored) and its predictive."""
    return max(1, (dim if store_theta else 0) + int(predictive_numel))


def block_draws(chains: int, per_draw: int, numbers: int) -> int:
    """Draws of one written block: the largest power of two whose draws of all chains hold at
    most ``numbers`` numbers (at least one draw). Blocks end at the multiples of it, and the
    store's chunks span a power of two of draws no larger (``SampleStore.create``), so a full
    block writes whole chunks: a chunk spanning several blocks is read back, checksummed and
    rewritten by each of them (10 ms per block for one diagnostic of 100 chains x 10,000
    planned draws, more than the block's predictive)."""
    b = max(1, numbers // max(1, chains * per_draw))
    return 1 << (b.bit_length() - 1)


class DrawBuffer:
    """The draws of all chains since the last write: one array [C, capacity, ...] per recorded
    quantity, allocated at the first draw on the draws' device; the j-th draw of the block
    is copied into slot j (no per-draw tensors kept, no stacking), and ``take`` hands the
    filled slots to the store as one array per quantity (one transfer, one HDF5 write)."""

    def __init__(self, capacity: int):
        self.capacity = max(1, int(capacity))
        self.n = 0
        self._arrays: dict[str, torch.Tensor] = {}
        self._slotted: set[str] = set()

    def _array(self, name: str, shape, dtype: torch.dtype, device) -> torch.Tensor:
        """The array of ``name`` [C, capacity, ...] for values of ``shape`` [C, ...]. Not filled
        when allocated (NaN-filling the 64 MB predictive buffer of 4,000 chains cost as much as
        5 of their sampling steps): only the slots of this block's earlier draws are."""
        a = self._arrays.get(name)
        if a is None:
            a = self._arrays[name] = hostmem.empty((shape[0], self.capacity, *shape[1:]), dtype, device)
            a[:, : self.n] = float("nan")
        return a

    def slot(self, name: str, shape, dtype: torch.dtype, device) -> torch.Tensor:
        """The current draw's slot of ``name`` [C, ...], for the caller to write in place (the
        test predictive: no temporary of its size, no copy); counts as given to ``add``."""
        self._slotted.add(name)
        return self._array(name, shape, dtype, device)[:, self.n]

    def add(self, values: dict[str, torch.Tensor], dtypes: dict[str, torch.dtype]) -> None:
        """Copy each value [C, ...] into its slot, converted to ``dtypes[name]``, and end the
        draw. A quantity first seen in the middle of a block is NaN in the block's earlier
        slots, one missing from a draw (neither given nor slotted) NaN in its slot."""
        for name, v in values.items():
            self._array(name, v.shape, dtypes[name], v.device)[:, self.n].copy_(v.detach())
        for name, a in self._arrays.items():
            if name not in values and name not in self._slotted:
                a[:, self.n] = float("nan")
        self._slotted.clear()
        self.n += 1

    def take(self) -> dict[str, np.ndarray]:
        """The block's draws {name: [C, n, ...]} on the host; the buffer starts a new block."""
        out = {name: _to_np(a[:, : self.n]) for name, a in self._arrays.items()} if self.n else {}
        self.n = 0
        return out


class Sampler:
    def __init__(
        self,
        potential: Potential,
        integrator: Integrator,
        schedule: Schedule,
        ctx: StepContext,
        settings: LoopSettings,
        store: SampleStore,
        store_theta: bool = True,
    ):
        self.potential, self.integrator, self.schedule = potential, integrator, schedule
        self.ctx, self.settings, self.store = ctx, settings, store
        self.store_theta = store_theta
        self.step = 0
        self.draws = 0
        self.diverged: torch.Tensor | None = None

    # -- resume -------------------------------------------------------------------------
    def state_arrays(self, state: State) -> dict[str, np.ndarray]:
        out = {f"tensor/{k}": _to_np(v) for k, v in state.tensors().items()}
        out.update({f"schedule/{k}": _to_np(v) for k, v in self.schedule.state_dict().items()})
        out.update({f"potential/{k}": _to_np(v) for k, v in self.potential.state_dict().items()})
        out["rng/noise"] = self.ctx.noise.state_array()
        out["rng/batch"] = generator_state(self.schedule.generator)
        out["step"] = np.asarray(self.step)
        out["draws"] = np.asarray(self.draws)
        out["diverged"] = _to_np(self.diverged)
        if getattr(self.ctx.boundary, "counts", None) is not None:
            out["bounces"] = _to_np(self.ctx.boundary.counts)
        return out

    def restore(self, arrays: dict[str, np.ndarray], device) -> State:
        t = lambda a: torch.as_tensor(a, device=device)  # noqa: E731
        tensors = {k.split("/", 1)[1]: t(v) for k, v in arrays.items() if k.startswith("tensor/")}
        sched = {k.split("/", 1)[1]: t(v) for k, v in arrays.items() if k.startswith("schedule/")}
        self.schedule.load_state_dict(sched)
        self.potential.load_state_dict(
            {k.split("/", 1)[1]: t(v) for k, v in arrays.items() if k.startswith("potential/")}
        )
        self.ctx.noise.load_state_array(arrays["rng/noise"])
        self.schedule.generator.set_state(torch.as_tensor(arrays["rng/batch"]))
        self.step = int(arrays["step"])
        self.draws = int(arrays["draws"])
        self.diverged = t(arrays["diverged"]).bool()
        if "bounces" in arrays and self.ctx.boundary is not None:
            self.ctx.boundary.counts = t(arrays["bounces"])
        x, v = tensors.pop("x"), tensors.pop("v")
        return State(x, v, tensors)

    # -- the loop -----------------------------------------------------------------------
    def _record(self, state: State, buf: DrawBuffer) -> None:
        values, dtypes = {}, {}
        if self.store_theta:
            values["theta"], dtypes["theta"] = state.x, state.x.dtype
        shape = getattr(self.potential, "predictive_shape", None)  # (n_test, K): set by the runner
        if shape is not None:
            out = buf.slot("predictive", (state.x.shape[0], *shape), torch.float32, state.x.device)
            self.potential.predict_into(state.x, out)
            self.diverged |= non_finite_rows(out)  # finite weights, overflowing outputs
        diag = {"kinetic_temperature": (state.v**2).mean(dim=1)}
        diag.update(self.potential.diagnostics())
        diag.update(self.integrator.diagnostics(state))
        if getattr(self.ctx.boundary, "counts", None) is not None:
            diag["bounces"] = self.ctx.boundary.counts
        for k, v in diag.items():
            values[f"diag/{k}"], dtypes[f"diag/{k}"] = v, torch.float64
        buf.add(values, dtypes)

    def _check(self, state: State) -> None:
        """Flag chains with non-finite x or v (on the device, no host sync). Non-finite
        values stay non-finite, so checking every check_every steps misses no chain."""
        self.diverged |= non_finite_rows(state.x, state.v)

    def _write_draws(self, buf: DrawBuffer, state: State) -> None:
        self._check(state)
        block = buf.take()
        new = self.store.new_diagnostics([k.split("/", 1)[1] for k in block if k.startswith("diag/")])
        draws = next((v.shape[1] for v in block.values()), 0)
        self.store.reserve(draws, new, self._state_bytes(state))
        self.store.append(
            theta=block.get("theta"),
            predictive=block.get("predictive"),
            diagnostics={k.split("/", 1)[1]: v for k, v in block.items() if k.startswith("diag/")},
        )
        self.store.set_diverged(_to_np(self.diverged))

    @staticmethod
    def _state_bytes(state: State) -> int:
        """About the bytes of the resume state (positions, velocities, thermostats)."""
        return sum(t.numel() * t.element_size() for t in vars(state).values() if isinstance(t, torch.Tensor))

    def _flush(self, state: State, buf: DrawBuffer) -> None:
        self._write_draws(buf, state)
        self.store.write_state(self.state_arrays(state))
        self.store.flush()

    def _stepper(self, total: int, tick):
        """The compiled blocks of ``compile=true`` where they pay (one line says whether), else None."""
        if not self.settings.compile:
            return None
        from .integrators.compiled import BLOCK, CompiledBlocks
        from .plumbing.progress import say

        why = CompiledBlocks.decide(True, self.integrator, self.potential, self.ctx, total)
        if why:
            say(f"compile=true: no compiled blocks of steps ({why})")
            return None
        say(f"compile=true: blocks of {BLOCK} steps of {self.integrator.name} compiled with torch.compile (the first "
            "compilation of a shape takes 13-21 s on a 2-core CPU, later ones a few seconds from torch's cache)")  # fmt: skip
        return CompiledBlocks(self.integrator, self.potential, self.schedule, tick)

    def run(self, state: State) -> State:
        s = self.settings
        total = s.total_steps
        if self.diverged is None:
            self.diverged = torch.zeros(state.x.shape[0], dtype=torch.bool, device=state.x.device)
        shape = getattr(self.potential, "predictive_shape", None)
        per_draw = draw_numbers(state.x[0].numel(), self.store_theta, math.prod(shape) if shape else 0)
        if self.store.block_draws is None:  # a store opened to resume: chunks of new datasets fit the blocks
            self.store.block_draws = block_draws(state.x.shape[0], per_draw, s.flush_numbers)
        block = self.store.block_draws
        buf = DrawBuffer(min(block, s.samples))
        last_flush = time.monotonic()
        from .plumbing import progress

        bar = progress.bar(total, "sampling", "step", initial=self.step, enabled_here=s.progress)
        bar.set_postfix(diverged=0)
        inner = progress.BlockBar(bar) if not bar.disable else None
        # the progress bar ticks once per force evaluation
        next_force = simulate.force_supplier(self.potential, self.schedule, inner.tick if inner is not None else None)
        stepper = self._stepper(total, inner.tick if inner is not None else None)
        try:
            with checked():  # a stop request waits for the block boundary
                for blk in simulate.run(self.integrator, state, next_force, self.ctx, total=total, start=self.step,
                                        burn_in=s.burn_in, thin=s.thin, check_every=s.check_every,
                                        before=inner.begin if inner is not None else None,
                                        inference=getattr(self.potential, "closed_form", False),
                                        stepper=stepper):  # fmt: skip
                    state, self.step = blk.state, blk.t
                    if self.step % s.check_every == 0:
                        self._check(state)
                    if inner is not None:
                        inner.finish()
                    else:
                        bar.update(blk.n)
                    full = False
                    if blk.draw:
                        self._record(state, buf)
                        self.draws += 1
                        full = self.draws % block == 0  # blocks end at multiples of block (resumed runs too)
                    now = time.monotonic()
                    stop = _stop["requested"]
                    if stop or self.step == total or full or now - last_flush > s.flush_seconds:
                        self._flush(state, buf)
                        last_flush = now
                        bar.set_postfix(diverged=int(self.diverged.sum()))
                    if stop:
                        _stop["requested"] = False
                        raise Interrupted(f"stopped at step {self.step} of {total} after {self.draws} draws")
        except Interrupted:
            bar.close()
            raise
        except KeyboardInterrupt:
            # The RNGs and the schedule may be mid-block: keep the draws made so far but the
            # resume state of the last flush (a resumed run rewrites the later draws).
            self._write_draws(buf, state)
            self.store.flush()
            bar.close()
            raise
        bar.close()
        return state
