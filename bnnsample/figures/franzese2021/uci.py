"""franzese2021 UCI BNN runs (§5, App. F) that Figs. 4, 5, 10 (``sweeps``) and Tables 1-2 (``tables``) share:
one run of the protocol, the oracle and the average Kolmogorov distance to it.

Protocol (App. F.1-F.2; conf/experiment/franzese2021_uci.yaml is the same protocol for one run):
NTK-parameterised ReLU MLP (eq. 104; 4x50 regression with the fixed noise variance of Table 1,
2x50 softmax classification), prior N(0, I), seeded 90/10 splits with inputs (and regression
targets) standardised on the training part, friction C = 5, x0 = 0 and v0 ~ N(0, I) (the paper
states no initialisation), minibatches in a fresh random permutation every epoch
(``batching=reshuffle``, franzese2021 Thm 2), and EQUAL SIMULATED TIME at every step size h:
burn-in time T_b and time T_t between kept draws, i.e. ``burn_in = time_steps(T_b, h, N_l)``
and ``thin = time_steps(T_t, h, N_l)`` steps (bnnsample/plumbing/resolvers.py; the paper's T_b = 10,
T_t = 2.5 are its oracle's 2000 and 500 steps at h = 0.005).

The reductions and the oracle of each scale are stated in the sections' settings (``sweeps._settings_text``,
``tables.TABLE_SETTINGS``): independent chains pooled in place of the paper's one chain of 200 draws per split
and, at ``scale=quick``, shorter simulated times, so that the sampled law is the SDE's law at those times from
x0 = 0 rather than the posterior: a law every sampler and the equal-time oracle share in the limit h -> 0, which
is what the distance-against-h figures measure.

Distances (Figs. 4, 5, 10): the average Kolmogorov distance (``metrics.average_kolmogorov_distance``, §5 and
App. F.2) of the pooled predictive draws of the latent mean f(x*) (original units) at each test point to each
of R independent oracle runs, averaged over the runs; the self-distance band (``metrics.self_distance_band``)
is over the R oracle runs, so method and band have the same sample sizes. A run with a diverged chain has no
distance (NaN). Oracle runs live under ``out_dir/franzese2021-fig4/runs/`` and are reused by Figs. 5 and 10
(the runner's resume rule: a finished run with the same config is not redone).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

FIG4, TABLE1, TABLE2, FIG5, FIG10 = (f"franzese2021-{s}" for s in ("fig4", "table1", "table2", "fig5", "fig10"))
REGRESSION = ("boston", "concrete", "energy", "yacht")
FULL = 0  # batch size code for full batch
PAPER_T_BURN = 10.0  # the paper's burn-in time: its oracle's 2000 steps at h = 0.005 (App. F.2)


# -- one run ----------------------------------------------------------------------------------
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

    def steps(self) -> tuple[int, int]:
        from ...plumbing.resolvers import time_steps

        burn = self.burn_steps if self.burn_steps is not None else time_steps(self.t_burn, self.h, self.n_leapfrog)
        thin = self.thin_steps if self.thin_steps is not None else time_steps(self.t_thin, self.h, self.n_leapfrog)
        return burn, thin

    def overrides(self) -> list[str]:
        burn, thin = self.steps()
        ov = [f"dataset={self.dataset}", "model=ntk_mlp", "init=zeros", f"integrator={self.integrator}",
              f"step_size={self.h!r}", f"friction={self.friction!r}", f"chains={self.chains}", "unit=step",
              f"burn_in={burn}", f"samples={self.draws}", f"thin={thin}", f"dataset.split={self.split}",
              f"seed={self.seed}", "store_theta=false", "evaluate=false", "dtype=float32",
              "batching=full" if self.batch == FULL else "batching=reshuffle"]  # fmt: skip
        if self.batch != FULL:
            ov.append(f"batch_size={self.batch}")
        if self.integrator == "sghmc" and self.batch == FULL:
            # epsilon(n) = 0 for the full batch, so B-hat = 0 exactly: skip the covariance estimate (cost only)
            ov.append("integrator.noise_correction=none")
        if self.integrator == "generalized_lie_trotter":
            ov.append(f"integrator.n_leapfrog={self.n_leapfrog}")
        return ov

    def key(self) -> str:
        digest = hashlib.sha1(repr(sorted(asdict(self).items())).encode()).hexdigest()[:10]
        b = "full" if self.batch == FULL else f"b{self.batch}"
        return f"{self.dataset}_{self.integrator}_h{self.h:g}_{b}_{digest}"


@dataclass
class Result:
    spec: Spec
    predictive: np.ndarray  # (chains, draws, n_test, K)
    diverged: np.ndarray  # (chains,)
    seconds: float

    def pooled(self, chains: slice | None = None) -> np.ndarray | None:
        """Draws pooled over chains: (chains * draws, n_test) for regression (K = 1);
        None when a chain of the selection diverged."""
        sel = slice(None) if chains is None else chains
        if self.diverged[sel].any():
            return None
        p = self.predictive[sel]
        return p[..., 0].reshape(-1, p.shape[2])


def run_spec(spec: Spec, runs_dir: Path) -> Result:
    """Run (or reuse) ``spec`` under ``runs_dir/<key>`` and read its predictive draws; the same
    run (same key = same Spec) complete under another franzese2021 recipe's runs/ is reused (e.g.
    Fig. 10's C = 5 cells are Fig. 4's LEAPFROG cells)."""
    import time

    import torch

    from ...jobs.runs import run_or_reuse
    from ...store import SampleStore

    torch.set_num_threads(1)
    t0 = time.perf_counter()
    others = sorted(runs_dir.parent.parent.glob(f"franzese2021-*/runs/{spec.key()}"))
    path = run_or_reuse(spec.key(), spec.overrides(), runs_dir, others)
    with SampleStore(path) as s:
        pred, div = s.predictive(), s.diverged().astype(bool)
    return Result(spec, pred, div, time.perf_counter() - t0)


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


def oracle_spec(dataset: str, o: OracleSettings) -> Spec:
    common = {"dataset": dataset, "batch": FULL, "chains": o.runs * o.chains_per_run, "draws": o.draws, "seed": 1000}
    if o.kind == "sghmc_adaptive":  # the paper's oracle: lr 0.005, burn-in 2000, thin 500 (App. F.2)
        return Spec(integrator="sghmc_adaptive", h=o.h, burn_steps=2000, thin_steps=500, **common)
    return Spec(integrator="lie_trotter", h=o.h, t_burn=o.t_burn, t_thin=o.t_thin, **common)


@dataclass
class Oracle:
    runs: list[np.ndarray]  # R arrays (m, n_test)
    band: dict
    result: Result


def make_oracle(dataset: str, o: OracleSettings, runs_dir: Path) -> Oracle:
    from ...evaluate.metrics import self_distance_band

    res = run_spec(oracle_spec(dataset, o), runs_dir)
    groups = [res.pooled(slice(r * o.chains_per_run, (r + 1) * o.chains_per_run)) for r in range(o.runs)]
    groups = [g for g in groups if g is not None]
    if len(groups) < 2:
        raise RuntimeError(f"oracle on {dataset}: fewer than 2 oracle runs without a diverged chain")
    return Oracle(groups, self_distance_band(groups), res)


def akd_to_oracle(result: Result, oracle: Oracle) -> float:
    """Average Kolmogorov distance of the pooled draws to each oracle run, averaged over the
    runs (NaN when a chain diverged)."""
    from ...evaluate.metrics import average_kolmogorov_distance

    draws = result.pooled()
    if draws is None:
        return math.nan
    return float(np.mean([average_kolmogorov_distance(draws, ref) for ref in oracle.runs]))


# -- shared settings --------------------------------------------------------------------------
@dataclass(frozen=True)
class SweepSettings:
    steps: list[float]
    batches: list[int]
    chains: int
    draws: int
    t_burn: float
    t_thin: float
    oracle: OracleSettings


def sweep_settings(scale: str, opt: dict) -> SweepSettings:
    """The protocol of a sweep at ``scale`` (quick or paper) with the step sizes, batch sizes (0: full) and
    oracle kind of ``opt``."""
    steps, kind = opt["steps"], opt["oracle"]
    if scale == "quick":
        t_burn, t_thin, chains, draws, n_oracle = 2.0, 0.25, 10, 10, 3
    else:
        t_burn, t_thin, chains, draws, n_oracle = PAPER_T_BURN, 2.5, 10, 20, 5
    h_oracle = min(steps) / 2 if kind == "lie_trotter" else 0.005
    o = OracleSettings(kind, n_oracle, chains, draws, t_burn, t_thin, h_oracle)
    return SweepSettings(steps, opt["batches"], chains, draws, t_burn, t_thin, o)


def runs_path(out_dir: Path, fig_id: str) -> Path:
    return out_dir / fig_id / "runs"


def distance_sweep(out_dir: Path, fig_id: str, dataset: str, s: SweepSettings, variants: list[dict], bar) -> list[dict]:
    """AKD to the oracle for every variant x batch size x step size. A variant is a dict with
    ``label`` and Spec fields (integrator, friction, n_leapfrog). ``bar.done`` after the oracle
    and after each run: 1 + len(variants) x batches x steps cells."""
    oracle = make_oracle(dataset, s.oracle, runs_path(out_dir, FIG4))
    bar.done(f"{dataset} oracle ({s.oracle.kind}): self-distance {oracle.band['mean']:.3f} "
             f"({oracle.result.seconds:.1f}s)")  # fmt: skip
    rows = []
    for var in variants:
        fields = {k: v for k, v in var.items() if k != "label"}
        for b in s.batches:
            for h in s.steps:
                spec = Spec(dataset=dataset, h=h, batch=b, chains=s.chains, draws=s.draws, t_burn=s.t_burn,
                            t_thin=s.t_thin, **fields)  # fmt: skip
                res = run_spec(spec, runs_path(out_dir, fig_id))
                burn, thin = spec.steps()
                rows.append({
                    "dataset": dataset, "label": var["label"], "integrator": spec.integrator,
                    "friction": spec.friction, "n_leapfrog": spec.n_leapfrog,
                    "batch": "full" if b == FULL else b, "step_size": h, "burn_in_steps": burn, "thin_steps": thin,
                    "draws": spec.chains * spec.draws, "akd": akd_to_oracle(res, oracle),
                    "diverged_chains": int(res.diverged.sum()),
                    "self_mean": oracle.band["mean"], "self_low": oracle.band["low"], "self_high": oracle.band["high"],
                    "seconds": round(res.seconds, 1),
                })  # fmt: skip
                bar.done(f"{dataset} {var['label']} batch {rows[-1]['batch']} h={h:g}: AKD "
                         f"{rows[-1]['akd']:.3f} ({res.seconds:.1f}s)")  # fmt: skip
    return rows


def sweep_rows(inv, datasets: list[str], s: SweepSettings, variants: list[dict]) -> list[dict]:
    """The rows of ``distance_sweep`` on every dataset, under the bar of ``inv`` (a driver.Invocation)."""
    with inv.cells(len(datasets) * (1 + len(variants) * len(s.batches) * len(s.steps))) as bar:
        return [r for ds in datasets for r in distance_sweep(inv.out_dir, inv.fig_id, ds, s, variants, bar)]


def value_text(x, nd=3) -> str:
    return "diverged" if not np.isfinite(x) else f"{x:.{nd}f}"


def datasets_on_disk(names: list[str], hint: str) -> tuple[list[str], list[str]]:
    """The datasets of ``names`` whose files are on disk, and the others; ValueError when none is (``hint``
    says what to do)."""
    from ...data import load_if_present

    present = [n for n in names if load_if_present(n) is not None]
    if not present:
        raise ValueError(f"datasets: none of {', '.join(names)} is on disk ({hint})")
    return present, [n for n in names if n not in present]
