# mypy: disable-error-code="comparison-overlap"
# (properties such as Table.phase change between reads; mypy narrows them as constants)
"""Clause tests of burns and board cards: missing and double burns (C9), the four-card flop
(C7), premature flop/turn/river (C8, K24), rabbit hunting (K2) and the sweep before the burn
(K11). Names carry the clause ids of the clause inventory (rulebook file and section)."""

from __future__ import annotations

import pytest
from table_builder import PROFILES, Table

from controller.rules.decisions import AlertCode, Severity
from controller.rules.events import ZoneKind
from controller.rules.phases import Phase, Street

A = AlertCode
REDEAL_FLOP = ("a2c-000", "roberts-rules", "club-003", "shaved-dog-004")
FOURTH_IS_BURN = ("tda-2024", "vistancia-002")
WOULD_BE_RIVER = ("a2c-000", "roberts-rules", "shaved-dog-004")


def preflop_done(profile: str, players: int = 3) -> Table:
    return Table(profile, players).post_blinds().deal().call_round().sweep()


def flop_dealt(profile: str) -> Table:
    return preflop_done(profile).burn("2d").board("Ah", "Kh", "Qh")


# ---------------------------------------------------------------- burns: C9


@pytest.mark.parametrize(
    ("profile", "words"),
    [
        ("a2c-000", "move Ah to the burn"),  # 000 IRREGULARITIES 12a: corrected
        ("roberts-rules", "move Ah to the burn"),
        ("shaved-dog-004", "move Ah to the burn"),  # 004 AR-16: proper positions
        ("tda-2024", "move Ah to the burn"),
        ("vistancia-002", "move Ah to the burn"),
        ("club-003", "reshuffle"),  # 003 Dealer errors burn [L195]
    ],
)
@pytest.mark.clause("000-S3-irreg-12a", "003-DealerErrors-burn", "004-AR-16")
def test_000_S3_irreg_12a_004_AR_16_003_burn_missing_burn(profile: str, words: str) -> None:
    """C9: a flop card dealt without a burn: the profile's correction, then the board."""
    t = preflop_done(profile).mark().board("Ah")
    a = t.alert(A.MISSING_BURN)
    assert a.severity is Severity.WARNING and words in a.remedy
    assert str(a.card) == "Ah"
    t.burn("Ah").board("Kh", "Qh", "Jh")
    assert t.snap.street is Street.FLOP and t.phase is Phase.BETTING
    assert [str(c) for c in t.snap.board] == ["Kh", "Qh", "Jh"]
    # 003 [L195] names no correction: moving the card to the burn is flagged (issue 13)
    assert t.codes == [A.MISSING_BURN] + ([A.WRONG_BURN] if profile == "club-003" else [])


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S3-irreg-12b")
def test_000_S3_irreg_12b_double_burn_goes_back_as_next_burn(profile: str) -> None:
    """000 IRREGULARITIES 12b [L144]: of two burns one goes back on the deck and is the next
    burn; burning any other card at the next street is a wrong burn."""
    t = preflop_done(profile).mark().burn("2d").burn("3d")
    a = t.alert(A.DOUBLE_BURN)
    assert "3d" in a.remedy and "next burn" in a.remedy
    t.remove("3d", ZoneKind.BURN)
    assert "next burn" in t.instructions[-1].text
    t.board("Ah", "Kh", "Qh").call_round().sweep().mark()
    t.burn("3d").board("2h")
    assert t.codes == []
    assert t.snap.street is Street.TURN
    t2 = preflop_done(profile).burn("2d").burn("3d").remove("3d", ZoneKind.BURN)
    t2.board("Ah", "Kh", "Qh").call_round().sweep().mark().burn("4d")
    assert t2.codes == [A.WRONG_BURN]


# ---------------------------------------------------------------- four-card flop: C7


@pytest.mark.parametrize("profile", FOURTH_IS_BURN)
@pytest.mark.clause("002-FourCardFlop-a")
def test_002_FourCardFlop_a_TDA_39A_known_order_fourth_is_burn(profile: str) -> None:
    """002 Four-card flop a) / TDA 39-A: the order is known, the fourth card is the next
    (turn) burn; the turn is then dealt without another burn."""
    t = flop_dealt(profile).mark().board("Jh")
    a = t.alert(A.FOUR_CARD_FLOP)
    assert a.severity is Severity.WARNING and "Jh" in a.remedy and "burn" in a.remedy
    assert [str(c) for c in t.snap.board] == ["Ah", "Kh", "Qh"]
    t.burn("Jh")
    assert t.phase is Phase.BETTING and t.snap.street is Street.FLOP
    t.call_round().sweep().board("Th")
    assert t.codes == [A.FOUR_CARD_FLOP]
    assert t.snap.street is Street.TURN


