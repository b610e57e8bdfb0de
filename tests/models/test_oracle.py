"""The gradient oracle: covariance factor epsilon(n), the covariance estimate Sigma-hat, the
without-replacement identity behind SMS (paulin2025 Lemma 10), Hessian-vector products and the
noisy synthetic target. Exact answers come from enumerating every minibatch of small targets."""

import itertools
import math

import numpy as np
import pytest
import torch

from bnnsample.batching import Schedule
from bnnsample.models.analytic import GaussianMean, NoisyGradientGaussian
from bnnsample.potential import GradientCovariance, Oracle, covariance_factor

Y = torch.tensor([[-1.0, 0.3], [0.5, 2.0], [2.0, -0.7], [0.1, 0.4], [-0.6, 1.1]], dtype=torch.float64)
SD = torch.tensor([0.5, 1.0, 2.0, 0.8, 1.3], dtype=torch.float64)
X = torch.tensor([[0.2, -0.4]], dtype=torch.float64)


def target():
    return GaussianMean(Y, SD, prior_precision=0.5, prior_mean=0.1)


def per_datum_np(x):
    """grad U_i(x) = (x - y_i) / s_i^2, written out independently of the model."""
    return (x.numpy()[0][None, :] - Y.numpy()) / SD.numpy()[:, None] ** 2


def exact_estimator_cov(batches, scale, x):
    """Covariance of the force estimate over equally likely batches (the prior term is constant)."""
    g = per_datum_np(x)
    ests = np.array([scale * g[list(b)].sum(0) for b in batches])
    return np.cov(ests.T, bias=True), ests.mean(0)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_epsilon_matches_the_exact_covariance_of_the_estimator(n):
    """Cov(G) = epsilon(n) Sigma_x with Sigma_x normalised by N - 1 (sekkat2023 eqs. 11-13), for
    batches drawn with replacement (ordered tuples) and without (subsets)."""
    N = len(Y)
    g = per_datum_np(X)
    sigma_x = np.cov(g.T, ddof=1)
    full = g.sum(0)
    wr, mean_wr = exact_estimator_cov(list(itertools.product(range(N), repeat=n)), N / n, X)
    wor, mean_wor = exact_estimator_cov(list(itertools.combinations(range(N), n)), N / n, X)
    np.testing.assert_allclose(mean_wr, full, rtol=1e-12)
    np.testing.assert_allclose(mean_wor, full, rtol=1e-12)
    eps_wr = covariance_factor(n, N, with_replacement=True)
    eps_wor = covariance_factor(n, N, with_replacement=False)
    assert eps_wr == pytest.approx(N * (N - 1) / n) and eps_wor == pytest.approx(N * (N - n) / n)
    np.testing.assert_allclose(wr, eps_wr * sigma_x, rtol=1e-10)
    np.testing.assert_allclose(wor, eps_wor * sigma_x, rtol=1e-10)
    if n > 1:  # the two formulas are distinguishable
        assert not np.allclose(wr, eps_wor * sigma_x, rtol=1e-3)


def test_schedule_epsilon_follows_the_sampling_kind():
    gen = torch.Generator().manual_seed(0)
    eps = {k: Schedule(k, 10, 2, generator=gen).eps for k in ("full", "iid", "iid_wor", "reshuffle", "sms")}
    assert eps == {"full": 0.0, "iid": 10 * 9 / 2, "iid_wor": 10 * 8 / 2, "reshuffle": 10 * 8 / 2, "sms": 10 * 8 / 2}


def test_covariance_estimate_is_eps_times_the_batch_sample_covariance_and_unbiased_without_replacement():
    pot, N, n = target(), len(Y), 3
    eps = covariance_factor(n, N, with_replacement=False)
    g = per_datum_np(X)
    total = np.zeros((2, 2))
    subsets = list(itertools.combinations(range(N), n))
    for b in subsets:
        cov = Oracle(pot, torch.tensor(b), N / n, eps).covariance(X)
        expect = eps * np.cov(g[list(b)].T, ddof=1)
        np.testing.assert_allclose(cov.to_dense()[0].numpy(), expect, rtol=1e-12, atol=1e-14)
        total += cov.to_dense()[0].numpy()
    # simple random sampling without replacement: E[sample covariance] = Sigma_x exactly
    np.testing.assert_allclose(total / len(subsets), eps * np.cov(g.T, ddof=1), rtol=1e-12)

    # with replacement the same estimator is low by (N - 1)/N (documented in force_covariance)
    eps_wr = covariance_factor(n, N, with_replacement=True)
    tuples = list(itertools.product(range(N), repeat=n))
    mean_wr = sum(Oracle(pot, torch.tensor(b), N / n, eps_wr).covariance(X).to_dense()[0].numpy() for b in tuples)
    np.testing.assert_allclose(mean_wr / len(tuples), (N - 1) / N * eps_wr * np.cov(g.T, ddof=1), rtol=1e-12)


def test_covariance_per_chain_batches_and_full_batch():
    pot = target()
    x = torch.cat([X, X + 1.0])
    idx = torch.tensor([[0, 1], [2, 4]])
    cov = pot.force_covariance(x, idx, 2.5, 7.0)
    for c in range(2):
        g = per_datum_np(x[c : c + 1])[idx[c].numpy()]
        np.testing.assert_allclose(cov.to_dense()[c].numpy(), 7.0 * np.cov(g.T, ddof=1), rtol=1e-12)
    assert torch.equal(pot.force_covariance(x, None, 1.0, 0.0).to_dense(), torch.zeros(2, 2, 2, dtype=x.dtype))
    with pytest.raises(ValueError, match="batch_size >= 2"):
        pot.force_covariance(x, torch.tensor([3]), 5.0, 20.0)


