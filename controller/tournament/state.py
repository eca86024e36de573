"""The event's state and the journal events that change it: one transition per kind, in
:data:`TRANSITIONS`. Pure and frozen: :func:`apply` returns a new state, or raises
:class:`~controller.tournament.errors.Refused` and the old one stands.

The service writes every event it applies to its journal (SQLite) before it acts on it, and a
restart replays the journal through :func:`apply`: the seat draws, hand records, proposals,
moves and clock operations are the whole of the event's history, and the draws in it are the
auditable record of who drew which seat (no seed: the draw's outcome itself).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Final, TypeVar

from controller.tournament.clock import Clock
from controller.tournament.errors import Refused
from controller.tournament.event import Event

#: hand ids remembered per table against a record sent twice (an outbox re-sends from its
#: oldest unacknowledged record: far fewer than this)
SEEN_PER_TABLE: Final = 256
V = TypeVar("V")


class Status(enum.Enum):
    PLAYING = "playing"
    BUSTED = "busted"


class ProposalKind(enum.Enum):
    BALANCE = "balance"  # 000 [L40] / 004 [L111]: one table too many players
    BREAK = "break"  # 000 [L38] / 004 [L109]: the next table in the breaking order
    REDRAW = "redraw"  # 004 [L113]: a redraw at three, two or one tables
    FINAL = "final"  # 002 [L35]: the final table


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    name: str
    status: Status
    table: str | None
    seat: int | None
    stack: int  # the chips after the last hand recorded (or as seated)
    entries: int = 1


@dataclass(frozen=True, slots=True)
class Seating:
    """One line of a seat draw: who drew which seat, with which stack."""

    player: str
    name: str
    table: str
    seat: int
    stack: int


@dataclass(frozen=True, slots=True)
class Move:
    player: str
    name: str
    from_table: str
    from_seat: int
    to_table: str
    to_seat: int
    entitlement: str = ""  # what the rulebook says of the new seat's next hand


@dataclass(frozen=True, slots=True)
class Proposal:
    id: int
    kind: ProposalKind
    moves: tuple[Move, ...]
    reason: str
    clauses: tuple[str, ...]
    breaks: tuple[str, ...] = ()  # tables left empty by it


@dataclass(frozen=True, slots=True)
class Elimination:
    player: str
    name: str
    place: int
    table: str
    hand_id: str
    start_stack: int  # the stack the player started the hand with (000 [L53])


@dataclass(frozen=True, slots=True)
class HandSeat:
    player: str
    seat: int
    start: int
    final: int


@dataclass(frozen=True, slots=True)
class HandForHand:
    """Hand-for-hand: ``done`` the tables that completed this round's hand; bust-outs of
    the round wait in ``pending`` and are placed together at the release."""

    on: bool = False
    round: int = 0
    done: frozenset[str] = frozenset()
    pending: tuple[tuple[str, str, str, int], ...] = ()  # (player, table, hand_id, start)


# ------------------------------------------------------------------------ journal events


@dataclass(frozen=True, slots=True)
class Seated:
    """Players seated by a draw (``kind``: ``draw`` the initial one, ``late`` a late
    registration); each line is the record of the draw."""

    seatings: tuple[Seating, ...]
    kind: str = "draw"


@dataclass(frozen=True, slots=True)
class HandPlayed:
    table: str
    hand_id: str
    seats: tuple[HandSeat, ...]
    record_seq: int = 0  # the table's outbox order (docs/mqtt.md): the catch-up's mark


@dataclass(frozen=True, slots=True)
class Proposed:
    proposal: Proposal


@dataclass(frozen=True, slots=True)
class MovesDone:
    """The floor confirmed ``proposal`` and the tables answered: each move done, with the
    stack the old table gave (the moved player keeps it)."""

    proposal: int
    stacks: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class Withdrawn:
    proposal: int


@dataclass(frozen=True, slots=True)
class ClockOp:
    op: str  # start, pause, resume, adjust
    at: float
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class HandForHandSet:
    on: bool


JournalEvent = Seated | HandPlayed | Proposed | MovesDone | Withdrawn | ClockOp | HandForHandSet


@dataclass(frozen=True, slots=True)
class TournamentState:
    event: Event
    players: Mapping[str, Player] = field(default_factory=lambda: MappingProxyType({}))
    eliminations: tuple[Elimination, ...] = ()
    broken: frozenset[str] = frozenset()
    proposal: Proposal | None = None  # the one waiting for the floor
    next_proposal: int = 1
    clock: Clock = field(default_factory=Clock)
    h4h: HandForHand = field(default_factory=HandForHand)
    #: table -> the highest record_seq applied (the catch-up from the logger starts after it)
    last_record: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    #: table -> the ids of its last :data:`SEEN_PER_TABLE` hands applied (a record sent
    #: again, ``replayed``, counts once; a window per table, not every hand of the event)
    hands_seen: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: MappingProxyType({}))
    draws: tuple[Seated, ...] = ()
    #: occupied()'s answer, computed once per state (a state never changes)
    seating: dict[str, dict[int, str]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    # -------------------------------------------------------------- views
    def playing(self) -> list[Player]:
        return [p for p in self.players.values() if p.status is Status.PLAYING]

    def live_tables(self) -> list[str]:
        """The tables not broken, in the event's order."""
        return [t.id for t in self.event.tables if t.id not in self.broken]

    def _seating(self) -> dict[str, dict[int, str]]:
        if self.seating is None:
            out: dict[str, dict[int, str]] = {t: {} for t in self.live_tables()}
            for p in self.players.values():
                if p.status is Status.PLAYING and p.table is not None and p.seat is not None:
                    out.setdefault(p.table, {})[p.seat] = p.id
            object.__setattr__(self, "seating", out)
            return out
        return self.seating

    def occupied(self) -> dict[str, dict[int, str]]:
        """table -> seat -> player, of the players still in (a copy: the caller's own)."""
        return {t: dict(s) for t, s in self._seating().items()}

    def counts(self) -> dict[str, int]:
        return {t: len(s) for t, s in self._seating().items()}

    def seats_of(self, table: str) -> int:
        """The seats a table offers: its own, or the final table's size once one table is
        left (002 [L35])."""
        n = self.event.table(table).seats
        if len(self.event.tables) - len(self.broken) == 1:
            n = min(n, self.event.final_table_size)
        return n

    def chips(self) -> int:
        return sum(p.stack for p in self.playing())


