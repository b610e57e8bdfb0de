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

STATE_ARRAYS = 6
DIAGNOSTICS = 3


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:.3g} {unit}"
        n /= 1000
    return f"{n:.3g} PB"


def free_memory(device: torch.device) -> int:
    """Bytes the run may still allocate: free GPU memory; on the host the least of
    MemAvailable, the room left under this process's cgroup limit (memory.max, or v1's
    memory.limit_in_bytes) and its address-space limit (ulimit -v)."""
    if device.type == "cuda":
        return int(torch.cuda.mem_get_info(device)[0])
    limits = [_mem_available(), _cgroup_room(), _rlimit_room()]
    known = [x for x in limits if x is not None]
    return min(known) if known else 2**62  # unknown: do not refuse


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None  # "max": no limit


def _mem_available() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _cgroup_room() -> int | None:
    """The least room (limit minus usage) of this process's memory cgroup and of every cgroup
    above it (v2, else v1), or None when none has a limit. A limit set on a parent is as
    binding as one's own: Slurm sets it on the job's cgroup, above the step's cgroup the
    process runs in."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        if parts[0] == "0":  # cgroup v2
            root, files = Path("/sys/fs/cgroup"), ("memory.max", "memory.current")
        elif "memory" in parts[1].split(","):
            root, files = Path("/sys/fs/cgroup/memory"), ("memory.limit_in_bytes", "memory.usage_in_bytes")
        else:
            continue
        rooms = [room for level in _levels(root, parts[2]) if (room := _room(level, *files)) is not None]
        return min(rooms) if rooms else None
    return None


def _levels(root: Path, rel: str) -> list[Path]:
    """The directories of a cgroup and of each cgroup above it, up to the hierarchy's root."""
    names = [n for n in rel.split("/") if n and n not in (".", "..")]
    return [root.joinpath(*names[:k]) for k in range(len(names), -1, -1)]


def _room(level: Path, limit_file: str, usage_file: str) -> int | None:
    limit, used = _read_int(level / limit_file), _read_int(level / usage_file)
    if limit is None or limit >= 2**60:  # "max" (v2) or v1's page-rounded 2^63 - 1: no limit
        return None
    return max(0, limit - (used or 0))


def _rlimit_room() -> int | None:
    """The address-space limit (ulimit -v) minus what this process has mapped, or None."""
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmSize:"):
                return max(0, soft - int(line.split()[1]) * 1024)
    except OSError:
        pass
    return soft


SMALL_STATE = 64 << 20  # bytes


def check_resources(cfg, dim: int, predictive_shape, store_path: Path, device: torch.device) -> None:
    """UserError (one line naming the key) when the chain state would not fit in memory or
    the planned output not on the run directory's disk (less what a resumed store holds)."""
    chains, samples = int(cfg.chains), int(cfg.samples)
    itemsize = torch.finfo(getattr(torch, cfg.dtype)).bits // 8
    state = STATE_ARRAYS * chains * dim * itemsize
    # a state this small fits wherever torch itself was loaded: not worth asking the system (0.1 ms)
    free = free_memory(torch.device(device)) if state > SMALL_STATE else SMALL_STATE
    if state > free:
        raise UserError(
            f"chains={chains}: the chain state needs about {_size(state)} ({STATE_ARRAYS} arrays of chains x d = "
            f"{chains} x {dim} {cfg.dtype}), more than the {_size(free)} of free {device.type} memory"
        )
    per_draw = DIAGNOSTICS * 8 + (dim * itemsize if cfg.store_theta else 0)
    if predictive_shape is not None:
        per_draw += 4 * predictive_shape[0] * predictive_shape[1]
    planned = chains * samples * per_draw
    existing, run_dir = store_path, store_path.parent
    have = existing.stat().st_size if existing.is_file() and not existing.is_symlink() else 0
    disk = shutil.disk_usage(run_dir).free
    if planned - have > disk:
        raise UserError(
            f"samples={samples}, chains={chains}: the planned samples.h5 is about {_size(planned)}, more than the "
            f"{_size(disk)} free on the disk of {run_dir}; lower samples or chains, or store_theta=false"
        )
