"""Texas hold'em hand evaluation: the best five of five, six or seven cards.

Built on the lookup tables of ``treys`` (Cactus Kev's prime-product scheme, MIT, pure Python).
treys ranks a five-card hand 1 (royal flush) .. 7462 (7-5-4-3-2 offsuit), lower is better;
:class:`HandValue` turns that round, ``score = 7463 - treys_rank``, so a larger score wins.

Speed (the showdown is the hot path of hand replay):

- ``Card`` -> treys int goes through a precomputed table indexed by ``rank * 4 + suit``.
- Five or more cards of one suit leave only flushes and straight flushes possible in at most
  seven cards (quads or a full house need at least three suits), so the suited cards alone are
  looked up in a table of every 5-rank set built at import (1,287 entries; six or seven
  suited cards, 0.2 % of seven-card hands, are looked up five at a time).
- Otherwise suits do not matter: the best five depends only on the multiset of ranks, whose
  prime product is memoised (73,775 distinct rank multisets of 5, 6 and 7 cards at most).

The module is pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from itertools import combinations
from typing import Final

from treys import Card as TreysCard
from treys.lookup import LookupTable

from controller.rules.cards import Card, Suit
from controller.rules.errors import BadCard, BadInput

__all__ = [
    "HandCategory",
    "HandValue",
    "evaluate",
    "score",
    "score_label",
    "to_treys",
    "winners",
]


class HandCategory(IntEnum):
    """Hand categories, higher is better."""

    HIGH_CARD = 1
    PAIR = 2
    TWO_PAIR = 3
    THREE_OF_A_KIND = 4
    STRAIGHT = 5
    FLUSH = 6
    FULL_HOUSE = 7
    FOUR_OF_A_KIND = 8
    STRAIGHT_FLUSH = 9

    @property
    def label(self) -> str:
        """Rank name as a dealer says it: "Straight flush", "Four of a kind", "High card"."""
        return _LABELS[self]


_LABELS: Final = {
    HandCategory.HIGH_CARD: "High card",
    HandCategory.PAIR: "Pair",
    HandCategory.TWO_PAIR: "Two pair",
    HandCategory.THREE_OF_A_KIND: "Three of a kind",
    HandCategory.STRAIGHT: "Straight",
    HandCategory.FLUSH: "Flush",
    HandCategory.FULL_HOUSE: "Full house",
    HandCategory.FOUR_OF_A_KIND: "Four of a kind",
    HandCategory.STRAIGHT_FLUSH: "Straight flush",
}

_WORST: Final[int] = int(LookupTable.MAX_HIGH_CARD)  # 7462
# Upper bound of treys ranks (inclusive) -> category; treys' "royal flush" is a straight flush.
_BOUNDS: Final[tuple[tuple[int, HandCategory], ...]] = (
    (LookupTable.MAX_STRAIGHT_FLUSH, HandCategory.STRAIGHT_FLUSH),
    (LookupTable.MAX_FOUR_OF_A_KIND, HandCategory.FOUR_OF_A_KIND),
    (LookupTable.MAX_FULL_HOUSE, HandCategory.FULL_HOUSE),
    (LookupTable.MAX_FLUSH, HandCategory.FLUSH),
    (LookupTable.MAX_STRAIGHT, HandCategory.STRAIGHT),
    (LookupTable.MAX_THREE_OF_A_KIND, HandCategory.THREE_OF_A_KIND),
    (LookupTable.MAX_TWO_PAIR, HandCategory.TWO_PAIR),
    (LookupTable.MAX_PAIR, HandCategory.PAIR),
    (LookupTable.MAX_HIGH_CARD, HandCategory.HIGH_CARD),
)


def _category_of_treys_rank(rank: int) -> HandCategory:
    for bound, category in _BOUNDS:
        if rank <= bound:
            return category
    raise AssertionError(f"treys rank {rank} out of range")  # pragma: no cover


# treys suit letter for our Suit values (clubs=0, diamonds=1, hearts=2, spades=3).
_TREYS_SUIT: Final = "cdhs"
_RANK_CHARS: Final = "23456789TJQKA"

# Precomputed conversion: index rank * 4 + suit (ranks 2..14) -> treys int; 0 = not a card.
_TREYS_BY_CODE: Final[list[int]] = [0] * (15 * 4)
_CARD_BY_CODE: Final[list[Card | None]] = [None] * (15 * 4)
for _r in range(2, 15):
    for _s in Suit:
        _code = _r * 4 + int(_s)
        _TREYS_BY_CODE[_code] = TreysCard.new(_RANK_CHARS[_r - 2] + _TREYS_SUIT[_s])
        _CARD_BY_CODE[_code] = Card(_r, _s)
_PRIME_BY_CODE: Final[list[int]] = [t & 0xFF for t in _TREYS_BY_CODE]

_TABLE: Final = LookupTable()
_UNSUITED: Final[dict[int, int]] = _TABLE.unsuited_lookup  # five-card prime product -> treys rank


def _bits_prime_product(bits: int) -> int:
    product = 1
    for i in range(13):
        if bits >> i & 1:
            product *= TreysCard.PRIMES[i]
    return product


def _build_flush_table() -> dict[int, tuple[int, int]]:
    """Rank bitmask of 5 suited cards -> (treys rank, the same bitmask). Six or seven suited
    cards (0.2 % of seven-card hands) are looked up five at a time (:func:`_flush_best`):
    their 3,432 entries cost 0.6 MB of the daemon's memory and most of this build."""
    table: dict[int, tuple[int, int]] = {}
    for combo5 in combinations(range(13), 5):
        bits = sum(1 << i for i in combo5)
        table[bits] = (_TABLE.flush_lookup[_bits_prime_product(bits)], bits)
    return table


