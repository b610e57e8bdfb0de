"""Throughput benchmarks, reported as ratios against a baseline measured in the same run.

    python scripts/bench.py [--chains 4000] [--steps 4000] [--out results/bench.md]

two_batch_gaussian: SMS-UBU chain-steps per second through the real pipeline
(``bnnsample.runner.run``: schedule, integrator, divergence checks, HDF5 streaming), with the
bare closed-form force evaluation of the same chains as the baseline.
"""

from __future__ import annotations

import argparse
import platform
import tempfile
import time
from pathlib import Path

import torch


def bench_two_batch(chains: int, steps: int) -> dict:
    from hydra import compose, initialize_config_dir

    from bnnsample import runner
    from bnnsample.models.analytic import GaussianMean
    from bnnsample.paths import conf_dir

    with initialize_config_dir(str(conf_dir()), version_base="1.3"):
        cfg = compose(
            "config",
            overrides=[
                "dataset=two_batch_gaussian", "integrator=sms_ubu", f"chains={chains}", "step_size=0.0625",
                "friction=1", "dtype=float64", "burn_in=0", f"samples={steps // 4}", "thin=4", "progress=false",
            ],
        )  # fmt: skip
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        runner.run(cfg, Path(d))
        total = time.perf_counter() - t0
    # baseline: the same number of bare minibatch force evaluations
    pot = GaussianMean(torch.tensor([[-1.0], [1.0]], dtype=torch.float64), torch.tensor([0.5, 2.0], dtype=torch.float64))
    x = torch.zeros(chains, 1, dtype=torch.float64)
    idx = torch.randint(2, (chains, 1))
    t0 = time.perf_counter()
    for _ in range(steps):
        pot.force(x, idx, 2.0)
    force_time = time.perf_counter() - t0
    return {
        "chains": chains,
        "steps": steps,
        "seconds (whole run incl. setup and HDF5)": total,
        "chain-steps/s": chains * steps / total,
        "run time / bare force time": total / force_time,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chains", type=int, default=4000)
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    r = bench_two_batch(a.chains, a.steps)
    lines = [
        f"## two_batch_gaussian, SMS-UBU, float64 ({platform.processor() or platform.machine()}, "
        f"torch {torch.__version__}, {torch.get_num_threads()} threads)",
        "",
        *[f"- {k}: {v:,.3g}" if isinstance(v, float) else f"- {k}: {v}" for k, v in r.items()],
    ]
    text = "\n".join(lines)
    print(text)
    if a.out:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        with open(a.out, "a") as f:
            f.write(text + "\n\n")


if __name__ == "__main__":
    main()
