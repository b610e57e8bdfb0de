"""The few lines printed at the end of a run: one comparison table and each diagnostic with a
one-phrase reading. metrics.csv keeps every row; this is what a reader needs first.

Table rows: the predictive ensembles of a classifier (standard training, SWA, Bayesian; their
accuracy, NLL, ECE, ACE and RPS as paulin2025 Table 1 reports them), the Bayesian predictive of
a regression (RMSE, NLL), or the first coordinates of a run against the exact law (mean and
variance with their Monte Carlo standard errors, W2). A classifier's three rows pool the same
kept runs, and a line under the table says how many (the ensemble size), followed by the
Bayesian predictive's paired differences to SWA per single run with their standard errors and,
for Paulin et al. (2025), Algorithm 3 / Fig. 4 on Fashion-MNIST, the settings in which the run
departs from the paper's protocol.
"""

from __future__ import annotations

import math

import pandas as pd

ENSEMBLES = (("standard", "standard"), ("swa", "SWA"), ("bayes", "Bayesian"))
CLASSIFICATION = ("accuracy", "nll", "ece", "ace", "rps")
REGRESSION = ("rmse", "nll")
MARGINAL = ("mean", "posterior_mean", "var", "posterior_var", "w2")
MAX_ROWS = 4  # theta coordinates shown; metrics.csv has them all
DIFFERENT_STARTS = "chains start from different points"


