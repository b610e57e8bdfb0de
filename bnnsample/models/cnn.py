"""Convolutional networks in the style of the SMS-UBU paper (paulin2025 §5, App. F.1).

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


def cnn_celeba(in_channels: int = 3, n_classes: int = 2, low_rank: int = 16) -> nn.Module:
    """The Celeb-A network of paulin2025 App. E.1 (1,612,306 parameters), 3x64x64 inputs.

    Conv(3->32) SP BN32 | Conv(32->64) SP MaxPool BN64 | Conv(64->128) SP BN128 |
    Conv(128->128) SP MaxPool BN128 | Conv(128->256) SP BN256 | Conv(256->256) SP MaxPool |
    Flatten(256*8*8 = 16384) BN1d(16384) Lin(16384->16) BN1d(16) Lin(16->4096) SP BN1d(4096)
    Lin(4096->16) BN1d(16) Lin(16->1024) SP BN1d(1024) Lin(1024->16) BN1d(16) Lin(16->512) SP
    BN1d(512) Lin(512->2)

    The paper's listing has no Flatten in its fc block (the authors' forward flattens with
    ``x.view``); we flatten in the Sequential, which is the same map.
    """
    r = low_rank
    return nn.Sequential(
        _conv(in_channels, 32), SP(), _bn2(32),
        _conv(32, 64), SP(), nn.MaxPool2d(2, 2), _bn2(64),
        _conv(64, 128), SP(), _bn2(128),
        _conv(128, 128), SP(), nn.MaxPool2d(2, 2), _bn2(128),
        _conv(128, 256), SP(), _bn2(256),
        _conv(256, 256), SP(), nn.MaxPool2d(2, 2),
        nn.Flatten(), _bn1(16384), nn.Linear(16384, r), _bn1(r),
        nn.Linear(r, 4096), SP(), _bn1(4096), nn.Linear(4096, r), _bn1(r),
        nn.Linear(r, 1024), SP(), _bn1(1024), nn.Linear(1024, r), _bn1(r),
        nn.Linear(r, 512), SP(), _bn1(512), nn.Linear(512, n_classes),
    )  # fmt: skip


cnn_celeba.image_hw = (64, 64)


def _pool1():
    return nn.MaxPool2d(kernel_size=2, stride=2, padding=1)


def cnn_chestxray(in_channels: int = 1, n_classes: int = 2, low_rank: int = 32) -> nn.Module:
    """The chest X-ray network of paulin2025 App. E.1 (870,882 parameters), 1x180x180 inputs.

    Five convolutions, each followed by Softplus and MaxPool(2, 2, padding 1), spatial size
    180 -> 91 -> 46 -> 24 -> 13 -> 7, BatchNorm before each convolution but the first:
    Conv(1->32) SP Pool | BN32 Conv(32->64) SP Pool | BN64 Conv(64->64) SP Pool |
    BN64 Conv(64->128) SP Pool | BN128 Conv(128->256) SP Pool |
    Flatten(256*7*7 = 12544) BN1d(12544) Lin(12544->32) BN1d(32) Lin(32->512) SP BN1d(512) Lin(512->2)
    """
    return nn.Sequential(
        _conv(in_channels, 32), SP(), _pool1(),
        _bn2(32), _conv(32, 64), SP(), _pool1(),
        _bn2(64), _conv(64, 64), SP(), _pool1(),
        _bn2(64), _conv(64, 128), SP(), _pool1(),
        _bn2(128), _conv(128, 256), SP(), _pool1(),
        nn.Flatten(), _bn1(12544), nn.Linear(12544, low_rank), _bn1(low_rank),
        nn.Linear(low_rank, 512), SP(), _bn1(512), nn.Linear(512, n_classes),
    )  # fmt: skip


cnn_chestxray.image_hw = (180, 180)


def cnn_cifar_wide(in_channels: int = 3, n_classes: int = 10, low_rank: int = 512) -> nn.Module:
    """The wide CIFAR-10 network of paulin2025 App. E (Table 3/4), 3x32x32 inputs, exactly as
    the paper's listing: 12 convolutions in three blocks of four (512, 768, 1024 channels),
    each block ending in MaxPool, then the low-rank head:

    [Conv SP BN] x3, Conv SP MaxPool BN   (512 channels; the first Conv takes in_channels)
    [Conv SP BN] x3, Conv SP MaxPool BN   (768)
    [Conv SP BN] x3, Conv SP MaxPool      (1024)
    Flatten(1024*4*4 = 16384) BN1d(16384) Lin(16384->512) BN1d(512) Lin(512->2048) SP BN1d(2048)
    Lin(2048->512) SP BN1d(512) Lin(512->1024) SP BN1d(1024) Lin(1024->10)

    Parameters: 73,036,298. The paper prints 73,038,346, 2,048 more, which is exactly one
    more BatchNorm(1024) (weight and bias); the listing has no place for it, so we build the
    listing as printed. The listing's last BatchNorm1d(1024) has no ``momentum=1.0``
    (PyTorch's default 0.1); we give it momentum 1 like every other BatchNorm of the paper,
    since prediction sets the running statistics from one calibration batch (this changes
    no parameter). The authors' repository notebook has a different, 15-convolution network.
    """

    def block(cin, cout, last_bn=True):
        layers = [_conv(cin, cout), SP(), _bn2(cout)]
        for _ in range(2):
            layers += [_conv(cout, cout), SP(), _bn2(cout)]
        layers += [_conv(cout, cout), SP(), nn.MaxPool2d(2, 2)]
        return layers + ([_bn2(cout)] if last_bn else [])

    r = low_rank
    return nn.Sequential(
        *block(in_channels, 512), *block(512, 768), *block(768, 1024, last_bn=False),
        nn.Flatten(), _bn1(16384), nn.Linear(16384, r), _bn1(r),
        nn.Linear(r, 2048), SP(), _bn1(2048), nn.Linear(2048, r), SP(), _bn1(r),
        nn.Linear(r, 1024), SP(), _bn1(1024), nn.Linear(1024, n_classes),
    )  # fmt: skip


cnn_cifar_wide.image_hw = (32, 32)
cnn_fmnist.image_hw = (28, 28)

ARCHITECTURES = {
    "cnn_small": cnn_small,
    "cnn_fmnist": cnn_fmnist,
    "cnn_celeba": cnn_celeba,
    "cnn_chestxray": cnn_chestxray,
    "cnn_cifar_wide": cnn_cifar_wide,
}
"""name -> builder(in_channels, n_classes, ...). A builder with an ``image_hw`` attribute
(H, W) takes only images of that height and width (its flattened size is fixed by the paper);
network.py checks it and names the mismatch in one line."""
