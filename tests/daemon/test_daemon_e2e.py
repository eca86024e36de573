"""The daemon end to end: a private mosquitto, the simulated reader board on a pty, MockFactory
GPIO and the daemon in-process. The board plays a recorded PHH hand; a subscriber checks
the live state (never a hole card), the misdeal alert of an injected error, and the OHH
record whose final stacks match the file's; then a malformed command and a broker restart.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from controller.demo import table as demo_table
from controller.demo.table import BET, BOARD, BURN, HOLE, MUCK, SEATS, card_uid
from controller.demo.table import command_payload as command
from controller.rules.events import (
    CardPlaced,
    ChipsIn,
    ConsoleButton,
    SeatPlayer,
    SetButton,
    Sweep,
    ZoneKind,
)
from controller.rules.events import SetLevel as SetLevelEv
from controller.rules.profile import get_profile
from firmware_bridge.zones import ZoneType
from hwsim.dealer import plan_hand
from hwsim.layout import SIX, ohh_stacks
from hwsim.phh import load_phh
from hwsim.table import SimTable
from tests.brokers import plain_broker
from tests.shared import PHH, need

HAND = PHH / "pluribus" / "83" / "63.phh"
BASE = "railguard/v1/t1"


async def wait_until(cond: Callable[[], bool], timeout: float = 5.0, what: str = "") -> None:
    try:
        await demo_table.wait_until(cond, what or str(cond), timeout)
    except demo_table.DemoFailure as exc:
        raise AssertionError(str(exc)) from None


def strings(obj: Any) -> list[str]:
    if isinstance(obj, dict):
        return [s for k, v in obj.items() for s in [k, *strings(v)]]
    if isinstance(obj, list):
        return [s for v in obj for s in strings(v)]
    return [obj] if isinstance(obj, str) else []


@pytest.mark.timeout(60)
def test_daemon_plays_a_phh_hand(tmp_path: Path) -> None:
    need(HAND)  # fails, never skips, without ../shared
    with plain_broker() as broker:
        asyncio.run(asyncio.wait_for(_scenario(tmp_path, broker), 50))


async def _scenario(tmp_path: Path, broker: Any) -> None:
    hh = load_phh(HAND)
    plan = plan_hand(hh, get_profile("tda-2024"))
    chip_values = [e.amount for e in plan.events if isinstance(e, ChipsIn)]
    chip_uids = [bytes([0xC1, 0, 0, i]) for i in range(len(chip_values))]
    chips = {uid: v for uid, v in zip(chip_uids, chip_values, strict=True) if v}
    # the simulated table: the board on a pty, its own venue logger, deck A enrolled
    sim = await SimTable.open("127.0.0.1", broker.port, profile="tda-2024", workdir=tmp_path,
                              seats=SIX, chips=chips, transport="pty", logger=True)  # fmt: skip
    board, gpio, daemon, venue, logger = sim.board, sim.gpio, sim.daemon, sim.venue, sim.logger
    assert logger is not None
    try:
        assert daemon.reader is not None and daemon.reader.board_info is not None
        assert daemon.reader.board_info.antenna_count == 16

        # table setup through venue commands and the dealer-button puck
        for ev in plan.events:
            if isinstance(ev, SetLevelEv):
                await venue.do(
                    "set_level",
                    level=1,
                    small_blind=ev.small_blind,
                    big_blind=ev.big_blind,
                    ante=ev.ante,
                )
            elif isinstance(ev, SeatPlayer):
                await venue.do(
                    "seat", seat=ev.seat, player_id=f"p{ev.seat}", name=ev.player, stack=ev.stack
                )
            elif isinstance(ev, SetButton):
                gpio.set_puck(ev.seat, True)
                await wait_until(lambda: daemon.core.positions is not None, 3, "button")

        # the hand on the simulated board
        where: dict[bytes, int] = {}
        chips_on: dict[int, list[bytes]] = {}
        next_chip = iter(chip_uids)
        first_card = True
        physical = [e for e in plan.events if isinstance(e, ChipsIn | CardPlaced | Sweep)]
        for i, ev in enumerate(physical):
            if isinstance(ev, ChipsIn):
                uid = next(next_chip)
                board.place(BET[ev.seat], uid)
                chips_on.setdefault(ev.seat, []).append(uid)
                await wait_until(lambda u=uid: u in daemon.tracker.present(), 3, "chip")
            elif isinstance(ev, CardPlaced):
                assert ev.card is not None
                uid = card_uid(ev.card)
                if first_card:  # injected error: the first card to the wrong seat
                    first_card = False
                    wrong = ev.seat % SEATS + 1
                    board.place(HOLE[wrong], uid)
                    await wait_until(
                        lambda: any(
                            a.get("code") == "WRONG_FIRST_SEAT" for a in venue.on("alerts")
                        ),
                        5,
                        "misdeal alert",
                    )
                    board.remove(HOLE[wrong], uid)
                    await wait_until(lambda u=uid: u not in daemon.tracker.present(), 3, "gone")
                    await wait_until(lambda: daemon.core.phase.value == "idle", 3, "re-deal")
                ant = {
                    ZoneKind.HOLE: HOLE.get(ev.seat, 0),
                    ZoneKind.BOARD: BOARD,
                    ZoneKind.BURN: BURN,
                    ZoneKind.MUCK: MUCK,
                }[ev.zone]
                if uid in where:
                    board.remove(where[uid], uid)
                board.place(ant, uid)
                where[uid] = ant
                zone = daemon.cfg.zones.zone_of(ant)
                await wait_until(
                    lambda u=uid, z=zone: daemon.tracker.present().get(u) == z, 3, f"card {ev.card}"
                )
            elif isinstance(ev, Sweep):
                if any(chips_on.values()):
                    for seat, uids in chips_on.items():
                        for u in uids:
                            board.remove(BET[seat], u)
                    chips_on = {}
                    await wait_until(lambda: not any(
                        z.type is ZoneType.BET for z in daemon.tracker.present().values()), 3,
                        "sweep")  # fmt: skip
                elif i == len(physical) - 1:  # a checked-through last round: ACK each check
                    for _ in range(SEATS):
                        if daemon.records:
                            break
                        await gpio.press(ConsoleButton.ACK, 0.06)
                        await asyncio.sleep(0.08)
            await wait_until(daemon.queue.empty, 2, "core")
            await asyncio.sleep(0.02)

        await wait_until(lambda: bool(daemon.records), 5, "hand record")
        await wait_until(lambda: bool(venue.on("hands")), 10, "hand on the broker")
        hands = venue.on("hands")
        stacks = ohh_stacks(hands[0]["ohh"])
        assert hh.finishing_stacks is not None
        assert [stacks[str(s)] for s in plan.seats] == [int(x) for x in hh.finishing_stacks]
        await wait_until(lambda: logger.stats.stored >= 1, 5, "logger stored")

        # live messages never carry a hole card
        holes = {str(c) for i in range(len(plan.seats)) for c in (hh.hole_cards(i) or ()) if c}
        live = venue.on("state") + venue.on("alerts") + venue.on("events")
        assert len(venue.on("state")) > 10
        for msg in live:
            board_cards = set(msg.get("board", []))
            leaked = [s for s in strings(msg) if s in holes and s not in board_cards]
            assert not leaked, msg
        assert any(s["street"] == "flop" for s in venue.on("state"))
        assert max(x["cards_held"] for s in venue.on("state") for x in s["seats"]) == 2
        seating = daemon.store.seating()
        assert [seating[s].stack for s in plan.seats] == [int(x) for x in hh.finishing_stacks]

        # a malformed command: error reply, state unchanged
        before = daemon.core.snapshot()
        resp = await venue.send(b'{"request_id": "bad-1", "command": "seat", "args": ', None)
        assert resp["ok"] is False and "malformed" in resp["reason"]
        rid, payload = command("seat", seat=99, player_id="x", name="x", stack=-5)
        resp = await venue.send(payload, rid)
        assert resp["ok"] is False
        assert daemon.core.snapshot() == before

        # a broker restart: the daemon reconnects and serves commands again
        await venue.stop()
        connects = daemon.link.stats.connects
        broker.stop()
        await asyncio.sleep(0.3)
        broker.start()
        await wait_until(lambda: daemon.link.connected and daemon.link.stats.connects > connects,
                         15, "reconnect")  # fmt: skip
        venue.messages.clear()
        await venue.start()
        await venue.do("set_level", level=2, small_blind=100, big_blind=200, ante=0)
        await wait_until(lambda: bool(venue.on("state")), 5, "retained state after restart")
        assert sim.running
    finally:
        await sim.close()
