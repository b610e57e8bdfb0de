"""Dataset registry: ``load_data(cfg.dataset)`` dispatches on ``cfg.dataset.name``. A loader
``loader(dataset_cfg) -> Data`` is filed under its config name with ``@register(NAME)`` in the
module of its kind."""

from __future__ import annotations

from ..registry import Registry, import_modules
from .base import Data

LOADERS: Registry = Registry("dataset")
register = LOADERS.register
import_modules(__name__, ("synthetic", "images", "uci", "toys"))


def load_data(cfg) -> Data:
    """Load ``cfg.dataset`` of a full run config (data_dir and download come from the top)."""
    from omegaconf import OmegaConf

    ds = OmegaConf.to_container(cfg.dataset, resolve=True)
    ds.setdefault("data_dir", cfg.get("data_dir", "~/.cache/bnnsample"))
    ds.setdefault("download", cfg.get("download", False))
    return LOADERS[ds["name"]](OmegaConf.create(ds))


__all__ = ["Data", "LOADERS", "load_data", "register"]
