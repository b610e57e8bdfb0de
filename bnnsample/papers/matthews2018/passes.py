"""Error against passes through the data (matthews2018 §5.2-5.3, Figs. 2-3): how far the
variance a scheme samples, pooled over chains and all steps so far, is from a full-batch
reference after a given number of passes, with the estimated or the exact covariance of the
minibatch force (``ExactCovariance``); and the friction load that decides whether CC-ADL's
explicit-Euler friction stays stable (``friction_load``).

Conventions of the authors' code (c-matthews/nogin), kept by every function here: friction
gamma = 1; mSGLD's step is eps = h^2/2 for the paper's h (``step_size_for``); minibatches
without replacement.
"""

from __future__ import annotations

import math

import numpy as np

GAMMA = 1.0  # the authors' code default (matthews2018 states none)


def step_size_for(scheme: str, h: float) -> float:
    """The step passed to the integrator for the paper's h: mSGLD takes eps = h^2/2 (the
    authors' mapping in their code, c-matthews/nogin); every other scheme takes h."""
    return h * h / 2 if scheme == "msgld" else h


class ExactCovariance:
    """A potential whose force uses the minibatch but whose covariance is the exact one:
    Cov of the minibatch force = eps(n) x (covariance, ddof 1, of all N per-datum gradients),
    i.e. ``base.force_covariance`` evaluated on the whole data set (matthews2018 §5.2,
    the O(N) "exact covariance" of Fig. 2). Everything else is the base potential's."""

    def __init__(self, base):
        self.base, self.force, self.per_datum_grads = base, base.force, base.per_datum_grads
        self.dim, self.n_data, self.task = base.dim, base.n_data, base.task

    def force_covariance(self, x, idx, scale, eps):
        return self.base.force_covariance(x, None, scale, eps)


