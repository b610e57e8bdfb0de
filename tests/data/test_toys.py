"""The papers' toy data sets and their closed-form models (bnnsample/data/toys.py,
bnnsample/models/toys.py): constants, closed-form gradients against autograd, exact
posteriors against independent computations, and a 10-step run of every config."""

import math

import numpy as np
import pytest
import torch
from omegaconf import OmegaConf
from scipy import integrate, stats

from bnnsample.data import LOADERS
from bnnsample.models import build_potential
from bnnsample.plumbing.errors import UserError

from ..helpers import compose_cfg, run_inprocess

F64 = torch.float64
C = 3  # chains


def load(name, **kw):
    return LOADERS[name](OmegaConf.create({"name": name, **kw}))


def build(model, data, **kw):
    cfg = OmegaConf.create({**compose_cfg([f"model={model}"]).model, **kw})
    return build_potential(cfg, data, torch.device("cpu"), F64, seed=5)


def _point(pot, g):
    x = 0.6 * torch.randn(C, pot.dim, generator=g, dtype=F64)
    if pot.dim == 256:  # linear model: anywhere
        x = x * 2
    return x


# (dataset, model, extra model config): every closed-form model, on its own data and the other mixture
CASES = [
    ("trig_features", "linear_gaussian", {}),
    ("mixture_means", "mixture", {}),
    ("gmm3", "mixture", {}),
    ("gmm3", "gmm", {}),
    ("gmm3", "gmm", {"ordered": False}),
    ("mixture_means", "gmm", {}),
    ("franzese_toy", "gaussian_mean", {"prior_precision": 2.0}),
]


def _indices(pot, kind, g):
    N = pot.n_data
    n = min(7, N)
    if kind == "full":
        return None
    if kind == "shared":
        return torch.randperm(N, generator=g)[:n]
    return torch.stack([torch.randperm(N, generator=g)[:n] for _ in range(C)])


def _autograd_force(pot, x, idx, scale):
    xg = x.clone().requires_grad_(True)
    (g,) = torch.autograd.grad(pot.energy(xg, idx, scale).sum(), xg)
    return g


@pytest.mark.parametrize("kind", ["full", "shared", "per_chain"])
@pytest.mark.parametrize("dataset,model,extra", CASES, ids=[f"{d}-{m}{'-' + str(e) if e else ''}" for d, m, e in CASES])
def test_force_is_the_gradient_of_the_energy(dataset, model, extra, kind):
    """force == autograd of energy to 1e-10 (float64), per-datum gradients sum to the force
    minus the prior, each per-datum gradient is its own datum's, and hvp == autograd's."""
    pot = build(model, load(dataset), **extra)
    g = torch.Generator().manual_seed(1)
    x = _point(pot, g)
    idx = _indices(pot, kind, g)
    scale = 1.0 if idx is None else pot.n_data / idx.shape[-1]
    f = pot.force(x, idx, scale)
    assert f.shape == (C, pot.dim)
    torch.testing.assert_close(f, _autograd_force(pot, x, idx, scale), rtol=1e-10, atol=1e-10)
    # per-datum: sum identity, and datum by datum
    pdg = pot.per_datum_grads(x, idx)
    n = pot.n_data if idx is None else idx.shape[-1]
    assert pdg.shape == (C, n, pot.dim)
    prior = pot.force(x, idx, 0.0)
    torch.testing.assert_close(f - prior, scale * pdg.sum(1), rtol=1e-10, atol=1e-10)
    sel = torch.arange(pot.n_data)[:n] if idx is None else idx
    for j in (0, n - 1):
        one = sel[..., j : j + 1]
        torch.testing.assert_close(pdg[:, j], pot.force(x, one, 1.0) - pot.force(x, one, 0.0), rtol=1e-10, atol=1e-10)
    # Hessian-vector product against double backward of the energy
    u = torch.randn(C, pot.dim, generator=g, dtype=F64)
    xg = x.clone().requires_grad_(True)
    (gr,) = torch.autograd.grad(pot.energy(xg, idx, scale).sum(), xg, create_graph=True)
    (hu,) = torch.autograd.grad(gr, xg, grad_outputs=u)
    torch.testing.assert_close(pot.hvp(x, u, idx, scale), hu, rtol=1e-9, atol=1e-9)


