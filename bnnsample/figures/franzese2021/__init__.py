"""franzese2021 recipes: ``toys`` the Gaussian toys (Fig. 1 trig features, Figs. 3/6 the App. E toy);
``uci`` the UCI BNN runs, oracle and distances the others share; ``sweeps`` Figs. 4, 5 and 10 (distance
to the oracle vs step size); ``tables`` Tables 1-2 (RMSE/accuracy and MNLL)."""

from . import sweeps, tables, toys  # noqa: F401  (their @register)
