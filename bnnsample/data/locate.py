"""Where a dataset's files are looked for: the user's ``data_dir`` first, then the folders
that operating-system packages install (Debian's ``dataset-fashion-mnist`` puts the four
gzipped IDX files in /usr/share/datasets/fashion-mnist). No configuration is needed when such
a package is installed.

The environment variable BNNSAMPLE_SYSTEM_DATA (folders separated by os.pathsep; empty for
none) replaces the system folders, so that a test or a user can hide or move them."""

from __future__ import annotations

import os
from pathlib import Path

# dataset name -> [(folder, the Debian package that installs it)]
_MLBENCH = [(f"{lib}/mlbench/data", "r-cran-mlbench") for lib in
            ("/usr/lib/R/site-library", "/usr/local/lib/R/site-library", "/usr/lib/R/library")]  # fmt: skip
SYSTEM_DATA: dict[str, list[tuple[str, str]]] = {
    "fmnist": [("/usr/share/datasets/fashion-mnist", "dataset-fashion-mnist")],
    "ionosphere": _MLBENCH,  # Ionosphere.rda (R's mlbench package; read with the rdata package)
    "vehicle": _MLBENCH,  # Vehicle.rda
}
ENV = "BNNSAMPLE_SYSTEM_DATA"
DEFAULT_DATA_DIR = "~/.cache/bnnsample"  # conf/config.yaml's data_dir


def default_data_dir(cfg) -> bool:
    """Whether ``cfg.data_dir`` is the default one: only then may a system copy stand in; a
    data_dir the user gave is honoured (its files or an error naming it)."""
    return str(cfg.get("data_dir", DEFAULT_DATA_DIR)) == DEFAULT_DATA_DIR


def system_folders(name: str) -> list[Path]:
    """The system folders searched for dataset ``name`` (after data_dir)."""
    if ENV in os.environ:
        return [Path(p) for p in os.environ[ENV].split(os.pathsep) if p]
    return [Path(folder) for folder, _ in SYSTEM_DATA.get(name, [])]


def install_hint(name: str) -> str:
    """'; or install the Debian package X (apt-get install X)' where a package ships ``name``."""
    packages = sorted({pkg for _, pkg in SYSTEM_DATA.get(name, [])})
    if not packages:
        return ""
    return "; or install the Debian package " + " or ".join(f"{p} (apt-get install {p})" for p in packages)


def first_complete(folders: list[Path], find) -> tuple[Path, list] | tuple[None, None]:
    """The first folder in which ``find(folder)`` returns a list without None, with that list."""
    for folder in folders:
        found = find(folder)
        if None not in found:
            return folder, found
    return None, None
