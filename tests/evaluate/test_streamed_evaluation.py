"""Evaluation reads the store in bounded blocks (store.READ_VALUES numbers at a time): the
metrics do not depend on the block size, and the memory evaluation holds does not grow with
the number of draws."""

import gc
import tracemalloc

import numpy as np
import pandas as pd
import pytest

from bnnsample import store as h5store
from bnnsample.evaluate import reference
from bnnsample.evaluate.report import evaluate_run
from bnnsample.store import SampleStore

from ..helpers import run_inprocess

TRIG = ["dataset=trig_features", "dataset.n_train=40", "dataset.n_test=20", "dataset.n_features=16"]


def _evaluate_both_ways(run_dir, monkeypatch, **kw) -> tuple[pd.DataFrame, pd.DataFrame]:
    """metrics of one run with the default block size and with blocks of one value (one draw
    of one chain, one test point or one coordinate at a time)."""
    whole = evaluate_run(run_dir, **kw)
    monkeypatch.setattr(h5store, "READ_VALUES", 1)
    monkeypatch.setattr(reference, "COMPARE_VALUES", 1)
    tiny = evaluate_run(run_dir, **kw)
    monkeypatch.undo()
    return whole, tiny


def _assert_same_table(a: pd.DataFrame, b: pd.DataFrame) -> None:
    assert list(zip(a.group, a.metric)) == list(zip(b.group, b.metric))
    np.testing.assert_allclose(a.value.to_numpy(float), b.value.to_numpy(float), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(a.se.to_numpy(float), b.se.to_numpy(float), rtol=1e-10, atol=1e-14)


def test_classification_metrics_do_not_depend_on_the_block_size(tmp_path, monkeypatch):
    run_inprocess(tmp_path, ["dataset=logistic_synthetic", "dataset.n_train=200", "dataset.n_test=30",
                             "chains=3", "burn_in=20", "thin=2", "samples=12", "evaluate=false"])  # fmt: skip
    whole, tiny = _evaluate_both_ways(tmp_path, monkeypatch)
    got = {(g, m) for g, m in zip(whole.group, whole.metric)}
    for key in [("bayes", "nll"), ("bayes", "accuracy"), ("diagnostics", "rhat_max"),
                ("diagnostics", "rhat_test_nll"), ("theta[0]", "rhat")]:  # fmt: skip
        assert key in got, key
    _assert_same_table(whole, tiny)


def test_regression_and_reference_metrics_do_not_depend_on_the_block_size(tmp_path, monkeypatch):
    # two references (self-distance band), a regression predictive (mixture NLL) and theta
    # of d = 16 compared coordinate by coordinate
    for seed in (1, 2):
        run_inprocess(tmp_path / f"oracle{seed}", [*TRIG, "integrator=ubu", "chains=2", "burn_in=50", "thin=5",
                                                   "samples=15", f"seed={seed}", "evaluate=false"])  # fmt: skip
    run_inprocess(tmp_path / "run", [*TRIG, "integrator=ubu", "batching=iid", "chains=3", "burn_in=50", "thin=5",
                                     "samples=10", "evaluate=false"])  # fmt: skip
    ref = [str(tmp_path / "oracle1"), str(tmp_path / "oracle2")]
    whole, tiny = _evaluate_both_ways(tmp_path / "run", monkeypatch, reference=ref)
    got = {(g, m) for g, m in zip(whole.group, whole.metric)}
    for key in [("bayes", "nll"), ("bayes", "rmse"), ("bayes", "avg_kolmogorov"), ("reference", "self_distance_low"),
                ("theta[0]", "w1_ref"), ("reference", "w2_mean"), ("reference", "cov_diag_error")]:  # fmt: skip
        assert key in got, key
    _assert_same_table(whole, tiny)


def test_theta_reads_only_the_part_asked_for(tmp_path):
    rng = np.random.default_rng(0)
    theta = rng.normal(size=(4, 9, 7))
    path = tmp_path / "samples.h5"
    s = SampleStore.create(path, chains=4, draws=9, dim=7, store_theta=True, theta_dtype="float64",
                           predictive_shape=(5, 3), attrs={"config": "{}"})  # fmt: skip
    pred = rng.random(size=(4, 9, 5, 3)).astype(np.float32)
    s.append(theta=theta, predictive=pred)
    s.close()
    keep = np.array([True, False, True, True])
    with SampleStore(path) as s:
        np.testing.assert_array_equal(s.theta(keep, coords=[0, 3, 6]), theta[keep][:, :, [0, 3, 6]])
        np.testing.assert_array_equal(s.theta(keep, coords=slice(0, 2), draws=[1, 4]), theta[keep][:, [1, 4], :2])
        np.testing.assert_array_equal(s.theta(keep, draws=[0, 8]), theta[keep][:, [0, 8]])
        np.testing.assert_array_equal(np.concatenate(list(s.theta_blocks(keep, max_values=14))),
                                      theta[keep].reshape(-1, 7))  # fmt: skip
        blocks = list(s.predictive_blocks(keep, max_values=40))  # 40 // 15 = 2 draws per block
        assert [k for k, _ in blocks] == [0] * 5 + [1] * 5 + [2] * 5 and max(len(b) for _, b in blocks) == 2
        np.testing.assert_allclose(s.predictive_mean(keep), pred[keep].astype(np.float64).mean(axis=1), rtol=1e-12)
        for last in (1, 3, 8, 9, 50):  # across the 2-draw blocks; more than there are: all
            want = pred[keep][:, -last:].astype(np.float64).mean(axis=1)
            np.testing.assert_allclose(s.predictive_mean(keep, last=last), want, rtol=1e-12)
        with pytest.raises(ValueError, match="last"):
            s.predictive_mean(keep, last=0)
        np.testing.assert_array_equal(s.predictive_points(keep, 1, 3), pred[keep][:, :, 1:3].reshape(-1, 2, 3))


def test_evaluation_memory_does_not_grow_with_the_draws(tmp_path, monkeypatch):
    # One chain's predictive of 160 draws (2,000 test points, 2 classes) is 2.56 MB of float32;
    # evaluation reading one chain's draws at once (as it did) held more than that at 160 draws
    # than at 20. Reading blocks of 2**16 numbers, the peak of the allocations that tracemalloc
    # sees (numpy's among them) must grow by less than a quarter of it; what does grow is the
    # R-hat input (chains x draws x 100 coordinates, 0.34 MB more here, capped by RHAT_VALUES).
    n_test = 2000
    monkeypatch.setattr(h5store, "READ_VALUES", 2**16)
    peaks = {}
    for draws in (20, 160):
        run_inprocess(tmp_path / str(draws), ["dataset=logistic_synthetic", "dataset.n_train=200",
                                              f"dataset.n_test={n_test}", "chains=3", "burn_in=5", "thin=1",
                                              f"samples={draws}", "evaluate=false"])  # fmt: skip
        evaluate_run(tmp_path / str(draws))  # warm: imports, plot fonts
        # the warm-up's figures are cyclic garbage: left to the collector's timing they add
        # megabytes to one peak or the other, whatever the reads do
        gc.collect()
        tracemalloc.start()
        evaluate_run(tmp_path / str(draws))
        peaks[draws] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    one_chain = 160 * n_test * 2 * 4
    assert peaks[160] - peaks[20] < one_chain / 4, (peaks, one_chain)


def test_block_chunks_and_reads_of_chunk_groups(tmp_path, monkeypatch):
    """The per-draw datasets' chunks fit the writer's blocks of draws (a power of two of draws
    dividing the block, one draw of several chains for the predictive), and the reads of chains
    a chunk at a time (when all chains do not fit the budget) and verify() give every value."""
    monkeypatch.setattr(h5store, "PREDICTIVE_CHUNK_VALUES", 30)  # two chains of 15 values per chunk
    rng = np.random.default_rng(1)
    theta, pred = rng.normal(size=(5, 12, 7)), rng.random(size=(5, 12, 5, 3)).astype(np.float32)
    temp = rng.normal(size=(5, 12))
    s = SampleStore.create(tmp_path / "samples.h5", chains=5, draws=12, dim=7, store_theta=True,
                           theta_dtype="float64", predictive_shape=(5, 3), attrs={"config": "{}"},
                           block_draws=8)  # fmt: skip
    for k0 in (0, 8):  # a full block, then the last (shorter) one
        s.append(theta=theta[:, k0 : k0 + 8], predictive=pred[:, k0 : k0 + 8],
                 diagnostics={"kinetic_temperature": temp[:, k0 : k0 + 8]})  # fmt: skip
    assert s.f["theta"].chunks == (5, 8, 7) and s.f["diagnostics/kinetic_temperature"].chunks == (5, 8)
    assert s.f["predictive"].chunks == (2, 1, 5, 3)
    s.close()
    monkeypatch.setattr(h5store, "VERIFY_VALUES", 40)  # a chunk of chains, a few draws at a time
    keep = np.array([True, False, True, True, True])
    with SampleStore(tmp_path / "samples.h5") as s:
        s.verify()
        assert s.n_draws == 12
        np.testing.assert_array_equal(s.diagnostics()["kinetic_temperature"], temp)
        blocks = list(s.predictive_blocks(keep, max_values=70))  # 2 chains x 15 values: 2 draws per read
        assert sorted({k for k, _ in blocks}) == [0, 1, 2, 3] and max(len(b) for _, b in blocks) == 2
        for k, c in enumerate(np.flatnonzero(keep)):
            np.testing.assert_array_equal(np.concatenate([b for j, b in blocks if j == k]), pred[c])
        np.testing.assert_array_equal(np.concatenate(list(s.theta_blocks(keep, max_values=14))),
                                      theta[keep].reshape(-1, 7))  # fmt: skip
