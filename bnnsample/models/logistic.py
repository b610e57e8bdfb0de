"""Bayesian logistic regression with closed-form gradients batched over chains (no autograd)."""

from __future__ import annotations

import weakref

import torch

from ..gather import batch_rows
from ..plumbing import hostmem
from ..plumbing.errors import UserError
from ..potential import Potential
from . import register
from .batched import force_in_blocks, rows_dot, two_class

# id of a design -> (the design, weakly; its labels; their versions; the signed rows): a run's
# generated data are kept by the process (data.load_data), so the signed rows of a design are
# made once, not at every run (a tensor's == is elementwise: no WeakKeyDictionary)
_SIGNED: dict[int, tuple] = {}


def signed_rows(a: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """b_i = (1 - 2 y_i) a_i for labels y_i in {0, 1}, [N, d], made once per design and labels
    (checked by identity and torch's version counters, so a changed design is signed again)."""
    versions = (a._version, y._version)
    hit = _SIGNED.get(id(a))
    if hit is not None and hit[0]() is a and hit[1] is y and hit[2] == versions:
        return hit[3]
    b = a * (1 - 2 * y.to(a.dtype))[:, None]
    if hit is None or hit[0]() is not a:  # a new design: its entry goes with it
        weakref.finalize(a, _SIGNED.pop, id(a), None)
    _SIGNED[id(a)] = (weakref.ref(a), y, versions, b)
    return b


class LogisticRegression(Potential):
    """Binary logistic regression, weights x in R^d, features a_i [d], labels y_i in {0, 1}:

        z_i = a_i . x,   p_i = sigmoid(z_i)
        U_0(x) = (lam/2) ||x||^2
        U_i(x) = softplus(z_i) - y_i z_i                 (cross-entropy of datum i)
        grad U_i(x) = (p_i - y_i) a_i
        Hess U_i(x) = p_i (1 - p_i) a_i a_i^T

    Computed on the signed rows b_i = s_i a_i, s_i = 1 - 2 y_i: with z'_i = b_i . x = s_i z_i,

        U_i(x) = softplus(z'_i),   grad U_i(x) = sigmoid(z'_i) b_i,
        Hess U_i(x) = sigmoid(z'_i) (1 - sigmoid(z'_i)) b_i b_i^T

    (p - 1 = -sigmoid(-z)), so a minibatch force for all chains is two matmuls and one sigmoid,
    z' = x B_S^T [C, n] and scale * sigmoid(z') B_S [C, d], the labels neither gathered nor
    subtracted, and p - y is never formed by cancellation (1 - p at large z). B_S [n, d] is
    shared by the chains (idx [n]) or B_S [C, n, d] one batch per chain (idx [C, n], batched
    matmuls). No intercept: add a constant feature to the design for one.
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
        self.b = signed_rows(x_train, y_train)
        self.x_test = x_test
        self.n_data, self.dim = x_train.shape
        self.lam = float(prior_precision)
        self._last = None
        self._scratch, self._scratch_key = None, None  # _shared_batch's tensors, and their (chains, batch)

    def _batch(self, idx):
        """B_S: [n, d] for idx None or [n]; [C, n, d] for idx [C, n]."""
        return batch_rows(idx, self.b)[0]

    @staticmethod
    def _logits(x, b):
        return torch.nn.functional.linear(x, b) if b.dim() == 2 else rows_dot(b, x)  # [C, n]; linear: x @ b.T, one call

    def _residual(self, x, b):
        z = self._logits(x, b)
        self._last = (z,)  # the minibatch loss is computed only when diagnostics are read
        return torch.sigmoid(z)  # sigmoid(z'), [C, n]: times B_S it is (p - y) A_S

    def _shared_batch(self, x, idx):
        """(B_S, sigmoid(z')) with z' = x B_S^T [C, n], for one batch shared by the chains (idx
        [n]) or the full data (None); ``_last`` keeps z' for the diagnostics. Outside autograd the
        three are written into tensors kept from the previous call of the same shapes, the same
        numbers without three allocations a step (about 2 us a step at 1 and at 100 chains)."""
        if x.requires_grad:
            b = self.b if idx is None else self.b.index_select(0, idx)
            z = torch.nn.functional.linear(x, b)
            self._last = (z,)
            return b, torch.sigmoid(z)
        key = (x.shape[0], None if idx is None else idx.shape[0])
        if key != self._scratch_key:
            n = self.n_data if idx is None else idx.shape[0]
            like = {"dtype": self.b.dtype, "device": self.b.device}
            rows = None if idx is None else torch.empty(n, self.dim, **like)
            self._scratch = (rows, torch.empty(key[0], n, **like), torch.empty(key[0], n, **like))
            self._scratch_key = key
        rows, z, p = self._scratch
        b = self.b if idx is None else torch.index_select(self.b, 0, idx, out=rows)
        self._last = (torch.mm(x, b.t(), out=z),)
        return b, torch.sigmoid(z, out=p)

    def force(self, x, idx, scale):
        if idx is not None and idx.dim() == 2:  # per-chain batches, a block of chains at a time
            return force_in_blocks(self, x, idx, scale, idx.shape[1] * self.dim)
        b, p = self._shared_batch(x, idx)
        return torch.addmm(x, p, b, beta=self.lam, alpha=scale)  # lam x + scale sigmoid(z') B_S

    def add_force_(self, out, x, idx, scale, alpha):
        """out + alpha (lam x + scale sigmoid(z') B_S): the prior one pass, the data term
        accumulated by the second product itself (``addmm_``, beta 1), where ``force`` and a sum
        make a scaled copy of x, the product and another pass."""
        if idx is not None and idx.dim() == 2:
            return out.add_(self.force(x, idx, scale), alpha=alpha)
        b, p = self._shared_batch(x, idx)
        if self.lam:
            out.add_(x, alpha=alpha * self.lam)
        return out.addmm_(p, b, alpha=alpha * scale)

    def _force(self, x, idx, scale):
        """The force of per-chain batches idx [C, n] (``force_in_blocks``): batched products."""
        b = self._batch(idx)
        r = self._residual(x, b)
        return torch.baddbmm(x[:, None, :], r[:, None, :], b, beta=self.lam, alpha=scale)[:, 0]

    def per_datum_grads(self, x, idx):
        """grad U_i(x) = sigmoid(z'_i) b_i = (p_i - y_i) a_i for i in the batch: [C, n, d]."""
        b = self._batch(idx)
        return self._residual(x, b)[:, :, None] * b

    def hvp(self, x, u, idx, scale):
        """(lam I + scale sum_S q_i (1 - q_i) b_i b_i^T) u with q_i = sigmoid(z'_i)."""
        b = self._batch(idx)
        q = torch.sigmoid(self._logits(x, b))
        w = q * (1 - q) * self._logits(u, b)  # [C, n]
        hu = w @ b if b.dim() == 2 else torch.bmm(w[:, None, :], b)[:, 0]
        return torch.add(self.lam * u, hu, alpha=scale)

    def loss(self, x: torch.Tensor) -> torch.Tensor:
        """U(x) per chain over the full data (for tests and diagnostics): [C]."""
        return torch.nn.functional.softplus(x @ self.b.T).sum(-1) + 0.5 * self.lam * (x**2).sum(-1)

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
        (z,) = self._last
        return {"minibatch_loss": torch.nn.functional.softplus(z).mean(-1)}  # softplus(z') = softplus(z) - y z


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
