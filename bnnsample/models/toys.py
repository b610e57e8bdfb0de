"""Closed-form targets of the papers' toy experiments, batched over chains (no autograd in
``force`` or ``per_datum_grads``):

    linear_gaussian  Bayesian linear regression, known noise variance (franzese2021 trig features)
    double_well      matthews2018 Fig. 1 double well with state-dependent gradient noise
    mixture          1-D Gaussian mixture, unknown means, known weights and sds (sekkat2023 §2.5.2)
    gmm              1-D Gaussian mixture, unknown means and precisions (matthews2018 §5.2)

Conventions (bnnsample.potential): x [C, d]; idx [n] (shared), [C, n] (per chain) or None
(all data); force = grad U_0 + scale * sum_{i in idx} grad U_i, energy likewise. Every energy
is the full negative log density (normalising constants of the likelihood included, those of
the prior dropped); only differences matter to the samplers.
"""

from __future__ import annotations

import math

import torch

from ..gather import take_rows
from ..plumbing.errors import UserError, positive_number
from ..potential import Potential
from . import register
from .analytic import NoisyGradientGaussian, from_own_dataset
from .batched import rows_dot

LOG_2PI = math.log(2 * math.pi)


def _gather(table: torch.Tensor, idx: torch.Tensor | None) -> torch.Tensor:
    """Rows of ``table`` [N, ...] for idx: [N, ...] (None), [n, ...] or [C, n, ...]."""
    return table if idx is None else take_rows(table, idx)


class _AutogradHvp:
    """Hessian-vector products by differentiating the closed-form force once more (reverse
    mode; the Hessian is symmetric). Only for schemes that ask for hvp (e.g. MT3)."""

    def hvp(self, x, u, idx, scale):
        with torch.enable_grad():
            xg = x.detach().requires_grad_(True)
            f = self.force(xg, idx, scale)
            (h,) = torch.autograd.grad(f, xg, grad_outputs=u)
        return h.detach()


