"""Dataset registry: ``load_data(cfg.dataset)`` dispatches on ``cfg.dataset.name``. A loader
``loader(dataset_cfg) -> Data`` is filed under its config name with ``@register(NAME)`` in the
module of its kind; ``@register(NAME, generated=True)`` marks a loader that makes its data from
the config alone (no files), whose data ``load_data`` keeps per process."""

from __future__ import annotations

import copy
import dataclasses
import functools
import json

import torch

from ..registry import Registry, import_modules
from .base import Data, check

LOADERS: Registry = Registry("dataset")


def register(name: str, **attrs):
    """Decorator: file a loader under ``name`` as it is called through LOADERS, its Data checked
    (``base.check``: finite, shapes that agree, labels in range) before anyone uses them."""

    def deco(loader):
        LOADERS.add(name, functools.wraps(loader)(lambda cfg: check(loader(cfg))), **attrs)
        return loader

    return deco


import_modules(__name__, ("synthetic", "images", "uci", "toys", "files"))

# generated data sets made in this process, by their resolved config: a figure recipe, a sweep in
# one process or a benchmark runs many runs on one (logistic_synthetic's 1.2M normals took 35 ms a
# run, most of a one-chain run's fixed cost)
_KEPT: dict[str, Data] = {}
_KEEP = 4
_KEPT_AS: dict[tuple[str, torch.dtype], Data] = {}  # a kept set with its inputs in another dtype


def load_data(cfg, shared: bool = False, features: torch.dtype | None = None) -> Data:
    """Load ``cfg.dataset`` of a full run config (data_dir and download come from the top).
    A generated data set is made once per process (the last few kept) and handed out as a copy
    each time, so that a caller may change its own; ``shared``: its tensors are the kept ones,
    for a caller that only reads them (the runner: a run's potential holds its data in the run's
    dtype and device, and copying 10,000 x 100 numbers was a tenth of a short run's fixed cost),
    with ``features`` its floating inputs (x_train, x_test) in that dtype, converted once and
    kept too (converting logistic_synthetic's 1.2M float64 inputs took 0.5 ms a run)."""
    from omegaconf import OmegaConf

    from ..config import Resolved

    # a resolved config (config.Resolved, the runner's) is read as it is
    ds = cfg.dataset.plain() if isinstance(cfg.dataset, Resolved) else OmegaConf.to_container(cfg.dataset, resolve=True)
    ds.setdefault("data_dir", cfg.get("data_dir", "~/.cache/bnnsample"))
    ds.setdefault("download", cfg.get("download", False))
    loader = LOADERS[ds["name"]]
    if not LOADERS.attrs[ds["name"]].get("generated"):
        return loader(OmegaConf.create(ds))
    key = json.dumps(ds, sort_keys=True, default=str)
    if key not in _KEPT:
        while len(_KEPT) >= _KEEP:
            gone = next(iter(_KEPT))
            _KEPT.pop(gone)
            for k in [k for k in _KEPT_AS if k[0] == gone]:
                _KEPT_AS.pop(k)
        _KEPT[key] = loader(OmegaConf.create(ds))
    kept = _KEPT[key]
    if not shared:
        return _copy(kept)
    if features is not None:
        if (key, features) not in _KEPT_AS:
            _KEPT_AS[(key, features)] = _with_features(kept, features)
        kept = _KEPT_AS[(key, features)]
    return dataclasses.replace(kept, extras=dict(kept.extras))


def absolute_paths(plain: dict) -> dict:
    """A resolved run config (plain dicts) with the dataset's file paths (the keys its loader
    was registered with as ``paths``, e.g. dataset=files' train and test) made absolute, so
    that the config stored with a run reads the same files from any directory (evaluate,
    resume). Changes ``plain`` in place and returns it."""
    from pathlib import Path

    ds = plain.get("dataset") or {}
    for key in LOADERS.attrs.get(ds.get("name"), {}).get("paths", ()):
        if isinstance(ds.get(key), str) and ds[key]:
            ds[key] = str(Path(ds[key]).expanduser().absolute())
    return plain


def check_files(cfg) -> None:
    """DataMissingError (one line, as the loader would raise it) when the files of ``cfg.dataset``
    (a full run config) are not on disk, checked without reading them, by the ``locate`` its
    loader was filed with; nothing for data sets without one and with ``download=true``."""
    from omegaconf import OmegaConf

    ds = OmegaConf.to_container(cfg.dataset, resolve=True)
    ds.setdefault("data_dir", cfg.get("data_dir", "~/.cache/bnnsample"))
    ds.setdefault("download", cfg.get("download", False))
    locate = LOADERS.attrs[ds["name"]].get("locate")
    if locate is not None and not ds["download"]:
        locate(OmegaConf.create(ds))


def load_if_present(name: str, split: int = 0) -> Data | None:
    """The Data of ``dataset=name`` split ``split`` (a data set with seeded splits, ``dataset.split``),
    composed as ``bnnsample run`` would compose it, or None when its files are missing."""
    from ..config import compose
    from ..plumbing.errors import DataMissingError

    try:
        return load_data(compose([f"dataset={name}", f"dataset.split={split}"]))
    except DataMissingError:
        return None


def _with_features(d: Data, dtype: torch.dtype) -> Data:
    """``d`` with its floating inputs in ``dtype`` (the targets as they are)."""
    as_ = lambda t: t.to(dtype) if t is not None and t.is_floating_point() else t  # noqa: E731
    return dataclasses.replace(d, x_train=as_(d.x_train), x_test=as_(d.x_test))


def _copy(d: Data) -> Data:
    def own(v):
        return v.clone() if isinstance(v, torch.Tensor) else copy.deepcopy(v)

    tensors = ("x_train", "y_train", "x_test", "y_test")
    return dataclasses.replace(
        d, **{k: own(getattr(d, k)) for k in tensors}, extras={k: own(v) for k, v in d.extras.items()}
    )


__all__ = ["Data", "LOADERS", "absolute_paths", "check_files", "load_data", "load_if_present", "register"]