def test_double_well_force_noise_and_moments():
    """matthews2018 Fig. 1: V = (x^2-1)^2/4; the force is V' + (1 - cos(1+5x)) xi with the
    model's own generator; exact variance 1.0417972965 by quadrature."""
    data = load("double_well", dim=2)
    pot = build("double_well", data)
    x = torch.tensor([[0.3, -1.2], [1.0, 0.0], [-0.7, 2.1]], dtype=F64)
    assert torch.allclose(pot.energy(x, None, 1.0), ((x**2 - 1) ** 2 / 4).sum(1), rtol=1e-15, atol=0)
    state = pot.state_dict()
    f = pot.force(x, None, 1.0)
    pot.load_state_dict(state)  # replay the same noise
    xi = torch.randn(x.shape, generator=pot.generator, dtype=F64)
    sigma = 1 - torch.cos(1 + 5 * x)
    torch.testing.assert_close(f, _autograd_force(pot, x, None, 1.0) + sigma * xi, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(pot.force_covariance(x, None, 1.0, 0.0).diagonal(), sigma**2)
    torch.testing.assert_close(pot.per_datum_grads(x, None)[:, 0], x**3 - x)
    u = torch.randn(3, 2, dtype=F64)
    torch.testing.assert_close(pot.hvp(x, u, None, 1.0), (3 * x**2 - 1) * u)
    # noise-free with sigma = 0: force == grad V exactly
    quiet = build("double_well", load("double_well", sigma=0.0, sigma_model="constant"))
    torch.testing.assert_close(
        quiet.force(x[:, :1], None, 1.0), _autograd_force(quiet, x[:, :1], None, 1.0), rtol=1e-12, atol=1e-12
    )
    # the exact variance (derived for this project)

    def w(t):
        return math.exp(-((t * t - 1) ** 2) / 4)

    z = integrate.quad(w, -np.inf, np.inf, epsabs=1e-14, epsrel=1e-13)[0]
    m2 = integrate.quad(lambda t: t * t * w(t), -np.inf, np.inf, epsabs=1e-14, epsrel=1e-13)[0] / z
    assert abs(m2 - 1.0417972965) < 1e-9
    mean, var = pot.exact_moments()
    assert mean.tolist() == [0.0, 0.0] and var.tolist() == [1.0417972965] * 2
    assert pot.exact_posterior() is None
    with pytest.raises(UserError, match="dataset=double_well"):
        build("double_well", load("mixture_means"))


@pytest.mark.parametrize("model,other", [("double_well", "noisy_gaussian"), ("noisy_gaussian", "double_well")])
def test_models_of_their_own_dataset_refuse_other_data_and_bad_settings(model, other):
    """double_well and noisy_gaussian take their settings from their own data set's extras."""
    assert build(model, load(model, dim=2)).dim == 2
    with pytest.raises(UserError, match=rf"^model={model} goes with dataset={model}, not dataset={other}$"):
        build(model, load(other))
    with pytest.raises(UserError, match=r"^dataset\.sigma_model=nope: allowed values: .*cosine"):
        build(model, load(model, sigma_model="nope"))


def test_franzese_toy_constants_and_posterior():
    """App. E: x = (4, -3.2), sigma_x^2 = 2, sigma_theta^2 = 0.5, posterior eq. 79:
    mean (x_1 + x_2)/v, v = sigma_x^2/sigma_theta^2 + 2 = 6; variance (1/0.5 + 2/2)^-1 = 1/3.
    The dataset config sets the model's prior precision 1/sigma_theta^2 = 2."""
    cfg = compose_cfg(["dataset=franzese_toy"])
    assert cfg.model.name == "gaussian_mean" and cfg.model.prior_precision == 2.0
    assert (cfg.step_size, cfg.friction, cfg.batch_size) == (0.4, 2.0, 1)
    data = load("franzese_toy")
    assert data.y_train[:, 0].tolist() == [4.0, -3.2]
    assert torch.allclose(data.extras["noise_sd"] ** 2, torch.tensor([2.0, 2.0], dtype=F64))
    pot = build_potential(cfg.model, data, torch.device("cpu"), F64)
    mean, cov = pot.exact_posterior()
    v = 2.0 / 0.5 + 2
    assert abs(float(mean[0]) - (4.0 - 3.2) / v) < 1e-15 and abs(float(mean[0]) - 2 / 15) < 1e-15
    assert abs(float(cov[0, 0]) - 1 / 3) < 1e-15
    # batches of one point, scale 2: the paper's rescaled grad U_i = sigma_l^-2 (theta - 2 x_i / v)
    th = torch.tensor([[0.7], [-1.1]], dtype=F64)
    for i, xi in enumerate((4.0, -3.2)):
        torch.testing.assert_close(
            pot.force(th, torch.tensor([i]), 2.0), 3.0 * (th - 2 * xi / v), rtol=1e-14, atol=1e-14
        )


@pytest.mark.parametrize("variant,n", [("chen", 1000), ("sekkat", 100)])
def test_gaussian_mean_variants(variant, n):
    """chen2015: 1,000 points; sekkat2023: 100 points; x_i ~ N(0, 1), prior N(0, 1):
    posterior N(sum x / (N + 1), 1 / (N + 1))."""
    cfg = compose_cfg(["dataset=gaussian_mean", f"dataset.variant={variant}"])
    assert cfg.model.name == "gaussian_mean" and cfg.model.prior_precision == 1.0
    data = LOADERS["gaussian_mean"](cfg.dataset)
    y = data.y_train[:, 0].numpy()
    assert y.shape == (n,) and abs(y.mean()) < 4 / math.sqrt(n) and abs(y.var() - 1) < 6 * math.sqrt(2 / n)
    mean, cov = build_potential(cfg.model, data, torch.device("cpu"), F64).exact_posterior()
    assert abs(float(mean[0]) - y.sum() / (n + 1)) < 1e-13
    assert abs(float(cov[0, 0]) - 1 / (n + 1)) < 1e-16
    assert torch.equal(LOADERS["gaussian_mean"](cfg.dataset).y_train, data.y_train)  # seeded
    with pytest.raises(UserError, match=r"dataset.variant=nope: allowed values: chen, sekkat"):
        load("gaussian_mean", variant="nope")


def test_trig_features_data_and_exact_posterior():
    """franzese2021 App. F.1: Phi_nj = sqrt(2/256) cos(omega_j x_n - pi/4), noise variance
    0.1, prior N(0, I); the model's posterior, predictive means and predictive variances
    against the function-space (Gaussian-process) form computed in numpy."""
    data = load("trig_features")
    assert data.task == "regression"
    X, Xt = data.x_train.numpy(), data.x_test.numpy()
    u, ut, om = (data.extras[k].numpy() for k in ("inputs_train", "inputs_test", "frequencies"))
    assert X.shape == (200, 256) and Xt.shape == (200, 256) and data.extras["noise_var"] == 0.1
    np.testing.assert_allclose(X, np.sqrt(2 / 256) * np.cos(np.outer(u, om) - np.pi / 4), rtol=0, atol=1e-14)
    assert u.min() >= -3 and u.max() <= 3 and np.allclose(ut, np.linspace(-4, 4, 200))
    resid = data.y_train.numpy() - np.sin(2 * u)
    assert abs(resid.var() - 0.1) < 0.04  # y = sin(2x) + N(0, 0.1)
    assert not torch.equal(load("trig_features", seed=1).extras["frequencies"], data.extras["frequencies"])

    pot = build("linear_gaussian", data)
    mean, cov = pot.exact_posterior()
    y, s2 = data.y_train.numpy(), 0.1
    K = X @ X.T + s2 * np.eye(200)  # prior N(0, I): Cov(y) = Phi Phi^T + s2 I
    A = np.linalg.solve(K, X)  # K^-1 Phi
    np.testing.assert_allclose(mean.numpy(), X.T @ np.linalg.solve(K, y), rtol=0, atol=1e-8)
    np.testing.assert_allclose(cov.numpy(), np.eye(256) - X.T @ A, rtol=0, atol=1e-8)
    pm, pv = pot.predictive_moments()
    Kst = Xt @ X.T
    np.testing.assert_allclose(pm.numpy(), Kst @ np.linalg.solve(K, y), rtol=0, atol=1e-8)
    np.testing.assert_allclose(
        pv.numpy(), (Xt * Xt).sum(1) - np.einsum("ij,ij->i", Kst, np.linalg.solve(K, Kst.T).T), rtol=0, atol=1e-8
    )
    w = torch.randn(C, 256, dtype=F64)
    pred = pot.predict(w)
    assert pred.shape == (C, 200, 1)
    torch.testing.assert_close(pred[..., 0], w @ data.x_test.T)
    # the posterior mean is where the full force vanishes
    torch.testing.assert_close(pot.force(mean[None], None, 1.0), torch.zeros(1, 256, dtype=F64), rtol=0, atol=1e-8)
    # model.noise_var overrides the data's; bad values and unsuited data give one line
    assert build("linear_gaussian", data, noise_var=0.5).noise_var == 0.5
    with pytest.raises(UserError, match=r"model.noise_var=-1.0: must be a number > 0"):
        build("linear_gaussian", data, noise_var=-1.0)
    with pytest.raises(UserError, match="model=linear_gaussian needs a regression data set"):
        build("linear_gaussian", load("gmm3"))


def test_linear_gaussian_exact_predictive_draws():
    """Exact draws of f(x_test) have the exact predictive mean and variance, and are seeded."""
    pot = build("linear_gaussian", load("trig_features"))
    draws = pot.exact_predictive_draws(4000, seed=0)
    assert draws.shape == (4000, 200)
    mean, var = (t.numpy() for t in pot.predictive_moments())
    z = (draws.mean(0) - mean) / np.sqrt(var / 4000)
    assert np.abs(z).max() < 5
    assert np.allclose(draws.var(0), var, rtol=0.15)
    assert np.array_equal(pot.exact_predictive_draws(10, seed=3), pot.exact_predictive_draws(10, seed=3))


def test_mixture_data_constants():
    """gmm3: matthews2018 1,024 points, equal weights, lambda = (10, 1, 2), mu = (-0.8, -0.2, 1);
    mixture_means: sekkat2023 200 points, w = 0.4, mu = (1, 0.5), sigma = 0.4."""
    g = load("gmm3")
    assert g.y_train.shape == (1024, 1)
    assert torch.allclose(g.extras["weights"], torch.full((3,), 1 / 3, dtype=F64))
    assert g.extras["true_means"].tolist() == [-0.8, -0.2, 1.0] and g.extras["true_precisions"].tolist() == [
        10.0,
        1.0,
        2.0,
    ]
    torch.testing.assert_close(g.extras["sds"], torch.tensor([10.0, 1.0, 2.0], dtype=F64) ** -0.5)
    y = g.y_train[:, 0].numpy()
    # mixture mean 0, variance mean(1/lam + mu^2) - 0 = (0.1+1+0.5 + 0.64+0.04+1)/3
    assert abs(y.mean()) < 4 * math.sqrt(1.0933 / 1024) and abs(y.var() - 3.28 / 3) < 0.15
    m = load("mixture_means")
    assert m.y_train.shape == (200, 1)
    assert m.extras["weights"].tolist() == [0.4, 0.6] and m.extras["true_means"].tolist() == [1.0, 0.5]
    assert m.extras["sds"].tolist() == [0.4, 0.4]
    assert abs(m.y_train.mean() - (0.4 * 1 + 0.6 * 0.5)) < 4 * math.sqrt((0.16 + 0.06) / 200)
    for name in ("linear_gaussian", "mixture", "gmm"):
        with pytest.raises(UserError, match=f"model={name} needs"):
            build(name, load("franzese_toy"))


def test_mixture_energy_is_the_papers_posterior():
    """sekkat2023 eq. 43 with prior N(0, I): energy == -log prior - sum log likelihood (scipy)."""
    data = load("mixture_means")
    pot = build("mixture", data)
    y = data.y_train[:, 0].numpy()
    x = torch.tensor([[1.0, 0.5], [0.3, 1.2]], dtype=F64)
    for row, e in zip(x.numpy(), pot.energy(x, None, 1.0).numpy()):
        lik = np.log(0.4 * stats.norm.pdf(y, row[0], 0.4) + 0.6 * stats.norm.pdf(y, row[1], 0.4)).sum()
        assert abs(e - (0.5 * (row**2).sum() - lik)) < 1e-9


def test_gmm_parameterisation_pushes_forward_to_matthews_posterior():
    """gmm: x -> (mu ordered, lam > 0); energy(x) = -log pi(mu, lam | y) - log|J(x)| + const
    with pi the paper's posterior (N(0, 100) means, Gamma(2, 1) precisions, ordered) computed
    by scipy, log|J| = sum_{k>=2} b_k + sum_k s_k; natural/unconstrained are inverse."""
    data = load("gmm3")
    y = data.y_train[:, 0].numpy()
    pot = build("gmm", data)
    g = torch.Generator().manual_seed(3)
    x = torch.randn(4, 6, generator=g, dtype=F64) * 0.5
    nat = pot.natural(x)
    mu, lam = nat[:, :3], nat[:, 3:]
    assert (mu[:, 1:] > mu[:, :-1]).all() and (lam > 0).all()
    torch.testing.assert_close(pot.unconstrained(mu, lam), x, rtol=1e-12, atol=1e-12)
    assert pot.natural(torch.zeros(1, 6, dtype=F64)).tolist() == [[0.0, 1.0, 2.0, 1.0, 1.0, 1.0]]
    diffs = []
    for xr, m, lm, e in zip(x.numpy(), mu.numpy(), lam.numpy(), pot.energy(x, None, 1.0).numpy()):
        logpost = (stats.norm.logpdf(m, 0, 10).sum() + stats.gamma.logpdf(lm, a=2, scale=1).sum()
                   + np.log((stats.norm.pdf(y[:, None], m, lm**-0.5) / 3).sum(1)).sum())  # fmt: skip
        logjac = xr[1:3].sum() + xr[3:].sum()
        diffs.append(e - (-logpost - logjac))
    assert np.ptp(diffs) < 1e-8, diffs
    unordered = build("gmm", data, ordered=False)
    torch.testing.assert_close(unordered.natural(x)[:, :3], x[:, :3])
    with pytest.raises(UserError, match=r"model.ordered=maybe: allowed values: true, false"):
        build("gmm", data, ordered="maybe")


SMOKE = [
    ("franzese_toy", None),
    ("trig_features", None),
    ("gaussian_mean", None),
    ("double_well", None),
    ("gmm3", None),
    ("mixture_means", None),
    ("gmm3", "mixture"),
    ("mixture_means", "gmm"),
]


@pytest.mark.parametrize("dataset,model", SMOKE)
def test_ten_step_run(tmp_path, dataset, model):
    """Every toy dataset config (with its own model, and the mixtures crossed) runs 10 steps
    through the whole pipeline and evaluation, with finite draws."""
    from bnnsample.evaluate.report import evaluate_run
    from bnnsample.store import SampleStore

    over = [f"dataset={dataset}", "chains=2", "unit=step", "burn_in=5", "samples=5", "init=zeros"]
    path, _cfg = run_inprocess(tmp_path, over + ([f"model={model}"] if model else []))
    with SampleStore(path) as s:
        theta = s.theta()
        assert theta.shape[:2] == (2, 5) and np.isfinite(theta).all() and not s.diverged().any()
    table = evaluate_run(tmp_path)
    assert int(table.query("metric == 'draws_per_chain'").value.iloc[0]) == 5
    if dataset in ("franzese_toy", "gaussian_mean"):
        post = table.query("group == 'theta[0]' and metric == 'posterior_var'").value.iloc[0]
        assert abs(post - {"franzese_toy": 1 / 3, "gaussian_mean": 1 / 1001}[dataset]) < 1e-12


def test_mixture_means_takes_the_fig2_parameters():
    """sekkat2023 Fig. 2: dataset.weight, means, sd and n_train draw N = 100 points from
    0.5 N(0.2, 0.4^2) + 0.5 N(1, 0.4^2); the defaults keep the §2.5.2 data set; bad values are refused."""
    m = load("mixture_means", weight=0.5, means=[0.2, 1.0], sd=0.4, n_train=100)
    assert m.y_train.shape == (100, 1)
    assert m.extras["weights"].tolist() == [0.5, 0.5] and m.extras["true_means"].tolist() == [0.2, 1.0]
    assert abs(m.y_train.mean() - 0.6) < 4 * math.sqrt((0.16 + 0.16) / 100)
    assert torch.equal(load("mixture_means").y_train, load("mixture_means", weight=0.4, means=[1.0, 0.5]).y_train)
    for bad in ({"weight": 1.5}, {"means": [1.0]}, {"sd": 0}):
        with pytest.raises(UserError, match=f"dataset.{next(iter(bad))}="):
            load("mixture_means", **bad)
