"""The GPU kernels of a run: deterministic ones, so that a seed fixes the draws on CUDA as it does
on the CPU (``deterministic=true``, the default), or cuDNN's autotuned ones (``false``)."""

from __future__ import annotations

import os
from contextlib import contextmanager

import torch


@contextmanager
def deterministic_kernels(device: torch.device, on: bool = True):
    """Within the block, on CUDA with ``on``: PyTorch's deterministic algorithms (cuDNN's deterministic
    convolution kernels, no atomics-ordered sums) and cuBLAS with a fixed workspace. Without
    them two runs of one seed drift apart: on an H100 the network runs of the test suite
    (Adam -> SWA on a CNN, then SMS-UBU) differed from run to run at the fifth digit of the
    SWA point, so neither a rerun nor a resumed run reproduced the uninterrupted one. An
    operation with no deterministic kernel warns and runs anyway (``warn_only``). The
    previous settings are restored on exit (runs in one process, e.g. a sweep's jobs, each
    set their own). On the CPU nothing changes: its kernels are deterministic already.

    Without ``on``: cuDNN's autotuner (``cudnn.benchmark``) picks the fastest convolution
    algorithms for each shape at its first call, which may differ from run to run, and so may
    the last bits of the draws."""
    if device.type != "cuda":
        yield
        return
    # read by cuBLAS when its handle is created; a handle made earlier keeps its workspace
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    before = (
        torch.are_deterministic_algorithms_enabled(),
        torch.is_deterministic_algorithms_warn_only_enabled(),
        torch.backends.cudnn.benchmark,
    )
    torch.use_deterministic_algorithms(on, warn_only=True)
    torch.backends.cudnn.benchmark = not on
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(before[0], warn_only=before[1])
        torch.backends.cudnn.benchmark = before[2]
