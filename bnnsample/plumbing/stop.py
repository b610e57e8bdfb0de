"""The stop request shared by the signal handlers (cli) and the sampling loop, in a module of
its own so that installing the handlers does not import torch."""

from __future__ import annotations

from contextlib import contextmanager

_stop = {"requested": False, "deadline": False, "loops": 0}


def request_stop(signum=None, frame=None) -> None:
    """Signal handler: the loop stops at the next block boundary, after writing its draws and
    a consistent resume state. A second request interrupts at once, and so does one outside a
    loop that checks for it (``checked``: the sampling and training loops): while the command
    loads its modules and data, builds the potential or times it there is nothing to write, and
    nothing would check the request for tens of seconds."""
    if _stop["requested"] or not _stop["loops"]:
        raise KeyboardInterrupt
    _stop["requested"] = True


@contextmanager
def checked():
    """``with checked():`` the block checks ``_stop["requested"]`` at least every block or step,
    so a stop request waits for it (``request_stop``)."""
    _stop["loops"] += 1
    try:
        yield
    finally:
        _stop["loops"] -= 1


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


RETRY = 0.05  # seconds between the raises of interrupts_kept


@contextmanager
def interrupts_kept():
    """``with interrupts_kept():`` Ctrl-C and SIGTERM interrupt the block (KeyboardInterrupt) even
    where library code swallows the exception: during a long write h5py runs weakref callbacks,
    and a signal's handler that runs inside one raises into it, where Python only prints
    "Exception ignored" and goes on. So once a signal came, KeyboardInterrupt is raised again
    every RETRY seconds (SIGALRM) until it gets out of the block (at the latest when the C call
    under way returns), and at the block's end; the swallowed ones are not printed. It yields
    ``check()``, which raises KeyboardInterrupt at once if a signal came: a block calls it before
    it commits (a rename), so that a write shorter than RETRY is not committed after a Ctrl-C."""
    import signal
    import sys
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield lambda: None
        return
    got = []

    def interrupt(signum, frame):
        got.append(signum)
        signal.setitimer(signal.ITIMER_REAL, RETRY)
        raise KeyboardInterrupt

    def again(signum, frame):
        signal.setitimer(signal.ITIMER_REAL, RETRY)
        raise KeyboardInterrupt

    def quiet(unraisable):
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            hook(unraisable)

    old = {s: signal.signal(s, interrupt) for s in (signal.SIGINT, signal.SIGTERM)}
    old[signal.SIGALRM] = signal.signal(signal.SIGALRM, again)
    hook, sys.unraisablehook = sys.unraisablehook, quiet

    def check() -> None:
        if got:
            raise KeyboardInterrupt

    try:
        yield check
    finally:
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
        finally:
            sys.unraisablehook = hook
            for s, h in old.items():
                signal.signal(s, h)
    if got:
        raise KeyboardInterrupt
