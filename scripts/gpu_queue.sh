#!/usr/bin/env bash
# bnnsample's GPU jobs in priority order, for a machine with a CUDA GPU and no network:
#
#   bash scripts/gpu_queue.sh --list              # the jobs, one a line, the first first
#   bash scripts/gpu_queue.sh OUT_DIR [SECONDS]   # run them in order within SECONDS (default 540)
#   QUEUE_JOBS=bench_throughput,cuda_tests bash scripts/gpu_queue.sh OUT_DIR 540   # only the jobs named,
#       still in the queue's order (a short window skips the Fig. 4 jobs, which cannot finish a part in it)
#
# Each job gets the time left; the Fig. 4 job stops at that limit with its resume state written
# (exit code 3) and continues where it stopped when the queue is run again on the same machine.
# Its runs and files go to QUEUE_RESULTS (default /tmp/bnnsample-gpu-results, outside the
# repository: a lent machine re-sends the working tree before each command, which removes
# untracked files under results/, and a run of fewer runs than the committed section must not
# replace it; review fig4.tgz and commit by hand). Small outputs are copied to OUT_DIR (a lent
# machine sends back at most 8 files): queue.txt (each job's exit code and seconds), reports.tgz
# (the text reports: bench_throughput.txt, cuda_tests.txt, fig4_precision.txt, bench_epoch.txt,
# bench_compile.txt, bench_peers.txt), fig4.tgz and fig4_ts.tgz (tables, plot, section, logs), fig3_paper.tgz and
# fig7_paper.tgz (paulin2025 Figs. 3 and 7: tables, plot, claims, section, log).
#
# The order (issue 48): first what decides how the GPU's minutes are spent, the throughput of
# 1-64 batched cnn_fmnist runs in each arithmetic (float32, tf32, bf16; deterministic or
# autotuned kernels; torch.compile) and the laws of those paths on the GPU; then the SG-HMC
# baseline of Fig. 4 at the paper's scale, which the committed section (scale=paper runs=16,
# SMS-UBU, 18.6 min on one H200 on 2026-11-26) lacks: 8 runs trained, then sampled by SMS-UBU
# and SG-HMC, about 22 GPU-minutes at that day's speed (SG-HMC's step about twice SMS-UBU's).
# Then SWA with temperature scaling beside it (holdout=0.1: 6,000 training images held out
# to fit each SWA network's temperature, every method trained on the other 54,000), 8 new runs,
# about 10 GPU-minutes (16 runs took 18.6); its files in fig4_ts.tgz, for results/paulin2025-fig4/.
# A part's samples (8 runs x 30 draws x 10,000 test predictions, about 96 MB) exceed what a window
# sends back (16 MiB a file): the Fig. 4 jobs finish whole parts within a window or continue only on
# the same machine, and a later window pools a committed section's groups with new parts
# (FIG4_OPTIONS="... first_part=2 with_groups=results/paulin2025-fig4"; docs/developers/gpu-queue.md), once that
# section has runs.csv and parts.json: the committed 16-run section of 2026-11-26 predates both, so it cannot be
# pooled (its larger tests are made from scratch: runs=32 about 37 GPU-minutes, runs=64 about 74).
#
# Set-up where the registry is reachable (the GPU machine has none): `bash scripts/gpu_wheels.sh`
# writes the missing dependencies to .whl/, and the Fashion-MNIST files go to data/
# (`mkdir -p data && cp /usr/share/datasets/fashion-mnist/*.gz data/`); carry both.
set -uo pipefail
cd "$(dirname "$0")/.."

