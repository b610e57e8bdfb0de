"""SWA with temperature scaling: a baseline beyond paulin2025 Fig. 4 (the paper compares SMS-UBU
with SWA and standard training only), fitted on a validation split held out from training.

With ``holdout=f`` the recipe splits its training pool (the scale's images: all of the dataset's
training set, or the scale's stratified ``dataset.n_train`` subset) into a stratified training
subset of round((1 - f) * pool) images, which trains EVERY method (standard training, SWA and
the samplers see the same images), and a validation split of the rest of the pool's size, drawn
from the dataset's training images outside that subset (with the whole training set as the pool:
exactly the images left out). Each run's SWA network predicts the validation split (BatchNorm
statistics from the run's own calibration images, as for the test set), and its temperature
(Guo et al. 2017)

    T_r = argmin_T  -(1/n_val) sum_i log softmax(log p_r(x_i) / T)_{y_i}

minimises the validation NLL (``evaluate.calibration.best_temperature``; softmax(log p / T) =
softmax(z / T) for logits z, since the two differ by a constant per row). The baseline's test
predictive of run r is softmax(log p_r^SWA / T_r); an ensemble averages its runs' tempered
predictives (each member calibrated, then pooled).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

SUBSET_OFFSET = 0  # the seed offset of the training subset (data.images._keep_subset's for n_train)
VALIDATION_OFFSET = 2  # the validation split's, drawn from the images outside the training subset


def split_sizes(pool: int, holdout: float) -> tuple[int, int]:
    """(training images, validation images) of a pool of ``pool`` with a share ``holdout`` held out."""
    n_val = round(pool * holdout)
    if not 0 < n_val < pool:
        raise ValueError(f"holdout={holdout}: holds out {n_val} of {pool} images; allowed: a share that leaves "
                         "at least one image on each side")  # fmt: skip
    return pool - n_val, n_val


def validation_indices(y_all: np.ndarray, n_train: int, n_val: int, seed: int) -> np.ndarray:
    """Indices into the dataset's whole training set (labels ``y_all``) of the validation split:
    ``n_val`` of the images outside the stratified training subset of ``n_train`` (the loader's,
    ``data.images.subset_indices`` with ``seed``), stratified, all of them when that many are left."""
    from ...data.images import subset_indices

    rest = np.setdiff1d(np.arange(len(y_all)), subset_indices(y_all, n_train, seed + SUBSET_OFFSET))
    if n_val > len(rest):
        raise ValueError(f"a validation split of {n_val} images needs that many outside the {n_train} training "
                         f"images; {len(rest)} are left")  # fmt: skip
    if n_val == len(rest):
        return rest
    return rest[subset_indices(y_all[rest], n_val, seed + VALIDATION_OFFSET)]


def fit_temperatures(val_probs, y_val) -> np.ndarray:
    """T_r minimising the validation NLL of softmax(log p_r / T), for each run's validation
    predictive ``val_probs`` [R, n_val, K]."""
    from ...evaluate.calibration import best_temperature

    return np.array([best_temperature(p, y_val) for p in np.asarray(val_probs, dtype=np.float64)])


def swa_validation(run_dir: Path, n_val: int) -> tuple[np.ndarray, np.ndarray]:
    """(each run's SWA predictive on the validation split [R, n_val, K], its labels) of an
    init=swa run (its config.yaml and samples.h5: the SWA points init/x0) trained on a stratified
    subset of the dataset's training set (``dataset.n_train``)."""
    import torch
    from omegaconf import OmegaConf

    from ...data import load_data
    from ...simulate import target_of
    from ...store import open_checked

    cfg = OmegaConf.load(run_dir / "config.yaml")
    full = OmegaConf.merge(cfg, {"dataset": {"n_train": None}})
    everything = load_data(full)
    y_all = everything.y_train.numpy()
    idx = validation_indices(y_all, int(cfg.dataset.n_train), n_val, int(cfg.dataset.get("subset_seed", 0)))
    target = target_of(cfg, device="cpu")
    pot = target.potential
    dtype = getattr(torch, cfg.dtype)
    x_val = everything.x_train[torch.as_tensor(idx)].to(dtype)
    with open_checked(run_dir / "samples.h5") as st:
        x0 = st.array("init/x0")
    probs = np.stack([pot.predict_one(torch.as_tensor(x, dtype=dtype), x_eval=x_val).numpy() for x in x0])
    return probs, y_all[idx]


def swa_ts_predictives(run_dirs: list[Path], swa_test, n_val: int) -> tuple[np.ndarray, list[dict]]:
    """The baseline's per-run test predictive [R, n_test, K] from the SWA test predictives
    ``swa_test`` of the runs of ``run_dirs`` (pooled in order), and one row per run for
    temperature_scaling.csv: the fitted temperature, the validation NLL before and after."""
    from ...evaluate import metrics as M
    from ...evaluate.calibration import tempered

    rows, temps = [], []
    for d in run_dirs:
        val, y_val = swa_validation(d, n_val)
        for p, t in zip(val, fit_temperatures(val, y_val)):
            rows.append({"run": len(rows), "part": d.parent.name, "temperature": float(t), "n_val": len(y_val),
                         "val_nll": M.nll(p, y_val), "val_nll_tempered": M.nll(tempered(p, t), y_val)})  # fmt: skip
            temps.append(t)
    swa_test = np.asarray(swa_test, dtype=np.float64)
    if len(temps) != len(swa_test):
        raise ValueError(f"{len(temps)} SWA points against {len(swa_test)} SWA test predictives")
    return np.stack([tempered(p, t) for p, t in zip(swa_test, temps)]), rows
