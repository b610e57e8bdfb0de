"""What ``compile=true`` buys a whole run: ``runner.run`` of sg_hmc on the peers suite's target
(logistic_synthetic, float32, batch 100 shared by the chains, h = 0.02, gamma = 5, one draw)
with compile=false and compile=true, the same chains and steps, in interleaved rounds after a
warm-up call of each (the warm-up pays the compilation, timed apart). Reported per chain count:
the first compiled run's wall time, and wall and CPU microseconds per step of each, median
[min, max] over rounds, with the ratio eager / compiled per round before the median.

    python scripts/bench_compile_flag.py --chains 1,10,100 --steps 200000 [--device cuda] [--rounds 3]

On a GPU compile=true also captures each block as a CUDA graph; wall time is the measure there
(the host waits on the device).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
from pathlib import Path

import torch
from bench_common import load_text, logistic_cfg, median_spread, ratio_spread, spread_text, timed


def measure(chains: int, steps: int, rounds: int, device: str) -> dict:
    from bnnsample import runner
    from bnnsample.integrators import compiled

    compiled.MIN_STEPS = compiled.MIN_STEPS_GPU = min(compiled.MIN_STEPS, steps)  # measured, not by the rule
    cfgs = {c: logistic_cfg(chains, steps, "sg_hmc", "float32", draws=1, overrides=[f"compile={c}", f"device={device}"])
            for c in ("false", "true")}  # fmt: skip

    def run(c: str):
        with tempfile.TemporaryDirectory() as d, contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):  # fmt: skip
            return timed(lambda: runner.run(cfgs[c], Path(d)))[1]

    first = {c: run(c) for c in cfgs}
    times = {c: [] for c in cfgs}
    for _ in range(rounds):
        for c in cfgs:
            times[c].append(run(c))
    out = {"first compiled run, wall s (compiles)": f"{first['true'].wall:.1f}"}
    for c, ts in times.items():
        out[f"compile={c}, wall us per step"] = spread_text(median_spread([t.wall / steps * 1e6 for t in ts]), ".2f")
        out[f"compile={c}, CPU us per step"] = spread_text(median_spread([t.cpu / steps * 1e6 for t in ts]), ".2f")
    out["eager / compiled, wall"] = spread_text(ratio_spread([1 / t.wall for t in times["true"]],
                                                            [1 / t.wall for t in times["false"]]))  # fmt: skip
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chains", default="1,10,100")
    ap.add_argument("--steps", type=int, default=200_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--device", default="cpu")
    a = ap.parse_args()
    torch.set_num_threads(1)
    dev = torch.cuda.get_device_name() if a.device.startswith("cuda") else "cpu"
    print(f"- sg_hmc, {a.steps:,} steps, float32, torch {torch.__version__}, 1 thread, device {dev}; {load_text()}")
    for c in (int(s) for s in a.chains.split(",")):
        r = measure(c, a.steps, a.rounds, a.device)
        print(f"- {c} chains: " + "; ".join(f"{k}: {v}" for k, v in r.items()), flush=True)
    print(f"- after: {load_text()}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
