"""The evaluation stage: samples.h5 -> metrics.csv, a printed table, plots/.

Rows of metrics.csv: (group, metric, value, se). ``group`` says what was evaluated: a
marginal ``theta[j]`` of a target with a known posterior, or a predictive ensemble
(``bayes``, ``swa``, ``standard``) of a classifier; ``diagnostics`` holds R-hat/ESS,
temperatures and bounces (evaluate/diagnostics.py) and ``reference`` the comparison with
oracle runs named by ``reference=PATH`` (evaluate/reference.py).
"""

from __future__ import annotations

import logging
import math
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from ..plumbing.errors import UserError, WriteRefused, printable
from ..plumbing.progress import say
from ..rundir import owned, write_file
from ..store import FILENAME, SampleStore, StoreDamaged
from . import metrics as M

log = logging.getLogger("bnnsample")
MAX_MARGINALS = 10
# models whose posterior is Gaussian and known in closed form (cheap to rebuild for evaluation)
EXACT_MODELS = ("gaussian_mean", "noisy_gaussian", "linear_gaussian")


def _exact_posterior(cfg: dict):
    """(mean [d], cov [d, d], potential) for targets whose posterior is Gaussian and known."""
    from omegaconf import OmegaConf

    from ..simulate import target_of

    c = OmegaConf.create(cfg)
    if c.model.name not in EXACT_MODELS:
        return None
    pot = target_of(c, dtype="float64").potential
    exact = pot.exact_posterior()
    if exact is None:
        return None
    return exact[0].numpy(), exact[1].numpy(), pot


def _discrete_stationary(cfg: dict, pot, store: SampleStore):
    """Exact pooled (mean, cov) of the recorded draws of the discrete chain, or None."""
    from ..analysis.stationary import SCHEMES, linear_scheme_moments, recorded_mixture

    scheme = cfg["integrator"]["name"]
    if scheme not in SCHEMES or pot.n_data > 8 or not hasattr(pot, "linear_form"):
        return None
    step_map, offset = SCHEMES[scheme]
    kind = cfg["batching"]["name"]
    h, gamma, n = float(cfg["step_size"]), float(cfg["friction"]), int(cfg["batch_size"])
    partition = None
    if kind in ("sms", "reshuffle") and cfg["batching"]["partition"] == "fixed":
        part = store.read_state().get("schedule/fixed_partition")
        if part is None:  # not stored (or the resume state removed): the exact moments need it
            return None
        partition = part.tolist()
    H_i, r_i, lam0, r0 = (t.numpy() if hasattr(t, "numpy") else t for t in pot.linear_form())
    phases_moments = linear_scheme_moments(
        lambda H, r: step_map(H, r, h, gamma), H_i, r_i, lam0, r0, kind, n, partition
    )
    attrs = store.attrs
    steps = int(attrs["burn_in_steps"]) + int(attrs["thin_steps"]) * np.arange(1, store.n_draws + 1)
    mean, cov = recorded_mixture(phases_moments, steps + offset)
    d = pot.dim
    return mean[:d], cov[:d, :d]


