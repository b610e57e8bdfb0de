"""What the recipes of paulin2025's other image experiments share (§5 Figs. 5-6, App. E Table
4): Algorithm 3 (Adam with linear decay, SWA, localized SMS-UBU with control variates at x_SWA,
BatchNorm calibration, evaluation) on one data set, with that data set's own configuration
(``conf/dataset/<name>.yaml``: the authors' step, friction, lambda_loc, schedule and calibration
batch), made and pooled as in ``fig4`` (``ensemble_runs``: runs in parts, worker processes;
``fig4``'s measurement, paired differences and verdict rules).

An ``ImageSet`` declares one experiment; ``image_figure`` files its recipe with three scales:
``quick`` (the narrow ``cnn_small``, a few runs, a short schedule: a CPU with the data),
``paper`` (the paper's network, runs and schedule: a GPU) and ``untested``, which reads no data
and writes the section with every claim "not tested: data", the command that would test it and
what that would cost on a GPU (``gpu_seconds``, scaled from the committed GPU run of Fig. 4).
The data sets' files are not on this machine: every scale but ``untested`` checks them first
(``data.check_files``) and stops with one line naming the files expected when they are absent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path

from ...figures.claims import Claim, Claims, check, not_tested
from ...figures.common import md_table
from ...figures.driver import Figure, Invocation, Option, choice, integer, number, register_figure
from ...rundir import write_frame
from .ensemble_runs import method_grid, method_overrides, print_estimate, run_workers

RUNS = "must be an integer >= 1 (independent runs)"
OPTIONS = (Option("runs", integer(1, RUNS)), Option("workers", integer(1, "must be an integer >= 1"), 1),
           Option("part"), Option("time_limit", number(0, "must be a number of seconds > 0")),
           Option("device", choice("auto", "cpu", "cuda")))  # fmt: skip
LABELS = {"standard": "standard training", "swa": "SWA", "sms_ubu": "SMS-UBU"}
METRICS = ("accuracy", "nll", "ace", "rps")

# the committed GPU run of paulin2025-fig4 (results/costs.csv: scale=paper runs=16 device=cuda, one H200):
# wall seconds, runs, epochs per run (15 Adam + 5 SWA + 40 SMS-UBU), training images, forward GFLOP per
# image of its network (cnn_fmnist, torch.utils.flop_counter)
FIG4_GPU = {"seconds": 1117.0, "runs": 16, "epochs": 60, "images": 60000, "gflop": 0.2174}
# that run's SMS-UBU steps used the cached per-batch reference gradients of the control variate (one gradient per
# step); a network whose cache does not fit recomputes the reference gradient each step: an uncached SMS-UBU epoch is
# 1.951x a cached one (results/bench.md, "cnn_fmnist, one SMS-UBU epoch vs one training epoch", H200, 2026-11-26).
# The cache keeps batches x runs trained together x parameters numbers while they fit in free GPU memory / 8
# (runner._cache_limit, potential.ControlVariate): at most an empty H200's 141 GB / 8 (its memory as NVIDIA states it)
UNCACHED_EPOCH, H200_BYTES, BATCH = 1.951, 141e9, 200


@dataclass(frozen=True)
class ImageSet:
    """One of the paper's image experiments: its recipe ``fig`` (``where`` in the paper), the
    data set's config name and ``label``, the paper's runs, ensemble sizes, training images and
    epochs per run, its network (``model``: builder name, the paper's parameter count as
    printed, forward GFLOP per image), the quick scale's dataset overrides, the description of
    the data a user needs, and its claims (a ``Claims`` whose rules take the ImageSet and the measured dict)."""

    fig: str
    where: str
    dataset: str
    label: str
    runs: int
    sizes: tuple[int, ...]
    n_train: int
    epochs: int
    sampling_epochs: int
    model: str
    printed_params: int
    gflop: float
    files: str
    quick_overrides: tuple[str, ...] = ()
    part_runs: int | None = 8
    claims: Claims = None  # rules fn(ImageSet, measured dict); each claim not tested without data
    notes: object = field(default=None)  # (ImageSet, measured dict or None) -> [markdown lines]


def _schedule(train: int, swa: int, burn_in: int, samples: int) -> list[str]:
    return [f"init.train_epochs={train}", f"init.swa_epochs={swa}", f"burn_in={burn_in}", f"samples={samples}",
            "thin=1", "unit=epoch"]  # fmt: skip


def scales(d: ImageSet) -> dict:
    """quick (cnn_small, 4 runs, 3 + 1 training epochs, 1 burn-in epoch, 3 draws, the data set's
    own steps), paper (the paper's network, runs and schedule; in parts of ``part_runs`` runs
    trained and sampled together), untested (no data read; the paper's settings in the text)."""
    paper = {"dataset": d.dataset, "model": None, "chains": d.runs, "overrides": [], "step": None,
             "part_runs": d.part_runs}  # fmt: skip
    quick = {"dataset": d.dataset, "model": "cnn_small", "chains": 4, "step": None,
             "overrides": [*d.quick_overrides, *_schedule(3, 1, 1, 3)]}  # fmt: skip
    return {"quick": quick, "paper": paper, "untested": dict(paper, untested=True)}


def cache_numbers(d: ImageSet) -> int:
    """The numbers the control variate's per-batch reference gradients take for the runs trained and sampled
    together (a part, or all the runs): batches of ``BATCH`` x runs x the network's parameters (its listing's)."""
    return d.n_train // BATCH * (d.part_runs or d.runs) * LISTING_PARAMS.get(d.model, d.printed_params)


def uncached(d: ImageSet) -> bool:
    """Whether the reference gradients cannot be cached on one H200 (``cache_numbers`` above its memory / 8)."""
    return cache_numbers(d) > H200_BYTES / 8


def gpu_seconds(d: ImageSet, runs: int | None = None) -> float:
    """The paper's protocol on one GPU, scaled from Fig. 4's GPU run (``FIG4_GPU``) by runs,
    epochs per run, training images and forward FLOPs per image of the network, each sampling
    epoch counted ``UNCACHED_EPOCH`` times where the control variate's reference gradients
    cannot be cached (``uncached``; Fig. 4's were); a rough estimate: the larger convolutions of
    the other networks use a GPU better, and the test and calibration passes are left out."""
    g = FIG4_GPU
    epochs = d.epochs + (UNCACHED_EPOCH - 1) * d.sampling_epochs * uncached(d)
    return (g["seconds"] * (runs or d.runs) / g["runs"] * epochs / g["epochs"] * d.n_train / g["images"]
            * d.gflop / g["gflop"])  # fmt: skip


def hours(seconds: float) -> str:
    return f"{seconds / 3600:.1f} GPU-hours" if seconds >= 3600 else f"{seconds / 60:.0f} GPU-minutes"


def test_command(d: ImageSet) -> str:
    return f"bnnsample figure {d.fig} scale=paper data_dir=DIR device=cuda"


def untested_why(d: ImageSet) -> str:
    """Why a claim is not tested here, and what a test takes."""
    g = FIG4_GPU
    cache = (f"; its {d.sampling_epochs} SMS-UBU epochs counted {UNCACHED_EPOCH:g}x: the control variate's "
             f"per-batch reference gradients, {cache_numbers(d):.2g} numbers for the {d.part_runs or d.runs} runs "
             f"sampled together, do not fit the cache of one H200 (its {H200_BYTES / 1e9:.0f} GB / 8), so each step "
             f"recomputes them, {UNCACHED_EPOCH:g}x a cached epoch (results/bench.md; Fig. 4's were cached; until "
             f"2026-11-29, the twenty-fourth audit, every epoch was counted once: about "
             f"{hours(gpu_seconds(replace(d, sampling_epochs=0)))})" if uncached(d) else "")  # fmt: skip
    return (f"the {d.label} files are not on this machine ({d.files}); a test: `{test_command(d)}` ({d.runs} runs "
            f"of {d.epochs} epochs on {d.n_train:,} training images, about {hours(gpu_seconds(d))} on one H200, "
            f"scaled from paulin2025-fig4's {g['seconds'] / 60:.1f} minutes for {g['runs']} runs at its scale=paper by "
            f"runs, epochs, images and forward FLOPs per image, {d.gflop:g} against {g['gflop']:g} GFLOP{cache})")  # fmt: skip


def _settings(inv: Invocation, d: ImageSet) -> dict:
    """The scale's settings changed by the options (runs=, workers=, part=, time_limit=, device=)."""

    from .fig4 import how_runs_are_made

    o, s = inv.opt, dict(inv.st)
    if o["runs"] is not None:
        s["chains"] = o["runs"]
    how_runs_are_made(s, o, inv.scale)
    return s


def check_data(d: ImageSet, s: dict) -> None:
    """DataMissingError, one line, when the data set's files are not under data_dir (read from
    the run config the runs would get, data_dir= of the command included)."""
    from ...config import compose
    from ...data import check_files
    from ...plumbing.errors import DataMissingError

    try:
        check_files(compose(method_overrides("sms_ubu", s)))
    except DataMissingError as e:
        raise DataMissingError(f"{e}; `bnnsample figure {d.fig} scale=untested` writes the section without "
                               "them") from None  # fmt: skip


def _start(inv: Invocation, d: ImageSet) -> list[Path] | None:
    """As ``fig4._start`` for SMS-UBU alone: the data checked, the grid of runs, a worker's parts,
    or the estimate and workers=N processes; nothing at the untested scale."""
    s = _settings(inv, d)
    if s.get("untested"):
        inv.started = (s, [], None)
        return None
    check_data(d, s)
    root = inv.dir / "runs" / (f"{inv.scale}_{d.dataset}" if s.get("part_runs") else
                               f"{inv.scale}_{d.dataset}_{s['chains']}")  # fmt: skip
    grid = method_grid(root, s, ["sms_ubu"])
    if s["only_parts"] is not None:
        grid.run(inv.cells, parts=s["only_parts"])
        return []
    print_estimate(grid, s, d.fig)
    if s["workers"] > 1:
        run_workers(inv.out_dir, inv.options, s, grid, d.fig)
    inv.started = (s, ["sms_ubu"], grid)
    return None


def _measure(inv: Invocation, bar) -> dict:
    s = inv.started[0]
    if s.get("untested"):
        return {"s": s, "untested": True}
    from .fig4 import _measure as fig4_measure

    return fig4_measure(inv, bar)


def _write_table(m: dict, inv: Invocation, path: Path, d: ImageSet) -> list[Path]:
    """<id>.csv (the methods table) and its plot; nothing at the untested scale."""
    if m.get("untested"):
        return []
    from ...evaluate.ensembles import plot_ensembles

    table = m["table"]
    csv = path.with_suffix(".csv")
    write_frame(table, csv, index=False)
    png = plot_ensembles(table.assign(method=table.method.map(LABELS)), path,
                         title=f"{d.label}, {m['s']['chains']} runs ({inv.scale})")  # fmt: skip
    return [csv, png]


def _files(m: dict, inv: Invocation, written: list[Path]) -> list[Path]:
    if m.get("untested"):
        return [inv.dir / "claims.csv"]
    return [*written, *(inv.dir / f"{n}.csv" for n in ("calibration", "reliability", "excess_loss", "draws"))]


def network_check(d: ImageSet) -> tuple[Claim, object]:
    """A check row: our network (built on the meta device, no memory) has the parameter count
    of the paper's listing."""
    import torch

    from ...models.cnn import ARCHITECTURES

    with torch.device("meta"):
        n = sum(p.numel() for p in ARCHITECTURES[d.model]().parameters())
    listing = LISTING_PARAMS.get(d.model, d.printed_params)
    claim = Claim(f"our `{d.model}` is the paper's network", "App. E listings, App. F.1 / E tables",
                  f"{d.printed_params:,} parameters", source="check",
                  tolerance="the parameter count of the listing as printed")  # fmt: skip
    why = "" if listing == d.printed_params else (
        f"the listing gives {listing:,}; the paper prints {d.printed_params - listing:,} more (one BatchNorm1d(1024), "
        "which the listing has no place for)")  # fmt: skip
    return claim, check(n == listing, f"{n:,} parameters", why)


# parameter counts of the listings where they differ from the printed count (models/cnn.py)
LISTING_PARAMS = {"cnn_cifar_wide": 73_036_298}


def outcomes(m: dict, inv: Invocation, d: ImageSet) -> list:
    """The claims' rows: all not tested (data) at the untested scale, else the data set's rules (not
    tested with one run: no spread over runs), each row's numbers starting with the setting; every row
    after the network check."""
    if m.get("untested"):
        rows = [(c, not_tested("data", "-", untested_why(d))) for c in d.claims.values()]
    else:
        rows = d.claims.outcomes(d, m)
        if m["s"]["chains"] < 2:
            rows = [(c, not_tested("scale", o.ours, "one run: no spread over runs")) for c, o in rows]
        rows = [(c, replace(o, ours=f"at {m['setting']}: {o.ours}")) for c, o in rows]
    return [network_check(d), *rows]


def settings_text(m: dict, inv: Invocation, d: ImageSet) -> str:
    """The run config's settings (the data set's configuration, as the runs get it) and the scale."""
    from ...config import compose

    s = m["s"]
    c = compose(method_overrides("sms_ubu", s))
    loc = float(c.init.localization)
    text = (f"dataset `{c.dataset.name}` ({c.dataset.description}), model `{c.model.name}`, {s['chains']} independent "
            f"runs; Adam (lr {c.init.lr:g}, linear decay) for {c.init.train_epochs} epochs, then SWA (fresh Adam, lr "
            f"{c.init.swa_lr:g}) for {c.init.swa_epochs} epochs; SMS-UBU with effective step {c.step_size:g} (the "
            f"authors' h = {2 * c.step_size:g} halved), friction {c.friction:g} = sqrt(lambda_loc), lambda_loc "
            f"{loc:g}, bounces at {c.init.bounce_width:g}/sqrt(lambda_loc) = {c.init.bounce_width / math.sqrt(loc):.3g}, "
            f"control variates at x_SWA, batch {c.batch_size}, lambda_prior {c.model.prior_precision:g} on all "
            f"non-bias parameters; {c.burn_in} burn-in {c.unit}s, {c.samples} draws one per {c.unit}; BatchNorm "
            f"statistics from {c.model.n_calibration} training images before each prediction. ")  # fmt: skip
    scale = {
        "quick": "Quick scale: the narrow cnn_small for the paper's network, 4 runs and a short schedule, for a CPU "
                 "with the data; ensembles up to the number of runs.",
        "paper": f"The paper's protocol ({d.runs} runs unless runs= asks for fewer)"
                 + (f"; runs made in parts of {s['part_runs']} (seed = part), trained and sampled together, pooled in "
                    "part order." if s.get("part_runs") else "."),
        "untested": f"Not run: the data are not on this machine. These are the paper's settings (scale=paper); "
                    f"`{test_command(d)}` runs them.",
    }[inv.scale]  # fmt: skip
    return text + scale


def notes(m: dict, inv: Invocation, d: ImageSet) -> str:
    """Ours (when run), the paired differences and measured explanations (``fig4.diagnose``),
    then the data set's own notes."""
    lines = []
    if not m.get("untested"):
        took = (
            "(not recorded)"
            if m["times"] is None
            else f"{m['times'][0] / 60:.1f} min wall, {m['times'][1] / 60:.1f} min CPU"
        )
        lines += [f"Finished runs under `runs/` are reused, not redone; the runs took {took}.", "",
                  "Ours (mean ± std over the disjoint groups; std blank with one group):", "",
                  *md_table(["method", "es", "accuracy", "NLL", "ACE", "RPS"],
                            [[LABELS[k], es, *(cell(m["table"], k, es, x) for x in METRICS)]
                             for k in ("standard", "swa", "sms_ubu") for es in m["sizes"]]),
                  *m["measured"]]  # fmt: skip
    if d.notes is not None:
        lines += d.notes(d, None if m.get("untested") else m)
    return "\n".join(lines)


def value(t, method: str, es: int, metric: str) -> tuple[float, float]:
    r = t[(t.method == method) & (t.ensemble_size == es) & (t.metric == metric)]
    return (float(r["mean"].iloc[0]), float(r["std"].iloc[0])) if len(r) else (math.nan, math.nan)


def cell(t, method: str, es: int, metric: str) -> str:
    mu, sd = value(t, method, es, metric)
    return f"{mu:.4f}" + ("" if math.isnan(sd) else f" ± {sd:.4f}")


def image_figure(d: ImageSet, title: str, description: str) -> Figure:
    """File the recipe of ``d`` (``bnnsample figure <d.fig>``)."""
    return register_figure(Figure(
        d.fig, title, description, scales(d), rows=_measure, start=lambda inv: _start(inv, d),
        tables=lambda m: {}, plot=lambda m, inv, path: _write_table(m, inv, path, d), png=f"{d.fig.split('-')[1]}.png",
        files=_files, outcomes=lambda m, inv: outcomes(m, inv, d), settings=lambda m, inv: settings_text(m, inv, d),
        notes=lambda m, inv: notes(m, inv, d), options=OPTIONS, heading="claim (paulin2025)"))  # fmt: skip


def ensemble_claims(label: str, where: str, sizes) -> Claims:
    """The §5 claims of Figs. 5-6 on the data set ``label``: calibration at each of the paper's ensemble
    ``sizes`` (a row per size run), accuracy; decided by ``fig4``'s rules (paired differences; a "not
    reproduced" that hinges on fewer draws than the paper's is "not tested: scale")."""
    from .fig4 import (
        ACCURACY_METHOD,
        ACCURACY_TIERS,
        NOISE,
        NONE_RESOLVED,
        ONE_GROUP,
        accuracy_outcome,
        calibration_outcome,
    )

    claims = Claims("statement")

    @claims.family("calibration", sizes, f"on {label}, the Bayesian (SMS-UBU) ensemble has lower NLL, ACE and RPS "
                   "than SWA and than standard training of the same ensemble size: ensemble size {}", where,
                   "lower at every ensemble size (here {})",
                   tolerance="reproduced: all six paired differences (3 metrics x 2 baselines) lower, their 95% t "
                   "intervals over the groups below 0; partly: some below 0 by their intervals, none above 0 by its "
                   "interval; not reproduced: any above 0 by its interval (size of the largest in s.e.); "
                   + NONE_RESOLVED + "; " + ONE_GROUP + "; " + NOISE, method="paired differences over the same "
                   "disjoint groups of runs, s.e. over groups")  # fmt: skip
    def _calibration(es: int, d: ImageSet, m: dict):
        return (
            calibration_outcome(m["diffs"], es, m["by_draws"], paper_groups=d.runs // es) if es in m["sizes"] else None
        )

    @claims.rule("accuracy", f"on {label}, small accuracy gains over SWA and standard-training ensembles of the "
                 "same size", f"{where} ('ensembles of the same size': of SWA and of standard training)",
                 "gains at every ensemble size",
                 tolerance=ACCURACY_TIERS + "; " + NOISE + " (until 2026-11-29, the twenty-second audit, the one-group "
                 "tier and the noise were applied here but not stated; no run has been made)",
                 method=ACCURACY_METHOD)  # fmt: skip
    def _accuracy(d: ImageSet, m: dict):
        return accuracy_outcome(m["diffs"], m["sizes"], m["by_draws"], paper_runs=d.runs)

    return claims
