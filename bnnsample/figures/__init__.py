"""The figure framework: ``bnnsample figure <id> [--out DIR] [key=value ...]``.

The recipes themselves live in their paper's package under ``bnnsample.papers`` (which lists them
all: ``papers.recipes()``); this package holds what every recipe uses. A recipe is declared as a
``driver.Figure`` (its scales and options, ``rows``, ``outcomes``, ``plot``, its settings text)
and filed with ``driver.register_figure``; the driver checks and parses its options, and it writes
its CSVs, plot, claims.csv and REPRODUCTION.md section. ``orders``, the
project's own recipe, which writes no section, files ``make(out_dir: Path, options: dict[str, str])
-> list[Path]`` (the files it wrote) with ``register`` itself::

    @register("orders", "measured orders of convergence of every integrator", scales=(), options=...)
    def make(out_dir, options): ...

``claims`` holds the claims-as-data types and the one writer of verdict rows, ``driver`` the
options, the invocation and the declaration of a recipe, ``common`` what recipes share (the
scale option, the REPRODUCTION.md section writer, row selection, markdown tables, error-bar
series), ``report`` what the command prints around a recipe (its output directory, the claims'
verdicts, the costs). Bad options raise ValueError with the key and the allowed values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..registry import Registry


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
