"""`bnnsample figure paulin2025-fig4`: calibration against ensemble size (paulin2025 §5,
Fig. 4, App. F.1; numbers from the authors' Fashion-MNIST notebooks).

Algorithm 3 for R independent runs (chains; each trains its own Adam -> SWA network), then
five samplers from the SAME SWA points (``init.reuse``; the paper: "same initialization and
number of epochs for all methods"): SMS-UBU, SG-UBU and SG-UBU without replacement on the
localized target (lambda_loc = 50, bounces at 6/sqrt(50), gamma = sqrt(50)), SG-HMC and
cyclical SG-HMC on the whole target (lambda_loc = 0), all with control variates at x_SWA.
Each method is one ``bnnsample run experiment=paulin2025_fig4_<method>`` (the experiment
configs hold the paper's settings); the runs are pooled into disjoint ensembles of 1, 2, 4,
... runs (``evaluate.ensembles``) for standard training, SWA and each sampler's predictive.

The scales (``SETTINGS``) are described by ``SCALE_TEXT``, which each section prints, and what they cost
beside their settings. ``burn_in=B`` (epochs) reruns the samplers with another burn-in from the SWA points of
the run with the scale's own burn-in when that run exists (runs under ``<runs>_burnin<B>``; the paper's burn-in
is 10 epochs of 300 steps of 1.25e-4, 0.375 units of simulated time); ``dataset=`` chooses another image set
(e.g. mnist5k at scale=reduced, which then keeps all its images), ``runs=`` the number of runs, ``methods=`` a
comma list. The runs' arithmetic and batching on a GPU: ``precision=`` (model.precision: float32, tf32, bf16),
``deterministic=false`` (cuDNN's autotuned kernels) and ``part_runs=`` (runs trained and sampled together, at
the scales made in parts) give other runs, under a root of their own, and each verdict's setting names them.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, replace
from pathlib import Path

from ...figures.claims import Claims, by_count, not_reproduced, not_tested, partly, reproduced, verdict_of
from ...figures.common import md_table
from ...figures.driver import Figure, Invocation, Option, choice, integer, names, number, register_figure
from ...rundir import write_frame
from ...stats import t_quantile
from .ensemble_runs import FIG, LOCALIZED, kernels_suffix, method_grid, n_parts, print_estimate, run_workers
from .temperature_scaling import split_sizes, swa_ts_predictives

TITLE = ": calibration against ensemble size, SMS-UBU vs SWA vs standard training vs baselines (paulin2025 Fig. 4, §5)"
METHODS = ("sms_ubu", "sg_ubu", "sg_ubu_wor", "sg_hmc", "cyclical_sghmc")
METRICS = ("accuracy", "nll", "ace", "rps")
LABELS = {"standard": "standard training", "swa": "SWA", "swa_ts": "SWA + temperature scaling", "sms_ubu": "SMS-UBU", "sg_ubu": "SG-UBU",
          "sg_ubu_wor": "SG-UBU w/o repl.", "sg_hmc": "SG-HMC", "cyclical_sghmc": "cyclical SG-HMC"}  # fmt: skip
RUNS = "must be an integer >= 1 (independent runs)"
OPTIONS = (Option("dataset"), Option("runs", integer(1, RUNS)), Option("chains", integer(1, RUNS)),
           Option("methods", names(METHODS, lambda _: f"allowed values (comma list): {', '.join(METHODS)}")),
           Option("burn_in", integer(0, "must be an integer number of epochs >= 0")),
           Option("workers", integer(1, "must be an integer >= 1"), 1), Option("part"),
           Option("time_limit", number(0, "must be a number of seconds > 0")), Option("device", choice("auto", "cpu", "cuda")),
           Option("holdout", lambda k, v: _share(k, v)), Option("precision", choice("auto", "float32", "tf32", "bf16")),
           Option("deterministic", choice("true", "false")), Option("part_runs", integer(1, RUNS)),
           Option("first_part", integer(0, "must be an integer >= 0 (the first part's number and seed)")),
           Option("with_groups", lambda k, v: [Path(d).expanduser() for d in v.split(",")]))  # fmt: skip


def _share(key: str, text: str) -> float:
    """holdout=: the share of the training images held out as a validation split, in (0, 0.5]."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= 0.5:
        raise ValueError(f"{key}={text}: must be a share of the training images in (0, 0.5], e.g. 0.1")
    return value


def _schedule(train: int, swa: int, burn_in: int, samples: int) -> list[str]:
    """Overrides of a shortened Algorithm 3 schedule, in epochs, one draw per epoch."""
    return [f"init.train_epochs={train}", f"init.swa_epochs={swa}", f"burn_in={burn_in}", f"samples={samples}",
            "thin=1", "unit=epoch"]  # fmt: skip


# offline, about 5 minutes on a quiet 2-core machine; cnn_small: 16/32/32 channels, Softplus, BatchNorm
# momentum 1; the EM step is twice the UBU step, as the authors' is twice their effective UBU step
QUICK = {"dataset": "mnist5k", "model": "cnn_small", "chains": 4, "step": {"ubu": 1e-3, "em": 2e-3},
         "overrides": _schedule(3, 1, 1, 3)}  # fmt: skip
# meant for one GPU (hours on 2 CPU cores); a stratified training subset, the whole test set; the potential
# of 10,000 images is 6 times less stiff than the paper's 60,000, whose steps are 1.25e-4 / 2.5e-4
REDUCED = {"dataset": "fmnist", "model": "cnn_small", "chains": 16, "step": {"ubu": 5e-4, "em": 1e-3},
           "overrides": ["dataset.n_train=10000", *_schedule(8, 2, 2, 10)]}  # fmt: skip
# SMS-UBU only by default: each baseline would add about 30 CPU-minutes; with burn_in=8, where SMS-UBU took
# 86, a baseline with i.i.d. batches about 3 CPU-hours (3 s per step against 1.4: the reference gradient of its
# control variate is recomputed each step instead of cached per batch)
LARGE = {"dataset": "fmnist", "model": "cnn_small", "chains": 16, "step": {"ubu": 1.25e-4, "em": 2.5e-4},
         "overrides": _schedule(3, 1, 1, 4), "methods": ("sms_ubu",)}  # fmt: skip
# about 4 CPU-hours for 16 runs, run in parts of 8 runs (one process each, workers=2)
PAPER_SCHEDULE = {"dataset": "fmnist", "model": "cnn_small", "chains": 16, "step": {"ubu": 1.25e-4, "em": 2.5e-4},
                  "overrides": ["model.n_calibration=10000", *_schedule(15, 5, 10, 30)], "methods": ("sms_ubu",),
                  "part_runs": 8}  # fmt: skip
# for a GPU (GPU-days on 2 CPU cores): parts of 8 runs trained and sampled together (vmap over runs), SMS-UBU
# unless methods= asks for the baselines; time_limit= lets each command end in time
PAPER_RUNS = 64  # the runs of the paper's Fig. 4 (its notebooks: 64 runs, 64/es groups)
PAPER = {"dataset": "fmnist", "model": "cnn_fmnist", "chains": PAPER_RUNS, "overrides": ["model.n_calibration=10000"],
         "step": None, "part_runs": 8, "methods": ("sms_ubu",)}  # fmt: skip
SETTINGS = {"quick": QUICK, "reduced": REDUCED, "large": LARGE, "paper_schedule": PAPER_SCHEDULE, "paper": PAPER}

# the authors' Fashion-MNIST notebooks (fashion_MNIST_SG_UBU*.ipynb, fashion_MNIST_SG_HMC.ipynb of
# github.com/paulindani/SMS_Kinetic_Langevin, the code the paper cites), 64 runs, mean over 64/es groups
PAPER_NUMBERS = {
    "sg_ubu": {1: (0.9374, 0.0030, 0.1957, 0.0177), 2: (0.9420, 0.0021, 0.1734, 0.0164),
               4: (0.9441, 0.0018, 0.1631, 0.0157), 8: (0.9456, 0.0018, 0.1580, 0.0154),
               16: (0.9464, 0.0018, 0.1555, 0.0153)},
    "sg_ubu_wor": {1: (0.9372, 0.0033, 0.2016, 0.0177), 2: (0.9422, 0.0021, 0.1757, 0.0163),
                   4: (0.9450, 0.0017, 0.1638, 0.0156), 8: (0.9466, 0.0016, 0.1583, 0.0153),
                   16: (0.9474, 0.0017, 0.1553, 0.0151)},
    "sg_hmc": {1: (0.9316, 0.0037, 0.1950, 0.0188), 2: (0.9346, 0.0044, 0.1879, 0.0182),
               4: (0.9362, 0.0049, 0.1844, 0.0179), 8: (0.9371, 0.0051, 0.1827, 0.0177),
               16: (0.9376, 0.0052, 0.1818, 0.0177)},
}  # (accuracy, ACE, NLL, RPS)  # fmt: skip


# the paper's other image sets have recipes of their own (their hyperparameters, texts and claims)
OWN_RECIPES = {"celeba": "paulin2025-fig5", "chestxray": "paulin2025-fig6", "cifar10": "paulin2025-table4"}


def _settings(inv: Invocation) -> tuple[dict, list[str]]:
    """(the scale's settings changed by the options, the methods in the order they run)."""
    o, s = inv.opt, dict(inv.st)
    if o["dataset"] in OWN_RECIPES:
        raise ValueError(f"dataset={o['dataset']}: the paper's experiment on it has its own recipe, `bnnsample figure "
                         f"{OWN_RECIPES[o['dataset']]} data_dir=DIR` (this one is Fig. 4, Fashion-MNIST)")  # fmt: skip
    if o["dataset"] is not None and o["dataset"] != s["dataset"]:
        s["dataset"] = o["dataset"]
        s["model"] = None if inv.scale == "paper" else "cnn_small"  # paper: the dataset's own CNN
        s["overrides"] = [v for v in s["overrides"] if not v.startswith("dataset.")]  # keys of the default set
    for key in ("runs", "chains"):  # chains=: the older name of runs=, the number of independent runs
        if o[key] is not None:
            s["chains"] = o[key]
    how_runs_are_made(s, o, inv.scale)
    if o["burn_in"] is not None:  # another burn-in (epochs) from the same SWA points: runs under <runs>_burnin<B>
        s["overrides"] = [f"burn_in={o['burn_in']}" if v.startswith("burn_in=") else v for v in s["overrides"]]
        s["burn_in"] = o["burn_in"]
    if o["holdout"] is not None:  # every method trains on the rest of the pool (temperature_scaling)
        s["holdout"] = o["holdout"]
        s["n_train"], s["n_val"] = split_sizes(_pool(s), o["holdout"])
        s["overrides"] = [*(v for v in s["overrides"] if not v.startswith("dataset.n_train=")),
                          f"dataset.n_train={s['n_train']}"]  # fmt: skip
    methods = o["methods"] or list(s.get("methods", METHODS))
    if methods[0] != "sms_ubu":
        methods = ["sms_ubu", *[m for m in methods if m != "sms_ubu"]]  # trains the shared SWA points
    return s, methods


def _pool(s: dict) -> int:
    """The training pool of the settings ``s``: their ``dataset.n_train`` or the dataset's whole training set."""
    from ...config import compose
    from ...data import load_data

    for v in s["overrides"]:
        if v.startswith("dataset.n_train="):
            return int(v.split("=", 1)[1])
    keep = [v for v in s["overrides"] if v.startswith(("data_dir=", "dataset."))]
    return load_data(compose([f"dataset={s['dataset']}", *keep])).n_train


def how_runs_are_made(s: dict, o: dict, scale: str) -> None:
    """Set in the setting ``s`` how its runs are made from the options ``o``: workers=N processes,
    part= (a worker's share), time_limit= (seconds from now; every run gets what is left), device=,
    the parts' size and numbers (``_part_layout``), the arithmetic (precision=, deterministic=) and
    earlier sections' groups to pool (with_groups=); runs= must fill the scale's parts. The image-set
    recipes share it with options of their own (the keys they lack count as not given)."""
    _part_layout(s, o, scale)
    s["workers"], s["device"] = o["workers"], o["device"]
    first = s.get("first_part", 0)
    s["only_parts"] = _parts(o["part"], range(first, first + n_parts(s)))
    s["precision"], s["deterministic"] = o.get("precision"), o.get("deterministic")
    if o.get("with_groups"):
        s["with_groups"] = o["with_groups"]
    if o["time_limit"] is not None:
        s["deadline"] = time.monotonic() + o["time_limit"]


def _part_layout(s: dict, o: dict, scale: str) -> None:
    """part_runs= (runs trained and sampled together) and first_part= (the first part's number and
    seed: runs independent of parts 0, 1, ... made elsewhere), at the scales made in parts."""
    for key in ("part_runs", "first_part"):
        if o.get(key) and not s.get("part_runs"):
            raise ValueError(f"{key}={o[key]}: scale={scale} makes its runs in one part; allowed at "
                             f"{', '.join(k for k, v in SETTINGS.items() if v.get('part_runs'))}")  # fmt: skip
    if o.get("part_runs") is not None:
        s["part_runs"], s["default_part_runs"] = o["part_runs"], s["part_runs"]
    if o.get("first_part"):
        s["first_part"] = o["first_part"]
    if s.get("part_runs") and s["chains"] % s["part_runs"]:
        raise ValueError(f"runs={s['chains']}: scale={scale} runs in parts of {s['part_runs']} runs; "
                         f"allowed: a multiple of {s['part_runs']}")  # fmt: skip


def _parts(text: str | None, numbers: range) -> list[int] | None:
    """``part=0,2``: make only these parts (a worker's share), then stop before the tables."""
    if text is None:
        return None
    got = text.split(",")
    if not all(p.isdigit() and int(p) in numbers for p in got):
        raise ValueError(f"part={text}: allowed values: comma list of {numbers[0]}..{numbers[-1]}")
    return sorted({int(p) for p in got})


