"""The recipe driver: what every recipe does around its own runs and claims, written once.

A recipe declares its scales (a dict of settings per scale, the first the default) and its
claims (``claims.Claims``: each claim filed beside the rule that decides its verdict), and
writes four functions: its rows (the runs), its outcomes (the verdicts, decided there and
nowhere else), its plot, and its settings text. The driver checks the options, shows the cells
under a bar with an ETA, writes the rows CSV, and writes the REPRODUCTION.md section (command,
wall and CPU time, files, settings, the claims table, notes), whose rows also go to
``<id>/claims.csv``.

Declared, one file a recipe (``Figure``, filed by ``register_figure``)::

    FIGURE = register_figure(Figure(
        "paper2024-fig1", "what the figure shows", "one line for --list",
        scales={"quick": {"h": (0.1, 0.05)}, "paper": {"h": (0.1, 0.05, 0.025)}},
        cells=lambda job: len(job.st["h"]), rows=fig1_rows, outcomes=fig1_outcomes,
        plot=plot_fig1, settings=fig1_settings, csv="fig1.csv", png="fig1.png"))

A recipe whose invocation writes more than one table or plot drives an ``Invocation`` itself
(``figures/sekkat2023/fig4.py``): ``cells``, ``csv``, ``section``, ``finish``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from ..plumbing.progress import CellBar
from ..rundir import write_csv
from . import register
from .claims import table
from .common import check_options, recipe_dir, scale_of, update_reproduction


def _jobs(options: dict) -> int:
    """``jobs=N`` (1 by default), at most this machine's cores; ValueError naming the allowed values."""
    import os

    text, most = str(options.get("jobs", 1)), os.cpu_count() or 1
    if not text.isdigit() or not 1 <= int(text) <= most:
        raise ValueError(f"jobs={text}: allowed values: an integer in 1..{most} (this machine's cores)")
    return int(text)


class Invocation:
    """One invocation of a recipe: the scale its ``options`` pick among ``scales`` and that
    scale's settings (``st``), its start (wall and CPU), its folder (``dir``) and its section."""

    def __init__(self, fig_id: str, out_dir: Path, options: dict, scales: dict, allowed=("scale",),
                 title: str = "", heading: str = "claim"):  # fmt: skip
        check_options(options, allowed)
        self.fig_id, self.out_dir, self.options = fig_id, Path(out_dir), dict(options)
        self.scale = scale_of(options, default=next(iter(scales)), allowed=tuple(scales))
        self.st, self.title, self.heading = scales[self.scale], title, heading
        self.t0, self.cpu0 = time.perf_counter(), time.process_time()
        self._cache = None
        self.jobs = _jobs(options)  # worker processes for the cells not kept yet (CellCache.fill)

    @property
    def cache(self):
        """The recipe's finished cells (``jobs.cells.CellCache`` under ``<id>/runs/cells/``): an
        invocation stopped part-way resumes from them."""
        if self._cache is None:
            from ..jobs.cells import CellCache

            self._cache = CellCache(self.dir / "runs" / "cells")
        return self._cache

    @property
    def dir(self) -> Path:
        """The recipe's own folder, ``<out_dir>/<fig_id>``, created."""
        return recipe_dir(self.out_dir, self.fig_id)

    @property
    def command(self) -> str:
        extra = "".join(f" {k}={v}" for k, v in self.options.items() if k != "scale")
        return f"bnnsample figure {self.fig_id} scale={self.scale}{extra}"

    def cpu(self) -> float:
        """CPU seconds of this process since the invocation began."""
        return time.process_time() - self.cpu0

    def cells(self, total: int):
        """A bar of ``total`` cells (``bar.done(line)`` after each), closed when its block ends."""
        return closing(CellBar(self.fig_id, total))

    def csv(self, rows: list[dict], name: str, float_format: str | None = "{:.6g}") -> Path:
        return write_csv(self.dir / name, rows, float_format=float_format)

    def section(self, settings: str, outcomes, notes: str, files: list[Path]) -> str:
        """The section: command with its cost, files, settings, the claims table of
        ``outcomes`` ((Claim, Outcome) pairs), notes."""
        return (f"## {self.fig_id}{self.title}\n\nCommand: `{self.command}` (wall time "
                f"{time.perf_counter() - self.t0:.0f} s, CPU time {self.cpu():.0f} s on one thread"
                f"{self._cache.summary() if self._cache else ''}; the wall time includes waiting on a shared "
                f"machine). Files: {', '.join(f'`{p.name}`' for p in files)}.\n\n"
                f"Settings: {settings}\n\n{table(outcomes, heading=self.heading)}\n\n{notes}\n")  # fmt: skip

    def finish(self, section: str, files: list[Path]) -> list[Path]:
        """Write ``section`` into out_dir/REPRODUCTION.md (and its claims into claims.csv);
        the recipe's files. Where finished cells of earlier invocations were read back, the
        cost ledger gets what all the cells took (this process's CPU and the cells' own
        seconds), not this invocation's time."""
        update_reproduction(self.out_dir, self.fig_id, section)
        c = self._cache
        if c is not None and c.reused > c.filled:
            from .report import record_cost

            record_cost(self.out_dir, self.fig_id, self.options, None, self.cpu() + c.reused_seconds)
        return files


@dataclass(frozen=True)
class Figure:
    """A recipe, declared (see the module docstring): ``rows(inv, bar)``, ``outcomes(rows,
    inv)``, ``plot(rows, inv, path)``, ``settings(rows, inv)``, ``notes(rows, inv)``; ``title``
    is appended to the section's heading after the id."""

    id: str
    title: str
    description: str
    scales: dict[str, dict]
    rows: Callable
    outcomes: Callable
    settings: Callable
    cells: Callable
    plot: Callable | None = None
    notes: Callable = lambda rows, inv: ""
    csv: str = "rows.csv"
    png: str = "rows.png"
    options: tuple[str, ...] = ("scale",)
    heading: str = "claim"


def drive(fig: Figure, out_dir: Path, options: dict) -> list[Path]:
    """Run ``fig`` once and write its files and section; returns the files written."""
    inv = Invocation(fig.id, out_dir, options, fig.scales, fig.options, fig.title, fig.heading)
    with inv.cells(fig.cells(inv)) as bar:
        rows = fig.rows(inv, bar)
    files = [inv.csv(rows, fig.csv)]
    if fig.plot is not None:
        files.append(fig.plot(rows, inv, inv.dir / fig.png))
    outcomes = fig.outcomes(rows, inv)
    return inv.finish(inv.section(fig.settings(rows, inv), outcomes, fig.notes(rows, inv), files), files)


def register_figure(fig: Figure) -> Figure:
    """File ``fig`` as a recipe of ``bnnsample figure`` (its make is ``drive(fig, ...)``)."""
    register(fig.id, fig.description, scales=tuple(fig.scales), options=fig.options)(
        lambda out_dir, options: drive(fig, out_dir, options)
    )
    return fig
