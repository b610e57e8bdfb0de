"""Rerunning the same command in the same run directory resumes from state/ and gives the
draws of an uninterrupted run bit for bit (CPU); a finished run is reported, not redone."""

import numpy as np
import pytest

from bnnsample import sampler as sampler_mod
from bnnsample.plumbing.errors import Interrupted, UserError
from bnnsample.store import SampleStore

from .helpers import run_inprocess, stop_after_draws

OVR = ["dataset=two_batch_gaussian", "chains=50", "burn_in=30", "samples=40", "thin=3", "check_every=7"]


@pytest.mark.parametrize(
    "extra",
    [
        ["integrator=sms_ubu"],
        ["integrator=sg_ubu"],
        ["integrator=sms_ubu", "dtype=float32"],  # float32 noise comes from torch's generator
        # the target draws its own gradient noise; NOGIN reads its covariance
        ["integrator=nogin", "dataset=noisy_gaussian", "chains=50", "burn_in=30", "samples=40", "thin=3"],
    ],
)
def test_kill_and_resume_is_bit_exact(tmp_path, monkeypatch, extra):
    ovr = [*OVR, *extra]
    full, _ = run_inprocess(tmp_path / "a", ovr)
    stop_after_draws(monkeypatch, 13)
    with pytest.raises(Interrupted):
        run_inprocess(tmp_path / "b", ovr)
    monkeypatch.undo()
    with SampleStore(tmp_path / "b" / "samples.h5") as s:
        assert s.n_draws == 13 and not s.complete
    resumed, _ = run_inprocess(tmp_path / "b", ovr)
    with SampleStore(full) as a, SampleStore(resumed) as b:
        assert b.complete and b.n_draws == 40
        np.testing.assert_array_equal(a.theta(), b.theta())
        np.testing.assert_array_equal(a.diagnostics()["kinetic_temperature"], b.diagnostics()["kinetic_temperature"])
        # the uninterrupted run records what its sampling took; the resumed one, whose first leg was not timed,
        # records nothing rather than a part
        cpu, wall = a.sampling_seconds
        assert cpu > 0 and wall > 0
        assert all(np.isnan(b.sampling_seconds))


def test_complete_run_is_not_redone_and_other_config_is_refused(tmp_path, capsys):
    run_inprocess(tmp_path, OVR)
    before = (tmp_path / "samples.h5").stat().st_mtime_ns
    run_inprocess(tmp_path, OVR)
    assert "already complete" in capsys.readouterr().out
    assert (tmp_path / "samples.h5").stat().st_mtime_ns == before
    with pytest.raises(UserError, match="different config"):
        run_inprocess(tmp_path, [*OVR, "step_size=0.1"])


BNN = ["dataset=digits", "chains=2", "init.train_epochs=1", "init.swa_epochs=1", "burn_in=1", "samples=5",
       "model.n_calibration=100", "dataset.n_test=297", "check_every=5", "evaluate=false", "batch_size=250"]  # fmt: skip


def test_bnn_kill_and_resume_is_bit_exact(tmp_path, monkeypatch):
    """Algorithm 3 on a network (init=swa: Adam -> SWA, localized target, bounces, control
    variates with cached per-batch reference gradients): a run stopped after 2 draws and
    rerun gives the uninterrupted run's positions, predictive probabilities, losses and
    bounce counts bit for bit."""
    ovr = [*BNN, "control_variate=true"]
    full, _ = run_inprocess(tmp_path / "a", ovr)
    stop_after_draws(monkeypatch, 2)
    with pytest.raises(Interrupted):
        run_inprocess(tmp_path / "b", ovr)
    monkeypatch.undo()
    resumed, _ = run_inprocess(tmp_path / "b", ovr)
    with SampleStore(full) as a, SampleStore(resumed) as b:
        assert b.complete and b.n_draws == 5 and a.attrs["control_variate"] == "cached"
        np.testing.assert_array_equal(a.theta(), b.theta())
        np.testing.assert_array_equal(a.predictive(), b.predictive())
        for k in ("minibatch_loss", "bounces", "kinetic_temperature"):
            np.testing.assert_array_equal(a.diagnostics()[k], b.diagnostics()[k])
        np.testing.assert_array_equal(a.group("baselines")["swa"], b.group("baselines")["swa"])


def test_rerun_changing_only_non_sampling_keys_reuses_the_run(tmp_path, capsys):
    """progress, evaluate, flush cadence, ... do not change the draws: a rerun that changes
    only them finds the run complete instead of refusing the directory; friction does."""
    import pytest

    from bnnsample.plumbing.errors import UserError
    from tests.helpers import run_inprocess

    toy = ["dataset=two_batch_gaussian", "chains=4", "burn_in=5", "samples=5", "unit=step", "init=zeros"]
    run_inprocess(tmp_path, [*toy, "evaluate=false"])
    capsys.readouterr()
    run_inprocess(tmp_path, [*toy, "evaluate=true", "flush_seconds=3"])
    assert "already complete" in capsys.readouterr().out
    with pytest.raises(UserError, match="different config"):
        run_inprocess(tmp_path, [*toy, "friction=2"])


