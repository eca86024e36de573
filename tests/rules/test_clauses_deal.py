# mypy: disable-error-code="comparison-overlap"
# (properties such as Table.phase change between reads; mypy narrows them as constants)
"""Clause tests of the deal: order, wrong seats, counts, exposed/boxed cards, jokers, foreign
and duplicate cards, the misdeal window and the re-deal. Test names carry the clause ids of
../shared/reference/clause-inventory.md (rulebook file and section)."""

from __future__ import annotations

import pytest
from table_builder import PROFILES, Table

from controller.rules.decisions import AlertCode, Severity
from controller.rules.events import ConsoleButton, ZoneKind
from controller.rules.phases import Phase

A = AlertCode
MISDEAL = "misdeal"
REPLACE = "replace"


def dealt(t: Table, *seats: int) -> Table:
    for s in seats:
        t.hole(s)
    return t


def assert_misdeal(t: Table, code: AlertCode) -> None:
    a = t.alert(code)
    assert a.severity is Severity.CRITICAL
    assert "Misdeal" in a.remedy and "button and the blinds stay" in a.remedy
    assert t.phase in (Phase.MISDEAL, Phase.IDLE)


# ---------------------------------------------------------------- 000-S2-deal: order


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S2-deal", "000-S2-preflop", "003-OpeningDeal-order", "004-HE-2")
def test_000_S2_deal_003_OpeningDeal_order_clockwise_from_sb_no_alert(profile: str) -> None:
    """000 SECTION 2 THE DEAL [L67] / 003 Opening Deal [L85]: one card at a time from the
    first seat left of the button; a correct deal raises nothing and opens pre-flop betting
    left of the big blind (000-S2-preflop)."""
    t = Table(profile, 4, button=2).post_blinds()
    assert t.deal_order() == [3, 4, 1, 2]
    t.deal()
    assert t.alerts == []
    s = t.snap
    assert s.phase is Phase.BETTING
    assert (s.button, s.small_blind_seat, s.big_blind_seat, s.to_act) == (2, 3, 4, 1)
    assert s.pot == 150
    assert all(x.card_count == 2 for x in s.seats)


@pytest.mark.parametrize(
    "profile", [p for p in PROFILES if p not in ("club-003", "shaved-dog-004")]
)
@pytest.mark.clause("000-S3-misdeal-1h", "002-Misdeals-c")
def test_000_S3_misdeal_1h_first_card_to_wrong_seat(profile: str) -> None:
    """000 SECTION 3 MISDEALS bullet 8 [L115]; 002 Misdeals c); TDA 35-A: the first card to
    the wrong position is a misdeal. 003/004 name no remedy: the floor decides there
    (issue 13, tests/rules/test_floor.py)."""
    t = Table(profile, 4).post_blinds().hole(3)
    assert_misdeal(t, A.WRONG_FIRST_SEAT)
    assert "L115" in t.alert(A.WRONG_FIRST_SEAT).clause


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S3-misdeal-1i", "002-Misdeals-d")
def test_000_S3_misdeal_1i_card_to_empty_seat(profile: str) -> None:
    """000 MISDEALS bullet 9 [L116]; 002 Misdeals d): a card to an empty seat is a misdeal."""
    t = Table(profile, {1: 1000, 2: 1000, 3: 1000, 5: 1000}).post_blinds()
    dealt(t, 2, 3, 4)
    assert_misdeal(t, A.CARD_TO_EMPTY_SEAT)
    assert t.alert(A.CARD_TO_EMPTY_SEAT).seat == 4