# -- Bayesian linear regression ----------------------------------------------------------------
class LinearGaussian(Potential):
    """Bayesian linear regression with known noise variance s2 and prior w ~ N(0, I / lam0):

        U_0(w) = (lam0 / 2) ||w||^2,      U_i(w) = (y_i - phi_i . w)^2 / (2 s2) + log(2 pi s2) / 2
        grad U_i(w) = phi_i (phi_i . w - y_i) / s2
        Hessian of the estimate: lam0 I + (scale / s2) Phi_S^T Phi_S

    Posterior N(mu, Sigma): Sigma = (lam0 I + Phi^T Phi / s2)^-1, mu = Sigma Phi^T y / s2
    (franzese2021 App. F.1 with lam0 = 1, s2 = 0.1; ``noise_var`` = s2). ``predict`` gives
    the regression means per chain in ORIGINAL target units, (Phi_test w) y_std + y_mean
    [C, n_test, 1] (y_mean, y_std: the standardisation of y_train, 0 and 1 for
    trig_features; the UCI loaders keep theirs in extras). The full-data force uses the precomputed
    Phi^T Phi and Phi^T y (O(C d^2)); minibatches cost O(C n d).
    """

    closed_form = True
    accumulates = True
    task = "regression"

    def __init__(self, phi: torch.Tensor, y: torch.Tensor, noise_var: float, prior_precision: float = 1.0,
                 phi_test: torch.Tensor | None = None, y_mean: float = 0.0, y_std: float = 1.0):  # fmt: skip
        if not noise_var > 0:
            raise ValueError(f"noise_var={noise_var}: must be > 0")
        self.phi, self.y = phi, y.reshape(-1)
        self.n_data, self.dim = phi.shape
        self.noise_var, self.lam0 = float(noise_var), float(prior_precision)
        self.phi_test = phi_test
        self.y_mean, self.y_std = float(y_mean), float(y_std)
        self.gram = phi.T @ phi / self.noise_var  # [d, d]
        self.rhs = phi.T @ self.y / self.noise_var  # [d]

    def _residual(self, x, idx):
        """(Phi_S [n, d] | [C, n, d], r = Phi_S w - y_S [C, n])."""
        phi, y = _gather(self.phi, idx), _gather(self.y, idx)
        if phi.dim() == 2:
            return phi, x @ phi.T - y
        return phi, rows_dot(phi, x) - y

    def force(self, x, idx, scale):
        if idx is None:
            f = (x @ self.gram - self.rhs) * scale
        else:
            phi, r = self._residual(x, idx)
            f = (r @ phi if phi.dim() == 2 else torch.bmm(r[:, None, :], phi)[:, 0]) * (scale / self.noise_var)
        return f.add_(x, alpha=self.lam0) if self.lam0 else f

    def add_force_(self, out, x, idx, scale, alpha):
        """out + alpha G(x, S), the products accumulating into out (``Potential.accumulates``)."""
        if idx is None:
            out.addmm_(x, self.gram, alpha=alpha * scale).sub_(self.rhs, alpha=alpha * scale)
        elif idx.dim() == 2:
            return out.add_(self.force(x, idx, scale), alpha=alpha)
        else:
            phi, r = self._residual(x, idx)
            out.addmm_(r, phi, alpha=alpha * scale / self.noise_var)
        return out.add_(x, alpha=alpha * self.lam0) if self.lam0 else out

    def per_datum_grads(self, x, idx):
        phi, r = self._residual(x, idx)
        return (r / self.noise_var)[..., None] * phi

    def hvp(self, x, u, idx, scale):
        if idx is None:
            h = (u @ self.gram) * scale
        else:
            phi = _gather(self.phi, idx)
            h = (u @ phi.T) @ phi if phi.dim() == 2 else torch.bmm(rows_dot(phi, u)[:, None, :], phi)[:, 0]
            h = h * (scale / self.noise_var)
        return h.add_(u, alpha=self.lam0) if self.lam0 else h

    def energy(self, x, idx, scale):
        _, r = self._residual(x, idx)
        n = r.shape[-1]
        u = scale * (0.5 * (r**2).sum(-1) / self.noise_var + 0.5 * n * math.log(2 * math.pi * self.noise_var))
        return u + 0.5 * self.lam0 * (x**2).sum(1) if self.lam0 else u

    def predict(self, x):
        return None if self.phi_test is None else (x @ self.phi_test.T)[..., None] * self.y_std + self.y_mean

    def exact_posterior(self):
        prec = self.gram + self.lam0 * torch.eye(self.dim, dtype=self.gram.dtype, device=self.gram.device)
        chol = torch.linalg.cholesky(prec)
        cov = torch.cholesky_inverse(chol)
        return cov @ self.rhs, cov

    def predictive_moments(self):
        """Exact predictive mean and variance of f(x_test) (noise-free, standardised units), [n_test] each."""
        mean, cov = self.exact_posterior()
        return self.phi_test @ mean, ((self.phi_test @ cov) * self.phi_test).sum(1)

    def exact_predictive_draws(self, n: int, seed: int):
        """n exact draws of f(x_test) (noise-free, standardised units) as a numpy array [n, n_test]:
        w ~ N(mu, Sigma) from numpy's generator ``seed`` (Cholesky), then Phi_test w (the exact
        samples of franzese2021 §5, Fig. 1 and App. F.2)."""
        import numpy as np

        mean, cov = (t.numpy() for t in self.exact_posterior())
        rng = np.random.default_rng(seed)
        w = rng.multivariate_normal(mean, cov, size=n, method="cholesky")
        return w @ self.phi_test.numpy().T


