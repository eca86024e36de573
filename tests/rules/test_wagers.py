"""Wagers as players make them (issue 14), per profile: action out of turn, string bets,
declared raises in several motions, oversized chips with and without a declaration, a call
brought up and turned into a raise, chips taken back, non-standard folds, declarations that
bind, and the dealer's "not a check". The expected rulings are the rulebooks' words (the
file and line are in each docstring); the profile decides which applies.

Table: 4 players, button 1, small blind 2 (50), big blind 3 (100); pre-flop seat 4 acts
first, post-flop seat 2."""

from __future__ import annotations

import pytest
from table_builder import PROFILES, Table

from controller.rules.decisions import AlertCode, Severity
from controller.rules.events import ChipsIn, ConsoleButton, Declaration, Declare
from controller.rules.phases import Phase

A = AlertCode
STRING_RULE = ("tda-2024", "roberts-rules", "a2c-000", "vistancia-002", "club-003")
BINDING = ("tda-2024", "roberts-rules", "vistancia-002")


def bet(t: Table, seat: int) -> int:
    s = t.snap.seat(seat)
    assert s is not None
    return s.bet


# ---------------------------------------------------------------------------- out of turn


@pytest.mark.parametrize("profile", PROFILES)
def test_000_S3_bet_7c_raise_out_of_turn_unchanged(profile: str) -> None:
    """000-S3-bet-7c, 000 BETTING AND RAISING 7 [L158]: a raise out of turn is only a call
    at its turn. 002-OutOfTurn-1 [L129] (and TDA 53, Robert's): binding if the action did
    not change. 003-Betting-oot [L61]: "may be binding": the floor rules (ACK: it stands).
    004-AR-13 [L67]: the incorrect bettor takes the wager back; the true position acts."""
    t = Table(profile, 4).post_blinds().deal().mark()
    t.chips(1, 300)  # the button raises to 300 while seat 4 is to act
    oot = t.alert(A.ACTION_OUT_OF_TURN)
    assert oot.seat == 1 and t.snap.to_act == 4
    assert oot.clause.split()[0] == {"a2c-000": "000", "club-003": "003"}.get(
        profile, "004" if profile == "shaved-dog-004" else "002"
    )
    t.chips(4, 100)  # the true position calls: the action to seat 1 did not change
    if profile == "shaved-dog-004":
        assert "take the wager back" in oot.remedy
        assert t.snap.to_act == 1 and bet(t, 1) == 0  # it acts afresh
        return
    if profile == "club-003":
        assert t.snap.to_act == 1 and "floor" in t.alerts[-1].remedy
        t.press(ConsoleButton.ACK)  # the floor lets it stand
    if profile == "a2c-000":
        assert "only a call" in t.alerts[-1].remedy and "give 200 back" in t.alerts[-1].remedy
        assert t.alerts[-1].code is A.RAISE_NOT_ALLOWED  # it kept the raise (issue 24)
        assert bet(t, 1) == 100 and t.snap.current_bet == 100
    else:
        assert bet(t, 1) == 300 and t.snap.current_bet == 300
    assert t.snap.to_act == 2


@pytest.mark.parametrize("profile", [p for p in PROFILES if p != "shaved-dog-004"])
def test_000_S3_bet_7b_options_return_once_a_bet_comes_in(profile: str) -> None:
    """000-S3-bet-7b, 000 BETTING AND RAISING 7 [L157]-[L158]: if another player bets or
    raises before the turn of the seat that acted out of turn, it gets all options back;
    002-OutOfTurn-2 [L129]: the out-of-turn bet is returned; 003 [L61] the same (the floor
    has nothing to let stand)."""
    t = Table(profile, 4).post_blinds().deal().chips(1, 200).mark()
    t.chips(4, 400)  # seat 4 raises in turn: the action to seat 1 changed
    a = t.alert(A.ACTION_OUT_OF_TURN)
    assert a.seat == 1 and "return" in a.remedy and "all options" in a.remedy
    assert t.snap.to_act == 1 and bet(t, 1) == 0


