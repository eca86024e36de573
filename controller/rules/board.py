"""Burns and board cards: missing and double burns, the four-card flop, premature flop,
turn and river, and the profile's remedies, with every later card checked against them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from controller.rules import bb_option, betting, rounds, showdown
from controller.rules.cards import known_cards
from controller.rules.decisions import AlertCode, Severity, StreetDealt
from controller.rules.events import BadgeTap, CardPlaced, ZoneKind
from controller.rules.hand import Hand, Street
from controller.rules.phases import BurnDebt, MisdealCall, Phase
from controller.rules.profile import BurnError, FourCardFlop, PrematureTurn

if TYPE_CHECKING:
    from controller.rules.engine import TableCore

# Enum members on the per-event path, looked up once: ``Phase.X`` costs a Python-level
# ``EnumType.__getattr__`` hook per lookup in Python 3.11 (and a getattr in the compiled core)
_CORRECT: Final = BurnError.CORRECT
_RESHUFFLE_STREET: Final = BurnError.RESHUFFLE_STREET
_BETTING: Final = Phase.BETTING
_BOARD: Final = Phase.BOARD
_DEALING: Final = Phase.DEALING
_FLOP: Final = Street.FLOP
_PREFLOP: Final = Street.PREFLOP
_RIVER: Final = Street.RIVER
_TURN: Final = Street.TURN
_BURN_ZONE: Final = ZoneKind.BURN
_NO_DEBT: Final = BurnDebt.NONE


def phase_of(core: TableCore) -> Phase:
    """The phase now (a call may have changed it since the caller last looked)."""
    return core.phase


# the street before each street; a tuple, not ``Street(n)``: an Enum call is Python code.
# Both typed ``tuple[X, ...]``: a bare ``Final`` tuple is a C struct in the compiled core,
# boxed into a new tuple object each time it is indexed; these stay one tuple object, and
# are indexed with ``_number(street)`` (indexing with the IntEnum member is a generic call)
_BEFORE: Final[tuple[Street, ...]] = (Street.PREFLOP, Street.PREFLOP, Street.FLOP, Street.TURN)
# Street.board_size (a property: a Python-level call in the compiled core), by street number
_BOARD_SIZE: Final[tuple[int, ...]] = (0, 3, 4, 5)


def _coming(h: Hand) -> Street:
    # the street after the hand's street (the river stays the river), by identity: indexing
    # a tuple with the IntEnum member is a generic getitem in the compiled core, and
    # ``Street(n)`` Python code (on the path of every burn and board card)
    s = h.street
    if s is _PREFLOP:
        return _FLOP
    if s is _FLOP:
        return _TURN
    return _RIVER


def _number(street: Street) -> int:
    """``int(street)`` without the call (``int()`` of an IntEnum is a Python-level call in
    the compiled core)."""
    if street is _PREFLOP:
        return 0
    if street is _FLOP:
        return 1
    if street is _TURN:
        return 2
    return 3


def _burns_due(h: Hand) -> int:
    """The burns the coming street needs: ``1 + h.burn_debt`` (IntEnum arithmetic is a
    generic call in the compiled core)."""
    return 1 if h.burn_debt is _NO_DEBT else 2


def _provably_pending(core: TableCore) -> bool:
    if core.phase is _DEALING:
        return True
    if core.phase is not _BETTING:
        return False
    return rounds.pending_bet(core) != 0 or bb_option.open_seat(core) != 0


def on_burn(core: TableCore, e: CardPlaced) -> None:
    h = core.hand
    assert h is not None
    tag = e.tag
    if h.pending_board and core.profile.burn_error is _RESHUFFLE_STREET:
        if tag == h.pending_board:
            # 003 [L195] names no correction: the street's cards go back and are reshuffled
            core.alert(
                AlertCode.WRONG_BURN,
                Severity.WARNING,
                _burn_clause(core),
                f"Not a correction here: return {core.card_name(tag)} and this street's "
                "board cards to the stub, reshuffle, then burn and deal the street",
                tag=tag,
            )
            h.street_burns += 1  # read as the burn if the dealer goes on (no second alert)
            h.burns.append(tag)
            h.last_burn = tag
            return
        if h.void_street:
            core.alert(
                AlertCode.WRONG_BURN,
                Severity.WARNING,
                _burn_clause(core),
                "Return this street's board cards to the stub and reshuffle before the burn",
                tag=tag,
            )
        h.pending_board = ""  # the street's cards were returned and reshuffled
    if h.refill:
        # 004 AR-16: the card turned up without a burn is moved to its proper position
        h.burns.append(tag)
        return
    if h.pending_board and core.phase is _BOARD and len(h.board) == _BOARD_SIZE[_number(h.street)]:
        # the next street is being dealt: the uncorrected card stood; later cards are those
        # that would have come (000 irreg-12b), so this street needs one burn more
        h.pending_board = ""
        h.burn_debt = core.shift(h.burn_debt, BurnDebt.OWED)
    if _next_card_burned(core, h, tag):
        # 004 AR-16 [L75]: the card dealt without a burn belongs on the burn; the card just
        # burned is the street's proper card, not a burn (nor the next street's: the street
        # has its round of betting to come)
        core.alert(
            AlertCode.WRONG_BURN,
            Severity.WARNING,
            _burn_clause(core),
            f"The burn must be {core.card_name(h.pending_board)} (dealt without a burn), not "
            f"{core.card_name(tag)}: swap them; {core.card_name(tag)} is the board card",
            tag=tag,
        )
        return
    if tag == h.pending_board:
        # the card dealt without a burn is moved to the burn: corrected
        h.pending_board = ""
        h.street_burns += 1
        h.burns.append(tag)
        core.instruct(f"Burn corrected: {core.card_name(tag)} is the burn; deal the board card")
        return
    if tag in h.four_flop:
        rest = [t for t in h.four_flop if t != tag]
        drawn = h.floor_draw
        if drawn and not h.floor_ok:
            # 002 Four-card flop b) [L113]: "a tournament director not seated at that table"
            # selects the burn, not the dealer
            core.alert(
                AlertCode.FOUR_CARD_FLOP,
                Severity.CRITICAL,
                "002 Four-card flop b) [L113]; TDA 39-A",
                "The director draws the burn of a four-card flop: supervisor's badge first",
                tag=tag,
            )
            return
        h.four_flop.clear()
        h.floor_draw = h.floor_ok = False
        if h.required_burn == tag:
            h.required_burn = ""
        h.burns.append(tag)
        if not drawn and core.phase is _BOARD and h.street is _FLOP:
            # 002 Four-card flop a) [L113]: set aside, burned when the turn is due
            h.street_burns += 1
            h.last_burn = tag
            return
        h.burn_credit += 1
        core.instruct(f"{core.card_name(tag)} is the next burn; the other three are the flop")
        if drawn and core.phase is _BOARD:
            # 002-FourCardFlop-b / TDA 39-A: the floor drew the burn; the other three are
            # the flop, and the drawn card is the turn's burn (_street_dealt takes the credit)
            h.board = rest
            _street_dealt(core, h, _FLOP)
        return
    preflop = core.phase is _DEALING or (core.phase is _BETTING and h.street is _PREFLOP)
    if tag == h.required_burn and (preflop or core.phase is _BETTING):
        h.required_burn = ""
        h.burn_credit += 1
        h.burns.append(tag)
        return
    if core.phase is _BETTING:
        if _provably_pending(core):
            seat = rounds.pending_bet(core) or bb_option.open_seat(core)
            core.alert(
                AlertCode.ACTION_PENDING,
                Severity.WARNING,
                "000 SECTION 2 THE FLOP [L80]: burn after the round",
                f"Burn before the betting round is complete: seat {seat} is to act",
                seat,
                tag,
            )
            h.burn_credit += 1
            h.burns.append(tag)
            return
        betting.close_unbet_round(core)
    if phase_of(core) is not _BOARD:
        return
    coming = _coming(h)
    if core.profile.sweep_before_burn and h.unswept and h.street_burns == 0:
        core.alert(
            AlertCode.SWEEP_BEFORE_BURN,
            Severity.INFO,
            "003 Side pots: sweep the bets before the burn",
            "Sweep the bets into the pot before burning",
        )
    rounds.swept(h)
    if h.required_burn and tag != h.required_burn:
        # named: the card put on the burn in the required one's place; the required burn
        # stays due until the swap (or the board card: the wrong burn stood)
        core.alert(
            AlertCode.WRONG_BURN,
            Severity.WARNING,
            "000 SECTION 3 IRREGULARITIES 2, 12b [L134, L144]; 004 AR-5a, AR-16",
            f"The burn must be {core.card_name(h.required_burn)}, "
            f"not {core.card_name(tag)}: swap them",
            tag=tag,
        )
    else:
        h.required_burn = ""
    if h.four_flop and not h.floor_draw and tag not in h.four_flop:
        # 002 Four-card flop a) [L113]: "the fourth card will stay as the next burn card"
        core.alert(
            AlertCode.WRONG_BURN,
            Severity.WARNING,
            "002 Four-card flop a) [L113]; TDA 39-A",
            f"The burn must be {core.card_name(h.four_flop[0])} (the fourth flop card), "
            f"not {core.card_name(tag)}: swap them",
            tag=tag,
        )
        h.four_flop.clear()
    if _number(coming) in h.no_burn:
        core.alert(
            AlertCode.WRONG_BURN,
            Severity.WARNING,
            _no_burn_clause(core),
            f"No burn on this redeal: put {core.card_name(tag)} back on the stub "
            "and deal the board card",
            tag=tag,
        )
        h.street_burns += 1
        h.burns.append(tag)
        h.last_burn = tag
        return
    h.street_burns += 1
    h.burns.append(tag)
    h.last_burn = tag
    if h.street_burns > _burns_due(h):
        core.alert(
            AlertCode.DOUBLE_BURN,
            Severity.WARNING,
            _burn_clause(core),
            f"Two burns: put {core.card_name(tag)} back on top of the stub; it is the next burn",
            tag=tag,
        )


def _burn_clause(core: TableCore) -> str:
    return {
        BurnError.CORRECT_BEFORE_ACTION: "000 SECTION 3 IRREGULARITIES 12 [L144]; TDA 39-B",
        BurnError.CORRECT: "004 AR-16",
        BurnError.RESHUFFLE_STREET: "003 Dealer errors: burn [L195]",
    }[core.profile.burn_error]


def _no_burn_clause(core: TableCore) -> str:
    if core.profile.premature_turn is PrematureTurn.WOULD_BE_RIVER:
        return "000 SECTION 3 IRREGULARITIES 11, 13 [L143, L145]; 004 AR-3, AR-4"
    return "002 Flop/Turn/River exposed early; 003 Dealer errors; TDA RP-5"


def on_burn_removed(core: TableCore, tag: str) -> None:
    h = core.hand
    assert h is not None
    if tag == h.last_burn and h.street_burns > 1 and core.phase is Phase.BOARD:
        h.street_burns -= 1
        h.burns.remove(tag)
        h.required_burn = tag  # 000 irreg-12b: it goes back and is the next burn
        core.instruct(f"{core.card_name(tag)} goes back on the stub: it is the next burn")
    elif (
        tag == h.last_burn
        and h.required_burn
        and tag in h.burns
        and h.street_burns
        and core.phase is Phase.BOARD
    ):
        # the wrong burn taken back (the swap WRONG_BURN asks for): the required one is due
        h.street_burns -= 1
        h.burns.remove(tag)
    elif tag == h.pending_board and tag in h.burns and core.phase is Phase.BOARD:
        # 003: the card turned up and moved to the burn is taken back for the reshuffle
        h.street_burns = max(0, h.street_burns - 1)
        h.burns.remove(tag)
    elif tag in h.burns and _number(_coming(h)) in h.no_burn and core.phase is Phase.BOARD:
        h.street_burns = max(0, h.street_burns - 1)
        h.burns.remove(tag)


def on_board(core: TableCore, e: CardPlaced) -> None:
    h = core.hand
    assert h is not None
    h.read_t[e.tag] = e.t
    if h.street is _RIVER and len(h.board) >= 5:
        showdown.sixth_board_card(core, e.tag)  # five board cards in all (003 [L109])
        return
    if h.refill:
        # 004 AR-16: the card restored to the burn is replaced by the proper board card; the
        # street and its betting round go on (none is skipped)
        h.refill = False
        h.board.append(e.tag)
        core.instruct(f"Board restored: {core.card_name(e.tag)} takes the misplaced card's place")
        # the fact (decisions.py): the street's board, restored
        cards = tuple(c for c in (core.card_of.get(t) for t in h.board) if c is not None)
        core.out.append(StreetDealt(int(h.street), cards, core.t))
        if core.phase is _BOARD:
            betting.open_street(core)
        return
    if h.void_street:
        # 003 [L195]: the street's cards go back into the deck; none of them is the board
        h.set_aside.add(e.tag)
        return
    if _fourth_flop_card(core, h):
        # C7: the flop street opened at its third card; a fourth card read before any flop
        # action and before the turn burn makes it a four-card flop (000-S3-irreg-10,
        # 002-FourCardFlop-a/b, 003 flop4, 004-AR-2), not a turn dealt without a burn.
        h.street = _PREFLOP
        h.street_burns = max(h.street_burns, 1)
        core.enter(Phase.BOARD)
        _four_card_flop(core, h, e)
        return
    if _provably_pending(core):
        _premature(core, h, e)
        return
    if core.phase is _BETTING:
        betting.close_unbet_round(core)
    if phase_of(core) is not _BOARD:
        return
    coming = _coming(h)
    n = _number(coming)
    size = _BOARD_SIZE[n]
    if h.floor_draw:
        core.alert(
            AlertCode.FOUR_CARD_FLOP,
            Severity.WARNING,
            "002 Four-card flop b); TDA 39-A",
            "Wait for the floor to draw the burn from the four cards",
            tag=e.tag,
        )
        return
    if h.redeal_flop and h.board:
        _four_card_flop(core, h, e)
        return
    h.redeal_flop = False
    wrong_stood = h.last_burn in h.burns and h.last_burn != h.required_burn
    if h.required_burn and h.street_burns and wrong_stood:
        h.required_burn = ""  # the wrong burn stood (WRONG_BURN said so): later cards as dealt
    if len(h.board) >= size:
        if h.street is _PREFLOP or (coming is _FLOP and len(h.board) == 3):
            _four_card_flop(core, h, e)
        else:
            core.alert(
                AlertCode.TOO_MANY_BOARD_CARDS,
                Severity.WARNING,
                "000 SECTION 3 IRREGULARITIES 13 [L145]",
                f"Too many board cards: {core.card_name(e.tag)} is premature",
                tag=e.tag,
            )
        return
    needs_burn = n not in h.no_burn
    if needs_burn and h.required_burn and h.street_burns == 0 and _extra_burn_left(core, h):
        # 004 AR-16 (000 irreg-12b): the extra burn of the last street, left on the burn,
        # is this street's burn: the cards are in their proper positions
        core.instruct(f"{core.card_name(h.required_burn)} (the extra burn) is this street's burn")
        h.required_burn = ""
        h.street_burns = 1
    if (
        needs_burn
        and h.street_burns < _burns_due(h)
        and not h.pending_board
        and len(h.board) == size - (3 if coming is _FLOP else 1)
    ):
        _missing_burn(core, h, e)
        return
    if (
        h.pending_board
        and h.pending_board not in h.board
        and core.profile.burn_error is not _RESHUFFLE_STREET
    ):
        # the uncorrected card of a run-out stands once the board is dealt on
        h.board.append(h.pending_board)
        h.pending_board = ""
        core.instruct("The board stands; later cards are those that would have come")
    h.board.append(e.tag)
    if len(h.board) >= size:
        _street_dealt(core, h, coming)


def _next_card_burned(core: TableCore, h: Hand, tag: str) -> bool:
    """004 AR-16 (corrected whenever possible): a card burned while the street's card dealt
    without a burn is still on the board and nobody has acted on that street."""
    if core.profile.burn_error is not _CORRECT or not h.pending_board:
        return False
    if tag == h.pending_board or h.pending_board not in h.board or h.refill:
        return False
    street = int(h.street)
    return core.phase is _BETTING and not any(a.street == street for a in h.actions)


def _extra_burn_left(core: TableCore, h: Hand) -> bool:
    """The burn the profile wants next is the extra burn still lying on the burn spot."""
    if core.profile.burn_error is _RESHUFFLE_STREET:
        return False
    loc = core.where.get(h.required_burn)
    return loc is not None and loc[0] is _BURN_ZONE


def _fourth_flop_card(core: TableCore, h: Hand) -> bool:
    return (
        core.phase is _BETTING
        and h.street is _FLOP
        and len(h.board) == 3
        and h.street_burns == 0
        and not h.burn_credit
        and not h.premature
        and not any(a.street == 1 for a in h.actions)  # (1: the flop; no int() call)
    )


def _street_dealt(core: TableCore, h: Hand, coming: Street) -> None:
    h.street = coming
    if h.street_burns > _burns_due(h) and h.last_burn in h.burns:
        # 000 irreg-12b: of two burns, one goes back on the deck and is the next burn
        h.required_burn = h.last_burn
    h.street_burns = h.burn_credit
    h.burn_credit = 0
    if h.burn_debt:
        h.burn_debt = core.shift(h.burn_debt, BurnDebt.NONE)
    h.set_aside.clear()
    cards = known_cards(core.card_of, h.board)
    # the fact (decisions.py): the street is out, before its betting round opens
    core.out.append(StreetDealt(_number(coming), tuple(cards), core.t))
    betting.open_street(core)


def _missing_burn(core: TableCore, h: Hand, e: CardPlaced) -> None:
    h.pending_board = e.tag
    if core.profile.burn_error is BurnError.RESHUFFLE_STREET:
        h.void_street = True
        h.set_aside.add(e.tag)
        remedy = (
            f"No burn before {core.card_name(e.tag)}: return this street's board cards to the "
            "stub, reshuffle, burn and deal them again"
        )
    else:
        remedy = f"No burn: move {core.card_name(e.tag)} to the burn, then deal the board card"
    core.alert(AlertCode.MISSING_BURN, Severity.WARNING, _burn_clause(core), remedy, tag=e.tag)
    if h.void_street or h.runout:
        # 003: the street is void; a run-out (000 irreg-12c): correctable until the award
        return
    # the card is read as the board card it was dealt as until it is corrected (it may
    # stand: 000 irreg-12a once action is taken on it; 004 AR-16 corrects it at any time)
    h.board.append(e.tag)
    coming = _coming(h)
    if len(h.board) >= _BOARD_SIZE[_number(coming)]:
        _street_dealt(core, h, coming)


def _four_card_flop(core: TableCore, h: Hand, e: CardPlaced) -> None:
    prof = core.profile
    cards = [*h.board, e.tag]
    times = [h.read_t.get(t, 0.0) for t in cards]
    order_known = len(set(times)) == len(times)
    if prof.four_card_flop is FourCardFlop.FOURTH_IS_BURN:
        if order_known:
            h.four_flop = [e.tag]
            core.alert(
                AlertCode.FOUR_CARD_FLOP,
                Severity.WARNING,
                "002 Four-card flop a); TDA 39-A",
                f"Four-card flop: {core.card_name(e.tag)} came fourth; move it to the burn "
                "(it is the turn's burn)",
                tag=e.tag,
            )
        else:
            h.four_flop = list(cards)
            h.floor_draw = True
            core.alert(
                AlertCode.FOUR_CARD_FLOP,
                Severity.CRITICAL,
                "002 Four-card flop b); TDA 39-A",
                "Four-card flop, order unknown: call the floor. The floor scrambles the four "
                "cards face down and draws one as the burn",
                tag=e.tag,
            )
        h.board = [t for t in cards if t not in h.four_flop] if order_known else [*h.board]
        if order_known and len(h.board) == 3:
            _street_dealt(core, h, Street.FLOP)
        return
    h.redeal_flop = True
    h.no_burn.add(int(Street.FLOP))
    h.set_aside.update(cards)
    h.board = list(cards)
    core.alert(
        AlertCode.FOUR_CARD_FLOP,
        Severity.WARNING,
        "000 SECTION 3 IRREGULARITIES 10 [L142]; 003 Dealer errors flop; 004 AR-2",
        "Too many flop cards: return the board to the stub (the burn stays), reshuffle, cut "
        "and deal a new flop without a burn",
        tag=e.tag,
    )


def _premature(core: TableCore, h: Hand, e: CardPlaced) -> None:
    coming = _coming(h) if core.phase is not Phase.DEALING else Street.FLOP
    h.set_aside.add(e.tag)
    if int(coming) in h.premature:
        return
    h.premature.add(int(coming))
    prof = core.profile
    seat = rounds.pending_bet(core) or bb_option.open_seat(core)
    if coming is Street.FLOP:
        if h.street_burns or h.burn_credit:
            h.no_burn.add(int(Street.FLOP))
        core.alert(
            AlertCode.PREMATURE_FLOP,
            Severity.WARNING,
            "000 SECTION 3 IRREGULARITIES 11 [L143]; 002 Flop exposed early; "
            "003 Dealer errors flop early; 004 AR-3",
            "Premature flop: take the flop cards back. Finish the pre-flop betting; the burn "
            "stays; reshuffle the flop cards into the stub, cut and flop without a burn",
            seat,
            e.tag,
        )
        if h.burn_credit:
            h.street_burns, h.burn_credit = h.burn_credit, 0
        return
    code = AlertCode.PREMATURE_TURN if coming is Street.TURN else AlertCode.PREMATURE_RIVER
    if coming is Street.TURN and prof.premature_turn is PrematureTurn.WOULD_BE_RIVER:
        h.no_burn.add(int(Street.RIVER))
        h.burn_credit = 0
        remedy = (
            f"Premature turn: set {core.card_name(e.tag)} aside. After the flop betting burn and "
            "deal the turn (the would-be river); after that round shuffle the set-aside card "
            "into the stub and deal the river without a burn"
        )
        clause = "000 SECTION 3 IRREGULARITIES 13 [L145]; 004 AR-4a"
    else:
        h.no_burn.add(int(coming))
        remedy = (
            f"Premature {'turn' if coming is Street.TURN else 'river'}: take "
            f"{core.card_name(e.tag)} back. After the betting reshuffle it into the stub and "
            "deal the card without a burn (the burn stays)"
        )
        clause = (
            "000 SECTION 3 IRREGULARITIES 13b [L145]; 002 Turn/River exposed early; "
            "003 Dealer errors turn/river early; 004 AR-4b"
        )
    core.alert(code, Severity.WARNING, clause, remedy, seat, e.tag)


def on_board_removed(core: TableCore, tag: str) -> None:
    h = core.hand
    assert h is not None
    if h.void_street:
        h.set_aside.discard(tag)
        h.void_street = bool(h.set_aside)
        return
    if tag == h.pending_board:
        _restore(core, h, tag)
        return
    if h.floor_draw and h.floor_ok and tag in h.four_flop and core.phase is Phase.BOARD:
        # 002 Four-card flop b) [L113]: the director holds the drawn card aside; it is the
        # next burn and the other three are the flop
        h.board = [t for t in h.four_flop if t != tag]
        h.four_flop.clear()
        h.floor_draw = h.floor_ok = False
        h.required_burn = tag
        core.instruct(f"{core.card_name(tag)} is the next burn; the other three are the flop")
        _street_dealt(core, h, Street.FLOP)
        return
    h.set_aside.discard(tag)
    if tag in h.board and (h.redeal_flop or tag in h.four_flop or core.phase is Phase.BOARD):
        h.board.remove(tag)


def supervisor(core: TableCore, e: BadgeTap) -> bool:
    """A supervisor's badge: the director draws a four-card flop's burn (002 b), or - True -
    authorises the misdeal the dealer called after its window closed (the handler rules it:
    ``misdeal.force_misdeal``)."""
    h = core.hand
    if h is None:
        return False
    if h.floor_draw:
        h.floor_ok = True  # 002 Four-card flop b) [L113]: the director draws
        core.instruct("Floor: draw one of the four face-down cards; place it on the burn")
        return False
    called = h.misdeal_call is MisdealCall.CALLED
    return called and core.phase in (Phase.DEALING, Phase.BETTING, Phase.BOARD)


def burn_on_muck(core: TableCore, tag: str) -> None:
    """000 GLOSSARY BURNCARD [L241] (the burn goes face down on the table, "not in the
    muck"); 003 Flop [L95] (the burn antenna covers where 003 burns): a card that is no
    seat's hole card read on the muck antenna while the coming street's burn is expected."""
    h = core.hand
    if h is None or core.phase is not Phase.BOARD or h.street is Street.RIVER:
        return
    if h.street_burns or h.required_burn or h.pending_board:
        return
    known = set(h.board) | set(h.burns) | h.set_aside | set(h.four_flop)
    if tag in known or any(tag in p.cards or tag in p.hole for p in h.players.values()):
        return
    core.alert(
        AlertCode.WRONG_BURN,
        Severity.WARNING,
        "000 GLOSSARY BURNCARD [L241]; 003 Flop [L95]",
        f"The burn goes on the burn spot, not the muck: move {core.card_name(tag)} to the burn",
        tag=tag,
    )


def _restore(core: TableCore, h: Hand, tag: str) -> None:
    """The card dealt without a burn leaves the board (to the burn): 000 irreg-12a before
    any action on it, 004 AR-16 "if at all possible" at any time."""
    h.pending_board = ""
    if tag in h.board:
        h.board.remove(tag)
    street = h.street
    n = _number(street)
    if street is _PREFLOP or len(h.board) >= _BOARD_SIZE[n]:
        return  # the flop was not complete yet: the card's place is dealt next
    acted = False
    for a in h.actions:
        if a.street == n:
            acted = True
            break
    if acted or core.phase is not Phase.BETTING:
        h.refill = True  # 004: bets on the street stand; the proper card takes its place
        return
    # nobody acted on it: the street is dealt again from its burn
    h.street = _BEFORE[n]
    h.street_burns = 0
    core.enter(Phase.BOARD)


# Writers for the concerns that need the board and burns changed (misdeal.py, dealing.py;
# the betting round below this module through the table: ``TableCore.round_closed`` and
# ``board_stands``): they are written in this module only (tests/rules/test_state_owners.py).


def round_closed(h: Hand) -> None:
    """The betting round closed (``betting.after_change``). A burn made while the round was
    still open (ACTION_PENDING), or a card that must be the next burn and was burned early,
    is the coming street's burn: 000-S3-irreg-12b "later cards are those that would have
    come" - no second burn, no missing-burn alert."""
    h.street_burns += h.burn_credit
    h.burn_credit = 0


def stands(core: TableCore, h: Hand) -> None:
    """An action on the board card dealt without a burn (``rounds.record``, under
    ``burn_error = "correct-before-action"``). 000 IRREGULARITIES 12. [L144]: "Once action has
    been taken on a board card, the card must stand"; later cards are those that would have
    come: the next street burns two."""
    h.pending_board = ""
    h.burn_debt = core.shift(h.burn_debt, BurnDebt.OWED)
    core.instruct(
        "The board stands (action was taken on it): burn two cards before the next board card"
    )


def burned_off_table(h: Hand, tag: str) -> None:
    """A card dealt off the table lies on the burn antenna: it is the flop's burn."""
    h.burns.append(tag)
    h.burn_credit += 1


def require_burn(h: Hand, tag: str) -> None:
    """``tag`` must be the next burn (an exposed card, an extra card)."""
    h.required_burn = tag


def release_burn(h: Hand, tag: str) -> None:
    """``tag`` no longer has to be the next burn (the press's ruling withdrawn)."""
    if h.required_burn == tag:
        h.required_burn = ""
