"""The runs of the sekkat2023 §2.5.2 mixture that figs 4, 7 and 14 sample: one row per run of a figure's
plan, with the L1 error of eq. 44 against the exact theta_1 marginal, its histogram-noise floor and its
standard error (``mixture_runs``): an error that does not exceed its floor by more than 2 s.e.
measures no bias, and a claim that rests only on such errors is "not tested: scale"."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from ...plotting import pyplot, save_figure
from .mixture_runs import (
    BINS,
    FLOOR_REPS,
    RANGE,
    MixtureReference,
    mixture_reference,
    mixture_row,
    mixture_work,
    projection_errors,
)
from .shared import LANGEVIN

ETA_MIXTURE = 0.1  # sekkat2023 §3.3.2: "motivated by metastability issues" seen with larger eta


@functools.cache
def _reference(cells: int, seed: int) -> MixtureReference:
    return mixture_reference(cells, seed=seed)


def _mixture_cell(ref_key: tuple, args: tuple) -> dict:
    """A worker process's ``mixture_row``: the reference rebuilt from its key (cells, data seed)."""
    return mixture_row(_reference(*ref_key), *args)


def langevin_plan(settings: dict, seed: int, burn: float, time_: float) -> list[tuple[tuple, dict]]:
    """The Langevin-OABAO comparison runs of a mixture figure's plan, one per (n, h) of
    ``settings["langevin"]``, seeded ``seed + 1``, ``seed + 2``, ... after the figure's own runs."""
    return [((*LANGEVIN, "iid_wor", n, h, settings["chains"], burn, time_, seed + i, "langevin"), {})
            for i, (n, h) in enumerate(settings["langevin"], start=1)]  # fmt: skip


def mixture_rows(ref: MixtureReference, plan, bar=None, cache=None, jobs: int = 1) -> list[dict]:
    """One ``mixture_row`` per (arguments, extra columns) of a plan; ``bar.done`` after each.
    With ``cache`` (``Invocation.cache``) a row already computed with the same arguments and
    reference is read back instead, and with ``jobs`` > 1 the rows not kept yet are first
    computed by that many worker processes (``CellCache.fill``)."""
    if cache is not None and jobs > 1:
        tasks = [("row", ("mixture_row", ref.key, args), _mixture_cell, (ref.key, args)) for args, _ in plan]
        cache.fill(tasks, jobs, bar.note if bar else None)
    rows = []
    for args, extra in plan:
        reused = cache.reused if cache else 0
        row = (cache.row(("mixture_row", ref.key, args), lambda a=args: mixture_row(ref, *a)) if cache
               else mixture_row(ref, *args))  # fmt: skip
        r = {**row, **extra}
        rows.append(r)
        if bar:
            bar.done(f"{r['scheme']} {r['sampling']} h={r['h']:g} n={r['n']}"
                     + "".join(f" {k}={v}" for k, v in extra.items())
                     + f": L1 {r['l1']:.3f} (floor {r['l1_noise_floor']:.3f}, {r['seconds']:.1f}s"
                     + (", read back" if cache and cache.reused > reused else "") + ")")  # fmt: skip
    return rows


@dataclass
class Measured:
    """What a mixture figure measured: the exact reference, the rows of its runs, the projection
    errors of the friction classes (None without Sigma_x) and what its ``after`` step returned."""

    ref: object
    rows: list[dict]
    proj: dict | None = None
    after: object = None


def reference_and_rows(inv, plan, with_sigma: bool = False, after=None, after_cells: int = 0) -> Measured:
    """What figs 4, 7 and 14 do first, under one bar: the exact reference (with Sigma_x and its projection
    errors when ``with_sigma``), then the rows of ``plan`` (``mixture_rows``, cells kept by the invocation),
    then ``after(ref, bar)`` if given (``after_cells`` more cells)."""
    with inv.cells(1 + len(plan) + after_cells) as bar:
        ref = mixture_reference(inv.st["cells"], with_sigma=with_sigma)
        proj = projection_errors(ref) if with_sigma else None
        bar.done(f"reference: theta_1 marginal on {inv.st['cells']} cells"
                 + (", projection errors " + ", ".join(f"{k} {v:.3g}" for k, v in proj.items()) if proj else ""))  # fmt: skip
        rows = mixture_rows(ref, plan, bar, inv.cache, inv.jobs)
        return Measured(ref, rows, proj, after(ref, bar) if after else None)


def plot(path, x_key, groups, title, ylabel="L1 error of the theta_1 marginal (eq. 44)"):
    """The L1 errors of each (label, rows) group against ``x_key``, with their noise floors (dotted)."""
    fig, ax = pyplot().subplots(figsize=(7, 4.8))
    for i, (label, sel) in enumerate(groups):
        sel = sorted(sel, key=lambda r: r[x_key])
        ax.plot([r[x_key] for r in sel], [r["l1"] for r in sel], "o-", color=f"C{i % 10}", label=label)
        ax.plot([r[x_key] for r in sel], [r["l1_noise_floor"] for r in sel], ":", color=f"C{i % 10}", lw=0.8)
    ax.set(xscale="log" if x_key != "K" else "linear", yscale="log", xlabel=x_key, ylabel=ylabel,
           title=title + " (dotted: bootstrap histogram-noise floor)")  # fmt: skip
    return save_figure(fig, path, legends=[ax])


