"""A run directory has one owner and its data is never lost: the lock, no writes through
links, damaged files moved aside, whole stores only, checksums, the final check."""

import os
import signal
import subprocess
import sys
import time

import h5py
import numpy as np
import pytest

from bnnsample import sampler as sampler_mod
from bnnsample.plumbing.errors import Interrupted
from bnnsample.store import SampleStore

from .helpers import run_inprocess, stop_after_draws

TOY = ["dataset=two_batch_gaussian", "chains=4", "burn_in=2", "samples=6", "progress=false", "evaluate=false"]


def one_error_line(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("bnnsample: error: "), stderr
    assert "Traceback" not in stderr
    return lines[0]


def run_args(run_dir, *extra):
    return ["run", *TOY, *extra, f"hydra.run.dir={run_dir}"]


def interrupted_run(run_dir, monkeypatch, after=2, extra=()):
    """A run stopped (as by Ctrl-C) after ``after`` draws: a resumable store."""
    stop_after_draws(monkeypatch, after)
    with pytest.raises(Interrupted):
        run_inprocess(run_dir, [*TOY, "thin=1", *extra])
    monkeypatch.undo()
    return run_dir / "samples.h5"


def flip_chunk_bytes(h5, name="theta"):
    """Flip bytes in the middle of the first stored chunk of a dataset, on disk."""
    with h5py.File(h5, "r") as f:
        info = f[name].id.get_chunk_info(0)
    with open(h5, "r+b") as fh:
        fh.seek(info.byte_offset + info.size // 2)
        b = fh.read(4)
        fh.seek(info.byte_offset + info.size // 2)
        fh.write(bytes(x ^ 0xFF for x in b))


# -- one owner ---------------------------------------------------------------------------


HOLDER = "import sys\nfrom bnnsample.rundir import owned\nwith owned(sys.argv[1]):\n    print('ready', flush=True)\n    sys.stdin.read()\n"


def test_second_run_on_an_owned_directory_refuses_naming_the_pid(inprocess, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("HDF5_USE_FILE_LOCKING", "FALSE")  # the lock is bnnsample's own, not HDF5's
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "ready"
        code = inprocess(*run_args(tmp_path))
        line = one_error_line(capsys.readouterr().err)
        assert code not in (0, None)
        assert f"PID {holder.pid}" in line and "in use" in line
        assert not (tmp_path / "samples.h5").exists()
    finally:
        holder.communicate("")
    assert inprocess(*run_args(tmp_path)) == 0  # released with the process


def test_refused_run_leaves_a_training_run_directory_as_it_was(inprocess, capsys, tmp_path):
    """While the owner trains (its directory holds only Hydra's record, its log and the lock),
    a refused second command neither removes the directory nor rewrites .hydra/ or the log."""
    before = {".hydra/config.yaml": "seed: 1\n", ".hydra/overrides.yaml": "- seed=1\n",
              ".hydra/hydra.yaml": "hydra: {}\n", "bnnsample.log": "run 0: Adam+SWA done\n"}  # fmt: skip
    for name, text in before.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "ready"
        assert inprocess(*run_args(tmp_path, "seed=2")) not in (0, None)
        assert f"PID {holder.pid}" in one_error_line(capsys.readouterr().err)
        assert {n: (tmp_path / n).read_text() for n in before} == before
        assert (tmp_path / ".bnnsample.lock").read_text().strip() == str(holder.pid)
    finally:
        holder.communicate("")


def test_owner_writes_hydra_record(inprocess, tmp_path):
    assert inprocess(*run_args(tmp_path, "seed=3")) == 0
    import yaml

    assert yaml.safe_load((tmp_path / ".hydra" / "config.yaml").read_text())["seed"] == 3
    assert "seed=3" in yaml.safe_load((tmp_path / ".hydra" / "overrides.yaml").read_text())
    assert yaml.safe_load((tmp_path / ".hydra" / "hydra.yaml").read_text())["hydra"]["job"]["name"] == "bnnsample"


def test_concurrent_run_does_not_touch_the_running_one(inprocess, capsys, tmp_path, monkeypatch):
    """A real run writing its store; a second `bnnsample run` there (another command) is
    refused at once; the first run goes on and its store stays readable."""
    env = dict(os.environ, OMP_NUM_THREADS="1", HDF5_USE_FILE_LOCKING="FALSE")
    monkeypatch.setenv("HDF5_USE_FILE_LOCKING", "FALSE")
    args = ["run", "dataset=two_batch_gaussian", "chains=200", "burn_in=10", "samples=10000", "thin=200",
            "flush_seconds=0.2", "progress=false", "evaluate=false", f"hydra.run.dir={tmp_path}"]  # fmt: skip
    first = subprocess.Popen([sys.executable, "-m", "bnnsample.cli", *args], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    h5 = tmp_path / "samples.h5"
    deadline = time.monotonic() + 120
    while not h5.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    inode = h5.stat().st_ino
    code = inprocess("run", *TOY, "chains=7", f"hydra.run.dir={tmp_path}")
    line = one_error_line(capsys.readouterr().err)
    assert code not in (0, None) and f"PID {first.pid}" in line
    assert first.poll() is None and h5.stat().st_ino == inode
    time.sleep(1.0)
    first.send_signal(signal.SIGINT)
    _, err = first.communicate(timeout=60)
    assert first.returncode == 130, err
    with h5py.File(h5, "r") as f:
        n = int(f.attrs["draws"])
        assert n >= 1 and f["theta"].shape[0] == 200 and np.isfinite(f["theta"][:, :n]).all()


def test_a_multirun_still_runs_each_job_in_its_own_directory(inprocess, tmp_path):
    code = inprocess("run", "-m", *TOY, "seed=1,2", f"hydra.sweep.dir={tmp_path}")
    assert code == 0
    for job in ("0", "1"):
        with SampleStore(tmp_path / job / "samples.h5") as s:
            assert s.complete


# -- links and damaged files ----------------------------------------------------------------


@pytest.mark.parametrize("target", ["file", "/dev/zero"])
def test_samples_h5_that_is_a_link_is_refused_not_followed(inprocess, capsys, tmp_path, target):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    if target == "file":
        target = tmp_path / "precious.h5"
        target.write_bytes(b"precious bytes")
    (run_dir / "samples.h5").symlink_to(target)
    code = inprocess(*run_args(run_dir))
    line = one_error_line(capsys.readouterr().err)
    assert code not in (0, None) and "symbolic link" in line and "samples.h5" in line
    assert (run_dir / "samples.h5").is_symlink()
    if target != "/dev/zero":
        assert target.read_bytes() == b"precious bytes"


def test_unreadable_store_is_moved_aside_and_named(inprocess, capsys, tmp_path):
    (tmp_path / "samples.h5").write_bytes(b"not hdf5 at all")
    code = inprocess(*run_args(tmp_path))
    line = one_error_line(capsys.readouterr().err)
    moved = list(tmp_path.glob("samples.h5.damaged-*"))
    assert code not in (0, None) and len(moved) == 1 and moved[0].name in line
    assert moved[0].read_bytes() == b"not hdf5 at all"
    assert inprocess(*run_args(tmp_path)) == 0  # the same command then starts afresh
    with SampleStore(tmp_path / "samples.h5") as s:
        assert s.complete
    assert moved[0].read_bytes() == b"not hdf5 at all"


# -- whole stores ----------------------------------------------------------------------------


def test_resume_without_theta_is_refused(inprocess, capsys, tmp_path, monkeypatch):
    h5 = interrupted_run(tmp_path, monkeypatch)
    with h5py.File(h5, "r+") as f:
        del f["theta"]
    code = inprocess(*run_args(tmp_path, "thin=1"))
    line = one_error_line(capsys.readouterr().err)
    assert code not in (0, None) and "no theta" in line
    with SampleStore(h5) as s:
        assert not s.complete and "theta" not in s.f


def test_complete_store_without_theta_is_not_taken_as_done(inprocess, capsys, tmp_path):
    assert inprocess(*run_args(tmp_path)) == 0
    with h5py.File(tmp_path / "samples.h5", "r+") as f:
        del f["theta"]
    capsys.readouterr()
    code = inprocess(*run_args(tmp_path))
    line = one_error_line(capsys.readouterr().err)
    assert code not in (0, None) and "no theta" in line


def test_writer_checks_its_store_before_reporting_success(tmp_path, monkeypatch):
    """A store that lost a dataset while being written is not reported done."""
    from bnnsample.plumbing.errors import UserError

    mark = SampleStore.mark_complete

    def lose_theta(self, *timing):
        del self.f["theta"]
        mark(self, *timing)

    monkeypatch.setattr(SampleStore, "mark_complete", lose_theta)
    with pytest.raises(UserError, match="failed its check after writing"):
        run_inprocess(tmp_path, TOY)


# -- checksums -------------------------------------------------------------------------------


def test_datasets_carry_checksums(tmp_path):
    run_inprocess(tmp_path, TOY)
    with h5py.File(tmp_path / "samples.h5", "r") as f:
        for name in ("theta", "diverged", "diagnostics/kinetic_temperature", "init/x0", "state/tensor/x"):
            assert f[name].fletcher32, name


def test_hdf5_calls_write_what_h5py_writes(tmp_path):
    """The store's own HDF5 calls (new attributes, a block of draws, the divergence flags) leave
    the file as h5py's attrs[...] = and slicing do: the same types, shapes and values."""
    from bnnsample.store import _new_attrs, _write_draws

    attrs = {"config": "a: 'y'\nb: é\n", "seed": 3, "step_size": 0.1, "complete": False, "torch_version": "2.x",
             "draws": np.int64(0), "chains": 4}  # fmt: skip
    block = np.random.default_rng(0).standard_normal((4, 2, 3)).astype(np.float32)
    with h5py.File(tmp_path / "a.h5", "w") as a, h5py.File(tmp_path / "b.h5", "w") as b:
        a.attrs.update(attrs)
        _new_attrs(b, attrs)
        for f in (a, b):
            f.create_dataset("theta", shape=(4, 5, 3), dtype="float32", fillvalue=np.nan)
            f.create_dataset("diag", shape=(4, 5), dtype="float64", fillvalue=np.nan)
        a["theta"][:, 2:4] = block
        a["diag"][:, 2:4] = block[..., 0]
        _write_draws(b["theta"], 2, block)
        _write_draws(b["diag"], 2, block[..., 0])
        for name in attrs:
            ta, tb = a.attrs.get_id(name).get_type(), b.attrs.get_id(name).get_type()
            assert ta.equal(tb) and a.attrs.get_id(name).shape == b.attrs.get_id(name).shape, name
            assert type(a.attrs[name]) is type(b.attrs[name]) and a.attrs[name] == b.attrs[name], name
        for name in ("theta", "diag"):
            np.testing.assert_array_equal(a[name][()], b[name][()])
    run_inprocess(tmp_path / "run", TOY)
    with SampleStore(tmp_path / "run" / "samples.h5", "r+") as s:
        s.set_diverged(np.array([True, False, False, False]))
        assert s.f["diverged"].dtype == bool and s.diverged().tolist() == [True, False, False, False]


def test_verify_under_a_group_reads_only_that_group(tmp_path):
    """The after-write check reads back the resume state (verify(under="state")), not the
    draws: a flipped byte in theta is found by the whole-store verify only, one in the state
    by both."""
    from bnnsample.store import StoreDamaged

    run_inprocess(tmp_path, TOY)
    h5 = tmp_path / "samples.h5"
    flip_chunk_bytes(h5)
    with SampleStore(h5) as s:
        s.verify(under="state")
        with pytest.raises(StoreDamaged, match="^theta cannot be read back"):
            s.verify()
    flip_chunk_bytes(h5, "state/tensor/x")
    with SampleStore(h5) as s, pytest.raises(StoreDamaged, match="^state/tensor/x cannot be read back"):
        s.verify(under="state")


def test_flipped_bytes_are_reported_by_evaluate(inprocess, capsys, tmp_path):
    assert inprocess(*run_args(tmp_path)) == 0
    flip_chunk_bytes(tmp_path / "samples.h5")
    capsys.readouterr()
    code = inprocess("evaluate", str(tmp_path))
    out = capsys.readouterr()
    line = one_error_line(out.err)
    assert code not in (0, None) and "checksum" in line and str(tmp_path) in line
    assert not (tmp_path / "metrics.csv").exists()


def test_flipped_bytes_are_reported_on_resume(inprocess, capsys, tmp_path, monkeypatch):
    h5 = interrupted_run(tmp_path, monkeypatch)
    flip_chunk_bytes(h5)
    code = inprocess(*run_args(tmp_path, "thin=1"))
    line = one_error_line(capsys.readouterr().err)
    moved = list(tmp_path.glob("samples.h5.damaged-*"))
    assert code not in (0, None) and "damaged" in line and "theta" in line
    assert len(moved) == 1 and moved[0].name in line and not h5.exists()


# -- full disk, signals in training -------------------------------------------------------------


def test_full_disk_fails_with_one_line_and_the_rerun_resumes(inprocess, capsys, tmp_path, monkeypatch):
    """The disk fills while the 4th draw is written: one line, exit != 0, the 3 draws flushed
    before stay readable with their resume state, and the same command resumes from them."""
    import errno

    append, calls = SampleStore.append, {"n": 0}

    def full_after_3(self, *a, **k):
        calls["n"] += 1
        if calls["n"] == 4:
            raise OSError(errno.ENOSPC, "No space left on device")
        append(self, *a, **k)

    monkeypatch.setattr(SampleStore, "append", full_after_3)
    args = run_args(tmp_path, "thin=1", "flush_seconds=0")
    code = inprocess(*args)
    line = one_error_line(capsys.readouterr().err)
    assert code not in (0, None) and "disk full" in line
    with SampleStore(tmp_path / "samples.h5") as s:
        assert s.n_draws == 3 and s.state_consistent and not s.complete
        assert np.isfinite(s.theta()).all()
    monkeypatch.undo()
    assert inprocess(*args) == 0
    assert "resuming" in capsys.readouterr().out
    with SampleStore(tmp_path / "samples.h5") as s:
        assert s.complete and s.n_draws == 6


def test_stop_request_ends_adam_swa_training(tmp_path, monkeypatch):
    """Ctrl-C/SIGTERM (sampler.request_stop) during Adam/SWA training stops it after the
    current optimizer step: Interrupted naming training, no store written, the training's
    checkpoint kept for the rerun."""
    from bnnsample.train import Adam

    step, calls = Adam.step, {"n": 0}

    def stop_at_3(self, *a, **k):
        calls["n"] += 1
        if calls["n"] == 3:
            sampler_mod.request_stop()
        return step(self, *a, **k)

    monkeypatch.setattr(Adam, "step", stop_at_3)
    ovr = ["dataset=digits", "chains=1", "init.train_epochs=50", "init.swa_epochs=50", "batch_size=250",
           "model.n_calibration=100", "dataset.n_test=297", "evaluate=false"]  # fmt: skip
    with pytest.raises(Interrupted, match="training"):
        run_inprocess(tmp_path, ovr)
    assert calls["n"] == 3 and not sampler_mod._stop["requested"]
    assert not (tmp_path / "samples.h5").exists() and (tmp_path / "training.pt").exists()


def test_waiting_owner_names_the_holder_and_takes_over_when_it_lets_go(tmp_path, capsys):
    """owned(wait=True), what a figure recipe uses for a run another recipe is producing:
    one line naming the holder, then the lock once the holder's process is done."""
    from bnnsample.rundir import RunDirBusy, owned

    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert holder.stdout.readline().strip() == "ready"
    with pytest.raises(RunDirBusy), owned(tmp_path):
        pass
    import threading

    released = threading.Event()

    def release():
        released.set()
        holder.communicate("")

    threading.Timer(0.5, release).start()
    with owned(tmp_path, wait=True):
        assert released.is_set()  # got the lock only once the holder was told to let go
        assert (tmp_path / ".bnnsample.lock").read_text().strip() == str(os.getpid())
    assert f"waiting for {tmp_path}: in use by PID {holder.pid}" in capsys.readouterr().err


def test_a_sweep_never_writes_hydras_multirun_yaml_through_a_link(tmp_path, cli):
    """Hydra saves multirun.yaml itself; a link there is refused before (one line, exit 2)
    and what it points to is left as it was."""
    sweep, target = tmp_path / "sweep", tmp_path / "elsewhere.yaml"
    sweep.mkdir()
    target.write_text("keep\n")
    (sweep / "multirun.yaml").symlink_to(target)
    out = cli("run", "-m", "dataset=two_batch_gaussian", "chains=2", "samples=2", "burn_in=1", "seed=1,2",
              f"hydra.sweep.dir={sweep}", "evaluate=false", "progress=false", cwd=tmp_path)  # fmt: skip
    errors = [ln for ln in out.stderr.splitlines() if ln.startswith("bnnsample: error")]
    assert out.returncode == 2 and len(errors) == 1 and "multirun.yaml is a symbolic link" in errors[0], out.stderr
    assert target.read_text() == "keep\n" and not (sweep / "0").exists()


def test_a_link_at_one_sweep_table_refuses_the_set_before_any_is_written(tmp_path):
    """sweep_status.csv is a link: nothing of the set is written, sweep.csv included, and the
    link's target is left as it was."""
    from bnnsample.evaluate.sweep import aggregate_sweep
    from bnnsample.plumbing.errors import UserError

    target = tmp_path / "elsewhere.csv"
    target.write_text("keep\n")
    (tmp_path / "sweep_status.csv").symlink_to(target)
    with pytest.raises(UserError, match="sweep_status.csv is a symbolic link"):
        aggregate_sweep(tmp_path, echo=False)
    assert target.read_text() == "keep\n" and not (tmp_path / "sweep.csv").exists()
