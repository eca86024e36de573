"""Table state the rules core owns, through the daemon over a real mosquitto and the pty
reader board (issue 21): ``set_profile`` is a core event, so a refused one changes nothing
(the core, its pending profile, the table store), and a profile set mid-hand is the core's
pending profile: it survives a restart (and the re-deal of the hand the restart cut) and
takes effect once that hand is over (the ``profile_changed`` event, the live state). The
table store's seating is the core's, written after each event the core accepted (seat,
unseat, move, a hand's stacks and busted seats), never from a command's values."""

from __future__ import annotations

import asyncio
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from controller.daemon import recovery
from controller.daemon.house_profiles import stored_documents
from controller.rules.profile import builtin_profile, get_profile
from tests.brokers import plain_broker
from tests.daemon.daemon_rig import Rig, profile_copy, running, wait_for

pytestmark = pytest.mark.timeout(90)


def _doc(name: str, *changes: tuple[str, str]) -> str:
    """tda-2024's file renamed and changed: a venue's own house profile."""
    text = (resources.files("controller.rules") / "profiles" / "tda-2024.toml").read_text()
    text = text.replace('name = "tda-2024"', f'name = "{name}"', 1)
    for old, new in changes:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


RULEBOOK = 'rulebook = "TDA 2024"\n'
TWO_SEATS = _doc("house-two-seats", (RULEBOOK, RULEBOOK + "max_seats = 2\n"))


def _run(tmp: Path, scenario: Any) -> None:
    with plain_broker() as broker:
        asyncio.run(asyncio.wait_for(scenario(tmp, broker.port), 80))


def _stored_seating(rig: Rig) -> tuple[tuple[int, str, str, int], ...]:
    return tuple((n, r.player_id, r.name, r.stack) for n, r in rig.daemon.store.seating().items())


def _same_seating(rig: Rig) -> None:
    """The store's seating is the core's (players, names, stacks)."""
    assert _stored_seating(rig) == recovery.seating_data(rig.daemon.core)


def test_a_profile_set_mid_hand_applies_at_the_next_hand_across_a_restart(
    tmp_path: Path,
) -> None:
    _run(tmp_path, _mid_hand)


async def _mid_hand(tmp: Path, port: int) -> None:
    storage = tmp / "state"
    async with running(tmp, port, storage=storage) as rig:
        d = rig.daemon
        await rig.setup()
        await rig.to_first_action()
        resp = await rig.venue.do("set_profile", profile="club-003")
        assert resp["data"] == {"profile": "club-003", "applies": "next hand"}
        assert d.core.profile.name == "tda-2024" == rig.state()["profile"]
        assert d.core.pending_profile == builtin_profile("club-003")
        assert d.store.get("runtime_profile") == {"name": "club-003", "config": "tda-2024"}

        # refused while one is pending: the table's seats 1-3 do not fit two seats
        def unchanged() -> tuple[Any, ...]:
            return (d.core.profile, d.core.pending_profile, d.store.get("runtime_profile"),
                    stored_documents(d.store), _stored_seating(rig), d.core.export())  # fmt: skip

        before = unchanged()
        reason = await rig.refused("set_profile", document=TWO_SEATS)
        assert reason == "house profile 'house-two-seats' has 2 seats; seats [3] are occupied"
        await rig.settled()
        assert unchanged() == before
        assert not rig.events("profile_changed")

    # a restart cuts the hand: rebuilt under the profile it started with, club-003 pending;
    # tda-2024 rules the cut hand a misdeal, and its re-deal is the same hand (G1)
    async with running(tmp, port, storage=storage) as rig:
        d = rig.daemon
        assert d.core.profile == builtin_profile("tda-2024")
        assert d.core.pending_profile == builtin_profile("club-003")
        await wait_for(lambda: rig.events("hand_interrupted"), "the hand_interrupted event")
        assert rig.events("hand_interrupted")[-1]["data"]["outcome"] == "misdeal"
        await rig.settled()
        assert d.core.redeal_pending and d.core.pending_profile == builtin_profile("club-003")
        for seat, card in zip((2, 3, 1) * 2, ["2c", "7d", "9h", "Ks", "3c", "8d"], strict=True):
            await rig.deal(seat, card)  # the blinds stay posted (G1)
        await wait_for(lambda: rig.state()["to_act"] == 1, "the re-deal's first action")
        assert (d.core.hand_no, d.core.deal_no) == (1, 2)
        assert rig.state()["profile"] == "tda-2024" and not rig.events("profile_changed")
        await rig.fold(1)
        await rig.fold(2)  # seat 3 wins the blinds: the hand is over
        await wait_for(lambda: rig.events("profile_changed"), "profile_changed")
        assert [e["data"] for e in rig.events("profile_changed")] == [
            {"profile": "club-003", "previous": "tda-2024", "from_hand": 2}]  # fmt: skip
        kinds = [e["kind"] for e in rig.venue.on("events")]
        assert kinds.index("hand_completed") < kinds.index("profile_changed")
        assert d.core.profile == builtin_profile("club-003") and d.core.pending_profile is None
        await wait_for(lambda: rig.state()["profile"] == "club-003", "the state's profile")
        await rig.clear()
        _same_seating(rig)  # the hand's stacks
        assert {n: r.stack for n, r in d.store.seating().items()} == {
            1: 10_000, 2: 9_950, 3: 10_050}  # fmt: skip

    async with running(tmp, port, storage=storage) as rig:
        assert rig.daemon.core.profile == builtin_profile("club-003")
        assert rig.daemon.core.pending_profile is None
        await wait_for(lambda: rig.venue.on("state") and rig.state()["profile"] == "club-003",
                       "the stored profile in the state")  # fmt: skip


