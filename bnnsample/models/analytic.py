"""Analytic targets with closed-form gradients batched over chains (no autograd)."""

from __future__ import annotations

import torch

from ..potential import Potential


class GaussianMean(Potential):
    """Unknown mean x in R^d observed through y_i ~ N(x, diag(s_i^2)), prior N(m0, 1/lam0).

        U_0(x) = (lam0/2) ||x - m0||^2,     U_i(x) = sum_j (x_j - y_ij)^2 / (2 s_ij^2)
        grad U_i(x) = P_i (x - y_i),        P_i = diag(1/s_i^2)

    so a minibatch force is scale * (x * sum_S P_i - sum_S P_i y_i) + lam0 (x - m0), computed
    from two gathered tables. The posterior is Gaussian with precision lam0 + sum_i P_i.
    paulin2025's two-batch test (§2.1) is y = (-1, 1), s = (0.5, 2), lam0 = 0.
    """

    def __init__(self, y: torch.Tensor, noise_sd: torch.Tensor, prior_precision: float = 0.0, prior_mean: float = 0.0):
        y = y if y.dim() == 2 else y[:, None]
        sd = noise_sd.expand_as(y) if noise_sd.dim() == 2 else noise_sd.reshape(-1, 1).expand_as(y)
        self.n_data, self.dim = y.shape
        self.prec = 1.0 / sd**2  # [N, d]
        self.prec_y = self.prec * y  # [N, d]
        self.lam0 = float(prior_precision)
        self.m0 = float(prior_mean)
        self._scaled: dict[float, torch.Tensor] = {}

    def _table(self, scale: float) -> torch.Tensor:
        """[N, 2, d] rows (scale P_i, -scale P_i y_i): one gather serves a whole minibatch force."""
        if scale not in self._scaled:
            self._scaled[scale] = torch.stack([scale * self.prec, -scale * self.prec_y], dim=1)
        return self._scaled[scale]

    def force(self, x, idx, scale):
        table = self._table(scale)
        if idx is None:
            t = table.sum(0)
        else:
            t = table.index_select(0, idx.reshape(-1)).view(*idx.shape, *table.shape[1:])
            t = t.squeeze(-3) if idx.shape[-1] == 1 else t.sum(-3)  # [C, 2, d] or [2, d]
        f = torch.addcmul(t[..., 1, :], x, t[..., 0, :])
        return f.add_(x - self.m0, alpha=self.lam0) if self.lam0 else f

    def exact_posterior(self):
        prec = self.prec.sum(0) + self.lam0
        mean = (self.prec_y.sum(0) + self.lam0 * self.m0) / prec
        return mean, torch.diag(1.0 / prec)

    def linear_form(self):
        """(H_i [N, d], r_i [N, d]) with grad U_i(x) = H_i x - r_i (diagonal H_i), and the prior's."""
        return self.prec, self.prec_y, self.lam0, self.lam0 * self.m0
