"""The venue link: MQTT contract, durable outbox and the table's durable store.

Public API for the daemon: :class:`VenueLink`, :class:`BrokerConfig`, :class:`TableStore`,
:class:`Outbox`, the command dataclasses and :class:`CommandResult`, :func:`redact_state`.
"""

from controller.link.client import CommandHandler, LinkStats, VenueLink
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
from controller.link.store import LevelRecord, SeatRecord, TableStore
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
    "LevelRecord",
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
    "SeatRecord",
    "SetLevel",
    "SetProfile",
    "StoreError",
    "StoreFull",
    "StoreLocked",
    "TableStore",
    "TableTopics",
    "UnseatPlayer",
    "VenueLink",
    "parse_command",
    "redact_state",
]
