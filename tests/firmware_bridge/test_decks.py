"""The deck registry: lookups, enrolment session, deck check, JSON."""

from __future__ import annotations

import pytest

from controller.rules.cards import STANDARD_DECK, Card
from controller.rules.errors import BadInput, LocalError
from firmware_bridge.decks import (
    DEFAULT_ORDER,
    Deck,
    DeckRegistry,
    EnrollRefused,
    EnrollSession,
    parse_tag,
    tag_hex,
)


def uid(deck: int, i: int) -> bytes:
    return bytes([0x04, deck, i, 0xA0, 0x11, 0x22, 0x33])


def registry_with(*names: str) -> DeckRegistry:
    reg = DeckRegistry()
    for n, name in enumerate(names):
        reg.put_deck(Deck(name, name, {uid(n, i): c for i, c in enumerate(STANDARD_DECK)}))
    return reg


def test_default_order_is_clubs_diamonds_hearts_spades_deuce_to_ace() -> None:
    assert len(DEFAULT_ORDER) == 52
    assert [str(c) for c in DEFAULT_ORDER[:2]] == ["2c", "3c"]
    assert str(DEFAULT_ORDER[12]) == "Ac"
    assert str(DEFAULT_ORDER[13]) == "2d"
    assert str(DEFAULT_ORDER[-1]) == "As"


def test_tag_hex_round_trip() -> None:
    u = bytes.fromhex("04a1b2c3d4e580")
    assert tag_hex(u) == "04A1B2C3D4E580"
    assert parse_tag("04:A1:B2:C3:D4:E5:80") == u
    with pytest.raises(BadInput):
        parse_tag("zz")
    with pytest.raises(BadInput):
        parse_tag("")


def test_lookup_two_decks_and_chips() -> None:
    reg = registry_with("red", "blue")
    reg.add_chip(b"\xc0\x01", 500)
    assert reg.lookup(uid(0, 51)) == ("red", Card.parse("As"))
    assert reg.lookup(uid(1, 0)) == ("blue", Card.parse("2c"))
    assert reg.lookup(b"\x99") is None
    assert reg.chip_value(b"\xc0\x01") == 500
    assert reg.chip_value(uid(0, 0)) is None
    assert reg.owner(uid(1, 0)) == "2c of deck blue"
    assert reg.owner(b"\xc0\x01") == "a 500 chip"


def test_put_deck_refuses_tag_of_another_deck_and_chip() -> None:
    reg = registry_with("red")
    with pytest.raises(EnrollRefused, match="already 2c of deck red"):
        reg.put_deck(Deck("blue", cards={uid(0, 0): Card.parse("Ah")}))
    with pytest.raises(EnrollRefused, match="already 2c of deck red"):
        reg.add_chip(uid(0, 0), 25)
    with pytest.raises(BadInput, match="positive"):
        reg.add_chip(b"\x01", 0)
    with pytest.raises(EnrollRefused, match="card Ah has two tags"):
        reg.put_deck(Deck("blue", cards={b"\x01": Card.parse("Ah"), b"\x02": Card.parse("Ah")}))


def test_replace_card_forgets_old_tag() -> None:
    reg = registry_with("red")
    reg.replace_card("red", b"\x77", Card.parse("Kd"))
    assert reg.lookup(b"\x77") == ("red", Card.parse("Kd"))
    old = uid(0, STANDARD_DECK.index(Card.parse("Kd")))
    assert reg.lookup(old) is None
    assert len(reg.decks["red"].cards) == 52
    with pytest.raises(LocalError):
        reg.replace_card("green", b"\x78", Card.parse("Kd"))


# ---------------------------------------------------------------- enrolment session


def test_enrol_full_deck_with_progress() -> None:
    reg = registry_with("red")
    s = EnrollSession(reg, "blue", back="blue")
    assert s.expected == Card.parse("2c")
    for i in range(12):
        step = s.offer(uid(9, i))
        assert step.accepted
    assert s.progress_text() == "deck blue: 12/52, next: Ac"
    for i in range(12, 52):
        assert s.offer(uid(9, i)).accepted
    assert s.done
    assert s.progress_text() == "deck blue: 52/52, complete"
    assert "blue" not in reg.decks  # nothing changes before commit
    deck = s.commit()
    assert reg.lookup(uid(9, 51)) == ("blue", Card.parse("As"))
    assert deck.back == "blue"
    assert s.offer(uid(9, 60)).message == "deck blue is already complete"