def test_004_AR_13_wager_stands_once_the_next_seat_acted() -> None:
    """004-AR-13, 004 Betting and Folding 13 [L67]: if the next player acted after the wrong
    bettor, the wager stands and action continues from there; neither the wrong bettor nor
    the seat that acted in turn after it is flagged again."""
    t = Table("shaved-dog-004", 4).post_blinds().deal().mark()
    t.chips(1, 300)  # wrong opener (seat 4 is to act); the next seat is 2
    assert t.codes == [A.ACTION_OUT_OF_TURN]
    t.chips(2, 250)  # seat 2 calls the 300 before the chips were taken back
    assert t.codes == [A.ACTION_OUT_OF_TURN]
    assert bet(t, 1) == 300 and bet(t, 2) == 300
    assert t.snap.to_act == 3
    t.chips(3, 200).chips(4, 300)
    assert t.codes == [A.ACTION_OUT_OF_TURN]
    assert t.phase is Phase.BOARD


def test_004_AR_13_withdrawn_wager_is_not_a_call() -> None:
    """004-AR-13 [L67]: the incorrect bettor takes the wager back and the true position
    acts: the withdrawn chips count for nothing and the real call is in turn."""
    t = Table("shaved-dog-004", 4).post_blinds().deal().mark()
    t.chips(2, 50).take_back(2, 50)  # the small blind calls out of turn, takes it back
    t.chips(4, 100).chips(1, 100)
    assert t.snap.to_act == 2 and bet(t, 2) == 50
    t.chips(2, 50)  # its real call, in turn
    assert t.codes == [A.ACTION_OUT_OF_TURN]
    assert bet(t, 2) == 100 and t.snap.to_act == 3


@pytest.mark.parametrize("profile", BINDING)
def test_002_OutOfTurn_1_seats_acting_in_turn_are_never_flagged(profile: str) -> None:
    """002-OutOfTurn-1 [L129]: after a wrong opener only the wrong opener is flagged; the
    seats that then act in turn (and the skipped seat) are not."""
    t = Table(profile, 4).post_blinds().deal().mark()
    t.chips(1, 300)
    t.chips(4, 100)  # in turn; seat 1's raise now stands
    t.chips(2, 250).chips(3, 200).chips(4, 200)
    assert t.codes == [A.ACTION_OUT_OF_TURN]
    assert t.phase is Phase.BOARD


# ---------------------------------------------------------------------------- motions


@pytest.mark.parametrize("profile", PROFILES)
def test_000_S3_bet_8_second_motion_is_a_string_bet(profile: str) -> None:
    """000-S3-bet-8, 000 BETTING AND RAISING 8 [L159]; 002-StringBets-1 [L153] and
    002-RaiseMethods-1 [L133]; 003-Betting-string [L59]: a second motion without a
    declaration is a string bet: the wager is a call. 004 has no string-bet rule: the chips
    add up (a raise)."""
    t = Table(profile, 4).post_blinds().deal().mark()
    t.chips(4, 100).chips(4, 200)
    if profile in STRING_RULE:
        a = t.alert(A.STRING_BET)
        assert a.seat == 4 and "give 200 back" in a.remedy and a.severity is Severity.WARNING
        assert bet(t, 4) == 100 and t.snap.current_bet == 100
        assert t.snap.to_act == 1
        assert [x.code for x in t.alerts] == [A.STRING_BET]  # not "out of turn"
    else:
        assert t.codes == []
        assert bet(t, 4) == 300 and t.snap.current_bet == 300
        assert t.snap.to_act == 1


@pytest.mark.parametrize("profile", PROFILES)
def test_002_RaiseMethods_1_declared_raise_in_two_motions(profile: str) -> None:
    """002-RaiseMethods-1 [L133] (3): "raise" declared, the call, then one more motion;
    003 Betting & Side Pots [L129]; 000 [L159] (a declaration protects the raise): the two
    motions are one raise, to 300, with no alert; the pot counts 300 once."""
    t = Table(profile, 4).post_blinds().deal().mark()
    t.declare(4, "raise").chips(4, 100).chips(4, 200)
    assert t.codes == []
    assert bet(t, 4) == 300 and t.snap.current_bet == 300
    assert t.snap.pot == 450 and t.snap.to_act == 1
    kinds = [(a.seat, a.kind, a.amount) for a in t.core.hand.actions if a.street == 0]  # type: ignore[union-attr]
    assert kinds[-2:] == [(4, "declare_raise", 0), (4, "raise", 300)]


