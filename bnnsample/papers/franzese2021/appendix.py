"""franzese2021 Figs. 8 and 9 (App. F.2-F.3): the appendix versions of Figs. 4 and 5 over every data set.
Fig. 8 is Fig. 4 (AKD to the oracle vs h per sampler) with finer batch sizes and the classification sets;
Fig. 9 is Fig. 5 (the generalized LIE-TROTTER's N_l sweep) with the synthetic random-trigonometric-features
set. The runs, oracle and distances are ``uci``'s; the claims are Figs. 4 and 5's, judged per data set.

Classification: the paper's sets are Ionosphere and Vehicle (run when their files are on disk); the offline
scikit-learn sets breast_cancer and wine stand in for them (2x50 softmax BNN, the same protocol). The
paper names no scalar of a classifier's predictive for its Kolmogorov distance: we take every class
probability at every test point as a marginal (``uci_runs.Result.pooled``). The synthetic set is
``trig_features`` with the linear model (App. F.1); its oracle is the paper's, exact posterior draws
(``uci_runs.exact_oracle``), at every scale.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import partial
from pathlib import Path

from ...figures.common import distinct, where
from ...figures.driver import SCALE, Option, names, number, numbers
from . import uci
from .sweeps import (
    FIG4_INTEGRATORS,
    SMALL_H_FILE,
    UNTIMED_SWEEP,
    _fig5_settings,
    _settings_text,
    _sweep,
    _sweep_options,
    fig4_outcomes,
    fig5_outcomes,
)
from .uci_runs import FULL, SYNTHETIC, Spec, oracle_spec

FIG8, FIG9 = "franzese2021-fig8", "franzese2021-fig9"
CLASSIFICATION = ("ionosphere", "vehicle")  # the paper's (Table 2)
STAND_INS = ("breast_cancer", "wine")  # offline, in place of the paper's classification sets
ALL_SETS = (*uci.REGRESSION, *CLASSIFICATION, *STAND_INS, SYNTHETIC)


def _panel(dataset: str) -> str:
    if dataset in STAND_INS:
        return f"{dataset} (offline stand-in for the paper's classification sets)"
    return "trig_features (synthetic, linear model)" if dataset == SYNTHETIC else dataset


def per_dataset(rows: list[dict], outcomes, where_: str) -> list:
    """The (Claim, Outcome) pairs of ``outcomes(rows of one data set)`` for every data set of ``rows``,
    each claim's text prefixed by its data set, its place ``where_`` followed by the claim's own place in the
    main text (the appendix figures extend Figs. 4-5)."""
    out = []
    for ds in distinct(rows, "dataset"):
        for claim, o in outcomes(where(rows, dataset=ds)):
            out.append(
                (replace(claim, text=f"{_panel(ds)}: {claim.text}", where=f"{where_}, extending {claim.where}"), o)
            )
    return out


def _fig8_settings(s, _) -> str:
    return (_settings_text(s) + " Classification: the AKD over every test point and class probability (2x50 "
            "softmax BNN); breast_cancer and wine are offline stand-ins, not the paper's data sets.")  # fmt: skip


# quick: the classification panels at the quick protocol (burn-in time 2, the equal-time LIE-TROTTER oracle),
# the batch sizes finer than Fig. 4's; paper: every data set, the paper's batch sizes and samplers
FIG8_SCALES = {
    "quick": {"datasets": [*CLASSIFICATION, *STAND_INS], "steps": [0.005, 0.01, 0.02], "batches": [0, 32, 16, 8],
              "integrators": ["leapfrog", "lie_trotter", "aboba", "sghmc"], "oracle": "lie_trotter", "seeds": [0, 1, 2]},
    "paper": {"datasets": [*uci.REGRESSION, *CLASSIFICATION], "steps": [0.001, 0.002, 0.005, 0.01, 0.02],
              "batches": [0, 128, 64, 32, 16, 8], "integrators": list(FIG4_INTEGRATORS), "oracle": "sghmc_adaptive",
              "seeds": [0, 1, 2]},
}  # fmt: skip


# results/costs.csv, franzese2021-fig8 quick "steps=0.005,0.01,0.02,0.04,0.08" (2026-11-29): 734 CPU-s for the
# section's runs of these four samplers on both stand-ins with their oracles (MT3 was run after it); the runs
# recorded no sampling time of their own (distances.csv's seconds empty), MT3's did
FIG8_QUICK_OTHERS_CPU_S = 734.0
FIG8_QUICK_OTHERS = ("SHMC-LEAPFROG", "LIE-TROTTER", "SYMMETRIC", "SGHMC")


def _run_steps(r: dict, chains: int) -> int:
    """The steps of one run of a sweep row: burn-in, then thin steps per draw of each chain."""
    return r["burn_in_steps"] + r["thin_steps"] * r["draws"] // chains


def _rate(rows: list[dict], chains: int) -> float:
    """CPU seconds per step of ``chains`` chains over runs that recorded their seconds."""
    timed = [r for r in rows if math.isfinite(r.get("seconds", math.nan))]
    return sum(r["seconds"] for r in timed) / sum(_run_steps(r, chains) for r in timed) if timed else math.nan


def _paper_steps(dataset: str, scales: dict | None = None, n_leapfrog: int = 1):
    """(steps of one run summed over the scale=paper grid's h, the oracle's in runs of as many chains, settings);
    ``scales`` a figure's (Fig. 8's by default); with ``n_leapfrog`` (the generalized LIE-TROTTER), its leapfrog
    steps, N_l per integrator step."""
    ps = uci.sweep_settings("paper", {**(scales or FIG8_SCALES)["paper"], "datasets": [dataset]})
    per_run = 0
    for h in ps.steps:
        burn, thin = Spec(dataset, "leapfrog", h, chains=ps.chains, draws=ps.draws, t_burn=ps.t_burn,
                          t_thin=ps.t_thin, n_leapfrog=n_leapfrog).steps()  # fmt: skip
        per_run += n_leapfrog * (burn + thin * ps.draws)
    o = oracle_spec(dataset, ps.oracle)
    burn, thin = o.steps()
    return per_run, (burn + thin * o.draws) * o.chains // ps.chains, ps


def _ledgered(rows: list[dict]) -> list[dict]:
    """The rows of the h = 0.005-0.08 sweep the ledger's 734 CPU-s covers (``UNTIMED_SWEEP``): h = 0.16 and 0.32,
    added 2026-11-29 by runs of their own (wine's in the twenty-second audit, breast_cancer's in the twenty-fourth),
    are not in that cost, and their runs take so few steps (16-32) that a run's overhead, not its steps, sets their
    time."""
    return [r for r in rows if r["step_size"] in UNTIMED_SWEEP["steps"]]


def others_rate(rows: list[dict], dataset: str, chains: int) -> tuple[float, float]:
    """(CPU seconds per step of ``chains`` chains of the four samplers other than MT3 on ``dataset``, its share):
    their whole cost in the ledger (``FIG8_QUICK_OTHERS_CPU_S``, oracle and overhead included), shared between the
    data sets as MT3's recorded times are, over their runs' steps (the runs that cost covers, ``_ledgered``)."""
    rows = _ledgered(rows)
    mt3 = [r for r in rows if r["label"] == "MT3"]
    mine = [r for r in mt3 if r["dataset"] == dataset]
    share = sum(r["seconds"] for r in mine) / sum(r["seconds"] for r in mt3 if math.isfinite(r["seconds"]))
    others = [r for r in rows if r["dataset"] == dataset and r["label"] in FIG8_QUICK_OTHERS]
    return FIG8_QUICK_OTHERS_CPU_S * share / sum(_run_steps(r, chains) for r in others), share


# ``others_rate`` on franzese2021-fig8's committed quick sweep (results/franzese2021-fig8/distances.csv and its
# 734 CPU-s in results/costs.csv), 10 chains: the measured cost of a step on each stand-in, which prices the tests
# of franzese2021-fig9's rows there (a test checks these against the committed files)
FIG8_OTHERS_RATE = {"breast_cancer": 5.21e-3, "wine": 3.60e-3}


def fig8_test_cost(rows: list[dict], dataset: str, chains: int) -> str | None:
    """What ``scale=paper datasets=<dataset>`` costs, from this sweep's recorded times per step: MT3's runs (their
    seconds, full batch and minibatch apart) and the other samplers' whole cost in the ledger, shared between the
    data sets as MT3's times are (the runs of the ledgered sweep, ``_ledgered``); None where MT3's runs recorded no
    time."""
    rows = _ledgered(rows)
    mt3 = [r for r in rows if r["label"] == "MT3"]
    mine = [r for r in mt3 if r["dataset"] == dataset]
    full, mini = (
        _rate([r for r in mine if r["batch"] == "full"], chains),
        _rate([r for r in mine if r["batch"] != "full"], chains),
    )
    if not (math.isfinite(full) and math.isfinite(mini)):
        return None
    rate, share = others_rate(rows, dataset, chains)
    per_run, oracle, ps = _paper_steps(dataset)
    n_batch, n_seed = len(ps.batches), len(ps.seeds)
    mt3_s = n_seed * per_run * (full + (n_batch - 1) * mini)
    others_s = (len(FIG8_SCALES["paper"]["integrators"]) - 1) * n_batch * n_seed * per_run * rate + oracle * rate
    return (
        f"scale=paper datasets={dataset} (the paper's burn-in and adaptive-SGHMC oracle): about "
        f"{(mt3_s + others_s) / 3600:.0f} CPU-hours (MT3 {mt3_s / 3600:.1f} h, the others and the oracle "
        f"{others_s / 3600:.1f} h), from this sweep's times per step of {chains} chains on {dataset}: MT3 "
        f"{full * 1e3:.0f} ms full batch, {mini * 1e3:.0f} ms a minibatch (its runs' seconds in distances.csv), the "
        f"other four samplers {rate * 1e3:.1f} ms (their runs' {FIG8_QUICK_OTHERS_CPU_S:.0f} CPU-s in "
        f"results/costs.csv, oracle and overhead included, shared between the stand-ins as MT3's times are: "
        f"{share:.0%} here), over {len(FIG8_SCALES['paper']['integrators'])} samplers x batches "
        + "/".join("full" if b == FULL else str(b) for b in ps.batches)
        + f" (the larger minibatches at the measured minibatch rate) x {n_seed} seeds x {per_run:,} steps a run "
        f"(h {min(ps.steps):g}-{max(ps.steps):g}, burn-in time {ps.t_burn:g}, {ps.draws} draws {ps.t_thin:g} apart) "
        f"and the oracle's {oracle:,} steps of {chains} chains (until 2026-11-29, the seventeenth audit, the row gave Boston's cost of adding "
        "h = 0.002 and 0.001 to Fig. 4's grid, about 15 CPU-hours, as this test's)"
    )


def fig8_seed_cost(rows: list[dict], dataset: str) -> tuple[float, str] | None:
    """(CPU seconds one sampler seed of this sweep costs on ``dataset``, how they were summed): a third (one seed's
    share) of MT3's recorded sampling seconds, the other samplers' recorded seconds (the cells run later, h = 0.16
    and 0.32) and their share of the ledger's ``FIG8_QUICK_OTHERS_CPU_S`` for the runs it covers (``others_rate``'s
    share, oracle and overhead included); None where MT3's runs recorded no time. The twenty-fourth audit: until
    2026-11-29 every cell was priced at the timed cells' mean time (``sweeps._seed_cost``), with MT3's alone timed
    (h up to 0.08) 2.1 times these seconds on breast_cancer."""
    mt3 = [r for r in rows if r["dataset"] == dataset and r["label"] == "MT3" and math.isfinite(r["seconds"])]
    if not mt3:
        return None
    _, share = others_rate(rows, dataset, 10)  # the share alone: it does not depend on the chains
    others = [r for r in rows if r["dataset"] == dataset and r["label"] != "MT3" and math.isfinite(r["seconds"])]
    ledger = FIG8_QUICK_OTHERS_CPU_S * share
    n = len({r["seed"] for r in rows if r["dataset"] == dataset})
    mt3_s, others_s = sum(r["seconds"] for r in mt3), sum(r["seconds"] for r in others)
    per = (mt3_s + others_s + ledger) / n
    return per, (
        f"1/{n} of the {n} seeds' {mt3_s + others_s + ledger:.0f} CPU-s on {dataset}: MT3's recorded "
        f"sampling seconds {mt3_s:.0f}, the other samplers' {ledger:.0f} of the {FIG8_QUICK_OTHERS_CPU_S:.0f} "
        f"CPU-s results/costs.csv gives their h = {min(UNTIMED_SWEEP['steps']):g}-"
        f"{max(UNTIMED_SWEEP['steps']):g} runs on both stand-ins ({share:.0%} here, as MT3's times are "
        f"shared; oracle and overhead included) and their recorded {others_s:.0f} at the h run later"
    )


def _with_test_cost(rows: list[dict], every: list[dict], s) -> list[dict]:
    """``rows`` of one data set, each carrying what the test of its limit h -> 0 at the paper's protocol costs
    (``paper_test_cost``, read by that claim's rule) and what one more sampler seed costs (``seed_cost``, read by
    the MT3 rule), where they can be estimated from ``every`` row's times."""
    if not rows:
        return rows
    cost, seed = fig8_test_cost(every, rows[0]["dataset"], s.chains), fig8_seed_cost(every, rows[0]["dataset"])
    extra = {k: v for k, v in (("paper_test_cost", cost), ("seed_cost", seed)) if v is not None}
    return [{**r, **extra} for r in rows] if extra else rows


