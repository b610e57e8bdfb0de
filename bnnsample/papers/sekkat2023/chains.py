"""Runs of many independent chains recorded as arrays (the method of sekkat2023's toy and BNN
experiments), and the runs on the Gaussian model of sekkat2023 §2.5.1 with their relative
variance errors against its exact stationary variances (eqs. 41-42, App. B).

Instead of one trajectory of physical length T = 10^6 (the paper's), many independent chains
(one tensor dimension, each with its own minibatches: ``Schedule(per chain)``) run for a much
shorter time, with the project's own integrators, schedules and potentials driven by
``integrator.advance`` (``simulate``). Toy chains start from the exact posterior (closed form or
grid quadrature) with v ~ N(0, I), so that short burn-ins suffice and the metastable mixture's
mode weights start right; the paper starts at theta = p = 0. Monte Carlo standard errors come
from the spread between chains.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .gaussian import GaussianModel, gaussian_model

GAMMA = 1.0


@dataclass
class Run:
    x: np.ndarray | None  # [C, D, d] recorded positions (None where a kept run dropped them)
    friction: np.ndarray | None = None  # [C, D] tr(xi)/d (thermostat schemes)
    xi: np.ndarray | None = None  # [C, *shape] final thermostat variable
    predict: np.ndarray | None = None  # [C, D] N_theta(x*) (BNN)
    xi_mean: np.ndarray | None = None  # [C, *shape] thermostat variable averaged over the recorded draws
    seconds: float = 0.0  # CPU seconds of the run (one thread): what cost estimates scale, whatever the load
    steps: int = 0

    @classmethod
    def cached(cls, cache, key, make: Callable[[], Run]) -> Run:
        """The run of ``key`` in ``cache`` (a ``jobs.cells.CellCache``), else ``make()``, kept there."""
        d = cache.arrays(key, lambda: vars(make()))
        return cls(**{f: d.get(f) for f in ("x", "friction", "xi", "predict", "xi_mean")},
                   seconds=float(d["seconds"]), steps=int(d["steps"]))  # fmt: skip


def target(overrides):
    """The potential of a dataset config composed as ``bnnsample run`` would (float64, CPU, model seed 0)."""
    from ...simulate import build_target

    return build_target(overrides, seed=0).potential


def run_chains(pot, scheme: str, params: dict, batching: str, n: int, h: float, x0, v0=None, *, burn: int,
             draws: int, thin: int, seed: int, gamma: float = GAMMA, predict: bool = False) -> Run:  # fmt: skip
    """Run ``scheme`` (a registered integrator with ``params``) on ``pot`` from x0 [C, d] (and
    v0, else the integrator's own initial velocity), one minibatch per chain and step from the
    schedule ``batching`` (iid | iid_wor | full) of size n, step h: ``burn`` steps (in blocks of
    at most 1000), then ``draws`` records every ``thin`` steps. The random streams are seeded
    with ``seed`` (minibatches) and ``seed + 7`` (noise), as for the committed numbers."""
    import torch

    from ...integrators import get_integrator
    from ...simulate import Seeds
    from ...simulate import simulate as run

    torch.set_num_threads(1)
    integ = get_integrator(scheme, **params)
    xs, fr, pr, xi_sum = [], [], [], []

    def record(t, state):
        xs.append(state.x.numpy().copy())
        if "xi" in state.extra:
            xi = state.extra["xi"].numpy()
            xi_sum[:] = [xi.copy() if not xi_sum else xi_sum[0] + xi]
        diag = integ.diagnostics(state)
        if "friction" in diag:
            fr.append(diag["friction"].numpy().copy())
        if predict:
            pr.append(pot.predict(state.x)[:, 0, 1].numpy().copy())

    t0 = time.process_time()
    total = burn + draws * thin
    state = run(pot, integ, x0=x0, v0=v0, h=h, gamma=gamma, steps=total, burn_in=burn, thin=thin, record=record,
                burn_block=1000, batching=batching, batch_size=n, seeds=Seeds(noise=seed + 7, batches=seed))  # fmt: skip
    return Run(np.stack(xs, 1), np.stack(fr, 1) if fr else None,
               state.extra["xi"].numpy().copy() if "xi" in state.extra else None, np.stack(pr, 1) if pr else None,
               xi_sum[0] / len(xs) if xi_sum else None, time.process_time() - t0, total)  # fmt: skip


def eps_of(N: int, n: int, batching: str) -> float:
    from ...potential import covariance_factor

    return 0.0 if batching == "full" else covariance_factor(n, N, with_replacement=batching == "iid")


def gaussian() -> tuple[object, GaussianModel]:
    """The Gaussian target of §2.5.1 (dataset gaussian_mean, variant sekkat) and its model."""
    pot = target(["dataset=gaussian_mean", "dataset.variant=sekkat"])
    return pot, gaussian_model(pot)


def variance_error(x: np.ndarray, exact_var: float) -> tuple[float, float, float]:
    """Relative variance error (|Var - var| / var, §2.5.1 and Fig. 3) of pooled draws x [C, D], the
    Monte Carlo standard error of the signed error (chain_var_se) and the signed error."""
    from ...evaluate.metrics import chain_var_se, relative_variance_error

    v, se = chain_var_se(x)
    return relative_variance_error(v, exact_var), se / exact_var, (v - exact_var) / exact_var


def _gaussian_start(gm: GaussianModel, C: int, seed: int):
    """C chains' positions drawn from the exact posterior and velocities from N(0, 1)."""
    rng = np.random.default_rng(seed)
    return gm.mu + rng.standard_normal((C, 1)) * math.sqrt(gm.var), rng.standard_normal((C, 1))


def gaussian_run(pot, gm: GaussianModel, scheme: str, params: dict, batching: str, n: int, h: float, chains: int,
                 burn_time: float, time_: float, seed: int) -> tuple[Run, float, float, float]:  # fmt: skip
    """A run of ``chains`` chains started by ``_gaussian_start``, ``burn_time`` then ``time_`` time units (200 draws),
    and the ``variance_error`` of its draws."""
    x0, v0 = _gaussian_start(gm, chains, seed)
    steps = max(200, round(time_ / h))
    run = run_chains(pot, scheme, params, batching, n, h, x0, v0, seed=seed, draws=200, thin=steps // 200,
                   burn=round(burn_time / h))  # fmt: skip
    return run, *variance_error(run.x[:, :, 0], gm.var)
