"""Cards as values: rank and suit, parsing and printing ("As", "Td", "2c"), the joker."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Final

from controller.rules.errors import BadCard

RANKS: Final = "23456789TJQKA"
# Highest first for draws (product default G4): spades, hearts, diamonds, clubs.
SUITS: Final = "shdc"


class Suit(IntEnum):
    """Suit with its draw order: a higher value wins a high-card draw tie."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        return "cdhs"[self.value]


_SUIT_BY_LETTER: Final = {"c": Suit.CLUBS, "d": Suit.DIAMONDS, "h": Suit.HEARTS, "s": Suit.SPADES}


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """A playing card. ``rank`` is 2..14 (ace high); the joker has rank 0."""

    rank: int
    suit: Suit
    # rank * 4 + suit, the card's hash: computed once (cards key the core's duplicate check
    # on every card read, and IntEnum arithmetic is slow code in the compiled core)
    _key: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_key", self.rank * 4 + self.suit)

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse "As", "td", "10h" or "Jk" (joker)."""
        s = text.strip()
        if s.lower() in ("jk", "joker", "xx"):
            return JOKER
        if len(s) == 3 and s[:2] == "10":
            s = "T" + s[2]
        if len(s) != 2:
            raise BadCard(f"card {text!r}: expected rank and suit like 'As' or 'Td'")
        r = RANKS.find(s[0].upper())
        if r < 0:
            raise BadCard(f"card {text!r}: unknown rank {s[0]!r} (expected one of {RANKS})")
        suit = _SUIT_BY_LETTER.get(s[1].lower())
        if suit is None:
            raise BadCard(f"card {text!r}: unknown suit {s[1]!r} (expected one of s h d c)")
        return cls(r + 2, suit)

    @property
    def code(self) -> int:
        """``rank * 4 + suit``: 8..59 for the 52 standard cards (0..3 for the joker)."""
        return self._key

    @property
    def is_joker(self) -> bool:
        return self.rank == 0

    def __hash__(self) -> int:
        # Consistent with the generated equality (rank and suit); the generated hash hashed a
        # tuple holding the Suit, and Enum.__hash__ is Python code.
        return self._key

    def __str__(self) -> str:
        if self.is_joker:
            return "Jk"
        return RANKS[self.rank - 2] + self.suit.letter

    def __repr__(self) -> str:
        return f"Card({self})"


JOKER: Final = Card(0, Suit.CLUBS)

STANDARD_DECK: Final[tuple[Card, ...]] = tuple(Card(r, s) for s in Suit for r in range(2, 15))


def known_cards(card_of: dict[str, Card | None], tags: list[str]) -> list[Card]:
    """The cards of ``tags``, in order; a tag of no registered deck (no card) is left out.
    (A dict and a list, not any mapping and iterable: the compiled core then reads them
    natively instead of through method calls.)"""
    out: list[Card] = []
    for t in tags:
        c = card_of.get(t)
        if c is not None:
            out.append(c)
    return out


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse a run of cards with or without spaces: "AsKd", "As Kd", "As,Kd"."""
    s = text.replace(",", "").replace(" ", "")
    if len(s) % 2:
        raise BadCard(f"cards {text!r}: odd number of characters")
    return tuple(Card.parse(s[i : i + 2]) for i in range(0, len(s), 2))
