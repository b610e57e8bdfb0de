"""The ``bnnsample`` command (the console entry point). It imports nothing before its ``try``,
so that Ctrl-C while the command line's modules load (hydra, omegaconf, the configs: the first
second) is one line and exit 130, as an interrupt anywhere else is, not a traceback.

An interrupted command ends at once once it has said so: by then every file it wrote is closed
(the stores, the run directory's lock and log, by their ``with`` blocks), and what remains is the
interpreter's teardown of torch and the other modules, 0.5 CPU-seconds here (2 s of wall time on
a loaded machine) that the one who pressed Ctrl-C would wait for."""

import sys


def _end(code: int) -> None:
    import contextlib
    import logging
    import os

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed or broken stream: nothing more to say
            stream.flush()
    logging.shutdown()
    os._exit(code)


def main() -> None:
    try:
        from .cli import main as command

        command()
    except KeyboardInterrupt:
        sys.stderr.write("bnnsample: error: interrupted\n")
        _end(130)
    except SystemExit as e:
        if e.code == 130:
            _end(130)
        raise
