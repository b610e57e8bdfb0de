#!/usr/bin/env bash
# bnnsample's CPU tests that fit this project's 2-core machine but have not been run yet: the
# rows marked "not tested: not run" in results/REPRODUCTION.md name them, with their cost.
#
#   bash scripts/cpu_queue.sh --list       # the jobs, one a line, the first first
#   bash scripts/cpu_queue.sh OUT_DIR      # run them in order, each under OUT_DIR/<n> (--out)
#
# Each job writes under its own --out folder, not results/: a test of part of a section's grid
# must be merged into the committed section (python -m bnnsample.papers.franzese2021.readback
# ... --merge DIR for franzese2021's tables and distance sweeps: the data sets it ran replace the
# committed rows of those data sets, each judged on its own grid), never replace it. A job's runs are cached under its --out folder, so a job stopped part way
# continues where it stopped when the queue is run again with the same OUT_DIR.
set -euo pipefail
JOBS=(
    # franzese2021-fig9#7-#8 (wine): the paper's full grid, about 1.6 CPU-hours at the rates of Fig. 9's own runs
    # on wine at the paper's protocol (until 2026-11-29, the thirtieth audit, 4.0 at Fig. 8's rate, measured on
    # another machine); the quick grid at the paper's protocol (run 2026-11-29) came out flat in h
    'franzese2021-fig9 scale=paper datasets=wine'
    # franzese2021-fig9#4-#5 (breast_cancer): the same as for wine, about 2.3 CPU-hours (until 2026-11-29, 5.8)
    'franzese2021-fig9 scale=paper datasets=breast_cancer'
    # paulin2025-fig2#2-#4 (#5-#7 too): about 3.2 CPU-hours (10,220 CPU-s of sampling + the MAP)
    'paulin2025-fig2 scale=paper'
    # paulin2025-fig7#4-#6 (the paper's network): the cheapest test their tiers accept, about 3.9 CPU-hours
    'paulin2025-fig7 scale=paper batches=20 runs=1'
)
if [[ "${1:-}" == "--list" ]]; then
    printf '%s\n' "${JOBS[@]}"
    exit 0
fi
OUT=${1:?usage: bash scripts/cpu_queue.sh OUT_DIR | --list}
for i in "${!JOBS[@]}"; do
    mkdir -p "$OUT/$i"
    echo "[cpu_queue] job $i: ${JOBS[$i]}"
    # shellcheck disable=SC2086
    bnnsample figure ${JOBS[$i]} --out "$OUT/$i" --record-cost
done
