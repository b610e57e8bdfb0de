"""Refuse before allocating: the memory of the chain state and the size of the planned
output, estimated from the config, against free memory and free disk.

Chain state: the integrators keep a handful of (chains, d) arrays (position x, velocity v,
the force, the noise, a scheme's extra buffers); STATE_ARRAYS of them are counted,

    memory ~ STATE_ARRAYS * chains * d * itemsize.

Output (samples.h5): per chain and draw, theta (d values of the run's dtype, if stored),
the predictive (n_test * K float32) and DIAGNOSTICS float64 diagnostics,

    disk ~ chains * samples * (d * itemsize + 4 n_test K + 8 DIAGNOSTICS).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import torch

from .errors import UserError
from .store import FILENAME

STATE_ARRAYS = 6
DIAGNOSTICS = 3


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:.3g} {unit}"
        n /= 1000
    return f"{n:.3g} PB"


def free_memory(device: torch.device) -> int:
    """Bytes the run may still allocate: free GPU memory, or MemAvailable of the host."""
    if device.type == "cuda":
        return int(torch.cuda.mem_get_info(device)[0])
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 2**62  # unknown: do not refuse


def check_resources(cfg, dim: int, predictive_shape, run_dir: Path, device: torch.device) -> None:
    """UserError (one line naming the key) when the chain state would not fit in memory or
    the planned output not on the run directory's disk (less what a resumed store holds)."""
    chains, samples = int(cfg.chains), int(cfg.samples)
    itemsize = torch.finfo(getattr(torch, cfg.dtype)).bits // 8
    state = STATE_ARRAYS * chains * dim * itemsize
    free = free_memory(torch.device(device))
    if state > free:
        raise UserError(
            f"chains={chains}: the chain state needs about {_size(state)} ({STATE_ARRAYS} arrays of chains x d = "
            f"{chains} x {dim} {cfg.dtype}), more than the {_size(free)} of free {device.type} memory"
        )
    per_draw = DIAGNOSTICS * 8 + (dim * itemsize if cfg.store_theta else 0)
    if predictive_shape is not None:
        per_draw += 4 * predictive_shape[0] * predictive_shape[1]
    planned = chains * samples * per_draw
    existing = run_dir / FILENAME
    have = existing.stat().st_size if existing.is_file() and not existing.is_symlink() else 0
    disk = shutil.disk_usage(run_dir).free
    if planned - have > disk:
        raise UserError(
            f"samples={samples}, chains={chains}: the planned samples.h5 is about {_size(planned)}, more than the "
            f"{_size(disk)} free on the disk of {run_dir}; lower samples or chains, or store_theta=false"
        )