@pytest.mark.parametrize("profile", FOURTH_IS_BURN)
@pytest.mark.clause("002-FourCardFlop-b")
def test_002_FourCardFlop_b_TDA_39A_unknown_order_floor_draw(profile: str) -> None:
    """002 Four-card flop b) / TDA 39-A: four cards read in one scan cycle (order unknown):
    CRITICAL, the floor (supervisor badge) draws the burn; the other three are the flop."""
    t = preflop_done(profile).burn("2d").mark().board("Ah", "Kh", "Qh", "Jh", same_t=True)
    a = t.alert(A.FOUR_CARD_FLOP)
    assert a.severity is Severity.CRITICAL and "floor" in a.remedy
    t.board("Th")  # the dealer must wait for the floor
    assert t.codes.count(A.FOUR_CARD_FLOP) == 2
    t.remove("Th", ZoneKind.BOARD).badge("floor-7", supervisor=True)
    assert "Floor" in t.instructions[-1].text
    t.burn("Kh")
    assert [str(c) for c in t.snap.board] == ["Ah", "Qh", "Jh"]
    assert t.phase is Phase.BETTING and t.snap.street is Street.FLOP
    t.call_round().sweep().mark().board("Th")  # the drawn card was the turn burn
    assert t.codes == []
    assert t.snap.street is Street.TURN


@pytest.mark.parametrize("profile", REDEAL_FLOP)
@pytest.mark.parametrize("same_t", [False, True], ids=["known-order", "unknown-order"])
@pytest.mark.clause("000-S3-irreg-10", "003-DealerErrors-flop4", "004-AR-2")
def test_000_S3_irreg_10_003_flop4_004_AR_2_four_card_flop_reshuffled(
    profile: str, same_t: bool
) -> None:
    """000 IRREGULARITIES 10 [L142], 003 Dealer errors flop, 004 AR-2: too many flop cards,
    even in known order: the board goes back, the burn stays, a new flop without a burn."""
    t = preflop_done(profile).burn("2d").mark().board("Ah", "Kh", "Qh", "Jh", same_t=same_t)
    a = t.alert(A.FOUR_CARD_FLOP)
    assert a.severity is Severity.WARNING and "without a burn" in a.remedy
    for c in ("Ah", "Kh", "Qh", "Jh"):
        t.remove(c, ZoneKind.BOARD)
    t.board("9h", "8h", "7h")
    assert [str(c) for c in t.snap.board] == ["9h", "8h", "7h"]
    assert t.phase is Phase.BETTING and t.snap.street is Street.FLOP
    t.call_round().turn("2h")  # the turn is burned as usual
    assert t.codes == [A.FOUR_CARD_FLOP]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S3-irreg-12a")
def test_000_S3_irreg_12a_turn_without_burn_after_flop_action(profile: str) -> None:
    """000 IRREGULARITIES 12a: once the flop was acted on, a board card with no burn is a
    missing turn burn, not a four-card flop."""
    t = flop_dealt(profile).call_round().sweep().mark().board("2h")
    assert t.codes == [A.MISSING_BURN]


# ---------------------------------------------------------------- premature cards: K24, C8


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S3-irreg-11", "002-FlopEarly-1", "003-DealerErrors-flopearly", "004-AR-3")
def test_000_S3_irreg_11_003_flopearly_004_AR_3_premature_flop(profile: str) -> None:
    """000 IRREGULARITIES 11 [L143], 002 Flop exposed early, 003 [L199], 004 AR-3 (K24): the
    flop before the pre-flop betting ends: the burn stays, a new flop without a burn."""
    t = Table(profile, 3).post_blinds().deal().mark().burn("2d").board("Ah")
    a = t.alert(A.PREMATURE_FLOP)
    assert a.severity is Severity.WARNING and a.seat == 1  # the button is still to act
    assert "without a burn" in a.remedy
    t.remove("Ah", ZoneKind.BOARD).call_round().sweep().board("Kh", "Qh", "Jh")
    assert t.snap.street is Street.FLOP
    assert set(t.codes) == {A.ACTION_PENDING, A.PREMATURE_FLOP}


def premature_turn(profile: str) -> Table:
    t = flop_dealt(profile).chips(2, 100).mark()  # seat 2 bets, seats 3 and 1 to act
    return t.burn("9s").board("Ts")