def _density_rows(store: SampleStore, cfg: dict, keep: np.ndarray, exact) -> list[dict]:
    dim = store.theta_dim
    if dim is None or (exact is None and dim > MAX_MARGINALS):
        return []  # no positions stored, or a network's raw weights: no per-coordinate table
    theta = store.theta(keep, coords=slice(0, MAX_MARGINALS))  # only the coordinates tabulated
    rows = []
    disc = _discrete_stationary(cfg, exact[2], store) if exact is not None else None
    for j in range(min(theta.shape[2], MAX_MARGINALS)):
        draws = theta[:, :, j]
        g = f"theta[{j}]"
        m, m_se = M.chain_mean_se(draws) if draws.shape[0] > 1 else (draws.mean(), float("nan"))
        v, v_se = M.chain_var_se(draws) if draws.shape[0] > 1 else (draws.var(), float("nan"))
        rows += [dict(group=g, metric="mean", value=m, se=m_se), dict(group=g, metric="var", value=v, se=v_se)]
        if exact is not None:
            mu, sd = float(exact[0][j]), math.sqrt(float(exact[1][j, j]))
            flat = draws.reshape(-1)
            # W1 with its Monte Carlo s.e. over chains (one sort): the sweep plots draw the floor
            w1, w1_se = (M.wasserstein1_normal_with_se(draws, mu, sd) if draws.shape[0] > 1
                         else (M.wasserstein1_normal(flat, mu, sd), float("nan")))  # fmt: skip
            rows += [
                dict(group=g, metric="posterior_mean", value=mu, se=0.0),
                dict(group=g, metric="posterior_var", value=sd**2, se=0.0),
                dict(group=g, metric="mean_error", value=m - mu, se=m_se),
                dict(group=g, metric="var_error", value=v - sd**2, se=v_se),
                dict(group=g, metric="relative_var_error", value=M.relative_variance_error(v, sd**2), se=v_se / sd**2),
                dict(group=g, metric="w1", value=w1, se=w1_se),
                dict(group=g, metric="w2", value=M.wasserstein2_normal(flat, mu, sd), se=float("nan")),
                dict(group=g, metric="kolmogorov", value=M.kolmogorov_distance_normal(flat, mu, sd), se=float("nan")),
            ]
        if disc is not None:
            dm, dv = float(disc[0][j]), float(disc[1][j, j])
            rows += [
                dict(group=g, metric="scheme_stationary_mean", value=dm, se=0.0),
                dict(group=g, metric="scheme_stationary_var", value=dv, se=0.0),
                dict(group=g, metric="mean_z_vs_scheme", value=(m - dm) / m_se, se=float("nan")),
                dict(group=g, metric="var_z_vs_scheme", value=(v - dv) / v_se, se=float("nan")),
            ]
    return rows


def _classification_rows(store: SampleStore, keep: np.ndarray) -> tuple[list[dict], dict]:
    y = store.array("targets")
    per_run = store.predictive_mean(keep)
    ensembles = {}
    if per_run is not None and len(per_run):
        ensembles["bayes"] = per_run.mean(axis=0)
    for name, arr in store.group("baselines").items():  # the runs the Bayesian predictive keeps: equal ensembles
        ensembles[name] = np.asarray(arr)[keep].mean(axis=0)
    rows = []
    for name, probs in ensembles.items():
        for metric, value in M.classification_metrics(probs.astype(np.float64), y).items():
            rows.append(dict(group=name, metric=metric, value=value, se=float("nan")))
    return rows, ensembles


def _regression_rows(store: SampleStore, cfg: dict, keep: np.ndarray) -> list[dict]:
    """RMSE and NLL (M.regression_metrics) in ORIGINAL target units of a regression run: the
    stored targets are in original units and so are the model's predictions (``predict``);
    the noise variance, fitted on standardised targets, becomes noise_var * y_std^2. The
    predictive means come from the store when it has them, else from the stored theta
    through the rebuilt potential."""
    import torch

    from ..simulate import target_of

    target = target_of(cfg, dtype="float64")
    data, pot = target.data, target.potential
    if data.task != "regression":
        return []
    if store.has_predictive:
        means = (block[..., 0] for _, block in store.predictive_blocks(keep))  # a block of draws at a time
    elif store.theta_dim is not None:
        means = (pot.predict(torch.as_tensor(theta, dtype=torch.float64))[..., 0].numpy()
                 for theta in store.theta_blocks(keep))  # fmt: skip
    else:
        return []
    noise_var = float(pot.noise_var) * float(data.extras.get("y_std", 1.0)) ** 2
    y = data.y_test.double().numpy()
    return [dict(group="bayes", metric=k, value=v, se=float("nan"))
            for k, v in M.regression_metrics_streamed(means, y, noise_var).items()]  # fmt: skip


_FROM_CONFIG = object()


