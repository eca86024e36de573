"""The venue link: MQTT contract and durable outbox.

Public API for the daemon: :class:`VenueLink`, :class:`BrokerConfig`, :class:`Outbox`, the
command dataclasses and :class:`CommandResult`, :func:`redact_state`. The table's own store
is the daemon's (:mod:`controller.daemon.table_store`).
"""

from controller.link.client import CommandHandler, VenueLink
from controller.link.commands import (
    AckAlert,
    Command,
    CommandGuard,
    CommandMeta,
    CommandResult,
    EnrolDeck,
    MovePlayer,
    Rebirth,
    Replay,
    SeatPlayer,
    SetLevel,
    SetProfile,
    UnseatPlayer,
    parse_command,
)
from controller.link.config import BrokerConfig
from controller.link.errors import (
    CommandRefused,
    LinkError,
    RedactionError,
    SchemaViolation,
    StoreError,
    StoreFull,
    StoreLocked,
)
from controller.link.outbox import Outbox, OutboxRecord
from controller.link.redact import redact_state
from controller.link.stats import LinkStats
from controller.link.topics import TableTopics

__all__ = [
    "AckAlert",
    "BrokerConfig",
    "Command",
    "CommandGuard",
    "CommandHandler",
    "CommandMeta",
    "CommandRefused",
    "CommandResult",
    "EnrolDeck",
    "LinkError",
    "LinkStats",
    "MovePlayer",
    "Outbox",
    "OutboxRecord",
    "Rebirth",
    "RedactionError",
    "Replay",
    "SchemaViolation",
    "SeatPlayer",
    "SetLevel",
    "SetProfile",
    "StoreError",
    "StoreFull",
    "StoreLocked",
    "TableTopics",
    "UnseatPlayer",
    "VenueLink",
    "parse_command",
    "redact_state",
]
