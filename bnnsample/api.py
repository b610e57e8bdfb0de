"""The Python entry points (docs/custom.md): ``run``, ``load`` and ``sample``.

    run(overrides) -> Path      what ``bnnsample run OVERRIDES`` runs, in this process; the run directory
    load(run_dir) -> Run        a run's draws, predictive, targets and metrics; ``.to_arviz()``
    sample(log_density, init, ...) -> Samples
                                chains of a registered scheme on U = -log_density, in memory

``sample`` builds the target of ``model=log_density`` (``models.custom.LogDensityPotential``:
gradients by autograd) and runs the simulation kernel of every run (``simulate.simulate``, the
seed rule ``Seeds.of(seed)``, blocks ending at draws and every ``check_every`` steps as a run's
do), so ``sample(f, torch.zeros(C, d), step_size=h, burn_in=B, samples=S, thin=T, seed=s)``
gives the draws of ``bnnsample run dataset=none model.fn=F model.dim=d step_size=h friction=1.0
burn_in=B samples=S thin=T seed=s chains=C``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .plumbing.errors import UserError


class RunFailed(UserError):
    """``bnnsample.run`` stopped: the one line ``bnnsample run`` prints, and its exit code."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


class _Tee:
    """sys.stderr that keeps what is written to it as well."""

    def __init__(self, real):
        self.real, self.text = real, []

    def write(self, s):
        self.text.append(s)
        return self.real.write(s)

    def flush(self):
        self.real.flush()

    def __getattr__(self, name):
        return getattr(self.real, name)


def run(overrides: list[str] | tuple[str, ...] | str = ()) -> Path:
    """Run ``bnnsample run *overrides`` (a list, or one string split as a shell would) in this
    process (the same composition, checks, sampling and evaluation) and return its run directory
    (``hydra.run.dir=DIR`` chooses it). A run that stops raises RunFailed with the line the
    command prints; Ctrl-C and SIGTERM handlers, sys.argv and the logging setup are put back
    afterwards. One run: a sweep (``-m``) is refused."""
    import logging
    import signal
    import threading

    from . import cli

    if isinstance(overrides, str):  # one command-line string: split as a shell would
        import shlex

        overrides = shlex.split(overrides)
    overrides = [str(o) for o in overrides]
    if any(o in ("-m", "--multirun") or o.startswith("--") for o in overrides):
        raise ValueError("bnnsample.run runs one run: give key=value overrides (for a sweep, call it in a loop)")
    main_thread = threading.current_thread() is threading.main_thread()
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)} if main_thread else {}
    argv, stderr = list(sys.argv), sys.stderr
    from hydra.core.global_hydra import GlobalHydra

    loggers = [logging.getLogger(), logging.getLogger("bnnsample")]
    log_state = [(lg, list(lg.handlers), lg.level) for lg in loggers]
    tee = sys.stderr = _Tee(stderr)
    cli.LAST_RUN_DIR.clear()
    GlobalHydra.instance().clear()
    try:
        cli.main(["run", *overrides])
    except SystemExit as e:
        if e.code not in (0, None):
            lines = [ln.strip() for ln in "".join(tee.text).splitlines() if ln.strip().startswith("bnnsample: error:")]
            text = lines[-1].removeprefix("bnnsample: error: ") if lines else f"bnnsample run exited with {e.code}"
            raise RunFailed(text, int(e.code) if isinstance(e.code, int) else 1) from None
    finally:
        sys.stderr, sys.argv = stderr, argv
        for s, h in handlers.items():
            signal.signal(s, h)
        GlobalHydra.instance().clear()
        for lg, kept, level in log_state:  # Hydra's job logging attaches handlers (the run's log file)
            for h in lg.handlers[:]:
                if h not in kept:
                    lg.removeHandler(h)
                    h.close()
            lg.setLevel(level)
    if not cli.LAST_RUN_DIR:
        raise RunFailed("bnnsample run did not start a run", 1)
    return cli.LAST_RUN_DIR[-1]


@dataclass
class Run:
    """A finished (or partial) run read back: numpy arrays, chains first."""

    path: Path
    config: dict  # the resolved run config as stored
    draws: Any  # theta [chains, draws, d], or None (store_theta=false)
    predictive: Any  # [chains, draws, n_test, K]: class probabilities, or regression means (K = 1); or None
    targets: Any  # the test labels or targets [n_test] (regression: original units), or None
    diverged: Any  # [chains] bool
    metrics: Any  # metrics.csv as a pandas DataFrame (group, metric, value, se), or None before evaluation

    def to_arviz(self):
        """The run as an ArviZ InferenceData (``bnnsample export``'s groups)."""
        from .evaluate.export import inference_data
        from .store import FILENAME, SampleStore

        with SampleStore(self.path / FILENAME) as store:
            return inference_data(store)


def load(run_dir) -> Run:
    """The draws, predictive, test targets, divergence flags and metrics of a run directory."""
    import pandas as pd

    from .store import FILENAME, SampleStore

    run_dir = Path(run_dir)
    if not (run_dir / FILENAME).is_file():
        raise UserError(f"{run_dir}: no {FILENAME} there (give the directory bnnsample.run returned)")
    with SampleStore(run_dir / FILENAME) as store:
        config = store.config()
        n = store.n_draws
        predictive = store.f["predictive"][:, :n] if "predictive" in store.f else None
        loaded = dict(config=config, draws=store.theta(), predictive=predictive, targets=store.array("targets"),
                      diverged=store.diverged())  # fmt: skip
    metrics = pd.read_csv(run_dir / "metrics.csv") if (run_dir / "metrics.csv").is_file() else None
    return Run(path=run_dir, metrics=metrics, **loaded)


