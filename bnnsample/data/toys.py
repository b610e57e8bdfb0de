"""The papers' synthetic toy data sets (exact constants from the papers; choices the papers
leave open are marked DECISION and configurable in conf/dataset/<name>.yaml).

    franzese_toy    franzese2021 App. E: 2 points, Gaussian mean          (model gaussian_mean)
    trig_features   franzese2021 App. F.1: 256 random trigonometric features (model linear_gaussian)
    gaussian_mean   chen2015 §5 (1,000 points) | sekkat2023 §2.5.1 (100)  (model gaussian_mean)
    double_well     matthews2018 Fig. 1: V = (x^2 - 1)^2 / 4, noisy force (model double_well)
    gmm3            matthews2018 Fig. 2: 1,024 points, 3 components      (model gmm)
    mixture_means   sekkat2023 §2.5.2: 200 points, 2 unknown means       (model mixture)

Every random data set is drawn from a torch generator seeded with ``dataset.seed`` (0).
"""

from __future__ import annotations

import math

import torch

from ..plumbing.errors import UserError
from . import register
from .base import Data

F64 = torch.float64


def _gen(cfg) -> torch.Generator:
    return torch.Generator().manual_seed(int(cfg.get("seed", 0)))


def _positive_int(cfg, key, default, low=1) -> int:
    val = cfg.get(key, default)
    if not isinstance(val, int) or isinstance(val, bool) or val < low:
        raise UserError(f"dataset.{key}={val}: must be an integer >= {low}")
    return val


def _positive(cfg, key, default) -> float:
    val = cfg.get(key, default)
    if isinstance(val, bool) or not isinstance(val, (int, float)) or not val > 0:
        raise UserError(f"dataset.{key}={val}: must be a number > 0")
    return float(val)


# -- franzese2021 App. E ---------------------------------------------------------------------
@register("franzese_toy")
def franzese_toy(cfg) -> Data:
    """franzese2021 App. E (Vollmer-style toy): x_i ~ N(theta, sigma_x^2), x = (4, -3.2),
    sigma_x^2 = 2, prior theta ~ N(0, sigma_theta^2 = 0.5) (model gaussian_mean with
    prior_precision = 1 / sigma_theta^2 = 2, set by conf/dataset/franzese_toy.yaml).

    Posterior N((x_1 + x_2) / v, sigma_l^2), v = sigma_x^2 / sigma_theta^2 + 2 = 6,
    sigma_l^2 = (1/sigma_theta^2 + 2/sigma_x^2)^-1 = 1/3: N(0.1333..., 0.3333...).
    With batches of one point and scale N/n = 2 the force is the paper's rescaled
    grad U_i = sigma_l^-2 (theta - 2 x_i / v) (eqs. 83-84): the prior's gradient is the same
    whichever way it is split between the two batches."""
    x = torch.tensor([[4.0], [-3.2]], dtype=F64)
    sigma_x2, sigma_theta2 = 2.0, 0.5
    return Data(
        name="franzese_toy",
        task="density",
        y_train=x,
        extras={"noise_sd": torch.full((2,), math.sqrt(sigma_x2), dtype=F64), "prior_var": sigma_theta2},
        description="franzese2021 App. E: x=(4,-3.2), sigma_x^2=2, prior N(0,0.5); posterior N(2/15, 1/3)",
    )