# -- matthews2018 double well -------------------------------------------------------------------
class DoubleWell(NoisyGradientGaussian):
    """matthews2018 §5.1, second potential: V(x) = sum_j (x_j^2 - 1)^2 / 4 (independent 1-D
    double wells), seen through the noisy force

        G(x) = V'(x) + sigma(x) xi,   V'(x) = x^3 - x,   xi ~ N(0, I)

    with sigma(x) = c (1 - cos(1 + 5x)) (sigma_model cosine, c = 1, Fig. 1) or c. Reuses the
    Gaussian toy's noise model, exact Sigma(x) = diag(sigma(x)^2), its generator and resume
    state. No data: batching must be full. Exact mean 0, variance 1.0417972965 per
    coordinate (``exact_moments``); the target is not Gaussian (no ``exact_posterior``).
    per_datum_grads gives the noise-free V'(x) as the single term (U_0 = 0)."""

    def __init__(self, dim: int, sigma: float = 1.0, sigma_model: str = "cosine", seed: int = 0, device="cpu",
                 exact_variance: float | None = None):  # fmt: skip
        super().__init__(dim, 0.0, sigma, sigma_model, seed=seed, device=device)
        self.exact_variance = exact_variance

    @staticmethod
    def grad_v(x):
        return x * (x * x - 1)

    def force(self, x, idx, scale):
        xi = torch.randn(x.shape, generator=self.generator, device=x.device, dtype=x.dtype)
        return torch.addcmul(self.grad_v(x), self.sigma(x), xi)

    def per_datum_grads(self, x, idx):
        return self.grad_v(x)[:, None, :]

    def hvp(self, x, u, idx, scale):
        return (3 * x * x - 1) * u

    def energy(self, x, idx, scale):
        return ((x * x - 1) ** 2).sum(1) / 4

    def exact_posterior(self):
        return None

    def exact_moments(self):
        """(mean [d], variance [d]) of the target per coordinate."""
        if self.exact_variance is None:
            return None
        return torch.zeros(self.dim, dtype=torch.float64), torch.full(
            (self.dim,), self.exact_variance, dtype=torch.float64
        )


# -- 1-D Gaussian mixtures ---------------------------------------------------------------------
def _components(y, mu, log_prec, log_w):
    """Per-datum component terms of a 1-D mixture.

    y [n] or [C, n]; mu, log_prec [C, K]; log_w [K]. Returns d = y - mu [C, n, K],
    log_joint = log w_k + log N(y | mu_k, 1/lam_k) [C, n, K] and the responsibilities r [C, n, K].
    """
    y = y[None, :, None] if y.dim() == 1 else y[..., None]
    d = y - mu[:, None, :]
    log_joint = log_w + 0.5 * (log_prec[:, None, :] - LOG_2PI) - 0.5 * torch.exp(log_prec)[:, None, :] * d * d
    return d, log_joint, torch.softmax(log_joint, dim=-1)


class MixtureMeans(_AutogradHvp, Potential):
    """1-D Gaussian mixture with unknown means mu [K], known weights w_k and sds sigma_k
    (sekkat2023 eq. 43; K = 2, w = 0.4, sigma = 0.4), prior mu ~ N(0, I / lam0):

        U_i(mu) = -log sum_k w_k N(y_i; mu_k, sigma_k^2)
        d U_i / d mu_k = -r_ik (y_i - mu_k) / sigma_k^2,   r_ik the responsibilities
        U_0(mu) = (lam0 / 2) ||mu||^2

    No constraint: the posterior keeps whatever label-switching mode the weights allow.
    """

    def __init__(self, y, weights, sds, prior_precision: float = 1.0):
        self.y = y.reshape(-1)
        self.n_data, self.dim = self.y.shape[0], int(weights.shape[0])
        self.log_w = torch.log(weights)
        self.log_prec = -2 * torch.log(sds)  # [K]
        self.prec = torch.exp(self.log_prec)
        self.lam0 = float(prior_precision)

    def _terms(self, x, idx):
        return _components(_gather(self.y, idx), x, self.log_prec.expand_as(x), self.log_w)

    def per_datum_grads(self, x, idx):
        d, _, r = self._terms(x, idx)
        return -r * d * self.prec

    def force(self, x, idx, scale):
        f = self.per_datum_grads(x, idx).sum(1) * scale
        return f.add_(x, alpha=self.lam0) if self.lam0 else f

    def energy(self, x, idx, scale):
        _, lp, _ = self._terms(x, idx)
        u = -torch.logsumexp(lp, dim=-1).sum(-1) * scale
        return u + 0.5 * self.lam0 * (x**2).sum(1) if self.lam0 else u


