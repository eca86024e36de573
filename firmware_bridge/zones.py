"""The antenna-to-zone map: which reader-board antenna lies under which part of the table.

Config form (a table of the daemon's TOML config, zone → antenna number or list of numbers)::

    [zones]
    seats = 9                 # optional: seats 1..9 (or a list, [1, 2, 4]); default: the
                              # seats named under hole/bet
    board = [20, 21, 22, 23, 24]   # one antenna, or one per board position
    burn = 25
    muck = 26

    [zones.hole]              # seat → antenna under that seat's hole-card spot
    1 = 0
    2 = 1

    [zones.bet]               # seat → antenna under that seat's betting zone (optional)
    1 = 10
    2 = 11

Validation (:class:`ConfigError`, the message names the key): an antenna in two zones, a
missing zone (board, burn and muck are required; each configured seat needs a hole antenna),
a seat outside 1..10, an unknown zone name, an antenna number that is not an integer 0..255.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from controller.rules.errors import ConfigError
from controller.rules.events import ZoneKind

MAX_SEATS = 10
MAX_ANTENNA = 255


class ZoneType(Enum):
    HOLE = "hole"
    BOARD = "board"
    BURN = "burn"
    MUCK = "muck"
    BET = "bet"  # a seat's betting zone (chip tags)


_SEATED = (ZoneType.HOLE, ZoneType.BET)
_REQUIRED_TABLE_ZONES = (ZoneType.BOARD, ZoneType.BURN, ZoneType.MUCK)


@dataclass(frozen=True, slots=True)
class Zone:
    """A part of the table. ``seat`` is 1..10 for HOLE and BET, 0 otherwise."""

    type: ZoneType
    seat: int = 0

    def __post_init__(self) -> None:
        if self.type in _SEATED:
            if isinstance(self.seat, bool) or not 1 <= self.seat <= MAX_SEATS:
                raise ConfigError(f"zone {self.type.value}: seat {self.seat!r} not in 1..10")
        elif self.seat != 0:
            raise ConfigError(f"zone {self.type.value}: takes no seat (got {self.seat!r})")

    @classmethod
    def hole(cls, seat: int) -> Zone:
        return cls(ZoneType.HOLE, seat)

    @classmethod
    def bet(cls, seat: int) -> Zone:
        return cls(ZoneType.BET, seat)

    @classmethod
    def parse(cls, text: str) -> Zone:
        """Parse ``"hole 3"``, ``"bet 3"``, ``"board"``, ``"burn"`` or ``"muck"``."""
        parts = text.strip().lower().split()
        try:
            kind = ZoneType(parts[0]) if parts else None
        except ValueError:
            kind = None
        if kind is None:
            names = ", ".join(z.value for z in ZoneType)
            raise ConfigError(f"zone {text!r}: unknown zone name (expected one of {names})")
        if kind in _SEATED:
            if len(parts) != 2 or not parts[1].isdigit():
                raise ConfigError(f"zone {text!r}: expected '{kind.value} <seat>'")
            return cls(kind, int(parts[1]))
        if len(parts) != 1:
            raise ConfigError(f"zone {text!r}: {kind.value} takes no seat")
        return cls(kind)

    @property
    def card_zone(self) -> ZoneKind | None:
        """The rules core's zone for cards read here; None for a betting zone."""
        if self.type is ZoneType.BET:
            return None
        return ZoneKind(self.type.value)

    def describe(self) -> str:
        """Words for the dealer: "seat 3's hole-card spot", "the board"."""
        if self.type is ZoneType.HOLE:
            return f"seat {self.seat}'s hole-card spot"
        if self.type is ZoneType.BET:
            return f"seat {self.seat}'s betting zone"
        return f"the {self.type.value}"

    def sort_key(self) -> tuple[int, int]:
        return (list(ZoneType).index(self.type), self.seat)

    def __str__(self) -> str:
        return f"{self.type.value} {self.seat}" if self.seat else self.type.value


BOARD = Zone(ZoneType.BOARD)
BURN = Zone(ZoneType.BURN)
MUCK = Zone(ZoneType.MUCK)


