"""The runs of paulin2025 §3.4 (Fig. 1): one (sampler, h) cell of the two-batch Gaussian, its W1
to the posterior with a delta-method s.e., its Monte Carlo floors and the exact moments of its
recorded law (``run_cell``); the exact W1 of BAOAB under the authors' fixed batch order
(``notebook_order_w1``).

Runs go through the simulation kernel ``bnnsample.simulate``, all chains as one tensor dimension.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

GAMMA_TWO_BATCH = 1.0
STEPS = (0.25, 0.125, 0.0625, 0.03125)  # h = 2^-(k+2), k = 0..3
# the authors' notebook's SMS-BAOAB used the fixed batch order 0,1,1,0 (it never applies its random permutation)
FIXED_ORDER = (0, 1, 1, 0)
NOISE_FLOORS = 3  # a W1 below this many Monte Carlo floors mostly measures sampling noise


@dataclass
class Cell:
    label: str
    preset: str
    h: float
    gamma: float
    chains: int
    records: int
    thin_epochs: int
    burn_epochs: int
    w1: float = math.nan
    w1_se: float = math.nan  # delta-method Monte Carlo s.e. over the independent chains
    # per-chain mean influence of W1 (delta method), chains in seed order: cells run with the same seed pair
    # chain by chain, and the s.e. of their difference is that of the paired influences
    w1_psi: np.ndarray | None = field(default=None, repr=False)
    w1_floor: float = math.nan  # W1 of an exact sampler under the same protocol (noise_floor)
    w1_iid: float = math.nan  # W1 of as many i.i.d. exact draws
    derived_w1: float = math.nan  # SMS-BAOAB: exact W1 with the authors' fixed batch order (notebook_order_w1)
    diverged_frac: float = 0.0
    max_abs: float = math.nan
    mc: dict = field(default_factory=dict)
    exact: dict = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def noise_limited(self) -> bool:
        return math.isfinite(self.w1) and self.w1 < NOISE_FLOORS * self.w1_floor

    @property
    def mixed(self) -> bool:
        """The exact second-moment recursion has contracted by 1e-3 within the burn-in (else the
        recorded law is still transient and need not match the stationary moments)."""
        cycles = 2 * self.burn_epochs / self.exact["cycle"]
        return self.exact["rho"] ** cycles < 1e-3

    @property
    def diverged(self) -> bool:
        return self.diverged_frac > 0 or not self.exact.get("stable", True)


def noise_floor(pot, k: int, chains: int, records: int, thin_epochs: int, seed: int) -> float:
    """W1 to the posterior of the same protocol (chains, burn-in, records, thin) run with the
    exact full-batch flow ``exact_ou``, whose law is the posterior for every h: the Monte Carlo
    floor of W1 with correlated records (larger than that of i.i.d. draws)."""
    from ...evaluate.metrics import wasserstein1_normal
    from ...simulate import draws

    rec, _ = draws(pot, "exact_ou", {}, chains=chains, h=STEPS[k], gamma=GAMMA_TWO_BATCH, burn_in=100 * 2**k,
                   thin=2 * thin_epochs, records=records, batching="full", batch_size=2, seed=seed + 555)  # fmt: skip
    mean, cov = (t.numpy() for t in pot.exact_posterior())
    return wasserstein1_normal(rec.reshape(-1), float(mean[0]), math.sqrt(float(cov[0, 0])))


def notebook_order_w1(pot, h: float, gamma: float, order: tuple = FIXED_ORDER) -> float:
    """Exact W1 to the posterior of the recorded law of BAOAB (the sms_baoab preset) with the
    authors' fixed batch order (their notebook's SMS-BAOAB): ``analysis.exact.fixed_order_w1``."""
    from ...analysis import exact
    from ...simulate import preset_scheme

    name, params, _, _ = preset_scheme("sms_baoab")
    return exact.fixed_order_w1(pot, name, params, h, gamma, order)


def notebook_phase(name: str, batching: str) -> int:
    """Steps by which a cell's records follow the epoch's end, so that they fall where the authors' notebook
    records: 1 for a first-same-as-last splitting (BAOAB) with batches in epoch order (without replacement,
    SMS), else 0. Our FSAL step k takes its first force from batch k and its last from batch k + 1 (g_0 =
    G(x_0, omega_1), Algorithm 5 as written); the notebook's takes its last from batch k (Algorithm 6's
    "gradient with current batch"; its g_0 from a batch outside the schedule), so its epoch ends one of our
    steps later. The chain is the same; only the phase of the records within the epoch differs, and with
    batches in epoch order the law at the records depends on it (with i.i.d. batches it does not)."""
    from ...integrators import get_integrator
    from ...integrators.langevin import FirstSameAsLast

    return int(isinstance(get_integrator(name), FirstSameAsLast) and batching in ("reshuffle", "sms"))


def run_cell(
    pot,
    label: str,
    preset: str,
    k: int,
    chains: int,
    records: int,
    thin_epochs: int,
    seed: int,
    gamma: float = GAMMA_TWO_BATCH,
    floor: float | None = None,
) -> Cell:
    """One (sampler, h = STEPS[k]) cell: the Monte Carlo W1 and moments, and the exact moments.
    A cell whose exact second-moment recursion is unstable (spectral radius >= 1) or whose
    chains went non-finite is diverged: no W1."""
    from ...analysis.recorded import exact_recorded_moments, pooled_moments
    from ...evaluate.metrics import iid_floor, wasserstein1_normal, wasserstein1_normal_influence
    from ...simulate import draws, preset_scheme

    t0 = time.perf_counter()
    h = STEPS[k]
    name, params, batching, partition = preset_scheme(preset)
    burn_epochs = 50 * 2**k
    steps_per_epoch = 2  # N / n
    cell = Cell(label, preset, h, gamma, chains, records, thin_epochs, burn_epochs)
    phase = notebook_phase(name, batching)
    rec, diverged = draws(pot, name, params, chains=chains, h=h, gamma=gamma,
                          burn_in=burn_epochs * steps_per_epoch + phase, thin=thin_epochs * steps_per_epoch,
                          records=records, batching=batching, batch_size=1, partition=partition, seed=seed)  # fmt: skip
    mean, cov = (t.numpy() for t in pot.exact_posterior())
    mu, sd = float(mean[0]), math.sqrt(float(cov[0, 0]))
    cell.diverged_frac = float(diverged.mean())
    record_steps = burn_epochs * steps_per_epoch + phase + thin_epochs * steps_per_epoch * np.arange(1, records + 1)
    cell.exact = exact_recorded_moments(pot, name, params, batching, 1, h, gamma, record_steps)
    cell.max_abs = float(np.nanmax(np.abs(rec))) if np.isfinite(rec).any() else math.inf
    if not cell.diverged:
        cell.w1, cell.w1_se, cell.w1_psi = wasserstein1_normal_influence(rec.T, mu, sd)
        cell.w1_iid = iid_floor(wasserstein1_normal, mu, sd, rec.size, seed + 17)
        cell.w1_floor = cell.w1_iid if floor is None else floor
        cell.mc = pooled_moments(rec)
    if preset == "sms_baoab":
        cell.derived_w1 = notebook_order_w1(pot, h, gamma)
    cell.seconds = time.perf_counter() - t0
    return cell
