"""The runs of franzese2021 App. E (Figs. 3 and 6): one condition (integrator x batching) of the
1-D toy ``franzese_toy``, its pooled draws held to the exact stationary moments of the same
integrator under the same schedule and to the posterior (``toy_cell``); and of franzese2021 §5,
Fig. 1, App. F.1: the average Kolmogorov distance of one scheme's predictive draws on the random
trigonometric features to exact draws (``trig_cell``).

Runs go through the simulation kernel ``bnnsample.simulate``, all chains as one tensor dimension.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ...analysis.exact import full_batch_stationary_akd

TOY_POSTERIOR = (2 / 15, 1 / 3)  # (mean, variance) of the toy's exact posterior


@dataclass
class ToyCell:
    label: str
    integrator: str
    batching: str
    h: float
    gamma: float
    samples: np.ndarray = field(repr=False, default=None)
    mc: dict = field(default_factory=dict)
    exact: dict = field(default_factory=dict)
    ks: float = math.nan
    ks_floor: float = math.nan
    excess_kurtosis: float = math.nan
    excess_kurtosis_se: float = math.nan  # over 20 groups of chains
    seconds: float = 0.0


KURTOSIS_GROUPS = 20  # groups of chains for the s.e. of the pooled excess kurtosis


def toy_cell(pot, label: str, integrator: str, batching: str, h: float, gamma: float, chains: int, draws: int,
             thin: int, burn_in: int, seed: int = 0) -> ToyCell:  # fmt: skip
    """One condition of the App. E toy: pooled draws, their moments, KS to the posterior and the
    exact stationary moments of the same integrator under the same schedule."""
    from scipy import stats

    from ...analysis.recorded import exact_iid_excess_kurtosis, exact_recorded_moments, pooled_moments
    from ...evaluate.metrics import iid_floor, kolmogorov_distance_normal
    from ...simulate import draws as run_draws

    t0 = time.perf_counter()
    cell = ToyCell(label, integrator, batching, h, gamma)
    rec, diverged = run_draws(pot, integrator, {}, chains=chains, h=h, gamma=gamma, burn_in=burn_in, thin=thin,
                              records=draws, batching=batching, batch_size=1, seed=seed)  # fmt: skip
    if diverged.any():
        raise RuntimeError(f"{integrator}/{batching}: {int(diverged.sum())} chains diverged at h={h}")
    steps = burn_in + thin * np.arange(1, draws + 1)
    cell.exact = exact_recorded_moments(pot, integrator, {}, batching, 1, h, gamma, steps)
    cell.mc = pooled_moments(rec)
    flat = rec.reshape(-1)
    mean, var = TOY_POSTERIOR
    cell.samples = flat
    cell.ks = kolmogorov_distance_normal(flat, mean, math.sqrt(var))
    cell.ks_floor = iid_floor(kolmogorov_distance_normal, mean, math.sqrt(var), flat.size, seed + 99)
    cell.excess_kurtosis = float(stats.kurtosis(flat))
    per_chain = np.asarray(rec).reshape(np.shape(rec)[0], -1)  # [draws, chains]
    groups = np.array_split(np.arange(per_chain.shape[1]), KURTOSIS_GROUPS)
    cell.excess_kurtosis_se = float(np.std([stats.kurtosis(per_chain[:, g].ravel()) for g in groups], ddof=1)
                                    / math.sqrt(len(groups)))  # fmt: skip
    if batching == "iid":
        cell.exact["excess_kurtosis"] = exact_iid_excess_kurtosis(pot, integrator, {}, 1, h, gamma)["excess_kurtosis"]
    cell.seconds = time.perf_counter() - t0
    return cell


# -- franzese2021 §5, Fig. 1, App. F.1: random trigonometric features ------------------------------
BURN_TIME, THIN_TIME = 20.0, 2.5  # simulated time of the burn-in and between draws (App. F.2: equal simulated time)


@dataclass
class TrigCell:
    label: str
    integrator: str
    batch: object  # "full" or an int
    h: float
    akd: float = math.nan
    exact_akd: float = math.nan  # full batch: AKD of the scheme's exact (Gaussian) stationary law
    diverged: bool = False
    steps: int = 0
    seconds: float = 0.0


def trig_cell(pot, label: str, integrator: str, batch, h: float, gamma: float, chains: int, draws: int,
              reference: np.ndarray, seed: int = 0, exact: bool = True) -> TrigCell:  # fmt: skip
    """AKD of chains x draws pooled predictive samples of one scheme/batch/step size h to ``reference``
    (and, with the full batch and ``exact``, the AKD of the scheme's exact stationary law)."""
    from ...evaluate.metrics import average_kolmogorov_distance
    from ...simulate import draws as run_draws

    t0 = time.perf_counter()
    cell = TrigCell(label, integrator, batch, h)
    batching, n = ("full", pot.n_data) if batch == "full" else ("reshuffle", int(batch))
    burn, thin = math.ceil(BURN_TIME / h), math.ceil(THIN_TIME / h)
    rec, diverged = run_draws(pot, integrator, {}, chains=chains, h=h, gamma=gamma, burn_in=burn, thin=thin,
                              records=draws, observe=lambda x: pot.predict(x)[..., 0], batching=batching,
                              batch_size=n, seed=seed)  # fmt: skip
    cell.steps = burn + thin * draws
    # non-finite, or blown up far beyond the O(1) predictive values (unstable step size)
    cell.diverged = bool(diverged.any()) or not np.nanmax(np.abs(rec)) < 1e3
    if exact and batch == "full":
        cell.exact_akd = full_batch_stationary_akd(pot, integrator, h, gamma)
    if not cell.diverged:
        cell.akd = average_kolmogorov_distance(rec.reshape(-1, rec.shape[-1]), reference)
    cell.seconds = time.perf_counter() - t0
    return cell
