"""bnnsample: sampling Bayesian neural network posteriors with stochastic-gradient MCMC.

The Python entry points (docs/custom.md), imported when first called (``import bnnsample``
loads no torch):

    bnnsample.run(overrides) -> Path      what `bnnsample run OVERRIDES` runs; the run directory
    bnnsample.load(run_dir) -> Run        its draws, predictive, metrics; .to_arviz()
    bnnsample.sample(log_density, init, integrator="ubu", step_size=..., ...) -> Samples
                                          chains on a log density, in memory; .draws, .to_arviz()
"""

__version__ = "0.1.0"

from .plumbing import resolvers  # noqa: F401  (OmegaConf resolvers used by conf/, e.g. ${time_steps:...})


def run(overrides=()):
    """``bnnsample run *overrides`` in this process; returns the run directory (bnnsample.api.run)."""
    from .api import run as _run

    return _run(overrides)


def load(run_dir):
    """A run's draws, predictive, targets and metrics (bnnsample.api.load); ``.to_arviz()``."""
    from .api import load as _load

    return _load(run_dir)


def sample(log_density, init, integrator="ubu", step_size=0.1, friction=1.0, burn_in=1000, samples=1000, thin=1,
           seed=0, device="auto", params=None, check_every=100):  # fmt: skip
    """Sample exp(log_density) from ``init`` [chains, d] in memory; returns ``.draws`` [chains,
    samples, d] and ``.to_arviz()`` (bnnsample.api.sample says what each argument does)."""
    from .api import sample as _sample

    return _sample(log_density, init, integrator=integrator, step_size=step_size, friction=friction, burn_in=burn_in,
                   samples=samples, thin=thin, seed=seed, device=device, params=params,
                   check_every=check_every)  # fmt: skip


__all__ = ["__version__", "load", "run", "sample"]
