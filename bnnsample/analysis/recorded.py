"""Exact moments of the draws a sampler records, next to their Monte Carlo estimates.

The recorded law of an affine scheme under a batch schedule: per-batch affine maps read off
the integrator (``probe``), the stationary moments of the schedule's cycle (``stationary``),
mixed over the recorded phases of the cycle (``recorded_mixture``).
"""

from __future__ import annotations

from functools import reduce

import numpy as np
import torch

from ..integrators import get_integrator
from ..integrators.base import StepContext
from ..plumbing.rng import GaussianNoise
from ..potential import Oracle, covariance_factor
from ..simulate import advance
from ..stats import chain_mean_se, chain_var_se
from .probe import probe_step
from .stationary import batch_sequences, cycle_moments, recorded_mixture


def batch_offset(pot, integrator: str, params: dict, h: float, gamma: float) -> int:
    """Minibatches a scheme consumes before its first step beyond one per step (1 for
    first-same-as-last schemes such as BAOAB, whose g_0 takes the schedule's first batch)."""

    calls = []

    def next_force():
        calls.append(1)
        return Oracle(pot, None, 1.0, 0.0)

    ctx = StepContext(h=h, gamma=gamma, noise=GaussianNoise("cpu", 0))
    integ = get_integrator(integrator, **params)
    state = integ.init_state(torch.zeros(3, pot.dim, dtype=torch.float64), ctx)
    state = advance(integ, state, 1, next_force, ctx)
    first = len(calls)
    advance(integ, state, 1, next_force, ctx)
    return first - (len(calls) - first)


def exact_recorded_moments(pot, integrator: str, params: dict, batching: str, batch_size: int, h: float,
                           gamma: float, record_steps) -> dict:  # fmt: skip
    """Exact mean and variance of x[0] pooled over the states after ``record_steps`` sampler
    steps, in the stationary regime of the scheme under the schedule (fixed partition
    {0..n-1}, {n..2n-1}, ...; per-batch affine maps read off the integrator by the probe).
    Also the spectral radius of the cycle's second-moment recursion: >= 1 means the chain
    diverges and the moments are meaningless."""
    N = pot.n_data
    full = batching == "full"
    n = N if full else batch_size
    scale = 1.0 if full else N / n
    eps = 0.0 if full else covariance_factor(n, N, with_replacement=batching == "iid")
    partition = [list(range(b * n, (b + 1) * n)) for b in range(N // n)]
    seqs = batch_sequences(batching, N, n, partition if batching in ("reshuffle", "sms") else None)
    maps: dict = {}

    def step_map(batch):
        if batch not in maps:
            idx = None if full else torch.tensor(batch, dtype=torch.long)
            maps[batch] = probe_step(lambda: get_integrator(integrator, **params), pot, [idx], scale=scale,
                                     eps=eps, h=h, gamma=gamma).affine_step()  # fmt: skip
        return maps[batch]

    cycles = [(p, [step_map(tuple(b)) for b in s]) for p, s in seqs]
    E2 = sum(p * np.kron(c.A, c.A) for p, c in ((p, reduce(lambda a, b: a.then(b), ms)) for p, ms in cycles))
    rho = float(np.max(np.abs(np.linalg.eigvals(E2))))
    offset = batch_offset(pot, integrator, params, h, gamma)
    mean, cov = recorded_mixture(cycle_moments(cycles), np.asarray(record_steps) + offset)
    return {
        "mean": float(mean[0]),
        "var": float(cov[0, 0]),
        "rho": rho,
        "stable": rho < 1.0,
        "cycle": len(seqs[0][1]),
    }


def pooled_moments(records) -> dict:
    """Pooled mean and variance of records [R, C] of independent chains with their Monte Carlo
    standard errors (``chain_mean_se``, ``chain_var_se``)."""
    per_chain = np.asarray(records).T  # [C, R]
    m, m_se = chain_mean_se(per_chain)
    v, v_se = chain_var_se(per_chain)
    return {"mean": m, "mean_se": m_se, "var": v, "var_se": v_se}


def exact_iid_excess_kurtosis(pot, integrator: str, params: dict, batch_size: int, h: float, gamma: float,
                              tol: float = 1e-9) -> dict:  # fmt: skip
    """Exact stationary variance and excess kurtosis of x[0] under i.i.d. minibatches (drawn with
    replacement) for a scheme whose per-batch affine maps (``probe``) share A and the noise covariance Q
    and differ in c only. Then x = Gaussian + sum_k A^k (c_{B_k} - c_bar), B_k i.i.d. uniform batches,
    and the cumulants add: kurtosis = sum_k kappa_4(Y_k) / Var^2, Y_k = e_0^T A^k (c_B - c_bar) (0 for a
    Gaussian part; -2 sum a_k^4 with two batches). ValueError when the maps differ in A or Q."""
    N, n = pot.n_data, batch_size
    eps = covariance_factor(n, N, with_replacement=True)
    maps = [probe_step(lambda: get_integrator(integrator, **params), pot, [torch.tensor(b, dtype=torch.long)],
                       scale=N / n, eps=eps, h=h, gamma=gamma).affine_step()
            for _, (b,) in batch_sequences("iid", N, n)]  # fmt: skip
    A, Q = maps[0].A, maps[0].Q
    if any(not (np.allclose(m.A, A, atol=1e-12) and np.allclose(m.Q, Q, atol=1e-12)) for m in maps):
        raise ValueError("the batches' affine maps differ beyond their offsets")
    c_bar = np.mean([m.c for m in maps], axis=0)
    D = np.stack([m.c - c_bar for m in maps])  # [batches, m]
    P, var, k4 = np.eye(A.shape[0]), 0.0, 0.0
    for _ in range(100_000):
        e = P[0]
        y = D @ e
        m2, m4 = float(np.mean(y**2)), float(np.mean(y**4))
        term = float(e @ Q @ e) + m2
        var, k4 = var + term, k4 + m4 - 3 * m2**2
        P = A @ P
        if np.abs(P).max() < tol:  # the remaining terms are O(tol^2) of the first
            break
    else:
        raise ValueError("the step map does not contract: no stationary law")
    return {"var": var, "excess_kurtosis": k4 / var**2}
