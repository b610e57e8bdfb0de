"""Recipes for Sekkat & Stoltz (2023), "Quantifying the mini-batching error in Bayesian inference for Adaptive
Langevin dynamics" (JMLR 24, 2023), one module per figure:

    fig3     sekkat2023-fig3   Gaussian mean, SGLD and Langevin-OABAO: relative variance error vs eps(n),
                               with and without replacement, against the exact stationary variances
    fig5     sekkat2023-fig5   same target, AdL (scalar friction)
    fig4     sekkat2023-fig4   two-means mixture, SGLD / Langevin: L1 error (eq. 44) of the theta_1 marginal
    fig7     sekkat2023-fig7   mixture, AdL full-matrix vs scalar friction; projection errors (Remark 15)
    fig14    sekkat2023-fig14  mixture, eAdL with K + 1 = 1, 4, 16, 36 basis functions (+ Fig. 15 projections)
    fig8     sekkat2023-fig8   MNIST 7 vs 9 logistic regression (reduced), AdL scalar / diagonal / full: marginals
    fig9     sekkat2023-fig9   same runs: Sigma-bar from the thermostat xi against its quadrature, cov(theta)
    fig10    sekkat2023-fig10  same runs: error on diag cov(theta) against eps(n); ``mnist`` holds the shared runs
    fig12    sekkat2023-fig12  BNN, histograms of N_theta(x*) per batch size (fig13's runs)
    fig13    sekkat2023-fig13  BNN on the 2-D two-class data, AdL diagonal vs 3-group friction (reduced)
    mixture  the plans, rows, plots and settings text of the mixture figures (figs 4, 7, 14); the mixture's
             exact reference, runs and L1 errors with their noise floor are ``mixture_runs``'s
    shared   the Langevin-OABAO scheme, the batchings, the title and claims heading of every section; the
             runs of the project's samplers and the Gaussian model's runs are ``chains``'
"""

from . import fig1, fig2, fig3, fig4, fig5, fig6, fig7, fig8, fig9, fig10, fig12, fig13, fig14  # noqa: F401  (importing them registers their recipes)
