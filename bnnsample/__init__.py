"""bnnsample: sampling Bayesian neural network posteriors with stochastic-gradient MCMC."""

__version__ = "0.1.0"
