"""The blinds and antes as they are posted, before the first card (issue 13).

Chips reach the core as a zone's amount once the reader's scan cycle has closed on them
(``firmware_bridge.antennas``: one ``ChipsIn`` per seat and cycle, the chips still). Chips
put in between hands are the coming hand's forced bets (``TableCore.posted``); this module
rules on them at once, so that the dealer corrects a post before dealing, and the first
card is not dealt into a misdeal (000-S3-misdeal-1g):

- chips in the zone of a seat that owes nothing: the blinds are out of position (000
  SECTION 1 item 14 [L50], RULES FOR POSTING BLINDS 2 [L223]); the alert names the seats due;
- heads-up, the blinds swapped (the button, the small blind, posted the big blind and the
  other seat the small blind: 000 RULES FOR POSTING BLINDS 4 [L225], 004 TG 24. [L133]):
  one ``BLINDS_OUT_OF_POSITION`` naming both seats, to swap them; the big blind's amount on
  the button is not ruled over-posted until the other seat posts (it may be the first half
  of a swap);
- more than the seat owes: an over-posted blind raises nothing, the big blind is the
  clock's (000 SECTION 2 THE BLINDS [L64]); the excess is to be taken back;
- less than the seat owes (and not its whole stack), once every seat due has posted: the
  blind is short (000 [L63-64], SECTION 1 item 6 (2nd run) [L42]).

The same amounts are taken at the first card (:func:`take_forced`); a post corrected
before it deals clean. The rulings are per event (nothing is stored): an event that
leaves a seat's post right says nothing.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Final

from controller.rules import betting, player, rounds
from controller.rules.decisions import AlertCode, Severity
from controller.rules.errors import TableError
from controller.rules.events import ChipsIn, ChipsOut
from controller.rules.hand import Hand, Level
from controller.rules.profile import AnteOrder, AnteStyle
from controller.rules.seating import Positions, dealt_in

if TYPE_CHECKING:
    from controller.rules.engine import TableCore

# Enum members on the per-event path, looked up once: ``Phase.X`` costs a Python-level
# ``EnumType.__getattr__`` hook per lookup in Python 3.11 (and a getattr in the compiled core)
_ANTE_FIRST: Final = AnteOrder.ANTE_FIRST
_BIG_BLIND: Final = AnteStyle.BIG_BLIND

CLAUSE_POSITION: Final = (
    "000 SECTION 1 item 14 (2nd run) [L50]; 000 RULES FOR POSTING BLINDS 2 [L223]"
)
CLAUSE_OVER: Final = "000 SECTION 2 THE BLINDS [L64]: the big blind is determined by the clock"
CLAUSE_SHORT: Final = "000 SECTION 2 THE BLINDS [L63-64]; 000 SECTION 1 item 6 (2nd run) [L42]"
CLAUSE_SWAPPED: Final = (
    "000 RULES FOR POSTING BLINDS 4 [L225]; 000 SECTION 1 item 15 (2nd run) [L51]; "
    "004 TG 24. [L133]: heads-up the small blind is on the button"
)


def forced_due(
    pos: Positions, dealt: Collection[int], lvl: Level, ante_style: AnteStyle
) -> dict[int, list[tuple[str, int]]]:
    """The forced bets of a hand: seat -> [(kind, amount)], kinds ``post_ante``,
    ``post_sb``, ``post_bb`` (in that order; the caller orders a short big blind's)."""
    return _forced_due(pos, dealt, lvl.small_blind, lvl.big_blind, lvl.ante, ante_style)


def _forced_due(
    pos: Positions,
    dealt: Collection[int],
    small_blind: int,
    big_blind: int,
    ante: int,
    ante_style: AnteStyle,
) -> dict[int, list[tuple[str, int]]]:
    """:func:`forced_due` of the level's amounts (the hand's own at its first card: no
    ``Level`` built for them)."""
    due: dict[int, list[tuple[str, int]]] = {}
    sb, bb = pos.sb, pos.bb
    if ante:
        if ante_style is _BIG_BLIND:
            if bb in dealt:  # the big blind's seat left after the button was set
                due[bb] = [("post_ante", ante)]
        else:
            for s in sorted(dealt):
                due[s] = [("post_ante", ante)]
    # (get and set, not ``setdefault(s, [])``: a slow path in the compiled core)
    if sb in dealt and small_blind:
        items = due.get(sb)
        if items is None:
            due[sb] = [("post_sb", small_blind)]
        else:
            items.append(("post_sb", small_blind))
    if bb in dealt:
        items = due.get(bb)
        if items is None:
            due[bb] = [("post_bb", big_blind)]
        else:
            items.append(("post_bb", big_blind))
    return due


def swapped_blinds(
    pos: Positions,
    dealt: Collection[int],
    due: Mapping[int, list[tuple[str, int]]],
    posted: Mapping[int, int],
) -> tuple[int, int] | None:
    """Heads-up blinds posted the wrong way round: (the small blind's seat, the big blind's
    seat) when the small blind's seat (the button) has exactly what the big blind owes in
    its zone and the big blind's seat exactly what the small blind owes; else None."""
    sb, bb = pos.sb, pos.bb
    if len(dealt) != 2 or sb == bb or sb not in due or bb not in due:
        return None
    sb_owes, bb_owes = _owed(due[sb]), _owed(due[bb])
    if sb_owes != bb_owes and posted.get(sb, 0) == bb_owes and posted.get(bb, 0) == sb_owes:
        return sb, bb
    return None


def swapped_remedy(sb: int, bb: int, due: Mapping[int, list[tuple[str, int]]], when: str) -> str:
    """The remedy of heads-up blinds swapped, naming both seats."""
    sb_owes, bb_owes = _owed(due[sb]), _owed(due[bb])
    return (
        f"Blinds out of position (swapped): seat {sb}, on the button, is the small blind and "
        f"posted {bb_owes}; seat {bb} is the big blind and posted {sb_owes}: swap them "
        f"(seat {sb} {sb_owes}, seat {bb} {bb_owes}) {when}"
    )


def coming_level(core: TableCore) -> Level:
    """The level of the hand the chips are posted for (G11: a level set before its first
    blind; a re-deal keeps its hand's level)."""
    pend = core.pending_level
    if pend is not None and not core.level_waits and not core.redeal_pending:
        return pend
    return core.level


def _owed(items: list[tuple[str, int]]) -> int:
    total = 0
    for _, a in items:
        total += a
    return total


def _heads_up(
    core: TableCore,
    pos: Positions,
    dealt: Collection[int],
    due: dict[int, list[tuple[str, int]]],
    seat: int,
    first: bool,
) -> bool:
    """Heads-up (000 [L225], 004 TG-24): blinds swapped are one ruling naming both seats;
    the big blind's amount on the button waits for the other seat's post. ``first``: these
    are the first chips in ``seat``'s zone. True if this ruled (or held back) the post."""
    sb, bb = pos.sb, pos.bb
    if sb in core.presence_posts or bb in core.presence_posts:
        return False
    pair = swapped_blinds(pos, dealt, due, core.posted)
    if pair is not None:
        core.alert(
            AlertCode.BLINDS_OUT_OF_POSITION,
            Severity.WARNING,
            CLAUSE_SWAPPED,
            swapped_remedy(sb, bb, due, "before the deal"),
            seat,
        )
        return True
    big = _owed(due[bb])
    if seat == sb and core.posted.get(sb, 0) == big and core.posted.get(bb, 0) == 0:
        return True  # an over-post, or the first half of blinds swapped: the other seat says
    if seat == bb and first and core.posted.get(sb, 0) == big:
        # the big blind's first chips, and the button held the big blind's amount: it was
        # an over-post after all (000 [L64])
        owed = _owed(due[sb])
        core.alert(
            AlertCode.BLIND_OVERPOSTED,
            Severity.WARNING,
            CLAUSE_OVER,
            f"Seat {sb}: {big} posted, owes {owed} ({_names(due[sb])}): take back "
            f"{big - owed}; an over-posted blind raises nothing",
            sb,
        )
    return False


def _names(items: list[tuple[str, int]]) -> str:
    return " and ".join(f"the {k[5:]} {a}" for k, a in items)


# The posts (``TableCore.posted``, ``presence_posts``) are this module's record: only the
# functions below write them (tests/rules/test_state_owners.py); the deal takes them
# (take_forced, through take_posts), a misdeal or a void gives the chips back as the
# re-deal's posts (set_posts). ``TableCore.coming`` is the posts' working: the seats the
# coming hand deals in and their forced bets, worked out at the first post and kept while
# only chips move (each post was ruling on them afresh: two or more times a hand).


def take_posts(core: TableCore) -> tuple[dict[int, int], set[int]]:
    """The chips in the zones at the first card, and the seats sensed by presence only:
    taken (the hand's forced bets); the record is empty after."""
    posted = dict(core.posted)
    core.posted.clear()
    presence, core.presence_posts = core.presence_posts, set()
    return posted, presence


def set_posts(core: TableCore, posted: dict[int, int]) -> None:
    """The chips in the zones after a misdeal (the forced bets stay for the re-deal) or a
    void (none)."""
    core.posted = posted


def forget_coming(core: TableCore) -> None:
    """The table changed (any event but chips between hands, a restore, a profile switch):
    the coming hand's seats and forced bets (``core.coming``, kept by :func:`chips_posted`
    while only chips move between hands, which changes neither) are worked out again."""
    core.coming = None


def chips_in(core: TableCore, e: ChipsIn) -> None:
    """Chips into a betting zone between hands: the coming hand's forced bets, ruled at once
    (before the first card)."""
    core.posted[e.seat] = core.posted.get(e.seat, 0) + (1 if e.amount is None else e.amount)
    if e.amount is None:
        core.presence_posts.add(e.seat)
    chips_posted(core, e.seat, e.amount)


def chips_out(core: TableCore, e: ChipsOut) -> None:
    """Chips taken back out of a betting zone between hands."""
    if e.seat in core.posted:
        left = core.posted[e.seat] - (e.amount or core.posted[e.seat])
        if left > 0:
            core.posted[e.seat] = left
        else:
            del core.posted[e.seat]


def chips_posted(core: TableCore, seat: int, added: int | None) -> None:
    """Chips worth ``added`` (None: presence-only sensors) were added to ``seat``'s zone
    between hands (``core.posted`` holds the total): rule on the post at once."""
    pos = core.positions
    if pos is None:
        return  # no button yet: nobody is due
    coming = core.coming
    if coming is None:
        try:
            dealt = dealt_in(pos, core.seats, core.profile)
        except TableError:
            return  # no hand can start: the chips are not blinds yet
        due = forced_due(pos, dealt, coming_level(core), core.profile.ante_style)
        core.coming = coming = (dealt, due)
    dealt, due = coming
    items = due.get(seat)
    if items is None:
        blinds = f"small blind seat {pos.sb}" if pos.sb in due else "no small blind"
        core.alert(
            AlertCode.BLINDS_OUT_OF_POSITION,
            Severity.WARNING,
            CLAUSE_POSITION,
            f"Blinds out of position: {blinds}, big blind seat {pos.bb}; seat {seat}: take "
            "back its chips before the deal",
            seat,
        )
        return
    if added is None or seat in core.presence_posts:
        return  # presence-only sensors cannot tell the amount (L3)
    have = core.posted.get(seat, 0)
    owed = _owed(items)
    stack = core.seats[seat].stack
    heads_up = len(dealt) == 2 and pos.sb != pos.bb and pos.sb in due and pos.bb in due
    if heads_up and _heads_up(core, pos, dealt, due, seat, have == added):
        return
    if have > owed and have <= stack:
        core.alert(
            AlertCode.BLIND_OVERPOSTED,
            Severity.WARNING,
            CLAUSE_OVER,
            f"Seat {seat}: {have} posted, owes {owed} ({_names(items)}): take back "
            f"{have - owed}; an over-posted blind raises nothing",
            seat,
        )
        return
    # a short post, once every seat due has posted something (a post still being made
    # is not ruled short): every seat's when this seat's chips complete the set, else this
    # seat's own
    for s in due:
        if core.posted.get(s, 0) == 0 or s in core.presence_posts:
            return
    completes = have == added  # this seat's first chips: the set is complete only now
    for s in sorted(due):  # (the seats, not the items: ints sort without tuple compares)
        if s != seat and not completes:
            continue
        its = due[s]
        put = core.posted.get(s, 0)
        owed = _owed(its)
        if 0 < put < min(owed, core.seats[s].stack) and core.seats[s].present:
            core.alert(
                AlertCode.BLINDS_NOT_POSTED,
                Severity.WARNING,
                CLAUSE_SHORT,
                f"Seat {s}: {put} posted of {owed} ({_names(its)}): post the full blind "
                f"({owed - put} more) before the deal",
                s,
            )


def _blind_before_ante(item: tuple[str, int]) -> bool:
    """Sort key: the ante last (module level: a lambda in ``take_forced`` would allocate its
    closure on every call, in the compiled core)."""
    return item[0] == "post_ante"


def _ante_before_blind(item: tuple[str, int]) -> bool:
    """Sort key: the ante first."""
    return item[0] != "post_ante"


def take_forced(core: TableCore, h: Hand) -> None:
    """The first card of a hand (``dealing.start_hand``): the blinds and antes taken from
    the chips already in the zones; a missing one is posted from the seat's stack with an
    alert (000-S1-absent-4, 000-S2-blinds-1), a wrong one ruled once more."""
    prof = core.profile
    players = h.players
    due = _forced_due(h.pos, players, h.small_blind, h.big_blind, h.ante, prof.ante_style)
    if h.ante:  # (only an ante makes two items for a seat)
        # G10 (TDA 2024): a short big blind posts the blind before the ante; a profile may
        # keep the older practice, the ante first (bb_ante_order)
        ante_first = prof.bb_ante_order is _ANTE_FIRST
        for items in due.values():
            if len(items) > 1:
                items.sort(key=_ante_before_blind if ante_first else _blind_before_ante)
    posted, presence = take_posts(core)
    # 000 [L225], 004 TG-24: heads-up blinds swapped are one ruling naming both seats
    swapped = None if presence else swapped_blinds(h.pos, players, due, posted)
    if swapped is not None:
        core.alert(
            AlertCode.BLINDS_OUT_OF_POSITION,
            Severity.WARNING,
            CLAUSE_SWAPPED,
            swapped_remedy(*swapped, due, "before the action"),
            swapped[1],
        )
    seats = core.seats
    for s, items in due.items():
        p = players[s]
        owed = 0
        for _, a in items:
            owed += a
        # (not posted.pop(s, 0): a Python-level method call in the compiled core)
        if s in posted:
            have = posted[s]
            del posted[s]
        else:
            have = 0
        present = swapped is None and seats[s].present  # (swapped: ruled above)
        if present and have < min(owed, p.stack) and have == 0:
            core.alert(
                AlertCode.BLINDS_NOT_POSTED,
                Severity.WARNING,
                "000 SECTION 2 THE BLINDS [L62]; 004 TG-3",
                f"Seat {s}: post {owed} ({', '.join(k[5:] for k, _ in items)}) before the deal",
                s,
            )
        elif present and 0 < have < min(owed, p.stack) and s not in presence:
            # 000-S1-shortblind-6, 000-S2-blinds-2: short, and not the whole stack (amounts
            # sensed only: presence-only chip sensors cannot tell, L3)
            core.alert(
                AlertCode.BLINDS_NOT_POSTED,
                Severity.WARNING,
                "000 SECTION 1 item 6 (2nd run) [L42]; 000 SECTION 2 THE BLINDS [L63-64]",
                f"Seat {s}: {have} posted of {owed}: post the full blind ({owed - have} more)",
                s,
            )
        elif present and have > owed and s not in presence:
            # 000 [L64]: the big blind is the clock's; the excess is not a raise
            core.alert(
                AlertCode.BLIND_OVERPOSTED,
                Severity.WARNING,
                CLAUSE_OVER,
                f"Seat {s}: {have} posted, owes {owed}: take back {have - owed} before the "
                "action; an over-posted blind raises nothing",
                s,
            )
        if have < owed:
            betting.unconfirmed(h, s, min(owed, p.stack) - have)
        for kind, amount in items:
            amt = min(amount, p.stack)
            if amt <= 0:
                continue
            player.posts(p, amt, kind != "post_ante")
            rounds.record(core, h, p.seat, kind, amt)
    rounds.set_bets(h, h.big_blind, h.big_blind)
    for s, amount in posted.items():
        # chips in a non-blind zone before the first card: an early bet, returned
        core.alert(
            AlertCode.ACTION_OUT_OF_TURN,
            Severity.WARNING,
            "000 SECTION 2 PRE-FLOP BETTING [L72]",
            f"Seat {s}: chips in before the deal; take back {amount}",
            s,
        )
