"""Model registry: ``build_potential(cfg, data, device, dtype)`` turns a model config and data
into the Potential the sampler sees."""

from __future__ import annotations

import torch

from ..data.base import Data
from ..errors import UserError
from .analytic import GaussianMean, NoisyGradientGaussian
from .cnn import ARCHITECTURES
from .logistic import LogisticRegression
from .network import ClassifierPotential

MODELS = ("gaussian_mean", "noisy_gaussian", "logistic_regression", *ARCHITECTURES)


def build_potential(model_cfg, data: Data, device: torch.device, dtype: torch.dtype, seed: int = 0):
    name = model_cfg.name
    if name == "noisy_gaussian":
        if data.name != "noisy_gaussian":
            raise UserError(f"model=noisy_gaussian goes with dataset=noisy_gaussian, not dataset={data.name}")
        e = data.extras
        try:
            return NoisyGradientGaussian(e["dim"], e["mean"], e["sigma"], e["sigma_model"], seed=seed, device=device)
        except ValueError as err:
            raise UserError(f"dataset.{err}") from None
    if name == "gaussian_mean":
        if data.task != "density" or "noise_sd" not in data.extras:
            raise UserError(f"model=gaussian_mean needs observations with noise_sd (dataset={data.name} has none)")
        return GaussianMean(
            data.y_train.to(device, dtype),
            data.extras["noise_sd"].to(device, dtype),
            prior_precision=float(model_cfg.prior_precision),
            prior_mean=float(model_cfg.prior_mean),
        )
    if name == "logistic_regression":
        if data.task != "classification" or data.n_classes != 2 or data.x_train is None or data.x_train.dim() != 2:
            raise UserError(f"model=logistic_regression needs binary labels and a 2-D design (dataset={data.name})")
        return LogisticRegression(
            data.x_train.to(device, dtype),
            data.y_train.to(device),
            data.x_test.to(device, dtype) if data.x_test is not None else None,
            prior_precision=float(model_cfg.prior_precision),
        )
    if name in ARCHITECTURES:
        if data.task != "classification":
            raise UserError(f"model={name} is a classifier; dataset={data.name} is not an image classification set")
        c, h, _ = data.x_train.shape[1:]
        kwargs = {"in_channels": c, "n_classes": data.n_classes}
        if name == "cnn_small":
            kwargs["image_size"] = h
        module = ARCHITECTURES[name](**kwargs).to(device, dtype)
        return ClassifierPotential(
            module,
            data.x_train.to(device, dtype),
            data.y_train.to(device),
            data.x_test.to(device, dtype),
            prior_precision=float(model_cfg.prior_precision),
            n_calibration=int(model_cfg.n_calibration),
            chain_batching=str(model_cfg.get("chain_batching", "auto")),
        )
    raise UserError(f"model={name}: allowed values: {', '.join(MODELS)}")


__all__ = ["MODELS", "build_potential"]
