"""Chen, Ding & Carin (2015), "On the convergence of stochastic gradient MCMC algorithms with
high-order integrators" (NeurIPS 2015): ``recipes`` Figs. 1-3 (bias and MSE of posterior averages
of SGLD, SGHMC Euler and symmetric splitting against the iteration count and the step size);
``averages`` its runs and exact values (the Gaussian-mean target, the schemes' exact stationary
second moments, the time averages of many chains); ``fig4`` §5's LDA and sigmoid belief network
experiments (Fig. 4 and the numbers in the text), not tested for want of data."""

from . import fig4, recipes  # noqa: F401  (importing them registers the recipes)
