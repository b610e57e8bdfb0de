"""What figure recipes share: the ``scale`` option and the REPRODUCTION.md section writer."""

from __future__ import annotations

import fcntl
from pathlib import Path

SCALES = ("quick", "paper")

HEADER = """# Reproduction of the papers' figures and tables

Each section is written by `bnnsample figure <id>` (the command is in the section) from
runs actually made; the files it wrote are under `results/<id>/`. A row per quantitative
claim: the paper's value, ours, and a verdict (reproduced / partly / not reproduced, with
the reason). Sections are replaced when their recipe is rerun; the others stay.
"""


def scale_of(options: dict, default: str = "quick") -> str:
    """The ``scale=quick|paper`` option (ValueError names the allowed values)."""
    scale = options.get("scale", default)
    if scale not in SCALES:
        raise ValueError(f"scale={scale}: allowed values: {', '.join(SCALES)}")
    return scale


def check_options(options: dict, allowed: tuple[str, ...]) -> None:
    """ValueError for an option the recipe does not know, naming the ones it does."""
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(f"unknown option {unknown[0]!r}; allowed: {', '.join(allowed)}")


def update_reproduction(out_dir: Path, fig_id: str, markdown: str) -> Path:
    """Replace (or append) the section of ``fig_id`` in ``out_dir/REPRODUCTION.md``.

    The section is everything between ``<!-- begin fig_id -->`` and ``<!-- end fig_id -->``;
    sections are kept in the order of their first writing. A lock file serializes recipes
    that run at the same time.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "REPRODUCTION.md"
    begin, end = f"<!-- begin {fig_id} -->", f"<!-- end {fig_id} -->"
    block = f"{begin}\n{markdown.strip()}\n{end}"
    with open(out_dir / ".REPRODUCTION.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        text = path.read_text() if path.exists() else HEADER
        if begin in text and end in text:
            head, rest = text.split(begin, 1)
            _, tail = rest.split(end, 1)
            text = head + block + tail
        else:
            text = text.rstrip("\n") + "\n\n" + block + "\n"
        tmp = path.with_suffix(".md.tmp")
        tmp.write_text(text)
        tmp.replace(path)
    return path


def compose(overrides=()):
    """The resolved run config for Hydra ``overrides``, as ``bnnsample run`` would compose it."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    from ..paths import conf_dir

    GlobalHydra.instance().clear()
    with initialize_config_dir(str(conf_dir()), version_base="1.3"):
        return hydra_compose("config", overrides=list(overrides))


def run_pipeline(run_dir: Path, overrides=(), evaluate: bool = False) -> Path:
    """Run ``bnnsample run`` in process into ``run_dir`` (no progress bar); returns samples.h5.

    A finished run in ``run_dir`` with the same config is reused, not redone (the runner's
    resume rule), so an interrupted recipe picks up where it stopped.
    """
    from .. import runner

    cfg = compose(["progress=false", *overrides])
    run_dir.mkdir(parents=True, exist_ok=True)
    path = runner.run(cfg, run_dir)
    if evaluate:
        from ..evaluate.report import evaluate_run

        evaluate_run(run_dir)
    return path
