"""The stop request shared by the signal handlers (cli) and the sampling loop, in a module of
its own so that installing the handlers does not import torch."""

from __future__ import annotations

_stop = {"requested": False}


def request_stop(signum=None, frame=None) -> None:
    """Signal handler: the loop stops at the next block boundary, after writing its draws and
    a consistent resume state. A second request interrupts at once."""
    if _stop["requested"]:
        raise KeyboardInterrupt
    _stop["requested"] = True
