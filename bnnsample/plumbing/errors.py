"""Errors meant for the user: printed as one line, never as a traceback."""

import errno

# the errnos of a disk that failed (not filled) under a write: an I/O error, a read-only (shut down) file system,
# a device gone (``store.disk_errno``); with a full disk's, the failures the command line ends a run on in one line
DISK_FAILED_ERRNOS = frozenset({errno.EIO, errno.EROFS, errno.ENXIO, errno.ENODEV})


class UserError(Exception):
    """Bad input or missing files. The message is a single readable line."""


class ConfigError(UserError):
    """A config field holds a value outside what is allowed.

    The message names the field and the allowed values, e.g.
    ``step_size=-1: must be a number > 0``.
    """

    def __init__(self, field: str, value, allowed: str):
        self.field = field
        super().__init__(f"{field}={value}: {allowed}")


class DataMissingError(UserError):
    """A dataset's files are not where they are expected (and download is off)."""


class WriteRefused(UserError):
    """A write that the file system cannot take now (disk full, read-only), refused before it
    starts: what was written before is intact, and the same command resumes from it."""


class Interrupted(Exception):
    """A run stopped on request (Ctrl-C, SIGTERM) after writing its draws and resume state."""


class TimeLimit(Interrupted):
    """A run (or a recipe) stopped at its ``time_limit``, its resume state written: the same
    command continues it. Exit code 3 (``TIME_LIMIT_EXIT``), so that a job queue can tell it
    from a failure and from Ctrl-C."""


TIME_LIMIT_EXIT = 3


def printable(text: str) -> str:
    """``text`` with control characters (newline, ESC, ...) shown as escapes, so that a value
    from the command line can neither break the one error line nor restyle the terminal."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in str(text))


def log_to_files(msg: str) -> None:
    """Record an error in the run's log file(s) only: the console gets it once, on stderr."""
    import logging

    logger = logging.getLogger("bnnsample")
    record = logger.makeRecord(logger.name, logging.ERROR, __file__, 0, msg, None, None)
    for h in {*logging.getLogger().handlers, *logger.handlers}:
        if isinstance(h, logging.FileHandler):
            h.handle(record)


_failed_logs: list[str] = []


def guard_log_files() -> None:
    """A log file that cannot be written (disk full, read-only, I/O error) costs neither a
    traceback per message nor the run: its handler is taken off after the first failure and
    the failure recorded, for ``log_failures`` to report in one line at the end."""
    import logging
    import os

    for logger in (logging.getLogger(), logging.getLogger("bnnsample")):
        for h in list(logger.handlers):
            if isinstance(h, logging.FileHandler) and os.path.islink(h.baseFilename):
                logger.removeHandler(h)  # opened for appending, nothing written yet
                h.close()
                raise UserError(f"{h.baseFilename} is a symbolic link (to {os.readlink(h.baseFilename)}); bnnsample "
                                "never writes through links: remove the link or choose another hydra.run.dir")  # fmt: skip
            if isinstance(h, logging.FileHandler) and not getattr(h, "_bnnsample_guarded", False):

                def on_error(record, h=h, logger=logger):
                    import sys

                    err = sys.exc_info()[1]
                    why = err.strerror if isinstance(err, OSError) and err.strerror else type(err).__name__
                    _failed_logs.append(f"could not write the log {h.baseFilename}: {why}")
                    logger.removeHandler(h)

                h.handleError = on_error
                h._bnnsample_guarded = True


def log_failures() -> str | None:
    """One line about the log files that could not be written since ``guard_log_files``, or None."""
    return "; ".join(dict.fromkeys(_failed_logs)) or None


def positive_number(value, error: type[Exception], message: str) -> float:
    """``float(value)`` when it is a number > 0 (inf included), else ``error(message)``."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise error(message) from None
    if not number > 0:
        raise error(message)
    return number
