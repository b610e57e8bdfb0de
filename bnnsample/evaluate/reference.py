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
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..config import first_difference, reference_paths
from ..plumbing.errors import UserError
from ..store import SampleStore, stored_dataset
from . import metrics as M
from .diagnostics import metric_row as _row

KOLMOGOROV_MEAN = math.sqrt(math.pi / 2) * math.log(2)  # 0.8687, mean of the Kolmogorov law
MAX_MARGINALS = 10  # per-coordinate rows
MAX_COORDS = 1000  # coordinates averaged in w1_mean / w2_mean
MAX_THETA_NUMBERS = 2**26  # larger stored theta (network weights) is not compared
# draws held at a time (run and references together): all draws of a block of test points or
# coordinates. Every block reads each chunk of the stores once, so it is larger than
# store.READ_VALUES (fewer passes); 2**25 float32 numbers are 128 MB
COMPARE_VALUES = 2**25


@dataclass
class RunDraws:
    """The kept (non-diverged) draws of one run, pooled over chains, read from its open store
    a few test points or coordinates at a time (``points``, ``coords``): evaluation memory
    does not grow with the number of draws."""

    path: Path
    dataset: dict
    targets: np.ndarray | None
    store: SampleStore
    keep: np.ndarray
    draws: int  # pooled draws: kept chains x draws per chain
    predictive_shape: tuple | None  # (n_test, K) when the store holds predictive draws
    theta_dim: int | None  # when it stores theta of at most MAX_THETA_NUMBERS numbers
    complete: bool

    def points(self, start: int, stop: int) -> np.ndarray:
        """Predictive draws at test points start:stop as (draws, (stop - start) * K) marginals."""
        pred = self.store.predictive_points(self.keep, start, stop)
        return pred.reshape(pred.shape[0], -1)

    def coords(self, coords) -> np.ndarray:
        """theta at ``coords`` (slice or increasing indices), pooled: (draws, len(coords)) float64."""
        t = self.store.theta(self.keep, coords=coords)
        return t.reshape(-1, t.shape[2]).astype(np.float64)

    def mean_probs(self) -> np.ndarray:
        """The predictive averaged over all pooled draws, (n_test, K) float64."""
        return self.store.predictive_mean(self.keep).mean(axis=0)


def draws_of(store: SampleStore, keep: np.ndarray | None = None) -> RunDraws:
    """The kept chains of an open store as RunDraws: predictive when stored, theta unless it
    holds more than MAX_THETA_NUMBERS numbers (a network's weights)."""
    if keep is None:
        keep = ~store.diverged()
    keep = np.asarray(keep, dtype=bool)
    draws = int(keep.sum()) * store.n_draws
    d = store.theta_dim
    small = d is not None and len(keep) * store.n_draws * d <= MAX_THETA_NUMBERS
    return RunDraws(
        path=store.path,
        dataset=stored_dataset(store),
        targets=store.array("targets"),
        store=store,
        keep=keep,
        draws=draws,
        predictive_shape=tuple(store.f["predictive"].shape[2:]) if store.has_predictive and draws else None,
        theta_dim=d if small and draws else None,
        complete=store.complete,
    )


resolve_reference_paths = reference_paths  # config.reference_paths: resolved there, before torch loads


def load_reference(path: Path, stack: ExitStack) -> RunDraws:
    """The reference run at ``path``, its store left open in ``stack`` (read as needed)."""
    try:
        ref = draws_of(stack.enter_context(SampleStore(path)))
    except (OSError, KeyError) as e:
        raise UserError(f"reference={path}: unreadable ({type(e).__name__}: {e})") from None
    if ref.predictive_shape is None and ref.theta_dim is None:
        raise UserError(f"reference={path}: holds no finite draws (no kept chain or no draw written)")
    return ref


def check_match(run: RunDraws, ref: RunDraws) -> None:
    """UserError (naming ``reference`` and why) unless ref was made on the run's data set and
    test set and gives something to compare."""
    where = f"reference={ref.path}"
    diff = first_difference(run.dataset, ref.dataset)
    if diff:
        raise UserError(f"{where}: another data set than the run's ({diff})")
    if (run.targets is None) != (ref.targets is None) or (
        run.targets is not None
        and (run.targets.shape != ref.targets.shape or not np.allclose(run.targets, ref.targets))
    ):
        raise UserError(f"{where}: its test set differs from the run's (test targets differ)")
    if run.predictive_shape is not None:
        if ref.predictive_shape is None:
            raise UserError(f"{where}: stores no predictive draws, the run does (test set {run.predictive_shape})")
        if run.predictive_shape != ref.predictive_shape:
            raise UserError(
                f"{where}: predictive shape (n_test, outputs) {ref.predictive_shape} "
                f"differs from the run's {run.predictive_shape}"
            )
    elif run.theta_dim is None or ref.theta_dim is None or run.theta_dim != ref.theta_dim:
        raise UserError(
            f"{where}: nothing to compare (the run has no predictive draws and the two files do not "
            "both store theta of the same dimension)"
        )


