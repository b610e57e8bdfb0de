"""What paulin2025-fig2's scale=paper costs in CPU seconds: each sampler's coupled levels on the scale's grid (6 levels,
h = 0.002 ... 6.25e-5, 4 chains) for 1/120 of its 12 time units per level, timed with the process's CPU clock; results
in results/paulin2025-fig2/paper_cost.csv. Needs the Fashion-MNIST files (as the committed quick run had).

    PYTHONPATH=. OMP_NUM_THREADS=1 python scripts/fig2_paper_cost.py

A level of T time units runs round(T / h) coarse steps, discards the first fifth and records every round(0.02 / h)
steps (``multinomial_runs.run_sampler``), so its steps and records are both proportional to T: at T = 0.1 each level
records 4 times, at the paper scale's T = 12 480 times, and scale=paper's sampling costs 120 times what this run
measures. The runs start at x = 0 with control variates there, not at the MAP: a force call costs the same anywhere,
and the MAP (L-BFGS, the quick run's 1,279 s of wall time, CPU time not recorded) is not part of this measurement.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "results" / "paulin2025-fig2" / "paper_cost.csv"
TIME = 0.1  # time units per level here; scale=paper runs 12


def main() -> None:
    import torch

    from bnnsample.figures.common import compose, write_rows
    from bnnsample.papers.paulin2025.fig2 import SCALES
    from bnnsample.papers.paulin2025.multinomial_runs import (
        SAMPLERS,
        load_problem,
        problem_potential,
        run_sampler,
        step_grid,
    )
    from bnnsample.potential import ControlVariate

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    torch.set_num_threads(1)
    paper = SCALES["paper"]
    data, which = load_problem(str(compose([]).data_dir))
    if which != "fmnist":
        raise SystemExit(f"no Fashion-MNIST files ({which}): the cost of the committed run's data cannot be measured")
    pot = problem_potential(data, torch.float32)
    x0 = torch.zeros(pot.dim)
    cv = ControlVariate(pot, x0)
    _, hs = step_grid(pot.n_data, paper["levels"])
    settings = {**paper, "time": TIME}
    rows = []
    for name in SAMPLERS:
        levels = []
        t0 = time.process_time()
        run_sampler(name, cv, x0, hs, settings, 0, on_level=levels.append)
        cpu = time.process_time() - t0
        steps = sum(lv.steps for lv in levels)
        rows.append({
            "sampler": name, "levels": len(hs), "h_min": min(hs), "chains": paper["chains"], "time_per_level": TIME,
            "coarse_steps": steps, "cpu_s": cpu, "ms_per_chain_coarse_step": 1e3 * cpu / (steps * paper["chains"]),
            "paper_time_per_level": paper["time"], "paper_cpu_s": cpu * paper["time"] / TIME,
        })  # fmt: skip
        print(f"{name}: {steps} coarse steps x {paper['chains']} chains, {cpu:.1f} CPU-s", flush=True)
    write_rows(args.out, rows)
    total = sum(r["paper_cpu_s"] for r in rows)
    print(f"scale=paper sampling: {total:,.0f} CPU-s = {total / 3600:.2f} CPU-hours ({args.out})")


if __name__ == "__main__":
    main()