def settings_text(st, ref) -> str:
    """The settings a mixture figure's section states first: data, reference, chains, L1 and its noise."""
    return (
        f"mixture §2.5.2 (dataset mixture_means, N = 200, data seed 0; the paper's data set is unseeded), "
        f"reference theta_1 marginal by midpoint quadrature of the exact posterior on a {st['cells']}^2 grid over "
        f"[-0.5, 2]^2 (mass of theta_1 in [0, 1.4]: {ref.grid.mass_in(0, 1.4):.6f}); L1 with {BINS} bins on "
        f"{list(RANGE)}; {st['chains']} chains per setting started from exact posterior draws (so the two modes "
        f"start with their exact weights; exact mass of theta_1 > 0.7: {1 - ref.grid.mass_in(-9, 0.7):.3f}), "
        f"v ~ N(0, I). Noise floor and s.e. of each L1 error from 20 bootstrap resamples of whole chains (floor: "
        f"mean L1 between a resample's histogram and the pooled one; s.e.: sd of the resamples' L1 errors); an L1 "
        f"error measures a bias where it exceeds its floor by more than 2 s.e."
    )


# -- what the mixture claims' rules share ------------------------------------------------------
def l1_text(r) -> str:
    return f"{r['l1']:.3f} ± {r['l1_se']:.3f} (floor {r['l1_noise_floor']:.3f})"


def resolved(r) -> bool:
    """The L1 error exceeds its histogram-noise floor by more than 2 s.e.: it measures a bias, not noise."""
    return r["l1"] - r["l1_noise_floor"] > 2 * r["l1_se"]


def floor_noise(r) -> float:
    """The Monte-Carlo s.e. of a row's noise floor, a mean over FLOOR_REPS resamples: sd / sqrt(FLOOR_REPS), the
    resamples' sd taken as the L1 error's bootstrap s.e. (the L1 of a resample to the pooled histogram and to the
    reference spread alike; the floor's own resamples are not kept)."""
    return r["l1_se"] / math.sqrt(FLOOR_REPS)


def bound_z(a, b, c: float = 1.0, excess: bool = False) -> float:
    """(x_b - c x_a) in standard errors (independent runs a, b), x the L1 error or, with ``excess``, its excess
    over the noise floor (whose own noise, a mean over resamples, is neglected)."""
    xa, xb = (r["l1"] - (r["l1_noise_floor"] if excess else 0.0) for r in (a, b))
    return (xb - c * xa) / math.hypot(c * a["l1_se"], b["l1_se"])


FLOOR_CUT = 4  # the cut in the noise floor whose cost scale=paper's rows state


def scale_why(rows, scale: str, scales: dict, plan) -> str:
    """What resolving the noise floor of a mixture figure takes. The floor (a bootstrap over whole chains) falls as
    1/sqrt(chains); a longer record lowers it only as far as the chains mix: they start from exact draws, and a
    chain that does not cross between the modes keeps its start's mode, so the resampled split between the modes
    does not fall with the record (until 2026-11-29, the thirtieth audit, the rows said 1/sqrt(chains x recorded
    time), which sekkat2023-fig14's chains, never crossing, do not follow). The price is for more chains."""
    f = [r["l1_noise_floor"] for r in rows]
    now = (f"histogram-noise floor {min(f):.3f}..{max(f):.3f} at {rows[0]['chains']} chains per setting; it falls as "
           "1/sqrt(chains), and with a longer record only as far as the chains mix (started from exact draws, a chain "
           "that does not cross between the modes keeps its mode, and the split between the modes stays)")  # fmt: skip
    if scale == "paper":  # what a floor FLOOR_CUT times lower would cost: FLOOR_CUT^2 times the chains
        work = sum(r.get("seconds", 0.0) for r in rows) * FLOOR_CUT**2
        return (f"{now}; a floor {FLOOR_CUT}x lower needs {FLOOR_CUT**2}x the chains of every setting: about "
                f"{work / 3600:.1f} CPU-hours for these {len(rows)} settings (their measured sampling time, "
                f"{sum(r.get('seconds', 0.0) for r in rows):.0f} CPU-s, x {FLOOR_CUT**2})")  # fmt: skip
    q, p = scales[scale], scales["paper"]
    more = p["chains"] / q["chains"]
    work = sum(r.get("seconds", 0.0) for r in rows) * mixture_work(plan(p)) / mixture_work(plan(q))
    return (f"{now}; scale=paper ({more:.1f}x the chains and {p['time'] / q['time']:.1f}x the record per setting: "
            f"floor / {math.sqrt(more):.1f} or lower) would take about {work / 3600:.1f} CPU-hours (this run's "
            "sampling time x the ratio of chains x steps)")  # fmt: skip
