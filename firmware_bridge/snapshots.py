"""What the reader board reports each scan cycle, decoded: the shared type between the
wire protocol (firmware_bridge.protocol) and the antenna-to-zone logic (firmware_bridge.antennas).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TagRead:
    uid: bytes  # the tag's UID as read (4, 7 or 10 bytes for ISO 14443A; 8 for ISO 15693)
    rssi: int | None = None  # signal strength where the board reports it (higher is stronger)


@dataclass(frozen=True, slots=True)
class AntennaSnapshot:
    """Every tag one antenna saw in one scan cycle.

    ``t`` is the host's monotonic time when the frame was received; ``cycle`` the board's
    scan-cycle counter. ``collision`` is the board saying it saw more tags than it could read.
    """

    t: float
    antenna: int
    cycle: int
    tags: tuple[TagRead, ...]
    collision: bool = False
