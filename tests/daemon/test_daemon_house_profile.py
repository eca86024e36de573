"""``set_profile`` with a house profile's document, through the daemon over a real mosquitto
and the pty reader board: refused with the error naming what is wrong (and nothing changed),
too large, applied at once between hands (its rules in force: a first-ace button draw), from
the next hand when a hand runs, kept across a restart; and how a restarted table finds a
profile by its name among the stored documents."""

from __future__ import annotations

import asyncio
import dataclasses
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from controller.daemon.house_profiles import resolve, stored_documents
from controller.daemon.table_store import TableStore
from controller.rules.profile import builtin_profile
from controller.rules.profile_document import house_profile
from tests.brokers import plain_broker
from tests.daemon.daemon_rig import running, wait_for

pytestmark = pytest.mark.timeout(90)


def _doc(base: str, name: str, *changes: tuple[str, str]) -> str:
    """A packaged profile's file, renamed and changed: a venue's own house profile."""
    text = (resources.files("controller.rules") / "profiles" / f"{base}.toml").read_text()
    text = text.replace(f'name = "{base}"', f'name = "{name}"', 1)
    for old, new in changes:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


FIRST_ACE = _doc("tda-2024", "house-first-ace", ('"high-card"', '"first-ace"'))
SECOND = _doc("shaved-dog-004", "house-two")
RULEBOOK = 'rulebook = "TDA 2024"\n'  # line 5 of tda-2024.toml


def test_house_profile_document(tmp_path: Path) -> None:
    with plain_broker() as broker:
        asyncio.run(asyncio.wait_for(_house(tmp_path, broker.port), 80))