# ------------------------------------------------------------------------ the transitions


def _copy(m: Mapping[str, V]) -> dict[str, V]:
    """A mutable copy of a state's map: ``MappingProxyType.copy`` copies the dict under it
    at C speed; ``dict(proxy)`` goes key by key (20 times slower at 4,400 players: the
    restart's replay, bench/tournament.py)."""
    if isinstance(m, MappingProxyType):
        return m.copy()
    return dict(m)


def _players(state: TournamentState, changed: Mapping[str, Player]) -> Mapping[str, Player]:
    d = _copy(state.players)
    d.update(changed)
    return MappingProxyType(d)


def _with(m: Mapping[str, V], key: str, value: V) -> Mapping[str, V]:
    d = _copy(m)
    d[key] = value
    return MappingProxyType(d)


def check_entry(state: TournamentState, player: str, stack: int) -> int:
    """The entry number a new seating of ``player`` with ``stack`` would be; Refused when
    the event does not allow it: a player busted at any table is not seated again unless
    the event allows a re-entry (004 [L135], 004-TG-25), a new entrant starts with the
    event's starting stack (000 [L31], 000-S1-stacks-2; 003 [L7], 003-Open-stack)."""
    p = state.players.get(player)
    if p is not None and p.status is Status.PLAYING:
        raise Refused(
            "already_seated", f"player {player} is already seated at {p.table} seat {p.seat}"
        )
    if p is not None and not state.event.rules.reentry:
        raise Refused(
            "busted",
            f"player {player} was eliminated and this event allows no re-entry (004 [L135])",
            "004-TG-25",
        )
    if stack not in state.event.starting_stacks:
        allowed = " or ".join(str(s) for s in sorted(state.event.starting_stacks))
        raise Refused(
            "starting_stack",
            f"player {player}: a new entrant starts with {allowed}"
            f" chips, not {stack} (000 [L31], 003 [L7])",
            "000-S1-stacks-2 003-Open-stack",
        )
    return 1 if p is None else p.entries + 1


def _seated(state: TournamentState, ev: Seated) -> TournamentState:
    occ = state.occupied()
    changed: dict[str, Player] = {}
    for s in ev.seatings:
        if s.table not in occ:
            raise Refused("no_table", f"table {s.table} is not a live table of the event")
        if not 1 <= s.seat <= state.seats_of(s.table):
            raise Refused("no_seat", f"table {s.table} has no seat {s.seat}")
        if s.seat in occ[s.table] or s.player in changed:
            raise Refused("seat_taken", f"{s.table} seat {s.seat} is taken")
        entries = check_entry(state, s.player, s.stack)
        occ[s.table][s.seat] = s.player
        changed[s.player] = Player(
            s.player, s.name, Status.PLAYING, s.table, s.seat, s.stack, entries
        )
    return replace(state, players=_players(state, changed), draws=(*state.draws, ev))


def place_group(before: int, group: list[tuple[str, int]]) -> dict[str, int]:
    """Places of players eliminated together with ``before`` players left before them: the
    larger starting stack finishes higher (000 [L53]); equal stacks share the higher place."""
    out: dict[str, int] = {}
    for pid, start in group:
        at_most = sum(1 for _, s in group if s <= start)
        out[pid] = before - at_most + 1
    return out


def _eliminate(state: TournamentState, busts: list[tuple[str, str, str, int]]) -> TournamentState:
    if not busts:
        return state
    before = len(state.playing())
    places = place_group(before, [(b[0], b[3]) for b in busts])
    changed = {
        pid: replace(state.players[pid], status=Status.BUSTED, table=None, seat=None, stack=0)
        for pid, *_ in busts
    }
    elims = [
        Elimination(pid, state.players[pid].name, places[pid], table, hand, start)
        for pid, table, hand, start in busts
    ]
    elims.sort(key=lambda e: -e.place)
    return replace(
        state, players=_players(state, changed), eliminations=(*state.eliminations, *elims)
    )


