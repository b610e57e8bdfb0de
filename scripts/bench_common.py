"""What the benchmark suites share: timing, interleaved rounds, spreads, the machine line, and
the logistic-regression config they run through the real pipeline.

Every suite measures its variants in interleaved rounds (variant A, B, C, then A, B, C
again, ...) so that a load change on a shared machine hits all variants alike, and reports
the median over rounds with the min-max range as the noise estimate; ratios are taken round
by round (the two numbers of one round saw the same load) before the median.
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Timing:
    """Wall seconds and CPU seconds (this process, all its threads) of one measured call."""

    wall: float
    cpu: float


def timed(fn: Callable[[], T]) -> tuple[T, Timing]:
    """(fn(), its Timing)."""
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, Timing(time.perf_counter() - w0, time.process_time() - c0)


def interleaved(variants: dict[str, Callable[[], T]], repeats: int) -> dict[str, list[T]]:
    """Each variant called once per round, in the given order, for ``repeats`` rounds:
    {name: [result of round 1, round 2, ...]}."""
    out: dict[str, list[T]] = {name: [] for name in variants}
    for _ in range(repeats):
        for name, fn in variants.items():
            out[name].append(fn())
    return out


def median_spread(xs: Sequence[float]) -> tuple[float, float, float]:
    """(median, min, max)."""
    xs = sorted(xs)
    return statistics.median(xs), xs[0], xs[-1]


def ratio_spread(num: Sequence[float], den: Sequence[float]) -> tuple[float, float, float]:
    """(median, min, max) of the per-round ratios num[i] / den[i]."""
    if len(num) != len(den):
        raise ValueError(f"ratios need one value per round on both sides, got {len(num)} and {len(den)}")
    return median_spread([a / b for a, b in zip(num, den)])


def spread_text(s: tuple[float, float, float], fmt: str = ".3g") -> str:
    """'median [min, max]'."""
    m, lo, hi = s
    return f"{m:{fmt}} [{lo:{fmt}}, {hi:{fmt}}]"


def load_text() -> str:
    """The 1, 5 and 15 minute load averages."""
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def machine_text() -> str:
    """Processor, cores, torch version and its (intra-op) thread count."""
    import torch

    return (
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, torch {torch.__version__}, "
        f"{torch.get_num_threads()} threads"
    )


def logistic_cfg(chains: int, steps: int, integrator: str, dtype: str, draws: int = 10, overrides: Sequence[str] = ()):
    """The pipeline config of the logistic-regression benchmarks: logistic_synthetic (N = 10,000,
    d = 100, batch 100), h = 0.02, gamma = 5, zero initial points, no burn-in, ``draws`` draws
    thinned evenly over about ``steps`` steps (exactly draws * max(1, steps // draws) steps)."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    from bnnsample.plumbing.paths import conf_dir

    GlobalHydra.instance().clear()
    with initialize_config_dir(str(conf_dir()), version_base="1.3"):
        return compose(
            "config",
            overrides=[
                "dataset=logistic_synthetic", f"integrator={integrator}", f"chains={chains}", f"dtype={dtype}",
                "unit=step", "burn_in=0", f"samples={draws}", f"thin={max(1, steps // draws)}", "progress=false",
                "step_size=0.02", "friction=5.0", *overrides,
            ],
        )  # fmt: skip


HISTORY = "bench_history.csv"  # beside bench.md: every section a newer run of its suite replaced


def _split_sections(text: str) -> list[str]:
    """The '## ' sections of a bench.md text, each with its heading."""
    parts = ("\n" + text).split("\n## ")
    return ["## " + p.strip() for p in parts[1:] if p.strip()]


def section_key(section: str) -> str:
    """The suite of a bench.md section: its title without the machine in parentheses, and the
    device of its setting line when that is not the CPU (a GPU's section and a CPU's of one
    suite both stay current). A newer section of the same suite replaces the older one,
    whatever command made either."""
    import re

    title = re.sub(r"\s*\([^()]*\)\s*$", "", section.splitlines()[0].removeprefix("## "))
    device = re.search(r"^- setting: .*\bdevice ([^,\n]+)", section, re.M)
    return title if device is None or device.group(1).strip() == "cpu" else f"{title} on {device.group(1).strip()}"


def _command(section: str) -> str:
    import re

    m = re.search(r"^command: `([^`]*)`", section, re.M)
    return re.sub(r"\s*--out \S+", "", m.group(1)) if m else ""


def update_bench_md(path, new_sections: list[str]) -> None:
    """Write ``new_sections`` into bench.md, one current section per suite (the latest: a new
    one, else the last in the file), each dated; the sections they replace go to
    bench_history.csv beside it (suite, command, machine, date, the section's markdown)."""
    import csv
    import io
    import re
    import time
    from pathlib import Path

    path = Path(path)
    today = time.strftime("%Y-%m-%d")
    old = _split_sections(path.read_text()) if path.exists() else []
    dated = [s if re.search(r"^date: ", s, re.M) else s.replace("\n", f"\n\ndate: {today}", 1) for s in new_sections]
    latest = {section_key(s): s for s in [*old, *dated]}  # a later section of a suite wins
    keep = [s for s in old if latest[section_key(s)] is s]
    gone = [s for s in old if latest[section_key(s)] is not s]
    if gone:
        hist = path.with_name(HISTORY)
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        if not hist.exists():
            w.writerow(["suite", "command", "machine", "date", "section"])
        for s in gone:
            suite, command = section_key(s), _command(s)
            machine = re.search(r"\(([^()]*)\)\s*$", s.splitlines()[0])
            date = re.search(r"^date: (\S+)", s, re.M)
            w.writerow([suite, command, machine.group(1) if machine else "", date.group(1) if date else "", s])
        with open(hist, "a", newline="") as fh:
            fh.write(buf.getvalue())
    path.write_text("\n\n".join([*keep, *(s for s in dated if latest[section_key(s)] is s)]) + "\n")
