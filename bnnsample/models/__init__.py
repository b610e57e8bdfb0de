"""Model registry: ``build_potential(cfg, data, device, dtype)`` turns a model config and data
into the Potential the sampler sees. Each model module exports ``BUILDERS``: {config name:
builder(model_cfg, data, device, dtype, seed) -> Potential}; a builder raises UserError when
the data do not suit the model."""

from __future__ import annotations

import torch

from ..data.base import Data
from ..errors import UserError
from . import analytic, logistic, mlp, multinomial, network, toys

BUILDERS: dict = {}
for _module in (analytic, logistic, multinomial, network, toys, mlp):
    BUILDERS.update(_module.BUILDERS)

MODELS = tuple(BUILDERS)


def build_potential(model_cfg, data: Data, device: torch.device, dtype: torch.dtype, seed: int = 0):
    name = model_cfg.name
    if name not in BUILDERS:
        raise UserError(f"model={name}: allowed values: {', '.join(MODELS)}")
    return BUILDERS[name](model_cfg, data, device, dtype, seed)


__all__ = ["BUILDERS", "MODELS", "build_potential"]
