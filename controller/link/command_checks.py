"""The sense checks of the floor's venue commands, worded for a floor person.

One module for both ends of a command: the table's daemon runs them on every ``seat``,
``unseat``, ``move`` and ``set_level`` it receives (whoever sent it), and the floor console
runs the same ones before it sends, with what the table's live state says (its seats, who
sits where, its profile), so that the floor reads the refusal at once. Pure: no I/O.

Each check returns ``None`` (the command makes sense) or one sentence saying what is wrong
and what to do, e.g. "Seat 7 does not exist at this table: it has seats 1-6."

:func:`plain_field_error` words a schema violation of a command's arguments (a seat out of
1..10, a blank player id) the same way, instead of the schema's own text.

Level sense (issue 22): the big blind at least 1; the small blind above zero and at most
the big blind; the ante at most the big blind (no rulebook of ``../shared/rulebooks/`` sets
an ante above the big blind: 000 [L235] defines the ante as "a prescribed amount posted ...
by all players", the TDA 2024 profile has the big blind post it); a big blind ante needs an
ante, and a table whose profile has every player ante (``ante_style = "each"``) takes no
big blind ante.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

#: what a command's argument is called in a sentence
FIELD_NAMES: Final = {
    "seat": "the seat",
    "from_seat": "the seat to move from",
    "to_seat": "the seat to move to",
    "player_id": "the player id",
    "name": "the player's name",
    "stack": "the stack",
    "level": "the level number",
    "small_blind": "the small blind",
    "big_blind": "the big blind",
    "ante": "the ante",
    "big_blind_ante": "big blind ante",
    "alert_id": "the alert id",
    "by": "who acknowledged",
}
MAX_SEAT: Final = 10
MAX_CHIPS: Final = 10**12
ID_CHARS: Final = "letters, digits and . _ : - (at most 64, starting with a letter or digit)"


def seat_list(seats: Iterable[int]) -> str:
    """``(1, 2, 3, 4, 5, 6)`` as "seats 1-6"; gaps as "seats 1-3, 5, 7-9"."""
    ordered = sorted(set(seats))
    if not ordered:
        return "no seats"
    runs: list[tuple[int, int]] = []
    for s in ordered:
        if runs and s == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], s)
        else:
            runs.append((s, s))
    parts = [f"{a}-{b}" if b > a + 1 else (f"{a}, {b}" if b == a + 1 else str(a)) for a, b in runs]
    return ("seat " if len(ordered) == 1 else "seats ") + ", ".join(parts)


def _chips(n: int) -> str:
    return f"{n:,}"


def no_such_seat(seat: int, seats: Iterable[int]) -> str | None:
    """The refusal for a seat the table does not have (``seats``: its zone map's seats;
    empty: not known, nothing is refused here)."""
    have = tuple(seats)
    if not have or seat in have:
        return None
    return f"Seat {seat} does not exist at this table: it has {seat_list(have)}."


def check_seat(seat: int, player_id: str, seats: Iterable[int],
               occupied: Mapping[int, str]) -> str | None:  # fmt: skip
    """``seat``: the seat exists and is free (or holds this very player: their name and
    stack are updated); the player sits nowhere else. ``occupied``: seat -> player id."""
    problem = no_such_seat(seat, seats)
    if problem is not None:
        return problem
    taken = occupied.get(seat)
    if taken is not None and taken != player_id:
        return f"Seat {seat} is taken by {taken}: unseat or move them first."
    for s, pid in sorted(occupied.items()):
        if pid == player_id and s != seat:
            return f"Player {player_id} already sits in seat {s}: move them instead."
    return None


PLAYER_ID: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,63}")  # command.json's pattern


def check_player(player_id: str, name: str, stack: int) -> str | None:
    """A seat command's player as the contract takes it (command.json), in words."""
    if not PLAYER_ID.fullmatch(player_id):
        return f"The player id {player_id!r} is not usable: use {ID_CHARS}."
    if not 1 <= len(name) <= 64:
        return "The player's name must be 1 to 64 characters."
    if not 1 <= stack <= MAX_CHIPS:
        return f"The stack must be a whole number of chips from 1 to {_chips(MAX_CHIPS)}."
    return None


def check_unseat(seat: int, seats: Iterable[int], occupied: Mapping[int, str]) -> str | None:
    problem = no_such_seat(seat, seats)
    if problem is not None:
        return problem
    if seat not in occupied:
        return f"Seat {seat} is empty: there is nobody to unseat."
    return None


