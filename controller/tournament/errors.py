"""The tournament's errors: one hierarchy under the product's :class:`RailguardError`.

:class:`EventFileError` names the key of an event file that is wrong; :class:`Refused` is a
request the event's rules refuse (a busted player seated again, a wrong starting stack), with
a stable ``code`` and the clause that refuses it. A refused request leaves the state unchanged.
"""

from __future__ import annotations

from controller.rules.errors import BadInput, ConfigError, RailguardError


class TournamentError(RailguardError):
    """Root of the tournament's errors."""


class EventFileError(TournamentError, ConfigError):
    """The event file is not valid; the message names the key and what is expected."""


class Refused(TournamentError, BadInput):
    """A request the event refuses; the state is unchanged. ``code`` is stable."""

    def __init__(self, code: str, message: str, clause: str = "") -> None:
        super().__init__(message)
        self.code, self.clause = code, clause