@pytest.mark.parametrize("profile", PROFILES)
def test_002_Oversize_b_declared_raise_with_one_oversized_chip(profile: str) -> None:
    """002-Oversize-b, 002 Oversized Chip Betting [L141]: "raise" declared, a single
    oversized chip is the maximum raise for the chip; 000 BETTING 9 [L160]: a chip larger
    than the bet is only a call when no raise was announced (000-S3-bet-9)."""
    t = Table(profile, 4, stack=5000, sb=200, bb=400).post_blinds().deal().mark()
    t.declare(0, "raise").chips(4, 1000, 1000)
    assert A.OVERSIZED_CHIP not in t.codes
    assert bet(t, 4) == 1000 and t.snap.current_bet == 1000


@pytest.mark.parametrize("profile", PROFILES)
def test_000_S3_bet_11_call_brought_up_then_more(profile: str) -> None:
    """000-S3-bet-11, 000 BETTING AND RAISING 11 [L162]: a short call is brought up, and
    nobody who acted may change a call to a raise: the extra chips go back. 002/003 [L133]
    [L59]: the second motion is a string bet (a call). 004: the chips add up."""
    t = Table(profile, 4).post_blinds().deal().mark()
    t.chips(4, 60)
    assert t.codes == [A.WAGER_SHORT]
    t.mark().chips(4, 240)
    if profile == "a2c-000":
        a = t.alert(A.CALL_NOT_RAISE)
        assert "give 200 back" in a.remedy and a.clause.startswith("000")
    elif profile in STRING_RULE:
        assert "give 200 back" in t.alert(A.STRING_BET).remedy
    else:
        assert t.codes == [] and bet(t, 4) == 300
        return
    assert bet(t, 4) == 100 and t.snap.to_act == 1


@pytest.mark.parametrize("profile", PROFILES)
def test_bringing_a_short_call_up_is_not_a_string_bet(profile: str) -> None:
    """000 BETTING AND RAISING 11 [L162]: a short wager must be brought up; the motion that
    brings it up to the call is no string bet."""
    t = Table(profile, 4).post_blinds().deal().chips(4, 60).mark().chips(4, 40)
    assert t.codes == [] and bet(t, 4) == 100 and t.snap.to_act == 1


# ---------------------------------------------------------------------------- chips back, folds


@pytest.mark.parametrize("profile", PROFILES)
def test_002_ActInTurn_1_chips_placed_in_turn_stay(profile: str) -> None:
    """002-ActInTurn-1, 002 Verbal Declarations / Acting in Turn [L125]: chips placed in the
    pot in turn must stay in the pot (TDA the same); the other books are silent. The chips
    still count."""
    t = Table(profile, 4).post_blinds().deal().chips(4, 100).mark().take_back(4, 100)
    if t.profile.chips_in_turn_stay:
        a = t.alert(A.CHIPS_TAKEN_BACK)
        assert a.seat == 4 and "stay in" in a.remedy
    else:
        assert t.codes == []
    assert bet(t, 4) == 100


@pytest.mark.parametrize("profile", PROFILES)
def test_change_for_an_oversized_chip_is_no_take_back(profile: str) -> None:
    """000 BETTING 9 [L160] / 002 [L141]: the change for an oversized chip leaves the zone;
    it is owed, so no CHIPS_TAKEN_BACK (002 [L125])."""
    t = Table(profile, 4, stack=5000, sb=200, bb=400).post_blinds().deal()
    t.chips(4, 1000, 1000).mark().take_back(4, 600)
    assert t.codes == []


@pytest.mark.parametrize("profile", PROFILES)
def test_002_NonStdFolds_1_fold_facing_no_bet(profile: str) -> None:
    """002-NonStdFolds-1, 002 Non-Standard Folds [L161]: folding in turn facing a check is
    a binding fold, flagged for the floor (TDA the same); 000/003/004 just fold (004 AR-12
    [L65])."""
    t = Table(profile, 4).post_blinds().deal().call_round().flop().mark().fold(2)
    assert t.codes == ([A.NONSTANDARD_FOLD] if t.profile.nonstandard_fold_alert else [])
    s = t.snap.seat(2)
    assert s is not None and s.folded and t.snap.to_act == 3


# ---------------------------------------------------------------------------- declarations


