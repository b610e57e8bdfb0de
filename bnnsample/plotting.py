"""matplotlib set-up and figure saving that the evaluation plots and the figure recipes share:
pyplot on the file-only Agg backend (nothing here needs a display), figures written as
``rundir.write_bytes`` writes files."""

from __future__ import annotations

from pathlib import Path

from .rundir import write_figure


def pyplot():
    """matplotlib.pyplot on the file-only Agg backend (recipes run without a display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path: Path, title: str | None = None, legends=(), dpi: int = 110) -> Path:
    """Give each axes of ``legends`` its legend (fontsize 7) and the figure its ``title``, then
    lay out, write (creating the folder) and close a figure."""
    for ax in legends:
        ax.legend(fontsize=7)
    if title is not None:
        fig.suptitle(title)
    fig.tight_layout()
    write_figure(fig, path, dpi=dpi)
    pyplot().close(fig)
    return path