# -- franzese2021 App. F.1 ---------------------------------------------------------------------
@register("trig_features")
def trig_features(cfg) -> Data:
    """franzese2021 App. F.1, "random trigonometric features (256)": the linear model
    f(x) = sqrt(2/D) w^T cos(omega x - pi/4), D = 256, likelihood N(y; f(x), 0.1), prior
    w ~ N(0, I_D), omega a fixed vector of frequencies; test set 200 points. x_train / x_test
    hold the feature matrices Phi [N, D] (Phi_nj = sqrt(2/D) cos(omega_j x_n - pi/4)); the
    1-D inputs and the frequencies are in extras. Targets are ``y`` [N] (float64).

    DECISIONS (the paper leaves them open): omega_j ~ N(0, 1 / lengthscale^2) with
    lengthscale 0.5; n_train = 200 inputs x ~ U[-3, 3]; y = sin(2x) + N(0, 0.1) noise (the
    model's own noise variance); test inputs: 200 evenly spaced points on [-4, 4] (so the
    predictive widens outside the data), test targets drawn the same way as y."""
    D = _positive_int(cfg, "n_features", 256)
    n_train = _positive_int(cfg, "n_train", 200, low=2)
    n_test = _positive_int(cfg, "n_test", 200)
    noise_var = _positive(cfg, "noise_var", 0.1)
    ell = _positive(cfg, "lengthscale", 0.5)
    lo, hi = (float(v) for v in cfg.get("train_range", [-3.0, 3.0]))
    tlo, thi = (float(v) for v in cfg.get("test_range", [-4.0, 4.0]))
    if not (hi > lo and thi > tlo):
        raise UserError("dataset.train_range / dataset.test_range: must be [low, high] with high > low")
    g = _gen(cfg)
    omega = torch.randn(D, generator=g, dtype=F64) / ell
    u_train = lo + (hi - lo) * torch.rand(n_train, generator=g, dtype=F64)
    u_test = torch.linspace(tlo, thi, n_test, dtype=F64)

    def truth(u):
        return torch.sin(2 * u) + math.sqrt(noise_var) * torch.randn(u.shape, generator=g, dtype=F64)

    y_train, y_test = truth(u_train), truth(u_test)
    return Data(
        name="trig_features",
        task="regression",
        x_train=trig_design(u_train, omega),
        y_train=y_train,
        x_test=trig_design(u_test, omega),
        y_test=y_test,
        extras={
            "noise_var": noise_var,
            "prior_var": 1.0,
            "frequencies": omega,
            "inputs_train": u_train,
            "inputs_test": u_test,
        },
        description=f"franzese2021 random trigonometric features: D={D}, noise variance {noise_var}, "
        f"{n_train} train / {n_test} test points",
    )


def trig_design(u: torch.Tensor, omega: torch.Tensor) -> torch.Tensor:
    """Phi [N, D] with Phi_nj = sqrt(2/D) cos(omega_j u_n - pi/4)."""
    return math.sqrt(2.0 / omega.shape[0]) * torch.cos(u[:, None] * omega[None, :] - math.pi / 4)


# -- chen2015 §5 / sekkat2023 §2.5.1 -----------------------------------------------------------
GAUSSIAN_MEAN_VARIANTS = {"chen": 1000, "sekkat": 100}


@register("gaussian_mean")
def gaussian_mean(cfg) -> Data:
    """1-D Gaussian mean, x_i ~ N(theta_0, 1), prior theta ~ N(0, 1) (model gaussian_mean with
    prior_precision 1, set by conf/dataset/gaussian_mean.yaml):

        variant chen    chen2015 §5: N = 1,000 (minibatch 10); posterior variance 1/1001
        variant sekkat  sekkat2023 §2.5.1: N = 100; posterior variance 1/101

    DECISION: theta_0 = 0 for both (sekkat states it; chen does not), ``dataset.true_mean``."""
    variant = cfg.get("variant", "chen")
    if variant not in GAUSSIAN_MEAN_VARIANTS:
        raise UserError(f"dataset.variant={variant}: allowed values: {', '.join(GAUSSIAN_MEAN_VARIANTS)}")
    n = GAUSSIAN_MEAN_VARIANTS[variant]
    theta0 = float(cfg.get("true_mean", 0.0))
    y = theta0 + torch.randn(n, 1, generator=_gen(cfg), dtype=F64)
    return Data(
        name="gaussian_mean",
        task="density",
        y_train=y,
        extras={"noise_sd": torch.ones(n, dtype=F64), "prior_var": 1.0, "true_mean": theta0, "variant": variant},
        description=f"{variant} 1-D Gaussian mean: {n} points from N({theta0:g}, 1), prior N(0, 1)",
    )


# -- matthews2018 Fig. 1 ---------------------------------------------------------------------
# E[x^2] under exp(-(x^2 - 1)^2 / 4), matthews2018 §5.1 (quadrature, derived for this project)
DOUBLE_WELL_VARIANCE = 1.0417972965


