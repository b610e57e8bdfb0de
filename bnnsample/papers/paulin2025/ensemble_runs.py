"""paulin2025 Fig. 4's runs (§5, App. F.1): the method grid of ``bnnsample run
experiment=paulin2025_fig4_<method>`` runs in parts, SMS-UBU training the SWA points that the
other samplers start from (``init.reuse``), and the worker processes that make disjoint shares
of the parts (the recipe's ``workers=``, each a ``part=`` invocation of the recipe ``FIG``).

Runs are made in parts of ``part_runs`` runs (one process and one run directory each, seed =
part number) at the scales that have ``part_runs``; the settings ``s`` are the recipe's scale
settings changed by its options (``fig4``).
"""

from __future__ import annotations

import time
from pathlib import Path

from ...jobs.runs import RunGrid

FIG = "paulin2025-fig4"  # the recipe whose part= invocations run_workers starts
LOCALIZED = ("sms_ubu", "sg_ubu", "sg_ubu_wor")


def n_parts(s: dict) -> int:
    """Runs are made in parts of ``part_runs`` runs (one process and one run directory each,
    seed = part number), or in one part of all runs at the scales without ``part_runs``."""
    return s["chains"] // s["part_runs"] if s.get("part_runs") else 1


def method_overrides(method: str, s: dict, part: int = 0) -> list[str]:
    """The run's Hydra overrides: the method's experiment config on the chosen data; with
    parts, the part's runs (``part_runs`` chains) and its seed (the part number)."""
    parts = n_parts(s)
    chains = s["chains"] // parts
    ovr = [f"experiment=paulin2025_fig4_{method}", f"dataset={s['dataset']}", f"chains={chains}",
           "control_variate=true", "store_theta=false", "evaluate=false", *s["overrides"]]  # fmt: skip
    if parts > 1 or s.get("first_part"):
        ovr.append(f"seed={part}")
    if s.get("device"):
        ovr.append(f"device={s['device']}")
    if s.get("precision"):
        ovr.append(f"model.precision={s['precision']}")
    if s.get("deterministic"):
        ovr.append(f"deterministic={s['deterministic']}")
    if s.get("model"):
        ovr.append(f"model={s['model']}")
    if s.get("step"):
        ovr.append(f"step_size={s['step']['ubu' if method in LOCALIZED else 'em']}")
    return ovr


def kernels_suffix(s: dict) -> str:
    """The run root's suffix for runs in another arithmetic (``precision=``, ``deterministic=``) or
    in parts of another size (``part_runs=``): they are other runs, never mixed with or reused for
    those of the defaults."""
    out = f"_{s['precision']}" if s.get("precision") not in (None, "auto") else ""
    out += "_autotuned" if s.get("deterministic") == "false" else ""
    # parts of another size are other runs (a part's seed is its number, its runs its chains)
    return out + (
        f"_parts{s['part_runs']}" if s.get("default_part_runs", s.get("part_runs")) != s.get("part_runs") else ""
    )


def method_grid(run_root: Path, s: dict, methods, swa_from: RunGrid | None = None) -> RunGrid:
    """The runs of ``methods`` under ``run_root``, in the scale's parts: sms_ubu trains the SWA
    points (or takes those of the sms_ubu runs of ``swa_from``), the other methods start from
    the SWA points of their part's sms_ubu run."""

    def overrides(m: str, p: int) -> list[str]:
        ovr = method_overrides(m, s, p)
        if m != "sms_ubu":
            ovr.append(f"init.reuse={grid.dir(p) / 'sms_ubu'}")
        elif swa_from is not None:
            ovr.append(f"init.reuse={swa_from.dir(p) / 'sms_ubu'}")
        return ovr

    grid = RunGrid(run_root, methods, n_parts(s), overrides, s.get("deadline"), s.get("first_part", 0))
    return grid


def print_estimate(grid: RunGrid, s: dict, fig: str = FIG) -> None:
    """One line at the start: the estimated time of the runs still to make (``RunGrid.estimate``),
    headed by the recipe ``fig``."""
    from ...models.cost import duration_text

    got = grid.estimate()
    if got is None:
        return
    n, seconds, device = got
    print(f"[{fig}] estimated time of the {n} runs to make ({grid.parts} part(s) x {len(grid.names)} method(s), "
          f"device={device}, one process): about {duration_text(seconds)}"
          + (f"; with workers={s['workers']}: about {duration_text(seconds / s['workers'])} wall" if s["workers"] > 1 else ""),
          flush=True)  # fmt: skip


def _worker(w: int, cmd: list[str], log: str) -> tuple[int, str, int]:
    """In a pool process: worker ``w``'s command, its output appended to ``log``; (w, log, exit
    code). A Ctrl-C reaches the command too, which stops at its next block boundary."""
    import subprocess

    with open(log, "ab") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT)
    return w, log, proc.wait()


def run_workers(out_dir: Path, options: dict, s: dict, grid: RunGrid, fig: str = FIG) -> None:
    """``workers`` processes of the recipe ``fig``, each making a disjoint share of the parts
    (``part=``); returns when all have ended, ValueError naming the log of one that failed.
    Each process runs one torch thread, so two workers use two cores."""
    import sys

    from ...config import current_figure_overrides
    from ...plumbing.errors import TIME_LIMIT_EXIT, TimeLimit
    from ...plumbing.workers import run_pool

    parts = list(dict.fromkeys(p for _, p in grid.todo()))
    shares = [parts[w :: s["workers"]] for w in range(s["workers"])]
    calls = []
    for w, share in enumerate(x for x in shares if x):
        log = grid.root / f"worker{w}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        opts = [*current_figure_overrides(), *(f"{k}={v}" for k, v in options.items()
                                               if k not in ("workers", "part", "time_limit"))]  # fmt: skip
        if s.get("deadline") is not None:
            opts.append(f"time_limit={max(1.0, s['deadline'] - time.monotonic()):.0f}")
        cmd = [sys.executable, "-c", "from bnnsample.cli import main; main()", "figure", fig, "--out", str(out_dir),
               *opts, f"part={','.join(map(str, share))}"]  # fmt: skip
        print(f"[{fig}] worker {w}: parts {share}, log {log}", flush=True)
        calls.append((_worker, (w, cmd, str(log))))
    codes = sorted(run_pool(calls, len(calls)))
    failed = [(w, log) for w, log, code in codes if code not in (0, TIME_LIMIT_EXIT)]
    if failed:
        raise ValueError(f"worker {failed[0][0]} failed; see {failed[0][1]}")
    if any(code == TIME_LIMIT_EXIT for *_, code in codes):
        raise TimeLimit("a worker stopped at the time limit")
