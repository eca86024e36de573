"""The venue's own words for its room: each table's name and number as the floor knows
them (the tables themselves are known on the broker by an MQTT id such as ``demo-78d4c86a``),
and the room view's settings. A TOML file given to ``railguard floor`` (``[floor]
venue_file`` or ``--venue``)::

    [room]
    escalate_after_s = 60     # an unacknowledged critical alert: louder, listed first
    stale_after_s = 0         # 0: a table is stale only when the console lost the broker

    [tables."v1/t1"]          # "<venue>/<table>", or "<table>" for that id in any venue
    number = 1
    name = "Main 1"

A table the file does not name keeps its id as its name and has no number. Numbers and
names (in any case) are unique: the floor looks a table up by either.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.rules.errors import ConfigError

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,31}")
_ROOM_KEYS = {"escalate_after_s", "stale_after_s"}
_TABLE_KEYS = {"number", "name"}
ESCALATE_AFTER_S = 60
MAX_NAME = 40


@dataclass(frozen=True)
class TableName:
    name: str
    number: int | None = None


@dataclass(frozen=True)
class Venue:
    """Names and numbers by ``venue/table`` (exact) and by ``table`` (any venue)."""

    tables: dict[str, TableName] = field(default_factory=dict)
    escalate_after_s: int = ESCALATE_AFTER_S
    stale_after_s: int = 0

    def name_of(self, venue: str, table: str) -> TableName:
        found = self.tables.get(f"{venue}/{table}") or self.tables.get(table)
        return found if found is not None else TableName(table)

    def settings(self) -> dict[str, Any]:
        return {"escalate_after_s": self.escalate_after_s, "stale_after_s": self.stale_after_s}


def _seconds(room: dict[str, Any], key: str, default: int, low: int) -> int:
    v = room.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= 86_400:
        raise ConfigError(f"room.{key}: an integer number of seconds, {low}-86400 (got {v!r})")
    return int(v)


def parse_venue(raw: dict[str, Any]) -> Venue:
    room = raw.get("room", {})
    tables = raw.get("tables", {})
    if not isinstance(room, dict):
        raise ConfigError("[room]: expected a table")
    if not isinstance(tables, dict):
        raise ConfigError("[tables]: expected a table of tables")
    unknown = set(raw) - {"room", "tables"}
    if unknown:
        raise ConfigError(f"unknown section(s) {sorted(unknown)} (known: room, tables)")
    if set(room) - _ROOM_KEYS:
        raise ConfigError(f"room: unknown key(s) {sorted(set(room) - _ROOM_KEYS)}"
                          f" (known: {sorted(_ROOM_KEYS)})")  # fmt: skip
    out: dict[str, TableName] = {}
    numbers: dict[int, str] = {}
    names: dict[str, str] = {}
    for key, entry in tables.items():
        parts = key.split("/")
        if len(parts) > 2 or not all(_ID.fullmatch(p) for p in parts):
            raise ConfigError(f'tables."{key}": expected "<venue>/<table>" or "<table>" (letters,'
                              " digits, -; at most 32 each)")  # fmt: skip
        if not isinstance(entry, dict) or set(entry) - _TABLE_KEYS:
            raise ConfigError(f'tables."{key}": expected number and name only')
        number = entry.get("number")
        if number is not None and (isinstance(number, bool) or not isinstance(number, int)
                                   or not 1 <= number <= 9999):  # fmt: skip
            raise ConfigError(f'tables."{key}".number: an integer 1-9999 (got {number!r})')
        name = entry.get("name", parts[-1] if number is None else f"Table {number}")
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
            raise ConfigError(f'tables."{key}".name: 1-{MAX_NAME} characters (got {name!r})')
        name = name.strip()
        if number is not None and number in numbers:
            raise ConfigError(f'tables."{key}".number {number}: also "{numbers[number]}"\'s')
        if name.casefold() in names:
            raise ConfigError(f'tables."{key}".name "{name}": also "{names[name.casefold()]}"\'s'
                              " (names are unique in any case)")  # fmt: skip
        if number is not None:
            numbers[number] = key
        names[name.casefold()] = key
        out[key] = TableName(name, number)
    return Venue(out, _seconds(room, "escalate_after_s", ESCALATE_AFTER_S, 1),
                 _seconds(room, "stale_after_s", 0, 0))  # fmt: skip


def load_venue(path: str | Path) -> Venue:
    try:
        raw = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"venue file {path}: {exc}") from None
    try:
        return parse_venue(raw)
    except ConfigError as exc:
        raise ConfigError(f"venue file {path}: {exc}") from None