@pytest.mark.parametrize(
    ("profile", "waits"),
    [
        ("tda-2024", True),  # SB to button: seat 1 (button) waits
        ("vistancia-002", True),
        ("a2c-000", True),  # BB to button
        ("roberts-rules", True),
        # shaved-dog-004: the button seat waits (TG-23), and the floor decides
        # (tests/rules/test_floor_entitlement.py)
        ("club-003", False),  # silent: dealt in at once
    ],
)
@pytest.mark.clause("000-S3-misdeal-1i", "000-S5-blinds-5", "002-Balance-1")
def test_000_S3_misdeal_1i_card_to_seat_not_entitled(profile: str, waits: bool) -> None:
    """000 MISDEALS bullet 9 [L116] + 000-S5-blinds-5 / 002-Balance-1 / 004-TG-23 (C16): a
    new player in the coming button seat waits; a card to him is a misdeal where he waits."""
    t = Table(profile, {2: 1000, 3: 1000, 4: 1000}, button=2)
    t.post_blinds().deal()
    t.call_round()
    t.flop().call_round().turn().call_round().river().call_round()
    assert t.phase is Phase.COMPLETE
    t.clear()
    # the next hand: button 3, SB 4, BB 2; seat 3 (the button) gets a new player
    t.unseat(3).seat(3, 1000, "newcomer")
    assert t.snap.button == 3
    t.mark().post_blinds()
    dealt(t, 4, 2, 3)
    if waits:
        assert_misdeal(t, A.CARD_TO_EMPTY_SEAT)
        assert "not entitled" in t.alert(A.CARD_TO_EMPTY_SEAT).remedy
    else:
        assert A.CARD_TO_EMPTY_SEAT not in t.codes


@pytest.mark.parametrize(
    ("profile", "first"),
    [
        ("tda-2024", A.OUT_OF_SEQUENCE),  # warned, then dealt out at the first action
        ("vistancia-002", A.OUT_OF_SEQUENCE),
        ("club-003", A.OUT_OF_SEQUENCE),
        # shaved-dog-004: the floor decides (tests/rules/test_floor_entitlement.py)
        ("a2c-000", None),  # out of sequence is already a misdeal
        ("roberts-rules", None),
    ],
)
@pytest.mark.clause("000-S3-misdeal-1f", "000-S3-misdeal-1j", "002-Misdeals-e")
def test_000_S3_misdeal_1j_002_Misdeals_e_entitled_seat_dealt_out(
    profile: str, first: AlertCode | None
) -> None:
    """000 MISDEALS bullet 10 [L117]; 002 Misdeals e): an entitled seat dealt out is a
    misdeal (found at the first action, G13). Under 000/Robert's the skip is already an
    out-of-sequence misdeal (000-S3-misdeal-1f)."""
    t = Table(profile, 4).post_blinds()
    dealt(t, 2, 3, 1)  # seat 4 skipped
    if first is None:
        assert_misdeal(t, A.OUT_OF_SEQUENCE)
        return
    a = t.alert(A.OUT_OF_SEQUENCE)
    assert a.severity is Severity.WARNING
    dealt(t, 2, 3, 1)
    t.chips(4, 100)  # seat 4 has no cards: its chips are refused
    t.chips(1, 100)  # under the gun acts: betting began with seat 4 dealt out
    assert_misdeal(t, A.SEAT_DEALT_OUT)
    assert t.alert(A.SEAT_DEALT_OUT).seat == 4


# ---------------------------------------------------------------- counts: C4


@pytest.mark.parametrize(
    ("profile", "ruling"),
    [
        ("a2c-000", "burn"),  # 000 IRREGULARITIES 2 [L134]
        ("roberts-rules", "burn"),
        ("shaved-dog-004", "burn"),  # 004 AR-5a
        ("tda-2024", MISDEAL),  # TDA 35-A wrong number of cards
        ("vistancia-002", MISDEAL),
        ("club-003", MISDEAL),  # 003 Dealer errors count a)
    ],
)
@pytest.mark.clause("000-S3-misdeal-1e", "004-AR-5a")
def test_000_S3_misdeal_1e_004_AR_5a_extra_card_to_first_player(profile: str, ruling: str) -> None:
    """C4: one extra card to the first player after the deal becomes the flop burn (000
    Irreg 2, 004 AR-5a); in TDA/002/003 any wrong count is a misdeal."""
    t = Table(profile, 4).post_blinds().deal().mark()
    t.hole(2, "9s")
    a = t.alert(A.EXTRA_HOLE_CARD)
    if ruling == MISDEAL:
        assert_misdeal(t, A.EXTRA_HOLE_CARD)
        return
    assert a.severity is Severity.WARNING
    assert "flop burn" in a.remedy and a.seat == 2
    t.remove("9s", ZoneKind.HOLE, 2)
    t.call_round().sweep().burn("9s").board("Ah", "Kh", "Qh")
    assert t.snap.street is not None and t.snap.street.name == "FLOP"
    assert t.codes == [A.EXTRA_HOLE_CARD]  # no wrong or missing burn