def _seeds_option(options):
    """The sweep's options with the seeds of the scale (three) as the default."""
    return (*(o for o in options if o.key != "seeds"), Option("seeds", numbers(int, 0), SCALE))


FIGURE8 = _sweep(
    FIG8, ": average Kolmogorov distance to the oracle vs step size, every data set (reduced)",
    "Fig. 4 over every data set (App. F.2): classification (breast_cancer, wine offline; Ionosphere, Vehicle "
    "when on disk) and regression sets, finer batch sizes, 3 sampler seeds",
    FIG8_SCALES, _seeds_option(_sweep_options("integrators", names(tuple(FIG4_INTEGRATORS)), ALL_SETS[:-1])),
    "integrators", lambda i: {"label": FIG4_INTEGRATORS[i], "integrator": i},
    "franzese2021 Fig. 8 (reduced): AKD to the oracle vs h", _fig8_settings,
    lambda rows, s, _: per_dataset(rows, lambda r: fig4_outcomes(_with_test_cost(r, rows, s), s, history=False),
                                   "App. F.3, Fig. 8"))  # fmt: skip


def _fig9_settings(s, nls) -> str:
    return (_fig5_settings(s, nls) + " trig_features: the linear model on 256 random trigonometric features (App. "
            "F.1; conf/dataset/trig_features.yaml), its oracle the paper's: exact posterior draws, as many per run "
            "as the oracle's above (until 2026-11-29 the equal-time LIE-TROTTER oracle in its place); "
            "classification: the AKD over every test point and class probability.")  # fmt: skip


