"""deterministic_kernels: on CUDA the run switches PyTorch to deterministic kernels and gives the
previous settings back; on the CPU it changes nothing. (The flags are process settings, so this
runs without a GPU; tests/test_cuda.py checks that two GPU runs of one seed agree bit for bit.)"""

import os

import torch

from bnnsample.plumbing.determinism import deterministic_kernels


def _flags():
    return (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled(),
            torch.backends.cudnn.benchmark)  # fmt: skip


def test_cuda_run_uses_deterministic_kernels_and_restores_the_settings(monkeypatch):
    monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    torch.backends.cudnn.benchmark = True
    try:
        before = _flags()
        assert before == (False, False, True)
        with deterministic_kernels(torch.device("cuda")):
            assert _flags() == (True, True, False)
            assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"
        assert _flags() == before
    finally:
        torch.backends.cudnn.benchmark = False


def test_settings_are_restored_when_the_run_fails():
    try:
        with deterministic_kernels(torch.device("cuda")):
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert _flags()[:2] == (False, False)


def test_cpu_run_changes_nothing():
    before = _flags()
    with deterministic_kernels(torch.device("cpu")):
        assert _flags() == before


def test_deterministic_false_autotunes_and_restores():
    """deterministic=false: cuDNN's autotuner on, deterministic algorithms off, inside the run."""
    before = _flags()
    with deterministic_kernels(torch.device("cuda"), on=False):
        assert _flags() == (False, True, True)
    assert _flags() == before
