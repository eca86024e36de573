"""The event: its entrants, starting stack, house profile, level schedule, tables and the
rules for balancing, breaking and redraws, loaded from a TOML file (docs/tournament.md).

The four rulebooks differ on the room's rules; each packaged profile gives the event its
defaults (:data:`PROFILE_DEFAULTS`), and the event file may set any of them:

- balancing: within two players (000 [L40], 000-S1-balance-4); 004 [L111] (004-TG-13):
  within two with more than six tables, within one with six or fewer;
- redraws at three, two and one tables: 004 [L113] (004-TG-14); the others name none;
- final table of nine: 002 [L35] (002-FinalTable-1); 003 plays tables of nine (003 [L5]);
- starting stack: 4,500, or 5,000 with the bonus: 003 [L7] (003-Open-stack); the others an
  "appropriate starting amount" (000 [L31], 000-S1-stacks-2; 004 [L91]);
- re-entry: none at 004 [L135] (004-TG-25, "Re-buys are not permitted"); the others are
  silent, and the event file says (default: none);
- the tables break in a pre-set order (004 [L109], 004-TG-12): ``breaking_order``, by
  default the tables in reverse order of the file;
- a moved player's entitlement: 000 [L226] (000-S5-blinds-5), 002 [L31] (002-Balance-1),
  004 [L131] (004-TG-23): :class:`Entitlement`.
"""

from __future__ import annotations

import enum
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from controller.tournament.errors import EventFileError

_ID: Final = re.compile(r"^[A-Za-z0-9-]{1,32}$")
#: the seat command's player_id (command.json)
_PLAYER: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$")


class Entitlement(enum.Enum):
    """Where a moved or new player waits for the button instead of being dealt in."""

    BB_TO_BUTTON = "bb-to-button"  # 000 [L226]: not dealt in between the big blind and the button
    SB_TO_BUTTON = "sb-to-button"  # 002 [L31]: dealt in except between the small blind and button
    SB_OR_BUTTON = "sb-or-button"  # 004 [L131]: waits in the small blind or button position


@dataclass(frozen=True, slots=True)
class Level:
    """One level of the schedule, or a break (``is_break``: no blinds, the clock runs)."""

    number: int  # the level's number as the tables show it (breaks: the level before's)
    minutes: int
    small_blind: int = 0
    big_blind: int = 0
    ante: int = 0
    big_blind_ante: bool = False
    is_break: bool = False
    colour_up: str = ""  # e.g. "25s": which denomination is raced off at the break

    @property
    def seconds(self) -> int:
        return self.minutes * 60

    def label(self) -> str:
        if self.is_break:
            return "Break" + (f" (colour up {self.colour_up})" if self.colour_up else "")
        ante = f" ante {self.ante}" if self.ante else ""
        kind = " (big blind ante)" if self.big_blind_ante and self.ante else ""
        return f"Level {self.number}: {self.small_blind}/{self.big_blind}{ante}{kind}"


@dataclass(frozen=True, slots=True)
class TableSpec:
    id: str
    seats: int


@dataclass(frozen=True, slots=True)
class Entrant:
    id: str
    name: str
    bonus: bool = False  # 003 [L7]: 500 more chips paid at the register


@dataclass(frozen=True, slots=True)
class Rules:
    """The event's room rules (defaults from the profile, :data:`PROFILE_DEFAULTS`)."""

    balance_within: int = 2  # 000 [L40]
    balance_within_small: int = 2  # 004 [L111]: 1 at six tables or fewer
    small_tables: int = 6
    redraw_at: tuple[int, ...] = ()  # 004 [L113]: (3, 2, 1)
    final_table: int | None = None  # 002 [L35]: 9; None: the largest table's seats
    reentry: bool = False  # 004 [L135]: none
    entitlement: Entitlement = Entitlement.BB_TO_BUTTON

    def within(self, tables: int) -> int:
        """The largest difference allowed between two tables' counts (004 [L111])."""
        return self.balance_within_small if tables <= self.small_tables else self.balance_within


#: each packaged profile's room rules, from its rulebook
PROFILE_DEFAULTS: Final[Mapping[str, Mapping[str, Any]]] = {
    # 000 [L40] within two, [L226] entitlement
    "a2c-000": {
        "balance_within": 2,
        "balance_within_small": 2,
        "entitlement": Entitlement.BB_TO_BUTTON,
    },
    # 002 [L35] final table of nine, [L31] entitlement
    "vistancia-002": {"final_table": 9, "entitlement": Entitlement.SB_TO_BUTTON},
    # 003 [L5] tables of nine, [L7] 4,500 + 500
    "club-003": {"final_table": 9, "starting_stack": 4500, "bonus": 500},
    # 004 [L111] within two / one, [L113] redraws, [L135] no re-buy, [L131] entitlement
    "shaved-dog-004": {
        "balance_within": 2,
        "balance_within_small": 1,
        "small_tables": 6,
        "redraw_at": (3, 2, 1),
        "reentry": False,
        "entitlement": Entitlement.SB_OR_BUTTON,
    },
    "tda-2024": {},
    "roberts-rules": {},
}


