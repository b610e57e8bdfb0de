"""Model registry: ``build_potential(cfg, data, device, dtype)`` turns a model config and data
into the Potential the sampler sees. A builder ``builder(model_cfg, data, device, dtype, seed)
-> Potential`` is filed under its config name with ``@register(NAME)`` in the module of its
kind; a builder raises UserError when the data do not suit the model."""

from __future__ import annotations

import torch

from ..data.base import Data
from ..registry import Registry, import_modules

# the message for an unknown model lists the models in order of registration, which is the
# order of the modules below
BUILDERS: Registry = Registry("model", sort=False)
register = BUILDERS.register
import_modules(__name__, ("analytic", "logistic", "multinomial", "network", "toys", "mlp", "custom"))

MODELS = tuple(BUILDERS)


def build_potential(model_cfg, data: Data, device: torch.device, dtype: torch.dtype, seed: int = 0):
    """The Potential of ``model_cfg.name``; UnknownName lists the models."""
    return BUILDERS[model_cfg.name](model_cfg, data, device, dtype, seed)


__all__ = ["BUILDERS", "MODELS", "build_potential", "register"]
