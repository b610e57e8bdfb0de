"""Per-datum gradients and Hessian-vector products of the network and logistic-regression
oracles: sum identities, agreement with autograd and finite differences, symmetry."""

import pytest
import torch
from torch import nn

from bnnsample.models.cnn import cnn_small
from bnnsample.models.logistic import LogisticRegression
from bnnsample.models.network import ClassifierPotential
from bnnsample.potential import Oracle, covariance_factor

D = torch.float64


def mlp_potential(chain_batching="loop", n=40, seed=0):
    torch.manual_seed(seed)
    module = nn.Sequential(nn.Flatten(), nn.Linear(16, 8), nn.Softplus(), nn.Linear(8, 3)).to(D)
    x = torch.randn(n, 1, 4, 4, dtype=D)
    y = torch.randint(3, (n,))
    return ClassifierPotential(module, x, y, x[:5], prior_precision=0.7, chain_batching=chain_batching)


def cnn_potential(n=24, seed=0):
    torch.manual_seed(seed)
    module = cnn_small(image_size=8, low_rank=4).to(D)
    x = torch.randn(n, 1, 8, 8, dtype=D)
    y = torch.randint(10, (n,))
    return ClassifierPotential(module, x, y, x[:5], prior_precision=1.0, chain_batching="loop")


def random_point(pot, C, seed=1, sd=0.3):
    g = torch.Generator().manual_seed(seed)
    return sd * torch.randn(C, pot.dim, generator=g, dtype=D)


@pytest.mark.parametrize("per_chain", [False, True])
def test_mlp_per_datum_sum_is_minibatch_gradient(per_chain):
    pot = mlp_potential()
    C, n = 3, 7
    x = random_point(pot, C)
    idx = torch.randint(pot.n_data, (C, n) if per_chain else (n,))
    g = pot.per_datum_grads(x, idx)
    assert g.shape == (C, n, pot.dim)
    data_grad = pot.force(x, idx, 1.0) - pot.force(x, idx, 0.0)
    assert torch.allclose(g.sum(1), data_grad, rtol=0, atol=1e-10)
    # without BatchNorm each row is the datum's own gradient: datum 0 alone as a batch
    one = pot.force(x, idx[..., :1], 1.0) - pot.force(x, idx[..., :1], 0.0)
    assert torch.allclose(g[:, 0], one, rtol=0, atol=1e-10)


def test_cnn_per_datum_grads_sum_with_batchnorm():
    """With BatchNorm on batch statistics the rows are the summands of the minibatch loss:
    their sum is the minibatch gradient exactly; a row is NOT the gradient of the datum alone."""
    pot = cnn_potential()
    C, n = 2, 6
    x = torch.stack([pot.layout.flatten(pot.module)] * C) + random_point(pot, C, sd=0.01)
    idx = torch.arange(n)
    g = pot.per_datum_grads(x, idx, max_numbers=3 * pot.dim)  # forces chunks of 3 data
    assert g.shape == (C, n, pot.dim) and torch.isfinite(g).all()
    data_grad = pot.force(x, idx, 1.0) - pot.force(x, idx, 0.0)
    assert torch.allclose(g.sum(1), data_grad, rtol=0, atol=1e-10)
    cov = Oracle(pot, idx, pot.n_data / n, covariance_factor(n, pot.n_data, False)).covariance(x)
    assert cov.factor.shape == (C, n, pot.dim) and torch.isfinite(cov.diagonal()).all()


def _fd_check(pot, x, u, idx, scale, eps=1e-6):
    hu = pot.hvp(x, u, idx, scale)
    fd = (pot.force(x + eps * u, idx, scale) - pot.force(x - eps * u, idx, scale)) / (2 * eps)
    rel = (hu - fd).norm(dim=1) / fd.norm(dim=1)
    assert rel.max() < 1e-6, rel
    return hu


@pytest.mark.parametrize("make", [mlp_potential, cnn_potential])
def test_network_hvp_finite_differences_and_symmetry(make):
    pot = make()
    C, n = 2, 8
    x = random_point(pot, C, sd=0.1)
    if make is cnn_potential:
        x = x + pot.layout.flatten(pot.module)
    u, w = random_point(pot, C, seed=2, sd=1.0), random_point(pot, C, seed=3, sd=1.0)
    idx = torch.arange(n)
    hu = _fd_check(pot, x, u, idx, pot.n_data / n)
    hw = pot.hvp(x, w, idx, pot.n_data / n)
    assert torch.allclose((w * hu).sum(1), (u * hw).sum(1), rtol=1e-10, atol=1e-12)


