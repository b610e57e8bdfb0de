"""evaluate/calibration.py: best-fit temperature recovers a known over/under-confidence,
reliability bins count every point and match a direct computation."""

import numpy as np
import pytest

from bnnsample.evaluate import calibration as C
from bnnsample.evaluate import metrics as M


def _calibrated_problem(n=40_000, k=5, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.normal(0.0, 2.0, (n, k))
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    y = (rng.random(n)[:, None] > np.cumsum(p, 1)).sum(1)  # labels drawn from p: p is calibrated
    return p, np.minimum(y, k - 1)


@pytest.mark.parametrize("sharpen", [0.5, 1.0, 2.0])
def test_best_temperature_undoes_a_known_tempering(sharpen):
    """Labels drawn from p; the predictive softmax(sharpen * log p) is over-confident for
    sharpen > 1. The fitted T* divides the log-probabilities back: T* ~ sharpen."""
    p, y = _calibrated_problem()
    q = C.tempered(p, 1.0 / sharpen)
    t = C.best_temperature(q, y)
    assert t == pytest.approx(sharpen, rel=0.05)
    assert M.nll(C.tempered(q, t), y) <= M.nll(q, y) + 1e-12


def test_tempered_is_identity_at_one_and_keeps_the_argmax():
    p, _ = _calibrated_problem(n=100)
    np.testing.assert_allclose(C.tempered(p, 1.0), p, atol=1e-12)
    q = C.tempered(p, 3.0)
    np.testing.assert_allclose(q.sum(1), 1.0)
    assert (q.argmax(1) == p.argmax(1)).all() and (q.max(1) <= p.max(1) + 1e-12).all()


def test_reliability_bins_count_and_match_a_direct_computation():
    p = np.array([[0.95, 0.05], [0.55, 0.45], [0.3, 0.7], [0.5, 0.5], [0.85, 0.15]])
    y = np.array([0, 1, 1, 0, 1])
    t = C.reliability_bins(p, y, n_bins=5)
    assert t["count"].tolist() == [0, 0, 2, 1, 2]  # conf 0.5,0.55 | 0.7 | 0.95,0.85
    row = t.iloc[2]
    assert row.confidence == pytest.approx(0.525) and row.accuracy == pytest.approx(0.5)
    assert t.iloc[4].accuracy == pytest.approx(0.5) and t.iloc[4].gap == pytest.approx(0.5 - 0.9)
    # the count-weighted gap is the ECE of the same bins
    ok = t["count"] > 0
    ece = float((t["count"][ok] * t["gap"][ok].abs()).sum() / len(y))
    assert ece == pytest.approx(M.ece(p, y, n_bins=5))


def test_temperature_rows_per_ensemble_size():
    p, y = _calibrated_problem(n=5000)
    runs = np.stack([C.tempered(p, 0.5), C.tempered(p, 0.5), p, p])  # two sharp runs, two calibrated
    rows = C.best_temperature_rows({"m": runs}, y, sizes=(1, 2, 4))
    by = {r["ensemble_size"]: r for r in rows}
    assert by[1]["groups"] == 4 and by[4]["groups"] == 1 and np.isnan(by[4]["t_best_std"])
    assert by[1]["t_best"] == pytest.approx(1.5, rel=0.1)  # mean of ~2, ~2, ~1, ~1
    assert all(r["nll_tempered"] <= r["nll"] + 1e-12 for r in rows)


def test_excess_training_loss_of_a_localized_run(tmp_path):
    """On a tiny init=swa run: the SWA loss estimate agrees with the full-data mean
    cross-entropy at the stored SWA points (BatchNorm on batch statistics), and the excess is
    the draws' mean loss minus it."""
    import torch

    from bnnsample.data import load_data
    from bnnsample.models import build_potential
    from bnnsample.store import SampleStore

    from ..helpers import run_inprocess

    path, cfg = run_inprocess(tmp_path / "r", ["dataset=digits", "chains=2", "init.train_epochs=2", "init.swa_epochs=1",
                                               "burn_in=1", "samples=3", "model.n_calibration=100", "store_theta=false",
                                               "evaluate=false", "dataset.n_test=97"])  # fmt: skip
    out = C.excess_training_loss(tmp_path / "r", n_batches=30)
    assert out["runs"] == 2 and out["n_train"] > 0
    assert out["excess"] == pytest.approx(out["draw_loss"] - out["swa_loss"])
    assert out["excess_times_n"] == pytest.approx(out["excess"] * out["n_train"])
    pot = build_potential(cfg.model, load_data(cfg), torch.device("cpu"), torch.float32, seed=0)
    with SampleStore(path) as st:
        x0 = st.array("init/x0")
        diag = st.group("diagnostics")["minibatch_loss"]
    assert out["draw_loss"] == pytest.approx(float(diag.mean()), rel=1e-6)
    bs = int(cfg.batch_size)
    perm = torch.randperm(pot.n_data, generator=torch.Generator().manual_seed(5))
    full = np.mean([[float(pot._batch_loss(torch.as_tensor(x0[c]), pot.x_train[b], pot.y_train[b])) / bs
                     for b in perm[: pot.n_data // bs * bs].view(-1, bs)] for c in range(2)])  # fmt: skip
    assert abs(out["swa_loss"] - full) < 5 * out["swa_loss_se"] + 0.05 * full
