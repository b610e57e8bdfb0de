"""The network path's throughput: training and sampling steps of R batched ``cnn_fmnist`` runs.

    python scripts/bench.py --suite throughput --device cuda [--runs 1,8,16,64] [--repeats 3]

For each number of runs R and each arithmetic (``model.precision`` float32 / tf32 / bf16, with
deterministic kernels or cuDNN's autotuned ones, and torch.compile of the force), two steps of
what paulin2025 Fig. 4's runs do, on random data of Fashion-MNIST's shape:

  train   one Adam step of R runs, each on its own minibatch of 200 (``train_runs``' step:
          the force of the stacked runs, vmapped over runs on CUDA, and the elementwise Adam)
  sample  one UBU step of R runs on a shared minibatch of 200 (the runner's step: OU flows,
          noise and one force; no control variate, whose cached reference gradients do not fit
          64 runs)

Each is timed over ``steps`` steps after three warm-up steps (autotuning and compilation apart),
synchronising the device; variants are interleaved over ``repeats`` rounds and the medians
reported with CPU time beside wall time. FLOPs are the model's: the forward and backward of one
run's minibatch counted by ``FlopCounterMode`` on the one-run path, times R (the vmapped kernels
may do more arithmetic; that is their cost, not useful work). The achieved rate is set against
the device's dense tensor-core peaks (``PEAKS``, from the vendor's data sheets, by device name):
TF32 for float32 and tf32, bf16 for bf16. A variant that fails (out of memory, no compiler) says
so in its cell and the others go on.
"""

from __future__ import annotations

import time

import torch
from bench_common import load_text, median_spread, spread_text

# dense (no structured sparsity) peaks in FLOP/s: (TF32 tensor cores, bf16 tensor cores)
PEAKS = {
    "H200": (494.7e12, 989.4e12),
    "H100 PCIe": (378.0e12, 756.0e12),
    "H100": (494.7e12, 989.4e12),  # SXM
    "A100": (156.0e12, 312.0e12),
}
VARIANTS = (  # (label, model.precision, deterministic kernels, torch.compile of the force)
    ("float32, deterministic", "float32", True, False),
    ("tf32, deterministic", "tf32", True, False),
    ("tf32, autotuned", "tf32", False, False),
    ("bf16, autotuned", "bf16", False, False),
    ("bf16, autotuned, compiled", "bf16", False, True),
)
BATCH = 200


def device_peaks(name: str) -> tuple[float, float] | None:
    """(dense TF32, dense bf16) peak FLOP/s of the device called ``name``, or None if unknown."""
    for key, peaks in PEAKS.items():
        if all(word in name for word in key.split()):
            return peaks
    return None


def _potential(precision: str, dev: torch.device, n_data: int):
    from bnnsample.models.cnn import cnn_fmnist
    from bnnsample.models.network import ClassifierPotential

    torch.manual_seed(0)
    module = cnn_fmnist().to(dev)
    g = torch.Generator().manual_seed(0)
    x = torch.rand(n_data, 1, 28, 28, generator=g).to(dev)
    y = torch.randint(10, (n_data,), generator=g).to(dev)
    return ClassifierPotential(module, x, y, x[:10], precision=precision, memory_format="contiguous")


def model_flops(dev: torch.device, batch: int = BATCH) -> float:
    """FLOPs of one run's forward and backward on a minibatch of ``batch`` (one-run path)."""
    from torch.utils.flop_counter import FlopCounterMode

    pot = _potential("float32", dev, batch)
    x = pot.layout.flatten(pot.module)[None]
    with FlopCounterMode(display=False) as fc:
        pot.force(x, torch.arange(batch, device=dev)[None], 1.0)
    return float(fc.get_total_flops())


class _Cell:
    """The train and sample steps of R runs in one variant, built once, timed per round."""

    def __init__(self, runs: int, precision: str, compiled: bool, dev: torch.device, n_data: int, batch: int):
        from bnnsample.integrators import StepContext, get_integrator
        from bnnsample.plumbing.rng import GaussianNoise
        from bnnsample.potential import Oracle
        from bnnsample.train import Adam

        self.dev, self.runs = dev, runs
        self.pot = _potential(precision, dev, n_data)
        if compiled:  # what compile=true does to a network target (the sampler's oracle calls it too)
            self.pot.compile_force()
        self.x = self.pot.layout.flatten(self.pot.module)[None].repeat(runs, 1)
        self.opt = Adam.fresh(self.x)
        self.gen = torch.Generator(device=dev).manual_seed(1)
        self.n, self.batch, self.scale = n_data, batch, n_data / batch
        self.integ = get_integrator("ubu")
        self.ctx = StepContext(h=1e-4, gamma=7.07, noise=GaussianNoise(dev, 2))
        self.state = self.integ.init_state(self.x.clone(), self.ctx)
        self.oracle = Oracle

    def _idx(self, *shape):
        return torch.randint(self.n, shape, device=self.dev, generator=self.gen)

    def train(self, steps: int) -> None:
        for _ in range(steps):
            with torch.no_grad():
                g = self.pot.force(self.x, self._idx(self.runs, self.batch), self.scale).div_(self.n)
            self.opt.step(self.x, g, 1e-4)

    def sample(self, steps: int) -> None:
        def nf():
            return self.oracle(self.pot, self._idx(self.batch), self.scale, 0.0)

        self.state = self.integ.advance(self.state, steps, nf, self.ctx)


