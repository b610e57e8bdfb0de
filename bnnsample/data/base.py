"""The data container every loader returns."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch


@dataclass
class Data:
    """Training and test data of one experiment, as tensors on the CPU.

    task: "density" (observations y_train only, no predictive test set), "classification"
    (integer labels) or "regression". ``extras`` carries what a model needs beyond (x, y),
    e.g. per-datum noise standard deviations.
    """

    name: str
    task: str
    y_train: torch.Tensor
    x_train: torch.Tensor | None = None
    x_test: torch.Tensor | None = None
    y_test: torch.Tensor | None = None
    n_classes: int | None = None
    extras: dict = field(default_factory=dict)
    description: str = ""
    source: str = ""  # where the files were read from (a folder), for loaders that search several; "" otherwise

    @property
    def n_train(self) -> int:
        return int(self.y_train.shape[0])