@register("double_well")
def double_well(cfg) -> Data:
    """matthews2018 §5.1 (Fig. 1): target exp(-V) with V(x) = (x^2 - 1)^2 / 4 per coordinate,
    seen only through F(x) + sigma(x) xi, sigma(x) = 1 - cos(1 + 5x) (sigma_model cosine,
    sigma = 1). Exact mean 0, variance 1.0417972965. No data points; settings in extras."""
    dim = _positive_int(cfg, "dim", 1)
    return Data(
        name="double_well",
        task="density",
        y_train=torch.zeros(1, dim, dtype=F64),
        extras={
            "dim": dim,
            "sigma": float(cfg.get("sigma", 1.0)),
            "sigma_model": cfg.get("sigma_model", "cosine"),
            "exact_mean": 0.0,
            "exact_variance": DOUBLE_WELL_VARIANCE,
        },
        description="matthews2018 double well V=(x^2-1)^2/4 with gradient-noise std 1-cos(1+5x); Var = 1.0417972965",
    )


# -- mixtures --------------------------------------------------------------------------------
def _mixture_draw(g, n, weights, means, sds) -> torch.Tensor:
    comp = torch.multinomial(torch.tensor(weights, dtype=F64), n, replacement=True, generator=g)
    z = torch.randn(n, generator=g, dtype=F64)
    return torch.tensor(means, dtype=F64)[comp] + torch.tensor(sds, dtype=F64)[comp] * z


def _mixture_data(name, y, weights, means, sds, description, **extra) -> Data:
    return Data(
        name=name,
        task="density",
        y_train=y[:, None],
        extras={
            "weights": torch.tensor(weights, dtype=F64),
            "true_means": torch.tensor(means, dtype=F64),
            "sds": torch.tensor(sds, dtype=F64),
            **extra,
        },
        description=description,
    )


@register("gmm3")
def gmm3(cfg) -> Data:
    """matthews2018 §5.2 (Fig. 2): N = 1,024 points from the equal-weight mixture with
    precisions lambda = (10, 1, 2) and means mu = (-0.8, -0.2, 1). Model gmm: unknown
    (mu, lambda), prior N(mu_i | 0, 100) Gamma(lambda_i | 2, 1), ordered means.
    DECISION: the data realization (the paper's is unseeded) is dataset.seed = 0."""
    n = _positive_int(cfg, "n_train", 1024, low=2)
    lam = (10.0, 1.0, 2.0)
    means, sds = (-0.8, -0.2, 1.0), tuple(1 / math.sqrt(v) for v in lam)
    weights = (1 / 3, 1 / 3, 1 / 3)
    y = _mixture_draw(_gen(cfg), n, weights, means, sds)
    return _mixture_data("gmm3", y, weights, means, sds,
                         f"matthews2018 3-component 1-D Gaussian mixture, {n} points, lambda=(10,1,2), mu=(-0.8,-0.2,1)",
                         true_precisions=torch.tensor(lam, dtype=F64))  # fmt: skip


@register("mixture_means")
def mixture_means(cfg) -> Data:
    """sekkat2023 §2.5.2 (eq. 43): N = 200 points from w N(mu_1, sigma^2) + (1 - w) N(mu_2, sigma^2),
    w = 0.4, mu = (1, 0.5), sigma_1 = sigma_2 = 0.4; model mixture: unknown means, known w and
    sigma, prior N(0, I_2). ``dataset.weight``, ``dataset.means`` and ``dataset.sd`` set w, (mu_1, mu_2)
    and sigma (Fig. 2 of the paper: w = 0.5, mu = (0.2, 1), N = 100). DECISION: the data realization
    (unseeded in the paper) is dataset.seed = 0."""
    n = _positive_int(cfg, "n_train", 200, low=2)
    w = float(cfg.get("weight", 0.4))
    if not 0 < w < 1:
        raise UserError(f"dataset.weight={w}: must be a number in (0, 1)")
    mu = cfg.get("means", (1.0, 0.5))
    if len(mu) != 2 or any(isinstance(m, bool) or not isinstance(m, (int, float)) for m in mu):
        raise UserError(f"dataset.means={list(mu)}: must be two numbers")
    sd = _positive(cfg, "sd", 0.4)
    weights, means, sds = (w, 1 - w), (float(mu[0]), float(mu[1])), (sd, sd)
    y = _mixture_draw(_gen(cfg), n, weights, means, sds)
    return _mixture_data("mixture_means", y, weights, means, sds,
                         f"sekkat2023 2-component mixture, {n} points, w={w:g}, mu=({means[0]:g},{means[1]:g}), "
                         f"sigma={sd:g}; means unknown")  # fmt: skip
