"""The ``bnnsample`` command (the console entry point). It imports nothing before its ``try``,
so that Ctrl-C while the command line's modules load (hydra, omegaconf, the configs: the first
second) is one line and exit 130, as an interrupt anywhere else is, not a traceback."""

import sys


def main() -> None:
    try:
        from .cli import main as command

        command()
    except KeyboardInterrupt:
        sys.stderr.write("bnnsample: error: interrupted\n")
        sys.exit(130)
