"""Synthetic targets with known posteriors."""

from __future__ import annotations

import torch

from .base import Data


def two_batch_gaussian(cfg) -> Data:
    """paulin2025 §2.1: U(x) = sum_{i=1,2} (x - mu_i)^2 / (2 sigma_i^2), mu = (-1, 1),
    sigma = (0.5, 2). Two data points, minibatches of one point, force scaled by N/n = 2.
    Exact posterior N(-15/17, 1/4.25); no prior term."""
    mu = torch.tensor([[-1.0], [1.0]], dtype=torch.float64)
    sd = torch.tensor([0.5, 2.0], dtype=torch.float64)
    return Data(
        name="two_batch_gaussian",
        task="density",
        y_train=mu,
        extras={"noise_sd": sd},
        description="paulin2025 1-D two-batch Gaussian: mu=(-1,1), sigma=(0.5,2), posterior N(-15/17, 1/4.25)",
    )