def check_move(from_seat: int, to_seat: int, seats: Iterable[int],
               occupied: Mapping[int, str]) -> str | None:  # fmt: skip
    """A move within one table."""
    have = tuple(seats)
    for s in (from_seat, to_seat):
        problem = no_such_seat(s, have)
        if problem is not None:
            return problem
    if from_seat == to_seat:
        return f"Seat {from_seat} is both the seat to move from and the seat to move to."
    if from_seat not in occupied:
        return f"Seat {from_seat} is empty: there is nobody to move."
    if to_seat in occupied:
        return f"Seat {to_seat} is taken by {occupied[to_seat]}: choose a free seat."
    return None


def check_level(small_blind: int, big_blind: int, ante: int, big_blind_ante: bool = False,
                *, ante_style: str | None = None, profile: str = "",
                max_ante_bb: float | None = 1.0) -> str | None:  # fmt: skip
    """A level's blinds and ante make sense. ``ante_style``: the table's profile's
    (``"each"`` or ``"big-blind"``; None: not known, not checked), named by ``profile``;
    ``max_ante_bb``: its ``max_ante_big_blinds`` (None: not known, the ante not capped)."""
    if big_blind < 1:
        return f"The big blind must be at least 1 (got {_chips(big_blind)})."
    if small_blind < 1:
        return f"The small blind must be above zero (got {_chips(small_blind)})."
    if small_blind > big_blind:
        return (f"The small blind ({_chips(small_blind)}) may not be larger than the big blind"
                f" ({_chips(big_blind)}).")  # fmt: skip
    if ante < 0:
        return f"The ante may not be negative (got {_chips(ante)})."
    if max_ante_bb is not None and ante > big_blind * max_ante_bb:
        if max_ante_bb == 1:
            return (f"The ante ({_chips(ante)}) may not be larger than the big blind"
                    f" ({_chips(big_blind)}).")  # fmt: skip
        cap = int(big_blind * max_ante_bb)
        return (f"The ante ({_chips(ante)}) may not be larger than {max_ante_bb:g} big blinds"
                f" ({_chips(cap)}) at this table's profile {profile}.")  # fmt: skip
    if big_blind_ante and ante == 0:
        return "A big blind ante needs an ante above zero: give the ante, or untick big blind ante."
    if big_blind_ante and ante_style == "each":
        who = f"profile {profile}" if profile else "profile"
        return (f"This table's {who} has every player post the ante, not the big blind:"
                " untick big blind ante (or change the table's profile).")  # fmt: skip
    return None


def plain_field_error(args: Any, path: str, rule: str, message: str) -> str:
    """A schema violation in a command's ``args`` (``path``: "seat", "player_id" ...;
    ``rule``: the JSON Schema keyword that failed) as a sentence; the schema's own text for
    a field this module does not know."""
    field = path.split("/", maxsplit=1)[0] if path else ""
    value = args.get(field) if isinstance(args, dict) else None
    what = FIELD_NAMES.get(field)
    if rule == "required":
        missing = message.split("'")[1] if message.count("'") >= 2 else message
        return f"Missing: {FIELD_NAMES.get(missing, missing)}."
    if rule == "additionalProperties":
        extra = ", ".join(re.findall(r"'([^']*)'", message)) or message
        return f"Not part of this command: {extra}."
    if what is None:
        return f"{path or 'args'}: {message}"
    label = what[0].upper() + what[1:]
    if field in ("seat", "from_seat", "to_seat"):
        if rule == "type":
            return f"{label} must be a seat number (1 to {MAX_SEAT})."
        return f"Seat {value} does not exist: seats are numbered 1 to {MAX_SEAT} at most."
    if field in ("player_id", "alert_id"):
        return f"{label} {value!r} is not usable: use {ID_CHARS}."
    if field in ("name", "by"):
        return f"{label} must be 1 to 64 characters."
    if field in ("stack", "small_blind", "big_blind", "ante"):
        low = 1 if field in ("stack", "big_blind") else 0
        return f"{label} must be a whole number of chips from {low} to {_chips(MAX_CHIPS)}."
    if field == "level":
        return f"{label} must be a whole number from 1 to 1000."
    if field == "big_blind_ante":
        return f"{label} must be true or false."
    return f"{label}: {message}"  # pragma: no cover (every FIELD_NAMES key is worded above)


def occupied_of(seats: Iterable[Mapping[str, Any]]) -> dict[int, str]:
    """seat -> player id from a live state's ``seats`` (what the console's tile holds)."""
    out: dict[int, str] = {}
    for s in seats:
        seat, pid = s.get("seat"), s.get("player_id")
        if isinstance(seat, int) and isinstance(pid, str) and pid and s.get("status") != "empty":
            out[seat] = pid
    return out
