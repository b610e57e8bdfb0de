"""Reference posteriors stored as runs: ``reference=PATH`` compares a run with oracle runs.

An oracle run is an ordinary ``bnnsample run`` (e.g. ``experiment=franzese2021_oracle``:
full-batch adaptive SGHMC, small step, heavy thinning; or ``experiment=sekkat2023_oracle``:
full-data AdL) whose samples.h5 is reused by later runs through the top-level key
``reference``. PATH is a samples.h5, a run directory holding one, or a directory whose
subdirectories hold runs (a Hydra multirun of independent oracle runs, e.g. seeds 0..4); a
list of such paths is allowed. Every samples.h5 found is one independent reference run.

Rows added to metrics.csv (group, metric):

* ``bayes, avg_kolmogorov``: franzese2021 §5 and App. F.2, the mean over test points t of the
  two-sample Kolmogorov distance sup_x |F_run,t(x) - F_ref,t(x)| between the run's and a
  reference's predictive marginals (``metrics.average_kolmogorov_distance``), averaged over
  the R reference runs; ``se`` is the standard deviation over references / sqrt(R) (nan for
  R = 1). The run's draws are pooled over its kept chains, each reference's over its kept
  chains. DECISION (the paper leaves it open): the scalar per test point is the regression
  mean f(x_t) (not a noisy y_t); for classification every class probability p_k(x_t) is one
  marginal and the average runs over all (test point, class) pairs (for two classes both give
  the same distance).
* ``bayes, avg_kolmogorov_floor``: its value for two exact i.i.d. samplers,
  0.8687 sqrt((n + m)/(n m)) averaged over references (n, m = pooled draws): a method cannot
  go below it at these sample sizes.
* ``bayes, class_prob_bias_ref``: classification only, paulin2025's bias of the test-set
  probability of the true class against the pooled reference ensemble
  (``metrics.class_probability_bias``).
* ``reference, self_distance_mean | self_distance_low | self_distance_high``: with R >= 2
  reference runs, franzese's self-distance band, the mean and the 5% / 95% quantiles of
  ``avg_kolmogorov`` over the R (R - 1)/2 pairs of reference runs
  (``metrics.self_distance_band``). A run inside [low, high] is indistinguishable from the
  oracle at this sample size.
* ``reference, references | reference_draws``: R and the pooled reference draws.
* When both files store theta of the same dimension d (pooled references):
  ``theta[j], w1_ref | w2_ref | kolmogorov_ref | l1_error_ref`` for the first coordinates
  (scipy's ``wasserstein_distance``, ``metrics.wasserstein2_1d``, ks_2samp, sekkat2023 eq. 44
  500-bin L1 histogram error over the pooled range), and ``reference, w1_mean | w2_mean``
  (averaged over up to MAX_COORDS evenly spaced coordinates) and ``reference,
  cov_diag_error`` (sekkat2023 §3.4: (1/d) sum_i |C_ii - C_ref,ii| / C_ref,ii, the reference
  being full-data AdL). Stored theta of more than MAX_THETA_NUMBERS numbers (a large network's
  weights) is not compared.

A reference that does not fit the run (another data set or test set, other predictive
shape, nothing to compare) or cannot be read raises ``UserError`` with one line naming
``reference``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from ..errors import UserError
from ..store import FILENAME, SampleStore
from . import metrics as M
from .diagnostics import metric_row as _row

KOLMOGOROV_MEAN = math.sqrt(math.pi / 2) * math.log(2)  # 0.8687, mean of the Kolmogorov law
MAX_MARGINALS = 10  # per-coordinate rows
MAX_COORDS = 1000  # coordinates averaged in w1_mean / w2_mean
MAX_THETA_NUMBERS = 2**26  # larger stored theta (network weights) is not compared


@dataclass
class RunDraws:
    """The kept (non-diverged) draws of one run, pooled over chains."""

    path: Path
    dataset: dict
    targets: np.ndarray | None
    predictive: np.ndarray | None  # (draws, n_test, K)
    theta: np.ndarray | None  # (draws, d)
    complete: bool


def _dataset_cfg(attrs) -> dict:
    cfg = yaml.safe_load(attrs["config"]) if "config" in attrs else {}
    ds = dict(cfg.get("dataset") or {})
    ds.pop("description", None)
    return ds


def draws_of(store: SampleStore, keep: np.ndarray | None = None) -> RunDraws:
    """Pool the kept chains of an open store: predictive (S, n_test, K) as stored (float32),
    theta (S, d) unless it holds more than MAX_THETA_NUMBERS numbers (a network's weights)."""
    if keep is None:
        keep = ~store.diverged()
    pred = store.predictive()
    big = store.theta_dim is not None and len(keep) * store.n_draws * store.theta_dim > MAX_THETA_NUMBERS
    theta = None if big else store.theta()

    def pool(a):
        return a[keep].reshape(-1, *a.shape[2:])

    return RunDraws(
        path=store.path,
        dataset=_dataset_cfg(store.attrs),
        targets=store.array("targets"),
        predictive=pool(pred) if pred is not None and pred.shape[1] > 0 else None,
        theta=pool(theta).astype(np.float64) if theta is not None and theta.shape[1] > 0 else None,
        complete=store.complete,
    )


def resolve_reference_paths(value) -> list[Path]:
    """The samples.h5 files named by ``reference`` (a path or a list of paths); each path is a
    samples.h5, a run directory, or a directory of runs. Missing -> UserError (one line)."""
    if value is None:
        return []
    items = [value] if isinstance(value, (str, Path)) else list(value)
    if not items:
        return []
    out = []
    for item in items:
        p = Path(str(item)).expanduser()
        if p.is_file():
            out.append(p)
        elif (p / FILENAME).is_file():
            out.append(p / FILENAME)
        elif p.is_dir() and (found := sorted(p.rglob(FILENAME))):
            out += found
        else:
            raise UserError(
                f"reference={item}: no {FILENAME} there (expected a samples.h5, a run directory "
                "holding one, or a directory of runs, e.g. one made by `bnnsample run "
                "experiment=franzese2021_oracle ...`)"
            )
    return out


def check_reference(cfg) -> list[Path]:
    """Before sampling: the ``reference`` of a run config (DictConfig or dict) exists, is
    readable and was made on the same data set; UserError (one line) otherwise. Cheap (reads
    attributes only); the full check (test set, shapes) runs at evaluation."""
    value = cfg.get("reference")
    if value is not None and not isinstance(value, (str, Path)):
        value = list(value)
    paths = resolve_reference_paths(value)
    if not paths:
        return []
    from omegaconf import OmegaConf

    ds = cfg.get("dataset")
    ds = dict(OmegaConf.to_container(ds, resolve=True) if OmegaConf.is_config(ds) else (ds or {}))
    ds.pop("description", None)
    for p in paths:
        try:
            with SampleStore(p) as s:
                ref_ds = _dataset_cfg(s.attrs)
        except (OSError, KeyError) as e:
            raise UserError(f"reference={p}: unreadable ({type(e).__name__}: {e})") from None
        diff = _first_difference(ds, ref_ds)
        if diff:
            raise UserError(f"reference={p}: another data set than the run's ({diff})")
    return paths


def load_reference(path: Path) -> RunDraws:
    try:
        with SampleStore(path) as s:
            ref = draws_of(s)
    except (OSError, KeyError) as e:
        raise UserError(f"reference={path}: unreadable ({type(e).__name__}: {e})") from None
    if ref.predictive is None and ref.theta is None:
        raise UserError(f"reference={path}: holds no finite draws (no kept chain or no draw written)")
    return ref


def _first_difference(a: dict, b: dict) -> str:
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            return f"dataset.{k}: run {a.get(k)!r}, reference {b.get(k)!r}"
    return ""


def check_match(run: RunDraws, ref: RunDraws) -> None:
    """UserError (naming ``reference`` and why) unless ref was made on the run's data set and
    test set and gives something to compare."""
    where = f"reference={ref.path}"
    diff = _first_difference(run.dataset, ref.dataset)
    if diff:
        raise UserError(f"{where}: another data set than the run's ({diff})")
    if (run.targets is None) != (ref.targets is None) or (
        run.targets is not None
        and (run.targets.shape != ref.targets.shape or not np.allclose(run.targets, ref.targets))
    ):
        raise UserError(f"{where}: its test set differs from the run's (test targets differ)")
    if run.predictive is not None:
        if ref.predictive is None:
            raise UserError(
                f"{where}: stores no predictive draws, the run does (test set {run.predictive.shape[1:]})"
            )
        if run.predictive.shape[1:] != ref.predictive.shape[1:]:
            raise UserError(
                f"{where}: predictive shape (n_test, outputs) {ref.predictive.shape[1:]} "
                f"differs from the run's {run.predictive.shape[1:]}"
            )
    elif run.theta is None or ref.theta is None or run.theta.shape[1] != ref.theta.shape[1]:
        raise UserError(
            f"{where}: nothing to compare (the run has no predictive draws and the two files do not "
            "both store theta of the same dimension)"
        )


def _marginals(pred: np.ndarray) -> np.ndarray:
    """(S, n_test, K) -> (S, n_test * K): every (test point, output) is one scalar marginal."""
    return pred.reshape(pred.shape[0], -1)


def predictive_rows(run: RunDraws, refs: list[RunDraws]) -> list[dict]:
    """avg_kolmogorov (franzese2021 §5 and App. F.2), its exact-sampler floor, the self-distance band and,
    for classification, the class-probability bias against the pooled references."""
    if run.predictive is None:
        return []
    a = _marginals(run.predictive)
    n = a.shape[0]
    d = np.array([M.average_kolmogorov_distance(a, _marginals(r.predictive)) for r in refs])
    floor = np.mean(
        [KOLMOGOROV_MEAN * math.sqrt((n + m) / (n * m)) for m in (r.predictive.shape[0] for r in refs)]
    )
    se = float(d.std(ddof=1) / math.sqrt(d.size)) if d.size > 1 else float("nan")
    rows = [
        _row(group="bayes", metric="avg_kolmogorov", value=float(d.mean()), se=se),
        _row(group="bayes", metric="avg_kolmogorov_floor", value=float(floor)),
    ]
    if len(refs) >= 2:
        band = M.self_distance_band([_marginals(r.predictive) for r in refs])
        rows += [_row(group="reference", metric=f"self_distance_{k}", value=band[k])
                 for k in ("mean", "low", "high")]  # fmt: skip
    y = run.targets
    if y is not None and not np.issubdtype(y.dtype, np.floating) and run.predictive.shape[2] > 1:
        ref_probs = np.concatenate([r.predictive for r in refs]).mean(axis=0)
        bias = M.class_probability_bias(run.predictive.mean(axis=0), ref_probs, y)
        rows.append(_row(group="bayes", metric="class_prob_bias_ref", value=bias))
    return rows


def theta_rows(run: RunDraws, refs: list[RunDraws]) -> list[dict]:
    """Distances between the run's and the pooled references' theta marginals (same dim)."""
    if run.theta is None or any(r.theta is None or r.theta.shape[1] != run.theta.shape[1] for r in refs):
        return []
    a, b = run.theta, np.concatenate([r.theta for r in refs])
    dim = a.shape[1]
    rows = []
    for j in range(min(dim, MAX_MARGINALS)):
        g = f"theta[{j}]"
        rows += [
            _row(group=g, metric="w1_ref", value=M.wasserstein1(a[:, j], b[:, j])),
            _row(group=g, metric="w2_ref", value=M.wasserstein2_1d(a[:, j], b[:, j])),
            _row(group=g, metric="kolmogorov_ref", value=M.kolmogorov_distance(a[:, j], b[:, j])),
        ]
        if np.ptp(np.r_[a[:, j], b[:, j]]) > 0:
            l1 = M.l1_histogram_error(a[:, j], b[:, j], bins=500)
            rows.append(_row(group=g, metric="l1_error_ref", value=l1))
    coords = np.unique(np.linspace(0, dim - 1, min(dim, MAX_COORDS)).round().astype(int))
    rows += [
        _row(group="reference", metric="w1_mean", value=float(np.mean([M.wasserstein1(a[:, j], b[:, j]) for j in coords])),
             se=float("nan")),
        _row(group="reference", metric="w2_mean",
             value=float(np.mean([M.wasserstein2_1d(a[:, j], b[:, j]) for j in coords]))),
    ]  # fmt: skip
    if a.shape[0] > 1 and b.shape[0] > 1 and np.all(b.var(axis=0, ddof=1) > 0):
        err = M.relative_covariance_diagonal_error(a.var(axis=0, ddof=1), b.var(axis=0, ddof=1))
        rows.append(_row(group="reference", metric="cov_diag_error", value=err))
    return rows


def reference_rows(store: SampleStore, ref_paths, keep: np.ndarray | None = None) -> list[dict]:
    """metrics.csv rows (group, metric, value, se) comparing the open run ``store`` (its chains
    ``keep``, default the non-diverged ones) with the reference runs ``ref_paths`` (the value
    of ``reference``: a path or a list, see ``resolve_reference_paths``). Raises UserError when
    a reference is missing, unreadable or does not match the run. Empty when no reference."""
    paths = resolve_reference_paths(ref_paths)
    if not paths:
        return []
    run = draws_of(store, keep)
    refs = [load_reference(p) for p in paths]
    for ref in refs:
        check_match(run, ref)
    m = sum((r.predictive if r.predictive is not None else r.theta).shape[0] for r in refs)
    rows = [
        _row(group="reference", metric="references", value=len(refs)),
        _row(group="reference", metric="reference_draws", value=m),
        _row(group="reference", metric="incomplete_references", value=sum(not r.complete for r in refs),
             se=float("nan")),
    ]  # fmt: skip
    return rows + predictive_rows(run, refs) + theta_rows(run, refs)