FIG9_SCALES = {
    "quick": {"datasets": [SYNTHETIC, *STAND_INS], "steps": [0.005, 0.01, 0.02], "batches": [0, 32],
              "n_leapfrog": [1, 5, 25], "oracle": "lie_trotter", "seeds": [0, 1, 2]},
    "paper": {"datasets": [SYNTHETIC, *uci.REGRESSION, *CLASSIFICATION], "steps": [0.001, 0.002, 0.005, 0.01, 0.02],
              "batches": [0, 64, 16], "n_leapfrog": [1, 10, 30, 100], "oracle": "sghmc_adaptive", "seeds": [0, 1, 2]},
}  # fmt: skip


def _fig9_steps(dataset: str, grid: dict) -> tuple[int, int, list[int], object]:
    """(one seed's leapfrog steps over ``grid``'s N_l x batches, the oracle's, each run's, the settings) of Fig. 9 at
    the paper's protocol (burn-in time 10, 20 draws 2.5 apart, the adaptive-SGHMC oracle) on ``grid``'s step sizes,
    batches and N_l."""
    scales = {"paper": {**FIG9_SCALES["paper"], **grid}}
    nls = scales["paper"]["n_leapfrog"]
    steps = {n: _paper_steps(dataset, scales, n) for n in nls}
    _, oracle, ps = steps[nls[0]]
    per = [v[0] for v in steps.values()]
    return len(ps.batches) * sum(per), oracle, per, ps