def test_gradient_covariance_forms_agree():
    gen = torch.Generator().manual_seed(1)
    B = torch.randn(3, 4, 5, generator=gen, dtype=torch.float64)
    u = torch.randn(3, 5, generator=gen, dtype=torch.float64)
    dense = B.transpose(1, 2) @ B
    for cov in (GradientCovariance(factor=B), GradientCovariance(dense=dense)):
        torch.testing.assert_close(cov.to_dense(), dense)
        torch.testing.assert_close(cov.diagonal(), torch.diagonal(dense, dim1=1, dim2=2))
        torch.testing.assert_close(cov.matvec(u), (dense @ u[..., None])[..., 0])
    diag = GradientCovariance(diag=u.abs())
    torch.testing.assert_close(diag.to_dense(), torch.diag_embed(u.abs()))
    torch.testing.assert_close(diag.matvec(u), u.abs() * u)


def test_per_datum_gradients_sum_to_the_minibatch_force():
    pot = target()
    idx = torch.tensor([0, 3, 4])
    g = pot.per_datum_grads(X, idx)
    assert g.shape == (1, 3, 2)
    np.testing.assert_allclose(g[0].numpy(), per_datum_np(X)[[0, 3, 4]], rtol=1e-12)
    prior = 0.5 * (X - 0.1)
    torch.testing.assert_close(pot.force(X, idx, 5 / 3), prior + 5 / 3 * g.sum(1))


def test_hessian_vector_product_matches_finite_differences():
    pot = target()
    u = torch.tensor([[0.7, -1.3]], dtype=torch.float64)
    for idx, scale in ((torch.tensor([1, 2]), 2.5), (None, 1.0), (torch.tensor([[0, 4]]), 2.5)):
        fd = (pot.force(X + 1e-3 * u, idx, scale) - pot.force(X - 1e-3 * u, idx, scale)) / 2e-3
        torch.testing.assert_close(Oracle(pot, idx, scale).hvp(X, u), fd, rtol=1e-9, atol=1e-9)


def _noise_sums(n_m: int, eta: np.ndarray, orders):
    """sum_{i <= k} eta_{j_i} for every k, for each batch order."""
    return np.array([np.cumsum(eta[list(o)], axis=0) for o in orders])  # [orders, N_m, d]


def test_lemma_10_without_replacement_noise_identity():
    """paulin2025 Lemma 10: for the minibatch noises eta_j = G(x, S_j) - grad U(x) of a fixed
    partition, E||sum of the first k noises of a random order||^2 = k (N_m - k)/(N_m - 1) sigma^2,
    zero after a full sweep. Checked by enumeration, and on the real reshuffle schedule."""
    n_m, n = 5, 1
    pot = target()
    full = pot.force(X, None, 1.0)[0].numpy()
    eta = np.array([pot.force(X, torch.tensor([j]), n_m / n)[0].numpy() - full for j in range(n_m)])
    sigma2 = (eta**2).sum(1).mean()
    formula = np.array([k * (n_m - k) / (n_m - 1) * sigma2 for k in range(1, n_m + 1)])
    sums = _noise_sums(n_m, eta, itertools.permutations(range(n_m)))
    exact = (sums**2).sum(2).mean(0)
    np.testing.assert_allclose(exact, formula, rtol=1e-12, atol=1e-10)
    assert not np.allclose(exact, np.arange(1, n_m + 1) * sigma2)  # the with-replacement value k sigma^2

    # the schedule's epochs realise it: Monte Carlo over many epochs of the real schedule
    sched = Schedule("reshuffle", n_m, n, generator=torch.Generator().manual_seed(3))
    epochs = 4000
    orders = [[int(sched._fixed.tolist().index(sched.next().tolist())) for _ in range(n_m)] for _ in range(epochs)]
    sq = (_noise_sums(n_m, eta, orders) ** 2).sum(2)  # [epochs, N_m]
    mean, se = sq.mean(0), sq.std(0, ddof=1) / math.sqrt(epochs)
    assert np.all(np.abs(mean[:-1] - formula[:-1]) < 4 * se[:-1]), (mean, formula, se)
    assert np.allclose(sq[:, -1], 0, atol=1e-9)
    assert np.any(np.abs(mean[1:-1] - np.arange(2, n_m) * sigma2) > 8 * se[1:-1])  # power


def test_noisy_gradient_target_has_the_stated_noise_and_resumes():
    pot = NoisyGradientGaussian(dim=1, sigma_model="cosine", seed=5)
    x = torch.full((200_000, 1), 0.3, dtype=torch.float64)
    g = pot.force(x, None, 1.0)
    sd = 1 - math.cos(1 + 1.5)
    assert abs(g.mean().item() - 0.3) < 4 * sd / math.sqrt(len(x))
    assert abs(g.var().item() / sd**2 - 1) < 4 * math.sqrt(2 / len(x))
    torch.testing.assert_close(pot.force_covariance(x[:1], None, 1.0, 0.0).to_dense()[0, 0, 0].item(), sd**2)
    state = {k: v.clone() for k, v in pot.state_dict().items()}
    a = pot.force(x[:3], None, 1.0)
    pot.load_state_dict(state)
    torch.testing.assert_close(pot.force(x[:3], None, 1.0), a)
    with pytest.raises(ValueError, match="sigma_model"):
        NoisyGradientGaussian(dim=1, sigma_model="quadratic")
