"""Progress bars: a sampling bar that moves every step without changing the draws,
training and evaluation bars, and progress=false silencing all of them."""

import numpy as np

from bnnsample.plumbing import progress
from bnnsample.store import SampleStore

from .helpers import compose_cfg

TOY = ["dataset=two_batch_gaussian", "chains=8", "burn_in=30", "samples=20", "thin=3", "check_every=100"]


def _run(tmp_path, overrides):
    from bnnsample import runner

    cfg = compose_cfg(overrides)
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = runner.run(cfg, tmp_path)
    with SampleStore(path) as s:
        return s.theta()


def test_sampling_bar_moves_every_block_and_keeps_the_draws(tmp_path, monkeypatch, capsys):
    """With the bar on, it moves one step per force evaluation inside a block (not only at
    check_every = 100 or at draws), and the draws are those of a run without the bar."""
    quiet = _run(tmp_path / "quiet", [*TOY, "progress=false"])
    assert capsys.readouterr().err.count("sampling:") == 0  # the bar's label

    updates = []
    real_bar = progress.bar

    def spy(*a, **k):
        b = real_bar(*a, **k)
        orig = b.update
        b.update = lambda n=1: (updates.append((a[1], n)), orig(n))[1]
        return b

    monkeypatch.setattr(progress, "bar", spy)
    loud = _run(tmp_path / "loud", [*TOY, "progress=true"])
    np.testing.assert_array_equal(quiet, loud)
    steps = [n for desc, n in updates if desc == "sampling"]
    assert sum(steps) == 30 + 20 * 3 and max(steps) == 1
    assert "sampling:" in capsys.readouterr().err


def test_training_bar_counts_steps(tmp_path, monkeypatch):
    from bnnsample.initial import swa_initialisation  # noqa: F401  (the bar is made there)

    seen = []
    real_bar = progress.bar

    def spy(total, desc, *a, **k):
        seen.append((desc, total, k.get("enabled_here", True)))
        return real_bar(total, desc, *a, **k)

    monkeypatch.setattr(progress, "bar", spy)
    ovr = ["dataset=digits", "model=cnn_small", "chains=2", "init.train_epochs=2", "init.swa_epochs=1",
           "burn_in=1", "samples=1", "evaluate=false", "progress=false"]  # fmt: skip
    _run(tmp_path, ovr)
    from bnnsample.data import load_data

    cfg = compose_cfg(ovr)
    steps = load_data(cfg).x_train.shape[0] // int(cfg.batch_size)
    assert ("Adam+SWA training (2 runs together)", 3 * steps, False) in seen  # one tick per step of all runs
    assert ("sampling", seen[-1][1], False) in seen


def test_progress_false_silences_evaluation(tmp_path, capsys):
    from bnnsample.evaluate.report import evaluate_run

    _run(tmp_path, [*TOY, "progress=false"])
    capsys.readouterr()
    progress.set_enabled(False)
    try:
        evaluate_run(tmp_path)
    finally:
        progress.set_enabled(True)
    assert "evaluating" not in capsys.readouterr().err
    evaluate_run(tmp_path)
    assert "evaluating" in capsys.readouterr().err


def test_sweep_jobs_report_done_of_total_with_eta(monkeypatch, capsys):
    assert progress.sweep_size(["-m", "step_size=0.1,0.2,0.4", "seed=range(0,3)", "chains=4"]) == 9
    monkeypatch.setattr(progress, "_sweep", {"start": None, "done": 0})
    clock = iter([0.0, 10.0, 20.0])
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock))
    progress.sweep_job_started()
    progress.sweep_job_done(3)
    progress.sweep_job_started()
    progress.sweep_job_done(3)
    out = capsys.readouterr().out.splitlines()
    assert out == ["[bnnsample] sweep: 1 of 3 jobs done in 10 s; about 20 s left",
                   "[bnnsample] sweep: 2 of 3 jobs done in 20 s; about 10 s left"]  # fmt: skip
