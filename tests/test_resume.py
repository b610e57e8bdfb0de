"""Rerunning the same command in the same run directory resumes from state/ and gives the
draws of an uninterrupted run bit for bit (CPU); a finished run is reported, not redone."""

import numpy as np
import pytest

from bnnsample import sampler as sampler_mod
from bnnsample.errors import Interrupted, UserError
from bnnsample.store import SampleStore

from .helpers import run_inprocess

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

    record = sampler_mod.Sampler._record
    calls = {"n": 0}

    def stop_after_13(self, state, buf):
        record(self, state, buf)
        calls["n"] += 1
        if calls["n"] == 13:
            sampler_mod.request_stop()

    monkeypatch.setattr(sampler_mod.Sampler, "_record", stop_after_13)
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


def test_complete_run_is_not_redone_and_other_config_is_refused(tmp_path, capsys):
    run_inprocess(tmp_path, OVR)
    before = (tmp_path / "samples.h5").stat().st_mtime_ns
    run_inprocess(tmp_path, OVR)
    assert "already complete" in capsys.readouterr().out
    assert (tmp_path / "samples.h5").stat().st_mtime_ns == before
    with pytest.raises(UserError, match="different config"):
        run_inprocess(tmp_path, [*OVR, "step_size=0.1"])


BNN = ["dataset=digits", "chains=2", "init.train_epochs=1", "init.swa_epochs=1", "burn_in=1", "samples=5",
       "model.n_calibration=100", "dataset.n_test=50", "check_every=5", "evaluate=false", "batch_size=250"]  # fmt: skip


def test_bnn_kill_and_resume_is_bit_exact(tmp_path, monkeypatch):
    """Algorithm 3 on a network (init=swa: Adam -> SWA, localized target, bounces, control
    variates with cached per-batch reference gradients): a run stopped after 2 draws and
    rerun gives the uninterrupted run's positions, predictive probabilities, losses and
    bounce counts bit for bit."""
    ovr = [*BNN, "control_variate=true"]
    full, _ = run_inprocess(tmp_path / "a", ovr)
    record = sampler_mod.Sampler._record
    calls = {"n": 0}

    def stop_after_2(self, state, buf):
        record(self, state, buf)
        calls["n"] += 1
        if calls["n"] == 2:
            sampler_mod.request_stop()

    monkeypatch.setattr(sampler_mod.Sampler, "_record", stop_after_2)
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

    from bnnsample.errors import UserError
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
