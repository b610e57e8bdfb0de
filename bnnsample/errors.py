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