@pytest.mark.parametrize("profile", ["a2c-000", "shaved-dog-004"])
@pytest.mark.clause("000-S3-irreg-12b")
def test_000_S3_irreg_12b_extra_card_burn_must_be_that_card(profile: str) -> None:
    """000 IRREGULARITIES 2/12b; 004 AR-5a/AR-16: the returned extra card is the flop burn;
    burning another card is a wrong burn."""
    t = Table(profile, 4).post_blinds().deal().hole(2, "9s").mark()
    t.call_round().sweep().burn("8s")
    assert t.alert(A.WRONG_BURN).severity is Severity.WARNING
    assert "9s" in t.alert(A.WRONG_BURN).remedy


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S3-misdeal-1e")
def test_000_S3_misdeal_1e_extra_card_to_other_player_is_misdeal(profile: str) -> None:
    """000 IRREGULARITIES 2 [L134] (product decision): an extra card to anyone but the first
    player is a misdeal in every profile."""
    t = Table(profile, 4).post_blinds().deal().mark().hole(3, "9s")
    assert_misdeal(t, A.EXTRA_HOLE_CARD)


@pytest.mark.parametrize("profile", ["a2c-000", "roberts-rules", "shaved-dog-004"])
@pytest.mark.clause("000-S3-misdeal-1d", "004-AR-5b")
def test_000_S3_misdeal_1d_004_AR_5b_two_extra_cards(profile: str) -> None:
    """000 MISDEALS bullet 4 [L111]; 004 AR-5b: the first extra card to the first player is
    the burn, a second extra card is a misdeal (elsewhere the first one already is)."""
    t = Table(profile, 4).post_blinds().deal().mark().hole(2, "9s")
    assert t.phase is Phase.BETTING
    t.hole(2, "8s")
    assert t.alerts[-1].code is A.EXTRA_HOLE_CARD
    assert t.alerts[-1].severity is Severity.CRITICAL
    assert t.phase is Phase.MISDEAL


# ---------------------------------------------------------------- sequence: C5


@pytest.mark.parametrize(
    ("profile", "ruling"),
    [
        ("a2c-000", MISDEAL),  # 000 MISDEALS bullet 6 [L113]
        ("roberts-rules", MISDEAL),
        ("tda-2024", "warn"),
        ("vistancia-002", "warn"),
        ("club-003", "warn"),  # order described, no remedy
        ("shaved-dog-004", "note"),  # silent: a note (info), no misdeal
    ],
)
@pytest.mark.clause("000-S3-misdeal-1f")
def test_000_S3_misdeal_1f_out_of_sequence(profile: str, ruling: str) -> None:
    """C5: a card out of sequence (not on the button) is a misdeal under 000/Robert's, a
    warning elsewhere (the deal resynchronises and completes)."""
    t = Table(profile, 4).post_blinds()
    dealt(t, 2, 4)  # seat 3 skipped in the first round
    if ruling == MISDEAL:
        assert_misdeal(t, A.OUT_OF_SEQUENCE)
        return
    want = Severity.INFO if ruling == "note" else Severity.WARNING
    assert t.alert(A.OUT_OF_SEQUENCE).severity is want
    dealt(t, 3, 1, 2, 3, 4, 1)
    assert t.phase is Phase.BETTING
    assert t.codes == [A.OUT_OF_SEQUENCE]