@dataclass
class Samples:
    """What ``sample`` returns: draws [chains, samples, d] (a CPU tensor), the chains that went
    non-finite [chains], and the settings they were drawn with."""

    draws: Any
    diverged: Any
    settings: dict

    def to_arviz(self):
        """An ArviZ InferenceData: posterior ``theta`` (chain, draw, theta_dim), sample_stats ``diverging``."""
        import arviz as az
        import numpy as np

        theta = self.draws.double().numpy()
        diverging = np.repeat(self.diverged.numpy()[:, None], theta.shape[1], axis=1)
        attrs = {f"bnnsample_{k}": str(v) for k, v in self.settings.items()}
        return az.from_dict(posterior={"theta": theta}, sample_stats={"diverging": diverging},
                            dims={"theta": ["theta_dim"]}, attrs=attrs)  # fmt: skip


def _scheme(integrator: str, params: dict | None) -> tuple[str, dict]:
    """(registered scheme, its parameters) of a scheme name or a preset of conf/integrator/."""
    from .integrators import REGISTRY
    from .plumbing.info import group_options

    if integrator in REGISTRY:
        return integrator, dict(params or {})
    if integrator in group_options("integrator"):
        from .simulate import preset_scheme

        name, preset, _, _ = preset_scheme(integrator)
        return name, {**preset, **(params or {})}
    from .plumbing.suggest import did_you_mean

    names = sorted({*REGISTRY, *group_options("integrator")})
    raise UserError(f"integrator={integrator}: allowed values: {', '.join(names)}{did_you_mean(integrator, names)}")


def sample(log_density, init, integrator: str = "ubu", step_size: float = 0.1, friction: float = 1.0,
           burn_in: int = 1000, samples: int = 1000, thin: int = 1, seed: int = 0, device: str = "auto",
           params: dict | None = None, check_every: int = 100) -> Samples:  # fmt: skip
    """Sample exp(log_density) with ``integrator`` from ``init`` [chains, d], in memory.

    ``log_density``: f(theta [chains, d]) -> [chains] (up to a constant, differentiable by torch
    autograd), or its dotted path "pkg.module.f". ``integrator``: a scheme or a preset of
    conf/integrator/ (its parameters; ``params`` adds or changes them); the gradient is exact, so
    every schedule is the full batch. ``burn_in``, ``thin`` in steps; ``samples`` draws per chain
    at steps burn_in + thin j. ``device``: auto (CUDA when there is one) | cpu | cuda; the
    dtype is init's (float64 unless init is float32). The noise is seeded by ``seed`` as a run's."""
    import torch

    from .models.custom import load_log_density
    from .runner import resolve_device
    from .simulate import Seeds, simulate

    init = torch.as_tensor(init)
    if init.dim() != 2 or init.shape[0] < 1 or init.shape[1] < 1:
        raise UserError(f"init has shape {tuple(init.shape)}; it must be [chains, d], one starting point per chain")
    dtype = init.dtype if init.dtype in (torch.float32, torch.float64) else torch.float64
    for key, value, low in (("burn_in", burn_in, 0), ("samples", samples, 1), ("thin", thin, 1),
                            ("check_every", check_every, 1)):  # fmt: skip
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise UserError(f"{key}={value}: must be an integer >= {low}")
    if not (float(step_size) > 0 and float(friction) >= 0):
        raise UserError(f"step_size={step_size}, friction={friction}: need step_size > 0 and friction >= 0")
    dev = resolve_device(device)
    pot = load_log_density(log_density, int(init.shape[1]), field="log_density")
    name, scheme_params = _scheme(integrator, params)
    from .integrators import get_integrator

    try:
        scheme = get_integrator(name, **scheme_params)
    except (TypeError, ValueError) as e:
        raise UserError(f"integrator={integrator}: bad parameters {scheme_params}: {e}") from None
    if "covariance" in scheme.needs:
        raise UserError(f"integrator={integrator} needs per-datum gradients; a log density has no data")
    out = torch.empty(init.shape[0], samples, init.shape[1], dtype=dtype)

    def record(t, state):
        out[:, (t - burn_in) // thin - 1] = state.x.detach().to("cpu", dtype)

    with torch.no_grad():
        state = simulate(pot, scheme, x0=init.to(dev, dtype), h=float(step_size), gamma=float(friction),
                         steps=burn_in + thin * samples, burn_in=burn_in, thin=thin, record=record,
                         check_every=check_every, seeds=Seeds.of(seed), device=dev, dtype=dtype)  # fmt: skip
    diverged = ~torch.isfinite(out).all(dim=2).all(dim=1) | ~torch.isfinite(state.x.cpu()).all(dim=1)
    settings = dict(integrator=integrator, step_size=step_size, friction=friction, burn_in=burn_in, samples=samples,
                    thin=thin, seed=seed, device=str(dev))  # fmt: skip
    return Samples(draws=out, diverged=diverged, settings=settings)
