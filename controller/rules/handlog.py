"""The hand log's codec: pure functions between the core's values and JSON-able data.

The daemon keeps, per hand, a durable event log on the table's own disk (``table.db``):
a ``_start`` entry (the table just before the hand's first card: :func:`encode_start`)
followed by every physical event of the hand (:func:`encode_event`), and a ``_misdeal``
marker once a restart ruled the hand a misdeal. At a restart it decodes them
(:func:`decode_start`, :func:`decode_event`) and replays them through
:meth:`TableCore.handle <controller.rules.engine.TableCore.handle>`. The table store's
between-hands values ``positions`` and ``levels`` are encoded here too.

Nothing here reads a file or the core's attributes: decoding returns a changed copy of a
:class:`~controller.rules.tabledata.TableData` for :meth:`TableCore.restore`. A malformed
entry raises :class:`HandLogError` naming what is wrong.
"""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any, Final

from controller.rules.cards import Card
from controller.rules.errors import HandLogError
from controller.rules.events import (
    BadgeTap,
    ButtonPress,
    CardPlaced,
    CardRemoved,
    ChipsIn,
    ChipsOut,
    ConsoleButton,
    Declaration,
    Declare,
    Event,
    Sweep,
    Tick,
    ZoneKind,
)
from controller.rules.hand import Level
from controller.rules.phases import Phase
from controller.rules.seating import Positions, SeatStatus
from controller.rules.tabledata import SeatData, TableData

START: Final = "_start"
MISDEAL_MARK: Final = "_misdeal"

__all__ = ["MISDEAL_MARK", "START", "HandLogError"]

_DECODE: Final[dict[str, type[Any]]] = {
    c.__name__: c for c in (CardPlaced, CardRemoved, ChipsIn, ChipsOut, Sweep, ButtonPress,
                            BadgeTap, Tick, Declare)
}  # fmt: skip


# ---------------------------------------------------------------------------- events


def encode_event(ev: Event) -> dict[str, Any]:
    """An event as plain data (the in-progress hand log on the table's own disk)."""
    out: dict[str, Any] = {"type": type(ev).__name__}
    for f in dataclasses.fields(ev):
        v = getattr(ev, f.name)
        if isinstance(v, Enum):
            v = v.value
        elif isinstance(v, Card):
            v = str(v)
        elif isinstance(v, tuple):
            v = list(v)
        out[f.name] = v
    return out


def decode_event(d: dict[str, Any], offset: float = 0.0) -> Event:
    """The inverse of :func:`encode_event` (physical events), times shifted by ``offset``."""
    cls = _DECODE.get(str(d.get("type")))
    if cls is None:
        raise HandLogError(f"hand log: unknown event type {d.get('type')!r}")
    try:
        kw = {k: v for k, v in d.items() if k != "type"}
        kw["t"] = float(kw["t"]) + offset
        if "zone" in kw:
            kw["zone"] = ZoneKind(kw["zone"])
        if "card" in kw:
            kw["card"] = None if kw["card"] is None else Card.parse(kw["card"])
        if "button" in kw:
            kw["button"] = ConsoleButton(kw["button"])
        if "declaration" in kw:
            kw["declaration"] = Declaration(kw["declaration"])
        if "chips" in kw:
            kw["chips"] = tuple(kw["chips"])
        ev: Event = cls(**kw)
    except (KeyError, TypeError, ValueError) as exc:
        raise HandLogError(f"hand log: {d.get('type')} entry unreadable: {exc}") from exc
    return ev


# ---------------------------------------------------------------------------- table values


def _lvl(level: tuple[int, int, int] | None) -> list[int] | None:
    return None if level is None else list(level)


def _level3(raw: Any) -> tuple[int, int, int]:
    sb, bb, ante = (int(x) for x in raw)
    return (sb, bb, ante)


def encode_positions(positions: Positions | None, button_set: bool) -> dict[str, Any] | None:
    """The button position (table store ``positions``)."""
    p = positions
    if p is None:
        return None
    return {"button": p.button, "sb": p.sb, "bb": p.bb, "heads_up": p.heads_up,
            "button_set": button_set}  # fmt: skip


def with_positions(data: TableData, raw: Any) -> TableData:
    """``data`` with the stored button position (unchanged when there is none)."""
    if not isinstance(raw, dict):
        return data
    try:
        pos = Positions(int(raw["button"]), int(raw["sb"]), int(raw["bb"]),
                        bool(raw.get("heads_up", False)))  # fmt: skip
    except (KeyError, TypeError, ValueError) as exc:
        raise HandLogError(f"stored button position unreadable: {exc}") from exc
    return dataclasses.replace(data, positions=pos, button_set=bool(raw.get("button_set", False)))