# a smoke test on a CPU at tiny sizes, writing outside the repository's results/:
#   PYTHON=.venv/bin/python QUEUE_DEVICE=cpu QUEUE_RESULTS=/tmp/qres FIG4_OPTIONS="scale=quick runs=2" \
#       bash scripts/gpu_queue.sh /tmp/q 120
PY=${PYTHON:-python3}
DEV=${QUEUE_DEVICE:-cuda}
RES=${QUEUE_RESULTS:-/tmp/bnnsample-gpu-results}
FIG4=${FIG4_OPTIONS:-scale=paper runs=8 methods=sms_ubu,sg_hmc}
FIG4_TS=${FIG4_TS_OPTIONS:-scale=paper runs=8 holdout=0.1}
JOBS=(
    "bench_throughput|the network path's throughput: training and sampling steps of 1, 8, 16 and 64 batched cnn_fmnist runs in float32, tf32, bf16 (deterministic or autotuned kernels, torch.compile), TFLOP/s and share of the dense peak, about 4-6 GPU-minutes; it decides the arithmetic of the runs below|$PY scripts/bench.py --suite throughput --device $DEV --runs 1,8,16,64 --steps 10 --repeats 3"
    "cuda_tests|the CUDA tests, and the vectorised-training, memory-format and precision laws on the GPU|$PY -m pytest -q tests/test_cuda.py tests/test_train_runs.py tests/models/test_memory_format.py tests/integrators/test_compiled.py tests/models/test_precision.py"
    "fig4_paper|paulin2025 Fig. 4 at the paper's scale with the SG-HMC baseline (cnn_fmnist, 15 + 5 epochs, 10 burn-in, 30 draws, 8 runs, SMS-UBU and SG-HMC), resumable|bnnsample figure paulin2025-fig4 $FIG4 device=$DEV"
    "fig4_ts|paulin2025 Fig. 4 at the paper's scale with SWA + temperature scaling, a baseline beyond the paper (10% of the training images held out for the temperature, every method trained on the other 54,000; 8 runs, SMS-UBU), resumable|bnnsample figure paulin2025-fig4 $FIG4_TS device=$DEV"
    "fig3_paper|paulin2025 Fig. 3 with the paper's network and schedule (cnn_fmnist, 15 + 5 epochs, 4 SMS-UBU paths x 40 epochs from x_SWA + noise, R-hat after 10), 2 repetitions, about 8-12 GPU-minutes|bnnsample figure paulin2025-fig3 scale=paper reps=2 device=$DEV"
    "fig7_paper|paulin2025 Fig. 7 with the paper's network and schedule, the cheapest test its rows accept (cnn_fmnist, 15 + 5 epochs, one network, the Hessian from 20 of the 300 batches and 20 others at SWA and SWA + noise for the noise, 10 power iterations), about 3-4 GPU-minutes (1.1-2.0 for the Hessian products, one batch at a time, 1.5 for training; finished points are cached, so it continues in a later window); the full design (runs=2, all 300 batches) is about 26-44|bnnsample figure paulin2025-fig7 scale=paper batches=20 runs=1 device=$DEV"
    "fig4_precision|bf16 against tf32 on Fig. 4's metrics at scale=quick, 8 runs each, against their run-to-run noise (the GPU's answer beside results/paulin2025-fig4/precision_cpu/), about 3-5 GPU-minutes|$PY scripts/compare_precision.py --make $RES/precision --labels tf32,bf16 --device $DEV --options 'scale=quick runs=8'"
    "bench_epoch|one SMS-UBU epoch of cnn_fmnist against one Adam epoch on the GPU|$PY scripts/bench.py --suite epoch --device $DEV --epoch-images 20000 --repeats 3"
    "bench_compile|whole sg_hmc runs with compile=false and compile=true (CUDA graphs) at 1, 10, 100 chains|$PY scripts/bench_compile_flag.py --device $DEV --chains 1,10,100 --steps 20000 --rounds 2"
    "bench_peers|the peers suite on the GPU, long cells: bnnsample eager and compile=true against vmapped posteriors (and blackjax on jax's GPU where its wheel fits), wall time|$PY scripts/bench.py --suite peers --device $DEV --chains 1,10,100,1000 --cells long --repeats 3"
)

if [[ "${1:-}" == "--list" ]]; then
    for j in "${JOBS[@]}"; do
        IFS='|' read -r name what cmd <<<"$j"
        echo "$name: $cmd  # $what"
    done
    exit 0