async def _house(tmp: Path, port: int) -> None:
    storage = tmp / "state"
    async with running(tmp, port, storage=storage) as rig:
        d = rig.daemon
        await rig.setup(button=None)
        await wait_for(lambda: rig.state()["profile"] == "tda-2024", "the state")

        def unchanged() -> tuple[Any, ...]:
            return (d.core.profile, d.core.pending_profile, d.store.get("runtime_profile"),
                    stored_documents(d.store), len(rig.venue.on("state")))  # fmt: skip

        before = unchanged()
        bad = [
            ((FIRST_ACE.replace('"first-ace"', '"first-spade"'),),
             "house profile: key 'draw_rule': 'first-spade' is not one of 'high-card',"),
            ((FIRST_ACE.replace(RULEBOOK, RULEBOOK + "max_seats = ten\n"),),
             "house profile: not valid TOML: Invalid value (at line 6, column 13)"),
            ((FIRST_ACE + "house_edge = 3\n",), "house profile: unknown key 'house_edge'"),
            ((_doc("club-003", "tda-2024"),),
             "house profile: key 'name': 'tda-2024' is a packaged profile's name"),
            ((FIRST_ACE.replace(RULEBOOK, RULEBOOK + "max_seats = 2\n"),),
             "house profile 'house-first-ace' has 2 seats; seats [3] are occupied"),
            # larger than the limit: in characters (the schema), in bytes (UTF-8)
            ((FIRST_ACE + "#" * 8192,), "invalid: command: args/document: '# Poker TDA rules"),
            ((FIRST_ACE + "#" + "€" * 2000,), "bytes; a profile document is at most 8192 bytes"),
        ]  # fmt: skip
        for (doc,), reason in bad:
            got = await rig.refused("set_profile", document=doc)
            assert reason in got, (reason, got)
        assert (await rig.refused("set_profile", document=FIRST_ACE + "#" * 8192)).endswith(
            "is too long"
        )
        await asyncio.sleep(0.2)
        assert unchanged() == before
        assert not rig.events("profile_changed")

        # between hands: at once, and its rules are the table's (a first-ace draw, not tda's
        # high card: seat 3's ace wins before seat 5 has a card)
        resp = await rig.venue.do("set_profile", document=FIRST_ACE)
        assert resp["data"] == {"profile": "house-first-ace", "applies": "now",
                                "title": "Poker TDA 2024"}  # fmt: skip
        assert d.core.profile == house_profile(FIRST_ACE)
        assert d.core.profile == dataclasses.replace(
            builtin_profile("tda-2024"), name="house-first-ace", draw_rule=d.core.profile.draw_rule
        ) and d.core.profile.draw_rule.value == "first-ace"  # fmt: skip
        await wait_for(lambda: rig.state()["profile"] == "house-first-ace", "the state's profile")
        await wait_for(lambda: rig.events("profile_changed"), "profile_changed")
        assert rig.events("profile_changed")[-1]["data"] == {
            "profile": "house-first-ace", "previous": "tda-2024", "from_hand": 1}  # fmt: skip
        assert (await rig.venue.do("button_draw"))["data"] == {"draw_rule": "first-ace"}
        await rig.deal(1, "Kc")
        await rig.deal(2, "As")
        await wait_for(lambda: rig.state()["button"] == 2, "the button on the first ace")
        await rig.clear()

        # during a hand: from the next one
        await rig.to_first_action((3, 1, 2))
        resp = await rig.venue.do("set_profile", document=SECOND)
        assert resp["data"]["applies"] == "next hand"
        assert d.core.profile.name == "house-first-ace" == rig.state()["profile"]
        await rig.fold(2)
        await rig.fold(3)  # seat 1 wins the blinds: the hand is over
        await wait_for(lambda: len(rig.events("profile_changed")) == 2, "the change")
        assert rig.events("profile_changed")[-1]["data"] == {
            "profile": "house-two", "previous": "house-first-ace", "from_hand": 2}  # fmt: skip
        assert d.core.profile == house_profile(SECOND)
        await rig.clear()
        # hand 2 under house-two; a packaged profile for the next hand; a restart mid-hand
        await rig.to_first_action((1, 2, 3))
        resp = await rig.venue.do("set_profile", profile="club-003")
        assert resp["data"] == {"profile": "club-003", "applies": "next hand"}

    # a restart: the hand in progress is rebuilt under the house profile it was started
    # under (found from its stored document), the packaged one still waits for the next hand
    async with running(tmp, port, storage=storage) as rig:
        assert rig.daemon.core.profile == house_profile(SECOND)
        assert rig.daemon.core.pending_profile == builtin_profile("club-003")
        assert rig.daemon.core.hand_no == 2  # the hand cut by the restart

    # kept: with no hand in progress a restart finds the house profile it was given
    (storage / "fresh").mkdir()
    async with running(tmp, port, storage=storage / "fresh") as rig:
        resp = await rig.venue.do("set_profile", document=SECOND)
        assert resp["data"]["applies"] == "now"
    async with running(tmp, port, storage=storage / "fresh") as rig:
        assert rig.daemon.core.profile == house_profile(SECOND)
        await wait_for(lambda: rig.venue.on("state") and rig.state()["profile"] == "house-two",
                       "the stored profile in the state")  # fmt: skip


def test_a_restarted_table_finds_a_profile_by_name(tmp_path: Path) -> None:
    store = TableStore(tmp_path / "table.db")
    try:
        tda = builtin_profile("tda-2024")
        store.put("house_profiles", {"house-first-ace": FIRST_ACE, "broken": "[profile]\nx=1\n"})
        assert resolve(store, "house-first-ace", tda) == house_profile(FIRST_ACE)
        assert resolve(store, "club-003", tda) == builtin_profile("club-003")
        assert resolve(store, "tda-2024", tda) is tda
        assert resolve(store, "forgotten", tda) is tda  # a name this table no longer knows
        assert resolve(store, "broken", tda) is tda  # a stored document no longer valid
        # the table's configured profile (a venue's file) while another one is in force
        venue = dataclasses.replace(tda, name="our-venue")
        club = builtin_profile("club-003")
        assert resolve(store, "our-venue", club, venue) is venue
        assert resolve(store, "our-venue", club) is club  # without it: not known by name
        assert resolve(store, "tda-2024", tda, venue) is tda
        assert resolve(store, "house-first-ace", club, venue) == house_profile(FIRST_ACE)
    finally:
        store.close()
