"""Hydra callbacks (conf/config.yaml, hydra.callbacks): checks Hydra's own writes need.

Hydra's basic sweeper saves ``multirun.yaml`` in the sweep directory itself, before any job
runs and outside bnnsample's safe writes; ``on_multirun_start`` runs just before that save, so
a link there is refused before Hydra would write through it.
"""

from __future__ import annotations

from pathlib import Path

from hydra.experimental.callback import Callback


class NoLinks(Callback):
    def on_multirun_start(self, config, **kwargs) -> None:
        """Refuse a link at ``multirun.yaml``: one error line and exit 2. Hydra turns a
        callback's exceptions into warnings and goes on, so this one exits itself."""
        import sys

        from ..rundir import check_writable_target
        from .errors import UserError, printable
        from .progress import message

        try:
            check_writable_target(Path(str(config.hydra.sweep.dir)) / "multirun.yaml")
        except UserError as e:
            message(f"bnnsample: error: {printable(str(e).replace('hydra.run.dir', 'hydra.sweep.dir'))}", sys.stderr)
            raise SystemExit(2) from None