def test_unflushed_block_is_recomputed_after_a_crash(tmp_path, monkeypatch):
    """Draws are written in blocks (here 4 draws of 50 one-dimensional chains): a run that dies
    with 3 draws of its third block buffered keeps the two written blocks and their resume
    state, nothing of the third; rerun, it recomputes the lost draws. Stopped again at a draw
    that ends no block (a stop flushes there), and rerun, the store holds the uninterrupted
    run bit for bit."""
    import functools

    from bnnsample import runner

    ovr = [*OVR, "integrator=sms_ubu", "flush_seconds=1000"]
    monkeypatch.setattr(runner, "LoopSettings", functools.partial(sampler_mod.LoopSettings, flush_numbers=4 * 50))
    full, _ = run_inprocess(tmp_path / "a", ovr)
    record = sampler_mod.Sampler._record

    def interrupt_at(n, action):
        calls = {"n": 0}

        def rec(self, state, buf):
            record(self, state, buf)
            calls["n"] += 1
            if calls["n"] == n:
                action()

        monkeypatch.setattr(sampler_mod.Sampler, "_record", rec)

    def crash():
        raise RuntimeError("killed")

    interrupt_at(11, crash)
    with pytest.raises(RuntimeError, match="killed"):
        run_inprocess(tmp_path / "b", ovr)
    with SampleStore(full) as a, SampleStore(tmp_path / "b" / "samples.h5") as b:
        assert b.n_draws == 8 and b.state_consistent and int(b.read_state()["draws"]) == 8
        np.testing.assert_array_equal(a.theta()[:, :8], b.theta())
        assert np.isnan(b.f["theta"][:, 8:]).all()  # the buffered draws 9-11 were never written
    interrupt_at(5, sampler_mod.request_stop)  # draw 13 of the run: inside a block
    with pytest.raises(Interrupted):
        run_inprocess(tmp_path / "b", ovr)
    with SampleStore(tmp_path / "b" / "samples.h5") as b:
        assert b.n_draws == 13 and int(b.read_state()["draws"]) == 13
    monkeypatch.setattr(sampler_mod.Sampler, "_record", record)
    resumed, _ = run_inprocess(tmp_path / "b", ovr)
    with SampleStore(full) as a, SampleStore(resumed) as b:
        assert b.complete and b.n_draws == 40
        np.testing.assert_array_equal(a.theta(), b.theta())
        for k, v in a.diagnostics().items():
            np.testing.assert_array_equal(v, b.diagnostics()[k])


def test_draw_buffer_marks_quantities_missing_from_a_draw_nan():
    """A quantity first recorded in the middle of a block, or missing from one draw, is NaN in
    those slots (the buffer is allocated unfilled)."""
    import torch

    from bnnsample.sampler import DrawBuffer

    buf, f64 = DrawBuffer(4), {"a": torch.float64, "b": torch.float64}
    buf.add({"a": torch.ones(2)}, f64)
    buf.add({"a": 2 * torch.ones(2), "b": torch.ones(2)}, f64)
    buf.add({"b": 3 * torch.ones(2)}, f64)
    out = buf.take()
    np.testing.assert_array_equal(out["a"], [[1, 2, np.nan]] * 2)
    np.testing.assert_array_equal(out["b"], [[np.nan, 1, 3]] * 2)
    buf.add({"b": 4 * torch.ones(2)}, f64)  # a new block: slot 0 of "a" is missing
    out = buf.take()
    np.testing.assert_array_equal(out["a"], [[np.nan]] * 2)
    np.testing.assert_array_equal(out["b"], [[4]] * 2)


def test_draw_buffer_slot_is_written_in_place_and_counts_as_given():
    """A quantity written into its slot (the predictive) is kept, not NaN, in that draw; a
    draw where it is neither slotted nor given is NaN."""
    import torch

    from bnnsample.sampler import DrawBuffer

    buf, f64 = DrawBuffer(3), {"a": torch.float64}
    buf.slot("p", (2, 3), torch.float32, "cpu").fill_(5)
    buf.add({"a": torch.ones(2)}, f64)
    buf.add({"a": torch.ones(2)}, f64)
    buf.slot("p", (2, 3), torch.float32, "cpu").copy_(torch.arange(6.0).reshape(2, 3))
    buf.add({}, f64)
    out = buf.take()
    assert out["p"].shape == (2, 3, 3) and out["p"].dtype == np.float32
    np.testing.assert_array_equal(out["p"][:, 0], 5)
    assert np.isnan(out["p"][:, 1]).all()
    np.testing.assert_array_equal(out["p"][:, 2], [[0, 1, 2], [3, 4, 5]])
    np.testing.assert_array_equal(out["a"], [[1, 1, np.nan]] * 2)


