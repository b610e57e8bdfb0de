"""The gradient oracle that samplers see, and the pieces of Algorithm 3 acting on it.

U(x) = U_0(x) + sum_{i=1}^N U_i(x): U_0 the negative log-prior, U_i the i-th datum's negative
log-likelihood. ``force(x, idx, scale)`` returns

    G(x, S) = grad U_0(x) + scale * sum_{i in S} grad U_i(x),       x: [C, d]

with S the minibatch ``idx`` ([n] shared by the chains, [C, n] one per chain, or None for the
full data with scale 1). With scale = N/n it is the unbiased estimator of grad U.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch


def covariance_factor(batch_size: int, n_data: int, with_replacement: bool) -> float:
    """epsilon(n) of sekkat2023 eq. 13: Cov(force estimate) = epsilon(n) Sigma_x, with Sigma_x
    the per-datum gradient covariance normalised by N - 1 (eq. 12):

        with replacement     epsilon(n) = N (N - 1) / n
        without replacement  epsilon(n) = N (N - n) / n      (0 for the full batch)
    """
    N, n = n_data, batch_size
    return N * (N - 1) / n if with_replacement else N * (N - n) / n


@dataclass
class GradientCovariance:
    """Covariance Sigma [C, d, d] of a force estimate, per chain, in the cheapest form known:

        factor  B [C, k, d] with Sigma = B^T B  (the minibatch estimate, rank <= n - 1)
        diag    [C, d]                          (diagonal Sigma, e.g. synthetic noise)
        dense   [C, d, d]

    Exactly one is set.
    """

    factor: torch.Tensor | None = None
    diag: torch.Tensor | None = None
    dense: torch.Tensor | None = None

    def to_dense(self) -> torch.Tensor:
        if self.dense is not None:
            return self.dense
        if self.diag is not None:
            return torch.diag_embed(self.diag)
        return self.factor.transpose(1, 2) @ self.factor

    def diagonal(self) -> torch.Tensor:
        if self.diag is not None:
            return self.diag
        if self.dense is not None:
            return torch.diagonal(self.dense, dim1=1, dim2=2)
        return (self.factor**2).sum(1)

    def matvec(self, u: torch.Tensor) -> torch.Tensor:
        """Sigma u for u [C, d]."""
        if self.diag is not None:
            return self.diag * u
        if self.dense is not None:
            return (self.dense @ u[..., None])[..., 0]
        return ((self.factor @ u[..., None]).transpose(1, 2) @ self.factor)[:, 0]


class Potential:
    """Interface of a target. Subclasses set ``dim`` and ``n_data`` and implement force;
    schemes that need more ask for per-datum gradients, the force covariance or
    Hessian-vector products (see ``Oracle``)."""

    dim: int
    n_data: int
    task: str = "density"  # "density" | "classification" | "regression"
    # every method a scheme may call is tensor arithmetic, no autograd: the sampling loop then
    # runs the steps under torch.inference_mode, which dispatches each operation with less
    # bookkeeping (the sg_hmc step of logistic regression: 36.7 -> 32.6 us at one chain,
    # 48.8 -> 44.2 at ten; the same numbers)
    closed_form: bool = False
    # ``add_force_`` accumulates the data term into its output (a product with beta = 1), with
    # fewer passes over the [C, d] numbers than a force and a sum: schemes then build their
    # update around it (``Oracle.accumulates``)
    accumulates: bool = False

    def force(self, x: torch.Tensor, idx: torch.Tensor | None, scale: float) -> torch.Tensor:
        raise NotImplementedError

    def add_force_(self, out: torch.Tensor, x: torch.Tensor, idx: torch.Tensor | None, scale: float,
                   alpha: float) -> torch.Tensor:  # fmt: skip
        """out <- out + alpha G(x, idx), in place; returns out. By default the force and one
        sum, the numbers of ``out.add_(force(x, idx, scale), alpha=alpha)``."""
        return out.add_(self.force(x, idx, scale), alpha=alpha)

    def per_datum_grads(self, x: torch.Tensor, idx: torch.Tensor | None) -> torch.Tensor:
        """grad U_i(x) for each i of the minibatch, unscaled: [C, n, d] (idx None: all N)."""
        raise NotImplementedError(f"{type(self).__name__} has no per-datum gradients")

    def hvp(self, x: torch.Tensor, u: torch.Tensor, idx: torch.Tensor | None, scale: float) -> torch.Tensor:
        """Hessian of the estimated potential U_0 + scale * sum_S U_i at x, times u: [C, d]."""
        raise NotImplementedError(f"{type(self).__name__} has no Hessian-vector products")

    def energy(self, x: torch.Tensor, idx: torch.Tensor | None, scale: float) -> torch.Tensor:
        """The estimated potential U_0(x) + scale * sum_S U_i(x) per chain: [C] (idx None: U(x))."""
        raise NotImplementedError(f"{type(self).__name__} has no potential energy")

    def force_covariance(self, x, idx, scale: float, eps: float) -> GradientCovariance:
        """Sigma-hat, the estimated covariance of force(x, idx, scale) (sekkat2023 eqs. 11-13,
        matthews2018 eq. 4): eps * (sample covariance of the batch's per-datum gradients,
        ddof 1), returned as the factor B = sqrt(eps / (n - 1)) (g_i - mean g) [C, n, d].
        ``eps`` is epsilon(n) of ``covariance_factor`` (0 for the full batch).

        Without replacement the batch's sample covariance is unbiased for Sigma_x, so this is
        unbiased for Cov(G). With replacement its mean is (N - 1)/N Sigma_x: the estimate is
        low by that factor (tests/models/test_oracle.py enumerates both); we keep the papers'
        estimator, whose bias is negligible for the N of any real data set."""
        g = self.per_datum_grads(x, idx)
        n = g.shape[1]
        if eps == 0:
            return GradientCovariance(diag=torch.zeros_like(x))
        if n < 2:
            raise ValueError("the gradient covariance estimate needs batch_size >= 2")
        return GradientCovariance(factor=(g - g.mean(1, keepdim=True)) * math.sqrt(eps / (n - 1)))

    def state_dict(self) -> dict[str, torch.Tensor]:
        """Random state of targets that draw their own gradient noise (saved for resume)."""
        return {}

    def load_state_dict(self, d: dict[str, torch.Tensor]) -> None:
        pass

    def predict(self, x: torch.Tensor) -> torch.Tensor | None:
        """Predictive output per chain, [C, n_test, K]; None for targets without a test set."""
        return None

    def predict_into(self, x: torch.Tensor, out: torch.Tensor) -> None:
        """``predict(x)`` written into ``out`` [C, n_test, K] (a slot of the sampler's draw
        buffer, possibly of another dtype). Targets whose predictive is large override it to
        write there directly instead of through a [C, n_test, K] temporary. NaN where the
        target has no predictive, as for a quantity missing from a draw."""
        p = self.predict(x)
        if p is None:
            out.fill_(float("nan"))
        else:
            out.copy_(p.detach())

    def exact_posterior(self) -> tuple[torch.Tensor, torch.Tensor] | None:
        """(mean [d], covariance [d, d]) when the posterior is Gaussian and known."""
        return None

    def diagnostics(self) -> dict[str, torch.Tensor]:
        """Per-chain values from the last force call, e.g. the minibatch loss ([C] each)."""
        return {}


class Wrapped(Potential):
    """A potential built on ``base``: its dimension, data and task, and the base's per-datum
    gradients, Hessian-vector products, predictions, diagnostics and random state unless a
    subclass changes them."""

    def __init__(self, base: Potential):
        self.base = base
        self.dim, self.n_data, self.task = base.dim, base.n_data, base.task

    @property
    def closed_form(self) -> bool:
        return self.base.closed_form

    def per_datum_grads(self, x, idx):
        return self.base.per_datum_grads(x, idx)

    def hvp(self, x, u, idx, scale):
        return self.base.hvp(x, u, idx, scale)

    def predict(self, x):
        return self.base.predict(x)

    def predict_into(self, x, out):
        self.base.predict_into(x, out)

    def diagnostics(self):
        return self.base.diagnostics()

    def state_dict(self):
        return self.base.state_dict()

    def load_state_dict(self, d):
        self.base.load_state_dict(d)


class Localized(Wrapped):
    """U_loc(x) = U(x) + (lam/2) ||x - center||^2 (paulin2025 §4, Algorithm 3 step 4)."""

    def __init__(self, base: Potential, center: torch.Tensor, lam: float):
        super().__init__(base)
        self.center = center
        self.lam = float(lam)

    @property
    def accumulates(self) -> bool:
        return self.base.accumulates

    def force(self, x, idx, scale):
        return self.base.force(x, idx, scale) + self.lam * (x - self.center)

    def add_force_(self, out, x, idx, scale, alpha):
        if not self.base.accumulates:
            return out.add_(self.force(x, idx, scale), alpha=alpha)
        self.base.add_force_(out, x, idx, scale, alpha)
        return out.add_(x, alpha=alpha * self.lam).sub_(self.center, alpha=alpha * self.lam)

    def hvp(self, x, u, idx, scale):
        return self.base.hvp(x, u, idx, scale) + self.lam * u

    def energy(self, x, idx, scale):
        return self.base.energy(x, idx, scale) + self.lam / 2 * ((x - self.center) ** 2).sum(1)

    def force_covariance(self, x, idx, scale, eps):
        return self.base.force_covariance(x, idx, scale, eps)


class ElasticBox:
    """Elastic bounces keeping x in the box center + [-delta, delta]^d (paulin2025 §4, Algorithm 3).

    Coordinate-wise, with u = x - center:
        v <- (-1)^floor((u + delta) / (2 delta)) v
        x <- center + |((u - delta) mod 4 delta) - 2 delta| - delta
    i.e. the identity on [-delta, delta) and repeated mirror reflections outside. The number
    of reflected coordinates is accumulated per chain in ``counts``.
    """

    def __init__(self, center: torch.Tensor, delta: float):
        if not delta > 0:
            raise ValueError("bounce delta must be > 0")
        self.center = center
        self.delta = float(delta)
        self.counts = torch.zeros(center.shape[0], dtype=torch.long, device=center.device)

    @classmethod
    def for_localization(cls, center: torch.Tensor, lam: float, width: float = 6.0) -> ElasticBox:
        """The authors' choice delta = width / sqrt(lam) (width 6)."""
        return cls(center, width / math.sqrt(lam))

    def __call__(self, x, v):
        d = self.delta
        u = x - self.center
        k = torch.floor((u + d) / (2 * d))
        self.counts += (k != 0).sum(dim=1)
        v = torch.where(torch.remainder(k, 2) == 1, -v, v)
        x = self.center + torch.abs(torch.remainder(u - d, 4 * d) - 2 * d) - d
        return x, v