class GaussianMixture(_AutogradHvp, Potential):
    """matthews2018 §5.2: 1-D mixture sum_k w_k N(y | mu_k, 1/lam_k) with known weights
    (1/3 each for gmm3), unknown means and precisions, prior

        pi_0(mu, lam) ∝ H(mu_2 - mu_1) ... H(mu_K - mu_{K-1}) prod_k N(mu_k | 0, v0) Gamma(lam_k | a, b)

    (v0 = 100 a variance, Gamma shape a = 2, rate b = 1).

    Parameterisation (DECISION; the paper does not say how it enforced the constraints).
    The sampler moves the unconstrained x = (m_1, b_2..b_K, s_1..s_K), d = 2K:

        mu_1 = m_1,  mu_k = mu_{k-1} + exp(b_k)   (ordered: the Heaviside prior is built in)
        lam_k = exp(s_k)                          (positive)

    and the target in x carries the log-Jacobian sum_k b_k + sum_k s_k, so its push-forward
    is exactly the paper's posterior in (mu, lam):

        U_0(x) = sum_k mu_k^2 / (2 v0) - sum_{k>=2} b_k + sum_k (b lam_k - a s_k)
        U_i(x) = -log sum_k w_k N(y_i | mu_k, 1/lam_k)
        dU_i/dmu_k = -r_ik lam_k (y_i - mu_k),   dU_i/ds_k = -r_ik (1 - lam_k (y_i - mu_k)^2) / 2
        dU/dm_1 = sum_k dU/dmu_k,   dU/db_k = exp(b_k) sum_{j>=k} dU/dmu_j

    x = 0 is a valid start (mu = (0, 1, 2), lam = 1). ``natural(x)`` maps draws to
    (mu, lam) [C, 2K], the coordinates of matthews' variance metric. With ``ordered=False`` the
    means are sampled directly (x = (mu, s), no ordering prior, label switching left as is).
    """

    def __init__(self, y, weights, mean_prior_var: float = 100.0, shape: float = 2.0, rate: float = 1.0,
                 ordered: bool = True):  # fmt: skip
        self.y = y.reshape(-1)
        self.K = int(weights.shape[0])
        self.n_data, self.dim = self.y.shape[0], 2 * self.K
        self.log_w = torch.log(weights)
        self.v0, self.a, self.b, self.ordered = float(mean_prior_var), float(shape), float(rate), bool(ordered)

    def means(self, x):
        if not self.ordered:
            return x[:, : self.K]
        steps = torch.cat([x[:, :1], torch.exp(x[:, 1 : self.K])], dim=1)
        return torch.cumsum(steps, dim=1)

    def natural(self, x):
        """(mu_1..mu_K, lam_1..lam_K) per chain, [C, 2K]."""
        return torch.cat([self.means(x), torch.exp(x[:, self.K :])], dim=1)

    def unconstrained(self, mu, lam):
        """Inverse of ``natural``: x [C, 2K] from ordered means and positive precisions [C, K]."""
        m = torch.cat([mu[:, :1], torch.log(torch.diff(mu, dim=1))], dim=1) if self.ordered else mu
        return torch.cat([m, torch.log(lam)], dim=1)

    def _pull(self, g_mu, x):
        """Chain rule from dU/dmu [..., K] to the mean coordinates of x (J^T g)."""
        if not self.ordered:
            return g_mu
        tail = torch.flip(torch.cumsum(torch.flip(g_mu, [-1]), -1), [-1])  # sum_{j>=k} g_j
        e = torch.exp(x[:, 1 : self.K])
        e = e if g_mu.dim() == 2 else e[:, None, :]
        return torch.cat([tail[..., :1], tail[..., 1:] * e], dim=-1)

    def _terms(self, x, idx):
        return _components(_gather(self.y, idx), self.means(x), x[:, self.K :], self.log_w)

    def per_datum_grads(self, x, idx):
        d, _, r = self._terms(x, idx)
        lam = torch.exp(x[:, None, self.K :])
        rl = r * lam
        return torch.cat([self._pull(-rl * d, x), -0.5 * r + 0.5 * rl * d * d], dim=-1)

    def _prior_grad(self, x):
        mu, s = self.means(x), x[:, self.K :]
        g = self._pull(mu / self.v0, x)
        if self.ordered:
            g = torch.cat([g[:, :1], g[:, 1:] - 1.0], dim=1)
        return torch.cat([g, self.b * torch.exp(s) - self.a], dim=1)

    def force(self, x, idx, scale):
        d, _, r = self._terms(x, idx)
        lam = torch.exp(x[:, self.K :])
        rd = (r * d).sum(1)  # [C, K]
        g_mu = -lam * rd
        g_s = -0.5 * r.sum(1) + 0.5 * lam * (r * d * d).sum(1)
        return torch.cat([self._pull(g_mu, x), g_s], dim=1).mul_(scale).add_(self._prior_grad(x))

    def energy(self, x, idx, scale):
        _, lp, _ = self._terms(x, idx)
        mu, s = self.means(x), x[:, self.K :]
        u0 = (mu**2).sum(1) / (2 * self.v0) + (self.b * torch.exp(s) - self.a * s).sum(1)
        if self.ordered:
            u0 = u0 - x[:, 1 : self.K].sum(1)
        return u0 - torch.logsumexp(lp, dim=-1).sum(-1) * scale


