"""Initial points of a run, one strategy per config of the init/ group.

Each strategy is registered under its config name and maps (run config, potential, device,
dtype, store_arrays) to the chains' initial points x0 [C, d]; it may add arrays for the store
(the baselines of init=swa) to ``store_arrays``. A strategy registered with ``localized=True``
has the runner sample the localized target around x0 when its ``init.localization`` is > 0,
with elastic bounces at ``init.bounce_width`` (paulin2025 Algorithm 3). ``map_point`` is the
MAP point of a potential by L-BFGS, not a strategy of the init/ group.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
from omegaconf import DictConfig

from .plumbing.errors import UserError
from .plumbing.rng import make_generator
from .registry import Registry
from .store import FILENAME, open_checked

log = logging.getLogger("bnnsample")

Init = Callable[..., torch.Tensor]
# @register(NAME) files a strategy under init=NAME; @register(NAME, localized=True) marks one
# whose runs sample the target localized around x0
INITS: Registry[Init] = Registry("init")
register = INITS.register


def localization(cfg: DictConfig) -> float:
    """lambda_loc of the run's localized target; 0 when the strategy does not localize."""
    localized = INITS.attrs.get(cfg.init.name, {}).get("localized", False)
    return float(cfg.init.localization) if localized else 0.0


TRAINING_CHECKPOINT = "training.pt"


def initial_points(
    cfg: DictConfig, pot, device: torch.device, dtype: torch.dtype, store_arrays: dict, run_dir: Path | None = None
) -> torch.Tensor:
    """x0 [C, d] of the strategy ``cfg.init.name``; a strategy that trains keeps a resumable
    checkpoint in ``run_dir`` (``TRAINING_CHECKPOINT``) when it is stopped."""
    return INITS[cfg.init.name](cfg, pot, device, dtype, store_arrays, run_dir=run_dir)


@register("zeros")
def zeros(cfg: DictConfig, pot, device, dtype, store_arrays: dict, run_dir=None) -> torch.Tensor:
    """Every chain starts at x = 0."""
    return torch.zeros(int(cfg.chains), pot.dim, device=device, dtype=dtype)


@register("swa", localized=True)
def swa(cfg: DictConfig, pot, device, dtype, store_arrays: dict, run_dir=None) -> torch.Tensor:
    """paulin2025 Algorithm 3 steps 1-3: trained here, or taken from the run ``init.reuse``."""
    if cfg.init.get("reuse"):
        return reuse_swa_initialisation(cfg, pot, device, dtype, store_arrays)
    checkpoint = None if run_dir is None else Path(run_dir) / TRAINING_CHECKPOINT
    return swa_initialisation(cfg, pot, device, store_arrays, checkpoint)


def training_seeds(seed: int, runs: int) -> list[int]:
    """The seed of each of ``runs`` trained networks of a run of ``seed``: its initial weights and
    its batches (``swa_initialisation``)."""
    return [seed * 100_003 + c for c in range(runs)]


def default_weights(pot, seeds) -> torch.Tensor:
    """PyTorch's default initialisation of the network of ``pot`` under each seed, [R, d]
    (paulin2025 Algorithm 3 step 1: the authors never call their own initialiser)."""
    x0 = []
    for seed in seeds:
        torch.manual_seed(seed)
        _reset_parameters(pot.module)
        x0.append(pot.layout.flatten(pot.module).clone())
    return torch.stack(x0)


def map_point(pot, dtype: torch.dtype, max_iter: int = 500) -> torch.Tensor:
    """x* = argmin U by L-BFGS (scipy L-BFGS-B, 30 correction pairs as paulin2025's authors'
    history_size=30, §3.4) on U / N with the closed-form gradient, from x = 0, in the potential's
    ``dtype`` (use float64): the MAP point from which paulin2025's Figure 2 starts its samplers."""
    from scipy.optimize import minimize

    n = pot.n_data

    def fun(z):
        x = torch.as_tensor(z, dtype=dtype)[None]
        with torch.no_grad():
            return float(pot.energy(x, None, 1.0)) / n, (pot.force(x, None, 1.0)[0] / n).double().numpy()

    res = minimize(fun, np.zeros(pot.dim), jac=True, method="L-BFGS-B",
                   options={"maxcor": 30, "maxiter": max_iter, "gtol": 1e-10, "ftol": 1e-15})  # fmt: skip
    return torch.as_tensor(res.x, dtype=dtype)


def _reset_parameters(module: torch.nn.Module) -> None:
    for m in module.modules():
        if m is not module and hasattr(m, "reset_parameters"):
            m.reset_parameters()