def fig9_rates(rows: list[dict], dataset: str, chains: int) -> dict | None:
    """{("full" or "mini", N_l): CPU seconds per leapfrog step of ``chains`` chains} from Fig. 9's ``rows`` on
    ``dataset`` that recorded their sampling seconds (N_l leapfrog steps an integrator step; every minibatch
    pooled); None where the full batch's runs recorded none (the quick runs stored no seconds)."""
    timed = [r for r in rows if r.get("dataset") == dataset and math.isfinite(_num(r.get("seconds")))]
    out = {}
    for kind in ("full", "mini"):
        for n in sorted({int(r["n_leapfrog"]) for r in timed}):
            mine = [
                r for r in timed if int(r["n_leapfrog"]) == n and (r["batch"] in ("full", FULL)) == (kind == "full")
            ]
            if mine:
                out[kind, n] = sum(_num(r["seconds"]) for r in mine) / sum(n * _run_steps(r, chains) for r in mine)
    return out if any(k == "full" for k, _ in out) else None


def _num(v) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def _fig9_rate(rates: dict, batch, n: int) -> float:
    """The rate (``fig9_rates``) that prices a run of ``n`` leapfrog steps an integrator step at ``batch``: a
    minibatch at the minibatch runs' rate (the full batch's where none ran), N_l at that of the largest N_l run at
    or below it (the smallest run where none is below), as the OU refresh, the rest of a step's cost, is spread
    over more leapfrog steps as N_l grows."""
    kind = "full" if batch in ("full", FULL) or not any(k == "mini" for k, _ in rates) else "mini"
    run = sorted(m for k, m in rates if k == kind)
    return rates[kind, max((m for m in run if m <= n), default=run[0])]