@pytest.mark.parametrize(
    ("profile", "ruling"),
    [
        ("tda-2024", "ok"),  # 35-A: the button may receive two consecutive cards
        ("vistancia-002", "ok"),  # 002 [L105]
        ("a2c-000", MISDEAL),
        ("roberts-rules", MISDEAL),
        ("club-003", "warn"),
        ("shaved-dog-004", "warn"),
    ],
)
@pytest.mark.clause("002-Misdeals-button2")
def test_002_Misdeals_button2_two_consecutive_on_the_button(profile: str, ruling: str) -> None:
    """002 Misdeals [L105] 'two consecutive cards on the button' vs 000 MISDEALS bullet 6."""
    t = Table(profile, 4).post_blinds()
    dealt(t, 2, 3, 4, 1, 1)  # the button gets its second card at once
    if ruling == MISDEAL:
        assert_misdeal(t, A.OUT_OF_SEQUENCE)
        return
    dealt(t, 2, 3, 4)
    assert t.phase is Phase.BETTING
    assert t.codes == ([] if ruling == "ok" else [A.OUT_OF_SEQUENCE])


# ---------------------------------------------------------------- exposed cards: C1


EXPOSED_RULINGS = {
    # profile: ruling for exposing card 1, card 2, card 5 (in a 4-seat deal)
    "tda-2024": (MISDEAL, MISDEAL, REPLACE),
    "a2c-000": (MISDEAL, MISDEAL, REPLACE),  # 000 bullet 1: 1st or 2nd card
    "roberts-rules": (MISDEAL, REPLACE, REPLACE),  # the first card only
    "shaved-dog-004": (MISDEAL, REPLACE, REPLACE),  # 004 AR-1a / AR-1b
    "vistancia-002": (REPLACE, REPLACE, REPLACE),  # 002 a) needs both of the first two; G3
    "club-003": (MISDEAL, MISDEAL, MISDEAL),  # 003 Dealer errors: any exposed card
}


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("position", [1, 2, 5])
@pytest.mark.clause(
    "000-S3-irreg-8", "000-S3-misdeal-1a", "003-DealerErrors-exposed", "004-AR-1a", "004-AR-1b"
)
def test_000_S3_misdeal_1a_004_AR_1a_003_exposed_card_C1(profile: str, position: int) -> None:
    """C1: 000 MISDEALS bullet 1 [L108], 004 AR-1a/AR-1b, 002 Misdeals a) + G3, 003 Dealer
    errors [L191]: which exposed hole card is a misdeal, and which is replaced after the deal
    and becomes the flop burn."""
    t = Table(profile, 4).post_blinds()
    order = [2, 3, 4, 1, 2, 3, 4, 1]
    dealt(t, *order[:position])
    t.press(ConsoleButton.EXPOSED)
    ruling = EXPOSED_RULINGS[profile][{1: 0, 2: 1, 5: 2}[position]]
    a = t.alert(A.EXPOSED_CARD)
    if ruling == MISDEAL:
        assert_misdeal(t, A.EXPOSED_CARD)
        return
    assert a.severity is Severity.WARNING
    assert "flop burn" in a.remedy
    seat = order[position - 1]
    assert a.seat == seat and a.card is not None
    exposed = str(a.card)
    dealt(t, *order[position:])
    assert t.phase is Phase.DEALING  # waiting for the replacement
    t.remove(exposed, ZoneKind.HOLE, seat).hole(seat, "Kd")
    assert t.phase is Phase.BETTING
    assert "Kd" in [str(c) for c in t.snap.seat(seat).hole]
    t.call_round().sweep().burn(exposed).board("Ah", "Kh", "Qh")
    assert t.codes == [A.EXPOSED_CARD]
    assert t.phase is Phase.BETTING


