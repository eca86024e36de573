"""Errors of the venue link, derived from the product's error root.

Each names whose problem it is: :class:`CommandRefused` for a venue command that is refused
(the reason goes back on the response topic), :class:`RedactionError` for a payload that would
leak hole cards (a programming error in the caller, never sent), :class:`StoreError` for the
local SQLite store (disk full, locked) so the daemon can alert the dealer.
"""

from __future__ import annotations

from controller.rules.errors import BadInput, ConfigError, RailguardError

__all__ = [
    "BadInput",
    "CommandRefused",
    "ConfigError",
    "LinkError",
    "RedactionError",
    "SchemaViolation",
    "StoreError",
    "StoreFull",
    "StoreLocked",
]


class LinkError(RailguardError):
    """Root of the venue link's own errors."""


class SchemaViolation(BadInput):
    """A payload does not match its JSON Schema; ``path`` names the offending part."""

    def __init__(self, kind: str, path: str, message: str, rule: str = "") -> None:
        super().__init__(f"{kind}: {path or '(root)'}: {message}")
        self.kind = kind
        self.path = path
        self.message = message
        self.rule = rule  # the JSON Schema keyword that failed ("pattern", "minimum" ...)


class RedactionError(BadInput):
    """A live payload (state, event, alert) carries hole-card identities; nothing was sent."""


class CommandRefused(BadInput):
    """A venue command was refused; ``reason`` is the short text sent back to the venue."""

    def __init__(self, reason: str, request_id: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.request_id = request_id


class StoreError(LinkError, OSError):
    """The local SQLite store could not commit; the record was not lost (see the message)."""


class StoreFull(StoreError):
    """The disk (or the configured size cap) is full."""


class StoreLocked(StoreError):
    """Another process holds the database lock longer than the busy timeout."""
