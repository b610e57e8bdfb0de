import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args, cwd=None, timeout=900):
    """Run the installed `bnnsample` entry point; returns CompletedProcess (text)."""
    env = dict(os.environ, HYDRA_FULL_ERROR="0", OMP_NUM_THREADS="1")
    return subprocess.run(
        [sys.executable, "-m", "bnnsample.cli", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


@pytest.fixture
def cli():
    return run_cli
