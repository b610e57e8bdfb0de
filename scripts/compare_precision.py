"""Compare two paulin2025-fig4 sections that differ only in their arithmetic (e.g. precision=float32 and
precision=bf16, same scale, runs and seeds): for each method, ensemble size and metric, the difference of the
two sections' means against their run-to-run noise.

    python scripts/compare_precision.py A_DIR B_DIR [--labels float32,bf16] [--csv OUT.csv]
    python scripts/compare_precision.py --make DIR [--labels tf32,bf16] [--device cuda] [--options "scale=quick runs=8"]

``--make DIR`` first runs the figure once per label, the label being its ``precision=`` (``bnnsample figure
paulin2025-fig4 OPTIONS precision=LABEL device=DEVICE --out DIR/LABEL``), then compares the two (the GPU
queue's job fig4_precision).

Each folder holds a section's runs.csv (per group of runs: method, ensemble_size, group, runs, metric, value).
Per (method, size, metric):
- ``diff``: mean of B minus mean of A over their groups;
- ``se``: the s.e. of that difference from each section's spread over its groups (our run-to-run noise,
  unpaired: sqrt(sd_A^2 / n_A + sd_B^2 / n_B));
- ``z``: diff / se; ``within`` when |z| <= 2;
- ``paired`` and ``paired_se``: the mean and s.e. of the per-group differences B - A, where both sections have
  the same groups (same seeds): how far the arithmetic moves one run, beside how far runs scatter.
A group that one section lacks is left out of the paired columns only.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import pandas as pd

KEY = ["method", "ensemble_size", "metric"]


def compare(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """One row per (method, ensemble_size, metric) present in both runs.csv tables."""
    rows = []
    for key, ga in a.groupby(KEY):
        gb = b.set_index(KEY).loc[[key]] if key in b.set_index(KEY).index else None
        if gb is None:
            continue
        va, vb = ga["value"].to_numpy(float), gb["value"].to_numpy(float)
        sd = [v.std(ddof=1) if len(v) > 1 else math.nan for v in (va, vb)]
        se = math.sqrt(sd[0] ** 2 / len(va) + sd[1] ** 2 / len(vb))
        diff = vb.mean() - va.mean()
        both = (
            ga.set_index("group")["value"].to_frame("a").join(gb.set_index("group")["value"].to_frame("b"), how="inner")
        )
        d = (both["b"] - both["a"]).to_numpy(float)
        rows.append({**dict(zip(KEY, key)), "mean_a": va.mean(), "mean_b": vb.mean(), "groups_a": len(va),
                     "groups_b": len(vb), "diff": diff, "se": se, "z": diff / se if se > 0 else math.nan,
                     "within": bool(abs(diff) <= 2 * se) if se > 0 else None,  # None: one group, not measured
                     "paired": d.mean() if len(d) else math.nan,
                     "paired_se": d.std(ddof=1) / math.sqrt(len(d)) if len(d) > 1 else math.nan,
                     "paired_groups": len(d)})  # fmt: skip
    return pd.DataFrame(rows)


def markdown(t: pd.DataFrame, labels: tuple[str, str]) -> str:
    a, b = labels
    head = (f"| method | size | metric | {a} | {b} | {b} - {a} ± s.e. (z) | within 2 s.e. | paired {b} - {a} ± s.e. |\n"
            "|---|---|---|---|---|---|---|---|")  # fmt: skip
    body = [f"| {r.method} | {r.ensemble_size} | {r.metric} | {r.mean_a:.4f} | {r.mean_b:.4f} | {r.diff:+.4f} ± "
            f"{r.se:.4f} ({r.z:+.1f}) | {'-' if r.within is None else 'yes' if r.within else 'no'} | {r.paired:+.5f} ± "
            f"{r.paired_se:.5f} |" for r in t.itertuples()]  # fmt: skip
    measured = t[t["within"].notna()]
    n = int(measured["within"].astype(bool).sum())
    lines = [f"{n} of {len(measured)} measured (method, size, metric) cells within 2 s.e. of run-to-run noise (a size "
             f"with one group in either section is not measured: {len(t) - len(measured)} cells); largest |z| "
             f"{measured['z'].abs().max():.1f}."]  # fmt: skip
    first = t[t.ensemble_size == t.ensemble_size.min()]
    for metric, g in first.groupby("metric"):
        lines.append(f"- {metric} at size {first.ensemble_size.min()}: paired {b} - {a} over methods "
                     f"{g['paired'].mean():+.5f} (from {g['paired'].min():+.5f} to {g['paired'].max():+.5f}), positive "
                     f"for {int((g['paired'] > 0).sum())} of {len(g)} methods")  # fmt: skip
    return "\n".join([head, *body, "", *lines])


def make_commands(out: Path, labels, device: str, options: str) -> list[list[str]]:
    """The two figure invocations of ``--make``: one per precision label, each under its own folder."""
    return [[sys.executable, "-c", "from bnnsample.cli import main; main()", "figure", "paulin2025-fig4",
             *options.split(), f"precision={label}", f"device={device}", "--out", str(out / label)]
            for label in labels]  # fmt: skip


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a", type=Path, nargs="?")
    ap.add_argument("b", type=Path, nargs="?")
    ap.add_argument("--labels", default="A,B", help="names of the two sections, comma-separated")
    ap.add_argument("--csv", type=Path, help="also write the table as CSV")
    ap.add_argument("--make", type=Path, help="run the figure once per precision label under this folder first")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--options", default="scale=quick runs=8", help="the figure's options (--make)")
    args = ap.parse_args(argv)
    labels = tuple(args.labels.split(","))
    if len(labels) != 2:
        print("compare_precision: --labels: two names, comma-separated (e.g. float32,bf16)", file=sys.stderr)
        return 2
    if args.make is not None:
        import subprocess

        for cmd in make_commands(args.make, labels, args.device, args.options):
            print(" ".join(cmd[3:]), flush=True)
            if subprocess.run(cmd).returncode != 0:
                print(f"compare_precision: {' '.join(cmd[3:])} failed", file=sys.stderr)
                return 1
        args.a, args.b = (args.make / label / "paulin2025-fig4" for label in labels)
    if args.a is None or args.b is None:
        print("compare_precision: give two section folders, or --make DIR", file=sys.stderr)
        return 2
    tables = []
    for d in (args.a, args.b):
        if not (d / "runs.csv").exists():
            print(f"compare_precision: {d}/runs.csv: no such file (a paulin2025-fig4 section's per-group values)",
                  file=sys.stderr)  # fmt: skip
            return 2
        tables.append(pd.read_csv(d / "runs.csv"))
    t = compare(*tables)
    if t.empty:
        print("compare_precision: the two sections share no (method, ensemble_size, metric)", file=sys.stderr)
        return 2
    if args.csv:
        t.to_csv(args.csv, index=False)
    print(markdown(t, labels))
    return 0


if __name__ == "__main__":
    sys.exit(main())