fi
if [[ $# -lt 1 ]]; then
    echo "usage: bash scripts/gpu_queue.sh OUT_DIR [SECONDS] | --list" >&2
    exit 2
fi
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
RES=$(mkdir -p "$RES" && cd "$RES" && pwd)  # absolute: tar -C below is relative to the previous -C
BUDGET=${2:-540}
START=$(date +%s)
left() { echo $((BUDGET - ($(date +%s) - START))); }

export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
if [[ -d .whl ]]; then
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
        && export PYTHONPATH="$PYTHONPATH:/tmp/site"
    if [[ -d .whl/bench ]]; then  # the peers suite's baselines, apart: one that does not fit costs only its variants
        "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site-bench \
            .whl/bench/*.whl && export PYTHONPATH="$PYTHONPATH:/tmp/site-bench"
    fi
fi
DATA=()
if ls data/train-images-idx3-ubyte* >/dev/null 2>&1; then
    DATA=("data_dir=$PWD/data")
fi
bnnsample() { "$PY" -c "from bnnsample.cli import main; main()" "$@"; }
{ nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || echo "no nvidia-smi: device $DEV"; } >"$OUT/queue.txt" 2>&1

for j in "${JOBS[@]}"; do
    IFS='|' read -r name what cmd <<<"$j"
    if [[ -n "${QUEUE_JOBS:-}" && ",$QUEUE_JOBS," != *",$name,"* ]]; then
        echo "$name not selected (QUEUE_JOBS=$QUEUE_JOBS)" >>"$OUT/queue.txt"
        continue
    fi
    t=$(left)
    if ((t < 60)); then
        echo "$name skipped: ${t} s left" >>"$OUT/queue.txt"
        continue
    fi
    t0=$(date +%s)
    case $name in
        fig4_paper | fig4_ts)  # its own time limit: stops with resume state written (exit 3)
            # fig4_ts trains on other images (new runs) and writes its own section: a folder of its own
            if [[ $name == fig4_ts ]]; then dir=$RES/ts tgz=fig4_ts; else dir=$RES tgz=fig4; fi
            mkdir -p "$dir"
            eval "$cmd time_limit=$((t - 40)) ${DATA[*]} --out $dir" >"$OUT/$tgz.log" 2>&1
            rc=$?
            mkdir -p "$dir/paulin2025-fig4/runs"
            # the recipe writes beside a section of another scale, in $dir/scale-<scale>/
            tar czf "$OUT/$tgz.tgz" -C "$OUT" "$tgz.log" -C "$dir" $(cd "$dir" && find . \
                -regex '\./\(scale-[^/]*/\)?\(REPRODUCTION\.md\|paulin2025-fig4/[^/]*\)' -type f -o \
                -regex '\./\(scale-[^/]*/\)?paulin2025-fig4/runs/.*\(\.log\|timing\.json\|config\.yaml\)' -type f)
            rm -f "$OUT/$tgz.log"
            ;;
        fig3_paper | fig7_paper)  # finished cells (runs/cells/) are kept in $RES: a rerun continues from them
            id=paulin2025-${name%_paper}
            # timeout runs a program, not the bnnsample shell function: the CLI through $PY
            eval "timeout $((t - 20)) $PY -c 'from bnnsample.cli import main; main()' ${cmd#bnnsample } ${DATA[*]} --out $RES" \
                >"$OUT/$name.log" 2>&1
            rc=$?
            mkdir -p "$RES/$id"
            tar czf "$OUT/$name.tgz" -C "$OUT" "$name.log" -C "$RES" $(cd "$RES" && find . \
                -regex "\./\(scale-[^/]*/\)?\(REPRODUCTION\.md\|$id/[^/]*\)" -type f)
            rm -f "$OUT/$name.log"
            ;;
        *)
            eval "timeout $((t - 20)) $cmd" >"$OUT/$name.txt" 2>&1
            rc=$?
            ;;
    esac
    echo "$name exit $rc after $(($(date +%s) - t0)) s" >>"$OUT/queue.txt"
done
# a lent machine sends back at most 8 files: the jobs' text reports travel as one archive
reports=$(cd "$OUT" && ls ./*.txt 2>/dev/null | grep -v '^\./queue\.txt$')
if [[ -n "$reports" ]]; then
    (cd "$OUT" && tar czf reports.tgz $reports && rm -f $reports)
fi
cat "$OUT/queue.txt"
