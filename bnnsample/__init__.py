"""bnnsample: sampling Bayesian neural network posteriors with stochastic-gradient MCMC."""

__version__ = "0.1.0"

from .plumbing import resolvers  # noqa: F401  (OmegaConf resolvers used by conf/, e.g. ${time_steps:...})
