"""Dataset registry: ``load_data(cfg.dataset)`` dispatches on ``cfg.dataset.name``."""

from __future__ import annotations

from . import images, synthetic, toys, uci
from .base import Data

# each loader module exports LOADERS: {config name: loader(dataset_cfg) -> Data}
LOADERS: dict = {}
for _module in (synthetic, images, uci, toys):
    LOADERS.update(_module.LOADERS)


def load_data(cfg) -> Data:
    """Load ``cfg.dataset`` of a full run config (data_dir and download come from the top)."""
    from omegaconf import OmegaConf

    ds = OmegaConf.to_container(cfg.dataset, resolve=True)
    ds.setdefault("data_dir", cfg.get("data_dir", "~/.cache/bnnsample"))
    ds.setdefault("download", cfg.get("download", False))
    return LOADERS[ds["name"]](OmegaConf.create(ds))


__all__ = ["Data", "LOADERS", "load_data"]