def training_tag(cfg: DictConfig, device) -> str:
    """A fingerprint of what decides the training's numbers (a checkpoint of other settings
    is not continued)."""
    import hashlib
    import json

    from omegaconf import OmegaConf

    keys = {k: OmegaConf.to_container(cfg[k], resolve=True) for k in ("init", "model", "dataset")}
    keys.update({k: cfg[k] for k in ("seed", "chains", "batch_size", "dtype")}, device=torch.device(device).type)
    keys["init"].pop("reuse", None)
    return hashlib.sha256(json.dumps(keys, sort_keys=True, default=str).encode()).hexdigest()[:16]


def swa_initialisation(
    cfg: DictConfig, pot, device, store_arrays: dict, checkpoint: Path | None = None
) -> torch.Tensor:
    """Algorithm 3 steps 1-3 for each chain independently; returns x_SWA per chain [C, d].

    Run c starts from PyTorch's default initialisation under the seed seed * 100003 + c and
    draws its batches from a generator of the same seed; the runs are trained together
    (``train.train_runs``: vectorised over runs on CUDA, one autograd pass per run on the CPU),
    which gives each run what training it alone would give. Also fills ``store_arrays`` with
    the baselines' predictive probabilities (standard training and SWA) for the evaluation.
    """
    from .plumbing.progress import bar
    from .train import train_runs

    if not hasattr(pot, "module"):
        raise UserError(f"init=swa trains a neural network; model={cfg.model.name} is not one (allowed: init=zeros)")
    chains, seeds = int(cfg.chains), training_seeds(int(cfg.seed), int(cfg.chains))
    x0 = default_weights(pot, seeds)
    epochs = int(cfg.init.train_epochs) + int(cfg.init.swa_epochs)
    steps = epochs * max(1, pot.n_data // int(cfg.batch_size))
    with bar(steps, f"Adam+SWA training ({chains} runs together)", "step", enabled_here=bool(cfg.progress)) as ticks:
        res = train_runs(
            pot,
            x0,
            train_epochs=int(cfg.init.train_epochs),
            swa_epochs=int(cfg.init.swa_epochs),
            lr=float(cfg.init.lr),
            swa_lr=float(cfg.init.swa_lr),
            batch_size=int(cfg.batch_size),
            generators=[make_generator(device, seed) for seed in seeds],
            on_step=ticks.update,
            checkpoint=checkpoint,
            tag=training_tag(cfg, device),
        )
    log.info("Adam+SWA done for %d runs, last batch's mean loss per datum %.4f", chains, res.final_loss)
    with bar(
        2 * chains, "baselines: standard and SWA predictions", "network", enabled_here=bool(cfg.progress)
    ) as ticks:
        standard, swa = [], []
        for c in range(chains):
            for flat, out in ((res.standard[c], standard), (res.swa[c], swa)):
                out.append(pot.predict_one(flat).cpu().numpy())
                ticks.update()
    store_arrays["baselines/standard"] = np.stack(standard)
    store_arrays["baselines/swa"] = np.stack(swa)
    return res.swa


def reuse_swa_initialisation(cfg: DictConfig, pot, device, dtype, store_arrays: dict) -> torch.Tensor:
    """Algorithm 3 steps 1-3 taken from an earlier run (``init.reuse`` = its run directory or
    samples.h5): its SWA points (init/x0) and its standard-training and SWA baselines. Lets
    several samplers start from the same trained networks, as paulin2025 Fig. 4 compares
    them ("same initialization"), without training again."""
    src = Path(str(cfg.init.reuse)).expanduser()
    src = src / FILENAME if src.is_dir() else src
    if not src.is_file():
        raise UserError(f"init.reuse={cfg.init.reuse}: no {FILENAME} there; give the run directory of an init=swa run")
    try:
        with open_checked(src) as old:
            x0 = old.array("init/x0")
            baselines = old.group("baselines")
            chains = int(old.attrs.get("chains", -1))
    except (OSError, KeyError, ValueError) as e:
        raise UserError(f"init.reuse={cfg.init.reuse}: {src} is not a readable bnnsample store ({e})") from None
    if x0 is None or x0.shape != (int(cfg.chains), pot.dim) or chains != int(cfg.chains):
        got = None if x0 is None else tuple(x0.shape)
        raise UserError(
            f"init.reuse={cfg.init.reuse}: its SWA points have shape {got}; this run needs "
            f"(chains, dim) = ({int(cfg.chains)}, {pot.dim}): same dataset, model and chains"
        )
    for name, arr in baselines.items():
        store_arrays[f"baselines/{name}"] = arr
    log.info("reusing the SWA points and baselines of %s", src)
    return torch.as_tensor(x0, device=device, dtype=dtype)
