"""The sampler seed runs of matthews2018 Fig. 2 that its seed plan asks for and its committed seed_scatter.csv lacks,
without rerunning the figure: results/matthews2018-fig2/seed_scatter.csv, rewritten in the order a run writes it.

    PYTHONPATH=. OMP_NUM_THREADS=1 python scripts/matthews2018_more_seeds.py [--record-cost]

Written on 2026-11-30 (the thirty-third audit) when ``recipes._seed_covariances`` began to seed both covariances of
mSGLD at an n where either is stable: at scale=paper that adds n = 16 (3 further seeds with each covariance; the main
runs' rows are read from error_vs_passes.csv), which the committed run (3,881 CPU-s) had not seeded. The runs start
at the mean of the figure's reference's final draws, so this reruns the reference at the scale the committed
claims.csv names, as the recipe runs it (``recipes.reference_and_start``: full-batch BAOAB, seed 0; scale=paper's
256 chains x 24,000 steps, the bulk of this script's CPU time), and stops unless its mean, variance and relative
s.e. are the committed reference.csv's to their 6 written digits (then the start point is the run's). It reruns one
planned cell's main run as a second check (its final error must be error_vs_passes.csv's to 5 digits), then runs the
missing seeds through the recipe's own ``seed_row`` (seeds 1000 k + i, i: the n's index) and writes the file through
the recipe's CSV writer. ``--record-cost`` records its CPU seconds in results/costs.csv as the row of
``matthews2018-fig2`` at the scale with the option script=matthews2018_more_seeds.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[1] / "results"
FIG = "matthews2018-fig2"


def main() -> None:
    from bnnsample.figures.common import write_rows
    from bnnsample.figures.costs import LEDGER, record_cost
    from bnnsample.papers.matthews2018 import recipes as mw
    from bnnsample.papers.matthews2018.passes import passes_error
    from bnnsample.papers.matthews2018.toy_runs import toy_potential

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--record-cost", action="store_true", help="record the CPU seconds in results/costs.csv")
    args = ap.parse_args()
    folder = RESULTS / FIG
    scale = mw._read_rows(folder / "claims.csv")[0]["setting"].split("scale=")[1].split()[0]
    s, covs, h = mw.FIG2[scale], ("estimated", "exact"), mw.FIG_H[FIG]
    rows = mw._read_rows(folder / "error_vs_passes.csv")
    have = {(r["scheme"], r["covariance"], r["n"], r["seed"]): r for r in mw._read_rows(folder / "seed_scatter.csv")}
    plan = mw.fig2_seed_plan(rows, s, covs)
    missing = [run for run in plan if (run[0], run[1], run[3], 1000 * run[4] + run[2]) not in have]
    print(f"{FIG} scale={scale}: {len(plan)} planned seed rows, {len(have)} committed, {len(missing)} to run: "
          + ", ".join(f"{sc} {cov} n={n} seed {1000 * k + i}" for sc, cov, i, n, k in missing), flush=True)  # fmt: skip
    if not missing:
        return
    overrides, natural_of = mw.FIG_DATA[FIG]
    pot = toy_potential(overrides)
    natural = natural_of(pot)
    t0, w0 = time.process_time(), time.time()
    mean, var, rel_se, draws, x0 = mw.reference_and_start(pot, natural, s, h, mw.FIG_REF_H[FIG])
    print(f"reference: {time.process_time() - t0:.0f} CPU-s", flush=True)
    mismatch = mw.reference_mismatch(folder, mean, var, rel_se)
    if mismatch:
        sys.exit(mismatch)
    check = next(r for r in plan if r[4] == 0 and math.isfinite(mw._final(rows, *r[:2], r[3])))
    sc, cov, i, n, _ = check
    again = passes_error(pot, natural, var, sc, cov, n, h=h, x0=x0, max_passes=s["passes"], seed=i,
                         pass_n=s.get("pass_N"))[-1]["error"]  # fmt: skip
    if not math.isclose(again, mw._final(rows, sc, cov, n), rel_tol=1e-5):
        sys.exit(f"{sc} {cov} n={n}'s main run gives {again:.6g}, not error_vs_passes.csv's: the runs would differ")
    print(f"{sc} {cov} n={n}: main run reproduced ({again:.6g}); {time.process_time() - t0:.0f} CPU-s", flush=True)
    for run in missing:
        r = mw.seed_row(pot, natural, var, x0, s, h, rows, run)
        have[r["scheme"], r["covariance"], r["n"], r["seed"]] = r
        print(f"{run[0]} {run[1]} n={run[3]} seed {r['seed']}: {r['error']:.6g}", flush=True)
    out = [have[sc, cov, n, 1000 * k + i] for sc, cov, i, n, k in plan]
    write_rows(folder / "seed_scatter.csv", out)
    cpu, wall = time.process_time() - t0, time.time() - w0
    print(f"wrote {folder / 'seed_scatter.csv'} ({len(out)} rows; {cpu:.0f} CPU-s, {wall:.0f} s wall)")
    if args.record_cost:
        record_cost(RESULTS / LEDGER, FIG, {"scale": scale, "script": "matthews2018_more_seeds"}, wall, cpu)


if __name__ == "__main__":
    main()
