"""Bayesian logistic regression with closed-form gradients batched over chains (no autograd)."""

from __future__ import annotations

import torch

from ..gather import batch_rows
from ..plumbing import hostmem
from ..plumbing.errors import UserError
from ..potential import Potential
from . import register
from .batched import force_in_blocks, rows_dot, two_class


class LogisticRegression(Potential):
    """Binary logistic regression, weights x in R^d, features a_i [d], labels y_i in {0, 1}:

        z_i = a_i . x,   p_i = sigmoid(z_i)
        U_0(x) = (lam/2) ||x||^2
        U_i(x) = softplus(z_i) - y_i z_i                 (cross-entropy of datum i)
        grad U_i(x) = (p_i - y_i) a_i
        Hess U_i(x) = p_i (1 - p_i) a_i a_i^T

    A minibatch force for all chains is two matmuls, z = x A_S^T [C, n] and
    scale * (p - y_S) A_S [C, d], with A_S [n, d] shared by the chains (idx [n]) or
    A_S [C, n, d] one batch per chain (idx [C, n], batched matmuls). No intercept: add a
    constant feature to the design for one.
    """

    closed_form = True
    accumulates = True
    task = "classification"

    def __init__(self, x_train: torch.Tensor, y_train: torch.Tensor, x_test: torch.Tensor | None = None,
                 prior_precision: float = 1.0):  # fmt: skip
        if x_train.dim() != 2:
            raise ValueError(f"logistic regression needs a 2-D design [N, d], got shape {tuple(x_train.shape)}")
        self.a = x_train
        self.y = y_train.to(x_train.dtype)
        self.x_test = x_test
        self.n_data, self.dim = x_train.shape
        self.lam = float(prior_precision)
        self._last = None

    def _batch(self, idx):
        """(A_S, y_S): [n, d], [n] for idx None or [n]; [C, n, d], [C, n] for idx [C, n]."""
        return batch_rows(idx, self.a, self.y)

    @staticmethod
    def _logits(x, a):
        return torch.nn.functional.linear(x, a) if a.dim() == 2 else rows_dot(a, x)  # [C, n]; linear: x @ a.T, one call

    def _residual(self, x, a, y):
        z = self._logits(x, a)
        self._last = (z, y)  # the minibatch loss is computed only when diagnostics are read
        return torch.sigmoid(z).sub_(y)  # p - y, [C, n]

    def force(self, x, idx, scale):
        if idx is not None and idx.dim() == 2:  # per-chain batches, a block of chains at a time
            return force_in_blocks(self, x, idx, scale, idx.shape[1] * self.dim)
        # the full data or one batch shared by the chains, written out: at one chain each call
        # layer costs about as much as a small kernel (about 1 us a step less than through _force)
        a, y = (self.a, self.y) if idx is None else (self.a.index_select(0, idx), self.y.index_select(0, idx))
        z = torch.nn.functional.linear(x, a)  # x A_S^T [C, n]
        self._last = (z, y)
        return torch.addmm(x, torch.sigmoid(z).sub_(y), a, beta=self.lam, alpha=scale)  # lam x + scale (p - y) A_S

    def add_force_(self, out, x, idx, scale, alpha):
        """out + alpha (lam x + scale (p - y_S) A_S): the prior one pass, the data term
        accumulated by the second product itself (``addmm_``, beta 1), where ``force`` and a sum
        make a scaled copy of x, the product and another pass."""
        if idx is not None and idx.dim() == 2:
            return out.add_(self.force(x, idx, scale), alpha=alpha)
        a, y = (self.a, self.y) if idx is None else (self.a.index_select(0, idx), self.y.index_select(0, idx))
        z = torch.nn.functional.linear(x, a)
        self._last = (z, y)
        if self.lam:
            out.add_(x, alpha=alpha * self.lam)
        return out.addmm_(torch.sigmoid(z).sub_(y), a, alpha=alpha * scale)

    def _force(self, x, idx, scale):
        """The force of per-chain batches idx [C, n] (``force_in_blocks``): batched products."""
        a, y = self._batch(idx)
        r = self._residual(x, a, y)
        return torch.baddbmm(x[:, None, :], r[:, None, :], a, beta=self.lam, alpha=scale)[:, 0]

    def per_datum_grads(self, x, idx):
        """grad U_i(x) = (p_i - y_i) a_i for i in the batch: [C, n, d]."""
        a, y = self._batch(idx)
        return self._residual(x, a, y)[:, :, None] * a

    def hvp(self, x, u, idx, scale):
        """(lam I + scale sum_S p_i (1 - p_i) a_i a_i^T) u."""
        a, _ = self._batch(idx)
        p = torch.sigmoid(self._logits(x, a))
        w = p * (1 - p) * self._logits(u, a)  # [C, n]
        hu = w @ a if a.dim() == 2 else torch.bmm(w[:, None, :], a)[:, 0]
        return torch.add(self.lam * u, hu, alpha=scale)

    def loss(self, x: torch.Tensor) -> torch.Tensor:
        """U(x) per chain over the full data (for tests and diagnostics): [C]."""
        z = x @ self.a.T
        return (torch.nn.functional.softplus(z) - self.y * z).sum(-1) + 0.5 * self.lam * (x**2).sum(-1)

    def predict(self, x):
        """Class probabilities (1 - p, p) on the test set: [C, n_test, 2]."""
        if self.x_test is None:
            return None
        out = hostmem.empty((x.shape[0], self.x_test.shape[0], 2), x.dtype, x.device)
        self.predict_into(x, out)
        return out

    def predict_into(self, x, out):
        """(1 - p, p) with p = sigmoid(x a_test^T) written into out [C, n_test, 2]: the sigmoid
        in place on the logits, no other temporary (4000 chains x 2000 test points, one thread:
        26 ms against 79 for the [C, n_test, 2] array and its copy into the draw buffer; the
        same numbers: a product computed a block of chains at a time was not, for small blocks)."""
        z = torch.matmul(x, self.x_test.T, out=hostmem.empty((x.shape[0], self.x_test.shape[0]), x.dtype, x.device))
        two_class(torch.sigmoid_(z), out=out)

    def diagnostics(self):
        if self._last is None:
            return {}
        z, y = self._last
        return {"minibatch_loss": (torch.nn.functional.softplus(z) - z * y).mean(-1)}


@register("logistic_regression")
def build_logistic_regression(model_cfg, data, device, dtype, seed):
    if data.task != "classification" or data.n_classes != 2 or data.x_train is None or data.x_train.dim() != 2:
        raise UserError(f"model=logistic_regression needs binary labels and a 2-D design (dataset={data.name})")
    return LogisticRegression(
        data.x_train.to(device, dtype),
        data.y_train.to(device),
        data.x_test.to(device, dtype) if data.x_test is not None else None,
        prior_precision=float(model_cfg.prior_precision),
    )


register("logistic")(build_logistic_regression)  # the short name