def why_tables(temps, rel, excess) -> list[str]:
    """Markdown of the measurements behind the verdicts: best-fit temperatures, reliability
    bins, the draws' excess training loss and kinetic temperature."""

    def bin_cells(m, lo) -> str:  # count | confidence | accuracy of one method's bin
        r = rel[(rel.method == m) & (rel.lo == lo)].iloc[0]
        return f"{int(r['count'])} | {r.confidence:.3f} | {r.accuracy:.3f}" if r["count"] else "0 | | "

    methods = rel.method.unique()
    return [
        "", "Why (measured; `calibration.csv`, `reliability.csv`, `excess_loss.csv`, `draws.csv`):", "",
        "Best-fit test temperature T* (softmax(log p / T*) minimises the test NLL; T* > 1: over-confident, "
        "T* < 1: under-confident), mean ± std over the disjoint groups:", "",
        *md_table(["method", "es", "T*", "NLL", "NLL at T*"],
                  [[LABELS.get(r.method, r.method), r.ensemble_size,
                    f"{r.t_best:.3f}" + ("" if math.isnan(r.t_best_std) else f" ± {r.t_best_std:.3f}"),
                    f"{r.nll:.4f}", f"{r.nll_tempered:.4f}"] for r in temps.itertuples()]),
        "", "Reliability of single-run predictives (top-label confidence bins, pooled over runs; gap = "
        "accuracy - confidence, positive = under-confident):", "",
        *md_table(["bin", *(c for m in methods for c in (f"{LABELS.get(m, m)} count", "conf", "acc"))],
                  [[f"({lo:.1f}, {lo + 0.1:.1f}]", *(bin_cells(m, lo) for m in methods)]
                   for lo in sorted(rel.lo.unique())]),
        "", "Training loss (mean cross-entropy per datum, BatchNorm on batch statistics) of the draws and of "
        "the SWA points, their difference per run (mean ± s.e. over runs), and the kinetic temperature "
        "|v|^2/d at the draws (1 at equilibrium):", "",
        *md_table(["method", "draws", "SWA", "excess", "excess x N", "d", "kinetic T (all draws)",
                   "kinetic T (first draw)"],
                  [[LABELS.get(e["method"], e["method"]), f"{e['draw_loss']:.4f}", f"{e['swa_loss']:.4f}",
                    f"{e['excess']:.4f} ± {e['excess_se']:.4f}", f"{e['excess_times_n']:.0f}", e["dim"],
                    f"{e['kinetic_temperature']:.3f}", f"{e['kinetic_temperature_first_draw']:.3f}"]
                   for e in excess]),
    ]  # fmt: skip


def diagnose(paths: dict[str, list[Path]], sizes, fig_dir: Path) -> tuple[list[str], dict]:
    """Measurements that explain the ensemble table (``evaluate.ensembles.diagnose_runs``: the
    best-fit test temperatures, reliability bins, each sampler's excess training loss and kinetic
    temperature, SMS-UBU minus SWA against the number of draws per run; it writes
    calibration.csv, reliability.csv, excess_loss.csv, draws.csv) as markdown; returns the
    markdown lines (the paired table, ``paired_table``, comes once every baseline is in), the paired differences (``evaluate.ensembles.paired``) behind the verdicts
    and the draws table (None without SMS-UBU)."""
    from ...evaluate.ensembles import diagnose_runs

    diffs, temps, rel, excess, by_draws = diagnose_runs(paths, sizes, fig_dir)
    lines = why_tables(temps, rel, excess)
    if by_draws is not None:
        lines += draws_table(by_draws)
    return lines, diffs, by_draws


DRAWS_HEADING = "SMS-UBU minus SWA with each run's Bayesian predictive averaged over its last k draws"


def draws_table(by_draws) -> list[str]:
    """Markdown of ``draws_differences``: SMS-UBU minus SWA with the last k draws of each run."""

    def cell(g, metric: str) -> str:
        r = g[g.metric == metric].iloc[0]
        return f"{r['diff']:+.4f}" + ("" if math.isnan(r["se"]) else f" ± {r['se']:.4f}")

    return ["", f"{DRAWS_HEADING} "
            "(`draws.csv`; mean ± s.e. over the disjoint groups, paired):", "",
            *md_table(["draws per run", "es", "accuracy", "NLL", "ACE"],
                      [[k, es, *(cell(g, m) for m in ("accuracy", "nll", "ace"))]
                       for (k, es), g in by_draws.groupby(["draws", "ensemble_size"], sort=True)])]  # fmt: skip


def _judge(diff: float, se: float, higher_is_better: bool, groups: int = 0) -> str:
    """better / worse (the 95% t interval over the ``groups`` disjoint groups excludes 0) / not
    distinguishable; by sign alone, marked, when there is one group and so no standard error."""
    gain = diff if higher_is_better else -diff
    if math.isnan(se):
        return ("better" if gain > 0 else "worse") + " (one group, no s.e.)"
    half = t_quantile(groups) * se if groups >= 2 else 2 * se
    if gain > half:
        return "better"
    if gain < -half:
        return "worse"
    return "not distinguishable"


def _diff(diffs: dict, base: str, es: int, metric: str) -> tuple[float, float, int]:
    """(mean difference, its s.e., the number of groups) of one cell of ``evaluate.ensembles.paired``."""
    d = diffs.get(base)
    r = d[(d.ensemble_size == es) & (d.metric == metric)] if d is not None else ()
    if not len(r):
        return math.nan, math.nan, 0
    return float(r["diff"].iloc[0]), float(r["se"].iloc[0]), int(r["groups"].iloc[0])


def paired_table(diffs: dict, sizes) -> list[str]:
    """The paired differences behind the per-size verdicts, one row per (size, baseline)."""

    def cell(es, base: str, metric: str) -> str:
        diff, se, groups = _diff(diffs, base, es, metric)
        j = _judge(diff, se, metric == "accuracy", groups)
        return f"{diff:+.4f}" + ("" if math.isnan(se) else f" ± {se:.4f}") + f" ({j})"

    return ["", "SMS-UBU minus the baseline, paired over the same groups of runs (mean ± s.e. over groups; "
            "better/worse = the 95% t interval over the groups excludes 0):", "",
            *md_table(["es", "vs", "accuracy", "NLL", "ACE", "RPS"],
                      [[es, LABELS[base], *(cell(es, base, m) for m in METRICS)] for es in sizes for base in diffs])]  # fmt: skip


PAIRED = ("swa", "standard")  # the paper's baselines, in the calibration claim's six differences
GPU_JOB = ("the GPU job fig4_paper in scripts/gpu_queue.sh runs it at the paper's scale (scale=paper runs=8 "
           "methods=sms_ubu,sg_hmc: 8 runs trained, then sampled by SMS-UBU and SG-HMC, about 22 GPU-minutes on "
           "one H200, where 16 SMS-UBU runs took 18.6)")  # fmt: skip
_BASELINES_RUN = (
    "SG-HMC was not run in this invocation (methods=sms_ubu,sg_hmc adds it, from the same SWA points; with "
    "i.i.d. batches a step costs about twice SMS-UBU's, since its control variate's reference gradient is "
    f"recomputed each step); {GPU_JOB}"
)
# the thirty-fourth audit (2026-11-30): the side sections made on this CPU outside results/paulin2025-fig4 (cpu_ts,
# paper_schedule_cnn_small) were judged with no evidence, 'not tested: scale' with the GPU job's cost only
SGHMC_CPU_HISTORY = (
    "until 2026-11-30 (the thirty-fourth audit) a CPU section made outside results/paulin2025-fig4 (as the committed "
    "cpu_ts and paper_schedule_cnn_small were) got no evidence and 'not tested: scale' here with the GPU job's cost "
    "only, and the evidence was always the largest scale's, not this section's own schedule's"
)


def sghmc_here_text(command: str, runs: int, cpu_s: float | None, kept: tuple) -> str:
    """What adding SG-HMC to a CPU section costs (``_BASELINES_RUN`` for a GPU section): its command with
    methods=...,sg_hmc, its runs made again where they are not kept (``kept_runs``; their CPU seconds ``cpu_s`` from
    results/costs.csv), and SG-HMC's sampling, at most about twice theirs (a step costs about twice SMS-UBU's)."""
    words = dict(w.split("=", 1) for w in command.split()[3:])
    methods = [x for x in words.get("methods", "sms_ubu").split(",") if x != "sg_hmc"]
    words["methods"] = ",".join([*methods, "sg_hmc"])
    job = " ".join(f"{k}={v}" for k, v in words.items())
    if not cpu_s:
        return f"{_BASELINES_RUN.split('; the GPU job')[0]}; here `bnnsample figure {FIG} {job}`"
    remade = kept[0] != "runs"
    total = cpu_s * (3 if remade else 2)
    return (f"SG-HMC was not run in this invocation; here `bnnsample figure {FIG} {job}` adds it, at most about "
            f"{total:,.0f} CPU-s ({total / 3600:.1f} CPU-hours: "
            + (f"the {runs} runs made again, {cpu_s:,.0f} CPU-s in results/costs.csv, as they are not kept, and "
               if remade else f"from the {runs} runs kept, ")
            + "SG-HMC's sampling at most about twice theirs: with i.i.d. batches its step costs about twice "
            "SMS-UBU's, its control variate's reference gradient recomputed each step)")  # fmt: skip


TS_RUNS = ("holdout=0.1 adds it (every method then trains on the other 90% of the images: new runs); run on a CPU "
           "at scale=reduced runs=4 holdout=0.1 (results/paulin2025-fig4/cpu_ts/, its section.md; there SMS-UBU was "
           "higher than SWA with temperature scaling in 4 of 6 (size, metric) cells with more than one group and lower "
           "in 0, e.g. NLL at size 1 +0.0339 ± 0.0034), and the GPU "
           "job fig4_ts in scripts/gpu_queue.sh runs it at the paper's scale (scale=paper runs=8 holdout=0.1, "
           "about 10 GPU-minutes on one H200)")  # fmt: skip
NOISE = (
    "the s.e. is the spread over the disjoint groups of runs of the paired difference (our run-to-run noise, measured)"
)
# a tier of the code since 2026-11-23 (before the first paper-scale run, 2026-11-26), stated in the tolerance since
# 2026-11-29 (the seventeenth audit: it was applied but not said); no verdict changed
ONE_GROUP = (
    "not tested: one group of runs at this size (no s.e.; the signs alone are in the reason; applied since "
    "2026-11-23, before any paper-scale run, and stated here since 2026-11-29)"
)
# stated on 2026-11-29 (the seventeenth and nineteenth audits): until then 'partly' took none above 0 even with none
# below, which the committed CPU section cpu_ts gave at size 2 (0 of 6 lower); now a null result is a failure only at
# the paper's design (as many groups as its runs give at that size), else no test
NONE_RESOLVED = (
    "none of the six told from 0 by its interval: not reproduced with at least the groups the paper's runs give at "
    "this size (its design did not show the difference), not tested with fewer (more groups needed); until "
    "2026-11-29 partly, which results/paulin2025-fig4/cpu_ts (4 runs) gave at size 2, now not tested there"
)
# the accuracy claim's tiers (Figs. 4-6): partly needs some gain (by its interval, or by sign at every judged size),
# and a null result is judged as the calibration claim's (NONE_RESOLVED); the twenty-second audit, 2026-11-29. Both
# baselines since the twenty-fourth audit (2026-11-29): §5's 'ensembles of the same size' are SWA's and standard
# training's, as in the calibration half of the same sentence
ACCURACY_TIERS = (
    "against SWA and standard training, each paired difference judged by its 95% t interval over the groups; "
    "reproduced: higher than both at every size, every interval above 0; partly: nowhere lower than either by its "
    "interval (interval below 0), and higher than both at some size by their intervals or every judged difference "
    "above 0 by point estimate; not reproduced: lower than either at some size by its interval, or no gain told from "
    "0 and not higher by sign everywhere with at least the groups the paper's 64 runs give at each size (its design "
    "did not show the gains); not tested: that null result with fewer groups (more needed); a size with one group of "
    "runs (no s.e.) is not judged, and with one group at every size: not tested (applied since 2026-11-23, before any "
    "paper-scale run, and stated since 2026-11-29); until 2026-11-29 (the twenty-second audit) partly took nowhere "
    "lower alone, which no committed section's row changes: each has a size higher by its interval, or is not "
    "tested; until 2026-11-29 (the twenty-fourth audit) against SWA alone (the stronger of the two at size 1 in "
    "Fig. 4's paper-scale section), changed after that section was seen, where both rules give partly (the reason "
    "says where the old rule gives another verdict)"
)
# the draws tier: applied since 2026-11-26 (commit 32b637f, with the first 30-draw section), stated since 2026-11-30
# (the thirty-fifth audit: cpu_ts's accuracy row was 'not tested: scale' by it, a tier its tolerance did not state,
# with no cost, though the 30-draw test fits this CPU); fair as the bias of fewer draws is against SMS-UBU only: at
# paper_schedule_cnn_small SMS-UBU - SWA in accuracy at size 1 is -0.0091 with 1 draw per run, +0.0057 with 30
DRAWS_TIER = (
    "fewer draws per run than the paper's 30: a not reproduced whose failing difference to SWA moves in SMS-UBU's "
    "favour from 1 draw to all of them by more than its 95% t interval (draws.csv) does not test the paper's setting; "
    "such a row takes the verdict of the committed section of this figure at the paper's 30 draws on the same data "
    "(the same network first, then the most runs), its numbers and command given, and without one it is not tested "
    "(not run, priced, on this CPU; scale on a GPU); the draws condition applied since 2026-11-26 (then: not tested: "
    "scale, with no 30-draw section consulted and no cost), stated here and the 30-draw section's verdict taken "
    "since 2026-11-30 (the thirty-fifth audit), a change made after both sections' results were seen; the reason "
    "gives the verdict without this tier; a metric (calibration rows: NLL, ACE or RPS, lower is better) fails where "
    "SMS-UBU's is told above SWA's or standard training's by its interval, an ensemble size (accuracy row) where "
    "SMS-UBU's accuracy is told below, and the tier acts only where each failing one fails against SWA and that "
    "difference moves (the draws change SMS-UBU's predictions alone, so a move against SWA is the same "
    "move against standard training); one failing against standard training alone keeps its verdict (until "
    "2026-11-30, the thirty-seventh audit, a move at any size sufficed for the accuracy row and a metric failing "
    "against standard training alone counted for the calibration rows, which gives no committed row another "
    "verdict)"
)
# an accuracy is a count of test images: a group difference moves in steps of one image, and an s.e. of 0 (every
# group differing by the same count) says the spread is below that step, not that it is 0. Stated on 2026-11-30 (the
# thirty-seventh audit) after results/paulin2025-fig4/precision_cpu was seen, where float32's size 4 (-0.0010 ±
# 0.0000: its 2 groups each one of 1,000 test images below SWA) had counted as lower
ACCURACY_FLOOR = (
    "an accuracy counts test images, so the spread over the groups of an accuracy difference is taken as at least "
    "one test image (1/n_test), its s.e. as at least 1/(n_test sqrt(groups)); an s.e. of 0 (the groups all differing "
    "by the same count) is not a resolved difference; applied since 2026-11-30 (the thirty-seventh audit, after "
    "results/paulin2025-fig4/precision_cpu was seen, where an s.e. of 0 had counted as resolved), the reason names "
    "each s.e. raised and what the rule without the floor gives"
)
# the image sets this recipe runs and their test images (conf/dataset: mnist5k n_test 1000; fmnist n_test null, its
# whole 10,000-image test set): what a section re-judged from its files takes for n_test (``n_test_of``)
TEST_IMAGES = {"mnist5k": 1000, "fmnist": 10000}
DATA_NAMES = {"mnist5k": "the MNIST 5k subset"}
ACCURACY_METHOD = "paired accuracy differences SMS-UBU - SWA and SMS-UBU - standard training"