@dataclass(frozen=True, slots=True)
class Event:
    name: str
    venue: str
    profile: str
    starting_stack: int
    bonus: int
    levels: tuple[Level, ...]
    tables: tuple[TableSpec, ...]
    rules: Rules
    breaking_order: tuple[str, ...]
    entrants: tuple[Entrant, ...] = field(default=())
    by_id: Mapping[str, TableSpec] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_id", {t.id: t for t in self.tables})

    @property
    def starting_stacks(self) -> frozenset[int]:
        """The stacks a new entrant may be seated with (003 [L7]: 4,500 or 5,000)."""
        return frozenset({self.starting_stack, self.starting_stack + self.bonus})

    def stack_for(self, bonus: bool) -> int:
        return self.starting_stack + (self.bonus if bonus else 0)

    def table(self, table_id: str) -> TableSpec:
        return self.by_id[table_id]

    @property
    def final_table_size(self) -> int:
        return self.rules.final_table or max(t.seats for t in self.tables)


# ------------------------------------------------------------------ loading the event file


def _get(raw: Mapping[str, Any], key: str, kind: type, where: str, default: Any = ...) -> Any:
    if key not in raw:
        if default is ...:
            raise EventFileError(f"{where}: missing key '{key}'")
        return default
    v = raw[key]
    if kind is int and (isinstance(v, bool) or not isinstance(v, int)):
        raise EventFileError(f"{where}.{key}: expected an integer, not {v!r}")
    if kind is not int and not isinstance(v, kind):
        raise EventFileError(f"{where}.{key}: expected {kind.__name__}, not {v!r}")
    return v


def _known(raw: Mapping[str, Any], keys: set[str], where: str) -> None:
    unknown = sorted(set(raw) - keys)
    if unknown:
        raise EventFileError(f"{where}: unknown key(s) {unknown} (known: {sorted(keys)})")


def _positive(v: int, where: str, least: int = 1) -> int:
    if v < least:
        raise EventFileError(f"{where}: at least {least}, not {v}")
    return v


_EVENT_KEYS = {
    "name",
    "venue",
    "profile",
    "starting_stack",
    "bonus",
    "balance_within",
    "balance_within_small",
    "small_tables",
    "redraw_at",
    "final_table",
    "reentry",
    "entitlement",
    "breaking_order",
}
_LEVEL_KEYS = {
    "minutes",
    "small_blind",
    "big_blind",
    "ante",
    "big_blind_ante",
    "break",
    "colour_up",
}


def _levels(raw: Any) -> tuple[Level, ...]:
    if not isinstance(raw, list) or not raw:
        raise EventFileError("[[levels]]: at least one level")
    out: list[Level] = []
    number = 0
    for i, lv in enumerate(raw, 1):
        where = f"levels[{i}]"
        if not isinstance(lv, dict):
            raise EventFileError(f"{where}: expected a table")
        _known(lv, _LEVEL_KEYS, where)
        minutes = _positive(_get(lv, "minutes", int, where), f"{where}.minutes")
        if _get(lv, "break", bool, where, False):
            if number == 0:
                raise EventFileError(f"{where}: a break cannot come before the first level")
            extra = sorted(set(lv) & {"small_blind", "big_blind", "ante", "big_blind_ante"})
            if extra:
                raise EventFileError(f"{where}: a break has no blinds ({extra})")
            out.append(
                Level(
                    number, minutes, is_break=True, colour_up=_get(lv, "colour_up", str, where, "")
                )
            )
            continue
        number += 1
        sb = _positive(_get(lv, "small_blind", int, where), f"{where}.small_blind", 0)
        bb = _positive(_get(lv, "big_blind", int, where), f"{where}.big_blind")
        ante = _positive(_get(lv, "ante", int, where, 0), f"{where}.ante", 0)
        if sb > bb:
            raise EventFileError(f"{where}: small_blind {sb} is more than big_blind {bb}")
        prev = next((x for x in reversed(out) if not x.is_break), None)
        if prev is not None and bb < prev.big_blind:
            raise EventFileError(f"{where}: big_blind {bb} is lower than level {prev.number}'s")
        out.append(
            Level(
                number,
                minutes,
                sb,
                bb,
                ante,
                _get(lv, "big_blind_ante", bool, where, False),
                colour_up=_get(lv, "colour_up", str, where, ""),
            )
        )
    return tuple(out)


