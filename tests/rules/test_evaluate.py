"""controller.rules.evaluate: known hands, properties, and differential tests (pokerkit, treys)."""

from __future__ import annotations

import ast
import random
from itertools import pairwise, permutations
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules import evaluate as ev
from controller.rules.cards import JOKER, STANDARD_DECK, Card, Suit, parse_cards
from controller.rules.errors import BadCard, BadInput
from controller.rules.evaluate import (
    HandCategory,
    HandValue,
    evaluate,
    score,
    score_label,
    to_treys,
    winners,
)

C = HandCategory

KNOWN = [
    ("AsKsQsJsTs9s2c", C.STRAIGHT_FLUSH, "Royal flush", "AsKsQsJsTs"),
    ("9h8h7h6h5h4h3h", C.STRAIGHT_FLUSH, "Straight flush, nine high", "9h8h7h6h5h"),
    ("5d4d3d2dAdKdKh", C.STRAIGHT_FLUSH, "Straight flush, five high", "5d4d3d2dAd"),
    ("AsAdAhAc2c3d4d", C.FOUR_OF_A_KIND, "Four of a kind, aces", "AsAhAdAc4d"),
    ("7s7h7d7cKsKhKd", C.FOUR_OF_A_KIND, "Four of a kind, sevens", "7s7h7d7cKs"),
    ("KsKdKh7c7d2c3d", C.FULL_HOUSE, "Full house, kings full of sevens", "KsKhKd7d7c"),
    ("QcQdQh2s2d2c9h", C.FULL_HOUSE, "Full house, queens full of deuces", "QhQdQc2s2d"),
    ("AsJs9s5s2s2c3d", C.FLUSH, "Flush, ace high", "AsJs9s5s2s"),
    ("Kc9c8c7c5c4c6h", C.FLUSH, "Flush, king high", "Kc9c8c7c5c"),
    ("5d4c3h2sAcKdKh", C.STRAIGHT, "Straight, five high", "5d4c3h2sAc"),
    ("AhKdQcJsTh9h8h", C.STRAIGHT, "Straight, ace high", "AhKdQcJsTh"),
    ("7s7d7h2c3d9dJh", C.THREE_OF_A_KIND, "Three of a kind, sevens", "7s7h7dJh9d"),
    ("AsAdKsKdQcQh2c", C.TWO_PAIR, "Two pair, aces and kings", "AsAdKsKdQh"),
    ("TsTd3c5h8dJcQs", C.PAIR, "Pair of tens", "TsTdQsJc8d"),
    ("As3d5c7h9dJcQs", C.HIGH_CARD, "High card, ace", "AsQsJc9d7h"),
    ("7h5d4c3s2h", C.HIGH_CARD, "High card, seven", "7h5d4c3s2h"),
    ("8h8d4c3s2h9c", C.PAIR, "Pair of eights", "8h8d9c4c3s"),
]


@pytest.mark.parametrize(("text", "category", "description", "five"), KNOWN)
def test_known_hands(text: str, category: HandCategory, description: str, five: str) -> None:
    value = evaluate(parse_cards(text))
    assert value.category is category
    assert value.name == category.label
    assert value.description == description
    assert value.best_five == parse_cards(five)


def test_category_names() -> None:
    assert [c.label for c in sorted(HandCategory, reverse=True)] == [
        "Straight flush", "Four of a kind", "Full house", "Flush", "Straight",
        "Three of a kind", "Two pair", "Pair", "High card",
    ]  # fmt: skip


def test_known_hands_are_ordered_by_category_then_within() -> None:
    values = [evaluate(parse_cards(t)) for t, *_ in KNOWN]
    for a in values:
        for b in values:
            if a.category != b.category:
                assert (a < b) == (a.category < b.category)
    royal, nine_sf, wheel_sf = values[:3]
    assert royal > nine_sf > wheel_sf
    assert royal.score == 7462
    assert evaluate(parse_cards("7h5d4c3s2h")).score == 1  # the worst five-card hand


