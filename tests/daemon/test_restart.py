"""kill -9 mid-hand: ``railguard run --config`` as a real subprocess (the simulated table,
:class:`hwsim.table.SimTable`, with ``process=True``: the reader board on a pty in this
process, a private mosquitto). The table is set up once with an in-process daemon (deck,
level, seats, the button puck), stopped cleanly; the subprocess must then know the button
without a puck. A hand is dealt to the first action, the daemon is killed with SIGKILL and
started again on the same storage: the table, the HAND_INTERRUPTED alert and the profile's
outcome (misdeal or resume) are checked through MQTT, then the hand goes on (re-deal or the
next action)."""

from __future__ import annotations

import asyncio
import random
import signal
from pathlib import Path
from typing import Any

import pytest

from controller.demo import table as demo_table
from controller.demo.hands import generated_hands
from controller.demo.table import BET as BET_ANT
from controller.demo.table import HOLE, MUCK, Venue, card_uid, chip_uid
from controller.rules.events import CardPlaced, ChipsIn, SeatPlayer, SetButton, SetLevel, ZoneKind
from controller.rules.profile import get_profile
from hwsim.board import SimBoard
from hwsim.layout import SIX
from hwsim.table import SimTable
from tests.brokers import plain_broker

PROFILES = Path(__file__).resolve().parents[2] / "controller" / "rules" / "profiles"
# chips for the action after the restart: 20 tags of each denomination
EXTRA = {chip_uid(1, j * 20 + k): d for j, d in enumerate(demo_table.DENOMINATIONS)
         for k in range(20)}  # fmt: skip


async def open_table(tmp: Path, mqtt_port: int, profile: str, chips: dict[bytes, int],
                     *, process: bool, enrol: bool = False) -> SimTable:  # fmt: skip
    """The six-seat simulated table on ``tmp`` (its state in ``tmp``/state), the board on a
    pty; the daemon in-process, or (``process``) ``railguard run --config`` as a child."""
    return await SimTable.open("127.0.0.1", mqtt_port, profile=profile, workdir=tmp,
                               seats=SIX, chips=chips, transport="pty", process=process,
                               enrol=enrol)  # fmt: skip


async def wait_for(cond: Any, what: str, timeout: float = 10.0) -> None:
    try:
        await demo_table.wait_until(cond, what, timeout)
    except demo_table.DemoFailure as exc:
        raise AssertionError(str(exc)) from None


def since_birth(venue: Venue, suffix: str) -> list[Any]:
    """The messages on ``suffix`` since the daemon's last "online" (not the retained ones
    of a daemon before it)."""
    status, births = f"{venue.base}/status", []
    for i, (topic, body) in enumerate(venue.messages):
        if topic == status and isinstance(body, dict) and body.get("status") == "online":
            births.append(i)
    start = births[-1] if births else len(venue.messages)
    return [b for t, b in venue.messages[start:] if t == f"{venue.base}/{suffix}"]


def last(venue: Venue, suffix: str) -> dict[str, Any]:
    got = venue.on(suffix)
    assert got, f"nothing on {suffix}"
    return dict(got[-1])


@pytest.mark.timeout(90)
@pytest.mark.parametrize("policy", ["misdeal", "resume"])
def test_kill9_mid_hand(tmp_path: Path, policy: str) -> None:
    with plain_broker() as broker:
        asyncio.run(asyncio.wait_for(_scenario(tmp_path, broker.port, policy), 80))