def test_enrol_refuses_duplicate_other_deck_and_chip_and_ignores_repeat() -> None:
    reg = registry_with("red")
    reg.add_chip(b"\xc0", 100)
    s = EnrollSession(reg, "blue")
    assert s.offer(b"\x01").accepted
    rep = s.offer(b"\x01")
    assert rep.repeat and not rep.accepted
    assert s.offer(b"\x02").accepted
    dup = s.offer(b"\x01")
    assert not dup.accepted and not dup.repeat
    assert dup.message == "tag 01 is already enrolled in this deck as 2c; read 4c next"
    other = s.offer(uid(0, 5))
    assert not other.accepted
    assert "is 7c of deck red" in other.message and "read 4c of deck blue next" in other.message
    chip = s.offer(b"\xc0")
    assert not chip.accepted and "is a 100 chip" in chip.message
    assert s.count == 2
    with pytest.raises(LocalError, match="incomplete"):
        s.commit()


def test_undo_last_card() -> None:
    s = EnrollSession(DeckRegistry(), "red")
    s.offer(b"\x01")
    s.offer(b"\x02")
    assert s.undo() == Card.parse("3c")
    assert s.expected == Card.parse("3c")
    assert s.offer(b"\x03").accepted
    assert s.undo() == Card.parse("3c")


def test_reenrolling_a_deck_replaces_it() -> None:
    reg = registry_with("red")
    order = [Card.parse("As"), Card.parse("Kd")]
    s = EnrollSession(reg, "red", order=order)
    assert s.offer(uid(0, 0)).accepted  # old red tag re-read for the new red deck
    assert s.offer(b"\x05").accepted
    s.commit()
    assert reg.lookup(uid(0, 0)) == ("red", Card.parse("As"))
    assert reg.lookup(uid(0, 1)) is None
    assert len(reg.decks["red"].cards) == 2


def test_session_argument_errors() -> None:
    with pytest.raises(LocalError):
        EnrollSession(DeckRegistry(), " ")
    with pytest.raises(LocalError):
        EnrollSession(DeckRegistry(), "x", order=[Card.parse("As"), Card.parse("As")])


# ---------------------------------------------------------------- deck check


def test_deck_check_complete() -> None:
    reg = registry_with("red", "blue")
    rep = reg.deck_check("red", [uid(0, i) for i in range(52)] + [uid(0, 3)])
    assert rep.ok
    assert rep.seen == 52
    assert str(rep).endswith("deck complete")


def test_deck_check_missing_extra_duplicate() -> None:
    reg = registry_with("red", "blue")
    reg.add_chip(b"\xc0", 25)
    seen = [uid(0, i) for i in range(52) if i not in (0, 51)]
    seen += [uid(1, 12), b"\xde\xad", b"\xc0"]  # blue Ac, a foreign tag, a chip
    rep = reg.deck_check("red", seen)
    assert not rep.ok
    assert rep.missing == (Card.parse("2c"), Card.parse("As"))
    assert [e.describe() for e in rep.extra] == [
        f"Ac of deck blue (tag {tag_hex(uid(1, 12))})",
        "unregistered tag DEAD",
        "a 25 chip (tag C0)",
    ]
    assert rep.duplicates == (Card.parse("Ac"),)
    text = str(rep)
    assert "missing (2): 2c As" in text
    assert "duplicate: Ac" in text
    with pytest.raises(LocalError):
        reg.deck_check("green", [])


# ---------------------------------------------------------------- JSON


def test_json_round_trip() -> None:
    reg = registry_with("red", "blue")
    reg.add_chip(b"\xc0\x01", 1000)
    again = DeckRegistry.from_json(reg.to_json())
    assert again.to_dict() == reg.to_dict()
    assert again.lookup(uid(1, 7)) == reg.lookup(uid(1, 7))
    assert again.chip_value(b"\xc0\x01") == 1000
    assert again.decks["blue"].back == "blue"


@pytest.mark.parametrize(
    ("text", "msg"),
    [
        ("not json", "not JSON"),
        ('{"version": 9}', "version 1"),
        ('{"version": 1, "decks": [{"cards": {}}]}', r"decks\[0\] needs a name"),
        ('{"version": 1, "decks": [{"name": "a", "cards": {"01": "Zz"}}]}', "unknown rank"),
        (
            '{"version": 1, "decks": [{"name": "a", "cards": {"01": "As"}},'
            ' {"name": "b", "cards": {"01": "Ks"}}]}',
            "already As of deck a",
        ),
        ('{"version": 1, "chips": {"01": -5}}', "positive"),
    ],
)
def test_json_rejects_bad_data(text: str, msg: str) -> None:
    with pytest.raises(BadInput, match=msg):
        DeckRegistry.from_json(text)


def test_card_tags_form_for_the_mqtt_command_and_store() -> None:
    deck = registry_with("red").decks["red"]
    tags = deck.card_tags()
    assert tags["As"] == tag_hex(uid(0, 51)) == "040033A0112233"
    again = Deck.from_card_tags("red", tags, back="red")
    assert again.cards == deck.cards
    with pytest.raises(BadInput, match="tag 01 is both As and Ks"):
        Deck.from_card_tags("x", {"As": "01", "Ks": "01"})
