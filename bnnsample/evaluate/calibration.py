"""Why a predictive is (mis)calibrated: the test temperature that fits best, reliability bins
with their counts, and the excess training loss of the sampled networks over the SWA point.

These explain the ensemble table of paulin2025 Fig. 4 (§5 of the paper): a Bayesian ensemble
that loses to SWA in NLL is either too soft (best-fit temperature below 1: its probabilities
want sharpening) or too sharp (above 1), and its draws sit higher up the training loss than
the SWA point by an amount that the localized posterior dictates.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import metrics as M


def tempered(probs, temperature: float) -> np.ndarray:
    """p_T = softmax(log p / T): T > 1 softens the predictive, T < 1 sharpens it."""
    logp = np.log(np.clip(np.asarray(probs, dtype=np.float64), 1e-300, None)) / float(temperature)
    logp -= logp.max(axis=1, keepdims=True)
    e = np.exp(logp)
    return e / e.sum(axis=1, keepdims=True)


def best_temperature(probs, y, bounds=(0.05, 20.0)) -> float:
    """T* = argmin_T NLL(softmax(log p / T), y) over T in ``bounds`` (Guo et al. 2017's
    temperature scaling applied to a predictive's log-probabilities, fitted on the test set
    as a diagnosis, not as a recalibration). T* > 1: the predictive is over-confident; T* < 1:
    under-confident; T* = 1: NLL cannot be improved by one temperature."""
    from scipy.optimize import minimize_scalar

    p, lab = M._check_classification(probs, y)
    logp = np.log(np.clip(p, 1e-300, None))
    rows = np.arange(len(lab))

    def nll_at(log_t):
        z = logp / np.exp(log_t)
        z = z - z.max(axis=1, keepdims=True)
        return float(np.mean(np.log(np.exp(z).sum(axis=1)) - z[rows, lab]))

    res = minimize_scalar(nll_at, bounds=(np.log(bounds[0]), np.log(bounds[1])), method="bounded",
                          options={"xatol": 1e-5})  # fmt: skip
    return float(np.exp(res.x))


def reliability_bins(probs, y, n_bins: int = 10) -> pd.DataFrame:
    """Top-label reliability table: for confidence bins (m/M, (m+1)/M] (M = ``n_bins``), the
    number of test points, their mean confidence max_k p_ik and their accuracy; ``gap`` =
    accuracy - confidence (positive: under-confident in that bin). Empty bins are kept with
    count 0 and NaN means."""
    p, lab = M._check_classification(probs, y)
    conf = p.max(axis=1)
    correct = (p.argmax(axis=1) == lab).astype(np.float64)
    edges = np.linspace(0.0, 1.0, int(n_bins) + 1)
    b = np.digitize(conf, edges[1:-1], right=True)
    count = np.bincount(b, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_conf = np.bincount(b, weights=conf, minlength=n_bins) / count
        acc = np.bincount(b, weights=correct, minlength=n_bins) / count
    return pd.DataFrame({"lo": edges[:-1], "hi": edges[1:], "count": count, "confidence": mean_conf,
                         "accuracy": acc, "gap": acc - mean_conf})  # fmt: skip


def best_temperature_rows(preds: dict[str, np.ndarray], y, sizes=(1,)) -> list[dict]:
    """Best-fit temperature of each method's ensembles: for every size ``es`` the runs are cut
    into disjoint groups as in ``evaluate.ensembles``; mean and std of T* over the groups, and
    the NLL before and after tempering (mean over groups)."""
    rows = []
    for name, p in preds.items():
        p = np.asarray(p, dtype=np.float64)
        for es in sizes:
            n_groups = p.shape[0] // int(es)
            if n_groups < 1:
                continue
            groups = p[: n_groups * es].reshape(n_groups, es, *p.shape[1:]).mean(axis=1)
            ts = np.array([best_temperature(g, y) for g in groups])
            before = np.mean([M.nll(g, y) for g in groups])
            after = np.mean([M.nll(tempered(g, t), y) for g, t in zip(groups, ts)])
            rows.append({"method": name, "ensemble_size": int(es), "groups": n_groups, "t_best": float(ts.mean()),
                         "t_best_std": float(ts.std(ddof=1)) if n_groups > 1 else float("nan"),
                         "nll": float(before), "nll_tempered": float(after)})  # fmt: skip
    return rows


def reliability_rows(preds: dict[str, np.ndarray], y, n_bins: int = 10) -> pd.DataFrame:
    """Reliability bins of each method's single-run predictives, pooled over runs (a test point
    counts once per run)."""
    parts = []
    for name, p in preds.items():
        p = np.asarray(p)
        t = reliability_bins(p.reshape(-1, p.shape[-1]), np.tile(np.asarray(y), p.shape[0]), n_bins)
        parts.append(t.assign(method=name))
    return pd.concat(parts, ignore_index=True)


def excess_training_loss(run_dirs, n_batches: int = 20, seed: int = 0) -> dict:
    """How far above the SWA point the sampled networks sit on the training loss.

    Draws: the mean over chains and draws of the stored per-draw minibatch loss
    (diagnostics/minibatch_loss: the mean cross-entropy of the step's batch, BatchNorm on the
    batch's statistics), an unbiased estimate of L(x) = (1/N) sum_i U_i(x). SWA: the same
    estimator at each run's SWA point, L(x_SWA), averaged over ``n_batches`` random batches of
    the run's batch size. Returns both with standard errors and the excess times N, to be set
    against d_eff / 2 for a Gaussian localized posterior (E[U(x) - U(x*)] = d_eff / 2 with
    d_eff = sum_i l_i / (l_i + lambda_loc) over the Hessian eigenvalues l_i of U at x*).
    ``run_dirs``: one run directory, or several whose runs are pooled (same data and model).
    """
    from pathlib import Path

    import torch
    from omegaconf import OmegaConf

    from ..simulate import target_of

    dirs = [Path(d) for d in (run_dirs if isinstance(run_dirs, list | tuple) else [run_dirs])]
    cfg = OmegaConf.load(dirs[0] / "config.yaml")
    pot = target_of(cfg, dtype="float32").potential
    bs = int(cfg.batch_size)
    idx = torch.randint(pot.n_data, (n_batches, bs), generator=torch.Generator().manual_seed(seed))
    per_run = [_draw_and_swa_losses(d, pot, idx) for d in dirs]
    per_chain_draw = np.concatenate([d for d, _ in per_run])
    per_chain_swa = np.concatenate([s for _, s in per_run])
    diff = per_chain_draw - per_chain_swa
    n = pot.n_data

    def se(v):
        return float(v.std(ddof=1) / np.sqrt(len(v))) if len(v) > 1 else float("nan")

    return {
        "draw_loss": float(per_chain_draw.mean()),
        "draw_loss_se": se(per_chain_draw),
        "swa_loss": float(per_chain_swa.mean()),
        "swa_loss_se": se(per_chain_swa),
        "excess": float(diff.mean()),
        "excess_se": se(diff),
        "excess_times_n": float(diff.mean() * n),
        "n_train": n,
        "dim": int(pot.dim),
        "runs": int(len(diff)),
    }


def _draw_and_swa_losses(run_dir, pot, idx) -> tuple[np.ndarray, np.ndarray]:
    """Per kept run: the mean stored minibatch loss of its draws, and the mean loss of its SWA
    point over the batches ``idx`` [n_batches, batch]."""
    import torch

    from ..store import FILENAME, SampleStore

    with SampleStore(run_dir / FILENAME) as st:
        diag = st.group("diagnostics").get("minibatch_loss")
        x0 = st.array("init/x0")
        keep = ~np.asarray(st.diverged(), dtype=bool)
        draws = int(st.attrs.get("draws", 0))
    if diag is None or x0 is None:
        raise ValueError(f"{run_dir}: needs diagnostics/minibatch_loss and init/x0 (an init=swa run)")
    bs = idx.shape[1]
    swa = []
    with torch.no_grad():
        for c in np.flatnonzero(keep):
            x = torch.as_tensor(x0[c], dtype=torch.float32)
            swa.append([float(pot._batch_loss(x, pot.x_train[i], pot.y_train[i])) / bs for i in idx])
    return np.asarray(diag)[keep, :draws].mean(axis=1), np.asarray(swa).mean(axis=1)
