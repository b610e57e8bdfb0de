"""Sampler diagnostics of one run for metrics.csv: R-hat and ESS, temperatures, bounces, traces.

Rows (group, metric, value, se):

* ``diagnostics, rhat_max | ess_bulk_min | ess_tail_min`` over theta coordinates (up to
  MAX_COORDS evenly spaced ones for networks, fewer when chains x draws x MAX_COORDS exceeds
  RHAT_VALUES, so that evaluation memory stays flat in the draws) and ``theta[j], rhat | ess_bulk | ess_tail`` for
  the first FIRST_COORDS. R-hat is arviz's rank-normalized split R-hat (Vehtari et al. 2021),
  ESS arviz's bulk and tail ESS, over the kept chains. paulin2025 Fig. 3 uses the
  classic Gelman-Rubin statistic on the training loss / test NLL and its code takes no square
  root (R is the squared PSRF); the rank-normalized version here is on the PSRF scale (values
  near 1; > 1.01 is the usual warning level).
* ``diagnostics, rhat_<stat> | ess_bulk_<stat> | ess_tail_<stat>`` for per-draw scalars of the
  predictive: classification ``test_nll`` (-(1/n) sum_t max(log p_draw(y_t | x_t), -100)) and
  ``true_class_prob``; regression ``test_mse`` (mean squared error of the draw's mean).
* ``diagnostics, kinetic_temperature``: mean over kept chains and draws of the recorded
  |v|^2 / d (unit mass; 1 at unit temperature; schemes whose v is not the unit-mass momentum,
  e.g. sghmc_adaptive, record it too but it is not a temperature there).
* ``diagnostics, configurational_temperature``: T_conf = <|grad U|^2> / <lap U> (Rugh 1997;
  Butler, Ayton, Jepps & Evans 1998, who use it to verify Monte Carlo codes: it equals 1 for
  exact draws of exp(-U), by integration by parts), with the full-data gradient and the exact
  Laplacian (d Hessian-vector products for d <= EXACT_LAPLACIAN_DIM, else Hutchinson's
  estimator with PROBES Rademacher probes), at the stored theta, up to MAX_POINTS draws.
  ``configurational_temperature_virial``: <x . grad U> / d (generalized equipartition; force
  only, the form Leimkuhler, Matthews & Vlaar 2019 use for neural networks). Both are computed
  at evaluation time on the target the chains sampled (the localized one under init=swa), and
  skipped with a note when the target is too large (n_data * d * cost > BUDGET), the gradient
  is itself noisy (the Rugh form only), or the potential cannot be rebuilt. se: standard
  error over chains (per-chain estimates; nan with one chain). Elastic bounces add a boundary
  term to both identities (noted when there were bounces).
* ``diagnostics, bounces_total``: elastic bounces (reflected coordinates) over all kept chains.
  (Diverged chains are counted in ``run, diverged_chains``.)

Traces: ``plots/diagnostics.png``, every per-draw diagnostic and per-draw predictive
statistic against the draw index, chains overlaid.
"""

from __future__ import annotations

import logging
import math
import warnings
from pathlib import Path

import numpy as np

from ..store import SampleStore

log = logging.getLogger("bnnsample")

FIRST_COORDS = 3
MAX_COORDS = 100  # R-hat/ESS coordinates (arviz costs ~4 ms per coordinate)
RHAT_VALUES = 2**21  # and at most this many stored numbers (chains x draws x coordinates)
MAX_POINTS = 4000
EXACT_LAPLACIAN_DIM = 32
PROBES = 16
BUDGET = 3e9  # ~ n_data * d * (1 + 2 probes) * points multiply-adds allowed for temperatures
CHUNK = 256
MAX_TRACE_CHAINS = 16
MAX_THETA_NUMBERS = 2**26  # larger stored theta is not read


def metric_row(group: str, metric: str, value, se=float("nan")) -> dict:
    """One metrics.csv row (group, metric, value, se)."""
    return {"group": group, "metric": metric, "value": float(value), "se": float(se)}


