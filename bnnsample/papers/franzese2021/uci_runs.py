"""franzese2021 UCI BNN runs (§5, App. F) that its Figs. 4, 5, 10 and Tables 1-2 share: one run of the
protocol (``Spec``, ``run_spec``), the oracle (``make_oracle``) and the average Kolmogorov distance to it
(``akd_to_oracle``).

Protocol (App. F.1-F.2; conf/experiment/franzese2021_uci.yaml is the same protocol for one run):
NTK-parameterised ReLU MLP (eq. 104; 4x50 regression with the fixed noise variance of Table 1,
2x50 softmax classification), prior N(0, I), seeded 90/10 splits with inputs (and regression
targets) standardised on the training part, friction C = 5, x0 = 0 and v0 ~ N(0, I) (the paper
states no initialisation), reshuffled minibatches (``batching=reshuffle``, franzese2021 Thm 2 and
App. F: each epoch visits every minibatch once, in a fresh random order; ``partition``), and EQUAL SIMULATED
TIME at every step size h:
burn-in time T_b and time T_t between kept draws, i.e. ``burn_in = time_steps(T_b, h, N_l)``
and ``thin = time_steps(T_t, h, N_l)`` steps (bnnsample/plumbing/resolvers.py; the paper's T_b = 10,
T_t = 2.5 are its oracle's 2000 and 500 steps at h = 0.005).

Distances (Figs. 4, 5, 10): the average Kolmogorov distance (``metrics.average_kolmogorov_distance``, §5 and
App. F.2) of the pooled predictive draws of the latent mean f(x*) (original units) at each test point to each
of R independent oracle runs, averaged over the runs; the self-distance band (``metrics.self_distance_band``)
is over the R oracle runs, so method and band have the same sample sizes. A run with a diverged chain has no
distance (NaN).

Minibatches (``partition``): franzese2021 §3 (eq. 8) splits the data into K minibatches that cover it and draws a
random order of them each epoch (App. F: a fresh random permutation every epoch). Where the batch size n divides
the training set's N, a run cuts the data once, per seed, into K = N/n batches and visits them in a fresh random
order every epoch (the fixed partition: the committed runs of such cells stay valid). Where n does not divide N,
a fixed partition would leave the N mod n leftover points out of the whole run (force scale N/n on the other
K n points: a tempered posterior of a subset), which the library refuses since 2026-11-30; such a cell cuts a
fresh random permutation into floor(N/n) batches every epoch (``batching.partition=fresh``: each step's force is
unbiased, the points left out change every epoch). Before 2026-11-30 those cells used the fixed partition and
dropped the same N mod n points for the whole run (e.g. boston, N = 455, batch 32 or 8: 7 points; wine, N = 160,
batch 64: 32 points; trig_features, N = 200, batch 32: 8 points).
"""

from __future__ import annotations

import functools
import hashlib
import math
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

FULL = 0  # batch size code for full batch
SYNTHETIC = "trig_features"  # App. F.1's random trigonometric features (256): a Gaussian linear model


def model_of(dataset: str) -> str:
    """The model of the protocol on ``dataset``: the BNN of eq. 104, or the linear model of the synthetic set."""
    return "linear_gaussian" if dataset == SYNTHETIC else "ntk_mlp"


# the settings text's words on the minibatches (``partition``), for every franzese2021 section of UCI runs
BATCHING_TEXT = (
    "reshuffled minibatches: a partition into N/n batches drawn per seed and visited in a fresh random order every "
    "epoch where the batch n divides the training set's N; where it does not, a fresh random partition into "
    "floor(N/n) batches every epoch (since 2026-11-30: before, those cells' fixed partition left the N mod n "
    "leftover points out of the whole run)"
)


@functools.lru_cache(maxsize=64)
def _train_size(dataset: str, split: int, figure: tuple[str, ...]) -> int:
    from ...config import compose
    from ...data import load_data

    return load_data(
        compose([f"dataset={dataset}", *([] if dataset == SYNTHETIC else [f"dataset.split={split}"])])
    ).n_train


def train_size(dataset: str, split: int = 0) -> int:
    """N, the training points of ``dataset`` split ``split`` as a run of the protocol loads them (DataMissingError
    when its files are missing)."""
    from ...config import current_figure_overrides

    return _train_size(dataset, split, current_figure_overrides())  # the figure's overrides (data_dir) in the key


def partition(dataset: str, batch: int, split: int = 0) -> str:
    """The minibatch partition of a run with batch size ``batch`` on ``dataset`` (module docstring): ``fixed``
    where ``batch`` divides N (and for the full batch), else ``fresh``."""
    return "fixed" if batch == FULL or train_size(dataset, split) % batch == 0 else "fresh"


