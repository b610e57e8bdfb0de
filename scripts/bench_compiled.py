"""What torch.compile would buy bnnsample's step at few chains: a measurement, not a feature.

Blocks of K steps of a registered integrator on the peers suite's target (logistic_synthetic,
float32, one batch of 100 shared by the chains, h = 0.02, gamma = 5), run through the
integrator's own ``advance`` with the block's normals and batch indices drawn outside (one
``torch.randn`` and one ``torch.randint`` per block) and handed out in step order, eagerly and
compiled (``torch.compile(fullgraph=True)`` of the same block function). Reported per chain
count: the compilation's wall time, the largest relative difference of the compiled positions
from the eager ones on the same inputs, and CPU microseconds per step of each, median [min, max]
over interleaved rounds, under ``torch.inference_mode`` on one thread.

    python scripts/bench_compiled.py --chains 1,10,100 [--block 16] [--integrator em]

A cold compilation needs an empty inductor cache (TORCHINDUCTOR_CACHE_DIR=$(mktemp -d)).
"""

from __future__ import annotations

import argparse
import time

import torch
from bench_common import load_text, logistic_cfg, median_spread, spread_text

from bnnsample.data import load_data
from bnnsample.integrators import get_integrator
from bnnsample.integrators.base import State, StepContext
from bnnsample.integrators.compiled import Counted, Replayed
from bnnsample.models import build_potential
from bnnsample.potential import Oracle


def measure(chains: int, block: int, integrator: str, rounds: int) -> dict:
    cfg = logistic_cfg(chains, 100, "sg_hmc", "float32", draws=1)
    pot = build_potential(cfg.model, load_data(cfg), torch.device("cpu"), torch.float32, seed=0)
    integ = get_integrator(integrator)
    h, gamma, n, scale = 0.02, 5.0, int(cfg.batch_size), pot.n_data / int(cfg.batch_size)
    d = pot.dim

    counter = StepContext(h=h, gamma=gamma, noise=Counted())
    zeros = State(torch.zeros(chains, d), torch.zeros(chains, d))
    integ.advance(zeros, block, lambda: Oracle(pot, torch.zeros(n, dtype=torch.long), scale), counter)
    normals = counter.noise.used

    def steps(x, v, noise, idx):
        batches = iter(idx.unbind(0))
        ctx = StepContext(h=h, gamma=gamma, noise=Replayed(noise))
        s = integ.advance(State(x, v), block, lambda: Oracle(pot, next(batches), scale), ctx)
        return s.x, s.v

    compiled = torch.compile(steps, fullgraph=True, dynamic=False)
    g = torch.Generator().manual_seed(0)
    x0, v0 = torch.zeros(chains, d), torch.randn(chains, d, generator=g)

    def run(fn, blocks: int):
        x, v = x0, v0
        for _ in range(blocks):
            x, v = fn(x, v, torch.randn(normals, generator=g), torch.randint(pot.n_data, (block, n), generator=g))
        return x

    out = {}
    with torch.inference_mode():
        t0 = time.perf_counter()
        run(compiled, 2)
        out["compile s (wall; inductor cache as found)"] = f"{time.perf_counter() - t0:.1f}"
        noise, idx = torch.randn(normals, generator=g), torch.randint(pot.n_data, (block, n), generator=g)
        e, c = steps(x0, v0, noise, idx)[0], compiled(x0, v0, noise, idx)[0]
        out["max |compiled - eager| / max |eager|, one block"] = f"{float((c - e).abs().max() / e.abs().max()):.2e}"
        blocks = max(2, 20_000 // (block * chains))
        times = {"eager": [], "compiled": []}
        for _ in range(rounds):
            for name, fn in (("eager", steps), ("compiled", compiled)):
                t0 = time.process_time()
                run(fn, blocks)
                times[name].append((time.process_time() - t0) / (blocks * block) * 1e6)
    for name, ts in times.items():
        out[f"{name}, CPU us per step"] = spread_text(median_spread(ts), ".2f")
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chains", default="1,10,100")
    ap.add_argument("--block", type=int, default=16, help="steps per compiled call")
    ap.add_argument("--integrator", default="em", help="a registered integrator (em: sg_hmc's scheme)")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    torch.set_num_threads(1)
    print(f"- {a.integrator}, blocks of {a.block} steps, torch {torch.__version__}, 1 thread; {load_text()}")
    for c in (int(s) for s in a.chains.split(",")):
        r = measure(c, a.block, a.integrator, a.rounds)
        print(f"- {c} chains: " + "; ".join(f"{k}: {v}" for k, v in r.items()), flush=True)


if __name__ == "__main__":
    main()
