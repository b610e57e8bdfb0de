"""franzese2021 recipes: ``toys`` the Gaussian toys (Fig. 1 trig features, Figs. 3/6 the App. E toy; their
cells are ``toy_cells``'); ``uci`` the sweep settings and rows the UCI recipes share (one run, the oracle
and the distance to it are ``uci_runs``'s); ``sweeps`` Figs. 4, 5 and 10 (distance to the oracle vs step
size); ``appendix`` Figs. 8 and 9 (Figs. 4 and 5 over every data set); ``tables`` Tables 1-2 (RMSE/accuracy
and MNLL)."""

from . import appendix, fig2, fig7, sweeps, table3, tables, toys  # noqa: F401  (their @register)
