"""Finished cells of a recipe, kept so that a long invocation resumes where it stopped.

A recipe whose cells are independent simulations (``figures/sekkat2023``) asks its
``Invocation.cache`` for each cell: a cell is keyed by everything its result depends on (the
recipe's arguments of that cell, as their ``repr``, and bnnsample's version), written when it
finishes under ``<id>/runs/cells/`` (git-ignored, as every run folder), and read back instead of
recomputed by the next invocation with the same arguments. Stopping an hour-long recipe then
loses at most the cell that was running. To resume in another checkout (a later session, another machine),
commit the folder (`git add -f results/<id>/runs/cells`) or copy it there. A file that does not read back is moved aside
(``<name>.damaged-<time>``, named on stderr) and its cell computed again.
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


def _json_default(o):
    if isinstance(o, np.generic):
        return o.item()
    raise TypeError(f"{type(o).__name__} is not a JSON value")


class CellCache:
    """The finished cells under ``folder``; ``reused`` counts the cells read back and
    ``reused_seconds`` sums the seconds they took when they were computed (their ``seconds``)."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.reused, self.reused_seconds = 0, 0.0

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
        return self._get(self._path(key, ".json"), compute,
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

        return self._get(self._path(key, ".npz"), compute, dump, load,
                         lambda d: float(d.get("seconds", 0.0)))  # fmt: skip

    def summary(self) -> str:
        """'' when nothing was reused, else the clause the section's command line carries."""
        if not self.reused:
            return ""
        return (f"; {self.reused} finished cells read back from `runs/cells/` of earlier invocations, which took "
                f"{self.reused_seconds:.0f} s to compute")  # fmt: skip
