"""The venue link's counters (``VenueLink.stats``), shared by the link and its hand-record
sender (controller/link/records.py), below both."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class LinkStats:
    """Counters for diagnostics and tests."""

    connects: int = 0
    connect_failures: int = 0
    events_dropped: int = 0
    records_sent: int = 0
    records_acked: int = 0
    commands_ok: int = 0
    commands_refused: int = 0
    last_error: str = ""
    acks: list[str] = field(default_factory=list)