def test_value_equality_ignores_suits_and_kickers_beyond_five() -> None:
    a = evaluate(parse_cards("AsKdQh9c8s3d2h"))
    b = evaluate(parse_cards("AhKcQd9s8h4c2c"))
    assert a == b and hash(a) == hash(b)
    assert a.best_five != b.best_five
    nine_kicker = (*parse_cards("AsKdQh9c"), Card(9, Suit.HEARTS))
    assert evaluate(parse_cards("AsKdQh9c8s3d2h")) < evaluate(nine_kicker)


def test_kicker_decides() -> None:
    board = parse_cards("AsAd7c5h2d")
    assert winners({1: parse_cards("Kc3c"), 2: parse_cards("Qc3d")}, board) == [1]
    # Both play A A K 7 5: the 3 and the 4 do not count.
    assert winners({1: parse_cards("Kc3c"), 2: parse_cards("Kh4d")}, board) == [1, 2]


def test_winners_split_and_board_plays() -> None:
    board = parse_cards("AsKsQsJsTs")
    seats = {4: parse_cards("2c3c"), 1: parse_cards("2d3d"), 7: parse_cards("4h5h")}
    assert winners(seats, board) == [1, 4, 7]
    seats = {3: parse_cards("AhAd"), 5: parse_cards("7c2d")}
    assert winners(seats, parse_cards("Ac9s8h4d3c")) == [3]
    assert winners({}, board) == []


def test_jokers_are_never_evaluated() -> None:
    with pytest.raises(BadCard, match="joker"):
        evaluate([*parse_cards("AsKsQsJs"), JOKER])
    with pytest.raises(BadCard):
        winners({1: (JOKER, Card(14, Suit.SPADES))}, parse_cards("2c3d4h5s9c"))
    with pytest.raises(BadCard):
        to_treys(JOKER)
    with pytest.raises(BadCard):
        score([Card(15, Suit.SPADES), *parse_cards("2c3d4h5s")])
    with pytest.raises(BadCard):
        score([Card(-1, Suit.SPADES), *parse_cards("2c3d4h5s")])


def test_bad_counts_and_duplicates() -> None:
    with pytest.raises(BadInput, match="5 to 7"):
        evaluate(parse_cards("AsKsQsJs"))
    with pytest.raises(BadInput, match="5 to 7"):
        evaluate(parse_cards("AsKsQsJsTs9s8s7s"))
    with pytest.raises(BadCard, match="duplicate card"):
        evaluate(parse_cards("AsAsQsJsTs"))


def test_to_treys_matches_treys_strings() -> None:
    from treys import Card as TreysCard

    for card in STANDARD_DECK:
        assert to_treys(card) == TreysCard.new(str(card))


def test_module_is_pure() -> None:
    forbidden = {"asyncio", "serial", "gpiozero", "smartcard", "aiomqtt", "sqlite3", "time",
                 "random", "socket"}  # fmt: skip
    tree = ast.parse(Path(ev.__file__).read_text())
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert "treys" in imported
    assert not imported & forbidden


# -- properties ---------------------------------------------------------------------------

hands_5_to_7 = st.integers(5, 7).flatmap(
    lambda n: st.lists(st.sampled_from(STANDARD_DECK), min_size=n, max_size=n, unique=True)
)


@settings(max_examples=400, deadline=None)
@given(hands_5_to_7, st.randoms(use_true_random=False))
def test_order_invariance(cards: list[Card], rnd: random.Random) -> None:
    value = evaluate(cards)
    shuffled = list(cards)
    rnd.shuffle(shuffled)
    again = evaluate(shuffled)
    assert again == value
    assert again.category is value.category
    assert again.best_five == value.best_five
    assert score(shuffled) == value.score


@settings(max_examples=400, deadline=None)
@given(hands_5_to_7)
def test_score_label_is_the_evaluated_name(cards: list[Card]) -> None:
    # the showdown names the winning hand from its score alone (showdown.award)
    value = evaluate(cards)
    assert score_label(score(cards)) == value.name == value.category.label


