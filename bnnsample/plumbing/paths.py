"""Where the packaged Hydra configs live."""

from __future__ import annotations

from pathlib import Path


def conf_dir() -> Path:
    """The conf/ directory: inside an installed package (bnnsample/conf) or, when running
    from a source checkout, the repository's top-level conf/."""
    package = Path(__file__).resolve().parents[1]  # bnnsample/ (this file is in bnnsample/plumbing/)
    for cand in (package / "conf", package.parent / "conf"):
        if (cand / "config.yaml").exists():
            return cand
    raise FileNotFoundError("bnnsample's conf/ directory is missing from the installation")