def test_network_hvp_vmap_matches_loop():
    loop, vm = mlp_potential("loop"), mlp_potential("vmap")
    x, u = random_point(loop, 3), random_point(loop, 3, seed=4)
    idx = torch.randint(loop.n_data, (3, 5))
    assert torch.allclose(loop.hvp(x, u, idx, 2.0), vm.hvp(x, u, idx, 2.0), rtol=1e-10, atol=1e-12)


# -- logistic regression -------------------------------------------------------------------


def logistic(seed=0, N=60, d=5):
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(N, d, generator=g, dtype=D)
    y = (torch.rand(N, generator=g, dtype=D) < 0.5).long()
    return LogisticRegression(a, y, a[:10], prior_precision=0.8)


def autograd_force(pot, x, idx, scale):
    x = x.clone().requires_grad_()
    a, y = pot.a[idx], pot.y[idx]
    z = (a @ x[:, :, None])[..., 0] if idx.dim() == 2 else x @ a.T
    U = scale * (torch.nn.functional.softplus(z) - y * z).sum() + 0.5 * pot.lam * (x**2).sum()
    return torch.autograd.grad(U, x, create_graph=True)[0], x


@pytest.mark.parametrize("per_chain", [False, True])
def test_logistic_force_per_datum_and_hvp_against_autograd(per_chain):
    pot = logistic()
    C, n, scale = 4, 9, 60 / 9
    x = random_point(pot, C, sd=1.0)
    u = random_point(pot, C, seed=5, sd=1.0)
    idx = torch.randint(pot.n_data, (C, n) if per_chain else (n,))
    g, xr = autograd_force(pot, x, idx, scale)
    assert torch.allclose(pot.force(x, idx, scale), g, rtol=1e-12, atol=1e-12)
    hu = torch.autograd.grad((g * u).sum(), xr)[0]
    assert torch.allclose(pot.hvp(x, u, idx, scale), hu, rtol=1e-12, atol=1e-12)
    pd = pot.per_datum_grads(x, idx)
    assert pd.shape == (C, n, pot.dim)
    assert torch.allclose(pd.sum(1), pot.force(x, idx, 1.0) - pot.force(x, idx, 0.0), rtol=1e-12, atol=1e-12)
    full = pot.force(x, None, 1.0)
    xr = x.clone().requires_grad_()
    assert torch.allclose(full, torch.autograd.grad(pot.loss(xr).sum(), xr)[0], rtol=1e-12, atol=1e-12)
    _fd_check(pot, x, u, idx, scale)


def test_logistic_predict_and_config_pipeline(tmp_path):
    from bnnsample.store import SampleStore

    from ..helpers import run_inprocess

    path, _ = run_inprocess(
        tmp_path,
        ["dataset=logistic_synthetic", "dataset.n_train=400", "dataset.n_test=50", "dataset.dim=5", "chains=3",
         "batch_size=20", "burn_in=1", "samples=2", "evaluate=false"],
    )  # fmt: skip
    with SampleStore(path) as s:
        assert s.theta().shape == (3, 2, 5)
        assert not s.diverged().any()


@pytest.mark.parametrize("make", [mlp_potential, cnn_potential])
def test_network_energy_is_the_potential_of_the_force(make):
    """Directional finite differences of energy(x, S) equal force(x, S) . u (float64); the
    full-data energy sums the chunked data terms."""
    pot = make()
    x = random_point(pot, 2)
    gen = torch.Generator().manual_seed(4)
    u = torch.randn(x.shape, generator=gen, dtype=x.dtype)
    idx, scale, eps = torch.arange(6), 2.5, 1e-6
    fd = (pot.energy(x + eps * u, idx, scale) - pot.energy(x - eps * u, idx, scale)) / (2 * eps)
    torch.testing.assert_close(fd, (pot.force(x, idx, scale) * u).sum(1), rtol=1e-6, atol=1e-6)
    pot.predict_batch = 7
    chunks = torch.arange(pot.n_data).split(7)
    prior = 0.5 * pot.lam * ((pot.mask * x) ** 2).sum(1)
    expect = prior + sum(pot.energy(x, c, 1.0) - prior for c in chunks)
    torch.testing.assert_close(pot.energy(x, None, 1.0), expect)
