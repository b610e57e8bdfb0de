"""`bnnsample run`: config -> data -> potential -> initial point -> sampler -> HDF5 -> evaluation."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import torch
from omegaconf import DictConfig, OmegaConf

from . import __version__
from .batching import Schedule
from .config import validate, validate_against_data
from .data import load_data
from .errors import UserError
from .integrators import StepContext, get_integrator
from .models import build_potential
from .potential import ControlVariate, ElasticBox, Localized, Oracle
from .rng import GaussianNoise
from .sampler import LoopSettings, Sampler
from .store import FILENAME, SampleStore

log = logging.getLogger("bnnsample")


def resolve_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise UserError("device=cuda: no CUDA device is available here; allowed: auto, cpu")
    return torch.device(name)


def make_generator(device: torch.device, seed: int) -> torch.Generator:
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    return g


def _reset_parameters(module: torch.nn.Module) -> None:
    for m in module.modules():
        if m is not module and hasattr(m, "reset_parameters"):
            m.reset_parameters()


def swa_initialisation(cfg: DictConfig, pot, device, store_arrays: dict) -> torch.Tensor:
    """Algorithm 3 steps 1-3 for each chain independently; returns x_SWA per chain [C, d].

    Also fills ``store_arrays`` with the baselines' predictive probabilities (standard
    training and SWA) for the evaluation stage.
    """
    from .train import train_adam_swa

    if not hasattr(pot, "module"):
        raise UserError(f"init=swa trains a neural network; model={cfg.model.name} is not one (allowed: init=zeros)")
    from .progress import bar

    standard, swa = [], []
    epochs = int(cfg.init.train_epochs) + int(cfg.init.swa_epochs)
    ticks = bar(int(cfg.chains) * epochs, "Adam+SWA training", "epoch", enabled_here=bool(cfg.progress))
    for c in range(int(cfg.chains)):
        torch.manual_seed(int(cfg.seed) * 100_003 + c)
        _reset_parameters(pot.module)
        res = train_adam_swa(
            pot,
            train_epochs=int(cfg.init.train_epochs),
            swa_epochs=int(cfg.init.swa_epochs),
            lr=float(cfg.init.lr),
            swa_lr=float(cfg.init.swa_lr),
            batch_size=int(cfg.batch_size),
            generator=make_generator(device, int(cfg.seed) * 100_003 + c),
            on_epoch=ticks.update,
        )
        log.info("run %d: Adam+SWA done, last training loss %.4f", c, res.final_loss)
        standard.append(pot.predict_one(res.standard).cpu().numpy())
        swa.append(pot.predict_one(res.swa).cpu().numpy())
        store_arrays[f"init/swa_{c}"] = res.swa
    ticks.close()
    store_arrays["baselines/standard"] = np.stack(standard)
    store_arrays["baselines/swa"] = np.stack(swa)
    return torch.stack([store_arrays.pop(f"init/swa_{c}") for c in range(int(cfg.chains))])


def reuse_swa_initialisation(cfg: DictConfig, pot, device, dtype, store_arrays: dict) -> torch.Tensor:
    """Algorithm 3 steps 1-3 taken from an earlier run (``init.reuse`` = its run directory or
    samples.h5): its SWA points (init/x0) and its standard-training and SWA baselines. Lets
    several samplers start from the same trained networks, as paulin2025 Fig. 4 compares
    them ("same initialization"), without training again."""
    src = Path(str(cfg.init.reuse)).expanduser()
    src = src / FILENAME if src.is_dir() else src
    if not src.is_file():
        raise UserError(f"init.reuse={cfg.init.reuse}: no {FILENAME} there; give the run directory of an init=swa run")
    with SampleStore(src) as old:
        x0 = old.array("init/x0")
        baselines = old.group("baselines")
        chains = int(old.attrs.get("chains", -1))
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


def _cache_limit(device: torch.device) -> int:
    """Numbers the control variate may keep for its per-batch reference gradients: 2^28
    (1 GiB in float32) on the CPU, half the free memory on a GPU."""
    if device.type == "cuda":
        free, _ = torch.cuda.mem_get_info(device)
        return int(free // 8)
    return 2**28


_NEEDS = {
    "covariance": "the gradient covariance estimate (per-datum gradients)",
    "hvp": "Hessian-vector products",
    "energy": "the potential energy U(x)",
}


def _predictive_shape(data) -> tuple[int, int] | None:
    """(n_test, outputs) of the stored predictive: class probabilities, or one regression mean."""
    if data.x_test is None:
        return None
    if data.task == "classification":
        return data.x_test.shape[0], data.n_classes
    if data.task == "regression":
        return data.x_test.shape[0], 1
    return None


def _check_oracle(integrator, pot, sched: Schedule, x0: torch.Tensor) -> None:
    """One trial call per capability the scheme needs, so that a target or batch size that
    cannot serve it fails before sampling with one line, not mid-run."""
    idx = None if sched.kind == "full" else torch.arange(sched.batch_size, device=x0.device)
    oracle = Oracle(pot, idx, sched.scale, sched.eps)
    x = x0[:1]
    calls = {"covariance": lambda: oracle.covariance(x), "hvp": lambda: oracle.hvp(x, x),
             "energy": lambda: pot.energy(x, None, 1.0)}  # fmt: skip
    for need in integrator.needs:
        try:
            calls[need]()
        except (NotImplementedError, ValueError, AttributeError) as e:
            raise UserError(f"integrator={integrator.name} needs {_NEEDS[need]}: {e}") from None


def run(cfg: DictConfig, run_dir: Path) -> Path:
    """Execute one run into run_dir; returns the path of samples.h5."""
    validate(cfg)
    from .evaluate.reference import check_reference

    check_reference(cfg)  # a missing or foreign reference=PATH fails before sampling
    device = resolve_device(cfg.device)
    dtype = getattr(torch, cfg.dtype)
    data = load_data(cfg)
    validate_against_data(cfg, data.n_train, cfg.dataset.name)
    pot = build_potential(cfg.model, data, device, dtype, seed=int(cfg.seed) * 2 + 7919)

    per_chain = cfg.batching.per_chain
    if per_chain == "auto":
        per_chain = data.task == "density"
    seed = int(cfg.seed)
    sched = Schedule(
        cfg.batching.name,
        pot.n_data,
        int(cfg.batch_size),
        chains=int(cfg.chains) if per_chain else None,
        partition=cfg.batching.partition,
        generator=make_generator(device, seed * 2 + 1),
        device=device,
    )
    steps_per_epoch = max(1, sched.n_batches) if cfg.batching.name != "full" else 1
    unit = steps_per_epoch if cfg.unit == "epoch" else 1
    settings = LoopSettings(
        burn_in=int(cfg.burn_in) * unit,
        samples=int(cfg.samples),
        thin=int(cfg.thin) * unit,
        check_every=int(cfg.check_every),
        flush_seconds=float(cfg.flush_seconds),
        progress=bool(cfg.progress),
    )

    path = run_dir / FILENAME
    config_yaml = OmegaConf.to_yaml(cfg, resolve=True)
    resume = _resumable(path, config_yaml)
    if resume == "complete":
        print(f"[bnnsample] {path} is already complete; nothing to do (choose another hydra.run.dir to rerun)")
        return path

    extra_arrays: dict = {}
    chains = int(cfg.chains)
    boundary = None
    if resume:
        with SampleStore(path) as old:
            x0 = torch.as_tensor(old.array("init/x0"), device=device, dtype=dtype)
    elif cfg.init.name == "swa" and cfg.init.get("reuse"):
        x0 = reuse_swa_initialisation(cfg, pot, device, dtype, extra_arrays)
    elif cfg.init.name == "swa":
        x0 = swa_initialisation(cfg, pot, device, extra_arrays)
    elif cfg.init.name == "zeros":
        x0 = torch.zeros(chains, pot.dim, device=device, dtype=dtype)
    else:
        raise UserError(f"init={cfg.init.name}: allowed values: swa, zeros")
    cv = cfg.get("control_variate", False)
    if not isinstance(cv, bool):
        raise UserError(f"control_variate={cv}: allowed values: true, false")
    if cv:
        # reference: each chain's initial point (its SWA point under init=swa), so the
        # gradient differences are small where the localized chains stay
        pot = ControlVariate(
            pot, x0.clone(), batches=sched._fixed, chunk=int(cfg.batch_size), cache_limit=_cache_limit(device)
        )
        cv_pot = pot
        log.info("control variate: per-batch reference gradients %s", "cached" if pot.cached else "recomputed each step")
    if cfg.init.name == "swa":
        lam = float(cfg.init.localization)
        if lam > 0:
            pot = Localized(pot, x0.clone(), lam)
            boundary = ElasticBox.for_localization(x0.clone(), lam, float(cfg.init.bounce_width))

    params = {k: v for k, v in cfg.integrator.items() if k not in ("name", "description")}
    try:
        integrator = get_integrator(cfg.integrator.name, **params)
    except (TypeError, ValueError) as e:
        raise UserError(f"integrator={cfg.integrator.name}: bad parameters {params}: {e}") from None
    _check_oracle(integrator, pot, sched, x0)
    try:
        integrator.check_run(settings.burn_in, settings.total_steps)
    except ValueError as e:
        raise UserError(f"integrator={cfg.integrator.name}: {e}") from None
    ctx = StepContext(
        h=float(cfg.step_size),
        gamma=float(cfg.friction),
        noise=GaussianNoise(device, seed * 2),
        boundary=boundary,
    )
    try:
        state = integrator.init_state(x0, ctx)
    except ValueError as e:
        raise UserError(f"integrator={cfg.integrator.name}: {e}") from None

    (run_dir / "config.yaml").write_text(config_yaml)
    attrs = {
        "config": config_yaml,
        "version": __version__,
        "seed": seed,
        "integrator": cfg.integrator.name,
        "batching": cfg.batching.name,
        "dataset": cfg.dataset.name,
        "model": cfg.model.name,
        "step_size": float(cfg.step_size),
        "friction": float(cfg.friction),
        "batch_size": int(cfg.batch_size),
        "chains": chains,
        "burn_in_steps": settings.burn_in,
        "thin_steps": settings.thin,
        "schedule_period": sched.period,
        "device": str(device),
        "control_variate": ("cached" if cv_pot.cached else "recomputed") if cv else "off",
    }
    n_out = _predictive_shape(data)
    if n_out is not None:
        pot.predictive_numel = n_out[0] * n_out[1]
    if resume:
        store = SampleStore(path, "r+")
        sampler = Sampler(pot, integrator, sched, ctx, settings, store, store_theta=bool(cfg.store_theta))
        state = sampler.restore(store.read_state(), device)
        store.attrs["draws"] = sampler.draws  # draws written after the last resume state are redone
        print(f"[bnnsample] resuming {path} at step {sampler.step} of {settings.total_steps}")
    else:
        store = _create_store(path, cfg, settings, pot, data, attrs, extra_arrays, x0)
        sampler = Sampler(pot, integrator, sched, ctx, settings, store, store_theta=bool(cfg.store_theta))
    try:
        sampler.run(state)
        store.mark_complete()
        n_div = int(sampler.diverged.sum())
        summary = f"{n_div} of {chains} chains diverged" if n_div else f"all {chains} chains finite"
        log.info("sampling done: %d steps, %d draws per chain; %s", settings.total_steps, settings.samples, summary)
        print(f"[bnnsample] {summary}; samples in {path}")
    finally:
        store.close()
    return path


def same_sampling_config(a: str | None, b: str) -> bool:
    """Two resolved configs (YAML) that give the same draws: equal but for the keys that do
    not change them (config.NOT_SAMPLING_KEYS: progress bar, evaluation, reference, flush
    cadence, data location), so a rerun that changes only those continues or reuses the run."""
    import yaml

    from .config import NOT_SAMPLING_KEYS

    if a is None:
        return False
    def sampling(y: str) -> dict:
        return {k: v for k, v in (yaml.safe_load(y) or {}).items() if k not in NOT_SAMPLING_KEYS}

    return sampling(a) == sampling(b)


def _resumable(path: Path, config_yaml: str):
    """False (start afresh), True (resume from state/) or "complete"."""
    if not path.exists():
        return False
    try:
        with SampleStore(path) as old:
            if not same_sampling_config(old.attrs.get("config"), config_yaml):
                raise UserError(
                    f"{path} holds a run with a different config; choose another hydra.run.dir "
                    "(or delete the file) to start a new run there"
                )
            if old.complete:
                return "complete"
            if "step" in old.f["state"] and not old.state_consistent:
                log.warning("%s: the run was killed while writing its resume state; starting afresh", path)
            return old.state_consistent
    except OSError:
        log.warning("%s is unreadable; starting the run afresh", path)
        return False


def _create_store(path, cfg, settings, pot, data, attrs, extra_arrays, x0) -> SampleStore:
    n_out = _predictive_shape(data)
    store = SampleStore.create(
        path,
        chains=int(cfg.chains),
        draws=settings.samples,
        dim=pot.dim,
        store_theta=bool(cfg.store_theta),
        theta_dtype=cfg.dtype,
        predictive_shape=n_out,
        attrs=attrs,
    )
    if data.y_test is not None:
        store.write_array("targets", data.y_test.numpy())
    for name, arr in extra_arrays.items():
        store.write_array(name, arr.cpu().numpy() if torch.is_tensor(arr) else arr)
    store.write_array("init/x0", x0.cpu().numpy())
    store.flush()
    return store

