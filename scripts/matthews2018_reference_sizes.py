"""How the reference of matthews2018 Fig. 2 (gmm3) resolves with its size: the measurements that price a test of
the 'about 50x fewer passes to a 1% error' row; results in results/matthews2018-fig2/reference_sizes.csv.

    PYTHONPATH=. OMP_NUM_THREADS=1 python scripts/matthews2018_reference_sizes.py [--sizes 64x8000 256x8000]

Each size runs the recipe's own reference (``passes.reference_moments``: full-batch BAOAB at h = 0.03 after
steps / 5 burn-in steps at h = 0.02 from x = 0, seed 0, as ``bnnsample figure matthews2018-fig2`` runs it) and
writes one row per natural coordinate (mu_1..3, lambda_1..3): its variance and that variance's relative s.e.
over chains, with the size's u (mean relative s.e. over the coordinates) and the CPU seconds of the run (one
thread). The scale=quick reference (64 x 2000) is the figure's own reference.csv.
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "results" / "matthews2018-fig2" / "reference_sizes.csv"


def main() -> None:
    from bnnsample.papers.matthews2018.passes import reference_moments
    from bnnsample.papers.matthews2018.toy_runs import toy_potential

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", default=["64x8000", "256x8000"], help="CHAINSxSTEPS")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    pot = toy_potential(["dataset=gmm3"])
    rows = []
    for size in args.sizes:
        chains, steps = (int(v) for v in size.split("x"))
        t0 = time.process_time()
        _, var, rel_se, draws = reference_moments(
            pot, pot.natural, chains=chains, steps=steps, burn=steps // 5, h=0.03, burn_h=0.02
        )
        cpu = time.process_time() - t0
        u = float(np.mean(rel_se))
        print(f"{chains} x {steps}: u = {u:.4f}, {cpu:.0f} CPU-s, {len(draws)} chains finite", flush=True)
        rows += [{"chains": chains, "steps": steps, "burn": steps // 5, "finite_chains": len(draws),
                  "cpu_s": round(cpu, 1), "u": f"{u:.6g}", "coordinate": k, "variance": f"{var[k]:.6g}",
                  "variance_rel_se": f"{rel_se[k]:.6g}"} for k in range(len(var))]  # fmt: skip
    with args.out.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
