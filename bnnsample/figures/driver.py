"""The recipe driver: what every recipe does around its own runs and claims, written once.

A recipe declares its scales (a dict of settings per scale, the first the default), its options
(``Option``: a key, a parser from the vocabulary below, a default) and its claims
(``claims.Claims``: each claim filed beside the rule that decides its verdict). The driver checks
and parses the options, shows the cells under a bar with an ETA, writes the CSVs, and writes the
REPRODUCTION.md section (command, wall and CPU time, files, settings, the claims table, notes),
whose rows also go to ``<id>/claims.csv``.

A recipe is declared, one way for every recipe: ``register_figure(Figure(...))`` with its rows, its
outcomes (the claims' rules), its plot, its settings text and the names of its files; ``drive`` runs
it::

    FIGURE = register_figure(Figure(
        "paper2024-fig1", ": what the figure shows", "one line for --list",
        scales={"quick": {"h": (0.1, 0.05)}, "paper": {"h": (0.1, 0.05, 0.025)}},
        cells=lambda inv: len(inv.st["h"]), rows=fig1_rows, outcomes=fig1_outcomes,
        plot=plot_fig1, settings=fig1_settings, csv="fig1.csv", png="fig1.png"))

A recipe that starts worker processes or shares runs with another invocation does that in its
``start`` hook (paulin2025-fig4); one whose cells run in phases shows its own bars (``cells=None``).
"""

from __future__ import annotations

import functools
import math
import os
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from ..plumbing.progress import CellBar
from . import register
from .claims import table
from .common import CLAIMS_CSV, check_options, recipe_dir, scale_of, update_reproduction, write_claims, write_rows

SCALE = object()  # an Option's default: the scale's setting of the same key


def _keep(key: str, text: str) -> str:
    return text


@dataclass(frozen=True)
class Option:
    """A recipe's option ``key=TEXT``: ``parse(key, text)`` is its value (ValueError naming the key, the
    text and what is allowed); ``default`` its value when absent (``SCALE``: the scale's setting of ``key``)."""

    key: str
    parse: Callable[[str, str], object] = _keep
    default: object = None


def parse_options(options: dict, declared, st=None) -> dict:
    """{key: value} of every ``declared`` Option: parsed from ``options`` where given, else its default."""
    out = {}
    for o in declared:
        if o.key in options:
            out[o.key] = o.parse(o.key, options[o.key])
        else:
            out[o.key] = st[o.key] if o.default is SCALE else o.default
    return out


# -- the parsers of option values: each (key, text) -> value, or ValueError "key=text: why" ----------
def integer(low: int | None = None, message: str | None = None) -> Callable:
    """An integer, at least ``low``; ``message`` says what is allowed in place of "must be an integer" and
    "must be >= low"."""

    def parse(key: str, text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"{key}={text}: {message or 'must be an integer'}") from None
        if low is not None and value < low:
            raise ValueError(f"{key}={text}: {message or f'must be >= {low}'}")
        return value

    return parse


