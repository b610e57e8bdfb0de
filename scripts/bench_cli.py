"""Start-up time of the commands that need no torch, against ``python -c "import torch"``.

    python scripts/bench_cli.py [--repeats 5]

Each command runs in a fresh interpreter (as a user's shell runs it); reported: the median
wall time and CPU time (user + sys of the child, from os.wait4) over --repeats rounds, the
commands interleaved round by round so that a load change on a shared machine hits all alike.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial

from bench_common import interleaved

COMMANDS = {
    "import torch": ["-c", "import torch"],
    "bnnsample --help": ["-m", "bnnsample.cli", "--help"],
    "bnnsample info": ["-m", "bnnsample.cli", "info"],
    "bnnsample figure --list": ["-m", "bnnsample.cli", "figure", "--list"],
    "bnnsample run stepsize=0.1 (typo)": ["-m", "bnnsample.cli", "run", "stepsize=0.1"],
    "bnnsample run step_size=-1 (bad value)": ["-m", "bnnsample.cli", "run", "step_size=-1"],
}


def measure(args: list[str], cwd: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one fresh interpreter running ``args``."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, *args], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - t0, usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as cwd:  # failed runs must not litter the caller's directory
        times = interleaved({name: partial(measure, args, cwd) for name, args in COMMANDS.items()}, a.repeats)
    base = statistics.median(c for _, c in times["import torch"])
    print(f"{'command':<40} {'wall s':>7} {'CPU s':>7} {'CPU / import torch':>19}")
    for name, rows in times.items():
        wall, cpu = statistics.median(w for w, _ in rows), statistics.median(c for _, c in rows)
        print(f"{name:<40} {wall:7.2f} {cpu:7.2f} {cpu / base:19.2f}")
    print(f"(median of {a.repeats} rounds; {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