async def _scenario(tmp: Path, mqtt_port: int, policy: str) -> None:
    text = (PROFILES / "tda-2024.toml").read_text()
    text = text.replace('interrupted_hand = "misdeal"', f'interrupted_hand = "{policy}"')
    assert f'interrupted_hand = "{policy}"' in text
    profile_path = tmp / "house.toml"
    profile_path.write_text(text)
    prof = get_profile(str(profile_path))
    hand = generated_hands(random.Random(7), 1, prof, players=4)[0]
    chips = {**demo_table.chip_table([hand]), **EXTRA}
    button = await _setup(tmp, mqtt_port, str(profile_path), chips, hand)

    # the subprocess knows the table, and the button without any puck
    table = await open_table(tmp, mqtt_port, str(profile_path), chips, process=True)
    board, venue = table.board, table.venue
    try:
        await wait_for(lambda: since_birth(venue, "state")
                       and since_birth(venue, "state")[-1]["button"] == button,
                       "the restored button in the state")  # fmt: skip
        state = since_birth(venue, "state")[-1]
        assert sorted(s["seat"] for s in state["seats"]) == sorted(hand.plan.seats)
        assert state["level"]["big_blind"] > 0 and state["hand_no"] is None
        # the players' names and the level number, the core's, restored with the seating
        names = {e.seat: e.player[:64] for e in hand.plan.events if isinstance(e, SeatPlayer)}
        assert {s["seat"]: s["name"] for s in state["seats"]} == names
        assert state["level"]["level"] == 1

        await asyncio.sleep(0.5)  # the board's first report after a start
        # deal to the first voluntary action
        where = await _deal_to_first_action(board, hand, venue)
        await wait_for(lambda: any(e["kind"] == "action" and not e["data"]["kind"]
                                   .startswith("post") for e in venue.on("events")),
                       "the first action event")  # fmt: skip
        await asyncio.sleep(0.3)
        before = last(venue, "state")
        assert before["hand_no"] == 1 and before["to_act"] is not None

        assert await table.kill_daemon() == -signal.SIGKILL
        await wait_for(lambda: last(venue, "status")["status"] == "offline", "the will")
        venue.messages.clear()
        await table.start_daemon()
        await wait_for(lambda: any(a["code"] == "HAND_INTERRUPTED" for a in venue.on("alerts")),
                       "the HAND_INTERRUPTED alert", 20)  # fmt: skip
        alert = next(a for a in venue.on("alerts") if a["code"] == "HAND_INTERRUPTED")
        assert alert["hand_no"] == 1 and alert["severity"] == "critical"
        assert policy in alert["remedy"] or (policy == "resume" and "plays on" in alert["remedy"])
        await wait_for(lambda: any(e["kind"] == "hand_interrupted" for e in venue.on("events")),
                       "the hand_interrupted event")  # fmt: skip
        ev = next(e for e in venue.on("events") if e["kind"] == "hand_interrupted")
        assert ev["data"]["outcome"] == policy
        await asyncio.sleep(0.5)  # the reconciliation window: re-read tags are dropped
        after = last(venue, "state")
        assert after["hand_no"] == 1 and after["button"] == button
        assert {s["seat"]: s["name"] for s in after["seats"]} == names  # the hand log's too
        assert not [a for a in venue.on("alerts") if a["code"] == "REJECTED"]
        if policy == "resume":
            for k in ("street", "pot", "to_act", "board"):
                assert after[k] == before[k], k
            assert [(s["seat"], s["stack"], s["bet"], s["cards_held"]) for s in after["seats"]] == [
                (s["seat"], s["stack"], s["bet"], s["cards_held"]) for s in before["seats"]
            ]
            await _next_action(board, hand, after["to_act"], venue)
        else:
            assert after["street"] == "idle" and after["to_act"] is None
            starting = dict(zip(hand.plan.seats, hand.plan.starting, strict=True))
            # bets returned, the blinds stay posted (G1)
            assert sum(s["stack"] for s in after["seats"]) + after["pot"] == sum(starting.values())
            assert after["pot"] == after["level"]["small_blind"] + after["level"]["big_blind"]
            assert after["pot"] < before["pot"]
            for uid, ant in where.items():  # the dealer gathers the cards
                board.remove(ant, uid)
            first = next(e for e in hand.plan.events if isinstance(e, CardPlaced))
            assert first.card is not None
            await asyncio.sleep(0.4)
            board.place(HOLE[first.seat], card_uid(first.card))
            await wait_for(lambda: any(e["kind"] == "hand_started" for e in venue.on("events")),
                           "the re-deal")  # fmt: skip
            started = next(e for e in venue.on("events") if e["kind"] == "hand_started")
            assert started["hand_no"] == 1 and started["data"]["deal_no"] == 2
    finally:
        await table.close()


