"""The room as the console shows it: a tile per table, built only from the tables' redacted
live topics (state, status, alerts, and ``alert_ack`` events), each payload checked against
the contract's schema first (anyone on the venue network may publish anything).

A tile copies a whitelist of fields, never a whole payload: the seats' player, stack, bet,
status and how many cards they hold, never which; the dealer on duty (a staff id) and the
table's storage health (``ok`` / ``degraded`` with each reason's code and detail).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from controller.link import schemas
from controller.link.errors import SchemaViolation

_ID = re.compile(r"[A-Za-z0-9-]{1,32}")
KINDS = {"state": "state", "status": "status", "alerts": "alert", "events": "event"}
SEAT_FIELDS = ("seat", "player_id", "name", "stack", "bet", "status", "cards_held")
STATE_FIELDS: tuple[str, ...] = ("hand_no", "street", "pot", "button", "to_act", "profile",
                                 "badge_reader", "dealer")  # fmt: skip
STATE_FIELDS += ("table_seats",)  # the table's seats (its zone map): the floor actions' checks
FEED_SIZE = 200


def parse_topic(topic: str) -> tuple[str, str, str] | None:
    """(venue, table, kind) of ``railguard/<venue>/<table>/<kind>``, else None."""
    parts = topic.split("/")
    if len(parts) != 4 or parts[0] != "railguard" or parts[3] not in KINDS:
        return None
    if not (_ID.fullmatch(parts[1]) and _ID.fullmatch(parts[2])):
        return None
    return parts[1], parts[2], parts[3]


def _alert_view(venue: str, table: str, body: dict[str, Any]) -> dict[str, Any]:
    keys = ("alert_id", "code", "severity", "clause", "remedy", "seat", "message", "hand_no", "ts")
    return {"venue": venue, "table": table, **{k: body.get(k) for k in keys}}


@dataclass
class Tile:
    venue: str
    table: str
    status: str = "unknown"
    last_seen: float | None = None
    state: dict[str, Any] = field(default_factory=dict)
    alerts: dict[str, dict[str, Any]] = field(default_factory=dict)  # open, by alert_id

    @property
    def key(self) -> str:
        return f"{self.venue}/{self.table}"

    def view(self) -> dict[str, Any]:
        return {"key": self.key, "venue": self.venue, "table": self.table,
                "status": self.status, "last_seen": self.last_seen, "state": self.state,
                "alerts": list(self.alerts.values())}  # fmt: skip


def _state_view(body: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {k: body.get(k) for k in STATE_FIELDS}
    for key in ("level", "pending_level"):  # in force; set for the next hand (G11)
        level = body.get(key)
        if isinstance(level, dict):
            out[key] = {k: level.get(k) for k in ("level", "small_blind", "big_blind", "ante")}
    storage = body.get("storage")  # the table's own store; absent from older tables
    if isinstance(storage, dict):
        out["storage"] = {"health": storage.get("health"),
                          "reasons": [{"code": r.get("code"), "detail": r.get("detail")}
                                      for r in storage.get("reasons", [])]}  # fmt: skip
    else:
        out["storage"] = None
    out["board_cards"] = len(body.get("board") or [])
    out["seats"] = [{k: s.get(k) for k in SEAT_FIELDS if k in s}
                    for s in body.get("seats", []) if isinstance(s, dict)]  # fmt: skip
    return out


class Room:
    """Every table seen on the broker; :meth:`apply` returns what changed (for the stream)."""

    def __init__(self) -> None:
        self.tiles: dict[str, Tile] = {}
        self.feed: deque[dict[str, Any]] = deque(maxlen=FEED_SIZE)  # newest first
        self.refused = 0  # payloads dropped: not JSON objects or not the contract's schema

    def tile(self, venue: str, table: str) -> Tile:
        key = f"{venue}/{table}"
        t = self.tiles.get(key)
        if t is None:
            t = self.tiles[key] = Tile(venue, table)
        return t

    def snapshot(self) -> dict[str, Any]:
        return {"tiles": [t.view() for t in sorted(self.tiles.values(), key=lambda t: t.key)],
                "feed": list(self.feed)}  # fmt: skip

    def apply(
        self, topic: str, body: object, now: float, *, integral_floats: bool | None = None
    ) -> list[dict[str, Any]]:
        """``integral_floats``: whether ``body`` holds a float like 3.0, when the caller's
        parser saw (None: looked for; see controller/link/schemas.py)."""
        where = parse_topic(topic)
        if where is None:
            return []
        venue, table, kind = where
        try:
            schemas.validate(KINDS[kind], body, integral_floats=integral_floats)
        except SchemaViolation:
            self.refused += 1
            return []
        assert isinstance(body, dict)
        if kind == "events" and body.get("kind") != "alert_ack":
            return []  # the console shows the state, not the event stream
        t = self.tile(venue, table)
        t.last_seen = now
        out: list[dict[str, Any]] = []
        if kind == "status":
            t.status = str(body["status"])
        elif kind == "state":
            t.status = "online"
            t.state = _state_view(body)
        elif kind == "alerts":
            a = _alert_view(venue, table, body)
            t.alerts[str(a["alert_id"])] = a
            self.feed.appendleft({**a, "acked_by": None})
            out.append({"type": "alert", "alert": a})
        else:
            data = body.get("data") or {}
            aid, by = str(data.get("alert_id")), data.get("by")
            t.alerts.pop(aid, None)
            for entry in self.feed:
                if entry["alert_id"] == aid and entry["table"] == table:
                    entry["acked_by"] = by
            out.append({"type": "ack", "key": t.key, "alert_id": aid, "by": by})
        out.append({"type": "tile", "tile": t.view()})
        return out
