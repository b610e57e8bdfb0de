"""`bnnsample export RUN_DIR` writes the run as an ArviZ InferenceData that round-trips through
arviz.from_netcdf with the stored draws, and R-hat computed by ArviZ from it equals the one
`bnnsample evaluate` reports."""

import arviz as az
import numpy as np
import pandas as pd
import pytest

from bnnsample.store import SampleStore

from ..helpers import run_inprocess


def test_export_round_trip_and_rhat_equal_to_evaluate(tmp_path, cli):
    run_inprocess(tmp_path / "r", ["dataset=two_batch_gaussian", "chains=6", "samples=40"])
    assert cli("evaluate", str(tmp_path / "r")).returncode == 0
    out = cli("export", str(tmp_path / "r"))
    assert out.returncode == 0, out.stderr
    idata = az.from_netcdf(tmp_path / "r" / "posterior.nc")
    with SampleStore(tmp_path / "r" / "samples.h5") as s:
        theta, diag = s.theta(), s.diagnostics()
    post = idata.posterior["theta"]
    assert post.dims == ("chain", "draw", "theta_dim") and post.shape == theta.shape
    np.testing.assert_array_equal(post.values, theta)
    np.testing.assert_array_equal(idata.sample_stats["kinetic_temperature"].values, diag["kinetic_temperature"])
    assert not idata.sample_stats["diverging"].values.any()
    metrics = pd.read_csv(tmp_path / "r" / "metrics.csv")
    want = metrics[(metrics.group == "theta[0]") & (metrics.metric == "rhat")]["value"].iloc[0]
    got = float(az.rhat(idata.posterior, method="rank")["theta"].values[0])
    assert got == want


@pytest.mark.smoke
def test_export_of_a_classifier_holds_its_predictive(tmp_path, cli):
    run_inprocess(tmp_path / "r", ["dataset=digits", "model=cnn_small", "chains=2", "init=zeros", "unit=step",
                                   "burn_in=2", "samples=3", "store_theta=false", "evaluate=false",
                                   "dataset.n_test=97"])  # fmt: skip
    assert cli("export", str(tmp_path / "r")).returncode == 0
    idata = az.from_netcdf(tmp_path / "r" / "posterior.nc")
    assert idata.predictions["probabilities"].shape == (2, 3, 97, 10)
    assert idata.observed_data["y"].shape == (97,) and "posterior" not in idata.groups()
    bad = cli("export", str(tmp_path / "nothing"))
    assert bad.returncode == 2 and bad.stderr.startswith("bnnsample: error: export:") and "Traceback" not in bad.stderr


def test_export_names_a_networks_coordinates_by_parameter_and_index(tmp_path, cli):
    run_inprocess(tmp_path / "r", ["dataset=digits", "model=cnn_small", "chains=2", "init=zeros", "unit=step",
                                   "burn_in=1", "samples=2", "evaluate=false", "dataset.n_test=97"])  # fmt: skip
    assert cli("export", str(tmp_path / "r")).returncode == 0
    names = [str(n) for n in az.from_netcdf(tmp_path / "r" / "posterior.nc").posterior["theta_dim"].values]
    with SampleStore(tmp_path / "r" / "samples.h5") as s:
        assert len(names) == s.theta_dim == len(set(names))
    assert names[:2] == ["0.weight[0,0,0,0]", "0.weight[0,0,0,1]"]  # the first convolution, row-major
    assert names[-1].endswith(".bias[9]")  # the last layer's bias, one per class


def test_an_interrupt_swallowed_by_a_callback_still_ends_the_block(capsys):
    """h5py runs weakref callbacks during a long write; a Ctrl-C whose handler runs inside one is
    swallowed there (Python prints "Exception ignored" and goes on). interrupts_kept raises it
    again, and does not print the swallowed one."""
    import signal
    import weakref

    import pytest

    from bnnsample.plumbing.stop import interrupts_kept

    def swallowing_callback(_):
        signal.raise_signal(signal.SIGINT)
        for _ in range(100):  # the handler runs here, inside the callback
            pass

    class Held:
        pass

    went_on = []
    with pytest.raises(KeyboardInterrupt), interrupts_kept():
        held = Held()
        ref = weakref.ref(held, swallowing_callback)
        del held
        went_on.append(ref() is None)
    assert went_on == [True]  # the first KeyboardInterrupt was swallowed; the block went on
    assert "Exception ignored" not in capsys.readouterr().err
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def _small_run(tmp_path, monkeypatch, stop_after=None):
    from ..helpers import stop_after_draws

    args = ["dataset=two_batch_gaussian", "chains=3", "samples=8", "thin=1", "evaluate=false"]
    if stop_after is None:
        run_inprocess(tmp_path / "r", args)
        return tmp_path / "r"
    import pytest

    from bnnsample.plumbing.errors import Interrupted

    stop_after_draws(monkeypatch, stop_after)
    with pytest.raises(Interrupted):
        run_inprocess(tmp_path / "r", args)
    monkeypatch.undo()
    return tmp_path / "r"