@pytest.mark.parametrize(
    ("profile", "ruling"),
    [
        ("tda-2024", MISDEAL),  # 35-A any other 2 down cards
        ("a2c-000", MISDEAL),  # bullet 2 [L109]
        ("roberts-rules", MISDEAL),
        ("shaved-dog-004", MISDEAL),  # AR-1c
        ("vistancia-002", MISDEAL),  # b) two or more exposed
        ("club-003", MISDEAL),  # already at the first
    ],
)
@pytest.mark.clause("000-S3-misdeal-1b", "004-AR-1c")
def test_000_S3_misdeal_1b_004_AR_1c_two_exposed_cards(profile: str, ruling: str) -> None:
    """C1: two exposed hole cards (3rd and 5th dealt) are a misdeal in every profile."""
    t = Table(profile, 4).post_blinds()
    dealt(t, 2, 3, 4)
    t.press(ConsoleButton.EXPOSED)
    if profile == "club-003":
        assert_misdeal(t, A.EXPOSED_CARD)
        return
    dealt(t, 1, 2)
    t.press(ConsoleButton.EXPOSED)
    assert t.alerts[-1].code is A.EXPOSED_CARD
    assert t.alerts[-1].severity is Severity.CRITICAL
    assert t.phase is Phase.MISDEAL


@pytest.mark.clause("002-Misdeals-a", profiles=("vistancia-002",))
def test_002_Misdeals_a_both_of_first_two_exposed() -> None:
    """002 Misdeals a) [L105], read as both of the first two cards (product decision): one
    exposed card is replaced (G3), the second of the first two makes it a misdeal."""
    t = Table("vistancia-002", 4).post_blinds()
    dealt(t, 2)
    t.press(ConsoleButton.EXPOSED)
    assert t.phase is Phase.DEALING
    dealt(t, 3)
    t.press(ConsoleButton.EXPOSED)
    assert t.alerts[-1].severity is Severity.CRITICAL
    assert "002 Misdeals a)" in t.alerts[-1].clause
    assert t.phase is Phase.MISDEAL


# ---------------------------------------------------------------- boxed cards: C2, G2


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S3-misdeal-1c")
def test_000_S3_misdeal_1c_G2_one_boxed_card_replaced(profile: str) -> None:
    """G2: a single boxed card is replaced after the deal and becomes the flop burn."""
    t = Table(profile, 4).post_blinds()
    dealt(t, 2, 3, 4)
    t.press(ConsoleButton.BOXED)
    a = t.alert(A.BOXED_CARD)
    assert a.severity is Severity.WARNING and "G2" in a.clause and a.seat == 4


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S3-misdeal-1c")
def test_000_S3_misdeal_1c_two_boxed_cards_misdeal(profile: str) -> None:
    """000 MISDEALS bullet 3 [L110]; TDA 35-A; product decision: two boxed cards are a
    misdeal in every profile."""
    t = Table(profile, 4).post_blinds()
    dealt(t, 2, 3, 4)
    t.press(ConsoleButton.BOXED)
    dealt(t, 1)
    t.press(ConsoleButton.BOXED)
    assert t.alerts[-1].code is A.BOXED_CARD
    assert t.alerts[-1].severity is Severity.CRITICAL
    assert t.phase is Phase.MISDEAL


@pytest.mark.parametrize(
    ("profile", "together"),
    [
        ("vistancia-002", True),  # 002 b): "two or more exposed or boxed"
        ("a2c-000", False),  # counted apart
        ("tda-2024", False),
        ("roberts-rules", False),
        ("shaved-dog-004", False),
    ],
)
@pytest.mark.clause("002-Misdeals-b")
def test_002_Misdeals_b_exposed_plus_boxed_C2(profile: str, together: bool) -> None:
    """C2: one exposed (5th card) plus one boxed card: a misdeal only where they count
    together (002 Misdeals b)); elsewhere both are replaced."""
    t = Table(profile, 4).post_blinds()
    dealt(t, 2, 3, 4, 1, 2)
    t.press(ConsoleButton.EXPOSED)
    dealt(t, 3)
    t.press(ConsoleButton.BOXED)
    assert t.alerts[-1].code is A.BOXED_CARD
    if together:
        assert t.alerts[-1].severity is Severity.CRITICAL
        assert t.phase is Phase.MISDEAL
    else:
        assert t.alerts[-1].severity is Severity.WARNING
        assert t.phase is Phase.DEALING


