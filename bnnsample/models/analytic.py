"""Analytic targets with closed-form gradients batched over chains (no autograd)."""

from __future__ import annotations

import torch

from ..gather import take_rows
from ..plumbing.errors import UserError
from ..potential import GradientCovariance, Potential
from . import register


class GaussianMean(Potential):
    """Unknown mean x in R^d observed through y_i ~ N(x, diag(s_i^2)), prior N(m0, 1/lam0).

        U_0(x) = (lam0/2) ||x - m0||^2,     U_i(x) = sum_j (x_j - y_ij)^2 / (2 s_ij^2)
        grad U_i(x) = P_i (x - y_i),        P_i = diag(1/s_i^2)

    so a minibatch force is scale * (x * sum_S P_i - sum_S P_i y_i) + lam0 (x - m0), computed
    from two gathered tables. The posterior is Gaussian with precision lam0 + sum_i P_i.
    paulin2025's two-batch test (§2.1) is y = (-1, 1), s = (0.5, 2), lam0 = 0.
    """

    closed_form = True

    def __init__(self, y: torch.Tensor, noise_sd: torch.Tensor, prior_precision: float = 0.0, prior_mean: float = 0.0):
        y = y if y.dim() == 2 else y[:, None]
        sd = noise_sd.expand_as(y) if noise_sd.dim() == 2 else noise_sd.reshape(-1, 1).expand_as(y)
        self.n_data, self.dim = y.shape
        self.prec = 1.0 / sd**2  # [N, d]
        self.prec_y = self.prec * y  # [N, d]
        self.lam0 = float(prior_precision)
        self.m0 = float(prior_mean)
        self._scaled: dict[float, tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = {}

    def _tables(self, scale: float) -> tuple[torch.Tensor, torch.Tensor]:
        """(scale P_i, -scale P_i y_i), [N, d] each: the two tables of a minibatch force; also
        side by side in one [N, 2d] table (``_joined``), so that a batch's rows of both are one gather."""
        return self._scaled_tables(scale)[:2]

    def _joined(self, scale: float) -> torch.Tensor:
        return self._scaled_tables(scale)[2]

    def _scaled_tables(self, scale: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        if scale not in self._scaled:
            a, b = scale * self.prec, -scale * self.prec_y
            self._scaled[scale] = (a, b, torch.cat((a, b), dim=1))
        return self._scaled[scale]

    def force(self, x, idx, scale):
        d = self.dim
        if idx is None:
            a, b = self._tables(scale)
            a, b = a.sum(0), b.sum(0)
        elif idx.shape[-1] == 1:
            # one gather of both tables' rows (the toys of paulin2025 Fig. 1 gather 20,000 rows a step)
            rows = take_rows(self._joined(scale), idx[..., 0])
            a, b = rows[..., :d], rows[..., d:]  # [C, d] or [d]
        else:  # the sums of separate gathers: summing the joined rows would round differently
            a, b = self._tables(scale)
            a, b = take_rows(a, idx).sum(-2), take_rows(b, idx).sum(-2)
        f = torch.addcmul(b, x, a)
        return f.add_(x - self.m0, alpha=self.lam0) if self.lam0 else f

    def per_datum_grads(self, x, idx):
        """grad U_i(x) = P_i (x - y_i) for i in the batch: [C, n, d]."""
        prec = self.prec if idx is None else self.prec[idx]  # [n, d] or [C, n, d]
        prec_y = self.prec_y if idx is None else self.prec_y[idx]
        return torch.addcmul(-prec_y, prec, x[:, None, :])

    def hvp(self, x, u, idx, scale):
        """(lam0 + scale sum_S P_i) u: the estimated potential is quadratic with diagonal Hessian."""
        a, _ = self._tables(scale)
        h = a.sum(0) if idx is None else take_rows(a, idx).sum(-2)
        return (h + self.lam0) * u

    def energy(self, x, idx, scale):
        """U_0(x) + scale sum_S U_i(x) per chain, [C] (idx None: all N with scale 1)."""
        prec = self.prec if idx is None else self.prec[idx]  # [n, d] or [C, n, d]
        y = self.prec_y / self.prec
        y = y if idx is None else y[idx]
        u = (scale * 0.5) * (prec * (x[:, None, :] - y) ** 2).sum((-2, -1))
        return u + 0.5 * self.lam0 * ((x - self.m0) ** 2).sum(1) if self.lam0 else u

    def exact_posterior(self):
        prec = self.prec.sum(0) + self.lam0
        mean = (self.prec_y.sum(0) + self.lam0 * self.m0) / prec
        return mean, torch.diag(1.0 / prec)

    def linear_form(self):
        """(H_i [N, d], r_i [N, d]) with grad U_i(x) = H_i x - r_i (diagonal H_i), and the prior's."""
        return self.prec, self.prec_y, self.lam0, self.lam0 * self.m0


SIGMA_MODELS = ("constant", "cosine")


class NoisyGradientGaussian(Potential):
    """matthews2018 §5.1 toy: U(x) = ||x - mu||^2 / 2 (target N(mu, I)) seen through a force
    with injected Gaussian noise of known, state-dependent covariance:

        G(x) = (x - mu) + sigma(x) * xi,   xi ~ N(0, I)   (coordinate-wise)
        sigma(x) = c                        (sigma_model = constant)
        sigma(x) = c (1 - cos(1 + 5 x))     (sigma_model = cosine, matthews Fig. 1 with c = 1)

    The exact Sigma(x) = diag(sigma(x)^2) is what ``force_covariance`` returns, as in
    matthews2018 ("we evaluate sigma exactly for the required variance correction").
    There are no data: batching must be ``full``. The noise has its own generator, saved
    with the resume state.
    """

    closed_form = True

    def __init__(self, dim: int, mean: float = 0.0, sigma: float = 1.0, sigma_model: str = "cosine",
                 seed: int = 0, device="cpu", dtype=torch.float64):  # fmt: skip
        if sigma_model not in SIGMA_MODELS:
            raise ValueError(f"sigma_model={sigma_model}: allowed values: {', '.join(SIGMA_MODELS)}")
        self.dim, self.n_data = int(dim), 1
        self.mu, self.c, self.sigma_model = float(mean), float(sigma), sigma_model
        self.generator = torch.Generator(device=device)
        self.generator.manual_seed(int(seed))

    def sigma(self, x):
        if self.sigma_model == "constant":
            return torch.full_like(x, self.c)
        return self.c * (1 - torch.cos(1 + 5 * x))

    def force(self, x, idx, scale):
        xi = torch.randn(x.shape, generator=self.generator, device=x.device, dtype=x.dtype)
        return (x - self.mu) + self.sigma(x) * xi

    def hvp(self, x, u, idx, scale):
        return u.clone()

    def force_covariance(self, x, idx, scale, eps):
        return GradientCovariance(diag=self.sigma(x) ** 2)

    def exact_posterior(self):
        return torch.full((self.dim,), self.mu, dtype=torch.float64), torch.eye(self.dim, dtype=torch.float64)

    def state_dict(self):
        return {"noise_generator": self.generator.get_state()}

    def load_state_dict(self, d):
        if "noise_generator" in d:
            self.generator.set_state(d["noise_generator"].cpu().to(torch.uint8))


@register("gaussian_mean")
def build_gaussian_mean(model_cfg, data, device, dtype, seed):
    if data.task != "density" or "noise_sd" not in data.extras:
        raise UserError(f"model=gaussian_mean needs observations with noise_sd (dataset={data.name} has none)")
    return GaussianMean(
        data.y_train.to(device, dtype),
        data.extras["noise_sd"].to(device, dtype),
        prior_precision=float(model_cfg.prior_precision),
        prior_mean=float(model_cfg.prior_mean),
    )


def from_own_dataset(name: str, data, make):
    """``make(data.extras)``, the potential of a model that goes only with the dataset of the
    same name, whose settings travel in the extras; a setting the potential refuses (its
    ValueError) is a UserError naming the dataset key."""
    if data.name != name:
        raise UserError(f"model={name} goes with dataset={name}, not dataset={data.name}")
    try:
        return make(data.extras)
    except ValueError as err:
        raise UserError(f"dataset.{err}") from None


@register("noisy_gaussian")
def build_noisy_gaussian(model_cfg, data, device, dtype, seed):
    return from_own_dataset(
        "noisy_gaussian",
        data,
        lambda e: NoisyGradientGaussian(e["dim"], e["mean"], e["sigma"], e["sigma_model"], seed=seed, device=device),
    )
