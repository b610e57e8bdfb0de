"""OmegaConf resolvers used by the configs under conf/ (registered when bnnsample is imported).

``${time_steps:T,h}`` / ``${time_steps:T,h,n}``: the number of integrator steps that cover
simulated time T at step size h when one integrator step advances time h * n (n = 1, or the
generalized Lie-Trotter's N_l leapfrog steps per refresh):

    time_steps(T, h, n) = max(1, round(T / (h n))).

franzese2021 App. F.2 runs every sampler for the same simulated time whatever the step size:
burn-in time 10 and time 2.5 between kept draws (the oracle's 2000 and 500 steps at
h = 0.005), i.e. ``burn_in: ${time_steps:10,${step_size}}`` and ``thin:
${time_steps:2.5,${step_size}}`` with ``unit: step`` (conf/experiment/franzese2021_uci.yaml).
"""

from __future__ import annotations

from omegaconf import OmegaConf


def time_steps(t, h, n=1) -> int:
    """max(1, round(t / (h n))); ValueError (one line) unless t >= 0, h > 0 and n >= 1."""
    t, h, n = float(t), float(h), float(n)
    if not (t >= 0 and h > 0 and n >= 1):
        raise ValueError(f"time_steps: need time >= 0, step_size > 0 and n >= 1 (got {t:g}, {h:g}, {n:g})")
    return max(1, round(t / (h * n)))


def register() -> None:
    if not OmegaConf.has_resolver("time_steps"):
        OmegaConf.register_new_resolver("time_steps", time_steps)


register()