# -- builders ----------------------------------------------------------------------------------
def _cfg(model_cfg, key, default):
    val = model_cfg.get(key, default)
    return default if val is None else val


@register("linear_gaussian")
def build_linear_gaussian(model_cfg, data, device, dtype, seed):
    if data.task != "regression" or data.x_train is None or data.x_train.dim() != 2:
        raise UserError(f"model=linear_gaussian needs a regression data set with feature rows (dataset={data.name})")
    noise_var = model_cfg.get("noise_var") or data.extras.get("noise_var")
    if noise_var is None:
        raise UserError(
            f"model.noise_var: dataset={data.name} sets no noise variance; give model.noise_var=<number > 0>"
        )
    noise_var = positive_number(noise_var, UserError, f"model.noise_var={noise_var}: must be a number > 0")
    lam0 = float(_cfg(model_cfg, "prior_precision", 1.0))
    if lam0 < 0:
        raise UserError(f"model.prior_precision={lam0}: must be >= 0")

    def t(a):
        return None if a is None else a.to(device, dtype)

    e = data.extras
    return LinearGaussian(t(data.x_train), t(data.y_train), noise_var, lam0, t(data.x_test),
                          y_mean=float(e.get("y_mean", 0.0)), y_std=float(e.get("y_std", 1.0)))  # fmt: skip


@register("double_well")
def build_double_well(model_cfg, data, device, dtype, seed):
    def make(e):
        return DoubleWell(e["dim"], e["sigma"], e["sigma_model"], seed=seed, device=device,
                          exact_variance=e.get("exact_variance"))  # fmt: skip

    return from_own_dataset("double_well", data, make)


def _mixture_data(name, data, device, dtype):
    if data.task != "density" or "weights" not in data.extras or data.y_train.shape[-1] != 1:
        raise UserError(f"model={name} needs 1-D mixture data (gmm3, mixture_means), not dataset={data.name}")
    e = data.extras
    return data.y_train.to(device, dtype), e["weights"].to(device, dtype), e["sds"].to(device, dtype)


@register("mixture")
def build_mixture(model_cfg, data, device, dtype, seed):
    y, w, sds = _mixture_data("mixture", data, device, dtype)
    lam0 = float(_cfg(model_cfg, "prior_precision", 1.0))
    if lam0 < 0:
        raise UserError(f"model.prior_precision={lam0}: must be >= 0")
    return MixtureMeans(y, w, sds, lam0)


@register("gmm")
def build_gmm(model_cfg, data, device, dtype, seed):
    y, w, _ = _mixture_data("gmm", data, device, dtype)
    vals = {}
    for key, default in (("mean_prior_var", 100.0), ("precision_shape", 2.0), ("precision_rate", 1.0)):
        v = float(_cfg(model_cfg, key, default))
        if not v > 0:
            raise UserError(f"model.{key}={v}: must be > 0")
        vals[key] = v
    ordered = _cfg(model_cfg, "ordered", True)
    if not isinstance(ordered, bool):
        raise UserError(f"model.ordered={ordered}: allowed values: true, false")
    return GaussianMixture(y, w, vals["mean_prior_var"], vals["precision_shape"], vals["precision_rate"], ordered)