def not_run_history(since: str = "the thirty-fourth audit") -> str:
    """What a CPU section's one-group or null-result row said until it was judged by the rule of the thirty-fourth
    audit ('not tested: not run' where the test fits this CPU and is queued): ``since``, the audit at which this
    section was so judged (``NOT_RUN_SINCE``)."""
    return (f"until 2026-11-30 ({since}) not tested: scale, though the test fits this 2-core CPU (priced in wall "
            "minutes, or not at all)")  # fmt: skip


NOT_RUN_HISTORY = not_run_history()
# the side sections first re-judged by that rule after the thirty-fourth audit, by the folder above theirs
# (precision_cpu/float32, precision_cpu/bf16: commit 4b15055; until 2026-11-30, the thirty-eighth audit, their rows
# named the thirty-fourth)
NOT_RUN_SINCE = {
    "precision_cpu": "the thirty-seventh audit, when this section was first re-judged by the thirty-fourth's rule"
}


# the calibration claim has a row per ensemble size run (of evaluate.ensembles.SIZES); the others one row each
CLAIMS = Claims("statement")
ENSEMBLE_SIZES = (1, 2, 4, 8, 16)  # evaluate.ensembles.SIZES, the paper's (imported lazily there: pandas)


@CLAIMS.family("calibration", ENSEMBLE_SIZES,
               "the Bayesian (SMS-UBU) ensemble has lower NLL, ACE and RPS than SWA and than standard training of "
               "the same ensemble size: ensemble size {}", "§5, Fig. 4", "lower at every ensemble size (here {})",
               tolerance="reproduced: all six paired differences (3 metrics x 2 baselines) lower, their 95% t "
               "intervals over the groups below 0; partly: some below 0 by their intervals, none above 0 by its "
               "interval; not reproduced: any above 0 by its interval (size of the largest in s.e.); "
               + NONE_RESOLVED + "; " + ONE_GROUP + "; " + DRAWS_TIER + "; " + NOISE,
               method="paired differences over the same disjoint groups of runs, s.e. over groups")  # fmt: skip
def _calibration_rule(es: int, m: dict):
    if es in m["sizes"]:
        # a size of one group: what a second group costs; else, for a null result, what the paper's runs cost
        more = m.get("more_runs", {}).get(es) or m.get("paper_runs", "")
        return calibration_outcome(m["diffs"], es, m["by_draws"], more, paper_groups=PAPER_RUNS // es,
                                   draws=_draws_context(m, CLAIMS[("calibration", es)].text),
                                   history=m.get("not_run_history", NOT_RUN_HISTORY))  # fmt: skip
    return None


def calibration_outcome(diffs: dict, es: int, by_draws=None, more_runs: str = "", paper_groups: int = 0,
                        draws: dict | None = None, history: str = NOT_RUN_HISTORY):  # fmt: skip
    """The §5 calibration claim at ensemble size ``es`` (``_calibration_at``, ``history``: what a 'not run' row said
    before); a "not reproduced" that hinges on the draws per run (every metric found worse does,
    ``hinges_on_draws`` on ``by_draws``) is judged at the paper's draws (``at_paper_draws``, ``draws``)."""
    o = _calibration_at(diffs, es, more_runs, paper_groups, history)
    if o.verdict.startswith("not reproduced"):
        worse = _worse_metrics(diffs, es)
        to_swa = [x for x in worse if _judge(*_diff(diffs, "swa", es, x)[:2], False, _diff(diffs, "swa", es, x)[2])
                  == "worse"]  # fmt: skip
        hinges = [hinges_on_draws(by_draws, es, x, False) for x in to_swa]
        if worse and to_swa == worse and all(hinges):  # every failing difference is to SWA and moves (DRAWS_TIER)
            return at_paper_draws(o, "; ".join(hinges), draws)
    return o


def _draws_context(m: dict, claim: str) -> dict:
    """What ``at_paper_draws`` needs of a section's measurements ``m``: the claim's text, the committed 30-draw
    section (``draws_evidence``), whether the section was made on this CPU and what the 30-draw schedule costs."""
    return {"claim": claim, "from": m.get("draws_from"), "cpu": m.get("cpu", False),
            "cpu_s": m.get("draws_cpu_s")}  # fmt: skip


def at_paper_draws(o, hinge: str, draws: dict | None):
    """A "not reproduced" ``o`` that hinges on fewer draws per run than the paper's (``hinge``, ``hinges_on_draws``;
    ``DRAWS_TIER``): the verdict of the same claim in the committed section at the paper's draws (``draws["from"]``,
    ``draws_evidence``), its numbers beside this section's and its command the setting; without one, not tested:
    not run on this CPU (``draws["cpu"]``; the 30-draw schedule priced from ``draws["cpu_s"]``), else scale."""
    draws = draws or {}
    without = f"without the draws tier (DRAWS_TIER) this row is {o.verdict}: {o.why}; {hinge}"
    ev = draws.get("from")
    row = ev.rows.get(draws.get("claim")) if ev else None
    if row is not None:
        return replace(o, verdict=row["verdict"], ours=f"{o.ours}; at the paper's {PAPER_DRAWS} draws per run, "
                       f"{ev.where}: {row['ours']}", setting=ev.command,
                       why=f"judged at the paper's {PAPER_DRAWS} draws per run on {ev.where} (its row: "
                       f"{row['reason']}); {without}")  # fmt: skip
    if not draws.get("cpu"):
        return not_tested("scale", o.ours, f"{without}; no committed section at the paper's {PAPER_DRAWS} draws")
    cost = draws.get("cpu_s")
    price = (f", {cost:,.0f} CPU-s ({cost / 3600:.1f} CPU-hours) for its 16 runs in results/costs.csv" if cost else
             ", its CPU seconds not in results/costs.csv")  # fmt: skip
    return not_tested("not run", o.ours, f"{without}; no committed section at the paper's {PAPER_DRAWS} draws judges "
                      f"it: `bnnsample figure {FIG} scale=paper_schedule` (the recipe's CPU schedule with "
                      f"{PAPER_DRAWS} draws per run{price})")  # fmt: skip


def accuracy_outcome(diffs: dict, sizes, by_draws=None, more: str = "", paper_runs: int = PAPER_RUNS,
                     draws: dict | None = None, n_test: int | None = None,
                     history: str = NOT_RUN_HISTORY):  # fmt: skip
    """The §5 accuracy claim over the ensemble ``sizes`` (``_accuracy``, ``paper_runs``: the runs of the paper's
    figure), each accuracy s.e. at least one of the ``n_test`` test images' (``floor_accuracy``, ACCURACY_FLOOR;
    none without ``n_test``); a "not reproduced" whose failing differences are each to SWA and each hinge on the
    draws per run is judged at the paper's draws (``at_paper_draws``, ``draws``; ``_draws_hinge``); ``more``: what
    more runs would cost, said where the verdict is partly or a null result not tested (not run where that test
    fits this CPU and is queued, ``QUEUED``; ``history``: what such a row said before, ``not_run_history``)."""
    raw, (diffs, raised) = diffs, floor_accuracy(diffs, n_test)
    by_draws = floor_accuracy({"draws": by_draws}, n_test)[0]["draws"] if by_draws is not None else None
    o = _accuracy(diffs, sizes, paper_runs)
    old = _accuracy(diffs, sizes, paper_runs, bases=("swa",)).verdict
    if old != o.verdict:
        o = replace(
            o, why=f"{o.why}; the rule until 2026-11-29 (the twenty-fourth audit: against SWA alone) gives {old}"
        )
    if raised:
        unfloored = _accuracy(raw, sizes, paper_runs)
        o = replace(o, why=f"{o.why}; an s.e. below the floor of one test image (1/{n_test:,} over sqrt(groups), "
                    f"ACCURACY_FLOOR) raised to it: {'; '.join(raised)}; without the floor (the rule until 2026-11-30, the "
                    f"thirty-seventh audit) this row is {unfloored.verdict}: {unfloored.why}")  # fmt: skip
    if o.verdict in ("partly", "not tested: scale") and more and "one group of runs at every size" not in o.why:
        o = replace(o, why=f"{o.why}; {more}")
        if o.verdict == "not tested: scale" and QUEUED in more:  # a null result whose test fits this CPU, queued
            o = replace(o, verdict="not tested: not run", why=f"{o.why}; {history}")
    if o.verdict.startswith("not reproduced"):
        hinge = _draws_hinge(diffs, sizes, by_draws)
        return at_paper_draws(o, hinge, draws) if hinge else o
    return o


def _draws_hinge(diffs: dict, sizes, by_draws) -> str | None:
    """Why a failing accuracy row hinges on the draws per run (DRAWS_TIER), or None: it has failing sizes (lower than
    SWA or standard training by an interval; a null result has none), at each the difference to SWA is one of them,
    and each moves in SMS-UBU's favour with more draws (``hinges_on_draws``)."""
    failing = []
    for es in sizes:
        c = {b: _diff(diffs, b, es, "accuracy") for b in PAIRED}
        if any(math.isnan(se) for _, se, _ in c.values()) or _size_judgement(c) != "worse":
            continue
        if _judge(*c["swa"][:2], True, c["swa"][2]) != "worse":
            return None  # failing against standard training alone: no failing difference to SWA
        failing.append(hinges_on_draws(by_draws, es, "accuracy", True))
    return "; ".join(failing) if failing and all(failing) else None


def floor_accuracy(diffs: dict, n_test: int | None) -> tuple[dict, list[str]]:
    """({name: paired differences} with each accuracy s.e. of two or more groups at least 1/(``n_test``
    sqrt(groups)) (ACCURACY_FLOOR: the spread over groups of a count of test images taken as at least one image),
    the raised cells in words); ``diffs`` unchanged without ``n_test``."""
    if not n_test:
        return diffs, []
    out, raised = {}, []
    for name, d in diffs.items():
        d = d.copy()
        floor = 1 / (n_test * d["groups"].clip(lower=1) ** 0.5)
        low = (d.metric == "accuracy") & (d.groups >= 2) & (d.se < floor)
        for r, f in zip(d[low].itertuples(), floor[low]):
            where = f"size {r.ensemble_size}" + (f" vs {LABELS[name]}" if name in LABELS else f" with {r.draws} draws")
            k = round(r.diff * n_test)  # with s.e. 0 every group differs by this count
            each = f", each {k:+d} test image{'s' if abs(k) != 1 else ''}" if r.se == 0 else ""
            raised.append(f"{where} {r.diff:+.4f} ± {r.se:.4f} ({r.groups} groups{each}) taken as ± {f:.4f}")
        d.loc[low, "se"] = floor[low]
        out[name] = d
    return out, raised


def n_test_of(settings: str) -> int | None:
    """The test images of a section from its Settings text: its ``dataset.n_test=`` override, else its dataset's
    (TEST_IMAGES); None for a dataset not there."""
    n = re.search(r"dataset\.n_test=(\d+)", settings)
    name = re.search(r"dataset `(\w+)`", settings)
    return int(n[1]) if n else TEST_IMAGES.get(name[1]) if name else None


def with_data(setting: str, dataset: str, n_test: int | None) -> str:
    """A verdict's setting (``setting_text``) with its image set named where it stands in for the paper's
    Fashion-MNIST (DATA_NAMES): after the network, '<net> on the MNIST 5k subset (`mnist5k`, 1,000 test images)
    standing in for Fashion-MNIST'; as it is for another data set (Fashion-MNIST, or the own data of the recipes
    that share this code: paulin2025-fig5, -fig6, -table4) or where already named."""
    if dataset not in DATA_NAMES or "standing in for" in setting:
        return setting
    images = f", {n_test:,} test images" if n_test else ""
    net, rest = setting.split(", ", 1)
    return f"{net} on {DATA_NAMES[dataset]} (`{dataset}`{images}) standing in for Fashion-MNIST, {rest}"


@CLAIMS.rule("accuracy", "small accuracy gains over SWA and standard-training ensembles of the same size",
             "§5, Fig. 4 ('small gains in accuracy over ensembles of the same size', of SWA and of standard "
             "training)",
             "gains at every ensemble size",
             tolerance=ACCURACY_TIERS + "; " + ACCURACY_FLOOR + "; " + DRAWS_TIER + "; " + NOISE,
             method=ACCURACY_METHOD)  # fmt: skip
def _accuracy_rule(m: dict):
    return accuracy_outcome(m["diffs"], m["sizes"], m["by_draws"], m.get("paper_runs", ""),
                            draws=_draws_context(m, CLAIMS["accuracy"].text), n_test=m.get("n_test"),
                            history=m.get("not_run_history", NOT_RUN_HISTORY))  # fmt: skip


# where the SG-HMC rows take their evidence (``_sghmc_elsewhere``, ``sghmc_evidence``); until 2026-11-30 (the
# thirty-eighth audit) their tolerance ended 'not tested: SG-HMC not run' though a section without SG-HMC is judged
# on another's
SGHMC_ELSEWHERE = (
    "a section that did not run SG-HMC is judged on the committed section of this figure that did, at this section's "
    "schedule where there is one (else the largest scale's), named in ours and setting; not tested: SG-HMC run in "
    "neither"
)
# §5 names both whole-target methods; stated after the precision_cpu sections were seen (the thirty-eighth audit),
# which the tolerance says since the thirty-ninth
SGHMC_WORSE_HISTORY = (
    "until 2026-11-30 (the thirty-eighth audit) SG-HMC alone was judged, cyclical SG-HMC left out without saying so "
    "(the reason gives what that rule gives where it differs), a change made after every section's results were seen"
)


@CLAIMS.rule("sghmc_ace", "SG-HMC's ACE does not improve with ensemble size, while the UBU samplers' does",
             "§5, Fig. 4 (authors' notebook fashion_MNIST_SG_HMC.ipynb, github.com/paulindani/SMS_Kinetic_Langevin)",
             "SG-HMC 0.0037 -> 0.0052 from 1 to 16; SG-UBU 0.0030 -> 0.0018", source="derived",
             tolerance="SG-HMC's ACE does not decrease beyond one std over groups (our run-to-run noise, "
             "measured) while SMS-UBU's does; reproduced: both; partly: neither decreases (the contrast is not "
             "shown); not reproduced: SG-HMC's decreases; " + SGHMC_ELSEWHERE,
             method="ACE at the smallest and largest ensemble size, mean ± std over groups")  # fmt: skip