def test_score_label_at_every_category_boundary() -> None:
    for text, name in [
        ("As Ks Qs Js Ts", "Straight flush"),
        ("5d 4d 3d 2d Ad", "Straight flush"),
        ("As Ah Ad Ac Ks", "Four of a kind"),
        ("2s 2h 2d 3c 3s", "Full house"),
        ("As Qs 9s 5s 3s", "Flush"),
        ("5c 4d 3h 2s Ad", "Straight"),
        ("7c 7d 7h 2s 3d", "Three of a kind"),
        ("7c 7d 3h 3s 2d", "Two pair"),
        ("2c 2d 3h 4s 5d", "Pair"),
        ("7c 5d 4h 3s 2d", "High card"),
    ]:
        assert score_label(score(parse_cards(text))) == name, text


@settings(max_examples=400, deadline=None)
@given(hands_5_to_7)
def test_best_five_is_a_subset_and_scores_the_same(cards: list[Card]) -> None:
    value = evaluate(cards)
    assert len(value.best_five) == 5
    assert len(set(value.best_five)) == 5
    assert set(value.best_five) <= set(cards)
    five_value = evaluate(value.best_five)
    assert five_value.score == value.score
    assert five_value.best_five == value.best_five
    # No other five of the input beats it.
    from itertools import combinations

    assert all(evaluate(c) <= value for c in combinations(cards, 5))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(STANDARD_DECK), min_size=11, max_size=11, unique=True))
def test_winners_is_the_argmax(cards: list[Card]) -> None:
    board, holes = cards[:5], {2: cards[5:7], 5: cards[7:9], 9: cards[9:11]}
    values = {seat: evaluate([*hole, *board]) for seat, hole in holes.items()}
    best = max(values.values())
    assert winners(holes, board) == sorted(s for s, v in values.items() if v == best)


def test_five_card_permutations_small_exhaustive() -> None:
    cards = parse_cards("Ah2h3h4h5h")
    values = {evaluate(p) for p in permutations(cards)}
    assert len(values) == 1
    assert next(iter(values)).description == "Straight flush, five high"


# -- differential ---------------------------------------------------------------------------


def _pokerkit_table() -> dict[Card, object]:
    from pokerkit.utilities import Card as PkCard

    return {c: next(iter(PkCard.parse(str(c)))) for c in STANDARD_DECK}


_PK_LABEL = {
    "HIGH_CARD": C.HIGH_CARD, "ONE_PAIR": C.PAIR, "TWO_PAIR": C.TWO_PAIR,
    "THREE_OF_A_KIND": C.THREE_OF_A_KIND, "STRAIGHT": C.STRAIGHT, "FLUSH": C.FLUSH,
    "FULL_HOUSE": C.FULL_HOUSE, "FOUR_OF_A_KIND": C.FOUR_OF_A_KIND,
    "STRAIGHT_FLUSH": C.STRAIGHT_FLUSH,
}  # fmt: skip


def _against_pokerkit(deals: int) -> tuple[set[HandCategory], dict[int, int]]:
    """``deals`` showdowns on a shared board (seeded): each pair of seven-card hands ordered
    and categorised as pokerkit does; the categories met and the outcomes (-1, 0, 1)."""
    from pokerkit import StandardHighHand

    pk = _pokerkit_table()
    rng = random.Random(0xC0FFEE)
    seen: set[HandCategory] = set()
    outcomes = {-1: 0, 0: 0, 1: 0}
    for _ in range(deals):
        cards = rng.sample(STANDARD_DECK, 9)
        board, a, b = cards[:5], cards[5:7], cards[7:9]
        ours_a, ours_b = evaluate([*a, *board]), evaluate([*b, *board])
        pk_board = [pk[c] for c in board]
        pk_a = StandardHighHand.from_game([pk[c] for c in a], pk_board)
        pk_b = StandardHighHand.from_game([pk[c] for c in b], pk_board)
        ours = (ours_a > ours_b) - (ours_a < ours_b)
        theirs = (pk_a > pk_b) - (pk_a < pk_b)
        assert ours == theirs, (board, a, b, ours_a, ours_b, pk_a, pk_b)
        assert ours_a.category is _PK_LABEL[pk_a.entry.label.name], (a, board, pk_a)
        assert ours_b.category is _PK_LABEL[pk_b.entry.label.name], (b, board, pk_b)
        seen.add(ours_a.category)
        outcomes[ours] += 1
    return seen, outcomes


