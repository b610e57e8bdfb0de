"""Adam + SWA training of several runs at once (train.train_runs) equals the same runs trained
one after another on the ordinary module with torch.optim.Adam (train.train_adam_swa), given
the same initial points and batch generators: float64, every run, both phases."""

import pytest
import torch

from bnnsample import train as train_mod
from bnnsample.models.cnn import ARCHITECTURES
from bnnsample.models.network import ClassifierPotential


def potential(chain_batching, memory_format="contiguous", n=60):
    g = torch.Generator().manual_seed(0)
    x = torch.rand(n, 1, 8, 8, generator=g, dtype=torch.float64)
    y = torch.randint(3, (n,), generator=g)
    module = ARCHITECTURES["cnn_small"](in_channels=1, n_classes=3, image_size=8).double()
    return ClassifierPotential(module, x, y, x[:10], prior_precision=2.0, n_calibration=40,
                               chain_batching=chain_batching, memory_format=memory_format)  # fmt: skip


def initial_points(pot, runs):
    out = []
    for r in range(runs):
        torch.manual_seed(100 + r)
        for m in pot.module.modules():
            if m is not pot.module and hasattr(m, "reset_parameters"):
                m.reset_parameters()
        out.append(pot.layout.flatten(pot.module).clone())
    return torch.stack(out)


KW = dict(train_epochs=2, swa_epochs=2, lr=1e-2, swa_lr=1e-3, batch_size=20)


@pytest.mark.parametrize("chain_batching, memory_format", [("vmap", "contiguous"), ("loop", "channels_last")])
def test_vectorised_runs_equal_separate_runs(chain_batching, memory_format):
    ref_pot = potential("loop")
    x0 = initial_points(ref_pot, 3)
    separate = []
    for r in range(3):
        ref_pot.layout.load(ref_pot.module, x0[r])
        separate.append(train_mod.train_adam_swa(ref_pot, generator=torch.Generator().manual_seed(7 + r), **KW))
    pot = potential(chain_batching, memory_format)
    ticks = []
    got = train_mod.train_runs(pot, x0, generators=[torch.Generator().manual_seed(7 + r) for r in range(3)],
                               on_step=lambda: ticks.append(1), **KW)  # fmt: skip
    assert len(ticks) == (2 + 2) * (60 // 20)
    for r, res in enumerate(separate):
        torch.testing.assert_close(got.standard[r], res.standard, rtol=0, atol=1e-10)
        torch.testing.assert_close(got.swa[r], res.swa, rtol=0, atol=1e-10)
    # power: the runs moved, and apart from one another (their own batches and moments)
    assert (got.standard - x0).abs().max() > 1e-2
    assert (got.swa[0] - got.swa[1]).abs().max() > 1e-2


def test_adam_matches_torch_optim_adam():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(2, 5, generator=g, dtype=torch.float64)
    p = torch.nn.Parameter(x.clone())
    opt = torch.optim.Adam([p], lr=0.1)
    mine = train_mod.Adam.fresh(x)
    for lr in (0.1, 0.05, 0.02):
        grad = torch.randn(2, 5, generator=g, dtype=torch.float64)
        for group in opt.param_groups:
            group["lr"] = lr
        p.grad = grad.clone()
        opt.step()
        mine.step(x, grad, lr)
        torch.testing.assert_close(x, p.detach(), rtol=0, atol=1e-15)