@pytest.mark.parametrize("profile", PROFILES)
def test_declared_call_binds(profile: str) -> None:
    """000 BETTING AND RAISING 5 [L153], 002 [L125], 003 [L61]: a verbal declaration in turn
    is binding: "call" then more chips is a call, the excess goes back."""
    t = Table(profile, 4).post_blinds().deal().mark().declare(0, "call").chips(4, 300)
    a = t.alert(A.DECLARATION_BINDS)
    assert "give 200 back" in a.remedy and bet(t, 4) == 100 and t.snap.to_act == 1


@pytest.mark.parametrize("profile", PROFILES)
def test_declared_fold_and_check_act_at_once(profile: str) -> None:
    """000 BETTING AND RAISING 5 [L153]: a declared fold or check is that action; a check
    facing a bet is refused with the remedy (call or fold)."""
    t = Table(profile, 4).post_blinds().deal().mark().declare(0, "fold")
    s = t.snap.seat(4)
    assert s is not None and s.folded and t.snap.to_act == 1
    t.declare(0, "check")
    assert t.alert(A.DECLARATION_BINDS).seat == 1 and t.snap.to_act == 1
    t.chips(1, 100).chips(2, 50).declare(0, "check")  # the big blind's option
    assert t.phase is Phase.BOARD


@pytest.mark.parametrize("profile", PROFILES)
def test_declarations_are_in_the_hand_record(profile: str) -> None:
    """The hand record carries every declaration (issue 14), in order with the actions."""
    t = Table(profile, 2).post_blinds().deal().declare(0, "raise").chips(1, 250)
    t.declare(0, "fold")
    rec = t.records[-1]
    kinds = [a.kind for a in rec.actions]
    assert "declare_raise" in kinds and "declare_fold" in kinds
    assert kinds.index("declare_raise") < kinds.index("raise") < kinds.index("declare_fold")


def test_bad_declarations_are_rejected_unchanged() -> None:
    """Bad input gets a clear error and changes nothing."""
    t = Table("tda-2024", 4)
    step = t.send(Declare(t.now(), Declaration.RAISE))
    assert step.rejected is not None and step.rejected.code == "not_now"
    t.post_blinds().deal()
    before = t.snap
    for ev in (Declare(t.now(), Declaration.CALL, 11), Declare(t.now(), Declaration.NOT_A_CHECK)):
        step = t.send(ev)
        assert step.rejected is not None and t.snap == before
    assert step.rejected is not None and step.rejected.code == "nothing_to_undo"


# ---------------------------------------------------------------------------- not a check


@pytest.mark.parametrize("profile", PROFILES)
def test_not_a_check_makes_the_bet_out_of_turn(profile: str) -> None:
    """L2 (checks are inferred) + the dealer's NOT_A_CHECK: seat 4 bet while seats 2 and 3
    had not acted; the inferred checks are undone and the bet is judged out of turn by the
    profile: 002 [L129] binding if the others check; 000 [L157] "must then check if all
    other players check"; 003 [L61] the floor rules; 004 AR-13 [L67] taken back."""
    t = Table(profile, 4).post_blinds().deal().call_round().flop().mark()
    t.chips(4, 100)
    assert t.codes == [] and t.snap.to_act == 1
    t.declare(0, "not_a_check")
    assert t.codes == [A.ACTION_OUT_OF_TURN] and t.snap.to_act == 2
    assert bet(t, 4) == 0 and t.snap.current_bet == 0
    t.press(ConsoleButton.ACK).press(ConsoleButton.ACK)  # seats 2 and 3 check
    if profile == "club-003":
        assert "floor" in t.alerts[-1].remedy
        t.press(ConsoleButton.ACK)
    if profile in BINDING or profile == "club-003":
        assert bet(t, 4) == 100 and t.snap.to_act == 1
    elif profile == "a2c-000":
        assert "only a check" in t.alerts[-1].remedy
        assert bet(t, 4) == 0 and t.snap.to_act == 1
    else:
        assert bet(t, 4) == 0 and t.snap.to_act == 4  # taken back: it acts afresh


def test_a_chips_event_out_of_turn_through_the_core_is_the_same_as_the_builders() -> None:
    """The builder's helpers send plain ChipsIn events (no shortcut around the core)."""
    t = Table("vistancia-002", 4).post_blinds().deal()
    step = t.send(ChipsIn(t.now(), 1, 300))
    assert [a.code for a in step.alerts] == [A.ACTION_OUT_OF_TURN]


