"""A run stopped by Ctrl-C, SIGTERM or SIGKILL leaves a readable samples.h5."""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from bnnsample.store import SampleStore

ARGS = [
    "run", "dataset=two_batch_gaussian", "chains=2000", "burn_in=100", "samples=4000", "thin=500",
    "flush_seconds=0.2", "check_every=50", "progress=false", "evaluate=false",
]  # fmt: skip
# 2,000,000 steps last minutes, far longer than the test lets the run go, while thin=500 keeps
# the planned samples.h5 at ~0.26 GB: the run refuses to start when the planned file does not fit
# on the disk (a CI machine had 9 GB free), and a draw is still written every few tens of ms.


def start(tmp_path, wait=6.0):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    p = subprocess.Popen(
        [sys.executable, "-m", "bnnsample.cli", *ARGS, f"hydra.run.dir={tmp_path}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    h5 = tmp_path / "samples.h5"
    deadline = time.monotonic() + 120
    while not h5.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(wait)  # past burn-in; several flushes happen
    return p, h5


def check_readable(h5, min_draws=1):
    with SampleStore(h5) as store:  # a killed writer's last flush undone first (store.py)
        f = store.f
        n = int(f.attrs["draws"])
        assert n >= min_draws
        assert not f.attrs["complete"]
        theta = f["theta"][:, :n]
        assert np.isfinite(theta).all()
        assert int(f["state/draws"][()]) <= n
        assert "x" in f["state"] or "tensor" in f["state"]
        return n, int(f["state/draws"][()])


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.slow  # end-to-end processes: left out by -m "not slow"
def test_interrupt_keeps_draws(tmp_path, sig):
    p, h5 = start(tmp_path)
    p.send_signal(sig)
    out, err = p.communicate(timeout=60)
    assert p.returncode not in (0, None)
    assert "interrupted" in err and "Traceback" not in err
    assert f"to resume: bnnsample run {' '.join(ARGS[1:])} hydra.run.dir={tmp_path}" in err
    written, in_state = check_readable(h5)
    assert written == in_state  # a stop at a block boundary writes a consistent resume state


@pytest.mark.slow  # end-to-end processes: left out by -m "not slow"
def test_kill_leaves_file_readable_up_to_last_flush(tmp_path):
    p, h5 = start(tmp_path, wait=12.0)
    p.kill()
    p.communicate(timeout=60)
    check_readable(h5)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.slow  # end-to-end processes: left out by -m "not slow"
def test_interrupt_during_the_evaluation_stage_of_run(tmp_path, sig):
    """Ctrl-C or SIGTERM while `run` evaluates (no block boundary to stop at) interrupts at once:
    exit 130, one line saying the samples are complete and how to evaluate them, no traceback."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    args = ["run", "dataset=two_batch_gaussian", "chains=4000", "samples=400", "thin=1", "burn_in=0", "unit=step",
            "progress=true", f"hydra.run.dir={tmp_path}"]  # fmt: skip
    p = subprocess.Popen([sys.executable, "-m", "bnnsample.cli", *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env)  # fmt: skip
    seen = b""
    while b"evaluating" not in seen:
        chunk = os.read(p.stderr.fileno(), 4096)
        assert chunk, seen[-2000:]
        seen += chunk
    p.send_signal(sig)
    out, err = p.communicate(timeout=120)
    err = (seen + err).decode()
    assert p.returncode == 130, err[-2000:]
    assert "interrupted during the evaluation" in err and f"bnnsample evaluate {tmp_path}" in err
    assert "Traceback" not in err


def _lines_until(p, marker: str) -> list[str]:
    """The lines of ``p``'s stdout (stderr merged) up to and including the first holding ``marker``."""
    lines = []
    while not lines or marker not in lines[-1]:
        line = p.stdout.readline()
        assert line, lines
        lines.append(line)
    return lines


def _run(tmp_path, *extra):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    return subprocess.Popen([sys.executable, "-m", "bnnsample", *ARGS, *extra, f"hydra.run.dir={tmp_path}"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)  # fmt: skip


def test_a_run_says_what_it_does_before_it_loads_torch_or_its_data(tmp_path):
    """The first line a run prints (what runs, where, the ledger's cost) comes before the data are
    loaded (the "data loaded" record), i.e. before torch and the data set: a Ctrl-C there
    interrupts at once (exit 130, one line, no traceback), the data never loaded."""
    p = _run(tmp_path)
    first = p.stdout.readline()
    assert first.startswith("[bnnsample] run: ") and f"into {tmp_path}; cost: " in first, first
    p.send_signal(signal.SIGINT)
    rest = p.stdout.read()
    p.wait(timeout=120)
    assert p.returncode == 130, rest
    assert "data loaded" not in rest and "Traceback" not in rest
    said = [ln for ln in rest.splitlines() if ln.strip()]
    assert len(said) == 1 and said[0].startswith("bnnsample: error: interrupted (at once); nothing was written"), rest
    assert not (tmp_path / "samples.h5").exists()


@pytest.mark.slow  # end-to-end processes: left out by -m "not slow"
def test_ctrl_c_while_sampling_is_one_line_exit_130_and_the_store_kept(tmp_path):
    """The first line, then "data loaded", then sampling: Ctrl-C during sampling stops at the next
    block boundary with exit 130 and one line (what was kept, how to resume); the store holds the
    draws and a consistent resume state."""
    p = _run(tmp_path)
    lines = _lines_until(p, "data loaded")
    assert lines[0].startswith("[bnnsample] run: ") and "data loaded" not in "".join(lines[:-1])
    h5 = tmp_path / "samples.h5"
    while not h5.exists():  # the store appears with the sampling loop; its first flush is 0.2 s later
        time.sleep(0.05)
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    rest = p.stdout.read()
    p.wait(timeout=120)
    assert p.returncode == 130, rest
    said = [ln for ln in rest.splitlines() if ln.strip()]
    assert len(said) == 1 and said[0].startswith("bnnsample: error: interrupted (stopped at step "), rest
    assert f"to resume: bnnsample run {' '.join(ARGS[1:])} hydra.run.dir={tmp_path}" in said[0]
    written, in_state = check_readable(h5)
    assert written == in_state