def encode_levels(level: Level, pending: Level | None, waits: bool) -> dict[str, Any]:
    """The core's level state: the level in force, the pending one, G11's wait and the
    venue's level numbers (table store ``levels``, the one stored copy; read from the core
    after every accepted event, without a whole export)."""
    return {
        "level": [level.small_blind, level.big_blind, level.ante],
        "pending": None if pending is None
        else [pending.small_blind, pending.big_blind, pending.ante],
        "waits": waits,
        "number": level.number,
        "pending_number": 0 if pending is None else pending.number,
    }  # fmt: skip


def with_levels(data: TableData, raw: Any) -> TableData | None:
    """``data`` with the stored level state (:func:`encode_levels`); None if there is none.
    Raises :class:`HandLogError` if it is unreadable."""
    if not isinstance(raw, dict):
        return None
    try:
        level = _level3(raw["level"])
        pend = raw.get("pending")
        pending = None if pend is None else _level3(pend)
        waits = bool(raw.get("waits", False))
        number = int(raw.get("number", 0))
        pending_number = int(raw.get("pending_number", 0)) if pending is not None else 0
    except (KeyError, TypeError, ValueError) as exc:
        raise HandLogError(f"stored level state unreadable ({exc})") from exc
    return dataclasses.replace(
        data, level=level, pending_level=pending, level_waits=waits and pending is not None,
        level_number=number, pending_level_number=pending_number,
    )  # fmt: skip


# ---------------------------------------------------------------------------- the _start entry


def _seat_data(v: Any) -> SeatData:
    """A seat of a ``_start`` entry: [player, stack, present, status, name] (no name in an
    entry of an earlier version: the player id)."""
    name = str(v[4]) if len(v) > 4 else str(v[0])
    return SeatData(str(v[0]), int(v[1]), bool(v[2]), SeatStatus(v[3]), name)


def encode_start(data: TableData, started_at: str) -> dict[str, Any]:
    """The table before a hand's first event (the first entry of the hand's log)."""
    return {
        "type": START,
        "t": data.t,
        "started_at": started_at,
        "profile": data.profile.name,
        "hand_no": data.hand_no,
        "deal_no": data.deal_no,
        "redeal_pending": data.redeal_pending,
        "seats": {
            str(s): [x.player, x.stack, x.present, x.status.value, x.name] for s, x in data.seats
        },
        "level": list(data.level),
        "pending_level": _lvl(data.pending_level),
        "level_number": data.level_number,
        "pending_level_number": data.pending_level_number,
        "level_waits": data.level_waits,
        "positions": encode_positions(data.positions, data.button_set),
        "posted": {str(s): a for s, a in data.posted},
        "presence_posts": sorted(data.presence_posts),
        "dealer": data.dealer,
        "where": {t: [z.value, s] for t, z, s in data.where},
        "cards": {t: None if c is None else str(c) for t, c in data.card_of},
    }


def decode_start(base: TableData, d: dict[str, Any], offset: float = 0.0) -> TableData:
    """``base`` (the restarted core's own export: table name, profile, the button draw and
    the last record) with the table of a ``_start`` entry, between hands (idle, no hand);
    times shifted by ``offset``."""
    try:
        pend = d.get("pending_level")
        pending = None if pend is None else _level3(pend)
        posted = tuple((int(s), int(a)) for s, a in d["posted"].items())
        seated = {s for s, _ in posted}
        data = dataclasses.replace(
            base,
            phase=Phase.IDLE,
            t=float(d["t"]) + offset,
            hand_no=int(d["hand_no"]),
            deal_no=int(d["deal_no"]),
            redeal_pending=bool(d["redeal_pending"]),
            seats=tuple((int(s), _seat_data(v)) for s, v in d["seats"].items()),
            level=_level3(d["level"]),
            pending_level=pending,
            # an entry written before the numbers were the core's: the restarted core's
            level_number=int(d.get("level_number", base.level_number)),
            pending_level_number=int(d.get("pending_level_number", base.pending_level_number))
            if pending is not None
            else 0,
            level_waits=bool(d.get("level_waits", False)) and pending is not None,
            positions=None,
            button_set=base.button_set,  # kept when the entry has no positions
            posted=posted,
            presence_posts=frozenset(
                int(s) for s in d.get("presence_posts", ()) if int(s) in seated
            ),
            dealer=str(d.get("dealer", "")),
            where=tuple((t, ZoneKind(z), int(s)) for t, (z, s) in d.get("where", {}).items()),
            card_of=tuple(
                (t, None if c is None else Card.parse(c)) for t, c in d.get("cards", {}).items()
            ),
            hand=None,
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise HandLogError(f"hand log: start entry unreadable: {exc}") from exc
    return with_positions(data, d.get("positions"))