def _antenna(value: object, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{key}: antenna must be an integer, got {value!r}")
    if not 0 <= value <= MAX_ANTENNA:
        raise ConfigError(f"{key}: antenna {value} not in 0..{MAX_ANTENNA}")
    return value


def _antennas(value: object, key: str) -> list[int]:
    if isinstance(value, list):
        if not value:
            raise ConfigError(f"{key}: empty antenna list")
        return [_antenna(v, f"{key}[{i}]") for i, v in enumerate(value)]
    return [_antenna(value, key)]


def _seat(value: object, key: str) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_SEATS:
        raise ConfigError(f"{key}: seat {value!r} not in 1..{MAX_SEATS}")
    return value


class ZoneMap:
    """Antenna number → :class:`Zone`, validated on construction. Immutable."""

    __slots__ = ("_by_antenna", "_by_zone", "_seats")

    def __init__(
        self,
        pairs: Iterable[tuple[int, Zone]] | Mapping[int, Zone],
        seats: Iterable[int] | None = None,
        *,
        key: str = "zones",
    ) -> None:
        items = list(pairs.items()) if isinstance(pairs, Mapping) else list(pairs)
        by_antenna: dict[int, Zone] = {}
        for antenna, zone in items:
            _antenna(antenna, f"{key}.{zone.type.value}")
            other = by_antenna.get(antenna)
            if other is not None:
                raise ConfigError(
                    f"{key}.{_zone_key(zone)}: antenna {antenna} is already {_zone_key(other)}"
                    " (one antenna in two zones)"
                )
            by_antenna[antenna] = zone
        if seats is None:
            seat_set = {z.seat for z in by_antenna.values() if z.seat}
        else:
            seat_set = {_seat(s, f"{key}.seats") for s in seats}
        by_zone: dict[Zone, list[int]] = {}
        for antenna, zone in sorted(by_antenna.items()):
            by_zone.setdefault(zone, []).append(antenna)
            if zone.seat and zone.seat not in seat_set:
                raise ConfigError(
                    f"{key}.{_zone_key(zone)}: seat {zone.seat} is not a configured seat"
                    f" ({key}.seats)"
                )
        for kind in _REQUIRED_TABLE_ZONES:
            if Zone(kind) not in by_zone:
                raise ConfigError(f"{key}.{kind.value}: missing (no antenna for the {kind.value})")
        if not seat_set:
            raise ConfigError(f"{key}.hole: missing (no seats configured)")
        for seat in sorted(seat_set):
            if Zone.hole(seat) not in by_zone:
                raise ConfigError(f"{key}.hole.{seat}: missing (seat {seat} has no hole antenna)")
        self._by_antenna = dict(sorted(by_antenna.items()))
        self._by_zone = {z: tuple(by_zone[z]) for z in sorted(by_zone, key=Zone.sort_key)}
        self._seats = tuple(sorted(seat_set))

    # ------------------------------------------------------------ queries

    @property
    def seats(self) -> tuple[int, ...]:
        return self._seats

    @property
    def antennas(self) -> tuple[int, ...]:
        return tuple(self._by_antenna)

    def zone_of(self, antenna: int) -> Zone | None:
        return self._by_antenna.get(antenna)

    def antennas_of(self, zone: Zone) -> tuple[int, ...]:
        return self._by_zone.get(zone, ())

    def items(self) -> list[tuple[int, Zone]]:
        return list(self._by_antenna.items())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ZoneMap):
            return NotImplemented
        return self._by_antenna == other._by_antenna and self._seats == other._seats

    def __hash__(self) -> int:
        return hash((tuple(self._by_antenna.items()), self._seats))

    def __repr__(self) -> str:
        body = ", ".join(f"{a}: {z}" for a, z in self._by_antenna.items())
        return f"ZoneMap({{{body}}}, seats={list(self._seats)})"

    # ------------------------------------------------------------ config form

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, key: str = "zones") -> ZoneMap:
        """Build from the ``[zones]`` table as parsed by ``tomllib`` (see the module doc)."""
        if not isinstance(data, Mapping):
            raise ConfigError(f"{key}: expected a table, got {type(data).__name__}")
        pairs: list[tuple[int, Zone]] = []
        seats: list[int] | None = None
        for name, value in data.items():
            k = f"{key}.{name}"
            if name == "seats":
                if isinstance(value, list):
                    seats = [_seat(s, f"{k}[{i}]") for i, s in enumerate(value)]
                else:
                    seats = list(range(1, _seat(value, k) + 1))
                continue
            try:
                kind = ZoneType(name)
            except ValueError:
                names = ", ".join(["seats", *(z.value for z in ZoneType)])
                raise ConfigError(f"{k}: unknown zone name (expected one of {names})") from None
            if kind in _SEATED:
                if not isinstance(value, Mapping):
                    raise ConfigError(f"{k}: expected a table of seat = antenna")
                for seat_key, ants in value.items():
                    sk = f"{k}.{seat_key}"
                    zone = Zone(kind, _seat(seat_key, sk))
                    pairs.extend((a, zone) for a in _antennas(ants, sk))
            else:
                pairs.extend((a, Zone(kind)) for a in _antennas(value, k))
        return cls(pairs, seats, key=key)

    def to_dict(self) -> dict[str, Any]:
        """The ``[zones]`` table; ``ZoneMap.from_dict(m.to_dict()) == m``."""
        out: dict[str, Any] = {"seats": list(self._seats)}
        for kind in (ZoneType.BOARD, ZoneType.BURN, ZoneType.MUCK):
            ants = list(self.antennas_of(Zone(kind)))
            out[kind.value] = ants[0] if len(ants) == 1 else ants
        for kind in _SEATED:
            table: dict[str, Any] = {}
            for seat in self._seats:
                ants = list(self.antennas_of(Zone(kind, seat)))
                if ants:
                    table[str(seat)] = ants[0] if len(ants) == 1 else ants
            if table:
                out[kind.value] = table
        return out

    def to_toml_lines(self, table: str = "zones") -> list[str]:
        """The map as TOML text lines (``tomllib`` reads them back to :meth:`to_dict`)."""

        def val(v: Any) -> str:
            return "[" + ", ".join(str(x) for x in v) + "]" if isinstance(v, list) else str(v)

        data = self.to_dict()
        lines = [f"[{table}]"]
        subtables: list[tuple[str, dict[str, Any]]] = []
        for name, value in data.items():
            if isinstance(value, dict):
                subtables.append((name, value))
            else:
                lines.append(f"{name} = {val(value)}")
        for name, sub in subtables:
            lines.extend(["", f"[{table}.{name}]"])
            lines.extend(f"{seat} = {val(v)}" for seat, v in sub.items())
        return lines


def _zone_key(zone: Zone) -> str:
    return f"{zone.type.value}.{zone.seat}" if zone.seat else zone.type.value