def _hand(state: TournamentState, ev: HandPlayed) -> TournamentState:
    seen = state.hands_seen.get(ev.table, ())
    if ev.hand_id in seen:
        return state  # a record sent again (replayed: true)
    changed: dict[str, Player] = {}
    busts: list[tuple[str, str, str, int]] = []
    for hs in ev.seats:
        p = state.players.get(hs.player)
        if p is None or p.status is not Status.PLAYING or p.table != ev.table:
            continue  # not this event's player at this table (moved since: a late record)
        if hs.final == 0:
            busts.append((p.id, ev.table, ev.hand_id, hs.start))
        else:
            changed[p.id] = replace(p, stack=hs.final)
    state = replace(
        state,
        players=_players(state, changed),
        hands_seen=_with(state.hands_seen, ev.table, (*seen[-(SEEN_PER_TABLE - 1) :], ev.hand_id)),
        last_record=_with(
            state.last_record, ev.table, max(ev.record_seq, state.last_record.get(ev.table, 0))
        ),
    )
    h = state.h4h
    if not h.on:
        return _eliminate(state, busts)
    pending = (*h.pending, *busts)
    done = h.done | {ev.table}
    if not _waiting_for(state, done):
        # every table completed the round's hand: its bust-outs are simultaneous
        state = _eliminate(state, list(pending))
        return replace(state, h4h=HandForHand(True, h.round + 1))
    return replace(state, h4h=replace(h, done=done, pending=pending))


def _waiting_for(state: TournamentState, done: frozenset[str]) -> set[str]:
    """The tables that have yet to complete the round's hand (a table of one player deals
    no hand; the players busted in the round still count where they sat)."""
    return {t for t, seats in state.occupied().items() if len(seats) >= 2} - done


def _proposed(state: TournamentState, ev: Proposed) -> TournamentState:
    if ev.proposal.id != state.next_proposal:
        raise Refused("proposal_id", f"proposal {ev.proposal.id}: expected {state.next_proposal}")
    return replace(state, proposal=ev.proposal, next_proposal=ev.proposal.id + 1)


def _withdrawn(state: TournamentState, ev: Withdrawn) -> TournamentState:
    if state.proposal is None or state.proposal.id != ev.proposal:
        raise Refused("no_proposal", f"proposal {ev.proposal} is not the one pending")
    return replace(state, proposal=None)


def _moves_done(state: TournamentState, ev: MovesDone) -> TournamentState:
    prop = state.proposal
    if prop is None or prop.id != ev.proposal:
        raise Refused("no_proposal", f"proposal {ev.proposal} is not the one pending")
    stacks = dict(ev.stacks)
    changed: dict[str, Player] = {}
    for m in prop.moves:
        p = state.players.get(m.player)
        if p is None or p.status is not Status.PLAYING:
            raise Refused("stale", f"player {m.player} is no longer playing")
        # the moved player keeps his stack: the chips the old table gave when he left
        changed[m.player] = replace(
            p, table=m.to_table, seat=m.to_seat, stack=stacks.get(m.player, p.stack)
        )
    state = replace(state, players=_players(state, changed), proposal=None)
    occ = state.occupied()
    seen: set[tuple[str, int]] = set()
    for p in state.playing():
        if (p.table, p.seat) in seen:
            raise Refused("seat_taken", f"{p.table} seat {p.seat} taken twice by the moves")
        seen.add((str(p.table), int(p.seat or 0)))
    broken = {t for t in prop.breaks if not occ.get(t)}
    return replace(state, broken=state.broken | broken)


def _clock(state: TournamentState, ev: ClockOp) -> TournamentState:
    c = state.clock
    ops: dict[str, Callable[[], Clock]] = {
        "start": lambda: c.start(ev.at),
        "pause": lambda: c.pause(ev.at),
        "resume": lambda: c.resume(ev.at),
        "adjust": lambda: c.adjust(ev.seconds),
    }
    if ev.op not in ops:
        raise Refused("clock_op", f"clock: unknown operation {ev.op!r} (one of {sorted(ops)})")
    return replace(state, clock=ops[ev.op]())


def _h4h(state: TournamentState, ev: HandForHandSet) -> TournamentState:
    h = state.h4h
    if ev.on == h.on:
        return state
    if not ev.on and h.pending:
        state = _eliminate(state, list(h.pending))
    return replace(state, h4h=HandForHand(ev.on, h.round + 1 if ev.on else h.round))


TRANSITIONS: Final[dict[type, Callable[[TournamentState, Any], TournamentState]]] = {
    Seated: _seated,
    HandPlayed: _hand,
    Proposed: _proposed,
    Withdrawn: _withdrawn,
    MovesDone: _moves_done,
    ClockOp: _clock,
    HandForHandSet: _h4h,
}


def apply(state: TournamentState, ev: JournalEvent) -> TournamentState:
    """The state after ``ev``; Refused (and ``state`` unchanged) if the event refuses it."""
    return TRANSITIONS[type(ev)](state, ev)
