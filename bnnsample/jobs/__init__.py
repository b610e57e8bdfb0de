"""Many runs at once, below the recipes: whole ``bnnsample run`` jobs made in process and reused
(``runs``: one run with its evaluation, one found again where another caller made it, a grid of
runs by name and part), franzese2021's UCI BNN runs with their oracle and distance (``uci``),
paulin2025 Fig. 4's method grid in parts and its worker processes (``ensemble_runs``) and the finished
cells of a long computation kept on disk (``cells``)."""