_FLUSH: Final[dict[int, tuple[int, int]]] = _build_flush_table()

# Memo for hands without a flush: prime product of all cards -> treys rank | best-five product
# << 13, packed in one int (~100 bytes an entry; 73,775 products in all, ~7 MB fully warm).
# It keeps at most _MEMO_LIMIT entries (~1.6 MB): a table adds about three a hand (200 demo
# hands: 618), so it fills only after thousands of hands, and a product not kept costs one
# search of its 21 five-card combinations (a few µs) at each showdown that meets it.
_UNSUITED_BEST: Final[dict[int, int]] = {}
_MEMO_LIMIT: Final = 16_384
_COMBOS: Final = {n: tuple(combinations(range(n), 5)) for n in (5, 6, 7)}


def _flush_best(bits: int) -> tuple[int, int]:
    """(best treys rank, bitmask of the best five) of the 5, 6 or 7 suited ranks ``bits``."""
    hit = _FLUSH.get(bits)
    if hit is not None:
        return hit
    ones = [1 << i for i in range(13) if bits >> i & 1]
    best = (_WORST + 1, 0)
    for a, b, c, d, e in _COMBOS[len(ones)]:
        bits5 = ones[a] | ones[b] | ones[c] | ones[d] | ones[e]
        rank = _FLUSH[bits5][0]
        if rank < best[0]:
            best = (rank, bits5)
    return best


def _unsuited_best(primes: list[int], product: int) -> int:
    n = len(primes)
    if n == 5:
        best = (_UNSUITED[product], product)
    else:
        best = (_WORST + 1, 0)
        for a, b, c, d, e in _COMBOS[n]:
            p5 = primes[a] * primes[b] * primes[c] * primes[d] * primes[e]
            rank = _UNSUITED.get(p5)
            if rank is None:  # five of a rank: impossible with distinct cards
                continue
            if rank < best[0]:
                best = (rank, p5)
    packed = best[0] | best[1] << 13
    if len(_UNSUITED_BEST) < _MEMO_LIMIT:
        _UNSUITED_BEST[product] = packed
    return packed