def reference_moments(pot, natural, *, chains: int, steps: int, burn: int, h: float, burn_h: float | None = None,
                      seed: int = 0):  # fmt: skip
    """Reference posterior mean and variance of natural(x) (pooled over chains and time) from
    full-batch BAOAB (the x-marginal is exact on Gaussian targets for every h, O(h^2) bias
    otherwise) after ``burn`` steps from x = 0 at step ``burn_h`` (default h; a smaller one gets
    through the stiff start); returns (mean, var, relative SE of var per coordinate, final
    states)."""
    import torch

    from ...simulate import simulate

    acc = {"s1": 0.0, "s2": 0.0}

    def record(t, st):
        z = natural(st.x)
        acc["s1"] = acc["s1"] + z
        acc["s2"] = acc["s2"] + z * z

    x0 = torch.zeros(chains, pot.dim, dtype=torch.float64)
    st = simulate(pot, "baoab", h=burn_h or h, gamma=GAMMA, x0=x0, steps=burn, seed=seed)
    st = simulate(pot, "baoab", h=h, gamma=GAMMA, x0=st.x, steps=steps, record=record, seed=seed + 1)
    m_c = (acc["s1"] / steps).numpy()  # per-chain time averages [C, k]
    q_c = (acc["s2"] / steps).numpy()
    ok = np.isfinite(q_c).all(1) & torch.isfinite(st.x).all(1).numpy()  # a rare excursion can blow up a chain
    if ok.sum() < max(2, chains // 2):
        raise ValueError(f"reference run at h = {h}: {int((~ok).sum())} of {chains} chains diverged")
    m_c, q_c = m_c[ok], q_c[ok]
    mean = m_c.mean(0)
    var = q_c.mean(0) - mean**2
    g = q_c - 2 * mean * m_c  # delta method over independent chains
    rel_se = g.std(0, ddof=1) / math.sqrt(ok.sum()) / var
    return mean, var, rel_se, st.x[torch.as_tensor(ok)]


def passes_error(pot, natural, ref_var, scheme: str, covariance: str, n: int, *, h: float, x0, max_passes: float,
                 n_checks: int = 16, seed: int = 0, pass_n: int | None = None) -> list[dict]:  # fmt: skip
    """Error against passes through the data for one (scheme, covariance, n): the chains start
    at x0 (reference draws), take minibatches of n without replacement, and at log-spaced
    pass counts the variance of natural(x) pooled over chains and all steps so far is compared
    with ref_var: error = mean over coordinates of |var / ref_var - 1|. NaN (instability)
    once any chain is non-finite. A pass counts ``pass_n`` data points (default the target's
    N): passes = steps x n / pass_n, so max_passes takes ceil(max_passes x pass_n / n) steps;
    ``data_passes`` = steps x n / N counts passes over the target's own data."""

    from ...simulate import simulate

    N = pot.n_data
    per_pass = pass_n or N
    steps = math.ceil(max_passes * per_pass / n)
    checks = sorted({max(1, round(p * per_pass / n)) for p in np.geomspace(max_passes / 100, max_passes, n_checks)})
    target = ExactCovariance(pot) if covariance == "exact" else pot
    acc = {"s1": 0.0, "s2": 0.0, "out": []}
    C = x0.shape[0]

    def record(t, st):
        z = natural(st.x)
        acc["s1"] = acc["s1"] + z
        acc["s2"] = acc["s2"] + z * z
        if t in checks:
            s1, s2 = acc["s1"].numpy(), acc["s2"].numpy()
            finite = bool(np.isfinite(s2).all() and np.abs(s2).max() < 1e12)
            err = math.nan
            if finite:
                m = s1.sum(0) / (C * t)
                err = float(np.mean(np.abs((s2.sum(0) / (C * t) - m * m) / ref_var - 1)))
            acc["out"].append({"scheme": scheme, "covariance": covariance, "n": n, "steps": t,
                               "passes": t * n / per_pass, "data_passes": t * n / N, "error": err})  # fmt: skip

    simulate(target, scheme, h=step_size_for(scheme, h), gamma=GAMMA, x0=x0.clone(), steps=steps,
             batching="iid_wor", batch_size=n, record=record, seed=seed)  # fmt: skip
    return acc["out"]


def passes_to(rows, scheme, covariance, level: float) -> tuple[float, int | None]:
    """Fewest passes (over n) after which the error stays <= level; (inf, None) if never."""
    best = (math.inf, None)
    for n in sorted({r["n"] for r in rows}):
        sel = run_rows(rows, scheme, covariance, n)
        for i, r in enumerate(sel):
            if all(math.isfinite(q["error"]) and q["error"] <= level for q in sel[i:]):
                best = min(best, (r["passes"], n))
                break
    return best


def run_rows(rows, sc: str, cov: str, n: int) -> list:
    """The rows of one (scheme, covariance, n), by passes."""
    return sorted((r for r in rows if r["scheme"] == sc and r["covariance"] == cov and r["n"] == n),
                  key=lambda r: r["passes"])  # fmt: skip


def friction_load(pot, x, h: float, n: int, batches: int = 500, seed: int = 0) -> tuple[float, float]:
    """(h^2/2) lambda_max of the estimated covariance of the minibatch force at the point x[0],
    over ``batches`` minibatches of n drawn without replacement: (median, share above 2).
    CC-ADL's explicit-Euler friction multiplies p along the top eigenvector by
    1 - h xi - (h^2/2) lambda_max, below -1 (p flips and grows) once this passes 2 - h xi
    (less a curvature term; results/ccadl_diagnosis.md, §2-3)."""
    import torch

    from ...potential import covariance_factor

    eps = covariance_factor(n, pot.n_data, False)
    gen = torch.Generator().manual_seed(seed)
    loads = []
    for _ in range(batches):
        idx = torch.randperm(pot.n_data, generator=gen)[:n]
        cov = pot.force_covariance(x[:1], idx, pot.n_data / n, eps).to_dense()[0]
        loads.append(h * h / 2 * float(torch.linalg.eigvalsh(cov).max()))
    return float(np.median(loads)), float(np.mean(np.array(loads) > 2))
