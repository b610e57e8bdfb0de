"""A 16-job sweep killed with SIGKILL (the whole process group) at random moments and rerun until
it is done ends with every job complete and bit-identical to the same sweep undisturbed."""

import os
import random
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from bnnsample.store import SampleStore

from .test_launchers import _env, theta

SWEEP = ["dataset=two_batch_gaussian", "chains=20", "burn_in=100", "thin=2", "flush_seconds=0.05", "check_every=25",
         "progress=false", "evaluate=false", "step_size=0.05,0.1,0.15,0.2", "samples=2000,3000,4000,5000"]  # fmt: skip
KILLS = 6


def writing_since(sweep, t: float) -> bool:
    """A job of the sweep is sampling into its published store since ``t``: its undo log (which
    exists while a store is written between flushes) was written after ``t``. A kill soon after
    lands inside a job past its first flush, on a loaded machine too, where a job's start-up
    (Hydra, the target, the store) can outlast its sampling."""
    try:
        return any(p.stat().st_mtime > t for p in sweep.glob("*/samples.h5.undo"))
    except FileNotFoundError:  # a staged store renamed meanwhile
        return False


def diagnostics(job) -> dict:
    with SampleStore(job / "samples.h5") as s:
        return s.diagnostics()


@pytest.mark.slow  # end-to-end processes: left out by -m "not slow"
def test_a_sweep_killed_at_random_moments_and_rerun_is_complete_and_bit_identical(inprocess, tmp_path, capsys):
    sweep, rng = tmp_path / "killed", random.Random(46)
    cmd = [sys.executable, "-m", "bnnsample.cli", "run", "-m", *SWEEP, f"hydra.sweep.dir={sweep}"]
    outputs, killed = [], 0
    for _ in range(KILLS):
        launched = time.time()
        p = subprocess.Popen(cmd, cwd=tmp_path, env=_env(), start_new_session=True, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)  # fmt: skip
        deadline = time.monotonic() + 120
        while p.poll() is None and not writing_since(sweep, launched) and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, 0.5))
        if p.poll() is not None:
            outputs.append(p.communicate()[0])
            break
        os.killpg(p.pid, signal.SIGKILL)  # the whole sweep, at no chosen point of its work
        outputs.append(p.communicate()[0])
        killed += 1
    rerun = subprocess.run(cmd, cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stdout[-2000:] + rerun.stderr[-2000:]
    text = "".join(outputs) + rerun.stdout
    assert "is damaged" not in text and "Traceback" not in text + rerun.stderr
    resumed = text.count("resuming ")
    with capsys.disabled():  # shown with pytest -s
        print(f"\n{killed} kills, {resumed} jobs resumed from their last flush")
    assert killed >= 3 and resumed >= 1  # the kills landed inside jobs

    reference = tmp_path / "reference"
    assert inprocess("run", "-m", *SWEEP, f"hydra.sweep.dir={reference}") == 0
    for job in map(str, range(16)):
        np.testing.assert_array_equal(theta(sweep / job), theta(reference / job))  # theta() asserts complete
        a, b = diagnostics(sweep / job), diagnostics(reference / job)
        assert a.keys() == b.keys()
        for k in a:
            np.testing.assert_array_equal(a[k], b[k])
