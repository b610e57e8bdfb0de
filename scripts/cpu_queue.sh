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
# committed rows of those data sets, each judged on its own grid), never replace it
# (sekkat2023-fig4's floor_n reads the rows it does not make from the committed fig4.csv, so its
# section is whole and replaces the committed one). A job's runs are cached under its --out
# folder, so a job stopped part way continues where it stopped when the queue is run again with
# the same OUT_DIR; a job starts from a copy of its figure's kept runs (results/<id>/runs,
# git-ignored) where they exist, so that the finished runs it shares with the committed section
# are read back, not made again.
set -euo pipefail
JOBS=(
    # paulin2025-fig4 cpu_ts#3 (results/paulin2025-fig4/cpu_ts/: size 4 has one group of its 4 runs): a second group,
    # the 8 runs from scratch (its 4 were not kept), about 1,056 CPU-s (its 528 in results/costs.csv x 2); queued
    # 2026-11-30, the thirty-fourth audit (the runs=64 job below tests it too, later)
    'paulin2025-fig4 scale=reduced runs=8 methods=sms_ubu holdout=0.1'
    # paulin2025-fig4 precision_cpu/bf16#4 and precision_cpu/float32#4 (size 8 has one group of their 8 runs): a
    # second group, 16 runs from scratch each (the 8 were not kept), about 1,340 and 1,450 CPU-s (their 670 and 725
    # in results/costs.csv x 2); each section and compare.csv then replace the 8-run ones; queued 2026-11-30, the
    # thirty-seventh audit (the sections re-judged by the rules of the thirty-fourth)
    'paulin2025-fig4 scale=quick runs=16 precision=bf16'
    'paulin2025-fig4 scale=quick runs=16 precision=float32'
    # sekkat2023-fig4#1: SGLD at h = 3e-5, n = 10 and 15 with 16x the chains (a 4x lower floor), and n = 5 with them
    # so the fit's 3 points share one floor (every other row read back from the committed
    # results/sekkat2023-fig4/fig4.csv), about 2.2 CPU-hours (their 487 CPU-s x 16; until 2026-11-29, the
    # thirty-second audit, n = 10 and 15 only, 2.0)
    'sekkat2023-fig4 scale=paper floor_n=5,10,15'
    # paulin2025-fig4 cpu_ts#2 (a null result at size 2 with 2 groups, the paper's 64 runs give 32): the paper's 64
    # runs at this section's settings from scratch, about 8,448 CPU-s (its 528 x 16; breast_cancer's below, 8,454);
    # queued 2026-11-30, the thirty-fourth audit
    'paulin2025-fig4 scale=reduced runs=64 methods=sms_ubu holdout=0.1'
    # franzese2021-fig9#4-#5 (breast_cancer): scale=paper's grid, about 2.3 CPU-hours at the rates of Fig. 9's
    # own runs on breast_cancer at the paper's protocol (until 2026-11-29, the thirtieth audit, 5.8 at Fig. 8's
    # rate, measured on another machine); the quick grid at the paper's protocol (run 2026-11-29) came out flat in
    # h. Wine's (queued first until it ran 2026-11-29/30: 4,522 CPU-s against the 1.6 CPU-hours priced,
    # results/costs.csv) is merged into the committed section (readback --merge): fig9#7-#9
    'franzese2021-fig9 scale=paper datasets=breast_cancer'
    # sekkat2023-fig10#3 (its 6 pairs with the full friction): that friction's 3 runs to T = 10^3, about 2.9 CPU-hours
    # with the kept cells of results/sekkat2023-fig10/runs read back (else 4.7: see the loop below)
    'sekkat2023-fig10 scale=paper long=all'
    # paulin2025-fig2#2-#4 (#5-#7 too): about 3.2 CPU-hours (10,220 CPU-s of sampling + the MAP)
    'paulin2025-fig2 scale=paper'
    # franzese2021-fig9#7 (wine): a reference nearer still, the adaptive-SGHMC oracle at lr 5e-05 (50 chains x
    # 1,200,000 steps at the full-batch N_l = 1 runs' 198 us a chain-step), about 3.3 CPU-hours; the 288 sampler runs
    # read back from results/franzese2021-fig9/runs, merged by readback --merge (queued 2026-11-30, the thirty-third audit)
    'franzese2021-fig9 scale=paper datasets=wine steps=0.001,0.002,0.005,0.01,0.02,0.04,0.08,0.16 oracle_h=5e-05'
    # franzese2021-fig4 (its minibatch rows, #2 and #3): the committed section's command again, its batches 32 and 8
    # now on the fresh partition (their runs of 2026-11-28 left 7 of boston's 455 points out of the whole run), about
    # 3.4 CPU-hours: results/costs.csv's 12,703 CPU-s (2026-11-28) include the oracle's runs, which this job reads back
    # from results/franzese2021-fig4/runs (the boston oracle kept there took 484 CPU-s; of 2026-11-29, Fig. 5's band);
    # its section replaces the committed one (queued 2026-11-30, the thirty-third audit)
    'franzese2021-fig4 scale=paper seeds=0,1,2 steps=0.005,0.01,0.02 batches=0,32,8'
    # franzese2021-fig5#1 (boston: batch 32's N_l not alike at the quick grid's smallest h, 0.005, judged with the
    # seed sd measured there since 2026-11-30, the thirty-seventh audit): scale=paper's grid (h down to 0.001, N_l
    # up to 100), about 3.6 CPU-hours at its 3 seeds (the row's price); queued again 2026-11-30 (out of the queue
    # 2026-11-29 while the row was reproduced); merged by readback --merge
    'franzese2021-fig5 scale=paper'
    # paulin2025-fig7#4-#6 (the paper's network): the cheapest test their tiers accept, about 3.9 CPU-hours
    'paulin2025-fig7 scale=paper batches=20 runs=1'
    # paulin2025-fig4 paper_schedule_cnn_small#5 (size 16 has one group of its 16 runs): a second group, 32 runs from
    # scratch (the 16 were not kept), about 28,790 CPU-s, 8.0 CPU-hours (its 14,395 in results/costs.csv x 2), in
    # parts of 8 runs, one process a part; queued 2026-11-30, the thirty-fourth audit
    'paulin2025-fig4 scale=paper_schedule runs=32 workers=2'
)
if [[ "${1:-}" == "--list" ]]; then
    printf '%s\n' "${JOBS[@]}"
    exit 0
fi
OUT=${1:?usage: bash scripts/cpu_queue.sh OUT_DIR | --list}
for i in "${!JOBS[@]}"; do
    mkdir -p "$OUT/$i"
    fig=${JOBS[$i]%% *}
    if [[ -d "results/$fig/runs" && ! -e "$OUT/$i/$fig/runs" ]]; then
        mkdir -p "$OUT/$i/$fig"
        cp -r "results/$fig/runs" "$OUT/$i/$fig/runs"
    fi
    echo "[cpu_queue] job $i: ${JOBS[$i]}"
    # shellcheck disable=SC2086
    bnnsample figure ${JOBS[$i]} --out "$OUT/$i" --record-cost
done
