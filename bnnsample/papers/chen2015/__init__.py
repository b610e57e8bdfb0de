"""Chen, Ding & Carin (2015), "On the convergence of stochastic gradient MCMC algorithms with
high-order integrators" (NeurIPS 2015): ``recipes`` Figs. 1-3 (bias and MSE of posterior averages
of SGLD, SGHMC Euler and symmetric splitting against the iteration count and the step size);
``averages`` its runs and exact values (the Gaussian-mean target, the schemes' exact stationary
second moments, the time averages of many chains)."""

from . import recipes  # noqa: F401  (importing it registers the recipes)