def _blocks(total: int, draws: int, width: int = 1):
    """Consecutive (start, stop) of ``total`` columns, each block of ``draws`` rows holding at
    most COMPARE_VALUES numbers (columns of ``width`` numbers each, one column at least)."""
    per = max(1, COMPARE_VALUES // max(1, draws * width))
    return [(j, min(total, j + per)) for j in range(0, total, per)]


def predictive_rows(run: RunDraws, refs: list[RunDraws]) -> list[dict]:
    """avg_kolmogorov (franzese2021 §5 and App. F.2), its exact-sampler floor, the self-distance band and,
    for classification, the class-probability bias against the pooled references. The
    distances are summed over blocks of test points (all draws of a few test points at a time)."""
    if run.predictive_shape is None:
        return []
    n_test, K = run.predictive_shape
    pairs = [(r, s) for r in range(len(refs)) for s in range(r + 1, len(refs))] if len(refs) >= 2 else []
    to_run, between = np.zeros(len(refs)), np.zeros(len(pairs))
    for start, stop in _blocks(n_test, run.draws + sum(r.draws for r in refs), K):
        a, bs = run.points(start, stop), [r.points(start, stop) for r in refs]
        to_run += [M.marginal_kolmogorov_distances(a, b).sum() for b in bs]
        between += [M.marginal_kolmogorov_distances(bs[r], bs[s]).sum() for r, s in pairs]
    d = to_run / (n_test * K)  # average_kolmogorov_distance to each reference
    n = run.draws
    floor = np.mean([KOLMOGOROV_MEAN * math.sqrt((n + r.draws) / (n * r.draws)) for r in refs])
    se = float(d.std(ddof=1) / math.sqrt(d.size)) if d.size > 1 else float("nan")
    rows = [
        _row(group="bayes", metric="avg_kolmogorov", value=float(d.mean()), se=se),
        _row(group="bayes", metric="avg_kolmogorov_floor", value=float(floor)),
    ]
    if pairs:
        band = M.distance_band(between / (n_test * K))
        rows += [_row(group="reference", metric=f"self_distance_{k}", value=band[k])
                 for k in ("mean", "low", "high")]  # fmt: skip
    y = run.targets
    if y is not None and not np.issubdtype(y.dtype, np.floating) and K > 1:
        ref_probs = sum(r.draws * r.mean_probs() for r in refs) / sum(r.draws for r in refs)
        bias = M.class_probability_bias(run.mean_probs(), ref_probs, y)
        rows.append(_row(group="bayes", metric="class_prob_bias_ref", value=bias))
    return rows


def theta_rows(run: RunDraws, refs: list[RunDraws]) -> list[dict]:
    """Distances between the run's and the pooled references' theta marginals (same dim), read
    a block of coordinates at a time."""
    if run.theta_dim is None or any(r.theta_dim != run.theta_dim for r in refs):
        return []
    dim = run.theta_dim
    averaged = set(np.unique(np.linspace(0, dim - 1, min(dim, MAX_COORDS)).round().astype(int)).tolist())
    rows, w1, w2, var_a, var_b = [], [], [], [], []
    for start, stop in _blocks(dim, run.draws + sum(r.draws for r in refs)):
        cols = slice(start, stop)
        a, b = run.coords(cols), np.concatenate([r.coords(cols) for r in refs])
        var_a.append(a.var(axis=0, ddof=1) if a.shape[0] > 1 else None)
        var_b.append(b.var(axis=0, ddof=1) if b.shape[0] > 1 else None)
        for i, j in enumerate(range(start, stop)):
            if j < MAX_MARGINALS:
                rows += _marginal_rows(f"theta[{j}]", a[:, i], b[:, i])
            if j in averaged:
                w1.append(M.wasserstein1(a[:, i], b[:, i]))
                w2.append(M.wasserstein2_1d(a[:, i], b[:, i]))
    rows += [
        _row(group="reference", metric="w1_mean", value=float(np.mean(w1)), se=float("nan")),
        _row(group="reference", metric="w2_mean", value=float(np.mean(w2))),
    ]
    if var_a[0] is not None and var_b[0] is not None:
        va, vb = np.concatenate(var_a), np.concatenate(var_b)
        if np.all(vb > 0):
            rows.append(_row(group="reference", metric="cov_diag_error",
                             value=M.relative_covariance_diagonal_error(va, vb)))  # fmt: skip
    return rows


def _marginal_rows(group: str, a: np.ndarray, b: np.ndarray) -> list[dict]:
    rows = [
        _row(group=group, metric="w1_ref", value=M.wasserstein1(a, b)),
        _row(group=group, metric="w2_ref", value=M.wasserstein2_1d(a, b)),
        _row(group=group, metric="kolmogorov_ref", value=M.kolmogorov_distance(a, b)),
    ]
    if np.ptp(np.r_[a, b]) > 0:
        rows.append(_row(group=group, metric="l1_error_ref", value=M.l1_histogram_error(a, b, bins=500)))
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
    with ExitStack() as stack:
        refs = [load_reference(p, stack) for p in paths]
        for ref in refs:
            check_match(run, ref)
        rows = [
            _row(group="reference", metric="references", value=len(refs)),
            _row(group="reference", metric="reference_draws", value=sum(r.draws for r in refs)),
            _row(group="reference", metric="incomplete_references", value=sum(not r.complete for r in refs),
                 se=float("nan")),
        ]  # fmt: skip
        return rows + predictive_rows(run, refs) + theta_rows(run, refs)