def _sghmc_ace_rule(m: dict):
    """``_sghmc_ace`` on this section's table, or on another section's (``_sghmc_elsewhere``); where so, the reason
    says what this section's SMS-UBU ACE does and what that other section can show (``_evidence_caveat``)."""
    o = _sghmc_elsewhere(m, _sghmc_ace)
    t, sizes = m["table"], m["sizes"]
    if "sg_hmc" in set(t.method) or "sms_ubu" not in set(t.method) or len(sizes) < 2:
        return o
    (u1, us1), un = _value(t, "sms_ubu", sizes[0], "ace"), _value(t, "sms_ubu", sizes[-1], "ace")[0]
    why = f"{o.why}; at this section's scale SMS-UBU's ACE {_ace_move(u1, us1, un, sizes)}"
    other = m.get("sghmc_from")
    if other:
        es = sorted(set(other[0].ensemble_size))
        o1, on = (_value(other[0], "sms_ubu", k, "ace")[0] for k in (es[0], es[-1]))
        why = "; ".join(w for w in (why, _evidence_caveat(other, o1, on)) if w)
    return replace(o, why=why)


@CLAIMS.rule("sghmc_worse", "the whole-target methods (lambda_loc = 0: SG-HMC, and cyclical SG-HMC where run) do "
             "worse than the localized UBU methods in NLL and ACE", "§5, Fig. 4 ('SG-HMC and cyclical SG-HMC ... "
             "These do not perform as well [as] the UBU-based methods relying on local approximations')",
             "do not perform as well as the UBU-based methods (both methods; no metric or size named: NLL and ACE at "
             "every size is this project's reading, stricter than the words)",
             tolerance="each whole-target method run (SG-HMC; cyclical SG-HMC where the table judged has it) above "
             "the best UBU method in every (metric, size) cell by more than twice the two means' combined s.e. over "
             "groups (our run-to-run noise, measured; by sign in a cell of one group); reproduced: every cell of "
             "every method; partly: some; not reproduced: none; " + SGHMC_WORSE_HISTORY + "; " + SGHMC_ELSEWHERE,
             method="ensemble means over groups")  # fmt: skip
def _sghmc_worse_rule(m: dict):
    o = _sghmc_elsewhere(m, _sghmc_worse)
    return replace(o, why="; ".join(w for w in (o.why, _notebook_sghmc_text()) if w))


def _notebook_sghmc_text() -> str:
    """Where the authors' notebooks (PAPER_NUMBERS, 64 runs) do not have SG-HMC's NLL or ACE above the best UBU
    method's (by value; they print no s.e. of a difference): the paper's words hold there only in the metrics not
    named by this row's reading."""
    ubu = [u for u in LOCALIZED if u in PAPER_NUMBERS]
    col = {"ace": 1, "nll": 2}
    level = []
    for metric, i in col.items():
        for es, v in PAPER_NUMBERS["sg_hmc"].items():
            best = min(ubu, key=lambda u: PAPER_NUMBERS[u][es][i])
            if v[i] <= PAPER_NUMBERS[best][es][i]:
                level.append(f"{metric.upper()} at size {es} ({v[i]:.4f} against {LABELS[best]}'s "
                             f"{PAPER_NUMBERS[best][es][i]:.4f})")  # fmt: skip
    if not level:
        return "the authors' notebooks have SG-HMC's NLL and ACE above the best UBU method's in every cell"
    return (f"the authors' notebooks (64 runs) have SG-HMC not above the best UBU method in {', '.join(level)}: "
            "this row's reading is stricter than their own numbers there")  # fmt: skip


@CLAIMS.rule("swa_ts", "beyond the paper: the Bayesian (SMS-UBU) ensemble has lower NLL, ACE and RPS than SWA with "
             "temperature scaling fitted on a held-out validation split, at every ensemble size",
             "a baseline the paper does not run (Guo et al. 2017's temperature scaling of the SWA network; among "
             "non-sampling baselines §5 has SWA and standard training only)", "-", source="derived",
             tolerance="lower: the 95% t interval over the groups below 0 (" + NOISE + ")",
             method="paired differences SMS-UBU - SWA with temperature scaling over the same groups of runs; "
             "each run's T minimises the NLL of its SWA network on the validation split; an ensemble averages "
             "its tempered runs")  # fmt: skip
def _swa_ts_rule(m: dict):
    diffs, sizes = m["diffs"], m["sizes"]
    if "swa_ts" not in diffs:
        return not_tested("not a paper experiment", "not run", f"not run in this invocation: {TS_RUNS}")
    cells, judged = [], []
    for es in sizes:
        for metric in ("nll", "ace", "rps"):
            diff, se, groups = _diff(diffs, "swa_ts", es, metric)
            judged.append(_judge(diff, se, False, groups))
            cells.append(f"es={es} {metric.upper()} {diff:+.4f}" + ("" if math.isnan(se) else f" ± {se:.4f}"))
    n = sum(not j.endswith("no s.e.)") for j in judged)
    why = (f"lower (t interval below 0) in {judged.count('better')} of {n} (size, metric) cells with more than one "
           f"group, higher in {judged.count('worse')}; held-out split: {m.get('holdout_text', '')}")  # fmt: skip
    return not_tested("not a paper experiment", "; ".join(cells), why)


def _calibration_at(diffs: dict, es: int, more_runs: str = "", paper_groups: int = 0,
                    history: str = NOT_RUN_HISTORY):  # fmt: skip
    """The §5 calibration claim at one ensemble size, from the six paired differences
    (``more_runs``: what a second group at this size would cost, for a size of one group; ``paper_groups``: the
    groups the paper's runs give at this size, where none resolved is a failure, not a lack of groups; ``history``:
    what a 'not tested: not run' row said before, ``not_run_history``)."""
    six = _six_differences(diffs, es)
    ours, judged, more = "; ".join(six.cells), six.judged, f"; {more_runs}" if more_runs else ""
    if not judged:
        return not_tested("scale", ours, "SWA/standard predictions missing")
    kind = "not run" if QUEUED in more else "scale"  # a CPU test that fits this machine, queued (``_more``)
    more += f"; {history}" if kind == "not run" else ""
    if six.one_group:
        return not_tested(kind, ours, f"one group of runs at this size, so no standard error; by sign alone "
                          f"{judged.count('worse')} of {len(judged)} higher{more}")  # fmt: skip
    if all(j == "better" for j in judged):
        return reproduced(ours)
    if "worse" in judged:
        return not_reproduced(ours, f"{judged.count('worse')} of {len(judged)} higher (t interval above 0); largest: "
                              f"{six.worst[1]}", z=six.worst[0] or None)  # fmt: skip
    point = f"; higher by point estimate, within the t interval: {', '.join(six.higher)}" if six.higher else ""
    if "better" not in judged:  # 'lower' (or 'significantly better') is not shown by differences not told from 0
        null = f"none of the {len(judged)} differences told from 0 by its t interval with {six.groups} groups"
        if paper_groups and six.groups >= paper_groups:
            return not_reproduced(
                ours, f"{null}, as many as the paper's runs give at this size ({paper_groups}){point}"
            )
        return not_tested(kind, ours, f"{null}, fewer than the paper's runs give at this size ({paper_groups or '?'})"
                          f"{point}{more}")  # fmt: skip
    return partly(ours, f"{judged.count('better')} of {len(judged)} lower (t interval below 0), none higher by its "
                  f"t interval{point}")  # fmt: skip


@dataclass(frozen=True)
class _Six:
    cells: list  # "NLL vs SWA +0.0012 ± 0.0003", ...
    judged: list  # better | worse | not (distinguishable)
    one_group: bool  # every difference without a standard error (one group of runs)
    higher: list  # the cells higher by point estimate, within their t interval
    worst: tuple  # (largest difference / s.e., its cell's name)
    groups: int  # the fewest groups of runs behind a difference


def _six_differences(diffs: dict, es: int) -> _Six:
    """The paired differences (3 metrics x the baselines present) at ensemble size ``es``, each judged by its
    95% t interval over the groups of runs (``_judge``)."""
    cells, worst, higher, judged_full, groups_of = [], (0.0, ""), [], [], []
    for base in (b for b in PAIRED if b in diffs):
        for metric in ("nll", "ace", "rps"):
            diff, se, groups = _diff(diffs, base, es, metric)
            j = _judge(diff, se, False, groups)
            judged_full.append(j)
            groups_of.append(groups)
            cell = f"{metric.upper()} vs {LABELS[base]} {diff:+.4f}"
            cells.append(cell + ("" if math.isnan(se) else f" ± {se:.4f}"))
            if diff > 0 and j == "not distinguishable":
                higher.append(cell)
            if se > 0 and diff / se > worst[0]:
                worst = (diff / se, f"{metric.upper()} vs {LABELS[base]}")
    one_group = bool(judged_full) and all(j.endswith("no s.e.)") for j in judged_full)
    return _Six(cells, [j.split(" ")[0] for j in judged_full], one_group, higher, worst, min(groups_of, default=0))


def _worse_metrics(diffs: dict, es: int) -> list[str]:
    """The metrics (nll, ace, rps) in which SMS-UBU is worse than SWA or standard training at ``es``."""
    worse = []
    for m in ("nll", "ace", "rps"):
        for base in (b for b in PAIRED if b in diffs):
            diff, se, groups = _diff(diffs, base, es, m)
            if _judge(diff, se, False, groups) == "worse":
                worse.append(m)
                break
    return worse


def _pm(d: float, se: float) -> str:
    """A difference with its s.e. (none with one group)."""
    return f"{d:+.4f}" + ("" if math.isnan(se) else f" ± {se:.4f}")


def _lower_by_point(cells: dict) -> str:
    """The sizes where SMS-UBU's accuracy is below a baseline's by point estimate (none by its t interval);
    ``cells``: size -> {baseline: (difference, s.e., groups)}."""
    lower = []
    for es, c in cells.items():
        below = [f"vs {LABELS[b]} {d:+.4f}" + (", one group" if math.isnan(se) else f" = {d / se:+.1f} s.e.")
                 for b, (d, se, _) in c.items() if d < 0]  # fmt: skip
        lower += [f"{es} ({'; '.join(below)})"] if below else []
    if not lower:
        return "; nowhere lower by point estimate"
    return f"; lower by point estimate at sizes {', '.join(lower)}, none of them by its t interval"


def _size_judgement(c: dict) -> str:
    """One size of the accuracy claim (``c``: baseline -> (difference, s.e., groups)): worse than some baseline by
    its t interval, better than every one by theirs, else not distinguishable (``_judge``)."""
    judged = [_judge(d, se, True, groups) for d, se, groups in c.values()]
    if "worse" in judged:
        return "worse"
    return "better" if all(j == "better" for j in judged) else "not distinguishable"


def _accuracy(diffs: dict, sizes, paper_runs: int = 0, bases: tuple = PAIRED):
    """The §5 accuracy claim ('small gains in accuracy over ensembles of the same size') from the paired
    differences SMS-UBU - baseline at each ensemble size, for each of ``bases`` (the paper's two, SWA and standard
    training; SWA alone until 2026-11-29); a size where a difference has one group (no s.e.) is not judged
    (``_accuracy_judged``: the tiers)."""
    cells = {es: {b: _diff(diffs, b, es, "accuracy") for b in bases} for es in sizes}
    ours = "; ".join(f"es={es}: " + ", ".join(f"vs {LABELS[b]} {_pm(d, se)}" for b, (d, se, _) in c.items())
                     for es, c in cells.items())  # fmt: skip
    missing = [LABELS[b] for b in bases if b not in diffs]
    if not cells or missing:
        return not_tested("scale", ours or "-", f"{' and '.join(missing) or 'baseline'} predictions missing")
    judged_cells = {es: c for es, c in cells.items() if not any(math.isnan(se) for _, se, _ in c.values())}
    if not judged_cells:
        return not_tested("scale", ours, "one group of runs at every size, so no standard error")
    return _accuracy_judged(cells, judged_cells, ours, paper_runs)


def _accuracy_judged(cells: dict, judged_cells: dict, ours: str, paper_runs: int):
    """The accuracy tiers over the sizes with more than one group (``judged_cells``: size -> {baseline: (difference,
    s.e., groups)}): lower than a baseline at a size by its t interval: not reproduced; higher than every baseline at
    every size: reproduced; higher than every baseline at some size by their intervals, or every judged difference
    above 0 by point estimate (agreement by sign): partly; else a null result (``_accuracy_null``)."""
    judged = [_size_judgement(c) for c in judged_cells.values()]
    n, against = len(judged), " and ".join(LABELS[b] for b in next(iter(judged_cells.values())))
    if "worse" in judged:  # name the baselines whose interval is below 0 (not every baseline)
        below = _below_by(judged_cells)
        named = " and ".join(f"{LABELS[b]} ({'s.e. 0' if z is None else f'{z:+.1f} s.e.'})" for b, z in below.items())
        zs = [z for z in below.values() if z is not None]
        return not_reproduced(ours, f"lower than {named} by a t interval below 0 at {judged.count('worse')} of {n} "
                              "sizes with more than one group", z=min(zs) if zs else None)  # fmt: skip
    if all(j == "better" for j in judged):
        return reproduced(ours)
    why = (
        f"higher than {against} (t intervals above 0) at {judged.count('better')} of {n} sizes with more than one group"
    )
    if "better" in judged or all(d > 0 for c in judged_cells.values() for d, _, _ in c.values()):
        return partly(ours, why + _lower_by_point(cells))
    return _accuracy_null(cells, judged_cells, ours, why, paper_runs)


def _below_by(judged_cells: dict) -> dict:
    """{baseline: the most negative difference / s.e. over the sizes where the accuracy is below it by a t interval}
    for each baseline below which some size lies; None for one whose only such size has s.e. 0 (no floor:
    ACCURACY_FLOOR), which has no size in s.e."""
    out = {}
    for b in next(iter(judged_cells.values())):
        worse = [(d, se) for c in judged_cells.values() for b2, (d, se, g) in c.items()
                 if b2 == b and _judge(d, se, True, g) == "worse"]  # fmt: skip
        if worse:
            out[b] = min((d / se for d, se in worse if se > 0), default=None)
    return out


