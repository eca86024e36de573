"""The deck registry: which RFID tag is which card of which deck, and which chip tag is worth what.

A table keeps several decks (two alternating decks "red" and "blue" with different backs, a
spare). A tag UID is bytes; it is shown and stored as upper-case hex (:func:`tag_hex`, the
``tag`` field of :class:`~controller.rules.events.CardPlaced`, as in the MQTT contract's
``enrol_deck`` command).

Enrolment reads every card of a new deck in a known order, by default :data:`DEFAULT_ORDER`:
clubs, then diamonds, hearts, spades, each from the deuce up to the ace
(2c 3c … Kc Ac 2d … Ad 2h … Ah 2s … As), the order of a new deck of most makers after the
jokers are taken out. :class:`EnrollSession` refuses a tag already enrolled in the deck, a tag
of another deck and a chip tag, with a message that says which card it already is.

A deck may also carry jokers (tagged like the cards): each of their tags reads as
:data:`~controller.rules.cards.JOKER` (several tags may be the joker; the rules core
decides what a joker in play means). They are enrolled by tag (the ``jokers`` list of the
``enrol_deck`` command), not by the enrolment session.

The registry serialises to JSON (the daemon keeps it in SQLite as a JSON blob).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.rules.cards import JOKER, STANDARD_DECK, Card
from controller.rules.errors import BadInput, LocalError

DEFAULT_ORDER: tuple[Card, ...] = STANDARD_DECK  # 2c..Ac, 2d..Ad, 2h..Ah, 2s..As
FORMAT_VERSION = 1


def tag_hex(uid: bytes) -> str:
    """How a tag UID is shown, stored and put in events: upper-case hex, no separators."""
    return uid.hex().upper()


def parse_tag(text: str) -> bytes:
    """Inverse of :func:`tag_hex`; also accepts lower case and ``:``/space separators."""
    try:
        uid = bytes.fromhex(text.replace(":", "").replace(" ", ""))
    except ValueError:
        raise BadInput(f"tag {text!r}: not hexadecimal") from None
    if not uid:
        raise BadInput(f"tag {text!r}: empty")
    return uid


class EnrollRefused(BadInput):
    """A tag cannot be enrolled (it already belongs to a card or chip); the message says why."""


@dataclass(slots=True)
class Deck:
    """One physical deck: ``cards`` maps tag UID → card (at most one tag per card)."""

    name: str
    back: str = ""  # the back design or colour, for the dealer ("red", "blue")
    cards: dict[bytes, Card] = field(default_factory=dict)

    def tag_of(self, card: Card) -> bytes | None:
        for uid, c in self.cards.items():
            if c == card:
                return uid
        return None

    def card_tags(self) -> dict[str, str]:
        """Card text → tag hex: the form of the MQTT ``enrol_deck`` command and the link store
        (the jokers: :meth:`joker_tags`)."""
        return {str(c): tag_hex(u) for u, c in self.cards.items() if not c.is_joker}

    def joker_tags(self) -> list[str]:
        """The tag hex of each joker of the deck."""
        return [tag_hex(u) for u, c in self.cards.items() if c.is_joker]

    def add_jokers(self, tags: Iterable[str]) -> None:
        """Add joker tags (BadInput on a bad tag or one already a card of this deck)."""
        for tag in tags:
            uid = parse_tag(tag)
            if uid in self.cards and not self.cards[uid].is_joker:
                raise BadInput(f"deck {self.name}: tag {tag} is both {self.cards[uid]} and a joker")
            self.cards[uid] = JOKER

    @classmethod
    def from_card_tags(cls, name: str, cards: Mapping[str, str], back: str = "") -> Deck:
        """Inverse of :meth:`card_tags` (BadInput on a bad card or tag, or a tag used twice)."""
        out: dict[bytes, Card] = {}
        for text, tag in cards.items():
            uid = parse_tag(tag)
            if uid in out:
                raise BadInput(f"deck {name}: tag {tag} is both {out[uid]} and {text}")
            out[uid] = Card.parse(text)
        return cls(name, back, out)


@dataclass(frozen=True, slots=True)
class ExtraTag:
    """A tag seen in a deck check that is not a card of the checked deck."""

    tag: str
    deck: str | None = None  # the registered deck it belongs to; None for a foreign tag
    card: Card | None = None
    chip: int | None = None  # a chip tag's denomination

    def describe(self) -> str:
        if self.card is not None:
            return f"{self.card} of deck {self.deck} (tag {self.tag})"
        if self.chip is not None:
            return f"a {self.chip} chip (tag {self.tag})"
        return f"unregistered tag {self.tag}"


@dataclass(frozen=True, slots=True)
class DeckReport:
    """What :meth:`DeckRegistry.deck_check` found on the table."""

    deck: str
    seen: int  # distinct tags seen
    missing: tuple[Card, ...]  # cards of the deck not seen
    extra: tuple[ExtraTag, ...]  # tags that are not cards of the deck (foreign, other decks)
    duplicates: tuple[Card, ...]  # faces seen more than once (this deck and another, say)

    @property
    def ok(self) -> bool:
        return not (self.missing or self.extra or self.duplicates)

    def lines(self) -> list[str]:
        total = self.seen - len(self.extra)
        out = [f"deck {self.deck}: {total} cards of the deck seen"]
        if self.missing:
            out.append(f"missing ({len(self.missing)}): " + " ".join(map(str, self.missing)))
        if self.extra:
            out.append(f"extra ({len(self.extra)}): " + "; ".join(e.describe() for e in self.extra))
        if self.duplicates:
            out.append("duplicate: " + " ".join(map(str, self.duplicates)))
        if self.ok:
            out.append("deck complete")
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())


class DeckRegistry:
    """All decks and chip tags of one table. Not thread-safe; owned by the daemon's loop."""

    def __init__(self) -> None:
        self._decks: dict[str, Deck] = {}
        self._chips: dict[bytes, int] = {}
        self._index: dict[bytes, tuple[str, Card]] = {}

    # ------------------------------------------------------------ lookups (hot path)

    def lookup(self, uid: bytes) -> tuple[str, Card] | None:
        """(deck name, card) for a card tag, None otherwise."""
        return self._index.get(uid)

    def chip_value(self, uid: bytes) -> int | None:
        return self._chips.get(uid)

    def owner(self, uid: bytes) -> str | None:
        """Words for what a tag already is, or None for a free tag."""
        hit = self._index.get(uid)
        if hit is not None:
            return f"{hit[1]} of deck {hit[0]}"
        chip = self._chips.get(uid)
        if chip is not None:
            return f"a {chip} chip"
        return None

    @property
    def decks(self) -> Mapping[str, Deck]:
        return self._decks

    @property
    def chips(self) -> Mapping[bytes, int]:
        return self._chips

    # ------------------------------------------------------------ changes

    def put_deck(self, deck: Deck) -> None:
        """Add or replace a whole deck (what a finished enrolment does)."""
        for uid in deck.cards:
            self._check_free(uid, deck.name)
        faces = [c for c in deck.cards.values() if not c.is_joker]  # jokers: several tags
        if len(set(faces)) != len(faces):
            dup = next(c for c in faces if faces.count(c) > 1)
            raise EnrollRefused(f"deck {deck.name}: card {dup} has two tags")
        self.remove_deck(deck.name)
        self._decks[deck.name] = deck
        for uid, card in deck.cards.items():
            self._index[uid] = (deck.name, card)

    def remove_deck(self, name: str) -> None:
        old = self._decks.pop(name, None)
        if old is not None:
            for uid in old.cards:
                self._index.pop(uid, None)

    def replace_card(self, deck_name: str, uid: bytes, card: Card) -> None:
        """Enrol a replacement tag for one card (a damaged card); the old tag is forgotten."""
        deck = self._decks.get(deck_name)
        if deck is None:
            raise LocalError(f"deck {deck_name!r} is not registered")
        self._check_free(uid, None)
        old = deck.tag_of(card)
        if old is not None:
            del deck.cards[old]
            self._index.pop(old, None)
        deck.cards[uid] = card
        self._index[uid] = (deck_name, card)

    def add_chip(self, uid: bytes, value: int) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise BadInput(f"chip {tag_hex(uid)}: denomination must be a positive integer")
        if uid in self._index:
            raise EnrollRefused(f"tag {tag_hex(uid)} is already {self.owner(uid)}")
        self._chips[uid] = value

    def remove_chip(self, uid: bytes) -> None:
        self._chips.pop(uid, None)

    def _check_free(self, uid: bytes, replacing_deck: str | None) -> None:
        hit = self._index.get(uid)
        if hit is not None and hit[0] != replacing_deck:
            raise EnrollRefused(f"tag {tag_hex(uid)} is already {hit[1]} of deck {hit[0]}")
        if uid in self._chips:
            raise EnrollRefused(f"tag {tag_hex(uid)} is already a {self._chips[uid]} chip")

    # ------------------------------------------------------------ deck check

    def deck_check(self, deck: str, tags_seen: Iterable[bytes]) -> DeckReport:
        """Compare the tags read with a deck laid out on the table against the deck."""
        d = self._decks.get(deck)
        if d is None:
            raise LocalError(f"deck {deck!r} is not registered")
        seen = list(dict.fromkeys(tags_seen))  # one physical tag read twice is one card
        faces: dict[Card, int] = {}
        extra: list[ExtraTag] = []
        for uid in seen:
            hit = self._index.get(uid)
            if hit is not None:
                faces[hit[1]] = faces.get(hit[1], 0) + 1
            if hit is None or hit[0] != deck:
                extra.append(
                    ExtraTag(
                        tag_hex(uid),
                        hit[0] if hit else None,
                        hit[1] if hit else None,
                        self._chips.get(uid),
                    )
                )
        own = set(d.cards.values())
        seen_own = {d.cards[u] for u in seen if u in d.cards}
        missing = tuple(c for c in sorted(own, key=_deck_order) if c not in seen_own)
        dups = tuple(sorted((c for c, n in faces.items() if n > 1 and not c.is_joker),
                            key=_deck_order))  # fmt: skip
        return DeckReport(deck, len(seen), missing, tuple(extra), dups)

    # ------------------------------------------------------------ JSON

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": FORMAT_VERSION,
            "decks": [
                {
                    "name": d.name,
                    "back": d.back,
                    "cards": {tag_hex(u): str(c) for u, c in d.cards.items()},
                }
                for d in self._decks.values()
            ],
            "chips": {tag_hex(u): v for u, v in self._chips.items()},
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DeckRegistry:
        """Rebuild from :meth:`to_dict`; refuses a tag used twice or a card with two tags."""
        if not isinstance(data, Mapping) or data.get("version") != FORMAT_VERSION:
            raise BadInput(f"deck registry: expected an object with version {FORMAT_VERSION}")
        reg = cls()
        for i, raw in enumerate(data.get("decks", [])):
            if not isinstance(raw, Mapping) or not isinstance(raw.get("name"), str):
                raise BadInput(f"deck registry: decks[{i}] needs a name")
            cards_raw = raw.get("cards", {})
            if not isinstance(cards_raw, Mapping):
                raise BadInput(f"deck registry: decks[{i}].cards must be an object")
            cards = {parse_tag(t): Card.parse(str(c)) for t, c in cards_raw.items()}
            if raw["name"] in reg._decks:
                raise BadInput(f"deck registry: deck {raw['name']!r} twice")
            reg.put_deck(Deck(raw["name"], str(raw.get("back", "")), cards))
        chips = data.get("chips", {})
        if not isinstance(chips, Mapping):
            raise BadInput("deck registry: chips must be an object")
        for t, v in chips.items():
            reg.add_chip(parse_tag(t), v)
        return reg

    @classmethod
    def from_json(cls, text: str | bytes) -> DeckRegistry:
        try:
            data = json.loads(text)
        except ValueError as e:
            raise BadInput(f"deck registry: not JSON ({e})") from None
        return cls.from_dict(data)


