"""This machine as a cost is stated for it: its CPU model and cores, and the wall time that a
given CPU time takes here now (``expected_wall``)."""

from __future__ import annotations

import os
import platform


def cpu_model() -> str:
    """This machine's CPU model (/proc/cpuinfo's "model name"; the platform's processor elsewhere)."""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def machine() -> str:
    return f"{platform.machine()} {os.cpu_count()} cores"


def expected_wall(cpu_seconds: float, threads: int = 1) -> tuple[float, str]:
    """(the wall seconds that ``cpu_seconds`` of CPU take here, why): the work spread over
    ``threads``, slowed by the processes already running (the 1-minute load average) when they
    and ours outnumber the cores."""
    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = 0.0
    share = max(1.0, (load + threads) / cores)
    return cpu_seconds / max(1, min(threads, cores)) * share, f"load {load:.1f} on {cores} cores"


def wall_text(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.1f} minutes"
    return f"{seconds / 3600:.1f} hours"


def expected_wall_text(cpu_seconds: float, threads: int = 1) -> str:
    """ "expected wall time here about M minutes (load L on C cores)"."""
    wall, why = expected_wall(cpu_seconds, threads)
    return f"expected wall time here about {wall_text(wall)} ({why})"
