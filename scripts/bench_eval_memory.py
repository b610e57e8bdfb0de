"""Peak memory of `bnnsample evaluate` against the number of draws (a benchmark, not a test).

    python scripts/bench_eval_memory.py [--draws 100,400,1600] [--chains 16] [--dir /tmp/evalmem] [--reference]

For each draw count: one run of Bayesian logistic regression (logistic_synthetic, d = 100,
2,000 test points: theta and the predictive grow with the draws; unit=step, thin=1) is made
with `bnnsample run evaluate=false`, then `bnnsample evaluate` runs in a child process whose
peak resident memory (ru_maxrss of wait4) is reported next to the size of samples.h5 and the
peak memory of the sampling run itself. Flat evaluation memory means the last column does not
grow with the draws. ``--reference`` makes a second run of the same size (another seed) and
evaluates with ``reference=`` it (the Kolmogorov distances need every draw of a test point).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path


def _peak_mb(args: list[str]) -> tuple[float, float]:
    """(peak resident MB, CPU seconds) of one `bnnsample` command in a child process."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    p = subprocess.Popen([sys.executable, "-m", "bnnsample.cli", *args], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    _, status, usage = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"bnnsample {' '.join(args)} failed: {p.stderr.read().decode()[-500:]}")
    return usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime  # kB on Linux


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", default="100,400,1600")
    ap.add_argument("--chains", type=int, default=16)
    ap.add_argument("--dir", default="/tmp/bnnsample-evalmem")
    ap.add_argument("--reference", action="store_true", help="evaluate against a second run of the same size")
    a = ap.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; reference: {a.reference}")
    print(f"{'draws':>7} {'samples.h5 MB':>14} {'run peak MB':>12} {'evaluate peak MB':>17} {'evaluate CPU s':>15}")
    for n in [int(x) for x in a.draws.split(",")]:
        run_dir = Path(a.dir) / f"draws{n}"
        run = ["run", "dataset=logistic_synthetic", f"chains={a.chains}", "unit=step", "burn_in=10",
               f"samples={n}", "thin=1", "progress=false", "evaluate=false", f"hydra.run.dir={run_dir}"]  # fmt: skip
        run_mb, _ = _peak_mb(run)
        extra = []
        if a.reference:
            ref_dir = Path(a.dir) / f"reference{n}"
            _peak_mb([*run[:-1], "seed=1", f"hydra.run.dir={ref_dir}"])
            extra = [f"reference={ref_dir}"]
        eval_mb, eval_cpu = _peak_mb(["evaluate", str(run_dir), *extra])
        size = (run_dir / "samples.h5").stat().st_size / 2**20
        print(f"{n:>7} {size:>14.1f} {run_mb:>12.0f} {eval_mb:>17.0f} {eval_cpu:>15.1f}", flush=True)


if __name__ == "__main__":
    main()
