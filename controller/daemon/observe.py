"""A read-only look at a running daemon, for the simulator and tests (``Daemon.observe()``).

What a table's own outputs (MQTT state, alerts and hand records; the status LED) do not
say at once: whether the daemon has handled everything it sensed, which tags its reader
currently holds as present, and how many events, alerts and hand records it has dealt
with. Everything is copied into frozen values: changing an :class:`Observation` changes
nothing in the daemon, and nothing outside the daemon writes its state.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Protocol

from controller.rules.engine import TableCore
from controller.rules.hand import Phase
from controller.rules.state import TableState
from firmware_bridge.antennas import SnapshotTracker
from firmware_bridge.decks import DeckRegistry
from firmware_bridge.serial_link import ReaderBoard
from firmware_bridge.zones import Zone


@dataclass(frozen=True, slots=True)
class Observation:
    """The daemon at one moment (see the module docstring)."""

    #: every tag the reader holds as present (debounced): its zone
    tags: Mapping[bytes, Zone]
    #: the input queue is empty: every event sensed so far has been handled
    idle: bool
    #: events handled (accepted or rejected), alerts raised, hand records completed
    events: int
    alerts: int
    records: int
    #: completed hands still waiting for the outbox task
    records_pending: bool
    phase: Phase
    hand_no: int
    #: a hand is open (dealt and not yet complete)
    hand_open: bool
    #: a button position was set and no hand has been played from it yet
    button_set: bool
    #: the seat to act while betting, else 0
    to_act: int
    #: the reader link's status (``online``, ``offline``, ...; ``offline`` before it starts)
    reader: str
    #: a void hand's bets went back: the hand is posted and dealt again (a redeal)
    redeal_pending: bool = False
    #: the ids of the enrolled decks (the deck registry, restored at a restart)
    decks: tuple[str, ...] = ()
    #: with ``state=True``: the core's snapshot and the last state payload published
    snapshot: TableState | None = None
    published_state: Mapping[str, Any] | None = None


class _Counts(Protocol):
    @property
    def events(self) -> int: ...

    @property
    def alerts(self) -> int: ...


class ObserveHost(Protocol):
    """What an observation reads of the daemon (``service.Daemon`` is one); nothing here
    is written."""

    @property
    def core(self) -> TableCore: ...

    @property
    def tracker(self) -> SnapshotTracker: ...

    @property
    def queue(self) -> asyncio.Queue[Any]: ...

    @property
    def hands(self) -> asyncio.Queue[Any]: ...

    @property
    def stats(self) -> _Counts: ...

    @property
    def records(self) -> list[dict[str, Any]]: ...

    @property
    def reader(self) -> ReaderBoard | None: ...

    @property
    def registry(self) -> DeckRegistry: ...

    @property
    def last_state(self) -> dict[str, Any] | None: ...  # the state payload last published


def observe(d: ObserveHost, *, state: bool = False) -> Observation:
    core = d.core
    h = core.hand
    published = None
    if state and d.last_state is not None:
        published = MappingProxyType(copy.deepcopy(d.last_state))
    return Observation(
        tags=MappingProxyType(dict(d.tracker.present())),
        idle=d.queue.empty(),
        events=d.stats.events,
        alerts=d.stats.alerts,
        records=len(d.records),
        records_pending=not d.hands.empty(),
        phase=core.phase,
        hand_no=core.hand_no,
        hand_open=h is not None,
        button_set=core.button_set,
        to_act=h.pointer if h is not None and core.phase is Phase.BETTING else 0,
        reader=d.reader.status.value if d.reader is not None else "offline",
        redeal_pending=core.redeal_pending,
        decks=tuple(sorted(d.registry.decks)),
        snapshot=core.snapshot() if state else None,
        published_state=published,
    )
