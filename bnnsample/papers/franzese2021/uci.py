"""franzese2021 UCI BNN runs (§5, App. F) that Figs. 4, 5, 10 (``sweeps``) and Tables 1-2 (``tables``) share:
the sweep settings and rows of the distance figures, the datasets on disk; one run of the protocol, the
oracle and the average Kolmogorov distance to it are ``uci_runs``'s (its docstring states the protocol).

The reductions and the oracle of each scale are stated in the sections' settings (``sweeps._settings_text``,
``tables.TABLE_SETTINGS``): independent chains pooled in place of the paper's one chain of 200 draws per split
and, at ``scale=quick``, shorter simulated times, so that the sampled law is the SDE's law at those times from
x0 = 0 rather than the posterior: a law every sampler and the equal-time oracle share in the limit h -> 0, which
is what the distance-against-h figures measure.

Distances (Figs. 4, 5, 10): the average Kolmogorov distance of the pooled predictive draws to the oracle
runs, against the oracle's self-distance band (``uci_runs.akd_to_oracle``, ``uci_runs.make_oracle``). OracleRuns
runs live under ``out_dir/franzese2021-fig4/runs/`` and are reused by Figs. 5 and 10 (the runner's resume rule:
a finished run with the same config is not redone). The figures share one oracle run only while that git-ignored
cache is not remade: the run's key names its Spec, not the code that made it, and a Spec made again under other code
is another realisation of it (boston's, made again 2026-11-29: Fig. 5's committed band is of that run, Figs. 4 and
10's of an earlier one, most likely Table 3's of 2026-11-28; ``table3`` names each row's oracle by key and draws'
fingerprint).

Partition (since 2026-11-30): each row of a distance sweep records the minibatch partition its run used
(``PARTITION``, ``uci_runs.partition``). A minibatch row without it was made before, on the fixed partition, which
where the batch does not divide N left N mod n points out of the whole run (``fixed_leftovers``); the sections say so
(``sweeps.partition_disclosure``) until such rows are made again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...figures.common import distinct
from .uci_runs import FULL, SYNTHETIC, OracleSettings, Spec, akd_to_oracle, make_oracle, partition, run_spec

FIG4, TABLE1, TABLE2, FIG5, FIG10 = (f"franzese2021-{s}" for s in ("fig4", "table1", "table2", "fig5", "fig10"))
REGRESSION = ("boston", "concrete", "energy", "yacht")
PAPER_T_BURN = 10.0  # the paper's burn-in time: its oracle's 2000 steps at h = 0.005 (App. F.2)


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
    seeds: tuple[int, ...] = (0,)  # sampler seeds per cell (the oracle's is fixed): their scatter is our noise


def sweep_settings(scale: str, opt: dict) -> SweepSettings:
    """The protocol of a sweep at ``scale`` (quick or paper) with the step sizes, batch sizes (0: full) and
    oracle kind of ``opt``; its oracle's step ``opt["oracle_h"]`` where given (Fig. 9's option, since 2026-11-30:
    a reference nearer h -> 0, the adaptive SGHMC's steps and mdecay following it, ``uci_runs.adaptive_steps``),
    else half the smallest h (LIE-TROTTER) or the paper's lr 0.005 (adaptive SGHMC)."""
    steps, kind = opt["steps"], opt["oracle"]
    if scale == "quick":
        t_burn, t_thin, chains, draws, n_oracle = 2.0, 0.25, 10, 10, 3
    else:
        t_burn, t_thin, chains, draws, n_oracle = PAPER_T_BURN, 2.5, 10, 20, 5
    h_oracle = opt.get("oracle_h") or (min(steps) / 2 if kind == "lie_trotter" else 0.005)
    o = OracleSettings(kind, n_oracle, chains, draws, t_burn, t_thin, h_oracle)
    return SweepSettings(steps, opt["batches"], chains, draws, t_burn, t_thin, o, tuple(opt.get("seeds", (0,))))


def runs_path(out_dir: Path, fig_id: str) -> Path:
    return out_dir / fig_id / "runs"


