"""A store writer killed with SIGKILL at any moment leaves the store of its last flush (store.py's
docstring has the argument): killed at random moments, reopened and resumed each time."""

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from bnnsample.store import UNDO_SUFFIX, SampleStore, open_checked

CHAINS, DIM, BLOCK, PLANNED = 200, 20, 16, 1 << 13

# A writer as the sampler writes: a block of draws, the divergence flags, the resume state, a
# flush; after each flush it appends the draws flushed to `progress`, so the test knows a lower
# bound of what the kill must keep. It resumes from the state it finds. The value of draw k of
# chain c is k + c / 1000 (every coordinate), so a draw read back can be checked.
WRITER = f"""
import sys
import numpy as np
from pathlib import Path
from bnnsample.store import SampleStore
C, D, B, N = {CHAINS}, {DIM}, {BLOCK}, {PLANNED}
path, progress = Path(sys.argv[1]), open(sys.argv[2], "a")
if path.exists():
    st = SampleStore(path, "r+", block_draws=B)
    k0 = int(st.f["state/draws"][()])
    st.set_draws(k0)
else:
    st = SampleStore.create(path, chains=C, draws=N, dim=D, store_theta=True, predictive_shape=(2, 2),
                            attrs={{"config": "seed: 1"}}, staged=True, block_draws=B)
    st.publish()
    k0 = 0
while k0 < N:
    th = np.arange(C, dtype=np.float32)[:, None, None] / 1000 + np.arange(k0, k0 + B, dtype=np.float32)[:, None]
    th = np.repeat(th, D, axis=2)
    st.reserve(B, 1, th[:, -1].nbytes)
    st.append(theta=th, predictive=np.repeat(th[:, :, :2, None], 2, axis=3), diagnostics={{"t": th[:, :, 0] * 2.0}})
    st.set_diverged(np.zeros(C, bool))
    k0 += B
    st.write_state({{"x": th[:, -1], "draws": np.int64(k0), "step": np.int64(k0)}})
    st.flush()
    print(k0, file=progress, flush=True)
"""


def expected_theta(draws: int) -> np.ndarray:
    th = np.arange(CHAINS, dtype=np.float32)[:, None] / 1000 + np.arange(draws, dtype=np.float32)
    return np.repeat(th[:, :, None], DIM, axis=2)


def check_store(h5, at_least: int) -> int:
    """The store opens, every checksum holds, and it holds the draws of a flush no earlier than
    the last one the writer reported, with the resume state written with them."""
    with open_checked(h5) as s:
        s.verify()
        n = s.n_draws
        assert n >= at_least, f"{n} draws kept, the writer had flushed {at_least}"
        assert s.state_consistent and int(s.f["state/draws"][()]) == n
        np.testing.assert_array_equal(s.theta(), expected_theta(n))
        np.testing.assert_array_equal(s.predictive()[..., 0], expected_theta(n)[:, :, :2])
        np.testing.assert_array_equal(s.diagnostics()["t"], expected_theta(n)[:, :, 0] * 2.0)
        return n


def flushed(progress) -> list[int]:
    return [int(k) for k in progress.read_text().split()] if progress.exists() else []


@pytest.mark.slow  # end-to-end processes: left out by -m "not slow"
def test_a_writer_killed_at_random_moments_keeps_its_last_flush_and_resumes(tmp_path):
    h5, progress = tmp_path / "samples.h5", tmp_path / "progress"
    rng, kept, kills, env = random.Random(46), 0, 0, dict(os.environ, OMP_NUM_THREADS="1")
    for _ in range(60):
        if flushed(progress)[-1:] == [PLANNED]:  # the last writer wrote every planned draw before its kill
            assert check_store(h5, PLANNED) == PLANNED
            h5.unlink()  # a new store for the next kills
            progress.unlink()
            kept = 0
        before = len(flushed(progress))
        p = subprocess.Popen([sys.executable, "-c", WRITER, str(h5), str(progress)], env=env)
        deadline = time.monotonic() + 60
        while len(flushed(progress)) == before and time.monotonic() < deadline:  # writing: imports are done
            time.sleep(0.002)
        time.sleep(rng.uniform(0.0, 0.1))
        p.send_signal(signal.SIGKILL)
        rc = p.wait()
        reported = flushed(progress)
        assert len(reported) > before, "the writer flushed nothing before the kill"
        if rc == 0:  # it wrote every planned draw before the kill came (a fast or a loaded machine)
            continue
        assert rc == -signal.SIGKILL
        kills += 1
        kept = check_store(h5, max(kept, reported[-1]))
        if kills == 40:
            break
    assert kills >= 30, f"only {kills} kills landed while the writer wrote"
    assert not (tmp_path / ("samples.h5" + UNDO_SUFFIX)).exists()  # the last open rolled back and removed it


def test_an_abandoned_flush_is_undone_on_open(tmp_path):
    """A flush cut off after HDF5 wrote but before the commit (the disk as a kill there leaves
    it, copied aside) is undone by the next open, byte for byte."""
    h5, killed = tmp_path / "samples.h5", tmp_path / "killed" / "samples.h5"
    killed.parent.mkdir()
    undo = Path(str(h5) + UNDO_SUFFIX)
    with SampleStore.create(h5, chains=4, draws=64, dim=3, store_theta=True, staged=True, block_draws=8) as st:
        st.publish()
        st.append(theta=np.ones((4, 8, 3), np.float32))
        st.write_state({"x": np.zeros((4, 3)), "draws": np.int64(8), "step": np.int64(8)})
        st.flush()
        flushed = h5.read_bytes()
        assert undo.read_bytes() == b""  # committed: the log emptied (removed on close)
        st.append(theta=np.full((4, 8, 3), 2, np.float32))
        st.write_state({"x": np.ones((4, 3)), "draws": np.int64(16), "step": np.int64(16)})
        st.f.flush()  # HDF5 wrote everything; the commit has not come
        killed.write_bytes(h5.read_bytes())
        Path(str(killed) + UNDO_SUFFIX).write_bytes(undo.read_bytes())
    assert killed.read_bytes() != flushed
    with SampleStore(killed) as again:
        assert again.n_draws == 8 and int(again.f["state/draws"][()]) == 8
    assert killed.read_bytes() == flushed
    assert not Path(str(killed) + UNDO_SUFFIX).exists()
    with SampleStore(h5) as whole:  # the store closed normally keeps its last writes
        assert whole.n_draws == 16


def test_a_stale_undo_log_beside_a_new_store_is_not_applied_to_it(tmp_path):
    """A log left beside a store that was moved aside would cut a new store of that name to
    nothing if a kill came before the new store's first record replaced it: creating and
    publishing a store removes it first."""
    import shutil
    import struct

    h5, killed = tmp_path / "samples.h5", tmp_path / "killed" / "samples.h5"
    undo, killed_undo = Path(str(h5) + UNDO_SUFFIX), Path(str(killed) + UNDO_SUFFIX)
    killed.parent.mkdir()
    stale = struct.pack("<8sQ", b"BNNUNDO1", 0) + struct.pack("<QQ", 0, 4) + b"junk"
    for staged in (True, False):
        undo.write_bytes(stale)
        with SampleStore.create(h5, chains=2, draws=8, dim=1, store_theta=True, staged=staged, block_draws=8) as st:
            st.publish()
            shutil.copyfile(h5, killed)  # the disk as a kill here leaves it
            if undo.exists():
                shutil.copyfile(undo, killed_undo)
        with SampleStore(killed) as again:
            assert again.n_draws == 0 and again.f["theta"].shape == (2, 8, 1)
        h5.unlink()