def number(gt: float = 0.0, message: str | None = None) -> Callable:
    """A finite number above ``gt`` (inf would reach the runs' configs, which refuse it, only after
    the work before them); ``message`` says what is allowed in place of "must be a finite number > gt"."""

    def parse(key: str, text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (value > gt and math.isfinite(value)):
            why = message or f"must be a finite number > {gt:g}"
            raise ValueError(f"{key}={text}: {why}{' (a finite one)' if message and value > gt else ''}")
        return value

    return parse


def numbers(kind=float, low: int = 0) -> Callable:
    """A comma-separated list of positive numbers, or with ``kind=int`` of integers >= ``low``."""
    what, rule = ("numbers", "positive numbers") if kind is float else ("integers", f"integers >= {low}")

    def parse(key: str, text: str) -> list:
        try:
            values = [kind(v) for v in str(text).split(",") if v.strip()]
        except ValueError:
            raise ValueError(f"{key}={text}: must be a comma-separated list of {what}") from None
        if not values or any(not (0 < v < math.inf if kind is float else v >= low) for v in values):
            raise ValueError(f"{key}={text}: must be a comma-separated list of {rule}")
        return values

    return parse


def names(allowed, complaint: Callable[[list[str]], str] | None = None) -> Callable:
    """A comma-separated list of names, each one of ``allowed``, in the order given; ``complaint(unknown)``
    says what is allowed in place of "allowed values: ..."."""

    def parse(key: str, text: str) -> list[str]:
        values = [v.strip() for v in str(text).split(",") if v.strip()]
        bad = [v for v in values if v not in allowed]
        if not values or bad:
            why = complaint(bad) if complaint else f"allowed values: {', '.join(allowed)}"
            raise ValueError(f"{key}={text}: {why}")
        return values

    return parse


def labelled(pairs) -> Callable:
    """The (label, name) pairs whose names a comma-separated list gives, in its order."""
    label = {name: lab for lab, name in pairs}
    pick = names(tuple(label))
    return lambda key, text: [(label[v], v) for v in pick(key, text)]


def choice(*values: str) -> Callable:
    """One of ``values``."""

    def parse(key: str, text: str) -> str:
        if text not in values:
            raise ValueError(f"{key}={text}: allowed values: {', '.join(values)}")
        return text

    return parse


def _cores(key: str, text: str) -> int:
    most = os.cpu_count() or 1
    if not text.isdigit() or not 1 <= int(text) <= most:
        raise ValueError(f"{key}={text}: allowed values: an integer in 1..{most} (this machine's cores)")
    return int(text)


JOBS = Option("jobs", _cores, 1)  # worker processes for the cells not kept yet (CellCache.fill)


class Invocation:
    """One invocation of a recipe: the scale its ``options`` pick among ``scales`` and that
    scale's settings (``st``), the values of its declared Options (``opt``), its start (wall and
    CPU), its folder (``dir``) and its section."""

    def __init__(self, fig_id: str, out_dir: Path, options: dict, scales: dict, declared=(), title: str = "",
                 heading: str = "claim"):  # fmt: skip
        check_options(options, ("scale", *(o.key for o in declared)))
        self.fig_id, self.out_dir, self.options = fig_id, Path(out_dir), dict(options)
        self.scale = scale_of(options, default=next(iter(scales)), allowed=tuple(scales))
        self.st, self.title, self.heading = scales[self.scale], title, heading
        self.opt = parse_options(options, declared, self.st)
        self.t0, self.cpu0 = time.perf_counter(), time.process_time()
        self._cache = None
        self.jobs = self.opt.get("jobs", 1)
        self.outcomes: list = []  # the (Claim, Outcome) pairs of its section, for claims.csv
        self.cost = None  # (options, wall, cpu) for the cost ledger where it is not what the command measures
        self.started = None  # what a declared Figure's start hook prepared for its rows (e.g. a grid of runs)
        self.runs_read_back, self.runs_read_back_seconds = 0, 0.0  # complete runs of earlier invocations reused
        self._runs_made: set = set()

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

    def run_read_back(self, result) -> None:
        """Count ``result`` (a run with ``reused`` and ``seconds``) where it was read back complete from an
        earlier invocation's runs/: the section's command line and the cost ledger add the CPU seconds its
        sampling took then (NaN where it stored none: counted, not added), as they do for read-back cells."""
        key = result.spec.key() if hasattr(result, "spec") else id(result)
        if not getattr(result, "reused", False):
            self._runs_made.add(key)
        elif key not in self._runs_made:  # not one this invocation made and then met again
            self.runs_read_back += 1
            if math.isfinite(result.seconds):
                self.runs_read_back_seconds += result.seconds

    def _read_back_summary(self) -> str:
        """'' when no run was read back, else the clause the section's command line carries."""
        if not self.runs_read_back:
            return ""
        return (f"; {self.runs_read_back} finished runs read back from `runs/` of earlier invocations, whose "
                f"sampling took {self.runs_read_back_seconds:.0f} CPU-s")  # fmt: skip

    def csv(self, rows: list[dict], name: str, float_format: str | None = "{:.6g}") -> Path:
        """``<id>/<name>``; one that differs only in its timing columns is kept (``common.write_rows``)."""
        return write_rows(self.dir / name, rows, float_format=float_format)

    def section(self, settings: str, outcomes, notes: str, files: list[Path]) -> str:
        """The section: command with its cost, files, settings, the claims table of
        ``outcomes`` ((Claim, Outcome) pairs, kept for ``finish`` to file in claims.csv), notes."""
        self.outcomes = list(outcomes)
        return (f"## {self.fig_id}{self.title}\n\nCommand: `{self.command}` (wall time "
                f"{time.perf_counter() - self.t0:.0f} s, CPU time {self.cpu():.0f} s on one thread"
                f"{self._cache.summary() if self._cache else ''}{self._read_back_summary()}; the wall time "
                "includes waiting on a shared "
                f"machine). Files: {', '.join(f'`{p.name}`' for p in files)}.\n\n"
                f"Settings: {settings}\n\n{table(self.outcomes, heading=self.heading)}\n\n{notes}\n")  # fmt: skip

    def keep_cost(self, wall: float | None, cpu: float, options: dict | None = None) -> None:
        """Have the cost ledger keep ``wall`` and ``cpu`` for this invocation (under ``options``,
        by default its own) instead of what the command measured: what its runs or cells took
        where it read finished ones back. The command line writes the ledger (``record_cost``)."""
        self.cost = (self.options if options is None else options, wall, cpu)

    def finish(self, section: str, files: list[Path]) -> list[Path]:
        """Write the claims of ``section`` into ``<id>/claims.csv`` and ``section`` into
        out_dir/REPRODUCTION.md; the recipe's files. Where finished cells of earlier invocations
        were read back, the cost ledger gets what all the cells took (this process's CPU and the
        cells' own seconds), not this invocation's time; likewise for complete runs read back
        (``run_read_back``)."""
        if self.outcomes:
            write_claims(self.dir / CLAIMS_CSV, self.fig_id, self.outcomes, self.command)
        update_reproduction(self.out_dir, self.fig_id, section)
        c = self._cache
        cells = c is not None and c.reused > c.filled
        if cells or self.runs_read_back:
            self.keep_cost(None, self.cpu() + (c.reused_seconds if cells else 0.0) + self.runs_read_back_seconds)
        return files


class Made(list):
    """The files an invocation wrote, with the cost it asked the ledger to keep (``Invocation.cost``,
    None: what the command measured)."""

    cost: tuple | None = None


@dataclass(frozen=True)
class Figure:
    """A recipe, declared (see the module docstring).

    ``rows(inv, bar)`` runs the cells under a bar of ``cells(inv)`` cells and returns what they
    measured: a list of row dicts, or the recipe's own record of them (``cells=None``: the rows
    function shows its own bars, ``inv.cells``, e.g. one per phase). From it, ``tables(rows) -> {csv
    name: row dicts}`` (default ``{csv: rows}``) are written, then ``plot(rows, inv, path)`` (one
    path, or a list of the plots it wrote under ``inv.dir``); ``files(rows, inv, written)`` may
    reorder or extend the files the section lists (default: the tables, then the plots).
    ``outcomes(rows, inv)`` are the claims' (Claim, Outcome) pairs, ``settings(rows, inv)`` and
    ``notes(rows, inv)`` the section's texts; ``title`` is appended to the section's heading after
    the id. ``start(inv)``, the one hook for recipes that start workers or share runs, runs first:
    it returns None, or the files of an invocation that ends there (a worker's share of the
    runs, which writes no tables)."""

    id: str
    title: str
    description: str
    scales: dict[str, dict]
    rows: Callable
    outcomes: Callable
    settings: Callable
    cells: Callable | None = None
    plot: Callable | None = None
    notes: Callable = lambda rows, inv: ""
    csv: str = "rows.csv"
    png: str = "rows.png"
    tables: Callable | None = None
    float_format: str | None = "{:.6g}"
    options: tuple[Option, ...] = ()
    heading: str = "claim"
    files: Callable | None = None
    start: Callable | None = None


def drive(fig: Figure, inv: Invocation) -> list[Path]:
    """Run ``fig`` in the invocation ``inv`` and write its files and section; returns the files written."""
    if fig.start is not None:  # it may keep what it prepared in inv.started
        ended = fig.start(inv)
        if ended is not None:
            return ended
    if fig.cells is None:
        rows = fig.rows(inv, None)
    else:
        with inv.cells(fig.cells(inv)) as bar:
            rows = fig.rows(inv, bar)
    tables = fig.tables(rows) if fig.tables else {fig.csv: rows}
    files = [inv.csv(t, name, fig.float_format) for name, t in tables.items()]
    if fig.plot is not None:
        plotted = fig.plot(rows, inv, inv.dir / fig.png)
        files += plotted if isinstance(plotted, list) else [plotted]
    if fig.files is not None:
        files = fig.files(rows, inv, files)
    outcomes = fig.outcomes(rows, inv)
    return inv.finish(inv.section(fig.settings(rows, inv), outcomes, fig.notes(rows, inv), files), files)


def _file(fig_id: str, description: str, scales: dict, options=(), title: str = "", heading: str = "claim"):
    """File ``make(inv) -> files`` as the recipe ``fig_id`` of ``bnnsample figure``, with its scales (the
    first the default) and its Options (besides ``scale``, and ``data_dir``, which every recipe takes);
    ``title`` and ``heading`` go to its section. Each invocation checks and parses the options
    (``Invocation``) before ``make`` runs; the filed ``make(out_dir, options)`` returns its files, and its
    ``check(options)`` does that check alone (ValueError), before any folder is made."""

    def deco(make):
        @functools.wraps(make)
        def run(out_dir, opts: dict) -> Made:
            inv = Invocation(fig_id, out_dir, opts, scales, options, title, heading)
            made = Made(make(inv))
            made.cost = inv.cost
            return made

        run.check = lambda opts: Invocation(fig_id, Path(), opts, scales, options, title, heading)
        register(fig_id, description, scales=tuple(scales), options=("scale", *(o.key for o in options)))(run)
        return run

    return deco


def register_figure(fig: Figure) -> Figure:
    """File the declared ``fig`` as a recipe of ``bnnsample figure`` (``drive`` of it)."""
    _file(fig.id, fig.description, fig.scales, fig.options, fig.title, fig.heading)(functools.partial(drive, fig))
    return fig
