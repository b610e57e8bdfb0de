"""Coupled multilevel estimator of the step-size bias of a sampler (paulin2025 App. D.1).

A chain at step h (coarse) and a chain at step h/2 (fine) are advanced together, the coarse
chain one step for every two fine steps, with shared randomness, so that the time averages
f-bar(h) and f-bar(h/2) of a test function differ by little more than their expectations.
The level difference

    D(h) = E_pi_h[f] - E_pi_{h/2}[f]     estimated by  mean over chains and recorded steps of
                                                       f(x_coarse) - f(x_fine)

telescopes over the levels h_k = h_0 2^-k, k = 0..L-1 into the bias at h_k relative to the
finest step h_L = h_0 2^-L,

    bias(h_k) = sum_{j >= k} D(h_j) = E_pi_{h_k}[f] - E_pi_{h_L}[f],

whose own bias at h_L is assumed negligible (the paper's choice: h_L small enough).

Coupling of the noise (the registered integrators' own ``advance`` runs both chains; only the
Gaussian numbers they draw are coupled). The fine chain draws fresh N(0, 1) numbers; the coarse
chain's k-th draw is built from the fine chain's draws 2k and 2k+1 (same shape), each step
advancing with ``advance(state, 1, ...)``:

    ubu       exact composition of OU flows (paulin2025 eqs. 3-6): the coarse chain's U(h/2) is the
              fine chain's two U(h/4) with the same numbers, so the coarse step is
              U(h/4) U(h/4) B(h) U(h/4) U(h/4) against the fine U(h/4) B(h/2) U(h/4) U(h/4) B(h/2) U(h/4)
              (``ou_pair_combiner``; pathwise identical to composing the two fine flows)
    em, baoab (xi + xi') / sqrt 2 of the fine chain's two numbers (the paper; for EM this is
              the exact Brownian increment over h)

Coupling of the minibatches (``CoupledBatches``; the fine chain's batches b1, b2, the coarse
chain's bc per coarse step):

    full               no batches
    iid, iid_wor       b1, b2 fresh; bc = b1 or b2 with probability 1/2 each
    sms, reshuffle     the fine chain runs its own schedule (a palindromic sweep of 2 N_m
                       steps per epoch for sms), the coarse chain an independent schedule of
                       the same kind over the same fixed partition (half a sweep per epoch),
                       as the authors' SMS_UBU2 (multinomial_SMS_UBU.ipynb)

Both chains start at the same x0 with the same velocity. Every marginal law is the real
scheme's, so the estimator is unbiased for D(h) at any coupling quality; the coupling only
sets its variance.

Error bars: the recorded steps after burn-in are cut into ``n_chunks`` equal consecutive
chunks (batch means, over all chains); a chunk's level differences are summed over levels to
give that chunk's telescoped bias, and SE = std over chunks (ddof 1) / sqrt(n_chunks).
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from ..batching import Schedule
from ..integrators.base import Integrator, State, StepContext, capable, get_integrator
from ..integrators.ou import ou_constants
from ..plumbing.rng import GaussianNoise
from ..potential import Oracle, Potential
from ..simulate import advance

Combine = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


# ------------------------------------------------------------------------------------- noise
def mean_pair(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """(xi + xi') / sqrt 2: standard normal again, the paper's coarse noise for EM and BAOAB."""
    return (a + b) * (1.0 / math.sqrt(2.0))


def ou_pair_combiner(gamma: float, tau: float) -> Combine:
    """Map the numbers (a, b) of two consecutive U(tau) flows (each [2, ...]: xi_1, xi_2 of
    ``ou_step``) to the numbers of one U(2 tau) flow with the same end point.

    With U(tau): x' = x + D v + s_x xi_1, v' = e v + rho xi_1 + s_v xi_2 (ou.py), two flows give

        x'' = x + D (1 + e) v + n_x,   n_x = (s_x + D rho) a_1 + D s_v a_2 + s_x b_1
        v'' = e^2 v + n_v,             n_v = e rho a_1 + e s_v a_2 + rho b_1 + s_v b_2,

    and D (1 + e) = D(2 tau), e^2 = e(2 tau). U(tau) U(tau) = U(2 tau) in law, so (n_x, n_v) has
    the U(2 tau) noise covariance and xi_1 = n_x / S_x, xi_2 = (n_v - R xi_1) / S_v (capitals:
    the constants of U(2 tau)) are independent N(0, 1) whose U(2 tau) flow is pathwise the
    two U(tau) flows.
    """
    c, c2 = ou_constants(gamma, tau), ou_constants(gamma, 2 * tau)
    ka1, ka2 = c.s_x + c.drift * c.rho, c.drift * c.s_v
    la1, la2 = c.eta * c.rho, c.eta * c.s_v
    inv_sx = 1.0 / c2.s_x if c2.s_x > 0 else 0.0
    inv_sv = 1.0 / c2.s_v if c2.s_v > 0 else 0.0

    def combine(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        nx = a[0] * ka1 + a[1] * ka2 + b[0] * c.s_x
        nv = a[0] * la1 + a[1] * la2 + b[0] * c.rho + b[1] * c.s_v
        xi1 = nx * inv_sx
        return torch.stack([xi1, (nv - c2.rho * xi1) * inv_sv])

    return combine


def _not_coupled(scheme: str) -> ValueError:
    return ValueError(f"integrator={scheme}: no multilevel coupling; allowed: {', '.join(capable('coupled'))}")


def combiner_for(scheme: str, gamma: float, h: float) -> Combine:
    """The noise coupling of ``scheme`` with coarse step h (fine step h/2)."""
    if scheme == "ubu":
        return ou_pair_combiner(gamma, h / 4)  # UBU at h/2 draws U(h/4) flows
    if scheme in ("em", "baoab"):
        return mean_pair
    raise _not_coupled(scheme)


class PairedNoise:
    """Noise sources of a coupled (fine, coarse) pair.

    ``fine(*shape, like=t)`` draws fresh numbers from ``base`` and keeps them; the coarse
    source's k-th call returns ``combine`` of the fine draws 2k and 2k+1, which must have its
    shape (the fine chain must have drawn them first). With ``coupled=False`` the coarse
    chain draws fresh independent numbers instead (the uncoupled estimator).
    """

    def __init__(
        self,
        base: GaussianNoise,
        combine: Combine,
        coupled: bool = True,
        coarse_base: GaussianNoise | None = None,
    ):
        self.base, self.combine, self.coupled = base, combine, coupled
        self.coarse_base = coarse_base
        self._queue: deque[torch.Tensor] = deque()
        self.fine = _FineNoise(self)
        self.coarse = _CoarseNoise(self)


class _FineNoise:
    def __init__(self, pair: PairedNoise):
        self.pair = pair

    def __call__(self, *shape: int, like: torch.Tensor) -> torch.Tensor:
        xi = self.pair.base(*shape, like=like)
        if self.pair.coupled:
            self.pair._queue.append(xi)
        return xi


class _CoarseNoise:
    def __init__(self, pair: PairedNoise):
        self.pair = pair

    def __call__(self, *shape: int, like: torch.Tensor) -> torch.Tensor:
        p = self.pair
        if not p.coupled:
            return (p.coarse_base or p.base)(*shape, like=like)
        if len(p._queue) < 2:
            raise RuntimeError("coupled noise: the coarse chain drew before the fine chain's two steps")
        a, b = p._queue.popleft(), p._queue.popleft()
        if tuple(a.shape) != tuple(shape) or tuple(b.shape) != tuple(shape):
            raise RuntimeError(
                f"coupled noise: coarse draw {tuple(shape)} does not match fine draws {tuple(a.shape)}, {tuple(b.shape)}"
            )
        return p.combine(a, b).to(dtype=like.dtype)


# ----------------------------------------------------------------------------------- batches
class CoupledBatches:
    """Per coarse step, the minibatches (b1, b2) of the fine chain's two steps and bc of the
    coarse step (see the module docstring). ``coupled=False``: bc from an independent schedule
    of the same kind."""

    def __init__(
        self, kind: str, n_data: int, batch_size: int, *, chains: int | None = None, partition: str = "fixed",
        generator: torch.Generator, device="cpu", coupled: bool = True,
    ):  # fmt: skip
        self.kind, self.coupled, self.generator = kind, coupled, generator
        self.fine = Schedule(
            kind, n_data, batch_size, chains=chains, partition=partition, generator=generator, device=device
        )
        self.coarse = Schedule(
            kind, n_data, batch_size, chains=chains, partition=partition, generator=generator, device=device
        )
        shared = self.fine.state_dict().get("fixed_partition")
        if shared is not None:  # both chains sweep the same minibatches (authors' code)
            self.coarse.load_state_dict({"pos": torch.tensor(0), "fixed_partition": shared})
        self.scale, self.eps, self.n_batches = self.fine.scale, self.fine.eps, self.fine.n_batches

    def next(self):
        b1, b2 = self.fine.next(), self.fine.next()
        if self.kind == "full":
            return None, None, None
        if self.coupled and self.kind in ("iid", "iid_wor"):
            lead = b1.shape[:-1]  # () shared by the chains, (C,) one batch per chain
            coin = torch.rand(lead, generator=self.generator, device=b1.device) < 0.5
            return b1, b2, torch.where(coin[..., None], b1, b2)
        return b1, b2, self.coarse.next()


# ------------------------------------------------------------------------------------ levels
@dataclass
class LevelResult:
    """One coupled level: coarse step h, fine step h/2.

    ``coarse``/``fine`` [n_chunks, m]: chunk means (over chains and recorded steps) of the
    flattened test functions; ``var_coarse``/``var_diff`` [m]: the variance over chains and
    recorded steps of f(coarse) and of f(coarse) - f(fine) (the coupling's quality);
    ``diverged``: chains with non-finite states at the end."""

    h: float
    coarse: np.ndarray
    fine: np.ndarray
    var_coarse: np.ndarray
    var_diff: np.ndarray
    steps: int
    burn_in: int
    records: int
    diverged: int = 0
    shape: tuple[int, ...] = ()
    seconds: float = 0.0

    @property
    def diff(self) -> np.ndarray:
        """Estimated D(h) = E_h f - E_{h/2} f per test function, [m]."""
        return (self.coarse - self.fine).mean(0)

    @property
    def diff_se(self) -> np.ndarray:
        return _chunk_se(self.coarse - self.fine)

    @property
    def coarse_mean(self) -> np.ndarray:
        return self.coarse.mean(0)

    @property
    def fine_mean(self) -> np.ndarray:
        return self.fine.mean(0)

    def coupling_ratio(self) -> float:
        """mean Var(f(coarse) - f(fine)) / mean Var(f(coarse)) over the test functions."""
        return float(self.var_diff.mean() / max(self.var_coarse.mean(), 1e-300))


def _chunk_se(chunks: np.ndarray) -> np.ndarray:
    n = chunks.shape[0]
    return chunks.std(0, ddof=1) / math.sqrt(n) if n > 1 else np.full(chunks.shape[1:], np.nan)


def run_level(
    integrator: str | Callable[[], Integrator],
    potential: Potential,
    x0: torch.Tensor,
    *,
    h: float,
    gamma: float,
    batches: CoupledBatches,
    steps: int,
    burn_in: int,
    test_fn: Callable[[torch.Tensor], torch.Tensor],
    seed: int = 0,
    record_every: int = 1,
    n_chunks: int = 4,
    coupled: bool = True,
    params: dict | None = None,
) -> LevelResult:
    """Run a coupled pair for ``steps`` coarse steps (2 ``steps`` fine steps) from x0 [C, d].

    ``integrator``: a registered name (with ``params``) or a factory; each chain gets its own
    instance. After ``burn_in`` coarse steps, every ``record_every``-th coarse step records
    ``test_fn(x)`` ([C, ...], flattened to [C, m]) of both chains. ``coupled=False`` gives
    independent noise and batches (the uncoupled estimator, for comparison).
    """
    import time

    t0 = time.perf_counter()
    make = (lambda: get_integrator(integrator, **(params or {}))) if isinstance(integrator, str) else integrator
    fine_int, coarse_int = make(), make()
    scheme = fine_int.name
    if not fine_int.coupled:
        raise _not_coupled(scheme)
    if steps <= burn_in:
        raise ValueError(f"steps ({steps}) must exceed burn_in ({burn_in})")
    n_records = (steps - burn_in + record_every - 1) // record_every
    if n_records < n_chunks:
        raise ValueError(f"{n_records} recorded steps cannot fill n_chunks={n_chunks}")
    dev = x0.device
    base = GaussianNoise(dev, seed)
    pair = PairedNoise(
        base, combiner_for(scheme, gamma, h), coupled=coupled, coarse_base=GaussianNoise(dev, seed + 7919)
    )
    fine_ctx = StepContext(h=h / 2, gamma=gamma, noise=pair.fine, total_steps=2 * steps, burn_in=2 * burn_in)
    coarse_ctx = StepContext(h=h, gamma=gamma, noise=pair.coarse, total_steps=steps, burn_in=burn_in)
    fine = fine_int.init_state(x0, StepContext(h=h / 2, gamma=gamma, noise=base))
    coarse = State(fine.x.clone(), fine.v.clone(), dict(fine.extra))
    scale, eps = batches.scale, batches.eps

    def supplier(idx):
        oracle = Oracle(potential, idx, scale, eps)
        return lambda: oracle  # first-same-as-last schemes ask twice on their first step

    sums_c = sums_f = None
    sq_c = sq_d = lin_c = lin_d = None
    chunk_of = np.minimum(np.arange(n_records) * n_chunks // n_records, n_chunks - 1)
    counts = np.bincount(chunk_of, minlength=n_chunks)
    shape: tuple[int, ...] = ()
    rec = 0
    with torch.no_grad():
        for k in range(steps):
            b1, b2, bc = batches.next()
            fine_ctx.step = 2 * k
            fine = advance(fine_int, fine, 1, supplier(b1), fine_ctx)
            fine_ctx.step = 2 * k + 1
            fine = advance(fine_int, fine, 1, supplier(b2), fine_ctx)
            coarse_ctx.step = k
            coarse = advance(coarse_int, coarse, 1, supplier(bc), coarse_ctx)
            if k < burn_in or (k - burn_in) % record_every:
                continue
            fc, ff = test_fn(coarse.x), test_fn(fine.x)
            if sums_c is None:
                shape = tuple(fc.shape[1:])
                m = int(np.prod(shape)) if shape else 1
                sums_c = torch.zeros(n_chunks, m, dtype=torch.float64, device=dev)
                sums_f = torch.zeros_like(sums_c)
                sq_c, sq_d = (
                    torch.zeros(m, dtype=torch.float64, device=dev),
                    torch.zeros(m, dtype=torch.float64, device=dev),
                )
                lin_c, lin_d = torch.zeros_like(sq_c), torch.zeros_like(sq_c)
            fc = fc.reshape(fc.shape[0], -1).double()
            ff = ff.reshape(ff.shape[0], -1).double()
            d = fc - ff
            j = int(chunk_of[rec])
            sums_c[j] += fc.mean(0)
            sums_f[j] += ff.mean(0)
            lin_c += fc.sum(0)
            lin_d += d.sum(0)
            sq_c += (fc * fc).sum(0)
            sq_d += (d * d).sum(0)
            rec += 1
    C = x0.shape[0]
    n_all = rec * C
    var_c = (sq_c / n_all - (lin_c / n_all) ** 2).cpu().numpy()
    var_d = (sq_d / n_all - (lin_d / n_all) ** 2).cpu().numpy()
    bad = ~(torch.isfinite(coarse.x).all(1) & torch.isfinite(fine.x).all(1))
    cnt = torch.as_tensor(counts, dtype=torch.float64, device=dev)[:, None]
    return LevelResult(
        h=float(h), coarse=(sums_c / cnt).cpu().numpy(), fine=(sums_f / cnt).cpu().numpy(),
        var_coarse=var_c, var_diff=var_d, steps=steps, burn_in=burn_in, records=rec,
        diverged=int(bad.sum()), shape=shape, seconds=time.perf_counter() - t0,
    )  # fmt: skip


# ------------------------------------------------------------------------------- telescoping
@dataclass
class TelescopedBias:
    """bias(h_k) = sum_{j >= k} D(h_j) per test function, with chunk standard errors.

    ``hs`` [L] coarse steps (descending, halving); ``bias``/``se`` [L, m]; ``chunks``
    [L, n_chunks, m] the per-chunk telescoped sums; ``finest`` = h_L = hs[-1] / 2, the
    reference step."""

    hs: np.ndarray
    bias: np.ndarray
    se: np.ndarray
    chunks: np.ndarray
    finest: float
    levels: list[LevelResult] = field(default_factory=list)

    def mean_abs(self, weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The paper's summary mean_i |bias_i(h_k)| over test functions (``weights`` [m] select
        and weight them, e.g. the true-class entries), per level: (value [L], se [L],
        noise_floor [L]).

        se linearises |.| at the estimate: the chunk statistics mean_i sign(bias_i) chunk_i,
        whose mean is the value. noise_floor = sqrt(2/pi) mean_i se_i is E|estimate| of a
        test function with zero bias: values near it are not resolved.
        """
        w = np.ones(self.bias.shape[1]) if weights is None else np.asarray(weights, float)
        w = w / w.sum()
        sign = np.sign(self.bias)
        value = (np.abs(self.bias) * w).sum(1)
        lin = (self.chunks * (sign * w)[:, None, :]).sum(2)  # [L, n_chunks]
        se = lin.std(1, ddof=1) / math.sqrt(lin.shape[1])
        floor = math.sqrt(2 / math.pi) * (self.se * w).sum(1)
        return value, se, floor

    def log2_spread(self, weights: np.ndarray | None = None) -> np.ndarray:
        """The authors' error bar (multinomial_SMS_UBU.ipynb): std over chunks of log2(mean_i |chunk bias_i|) / 2."""
        w = np.ones(self.bias.shape[1]) if weights is None else np.asarray(weights, float)
        w = w / w.sum()
        per_chunk = (np.abs(self.chunks) * w).sum(2)  # [L, n_chunks]
        return np.log2(per_chunk).std(1) / 2

    def slopes(self, values: np.ndarray | None = None) -> np.ndarray:
        """log2(value(h_k) / value(h_{k+1})): about 2 per halving for weak order 2, 1 for order 1."""
        v = self.mean_abs()[0] if values is None else np.asarray(values)
        return np.log2(v[:-1] / v[1:])


def telescope(levels: Sequence[LevelResult]) -> TelescopedBias:
    """Sum the level differences from each level down to the finest (levels in any order; the
    coarse steps must halve from one level to the next and share n_chunks and m)."""
    lv = sorted(levels, key=lambda r: -r.h)
    for a, b in itertools.pairwise(lv):
        if not math.isclose(b.h, a.h / 2, rel_tol=1e-9):
            raise ValueError(f"levels must halve: coarse steps {a.h:g} then {b.h:g} (expected {a.h / 2:g})")
    shapes = {r.coarse.shape for r in lv}
    if len(shapes) != 1:
        raise ValueError(f"levels differ in (n_chunks, test functions): {sorted(shapes)}")
    diffs = np.stack([r.coarse - r.fine for r in lv])  # [L, n_chunks, m]
    chunks = np.cumsum(diffs[::-1], axis=0)[::-1]
    bias = chunks.mean(1)
    se = chunks.std(1, ddof=1) / math.sqrt(chunks.shape[1])
    return TelescopedBias(np.array([r.h for r in lv]), bias, se, chunks, lv[-1].h / 2, list(lv))


def multilevel_bias(
    integrator: str,
    potential: Potential,
    x0: torch.Tensor,
    *,
    hs: Sequence[float],
    gamma: float,
    batching: str,
    batch_size: int,
    steps: Callable[[float], int],
    burn_in: Callable[[float], int],
    test_fn: Callable[[torch.Tensor], torch.Tensor],
    seed: int = 0,
    per_chain: bool = False,
    partition: str = "fixed",
    n_chunks: int = 4,
    record_every: int | Callable[[float], int] = 1,
    params: dict | None = None,
    coupled: bool = True,
    on_level: Callable[[LevelResult], None] | None = None,
) -> TelescopedBias:
    """Coupled levels (h, h/2) for every h in ``hs`` (halving), then ``telescope``.
    ``steps(h)``/``burn_in(h)``: coarse steps of the level with coarse step h."""
    results = []
    for i, h in enumerate(hs):
        gen = torch.Generator(device=x0.device)
        gen.manual_seed(seed * 1000 + i)
        batches = CoupledBatches(
            batching, potential.n_data, batch_size, chains=x0.shape[0] if per_chain else None,
            partition=partition, generator=gen, device=x0.device, coupled=coupled,
        )  # fmt: skip
        every = record_every(h) if callable(record_every) else record_every
        r = run_level(
            integrator, potential, x0, h=h, gamma=gamma, batches=batches, steps=steps(h), burn_in=burn_in(h),
            test_fn=test_fn, seed=seed * 1000 + 100 + i, record_every=every, n_chunks=n_chunks, coupled=coupled,
            params=params,
        )  # fmt: skip
        if on_level is not None:
            on_level(r)
        results.append(r)
    return telescope(results)
