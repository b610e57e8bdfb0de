import numpy as np
import pytest
import torch

from bnnsample.analysis.spectral import power_iteration
from bnnsample.stats import gelman_rubin


def _symmetric(eigs, seed=0):
    q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((len(eigs), len(eigs))))
    return torch.as_tensor(q @ np.diag(eigs) @ q.T)


@pytest.mark.parametrize("eigs", [[10.0, 5.0, -3.0, 1.0, 0.5], [2.0, -8.0, 4.0, 0.1, 3.0]])
def test_power_iteration_finds_the_exact_spectral_norm_of_a_quadratic(eigs):
    """U(x) = x^T H x / 2 has Hessian H; its HVP is H u. The estimate converges to ||H||_2 =
    max |eig| (here also when the dominant eigenvalue is negative, with the Rayleigh quotient's
    sign telling which), and every iterate is a lower bound."""
    h = _symmetric(eigs)
    x = torch.ones(len(eigs), dtype=torch.float64, requires_grad=True)

    def hvp(u):  # through autograd, as the networks' HVPs are computed
        (g,) = torch.autograd.grad(0.5 * x @ h @ x, x, create_graph=True)
        return torch.autograd.grad(g @ u, x)[0]

    exact = float(np.linalg.norm(h.numpy(), 2))
    got = power_iteration(hvp, torch.ones(len(eigs), dtype=torch.float64), 80)
    assert got.norm == pytest.approx(exact, rel=1e-10)
    dominant = max(eigs, key=abs)
    assert got.rayleigh == pytest.approx(dominant, rel=1e-8)
    assert max(got.history) <= exact * (1 + 1e-12)
    assert got.last_change < 1e-10


def test_power_iteration_few_iterations_are_a_lower_bound_and_reject_bad_input():
    h = _symmetric([10.0, 9.0, 1.0])
    got = power_iteration(lambda u: h @ u, torch.tensor([1.0, 1.0, 1.0], dtype=torch.float64), 2)
    assert len(got.history) == 2 and got.norm < 10.0
    with pytest.raises(ValueError, match="iters"):
        power_iteration(lambda u: h @ u, torch.ones(3, dtype=torch.float64), 0)
    with pytest.raises(ValueError, match="nonzero"):
        power_iteration(lambda u: h @ u, torch.zeros(3, dtype=torch.float64), 3)


def test_gelman_rubin_by_hand_and_its_limits():
    # chains [1, 2, 3] and [3, 4, 5]: means 2, 4; W = 1; B = 3 * var([2, 4], ddof=1) = 6;
    # V = 2/3 * 1 + 6/3 = 8/3; R-hat = sqrt(8/3)
    assert gelman_rubin([[1, 2, 3], [3, 4, 5]]) == pytest.approx(np.sqrt(8 / 3), rel=1e-14)
    # identical chain means: R-hat = sqrt((L-1)/L)
    assert gelman_rubin([[1, 2, 3, 4], [4, 3, 2, 1]]) == pytest.approx(np.sqrt(3 / 4), rel=1e-14)
    rng = np.random.default_rng(1)
    assert gelman_rubin(rng.standard_normal((4, 20000))) == pytest.approx(1.0, abs=2e-3)
    assert gelman_rubin(rng.standard_normal((4, 500)) + np.arange(4)[:, None]) > 1.5
    with pytest.raises(ValueError, match="at least 2 chains"):
        gelman_rubin([[1.0, 2.0, 3.0]])


def test_gelman_rubin_is_arviz_identity_rhat():
    az = pytest.importorskip("arviz")
    x = np.random.default_rng(2).standard_normal((4, 30)) + np.array([0, 0.3, 0, 0.5])[:, None]
    assert gelman_rubin(x) == pytest.approx(float(az.rhat(x, method="identity")), rel=1e-12)


def test_gelman_rubin_null_quantile_matches_simulated_independent_chains():
    from bnnsample.stats import gelman_rubin_null_quantile

    rng = np.random.default_rng(3)
    sims = [gelman_rubin(rng.standard_normal((4, 5))) for _ in range(4000)]
    q = gelman_rubin_null_quantile(4, 5)
    assert np.mean(np.array(sims) <= q) == pytest.approx(0.95, abs=0.012)
    assert gelman_rubin_null_quantile(4, 100) < 1.04 < gelman_rubin_null_quantile(4, 4)


def test_gelman_rubin_split_sees_a_drift_the_unsplit_statistic_misses():
    """Split R-hat is the classic one of the half-chains (the middle value dropped at odd length), arviz's 'split'
    with the same (L-1)/L form; two chains drifting in opposite directions have equal whole-window means, so the
    unsplit R-hat stays near sqrt((L-1)/L) while the split one is large."""
    from bnnsample.stats import gelman_rubin_split

    x = np.random.default_rng(4).standard_normal((4, 31))
    halves = np.concatenate([x[:, :15], x[:, -15:]])
    assert gelman_rubin_split(x) == pytest.approx(gelman_rubin(halves), rel=1e-14)
    az = pytest.importorskip("arviz")
    assert gelman_rubin_split(x[:, :30]) == pytest.approx(float(az.rhat(x[:, :30], method="split")), rel=1e-12)
    t = np.linspace(-1, 1, 30)
    drift = np.array([t, -t, t[::-1], -t[::-1]]) + 0.05 * np.random.default_rng(5).standard_normal((4, 30))
    assert gelman_rubin(drift) < 1.05 < 2 < gelman_rubin_split(drift)
    with pytest.raises(ValueError, match="at least 4 values"):
        gelman_rubin_split([[1.0, 2.0, 3.0], [2.0, 3.0, 1.0]])