class Oracle:
    """What a scheme sees of one step's minibatch S (``next_force()`` returns one).

        oracle(x)                       G(x, S), the force estimate            [C, d]
        oracle.covariance(x)            Sigma-hat of that estimate             GradientCovariance
        oracle.force_and_covariance(x)  both, from the same batch
        oracle.hvp(x, u)                Hessian of the estimated U, times u    [C, d]
        oracle.add_to_(out, x, alpha)   out + alpha G(x, S), in place          [C, d]

    ``eps`` is epsilon(n) for the schedule's sampling (``covariance_factor``).
    """

    __slots__ = ("potential", "idx", "scale", "eps")

    def __init__(self, potential: Potential, idx: torch.Tensor | None, scale: float, eps: float = 0.0):
        self.potential, self.idx, self.scale, self.eps = potential, idx, scale, eps

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return self.potential.force(x, self.idx, self.scale)

    @property
    def accumulates(self) -> bool:
        """Whether ``add_to_`` costs fewer passes than ``__call__`` and a sum (``Potential.accumulates``)."""
        return self.potential.accumulates

    def add_to_(self, out: torch.Tensor, x: torch.Tensor, alpha: float) -> torch.Tensor:
        """out <- out + alpha G(x, S) in place (out a tensor the scheme owns); returns out."""
        return self.potential.add_force_(out, x, self.idx, self.scale, alpha)

    def covariance(self, x: torch.Tensor) -> GradientCovariance:
        return self.potential.force_covariance(x, self.idx, self.scale, self.eps)

    def force_and_covariance(self, x: torch.Tensor) -> tuple[torch.Tensor, GradientCovariance]:
        return self(x), self.covariance(x)

    def hvp(self, x: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
        return self.potential.hvp(x, u, self.idx, self.scale)


class ControlVariate(Wrapped):
    """The control-variate force estimator of paulin2025 §2.2 eq. (8), with reference x_ref:

        G(x, S) = grad U_0(x) + sum_{i=1}^N grad U_i(x_ref) + scale * sum_{i in S} (grad U_i(x) - grad U_i(x_ref))
                = base.force(x, S, scale) - base.force(x_ref, S, scale) + G_ref,

    G_ref = grad U_0(x_ref) + sum_i grad U_i(x_ref), precomputed once. It is unbiased whenever
    the plain estimator is, exact at x = x_ref, and its noise vanishes as x -> x_ref.
    ``ref`` is one reference per chain [C, d] or one shared by all chains [d].

    G_ref is summed over ``batches`` (a [K, n] index table, e.g. the schedule's fixed
    partition) or, without one, over consecutive chunks of ``chunk`` data points. For models
    whose per-datum terms do not interact (no BatchNorm) every choice gives the exact full
    gradient. With BatchNorm a datum's loss depends on its batch; summing over the fixed
    partition that the schedule sweeps makes the estimator exactly unbiased for that schedule.

    Cache (the authors' code, paulin2025 §2.2): with ``batches`` given, the K batch gradients at x_ref,
    g_b = sum_{i in S_b} grad U_i(x_ref), are computed once and kept ([K, C_ref, d]) when they
    fit in ``cache_limit`` numbers; a step then costs ONE minibatch gradient:

        G(x, S_b) = base.force(x, S_b, scale) - scale * g_b + sum_b g_b.

    The batch of a step is found on the device from its first index (``idx`` must then be a
    row of ``batches``, as under the reshuffle and sms schedules with a fixed partition; no
    host synchronisation). Without the cache (no ``batches``, e.g. i.i.d. batches, or too
    large) each force call evaluates the base force twice, at x and at x_ref. Per-datum
    gradients are the differences grad U_i(x) - grad U_i(x_ref), so the covariance estimate is
    that of the control-variate estimator; the Hessian is the base's (the reference terms are
    constant in x).
    """

    def __init__(
        self,
        base: Potential,
        ref: torch.Tensor,
        batches: torch.Tensor | None = None,
        chunk: int = 1000,
        cache_limit: int = 2**28,
    ):
        if ref.dim() not in (1, 2) or ref.shape[-1] != base.dim:
            raise ValueError(
                f"control variate reference must be [d] or [C, d] with d = {base.dim}, got {tuple(ref.shape)}"
            )
        super().__init__(base)
        self.ref = ref.detach().clone() if ref.dim() == 2 else ref.detach().reshape(1, -1).clone()
        self._cache = self._batch_of = None
        with torch.no_grad():
            self.ref_force = self._full_at_ref(batches, chunk, cache_limit)

    @property
    def cached(self) -> bool:
        """Whether the per-batch gradients at x_ref are cached (one gradient per step)."""
        return self._cache is not None

    def _full_at_ref(self, batches, chunk, cache_limit):
        """grad U_0(x_ref) + sum over the batches (or chunks) of the data gradients at x_ref;
        keeps the per-batch terms when ``batches`` is given and they fit in ``cache_limit``."""
        dev = self.ref.device
        keep = batches is not None and batches.shape[0] * self.ref.numel() <= cache_limit
        if batches is None:
            batches = list(torch.arange(self.n_data, device=dev).split(max(1, int(chunk))))
        from .plumbing.progress import bar

        prior = self.base.force(self.ref, batches[0], 0.0)
        total = prior.clone()
        terms = []
        # a network's pass over the data at x_ref takes minutes on a CPU: it gets its bar
        with bar(len(batches), "control variate: gradients at the reference point", "batch",
                 enabled_here=hasattr(self.base, "module")) as ticks:  # fmt: skip
            for b in batches:
                g = self.base.force(self.ref, b, 1.0) - prior
                total += g
                if keep:
                    terms.append(g)
                ticks.update()
        if keep:
            self._cache = torch.stack(terms)  # [K, C_ref, d]
            self._batch_of = torch.full((self.n_data,), -1, dtype=torch.long, device=dev)
            self._batch_of[batches.reshape(-1)] = torch.arange(len(terms), device=dev).repeat_interleave(
                batches.shape[1]
            )
            self._prior_ref = prior
        return total

    def _ref_for(self, idx, C):
        """The reference as the base must see it: [1, d] works for shared batches; per-chain
        batches [C, n] need one row per chain."""
        if self.ref.shape[0] == 1 and idx is not None and idx.dim() == 2:
            return self.ref.expand(C, -1)
        return self.ref

    def _cached_at_ref(self, idx, scale, C):
        """base.force(x_ref, idx, scale) from the cache: prior + scale * g_b."""
        # index_select with a [1] index: indexing with a 0-dim device tensor would sync with the host
        b = self._batch_of.index_select(0, idx[..., :1].reshape(-1))  # [1] shared batch, [C] one per chain
        if idx.dim() == 1:
            g = self._cache.index_select(0, b)[0]
        else:
            g = self._cache[b, torch.arange(C, device=b.device) if self._cache.shape[1] == C else 0]
        return torch.add(self._prior_ref, g, alpha=scale)

    def force(self, x, idx, scale):
        if self._cache is not None and idx is not None:
            at_ref = self._cached_at_ref(idx, scale, x.shape[0])
        else:
            at_ref = self.base.force(self._ref_for(idx, x.shape[0]), idx, scale)
        return self.base.force(x, idx, scale).sub_(at_ref).add_(self.ref_force)

    def per_datum_grads(self, x, idx):
        return self.base.per_datum_grads(x, idx) - self.base.per_datum_grads(self._ref_for(idx, x.shape[0]), idx)

    def exact_posterior(self):
        return self.base.exact_posterior()
