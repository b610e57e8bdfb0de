"""Matthews & Weare (2018), "Langevin Markov Chain Monte Carlo with stochastic gradients", the
noise-aware integrators NOGIN, mSGLD and CC-ADL: ``recipes`` Figs. 1-3; ``toy_runs`` the 1-D toys
of §5.1 (Fig. 1) against their exact laws; ``passes`` the data passes each scheme needs to reach a
variance error (Figs. 2-3), with the exact gradient covariance as a variant."""

from . import recipes  # noqa: F401  (importing it registers the recipes)