def distance_sweep(out_dir: Path, fig_id: str, dataset: str, s: SweepSettings, variants: list[dict], bar,
                   read_back=None) -> list[dict]:  # fmt: skip
    """AKD to the oracle for every variant x batch size x step size x sampler seed (the oracle fixed).
    A variant is a dict with ``label`` and Spec fields (integrator, friction, n_leapfrog). ``bar.done``
    after the oracle and after each run: 1 + len(variants) x batches x steps x seeds cells; ``read_back``
    (``Invocation.run_read_back``) gets the oracle's and each run's Result."""
    oracle = make_oracle(dataset, s.oracle, runs_path(out_dir, FIG4))
    if read_back is not None:
        read_back(oracle.result)
    bar.done(f"{dataset} oracle ({s.oracle.kind}): self-distance {oracle.band['mean']:.3f} "
             f"({oracle.result.seconds:.1f}s)")  # fmt: skip
    rows = []
    for var in variants:
        fields = {k: v for k, v in var.items() if k != "label"}
        for b, h, seed in ((b, h, seed) for b in s.batches for h in s.steps for seed in s.seeds):
            spec = Spec(dataset=dataset, h=h, batch=b, chains=s.chains, draws=s.draws, t_burn=s.t_burn,
                        t_thin=s.t_thin, seed=seed, **fields)  # fmt: skip
            res = run_spec(spec, runs_path(out_dir, fig_id))
            if read_back is not None:
                read_back(res)
            burn, thin = spec.steps()
            rows.append({
                "dataset": dataset, "label": var["label"], "integrator": spec.integrator,
                "friction": spec.friction, "n_leapfrog": spec.n_leapfrog, "batch": "full" if b == FULL else b,
                PARTITION: "none" if b == FULL else partition(dataset, b, spec.split), "step_size": h, "seed": seed, "burn_in_steps": burn, "thin_steps": thin,
                "draws": spec.chains * spec.draws, "akd": akd_to_oracle(res, oracle),
                "diverged_chains": int(res.diverged.sum()),
                "self_mean": oracle.band["mean"], "self_low": oracle.band["low"], "self_high": oracle.band["high"],
                "seconds": round(res.seconds, 1),
            })  # fmt: skip
            bar.done(f"{dataset} {var['label']} batch {rows[-1]['batch']} h={h:g} seed {seed}: AKD "
                     f"{rows[-1]['akd']:.3f} ({res.seconds:.1f}s)")  # fmt: skip
    return rows


# distances.csv's column, written with every row since 2026-11-30: the minibatch partition of the row's run ('fixed',
# 'fresh'; 'none' for the full batch, ``uci_runs.partition``). A row without it was made before, every minibatch run
# then on the fixed partition, which left the N mod n leftover points out of the whole run where n does not divide N
# (``fixed_leftovers``)
PARTITION = "partition"
PARTITION_SINCE = "2026-11-30"


@dataclass(frozen=True)
class Leftover:
    """A data set's minibatch rows made before the ``PARTITION`` column, on the fixed partition, whose batch sizes do
    not divide its N training points: each such run left N mod n points out of the whole run and sampled a tempered
    posterior of the other N_m n = N - N mod n (force scale N/n on them, their likelihood weighted N/(N_m n)).
    ``n_train`` None: N unknown (the data set's files absent), ``batches`` then every minibatch of those rows."""

    dataset: str
    n_train: int | None
    batches: tuple[int, ...]

    def used(self, batch: int) -> int:
        """N_m n, the points a run of batch ``batch`` used (the first N_m n of one permutation drawn from its seed: the
        same points at a seed for every batch of the same N_m n, ``batching.Schedule``)."""
        return self.n_train - self.n_train % batch


def fixed_leftovers(rows: list[dict]) -> list[Leftover]:
    """The data sets of ``rows`` (``distance_sweep``'s, or a committed distances.csv's) with minibatch rows that record
    no partition (made before ``PARTITION_SINCE``) at a batch size not dividing N: [] once every such row was made
    again with the partition recorded (a fresh partition where n does not divide N, ``uci_runs.partition``)."""
    from ...plumbing.errors import DataMissingError
    from .uci_runs import train_size

    out = []
    for ds in distinct(rows, "dataset"):
        old = {int(r["batch"]) for r in rows if r["dataset"] == ds and r["batch"] not in ("full", FULL)
               and not r.get(PARTITION)}  # fmt: skip
        if not old:
            continue
        try:
            n = train_size(ds)
        except DataMissingError:
            out.append(Leftover(ds, None, tuple(sorted(old, reverse=True))))
            continue
        if bad := tuple(sorted((b for b in old if n % b), reverse=True)):
            out.append(Leftover(ds, n, bad))
    return out