def _sync(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def _timed(fn, steps, dev) -> tuple[float, float]:
    """(wall, CPU) seconds per step of ``fn(steps)``, synchronised."""
    _sync(dev)
    w, c = time.perf_counter(), time.process_time()
    fn(steps)
    _sync(dev)
    return (time.perf_counter() - w) / steps, (time.process_time() - c) / steps


def _build(runs: int, variants, dev, n_data: int, batch: int) -> tuple[dict, dict]:
    """({label: (cell, deterministic, precision)} warmed up, {label: why it failed})."""
    from bnnsample.plumbing.determinism import deterministic_kernels

    cells, failed = {}, {}
    for label, precision, det, compiled in variants:
        try:
            with deterministic_kernels(dev, det):
                cell = _Cell(runs, precision, compiled, dev, n_data, batch)
                cell.train(3), cell.sample(3)  # warm-up: autotuning, compilation
                _sync(dev)
            cells[label] = (cell, det, precision)
        except (RuntimeError, torch.OutOfMemoryError) as e:  # noqa: PERF203
            failed[label] = f"failed: {type(e).__name__}: {str(e).splitlines()[0][:120]}"
            if dev.type == "cuda":
                torch.cuda.empty_cache()
    return cells, failed


def _time(cells: dict, steps: int, repeats: int, dev) -> dict:
    """{(label, step): [(wall, CPU) seconds per step of each round]}, the variants interleaved."""
    from bnnsample.plumbing.determinism import deterministic_kernels

    times = {(label, k): [] for label in cells for k in ("train", "sample")}
    for _ in range(repeats):
        for label, (cell, det, _) in cells.items():
            with deterministic_kernels(dev, det):
                for k in ("train", "sample"):
                    times[label, k].append(_timed(getattr(cell, k), steps, dev))
    return times


def _row(runs: int, label: str, k: str, per_round: list, flops: float, peak: float | None) -> str:
    wall = median_spread([t[0] for t in per_round])
    cpu = median_spread([t[1] for t in per_round])[0]
    rate = flops * runs / wall[0]
    return (f"| {runs} | {label} | {k} | {spread_text(tuple(w * 1e3 for w in wall), '.2f')} | {cpu * 1e3:.2f} | "
            f"{rate / 1e12:.2f} | {f'{rate / peak:.1%}' if peak else '-'} |")  # fmt: skip


def run_suite(
    runs_list, steps: int, repeats: int, device: str, n_data: int = 2000, variants=VARIANTS, batch: int = BATCH
) -> str:
    """Markdown: one table row per (runs, variant, step), each printed as it is measured (a run
    stopped at its time limit keeps them)."""
    dev = torch.device(device)
    name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu"
    peaks = device_peaks(name)
    flops = model_flops(dev, batch)
    rows = [f"device {name}; torch {torch.__version__}; cnn_fmnist, batch {batch} per run, {n_data} random images; "
            f"model FLOPs of one run's forward + backward: {flops / 1e9:.1f} GFLOP; dense peaks (TF32, bf16): "
            + (f"{peaks[0] / 1e12:.0f}, {peaks[1] / 1e12:.0f} TFLOP/s" if peaks else "unknown for this device")
            + f"; {steps} steps per timing, {repeats} rounds interleaved; load {load_text()}", "",
            "| runs | arithmetic | step | ms per step (median [min, max]) | CPU ms per step | TFLOP/s | of peak |",
            "|---|---|---|---|---|---|---|"]  # fmt: skip
    print("\n".join(rows), flush=True)
    for runs in runs_list:
        cells, failed = _build(runs, variants, dev, n_data, batch)
        times = _time(cells, steps, repeats, dev)
        for label, precision, *_ in variants:
            peak = None if peaks is None else peaks[1 if precision == "bf16" else 0]
            new = ([f"| {runs} | {label} | - | {failed[label]} | | | |"] if label in failed else
                   [_row(runs, label, k, times[label, k], flops, peak) for k in ("train", "sample")])  # fmt: skip
            rows += new
            print("\n".join(new), flush=True)
        del cells
    return "\n".join(rows)
