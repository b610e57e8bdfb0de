"""`bnnsample run`: config -> data -> potential -> initial point -> sampler -> HDF5 -> evaluation."""

from __future__ import annotations

import errno
import logging
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from omegaconf import DictConfig, OmegaConf

from . import __version__
from .batching import Schedule
from .config import Resolved, config_text, validate, validate_against_data
from .data import absolute_paths, load_data
from .initial import TRAINING_CHECKPOINT, initial_points, localization
from .integrators import StepContext, get_integrator
from .plumbing.determinism import deterministic_kernels
from .plumbing.errors import Interrupted, TimeLimit, UserError, WriteRefused
from .plumbing.progress import say
from .plumbing.resources import check_resources, free_memory
from .plumbing.rng import GaussianNoise, make_generator
from .plumbing.stop import deadline
from .potential import ControlVariate, ElasticBox, Localized, Oracle
from .rundir import check_writable_target, damaged_error, move_aside, owned, write_file
from .sampler import LoopSettings, Sampler, block_draws, draw_numbers
from .simulate import Seeds, potential_of
from .store import FILENAME, SampleStore, StoreDamaged, open_checked

log = logging.getLogger("bnnsample")


def resolve_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise UserError("device=cuda: no CUDA device is available here; allowed: auto, cpu")
    return torch.device(name)


def _load_data(cfg: DictConfig):
    """load_data with a loader's ValueError (a test or training size the data set cannot
    give) as one line naming the key. A run only reads its data: a generated set's kept
    tensors are shared, its inputs kept in the run's dtype (tests/data/test_data_cache.py checks
    that a run leaves them as they were)."""
    try:
        return load_data(cfg, shared=True, features=getattr(torch, cfg.dtype))
    except ValueError as e:
        text = str(e).splitlines()[0] if str(e) else type(e).__name__
        key = next((f"dataset.{k}" for k in ("n_test", "n_train") if k.replace("n_", "") + "_size" in text), "dataset")
        value = cfg.dataset.get(key.split(".", 1)[1]) if "." in key else cfg.dataset.name
        raise UserError(f"{key}={value}: the data set {cfg.dataset.name} cannot give it ({text})") from None