async def _setup(tmp: Path, mqtt_port: int, profile: str, chips: dict[bytes, int],
                 hand: Any) -> int:  # fmt: skip
    """Deck, level, seats and the button puck, on the table with its daemon in-process;
    stopped cleanly. Returns the button's seat."""
    table = await open_table(tmp, mqtt_port, profile, chips, process=False, enrol=True)
    daemon, venue, button = table.daemon, table.venue, 0
    try:
        for ev in hand.plan.events:
            if isinstance(ev, SetLevel):
                await venue.do("set_level", level=1, small_blind=ev.small_blind,
                               big_blind=ev.big_blind, ante=ev.ante)  # fmt: skip
            elif isinstance(ev, SeatPlayer):
                await venue.do("seat", seat=ev.seat, player_id=f"p{ev.seat}", name=ev.player,
                               stack=ev.stack)  # fmt: skip
            elif isinstance(ev, SetButton):
                button = ev.seat
                table.set_puck(ev.seat, True)
                await wait_for(lambda: daemon.core.button_set, "the button puck")
        assert daemon.store.get("positions")["button"] == button
    finally:
        await table.close()
    return button


async def _deal_to_first_action(board: SimBoard, hand: Any, venue: Venue) -> dict[bytes, int]:
    """Blinds, hole cards, then the first chips after the deal; returns tag -> antenna."""
    where: dict[bytes, int] = {}
    chip_i = 0
    dealt = 0
    for ev in hand.plan.events:
        if isinstance(ev, CardPlaced) and ev.zone is not ZoneKind.HOLE:
            assert ev.card is not None and ev.zone is ZoneKind.MUCK  # a fold
            uid = card_uid(ev.card)
            board.remove(where[uid], uid)
            board.place(MUCK, uid)
            where[uid] = MUCK
            await asyncio.sleep(0.25)
            return where
        if isinstance(ev, CardPlaced):
            assert ev.card is not None
            uid = card_uid(ev.card)
            board.place(HOLE[ev.seat], uid)
            where[uid] = HOLE[ev.seat]
            dealt += 1
            await wait_for(lambda n=dealt: sum(s["cards_held"] for s in
                                               last(venue, "state")["seats"]) == n,
                           f"hole card {dealt}")  # fmt: skip
        elif isinstance(ev, ChipsIn):
            for value in demo_table.split_chips(ev.amount or 0):
                uid = chip_uid(0, chip_i)
                chip_i += 1
                assert chips_value(uid, hand) == value
                board.place(BET_ANT[ev.seat], uid)
            await asyncio.sleep(0.25)
            if dealt:  # the first voluntary action after the deal
                return where
    raise AssertionError("the hand has no action after the deal")


def chips_value(uid: bytes, hand: Any) -> int:
    return demo_table.chip_table([hand])[uid]


async def _next_action(board: SimBoard, hand: Any, seat: int, venue: Venue) -> None:
    """The resumed hand plays on: the seat to act calls (chips from a fresh tag range)."""
    n = len([e for e in venue.on("events") if e["kind"] == "action"])
    state = last(venue, "state")
    owe = max(s["bet"] for s in state["seats"]) - next(
        s["bet"] for s in state["seats"] if s["seat"] == seat
    )
    chips = demo_table.split_chips(owe) if owe else []
    if not chips:
        pytest.skip("the next action is a check (no chips to place)")
    pool = dict(EXTRA)
    for value in chips:
        uid = next(u for u, v in pool.items() if v == value)
        del pool[uid]
        board.place(BET_ANT[seat], uid)
    await wait_for(lambda: len([e for e in venue.on("events") if e["kind"] == "action"]) > n,
                   "an action after the restart")  # fmt: skip
    got = [e for e in venue.on("events") if e["kind"] == "action"][-1]
    assert got["data"]["seat"] == seat and got["hand_no"] == 1
