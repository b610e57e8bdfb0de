"""A Hydra multirun directory -> one tidy table (sweep.csv, sweep.parquet) and slope plots.

Layout read (Hydra's, see ``hydra.sweep`` in conf/config.yaml)::

    SWEEP_DIR/multirun.yaml
    SWEEP_DIR/<job>/config.yaml      resolved config of the job (written by the runner)
    SWEEP_DIR/<job>/.hydra/          Hydra's copy of the config, the overrides and the group choices
    SWEEP_DIR/<job>/samples.h5
    SWEEP_DIR/<job>/metrics.csv      (group, metric, value, se), written by ``evaluate_run``

Written:

    sweep.csv / sweep.parquet   one row per (run, group, metric): run, run_dir, status, error,
                                group, metric, value, se and every key of the run's resolved
                                config flattened with dotted names (``integrator.name``,
                                ``batching.name``, ``step_size``, ``batch_size``, ``seed`` ...),
                                plus ``choice.<group>`` for Hydra's config-group choices
                                (``choice.integrator = sms_ubu``: the preset, which the resolved
                                config alone does not name). A failed or unreadable run has one
                                row with status ``failed``, its error and empty metric columns.
    sweep_status.csv            one row per run: run, run_dir, status (ok | incomplete | failed), error
    sweep_runs.csv              the same table wide: one row per run (run, run_dir, status, error,
                                the config columns, then one ``<group>/<metric>`` column per value)
    slopes.csv                  every fitted log-log slope with its 95% t interval; ``fit`` is
                                "ok" or why the slope says nothing (fewer than 3 step sizes,
                                an interval wider than +-1)
    plots/<metric>_vs_step_size.png
                                |metric| against step size on log-log axes, one line per
                                (integrator preset, batching, batch size[, other swept keys]),
                                the least-squares slope of log|value| on log h and its 95%
                                confidence interval in the legend, the 95% confidence band of
                                the fitted line shaded (only where the fit means something);
                                y-limits from the plotted values, floating-point zeros left out
    plots/<metric>_vs_ensemble_size.png
                                calibration metrics (nll, ace, rps of the Bayesian ensemble)
                                against the ensemble size (kept chains x draws per chain) when
                                the sweep varies it
    ensembles.csv, plots/ensembles_vs_size[_k].png
                                classification jobs that differ only in the seed pooled: their
                                runs (chains) in job order cut into disjoint ensembles of 1, 2,
                                4, ... runs for standard training, SWA and the Bayesian
                                predictive (paulin2025's 64 runs as seed=0..63)

Derived rows: where a run has the exact stationary variance of its discrete scheme
(``scheme_stationary_var``) and the exact posterior variance, the table also carries
``scheme_var_error = scheme_stationary_var - posterior_var`` (likewise for the mean): the
exact, Monte-Carlo-free bias of the scheme, whose slope in h is the scheme's weak order.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from ..plotting import pyplot, save_figure
from ..rundir import check_writable_target, write_bytes, write_frame
from ..stats import MAX_CI_HALF_WIDTH, MIN_POINTS, ROUNDOFF, SlopeFit, fit_loglog  # noqa: F401  (the one slope fitter)
from ..store import FILENAME

log = logging.getLogger("bnnsample")

STEP_KEY = "step_size"
# metrics whose size is a bias/error that shrinks with the step size (plotted as |value|)
SLOPE_METRICS = (
    "w1", "w2", "kolmogorov", "avg_kolmogorov", "mean_error", "var_error", "rel_var_error",
    "cov_diag_error", "l1_error", "bias", "mse", "scheme_mean_error", "scheme_var_error",
    "nll", "ace", "rps", "ece", "rmse",
)  # fmt: skip
CALIBRATION_METRICS = ("nll", "ace", "rps")
PREDICTIVE_GROUP = "bayes"  # the sampler's ensemble; swa / standard do not depend on h
MAX_GROUPS = 4  # panels per metric (theta[0..3])
BASE_COLUMNS = ["run", "run_dir", "status", "error", "group", "metric", "value", "se"]
# never split lines by these: the x axis, replicates, and the ensemble size
NOT_LINE_KEYS = {STEP_KEY, "seed", "chains", "samples", "progress", "flush_seconds", "check_every",
                 "evaluate", "data_dir", "device"}  # fmt: skip


# --------------------------------------------------------------------------
# slope fit
# --------------------------------------------------------------------------


# --------------------------------------------------------------------------
# reading a sweep
# --------------------------------------------------------------------------


def flatten(d, prefix: str = "") -> dict:
    """Nested mapping -> {dotted.key: scalar}; lists become their JSON text."""
    out = {}
    for k, v in (d or {}).items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            sub = flatten(v, key + ".")
            out.update(sub if sub else {key: None})
        elif isinstance(v, (list, tuple)):
            out[key] = json.dumps(v, default=str)
        else:
            out[key] = v
    return out


def job_dirs(sweep_dir: Path) -> list[Path]:
    """Every run directory under sweep_dir: those holding samples.h5, config.yaml or .hydra/
    (a job that failed before sampling has no samples.h5 but has its .hydra/)."""
    sweep_dir = Path(sweep_dir)
    found = {p.parent for p in sweep_dir.rglob(FILENAME)}
    found |= {p.parent for p in sweep_dir.rglob("config.yaml") if p.parent.name != ".hydra"}
    found |= {p.parent.parent for p in sweep_dir.rglob(".hydra/config.yaml")}
    found.discard(sweep_dir)
    # not a directory inside another run (plots/, a reference run kept in a run's folder ...)
    found = {p for p in found if not any(q in p.parents for q in found)}

    def key(p: Path):
        rel = p.relative_to(sweep_dir).parts
        return [(0, int(s), "") if s.isdigit() else (1, 0, s) for s in rel]

    return sorted(found, key=key)


def read_config(run_dir: Path) -> dict:
    """Flattened resolved config of a run, plus choice.<group> from Hydra's record. The config
    stored with the samples (checked against its checksum) comes first: a config.yaml edited
    or left from another run must not relabel them; the YAML files serve runs without a store."""
    cfg = None
    if (run_dir / FILENAME).exists():
        try:
            from ..store import SampleStore

            with SampleStore(run_dir / FILENAME) as s:
                cfg = s.config() or None
        except Exception:  # noqa: BLE001  (an unreadable store is reported elsewhere)
            cfg = None
    for p in (run_dir / "config.yaml", run_dir / ".hydra" / "config.yaml"):
        if cfg is None and p.exists():
            try:
                cfg = yaml.safe_load(p.read_text())
            except yaml.YAMLError:
                continue
    flat = flatten(cfg if isinstance(cfg, dict) else {})
    hy = run_dir / ".hydra" / "hydra.yaml"
    if hy.exists():
        try:
            choices = yaml.safe_load(hy.read_text())["hydra"]["runtime"]["choices"]
            flat.update({f"choice.{k}": v for k, v in choices.items() if not k.startswith("hydra/")})
        except (yaml.YAMLError, KeyError, TypeError):
            pass
    return flat


def _store_complete(run_dir: Path) -> bool | None:
    try:
        from ..store import SampleStore

        with SampleStore(run_dir / FILENAME) as s:
            return bool(s.complete)
    except Exception:  # noqa: BLE001
        return None


def _derived_rows(metrics: pd.DataFrame) -> pd.DataFrame:
    """scheme_{mean,var}_error = exact stationary moment of the discrete scheme - posterior's."""
    out = []
    for g, sub in metrics.groupby("group", sort=False):
        v = dict(zip(sub.metric, sub.value))
        for m in ("mean", "var"):
            if f"scheme_stationary_{m}" in v and f"posterior_{m}" in v:
                s, p = float(v[f"scheme_stationary_{m}"]), float(v[f"posterior_{m}"])
                err = s - p
                if abs(err) <= 1e-10 * max(abs(s), abs(p), 1e-300):
                    err = 0.0  # exact up to rounding: no bias to fit
                out.append({"group": g, "metric": f"scheme_{m}_error", "value": err, "se": 0.0})
    return pd.DataFrame(out, columns=["group", "metric", "value", "se"])