def _deck_order(card: Card) -> tuple[int, int]:
    return (card.suit.value, card.rank)


# ---------------------------------------------------------------- enrolment


@dataclass(frozen=True, slots=True)
class EnrollStep:
    """Outcome of one tag read in an enrolment session."""

    accepted: bool
    card: Card | None  # the card the tag was enrolled as (accepted) or was expected (refused)
    message: str
    repeat: bool = False  # the same tag as the previous read: ignored silently


class EnrollSession:
    """Enrol one deck by reading its cards in ``order``; the registry changes only at the end.

    Enrolling a deck name that is already registered replaces that deck when the session
    completes (its old tags may be read again); tags of other decks and chips are refused.
    """

    def __init__(
        self,
        registry: DeckRegistry,
        deck_name: str,
        *,
        order: Sequence[Card] = DEFAULT_ORDER,
        back: str = "",
    ) -> None:
        if not deck_name.strip():
            raise LocalError("deck name must not be empty")
        if len(set(order)) != len(order) or not order:
            raise LocalError("enrolment order must list distinct cards")
        self._registry = registry
        self._name = deck_name
        self._back = back
        self._order = tuple(order)
        self._cards: dict[bytes, Card] = {}
        self._last: bytes | None = None
        self._committed = False

    @property
    def deck_name(self) -> str:
        return self._name

    @property
    def total(self) -> int:
        return len(self._order)

    @property
    def count(self) -> int:
        return len(self._cards)

    @property
    def expected(self) -> Card | None:
        """The card to read next, None when every card is read."""
        return self._order[self.count] if self.count < self.total else None

    @property
    def done(self) -> bool:
        return self.count == self.total

    def progress_text(self) -> str:
        nxt = self.expected
        tail = f", next: {nxt}" if nxt is not None else ", complete"
        return f"deck {self._name}: {self.count}/{self.total}{tail}"

    def offer(self, uid: bytes) -> EnrollStep:
        """A tag was read: enrol it as the expected card, or say why not."""
        expected = self.expected
        if expected is None or self._committed:
            return EnrollStep(False, None, f"deck {self._name} is already complete")
        if uid == self._last:
            return EnrollStep(False, expected, "same tag as the last read", repeat=True)
        self._last = uid
        hex_ = tag_hex(uid)
        if uid in self._cards:
            return EnrollStep(
                False,
                expected,
                f"tag {hex_} is already enrolled in this deck as {self._cards[uid]};"
                f" read {expected} next",
            )
        hit = self._registry.lookup(uid)
        if hit is not None and hit[0] != self._name:
            return EnrollStep(
                False,
                expected,
                f"tag {hex_} is {hit[1]} of deck {hit[0]}: keep the decks apart; read {expected}"
                f" of deck {self._name} next",
            )
        chip = self._registry.chip_value(uid)
        if chip is not None:
            return EnrollStep(False, expected, f"tag {hex_} is a {chip} chip; read {expected} next")
        self._cards[uid] = expected
        return EnrollStep(True, expected, f"{expected} enrolled ({self.count}/{self.total})")

    def undo(self) -> Card | None:
        """Forget the last enrolled card (the dealer read the wrong one); returns it."""
        if not self._cards or self._committed:
            return None
        uid = next(reversed(self._cards))
        self._last = None
        return self._cards.pop(uid)

    def commit(self) -> Deck:
        """Put the finished deck into the registry (replacing a deck of the same name)."""
        if not self.done:
            raise LocalError(f"deck {self._name}: enrolment incomplete ({self.count}/{self.total})")
        deck = Deck(self._name, self._back, dict(self._cards))
        if not self._committed:
            self._registry.put_deck(deck)
            self._committed = True
        return deck
