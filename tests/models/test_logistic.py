"""The closed-form binary logistic-regression force (models/logistic.py) against autograd of
the minibatch energy, for the full data, a batch shared by the chains and one batch per chain
(the last computed a block of chains at a time, blocks of uneven size)."""

import pytest
import torch

from bnnsample.models import batched
from bnnsample.models import logistic as L

D = torch.float64


def _problem(N=40, d=5, C=7, seed=0):
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(N, d, generator=g, dtype=D)
    y = (torch.rand(N, generator=g, dtype=D) < 0.5).long()
    return L.LogisticRegression(a, y, prior_precision=0.7), torch.randn(C, d, generator=g, dtype=D), g


def _autograd(pot, x, idx, scale):
    """(force, minibatch loss) of each chain by autograd of lam/2 |x|^2 + scale sum_S U_i(x)."""
    forces, losses = [], []
    for c in range(x.shape[0]):
        rows = slice(None) if idx is None else idx[c] if idx.dim() == 2 else idx
        leaf = x[c].clone().requires_grad_(True)
        z = pot.a[rows] @ leaf
        per = torch.nn.functional.softplus(z) - pot.y[rows] * z
        (grad,) = torch.autograd.grad(0.5 * pot.lam * leaf.square().sum() + scale * per.sum(), leaf)
        forces.append(grad)
        losses.append(per.mean().detach())
    return torch.stack(forces), torch.stack(losses)


@pytest.mark.parametrize("kind", ["full", "shared", "per_chain"])
def test_force_and_minibatch_loss_equal_autograd(kind, monkeypatch):
    pot, x, g = _problem()
    C, n = x.shape[0], 6
    idx = {"full": None, "shared": torch.randint(0, 40, (n,), generator=g),
           "per_chain": torch.randint(0, 40, (C, n), generator=g)}[kind]  # fmt: skip
    # 3 chains per block of the per-chain force: blocks of 3, 3 and 1 chains
    monkeypatch.setattr(batched, "PER_CHAIN_BLOCK_VALUES", 3 * n * pot.dim)
    scale = 1.0 if idx is None else 40 / n
    force, loss = _autograd(pot, x, idx, scale)
    torch.testing.assert_close(pot.force(x, idx, scale), force, atol=1e-12, rtol=0)
    torch.testing.assert_close(pot.diagnostics()["minibatch_loss"], loss, atol=1e-12, rtol=0)


def test_per_chain_blocks_do_not_change_the_numbers(monkeypatch):
    pot, x, g = _problem(C=9)
    idx = torch.randint(0, 40, (9, 6), generator=g)
    whole = pot.force(x, idx, 4.0)  # one block: all 9 chains
    for chains in (1, 2, 4):
        monkeypatch.setattr(batched, "PER_CHAIN_BLOCK_VALUES", chains * 6 * pot.dim)
        assert torch.equal(pot.force(x, idx, 4.0), whole)


def test_kept_tensors_give_the_numbers_of_fresh_ones_whatever_the_shapes():
    """The shared-batch force and the fused kick, written into tensors kept from call to call,
    equal bit for bit the same step computed with fresh tensors (the autograd path), and the
    diagnostics read the last call's batch, as chains, batch sizes and the full data alternate."""
    pot, _, g = _problem(N=40, d=5)
    with torch.no_grad():
        for C, n in ((7, 6), (7, 6), (3, 6), (3, 9), (3, None), (7, 6)):
            x = torch.randn(C, pot.dim, generator=g, dtype=D)
            idx = None if n is None else torch.randint(0, 40, (n,), generator=g)
            scale = 1.0 if n is None else 40 / n
            out = torch.randn(C, pot.dim, generator=g, dtype=D)
            kept = (pot.force(x, idx, scale), pot.add_force_(out.clone(), x, idx, scale, -0.3),
                    pot.diagnostics()["minibatch_loss"])  # fmt: skip
            with torch.enable_grad():
                leaf = x.clone().requires_grad_(True)
                fresh = (pot.force(leaf, idx, scale), pot.add_force_(out.clone(), leaf, idx, scale, -0.3),
                         pot.diagnostics()["minibatch_loss"])  # fmt: skip
            for a, b in zip(kept, fresh):
                assert torch.equal(a, b.detach())
            assert pot._scratch_key == (C, n)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_predictive_written_in_place_equals_the_formula(dtype):
    """predict / predict_into write sigmoid(x a_test^T) as (1 - p, p) without temporaries;
    the numbers are those of the formula, also when written into a strided float32 slot of
    the draw buffer from float64 chains."""
    g = torch.Generator().manual_seed(1)
    a, x_test = torch.randn(40, 5, generator=g, dtype=dtype), torch.randn(16, 5, generator=g, dtype=dtype)
    pot = L.LogisticRegression(a, (torch.rand(40, generator=g) < 0.5).long(), x_test=x_test)
    x = torch.randn(7, 5, generator=g, dtype=dtype)
    p = torch.sigmoid(x @ x_test.T)
    whole = torch.stack([1 - p, p], -1)
    got = pot.predict(x)
    assert got.dtype == dtype and torch.equal(got, whole)
    slot = torch.full((7, 2, 16, 2), -1.0)[:, 1]  # a strided slot of a [C, capacity, n, K] buffer
    pot.predict_into(x, slot)
    assert torch.equal(slot, whole.float())


def test_no_test_set_no_predictive():
    pot, x, _ = _problem()
    assert pot.predict(x) is None


def test_signed_rows_are_made_once_per_design_and_again_when_it_changes():
    """The signed rows b_i = (1 - 2 y_i) a_i of a kept design are reused by the next run's model,
    and made anew when the design or the labels are changed in place."""
    a = torch.randn(30, 4, dtype=D)
    y = (torch.rand(30) < 0.5).long()
    first = L.LogisticRegression(a, y).b
    assert L.LogisticRegression(a, y).b is first
    torch.testing.assert_close(first, a * (1 - 2 * y.to(D))[:, None])
    a.mul_(2.0)
    again = L.LogisticRegression(a, y).b
    assert again is not first
    torch.testing.assert_close(again, a * (1 - 2 * y.to(D))[:, None])
    y[0] = 1 - y[0]
    torch.testing.assert_close(L.LogisticRegression(a, y).b, a * (1 - 2 * y.to(D))[:, None])
