"""Runs on the papers' low-dimensional toys, measured against their exact laws.

matthews2018 §5.1 (Fig. 1): the long-run variance each scheme samples on the noisy Gaussian and
the double well (``toy_bias``), the error of each run's running variance against the iteration
count with the histogram it ends at (``toy_convergence``), and the toys' exact densities
(``exact_density``). Conventions of the authors' code (c-matthews/nogin), as in
``analysis.passes``: friction gamma = 1; mSGLD's step is eps = h^2/2 for the paper's h
(``step_size_for``).

franzese2021 App. E (Figs. 3 and 6): one condition (integrator x batching) of the 1-D toy
``franzese_toy``, its pooled draws held to the exact stationary moments of the same integrator
under the same schedule and to the posterior (``toy_cell``). franzese2021 §5, Fig. 1, App. F.1:
the average Kolmogorov distance of one scheme's predictive draws on the random trigonometric
features to exact draws (``trig_cell``).

paulin2025 §3.4 (Fig. 1): one (sampler, h) cell of the two-batch Gaussian, its W1 to the posterior
with a delta-method s.e., its Monte Carlo floors and the exact moments of its recorded law
(``run_cell``); the exact W1 of BAOAB under the authors' fixed batch order (``fixed_order_w1``).

Runs go through the simulation kernel ``bnnsample.simulate``, all chains as one tensor dimension.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from .exact import full_batch_stationary_akd
from .passes import GAMMA, step_size_for

DW_VAR = 1.0417972965  # double-well variance (matthews2018 §5.1 target; quadrature, derived for this project)
FIG1_TARGETS = {"gaussian": ("noisy_gaussian", 1.0), "double_well": ("double_well", DW_VAR)}


def potential_of(overrides, seed: int = 0):
    """The potential of ``dataset=...`` overrides, float64 on the CPU, one torch thread."""
    from ..simulate import build_target

    return build_target(overrides, seed=seed, threads=1).potential


def toy_bias(target: str, scheme: str, h: float, chains: int, T: float, seed: int = 0) -> dict:
    """Long-run variance of x for one scheme at the paper's step h: ``chains`` independent
    chains from x = 0 run for time T (plus 10% burn-in; mSGLD's time per step is eps = h^2/2),
    variance = pooled mean of the per-chain time averages of x^2 minus the squared pooled mean.
    bias = variance - exact, se from the spread of the per-chain time averages."""
    import torch

    from ..simulate import simulate

    ds, exact = FIG1_TARGETS[target]
    pot = potential_of([f"dataset={ds}"], seed=seed)
    step = step_size_for(scheme, h)
    steps = math.ceil(T / step)
    burn = steps // 10
    acc = {"s1": torch.zeros(chains, dtype=torch.float64), "s2": torch.zeros(chains, dtype=torch.float64)}

    def record(t, st):
        if t > burn:
            acc["s1"] += st.x[:, 0]
            acc["s2"] += st.x[:, 0] ** 2

    x0 = torch.zeros(chains, 1, dtype=torch.float64)
    simulate(pot, scheme, h=step, gamma=GAMMA, x0=x0, steps=steps + burn, record=record, seed=seed)
    m1, m2 = (acc[k].numpy() / steps for k in ("s1", "s2"))
    with np.errstate(all="ignore"):
        ok = np.isfinite(m1) & np.isfinite(m2) & (np.abs(m2) < 1e6)
    var = se = math.nan
    if ok.sum() >= max(2, chains // 2):  # the bias is reported only where most chains stay finite
        var = float(m2[ok].mean() - m1[ok].mean() ** 2)
        # delta method over independent chains: Var = E m2 - (E m1)^2
        g = m2[ok] - 2 * m1[ok].mean() * m1[ok]
        se = float(g.std(ddof=1) / math.sqrt(ok.sum()))
    return {"target": target, "scheme": scheme, "h": h, "step_size": step, "steps": steps, "burn_in": burn,
            "chains": chains, "diverged": int((~ok).sum()), "variance": var, "exact": exact,
            "bias": var - exact, "se": se}  # fmt: skip


def toy_convergence(target: str, scheme: str, h: float, runs: int, iters: int, seed: int = 0):
    """Error of each run's running variance estimate against the iteration count at step h:
    ``runs`` independent chains from x = 0, no burn-in; at log-spaced iterations the average
    over the runs of |var_run - exact| (var_run = time average of x^2 minus the squared time
    average of x over the run so far). Also the histogram of the second half of all runs."""
    import torch

    from ..simulate import simulate

    ds, exact = FIG1_TARGETS[target]
    pot = potential_of([f"dataset={ds}"], seed=seed)
    checks = sorted({round(v) for v in np.geomspace(10, iters, 25)})
    edges = np.linspace(-3.5, 3.5, 71)
    acc = {"s1": torch.zeros(runs, dtype=torch.float64), "s2": torch.zeros(runs, dtype=torch.float64),
           "hist": np.zeros(len(edges) - 1), "out": []}  # fmt: skip

    def record(t, st):
        x = st.x[:, 0]
        acc["s1"] += x
        acc["s2"] += x * x
        if t > iters // 2 and t % 10 == 0:
            xn = x.numpy()
            acc["hist"] += np.histogram(xn[np.isfinite(xn)], edges)[0]
        if t in checks:
            m1, m2 = acc["s1"].numpy() / t, acc["s2"].numpy() / t
            with np.errstate(all="ignore"):
                err = np.abs(m2 - m1 * m1 - exact)
            ok = np.isfinite(err) & (err < 1e6)  # larger: a run on its way to overflow
            acc["out"].append({"target": target, "scheme": scheme, "h": h, "iterations": t,
                               "mean_abs_error": float(err[ok].mean()) if ok.sum() > runs // 2 else math.nan,
                               "diverged": int((~ok).sum()), "runs": runs})  # fmt: skip

    x0 = torch.zeros(runs, 1, dtype=torch.float64)
    simulate(pot, scheme, h=step_size_for(scheme, h), gamma=GAMMA, x0=x0, steps=iters, record=record, seed=seed)
    hist = acc["hist"] / max(acc["hist"].sum(), 1) / np.diff(edges)
    return acc["out"], edges, hist


def exact_density(target: str, x):
    """The exact density of a toy (a key of FIG1_TARGETS) at x, normalised by the trapezoidal rule on [-6, 6]."""
    grid = np.linspace(-6, 6, 4001)
    v, vg = ((y**2 / 2 if target == "gaussian" else (y**2 - 1) ** 2 / 4) for y in (x, grid))
    return np.exp(-v) / np.trapezoid(np.exp(-vg), grid)


# -- franzese2021 §5 and App. E (Figs. 3 and 6): the 1-D toy ``franzese_toy`` -------------------------
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
    seconds: float = 0.0


def toy_cell(pot, label: str, integrator: str, batching: str, h: float, gamma: float, chains: int, draws: int,
             thin: int, burn_in: int, seed: int = 0) -> ToyCell:  # fmt: skip
    """One condition of the App. E toy: pooled draws, their moments, KS to the posterior and the
    exact stationary moments of the same integrator under the same schedule."""
    from scipy import stats

    from ..evaluate.metrics import iid_floor, kolmogorov_distance_normal
    from ..simulate import draws as run_draws
    from .recorded import exact_recorded_moments, pooled_moments

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
    from ..evaluate.metrics import average_kolmogorov_distance
    from ..simulate import draws as run_draws

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


# -- paulin2025 §3.4, Fig. 1: the two-batch Gaussian ``two_batch_gaussian`` -------------------------
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
    w1_floor: float = math.nan  # W1 of an exact sampler under the same protocol (noise_floor)
    w1_iid: float = math.nan  # W1 of as many i.i.d. exact draws
    derived_w1: float = math.nan  # SMS-BAOAB: exact W1 with the authors' fixed batch order (fixed_order_w1)
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
    from ..evaluate.metrics import wasserstein1_normal
    from ..simulate import draws

    rec, _ = draws(pot, "exact_ou", {}, chains=chains, h=STEPS[k], gamma=GAMMA_TWO_BATCH, burn_in=100 * 2**k,
                   thin=2 * thin_epochs, records=records, batching="full", batch_size=2, seed=seed + 555)  # fmt: skip
    mean, cov = (t.numpy() for t in pot.exact_posterior())
    return wasserstein1_normal(rec.reshape(-1), float(mean[0]), math.sqrt(float(cov[0, 0])))


def fixed_order_w1(pot, h: float, gamma: float, order: tuple = FIXED_ORDER) -> float:
    """Exact W1 to the posterior of the recorded law of BAOAB (the sms_baoab preset) with the
    authors' fixed batch order (their notebook's SMS-BAOAB): ``analysis.exact.fixed_order_w1``."""
    from ..simulate import preset_scheme
    from . import exact

    name, params, _, _ = preset_scheme("sms_baoab")
    return exact.fixed_order_w1(pot, name, params, h, gamma, order)


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
    from ..evaluate.metrics import iid_floor, wasserstein1_normal, wasserstein1_normal_with_se
    from ..simulate import draws, preset_scheme
    from .recorded import exact_recorded_moments, pooled_moments

    t0 = time.perf_counter()
    h = STEPS[k]
    name, params, batching, partition = preset_scheme(preset)
    burn_epochs = 50 * 2**k
    steps_per_epoch = 2  # N / n
    cell = Cell(label, preset, h, gamma, chains, records, thin_epochs, burn_epochs)
    rec, diverged = draws(pot, name, params, chains=chains, h=h, gamma=gamma, burn_in=burn_epochs * steps_per_epoch,
                          thin=thin_epochs * steps_per_epoch, records=records, batching=batching, batch_size=1,
                          partition=partition, seed=seed)  # fmt: skip
    mean, cov = (t.numpy() for t in pot.exact_posterior())
    mu, sd = float(mean[0]), math.sqrt(float(cov[0, 0]))
    cell.diverged_frac = float(diverged.mean())
    record_steps = burn_epochs * steps_per_epoch + thin_epochs * steps_per_epoch * np.arange(1, records + 1)
    cell.exact = exact_recorded_moments(pot, name, params, batching, 1, h, gamma, record_steps)
    cell.max_abs = float(np.nanmax(np.abs(rec))) if np.isfinite(rec).any() else math.inf
    if not cell.diverged:
        cell.w1, cell.w1_se = wasserstein1_normal_with_se(rec.T, mu, sd)
        cell.w1_iid = iid_floor(wasserstein1_normal, mu, sd, rec.size, seed + 17)
        cell.w1_floor = cell.w1_iid if floor is None else floor
        cell.mc = pooled_moments(rec)
    if preset == "sms_baoab":
        cell.derived_w1 = fixed_order_w1(pot, h, gamma)
    cell.seconds = time.perf_counter() - t0
    return cell
