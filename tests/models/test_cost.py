"""The estimated time a network run prints before it starts (models/cost.py): the count of
gradient steps and predicted images from the config, and the line itself."""

import re

import pytest

from bnnsample.models import cost

from ..helpers import compose_cfg, run_inprocess

BASE = ["dataset=digits", "model=cnn_small", "chains=2", "init.train_epochs=2", "init.swa_epochs=1", "burn_in=1",
        "samples=2", "model.n_calibration=100", "dataset.n_test=97", "evaluate=false", "batch_size=100"]  # fmt: skip


class FakePot:
    def __init__(self, n_cal, n_test):
        import torch

        self.x_calib, self.x_test = torch.zeros(n_cal, 1), torch.zeros(n_test, 1)


@pytest.mark.parametrize("batching, cv, per_step, cache", [
    ("sms", True, 1, 1), ("iid", True, 2, 0), ("sms", False, 1, 0), ("iid", False, 1, 0),
])  # fmt: skip
def test_counts(monkeypatch, batching, cv, per_step, cache):
    monkeypatch.setattr(cost, "time_force", lambda *a, **k: 0.5)
    monkeypatch.setattr(cost, "time_forward", lambda *a, **k: 0.001)
    cfg = compose_cfg([*BASE, f"batching={batching}", f"control_variate={str(cv).lower()}"])
    c = cost.run_cost(cfg, FakePot(100, 50), steps_per_epoch=14, total_steps=42, device=None, training=True)
    assert c.training_steps == 3 * 14 and c.sampling_gradients == 42 * per_step + cache * 14
    assert c.prediction_images == 2 * (2 + 2) * 150  # chains x (draws + 2 baselines) x (calibration + test)
    assert c.seconds == pytest.approx(0.5 * (42 + c.sampling_gradients) + 0.001 * c.prediction_images)
    c = cost.run_cost(cfg, FakePot(100, 50), steps_per_epoch=14, total_steps=42, device=None, training=False)
    assert c.training_steps == 0 and c.prediction_images == 2 * 2 * 150


def test_a_network_run_prints_its_estimate_first(tmp_path, capsys):
    run_inprocess(tmp_path / "r", BASE)
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if "estimated time" in x)
    assert out.splitlines()[0] == line  # before training
    m = re.search(r"about .*\((\S+) s per step of 2 runs x batch 100, timed; (\S+) training \+ (\S+) sampling", line)
    from bnnsample.data import load_data

    steps_per_epoch = load_data(compose_cfg(BASE)).x_train.shape[0] // 100
    assert m and float(m.group(1)) > 0 and m.group(2) == str(3 * steps_per_epoch)
    assert "fmnist_cpu" not in line  # the hint is for long Fashion-MNIST runs only
    assert cost.duration_text(90) == "90 s" and cost.duration_text(5400) == "90 minutes"
    assert cost.duration_text(9 * 3600) == "9.0 hours" and cost.duration_text(3 * 86400) == "3.0 days"


def test_the_hint_to_the_cpu_preset_is_for_long_fashion_mnist_runs_other_than_the_preset():
    import torch

    long = cost.RunCost(seconds_per_step=1.0, training_steps=4000, sampling_gradients=0, prediction_images=0,
                        batch_size=200, seconds_per_image=0.0)  # fmt: skip
    cpu = torch.device("cpu")
    assert f"experiment=fmnist_cpu ({cost.FMNIST_CPU})" in cost.estimate_line(
        long, compose_cfg(["dataset=fmnist"]), cpu
    )
    assert "fmnist_cpu" not in cost.estimate_line(long, compose_cfg(["experiment=fmnist_cpu"]), cpu)


def test_the_estimate_on_one_cpu_thread_says_the_wall_time_expected_here(monkeypatch):
    """The CPU time of one thread, then the wall time it takes on this machine now: with a
    load of 3 on 2 cores, a fourth process gets half a core, so 50 CPU-s take 100 s."""
    import os

    import torch

    monkeypatch.setattr(os, "getloadavg", lambda: (3.0, 0.0, 0.0))
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(cost, "one_thread_cpu", lambda device: True)
    short = cost.RunCost(seconds_per_step=1.0, training_steps=50, sampling_gradients=0, prediction_images=0,
                         batch_size=200, seconds_per_image=0.0)  # fmt: skip
    line = cost.estimate_line(short, compose_cfg([]), torch.device("cpu"))
    assert "in CPU time of one torch thread: about 50 s (" in line
    assert line.endswith("; expected wall time here about 100 s (load 3.0 on 2 cores)")


def test_predictions_are_timed_at_the_batch_sizes_they_run():
    """The calibration batch whole in train mode, the test set in chunks of predict_batch in eval
    mode (models/network.py, predict_one); the module's mode is left as it was."""
    import torch

    class Recorder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.calls = []

        def forward(self, x):
            self.calls.append((x.shape[0], self.training))
            return x

    pot = FakePot(700, 2500)
    pot.module, pot.predict_batch = Recorder(), 1000
    per_image = cost.time_forward(pot, torch.device("cpu"))
    assert per_image > 0 and pot.module.training
    assert set(pot.module.calls) == {(700, True), (1000, False)}  # never a smaller stand-in batch
