"""Algorithm 3 end to end at a tiny scale (digits, 2 runs): training baselines, localized
SMS-UBU with bounces, predictive draws in HDF5, and the evaluation table."""

import numpy as np
import pandas as pd
import torch

from bnnsample.evaluate.report import evaluate_run
from bnnsample.potential import ElasticBox
from bnnsample.store import SampleStore

from .helpers import run_inprocess


def test_tiny_bnn_run(tmp_path):
    path, cfg = run_inprocess(
        tmp_path,
        ["dataset=digits", "chains=2", "init.train_epochs=1", "init.swa_epochs=1", "burn_in=1", "samples=2",
         "model.n_calibration=200", "store_theta=false"],
    )  # fmt: skip
    with SampleStore(path) as s:
        pred = s.predictive()
        assert pred.shape == (2, 2, 297, 10) and s.theta() is None
        np.testing.assert_allclose(pred.sum(-1), 1.0, rtol=1e-5)
        assert s.group("baselines")["swa"].shape == (2, 297, 10)
        assert s.array("targets").shape == (297,)
        assert set(s.diagnostics()) >= {"kinetic_temperature", "minibatch_loss", "bounces"}
        assert s.complete and not s.diverged().any()
    table = evaluate_run(tmp_path)
    got = set(zip(table.group, table.metric))
    for group in ("bayes", "swa", "standard"):
        for metric in ("accuracy", "nll", "ace", "rps"):
            assert (group, metric) in got
            assert (f"{group}@es1", metric) in got and (f"{group}@es2", metric) in got  # the 2 runs pooled
    es2 = table.query("group == 'swa@es2' and metric == 'accuracy'")
    assert len(es2) == 1 and np.isnan(es2.se.iloc[0])  # one group of two runs: no spread
    acc = table.query("group == 'swa' and metric == 'accuracy'").value.iloc[0]
    assert acc > 0.5  # one epoch of Adam on digits already learns
    assert (tmp_path / "plots" / "ensembles.png").exists()
    assert isinstance(pd.read_csv(tmp_path / "metrics.csv"), pd.DataFrame)


def test_elastic_bounces_reflect_into_the_box():
    center = torch.zeros(1, 4)
    box = ElasticBox(center, 1.0)
    x = torch.tensor([[0.5, 1.5, -3.5, 4.5]])
    v = torch.ones(1, 4)
    x2, v2 = box(x, v)
    # 1.5 reflects about 1 to 0.5 (v flips); -3.5 reflects about -1 to 1.5 then about 1 to 0.5 (two flips);
    # 4.5 -> reflect about 1: -2.5 -> about -1: 0.5 (two flips)
    torch.testing.assert_close(x2, torch.tensor([[0.5, 0.5, 0.5, 0.5]]))
    torch.testing.assert_close(v2, torch.tensor([[1.0, -1.0, 1.0, 1.0]]))
    assert int(box.counts[0]) == 3