def minibatch_excess(rows: list[dict], dataset: str, batch: int) -> tuple[float, dict] | None:
    """(h, {seed: the mean over the samplers of AKD(batch) - AKD(full batch)}) on ``dataset`` at the smallest h where
    both ran, paired by sampler (label) and seed; None where no pair is finite."""
    mine = [r for r in rows if r["dataset"] == dataset]
    full = {(r["label"], r["step_size"], r.get("seed", 0)): r["akd"] for r in mine if r["batch"] in ("full", FULL)}
    pairs: dict = {}
    for r in (r for r in mine if r["batch"] == batch):
        d = float(r["akd"]) - float(full.get((r["label"], r["step_size"], r.get("seed", 0)), math.nan))
        if math.isfinite(d):
            pairs.setdefault(r["step_size"], {}).setdefault(r.get("seed", 0), []).append(d)
    if not pairs:
        return None
    h = min(pairs)
    return h, {seed: float(np.mean(v)) for seed, v in sorted(pairs[h].items())}


@dataclass(frozen=True)
class ShiftBound:
    """The bound the rows put on the shift of a data set's runs that left the same points out (batches ``batches``,
    one N_m n): at each seed, the whole excess of batch ``batch`` (theirs smallest on average) over the full batch at
    its smallest h ``h``, paired by sampler, averaged over the samplers (``by_seed``); ``others``: {batch: (h, mean
    excess)} of the other batches of the group (``minibatch_excess``)."""

    dataset: str
    batches: tuple[int, ...]
    batch: int
    h: float
    by_seed: dict
    others: dict

    def mean(self) -> float:
        return float(np.mean(list(self.by_seed.values())))


def shift_bounds(left: list[Leftover], rows: list[dict]) -> dict:
    """{(data set, N_m n): its ``ShiftBound``, None where no minibatch-full pair is finite} of each group of batches
    of ``left`` that left the same points out at a seed (the same N_m n: the first N_m n points of one permutation
    drawn from the seed, and the same force scale N/(N_m n) on them: the same tempered posterior, so the shift is the
    group's at a seed, at most the smallest of its batches' excesses)."""
    out = {}
    for lo in (lo for lo in left if lo.n_train is not None):
        groups: dict = {}
        for b in lo.batches:
            groups.setdefault(lo.used(b), []).append(b)
        for used, bs in groups.items():
            excess = {b: e for b in bs if (e := minibatch_excess(rows, lo.dataset, b)) is not None}
            if not excess:
                out[lo.dataset, used] = None
                continue
            b = min(excess, key=lambda k: np.mean(list(excess[k][1].values())))
            others = {o: (e[0], float(np.mean(list(e[1].values())))) for o, e in excess.items() if o != b}
            out[lo.dataset, used] = ShiftBound(lo.dataset, tuple(bs), b, excess[b][0], excess[b][1], others)
    return out


def without_shift(rows: list[dict], bounds: dict) -> list[dict]:
    """``rows`` with the AKD of every run of a group of ``shift_bounds`` lowered by its seed's bound (every h): the
    rows as they would be, were the whole bound the shift of the points left out."""
    by = {(sb.dataset, b): sb.by_seed for sb in bounds.values() if sb is not None for b in sb.batches}
    return [{**r, "akd": r["akd"] - by[r["dataset"], r["batch"]].get(r.get("seed", 0), 0.0)}
            if (r["dataset"], r["batch"]) in by and not r.get(PARTITION) else r for r in rows]  # fmt: skip


def leftover_text(left: list[Leftover], rows: list[dict], dates: dict) -> str:
    """What the fixed partition of the rows ``fixed_leftovers`` finds did, per data set: the batches (run on
    ``dates[dataset]``, where known), the points left out of the whole run and the tempered posterior of the rest they
    sampled, and the size of that shift as far as the rows bound it (``shift_bounds``): not separable from the
    minibatches' other errors at the grid's h, at most a batch's whole excess over the full batch at the smallest h,
    paired by sampler and seed (where those errors do not lower the distance); a clause, not capitalised. '' where
    ``left`` is empty."""
    if not left:
        return ""
    parts, bounds = [], shift_bounds(left, rows)
    for lo in left:
        when = f" (run {dates[lo.dataset]})" if dates.get(lo.dataset) else ""
        if lo.n_train is None:
            parts.append(f"{lo.dataset}'s batches {_and(lo.batches)}{when}: its N not known here (its files absent); "
                         "where a batch does not divide N, N mod n points were left out of the whole run")  # fmt: skip
            continue
        for (ds, used), sb in bounds.items():
            if ds != lo.dataset:
                continue
            n, out = lo.n_train, lo.n_train - used
            bs = sb.batches if sb else [b for b in lo.batches if lo.used(b) == used]
            same = f" (the same {out} at a seed for {'both' if len(bs) == 2 else 'each'})" if len(bs) > 1 else ""
            text = (f"{lo.dataset}'s batch{'es' if len(bs) > 1 else ''} {_and(bs)}{when} left {out} of its {n} training "
                    f"points out of the whole run{same}: a tempered posterior of the other {used} (force scale "
                    + " or ".join(f"{n}/{b}" for b in bs) + f" on them, their likelihood x {n}/{used} = "
                    f"{n / used:.3f}), not the posterior")  # fmt: skip
            if sb is not None:
                seeds = (
                    f" (seeds {'/'.join(map(str, sb.by_seed))}: {'/'.join(f'{v:+.3f}' for v in sb.by_seed.values())})"
                )
                others = "".join(f"; batch {o}'s {m:+.3f} at h = {h:g} holds the same shift"
                                 for o, (h, m) in sb.others.items())  # fmt: skip
                text += (f"; that shift is not separable from the minibatches' other errors at this grid's h: it is at "
                         f"most batch {sb.batch}'s whole excess over the full batch at h = {sb.h:g}, paired by sampler "
                         f"and seed, {sb.mean():+.3f}" + (seeds if len(sb.by_seed) > 1 else "")
                         + ", where those errors do not lower the distance" + others)  # fmt: skip
            parts.append(text)
    return (f"minibatch runs made before {PARTITION_SINCE} (rows of distances.csv with no `{PARTITION}`) used the "
            "fixed partition, also where the batch does not divide N: " + "; ".join(parts))  # fmt: skip