# ---------------------------------------------------------------- joker, foreign, duplicate


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("003-DealerErrors-joker-a")
def test_003_DealerErrors_joker_a_vs_TDA_35A_joker(profile: str) -> None:
    """003 Dealer errors joker a) [L189]: a joker is replaced after the deal; TDA 35-A (and
    the other profiles): a non-standard card is a misdeal."""
    t = Table(profile, 4).post_blinds()
    dealt(t, 2)
    t.hole(3, "Jk")
    a = t.alert(A.JOKER)
    if profile == "club-003":
        assert a.severity is Severity.WARNING and "003" in a.clause
        dealt(t, 4, 1, 2, 3, 4, 1)
        assert t.phase is Phase.DEALING
        t.hole(3, "Kd")
        assert t.phase is Phase.BETTING
        assert "Jk" not in [str(c) for c in t.snap.seat(3).hole]
    else:
        assert_misdeal(t, A.JOKER)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("kind", ["foreign", "duplicate"])
@pytest.mark.clause("000-S3-irreg-4", "000-S3-irreg-5")
def test_000_S3_irreg_4_5_foreign_or_duplicate_card_voids(profile: str, kind: str) -> None:
    """000 IRREGULARITIES 4 [L136] (different back) and 5 [L137] (duplicate card): all action
    void, every chip returned (blinds included), stacks as before the hand."""
    t = Table(profile, 4).post_blinds().deal()
    t.chips(1, 300).chips(2, 250).mark()
    if kind == "foreign":
        t.foreign(3)
        code = A.FOREIGN_CARD
        if profile == "club-003":  # 003 names no foreign-card rule: the floor decides
            assert t.alert(code).severity is Severity.WARNING
            t.mark().badge("td-1").press(ConsoleButton.MISDEAL)
            assert A.FLOOR_DECISION in t.codes and t.phase is Phase.MISDEAL
            assert [x.stack for x in t.snap.seats] == [1000, 950, 900, 1000]  # blinds stay
            return
    else:
        dup = str(t.snap.seat(1).hole[0])  # type: ignore[union-attr]
        t.place(ZoneKind.HOLE, dup, "B-dup", seat=3)
        code = A.DUPLICATE_CARD
    assert t.alert(code).severity is Severity.CRITICAL
    assert t.alert(A.HAND_VOID).severity is Severity.CRITICAL
    assert t.phase is Phase.VOID
    assert [x.stack for x in t.snap.seats] == [1000] * 4
    assert t.snap.pot == 0
    assert t.snap.chips == 4000


# ---------------------------------------------------------------- the misdeal window: C3

# pre-flop actions after the blinds, 6 seats: button 1, SB 2, BB 3; seats 4, 5, 6 act
WINDOW = {
    # profile: is a misdeal still allowed after (two folds, fold+call, three folds)?
    "a2c-000": (False, False, False),  # two players after the blinds acted
    "roberts-rules": (False, False, False),
    "tda-2024": (True, False, False),  # substantial action (rule 36)
    "vistancia-002": (True, False, False),  # 002 Substantial Action [L109]
    "club-003": (False, False, False),  # before two players act
    "shaved-dog-004": (True, True, True),  # no cutoff stated: until the flop
}


def _window_actions(t: Table, case: int) -> None:
    if case == 0:
        t.fold(4).fold(5)
    elif case == 1:
        t.fold(4).chips(5, 100)
    else:
        t.fold(4).fold(5).fold(6)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("case", [0, 1, 2], ids=["two-folds", "fold-call", "three-folds"])