def test_004_AR_13_void_wager_does_not_stand_later() -> None:
    """004-AR-13 [L67]: once the true position acted (a check here), the wrong wager is void:
    the seat after the wrong bettor acting later does not make it stand."""
    t = Table("shaved-dog-004", 4).post_blinds().deal().call_round().flop().mark()
    t.chips(3, 100).declare(0, "not_a_check")  # seat 3's bet was out of turn: taken back
    t.press(ConsoleButton.ACK)  # the true position, seat 2, checks
    t.chips(4, 200)  # seat 3 checked (inferred); seat 4 bets
    assert bet(t, 3) == 0 and bet(t, 4) == 200 and t.snap.current_bet == 200
    assert t.codes == [A.ACTION_OUT_OF_TURN]


def test_declarations_survive_the_hand_log() -> None:
    """A restart replays the hand log (handlog.py): a Declare is written and read back."""
    from controller.rules.handlog import decode_event, encode_event

    for word in Declaration:
        ev = Declare(12.5, word, 3)
        assert decode_event(encode_event(ev)) == ev


def test_wager_profile_fields_are_validated() -> None:
    """A venue's own profile: a bad wager setting names the key (profile.py)."""
    from controller.rules.errors import ConfigError
    from controller.rules.profile import profile_from_dict

    base = {"name": "x", "title": "x", "rulebook": "x"}
    with pytest.raises(ConfigError, match=r"'out_of_turn'.*'take-back'"):
        profile_from_dict({**base, "out_of_turn": "sometimes"})
    with pytest.raises(ConfigError, match="'declared_raise_motions': must not be negative"):
        profile_from_dict({**base, "declared_raise_motions": -1})
    with pytest.raises(ConfigError, match="'string_bet_is_call': expected bool"):
        profile_from_dict({**base, "string_bet_is_call": "yes"})


@pytest.mark.parametrize("profile", STRING_RULE)
def test_000_S3_bet_8_string_bet_after_inferred_checks(profile: str) -> None:
    """000-S3-bet-8 [L159]: post-flop, a bet that made the checks before it inferred, then a
    second motion: a string bet (not action out of turn)."""
    t = Table(profile, 4).post_blinds().deal().call_round().flop().mark()
    t.chips(4, 100).chips(4, 300)
    assert t.codes == [A.STRING_BET] and bet(t, 4) == 100 and t.snap.to_act == 1


@pytest.mark.parametrize("profile", PROFILES)
def test_second_motion_after_the_closing_call(profile: str) -> None:
    """000 [L159], 002 Methods of Raising [L133], 003 Betting [L59] and [L129]: the big
    blind calls a raise (the round's last action) and reaches back for more before the dealer
    moves on: a string raise, a call (the extra goes back); 004 has no string-bet rule: the
    chips add up, a raise, and the round is open again. Never "the betting round is closed"
    (issue 24)."""
    t = Table(profile, 4).post_blinds().deal()
    t.chips(4, 300).fold(1).fold(2).chips(3, 200)  # the big blind's call closes the round
    assert t.phase is Phase.BOARD
    t.mark().chips(3, 400)
    assert A.ACTION_PENDING not in t.codes
    if profile in STRING_RULE:
        a = t.alert(A.STRING_BET)
        assert a.seat == 3 and "give 400 back" in a.remedy
        assert t.phase is Phase.BOARD and bet(t, 3) == 300
        t.take_back(3, 400)
        assert t.codes == [A.STRING_BET] and t.phase is Phase.BOARD
    else:
        assert t.codes == [] and t.phase is Phase.BETTING
        assert bet(t, 3) == 700 and t.snap.to_act == 4
        t.chips(4, 400)
        assert t.phase is Phase.BOARD and t.codes == []


@pytest.mark.parametrize("profile", PROFILES)
def test_chips_after_the_dealer_moved_on_are_not_a_second_motion(profile: str) -> None:
    """Once the bets are swept (or a card burned) the closing call's motion is over: chips
    then are ACTION_PENDING, as before."""
    t = Table(profile, 4).post_blinds().deal()
    t.chips(4, 300).fold(1).fold(2).chips(3, 200).sweep().mark()
    t.chips(3, 400)
    assert t.codes == [A.ACTION_PENDING] and t.phase is Phase.BOARD
