"""The papers' wing: one package per paper, each holding that paper's figure and table recipes and
the runs, exact laws and jobs only it uses.

    chen2015      Chen, Ding & Carin (2015), high-order SG-MCMC integrators
    franzese2021  Franzese, Milios, Filippone & Michiardi (2021), stochasticity in Hamiltonian samplers
    matthews2018  Matthews & Weare (2018), NOGIN and the noise-aware integrators
    paulin2025    Paulin, Whalley, Chada & Leimkuhler (2025), symmetric minibatch splitting (SMS-UBU)
    sekkat2023    Sekkat & Stoltz (2023), the minibatching error of Adaptive Langevin

A recipe is a ``figures.driver.Figure`` filed with ``register_figure`` in its paper's package
(the package's ``__init__`` imports its recipe modules). The library below (``figures``' driver,
``analysis``, ``jobs``, ``evaluate``, the kernel) never imports from here; the ``figure`` command
finds every recipe through ``recipes()``.
"""

from __future__ import annotations

from ..registry import import_modules, module_names


def _load() -> None:
    from ..figures import orders  # noqa: F401  (the project's own recipe, beside the papers')

    import_modules(__name__, [m for m in module_names(__path__) if not m.startswith("_")])


def recipes() -> dict:
    """Every recipe the ``figure`` command knows, by id (sorted): the papers' and ``orders``."""
    from ..figures import FIGURES

    _load()
    return {fig_id: FIGURES[fig_id] for fig_id in FIGURES.names()}


def get_recipe(fig_id: str):
    """The recipe of ``fig_id``; UnknownName (a KeyError) names the allowed ids."""
    from ..figures import FIGURES

    _load()
    return FIGURES[fig_id]