def test_a_hand_under_the_configured_venue_file_is_rebuilt_under_it(tmp_path: Path) -> None:
    """table.profile a venue's own file: a hand it started, cut by a restart after a packaged
    profile was set for the next hand, is rebuilt under the file's profile (found by the
    configured name, not only among packaged and stored house profiles), the packaged one
    pending."""
    _run(tmp_path, _venue_file)


async def _venue_file(tmp: Path, port: int) -> None:
    storage = tmp / "state"
    path = profile_copy(tmp, "our-venue")
    venue = get_profile(path)
    async with running(tmp, port, profile=path, storage=storage) as rig:
        await rig.setup()
        assert rig.daemon.core.profile == venue
        await rig.to_first_action()
        resp = await rig.venue.do("set_profile", profile="club-003")
        assert resp["data"]["applies"] == "next hand"
    async with running(tmp, port, profile=path, storage=storage) as rig:
        assert rig.daemon.core.profile == venue
        assert rig.daemon.core.pending_profile == builtin_profile("club-003")
        assert rig.daemon.core.hand_no == 1


def test_the_store_holds_the_seating_the_core_accepted(tmp_path: Path) -> None:
    _run(tmp_path, _seating)


async def _seating(tmp: Path, port: int) -> None:
    storage = tmp / "state"
    async with running(tmp, port, storage=storage) as rig:
        d = rig.daemon
        await rig.setup(seats=(1, 2, 3, 4))
        _same_seating(rig)
        assert _stored_seating(rig)[0] == (1, "p1", "Player 1", 10_000)

        # the same player seated again: the core's update (a new name and stack)
        await rig.venue.do("seat", seat=4, player_id="p4", name="Dee", stack=700)
        await rig.settled()
        _same_seating(rig)
        assert d.store.seating()[4].name == "Dee" and d.store.seating()[4].stack == 700

        # refused by the floor's checks: nothing changed
        before = (_stored_seating(rig), d.core.export())
        await rig.refused("seat", seat=2, player_id="p9", name="Nine", stack=100)
        await rig.refused("move", from_seat=5, to_seat=6)
        await rig.settled()
        assert (_stored_seating(rig), d.core.export()) == before

        await rig.venue.do("move", from_seat=4, to_seat=6)
        await rig.settled()
        _same_seating(rig)
        assert 4 not in d.store.seating() and d.store.seating()[6].player_id == "p4"
        resp = await rig.venue.do("unseat", seat=6)
        assert resp["data"]["stack"] == 700
        await rig.settled()
        _same_seating(rig)
        assert 6 not in d.store.seating()

        # a hand: refused by the core (a seat in the hand), then the stacks it ends with
        await rig.to_first_action()
        before = (_stored_seating(rig), d.core.export())
        reason = await rig.refused("seat", seat=1, player_id="p1", name="Ace", stack=5)
        assert reason == "seat 1 is in the hand; change it after the hand"
        await rig.settled()
        assert (_stored_seating(rig), d.core.export()) == before
        await rig.fold(1)
        await rig.fold(2)
        await wait_for(lambda: rig.events("hand_completed"), "the end of the hand")
        await rig.settled()
        _same_seating(rig)
        assert {n: r.stack for n, r in d.store.seating().items()} == {
            1: 10_000, 2: 9_950, 3: 10_050}  # fmt: skip
        await rig.clear()
        expected = _stored_seating(rig)

    # a restart seats the stored players: the core and the store agree
    async with running(tmp, port, storage=storage) as rig:
        assert recovery.seating_data(rig.daemon.core) == expected
        _same_seating(rig)