def _and(xs) -> str:
    xs = [str(x) for x in xs]
    return xs[0] if len(xs) == 1 else ", ".join(xs[:-1]) + " and " + xs[-1]


def sweep_rows(inv, datasets: list[str], s: SweepSettings, variants: list[dict]) -> list[dict]:
    """The rows of ``distance_sweep`` on every dataset, under the bar of ``inv`` (a driver.Invocation)."""
    with inv.cells(len(datasets) * (1 + len(variants) * len(s.batches) * len(s.steps) * len(s.seeds))) as bar:
        return [r for ds in datasets
                for r in distance_sweep(inv.out_dir, inv.fig_id, ds, s, variants, bar, inv.run_read_back)]  # fmt: skip


def value_text(x, nd=3) -> str:
    return "diverged" if not np.isfinite(x) else f"{x:.{nd}f}"


def datasets_on_disk(names: list[str], hint: str) -> tuple[list[str], list[str]]:
    """The datasets of ``names`` whose files are on disk, and the others; ValueError when none is (``hint``
    says what to do)."""
    from ...data import load_if_present

    present = [n for n in names if n == SYNTHETIC or load_if_present(n) is not None]
    if not present:
        raise ValueError(f"datasets: none of {', '.join(names)} is on disk ({hint})")
    return present, [n for n in names if n not in present]


# -- the sampler seeds: their mean per cell and their scatter, the noise of a comparison ---------
CELL = ("dataset", "label", "batch", "step_size")


def seed_means(rows: list[dict]) -> list[dict]:
    """One row per (dataset, label, batch, h) of ``distance_sweep``'s rows: the first seed's row with ``akd``
    the mean over the sampler seeds (NaN when a run diverged), ``akd_sd`` their sd (NaN with one seed),
    ``seeds`` their number, ``by_seed`` {seed: akd}, ``seconds`` the sampling CPU seconds of all of them and
    ``diverged_all`` their diverged chains (``diverged_chains`` stays the first seed's)."""
    out = []
    for cell in distinct(rows, *CELL):
        group = [r for r in rows if tuple(r[k] for k in CELL) == cell]
        v = np.array([r["akd"] for r in group], dtype=float)
        sd = float(np.std(v, ddof=1)) if len(v) > 1 else math.nan
        seconds = sum(r.get("seconds", math.nan) for r in group)
        out.append({**group[0], "akd": float(np.mean(v)), "akd_sd": sd, "seeds": len(v), "seconds": seconds,
                    "by_seed": {r.get("seed", 0): float(r["akd"]) for r in group},
                    "diverged_all": sum(int(r.get("diverged_chains", 0) or 0) for r in group)})  # fmt: skip
    return out


HEAVY = 0.5  # a pool is one cell's scatter where that cell holds more than this share of the summed variance


