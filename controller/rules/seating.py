"""The table across hands: seats, the dead button, blinds, heads-up, new players.

Pure functions over small frozen values; the engine keeps the current :class:`Positions`.
"""

from __future__ import annotations

from collections.abc import Collection, Container
from dataclasses import dataclass
from enum import Enum
from typing import Final

from controller.rules.errors import TableError
from controller.rules.profile import ButtonRule, NewPlayerWait, Profile


class SeatStatus(Enum):
    ACTIVE = "active"  # dealt in
    WAITING = "waiting"  # new player waiting for the button to pass
    BUSTED = "busted"  # no chips left; removed before the next hand


# Members on the per-event path, looked up once: ``SeatStatus.X`` costs a Python-level
# ``EnumType.__getattr__`` hook per lookup in Python 3.11 (and a getattr in the compiled core)
_BUSTED: Final = SeatStatus.BUSTED
_WAITING: Final = SeatStatus.WAITING
_DEAD_003: Final = ButtonRule.DEAD_003
_DEAD_KEEP_PLAYER: Final = ButtonRule.DEAD_KEEP_PLAYER


@dataclass(init=False, slots=True)
class Seat:
    """A seat's player between hands (mutable inside the engine, copied out in snapshots).
    ``name`` is the player's display name (the venue's, else the player id): the core is its
    one owner; the live state and the hand records read it from here.
    Explicit ``__init__`` (see decisions.py): the compiled core builds it natively."""

    player: str
    stack: int
    present: bool
    status: SeatStatus
    name: str

    def __init__(
        self,
        player: str,
        stack: int,
        present: bool = True,
        status: SeatStatus = SeatStatus.ACTIVE,
        name: str = "",
    ) -> None:
        self.player = player
        self.stack = stack
        self.present = present
        self.status = status
        self.name = name or player


@dataclass(init=False, unsafe_hash=True, slots=True)
class Positions:
    """Button, small-blind and big-blind positions of one hand (read-only: see decisions.py).

    ``sb`` is the small blind's *position*: it may be an empty seat (a dead small blind),
    in which case nobody posts it. ``button`` may be an empty seat (a dead button).
    """

    button: Final[int]
    sb: Final[int]
    bb: Final[int]
    heads_up: Final[bool]

    def __init__(self, button: int, sb: int, bb: int, heads_up: bool = False) -> None:
        self.button = button
        self.sb = sb
        self.bb = bb
        self.heads_up = heads_up


def _ring(start: int, max_seats: int) -> tuple[int, ...]:
    return tuple(((start - 1 + i) % max_seats) + 1 for i in range(1, max_seats + 1))


# _RINGS[max_seats][start]: every order a table of 2..10 seats can ask for, built once
_RINGS: Final[list[list[tuple[int, ...]]]] = [
    [_ring(start, n) if 1 <= start <= n else () for start in range(11)] for n in range(11)
]


def clockwise(start: int, max_seats: int) -> tuple[int, ...]:
    """Seats after ``start`` going clockwise, ending with ``start`` itself (a table lookup:
    it is on the path of every action)."""
    if 1 <= start <= max_seats <= 10:
        return _RINGS[max_seats][start]
    return _ring(start, max_seats)


def next_seat(after: int, seats: Container[int], max_seats: int) -> int:
    for s in clockwise(after, max_seats):
        if s in seats:
            return s
    return 0


def between(a: int, b: int, s: int, max_seats: int) -> bool:
    """Is ``s`` strictly after ``a`` and strictly before ``b`` going clockwise?"""
    order = clockwise(a, max_seats)
    return order.index(s) < order.index(b) and s not in (a, b)


def _mask(seats: Collection[int]) -> int:
    """``seats`` as a bit mask (bit ``s`` for seat ``s``): membership by a shift, not a
    generic ``in`` on whatever collection the caller has (a list compares element by
    element). -1 if a seat is outside 0..62 (no mask: the callers ask ``in`` instead)."""
    mask = 0
    for s in seats:
        if s < 0 or s > 62:
            return -1
        mask |= 1 << s
    return mask


def _in(mask: int, seat: int) -> bool:
    """``seat in seats`` for the ``seats`` of ``mask`` (a valid one: every seat 0..62)."""
    return 0 <= seat <= 62 and mask >> seat & 1 == 1


def _next_in(after: int, mask: int, max_seats: int) -> int:
    """:func:`next_seat` over a :func:`_mask`."""
    for s in clockwise(after, max_seats):
        if _in(mask, s):
            return s
    return 0


def _has(mask: int, live: Collection[int], seat: int) -> bool:
    """``seat in live``: by the :func:`_mask` of ``live``, or by ``in`` when it has none
    (a seat number no table has)."""
    return _in(mask, seat) if mask >= 0 else seat in live