# -- one run ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Spec:
    """One `bnnsample run` of the protocol. batch = 0 is full batch; burn_steps/thin_steps,
    when set, replace the equal-time rule (the adaptive SGHMC, whose step is not a time)."""

    dataset: str
    integrator: str
    h: float
    batch: int = FULL
    friction: float = 5.0
    chains: int = 10
    draws: int = 10
    t_burn: float = 2.0
    t_thin: float = 0.25
    n_leapfrog: int = 1
    split: int = 0
    seed: int = 0
    burn_steps: int | None = None
    thin_steps: int | None = None
    mdecay: float | None = None  # the adaptive SGHMC's momentum decay a step; None: its config's (0.05)

    def steps(self) -> tuple[int, int]:
        from ...plumbing.resolvers import time_steps

        burn = self.burn_steps if self.burn_steps is not None else time_steps(self.t_burn, self.h, self.n_leapfrog)
        thin = self.thin_steps if self.thin_steps is not None else time_steps(self.t_thin, self.h, self.n_leapfrog)
        return burn, thin

    def overrides(self) -> list[str]:
        burn, thin = self.steps()
        ov = [f"dataset={self.dataset}", f"model={model_of(self.dataset)}", "init=zeros",
              f"integrator={self.integrator}", f"step_size={self.h!r}", f"friction={self.friction!r}",
              f"chains={self.chains}", "unit=step", f"burn_in={burn}", f"samples={self.draws}", f"thin={thin}",
              f"seed={self.seed}", "store_theta=false", "evaluate=false", "dtype=float32",
              "batching=full" if self.batch == FULL else "batching=reshuffle"]  # fmt: skip
        if self.dataset != SYNTHETIC:  # one fixed data set, no splits
            ov.append(f"dataset.split={self.split}")
        if self.batch != FULL:
            ov.append(f"batch_size={self.batch}")
            if partition(self.dataset, self.batch, self.split) == "fresh":  # n does not divide N
                ov.append("batching.partition=fresh")
        if self.integrator == "sghmc" and self.batch == FULL:
            # epsilon(n) = 0 for the full batch, so B-hat = 0 exactly: skip the covariance estimate (cost only)
            ov.append("integrator.noise_correction=none")
        if self.integrator == "generalized_lie_trotter":
            ov.append(f"integrator.n_leapfrog={self.n_leapfrog}")
        if self.mdecay is not None:
            ov.append(f"integrator.mdecay={self.mdecay!r}")
        return ov

    def key(self) -> str:
        fields = asdict(self)
        if fields["mdecay"] is None:  # the key of every run made before the field was added (2026-11-30)
            del fields["mdecay"]
        digest = hashlib.sha1(repr(sorted(fields.items())).encode()).hexdigest()[:10]
        b = "full" if self.batch == FULL else f"b{self.batch}"
        return f"{self.dataset}_{self.integrator}_h{self.h:g}_{b}_{digest}"


@dataclass
class Result:
    spec: Spec
    predictive: np.ndarray  # (chains, draws, n_test, K)
    diverged: np.ndarray  # (chains,)
    seconds: float  # CPU seconds the run's sampling took (NaN: stored before runs recorded it)
    reused: bool = False  # read back, complete, from an earlier invocation's runs/ (its seconds were spent then)

    def pooled(self, chains: slice | None = None) -> np.ndarray | None:
        """Draws pooled over chains: (chains * draws, n_test) for regression (K = 1), and for
        classification (chains * draws, n_test * K), a marginal per test point and class probability
        (the paper names no scalar of a classifier's predictive; with 2 classes both give the same
        distance); None when a chain of the selection diverged."""
        sel = slice(None) if chains is None else chains
        if self.diverged[sel].any():
            return None
        p = self.predictive[sel]
        return p.reshape(p.shape[0] * p.shape[1], -1)


def run_spec(spec: Spec, runs_dir: Path) -> Result:
    """Run (or reuse) ``spec`` under ``runs_dir/<key>`` and read its predictive draws and the CPU
    seconds its sampling took; the same run (same key = same Spec) complete under another
    franzese2021 recipe's runs/ is reused (e.g. Fig. 10's C = 5 cells are Fig. 4's LEAPFROG cells)."""
    import torch

    from ...jobs.runs import run_or_reuse
    from ...store import SampleStore, is_complete

    torch.set_num_threads(1)
    others = sorted(runs_dir.parent.parent.glob(f"franzese2021-*/runs/{spec.key()}"))
    # complete before this call: the run folder it returns is then read back, not made (a folder of an older config
    # is left as it is and the run made afresh beside it, ``run_or_reuse``)
    done = {d for d in (runs_dir / spec.key(), *others, *runs_dir.glob(f"{spec.key()}_*")) if is_complete(d)}
    path = run_or_reuse(spec.key(), spec.overrides(), runs_dir, others)
    reused = Path(path).parent in done
    with SampleStore(path) as s:
        pred, div = s.predictive(), s.diverged().astype(bool)
        cpu, _ = s.sampling_seconds  # the run's own, also when reused (NaN for a run stored without it)
    return Result(spec, pred, div, cpu, reused)


# -- oracle and distances ---------------------------------------------------------------------
@dataclass(frozen=True)
class OracleSettings:
    kind: str  # lie_trotter | sghmc_adaptive
    runs: int
    chains_per_run: int
    draws: int
    t_burn: float
    t_thin: float
    h: float


