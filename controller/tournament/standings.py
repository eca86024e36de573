"""Standings from the tables' own data: the hand records' eliminations (a finishing stack of
0), the players left and the average stack, and each player's live stack from the tables'
states (no chip count typed in). Also the reading of a hand record into a
:class:`~controller.tournament.state.HandPlayed` (docs/mqtt.md "Hand records": ``players[]``
with ``player_ref``, ``seat``, ``starting_stack`` and ``final_stack``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.tournament.errors import Refused
from controller.tournament.state import HandPlayed, HandSeat, Status, TournamentState


def hand_from_record(record: Mapping[str, Any]) -> HandPlayed:
    """The event's view of one hand record; Refused names what is missing."""
    try:
        table, hand_id, ohh = record["table"], record["hand_id"], record["ohh"]
        seats = []
        for p in ohh["players"]:
            ref = p.get("player_ref")
            if not isinstance(ref, str):
                continue  # a seat without a venue player id: not an entrant of the event
            start, final, seat = p["starting_stack"], p["final_stack"], p["seat"]
            if not all(
                isinstance(x, int) and not isinstance(x, bool) and x >= 0
                for x in (start, final, seat)
            ):
                raise Refused(
                    "bad_record",
                    f"hand {hand_id}: player {ref}: stacks and seat must be integers >= 0",
                )
            seats.append(HandSeat(ref, seat, start, final))
    except (KeyError, TypeError) as exc:
        raise Refused("bad_record", f"hand record: missing or wrong {exc}") from None
    if not isinstance(table, str) or not isinstance(hand_id, str):
        raise Refused("bad_record", "hand record: table and hand_id must be strings")
    seq = record.get("record_seq", 0)
    if isinstance(seq, bool) or not isinstance(seq, int):
        raise Refused("bad_record", f"hand {hand_id}: record_seq must be an integer")
    return HandPlayed(table, hand_id, tuple(seats), seq)


def standings(state: TournamentState, live: Mapping[str, int] | None = None) -> dict[str, Any]:
    """The standings as published (``standings.json``): ``live`` is each player's stack as
    the tables' states show it now (else the last hand record's)."""
    live = live or {}
    playing = state.playing()
    chips = sum(live.get(p.id, p.stack) for p in playing)
    counts = state.counts()
    rows = sorted(playing, key=lambda p: (-live.get(p.id, p.stack), p.id))
    return {
        "event": state.event.name,
        "venue": state.event.venue,
        "reentry": state.event.rules.reentry,  # the console's seat form reads it (004-TG-25)
        "players_left": len(playing),
        "entries": sum(p.entries for p in state.players.values()),
        "chips": chips,
        "average": chips // len(playing) if playing else 0,
        "tables": [
            {"table": t, "players": counts.get(t, 0)}
            for t in state.live_tables()
            if counts.get(t, 0)
        ],
        "players": [
            {
                "player_id": p.id,
                "name": p.name,
                "table": p.table,
                "seat": p.seat,
                "stack": live.get(p.id, p.stack),
            }
            for p in rows
        ],
        "eliminated": [
            {
                "player_id": e.player,
                "name": e.name,
                "place": e.place,
                "table": e.table,
                "hand_id": e.hand_id,
                "start_stack": e.start_stack,
            }
            for e in sorted(state.eliminations, key=lambda e: e.place)
        ],
        "hand_for_hand": {
            "on": state.h4h.on,
            "round": state.h4h.round,
            "done": sorted(state.h4h.done),
        },
    }


def busted(state: TournamentState, player: str) -> bool:
    p = state.players.get(player)
    return p is not None and p.status is Status.BUSTED