def evaluate_run(run_dir: Path, echo: bool = False, reference=_FROM_CONFIG) -> pd.DataFrame:
    """Evaluate one run directory; writes metrics.csv and plots/, returns the table.

    ``reference`` (default: the run's config key ``reference``) names oracle runs to compare
    with (evaluate/reference.py). A reference that is missing or does not match raises
    UserError after metrics.csv has been written without the reference rows."""
    run_dir = Path(run_dir)
    from ..plumbing.progress import bar
    from .diagnostics import diagnostic_rows
    from .reference import reference_rows

    ref_error = None
    notes: list[str] = []
    # phases: marginals and predictive metrics, reference, diagnostics, plots
    phases = bar(4, f"evaluating {run_dir.name}", "phase")
    with SampleStore(run_dir / FILENAME) as store:
        cfg = store.config()
        ref_value = cfg.get("reference") if reference is _FROM_CONFIG else reference
        diverged = store.diverged()
        keep = ~diverged
        rows = [
            dict(group="run", metric="chains", value=len(diverged), se=float("nan")),
            dict(group="run", metric="diverged_chains", value=int(diverged.sum()), se=float("nan")),
            dict(group="run", metric="draws_per_chain", value=store.n_draws, se=float("nan")),
        ]
        exact = _exact_posterior(cfg) if store.theta_dim is not None else None
        if keep.any() and store.n_draws > 0:
            rows += _density_rows(store, cfg, keep, exact)
            targets = store.array("targets")
            if targets is not None and np.issubdtype(targets.dtype, np.floating):
                rows += _regression_rows(store, cfg, keep)
                ensembles = {}
            else:
                crow, ensembles = _classification_rows(store, keep) if targets is not None else ([], {})
                rows += crow
                if targets is not None and keep.sum() >= 2:
                    # independent runs (chains) pooled into disjoint ensembles of 1, 2, 4, ...
                    from .ensembles import ensemble_rows

                    rows += ensemble_rows(store)
            phases.update()
            try:
                rows += reference_rows(store, ref_value, keep)
            except UserError as e:
                ref_error = e
            phases.update()
            drows, notes = diagnostic_rows(store, cfg, keep, plots_dir=run_dir / "plots")
            rows += drows
            phases.update()
        else:
            ensembles = {}
            if ref_value is not None:
                notes.append("reference comparison skipped: no kept chain or no draw")
        table = pd.DataFrame(rows, columns=["group", "metric", "value", "se"])
        write_file(run_dir / "metrics.csv", table.to_csv(index=False))
        from .plots import plot_run

        try:
            plot_run(run_dir / "plots", store, keep, ensembles, exact)
        except WriteRefused:  # the disk refused (metrics.csv is written): one line and stop
            raise
        except Exception as e:  # plots must never cost the metrics
            log.warning("plotting failed: %s", e)
        phases.update(phases.total - phases.n)
        phases.close()
    if echo:
        from .summary import render

        print(render(table, notes, cfg))
        say(f"all metrics in {run_dir / 'metrics.csv'}, plots in {run_dir / 'plots'}")
    if ref_error is not None:
        raise ref_error
    return table


def _error(msg: str) -> None:
    """An error of `evaluate`: one line, on stderr, control characters escaped."""
    import sys

    from ..plumbing.progress import message

    sys.stdout.flush()
    message(f"bnnsample: error: {printable(msg)}", sys.stderr)


def damage_message(e: BaseException) -> str:
    """What an exception raised while reading a store says about the store, in one line."""
    text = (str(e).strip().splitlines() or [type(e).__name__])[0]
    if "filter returned failure" in text or "checksum" in text.lower():
        return f"damaged {FILENAME}: a checksum (Fletcher-32) does not match ({text}); its metrics are not computed"
    if isinstance(e, (StoreDamaged, OSError)):
        return f"damaged or unreadable {FILENAME} ({text})"
    return f"incomplete {FILENAME} ({type(e).__name__}: {text})"