def _cache_limit(device: torch.device) -> int:
    """Numbers the control variate may keep for its per-batch reference gradients: a quarter
    of the available host memory in float64 numbers on the CPU (at least 2^28), half the free
    memory on a GPU. All of Fashion-MNIST's 300 batches for 16 runs of cnn_small (350M numbers)
    fit on a 24 GB machine; caching keeps one gradient per step instead of two."""
    if device.type == "cuda":
        return int(free_memory(device) // 8)
    return max(2**28, min(free_memory(device), 2**40) // 4 // 8)


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
    """Execute one run into run_dir; returns the path of samples.h5. The run directory is
    owned (rundir.owned) for the whole run: a second process refuses.

    Stages: prepare (validate against the data, build the potential and the batch schedule,
    decide on resuming), initial points (the init/ strategy, or the stored ones on resume),
    target (control variate, localization), integrator (checked against the target), sample
    (into the store, verified when written)."""
    plain = validate(cfg)
    limit = plain.get("time_limit")
    with (
        owned(run_dir),
        deterministic_kernels(resolve_device(plain["device"]), plain.get("deterministic", True)),
        deadline(limit),
    ):
        try:
            return _run(cfg, Path(run_dir), plain)
        except Interrupted as e:
            if deadline.expired():
                raise TimeLimit(f"time_limit={limit} s reached: {e}; the same command resumes") from None
            raise


@dataclass
class _Prepared:
    """What the stages after ``_prepare`` share."""

    cfg: DictConfig
    c: Resolved  # the same config resolved: what the stages read (a DictConfig lookup is ~6 us a level)
    run_dir: Path
    device: torch.device
    dtype: torch.dtype
    data: object
    pot: object
    sched: Schedule
    settings: LoopSettings
    config_yaml: str
    n_out: tuple[int, int] | None
    resume: object  # False, True or "complete" (see _resumable)

    @property
    def path(self) -> Path:
        return self.run_dir / FILENAME

    @property
    def expected(self) -> dict:
        return _expected_layout(self.c, self.settings, self.pot.dim, self.n_out, self.data)


def _run(cfg: DictConfig, run_dir: Path, plain: dict) -> Path:
    p = _prepare(cfg, run_dir, plain)
    if p.resume == "complete":
        write_file(p.run_dir / "config.yaml", p.config_yaml)  # an edited or stale copy does not survive
        say(f"{p.path} is already complete; nothing to do (choose another hydra.run.dir to rerun)")
        return p.path
    if hasattr(p.pot, "module") and not p.resume:
        _print_estimate(p)
    extra_arrays: dict = {}
    x0 = _initial_points(p, extra_arrays)
    pot, boundary, cv = _target(p, x0)
    integrator, ctx, state = _integrator(p, pot, x0, boundary)
    return _sample(p, pot, integrator, ctx, state, x0, extra_arrays, cv)


def _prepare(cfg: DictConfig, run_dir: Path, plain: dict | None = None) -> _Prepared:
    """Checks that need only the config and the data, the potential, the batch schedule, the
    loop settings, and whether the run directory holds a run to resume. ``plain``: the resolved
    config as validate returned it (else resolved here)."""
    plain = absolute_paths(OmegaConf.to_container(cfg, resolve=True) if plain is None else plain)
    c = Resolved.of(plain)
    device = resolve_device(c.device)
    dtype = getattr(torch, c.dtype)
    data = _load_data(c)
    log.info("data loaded: %s, %d training points", c.dataset.name, data.n_train)
    validate_against_data(c, data.n_train, c.dataset.name)
    pot = potential_of(cfg, data, device=device, dtype=dtype)
    check_resources(c, pot.dim, _predictive_shape(data), run_dir / FILENAME, device)
    if c.get("compile", False) and hasattr(pot, "compile_force"):
        pot.compile_force()
        say("compile=true: the network's force (forward and backward) compiled with torch.compile; the first call "
            "of each batch shape compiles (about half a minute for a small network on a 2-core CPU)")  # fmt: skip

    sched, settings = _schedule_and_settings(c, data, pot, device)
    config_yaml = config_text(plain)
    p = _Prepared(cfg, c, run_dir, device, dtype, data, pot, sched, settings, config_yaml, _predictive_shape(data),
                  False)  # fmt: skip
    p.resume = _resumable(p.path, p.config_yaml, p.expected)
    return p


def _print_estimate(p: _Prepared) -> None:
    """One line with the run's estimated time on this device (models/cost.py), before a
    network run trains or samples."""
    from .models.cost import estimate_line, run_cost

    training = p.cfg.init.name == "swa" and not p.cfg.init.get("reuse")
    cost = run_cost(p.cfg, p.pot, _steps_per_epoch(p.cfg, p.sched), p.settings.total_steps, p.device, training)
    print(estimate_line(cost, p.cfg, p.device), flush=True)


def _schedule_and_settings(cfg: DictConfig, data, pot, device: torch.device) -> tuple[Schedule, LoopSettings]:
    """The run's batch schedule and loop settings (burn-in and thinning in steps)."""
    per_chain = cfg.batching.per_chain
    if per_chain == "auto":
        per_chain = data.task == "density"
    sched = Schedule(
        cfg.batching.name,
        pot.n_data,
        int(cfg.batch_size),
        chains=int(cfg.chains) if per_chain else None,
        partition=cfg.batching.partition,
        generator=make_generator(device, Seeds.of(cfg.seed).batches),
        device=device,
    )
    unit = _steps_per_epoch(cfg, sched) if cfg.unit == "epoch" else 1
    settings = LoopSettings(
        burn_in=int(cfg.burn_in) * unit,
        samples=int(cfg.samples),
        thin=int(cfg.thin) * unit,
        check_every=int(cfg.check_every),
        flush_seconds=float(cfg.flush_seconds),
        progress=bool(cfg.progress),
        compile=bool(cfg.get("compile", False)),
    )
    return sched, settings


def _steps_per_epoch(cfg: DictConfig, sched: Schedule) -> int:
    return max(1, sched.n_batches) if cfg.batching.name != "full" else 1


def estimate_cost(cfg: DictConfig, training: bool = True):
    """The cost model (models/cost.py) of a network run of ``cfg`` on its device, without
    running it: data, potential and schedule built, two force evaluations timed."""
    from .models.cost import run_cost

    validate(cfg)
    device = resolve_device(cfg.device)
    data = _load_data(cfg)
    pot = potential_of(cfg, data, device=device)
    if not hasattr(pot, "module"):
        raise UserError(f"model={cfg.model.name}: the cost estimate is for networks")
    sched, settings = _schedule_and_settings(cfg, data, pot, device)
    return run_cost(cfg, pot, _steps_per_epoch(cfg, sched), settings.total_steps, device, training)


def _initial_points(p: _Prepared, extra_arrays: dict) -> torch.Tensor:
    """x0 [C, d]: the stored one when resuming, else the init/ strategy's (bnnsample/initial.py)."""
    if p.resume:
        with open_checked(p.path) as old:
            return torch.as_tensor(old.array("init/x0"), device=p.device, dtype=p.dtype)
    return initial_points(p.cfg, p.pot, p.device, p.dtype, extra_arrays, run_dir=p.run_dir)


def _target(p: _Prepared, x0: torch.Tensor):
    """The potential the sampler sees: with the control variate (reference point: each chain's
    x0), and localized around x0 when the init strategy localizes (initial.localization);
    returns (potential, elastic boundary or None, the ControlVariate or None)."""
    cfg, pot, boundary, cv_pot = p.c, p.pot, None, None
    cv = cfg.get("control_variate", False)
    if not isinstance(cv, bool):
        raise UserError(f"control_variate={cv}: allowed values: true, false")
    if cv:
        # reference: each chain's initial point (its SWA point under init=swa), so the
        # gradient differences are small where the localized chains stay
        pot = cv_pot = ControlVariate(pot, x0.clone(), batches=p.sched.fixed_partition, chunk=int(cfg.batch_size),
                                      cache_limit=_cache_limit(p.device))  # fmt: skip
        log.info(
            "control variate: per-batch reference gradients %s", "cached" if pot.cached else "recomputed each step"
        )
    lam = localization(cfg)
    if lam > 0:
        pot = Localized(pot, x0.clone(), lam)
        boundary = ElasticBox.for_localization(x0.clone(), lam, float(cfg.init.bounce_width))
    return pot, boundary, cv_pot


def _integrator(p: _Prepared, pot, x0: torch.Tensor, boundary):
    """The configured integrator, checked against the target and the run length, its step
    context and initial state; returns (integrator, ctx, state)."""
    cfg = p.c
    params = {k: v for k, v in cfg.integrator.items() if k not in ("name", "description")}
    try:
        integrator = get_integrator(cfg.integrator.name, **params)
    except (TypeError, ValueError) as e:
        raise UserError(f"integrator={cfg.integrator.name}: bad parameters {params}: {e}") from None
    _check_oracle(integrator, pot, p.sched, x0)
    try:
        integrator.check_run(p.settings.burn_in, p.settings.total_steps)
    except ValueError as e:
        raise UserError(f"integrator={cfg.integrator.name}: {e}") from None
    ctx = StepContext(
        h=float(cfg.step_size),
        gamma=float(cfg.friction),
        noise=GaussianNoise(p.device, Seeds.of(cfg.seed).noise),
        boundary=boundary,
    )
    try:
        state = integrator.init_state(x0, ctx)
    except ValueError as e:
        raise UserError(f"integrator={cfg.integrator.name}: {e}") from None
    return integrator, ctx, state


def _attrs(p: _Prepared, cv_pot) -> dict:
    """The store's run attributes."""
    cfg = p.c
    return {
        "config": p.config_yaml,
        "version": __version__,
        # the numbers of a run depend on the libraries' kernels too: a rerun under another torch
        # or NumPy build agrees in law, not bit for bit
        "torch_version": str(torch.__version__),  # a str subclass, which h5py cannot store
        "numpy_version": np.__version__,
        "seed": int(cfg.seed),
        "integrator": cfg.integrator.name,
        "batching": cfg.batching.name,
        "dataset": cfg.dataset.name,
        "model": cfg.model.name,
        "step_size": float(cfg.step_size),
        "friction": float(cfg.friction),
        "batch_size": int(cfg.batch_size),
        "chains": int(cfg.chains),
        "burn_in_steps": p.settings.burn_in,
        "thin_steps": p.settings.thin,
        "schedule_period": p.sched.period,
        "device": str(p.device),
        "control_variate": "off" if cv_pot is None else ("cached" if cv_pot.cached else "recomputed"),
        # where the data files were read from, for data sets looked for in several folders (fmnist)
        **({"data_source": p.data.source} if getattr(p.data, "source", "") else {}),
    }


def _sample(p: _Prepared, pot, integrator, ctx, state, x0, extra_arrays: dict, cv_pot) -> Path:
    """Sample into a new store, or on into the one being resumed; verify what was written."""
    cfg, path, settings, resume = p.c, p.path, p.settings, p.resume
    attrs = _attrs(p, cv_pot)
    if p.n_out is not None:
        pot.predictive_shape = p.n_out
    if resume:
        store = SampleStore(path, "r+")
        sampler = Sampler(pot, integrator, p.sched, ctx, settings, store, store_theta=bool(cfg.store_theta))
        fresh = {k: (tuple(v.shape), v.dtype) for k, v in state.tensors().items()}
        try:
            state = sampler.restore(store.read_state(), p.device)
            got = {k: (tuple(v.shape), v.dtype) for k, v in state.tensors().items()}
            if got != fresh:  # found before "resuming" is said and the first step fails
                k = next(k for k in sorted({*got, *fresh}) if got.get(k) != fresh.get(k))
                raise ValueError(f"state {k} is {got.get(k)}, this run's is {fresh.get(k)}")
        except (KeyError, ValueError, RuntimeError) as e:
            store.close()
            raise UserError(
                f"{path}: its resume state does not fit this run ({e}); choose another hydra.run.dir"
            ) from None
        store.set_draws(sampler.draws)  # draws written after the last resume state are redone
        write_file(p.run_dir / "config.yaml", p.config_yaml)  # a stale or edited copy does not survive
        say(f"resuming {path} at step {sampler.step} of {settings.total_steps}")
    else:
        store = _create_store(path, cfg, settings, pot, p.data, attrs, extra_arrays, x0)
        write_file(p.run_dir / "config.yaml", p.config_yaml)
        (p.run_dir / TRAINING_CHECKPOINT).unlink(missing_ok=True)  # the store holds the trained points now
        sampler = Sampler(pot, integrator, p.sched, ctx, settings, store, store_theta=bool(cfg.store_theta))
    try:
        cpu0, wall0 = time.process_time(), time.perf_counter()
        sampler.run(state)
        timed = (None, None) if resume else (time.process_time() - cpu0, time.perf_counter() - wall0)
        store.mark_complete(*timed)
    except WriteRefused as e:
        kept = store.n_draws
        raise WriteRefused(f"{e}; nothing was written past the last flush ({kept} draws per chain and their resume "
                           "state are kept): free space and rerun the same command to resume") from None  # fmt: skip
    except UserError:
        # bad input that only the first steps reveal: a store without a single draw or resume
        # state is removed, so the corrected command runs in this directory
        if not resume and store.n_draws == 0 and not store.state_consistent:
            store.close()
            path.unlink(missing_ok=True)
            (p.run_dir / "config.yaml").unlink(missing_ok=True)
        raise
    except OSError as e:
        if (failed := store.mark_failed(e)) is not None:
            raise failed from e  # the disk failed: the command line says so in one line, ends the process at once
        raise _write_error(path, e, store) from None
    finally:
        store.close()
    _verify_written(path, p.expected, settings.samples)
    chains = int(cfg.chains)
    n_div = int(sampler.diverged.sum())
    summary = f"{n_div} of {chains} chains diverged" if n_div else f"all {chains} chains finite"
    log.info("sampling done: %d steps, %d draws per chain; %s", settings.total_steps, settings.samples, summary)
    say(f"{summary}; samples in {path}")
    return path


def _write_error(path: Path, e: OSError, store: SampleStore) -> UserError:
    """An OSError while writing draws as one line; a full disk says how to go on."""
    try:
        kept = store.state_consistent and int(store.f["state/draws"][()])
    except Exception:  # noqa: BLE001  (the file may be in any state after a failed write)
        kept = None
    text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    if e.errno == errno.ENOSPC or "No space left" in str(e) or "errno = 28" in str(e):
        where = (
            f"{kept} draws per chain and the resume state of the last flush are kept"
            if kept
            else "the draws of the last flush are kept"
        )
        return UserError(
            f"disk full while writing {path}: {where}; free space (or move the run directory) "
            "and rerun the same command to resume"
        )
    return UserError(f"writing {path} failed ({text}); rerun the same command to resume from the last flush")


def _verify_written(path: Path, expected: dict, samples: int) -> None:
    """Reopen the finished store, check its layout and read its resume state back (checksums)
    before reporting success.

    The draws are not read back here: right after writing they come from the operating
    system's page cache, not from the disk, so a second pass over every value would re-check
    only HDF5's own bookkeeping (measured: a fifth of the fixed cost of a 4000-chain run,
    64 MB of test predictions per draw). Their Fletcher-32 checksums are checked wherever they
    are read later: on resume (``_resumable``) and by the evaluation."""
    try:
        with open_checked(path) as s:
            lacks = s.missing(expected)
            if lacks or not s.complete or s.n_draws != samples:
                what = ", ".join(lacks) or f"{s.n_draws} of {samples} draws, complete={s.complete}"
                raise StoreDamaged(f"not whole after writing: {what}")
            s.verify(under="state")
    except StoreDamaged as e:
        raise UserError(f"{path} failed its check after writing ({e}); the run is not reported done") from None


def _expected_layout(cfg, settings, dim: int, n_out, data) -> dict:
    """What a store of this config must hold ({name: shape | None | "group"})."""
    chains, draws = int(cfg.chains), settings.samples
    out = {"diverged": (chains,), "init/x0": (chains, dim), "state": "group", "diagnostics": "group"}
    if cfg.store_theta:
        out["theta"] = (chains, draws, dim)
    if n_out is not None:
        out["predictive"] = (chains, draws, *n_out)
    if data.y_test is not None:
        out["targets"] = None
    return out


# keys added to the config after runs were stored without them, with the value that gives those
# runs' draws: a stored config that lacks one is read with it. deterministic=true is what every
# earlier run had on CUDA; model.precision=auto is float32 on the CPU, the PyTorch default earlier
# runs had there (on CUDA they had TF32 convolutions and IEEE products, neither of today's choices)
LATER_KEYS = {"compile": False, "deterministic": True}
LATER_GROUP_KEYS = {"model": {"precision": "auto"}}


def _on_cuda(d: dict) -> bool:
    """A config that ran (or runs) on a GPU: device=cuda, or auto where CUDA is present."""
    return d.get("device") == "cuda" or (d.get("device") == "auto" and torch.cuda.is_available())


def same_sampling_config(stored: dict, config_yaml: str) -> bool:
    """A store's config (``SampleStore.config``, {} when it has none) and a resolved config
    (YAML) that give the same draws: equal but for the keys that do not change them
    (config.NOT_SAMPLING_KEYS: progress bar, evaluation, reference, flush cadence, data
    location), so a rerun that changes only those continues or reuses the run."""
    import yaml

    from .config import NOT_SAMPLING_KEYS

    if not stored:
        return False

    def sampling(d: dict) -> dict:
        d = {**LATER_KEYS, **d}
        for group, keys in LATER_GROUP_KEYS.items():
            if isinstance(d.get(group), dict) and not _on_cuda(d):
                d[group] = {**keys, **d[group]}
        return {k: v for k, v in d.items() if k not in NOT_SAMPLING_KEYS}

    return sampling(stored) == sampling(yaml.safe_load(config_yaml) or {})


def _resumable(path: Path, config_yaml: str, expected: dict):
    """False (start afresh), True (resume from state/) or "complete".

    A store that HDF5 cannot read, or whose data fail their checksums, is moved aside and
    the run refused (UserError naming both files); one that lacks what this config must hold
    is refused; one without a usable resume state is moved aside and the run starts afresh."""
    check_writable_target(path)
    if not path.exists():
        return False
    try:
        with open_checked(path) as old:
            if not same_sampling_config(old.config(), config_yaml):  # its digest checked before it is parsed
                raise UserError(
                    f"{path} holds a run with a different config; choose another hydra.run.dir "
                    "(or delete the file) to start a new run there"
                )
            # a complete run needs no resume state: one whose state/ was removed is still whole
            needed = {k: v for k, v in expected.items() if not (old.complete and k == "state")}
            lacks = old.missing(needed) + [f"no attribute {a}" for a in ("draws", "complete") if a not in old.attrs]
            if lacks:
                raise UserError(
                    f"{path} is not a whole store ({', '.join(lacks)}); it cannot be resumed or reused: "
                    "move it away or choose another hydra.run.dir"
                )
            if old.complete:
                return "complete"
            old.verify()
            consistent = old.state_consistent
    except StoreDamaged as e:
        raise damaged_error(path, str(e)) from None
    if not consistent:
        dest = move_aside(path, "no resume state")
        print(
            f"bnnsample: warning: {path} has no complete resume state (the run was killed before or while "
            f"writing it); moved it to {dest.name}, starting afresh",
            file=sys.stderr,
        )
    return consistent


def _create_store(path, cfg, settings, pot, data, attrs, extra_arrays, x0) -> SampleStore:
    """The new store, set up under a temporary name and then published as ``path``: a
    failure while setting it up (a disk that fills, an attribute HDF5 refuses) leaves none."""
    n_out = _predictive_shape(data)
    per_draw = draw_numbers(pot.dim, bool(cfg.store_theta), n_out[0] * n_out[1] if n_out else 0)
    store = SampleStore.create(
        path,
        chains=int(cfg.chains),
        draws=settings.samples,
        dim=pot.dim,
        store_theta=bool(cfg.store_theta),
        theta_dtype=cfg.dtype,
        predictive_shape=n_out,
        attrs=attrs,
        staged=True,
        block_draws=block_draws(int(cfg.chains), per_draw, settings.flush_numbers),
    )
    try:
        arrays = {
            name: arr.cpu().numpy() if torch.is_tensor(arr) else np.asarray(arr) for name, arr in extra_arrays.items()
        }
        if data.y_test is not None:
            arrays = {"targets": data.y_test.numpy(), **arrays}
        arrays["init/x0"] = x0.cpu().numpy()
        store.reserve_bytes(sum(a.nbytes for a in arrays.values()))  # HDF5 must not meet a full disk
        for name, arr in arrays.items():
            store.write_array(name, arr)
        store.publish()
    except BaseException:
        store.discard()
        raise
    return store
