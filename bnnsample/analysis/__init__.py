"""Scheme-analysis tools: exact one-step affine maps of an integrator (``probe``), exact
stationary moments of affine schemes under a batch schedule (``stationary``, ``recorded``),
coupled multilevel bias estimates (``multilevel``), the error against passes through the data
(``passes``), quadrature on low-dimensional targets
(``quadrature``) and the measured orders of convergence of every integrator (``orders``). The
figure recipes and the tests use them; the evaluation stage uses the exact discrete moments of
``stationary``."""
