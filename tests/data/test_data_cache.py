"""Generated data sets are made once per process and handed out as copies."""

import json

import pytest
import torch
from omegaconf import OmegaConf

from bnnsample import data as data_mod
from bnnsample.config import compose
from bnnsample.data import load_data


def test_generated_data_are_made_once_and_handed_out_as_copies(monkeypatch):
    made = []
    loader = data_mod.LOADERS["logistic_synthetic"]
    monkeypatch.setitem(data_mod.LOADERS, "logistic_synthetic", lambda cfg: made.append(1) or loader(cfg))
    monkeypatch.setattr(data_mod, "_KEPT", {})
    cfg = compose(["dataset=logistic_synthetic", "dataset.n_train=50", "dataset.n_test=10", "dataset.dim=3"])
    first = load_data(cfg)
    first.x_train.mul_(0.0)  # a caller changing its copy
    first.extras["true_weights"].zero_()
    second = load_data(cfg)
    assert len(made) == 1
    fresh = loader(compose(["dataset=logistic_synthetic", "dataset.n_train=50", "dataset.n_test=10",
                            "dataset.dim=3"]).dataset)  # fmt: skip
    assert torch.equal(second.x_train, fresh.x_train) and torch.equal(second.y_test, fresh.y_test)
    assert torch.equal(second.extras["true_weights"], fresh.extras["true_weights"])
    other = load_data(compose(["dataset=logistic_synthetic", "dataset.n_train=50", "dataset.n_test=10",
                               "dataset.dim=3", "dataset.seed=1"]))  # fmt: skip
    assert len(made) == 2 and not torch.equal(other.x_train, second.x_train)


def test_data_read_from_files_are_not_kept(monkeypatch):
    assert not data_mod.LOADERS.attrs["fmnist"].get("generated")
    assert not data_mod.LOADERS.attrs["mnist5k"].get("generated")


@pytest.mark.parametrize("overrides", [
    ["dataset=logistic_synthetic", "dtype=float64"],  # the potential holds the kept design itself
    ["dataset=logistic_synthetic", "dtype=float32", "control_variate=true"],
    ["dataset=gaussian_points", "integrator=sms_ubu"],
    ["dataset=two_batch_gaussian", "integrator=nogin"],
])  # fmt: skip
def test_a_run_leaves_the_kept_data_as_they_were(tmp_path, monkeypatch, overrides):
    """The runner reads a generated data set's kept tensors without copying them
    (load_data(shared=True)): a whole run must not write to them (the evaluation loads its own
    copy)."""
    from tests.helpers import run_inprocess

    monkeypatch.setattr(data_mod, "_KEPT", {})
    monkeypatch.setattr(data_mod, "_KEPT_AS", {})
    small = ["dataset.n_train=200", "dataset.n_test=20"] if "logistic" in overrides[0] else []
    run_inprocess(tmp_path, [*overrides, *small, "chains=3", "burn_in=5", "samples=4"])
    (key, kept), = data_mod._KEPT.items()  # fmt: skip
    fresh = data_mod.LOADERS[json.loads(key)["name"]](OmegaConf.create(json.loads(key)))
    for name in ("x_train", "y_train", "x_test", "y_test"):
        a, b = getattr(kept, name), getattr(fresh, name)
        assert (a is None and b is None) or torch.equal(a, b), name
    # the inputs kept in the run's dtype, which the run's potential holds, are unchanged too
    for (k, dtype), held in data_mod._KEPT_AS.items():
        assert k == key
        for name in ("x_train", "x_test"):
            a, b = getattr(held, name), getattr(fresh, name)
            assert (a is None and b is None) or torch.equal(a, b if not b.is_floating_point() else b.to(dtype)), name
    for name, value in fresh.extras.items():
        assert not isinstance(value, torch.Tensor) or torch.equal(kept.extras[name], value), name


def test_inputs_in_the_run_dtype_are_converted_once(monkeypatch):
    """load_data(shared=True, features=float32): the floating inputs converted once and kept
    (the same tensors the next time), the labels as they are."""
    monkeypatch.setattr(data_mod, "_KEPT", {})
    monkeypatch.setattr(data_mod, "_KEPT_AS", {})
    converted = []
    convert = data_mod._with_features
    monkeypatch.setattr(data_mod, "_with_features", lambda d, dtype: converted.append(dtype) or convert(d, dtype))
    cfg = compose(["dataset=logistic_synthetic", "dataset.n_train=50", "dataset.n_test=10"])
    a = load_data(cfg, shared=True, features=torch.float32)
    b = load_data(cfg, shared=True, features=torch.float32)
    assert converted == [torch.float32]
    plain = load_data(cfg, shared=True)
    assert a.x_train.dtype == a.x_test.dtype == torch.float32 and a.x_train is b.x_train and a.x_test is b.x_test
    assert plain.x_train.dtype == torch.float64 and torch.equal(a.x_train, plain.x_train.float())
    assert a.y_train is plain.y_train and a.y_test is plain.y_test
