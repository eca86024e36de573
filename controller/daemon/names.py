"""The seated players' names: the daemon's one copy.

The rules core knows a seat's player id, stack and status, not the name the venue gave
with ``seat``; the live state and the hand records show names. :class:`PlayerNames` is the
only place the daemon keeps them: written by the venue commands once the core accepted the
seating (``venue_commands``) and at start-up from the table store (``startup``), which
persists them with the seating. Read by the live state (by seat) and the hand records (by
player id, :meth:`by_player`). When the core owns names (issue 21), this is what moves.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping


class PlayerNames(Mapping[int, str]):
    """Seat -> name of the players seated; a read-only mapping with three writes."""

    def __init__(self) -> None:
        self._by_seat: dict[int, str] = {}

    def __getitem__(self, seat: int) -> str:
        return self._by_seat[seat]

    def __iter__(self) -> Iterator[int]:
        return iter(self._by_seat)

    def __len__(self) -> int:
        return len(self._by_seat)

    def seated(self, seat: int, name: str) -> None:
        self._by_seat[seat] = name

    def left(self, seat: int) -> None:
        self._by_seat.pop(seat, None)

    def moved(self, from_seat: int, to_seat: int, default: str) -> None:
        """The player of ``from_seat`` now sits at ``to_seat`` (``default``: their id, when
        no name was given)."""
        self._by_seat[to_seat] = self._by_seat.pop(from_seat, default)

    def by_player(self, players: Mapping[int, str]) -> dict[str, str]:
        """Player id -> name, for the seats of ``players`` (seat -> player id, the core's)."""
        return {pid: name for s, pid in players.items() if (name := self._by_seat.get(s))}
