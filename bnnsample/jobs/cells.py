"""Finished cells of a long computation (a figure recipe's), kept so that a long invocation resumes
where it stopped.

A recipe whose cells are independent simulations (``papers.sekkat2023``) asks its
``Invocation.cache`` for each cell: a cell is keyed by everything its result depends on (the
recipe's arguments of that cell, as their ``repr``, and bnnsample's version), written when it
finishes under ``<id>/runs/cells/`` (git-ignored, as every run folder), and read back instead of
recomputed by the next invocation with the same arguments. Stopping an hour-long recipe then
loses at most the cell that was running. To resume in another checkout (a later session, another machine),
copy the folder there (it is a run folder: git-ignored, never committed). A file that does not read back is moved aside
(``<name>.damaged-<time>``, named on stderr) and its cell computed again.

With ``jobs=N`` a recipe first has its cells that are not kept yet computed by N worker processes
(``CellCache.fill``, ``plumbing.workers.run_pool``: one torch thread each), then makes its usual
pass, which reads them all back: the numbers are those of one process, in a fraction of the wall time.
"""

from __future__ import annotations

import hashlib
import io
import json
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..plumbing.workers import run_pool


def _json_default(o):
    if isinstance(o, np.generic):
        return o.item()
    raise TypeError(f"{type(o).__name__} is not a JSON value")


SUFFIX = {"row": ".json", "arrays": ".npz"}


def _fill_one(folder: str, kind: str, key, fn: Callable, args: tuple) -> float:
    """In a worker process: compute and keep one cell; its ``seconds``."""
    value = getattr(CellCache(Path(folder)), kind)(key, lambda: fn(*args))
    return float(value.get("seconds", 0.0))


class CellCache:
    """The finished cells under ``folder``; ``reused`` counts the cells read back and
    ``reused_seconds`` sums the seconds they took when they were computed (their ``seconds``);
    ``filled`` and ``filled_seconds`` count those of them that worker processes of this
    invocation computed (``fill``), with ``jobs`` workers."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.reused, self.reused_seconds = 0, 0.0
        self.filled, self.filled_seconds, self.jobs = 0, 0.0, 1

    def fill(self, tasks, jobs: int, say: Callable[[str], None] | None = None) -> None:
        """Compute in ``jobs`` worker processes the cells of ``tasks`` not kept yet, each kept as
        ``row`` or ``arrays`` keeps it, so that the recipe's own pass reads them back. A task is
        (kind "row" | "arrays", key, fn, args): the cell's value is ``fn(*args)``, ``fn`` a
        module-level function (workers are spawned: they import it). ``say`` gets a line per
        finished cell."""
        todo = [t for t in tasks if not self._path(t[1], SUFFIX[t[0]]).is_file()]
        if jobs < 2 or len(todo) < 2:
            return
        self.jobs = jobs = min(jobs, len(todo))
        calls = [(_fill_one, (str(self.folder), kind, key, fn, args)) for kind, key, fn, args in todo]
        for i, seconds in enumerate(run_pool(calls, jobs), 1):
            self.filled += 1
            self.filled_seconds += seconds
            if say:
                say(f"{i} of {len(todo)} cells computed by {jobs} worker processes ({seconds:.0f} s)")

    def _path(self, key, suffix: str) -> Path:
        from .. import __version__

        digest = hashlib.sha256(repr((__version__, key)).encode()).hexdigest()[:24]
        return self.folder / f"{digest}{suffix}"

    def _get(self, path: Path, compute: Callable, dump: Callable, load: Callable, seconds: Callable):
        from ..rundir import move_aside, write_bytes

        if path.is_file():
            try:
                value = load(path.read_bytes())
            except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as e:
                dest = move_aside(path, str(e))
                print(f"bnnsample: a finished cell's file {path} did not read back ({type(e).__name__}); moved it "
                      f"to {dest.name} and computing the cell again", file=sys.stderr)  # fmt: skip
            else:
                self.reused += 1
                self.reused_seconds += seconds(value)
                return value
        value = compute()
        write_bytes(path, dump(value), durable=False)
        return value

    def row(self, key, compute: Callable[[], dict]) -> dict:
        """The row (a dict of JSON values) of the cell ``key``: read back, else ``compute()``d
        and written."""
        return self._get(self._path(key, SUFFIX["row"]), compute,
                         lambda r: json.dumps(r, default=_json_default).encode(), json.loads,
                         lambda r: float(r.get("seconds", 0.0)))  # fmt: skip

    def arrays(self, key, compute: Callable[[], dict]) -> dict:
        """The named arrays and numbers (a dict; None values allowed) of the cell ``key``:
        read back, else ``compute()``d and written (.npz, no pickled objects)."""

        def dump(d: dict) -> bytes:
            buf = io.BytesIO()
            np.savez(buf, **{k: np.asarray(v) for k, v in d.items() if v is not None})
            return buf.getvalue()

        def load(data: bytes) -> dict:
            with np.load(io.BytesIO(data), allow_pickle=False) as z:
                return {k: z[k] for k in z.files}

        return self._get(self._path(key, SUFFIX["arrays"]), compute, dump, load,
                         lambda d: float(d.get("seconds", 0.0)))  # fmt: skip

    def summary(self) -> str:
        """'' when nothing was reused, else the clause the section's command line carries."""
        text = ""
        if self.filled:
            text += f"; {self.filled} cells computed by {self.jobs} worker processes in {self.filled_seconds:.0f} s of their own"
        earlier = self.reused - self.filled
        if earlier > 0:
            text += (f"; {earlier} finished cells read back from `runs/cells/` of earlier invocations, which took "
                     f"{self.reused_seconds - self.filled_seconds:.0f} s to compute")  # fmt: skip
        return text