def _arviz():
    # arviz 0.2x logs "arviz_base not installed" and the like at INFO on import (Hydra shows INFO)
    alog = logging.getLogger("arviz")
    level = alog.level
    alog.setLevel(logging.WARNING)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import arviz
    alog.setLevel(level)

    return arviz


def rhat_ess(draws: np.ndarray) -> dict[str, np.ndarray]:
    """Rank-normalized split R-hat, bulk ESS and tail ESS (arviz) of ``draws`` (chains, draws)
    or (chains, draws, k): returns {"rhat", "ess_bulk", "ess_tail"}, each a scalar or (k,)."""
    az = _arviz()
    a = np.asarray(draws, dtype=np.float64)
    if a.ndim not in (2, 3) or a.shape[0] < 2 or a.shape[1] < 4:
        raise ValueError(f"need (chains >= 2, draws >= 4[, k]) draws, got shape {a.shape}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if a.ndim == 2:
            return {"rhat": float(az.rhat(a, method="rank")),
                    "ess_bulk": float(az.ess(a, method="bulk")),
                    "ess_tail": float(az.ess(a, method="tail"))}  # fmt: skip
        ds = az.convert_to_dataset({"x": a})
        return {
            "rhat": az.rhat(ds, method="rank")["x"].values,
            "ess_bulk": az.ess(ds, method="bulk")["x"].values,
            "ess_tail": az.ess(ds, method="tail")["x"].values,
        }


def per_draw_statistics(store: SampleStore, keep: np.ndarray) -> dict[str, np.ndarray]:
    """Per-draw scalars of the predictive, each (kept chains, draws): classification test_nll
    and true_class_prob, regression test_mse."""
    y = store.array("targets")
    if y is None or store.n_draws == 0:
        return {}
    per_chain: dict[int, list[dict]] = {}
    for k, block in store.predictive_blocks(keep):  # a block of draws at a time: memory flat in the draws
        per_chain.setdefault(k, []).append(_draw_statistics(block.astype(np.float64), y))
    rows = [{name: np.concatenate([b[name] for b in blocks]) for name in blocks[0]} for blocks in per_chain.values()]
    return {k: np.stack([r[k] for r in rows]) for k in rows[0]} if rows else {}


def _draw_statistics(pred: np.ndarray, y: np.ndarray) -> dict[str, np.ndarray]:
    """pred (draws, n_test, K) of one chain -> each statistic per draw."""
    if np.issubdtype(y.dtype, np.floating):
        return {"test_mse": ((pred[..., 0] - y) ** 2).mean(axis=-1)}
    p_true = np.take_along_axis(pred, y.astype(np.int64)[None, :, None], axis=-1)[..., 0]
    with np.errstate(divide="ignore"):
        logp = np.maximum(np.log(p_true), -100.0)
    return {"test_nll": -logp.mean(axis=-1), "true_class_prob": p_true.mean(axis=-1)}


def _rhat_rows(store: SampleStore, keep: np.ndarray, stats: dict, notes: list) -> list[dict]:
    C, D = int(keep.sum()), store.n_draws
    if C < 2 or D < 4:
        notes.append(f"R-hat/ESS skipped: need >= 2 kept chains and >= 4 draws (have {C} and {D})")
        return []
    init = store.array("init/x0")
    if init is not None and len(init) > 1 and np.ptp(init, axis=0).max() > 0:
        # init=swa: every chain samples around its own SWA point (a localized target of its
        # own), so R-hat across chains measures how far apart the modes are, not mixing
        notes.append(
            "chains start from different points (e.g. their own SWA solutions): R-hat across "
            "them measures the spread of those starts, not convergence to one target"
        )
    rows = _theta_rhat_rows(store, keep, notes)
    for name, arr in stats.items():
        if np.all(np.isfinite(arr)) and arr.std() > 0:
            r = rhat_ess(arr)
            rows += [metric_row("diagnostics", f"{k}_{name}", r[k]) for k in ("rhat", "ess_bulk", "ess_tail")]
    return rows


def _theta_rhat_rows(store: SampleStore, keep: np.ndarray, notes: list) -> list[dict]:
    """rhat_max, ess_bulk_min, ess_tail_min over (up to MAX_COORDS) theta coordinates and the
    per-coordinate values of the first FIRST_COORDS."""
    numbers = len(keep) * store.n_draws * (store.theta_dim or 0)
    if numbers > MAX_THETA_NUMBERS:
        notes.append(f"theta R-hat/ESS skipped: {numbers} stored numbers (a network's weights)")
        return []
    dim = store.theta_dim
    if not dim:
        return []
    # at most RHAT_VALUES numbers: the memory of evaluation does not grow with the draws
    n_coords = min(dim, MAX_COORDS, max(FIRST_COORDS, RHAT_VALUES // (len(keep) * store.n_draws)))
    coords = np.unique(np.linspace(0, dim - 1, n_coords).round().astype(int))
    if coords.size < dim:
        notes.append(f"R-hat/ESS over {coords.size} evenly spaced of the {dim} theta coordinates")
    t = store.theta(keep, coords=coords).astype(np.float64)  # only the coordinates used
    spread = t.std(axis=(0, 1)) > 0  # constant coordinates have no R-hat
    if not spread.any():
        return []
    r = rhat_ess(t[..., spread])
    rows = [metric_row("diagnostics", "rhat_max", np.nanmax(r["rhat"])),
            metric_row("diagnostics", "ess_bulk_min", np.nanmin(r["ess_bulk"])),
            metric_row("diagnostics", "ess_tail_min", np.nanmin(r["ess_tail"]))]  # fmt: skip
    first = [j for j in range(min(FIRST_COORDS, dim)) if coords[j] == j and spread[j]]
    # coordinate j (< FIRST_COORDS) is column j of t, so column spread[:j].sum() of the spread ones
    return rows + [metric_row(f"theta[{j}]", k, r[k][int(spread[:j].sum())]) for j in first
                   for k in ("rhat", "ess_bulk", "ess_tail")]  # fmt: skip


# --------------------------------------------------------------------------
# temperatures
# --------------------------------------------------------------------------


def temperature_terms(pot, x, probes: int = PROBES, seed: int = 0, localization=None) -> dict[str, np.ndarray]:
    """Per point of x [P, d] (torch): ``virial`` = x . grad U(x), ``grad_sq`` = |grad U(x)|^2,
    ``laplacian`` = tr Hess U(x) (exact for d <= EXACT_LAPLACIAN_DIM, else Hutchinson:
    mean_k z_k . Hess z_k, z_k Rademacher; unbiased). Full-data gradient (idx None, scale 1).
    ``laplacian`` is absent when the potential has no Hessian-vector product.
    ``localization`` = (centers [P, d], lam) adds paulin2025's (lam/2) |x - center|^2 per point:
    grad + lam (x - center), Laplacian + lam d."""
    import torch

    out = {"virial": [], "grad_sq": [], "laplacian": []}
    gen = torch.Generator(device=x.device)
    gen.manual_seed(seed)
    d = x.shape[1]
    has_hvp = True
    centers, lam = localization if localization is not None else (None, 0.0)
    for start in range(0, x.shape[0], CHUNK):
        xs = x[start : start + CHUNK]
        g = pot.force(xs, None, 1.0)
        if lam:
            g = g + lam * (xs - centers[start : start + CHUNK])
        out["virial"].append((xs * g).sum(1))
        out["grad_sq"].append((g * g).sum(1))
        if not has_hvp:
            continue
        try:
            if d <= EXACT_LAPLACIAN_DIM:
                lap = sum(pot.hvp(xs, torch.zeros_like(xs).index_fill_(1, torch.tensor([i]), 1.0), None, 1.0)[:, i]
                          for i in range(d))  # fmt: skip
            else:
                lap = 0.0
                for _ in range(probes):
                    z = torch.randint(0, 2, xs.shape, generator=gen, device=xs.device).to(xs.dtype) * 2 - 1
                    lap = lap + (z * pot.hvp(xs, z, None, 1.0)).sum(1)
                lap = lap / probes
            out["laplacian"].append(lap + lam * d)
        except (NotImplementedError, AttributeError):
            has_hvp = False
    return {
        k: torch.cat(v).detach().cpu().double().numpy() for k, v in out.items() if v and (k != "laplacian" or has_hvp)
    }


def rebuild_target(cfg: dict, store: SampleStore | None = None):
    """(potential, localization) of the target the chains sampled: the model's potential
    rebuilt in float64 on the CPU, and under init=swa with localization lam > 0 paulin2025's
    term (lam/2) |x - x0_c|^2 as (x0 [chains, d] from the store, lam), else None."""
    from omegaconf import OmegaConf

    from ..simulate import target_of

    c = OmegaConf.create(cfg)
    pot = target_of(c, dtype="float64").potential
    init = c.get("init") or {}
    lam = float(init.get("localization", 0.0) or 0.0) if init.get("name") == "swa" else 0.0
    if lam <= 0:
        return pot, None
    x0 = store.array("init/x0") if store is not None else None
    if x0 is None:
        raise ValueError("init/x0 (the localization centres) not stored")
    return pot, (np.asarray(x0, dtype=np.float64), lam)


def _subsampled_draws(C: int, D: int, max_points: int) -> np.ndarray:
    """Indices of D' evenly spaced draws of D, C * D' <= max_points (one draw at least)."""
    per_chain = max(1, min(D, max_points // max(C, 1)))
    return np.unique(np.linspace(0, D - 1, per_chain).round().astype(int))


def _subsample(theta: np.ndarray, max_points: int) -> np.ndarray:
    """(C, D, d) -> (C, D', d) with D' evenly spaced draws, C * D' <= max_points (C kept)."""
    return theta[:, _subsampled_draws(theta.shape[0], theta.shape[1], max_points)]


def _chain_se(values: np.ndarray) -> float:
    return float(values.std(ddof=1) / math.sqrt(values.size)) if values.size > 1 else float("nan")


def chain_temperature_rows(store: SampleStore, cfg: dict, keep: np.ndarray, notes: list, pot=None) -> list[dict]:
    """kinetic_temperature (recorded), configurational_temperature (Rugh form) and
    configurational_temperature_virial at the stored theta; see the module docstring. ``pot``
    (optional) replaces the rebuilt target (no localization then)."""
    rows = []
    kin = store.diagnostics().get("kinetic_temperature")
    if kin is not None and kin.shape[1]:
        k = kin[keep]
        rows.append(metric_row(group="diagnostics", metric="kinetic_temperature", value=float(k.mean()),
                               se=_chain_se(k.mean(axis=1))))  # fmt: skip
    d, draws = store.theta_dim, store.n_draws
    if d is None or draws == 0:
        notes.append("configurational temperature skipped: theta not stored")
        return rows
    min_points = min(100, int(keep.sum()) * draws)
    if d * (1 + 2 * min(d, PROBES)) * min_points > BUDGET or len(keep) * draws * d > MAX_THETA_NUMBERS:
        notes.append(f"configurational temperature skipped: target too large (dim {d})")
        return rows
    try:
        pot, loc = (pot, None) if pot is not None else rebuild_target(cfg, store)
        per_point = float(max(pot.n_data, 1)) * d * (1 + 2 * min(d, PROBES))
        points = int(min(MAX_POINTS, BUDGET // per_point))
        if points < min_points:
            notes.append(f"configurational temperature skipped: target too large (n_data {pot.n_data} x dim {d})")
            return rows
        draws_read = _subsampled_draws(int(keep.sum()), draws, points)  # only the draws used
        theta = store.theta(keep, draws=draws_read)
        rows += _configurational(theta, pot, loc and (loc[0][keep], loc[1]), points, notes)
    except Exception as e:  # noqa: BLE001 -- data files gone, a model that cannot serve: the metrics still count
        notes.append(f"configurational temperature skipped: {type(e).__name__}: {e}")
    return rows


def _configurational(theta: np.ndarray, pot, loc, points: int, notes: list) -> list[dict]:
    """Both configurational temperatures from the kept chains' theta (C, D, d), up to
    ``points`` draws; se over chains."""
    import torch

    th = _subsample(theta, points)
    C, P, d = th.shape
    x = torch.as_tensor(th.reshape(C * P, d), dtype=torch.float64)
    centers = None if loc is None else (torch.as_tensor(np.repeat(loc[0], P, axis=0)), loc[1])
    terms = {k: v.reshape(C, P) for k, v in temperature_terms(pot, x, localization=centers).items()}
    vir = terms["virial"].mean(axis=1) / d
    rows = [metric_row(group="diagnostics", metric="configurational_temperature_virial", value=float(vir.mean()),
                       se=_chain_se(vir))]  # fmt: skip
    deterministic = torch.equal(pot.force(x[:2], None, 1.0), pot.force(x[:2], None, 1.0))
    if "laplacian" not in terms:
        notes.append("configurational_temperature (Rugh form) skipped: the potential has no Hessian-vector product")
    elif not deterministic:
        notes.append("configurational_temperature (Rugh form) skipped: the full-data force is itself noisy")
    else:
        g2, lap = terms["grad_sq"], terms["laplacian"]
        ratio = g2.mean(axis=1) / lap.mean(axis=1)
        rows.append(metric_row(group="diagnostics", metric="configurational_temperature",
                               value=float(g2.mean() / lap.mean()), se=_chain_se(ratio)))  # fmt: skip
    if theta.shape[0] * theta.shape[1] > C * P:
        notes.append(f"configurational temperature from {C * P} of {theta.shape[0] * theta.shape[1]} draws")
    if loc is not None:
        notes.append(f"configurational temperature of the localized target (lambda = {loc[1]:g})")
    return rows


def bounce_rows(store: SampleStore, keep: np.ndarray, notes: list) -> list[dict]:
    counts = store.read_state().get("bounces")
    if counts is None:
        b = store.diagnostics().get("bounces")
        counts = None if b is None or b.shape[1] == 0 else b[:, -1]
    if counts is None:
        return []
    total = float(np.asarray(counts)[keep].sum())
    if total > 0:
        notes.append(f"{total:.0f} elastic bounces: the temperature identities gain a boundary term")
    return [metric_row(group="diagnostics", metric="bounces_total", value=total)]


def plot_diagnostics(path: Path, store: SampleStore, keep: np.ndarray, stats: dict) -> Path | None:
    """Every per-draw diagnostic and predictive statistic against the draw, chains overlaid."""
    from .plots import plot_traces, run_label

    series = {k: v[keep] for k, v in store.diagnostics().items() if v.shape[1]}
    series.update(stats)
    if not series or store.n_draws == 0:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    plot_traces(path, series, max_chains=MAX_TRACE_CHAINS,
                title=f"per-draw diagnostics and predictive statistics: {run_label(store)}")  # fmt: skip
    return path


def diagnostic_rows(store: SampleStore, cfg: dict, keep: np.ndarray, plots_dir: Path | None = None,
                    pot=None) -> tuple[list[dict], list[str]]:  # fmt: skip
    """All diagnostics rows of a run and the notes on what was skipped; writes
    plots_dir/diagnostics.png when plots_dir is given."""
    notes: list[str] = []
    if not keep.any() or store.n_draws == 0:
        return [], ["diagnostics skipped: no kept chain or no draw"]
    stats = per_draw_statistics(store, keep)
    rows = _rhat_rows(store, keep, stats, notes)
    rows += chain_temperature_rows(store, cfg, keep, notes, pot)
    rows += bounce_rows(store, keep, notes)
    if plots_dir is not None:
        from ..plumbing.errors import WriteRefused

        try:
            plot_diagnostics(plots_dir / "diagnostics.png", store, keep, stats)
        except WriteRefused:  # the disk refused: one line and stop, never a warning
            raise
        except Exception as e:  # noqa: BLE001 -- plots must never cost the metrics
            log.warning("diagnostics plot failed: %s", e)
    for n in notes:  # the printed summary shows them; the log keeps them for `evaluate` runs too
        log.debug("diagnostics: %s", n)
    return rows, notes


__all__ = ["diagnostic_rows", "per_draw_statistics", "rebuild_target", "rhat_ess", "temperature_terms"]
