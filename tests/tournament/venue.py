"""What the tournament venue tests share (tests/tournament/test_tournament_venue.py,
test_hand_for_hand_venue.py): the event of three three-seat tables, the room (a venue logger
and three simulated tables on a private mosquitto), the tournament service with the floor's
MQTT side (controller.demo.event.Floor, each published message checked against its schema),
the demo's dealer who leaves the seating and the level to the venue, and three-handed hands
(seat 3 on the button)."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiomqtt

from controller.demo.event import Floor
from controller.demo.hands import DemoHand, _demo_hand, phh_text
from controller.demo.table import Table
from controller.link.config import BrokerConfig
from controller.rules.profile import get_profile
from controller.tournament.link import EventLink
from controller.tournament.service import EventService
from controller.tournament.store import Journal
from controller.venuelog import SqliteHandStore, VenueLogger
from hwsim.layout import Layout, wait_until
from hwsim.phh import parse_phh
from hwsim.table import SimTable

PROFILE = "shaved-dog-004"
EVENT = (
    """
[event]
name = "ev1"
venue = "v1"
profile = "shaved-dog-004"
starting_stack = 4500
bonus = 500

[[levels]]
minutes = 30
small_blind = 25
big_blind = 50

[[levels]]
minutes = 30
small_blind = 50
big_blind = 100
"""
    + "".join(f'\n[[tables]]\nid = "t{i}"\nseats = 3\n' for i in (1, 2, 3))
    + "".join(
        f'\n[[entrants]]\nid = "e{i}"\nname = "Entrant {i}"\n'
        f"bonus = {'true' if i % 3 else 'false'}\n"
        for i in range(1, 10)
    )
)


def three_handed(label: str, stacks: list[int], actions: list[str]) -> DemoHand:
    """A hand of seats 1-3 at 25/50 (seat 3 on the button), planned for a six-seat table."""
    text = phh_text(stacks, actions, ["A", "B", "C"], (25, 50))
    return _demo_hand(label, parse_phh(text, label), get_profile(PROFILE), 6)


class Dealer(Table):
    """The demo's dealer, who leaves the seating and the level to the venue (the event)."""

    async def _table_setup(self, hand: Any) -> None:
        self.gpio.set_puck(3, True)
        self.button = 3
        await wait_until(lambda: self.daemon.observe().button_set, "the button puck")


def state(sim: SimTable) -> dict[str, Any]:
    """The live state the table publishes."""
    return dict(sim.observe(state=True).published_state or {})


def seats(sim: SimTable) -> dict[int, tuple[str, int]]:
    """seat -> (player, stack) of the table's seated players."""
    return {s["seat"]: (s["player_id"], s["stack"]) for s in state(sim).get("seats", [])
            if s.get("player_id")}  # fmt: skip


async def open_table(tmp: Path, port: int, table: str, chips: dict[bytes, int]) -> SimTable:
    """``table`` of the room (its state in ``tmp``/``table``: opened again, it restores)."""
    return await SimTable.open("127.0.0.1", port, profile=PROFILE, workdir=tmp / table,
                               table_id=table, seats=Layout(6), chips=chips, transport="pty",
                               enrol=False)  # fmt: skip


@contextlib.asynccontextmanager
async def venue(
    tmp: Path, port: int, chips: dict[bytes, int]
) -> AsyncIterator[dict[str, SimTable]]:
    """The venue logger (``tmp``/venue.db) and the tables t1-t3 (``chips``: their tags)."""
    broker = BrokerConfig(host="127.0.0.1", port=port, tls=False, allow_plaintext=True)
    logger = VenueLogger(
        broker, SqliteHandStore(tmp / "venue.db"), instance="main", group="venuelog"
    )
    logger.start()
    tables: dict[str, SimTable] = {}
    try:
        await wait_until(lambda: logger.stats.connects > 0, "the venue logger")
        for t in ("t1", "t2", "t3"):
            tables[t] = await open_table(tmp, port, t, chips)
        yield tables
    finally:
        for table in tables.values():
            await table.close()
        with contextlib.suppress(Exception):
            await logger.stop()
        logger.store.close()


@dataclass
class Desk:
    """The event's service (journal ``tmp``/ev1.db), its link, and the floor's side."""

    service: EventService
    link: EventLink
    floor: Floor


@contextlib.asynccontextmanager
async def desk(tmp: Path, port: int, seed: int) -> AsyncIterator[Desk]:
    """The tournament service of :data:`EVENT` (its draw seeded with ``seed``) on the broker,
    and the floor's client, connected; the journal closed after."""
    broker = BrokerConfig(host="127.0.0.1", port=port, tls=False, allow_plaintext=True)
    journal = Journal(tmp / "ev1.db")
    link = EventLink(broker)
    service = EventService(journal.open_event(EVENT, "ev1.toml"), journal,
                           random.Random(seed), time.time, link.send, link.publish)  # fmt: skip
    running = asyncio.create_task(link.run(service))
    try:
        async with aiomqtt.Client("127.0.0.1", port, identifier="floor") as c:
            await c.subscribe("railguard/_event/ev1/#", qos=1)
            floor = Floor(c, "ev1", check=True)
            reading = asyncio.create_task(floor.read())
            try:
                await asyncio.wait_for(link.connected.wait(), 10)
                yield Desk(service, link, floor)
            finally:
                reading.cancel()
                with contextlib.suppress(BaseException):
                    await reading
    finally:
        running.cancel()
        with contextlib.suppress(BaseException):
            await running
        journal.close()
