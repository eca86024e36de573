"""One error hierarchy for the whole product, rooted at :class:`RailguardError`.

Like gpiozero, each error also inherits the matching builtin so callers can catch either.
Like h11, errors say whose fault they are: :class:`TableError` for an event that the table
produced and the rules reject (a dealer or sensor problem, reported as an alert) and
:class:`LocalError` for a caller that used the API wrongly.
"""

from __future__ import annotations


class RailguardError(Exception):
    """Root of every error raised by railguard."""


class ConfigError(RailguardError, ValueError):
    """A configuration or profile file is invalid; the message names the key."""


class BadInput(RailguardError, ValueError):
    """Malformed input from outside: a frame, a command, a scenario or a PHH file."""


class HandLogError(BadInput):
    """A hand-log entry or a stored table value that cannot be decoded (``handlog.py``)."""


class BadCard(BadInput):
    """Text that is not a card."""


class LocalError(RailguardError, RuntimeError):
    """The caller used the rules core wrongly (a programming error, not a table event)."""


class TableError(RailguardError, ValueError):
    """An event was rejected; the core state is unchanged. ``code`` is stable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
