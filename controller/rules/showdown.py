"""The end of a hand: the showdown (show order, hands tabled or mucked, the alerts before the
award), side pots, evaluation, split pots and the odd chip, uncalled bets.

The showdown, once the last betting round is over with two or more hands left (the phase
SHOWDOWN): the core prompts the show order (002 [L47]: the river's last aggressor first,
else the first live seat left of the button, then clockwise). The dealer confirms each
prompted hand as tabled with one ACK press (a face-up sensor would send the same
confirmation, docs/hardware-gpio-pcsc.md); hole cards put on the muck muck that hand. A hand
mucked untabled has no claim where the profile says so (000 [L166], 002 [L51], 004 AR-6).
The tabled winner going to the muck stops the dealer (002 [L59], 003 [L63]), and where the
profile says so the pot waits until every losing hand is killed (003 [L63]). When every hand
is decided, each pot is awarded among the tabled hands; the chips are pushed after that, so a
winner going to the muck while a tabled loser is still on its spot stops the dealer too
(``_after_award``). The best hand read mucked untabled is HAND_NOT_TABLED: a warning where
players hold their cards until the winner is declared (000 [L167]), else a note; under 004
HE-10 any hand mucked unshown is noted. After an all-in run-out the hands
were turned face up before the board (ALL_IN_FACE_UP): they are tabled at once."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from controller.rules import player
from controller.rules.cards import Card, known_cards
from controller.rules.decisions import AlertCode, PotRecord, Severity
from controller.rules.errors import TableError
from controller.rules.evaluate import score, score_label
from controller.rules.events import CardPlaced, ZoneKind
from controller.rules.hand import Hand
from controller.rules.phases import Phase
from controller.rules.pots import Pot, build_pots, split
from controller.rules.seating import clockwise

if TYPE_CHECKING:
    from controller.rules.engine import TableCore

# Enum members on the per-event path, looked up once: ``Phase.X`` costs a Python-level
# ``EnumType.__getattr__`` hook per lookup in Python 3.11 (and a getattr in the compiled core)
_COMPLETE: Final = Phase.COMPLETE
_BOARD_ZONE: Final = ZoneKind.BOARD
_MUCK_ZONE: Final = ZoneKind.MUCK


def sixth_board_card(core: TableCore, tag: str) -> None:
    """A card on the board antenna when the board has its five cards (at the showdown; or
    ``board.on_board`` on the river). 003 River [L109] (the river "is the last card dealt
    for the players"), 004 HE 3.-9.: five board cards in all; a sixth is no card of the hand
    (neither a premature card nor the end of the river betting)."""
    core.alert(
        AlertCode.TOO_MANY_BOARD_CARDS,
        Severity.WARNING,
        "003 River [L109]; 004 HE 3.-9. [L17-29]; 000 SECTION 2 THE RIVER [L93]",
        f"A sixth board card: take {core.card_name(tag)} back; the board is complete",
        tag=tag,
    )


def showdown_first(core: TableCore, h: Hand) -> int:
    """Who shows first (002 ShowdownOrder-1, 000 C19): the last aggressor of the final round,
    else the first live seat left of the button."""
    last_street = int(h.street)
    last = 0  # the last aggressor of the final round (loops: no list or set made per hand)
    for a in h.actions:
        if a.street == last_street and a.kind in ("bet", "raise"):
            last = a.seat
    players = h.players
    if last:
        p = players.get(last)
        if p is not None and not (p.folded or p.dead):  # p.live, inlined
            return last
    for s in clockwise(h.pos.button, core.max_seats):
        q = players.get(s)
        if q is not None and not (q.folded or q.dead):
            return s
    return 0


def show_order(core: TableCore, h: Hand) -> list[int]:
    """The live seats in show order: the first to show, then clockwise (002 [L47]); the
    players in a side pot before anyone all in for less, the last side pot's first (000
    [L171]: "players involved in the side pot should show their hands before anyone who is
    all-in for only the main pot"; the other rulebooks are silent on side pots)."""
    first = showdown_first(core, h)
    ring = clockwise(first, core.max_seats)
    players = h.players
    # (the larger total first, then clockwise from ``first`` itself: sorted by a tuple, not
    # with a lambda, whose closure the compiled core allocates on every call)
    keyed: list[tuple[int, int, int]] = []
    n = len(ring)
    for i in range(n):
        s = ring[i - 1]  # ring[-1] is ``first``
        p = players.get(s)
        if p is not None and not (p.folded or p.dead):  # p.live, inlined
            keyed.append((-p.total, i, s))
    keyed.sort()
    return [k[2] for k in keyed]


def begin(core: TableCore) -> None:
    """The last betting round is over (or the run-out is complete) with hands to show."""
    h = core.hand
    assert h is not None
    h.show_order = show_order(core, h)
    first = h.show_order[0]
    back, excess = _uncalled_bet(h)
    if excess:  # 003 [L119], [L131]: the bet nobody can call goes back before the show
        core.instruct(f"Uncalled bet: return {excess} to seat {back}", back)
    core.enter(Phase.SHOWDOWN)
    if h.runout:  # all in: every hand was turned face up before the board
        for s in h.show_order:
            h.shows[s] = True
        core.instruct(f"Showdown: seat {first} shows first (the hands are face up)", first)
        _decide(core, h)
        return
    rest = ", ".join(str(s) for s in h.show_order[1:])
    text = (
        f"Showdown: seat {first} shows first, then seat{'s' if ',' in rest else ''} {rest}; "
        "ACK as each prompted hand is tabled, muck a hand that is not shown"
    )
    prof = core.profile
    shown_to_share = prof.untabled_muck_relinquishes and not prof.declared_board_keeps_claim
    if shown_to_share and _board_plays(core, h):  # 002 [L51], 000 [L166]: not declared
        text += "; a hand playing the board must show all hole cards to share the pot"
    core.instruct(text, first)


def _board_plays(core: TableCore, h: Hand) -> bool:
    """The five board cards are the best hand of some live seat."""
    board = known_cards(core.card_of, h.board)
    if len(board) != 5:
        return False
    alone = hand_score(h, board)
    for s in h.show_order:
        hole = known_cards(core.card_of, h.players[s].hole)
        if len(hole) == 2 and hand_score(h, hole + board) == alone:
            return True
    return False


def hand_score(h: Hand, cards: list[Card]) -> int:
    """``score(cards)`` (a seat's seven cards, or the board alone), evaluated once per hand:
    the showdown asks at its start (a hand playing the board), at a muck (the best hand
    read) and at the award (``h.scores``, keyed by the cards' codes in order, six bits each;
    a card read or replaced since is another key, five cards never a seven's)."""
    key = 0
    for c in cards:
        code = c.code
        if code > 63:  # not a card of the deck: no key (score says what is wrong)
            return score(cards)
        key = key << 6 | code
    got = h.scores.get(key)
    if got is None:
        got = score(cards)
        h.scores[key] = got
    return got


def _prompted(h: Hand) -> int:
    for s in h.show_order:
        if s not in h.shows:
            return s
    return 0


def ack(core: TableCore) -> None:
    """ACK: the prompted seat's hand is tabled (one press per hand)."""
    h = core.hand
    assert h is not None
    seat = _prompted(h)
    if not seat:
        losers = live_losers(core, h)
        if not losers:
            raise TableError("no_hand", "every hand at the showdown is tabled or mucked")
        # every hand tabled, the dealer moves to award: 003 [L63], no pot while a losing
        # hand is live (one alert per losing hand, once)
        for s in losers:
            if s not in h.show_alerted:
                h.show_alerted = h.show_alerted | {s}
                core.alert(
                    AlertCode.LOSING_HAND_LIVE,
                    Severity.WARNING,
                    "003 [L63]",
                    "No pot may be awarded until all losing hands have been killed: "
                    f"muck the hand of seat {s}",
                    s,
                )
        return
    if len(known_cards(core.card_of, h.players[seat].hole)) < len(h.players[seat].hole):
        raise TableError("unread", f"seat {seat}'s hole cards are not read: cannot table them")
    h.shows[seat] = True
    _decide(core, h)


def on_card_placed(core: TableCore, e: CardPlaced) -> None:
    """A card placed during the showdown: a hole card on the muck mucks (or kills) that hand;
    a sixth board card is no card of the hand; anything else waits for the award."""
    h = core.hand
    if core.phase is _COMPLETE:
        if h is not None:
            _after_award(core, h, e)
        return
    assert h is not None
    if e.zone is _BOARD_ZONE and len(h.board) >= 5 and e.tag not in h.board:
        sixth_board_card(core, e.tag)
        return
    if e.zone is not _MUCK_ZONE:
        return
    owner = h.owner.get(e.tag)
    if owner is None or not owner.live:
        return
    seat = owner.seat
    shown = h.shows.get(seat)
    declared = core.profile.declared_board_keeps_claim and _declared_board(h, seat)
    if shown and declared:
        return  # 004 AR-6: a declared board's cards may go to the muck; the claim stands
    if shown:  # a tabled hand to the muck: killed; never the best tabled hand (002 [L59])
        if seat in _best_tabled(core, h):
            if seat not in h.show_alerted:
                h.show_alerted = h.show_alerted | {seat}
                core.alert(
                    AlertCode.WINNING_HAND_MUCKED,
                    Severity.CRITICAL,
                    "002 [L59]; 003 [L63]; 000 [L166]-[L169]",
                    f"Stop: seat {seat}'s tabled hand wins; take it back from the muck and "
                    "leave it face up until the pot is pushed",
                    seat,
                    e.tag,
                )
            return
        _decide(core, h)  # a losing hand killed (it stays recorded as shown)
        return
    if shown is None and declared:
        # 004 AR-6 [L53]: "You must declare that you are playing the board before you throw
        # your cards away": declared, the hand keeps its claim (its cards are read)
        h.shows[seat] = True
        core.instruct(f"Seat {seat} declared the board before the muck: the claim stands", seat)
        _decide(core, h)
        return
    if shown is None:
        # the hands still in it, this one included: was it the best hand read?
        others = [s for s in h.show_order if h.shows.get(s, True)]
        best = _best(core, h, others)
        h.shows[seat] = False
        noted = seat in best or core.profile.every_hand_shows  # 004 HE-10: every hand shows
        if core.profile.untabled_muck_relinquishes and noted and len(others) > 1:
            if (
                core.profile.hold_cards_until_winner and seat in best
            ):  # 000 [L167]: the dealer must hear it
                core.alert(
                    AlertCode.HAND_NOT_TABLED,
                    Severity.WARNING,
                    "000 [L166], [L167]; DEAD HANDS 2. [L126]",
                    f"Seat {seat}'s hand, the best read, went to the muck before the winner "
                    "is declared: no claim to the pot unless the director retrieves it",
                    seat,
                    e.tag,
                )
            else:
                core.alert(
                    AlertCode.HAND_NOT_TABLED,
                    Severity.INFO,
                    "000 [L166]; 002 [L51]; 004 AR-6, HE-10",
                    f"Seat {seat} mucked without tabling: no claim to the pot",
                    seat,
                )
        _decide(core, h)


def _after_award(core: TableCore, h: Hand, e: CardPlaced) -> None:
    """A hole card on the muck once the core has decided the pots at the tabling of the last
    hand (every profile but 003's): the chips are not pushed yet. A winning tabled hand going
    to the muck while a tabled hand that won nothing is still on its spot is the dealer killing
    the winner (002 [L59]; 000 [L167], [L169]: hands are killed, or the winner declared, before
    the award; a split pot's tied winner too). The winner gathered after the losers is the
    push. (A heads-up tie has no loser: nothing tells the gathering from a kill.)"""
    rec = core.last_record
    owner = h.owner.get(e.tag)
    if e.zone is not ZoneKind.MUCK or rec is None or owner is None or not h.show_order:
        return
    seat = owner.seat
    winners = {s for pot in rec.pots for s in pot.winners}
    if seat not in winners or not h.shows.get(seat) or seat in h.show_alerted:
        return
    live = [
        s for s, shown in h.shows.items() if shown and s not in winners and _on_seat(core, h, s)
    ]
    if not live:
        return
    h.show_alerted = h.show_alerted | {seat}
    pots = ", ".join(
        f"{pot.amount} to seat{'s' if len(pot.winners) > 1 else ''} "
        + " and ".join(str(s) for s in pot.winners)
        for pot in rec.pots
    )
    core.alert(
        AlertCode.WINNING_HAND_MUCKED,
        Severity.CRITICAL,
        "002 [L59]; 003 [L63]; 000 [L166]-[L169]",
        f"Stop: seat {seat}'s tabled hand wins (read before the muck): push the pot as read "
        f"({pots}), then kill the losing hand of seat {', '.join(map(str, live))}",
        seat,
        e.tag,
    )


def _declared_board(h: Hand, seat: int) -> bool:
    return any(a.seat == seat and a.kind == "declare_play_board" for a in h.actions)


def may_win(h: Hand, relinquish: bool) -> set[int]:
    """The hands that may win: the tabled ones (with ``relinquish`` off, the mucked ones too:
    cards speak from the tags); while nothing is tabled, the hand left unmucked."""
    out = {s for s, shown in h.shows.items() if shown or not relinquish}
    left = {s for s in h.show_order if s not in h.shows}
    if not relinquish:
        return out | left
    return out or left


def _best_tabled(core: TableCore, h: Hand) -> set[int]:
    """The tabled seats that win some pot."""
    return _best(core, h, [s for s, shown in h.shows.items() if shown])


def _best(core: TableCore, h: Hand, tabled: list[int]) -> set[int]:
    """Of ``tabled``, the seats whose cards win some pot."""
    board = known_cards(core.card_of, h.board)
    values: dict[int, int] = {}
    for s in tabled:
        hole = known_cards(core.card_of, h.players[s].hole)
        if len(hole) == 2 and len(board) == 5:
            values[s] = hand_score(h, hole + board)
    if not values:
        return set(tabled)
    contrib = {s: p.total for s, p in h.players.items()}
    best: set[int] = set()
    for pot in build_pots(contrib, set(values)):
        top = max(values[s] for s in pot.eligible)
        best |= {s for s in pot.eligible if values[s] == top}
    return best


def _on_seat(core: TableCore, h: Hand, seat: int) -> bool:
    """A hole card of ``seat`` is still on its hole-card spot (the hand is not killed)."""
    for tag in h.players[seat].hole:
        loc = core.where.get(tag)
        if loc is not None and loc[0] is ZoneKind.HOLE:
            return True
    return False


def _decide(core: TableCore, h: Hand) -> None:
    """Award once every hand is decided (and, where the profile says, every loser killed)."""
    undecided = [s for s in h.show_order if s not in h.shows]
    tabled = [s for s, shown in h.shows.items() if shown]
    if len(undecided) == 1 and not tabled:
        pass  # everyone else mucked: the last hand wins without showing
    elif undecided:
        core.instruct(f"Showdown: seat {undecided[0]} to show or muck", undecided[0])
        return
    losers = live_losers(core, h)
    if losers:
        # 003 [L63]: the dealer kills the losing hands, then awards; tabling the last hand
        # awards nothing, so it is no alarm (LOSING_HAND_LIVE belongs to the award: ack())
        best = ", ".join(str(s) for s in sorted(_best_tabled(core, h)))
        for s in losers:
            core.instruct(
                f"Showdown: muck the losing hand of seat {s} before the pot is awarded; "
                f"the winning hand (seat {best}) stays face up until then",
                s,
            )
        return
    core.finish_hand()


def live_losers(core: TableCore, h: Hand) -> list[int]:
    """Where the profile awards only once the losing hands are killed (003 [L63]), the
    tabled losing hands still on their seats once every hand is decided."""
    tabled = [s for s, shown in h.shows.items() if shown]
    if not core.profile.kill_losers_before_award or h.runout or len(tabled) < 2:
        return []
    if any(s not in h.shows for s in h.show_order):
        return []
    best = _best_tabled(core, h)
    return [s for s in tabled if s not in best and _on_seat(core, h, s)]


def _uncalled_bet(h: Hand) -> tuple[int, int]:
    """(seat, chips) of the bet nobody can call as the showdown begins (antes aside)."""
    contrib = {s: p.total for s, p in h.players.items()}
    for a in h.actions:
        if a.kind == "post_ante":
            contrib[a.seat] -= a.amount
    return uncalled(contrib, {s for s, p in h.players.items() if p.live})


def uncalled(contrib: dict[int, int], live: set[int]) -> tuple[int, int]:
    """(seat, chips) of the bet nobody called: what the highest live contributor put in
    above everyone else (a short blind's excess, a bet all fold to). (0, 0) if none."""
    top = 0
    first = second = 0
    for s, c in contrib.items():
        if c > first:
            top, second, first = s, first, c
        elif c > second:
            second = c
    if top and top in live and first > second:
        return top, first - second
    return 0, 0


def award(core: TableCore, h: Hand) -> tuple[list[PotRecord], tuple[tuple[int, int], ...]]:
    """Each pot's winners and shares, and the uncalled bet returned (not a pot won: 003
    [L119], 002 [L169])."""
    players = h.players
    live: set[int] = set()
    contrib: dict[int, int] = {}
    for s, p in players.items():
        contrib[s] = p.total
        if not (p.folded or p.dead):  # p.live, inlined
            live.add(s)
    show_order = h.show_order
    if show_order:  # a showdown: the pots go to the tabled hands
        live &= may_win(h, core.profile.untabled_muck_relinquishes)
    # antes are dead money (TDA 2024, big blind ante; G10): in the main pot, never part of
    # a live bet, so never matched, never returned as uncalled
    dead = 0
    if h.ante:
        for a in h.actions:
            if a.kind == "post_ante":
                contrib[a.seat] -= a.amount
                dead += a.amount
    back, excess = uncalled(contrib, live)
    given_back = h.given_back
    returned: tuple[tuple[int, int], ...] = ()
    if excess or given_back:
        given = dict(given_back)  # returned by a floor ruling during the hand (retrieve.py)
        if excess:
            contrib[back] -= excess
            player.paid(players[back], excess)
            given[back] = given.get(back, 0) + excess
            if len(live) > 1 and not show_order:  # a fold-out's winner takes it all anyway;
                # at a showdown it was said before the show (begin)
                core.instruct(f"Uncalled bet: return {excess} to seat {back}", back)
        returned = tuple(sorted(given.items()))
    if len(live) == 1 and not show_order:
        return _fold_out(core, h, contrib, live.pop(), dead), returned
    pots = build_pots(contrib, live)
    if dead:
        everyone = tuple(sorted(live))
        if pots and pots[0].eligible == everyone:
            pots[0] = Pot(pots[0].amount + dead, everyone)
        else:  # a live seat put in nothing but its ante: the antes are a pot of their own
            pots.insert(0, Pot(dead, everyone))
    # seat -> its place clockwise after the button (the button last), for the odd chip:
    # worked out for the first pot split between several winners (most hands have none)
    ring: tuple[int, ...] = ()
    values: dict[int, int] = {}  # seat -> score (the fast path; names only for winners)
    if len(live) > 1:
        card_of = core.card_of
        board = known_cards(card_of, h.board)
        if len(board) == 5:
            for s in live:
                hole = known_cards(card_of, players[s].hole)
                if len(hole) == 2:
                    values[s] = hand_score(h, hole + board)
    chip = core.profile.smallest_chip
    out: list[PotRecord] = []
    for pot in pots:
        eligible = pot.eligible
        contenders: list[int] = []  # the eligible seats with a score, else all of them
        for s in eligible:
            if s in values:
                contenders.append(s)
        scored = bool(contenders)  # every contender has a score
        if not scored:
            contenders = list(eligible)
        name = ""
        if len(contenders) > 1 and scored:
            best = values[contenders[0]]
            for s in contenders:
                v = values[s]
                if v > best:  # noqa: PLR1730 (max() is a generic call in mypyc)
                    best = v
            winners = [s for s in contenders if values[s] == best]
            name = score_label(best)
        else:
            winners = contenders[:1]
        if len(winners) > 1 and not ring:
            ring = clockwise(h.pos.button, core.max_seats)
        shares, odd = split(pot.amount, winners, ring, chip)
        if odd:
            h.odd_chip = True
        for s, chips in shares:
            player.paid(players[s], chips)
        out.append(PotRecord(pot.amount, eligible, tuple(sorted(winners)), tuple(shares), name))
    return out, returned


def _fold_out(
    core: TableCore, h: Hand, contrib: dict[int, int], seat: int, dead: int
) -> list[PotRecord]:
    """:func:`award`'s pots when one hand is left and nothing was shown (most hands): what
    ``build_pots``, the antes' pot and ``split`` give then, one pot or none, without their
    lists and sorts. ``contrib`` is after the antes and the uncalled bet."""
    total = 0
    for c in contrib.values():
        total += c
    # build_pots: one pot of everything when one seat is live; the antes go into it, or
    # are the pot when nothing else was put in
    amount = total + dead if total else dead
    if not amount:
        return []
    only = (seat,)
    unit = core.profile.smallest_chip
    if amount % (unit if unit > 0 else 1) > 0:  # split: not in whole chips
        h.odd_chip = True
    player.paid(h.players[seat], amount)
    return [PotRecord(amount, only, only, ((seat, amount),), "")]