def collect(sweep_dir: Path, errors: dict | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(tidy table, status table) of the runs under sweep_dir. ``errors`` maps run dirs that
    could not be evaluated to their message; such runs are marked failed (a stale metrics.csv
    there is not used)."""
    sweep_dir = Path(sweep_dir)
    errors = {Path(k).resolve(): v for k, v in (errors or {}).items()}
    frames, status_rows = [], []
    for run in job_dirs(sweep_dir):
        name = str(run.relative_to(sweep_dir))
        cfg = read_config(run)
        err, status = errors.get(run.resolve()), "ok"
        metrics = None
        if err is None and not (run / FILENAME).exists():
            err = f"no {FILENAME}: the run failed before sampling (see {run / 'bnnsample.log'})"
        if err is None:
            try:
                metrics = pd.read_csv(run / "metrics.csv")
                if not {"group", "metric", "value", "se"} <= set(metrics.columns):
                    raise ValueError("metrics.csv lacks columns group, metric, value, se")
            except (OSError, ValueError, pd.errors.ParserError) as e:
                err = f"no readable metrics.csv ({type(e).__name__}: {e})"
        if err is not None:
            status = "failed"
            metrics = pd.DataFrame([{"group": None, "metric": None, "value": np.nan, "se": np.nan}])
        else:
            metrics = pd.concat([metrics, _derived_rows(metrics)], ignore_index=True)
            if _store_complete(run) is False:
                status = "incomplete"
        row = {"run": name, "run_dir": str(run), "status": status, "error": err or ""}
        status_rows.append(row)
        base = pd.DataFrame(row, index=metrics.index)
        conf = pd.DataFrame({(k if k not in BASE_COLUMNS else f"config.{k}"): [v] * len(metrics)
                             for k, v in cfg.items()}, index=metrics.index)  # fmt: skip
        frames.append(pd.concat([base, metrics[["group", "metric", "value", "se"]], conf], axis=1))
    status = pd.DataFrame(status_rows, columns=["run", "run_dir", "status", "error"])
    if not frames:
        return pd.DataFrame(columns=BASE_COLUMNS), status
    table = pd.concat(frames, ignore_index=True, sort=False)
    config_cols = sorted(c for c in table.columns if c not in BASE_COLUMNS)
    return table[BASE_COLUMNS + config_cols], status


def wide_table(table: pd.DataFrame) -> pd.DataFrame:
    """One row per run: the run's columns (status, config) and one ``group/metric`` column per
    metric value; a failed run keeps its row, with empty metric columns."""
    per_run = [c for c in table.columns if c not in ("group", "metric", "value", "se")]
    runs = table.drop_duplicates("run")[per_run].reset_index(drop=True)
    vals = table.dropna(subset=["metric"])
    if vals.empty:
        return runs
    cols = vals.group.astype(str) + "/" + vals.metric.astype(str)
    wide = vals.assign(column=cols).pivot_table(index="run", columns="column", values="value", aggfunc="first",
                                                sort=False)  # fmt: skip
    wide.columns.name = None
    return runs.merge(wide, left_on="run", right_index=True, how="left")


# --------------------------------------------------------------------------
# lines, slopes, plots
# --------------------------------------------------------------------------


def _preset_col(table: pd.DataFrame) -> str:
    return "choice.integrator" if "choice.integrator" in table.columns else "integrator.name"


def line_keys(table: pd.DataFrame, exclude=()) -> list[str]:
    """(integrator preset, batching, batch size) plus every other config key that still
    varies within those lines, except the step size, the seed, the ensemble size and ``exclude``."""
    base = [c for c in (_preset_col(table), "batching.name", "batch_size") if c in table.columns]
    runs = table.drop_duplicates("run")
    extra = []
    skip = set(BASE_COLUMNS) | NOT_LINE_KEYS | set(exclude) | set(base)
    for c in runs.columns:
        if c in skip or c.endswith(".description"):
            continue
        col = runs[c].astype(str)
        varies = col.groupby([runs[b].astype(str) for b in base]).nunique().max() if base else col.nunique()
        if varies > 1:
            extra.append(c)
    return base + extra


def _line_label(keys: list[str], values) -> str:
    values = values if isinstance(values, tuple) else (values,)
    parts = []
    for k, v in zip(keys, values):
        if k in ("choice.integrator", "integrator.name", "batching.name"):
            parts.append(str(v))
        elif k == "batch_size":
            parts.append(f"n={v}")
        else:
            parts.append(f"{k.split('.')[-1]}={v}")
    return " ".join(parts)


def _groups_for(sub: pd.DataFrame) -> list[str]:
    groups = list(dict.fromkeys(sub.group))
    if PREDICTIVE_GROUP in groups:
        return [PREDICTIVE_GROUP]
    return [g for g in groups if g not in ("run", "swa", "standard")][:MAX_GROUPS]


def slope_table(table: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """A fitted slope for every (metric, group, line) with >= 2 step sizes."""
    ok = table[table.status != "failed"]
    if STEP_KEY not in ok.columns or ok.empty:
        return pd.DataFrame()
    keys = line_keys(ok)
    rows = []
    for metric in [m for m in SLOPE_METRICS if m in set(ok.metric)]:
        sub = ok[ok.metric == metric]
        for g in _groups_for(sub):
            sg = sub[sub.group == g]
            for lv, line in sg.groupby(keys, sort=True, dropna=False):
                fit = fit_loglog(line[STEP_KEY].astype(float), line.value.astype(float), level)
                if fit is None:
                    continue
                rows.append(dict(metric=metric, group=g, line=_line_label(keys, lv), slope=fit.slope,
                                 ci_low=fit.lo, ci_high=fit.hi, slope_se=fit.slope_se, points=fit.n,
                                 fit=fit.problem() or "ok",
                                 **dict(zip(keys, lv if isinstance(lv, tuple) else (lv,)))))  # fmt: skip
    return pd.DataFrame(rows)


def plot_slopes(table: pd.DataFrame, out: Path, level: float = 0.95) -> list[Path]:
    plt = pyplot()
    ok = table[table.status != "failed"]
    if STEP_KEY not in ok.columns or ok[STEP_KEY].nunique() < 2:
        return []
    keys = line_keys(ok)
    paths = []
    for metric in [m for m in SLOPE_METRICS if m in set(ok.metric)]:
        sub = ok[ok.metric == metric]
        groups = _groups_for(sub)
        if not groups:
            continue
        fig, axes = plt.subplots(1, len(groups), figsize=(5.5 * len(groups), 4.2), squeeze=False)
        drawn = False
        for ax, g in zip(axes[0], groups):
            sg = sub[sub.group == g]
            shown = []  # plotted |values|: the y-limits follow them, not the confidence bands
            for i, (lv, line) in enumerate(sg.groupby(keys, sort=True, dropna=False)):
                line = line.sort_values(STEP_KEY)
                h, y = line[STEP_KEY].astype(float).to_numpy(), line.value.astype(float).abs().to_numpy()
                se = line.se.astype(float).to_numpy()
                good = np.isfinite(y) & (y > ROUNDOFF * np.nanmax(y, initial=0.0)) & (h > 0)
                if not good.any():
                    continue
                fit = fit_loglog(h, y, level)
                lab = _line_label(keys, lv) + (f": {fit.label()}" if fit else ": no fit (1 step size)")
                color = f"C{i % 10}"
                yerr = np.where(np.isfinite(se[good]), np.minimum(se[good], 0.999 * y[good]), 0.0)
                ax.errorbar(h[good], y[good], yerr=yerr, fmt="o", ms=4, color=color, capsize=2, label=lab)
                shown += [y[good], y[good] + yerr]  # lower error bars may leave the axis
                if fit is not None and not fit.problem():
                    hh = np.geomspace(h[good].min(), h[good].max(), 50)
                    f, lo, hi = fit.band(hh)
                    ax.plot(hh, f, "-", color=color, lw=1.2)
                    ax.fill_between(hh, lo, hi, color=color, alpha=0.15, lw=0)
                drawn = True
            floor = _guides(ax, sg)
            if floor is not None:  # the floor is what the points are read against: keep it in view
                shown.append(np.array([floor]))
            ax.set(
                xscale="log",
                yscale="log",
                xlabel="step size h",
                ylabel=f"|{metric}|",
                title=f"{metric} [{g}]",
            )
            if shown:
                ax.set_ylim(*robust_limits(np.concatenate(shown)))
            ax.legend(fontsize=7, title=f"log-log slope, {int(level * 100)}% CI", title_fontsize=7)
        if drawn:
            paths.append(save_figure(fig, out / f"{metric}_vs_step_size.png"))
        else:
            plt.close(fig)
    return paths


def _guides(ax, sg: pd.DataFrame) -> float | None:
    """What a reader needs to tell a rate from noise: dashed lines of order 1 and 2 in h through
    the geometric mean of the panel's values at its middle step, and the Monte Carlo floor (the median
    standard error of the panel's points, dotted): values near or below it are noise, so a
    flattening there is not a broken integrator."""
    h = sg[STEP_KEY].astype(float).to_numpy()
    y = sg.value.astype(float).abs().to_numpy()
    se = sg.se.astype(float).to_numpy()
    good = np.isfinite(y) & (y > 0) & (h > 0)
    if good.sum() < 2:
        return None
    hh = np.geomspace(h[good].min(), h[good].max(), 20)
    steps = np.unique(h[good])
    mid = steps[len(steps) // 2]  # anchored mid-range: the largest step is often past the asymptotic regime
    y0 = float(np.exp(np.log(y[good][h[good] == mid]).mean()))  # through the middle of the lines there
    for order, style in ((1, (0, (4, 3))), (2, (0, (1, 2, 4, 2)))):
        ax.plot(hh, y0 * (hh / mid) ** order, color="0.55", lw=0.9, ls=style, label=f"order {order} (guide)")
    floor = se[good & np.isfinite(se) & (se > 0)]
    if not floor.size:
        return None
    ax.axhline(float(np.median(floor)), color="0.3", lw=0.9, ls=":", label="Monte Carlo s.e. (median)")
    return float(np.median(floor))


def robust_limits(values: np.ndarray, pad: float = 1.5) -> tuple[float, float]:
    """Log-axis limits from the finite positive values, padded by a factor ``pad``."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    if v.size == 0:
        return 1e-3, 1.0
    return float(v.min() / pad), float(v.max() * pad)


def ensemble_sizes(table: pd.DataFrame) -> pd.Series:
    """Per run: kept chains x draws per chain, from the run's `run` rows."""
    r = table[table.group == "run"].pivot_table(index="run", columns="metric", values="value", aggfunc="first")
    need = {"chains", "diverged_chains", "draws_per_chain"}
    if not need <= set(r.columns):
        return pd.Series(dtype=float)
    return (r.chains - r.diverged_chains) * r.draws_per_chain


def plot_calibration(table: pd.DataFrame, out: Path) -> tuple[list[Path], str]:
    """nll/ace/rps of the Bayesian ensemble against ensemble size; (paths, note)."""
    ok = table[table.status != "failed"]
    cal = ok[(ok.group == PREDICTIVE_GROUP) & ok.metric.isin(CALIBRATION_METRICS)]
    if cal.empty:
        return [], ("calibration vs ensemble size skipped: the runs carry no calibration metrics "
                    "(nll/ace/rps of a predictive ensemble)")  # fmt: skip
    size = ensemble_sizes(ok)
    cal = cal.assign(ensemble_size=cal.run.map(size))
    if cal.ensemble_size.nunique() < 2:
        return [], ("calibration vs ensemble size skipped: every run has the same ensemble size "
                    f"({cal.ensemble_size.iloc[0]:.0f} draws); per-run metrics hold one ensemble "
                    "size each, so sweep chains= or samples= to get this plot")  # fmt: skip
    keys = line_keys(ok) + ([STEP_KEY] if STEP_KEY in ok.columns else [])
    metrics = [m for m in CALIBRATION_METRICS if m in set(cal.metric)]
    fig, axes = pyplot().subplots(1, len(metrics), figsize=(4.5 * len(metrics), 3.8), squeeze=False)
    for ax, m in zip(axes[0], metrics):
        for i, (lv, line) in enumerate(cal[cal.metric == m].groupby(keys, sort=True, dropna=False)):
            line = line.sort_values("ensemble_size")
            ax.plot(line.ensemble_size, line.value, "o-", ms=3, color=f"C{i % 10}", label=_line_label(keys, lv))
        ax.set(xscale="log", xlabel="ensemble size (draws)", ylabel=m, title=f"{m} [{PREDICTIVE_GROUP}]")
        ax.legend(fontsize=7)
    return [save_figure(fig, out / "calibration_vs_ensemble_size.png")], ""


# --------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------


def pool_replicates(table: pd.DataFrame, sweep_dir: Path) -> tuple[list[Path], str]:
    """Classification jobs that differ only in the seed (and the keys of ``NOT_LINE_KEYS``
    other than the step size) are replicates: their runs (chains) are pooled in job order into
    disjoint ensembles of 1, 2, 4, ... runs (``evaluate.ensembles``; paulin2025's 64 runs as a
    multirun over seed=0..63). Writes ensembles.csv and plots/ensembles_vs_size[_k].png."""
    from .ensembles import plot_ensembles, pooled_ensemble_table

    ok = table[(table.status != "failed") & (table.metric == "accuracy")]
    if ok.empty:
        return [], ""
    runs = ok.drop_duplicates("run")
    keys = line_keys(table) + ([STEP_KEY] if STEP_KEY in runs.columns else [])
    frames, plots, skipped = [], [], []
    groups = runs.groupby([runs[k].astype(str) for k in keys], sort=False) if keys else [((), runs)]
    for i, (values, g) in enumerate(groups):
        if len(g) < 2:
            continue
        label = _line_label(keys, values) if keys else "all runs"
        try:
            t = pooled_ensemble_table([Path(d) / FILENAME for d in g.run_dir])
        except (OSError, ValueError, KeyError) as e:
            skipped.append(f"{label}: {e}")
            continue
        for k in keys:
            t.insert(0, k, g[k].iloc[0])
        t.insert(0, "jobs", len(g))
        frames.append(t)
        suffix = "" if len(groups) == 1 else f"_{i}"
        plots.append(plot_ensembles(t, Path(sweep_dir) / "plots" / f"ensembles_vs_size{suffix}.png",
                                    title=f"{label}: {len(g)} jobs pooled"))  # fmt: skip
    if not frames:
        return [], "; ".join(f"ensembles not pooled: {m}" for m in skipped)
    csv = Path(sweep_dir) / "ensembles.csv"
    write_frame(pd.concat(frames, ignore_index=True), csv, index=False)
    note = f"runs of replicate jobs (same settings, other seeds) pooled into ensembles: {csv}"
    return plots, note + "".join(f"; not pooled: {m}" for m in skipped)


def _write_parquet(table: pd.DataFrame, path: Path) -> str:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return "sweep.parquet skipped: pyarrow is not installed"
    t = table.copy()
    for c in t.columns:  # parquet wants one type per column: mixed object columns become text
        if t[c].dtype == object and t[c].dropna().map(type).nunique() > 1:
            t[c] = t[c].map(lambda v: None if v is None or (isinstance(v, float) and math.isnan(v)) else str(v))
    import io

    buf = io.BytesIO()
    try:
        t.to_parquet(buf, index=False)
    except Exception as e:  # noqa: BLE001  (the CSV is the table of record)
        return f"sweep.parquet not written ({type(e).__name__}: {e})"
    write_bytes(path, buf.getvalue(), durable=False)
    return ""


@dataclass
class SweepResult:
    table: pd.DataFrame
    status: pd.DataFrame
    slopes: pd.DataFrame
    csv: Path
    plots: list[Path]

    @property
    def failed(self) -> list[str]:
        return self.status.loc[self.status.status == "failed", "run_dir"].tolist()


def aggregate_sweep(sweep_dir: Path, errors: dict | None = None, echo: bool = True) -> SweepResult:
    """Write sweep.csv (+ .parquet), sweep_status.csv, slopes.csv and plots/ of a multirun
    directory whose runs have been evaluated; ``errors``: {run_dir: message} of runs that
    could not be."""
    sweep_dir = Path(sweep_dir)
    table, status = collect(sweep_dir, errors)
    csv = sweep_dir / "sweep.csv"
    names = ("sweep.csv", "sweep_status.csv", "sweep_runs.csv", "sweep.parquet", "slopes.csv", "ensembles.csv")
    for name in names:  # all refused before any is written: never half a set of tables
        check_writable_target(sweep_dir / name)
    write_frame(table, csv, index=False)
    write_frame(status, sweep_dir / "sweep_status.csv", index=False)
    write_frame(wide_table(table), sweep_dir / "sweep_runs.csv", index=False)
    notes = [n for n in [_write_parquet(table, sweep_dir / "sweep.parquet")] if n]
    slopes = slope_table(table)
    if not slopes.empty:
        write_frame(slopes, sweep_dir / "slopes.csv", index=False)
    plots = []
    try:
        plots += plot_slopes(table, sweep_dir / "plots")
        for make in (plot_calibration, pool_replicates):
            paths, note = make(table, sweep_dir if make is pool_replicates else sweep_dir / "plots")
            plots += paths
            if note:
                notes.append(note)
    except Exception as e:  # noqa: BLE001  (plots must never cost the table)
        log.warning("sweep plots failed: %s", e)
        notes.append(f"sweep plots failed: {type(e).__name__}: {e}")
    if echo:
        print(summary(sweep_dir, table, status, slopes, plots, notes))
    return SweepResult(table, status, slopes, csv, plots)


# headline columns of the cross-job table, the first family a sweep has (all in sweep_runs.csv)
HEADLINES = (
    ("bayes/accuracy", "bayes/nll", "bayes/ece"),
    ("bayes/rmse", "bayes/nll"),
    ("theta[0]/mean_error", "theta[0]/var_error", "theta[0]/w2"),
    ("theta[0]/mean", "theta[0]/var"),
)
DIAGNOSTIC_COLUMNS = ("run/diverged_chains", "diagnostics/rhat_max", "diagnostics/kinetic_temperature")


def cross_job_table(table: pd.DataFrame) -> str:
    """One line per job: the config keys that vary across the sweep, the headline metrics and
    the diagnostics, values to 4 significant digits."""
    wide = wide_table(table)
    runs = wide[wide.status != "failed"]
    if runs.empty:
        return ""
    keys = [k for k in line_keys(table) if runs[k].astype(str).nunique() > 1]
    keys += [k for k in (STEP_KEY, "seed") if k in runs.columns and runs[k].nunique() > 1]
    heads = next((h for h in HEADLINES if all(c in runs.columns for c in h)), ())
    cols = [*heads, *(c for c in DIAGNOSTIC_COLUMNS if c in runs.columns)]
    out = runs[["run", *keys, *cols]].copy()
    for c in cols:
        out[c] = out[c].map(lambda v: "-" if pd.isna(v) else f"{v:.4g}")
    out.columns = ["job", *(k.split(".")[-1] if not k.startswith("choice.") else k[7:] for k in keys), *cols]
    return out.to_string(index=False)


def summary(sweep_dir, table, status, slopes, plots, notes) -> str:
    n_ok = int((status.status != "failed").sum())
    lines = [f"== sweep {sweep_dir}: {len(status)} runs, {n_ok} aggregated, {len(status) - n_ok} failed"]
    jobs = cross_job_table(table)
    if jobs:
        lines.append(jobs)
    for _, r in status[status.status != "ok"].iterrows():
        lines.append(f"   {r.status}: {r.run_dir}" + (f"  ({r.error})" if r.error else ""))
    lines.append(f"[bnnsample] sweep table in {sweep_dir / 'sweep.csv'} ({len(table)} rows); one row per run "
                 f"in {sweep_dir / 'sweep_runs.csv'} ({len(status)} rows); run status in "
                 f"{sweep_dir / 'sweep_status.csv'}")  # fmt: skip
    if not slopes.empty:
        lines.append(f"log-log slopes of |metric| against {STEP_KEY} (95% t interval), "
                     f"also in {sweep_dir / 'slopes.csv'}:")  # fmt: skip
        first = slopes[slopes.group.isin(["theta[0]", PREDICTIVE_GROUP])]
        first = first if not first.empty else slopes
        width = max(len(s) for s in first.line)
        for _, r in first.iterrows():
            head = f"  {r.metric:<17} {r.group:<9} {r.line:<{width}}"
            if r.fit != "ok":
                lines.append(f"{head}  no fit: {r.fit}")
                continue
            lines.append(f"{head}  slope {r.slope:6.2f} [{r.ci_low:6.2f}, {r.ci_high:6.2f}]  ({r.points} pts)")
    for p in plots:
        lines.append(f"[bnnsample] plot {p}")
    lines += [f"[bnnsample] {n}" for n in notes]
    return "\n".join(lines)
