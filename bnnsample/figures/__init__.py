"""Figure recipes: ``bnnsample figure <id> [--out DIR] [key=value ...]``.

A recipe is declared as a ``driver.Figure`` (its scales and options, ``rows``, ``outcomes``,
``plot``, its settings text) and filed with ``driver.register_figure``, or is a function of its
invocation filed with ``@driver.recipe(id, description, scales, options)``; either way the driver
checks and parses its options, and it writes its CSVs, plot, claims.csv and REPRODUCTION.md
section. ``orders``, which writes no section, files ``make(out_dir: Path, options: dict[str, str])
-> list[Path]`` (the files it wrote) with ``register`` itself::

    @register("orders", "measured orders of convergence of every integrator", scales=(), options=...)
    def make(out_dir, options): ...

Every module or subpackage of this package except ``claims``, ``common``, ``driver`` and
``report`` holds recipes (a package per paper with several), found and imported on first use;
heavy imports (matplotlib, runs) stay inside functions. Bad options raise ValueError with the
key and the allowed values. ``claims`` holds the claims-as-data types and the one writer of
verdict rows, ``driver`` the options, the invocation and the two ways to file a recipe,
``common`` what recipes share (the scale option, the REPRODUCTION.md section writer, row
selection, markdown tables, error-bar series), ``report`` what the command prints around a
recipe (its output directory, the claims' verdicts, the costs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..registry import Registry, import_modules, module_names

_NOT_RECIPES = ("claims", "common", "driver", "report")


@dataclass(frozen=True)
class Recipe:
    id: str
    description: str
    make: Callable[[Path, dict], list[Path]]
    scales: tuple[str, ...] = ("quick", "paper")  # the first is the default
    options: tuple[str, ...] = ("scale",)  # besides data_dir, which every recipe takes


FIGURES: Registry[Recipe] = Registry("figure", message="unknown figure {name!r}; allowed: {allowed}")


def register(fig_id: str, description: str, scales=("quick", "paper"), options=("scale",)):
    """Decorator: file ``make`` as the recipe ``fig_id``, with the scales it runs at (the first
    its default; () for a recipe without scales) and the options it takes, which
    ``bnnsample figure --list`` and ``figure ID --help`` show."""

    def deco(make):
        FIGURES.add(fig_id, Recipe(fig_id, description, make, tuple(scales), tuple(options)))
        return make

    return deco


def _load() -> None:
    import_modules(__name__, [m for m in module_names(__path__) if m not in _NOT_RECIPES and not m.startswith("_")])


def recipes() -> dict[str, Recipe]:
    _load()
    return {fig_id: FIGURES[fig_id] for fig_id in FIGURES.names()}


def get_recipe(fig_id: str) -> Recipe:
    """The recipe of ``fig_id``; UnknownName (a KeyError) names the allowed ids."""
    _load()
    return FIGURES[fig_id]
