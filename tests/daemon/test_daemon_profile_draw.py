"""Venue commands through the daemon over a real mosquitto and the pty reader board:
``set_profile`` at runtime (between hands, during a hand, across a restart, refused),
the button draw (``button_draw`` and a long press of the console ACK button; high card
and first ace) dealt on the hole antennas, and decks enrolled with jokers."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from controller.demo.table import HOLE, card_uid
from controller.rules.cards import JOKER, STANDARD_DECK, Card
from controller.rules.events import ConsoleButton
from firmware_bridge.decks import parse_tag
from tests.brokers import plain_broker
from tests.daemon.daemon_rig import running, wait_for

pytestmark = pytest.mark.timeout(60)


def _run(tmp: Path, scenario: Callable[[Path, int], Awaitable[None]]) -> None:
    with plain_broker() as broker:
        asyncio.run(asyncio.wait_for(scenario(tmp, broker.port), 50))


# ---------------------------------------------------------------- set_profile


def test_set_profile_at_runtime(tmp_path: Path) -> None:
    _run(tmp_path, _set_profile)


async def _set_profile(tmp: Path, port: int) -> None:
    storage = tmp / "state"
    async with running(tmp, port, storage=storage) as rig:
        d = rig.daemon
        await rig.setup()
        assert rig.state()["profile"] == "tda-2024"

        # unknown: refused with a reason, nothing changed
        before = (d.core.profile, d.store.get("runtime_profile"), len(rig.venue.on("state")))
        reason = await rig.refused("set_profile", profile="no-such-house")
        assert "no-such-house" in reason and "tda-2024" in reason
        await asyncio.sleep(0.2)
        assert (d.core.profile, d.store.get("runtime_profile"),
                len(rig.venue.on("state"))) == before  # fmt: skip
        assert not rig.events("profile_changed")

        # between hands: at once
        resp = await rig.venue.do("set_profile", profile="club-003")
        assert resp["data"] == {"profile": "club-003", "applies": "now"}
        assert d.core.profile.name == "club-003"
        await wait_for(lambda: rig.state()["profile"] == "club-003", "the state's profile")
        await wait_for(lambda: rig.events("profile_changed"), "profile_changed")
        ev = rig.events("profile_changed")[-1]["data"]
        assert ev == {"profile": "club-003", "previous": "tda-2024", "from_hand": 1}

        # during a hand: from the next one
        await rig.to_first_action()
        resp = await rig.venue.do("set_profile", profile="a2c-000")
        assert resp["data"] == {"profile": "a2c-000", "applies": "next hand"}
        assert d.core.profile.name == "club-003" and rig.state()["profile"] == "club-003"
        assert len(rig.events("profile_changed")) == 1
        await rig.fold(1)
        await rig.fold(2)  # seat 3 wins the blinds: the hand is over
        await wait_for(lambda: rig.events("hand_completed"), "the end of the hand")
        await wait_for(lambda: len(rig.events("profile_changed")) == 2, "the change")
        ev = rig.events("profile_changed")[-1]["data"]
        assert ev == {"profile": "a2c-000", "previous": "club-003", "from_hand": 2}
        assert d.core.profile.name == "a2c-000"
        await wait_for(lambda: rig.state()["profile"] == "a2c-000", "the state's profile")
        await rig.clear()

    # persisted: a restart keeps the runtime profile
    async with running(tmp, port, storage=storage) as rig:
        assert rig.daemon.core.profile.name == "a2c-000"
        await wait_for(lambda: rig.venue.on("state") and rig.state()["profile"] == "a2c-000",
                       "the stored profile in the state")  # fmt: skip


# ---------------------------------------------------------------- button draw


def test_button_draw_command_high_card(tmp_path: Path) -> None:
    _run(tmp_path, _draw_high_card)


async def _draw_high_card(tmp: Path, port: int) -> None:
    async with running(tmp, port) as rig:
        await rig.setup(seats=(1, 3, 5), button=None)
        assert rig.state()["button"] is None
        resp = await rig.venue.do("button_draw")
        assert resp["data"] == {"draw_rule": "high-card"}
        assert rig.daemon.core.phase.value == "draw"
        # two kings: hearts beat diamonds (suit order spades, hearts, diamonds, clubs)
        for seat, card in ((1, "9s"), (3, "Kd"), (5, "Kh")):
            await rig.deal(seat, card)
        await wait_for(lambda: rig.state()["button"] == 5, "the button on seat 5")
        texts = [e["data"]["text"] for e in rig.events("instruction")]
        assert any(t.startswith("Button to seat 5") for t in texts), texts
        await rig.clear()
        assert rig.daemon.core.phase.value == "idle" and rig.daemon.core.button_set
        # a draw is refused while a hand runs, with the core's reason
        await rig.to_first_action((1, 3, 5))
        reason = await rig.refused("button_draw")
        assert "not accepted" in reason


def test_long_ack_press_starts_a_first_ace_draw(tmp_path: Path) -> None:
    _run(tmp_path, _draw_first_ace)


async def _draw_first_ace(tmp: Path, port: int) -> None:
    async with running(tmp, port, profile="club-003") as rig:
        d = rig.daemon
        await rig.setup(button=None)
        await rig.gpio.long_press(ConsoleButton.ACK)
        await wait_for(lambda: d.core.phase.value == "draw", "the draw")
        # the first ace wins at once, even before every seat has a card (G7)
        await rig.deal(1, "Kc")
        await rig.deal(2, "7d")
        assert rig.state()["button"] is None
        await rig.deal(3, "Ad")
        await wait_for(lambda: rig.state()["button"] == 3, "the button on seat 3")
        await rig.clear()
        assert d.core.phase.value == "idle"
        # during a hand a long ACK is an ACK, not a draw
        await rig.to_first_action((1, 2, 3))
        await rig.gpio.long_press(ConsoleButton.ACK)
        await rig.settled()
        assert d.core.phase.value == "betting"


# ---------------------------------------------------------------- jokers


def test_enrol_deck_with_jokers(tmp_path: Path) -> None:
    _run(tmp_path, _jokers)


async def _jokers(tmp: Path, port: int) -> None:
    storage = tmp / "state"
    cards = {str(c): card_uid(c).hex().upper() for c in STANDARD_DECK}
    jokers = ["C0A0FF01", "C0A0FF02"]
    async with running(tmp, port, storage=storage) as rig:
        d = rig.daemon
        reason = await rig.refused("enrol_deck", deck_id="A", cards=cards,
                                jokers=[cards["As"]])  # fmt: skip
        assert "also a card" in reason
        reason = await rig.refused("enrol_deck", deck_id="A", cards=cards, jokers=["xyz"])
        assert "jokers" in reason
        assert d.registry.lookup(card_uid(Card.parse("As"))) is None
        resp = await rig.venue.do("enrol_deck", deck_id="A", cards=cards, jokers=jokers)
        assert resp["data"] == {"deck_id": "A", "cards": 52, "jokers": 2}
        assert d.registry.lookup(parse_tag(jokers[1])) == ("A", JOKER)
        assert d.store.deck_jokers("A") == jokers and len(d.store.deck("A")) == 52
        # the daemon recognises a joker on the table: dealt in a button draw
        await rig.setup(button=None, deck=False)
        await rig.venue.do("button_draw")
        await rig.place(HOLE[2], parse_tag(jokers[0]))
        await wait_for(lambda: rig.alerts("JOKER"), "the joker alert")
        assert rig.alerts("JOKER")[0]["seat"] == 2
    async with running(tmp, port, storage=storage) as rig:  # stored: known after a restart
        assert rig.daemon.registry.lookup(parse_tag(jokers[0])) == ("A", JOKER)
        assert rig.daemon.registry.lookup(card_uid(Card.parse("2c"))) == ("A", Card.parse("2c"))
