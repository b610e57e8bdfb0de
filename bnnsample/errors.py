"""Errors meant for the user: printed as one line, never as a traceback."""


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


class Interrupted(Exception):
    """A run stopped on request (Ctrl-C, SIGTERM) after writing its draws and resume state."""


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


def positive_number(value, error: type[Exception], message: str) -> float:
    """``float(value)`` when it is a number > 0 (inf included), else ``error(message)``."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise error(message) from None
    if not number > 0:
        raise error(message)
    return number