def _after(seat: int, mask: int, live: Collection[int], max_seats: int) -> int:
    """:func:`next_seat` in ``live``, by its :func:`_mask` when it has one."""
    return _next_in(seat, mask, max_seats) if mask >= 0 else next_seat(seat, live, max_seats)


def first_positions(button: int, live: Collection[int], max_seats: int) -> Positions:
    """Positions for a hand whose button was placed (by a draw or by hand)."""
    mask = _mask(live)
    if len(live) == 2:
        btn = button if _has(mask, live, button) else _after(button, mask, live, max_seats)
        return Positions(btn, btn, _after(btn, mask, live, max_seats), heads_up=True)
    sb = _after(button, mask, live, max_seats)
    return Positions(button, sb, _after(sb, mask, live, max_seats))


def next_positions(prev: Positions, live: Collection[int], profile: Profile) -> Positions:
    """The next hand's positions under the dead-button rule (TDA 32, 000 SECTION 5).

    The big blind advances to the next player with chips; the small blind's position is the
    seat that was big blind, and the button the seat that was small blind, even if those
    seats are now empty (dead small blind, dead button). Heads-up the small blind is on the
    button and the big blind still advances, so nobody posts it twice in a row (002 HeadsUp).
    """
    mask = _mask(live)
    n = profile.max_seats
    bb = _after(prev.bb, mask, live, n)
    if len(live) == 2:
        other = _after(bb, mask, live, n)
        return Positions(other, other, bb, heads_up=True)
    sb = prev.bb
    button = prev.sb
    if prev.heads_up:
        button = prev.button
        sb = _after(button, mask, live, n)
        bb = _after(sb, mask, live, n)
        return Positions(button, sb, bb)
    if profile.button_rule is _DEAD_003 and not _has(mask, live, prev.sb) and prev.sb != prev.bb:
        # 003 [L49]: the small blind was eliminated: the button does not move.
        button = prev.button
    elif (
        profile.button_rule is _DEAD_KEEP_PLAYER
        and not _has(mask, live, button)
        and _has(mask, live, prev.button)
    ):
        # 004 TG-22 [L129]: the button stays in front of the same player (for two hands)
        # rather than go to the empty seat of an eliminated small blind
        button = prev.button
    return Positions(button, sb, bb)


def waits_for_button(seat: int, pos: Positions, profile: Profile) -> bool:
    """Does a new player in ``seat`` sit out this hand (C16, per profile)?"""
    n = profile.max_seats
    rule = profile.new_player_wait
    if rule is NewPlayerWait.NONE or pos.heads_up:
        return False
    if rule is NewPlayerWait.SB_OR_BUTTON_SEAT:
        return seat in (pos.sb, pos.button)
    if seat == pos.button:
        return True
    end = pos.sb if rule is NewPlayerWait.SB_TO_BUTTON else pos.bb
    return between(pos.button, end, seat, n)


def deal_order(
    pos: Positions, dealt: Container[int], max_seats: int, bb_first: bool = True
) -> list[int]:
    """Seats in the order they receive a card: from the first seat left of the button,
    clockwise, so heads-up the big blind first and the button last (002 HeadsUp-3, TDA 34-B);
    with ``bb_first`` false (the profile's ``heads_up_bb_first_card``) heads-up the button
    first."""
    order = [s for s in clockwise(pos.button, max_seats) if s in dealt]
    if pos.heads_up and not bb_first and order and order[-1] == pos.button:
        order.insert(0, order.pop())
    return order


def preflop_first(pos: Positions, live: Container[int], max_seats: int) -> int:
    """First to act pre-flop: left of the big blind; heads-up the button (small blind)."""
    if pos.heads_up:
        return pos.button
    return next_seat(pos.bb, live, max_seats)


def postflop_first(pos: Positions, live: Container[int], max_seats: int) -> int:
    """First to act after the flop: the first live seat left of the button."""
    return next_seat(pos.button, live, max_seats)


def dealt_in(pos: Positions | None, seats: dict[int, Seat], profile: Profile) -> set[int]:
    """The seats a hand starting now would deal in; raises :class:`TableError` (changing
    nothing) if it cannot start."""
    if pos is None:
        raise TableError("no_button", "place the button first (a draw or a SetButton command)")
    dealt = {
        s
        for s, seat in seats.items()
        if seat.stack > 0
        and seat.status is not _BUSTED
        and not (seat.status is _WAITING and waits_for_button(s, pos, profile))
    }
    if len(dealt) < 2:
        raise TableError("too_few_players", "a hand needs at least two players dealt in")
    return dealt
