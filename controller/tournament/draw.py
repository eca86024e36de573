"""The seat draw: random seating of the entrants across the tables (000 [L30] "Initial seating
is determined by random draw"; 002 [L21]; 003 [L23]; 004 [L87]), late registration into the
emptiest table, and the seat a moved player is given. The randomness is a source passed in
(:class:`RandomSource`: the service gives ``secrets.SystemRandom()``, a test a seeded
``random.Random``); the outcome, not a seed, is what the journal keeps (``Seated``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from controller.tournament.errors import Refused
from controller.tournament.event import Entrant
from controller.tournament.state import Seated, Seating, TournamentState, check_entry

T = TypeVar("T")


class RandomSource(Protocol):
    def randrange(self, stop: int, /) -> int: ...


def shuffled(items: Sequence[T], rng: RandomSource) -> list[T]:
    """A uniformly random permutation (Fisher-Yates from ``rng.randrange``)."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = rng.randrange(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def pick(items: Sequence[T], rng: RandomSource) -> T:
    if not items:
        raise Refused("empty", "nothing to draw from")
    return items[rng.randrange(len(items))]


def free_seats(state: TournamentState, table: str, taken: set[int]) -> list[int]:
    return [s for s in range(1, state.seats_of(table) + 1) if s not in taken]


def draw_seats(state: TournamentState, entrants: Sequence[Entrant], rng: RandomSource) -> Seated:
    """The initial draw: the entrants spread over the live tables within one player of each
    other (which tables get one more, by draw), each entrant drawing a seat; an entrant
    refused (busted, already seated) refuses the draw."""
    occ = state.occupied()
    tables = state.live_tables()
    room = {t: free_seats(state, t, set(occ[t])) for t in tables}
    if len(entrants) > sum(len(v) for v in room.values()):
        raise Refused(
            "no_seat", f"{len(entrants)} entrants, {sum(map(len, room.values()))} free seats"
        )
    for e in entrants:
        check_entry(state, e.id, state.event.stack_for(e.bonus))
    # deal the seats out one table at a time, always to the table with fewest players
    counts = {t: len(occ[t]) for t in tables}
    slots: list[tuple[str, int]] = []
    order = shuffled(tables, rng)
    for _ in entrants:
        open_ = [t for t in order if room[t]]
        least = min(counts[t] for t in open_)
        t = next(x for x in open_ if counts[x] == least)
        seat = room[t].pop(rng.randrange(len(room[t])))
        counts[t] += 1
        slots.append((t, seat))
    people = shuffled(entrants, rng)
    return Seated(
        tuple(
            Seating(e.id, e.name, t, s, state.event.stack_for(e.bonus))
            for e, (t, s) in zip(people, slots, strict=True)
        ),
        "draw",
    )


def late_seat(state: TournamentState, entrant: Entrant, stack: int, rng: RandomSource) -> Seated:
    """A late registration: the emptiest live table (ties by draw), a seat there by draw;
    the stack is checked (000 [L31], 003 [L7]) and a busted player refused (004 [L135])."""
    check_entry(state, entrant.id, stack)
    occ = state.occupied()
    open_ = [t for t in state.live_tables() if free_seats(state, t, set(occ[t]))]
    if not open_:
        raise Refused("no_seat", "every live table is full")
    least = min(len(occ[t]) for t in open_)
    table = pick([t for t in open_ if len(occ[t]) == least], rng)
    seat = pick(free_seats(state, table, set(occ[table])), rng)
    return Seated((Seating(entrant.id, entrant.name, table, seat, stack),), "late")
