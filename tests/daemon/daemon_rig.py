"""A small simulated table for the daemon tests: :class:`hwsim.table.SimTable` of six seats
on a private mosquitto (the caller's), the reader board on a pty, MockFactory GPIO, the
daemon in-process and a venue subscriber; helpers to set the table up and deal a
three-handed hand to the first action.

Seats 1-3 (stacks 10 000), level 50/100, the button puck at seat 1: seat 2 posts the small
blind, seat 3 the big blind, seat 1 acts first after the deal.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.demo import table as demo_table
from controller.demo.table import BET, HOLE, MUCK, card_uid, command_payload
from controller.rules.cards import STANDARD_DECK, Card
from firmware_bridge.pcsc import BadgeFactory
from hwsim.layout import SIX, config_mapping
from hwsim.table import OnSimTable, SimTable

if TYPE_CHECKING:
    from controller.daemon.service import Daemon

BASE = "railguard/v1/t1"
PROFILES = Path(__file__).resolve().parents[2] / "controller" / "rules" / "profiles"
DENOMS = (1000, 500, 100, 25, 5, 1)
#: 30 chip tags of each denomination
CHIPS = {bytes([0xC2, j, 0, k]): d for j, d in enumerate(DENOMS) for k in range(30)}
STACK = 10_000


def mapping(port: str, mqtt_port: int, storage: Path, profile: str = "tda-2024",
            **sections: dict[str, Any]) -> dict[str, Any]:  # fmt: skip
    """The daemon's config as a parsed TOML document (the simulated table's,
    :func:`hwsim.layout.config_mapping`, with this rig's chips); ``sections`` are merged in."""
    return config_mapping(port, "127.0.0.1", mqtt_port, "t1", profile, storage, CHIPS,
                          sections=sections)  # fmt: skip


def profile_copy(tmp: Path, name: str, base: str = "tda-2024", **values: Any) -> str:
    """A venue profile file: a packaged profile with ``values`` changed; returns its path."""
    lines = (PROFILES / f"{base}.toml").read_text().splitlines()
    out = []
    for raw in lines:
        key = raw.split("=", 1)[0].strip()
        line = f'name = "{name}"' if key == "name" else raw
        if key in values:
            continue
        out.append(line)
        if line.strip() == "[profile]":
            out += [f"{k} = {v!r}" if not isinstance(v, str) else f'{k} = "{v}"'
                    for k, v in values.items()]  # fmt: skip
    path = tmp / f"{name}.toml"
    path.write_text("\n".join(out) + "\n")
    return str(path)


async def wait_for(cond: Callable[[], Any], what: str, timeout: float = 5.0) -> None:
    try:
        await demo_table.wait_until(lambda: bool(cond()), what, timeout)
    except demo_table.DemoFailure as exc:
        raise AssertionError(str(exc)) from None


