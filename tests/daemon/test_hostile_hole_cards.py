"""The hole-card guard through the real daemon (a private mosquitto, the reader board on a pty,
MockFactory GPIO): issue 11 defects 4 and 7. Every message under the table's topics and every
log record is searched for the live hole cards, as card texts and as tag UIDs."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from controller.demo.table import HOLE, card_uid
from controller.rules.cards import STANDARD_DECK, Card
from tests.brokers import plain_broker
from tests.daemon.daemon_rig import BASE, Rig, running, wait_for


def _run(tmp: Path, scenario: Callable[[Path, int], Awaitable[None]]) -> None:
    with plain_broker() as broker:
        asyncio.run(asyncio.wait_for(scenario(tmp, broker.port), 60))


def second_uid(c: Card) -> bytes:
    """The tag of ``c`` in a second deck ("B"): another tag, the same card."""
    return bytes([0xD0, 0xA0, int(c.suit), c.rank])


def leaks(rig: Rig, cards: list[str], tags: list[str], logs: list[logging.LogRecord]) -> list[str]:
    """Every table message (not the venue's own commands, not completed hand records) and
    log line that names one of ``cards`` (as a word) or ``tags`` (hex, any case)."""
    card = re.compile(r"\b(?:" + "|".join(re.escape(c) for c in cards) + r")\b")
    tag = re.compile("|".join(re.escape(t) for t in tags), re.IGNORECASE)
    found = []
    for topic, body in rig.venue.messages:
        if topic in (f"{BASE}/cmd", f"{BASE}/hands"):
            continue
        text = json.dumps(body)
        if card.search(text) or tag.search(text):
            found.append(f"{topic}: {text}")
    for r in logs:
        msg = r.getMessage()
        if card.search(msg) or tag.search(msg):
            found.append(f"log {r.name}: {msg}")
    return found


# ---------------------------------------------------------------- defect 4


@pytest.mark.timeout(90)
def test_defect_4_duplicate_card_alert_names_no_hole_card(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A duplicate-card alert named the tag UIDs of both cards ("Two cards a card (tags
    C0A0030E and D0A0030E)"); one was a live face-down hole card, and with the deck
    enrolment the UID is the card. Now the alert says where the cards are, and no message
    on any topic and no log line names the hole card or either tag."""
    caplog.set_level(logging.DEBUG)
    _run(tmp_path, lambda tmp, port: _duplicate(tmp, port, caplog))


async def _duplicate(tmp: Path, port: int, caplog: pytest.LogCaptureFixture) -> None:
    async with running(tmp, port) as rig:
        await rig.setup()
        deck_b = {str(c): second_uid(c).hex().upper() for c in STANDARD_DECK}
        await rig.venue.do("enrol_deck", deck_id="B", cards=deck_b)
        caplog.clear()
        ah = Card.parse("Ah")
        await rig.chips(2, 50)
        await rig.chips(3, 100)
        await rig.deal(2, "Ah")  # seat 2's first card, deck A
        await rig.place(HOLE[3], second_uid(ah))  # seat 3: another Ah, deck B
        await wait_for(lambda: rig.alerts("DUPLICATE_CARD"), "the duplicate-card alert")
        remedy = rig.alerts("DUPLICATE_CARD")[0]["remedy"]
        assert "seat 2's first card" in remedy and "seat 3's first card" in remedy, remedy
        assert "replace the deck" in remedy
        tags = [card_uid(ah).hex().upper(), second_uid(ah).hex().upper()]
        found = leaks(rig, ["Ah"], tags, list(caplog.records))
        assert not found, "\n".join(found)


# ---------------------------------------------------------------- defect 7


@pytest.mark.timeout(90)
def test_defect_7_player_named_like_a_card_does_not_freeze_the_state(tmp_path: Path) -> None:
    """A player named "Ah" was accepted, and from then on the hole-card guard refused every
    state publication: the live state froze, with no alert. Now names are the venue's own
    words, never read as cards: the state goes on (the deal, whose turn it is)."""
    _run(tmp_path, _named_like_cards)


async def _named_like_cards(tmp: Path, port: int) -> None:
    async with running(tmp, port) as rig:
        await rig.setup()
        names = {1: "Ah", 2: card_uid(Card.parse("7d")).hex().upper(), 3: "10h"}
        for seat, name in names.items():
            await rig.venue.do("seat", seat=seat, player_id=f"p{seat}", name=name, stack=10_000)
        await wait_for(lambda: {s["seat"]: s["name"] for s in rig.state()["seats"]} == names,
                       "the names in the live state")  # fmt: skip
        n = len(rig.venue.on("state"))
        await rig.to_first_action()  # seat 2 (named like its own 7d's tag) is dealt 7d
        assert len(rig.venue.on("state")) > n + 4
        assert rig.state()["to_act"] == 1
        assert not rig.alerts("LIVE_DATA_WITHHELD")


@pytest.mark.timeout(90)
def test_defect_7_a_guard_refusal_is_alerted_never_silent(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Should the guard refuse a state (here a card text in a field that is not the venue's
    own: the badge reader's status), the dealer and the venue get a critical alert naming
    where, never the value, and the log says so; the next clean state is published."""
    caplog.set_level(logging.INFO, logger="railguard.daemon")
    _run(tmp_path, _refusal_alerted)
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "hole-card guard withheld the state: state.badge_reader" in text


async def _refusal_alerted(tmp: Path, port: int) -> None:
    async with running(tmp, port) as rig:
        await rig.setup()
        await rig.to_first_action()
        d = rig.daemon
        d.badge_reader = "Kd"
        d.publish_state()
        await wait_for(lambda: rig.alerts("LIVE_DATA_WITHHELD"), "the guard's alert")
        alert = rig.alerts("LIVE_DATA_WITHHELD")[0]
        assert alert["severity"] == "critical" and "state.badge_reader" in alert["remedy"]
        assert "Kd" not in json.dumps(alert)
        d.badge_reader = "ready"
        d.publish_state()
        await wait_for(lambda: rig.state().get("badge_reader") == "ready", "a clean state")
        assert len(rig.alerts("LIVE_DATA_WITHHELD")) == 1