def _fig9_seed_s(dataset: str, grid: dict, rates: dict) -> float:
    """CPU seconds one seed of Fig. 9 at the paper's protocol costs on ``grid`` (its step sizes, batches and N_l over
    FIG9_SCALES["paper"]'s) at the measured ``rates`` (``_fig9_rate``)."""
    scales = {"paper": {**FIG9_SCALES["paper"], **grid}}
    ps = _paper_steps(dataset, scales)[2]
    return sum(_paper_steps(dataset, scales, n)[0] * _fig9_rate(rates, b, n)
               for n in scales["paper"]["n_leapfrog"] for b in ps.batches)  # fmt: skip


def fig9_test_cost(dataset: str, cheaper: bool = True, rows: list[dict] | None = None) -> str | None:
    """What ``scale=paper datasets=<dataset>`` of Fig. 9 costs at its own seeds (and one seed), and a cheaper test at
    the paper's protocol on the grid the quick sweep ran (its h, batches and N_l: the twenty-fourth audit): every
    N_l x batch x seed's leapfrog steps and the oracle's, priced from ``rows`` (this figure's own runs on the data
    set, where they recorded their seconds: ``fig9_rates`` per batch and N_l, ``_fig9_rate`` for the N_l and
    minibatches not run, an approximation; the adaptive-SGHMC oracle's steps at N_l = 1's full-batch rate, one
    full-batch gradient a step as N_l = 1's, its own time not being in distances.csv: on the quick-grid runs at the
    paper's protocol (2026-11-29) both stand-ins' oracles come to 465 CPU-s so, against the 521 CPU-s that the
    section's 2,180 sampling CPU-s of its 164 runs less the 162 sampler runs' 1,659 leave for them; on wine's full
    grid, run 2026-11-29/30 and merged into the section in place of wine's quick-grid rows, its oracle comes to 116
    CPU-s so, against the 130 that the invocation's 4,522 CPU-s less its 180 runs' 4,392 leave, overhead included),
    else at franzese2021-fig8's measured cost of a step on the data set (``FIG8_OTHERS_RATE``, the price until
    2026-11-29, the thirtieth audit: measured on another machine, 2.4-2.5 times the rate of this figure's runs at
    the paper's protocol);
    None where neither was measured (the synthetic set, whose oracle is exact draws, included). ``cheaper=False``:
    the scale=paper test alone (what tests a grid too flat in h to resolve Fig. 5's #1 and #2,
    ``sweeps._resolution_gate``; the cheaper one is that grid)."""
    old = FIG8_OTHERS_RATE.get(dataset)
    if dataset == SYNTHETIC or (old is None and not rows):
        return None
    runs, oracle, per, ps = _fig9_steps(dataset, {})
    rates = fig9_rates(rows or [], dataset, ps.chains)
    if rates is None and old is None:
        return None
    quick = FIG9_SCALES["quick"]
    grid = {k: quick[k] for k in ("steps", "batches", "n_leapfrog")}
    small_runs, _, small_per, _ = _fig9_steps(dataset, grid)
    seeds, per = len(ps.seeds), sorted(per)
    if rates is not None:
        seed_s, small_seed_s, oracle_s = (_fig9_seed_s(dataset, {}, rates), _fig9_seed_s(dataset, grid, rates),
                                          oracle * _fig9_rate(rates, FULL, 1))  # fmt: skip
    else:
        seed_s, small_seed_s, oracle_s = runs * old, small_runs * old, oracle * old
    every, one = seeds * seed_s + oracle_s, seed_s + oracle_s
    if rates is not None:
        was = (seeds * runs + oracle) * old if old is not None else None
        rate_text = _own_rate_text(dataset, rows, rates, ps, old, was, every)
    else:
        rate_text = (
            f"{old * 1e3:.1f} ms a step of {ps.chains} chains, franzese2021-fig8's measured cost on {dataset} (its "
            "four samplers other than MT3, full batch and minibatches together, oracle and overhead included)"
        )
    head = (
        f"scale=paper datasets={dataset} (the paper's burn-in and adaptive-SGHMC oracle): about {every / 3600:.1f} "
        f"CPU-hours at its {seeds} seeds, {one / 3600:.1f} at one (seeds=0): N_l "
        + "/".join(map(str, FIG9_SCALES["paper"]["n_leapfrog"])) + " x batches "
        + "/".join("full" if b == FULL else str(b) for b in ps.batches)
        + f" x {per[0]:,}-{per[-1]:,} leapfrog steps a run (h {min(ps.steps):g}-{max(ps.steps):g}"
    )  # fmt: skip
    if not cheaper:
        return head + f") and the oracle's {oracle:,} steps, at {rate_text}"
    small, small_one = seeds * small_seed_s + oracle_s, small_seed_s + oracle_s
    return head + _cheaper_test_text(dataset, ps, grid, oracle, (small, small_one, max(small_per)), seeds, (
        rate_text if rates is not None else
        f"{rate_text}; this sweep's own 157 CPU-s in results/costs.csv cover three data sets in one invocation "
        "whose runs stored no seconds, so they give no rate per data set"))  # fmt: skip


