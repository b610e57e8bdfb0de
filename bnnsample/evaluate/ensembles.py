"""Metrics against ensemble size (paulin2025 §5, Figs. 4-6): independent runs pooled into
disjoint ensembles.

A run (a chain under ``init=swa``: each chain trains its own Adam -> SWA network and samples
its own localized posterior) gives three predictives on the test set: standard training (the
network after the decaying-Adam epochs), SWA, and the Bayesian predictive (the mean over the
run's recorded draws). For an ensemble size ``es`` the R runs are cut into floor(R / es)
disjoint groups of consecutive runs, runs g*es .. (g+1)*es - 1 (the authors' code); a group's
predictive is the mean of its runs' predictives,

    p_group = (1 / es) sum_{r in group} p_r,     p_r = (1 / D) sum_{draws} p_{r, draw}  (Bayesian),

and the table holds the mean and the unbiased standard deviation (``torch.std``, ddof 1)
of each metric over the groups (NaN with one group), as the authors report them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..plotting import pyplot, save_figure
from . import metrics as M

SIZES = (1, 2, 4, 8, 16)
METRICS = ("accuracy", "nll", "ace", "rps")
COLUMNS = ["method", "ensemble_size", "metric", "mean", "std", "groups"]


GROUP_COLUMNS = ["method", "ensemble_size", "group", "runs", "metric", "value"]


def group_values(run_probs, y, sizes=SIZES, method: str = "bayes", metrics=METRICS) -> pd.DataFrame:
    """Each disjoint group's metric (``GROUP_COLUMNS``; ``runs`` the group's runs, first-last)
    for per-run predictives ``run_probs`` [R, n_test, K] and labels ``y`` [n_test]: the values
    that ``ensemble_metrics`` and ``paired_differences`` summarise, so that their standard
    errors can be recomputed from them; sizes larger than R are left out."""
    p = np.asarray(run_probs, dtype=np.float64)
    if p.ndim != 3:
        raise ValueError(f"run_probs must be (runs, n_test, classes), got shape {p.shape}")
    rows = []
    for es in sizes:
        n_groups = p.shape[0] // int(es)
        if int(es) < 1 or n_groups < 1:
            continue
        groups = p[: n_groups * es].reshape(n_groups, es, *p.shape[1:]).mean(axis=1)
        for g, probs in enumerate(groups):
            all_m = M.classification_metrics(probs, y)
            runs = f"{g * es}-{(g + 1) * es - 1}" if es > 1 else str(g)
            rows += [{"method": method, "ensemble_size": int(es), "group": g, "runs": runs, "metric": m,
                      "value": float(all_m[m])} for m in metrics]  # fmt: skip
    return pd.DataFrame(rows, columns=GROUP_COLUMNS)


def summarise_groups(values: pd.DataFrame) -> pd.DataFrame:
    """The tidy table (``COLUMNS``) of ``group_values``' rows: mean and unbiased standard
    deviation (ddof 1; NaN with one group) over the groups of each (method, size, metric)."""
    rows = []
    for (method, es, m), v in values.groupby(["method", "ensemble_size", "metric"], sort=False):
        x = v["value"].to_numpy()
        rows.append({"method": method, "ensemble_size": int(es), "metric": m, "mean": float(x.mean()),
                     "std": float(x.std(ddof=1)) if len(x) > 1 else float("nan"), "groups": len(x)})  # fmt: skip
    return pd.DataFrame(rows, columns=COLUMNS)


def ensemble_metrics(run_probs, y, sizes=SIZES, method: str = "bayes", metrics=METRICS) -> pd.DataFrame:
    """Tidy table (``COLUMNS``) for per-run predictives ``run_probs`` [R, n_test, K] and labels
    ``y`` [n_test]; sizes larger than R are left out."""
    return summarise_groups(group_values(run_probs, y, sizes, method, metrics))


def paired_differences(run_probs_a, run_probs_b, y, sizes=SIZES, metrics=METRICS) -> pd.DataFrame:
    """metric(group of A) - metric(same group of B) for two predictives of the same runs (e.g.
    the Bayesian and the SWA predictive), cut into the same disjoint groups as
    ``ensemble_metrics``: columns ensemble_size, metric, diff (mean over groups), se (std over
    groups / sqrt(groups); NaN with one group), groups. Pairing removes the run-to-run spread
    that the two share."""
    a, b = (np.asarray(p, dtype=np.float64) for p in (run_probs_a, run_probs_b))
    if a.shape != b.shape:
        raise ValueError(f"paired predictives need the same shape, got {a.shape} and {b.shape}")
    rows = []
    for es in sizes:
        n_groups = a.shape[0] // int(es)
        if n_groups < 1:
            continue
        ga, gb = (p[: n_groups * es].reshape(n_groups, es, *p.shape[1:]).mean(axis=1) for p in (a, b))
        per = [(M.classification_metrics(x, y), M.classification_metrics(z, y)) for x, z in zip(ga, gb)]
        for m in metrics:
            d = np.array([x[m] - z[m] for x, z in per])
            se = float(d.std(ddof=1) / np.sqrt(n_groups)) if n_groups > 1 else float("nan")
            rows.append({"ensemble_size": int(es), "metric": m, "diff": float(d.mean()), "se": se, "groups": n_groups})
    return pd.DataFrame(rows, columns=["ensemble_size", "metric", "diff", "se", "groups"])


def _as_list(stores) -> list:
    return list(stores) if isinstance(stores, list | tuple) else [stores]


def run_predictives(stores, bayes_label: str = "bayes") -> tuple[dict[str, np.ndarray], np.ndarray]:
    """({method: per-run predictive (kept runs, n_test, K)}, targets) of a classification run:
    the baselines ``baselines/<name>`` (e.g. standard and swa) and the Bayesian predictive
    averaged over each run's draws, labelled ``bayes_label``. Diverged runs are left out of
    every method, so that all methods pool the same runs.

    ``stores`` is one store or a list of stores whose runs are pooled in the order given (a
    recipe's runs split over processes, a multirun over seeds); they must share the test set,
    and a method missing from any of them is left out."""
    stores = _as_list(stores)
    pooled, y0 = {}, None
    for store in stores:
        y = store.array("targets")
        if y is None:
            raise ValueError(f"{store.path} has no targets: not a classification run")
        if y0 is None:
            y0 = y
        elif not np.array_equal(y, y0):
            raise ValueError(f"{store.path}: another test set than {stores[0].path}; runs cannot be pooled")
        keep = ~np.asarray(store.diverged(), dtype=bool)
        for name, arr in sorted(store.group("baselines").items()):
            pooled.setdefault(name, []).append(arr[keep])
        per_run = store.predictive_mean(keep)
        if per_run is not None:
            pooled.setdefault(bayes_label, []).append(per_run)
    return {name: np.concatenate(ps) for name, ps in pooled.items() if len(ps) == len(stores)}, y0


def draw_counts(n_draws: int) -> list[int]:
    """1, 2, 4, ... draws up to ``n_draws``, and ``n_draws`` itself."""
    counts = [2**i for i in range(max(1, int(n_draws)).bit_length()) if 2**i < n_draws]
    return [*counts, int(n_draws)]


def draws_differences(stores, baseline: str = "swa", sizes=SIZES, metrics=METRICS, counts=None) -> pd.DataFrame:
    """How the Bayesian ensemble's lead over a baseline moves with the number of draws per run:
    for each count k (default ``draw_counts``), the Bayesian predictive of every run is the mean
    of its LAST k draws (the ones furthest into sampling), and ``paired_differences`` against
    ``baselines/<baseline>`` of the same runs gives diff and se per ensemble size; a column
    ``draws`` holds k. Diverged runs are left out of both. ``stores``: one store or several
    pooled in order (``run_predictives``)."""
    stores = _as_list(stores)
    y = stores[0].array("targets")
    keeps = [~np.asarray(st.diverged(), dtype=bool) for st in stores]
    bases = [st.group("baselines").get(baseline) for st in stores]
    n_draws = min(st.n_draws for st in stores)
    if y is None or any(b is None for b in bases) or n_draws == 0:
        raise ValueError(f"{stores[0].path}: needs targets, baselines/{baseline} and draws")
    base = np.concatenate([np.asarray(b)[k] for b, k in zip(bases, keeps)])
    parts = []
    for k in counts or draw_counts(n_draws):
        per_run = np.concatenate([st.predictive_mean(keep, last=k) for st, keep in zip(stores, keeps)])
        d = paired_differences(per_run, base, y, sizes, metrics)
        parts.append(d.assign(draws=int(k)))
    return pd.concat(parts, ignore_index=True)


def ensemble_table(stores, sizes=SIZES, bayes_label: str = "bayes", metrics=METRICS) -> pd.DataFrame:
    """``ensemble_metrics`` for every predictive of one classification run, or of several
    pooled in order (``run_predictives``)."""
    preds, y = run_predictives(stores, bayes_label)
    parts = [ensemble_metrics(p, y, sizes, name, metrics) for name, p in preds.items()]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=COLUMNS)


def pooled_ensemble_table(paths, sizes=SIZES, metrics=METRICS) -> pd.DataFrame:
    """Runs of several jobs (e.g. a multirun over seeds, one or more chains each) pooled in the
    order given, then cut into disjoint ensembles as ``ensemble_metrics`` does. The jobs must
    share the test set; a method missing from any job is left out."""
    from ..store import open_stores

    with open_stores(paths) as stores:
        return ensemble_table(stores, sizes, metrics=metrics)


def methods_table(paths: dict[str, list[Path]], sizes=SIZES, *, baselines_from: str) -> pd.DataFrame:
    """``ensemble_table`` of the runs of several methods ({method: the samples.h5 of its jobs,
    pooled in order}), each method's Bayesian predictive labelled by its name; standard
    training and SWA from the runs of ``baselines_from`` only (e.g. paulin2025 Fig. 4's
    samplers all start from the SWA points of its SMS-UBU runs)."""
    from ..store import open_stores

    parts = []
    for m, job_paths in paths.items():
        with open_stores(job_paths) as sts:
            t = ensemble_table(sts, sizes=sizes, bayes_label=m)
        parts.append(t if m == baselines_from else t[t.method == m])
    return pd.concat(parts, ignore_index=True)


def predictives_and_kinetic(paths: dict[str, list[Path]], *, baselines_from: str):
    """({method: per-run predictive} of every method, standard training and SWA from the runs
    of ``baselines_from``; the test labels; {method: kinetic temperature (runs, draws)}) of the
    runs of several methods ({method: the samples.h5 of its jobs, pooled in order})."""
    from ..store import open_stores

    preds, y, kinetic = {}, None, {}
    for m, job_paths in paths.items():
        with open_stores(job_paths) as sts:
            got, y = run_predictives(sts, bayes_label=m)
            kts = [(st.group("diagnostics").get("kinetic_temperature"), int(st.attrs.get("draws", 0))) for st in sts]
        preds.update(got if m == baselines_from else {m: got[m]})
        if all(kt is not None for kt, _ in kts):
            draws = min(d for _, d in kts)
            kinetic[m] = np.concatenate([np.asarray(kt)[:, :draws] for kt, _ in kts])
    return preds, y, kinetic


def paired(preds: dict, y, sizes) -> dict:
    """{baseline: paired_differences(SMS-UBU, baseline)} for SWA and standard training: the
    same disjoint groups of runs, mean and s.e. over groups."""
    if "sms_ubu" not in preds:
        return {}
    return {b: paired_differences(preds["sms_ubu"], preds[b], y, sizes) for b in ("swa", "standard") if b in preds}


def diagnose_runs(paths: dict[str, list[Path]], sizes, fig_dir: Path):
    """Measurements that explain the ensemble table of paulin2025 Fig. 4's runs ({method: the
    samples.h5 of its jobs}, standard training and SWA from the SMS-UBU runs; evaluate.calibration):
    the best-fit test temperature of each method at ensemble sizes 1 and the largest, reliability
    bins of the single-run predictives, and each sampler's excess training loss over the SWA point
    and its kinetic temperature at the draws, and SMS-UBU minus SWA against the number of draws
    per run. Writes calibration.csv, reliability.csv, excess_loss.csv, draws.csv under ``fig_dir``;
    returns the paired differences (``paired``) behind the verdicts, the temperatures, the
    reliability bins, the excess losses and the draws table (None without SMS-UBU)."""
    from ..rundir import write_frame
    from ..store import open_stores
    from .calibration import best_temperature_rows, excess_training_loss, reliability_rows

    preds, y, kinetic = predictives_and_kinetic(paths, baselines_from="sms_ubu")
    diffs = paired(preds, y, sizes)
    temps = pd.DataFrame(best_temperature_rows(preds, y, sizes=sorted({sizes[0], sizes[-1]})))
    write_frame(temps, fig_dir / "calibration.csv", index=False)
    rel = reliability_rows({k: preds[k] for k in ("swa", "sms_ubu") if k in preds}, y)
    write_frame(rel, fig_dir / "reliability.csv", index=False)
    excess = []
    for m, part_paths in paths.items():
        e = excess_training_loss([p.parent for p in part_paths])
        k = kinetic.get(m)
        e.update(method=m, kinetic_temperature=float(k.mean()) if k is not None else float("nan"),
                 kinetic_temperature_first_draw=float(k[:, 0].mean()) if k is not None else float("nan"))  # fmt: skip
        excess.append(e)
    write_frame(pd.DataFrame(excess), fig_dir / "excess_loss.csv", index=False)
    by_draws = None
    if "sms_ubu" in paths:
        with open_stores(paths["sms_ubu"]) as sts:
            by_draws = draws_differences(sts, "swa", sizes, metrics=("accuracy", "nll", "ace"))
        write_frame(by_draws, fig_dir / "draws.csv", index=False)
    return diffs, temps, rel, excess, by_draws


def ensemble_rows(store) -> list[dict]:
    """The table as rows of metrics.csv (group, metric, value, se): group ``<method>@es<k>``,
    value the mean over groups, se = std / sqrt(groups) (NaN with one group); and the Bayesian
    predictive's paired differences to each baseline (``paired_differences``), group
    ``bayes-<baseline>@es<k>``, value the mean difference over groups, se its standard error."""
    preds, y = run_predictives(store)
    rows = [{"group": f"{r.method}@es{r.ensemble_size}", "metric": r.metric, "value": r.mean,
             "se": r.std / np.sqrt(r.groups) if r.groups > 1 else float("nan")}
            for name, p in preds.items() for r in ensemble_metrics(p, y, method=name).itertuples()]  # fmt: skip
    for base in ("swa", "standard"):
        if "bayes" in preds and base in preds:
            d = paired_differences(preds["bayes"], preds[base], y)
            rows += [{"group": f"bayes-{base}@es{r.ensemble_size}", "metric": r.metric, "value": r.diff, "se": r.se}
                     for r in d.itertuples()]  # fmt: skip
    return rows


def plot_ensembles(table: pd.DataFrame, path: Path, title: str = "") -> Path:
    """Metric against ensemble size, one panel per metric, one line per method with the
    standard deviation over groups as error bars (paulin2025 Figs. 4-6)."""
    metrics = [m for m in METRICS if m in set(table.metric)]
    fig, axes = pyplot().subplots(1, len(metrics), figsize=(3.6 * len(metrics), 3.2), squeeze=False)
    for ax, m in zip(axes[0], metrics):
        for method, t in table[table.metric == m].groupby("method", sort=False):
            t = t.sort_values("ensemble_size")
            ax.errorbar(t.ensemble_size, t["mean"], yerr=t["std"].fillna(0.0), marker="o", ms=3, capsize=2,
                        label=method)  # fmt: skip
        ax.set_xscale("log", base=2)
        ax.set_xlabel("ensemble size (runs)")
        ax.set_ylabel(m.upper() if m != "accuracy" else "accuracy")
        ax.set_title(m.upper() if m != "accuracy" else "accuracy")
    axes[0][0].legend(fontsize=7)
    if title:
        fig.suptitle(title, fontsize=9)
    return save_figure(fig, Path(path), dpi=120)
