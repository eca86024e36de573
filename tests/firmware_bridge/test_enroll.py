"""Enrolment front end: tag reads from a desk reader or from one table antenna."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable

import pytest

from controller.rules.cards import STANDARD_DECK, Card
from firmware_bridge.decks import Deck, DeckRegistry
from firmware_bridge.enroll import EnrollIncomplete, antenna_tag_reads, run_enroll
from firmware_bridge.snapshots import AntennaSnapshot, TagRead


def uid(deck: int, i: int) -> bytes:
    return bytes([0x04, deck, i, 0x77])


async def reads(tags: Iterable[bytes]) -> AsyncIterator[bytes]:
    for t in tags:
        await asyncio.sleep(0)
        yield t


class Log:
    def __init__(self) -> None:
        self.progress: list[tuple[int, int, Card]] = []
        self.notices: list[str] = []

    def on_progress(self, n: int, total: int, card: Card) -> None:
        self.progress.append((n, total, card))

    def on_notice(self, message: str) -> None:
        self.notices.append(message)


def enrol(tags: Iterable[bytes], reg: DeckRegistry, name: str = "blue") -> tuple[Deck, Log]:
    log = Log()
    deck = asyncio.run(
        run_enroll(reads(tags), reg, name, log.on_progress, back=name, notice=log.on_notice)
    )
    return deck, log


def test_enrol_a_deck_from_the_desk_reader() -> None:
    reg = DeckRegistry()
    tags = [uid(1, i) for i in range(52)]
    tags.insert(5, tags[4])  # the reader reports the same card twice: ignored silently
    deck, log = enrol(tags, reg)
    assert len(deck.cards) == 52
    assert log.progress[11] == (12, 52, Card.parse("Kc"))
    assert log.progress[-1] == (52, 52, Card.parse("As"))
    assert [p[2] for p in log.progress] == list(STANDARD_DECK)
    assert log.notices == []
    assert reg.lookup(uid(1, 13)) == ("blue", Card.parse("2d"))


def test_refusals_are_reported_and_enrolment_goes_on() -> None:
    reg = DeckRegistry()
    reg.put_deck(Deck("red", "red", {uid(0, i): c for i, c in enumerate(STANDARD_DECK)}))
    tags = [uid(1, 0), uid(1, 1), uid(0, 7), uid(1, 0), *[uid(1, i) for i in range(2, 52)]]
    deck, log = enrol(tags, reg)
    assert log.notices == [
        "tag 04000777 is 9c of deck red: keep the decks apart; read 4c of deck blue next",
        "tag 04010077 is already enrolled in this deck as 2c; read 4c next",
    ]
    assert deck.cards[uid(1, 2)] == Card.parse("4c")
    assert reg.lookup(uid(0, 7)) == ("red", Card.parse("9c"))


def test_reads_ending_early_leave_the_registry_unchanged() -> None:
    reg = DeckRegistry()
    with pytest.raises(EnrollIncomplete, match="stopped at 12/52"):
        enrol([uid(1, i) for i in range(12)], reg)
    assert reg.decks == {}
    assert reg.lookup(uid(1, 0)) is None


def test_custom_order_and_no_notice_callback() -> None:
    reg = DeckRegistry()
    order = [Card.parse("As"), Card.parse("Ks")]
    got: list[tuple[int, int, Card]] = []
    deck = asyncio.run(
        run_enroll(
            reads([b"\x01", b"\x01", b"\x01\x01", b"\x02"]),
            reg,
            "spare",
            lambda n, t, c: got.append((n, t, c)),
            order=order,
        )
    )
    assert deck.cards == {b"\x01": Card.parse("As"), b"\x01\x01": Card.parse("Ks")}
    assert got == [(1, 2, Card.parse("As")), (2, 2, Card.parse("Ks"))]


# ---------------------------------------------------------------- a table antenna


async def snapshot_stream(
    frames: Iterable[tuple[int, tuple[bytes, ...], bool]],
) -> AsyncIterator[AntennaSnapshot]:
    for n, (antenna, tags, collision) in enumerate(frames):
        yield AntennaSnapshot(n * 0.05, 9, n, (), False)  # another antenna: ignored
        yield AntennaSnapshot(n * 0.05, antenna, n, tuple(TagRead(t) for t in tags), collision)


def collect(frames: list[tuple[int, tuple[bytes, ...], bool]], notices: list[str]) -> list[bytes]:
    async def go() -> list[bytes]:
        return [
            u async for u in antenna_tag_reads(snapshot_stream(frames), 4, notice=notices.append)
        ]

    return asyncio.run(go())


def lay(
    tags: tuple[bytes, ...], cycles: int, collision: bool = False
) -> list[tuple[int, tuple[bytes, ...], bool]]:
    return [(4, tags, collision)] * cycles


def test_antenna_reads_one_per_card_laid() -> None:
    a, b = uid(1, 0), uid(1, 1)
    frames = lay((a,), 5) + lay((), 3) + lay((b,), 1) + lay((), 1) + lay((b,), 4) + lay((), 3)
    frames += lay((a,), 2)  # a again after it was taken off: read again
    notices: list[str] = []
    assert collect(frames, notices) == [a, b, a]
    assert notices == []


def test_antenna_flicker_is_not_a_new_read() -> None:
    a = uid(1, 0)
    frames = lay((a,), 3) + lay((), 2) + lay((a,), 3)
    assert collect(frames, []) == [a]


def test_antenna_cards_laid_together_or_collision_are_refused() -> None:
    a, b, c = uid(1, 0), uid(1, 1), uid(1, 2)
    notices: list[str] = []
    frames = lay((a, b), 3) + lay((), 3) + lay((c,), 4, collision=True)
    assert collect(frames, notices) == []
    assert notices == [
        "several cards laid at once on antenna 4 (04010077, 04010177): lay them one by one",
        "antenna 4 reads several cards at once: lay one card at a time",
    ]
    notices.clear()  # the stack is cleared down to one card: that one is read
    assert collect([*frames, *lay((c,), 1)], notices) == [c]


def test_enrol_from_a_table_antenna() -> None:
    reg = DeckRegistry()
    order = [Card.parse("2c"), Card.parse("3c"), Card.parse("4c")]
    frames: list[tuple[int, tuple[bytes, ...], bool]] = []
    for i in range(3):
        frames += lay((uid(2, i),), 3) + lay((), 3)
    notices: list[str] = []
    deck = asyncio.run(
        run_enroll(
            antenna_tag_reads(snapshot_stream(frames), 4, notice=notices.append),
            reg,
            "green",
            lambda n, t, c: None,
            order=order,
        )
    )
    assert deck.cards == {uid(2, i): c for i, c in enumerate(order)}