def _own_rate_text(dataset: str, rows: list[dict], rates: dict, ps, old: float | None, was: float | None,
                   every: float) -> str:  # fmt: skip
    """The words of ``fig9_test_cost``'s rates measured on this figure's own runs (``fig9_rates``), the N_l and
    batches they stand in for, and the price at Fig. 8's rate ``old`` it replaced (``was`` CPU-s against
    ``every``)."""
    nls = FIG9_SCALES["paper"]["n_leapfrog"]

    def ms(kind: str) -> str:
        return "/".join(f"{x:.1f}" if x >= 1 else f"{x:.2f}" for x in (rates[k, n] * 1e3 for k, n in sorted(rates)
                                                                       if k == kind))  # fmt: skip

    run = [n for k, n in sorted(rates) if k == "full"]
    minis = sorted({str(r["batch"]) for r in rows if r.get("dataset") == dataset and r["batch"] not in ("full", FULL)
                    and math.isfinite(_num(r.get("seconds")))}, key=int)  # fmt: skip
    paper_minis = "/".join(str(b) for b in ps.batches if b != FULL)
    mapped = ", ".join(f"{n} at {max((m for m in run if m <= n), default=run[0])}'s" for n in nls if n not in run)
    return (
        f"this figure's own runs' CPU seconds per leapfrog step of {ps.chains} chains on {dataset} at the paper's "
        f"protocol (their seconds in distances.csv): full batch {ms('full')} ms at N_l = {'/'.join(map(str, run))}"
        + (f", batch {'/'.join(minis)} {ms('mini')} ms" if minis else "")
        + "; an approximation: " + (f"N_l {mapped} rate (a larger N_l spreads the OU refresh over more leapfrog "
                                    "steps), " if mapped else "")
        + (f"batches {paper_minis} at batch {'/'.join(minis)}'s, " if minis else f"batches {paper_minis} at the "
           "full batch's (an upper bound), ")
        + "the oracle's steps at N_l = 1's full-batch rate (one full-batch gradient a step; its own time is not "
        "in distances.csv)"
        + (f"; until 2026-11-29, the thirtieth audit, priced at franzese2021-fig8's {old * 1e3:.1f} ms a step on "
           f"{dataset} (its four samplers other than MT3, oracle and overhead included, measured on the AMD EPYC "
           "machine of results/costs.csv, these runs on the Intel Xeon one): "
           f"about {was / 3600:.1f} CPU-hours at {len(ps.seeds)} seeds, {was / every:.1f} times this"
           if old is not None else "")
    )  # fmt: skip


def _cheaper_test_text(dataset: str, ps, grid: dict, oracle: int, small: tuple, seeds: int, rate_text: str) -> str:
    """The tail of ``fig9_test_cost``'s words: the protocol, and the cheaper test at it on the grid run here
    (``small``: its CPU-s at the seeds and at one, its longest run's leapfrog steps)."""
    every, one, longest = small
    return (
        f", burn-in time {ps.t_burn:g}, {ps.draws} draws {ps.t_thin:g} apart; N_l leapfrog steps an integrator "
        f"step) and the oracle's {oracle:,} steps of {ps.chains} chains; a cheaper test at that protocol on the grid "
        f"run here (`bnnsample figure {FIG9} scale=paper datasets={dataset} steps="
        + ",".join(f"{h:g}" for h in grid["steps"]) + " batches=" + ",".join(map(str, grid["batches"]))
        + " n_leapfrog=" + ",".join(map(str, grid["n_leapfrog"]))
        + f"`, N_l up to {max(grid['n_leapfrog'])} as the rows are judged on): about {every / 60:.0f} CPU-minutes at "
        f"{seeds} seeds, {one / 60:.0f} at one ({longest:,} leapfrog steps a run at most); each at " + rate_text
        + "; until 2026-11-29, the twenty-first audit, the row gave Fig. 5's one-seed estimate on Boston, about 1.5 "
        "CPU-hours, for this test (and until the twenty-fourth audit it named the scale=paper test alone)"
    )  # fmt: skip


