"""A run that fails before it writes anything (bad input, missing data) should not leave
Hydra's ``outputs/<date>/<time>/`` folder behind holding only Hydra's copy of the config and a
log: the error was printed, the folder tells nothing more."""

from __future__ import annotations

import shutil
from pathlib import Path

# what Hydra writes before the job starts, and the run directory's (released) lock file
HYDRA_ONLY = {".hydra", "bnnsample.log", ".bnnsample.lock"}


def remove_if_only_hydra(run_dir: Path) -> bool:
    """Remove ``run_dir`` when it holds nothing but HYDRA_ONLY (and then Hydra's
    ``outputs/<date>`` and ``outputs`` above it, if they became empty); True when removed."""
    run_dir = Path(run_dir)
    try:
        names = {p.name for p in run_dir.iterdir()}
    except OSError:
        return False
    if not names <= HYDRA_ONLY:
        return False
    shutil.rmtree(run_dir, ignore_errors=True)
    parent = run_dir.parent
    if parent.parent.name == "outputs":
        for d in (parent, parent.parent):
            try:
                d.rmdir()  # only if empty
            except OSError:
                break
    return True
