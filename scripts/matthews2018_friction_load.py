"""CC-ADL's friction load at the start point of matthews2018 Fig. 2 or 3, without rerunning the figure's sampler
runs: results/<figure>/friction_load.csv, the file its rows' CC-ADL clause is read from.

    PYTHONPATH=. OMP_NUM_THREADS=1 python scripts/matthews2018_friction_load.py [matthews2018-fig3]

The runs of a figure start at the mean of its reference's final draws. This reruns the figure's reference at the
scale its committed claims.csv names, as the recipe runs it (``recipes.reference_and_start``: full-batch BAOAB,
seed 0; Fig. 3's scale=paper, 256 chains x 24,000 steps, about 30 CPU-s), and stops unless its mean, variance and
relative s.e. are the committed reference.csv's to their 6 written digits (then the start point is the run's). It
then evaluates ``passes.friction_load`` there for each n of the scale (500 minibatches each, seconds) and writes
the rows through the recipe's CSV writer. Fig. 2's run writes this file itself; Fig. 3's file is written by this
script since 2026-11-29 (the twenty-eighth audit: until then its rows' loads were read back from their own text).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[1] / "results"


def main() -> None:
    from bnnsample.figures.common import write_rows
    from bnnsample.papers.matthews2018 import recipes as mw
    from bnnsample.papers.matthews2018.toy_runs import toy_potential

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("figure", nargs="?", default="matthews2018-fig3", choices=sorted(mw.FIG_DATA))
    args = ap.parse_args()
    folder = RESULTS / args.figure
    scale = mw._read_rows(folder / "claims.csv")[0]["setting"].split("scale=")[1].split()[0]
    s = {"matthews2018-fig2": mw.FIG2, "matthews2018-fig3": mw.FIG3}[args.figure][scale]
    overrides, natural_of = mw.FIG_DATA[args.figure]
    pot = toy_potential(overrides)
    h = mw.FIG_H[args.figure]
    t0 = time.process_time()
    mean, var, rel_se, draws, x0 = mw.reference_and_start(pot, natural_of(pot), s, h, mw.FIG_REF_H[args.figure])
    print(f"{args.figure} scale={scale}: reference {time.process_time() - t0:.0f} CPU-s", flush=True)
    mismatch = mw.reference_mismatch(folder, mean, var, rel_se)
    if mismatch:
        sys.exit(mismatch)
    rows = mw.load_rows(pot, x0, h, s["n"])
    write_rows(folder / "friction_load.csv", rows)
    print(f"wrote {folder / 'friction_load.csv'} ({time.process_time() - t0:.0f} CPU-s in all)")


if __name__ == "__main__":
    main()