@pytest.mark.clause("000-S3-misdeal-window", "002-Misdeals-SA")
def test_000_S3_misdeal_window_002_SA_003_count_C3_misdeal_button(profile: str, case: int) -> None:
    """C3: 000 MISDEALS 1. [L118], 002 Substantial Action [L109] / TDA 36, 003 Dealer errors
    count a), 004 (none): MISDEAL from the console is accepted inside the window and refused
    after it (the hand plays on)."""
    t = Table(profile, 6).post_blinds().deal()
    _window_actions(t, case)
    t.mark().press(ConsoleButton.MISDEAL)
    if WINDOW[profile][case]:
        assert_misdeal(t, A.MISDEAL)
    else:
        a = t.alert(A.MISDEAL_REFUSED)
        assert a.severity is Severity.WARNING
        assert t.phase is Phase.BETTING


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S3-misdeal-window")
def test_000_S3_misdeal_window_blinds_do_not_count_G6(profile: str) -> None:
    """G6: the blinds never count as actions toward the cutoff: a misdeal right after the
    deal is allowed everywhere."""
    t = Table(profile, 6).post_blinds().deal().press(ConsoleButton.MISDEAL)
    assert_misdeal(t, A.MISDEAL)


@pytest.mark.parametrize("profile", [p for p in PROFILES if p != "shaved-dog-004"])
@pytest.mark.clause("000-S3-dead-1b", "003-DealerErrors-count-b")
def test_000_S3_dead_1b_003_count_b_wrong_count_after_window_dead_hand(profile: str) -> None:
    """000 DEAD HANDS bullet 3 [L125]; 003 Dealer errors count b): a wrong count found after
    the cutoff is refused as a misdeal and that hand is dead; its chips stay in the pot."""
    t = Table(profile, 6).post_blinds().deal()
    t.chips(4, 100).chips(5, 100).chips(6, 100)  # the window is closed in every profile
    t.mark().hole(3, "9s")  # an extra card to the big blind
    assert t.alert(A.MISDEAL_REFUSED).severity is Severity.WARNING
    dead = t.alert(A.DEAD_HAND)
    assert dead.seat == 3
    s = t.snap.seat(3)
    assert s is not None and not s.in_hand and s.committed == 100
    assert t.snap.pot == 450
    assert t.snap.chips == 6000


@pytest.mark.parametrize("profile", PROFILES)
def test_G1_misdeal_redeal_keeps_button_blinds_and_hand_number(profile: str) -> None:
    """G1 (product decision): after a misdeal the button and the posted blinds stay; the
    re-deal is the same hand number with a new deal number; a new level waits (G11)."""
    t = Table(profile, 4).post_blinds()
    before = t.snap
    t.misdeal_first_card(3)  # wrong first seat: misdeal
    t.level(100, 200)
    t.clear()
    assert t.phase is Phase.IDLE
    assert "button and blinds stay" in t.instructions[-1].text
    t.deal()
    s = t.snap
    assert (s.hand_no, s.deal_no) == (before.hand_no + 1, 2)
    assert (s.button, s.small_blind_seat, s.big_blind_seat) == (1, 2, 3)
    assert (s.small_blind, s.big_blind) == (50, 100)
    assert s.pot == 150
    assert s.chips == 4000


@pytest.mark.parametrize("profile", PROFILES)
def test_G1_misdeal_redeal_without_clearing_first(profile: str) -> None:
    """G1: the first card of the re-deal may be read before the old cards' removal (L5)."""
    t = Table(profile, 4).post_blinds().misdeal_first_card(3)
    t.deal()
    s = t.snap
    assert (s.hand_no, s.deal_no, s.phase) == (1, 2, Phase.BETTING)
    assert s.pot == 150


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S2-blinds-1")
def test_000_S2_blinds_1_blinds_not_posted(profile: str) -> None:
    """000 SECTION 2 THE BLINDS [L62]; 003 [L79]; 004 TG-3: a blind zone empty at the first
    card: alert, and the blind is posted from the stack."""
    t = Table(profile, 4).chips(2, 50)
    t.hole(2)
    a = t.alert(A.BLINDS_NOT_POSTED)
    assert a.seat == 3 and a.severity is Severity.WARNING
    assert t.snap.pot == 150