def _codes(cards: Sequence[Card]) -> list[int]:
    n = len(cards)
    if not 5 <= n <= 7:
        raise BadInput(f"hand evaluation needs 5 to 7 cards, got {n}")
    try:
        # Card.code (rank * 4 + suit, kept with the card): the sum itself is IntEnum
        # arithmetic, a generic call per card in the compiled core
        codes = [c.code for c in cards]
        for code in codes:
            if code < 8 or not _TREYS_BY_CODE[code]:
                raise IndexError
    except (IndexError, AttributeError, TypeError):
        for c in cards:
            _codes_one(c)
        raise BadCard(f"cannot evaluate {list(cards)!r}") from None
    seen = 0  # the codes (8..59) as bits: a duplicate without building a set
    for code in codes:
        bit = 1 << code
        if seen & bit:
            dup = sorted({str(c) for c in cards if cards.count(c) > 1})
            raise BadCard(f"duplicate card(s) {', '.join(dup)} in hand")
        seen |= bit
    return codes


def _best(codes: list[int]) -> tuple[int, tuple[int, ...]]:
    """(treys rank, codes of the best five) for 5..7 distinct card codes."""
    suit_counts = [0, 0, 0, 0]
    for code in codes:
        suit_counts[code & 3] += 1
    for suit, count in enumerate(suit_counts):
        if count >= 5:
            suited = [code for code in codes if code & 3 == suit]
            bits = 0
            for code in suited:
                bits |= 1 << ((code >> 2) - 2)
            rank, bits5 = _flush_best(bits)
            return rank, tuple(c for c in suited if bits5 >> ((c >> 2) - 2) & 1)
    primes = [_PRIME_BY_CODE[c] for c in codes]
    product = 1
    for p in primes:
        product *= p
    packed = _UNSUITED_BEST.get(product) or _unsuited_best(primes, product)
    rank, p5 = packed & 0x1FFF, packed >> 13
    rest = product // p5  # primes of the cards left out
    five: list[int] = []
    for code in sorted(codes):  # canonical: of a rank left out, drop the lowest suits first
        p = _PRIME_BY_CODE[code]
        if rest != 1 and rest % p == 0:
            rest //= p
        else:
            five.append(code)
    return rank, tuple(five)


def _treys_rank(codes: list[int]) -> int:
    """The treys rank only (no best five): the hot path of :func:`winners`."""
    suit_counts = [0, 0, 0, 0]
    for code in codes:
        suit_counts[code & 3] += 1
    for suit, count in enumerate(suit_counts):
        if count >= 5:
            bits = 0
            for code in codes:
                if code & 3 == suit:
                    bits |= 1 << ((code >> 2) - 2)
            return _flush_best(bits)[0]
    primes = [_PRIME_BY_CODE[c] for c in codes]
    product = 1
    for p in primes:
        product *= p
    hit = _UNSUITED_BEST.get(product)
    return (hit or _unsuited_best(primes, product)) & 0x1FFF


def to_treys(card: Card) -> int:
    """The treys integer of ``card`` (raises :class:`BadCard` for a joker)."""
    code = _codes_one(card)
    return _TREYS_BY_CODE[code]


def _codes_one(card: Card) -> int:
    if not isinstance(card, Card):
        raise BadCard(f"cannot evaluate {card!r}: not a Card")
    if card.is_joker:
        raise BadCard("cannot evaluate a joker: jokers are never evaluated")
    if not 2 <= card.rank <= 14:
        raise BadCard(f"cannot evaluate a card of rank {card.rank}: ranks are 2..14")
    return card.rank * 4 + card.suit