def fig9_queue_job(dataset: str, full: bool = False) -> str | None:
    """The cheaper test ``fig9_test_cost`` names (the paper's protocol on the grid the quick sweep ran, 3 seeds) as a
    job of scripts/cpu_queue.sh (the `bnnsample figure` arguments), where it is priced; else None. (A test keeps
    the queue holding it: the label does not depend on the script being beside an installed package.) ``full``:
    scale=paper's grid on the data set instead (scale=paper, its 3 seeds: what tests a grid too flat in h,
    ``sweeps._resolution_gate``; queued 2026-11-29 after the cheaper test's grids came out flat)."""
    if FIG8_OTHERS_RATE.get(dataset) is None:
        return None
    if full:
        return f"{FIG9} scale=paper datasets={dataset}"
    q = FIG9_SCALES["quick"]
    job = (f"{FIG9} scale=paper datasets={dataset} steps=" + ",".join(f"{h:g}" for h in q["steps"]) + " batches="
           + ",".join(map(str, q["batches"])) + " n_leapfrog=" + ",".join(map(str, q["n_leapfrog"])) + " seeds="
           + ",".join(map(str, q["seeds"])))  # fmt: skip
    return job


def queue_jobs() -> list[str]:
    """The jobs of scripts/cpu_queue.sh (its JOBS array, one a line), [] where the script is not there."""
    path = Path(__file__).resolve().parents[3] / "scripts" / "cpu_queue.sh"
    if not path.is_file():
        return []
    text = path.read_text()
    body = text[text.index("JOBS=(") + len("JOBS=(") : text.index("\n)", text.index("JOBS=("))]
    return [
        line.strip().strip("'\"") for line in body.splitlines() if line.strip() and not line.strip().startswith("#")
    ]


def fig8_minibatch_gaps(rows: list[dict]) -> dict:
    """From franzese2021-fig8's rows of one data set: {batch: ({h: the largest |seed-mean AKD - the full batch's|
    over the samplers}, the tolerance of a difference from the full batch)} for every minibatch (``Noise.diff``)."""
    cells, noise = uci.seed_means(rows), uci.Noise.of(rows)
    full = {(c["label"], c["step_size"]): c["akd"] for c in cells if c["batch"] == "full"}
    out = {}
    for b in (b for b in distinct(cells, "batch") if b != "full"):
        gap = {}
        for c in (c for c in cells if c["batch"] == b):
            d = abs(c["akd"] - full.get((c["label"], c["step_size"]), math.nan))
            gap[c["step_size"]] = max(gap.get(c["step_size"], 0.0), d) if math.isfinite(d) else math.inf
        out[b] = (dict(sorted(gap.items())), noise.diff(b, "full"))
    return out


# ``fig8_minibatch_gaps`` on franzese2021-fig8's committed distances.csv (5 samplers, 3 seeds, h up to 0.32; a test
# checks these against it; on breast_cancer at h = 0.32 SHMC-LEAPFROG diverged at every batch size, SGHMC at all but
# 16, so no gap there: inf): on the same data set and quick protocol, where a minibatch's AKD departs from the full
# batch's, which tells where franzese2021-fig9's 'more with minibatches' could show
FIG8_MINIBATCH_GAPS = {
    "breast_cancer": {
        32: ({0.005: 0.0021, 0.01: 0.0043, 0.02: 0.0031, 0.04: 0.0176, 0.08: 0.0814, 0.16: 0.1710, 0.32: math.inf},
             0.0320),
        16: ({0.005: 0.0020, 0.01: 0.0025, 0.02: 0.0103, 0.04: 0.0391, 0.08: 0.1582, 0.16: 0.2191, 0.32: math.inf},
             0.0491),
        8: ({0.005: 0.0025, 0.01: 0.0091, 0.02: 0.0233, 0.04: 0.0884, 0.08: 0.1941, 0.16: 0.2611, 0.32: math.inf},
            0.0386),
    },
    "wine": {
        32: ({0.005: 0.0005, 0.01: 0.0009, 0.02: 0.0023, 0.04: 0.0036, 0.08: 0.0057, 0.16: 0.0276, 0.32: 0.0693}, 0.0298),
        16: ({0.005: 0.0016, 0.01: 0.0019, 0.02: 0.0034, 0.04: 0.0054, 0.08: 0.0049, 0.16: 0.0200, 0.32: 0.0936}, 0.0248),
        8: ({0.005: 0.0033, 0.01: 0.0037, 0.02: 0.0039, 0.04: 0.0063, 0.08: 0.0355, 0.16: 0.1225, 0.32: 0.1168}, 0.0322),
    },
}  # fmt: skip