def _num(x, se=None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    s = f"{x:.4g}"
    if se is not None and not (isinstance(se, float) and math.isnan(se)):
        s += f" ± {se:.2g}"
    return s


def _lookup(table: pd.DataFrame) -> dict:
    return {(r.group, r.metric): (r.value, r.se) for r in table.itertuples()}


def comparison_table(table: pd.DataFrame) -> pd.DataFrame | None:
    """Rows standard / SWA / Bayesian (classifier), Bayesian (regression) or theta[j] vs the
    exact law; None when the run has none of these."""
    v = _lookup(table)
    groups = set(table.group)
    if any((g, "accuracy") in v for g, _ in ENSEMBLES):
        rows = {label: {m: _num(v.get((g, m), (None,))[0]) for m in CLASSIFICATION}
                for g, label in ENSEMBLES if (g, "accuracy") in v}  # fmt: skip
        return pd.DataFrame.from_dict(rows, orient="index")
    if ("bayes", "rmse") in v:
        return pd.DataFrame.from_dict({"Bayesian": {m: _num(v[("bayes", m)][0]) for m in REGRESSION}}, orient="index")
    thetas = sorted((g for g in groups if str(g).startswith("theta[") and (g, "mean") in v),
                    key=lambda g: int(g[6:-1]))[:MAX_ROWS]  # fmt: skip
    if not thetas:
        return None
    cols = [m for m in MARGINAL if (thetas[0], m) in v]
    rows = {}
    for g in thetas:
        rows[g] = {m: _num(v[(g, m)][0], v[(g, m)][1] if m in ("mean", "var") else None) for m in cols}
    return pd.DataFrame.from_dict(rows, orient="index").rename(
        columns={"posterior_mean": "exact mean", "posterior_var": "exact var"}
    )


def ensemble_lines(table: pd.DataFrame) -> list[str]:
    """Under a classifier's table: the ensemble size its rows compare, and the Bayesian
    predictive minus SWA per single run, paired (``bayes-swa@es1`` of metrics.csv)."""
    v = _lookup(table)
    if not any((g, "accuracy") in v for g, _ in ENSEMBLES) or ("run", "chains") not in v:
        return []
    runs = int(v[("run", "chains")][0] - v.get(("run", "diverged_chains"), (0,))[0])
    draws = int(v.get(("run", "draws_per_chain"), (0,))[0])
    size = "single runs" if runs == 1 else f"ensembles of the same {runs} runs"
    out = [f"rows: {size} (standard, SWA: {runs} network{'s' * (runs != 1)}; Bayesian: {runs} x {draws} draws); "
           "smaller ensembles in metrics.csv (<method>@es<k>)"]  # fmt: skip
    diffs = [(m, *v[("bayes-swa@es1", m)]) for m in CLASSIFICATION if ("bayes-swa@es1", m) in v]
    if diffs:
        cells = ", ".join(f"{m.upper() if m != 'accuracy' else m} {d:+.4f}" + (f" ± {se:.4f}" if se == se else "")
                          for m, d, se in diffs)  # fmt: skip
        out.append(f"Bayesian - SWA per single run, paired (mean ± s.e. over {runs} runs): {cells}")
    return out


def _count(n: int, unit: str) -> str:
    return f"{int(n):,} {unit}{'s' * (int(n) != 1)}"


# Paulin et al. (2025), Algorithm 3 / Fig. 4 on Fashion-MNIST (the authors' notebooks): what the summary of a
# run on dataset=fmnist with init=swa compares its settings with, as (what, the run's value, the paper's values)
PAPER_FMNIST = (
    ("network", lambda c: c["model"]["name"], ("cnn_fmnist",), "cnn_fmnist, 1.27M parameters"),
    ("training images", lambda c: c["dataset"].get("n_train") or 60000, (60000,), "60,000"),
    ("runs", lambda c: c["chains"], (64,), "64"),
    ("Adam epochs", lambda c: c["init"]["train_epochs"], (15,), "15"),
    ("SWA epochs", lambda c: c["init"]["swa_epochs"], (5,), "5"),
    ("burn-in", lambda c: _count(c["burn_in"], c["unit"]), ("10 epochs",), "10 epochs"),
    ("draws", lambda c: f"{c['samples']:,}, one per {_count(c['thin'], c['unit']).removeprefix('1 ')}",
     ("30, one per epoch",), "30, one per epoch"),
    ("batch", lambda c: c["batch_size"], (200,), "200"),
    ("BatchNorm statistics from", lambda c: c["model"].get("n_calibration"), (4000, 10000),
     "4,000 images in the text, 10,000 in the notebook"),
)  # fmt: skip


def departures(cfg: dict | None) -> list[str]:
    """The settings of a Fashion-MNIST run of Algorithm 3 (dataset=fmnist, init=swa) that differ
    from Paulin et al. (2025), Algorithm 3 / Fig. 4, as 'what VALUE (paper P)'; [] otherwise."""
    if not cfg or cfg.get("dataset", {}).get("name") != "fmnist" or cfg.get("init", {}).get("name") != "swa":
        return []
    out = []
    for what, value_of, paper, paper_text in PAPER_FMNIST:
        value = value_of(cfg)
        if value not in paper:
            shown = f"{value:,}" if isinstance(value, int) else str(value)
            if what == "training images":
                shown += ", a stratified subset"
            elif what.startswith("BatchNorm"):
                shown += " images"
            out.append(f"{what} {shown} (paper {paper_text})")
    return out


def _temperature_reading(name: str, value: float, se: float) -> str:
    """T = 1 at the target law (kinetic: E|v|^2 / d; configurational: E[x . grad U] / d)."""
    tol = max(0.05, 2 * se) if not math.isnan(se) else 0.05
    if abs(value - 1) <= tol:
        return f"{name} {value:.3g}: close to 1, as at equilibrium"
    if value < 1:
        return f"{name} {value:.3g}: below 1, the run is still in its transient (longer burn-in)"
    return f"{name} {value:.3g}: above 1, step-size bias or gradient noise heats the chains"


def readings(table: pd.DataFrame, notes: list[str]) -> list[str]:
    """One phrase per diagnostic that the run has."""
    v = _lookup(table)
    out = []
    chains, div = v.get(("run", "chains"), (None,))[0], v.get(("run", "diverged_chains"), (0,))[0]
    if chains is not None:
        draws = v.get(("run", "draws_per_chain"), (0,))[0]
        state = f"{int(div)} diverged (dropped from every metric)" if div else "none diverged"
        out.append(f"chains: {int(chains)} x {int(draws)} draws, {state}")
    if ("diagnostics", "rhat_max") in v:
        r = v[("diagnostics", "rhat_max")][0]
        if any(n.startswith(DIFFERENT_STARTS) for n in notes):
            out.append(f"R-hat max {r:.3g}: across different SWA starts, not a convergence test")
        elif r < 1.01:
            out.append(f"R-hat max {r:.3g}: chains agree")
        elif r < 1.1:
            out.append(f"R-hat max {r:.3g}: chains roughly agree; more draws would tighten it")
        else:
            out.append(f"R-hat max {r:.3g}: chains disagree; run longer or check the step size")
    if ("diagnostics", "ess_bulk_min") in v:
        e = v[("diagnostics", "ess_bulk_min")][0]
        kept = int(((chains or 0) - div) * v.get(("run", "draws_per_chain"), (0,))[0])
        out.append(f"bulk ESS min {e:.3g}: effective draws of the {kept} kept (worst coordinate)")
    for key, name in (("kinetic_temperature", "kinetic temperature"),
                      ("configurational_temperature", "configurational temperature")):  # fmt: skip
        if ("diagnostics", key) in v:
            out.append(_temperature_reading(name, *v[("diagnostics", key)]))
    if ("diagnostics", "bounces_total") in v and v[("diagnostics", "bounces_total")][0] > 0:
        out.append(f"{v[('diagnostics', 'bounces_total')][0]:.0f} elastic bounces off the localization box")
    return out


def render(table: pd.DataFrame, notes: list[str], cfg: dict | None = None) -> str:
    """The printed end of a run: the comparison table with the ensemble size it compares and the
    paired differences, the departures from the paper's protocol (``departures`` of the run's
    config ``cfg``), the readings, the notes once each."""
    lines = []
    comp = comparison_table(table)
    if comp is not None:
        lines.append(comp.to_string())
    lines += [f"  {r}" for r in ensemble_lines(table)]
    gone = departures(cfg)
    if gone:
        lines.append(f"  departs from Paulin et al. (2025), Algorithm 3 / Fig. 4 in: {'; '.join(gone)}")
    lines += [f"  {r}" for r in readings(table, notes)]
    seen = set()
    for n in notes:  # those the readings say already are left out
        if n in seen or n.startswith(DIFFERENT_STARTS) or "elastic bounces" in n:
            continue
        seen.add(n)
        lines.append(f"  note: {n}")
    return "\n".join(lines)
