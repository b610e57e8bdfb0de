"""The data container every loader returns, and the checks every loader's data pass."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from ..plumbing.errors import UserError


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
    source: str = ""  # the file or folder the data were read from: named when they are refused, kept in the store

    @property
    def n_train(self) -> int:
        return int(self.y_train.shape[0])


def _numpy(values) -> np.ndarray:
    return values.numpy() if isinstance(values, torch.Tensor) else np.asarray(values)


def check_finite(values, where: str, lines: Sequence[int] | None = None) -> None:
    """Refuse (UserError, one line) ``values`` [rows, ...] holding NaN or Inf, naming ``where``
    (the file, or the data set and tensor), the row (``lines[row]`` when given: the row's line
    in the file) and the column of the first one. The sampler marks a chain that meets NaN or
    Inf diverged; a non-finite number in the data would make every chain do so."""
    a = _numpy(values)
    if a.dtype.kind not in "fc" or a.size == 0:
        return
    bad = ~np.isfinite(a)
    if not bad.any():
        return
    at = tuple(int(i) for i in np.argwhere(bad)[0])
    row = f"line {lines[at[0]]}" if lines is not None else f"row {at[0] + 1}"
    col = f", column {at[1] + 1}" if a.ndim == 2 else f", position {tuple(i + 1 for i in at[1:])}" if a.ndim > 2 else ""
    raise UserError(f"{where}: {row}{col} is {a[at]} (not a finite number); nothing was sampled: "
                    "correct or remove that value")  # fmt: skip


def check_labels(labels, n_classes: int, where: str, lines: Sequence[int] | None = None) -> None:
    """Refuse class labels that are not whole numbers in 0 .. n_classes - 1, naming ``where``
    and the row (or ``lines[row]``) of the first."""
    y = _numpy(labels)
    ok = np.isfinite(y) & (y == np.round(y)) if y.dtype.kind in "fc" else np.ones(y.shape, dtype=bool)
    ok &= (y >= 0) & (y < n_classes)
    if ok.all():
        return
    i = int(np.flatnonzero(~ok.reshape(len(y), -1).all(axis=1))[0])
    row = f"line {lines[i]}" if lines is not None else f"row {i + 1}"
    raise UserError(f"{where}: {row} has the label {y[i]}, not a class in 0..{n_classes - 1}; nothing was sampled")


def check(data: Data) -> Data:
    """The checks every loader's Data pass (``data.register`` applies them): finite inputs and
    targets, as many targets as inputs, one input shape for training and test, class labels
    in range. Loaders that read files check them as they read them too, where the file's row
    and column can be named; this is the net under every loader, the packaged sets included."""
    where = data.source or f"dataset={data.name}"
    tensors = {k: getattr(data, k) for k in ("x_train", "y_train", "x_test", "y_test")}
    for name, t in tensors.items():
        if t is not None:
            check_finite(t, f"{where} ({name})")
    for x, y in (("x_train", "y_train"), ("x_test", "y_test")):
        if tensors[x] is not None and tensors[y] is not None and len(tensors[x]) != len(tensors[y]):
            raise UserError(f"{where}: {len(tensors[x])} inputs ({x}) but {len(tensors[y])} targets ({y})")
    if tensors["x_train"] is not None and tensors["x_test"] is not None:
        a, b = tuple(tensors["x_train"].shape[1:]), tuple(tensors["x_test"].shape[1:])
        if a != b:
            raise UserError(f"{where}: training inputs of shape {a} but test inputs of shape {b}")
    if data.task == "classification" and data.n_classes is not None:
        for name in ("y_train", "y_test"):
            if tensors[name] is not None:
                check_labels(tensors[name], data.n_classes, f"{where} ({name})")
    return data