@dataclass
class Rig(OnSimTable):
    sim: SimTable
    pool: dict[bytes, int] = field(default_factory=lambda: dict(CHIPS))

    def events(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.venue.on("events") if e["kind"] == kind]

    def alerts(self, code: str) -> list[dict[str, Any]]:
        return [a for a in self.venue.on("alerts") if a["code"] == code]

    def state(self) -> dict[str, Any]:
        got = self.venue.on("state")
        assert got, "no state published"
        return dict(got[-1])

    async def settled(self) -> None:
        await wait_for(self.daemon.queue.empty, "the rules core")
        await asyncio.sleep(0.03)

    async def setup(self, seats: tuple[int, ...] = (1, 2, 3), button: int | None = 1,
                    deck: bool = True) -> None:  # fmt: skip
        if deck:
            await self.venue.do(
                "enrol_deck",
                deck_id="A",
                cards={str(c): card_uid(c).hex().upper() for c in STANDARD_DECK},
            )
        await self.venue.do("set_level", level=1, small_blind=50, big_blind=100, ante=0)
        for s in seats:
            await self.venue.do("seat", seat=s, player_id=f"p{s}", name=f"Player {s}",
                                stack=STACK)  # fmt: skip
        if button is not None:
            self.gpio.set_puck(button, True)
            await wait_for(lambda: self.daemon.core.button_set, "the button puck")
        await self.settled()

    async def place(self, ant: int, uid: bytes) -> None:
        if uid in self.where:
            self.board.remove(self.where[uid], uid)
        self.board.place(ant, uid)
        self.where[uid] = ant
        zone = self.daemon.cfg.zones.zone_of(ant)
        await wait_for(lambda: self.daemon.tracker.present().get(uid) == zone, "a tag read")
        await self.settled()

    async def clear(self) -> None:
        for uid, ant in self.where.items():
            self.board.remove(ant, uid)
            if uid in CHIPS:
                self.pool[uid] = CHIPS[uid]  # back in the rack
        self.where.clear()
        await wait_for(lambda: not self.daemon.tracker.present(), "a clear table")
        await self.settled()

    async def fold(self, seat: int) -> None:
        """Seat ``seat``'s cards onto the muck."""
        for uid, ant in list(self.where.items()):
            if ant == HOLE[seat]:
                await self.place(MUCK, uid)

    async def refused(self, cmd: str, **args: Any) -> str:
        """A venue command the daemon refuses: its reason."""
        rid, payload = command_payload(cmd, **args)
        resp = await self.venue.send(payload, rid)
        assert resp["ok"] is False, resp
        return str(resp["reason"])

    async def chips(self, seat: int, amount: int) -> None:
        uids = []
        for value in demo_table.split_chips(amount, DENOMS):
            uid = next(u for u, v in self.pool.items() if v == value)
            del self.pool[uid]
            uids.append(uid)
            self.board.place(BET[seat], uid)
            self.where[uid] = BET[seat]
        await wait_for(lambda: all(u in self.daemon.tracker.present() for u in uids), "chips")
        await self.settled()

    async def deal(self, seat: int, card: str) -> None:
        await self.place(HOLE[seat], card_uid(Card.parse(card)))

    async def to_first_action(
        self, seats: tuple[int, int, int] = (2, 3, 1), cards: str = "2c 7d 9h Ks 3c 8d"
    ) -> None:
        """Blinds (``seats``: small blind, big blind, button), two cards each from the small
        blind: the button is to act (three-handed)."""
        await self.chips(seats[0], 50)
        await self.chips(seats[1], 100)
        for seat, card in zip(seats * 2, cards.split(), strict=True):
            await self.deal(seat, card)
        await wait_for(lambda: self.state()["to_act"] == seats[2], "the button to act")


@contextlib.asynccontextmanager
async def running(tmp: Path, mqtt_port: int, *, profile: str = "tda-2024",
                  storage: Path | None = None, badge_factory: BadgeFactory | None = None,
                  **sections: dict[str, Any],
                  ) -> AsyncIterator[Rig]:  # fmt: skip
    """The simulated table (:class:`hwsim.table.SimTable`: six seats, the board on a pty),
    running; everything stopped on exit."""
    sim = await SimTable.open("127.0.0.1", mqtt_port, profile=profile, workdir=tmp, seats=SIX,
                              chips=CHIPS, transport="pty", storage=storage,
                              settings=sections, badge_factory=badge_factory,
                              enrol=False)  # fmt: skip
    try:
        await asyncio.sleep(0.3)  # the board's first report after a start
        yield Rig(sim)
        assert sim.running, "the daemon stopped"
    finally:
        await sim.close()


def close_daemon(d: Daemon) -> None:
    """Close what an in-process :class:`Daemon` built and never started opened: its
    writers' threads, its SQLite stores, the link's outbox and the hand slot."""
    for w in (d.table_writer, d.outbox_writer):
        w.close()
    for db in (d.store, d.writer_store, d.writer_outbox, d.link.outbox):
        db.close()
    d.hand_slot.close()