def test_training_stopped_and_resumed_is_bit_exact(tmp_path, monkeypatch):
    """A stop request during Adam + SWA training writes training.pt; the rerun continues the
    training from it (no second start) and gives the uninterrupted run's SWA points, baselines
    and draws bit for bit; the checkpoint is removed once the store holds the trained points.
    Stopped in the SWA phase (step 14 of 2 + 1 epochs of 6 steps), so both phases are resumed."""
    from bnnsample import train as train_mod

    ovr = [*BNN, "init.train_epochs=2", "samples=2"]
    full, _ = run_inprocess(tmp_path / "a", ovr)
    real = train_mod.train_runs

    def stop_at_14(*a, **k):
        ticks = {"n": 0}
        inner = k["on_step"]

        def on_step():
            inner()
            ticks["n"] += 1
            if ticks["n"] == 14:
                sampler_mod.request_stop()

        return real(*a, **{**k, "on_step": on_step})

    monkeypatch.setattr(train_mod, "train_runs", stop_at_14)
    with pytest.raises(Interrupted, match="14 of 18 training steps saved in training.pt"):
        run_inprocess(tmp_path / "b", ovr)
    monkeypatch.undo()
    assert (tmp_path / "b" / "training.pt").exists() and not (tmp_path / "b" / "samples.h5").exists()
    steps = []

    def count(*a, **k):
        inner = k["on_step"]
        return real(*a, **{**k, "on_step": lambda: (steps.append(1), inner())})

    monkeypatch.setattr(train_mod, "train_runs", count)
    resumed, _ = run_inprocess(tmp_path / "b", ovr)
    assert len(steps) == 18 - 14 and not (tmp_path / "b" / "training.pt").exists()
    with SampleStore(full) as a, SampleStore(resumed) as b:
        np.testing.assert_array_equal(a.array("init/x0"), b.array("init/x0"))
        np.testing.assert_array_equal(a.group("baselines")["standard"], b.group("baselines")["standard"])
        np.testing.assert_array_equal(a.predictive(), b.predictive())


def test_a_checkpoint_of_other_settings_or_damaged_is_not_continued(tmp_path, capsys):
    """training.pt of another training (other lr) is not continued; a damaged one is moved
    aside under a new name and the run trains afresh."""
    from bnnsample.train import _TrainingState

    ovr = [*BNN, "samples=1"]
    run_dir = tmp_path / "r"
    run_dir.mkdir()
    (run_dir / "training.pt").write_bytes(b"not a checkpoint")
    run_inprocess(run_dir, ovr)
    assert list(run_dir.glob("training.pt.damaged-*")) and not (run_dir / "training.pt").exists()
    other = tmp_path / "o"
    other.mkdir()
    import torch

    from bnnsample.train import Adam

    st = _TrainingState(x=torch.zeros(2, 3), k=5, opt=Adam.fresh(torch.zeros(2, 3)))
    st.save(other / "training.pt", "another-tag", [], [])
    run_inprocess(other, ovr)  # trains afresh (other tag): completes, checkpoint removed
    assert not (other / "training.pt").exists()


def test_time_limit_stops_with_resume_state_and_the_rerun_finishes_bit_exact(tmp_path):
    """time_limit=SECONDS: a stop request when the time is up; the run stops at the next
    block boundary with TimeLimit (exit code 3 on the command line), its draws and resume
    state written; rerunning without the limit (a key that does not change the draws)
    resumes and gives the uninterrupted run's draws bit for bit."""
    from bnnsample.plumbing.errors import TimeLimit

    ovr = [*OVR, "integrator=sms_ubu", "check_every=1", "flush_seconds=0"]
    full, _ = run_inprocess(tmp_path / "a", ovr)
    with pytest.raises(TimeLimit, match="time_limit=1e-06 s reached"):
        run_inprocess(tmp_path / "b", [*ovr, "time_limit=1e-6"])
    with SampleStore(tmp_path / "b" / "samples.h5") as s:
        assert not s.complete
    resumed, _ = run_inprocess(tmp_path / "b", ovr)
    with SampleStore(full) as a, SampleStore(resumed) as b:
        assert b.complete
        np.testing.assert_array_equal(a.theta(), b.theta())


def test_a_resume_state_of_another_shape_is_refused_before_resuming(tmp_path, monkeypatch, capsys):
    """A resume state whose velocities do not have the run's shape (a hand-edited or foreign
    store) is one line before "resuming" is printed, not a tensor-size error at the first step."""
    import h5py

    ovr = [*OVR, "integrator=sms_ubu"]
    stop_after_draws(monkeypatch, 3)
    with pytest.raises(Interrupted):
        run_inprocess(tmp_path, ovr)
    monkeypatch.undo()
    with h5py.File(tmp_path / "samples.h5", "r+") as f:
        v = f["state/tensor/v"][...]
        del f["state/tensor/v"]
        f["state/tensor/v"] = v[:-1]
    capsys.readouterr()
    with pytest.raises(UserError, match="its resume state does not fit this run .*state v is"):
        run_inprocess(tmp_path, ovr)
    assert "resuming" not in capsys.readouterr().out