@dataclass(frozen=True)
class Noise:
    """The noise of the seed means of a sweep: per batch size the seed-to-seed sd of one cell's AKD pooled
    over its (sampler, h) cells (``sd``; the oracle fixed), over ``n`` seeds; ``width`` the width of the
    oracle's self-distance band. With one seed the sd is not measured and the band width is the tolerance
    (what the rules used before the seeds were run)."""

    sd: dict
    n: int
    width: float
    source: str = ""  # where the sd was measured, when not on the rows judged (their one seed)
    pool: tuple | str = ""  # (the cells the sd pools, why and what every cell gave) where not every cell (``of``)
    heavy: tuple = ()  # (batch, label, h, share, its sd, the pool's sd without it) where one cell dominates a pool

    @classmethod
    def of(cls, rows: list[dict], h_max: float | None = None, why: str = "") -> Noise:
        """From ``distance_sweep``'s rows (every seed): pooled variance = mean of the cells' variances (a cell with a
        diverged seed has no sd and is left out); with ``h_max``, of the cells at h <= ``h_max`` alone where the rows
        run past it (``pool`` says so, ``why``, and what pooling every cell gave)."""
        cells, n = seed_means(rows), min(distinct(seed_means(rows), "seeds"), default=1)
        mine = cells if h_max is None else [c for c in cells if c["step_size"] <= h_max]
        sd, heavy = {}, []
        for b in distinct(cells, "batch"):
            pooled = [c for c in mine if c["batch"] == b and np.isfinite(c["akd_sd"])]
            var = [c["akd_sd"] ** 2 for c in pooled]
            sd[b] = math.sqrt(np.mean(var)) if var and n > 1 else math.nan
            if len(var) > 1 and n > 1 and max(var) > HEAVY * sum(var):
                top = pooled[int(np.argmax(var))]
                rest = math.sqrt((sum(var) - max(var)) / (len(var) - 1))
                heavy.append((b, top["label"], top["step_size"], max(var) / sum(var), top["akd_sd"], rest))
        pool = ""
        if len(mine) < len(cells) and n > 1:
            every = cls.of(rows)
            pool = (f"at h <= {h_max:g}", f"{why}; pooled over every h it was "
                    + ", ".join(f"batch {b} {v:.4f}" for b, v in every.sd.items()))  # fmt: skip
        return cls(sd, n, float(rows[0]["self_high"] - rows[0]["self_low"]), pool=pool, heavy=tuple(heavy))

    def without_heavy(self) -> Noise:
        """The same noise with each dominant cell (``heavy``) left out of its batch size's pool: what the rules give
        where the pool is not one cell's scatter (reported beside the verdict, never judging)."""
        sd = dict(self.sd)
        for b, *_, rest in self.heavy:
            sd[b] = rest
        return Noise(sd, self.n, self.width, self.source)

    def heavy_text(self) -> str:
        """The pools that one cell dominates (more than ``HEAVY`` of their summed variance), '' where none."""
        return "; ".join(f"batch {b}'s pool is {share:.0%} one cell's variance ({label}, h = {h:g}: sd {one:.4f}), "
                         f"without it {rest:.4f}" for b, label, h, share, one, rest in self.heavy)  # fmt: skip

    def measured(self) -> bool:
        return bool(self.sd) and all(np.isfinite(v) for v in self.sd.values())

    def diff(self, b1, b2=None) -> float:
        """Tolerance of a difference of two seed means (batch sizes ``b1`` and ``b2``, default the same):
        2 s.e. of the difference, 2 sqrt((sd1^2 + sd2^2) / n); the band width when the sd is not measured."""
        if not self.measured():
            return self.width
        return 2 * math.sqrt((self.sd[b1] ** 2 + self.sd[b1 if b2 is None else b2] ** 2) / self.n)

    def above_band(self, b) -> float:
        """How far a seed mean may lie above the band's 95% quantile and count as inside: 2 s.e. of the mean,
        2 sd / sqrt(n) (0 when the sd is not measured)."""
        return 2 * self.sd[b] / math.sqrt(self.n) if self.measured() else 0.0

    def unmeasured(self) -> Noise:
        """The same band, the sd not measured: the rules' tolerance before the seeds were run."""
        return Noise({b: math.nan for b in self.sd}, 1, self.width)

    def text(self) -> str:
        if not self.measured():
            return f"one sampler seed: the seed-to-seed sd not measured; tolerance the band width {self.width:.3f}"
        if self.source:
            return (f"one sampler seed per cell; the seed-to-seed sd of one cell's AKD measured {self.source}: "
                    + ", ".join(f"batch {b} {v:.4f}" for b, v in self.sd.items()) + f"; band width {self.width:.3f}")  # fmt: skip
        cells, why = self.pool or ("", "")
        heavy = self.heavy_text()
        return (f"seed-to-seed sd of one cell's AKD (pooled over its sampler x h cells{' ' + cells if cells else ''}, "
                f"{self.n} seeds, the oracle fixed): " + ", ".join(f"batch {b} {v:.4f}" for b, v in self.sd.items())
                + f"; band width {self.width:.3f}" + (f"; {why}" if why else "") + (f"; {heavy}" if heavy else ""))  # fmt: skip
