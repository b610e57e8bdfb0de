"""Dataset registry: ``load_data(cfg.dataset)`` dispatches on ``cfg.dataset.name``."""

from __future__ import annotations

from . import images, synthetic
from .base import Data

LOADERS = {
    "two_batch_gaussian": synthetic.two_batch_gaussian,
    "noisy_gaussian": synthetic.noisy_gaussian,
    "gaussian_points": synthetic.gaussian_points,
    "logistic_synthetic": synthetic.logistic_synthetic,
    "mnist5k": images.mnist5k,
    "digits": images.digits,
    "fmnist": images.fmnist,
}


def load_data(cfg) -> Data:
    """Load ``cfg.dataset`` of a full run config (data_dir and download come from the top)."""
    from omegaconf import OmegaConf

    ds = OmegaConf.to_container(cfg.dataset, resolve=True)
    ds.setdefault("data_dir", cfg.get("data_dir", "~/.cache/bnnsample"))
    ds.setdefault("download", cfg.get("download", False))
    return LOADERS[ds["name"]](OmegaConf.create(ds))


__all__ = ["Data", "LOADERS", "load_data"]