def metrics_up_to_date(run_dir: Path, reference) -> bool:
    """metrics.csv was written after the last change of a complete samples.h5, against the
    same ``reference``, and is whole: it parses and its draws_per_chain row matches the store
    (an empty or truncated file is never taken as up to date)."""
    h5, csv = Path(run_dir) / FILENAME, Path(run_dir) / "metrics.csv"
    try:
        if csv.stat().st_mtime_ns < h5.stat().st_mtime_ns:
            return False
        table = pd.read_csv(csv)
        rows = table[(table.group == "run") & (table.metric == "draws_per_chain")]
        with SampleStore(h5) as s:
            return (
                s.complete
                and len(rows) == 1
                and int(rows.value.iloc[0]) == s.n_draws
                and s.config().get("reference") == reference
            )
    except Exception:  # noqa: BLE001  (missing, empty, truncated or foreign files: evaluate again)
        return False


def find_runs(path: Path) -> list[Path]:
    if (path / FILENAME).exists():
        return [path]
    return sorted(p.parent for p in path.rglob(FILENAME))


def _reference_argument(paths: list) -> tuple[list[Path], object]:
    """Split ``reference=VALUE`` (a path, or a YAML list ``[a,b]``) off the evaluate arguments."""
    reference, rest = _FROM_CONFIG, []
    for p in paths:
        if str(p).startswith("reference="):
            text = str(p).split("=", 1)[1]
            try:
                reference = yaml.safe_load(text) or None
            except yaml.YAMLError as e:
                why = str(getattr(e, "problem", None) or type(e).__name__)
                raise UserError(f"reference={text}: not a path or a list [A,B] ({why})") from None
            if not isinstance(reference, (str, list, type(None))) or (
                isinstance(reference, list) and not all(isinstance(r, str) for r in reference)
            ):
                raise UserError(f"reference={text}: not a path or a list [A,B] of paths")
        else:
            rest.append(Path(p))
    return rest, reference


def evaluate_paths(paths: list[Path]) -> list[Path]:
    """Evaluate every run under the given paths; returns the runs that could not be read.
    A path that is not itself a run (a Hydra multirun directory) is then aggregated into
    PATH/sweep.csv, slopes and plots (evaluate/sweep.py); its jobs that left no samples.h5
    count as failed. An argument ``reference=PATH`` (or ``reference=[A,B]``) replaces the
    runs' own ``reference`` key for this evaluation."""
    from .sweep import aggregate_sweep, job_dirs

    try:
        paths, reference = _reference_argument(paths)
    except UserError as e:
        _error(str(e))
        return [Path("reference")]
    if not paths:
        _error("evaluate needs a RUN_DIR besides reference=PATH")
        return [Path("reference")]
    from ..plumbing.progress import bar

    failed = []
    for path in paths:
        runs = find_runs(path)
        is_sweep = path.is_dir() and runs != [path]
        jobs = job_dirs(path) if is_sweep else []
        if not runs and not jobs:
            _error(f"{path}: no {FILENAME} found")
            failed.append(path)
        errors = {}
        # a sweep prints one cross-job table at the end (aggregate_sweep), not every run's
        ticks = bar(len(runs), f"evaluating {printable(str(path))}", "run", enabled_here=is_sweep)
        for run in runs:
            try:
                if not is_sweep:
                    print(f"== {printable(str(run))}", flush=True)
                with owned(run):
                    evaluate_run(run, echo=not is_sweep, reference=reference)
            except WriteRefused:  # the disk refused a write: the other runs would meet it too
                ticks.close()
                raise
            except UserError as e:
                _error(f"{run}: {e}")
                failed.append(run)
                errors[run] = str(e)
            except (OSError, KeyError, ValueError) as e:
                msg = damage_message(e)
                _error(f"{run}: {msg}")
                failed.append(run)
                errors[run] = msg
            ticks.update()
        ticks.close()
        if jobs:
            result = aggregate_sweep(path, errors)
            failed += [Path(r) for r in result.failed if Path(r) not in failed]
    return failed