def _accuracy_null(cells: dict, judged_cells: dict, ours: str, why: str, paper_runs: int):
    """None higher by its interval and some point estimate at or below 0 (a null result): not reproduced where every
    judged size has at least the groups the paper's ``paper_runs`` give there, else not tested (more groups)."""
    null = f"{why}: no gain told from 0, and not higher by sign everywhere{_lower_by_point(cells)}"
    groups = {es: min(g for _, _, g in c.values()) for es, c in judged_cells.items()}
    short = [f"{es} ({g} groups, the paper's {paper_runs // es})" for es, g in groups.items() if g < paper_runs // es]
    if paper_runs and not short:
        return not_reproduced(ours, f"{null}; with at least the groups the paper's {paper_runs} runs give at each size")
    return not_tested("scale", ours, f"{null}; fewer groups than the paper's {paper_runs or '?'} runs give at sizes "
                      f"{', '.join(short) or '?'}")  # fmt: skip


SCALE_ORDER = ("quick", "reduced", "large", "paper_schedule", "paper")


def schedule_of(text: str, scale: str | None = None) -> tuple | None:
    """(scale, dataset, network, training + SWA epochs, burn-in, draws per run) of a section's Settings text (or of
    ``_settings_text``), None where it names no shortened schedule (the paper scale's)."""
    import re

    sched = re.search(r"init\.train_epochs=(\d+) init\.swa_epochs=(\d+) burn_in=(\d+) samples=(\d+)", text)
    data, model = re.search(r"dataset `(\w+)`", text), re.search(r"model `(\w+)`", text)
    if sched is None or data is None or model is None:
        return None
    return (scale, data[1], model[1], *(int(x) for x in sched.groups()))


def _pool_of(text: str) -> str:
    """The training images a section's Settings text names (dataset.n_train=), else ''."""
    n = re.search(r"dataset\.n_train=(\d+)", text)
    return f"{int(n[1]):,}" if n else ""


def sghmc_evidence(folder: Path, own: tuple | None = None, own_text: str = ""):
    """(its tidy table, where it was made, its command, its §5 calibration verdicts, what its schedule shares with
    this section's) of the committed section in a sub-folder of ``folder`` that ran SG-HMC, or None: the one at this
    section's own schedule (``own``, ``schedule_of``: scale, data, network, epochs, burn-in, draws) where one is
    there, the most runs first; else the one of the largest scale (then the most runs). What the SG-HMC rows of a
    section that did not run it are judged on, named in their numbers and setting. Until 2026-11-30 (the
    thirty-fourth audit) always the largest scale's; ``own_text``: this section's Settings, whose training images
    the fifth element compares."""
    import pandas as pd

    found = []
    for csv in sorted(folder.glob("*/fig4.csv")):
        t = pd.read_csv(csv)
        text = (csv.parent / "section.md").read_text() if (csv.parent / "section.md").exists() else ""
        command = re.search(r"Command: `(bnnsample figure [^`]*)`", text)
        if "sg_hmc" not in set(t.method) or command is None:
            continue
        scale = re.search(r"scale=(\w+)", command.group(1))
        rank = SCALE_ORDER.index(scale.group(1)) if scale and scale.group(1) in SCALE_ORDER else -1
        runs = int(t[(t.method == "sg_hmc") & (t.ensemble_size == 1)]["groups"].max())
        model = re.search(r"model `(\w+)`", text)
        network = f", the {model.group(1)} network" if model else ""
        # its schedule, which differs from the paper's 15+5 training epochs and 30 draws per run
        sched = re.search(r"init\.train_epochs=(\d+) init\.swa_epochs=(\d+) burn_in=(\d+) samples=(\d+)", text)
        schedule = (f", {sched[1]}+{sched[2]} training epochs, {sched[3]} burn-in epochs, {sched[4]} draws per run "
                    f"(the paper's 15+5, 10, {PAPER_DRAWS})" if sched else "")  # fmt: skip
        same = own is not None and schedule_of(text, scale.group(1) if scale else None) == own
        found.append((same, rank, runs, t, f"`{command.group(1)}` ({folder.name}/{csv.parent.name}/, {runs} runs"
                      f"{network}{schedule})", command.group(1), calibration_verdicts(text),
                      _same_schedule_text(own, text, own_text, runs) if same else ""))  # fmt: skip
    if not found:
        return None
    return max(found, key=lambda f: f[:3])[3:]


def _same_schedule_text(own: tuple, text: str, own_text: str, runs: int) -> str:
    """What an evidence section at this section's schedule (``sghmc_evidence``) shares with it and where they
    differ (the training images, the runs)."""
    _, data, model, train, swa, burn, draws = own
    theirs, ours = _pool_of(text), _pool_of(own_text)
    pool = f"; {theirs} training images there, {ours} here" if theirs and ours and theirs != ours else ""
    held = ", the rest of its pool held out for temperature scaling" if pool and "held out" in own_text else ""
    return (f"the same scale and schedule as this section ({data}, {model}, {train}+{swa} training epochs, {burn} "
            f"burn-in epochs, {draws} draws per run, the same steps{pool}{held}), {runs} runs")  # fmt: skip


def calibration_verdicts(section: str) -> dict[int, str]:
    """{ensemble size: verdict} of the §5 calibration rows in a section's claims table (as that section wrote them)."""
    head = CLAIMS[("calibration", 1)].text.rsplit(" ", 1)[0]
    out = {}
    for line in section.splitlines():
        cells = line.strip().strip("|").split(" | ")
        if len(cells) > 5 and cells[0].strip().startswith(head):
            out[int(cells[0].rsplit(" ", 1)[1])] = cells[5].strip()
    return out


def _evidence_caveat(sghmc_from, u1: float, un: float) -> str:
    """What the SG-HMC ACE row's evidence from another section (``sghmc_evidence``) can show: where SMS-UBU's own
    ACE does not fall there (``u1`` -> ``un``) and that section's §5 calibration rows are not reproduced, the
    setting shows none of the gains with ensemble size the contrast needs."""
    verdicts = sghmc_from[3] if sghmc_from and len(sghmc_from) > 3 else {}
    failed = [str(es) for es, v in verdicts.items() if verdict_of(v) == "not reproduced"]
    if un < u1 or not failed:
        return ""
    return (f"the evidence is that short-schedule run, where SMS-UBU's own ACE rises too ({u1:.4f} -> {un:.4f}) and "
            f"its section's §5 calibration rows are not reproduced at sizes {', '.join(failed)} (its section.md): the "
            "setting shows none of the gains with ensemble size that the contrast needs, so SG-HMC is not told apart "
            "from SMS-UBU there: the partly rests on the literal claim (no decrease) alone")  # fmt: skip


def _ace_move(u1: float, us1: float, un: float, sizes) -> str:
    """What SMS-UBU's ACE does from the smallest to the largest ensemble size, in words from the numbers (until
    2026-11-30, the thirty-fifth audit, always 'falls'): falls beyond one std, rises, or does not fall beyond one std."""
    verb = ("falls" if un < u1 - (0.0 if math.isnan(us1) else us1) else "rises" if un > u1 else
            "does not fall beyond one std:")  # fmt: skip
    beyond = " (beyond one std)" if verb == "falls" else ""
    return f"{verb} {u1:.4f} (std {us1:.4f}) -> {un:.4f} (es={sizes[0]} -> {sizes[-1]}){beyond}"


@dataclass(frozen=True)
class DrawsEvidence:
    """A committed section of this figure at the paper's draws per run (``draws_evidence``): its claims.csv rows by
    claim text, where it is (folder, runs, schedule) and its command."""

    rows: dict
    where: str
    command: str


def draws_evidence(folder: Path, own: tuple | None) -> DrawsEvidence | None:
    """The committed section in a sub-folder of ``folder`` with a claims.csv whose schedule (``schedule_of``) takes
    the paper's draws per run (``PAPER_DRAWS``) on this section's data (``own``: scale, data, network, ...), the
    same network first, then the most runs; None where there is none: what a row that hinges on fewer draws is
    judged on (``at_paper_draws``)."""
    import pandas as pd

    found = []
    for csv in sorted(folder.glob("*/claims.csv")):
        text = (csv.parent / "section.md").read_text() if (csv.parent / "section.md").exists() else ""
        sched, command = schedule_of(text), re.search(r"Command: `(bnnsample figure [^`]*)`", text)
        runs = re.search(r"(\d+) independent runs", text)
        if sched is None or command is None or runs is None or sched[-1] < PAPER_DRAWS:
            continue
        if own is not None and sched[1] != own[1]:
            continue
        rows = {r["claim"]: r for r in pd.read_csv(csv).fillna("").to_dict("records")}
        where = (f"`{command[1]}` ({folder.name}/{csv.parent.name}/, {runs[1]} runs, the {sched[2]} network, "
                 f"{sched[3]}+{sched[4]} training epochs, {sched[5]} burn-in epochs, {sched[6]} draws per run)")  # fmt: skip
        found.append((own is not None and sched[2] == own[2], int(runs[1]), DrawsEvidence(rows, where, command[1])))
    return max(found, key=lambda f: f[:2])[2] if found else None


def _sghmc_elsewhere(m: dict, rule):
    """An SG-HMC rule on this section's table, or, where SG-HMC was not run, on the committed section of
    ``m["sghmc_from"]`` (``sghmc_evidence``), its place and setting in the numbers."""
    t, here = m["table"], m.get("sghmc_here") or _BASELINES_RUN
    if "sg_hmc" in set(t.method):
        return rule(t, m["sizes"])
    if not m.get("sghmc_from"):
        return replace(rule(t, m["sizes"]), why=here)
    other, where, command, _, same = (*m["sghmc_from"], "")[:5]
    o = rule(other, sorted(set(other.ensemble_size)))
    if same:  # the evidence is this section's own schedule: more runs than this section has, at the same settings
        runs = f"{m['runs']} runs" if m.get("runs") else "its runs"
        here = (f"{same}: the evidence is at this section's own schedule with more runs than this section's {runs}, "
                f"so adding SG-HMC here would test the claim on fewer groups than it already was; {here}")  # fmt: skip
    else:
        here = f"at this section's scale: {here}"
    if m.get("cpu"):
        here += f"; {SGHMC_CPU_HISTORY}"
    return replace(o, ours=f"SG-HMC not run here; at {where}: {o.ours}", why="; ".join(w for w in (o.why, here) if w),
                   setting=command)  # fmt: skip


def _sghmc_ace(t, sizes):
    if "sg_hmc" not in set(t.method) or len(sizes) < 2:
        return not_tested("scale", "not run", _BASELINES_RUN)
    a1, s1 = _value(t, "sg_hmc", sizes[0], "ace")
    an, _ = _value(t, "sg_hmc", sizes[-1], "ace")
    (u1, us1), un = _value(t, "sms_ubu", sizes[0], "ace"), _value(t, "sms_ubu", sizes[-1], "ace")[0]
    ours = f"SG-HMC ACE {a1:.4f} (es={sizes[0]}) -> {an:.4f} (es={sizes[-1]}); SMS-UBU {u1:.4f} -> {un:.4f}"
    if an < a1 - (0.0 if math.isnan(s1) else s1):
        return not_reproduced(ours, f"decreases by {a1 - an:.4f} (> one std {s1:.4f})")
    if un < u1 - (0.0 if math.isnan(us1) else us1):
        return reproduced(ours, "no decrease beyond one std over groups, while SMS-UBU's ACE decreases")
    return partly(ours, "SG-HMC's ACE does not decrease, but neither does SMS-UBU's here (the notebook's SG-UBU ACE "
                  "falls 0.0030 -> 0.0018), so the contrast is not shown")  # fmt: skip


def _se(t, method, es, metric) -> float:
    r = t[(t.method == method) & (t.ensemble_size == es) & (t.metric == metric)]
    return float(r["std"].iloc[0] / math.sqrt(r["groups"].iloc[0])) if len(r) and r["groups"].iloc[0] > 1 else 0.0


WHOLE_TARGET = ("sg_hmc", "cyclical_sghmc")  # §5: 'SG-HMC and cyclical SG-HMC ... aim to explore the whole target'


def _digits(a: float, b: float) -> int:
    """Decimals to print a gap ``a`` and its bar ``b`` with: at least 4, and 2 significant digits of the smaller
    nonzero magnitude (at most 6), more (at most 8) until the two differ when rounded, so the printed pair shows
    which is larger (the thirty-ninth audit: '+0.0010 against 0.0010' printed 0.00098 against 0.00105)."""
    small = min((abs(x) for x in (a, b) if x and math.isfinite(x)), default=0.0)
    d = 4 if not small else max(4, min(6, 1 - math.floor(math.log10(small))))
    while d < 8 and a != b and round(a, d) == round(b, d):
        d += 1
    return d


def _sghmc_worse(t, sizes):
    """§5's 'These [SG-HMC and cyclical SG-HMC] do not perform as well [as] the UBU-based methods': each of the two
    in the table ``t`` against the best UBU method per (metric, size) cell, worse where the gap exceeds twice the two
    means' combined s.e. (by sign in a cell of one group); ``by_count`` over the cells of every method run. Until
    2026-11-30 (the thirty-eighth audit) SG-HMC alone (``SGHMC_WORSE_HISTORY``), whose verdict the reason gives where
    it differs."""
    ubu = [u for u in LOCALIZED if u in set(t.method)]
    if "sg_hmc" not in set(t.method):
        return not_tested("scale", "not run", _BASELINES_RUN)
    cells = [(m, es) for m in ("nll", "ace") for es in sizes]
    run = [w for w in WHOLE_TARGET if w in set(t.method)]
    same = {}
    for w in run:
        same[w] = []
        for m, es in cells:
            best = min(ubu, key=lambda u: _value(t, u, es, m)[0])
            gap = _value(t, w, es, m)[0] - _value(t, best, es, m)[0]
            bar = 2 * math.hypot(_se(t, w, es, m), _se(t, best, es, m))
            if gap <= bar:
                same[w].append((m, es, gap, bar))
    counts = [f"{LABELS[w]} in {len(cells) - len(same[w])} of {len(cells)}" for w in run]
    ours = f"worse than the best UBU method in (metric, size) cells: {'; '.join(counts)}"
    why = [f"{LABELS[w]} not worse beyond the noise at: " + ", ".join(
               f"{m.upper()} es={es} ({gap:+.{_digits(gap, bar)}f} against {bar:.{_digits(gap, bar)}f})"
               for m, es, gap, bar in same[w])
           for w in run if same[w]]  # fmt: skip
    if "cyclical_sghmc" not in run:
        why.append("cyclical SG-HMC, also named by §5, was not run in the table judged: this verdict is SG-HMC's alone")
    bad = sum(len(v) for v in same.values())
    o = by_count(len(cells) * len(run) - bad, len(cells) * len(run), ours, "; ".join(why))
    old = by_count(len(cells) - len(same["sg_hmc"]), len(cells), ours).verdict
    if old != o.verdict:
        o = replace(o, why=f"{o.why}; judging SG-HMC alone (the rule until 2026-11-30, the thirty-eighth audit) gives "
                    f"{old}")  # fmt: skip
    return o


PAPER_DRAWS = 30  # draws per run in the paper (one per epoch after 10 burn-in epochs)


def setting_text(cfg, runs: int) -> str:
    """The setting a verdict was measured at, from a run's resolved config: network, training
    and sampling epochs, draws per run, runs; the arithmetic where it is not the default's."""
    kernels = "".join([f", model.precision={cfg.model.precision}" if cfg.model.get("precision", "auto") != "auto" else "",
                       ", deterministic=false" if not cfg.get("deterministic", True) else ""])  # fmt: skip
    return (f"{cfg.model.name}, {cfg.init.train_epochs}+{cfg.init.swa_epochs} training epochs, {cfg.burn_in} burn-in "
            f"{cfg.unit}s, {cfg.samples} draws per run, {runs} runs{kernels}")  # fmt: skip


def hinges_on_draws(by_draws, es: int, metric: str, higher_is_better: bool) -> str | None:
    """Why a verdict at ensemble size ``es`` hinges on the number of draws per run, or None:
    with fewer draws than the paper's 30, the gap to SWA in ``metric`` (``draws.csv``: each run's
    predictive over its last k draws) moves in SMS-UBU's favour from the fewest to all draws by
    more than the 95% t interval of the difference (the two s.e.s combined, groups - 1 degrees of
    freedom): more draws would move it further, so the run does not test the paper's setting."""
    if by_draws is None:
        return None
    r = by_draws[(by_draws.ensemble_size == es) & (by_draws.metric == metric)].sort_values("draws")
    if len(r) < 2 or int(r.draws.max()) >= PAPER_DRAWS or int(r.groups.iloc[0]) < 2:
        return None
    first, last = r.iloc[0], r.iloc[-1]
    gain = (last["diff"] - first["diff"]) * (1 if higher_is_better else -1)
    if gain > t_quantile(int(first.groups)) * math.hypot(first.se, last.se):
        return (f"{metric.upper()} minus SWA moves {first['diff']:+.4f} -> {last['diff']:+.4f} from {int(first.draws)} "
                f"to {int(last.draws)} draws per run (draws.csv), in SMS-UBU's favour; the paper takes {PAPER_DRAWS}")  # fmt: skip
    return None


def verdicts(t, diffs: dict, setting: str = "", by_draws=None, more: dict | None = None) -> list:
    """(Claim, Outcome) of each Fig. 4 claim (the rules of ``CLAIMS``): the calibration claim at each
    ensemble size (paired differences ``diffs`` from ``evaluate.ensembles.paired``), the accuracy claim, the
    SG-HMC claims from the tidy ensemble table ``t``, the temperature-scaled SWA baseline. Each row's
    numbers start with ``setting``; a "not reproduced" that ``hinges_on_draws`` (``by_draws``: draws.csv) is
    "not tested: scale". ``more``: ``more_runs`` (size -> what a second group of that size would cost) and
    ``holdout_text`` (the validation split)."""
    sizes = sorted(set(t.ensemble_size))
    if not set(sizes) <= set(ENSEMBLE_SIZES):
        raise ValueError(f"ensemble sizes {sizes}: the calibration claim has rows for {ENSEMBLE_SIZES} only")
    m = {"table": t, "diffs": diffs, "sizes": sizes, "by_draws": by_draws, **(more or {})}
    rows = CLAIMS.outcomes(m)
    if setting:
        rows = [(c, replace(o, ours=f"at {setting}: {o.ours}")) for c, o in rows]
    return rows


# a CPU test this 2-core machine takes (the thirty-fourth audit, 2026-11-30): up to about 10 CPU-hours; the project
# has recorded 14,395- and 30,348-CPU-s runs of this figure (results/costs.csv; the yardstick of commit de05c4a)
FITS_CPU_S = 36_000
QUEUED = "queued in scripts/cpu_queue.sh"


@dataclass(frozen=True)
class CpuSection:
    """A section made on this 2-core CPU: its command (``bnnsample figure ...``) and the CPU seconds its runs took
    (results/costs.csv), which price its larger tests (``_more``) and the queue job that makes them."""

    command: str
    cpu_s: float
    not_run_history: str = NOT_RUN_HISTORY  # what its 'not run' rows said before (``not_run_history``)

    def job(self, **options) -> str:
        """The section's command with ``options`` set, as a line of scripts/cpu_queue.sh (workers=2 at the scales
        made in parts, one process a part)."""
        words = dict(w.split("=", 1) for w in self.command.split()[3:])
        words.update({k: str(v) for k, v in options.items()})
        if SETTINGS.get(words.get("scale"), {}).get("part_runs") and "workers" not in words:
            words["workers"] = "2"
        return " ".join([FIG, *(f"{k}={v}" for k, v in words.items())])


def _more(runs: int, total: int, minutes: float | None, kept: tuple, cpu: CpuSection | None = None) -> str:
    """``runs=`` options and cost of a section of ``runs`` runs grown to ``total``, by what of the runs made is kept
    (``kept_runs``): ("runs",) their runs/ folder (``runs=`` reuses it), ("pool", next part) the section's
    runs.csv and parts.json (new parts pooled by ``with_groups=``), ("none",) nothing (``total`` runs from
    scratch); the minutes from the measured ``minutes`` of the ``runs`` made, or for a section made on this CPU
    (``cpu``) the CPU seconds from its recorded ones, and where they fit this machine (``FITS_CPU_S``) the job
    queued in scripts/cpu_queue.sh (``QUEUED``; the row is then 'not tested: not run')."""
    extra = total - runs
    options = ({"runs": total} if kept[0] != "pool" else
               {"runs": extra, "first_part": kept[1], "with_groups": f"results/{FIG}"})  # fmt: skip

    def cost(n: int) -> str:
        if cpu:
            fits = (f"; {QUEUED} as `{cpu.job(**options)}`" if cpu.cpu_s * n / runs <= FITS_CPU_S else
                    f", beyond what this 2-core CPU takes (about {FITS_CPU_S:,} CPU-s)")  # fmt: skip
            return (f", about {cpu.cpu_s * n / runs:,.0f} CPU-s ({cpu.cpu_s * n / runs / 3600:.1f} CPU-hours) where "
                    f"the {runs} made took {cpu.cpu_s:,.0f} (results/costs.csv)){fits}")  # fmt: skip
        return (f", about {minutes * n / runs:.0f} min where the {runs} made took {minutes:.1f}, wall time on the device "
                f"that made them (results/costs.csv))" if minutes else ")")  # fmt: skip

    if kept[0] == "runs":
        return f"runs={total} ({extra} more runs, the {runs} made reused from this section's runs/ folder{cost(extra)}"
    if kept[0] == "pool":
        return (f"runs={extra} first_part={kept[1]} with_groups=results/{FIG} ({extra} more runs, pooled with this "
                f"section's runs.csv and parts.json{cost(extra)}")  # fmt: skip
    return (f"runs={total} from scratch ({total} runs: the {runs} made are not kept, neither their runs/ folder nor a "
            f"runs.csv and parts.json to pool with{cost(total)}")  # fmt: skip


def kept_runs(folder: Path, runs: int) -> tuple:
    """What of a section's runs a larger test can reuse (``_more``): its runs/ folder (git-ignored, kept only on the
    machine that made them), else its runs.csv and parts.json when its runs were made in parts (``pool_groups``,
    the next part's number), else nothing (the committed paper-scale section of 2026-11-26 predates both files)."""
    import json

    if (folder / "runs").is_dir():
        return ("runs",)
    try:
        meta = json.loads((folder / "parts.json").read_text())
    except (OSError, ValueError):
        return ("none",)
    if (folder / "runs.csv").exists() and int(meta["part_runs"]) < runs:
        return ("pool", max(meta["parts"]) + 1)
    return ("none",)


def more_runs_text(runs: int, sizes, minutes: float | None, kept: tuple = ("runs",), cpu: CpuSection | None = None
                   ) -> dict:  # fmt: skip
    """{size: what a second group at that size costs} for the sizes with one group: the runs to add (``_more``:
    reusing what ``kept`` says is kept, else from scratch) and, from the measured ``minutes`` of the ``runs``
    made (or the CPU seconds of a section made on this CPU, ``cpu``), about how long they take."""
    return {es: f"a test needs a second group: {_more(runs, 2 * es, minutes, kept, cpu)}" for es in sizes
            if runs // es == 1}  # fmt: skip


def paper_runs_text(runs: int, sizes, minutes: float | None, kept: tuple = ("runs",), cpu: CpuSection | None = None
                    ) -> str:  # fmt: skip
    """What the paper's 64 runs would add to a section of ``runs`` (``_more``): the groups they give at each size
    beyond one, and about how long they take from the measured ``minutes`` (or ``cpu``'s CPU seconds)."""
    if runs >= PAPER_RUNS:
        return ""
    groups = ", ".join(f"{PAPER_RUNS // es} at size {es}" for es in sizes if es > 1 and PAPER_RUNS // es > 1)
    return f"the paper's {PAPER_RUNS} runs give more groups ({groups}): {_more(runs, PAPER_RUNS, minutes, kept, cpu)}"


def baseline_comparison(t) -> list[str]:
    """Our SG-UBU, SG-UBU w/o replacement and SG-HMC beside the authors' notebook numbers."""
    present = [m for m in PAPER_NUMBERS if m in set(t.method)]
    if not present:
        return []
    rows = [[LABELS[m], es, *(f"{_value(t, m, es, k)[0]:.4f} / {v}" for k, v in
                               (("accuracy", acc), ("nll", nll_), ("ace", ace_), ("rps", rps_)))]
            for m in present for es, (acc, ace_, nll_, rps_) in PAPER_NUMBERS[m].items() if es in set(t.ensemble_size)]  # fmt: skip
    return ["", "Our baselines beside the authors' notebooks (theirs: the 1.27M-parameter CNN on all 60,000 images, "
            "64 runs, the full schedule; ours: this table's setting):", "",
            *md_table(["method", "es", *(f"{k} ours / theirs" for k in ("accuracy", "NLL", "ACE", "RPS"))], rows)]  # fmt: skip


def _value(t, method, es, metric):
    r = t[(t.method == method) & (t.ensemble_size == es) & (t.metric == metric)]
    return (float(r["mean"].iloc[0]), float(r["std"].iloc[0])) if len(r) else (float("nan"), float("nan"))


SCALE_TEXT = {
    "quick": "Quick scale: the offline MNIST 5k subset stands in for Fashion-MNIST (not on this machine), the narrow "
             "cnn_small for the 1.27M-parameter CNN, and ensembles go up to the number of runs.",
    "reduced": "Reduced scale: the narrow cnn_small for the 1.27M-parameter CNN, a 10,000-image training subset of "
               "Fashion-MNIST (all of another dataset), shorter schedules, ensembles up to the number of runs.",
    "large": "Large scale: all 60,000 Fashion-MNIST training images and the paper's step sizes, the narrow cnn_small "
             "for the 1.27M-parameter CNN, shorter schedules, ensembles up to the number of runs.",
    "paper_schedule": "The paper's schedule and data (all 60,000 Fashion-MNIST training images, 15 Adam + 5 SWA "
                      "epochs, 10 burn-in epochs, 30 draws one per epoch, the paper's steps, BatchNorm statistics from "
                      "10,000 training images as in the authors' notebook) with the narrow cnn_small (73,386 "
                      "parameters) for the 1.27M-parameter CNN, and fewer runs than the paper's 64; runs made in "
                      "parts of {part_runs} (seed = part), pooled in part order.",
    "paper": "The paper's protocol (the 1.27M-parameter cnn_fmnist on all 60,000 Fashion-MNIST training images, 15 "
             "Adam + 5 SWA epochs, 10 burn-in epochs, 30 draws one per epoch, the paper's steps, BatchNorm "
             "statistics from 10,000 training images as in the authors' notebook), the paper's 64 runs unless runs= "
             "asks for fewer; runs made in parts of {part_runs} (seed = part), trained and sampled together, pooled "
             "in part order.",
}  # fmt: skip


def _settings_text(s: dict, scale: str) -> str:
    return (f"dataset `{s['dataset']}`, model `{s.get('model') or 'the dataset default'}`, {s['chains']} independent "
            f"runs, {' '.join(s['overrides']) or 'the paper schedule'}; batch 200, lambda_prior 1, lambda_loc 50 (UBU "
            "methods; 0 for SG-HMC and cyclical SG-HMC), gamma sqrt(50), bounces at 6/sqrt(50), control variates at "
            "x_SWA, BatchNorm calibrated on one batch of the first n_calibration training images (the paper's text: 20 "
            "batches of 200, 4,000 images; the authors' Fashion-MNIST notebook: 50 batches, 10,000 images). All "
            "samplers start from the same SWA points. " + SCALE_TEXT[scale].format(part_runs=s.get("part_runs"))
            + (f" SWA with temperature scaling (a baseline beyond the paper): {s['n_val']} images ({s['holdout']:.0%} "
               f"of the training pool) held out as a validation split, every method trained on the other "
               f"{s['n_train']}." if "holdout" in s else ""))  # fmt: skip


def _notes(t, s, methods, sizes, times, why) -> str:
    took = "(not recorded)" if times is None else f"{times[0] / 60:.1f} min wall, {times[1] / 60:.1f} min CPU"
    lines = [f"Finished runs under `runs/` are reused, not redone; the runs took {took}"
             + (" (one thread per process; wall and CPU summed over the parts, which workers=N runs in parallel; wall "
                "time grows on a shared machine)." if s.get("part_runs") else " (one thread; wall time grows on a "
                "shared machine)."),
             "", "Ours (mean ± std over the disjoint groups; std blank with one group):", ""]  # fmt: skip

    def cell(m: str, es, metric: str) -> str:
        mu, sd = _value(t, m, es, metric)
        return f"{mu:.4f}" + ("" if math.isnan(sd) else f" ± {sd:.4f}")

    lines += md_table(["method", "es", "accuracy", "NLL", "ACE", "RPS"],
                      [[LABELS[m], es, *(cell(m, es, k) for k in METRICS)] for m in ["standard", "swa", *(["swa_ts"] if "swa_ts" in set(t.method) else []), *methods]
                       for es in sizes])  # fmt: skip
    paper = (
        "Paper (authors' Fashion-MNIST notebooks in github.com/paulindani/SMS_Kinetic_Langevin, 64 runs; the SMS-UBU, SWA and "
        "standard-training curves have no saved numbers):"
    )
    lines += ["", paper, "", *md_table(["method", "es", "accuracy", "ACE", "NLL", "RPS"],
                                       [[LABELS[m], es, *values] for m, by_es in PAPER_NUMBERS.items()
                                        for es, values in by_es.items()])]  # fmt: skip
    return "\n".join([*lines, *why])


def _start(inv: Invocation) -> list[Path] | None:
    """The one hook of a recipe that starts workers and shares runs: the grid of runs (those of another
    burn-in share the SWA points of the base runs); a worker (part=) makes its parts and ends there, with
    no tables; otherwise the estimate, then workers=N processes for the parts, then the rows take the
    grid (``inv.started``)."""
    s, methods = _settings(inv)
    # parts live under one root whatever the number of runs, so that runs=32 reuses the
    # parts of runs=16
    base_root = inv.dir / "runs" / (f"{inv.scale}_{s['dataset']}" if s.get("part_runs") else
                                    f"{inv.scale}_{s['dataset']}_{s['chains']}")  # fmt: skip
    if "holdout" in s:  # other training images: other runs
        base_root = base_root.with_name(f"{base_root.name}_holdout{s['holdout']:g}")
    base_root = base_root.with_name(base_root.name + kernels_suffix(s))
    run_root, swa_from = base_root, None
    if "burn_in" in s:
        run_root = base_root.with_name(f"{base_root.name}_burnin{s['burn_in']}")
        base = method_grid(base_root, s, ["sms_ubu"])
        swa_from = base if base.complete() else None
    grid = method_grid(run_root, s, methods, swa_from)
    if s["only_parts"] is not None:  # a worker: its parts only, no tables
        grid.run(inv.cells, parts=s["only_parts"])
        return []
    print_estimate(grid, s)
    if s["workers"] > 1:
        run_workers(inv.out_dir, inv.options, s, grid)
    inv.started = (s, methods, grid)
    return None


def _measure(inv: Invocation, bar) -> dict:
    """The runs of every method (made, or read back), the methods table, the diagnostics' CSVs and the
    verdicts' inputs."""
    import pandas as pd
    from omegaconf import OmegaConf

    from ...evaluate.ensembles import (
        SIZES,
        ensemble_metrics,
        methods_table,
        paired_differences,
        predictives_and_kinetic,
        summarise_groups,
    )

    s, methods, grid = inv.started
    sizes = [es for es in SIZES if es <= s["chains"]]
    paths = grid.run(inv.cells)
    table = methods_table(paths, sizes, baselines_from="sms_ubu")
    times = grid.times()
    if times is not None:  # the ledger holds what the runs took, not this (perhaps reusing) invocation
        inv.keep_cost(times[0], times[1], {k: v for k, v in inv.options.items() if k not in ("part", "time_limit")})
    measured, diffs, by_draws = diagnose(paths, sizes, inv.dir)
    preds, y, _ = predictives_and_kinetic(paths, baselines_from="sms_ubu")
    minutes = times[0] / 60 if times else None
    kept = ("pool", _part_numbers(s)[-1] + 1) if s.get("part_runs") else ("runs",)  # runs.csv, parts.json below
    command = " ".join(["bnnsample figure", FIG, f"scale={inv.scale}",
                        *(f"{k}={v}" for k, v in inv.options.items() if k not in ("scale", "part", "time_limit"))])  # fmt: skip
    cpu = CpuSection(command, times[1]) if times and _on_cpu(inv.scale, s.get("device")) else None
    own = _settings_text(s, inv.scale)
    more = {"more_runs": more_runs_text(s["chains"], sizes, minutes, kept, cpu),
            "paper_runs": paper_runs_text(s["chains"], sizes, minutes, kept, cpu),
            "sghmc_from": None if "sg_hmc" in methods else sghmc_evidence(inv.dir, schedule_of(own, inv.scale), own),
            "draws_from": draws_evidence(inv.dir, schedule_of(own, inv.scale)),
            "draws_cpu_s": _paper_schedule_cpu_s(inv.out_dir / "costs.csv"),
            "runs": s["chains"], "cpu": cpu is not None, "n_test": len(y),
            "sghmc_here": sghmc_here_text(command, s["chains"], cpu.cpu_s, kept) if cpu else None}  # fmt: skip
    if "holdout" in s:
        ts, temps = swa_ts_predictives([p.parent for p in paths["sms_ubu"]], preds["swa"], s["n_val"])
        preds["swa_ts"] = ts
        write_frame(pd.DataFrame(temps), inv.dir / "temperature_scaling.csv", index=False)
        table = pd.concat([table, ensemble_metrics(ts, y, sizes, "swa_ts")], ignore_index=True)
        diffs["swa_ts"] = paired_differences(preds["sms_ubu"], ts, y, sizes)
        more["holdout_text"] = holdout_text(s, temps)
        measured = [*measured, *temperature_table(temps)]
    cfg = OmegaConf.load(paths["sms_ubu"][0].parent / "config.yaml")
    values = group_values_of(preds, y, sizes)
    runs = s["chains"]
    if s.get("with_groups"):  # earlier sections' groups of other parts: the table and the paired s.e. over all
        values, runs = pool_groups(values, s, s["with_groups"], setting_text(cfg, 0))
        table, diffs = summarise_groups(values), {b: recompute_paired(values, "sms_ubu", b) for b in diffs}
        more["pooled"] = (f"The table and the paired differences pool this invocation's groups with those of "
                          f"{', '.join(map(str, s['with_groups']))} (runs.csv's `runs` names each group's parts); "
                          "the diagnostics below are this invocation's runs only.")  # fmt: skip
    write_frame(values, inv.dir / "runs.csv", index=False)
    write_frame(paired_frame(diffs), inv.dir / "paired.csv", index=False)
    write_parts(s, setting_text(cfg, 0), inv.dir)
    measured = [*paired_table(diffs, sizes), *measured]
    if "pooled" in more:
        measured = ["", more["pooled"], *measured]
    setting = with_data(setting_text(cfg, runs), s["dataset"], len(y))  # not in parts.json's protocol (pooling)
    return {"s": s, "methods": methods, "sizes": sizes, "table": table, "times": times, "measured": measured,
            "diffs": diffs, "by_draws": by_draws, "setting": setting, "more": more, "runs": runs}  # fmt: skip


def _paper_schedule_cpu_s(ledger: Path) -> float | None:
    """The CPU seconds of ``bnnsample figure paulin2025-fig4 scale=paper_schedule`` in the cost ledger, or None."""
    from ...figures.costs import command_key, ledger_rows

    key = command_key(f"bnnsample figure {FIG} scale=paper_schedule")
    rows = [r for r in ledger_rows(ledger) if (r["figure"], r["scale"], r["options"]) == key and r["cpu_s"]]
    return float(rows[0]["cpu_s"]) if rows else None


def group_values_of(preds: dict, y, sizes):
    """runs.csv's rows: each disjoint group's metric (``evaluate.ensembles.group_values``; at size 1
    a group is one run) for every per-run predictive of ``preds`` (standard training, SWA, each
    sampler, SWA with temperature scaling): the values behind fig4.csv's means and stds and the
    paired differences' s.e. (``recompute_paired``)."""
    import pandas as pd

    from ...evaluate.ensembles import group_values

    return pd.concat([group_values(p, y, sizes, name) for name, p in preds.items()], ignore_index=True)


def _part_numbers(s: dict) -> list[int]:
    first = s.get("first_part", 0)
    return list(range(first, first + n_parts(s)))


def write_parts(s: dict, protocol: str, fig_dir: Path) -> Path:
    """parts.json: the parts (numbers = seeds) and runs per part behind this section's own groups, and
    the protocol they were made at: what ``pool_groups`` checks before a later invocation pools them."""
    import json

    from ...rundir import write_file

    data = {"parts": _part_numbers(s), "part_runs": s.get("part_runs") or s["chains"], "protocol": protocol}
    return write_file(fig_dir / "parts.json", json.dumps(data, indent=1) + "\n")


def pool_groups(values, s: dict, dirs: list[Path], protocol: str):
    """(this invocation's group values ``values`` with those of the sections in ``dirs``, the runs
    behind them): another section's groups join when its parts.json names the same protocol and parts
    (seeds) that no other pooled section has, so that every group is of independent runs; each
    section's groups are numbered after those before them, per ensemble size, and runs.csv's ``runs``
    names the parts. ValueError (naming the folder and what differs) otherwise."""
    import json

    import pandas as pd

    def named(v, parts):
        return v.assign(runs=f"parts {parts[0]}-{parts[-1]}: " + v["runs"].astype(str))

    own = _part_numbers(s)
    seen, runs = set(own), s["chains"]
    pooled = named(values, own)
    for d in dirs:
        try:
            meta = json.loads((d / "parts.json").read_text())
            other = pd.read_csv(d / "runs.csv")
        except (OSError, ValueError) as e:
            raise ValueError(f"with_groups={d}: no readable parts.json and runs.csv there ({type(e).__name__}); "
                             "allowed: folders of paulin2025-fig4 sections that wrote both") from None  # fmt: skip
        if meta["protocol"] != protocol:
            raise ValueError(f"with_groups={d}: its runs were made at {meta['protocol']}; these at {protocol}")
        if seen & set(meta["parts"]):
            raise ValueError(f"with_groups={d}: parts {sorted(seen & set(meta['parts']))} are pooled already (the "
                             "same seeds); allowed: sections of other parts (first_part=)")  # fmt: skip
        seen |= set(meta["parts"])
        runs += len(meta["parts"]) * int(meta["part_runs"])
        start = pooled.groupby("ensemble_size")["group"].max() + 1
        other["group"] = other["group"] + other["ensemble_size"].map(start).fillna(0).astype(int)
        pooled = pd.concat([pooled, named(other, meta["parts"])], ignore_index=True)
    return pooled, runs


def paired_frame(diffs: dict):
    """paired.csv: every paired difference SMS-UBU - baseline of the section ({baseline: its ``paired``
    frame}: each metric, ensemble size and baseline, the mean over the disjoint groups, its s.e. over them and
    the groups), beside draws.csv's SMS-UBU - SWA by draws: what a later re-judging reads at full precision
    (``verdicts_from_files``)."""
    import pandas as pd

    cols = ["baseline", "ensemble_size", "metric", "diff", "se", "groups"]
    return pd.concat([d.assign(baseline=b)[cols] for b, d in diffs.items()], ignore_index=True)


def read_paired(path: Path) -> dict:
    """{baseline: its paired differences} of a paired.csv (``paired_frame``)."""
    import pandas as pd

    t = pd.read_csv(path)
    return {b: g.drop(columns="baseline").reset_index(drop=True) for b, g in t.groupby("baseline", sort=False)}


def recompute_paired(runs, method: str, base: str):
    """The paired differences ``method`` - ``base`` (ensemble_size, metric, diff, se, groups) from
    runs.csv's group values (a DataFrame): what the section's paired table shows, recomputed."""
    import pandas as pd

    key = ["ensemble_size", "group", "metric"]
    a = runs[runs.method == method].set_index(key)["value"]
    b = runs[runs.method == base].set_index(key)["value"]
    d = (a - b).dropna().reset_index(name="diff")
    rows = []
    for (es, metric), g in d.groupby(["ensemble_size", "metric"], sort=False):
        n = len(g)
        rows.append({"ensemble_size": int(es), "metric": metric, "diff": float(g["diff"].mean()),
                     "se": float(g["diff"].std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan, "groups": n})  # fmt: skip
    return pd.DataFrame(rows)


def holdout_text(s: dict, temps: list[dict]) -> str:
    """The validation split and the fitted temperatures, in words."""
    t = [r["temperature"] for r in temps]
    return (f"{s['n_val']} images ({s['holdout']:.0%} of a pool of {s['n_train'] + s['n_val']}) held out from "
            f"training, every method trained on the other {s['n_train']}; fitted T {min(t):.2f}-{max(t):.2f} "
            f"(mean {sum(t) / len(t):.2f}) over {len(t)} runs")  # fmt: skip


def temperature_table(temps: list[dict]) -> list[str]:
    """Markdown of temperature_scaling.csv: each run's T and its validation NLL before and after."""
    return ["", "SWA with temperature scaling (`temperature_scaling.csv`): each run's T minimises the NLL of its SWA "
            "network on the held-out validation split:", "",
            *md_table(["run", "T", "validation NLL", "at T"],
                      [[r["run"], f"{r['temperature']:.3f}", f"{r['val_nll']:.4f}", f"{r['val_nll_tempered']:.4f}"]
                       for r in temps])]  # fmt: skip


def _write_table(m: dict, inv: Invocation, path: Path) -> list[Path]:
    """fig4.csv (the methods table as pandas writes it) and its plot."""
    from ...evaluate.ensembles import plot_ensembles

    s, table = m["s"], m["table"]
    csv = inv.dir / "fig4.csv"
    write_frame(table, csv, index=False)
    png = plot_ensembles(table.assign(method=table.method.map(LABELS)), path,
                         title=f"{s['dataset']}, {m.get('runs', s['chains'])} runs ({inv.scale})")  # fmt: skip
    return [csv, png]


FIGURE = register_figure(Figure(
    FIG, TITLE, "calibration vs ensemble size: SMS-UBU vs SWA vs standard training vs SG-UBU/SG-HMC baselines",
    SETTINGS, rows=_measure, start=_start, tables=lambda m: {}, plot=_write_table, png="fig4.png",
    files=lambda m, inv, written: [*written, *(inv.dir / f"{n}.csv" for n in ("runs", "paired", "calibration",
                                                                              "reliability", "excess_loss", "draws")),
                                   inv.dir / "parts.json"]
    + ([inv.dir / "temperature_scaling.csv"] if "holdout" in m["s"] else []),
    outcomes=lambda m, inv: verdicts(m["table"], m["diffs"], m["setting"], m["by_draws"], m["more"]),
    settings=lambda m, inv: _settings_text(m["s"], inv.scale),
    notes=lambda m, inv: _notes(m["table"], m["s"], m["methods"], m["sizes"], m["times"],
                                baseline_comparison(m["table"]) + m["measured"]),
    options=OPTIONS, heading="claim (paulin2025)"))  # fmt: skip


def paired_from_section(section: str, groups: dict[int, int]) -> dict:
    """The paired differences {baseline: (ensemble_size, metric, diff, se, groups)} of a section's
    paired table ("SMS-UBU minus the baseline", 4 decimals), ``groups`` the groups per size: the
    verdicts' inputs of a section whose runs.csv was not kept."""
    import pandas as pd

    by_label = {v: k for k, v in LABELS.items()}
    rows: dict[str, list] = {}
    for line in section.split("SMS-UBU minus the baseline, paired", 1)[1].split("\n\n", 2)[1].splitlines()[2:]:
        es, label, *cells = (c.strip() for c in line.strip("|").split("|"))
        for metric, cell in zip(METRICS, cells):
            num = cell.split(" (")[0].split(" ± ")
            diff = float(num[0]) or math.copysign(1e-9, float(num[0]))  # -0.0000: below the shown digits, its sign kept
            rows.setdefault(by_label[label], []).append({
                "ensemble_size": int(es), "metric": metric, "diff": diff,
                "se": float(num[1]) if len(num) > 1 else math.nan, "groups": groups[int(es)],
                "judged": cell.split(" (", 1)[1][:-1] if " (" in cell else ""})  # fmt: skip
    return {b: pd.DataFrame(r) for b, r in rows.items()}


def draws_from_section(section: str, groups: dict[int, int]):
    """draws.csv's rows (ensemble_size, metric, diff, se, groups, draws) from a section's draws table
    (``draws_table``, 4 decimals; no s.e. with one group), ``groups`` the groups per size: the draws tier's input
    (``hinges_on_draws``) for a section whose draws.csv was not committed (results/paulin2025-fig4/precision_cpu);
    None without the table."""
    import pandas as pd

    if DRAWS_HEADING not in section:
        return None
    rows = []
    for line in section.split(DRAWS_HEADING, 1)[1].split("\n\n", 2)[1].splitlines()[2:]:
        k, es, *cells = (c.strip() for c in line.strip("|").split("|"))
        for metric, cell in zip(("accuracy", "nll", "ace"), cells):
            num = cell.split(" ± ")
            rows.append({"ensemble_size": int(es), "metric": metric, "diff": float(num[0]),
                         "se": float(num[1]) if len(num) > 1 else math.nan, "groups": groups[int(es)],
                         "draws": int(k)})  # fmt: skip
    return pd.DataFrame(rows)


def _on_cpu(scale: str, device: str | None) -> bool:
    """Whether a section's runs are made on this 2-core CPU: every scale but the paper's (meant for a GPU), unless
    device=cuda."""
    return scale != "paper" and device != "cuda"


def verdicts_from_files(folder: Path, section: str, runs: int, minutes: float | None, cpu: CpuSection | None = None,
                        evidence: Path | None = None, draws_cpu_s: float | None = None) -> list:  # fmt: skip
    """The verdicts of a committed section from its files: fig4.csv and paired.csv (every paired difference at
    full precision) where the section wrote one; for a section made before paired.csv (the paper-scale section
    of 2026-11-26, whose per-group values were not kept), the differences are fig4.csv's differences of means
    (the same groups: the paired mean), the s.e. of SMS-UBU - SWA in accuracy, NLL and ACE draws.csv's (its rows
    with all draws), and the other s.e. the section's paired table's (``paired_from_section``, 4 decimals), which
    each row that prints one names with the bounds fig4.csv implies (``_se_bounds_note``); a section with runs.csv
    (its group values) but no paired.csv has its paired differences recomputed from runs.csv, and one without
    draws.csv its draws table read (``draws_from_section``). The accuracy s.e.'s floor takes the test images of the
    section's data set (``n_test_of``), and the setting names a data set that stands in for Fashion-MNIST
    (``with_data``). ``runs`` and
    ``minutes`` (what they took) for the cost of a second group, or for a section made on this CPU ``cpu`` (its
    command and CPU seconds); ``evidence``: the folder whose sub-folders hold the SG-HMC evidence (``sghmc_evidence``;
    ``folder`` itself for the main section) and the 30-draw section (``draws_evidence``); ``draws_cpu_s``: the CPU
    seconds of scale=paper_schedule (results/costs.csv), which price a 30-draw test where no such section is."""
    import pandas as pd

    t = pd.read_csv(folder / "fig4.csv")
    sizes = sorted(set(t.ensemble_size))
    groups = {es: int(t[t.ensemble_size == es]["groups"].iloc[0]) for es in sizes}
    by_draws = (
        pd.read_csv(folder / "draws.csv") if (folder / "draws.csv").exists() else draws_from_section(section, groups)
    )
    if (folder / "paired.csv").exists():
        diffs, unkept = read_paired(folder / "paired.csv"), set()
    elif (folder / "runs.csv").exists():
        values = pd.read_csv(folder / "runs.csv")
        diffs = {b: recompute_paired(values, "sms_ubu", b) for b in (*PAIRED, "swa_ts") if b in set(values.method)}
        unkept = set()
    else:
        diffs, unkept = _diffs_without_paired_csv(t, section, groups, by_draws)
    kept = kept_runs(folder, runs)
    own = section.split("Settings: ", 1)[1].split("\n", 1)[0] if "Settings: " in section else ""
    dataset = re.search(r"dataset `(\w+)`", own)
    setting = section.split("| at ", 1)[1].split(": ", 1)[0]
    setting = with_data(setting, dataset[1], n_test_of(own)) if dataset else setting
    scale = re.search(r"scale=(\w+)", section)
    more = {
        "n_test": n_test_of(own),
        "more_runs": more_runs_text(runs, sizes, minutes, kept, cpu),
        "paper_runs": paper_runs_text(runs, sizes, minutes, kept, cpu),
        "sghmc_from": sghmc_evidence(evidence or folder, schedule_of(own, scale[1] if scale else None), own),
        "draws_from": draws_evidence(evidence or folder, schedule_of(own, scale[1] if scale else None)),
    }
    if cpu:
        more.update(runs=runs, cpu=True, sghmc_here=sghmc_here_text(cpu.command, runs, cpu.cpu_s, kept),
                    draws_cpu_s=draws_cpu_s, not_run_history=cpu.not_run_history)  # fmt: skip
    if (folder / "temperature_scaling.csv").exists():
        more["holdout_text"] = _holdout_from_files(folder, own)
    rows = verdicts(t, diffs, setting, by_draws, more)
    if not unkept:
        return rows
    cells = _unkept_cells(rows, unkept, groups)
    return [(c, _se_bounds_note(c, o, i, cells.get(i, []), t, diffs, (setting, by_draws, more)))
            for i, (c, o) in enumerate(rows)]  # fmt: skip


def _diffs_without_paired_csv(t, section: str, groups: dict, by_draws) -> tuple[dict, set]:
    """({baseline: paired differences}, the (baseline, metric) whose s.e. only the section's paired table holds)
    for a section without paired.csv: the means from fig4.csv (SMS-UBU's mean over the groups minus the
    baseline's, the paired mean over the same groups), the s.e. from draws.csv where it has the cell, else from
    the section's table."""
    diffs = paired_from_section(section, groups)
    means = t.set_index(["method", "ensemble_size", "metric"])["mean"]
    unkept = set()
    for base, d in diffs.items():
        d["diff"] = [float(means["sms_ubu", es, m] - means[base, es, m]) for es, m in zip(d.ensemble_size, d.metric)]
        unkept |= {(base, m) for m in set(d.metric)}
    if by_draws is not None and "swa" in diffs:
        full = by_draws[by_draws.draws == by_draws.draws.max()].set_index(["ensemble_size", "metric"])
        swa = diffs["swa"].set_index(["ensemble_size", "metric"])
        swa.update(full[["se"]].assign(judged=""))
        diffs["swa"] = swa.reset_index()
        unkept -= {("swa", m) for m in set(full.reset_index().metric)}
    for d in diffs.values():
        d["se"] = [_se_as_judged(*r) for r in zip(d["diff"], d["se"], d["groups"], d["metric"], d["judged"])]
    return {b: d.drop(columns="judged") for b, d in diffs.items()}, unkept


def _se_as_judged(diff: float, se: float, groups: int, metric: str, judged: str) -> float:
    """An s.e. read from a section's paired table (4 decimals) made to agree with the judgement the section printed
    beside it (``_judge`` at full precision): the middle of the s.e. within its rounding (+-0.00005) that gives that
    judgement with the full-precision difference ``diff``, where the rounded value gives another (the thirty-fourth
    audit, 2026-11-30: paper_schedule_cnn_small's RPS vs standard training at size 4, -0.000315 with '0.0001
    (better)', where 0.0001 itself is not better); the value itself elsewhere."""
    if not judged or math.isnan(se) or groups < 2 or _judge(diff, se, metric == "accuracy", groups) == judged:
        return se
    edge = abs(diff) / t_quantile(groups)  # below it: better or worse by the sign; above: not distinguishable
    lo, hi = max(se - 5e-5, 0.0), se + 5e-5
    lo, hi = (lo, min(hi, edge)) if judged in ("better", "worse") else (max(lo, edge), hi)
    return (lo + hi) / 2 if lo < hi else se


def _holdout_from_files(folder: Path, settings: str) -> str:
    """``holdout_text`` of a committed section: its validation split from its Settings text (``_settings_text``'s
    words), its fitted temperatures from temperature_scaling.csv."""
    import pandas as pd

    split = re.search(r"(\d+) images \((\d+)% of the training pool\) held out .* on the other (\d+)\.", settings)
    temps = pd.read_csv(folder / "temperature_scaling.csv").to_dict("records")
    s = {"n_val": int(split[1]), "holdout": int(split[2]) / 100, "n_train": int(split[3])}
    return holdout_text(s, temps)


def rejudge_side_section(folder: Path, results: Path) -> None:
    """Write a committed side section of this figure (a sub-folder of results/paulin2025-fig4 with its section.md,
    made on this CPU: cpu_ts, paper_schedule_cnn_small, precision_cpu/float32 and precision_cpu/bf16) again from its files by the rules as they are now
    (``verdicts_from_files``, its SG-HMC evidence from the sibling sub-folders), without a rerun (its runs were not
    kept): its claims.csv and the claims table of its section.md, the rest of the section kept as the run wrote it.
    Its CPU seconds are results/costs.csv's row of its command (scale and options)."""
    from ...figures.claims import table
    from ...figures.common import write_claims
    from ...figures.costs import command_key, ledger_rows
    from .rejudge import command_of

    folder, results = Path(folder), Path(results)
    section = (folder / "section.md").read_text()
    command = command_of(section)
    options = dict(w.split("=", 1) for w in command.split()[3:])
    row = [
        r for r in ledger_rows(results / "costs.csv") if (r["figure"], r["scale"], r["options"]) == command_key(command)
    ]
    if not row or not row[0]["cpu_s"] or not _on_cpu(options["scale"], options.get("device")):
        raise ValueError(f"{folder}: no CPU cost of `{command}` in {results / 'costs.csv'}")
    runs = int(options.get("runs", SETTINGS[options["scale"]]["chains"]))
    since = NOT_RUN_SINCE.get(folder.parent.name)
    cpu = CpuSection(command, float(row[0]["cpu_s"]), not_run_history(since) if since else NOT_RUN_HISTORY)
    # the SG-HMC and 30-draw evidence is in the figure's sub-folders, also for a section one level further down
    # (precision_cpu/float32)
    evidence = next((p for p in folder.parents if p.name == FIG), folder.parent)
    rows = verdicts_from_files(folder, section, runs, None, cpu, evidence=evidence,
                               draws_cpu_s=_paper_schedule_cpu_s(results / "costs.csv"))  # fmt: skip
    (folder / "claims.csv").unlink(missing_ok=True)
    write_claims(folder / "claims.csv", FIG, rows, command)
    head, rest = section.split(f"\n\n| {FIGURE.heading} |", 1)
    notes = rest.split("\n\n", 1)[1] if "\n\n" in rest else ""
    (folder / "section.md").write_text(f"{head}\n\n{table(rows, heading=FIGURE.heading)}"
                                       + (f"\n\n{notes.strip()}" if notes.strip() else "") + "\n")  # fmt: skip


def _unkept_cells(rows, unkept: set, groups: dict) -> dict[int, list]:
    """{row index: the (baseline, metric, size) cells it prints whose s.e. come from the section's table}, for the
    calibration rows (their size's three metrics) and the accuracy row (every size), sizes of two or more groups
    (one group has no s.e.)."""
    out = {}
    for i, (c, _) in enumerate(rows):
        key = next((k for k, v in CLAIMS.items() if v is c), None)
        if key is None:
            continue
        if key[0] == "calibration":
            es, metrics = [key[1]], ("nll", "ace", "rps")
        elif key == "accuracy":
            es, metrics = sorted(groups), ("accuracy",)
        else:
            continue
        cells = [(b, m, k) for k in es if groups.get(k, 0) > 1 for b in PAIRED for m in metrics if (b, m) in unkept]
        if cells:
            out[i] = cells
    return out


def _se_bounds(t, base: str, metric: str, es: int) -> tuple[float, float]:
    """The bounds fig4.csv's stds over the groups put on the s.e. of the paired difference SMS-UBU - ``base``:
    the sample s.d. is a seminorm, so |sd_a - sd_b| <= sd(a - b) <= sd_a + sd_b, over sqrt(groups)."""
    (sd_a, n), (sd_b, _) = (t[(t.method == m) & (t.ensemble_size == es) & (t.metric == metric)][["std", "groups"]]
                            .iloc[0] for m in ("sms_ubu", base))  # fmt: skip
    root = math.sqrt(n)
    return abs(sd_a - sd_b) / root, (sd_a + sd_b) / root


def _se_bounds_note(c, o, i: int, cells: list, t, diffs: dict, args: tuple):
    """Outcome ``o`` (row ``i`` of ``verdicts``) with, where it prints s.e. that no committed CSV holds (``cells``),
    where they come from, the bounds fig4.csv implies for each (``_se_bounds``) and whether the verdict is the same
    at every s.e. within them: the rules applied again at each corner of the box (a cell's judgement changes once
    in s.e., so the corners give every verdict the box holds)."""
    import itertools

    if not cells:
        return o
    bounds = [_se_bounds(t, b, m, es) for b, m, es in cells]
    seen = set()
    for corner in itertools.product(*bounds):
        d = {b: f.copy() for b, f in diffs.items()}
        for (b, m, es), se in zip(cells, corner):
            d[b].loc[(d[b].ensemble_size == es) & (d[b].metric == m), "se"] = se
        seen.add(verdict_of(verdicts(t, d, *args)[i][1].verdict))
    n = sorted({int(t[t.ensemble_size == es]["groups"].iloc[0]) for _, _, es in cells})
    over = f"the same {n[0]} groups" if len(n) == 1 else "the same groups at each size"
    sized = len({es for _, _, es in cells}) > 1
    named = "; ".join(f"{m.upper() if m != 'accuracy' else 'accuracy'} vs {LABELS[b]}"
                      + (f" at size {es}" if sized else "") + f" [{lo:.2g}, {hi:.2g}]"
                      for (b, m, es), (lo, hi) in zip(cells, bounds))  # fmt: skip
    same = verdict_of(o.verdict)
    held = (f"the verdict is {same} at every s.e. within these bounds" if seen == {same} else
            f"within these bounds the verdict could also be {' or '.join(sorted(seen - {same}))}")  # fmt: skip
    note = (f"{len(cells)} of the s.e. printed are in no committed CSV: they are this section's paired table's "
            "(4 decimals), from per-group values the run did not keep (no runs.csv or paired.csv); fig4.csv's stds "
            f"over {over} bound each (|sd_a - sd_b| / sqrt(n) <= s.e. <= "
            f"(sd_a + sd_b) / sqrt(n)): {named}; {held}")  # fmt: skip
    return replace(o, why="; ".join(w for w in (o.why, note) if w))


def rejudge_from_files(out_dir: Path) -> None:
    """Write the committed section's claims again from its files by the rules as they are now
    (``verdicts_from_files``), without a rerun (its runs were made on a lent GPU and not kept): the claims table and
    claims.csv (``rejudge.rewrite_claims``); the Command line, Files, settings and notes are kept. The cost of more
    runs is priced from costs.csv's wall time of the section's command."""
    import pandas as pd

    from .rejudge import command_of, rewrite_claims, section_of

    out_dir = Path(out_dir)
    section = section_of(out_dir, FIG)
    options = dict(w.split("=", 1) for w in command_of(section).split()[3:])
    costs = pd.read_csv(out_dir / "costs.csv")
    row = costs[(costs.figure == FIG) & (costs.scale == options["scale"])]
    minutes = float(row.wall_s.iloc[0]) / 60 if len(row) else None
    rows = verdicts_from_files(out_dir / FIG, section, int(options["runs"]), minutes)
    rewrite_claims(out_dir, FIG, rows, FIGURE.heading)