_RANK_WORD: Final = {
    2: ("deuce", "deuces"), 3: ("three", "threes"), 4: ("four", "fours"),
    5: ("five", "fives"), 6: ("six", "sixes"), 7: ("seven", "sevens"),
    8: ("eight", "eights"), 9: ("nine", "nines"), 10: ("ten", "tens"),
    11: ("jack", "jacks"), 12: ("queen", "queens"), 13: ("king", "kings"),
    14: ("ace", "aces"),
}  # fmt: skip


@dataclass(frozen=True, slots=True, order=True)
class HandValue:
    """The value of a hand. Ordering and equality use ``score`` only: higher is better."""

    score: int
    category: HandCategory = field(compare=False)
    name: str = field(compare=False)
    best_five: tuple[Card, ...] = field(compare=False)

    @property
    def description(self) -> str:
        """ "Full house, kings full of sevens", "Straight, five high", "Royal flush"..."""
        return _describe(self.category, self.best_five)


def _display_order(five: Sequence[int]) -> tuple[Card, ...]:
    """Best five most significant first: by count of the rank, then rank; wheel as 5-4-3-2-A."""
    counts: dict[int, int] = {}
    for code in five:
        counts[code >> 2] = counts.get(code >> 2, 0) + 1
    ordered = sorted(five, key=lambda c: (counts[c >> 2], c >> 2, c & 3), reverse=True)
    ranks = [c >> 2 for c in ordered]
    if ranks == [14, 5, 4, 3, 2]:
        ordered = [*ordered[1:], ordered[0]]
    return tuple(_CARD_BY_CODE[c] or Card(0, Suit.CLUBS) for c in ordered)


def _describe(category: HandCategory, five: tuple[Card, ...]) -> str:
    r = [c.rank for c in five]
    one, many = _RANK_WORD[r[0]][0], _RANK_WORD[r[0]][1]
    match category:
        case HandCategory.STRAIGHT_FLUSH:
            return "Royal flush" if r[0] == 14 else f"Straight flush, {one} high"
        case HandCategory.FOUR_OF_A_KIND:
            return f"Four of a kind, {many}"
        case HandCategory.FULL_HOUSE:
            return f"Full house, {many} full of {_RANK_WORD[r[3]][1]}"
        case HandCategory.FLUSH:
            return f"Flush, {one} high"
        case HandCategory.STRAIGHT:
            return f"Straight, {one} high"
        case HandCategory.THREE_OF_A_KIND:
            return f"Three of a kind, {many}"
        case HandCategory.TWO_PAIR:
            return f"Two pair, {many} and {_RANK_WORD[r[2]][1]}"
        case HandCategory.PAIR:
            return f"Pair of {many}"
        case _:
            return f"High card, {one}"


def evaluate(cards: Sequence[Card]) -> HandValue:
    """Value of the best five of ``cards`` (five, six or seven distinct non-joker cards).

    Raises :class:`BadCard` for a joker or a duplicate, :class:`BadInput` for a wrong count.
    """
    rank, five = _best(_codes(cards))
    category = _category_of_treys_rank(rank)
    return HandValue(_WORST + 1 - rank, category, category.label, _display_order(five))


def score(cards: Sequence[Card]) -> int:
    """Just the score of :func:`evaluate` (larger is better), without building the value."""
    return _WORST + 1 - _treys_rank(_codes(cards))


def score_label(value: int) -> str:
    """The rank name of a :func:`score` ("Full house"): ``evaluate(cards).name`` without
    evaluating again or building the value."""
    return _LABELS[_category_of_treys_rank(_WORST + 1 - value)]


def winners(hands: Mapping[int, Sequence[Card]], board: Sequence[Card]) -> list[int]:
    """Seats (keys of ``hands``) whose hole cards plus ``board`` tie for the best hand, sorted."""
    best = _WORST + 1
    seats: list[int] = []
    board_list = list(board)
    for seat, hole in hands.items():
        rank = _treys_rank(_codes([*hole, *board_list]))
        if rank < best:
            best, seats = rank, [seat]
        elif rank == best:
            seats.append(seat)
    return sorted(seats)
