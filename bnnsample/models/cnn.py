"""Convolutional networks in the style of the SMS-UBU paper (paulin2025 §2.4).

Every activation is Softplus(beta=1), every BatchNorm has momentum 1 (the loss always uses
the current batch's statistics; before predicting, one large calibration batch sets the
running statistics), convolutions are 3x3 with padding 1, pooling is 2x2 max-pooling, and
the classifier head has a low-rank bottleneck.
"""

from __future__ import annotations

from torch import nn

SP = nn.Softplus


def _bn2(c):
    return nn.BatchNorm2d(c, momentum=1.0)


def _bn1(c):
    return nn.BatchNorm1d(c, momentum=1.0)


def _conv(cin, cout):
    return nn.Conv2d(cin, cout, kernel_size=3, padding=1)


def cnn_small(in_channels: int = 1, n_classes: int = 10, image_size: int = 28, low_rank: int = 32) -> nn.Module:
    """A small paper-style CNN for the embedded default (28x28 grayscale, ~80k parameters).

    Conv(1->16) SP MaxPool BN16 | Conv(16->32) SP MaxPool BN32 | Conv(32->32) SP BN32 |
    Flatten BN1d Lin(->low_rank) BN1d Lin(low_rank->128) SP BN1d(128) Lin(128->classes)
    """
    s = image_size // 4
    flat = 32 * s * s
    return nn.Sequential(
        _conv(in_channels, 16), SP(), nn.MaxPool2d(2, 2), _bn2(16),
        _conv(16, 32), SP(), nn.MaxPool2d(2, 2), _bn2(32),
        _conv(32, 32), SP(), _bn2(32),
        nn.Flatten(), _bn1(flat), nn.Linear(flat, low_rank), _bn1(low_rank),
        nn.Linear(low_rank, 128), SP(), _bn1(128), nn.Linear(128, n_classes),
    )  # fmt: skip


def cnn_fmnist(in_channels: int = 1, n_classes: int = 10, low_rank: int = 32) -> nn.Module:
    """The Fashion-MNIST network of paulin2025 App. E.1 (1,265,258 parameters): 7 convolutions.

    Conv(1->32) SP BN32 | Conv(32->64) SP MaxPool BN64 | Conv(64->64) SP BN64 |
    Conv(64->128) SP BN128 | Conv(128->128) (no activation) MaxPool BN128 |
    Conv(128->256) SP BN256 | Conv(256->256) SP MaxPool | Flatten(2304) BN1d(2304)
    Lin(2304->32) BN1d(32) Lin(32->512) SP BN1d(512) Lin(512->10)
    """
    return nn.Sequential(
        _conv(in_channels, 32), SP(), _bn2(32),
        _conv(32, 64), SP(), nn.MaxPool2d(2, 2), _bn2(64),
        _conv(64, 64), SP(), _bn2(64),
        _conv(64, 128), SP(), _bn2(128),
        _conv(128, 128), nn.MaxPool2d(2, 2), _bn2(128),
        _conv(128, 256), SP(), _bn2(256),
        _conv(256, 256), SP(), nn.MaxPool2d(2, 2),
        nn.Flatten(), _bn1(2304), nn.Linear(2304, low_rank), _bn1(low_rank),
        nn.Linear(low_rank, 512), SP(), _bn1(512), nn.Linear(512, n_classes),
    )  # fmt: skip


ARCHITECTURES = {"cnn_small": cnn_small, "cnn_fmnist": cnn_fmnist}
