"""The stop request shared by the signal handlers (cli) and the sampling loop, in a module of
its own so that installing the handlers does not import torch."""

from __future__ import annotations

_stop = {"requested": False, "deadline": False}


def request_stop(signum=None, frame=None) -> None:
    """Signal handler: the loop stops at the next block boundary, after writing its draws and
    a consistent resume state. A second request interrupts at once."""
    if _stop["requested"]:
        raise KeyboardInterrupt
    _stop["requested"] = True


class deadline:  # noqa: N801  (used as a context manager, like contextlib's)
    """``with deadline(seconds):`` a stop request once ``seconds`` have passed (a timer thread),
    marked as the time limit's (``_stop["deadline"]``); None: no limit. Leaving the block
    cancels the timer and clears the mark."""

    def __init__(self, seconds: float | None):
        self.seconds = seconds
        self.timer = None

    def _expire(self) -> None:
        _stop["deadline"] = True
        _stop["requested"] = True

    def __enter__(self):
        import threading

        _stop["deadline"] = False
        if self.seconds is not None:
            self.timer = threading.Timer(max(0.0, float(self.seconds)), self._expire)
            self.timer.daemon = True
            self.timer.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.timer is not None:
            self.timer.cancel()
        if _stop["deadline"]:  # the limit's request is not left behind for what runs next
            _stop["requested"] = False
        _stop["deadline"] = False

    @staticmethod
    def expired() -> bool:
        return bool(_stop["deadline"])