def _tables(raw: Any) -> tuple[TableSpec, ...]:
    if not isinstance(raw, list) or not raw:
        raise EventFileError("[[tables]]: at least one table")
    out: list[TableSpec] = []
    for i, t in enumerate(raw, 1):
        where = f"tables[{i}]"
        if not isinstance(t, dict):
            raise EventFileError(f"{where}: expected a table")
        _known(t, {"id", "seats"}, where)
        tid = _get(t, "id", str, where)
        if not _ID.match(tid):
            raise EventFileError(f"{where}.id {tid!r}: 1-32 letters, digits or '-'")
        seats = _get(t, "seats", int, where)
        if not 2 <= seats <= 10:
            raise EventFileError(f"{where}.seats: 2-10, not {seats}")
        if any(x.id == tid for x in out):
            raise EventFileError(f"{where}.id {tid!r}: named twice")
        out.append(TableSpec(tid, seats))
    return tuple(out)


def _entrants(raw: Any) -> tuple[Entrant, ...]:
    if not isinstance(raw, list):
        raise EventFileError("[[entrants]]: expected an array of tables")
    out: list[Entrant] = []
    seen: set[str] = set()
    for i, e in enumerate(raw, 1):
        where = f"entrants[{i}]"
        if not isinstance(e, dict):
            raise EventFileError(f"{where}: expected a table")
        _known(e, {"id", "name", "bonus"}, where)
        pid = _get(e, "id", str, where)
        if not _PLAYER.match(pid):
            raise EventFileError(
                f"{where}.id {pid!r}: 1-64 letters, digits or ._:- (a letter or digit first)"
            )
        if pid in seen:
            raise EventFileError(f"{where}.id {pid!r}: entered twice")
        seen.add(pid)
        name = _get(e, "name", str, where, pid)
        if not 1 <= len(name) <= 64:
            raise EventFileError(f"{where}.name: 1-64 characters")
        out.append(Entrant(pid, name, _get(e, "bonus", bool, where, False)))
    return tuple(out)


def parse_event(raw: Mapping[str, Any]) -> Event:
    """The event of a parsed TOML document; :class:`EventFileError` names what is wrong."""
    from controller.rules.profile import builtin_profile_names

    _known(raw, {"event", "levels", "tables", "entrants"}, "event file")
    ev = raw.get("event")
    if not isinstance(ev, dict):
        raise EventFileError("[event]: missing (name, venue, profile, starting_stack)")
    _known(ev, _EVENT_KEYS, "event")
    name, venue = _get(ev, "name", str, "event"), _get(ev, "venue", str, "event")
    for key, v in (("name", name), ("venue", venue)):
        if not _ID.match(v):
            raise EventFileError(f"event.{key} {v!r}: 1-32 letters, digits or '-'")
    profile = _get(ev, "profile", str, "event")
    if profile not in PROFILE_DEFAULTS or profile not in builtin_profile_names():
        raise EventFileError(f"event.profile {profile!r}: one of {sorted(PROFILE_DEFAULTS)}")
    d = dict(PROFILE_DEFAULTS[profile])
    stack = _get(ev, "starting_stack", int, "event", d.get("starting_stack", ...))
    _positive(stack, "event.starting_stack")
    bonus = _positive(_get(ev, "bonus", int, "event", d.get("bonus", 0)), "event.bonus", 0)
    if "entitlement" in ev:
        e = _get(ev, "entitlement", str, "event")
        try:
            d["entitlement"] = Entitlement(e)
        except ValueError:
            raise EventFileError(
                f"event.entitlement {e!r}: one of {[x.value for x in Entitlement]}"
            ) from None
    for key in ("balance_within", "balance_within_small", "small_tables"):
        if key in ev:
            d[key] = _positive(_get(ev, key, int, "event"), f"event.{key}")
    if "final_table" in ev:
        d["final_table"] = _positive(_get(ev, "final_table", int, "event"), "event.final_table", 2)
    if "reentry" in ev:
        d["reentry"] = _get(ev, "reentry", bool, "event")
    if "redraw_at" in ev:
        r = _get(ev, "redraw_at", list, "event")
        if any(isinstance(x, bool) or not isinstance(x, int) or x < 1 for x in r):
            raise EventFileError(f"event.redraw_at: table counts (integers >= 1), not {r!r}")
        d["redraw_at"] = tuple(sorted(set(r), reverse=True))
    d.pop("starting_stack", None)
    d.pop("bonus", None)
    rules = Rules(**d)
    tables = _tables(raw.get("tables"))
    if rules.final_table is not None and rules.final_table > max(t.seats for t in tables):
        raise EventFileError(f"event.final_table {rules.final_table}: no table has that many seats")
    ids = [t.id for t in tables]
    order = tuple(_get(ev, "breaking_order", list, "event", list(reversed(ids))))
    if sorted(map(str, order)) != sorted(ids) or len(set(order)) != len(order):
        raise EventFileError(
            f"event.breaking_order: every table once (tables {ids}), not {list(order)}"
        )
    return Event(
        name,
        venue,
        profile,
        stack,
        bonus,
        _levels(raw.get("levels")),
        tables,
        rules,
        order,
        _entrants(raw.get("entrants", [])),
    )


def load_event_text(text: str) -> Event:
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise EventFileError(f"event file: not valid TOML: {exc}") from None
    return parse_event(raw)
