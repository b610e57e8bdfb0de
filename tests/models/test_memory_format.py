"""The channels-last layout of the networks (models/network.py ``memory_format``) changes the
order of floating-point sums only: force, per-datum gradients, Hessian-vector products,
energies and predictions agree with the contiguous layout in float64, and the flat
parameter order is the logical one either way."""

import pytest
import torch

from bnnsample.models.cnn import ARCHITECTURES
from bnnsample.models.network import ClassifierPotential, resolve_memory_format
from bnnsample.plumbing.errors import UserError


def potentials(arch="cnn_small", c=1, hw=8, n=40, k=3):
    g = torch.Generator().manual_seed(0)
    x = torch.rand(n, c, hw, hw, generator=g, dtype=torch.float64)
    y = torch.randint(k, (n,), generator=g)
    kw = {"image_size": hw} if arch == "cnn_small" else {}
    torch.manual_seed(3)
    base = ARCHITECTURES[arch](in_channels=c, n_classes=k, **kw).double()
    out = {}
    for fmt in ("contiguous", "channels_last"):
        module = ARCHITECTURES[arch](in_channels=c, n_classes=k, **kw).double()
        module.load_state_dict(base.state_dict())
        out[fmt] = ClassifierPotential(module, x, y, x[:10], n_calibration=20, memory_format=fmt)
    return out


@pytest.mark.parametrize("c", [1, 3])
def test_channels_last_same_force_hvp_energy_prediction(c):
    pots = potentials(c=c)
    cl, plain = pots["channels_last"], pots["contiguous"]
    assert cl.memory_format == "channels_last" and plain.memory_format == "contiguous"
    conv = [p for p in cl.module.parameters() if p.dim() == 4][-1]  # 32 input channels: unambiguous
    assert conv.is_contiguous(memory_format=torch.channels_last) and not conv.is_contiguous()
    x0 = plain.layout.flatten(plain.module)
    assert torch.equal(cl.layout.flatten(cl.module), x0)  # flat order: logical either way
    g = torch.Generator().manual_seed(1)
    x = x0 + 0.1 * torch.randn(2, x0.numel(), generator=g, dtype=torch.float64)
    idx = torch.randint(40, (2, 8), generator=g)
    for i in (idx[0], idx):  # a shared batch and one batch per chain
        torch.testing.assert_close(cl.force(x, i, 5.0), plain.force(x, i, 5.0), rtol=1e-9, atol=1e-10)
        u = torch.randn_like(x)
        torch.testing.assert_close(cl.hvp(x, u, i, 5.0), plain.hvp(x, u, i, 5.0), rtol=1e-9, atol=1e-10)
        torch.testing.assert_close(cl.energy(x, i, 5.0), plain.energy(x, i, 5.0), rtol=1e-9, atol=1e-10)
    torch.testing.assert_close(cl.per_datum_grads(x, idx[0]), plain.per_datum_grads(x, idx[0]), rtol=1e-9, atol=1e-10)
    torch.testing.assert_close(cl.predict(x), plain.predict(x), rtol=0, atol=1e-12)
    # the layout really differs where it matters: the kernels handed to functional_call
    kernels = [p for p in cl.layout.unflatten(x[0]).values() if p.dim() == 4 and p.shape[1] > 1]
    assert kernels and all(k.is_contiguous(memory_format=torch.channels_last) for k in kernels)


def test_auto_is_channels_last_for_convolutions_on_cpu_only():
    conv = ARCHITECTURES["cnn_small"](in_channels=1, n_classes=3, image_size=8)
    mlp = torch.nn.Sequential(torch.nn.Linear(4, 2))
    cpu, cuda = torch.device("cpu"), torch.device("cuda")
    assert resolve_memory_format("auto", conv, cpu) == "channels_last"
    assert resolve_memory_format("auto", conv, cuda) == "contiguous"
    assert resolve_memory_format("auto", mlp, cpu) == "contiguous"
    assert resolve_memory_format("contiguous", conv, cpu) == "contiguous"
    with pytest.raises(UserError, match="model.memory_format=x: allowed values"):
        resolve_memory_format("x", conv, cpu)
