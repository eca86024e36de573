"""Balancing and breaking tables, redraws and the final table: after every elimination or
move the service asks :func:`propose` what the room needs; the floor confirms the proposal
and the moves go to the tables (``seat``/``unseat`` commands).

- **Final table / fewer tables.** The players fit in fewer tables (the tables that break
  last; one table holds the final table's size, 002 [L35], 002-FinalTable-1): the next
  tables in the breaking order break (000 [L38]; 004 [L109]: "in a pre-set order"), each of
  their players to the table with fewest players, the seat by draw.
- **Redraws.** If the tables left are a count the event redraws at (004 [L113], 004-TG-14:
  three, two and one tables), every player is redrawn across them instead; the final table
  is always redrawn when the event names a final table size.
- **Balance.** Otherwise, while the fullest table has more than ``within`` players more than
  the shortest (000 [L40], 000-S1-balance-4: two; 004 [L111], 004-TG-13: two with more than
  six tables, one with six or fewer), a player drawn at the fullest table moves to a seat
  drawn at the shortest.

Each move says the moved player's entitlement at the new seat (000 [L226], 000-S5-blinds-5;
002 [L31], 002-Balance-1; 004 [L131], 004-TG-23) when the table's button is known; the
table's own rules core deals him in or makes him wait at the next hand either way.
"""

from __future__ import annotations

from collections.abc import Mapping

from controller.tournament.draw import RandomSource, pick, shuffled
from controller.tournament.event import Entitlement
from controller.tournament.state import Move, Proposal, ProposalKind, TournamentState

_WAIT_RULE = {
    Entitlement.BB_TO_BUTTON: ("000-S5-blinds-5", "000 [L226]"),
    Entitlement.SB_TO_BUTTON: ("002-Balance-1", "002 [L31]"),
    Entitlement.SB_OR_BUTTON: ("004-TG-23", "004 [L131]"),
}


def entitlement(rule: Entitlement, seat: int, button: int | None, occupied: list[int]) -> str:
    """Whether a player put in ``seat`` is dealt the next hand: the next hand's button is the
    first occupied seat after ``button``, its small and big blinds the next two; the seat
    waits for the button where the rulebook says (000: between the button and the big
    blind; 002: between the button and the small blind; 004: the small blind or button)."""
    clause, where = _WAIT_RULE[rule]
    if button is None or len(occupied) < 2:
        return f"the table deals seat {seat} in or makes it wait at its next hand ({where})"
    ring = sorted(set(occupied) - {seat})

    def after(s: int) -> int:
        return next((x for x in ring if x > s), ring[0])

    nb = after(button)
    sb = after(nb) if len(ring) > 2 else nb
    bb = after(sb)
    end = bb if rule is Entitlement.BB_TO_BUTTON else sb

    def between(lo: int, hi: int, s: int) -> bool:  # strictly after lo, strictly before hi
        return lo < s < hi if lo < hi else s > lo or s < hi

    waits = between(nb, end, seat)
    verdict = "waits for the button to pass" if waits else "is dealt in at once"
    return f"seat {seat} {verdict} ({where}, {clause})"


def _needed(state: TournamentState, order: list[str], players: int) -> int:
    """How many of the tables that break last hold ``players`` (one table: the final
    table's size)."""
    last = order[-1]
    if players <= min(state.event.table(last).seats, state.event.final_table_size):
        return 1
    room = state.event.table(last).seats
    for m in range(2, len(order) + 1):
        room += state.event.table(order[-m]).seats
        if players <= room:
            return m
    return len(order)


def propose(
    state: TournamentState, rng: RandomSource, buttons: Mapping[str, int] | None = None
) -> Proposal | None:
    """What the room needs now, or None: tables balanced and none to break."""
    buttons = buttons or {}
    occ = state.occupied()
    order = [t for t in state.event.breaking_order if t not in state.broken and occ.get(t)]
    n = sum(len(occ[t]) for t in order)
    if n == 0 or not order:
        return None
    rules = state.event.rules
    m = _needed(state, order, n)
    pid = state.next_proposal
    if m < len(order):
        breaking, keep = order[: len(order) - m], order[len(order) - m :]
        final = m == 1
        if m in rules.redraw_at or (final and rules.final_table is not None):
            return _redraw(state, rng, keep, breaking, final, pid)
        moves, counts, taken = _break(state, rng, keep, breaking, buttons)
        moves += _balance(state, rng, counts, taken, buttons, moved={x.player for x in moves})
        why = (
            f"{n} players fit in {m} table(s): break {', '.join(breaking)} (000 [L38], 004 [L109])"
        )
        clauses: tuple[str, ...] = ("000-S1-break-2", "004-TG-12")
        if final and rules.final_table is not None:
            clauses += ("002-FinalTable-1",)
        kind = ProposalKind.FINAL if final else ProposalKind.BREAK
        return Proposal(pid, kind, tuple(moves), why, clauses, tuple(breaking))
    counts = {t: len(occ[t]) for t in order}
    taken = {t: set(occ[t]) for t in order}
    moves = _balance(state, rng, counts, taken, buttons, moved=set())
    if not moves:
        return None
    within = rules.within(len(order))
    why = (
        f"tables within {within} player(s) at {len(order)} tables (000 [L40], 004 [L111]):"
        f" {max(len(occ[t]) for t in order)} against {min(len(occ[t]) for t in order)}"
    )
    return Proposal(pid, ProposalKind.BALANCE, tuple(moves), why, ("000-S1-balance-4", "004-TG-13"))


