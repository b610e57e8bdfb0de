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

    from bnnsample.paths import conf_dir

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