def fig8_minibatch_text(dataset: str, on_paper_grid: bool = False) -> str | None:
    """What franzese2021-fig8's runs on ``dataset`` (``FIG8_MINIBATCH_GAPS``) say of where a minibatch departs from
    the full batch, against the scale=paper test of Fig. 9 (its batch sizes and largest h); None where not
    measured. ``on_paper_grid``: the rows judged are that test's grid (a data set run on scale=paper's grid,
    since 2026-11-29 wine's), so no test is named: the caution is said of the grid judged."""
    gaps = FIG8_MINIBATCH_GAPS.get(dataset)
    if gaps is None:
        return None
    first = {b: min((h for h, g in by_h.items() if g > tol), default=math.inf) for b, (by_h, tol) in gaps.items()}
    calm = max(h for h in gaps[min(gaps)][0] if h < min(first.values()))  # the largest h before any departs
    ps = FIG9_SCALES["paper"]
    minis, hp = "/".join(str(b) for b in ps["batches"] if b != FULL), max(ps["steps"])
    departs = ", ".join(f"batch {b} at h = {h:g} ({gaps[b][0][h]:.4f})" if math.isfinite(h) else f"batch {b} at no h"
                        for b, h in first.items())  # fmt: skip
    text = (f"franzese2021-fig8's runs on {dataset} (5 samplers, 3 seeds, this quick protocol), the largest |AKD - the "
            f"full batch's| over the samplers at h <= {calm:g}: "
            + ", ".join(f"batch {b} {max(g for h, g in by_h.items() if h <= calm):.4f}" for b, (by_h, _) in gaps.items())
            + ", each within its tolerance of a difference from the full batch ("
            + ", ".join(f"{tol:.3f}" for _, tol in gaps.values()) + f"); beyond it first: {departs}")  # fmt: skip
    if min(first.values()) > hp and on_paper_grid:
        text += (f"; so on this grid, the paper's (batches {minis}, h up to {hp:g}), 'more with minibatches' may be "
                 "unresolved on this data set (a caution from the quick protocol, not proof)")  # fmt: skip
    elif min(first.values()) > hp:
        q = FIG9_SCALES["quick"]
        qm = "/".join(str(b) for b in q["batches"] if b != FULL)
        text += (f"; so the named tests (scale=paper: batches {minis}, h up to {hp:g}; the cheaper one queued: batch "
                 f"{qm}, h up to {max(q['steps']):g}) may leave 'more with minibatches' unresolved on this data set (a "
                 "caution from the quick protocol, not proof)")  # fmt: skip
    return text


def _on_paper_grid(rows: list[dict]) -> bool:
    """Whether ``rows`` (of one data set) ran Fig. 9's scale=paper grid: its step sizes, batch sizes and N_l."""
    ps = FIG9_SCALES["paper"]
    batches = {FULL if b in ("full", FULL) else b for b in distinct(rows, "batch")}
    return (set(ps["steps"]) <= {r["step_size"] for r in rows} and set(ps["batches"]) <= batches
            and set(ps["n_leapfrog"]) <= {int(str(r["label"]).split("=")[-1]) for r in rows})  # fmt: skip


def _with_fig8_gaps(rows: list[dict]) -> list[dict]:
    """``rows`` of one data set, each carrying ``fig8_minibatch_text`` where measured (read by the 'large h' rule),
    said of the grid judged where the rows ran the paper's (``_on_paper_grid``)."""
    text = fig8_minibatch_text(rows[0]["dataset"], _on_paper_grid(rows)) if rows else None
    return rows if text is None else [{**r, "fig8_minibatches": text} for r in rows]


FIGURE9 = _sweep(
    FIG9, ": generalized LIE-TROTTER, N_l sweep, every data set (reduced)",
    "Fig. 5 over every data set (App. F.3): the synthetic random-trig-features set, classification and "
    "regression sets, 3 sampler seeds",
    FIG9_SCALES, (*_seeds_option(_sweep_options("n_leapfrog", numbers(int, 1), ALL_SETS)), Option("oracle_h", number())),
    "n_leapfrog",
    lambda n: {"label": f"N_l={n}", "integrator": "generalized_lie_trotter", "n_leapfrog": n},
    "franzese2021 Fig. 9 (reduced): generalized LIE-TROTTER, N_l sweep", _fig9_settings,
    lambda rows, s, nls, ref: per_dataset(rows, lambda r: fig5_outcomes(
        _with_fig8_gaps(r), s, nls, partial(fig9_test_cost, rows=r), fig9_queue_job,
        reference=[x for x in ref if x["dataset"] == r[0]["dataset"]]), "App. F.3, Fig. 9"),
    inputs=SMALL_H_FILE)  # fmt: skip
