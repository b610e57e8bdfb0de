"""Figure recipes: ``bnnsample figure <id> [--out DIR] [key=value ...]``.

A recipe is a function ``make(out_dir: Path, options: dict[str, str]) -> list[Path]`` (the
files it wrote) registered under an id with a one-line description::

    @register("orders", "measured orders of convergence of every integrator")
    def make(out_dir, options): ...

Each recipe module is listed in ``_MODULES`` and imported on first use; it should keep heavy
imports (matplotlib, runs) inside the function. Bad options raise ValueError with the key
and the allowed values.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

_MODULES = ("orders",)


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
    for mod in _MODULES:
        importlib.import_module(f"{__name__}.{mod}")


def recipes() -> dict[str, Recipe]:
    _load()
    return dict(sorted(FIGURES.items()))


def get_recipe(fig_id: str) -> Recipe:
    """The recipe of ``fig_id``; KeyError names the allowed ids."""
    all_ = recipes()
    if fig_id not in all_:
        raise KeyError(f"unknown figure {fig_id!r}; allowed: {', '.join(all_)}")
    return all_[fig_id]