@pytest.mark.parametrize("profile", WOULD_BE_RIVER)
@pytest.mark.clause("000-S3-irreg-13a", "004-AR-4a")
def test_000_S3_irreg_13a_004_AR_4a_premature_turn_would_be_river(profile: str) -> None:
    """000 IRREGULARITIES 13 [L145]; 004 AR-4a; Robert's (C8): the premature turn is set
    aside; after the round burn and deal the would-be river as the turn; the river is then
    dealt without a burn, and a burn there is flagged."""
    t = premature_turn(profile)
    a = t.alert(A.PREMATURE_TURN)
    assert "would-be river" in a.remedy and "000 SECTION 3 IRREGULARITIES 13" in a.clause
    t.remove("Ts", ZoneKind.BOARD).call_round().sweep().burn("8s").board("Js")
    assert t.snap.street is Street.TURN
    assert set(t.codes) == {A.ACTION_PENDING, A.PREMATURE_TURN}
    t.call_round().sweep().mark().board("Ts")  # the river, no burn: validated
    assert t.codes == []
    assert t.snap.street is Street.RIVER
    t2 = premature_turn(profile).remove("Ts", ZoneKind.BOARD).call_round().sweep()
    t2.burn("8s").board("Js").call_round().sweep().mark().burn("7s")
    assert t2.codes == [A.WRONG_BURN]
    assert "No burn" in t2.alerts[0].remedy


@pytest.mark.parametrize("profile", ["tda-2024", "vistancia-002", "club-003"])
@pytest.mark.clause("002-TurnRiverEarly-1", "003-DealerErrors-trearly")
def test_002_TurnRiverEarly_003_trearly_premature_turn_reshuffle_no_burn(profile: str) -> None:
    """002 Turn/River exposed early, 003 [L201], TDA RP-5 (C8): the card is shuffled back;
    after the betting a new turn without a burn (the burn made stays); the river is burned."""
    t = premature_turn(profile)
    a = t.alert(A.PREMATURE_TURN)
    assert "without a burn" in a.remedy
    t.remove("Ts", ZoneKind.BOARD).call_round().sweep().board("Js")
    assert t.snap.street is Street.TURN
    t.call_round().sweep().mark().burn("7s").board("Ts")
    assert t.codes == []  # no double burn at the river
    assert t.snap.street is Street.RIVER


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("000-S3-irreg-13b", "004-AR-4b")
def test_000_S3_irreg_13b_004_AR_4b_premature_river(profile: str) -> None:
    """000 IRREGULARITIES 13b; 004 AR-4b; 003 [L201]: the river before the turn betting ends:
    reshuffled, dealt without a burn after the round."""
    t = flop_dealt(profile).call_round().turn("2h").chips(2, 100).mark()
    t.burn("9s").board("Ts")
    a = t.alert(A.PREMATURE_RIVER)
    assert a.severity is Severity.WARNING and "without a burn" in a.remedy
    t.remove("Ts", ZoneKind.BOARD).call_round().sweep().board("Js")
    assert t.snap.street is Street.RIVER
    assert set(t.codes) == {A.ACTION_PENDING, A.PREMATURE_RIVER}


# ---------------------------------------------------------------- rabbit, sweep


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("002-Rabbit-1", "003-Dealer-rabbit")
def test_002_Rabbit_1_003_Dealer_rabbit_no_rabbit_hunting(profile: str) -> None:
    """002 Rabbit Hunting [L85]; 003 The Dealer [L185] (K2): a board card after the hand ended
    is flagged where rabbit hunting is banned; 000/004/Robert's are silent."""
    t = Table(profile, 3).post_blinds().deal().fold(1).fold(2)
    assert t.phase is Phase.COMPLETE
    t.mark().board("Ah")
    if t.profile.rabbit_hunt_alert:
        a = t.alert(A.RABBIT_HUNT)
        assert "Ah" in a.remedy and a.severity is Severity.WARNING
    else:
        assert t.codes == []
    assert t.profile.rabbit_hunt_alert is (profile in ("tda-2024", "vistancia-002", "club-003"))


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.clause("003-SidePots-sweep")
def test_003_SidePots_sweep_before_burn(profile: str) -> None:
    """003 Betting & Side Pots [L127] (K11): the bets are swept into the pot before the burn;
    a burn with chips still in the zones is flagged under 003 only."""
    t = Table(profile, 3).post_blinds().deal().call_round().mark().burn("2d")
    if profile == "club-003":
        assert t.alert(A.SWEEP_BEFORE_BURN).severity is Severity.INFO
    else:
        assert t.codes == []
    t2 = Table(profile, 3).post_blinds().deal().call_round().sweep().mark().burn("2d")
    assert t2.codes == []
