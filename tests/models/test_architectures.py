"""The papers' networks (paulin2025 App. E listings: parameter counts, layer conventions,
input sizes) and the closed-form multinomial logistic regression (force, per-datum
gradients, Hessian-vector products and energy equal autograd in float64)."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from omegaconf import OmegaConf
from torch import nn

from bnnsample.data.base import Data
from bnnsample.models import batched, build_potential
from bnnsample.models.cnn import ARCHITECTURES
from bnnsample.models.multinomial import MultinomialLogistic
from bnnsample.plumbing.errors import UserError
from bnnsample.store import SampleStore

from ..helpers import run_inprocess


def n_params(m):
    return sum(p.numel() for p in m.parameters())


def check_paper_conventions(m, n_conv):
    bns = [x for x in m.modules() if isinstance(x, nn.modules.batchnorm._BatchNorm)]
    assert bns and all(b.momentum == 1.0 for b in bns)
    acts = [x for x in m.modules() if not list(x.children()) and not isinstance(
        x, (nn.Conv2d, nn.Linear, nn.MaxPool2d, nn.Flatten, nn.modules.batchnorm._BatchNorm))]  # fmt: skip
    assert acts and all(isinstance(a, nn.Softplus) and a.beta == 1.0 for a in acts)
    convs = [x for x in m.modules() if isinstance(x, nn.Conv2d)]
    assert len(convs) == n_conv and all(c.kernel_size == (3, 3) and c.padding == (1, 1) for c in convs)


@pytest.mark.parametrize(
    "name,shape,classes,count,n_conv",
    [("cnn_fmnist", (1, 28, 28), 10, 1_265_258, 7),
     ("cnn_celeba", (3, 64, 64), 2, 1_612_306, 6),
     ("cnn_chestxray", (1, 180, 180), 2, 870_882, 5)],
)  # fmt: skip
def test_paper_cnn_parameter_counts_and_shapes(name, shape, classes, count, n_conv):
    torch.manual_seed(0)
    m = ARCHITECTURES[name](in_channels=shape[0], n_classes=classes)
    assert n_params(m) == count
    check_paper_conventions(m, n_conv)
    with torch.no_grad():
        out = m.train()(torch.rand(2, *shape))
    assert out.shape == (2, classes) and torch.isfinite(out).all()


def test_chestxray_pooling_pads():
    pools = [x for x in ARCHITECTURES["cnn_chestxray"]().modules() if isinstance(x, nn.MaxPool2d)]
    assert len(pools) == 5 and all(p.padding == 1 for p in pools)  # 180 -> 91 -> 46 -> 24 -> 13 -> 7


def test_cifar_wide_listing_count():
    """The paper's listing yields 73,036,298 parameters; the paper prints 73,038,346, i.e.
    2,048 more = one BatchNorm(1024) (weight + bias) that the listing does not contain."""
    torch.manual_seed(0)
    m = ARCHITECTURES["cnn_cifar_wide"](in_channels=3, n_classes=10)
    assert n_params(m) == 73_036_298 == 73_038_346 - 2 * 1024
    check_paper_conventions(m, 12)
    widths = [c.out_channels for c in m.modules() if isinstance(c, nn.Conv2d)]
    assert widths == [512] * 4 + [768] * 4 + [1024] * 4
    lin = [(x.in_features, x.out_features) for x in m.modules() if isinstance(x, nn.Linear)]
    assert lin == [(16384, 512), (512, 2048), (2048, 512), (512, 1024), (1024, 10)]
    with torch.no_grad():  # 2 images: checks the flattened size 1024 * 4 * 4 = 16384
        out = m.train()(torch.rand(2, 3, 32, 32))
    assert out.shape == (2, 10) and torch.isfinite(out).all()


def test_fixed_size_networks_reject_other_image_sizes():
    data = Data("mnist5k", "classification", torch.zeros(4, dtype=torch.long), torch.zeros(4, 1, 28, 28),
                torch.zeros(2, 1, 28, 28), torch.zeros(2, dtype=torch.long), n_classes=2)  # fmt: skip
    cfg = OmegaConf.create({"name": "cnn_celeba", "prior_precision": 1.0, "n_calibration": 4})
    with pytest.raises(UserError, match="model=cnn_celeba takes 64x64 images; dataset=mnist5k has 28x28"):
        build_potential(cfg, data, torch.device("cpu"), torch.float32)


# -------------------------------------------------------------------------------- multinomial
def _problem(N=30, D=7, K=4, C=3, seed=0):
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(N, D, generator=g, dtype=torch.float64)
    y = torch.randint(0, K, (N,), generator=g)
    x = torch.randn(C, K * D + K, generator=g, dtype=torch.float64)
    pot = MultinomialLogistic(
        a, y, torch.randn(5, D, generator=g, dtype=torch.float64), n_classes=K, prior_precision=50.0
    )
    return pot, a, y, x


def _autograd_energy(x1, a, y, idx, scale, K, lam):
    """U_0 + scale * sum_S CE through nn.Linear (weights first, then bias, as in the flat layout)."""
    lin = nn.Linear(a.shape[1], K).double()
    W = x1[: K * a.shape[1]].view(K, a.shape[1])
    b = x1[K * a.shape[1] :]
    ab, yb = (a, y) if idx is None else (a[idx], y[idx])
    z = torch.func.functional_call(lin, {"weight": W, "bias": b}, (ab,))
    return 0.5 * lam * (W**2).sum() + scale * F.cross_entropy(z, yb, reduction="sum")


def _autograd_force(x, a, y, idx, scale, K, lam):
    out = []
    for c in range(x.shape[0]):
        leaf = x[c].clone().requires_grad_(True)
        ic = idx[c] if idx is not None and idx.dim() == 2 else idx
        (g,) = torch.autograd.grad(_autograd_energy(leaf, a, y, ic, scale, K, lam), leaf)
        out.append(g)
    return torch.stack(out)


@pytest.mark.parametrize("kind", ["full", "shared", "per_chain"])
def test_multinomial_force_energy_hvp_equal_autograd(kind, monkeypatch):
    pot, a, y, x = _problem()
    monkeypatch.setattr(batched, "PER_CHAIN_BLOCK_VALUES", 2 * 8 * a.shape[1])  # per-chain blocks of 2 and 1 chains
    K, lam, C = pot.K, pot.lam, x.shape[0]
    g = torch.Generator().manual_seed(1)
    idx = {"full": None, "shared": torch.randint(0, 30, (8,), generator=g),
           "per_chain": torch.randint(0, 30, (C, 8), generator=g)}[kind]  # fmt: skip
    scale = 1.0 if idx is None else 30 / 8
    want = _autograd_force(x, a, y, idx, scale, K, lam)
    torch.testing.assert_close(pot.force(x, idx, scale), want, atol=1e-10, rtol=0)
    # the minibatch loss of the force's batch, kept across the blocks
    ce = (pot.energy(x, idx, scale) - 0.5 * lam * (pot.mask * x * x).sum(1)) / scale
    torch.testing.assert_close(pot.diagnostics()["minibatch_loss"], ce / (30 if idx is None else 8), atol=1e-10, rtol=0)
    # per-datum gradients sum to the data part of the force
    pdg = pot.per_datum_grads(x, idx)
    assert pdg.shape == (C, 30 if idx is None else 8, pot.dim)
    torch.testing.assert_close(pot.force(x, idx, scale) - lam * pot.mask * x, scale * pdg.sum(1), atol=1e-10, rtol=0)
    # energy and Hessian-vector products
    e = torch.stack(
        [_autograd_energy(x[c], a, y, idx[c] if kind == "per_chain" else idx, scale, K, lam) for c in range(C)]
    )
    torch.testing.assert_close(pot.energy(x, idx, scale), e, atol=1e-10, rtol=0)
    u = torch.randn(x.shape, generator=g, dtype=torch.float64)
    hv = []
    for c in range(C):
        ic = idx[c] if kind == "per_chain" else idx

        def f(v, ic=ic):
            return torch.autograd.grad(_autograd_energy(v, a, y, ic, scale, K, lam), v, create_graph=True)[0]

        hv.append(torch.autograd.functional.jvp(f, x[c].clone().requires_grad_(True), u[c])[1])
    torch.testing.assert_close(pot.hvp(x, u, idx, scale), torch.stack(hv), atol=1e-10, rtol=0)


def test_multinomial_prior_spares_biases_and_predict_is_softmax():
    pot, a, _, x = _problem()
    D, K = a.shape[1], pot.K
    assert pot.dim == K * D + K and pot.mask[: K * D].eq(1).all() and pot.mask[K * D :].eq(0).all()
    # with zero data weight the force is lam W, 0 for b
    f = pot.force(x, torch.arange(3), 0.0)
    torch.testing.assert_close(f[:, : K * D], 50.0 * x[:, : K * D])
    torch.testing.assert_close(f[:, K * D :], torch.zeros(3, K, dtype=torch.float64))
    p = pot.predict(x)
    want = torch.softmax(pot.x_test @ x[1, : K * D].view(K, D).T + x[1, K * D :], -1)
    torch.testing.assert_close(p[1], want, atol=1e-12, rtol=0)


def test_multinomial_smoke_run_on_mnist5k(tmp_path):
    path, cfg = run_inprocess(tmp_path, ["dataset=mnist5k", "model=multinomial_logistic", "chains=2", "unit=step",
                                         "burn_in=5", "samples=5", "init=zeros", "step_size=1e-4"])  # fmt: skip
    assert cfg.model.prior_precision == 50.0
    with SampleStore(path) as s:
        assert s.theta().shape == (2, 5, 7850) and np.isfinite(s.theta()).all()
        pred = s.predictive()
        assert pred.shape == (2, 5, 1000, 10) and not s.diverged().any()
        np.testing.assert_allclose(pred.sum(-1), 1.0, rtol=1e-5)
        assert set(s.diagnostics()) >= {"minibatch_loss"}