def _error_line(capsys) -> str:
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and err[0].startswith("bnnsample: error: export: "), err
    return err[0]


def test_export_interrupted_while_writing_exits_130_and_replaces_nothing(tmp_path, monkeypatch, inprocess, capsys):
    """Ctrl-C while posterior.nc is written, its handler running where h5py swallows it (a
    weakref callback): exit 130, one line, the old posterior.nc as it was, no temporary file."""
    import signal
    import weakref

    run_dir = _small_run(tmp_path, monkeypatch)
    (run_dir / "posterior.nc").write_bytes(b"the old export")
    write = az.InferenceData.to_netcdf

    def interrupted_write(self, path, *a, **k):
        class Held:
            pass

        def swallowing_callback(_):
            signal.raise_signal(signal.SIGINT)
            for _ in range(100):
                pass

        held = Held()
        ref = weakref.ref(held, swallowing_callback)  # noqa: F841
        del held
        return write(self, path, *a, **k)

    monkeypatch.setattr(az.InferenceData, "to_netcdf", interrupted_write)
    before = sorted(p.name for p in run_dir.iterdir())
    assert inprocess("export", str(run_dir)) == 130
    assert _error_line(capsys) == "bnnsample: error: export: interrupted; nothing was replaced"
    assert (run_dir / "posterior.nc").read_bytes() == b"the old export"
    assert sorted(p.name for p in run_dir.iterdir()) == before


def test_export_of_a_partial_run_says_so(tmp_path, monkeypatch, inprocess, capsys):
    run_dir = _small_run(tmp_path, monkeypatch, stop_after=3)
    assert inprocess("export", str(run_dir)) == 0
    out = capsys.readouterr()
    assert "Traceback" not in out.err and "More chains" not in out.err
    assert f"wrote {run_dir / 'posterior.nc'}: a partial run (3 of 8 draws per chain" in out.err + out.out
    idata = az.from_netcdf(run_dir / "posterior.nc")
    assert idata.attrs["bnnsample_complete"] == 0 and idata.attrs["bnnsample_draws_planned"] == 8


def test_export_of_a_truncated_store_names_it_in_one_line(tmp_path, monkeypatch, inprocess, capsys):
    run_dir = _small_run(tmp_path, monkeypatch)
    h5 = run_dir / "samples.h5"
    h5.write_bytes(h5.read_bytes()[: h5.stat().st_size // 2])
    assert inprocess("export", str(run_dir)) == 2
    line = _error_line(capsys)
    assert line.startswith(f"bnnsample: error: export: {h5}: not a readable HDF5 file"), line
    assert not (run_dir / "posterior.nc").exists()


def test_export_while_a_run_owns_the_directory_names_it(tmp_path, monkeypatch, inprocess, capsys):
    """A run (or an evaluation) holds the run directory and writes its store: export says who,
    in one line, instead of HDF5's 'unable to lock file, errno = 11'."""
    import os
    import subprocess
    import sys

    import bnnsample

    run_dir = _small_run(tmp_path, monkeypatch)
    code = ("import sys, h5py; from bnnsample.rundir import owned\n"
            f"with owned({str(run_dir)!r}), h5py.File({str(run_dir / 'samples.h5')!r}, 'a'):\n"
            "    print('held', flush=True); sys.stdin.read()")  # fmt: skip
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(bnnsample.__file__)))
    holder = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              env=env)  # fmt: skip
    try:
        assert holder.stdout.readline() == "held\n"
        assert inprocess("export", str(run_dir)) == 2
        line = _error_line(capsys)
    finally:
        holder.communicate("")
    assert f"{run_dir} is in use by PID {holder.pid}" in line and "errno" not in line, line
    assert not (run_dir / "posterior.nc").exists()
