"""A pool of worker processes for independent calls: the cells of a long recipe
(``jobs.cells.CellCache.fill``), the shares of paulin2025-fig4's runs (its ``workers=``).

Workers are spawned, not forked (a forked child would inherit the parent's torch threads and
open files), and each runs one torch thread, so that N workers use N cores.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator


def _one_thread() -> None:
    import torch

    torch.set_num_threads(1)


def run_pool(calls: list[tuple[Callable, tuple]], jobs: int) -> Iterator:
    """The results of ``fn(*args)`` for each (fn, args) of ``calls``, computed by
    min(``jobs``, len(calls)) spawned worker processes, in the order they finish. ``fn`` is a
    module-level function (the workers import it); an exception of a call is raised here."""
    if not calls:
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    with ProcessPoolExecutor(
        min(jobs, len(calls)), mp_context=multiprocessing.get_context("spawn"), initializer=_one_thread
    ) as pool:
        for fut in as_completed([pool.submit(fn, *args) for fn, args in calls]):
            yield fut.result()