def _move(
    state: TournamentState,
    player: str,
    to: str,
    seat: int,
    taken: set[int],
    buttons: Mapping[str, int],
) -> Move:
    p = state.players[player]
    ent = entitlement(state.event.rules.entitlement, seat, buttons.get(to), [*taken, seat])
    return Move(p.id, p.name, str(p.table), int(p.seat or 0), to, seat, ent)


def _free(state: TournamentState, table: str, taken: set[int], final: bool = False) -> list[int]:
    n = state.event.table(table).seats
    if final:
        n = min(n, state.event.final_table_size)
    return [s for s in range(1, n + 1) if s not in taken]


def _break(
    state: TournamentState,
    rng: RandomSource,
    keep: list[str],
    breaking: list[str],
    buttons: Mapping[str, int],
) -> tuple[list[Move], dict[str, int], dict[str, set[int]]]:
    occ = state.occupied()
    final = len(keep) == 1
    counts = {t: len(occ[t]) for t in keep}
    taken = {t: set(occ[t]) for t in keep}
    moves: list[Move] = []
    cap = {t: state.event.table(t).seats for t in keep}
    if final:
        cap = {t: min(n, state.event.final_table_size) for t, n in cap.items()}
    for b in breaking:
        for player in shuffled(sorted(occ[b].values()), rng):
            open_ = [t for t in keep if counts[t] < cap[t]]
            least = min(counts[t] for t in open_)
            to = pick([t for t in open_ if counts[t] == least], rng)
            seat = pick(_free(state, to, taken[to], final), rng)
            moves.append(_move(state, player, to, seat, taken[to], buttons))
            taken[to].add(seat)
            counts[to] += 1
    return moves, counts, taken


def _balance(
    state: TournamentState,
    rng: RandomSource,
    counts: dict[str, int],
    taken: dict[str, set[int]],
    buttons: Mapping[str, int],
    moved: set[str],
) -> list[Move]:
    within = state.event.rules.within(len(counts))
    occ = state.occupied()
    moves: list[Move] = []
    while True:
        hi, lo = max(counts.values()), min(counts.values())
        if hi - lo <= within:
            return moves
        src = pick(sorted(t for t in counts if counts[t] == hi), rng)
        dsts = [t for t in counts if counts[t] < hi - 1]
        dsts = [t for t in dsts if counts[t] < state.event.table(t).seats]
        if not dsts:
            return moves
        least = min(counts[t] for t in dsts)
        dst = pick(sorted(t for t in dsts if counts[t] == least), rng)
        here = sorted(p for s, p in occ.get(src, {}).items() if s in taken[src] and p not in moved)
        if not here:
            return moves
        player = pick(here, rng)
        seat = pick(_free(state, dst, taken[dst]), rng)
        moves.append(_move(state, player, dst, seat, taken[dst], buttons))
        taken[src].discard(int(state.players[player].seat or 0))
        taken[dst].add(seat)
        counts[src] -= 1
        counts[dst] += 1
        moved.add(player)


def _redraw(
    state: TournamentState,
    rng: RandomSource,
    keep: list[str],
    breaking: list[str],
    final: bool,
    pid: int,
) -> Proposal:
    """Every player redrawn over the tables kept, within one player of each other."""
    players = shuffled(sorted(p.id for p in state.playing()), rng)
    seats: list[tuple[str, int]] = []
    tables = shuffled(keep, rng)
    free = {t: shuffled(_free(state, t, set(), final), rng) for t in tables}
    if len(players) > sum(len(v) for v in free.values()):
        raise ValueError("redraw: more players than seats")  # _needed keeps this from happening
    i = 0
    while len(seats) < len(players):
        t = tables[i % len(tables)]
        if free[t]:
            seats.append((t, free[t].pop()))
        i += 1
    moves = tuple(
        _move(state, p, t, s, set(), {}) for p, (t, s) in zip(players, seats, strict=True)
    )
    kind = ProposalKind.FINAL if final else ProposalKind.REDRAW
    clauses: tuple[str, ...] = ("004-TG-14",) if len(keep) in state.event.rules.redraw_at else ()
    if final and state.event.rules.final_table is not None:
        clauses += ("002-FinalTable-1",)
    where = "the final table" if final else f"{len(keep)} tables"
    cites = {"004-TG-14": "004 [L113]", "002-FinalTable-1": "002 [L35]"}
    why = (
        f"{len(players)} players: redraw for {where} ({', '.join(cites[c] for c in clauses)});"
        " the new button by a button draw (004-TG-21)"
    )
    return Proposal(pid, kind, moves, why, clauses, tuple(breaking))