# pokerkit's evaluator is the time here (ours does 100,000 hands in ~3 s, treys' test
# below): at load 8 on the 2-core machine 20,000 hands took 12 s and 100,000 took 55 s,
# which under the suite's workers at load 10+ ran past its 180 s timeout. The README suite
# runs 20,000 hands (the first 10,000 deals of the same seeded run), which meet every
# category (2 straight flushes, 9 quads) and 399 splits; the 100,000 are ``-m slow``.
def test_differential_against_pokerkit_20k_hands() -> None:
    """10,000 showdowns on a shared board: 20,000 seven-card hands, pair order and category."""
    seen, outcomes = _against_pokerkit(10_000)
    assert seen == set(HandCategory)  # every category met at least once
    assert min(outcomes.values()) > 200  # wins, losses and splits all exercised


@pytest.mark.slow  # 100,000 hands of pokerkit: the README suite runs the 20,000 above
@pytest.mark.timeout(900)
def test_differential_against_pokerkit_100k_hands() -> None:
    """50,000 showdowns on a shared board: 100,000 seven-card hands, pair order and category."""
    seen, outcomes = _against_pokerkit(50_000)
    assert seen == set(HandCategory)
    assert min(outcomes.values()) > 1000


def test_differential_against_treys_evaluator() -> None:
    """treys' own evaluator on 100,000 random 5-, 6- and 7-card hands: same rank exactly."""
    from treys import Evaluator

    evaluator = Evaluator()
    rng = random.Random(7)
    for i in range(100_000):
        cards = rng.sample(STANDARD_DECK, 5 + i % 3)
        ints = [to_treys(c) for c in cards]
        expected = evaluator.evaluate(ints[:2], ints[2:])
        assert score(cards) == 7463 - expected, cards


def test_total_order_of_every_five_card_class_count() -> None:
    """All 2,598,960 five-card hands would be slow; the 7,462 distinct values are known, so the
    scores met in 60,000 random five-card hands must lie in 1..7462 and follow the category."""
    rng = random.Random(11)
    bounds: dict[HandCategory, tuple[int, int]] = {}
    for _ in range(60_000):
        v = evaluate(rng.sample(STANDARD_DECK, 5))
        assert 1 <= v.score <= 7462
        lo, hi = bounds.get(v.category, (v.score, v.score))
        bounds[v.category] = (min(lo, v.score), max(hi, v.score))
    ordered = sorted(bounds.items())
    for (_, (_, hi)), (_, (lo, _)) in pairwise(ordered):
        assert hi < lo


def test_handvalue_is_frozen() -> None:
    value = evaluate(parse_cards("AsKsQsJsTs"))
    assert isinstance(value, HandValue)
    with pytest.raises(AttributeError):
        value.score = 1  # type: ignore[misc]


def test_the_memo_stops_growing_at_its_limit_and_answers_stay_right() -> None:
    from treys import Evaluator

    saved = dict(ev._UNSUITED_BEST)
    try:
        ev._UNSUITED_BEST.clear()
        # filled to the limit with keys no hand has (a product of primes is positive)
        ev._UNSUITED_BEST.update({-k: 0 for k in range(1, ev._MEMO_LIMIT + 1)})
        rnd = random.Random(23)
        treys = Evaluator()
        for _ in range(300):
            cards = rnd.sample(STANDARD_DECK, 7)
            want = treys.evaluate([to_treys(c) for c in cards[:2]],
                                  [to_treys(c) for c in cards[2:]])  # fmt: skip
            assert score(cards) == score(evaluate(cards).best_five)
            assert ev._treys_rank([c.rank * 4 + c.suit for c in cards]) == want
        assert len(ev._UNSUITED_BEST) == ev._MEMO_LIMIT
    finally:
        ev._UNSUITED_BEST.clear()
        ev._UNSUITED_BEST.update(saved)