ADAPTIVE_LR, ADAPTIVE_MDECAY, ADAPTIVE_BURN, ADAPTIVE_THIN = 0.005, 0.05, 2000, 500  # the paper's oracle (App. F.2)


def adaptive_steps(lr: float) -> tuple[int, int, float | None]:
    """(burn-in steps, thin steps, mdecay; None: the config's) of the adaptive-SGHMC oracle at learning rate ``lr``:
    the paper's 2000, 500 and 0.05 at its lr = 0.005 (App. F.2), and at another lr the same SDE over the same
    simulated time. Chen et al. (2014)'s SGHMC in pysgmcmc's variables is a discretisation of time step lr with
    friction mdecay / lr a unit of time (v, a position increment, is lr times a velocity), so T_b = 2000 x 0.005 = 10
    and T_t = 2.5, the times the samplers' protocol takes from it (``uci.PAPER_T_BURN``). At a smaller lr the steps
    scale as 0.005 / lr and mdecay as lr / 0.005 (friction 10 a unit of time): the paper's oracle with a finer step,
    its discretisation error smaller. Keeping mdecay = 0.05 would instead raise the friction as 1 / lr, a more
    damped SDE that mixes less in the same time (its overdamped limit moves as lr^2 a step), not the same law nearer
    lr -> 0. Added 2026-11-30 (the thirty-third audit) for the reference at lr = 0.0005 of Fig. 9's #7 on wine."""
    if lr == ADAPTIVE_LR:
        return ADAPTIVE_BURN, ADAPTIVE_THIN, None
    scale = ADAPTIVE_LR / lr
    return round(ADAPTIVE_BURN * scale), round(ADAPTIVE_THIN * scale), ADAPTIVE_MDECAY / scale


def oracle_spec(dataset: str, o: OracleSettings) -> Spec:
    common = {"dataset": dataset, "batch": FULL, "chains": o.runs * o.chains_per_run, "draws": o.draws, "seed": 1000}
    if o.kind == "sghmc_adaptive":  # the paper's oracle: lr 0.005, burn-in 2000, thin 500 (App. F.2)
        burn, thin, mdecay = adaptive_steps(o.h)
        return Spec(integrator="sghmc_adaptive", h=o.h, burn_steps=burn, thin_steps=thin, mdecay=mdecay, **common)
    return Spec(integrator="lie_trotter", h=o.h, t_burn=o.t_burn, t_thin=o.t_thin, **common)


@dataclass
class OracleRuns:
    runs: list[np.ndarray]  # R arrays (m, n_test)
    band: dict
    result: Result


def exact_oracle(dataset: str, o: OracleSettings) -> OracleRuns:
    """``o.runs`` groups of ``o.chains_per_run x o.draws`` exact posterior draws of f(x*) for the Gaussian
    linear model of ``SYNTHETIC`` (``exact_predictive_draws``, numpy seeds 500 + r): the paper's ground truth
    for this data set (App. F.2, 'exact samples'), whatever the scale's oracle for the BNNs."""
    import time

    from ...evaluate.metrics import self_distance_band
    from ...simulate import build_target

    t0 = time.process_time()
    pot = build_target([f"dataset={dataset}"], threads=1).potential
    n = o.chains_per_run * o.draws
    groups = [np.asarray(pot.exact_predictive_draws(n, 500 + r)).reshape(n, -1) for r in range(o.runs)]
    pred = np.stack(groups)[..., None]  # (runs as chains, draws, n_test, K = 1)
    res = Result(oracle_spec(dataset, o), pred, np.zeros(o.runs, bool), time.process_time() - t0)
    return OracleRuns(groups, self_distance_band(groups), res)


def make_oracle(dataset: str, o: OracleSettings, runs_dir: Path) -> OracleRuns:
    """The oracle runs of ``dataset``: exact posterior draws for ``SYNTHETIC`` (``exact_oracle``), else
    ``o``'s sampler (LIE-TROTTER or the paper's adaptive SGHMC) in ``o.runs`` groups of chains."""
    from ...evaluate.metrics import self_distance_band

    if dataset == SYNTHETIC:
        return exact_oracle(dataset, o)
    res = run_spec(oracle_spec(dataset, o), runs_dir)
    groups = [res.pooled(slice(r * o.chains_per_run, (r + 1) * o.chains_per_run)) for r in range(o.runs)]
    groups = [g for g in groups if g is not None]
    if len(groups) < 2:
        raise RuntimeError(f"oracle on {dataset}: fewer than 2 oracle runs without a diverged chain")
    return OracleRuns(groups, self_distance_band(groups), res)


def akd_to_oracle(result: Result, oracle: OracleRuns) -> float:
    """Average Kolmogorov distance of the pooled draws to each oracle run, averaged over the
    runs (NaN when a chain diverged)."""
    from ...evaluate.metrics import average_kolmogorov_distance

    draws = result.pooled()
    if draws is None:
        return math.nan
    return float(np.mean([average_kolmogorov_distance(draws, ref) for ref in oracle.runs]))
