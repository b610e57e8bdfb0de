#!/usr/bin/env bash
# A 64-run sweep of small runs with the joblib launcher (2 integrators x 4 step sizes x 8 seeds
# on the two-batch Gaussian), run twice: once uninterrupted, once killed (SIGKILL to the whole
# process group) after about half of its jobs and then rerun with the same command. Both are
# aggregated with `bnnsample evaluate`; the per-run tables (sweep_runs.csv, 64 rows) must match.
#
#   scripts/sweep_demo.sh [OUT_DIR]        (default results/sweep_demo; BNNSAMPLE=path/to/bnnsample)
set -euo pipefail
OUT=${1:-results/sweep_demo}
BNN=${BNNSAMPLE:-bnnsample}
PY=${PYTHON:-python}
export OMP_NUM_THREADS=1
rm -rf "$OUT/full" "$OUT/killed"
mkdir -p "$OUT"
SWEEP=(run -m hydra/launcher=joblib dataset=two_batch_gaussian chains=50 burn_in=50 samples=200 thin=1
       flush_seconds=0.1 progress=false evaluate=false
       integrator=sms_ubu,sg_ubu step_size=0.05,0.1,0.2,0.3 seed=0,1,2,3,4,5,6,7)

t0=$(date +%s)
"$BNN" "${SWEEP[@]}" hydra.sweep.dir="$OUT/full" > "$OUT/full.log" 2>&1
t1=$(date +%s)
echo "uninterrupted sweep: $((t1 - t0)) s"

setsid "$BNN" "${SWEEP[@]}" hydra.sweep.dir="$OUT/killed" > "$OUT/killed.log" 2>&1 &
pid=$!
while :; do
  done_jobs=$(grep -l "sampling done" "$OUT"/killed/*/bnnsample.log 2>/dev/null | wc -l || true)
  if [ "$done_jobs" -ge 32 ] || ! kill -0 "$pid" 2>/dev/null; then break; fi
  sleep 0.2
done
kill -KILL -- "-$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
started=$(ls "$OUT"/killed/*/samples.h5 2>/dev/null | wc -l)
echo "killed the sweep with $done_jobs jobs done and $started samples.h5 files present"
t2=$(date +%s)
"$BNN" "${SWEEP[@]}" hydra.sweep.dir="$OUT/killed" > "$OUT/rerun.log" 2>&1
t3=$(date +%s)
echo "rerun: $((t3 - t2)) s; $(grep -c 'already complete; nothing to do' "$OUT/rerun.log") jobs skipped," \
     "$(grep -c '\] resuming ' "$OUT/rerun.log") resumed"

"$BNN" evaluate "$OUT/full" > "$OUT/full_evaluate.log" 2>&1
"$BNN" evaluate "$OUT/killed" > "$OUT/killed_evaluate.log" 2>&1
t4=$(date +%s)
echo "evaluate both: $((t4 - t3)) s"
"$PY" - "$OUT" <<'PY'
import sys
import pandas as pd
out = sys.argv[1]
a, b = (pd.read_csv(f"{out}/{d}/sweep_runs.csv", dtype={"run": str}).drop(columns="run_dir") for d in ("full", "killed"))
print(f"sweep_runs.csv rows: uninterrupted {len(a)}, killed+rerun {len(b)}; status ok: {int((a.status == 'ok').sum())}, {int((b.status == 'ok').sum())}")
pd.testing.assert_frame_equal(a, b)
print("killed+rerun table == uninterrupted table: yes")
PY
