"""Figure recipes: ``bnnsample figure <id> [--out DIR] [key=value ...]``.

A recipe is a function ``make(out_dir: Path, options: dict[str, str]) -> list[Path]`` (the
files it wrote) registered under an id with a one-line description::

    @register("orders", "measured orders of convergence of every integrator")
    def make(out_dir, options): ...

Every module of this package except ``common`` is a recipe module, found and imported on
first use; it should keep heavy imports (matplotlib, runs) inside the function. Bad options
raise ValueError with the key and the allowed values. ``common`` holds what recipes share
(the scale option, the results/REPRODUCTION.md section writer); ``report`` what the
command prints around a recipe (its output directory, the claims' verdicts).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

_NOT_RECIPES = ("common", "report")


@dataclass(frozen=True)
class Recipe:
    id: str
    description: str
    make: Callable[[Path, dict], list[Path]]


FIGURES: dict[str, Recipe] = {}


def register(fig_id: str, description: str):
    def deco(fn):
        FIGURES[fig_id] = Recipe(fig_id, description, fn)
        return fn

    return deco


def _load() -> None:
    for info in pkgutil.iter_modules(__path__):
        if info.name not in _NOT_RECIPES and not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")


def recipes() -> dict[str, Recipe]:
    _load()
    return dict(sorted(FIGURES.items()))


def get_recipe(fig_id: str) -> Recipe:
    """The recipe of ``fig_id``; KeyError names the allowed ids."""
    all_ = recipes()
    if fig_id not in all_:
        raise KeyError(f"unknown figure {fig_id!r}; allowed: {', '.join(all_)}")
    return all_[fig_id]
