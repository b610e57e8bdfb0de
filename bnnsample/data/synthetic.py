"""Synthetic targets with known posteriors."""

from __future__ import annotations

import torch

from ..plumbing.errors import UserError
from . import register
from .base import Data


@register("two_batch_gaussian", generated=True)
def two_batch_gaussian(cfg) -> Data:
    """paulin2025 §3.4, Fig. 1: U(x) = sum_{i=1,2} (x - mu_i)^2 / (2 sigma_i^2), mu = (-1, 1),
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


@register("noisy_gaussian", generated=True)
def noisy_gaussian(cfg) -> Data:
    """matthews2018 §5.1: target N(mean, I_dim) seen only through a force with injected
    Gaussian noise (model noisy_gaussian). No data points; the settings travel in extras."""
    dim = int(cfg.get("dim", 1))
    return Data(
        name="noisy_gaussian",
        task="density",
        y_train=torch.zeros(1, dim, dtype=torch.float64),
        extras={k: cfg.get(k, d) for k, d in (("dim", 1), ("mean", 0.0), ("sigma", 1.0), ("sigma_model", "cosine"))},
        description="N(mean, I) with a Gaussian-noise force of known std sigma(x) (matthews2018 §5.1)",
    )


@register("gaussian_points", generated=True)
def gaussian_points(cfg) -> Data:
    """A general Gaussian-mean target for exact-moment studies: observations y_i (a list of
    numbers, or of d-vectors) with noise standard deviations noise_sd (one number, or one per
    datum); model gaussian_mean gives the posterior of the mean."""
    y = torch.as_tensor(list(cfg.get("y", [-1.0, 1.0])), dtype=torch.float64)
    y = y[:, None] if y.dim() == 1 else y
    sd = torch.as_tensor(cfg.get("noise_sd", 1.0), dtype=torch.float64)
    if sd.dim() == 0:
        sd = sd.expand(y.shape[0])
    if sd.shape[0] != y.shape[0]:
        raise UserError(f"dataset.noise_sd has {sd.shape[0]} entries for {y.shape[0]} observations dataset.y")
    return Data(
        name="gaussian_points",
        task="density",
        y_train=y,
        extras={"noise_sd": sd.clone()},
        description=f"Gaussian mean from {y.shape[0]} observations",
    )


@register("logistic_synthetic", generated=True)
def logistic_synthetic(cfg) -> Data:
    """Binary logistic-regression data from a seeded Gaussian design (the benchmark target):
    features a_i ~ N(0, I_d / d), a true weight vector w ~ N(0, signal^2 I_d), so the true
    logits a_i . w have standard deviation about ``signal``; labels y_i ~ Bernoulli(sigmoid(a_i . w)).
    The first n_train rows are the training set, the next n_test the test set."""
    n_train, n_test, dim = (int(cfg.get(k, dflt)) for k, dflt in (("n_train", 10_000), ("n_test", 2_000), ("dim", 100)))
    signal = float(cfg.get("signal", 3.0))
    for key, val, low in (("n_train", n_train, 2), ("n_test", n_test, 1), ("dim", dim, 1)):
        if val < low:
            raise UserError(f"dataset.{key}={val}: must be an integer >= {low}")
    g = torch.Generator().manual_seed(int(cfg.get("seed", 0)))
    a = torch.randn(n_train + n_test, dim, generator=g, dtype=torch.float64) / dim**0.5
    w = signal * torch.randn(dim, generator=g, dtype=torch.float64)
    y = (torch.rand(n_train + n_test, generator=g, dtype=torch.float64) < torch.sigmoid(a @ w)).long()
    return Data(
        name="logistic_synthetic",
        task="classification",
        x_train=a[:n_train],
        y_train=y[:n_train],
        x_test=a[n_train:],
        y_test=y[n_train:],
        n_classes=2,
        extras={"true_weights": w},
        description=f"synthetic logistic regression: {n_train} train / {n_test} test points, {dim} Gaussian features",
    )


@register("none", generated=True)
def no_data(cfg) -> Data:
    """No data: the target is a density given as a function (model=log_density). One
    placeholder datum, so that a schedule has something to index; the density ignores it."""
    return Data(name="none", task="density", y_train=torch.zeros(1), description="no data")
