"""Generated data sets are made once per process and handed out as copies."""

import torch

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
