"""Scheme-analysis tools: exact one-step affine maps of an integrator (``probe``), exact
stationary moments of affine schemes under a batch schedule (``stationary``, ``recorded``),
coupled multilevel bias estimates (``multilevel``), the error against passes through the data
(``passes``), the spectral norm of a symmetric operator by power iteration
(``spectral``), quadrature on low-dimensional targets
(``quadrature``) and the measured orders of convergence of every integrator (``orders``); the
runs and estimators of the papers' toy experiments: runs of many chains recorded as arrays and
the Gaussian model's variance errors (``chains``), the mixture's exact reference and L1 errors
(``mixture``), chen2015's posterior averages (``averages``), the 1-D and two-batch toys of
matthews2018, franzese2021 and paulin2025 (``toys``), paulin2025 Fig. 2's multinomial logistic
regression and its multilevel runs (``multinomial_runs``).
The figure recipes and the tests use them; the evaluation stage uses the exact discrete moments
of ``stationary``."""
